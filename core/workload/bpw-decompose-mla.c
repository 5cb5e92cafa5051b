/* bpw-decompose-mla.c — multi-head latent attention (DeepSeek-V2/V3) as exact operations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sizes: h hidden, a heads, n = qk_nope_head_dim, r = qk_rope_head_dim, v = v_head_dim,
 * c = kv_lora_rank, q = q_lora_rank, T tokens of the micro-batch, K keys one query reaches.
 *
 * Training and prefill decompress keys and values per head and attend as multi-head
 * attention with a query/key width of n + r:
 *   q_a (h -> q), q_a_norm, q_b (q -> a (n + r))      or one q_proj (h -> a (n + r));
 *   kv_a (h -> c + r), kv_a_norm over the latent c, kv_b (c -> a (n + v));
 *   rotary on the r query dimensions of every head and on the one shared rope key;
 *   QK^T with k = n + r, softmax, PV with v, o_proj (a v -> h).
 *
 * Decode absorbs W_UK into the query and W_UV into the output (DeepSeek-V2 §2.1.3), so
 * that the cache is read as it is stored, c + r elements per position and layer:
 *   q_absorb   2 T a n c        (each head's q_nope times its n x c slice of kv_b)
 *   scores     2 T a K (c + r)  (latent query and rope query against latent and rope key)
 *   context    2 T a K c        (probabilities times the latent)
 *   v_absorb   2 T a c v        (each head's latent context times its c x v slice)
 * against 2 T a K (n + r) + 2 T a K v for the scores and context of decompressed keys, which
 * would first spend 2 K c a (n + v) per sequence rebuilding them. Decode always absorbs:
 * that is how the model is served, and with K in the thousands it is the smaller count.
 *
 * Splits (Megatron's MLA): the down projections q_a and kv_a run on the sequence shard
 * under sequence parallelism and on every tensor-parallel rank otherwise; q_b, kv_b and the
 * attention core split over heads; o_proj is row parallel. The latent cache is replicated
 * over the tensor-parallel ranks: every head reads all of it.
 */
#define G_LOG_DOMAIN "bpw-decompose-mla"

#include "config.h"

#include "bpw-decompose-private.h"

/* A matmul whose op split may differ from its weight's (the down projections). */
static gint32
mla_linear (Ctx        *c,
            const char *name,
            gint        layer,
            gint32      x,
            guint64     in,
            guint64     out,
            BpwSplit    wsplit,
            BpwSplit    split)
{
  g_autofree char *wname = g_strconcat (name, ".w", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 w = weight (c, wname, wsplit, layer, mul (c, in, out));
  gint32 y = activation (c, oname, split, layer, mul (c, c->T, out));
  guint64 f = mul3 (c, 2 * c->T, in, out);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_MATMUL, .layer_type = BPW_LAYER_ATTENTION, .split = split,
    .layer = layer, .in = { x, NONE }, .weight = w, .out = y, .saved = NONE,
    .flops = f, .semantic = f, .bwd_act = f, .bwd_act_semantic = f, .bwd_weight = f,
    .bwd_weight_semantic = f, .batch = 1, .m = c->T, .n = out, .k = in,
  });
  return y;
}

/* A norm over the first @width elements of each row of @x (the latent of kv_a's output). */
static gint32
mla_norm (Ctx        *c,
          const char *name,
          gint        layer,
          gint32      x,
          guint64     width)
{
  gboolean ln = c->m->norm == BPW_NORM_LAYERNORM;
  g_autofree char *wname = g_strconcat (name, ".w", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 w = weight (c, wname, BPW_SPLIT_REPLICATED, layer, ln ? 2 * width : width);
  gint32 y = activation (c, oname, BPW_SPLIT_SEQUENCE, layer, mul (c, c->T, width));
  guint64 f = mul3 (c, c->T, width, ln ? 8 : 4);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_NORM, .layer_type = BPW_LAYER_ATTENTION,
    .split = BPW_SPLIT_SEQUENCE, .layer = layer, .in = { x, NONE }, .weight = w, .out = y,
    .saved = NONE, .flops = f, .semantic = f, .bwd_act = 2 * f, .bwd_act_semantic = 2 * f,
    .bwd_weight = mul3 (c, c->T, width, ln ? 3 : 2),
  });
  return y;
}

/* Rotary on @dims of every row: T x rows_per_token x dims elements, 3 FLOPs each. */
static TapeEntry *
mla_rotary (Ctx        *c,
            const char *name,
            gint        layer,
            gint32      x,
            gint32      x2,
            gint32      y,
            gint32      y2,
            guint64     rows_per_token,
            guint64     dims)
{
  guint64 f = mul3 (c, c->T, mul (c, rows_per_token, dims), 3);
  guint32 op = _bpw_work_graph_add_op (c->b, name, BPW_PRIM_ROTARY, BPW_PHASE_FORWARD,
                                       BPW_LAYER_ATTENTION, BPW_SPLIT_TP, layer, c->count, f, f);
  TapeEntry e = {
    .op = op, .name = bpw_work_graph_name (c->b->graph,
                                           bpw_work_graph_op (c->b->graph, op)->name),
    .prim = BPW_PRIM_ROTARY, .layer_type = BPW_LAYER_ATTENTION, .split = BPW_SPLIT_TP,
    .layer = layer, .in = { x, x2 }, .weight = NONE, .out = y, .out2 = { y2 > 0 ? y2 : 0, 0 },
    .saved = NONE, .flops = f, .semantic = f, .bwd_act = f, .bwd_act_semantic = f,
  };

  use (c, op, x, BPW_ACCESS_READ);
  use (c, op, x2, BPW_ACCESS_READ);
  use (c, op, y, BPW_ACCESS_WRITE);
  if (y2 > 0)
    use (c, op, y2, BPW_ACCESS_WRITE);
  g_array_append_val (c->tape, e);
  return &g_array_index (c->tape, TapeEntry, c->tape->len - 1);
}

gint32
_bpw_decompose_mla (Ctx    *c,
                    gint    layer,
                    gint32  x)
{
  const BpwModelSpec *m = c->m;
  const BpwScenario *s = c->s;
  guint64 T = c->T, h = m->hidden, a = m->heads;
  guint64 n = m->qk_nope_head_dim, r = m->qk_rope_head_dim, v = m->v_head_dim;
  guint64 cl = m->kv_lora_rank, ql = m->q_lora_rank, qk = n + r;
  gint64 window = bpw_model_spec_layer_window (m, kind_layer (c, layer));
  guint64 keys = window > 0 ? MIN (c->skv, (guint64) window) : c->skv;
  guint64 scores = mul3 (c, c->mb * a, c->sq, keys);
  gboolean causal = c->sq == c->skv && c->sq > 1;
  guint64 tri = causal ? mul (c, c->mb * a, bpw_model_spec_causal_keys (c->sq, window))
                       : scores;
  gboolean absorbed = s->phase == BPW_WORKLOAD_DECODE;
  guint kvb = bpw_dtype_bytes (s->kv_dtype);
  gint32 q, kva, lat, qr, cache = NONE, sc, p, ctx, y;
  TapeEntry *e;

  if (ql > 0)
    {
      gint32 qa = mla_linear (c, "attn.q_a", layer, x, h, ql, BPW_SPLIT_REPLICATED,
                              BPW_SPLIT_SEQUENCE);

      qa = mla_norm (c, "attn.q_a_norm", layer, qa, ql);
      q = mla_linear (c, "attn.q_b", layer, qa, ql, a * qk, BPW_SPLIT_TP, BPW_SPLIT_TP);
    }
  else
    q = mla_linear (c, "attn.q_proj", layer, x, h, a * qk, BPW_SPLIT_TP, BPW_SPLIT_TP);
  kva = mla_linear (c, "attn.kv_a", layer, x, h, cl + r, BPW_SPLIT_REPLICATED,
                    BPW_SPLIT_SEQUENCE);
  lat = mla_norm (c, "attn.kv_a_norm", layer, kva, cl);

  qr = activation (c, "attn.q", BPW_SPLIT_TP, layer, mul3 (c, T, a, qk));
  mla_rotary (c, "attn.q_rotary", layer, q, NONE, qr, NONE, a, r);

  if (s->phase != BPW_WORKLOAD_TRAIN)
    {
      guint32 op;

      /* The latent and the rotated rope key of every position: c + r per position. */
      cache = tensor (c, "attn.latent_cache", BPW_TENSOR_KV_CACHE, BPW_SPLIT_REPLICATED,
                      s->kv_dtype, layer, mul3 (c, c->mb, keys, cl + r));
      if (absorbed)
        {
          gint32 kr = activation (c, "attn.k_rope", BPW_SPLIT_TP, layer, mul (c, T, r));

          /* The shared rope key is rotated once per token; no backward in inference. */
          mla_rotary (c, "attn.k_rotary", layer, kva, NONE, kr, NONE, 1, r);
          op = g_array_index (c->tape, TapeEntry, c->tape->len - 1).op;
          use (c, op, lat, BPW_ACCESS_READ);
          _bpw_work_graph_use_bytes (c->b, op, cache, BPW_ACCESS_WRITE,
                                     mul3 (c, T, cl + r, kvb));
        }
    }

  if (!absorbed)
    {
      gint32 kv = mla_linear (c, "attn.kv_b", layer, lat, cl, a * (n + v), BPW_SPLIT_TP,
                              BPW_SPLIT_TP);
      gint32 k = activation (c, "attn.k", BPW_SPLIT_TP, layer, mul3 (c, T, a, qk));
      gint32 vv = activation (c, "attn.v", BPW_SPLIT_TP, layer, mul3 (c, T, a, v));
      guint32 op;

      /* Each head's key is its decompressed nope part and the one shared rope key; the
       * input gradient flows to kv_b's output (the rope key's own is kv_a's norm path). */
      mla_rotary (c, "attn.k_rotary", layer, kv, kva, k, vv, 1, r);
      op = g_array_index (c->tape, TapeEntry, c->tape->len - 1).op;
      if (cache != NONE)
        _bpw_work_graph_use_bytes (c->b, op, cache, BPW_ACCESS_WRITE, mul3 (c, T, cl + r, kvb));

      ctx = _bpw_decompose_attention_core (c, layer, qr, k, vv, qk, v, keys, scores, tri);
    }
  else
    {
      /* kv_b's parameters, read as its two absorbed halves. */
      gint32 w = weight (c, "attn.kv_b.w", BPW_SPLIT_TP, layer, mul3 (c, cl, a, n + v));
      guint pb = bpw_dtype_bytes (m->param_dtype);
      gint32 qlat = activation (c, "attn.q_latent", BPW_SPLIT_TP, layer, mul3 (c, T, a, cl));
      gint32 clat = activation (c, "attn.context_latent", BPW_SPLIT_TP, layer,
                                mul3 (c, T, a, cl));
      guint64 f;

      f = mul3 (c, 2 * T, a, mul (c, n, cl));
      e = _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "attn.q_absorb", .prim = BPW_PRIM_BATCHED_MATMUL,
        .layer_type = BPW_LAYER_ATTENTION, .split = BPW_SPLIT_TP, .layer = layer,
        .in = { qr, NONE }, .weight = NONE, .out = qlat, .saved = NONE, .flops = f,
        .semantic = f, .batch = a, .m = T, .n = cl, .k = n,
      });
      _bpw_work_graph_use_bytes (c->b, e->op, w, BPW_ACCESS_READ, mul3 (c, cl, a * n, pb));

      sc = activation (c, "attn.scores", BPW_SPLIT_TP, layer, scores);
      e = _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "attn.qk", .prim = BPW_PRIM_BATCHED_MATMUL, .layer_type = BPW_LAYER_ATTENTION,
        .split = BPW_SPLIT_TP, .layer = layer, .in = { qlat, cache }, .weight = NONE,
        .out = sc, .saved = NONE, .flops = mul (c, scores, 2 * (cl + r)),
        .semantic = mul (c, tri, 2 * (cl + r)), .batch = c->mb * a, .m = c->sq, .n = keys,
        .k = cl + r,
      });
      /* The rope half of the rotated query joins the latent query. */
      _bpw_work_graph_use_bytes (c->b, e->op, qr, BPW_ACCESS_READ,
                                 mul3 (c, T, a * r, bpw_dtype_bytes (c->act)));
      p = activation (c, "attn.probs", BPW_SPLIT_TP, layer, scores);
      _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "attn.softmax", .prim = BPW_PRIM_SOFTMAX, .layer_type = BPW_LAYER_ATTENTION,
        .split = BPW_SPLIT_TP, .layer = layer, .in = { sc, NONE }, .weight = NONE, .out = p,
        .saved = p, .flops = mul (c, scores, 5), .semantic = mul (c, tri, 5),
      });
      e = _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "attn.av", .prim = BPW_PRIM_BATCHED_MATMUL, .layer_type = BPW_LAYER_ATTENTION,
        .split = BPW_SPLIT_TP, .layer = layer, .in = { p, NONE }, .weight = NONE, .out = clat,
        .saved = NONE, .flops = mul (c, scores, 2 * cl), .semantic = mul (c, tri, 2 * cl),
        .batch = c->mb * a, .m = c->sq, .n = cl, .k = keys,
      });
      /* The values are the latent half of the cache. */
      _bpw_work_graph_use_bytes (c->b, e->op, cache, BPW_ACCESS_READ,
                                 mul3 (c, c->mb * keys, cl, kvb));

      ctx = activation (c, "attn.context", BPW_SPLIT_TP, layer, mul3 (c, T, a, v));
      f = mul3 (c, 2 * T, a, mul (c, cl, v));
      e = _bpw_decompose_fwd (c, &(TapeEntry) {
        .name = "attn.v_absorb", .prim = BPW_PRIM_BATCHED_MATMUL,
        .layer_type = BPW_LAYER_ATTENTION, .split = BPW_SPLIT_TP, .layer = layer,
        .in = { clat, NONE }, .weight = NONE, .out = ctx, .saved = NONE, .flops = f,
        .semantic = f, .batch = a, .m = T, .n = v, .k = cl,
      });
      _bpw_work_graph_use_bytes (c->b, e->op, w, BPW_ACCESS_READ, mul3 (c, cl, a * v, pb));
    }

  y = _bpw_decompose_linear (c, "attn.proj", BPW_LAYER_ATTENTION, layer, ctx, T, a * v, h,
                             BPW_SPLIT_TP, BPW_SPLIT_REPLICATED, FALSE, T);
  return _bpw_decompose_attention_out (c, layer, y);
}
