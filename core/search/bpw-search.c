/* bpw-search.c — threads over the nodes of a search space, top K, Pareto front, progress
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Binding a node's template costs far more than evaluating its plans, so search binds as
 * few as it can. Phase 1 binds the first node of every run (a group, SP, fusion set and
 * recompute: the micro-batches vary inside it) and keeps its matmul FLOPs per sequence;
 * matmul FLOPs are proportional to the micro-batch, so every node of the run gets a
 * step-time bound before its own template exists: (m + (p−1)/v_max) · FLOPs / fastest
 * matrix rate + optimizer. Phase 2 takes the nodes best bound first from an atomic
 * counter, skips those whose bound already exceeds the K-th best of the blocks of nodes
 * finished two blocks before, and evaluates the rest (bpw-search-worker.c). Neither the
 * result nor the counts depend on the interleaving or the thread count.
 */
#define G_LOG_DOMAIN "bpw-search"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-search.h"

#include <math.h>
#include <string.h>

#include "bpw-dist-work.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-search-private.h"
#include "bpw-simulation.h"
#include "bpw-work-graph.h"

void
bpw_search_options_init (BpwSearchOptions *options)
{
  *options = (BpwSearchOptions) {
    .top_k = 10, .shard_count = 1, .reevaluate = TRUE, .simulate = TRUE, .progress_ms = 200,
  };
}

typedef void (*PhaseFunc) (BpwSearchWorker *w, guint item);

typedef struct
{
  BpwSearchWorker *worker;
  PhaseFunc        func;
} PhaseThread;

/* Merges the finished blocks, in order, into the best K, and sets the threshold of the
 * block two after each. Called with the lock held. */
static void
merge_blocks (BpwSearchRun *s)
{
  guint k = s->options->top_k;

  while (s->merged < s->n_blocks && s->block_left[s->merged] == 0)
    {
      GArray *hits = s->block_hits->pdata[s->merged];

      g_array_append_vals (s->top, hits->data, hits->len);
      g_array_set_size (hits, 0);
      g_array_sort (s->top, _bpw_search_key_compare);
      _bpw_search_fold_sorted (s->top);
      if (s->top->len > k)
        g_array_set_size (s->top, k);
      if (s->merged + 2 < s->n_blocks && s->top->len == k)
        s->block_threshold[s->merged + 2] = g_array_index (s->top, BpwSearchHit, k - 1).key.time;
      s->merged++;
    }
  g_cond_broadcast (&s->advanced);
}

/* Waits until the blocks before @block's threshold are merged; its threshold. */
static double
enter_block (BpwSearchRun *s, guint block)
{
  double threshold;

  g_mutex_lock (&s->lock);
  while (s->merged + 1 < block && !g_cancellable_is_cancelled (s->cancellable))
    g_cond_wait_until (&s->advanced, &s->lock,
                       g_get_monotonic_time () + 10 * G_TIME_SPAN_MILLISECOND);
  threshold = s->block_threshold[block];
  g_mutex_unlock (&s->lock);
  return threshold;
}

/* Hands the node's best K to its block; merges what is finished. */
static void
leave_block (BpwSearchWorker *w, guint block)
{
  BpwSearchRun *s = w->run;
  guint k = s->options->top_k;

  g_array_sort (w->node_hits, _bpw_search_key_compare);
  _bpw_search_fold_sorted (w->node_hits);
  if (w->node_hits->len > k)
    g_array_set_size (w->node_hits, k);
  g_mutex_lock (&s->lock);
  g_array_append_vals (s->block_hits->pdata[block], w->node_hits->data, w->node_hits->len);
  s->block_left[block]--;
  if (block == s->merged && s->block_left[block] == 0)
    merge_blocks (s);
  g_mutex_unlock (&s->lock);
  g_array_set_size (w->node_hits, 0);
}

static gpointer
phase_main (gpointer data)
{
  PhaseThread *pt = data;
  BpwSearchWorker *w = pt->worker;
  BpwSearchRun *s = w->run;
  gboolean blocks = s->blocks && pt->func == _bpw_search_worker_node;

  for (;;)
    {
      gint i = __atomic_fetch_add (&s->next, 1, __ATOMIC_RELAXED);
      guint64 before = w->estimated;

      if ((guint) i >= s->n_work || g_cancellable_is_cancelled (s->cancellable))
        break;
      w->threshold = blocks ? enter_block (s, (guint) i / BPW_SEARCH_BLOCK_NODES) : INFINITY;
      pt->func (w, s->work[i]);
      if (blocks)
        leave_block (w, (guint) i / BPW_SEARCH_BLOCK_NODES);
      if (pt->func == _bpw_search_worker_node)
        {
          const BpwSearchNode *n = &g_array_index (s->space->nodes, BpwSearchNode, s->work[i]);

          __atomic_add_fetch (&s->estimated, w->estimated - before, __ATOMIC_RELAXED);
          __atomic_add_fetch (&s->decided, MIN (n->first + n->count, s->end) -
                                           MAX (n->first, s->begin), __ATOMIC_RELAXED);
        }
      /* Every node has its own template shape: keep memory flat. */
      w->templates += bpw_estimator_n_templates (w->est);
      bpw_estimator_drop_templates (w->est);
    }

  g_mutex_lock (&s->lock);
  s->running--;
  g_cond_signal (&s->done);
  g_mutex_unlock (&s->lock);
  return NULL;
}

static void
report_progress (BpwSearchRun *s, double t0, BpwSearchProgressFunc progress, gpointer user_data)
{
  BpwSearchProgress p = {
    .decided = __atomic_load_n (&s->decided, __ATOMIC_RELAXED),
    .total = s->end - s->begin,
    .estimated = __atomic_load_n (&s->estimated, __ATOMIC_RELAXED),
    .phase = s->phase,
    .elapsed_s = (double) (g_get_monotonic_time () - t0) / 1e6,
  };

  p.remaining_s = p.decided > 0 ? p.elapsed_s * (double) (p.total - p.decided) / (double) p.decided
                                : NAN;
  g_mutex_lock (&s->lock);
  p.has_best = s->has_best;
  p.best_index = s->best_index;
  p.best_step_time_s = s->best_time;
  g_mutex_unlock (&s->lock);
  progress (&p, user_data);
}

void
_bpw_search_result_clear (gpointer data)
{
  BpwSearchResult *r = data;

  bpw_mapping_clear (&r->mapping);
  g_clear_pointer (&r->plan, bpw_plan_free);
  g_clear_pointer (&r->reasons, g_ptr_array_unref);
  g_clear_pointer (&r->simulation_json, g_free);
}

void
bpw_search_result_reevaluate (const BpwSearchSpace *space,
                              BpwSearchResult      *r)
{
  _bpw_search_result_reevaluate_in (space, &space->scenario, r);
}

void
_bpw_search_result_reevaluate_in (const BpwSearchSpace *space,
                                  const BpwScenario    *in,
                                  BpwSearchResult      *r)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) graph = NULL;
  BpwScenario scenario;
  BpwDistWork *dist;

  g_clear_pointer (&r->plan, bpw_plan_free);
  g_ptr_array_set_size (r->reasons, 0);
  r->evaluation = r->estimate;
  bpw_scenario_copy (&scenario, in);
  bpw_mapping_apply_to_scenario (&r->mapping, &scenario);
  graph = bpw_work_graph_new (&space->spec, &scenario, &error);
  dist = graph != NULL ? bpw_dist_work_new (g_steal_pointer (&graph), &r->mapping.parallel,
                                            &error)
                       : NULL;
  r->plan = dist != NULL ? bpw_plan_new (dist, space->blueprint, &r->mapping, &error) : NULL;
  bpw_scenario_clear (&scenario);
  if (r->plan == NULL)
    {
      g_ptr_array_add (r->reasons, g_strdup (error->message));
      return;
    }
  bpw_evaluation_from_plan (r->plan, &r->evaluation);
  for (guint i = 0; i < r->plan->reasons->len; i++)
    g_ptr_array_add (r->reasons, g_strdup (r->plan->reasons->pdata[i]));
}

gboolean
bpw_search_result_simulate (const BpwSearchSpace *space,
                            BpwSearchResult      *r)
{
  g_autoptr(BpwSimulation) sim = NULL;
  BpwSimOptions options = { 0 };

  (void) space;
  if (r->plan == NULL)
    return FALSE;
  sim = bpw_simulation_new (r->plan, &options, NULL);
  if (sim == NULL)
    return FALSE;
  bpw_simulation_evaluation (sim, &r->evaluation, &r->simulation);
  g_free (r->simulation_json);
  r->simulation_json = bpw_simulation_evaluation_to_json (sim, &r->simulation, &r->evaluation,
                                                          r->reasons);
  r->simulated = TRUE;
  return TRUE;
}

typedef struct
{
  const BpwSearchSpace *space;
  GArray               *results;
  gboolean              simulate;
  gint                  next;
} Reevaluation;

static gpointer
reevaluate_main (gpointer data)
{
  Reevaluation *re = data;
  gint i;

  while ((i = __atomic_fetch_add (&re->next, 1, __ATOMIC_RELAXED)) < (gint) re->results->len)
    {
      BpwSearchResult *r = &g_array_index (re->results, BpwSearchResult, i);

      bpw_search_result_reevaluate (re->space, r);
      if (re->simulate)
        bpw_search_result_simulate (re->space, r);
    }
  return NULL;
}

static GArray *
results_from_hits (const BpwSearchSpace *space, GArray *hits, gboolean reevaluate,
                   gboolean simulate, guint n_threads)
{
  GArray *out = g_array_sized_new (FALSE, TRUE, sizeof (BpwSearchResult), hits->len);

  g_array_set_clear_func (out, _bpw_search_result_clear);
  for (guint i = 0; i < hits->len; i++)
    {
      const BpwSearchHit *h = &g_array_index (hits, BpwSearchHit, i);
      BpwSearchResult r = {
        .index = h->key.index, .estimate = h->eval, .evaluation = h->eval,
        .algorithm_class = h->key.klass, .equivalent_variants = h->key.variants,
      };

      bpw_mapping_init_defaults (&r.mapping);
      bpw_search_space_mapping (space, h->key.index, &r.mapping);
      r.reasons = g_ptr_array_new_with_free_func (g_free);
      g_array_append_val (out, r);
    }
  /* Each plan is bound (and simulated) independently: on the threads. */
  if (reevaluate && out->len > 0)
    {
      Reevaluation re = { space, out, simulate, 0 };
      guint n = MIN (n_threads, out->len);
      g_autofree GThread **threads = g_new0 (GThread *, n);

      for (guint i = 0; i < n; i++)
        threads[i] = g_thread_new ("bpw-search-best", reevaluate_main, &re);
      for (guint i = 0; i < n; i++)
        g_thread_join (threads[i]);
    }
  return out;
}

/* Runs @func over @work on every worker, reporting progress until all are done. */
static void
run_phase (BpwSearchRun *s, BpwSearchWorker *workers, guint n_threads, PhaseFunc func,
           const guint *work, guint n_work, gint64 t0, BpwSearchProgressFunc progress,
           gpointer user_data)
{
  g_autofree GThread **threads = g_new0 (GThread *, n_threads);
  g_autofree PhaseThread *pts = g_new0 (PhaseThread, n_threads);

  s->work = work;
  s->n_work = n_work;
  s->next = 0;
  s->running = n_threads;
  for (guint i = 0; i < n_threads; i++)
    {
      pts[i] = (PhaseThread) { &workers[i], func };
      threads[i] = g_thread_new ("bpw-search", phase_main, &pts[i]);
    }
  g_mutex_lock (&s->lock);
  while (s->running > 0)
    {
      gint64 deadline = g_get_monotonic_time () +
                        (gint64) MAX (s->options->progress_ms, 10) * G_TIME_SPAN_MILLISECOND;

      if (!g_cond_wait_until (&s->done, &s->lock, deadline) && progress != NULL)
        {
          g_mutex_unlock (&s->lock);
          report_progress (s, (double) t0, progress, user_data);
          g_mutex_lock (&s->lock);
        }
    }
  g_mutex_unlock (&s->lock);
  for (guint i = 0; i < n_threads; i++)
    g_thread_join (threads[i]);
}

static guint64
in_range (const BpwSearchRun *s, guint64 first, guint64 count)
{
  guint64 lo = MAX (first, s->begin), hi = MIN (first + count, s->end);

  return hi > lo ? hi - lo : 0;
}

/* Phase 1's work: the first node of every run that reaches into the range. */
static GArray *
runs_in_range (const BpwSearchRun *s)
{
  const BpwSearchSpace *space = s->space;
  GArray *runs = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < space->nodes->len;)
    {
      const BpwSearchNode *first = &g_array_index (space->nodes, BpwSearchNode, i);
      guint j = i + 1;
      guint64 count = first->count;

      for (; j < space->nodes->len && g_array_index (space->nodes, BpwSearchNode, j).run == i; j++)
        count += g_array_index (space->nodes, BpwSearchNode, j).count;
      if (in_range (s, first->first, count) > 0)
        g_array_append_val (runs, i);
      i = j;
    }
  return runs;
}

/* The groups of @runs, each once: their legality is decided before the runs are bound,
 * by one worker each, so the templates that takes are the same in every run. */
static GArray *
groups_of_runs (const BpwSearchRun *s, GArray *runs)
{
  const BpwSearchSpace *space = s->space;
  g_autofree gboolean *seen = g_new0 (gboolean, MAX (space->groups->len, 1));
  GArray *groups = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < runs->len; i++)
    {
      guint g = g_array_index (space->nodes, BpwSearchNode,
                               g_array_index (runs, guint, i)).group;

      if (!seen[g])
        {
          seen[g] = TRUE;
          g_array_append_val (groups, g);
        }
    }
  return groups;
}

static int
compare_bounds (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const double *sort_bounds = data;
  guint a = *(const guint *) pa, b = *(const guint *) pb;

  if (sort_bounds[a] != sort_bounds[b])
    return sort_bounds[a] < sort_bounds[b] ? -1 : 1;
  return (a > b) - (a < b);
}

/* Phase 2's work: the nodes of the range, with the bound each has before its template is
 * bound, most promising first so that the K-th best tightens early. */
static GArray *
order_nodes (BpwSearchRun *s)
{
  const BpwSearchSpace *space = s->space;
  GArray *order = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < space->nodes->len; i++)
    {
      const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, i);
      const BpwSearchGroup *g = &g_array_index (space->groups, BpwSearchGroup, n->group);
      gint64 v = 1;
      double flops;

      if (in_range (s, n->first, n->count) == 0)
        continue;
      g_array_append_val (order, i);
      s->node_bound[i] = 0;
      if (s->options->exhaustive)
        continue;
      if (s->run_state[n->run] == BPW_SEARCH_RUN_ILLEGAL)
        {
          s->node_bound[i] = INFINITY;
          continue;
        }
      if (s->run_state[n->run] != BPW_SEARCH_RUN_BOUND || s->matrix_rate <= 0 ||
          (!s->linear && n->run != i))
        continue;
      bpw_search_space_schedule (space, i, n->n_schedules - 1, &v);
      flops = s->run_flops[n->run] * (double) n->micro_batch;
      s->node_bound[i] = ((double) n->micro_batches * flops +
                          (double) (g->pp - 1) / (double) v *
                          s->run_flops_min[n->run] * (double) n->micro_batch) /
                         s->matrix_rate + s->run_optimizer[n->run];
    }
  if (!s->options->exhaustive)
    g_array_sort_with_data (order, compare_bounds, s->node_bound);
  return order;
}

BpwSearchReport *
bpw_search_run (const BpwSearchSpace   *space,
                const BpwSearchOptions *options,
                BpwSearchProgressFunc   progress,
                gpointer                user_data,
                GCancellable           *cancellable,
                GError                **error)
{
  g_autoptr(BpwSearchReport) report = NULL;
  g_autofree BpwSearchWorker *workers = NULL;
  g_autoptr(GArray) hits = NULL;
  g_autoptr(GArray) front = NULL;
  g_autoptr(GArray) runs = NULL;
  g_autoptr(GArray) order = NULL;
  gint64 t0 = g_get_monotonic_time ();
  guint n_nodes = space->nodes->len;
  double inf = INFINITY;
  guint n_threads;
  BpwSearchRun s = { 0 };

  if (options->top_k < 1 || options->shard_count < 1 ||
      options->shard_index >= options->shard_count)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("search: top must be at least 1 and the shard I/N must have 0 <= I < N"));
      return NULL;
    }
  n_threads = options->threads > 0 ? options->threads : g_get_num_processors ();
  n_threads = MIN (n_threads, 1024);

  s.space = space;
  s.options = options;
  s.cancellable = cancellable;
  bpw_search_shard_range (space->size, options->shard_index, options->shard_count, &s.begin,
                          &s.end);
  _bpw_search_capacities (space->blueprint, &s.capacity, &s.host_capacity, &s.has_host);
  s.dp_dominance = TRUE;
  for (guint t = 0; t < space->blueprint->n_tiers; t++)
    if (space->blueprint->tiers[t].processor_usage.set &&
        !(space->blueprint->tiers[t].processor_usage.value <= 1.0))
      s.dp_dominance = FALSE;
  s.matrix_rate = _bpw_search_matrix_rate (space->blueprint,
                                           bpw_precision_from_dtype (space->scenario.dtype));
  /* Capacity-factor MoE rounds expert slots up: not proportional to the micro-batch. */
  s.linear = space->spec.experts == 0;
  s.group_state = g_new0 (gint, MAX (space->groups->len, 1));
  s.node_bound = g_new0 (double, MAX (n_nodes, 1));
  s.run_flops = g_new0 (double, MAX (n_nodes, 1));
  s.run_optimizer = g_new0 (double, MAX (n_nodes, 1));
  s.run_flops_min = g_new0 (double, MAX (n_nodes, 1));
  s.run_state = g_new0 (gint, MAX (n_nodes, 1));
  g_mutex_init (&s.lock);
  g_cond_init (&s.done);
  g_cond_init (&s.advanced);

  workers = g_new0 (BpwSearchWorker, n_threads);
  for (guint i = 0; i < n_threads; i++)
    {
      BpwSearchWorker *w = &workers[i];

      w->run = &s;
      w->est = bpw_estimator_new (&space->spec, &space->scenario, space->blueprint, error);
      w->hits = g_array_new (FALSE, FALSE, sizeof (BpwSearchHit));
      w->front = g_array_new (FALSE, FALSE, sizeof (BpwSearchHit));
      w->values = g_array_new (FALSE, FALSE, sizeof (double));
      w->interleave = g_array_new (FALSE, FALSE, sizeof (gint64));
      w->node_hits = g_array_new (FALSE, FALSE, sizeof (BpwSearchHit));
      if (w->est == NULL)
        {
          n_threads = i + 1;
          goto out;
        }
    }

  /* Phase 1: one template per run gives the FLOPs every node of the run scales from. */
  s.phase = 1;
  if (!options->exhaustive)
    {
      g_autoptr(GArray) groups = NULL;

      runs = runs_in_range (&s);
      groups = groups_of_runs (&s, runs);
      run_phase (&s, workers, n_threads, _bpw_search_worker_group,
                 (const guint *) groups->data, groups->len, t0, progress, user_data);
      run_phase (&s, workers, n_threads, _bpw_search_worker_bound_run,
                 (const guint *) runs->data, runs->len, t0, progress, user_data);
    }
  /* Phase 2: the nodes, best bound first. */
  order = order_nodes (&s);
  s.phase = 2;
  /* Without bounds (exhaustive, Pareto) nothing is pruned against a threshold. */
  s.blocks = !options->exhaustive && !options->pareto;
  s.n_blocks = (order->len + BPW_SEARCH_BLOCK_NODES - 1) / BPW_SEARCH_BLOCK_NODES;
  s.block_left = g_new0 (guint, MAX (s.n_blocks, 1));
  s.block_threshold = g_new0 (double, MAX (s.n_blocks, 1));
  s.block_hits = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  s.top = g_array_new (FALSE, FALSE, sizeof (BpwSearchHit));
  for (guint b = 0; b < s.n_blocks; b++)
    {
      s.block_left[b] = MIN (BPW_SEARCH_BLOCK_NODES, order->len - b * BPW_SEARCH_BLOCK_NODES);
      s.block_threshold[b] = inf;
      g_ptr_array_add (s.block_hits, g_array_new (FALSE, FALSE, sizeof (BpwSearchHit)));
    }
  run_phase (&s, workers, n_threads, _bpw_search_worker_node, (const guint *) order->data,
             order->len, t0, progress, user_data);

  report = g_new0 (BpwSearchReport, 1);
  report->space = space->size;
  report->begin = s.begin;
  report->end = s.end;
  report->top_k = options->top_k;
  report->threads = n_threads;
  report->shard_index = options->shard_index;
  report->shard_count = options->shard_count;
  report->fingerprint = g_strdup (space->fingerprint);
  report->cancelled = g_cancellable_is_cancelled (cancellable);
  hits = g_array_new (FALSE, FALSE, sizeof (BpwSearchHit));
  front = g_array_new (FALSE, FALSE, sizeof (BpwSearchHit));
  for (guint i = 0; i < n_threads; i++)
    {
      BpwSearchWorker *w = &workers[i];

      g_array_append_vals (hits, w->hits->data, w->hits->len);
      for (guint j = 0; j < w->front->len; j++)
        _bpw_search_front_insert (front, &g_array_index (w->front, BpwSearchHit, j));
      report->estimated += w->estimated;
      report->legal += w->legal;
      report->failed += w->failed;
      report->pruned_illegal += w->pruned_illegal;
      report->pruned_bound += w->pruned_bound;
      report->pruned_dominated += w->pruned_dominated;
      report->templates += w->templates;
    }
  report->evaluated = report->estimated + report->failed + report->pruned_illegal +
                      report->pruned_bound + report->pruned_dominated;
  /* A class lies in one node, so each result in one worker's list: folding changes
   * nothing here, but it is the rule every merge (shards, ranks) applies. */
  g_array_sort (hits, _bpw_search_key_compare);
  _bpw_search_fold_sorted (hits);
  if (hits->len > options->top_k)
    g_array_set_size (hits, options->top_k);
  g_array_sort (front, _bpw_search_key_compare);
  report->best = results_from_hits (space, hits, options->reevaluate, options->simulate,
                                    n_threads);
  report->pareto = results_from_hits (space, front, FALSE, FALSE, n_threads);
  report->pareto_kept = options->pareto;
  report->seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  if (progress != NULL)
    report_progress (&s, (double) t0, progress, user_data);

out:
  for (guint i = 0; i < n_threads; i++)
    {
      g_clear_pointer (&workers[i].est, bpw_estimator_free);
      g_clear_pointer (&workers[i].hits, g_array_unref);
      g_clear_pointer (&workers[i].front, g_array_unref);
      g_clear_pointer (&workers[i].values, g_array_unref);
      g_clear_pointer (&workers[i].interleave, g_array_unref);
      g_clear_pointer (&workers[i].node_hits, g_array_unref);
    }
  g_free (s.group_state);
  g_free (s.node_bound);
  g_free (s.run_flops);
  g_free (s.run_optimizer);
  g_free (s.run_flops_min);
  g_free (s.run_state);
  g_free (s.block_left);
  g_free (s.block_threshold);
  g_clear_pointer (&s.block_hits, g_ptr_array_unref);
  g_clear_pointer (&s.top, g_array_unref);
  g_mutex_clear (&s.lock);
  g_cond_clear (&s.done);
  g_cond_clear (&s.advanced);
  return g_steal_pointer (&report);
}

void
bpw_search_report_free (BpwSearchReport *report)
{
  if (report == NULL)
    return;
  g_clear_pointer (&report->best, g_array_unref);
  g_clear_pointer (&report->pareto, g_array_unref);
  g_free (report->fingerprint);
  g_free (report);
}
