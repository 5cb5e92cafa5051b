/* bpw-workload-hf.c — Hugging Face config.json importer (gpt2, llama, mistral, mixtral, qwen2,
 * deepseek_v2, deepseek_v3, llava, mllama)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-workload-hf"

#include "config.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-workload-io-private.h"

const char * const _bpw_hf_family_names[HF_N_FAMILIES] = {
  "gpt2", "llama", "mistral", "mixtral", "qwen2", "deepseek_v2", "deepseek_v3", "llava",
  "mllama"
};
static const char * const family_architectures[] = {
  "GPT2LMHeadModel", "LlamaForCausalLM", "MistralForCausalLM", "MixtralForCausalLM",
  "Qwen2ForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM",
  "LlavaForConditionalGeneration", "MllamaForConditionalGeneration",
};
G_STATIC_ASSERT (G_N_ELEMENTS (_bpw_hf_family_names) == HF_N_FAMILIES);
G_STATIC_ASSERT (G_N_ELEMENTS (family_architectures) == HF_N_FAMILIES);

/* Native field -> config key, for locating validation errors. */
static const char * const gpt2_key_map[] = {
  "vocab", "vocab_size", "hidden", "n_embd", "layers", "n_layer", "heads", "n_head",
  "kv_heads", "n_head", "head_dim", "n_head", "ffn", "n_inner", "max_positions", "n_positions",
  NULL
};
static const char * const llama_key_map[] = {
  "vocab", "vocab_size", "hidden", "hidden_size", "layers", "num_hidden_layers",
  "heads", "num_attention_heads", "kv_heads", "num_key_value_heads", "head_dim", "head_dim",
  "ffn", "intermediate_size", "max_positions", "max_position_embeddings",
  "moe.experts", "num_local_experts", "moe.top_k", "num_experts_per_tok",
  "sliding_window", "sliding_window", "window_first_layer", "max_window_layers", NULL
};
static const char * const deepseek_key_map[] = {
  "vocab", "vocab_size", "hidden", "hidden_size", "layers", "num_hidden_layers",
  "heads", "num_attention_heads", "kv_heads", "num_key_value_heads",
  "head_dim", "qk_rope_head_dim", "ffn", "intermediate_size",
  "max_positions", "max_position_embeddings", "mla.q_lora_rank", "q_lora_rank",
  "mla.kv_lora_rank", "kv_lora_rank", "mla.qk_nope_head_dim", "qk_nope_head_dim",
  "mla.qk_rope_head_dim", "qk_rope_head_dim", "mla.v_head_dim", "v_head_dim",
  "mtp_modules", "num_nextn_predict_layers", "moe.experts", "n_routed_experts",
  "moe.top_k", "num_experts_per_tok", "moe.shared_experts", "n_shared_experts",
  "moe.ffn", "moe_intermediate_size", "moe.every", "moe_layer_freq",
  "moe.first", "first_k_dense_replace", "moe.groups", "n_group", "moe.topk_groups",
  "topk_group", NULL
};

/* Keys that exist in these configs and that the model of work does not need: tokenizer
 * ids, initialisation, numerics of norms and rotary embeddings, runtime switches. They are
 * read by nobody and reported to nobody; anything else unknown is a warning. */
const char * const _bpw_hf_ignored_keys[] = {
  "$schema", "_name_or_path", "architectures", "model_type", "torch_dtype", "dtype",
  "transformers_version", "bos_token_id", "eos_token_id", "pad_token_id", "use_cache",
  "initializer_range", "rope_theta", "rope_scaling", "pretraining_tp", "hidden_act",
  "rms_norm_eps", "layer_norm_epsilon", "attention_dropout", "sliding_window",
  "use_sliding_window", "max_window_layers", "router_aux_loss_coef", "output_router_logits",
  "router_jitter_noise", "n_ctx", "resid_pdrop", "embd_pdrop", "attn_pdrop",
  "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn",
  "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
  "summary_first_dropout", "task_specific_params", "activation_function", "n_inner",
  "n_embd", "n_layer", "n_head", "n_positions", "vocab_size", "tie_word_embeddings",
  "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
  "head_dim", "intermediate_size", "max_position_embeddings", "attention_bias", "mlp_bias",
  "num_local_experts", "num_experts_per_tok", "use_return_dict", "return_dict",
  "output_hidden_states", "output_attentions", "id2label", "label2id", "qkv_bias",
  "use_mrope", "tokenizer_class",
  /* DeepSeek-V2/V3: routing numerics, quantisation and runtime switches; the sizes are read. */
  "auto_map", "aux_loss_alpha", "ep_size", "norm_topk_prob", "quantization_config",
  "routed_scaling_factor", "scoring_func", "seq_aux", "topk_method", "q_lora_rank",
  "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "n_routed_experts",
  "n_shared_experts", "moe_intermediate_size", "moe_layer_freq", "first_k_dense_replace",
  "n_group", "topk_group", "num_nextn_predict_layers",
  /* Llava: the sub-configs and the image keys are read; token ids are not. */
  "text_config", "vision_config", "projector_hidden_act", "vision_feature_layer",
  "vision_feature_select_strategy", "image_seq_length", "image_token_index", "ignore_index",
  "multimodal_projector_bias",
  /* Mllama: the text sub-config's cross-attention layers are read; dropout is none. */
  "cross_attention_layers", "dropout", NULL
};


static gboolean
hf_is_null (JsonObject *object,
            const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_NULL (node);
}

/* HF writes null for "use the default" (n_inner, head_dim): treat as absent. */
gboolean
_bpw_hf_get_int (BpwJsonDoc  *doc,
                 JsonObject  *object,
                 const char  *member,
                 gboolean     required,
                 gint64       min,
                 gint64       max,
                 gint64      *out,
                 GError     **error)
{
  if (hf_is_null (object, member))
    {
      if (required)
        return bpw_json_doc_error (doc, json_object_get_member (object, member), member, error,
                                   _("expected a positive integer, got null"));
      return TRUE;
    }
  return bpw_json_doc_get_int (doc, object, "", member, required, min, max, out, error);
}

/* Turns the error just set into BPW_ERROR_UNSUPPORTED: the input is well formed but names
 * something the models do not cover. Returns FALSE for the caller to return. */
gboolean
_bpw_hf_mark_unsupported (GError **error)
{
  if (error != NULL && *error != NULL)
    (*error)->code = BPW_ERROR_UNSUPPORTED;
  return FALSE;
}

static gboolean
hf_detect_family (BpwJsonDoc  *doc,
                  JsonObject  *root,
                  BpwHfFamily    *family,
                  GError     **error)
{
  const char *model_type = NULL;
  JsonNode *node;

  if (!bpw_json_doc_get_string (doc, root, "", "model_type", FALSE, &model_type, error))
    return FALSE;
  if (model_type != NULL)
    {
      for (guint i = 0; i < HF_N_FAMILIES; i++)
        if (g_strcmp0 (model_type, _bpw_hf_family_names[i]) == 0)
          {
            *family = i;
            return TRUE;
          }
      bpw_json_doc_error (doc, json_object_get_member (root, "model_type"), "model_type", error,
                          _("model type \"%s\" is not supported; supported are gpt2, llama, "
                          "mistral, mixtral, qwen2, deepseek_v2, deepseek_v3, llava and mllama"), model_type);
      return _bpw_hf_mark_unsupported (error);
    }

  node = json_object_get_member (root, "architectures");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node)
      && json_array_get_length (json_node_get_array (node)) > 0)
    {
      JsonNode *first = json_array_get_element (json_node_get_array (node), 0);
      const char *arch = JSON_NODE_HOLDS_VALUE (first)
                         && json_node_get_value_type (first) == G_TYPE_STRING
                         ? json_node_get_string (first) : NULL;

      for (guint i = 0; arch != NULL && i < HF_N_FAMILIES; i++)
        if (g_strcmp0 (arch, family_architectures[i]) == 0)
          {
            *family = i;
            return TRUE;
          }
      bpw_json_doc_error (doc, first, "architectures[0]", error,
                          _("architecture %s%s%s is not supported and there is no model_type; "
                          "supported are gpt2, llama, mistral, mixtral and qwen2"),
                          arch != NULL ? "\"" : "", arch != NULL ? arch : _("(not a string)"),
                          arch != NULL ? "\"" : "");
      return _bpw_hf_mark_unsupported (error);
    }
  return bpw_json_doc_error (doc, node, "architectures", error,
                             _("expected a non-empty list of architecture names"));
}

static gboolean
hf_read_dtype (BpwJsonDoc   *doc,
               JsonObject   *root,
               BpwModelSpec *spec,
               GError      **error)
{
  const char *key = json_object_has_member (root, "torch_dtype") ? "torch_dtype" : "dtype";
  const char *str = NULL;
  BpwDType dtype;

  if (hf_is_null (root, key))
    return TRUE;
  if (!bpw_json_doc_get_string (doc, root, "", key, FALSE, &str, error))
    return FALSE;
  if (str == NULL)
    return TRUE;
  if (!bpw_dtype_from_string (str, &dtype))
    return bpw_json_doc_error (doc, json_object_get_member (root, key), key, error,
                               _("unknown dtype \"%s\"; expected float32, bfloat16 or float16"),
                               str);
  spec->param_dtype = dtype;
  return TRUE;
}

static gboolean
hf_read_gpt2 (BpwJsonDoc   *doc,
              JsonObject   *root,
              BpwModelSpec *spec,
              GPtrArray    *warnings,
              GError      **error)
{
  const char *activation = NULL;
  const char *positions_key = json_object_has_member (root, "n_positions") ? "n_positions"
                                                                          : "n_ctx";
  double pdrop[3] = { 0.1, 0.1, 0.1 };  /* GPT2Config defaults */
  static const char * const pdrop_keys[] = { "resid_pdrop", "embd_pdrop", "attn_pdrop" };

  spec->ffn = 0;
  if (!_bpw_hf_get_int (doc, root, "n_embd", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, &spec->hidden, error)
      || !_bpw_hf_get_int (doc, root, "n_layer", TRUE, 1, BPW_WORKLOAD_MAX_LAYERS, &spec->layers,
                           error)
      || !_bpw_hf_get_int (doc, root, "n_head", TRUE, 1, BPW_WORKLOAD_MAX_HEADS, &spec->heads,
                           error)
      || !_bpw_hf_get_int (doc, root, "vocab_size", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, &spec->vocab,
                           error)
      || !_bpw_hf_get_int (doc, root, positions_key, TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                           &spec->max_positions, error)
      || !_bpw_hf_get_int (doc, root, "n_inner", FALSE, 1, BPW_WORKLOAD_MAX_WIDTH, &spec->ffn,
                           error)
      || !bpw_json_doc_get_string (doc, root, "", "activation_function", FALSE, &activation,
                                   error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (pdrop_keys); i++)
    if (!bpw_json_doc_get_double (doc, root, "", pdrop_keys[i], FALSE, 0.0, 1.0, &pdrop[i],
                                  error))
      return FALSE;

  /* n_inner null or absent means 4 * n_embd in GPT2MLP. A width too large for that
   * product is refused by validation, which names n_embd; only avoid the overflow here. */
  if (spec->ffn == 0)
    spec->ffn = spec->hidden <= G_MAXINT64 / 4 ? 4 * spec->hidden : G_MAXINT64;
  spec->kv_heads = spec->heads;
  spec->ffn_kind = BPW_FFN_GELU;
  spec->norm = BPW_NORM_LAYERNORM;
  spec->positions = BPW_POSITION_LEARNED;
  spec->tied_embeddings = TRUE;
  spec->qkv_bias = TRUE;
  spec->linear_bias = TRUE;
  spec->dropout = pdrop[0] > 0.0 || pdrop[1] > 0.0 || pdrop[2] > 0.0;

  if (activation != NULL && !g_str_has_prefix (activation, "gelu"))
    {
      guint line = 0, column = 0;

      bpw_json_doc_locate (doc, json_object_get_member (root, "activation_function"),
                           &line, &column);
      if (warnings != NULL)
        g_ptr_array_add (warnings,
                         g_strdup_printf (_("%s:%u:%u: activation_function: \"%s\" is modelled "
                                          "with GeLU's element-wise cost (same matrices)"),
                                          bpw_json_doc_get_filename (doc), line, column,
                                          activation));
    }
  return _bpw_workload_derive_head_dim (doc, root, "", "n_head", spec, error);
}

/* Sliding-window attention as transformers builds it from these configs:
 * - mistral: sliding_window (MistralConfig's default 4096 when absent; null = full
 *   attention) applies to every layer;
 * - mixtral: the same, with no window by default;
 * - qwen2: sliding_window only counts when use_sliding_window is true (default false), and
 *   then only for the layers i >= max_window_layers (default 28); layers below attend fully;
 * - llama has no window. */
static gboolean
hf_read_window (BpwJsonDoc   *doc,
                JsonObject   *root,
                BpwHfFamily      family,
                BpwModelSpec *spec,
                GError      **error)
{
  gint64 window = family == HF_MISTRAL ? 4096 : family == HF_QWEN2 ? 4096 : 0;
  gint64 first = family == HF_QWEN2 ? 28 : 0;
  gboolean use_window = family != HF_QWEN2;

  spec->window = 0;
  spec->window_first = 0;
  if (family != HF_MISTRAL && family != HF_MIXTRAL && family != HF_QWEN2)
    return TRUE;
  if (hf_is_null (root, "sliding_window"))
    window = 0;
  else if (!_bpw_hf_get_int (doc, root, "sliding_window", FALSE, 1, BPW_WORKLOAD_MAX_WIDTH, &window,
                             error))
    return FALSE;
  if (family == HF_QWEN2
      && (!bpw_json_doc_get_bool (doc, root, "", "use_sliding_window", FALSE, &use_window,
                                  error)
          || !_bpw_hf_get_int (doc, root, "max_window_layers", FALSE, 0, BPW_WORKLOAD_MAX_LAYERS,
                               &first, error)))
    return FALSE;
  if (!use_window || window == 0)
    return TRUE;
  spec->window = window;
  /* More full layers than layers leaves none windowed: the same as no window. */
  if (first >= spec->layers)
    spec->window = 0;
  else
    spec->window_first = first;
  return TRUE;
}

/* DeepSeek-V2/V3 (the configuration_deepseek.py of their repositories):
 * - latent attention: q_lora_rank (null = a full q_proj, V2-Lite), kv_lora_rank and the
 *   nope, rope and v head widths; the query/key head is nope + rope;
 * - fine-grained MoE: n_routed_experts of moe_intermediate_size, n_shared_experts of the
 *   same width (HF builds them as one MLP n_shared times as wide: the same parameters and
 *   FLOPs), top num_experts_per_tok; layer i is MoE when i >= first_k_dense_replace and
 *   i % moe_layer_freq == 0;
 * - routing limited to topk_group of n_group groups when topk_method is group_limited_greedy
 *   (V2) or noaux_tc (V3); noaux_tc also adds the balancing bias e_score_correction_bias;
 *   greedy (V2-Lite) routes over all experts;
 * - num_nextn_predict_layers MTP modules (V3), counted apart. */
static gboolean
hf_read_deepseek (BpwJsonDoc   *doc,
                  JsonObject   *root,
                  BpwHfFamily      family,
                  BpwModelSpec *spec,
                  GError      **error)
{
  const char *topk_method = family == HF_DEEPSEEK_V3 ? "noaux_tc" : "greedy";
  gint64 first_dense = 0, freq = 1, groups = 1, topk_groups = 1;
  gboolean grouped;

  spec->q_lora_rank = 0;
  spec->mtp_modules = 0;
  if (!_bpw_hf_get_int (doc, root, "q_lora_rank", FALSE, 1, BPW_WORKLOAD_MAX_WIDTH,
                        &spec->q_lora_rank, error)
      || !_bpw_hf_get_int (doc, root, "kv_lora_rank", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                           &spec->kv_lora_rank, error)
      || !_bpw_hf_get_int (doc, root, "qk_nope_head_dim", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                           &spec->qk_nope_head_dim, error)
      || !_bpw_hf_get_int (doc, root, "qk_rope_head_dim", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                           &spec->qk_rope_head_dim, error)
      || !_bpw_hf_get_int (doc, root, "v_head_dim", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                           &spec->v_head_dim, error)
      || !_bpw_hf_get_int (doc, root, "n_routed_experts", FALSE, 1, BPW_WORKLOAD_MAX_HEADS,
                           &spec->experts, error)
      || !_bpw_hf_get_int (doc, root, "num_experts_per_tok", spec->experts > 0, 1,
                           BPW_WORKLOAD_MAX_HEADS, &spec->top_k, error)
      || !_bpw_hf_get_int (doc, root, "n_shared_experts", FALSE, 0, BPW_WORKLOAD_MAX_HEADS,
                           &spec->shared_experts, error)
      || !_bpw_hf_get_int (doc, root, "moe_intermediate_size", spec->experts > 0, 1,
                           BPW_WORKLOAD_MAX_WIDTH, &spec->moe_ffn, error)
      || !_bpw_hf_get_int (doc, root, "first_k_dense_replace", FALSE, 0, BPW_WORKLOAD_MAX_LAYERS,
                           &first_dense, error)
      || !_bpw_hf_get_int (doc, root, "moe_layer_freq", FALSE, 1, BPW_WORKLOAD_MAX_LAYERS, &freq,
                           error)
      || !_bpw_hf_get_int (doc, root, "n_group", FALSE, 1, BPW_WORKLOAD_MAX_HEADS, &groups, error)
      || !_bpw_hf_get_int (doc, root, "topk_group", FALSE, 1, BPW_WORKLOAD_MAX_HEADS, &topk_groups,
                           error)
      || !_bpw_hf_get_int (doc, root, "num_nextn_predict_layers", FALSE, 0, BPW_WORKLOAD_MAX_LAYERS,
                           &spec->mtp_modules, error)
      || (json_object_has_member (root, "topk_method") && !hf_is_null (root, "topk_method")
          && !bpw_json_doc_get_string (doc, root, "", "topk_method", FALSE, &topk_method,
                                       error)))
    return FALSE;

  spec->head_dim = spec->qk_nope_head_dim + spec->qk_rope_head_dim;
  spec->kv_heads = spec->heads;
  if (spec->experts == 0)
    {
      spec->top_k = spec->shared_experts = spec->moe_ffn = 0;
      return TRUE;
    }
  /* HF's i % moe_layer_freq == 0 from first_k_dense_replace on is every freq-th layer from
   * the first multiple of freq at or after it. */
  spec->moe_every = freq;
  spec->moe_first = (first_dense + freq - 1) / freq * freq;
  if (spec->moe_first >= spec->layers)
    {
      /* No layer is sparse: a dense model. */
      spec->experts = spec->top_k = spec->shared_experts = spec->moe_ffn = 0;
      spec->moe_every = 1;
      spec->moe_first = 0;
      return TRUE;
    }
  spec->capacity_factor = 0.0;  /* dropless */
  grouped = g_strcmp0 (topk_method, "group_limited_greedy") == 0 ||
            g_strcmp0 (topk_method, "noaux_tc") == 0;
  spec->expert_groups = grouped && groups > 1 ? groups : 0;
  spec->topk_groups = grouped && groups > 1 ? topk_groups : 0;
  spec->router_bias = g_strcmp0 (topk_method, "noaux_tc") == 0;
  return TRUE;
}


gboolean
_bpw_hf_read_llama_like (BpwJsonDoc   *doc,
                         JsonObject   *root,
                         BpwHfFamily      family,
                         BpwModelSpec *spec,
                         GPtrArray    *warnings,
                         GError      **error)
{
  gboolean attention_bias = family == HF_QWEN2;
  gboolean mlp_bias = FALSE;
  double attention_dropout = 0.0;

  spec->kv_heads = 0;
  spec->head_dim = 0;
  spec->max_positions = 0;
  if (!_bpw_hf_get_int (doc, root, "hidden_size", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, &spec->hidden,
                        error)
      || !_bpw_hf_get_int (doc, root, "num_hidden_layers", TRUE, 1, BPW_WORKLOAD_MAX_LAYERS,
                           &spec->layers, error)
      || !_bpw_hf_get_int (doc, root, "num_attention_heads", TRUE, 1, BPW_WORKLOAD_MAX_HEADS,
                           &spec->heads, error)
      || !_bpw_hf_get_int (doc, root, "num_key_value_heads", FALSE, 1, BPW_WORKLOAD_MAX_HEADS,
                           &spec->kv_heads, error)
      || !_bpw_hf_get_int (doc, root, "head_dim", FALSE, 1, BPW_WORKLOAD_MAX_WIDTH, &spec->head_dim,
                           error)
      || !_bpw_hf_get_int (doc, root, "intermediate_size", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                           &spec->ffn, error)
      || !_bpw_hf_get_int (doc, root, "vocab_size", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, &spec->vocab,
                           error)
      || !_bpw_hf_get_int (doc, root, "max_position_embeddings", FALSE, 1, BPW_WORKLOAD_MAX_WIDTH,
                           &spec->max_positions, error)
      || !bpw_json_doc_get_double (doc, root, "", "attention_dropout", FALSE, 0.0, 1.0,
                                   &attention_dropout, error))
    return FALSE;

  /* Qwen2 always has Q/K/V biases (and no o_proj bias); Llama's attention_bias puts a bias
   * on Q, K, V and O alike. */
  if (family != HF_QWEN2
      && (!bpw_json_doc_get_bool (doc, root, "", "attention_bias", FALSE, &attention_bias,
                                  error)
          || !bpw_json_doc_get_bool (doc, root, "", "mlp_bias", FALSE, &mlp_bias, error)))
    return FALSE;

  if (spec->kv_heads == 0)
    spec->kv_heads = spec->heads;
  if (spec->max_positions == 0)
    spec->max_positions = 2048;  /* unused with rotary positions; only needs to be valid */
  spec->ffn_kind = BPW_FFN_SWIGLU;
  spec->norm = BPW_NORM_RMSNORM;
  spec->positions = BPW_POSITION_ROTARY;
  spec->tied_embeddings = FALSE;
  spec->qkv_bias = attention_bias;
  spec->linear_bias = mlp_bias;
  spec->dropout = attention_dropout > 0.0;

  if (family != HF_QWEN2 && attention_bias && !mlp_bias && warnings != NULL)
    {
      guint line = 0, column = 0;

      bpw_json_doc_locate (doc, json_object_get_member (root, "attention_bias"), &line, &column);
      g_ptr_array_add (warnings,
                       g_strdup_printf (_("%s:%u:%u: attention_bias: the o_proj bias is not "
                                        "modelled (only Q/K/V biases); %" PRId64
                                        " parameters per layer are left out"),
                                        bpw_json_doc_get_filename (doc), line, column,
                                        spec->hidden));
    }

  if (family == HF_MIXTRAL)
    {
      if (!_bpw_hf_get_int (doc, root, "num_local_experts", TRUE, 1, BPW_WORKLOAD_MAX_HEADS,
                            &spec->experts, error)
          || !_bpw_hf_get_int (doc, root, "num_experts_per_tok", TRUE, 1, BPW_WORKLOAD_MAX_HEADS,
                               &spec->top_k, error))
        return FALSE;
      /* Mixtral: every layer is sparse, experts as wide as intermediate_size, dropless
       * routing (no capacity factor), no shared expert. */
      spec->shared_experts = 0;
      spec->moe_ffn = 0;
      spec->moe_every = 1;
      spec->moe_first = 0;
      spec->capacity_factor = 0.0;
    }

  if ((family == HF_DEEPSEEK_V2 || family == HF_DEEPSEEK_V3)
      && !hf_read_deepseek (doc, root, family, spec, error))
    return FALSE;

  if (!hf_read_window (doc, root, family, spec, error))
    return FALSE;

  if (spec->head_dim == 0)
    return _bpw_workload_derive_head_dim (doc, root, "", "num_attention_heads", spec, error);
  return TRUE;
}

gboolean
_bpw_workload_read_hf (BpwJsonDoc          *doc,
                       JsonObject          *root,
                       BpwModelSpec        *spec,
                       const char * const **key_map,
                       GPtrArray           *warnings,
                       GError             **error)
{
  BpwHfFamily family = HF_LLAMA;
  const char *name_or_path = NULL;

  if (!hf_detect_family (doc, root, &family, error))
    return FALSE;

  _bpw_workload_check_unknown (doc, root, "", _bpw_hf_ignored_keys, warnings);

  if (!bpw_json_doc_get_string (doc, root, "", "_name_or_path", FALSE, &name_or_path, error)
      || !hf_read_dtype (doc, root, spec, error))
    return FALSE;
  /* A local checkout path is no name; a hub id ("meta-llama/Meta-Llama-3-8B") is. */
  if (name_or_path != NULL && *name_or_path != '\0' && *name_or_path != '/'
      && *name_or_path != '.')
    {
      g_free (spec->name);
      spec->name = g_strdup (name_or_path);
    }

  if (family == HF_GPT2)
    {
      *key_map = gpt2_key_map;
      if (!hf_read_gpt2 (doc, root, spec, warnings, error))
        return FALSE;
    }
  else if (family == HF_LLAVA)
    {
      *key_map = llama_key_map;
      if (!_bpw_hf_read_llava (doc, root, spec, warnings, error))
        return FALSE;
    }
  else if (family == HF_MLLAMA)
    {
      *key_map = llama_key_map;
      if (!_bpw_hf_read_mllama (doc, root, spec, warnings, error))
        return FALSE;
    }
  else
    {
      *key_map = family == HF_DEEPSEEK_V2 || family == HF_DEEPSEEK_V3 ? deepseek_key_map
                                                                      : llama_key_map;
      if (!_bpw_hf_read_llama_like (doc, root, family, spec, warnings, error))
        return FALSE;
    }

  if (!bpw_json_doc_get_bool (doc, root, "", "tie_word_embeddings", FALSE,
                              &spec->tied_embeddings, error))
    return FALSE;
  return TRUE;
}
