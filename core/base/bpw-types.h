/* bpw-types.h — shared enums and forward declarations of the core
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* 128-bit unsigned integers hold whole-job totals: a 1T-parameter model over a
 * few million tokens per step already exceeds 2^64 FLOPs. */
typedef unsigned __int128 BpwU128;

typedef struct _BpwModelSpec   BpwModelSpec;
typedef struct _BpwScenario    BpwScenario;
typedef struct _BpwParallel    BpwParallel;
typedef struct _BpwWorkGraph   BpwWorkGraph;
typedef struct _BpwDistWork    BpwDistWork;
typedef struct _BpwFacts       BpwFacts;

typedef enum
{
  BPW_DTYPE_FP32,
  BPW_DTYPE_BF16,
  BPW_DTYPE_FP16,
  BPW_DTYPE_FP8,
  BPW_DTYPE_U8,    /* dropout masks, one byte per element */
  BPW_N_DTYPES
} BpwDType;

typedef enum
{
  BPW_FFN_GELU,    /* two matrices, h -> f -> h */
  BPW_FFN_SWIGLU,  /* three matrices: gate and up h -> f, down f -> h */
} BpwFfnKind;

typedef enum
{
  BPW_NORM_LAYERNORM,
  BPW_NORM_RMSNORM,
} BpwNormKind;

typedef enum
{
  BPW_POSITION_LEARNED,
  BPW_POSITION_ROTARY,
} BpwPositionKind;

typedef enum
{
  BPW_OPTIMIZER_ADAM,  /* Adam and AdamW: two fp32 moments */
  BPW_OPTIMIZER_SGD,   /* SGD with momentum: one fp32 moment */
} BpwOptimizerKind;

typedef enum
{
  BPW_PHASE_FORWARD,
  BPW_PHASE_RECOMPUTE,
  BPW_PHASE_BACKWARD_ACTIVATION,
  BPW_PHASE_BACKWARD_WEIGHT,
  BPW_PHASE_OPTIMIZER,
  BPW_N_PHASES
} BpwPhase;

typedef enum
{
  BPW_LAYER_EMBEDDING,
  BPW_LAYER_ATTENTION,
  BPW_LAYER_MLP,
  BPW_LAYER_MOE,
  BPW_LAYER_NORM,
  BPW_LAYER_HEAD,
  BPW_LAYER_LOSS,
  BPW_LAYER_OPTIMIZER,
  BPW_LAYER_VISION,      /* vision encoder and projector of a multimodal model */
  BPW_LAYER_CROSS_ATTENTION, /* a decoder's attention to the images (Llama 3.2 Vision) */
  BPW_N_LAYER_TYPES
} BpwLayerType;

typedef enum
{
  BPW_PRIM_MATMUL,
  BPW_PRIM_BATCHED_MATMUL,
  BPW_PRIM_SOFTMAX,
  BPW_PRIM_NORM,
  BPW_PRIM_GELU,
  BPW_PRIM_SWIGLU,          /* silu(gate) * up */
  BPW_PRIM_DROPOUT,
  BPW_PRIM_ADD,             /* residual add, gradient accumulation */
  BPW_PRIM_BIAS,
  BPW_PRIM_ROTARY,
  BPW_PRIM_GATHER,          /* embedding lookup */
  BPW_PRIM_SCATTER_ADD,     /* embedding gradient */
  BPW_PRIM_CROSS_ENTROPY,
  BPW_PRIM_ROUTER_TOPK,
  BPW_PRIM_PERMUTE,         /* MoE token permutation into expert order */
  BPW_PRIM_OPTIMIZER_UPDATE,
  BPW_N_PRIMITIVES
} BpwPrimitive;

typedef enum
{
  BPW_WORKLOAD_TRAIN,
  BPW_WORKLOAD_PREFILL,
  BPW_WORKLOAD_DECODE,
} BpwWorkloadPhase;

typedef enum
{
  BPW_RECOMPUTE_NONE,
  BPW_RECOMPUTE_SELECTIVE,  /* Korthikanti et al.: attention core only */
  BPW_RECOMPUTE_FULL,       /* store only each layer's input */
} BpwRecompute;

typedef enum
{
  BPW_SCHEDULE_GPIPE,
  BPW_SCHEDULE_1F1B,
  BPW_SCHEDULE_INTERLEAVED,
  BPW_SCHEDULE_ZB_H1,        /* zero bubble H1 (Qi et al. 2023): backward split into B and W */
} BpwSchedule;

typedef enum
{
  BPW_COLLECTIVE_ALL_REDUCE,
  BPW_COLLECTIVE_REDUCE_SCATTER,
  BPW_COLLECTIVE_ALL_GATHER,
  BPW_COLLECTIVE_ALL_TO_ALL,
  BPW_COLLECTIVE_SEND_RECV,
  BPW_N_COLLECTIVES
} BpwCollectiveKind;

typedef enum
{
  BPW_GROUP_TP,
  BPW_GROUP_PP,
  BPW_GROUP_DP,
  BPW_GROUP_EP,
  BPW_GROUP_CP,     /* context parallelism: the sequence split over ranks */
  BPW_N_GROUPS
} BpwGroupKind;

typedef enum
{
  BPW_TENSOR_WEIGHT,
  BPW_TENSOR_MASTER_WEIGHT,
  BPW_TENSOR_OPTIMIZER_STATE,
  BPW_TENSOR_GRADIENT,
  BPW_TENSOR_ACTIVATION,     /* produced in forward; a checkpoint when stored for backward */
  BPW_TENSOR_ACTIVATION_GRAD,
  BPW_TENSOR_KV_CACHE,
  BPW_TENSOR_COMMUNICATION,
  BPW_N_TENSOR_KINDS
} BpwTensorKind;

/* Named additions: work that the executed plan has beyond the semantic work of the
 * model, each with the transformation that adds it. Conservation reconciles with these. */
typedef enum
{
  BPW_ADDITION_NONE,
  BPW_ADDITION_CAUSAL_FULL_MATRIX,  /* computing all s^2 scores and masking */
  BPW_ADDITION_RECOMPUTE,
  BPW_ADDITION_TP_REPLICATED,       /* ops every TP rank repeats (norms, dropout, ... without SP) */
  BPW_ADDITION_DP_REPLICATED,       /* optimizer repeated by every DP replica without ZeRO */
  BPW_ADDITION_MOE_CAPACITY,        /* expert slots padded to the capacity factor */
  BPW_N_ADDITIONS
} BpwAddition;

guint        bpw_dtype_bytes        (BpwDType dtype);
const char  *bpw_dtype_to_string    (BpwDType dtype);
gboolean     bpw_dtype_from_string  (const char *str, BpwDType *out);
const char  *bpw_phase_to_string    (BpwPhase phase);
const char  *bpw_layer_type_to_string (BpwLayerType type);
const char  *bpw_primitive_to_string (BpwPrimitive prim);
const char  *bpw_collective_to_string (BpwCollectiveKind kind);
const char  *bpw_group_to_string    (BpwGroupKind group);
const char  *bpw_tensor_kind_to_string (BpwTensorKind kind);
const char  *bpw_addition_to_string (BpwAddition addition);
const char  *bpw_addition_describe  (BpwAddition addition);
const char  *bpw_workload_phase_to_string (BpwWorkloadPhase phase);
gboolean     bpw_workload_phase_from_string (const char *str, BpwWorkloadPhase *out);
const char  *bpw_recompute_to_string (BpwRecompute recompute);
gboolean     bpw_recompute_from_string (const char *str, BpwRecompute *out);
const char  *bpw_schedule_to_string (BpwSchedule schedule);
gboolean     bpw_schedule_from_string (const char *str, BpwSchedule *out);
const char  *bpw_optimizer_to_string (BpwOptimizerKind kind);
gboolean     bpw_optimizer_from_string (const char *str, BpwOptimizerKind *out);

/* Decimal rendering of a 128-bit count; buf needs 40 bytes. Returns buf. */
char        *bpw_u128_to_string     (BpwU128 value, char *buf);
double       bpw_u128_to_double     (BpwU128 value);

G_END_DECLS
