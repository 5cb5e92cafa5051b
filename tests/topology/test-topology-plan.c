/* test-topology-plan.c — a plan on a multi-level network: the algorithm binding chooses per
 * collective, as the plan, the mapping sheet and the evaluation's JSON report it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-core.h"
#include "bpw-cost-topology.h"
#include "bpw-mapping-sheet.h"

/* Llama 3 8B on 64 H100s, TP 4 × DP 16: each data-parallel group has two ranks in every
 * node (ranks 4 devices apart, 8 devices a node), so its gradient all-reduce can run
 * hierarchically over the rail-optimised InfiniBand of the bundled blueprint. */
static BpwPlan *
bind_llama (const BpwBlueprint *bp)
{
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwPlan *plan;

  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("llama3-8b", &spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (&scenario);
  scenario.global_batch = 64;
  scenario.micro_batch = 1;
  scenario.seq = 2048;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.tp = 4;
  mapping.parallel.dp = 16;
  graph = bpw_work_graph_new (&spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);
  bpw_model_spec_clear (&spec);
  bpw_mapping_clear (&mapping);
  return plan;
}

static const BpwPlanTransfer *
dp_reduction (const BpwPlan *plan)
{
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    for (guint i = 0; i < plan->stages[s].transfers->len; i++)
      {
        const BpwPlanTransfer *tr = &g_array_index (plan->stages[s].transfers,
                                                    BpwPlanTransfer, i);

        if (tr->group == BPW_GROUP_DP && tr->kind == BPW_COLLECTIVE_ALL_REDUCE)
          return tr;
      }
  return NULL;
}

static void
test_hierarchical_chosen (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autofree char *json = NULL;
  const BpwPlanTransfer *tr;
  BpwCollectiveSpan span;
  BpwEvaluation eval;
  gboolean in_sheet = FALSE;

  g_assert_no_error (error);
  g_assert_cmpint (bp->tiers[1].topology, ==, BPW_TOPOLOGY_RAIL_OPTIMIZED);
  plan = bind_llama (bp);
  tr = dp_reduction (plan);
  g_assert_nonnull (tr);
  g_assert_cmpint (tr->tier, ==, 1);
  g_assert_cmpint (tr->algorithm, ==, BPW_COLLECTIVE_ALGO_HIERARCHICAL);
  bpw_cost_span_init (&span, bp, 1, 16, 4);
  g_assert_cmpint (span.local, ==, 2);
  g_assert_cmpfloat (tr->time_s, ==, bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                                         BPW_COLLECTIVE_ALL_REDUCE, tr->bytes));
  /* Cheaper than the flat algorithms the tier offers, which the blueprint had before. */
  g_assert_cmpfloat (tr->time_s, <, bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_RING,
                                                        BPW_COLLECTIVE_ALL_REDUCE, tr->bytes));
  g_assert_cmpfloat (tr->time_s, <, bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_TREE,
                                                        BPW_COLLECTIVE_ALL_REDUCE, tr->bytes));

  rows = bpw_mapping_sheet_new (plan, FALSE);
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);

      g_assert_nonnull (r->algorithm);
      if (r->transfer && strcmp (r->engine, "infiniband") == 0)
        {
          g_assert_cmpstr (r->algorithm, ==, "hierarchical");
          in_sheet = TRUE;
        }
      else if (!r->transfer)
        g_assert_cmpstr (r->algorithm, ==, "");
    }
  g_assert_true (in_sheet);

  bpw_evaluation_from_plan (plan, &eval);
  json = bpw_evaluation_to_json (&eval, plan, NULL);
  g_assert_nonnull (strstr (json, "\"collectives\""));
  g_assert_nonnull (strstr (json, "\"algorithm\": \"hierarchical\""));
  g_assert_nonnull (strstr (json, "\"topology\": \"rail-optimized\""));
}

/* The same plan on a copy whose network offers no hierarchical algorithm: a flat one. */
static void
test_mapping_choice_holds (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;

  g_assert_no_error (error);
  bp->tiers[1].collectives &= ~(guint) BPW_COLLECTIVE_ALGO_HIERARCHICAL;
  plan = bind_llama (bp);
  g_assert_cmpint (dp_reduction (plan)->algorithm, !=, BPW_COLLECTIVE_ALGO_HIERARCHICAL);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/topology/plan/hierarchical-chosen", test_hierarchical_chosen);
  g_test_add_func ("/topology/plan/flat-without-it", test_mapping_choice_holds);
  return g_test_run ();
}
