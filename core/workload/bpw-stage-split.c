/* bpw-stage-split.c — how many transformer blocks each pipeline stage runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-stage-split"

#include "config.h"

#include <string.h>

#include "bpw-stage-split.h"
#include "bpw-error.h"
#include "bpw-facts.h"
#include "bpw-i18n.h"
#include "bpw-model-spec.h"

gint64
bpw_parallel_chunks (const BpwParallel *parallel)
{
  return parallel->schedule == BPW_SCHEDULE_INTERLEAVED ? MAX (parallel->interleave, 1) : 1;
}

G_STATIC_ASSERT (BPW_MODEL_MAX_LAYERS <= G_MAXUINT16);

#define FAIL(...) G_STMT_START {                                                 \
    g_set_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN, __VA_ARGS__);         \
    return FALSE;                                                                \
  } G_STMT_END

gboolean
bpw_stage_split_check (const BpwParallel  *p,
                       const BpwModelSpec *m,
                       GError            **error)
{
  gint64 v = bpw_parallel_chunks (p), n_virtual = p->pp * v;

  if (n_virtual > m->layers)
    FAIL (_("the pipeline has %" PRId64 " stages (pp %" PRId64 " \xc3\x97 %" PRId64
          " chunks) but the model only %" PRId64 " layers: every stage needs one"),
          n_virtual, p->pp, v, m->layers);
  if (p->pp_split == BPW_PP_SPLIT_EXPLICIT)
    {
      gint64 sum = 0;

      if (p->n_stage_layers < 1 || p->n_stage_layers > BPW_PARALLEL_MAX_STAGE_LAYERS)
        FAIL (_("parallel.pp_layers: expected 1 to %d entries, got %d"),
              BPW_PARALLEL_MAX_STAGE_LAYERS, p->n_stage_layers);
      if (p->n_stage_layers != p->pp && p->n_stage_layers != n_virtual)
        FAIL (_("parallel.pp_layers: %d entries for %" PRId64 " stages; list one per "
              "stage (pp) or one per virtual stage (pp \xc3\x97 interleave = %" PRId64 ")"),
              p->n_stage_layers, p->pp, n_virtual);
      for (gint32 i = 0; i < p->n_stage_layers; i++)
        {
          if (p->stage_layers[i] < (guint32) (p->n_stage_layers == p->pp ? v : 1))
            FAIL (_("parallel.pp_layers[%d]: stage %d has %u layers; every stage needs "
                  "at least one per model chunk"), i, i, p->stage_layers[i]);
          sum += p->stage_layers[i];
        }
      if (sum != m->layers)
        FAIL (_("parallel.pp_layers: the stages hold %" PRId64 " layers, the model has %"
              PRId64), sum, m->layers);
    }
  else if (p->pp_split == BPW_PP_SPLIT_LIGHTER)
    {
      gint64 b = (m->layers + 2 * (gint64) p->pp_lighter) / n_virtual;

      if (n_virtual < 3)
        FAIL (_("parallel.pp_lighter: lightening the first and last stage needs at least "
              "three stages, got %" PRId64), n_virtual);
      if (p->pp_lighter < 0 || b - p->pp_lighter < 1)
        FAIL (_("parallel.pp_lighter: %d layers fewer leaves the first and last stage "
              "without a layer (%" PRId64 " layers over %" PRId64 " stages)"), p->pp_lighter,
              m->layers, n_virtual);
    }
  return TRUE;
}

/* Blocks in stage @i of @n holding @total as evenly as possible, extras on the later. */
static gint64
even_share (gint64 total, gint64 n, gint64 i)
{
  return total / n + (i >= n - total % n ? 1 : 0);
}

void
bpw_stage_weights_from_facts (BpwStageWeights *w,
                              const BpwFacts  *facts)
{
  w->before = facts->flops_before_blocks;
  w->after = facts->flops_after_blocks;
  memcpy (w->block, facts->flops_block, sizeof w->block);
}

BpwU128
bpw_stage_weights_block (const BpwStageWeights *w,
                         const BpwModelSpec    *m,
                         gint64                 layer)
{
  /* The kinds as bpw_facts_compute_analytic() tells them apart. */
  gboolean second = bpw_model_spec_has_cross_attention (m)
                    ? bpw_model_spec_is_cross_layer (m, layer)
                    : bpw_model_spec_layer_window (m, layer) > 0;

  return w->block[bpw_model_spec_is_moe_layer (m, layer) ? 1 : 0][second ? 1 : 0];
}

/* The balanced split's arithmetic over prefix sums: @work[i] is the work of blocks
 * [0, i), the first stage adds @before and the last @after. */
typedef struct
{
  const BpwU128 *work;
  BpwU128        before, after;
  gint64         layers, n_virtual;
} Partition;

/* Models up to this many blocks are balanced without allocating (every bundled one). */
#define STACK_LAYERS 256

/* Work of virtual stage @k holding blocks [@from, @to). */
static BpwU128
stage_work (const Partition *pt, gint64 k, gint64 from, gint64 to)
{
  return pt->work[to] - pt->work[from] + (k == 0 ? pt->before : 0)
         + (k == pt->n_virtual - 1 ? pt->after : 0);
}

/* The furthest end of virtual stage @k from block @from within @bound that leaves every
 * later stage a block; @from when not even one block fits. */
static gint64
furthest_end (const Partition *pt, gint64 k, gint64 from, BpwU128 bound)
{
  gint64 limit = k == pt->n_virtual - 1 ? pt->layers : pt->layers - (pt->n_virtual - 1 - k);
  gint64 to = from;

  while (to < limit && stage_work (pt, k, from, to + 1) <= bound)
    to++;
  return to;
}

/* Whether every stage fits within @bound, each taking as many blocks as fit: that keeps
 * the cut at least as far along as any other split that fits, stage by stage. Sets
 * @heaviest to the heaviest stage of that split when it fits, else @next to the least
 * bound that would let some stage take one more block (no bound below it fits either:
 * every stage would stop where it stops now). */
static gboolean
fits (const Partition *pt, BpwU128 bound, BpwU128 *heaviest, BpwU128 *next)
{
  gint64 from = 0;

  *heaviest = 0;
  *next = ~(BpwU128) 0;
  for (gint64 k = 0; k < pt->n_virtual; k++)
    {
      gint64 to = furthest_end (pt, k, from, bound);
      gint64 limit = k == pt->n_virtual - 1 ? pt->layers
                                            : pt->layers - (pt->n_virtual - 1 - k);

      if (to < limit)
        *next = MIN (*next, stage_work (pt, k, from, to + 1));
      if (to == from)
        return FALSE;
      *heaviest = MAX (*heaviest, stage_work (pt, k, from, to));
      from = to;
    }
  return from == pt->layers;
}

/* The earliest first block of each virtual stage k ≥ 1 from which stages k .. V − 1 still
 * fit within @bound (the same greedy walk from the last stage back), into @earliest. */
static void
earliest_starts (const Partition *pt, BpwU128 bound, guint16 *earliest)
{
  gint64 to = pt->layers;

  for (gint64 k = pt->n_virtual - 1; k >= 1; k--)
    {
      gint64 from = to;

      while (from - 1 >= k && stage_work (pt, k, from - 1, to) <= bound)
        from--;
      earliest[k] = (guint16) from;
      to = from;
    }
}

/* |a − b| of unsigned values. */
static BpwU128
distance (BpwU128 a, BpwU128 b)
{
  return a > b ? a - b : b - a;
}

/* The balanced split over @work, the prefix sums of the blocks' work (layers + 1 entries,
 * overwritten when they are all 0). Allocates nothing: the estimator runs it per mapping. */
static BpwU128
balance_prefix (BpwStageSplit *sp,
                BpwU128       *work,
                BpwU128        before,
                BpwU128        after)
{
  Partition pt = { work, before, after, sp->layers, sp->n_virtual };
  BpwU128 lo, hi, total;

  /* Without any work to weigh, the blocks count alike. */
  if (before + work[sp->layers] + after == 0)
    for (gint64 i = 0; i <= sp->layers; i++)
      work[i] = (BpwU128) i;
  total = before + work[sp->layers] + after;

  /* The least bound every stage fits within, at least the mean stage; everything on one
   * stage always fits. Bisected, each probe also moving the ends to the stage works that
   * bound it (the split's heaviest stage, or the next bound that changes the split). */
  lo = (total + (BpwU128) sp->n_virtual - 1) / (BpwU128) sp->n_virtual;
  hi = total;
  while (lo < hi)
    {
      BpwU128 mid = lo + (hi - lo) / 2, heaviest, next;

      if (fits (&pt, mid, &heaviest, &next))
        hi = heaviest;
      else
        lo = MAX (next, mid + 1);
    }

  /* Each boundary as near its even share as the bound allows: no earlier than the start
   * that lets the later stages fit (held in bounds[k] until boundary k is cut), and no
   * further than the stage before it reaches. */
  earliest_starts (&pt, hi, sp->bounds);
  sp->weighed = TRUE;
  sp->bounds[0] = 0;
  sp->bounds[sp->n_virtual] = (guint16) sp->layers;
  for (gint64 k = 1; k < sp->n_virtual; k++)
    {
      gint64 from = sp->bounds[k - 1];
      gint64 a = MAX ((gint64) sp->bounds[k], from + 1);
      gint64 z = furthest_end (&pt, k - 1, from, hi), best = a;
      BpwU128 goal = total * (BpwU128) k;

      /* Compared as V × (work before the cut) against k × total, exactly. */
      for (gint64 b = a + 1; b <= z; b++)
        if (distance ((before + work[b]) * (BpwU128) sp->n_virtual, goal) <
            distance ((before + work[best]) * (BpwU128) sp->n_virtual, goal))
          best = b;
      sp->bounds[k] = (guint16) best;
    }
  return hi;
}

BpwU128
bpw_stage_split_balance (BpwStageSplit *sp,
                         const BpwU128 *block_work,
                         BpwU128        before,
                         BpwU128        after)
{
  g_autofree BpwU128 *work = NULL;

  g_return_val_if_fail (sp->n_virtual >= 1 && sp->n_virtual <= sp->layers &&
                        sp->layers <= BPW_MODEL_MAX_LAYERS, 0);
  work = g_new (BpwU128, sp->layers + 1);
  work[0] = 0;
  for (gint64 i = 0; i < sp->layers; i++)
    work[i + 1] = work[i] + block_work[i];
  return balance_prefix (sp, work, before, after);
}

gboolean
bpw_stage_split_is_balanced (const BpwParallel  *p,
                             const BpwModelSpec *m)
{
  gint64 n_virtual = p->pp * bpw_parallel_chunks (p);

  return p->pp_split == BPW_PP_SPLIT_BALANCED ||
         (p->pp_split == BPW_PP_SPLIT_AUTO && n_virtual > 0 && m->layers % n_virtual != 0);
}

gboolean
bpw_stage_split_resolve_weighed (BpwStageSplit         *sp,
                                 const BpwParallel     *p,
                                 const BpwModelSpec    *m,
                                 const BpwStageWeights *weights,
                                 GError               **error)
{
  BpwPpSplit mode = p->pp_split;

  if (!bpw_stage_split_check (p, m, error))
    return FALSE;
  sp->pp = p->pp;
  sp->chunks = bpw_parallel_chunks (p);
  sp->n_virtual = sp->pp * sp->chunks;
  sp->layers = m->layers;
  sp->first = sp->last = sp->middle = 0;
  sp->listed = NULL;
  sp->n_listed = 0;
  sp->weighed = FALSE;
  if (mode == BPW_PP_SPLIT_AUTO)
    mode = bpw_stage_split_is_balanced (p, m) ? BPW_PP_SPLIT_BALANCED : BPW_PP_SPLIT_EVEN;

  switch (mode)
    {
    case BPW_PP_SPLIT_EXPLICIT:
      sp->listed = p->stage_layers;
      sp->n_listed = p->n_stage_layers;
      break;
    case BPW_PP_SPLIT_LIGHTER:
      sp->first = sp->last = (m->layers + 2 * (gint64) p->pp_lighter) / sp->n_virtual
                             - p->pp_lighter;
      sp->middle = m->layers - sp->first - sp->last;
      break;
    case BPW_PP_SPLIT_BALANCED:
      if (sp->n_virtual > 1)
        {
          BpwU128 stack_work[STACK_LAYERS + 1];
          g_autofree BpwU128 *heap_work = NULL;
          BpwU128 *work = stack_work;

          g_return_val_if_fail (weights != NULL, FALSE);
          if (m->layers > STACK_LAYERS)
            work = heap_work = g_new (BpwU128, m->layers + 1);
          work[0] = 0;
          for (gint64 l = 0; l < m->layers; l++)
            work[l + 1] = work[l] + bpw_stage_weights_block (weights, m, l);
          balance_prefix (sp, work, weights->before, weights->after);
          break;
        }
      G_GNUC_FALLTHROUGH;
    case BPW_PP_SPLIT_AUTO:
    case BPW_PP_SPLIT_EVEN:
    default:
      sp->first = even_share (m->layers, sp->n_virtual, 0);
      sp->last = sp->n_virtual > 1 ? even_share (m->layers, sp->n_virtual, sp->n_virtual - 1)
                                   : 0;
      sp->middle = m->layers - sp->first - sp->last;
      break;
    }
  return TRUE;
}

gboolean
bpw_stage_split_resolve (BpwStageSplit      *sp,
                         const BpwParallel  *p,
                         const BpwModelSpec *m,
                         const BpwScenario  *s,
                         GError            **error)
{
  BpwStageWeights weights = { 0 };

  /* Only the balanced split weighs the layers; the facts of one device give their work. */
  if (bpw_stage_split_is_balanced (p, m) && p->pp * bpw_parallel_chunks (p) > 1 &&
      p->pp * bpw_parallel_chunks (p) <= m->layers)
    {
      BpwParallel single;
      BpwFacts facts;

      bpw_parallel_init_defaults (&single);
      if (!bpw_facts_compute_analytic (m, s, &single, &facts, error))
        return FALSE;
      bpw_stage_weights_from_facts (&weights, &facts);
      bpw_facts_clear (&facts);
    }
  return bpw_stage_split_resolve_weighed (sp, p, m, &weights, error);
}

gint64
bpw_stage_split_virtual (const BpwStageSplit *sp,
                         gint64               k)
{
  if (sp->listed != NULL && sp->n_listed == sp->n_virtual)
    return sp->listed[k];
  if (sp->listed != NULL)
    /* One entry per rank: its blocks over its chunks, the extra ones on later chunks. */
    return even_share (sp->listed[k % sp->pp], sp->chunks, k / sp->pp);
  if (sp->weighed)
    return sp->bounds[k + 1] - sp->bounds[k];
  if (sp->n_virtual == 1)
    return sp->layers;
  if (k == 0)
    return sp->first;
  if (k == sp->n_virtual - 1)
    return sp->last;
  return even_share (sp->middle, sp->n_virtual - 2, k - 1);
}

gint64
bpw_stage_split_rank (const BpwStageSplit *sp,
                      gint64               stage)
{
  gint64 total = 0;

  for (gint64 c = 0; c < sp->chunks; c++)
    total += bpw_stage_split_virtual (sp, c * sp->pp + stage);
  return total;
}

/* Blocks of the first @m of @n stages holding @total as even_share() spreads it. */
static gint64
even_prefix (gint64 total, gint64 n, gint64 m)
{
  return m * (total / n) + MAX (0, m - (n - total % n));
}

gint64
bpw_stage_split_virtual_first (const BpwStageSplit *sp,
                               gint64               k)
{
  gint64 first = 0;

  if (k <= 0)
    return 0;
  if (k >= sp->n_virtual)
    return sp->layers;
  if (sp->weighed)
    return sp->bounds[k];
  if (sp->listed != NULL)
    {
      for (gint64 j = 0; j < k; j++)
        first += bpw_stage_split_virtual (sp, j);
      return first;
    }
  if (k == sp->n_virtual - 1)
    return sp->layers - sp->last;
  return sp->first + even_prefix (sp->middle, sp->n_virtual - 2, k - 1);
}

gint64
bpw_stage_split_virtual_of (const BpwStageSplit *sp,
                            gint64               layer)
{
  gint64 lo = 0, hi = sp->n_virtual - 1;

  /* The last virtual stage whose first block is at or before @layer. */
  while (lo < hi)
    {
      gint64 mid = lo + (hi - lo + 1) / 2;

      if (bpw_stage_split_virtual_first (sp, mid) <= layer)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

gint64
bpw_stage_split_rank_layer (const BpwStageSplit *sp,
                            gint64               stage,
                            gint64               i)
{
  for (gint64 c = 0; c < sp->chunks; c++)
    {
      gint64 k = c * sp->pp + stage, n = bpw_stage_split_virtual (sp, k);

      if (i < n)
        return bpw_stage_split_virtual_first (sp, k) + i;
      i -= n;
    }
  g_return_val_if_reached (-1);
}
