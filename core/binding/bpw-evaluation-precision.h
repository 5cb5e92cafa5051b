/* bpw-evaluation-precision.h — where a plan's time goes by precision, what fell back and
 * why, and the precision and sparsity modes it is credited for
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Time and FLOPs are device-seconds and executed FLOPs per step over the whole job, task
 * by task (communication is not in any precision). A mode is a reduced number format a
 * matrix task runs in ("fp8-e4m3", "fp8-e5m2", "fp4", "int8") or "sparsity-2:4"; its
 * predicted gain is the analytic step time of the same plan with that mode taken out
 * (its classes in bf16, dense, or with native weights) over the plan's own. A gain is a prediction of the
 * model, not a measurement: whether the mode keeps quality is evidence a study records.
 */
#pragma once

#include "bpw-plan.h"
#include "bpw-precision-policy.h"

G_BEGIN_DECLS

typedef struct
{
  const char *name;      /* static: the format ("fp8-e4m3", "bf16"), or the scenario's
                          * precision for element-wise work and fp32 / fp16 matmuls */
  gboolean    sparse;    /* 2:4 sparse weight matmuls */
  double      time_s;    /* device-seconds per step, whole job */
  double      flops;     /* executed FLOPs per step, whole job */
} BpwPrecisionShare;

typedef struct
{
  BpwMatmulClass   cls;
  BpwNumberFormat  wanted;      /* what the policy asked */
  BpwFallback      reason;
  guint            operations;  /* tasks (one operation on one stage) */
  double           executions;  /* per step, whole job */
} BpwPrecisionFallback;

typedef struct
{
  const char *mode;        /* static: "fp8-e4m3", "sparsity-2:4" ... */
  double      time_ratio;  /* step time without the mode ÷ with it (> 1: a gain) */
} BpwPrecisionMode;

/* What @task runs in: its format ("fp8-e4m3"), the scenario's precision, or with
 * weight-only weights "int4 w/ g128 (bf16 compute)" (interned). */
const char *bpw_plan_task_precision_name (const BpwPlan     *plan,
                                          const BpwPlanTask *task);
/* BpwPrecisionShare by name and sparsity, in the order first met. */
GArray     *bpw_plan_precision_shares    (const BpwPlan *plan);
/* BpwPrecisionFallback by class, wanted format and reason. */
GArray     *bpw_plan_precision_fallbacks (const BpwPlan *plan);
/* BpwPrecisionMode of every mode @plan uses, with its predicted gain: each one is taken
 * out by binding the plan's work again (a reduced format: the classes that ask for it,
 * and the scenario's dtype when `--dtype` implies it, in bf16; sparsity: every class
 * dense) on the same blueprint and mapping. NULL with @error when that binding fails. */
GArray     *bpw_evaluation_precision_modes (const BpwPlan *plan,
                                            GError       **error);

G_END_DECLS
