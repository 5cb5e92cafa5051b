/* bpw-evaluation.c — from costed stages to the step: time, breakdown, MFU, stalls, energy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-evaluation"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-evaluation.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-power-step.h"

static const char * const breakdown_names[BPW_N_BREAKDOWNS] = {
  "compute", "memory_stall", "latency", "exposed_communication", "bubble", "recompute",
  "optimizer",
};

const char *
bpw_breakdown_to_string (BpwBreakdown breakdown)
{
  g_return_val_if_fail (breakdown < BPW_N_BREAKDOWNS, "?");
  return breakdown_names[breakdown];
}

const char *
bpw_layer_bucket_to_string (guint bucket)
{
  g_return_val_if_fail (bucket < BPW_N_LAYER_BUCKETS, "?");
  return bucket == BPW_LAYER_OTHER ? "other" : bpw_layer_type_to_string (bucket);
}

const char *
bpw_layer_bucket_display_name (guint bucket)
{
  static const char * const display[BPW_N_LAYER_BUCKETS] = {
    [BPW_LAYER_EMBEDDING] = N_("Embedding"), [BPW_LAYER_ATTENTION] = N_("Attention"),
    /* Translators: the feed-forward block of a transformer layer */
    [BPW_LAYER_MLP] = N_("MLP"),
    /* Translators: mixture of experts */
    [BPW_LAYER_MOE] = N_("MoE"), [BPW_LAYER_NORM] = N_("Norm"),
    /* Translators: the output projection onto the vocabulary */
    [BPW_LAYER_HEAD] = N_("Head"), [BPW_LAYER_LOSS] = N_("Loss"),
    [BPW_LAYER_OPTIMIZER] = N_("Optimizer"),
    /* Translators: the image encoder and projector of a multimodal model */
    [BPW_LAYER_VISION] = N_("Vision"),
    /* Translators: a decoder layer's attention to the image tokens (Llama 3.2 Vision) */
    [BPW_LAYER_CROSS_ATTENTION] = N_("Cross-attention"),
    /* Translators: the part of a step no layer's operations take: pipeline bubble,
     * pipeline sends, data-parallel traffic */
    [BPW_LAYER_OTHER] = N_("Other"),
  };

  g_return_val_if_fail (bucket < BPW_N_LAYER_BUCKETS, "?");
  return _(display[bucket]);
}

double
bpw_evaluation_layer_time (const BpwEvaluation *eval,
                           guint                bucket)
{
  double time = 0;

  g_return_val_if_fail (bucket < BPW_N_LAYER_BUCKETS, 0);
  for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
    time += eval->layer_class_s[bucket][c];
  return time;
}

BpwBottleneck
bpw_evaluation_layer_bottleneck (const BpwEvaluation *eval,
                                 guint                bucket)
{
  BpwBottleneck best = BPW_BOTTLENECK_COMPUTE;

  g_return_val_if_fail (bucket < BPW_N_LAYER_BUCKETS, best);
  for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
    if (eval->layer_class_s[bucket][c] > eval->layer_class_s[bucket][best])
      best = c;
  return best;
}

void
bpw_evaluation_set_layer_mfu (BpwEvaluation *eval)
{
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    {
      double time = bpw_evaluation_layer_time (eval, b);
      double flops = b < BPW_N_LAYER_TYPES ? eval->layer_model_flops[b] : 0;

      eval->layer_mfu[b] = NAN;
      if (time > 0 && eval->job_peak_flops > 0)
        eval->layer_mfu[b] = flops / (time * eval->job_peak_flops);
    }
}

static double
sourced_or_nan (const BpwSourced *v)
{
  return v->set ? v->value : NAN;
}

void
bpw_step_context_init (BpwStepContext     *ctx,
                       const BpwBlueprint *bp,
                       const BpwScenario  *scenario,
                       const BpwParallel  *parallel,
                       gboolean            dp_overlap,
                       BpwPrecision        precision,
                       gint64              micro_batches,
                       double              model_flops,
                       double              tokens_per_step)
{
  int hbm = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);

  *ctx = (BpwStepContext) {
    .micro_batches = MAX (micro_batches, 1),
    .pp = parallel->pp,
    .interleave = parallel->schedule == BPW_SCHEDULE_INTERLEAVED
                  ? MAX (parallel->interleave, 1) : 1,
    .schedule = parallel->schedule,
    .devices = bpw_parallel_devices (parallel),
    .phase = scenario->phase,
    .dp_overlap = dp_overlap,
    .peak_flops = bpw_blueprint_peak_flops (bp, BPW_ENGINE_MATRIX, precision),
    .model_flops = model_flops,
    .tokens_per_step = tokens_per_step,
    .sequences_per_step = (double) scenario->global_batch,
    .capacity = hbm >= 0 ? bp->memory[hbm].capacity.value : 0,
    .idle_power = sourced_or_nan (&bp->idle_power),
    .tdp = sourced_or_nan (&bp->tdp),
    .power_cap = sourced_or_nan (&bp->power_cap),
    .legal = TRUE,
    .fits = TRUE,
  };
}

static double
energy_of_task (const BpwPlan *plan, const BpwPlanTask *t)
{
  const BpwBlueprint *bp = plan->blueprint;
  /* A matmul the precision policy runs in another precision costs that precision's energy
   * per FLOP where the blueprint states one (2:4 sparse: the dense FLOPs at that figure). */
  const BpwSourced *ef = t->precision < BPW_N_PRECISIONS && bp->energy_per_flop[t->precision].set
                         ? &bp->energy_per_flop[t->precision]
                         : &bp->energy_per_flop[plan->precision];
  double e = 0;

  if (!ef->set)
    return NAN;
  e += t->flops * ef->value;
  /* Device and host traffic; on-chip movement is in the energy per FLOP. */
  for (guint l = 0; l < BPW_N_TRAFFIC_LEVELS; l++)
    {
      const BpwMemoryLevel *level = plan->rates.traffic[l].level;

      if (level != NULL && level->energy_per_byte.set)
        e += t->bytes[l] * level->energy_per_byte.value;
    }
  return e;
}

void
bpw_stage_totals_add_task (const BpwPlan      *plan,
                           const BpwPlanTask  *t,
                           double              scale,
                           BpwStageTotals     *st)
{
  const BpwTaskCost *c = &t->cost;
  double count = t->count * scale;
  double time = c->time_s * count;
  double energy = energy_of_task (plan, t) * count;

  if (t->engine == BPW_ENGINE_MATRIX &&
      (t->primitive == BPW_PRIM_MATMUL || t->primitive == BPW_PRIM_BATCHED_MATMUL))
    st->matmul_flops += (t->flops - t->padding_flops) * count;
  switch (bpw_stage_totals_book_time (st, t->phase, t->layer_type, c->bottleneck, time))
    {
    case BPW_BOOKED_OPTIMIZER:
      st->energy_step += energy;
      st->layer_stall[BPW_LAYER_OPTIMIZER] += c->stall_s * count;
      return;
    case BPW_BOOKED_WORK:
      st->compute += c->compute_s * count;
      st->stall += c->stall_s * count;
      st->overhead += c->overhead_s * count;
      break;
    case BPW_BOOKED_RECOMPUTE:
    default:
      break;
    }
  st->energy += energy;
  st->layer_stall[t->layer_type] += c->stall_s * count;
}

BpwBookedAs
bpw_stage_totals_book_time (BpwStageTotals *st,
                            BpwPhase        phase,
                            BpwLayerType    layer_type,
                            BpwBottleneck   bottleneck,
                            double          time)
{
  st->busy += time;
  switch (phase)
    {
    case BPW_PHASE_OPTIMIZER:
      st->optimizer += time;
      st->optimizer_class[bottleneck] += time;
      st->layer_time[BPW_LAYER_OPTIMIZER] += time;
      return BPW_BOOKED_OPTIMIZER;
    case BPW_PHASE_RECOMPUTE:
      st->recompute += time;
      st->layer_time[layer_type] += time;
      st->layer_class[layer_type][bottleneck] += time;
      return BPW_BOOKED_RECOMPUTE;
    case BPW_PHASE_BACKWARD_ACTIVATION:
    case BPW_PHASE_BACKWARD_WEIGHT:
      st->backward += time;
      if (phase == BPW_PHASE_BACKWARD_WEIGHT)
        st->backward_weight += time;
      break;
    case BPW_PHASE_FORWARD:
      st->forward += time;
      break;
    case BPW_N_PHASES:
    default:
      break;
    }
  st->layer_time[layer_type] += time;
  st->layer_class[layer_type][bottleneck] += time;
  return BPW_BOOKED_WORK;
}

void
bpw_stage_totals_add_transfer (const BpwTier         *tier,
                               const BpwPlanTransfer *tr,
                               double                 scale,
                               BpwStageTotals        *st)
{
  double count = tr->count * scale;
  double e = tier->energy_per_byte.set ? tier->energy_per_byte.value * tr->wire_bytes : 0;

  if (bpw_plan_transfer_per_step (tr->group, tr->kind, tr->phase))
    {
      double usage = tier->processor_usage.set ? tier->processor_usage.value : 0.0;

      st->dp_time += tr->time_s * count;
      st->dp_usage += usage * tr->time_s * count;
      if (bpw_plan_transfer_gathers_update (tr->group, tr->kind, tr->phase))
        {
          st->dp_gather += tr->time_s * count;
          st->dp_gather_usage += usage * tr->time_s * count;
        }
      else if (bpw_plan_transfer_gathers_per_micro_batch (tr->group, tr->kind, tr->phase))
        {
          st->dp_mb_gather += tr->time_s * count;
          st->dp_mb_gather_usage += usage * tr->time_s * count;
        }
      st->energy_step += e * count;
      return;
    }
  st->comm_exposed += tr->exposed_s * count;
  /* Pipeline sends serve the stage boundary, TP and EP collectives a layer's op. */
  if (tr->group == BPW_GROUP_PP)
    st->comm_exposed_pipeline += tr->exposed_s * count;
  else
    st->layer_class[tr->layer_type][BPW_BOTTLENECK_COMMUNICATION] += tr->exposed_s * count;
  if (tr->phase == BPW_PHASE_FORWARD)
    st->comm_exposed_forward += tr->exposed_s * count;
  st->comm_link += tr->time_s * count;
  st->energy += e * count;
}

void
bpw_stage_totals_from_plan (const BpwPlan  *plan,
                            gint64          stage,
                            BpwStageTotals *st)
{
  const BpwPlanStage *ps = &plan->stages[stage];

  memset (st, 0, sizeof *st);
  st->copies = 1;
  st->memory_stage = stage;
  st->first_stage = stage;
  st->n_layers = plan->dist->stages[stage].n_layers;
  st->ranks = plan->dist->parallel.tp * plan->dist->parallel.cp * plan->dist->parallel.dp;
  st->memory = ps->memory.device_total;
  for (guint i = 0; i < ps->tasks->len; i++)
    bpw_stage_totals_add_task (plan, &g_array_index (ps->tasks, BpwPlanTask, i), 1.0, st);
  for (guint i = 0; i < ps->transfers->len; i++)
    {
      const BpwPlanTransfer *tr = &g_array_index (ps->transfers, BpwPlanTransfer, i);

      bpw_stage_totals_add_transfer (&plan->blueprint->tiers[tr->tier], tr, 1.0, st);
    }
}

/* The time a stage spends in one micro-batch's forward, or backward with its recompute:
 * the windows DP traffic on its own link can hide behind, stalls on other links included. */
static double
forward_window (const BpwStageTotals *st)
{
  return st->forward + st->comm_exposed_forward;
}

static double
backward_window (const BpwStageTotals *st)
{
  return st->backward + st->recompute + st->comm_exposed - st->comm_exposed_forward;
}

/* Of @time on a link, the part hidden behind a window of per-layer work: every layer's
 * bucket but one, and no more than the window. */
static double
hidden_behind (double window, double time, double layers)
{
  return MIN (window, time) * (layers - 1.0) / layers;
}

/* DP traffic of a stage not hidden. With DP overlap the gradient reduction runs behind
 * the last micro-batch's backward, bucket by bucket, except the bucket of the layer that
 * backward ends with; the ZeRO 1/2 gather of the updated weights runs behind the next
 * step's first forward (Megatron's overlapped parameter gather), except the bucket of the
 * layer that forward starts with. Hidden traffic still slows compute by its tier's
 * processor usage: DP's own tier, and the PP tier of the tied-embedding all-reduce. */
static double
dp_exposed (const BpwStepContext *ctx, const BpwStageTotals *st)
{
  double layers = (double) MAX (st->n_layers, 1);
  double reduce = st->dp_time - st->dp_gather - st->dp_mb_gather;
  double reduce_usage = st->dp_usage - st->dp_gather_usage - st->dp_mb_gather_usage;
  double hidden_reduce, hidden_gather, exposed;

  if (!ctx->dp_overlap || ctx->phase != BPW_WORKLOAD_TRAIN || st->dp_time <= 0)
    return st->dp_time - st->dp_mb_gather;
  hidden_reduce = reduce > 0 ? hidden_behind (backward_window (st), reduce, layers) : 0;
  hidden_gather = st->dp_gather > 0 ? hidden_behind (forward_window (st), st->dp_gather, layers)
                                    : 0;
  exposed = reduce + st->dp_gather - hidden_reduce - hidden_gather;
  if (reduce > 0)
    exposed += reduce_usage / reduce * hidden_reduce;
  if (st->dp_gather > 0)
    exposed += st->dp_gather_usage / st->dp_gather * hidden_gather;
  return exposed;
}

/* ZeRO 3: each micro-batch gathers the stage's weights before its forward and, in
 * training, before its backward; each gather runs while the segment before it does (the
 * other pass, or with v interleaved chunks that pass's chunk) and stalls the stage for
 * what it does not hide. Returns the stall per micro-batch, and in @first what the step's
 * first gather, with nothing before it, adds once. */
static double
mb_gather_exposed (const BpwStepContext *ctx, const BpwStageTotals *st, double *first)
{
  gboolean train = ctx->phase == BPW_WORKLOAD_TRAIN;
  double per_mb = train ? 2.0 : 1.0, v = (double) MAX (ctx->interleave, 1);
  double g, usage, before_forward, before_backward, hidden, exposed;

  *first = 0;
  if (st->dp_mb_gather <= 0)
    return 0;
  g = st->dp_mb_gather / (per_mb * (double) ctx->micro_batches);
  usage = st->dp_mb_gather_usage / st->dp_mb_gather;
  before_forward = (train ? backward_window (st) : forward_window (st)) / v;
  before_backward = forward_window (st) / v;
  hidden = MIN (g, before_forward) + (train ? MIN (g, before_backward) : 0);
  exposed = per_mb * g - hidden;
  *first = MIN (g, before_forward);
  return exposed + usage * hidden;
}

static double
stage_time (const BpwStageTotals *st, double gather_stall)
{
  return st->compute + st->stall + st->overhead + st->recompute + st->comm_exposed +
         gather_stall;
}

/* One rank of @st over the step of @step seconds, split as the conventions say (by layer
 * type, then "other"), added @weight times to @device_s. @gather is the stage's ZeRO-3
 * stall per micro-batch, @exposed its exposed DP time per step. */
static void
add_stage_layers (const BpwStepContext *ctx, const BpwStageTotals *st, double gather,
                  double exposed, double step, double weight,
                  double device_s[BPW_N_LAYER_BUCKETS][BPW_N_BOTTLENECKS])
{
  double m = (double) ctx->micro_batches, used = 0, part;

  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    for (guint c = 0; c < BPW_N_WORK_CLASSES; c++)
      {
        part = m * st->layer_class[l][c];
        if (l == BPW_LAYER_OPTIMIZER)
          part += st->optimizer_class[c];
        device_s[l][c] += weight * part;
        used += part;
      }
  part = m * (st->comm_exposed_pipeline + gather) + exposed;
  device_s[BPW_LAYER_OTHER][BPW_BOTTLENECK_COMMUNICATION] += weight * part;
  used += part;
  /* The rest of the step the rank waits: for the slowest stage, the pipeline to fill and
   * drain, and the tail of another stage. */
  device_s[BPW_LAYER_OTHER][BPW_BOTTLENECK_BUBBLE] += weight * MAX (0.0, step - used);
}

void
bpw_evaluation_combine (const BpwStepContext *ctx,
                        const BpwStageTotals *stages,
                        gint64                n_stages,
                        BpwEvaluation        *out)
{
  const BpwStageTotals *slow = &stages[0];

  double m = (double) ctx->micro_batches, t_mb = -1, bubble, tail = 0, tail_opt = 0, tail_dp = 0;
  double fill_sum = 0, fill_max = 0;
  double busy = 0, dynamic = 0, peak = 0, hw = 0, best = -1;
  double layer_time[BPW_N_LAYER_TYPES] = { 0 }, layer_stall[BPW_N_LAYER_TYPES] = { 0 };
  gint64 peak_stage = 0;
  gboolean known_energy = TRUE;

  memset (out, 0, sizeof *out);
  for (gint64 s = 0; s < n_stages; s++)
    {
      const BpwStageTotals *st = &stages[s];
      double first, copies = (double) MAX (st->copies, 1), exposed, t, gather, fill;

      gather = mb_gather_exposed (ctx, st, &first);
      t = stage_time (st, gather);
      exposed = dp_exposed (ctx, st) + first;
      if (t > t_mb)
        slow = st, t_mb = t, out->slowest_stage = st->first_stage;
      /* What a micro-batch spends on this stage while the pipeline fills and drains.
       * ZB-H1 (Qi et al. 2023) fills that bubble with the weight-gradient passes W:
       * (p − 1)(T_F + T_B − T_W) instead of 1F1B's (p − 1)(T_F + T_B + T_W). */
      fill = t - gather;
      if (ctx->schedule == BPW_SCHEDULE_ZB_H1)
        fill = MAX (fill - 2.0 * st->backward_weight, 0.0);
      fill_sum += fill * copies;
      fill_max = MAX (fill_max, fill);
      if (st->optimizer + exposed > tail)
        {
          tail = st->optimizer + exposed;
          tail_opt = st->optimizer;
          tail_dp = exposed;
        }
      if (st->memory > peak)
        peak = st->memory, peak_stage = st->memory_stage;
      for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
        {
          layer_time[l] += st->layer_time[l] * copies;
          layer_stall[l] += st->layer_stall[l] * copies;
        }
      hw += st->matmul_flops * m * (double) st->ranks * copies;
      busy += (st->busy * m) * (double) st->ranks * copies;
      if (isnan (st->energy) || isnan (st->energy_step))
        known_energy = FALSE;
      else
        dynamic += (st->energy * m + st->energy_step) * (double) st->ranks * copies;
    }

  /* The pipeline fills and drains through every stage's work: as in a flow shop, the step
   * is the slowest stage's m micro-batches plus one micro-batch through every other stage,
   * (p − 1)·t for even stages, shorter when only some stages are heavier. Interleaving
   * fills it at chunk size, 1/v of that. ZeRO 3's gathers do not lengthen it, as a stage
   * waiting for its first input, or for the last gradient, fetches its weights meanwhile
   * (the simulator's prefetch). */
  bubble = (fill_sum - fill_max) / (double) ctx->interleave;
  out->breakdown_s[BPW_BREAKDOWN_COMPUTE] = m * slow->compute;
  out->breakdown_s[BPW_BREAKDOWN_MEMORY_STALL] = m * slow->stall;
  out->breakdown_s[BPW_BREAKDOWN_LATENCY] = m * slow->overhead;
  out->breakdown_s[BPW_BREAKDOWN_RECOMPUTE] = m * slow->recompute;
  out->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION] =
    m * (t_mb - slow->compute - slow->stall - slow->overhead - slow->recompute) + tail_dp;
  out->breakdown_s[BPW_BREAKDOWN_BUBBLE] = bubble;
  out->breakdown_s[BPW_BREAKDOWN_OPTIMIZER] = tail_opt;
  out->step_time_s = m * t_mb + bubble + tail;
  out->comm_link_s = m * slow->comm_link + slow->dp_time;

  /* Energy, and the power cap's throttle, which stretches the step's compute-bound time
   * before the rates below are taken over it. */
  {
    BpwPowerStep power;

    if (bpw_power_step (ctx->idle_power, ctx->tdp, ctx->power_cap, (double) ctx->devices,
                        out->step_time_s, known_energy ? dynamic : NAN, busy, &power))
      {
        out->step_time_s = power.step_s;
        out->breakdown_s[BPW_BREAKDOWN_COMPUTE] += power.throttle_s;
      }
    out->energy_j = power.energy_j;
    out->average_power_w = power.average_power_w;
  }

  out->legal = ctx->legal;
  out->model_flops = ctx->model_flops;
  out->hardware_flops = hw;
  if (out->step_time_s > 0 && ctx->peak_flops > 0)
    {
      double denominator = out->step_time_s * (double) ctx->devices * ctx->peak_flops;

      out->mfu = ctx->model_flops / denominator;
      out->hfu = hw / denominator;
    }
  out->peak_bytes = peak;
  out->peak_stage = peak_stage;
  out->capacity_bytes = ctx->capacity;
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    out->stall_fraction[l] = layer_time[l] > 0 ? layer_stall[l] / layer_time[l] : NAN;

  /* By layer type: every stage's ranks over the whole step, as a mean per device. */
  {
    double weights = 0;

    for (gint64 s = 0; s < n_stages; s++)
      {
        const BpwStageTotals *st = &stages[s];
        double first, gather = mb_gather_exposed (ctx, st, &first);
        double weight = (double) MAX (st->ranks, 1) * (double) MAX (st->copies, 1);

        add_stage_layers (ctx, st, gather, dp_exposed (ctx, st) + first, out->step_time_s,
                          weight, out->layer_class_s);
        weights += weight;
      }
    for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
      for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
        out->layer_class_s[b][c] /= weights;
    memcpy (out->layer_model_flops, ctx->layer_model_flops, sizeof out->layer_model_flops);
    out->job_peak_flops = (double) ctx->devices * ctx->peak_flops;
    bpw_evaluation_set_layer_mfu (out);
  }

  /* The dominant class: recompute and the optimizer are engine work, so they count as
   * compute; a plan that does not fit is capacity-bound whatever its time says. */
  {
    double classes[BPW_N_BOTTLENECKS] = { 0 };

    classes[BPW_BOTTLENECK_COMPUTE] = out->breakdown_s[BPW_BREAKDOWN_COMPUTE] +
                                      out->breakdown_s[BPW_BREAKDOWN_RECOMPUTE] +
                                      out->breakdown_s[BPW_BREAKDOWN_OPTIMIZER];
    classes[BPW_BOTTLENECK_MEMORY] = out->breakdown_s[BPW_BREAKDOWN_MEMORY_STALL];
    classes[BPW_BOTTLENECK_LATENCY] = out->breakdown_s[BPW_BREAKDOWN_LATENCY];
    classes[BPW_BOTTLENECK_COMMUNICATION] = out->breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION];
    classes[BPW_BOTTLENECK_BUBBLE] = out->breakdown_s[BPW_BREAKDOWN_BUBBLE];
    out->bottleneck = BPW_BOTTLENECK_COMPUTE;
    for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
      if (classes[c] > best)
        best = classes[c], out->bottleneck = c;
    if (!ctx->fits)
      out->bottleneck = BPW_BOTTLENECK_CAPACITY;
  }

  out->ttft_s = NAN;
  out->tpot_s = NAN;
  if (out->step_time_s > 0)
    out->tokens_per_s = ctx->tokens_per_step / out->step_time_s;
  if (ctx->phase == BPW_WORKLOAD_PREFILL)
    out->ttft_s = out->step_time_s;
  else if (ctx->phase == BPW_WORKLOAD_DECODE)
    out->tpot_s = out->step_time_s;
  out->tokens_per_joule = out->energy_j > 0
                          ? ctx->tokens_per_step / out->energy_j : NAN;
}

void
bpw_evaluation_from_plan (const BpwPlan *plan,
                          BpwEvaluation *out)
{
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;
  g_autofree BpwStageTotals *stages = g_new0 (BpwStageTotals, dist->n_stages);
  BpwStepContext ctx;
  BpwU128 layer_flops[BPW_N_LAYER_TYPES], model_flops = 0;
  double tokens = (double) g->tokens_per_micro_batch * (double) g->micro_batches;

  /* Decode produces one token per sequence per step, whatever the context. */
  if (g->scenario.phase == BPW_WORKLOAD_DECODE)
    tokens = (double) g->scenario.global_batch;
  bpw_work_graph_model_flops_by_layer_type (g, layer_flops);
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    model_flops += layer_flops[l];
  bpw_step_context_init (&ctx, plan->blueprint, &g->scenario, &dist->parallel,
                         plan->mapping.dp_overlap, plan->precision, plan->micro_batches,
                         bpw_u128_to_double (model_flops), tokens);
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    ctx.layer_model_flops[l] = bpw_u128_to_double (layer_flops[l]);
  ctx.capacity = plan->capacity;
  ctx.legal = plan->legal;
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      bpw_stage_totals_from_plan (plan, s, &stages[s]);
      if (stages[s].memory > plan->capacity)
        ctx.fits = FALSE;
    }
  bpw_evaluation_combine (&ctx, stages, dist->n_stages, out);
}

gboolean
bpw_evaluation_check_finite (const BpwEvaluation *eval,
                             const char          *blueprint_name,
                             GError             **error)
{
  /* Figures that are always defined, then those where NaN means "none". */
  const struct { const char *name; double value; gboolean nan_ok; } figures[] = {
    { N_("step time"), eval->step_time_s, FALSE },
    { N_("MFU"), eval->mfu, FALSE },
    { N_("HFU"), eval->hfu, FALSE },
    { N_("model FLOPs"), eval->model_flops, FALSE },
    { N_("hardware FLOPs"), eval->hardware_flops, FALSE },
    { N_("peak memory"), eval->peak_bytes, FALSE },
    { N_("communication time"), eval->comm_link_s, FALSE },
    { N_("energy"), eval->energy_j, TRUE },
    { N_("throughput"), eval->tokens_per_s, FALSE },
    { N_("time to first token"), eval->ttft_s, TRUE },
    { N_("time per output token"), eval->tpot_s, TRUE },
    { N_("average power"), eval->average_power_w, TRUE },
    { N_("tokens per joule"), eval->tokens_per_joule, TRUE },
  };

  g_return_val_if_fail (eval != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (figures); i++)
    if (isinf (figures[i].value) || (isnan (figures[i].value) && !figures[i].nan_ok))
      {
        g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                     _("the %s came out as %s: a rate or size of blueprint “%s” is too small "
                       "or too large to price"), _(figures[i].name),
                     isnan (figures[i].value) ? _("not a number") : _("infinite"),
                     blueprint_name != NULL ? blueprint_name : "?");
        return FALSE;
      }
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    if (!isfinite (eval->breakdown_s[b]))
      {
        g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                     _("the %s time came out as %s: a rate or size of blueprint “%s” is too "
                       "small or too large to price"), bpw_breakdown_to_string (b),
                     isnan (eval->breakdown_s[b]) ? _("not a number") : _("infinite"),
                     blueprint_name != NULL ? blueprint_name : "?");
        return FALSE;
      }
  return TRUE;
}
