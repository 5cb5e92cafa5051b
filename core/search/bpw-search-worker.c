/* bpw-search-worker.c — one search thread: bounds, dominance, evaluation, top K
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each worker has its own estimator and keeps its own top K and front. The threshold that
 * prunes a node is the K-th best of the blocks of nodes merged two blocks before its own
 * (bpw-search.c): never below the final K-th best, so nothing that belongs in the final
 * list is pruned, and the same whatever the interleaving, so are the counts.
 * A list holds results, not plans: the members of a class (plans that differ only in
 * collective algorithms) with the same estimate fold into one entry. A class lies in one
 * node, and so in one worker; every member of a listed result takes at most the K-th best
 * time, so no bound prunes one and the counts are exact.
 */
#define G_LOG_DOMAIN "bpw-search-worker"

#include "config.h"

#include "bpw-search-private.h"

#include <math.h>
#include <string.h>

/* Exact comparison; NaN never reaches here (the hits' energy and peak are +inf then). */
#define CMP(x, y) G_STMT_START { if ((x) != (y)) return (x) < (y) ? -1 : 1; } G_STMT_END

int
_bpw_search_key_compare (gconstpointer pa,
                         gconstpointer pb)
{
  const BpwSearchKey *a = pa, *b = pb;

  CMP (a->time, b->time);
  CMP (a->klass, b->klass);
  CMP (a->energy, b->energy);
  CMP (a->peak, b->peak);
  return 0;
}

#undef CMP

gboolean
_bpw_search_key_fold (BpwSearchKey       *into,
                      const BpwSearchKey *from)
{
  into->variants += from->variants;
  if (from->index >= into->index)
    return FALSE;
  into->index = from->index;
  return TRUE;
}

void
_bpw_search_fold_sorted (GArray *sorted)
{
  guint size = g_array_get_element_size (sorted), n = 0;
  char *data = sorted->data;

  for (guint i = 0; i < sorted->len; i++)
    {
      char *e = data + (gsize) i * size;
      char *last = n > 0 ? data + (gsize) (n - 1) * size : NULL;

      if (last != NULL && _bpw_search_key_compare (last, e) == 0)
        {
          if (_bpw_search_key_fold ((BpwSearchKey *) last, (const BpwSearchKey *) e))
            memcpy (last + sizeof (BpwSearchKey), e + sizeof (BpwSearchKey),
                    size - sizeof (BpwSearchKey));
          continue;
        }
      if (n != i)
        memcpy (data + (gsize) n * size, e, size);
      n++;
    }
  g_array_set_size (sorted, n);
}

gboolean
_bpw_search_key_dominates (const BpwSearchKey *a,
                           const BpwSearchKey *b)
{
  return a->time <= b->time && a->energy <= b->energy &&
         (a->time < b->time || a->energy < b->energy || _bpw_search_key_compare (a, b) < 0);
}

static void
offer_best (BpwSearchWorker *w, const BpwSearchHit *h)
{
  BpwSearchRun *s = w->run;
  guint k = s->options->top_k, lo = 0, hi = w->hits->len;
  BpwSearchHit *hits = (BpwSearchHit *) w->hits->data;

  /* The first entry not before @h: @h's own result when it is listed already (the members
   * of a class come one after the other, in index order). */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (_bpw_search_key_compare (&hits[mid], h) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < w->hits->len && _bpw_search_key_compare (&hits[lo], h) == 0)
    {
      if (_bpw_search_key_fold (&hits[lo].key, &h->key))
        hits[lo].eval = h->eval;
      return;
    }
  if (lo >= k)
    return;
  g_array_insert_val (w->hits, lo, *h);
  if (w->hits->len > k)
    g_array_set_size (w->hits, k);
  if (lo == 0)
    {
      g_mutex_lock (&s->lock);
      if (!s->has_best || h->key.time < s->best_time ||
          (h->key.time == s->best_time && h->key.index < s->best_index))
        {
          s->has_best = TRUE;
          s->best_time = h->key.time;
          s->best_index = h->key.index;
        }
      g_mutex_unlock (&s->lock);
    }
}

void
_bpw_search_front_insert (GArray             *front,
                          const BpwSearchHit *h)
{
  guint j = 0;

  for (guint i = 0; i < front->len; i++)
    {
      BpwSearchHit *e = &g_array_index (front, BpwSearchHit, i);

      /* Listed: nothing it dominates can be, and it dominates nothing listed. */
      if (_bpw_search_key_compare (e, h) == 0)
        {
          if (_bpw_search_key_fold (&e->key, &h->key))
            e->eval = h->eval;
          return;
        }
      if (_bpw_search_key_dominates (&e->key, &h->key))
        return;
    }
  for (guint i = 0; i < front->len; i++)
    if (!_bpw_search_key_dominates (&h->key, &g_array_index (front, BpwSearchHit, i).key))
      g_array_index (front, BpwSearchHit, j++) = g_array_index (front, BpwSearchHit, i);
  g_array_set_size (front, j);
  g_array_append_val (front, *h);
}

static gboolean
tiers_legal (const BpwSearchSpace *space, const BpwSearchGroup *g)
{
  BpwParallel p;
  gint tiers[BPW_N_GROUPS];

  /* Where every plan chooses its tiers, the estimator checks them plan by plan. */
  if (g->n_net_groups > 0)
    return TRUE;
  bpw_parallel_init_defaults (&p);
  p.tp = g->tp, p.pp = g->pp, p.dp = g->dp, p.ep = g->ep;
  p.cp = g->cp, p.cp_algorithm = g->cp_algorithm;
  bpw_plan_resolve_tiers (space->blueprint, &p, space->base.tier, tiers);
  return bpw_plan_check_tiers (space->blueprint, &p, tiers, NULL);
}

/* Whether the group can hold a legal plan: its tiers, and its persistent state (the same
 * for every node of the group). */
static gint
group_state (BpwSearchWorker *w, guint gi)
{
  BpwSearchRun *s = w->run;
  const BpwSearchSpace *space = s->space;
  const BpwSearchGroup *g = &g_array_index (space->groups, BpwSearchGroup, gi);
  gint state = __atomic_load_n (&s->group_state[gi], __ATOMIC_RELAXED);
  BpwSearchLeaf leaf = { 0 };
  BpwMapping m;
  double device, host;

  if (state != BPW_SEARCH_GROUP_UNKNOWN)
    return state;
  /* Two workers may both compute it: the answer is the same. */
  state = BPW_SEARCH_GROUP_OK;
  bpw_search_space_fill (space, g->first_node, &leaf, &m);
  if (!tiers_legal (space, g))
    state = BPW_SEARCH_GROUP_ILLEGAL;
  else if (_bpw_search_bound_state (w->est, space, &m, &device, &host, NULL) &&
           (device > s->capacity * (1.0 + BPW_SEARCH_BOUND_SLACK) ||
            (host > 0 && !s->has_host) ||
            (host > 0 && s->host_capacity > 0 &&
             host > s->host_capacity * (1.0 + BPW_SEARCH_BOUND_SLACK))))
    state = BPW_SEARCH_GROUP_ILLEGAL;
  __atomic_store_n (&s->group_state[gi], state, __ATOMIC_RELAXED);
  return state;
}

void
_bpw_search_worker_group (BpwSearchWorker *w,
                          guint            group)
{
  group_state (w, group);
}

void
_bpw_search_worker_bound_run (BpwSearchWorker *w,
                              guint            ni)
{
  BpwSearchRun *s = w->run;
  const BpwSearchSpace *space = s->space;
  const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, ni);
  BpwSearchLeaf leaf = { 0 };
  BpwSearchBound b;
  BpwMapping m;

  if (group_state (w, n->group) == BPW_SEARCH_GROUP_ILLEGAL)
    {
      s->run_state[ni] = BPW_SEARCH_RUN_ILLEGAL;
      return;
    }
  bpw_search_space_fill (space, ni, &leaf, &m);
  if (_bpw_search_bound_node (w->est, space, &m, n->micro_batches, &b, NULL))
    {
      s->run_flops[ni] = b.matmul_flops / (double) n->micro_batch;
      s->run_optimizer[ni] = b.optimizer;
      s->run_flops_min[ni] = b.matmul_flops_min / (double) n->micro_batch;
      s->run_state[ni] = BPW_SEARCH_RUN_BOUND;
    }
}

/* Lower bound that the plans dominating @leaf give it: +inf when one is illegal (the same
 * legality), -inf when none is known. */
static double
dominance_bound (BpwSearchWorker *w, guint ni, const BpwSearchNode *n,
                 const BpwSearchLeaf *leaf, gboolean all_to_all)
{
  const BpwSearchSpace *space = w->run->space;
  const double *values = (const double *) w->values->data;
  double bound = -INFINITY;
  BpwSearchLeaf d;

#define DOMINATED_BY(field, value) G_STMT_START {                                     \
    d = *leaf;                                                                        \
    d.field = (value);                                                                \
    bound = MAX (bound, values[bpw_search_space_leaf_offset (space, ni, &d)]);        \
  } G_STMT_END

  /* Automatic algorithms take the cheapest applicable one per transfer; an explicit one
   * is also used where it does not apply, which all-to-all can exploit. */
  if (leaf->algorithm != 0 && !all_to_all)
    DOMINATED_BY (algorithm, 0);
  /* Ring overlap hides at least what pipe does, and pipe at least what none does. */
  if (n->tp_overlap[0] == BPW_TP_OVERLAP_RING)
    for (guint o = 0; o < leaf->tp_overlap; o++)
      DOMINATED_BY (tp_overlap, o);
  if (leaf->dp_overlap != 0 && n->dp_overlap[0] && !n->dp_overlap[leaf->dp_overlap] &&
      w->run->dp_dominance)
    DOMINATED_BY (dp_overlap, 0);
  /* GPipe takes 1F1B's time and holds at least its activations. */
  if (leaf->schedule == 1 && n->n_plain == 2 && n->plain[0] == BPW_SCHEDULE_1F1B &&
      n->plain[1] == BPW_SCHEDULE_GPIPE)
    DOMINATED_BY (schedule, 0);
#undef DOMINATED_BY
  return bound;
}

static void
evaluate_leaf (BpwSearchWorker *w, guint ni, const BpwSearchLeaf *leaf, guint64 index,
               double *value)
{
  BpwSearchRun *s = w->run;
  const BpwSearchNode *n = &g_array_index (s->space->nodes, BpwSearchNode, ni);
  BpwMapping m;
  BpwSearchHit h;

  bpw_search_space_fill (s->space, ni, leaf, &m);
  if (!bpw_estimator_evaluate (w->est, &m, &h.eval, NULL, NULL))
    {
      w->failed++;
      *value = INFINITY;
      return;
    }
  w->estimated++;
  if (!h.eval.legal || isnan (h.eval.step_time_s))
    {
      *value = INFINITY;
      return;
    }
  w->legal++;
  *value = h.key.time = h.eval.step_time_s;
  h.key.energy = isnan (h.eval.energy_j) ? INFINITY : h.eval.energy_j;
  h.key.peak = isnan (h.eval.peak_bytes) ? INFINITY : h.eval.peak_bytes;
  h.key.index = index;
  /* The algorithm digit's stride is the networks' count (bpw_search_space_leaf_offset). */
  h.key.klass = index - (guint64) leaf->algorithm * n->n_networks;
  h.key.variants = 1;
  offer_best (w, &h);
  if (s->blocks)
    g_array_append_val (w->node_hits, h);
  if (s->options->pareto)
    _bpw_search_front_insert (w->front, &h);
}

void
_bpw_search_worker_node (BpwSearchWorker *w,
                         guint            ni)
{
  BpwSearchRun *s = w->run;
  const BpwSearchSpace *space = s->space;
  const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, ni);
  const BpwSearchGroup *g = &g_array_index (space->groups, BpwSearchGroup, n->group);
  gboolean exhaustive = s->options->exhaustive, pareto = s->options->pareto;
  guint64 lo = MAX (n->first, s->begin), hi = MIN (n->first + n->count, s->end);
  BpwSearchBound bound = { 0 };
  BpwSearchLeaf leaf = { 0 };
  BpwMapping m0;

  if (lo >= hi)
    return;
  if (!exhaustive)
    {
      if (s->run_state[n->run] == BPW_SEARCH_RUN_ILLEGAL ||
          group_state (w, n->group) == BPW_SEARCH_GROUP_ILLEGAL)
        {
          w->pruned_illegal += hi - lo;
          return;
        }
      /* Bounded before binding: the run's FLOPs scaled to this micro-batch. */
      if (!pareto && _bpw_search_bound_exceeds (s->node_bound[ni], w->threshold))
        {
          w->pruned_bound += hi - lo;
          return;
        }
      bpw_search_space_fill (space, ni, &leaf, &m0);
      if (!_bpw_search_bound_node (w->est, space, &m0, n->micro_batches, &bound, NULL))
        {
          w->failed += hi - lo;
          return;
        }
      if (bound.illegal)
        {
          w->pruned_illegal += hi - lo;
          return;
        }
    }

  g_array_set_size (w->values, n->count);
  for (guint64 i = 0; i < n->count; i++)
    g_array_index (w->values, double, i) = -INFINITY;
  g_array_set_size (w->interleave, n->n_schedules);
  for (guint i = 0; i < n->n_schedules; i++)
    bpw_search_space_schedule (space, ni, i, &g_array_index (w->interleave, gint64, i));

  for (guint64 off = lo - n->first; off < hi - n->first; off++)
    {
      double *value = &g_array_index (w->values, double, off);
      double lb, dom;

      bpw_search_space_leaf (space, ni, off, &leaf);
      if (!exhaustive)
        {
          lb = _bpw_search_bound_step (&bound, n->micro_batches, g->pp,
                                       g_array_index (w->interleave, gint64, leaf.schedule));
          dom = dominance_bound (w, ni, n, &leaf, bound.all_to_all);
          if (dom == INFINITY)
            {
              w->pruned_dominated++;
              *value = INFINITY;
              continue;
            }
          if (!pareto)
            {
              double threshold = w->threshold;

              if (_bpw_search_bound_exceeds (MAX (lb, dom), threshold))
                {
                  if (_bpw_search_bound_exceeds (lb, threshold))
                    w->pruned_bound++;
                  else
                    w->pruned_dominated++;
                  *value = MAX (lb, dom);
                  continue;
                }
            }
        }
      evaluate_leaf (w, ni, &leaf, n->first + off, value);
    }
}
