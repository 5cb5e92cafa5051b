/* bpw-model-bundled.c — bundled models with their public dimensions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-model-bundled"

#include "config.h"

#include <string.h>

#include "bpw-model-spec.h"

typedef struct
{
  const char *name;
  const char *source;
  gint64 vocab, hidden, layers, heads, kv_heads, head_dim, ffn, max_positions;
  BpwFfnKind ffn_kind;
  BpwNormKind norm;
  BpwPositionKind positions;
  gboolean tied, qkv_bias, linear_bias, dropout;
  gint64 experts, top_k;
  /* Fine-grained MoE and latent attention (DeepSeek); zero for the others. */
  gint64 shared_experts, moe_ffn, moe_first, expert_groups, topk_groups;
  gboolean router_bias;
  gint64 q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
  gint64 mtp_modules;
  const BpwVisionSpec *vision;  /* NULL: text only */
  /* Cross-attention layers (Llama 3.2 Vision), with the token table's extra rows. */
  gint64 n_cross_layers;
  const gint32 *cross_layers;
  gint64 embedding_extra;
} BundledModel;

/* Llama 3.2 Vision's encoder (meta-llama/Llama-3.2-11B-Vision config.json): 560-pixel
 * tiles of 14-pixel patches, up to 4 per image, 32 local and 8 gated global layers of
 * width 1280; hidden states 3, 7, 15, 23 and 30 concatenated to the last (7680 wide) and
 * projected by one linear to the text width. */
static const BpwVisionSpec mllama_vit_h14_560 = {
  .image_size = 560, .patch_size = 14, .channels = 3, .hidden = 1280, .layers = 32,
  .heads = 16, .ffn = 5120, .norm = BPW_NORM_LAYERNORM, .class_token = TRUE,
  .patch_bias = FALSE, .pre_norm = TRUE, .post_norm = TRUE, .feature_layer = -1,
  .keep_class = TRUE, .projector = BPW_PROJECTOR_LINEAR, .tiles = 4, .aspect_ratios = 8,
  .global_layers = 8, .n_intermediate = 5, .intermediate = { 3, 7, 15, 23, 30 },
};
static const gint32 llama32_11b_cross_layers[] = { 3, 8, 13, 18, 23, 28, 33, 38 };

/* CLIP ViT-L/14 at 336 pixels (openai/clip-vit-large-patch14-336) as Llava-1.5 uses it:
 * features of the penultimate layer without the class token, a two-layer GELU projector. */
static const BpwVisionSpec clip_vit_l14_336 = {
  .image_size = 336, .patch_size = 14, .channels = 3, .hidden = 1024, .layers = 24,
  .heads = 16, .ffn = 4096, .norm = BPW_NORM_LAYERNORM, .quick_gelu = TRUE,
  .class_token = TRUE, .patch_bias = FALSE, .pre_norm = TRUE, .post_norm = TRUE,
  .feature_layer = -2, .keep_class = FALSE, .projector = BPW_PROJECTOR_MLP,
};

/* GPT-3 uses Megatron-LM's padded GPT-2 vocabulary of 51,200 as in Narayanan et al. 2021
 * (Table 1), so that its published FLOP and parameter formulas apply as they are. */
static const BundledModel bundled[] = {
  { "gpt3-175b", "Brown et al. 2020 (GPT-3) Table 2.1; vocabulary 51200 as Megatron-LM",
    51200, 12288, 96, 96, 96, 128, 49152, 2048,
    BPW_FFN_GELU, BPW_NORM_LAYERNORM, BPW_POSITION_LEARNED, TRUE, TRUE, TRUE, TRUE, 0, 0 },
  { "gpt3-13b", "Brown et al. 2020 (GPT-3) Table 2.1",
    51200, 5120, 40, 40, 40, 128, 20480, 2048,
    BPW_FFN_GELU, BPW_NORM_LAYERNORM, BPW_POSITION_LEARNED, TRUE, TRUE, TRUE, TRUE, 0, 0 },
  { "gpt2", "OpenAI GPT-2 small config.json",
    50257, 768, 12, 12, 12, 64, 3072, 1024,
    BPW_FFN_GELU, BPW_NORM_LAYERNORM, BPW_POSITION_LEARNED, TRUE, TRUE, TRUE, TRUE, 0, 0 },
  { "llama3-8b", "Meta Llama 3 8B config.json",
    128256, 4096, 32, 32, 8, 128, 14336, 8192,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 0, 0 },
  { "llama3-70b", "Meta Llama 3 70B config.json",
    128256, 8192, 80, 64, 8, 128, 28672, 8192,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 0, 0 },
  { "llama3-405b", "Meta Llama 3.1 405B config.json",
    128256, 16384, 126, 128, 8, 128, 53248, 131072,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 0, 0 },
  { "mixtral-8x7b", "Mistral AI Mixtral-8x7B-v0.1 config.json",
    32000, 4096, 32, 32, 8, 128, 14336, 32768,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 8, 2 },
  { "mistral-7b", "Mistral AI Mistral-7B-v0.1 config.json",
    32000, 4096, 32, 32, 8, 128, 14336, 32768,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 0, 0 },
  { "qwen2-7b", "Qwen/Qwen2-7B config.json",
    152064, 3584, 28, 28, 4, 128, 18944, 131072,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, TRUE, FALSE, FALSE, 0, 0 },
  /* 3 dense layers then 58 MoE layers of 256 routed experts (top 8 within 4 of 8 groups)
   * and one shared expert; latent attention; one MTP module, counted apart. */
  { "deepseek-v3", "deepseek-ai/DeepSeek-V3 config.json",
    129280, 7168, 61, 128, 128, 192, 18432, 163840,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 256, 8,
    1, 2048, 3, 8, 4, TRUE, 1536, 512, 128, 64, 128, 1 },
  /* Llama-2-7B with CLIP ViT-L/14-336 in front: 576 image tokens per image. The original
   * release keeps Llama-2's 32000 tokens (the llava-hf conversion pads them to 32064). */
  { "llava-1.5-7b", "liuhaotian/llava-v1.5-7b config.json",
    32000, 4096, 32, 32, 32, 128, 11008, 4096,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 0, 0,
    0, 0, 0, 0, 0, FALSE, 0, 0, 0, 0, 0, 0, &clip_vit_l14_336 },
  /* Llama 3.1 8B's text layers with 8 gated cross-attention layers among its 40 (so 32
   * self-attention ones), a token table of 128256 + 8 rows and the tiled encoder above:
   * 10 670 220 835 parameters, as Hugging Face reports for the checkpoint. */
  { "llama3.2-11b-vision", "meta-llama/Llama-3.2-11B-Vision config.json",
    128256, 4096, 40, 32, 8, 128, 14336, 131072,
    BPW_FFN_SWIGLU, BPW_NORM_RMSNORM, BPW_POSITION_ROTARY, FALSE, FALSE, FALSE, FALSE, 0, 0,
    0, 0, 0, 0, 0, FALSE, 0, 0, 0, 0, 0, 0, &mllama_vit_h14_560,
    G_N_ELEMENTS (llama32_11b_cross_layers), llama32_11b_cross_layers, 8 },
};

static const char * const bundled_names[] = {
  "gpt3-175b", "gpt3-13b", "gpt2", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b",
  "mistral-7b", "qwen2-7b", "deepseek-v3", "llava-1.5-7b",
  "llama3.2-11b-vision", NULL,
};

G_STATIC_ASSERT (G_N_ELEMENTS (bundled_names) == G_N_ELEMENTS (bundled) + 1);

const char * const *
bpw_model_spec_bundled_names (void)
{
  return bundled_names;
}

gboolean
bpw_model_spec_lookup_bundled (const char   *name,
                               BpwModelSpec *spec)
{
  for (guint i = 0; i < G_N_ELEMENTS (bundled); i++)
    {
      const BundledModel *m = &bundled[i];

      if (g_ascii_strcasecmp (m->name, name) != 0)
        continue;

      bpw_model_spec_init_defaults (spec);
      spec->name = g_strdup (m->name);
      spec->source = g_strdup (m->source);
      spec->vocab = m->vocab;
      spec->hidden = m->hidden;
      spec->layers = m->layers;
      spec->heads = m->heads;
      spec->kv_heads = m->kv_heads;
      spec->head_dim = m->head_dim;
      spec->ffn = m->ffn;
      spec->max_positions = m->max_positions;
      spec->ffn_kind = m->ffn_kind;
      spec->norm = m->norm;
      spec->positions = m->positions;
      spec->tied_embeddings = m->tied;
      spec->qkv_bias = m->qkv_bias;
      spec->linear_bias = m->linear_bias;
      spec->dropout = m->dropout;
      spec->experts = m->experts;
      spec->top_k = m->top_k;
      spec->shared_experts = m->shared_experts;
      spec->moe_ffn = m->moe_ffn;
      spec->moe_first = m->moe_first;
      spec->expert_groups = m->expert_groups;
      spec->topk_groups = m->topk_groups;
      spec->router_bias = m->router_bias;
      spec->q_lora_rank = m->q_lora_rank;
      spec->kv_lora_rank = m->kv_lora_rank;
      spec->qk_nope_head_dim = m->qk_nope_head_dim;
      spec->qk_rope_head_dim = m->qk_rope_head_dim;
      spec->v_head_dim = m->v_head_dim;
      spec->mtp_modules = m->mtp_modules;
      if (m->vision != NULL)
        spec->vision = *m->vision;
      spec->n_cross_layers = m->n_cross_layers;
      for (gint64 l = 0; l < m->n_cross_layers; l++)
        spec->cross_layers[l] = m->cross_layers[l];
      spec->embedding_extra = m->embedding_extra;
      return TRUE;
    }
  return FALSE;
}
