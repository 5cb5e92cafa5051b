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
/* bpw-plan-host-stream.c: each layer's host-link stream and what it leaves exposed. */
void       _bpw_plan_bind_host_streams (BpwPlan *plan);
/* bpw-plan-stack.c: the blueprint's software stack as implementation transformations,
 * charged to the tasks they accompany. After the host streams: launch gaps compare the
 * eager issue time with each kernel's whole time. */
void       _bpw_plan_bind_stack       (BpwPlan *plan);
/* The stack's time per kernel launch as @plan launches (*@eager: from the eager issue
 * stream, a running maximum over the kernels; else a graph replay gap per kernel); 0 when
 * the stack states none. */
double     _bpw_plan_launch_gap       (const BpwPlan *plan,
                                       gboolean      *eager);
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
/* Micro-batches' worth of stored activations a stage holds (interleaving included). */
/* What the blueprint's software stack holds beyond the model's own dtypes in training, per
 * rank: fp32 master bytes per byte of weights, the factor on gradient bytes (fp32 .grad),
 * and the fp32 logits the last stage keeps per micro-batch. No stack: 0, 1, 0. */
typedef struct
{
  double master_per_weight_byte;
  double gradient_scale;
  double logits_bytes;
} BpwStackMemory;

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
