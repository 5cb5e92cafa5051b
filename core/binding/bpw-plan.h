/* bpw-plan.h — distributed work bound to a blueprint by a mapping: a legal, costed plan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Binding is the one place where work and hardware meet. It resolves the mapping's
 * automatic choices, checks legality (every violated rule one sentence), applies the
 * transformations the mapping implies (fusion, tiling, padding, collective algorithms,
 * offload) and records each with what it added or removed, and costs every task and
 * transfer. Tasks are stored per pipeline stage, like the distributed work.
 */
#pragma once

#include "bpw-dist-work.h"
#include "bpw-mapping.h"
#include "bpw-cost.h"

G_BEGIN_DECLS

typedef struct _BpwPlan BpwPlan;

typedef struct
{
  guint32        op;            /* lineage id */
  guint8         engine;        /* BpwEngineKind it runs on */
  guint8         phase;         /* BpwPhase */
  guint8         layer_type;    /* BpwLayerType */
  guint8         primitive;     /* BpwPrimitive */
  guint8         fusion;        /* BpwFusion flag whose group it belongs to, 0 none */
  guint8         op_class;      /* BpwMatmulClass */
  guint8         format;        /* BpwNumberFormat a matrix task runs in; DEFAULT: the
                                 * scenario's dtype (element-wise work, fp32 / fp16) */
  guint8         precision;     /* BpwPrecision whose engine rate it runs at */
  guint8         fallback;      /* BpwFallback: why it runs bf16 against the policy */
  guint8         sparse;        /* 2:4 sparse weights: twice the engine's dense rate */
  guint8         weights;       /* BpwWeightFormat its weights are read in: weight-only
                                 * INT8 / INT4 (of the class's group), computed in @format */
  gint32         layer;
  guint32        fusion_group;  /* 0 none; tasks of one group share the id */
  double         count;         /* executions per micro-batch (per step: optimizer) */
  double         flops;         /* executed per execution, padding included */
  double         padding_flops; /* of which padding to the engine tile */
  double         rate_flops;    /* the FLOPs its engine's efficiency is looked up at: a
                                 * flash backward's, its forward's (0: flops) */
  double         bytes[BPW_N_TRAFFIC_LEVELS];  /* physical traffic per execution */
  double         fused_bytes;   /* traffic the fusion kept on chip */
  double         tiling_bytes;  /* traffic beyond compulsory because of tiling */
  double         tile_m, tile_n;
  double         stash_bytes;   /* activation offload: the layer's stored activations this
                                 * task waits to stream to or from host, per execution */
  double         stream_s;      /* of cost.time_s and cost.stall_s: what the layer's host
                                 * stream leaves exposed, charged here (bpw-plan-host-stream.c) */
  double         impl_s;        /* of cost.time_s and cost.overhead_s: what the blueprint's
                                 * software stack adds beside this task's kernel (casts,
                                 * element-wise kernels, launch gaps ...; bpw-plan-stack.c) */
  double         dequant_ops;   /* weight-only: vector operations dequantising its weights,
                                 * per execution (bpw-plan-weight-only.c) */
  double         dequant_s;     /* of cost.time_s and cost.overhead_s: the part of the
                                 * dequantisation that the weight loads and the matrix work
                                 * do not hide */
  guint32        impl_kinds;    /* bit k: implementation transformation k (named by
                                 * bpw_plan_implementation_name()) is part of impl_s */
  double         launch_s;      /* of impl_s: device idle waiting for eager launches (or
                                 * graph replay gaps) charged here, per execution */
  double         issue_kernels; /* per micro-batch: kernels the host issues for this task,
                                 * and their device time without launch_s (the eager */
  double         issue_busy;    /* issue stream's input, which the estimator replays) */
  double         issue_alone;   /* issue_kernels were the task's fused kernel not shared with
                                 * the task before it of another layer or pass */
  BpwTaskCost    cost;          /* per execution */
} BpwPlanTask;

typedef struct
{
  guint32            op;        /* lineage id of the op it serves */
  guint8             kind;      /* BpwCollectiveKind */
  guint8             group;     /* BpwGroupKind */
  guint8             phase;
  guint8             layer_type;
  gint32             layer;     /* block, or BPW_LAYER_BEFORE_BLOCKS / AFTER_BLOCKS */
  guint32            name;      /* in the work graph's string table: "tp.output_reduce" */
  gint               tier;
  BpwCollectiveAlgo  algorithm;
  gint64             ranks;
  double             count;     /* per micro-batch (per step: DP) */
  double             bytes;     /* logical message bytes */
  double             wire_bytes; /* per rank per direction after the algorithm */
  double             time_s;    /* per occurrence on the link */
  double             exposed_s; /* per occurrence, not hidden by overlap */
  double             served_s;  /* time of the task it serves (the overlap window) */
} BpwPlanTransfer;

/* Memory per rank of a stage after placement: what lives on device and on host. */
typedef struct
{
  double  weights, gradients, optimizer_state, activations, kv_cache;
  double  temporaries;     /* the largest working set of a forward or backward task */
  double  communication;   /* the largest collective buffer */
  double  optimizer_step;  /* training: what lives during the optimizer step, which
                            * updates the state in place (bpw-plan-memory.c) */
  double  optimizer_scratch;   /* of which allocated by the step (Adam's foreach sqrt) */
  double  optimizer_released;  /* weights (autocast's working copies) not live then */
  double  device_total;    /* the larger of the forward-backward sum and optimizer_step */
  double  host_total;
} BpwPlanMemory;

typedef struct
{
  GArray        *tasks;      /* BpwPlanTask */
  GArray        *transfers;  /* BpwPlanTransfer */
  BpwPlanMemory  memory;
} BpwPlanStage;

/* A named transformation and what it changed, whole job per step. */
typedef struct
{
  const char *name;          /* static: "padding", "fused-attention", "ring-all-reduce" ... */
  const char *description;   /* static sentence */
  double      flops;         /* added (negative: removed) */
  double      bytes;         /* traffic added (negative: removed) */
  double      count;         /* how many times it applied; kernels for implementation ones */
  /* Implementation transformations (the blueprint's software stack: "amp_cast",
   * "unfused_elementwise", "optimizer_implementation", "launch_gaps", "fp32_logits",
   * "moe_dispatch_loop") carry their own time, device-seconds summed over every rank per
   * step; the semantic work plus these is what the step costs. */
  gboolean    implementation;
  double      time_s;
} BpwTransformation;

struct _BpwPlan
{
  BpwDistWork   *dist;        /* owned */
  BpwBlueprint  *blueprint;   /* owned copy */
  BpwMapping     mapping;     /* owned copy, automatic choices resolved */
  BpwPrecision   precision;
  BpwCostRates   rates;       /* points into blueprint */
  gint64         micro_batches;  /* per pipeline per step */
  gint64         devices;
  double         capacity;    /* device memory per device, bytes */
  BpwPlanStage  *stages;      /* dist->n_stages */
  GArray        *transformations;  /* BpwTransformation */
  /* Per graph tensor, how the plan stores a weight read weight-only (NULL: no weight-only
   * class): bpw-plan-weight-only.c. */
  struct _BpwPlanWeightOnly *weight_only;  /* owned, nullable */
  gboolean       legal;
  GPtrArray     *reasons;     /* owned sentences; empty when legal */
};

/* Takes ownership of @dist. Returns NULL only when binding is impossible to even attempt
 * (no usable engine or device memory); an illegal but costable plan is returned with
 * legal == FALSE and its reasons. */
BpwPlan      *bpw_plan_new     (BpwDistWork        *dist,
                                const BpwBlueprint *blueprint,
                                const BpwMapping   *mapping,
                                GError            **error);
void          bpw_plan_free    (BpwPlan            *plan);

/* Every legality reason joined into one message (for a GError / stderr). */
char         *bpw_plan_reasons_to_string (const BpwPlan *plan);

/* Resolves -1 tiers: each group goes on the innermost tier whose size spans it (ranks are
 * laid out TP innermost, then PP, then EP within DP). Also used by the estimator. */
void          bpw_plan_resolve_tiers (const BpwBlueprint *bp,
                                      const BpwParallel  *parallel,
                                      const gint          requested[BPW_N_GROUPS],
                                      gint                resolved[BPW_N_GROUPS]);
/* Tier rules (index in range, product of degrees on a tier ≤ its size, must_be_filled
 * divides) appended to @reasons as sentences; TRUE when none is violated. */
gboolean      bpw_plan_check_tiers   (const BpwBlueprint *bp,
                                      const BpwParallel  *parallel,
                                      const gint          tiers[BPW_N_GROUPS],
                                      GPtrArray          *reasons);
/* The first parallel group of more than one rank (a BpwGroupKind) that @plan's mapping
 * puts on a tier its blueprint does not have, or -1. Such a plan is illegal (with that
 * reason) and binds no transfer at all: it has no communication to cost or simulate. */
gint          bpw_plan_group_off_tiers (const BpwPlan *plan);
/* Collective algorithms the mapping names for a tier that does not offer them, appended
 * to @reasons as sentences; TRUE when there are none. (An algorithm a tier offers but a
 * collective cannot use, tree for an all-to-all, is no violation: that collective runs
 * as the cheapest algorithm it can use.) */
gboolean      bpw_plan_check_algorithms (const BpwBlueprint *bp,
                                         const BpwMapping   *mapping,
                                         GPtrArray          *reasons);

/* Every tensor kind placed at -1 (device), the host or a memory level @bp has; otherwise
 * a BPW_ERROR_INVALID_INPUT naming the kind, the level and the blueprint's levels. */
gboolean      bpw_plan_check_placement (const BpwBlueprint *bp,
                                        const BpwMapping   *mapping,
                                        GError            **error);
/* Kinds placed on an on-chip level (registers, SRAM, cache) whose per-device @bytes exceed
 * the level's capacity × instances, appended to @reasons as sentences; TRUE when none. */
gboolean      bpw_plan_check_on_chip   (const BpwBlueprint *bp,
                                        const BpwMapping   *mapping,
                                        const double        bytes[BPW_N_TENSOR_KINDS],
                                        GPtrArray          *reasons);

/* Transfers that happen once per step at its end, not per micro-batch: DP gradient
 * reductions, optimizer traffic and the tied-embedding gradient all-reduce between the
 * first and the last pipeline stage. */
static inline gboolean
bpw_plan_transfer_per_step (guint group, guint kind, guint phase)
{
  return group == BPW_GROUP_DP || phase == BPW_PHASE_OPTIMIZER ||
         (group == BPW_GROUP_PP && kind == BPW_COLLECTIVE_ALL_REDUCE);
}

/* The ZeRO 1/2 all-gather of the updated weight shards, once per step after the optimizer
 * (with DP overlap: behind the next step's forward). */
static inline gboolean
bpw_plan_transfer_gathers_update (guint group, guint kind, guint phase)
{
  return group == BPW_GROUP_DP && kind == BPW_COLLECTIVE_ALL_GATHER &&
         phase == BPW_PHASE_OPTIMIZER;
}

/* The ZeRO-3 all-gather of a stage's weight shards before a micro-batch's forward (and,
 * in training, its backward), prefetched while the segment before it runs. */
static inline gboolean
bpw_plan_transfer_gathers_per_micro_batch (guint group, guint kind, guint phase)
{
  return group == BPW_GROUP_DP && kind == BPW_COLLECTIVE_ALL_GATHER &&
         phase == BPW_PHASE_FORWARD;
}

/* The cost of one execution of @task under @rates: a matrix task at the rate of its own
 * precision (rates->matrix_in), doubled when its weights are 2:4 sparse (the blueprint's
 * "sparsity": ["2:4"] doubles the dense matrix peak). A layer's host-homed operands cost the
 * task only their device copy: the layer streams them over the host link beside its work
 * (bpw-plan-host-stream.c) and task->stream_s, what that stream leaves exposed, is added.
 * The optimizer's host traffic, once per step, stays the task's own. */
void          bpw_plan_task_cost (const BpwCostRates *rates,
                                  const BpwPlanTask  *task,
                                  BpwTaskCost        *cost);

/* Context parallelism's ring: the compute one send/recv step of the ring hides behind,
 * given @core_s, the seconds of one layer's attention core in @phase on one rank (per
 * micro-batch): core_s / cp, halved in backward, where a dK/dV block shares the step's
 * link with the KV block. */
double        bpw_plan_cp_step_window   (const BpwParallel     *parallel,
                                         BpwPhase               phase,
                                         double                 core_s);
/* Part of a transfer's time not hidden behind the task it serves (TP overlap; the CP ring:
 * max(0, time − served_s) per step). */
double        bpw_plan_transfer_exposed (const BpwPlanTransfer *transfer,
                                         const BpwTier         *tier,
                                         BpwTpOverlap           overlap);

/* The name of implementation transformation @kind ("amp_cast", "launch_gaps" ...), as the
 * plan's transformations list it; NULL past the last kind. Bit @kind of a task's
 * impl_kinds says that it is part of the task's impl_s. */
const char   *bpw_plan_implementation_name (guint kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwPlan, bpw_plan_free)

G_END_DECLS
