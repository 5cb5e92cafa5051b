/* bpw-workload-hf-vision.c — Hugging Face multimodal configs: llava (a CLIP tower and a
 * projector before a text decoder) and mllama (Llama 3.2 Vision: a tiled encoder attended by
 * cross-attention layers)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The text decoder inside is read by the text reader (bpw-workload-hf.c), the family's
 * sub-configs and vision towers here.
 */
#define G_LOG_DOMAIN "bpw-workload-hf"

#include "config.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-workload-io-private.h"

/* MllamaVisionConfig's keys: the sizes are read, the rest is numerics or preprocessing. */
static const char * const hf_mllama_vision_keys[] = {
  "model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_global_layers",
  "attention_heads", "num_channels", "image_size", "patch_size", "max_num_tiles",
  "intermediate_layers_indices", "supported_aspect_ratios", "vision_output_dim",
  "hidden_act", "norm_eps", "initializer_range", "torch_dtype", "dtype", "_name_or_path",
  "architectures", "max_length", NULL
};

/* CLIPVisionConfig's keys: the sizes are read, the rest is numerics or for CLIP's text
 * side. */
static const char * const hf_clip_keys[] = {
  "model_type", "hidden_size", "intermediate_size", "num_hidden_layers",
  "num_attention_heads", "num_channels", "image_size", "patch_size", "hidden_act",
  "projection_dim", "vocab_size", "layer_norm_eps", "attention_dropout", "dropout",
  "initializer_range", "initializer_factor", "torch_dtype", "dtype", "_name_or_path",
  "architectures", NULL
};

/* An object member of @root, or a located error. */
static JsonObject *
hf_get_object (BpwJsonDoc  *doc,
               JsonObject  *root,
               const char  *member,
               GError     **error)
{
  JsonNode *node = json_object_get_member (root, member);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      bpw_json_doc_error (doc, node, member, error, _("expected an object (a sub-config)"));
      return NULL;
    }
  return json_node_get_object (node);
}

/* Fills the keys a Hugging Face sub-config may leave to its class's defaults, so that the
 * readers below find them (llava-hf's configs give only what differs). */
static void
hf_default_int (JsonObject *object,
                const char *member,
                gint64      value)
{
  if (!json_object_has_member (object, member))
    json_object_set_int_member (object, member, value);
}

/* The text_config and vision_config objects of a multimodal config, and the text model's
 * model_type (@text_type is left alone where there is none). */
static gboolean
hf_get_sub_configs (BpwJsonDoc   *doc,
                    JsonObject   *root,
                    JsonObject  **text,
                    JsonObject  **vision,
                    const char  **text_type,
                    GError      **error)
{
  return (*text = hf_get_object (doc, root, "text_config", error)) != NULL
         && (*vision = hf_get_object (doc, root, "vision_config", error)) != NULL
         && bpw_json_doc_get_string (doc, *text, "text_config", "model_type", FALSE, text_type,
                                     error);
}

/* The ViT shape both vision towers name alike: widths, depth, heads (under @heads_key),
 * channels, image and patch sizes, each defaulting to what @v holds. @global_layers, where
 * the tower has gated global layers, is read after the depth. */
static gboolean
hf_read_vision_shape (BpwJsonDoc    *doc,
                      JsonObject    *vision,
                      const char    *heads_key,
                      gint64        *global_layers,
                      BpwVisionSpec *v,
                      GError       **error)
{
  return bpw_json_doc_get_int (doc, vision, "vision_config", "hidden_size", FALSE, 1,
                               BPW_WORKLOAD_MAX_WIDTH, &v->hidden, error)
         && bpw_json_doc_get_int (doc, vision, "vision_config", "intermediate_size", FALSE, 1,
                                  BPW_WORKLOAD_MAX_WIDTH, &v->ffn, error)
         && bpw_json_doc_get_int (doc, vision, "vision_config", "num_hidden_layers", FALSE, 1,
                                  BPW_WORKLOAD_MAX_LAYERS, &v->layers, error)
         && (global_layers == NULL
             || bpw_json_doc_get_int (doc, vision, "vision_config", "num_global_layers", FALSE,
                                      0, BPW_WORKLOAD_MAX_LAYERS, global_layers, error))
         && bpw_json_doc_get_int (doc, vision, "vision_config", heads_key, FALSE, 1,
                                  BPW_WORKLOAD_MAX_HEADS, &v->heads, error)
         && bpw_json_doc_get_int (doc, vision, "vision_config", "num_channels", FALSE, 1, 64,
                                  &v->channels, error)
         && bpw_json_doc_get_int (doc, vision, "vision_config", "image_size", FALSE, 1, 1 << 16,
                                  &v->image_size, error)
         && bpw_json_doc_get_int (doc, vision, "vision_config", "patch_size", FALSE, 1, 1 << 16,
                                  &v->patch_size, error);
}

/* The vision tower of a Llava config: CLIPVisionConfig (defaults: ViT-B/32 at 224 pixels,
 * quick-GELU) with a class token, a bias-free patch convolution, pre- and post-norms. */
static gboolean
hf_read_clip_vision (BpwJsonDoc   *doc,
                     JsonObject   *vision,
                     BpwModelSpec *spec,
                     GPtrArray    *warnings,
                     GError      **error)
{
  BpwVisionSpec *v = &spec->vision;
  const char *type = NULL, *act = NULL;

  if (!bpw_json_doc_get_string (doc, vision, "vision_config", "model_type", FALSE, &type,
                                error))
    return FALSE;
  if (type != NULL && g_strcmp0 (type, "clip_vision_model") != 0)
    {
      bpw_json_doc_error (doc, json_object_get_member (vision, "model_type"),
                          "vision_config.model_type", error,
                          _("vision model type \"%s\" is not supported; supported is "
                            "clip_vision_model"), type);
      return _bpw_hf_mark_unsupported (error);
    }
  _bpw_workload_check_unknown (doc, vision, "vision_config", hf_clip_keys, warnings);
  v->hidden = 768;
  v->ffn = 3072;
  v->layers = 12;
  v->heads = 12;
  v->channels = 3;
  v->image_size = 224;
  v->patch_size = 32;
  if (!hf_read_vision_shape (doc, vision, "num_attention_heads", NULL, v, error)
      || !bpw_json_doc_get_string (doc, vision, "vision_config", "hidden_act", FALSE, &act,
                                   error))
    return FALSE;
  v->norm = BPW_NORM_LAYERNORM;
  v->quick_gelu = act == NULL || g_strcmp0 (act, "quick_gelu") == 0;
  if (act != NULL && !v->quick_gelu && !g_str_has_prefix (act, "gelu") && warnings != NULL)
    {
      guint line = 0, column = 0;

      bpw_json_doc_locate (doc, json_object_get_member (vision, "hidden_act"), &line, &column);
      g_ptr_array_add (warnings,
                       g_strdup_printf (_("%s:%u:%u: vision_config.hidden_act: \"%s\" is "
                                          "modelled with GeLU's element-wise cost (same "
                                          "matrices)"),
                                        bpw_json_doc_get_filename (doc), line, column, act));
    }
  v->class_token = TRUE;
  v->patch_bias = FALSE;
  v->pre_norm = TRUE;
  v->post_norm = TRUE;
  return TRUE;
}

/* Llava (transformers' LlavaConfig): a text_config read as its own family, a CLIP
 * vision_config, vision_feature_layer (default -2), vision_feature_select_strategy
 * ("default" drops the class token, "full" keeps it) and the two-layer projector with
 * projector_hidden_act (default gelu). image_seq_length, when given, must be the patch
 * count the rest implies. */
gboolean
_bpw_hf_read_llava (BpwJsonDoc   *doc,
                    JsonObject   *root,
                    BpwModelSpec *spec,
                    GPtrArray    *warnings,
                    GError      **error)
{
  JsonObject *text, *vision;
  const char *text_type = "llama", *select = NULL, *act = NULL;
  BpwHfFamily text_family = HF_N_FAMILIES;
  gint64 image_seq = 0, feature_layer = -2;
  JsonNode *layer_node = json_object_get_member (root, "vision_feature_layer");

  if (!hf_get_sub_configs (doc, root, &text, &vision, &text_type, error))
    return FALSE;
  for (guint i = 0; i < HF_N_FAMILIES; i++)
    if (i != HF_GPT2 && i != HF_LLAVA && i != HF_MLLAMA && g_strcmp0 (text_type, _bpw_hf_family_names[i]) == 0)
      text_family = i;
  if (text_family == HF_N_FAMILIES)
    {
      bpw_json_doc_error (doc, json_object_get_member (text, "model_type"),
                          "text_config.model_type", error,
                          _("language model type \"%s\" is not supported under llava; "
                            "supported are llama, mistral, mixtral and qwen2"), text_type);
      return _bpw_hf_mark_unsupported (error);
    }
  if (text_family == HF_LLAMA)
    {
      /* LlamaConfig's defaults: Llama-2-7B's shape. */
      hf_default_int (text, "vocab_size", 32000);
      hf_default_int (text, "hidden_size", 4096);
      hf_default_int (text, "intermediate_size", 11008);
      hf_default_int (text, "num_hidden_layers", 32);
      hf_default_int (text, "num_attention_heads", 32);
    }
  _bpw_workload_check_unknown (doc, text, "text_config", _bpw_hf_ignored_keys, warnings);
  if (!_bpw_hf_read_llama_like (doc, text, text_family, spec, warnings, error)
      || !hf_read_clip_vision (doc, vision, spec, warnings, error))
    return FALSE;

  if (layer_node != NULL && JSON_NODE_HOLDS_ARRAY (layer_node))
    {
      bpw_json_doc_error (doc, layer_node, "vision_feature_layer", error,
                          _("features concatenated from several layers are not supported; "
                            "give one layer"));
      return _bpw_hf_mark_unsupported (error);
    }
  if (!bpw_json_doc_get_int (doc, root, "", "vision_feature_layer", FALSE,
                             -spec->vision.layers, spec->vision.layers, &feature_layer, error)
      || !bpw_json_doc_get_string (doc, root, "", "vision_feature_select_strategy", FALSE,
                                   &select, error)
      || !bpw_json_doc_get_string (doc, root, "", "projector_hidden_act", FALSE, &act, error)
      || !bpw_json_doc_get_int (doc, root, "", "image_seq_length", FALSE, 1,
                                BPW_WORKLOAD_MAX_WIDTH, &image_seq, error))
    return FALSE;
  if (select != NULL && g_strcmp0 (select, "default") != 0 && g_strcmp0 (select, "full") != 0)
    return bpw_json_doc_error (doc, json_object_get_member (root,
                                                            "vision_feature_select_strategy"),
                               "vision_feature_select_strategy", error,
                               _("expected \"default\" or \"full\", got \"%s\""), select);
  if (act != NULL && !g_str_has_prefix (act, "gelu") && warnings != NULL)
    {
      guint line = 0, column = 0;

      bpw_json_doc_locate (doc, json_object_get_member (root, "projector_hidden_act"), &line,
                           &column);
      g_ptr_array_add (warnings,
                       g_strdup_printf (_("%s:%u:%u: projector_hidden_act: \"%s\" is "
                                          "modelled with GeLU's element-wise cost (same "
                                          "matrices)"),
                                        bpw_json_doc_get_filename (doc), line, column, act));
    }
  spec->vision.feature_layer = feature_layer;
  spec->vision.keep_class = g_strcmp0 (select, "full") == 0;
  spec->vision.projector = BPW_PROJECTOR_MLP;
  if (spec->vision.patch_size <= spec->vision.image_size
      && spec->vision.image_size % spec->vision.patch_size == 0 && image_seq != 0
      && image_seq != bpw_model_spec_image_tokens (spec))
    return bpw_json_doc_error (doc, json_object_get_member (root, "image_seq_length"),
                               "image_seq_length", error,
                               _("%" PRId64 " tokens per image, but the vision config gives %"
                                 PRId64), image_seq, bpw_model_spec_image_tokens (spec));
  return TRUE;
}
/* The vision tower of an mllama config (transformers' MllamaVisionConfig, whose defaults
 * are Llama 3.2 Vision's): a tiled ViT with local and gated global layers, the hidden
 * states at intermediate_layers_indices concatenated to the last (vision_output_dim, when
 * given, must be that width), a tile table per supported aspect ratio. */
static gboolean
hf_read_mllama_vision (BpwJsonDoc   *doc,
                       JsonObject   *vision,
                       BpwModelSpec *spec,
                       GPtrArray    *warnings,
                       GError      **error)
{
  BpwVisionSpec *v = &spec->vision;
  const char *type = NULL;
  JsonNode *ratios = json_object_get_member (vision, "supported_aspect_ratios");
  gint64 output_dim = 0;

  if (!bpw_json_doc_get_string (doc, vision, "vision_config", "model_type", FALSE, &type,
                                error))
    return FALSE;
  if (type != NULL && g_strcmp0 (type, "mllama_vision_model") != 0)
    {
      bpw_json_doc_error (doc, json_object_get_member (vision, "model_type"),
                          "vision_config.model_type", error,
                          _("vision model type \"%s\" is not supported under mllama; "
                            "supported is mllama_vision_model"), type);
      return _bpw_hf_mark_unsupported (error);
    }
  _bpw_workload_check_unknown (doc, vision, "vision_config", hf_mllama_vision_keys, warnings);
  *v = (BpwVisionSpec) {
    .hidden = 1280, .ffn = 5120, .layers = 32, .global_layers = 8, .heads = 16,
    .channels = 3, .image_size = 448, .patch_size = 14, .tiles = 4, .aspect_ratios = 8,
    .norm = BPW_NORM_LAYERNORM, .class_token = TRUE, .patch_bias = FALSE, .pre_norm = TRUE,
    .post_norm = TRUE, .feature_layer = -1, .keep_class = TRUE,
    .projector = BPW_PROJECTOR_LINEAR, .n_intermediate = 5,
    .intermediate = { 3, 7, 15, 23, 30 },
  };
  if (!hf_read_vision_shape (doc, vision, "attention_heads", &v->global_layers, v, error)
      || !bpw_json_doc_get_int (doc, vision, "vision_config", "max_num_tiles", FALSE, 1, 64,
                                &v->tiles, error)
      || !_bpw_workload_read_index_list (doc, vision, "vision_config",
                                         "intermediate_layers_indices", 0, v->layers,
                                         BPW_VISION_MAX_INTERMEDIATE, v->intermediate,
                                         &v->n_intermediate, error)
      || !bpw_json_doc_get_int (doc, vision, "vision_config", "vision_output_dim", FALSE, 1,
                                BPW_WORKLOAD_MAX_WIDTH, &output_dim, error))
    return FALSE;
  if (ratios != NULL)
    {
      if (!JSON_NODE_HOLDS_ARRAY (ratios) || json_array_get_length (json_node_get_array (ratios)) == 0)
        return bpw_json_doc_error (doc, ratios, "vision_config.supported_aspect_ratios", error,
                                   _("expected a non-empty array of [width, height] tile "
                                     "counts"));
      /* Hugging Face's max_aspect_ratio_id: the tile tables have a row per ratio and one
       * for id 0 (padding). */
      v->aspect_ratios = json_array_get_length (json_node_get_array (ratios));
    }
  if (output_dim != 0 && output_dim != bpw_model_spec_vision_output_width (spec))
    return bpw_json_doc_error (doc, json_object_get_member (vision, "vision_output_dim"),
                               "vision_config.vision_output_dim", error,
                               _("%" PRId64 ", but hidden_size x (1 + %" PRId64 " intermediate "
                                 "layers) is %" PRId64), output_dim, v->n_intermediate,
                               bpw_model_spec_vision_output_width (spec));
  return TRUE;
}

/* Mllama (transformers' MllamaConfig, Llama 3.2 Vision): a Llama text_config whose
 * num_hidden_layers counts the cross-attention layers at cross_attention_layers, a token
 * table of vocab_size + 8 rows (the image tokens; the head has vocab_size), and a tiled
 * vision_config with a linear projector to the text width. Defaults are MllamaTextConfig's
 * and MllamaVisionConfig's. */
gboolean
_bpw_hf_read_mllama (BpwJsonDoc   *doc,
                     JsonObject   *root,
                     BpwModelSpec *spec,
                     GPtrArray    *warnings,
                     GError      **error)
{
  JsonObject *text, *vision;
  const char *text_type = NULL;
  gboolean has_cross;

  if (!hf_get_sub_configs (doc, root, &text, &vision, &text_type, error))
    return FALSE;
  if (text_type != NULL && g_strcmp0 (text_type, "mllama_text_model") != 0)
    {
      bpw_json_doc_error (doc, json_object_get_member (text, "model_type"),
                          "text_config.model_type", error,
                          _("language model type \"%s\" is not supported under mllama; "
                            "supported is mllama_text_model"), text_type);
      return _bpw_hf_mark_unsupported (error);
    }
  hf_default_int (text, "vocab_size", 128256);
  hf_default_int (text, "hidden_size", 4096);
  hf_default_int (text, "intermediate_size", 14336);
  hf_default_int (text, "num_hidden_layers", 40);
  hf_default_int (text, "num_attention_heads", 32);
  hf_default_int (text, "num_key_value_heads", 8);
  has_cross = json_object_has_member (text, "cross_attention_layers");
  _bpw_workload_check_unknown (doc, text, "text_config", _bpw_hf_ignored_keys, warnings);
  if (!_bpw_hf_read_llama_like (doc, text, HF_LLAMA, spec, warnings, error)
      || !hf_read_mllama_vision (doc, vision, spec, warnings, error)
      || !_bpw_workload_read_index_list (doc, text, "text_config", "cross_attention_layers",
                                         0, spec->layers - 1, BPW_MODEL_MAX_CROSS_LAYERS,
                                         spec->cross_layers, &spec->n_cross_layers, error))
    return FALSE;
  if (!has_cross)
    {
      static const gint32 defaults[] = { 3, 8, 13, 18, 23, 28, 33, 38 };

      for (guint i = 0; i < G_N_ELEMENTS (defaults) && defaults[i] < spec->layers; i++)
        spec->cross_layers[spec->n_cross_layers++] = defaults[i];
    }
  if (spec->n_cross_layers == 0)
    return bpw_json_doc_error (doc, json_object_get_member (text, "cross_attention_layers"),
                               "text_config.cross_attention_layers", error,
                               _("an mllama decoder needs at least one cross-attention "
                                 "layer"));
  spec->embedding_extra = 8;
  spec->tied_embeddings = FALSE;
  return bpw_json_doc_get_bool (doc, text, "text_config", "tie_word_embeddings", FALSE,
                                &spec->tied_embeddings, error);
}
