/* bpw-plan-stack-eager.c — the eager element-wise kernels of an unfused software stack
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Apart from bpw-plan-stack.c, which charges them (the "unfused_elementwise" and
 * "amp_cast" transformations): what an eager PyTorch model issues for each element-wise
 * primitive, per element, and the time of one such kernel.
 */
#define G_LOG_DOMAIN "bpw-plan-stack"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-plan-private.h"
#include "bpw-dist-work-private.h"

#define FP32_BYTES 4.0

/* One memory-bound kernel moving @bytes through device memory. */
double
_bpw_plan_stack_kernel_time (const BpwPlan *plan,
                             double         bytes)
{
  double b[BPW_N_TRAFFIC_LEVELS] = { 0 };
  BpwTaskCost cost;

  b[BPW_TRAFFIC_DEVICE] = bytes;
  bpw_cost_task (&plan->rates, &plan->rates.vector, 0, b, &cost);
  return cost.time_s;
}

/* One eager element-wise kernel moving @bytes and writing @elements (0: vectorized, bound by
 * its bytes alone): off the vectorized path it takes at least its fixed cost and its
 * elements at the stack's element rate. */
double
_bpw_plan_eager_kernel_time (const BpwPlan *plan,
                             double         bytes,
                             double         elements)
{
  const BpwSourced *rate = &plan->blueprint->stack.elementwise_rate;
  double t = _bpw_plan_stack_kernel_time (plan, bytes);

  if (elements > 0 && rate->set && rate->value > 0)
    t = MAX (t, plan->rates.vector.overhead + elements / rate->value);
  return t;
}

/* The eager (unfused) forms of the element-wise ops: the kernels an eager PyTorch model of
 * the stack issues for each primitive, in the dtypes autocast gives them, and the bytes each
 * moves per element of its tensor. Three dtypes: e, the compute dtype (matmul outputs,
 * attention inputs); r, the dtype the model holds its own tensors in (the residual stream,
 * the norm weights, the rotary tables): fp32 in training with fp32 master weights, where the
 * embedding's fp32 rows start an fp32 residual stream, else e; and l, the loss's: fp32 with
 * fp32 logits, else e. Autocast casts an fp32 tensor to e where a matmul or attention reads
 * it and its gradient back up in backward: the "cast" kernels, present only where r ≠ e.
 * A norm's statistics are one value per token (a kernel each, next to no bytes).
 *
 * Each kernel moves @per bytes per element of the op's basis tensor (the forward output, or
 * in backward the gradient of it that the op reads): per = e·E + r·R + l·L + 4·F; a
 * half-width kernel (rotary's halves) has half the coefficients. The recipe replaces the
 * one kernel the work graph prices the op as: the transformation is its time less the
 * task's. Kernels as PyTorch 2.11 runs them, checked against the shared H200 pack's traced
 * training step (fp32 residual) and prefill (bf16).
 *
 * PyTorch runs an element-wise kernel vectorized only when every operand is contiguous and
 * of the output's dtype (a cast down to bf16 has a vectorized kernel of its own). A
 * broadcast operand (the norm's rsqrt and weight, rotary's cos and sin), a strided one (the
 * halves of the gate+up product, of q and k) or a dtype converted per element (a cast up,
 * an add of bf16 into fp32) takes the strided or the unrolled kernel, which its elements
 * bound rather than its bytes (OFF: at the stack's elementwise_rate where it states one;
 * out is the elements each launch writes per element of the basis). */
typedef enum
{
  WHEN_ALWAYS,
  WHEN_CAST,         /* autocast: r ≠ e */
  WHEN_UPCAST,       /* an explicit .float() of a tensor held below fp32: r ≠ 4 */
  WHEN_SAME,         /* r = e */
} KernelWhen;

typedef enum
{
  ON_BASIS,          /* per element of the basis tensor */
  ON_ROW,            /* per token: a row statistic */
  ON_ALL,            /* per element of all the op writes (rotary: q, k and v) */
} KernelOn;

typedef struct
{
  BpwPrimitive  primitive;
  guint8        phase;     /* BPW_PHASE_FORWARD (and RECOMPUTE), _BACKWARD_ACTIVATION, _WEIGHT */
  KernelWhen    when;
  KernelOn      on;
  double        e, r, l, f; /* bytes per element: × e, × r, × l, × 4 (fp32) */
  gboolean      offpath;    /* off the vectorized path: bound by its elements too */
  double        out;        /* elements each launch writes, per element of the basis */
  const char   *kernel;     /* what runs, as the profiler names the op */
} EagerKernel;

#define FWD BPW_PHASE_FORWARD
#define BWD BPW_PHASE_BACKWARD_ACTIVATION
#define WGT BPW_PHASE_BACKWARD_WEIGHT
#define VEC FALSE
#define OFF TRUE

static const EagerKernel eager_kernels[] = {
  /* RMSNorm, x.float(); x.pow(2).mean(-1, keepdim); x * rsqrt(var + eps); w * x.to(dtype):
   * on the basis T·h. An fp32 residual needs neither the up-cast nor the cast back, but
   * autocast then casts the fp32 output for the matmul that reads it (the traced training
   * step: pow, mean, add, rsqrt, mul, mul, copy_ per norm; prefill: copy_, pow, mean, add,
   * rsqrt, mul, copy_, mul). */
  { BPW_PRIM_NORM, FWD, WHEN_UPCAST, ON_BASIS, 0, 1, 0, 1, OFF, 1, "aten::copy_ (x.float())" },
  { BPW_PRIM_NORM, FWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 2, VEC, 0, "aten::pow" },
  { BPW_PRIM_NORM, FWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 1, VEC, 0, "aten::mean" },
  { BPW_PRIM_NORM, FWD, WHEN_ALWAYS, ON_ROW, 0, 0, 0, 2, VEC, 0, "aten::add (+ eps)" },
  { BPW_PRIM_NORM, FWD, WHEN_ALWAYS, ON_ROW, 0, 0, 0, 2, VEC, 0, "aten::rsqrt" },
  { BPW_PRIM_NORM, FWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 2, OFF, 1, "aten::mul (x * rsqrt)" },
  { BPW_PRIM_NORM, FWD, WHEN_UPCAST, ON_BASIS, 0, 1, 0, 1, VEC, 0, "aten::copy_ (.to(dtype))" },
  { BPW_PRIM_NORM, FWD, WHEN_ALWAYS, ON_BASIS, 0, 2, 0, 0, OFF, 1, "aten::mul (weight *)" },
  { BPW_PRIM_NORM, FWD, WHEN_CAST, ON_BASIS, 1, 1, 0, 0, VEC, 0, "aten::copy_ (autocast)" },
  /* Its backward, autograd's of each forward op in fp32: the weight's gradient (g · x̂,
   * summed over tokens) and the input's (g · w; through rsqrt: g · x, summed over the row,
   * the row statistics, the mean's gradient spread by a div, the pow's by two muls, a copy
   * and the two paths added). */
  { BPW_PRIM_NORM, BWD, WHEN_CAST, ON_BASIS, 1, 1, 0, 0, OFF, 1, "aten::copy_ (autocast)" },
  { BPW_PRIM_NORM, BWD, WHEN_UPCAST, ON_BASIS, 0, 1, 0, 1, OFF, 1, "aten::copy_ (.to(dtype))" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 2, OFF, 1, "aten::mul (g * weight)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 3, VEC, 0, "aten::mul (g * x)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 2, OFF, 1, "aten::mul (g * rsqrt)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 1, VEC, 0, "aten::sum (over the row)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_ROW, 0, 0, 0, 2, VEC, 0, "aten::pow" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_ROW, 0, 0, 0, 2, VEC, 0, "aten::mul" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_ROW, 0, 0, 0, 3, VEC, 0, "aten::mul" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 1, OFF, 1, "aten::div (mean)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 2, VEC, 0, "aten::copy_ (memcpy)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 2, VEC, 0, "aten::mul (pow)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 3, VEC, 0, "aten::mul (pow)" },
  { BPW_PRIM_NORM, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 3, VEC, 0, "aten::add_" },
  { BPW_PRIM_NORM, BWD, WHEN_UPCAST, ON_BASIS, 0, 1, 0, 1, VEC, 0, "aten::copy_ (x.float())" },
  { BPW_PRIM_NORM, WGT, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 3, VEC, 0, "aten::mul (g * x̂)" },
  { BPW_PRIM_NORM, WGT, WHEN_ALWAYS, ON_BASIS, 0, 0, 0, 1, VEC, 0, "aten::sum (over tokens)" },
  /* SiLU gate on the halves of the gate+up product, per element of the output T·f:
   * silu(gate), · up; backward: the gradients of up (g · silu) and of silu's output (g · up),
   * silu_backward, and the two halves' gradients joined by a cat (2e read, 2e written). */
  { BPW_PRIM_SWIGLU, FWD, WHEN_ALWAYS, ON_BASIS, 2, 0, 0, 0, OFF, 1, "aten::silu" },
  { BPW_PRIM_SWIGLU, FWD, WHEN_ALWAYS, ON_BASIS, 3, 0, 0, 0, OFF, 1, "aten::mul" },
  { BPW_PRIM_SWIGLU, BWD, WHEN_ALWAYS, ON_BASIS, 3, 0, 0, 0, VEC, 0, "aten::mul (g * silu)" },
  { BPW_PRIM_SWIGLU, BWD, WHEN_ALWAYS, ON_BASIS, 3, 0, 0, 0, OFF, 1, "aten::mul (g * up)" },
  { BPW_PRIM_SWIGLU, BWD, WHEN_ALWAYS, ON_BASIS, 3, 0, 0, 0, OFF, 1, "aten::silu_backward" },
  { BPW_PRIM_SWIGLU, BWD, WHEN_ALWAYS, ON_BASIS, 4, 0, 0, 0, VEC, 0, "aten::cat" },
  /* Rotary on the interleaved pairs, for each of q and k on its own (per element of it):
   * x1·cos, x2·sin, x2·cos, x1·sin on the strided halves x[..., ::2] and x[..., 1::2] (e in,
   * the tables' r out), the difference and the sum, and the two stacked back into pairs
   * (one strided copy per half); autocast then casts q and k for attention. Backward: the
   * gradient cast up, the four products' gradients (· cos, · sin) each cast to q's dtype,
   * the sub's neg, the halves' gradients added (add_), each strided slice's gradient a
   * zero fill and a copy into it, the two added; then q, k and v's gradients joined. */
  { BPW_PRIM_ROTARY, FWD, WHEN_ALWAYS, ON_BASIS, 2, 2, 0, 0, OFF, 0.5, "aten::mul x4 (halves)" },
  { BPW_PRIM_ROTARY, FWD, WHEN_ALWAYS, ON_BASIS, 0, 1.5, 0, 0, VEC, 0, "aten::sub (half)" },
  { BPW_PRIM_ROTARY, FWD, WHEN_ALWAYS, ON_BASIS, 0, 1.5, 0, 0, VEC, 0, "aten::add (half)" },
  { BPW_PRIM_ROTARY, FWD, WHEN_ALWAYS, ON_BASIS, 0, 2, 0, 0, OFF, 0.5,
    "aten::stack x2 (halves interleaved)" },
  { BPW_PRIM_ROTARY, FWD, WHEN_CAST, ON_BASIS, 1, 1, 0, 0, VEC, 0, "aten::copy_ (autocast)" },
  { BPW_PRIM_ROTARY, BWD, WHEN_CAST, ON_BASIS, 1, 1, 0, 0, OFF, 1, "aten::copy_ (autocast)" },
  { BPW_PRIM_ROTARY, BWD, WHEN_ALWAYS, ON_BASIS, 0, 4, 0, 0, OFF, 0.5, "aten::mul x4 (halves)" },
  { BPW_PRIM_ROTARY, BWD, WHEN_CAST, ON_BASIS, 2, 2, 0, 0, VEC, 0, "aten::copy_ x4 (halves)" },
  { BPW_PRIM_ROTARY, BWD, WHEN_ALWAYS, ON_BASIS, 0, 1, 0, 0, OFF, 0.5, "aten::neg (half)" },
  { BPW_PRIM_ROTARY, BWD, WHEN_ALWAYS, ON_BASIS, 3, 0, 0, 0, VEC, 0, "aten::add_ x2 (halves)" },
  { BPW_PRIM_ROTARY, BWD, WHEN_ALWAYS, ON_BASIS, 2, 0, 0, 0, VEC, 0, "aten::fill_ x2" },
  { BPW_PRIM_ROTARY, BWD, WHEN_ALWAYS, ON_BASIS, 2, 0, 0, 0, OFF, 0.5,
    "aten::copy_ x2 (halves)" },
  { BPW_PRIM_ROTARY, BWD, WHEN_ALWAYS, ON_BASIS, 3, 0, 0, 0, VEC, 0, "aten::add_" },
  { BPW_PRIM_ROTARY, BWD, WHEN_ALWAYS, ON_ALL, 2, 0, 0, 0, VEC, 0, "aten::cat (q, k, v)" },
  /* A residual add of the branch (e) into the stream (r); backward: the stream's gradient
   * accumulated (add_) and, where they differ, cast to the branch's dtype. */
  { BPW_PRIM_ADD, FWD, WHEN_CAST, ON_BASIS, 1, 2, 0, 0, OFF, 1, "aten::add (mixed dtypes)" },
  { BPW_PRIM_ADD, FWD, WHEN_SAME, ON_BASIS, 1, 2, 0, 0, VEC, 0, "aten::add" },
  { BPW_PRIM_ADD, BWD, WHEN_ALWAYS, ON_BASIS, 0, 3, 0, 0, VEC, 0, "aten::add_" },
  { BPW_PRIM_ADD, BWD, WHEN_CAST, ON_BASIS, 1, 1, 0, 0, VEC, 0, "aten::copy_ (autocast)" },
  /* Cross-entropy over the vocabulary, per logit (its casts are fp32_logits'): log_softmax
   * reads a row too long for an SM's shared memory three times (maximum, sum of
   * exponentials, output) and writes it; nll_loss gathers one per token. Backward: the
   * log-probabilities' gradient zero-filled, nll_loss_backward scatters one per token, and
   * log_softmax_backward reads the gradient twice (its sum, then the output) and writes. */
  { BPW_PRIM_CROSS_ENTROPY, FWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 4, 0, VEC, 0,
    "aten::_log_softmax" },
  { BPW_PRIM_CROSS_ENTROPY, FWD, WHEN_ALWAYS, ON_ROW, 0, 0, 0, 3, VEC, 0,
    "aten::nll_loss_forward" },
  { BPW_PRIM_CROSS_ENTROPY, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 1, 0, VEC, 0, "aten::fill_" },
  { BPW_PRIM_CROSS_ENTROPY, BWD, WHEN_ALWAYS, ON_ROW, 0, 0, 0, 3, VEC, 0,
    "aten::nll_loss_backward" },
  { BPW_PRIM_CROSS_ENTROPY, BWD, WHEN_ALWAYS, ON_BASIS, 0, 0, 4, 0, VEC, 0,
    "aten::_log_softmax_backward_data" },
};

#undef FWD
#undef BWD
#undef WGT
#undef VEC
#undef OFF

/* Kernels a row of the table stands for: the rotary rows marked x2 and x4 are that many
 * launches, each over a half or a whole of the tensor. */
static double
eager_kernel_launches (const EagerKernel *k)
{
  if (strstr (k->kernel, " x4") != NULL)
    return 4;
  if (strstr (k->kernel, " x2") != NULL)
    return 2;
  return 1;
}

/* Elements of the tensors of @kind that @op uses with @access, on the rank: their sum, or
 * with @largest the largest one's. */
static double
elements_of (const BpwPlan *plan, const BpwOp *op, BpwTensorKind kind, BpwAccess access,
             gboolean largest)
{
  const BpwWorkGraph *g = plan->dist->graph;
  double most = 0;

  for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);
      const BpwTensor *t = bpw_work_graph_tensor (g, use->tensor);
      double n;

      if (t->kind != kind || use->access != access)
        continue;
      n = ceil ((double) use->bytes / (double) _bpw_dist_work_tensor_parts (plan->dist, t))
          / bpw_dtype_bytes (t->dtype);
      most = largest ? MAX (most, n) : most + n;
    }
  return most;
}

/* Whether the eager recipe covers @op: the norms the table gives (RMSNorm; LayerNorm is one
 * native kernel), rotary, the SiLU gate, residual adds and the loss. */
static gboolean
eager_covers (const BpwPlan *plan, const BpwOp *op)
{
  const BpwWorkGraph *g = plan->dist->graph;

  switch ((BpwPrimitive) op->primitive)
    {
    case BPW_PRIM_NORM:
      return g->spec.norm == BPW_NORM_RMSNORM;
    case BPW_PRIM_ROTARY:
    case BPW_PRIM_SWIGLU:
    case BPW_PRIM_CROSS_ENTROPY:
      return TRUE;
    case BPW_PRIM_ADD:
      /* "attn.residual", and its backward "attn.residual.dgrad" */
      {
        const char *name = bpw_work_graph_name (g, op->name);
        const char *at = strstr (name, ".residual");

        return at != NULL && (at[9] == '\0' || at[9] == '.');
      }
    default:
      return FALSE;
    }
}

/* The recipe's bytes, kernels and time for @op (none where it does not cover it). */
void
_bpw_plan_eager_recipe (const BpwPlan *plan,
                        const BpwOp   *op,
                        double        *bytes,
                        double        *kernels,
                        double        *time_s)
{
  const BpwStack *st = &plan->blueprint->stack;
  const BpwWorkGraph *g = plan->dist->graph;
  const BpwModelSpec *spec = &g->spec;
  double e = bpw_dtype_bytes (op->dtype);
  gboolean train = g->scenario.phase == BPW_WORKLOAD_TRAIN;
  double r = st->fp32_master && train ? FP32_BYTES : e;
  double l = st->fp32_logits ? FP32_BYTES : e;
  guint phase = op->phase == BPW_PHASE_RECOMPUTE ? BPW_PHASE_FORWARD : op->phase;
  double basis, row, parts[2], all;
  guint n_parts = 1;

  *bytes = *kernels = *time_s = 0;
  if (!eager_covers (plan, op))
    return;
  /* The basis: the forward output (rotary's: q, k and v; the loss's: the logits it reads,
   * its largest input), or the gradient of it that a backward op reads (the loss: the
   * logits' gradient it writes). */
  if (op->primitive == BPW_PRIM_CROSS_ENTROPY)
    basis = phase == BPW_PHASE_FORWARD
            ? elements_of (plan, op, BPW_TENSOR_ACTIVATION, BPW_ACCESS_READ, TRUE)
            : elements_of (plan, op, BPW_TENSOR_ACTIVATION_GRAD, BPW_ACCESS_WRITE, TRUE);
  else if (phase == BPW_PHASE_FORWARD)
    basis = elements_of (plan, op, BPW_TENSOR_ACTIVATION, BPW_ACCESS_WRITE, FALSE);
  else
    basis = elements_of (plan, op, BPW_TENSOR_ACTIVATION_GRAD, BPW_ACCESS_READ, FALSE);
  if (basis <= 0)
    return;
  row = op->primitive == BPW_PRIM_CROSS_ENTROPY ? (double) spec->vocab : (double) spec->hidden;
  all = basis;
  parts[0] = basis;
  /* Rotary works on q and k apart, in kernels of their own; v passes through. */
  if (op->primitive == BPW_PRIM_ROTARY && spec->kv_heads > 0)
    {
      double heads = (double) spec->heads, kv = (double) spec->kv_heads;

      parts[0] = basis * heads / (heads + 2 * kv);
      parts[1] = basis * kv / (heads + 2 * kv);
      n_parts = 2;
    }
  for (guint i = 0; i < G_N_ELEMENTS (eager_kernels); i++)
    {
      const EagerKernel *k = &eager_kernels[i];
      double per, launches, one;
      const double *sizes;
      guint n_sizes;

      if (k->primitive != op->primitive || k->phase != phase
          || (k->when == WHEN_CAST && r == e) || (k->when == WHEN_SAME && r != e)
          || (k->when == WHEN_UPCAST && r == FP32_BYTES))
        continue;
      per = k->e * e + k->r * r + k->l * l + k->f * FP32_BYTES;
      launches = eager_kernel_launches (k);
      /* A row statistic or all of q, k and v: one size; else each part of the basis. */
      one = k->on == ON_ALL ? all : ceil (basis / MAX (row, 1.0));
      sizes = k->on == ON_BASIS ? parts : &one;
      n_sizes = k->on == ON_BASIS ? n_parts : 1;
      for (guint p = 0; p < n_sizes; p++)
        {
          *bytes += sizes[p] * per;
          *kernels += launches;
          *time_s += launches * _bpw_plan_eager_kernel_time (plan, sizes[p] * per / launches,
                                                             k->offpath ? sizes[p] * k->out
                                                                        : 0);
        }
    }
}
