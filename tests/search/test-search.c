/* test-search.c — the mapping space, its sound bounds, and search against brute force
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-search.h"
#include "bpw-test-search.h"
#include "bpw-search-private.h"
#include "bpw-json-dump-private.h"

/* @text is the house writer's: parsed and written again, it reads the same, byte for byte
 * (json-glib's generator wrote "key" : value and 17-digit doubles). */
static void
assert_house_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (text, &error);
  g_autofree char *again = NULL;

  g_assert_no_error (error);
  again = _bpw_json_dump (node);
  g_assert_cmpstr (text, ==, again);
}

#define SLACK 1e-9

static BpwSearchReport *
run (const BpwSearchSpace *space, guint threads, gboolean exhaustive, guint64 shard,
     guint64 shards)
{
  return run_search (space, 10, threads, exhaustive, FALSE, shard, shards);
}

static void
assert_same_best (const BpwSearchReport *a, const BpwSearchReport *b)
{
  g_assert_cmpuint (a->best->len, ==, b->best->len);
  for (guint i = 0; i < a->best->len; i++)
    {
      const BpwSearchResult *x = &g_array_index (a->best, BpwSearchResult, i);
      const BpwSearchResult *y = &g_array_index (b->best, BpwSearchResult, i);

      g_assert_cmpuint (x->index, ==, y->index);
      g_assert_cmpfloat (x->estimate.step_time_s, ==, y->estimate.step_time_s);
    }
}

/* ---- the space ---- */

static guint64
count_divisors_up_to (gint64 n, gint64 max)
{
  guint64 c = 0;

  for (gint64 d = 1; d <= n; d++)
    c += n % d == 0 && d <= max;
  return c;
}

/* The documented enumeration, counted by hand for the small model on 8 A100s (one
 * NVLink tier holds all 8: it carries every group and offers ring and tree). */
static guint64
expected_size (const BpwModelSpec *spec, guint64 fusion_sets, guint64 offloads)
{
  guint64 expected = 0;

  for (gint64 tp = 1; tp <= 8; tp *= 2)
    for (gint64 pp = 1; pp <= 8 / tp && pp <= spec->layers; pp *= 2)
      {
        gint64 dp = 8 / (tp * pp);
        guint64 per_mb = (dp > 1 ? 4 : 1) * offloads * (tp > 1 ? 2 : 1) * fusion_sets * 3 *
                         (tp > 1 ? 3 : 1) * (dp > 1 ? 2 : 1) * 3 /* auto, ring, tree */;

        for (gint64 mb = 1; mb <= 8 / dp; mb++)
          {
            gint64 m = 8 / dp / mb;
            guint64 sched = 1;

            if ((8 / dp) % mb != 0)
              continue;
            if (pp > 1)
              sched = 2 + (m % pp == 0
                           ? count_divisors_up_to (spec->layers / pp, spec->layers) - 1 : 0);
            expected += per_mb * sched;
          }
      }
  return expected;
}

static void
test_space_count (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchSpace) small = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  BpwSearchLimits l;
  BpwModelSpec spec;
  BpwScenario s;

  small_spec (&spec);
  train_scenario (&s, 8, 512);
  space = new_space (&spec, &s, bp, 8, NULL);
  g_assert_cmpuint (bpw_search_space_size (space), ==, expected_size (&spec, 4, 4));
  bpw_search_limits_init (&l);
  l.fusion_sets = 1u << BPW_SEARCH_FUSION_ALL;
  l.offloads = 1u << BPW_SEARCH_OFFLOAD_WEIGHTS;
  small = new_space (&spec, &s, bp, 8, &l);
  g_assert_cmpuint (bpw_search_space_size (small), ==, expected_size (&spec, 1, 1));

  /* Every index is a distinct, valid configuration. */
  for (guint64 i = 0; i < small->size; i++)
    {
      BpwMapping m;
      BpwScenario v = s;
      g_autofree char *key = NULL;
      g_autoptr(GError) error = NULL;

      bpw_mapping_init_defaults (&m);
      bpw_search_space_mapping (small, i, &m);
      key = g_strdup_printf ("%ld %ld %ld %ld %d %d %d %ld %ld %d %u %d %d %d %d %d %u %u",
                             (long) m.parallel.tp, (long) m.parallel.pp, (long) m.parallel.dp,
                             (long) m.parallel.ep, m.parallel.sp, m.parallel.zero,
                             m.parallel.schedule, (long) m.parallel.interleave,
                             (long) m.micro_batch, m.recompute, m.fusion,
                             m.placement[BPW_TENSOR_WEIGHT],
                             m.placement[BPW_TENSOR_OPTIMIZER_STATE],
                             m.placement[BPW_TENSOR_GRADIENT], m.tp_overlap, m.dp_overlap,
                             m.algorithm[0], m.algorithm[1]);
      g_assert_true (g_hash_table_add (seen, g_steal_pointer (&key)));
      g_assert_cmpuint (m.fusion, ==, bpw_search_fusion_set_flags (BPW_SEARCH_FUSION_ALL));
      g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, BPW_PLACEMENT_HOST);
      bpw_mapping_apply_to_scenario (&m, &v);
      bpw_scenario_validate (&v, &m.parallel, &spec, &error);
      g_assert_no_error (error);
      g_assert_cmpint (bpw_parallel_devices (&m.parallel), ==, 8);
      bpw_mapping_clear (&m);
    }
  bpw_model_spec_clear (&spec);
}

/* The micro-batch cap keeps exactly the nodes of the uncapped space whose micro-batch is
 * at most the cap or the whole local batch, each with the same plans; a fixed micro-batch
 * is not capped. */
static void
test_max_micro_batch (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) full = NULL;
  g_autoptr(BpwSearchSpace) capped = NULL;
  g_autoptr(BpwSearchSpace) fixed = NULL;
  BpwSearchLimits l;
  BpwModelSpec spec;
  BpwScenario s;
  guint64 plans = 0;
  guint nodes = 0, k = 0;

  small_spec (&spec);
  train_scenario (&s, 64, 512);
  modest_limits (&l);
  full = new_space (&spec, &s, bp, 8, &l);
  l.max_micro_batch = 4;
  capped = new_space (&spec, &s, bp, 8, &l);
  for (guint i = 0; i < full->nodes->len; i++)
    {
      const BpwSearchNode *n = &g_array_index (full->nodes, BpwSearchNode, i);
      const BpwSearchNode *c;

      gint64 local = s.global_batch / g_array_index (full->groups, BpwSearchGroup,
                                                     n->group).dp;

      if (n->micro_batch > 4 && n->micro_batch != local)
        continue;
      c = &g_array_index (capped->nodes, BpwSearchNode, k++);
      g_assert_cmpint (c->micro_batch, ==, n->micro_batch);
      g_assert_cmpint (c->recompute, ==, n->recompute);
      g_assert_cmpuint (c->count, ==, n->count);
      plans += n->count;
      nodes++;
    }
  g_test_message ("%u of %u nodes, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " plans",
                  nodes, full->nodes->len, plans, bpw_search_space_size (full));
  g_assert_cmpuint (capped->nodes->len, ==, nodes);
  g_assert_cmpuint (nodes, <, full->nodes->len);
  g_assert_cmpuint (bpw_search_space_size (capped), ==, plans);
  g_assert_cmpstr (capped->fingerprint, !=, full->fingerprint);

  l.micro_batch = 8;
  fixed = new_space (&spec, &s, bp, 8, &l);
  g_assert_cmpuint (fixed->nodes->len, >, 0);
  for (guint i = 0; i < fixed->nodes->len; i++)
    g_assert_cmpint (g_array_index (fixed->nodes, BpwSearchNode, i).micro_batch, ==, 8);
  bpw_model_spec_clear (&spec);
}

static void
test_shard_ranges (void)
{
  guint64 sizes[] = { 0, 1, 7, 100, 19873728, G_GUINT64_CONSTANT (1) << 62 };

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (guint64 n = 1; n <= 13; n++)
      {
        guint64 prev = 0, b, e;

        for (guint64 i = 0; i < n; i++)
          {
            bpw_search_shard_range (sizes[k], i, n, &b, &e);
            g_assert_cmpuint (b, ==, prev);
            g_assert_cmpuint (e, >=, b);
            g_assert_cmpuint (e - b, <=, sizes[k] / n + 1);
            prev = e;
          }
        g_assert_cmpuint (prev, ==, sizes[k]);
      }
}

/* ---- search against brute force ---- */

static void
check_against_brute_force (const BpwModelSpec *spec, const BpwScenario *s, gint64 devices,
                           const BpwSearchLimits *limits)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = new_space (spec, s, bp, devices, limits);
  g_autoptr(BpwSearchReport) brute = run (space, 2, TRUE, 0, 1);
  g_autoptr(BpwSearchReport) pruned = run (space, 2, FALSE, 0, 1);

  g_assert_cmpuint (brute->estimated, ==, space->size);
  g_assert_cmpuint (brute->evaluated, ==, space->size);
  g_assert_cmpuint (pruned->evaluated, ==, space->size);
  g_assert_cmpuint (pruned->estimated, <, brute->estimated);
  g_assert_cmpuint (brute->best->len, >, 0);
  assert_same_best (brute, pruned);
}

static void
test_brute_force (void)
{
  BpwModelSpec spec;
  BpwScenario s;
  BpwSearchLimits l;
  g_autoptr(GError) error = NULL;

  small_spec (&spec);
  train_scenario (&s, 16, 512);
  modest_limits (&l);
  check_against_brute_force (&spec, &s, 8, &l);

  s.phase = BPW_WORKLOAD_PREFILL;
  check_against_brute_force (&spec, &s, 8, NULL);
  bpw_model_spec_clear (&spec);

  /* Mixture of experts: EP, all-to-all (explicit algorithms may beat auto there). */
  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("mixtral-8x7b", &spec, &error));
  g_assert_no_error (error);
  train_scenario (&s, 8, 256);
  bpw_search_limits_init (&l);
  l.fusion_sets = 1u << BPW_SEARCH_FUSION_DEFAULT;
  l.offloads = 1u << BPW_SEARCH_OFFLOAD_NONE | 1u << BPW_SEARCH_OFFLOAD_OPTIMIZER;
  l.recompute = BPW_RECOMPUTE_FULL;
  check_against_brute_force (&spec, &s, 8, &l);
  bpw_model_spec_clear (&spec);
}

/* The Pareto front of step time and energy: the same with and without the proofs of
 * illegality that still prune, and no member dominates another. */
static void
test_pareto (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) brute = NULL;
  g_autoptr(BpwSearchReport) pruned = NULL;
  g_autoptr(GError) error = NULL;
  BpwSearchOptions o;
  BpwSearchLimits l;
  BpwModelSpec spec;
  BpwScenario s;

  /* Idle power makes energy differ from step time × constant. */
  /* Energy from (TDP − idle) over the busy time: with the A100's energy per FLOP the
   * fastest plan of this small space is also the least energy, a front of one. */
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    bp->energy_per_flop[p].set = FALSE;
  bpw_blueprint_set_value (bp, &bp->idle_power, 90.0, BPW_PROVENANCE_ESTIMATE, "test");
  small_spec (&spec);
  train_scenario (&s, 16, 512);
  bpw_search_limits_init (&l);
  l.fusion_sets = 1u << BPW_SEARCH_FUSION_NONE | 1u << BPW_SEARCH_FUSION_ALL;
  space = new_space (&spec, &s, bp, 8, &l);
  bpw_search_options_init (&o);
  o.threads = 2;
  o.pareto = TRUE;
  o.reevaluate = FALSE;
  o.exhaustive = TRUE;
  brute = bpw_search_run (space, &o, NULL, NULL, NULL, &error);
  o.exhaustive = FALSE;
  pruned = bpw_search_run (space, &o, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (brute->pareto->len, >=, 2);
  g_assert_cmpuint (brute->pareto->len, ==, pruned->pareto->len);
  for (guint i = 0; i < brute->pareto->len; i++)
    {
      const BpwSearchResult *a = &g_array_index (brute->pareto, BpwSearchResult, i);
      const BpwSearchResult *b = &g_array_index (pruned->pareto, BpwSearchResult, i);

      g_assert_cmpuint (a->index, ==, b->index);
      g_assert_true (a->estimate.legal);
      /* Sorted by step time, so energy must fall along the front. */
      if (i > 0)
        {
          const BpwSearchResult *prev = &g_array_index (brute->pareto, BpwSearchResult, i - 1);

          g_assert_cmpfloat (a->estimate.step_time_s, >=, prev->estimate.step_time_s);
          g_assert_cmpfloat (a->estimate.energy_j, <, prev->estimate.energy_j);
        }
    }
  assert_same_best (brute, pruned);
  bpw_model_spec_clear (&spec);
}

/* ---- determinism: threads and shards ---- */

static void
test_threads (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) one = NULL;
  g_autoptr(BpwSearchReport) four = NULL;
  BpwSearchLimits l;
  BpwModelSpec spec;
  BpwScenario s;

  small_spec (&spec);
  train_scenario (&s, 16, 512);
  modest_limits (&l);
  space = new_space (&spec, &s, bp, 8, &l);
  one = run (space, 1, FALSE, 0, 1);
  four = run (space, 4, FALSE, 0, 1);
  g_assert_cmpuint (one->evaluated, ==, space->size);
  g_assert_cmpuint (four->evaluated, ==, space->size);
  g_assert_cmpuint (four->threads, ==, 4);
  assert_same_best (one, four);
  bpw_model_spec_clear (&spec);
}

static void
assert_same_counts (const BpwSearchReport *a, const BpwSearchReport *b)
{
  g_assert_cmpuint (a->estimated, ==, b->estimated);
  g_assert_cmpuint (a->legal, ==, b->legal);
  g_assert_cmpuint (a->failed, ==, b->failed);
  g_assert_cmpuint (a->pruned_illegal, ==, b->pruned_illegal);
  g_assert_cmpuint (a->pruned_bound, ==, b->pruned_bound);
  g_assert_cmpuint (a->pruned_dominated, ==, b->pruned_dominated);
  g_assert_cmpuint (a->templates, ==, b->templates);
}

/* The counters, not only the best list, are the same for any thread count and run: a
 * node is pruned against the threshold its block was given, whoever runs it. */
static void
test_threads_counts (void)
{
  static const guint threads[] = { 2, 4, 2, 4, 3 };
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) one = NULL;
  BpwModelSpec spec;
  BpwScenario s;

  small_spec (&spec);
  train_scenario (&s, 64, 512);
  space = new_space (&spec, &s, bp, 16, NULL);
  one = run (space, 1, FALSE, 0, 1);
  g_test_message ("%u nodes: %" G_GUINT64_FORMAT " estimated, %" G_GUINT64_FORMAT
                  " by the bound, %" G_GUINT64_FORMAT " dominated, %" G_GUINT64_FORMAT
                  " templates", space->nodes->len, one->estimated, one->pruned_bound,
                  one->pruned_dominated, one->templates);
  /* Enough blocks of nodes, and enough pruning, that a racy threshold would show. */
  g_assert_cmpuint (space->nodes->len, >, 8 * 16);
  g_assert_cmpuint (one->pruned_bound, >, 0);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autoptr(BpwSearchReport) many = run (space, threads[i], FALSE, 0, 1);

      g_assert_cmpuint (many->evaluated, ==, space->size);
      assert_same_best (one, many);
      assert_same_counts (one, many);
    }
  bpw_model_spec_clear (&spec);
}

static GPtrArray *
best_of_json (const char *text)
{
  g_autoptr(JsonNode) node = json_from_string (text, NULL);
  JsonArray *best = json_object_get_array_member (json_node_get_object (node), "best");
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < json_array_get_length (best); i++)
    {
      JsonObject *o = json_array_get_object_element (best, i);

      g_ptr_array_add (out, g_strdup_printf ("%" G_GINT64_FORMAT " %.17g",
                                             json_object_get_int_member (o, "index"),
                                             json_object_get_double_member (
                                               o, "estimated_step_time_s")));
    }
  return out;
}

static void
test_shards_merge (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) whole = NULL;
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GPtrArray) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *whole_json = NULL;
  g_autofree char *merged = NULL;
  const char *names[] = { "a", "b", "c" };
  guint64 evaluated = 0;
  BpwSearchLimits l;
  BpwModelSpec spec;
  BpwScenario s;

  small_spec (&spec);
  train_scenario (&s, 16, 512);
  modest_limits (&l);
  space = new_space (&spec, &s, bp, 8, &l);
  whole = run (space, 2, FALSE, 0, 1);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(BpwSearchReport) r = run (space, 2, FALSE, i, 3);

      evaluated += r->evaluated;
      g_assert_cmpuint (r->evaluated, ==, r->end - r->begin);
      /* Each shard's best are the whole's best within its range. */
      for (guint k = 0; k < r->best->len; k++)
        {
          guint64 idx = g_array_index (r->best, BpwSearchResult, k).index;

          g_assert_cmpuint (idx, >=, r->begin);
          g_assert_cmpuint (idx, <, r->end);
        }
      g_ptr_array_add (texts, bpw_search_report_to_json (r, space));
    }
  g_assert_cmpuint (evaluated, ==, whole->evaluated);
  g_assert_cmpuint (evaluated, ==, space->size);

  /* The merged document lists the whole's plans, in its order. */
  whole_json = bpw_search_report_to_json (whole, space);
  merged = bpw_search_merge_json ((const char * const *) texts->pdata, names, 3, &error);
  g_assert_no_error (error);
  want = best_of_json (whole_json);
  got = best_of_json (merged);
  g_assert_cmpuint (want->len, ==, got->len);
  for (guint k = 0; k < want->len; k++)
    g_assert_cmpstr (got->pdata[k], ==, want->pdata[k]);
  g_assert_nonnull (strstr (merged, "\"complete\": true"));
  assert_house_json (whole_json);
  assert_house_json (merged);

  /* Overlapping shards are refused. */
  {
    const char *twice[] = { texts->pdata[0], texts->pdata[0] };
    char *bad = bpw_search_merge_json (twice, names, 2, &error);

    g_assert_null (bad);
    g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  }
  bpw_model_spec_clear (&spec);
}

/* ---- anytime: cancellation ---- */

static void
cancel_on_progress (const BpwSearchProgress *p, gpointer data)
{
  g_cancellable_cancel (data);
}

static void
test_cancel (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) r = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  BpwSearchOptions o;
  BpwModelSpec spec;
  BpwScenario s;

  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("gpt3-175b", &spec, &error));
  train_scenario (&s, 1536, 2048);
  space = new_space (&spec, &s, bp, 1024, NULL);
  bpw_search_options_init (&o);
  o.threads = 2;
  o.progress_ms = 10;
  r = bpw_search_run (space, &o, cancel_on_progress, cancellable, cancellable, &error);
  g_assert_no_error (error);
  g_assert_true (r->cancelled);
  g_assert_cmpuint (r->evaluated, <, space->size);
  g_clear_pointer (&r, bpw_search_report_free);

  /* Cancelled before it starts: nothing is decided, and it says so. */
  r = bpw_search_run (space, &o, NULL, NULL, cancellable, &error);
  g_assert_true (r->cancelled);
  g_assert_cmpuint (r->evaluated, ==, 0);
  g_assert_cmpuint (r->best->len, ==, 0);
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/Search/space-count", test_space_count);
  g_test_add_func ("/bpw/core/Search/max-micro-batch", test_max_micro_batch);
  g_test_add_func ("/bpw/core/Search/shard-ranges", test_shard_ranges);
  g_test_add_func ("/bpw/core/Search/pruned-equals-brute-force", test_brute_force);
  g_test_add_func ("/bpw/core/Search/pareto-front", test_pareto);
  g_test_add_func ("/bpw/core/Search/threads-identical", test_threads);
  g_test_add_func ("/bpw/core/Search/threads-same-counts", test_threads_counts);
  g_test_add_func ("/bpw/core/Search/shards-merge", test_shards_merge);
  g_test_add_func ("/bpw/core/Search/cancel", test_cancel);
  return g_test_run ();
}
