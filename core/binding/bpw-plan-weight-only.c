/* bpw-plan-weight-only.c — weight-only INT8 / INT4 quantisation of a plan's weight matmuls
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A class whose policy stores its weights weight-only (bpw-precision-policy.h) has each
 * forward matmul that reads a weight read it as ⌈n·k·bits/8⌉ + ⌈n·k/group⌉·2 bytes
 * instead of n·k·e, and the stage holds it so in memory when nothing else reads it (a
 * tied embedding's gather, a backward pass and an optimizer need the weights as they
 * are). The matmul still computes at the activation precision: its FLOPs and rate do not
 * change. Dequantising the weights in the kernel is an implementation transformation of
 * its own, "weight_dequant": BPW_WEIGHT_DEQUANT_OPS vector operations per weight element
 * for every row tile of the activations (for an expert, of the rows routed to it), on the
 * vector engine beside the matrix engine and the weight loads; the task's time grows by
 * what of it they do not hide, max (0, compute + dequant − max (compute, memory)).
 */
#define G_LOG_DOMAIN "bpw-plan-weight-only"

#include "config.h"

#include <math.h>

#include "bpw-plan-private.h"
#include "bpw-dist-work-private.h"

typedef struct
{
  guint8  weights;     /* BpwWeightFormat a weight-only matmul reads it in; 0 none */
  guint8  other_read;  /* also read otherwise: it stays in memory as it is */
  gint64  group;
} WeightOnlyTensor;

struct _BpwPlanWeightOnly
{
  WeightOnlyTensor *tensors;   /* per graph tensor */
  guint             n_tensors;
  double            saved_bytes;   /* traffic, per step over the whole job */
  double            dequant_ops;   /* per step over the whole job */
  double            dequant_s;     /* exposed device-seconds, per step over the whole job */
  double            executions;    /* weight-only matmul executions per step */
};

void
_bpw_plan_weight_only_init (BpwPlan *plan)
{
  const BpwPrecisionPolicy *policy = &plan->mapping.precision;
  gboolean any = FALSE;

  for (guint c = 0; policy->set && c < BPW_N_POLICY_CLASSES; c++)
    any |= policy->classes[c].weights != BPW_WEIGHT_FORMAT_NATIVE;
  if (!any)
    return;
  plan->weight_only = g_new0 (BpwPlanWeightOnly, 1);
  plan->weight_only->n_tensors = plan->dist->graph->tensors->len;
  plan->weight_only->tensors = g_new0 (WeightOnlyTensor, plan->weight_only->n_tensors);
}

void
_bpw_plan_weight_only_free (BpwPlanWeightOnly *wo)
{
  if (wo == NULL)
    return;
  g_free (wo->tensors);
  g_free (wo);
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

void
_bpw_plan_resolve_weights (const BpwPlan *plan,
                           const BpwOp   *op,
                           const BpwTask *task,
                           BpwPlanTask   *pt)
{
  const BpwClassPrecision *c;
  double batch, m, n, k;

  pt->weights = BPW_WEIGHT_FORMAT_NATIVE;
  if (plan->weight_only == NULL || pt->op_class >= BPW_N_POLICY_CLASSES)
    return;
  c = &plan->mapping.precision.classes[pt->op_class];
  /* The forward matmul that multiplies activations by a weight; the backward reads its
   * transpose, whose groups would run along the other axis. A class computing in a
   * reduced format is not weight-only (the reader refuses the pair). */
  if (c->weights == BPW_WEIGHT_FORMAT_NATIVE || op->primitive != BPW_PRIM_MATMUL ||
      op->phase != BPW_PHASE_FORWARD || bpw_number_format_is_reduced (pt->format) || pt->sparse ||
      !reads_weight (plan->dist->graph, op))
    return;
  _bpw_plan_rank_shape (op, task->tp_parts, &batch, &m, &n, &k);
  pt->fallback = bpw_weight_only_fallback (c->weights, c->group, k);
  if (pt->fallback == BPW_FALLBACK_NONE)
    pt->weights = c->weights;
}

double
_bpw_plan_weight_only_read (BpwPlan           *plan,
                            const BpwPlanTask *pt,
                            guint32            tensor,
                            double             bytes,
                            double            *elements)
{
  const BpwTensor *t = bpw_work_graph_tensor (plan->dist->graph, tensor);
  WeightOnlyTensor *wo;
  const BpwClassPrecision *c;
  double e = bpw_dtype_bytes (t->dtype), n;
  gint64 stored;

  if (plan->weight_only == NULL || tensor >= plan->weight_only->n_tensors ||
      t->kind != BPW_TENSOR_WEIGHT || e <= 0)
    return bytes;
  wo = &plan->weight_only->tensors[tensor];
  if (pt->weights == BPW_WEIGHT_FORMAT_NATIVE)
    {
      wo->other_read = TRUE;
      return bytes;
    }
  c = &plan->mapping.precision.classes[pt->op_class];
  n = round (bytes / e);
  stored = bpw_weight_only_bytes (pt->weights, c->group, (gint64) n);
  wo->weights = pt->weights;
  wo->group = c->group;
  *elements += n;
  return (double) stored;
}

/* The routed experts a rank holds: expert parallelism deals them out over its group. */
static double
local_experts (const BpwPlan *plan)
{
  const BpwDistWork *dist = plan->dist;

  return MAX (1.0, (double) dist->graph->spec.experts / (double) MAX (dist->parallel.ep, 1));
}

void
_bpw_plan_weight_only_dequant (const BpwPlan *plan,
                               const BpwOp   *op,
                               const BpwTask *task,
                               BpwPlanTask   *pt,
                               double         elements)
{
  double batch, m, n, k, passes;

  if (pt->weights == BPW_WEIGHT_FORMAT_NATIVE || elements <= 0)
    return;
  _bpw_plan_rank_shape (op, task->tp_parts, &batch, &m, &n, &k);
  m /= (double) MAX (task->cp_parts, 1);
  /* A grouped expert GEMM is one matmul of the rank's routed rows over all its experts'
   * weights, but each expert multiplies only the rows routed to it: its weights are
   * dequantised once per row tile of those, m / (E / ep) rows when the router balances. */
  if (op->split == BPW_SPLIT_EXPERT)
    m = ceil (m / local_experts (plan));
  /* The kernel dequantises a weight tile for every row tile of the activations. */
  passes = pt->tile_m > 0 ? ceil (m / pt->tile_m) : 1.0;
  pt->dequant_ops = BPW_WEIGHT_DEQUANT_OPS * elements * MAX (passes, 1.0);
}

double
_bpw_plan_dequant_exposed (const BpwCostRates *rates,
                           const BpwPlanTask  *task,
                           const BpwTaskCost  *cost)
{
  const BpwEngineRate *v = &rates->vector;
  double dequant;

  if (task->dequant_ops <= 0 || v->peak <= 0)
    return 0;
  dequant = task->dequant_ops / (v->peak * bpw_efficiency_table_lookup (v->efficiency,
                                                                         task->dequant_ops));
  if (rates->processing == BPW_PROCESSING_NO_OVERLAP)
    return dequant;
  return MAX (0.0, cost->compute_s + dequant - MAX (cost->compute_s, cost->memory_s));
}

void
_bpw_plan_weight_only_tally (BpwPlan           *plan,
                             const BpwPlanTask *pt,
                             double             saved_bytes,
                             double             per_step)
{
  BpwPlanWeightOnly *wo = plan->weight_only;

  if (wo == NULL || pt->weights == BPW_WEIGHT_FORMAT_NATIVE)
    return;
  wo->saved_bytes += saved_bytes * per_step;
  wo->dequant_ops += pt->dequant_ops * per_step;
  wo->dequant_s += pt->dequant_s * per_step;
  wo->executions += per_step;
}

void
_bpw_plan_weight_only_record (BpwPlan *plan)
{
  BpwPlanWeightOnly *wo = plan->weight_only;

  if (wo == NULL || wo->executions <= 0)
    return;
  _bpw_plan_add_transformation (plan, "weight-only", "weights stored INT8 or INT4 with an "
                                "fp16 scale per group along k and read so: device-memory "
                                "traffic removed", 0, -wo->saved_bytes, wo->executions);
  _bpw_plan_add_implementation (plan, "weight_dequant", "weight-only weights dequantised to "
                                "the compute precision inside the matmul kernel: vector "
                                "operations beside the matrix engine, and the time the "
                                "weight loads and matrix work do not hide", wo->dequant_ops,
                                0, 0, wo->dequant_s);
}

/* Bytes that tensor @tensor's rank share (its TP and EP part, @shards ways sharded
 * beyond) is less stored weight-only than as it is; 0 when it is also read otherwise. */
static double
tensor_saving (const BpwPlan *plan,
               guint          tensor,
               guint64        shards)
{
  const WeightOnlyTensor *wo;
  const BpwTensor *t;
  double e;
  gint64 rank, stored;

  if (plan->weight_only == NULL || tensor >= plan->weight_only->n_tensors)
    return 0;
  wo = &plan->weight_only->tensors[tensor];
  if (wo->weights == BPW_WEIGHT_FORMAT_NATIVE || wo->other_read)
    return 0;
  t = bpw_work_graph_tensor (plan->dist->graph, tensor);
  e = bpw_dtype_bytes (t->dtype);
  if (e <= 0)
    return 0;
  rank = (gint64) _bpw_dist_work_tensor_rank_bytes (plan->dist, t);
  stored = bpw_weight_only_bytes (wo->weights, wo->group, (gint64) round ((double) rank / e));
  /* Sharded as bpw-dist-memory.c shards the weights: each shard rounded up. */
  rank = (rank + (gint64) shards - 1) / (gint64) shards;
  stored = (stored + (gint64) shards - 1) / (gint64) shards;
  return (double) MAX (0, rank - stored);
}

double
_bpw_plan_weight_only_saving (const BpwPlan *plan,
                              guint          tensor)
{
  const BpwParallel *p = &plan->dist->parallel;
  const BpwTensor *t;
  guint64 shards = 1;

  if (plan->weight_only == NULL || tensor >= plan->weight_only->n_tensors)
    return 0;
  t = bpw_work_graph_tensor (plan->dist->graph, tensor);
  /* ZeRO-3 holds a 1/(dp × cp) shard of the weights (of dp / ep × cp for the experts). */
  if (p->zero >= 3)
    shards = (guint64) (t->split == BPW_SPLIT_EXPERT ? p->dp / MAX (p->ep, 1) : p->dp) *
             (guint64) MAX (p->cp, 1);
  return tensor_saving (plan, tensor, MAX (shards, 1));
}

double
_bpw_plan_weight_only_gather_saving (const BpwPlan *plan,
                                     guint          tensor)
{
  return tensor_saving (plan, tensor, 1);
}

double
_bpw_plan_weight_only_stage_saving (const BpwPlan *plan,
                                    gint64         stage)
{
  const BpwDistWork *dist = plan->dist;
  double saved = 0;

  for (guint i = 0; plan->weight_only != NULL && i < plan->weight_only->n_tensors; i++)
    if (plan->weight_only->tensors[i].weights != BPW_WEIGHT_FORMAT_NATIVE &&
        _bpw_dist_work_stage_of_layer (dist, bpw_work_graph_tensor (dist->graph, i)->layer)
          == stage)
      saved += _bpw_plan_weight_only_saving (plan, i);
  return saved;
}

double
_bpw_plan_weight_only_stage_gather_saving (const BpwPlan *plan,
                                           gint64         stage,
                                           gboolean       experts)
{
  const BpwDistWork *dist = plan->dist;
  double saved = 0;

  for (guint i = 0; plan->weight_only != NULL && i < plan->weight_only->n_tensors; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (dist->graph, i);

      if (plan->weight_only->tensors[i].weights != BPW_WEIGHT_FORMAT_NATIVE &&
          (t->split == BPW_SPLIT_EXPERT) == !!experts &&
          _bpw_dist_work_stage_of_layer (dist, t->layer) == stage)
        saved += _bpw_plan_weight_only_gather_saving (plan, i);
    }
  return saved;
}
