/* bpw-stage-split.c — how many transformer blocks each pipeline stage runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-stage-split"

#include "config.h"

#include <math.h>

#include "bpw-stage-split.h"
#include "bpw-error.h"
#include "bpw-facts.h"
#include "bpw-i18n.h"
#include "bpw-model-spec.h"

/* Slack for comparing stage times made of a whole number of blocks and a cost. */
#define TIME_EPSILON 1e-9

gint64
bpw_parallel_chunks (const BpwParallel *parallel)
{
  return parallel->schedule == BPW_SCHEDULE_INTERLEAVED ? MAX (parallel->interleave, 1) : 1;
}

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

static gboolean
feasible (const BpwStageSplit *sp, double e, double h, double t)
{
  double cf = floor (t - e + TIME_EPSILON), cl = floor (t - h + TIME_EPSILON);
  double cm = floor (t + TIME_EPSILON);

  if (cf < 1 || cl < 1 || cm < 1)
    return FALSE;
  return cf + cl + (double) (sp->n_virtual - 2) * cm >= (double) sp->layers;
}

void
bpw_stage_split_balance (BpwStageSplit *sp,
                         double         e,
                         double         h)
{
  gint64 n_mid = sp->n_virtual - 2, a, z, mid, excess;
  double best = INFINITY, offsets[3] = { 0, e, h };

  if (sp->n_virtual < 2)
    {
      sp->first = sp->last = sp->layers, sp->middle = 0;
      return;
    }
  /* The slowest stage's time is a whole number of blocks plus nothing, the embedding or
   * the head: search each kind for the smallest feasible one. */
  for (guint kind = 0; kind < 3; kind++)
    {
      gint64 lo = 1, hi = sp->layers + (gint64) ceil (MAX (e, h)) + 2;

      if (!feasible (sp, e, h, (double) hi + offsets[kind]))
        continue;
      while (lo < hi)
        {
          gint64 x = lo + (hi - lo) / 2;

          if (feasible (sp, e, h, (double) x + offsets[kind]))
            hi = x;
          else
            lo = x + 1;
        }
      best = MIN (best, (double) lo + offsets[kind]);
    }
  a = (gint64) floor (best - e + TIME_EPSILON);
  z = (gint64) floor (best - h + TIME_EPSILON);
  mid = n_mid * (gint64) floor (best + TIME_EPSILON);
  /* Hand back the blocks the bound leaves over, each from the slowest stage that can spare
   * one, the first and the last before the middle ones on a tie. */
  excess = a + z + mid - sp->layers;
  while (excess-- > 0)
    {
      double tf = a > 1 ? (double) a + e : -1, tl = z > 1 ? (double) z + h : -1;
      double tm = n_mid > 0 && mid > n_mid ? (double) ((mid + n_mid - 1) / n_mid) : -1;

      if (tf >= 0 && tf + TIME_EPSILON >= tl && tf + TIME_EPSILON >= tm)
        a--;
      else if (tl >= 0 && tl + TIME_EPSILON >= tm)
        z--;
      else
        mid--;
    }
  sp->first = a, sp->last = z, sp->middle = mid;
}

gboolean
bpw_stage_split_resolve_weighed (BpwStageSplit      *sp,
                                 const BpwParallel  *p,
                                 const BpwModelSpec *m,
                                 const double        flops[BPW_N_LAYER_TYPES],
                                 GError            **error)
{
  BpwPpSplit mode = p->pp_split;

  if (!bpw_stage_split_check (p, m, error))
    return FALSE;
  *sp = (BpwStageSplit) {
    .pp = p->pp, .chunks = bpw_parallel_chunks (p), .layers = m->layers,
  };
  sp->n_virtual = sp->pp * sp->chunks;
  if (mode == BPW_PP_SPLIT_AUTO)
    mode = m->layers % sp->n_virtual == 0 ? BPW_PP_SPLIT_EVEN : BPW_PP_SPLIT_BALANCED;

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
      {
        /* Model FLOPs stand for time: the forward and backward of the embedding, of one
         * block (its attention, MLP or experts, and norms), and of the head with the loss. */
        double block = (flops[BPW_LAYER_ATTENTION] + flops[BPW_LAYER_MLP] +
                        flops[BPW_LAYER_MOE] + flops[BPW_LAYER_NORM]) / (double) m->layers;

        if (!(block > 0))
          block = 1;
        bpw_stage_split_balance (sp, flops[BPW_LAYER_EMBEDDING] / block,
                                 (flops[BPW_LAYER_HEAD] + flops[BPW_LAYER_LOSS]) / block);
      }
      break;
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
  double flops[BPW_N_LAYER_TYPES] = { 0 };
  gboolean balanced = p->pp_split == BPW_PP_SPLIT_BALANCED ||
                      (p->pp_split == BPW_PP_SPLIT_AUTO &&
                       m->layers % (p->pp * bpw_parallel_chunks (p)) != 0);

  /* Only the balanced split weighs the layers; the facts of one device give their FLOPs. */
  if (balanced && p->pp * bpw_parallel_chunks (p) <= m->layers)
    {
      BpwParallel single;
      BpwFacts facts;

      bpw_parallel_init_defaults (&single);
      if (!bpw_facts_compute_analytic (m, s, &single, &facts, error))
        return FALSE;
      for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
        flops[l] = bpw_u128_to_double (facts.flops_model_by_layer_type[l]);
      bpw_facts_clear (&facts);
    }
  return bpw_stage_split_resolve_weighed (sp, p, m, flops, error);
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
