/* bpw-simulation-access.c — what a finished simulation answers: ranks, lanes, queue and
 * event names, an event's work and bottleneck, utilisation over time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Kept apart from bpw-simulation.c, which builds the simulation by running the memory
 * and metrics passes, so that those passes read the result without calling back into
 * the file that runs them.
 */
#define G_LOG_DOMAIN "bpw-simulation"

#include "config.h"

#include <string.h>

#include "bpw-simulation-private.h"

static const char * const category_names[BPW_N_MEM_CATEGORIES] = {
  "weights", "gradients", "optimizer_state", "checkpoints", "temporaries", "communication",
  "kv_cache",
};

const char *
bpw_memory_category_to_string (BpwMemoryCategory category)
{
  g_return_val_if_fail (category < BPW_N_MEM_CATEGORIES, "?");
  return category_names[category];
}

gint64
bpw_simulation_rank_stage (const BpwSimulation *sim,
                           guint32              rank)
{
  const BpwParallel *p = &sim->plan->dist->parallel;

  return sim->options.all_ranks ? (gint64) (rank / p->tp) % p->pp : (gint64) rank;
}

const guint32 *
bpw_simulation_lane (const BpwSimulation *sim,
                     guint32              rank,
                     guint32              queue,
                     guint32             *n_events)
{
  guint32 l;

  g_return_val_if_fail (rank < sim->n_ranks && queue < sim->n_queues, NULL);
  l = rank * sim->n_queues + queue;
  *n_events = sim->lane_first[l + 1] - sim->lane_first[l];
  return sim->lane_events + sim->lane_first[l];
}

const char *
bpw_simulation_queue_name (const BpwSimulation *sim,
                           guint32              queue)
{
  g_return_val_if_fail (queue < sim->queue_names->len, "?");
  return g_ptr_array_index (sim->queue_names, queue);
}

static const BpwPlanTask *
event_task (const BpwSimulation *sim, const BpwSimEvent *e)
{
  return &g_array_index (sim->plan->stages[e->stage].tasks, BpwPlanTask, e->item);
}

const char *
bpw_simulation_event_name (const BpwSimulation *sim,
                           const BpwSimEvent   *e)
{
  const BpwWorkGraph *g = sim->plan->dist->graph;

  if (e->kind == BPW_SIM_EVENT_TASK)
    return bpw_work_graph_name (g, bpw_work_graph_op (g, event_task (sim, e)->op)->name);
  return bpw_work_graph_name (g, _bpw_sim_transfer (sim->plan, e->stage, e->item)->name);
}

void
bpw_simulation_event_work (const BpwSimulation *sim,
                           const BpwSimEvent   *e,
                           double              *flops,
                           double              *bytes)
{
  if (e->kind == BPW_SIM_EVENT_TASK)
    {
      const BpwPlanTask *t = event_task (sim, e);

      *flops = t->flops * t->count;
      *bytes = (t->bytes[BPW_TRAFFIC_DEVICE] + t->bytes[BPW_TRAFFIC_HOST]) * t->count;
    }
  else
    {
      const BpwPlanTransfer *tr = _bpw_sim_transfer (sim->plan, e->stage, e->item);
      double layers = (double) MAX (sim->plan->dist->stages[e->stage].n_layers, 1);

      double wire = tr->wire_bytes;

      /* A part of a hierarchical collective puts its own part's bytes on its link. */
      if (e->part > 0)
        wire = g_array_index (((const SimProgram *) sim->program)->stages[e->stage].xfers,
                              SimXfer, e->item).part_wire[e->part - 1];
      *flops = 0;
      *bytes = wire * (e->flags & BPW_SIM_FLAG_BUCKET ? 1.0 / layers : 1.0);
    }
}

double
bpw_simulation_event_alone_s (const BpwSimulation *sim,
                              const BpwSimEvent   *e)
{
  const SimStage *st;
  const SimXfer *x;
  double whole;

  if (e->kind == BPW_SIM_EVENT_TASK)
    {
      const BpwPlanTask *t = event_task (sim, e);

      return t->cost.time_s * t->count;
    }
  st = &((const SimProgram *) sim->program)->stages[e->stage];
  x = &g_array_index (st->xfers, SimXfer, e->item);
  if (!(e->flags & BPW_SIM_FLAG_BUCKET))
    whole = x->duration;
  /* The buckets' durations as bpw-simulate-transfers.c divides them. */
  else if (x->klass == SIM_XFER_DP_GATHER_STEP)
    whole = x->duration / (double) st->n_gather_buckets;
  else
    whole = x->duration / (double) MAX (st->n_layers, 1);
  /* A part of a hierarchical collective: its share, as the simulation served it. */
  return e->part > 0 ? _bpw_sim_part_work (x, e->part - 1u, whole) : whole;
}

BpwCollectiveKind
bpw_simulation_event_part (const BpwSimulation *sim,
                           const BpwSimEvent   *e,
                           guint               *n_parts)
{
  const SimXfer *x;

  *n_parts = 0;
  g_return_val_if_fail (e->kind == BPW_SIM_EVENT_TRANSFER && e->part > 0, BPW_N_COLLECTIVES);
  x = &g_array_index (((const SimProgram *) sim->program)->stages[e->stage].xfers, SimXfer,
                      e->item);
  *n_parts = x->n_parts;
  return (BpwCollectiveKind) x->part_kind[e->part - 1];
}

BpwBottleneck
bpw_simulation_event_bottleneck (const BpwSimulation *sim,
                                 const BpwSimEvent   *e)
{
  if (e->kind == BPW_SIM_EVENT_TASK)
    return event_task (sim, e)->cost.bottleneck;
  return BPW_BOTTLENECK_COMMUNICATION;
}

void
bpw_simulation_utilisation (const BpwSimulation *sim,
                            guint32              rank,
                            guint32              queue,
                            guint                n_bins,
                            double              *fractions)
{
  guint32 n;
  const guint32 *lane = bpw_simulation_lane (sim, rank, queue, &n);
  double width = sim->step_time_s / (double) MAX (n_bins, 1);

  memset (fractions, 0, n_bins * sizeof (double));
  if (n_bins == 0 || width <= 0)
    return;
  for (guint32 i = 0; i < n; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, lane[i]);
      guint b0 = (guint) MIN (e->start / width, n_bins - 1);
      guint b1 = (guint) MIN (e->end / width, n_bins - 1);

      for (guint b = b0; b <= b1; b++)
        {
          double lo = MAX (e->start, b * width), hi = MIN (e->end, (b + 1) * width);

          if (hi > lo)
            fractions[b] += (hi - lo) / width;
        }
    }
  /* Overlapping transfers on one link (a tied all-reduce beside a bucket) can exceed 1. */
  for (guint b = 0; b < n_bins; b++)
    fractions[b] = MIN (fractions[b], 1.0);
}
