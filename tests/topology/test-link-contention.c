/* test-link-contention.c — the simulation shares a link fairly among the transfers on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Llama 3 8B, TP 2 with sequence parallelism and ring overlap, DP 4 with its reductions
 * behind the backward pass. With both groups on NVLink, TP collectives and DP buckets
 * overlap on each rank's port: every transfer that shares its port is slowed, the one
 * that was there first as well as the one that came later, and the port is never idle
 * while it has work (the bytes are conserved, contention only adds time). With DP on the
 * network the ports are not shared and every transfer takes its time alone exactly.
 */
#include "config.h"

#include <math.h>

#include "bpw-core.h"

static BpwPlan *
bind_llama (const BpwBlueprint *bp, gint dp_tier)
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
  scenario.global_batch = 8;
  scenario.micro_batch = 1;
  scenario.seq = 2048;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.tp = 2;
  mapping.parallel.dp = 4;
  mapping.parallel.sp = TRUE;
  mapping.tp_overlap = BPW_TP_OVERLAP_RING;
  mapping.dp_overlap = TRUE;
  mapping.tier[BPW_GROUP_TP] = 0;
  mapping.tier[BPW_GROUP_DP] = dp_tier;
  bpw_mapping_apply_to_scenario (&mapping, &scenario);
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

static BpwSimulation *
simulate (const BpwPlan *plan)
{
  g_autoptr(GError) error = NULL;
  BpwSimOptions options = { 0 };
  BpwSimulation *sim = bpw_simulation_new (plan, &options, &error);

  g_assert_no_error (error);
  return sim;
}

static gint
by_start (gconstpointer a, gconstpointer b, gpointer data)
{
  const BpwSimEvent *x = bpw_simulation_event (data, *(const guint32 *) a);
  const BpwSimEvent *y = bpw_simulation_event (data, *(const guint32 *) b);

  return (x->start > y->start) - (x->start < y->start);
}

/* The column's transfers on tier @tier of rank @rank, by start. */
static GArray *
link_transfers (const BpwSimulation *sim, guint32 rank, guint tier)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint32 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, i);

      if (e->kind == BPW_SIM_EVENT_TRANSFER && e->rank == rank &&
          (guint) BPW_SIM_QUEUE_TIER (e->queue) == tier)
        g_array_append_val (out, i);
    }
  g_array_sort_with_data (out, by_start, (gpointer) sim);
  return out;
}

static void
test_both_slowed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autoptr(GArray) link = NULL;
  guint pairs = 0;
  double busy = 0, work = 0, period_end = -1;

  g_assert_no_error (error);
  plan = bind_llama (bp, 0);
  sim = simulate (plan);
  link = link_transfers (sim, 0, 0);
  g_assert_cmpuint (link->len, >, 0);

  for (guint i = 0; i < link->len; i++)
    {
      const BpwSimEvent *a = bpw_simulation_event (sim, g_array_index (link, guint32, i));
      double alone = bpw_simulation_event_alone_s (sim, a);

      /* Never faster than alone. */
      g_assert_cmpfloat (a->end - a->start, >=, alone * (1 - 1e-12));
      for (guint j = i + 1; j < link->len; j++)
        {
          const BpwSimEvent *b = bpw_simulation_event (sim, g_array_index (link, guint32, j));

          if (b->start >= a->end)
            break;
          if (BPW_SIM_QUEUE_GROUP (a->queue) == BPW_SIM_QUEUE_GROUP (b->queue) ||
              b->start <= a->start)
            continue;
          /* b arrived while a ran: both shared the port, a (the earlier) as well. */
          g_assert_cmpfloat (a->end, >, a->start + alone);
          g_assert_cmpfloat (b->end, >, b->start + bpw_simulation_event_alone_s (sim, b));
          pairs++;
        }

      /* Busy periods: the union of the spans is the sum of the work in them. */
      if (a->start >= period_end)
        {
          period_end = a->end;
          busy += a->end - a->start;
        }
      else if (a->end > period_end)
        {
          busy += a->end - period_end;
          period_end = a->end;
        }
      work += alone;
    }
  g_test_message ("%u overlapping pairs of TP and DP on rank 0's NVLink; busy %.6g s, "
                  "work %.6g s", pairs, busy, work);
  g_assert_cmpuint (pairs, >, 0);
  g_assert_cmpfloat (fabs (busy - work), <=, 1e-9 * work);
}

static void
test_alone_exact (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  guint n = 0;

  g_assert_no_error (error);
  plan = bind_llama (bp, 1);
  sim = simulate (plan);
  for (guint tier = 0; tier < bp->n_tiers; tier++)
    {
      g_autoptr(GArray) link = link_transfers (sim, 0, tier);
      guint prev_group = G_MAXUINT;
      double prev_end = 0;

      for (guint i = 0; i < link->len; i++)
        {
          const BpwSimEvent *e = bpw_simulation_event (sim, g_array_index (link, guint32, i));

          /* One group per port: nothing to share. */
          g_assert_true (prev_group == G_MAXUINT ||
                         prev_group == (guint) BPW_SIM_QUEUE_GROUP (e->queue));
          prev_group = BPW_SIM_QUEUE_GROUP (e->queue);
          g_assert_cmpfloat (e->start, >=, prev_end);
          g_assert_cmpfloat (e->end, ==, e->start + bpw_simulation_event_alone_s (sim, e));
          prev_end = e->end;
          n++;
        }
    }
  g_assert_cmpuint (n, >, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/topology/contention/both-slowed", test_both_slowed);
  g_test_add_func ("/topology/contention/alone-exact", test_alone_exact);
  return g_test_run ();
}
