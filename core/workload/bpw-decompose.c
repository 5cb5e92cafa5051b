/* bpw-decompose.c — a decoder-only Transformer scenario as exact operations and tensors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The forward pass is emitted op by op and recorded on a tape; the backward pass (and
 * recomputation) is derived from the tape in reverse, so every gradient op knows exactly
 * which saved tensor it reads. A tensor becomes a stored activation (a checkpoint) because
 * a backward op reads it, not because a table says so: the per-layer activation memory of
 * Korthikanti et al. falls out of the reads.
 *
 * FLOP conventions (2 per multiply-add; element-wise costs are this tool's convention and
 * only enter hardware FLOPs, never the model FLOPs of the MFU numerator):
 *   LayerNorm 8/elem forward, RMSNorm 4; softmax 5; GeLU 8; SwiGLU 5 (silu 4 + product);
 *   dropout 2 (mask and scale); residual add and bias 1; rotary 3; cross-entropy 5 per logit.
 *   Backward of element-wise ops costs twice their forward.
 *   Optimizer: AdamW 12 per parameter, SGD with momentum 4.
 */
#define G_LOG_DOMAIN "bpw-decompose"

#include "config.h"

#include "bpw-decompose-private.h"
#include "bpw-decompose-size.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

/* Emits a forward op, records its reads and writes, and pushes it on the tape. */
TapeEntry *
_bpw_decompose_fwd (Ctx *c, const TapeEntry *tmpl)
{
  TapeEntry e = *tmpl;
  BpwOp *op;

  if (c->vision)
    e.layer_type = BPW_LAYER_VISION;
  else if (c->cross && e.layer_type == BPW_LAYER_ATTENTION)
    e.layer_type = BPW_LAYER_CROSS_ATTENTION;
  e.frozen = c->frozen;
  e.op = _bpw_work_graph_add_op (c->b, e.name, e.prim, BPW_PHASE_FORWARD, e.layer_type,
                                 e.split, e.layer, c->count, e.flops, e.semantic);
  op = &g_array_index (c->b->graph->ops, BpwOp, e.op);
  /* Callers pass names they free on return; keep the graph's interned copy instead. */
  e.name = bpw_work_graph_name (c->b->graph, op->name);
  op->batch = e.batch;
  op->m = e.m;
  op->n = e.n;
  op->k = e.k;
  use (c, e.op, e.in[0], BPW_ACCESS_READ);
  use (c, e.op, e.in[1], BPW_ACCESS_READ);
  use_weight (c, e.op, &e);
  use (c, e.op, e.out, BPW_ACCESS_WRITE);
  if (e.saved != NONE && e.saved != e.out)
    use (c, e.op, e.saved, BPW_ACCESS_WRITE);
  g_array_append_val (c->tape, e);
  return &g_array_index (c->tape, TapeEntry, c->tape->len - 1);
}

/* ---- forward building blocks ---- */

gint32
_bpw_decompose_linear (Ctx        *c,
                       const char *name,
                       BpwLayerType lt,
                       gint        layer,
                       gint32      x,
                       guint64     rows,
                       guint64     in,
                       guint64     out,
                       BpwSplit    wsplit,
                       BpwSplit    osplit,
                       gboolean    bias,
                       guint64     semantic_rows)
{
  g_autofree char *wname = g_strconcat (name, ".w", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 w = weight (c, wname, wsplit, layer, mul (c, in, out));
  gint32 y = activation (c, oname, osplit, layer, mul (c, rows, out));
  guint64 f = mul3 (c, 2 * rows, in, out);
  guint64 fs = mul3 (c, 2 * semantic_rows, in, out);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_MATMUL, .layer_type = lt, .split = wsplit, .layer = layer,
    .in = { x, NONE }, .weight = w, .out = y, .saved = NONE,
    .flops = f, .semantic = fs, .bwd_act = f, .bwd_act_semantic = fs, .bwd_weight = f,
    .bwd_weight_semantic = fs, .batch = 1, .m = rows, .n = out, .k = in,
  });

  if (bias)
    {
      g_autofree char *bname = g_strconcat (name, ".bias", NULL);
      g_autofree char *bwname = g_strconcat (name, ".b", NULL);
      gint32 bw = weight (c, bwname, wsplit, layer, out);
      gint32 yb = activation (c, bname, osplit, layer, mul (c, rows, out));
      guint64 n = mul (c, rows, out);

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = bname, .prim = BPW_PRIM_BIAS, .layer_type = lt, .split = osplit, .layer = layer,
        .in = { y, NONE }, .weight = bw, .out = yb, .saved = NONE,
        .flops = n, .semantic = n, .bwd_act = 0, .bwd_weight = n,
      });
      y = yb;
    }
  return y;
}

gint32
_bpw_decompose_pointwise (Ctx *c, const char *name, BpwPrimitive prim, BpwLayerType lt,
                          BpwSplit split, gint layer, gint32 x, gint32 x2, guint64 elements,
                          guint64 out_elements, guint64 per_elem)
{
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 y = activation (c, oname, split, layer, out_elements);
  guint64 f = mul (c, elements, per_elem);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = prim, .layer_type = lt, .split = split, .layer = layer,
    .in = { x, x2 }, .weight = NONE, .out = y, .saved = NONE,
    .flops = f, .semantic = f, .bwd_act = 2 * f, .bwd_act_semantic = 2 * f,
  });
  return y;
}

gint32
_bpw_decompose_norm (Ctx *c, const char *name, BpwLayerType lt, gint layer, gint32 x)
{
  gboolean ln = c->m->norm == BPW_NORM_LAYERNORM;
  g_autofree char *wname = g_strconcat (name, ".w", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  guint64 h = c->m->hidden;
  gint32 w = weight (c, wname, BPW_SPLIT_REPLICATED, layer, ln ? 2 * h : h);
  gint32 y = activation (c, oname, BPW_SPLIT_SEQUENCE, layer, mul (c, c->T, h));
  guint64 f = mul3 (c, c->T, h, ln ? 8 : 4);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_NORM, .layer_type = lt, .split = BPW_SPLIT_SEQUENCE,
    .layer = layer, .in = { x, NONE }, .weight = w, .out = y, .saved = NONE,
    .flops = f, .semantic = f, .bwd_act = 2 * f, .bwd_act_semantic = 2 * f,
    .bwd_weight = mul3 (c, c->T, h, ln ? 3 : 2),
  });
  return y;
}

/* Dropout in training only; the one-byte mask is what backward keeps. */
gint32
_bpw_decompose_dropout (Ctx *c, const char *name, BpwLayerType lt, BpwSplit split, gint layer,
                        gint32 x, guint64 elements, gboolean selective)
{
  g_autofree char *oname = NULL;
  g_autofree char *mname = NULL;
  gint32 y, mask;
  guint64 f;
  TapeEntry *e;

  if (!c->dropout)
    return x;
  oname = g_strconcat (name, ".out", NULL);
  mname = g_strconcat (name, ".mask", NULL);
  y = activation (c, oname, split, layer, elements);
  mask = tensor (c, mname, BPW_TENSOR_ACTIVATION, split, BPW_DTYPE_U8, layer, elements);
  f = mul (c, elements, 2);
  e = _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_DROPOUT, .layer_type = lt, .split = split, .layer = layer,
    .in = { x, NONE }, .weight = NONE, .out = y, .saved = mask,
    .flops = f, .semantic = f, .bwd_act = f, .bwd_act_semantic = f,
  });
  e->selective = selective != FALSE;
  return y;
}

static gint32
mlp (Ctx *c, const char *prefix, BpwLayerType lt, gint layer, gint32 x, guint64 rows,
     guint64 semantic_rows, guint64 f, BpwSplit split)
{
  const BpwModelSpec *m = c->m;
  gboolean swiglu = m->ffn_kind == BPW_FFN_SWIGLU;
  g_autofree char *fc1 = g_strconcat (prefix, swiglu ? ".gate_up" : ".fc1", NULL);
  g_autofree char *act = g_strconcat (prefix, swiglu ? ".swiglu" : ".gelu", NULL);
  g_autofree char *fc2 = g_strconcat (prefix, swiglu ? ".down" : ".fc2", NULL);
  guint64 h = m->hidden, width = swiglu ? 2 * f : f;
  BpwSplit osplit = split == BPW_SPLIT_EXPERT ? BPW_SPLIT_EXPERT : BPW_SPLIT_REPLICATED;
  gint32 u, a, y;
  TapeEntry *e;

  u = _bpw_decompose_linear (c, fc1, lt, layer, x, rows, h, width, split, split, m->linear_bias,
                             semantic_rows);
  a = _bpw_decompose_pointwise (c, act, swiglu ? BPW_PRIM_SWIGLU : BPW_PRIM_GELU, lt, split, layer,
                                u, NONE, mul (c, rows, f), mul (c, rows, f), swiglu ? 5 : 8);
  /* Pointwise semantic work follows the routed rows, not the padded slots. */
  e = &g_array_index (c->tape, TapeEntry, c->tape->len - 1);
  e->semantic = mul3 (c, semantic_rows, f, swiglu ? 5 : 8);
  e->bwd_act_semantic = 2 * e->semantic;
  y = _bpw_decompose_linear (c, fc2, lt, layer, a, rows, f, h, split, osplit, FALSE, semantic_rows);
  return y;
}

/* The attention core as training and prefill run it: scores = q k^T, softmax, dropout and
 * context = p v, per head; @qk and @vd are the query/key and value widths of a head, @tri
 * the scores a causal mask leaves. Returns the context. */
gint32
_bpw_decompose_attention_core (Ctx     *c,
                               gint     layer,
                               gint32   q,
                               gint32   k,
                               gint32   v,
                               guint64  qk,
                               guint64  vd,
                               guint64  keys,
                               guint64  scores,
                               guint64  tri)
{
  guint64 T = c->T, a = c->m->heads;
  gint32 sc, p, pd, ctx;
  TapeEntry *e;

  sc = activation (c, "attn.scores", BPW_SPLIT_TP, layer, scores);
  e = _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "attn.qk", .prim = BPW_PRIM_BATCHED_MATMUL, .layer_type = BPW_LAYER_ATTENTION,
    .split = BPW_SPLIT_TP, .layer = layer, .in = { q, k }, .weight = NONE, .out = sc,
    .saved = NONE, .flops = mul (c, scores, 2 * qk), .semantic = mul (c, tri, 2 * qk),
    .bwd_act = mul (c, scores, 4 * qk), .bwd_act_semantic = mul (c, tri, 4 * qk),
    .batch = c->mb * a, .m = c->sq, .n = keys, .k = qk,
  });
  e->selective = TRUE;

  p = activation (c, "attn.probs", BPW_SPLIT_TP, layer, scores);
  e = _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "attn.softmax", .prim = BPW_PRIM_SOFTMAX, .layer_type = BPW_LAYER_ATTENTION,
    .split = BPW_SPLIT_TP, .layer = layer, .in = { sc, NONE }, .weight = NONE, .out = p,
    .saved = p, .flops = mul (c, scores, 5), .semantic = mul (c, tri, 5),
    .bwd_act = mul (c, scores, 10), .bwd_act_semantic = mul (c, tri, 10),
  });
  e->selective = TRUE;

  pd = _bpw_decompose_dropout (c, "attn.dropout", BPW_LAYER_ATTENTION, BPW_SPLIT_TP, layer, p,
                               scores, TRUE);

  ctx = activation (c, "attn.context", BPW_SPLIT_TP, layer, mul3 (c, T, a, vd));
  e = _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "attn.av", .prim = BPW_PRIM_BATCHED_MATMUL, .layer_type = BPW_LAYER_ATTENTION,
    .split = BPW_SPLIT_TP, .layer = layer, .in = { pd, v }, .weight = NONE, .out = ctx,
    .saved = NONE, .flops = mul (c, scores, 2 * vd), .semantic = mul (c, tri, 2 * vd),
    .bwd_act = mul (c, scores, 4 * vd), .bwd_act_semantic = mul (c, tri, 4 * vd),
    .batch = c->mb * a, .m = c->sq, .n = vd, .k = keys,
  });
  /* Korthikanti et al.: selective recomputation redoes the whole attention core, both s^2
   * matmuls included; its output, the projection's input, stays stored. */
  e->selective = TRUE;
  return ctx;
}

static gint32
attention (Ctx *c, gint layer, gint32 x)
{
  const BpwModelSpec *m = c->m;
  const BpwScenario *s = c->s;
  guint64 T = c->T, h = m->hidden, d = m->head_dim, a = m->heads, kv = m->kv_heads;
  gint64 window = bpw_model_spec_layer_window (m, kind_layer (c, layer));
  /* Keys one query row reaches: all of them, or the window's W (a rolling buffer). The
   * executed and stored score matrix is rectangular, sq x keys per head: a materialized
   * banded matrix keeps each row's W-wide band and nothing outside it (for W >= seq that
   * is today's full sq x skv); the triangle inside the band is computed and masked, as
   * the full causal matrix is. */
  guint64 keys = window > 0 ? MIN (c->skv, (guint64) window) : c->skv;
  guint64 scores = mul3 (c, c->mb * a, c->sq, keys);
  /* Causal prefill and training need only the lower triangle, and with a window only
   * its band: the sum over positions i of min(i + 1, W). */
  gboolean causal = !c->encoder && c->sq == c->skv && c->sq > 1;
  guint64 tri = causal ? mul (c, c->mb * a, bpw_model_spec_causal_keys (c->sq, window))
                       : scores;
  gint32 qkv, q, k, v, kc = NONE, vc = NONE, ctx, y;

  qkv = _bpw_decompose_linear (c, "attn.qkv", BPW_LAYER_ATTENTION, layer, x, T, h, (a + 2 * kv) * d,
                               BPW_SPLIT_TP, BPW_SPLIT_TP, FALSE, T);
  if (m->qkv_bias)
    {
      gint32 bw = weight (c, "attn.qkv.b", BPW_SPLIT_TP, layer, (a + 2 * kv) * d);
      gint32 yb = activation (c, "attn.qkv.bias.out", BPW_SPLIT_TP, layer,
                              mul (c, T, (a + 2 * kv) * d));
      guint64 n = mul (c, T, (a + 2 * kv) * d);

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "attn.qkv.bias", .prim = BPW_PRIM_BIAS, .layer_type = BPW_LAYER_ATTENTION,
        .split = BPW_SPLIT_TP, .layer = layer, .in = { qkv, NONE }, .weight = bw, .out = yb,
        .saved = NONE, .flops = n, .semantic = n, .bwd_weight = n,
      });
      qkv = yb;
    }

  /* Q, K and V as the attention core reads them (after rotary for Q and K). */
  q = activation (c, "attn.q", BPW_SPLIT_TP, layer, mul3 (c, T, a, d));
  /* The encoder has a key and value per head, split over TP as its heads are (KV_HEADS
   * splits by the decoder's key/value heads). */
  k = activation (c, "attn.k", c->encoder ? BPW_SPLIT_TP : BPW_SPLIT_KV_HEADS, layer,
                  mul3 (c, T, kv, d));
  v = activation (c, "attn.v", c->encoder ? BPW_SPLIT_TP : BPW_SPLIT_KV_HEADS, layer,
                  mul3 (c, T, kv, d));
  {
    guint64 rot = m->positions == BPW_POSITION_ROTARY ? mul3 (c, T, (a + kv) * d, 3) : 0;
    guint32 op = _bpw_work_graph_add_op (c->b, "attn.rotary", m->positions == BPW_POSITION_ROTARY
                                         ? BPW_PRIM_ROTARY : BPW_PRIM_PERMUTE,
                                         BPW_PHASE_FORWARD, c->vision ? BPW_LAYER_VISION
                                         : BPW_LAYER_ATTENTION, BPW_SPLIT_TP,
                                         layer, c->count, rot, rot);
    TapeEntry te = {
      .out2 = { k, v },
      .op = op, .name = "attn.rotary", .prim = m->positions == BPW_POSITION_ROTARY
      ? BPW_PRIM_ROTARY : BPW_PRIM_PERMUTE,
      .layer_type = c->vision ? BPW_LAYER_VISION : BPW_LAYER_ATTENTION, .frozen = c->frozen,
      .split = BPW_SPLIT_TP, .layer = layer, .in = { qkv, NONE }, .weight = NONE, .out = q,
      .saved = NONE, .flops = rot, .semantic = rot, .bwd_act = rot, .bwd_act_semantic = rot,
    };

    use (c, op, qkv, BPW_ACCESS_READ);
    use (c, op, q, BPW_ACCESS_WRITE);
    use (c, op, k, BPW_ACCESS_WRITE);
    use (c, op, v, BPW_ACCESS_WRITE);
    g_array_append_val (c->tape, te);
  }

  if (s->phase != BPW_WORKLOAD_TRAIN && !c->encoder)
    {
      /* Inference keeps K and V of every position in the cache, or of the last W in a
       * windowed layer's rolling buffer; the scores read all of it. */
      guint64 cache = mul3 (c, c->mb * keys, kv, d);
      guint32 op = c->tape->len ? g_array_index (c->tape, TapeEntry, c->tape->len - 1).op : 0;

      kc = tensor (c, "attn.k_cache", BPW_TENSOR_KV_CACHE, BPW_SPLIT_KV_HEADS, s->kv_dtype,
                   layer, cache);
      vc = tensor (c, "attn.v_cache", BPW_TENSOR_KV_CACHE, BPW_SPLIT_KV_HEADS, s->kv_dtype,
                   layer, cache);
      /* The rotary op appends this step's T positions to the cache. */
      _bpw_work_graph_use_bytes (c->b, op, kc, BPW_ACCESS_WRITE,
                                 mul3 (c, T, kv * d, bpw_dtype_bytes (s->kv_dtype)));
      _bpw_work_graph_use_bytes (c->b, op, vc, BPW_ACCESS_WRITE,
                                 mul3 (c, T, kv * d, bpw_dtype_bytes (s->kv_dtype)));
    }

  ctx = _bpw_decompose_attention_core (c, layer, q, kc != NONE ? kc : k, vc != NONE ? vc : v, d,
                                       d, keys, scores, tri);

  y = _bpw_decompose_linear (c, "attn.proj", BPW_LAYER_ATTENTION, layer, ctx, T, a * d, h,
                             BPW_SPLIT_TP, BPW_SPLIT_REPLICATED, FALSE, T);
  return _bpw_decompose_attention_out (c, layer, y);
}

/* The output projection's bias and dropout, after any kind of attention. */
gint32
_bpw_decompose_attention_out (Ctx    *c,
                              gint    layer,
                              gint32  y)
{
  guint64 T = c->T, h = c->m->hidden;

  if (c->m->linear_bias && !c->no_attn_bias)
    {
      gint32 bw = weight (c, "attn.proj.b", BPW_SPLIT_REPLICATED, layer, h);
      gint32 yb = activation (c, "attn.proj.bias.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, h));

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "attn.proj.bias", .prim = BPW_PRIM_BIAS, .layer_type = BPW_LAYER_ATTENTION,
        .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { y, NONE }, .weight = bw, .out = yb,
        .saved = NONE, .flops = mul (c, T, h), .semantic = mul (c, T, h),
        .bwd_weight = mul (c, T, h),
      });
      y = yb;
    }
  return _bpw_decompose_dropout (c, "attn.out_dropout", BPW_LAYER_ATTENTION, BPW_SPLIT_SEQUENCE,
                                 layer, y, mul (c, T, h), FALSE);
}

/* A tanh gate scales @y before the residual add: 2 per element (scale, add); the gate's
 * gradient sums y dx over the elements. */
gint32
_bpw_decompose_gated_add (Ctx *c, const char *name, BpwLayerType lt, gint layer, gint32 x,
                          gint32 y)
{
  g_autofree char *wname = g_strconcat (name, ".w", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  guint64 Th = mul (c, c->T, c->m->hidden);
  gint32 g = weight (c, wname, BPW_SPLIT_REPLICATED, layer, 1);
  gint32 out = activation (c, oname, BPW_SPLIT_SEQUENCE, layer, Th);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_ADD, .layer_type = lt, .split = BPW_SPLIT_SEQUENCE,
    .layer = layer, .in = { x, y }, .weight = g, .out = out, .saved = NONE,
    .flops = 2 * Th, .semantic = 2 * Th, .bwd_act = 2 * Th, .bwd_act_semantic = 2 * Th,
    .bwd_weight = 2 * Th,
  });
  return out;
}

static gint32
dense_mlp (Ctx *c, gint layer, gint32 x)
{
  const BpwModelSpec *m = c->m;
  guint64 T = c->T, h = m->hidden;
  gint32 y = mlp (c, "mlp", BPW_LAYER_MLP, layer, x, T, T, m->ffn, BPW_SPLIT_TP);

  if (m->linear_bias)
    {
      gint32 bw = weight (c, "mlp.fc2.b", BPW_SPLIT_REPLICATED, layer, h);
      gint32 yb = activation (c, "mlp.fc2.bias.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, h));

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "mlp.fc2.bias", .prim = BPW_PRIM_BIAS, .layer_type = BPW_LAYER_MLP,
        .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { y, NONE }, .weight = bw, .out = yb,
        .saved = NONE, .flops = mul (c, T, h), .semantic = mul (c, T, h),
        .bwd_weight = mul (c, T, h),
      });
      y = yb;
    }
  return _bpw_decompose_dropout (c, "mlp.dropout", BPW_LAYER_MLP, BPW_SPLIT_SEQUENCE, layer, y,
                                 mul (c, T, h), FALSE);
}

/* Routed experts: the router picks top-k of E experts per token; with a capacity factor,
 * each expert processes ceil(cf * T * k / E) slots whether filled or not. */
static gint32
moe (Ctx *c, gint layer, gint32 x)
{
  const BpwModelSpec *m = c->m;
  guint64 T = c->T, h = m->hidden, E = m->experts, K = m->top_k;
  guint64 ef = bpw_model_spec_expert_ffn (m);
  guint64 routed = mul (c, T, K);
  guint64 slots = routed;
  gint32 logits, probs, disp, y, comb;

  if (m->capacity_factor > 0.0)
    {
      double cap = m->capacity_factor * (double) routed / (double) E;
      slots = mul (c, E, (guint64) cap + ((double) (guint64) cap < cap ? 1 : 0));
    }

  logits = _bpw_decompose_linear (c, "moe.router", BPW_LAYER_MOE, layer, x, T, h, E,
                                  BPW_SPLIT_REPLICATED, BPW_SPLIT_SEQUENCE, FALSE, T);
  if (m->router_bias)
    {
      /* Auxiliary-loss-free balancing: a per-expert bias added to every score before the
       * top-k choice; it steers the choice only, so no gradient flows through it. */
      gint32 bw = weight (c, "moe.router_bias.b", BPW_SPLIT_REPLICATED, layer, E);
      gint32 yb = activation (c, "moe.router_bias.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, E));

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "moe.router_bias", .prim = BPW_PRIM_BIAS, .layer_type = BPW_LAYER_MOE,
        .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { logits, NONE }, .weight = bw,
        .out = yb, .saved = NONE, .flops = mul (c, T, E), .semantic = mul (c, T, E),
      });
      logits = yb;
    }
  probs = activation (c, "moe.topk.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, E));
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "moe.topk", .prim = BPW_PRIM_ROUTER_TOPK, .layer_type = BPW_LAYER_MOE,
    .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { logits, NONE }, .weight = NONE,
    .out = probs, .saved = probs, .flops = mul (c, T, 6 * E), .semantic = mul (c, T, 6 * E),
    .bwd_act = mul (c, T, 12 * E), .bwd_act_semantic = mul (c, T, 12 * E),
  });
  disp = activation (c, "moe.dispatch.out", BPW_SPLIT_EXPERT, layer, mul (c, slots, h));
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "moe.dispatch", .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_MOE,
    .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { x, probs }, .weight = NONE,
    .out = disp, .saved = NONE,
  });
  /* The experts' weights are one tensor per matrix over all experts (a grouped GEMM). */
  c->weight_copies = E;
  y = mlp (c, "moe.expert", BPW_LAYER_MOE, layer, disp, slots, routed, ef, BPW_SPLIT_EXPERT);
  c->weight_copies = 1;
  comb = activation (c, "moe.combine.out", BPW_SPLIT_SEQUENCE, layer, mul (c, T, h));
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "moe.combine", .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_MOE,
    .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { y, probs }, .weight = NONE,
    .out = comb, .saved = NONE, .flops = mul (c, 2 * routed, h),
    .semantic = mul (c, 2 * routed, h), .bwd_act = mul (c, 4 * routed, h),
    .bwd_act_semantic = mul (c, 4 * routed, h),
  });
  for (gint64 i = 0; i < m->shared_experts; i++)
    {
      gint32 sh = mlp (c, "moe.shared", BPW_LAYER_MOE, layer, x, T, T, ef, BPW_SPLIT_TP);

      comb = _bpw_decompose_pointwise (c, "moe.shared.add", BPW_PRIM_ADD, BPW_LAYER_MOE,
                                       BPW_SPLIT_SEQUENCE, layer, comb, sh, mul (c, T, h),
                                       mul (c, T, h), 1);
    }
  return comb;
}

gint32
_bpw_decompose_dense_mlp (Ctx *c, gint layer, gint32 x)
{
  return dense_mlp (c, layer, x);
}

static gint32
block (Ctx *c, gint layer, gint32 x)
{
  guint64 Th = mul (c, c->T, c->m->hidden);
  gint32 a, x1, b, x2;

  if (!c->encoder && bpw_model_spec_is_cross_layer (c->m, kind_layer (c, layer)))
    return _bpw_decompose_cross_block (c, layer, x);
  a = _bpw_decompose_norm (c, "attn.norm", BPW_LAYER_NORM, layer, x);
  a = bpw_model_spec_is_mla (c->m) ? _bpw_decompose_mla (c, layer, a) : attention (c, layer, a);
  if (c->gated)
    {
      /* Llama 3.2 Vision's global encoder layers gate both residual branches. */
      x1 = _bpw_decompose_gated_add (c, "attn.gate", BPW_LAYER_ATTENTION, layer, x, a);
      x = _bpw_decompose_norm (c, "mlp.norm", BPW_LAYER_NORM, layer, x1);
      b = dense_mlp (c, layer, x);
      return _bpw_decompose_gated_add (c, "mlp.gate", BPW_LAYER_MLP, layer, x1, b);
    }
  x1 = _bpw_decompose_pointwise (c, "attn.residual", BPW_PRIM_ADD, BPW_LAYER_ATTENTION,
                                 BPW_SPLIT_SEQUENCE, layer, x, a, Th, Th, 1);
  x = _bpw_decompose_norm (c, "mlp.norm", BPW_LAYER_NORM, layer, x1);
  if (bpw_model_spec_is_moe_layer (c->m, kind_layer (c, layer)))
    {
      b = moe (c, layer, x);
      x2 = _bpw_decompose_pointwise (c, "moe.residual", BPW_PRIM_ADD, BPW_LAYER_MOE,
                                     BPW_SPLIT_SEQUENCE, layer, x1, b, Th, Th, 1);
    }
  else
    {
      b = dense_mlp (c, layer, x);
      x2 = _bpw_decompose_pointwise (c, "mlp.residual", BPW_PRIM_ADD, BPW_LAYER_MLP,
                                     BPW_SPLIT_SEQUENCE, layer, x1, b, Th, Th, 1);
    }
  return x2;
}

gint32
_bpw_decompose_block (Ctx *c, gint layer, gint32 x)
{
  return block (c, layer, x);
}

/* Token embeddings of the text positions; with images, the projected image tokens merged
 * in before them (Llava's prepare_inputs_labels_for_multimodal). */
static gint32
embedding (Ctx *c, gint32 *table, guint64 image_rows)
{
  const BpwModelSpec *m = c->m;
  guint64 T = c->T, h = m->hidden, text = T - image_rows;
  gint32 x;

  c->tokens = tensor (c, "tokens", BPW_TENSOR_ACTIVATION, BPW_SPLIT_REPLICATED, BPW_DTYPE_FP32,
                      -1, T);
  *table = weight (c, "embedding.w", BPW_SPLIT_TP, -1,
                  mul (c, m->vocab + m->embedding_extra, h));
  x = activation (c, "embedding.out", BPW_SPLIT_SEQUENCE, -1, mul (c, text, h));
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "embedding", .prim = BPW_PRIM_GATHER, .layer_type = BPW_LAYER_EMBEDDING,
    .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { c->tokens, NONE }, .weight = *table,
    .out = x, .saved = NONE, .bwd_weight = mul (c, text, h),
  });
  if (c->image_features != NONE)
    {
      gint32 merged = activation (c, "embedding.merged", BPW_SPLIT_SEQUENCE, -1, mul (c, T, h));

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "embedding.merge", .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_EMBEDDING,
        .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, c->image_features },
        .weight = NONE, .out = merged, .saved = NONE, .concat = TRUE,
      });
      x = merged;
    }
  if (m->positions == BPW_POSITION_LEARNED)
    {
      gint32 pos = weight (c, "position.w", BPW_SPLIT_REPLICATED, -1,
                           mul (c, m->max_positions, h));
      gint32 y = activation (c, "position.out", BPW_SPLIT_SEQUENCE, -1, mul (c, T, h));

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "position", .prim = BPW_PRIM_ADD, .layer_type = BPW_LAYER_EMBEDDING,
        .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, NONE }, .weight = pos, .out = y,
        .saved = NONE, .flops = mul (c, T, h), .semantic = mul (c, T, h),
        .bwd_act = 0, .bwd_weight = mul (c, T, h),
      });
      x = y;
    }
  return _bpw_decompose_dropout (c, "embedding.dropout", BPW_LAYER_EMBEDDING, BPW_SPLIT_SEQUENCE,
                                 -1, x, mul (c, T, h), FALSE);
}

/* The head's matmul and, in training, the loss: of the main model and of each MTP module,
 * which shares the head's weight @w. */
void
_bpw_decompose_logits_loss (Ctx *c, gint32 y, gint32 w)
{
  const BpwModelSpec *m = c->m;
  guint64 h = m->hidden, V = m->vocab;
  /* Inference needs the next-token logits of the last position of each sequence only. */
  guint64 rows = c->train ? c->T : c->mb;
  gint32 logits;

  logits = activation (c, "head.logits", BPW_SPLIT_TP, BPW_LAYER_AFTER_BLOCKS, mul (c, rows, V));
  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = "head", .prim = BPW_PRIM_MATMUL, .layer_type = BPW_LAYER_HEAD,
    .split = BPW_SPLIT_TP, .layer = BPW_LAYER_AFTER_BLOCKS, .in = { y, NONE }, .weight = w,
    .out = logits,
    .saved = NONE, .flops = mul3 (c, 2 * rows, h, V), .semantic = mul3 (c, 2 * rows, h, V),
    .bwd_act = mul3 (c, 2 * rows, h, V), .bwd_act_semantic = mul3 (c, 2 * rows, h, V),
    .bwd_weight = mul3 (c, 2 * rows, h, V), .bwd_weight_semantic = mul3 (c, 2 * rows, h, V),
    .batch = 1, .m = rows, .n = V, .k = h,
  });
  if (c->train)
    {
      /* Megatron's vocab-parallel cross-entropy works on fp32 logits and keeps them. */
      gint32 probs = tensor (c, "loss.probs", BPW_TENSOR_ACTIVATION, BPW_SPLIT_TP,
                             BPW_DTYPE_FP32, BPW_LAYER_AFTER_BLOCKS, mul (c, rows, V));
      gint32 loss = tensor (c, "loss.out", BPW_TENSOR_ACTIVATION, BPW_SPLIT_REPLICATED,
                            BPW_DTYPE_FP32, BPW_LAYER_AFTER_BLOCKS, rows);

      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "loss", .prim = BPW_PRIM_CROSS_ENTROPY, .layer_type = BPW_LAYER_LOSS,
        .split = BPW_SPLIT_TP, .layer = BPW_LAYER_AFTER_BLOCKS, .in = { logits, c->tokens },
        .weight = NONE,
        .out = loss, .saved = probs, .flops = mul3 (c, rows, V, 5),
        .semantic = mul3 (c, rows, V, 5), .bwd_act = mul3 (c, rows, V, 2),
        .bwd_act_semantic = mul3 (c, rows, V, 2),
      });
    }
}

/* Returns the head's weight (the embedding table when tied). */
static gint32
head (Ctx *c, gint32 x, gint32 table)
{
  const BpwModelSpec *m = c->m;
  gint32 w, y;

  y = _bpw_decompose_norm (c, "final.norm", BPW_LAYER_NORM, BPW_LAYER_AFTER_BLOCKS, x);
  w = m->tied_embeddings ? table : weight (c, "head.w", BPW_SPLIT_TP, BPW_LAYER_AFTER_BLOCKS,
                                              mul (c, m->vocab, m->hidden));
  _bpw_decompose_logits_loss (c, y, w);
  return w;
}

static gboolean
decompose (BpwGraphBuilder *b,
           GError         **error)
{
  BpwWorkGraph *g = b->graph;
  const BpwScenario *s = &g->scenario;
  g_autofree guint *layer_start = g_new0 (guint, g->spec.layers + 1);
  Ctx c = {
    .b = b,
    .m = &g->spec,
    .s = s,
    .train = s->phase == BPW_WORKLOAD_TRAIN,
    .act = s->dtype,
    .mb = s->micro_batch,
    .count = s->global_batch / s->micro_batch,
    .weight_copies = 1,
    .image_features = NONE,
    .cross_states = NONE,
  };
  gint32 x, table = NONE, head_w = NONE;
  guint64 image_rows = 0;

  if (s->global_batch < 1 || s->micro_batch < 1 || s->global_batch % s->micro_batch != 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("scenario: the global batch of %" PRId64 " sequences is not a "
                   "multiple of the micro-batch of %" PRId64),
                   s->global_batch, s->micro_batch);
      return FALSE;
    }
  c.dropout = c.train && c.m->dropout;
  switch (s->phase)
    {
    case BPW_WORKLOAD_TRAIN:
    case BPW_WORKLOAD_PREFILL:
      c.sq = c.skv = s->seq;
      break;
    case BPW_WORKLOAD_DECODE:
      c.sq = 1;
      c.skv = s->context + 1;
      break;
    }
  c.T = _bpw_mul (b, N_("tokens"), c.mb, c.sq);
  g->micro_batches = c.count;
  g->tokens_per_micro_batch = c.T;

  c.tape = g_array_sized_new (FALSE, FALSE, sizeof (TapeEntry), 24 * g->spec.layers + 16);
  c.grad = g_array_new (FALSE, FALSE, sizeof (gint32));
  c.weights = g_array_new (FALSE, FALSE, sizeof (guint32));
  c.recomputed = g_array_new (FALSE, FALSE, sizeof (gint32));
  c.mtp_blocks = g_array_new (FALSE, FALSE, sizeof (guint));

  c.image_features = _bpw_decompose_vision (&c, &image_rows);
  if (image_rows >= c.T && !b->overflow)
    {
      /* bpw_scenario_validate() says so for a whole scenario; a graph built without it
       * must not count negative text. */
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("scenario.seq: %" PRIu64 " tokens per micro-batch leave no room for "
                     "text after its %" PRIu64 " image tokens; give longer sequences or "
                     "fewer images (images 0 for text requests)"), c.T, image_rows);
      g_array_unref (c.tape);
      g_array_unref (c.grad);
      g_array_unref (c.weights);
      g_array_unref (c.recomputed);
      g_array_unref (c.mtp_blocks);
      return FALSE;
    }
  if (!b->overflow)
    x = embedding (&c, &table, image_rows);
  else
    x = NONE;
  for (gint64 l = 0; l < g->spec.layers && !b->overflow; l++)
    {
      layer_start[l] = c.tape->len;
      x = block (&c, l, x);
    }
  layer_start[g->spec.layers] = c.tape->len;
  if (!b->overflow)
    head_w = head (&c, x, table);
  /* Multi-token prediction trains; serving speculates with the modules elsewhere. */
  if (c.train && g->spec.mtp_modules > 0 && !b->overflow)
    _bpw_decompose_mtp (&c, x, table, head_w);
  if (c.train && !b->overflow)
    {
      _bpw_decompose_backward (&c, layer_start, g->spec.layers);
      _bpw_decompose_optimizer (&c);
    }

  g_array_unref (c.tape);
  g_array_unref (c.grad);
  g_array_unref (c.weights);
  g_array_unref (c.recomputed);
  g_array_unref (c.mtp_blocks);
  return TRUE;
}

BpwWorkGraph *
_bpw_work_graph_new_reserved (const BpwModelSpec *spec,
                              const BpwScenario  *scenario,
                              guint               reserve_ops,
                              GError            **error)
{
  g_autoptr(BpwWorkGraph) graph = NULL;
  BpwGraphBuilder builder;

  if (!bpw_model_spec_validate (spec, error) ||
      !bpw_decompose_check_budget (spec, scenario->phase, scenario->recompute, error))
    return NULL;
  graph = _bpw_work_graph_alloc (spec, scenario, reserve_ops);
  builder = (BpwGraphBuilder) { .graph = graph };
  if (!decompose (&builder, error))
    return NULL;
  if (builder.overflow)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_OVERFLOW,
                   _("the %s of this scenario exceed 2^64; reduce the batch, sequence or "
                    "model size"), builder.overflow_what ? _(builder.overflow_what) : _("counts"));
      return NULL;
    }
  return g_steal_pointer (&graph);
}

/* The graph is the data structure (bpw-work-graph.c); building it is the decomposition's. */
BpwWorkGraph *
bpw_work_graph_new (const BpwModelSpec *spec,
                    const BpwScenario  *scenario,
                    GError            **error)
{
  /* About what a dense training block needs; larger graphs grow by doubling. */
  guint reserve = 0;

  if (spec->layers > 0 && spec->layers <= BPW_MODEL_MAX_LAYERS)
    reserve = 64 * (guint) spec->layers + 64;
  return _bpw_work_graph_new_reserved (spec, scenario, reserve, error);
}
