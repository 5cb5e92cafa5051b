/* test-profile.c — the workbench's own trace as a measured profile: correlated 100 %, and
 * calibration recovers known per-class factors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The profile is bpw_trace_write() of a simulated GPT-2 step on two pipeline stages, its
 * slice durations multiplied by factors chosen per class here, from the trace's own args
 * and threads: matrix engine and compute bound ×1.25, vector engine and compute bound
 * ×0.8, memory bound ×1.1, everything else ×1. The vector engine's peak is lowered so that
 * element-wise work is compute bound, with margin, and all three classes occur. After
 * calibration, the plan bound afresh to the calibrated blueprint must take, per class,
 * the factor times its old time, which the test measures on the new plan's own trace.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "bpw-core.h"
#include "bpw-calibrate.h"
#include "bpw-correlate.h"
#include "bpw-profile.h"

#define MATRIX_FACTOR 1.25
#define VECTOR_FACTOR 0.80
#define MEMORY_FACTOR 1.10

typedef struct
{
  BpwModelSpec   spec;
  BpwScenario    scenario;
  BpwMapping     mapping;
  BpwBlueprint  *bp;
} Setup;

static void
setup_init (Setup *s)
{
  g_autoptr(GError) error = NULL;
  int vi;

  bpw_model_spec_init_defaults (&s->spec);
  g_assert_true (bpw_workload_load ("gpt2", &s->spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (&s->scenario);
  s->scenario.global_batch = 4;
  s->scenario.micro_batch = 2;
  s->scenario.seq = 512;
  s->scenario.dtype = BPW_DTYPE_BF16;
  bpw_mapping_init_defaults (&s->mapping);
  s->mapping.parallel.pp = 2;
  s->bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_assert_no_error (error);
  /* The hardware's factors are recovered: the stack's own terms are not scaled by them. */
  memset (&s->bp->stack, 0, sizeof s->bp->stack);
  /* A slow vector unit: softmax, GeLU, norms and dropout become compute bound, with enough
   * margin that ×0.8 leaves them so (an op whose compute time fell below its memory time
   * could not take 0.8 of its old time on any blueprint). */
  vi = bpw_blueprint_first_engine (s->bp, BPW_ENGINE_VECTOR);
  g_assert_cmpint (vi, >=, 0);
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    if (s->bp->engines[vi].peak[p].set)
      s->bp->engines[vi].peak[p].value = 0.3e12;
}

static void
setup_clear (Setup *s)
{
  bpw_model_spec_clear (&s->spec);
  bpw_scenario_clear (&s->scenario);
  bpw_mapping_clear (&s->mapping);
  g_clear_pointer (&s->bp, bpw_blueprint_free);
}

static BpwPlan *
bind (Setup *s, const BpwBlueprint *bp)
{
  g_autoptr(GError) error = NULL;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwPlan *plan;

  bpw_mapping_apply_to_scenario (&s->mapping, &s->scenario);
  graph = bpw_work_graph_new (&s->spec, &s->scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &s->mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &s->mapping, &error);
  g_assert_no_error (error);
  g_assert_true (plan->legal);
  return plan;
}

static BpwSimulation *
simulate (const BpwPlan *plan)
{
  g_autoptr(GError) error = NULL;
  BpwSimOptions options = { 0 };
  BpwSimulation *sim = bpw_simulation_new (plan, &options, &error);

  g_assert_no_error (error);
  return sim;
}

/* The trace as text. */
static char *
trace_of (const BpwSimulation *sim)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-profile-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "trace.json", NULL);
  BpwTraceOptions options = { .no_flows = TRUE };
  char *text = NULL;

  g_assert_no_error (error);
  g_assert_true (bpw_trace_write (sim, &options, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);
  return text;
}

/* A fresh tree each time: json_node_copy() shares the objects it copies. */
static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

typedef enum { CLASS_MATRIX, CLASS_VECTOR, CLASS_MEMORY, CLASS_OTHER, N_CLASSES } Class;

static const double factors[N_CLASSES] = { MATRIX_FACTOR, VECTOR_FACTOR, MEMORY_FACTOR, 1.0 };

/* The class of a slice by what the trace says: its thread (1 matrix, 2 vector, then links)
 * and its bottleneck argument. */
static Class
slice_class (JsonObject *ev)
{
  JsonObject *args = json_object_get_object_member (ev, "args");
  const char *bottleneck = json_object_get_string_member (args, "bottleneck");
  gint64 tid = json_object_get_int_member (ev, "tid");

  if (strcmp (bottleneck, "memory") == 0)
    return CLASS_MEMORY;
  if (strcmp (bottleneck, "compute") == 0)
    return tid == 1 ? CLASS_MATRIX : tid == 2 ? CLASS_VECTOR : CLASS_OTHER;
  return CLASS_OTHER;
}

static char *
slice_key (JsonObject *ev)
{
  JsonObject *args = json_object_get_object_member (ev, "args");

  return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%s",
                          json_object_get_int_member (ev, "pid"),
                          json_object_get_int_member (args, "lineage"),
                          json_object_get_int_member (args, "micro_batch"),
                          json_object_get_string_member (ev, "name"));
}

/* Scales every slice by its class's factor (and drops the lineage ids when asked), sums
 * the old durations per class, and returns the edited trace as text. */
static char *
scaled_trace (const char *trace, gboolean strip_lineage, double sums[N_CLASSES],
              guint counts[N_CLASSES])
{
  g_autoptr(JsonNode) root = parse (trace);
  JsonArray *events = json_object_get_array_member (json_node_get_object (root), "traceEvents");
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      Class c;

      if (strcmp (json_object_get_string_member (ev, "ph"), "X") != 0)
        continue;
      c = slice_class (ev);
      if (sums != NULL)
        {
          sums[c] += json_object_get_double_member (ev, "dur");
          counts[c]++;
        }
      json_object_set_double_member (ev, "dur", json_object_get_double_member (ev, "dur") *
                                                factors[c]);
      if (strip_lineage)
        json_object_remove_member (json_object_get_object_member (ev, "args"), "lineage");
    }
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

static BpwProfile *
load_profile (const char *text)
{
  g_autoptr(GError) error = NULL;
  BpwProfile *p = bpw_profile_load_data ("scaled-trace.json", text, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (p);
  return p;
}

static void
assert_all_matched (const BpwCorrelation *corr, guint expected_ops)
{
  const BpwCorrelationStats *s = &corr->stats;

  g_test_message ("modelled %u: matched %u, covered %u, missing %u; measured %u: matched %u, "
                  "extra %u", s->modelled_ops, s->matched_ops, s->covered_ops, s->missing_ops,
                  s->measured_items, s->matched_items, s->extra_items);
  g_assert_cmpuint (s->modelled_ops, ==, expected_ops);
  g_assert_cmpuint (s->matched_ops, ==, expected_ops);
  g_assert_cmpuint (s->missing_ops, ==, 0);
  g_assert_cmpuint (s->measured_items, ==, expected_ops);
  g_assert_cmpuint (s->matched_items, ==, expected_ops);
  g_assert_cmpuint (s->extra_items, ==, 0);
}

/* Every row pairs a modelled event with the slice the trace wrote for it. */
static void
assert_rows_are_identity (const BpwCorrelation *corr, const BpwProfile *with_lineage)
{
  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (corr, i);
      guint item = bpw_correlation_row_item (corr, r, 0);
      const BpwProfileItem *it = bpw_profile_item (with_lineage, item);

      g_assert_cmpuint (r->n_ops, ==, 1);
      g_assert_cmpuint (r->n_items, ==, 1);
      g_assert_cmpint (r->lineage, ==, it->lineage);
      g_assert_cmpint (bpw_simulation_event (corr->sim, bpw_correlation_row_op (
                         corr, r, 0)->event)->micro_batch, ==, it->micro_batch);
    }
}

static void
test_import_and_correlate (void)
{
  g_autoptr(GError) error = NULL;
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autofree char *trace = NULL;
  g_autofree char *text = NULL, *stripped = NULL;
  g_autoptr(BpwProfile) profile = NULL, anonymous = NULL;
  g_autoptr(BpwCorrelation) by_lineage = NULL, by_name = NULL;
  BpwCorrelateOptions names = { .device = -1, .rank = -1, .ignore_lineage = TRUE };

  setup_init (&s);
  plan = bind (&s, s.bp);
  sim = simulate (plan);
  trace = trace_of (sim);
  text = scaled_trace (trace, FALSE, NULL, NULL);
  stripped = scaled_trace (trace, TRUE, NULL, NULL);

  profile = load_profile (text);
  g_assert_cmpint (profile->format, ==, BPW_PROFILE_FORMAT_BPW);
  g_assert_cmpuint (profile->events->len, ==, sim->events->len);
  g_assert_cmpuint (profile->items->len, ==, sim->events->len);
  g_assert_cmpuint (profile->devices->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (profile->devices, 1), ==, "stage 1");

  by_lineage = bpw_correlate (sim, profile, NULL, &error);
  g_assert_no_error (error);
  assert_all_matched (by_lineage, sim->events->len);
  assert_rows_are_identity (by_lineage, profile);

  /* Without lineage ids: names and order alone. */
  anonymous = load_profile (stripped);
  g_assert_cmpint (anonymous->format, ==, BPW_PROFILE_FORMAT_BPW);
  by_name = bpw_correlate (sim, anonymous, &names, &error);
  g_assert_no_error (error);
  assert_all_matched (by_name, sim->events->len);
  assert_rows_are_identity (by_name, profile);
  setup_clear (&s);
}

/* Old durations per class, and the durations the same slices take in @root. */
static void
class_times (const char *old_trace, const char *new_trace, double before[N_CLASSES],
             double after[N_CLASSES])
{
  g_autoptr(GHashTable) classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(JsonNode) old_root = parse (old_trace);
  g_autoptr(JsonNode) new_root = parse (new_trace);
  JsonArray *old = json_object_get_array_member (json_node_get_object (old_root), "traceEvents");
  JsonArray *fresh = json_object_get_array_member (json_node_get_object (new_root),
                                                   "traceEvents");

  for (guint i = 0; i < json_array_get_length (old); i++)
    {
      JsonObject *ev = json_array_get_object_element (old, i);
      Class c;

      if (strcmp (json_object_get_string_member (ev, "ph"), "X") != 0)
        continue;
      c = slice_class (ev);
      before[c] += json_object_get_double_member (ev, "dur");
      g_assert_true (g_hash_table_insert (classes, slice_key (ev), GINT_TO_POINTER (c + 1)));
    }
  for (guint i = 0; i < json_array_get_length (fresh); i++)
    {
      JsonObject *ev = json_array_get_object_element (fresh, i);
      g_autofree char *key = NULL;
      gpointer c;

      if (strcmp (json_object_get_string_member (ev, "ph"), "X") != 0)
        continue;
      key = slice_key (ev);
      c = g_hash_table_lookup (classes, key);
      g_assert_nonnull (c);
      after[GPOINTER_TO_INT (c) - 1] += json_object_get_double_member (ev, "dur");
    }
}

static void
test_calibration_recovers_factors (void)
{
  g_autoptr(GError) error = NULL;
  Setup s;
  g_autoptr(BpwPlan) plan = NULL, recal_plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL, recal_sim = NULL;
  g_autofree char *trace = NULL, *recal_trace = NULL;
  g_autofree char *text = NULL;
  g_autoptr(BpwProfile) profile = NULL;
  g_autoptr(BpwCorrelation) corr = NULL;
  g_autoptr(BpwCalibration) cal = NULL, again = NULL;
  double sums[N_CLASSES] = { 0 }, before[N_CLASSES] = { 0 }, after[N_CLASSES] = { 0 };
  guint counts[N_CLASSES] = { 0 };
  static const BpwOpClass op_classes[] = { BPW_OP_CLASS_MATRIX, BPW_OP_CLASS_VECTOR,
                                           BPW_OP_CLASS_MEMORY };
  int mi;

  setup_init (&s);
  plan = bind (&s, s.bp);
  sim = simulate (plan);
  trace = trace_of (sim);
  text = scaled_trace (trace, FALSE, sums, counts);
  for (guint c = 0; c < CLASS_OTHER; c++)
    {
      g_test_message ("class %u: %u slices, %.1f µs", c, counts[c], sums[c]);
      g_assert_cmpuint (counts[c], >=, 20);
    }
  profile = load_profile (text);
  corr = bpw_correlate (sim, profile, NULL, &error);
  g_assert_no_error (error);

  cal = bpw_calibrate (s.bp, &corr, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (cal);
  for (guint c = 0; c < G_N_ELEMENTS (op_classes); c++)
    {
      const BpwCalibrationClass *k = &cal->classes[op_classes[c]];
      double recovered = k->predicted_after_s / k->predicted_before_s;

      g_test_message ("%s: %u rows, recovered %.5f (applied %.2f)",
                      bpw_op_class_to_string (op_classes[c]), k->rows, recovered, factors[c]);
      g_assert_cmpuint (k->rows, >=, 20);
      g_assert_cmpfloat (fabs (recovered / factors[c] - 1.0), <, 0.01);
    }

  /* Independently: bind the calibrated blueprint and time the same slices. */
  recal_plan = bind (&s, cal->blueprint);
  recal_sim = simulate (recal_plan);
  recal_trace = trace_of (recal_sim);
  class_times (trace, recal_trace, before, after);
  for (guint c = 0; c < CLASS_OTHER; c++)
    {
      g_test_message ("class %u: %.1f µs → %.1f µs (×%.5f, applied %.2f)", c, before[c],
                      after[c], after[c] / before[c], factors[c]);
      g_assert_cmpfloat (fabs (after[c] / (before[c] * factors[c]) - 1.0), <, 0.01);
    }

  /* Provenance: the changed tables say calibrated, and on what. */
  mi = bpw_blueprint_first_engine (cal->blueprint, BPW_ENGINE_MATRIX);
  g_assert_cmpint (cal->blueprint->engines[mi].efficiency[BPW_PRECISION_BF16].kind, ==,
                   BPW_PROVENANCE_CALIBRATED);
  g_assert_nonnull (strstr (cal->blueprint->engines[mi].efficiency[BPW_PRECISION_BF16].source,
                            "scaled-trace.json"));
  g_assert_nonnull (strstr (cal->blueprint->engines[mi].efficiency[BPW_PRECISION_BF16].source,
                            "Blueprint Workbench"));
  g_assert_cmpstr (cal->blueprint->name, ==, "a100-sxm-80gb-calibrated");

  /* Reproducible: the same inputs give the same blueprint. */
  again = bpw_calibrate (s.bp, &corr, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (cal->blueprint, again->blueprint));
  setup_clear (&s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/Profile/own-trace-correlates-fully", test_import_and_correlate);
  g_test_add_func ("/bpw/core/Profile/calibration-recovers-factors",
                   test_calibration_recovers_factors);
  return g_test_run ();
}
