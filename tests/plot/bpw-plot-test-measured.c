/* bpw-plot-test-measured.c — a measured profile of known times for the plot tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-plot-test-measured.h"
#include "bpw-trace.h"

static BpwPlan *
bpw_plot_test_measured_plan (gint64 pp)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwPlan *plan;

  g_assert_no_error (error);
  /* The hardware alone: the scaled trace times each op as its task, and the software
   * stack's time rides on tasks (launch gaps) that the trace has no kernel for. */
  memset (&bp->stack, 0, sizeof bp->stack);
  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("gpt2", &spec, &error));
  bpw_scenario_init_defaults (&scenario);
  scenario.global_batch = 4;
  scenario.micro_batch = 2;
  scenario.seq = 512;
  scenario.dtype = BPW_DTYPE_BF16;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.pp = pp;
  bpw_mapping_apply_to_scenario (&mapping, &scenario);
  graph = bpw_work_graph_new (&spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);
  g_assert_true (plan->legal);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&scenario);
  bpw_mapping_clear (&mapping);
  return plan;
}

/* The simulation's own trace with every complete slice @factor times as long. */
static char *
bpw_plot_test_measured_trace (const BpwSimulation *sim,
                              double               factor)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-plot-measured-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "trace.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  BpwTraceOptions options = { .no_flows = TRUE };
  JsonArray *events;

  g_assert_no_error (error);
  g_assert_true (bpw_trace_write (sim, &options, path, &error));
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);
  events = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);

      if (strcmp (json_object_get_string_member (ev, "ph"), "X") == 0)
        json_object_set_double_member (ev, "dur",
                                       json_object_get_double_member (ev, "dur") * factor);
    }
  json_generator_set_root (gen, json_parser_get_root (parser));
  return json_generator_to_data (gen, NULL);
}

void
bpw_plot_test_measured_init (BpwPlotTestMeasured *m,
                             gint64               pp,
                             double               factor)
{
  g_autoptr(GError) error = NULL;
  BpwSimOptions options = { 0 };
  g_autofree char *trace = NULL;

  *m = (BpwPlotTestMeasured) { 0 };
  m->plan = bpw_plot_test_measured_plan (pp);
  m->sim = bpw_simulation_new (m->plan, &options, &error);
  g_assert_no_error (error);
  trace = bpw_plot_test_measured_trace (m->sim, factor);
  m->profile = bpw_profile_load_data ("scaled-trace.json", trace, -1, &error);
  g_assert_no_error (error);
  m->corr = bpw_correlate (m->sim, m->profile, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->corr->stats.matched_ops, ==, m->sim->events->len);
  g_assert_cmpuint (m->corr->stats.extra_items, ==, 0);
}

void
bpw_plot_test_measured_clear (BpwPlotTestMeasured *m)
{
  g_clear_pointer (&m->corr, bpw_correlation_free);
  g_clear_pointer (&m->profile, bpw_profile_free);
  g_clear_pointer (&m->sim, bpw_simulation_free);
  g_clear_pointer (&m->plan, bpw_plan_free);
}

gboolean
bpw_plot_test_measured_fixture (BpwMeasurementRun *run)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "studies",
                                                 "gpt2-cpu.bpw-study.json", NULL);
  g_autoptr(BpwStudy) study = NULL;

  *run = (BpwMeasurementRun) { 0 };
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("tests/data/studies/gpt2-cpu.bpw-study.json is missing");
      return FALSE;
    }
  study = bpw_study_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_measurement_run_init (run, study, 0, &error));
  g_assert_true (bpw_measurement_run_execute (run, &error));
  g_assert_no_error (error);
  return TRUE;
}
