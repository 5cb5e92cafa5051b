/* bpw-decompose-mtp.c — DeepSeek-V3's multi-token prediction modules in training
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * DeepSeek-V3 §2.2: module k (1 ≤ k ≤ D) predicts the token k + 1 positions ahead. It
 * normalises the previous depth's representation (the main model's last block output for
 * k = 1) and the embedding of the tokens k positions ahead, projects their concatenation
 * [2h → h] (M_k), runs one Transformer block TRM_k of the model's own kind (DeepSeek-V3: an
 * MLA + MoE layer, as its layer m->layers) and predicts through the output head, which it
 * shares with the main model, as it shares the embedding; its cross-entropy is the depth's
 * loss. Its ops are those of the main model's: the block is built by the same code, the
 * head's matmul reads the main head's weight (its gradient accumulates there), the lookup
 * the main table.
 *
 * Placement: Megatron-LM and DeepSeek put the modules on the last pipeline stage, after the
 * main head; every op and tensor here is tagged BPW_LAYER_AFTER_BLOCKS, which places it
 * there for the distribution, the plan, the estimator and the simulation alike. The lookup
 * there reads the embedding table the first stage holds, so a pipeline keeps a copy of it
 * on the last stage and sums the two gradients, as with tied embeddings.
 *
 * As Megatron-LM runs it, each depth works on all T positions of the micro-batch (it rolls
 * the labels and masks the last k), so its FLOPs are those of T tokens. The loss weight λ
 * scales one scalar and is left out.
 *
 * The projection's weight is whole on every tensor-parallel rank and its work follows the
 * sequence shard, as latent attention's down projections (no tensor-parallel collective).
 */
#define G_LOG_DOMAIN "bpw-decompose-mtp"

#include "config.h"

#include "bpw-decompose-private.h"

static gint32
mtp_module (Ctx *c, gint32 h_prev, gint32 tokens, gint32 table, gint32 head_w)
{
  const BpwModelSpec *m = c->m;
  const gint layer = BPW_LAYER_AFTER_BLOCKS;
  guint64 T = c->T, h = m->hidden;
  gint32 hn, emb, en, cat, w, x, y;
  guint64 f;
  guint range[2];

  hn = _bpw_decompose_norm (c, "mtp.hnorm", BPW_LAYER_NORM, layer, h_prev);

  /* The embedding of the tokens k ahead: the same lookup as the main model's, of the
   * last stage's token ids shifted. */
  emb = activation (c, "mtp.embedding.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, h));
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "mtp.embedding", .prim = BPW_PRIM_GATHER, .layer_type = BPW_LAYER_EMBEDDING,
    .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { tokens, NONE }, .weight = table,
    .out = emb, .saved = NONE, .no_dx = TRUE, .bwd_weight = mul (c, T, h),
  });
  en = _bpw_decompose_norm (c, "mtp.enorm", BPW_LAYER_NORM, layer, emb);

  cat = activation (c, "mtp.concat.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, 2 * h));
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "mtp.concat", .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_HEAD,
    .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { hn, en }, .weight = NONE,
    .out = cat, .saved = NONE, .concat = TRUE,
  });

  w = weight (c, "mtp.eh_proj.w", BPW_SPLIT_REPLICATED, layer, mul (c, 2 * h, h));
  x = activation (c, "mtp.eh_proj.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, h));
  f = mul3 (c, 2 * T, 2 * h, h);
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "mtp.eh_proj", .prim = BPW_PRIM_MATMUL, .layer_type = BPW_LAYER_HEAD,
    .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { cat, NONE }, .weight = w, .out = x,
    .saved = NONE, .flops = f, .semantic = f, .bwd_act = f, .bwd_act_semantic = f,
    .bwd_weight = f, .bwd_weight_semantic = f, .batch = 1, .m = T, .n = h, .k = 2 * h,
  });

  /* TRM_k: a block as the main model's, recomputed as one of its layers. */
  range[0] = c->tape->len;
  c->mtp = TRUE;
  y = _bpw_decompose_block (c, layer, x);
  c->mtp = FALSE;
  range[1] = c->tape->len;
  g_array_append_vals (c->mtp_blocks, range, 2);

  /* The shared head: its norm (the module's own weight) and the main head's matmul. */
  _bpw_decompose_logits_loss (c, _bpw_decompose_norm (c, "mtp.norm", BPW_LAYER_NORM, layer, y),
                              head_w);
  return y;
}

void
_bpw_decompose_mtp (Ctx    *c,
                    gint32  x,
                    gint32  table,
                    gint32  head_w)
{
  /* The token ids, which the first stage's embedding reads, on the last stage too. */
  gint32 tokens = tensor (c, "mtp.tokens", BPW_TENSOR_ACTIVATION, BPW_SPLIT_REPLICATED,
                          BPW_DTYPE_FP32, BPW_LAYER_AFTER_BLOCKS, c->T);

  for (gint64 k = 0; k < c->m->mtp_modules && !c->b->overflow; k++)
    x = mtp_module (c, x, tokens, table, head_w);
}
