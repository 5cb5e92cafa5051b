/* bpw-decompose-size.c — an upper bound of the work graph's size, counted before building it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Counts mirror what bpw-decompose.c emits per block; every count here is an upper bound
 * (test-property-options checks it against built graphs). Per forward op the backward pass
 * emits at most two ops (data and weight gradient), recomputation at most one, and the
 * optimizer one per weight (at most one weight per forward op). Uses per op: a forward op at
 * most 6 (rotary: qkv, q, k, v and both caches), a data-gradient op 7, a weight-gradient
 * op 4, a recompute op 7 (three reads, four copies), an optimizer op 6. Dependencies are
 * reads, so at most the uses.
 */
#define G_LOG_DOMAIN "bpw-decompose-size"

#include "config.h"

#include "bpw-decompose-size.h"
#include "bpw-decompose-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

typedef struct
{
  guint64 ops;
  guint64 tensors;
} Forward;

static void
add_forward (Forward *total, guint64 times, guint64 ops, guint64 tensors)
{
  total->ops += times * ops;
  total->tensors += times * tensors;
}

/* Forward ops and tensors of the whole model, as bpw-decompose.c's embedding(), block()
 * and head() emit them. */
static Forward
forward_counts (const BpwModelSpec *m, gboolean train)
{
  guint64 lb = m->linear_bias ? 1 : 0, qb = m->qkv_bias ? 1 : 0;
  guint64 dr = train && m->dropout ? 1 : 0, inference = train ? 0 : 1;
  guint64 shared = (guint64) m->shared_experts;
  guint64 moe_layers = 0, mtp = train ? (guint64) MAX (m->mtp_modules, 0) : 0;
  guint64 blocks = (guint64) m->layers + mtp;
  Forward f = { 0, 0 };

  if (m->experts > 0 && m->moe_first < m->layers)
    moe_layers = (guint64) ((m->layers - m->moe_first - 1) / MAX (m->moe_every, 1) + 1);
  /* Training's MTP modules (bpw-decompose-mtp.c): each a block of the kind of layer
   * m->layers, counted with the model's, and around it two norms, the lookup, the
   * concatenation, the projection, the head's norm, matmul and loss, their 13 tensors;
   * the token ids once. */
  if (bpw_model_spec_is_moe_layer (m, m->layers))
    moe_layers += mtp;
  add_forward (&f, mtp, 8, 13);
  add_forward (&f, mtp > 0 ? 1 : 0, 0, 1);

  /* Embedding: gather, learned positions, dropout; the token ids. */
  add_forward (&f, 1, 1 + (m->positions == BPW_POSITION_LEARNED) + dr,
               3 + 2 * (m->positions == BPW_POSITION_LEARNED) + 2 * dr);
  /* Every block: norm, qkv (+ bias), rotary, qk, softmax (+ dropout), av, proj (+ bias,
   * dropout), residual, second norm. Tensors: norm 2, qkv 2 (+2), q k v 3, caches 2 in
   * inference, scores, probs (+ mask, out), context, proj 2 (+2, + mask, out), residual,
   * norm 2. */
  add_forward (&f, blocks, 9 + qb + lb + 2 * dr,
               17 + 2 * qb + 2 * lb + 4 * dr + 2 * inference);
  /* Latent attention instead of the qkv matmul and one rotary, at most: q_a, q_a_norm,
   * q_b, kv_a, kv_a_norm, a second rotary, kv_b (or both absorptions) and their tensors. */
  if (bpw_model_spec_is_mla (m))
    add_forward (&f, blocks, 7, 10);
  /* Dense MLP: fc1 (+ bias), activation, fc2 (+ bias, dropout), residual. */
  add_forward (&f, blocks - moe_layers, 4 + 2 * lb + dr, 8 + 4 * lb + 2 * dr);
  /* MoE: router, top-k, dispatch, expert fc1 (+ bias), activation, fc2, combine, residual;
   * each shared expert an MLP and an add. */
  add_forward (&f, moe_layers, 8 + lb + shared * (4 + lb), 11 + 2 * lb + shared * (6 + 2 * lb));
  /* The router's balancing bias: an add and its bias and output. */
  if (m->router_bias)
    add_forward (&f, moe_layers, 1, 2);
  /* Head: final norm, head, loss. */
  add_forward (&f, 1, 3, 6);
  /* Vision encoder (bpw-decompose-vision.c): each layer a block with both biases and no
   * dropout; around them the pixels, patch matmul and bias, class token, positions, pre-norm,
   * select, the projector's two matmuls, bias, GELU and bias, and the embedding's merge. */
  if (m->vision.layers > 0)
    {
      add_forward (&f, (guint64) m->vision.layers, 11 + 6, 21 + 12 + 2);
      add_forward (&f, 1, 12, 24 + 2);
      /* Llama 3.2 Vision: the global layers (two gates each), the tile tables, padding and
       * the concatenation. */
      add_forward (&f, (guint64) m->vision.global_layers, 11 + 6, 21 + 12 + 4);
      add_forward (&f, 1, 8, 16);
    }
  /* A cross-attention layer on top of a block's counts: q_norm, k, k_norm, v, the cache
   * store, two gates; their tensors and the two caches. */
  add_forward (&f, (guint64) MAX (m->n_cross_layers, 0), 8, 16);
  return f;
}

void
bpw_decompose_size_bound (const BpwModelSpec *spec,
                          BpwWorkloadPhase    phase,
                          BpwRecompute        recompute,
                          BpwWorkGraphSize   *size)
{
  gboolean train = phase == BPW_WORKLOAD_TRAIN;
  Forward f = forward_counts (spec, train);
  guint64 F = f.ops;

  *size = (BpwWorkGraphSize) { .forward_ops = F, .ops = F, .tensors = f.tensors, .uses = 6 * F };
  if (train)
    {
      guint64 redo = recompute != BPW_RECOMPUTE_NONE ? F : 0;

      /* Backward (2 per forward op), recompute, optimizer (one per weight). */
      size->ops += 2 * F + redo + F;
      /* A gradient per forward tensor, four recomputed copies per op, moments and master. */
      size->tensors += f.tensors + 4 * redo + 2 * F;
      size->uses += (7 + 4) * F + 7 * redo + 6 * F;
    }
  size->deps = size->uses;
  size->bytes = size->ops * sizeof (BpwOp) + size->tensors * sizeof (BpwTensor) +
                size->uses * sizeof (BpwTensorUse) + size->deps * sizeof (guint32) +
                F * sizeof (TapeEntry);
}

static gboolean
budget_error (const BpwModelSpec     *spec,
              const BpwWorkGraphSize *size,
              const char             *under,
              GError                **error)
{
  guint64 per_layer = MAX (size->bytes / (guint64) spec->layers, 1);

  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("model.layers: the work graph of “%s” (%" PRId64 " layers) would take "
                 "up to %" PRIu64 " MiB %s, more than the budget of %" PRIu64
                 " MiB; at most about %" PRIu64 " layers of this shape fit"),
               spec->name != NULL ? spec->name : "model", spec->layers,
               (size->bytes + (1 << 20) - 1) >> 20, under, BPW_WORK_GRAPH_BUDGET_MIB,
               BPW_WORK_GRAPH_BUDGET_BYTES / per_layer);
  return FALSE;
}

gboolean
bpw_decompose_check_budget (const BpwModelSpec *spec,
                            BpwWorkloadPhase    phase,
                            BpwRecompute        recompute,
                            GError            **error)
{
  BpwWorkGraphSize size;
  g_autofree char *under = NULL;

  bpw_decompose_size_bound (spec, phase, recompute, &size);
  if (size.bytes <= BPW_WORK_GRAPH_BUDGET_BYTES)
    return TRUE;
  under = g_strdup_printf ("(phase %s, recompute %s)", bpw_workload_phase_to_string (phase),
                           bpw_recompute_to_string (recompute));
  return budget_error (spec, &size, under, error);
}

gboolean
bpw_decompose_check_model_budget (const BpwModelSpec *spec,
                                  GError            **error)
{
  BpwWorkGraphSize size, largest = { 0 };
  BpwWorkloadPhase phases[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE };

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      bpw_decompose_size_bound (spec, phases[i], BPW_RECOMPUTE_FULL, &size);
      if (size.bytes > largest.bytes)
        largest = size;
    }
  if (largest.bytes <= BPW_WORK_GRAPH_BUDGET_BYTES)
    return TRUE;
  return budget_error (spec, &largest, "under the largest of its phases and recompute "
                       "options", error);
}
