/* bpw-test-plan.c — binding a plan and holding the estimator against it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "bpw-test-plan.h"

void
bpw_test_assert_close (double a,
                       double b,
                       double rel)
{
  if (!(fabs (a - b) <= rel * MAX (fabs (a), fabs (b)) + 1e-12))
    g_error ("%.12g and %.12g differ by more than %g relative", a, b, rel);
}

void
bpw_test_scenario (BpwScenario      *scenario,
                   BpwWorkloadPhase  phase,
                   gint64            batch,
                   gint64            micro,
                   gint64            seq,
                   gint64            context,
                   BpwRecompute      recompute)
{
  bpw_scenario_init_defaults (scenario);
  scenario->phase = phase;
  scenario->global_batch = batch;
  scenario->micro_batch = micro;
  scenario->seq = seq;
  scenario->context = context;
  scenario->recompute = recompute;
}

BpwBlueprint *
bpw_test_blueprint_without_launch (const char *name)
{
  g_autoptr(GError) error = NULL;
  BpwBlueprint *bp = bpw_blueprint_load (name, NULL, &error);

  g_assert_no_error (error);
  bp->stack.has_launch = FALSE;
  return bp;
}

BpwPlan *
bpw_test_bind (const BpwModelSpec *spec,
               const BpwScenario  *scenario,
               const BpwBlueprint *bp,
               const BpwMapping   *mapping)
{
  g_autoptr(GError) error = NULL;
  BpwWorkGraph *graph = bpw_work_graph_new (spec, scenario, &error);
  BpwDistWork *dist;
  BpwPlan *plan;

  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping->parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, mapping, &error);
  g_assert_no_error (error);
  return plan;
}

BpwEstimator *
bpw_test_estimate (const BpwModelSpec *spec,
                   const BpwScenario  *scenario,
                   const BpwBlueprint *bp,
                   const BpwMapping   *mapping,
                   BpwEvaluation      *estimate)
{
  g_autoptr(GError) error = NULL;
  BpwEstimator *est = bpw_estimator_new (spec, scenario, bp, &error);

  g_assert_no_error (error);
  g_assert_true (bpw_estimator_evaluate (est, mapping, estimate, NULL, &error));
  g_assert_no_error (error);
  return est;
}

void
bpw_test_assert_estimate_is_plan (const BpwEvaluation *plan,
                                  const BpwEvaluation *estimate)
{
  bpw_test_assert_close (plan->step_time_s, estimate->step_time_s, 1e-9);
  bpw_test_assert_close (plan->mfu, estimate->mfu, 1e-9);
  bpw_test_assert_close (plan->peak_bytes, estimate->peak_bytes, 1e-6);
  g_assert_cmpint (plan->slowest_stage, ==, estimate->slowest_stage);
}
