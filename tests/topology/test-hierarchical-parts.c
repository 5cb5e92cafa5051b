/* test-hierarchical-parts.c — a hierarchical collective's parts run on the tiers they use
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Llama 3 8B on H100 nodes of 8 with DP across nodes on InfiniBand, its gradient
 * all-reduce hierarchical: reduce-scatter inside the node (NVLink), all-reduce of the
 * shard across nodes, all-gather inside the node. The simulation runs the parts in that
 * order, each on its own tier's link of the rank. Alone, each part takes its own price
 * and the collective the plan's price of the whole. Beside tensor-parallel collectives on
 * NVLink the parts inside the node share the link fairly (processor sharing): a TP
 * transfer that lies inside a part runs at half rate all its life, and a part that holds
 * TP transfers whole is longer by exactly their work.
 */
#include "config.h"

#include <math.h>

#include <json-glib/json-glib.h>

#include "bpw-core.h"
#include "bpw-cost-topology.h"

static BpwPlan *
bind_llama (const BpwBlueprint *bp, gint64 tp, gint64 dp, gboolean dp_overlap, gint tp_tier,
            gint zero)
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
  scenario.global_batch = dp;
  scenario.micro_batch = 1;
  scenario.seq = 2048;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.tp = tp;
  mapping.parallel.dp = dp;
  mapping.parallel.sp = tp > 1;
  mapping.parallel.zero = zero;
  mapping.dp_overlap = dp_overlap;
  mapping.tier[BPW_GROUP_TP] = tp_tier;
  mapping.tier[BPW_GROUP_DP] = 1;
  mapping.algorithm[1] = BPW_COLLECTIVE_ALGO_HIERARCHICAL;
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

static const BpwPlanTransfer *
plan_transfer (const BpwPlan *plan, const BpwSimEvent *e)
{
  return &g_array_index (plan->stages[e->stage].transfers, BpwPlanTransfer, e->item);
}

static void
assert_close (double a, double b, double rel)
{
  g_assert_cmpfloat (fabs (a - b), <=, rel * MAX (fabs (a), fabs (b)));
}

/* DP 16 of 2 nodes, reduced after the backward pass: nothing shares a link with it. With
 * ZeRO 1 the gradients are reduce-scattered (inside, then across) and the weights
 * all-gathered after the optimizer (across, then inside): two parts each. */
static void
test_alone (gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  guint collectives = 0, kinds = 0;

  g_assert_no_error (error);
  plan = bind_llama (bp, 1, 16, FALSE, 0, GPOINTER_TO_INT (data));
  sim = simulate (plan);

  for (guint32 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *first = bpw_simulation_event (sim, i);
      const BpwPlanTransfer *tr;
      BpwCollectivePart parts[BPW_COLLECTIVE_MAX_PARTS];
      BpwCollectiveSpan span;
      guint n, n_parts;

      if (first->kind != BPW_SIM_EVENT_TRANSFER || first->part != 1 || first->rank != 0)
        continue;
      tr = plan_transfer (plan, first);
      g_assert_cmpint (tr->algorithm, ==, BPW_COLLECTIVE_ALGO_HIERARCHICAL);
      g_assert_cmpint (tr->tier, ==, 1);
      bpw_cost_span_init (&span, bp, 1, tr->ranks,
                          bpw_cost_group_stride (&plan->mapping.parallel, tr->group));
      n = bpw_cost_span_parts (&span, tr->algorithm, tr->kind, tr->bytes, parts);
      g_assert_cmpuint (n, ==, tr->kind == BPW_COLLECTIVE_ALL_REDUCE ? 3 : 2);
      g_assert_cmpint (bpw_simulation_event_part (sim, first, &n_parts), ==, parts[0].kind);
      g_assert_cmpuint (n_parts, ==, n);
      kinds |= 1u << tr->kind;

      for (guint k = 0; k < n; k++)
        {
          const BpwSimEvent *e = bpw_simulation_event (sim, i + k);
          guint tier = parts[k].inner ? 0 : 1;

          /* In order, each on its own tier's link, the next starting as the one before
           * it ends, each its own price. */
          g_assert_cmpuint (e->part, ==, k + 1);
          g_assert_cmpuint (e->item, ==, first->item);
          g_assert_cmpuint (e->queue, ==, BPW_SIM_QUEUE_LINK (tier, BPW_GROUP_DP));
          g_assert_cmpfloat (bpw_simulation_event_alone_s (sim, e), ==, parts[k].time_s);
          if (k + 1 < n)
            g_assert_cmpfloat (e->end, ==, e->start + parts[k].time_s);
          else
            assert_close (e->end, e->start + parts[k].time_s, 1e-12);
          if (k > 0)
            {
              g_assert_cmpfloat (e->start, ==, bpw_simulation_event (sim, i + k - 1)->end);
              g_assert_cmpuint (e->pred, ==, i + k - 1);
            }
        }
      /* The whole takes the plan's (the analytic) hierarchical price: it ends where one
       * transfer of that price would, to the bit. */
      g_assert_cmpfloat (bpw_simulation_event (sim, i + n - 1)->end, ==,
                         first->start + tr->time_s);
      g_assert_cmpfloat (sim->step_time_s, >=, bpw_simulation_event (sim, i + n - 1)->end);
      collectives++;
      i += n - 1;
    }
  g_assert_cmpuint (collectives, >, 0);
  g_assert_cmpuint (kinds, ==, GPOINTER_TO_INT (data) == 0
                               ? 1u << BPW_COLLECTIVE_ALL_REDUCE
                               : 1u << BPW_COLLECTIVE_REDUCE_SCATTER |
                                 1u << BPW_COLLECTIVE_ALL_GATHER);
}

/* TP 16 across two nodes: its all-reduces, which the stream waits for, run as their parts
 * and the stream waits for the last; alone, each the plan's price of the whole. */
static void
test_blocking (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  guint collectives = 0;

  g_assert_no_error (error);
  plan = bind_llama (bp, 16, 1, FALSE, 1, 0);
  sim = simulate (plan);
  for (guint32 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *first = bpw_simulation_event (sim, i), *last;
      const BpwPlanTransfer *tr;
      double alone = 0;
      guint n;

      if (first->kind != BPW_SIM_EVENT_TRANSFER)
        continue;
      tr = plan_transfer (plan, first);
      g_assert_cmpint (tr->algorithm, ==, BPW_COLLECTIVE_ALGO_HIERARCHICAL);
      g_assert_cmpuint (first->part, ==, 1);
      bpw_simulation_event_part (sim, first, &n);
      g_assert_cmpuint (n, >=, 2);
      for (guint k = 0; k < n; k++)
        {
          const BpwSimEvent *e = bpw_simulation_event (sim, i + k);

          g_assert_cmpuint (e->part, ==, k + 1);
          g_assert_true (e->flags & BPW_SIM_FLAG_BLOCKING);
          if (k > 0)
            g_assert_cmpfloat (e->start, ==, bpw_simulation_event (sim, i + k - 1)->end);
          assert_close (e->end, e->start + bpw_simulation_event_alone_s (sim, e), 1e-12);
          alone += bpw_simulation_event_alone_s (sim, e);
        }
      last = bpw_simulation_event (sim, i + n - 1);
      assert_close (alone, tr->time_s * tr->count, 1e-12);
      g_assert_cmpfloat (last->end, ==, first->start + tr->time_s * tr->count);
      /* Nothing on the stream before the last part ends. */
      if (i + n < sim->column_events)
        g_assert_cmpfloat (bpw_simulation_event (sim, i + n)->start, >=, last->end);
      collectives++;
      i += n - 1;
    }
  g_assert_cmpuint (collectives, >, 0);
}

/* TP 2 on NVLink beside DP 8 across two nodes, its buckets behind the backward pass:
 * both groups on rank 0's NVLink port. */
static void
test_shares_nvlink (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autoptr(GArray) parts = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) tp = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint inside = 0, holding = 0, slowed = 0, outer = 0;

  g_assert_no_error (error);
  plan = bind_llama (bp, 2, 8, TRUE, 0, 0);
  sim = simulate (plan);
  for (guint32 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, i);

      if (e->kind != BPW_SIM_EVENT_TRANSFER || e->rank != 0)
        continue;
      if (BPW_SIM_QUEUE_TIER (e->queue) == 1)
        {
          /* The parts across nodes have InfiniBand to themselves. */
          g_assert_cmpuint (e->part, ==, 2);
          g_assert_cmpfloat (e->end, ==, e->start + bpw_simulation_event_alone_s (sim, e));
          outer++;
        }
      else if (BPW_SIM_QUEUE_GROUP (e->queue) == BPW_GROUP_DP)
        {
          g_assert_cmpuint (e->part, !=, 0);
          g_array_append_val (parts, i);
        }
      else if (BPW_SIM_QUEUE_GROUP (e->queue) == BPW_GROUP_TP)
        g_array_append_val (tp, i);
    }
  g_assert_cmpuint (outer, >, 0);
  g_assert_cmpuint (parts->len, ==, 2 * outer);
  g_assert_cmpuint (tp->len, >, 0);

  for (guint a = 0; a < parts->len; a++)
    {
      const BpwSimEvent *p = bpw_simulation_event (sim, g_array_index (parts, guint32, a));
      double alone = bpw_simulation_event_alone_s (sim, p), held = 0;
      gboolean whole = TRUE;

      for (guint b = 0; b < tp->len; b++)
        {
          const BpwSimEvent *t = bpw_simulation_event (sim, g_array_index (tp, guint32, b));
          double t_alone = bpw_simulation_event_alone_s (sim, t);

          if (t->end <= p->start || t->start >= p->end)
            continue;
          if (t->start >= p->start && t->end <= p->end)
            {
              /* Shared with the part all its life: half the rate. */
              assert_close (t->end - t->start, 2 * t_alone, 1e-9);
              held += t_alone;
              inside++;
            }
          else
            whole = FALSE;
        }
      if (!whole)
        continue;
      /* The port is busy with the part from its start to its end: the part's work and
       * that of the TP transfers inside it. */
      assert_close (p->end - p->start, alone + held, 1e-9);
      holding += held > 0;
      slowed += p->end > p->start + alone;
    }
  g_test_message ("rank 0's NVLink: %u DP parts, %u TP transfers inside one, %u parts "
                  "holding TP transfers whole", parts->len, inside, holding);
  g_assert_cmpuint (inside, >, 0);
  g_assert_cmpuint (holding, >, 0);
  g_assert_cmpuint (slowed, ==, holding);
}

/* The Perfetto trace shows each part on its own tier's lane, named by its collective, and
 * the contention of the parts inside the node. */
static void
test_trace (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GHashTable) lanes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                       g_free);
  BpwTraceOptions options = { .no_flows = TRUE };
  JsonArray *events;
  guint on_lane[3] = { 0 }, contended = 0;

  g_assert_no_error (error);
  plan = bind_llama (bp, 2, 8, TRUE, 0, 0);
  sim = simulate (plan);
  g_assert_true (bpw_trace_write_stream (sim, &options, out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_close (out, NULL, &error));
  g_assert_true (json_parser_load_from_data (
    parser, g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
    (gssize) g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)), &error));
  g_assert_no_error (error);
  events = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "traceEvents");
  /* Lane names first (metadata), then the slices on them. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < json_array_get_length (events); i++)
      {
        JsonObject *ev = json_array_get_object_element (events, i);
        const char *ph = json_object_get_string_member (ev, "ph");
        JsonObject *args = json_object_has_member (ev, "args")
                           ? json_object_get_object_member (ev, "args") : NULL;
        gint64 lane;
        const char *name;
        gint64 part;

        if (!json_object_has_member (ev, "tid") || args == NULL)
          continue;
        lane = json_object_get_int_member (ev, "pid") << 16 |
               json_object_get_int_member (ev, "tid");
        if (pass == 0 && g_strcmp0 (ph, "M") == 0 &&
            g_strcmp0 (json_object_get_string_member (ev, "name"), "thread_name") == 0)
          g_hash_table_insert (lanes, g_memdup2 (&lane, sizeof lane),
                               g_strdup (json_object_get_string_member (args, "name")));
        if (pass == 0 || g_strcmp0 (ph, "X") != 0 || !json_object_has_member (args, "part"))
          continue;
        part = json_object_get_int_member (args, "part");
        name = g_hash_table_lookup (lanes, &lane);
        g_assert_cmpint (json_object_get_int_member (args, "parts"), ==, 3);
        g_assert_cmpint (part, >=, 1);
        g_assert_cmpint (part, <=, 3);
        g_assert_cmpstr (name, ==, part == 2 ? "infiniband dp" : "nvlink dp");
        g_assert_cmpstr (json_object_get_string_member (args, "part_collective"), ==,
                         part == 1 ? "reduce_scatter" : part == 2 ? "all_reduce"
                                                                  : "all_gather");
        on_lane[part - 1]++;
        if (json_object_has_member (args, "contention_us"))
          {
            g_assert_cmpint (part, !=, 2);
            contended++;
          }
      }
  g_assert_cmpuint (on_lane[0], >, 0);
  g_assert_cmpuint (on_lane[0], ==, on_lane[1]);
  g_assert_cmpuint (on_lane[1], ==, on_lane[2]);
  g_assert_cmpuint (contended, >, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/topology/hierarchical-parts/alone", GINT_TO_POINTER (0), test_alone);
  g_test_add_data_func ("/topology/hierarchical-parts/alone-zero1", GINT_TO_POINTER (1),
                        test_alone);
  g_test_add_func ("/topology/hierarchical-parts/blocking", test_blocking);
  g_test_add_func ("/topology/hierarchical-parts/shares-nvlink", test_shares_nvlink);
  g_test_add_func ("/topology/hierarchical-parts/trace", test_trace);
  return g_test_run ();
}
