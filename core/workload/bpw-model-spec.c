/* bpw-model-spec.c — validation and exact parameter counts of a Transformer spec
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-model-spec"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-model-spec.h"
#include "bpw-error.h"

#include <string.h>

/* Sizes beyond these are not models but typing mistakes; they also keep every derived
 * per-layer count far from 64-bit overflow before the checked arithmetic even starts. */
#define MAX_WIDTH    (G_GINT64_CONSTANT (1) << 24)
#define MAX_VOCAB    (G_GINT64_CONSTANT (1) << 31)
#define MAX_HEADS    (G_GINT64_CONSTANT (1) << 16)
#define MAX_EXPERTS  (G_GINT64_CONSTANT (1) << 16)
/* DeepSeek-V3 has one; a few more are a research setting, thousands a typing mistake. */
#define MAX_MTP      64

void
bpw_model_spec_init_defaults (BpwModelSpec *spec)
{
  *spec = (BpwModelSpec) {
    .vocab = 0,
    .ffn_kind = BPW_FFN_GELU,
    .norm = BPW_NORM_LAYERNORM,
    .positions = BPW_POSITION_LEARNED,
    .tied_embeddings = TRUE,
    .moe_every = 1,
    .param_dtype = BPW_DTYPE_BF16,
    .activation_dtype = BPW_DTYPE_BF16,
    .gradient_dtype = BPW_DTYPE_BF16,
    .optimizer_dtype = BPW_DTYPE_FP32,
    .master_dtype = BPW_DTYPE_FP32,
    .optimizer = BPW_OPTIMIZER_ADAM,
  };
}

void
bpw_model_spec_copy (BpwModelSpec       *dest,
                     const BpwModelSpec *src)
{
  if (dest == src)
    return;
  *dest = *src;
  dest->name = g_strdup (src->name);
  dest->source = g_strdup (src->source);
}

void
bpw_model_spec_clear (BpwModelSpec *spec)
{
  g_clear_pointer (&spec->name, g_free);
  g_clear_pointer (&spec->source, g_free);
}

/* Field by field: a struct compare would read padding. */
static gboolean
bpw_vision_spec_equal (const BpwVisionSpec *a,
                       const BpwVisionSpec *b)
{
  return a->image_size == b->image_size && a->patch_size == b->patch_size
         && a->channels == b->channels && a->hidden == b->hidden && a->layers == b->layers
         && a->heads == b->heads && a->ffn == b->ffn && a->norm == b->norm
         && !a->quick_gelu == !b->quick_gelu && !a->class_token == !b->class_token
         && !a->patch_bias == !b->patch_bias && !a->pre_norm == !b->pre_norm
         && !a->post_norm == !b->post_norm && a->feature_layer == b->feature_layer
         && !a->keep_class == !b->keep_class && a->projector == b->projector
         && a->tiles == b->tiles && a->aspect_ratios == b->aspect_ratios
         && a->global_layers == b->global_layers && a->n_intermediate == b->n_intermediate
         && (a->n_intermediate <= 0 || a->n_intermediate > BPW_VISION_MAX_INTERMEDIATE
             || memcmp (a->intermediate, b->intermediate,
                        sizeof a->intermediate[0] * (gsize) a->n_intermediate) == 0);
}

gboolean
bpw_model_spec_equal (const BpwModelSpec *a,
                      const BpwModelSpec *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && g_strcmp0 (a->source, b->source) == 0
         && a->vocab == b->vocab && a->hidden == b->hidden && a->layers == b->layers
         && a->heads == b->heads && a->kv_heads == b->kv_heads && a->head_dim == b->head_dim
         && a->ffn == b->ffn && a->max_positions == b->max_positions
         && a->ffn_kind == b->ffn_kind && a->norm == b->norm && a->positions == b->positions
         && !a->tied_embeddings == !b->tied_embeddings && !a->qkv_bias == !b->qkv_bias
         && !a->linear_bias == !b->linear_bias && !a->dropout == !b->dropout
         && a->window == b->window && a->window_first == b->window_first
         && a->q_lora_rank == b->q_lora_rank && a->kv_lora_rank == b->kv_lora_rank
         && a->qk_nope_head_dim == b->qk_nope_head_dim
         && a->qk_rope_head_dim == b->qk_rope_head_dim && a->v_head_dim == b->v_head_dim
         && a->expert_groups == b->expert_groups && a->topk_groups == b->topk_groups
         && !a->router_bias == !b->router_bias && a->mtp_modules == b->mtp_modules
         && a->experts == b->experts && a->top_k == b->top_k
         && a->shared_experts == b->shared_experts && a->moe_ffn == b->moe_ffn
         && a->moe_every == b->moe_every && a->moe_first == b->moe_first
         && a->capacity_factor == b->capacity_factor && a->param_dtype == b->param_dtype
         && a->activation_dtype == b->activation_dtype
         && a->gradient_dtype == b->gradient_dtype && a->optimizer_dtype == b->optimizer_dtype
         && a->master_dtype == b->master_dtype && a->optimizer == b->optimizer
         && bpw_vision_spec_equal (&a->vision, &b->vision)
         && a->embedding_extra == b->embedding_extra && a->n_cross_layers == b->n_cross_layers
         && (a->n_cross_layers <= 0 || a->n_cross_layers > BPW_MODEL_MAX_CROSS_LAYERS
             || memcmp (a->cross_layers, b->cross_layers,
                        sizeof a->cross_layers[0] * (gsize) a->n_cross_layers) == 0);
}

gint64
bpw_model_spec_layer_window (const BpwModelSpec *spec,
                             gint64              layer)
{
  if (spec->window <= 0 || layer < spec->window_first)
    return 0;
  return spec->window;
}

gint64
bpw_model_spec_window_layers (const BpwModelSpec *spec)
{
  if (spec->window <= 0 || spec->window_first >= spec->layers)
    return 0;
  return spec->layers - MAX (spec->window_first, 0);
}

guint64
bpw_model_spec_causal_keys (guint64 seq,
                            gint64  window)
{
  guint64 w = (guint64) window;

  if (window <= 0 || w >= seq)
    return seq * (seq + 1) / 2;
  /* Positions 0 .. w-1 see 1 .. w keys; the seq - w after them see w each. */
  return w * (w + 1) / 2 + (seq - w) * w;
}

guint64
bpw_model_spec_kv_slots (const BpwModelSpec *spec,
                         guint64             context)
{
  gint64 windowed = bpw_model_spec_window_layers (spec);
  guint64 rolling = windowed > 0 ? MIN (context, (guint64) spec->window) : context;

  /* Cross-attention layers cache the images' keys and values, not the text's
   * (bpw_model_spec_image_kv_elements). */
  return (guint64) (bpw_model_spec_self_layers (spec) - windowed) * context
         + (guint64) windowed * rolling;
}

char *
bpw_model_spec_describe_window (const BpwModelSpec *spec)
{
  gint64 n = bpw_model_spec_window_layers (spec);

  if (n == 0)
    return NULL;
  if (n == spec->layers)
    /* Translators: attention through the last %lld tokens only, in every layer */
    return g_strdup_printf (_("sliding window %lld tokens (all layers)"),
                            (long long) spec->window);
  /* Translators: attention through the last %lld tokens in the layers numbered %lld to
   * %lld (from 0); the layers before them attend to the whole context */
  return g_strdup_printf (_("sliding window %lld tokens (layers %lld–%lld)"),
                          (long long) spec->window, (long long) spec->window_first,
                          (long long) spec->layers - 1);
}

gboolean
bpw_model_spec_is_moe_layer (const BpwModelSpec *spec,
                             gint64              layer)
{
  if (spec->experts <= 0)
    return FALSE;
  if (layer < spec->moe_first)
    return FALSE;
  return (layer - spec->moe_first) % MAX (spec->moe_every, 1) == 0;
}

gint64
bpw_model_spec_expert_ffn (const BpwModelSpec *spec)
{
  return spec->moe_ffn > 0 ? spec->moe_ffn : spec->ffn;
}

static gboolean
bpw_model_spec_check_range (const char  *field,
                            gint64       value,
                            gint64       min,
                            gint64       max,
                            GError     **error)
{
  if (value >= min && value <= max)
    return TRUE;
  if (min == 1 && value < 1)
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                 _("model.%s: expected a positive integer, got %" PRId64), field, value);
  else
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                 _("model.%s: expected an integer between %" PRId64 " and %"
                 PRId64 ", got %" PRId64), field, min, max, value);
  return FALSE;
}

/* Parameters of one MLP of inner width @f. */
static guint64
mlp_parameters (const BpwModelSpec *spec,
                guint64             f)
{
  guint64 h = spec->hidden;

  if (spec->ffn_kind == BPW_FFN_SWIGLU)
    return 3 * h * f + (spec->linear_bias ? 2 * f + h : 0);
  return 2 * h * f + (spec->linear_bias ? f + h : 0);
}

static guint64
norm_parameters (const BpwModelSpec *spec)
{
  return spec->norm == BPW_NORM_LAYERNORM ? 2 * (guint64) spec->hidden : (guint64) spec->hidden;
}

gboolean
bpw_model_spec_is_mla (const BpwModelSpec *spec)
{
  return spec->kv_lora_rank > 0;
}

gint64
bpw_model_spec_value_dim (const BpwModelSpec *spec)
{
  return bpw_model_spec_is_mla (spec) ? spec->v_head_dim : spec->head_dim;
}

guint64
bpw_model_spec_kv_elements (const BpwModelSpec *spec)
{
  if (bpw_model_spec_is_mla (spec))
    return (guint64) (spec->kv_lora_rank + spec->qk_rope_head_dim);
  return 2 * (guint64) spec->kv_heads * spec->head_dim;
}

/* Parameters of a norm over @width elements. */
static guint64
norm_width_parameters (const BpwModelSpec *spec,
                       guint64             width)
{
  return spec->norm == BPW_NORM_LAYERNORM ? 2 * width : width;
}

/* MLA: q_a (h x q_lora), its norm and q_b (q_lora x heads (nope + rope)), or one q_proj;
 * kv_a_proj_with_mqa (h x (kv_lora + rope)), its norm over the latent, kv_b (kv_lora x
 * heads (nope + v)) and o_proj (heads v x h). */
static guint64
mla_parameters (const BpwModelSpec *spec)
{
  guint64 h = spec->hidden, a = spec->heads;
  guint64 qk = (guint64) (spec->qk_nope_head_dim + spec->qk_rope_head_dim);
  guint64 q = spec->q_lora_rank > 0
              ? h * spec->q_lora_rank + norm_width_parameters (spec, spec->q_lora_rank)
                + (guint64) spec->q_lora_rank * a * qk
              : h * a * qk;

  return q + h * (guint64) (spec->kv_lora_rank + spec->qk_rope_head_dim)
         + norm_width_parameters (spec, spec->kv_lora_rank)
         + (guint64) spec->kv_lora_rank * a * (guint64) (spec->qk_nope_head_dim + spec->v_head_dim)
         + a * spec->v_head_dim * h + (spec->linear_bias ? h : 0);
}

static guint64
attention_parameters (const BpwModelSpec *spec)
{
  guint64 h = spec->hidden;
  guint64 qkv = (guint64) (spec->heads + 2 * spec->kv_heads) * spec->head_dim;

  if (bpw_model_spec_is_mla (spec))
    return mla_parameters (spec);
  return h * qkv + (spec->qkv_bias ? qkv : 0)
         + (guint64) spec->heads * spec->head_dim * h + (spec->linear_bias ? h : 0);
}

guint64
bpw_model_spec_layer_parameters (const BpwModelSpec *spec,
                                 gint64              layer)
{
  guint64 n = attention_parameters (spec) + 2 * norm_parameters (spec);

  /* A cross-attention layer: the same Q, K, V and output projections (no biases), a norm
   * over head_dim on the queries and one on the keys, and the attention and MLP gates. */
  if (bpw_model_spec_is_cross_layer (spec, layer))
    return n + 2 * norm_width_parameters (spec, (guint64) spec->head_dim) + 2
           + mlp_parameters (spec, spec->ffn);
  if (bpw_model_spec_is_moe_layer (spec, layer))
    {
      guint64 ef = bpw_model_spec_expert_ffn (spec);

      n += (guint64) spec->hidden * spec->experts;  /* router */
      if (spec->router_bias)
        n += spec->experts;
      n += (guint64) (spec->experts + spec->shared_experts) * mlp_parameters (spec, ef);
    }
  else
    n += mlp_parameters (spec, spec->ffn);
  return n;
}

guint64
bpw_model_spec_embedding_parameters (const BpwModelSpec *spec)
{
  guint64 n = (guint64) (spec->vocab + spec->embedding_extra) * spec->hidden;

  if (spec->positions == BPW_POSITION_LEARNED)
    n += (guint64) spec->max_positions * spec->hidden;
  return n;
}

guint64
bpw_model_spec_head_parameters (const BpwModelSpec *spec)
{
  return norm_parameters (spec)
         + (spec->tied_embeddings ? 0 : (guint64) spec->vocab * spec->hidden);
}

guint64
bpw_model_spec_parameters (const BpwModelSpec *spec)
{
  guint64 n = bpw_model_spec_embedding_parameters (spec) + bpw_model_spec_head_parameters (spec);
  guint64 dense = bpw_model_spec_layer_parameters (spec, -1);  /* -1 is never MoE */
  gint64 moe_layers = 0;

  for (gint64 l = 0; l < spec->layers; l++)
    moe_layers += bpw_model_spec_is_moe_layer (spec, l);
  n += dense * (guint64) (bpw_model_spec_self_layers (spec) - moe_layers);
  if (spec->n_cross_layers > 0)
    n += bpw_model_spec_layer_parameters (spec, spec->cross_layers[0])
         * (guint64) spec->n_cross_layers;
  if (moe_layers > 0)
    n += bpw_model_spec_layer_parameters (spec, spec->moe_first) * (guint64) moe_layers;
  return n + bpw_model_spec_vision_parameters (spec) + bpw_model_spec_projector_parameters (spec);
}

guint64
bpw_model_spec_active_parameters (const BpwModelSpec *spec)
{
  guint64 total = bpw_model_spec_parameters (spec);
  guint64 ef, idle;
  gint64 moe_layers = 0;

  if (spec->experts <= 0)
    return total;
  for (gint64 l = 0; l < spec->layers; l++)
    moe_layers += bpw_model_spec_is_moe_layer (spec, l);
  ef = bpw_model_spec_expert_ffn (spec);
  idle = (guint64) (spec->experts - spec->top_k) * mlp_parameters (spec, ef);
  return total - idle * (guint64) moe_layers;
}

guint64
bpw_model_spec_mtp_parameters (const BpwModelSpec *spec)
{
  guint64 h = spec->hidden;
  /* enorm, hnorm, eh_proj (2h x h), the block (a layer of the model's last kind) and the
   * shared head's norm. */
  guint64 one = 3 * norm_parameters (spec) + 2 * h * h
                + bpw_model_spec_layer_parameters (spec, spec->layers);

  return one * (guint64) MAX (spec->mtp_modules, 0);
}

/* An upper bound of the largest count derived from the spec (parameters), computed in
 * floating point so that the exact integer code that follows can never overflow. */
static gboolean
bpw_model_spec_check_size (const BpwModelSpec *spec,
                           GError            **error)
{
  double h = spec->hidden, f = MAX (spec->ffn, bpw_model_spec_expert_ffn (spec));
  double per_layer = h * (spec->heads + 2.0 * spec->kv_heads) * spec->head_dim
                     + (double) spec->heads * spec->head_dim * h
                     + (1.0 + spec->experts + spec->shared_experts) * (3.0 * h * f + 2 * f + h)
                     + h * spec->experts + 4 * h;
  double total;

  if (bpw_model_spec_is_mla (spec))
    per_layer += h * (spec->q_lora_rank + spec->kv_lora_rank + spec->qk_rope_head_dim)
                 + ((double) spec->q_lora_rank + h) * spec->heads
                   * (spec->qk_nope_head_dim + spec->qk_rope_head_dim)
                 + (double) spec->kv_lora_rank * spec->heads
                   * (spec->qk_nope_head_dim + spec->v_head_dim)
                 + (double) spec->heads * spec->v_head_dim * h;
  total = per_layer * spec->layers + (per_layer + 2.0 * h * h) * spec->mtp_modules
          + 2.0 * spec->vocab * h + (double) spec->max_positions * h;
  if (spec->vision.layers > 0)
    {
      double vh = spec->vision.hidden, side = (double) spec->vision.image_size;

      total += spec->vision.layers * (4.0 * vh * vh + 2.0 * vh * spec->vision.ffn + 16.0 * vh)
               + (side * side * spec->vision.channels + side * side + 8.0) * vh
               + 2.0 * vh * h + h * h + 4.0 * h;
      /* Llama 3.2 Vision: the tile tables, global layers and the wider projector input. */
      total += (spec->vision.aspect_ratios + 1.0) * spec->vision.tiles
               * (side * side + 2.0) * vh
               + spec->vision.global_layers * (4.0 * vh * vh + 2.0 * vh * spec->vision.ffn
                                               + 16.0 * vh)
               + (double) spec->vision.n_intermediate * vh * h;
    }

  if (total >= 9.0e18)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_OVERFLOW,
                   _("model: about %.3g parameters do not fit in a 64-bit count; "
                   "check hidden, layers, ffn and vocab"), total);
      return FALSE;
    }
  return TRUE;
}

/* ---- the vision encoder ---- */

gboolean
bpw_model_spec_has_vision (const BpwModelSpec *spec)
{
  return spec->vision.layers > 0;
}

gint64
bpw_model_spec_vision_run_layers (const BpwModelSpec *spec)
{
  const BpwVisionSpec *v = &spec->vision;

  /* Hugging Face's hidden_states hold the embeddings and then each layer's output, so
   * index -1 is the last layer and -2 the one before it. */
  return v->feature_layer < 0 ? v->layers + 1 + v->feature_layer : v->feature_layer;
}

gint64
bpw_model_spec_vision_seq (const BpwModelSpec *spec)
{
  const BpwVisionSpec *v = &spec->vision;
  gint64 side = v->image_size / MAX (v->patch_size, 1);

  return side * side + (v->class_token ? 1 : 0);
}

gint64
bpw_model_spec_image_tokens (const BpwModelSpec *spec)
{
  /* A cross-attention model's images take no decoder positions: the layers attend them. */
  if (!bpw_model_spec_has_vision (spec) || bpw_model_spec_has_cross_attention (spec))
    return 0;
  return bpw_model_spec_vision_seq (spec)
         - (spec->vision.class_token && !spec->vision.keep_class ? 1 : 0);
}

gboolean
bpw_model_spec_has_cross_attention (const BpwModelSpec *spec)
{
  return spec->n_cross_layers > 0;
}

gboolean
bpw_model_spec_is_cross_layer (const BpwModelSpec *spec,
                               gint64              layer)
{
  gint64 n = MIN (spec->n_cross_layers, BPW_MODEL_MAX_CROSS_LAYERS);

  for (gint64 i = 0; i < n; i++)
    if (spec->cross_layers[i] == layer)
      return TRUE;
  return FALSE;
}

gint64
bpw_model_spec_self_layers (const BpwModelSpec *spec)
{
  return spec->layers - MAX (spec->n_cross_layers, 0);
}

gint64
bpw_model_spec_cross_tokens (const BpwModelSpec *spec)
{
  if (!bpw_model_spec_has_vision (spec))
    return 0;
  return MAX (spec->vision.tiles, 1) * bpw_model_spec_vision_seq (spec);
}

gint64
bpw_model_spec_vision_encoder_tokens (const BpwModelSpec *spec)
{
  gint64 seq = bpw_model_spec_vision_seq (spec);

  if (spec->vision.tiles <= 0)
    return seq;
  /* Hugging Face's MllamaVisionModel pads each tile to a multiple of 8 tokens. */
  return spec->vision.tiles * ((seq + 7) / 8 * 8);
}

gint64
bpw_model_spec_vision_output_width (const BpwModelSpec *spec)
{
  return spec->vision.hidden * (1 + MAX (spec->vision.n_intermediate, 0));
}

guint64
bpw_model_spec_image_kv_elements (const BpwModelSpec *spec)
{
  if (!bpw_model_spec_has_cross_attention (spec))
    return 0;
  return (guint64) spec->n_cross_layers * (guint64) bpw_model_spec_cross_tokens (spec)
         * bpw_model_spec_kv_elements (spec);
}

static guint64
vision_norm_parameters (const BpwVisionSpec *v)
{
  return v->norm == BPW_NORM_LAYERNORM ? 2 * (guint64) v->hidden : (guint64) v->hidden;
}

/* Two norms, Q, K, V and the output projection with biases (none in a tiled encoder),
 * fc1 and fc2 with biases. */
guint64
bpw_model_spec_vision_layer_parameters (const BpwModelSpec *spec)
{
  const BpwVisionSpec *v = &spec->vision;
  guint64 h = v->hidden, f = v->ffn;

  if (!bpw_model_spec_has_vision (spec))
    return 0;
  return 2 * vision_norm_parameters (v) + 4 * (h * h + (v->tiles > 0 ? 0 : h))
         + (h * f + f) + (f * h + h);
}

guint64
bpw_model_spec_vision_parameters (const BpwModelSpec *spec)
{
  const BpwVisionSpec *v = &spec->vision;
  guint64 h = v->hidden, patch = (guint64) v->channels * v->patch_size * v->patch_size;
  guint64 seq = (guint64) bpw_model_spec_vision_seq (spec), n;

  if (!bpw_model_spec_has_vision (spec))
    return 0;
  n = patch * h + (v->patch_bias ? h : 0) + (v->class_token ? h : 0) + seq * h
      + (v->pre_norm ? vision_norm_parameters (v) : 0)
      + (guint64) v->layers * bpw_model_spec_vision_layer_parameters (spec)
      + (v->post_norm ? vision_norm_parameters (v) : 0);
  if (v->tiles > 0)
    {
      guint64 ratios = (guint64) v->aspect_ratios + 1, tiles = (guint64) v->tiles;

      /* The position gate and its tile table (a row of tiles x seq x h per aspect ratio),
       * the pre- and post-tile tables (tiles x h per ratio) with their gates, and two
       * gates in each global layer. */
      n += 1 + ratios * tiles * seq * h + 2 * (ratios * tiles * h + 1)
           + (guint64) v->global_layers * (bpw_model_spec_vision_layer_parameters (spec) + 2);
    }
  return n;
}

guint64
bpw_model_spec_projector_parameters (const BpwModelSpec *spec)
{
  guint64 vh = (guint64) bpw_model_spec_vision_output_width (spec), h = spec->hidden;

  if (!bpw_model_spec_has_vision (spec))
    return 0;
  if (spec->vision.projector == BPW_PROJECTOR_LINEAR)
    return vh * h + h;
  return vh * h + h + h * h + h;
}

/* The tiled encoder's fields and the cross-attention layers; each needs the other. */
static gboolean
bpw_model_spec_validate_cross (const BpwModelSpec *spec,
                               GError            **error)
{
  const BpwVisionSpec *v = &spec->vision;

  if (!bpw_model_spec_check_range ("cross_attention_layers", spec->n_cross_layers, 0,
                                   MIN (spec->layers, BPW_MODEL_MAX_CROSS_LAYERS), error) ||
      !bpw_model_spec_check_range ("embedding_extra", spec->embedding_extra, 0, MAX_VOCAB,
                                   error) ||
      !bpw_model_spec_check_range ("vision.tiles", v->tiles, 0, 64, error) ||
      !bpw_model_spec_check_range ("vision.aspect_ratios", v->aspect_ratios, 0,
                                   v->tiles * v->tiles, error) ||
      !bpw_model_spec_check_range ("vision.global_layers", v->global_layers, 0,
                                   BPW_MODEL_MAX_LAYERS, error) ||
      !bpw_model_spec_check_range ("vision.intermediate_layers", v->n_intermediate, 0,
                                   BPW_VISION_MAX_INTERMEDIATE, error))
    return FALSE;
  for (gint64 i = 0; i < spec->n_cross_layers; i++)
    if (spec->cross_layers[i] < 0 || spec->cross_layers[i] >= spec->layers ||
        (i > 0 && spec->cross_layers[i] <= spec->cross_layers[i - 1]))
      {
        g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                     _("model.cross_attention_layers[%" PRId64 "]: %d is not a layer index "
                       "after the previous one and below layers (%" PRId64 ")"),
                     i, spec->cross_layers[i], spec->layers);
        return FALSE;
      }
  for (gint64 i = 0; i < v->n_intermediate; i++)
    if (v->intermediate[i] < 0 || v->intermediate[i] > v->layers)
      {
        g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                     _("model.vision.intermediate_layers[%" PRId64 "]: %d is not a hidden "
                       "state of the %" PRId64 " encoder layers (0 to %" PRId64 ")"),
                     i, v->intermediate[i], v->layers, v->layers);
        return FALSE;
      }
  if ((spec->n_cross_layers > 0) != (v->layers > 0 && v->tiles > 0))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.cross_attention_layers: cross-attention layers attend a tiled "
                     "vision encoder (vision.tiles > 0), and a tiled encoder feeds "
                     "cross-attention layers; give both or neither"));
      return FALSE;
    }
  if (v->tiles == 0 && (v->aspect_ratios != 0 || v->global_layers != 0 || v->n_intermediate != 0))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.vision: aspect_ratios, global_layers and intermediate_layers "
                     "belong to a tiled encoder (tiles > 0)"));
      return FALSE;
    }
  if (spec->n_cross_layers > 0)
    {
      if (spec->experts > 0 || bpw_model_spec_is_mla (spec) || spec->qkv_bias ||
          spec->linear_bias || spec->window > 0 || v->feature_layer != -1 ||
          v->projector != BPW_PROJECTOR_LINEAR || !v->keep_class)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("model.cross_attention_layers: a cross-attention decoder is "
                         "modelled as Llama 3.2 Vision's: dense, standard attention without "
                         "biases or a window, and an encoder whose every layer runs "
                         "(feature_layer -1, keep_class) into a linear projector"));
          return FALSE;
        }
      if (v->aspect_ratios < 1)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("model.vision.aspect_ratios: a tiled encoder needs at least one "
                         "aspect ratio, got %" PRId64), v->aspect_ratios);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
bpw_model_spec_validate_vision (const BpwModelSpec *spec,
                                GError            **error)
{
  const BpwVisionSpec *v = &spec->vision;
  gint64 run;

  if (!bpw_model_spec_check_range ("vision.layers", v->layers, 0, BPW_MODEL_MAX_LAYERS, error))
    return FALSE;
  if (v->layers == 0)
    return TRUE;
  if (!bpw_model_spec_check_range ("vision.image_size", v->image_size, 1, 1 << 16, error) ||
      !bpw_model_spec_check_range ("vision.patch_size", v->patch_size, 1, v->image_size, error) ||
      !bpw_model_spec_check_range ("vision.channels", v->channels, 1, 64, error) ||
      !bpw_model_spec_check_range ("vision.hidden", v->hidden, 1, MAX_WIDTH, error) ||
      !bpw_model_spec_check_range ("vision.heads", v->heads, 1, v->hidden, error) ||
      !bpw_model_spec_check_range ("vision.ffn", v->ffn, 1, MAX_WIDTH, error) ||
      !bpw_model_spec_check_range ("vision.feature_layer", v->feature_layer, -v->layers,
                                   v->layers, error))
    return FALSE;
  run = bpw_model_spec_vision_run_layers (spec);
  if (run < 1)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.vision.feature_layer: %" PRId64 " takes the embeddings, before "
                     "any of the %" PRId64 " encoder layers"), v->feature_layer, v->layers);
      return FALSE;
    }
  if (v->image_size % v->patch_size != 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.vision.patch_size: %" PRId64 "-pixel patches do not tile a %"
                     PRId64 "-pixel image"), v->patch_size, v->image_size);
      return FALSE;
    }
  if (v->hidden % v->heads != 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.vision.heads: %" PRId64 " heads do not divide the width %" PRId64),
                   v->heads, v->hidden);
      return FALSE;
    }
  if ((guint) v->norm > BPW_NORM_RMSNORM || (guint) v->projector > BPW_PROJECTOR_LINEAR)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.vision: unknown norm or projector kind"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_model_spec_validate_mla (const BpwModelSpec *spec,
                             GError            **error)
{
  if (!bpw_model_spec_check_range ("mla.kv_lora_rank", spec->kv_lora_rank, 0, MAX_WIDTH, error))
    return FALSE;
  if (spec->kv_lora_rank == 0)
    {
      if (spec->q_lora_rank == 0 && spec->qk_nope_head_dim == 0 &&
          spec->qk_rope_head_dim == 0 && spec->v_head_dim == 0)
        return TRUE;
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.mla: q_lora_rank and the head widths need kv_lora_rank > 0"));
      return FALSE;
    }
  if (!bpw_model_spec_check_range ("mla.q_lora_rank", spec->q_lora_rank, 0, MAX_WIDTH, error) ||
      !bpw_model_spec_check_range ("mla.qk_nope_head_dim", spec->qk_nope_head_dim, 1, MAX_WIDTH,
                                   error) ||
      !bpw_model_spec_check_range ("mla.qk_rope_head_dim", spec->qk_rope_head_dim, 1, MAX_WIDTH,
                                   error) ||
      !bpw_model_spec_check_range ("mla.v_head_dim", spec->v_head_dim, 1, MAX_WIDTH, error))
    return FALSE;
  if (spec->head_dim != spec->qk_nope_head_dim + spec->qk_rope_head_dim)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.head_dim: with latent attention the query/key head is "
                   "qk_nope_head_dim + qk_rope_head_dim = %" PRId64 ", got %" PRId64),
                   spec->qk_nope_head_dim + spec->qk_rope_head_dim, spec->head_dim);
      return FALSE;
    }
  if (spec->kv_heads != spec->heads)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.kv_heads: latent attention decompresses a key and a value per "
                   "query head, so kv_heads must equal heads (%" PRId64 "), got %" PRId64),
                   spec->heads, spec->kv_heads);
      return FALSE;
    }
  if (spec->qk_rope_head_dim % 2 != 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.mla.qk_rope_head_dim: rotary positions rotate pairs of "
                   "dimensions, so it must be even, got %" PRId64), spec->qk_rope_head_dim);
      return FALSE;
    }
  if (spec->qkv_bias)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.qkv_bias: latent attention has no Q/K/V bias"));
      return FALSE;
    }
  if (spec->positions != BPW_POSITION_ROTARY)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.positions: latent attention carries positions in its rotary "
                   "key and query dimensions; use rotary"));
      return FALSE;
    }
  return TRUE;
}

gboolean
bpw_model_spec_validate (const BpwModelSpec *spec,
                         GError            **error)
{
  if (!bpw_model_spec_check_range ("vocab", spec->vocab, 1, MAX_VOCAB, error) ||
      !bpw_model_spec_check_range ("hidden", spec->hidden, 1, MAX_WIDTH, error) ||
      !bpw_model_spec_check_range ("layers", spec->layers, 1, BPW_MODEL_MAX_LAYERS, error) ||
      !bpw_model_spec_check_range ("heads", spec->heads, 1, MAX_HEADS, error) ||
      !bpw_model_spec_check_range ("kv_heads", spec->kv_heads, 1, spec->heads, error) ||
      !bpw_model_spec_check_range ("head_dim", spec->head_dim, 1, MAX_WIDTH, error) ||
      !bpw_model_spec_check_range ("ffn", spec->ffn, 1, MAX_WIDTH, error))
    return FALSE;

  if (spec->heads % spec->kv_heads != 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.kv_heads: %" PRId64 " query heads cannot be grouped over %"
                   PRId64 " key/value heads; use a divisor of %" PRId64),
                   spec->heads, spec->kv_heads, spec->heads);
      return FALSE;
    }
  if (spec->positions == BPW_POSITION_LEARNED &&
      !bpw_model_spec_check_range ("max_positions", spec->max_positions, 1, MAX_WIDTH, error))
    return FALSE;
  /* Latent attention rotates only its rope dimensions (checked with the MLA fields). */
  if (spec->positions == BPW_POSITION_ROTARY && spec->head_dim % 2 != 0 &&
      !bpw_model_spec_is_mla (spec))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.head_dim: rotary positions rotate pairs of dimensions, so head_dim "
                   "must be even, got %" PRId64), spec->head_dim);
      return FALSE;
    }

  if (!bpw_model_spec_check_range ("sliding_window", spec->window, 0, MAX_WIDTH, error) ||
      !bpw_model_spec_check_range ("window_first_layer", spec->window_first, 0, spec->layers,
                                   error))
    return FALSE;

  if (!bpw_model_spec_validate_mla (spec, error) ||
      !bpw_model_spec_validate_vision (spec, error) ||
      !bpw_model_spec_validate_cross (spec, error) ||
      !bpw_model_spec_check_range ("mtp_modules", spec->mtp_modules, 0, MAX_MTP, error))
    return FALSE;

  if (spec->experts != 0)
    {
      if (!bpw_model_spec_check_range ("moe.experts", spec->experts, 1, MAX_EXPERTS, error) ||
          !bpw_model_spec_check_range ("moe.top_k", spec->top_k, 1, spec->experts, error) ||
          !bpw_model_spec_check_range ("moe.shared_experts", spec->shared_experts, 0, MAX_EXPERTS, error) ||
          !bpw_model_spec_check_range ("moe.ffn", spec->moe_ffn, 0, MAX_WIDTH, error) ||
          !bpw_model_spec_check_range ("moe.every", spec->moe_every, 1, spec->layers, error) ||
          !bpw_model_spec_check_range ("moe.first", spec->moe_first, 0, spec->layers - 1, error))
        return FALSE;
      if (!(spec->capacity_factor == 0.0 ||
            (spec->capacity_factor >= 1.0 && spec->capacity_factor <= 64.0)))
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("model.moe.capacity_factor: expected 0 (dropless) or a factor between 1 "
                       "and 64, got %g"), spec->capacity_factor);
          return FALSE;
        }
      if (!bpw_model_spec_check_range ("moe.groups", spec->expert_groups, 0, spec->experts,
                                       error) ||
          !bpw_model_spec_check_range ("moe.topk_groups", spec->topk_groups, 0,
                                       spec->expert_groups, error))
        return FALSE;
      if (spec->expert_groups > 0 && spec->experts % spec->expert_groups != 0)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("model.moe.groups: %" PRId64 " experts cannot be split into %"
                       PRId64 " equal groups; use a divisor of %" PRId64),
                       spec->experts, spec->expert_groups, spec->experts);
          return FALSE;
        }
      if (spec->expert_groups > 0 &&
          (spec->topk_groups < 1 ||
           spec->top_k > spec->topk_groups * (spec->experts / spec->expert_groups)))
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("model.moe.topk_groups: top %" PRId64 " experts need at least %"
                       PRId64 " of the %" PRId64 " groups of %" PRId64 ", got %" PRId64),
                       spec->top_k, (spec->top_k + spec->experts / spec->expert_groups - 1)
                       / (spec->experts / spec->expert_groups), spec->expert_groups,
                       spec->experts / spec->expert_groups, spec->topk_groups);
          return FALSE;
        }
    }
  else if (spec->top_k != 0 || spec->shared_experts != 0 || spec->expert_groups != 0 ||
           spec->topk_groups != 0 || spec->router_bias)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("model.moe: top_k, shared_experts, groups and router_bias need "
                   "experts > 0"));
      return FALSE;
    }

  if (spec->param_dtype >= BPW_N_DTYPES || spec->activation_dtype >= BPW_N_DTYPES ||
      spec->gradient_dtype >= BPW_N_DTYPES || spec->optimizer_dtype >= BPW_N_DTYPES ||
      spec->master_dtype >= BPW_N_DTYPES)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("model.dtypes: unknown data type"));
      return FALSE;
    }

  return bpw_model_spec_check_size (spec, error);
}
