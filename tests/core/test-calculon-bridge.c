/* test-calculon-bridge.c — Calculon's best, priced by the workbench, as a fresh estimator would
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw_calculon_search_report_to_workbench() turns each of Calculon's best executions into
 * its mapping and prices it with one estimator per batch, reused across results. Reuse must
 * not change a number: every result must equal what a fresh estimator, made for that
 * execution alone, says of the same mapping. The list below spans several TP and PP values
 * (new templates after the first estimator was made) and two batches (a DP that does not
 * divide the batch makes Calculon's batch smaller), which is what the cache must survive.
 */
#include "config.h"

#include <math.h>

#include "bpw-calculon-bridge.h"
#include "bpw-calculon-rules.h"
#include "bpw-core.h"
#include "bpw-estimator.h"

#define DEVICES 4
#define BATCH   6   /* DP 4 does not divide it: Calculon runs those at batch 4 */
#define TOP_N   200   /* Calculon's 190th best is the first at batch 4 */

static void
load_problem (BpwModelSpec  *spec,
              BpwScenario   *scenario,
              BpwBlueprint **bp)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "calculon-search",
                                                  "gpt3-13B.json", NULL);
  g_autofree char *system = g_test_build_filename (G_TEST_DIST, "data", "calculon-search",
                                                   "a100_80g.json", NULL);
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (spec);
  bpw_scenario_init_defaults (scenario);
  g_assert_true (bpw_workload_load_full (model, 0, spec, scenario, &error));
  g_assert_no_error (error);
  /* Named, as a study's scenarios are: the estimator borrows the name. */
  g_free (scenario->name);
  scenario->name = g_strdup ("train-b6");
  scenario->phase = BPW_WORKLOAD_TRAIN;
  scenario->global_batch = BATCH;
  scenario->dtype = BPW_DTYPE_FP16;
  *bp = bpw_blueprint_load (system, NULL, &error);
  g_assert_no_error (error);
}

/* The workbench's estimate of @r's mapping, from an estimator made for @exe alone. */
static void
fresh_estimate (const BpwModelSpec          *spec,
                const BpwScenario           *base,
                const BpwBlueprint          *bp,
                const BpwCalculonExecution  *exe,
                const BpwSearchResult       *r,
                BpwEvaluation               *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwEstimator) est = NULL;
  BpwScenario scenario;
  BpwParallel parallel = r->mapping.parallel;

  bpw_scenario_copy (&scenario, base);
  bpw_calculon_execution_apply (exe, &scenario, &parallel);
  est = bpw_estimator_new (spec, &scenario, bp, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_estimator_evaluate (est, &r->mapping, out, NULL, &error));
  g_assert_no_error (error);
  bpw_scenario_clear (&scenario);
}

static void
test_bridge_matches_fresh (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(BpwCalculonSpace) calculon = NULL;
  g_autoptr(BpwCalculonSearchReport) report = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) bridged = NULL;
  g_autoptr(GHashTable) batches = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) splits = g_hash_table_new (NULL, NULL);
  BpwCalculonSearchOptions options;
  BpwCalculonApp app;
  BpwCalculonSystem system;
  BpwSearchLimits limits;
  BpwMapping base;
  BpwModelSpec spec;
  BpwScenario scenario;

  load_problem (&spec, &scenario, &bp);
  g_assert_true (bpw_calculon_app_from_spec (&spec, scenario.seq, &app, &error));
  g_assert_true (bpw_calculon_system_from_blueprint (bp, scenario.dtype, &system, &error));
  g_assert_no_error (error);
  bpw_calculon_search_options_init (&options);
  options.top_n = TOP_N;
  calculon = bpw_calculon_space_new (&app, &system, DEVICES, BATCH, scenario.dtype, &options,
                                     &error);
  g_assert_no_error (error);
  report = bpw_calculon_search_run (calculon, NULL, NULL, NULL);
  g_assert_cmpuint (report->best->len, ==, TOP_N);

  bpw_mapping_init_defaults (&base);
  bpw_search_limits_init (&limits);
  limits.rules = bpw_calculon_search_rules ();
  space = bpw_search_space_new (&spec, &scenario, bp, &base, DEVICES, &limits, &error);
  g_assert_no_error (error);
  bridged = bpw_calculon_search_report_to_workbench (report, space, FALSE, FALSE);
  g_assert_cmpuint (bridged->evaluated, ==, report->evaluated);
  g_assert_cmpuint (bridged->legal, ==, report->good);
  g_assert_cmpuint (bridged->best->len, ==, TOP_N);

  for (guint i = 0; i < TOP_N; i++)
    {
      const BpwCalculonSearchResult *c = &g_array_index (report->best,
                                                         BpwCalculonSearchResult, i);
      const BpwSearchResult *r = &g_array_index (bridged->best, BpwSearchResult, i);
      BpwEvaluation fresh;

      g_assert_cmpuint (r->index, ==, c->index);
      g_assert_cmpint (r->mapping.parallel.tp, ==, c->exe.tensor_par);
      g_assert_cmpint (r->mapping.parallel.pp, ==, c->exe.pipeline_par);
      g_assert_cmpint (r->mapping.parallel.dp, ==, c->exe.data_par);
      g_assert_cmpint (r->mapping.micro_batch, ==, c->exe.microbatch_size);
      g_assert_cmpuint (r->reasons->len, ==, 0);
      g_assert_true (isfinite (r->estimate.step_time_s) && r->estimate.step_time_s > 0);
      fresh_estimate (&spec, &scenario, bp, &c->exe, r, &fresh);
      g_assert_cmpfloat (r->estimate.step_time_s, ==, fresh.step_time_s);
      g_assert_cmpint (r->estimate.legal, ==, fresh.legal);
      g_assert_cmpfloat (r->estimate.peak_bytes, ==, fresh.peak_bytes);
      g_hash_table_add (batches, GINT_TO_POINTER ((gint) c->exe.batch_size));
      g_hash_table_add (splits, GINT_TO_POINTER ((gint) (c->exe.tensor_par * 64
                                                         + c->exe.pipeline_par)));
    }
  /* What the list must hold for the comparison to test the cache. */
  g_assert_cmpuint (g_hash_table_size (batches), ==, 2);
  g_assert_cmpuint (g_hash_table_size (splits), >=, 3);

  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&scenario);
  bpw_mapping_clear (&base);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/CalculonBridge/matches-fresh-estimator", test_bridge_matches_fresh);
  return g_test_run ();
}
