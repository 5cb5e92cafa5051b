/* bpw-plan-private.h — helpers shared by the binding's source files and the estimator
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The per-op rules the binding steps share live in bpw-plan-rules-private.h, included
 * here.
 */
#pragma once

#include "bpw-plan-rules-private.h"
#include "bpw-plan.h"
#include "bpw-work-graph.h"

G_BEGIN_DECLS

/* Binding steps (bpw-plan-bind.c). */
void       _bpw_plan_bind_tasks       (BpwPlan *plan);
void       _bpw_plan_bind_transfers   (BpwPlan *plan);
/* bpw-plan-flash.c: the score tiles a flash kernel runs. Per layer, the score elements per
 * head of its causal attention core's matrix and those of them (or beyond, outside a
 * window's band) that the kernel's blocks cover; scores 0 where the layer's attention is
 * not causal. flops: @op's FLOPs on the whole graph as the kernel executes them (its own
 * where it is no attention-core op of such a layer). scores: the elements of one head,
 * @rows queries each reaching back @window keys (0: all). */
typedef struct
{
  guint64 scores;
  guint64 executed;
} BpwFlashBand;

BpwFlashBand *_bpw_plan_flash_bands   (const BpwWorkGraph *g,
                                       gsize              *n_layers);
guint64    _bpw_plan_flash_flops      (const BpwFlashBand *bands,
                                       gsize               n_layers,
                                       const BpwWorkGraph *g,
                                       const BpwOp        *op);
guint64    _bpw_plan_flash_scores     (guint64             rows,
                                       guint64             window);
/* The head dimension @op's flash kernel runs over the model's: 1 for no QKᵀ or PV
 * product of an attention core (forward, backward or recompute). */
double     _bpw_plan_flash_head_factor (const BpwWorkGraph *g,
                                        const BpwOp        *op);
/* bpw-plan-host-stream.c: each layer's host-link stream and what it leaves exposed. */
void       _bpw_plan_bind_host_streams (BpwPlan *plan);
/* bpw-plan-stack.c: the blueprint's software stack as implementation transformations,
 * charged to the tasks they accompany. After the host streams: launch gaps compare the
 * eager issue time with each kernel's whole time. */
void       _bpw_plan_bind_stack       (BpwPlan *plan);
/* bpw-plan-stack-eager.c: one memory-bound kernel moving @bytes through device memory,
 * one eager element-wise kernel moving @bytes and writing @elements (0: vectorized), and
 * the eager recipe's bytes, kernels and time for @op (all 0 where the recipe does not
 * cover it). */
double     _bpw_plan_stack_kernel_time (const BpwPlan *plan,
                                        double         bytes);
double     _bpw_plan_eager_kernel_time (const BpwPlan *plan,
                                        double         bytes,
                                        double         elements);
void       _bpw_plan_eager_recipe      (const BpwPlan *plan,
                                        const BpwOp   *op,
                                        double        *bytes,
                                        double        *kernels,
                                        double        *time_s);
/* bpw-plan-weight-only.c: weight-only INT8 / INT4 weights, read and stored quantised and
 * dequantised in the kernel. init allocates the per-tensor record when a class asks for
 * it (plan->weight_only stays NULL otherwise); resolve sets a task's weights (or the GROUP
 * fallback); read gives a weight use's bytes and adds the weight elements it read;
 * dequant sets the task's dequant_ops once its tile is known; tally and record sum the
 * tasks into the "weight-only" and "weight_dequant" transformations. */
typedef struct _BpwPlanWeightOnly BpwPlanWeightOnly;
void       _bpw_plan_weight_only_init (BpwPlan           *plan);
void       _bpw_plan_weight_only_free (BpwPlanWeightOnly *wo);
void       _bpw_plan_resolve_weights  (const BpwPlan     *plan,
                                       const BpwOp       *op,
                                       const BpwTask     *task,
                                       BpwPlanTask       *pt);
double     _bpw_plan_weight_only_read (BpwPlan           *plan,
                                       const BpwPlanTask *pt,
                                       guint32            tensor,
                                       double             bytes,
                                       double            *elements);
void       _bpw_plan_weight_only_dequant (const BpwPlan  *plan,
                                          const BpwOp    *op,
                                          const BpwTask  *task,
                                          BpwPlanTask    *pt,
                                          double          elements);
/* Seconds of @task's dequantisation its @cost (without it) does not hide. */
double     _bpw_plan_dequant_exposed  (const BpwCostRates *rates,
                                       const BpwPlanTask  *task,
                                       const BpwTaskCost  *cost);
void       _bpw_plan_weight_only_tally (BpwPlan           *plan,
                                        const BpwPlanTask *pt,
                                        double             saved_bytes,
                                        double             per_step);
void       _bpw_plan_weight_only_record (BpwPlan         *plan);
/* Bytes per rank that graph tensor @tensor, or all of stage @stage's, holds less stored
 * weight-only (0 when it is also read otherwise); under ZeRO-3, of the rank's shard. */
double     _bpw_plan_weight_only_saving (const BpwPlan   *plan,
                                         guint            tensor);
double     _bpw_plan_weight_only_stage_saving (const BpwPlan *plan,
                                               gint64         stage);
/* Bytes that a data-parallel all-gather of @tensor's whole rank share, or of stage
 * @stage's dense (or, with @experts, expert) weights, moves less: ZeRO gathers the
 * weights as the shards hold them. */
double     _bpw_plan_weight_only_gather_saving (const BpwPlan *plan,
                                                guint          tensor);
double     _bpw_plan_weight_only_stage_gather_saving (const BpwPlan *plan,
                                                      gint64         stage,
                                                      gboolean       experts);
/* The stack's time per kernel launch as @plan launches (*@eager: from the eager issue
 * stream, a running maximum over the kernels; else a graph replay gap per kernel); 0 when
 * the stack states none. */
double     _bpw_plan_launch_gap       (const BpwPlan *plan,
                                       gboolean      *eager);
/* The device's own idle per boundary between issued eager kernels as @plan launches (0:
 * graph replay, or none stated). */
double     _bpw_plan_eager_device_gap (const BpwPlan *plan);
/* One step of the eager issue stream: the host issues a kernel every @h, the device runs
 * them in order; @kernels kernels of @busy seconds together (equal shares) added, returns
 * the device idle they add. */
typedef struct
{
  double issued;  /* kernels issued so far (on one rank, one micro-batch) */
  double busy;    /* device time of those kernels */
  double idle;    /* device idle so far */
} BpwIssueStream;

double     _bpw_issue_stream_add      (BpwIssueStream *q,
                                       double          h,
                                       double          kernels,
                                       double          busy);
/* The same with the device's own idle @g per boundary between issued kernels; the idle
 * returned includes @g per kernel. */
double     _bpw_eager_stream_add      (BpwIssueStream *q,
                                       double          h,
                                       double          g,
                                       double          kernels,
                                       double          busy);
/* bpw-plan-memory.c */
void       _bpw_plan_place_memory     (BpwPlan *plan);
/* Device bytes left of a category after placement; host bytes added to @host. Offloaded
 * categories keep two layers' worth on device, the double buffer that streams them. */
double     _bpw_plan_offload          (const BpwBlueprint *bp,
                                       const BpwMapping   *mapping,
                                       BpwTensorKind       kind,
                                       double              bytes,
                                       gint64              layers,
                                       double             *host);
/* Per tensor kind, the largest per-device bytes of any stage so far: @largest raised to
 * this stage's tallies (for bpw_plan_check_on_chip()). */
void       _bpw_plan_largest_kinds    (double              largest[BPW_N_TENSOR_KINDS],
                                       double              weights,
                                       double              gradients,
                                       double              optimizer_state,
                                       double              activations,
                                       double              kv_cache,
                                       double              temporaries,
                                       double              communication);
/* Per-rank bytes of layer @layer's activations live at once for one micro-batch, beyond
 * its checkpoints, with what fusion keeps on chip left out (bpw-plan-memory.c states the
 * rule): its recomputed copies in training, its forward's most in inference. */
double     _bpw_plan_layer_live_bytes (const BpwDistWork *dist,
                                       const guint32     *groups,
                                       gint32             layer);
/* Micro-batches' worth of stored activations a stage holds (interleaving included). */
/* What the blueprint's software stack holds beyond the model's own dtypes in training, per
 * rank: fp32 master bytes per byte of weights, the factor on gradient bytes (fp32 .grad),
 * the fp32 logits the last stage keeps per micro-batch, the optimizer step's scratch bytes
 * per byte of weights, and whether the weights in the compute dtype are autocast's
 * working copies (freed before the optimizer step). No stack: 0, 1, 0, 0, FALSE. */
typedef struct
{
  double   master_per_weight_byte;
  double   gradient_scale;
  double   logits_bytes;
  double   scratch_per_weight_byte;
  gboolean working_copies;
} BpwStackMemory;

/* Device bytes live during the optimizer step of a rank whose state lies on device as
 * @weights, @gradients, @optimizer_state (master included) and @kv_cache, the step
 * allocating @scratch beside it while a collective buffer of up to @communication bytes
 * may still be in flight (bpw-plan-memory.c states the rule). */
double     _bpw_plan_optimizer_step_bytes (const BpwStackMemory *sm,
                                           double               weights,
                                           double               gradients,
                                           double               optimizer_state,
                                           double               kv_cache,
                                           double               scratch,
                                           double               communication);
void       _bpw_plan_stack_memory     (const BpwBlueprint *bp,
                                       const BpwWorkGraph *g,
                                       const BpwParallel  *p,
                                       BpwStackMemory     *out);
double     _bpw_plan_stored_factor    (const BpwParallel  *parallel,
                                       gint64              micro_batches,
                                       gint64              stage,
                                       gint64              in_flight);

static inline void
_bpw_plan_reason (GPtrArray *reasons, const char *format, ...) G_GNUC_PRINTF (2, 3);

static inline void
_bpw_plan_reason (GPtrArray *reasons, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (reasons, g_strdup_vprintf (format, args));
  va_end (args);
}

G_END_DECLS
