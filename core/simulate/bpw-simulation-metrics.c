/* bpw-simulation-metrics.c — breakdown, critical path and the evaluation of a simulated step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A rank's step is swept in issue order. The stream's items (tasks and the transfers it
 * waits for) are split into BpwEvaluation's classes; a gap before an item is classified
 * by the event that ended it (its predecessor): waiting for a pipeline transfer is
 * exposed communication while the transfer is on the link and bubble before it (the
 * other stage was still working), waiting for any other transfer is exposed
 * communication, waiting for nothing (the step's start) or for work is bubble. After the
 * rank's last item, the step's remainder is communication while the rank's own
 * transfers are still on a link, bubble after.
 *
 * The same sweep splits each rank's step by layer type (bpw-evaluation.h): a task's
 * time goes to its layer type, a blocking TP or EP collective's and the wait for an
 * overlapped one to the layer type of the op it serves; pipeline sends, per-step traffic
 * and the bubble to "other".
 */
#define G_LOG_DOMAIN "bpw-simulation-metrics"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-power-step.h"
#include "bpw-simulation-private.h"

static gboolean
is_stream (const BpwSimEvent *e)
{
  return e->kind == BPW_SIM_EVENT_TASK || (e->flags & BPW_SIM_FLAG_BLOCKING);
}

/* The layer-type bucket of a transfer event: the layer type of the op it serves for the
 * TP and EP collectives around a task, "other" for pipeline sends and per-step traffic. */
static guint
transfer_bucket (const BpwSimulation *sim, const BpwSimEvent *e)
{
  const SimStage *st = &((const SimProgram *) sim->program)->stages[e->stage];
  const SimXfer *x = &g_array_index (st->xfers, SimXfer, e->item);

  if (x->klass != SIM_XFER_BLOCKING_PRE && x->klass != SIM_XFER_BLOCKING_POST &&
      x->klass != SIM_XFER_OVERLAP)
    return BPW_LAYER_OTHER;
  return g_array_index (sim->plan->stages[e->stage].transfers, BpwPlanTransfer,
                        x->item).layer_type;
}

static void
gap (const BpwSimulation *sim, BpwSimRank *r, double lo, double hi, const BpwSimEvent *item)
{
  double (*other)[BPW_N_BOTTLENECKS] = &r->layer_s[BPW_LAYER_OTHER];
  const BpwSimEvent *p;
  double comm;

  if (hi <= lo)
    return;
  if (item->pred == BPW_SIM_NONE)
    {
      r->breakdown_s[BPW_BREAKDOWN_BUBBLE] += hi - lo;
      (*other)[BPW_BOTTLENECK_BUBBLE] += hi - lo;
      return;
    }
  p = bpw_simulation_event (sim, item->pred);
  if (p->kind == BPW_SIM_EVENT_TASK)
    {
      r->breakdown_s[BPW_BREAKDOWN_BUBBLE] += hi - lo;
      (*other)[BPW_BOTTLENECK_BUBBLE] += hi - lo;
    }
  else if (p->flags & (BPW_SIM_FLAG_PIPELINE | BPW_SIM_FLAG_SYNC))
    {
      /* Before the transfer started, the other stage was still working. */
      comm = MAX (0.0, MIN (hi, p->end) - MAX (lo, p->start));
      r->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION] += comm;
      r->pipeline_wait_s += comm;
      r->breakdown_s[BPW_BREAKDOWN_BUBBLE] += hi - lo - comm;
      (*other)[BPW_BOTTLENECK_COMMUNICATION] += comm;
      (*other)[BPW_BOTTLENECK_BUBBLE] += hi - lo - comm;
    }
  else
    {
      r->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION] += hi - lo;
      r->layer_s[transfer_bucket (sim, p)][BPW_BOTTLENECK_COMMUNICATION] += hi - lo;
      /* A blocking transfer that waited for its queue waited for other traffic. */
      if (item->kind == BPW_SIM_EVENT_TRANSFER && item->queue == p->queue)
        r->contention_s += hi - lo;
    }
}

static void
item (const BpwSimulation *sim, BpwSimRank *r, const BpwSimEvent *e, double visible)
{
  double length = e->end - e->start, frac = length > 0 ? visible / length : 0;
  const BpwPlanTask *t;
  const BpwTaskCost *c;
  double base, ext;
  guint bucket;

  if (e->kind != BPW_SIM_EVENT_TASK)
    {
      const SimStage *st = &((const SimProgram *) sim->program)->stages[e->stage];
      double stretch = MAX (0.0, length - g_array_index (st->xfers, SimXfer, e->item).duration);

      /* A bucket is one layer's share of its reduction, a part one part of a hierarchical
       * collective: slowed when it ends later than its share alone would (exactly then:
       * an unshared link's arithmetic). */
      if (e->flags & BPW_SIM_FLAG_BUCKET || e->part > 0)
        {
          double alone = bpw_simulation_event_alone_s (sim, e);

          stretch = e->end > e->start + alone ? length - alone : 0.0;
        }

      r->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION] += visible;
      r->contention_s += stretch * frac;
      r->layer_s[transfer_bucket (sim, e)][BPW_BOTTLENECK_COMMUNICATION] += visible;
      return;
    }
  t = &g_array_index (sim->plan->stages[e->stage].tasks, BpwPlanTask, e->item);
  c = &t->cost;
  base = c->time_s * t->count;
  ext = MAX (0.0, length - base);
  r->busy_s += visible;
  bucket = e->phase == BPW_PHASE_OPTIMIZER ? BPW_LAYER_OPTIMIZER : t->layer_type;
  r->layer_s[bucket][c->bottleneck] += base * frac;
  r->layer_s[bucket][BPW_BOTTLENECK_COMMUNICATION] += ext * frac;
  switch ((BpwPhase) e->phase)
    {
    case BPW_PHASE_OPTIMIZER:
      r->breakdown_s[BPW_BREAKDOWN_OPTIMIZER] += base * frac;
      break;
    case BPW_PHASE_RECOMPUTE:
      r->breakdown_s[BPW_BREAKDOWN_RECOMPUTE] += base * frac;
      break;
    case BPW_PHASE_FORWARD:
    case BPW_PHASE_BACKWARD_ACTIVATION:
    case BPW_PHASE_BACKWARD_WEIGHT:
    case BPW_N_PHASES:
    default:
      r->breakdown_s[BPW_BREAKDOWN_COMPUTE] += c->compute_s * t->count * frac;
      r->breakdown_s[BPW_BREAKDOWN_MEMORY_STALL] += c->stall_s * t->count * frac;
      r->breakdown_s[BPW_BREAKDOWN_LATENCY] += c->overhead_s * t->count * frac;
      break;
    }
  r->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION] += ext * frac;
  r->contention_s += ext * frac;
}

static gint
compare_interval (gconstpointer a, gconstpointer b)
{
  const double *x = a, *y = b;

  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Time in [from, to) during which at least one of @intervals (start, end pairs) runs. */
static double
covered_by (GArray *intervals, double from, double to)
{
  double total = 0, at = from;

  g_array_sort (intervals, compare_interval);
  for (guint i = 0; i < intervals->len; i++)
    {
      const double *iv = &g_array_index (intervals, double, 2 * i);
      double lo = MAX (iv[0], at), hi = MIN (iv[1], to);

      if (hi > lo)
        {
          total += hi - lo;
          at = hi;
        }
    }
  return total;
}

/* One pass over the column's events: each rank's items in issue order. */
static void
sweep (BpwSimulation *sim)
{
  gint64 n = sim->plan->dist->n_stages;
  g_autofree double *covered = g_new0 (double, n);
  g_autofree GArray **tail = g_new (GArray *, n);

  for (gint64 r = 0; r < n; r++)
    tail[r] = g_array_new (FALSE, FALSE, 2 * sizeof (double));
  for (guint64 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, (guint32) i);
      BpwSimRank *r = &sim->ranks[e->rank];
      double visible;

      if (e->kind == BPW_SIM_EVENT_TRANSFER)
        {
          guint tier = BPW_SIM_QUEUE_TIER (e->queue);

          if (tier < BPW_MAPPING_MAX_TIERS)
            r->link_busy_s[tier] += e->end - e->start;
          if (!is_stream (e))
            {
              double iv[2] = { e->start, e->end };

              g_array_append_vals (tail[e->rank], iv, 1);
              continue;
            }
        }
      if (e->start > covered[e->rank])
        gap (sim, r, covered[e->rank], e->start, e);
      visible = MAX (0.0, e->end - MAX (e->start, covered[e->rank]));
      if (visible > 0)
        item (sim, r, e, visible);
      covered[e->rank] = MAX (covered[e->rank], e->end);
    }
  /* After a rank's last item: its own transfers still on a link, then nothing. */
  for (gint64 k = 0; k < n; k++)
    {
      BpwSimRank *r = &sim->ranks[k];

      if (sim->step_time_s > covered[k])
        {
          double comm = covered_by (tail[k], covered[k], sim->step_time_s);

          r->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION] += comm;
          r->breakdown_s[BPW_BREAKDOWN_BUBBLE] += sim->step_time_s - covered[k] - comm;
          r->layer_s[BPW_LAYER_OTHER][BPW_BOTTLENECK_COMMUNICATION] += comm;
          r->layer_s[BPW_LAYER_OTHER][BPW_BOTTLENECK_BUBBLE] += sim->step_time_s - covered[k] -
                                                               comm;
        }
      g_array_unref (tail[k]);
    }
}

/* The analytic evaluation's slowest stage (its per-micro-batch time), so that the two
 * breakdowns describe the same rank. */
static gint64
reference_stage (const BpwPlan *plan)
{
  gint64 best = 0;
  double best_time = -1;

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      BpwStageTotals st;
      double t;

      bpw_stage_totals_from_plan (plan, s, &st);
      t = st.compute + st.stall + st.overhead + st.recompute + st.comm_exposed;
      if (t > best_time)
        best_time = t, best = s;
    }
  return best;
}

static void
critical_path (BpwSimulation *sim)
{
  guint32 last = BPW_SIM_NONE;
  double end = -1;

  for (guint64 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, (guint32) i);

      if (e->end >= end)
        end = e->end, last = (guint32) i;
    }
  g_array_set_size (sim->critical_path, 0);
  /* Predecessors are created before their successors, so the walk ends. */
  while (last != BPW_SIM_NONE)
    {
      g_array_append_val (sim->critical_path, last);
      last = bpw_simulation_event (sim, last)->pred;
    }
  for (guint i = 0, j = sim->critical_path->len; i + 1 < j; i++, j--)
    {
      guint32 *path = (guint32 *) sim->critical_path->data;
      guint32 tmp = path[i];

      path[i] = path[j - 1];
      path[j - 1] = tmp;
    }
}

void
_bpw_simulation_compute_metrics (BpwSimulation *sim)
{
  gint64 n = sim->plan->dist->n_stages;

  sim->ranks = g_new0 (BpwSimRank, n);
  sweep (sim);
  sim->reference_rank = reference_stage (sim->plan);
  critical_path (sim);
}

double
bpw_simulation_bubble_fraction (const BpwSimulation *sim)
{
  if (sim->step_time_s <= 0)
    return 0;
  return sim->ranks[sim->reference_rank].breakdown_s[BPW_BREAKDOWN_BUBBLE] / sim->step_time_s;
}

/* Energy as BpwEvaluation's convention (bpw-power-step.h): idle power over the step,
 * dynamic energy from the tasks' FLOPs, bytes and wire bytes (or TDP − idle while busy);
 * a power cap stretches the step's compute-bound time. The timeline stays at full clocks:
 * the throttle is in the step's figures, not in the events. */
static void
energy (const BpwSimulation *sim, BpwEvaluation *out)
{
  const BpwPlan *plan = sim->plan;
  const BpwBlueprint *bp = plan->blueprint;
  double m = (double) plan->micro_batches, devices = (double) plan->devices;
  double dynamic = 0, busy = 0;
  gboolean known = TRUE;
  BpwPowerStep power;

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      BpwStageTotals st;
      double ranks = (double) (plan->dist->parallel.tp * plan->dist->parallel.dp);

      bpw_stage_totals_from_plan (plan, s, &st);
      busy += st.busy * m * ranks;
      if (isnan (st.energy) || isnan (st.energy_step))
        known = FALSE;
      else
        dynamic += (st.energy * m + st.energy_step) * ranks;
    }
  if (bpw_power_step (bp->idle_power.set ? bp->idle_power.value : NAN,
                      bp->tdp.set ? bp->tdp.value : NAN,
                      bp->power_cap.set ? bp->power_cap.value : NAN, devices, out->step_time_s,
                      known ? dynamic : NAN, busy, &power) && power.throttle_s > 0)
    {
      double scale = out->step_time_s / power.step_s;

      out->step_time_s = power.step_s;
      out->breakdown_s[BPW_BREAKDOWN_COMPUTE] += power.throttle_s;
      out->mfu *= scale;
      out->hfu *= scale;
      out->tokens_per_s *= scale;
      if (!isnan (out->ttft_s))
        out->ttft_s = power.step_s;
      if (!isnan (out->tpot_s))
        out->tpot_s = power.step_s;
    }
  out->energy_j = power.energy_j;
  out->average_power_w = power.average_power_w;
}

void
bpw_simulation_evaluation (const BpwSimulation *sim,
                           const BpwEvaluation *analytic,
                           BpwEvaluation       *out)
{
  const BpwSimRank *ref = &sim->ranks[sim->reference_rank];
  double step = sim->step_time_s, scale = step > 0 ? analytic->step_time_s / step : 0;
  double layer_time[BPW_N_LAYER_TYPES] = { 0 }, layer_stall[BPW_N_LAYER_TYPES] = { 0 };
  double classes[BPW_N_BOTTLENECKS] = { 0 }, best = -1, tokens_per_step;
  gint64 n_stages = sim->plan->dist->n_stages;
  guint layer;

  *out = *analytic;
  out->step_time_s = step;
  memcpy (out->breakdown_s, ref->breakdown_s, sizeof out->breakdown_s);
  /* Same numerators and denominators as the analytic step, over the simulated time. */
  out->mfu = analytic->mfu * scale;
  out->hfu = analytic->hfu * scale;
  out->tokens_per_s = analytic->tokens_per_s * scale;
  tokens_per_step = analytic->tokens_per_s * analytic->step_time_s;
  if (!isnan (analytic->ttft_s))
    out->ttft_s = step;
  if (!isnan (analytic->tpot_s))
    out->tpot_s = step;
  out->slowest_stage = sim->reference_rank;

  out->peak_bytes = 0;
  for (gint64 s = 0; s < sim->plan->dist->n_stages; s++)
    if (sim->memory[s].peak > out->peak_bytes)
      out->peak_bytes = sim->memory[s].peak, out->peak_stage = s;

  for (guint64 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, (guint32) i);
      const BpwPlanTask *t;

      if (e->kind != BPW_SIM_EVENT_TASK)
        continue;
      t = &g_array_index (sim->plan->stages[e->stage].tasks, BpwPlanTask, e->item);
      layer = e->phase == BPW_PHASE_OPTIMIZER ? BPW_LAYER_OPTIMIZER : t->layer_type;
      layer_time[layer] += e->end - e->start;
      layer_stall[layer] += t->cost.stall_s * t->count;
    }
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    out->stall_fraction[l] = layer_time[l] > 0 ? layer_stall[l] / layer_time[l] : NAN;

  /* By layer type: the mean of the column's ranks, each standing for its stage's tp·dp. */
  memset (out->layer_class_s, 0, sizeof out->layer_class_s);
  for (gint64 k = 0; k < n_stages; k++)
    for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
      for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
        out->layer_class_s[b][c] += sim->ranks[k].layer_s[b][c] / (double) n_stages;
  bpw_evaluation_set_layer_mfu (out);

  out->comm_link_s = 0;
  for (guint t = 0; t < BPW_MAPPING_MAX_TIERS; t++)
    out->comm_link_s += ref->link_busy_s[t];
  energy (sim, out);

  classes[BPW_BOTTLENECK_COMPUTE] = out->breakdown_s[BPW_BREAKDOWN_COMPUTE] +
                                    out->breakdown_s[BPW_BREAKDOWN_RECOMPUTE] +
                                    out->breakdown_s[BPW_BREAKDOWN_OPTIMIZER];
  classes[BPW_BOTTLENECK_MEMORY] = out->breakdown_s[BPW_BREAKDOWN_MEMORY_STALL];
  classes[BPW_BOTTLENECK_LATENCY] = out->breakdown_s[BPW_BREAKDOWN_LATENCY];
  classes[BPW_BOTTLENECK_COMMUNICATION] = out->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION];
  classes[BPW_BOTTLENECK_BUBBLE] = out->breakdown_s[BPW_BREAKDOWN_BUBBLE];
  for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
    if (classes[c] > best)
      best = classes[c], out->bottleneck = c;
  if (out->peak_bytes > out->capacity_bytes)
    out->bottleneck = BPW_BOTTLENECK_CAPACITY;

  out->tokens_per_joule = out->energy_j > 0 ? tokens_per_step / out->energy_j : NAN;
}

void
bpw_simulation_difference (const BpwSimulation *sim,
                           const BpwEvaluation *analytic,
                           BpwSimDifference    *out)
{
  const BpwSimRank *ref = &sim->ranks[sim->reference_rank];
  const double *s = ref->breakdown_s, *a = analytic->breakdown_s;

  memset (out, 0, sizeof *out);
  out->analytic_step_s = analytic->step_time_s;
  out->difference_s = sim->step_time_s - analytic->step_time_s;
  out->bubble_s = s[BPW_BREAKDOWN_BUBBLE] - a[BPW_BREAKDOWN_BUBBLE];
  out->contention_s = ref->contention_s;
  out->overlap_s = s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION] - ref->contention_s -
                   a[BPW_BREAKDOWN_EXPOSED_COMMUNICATION];
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    if (b != BPW_BREAKDOWN_BUBBLE && b != BPW_BREAKDOWN_EXPOSED_COMMUNICATION)
      out->work_s += s[b] - a[b];
}
