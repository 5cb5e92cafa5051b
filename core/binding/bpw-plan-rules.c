/* bpw-plan-rules.c — the mapping's choices looked up per op, tensor and collective
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fusion groups, engine kinds, traffic levels, per-rank matmul shapes, collective
 * algorithms and the tally of layout transformations: what the binding steps
 * (bpw-plan-bind.c, -host-stream.c, -memory.c) and the estimator ask while binding.
 * Kept apart from the plan's lifecycle in bpw-plan.c, which runs those steps, so that
 * they do not call back into it.
 */
#define G_LOG_DOMAIN "bpw-plan"

#include "config.h"

#include <string.h>

#include "bpw-plan-rules-private.h"
#include "bpw-cost-topology.h"

static gboolean
name_has_prefix (const BpwWorkGraph *g, const BpwOp *op, const char *prefix)
{
  return g_str_has_prefix (bpw_work_graph_name (g, op->name), prefix);
}

/* The attention core's ops and their backward and recompute ops: "attn.qk", "attn.qk.dgrad",
 * "attn.av.recompute" — but not "attn.qkv", the projection in front of the core, which the
 * flash kernel does not run (a bare prefix match took it, its gradients and its bias into
 * the fused kernel: their launches vanished and, without rotary, its output never reached
 * device memory). */
gboolean
_bpw_plan_attention_core_name (const char *name)
{
  static const char * const core[] = { "attn.qk", "attn.softmax", "attn.dropout", "attn.av" };

  for (guint i = 0; i < G_N_ELEMENTS (core); i++)
    {
      gsize n = strlen (core[i]);

      if (strncmp (name, core[i], n) == 0 && (name[n] == '\0' || name[n] == '.'))
        return TRUE;
    }
  return FALSE;
}

BpwFusion
_bpw_plan_op_fusion (const BpwWorkGraph *g,
                     const BpwOp        *op,
                     guint               fusion)
{
  if ((fusion & BPW_FUSION_ATTENTION) && op->layer_type == BPW_LAYER_ATTENTION &&
      _bpw_plan_attention_core_name (bpw_work_graph_name (g, op->name)))
    return BPW_FUSION_ATTENTION;
  if ((fusion & BPW_FUSION_BIAS_ACTIVATION) &&
      (op->primitive == BPW_PRIM_GELU || op->primitive == BPW_PRIM_SWIGLU ||
       (op->primitive == BPW_PRIM_BIAS &&
        (name_has_prefix (g, op, "mlp.fc1") || name_has_prefix (g, op, "mlp.gate_up") ||
         name_has_prefix (g, op, "moe.expert.fc1") || name_has_prefix (g, op, "moe.shared.fc1")))))
    return BPW_FUSION_BIAS_ACTIVATION;
  if ((fusion & BPW_FUSION_NORM_RESIDUAL) && op->split == BPW_SPLIT_SEQUENCE &&
      (op->primitive == BPW_PRIM_NORM || op->primitive == BPW_PRIM_ADD ||
       op->primitive == BPW_PRIM_DROPOUT))
    return BPW_FUSION_NORM_RESIDUAL;
  if ((fusion & BPW_FUSION_OPTIMIZER) && op->phase == BPW_PHASE_OPTIMIZER)
    return BPW_FUSION_OPTIMIZER;
  return 0;
}

guint32 *
_bpw_plan_fusion_groups (const BpwWorkGraph *g,
                         guint               fusion)
{
  guint32 *groups = g_new0 (guint32, g->ops->len);

  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);
      BpwFusion f = _bpw_plan_op_fusion (g, op, fusion);
      /* Attention fusion spans forward and backward of a layer (the backward kernel
       * recomputes the scores on chip); the others fuse within one phase. */
      guint phase = f == BPW_FUSION_ATTENTION ? 0 : op->phase + 1u;

      if (f != 0)
        groups[i] = ((guint32) (op->layer + 3) * 8u + phase) * 16u + (guint32) f;
    }
  return groups;
}

gboolean
_bpw_plan_tensor_on_chip (const BpwWorkGraph *g,
                          const guint32      *groups,
                          const BpwTensor    *t)
{
  if (t->producer < 0 || t->last_consumer < 0)
    return FALSE;
  if (groups[t->producer] == 0 || groups[t->producer] != groups[t->last_consumer])
    return FALSE;
  return t->kind == BPW_TENSOR_ACTIVATION || t->kind == BPW_TENSOR_ACTIVATION_GRAD;
}

BpwEngineKind
_bpw_plan_engine_kind (const BpwBlueprint *bp,
                       const BpwMapping   *mapping,
                       BpwPrimitive        primitive)
{
  gint e = mapping->engine[primitive];

  if (e >= 0 && (guint) e < bp->n_engines)
    return bp->engines[e].kind == BPW_ENGINE_MATRIX ? BPW_ENGINE_MATRIX : BPW_ENGINE_VECTOR;
  return primitive == BPW_PRIM_MATMUL || primitive == BPW_PRIM_BATCHED_MATMUL
         ? BPW_ENGINE_MATRIX : BPW_ENGINE_VECTOR;
}

BpwTrafficLevel
_bpw_plan_traffic_level (const BpwBlueprint *bp,
                         const BpwMapping   *mapping,
                         BpwTensorKind       kind)
{
  gint level = mapping->placement[kind];

  if (level == BPW_PLACEMENT_HOST)
    return BPW_TRAFFIC_HOST;
  if (level >= 0 && (guint) level < bp->n_memory && bp->memory[level].kind == BPW_MEMORY_HOST)
    return BPW_TRAFFIC_HOST;
  return BPW_TRAFFIC_DEVICE;
}

void
_bpw_plan_rank_shape (const BpwOp *op,
                      guint64      tp_parts,
                      double      *batch,
                      double      *m,
                      double      *n,
                      double      *k)
{
  *batch = (double) MAX (op->batch, 1);
  *m = (double) op->m;
  *n = (double) op->n;
  *k = (double) op->k;
  if (tp_parts <= 1)
    return;
  if (op->primitive == BPW_PRIM_BATCHED_MATMUL)
    *batch = MAX (1.0, *batch / (double) tp_parts);
  else if (*n >= *k)
    *n /= (double) tp_parts;
  else
    *k /= (double) tp_parts;
}

void
_bpw_plan_price_transfer (const BpwBlueprint *bp,
                          const BpwMapping   *mapping,
                          gint                tier,
                          BpwPlanTransfer    *tr)
{
  BpwCollectiveAlgo algo = tier < BPW_MAPPING_MAX_TIERS ? mapping->algorithm[tier] : 0;
  BpwCollectiveSpan span;

  bpw_cost_span_init (&span, bp, (guint) tier, tr->ranks,
                      bpw_cost_group_stride (&mapping->parallel, tr->group));
  /* The tier's choice holds for the collectives it can carry; an all-to-all on a tier set
   * to tree or in-network still runs as ring or direct, whichever is cheaper. */
  if (algo == 0 || !bpw_cost_span_applies (&span, algo, tr->kind))
    algo = bpw_cost_span_best (&span, tr->kind, tr->bytes);
  tr->algorithm = algo;
  tr->time_s = bpw_cost_span_time (&span, algo, tr->kind, tr->bytes);
  tr->wire_bytes = bpw_cost_span_wire_bytes (&span, algo, tr->kind, tr->bytes);
}

void
_bpw_plan_add_implementation (BpwPlan    *plan,
                              const char *name,
                              const char *description,
                              double      flops,
                              double      bytes,
                              double      kernels,
                              double      time_s)
{
  g_array_append_val (plan->transformations, ((BpwTransformation) {
    .name = name, .description = description, .flops = flops, .bytes = bytes,
    .count = kernels, .implementation = TRUE, .time_s = time_s,
  }));
}

void
_bpw_plan_add_transformation (BpwPlan    *plan,
                              const char *name,
                              const char *description,
                              double      flops,
                              double      bytes,
                              double      count)
{
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      if (strcmp (t->name, name) == 0)
        {
          t->flops += flops;
          t->bytes += bytes;
          t->count += count;
          return;
        }
    }
  g_array_append_val (plan->transformations, ((BpwTransformation) {
    .name = name, .description = description, .flops = flops, .bytes = bytes, .count = count,
  }));
}
