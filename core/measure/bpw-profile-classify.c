/* bpw-profile-classify.c — what a measured op or kernel does, from its name
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Three vocabularies:
 * - PyTorch ops ("aten::addmm", "aten::_softmax_backward_data", "c10d::allreduce_"): the
 *   op name is normalised (namespace, leading "_", in-place "_", "native_", "_backward",
 *   "_forward", "_data" suffixes) and looked up exactly, so "aten::add" and "aten::addmm"
 *   cannot be confused;
 * - device kernels ("ampere_fp16_s16816gemm_...", "sm80_xmma_gemm_...", "cutlass::Kernel<
 *   cutlass_80_tensorop_...>", "void at::native::vectorized_elementwise_kernel<4,
 *   at::native::GeluCUDAKernelImpl...>", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"): by
 *   substrings in an order that puts the specific before the generic (a GEMM with a GeLU
 *   epilogue is a GEMM; a log-softmax is part of a loss);
 * - the workbench's op names ("mlp.fc1.dgrad", "tp.output_reduce").
 * Autograd nodes ("AddmmBackward0", "autograd::engine::evaluate_function: ...") and
 * annotations ("Optimizer.step#Adam.step", "ProfilerStep#3") do no work of their own.
 */
#define G_LOG_DOMAIN "bpw-profile-classify"

#include "config.h"

#include <string.h>

#include "bpw-profile-private.h"

typedef struct
{
  const char    *name;
  BpwKernelKind  kind;
} Pattern;

/* PyTorch op names after normalisation, looked up exactly. */
static const Pattern torch_ops[] = {
  /* no work of their own: views, allocation, metadata */
  { "view", BPW_KERNEL_NONE }, { "reshape", BPW_KERNEL_NONE },
  { "reshape_alias", BPW_KERNEL_NONE }, { "unsafe_view", BPW_KERNEL_NONE },
  { "t", BPW_KERNEL_NONE }, { "transpose", BPW_KERNEL_NONE }, { "permute", BPW_KERNEL_NONE },
  { "expand", BPW_KERNEL_NONE }, { "expand_as", BPW_KERNEL_NONE },
  { "as_strided", BPW_KERNEL_NONE }, { "slice", BPW_KERNEL_NONE }, { "select", BPW_KERNEL_NONE },
  { "narrow", BPW_KERNEL_NONE }, { "split", BPW_KERNEL_NONE },
  { "split_with_sizes", BPW_KERNEL_NONE }, { "unsafe_split", BPW_KERNEL_NONE },
  { "chunk", BPW_KERNEL_NONE }, { "unbind", BPW_KERNEL_NONE }, { "unsqueeze", BPW_KERNEL_NONE },
  { "squeeze", BPW_KERNEL_NONE }, { "flatten", BPW_KERNEL_NONE },
  { "unflatten", BPW_KERNEL_NONE }, { "detach", BPW_KERNEL_NONE }, { "alias", BPW_KERNEL_NONE },
  { "empty", BPW_KERNEL_NONE }, { "empty_like", BPW_KERNEL_NONE },
  { "empty_strided", BPW_KERNEL_NONE }, { "new_empty", BPW_KERNEL_NONE },
  { "new_empty_strided", BPW_KERNEL_NONE }, { "resize", BPW_KERNEL_NONE },
  { "contiguous", BPW_KERNEL_NONE }, { "to", BPW_KERNEL_NONE }, { "to_copy", BPW_KERNEL_NONE },
  { "lift", BPW_KERNEL_NONE }, { "lift_fresh", BPW_KERNEL_NONE },
  { "resolve_conj", BPW_KERNEL_NONE }, { "resolve_neg", BPW_KERNEL_NONE },
  { "conj", BPW_KERNEL_NONE }, { "view_as", BPW_KERNEL_NONE }, { "reshape_as", BPW_KERNEL_NONE },
  { "item", BPW_KERNEL_NONE }, { "local_scalar_dense", BPW_KERNEL_NONE },
  { "is_nonzero", BPW_KERNEL_NONE }, { "set", BPW_KERNEL_NONE }, { "type_as", BPW_KERNEL_NONE },
  { "record_stream", BPW_KERNEL_NONE }, { "broadcast_tensors", BPW_KERNEL_NONE },
  { "movedim", BPW_KERNEL_NONE }, { "swapaxes", BPW_KERNEL_NONE },
  { "diagonal", BPW_KERNEL_NONE }, { "numpy_t", BPW_KERNEL_NONE },
  { "has_compatible_shallow_copy_type", BPW_KERNEL_NONE },
  /* arithmetic with a role */
  { "addmm", BPW_KERNEL_MATMUL }, { "mm", BPW_KERNEL_MATMUL }, { "linear", BPW_KERNEL_MATMUL },
  { "matmul", BPW_KERNEL_MATMUL }, { "dot", BPW_KERNEL_MATMUL }, { "mv", BPW_KERNEL_MATMUL },
  { "addmv", BPW_KERNEL_MATMUL }, { "einsum", BPW_KERNEL_MATMUL },
  { "scaled_mm", BPW_KERNEL_MATMUL }, { "addmm_activation", BPW_KERNEL_MATMUL },
  { "bmm", BPW_KERNEL_BATCHED_MATMUL }, { "baddbmm", BPW_KERNEL_BATCHED_MATMUL },
  { "scaled_dot_product_attention", BPW_KERNEL_ATTENTION },
  { "scaled_dot_product_flash_attention", BPW_KERNEL_ATTENTION },
  { "scaled_dot_product_efficient_attention", BPW_KERNEL_ATTENTION },
  { "scaled_dot_product_cudnn_attention", BPW_KERNEL_ATTENTION },
  { "flash_attention", BPW_KERNEL_ATTENTION }, { "efficient_attention", BPW_KERNEL_ATTENTION },
  { "softmax", BPW_KERNEL_SOFTMAX }, { "safe_softmax", BPW_KERNEL_SOFTMAX },
  { "cross_entropy_loss", BPW_KERNEL_CROSS_ENTROPY }, { "log_softmax", BPW_KERNEL_CROSS_ENTROPY },
  { "nll_loss", BPW_KERNEL_CROSS_ENTROPY }, { "nll_loss2d", BPW_KERNEL_CROSS_ENTROPY },
  { "layer_norm", BPW_KERNEL_NORM }, { "rms_norm", BPW_KERNEL_NORM },
  { "fused_rms_norm", BPW_KERNEL_NORM }, { "group_norm", BPW_KERNEL_NORM },
  { "batch_norm", BPW_KERNEL_NORM },
  { "gelu", BPW_KERNEL_GELU }, { "silu", BPW_KERNEL_SWIGLU }, { "swiglu", BPW_KERNEL_SWIGLU },
  { "dropout", BPW_KERNEL_DROPOUT }, { "fused_dropout", BPW_KERNEL_DROPOUT },
  { "feature_dropout", BPW_KERNEL_DROPOUT }, { "masked_scale", BPW_KERNEL_DROPOUT },
  { "bernoulli", BPW_KERNEL_DROPOUT },
  { "embedding", BPW_KERNEL_GATHER }, { "index_select", BPW_KERNEL_GATHER },
  { "gather", BPW_KERNEL_GATHER }, { "take", BPW_KERNEL_GATHER },
  { "embedding_bag", BPW_KERNEL_GATHER }, { "index", BPW_KERNEL_GATHER },
  { "embedding_dense", BPW_KERNEL_SCATTER_ADD }, { "index_add", BPW_KERNEL_SCATTER_ADD },
  { "scatter_add", BPW_KERNEL_SCATTER_ADD }, { "index_put", BPW_KERNEL_SCATTER_ADD },
  { "scatter", BPW_KERNEL_SCATTER_ADD },
  { "rotary_embedding", BPW_KERNEL_ROTARY }, { "topk", BPW_KERNEL_TOPK },
  { "fused_adam", BPW_KERNEL_OPTIMIZER }, { "fused_adamw", BPW_KERNEL_OPTIMIZER },
  { "fused_sgd", BPW_KERNEL_OPTIMIZER },
  { "add", BPW_KERNEL_ADD },
  { "sum", BPW_KERNEL_REDUCE }, { "mean", BPW_KERNEL_REDUCE },
  { "linalg_vector_norm", BPW_KERNEL_REDUCE }, { "norm", BPW_KERNEL_REDUCE },
  { "amax", BPW_KERNEL_REDUCE }, { "amin", BPW_KERNEL_REDUCE }, { "max", BPW_KERNEL_REDUCE },
  { "min", BPW_KERNEL_REDUCE }, { "var", BPW_KERNEL_REDUCE }, { "std", BPW_KERNEL_REDUCE },
  { "prod", BPW_KERNEL_REDUCE }, { "argmax", BPW_KERNEL_REDUCE },
  { "argmin", BPW_KERNEL_REDUCE }, { "logsumexp", BPW_KERNEL_REDUCE },
  { "cumsum", BPW_KERNEL_REDUCE }, { "all", BPW_KERNEL_REDUCE }, { "any", BPW_KERNEL_REDUCE },
  /* moving data */
  { "copy", BPW_KERNEL_COPY }, { "clone", BPW_KERNEL_COPY }, { "cat", BPW_KERNEL_COPY },
  { "stack", BPW_KERNEL_COPY }, { "repeat", BPW_KERNEL_COPY },
  { "repeat_interleave", BPW_KERNEL_COPY }, { "index_copy", BPW_KERNEL_COPY },
  { "flip", BPW_KERNEL_COPY }, { "roll", BPW_KERNEL_COPY }, { "pad", BPW_KERNEL_COPY },
  { "constant_pad_nd", BPW_KERNEL_COPY }, { "masked_scatter", BPW_KERNEL_COPY },
  /* initialisation */
  { "zero", BPW_KERNEL_FILL }, { "zeros", BPW_KERNEL_FILL }, { "zeros_like", BPW_KERNEL_FILL },
  { "ones", BPW_KERNEL_FILL }, { "ones_like", BPW_KERNEL_FILL }, { "full", BPW_KERNEL_FILL },
  { "full_like", BPW_KERNEL_FILL }, { "fill", BPW_KERNEL_FILL }, { "arange", BPW_KERNEL_FILL },
  { "randint", BPW_KERNEL_FILL }, { "rand", BPW_KERNEL_FILL }, { "randn", BPW_KERNEL_FILL },
  { "normal", BPW_KERNEL_FILL }, { "uniform", BPW_KERNEL_FILL },
  { "scalar_tensor", BPW_KERNEL_FILL }, { "new_zeros", BPW_KERNEL_FILL },
  { "new_ones", BPW_KERNEL_FILL }, { "new_full", BPW_KERNEL_FILL }, { "eye", BPW_KERNEL_FILL },
  { "linspace", BPW_KERNEL_FILL }, { "randperm", BPW_KERNEL_FILL },
  /* element-wise arithmetic */
  { "mul", BPW_KERNEL_ELEMENTWISE }, { "div", BPW_KERNEL_ELEMENTWISE },
  { "sub", BPW_KERNEL_ELEMENTWISE }, { "rsub", BPW_KERNEL_ELEMENTWISE },
  { "where", BPW_KERNEL_ELEMENTWISE }, { "masked_fill", BPW_KERNEL_ELEMENTWISE },
  { "eq", BPW_KERNEL_ELEMENTWISE }, { "ne", BPW_KERNEL_ELEMENTWISE },
  { "lt", BPW_KERNEL_ELEMENTWISE }, { "le", BPW_KERNEL_ELEMENTWISE },
  { "gt", BPW_KERNEL_ELEMENTWISE }, { "ge", BPW_KERNEL_ELEMENTWISE },
  { "tanh", BPW_KERNEL_ELEMENTWISE }, { "exp", BPW_KERNEL_ELEMENTWISE },
  { "log", BPW_KERNEL_ELEMENTWISE }, { "pow", BPW_KERNEL_ELEMENTWISE },
  { "sqrt", BPW_KERNEL_ELEMENTWISE }, { "rsqrt", BPW_KERNEL_ELEMENTWISE },
  { "neg", BPW_KERNEL_ELEMENTWISE }, { "abs", BPW_KERNEL_ELEMENTWISE },
  { "addcmul", BPW_KERNEL_ELEMENTWISE }, { "addcdiv", BPW_KERNEL_ELEMENTWISE },
  { "lerp", BPW_KERNEL_ELEMENTWISE }, { "maximum", BPW_KERNEL_ELEMENTWISE },
  { "minimum", BPW_KERNEL_ELEMENTWISE }, { "clamp", BPW_KERNEL_ELEMENTWISE },
  { "clamp_min", BPW_KERNEL_ELEMENTWISE }, { "clamp_max", BPW_KERNEL_ELEMENTWISE },
  { "sigmoid", BPW_KERNEL_ELEMENTWISE }, { "relu", BPW_KERNEL_ELEMENTWISE },
  { "threshold", BPW_KERNEL_ELEMENTWISE }, { "sign", BPW_KERNEL_ELEMENTWISE },
  { "reciprocal", BPW_KERNEL_ELEMENTWISE }, { "square", BPW_KERNEL_ELEMENTWISE },
  { "logical_not", BPW_KERNEL_ELEMENTWISE }, { "logical_and", BPW_KERNEL_ELEMENTWISE },
  { "logical_or", BPW_KERNEL_ELEMENTWISE }, { "bitwise_and", BPW_KERNEL_ELEMENTWISE },
  { "bitwise_not", BPW_KERNEL_ELEMENTWISE }, { "isnan", BPW_KERNEL_ELEMENTWISE },
  { "isinf", BPW_KERNEL_ELEMENTWISE }, { "nan_to_num", BPW_KERNEL_ELEMENTWISE },
  { "triu", BPW_KERNEL_ELEMENTWISE }, { "tril", BPW_KERNEL_ELEMENTWISE },
  { "erf", BPW_KERNEL_ELEMENTWISE }, { "log1p", BPW_KERNEL_ELEMENTWISE },
  { "expm1", BPW_KERNEL_ELEMENTWISE }, { "softplus", BPW_KERNEL_ELEMENTWISE },
  { "floor", BPW_KERNEL_ELEMENTWISE }, { "ceil", BPW_KERNEL_ELEMENTWISE },
  { "round", BPW_KERNEL_ELEMENTWISE }, { "fmod", BPW_KERNEL_ELEMENTWISE },
  { "remainder", BPW_KERNEL_ELEMENTWISE }, { "sin", BPW_KERNEL_ELEMENTWISE },
  { "cos", BPW_KERNEL_ELEMENTWISE }, { "true_divide", BPW_KERNEL_ELEMENTWISE },
  { "floor_divide", BPW_KERNEL_ELEMENTWISE },
};

/* Device kernel names, by substring of the lower-cased name, first match wins. */
static const Pattern kernel_patterns[] = {
  { "nccl", BPW_KERNEL_COMMUNICATION }, { "allreduce", BPW_KERNEL_COMMUNICATION },
  { "allgather", BPW_KERNEL_COMMUNICATION }, { "reducescatter", BPW_KERNEL_COMMUNICATION },
  { "alltoall", BPW_KERNEL_COMMUNICATION }, { "sendrecv", BPW_KERNEL_COMMUNICATION },
  { "flash", BPW_KERNEL_ATTENTION }, { "fmha", BPW_KERNEL_ATTENTION },
  { "efficient_attention", BPW_KERNEL_ATTENTION }, { "attention_kernel", BPW_KERNEL_ATTENTION },
  { "gemm", BPW_KERNEL_MATMUL }, { "gemv", BPW_KERNEL_MATMUL }, { "xmma", BPW_KERNEL_MATMUL },
  { "cutlass", BPW_KERNEL_MATMUL }, { "cublas", BPW_KERNEL_MATMUL },
  { "nvjet", BPW_KERNEL_MATMUL }, { "wgmma", BPW_KERNEL_MATMUL },
  { "triton_tem", BPW_KERNEL_MATMUL }, { "matmul", BPW_KERNEL_MATMUL },
  { "logsoftmax", BPW_KERNEL_CROSS_ENTROPY }, { "log_softmax", BPW_KERNEL_CROSS_ENTROPY },
  { "nll_loss", BPW_KERNEL_CROSS_ENTROPY }, { "nllloss", BPW_KERNEL_CROSS_ENTROPY },
  { "cross_entropy", BPW_KERNEL_CROSS_ENTROPY }, { "softmax", BPW_KERNEL_SOFTMAX },
  { "layer_norm", BPW_KERNEL_NORM }, { "layernorm", BPW_KERNEL_NORM },
  { "rms_norm", BPW_KERNEL_NORM }, { "rmsnorm", BPW_KERNEL_NORM },
  { "gammabeta", BPW_KERNEL_NORM }, { "batch_norm", BPW_KERNEL_NORM },
  { "batchnorm", BPW_KERNEL_NORM }, { "group_norm", BPW_KERNEL_NORM },
  { "gelu", BPW_KERNEL_GELU }, { "silu", BPW_KERNEL_SWIGLU }, { "swiglu", BPW_KERNEL_SWIGLU },
  { "dropout", BPW_KERNEL_DROPOUT }, { "bernoulli", BPW_KERNEL_DROPOUT },
  { "masked_scale", BPW_KERNEL_DROPOUT },
  { "embedding_backward", BPW_KERNEL_SCATTER_ADD },
  { "compute_grad_weight", BPW_KERNEL_SCATTER_ADD },
  { "sum_and_scatter", BPW_KERNEL_SCATTER_ADD }, { "krn_partial", BPW_KERNEL_SCATTER_ADD },
  { "indexfunc", BPW_KERNEL_SCATTER_ADD }, { "scatter_add", BPW_KERNEL_SCATTER_ADD },
  { "index_put", BPW_KERNEL_SCATTER_ADD },
  { "indexselect", BPW_KERNEL_GATHER }, { "index_select", BPW_KERNEL_GATHER },
  { "embedding", BPW_KERNEL_GATHER }, { "gather", BPW_KERNEL_GATHER },
  { "rotary", BPW_KERNEL_ROTARY }, { "rope", BPW_KERNEL_ROTARY }, { "topk", BPW_KERNEL_TOPK },
  { "adam", BPW_KERNEL_OPTIMIZER }, { "multi_tensor_apply", BPW_KERNEL_OPTIMIZER },
  { "memcpy", BPW_KERNEL_COPY }, { "copy", BPW_KERNEL_COPY }, { "transpose", BPW_KERNEL_COPY },
  { "catarray", BPW_KERNEL_COPY }, { "concat", BPW_KERNEL_COPY },
  { "memset", BPW_KERNEL_FILL }, { "fill", BPW_KERNEL_FILL },
  { "addfunctor", BPW_KERNEL_ADD }, { "functor_add", BPW_KERNEL_ADD },
  { "reduce", BPW_KERNEL_REDUCE }, { "triton_red", BPW_KERNEL_REDUCE },
  { "triton_per", BPW_KERNEL_REDUCE },
  { "elementwise", BPW_KERNEL_ELEMENTWISE }, { "vectorized", BPW_KERNEL_ELEMENTWISE },
  { "pointwise", BPW_KERNEL_ELEMENTWISE }, { "functor", BPW_KERNEL_ELEMENTWISE },
  { "triton_poi", BPW_KERNEL_ELEMENTWISE },
};

/* Host slices of PyTorch traces that are neither ops nor kernels. */
static const char * const torch_no_work[] = { "detach", "forward", "backward", NULL };

static BpwKernelKind
classify_torch_op (const char *qualified)
{
  const char *sep = strstr (qualified, "::");
  g_autofree char *op = NULL;
  gboolean backward = FALSE;
  gsize len;
  static const char * const suffixes[] = {
    "_backward_data", "_backward_input", "_backward_weight", "_backward", "_forward", "_nd",
  };

  if (g_str_has_prefix (qualified, "c10d") || g_str_has_prefix (qualified, "_c10d") ||
      strstr (qualified, "nccl") != NULL)
    return BPW_KERNEL_COMMUNICATION;
  if (!g_str_has_prefix (qualified, "aten::"))
    return BPW_KERNEL_NONE;  /* autograd::, torch::autograd::, profiler:: bookkeeping */
  op = g_ascii_strdown (sep + 2, -1);
  while (op[0] == '_')
    memmove (op, op + 1, strlen (op));
  len = strlen (op);
  while (len > 0 && op[len - 1] == '_')
    op[--len] = '\0';
  if (g_str_has_prefix (op, "native_") && op[7] != '\0')
    memmove (op, op + 7, strlen (op + 7) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (op, suffixes[i]) && strlen (op) > strlen (suffixes[i]))
      {
        backward |= g_str_has_prefix (suffixes[i], "_backward");
        op[strlen (op) - strlen (suffixes[i])] = '\0';
      }
  if (g_str_has_prefix (op, "foreach_") || g_str_has_prefix (op, "amp_foreach") ||
      g_str_has_prefix (op, "fused_adam"))
    return BPW_KERNEL_OPTIMIZER;
  if (strcmp (op, "record_param_comms") == 0)
    return BPW_KERNEL_COMMUNICATION;
  for (guint i = 0; i < G_N_ELEMENTS (torch_ops); i++)
    if (strcmp (op, torch_ops[i].name) == 0)
      {
        /* The gradient of a lookup scatters into the table. */
        if (backward && torch_ops[i].kind == BPW_KERNEL_GATHER)
          return BPW_KERNEL_SCATTER_ADD;
        return torch_ops[i].kind;
      }
  return BPW_KERNEL_UNKNOWN;
}

static gboolean
is_autograd_node (const char *name)
{
  const char *b = strstr (name, "Backward");

  if (b == NULL || strchr (name, ' ') != NULL)
    return FALSE;
  b += strlen ("Backward");
  while (g_ascii_isdigit (*b))
    b++;
  return *b == '\0';
}

gboolean
_bpw_profile_is_optimizer_scope (const char *name)
{
  return g_str_has_prefix (name, "Optimizer.step");
}

static BpwKernelKind
classify_kernel (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (guint i = 0; i < G_N_ELEMENTS (kernel_patterns); i++)
    if (strstr (lower, kernel_patterns[i].name) != NULL)
      return kernel_patterns[i].kind;
  return BPW_KERNEL_UNKNOWN;
}

/* The workbench's names: "mlp.fc1.dgrad", "embedding.w.update", "tp.output_reduce". */
static BpwKernelKind
classify_bpw (const char *name)
{
  static const Pattern last[] = {
    { "qkv", BPW_KERNEL_MATMUL }, { "proj", BPW_KERNEL_MATMUL }, { "fc1", BPW_KERNEL_MATMUL },
    { "fc2", BPW_KERNEL_MATMUL }, { "gate_up", BPW_KERNEL_MATMUL },
    { "down", BPW_KERNEL_MATMUL }, { "head", BPW_KERNEL_MATMUL },
    { "router", BPW_KERNEL_MATMUL }, { "qk", BPW_KERNEL_BATCHED_MATMUL },
    { "av", BPW_KERNEL_BATCHED_MATMUL }, { "softmax", BPW_KERNEL_SOFTMAX },
    { "norm", BPW_KERNEL_NORM }, { "gelu", BPW_KERNEL_GELU }, { "swiglu", BPW_KERNEL_SWIGLU },
    { "dropout", BPW_KERNEL_DROPOUT }, { "out_dropout", BPW_KERNEL_DROPOUT },
    { "residual", BPW_KERNEL_ADD }, { "position", BPW_KERNEL_ADD }, { "add", BPW_KERNEL_ADD },
    { "bias", BPW_KERNEL_BIAS }, { "rotary", BPW_KERNEL_ROTARY },
    { "embedding", BPW_KERNEL_GATHER }, { "loss", BPW_KERNEL_CROSS_ENTROPY },
    { "update", BPW_KERNEL_OPTIMIZER }, { "topk", BPW_KERNEL_TOPK },
    { "dispatch", BPW_KERNEL_PERMUTE }, { "combine", BPW_KERNEL_PERMUTE },
  };
  static const char * const groups[] = { "tp.", "pp.", "dp.", "dp", "ep.", NULL };
  g_auto(GStrv) parts = g_strsplit (name, ".", -1);
  guint n = g_strv_length (parts);
  gboolean wgrad = FALSE;

  for (guint i = 0; groups[i] != NULL; i++)
    if (g_str_has_prefix (name, groups[i]) &&
        (strchr (groups[i], '.') != NULL || strcmp (name, groups[i]) == 0))
      return BPW_KERNEL_COMMUNICATION;
  while (n > 1 && (strcmp (parts[n - 1], "dgrad") == 0 || strcmp (parts[n - 1], "wgrad") == 0 ||
                   strcmp (parts[n - 1], "recompute") == 0))
    wgrad |= strcmp (parts[--n], "wgrad") == 0;
  if (n == 0)
    return BPW_KERNEL_UNKNOWN;
  for (guint i = 0; i < G_N_ELEMENTS (last); i++)
    if (strcmp (parts[n - 1], last[i].name) == 0)
      return wgrad && last[i].kind == BPW_KERNEL_GATHER ? BPW_KERNEL_SCATTER_ADD : last[i].kind;
  return BPW_KERNEL_UNKNOWN;
}

BpwKernelKind
bpw_kernel_kind_from_name (BpwProfileFormat  format,
                           const char       *name)
{
  g_return_val_if_fail (name != NULL, BPW_KERNEL_UNKNOWN);

  if (format == BPW_PROFILE_FORMAT_BPW)
    return classify_bpw (name);
  if (strstr (name, "::") != NULL && !g_str_has_prefix (name, "void ") &&
      strchr (name, '<') == NULL && strchr (name, '(') == NULL)
    return classify_torch_op (name);
  if (is_autograd_node (name) || strchr (name, '#') != NULL || g_str_has_prefix (name, "## ") ||
      g_strv_contains (torch_no_work, name) || g_str_has_prefix (name, "ProfilerStep") ||
      g_str_has_prefix (name, "Optimizer."))
    return BPW_KERNEL_NONE;
  return classify_kernel (name);
}

const char *
bpw_kernel_kind_to_string (BpwKernelKind kind)
{
  static const char * const names[] = {
    "none", "unknown", "matmul", "batched_matmul", "attention", "softmax", "norm", "gelu",
    "swiglu", "dropout", "add", "bias", "rotary", "gather", "scatter_add", "cross_entropy",
    "topk", "permute", "optimizer", "elementwise", "reduce", "copy", "fill", "communication",
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (names) == BPW_N_KERNEL_KINDS);
  g_return_val_if_fail (kind < BPW_N_KERNEL_KINDS, "?");
  return names[kind];
}

BpwStackKernelClass
bpw_stack_kernel_class_from_name (const char *name)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (name != NULL, BPW_STACK_KERNEL_OTHER);

  lower = g_ascii_strdown (name, -1);
  /* PyTorch converts dtypes with its copy kernels: "bfloat16_copy_kernel_cuda" and the
   * templated "direct_copy_kernel_cuda" (whose lambda casts); memcpys keep the dtype. */
  if (strstr (lower, "_copy_kernel") != NULL && strstr (lower, "memcpy") == NULL)
    return BPW_STACK_KERNEL_CAST;
  switch (bpw_kernel_kind_from_name (BPW_PROFILE_FORMAT_PYTORCH, name))
    {
    case BPW_KERNEL_MATMUL:
    case BPW_KERNEL_BATCHED_MATMUL:
      return BPW_STACK_KERNEL_GEMM;
    case BPW_KERNEL_ATTENTION:
      return BPW_STACK_KERNEL_FLASH;
    case BPW_KERNEL_OPTIMIZER:
      return BPW_STACK_KERNEL_OPTIMIZER;
    case BPW_KERNEL_SOFTMAX:
    case BPW_KERNEL_NORM:
    case BPW_KERNEL_GELU:
    case BPW_KERNEL_SWIGLU:
    case BPW_KERNEL_DROPOUT:
    case BPW_KERNEL_ADD:
    case BPW_KERNEL_BIAS:
    case BPW_KERNEL_ROTARY:
    case BPW_KERNEL_CROSS_ENTROPY:
    case BPW_KERNEL_ELEMENTWISE:
    case BPW_KERNEL_REDUCE:
    case BPW_KERNEL_FILL:
      /* memset is a fill by name, but a driver call, not a kernel the stack chose */
      return strstr (lower, "memset") != NULL ? BPW_STACK_KERNEL_OTHER
                                              : BPW_STACK_KERNEL_ELEMENTWISE;
    case BPW_KERNEL_NONE:
    case BPW_KERNEL_UNKNOWN:
    case BPW_KERNEL_GATHER:
    case BPW_KERNEL_SCATTER_ADD:
    case BPW_KERNEL_TOPK:
    case BPW_KERNEL_PERMUTE:
    case BPW_KERNEL_COPY:
    case BPW_KERNEL_COMMUNICATION:
    case BPW_N_KERNEL_KINDS:
    default:
      return BPW_STACK_KERNEL_OTHER;
    }
}

const char *
bpw_stack_kernel_class_to_string (BpwStackKernelClass klass)
{
  static const char * const names[] = {
    "gemm", "flash", "cast", "optimizer", "elementwise", "other",
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (names) == BPW_N_STACK_KERNEL_CLASSES);
  g_return_val_if_fail (klass < BPW_N_STACK_KERNEL_CLASSES, "?");
  return names[klass];
}
