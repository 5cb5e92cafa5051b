/* bpw-decompose-size.h — how big a scenario's work graph can get, and the budget it must fit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The decomposition emits a fixed set of ops per Transformer block, so the graph grows
 * linearly with the layers (and with the shared experts of MoE blocks). Before anything is
 * allocated, bpw_decompose_size_bound() counts an upper bound of the ops, tensors, tensor
 * uses and dependencies from the model's shape alone, and a graph whose bound passes
 * BPW_WORK_GRAPH_BUDGET_BYTES is refused with a sentence instead of allocated.
 *
 * The budget: 512 MiB of graph (ops, tensors, uses, dependencies and the forward tape).
 * Under training with full recomputation, the largest case, the bundled models bound at
 * 3.2 MiB at most (GPT-3 175B), Megatron's 128-layer 1 T at 4.3 MiB, and a 128-layer MoE
 * with every bias, dropout and a shared expert at 5.7 MiB: two orders of magnitude to
 * spare. The most layers a model may have, BPW_MODEL_MAX_LAYERS (4096, also the schema's
 * maximum), of that largest block with two shared experts bound at 215 MiB. What passes the
 * budget is a typo or a model no accelerator review needs (thousands of shared experts).
 */
#pragma once

#include "bpw-model-spec.h"

G_BEGIN_DECLS

#define BPW_WORK_GRAPH_BUDGET_MIB   G_GUINT64_CONSTANT (512)
#define BPW_WORK_GRAPH_BUDGET_BYTES (BPW_WORK_GRAPH_BUDGET_MIB << 20)

/* Upper bounds of a work graph's array lengths and of the bytes they and the forward tape
 * take while the graph is built. */
typedef struct
{
  guint64  forward_ops;
  guint64  ops;
  guint64  tensors;
  guint64  uses;
  guint64  deps;
  guint64  bytes;
} BpwWorkGraphSize;

/* @spec must have passed bpw_model_spec_validate(). */
void      bpw_decompose_size_bound    (const BpwModelSpec *spec,
                                       BpwWorkloadPhase    phase,
                                       BpwRecompute        recompute,
                                       BpwWorkGraphSize   *size);

/* FALSE with BPW_ERROR_INVALID_INPUT, "model.layers: …" naming the model, the bound and
 * the budget, when the graph of @phase under @recompute could pass the budget. */
gboolean  bpw_decompose_check_budget  (const BpwModelSpec *spec,
                                       BpwWorkloadPhase    phase,
                                       BpwRecompute        recompute,
                                       GError            **error);

/* The same for the largest graph the model has under any phase and recompute policy, so a
 * model that loads can be evaluated under every option. */
gboolean  bpw_decompose_check_model_budget (const BpwModelSpec *spec,
                                            GError            **error);

G_END_DECLS
