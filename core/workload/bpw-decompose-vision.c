/* bpw-decompose-vision.c — a Llava-style vision encoder and projector in the work graph
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each image is cut into (image_size / patch_size)^2 patches; the patch convolution is a
 * matmul of patches x (channels p^2) x hidden, then the class token (CLIP) and the learned
 * position table, a pre-norm, and the encoder layers up to the feature layer (Llava takes
 * the penultimate, so the last layer never runs). Each layer is the decoder's block on the
 * encoder's widths: biased Q, K, V and output projections, bidirectional attention over the
 * image's tokens (full s x s scores, no mask and no KV cache), a GELU MLP. The "default"
 * feature select drops the class token; the projector (two linears with a GELU, or one)
 * maps the rest to the decoder's width, and the embedding merges them in front of the text.
 *
 * Everything here runs before the first block, so it is work of the first pipeline stage.
 * Decode runs no encoder: its image tokens are in the KV cache already. Heads and the MLP
 * split over TP as the decoder's; the patch embedding, class token and positions are
 * replicated. A frozen encoder (the default in training) gets no backward at all and no
 * optimizer; the projector always trains.
 */
#define G_LOG_DOMAIN "bpw-decompose-vision"

#include "config.h"

#include "bpw-decompose-private.h"

/* The encoder's shape as a model spec, so that the decoder's block code builds its layers. */
static void
encoder_spec (const BpwModelSpec *m,
              BpwModelSpec       *vm)
{
  const BpwVisionSpec *v = &m->vision;

  *vm = *m;
  vm->hidden = v->hidden;
  vm->layers = bpw_model_spec_vision_run_layers (m);
  vm->heads = vm->kv_heads = v->heads;
  vm->head_dim = v->hidden / v->heads;
  vm->ffn = v->ffn;
  vm->ffn_kind = BPW_FFN_GELU;
  vm->norm = v->norm;
  /* Learned positions are added once at the bottom; the attention applies no rotary. */
  vm->positions = BPW_POSITION_LEARNED;
  vm->qkv_bias = vm->linear_bias = TRUE;
  vm->dropout = FALSE;
  vm->window = vm->window_first = 0;
  vm->q_lora_rank = vm->kv_lora_rank = vm->qk_nope_head_dim = vm->qk_rope_head_dim = 0;
  vm->v_head_dim = 0;
  vm->experts = vm->top_k = vm->shared_experts = vm->moe_ffn = 0;
  vm->expert_groups = vm->topk_groups = vm->mtp_modules = 0;
  vm->router_bias = FALSE;
  vm->vision.layers = 0;
}

/* A bias added after a row-parallel matmul, on its replicated output. */
static gint32
bias_after (Ctx *c, const char *name, gint32 y, guint64 rows, guint64 width)
{
  g_autofree char *wname = g_strconcat (name, ".b", NULL);
  g_autofree char *oname = g_strconcat (name, ".out", NULL);
  gint32 bw = weight (c, wname, BPW_SPLIT_REPLICATED, -1, width);
  gint32 yb = activation (c, oname, BPW_SPLIT_SEQUENCE, -1, mul (c, rows, width));
  guint64 n = mul (c, rows, width);

  _bpw_decompose_fwd (c, &(TapeEntry) {
    .name = name, .prim = BPW_PRIM_BIAS, .layer_type = BPW_LAYER_VISION,
    .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { y, NONE }, .weight = bw, .out = yb,
    .saved = NONE, .flops = n, .semantic = n, .bwd_weight = n,
  });
  return yb;
}

static void
last_no_dx (Ctx *c, const char *name)
{
  /* linear() appends its bias after the matmul: find the matmul. */
  for (guint i = c->tape->len; i-- > 0;)
    {
      TapeEntry *e = &g_array_index (c->tape, TapeEntry, i);

      if (g_strcmp0 (e->name, name) == 0)
        {
          e->no_dx = TRUE;
          return;
        }
    }
}

/* The projector from the encoder's width to the decoder's, on @rows image tokens. */
static gint32
projector (Ctx *c, gint32 x, guint64 rows, gboolean input_needs_grad)
{
  const BpwModelSpec *m = c->m;
  guint64 vh = m->vision.hidden, h = m->hidden;
  gint32 y;

  if (m->vision.projector == BPW_PROJECTOR_LINEAR)
    {
      y = _bpw_decompose_linear (c, "projector.linear", BPW_LAYER_VISION, -1, x, rows, vh, h,
                                 BPW_SPLIT_TP, BPW_SPLIT_REPLICATED, FALSE, rows);
      if (!input_needs_grad)
        last_no_dx (c, "projector.linear");
      return bias_after (c, "projector.linear.bias", y, rows, h);
    }
  y = _bpw_decompose_linear (c, "projector.fc1", BPW_LAYER_VISION, -1, x, rows, vh, h,
                             BPW_SPLIT_TP, BPW_SPLIT_TP, TRUE, rows);
  if (!input_needs_grad)
    last_no_dx (c, "projector.fc1");
  y = _bpw_decompose_pointwise (c, "projector.gelu", BPW_PRIM_GELU, BPW_LAYER_VISION,
                                BPW_SPLIT_TP, -1, y, NONE, mul (c, rows, h), mul (c, rows, h), 8);
  y = _bpw_decompose_linear (c, "projector.fc2", BPW_LAYER_VISION, -1, y, rows, h, h,
                             BPW_SPLIT_TP, BPW_SPLIT_REPLICATED, FALSE, rows);
  return bias_after (c, "projector.fc2.bias", y, rows, h);
}

/* Weights resident but not run: the layers after the feature layer and the post-norm
 * (the checkpoint holds them; Llava loads the whole tower), or, when no image is encoded
 * (decode, or no images), the whole tower and projector. Split over TP as the running
 * layers' are: Q, K, V with their biases, the output projection, fc1 with its bias and fc2
 * by heads and MLP width; the output and fc2 biases and the norms replicated. No op reads
 * them and nothing trains them (unused parameters get no gradient). */
static void
resident_weights (Ctx *c, gint64 layers, gboolean whole)
{
  const BpwModelSpec *m = c->m;
  const BpwVisionSpec *v = &m->vision;
  guint64 h = (guint64) v->hidden, f = (guint64) v->ffn, H = (guint64) m->hidden;
  guint64 norm = v->norm == BPW_NORM_LAYERNORM ? 2 * h : h;
  guint64 tp = (guint64) layers * (4 * h * h + 3 * h + h * f + f + f * h);
  guint64 replicated = (guint64) layers * (2 * h + 2 * norm) + (v->post_norm ? norm : 0);
  gboolean frozen = c->frozen;

  if (whole)
    {
      guint64 patch = (guint64) v->channels * v->patch_size * v->patch_size * h;

      replicated += patch + (v->patch_bias ? h : 0) + (v->class_token ? h : 0)
                    + (guint64) bpw_model_spec_vision_seq (m) * h + (v->pre_norm ? norm : 0);
      if (v->projector == BPW_PROJECTOR_LINEAR)
        {
          tp += h * H;
          replicated += H;
        }
      else
        {
          tp += h * H + H + H * H;
          replicated += H;
        }
    }
  c->frozen = TRUE;
  if (tp > 0)
    weight (c, "vision.resident.w", BPW_SPLIT_TP, -1, tp);
  if (replicated > 0)
    weight (c, "vision.resident_replicated.w", BPW_SPLIT_REPLICATED, -1, replicated);
  c->frozen = frozen;
}

gint32
_bpw_decompose_vision (Ctx     *c,
                       guint64 *rows)
{
  const BpwModelSpec *m = c->m;
  const BpwVisionSpec *v = &m->vision;
  gint64 images = bpw_scenario_images (c->s, m);
  BpwModelSpec vm;
  Ctx e;
  guint64 side, patches, seq, per_patch, P, vh;
  gint32 pixels, x;

  *rows = 0;
  if (!bpw_model_spec_has_vision (m))
    return NONE;
  if (bpw_model_spec_has_cross_attention (m))
    {
      /* The images reach the decoder through cross-attention, not as tokens. */
      _bpw_decompose_tiled_vision (c);
      return NONE;
    }
  if (images <= 0 || c->s->phase == BPW_WORKLOAD_DECODE)
    {
      resident_weights (c, v->layers, TRUE);
      return NONE;
    }

  encoder_spec (m, &vm);
  side = (guint64) (v->image_size / v->patch_size);
  patches = side * side;
  seq = (guint64) bpw_model_spec_vision_seq (m);
  per_patch = (guint64) (v->channels * v->patch_size * v->patch_size);
  vh = (guint64) v->hidden;

  e = *c;
  e.m = &vm;
  e.mb = mul (c, c->mb, (guint64) images);
  e.sq = e.skv = seq;
  e.T = mul (c, e.mb, seq);
  e.dropout = FALSE;
  e.vision = e.encoder = TRUE;
  e.frozen = c->train && !c->s->train_vision;
  P = mul (&e, e.mb, patches);

  pixels = tensor (&e, "vision.pixels", BPW_TENSOR_ACTIVATION, BPW_SPLIT_REPLICATED, c->act,
                   -1, mul (&e, P, per_patch));
  x = _bpw_decompose_linear (&e, "vision.patch", BPW_LAYER_VISION, -1, pixels, P, per_patch, vh,
                             BPW_SPLIT_REPLICATED, BPW_SPLIT_SEQUENCE, v->patch_bias, P);
  last_no_dx (&e, "vision.patch");

  if (v->class_token)
    {
      gint32 cls = weight (&e, "vision.class.w", BPW_SPLIT_REPLICATED, -1, vh);
      gint32 y = activation (&e, "vision.class.out", BPW_SPLIT_SEQUENCE, -1, mul (&e, e.T, vh));

      /* Concatenation: no arithmetic; the class token's gradient sums over the images. */
      _bpw_decompose_fwd (&e, &(TapeEntry) {
        .name = "vision.class", .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_VISION,
        .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, NONE }, .weight = cls, .out = y,
        .saved = NONE, .bwd_weight = mul (&e, e.mb, vh),
      });
      x = y;
    }
  {
    gint32 pos = weight (&e, "vision.position.w", BPW_SPLIT_REPLICATED, -1, mul (&e, seq, vh));
    gint32 y = activation (&e, "vision.position.out", BPW_SPLIT_SEQUENCE, -1, mul (&e, e.T, vh));

    _bpw_decompose_fwd (&e, &(TapeEntry) {
      .name = "vision.position", .prim = BPW_PRIM_ADD, .layer_type = BPW_LAYER_VISION,
      .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, NONE }, .weight = pos, .out = y,
      .saved = NONE, .flops = mul (&e, e.T, vh), .semantic = mul (&e, e.T, vh),
      .bwd_weight = mul (&e, e.T, vh),
    });
    x = y;
  }
  if (v->pre_norm)
    x = _bpw_decompose_norm (&e, "vision.pre_norm", BPW_LAYER_VISION, -1, x);
  for (gint64 l = 0; l < vm.layers && !c->b->overflow; l++)
    x = _bpw_decompose_block (&e, -1, x);
  resident_weights (c, v->layers - vm.layers, FALSE);

  if (v->class_token && !v->keep_class)
    {
      gint32 y = activation (&e, "vision.select.out", BPW_SPLIT_SEQUENCE, -1, mul (&e, P, vh));

      _bpw_decompose_fwd (&e, &(TapeEntry) {
        .name = "vision.select", .prim = BPW_PRIM_PERMUTE, .layer_type = BPW_LAYER_VISION,
        .split = BPW_SPLIT_SEQUENCE, .layer = -1, .in = { x, NONE }, .weight = NONE, .out = y,
        .saved = NONE,
      });
      x = y;
    }

  /* The projector trains even when the encoder is frozen. */
  *rows = mul (&e, e.mb, (guint64) bpw_model_spec_image_tokens (m));
  e.m = m;
  e.frozen = FALSE;
  x = projector (&e, x, *rows, !(c->train && !c->s->train_vision));
  return x;
}
