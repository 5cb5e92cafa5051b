/* bpw-plan-stack.c — the blueprint's software stack as named implementation transformations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A measured stack runs kernels that the work graph does not contain: casts of fp32 master
 * weights (AMP), unfused element-wise chains (HF-style RMSNorm, rotate-half RoPE, SiLU gate),
 * its optimizer's own implementation, the device idle while an eager host issues short
 * kernels, fp32 logits for the loss, a host loop over MoE experts. Each is priced here from
 * the model's own tensors and the blueprint's rates, attached to the task whose kernel it
 * accompanies (task->impl_s, per execution, part of its cost) and recorded as a named
 * transformation with its FLOPs, bytes, kernels and time, apart from the semantic work.
 * Memory-bound kernels cost what an op of their bytes costs on the vector engine: the
 * device-bandwidth efficiency table by bytes and the engine's fixed cost.
 */
#define G_LOG_DOMAIN "bpw-plan-stack"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-plan-private.h"
#include "bpw-dist-work-private.h"

#define FP32_BYTES 4.0

/* What one task adds, per execution, for one transformation. */
typedef struct
{
  double bytes;
  double kernels;
  double time_s;
} BpwImpl;

/* @kernels kernels that together move @bytes, each of an equal share. */
static BpwImpl
kernels_of (const BpwPlan *plan, double bytes, double kernels)
{
  BpwImpl impl = { bytes, kernels, 0 };

  if (kernels > 0)
    impl.time_s = kernels * _bpw_plan_stack_kernel_time (plan, bytes / kernels);
  return impl;
}

/* Per-rank bytes of @op's uses of tensors of @kind with @access: their sum, or with
 * @largest the largest one. */
static double
use_bytes_of (const BpwPlan *plan, const BpwOp *op, BpwTensorKind kind, BpwAccess access,
              gboolean largest, guint *uses)
{
  const BpwWorkGraph *g = plan->dist->graph;
  double sum = 0;

  for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);
      const BpwTensor *t = bpw_work_graph_tensor (g, use->tensor);
      double bytes;

      if (t->kind != kind || use->access != access)
        continue;
      bytes = ceil ((double) use->bytes / (double) _bpw_dist_work_tensor_parts (plan->dist, t));
      sum = largest ? MAX (sum, bytes) : sum + bytes;
      if (uses != NULL)
        (*uses)++;
    }
  return sum;
}

static double
use_bytes (const BpwPlan *plan, const BpwOp *op, BpwTensorKind kind, BpwAccess access,
           guint *uses)
{
  return use_bytes_of (plan, op, kind, access, FALSE, uses);
}

static gboolean
forward_pass (guint phase)
{
  return phase == BPW_PHASE_FORWARD || phase == BPW_PHASE_RECOMPUTE;
}

/* AMP with fp32 master weights: each forward use of a weight by a matmul casts it (read
 * fp32, write the compute dtype); each weight gradient is cast up into the fp32 .grad (read
 * the compute dtype, write fp32). One kernel per cast. */
static BpwImpl
amp_cast (const BpwPlan *plan, const BpwOp *op)
{
  const BpwWorkGraph *g = plan->dist->graph;
  double e = bpw_dtype_bytes (op->dtype);
  BpwImpl none = { 0 };

  if (op->primitive != BPW_PRIM_MATMUL)
    return none;
  for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);
      const BpwTensor *t = bpw_work_graph_tensor (g, use->tensor);
      gboolean cast = (forward_pass (op->phase) && t->kind == BPW_TENSOR_WEIGHT
                       && use->access == BPW_ACCESS_READ)
                      || (op->phase == BPW_PHASE_BACKWARD_WEIGHT
                          && t->kind == BPW_TENSOR_GRADIENT && use->access == BPW_ACCESS_WRITE);
      double elements;

      if (!cast)
        continue;
      elements = ceil ((double) use->bytes / (double) _bpw_dist_work_tensor_parts (plan->dist, t))
                 / bpw_dtype_bytes (t->dtype);
      /* A cast up converts per element (PyTorch's unrolled kernel); a cast down to bf16
       * runs vectorized. */
      {
        BpwImpl impl = { elements * (FP32_BYTES + e), 1, 0 };

        impl.time_s = _bpw_plan_eager_kernel_time (plan, impl.bytes,
                                                 op->phase == BPW_PHASE_BACKWARD_WEIGHT
                                                 ? elements : 0);
        return impl;
      }
    }
  return none;
}

/* The recipe in place of the one kernel the graph prices the op as. */
static BpwImpl
unfused_elementwise (const BpwPlan *plan, const BpwOp *op, const BpwPlanTask *pt)
{
  BpwImpl impl = { 0 };
  double bytes, kernels, time;

  _bpw_plan_eager_recipe (plan, op, &bytes, &kernels, &time);
  if (kernels <= 0)
    return impl;
  impl.bytes = bytes - pt->bytes[BPW_TRAFFIC_DEVICE];
  impl.kernels = kernels - 1;
  impl.time_s = time - pt->cost.time_s;
  return impl;
}

/* The KV cache as an eager stack fills a preallocated one: the step's keys and values
 * copied in by a kernel each (cache[:, pos] = k; a traced decode step runs two copy_ kernels
 * per layer), where the graph counts the cache written by the op that makes them: each copy
 * reads its K or V once more. */
static BpwImpl
kv_cache_copy (const BpwPlan *plan, const BpwOp *op)
{
  guint uses = 0;
  double bytes = use_bytes (plan, op, BPW_TENSOR_KV_CACHE, BPW_ACCESS_WRITE, &uses);

  return kernels_of (plan, bytes, uses);
}

/* A matmul of few rows (decode) whose reduction is at least as long as its output is wide
 * splits the reduction over blocks and sums their fp32 partials in a kernel of its own
 * (cuBLAS's split-K: a traced decode step at 16 tokens reduces the output projection,
 * 4096 → 4096, and the down projection, 14336 → 4096, so, and not the QKV, gate+up or head
 * products, whose outputs are wider than their reductions). Its rows M, reduction K and
 * width N come from the op's input (M·K), weight (K·N) and output (M·N) elements; the
 * reduction reads two fp32 partials and writes the output. */
#define SPLIT_K_MAX_ROWS 64

static BpwImpl
splitk_reduce (const BpwPlan *plan, const BpwOp *op)
{
  double e = bpw_dtype_bytes (op->dtype);
  double in, weight, out, rows, width, depth;
  BpwImpl none = { 0 };

  if (op->primitive != BPW_PRIM_MATMUL)
    return none;
  in = use_bytes_of (plan, op, BPW_TENSOR_ACTIVATION, BPW_ACCESS_READ, TRUE, NULL);
  weight = use_bytes_of (plan, op, BPW_TENSOR_WEIGHT, BPW_ACCESS_READ, TRUE, NULL);
  out = use_bytes_of (plan, op, BPW_TENSOR_ACTIVATION, BPW_ACCESS_WRITE, TRUE, NULL);
  if (in <= 0 || weight <= 0 || out <= 0)
    return none;
  rows = sqrt (in * out / weight / e);
  width = out / e / rows;
  depth = in / e / rows;
  if (rows > SPLIT_K_MAX_ROWS || depth < width)
    return none;
  return kernels_of (plan, rows * width * (2 * FP32_BYTES + e), 1);
}

/* fp32 logits: forward up-casts the logits (e+4 per logit), backward casts their fp32
 * gradient down (4+e), a kernel each way. Where the loss is not priced as the stack runs it
 * (a fused element-wise stack), the graph's loss reads and writes them in the compute dtype:
 * 4−e more each way, 8 bytes per logit in all. The logits are the loss's largest activation
 * (it also reads the targets). */
static BpwImpl
fp32_logits (const BpwPlan *plan, const BpwOp *op, gboolean eager_loss)
{
  double e = bpw_dtype_bytes (op->dtype);
  double logits;
  BpwImpl none = { 0 };

  if (op->primitive != BPW_PRIM_CROSS_ENTROPY)
    return none;
  if (forward_pass (op->phase))
    logits = use_bytes_of (plan, op, BPW_TENSOR_ACTIVATION, BPW_ACCESS_READ, TRUE, NULL) / e;
  else if (op->phase == BPW_PHASE_BACKWARD_ACTIVATION)
    logits = use_bytes_of (plan, op, BPW_TENSOR_ACTIVATION_GRAD, BPW_ACCESS_WRITE, TRUE,
                           NULL) / e;
  else
    return none;
  {
    BpwImpl impl = { logits * (eager_loss ? e + FP32_BYTES : 2 * FP32_BYTES), 1, 0 };

    /* The forward cast up converts per element; the backward cast down is vectorized. */
    impl.time_s = _bpw_plan_eager_kernel_time (plan, impl.bytes, forward_pass (op->phase) ? logits : 0);
    return impl;
  }
}

/* The optimizer as the stack implements it: bytes_per_parameter × the tensor's parameters
 * through device memory in its launches (per tensor or per parameter), in place of the
 * fused ideal the work graph prices (the difference, which may be either sign, is the transformation). */
static BpwImpl
optimizer_implementation (const BpwPlan *plan, const BpwOp *op, const BpwPlanTask *pt,
                          const BpwTask *task)
{
  const BpwStack *st = &plan->blueprint->stack;
  const BpwWorkGraph *g = plan->dist->graph;
  double params = 0, bytes, kernels, time;
  BpwImpl impl = { 0 };

  if (op->phase != BPW_PHASE_OPTIMIZER || !st->optimizer_bytes_per_parameter.set)
    return impl;
  for (guint u = op->use_first; u < op->use_first + op->use_count && params == 0; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);
      const BpwTensor *t = bpw_work_graph_tensor (g, use->tensor);

      if (t->kind == BPW_TENSOR_MASTER_WEIGHT || t->kind == BPW_TENSOR_WEIGHT)
        params = ceil ((double) t->elements / ((double) _bpw_dist_work_tensor_parts (plan->dist, t)
                                               * (double) task->dp_parts));
    }
  bytes = st->optimizer_bytes_per_parameter.value * params;
  /* Launches per tensor (a loop over tensors), per parameter (chunks of elements across
   * tensors, as a foreach implementation launches: a task's share may be a fraction of a
   * launch), or one. */
  kernels = (st->optimizer_kernels_per_tensor.set ? st->optimizer_kernels_per_tensor.value : 0)
            + (st->optimizer_kernels_per_parameter.set
               ? st->optimizer_kernels_per_parameter.value * params : 0);
  if (!st->optimizer_kernels_per_tensor.set && !st->optimizer_kernels_per_parameter.set)
    kernels = 1;
  /* The stack's bytes replace the device-memory traffic only: what the mapping homes on
   * the host (offloaded weights written back, offloaded optimizer state) still crosses the
   * host link, staged through device memory as any offloaded operand. */
  {
    double b[BPW_N_TRAFFIC_LEVELS] = { 0 };
    BpwTaskCost cost;

    b[BPW_TRAFFIC_DEVICE] = bytes;
    b[BPW_TRAFFIC_HOST] = pt->bytes[BPW_TRAFFIC_HOST];
    bpw_cost_task (&plan->rates, &plan->rates.vector, 0, b, &cost);
    time = cost.time_s + (kernels - 1) * plan->rates.vector.overhead;
  }
  impl.bytes = bytes - pt->bytes[BPW_TRAFFIC_DEVICE];
  impl.kernels = kernels;
  impl.time_s = time - pt->cost.time_s;
  return impl;
}

/* Experts of a rank that a pass of the loop visits, in expectation: the loop works on the
 * experts that some token chose (an expert none chose costs the loop only its check, a
 * small kernel and a host synchronisation, which is not priced). The rank holds
 * E_r = ⌈E / ep⌉ of the E experts and routes N tokens: a micro-batch's T tokens over its CP
 * share, from each of the ep replicas whose tokens its experts serve. Each token chooses
 * k distinct experts, uniformly as the balancing of the router aims at, so that an expert
 * misses one token with probability 1 − k/E and all of them with (1 − k/E)^N:
 *   visited = E_r · (1 − (1 − k/E)^N).
 * Training and prefill route thousands of tokens and visit every expert (Mixtral cut to
 * one layer at 2048 tokens: 8 · (1 − (3/4)^4096) = 8); decode at batch 8, top-8 of 256:
 * 256 · (1 − (248/256)^8) = 57.5 of the at most 64 that 8 · 8 choices can reach. */
static double
moe_experts_visited (const BpwPlan *plan)
{
  const BpwWorkGraph *g = plan->dist->graph;
  const BpwModelSpec *spec = &g->spec;
  const BpwParallel *p = &plan->dist->parallel;
  double experts = (double) spec->experts;
  double tokens = ceil ((double) g->tokens_per_micro_batch / (double) MAX (p->cp, 1))
                  * (double) MAX (p->ep, 1);
  double on_rank = ceil (experts / (double) MAX (p->ep, 1));

  if (spec->experts < 1 || spec->top_k < 1)
    return 0;
  return on_rank * -expm1 (tokens * log1p (-(double) MIN (spec->top_k, spec->experts) / experts));
}

/* The host loop over experts: per_expert for each expert of the rank that the pass visits,
 * per layer and pass (when the stack states it), and, in backward, the gradients of the
 * stacked expert weights. Only an eager pass runs the loop: a pass replayed from a CUDA
 * graph (the stack's decode) cannot hold it, since its host synchronisations and
 * data-dependent shapes cannot be captured, and a graph-replayed step dispatches its experts
 * on the device (the expert work the graph prices), with no host time per expert. The
 * per-visit time is the eager training loop's (fitted from a training run's idle time), so
 * an eager decode pays it per expert its few tokens visit. The loop indexes one [experts, …] parameter per expert matrix (transformers'
 * MoE experts hold gate_up and down so; the shared pack's trace shows fills and adds of
 * [8, 14336, 4096] fp32 tensors): autograd turns each expert's slice into a zero-filled
 * gradient of the whole stacked matrix (a fill) and accumulates it into .grad (an add,
 * none for the first expert, whose tensor is taken), so that per matrix the backward pass
 * moves E·P·g (fills) + 3(E − 1)·P·g (adds) bytes, with E the rank's experts, P the
 * matrix's elements on the rank (all its experts) and g the gradient's bytes (fp32 with
 * fp32 master weights): quadratic in the experts. Mixtral cut to one layer: 163.5 GB,
 * 38.6 ms at the copy rate, against 37.3 ms of such kernels in the trace. */
static BpwImpl
moe_dispatch_loop (const BpwPlan *plan, const BpwOp *op, BpwDType grad_dtype, gboolean graph)
{
  const BpwStack *st = &plan->blueprint->stack;
  const BpwWorkGraph *g = plan->dist->graph;
  const BpwModelSpec *spec = &g->spec;
  double experts, matrices, elements, bytes;
  BpwImpl impl = { 0 };

  if (!st->moe_loop || op->primitive != BPW_PRIM_PERMUTE || op->phase == BPW_PHASE_OPTIMIZER
      || !g_str_has_prefix (bpw_work_graph_name (g, op->name), "moe.dispatch"))
    return impl;
  experts = ceil ((double) spec->experts / (double) MAX (plan->dist->parallel.ep, 1));
  if (st->moe_per_expert.set && !graph)
    impl.time_s = st->moe_per_expert.value * moe_experts_visited (plan);
  if (op->phase != BPW_PHASE_BACKWARD_ACTIVATION
      || g->scenario.phase != BPW_WORKLOAD_TRAIN || experts < 1)
    return impl;
  matrices = spec->ffn_kind == BPW_FFN_SWIGLU ? 3 : 2;
  elements = ceil (experts * (double) spec->hidden * (double) bpw_model_spec_expert_ffn (spec)
                   / (double) MAX (plan->dist->parallel.tp, 1));
  bytes = matrices * elements * bpw_dtype_bytes (grad_dtype) * (experts + 3 * (experts - 1));
  /* A fill per expert and an add per expert after the first, per matrix. */
  impl.bytes = bytes;
  impl.kernels = matrices * (2 * experts - 1);
  {
    double each = elements * bpw_dtype_bytes (grad_dtype);

    impl.time_s += matrices * (experts * _bpw_plan_stack_kernel_time (plan, each)
                               + (experts - 1) * _bpw_plan_stack_kernel_time (plan, 3 * each));
  }
  return impl;
}

typedef enum
{
  IMPL_AMP_CAST,
  IMPL_UNFUSED_ELEMENTWISE,
  IMPL_OPTIMIZER,
  IMPL_FP32_LOGITS,
  IMPL_MOE_LOOP,
  IMPL_KV_CACHE_COPY,
  IMPL_SPLITK_REDUCE,
  IMPL_LAUNCH_GAPS,
  N_IMPLS
} BpwImplKind;

static const char * const impl_names[N_IMPLS] = {
  "amp_cast", "unfused_elementwise", "optimizer_implementation", "fp32_logits",
  "moe_dispatch_loop", "kv_cache_copy", "splitk_reduce", "launch_gaps",
};
static const char * const impl_what[N_IMPLS] = {
  "fp32 master weights cast to the compute dtype per use in forward, and weight gradients "
  "cast up to fp32: a kernel each",
  "norms, rotary embedding, activation gates, residual adds and the loss as the eager "
  "kernels the stack issues (in the dtypes autocast gives them, with its casts), each "
  "reading and writing whole tensors, in place of one kernel per operation",
  "the optimizer's implementation (bytes per parameter and launches per tensor) in place of "
  "the fused ideal",
  "logits up-cast to fp32 and the loss and its gradient in fp32",
  "a host loop over the experts in eager passes: time per expert that the pass's tokens "
  "visit, per layer and pass (none in a pass replayed from a CUDA graph), and the "
  "zero-filled gradients of the stacked expert weights that each expert's slice leaves in "
  "backward",
  "the step's keys and values copied into a preallocated KV cache by a kernel each",
  "matmuls of few rows with a long reduction split it over blocks and sum the fp32 partials "
  "in a kernel of their own (split-K)",
  "device idle between kernels: host issue time of eager launches beyond the kernel, or "
  "graph replay gaps",
};

const char *
bpw_plan_implementation_name (guint kind)
{
  return kind < N_IMPLS ? impl_names[kind] : NULL;
}

static BpwStackPhase
stack_phase (const BpwPlan *plan)
{
  switch (plan->dist->graph->scenario.phase)
    {
    case BPW_WORKLOAD_PREFILL: return BPW_STACK_PHASE_PREFILL;
    case BPW_WORKLOAD_DECODE: return BPW_STACK_PHASE_DECODE;
    case BPW_WORKLOAD_TRAIN:
    default: return BPW_STACK_PHASE_TRAIN;
    }
}

/* Eager launch as a host issue stream: the host issues one kernel every h (the stack's
 * eager_gap), queuing ahead of the device while long kernels run; the device starts kernel j
 * at max (its end of kernel j−1, j·h). By the start of kernel j it has idled
 * max over i ≤ j of (i·h − busy before i): a running maximum over the kernel sequence.
 * Charging each kernel max (0, h − its time) instead ignores the queue: the host's lead
 * during a long matmul hides the issue time of the short kernels after it.
 *
 * Adds @kernels kernels taking @time_s together, of equal share (then the running maximum
 * over them is reached at the first or the last); returns the idle they add. */
double
_bpw_issue_stream_add (BpwIssueStream *q, double h, double kernels, double time_s)
{
  double before = q->idle, d;

  if (kernels <= 0)
    {
      q->busy += time_s;
      return 0;
    }
  d = time_s / kernels;
  q->idle = MAX (q->idle, q->issued * h - q->busy);
  q->idle = MAX (q->idle, (q->issued + kernels - 1) * h - q->busy - (kernels - 1) * d);
  q->issued += kernels;
  q->busy += time_s;
  return q->idle - before;
}

/* Eager kernels with the device's own idle @g at each boundary: the device starts a kernel
 * no sooner than @g after the one before ended, so to the issue stream each kernel lasts
 * its time plus @g. Returns the idle they add, @g per kernel included: where the host lags,
 * the stream's idle shrinks by what @g adds and the sum stays the host's. */
double
_bpw_eager_stream_add (BpwIssueStream *q, double h, double g, double kernels, double time_s)
{
  double n = MAX (kernels, 0.0);

  return _bpw_issue_stream_add (q, h, kernels, time_s + n * g) + n * g;
}

static BpwStackLaunch
launch_mode (const BpwPlan *plan)
{
  const BpwStack *st = &plan->blueprint->stack;

  switch (plan->dist->graph->scenario.launch)
    {
    case BPW_LAUNCH_EAGER: return BPW_STACK_LAUNCH_EAGER;
    case BPW_LAUNCH_GRAPH: return BPW_STACK_LAUNCH_GRAPH;
    case BPW_LAUNCH_STACK:
    default:
      return st->has_launch ? st->launch[stack_phase (plan)] : BPW_STACK_LAUNCH_EAGER;
    }
}

/* Training issues through autograd's backward engine, which adds host work per kernel;
 * inference issues forward only. */
static const BpwSourced *
eager_gap (const BpwPlan *plan)
{
  const BpwStack *st = &plan->blueprint->stack;

  return stack_phase (plan) == BPW_STACK_PHASE_TRAIN ? &st->train_eager_gap : &st->eager_gap;
}

double
_bpw_plan_launch_gap (const BpwPlan *plan, gboolean *eager)
{
  const BpwStack *st = &plan->blueprint->stack;

  *eager = launch_mode (plan) == BPW_STACK_LAUNCH_EAGER;
  if (!st->set || !st->has_launch)
    return 0;
  if (*eager)
    return eager_gap (plan)->set ? eager_gap (plan)->value : 0;
  return st->graph_gap.set ? st->graph_gap.value : 0;
}

double
_bpw_plan_eager_device_gap (const BpwPlan *plan)
{
  const BpwStack *st = &plan->blueprint->stack;

  if (!st->set || !st->has_launch || launch_mode (plan) != BPW_STACK_LAUNCH_EAGER)
    return 0;
  return st->eager_device_gap.set ? st->eager_device_gap.value : 0;
}

void
_bpw_plan_bind_stack (BpwPlan *plan)
{
  const BpwStack *st = &plan->blueprint->stack;
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;
  gint64 ranks = dist->parallel.tp * dist->parallel.dp;
  BpwStackLaunch mode;
  double totals[N_IMPLS][4] = { { 0 } };  /* flops, bytes, kernels, time: whole job */

  if (!st->set)
    return;
  mode = launch_mode (plan);

  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *tasks = plan->stages[s].tasks;
      guint32 last_group = 0;
      gint32 last_layer = BPW_LAYER_BEFORE_BLOCKS;
      guint last_phase = BPW_PHASE_FORWARD;
      gboolean optimizer_launched = FALSE;
      BpwIssueStream queue = { 0 };

      for (guint i = 0; i < tasks->len; i++)
        {
          BpwPlanTask *pt = &g_array_index (tasks, BpwPlanTask, i);
          const BpwTask *task = &g_array_index (dist->stages[s].tasks, BpwTask, i);
          const BpwOp *op = bpw_work_graph_op (g, pt->op);
          gboolean optimizer = op->phase == BPW_PHASE_OPTIMIZER;
          double per_step = (optimizer ? 1.0 : (double) plan->micro_batches) * pt->count
                            * (double) ranks;
          BpwImpl impl[N_IMPLS] = { { 0 } };
          double kernels, added = 0, added_kernels = 0;
          gboolean shared_across;

          /* Master weights are the optimizer's: inference loads weights in the compute
           * dtype and casts none. */
          if (st->fp32_master && plan->dist->graph->scenario.dtype != BPW_DTYPE_FP32
              && plan->dist->graph->scenario.phase == BPW_WORKLOAD_TRAIN)
            impl[IMPL_AMP_CAST] = amp_cast (plan, op);
          if (st->unfused_elementwise)
            impl[IMPL_UNFUSED_ELEMENTWISE] = unfused_elementwise (plan, op, pt);
          if (st->has_optimizer)
            impl[IMPL_OPTIMIZER] = optimizer_implementation (plan, op, pt, task);
          if (st->fp32_logits && plan->dist->graph->scenario.dtype != BPW_DTYPE_FP32)
            impl[IMPL_FP32_LOGITS] = fp32_logits (plan, op, st->unfused_elementwise);
          /* An eager unfused stack's kernels beside the graph's: cache copies, split-K
           * reductions (a fused or compiled stack writes the cache in its attention
           * kernel, and its matmuls are its own). */
          if (st->unfused_elementwise)
            {
              impl[IMPL_KV_CACHE_COPY] = kv_cache_copy (plan, op);
              impl[IMPL_SPLITK_REDUCE] = splitk_reduce (plan, op);
            }
          impl[IMPL_MOE_LOOP] = moe_dispatch_loop (plan, op,
                                                   st->fp32_master ? BPW_DTYPE_FP32
                                                                   : g->scenario.dtype,
                                                   mode == BPW_STACK_LAUNCH_GRAPH);

          for (guint k = 0; k < IMPL_LAUNCH_GAPS; k++)
            if (k != IMPL_OPTIMIZER)
              {
                added += impl[k].time_s;
                added_kernels += impl[k].kernels;
              }
          /* The task's own kernel: one per fusion group, one per stage for a fused
           * optimizer; the optimizer implementation states its own launches. */
          if (impl[IMPL_OPTIMIZER].kernels > 0)
            kernels = impl[IMPL_OPTIMIZER].kernels;
          else if (pt->fusion == BPW_FUSION_OPTIMIZER)
            kernels = optimizer_launched ? 0 : 1;
          else
            kernels = pt->fusion_group != 0 && pt->fusion_group == last_group ? 0 : 1;
          /* A kernel shared with the task before it of another layer or pass (the head's
           * norm fused with the last block's residual add, a recomputed op with its
           * forward) is one the block issues when it follows a block of its own pass. */
          shared_across = kernels == 0 && pt->fusion != BPW_FUSION_OPTIMIZER
                          && impl[IMPL_OPTIMIZER].kernels <= 0
                          && (pt->layer != last_layer || (pt->phase == BPW_PHASE_FORWARD)
                                                         != (last_phase == BPW_PHASE_FORWARD));
          optimizer_launched |= optimizer;
          /* A task outside the group between two of its tasks (the rotary op between the
           * QKV product and the attention core) is a kernel of its own: the group launches
           * again after it. */
          last_group = pt->fusion_group;
          last_layer = pt->layer;
          last_phase = pt->phase;
          if (st->has_launch)
            {
              /* The task's executions per micro-batch run back to back. */
              double n = MAX (pt->count, 1.0) * (kernels + added_kernels);
              double busy = MAX (pt->count, 1.0)
                            * (pt->cost.time_s + impl[IMPL_OPTIMIZER].time_s + added);
              double device_gap = _bpw_plan_eager_device_gap (plan);

              impl[IMPL_LAUNCH_GAPS].kernels = kernels + added_kernels;
              if (mode == BPW_STACK_LAUNCH_GRAPH)
                impl[IMPL_LAUNCH_GAPS].time_s = st->graph_gap.set
                                                ? (kernels + added_kernels) * st->graph_gap.value
                                                : 0;
              else if (eager_gap (plan)->set || device_gap > 0)
                impl[IMPL_LAUNCH_GAPS].time_s =
                  _bpw_eager_stream_add (&queue, eager_gap (plan)->set ? eager_gap (plan)->value
                                                                       : 0,
                                         device_gap, n, busy)
                  / MAX (pt->count, 1.0);
              pt->issue_kernels = n;
              pt->issue_alone = n + (shared_across ? MAX (pt->count, 1.0) : 0);
              pt->issue_busy = busy;
              pt->launch_s = impl[IMPL_LAUNCH_GAPS].time_s;
            }

          for (guint k = 0; k < N_IMPLS; k++)
            {
              /* A kernel the queue leaves no idle before still counts as launched. */
              if (impl[k].time_s == 0 && impl[k].bytes == 0 && impl[k].kernels == 0)
                continue;
              pt->impl_s += impl[k].time_s;
              pt->impl_kinds |= 1u << k;
              totals[k][1] += impl[k].bytes * per_step;
              totals[k][2] += impl[k].kernels * per_step;
              totals[k][3] += impl[k].time_s * per_step;
            }
          pt->cost.time_s += pt->impl_s;
          pt->cost.overhead_s += pt->impl_s;
        }
    }
  for (guint k = 0; k < N_IMPLS; k++)
    if (totals[k][3] != 0 || totals[k][1] != 0)
      _bpw_plan_add_implementation (plan, impl_names[k], impl_what[k], totals[k][0],
                                    totals[k][1], totals[k][2], totals[k][3]);
}
