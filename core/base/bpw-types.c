/* bpw-types.c — names of the shared enums, as used in JSON, the CLI and the UI
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-types"

#include "config.h"

#include <string.h>

#include "bpw-types.h"

static const char * const dtype_names[] = { "fp32", "bf16", "fp16", "fp8", "u8" };
static const guint dtype_sizes[] = { 4, 2, 2, 1, 1 };
static const char * const phase_names[] = {
  "forward", "recompute", "backward_activation", "backward_weight", "optimizer",
};
static const char * const layer_type_names[] = {
  "embedding", "attention", "mlp", "moe", "norm", "head", "loss", "optimizer",
  "vision", "cross_attention",
};
static const char * const primitive_names[] = {
  "matmul", "batched_matmul", "softmax", "norm", "gelu", "swiglu", "dropout", "add", "bias",
  "rotary", "gather", "scatter_add", "cross_entropy", "router_topk", "permute",
  "optimizer_update",
};
static const char * const collective_names[] = {
  "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv",
};
static const char * const group_names[] = { "tp", "pp", "dp", "ep", "cp" };
static const char * const tensor_kind_names[] = {
  "weight", "master_weight", "optimizer_state", "gradient", "activation", "activation_grad",
  "kv_cache", "communication",
};
static const char * const addition_names[] = {
  "none", "causal_full_matrix", "recompute", "tp_replicated", "dp_replicated", "moe_capacity",
};
static const char * const addition_descriptions[] = {
  "",
  "causal attention computed over the full s\xc2\xb2 score matrix and masked",
  "activation recomputation repeats forward work in the backward pass",
  "operations every tensor-parallel rank repeats (norms, dropout, residuals without SP)",
  "optimizer update repeated by every data-parallel replica (no ZeRO)",
  "expert slots padded to the MoE capacity factor",
};
static const char * const workload_phase_names[] = { "train", "prefill", "decode" };
static const char * const recompute_names[] = { "none", "selective", "full" };
static const char * const schedule_names[] = { "gpipe", "1f1b", "interleaved", "zb-h1" };
static const char * const optimizer_names[] = { "adam", "sgd" };

G_STATIC_ASSERT (G_N_ELEMENTS (dtype_names) == BPW_N_DTYPES);
G_STATIC_ASSERT (G_N_ELEMENTS (phase_names) == BPW_N_PHASES);
G_STATIC_ASSERT (G_N_ELEMENTS (layer_type_names) == BPW_N_LAYER_TYPES);
G_STATIC_ASSERT (G_N_ELEMENTS (primitive_names) == BPW_N_PRIMITIVES);
G_STATIC_ASSERT (G_N_ELEMENTS (collective_names) == BPW_N_COLLECTIVES);
G_STATIC_ASSERT (G_N_ELEMENTS (group_names) == BPW_N_GROUPS);
G_STATIC_ASSERT (G_N_ELEMENTS (tensor_kind_names) == BPW_N_TENSOR_KINDS);
G_STATIC_ASSERT (G_N_ELEMENTS (addition_names) == BPW_N_ADDITIONS);

static const char *
bpw_types_name (const char * const *names,
                guint               n,
                guint               value)
{
  return value < n ? names[value] : "invalid";
}

static gboolean
bpw_types_lookup (const char * const *names,
                  guint               n,
                  const char         *str,
                  guint              *out)
{
  if (str == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (g_ascii_strcasecmp (names[i], str) == 0)
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

#define NAME_FUNCS(prefix, Type, table)                                          \
  const char *prefix##_to_string (Type value)                                    \
  { return bpw_types_name (table, G_N_ELEMENTS (table), value); }

#define LOOKUP_FUNC(prefix, Type, table)                                         \
  gboolean prefix##_from_string (const char *str, Type *out)                     \
  {                                                                              \
    guint v;                                                                     \
    if (!bpw_types_lookup (table, G_N_ELEMENTS (table), str, &v))                \
      return FALSE;                                                              \
    *out = (Type) v;                                                             \
    return TRUE;                                                                 \
  }

NAME_FUNCS (bpw_dtype, BpwDType, dtype_names)
NAME_FUNCS (bpw_phase, BpwPhase, phase_names)
NAME_FUNCS (bpw_layer_type, BpwLayerType, layer_type_names)
NAME_FUNCS (bpw_primitive, BpwPrimitive, primitive_names)
NAME_FUNCS (bpw_collective, BpwCollectiveKind, collective_names)
NAME_FUNCS (bpw_group, BpwGroupKind, group_names)
NAME_FUNCS (bpw_tensor_kind, BpwTensorKind, tensor_kind_names)
NAME_FUNCS (bpw_addition, BpwAddition, addition_names)
NAME_FUNCS (bpw_workload_phase, BpwWorkloadPhase, workload_phase_names)
NAME_FUNCS (bpw_recompute, BpwRecompute, recompute_names)
NAME_FUNCS (bpw_schedule, BpwSchedule, schedule_names)
NAME_FUNCS (bpw_optimizer, BpwOptimizerKind, optimizer_names)
LOOKUP_FUNC (bpw_workload_phase, BpwWorkloadPhase, workload_phase_names)
LOOKUP_FUNC (bpw_recompute, BpwRecompute, recompute_names)
LOOKUP_FUNC (bpw_schedule, BpwSchedule, schedule_names)
LOOKUP_FUNC (bpw_optimizer, BpwOptimizerKind, optimizer_names)

const char *
bpw_addition_describe (BpwAddition addition)
{
  return bpw_types_name (addition_descriptions, G_N_ELEMENTS (addition_descriptions), addition);
}

guint
bpw_dtype_bytes (BpwDType dtype)
{
  return dtype < BPW_N_DTYPES ? dtype_sizes[dtype] : 0;
}

gboolean
bpw_dtype_from_string (const char *str,
                       BpwDType   *out)
{
  guint v;

  /* Accept the spellings of Calculon and Hugging Face as well as our own. */
  static const struct { const char *alias; BpwDType dtype; } aliases[] = {
    { "float32", BPW_DTYPE_FP32 }, { "bfloat16", BPW_DTYPE_BF16 },
    { "float16", BPW_DTYPE_FP16 }, { "float8", BPW_DTYPE_FP8 }, { "half", BPW_DTYPE_FP16 },
  };

  if (bpw_types_lookup (dtype_names, G_N_ELEMENTS (dtype_names), str, &v))
    {
      *out = (BpwDType) v;
      return TRUE;
    }
  for (guint i = 0; str != NULL && i < G_N_ELEMENTS (aliases); i++)
    if (g_ascii_strcasecmp (aliases[i].alias, str) == 0)
      {
        *out = aliases[i].dtype;
        return TRUE;
      }
  return FALSE;
}

char *
bpw_u128_to_string (BpwU128  value,
                    char    *buf)
{
  char tmp[40];
  int n = 0;

  do
    {
      tmp[n++] = (char) ('0' + (int) (value % 10));
      value /= 10;
    }
  while (value != 0);
  for (int i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  buf[n] = '\0';
  return buf;
}

double
bpw_u128_to_double (BpwU128 value)
{
  return (double) value;
}
