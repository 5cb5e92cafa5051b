/* bpw-plan-memory.c — what each stage keeps on device and on host, and whether it fits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The distribution's per-rank memory is the starting point. Binding then removes stored
 * activations that a fusion keeps on chip (fused attention stores no s² tensors), moves
 * categories placed on the host there (keeping two layers' worth on device as the
 * double buffer that streams them), and adds the largest forward or backward task's
 * working set and the largest collective buffer. The result is a safe bound on the peak;
 * the simulation refines it with lifetimes.
 *
 * A training step's peak is the larger of two moments that never overlap:
 * - forward and backward: the state, the activations below, the largest working set of a
 *   forward or backward task and the largest collective buffer;
 * - the optimizer step: it updates weights, moments and master copy in place, reading
 *   the gradients, after backward has freed every activation (and the fp32 logits), so
 *   its traffic is no working set. What it holds beyond the state is its scratch: a stack
 *   whose Adam is PyTorch's foreach (or per-tensor) implementation computes
 *   sqrt(exp_avg_sq) into a new fp32 tensor per parameter (one list over the rank's
 *   parameters: 4 B per parameter it updates, a bound for per-tensor's one tensor at a
 *   time); a fused update holds none. Under fp32 master weights with autocast the weights
 *   in the compute dtype are autocast's working copies, cached in forward and released
 *   as backward consumes them: not live during the optimizer step. The last backward's
 *   pipeline send may still be in flight: the largest collective buffer is kept.
 * Adding the optimizer's 28 B of traffic per parameter to the activations put the static
 * peak of Llama 3 8B cut to four layers (1 × 2048, no recompute) at 48.99 GiB where the
 * stack holds about 36 GiB.
 *
 * Activations live at a stage's peak, per rank (tensors already split by TP, SP and CP, and
 * a stage's own layers under PP):
 * - training, every micro-batch in flight under the schedule: the tensors backward reads
 *   (checkpoints) of each layer; with selective or full recompute, one layer's recomputed
 *   copies on top (backward's start of that layer holds them all); with neither, nothing
 *   more (a forward tensor backward does not read is a task's working set);
 * - inference, one micro-batch at a time (a stage runs its micro-batches one after the
 *   other; the others in flight hold their KV cache and their pipeline buffers, tallied
 *   apart): the most that one layer's forward holds at once, its tensors live from their
 *   producer to their last reader in op order, plus what it hands to the next layer;
 * - under fused (flash) attention the attention scores and probabilities (s × s per
 *   head) are produced and consumed inside one kernel, forward, recompute and backward
 *   alike: they are never counted, nor any other tensor a fusion keeps on chip;
 * - a task's working set (its largest operands) adds to training's; in inference a
 *   block's tasks work inside the live set above, and only the embedding's and the
 *   head's are added;
 * - context parallelism adds the other ranks' K/V blocks of one layer; the stack's fp32
 *   logits sit on the last stage.
 * The estimator's template counts its blocks by the same rule
 * (_bpw_plan_layer_live_bytes()), so that both bounds agree.
 */
#define G_LOG_DOMAIN "bpw-plan-memory"

#include "config.h"

#include <math.h>

#include "bpw-i18n.h"
#include "bpw-plan-private.h"
#include "bpw-dist-work-private.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Per-rank bytes of stored activations of one micro-batch that fusion keeps on chip. */
static double
fused_stored_bytes (const BpwPlan *plan, const guint32 *groups, gint64 stage)
{
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;
  double total = 0;

  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);

      if (t->stored == BPW_STORED_CHECKPOINT && t->kind == BPW_TENSOR_ACTIVATION &&
          _bpw_dist_work_stage_of_layer (dist, t->layer) == stage &&
          _bpw_plan_tensor_on_chip (g, groups, t))
        total += (double) _bpw_dist_work_tensor_rank_bytes (dist, t);
    }
  return total;
}

typedef struct
{
  gint32 at;
  double bytes;    /* negative: released after op @at */
} LiveEdge;

static gint
compare_edge (gconstpointer a, gconstpointer b)
{
  const LiveEdge *x = a, *y = b;

  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  return (x->bytes < 0) - (y->bytes < 0);  /* at one op, allocations before releases */
}

double
_bpw_plan_layer_live_bytes (const BpwDistWork *dist,
                            const guint32     *groups,
                            gint32             layer)
{
  const BpwWorkGraph *g = dist->graph;
  gboolean train = g->scenario.phase == BPW_WORKLOAD_TRAIN;
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (LiveEdge));
  double total = 0, carried = 0, now = 0, most = 0;
  gint32 first_op = G_MAXINT32, input_read = -1;

  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);
      BpwRankMemory unused = { 0 };
      guint64 stored = 0, kv = 0, live = 0;
      LiveEdge e;

      if (t->layer != layer)
        continue;
      _bpw_dist_work_account_tensor (dist, t, &unused, &stored, &kv, &live);
      if (live == 0 || _bpw_plan_tensor_on_chip (g, groups, t))
        continue;
      total += (double) live;
      if (train)
        continue;
      e = (LiveEdge) { t->producer, (double) live };
      g_array_append_val (edges, e);
      /* Read by a later layer: live to this layer's end, and into the next. */
      if (t->last_consumer >= 0 &&
          bpw_work_graph_op (g, (guint) t->last_consumer)->layer != layer)
        carried += (double) live;
      else
        {
          e = (LiveEdge) { MAX (t->last_consumer, t->producer), -(double) live };
          g_array_append_val (edges, e);
        }
    }
  if (train)
    return total;
  /* What the layer receives, as much as it hands on (the residual stream), is live from
   * its start to its last read of another layer's activation. */
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (op->layer != layer || op->phase != BPW_PHASE_FORWARD)
        continue;
      first_op = MIN (first_op, (gint32) i);
      for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
        {
          const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);
          const BpwTensor *t = bpw_work_graph_tensor (g, use->tensor);

          if (use->access == BPW_ACCESS_READ && t->kind == BPW_TENSOR_ACTIVATION &&
              t->layer != layer)
            input_read = (gint32) i;
        }
    }
  if (carried > 0 && first_op != G_MAXINT32)
    {
      LiveEdge in = { first_op, carried }, out = { MAX (input_read, first_op), -carried };

      g_array_append_val (edges, in);
      g_array_append_val (edges, out);
    }
  g_array_sort (edges, compare_edge);
  for (guint i = 0; i < edges->len; i++)
    {
      now += g_array_index (edges, LiveEdge, i).bytes;
      most = MAX (most, now);
    }
  return most;
}

/* The live activations the distribution counts for stage @stage (bpw-dist-memory.c: one
 * layer's recomputed copies, or in inference the sum of the largest layer's tensors for
 * every micro-batch in flight), and what the rule above holds instead. */
static void
stage_live_bytes (const BpwPlan *plan, const guint32 *groups, gint64 stage,
                  double *counted, double *held)
{
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;
  const BpwStage *st = &dist->stages[stage];
  gboolean train = g->scenario.phase == BPW_WORKLOAD_TRAIN;
  g_autofree double *sum = g_new0 (double, st->n_layers + 1);
  double largest = 0;

  *held = 0;
  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);
      BpwRankMemory unused = { 0 };
      guint64 stored = 0, kv = 0, live = 0;
      gint64 s, l;

      bpw_dist_work_place_layer (dist, t->layer, &s, NULL, &l);
      if (s != stage || l < 0)
        continue;
      _bpw_dist_work_account_tensor (dist, t, &unused, &stored, &kv, &live);
      sum[l] += (double) live;
    }
  for (gint64 l = 0; l < st->n_layers; l++)
    {
      largest = MAX (largest, sum[l]);
      *held = MAX (*held, _bpw_plan_layer_live_bytes (dist, groups,
                                                      (gint32) bpw_dist_work_stage_layer (dist,
                                                                                          stage,
                                                                                          l)));
    }
  *counted = train ? (g->scenario.recompute != BPW_RECOMPUTE_NONE ? largest : 0)
                   : largest * (double) st->memory.in_flight;
  if (train && g->scenario.recompute == BPW_RECOMPUTE_NONE)
    *held = 0;
}

/* Micro-batches' worth of stored activations a stage holds at its peak. */
double
_bpw_plan_stored_factor (const BpwParallel *p,
                         gint64             micro_batches,
                         gint64             stage,
                         gint64             in_flight)
{
  if (p->schedule == BPW_SCHEDULE_INTERLEAVED && p->interleave > 1)
    return (double) _bpw_dist_work_chunks_in_flight (micro_batches, p->pp, p->interleave,
                                                     stage) / (double) p->interleave;
  return (double) MAX (in_flight, 1);
}

double
_bpw_plan_offload (const BpwBlueprint *bp,
                   const BpwMapping   *mapping,
                   BpwTensorKind       kind,
                   double              bytes,
                   gint64              layers,
                   double             *host)
{
  if (_bpw_plan_traffic_level (bp, mapping, kind) != BPW_TRAFFIC_HOST)
    return bytes;
  *host += bytes;
  return layers > 2 ? bytes * 2.0 / (double) layers : bytes;
}

static double
place (const BpwPlan *plan, BpwTensorKind kind, double bytes, gint64 layers, double *host)
{
  return _bpw_plan_offload (plan->blueprint, &plan->mapping, kind, bytes, layers, host);
}

/* Training state as a stack with fp32 master weights and AMP autocast holds it, beyond what
 * the model's own dtypes give: the weights live in fp32 (the model's weights, in the compute
 * dtype, are the working copies autocast keeps from forward to backward), so an fp32 master
 * copy is added when the model has none (sharded with the optimizer state); gradients accumulate into fp32 .grad; and the loss
 * keeps the logits up-cast to fp32 (tokens × vocab share × 4 B) from forward to backward.
 * Every term is linear in the rank's weight and gradient bytes, so the estimator's template
 * applies the same factors to its parts. */
void
_bpw_plan_stack_memory (const BpwBlueprint *bp,
                        const BpwWorkGraph *g,
                        const BpwParallel  *p,
                        BpwStackMemory     *out)
{
  const BpwStack *stack = &bp->stack;
  const BpwModelSpec *m = &g->spec;

  *out = (BpwStackMemory) { 0, 1.0, 0, 0, FALSE };
  if (!stack->set || g->scenario.phase != BPW_WORKLOAD_TRAIN)
    return;
  {
    BpwOptimizerKind kind = g->scenario.optimizer_set ? g->scenario.optimizer : m->optimizer;
    double shard = p->zero >= 1 && p->zero < 3 ? (double) p->dp * (double) p->cp : 1.0;

    /* Adam's foreach or per-tensor step: sqrt(exp_avg_sq) into a new fp32 tensor for
     * each parameter the rank updates (its shard under ZeRO 1 and 2). SGD's momentum
     * and a fused update work in place. */
    if (stack->has_optimizer && stack->optimizer != BPW_STACK_OPTIMIZER_FUSED &&
        kind == BPW_OPTIMIZER_ADAM)
      out->scratch_per_weight_byte = 4.0 / bpw_dtype_bytes (m->param_dtype) / shard;
  }
  if (g->scenario.dtype == BPW_DTYPE_FP32)
    return;
  if (stack->fp32_master)
    {
      double param = bpw_dtype_bytes (m->param_dtype);
      double grad = bpw_dtype_bytes (m->gradient_dtype);

      /* The master copy is optimizer state: ZeRO 1 and 2 shard it over the data-parallel
       * group (dp × cp) as they shard the moments, while ZeRO 3 has sharded the weights
       * it is counted from already. */
      double shard = p->zero >= 1 && p->zero < 3 ? (double) p->dp * (double) p->cp : 1.0;

      if (m->master_dtype == m->param_dtype && m->param_dtype != BPW_DTYPE_FP32)
        out->master_per_weight_byte = 4.0 / param / shard;
      /* The fp32 master is the parameter autocast casts from, whether the model or the
       * stack brings it: the weights in the compute dtype are its cached copies. */
      out->working_copies = m->param_dtype != BPW_DTYPE_FP32;
      if (m->gradient_dtype != BPW_DTYPE_FP32)
        out->gradient_scale = 4.0 / grad;
    }
  if (stack->fp32_logits)
    out->logits_bytes = (double) g->scenario.micro_batch * (double) g->scenario.seq
                        / (double) p->cp * ceil ((double) m->vocab / (double) p->tp) * 4.0;
}

double
_bpw_plan_optimizer_step_bytes (const BpwStackMemory *sm,
                                double               weights,
                                double               gradients,
                                double               optimizer_state,
                                double               kv_cache,
                                double               scratch,
                                double               communication)
{
  return (sm->working_copies ? 0.0 : weights) + gradients + optimizer_state + kv_cache +
         scratch + communication;
}

static void
stack_state (const BpwPlan *plan, const BpwStage *st, double *weights_master,
             double *gradients, double *activations)
{
  BpwStackMemory sm;

  _bpw_plan_stack_memory (plan->blueprint, plan->dist->graph, &plan->dist->parallel, &sm);
  *weights_master += (double) st->memory.weights * sm.master_per_weight_byte;
  *gradients *= sm.gradient_scale;
  if (st->has_head)
    *activations += sm.logits_bytes;
}

void
_bpw_plan_place_memory (BpwPlan *plan)
{
  const BpwDistWork *dist = plan->dist;
  g_autofree guint32 *groups = _bpw_plan_fusion_groups (dist->graph, plan->mapping.fusion);
  int host_level = bpw_blueprint_first_memory (plan->blueprint, BPW_MEMORY_HOST);
  double host_capacity = host_level >= 0 && plan->blueprint->memory[host_level].capacity.set
                         ? plan->blueprint->memory[host_level].capacity.value : 0;
  double largest[BPW_N_TENSOR_KINDS] = { 0 };

  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      const BpwStage *st = &dist->stages[s];
      const BpwRankMemory *mem = &st->memory;
      BpwPlanStage *ps = &plan->stages[s];
      BpwPlanMemory *pm = &ps->memory;
      gboolean train = dist->graph->scenario.phase == BPW_WORKLOAD_TRAIN;
      gint64 layers = MAX (st->n_layers, 1);
      double host = 0, acts = (double) mem->activations;
      double master = 0, gradients = (double) mem->gradients, scratch = 0, forward_backward;
      BpwStackMemory sm;

      if (train && plan->mapping.fusion != 0)
        acts = MAX (0.0, acts - fused_stored_bytes (plan, groups, s) *
                              _bpw_plan_stored_factor (&dist->parallel,
                                                       dist->micro_batches_per_pipeline, s,
                                                       mem->in_flight));

      {
        double counted, held;

        stage_live_bytes (plan, groups, s, &counted, &held);
        acts = MAX (0.0, acts - counted) + held;
      }

      *pm = (BpwPlanMemory) { 0 };
      stack_state (plan, st, &master, &gradients, &acts);
      _bpw_plan_stack_memory (plan->blueprint, dist->graph, &dist->parallel, &sm);
      /* An optimizer state on the host is updated there, its scratch too. */
      if (_bpw_plan_traffic_level (plan->blueprint, &plan->mapping,
                                   BPW_TENSOR_OPTIMIZER_STATE) != BPW_TRAFFIC_HOST)
        scratch = (double) mem->weights * sm.scratch_per_weight_byte;
      pm->weights = place (plan, BPW_TENSOR_WEIGHT,
                           MAX (0.0, (double) mem->weights -
                                     _bpw_plan_weight_only_stage_saving (plan, s)),
                           layers, &host);
      pm->gradients = place (plan, BPW_TENSOR_GRADIENT, gradients, layers, &host);
      pm->optimizer_state = place (plan, BPW_TENSOR_OPTIMIZER_STATE,
                                     (double) mem->optimizer_state + master, layers, &host);
      pm->activations = place (plan, BPW_TENSOR_ACTIVATION, acts, layers, &host);
      pm->kv_cache = place (plan, BPW_TENSOR_KV_CACHE, (double) mem->kv_cache, layers, &host);

      for (guint i = 0; i < ps->tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (ps->tasks, BpwPlanTask, i);

          /* In inference a block's tasks work on the activations its live set holds
           * already; only the embedding's and the head's are beyond it. The optimizer
           * updates state in place: its traffic is no working set (the rule above). */
          if (t->phase == BPW_PHASE_OPTIMIZER)
            continue;
          if (train || t->layer < 0)
            pm->temporaries = MAX (pm->temporaries,
                                   t->bytes[BPW_TRAFFIC_DEVICE] - t->tiling_bytes);
        }
      /* DP reduces the gradient buffer in place; the others need a receive buffer. */
      for (guint i = 0; i < ps->transfers->len; i++)
        {
          const BpwPlanTransfer *tr = &g_array_index (ps->transfers, BpwPlanTransfer, i);

          if (tr->group != BPW_GROUP_DP)
            pm->communication = MAX (pm->communication, tr->bytes);
        }

      forward_backward = pm->weights + pm->gradients + pm->optimizer_state + pm->activations +
                         pm->kv_cache + pm->temporaries + pm->communication;
      pm->optimizer_step = train ? _bpw_plan_optimizer_step_bytes (&sm, pm->weights,
                                                                   pm->gradients,
                                                                   pm->optimizer_state,
                                                                   pm->kv_cache, scratch,
                                                                   pm->communication)
                                 : 0;
      pm->optimizer_scratch = train ? scratch : 0;
      pm->optimizer_released = train && sm.working_copies ? pm->weights : 0;
      pm->device_total = MAX (forward_backward, pm->optimizer_step);
      pm->host_total = host;
      _bpw_plan_largest_kinds (largest, pm->weights, pm->gradients, pm->optimizer_state,
                               pm->activations, pm->kv_cache, pm->temporaries,
                               pm->communication);

      if (pm->device_total > plan->capacity && pm->optimizer_step > forward_backward)
        _bpw_plan_reason (plan->reasons, _("Pipeline stage %" PRId64 " needs %.2f GiB "
                          "of device memory per device during the optimizer step, but “%s” "
                          "has %.2f GiB: %.2f GiB short (weights %.2f, gradients %.2f, "
                          "optimizer state %.2f, the optimizer's scratch %.2f GiB). Shard "
                          "with ZeRO, use a fused optimizer, offload, or use more devices."),
                          s, pm->device_total / GIB, plan->blueprint->name,
                          plan->capacity / GIB, (pm->device_total - plan->capacity) / GIB,
                          (sm.working_copies ? 0.0 : pm->weights) / GIB, pm->gradients / GIB,
                          pm->optimizer_state / GIB, scratch / GIB);
      else if (pm->device_total > plan->capacity)
        _bpw_plan_reason (plan->reasons, _("Pipeline stage %" PRId64 " needs %.2f GiB "
                          "of device memory per device, but “%s” has %.2f GiB: %.2f GiB short "
                          "(weights %.2f, gradients %.2f, optimizer state %.2f, activations "
                          "%.2f, KV cache %.2f, working set %.2f GiB). Shard with ZeRO, "
                          "recompute activations, offload, or use more devices."), s,
                          pm->device_total / GIB, plan->blueprint->name, plan->capacity / GIB,
                          (pm->device_total - plan->capacity) / GIB, pm->weights / GIB,
                          pm->gradients / GIB, pm->optimizer_state / GIB,
                          pm->activations / GIB, pm->kv_cache / GIB,
                          (pm->temporaries + pm->communication) / GIB);
      if (host > 0 && host_level < 0)
        _bpw_plan_reason (plan->reasons, _("The mapping offloads to host memory, but “%s” has "
                          "no host memory level."), plan->blueprint->name);
      else if (host > 0 && host_capacity > 0 && host > host_capacity)
        _bpw_plan_reason (plan->reasons, _("Pipeline stage %" PRId64 " offloads %.2f "
                          "GiB per device to host memory, which holds %.2f GiB."), s,
                          host / GIB, host_capacity / GIB);
    }
  bpw_plan_check_on_chip (plan->blueprint, &plan->mapping, largest, plan->reasons);
}

void
_bpw_plan_largest_kinds (double largest[BPW_N_TENSOR_KINDS],
                         double weights,
                         double gradients,
                         double optimizer_state,
                         double activations,
                         double kv_cache,
                         double temporaries,
                         double communication)
{
  /* Master weights are tallied with the optimizer state, activation gradients with the
   * working set: the tally that holds them bounds them. */
  const double bytes[BPW_N_TENSOR_KINDS] = {
    [BPW_TENSOR_WEIGHT] = weights,
    [BPW_TENSOR_MASTER_WEIGHT] = optimizer_state,
    [BPW_TENSOR_OPTIMIZER_STATE] = optimizer_state,
    [BPW_TENSOR_GRADIENT] = gradients,
    [BPW_TENSOR_ACTIVATION] = activations,
    [BPW_TENSOR_ACTIVATION_GRAD] = temporaries,
    [BPW_TENSOR_KV_CACHE] = kv_cache,
    [BPW_TENSOR_COMMUNICATION] = communication,
  };

  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    largest[k] = MAX (largest[k], bytes[k]);
}
