/* bpw-evaluation.h — the analytic evaluation of one step: time, breakdown, MFU, memory, power
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Conventions (stated in every report):
 * - step time = m·t + (p−1)/v·t′ + max over stages (optimizer + exposed DP), where t is the
 *   slowest stage's time per micro-batch (forward, recompute, backward and its exposed TP,
 *   EP and PP communication, and the ZeRO-3 gathers its passes do not hide), t′ the
 *   largest such time without the ZeRO-3 gathers (a stage fetches its weights while it
 *   waits for the pipeline to fill or drain), m micro-batches per pipeline, p stages, v
 *   interleaved chunks. With DP overlap the
 *   gradient reduction hides behind the backward and the ZeRO 1/2 gather of the updated
 *   weights behind the next step's forward, each but one layer's bucket.
 * - breakdown: compute (engine time), memory_stall (memory time not hidden behind compute),
 *   latency (fixed per-op overheads), exposed_communication, bubble, recompute, optimizer;
 *   they add up to the step time exactly.
 * - MFU: model FLOPs (Megatron/PaLM: matmuls of forward and backward, full attention
 *   matrix, logits, no recompute) ÷ (step time × devices × dense matrix peak).
 *   HFU: executed matmul FLOPs (recompute included, padding excluded) over the same.
 * - memory-stall fraction of a layer type: its memory stall ÷ its task time (optimizer:
 *   the optimizer's tasks).
 * - by layer type: every device's step is split into the time of each layer type's
 *   operations — its tasks (forward, backward, recompute; the optimizer's tasks are the
 *   layer type "optimizer") and the exposed TP and EP collectives that serve them — and
 *   "other", the time no layer's operation takes: pipeline bubble, waits for pipeline
 *   sends, DP and ZeRO traffic and step-level collectives. The time of a layer type is
 *   the mean over all devices (every stage, not one rank: a stage may hold no head or no
 *   embedding), so the layer types and "other" add up to the step time. Each part is
 *   split by the bottleneck class of what takes it: a task's own class (compute, memory
 *   or latency) for its duration, communication for collectives and for the time a
 *   task is stretched by link contention, bubble for waiting on other stages.
 *   MFU of layer type L = model FLOPs of L ÷ (time of L × devices × dense matrix peak);
 *   "other" has no model FLOPs, MFU 0. Weighted by time share (time of L ÷ step time)
 *   they average to the step's MFU exactly.
 * - energy: idle power over the step plus each task's FLOPs, bytes and wire bytes at the
 *   blueprint's energy figures; without energy per FLOP, (TDP − idle) while busy; a power
 *   cap stretches the step's compute-bound time (bpw-power-step.h).
 */
#pragma once

#include "bpw-plan.h"

G_BEGIN_DECLS

/* Buckets of the step by layer type: one per BpwLayerType, then "other". */
#define BPW_LAYER_OTHER      BPW_N_LAYER_TYPES
#define BPW_N_LAYER_BUCKETS  (BPW_N_LAYER_TYPES + 1)
/* The classes a task (compute, memory, latency) or a collective (communication) falls in:
 * the first four of BpwBottleneck. Stage totals keep only these, as the estimator adds
 * them up many times per evaluation. */
#define BPW_N_WORK_CLASSES   (BPW_BOTTLENECK_LATENCY + 1)
G_STATIC_ASSERT (BPW_BOTTLENECK_COMPUTE < BPW_N_WORK_CLASSES &&
                 BPW_BOTTLENECK_MEMORY < BPW_N_WORK_CLASSES &&
                 BPW_BOTTLENECK_COMMUNICATION < BPW_N_WORK_CLASSES);

typedef enum
{
  BPW_BREAKDOWN_COMPUTE,
  BPW_BREAKDOWN_MEMORY_STALL,
  BPW_BREAKDOWN_LATENCY,
  BPW_BREAKDOWN_EXPOSED_COMMUNICATION,
  BPW_BREAKDOWN_BUBBLE,
  BPW_BREAKDOWN_RECOMPUTE,
  BPW_BREAKDOWN_OPTIMIZER,
  BPW_N_BREAKDOWNS
} BpwBreakdown;

/* What one rank of one stage does, accumulated from a plan's tasks or from the
 * estimator's templates. Per micro-batch unless marked per step. */
typedef struct
{
  double  compute, stall, overhead;        /* forward + backward tasks */
  double  recompute;                       /* recompute tasks (all of their time) */
  double  forward;                         /* forward task time (window of the weight gather) */
  double  backward;                        /* backward task time (window of the reduction) */
  double  backward_weight;                 /* of it, the weight gradients (ZB-H1's W) */
  double  optimizer;                       /* per step */
  double  comm_exposed;                    /* TP, EP and PP, not hidden */
  double  comm_exposed_forward;            /* the forward pass's part of it */
  double  comm_link;                       /* time on links */
  double  dp_time;                         /* per step: DP collectives on the link */
  double  dp_usage;                        /* per step: dp_time weighted by the processor
                                            * usage of each collective's tier */
  double  dp_gather;                       /* per step: the part of dp_time that gathers
                                            * the updated weights (ZeRO 1/2) */
  double  dp_gather_usage;                 /* per step: its share of dp_usage */
  double  dp_mb_gather;                    /* per step: the part of dp_time that gathers
                                            * the weights for each micro-batch (ZeRO 3) */
  double  dp_mb_gather_usage;              /* per step: its share of dp_usage */
  double  layer_time[BPW_N_LAYER_TYPES];    /* task time (optimizer: per step) */
  double  layer_stall[BPW_N_LAYER_TYPES];
  double  layer_class[BPW_N_LAYER_TYPES][BPW_N_WORK_CLASSES];  /* forward, recompute and
                                            * backward task time by the task's class, and
                                            * exposed TP and EP time as communication */
  double  optimizer_class[BPW_N_WORK_CLASSES];  /* per step: optimizer tasks by class */
  double  comm_exposed_pipeline;           /* of comm_exposed: the pipeline sends */
  double  matmul_flops;                    /* executed, recompute included, no padding */
  double  busy;                            /* task time, for energy without per-FLOP figures */
  double  energy;                          /* dynamic J per micro-batch */
  double  energy_step;                     /* dynamic J per step (optimizer, DP) */
  double  memory;                          /* device bytes at the peak (bound) */
  /* Not summed (keep after the doubles above, which may be combined linearly). */
  gint64  n_layers;
  gint64  ranks;                           /* ranks of this stage: tp·dp */
  gint64  copies;                          /* identical stages this one stands for (≥ 1) */
  gint64  memory_stage;                    /* index of the stage whose memory this is */
  gint64  first_stage;                     /* index of the first stage it stands for */
} BpwStageTotals;

typedef struct
{
  gboolean       legal;
  double         step_time_s;
  double         breakdown_s[BPW_N_BREAKDOWNS];
  double         mfu, hfu;
  double         model_flops;        /* per step, whole job */
  double         hardware_flops;     /* executed matmul FLOPs per step, whole job */
  double         peak_bytes;         /* device memory of the most loaded device (bound) */
  gint64         peak_stage;
  double         capacity_bytes;
  double         stall_fraction[BPW_N_LAYER_TYPES];  /* NaN: no work of that type */
  /* By layer type and "other" (BPW_LAYER_OTHER), as the conventions above say: mean
   * seconds per device by bottleneck class, adding up to step_time_s; the MFU of each
   * (NaN where it takes no time). */
  double         layer_class_s[BPW_N_LAYER_BUCKETS][BPW_N_BOTTLENECKS];
  double         layer_mfu[BPW_N_LAYER_BUCKETS];
  double         layer_model_flops[BPW_N_LAYER_TYPES];  /* per step, whole job */
  double         job_peak_flops;     /* devices × dense matrix peak: MFU's FLOP/s */
  BpwBottleneck  bottleneck;
  gint64         slowest_stage;
  double         comm_link_s;        /* per step, on the slowest stage's links */
  double         energy_j;           /* per step, whole job */
  double         average_power_w;    /* per device; NaN when the blueprint has no power */
  double         tokens_per_s;
  double         ttft_s, tpot_s;     /* NaN where the scenario has none */
  double         tokens_per_joule;
} BpwEvaluation;

/* Which sum bpw_stage_totals_book_time() put a task's time in: the optimizer's, the
 * recomputation's (which books no compute, stall or overhead of its own), or the work of
 * forward and backward. */
typedef enum
{
  BPW_BOOKED_OPTIMIZER,
  BPW_BOOKED_RECOMPUTE,
  BPW_BOOKED_WORK,
} BpwBookedAs;

/* Books @time of a task of @phase, @layer_type and @bottleneck into the busy time, its
 * phase's sum and the time by layer type and bottleneck class (the optimizer's as a layer
 * type of its own); the caller adds what its kind of time brings besides. */
BpwBookedAs bpw_stage_totals_book_time (BpwStageTotals *totals,
                                        BpwPhase        phase,
                                        BpwLayerType    layer_type,
                                        BpwBottleneck   bottleneck,
                                        double          time);
/* Adds @scale times a task's or a transfer's per-micro-batch (or per-step) figures. */
void     bpw_stage_totals_add_task     (const BpwPlan         *plan,
                                        const BpwPlanTask     *task,
                                        double                 scale,
                                        BpwStageTotals        *totals);
void     bpw_stage_totals_add_transfer (const BpwTier         *tier,
                                        const BpwPlanTransfer *transfer,
                                        double                 scale,
                                        BpwStageTotals        *totals);

/* Per-stage accumulation of a bound plan. */
void     bpw_stage_totals_from_plan (const BpwPlan  *plan,
                                     gint64          stage,
                                     BpwStageTotals *totals);

typedef struct
{
  gint64            micro_batches;
  gint64            pp;
  gint64            interleave;     /* 1 unless interleaved */
  BpwSchedule       schedule;
  gint64            devices;
  BpwWorkloadPhase  phase;
  gboolean          dp_overlap;
  double            peak_flops;     /* dense matrix peak per device */
  double            model_flops;    /* per step, whole job */
  double            layer_model_flops[BPW_N_LAYER_TYPES];  /* of which each layer type's */
  double            tokens_per_step;
  double            sequences_per_step;
  double            capacity;
  double            idle_power, tdp;  /* W; NaN when unknown */
  double            power_cap;        /* W; NaN when unset (bpw-power-step.h) */
  gboolean          legal;
  gboolean          fits;           /* memory fits (else the bottleneck is capacity) */
} BpwStepContext;

/* Combines the stages into the step. No allocation: the estimator's hot path. */
void     bpw_evaluation_combine     (const BpwStepContext *ctx,
                                     const BpwStageTotals *stages,
                                     gint64                n_stages,
                                     BpwEvaluation        *out);

/* Accumulates every stage of @plan and combines them. */
void     bpw_evaluation_from_plan   (const BpwPlan  *plan,
                                     BpwEvaluation  *out);

/* FALSE (BPW_ERROR_INVALID_INPUT) when a figure of @eval that reaches a user or a ranking
 * is infinite or NaN (NaN stays allowed where it means "none": TTFT, TPOT, power, energy
 * per token, stall shares). The message names @blueprint_name, whose rates are what can
 * drive a step to infinity or NaN, and the figure. */
gboolean bpw_evaluation_check_finite (const BpwEvaluation *eval,
                                      const char          *blueprint_name,
                                      GError             **error);

void     bpw_step_context_init      (BpwStepContext     *ctx,
                                     const BpwBlueprint *bp,
                                     const BpwScenario  *scenario,
                                     const BpwParallel  *parallel,
                                     gboolean            dp_overlap,
                                     BpwPrecision        precision,
                                     gint64              micro_batches,
                                     double              model_flops,
                                     double              tokens_per_step);

const char *bpw_breakdown_to_string (BpwBreakdown breakdown);

/* The layer type's name, or "other" for BPW_LAYER_OTHER (JSON and CSV keys). */
const char *bpw_layer_bucket_to_string (guint bucket);
/* Its translated name for people ("Attention", "Other"). */
const char *bpw_layer_bucket_display_name (guint bucket);
/* Time of a bucket: its classes added up. */
double   bpw_evaluation_layer_time       (const BpwEvaluation *eval,
                                          guint                bucket);
/* The class that takes most of a bucket's time (compute for a bucket without time). */
BpwBottleneck bpw_evaluation_layer_bottleneck (const BpwEvaluation *eval,
                                               guint                bucket);
/* Fills layer_mfu from layer_class_s, layer_model_flops and job_peak_flops. */
void     bpw_evaluation_set_layer_mfu    (BpwEvaluation       *eval);

/* The `bpw evaluate --json` object (DESIGN.md keys; NaN written as null). @plan is
 * nullable (analytic evaluation without a plan); @reasons nullable. */
char    *bpw_evaluation_to_json     (const BpwEvaluation *eval,
                                     const BpwPlan       *plan,
                                     GPtrArray           *reasons);

G_END_DECLS
