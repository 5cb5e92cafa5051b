/* bpw-plan-rules-private.h — the mapping's choices looked up per op, tensor and collective
 * (bpw-plan-rules.c), shared by the binding steps and the estimator
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-plan.h"
#include "bpw-work-graph.h"

G_BEGIN_DECLS

/* Whether @name is one of the attention core's ops or their backward and recompute ops
 * ("attn.qk", "attn.qk.dgrad", "attn.av.recompute"; not "attn.qkv"). */
gboolean   _bpw_plan_attention_core_name (const char *name);

/* The fusion flag an op belongs to under @fusion (0: none). Attention fusion takes the
 * attention core (scores, softmax, attention dropout, context) in every phase; bias +
 * activation takes the MLP's first matmul epilogue; norm + residual the element-wise
 * region between blocks. Shared with the estimator's templates. */
BpwFusion  _bpw_plan_op_fusion        (const BpwWorkGraph *graph,
                                       const BpwOp        *op,
                                       guint               fusion);

/* Per-op fusion group ids under @fusion (0: none), @graph->ops->len entries. A tensor is
 * kept on chip when its producer and its last consumer share a group. */
guint32   *_bpw_plan_fusion_groups    (const BpwWorkGraph *graph,
                                       guint               fusion);
gboolean   _bpw_plan_tensor_on_chip   (const BpwWorkGraph *graph,
                                       const guint32      *groups,
                                       const BpwTensor    *tensor);

/* Engine kind the mapping assigns to @primitive (matrix for matmuls by default). */
BpwEngineKind _bpw_plan_engine_kind   (const BpwBlueprint *bp,
                                       const BpwMapping   *mapping,
                                       BpwPrimitive        primitive);

/* Traffic level of a tensor kind under the mapping's placement. */
BpwTrafficLevel _bpw_plan_traffic_level (const BpwBlueprint *bp,
                                         const BpwMapping   *mapping,
                                         BpwTensorKind       kind);

/* Per-rank matmul shape of a task: the TP split divides heads (batched) or the wider of
 * n and k (the weight's split dimension). */
void       _bpw_plan_rank_shape       (const BpwOp *op,
                                       guint64      tp_parts,
                                       double      *batch,
                                       double      *m,
                                       double      *n,
                                       double      *k);

/* Prices @tr (its kind, group, bytes and ranks set) on tier @tier, on the span its group
 * has under @mapping's layout (bpw-cost-topology.h): the mapping's algorithm for the tier
 * where it carries the collective there, else the cheapest; fills algorithm, time_s and
 * wire_bytes. */
void       _bpw_plan_price_transfer   (const BpwBlueprint *bp,
                                       const BpwMapping   *mapping,
                                       gint                tier,
                                       BpwPlanTransfer    *tr);

/* An implementation transformation of the software stack: as above, with its time. */
void       _bpw_plan_add_implementation (BpwPlan    *plan,
                                         const char *name,
                                         const char *description,
                                         double      flops,
                                         double      bytes,
                                         double      kernels,
                                         double      time_s);
void       _bpw_plan_add_transformation (BpwPlan    *plan,
                                         const char *name,
                                         const char *description,
                                         double      flops,
                                         double      bytes,
                                         double      count);

G_END_DECLS
