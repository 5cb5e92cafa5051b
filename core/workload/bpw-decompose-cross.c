/* bpw-decompose-cross.c — Llama 3.2 Vision in the work graph: the tiled encoder and the
 * decoder's cross-attention layers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * As Hugging Face's MllamaVisionModel runs it: every image is cut into its tiles (the
 * processor pads an image to the most tiles, and the encoder runs them all), each tile's
 * patches pass the patch matmul, the gated pre-tile table is added, the class token is
 * put in front of each tile, the gated position and tile-position tables added, the
 * pre-norm applied, and each tile padded to a multiple of 8 tokens. The local layers
 * (no attention biases) attend over all tokens of an image's tiles at once, bidirectional
 * and without a cache; then the post-norm, the gated post-tile table and the global layers
 * (tanh-gated residuals). The padding is dropped, the hidden states of the intermediate
 * layers are concatenated to the last, and one linear with bias projects them to the text
 * width: the cross-attention states, tiles x (patches + 1) per image.
 *
 * A cross-attention layer (MllamaCrossAttentionDecoderLayer) takes its queries from the
 * text (with a norm over each head), its keys (normed the same) and values from the image
 * states, attends every image token (no causal mask: the score matrix is text x image,
 * all of it), projects back, and adds through a tanh gate; its MLP adds through another.
 * In inference the keys and values are computed in the prefill and cached (per layer,
 * per image); decode reads them from the cache and runs no encoder. Without images Hugging
 * Face skips the layer altogether: its weights stay resident and no op runs.
 *
 * Its attention ops (the projections, head norms, cache store, scores, softmax, context and
 * attention gate) are of layer type cross_attention; its norms and MLP are the decoder's.
 *
 * Element-wise conventions as bpw-decompose.c's; a gated table add costs 2 per element
 * (scale, add) and the position add 4 (the two tables scaled by tanh(g) and 1 - tanh(g)).
 */
#define G_LOG_DOMAIN "bpw-decompose-cross"

#include "config.h"

#include "bpw-decompose-private.h"

/* An add of a (gated) table to @x, @per_elem FLOPs per element of @x. */
static gint32
table_add (Ctx *c, const char *name, gint32 x, guint64 elements, guint64 table,
           guint64 per_elem)
{
  g_autofree char *wname = g_strconcat (name, ".w", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 w = weight (c, wname, BPW_SPLIT_REPLICATED, -1, table);
  gint32 y = activation (c, oname, BPW_SPLIT_SEQUENCE, -1, elements);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_ADD, .layer_type = BPW_LAYER_VISION,
    .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, NONE }, .weight = w, .out = y,
    .saved = NONE, .flops = mul (c, elements, per_elem), .semantic = mul (c, elements, per_elem),
    .bwd_weight = elements,
  });
  return y;
}

/* A data movement (padding, unpadding, concatenation): no arithmetic. */
static gint32
move (Ctx *c, const char *name, gint32 x, guint64 elements)
{
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 y = activation (c, oname, BPW_SPLIT_SEQUENCE, -1, elements);
  TapeEntry *e;

  e = _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_VISION,
    .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, NONE }, .weight = NONE, .out = y,
    .saved = NONE,
  });
  e->concat = TRUE;
  return y;
}

/* The tower's and projector's weights when no image is encoded (decode, no images): every
 * checkpoint parameter, split over TP as the running layers' (Q, K, V, O, fc1 with its
 * bias, fc2 and the projector matrix) or replicated (the rest). */
static void
resident_tower (Ctx *c)
{
  const BpwModelSpec *m = c->m;
  const BpwVisionSpec *v = &m->vision;
  guint64 h = (guint64) v->hidden, f = (guint64) v->ffn;
  guint64 total = bpw_model_spec_vision_parameters (m) + bpw_model_spec_projector_parameters (m);
  guint64 tp = (guint64) (v->layers + v->global_layers) * (4 * h * h + 2 * h * f + f)
               + (guint64) bpw_model_spec_vision_output_width (m) * (guint64) m->hidden;
  gboolean frozen = c->frozen;

  c->frozen = TRUE;
  weight (c, "vision.resident.w", BPW_SPLIT_TP, -1, tp);
  weight (c, "vision.resident_replicated.w", BPW_SPLIT_REPLICATED, -1, total - tp);
  c->frozen = frozen;
}

void
_bpw_decompose_tiled_vision (Ctx *c)
{
  const BpwModelSpec *m = c->m;
  const BpwVisionSpec *v = &m->vision;
  gint64 images = bpw_scenario_images (c->s, m);
  guint64 tiles = (guint64) v->tiles, ratios = (guint64) v->aspect_ratios + 1;
  guint64 side, patches, seq, per_patch, vh, P, rows, R, vo;
  gint32 hidden_states[BPW_VISION_MAX_INTERMEDIATE];
  gint32 pixels, x, tx;
  BpwModelSpec vm;
  Ctx e;

  c->cross_keys = images > 0 ? (guint64) images * (guint64) bpw_model_spec_cross_tokens (m) : 0;
  if (images <= 0 || c->s->phase == BPW_WORKLOAD_DECODE)
    {
      resident_tower (c);
      return;
    }

  vm = *m;
  vm.hidden = v->hidden;
  vm.layers = v->layers + v->global_layers;
  vm.heads = vm.kv_heads = v->heads;
  vm.head_dim = v->hidden / v->heads;
  vm.ffn = v->ffn;
  vm.ffn_kind = BPW_FFN_GELU;
  vm.norm = v->norm;
  vm.positions = BPW_POSITION_LEARNED;
  vm.qkv_bias = FALSE;
  vm.linear_bias = TRUE;
  vm.dropout = FALSE;
  vm.n_cross_layers = 0;
  vm.vision.layers = 0;

  side = (guint64) (v->image_size / v->patch_size);
  patches = side * side;
  seq = (guint64) bpw_model_spec_vision_seq (m);
  per_patch = (guint64) (v->channels * v->patch_size * v->patch_size);
  vh = (guint64) v->hidden;

  e = *c;
  e.m = &vm;
  e.mb = mul (c, c->mb, (guint64) images);
  e.sq = e.skv = (guint64) bpw_model_spec_vision_encoder_tokens (m);
  e.T = mul (c, e.mb, e.sq);
  e.dropout = FALSE;
  e.vision = e.encoder = TRUE;
  e.no_attn_bias = TRUE;
  e.frozen = c->train && !c->s->train_vision;
  P = mul3 (&e, e.mb, tiles, patches);
  rows = mul3 (&e, e.mb, tiles, seq);

  pixels = tensor (&e, "vision.pixels", BPW_TENSOR_ACTIVATION, BPW_SPLIT_REPLICATED, c->act,
                   -1, mul (&e, P, per_patch));
  x = _bpw_decompose_linear (&e, "vision.patch", BPW_LAYER_VISION, -1, pixels, P, per_patch,
                             vh, BPW_SPLIT_REPLICATED, BPW_SPLIT_SEQUENCE, v->patch_bias, P);
  for (guint i = e.tape->len; i-- > 0;)
    if (g_strcmp0 (g_array_index (e.tape, TapeEntry, i).name, "vision.patch") == 0)
      {
        g_array_index (e.tape, TapeEntry, i).no_dx = TRUE;
        break;
      }
  x = table_add (&e, "vision.pre_tile", x, mul (&e, P, vh), ratios * tiles * vh + 1, 2);
  {
    gint32 cls = weight (&e, "vision.class.w", BPW_SPLIT_REPLICATED, -1, vh);
    gint32 y = activation (&e, "vision.class.out", BPW_SPLIT_SEQUENCE, -1, mul (&e, rows, vh));

    _bpw_decompose_fwd (&e, &(TapeEntry) {
      .name = "vision.class", .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_VISION,
      .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, NONE }, .weight = cls, .out = y,
      .saved = NONE, .bwd_weight = mul3 (&e, e.mb, tiles, vh),
    });
    x = y;
  }
  x = table_add (&e, "vision.position", x, mul (&e, rows, vh),
                 seq * vh + 1 + ratios * tiles * seq * vh, 4);
  /* The pre-norm runs on the unpadded tiles. */
  e.T = rows;
  x = _bpw_decompose_norm (&e, "vision.pre_norm", BPW_LAYER_VISION, -1, x);
  e.T = mul (c, e.mb, e.sq);
  x = move (&e, "vision.pad", x, mul (&e, e.T, vh));

  for (gint64 i = 0; i < v->n_intermediate; i++)
    hidden_states[i] = v->intermediate[i] == 0 ? x : NONE;
  for (gint64 l = 0; l < v->layers && !c->b->overflow; l++)
    {
      x = _bpw_decompose_block (&e, -1, x);
      for (gint64 i = 0; i < v->n_intermediate; i++)
        if (v->intermediate[i] == l + 1)
          hidden_states[i] = x;
    }
  x = _bpw_decompose_norm (&e, "vision.post_norm", BPW_LAYER_VISION, -1, x);
  x = table_add (&e, "vision.post_tile", x, mul (&e, e.T, vh), ratios * tiles * vh + 1, 2);
  e.gated = TRUE;
  for (gint64 l = 0; l < v->global_layers && !c->b->overflow; l++)
    x = _bpw_decompose_block (&e, -1, x);
  e.gated = FALSE;

  /* Unpad, and concatenate the intermediate hidden states (unpadded alike) to the last:
   * one movement that reads them all. */
  vo = (guint64) bpw_model_spec_vision_output_width (m);
  x = move (&e, "vision.concat", x, mul (&e, rows, vo));
  for (gint64 i = 0; i < v->n_intermediate; i++)
    use (&e, g_array_index (e.tape, TapeEntry, e.tape->len - 1).op, hidden_states[i],
         BPW_ACCESS_READ);

  /* The projector trains even when the encoder is frozen. */
  R = rows;
  e.m = m;
  e.frozen = FALSE;
  e.T = R;
  tx = _bpw_decompose_linear (&e, "projector.linear", BPW_LAYER_VISION, -1, x, R, vo,
                              (guint64) m->hidden, BPW_SPLIT_TP, BPW_SPLIT_REPLICATED, FALSE, R);
  if (c->train && !c->s->train_vision)
    g_array_index (e.tape, TapeEntry, e.tape->len - 1).no_dx = TRUE;
  {
    guint64 H = (guint64) m->hidden;
    gint32 bw = weight (&e, "projector.linear.bias.b", BPW_SPLIT_REPLICATED, -1, H);
    gint32 yb = activation (&e, "projector.linear.bias.out", BPW_SPLIT_SEQUENCE, -1,
                            mul (&e, R, H));

    _bpw_decompose_fwd (&e, &(TapeEntry) {
      .name = "projector.linear.bias", .prim = BPW_PRIM_BIAS, .layer_type = BPW_LAYER_VISION,
      .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { tx, NONE }, .weight = bw, .out = yb,
      .saved = NONE, .flops = mul (&e, R, H), .semantic = mul (&e, R, H),
      .bwd_weight = mul (&e, R, H),
    });
    c->cross_states = yb;
    /* Training keeps the image states for the cross layers' backward: stored once, with
     * the encoder before the first block (not as an activation of whichever cross layer
     * reads it last, which would count it once per cross layer of a template). */
    if (c->train)
      g_array_index (c->b->graph->tensors, BpwTensor, yb).stored = BPW_STORED_CHECKPOINT;
  }
}

/* A norm over each head's @d elements (RMSNorm 4 per element, LayerNorm 8), its weight
 * of one head's width replicated. */
static gint32
head_norm (Ctx *c, const char *name, gint layer, gint32 x, guint64 elements, BpwSplit split)
{
  gboolean ln = c->m->norm == BPW_NORM_LAYERNORM;
  guint64 d = (guint64) c->m->head_dim;
  g_autofree char *wname = g_strconcat (name, ".w", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 w = weight (c, wname, BPW_SPLIT_REPLICATED, layer, ln ? 2 * d : d);
  gint32 y = activation (c, oname, split, layer, elements);
  guint64 f = mul (c, elements, ln ? 8 : 4);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_NORM, .layer_type = BPW_LAYER_ATTENTION, .split = split,
    .layer = layer, .in = { x, NONE }, .weight = w, .out = y, .saved = NONE,
    .flops = f, .semantic = f, .bwd_act = 2 * f, .bwd_act_semantic = 2 * f,
    .bwd_weight = mul (c, elements, ln ? 3 : 2),
  });
  return y;
}

gint32
_bpw_decompose_cross_block (Ctx *c, gint layer, gint32 x)
{
  const BpwModelSpec *m = c->m;
  const BpwScenario *s = c->s;
  guint64 T = c->T, h = m->hidden, d = m->head_dim, A = m->heads, kv = m->kv_heads;
  guint64 keys = c->cross_keys, R, scores;
  gint32 a, q, k = NONE, v = NONE, ctx, y, x1, b;

  if (keys == 0)
    {
      /* Skipped without images; its checkpoint weights stay resident. */
      guint64 tp = 2 * h * A * d + 2 * h * kv * d
                   + (m->ffn_kind == BPW_FFN_SWIGLU ? 3 : 2) * h * (guint64) m->ffn;
      guint64 all = bpw_model_spec_layer_parameters (m, layer);
      gboolean frozen = c->frozen;

      c->frozen = TRUE;
      weight (c, "cross.resident.w", BPW_SPLIT_TP, layer, tp);
      weight (c, "cross.resident_replicated.w", BPW_SPLIT_REPLICATED, layer, all - tp);
      c->frozen = frozen;
      return x;
    }
  R = mul (c, c->mb, keys);
  scores = mul3 (c, c->mb * A, c->sq, keys);
  c->cross = TRUE;

  a = _bpw_decompose_norm (c, "cross.norm", BPW_LAYER_NORM, layer, x);
  q = _bpw_decompose_linear (c, "cross.q", BPW_LAYER_ATTENTION, layer, a, T, h, A * d,
                             BPW_SPLIT_TP, BPW_SPLIT_TP, FALSE, T);
  q = head_norm (c, "cross.q_norm", layer, q, mul3 (c, T, A, d), BPW_SPLIT_TP);

  if (c->cross_states != NONE)
    {
      k = _bpw_decompose_linear (c, "cross.k", BPW_LAYER_ATTENTION, layer, c->cross_states, R,
                                 h, kv * d, BPW_SPLIT_TP, BPW_SPLIT_KV_HEADS, FALSE, R);
      k = head_norm (c, "cross.k_norm", layer, k, mul3 (c, R, kv, d), BPW_SPLIT_KV_HEADS);
      v = _bpw_decompose_linear (c, "cross.v", BPW_LAYER_ATTENTION, layer, c->cross_states, R,
                                 h, kv * d, BPW_SPLIT_TP, BPW_SPLIT_KV_HEADS, FALSE, R);
    }
  else
    {
      /* Decode: the projections ran in the prefill; their weights stay resident. */
      gboolean frozen = c->frozen;
      guint64 kn = m->norm == BPW_NORM_LAYERNORM ? 2 * d : d;

      c->frozen = TRUE;
      weight (c, "cross.kv.w", BPW_SPLIT_TP, layer, 2 * h * kv * d);
      weight (c, "cross.k_norm.w", BPW_SPLIT_REPLICATED, layer, kn);
      c->frozen = frozen;
    }
  if (s->phase != BPW_WORKLOAD_TRAIN)
    {
      /* The images' keys and values, cached once per image for every later step. */
      guint64 cache = mul3 (c, R, kv, d);
      gint32 kc = tensor (c, "cross.k_cache", BPW_TENSOR_KV_CACHE, BPW_SPLIT_KV_HEADS,
                          s->kv_dtype, layer, cache);
      gint32 vc = tensor (c, "cross.v_cache", BPW_TENSOR_KV_CACHE, BPW_SPLIT_KV_HEADS,
                          s->kv_dtype, layer, cache);

      if (k != NONE)
        {
          TapeEntry *e = _bpw_decompose_fwd (c, &(TapeEntry) {
            .name = "cross.cache_store", .prim = BPW_PRIM_PERMUTE,
            .layer_type = BPW_LAYER_ATTENTION, .split = BPW_SPLIT_KV_HEADS, .layer = layer,
            .in = { k, v }, .weight = NONE, .out = kc, .saved = NONE,
          });

          use (c, e->op, vc, BPW_ACCESS_WRITE);
        }
      k = kc;
      v = vc;
    }

  ctx = _bpw_decompose_attention_core (c, layer, q, k, v, d, d, keys, scores, scores);
  y = _bpw_decompose_linear (c, "cross.o", BPW_LAYER_ATTENTION, layer, ctx, T, A * d, h,
                             BPW_SPLIT_TP, BPW_SPLIT_REPLICATED, FALSE, T);
  y = _bpw_decompose_attention_out (c, layer, y);
  x1 = _bpw_decompose_gated_add (c, "cross.attn_gate", BPW_LAYER_ATTENTION, layer, x, y);
  c->cross = FALSE;
  b = _bpw_decompose_norm (c, "cross.mlp_norm", BPW_LAYER_NORM, layer, x1);
  b = _bpw_decompose_dense_mlp (c, layer, b);
  return _bpw_decompose_gated_add (c, "cross.mlp_gate", BPW_LAYER_MLP, layer, x1, b);
}
