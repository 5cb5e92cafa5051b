/* bpw-precision-policy.h — which precision and sparsity each class of matmul runs in
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A mapping may carry a precision policy: per operation class, the number format its
 * matmuls run in, how their operands are scaled, whether the class is held in bf16 for
 * quality, and 2:4 structured sparsity of its weights. Binding resolves the policy per
 * operation; what cannot run as asked falls back to bf16 with a reason:
 *   engine:  the matrix engine has no rate in that precision (its "peak" lacks it);
 *   quality: the policy keeps the class in bf16 (a quality threshold it misses);
 *   shape:   the operation's per-rank k or n is not a multiple of 16 elements (the
 *            alignment low-precision GEMMs require, Transformer Engine's FP8 check), or, with
 *            per-block scaling, k is not a multiple of the block;
 *   group:   weight-only quantisation whose group size does not divide the per-rank k.
 *
 * Weight-only quantisation (GPTQ, AWQ; Marlin-style kernels) stores a class's weights as
 * INT8 or INT4 with one fp16 scale per group of @group elements along k, and computes the
 * matmul at the activation precision after dequantising them in the kernel: a weight of
 * n × k elements holds n·k·bits/8 + (n·k/group)·2 bytes, in memory and as it is read. The
 * dequantisation is its own work, BPW_WEIGHT_DEQUANT_OPS vector operations per weight
 * element per pass over the weights (one per row tile of the activations): it runs beside
 * the matrix engine and the weight loads, so it is exposed only where it outlasts them
 * (prefill; not a small-batch decode, which waits on the weight bytes).
 * Without a policy every matmul runs in the scenario's dtype, as before: `--dtype fp8`
 * stands for the policy "every matmul class fp8-e4m3, unscaled".
 *
 * Element-wise work (embeddings, norms, activations, softmax) always runs in the
 * scenario's dtype: the policy names matmul classes only.
 */
#pragma once

#include "bpw-types.h"
#include "bpw-blueprint.h"
#include "bpw-work-graph.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_MATMUL_CLASS_ATTENTION_PROJECTION,  /* QKV and output projections */
  BPW_MATMUL_CLASS_MLP,                   /* MLP and expert matmuls, the router */
  BPW_MATMUL_CLASS_ATTENTION_CORE,        /* score and context (batched) matmuls: no weights */
  BPW_MATMUL_CLASS_LM_HEAD,               /* the logits matmul */
  BPW_MATMUL_CLASS_OTHER,                 /* everything else: element-wise, never in the policy */
  BPW_N_MATMUL_CLASSES
} BpwMatmulClass;
#define BPW_N_POLICY_CLASSES BPW_MATMUL_CLASS_OTHER

typedef enum
{
  BPW_NUMBER_FORMAT_DEFAULT,          /* the scenario's dtype */
  BPW_NUMBER_FORMAT_BF16,
  BPW_NUMBER_FORMAT_FP8_E4M3,
  BPW_NUMBER_FORMAT_FP8_E5M2,
  BPW_NUMBER_FORMAT_FP4,
  BPW_NUMBER_FORMAT_INT8,
  BPW_N_NUMBER_FORMATS
} BpwNumberFormat;

/* How a low-precision operand carries its scale factors (fp32 each). Scale bytes read per
 * (batch of) m×k · k×n matmul: none 0; per-tensor 4·2; per-channel 4·(m + n) (a row of A,
 * a column of B); per-block 4·(m + n)·⌈k / block⌉ (blocks of @block elements along k). */
typedef enum
{
  BPW_SCALING_NONE,
  BPW_SCALING_PER_TENSOR,
  BPW_SCALING_PER_CHANNEL,
  BPW_SCALING_PER_BLOCK,
  BPW_N_SCALINGS
} BpwScaling;

typedef enum
{
  BPW_FALLBACK_NONE,
  BPW_FALLBACK_ENGINE,
  BPW_FALLBACK_QUALITY,
  BPW_FALLBACK_SHAPE,
  BPW_FALLBACK_GROUP,
  BPW_N_FALLBACKS
} BpwFallback;

/* How a class's weights are stored: as the matmul computes (native), or weight-only INT8 /
 * INT4 with per-group fp16 scales. */
typedef enum
{
  BPW_WEIGHT_FORMAT_NATIVE,
  BPW_WEIGHT_FORMAT_INT8,
  BPW_WEIGHT_FORMAT_INT4,
  BPW_N_WEIGHT_FORMATS
} BpwWeightFormat;

#define BPW_WEIGHT_SCALE_BYTES    2     /* one fp16 scale per group */
#define BPW_WEIGHT_GROUP_DEFAULT  128   /* GPTQ's and AWQ's usual group */
#define BPW_WEIGHT_GROUP_MAX      65536
/* Vector operations to dequantise one weight element: the integer-to-float conversion and
 * the multiply by its group's scale. */
#define BPW_WEIGHT_DEQUANT_OPS    2

typedef struct
{
  BpwNumberFormat  format;
  BpwScaling       scaling;
  gint64           block;        /* elements per scale, per-block only */
  gboolean         keep_bf16;    /* quality: held in bf16 although @format is asked */
  gboolean         sparse_2_4;   /* weights 2:4 structured sparse (weight matmuls only) */
  BpwWeightFormat  weights;      /* weight-only quantisation (weight matmuls only) */
  gint64           group;        /* weight elements along k per scale; weight-only only */
} BpwClassPrecision;

typedef struct
{
  gboolean           set;        /* FALSE: no policy, the scenario's dtype everywhere */
  BpwClassPrecision  classes[BPW_N_POLICY_CLASSES];
} BpwPrecisionPolicy;

/* 2:4 metadata: 2 bits per kept element, so a sparse weight of E elements of e bytes
 * reads E·e/2 + E/8 bytes instead of E·e. */
#define BPW_SPARSE_2_4_METADATA_BITS 2

void         bpw_precision_policy_init   (BpwPrecisionPolicy       *policy);
gboolean     bpw_precision_policy_equal  (const BpwPrecisionPolicy *a,
                                          const BpwPrecisionPolicy *b);
/* Whether any class asks for 2:4 sparsity. */
gboolean     bpw_precision_policy_sparse (const BpwPrecisionPolicy *policy);
/* Sets weight-only @weights with @group on the weight classes (attention projections, MLP)
 * of @policy, keeping its other settings; a policy not yet set is set, its formats the
 * scenario's. The `--weights` shortcut; the LM head keeps its weights. */
void         bpw_precision_policy_set_weights (BpwPrecisionPolicy *policy,
                                               BpwWeightFormat     weights,
                                               gint64              group);

/* Whether a weight class (attention projections, then MLP) computes in a reduced format
 * under @policy and a scenario of @dtype, and which (@cls, @format; either may be NULL):
 * weight-only quantisation computes at the activation precision, so a plan leaves such a
 * class's weights as they are, and `--weights` refuses it. */
gboolean     bpw_precision_policy_weight_only_blocked (const BpwPrecisionPolicy *policy,
                                                       BpwDType                  dtype,
                                                       BpwMatmulClass           *cls,
                                                       BpwNumberFormat          *format);

/* The class of @op (OTHER for anything but a matmul). */
BpwMatmulClass   bpw_matmul_class_of             (const BpwOp *op);

/* The precision whose engine rate @format runs at; @scenario for DEFAULT. */
BpwPrecision bpw_number_format_precision (BpwNumberFormat format,
                                          BpwPrecision    scenario);
/* Bytes per element: bf16 2, fp8 and int8 1, fp4 0.5; @scenario_bytes for DEFAULT. */
double       bpw_number_format_bytes     (BpwNumberFormat format,
                                          double          scenario_bytes);
/* The format `--dtype` implies for matmuls without a policy: bf16, fp8-e4m3, or DEFAULT
 * (fp32, fp16: named by their precision). */
BpwNumberFormat bpw_number_format_of_precision (BpwPrecision precision);
/* Whether @format is a low-precision mode a plan is credited for (fp8, fp4, int8). */
gboolean     bpw_number_format_is_reduced (BpwNumberFormat format);

/* Scale-factor bytes one execution reads, as BpwScaling says. */
double       bpw_scaling_bytes           (BpwScaling scaling,
                                          gint64     block,
                                          double     batch,
                                          double     m,
                                          double     n,
                                          double     k);

/* Bits per stored weight element: 8, 4; 0 for NATIVE. */
gint64       bpw_weight_format_bits      (BpwWeightFormat weights);
/* Bytes a weight of @elements elements (n·k, k a multiple of @group) holds weight-only:
 * ⌈elements·bits/8⌉ + ⌈elements/group⌉·BPW_WEIGHT_SCALE_BYTES. -1 for NATIVE. */
gint64       bpw_weight_only_bytes       (BpwWeightFormat weights,
                                          gint64          group,
                                          gint64          elements);
/* GROUP when @group does not divide the per-rank reduction depth @k; else NONE. */
BpwFallback  bpw_weight_only_fallback    (BpwWeightFormat weights,
                                          gint64          group,
                                          double          k);
/* "int4", "int8"; "native". */
const char  *bpw_weight_format_to_string (BpwWeightFormat weights);
gboolean     bpw_weight_format_from_string (const char      *str,
                                            BpwWeightFormat *out);
/* The mode string of weight-only quantisation, "weights-int4-g128" (interned). */
const char  *bpw_weight_only_mode        (BpwWeightFormat weights,
                                          gint64          group);
/* What a task's precision column says: "int4 w/ g128 (bf16 compute)" (newly allocated). */
char        *bpw_weight_only_describe    (BpwWeightFormat weights,
                                          gint64          group,
                                          const char     *compute);

/* Why a matmul of per-rank reduction depth @k and width @n cannot run in @format with
 * @scaling: SHAPE or NONE. */
BpwFallback  bpw_precision_shape_fallback (BpwNumberFormat format,
                                           BpwScaling      scaling,
                                           gint64          block,
                                           double          n,
                                           double          k);

const char  *bpw_matmul_class_to_string      (BpwMatmulClass      cls);
gboolean     bpw_matmul_class_from_string    (const char     *str,
                                          BpwMatmulClass     *out);
const char  *bpw_number_format_to_string (BpwNumberFormat format);  /* "fp8-e4m3", DEFAULT "" */
gboolean     bpw_number_format_from_string (const char   *str,
                                            BpwNumberFormat *out);
const char  *bpw_scaling_to_string       (BpwScaling      scaling);
gboolean     bpw_scaling_from_string     (const char     *str,
                                          BpwScaling     *out);
const char  *bpw_fallback_to_string      (BpwFallback     fallback);  /* "engine" ... "" */
/* A sentence on why an operation falls back (translated). */
const char  *bpw_fallback_explanation    (BpwFallback     fallback);

/* The mode string of a reduced format or of sparsity ("fp8-e4m3", "sparsity-2:4"). */
#define BPW_MODE_SPARSITY_2_4 "sparsity-2:4"
/* Weight-only modes start so: "weights-int4-g128" (bpw_weight_only_mode). */
#define BPW_MODE_WEIGHTS_PREFIX "weights-"

G_END_DECLS
