/* test-search-dedupe.c — plans that differ only in collective algorithms are one result
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The expected lists are computed here without the search: every plan of the space is
 * estimated, plans are grouped by their mapping with the algorithms reset (the class) and
 * their exact step time, energy and peak memory, and the groups are ranked by step time,
 * then the class's first index, energy and memory. The search (pruned, exhaustive,
 * threaded, sharded and merged) must list the same groups with the same member counts.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-estimator.h"
#include "bpw-search.h"
#include "bpw-test-search.h"

typedef struct
{
  guint64  klass;     /* lowest index of the class: its automatic-algorithm plan */
  double   time, energy, peak;
  guint64  first;     /* lowest index of the group */
  guint64  count;
} Group;

typedef struct
{
  GArray      *groups;    /* Group, ranked */
  GPtrArray   *classes;   /* class JSON per index */
} Truth;

static void
truth_clear (Truth *t)
{
  g_clear_pointer (&t->groups, g_array_unref);
  g_clear_pointer (&t->classes, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Truth, truth_clear)

static double
finite_or_inf (double v)
{
  return isnan (v) ? INFINITY : v;
}

static int
group_compare (gconstpointer pa, gconstpointer pb)
{
  const Group *a = pa, *b = pb;

  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  if (a->klass != b->klass)
    return a->klass < b->klass ? -1 : 1;
  if (a->energy != b->energy)
    return a->energy < b->energy ? -1 : 1;
  if (a->peak != b->peak)
    return a->peak < b->peak ? -1 : 1;
  return 0;
}

/* The mapping of plan @i with every collective algorithm automatic, as JSON. */
static char *
class_json (const BpwSearchSpace *space, guint64 i)
{
  BpwMapping m;
  char *json;

  bpw_mapping_init_defaults (&m);
  bpw_search_space_mapping (space, i, &m);
  for (guint t = 0; t < BPW_MAPPING_MAX_TIERS; t++)
    m.algorithm[t] = 0;
  g_clear_pointer (&m.name, g_free);
  json = bpw_mapping_to_json (&m);
  bpw_mapping_clear (&m);
  return json;
}

/* Every plan estimated and grouped (see above). */
static void
enumerate (const BpwSearchSpace *space, Truth *t)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwEstimator) est = bpw_estimator_new (&space->spec, &space->scenario,
                                                   space->blueprint, &error);
  g_autoptr(GHashTable) first_of_class = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GHashTableIter iter;
  gpointer value;

  g_assert_no_error (error);
  t->classes = g_ptr_array_new_with_free_func (g_free);
  for (guint64 i = 0; i < space->size; i++)
    {
      char *json = class_json (space, i);

      g_ptr_array_add (t->classes, json);
      /* Indices ascend: the first seen is the lowest. */
      if (!g_hash_table_contains (first_of_class, json))
        g_hash_table_insert (first_of_class, json, GSIZE_TO_POINTER ((gsize) i));
    }
  for (guint64 i = 0; i < space->size; i++)
    {
      BpwMapping m;
      BpwEvaluation e;
      gboolean ok;
      char *key;
      Group *g;

      bpw_mapping_init_defaults (&m);
      bpw_search_space_mapping (space, i, &m);
      ok = bpw_estimator_evaluate (est, &m, &e, NULL, NULL);
      bpw_mapping_clear (&m);
      if (!ok || !e.legal || isnan (e.step_time_s))
        continue;
      key = g_strdup_printf ("%s|%a|%a|%a", (const char *) t->classes->pdata[i], e.step_time_s,
                             finite_or_inf (e.energy_j), finite_or_inf (e.peak_bytes));
      g = g_hash_table_lookup (groups, key);
      if (g != NULL)
        {
          g->count++;
          g_free (key);
          continue;
        }
      g = g_new0 (Group, 1);
      *g = (Group) {
        .klass = GPOINTER_TO_SIZE (g_hash_table_lookup (first_of_class, t->classes->pdata[i])),
        .time = e.step_time_s, .energy = finite_or_inf (e.energy_j),
        .peak = finite_or_inf (e.peak_bytes), .first = i, .count = 1,
      };
      g_hash_table_insert (groups, key, g);
    }
  t->groups = g_array_new (FALSE, FALSE, sizeof (Group));
  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_append_vals (t->groups, value, 1);
  g_array_sort (t->groups, group_compare);
}

static void
assert_result_is_group (const BpwSearchResult *r, const Group *g)
{
  g_assert_cmpuint (r->index, ==, g->first);
  g_assert_cmpuint (r->algorithm_class, ==, g->klass);
  g_assert_cmpuint (r->equivalent_variants, ==, g->count);
  g_assert_cmpfloat (r->estimate.step_time_s, ==, g->time);
  g_assert_cmpfloat (finite_or_inf (r->estimate.energy_j), ==, g->energy);
  g_assert_cmpfloat (finite_or_inf (r->estimate.peak_bytes), ==, g->peak);
}

/* The search's best are the first groups of the enumeration, no two of them the same plan
 * but for algorithms with the same estimate. */
static void
assert_best_is_truth (const BpwSearchReport *r, const Truth *t, guint top)
{
  g_assert_cmpuint (r->best->len, ==, MIN (top, t->groups->len));
  for (guint i = 0; i < r->best->len; i++)
    {
      const BpwSearchResult *a = &g_array_index (r->best, BpwSearchResult, i);

      assert_result_is_group (a, &g_array_index (t->groups, Group, i));
      for (guint j = 0; j < i; j++)
        {
          const BpwSearchResult *b = &g_array_index (r->best, BpwSearchResult, j);

          g_assert_false (g_str_equal (t->classes->pdata[a->index], t->classes->pdata[b->index]) &&
                          a->estimate.step_time_s == b->estimate.step_time_s &&
                          finite_or_inf (a->estimate.energy_j) ==
                          finite_or_inf (b->estimate.energy_j) &&
                          a->estimate.peak_bytes == b->estimate.peak_bytes);
        }
    }
}

/* The front of (step time, energy) of the groups, by brute force: a group is on it when
 * no other is at least as good in both and better in one, or equal in both and earlier. */
static void
assert_front_is_truth (const BpwSearchReport *r, const Truth *t)
{
  guint n = 0;

  for (guint i = 0; i < t->groups->len; i++)
    {
      const Group *g = &g_array_index (t->groups, Group, i);
      gboolean dominated = FALSE;

      for (guint j = 0; j < t->groups->len && !dominated; j++)
        {
          const Group *h = &g_array_index (t->groups, Group, j);

          dominated = j != i && h->time <= g->time && h->energy <= g->energy &&
                      (h->time < g->time || h->energy < g->energy || j < i);
        }
      if (dominated)
        continue;
      g_assert_cmpuint (n, <, r->pareto->len);
      assert_result_is_group (&g_array_index (r->pareto, BpwSearchResult, n), g);
      n++;
    }
  g_assert_cmpuint (n, ==, r->pareto->len);
}

/* A small problem where ring TP overlap and DP overlap hide the collectives of many plans,
 * whose algorithms then price alike; @tiny: 36 plans. */
static BpwSearchSpace *
hidden_space (BpwBlueprint *bp, gboolean tiny)
{
  BpwSearchLimits l;
  BpwModelSpec spec;
  BpwScenario s;
  BpwSearchSpace *space;

  small_spec (&spec);
  train_scenario (&s, 16, 512);
  modest_limits (&l);
  l.tp_overlap = BPW_TP_OVERLAP_RING;
  l.dp_overlap = 1;
  if (tiny)
    {
      /* 2 SP x 3 TP overlaps x 2 DP overlaps x 3 algorithms: shards split classes. */
      l.tp = 2;
      l.pp = 1;
      l.zero = 1;
      l.micro_batch = 1;
      l.recompute = BPW_RECOMPUTE_NONE;
      l.tp_overlap = -1;
      l.dp_overlap = -1;
      l.fusion_sets = 1u << BPW_SEARCH_FUSION_DEFAULT;
      l.offloads = 1u << BPW_SEARCH_OFFLOAD_NONE;
    }
  space = new_space (&spec, &s, bp, 8, &l);
  bpw_model_spec_clear (&spec);
  return space;
}

static void
test_hidden (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = hidden_space (bp, FALSE);
  g_autoptr(BpwSearchReport) pruned = run_search (space, 10, 2, FALSE, FALSE, 0, 1);
  g_autoptr(BpwSearchReport) brute = run_search (space, 10, 2, TRUE, FALSE, 0, 1);
  g_autoptr(BpwSearchReport) one = run_search (space, 10, 1, FALSE, FALSE, 0, 1);
  g_auto(Truth) t = { 0 };
  guint64 variants = 0;

  enumerate (space, &t);
  assert_best_is_truth (pruned, &t, 10);
  assert_best_is_truth (brute, &t, 10);
  assert_best_is_truth (one, &t, 10);
  /* The problem does what it is for: results stand for several plans each. */
  for (guint i = 0; i < pruned->best->len; i++)
    variants += g_array_index (pruned->best, BpwSearchResult, i).equivalent_variants;
  g_assert_cmpuint (g_array_index (pruned->best, BpwSearchResult, 0).equivalent_variants, >, 1);
  g_assert_cmpuint (variants, >, pruned->best->len);
  g_assert_cmpuint (pruned->estimated, <, brute->estimated);
}

/* Without overlap the collectives are exposed and the algorithms change the time: the
 * plans of one class with different estimates are all kept. */
static void
test_exposed (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) pruned = NULL;
  g_autoptr(BpwSearchReport) brute = NULL;
  g_auto(Truth) t = { 0 };
  gboolean split = FALSE;
  BpwSearchLimits l;
  BpwModelSpec spec;
  BpwScenario s;

  small_spec (&spec);
  train_scenario (&s, 16, 512);
  modest_limits (&l);
  l.tp_overlap = BPW_TP_OVERLAP_NONE;
  l.dp_overlap = 0;
  l.pp = 1;
  space = new_space (&spec, &s, bp, 8, &l);
  pruned = run_search (space, 20, 2, FALSE, FALSE, 0, 1);
  brute = run_search (space, 20, 2, TRUE, FALSE, 0, 1);
  enumerate (space, &t);
  assert_best_is_truth (pruned, &t, 20);
  assert_best_is_truth (brute, &t, 20);
  /* Two results of one class with different step times. */
  for (guint i = 0; i < pruned->best->len; i++)
    for (guint j = 0; j < i; j++)
      {
        const BpwSearchResult *a = &g_array_index (pruned->best, BpwSearchResult, i);
        const BpwSearchResult *b = &g_array_index (pruned->best, BpwSearchResult, j);

        split |= g_str_equal (t.classes->pdata[a->index], t.classes->pdata[b->index]) &&
                 a->estimate.step_time_s != b->estimate.step_time_s;
      }
  g_assert_true (split);
  bpw_model_spec_clear (&spec);
}

/* The best entries of a JSON document. */
static JsonArray *
best_of (JsonNode *doc, const char *key)
{
  return json_object_get_array_member (json_node_get_object (doc), key);
}

static void
assert_same_entries (JsonArray *a, JsonArray *b)
{
  g_assert_cmpuint (json_array_get_length (a), ==, json_array_get_length (b));
  for (guint i = 0; i < json_array_get_length (a); i++)
    g_assert_true (json_node_equal (json_array_get_element (a, i), json_array_get_element (b, i)));
}

/* Shard boundaries that cut classes: the merge folds the parts of each result back. */
static void
check_shards (const BpwSearchSpace *space, guint top, gboolean pareto, gboolean *folded)
{
  g_autoptr(BpwSearchReport) whole = run_search (space, top, 2, FALSE, pareto, 0, 1);
  g_autofree char *whole_json = bpw_search_report_to_json (whole, space);
  g_autoptr(JsonNode) w = json_from_string (whole_json, NULL);

  for (guint64 n = 2; n <= 7; n++)
    {
      g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autofree char *merged = NULL;
      g_autoptr(JsonNode) m = NULL;

      for (guint64 i = 0; i < n; i++)
        {
          g_autoptr(BpwSearchReport) r = run_search (space, top, 1, FALSE, pareto, i, n);

          /* A part of a result: fewer members than the whole's result of its key. */
          for (guint k = 0; k < r->best->len; k++)
            for (guint j = 0; j < whole->best->len; j++)
              {
                const BpwSearchResult *p = &g_array_index (r->best, BpwSearchResult, k);
                const BpwSearchResult *q = &g_array_index (whole->best, BpwSearchResult, j);

                *folded |= p->algorithm_class == q->algorithm_class &&
                           p->estimate.step_time_s == q->estimate.step_time_s &&
                           p->estimate.peak_bytes == q->estimate.peak_bytes &&
                           p->equivalent_variants < q->equivalent_variants;
              }
          g_ptr_array_add (texts, bpw_search_report_to_json (r, space));
          g_ptr_array_add (names, g_strdup_printf ("shard %" G_GUINT64_FORMAT, i));
        }
      merged = bpw_search_merge_json ((const char * const *) texts->pdata,
                                      (const char * const *) names->pdata, n, &error);
      g_assert_no_error (error);
      m = json_from_string (merged, NULL);
      assert_same_entries (best_of (m, "best"), best_of (w, "best"));
      if (pareto)
        assert_same_entries (best_of (m, "pareto"), best_of (w, "pareto"));
    }
}

static void
test_shards (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = hidden_space (bp, TRUE);
  g_autoptr(BpwSearchReport) r = run_search (space, 4, 1, FALSE, FALSE, 0, 1);
  g_auto(Truth) t = { 0 };
  gboolean folded = FALSE;

  enumerate (space, &t);
  assert_best_is_truth (r, &t, 4);
  check_shards (space, 4, FALSE, &folded);
  check_shards (space, 40, FALSE, &folded);
  /* Some boundary did cut a listed result's class, or the test proves nothing. */
  g_assert_true (folded);
}

/* The Pareto front holds one result per point, counted like the best. */
static void
test_pareto (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchSpace) tiny = NULL;
  g_autoptr(BpwSearchReport) pruned = NULL;
  g_autoptr(BpwSearchReport) brute = NULL;
  g_auto(Truth) t = { 0 };
  gboolean folded = FALSE;
  guint64 variants = 0;

  /* Idle power makes energy differ from step time x constant. */
  /* Energy from (TDP − idle) over the busy time: with the A100's energy per FLOP the
   * fastest plan of this small space is also the least energy, a front of one. */
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    bp->energy_per_flop[p].set = FALSE;
  bpw_blueprint_set_value (bp, &bp->idle_power, 90.0, BPW_PROVENANCE_ESTIMATE, "test");
  space = hidden_space (bp, FALSE);
  pruned = run_search (space, 10, 2, FALSE, TRUE, 0, 1);
  brute = run_search (space, 10, 2, TRUE, TRUE, 0, 1);
  enumerate (space, &t);
  assert_front_is_truth (pruned, &t);
  assert_front_is_truth (brute, &t);
  assert_best_is_truth (pruned, &t, 10);
  g_assert_cmpuint (pruned->pareto->len, >=, 2);
  for (guint i = 0; i < pruned->pareto->len; i++)
    variants += g_array_index (pruned->pareto, BpwSearchResult, i).equivalent_variants;
  g_assert_cmpuint (variants, >, pruned->pareto->len);

  tiny = hidden_space (bp, TRUE);
  check_shards (tiny, 10, TRUE, &folded);
  g_assert_true (folded);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/Search/dedupe-hidden-algorithms", test_hidden);
  g_test_add_func ("/bpw/core/Search/dedupe-exposed-algorithms-kept", test_exposed);
  g_test_add_func ("/bpw/core/Search/dedupe-shards-fold", test_shards);
  g_test_add_func ("/bpw/core/Search/dedupe-pareto", test_pareto);
  return g_test_run ();
}
