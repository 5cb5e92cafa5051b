/* bpw-plan-bind.c — tasks and transfers of a plan: transformations and cost estimates
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A task's physical traffic is derived per tensor use, not from the distributed share of
 * the op: a column-parallel matmul reads its whole (replicated) input on every TP rank.
 * Fusion keeps tensors on chip when their producer and last consumer are in one fused
 * group; tiling adds the re-reads of operand panels that do not fit on chip; padding to
 * the matrix engine's tile adds FLOPs. Each is recorded as a transformation.
 */
#define G_LOG_DOMAIN "bpw-plan-bind"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-i18n.h"
#include "bpw-plan-private.h"
#include "bpw-dist-work-private.h"

static gboolean
is_matmul (const BpwOp *op)
{
  return op->primitive == BPW_PRIM_MATMUL || op->primitive == BPW_PRIM_BATCHED_MATMUL;
}

static double
explicit_tile_traffic (const BpwTiling *t, double batch, double m, double n, double k,
                       double elem)
{
  double tm = MIN ((double) t->m, m), tn = MIN ((double) t->n, n);

  return elem * batch * (m * k * ceil (n / tn) + k * n * ceil (m / tm) + m * n);
}

static void
check_explicit_tile (BpwPlan *plan, double elem)
{
  const BpwTiling *t = &plan->mapping.tiling;
  double need = ((double) t->m * t->k + (double) t->k * t->n + (double) t->m * t->n) * elem;

  if (!t->automatic && need > plan->rates.onchip_bytes)
    _bpw_plan_reason (plan->reasons, _("The %" PRId64 "×%" PRId64 "×%"
                      PRId64 " matmul tile needs %.0f KiB on chip, but the largest "
                      "on-chip level of “%s” holds %.0f KiB."), t->m, t->n, t->k, need / 1024.0,
                      plan->blueprint->name, plan->rates.onchip_bytes / 1024.0);
}

static gboolean
reads_weight (const BpwWorkGraph *g, const BpwOp *op)
{
  for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);

      if (use->access == BPW_ACCESS_READ &&
          bpw_work_graph_tensor (g, use->tensor)->kind == BPW_TENSOR_WEIGHT)
        return TRUE;
    }
  return FALSE;
}

/* The format the mapping's precision policy gives a matrix task, or bf16 and the reason
 * it falls back; without a policy the scenario's dtype (`--dtype fp8`: every matmul
 * fp8-e4m3, as it always ran). */
static void
resolve_precision (const BpwPlan *plan, const BpwOp *op, const BpwTask *task,
                   BpwPlanTask *pt)
{
  const BpwPrecisionPolicy *policy = &plan->mapping.precision;
  const BpwClassPrecision *c;
  BpwNumberFormat want;
  BpwFallback fallback = BPW_FALLBACK_NONE;

  pt->op_class = bpw_matmul_class_of (op);
  pt->precision = plan->precision;
  if (pt->engine != BPW_ENGINE_MATRIX || pt->op_class == BPW_MATMUL_CLASS_OTHER)
    return;
  pt->format = bpw_number_format_of_precision (plan->precision);
  if (!policy->set)
    return;
  c = &policy->classes[pt->op_class];
  pt->sparse = c->sparse_2_4 && plan->blueprint->sparsity_2_4 &&
               reads_weight (plan->dist->graph, op);
  want = c->format;
  if (!bpw_number_format_is_reduced (want))
    {
      if (want != BPW_NUMBER_FORMAT_DEFAULT)
        pt->format = want;
      pt->precision = bpw_number_format_precision (pt->format, plan->precision);
      return;
    }
  if (c->keep_bf16)
    fallback = BPW_FALLBACK_QUALITY;
  else if (plan->rates.matrix_in[bpw_number_format_precision (want, plan->precision)].peak <= 0)
    fallback = BPW_FALLBACK_ENGINE;
  else
    {
      double batch, m, n, k;

      _bpw_plan_rank_shape (op, task->tp_parts, &batch, &m, &n, &k);
      fallback = bpw_precision_shape_fallback (want, c->scaling, c->block, n, k);
    }
  pt->fallback = fallback;
  pt->format = fallback == BPW_FALLBACK_NONE ? want : BPW_NUMBER_FORMAT_BF16;
  pt->precision = bpw_number_format_precision (pt->format, plan->precision);
}

/* Whether the policy names a reduced format for the task's class and the task runs in
 * it: its operands are read in that format. A class left to the scenario keeps the
 * graph's dtypes (`--dtype fp8` reads its bf16 weights as it always did). */
static gboolean
policy_format (const BpwPlan *plan, const BpwPlanTask *pt)
{
  const BpwPrecisionPolicy *policy = &plan->mapping.precision;

  return policy->set && pt->op_class < BPW_N_POLICY_CLASSES &&
         policy->classes[pt->op_class].format != BPW_NUMBER_FORMAT_DEFAULT &&
         bpw_number_format_is_reduced (pt->format);
}

/* Bytes of one operand use under the policy: reads in the policy's format (e_f / e_t of
 * the graph's); 2:4 sparse weights keep half their elements plus 2 bits of metadata per
 * kept element. Writes (the bf16 output) as the graph has them. */
static double
operand_bytes (const BpwPlan *plan, const BpwPlanTask *pt, const BpwTensor *t,
               const BpwTensorUse *use, double bytes)
{
  double e_t = bpw_dtype_bytes (t->dtype), elements, out;

  if (use->access != BPW_ACCESS_READ || e_t <= 0)
    return bytes;
  elements = bytes / e_t;
  out = policy_format (plan, pt) ? elements * bpw_number_format_bytes (pt->format, e_t) : bytes;
  if (pt->sparse && t->kind == BPW_TENSOR_WEIGHT)
    out = out / 2.0 + elements / 2.0 * BPW_SPARSE_2_4_METADATA_BITS / 8.0;
  return ceil (out);
}

/* Matmul traffic and padding: tiling replaces the compulsory operand reads. @run: the
 * share of the op's matrix its kernel runs (a flash kernel's causal tiles), which pays the
 * padding in proportion. */
static void
bind_matmul (BpwPlan *plan, const BpwOp *op, const BpwTask *task, double run,
             BpwPlanTask *pt)
{
  const BpwEngine *engine = plan->rates.matrix.engine;
  double elem = bpw_dtype_bytes (op->dtype);
  double batch, m, n, k, traffic, compulsory;

  _bpw_plan_rank_shape (op, task->tp_parts, &batch, &m, &n, &k);
  /* Context parallelism gives each rank 1/cp of the rows: its tokens, or its queries. */
  m /= (double) MAX (task->cp_parts, 1);
  if (m <= 0 || n <= 0 || k <= 0)
    return;
  if (policy_format (plan, pt))
    {
      const BpwClassPrecision *c = &plan->mapping.precision.classes[pt->op_class];
      double scales = bpw_scaling_bytes (c->scaling, c->block, batch, m, n, k);

      elem = bpw_number_format_bytes (pt->format, elem);
      pt->bytes[BPW_TRAFFIC_DEVICE] += scales;
    }
  compulsory = elem * batch * (m * k + k * n + m * n);
  if (plan->mapping.tiling.automatic)
    traffic = bpw_cost_matmul_traffic (batch, m, n, k, elem, plan->rates.onchip_bytes,
                                       &pt->tile_m, &pt->tile_n);
  else
    {
      traffic = explicit_tile_traffic (&plan->mapping.tiling, batch, m, n, k, elem);
      pt->tile_m = MIN ((double) plan->mapping.tiling.m, m);
      pt->tile_n = MIN ((double) plan->mapping.tiling.n, n);
    }
  pt->tiling_bytes = MAX (0.0, traffic - compulsory);
  pt->bytes[BPW_TRAFFIC_DEVICE] += pt->tiling_bytes;

  /* Grouped-query attention kernels (FlashAttention-2, FlashDecoding) stack the query heads
   * that share a key/value head into the rows of one matmul, so a decode step's single
   * query row per head does not pad to a whole tile per head. */
  if (op->primitive == BPW_PRIM_BATCHED_MATMUL && op->layer_type == BPW_LAYER_ATTENTION)
    {
      const BpwModelSpec *spec = &plan->dist->graph->spec;
      double group = spec->kv_heads > 0 ? (double) (spec->heads / spec->kv_heads) : 1.0;

      if (group > 1 && fmod (batch, group) == 0)
        {
          batch /= group;
          m *= group;
        }
    }
  if (pt->engine == BPW_ENGINE_MATRIX && engine != NULL)
    pt->padding_flops = MAX (0.0, bpw_cost_padded_flops (&engine->tile, batch, m, n, k) -
                                  2.0 * batch * m * n * k) * run;
  pt->flops += pt->padding_flops;
}

/* FlashAttention's backward recomputes QKᵀ on chip unless recompute already does: the
 * blocks its forward ran. */
static double
fused_attention_extra_flops (const BpwPlan *plan, const BpwFlashBand *bands, gsize n_bands,
                             const BpwOp *op, const BpwTask *task)
{
  const BpwWorkGraph *g = plan->dist->graph;
  const BpwOp *fwd;

  if (op->phase != BPW_PHASE_BACKWARD_ACTIVATION || op->forward_of < 0 ||
      g->scenario.recompute != BPW_RECOMPUTE_NONE)
    return 0;
  fwd = bpw_work_graph_op (g, (guint) op->forward_of);
  if (fwd->primitive != BPW_PRIM_BATCHED_MATMUL ||
      !g_str_has_prefix (bpw_work_graph_name (g, fwd->name), "attn.qk"))
    return 0;
  return ceil ((double) _bpw_plan_flash_flops (bands, n_bands, g, fwd) /
               ((double) task->tp_parts * MAX (task->cp_parts, 1)));
}

/* FLOPs of @task's share of the graph's matrix that its flash kernel does not run (the
 * blocks above a causal diagonal or outside a window's band; negative where the blocks
 * along a narrow band run more than the graph's W keys per row). Split as the
 * distribution splits the op; under context parallelism the balanced chunk order gives
 * each rank an equal share of the blocks, exactly so when a chunk is whole blocks. */
static double
flash_skipped_flops (const BpwPlan *plan, const BpwFlashBand *bands, gsize n_bands,
                     const BpwOp *op, const BpwTask *task)
{
  guint64 parts = task->tp_parts * task->dp_parts * MAX (task->cp_parts, 1);
  guint64 run = _bpw_plan_flash_flops (bands, n_bands, plan->dist->graph, op);

  return (double) task->flops - (double) (run / parts + (run % parts != 0));
}

/* A flash kernel holds the head dimension in whole tiles of its own (bpw-plan-flash.c):
 * the QKᵀ and PV products of the core, forward and backward, run on the padded head,
 * charged as padding. Its backward walks the forward's score blocks with the forward's
 * tiles, so its matrix engine runs at the forward kernel's efficiency, not at that of a
 * product as large as the backward's FLOPs. */
static void
flash_head_padding (const BpwPlan *plan, const BpwFlashBand *bands, gsize n_bands,
                    const BpwOp *op, const BpwTask *task, BpwPlanTask *pt)
{
  const BpwWorkGraph *g = plan->dist->graph;
  double factor = _bpw_plan_flash_head_factor (g, op), pad;

  if (op->primitive != BPW_PRIM_BATCHED_MATMUL)
    return;
  pad = (pt->flops - pt->padding_flops) * (factor - 1.0);
  pt->padding_flops += pad;
  pt->flops += pad;
  if (op->phase != BPW_PHASE_FORWARD && op->forward_of >= 0)
    {
      const BpwOp *fwd = bpw_work_graph_op (g, (guint) op->forward_of);
      guint64 parts = task->tp_parts * task->dp_parts * MAX (task->cp_parts, 1);

      pt->rate_flops = ceil ((double) _bpw_plan_flash_flops (bands, n_bands, g, fwd) /
                             (double) parts) * _bpw_plan_flash_head_factor (g, fwd);
    }
}

void
bpw_plan_task_cost (const BpwCostRates *rates,
                    const BpwPlanTask  *task,
                    BpwTaskCost        *cost)
{
  const BpwEngineRate *rate = task->engine == BPW_ENGINE_MATRIX ? &rates->matrix
                                                                : &rates->vector;
  BpwEngineRate sparse;
  double bytes[BPW_N_TRAFFIC_LEVELS] = { 0 };

  if (task->engine == BPW_ENGINE_MATRIX && task->precision != rates->precision &&
      task->precision < BPW_N_PRECISIONS && rates->matrix_in[task->precision].peak > 0)
    rate = &rates->matrix_in[task->precision];
  /* The stack's flash kernel at its own measured efficiency, where the blueprint has one. */
  if (rate == &rates->matrix && task->fusion == BPW_FUSION_ATTENTION &&
      rates->attention.efficiency != NULL)
    rate = &rates->attention;
  if (task->engine == BPW_ENGINE_MATRIX && task->sparse)
    {
      sparse = *rate;
      sparse.peak *= 2.0;
      rate = &sparse;
    }

  memcpy (bytes, task->bytes, sizeof bytes);
  if (task->phase != BPW_PHASE_OPTIMIZER)
    {
      bytes[BPW_TRAFFIC_DEVICE] += bytes[BPW_TRAFFIC_HOST];
      bytes[BPW_TRAFFIC_HOST] = 0;
    }
  bpw_cost_task_at (rates, rate, task->flops, task->rate_flops > 0 ? task->rate_flops
                                                                   : task->flops,
                    bytes, cost);
  /* Weight-only dequantisation runs beside the matmul: what it does not hide. */
  if (task->dequant_ops > 0)
    {
      double dequant = _bpw_plan_dequant_exposed (rates, task, cost);

      cost->time_s += dequant;
      cost->overhead_s += dequant;
    }
  /* One multi-tensor optimizer kernel pays the launch once per stage, not per tensor. */
  if (task->fusion == BPW_FUSION_OPTIMIZER)
    {
      cost->time_s -= cost->overhead_s;
      cost->overhead_s = 0;
    }
  cost->time_s += task->stream_s;
  cost->stall_s += task->stream_s;
  cost->time_s += task->impl_s;
  cost->overhead_s += task->impl_s;
}

static void
bind_task (BpwPlan *plan, const guint32 *groups, const BpwFlashBand *bands, gsize n_bands,
           gint64 ranks, const BpwTask *task, BpwPlanTask *pt)
{
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;
  const BpwOp *op = bpw_work_graph_op (g, task->op);
  gboolean optimizer = op->phase == BPW_PHASE_OPTIMIZER;
  double per_step, extra = 0, skipped = 0, weight_elements = 0, weight_saved = 0;

  *pt = (BpwPlanTask) {
    .op = task->op,
    .phase = op->phase,
    .layer_type = op->layer_type,
    .primitive = op->primitive,
    .layer = op->layer,
    .engine = _bpw_plan_engine_kind (plan->blueprint, &plan->mapping, op->primitive),
    .fusion = _bpw_plan_op_fusion (g, op, plan->mapping.fusion),
    .fusion_group = groups[task->op],
    .count = optimizer ? (double) task->count
                       : (double) task->count / (double) plan->micro_batches,
    .flops = (double) task->flops,
  };
  resolve_precision (plan, op, task, pt);
  _bpw_plan_resolve_weights (plan, op, task, pt);

  for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);
      const BpwTensor *t = bpw_work_graph_tensor (g, use->tensor);
      double parts = (double) _bpw_dist_work_tensor_parts (dist, t) *
                     (optimizer ? (double) task->dp_parts : 1.0);
      double bytes = ceil ((double) use->bytes / parts);

      if (policy_format (plan, pt) || pt->sparse)
        bytes = operand_bytes (plan, pt, t, use, bytes);
      if (plan->weight_only != NULL && use->access == BPW_ACCESS_READ)
        {
          double stored = _bpw_plan_weight_only_read (plan, pt, use->tensor, bytes,
                                                      &weight_elements);

          weight_saved += bytes - stored;
          bytes = stored;
        }
      if (_bpw_plan_tensor_on_chip (g, groups, t))
        pt->fused_bytes += bytes;
      /* Offloaded activations are worked on in the device double buffer; only the stash
       * crosses the host link, once each way per layer (bpw-plan-host-stream.c). */
      else if (t->kind == BPW_TENSOR_ACTIVATION)
        pt->bytes[BPW_TRAFFIC_DEVICE] += bytes;
      else
        pt->bytes[_bpw_plan_traffic_level (plan->blueprint, &plan->mapping, t->kind)] += bytes;
    }
  if (pt->fusion == BPW_FUSION_ATTENTION && task->flops > 0)
    skipped = flash_skipped_flops (plan, bands, n_bands, op, task);
  if (is_matmul (op))
    bind_matmul (plan, op, task, pt->flops > 0 ? (pt->flops - skipped) / pt->flops : 1.0, pt);
  _bpw_plan_weight_only_dequant (plan, op, task, pt, weight_elements);
  if (pt->fusion == BPW_FUSION_ATTENTION)
    {
      extra = fused_attention_extra_flops (plan, bands, n_bands, op, task);
      pt->flops += extra - skipped;
      flash_head_padding (plan, bands, n_bands, op, task, pt);
    }

  bpw_plan_task_cost (&plan->rates, pt, &pt->cost);
  pt->dequant_s = _bpw_plan_dequant_exposed (&plan->rates, pt, &pt->cost);

  per_step = (optimizer ? 1.0 : (double) plan->micro_batches) * pt->count * (double) ranks;
  _bpw_plan_weight_only_tally (plan, pt, weight_saved, per_step);
  if (pt->padding_flops > 0)
    _bpw_plan_add_transformation (plan, "padding", "operands padded to the matrix engine's "
                                  "native tile (a flash kernel's head dimension to its own): extra "
                                  "FLOPs", pt->padding_flops * per_step,
                                  0, per_step);
  if (pt->tiling_bytes > 0)
    _bpw_plan_add_transformation (plan, "tiling", "operand panels re-read because the tile "
                                  "does not cover the matmul: extra device-memory traffic", 0,
                                  pt->tiling_bytes * per_step, per_step);
  if (pt->fused_bytes > 0 || extra != 0 || skipped != 0)
    {
      static const char * const names[] = {
        [BPW_FUSION_ATTENTION] = "fused-attention",
        [BPW_FUSION_BIAS_ACTIVATION] = "fused-bias-activation",
        [BPW_FUSION_NORM_RESIDUAL] = "fused-norm-residual",
      };
      static const char * const what[] = {
        [BPW_FUSION_ATTENTION] = "attention core in one kernel: the s² scores never reach "
                                 "device memory; under a causal mask only the score blocks "
                                 "along and below the diagonal (inside a window's band) run; "
                                 "backward recomputes QKᵀ on chip",
        [BPW_FUSION_BIAS_ACTIVATION] = "bias and activation in the matmul epilogue",
        [BPW_FUSION_NORM_RESIDUAL] = "norm, dropout and residual in one pass",
      };
      if (pt->fusion <= BPW_FUSION_NORM_RESIDUAL && names[pt->fusion] != NULL)
        _bpw_plan_add_transformation (plan, names[pt->fusion], what[pt->fusion],
                                      (extra - skipped) * per_step, -pt->fused_bytes * per_step,
                                      per_step);
    }
}

void
_bpw_plan_bind_tasks (BpwPlan *plan)
{
  const BpwDistWork *dist = plan->dist;
  g_autofree guint32 *groups = _bpw_plan_fusion_groups (dist->graph, plan->mapping.fusion);
  gsize n_bands = 0;
  g_autofree BpwFlashBand *bands = _bpw_plan_flash_bands (dist->graph, &n_bands);
  gint64 ranks = dist->parallel.tp * dist->parallel.dp;

  if (!plan->mapping.tiling.automatic)
    check_explicit_tile (plan, bpw_dtype_bytes (dist->graph->scenario.dtype));
  _bpw_plan_weight_only_init (plan);

  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *tasks = dist->stages[s].tasks;
      GArray *out = plan->stages[s].tasks;

      g_array_set_size (out, tasks->len);
      for (guint i = 0; i < tasks->len; i++)
        bind_task (plan, groups, bands, n_bands, ranks, &g_array_index (tasks, BpwTask, i),
                   &g_array_index (out, BpwPlanTask, i));
    }
  _bpw_plan_weight_only_record (plan);
}

static const char *
algorithm_transformation (BpwCollectiveKind kind, BpwCollectiveAlgo algo, const char **what)
{
  static const char * const names[BPW_N_COLLECTIVES][BPW_N_COLLECTIVE_ALGOS] = {
    { "ring-all-reduce", "tree-all-reduce", "in-network-all-reduce", "direct-all-reduce",
      "hierarchical-all-reduce", "torus-all-reduce" },
    { "ring-reduce-scatter", "tree-reduce-scatter", "in-network-reduce-scatter",
      "direct-reduce-scatter", "hierarchical-reduce-scatter", "torus-reduce-scatter" },
    { "ring-all-gather", "tree-all-gather", "in-network-all-gather", "direct-all-gather",
      "hierarchical-all-gather", "torus-all-gather" },
    { "ring-all-to-all", "tree-all-to-all", "in-network-all-to-all", "direct-all-to-all",
      "hierarchical-all-to-all", "torus-all-to-all" },
    { "send-recv", "send-recv", "send-recv", "send-recv", "send-recv", "send-recv" },
  };
  static const char * const descriptions[BPW_N_COLLECTIVES] = {
    "each logical all-reduce of M bytes over n ranks becomes the algorithm's transfers "
    "(ring: 2(n−1) transfers of M/n per rank)",
    "each logical reduce-scatter becomes (n−1) transfers of M/n per rank (ring)",
    "each logical all-gather becomes (n−1) transfers of M/n per rank (ring)",
    "each logical all-to-all sends (n−1)/n of M per rank",
    "pipeline activations and gradients sent point to point",
  };
  guint a = 0;

  while (a + 1 < BPW_N_COLLECTIVE_ALGOS && !((1u << a) & algo))
    a++;
  *what = descriptions[kind];
  return names[kind][a];
}

double
bpw_plan_transfer_exposed (const BpwPlanTransfer *tr,
                           const BpwTier         *tier,
                           BpwTpOverlap           overlap)
{
  double pu = tier->processor_usage.set ? tier->processor_usage.value : 0.0;
  double exposed;

  /* Ring attention sends the next KV block while the attention of the block in hand runs:
   * per step, exposed = max(0, comm − compute), compute being served_s (one block's
   * attention, bpw_plan_cp_step_window()). */
  if (tr->group == BPW_GROUP_CP && tr->kind == BPW_COLLECTIVE_SEND_RECV)
    return MIN (MAX (0.0, tr->time_s - tr->served_s) + pu * MIN (tr->time_s, tr->served_s),
                tr->time_s);
  /* TP overlap splits the adjacent matmul into tiles that hide the communication; the
   * link's traffic still slows compute by the tier's processor usage. */
  if (tr->group != BPW_GROUP_TP || overlap == BPW_TP_OVERLAP_NONE)
    return tr->time_s;
  exposed = MAX (0.0, tr->time_s - tr->served_s) + pu * MIN (tr->time_s, tr->served_s);
  if (overlap == BPW_TP_OVERLAP_PIPE)
    exposed += tr->time_s / (double) MAX (tr->ranks, 1);
  return MIN (exposed, tr->time_s);
}

/* The attention core of one layer in one phase: the work ring attention splits into cp
 * steps, one per KV block (the balanced chunk order makes the steps alike). */
static gboolean
is_attention_core (const BpwPlanTask *task)
{
  return task->layer_type == BPW_LAYER_ATTENTION &&
         (task->primitive == BPW_PRIM_BATCHED_MATMUL || task->primitive == BPW_PRIM_SOFTMAX ||
          task->primitive == BPW_PRIM_DROPOUT);
}

double
bpw_plan_cp_step_window (const BpwParallel *parallel,
                         BpwPhase           phase,
                         double             core_s)
{
  double steps = (double) MAX (parallel->cp, 1);

  /* The backward ring moves a dK/dV block beside each KV block on the same link: each of
   * the two transfers of a step has half of the step's compute to hide behind. */
  return core_s / steps / (phase == BPW_PHASE_BACKWARD_ACTIVATION ? 2.0 : 1.0);
}

/* Seconds of attention core per micro-batch, per (layer, phase) of stage @s. */
static double *
attention_core_times (const BpwPlan *plan, gint64 s)
{
  const BpwModelSpec *m = &plan->dist->graph->spec;
  GArray *tasks = plan->stages[s].tasks;
  double *core = g_new0 (double, (gsize) MAX (m->layers, 1) * BPW_N_PHASES);

  for (guint i = 0; i < tasks->len; i++)
    {
      const BpwPlanTask *task = &g_array_index (tasks, BpwPlanTask, i);

      if (is_attention_core (task) && task->layer >= 0 && task->layer < m->layers)
        core[(gsize) task->layer * BPW_N_PHASES + task->phase] += task->cost.time_s * task->count;
    }
  return core;
}

void
_bpw_plan_bind_transfers (BpwPlan *plan)
{
  const BpwDistWork *dist = plan->dist;
  const BpwBlueprint *bp = plan->blueprint;
  guint n_ops = dist->graph->ops->len;
  g_autofree gint32 *task_of = g_new (gint32, n_ops);
  gint64 ranks = dist->parallel.tp * dist->parallel.cp * dist->parallel.dp;

  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *colls = dist->stages[s].collectives;
      GArray *tasks = plan->stages[s].tasks;
      g_autofree double *core = dist->parallel.cp > 1 ? attention_core_times (plan, s) : NULL;

      for (guint i = 0; i < n_ops; i++)
        task_of[i] = -1;
      for (guint i = 0; i < tasks->len; i++)
        task_of[g_array_index (tasks, BpwPlanTask, i).op] = (gint32) i;

      for (guint i = 0; i < colls->len; i++)
        {
          const BpwCollective *c = &g_array_index (colls, BpwCollective, i);
          gboolean per_step = bpw_plan_transfer_per_step (c->group, c->kind, c->phase);
          gint tier = plan->mapping.tier[c->group];
          BpwPlanTransfer tr = {
            .op = c->op, .kind = c->kind, .group = c->group, .phase = c->phase,
            .layer_type = c->layer_type, .layer = c->layer, .name = c->name, .tier = tier,
            .ranks = c->group_size,
            .count = per_step ? (double) c->count
                              : (double) c->count / (double) plan->micro_batches,
            .bytes = (double) c->bytes,
          };
          const BpwTier *t;
          const char *name, *what;
          double served = 0, occurrences;

          /* ZeRO gathers the weights as their shards hold them: weight-only ones stored. */
          if (c->group == BPW_GROUP_DP && c->kind == BPW_COLLECTIVE_ALL_GATHER)
            tr.bytes -= _bpw_plan_weight_only_stage_gather_saving (
              plan, s, g_str_has_suffix (bpw_work_graph_name (dist->graph, c->name), "expert"));
          if (tier < 0 || (guint) tier >= bp->n_tiers)
            continue;
          t = &bp->tiers[tier];
          _bpw_plan_price_transfer (bp, &plan->mapping, tier, &tr);
          if (c->group == BPW_GROUP_CP && core != NULL && c->layer >= 0)
            served = bpw_plan_cp_step_window (&dist->parallel, c->phase,
                                              core[(gsize) c->layer * BPW_N_PHASES + c->phase]);
          else if (task_of[c->op] >= 0)
            served = g_array_index (tasks, BpwPlanTask, task_of[c->op]).cost.time_s;
          tr.served_s = served;
          tr.exposed_s = bpw_plan_transfer_exposed (&tr, t, plan->mapping.tp_overlap);
          g_array_append_val (plan->stages[s].transfers, tr);

          occurrences = tr.count * (per_step ? 1.0 : (double) plan->micro_batches) *
                        (double) ranks;
          name = algorithm_transformation (c->kind, tr.algorithm, &what);
          _bpw_plan_add_transformation (plan, name, what, 0, tr.wire_bytes * occurrences,
                                        occurrences);
        }
    }
}
