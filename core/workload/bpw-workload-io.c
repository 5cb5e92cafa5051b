/* bpw-workload-io.c — loading workloads by name or file, and the native format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-workload-io"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-workload-io.h"

#include <string.h>

#include "bpw-decompose-size.h"
#include "bpw-error.h"
#include "bpw-workload-io-private.h"

static const char * const native_root_keys[] = {
  "$schema", "format", "version", "description", "model", NULL
};

static const char * const native_model_keys[] = {
  "name", "description", "vocab", "hidden", "layers", "heads", "kv_heads", "head_dim", "ffn",
  "max_positions", "ffn_kind", "norm", "positions", "tied_embeddings", "qkv_bias",
  "linear_bias", "dropout", "sliding_window", "window_first_layer", "mla", "mtp_modules",
  "moe", "vision", "cross_attention_layers", "embedding_extra", "dtypes", "optimizer", NULL
};
static const char * const native_vision_keys[] = {
  "image_size", "patch_size", "channels", "hidden", "layers", "heads", "ffn", "norm",
  "activation", "class_token", "patch_bias", "pre_norm", "post_norm", "feature_layer",
  "feature_select", "projector", "tiles", "aspect_ratios", "global_layers",
  "intermediate_layers", NULL
};
static const char * const native_mla_keys[] = {
  "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", NULL
};
static const char * const native_moe_keys[] = {
  "experts", "top_k", "shared_experts", "ffn", "every", "first", "capacity_factor", "groups",
  "topk_groups", "router_bias", NULL
};
static const char * const native_dtype_keys[] = {
  "param", "activation", "gradient", "optimizer", "master", NULL
};

/* Index order = enum order. */
static const char * const ffn_kind_names[] = { "gelu", "swiglu", NULL };
static const char * const norm_names[] = { "layernorm", "rmsnorm", NULL };
static const char * const position_names[] = { "learned", "rotary", NULL };
static const char * const dtype_names[] = { "fp32", "bf16", "fp16", "fp8", NULL };
static const char * const optimizer_names[] = { "adam", "sgd", NULL };
static const char * const vision_activation_names[] = { "gelu", "quick_gelu", NULL };
static const char * const feature_select_names[] = { "default", "full", NULL };
static const char * const projector_names[] = { "mlp", "linear", NULL };

char *
_bpw_workload_name_from_filename (const char *filename)
{
  g_autofree char *base = g_path_get_basename (filename);
  char *dot;

  /* A Hugging Face checkpoint is a directory with a config.json: the directory names it. */
  if (g_strcmp0 (base, "config.json") == 0)
    {
      g_autofree char *dir = g_path_get_dirname (filename);

      if (g_strcmp0 (dir, ".") != 0)
        return g_path_get_basename (dir);
    }
  dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    *dot = '\0';
  return g_steal_pointer (&base);
}

/* "moe.experts" -> object["moe"]["experts"]; NULL when any step is missing. */
static JsonNode *
bpw_workload_lookup_member (JsonObject *object,
                            const char *dotted)
{
  g_auto(GStrv) parts = g_strsplit (dotted, ".", -1);
  JsonNode *node = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (object == NULL || !json_object_has_member (object, parts[i]))
        return NULL;
      node = json_object_get_member (object, parts[i]);
      object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
    }
  return node;
}

gboolean
_bpw_workload_validate_located (BpwJsonDoc         *doc,
                                JsonObject         *object,
                                const char         *path,
                                const char * const *key_map,
                                const BpwModelSpec *spec,
                                GError            **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *field = NULL;
  const char *msg;
  const char *p;
  const char *key = NULL;
  JsonNode *node = NULL;

  /* A model that loads can be evaluated: its work graph fits the budget under every option. */
  if (bpw_model_spec_validate (spec, &local_error) &&
      bpw_decompose_check_model_budget (spec, &local_error))
    return TRUE;

  /* Messages read "model.FIELD: reason" or "model.moe.FIELD: reason". */
  msg = local_error->message;
  p = g_str_has_prefix (msg, "model.") ? msg + strlen ("model.") : msg;
  field = g_strndup (p, strspn (p, "abcdefghijklmnopqrstuvwxyz_0123456789."));
  p += strlen (field);
  if (*field != '\0' && p[0] == ':' && p[1] == ' ')
    {
      key = field;
      for (guint i = 0; key_map != NULL && key_map[i] != NULL; i += 2)
        if (g_strcmp0 (key_map[i], field) == 0)
          {
            key = key_map[i + 1];
            break;
          }
      node = bpw_workload_lookup_member (object, key);
    }
  /* "model: reason" is about the model as a whole: point at its object. */
  if (node == NULL && g_strcmp0 (field, "model") == 0 && *path != '\0')
    {
      bpw_json_doc_error (doc, bpw_json_doc_get_object_node (doc, object), path, error, "%s",
                          p + 2);
    }
  else if (node != NULL)
    {
      g_autofree char *full = *path != '\0' ? g_strdup_printf ("%s.%s", path, key)
                                            : g_strdup (key);
      bpw_json_doc_error (doc, node, full, error, "%s", p + 2);
    }
  else
    {
      /* About the model as a whole in a file whose root is the model (Hugging Face,
       * Calculon): point at that object, so that every message has a location. */
      bpw_json_doc_error (doc, bpw_json_doc_get_object_node (doc, object), NULL, error, "%s",
                          msg);
    }
  if (error != NULL && *error != NULL)
    (*error)->code = local_error->code;
  return FALSE;
}

static gboolean
bpw_workload_get_dtype (BpwJsonDoc  *doc,
                        JsonObject  *object,
                        const char  *path,
                        const char  *member,
                        BpwDType    *out,
                        GError     **error)
{
  int index = -1;

  if (!bpw_json_doc_get_enum (doc, object, path, member, FALSE, dtype_names, &index, error))
    return FALSE;
  if (index >= 0)
    *out = (BpwDType) index;
  return TRUE;
}

static gboolean
bpw_workload_read_moe (BpwJsonDoc   *doc,
                       JsonObject   *model,
                       const char   *model_path,
                       BpwModelSpec *spec,
                       GPtrArray    *warnings,
                       GError      **error)
{
  g_autofree char *path = NULL;
  JsonObject *moe = NULL;

  if (!bpw_json_doc_get_section (doc, model, model_path, "moe", native_moe_keys, warnings,
                                 &moe, &path, error))
    return FALSE;
  if (moe == NULL)
    return TRUE;
  return bpw_json_doc_get_int (doc, moe, path, "experts", TRUE, 1, BPW_WORKLOAD_MAX_HEADS,
                               &spec->experts, error)
         && bpw_json_doc_get_int (doc, moe, path, "top_k", TRUE, 1, BPW_WORKLOAD_MAX_HEADS,
                                  &spec->top_k, error)
         && bpw_json_doc_get_int (doc, moe, path, "shared_experts", FALSE, 0,
                                  BPW_WORKLOAD_MAX_HEADS, &spec->shared_experts, error)
         && bpw_json_doc_get_int (doc, moe, path, "ffn", FALSE, 0, BPW_WORKLOAD_MAX_WIDTH,
                                  &spec->moe_ffn, error)
         && bpw_json_doc_get_int (doc, moe, path, "every", FALSE, 1, BPW_WORKLOAD_MAX_LAYERS,
                                  &spec->moe_every, error)
         && bpw_json_doc_get_int (doc, moe, path, "first", FALSE, 0, BPW_WORKLOAD_MAX_LAYERS,
                                  &spec->moe_first, error)
         && bpw_json_doc_get_double (doc, moe, path, "capacity_factor", FALSE, 0.0, 1024.0,
                                     &spec->capacity_factor, error)
         && bpw_json_doc_get_int (doc, moe, path, "groups", FALSE, 0, BPW_WORKLOAD_MAX_HEADS,
                                  &spec->expert_groups, error)
         && bpw_json_doc_get_int (doc, moe, path, "topk_groups", FALSE, 0,
                                  BPW_WORKLOAD_MAX_HEADS, &spec->topk_groups, error)
         && bpw_json_doc_get_bool (doc, moe, path, "router_bias", FALSE, &spec->router_bias,
                                   error);
}

/* Multi-head latent attention: the query/key head is nope + rope wide, one key and value
 * per query head; a file may state head_dim and kv_heads, which must then agree. */
static gboolean
bpw_workload_read_mla (BpwJsonDoc   *doc,
                       JsonObject   *model,
                       const char   *model_path,
                       BpwModelSpec *spec,
                       GPtrArray    *warnings,
                       GError      **error)
{
  g_autofree char *path = NULL;
  JsonObject *mla = NULL;

  if (!bpw_json_doc_get_section (doc, model, model_path, "mla", native_mla_keys, warnings,
                                 &mla, &path, error))
    return FALSE;
  if (mla == NULL)
    return TRUE;
  return bpw_json_doc_get_int (doc, mla, path, "q_lora_rank", FALSE, 0, BPW_WORKLOAD_MAX_WIDTH,
                               &spec->q_lora_rank, error)
         && bpw_json_doc_get_int (doc, mla, path, "kv_lora_rank", TRUE, 1,
                                  BPW_WORKLOAD_MAX_WIDTH, &spec->kv_lora_rank, error)
         && bpw_json_doc_get_int (doc, mla, path, "qk_nope_head_dim", TRUE, 1,
                                  BPW_WORKLOAD_MAX_WIDTH, &spec->qk_nope_head_dim, error)
         && bpw_json_doc_get_int (doc, mla, path, "qk_rope_head_dim", TRUE, 1,
                                  BPW_WORKLOAD_MAX_WIDTH, &spec->qk_rope_head_dim, error)
         && bpw_json_doc_get_int (doc, mla, path, "v_head_dim", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                                  &spec->v_head_dim, error);
}

/* A Llava-style vision encoder and projector; absent = a text-only model. */
static gboolean
bpw_workload_read_vision (BpwJsonDoc   *doc,
                          JsonObject   *model,
                          const char   *model_path,
                          BpwModelSpec *spec,
                          GPtrArray    *warnings,
                          GError      **error)
{
  g_autofree char *path = NULL;
  JsonObject *vision = NULL;
  BpwVisionSpec *v = &spec->vision;
  int norm = BPW_NORM_LAYERNORM, activation = 0, select = 0, projector = BPW_PROJECTOR_MLP;

  if (!bpw_json_doc_get_section (doc, model, model_path, "vision", native_vision_keys, warnings,
                                 &vision, &path, error))
    return FALSE;
  if (vision == NULL)
    return TRUE;
  /* CLIP's layout unless stated: class token, no patch bias, both norms. */
  *v = (BpwVisionSpec) {
    .channels = 3, .class_token = TRUE, .pre_norm = TRUE, .post_norm = TRUE,
    .feature_layer = -1,
  };
  if (!bpw_json_doc_get_int (doc, vision, path, "image_size", TRUE, 1, 1 << 16,
                             &v->image_size, error)
      || !bpw_json_doc_get_int (doc, vision, path, "patch_size", TRUE, 1, 1 << 16,
                                &v->patch_size, error)
      || !bpw_json_doc_get_int (doc, vision, path, "channels", FALSE, 1, 64, &v->channels,
                                error)
      || !bpw_json_doc_get_int (doc, vision, path, "hidden", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                                &v->hidden, error)
      || !bpw_json_doc_get_int (doc, vision, path, "layers", TRUE, 1, BPW_WORKLOAD_MAX_LAYERS,
                                &v->layers, error)
      || !bpw_json_doc_get_int (doc, vision, path, "heads", TRUE, 1, BPW_WORKLOAD_MAX_HEADS,
                                &v->heads, error)
      || !bpw_json_doc_get_int (doc, vision, path, "ffn", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH,
                                &v->ffn, error)
      || !bpw_json_doc_get_enum (doc, vision, path, "norm", FALSE, norm_names, &norm, error)
      || !bpw_json_doc_get_enum (doc, vision, path, "activation", FALSE,
                                 vision_activation_names, &activation, error)
      || !bpw_json_doc_get_bool (doc, vision, path, "class_token", FALSE, &v->class_token,
                                 error)
      || !bpw_json_doc_get_bool (doc, vision, path, "patch_bias", FALSE, &v->patch_bias, error)
      || !bpw_json_doc_get_bool (doc, vision, path, "pre_norm", FALSE, &v->pre_norm, error)
      || !bpw_json_doc_get_bool (doc, vision, path, "post_norm", FALSE, &v->post_norm, error)
      || !bpw_json_doc_get_int (doc, vision, path, "feature_layer", FALSE,
                                -BPW_WORKLOAD_MAX_LAYERS, BPW_WORKLOAD_MAX_LAYERS,
                                &v->feature_layer, error)
      || !bpw_json_doc_get_enum (doc, vision, path, "feature_select", FALSE,
                                 feature_select_names, &select, error)
      || !bpw_json_doc_get_enum (doc, vision, path, "projector", FALSE, projector_names,
                                 &projector, error)
      || !bpw_json_doc_get_int (doc, vision, path, "tiles", FALSE, 0, 64, &v->tiles, error)
      || !bpw_json_doc_get_int (doc, vision, path, "aspect_ratios", FALSE, 0, 64 * 64,
                                &v->aspect_ratios, error)
      || !bpw_json_doc_get_int (doc, vision, path, "global_layers", FALSE, 0,
                                BPW_WORKLOAD_MAX_LAYERS, &v->global_layers, error)
      || !_bpw_workload_read_index_list (doc, vision, path, "intermediate_layers", 0,
                                         v->layers, BPW_VISION_MAX_INTERMEDIATE,
                                         v->intermediate, &v->n_intermediate, error))
    return FALSE;
  v->norm = (BpwNormKind) norm;
  v->quick_gelu = activation == 1;
  v->keep_class = select == 1;
  v->projector = (BpwProjectorKind) projector;
  return TRUE;
}

static gboolean
bpw_workload_read_dtypes (BpwJsonDoc   *doc,
                          JsonObject   *model,
                          const char   *model_path,
                          BpwModelSpec *spec,
                          GPtrArray    *warnings,
                          GError      **error)
{
  g_autofree char *path = NULL;
  JsonObject *dtypes = NULL;

  if (!bpw_json_doc_get_section (doc, model, model_path, "dtypes", native_dtype_keys, warnings,
                                 &dtypes, &path, error))
    return FALSE;
  if (dtypes == NULL)
    return TRUE;
  return bpw_workload_get_dtype (doc, dtypes, path, "param", &spec->param_dtype, error)
         && bpw_workload_get_dtype (doc, dtypes, path, "activation", &spec->activation_dtype,
                                    error)
         && bpw_workload_get_dtype (doc, dtypes, path, "gradient", &spec->gradient_dtype, error)
         && bpw_workload_get_dtype (doc, dtypes, path, "optimizer", &spec->optimizer_dtype,
                                    error)
         && bpw_workload_get_dtype (doc, dtypes, path, "master", &spec->master_dtype, error);
}

#define GET_INT(member, required, min, max, field) \
  bpw_json_doc_get_int (doc, object, path, member, required, min, max, &spec->field, error)
#define GET_BOOL(member, field) \
  bpw_json_doc_get_bool (doc, object, path, member, FALSE, &spec->field, error)

gboolean
bpw_workload_read_model_object (BpwJsonDoc   *doc,
                                JsonObject   *object,
                                const char   *path,
                                BpwModelSpec *spec,
                                GPtrArray    *warnings,
                                GError      **error)
{
  const char *name = NULL;
  int ffn_kind = spec->ffn_kind;
  int norm = spec->norm;
  int positions = spec->positions;
  int optimizer = spec->optimizer;

  g_return_val_if_fail (doc != NULL && object != NULL && spec != NULL, FALSE);

  _bpw_workload_check_unknown (doc, object, path, native_model_keys, warnings);

  if (!bpw_json_doc_get_string (doc, object, path, "name", FALSE, &name, error)
      || !GET_INT ("vocab", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, vocab)
      || !GET_INT ("hidden", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, hidden)
      || !GET_INT ("layers", TRUE, 1, BPW_WORKLOAD_MAX_LAYERS, layers)
      || !GET_INT ("heads", TRUE, 1, BPW_WORKLOAD_MAX_HEADS, heads)
      || !GET_INT ("ffn", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, ffn)
      || !bpw_json_doc_get_enum (doc, object, path, "ffn_kind", FALSE, ffn_kind_names,
                                 &ffn_kind, error)
      || !bpw_json_doc_get_enum (doc, object, path, "norm", FALSE, norm_names, &norm, error)
      || !bpw_json_doc_get_enum (doc, object, path, "positions", FALSE, position_names,
                                 &positions, error)
      || !GET_INT ("max_positions", positions == BPW_POSITION_LEARNED, 1,
                   BPW_WORKLOAD_MAX_WIDTH, max_positions)
      || !GET_BOOL ("tied_embeddings", tied_embeddings)
      || !GET_BOOL ("qkv_bias", qkv_bias)
      || !GET_BOOL ("linear_bias", linear_bias)
      || !GET_BOOL ("dropout", dropout)
      || !GET_INT ("sliding_window", FALSE, 0, BPW_WORKLOAD_MAX_WIDTH, window)
      || !GET_INT ("window_first_layer", FALSE, 0, BPW_WORKLOAD_MAX_LAYERS, window_first)
      || !GET_INT ("mtp_modules", FALSE, 0, BPW_WORKLOAD_MAX_LAYERS, mtp_modules)
      || !bpw_workload_read_mla (doc, object, path, spec, warnings, error)
      || !bpw_workload_read_moe (doc, object, path, spec, warnings, error)
      || !bpw_workload_read_vision (doc, object, path, spec, warnings, error)
      || !GET_INT ("embedding_extra", FALSE, 0, BPW_WORKLOAD_MAX_WIDTH, embedding_extra)
      || !_bpw_workload_read_index_list (doc, object, path, "cross_attention_layers", 0,
                                         spec->layers - 1, BPW_MODEL_MAX_CROSS_LAYERS,
                                         spec->cross_layers, &spec->n_cross_layers, error)
      || !bpw_workload_read_dtypes (doc, object, path, spec, warnings, error)
      || !bpw_json_doc_get_enum (doc, object, path, "optimizer", FALSE, optimizer_names,
                                 &optimizer, error))
    return FALSE;

  spec->ffn_kind = (BpwFfnKind) ffn_kind;
  spec->norm = (BpwNormKind) norm;
  spec->positions = (BpwPositionKind) positions;
  spec->optimizer = (BpwOptimizerKind) optimizer;

  /* Unset means "as many KV heads as query heads" (plain multi-head attention). */
  spec->kv_heads = spec->heads;
  if (!GET_INT ("kv_heads", FALSE, 1, BPW_WORKLOAD_MAX_HEADS, kv_heads))
    return FALSE;
  if (json_object_has_member (object, "head_dim"))
    {
      if (!GET_INT ("head_dim", TRUE, 1, BPW_WORKLOAD_MAX_WIDTH, head_dim))
        return FALSE;
    }
  else if (spec->kv_lora_rank > 0)
    spec->head_dim = spec->qk_nope_head_dim + spec->qk_rope_head_dim;
  else if (!_bpw_workload_derive_head_dim (doc, object, path, "heads", spec, error))
    return FALSE;

  if (name != NULL)
    {
      g_free (spec->name);
      spec->name = g_strdup (name);
    }
  return _bpw_workload_validate_located (doc, object, path, NULL, spec, error);
}

#undef GET_INT
#undef GET_BOOL

static gboolean
bpw_workload_read_native (BpwJsonDoc   *doc,
                          JsonObject   *root,
                          BpwModelSpec *spec,
                          GPtrArray    *warnings,
                          JsonObject  **model_out,
                          GError      **error)
{
  gint64 version = 0;
  JsonObject *model;

  _bpw_workload_check_unknown (doc, root, "", native_root_keys, warnings);
  if (!bpw_json_doc_get_int (doc, root, "", "version", TRUE, 1, G_MAXINT32, &version, error))
    return FALSE;
  if (version > BPW_WORKLOAD_FORMAT_VERSION)
    return bpw_json_doc_error (doc, json_object_get_member (root, "version"), "version", error,
                               _("version %" PRId64 " is newer than this program "
                               "reads (%d); update Blueprint Workbench"),
                               version, BPW_WORKLOAD_FORMAT_VERSION);
  model = bpw_json_doc_get_object (doc, root, "", "model", TRUE, error);
  if (model == NULL)
    return FALSE;
  *model_out = model;
  return bpw_workload_read_model_object (doc, model, "model", spec, warnings, error);
}

BpwWorkloadFormat
bpw_workload_detect_format (JsonNode *root)
{
  JsonObject *object;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return BPW_WORKLOAD_FORMAT_UNKNOWN;
  object = json_node_get_object (root);
  if (json_object_has_member (object, "format"))
    {
      JsonNode *format = json_object_get_member (object, "format");

      if (JSON_NODE_HOLDS_VALUE (format)
          && json_node_get_value_type (format) == G_TYPE_STRING
          && g_strcmp0 (json_node_get_string (format), "bpw-workload") == 0)
        return BPW_WORKLOAD_FORMAT_NATIVE;
      return BPW_WORKLOAD_FORMAT_UNKNOWN;
    }
  if (json_object_has_member (object, "model_type")
      || json_object_has_member (object, "architectures"))
    return BPW_WORKLOAD_FORMAT_HF;
  if (json_object_has_member (object, "hidden")
      && json_object_has_member (object, "num_blocks")
      && json_object_has_member (object, "attn_heads"))
    return BPW_WORKLOAD_FORMAT_CALCULON;
  return BPW_WORKLOAD_FORMAT_UNKNOWN;
}

static gboolean
bpw_workload_load_doc (BpwJsonDoc   *doc,
                       gint64        vocab_override,
                       BpwModelSpec *spec,
                       BpwScenario  *scenario_hint,
                       GPtrArray    *warnings,
                       GError      **error)
{
  JsonNode *root = bpw_json_doc_get_root (doc);
  JsonObject *object = NULL;
  const char * const *key_map = NULL;
  const char *path = "";
  gboolean ok = FALSE;

  bpw_model_spec_clear (spec);
  bpw_model_spec_init_defaults (spec);
  spec->name = _bpw_workload_name_from_filename (bpw_json_doc_get_filename (doc));
  spec->source = g_strdup (bpw_json_doc_get_filename (doc));

  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    object = json_node_get_object (root);

  switch (bpw_workload_detect_format (root))
    {
    case BPW_WORKLOAD_FORMAT_NATIVE:
      ok = bpw_workload_read_native (doc, object, spec, warnings, &object, error);
      path = "model";
      break;
    case BPW_WORKLOAD_FORMAT_HF:
      ok = _bpw_workload_read_hf (doc, object, spec, &key_map, warnings, error);
      break;
    case BPW_WORKLOAD_FORMAT_CALCULON:
      ok = _bpw_workload_read_calculon (doc, object, spec, scenario_hint, &key_map, warnings,
                                        error);
      break;
    case BPW_WORKLOAD_FORMAT_UNKNOWN:
    default:
      if (object != NULL && json_object_has_member (object, "format"))
        {
          JsonNode *format = json_object_get_member (object, "format");
          const char *str = JSON_NODE_HOLDS_VALUE (format)
                            && json_node_get_value_type (format) == G_TYPE_STRING
                            ? json_node_get_string (format) : _("(not a string)");

          bpw_json_doc_error (doc, format, "format", error,
                              _("expected \"bpw-workload\", got \"%s\"; this is not a workload "
                              "file"), str);
        }
      else
        {
          bpw_json_doc_error (doc, root, "", error,
                              _("not a workload: expected a bpw-workload file, a Hugging Face "
                              "config.json or a Calculon model file"));
        }
      ok = FALSE;
      break;
    }

  /* The native reader validates on its own (inline study models need that); the importers
   * leave it to here, after the override, so that one validation sees the final spec. */
  if (ok && vocab_override > 0)
    spec->vocab = vocab_override;
  if (ok && (vocab_override > 0 || key_map != NULL))
    ok = _bpw_workload_validate_located (doc, object, path, key_map, spec, error);

  if (!ok)
    {
      bpw_model_spec_clear (spec);
      bpw_model_spec_init_defaults (spec);
    }
  return ok;
}

gboolean
bpw_workload_load_data (const char   *filename,
                        const char   *data,
                        gssize        length,
                        gint64        vocab_override,
                        BpwModelSpec *spec,
                        BpwScenario  *scenario_hint,
                        GPtrArray    *warnings,
                        GError      **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;

  g_return_val_if_fail (filename != NULL && data != NULL && spec != NULL, FALSE);

  doc = bpw_json_doc_new_from_data (filename, data, length, error);
  if (doc == NULL)
    return FALSE;
  return bpw_workload_load_doc (doc, vocab_override, spec, scenario_hint, warnings, error);
}

gboolean
bpw_workload_load_with_warnings (const char   *path_or_name,
                                 gint64        vocab_override,
                                 BpwModelSpec *spec,
                                 BpwScenario  *scenario_hint,
                                 GPtrArray    *warnings,
                                 GError      **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;

  g_return_val_if_fail (path_or_name != NULL && spec != NULL, FALSE);

  /* A file of that name wins: a user who has "llama3-8b" in the current directory means it. */
  if (!g_file_test (path_or_name, G_FILE_TEST_EXISTS))
    {
      bpw_model_spec_clear (spec);
      bpw_model_spec_init_defaults (spec);
      if (bpw_model_spec_lookup_bundled (path_or_name, spec))
        {
          if (vocab_override > 0)
            {
              spec->vocab = vocab_override;
              if (!bpw_model_spec_validate (spec, error))
                {
                  g_prefix_error (error, "%s: ", path_or_name);
                  bpw_model_spec_clear (spec);
                  bpw_model_spec_init_defaults (spec);
                  return FALSE;
                }
            }
          return TRUE;
        }
      if (strchr (path_or_name, '/') == NULL && !g_str_has_suffix (path_or_name, ".json"))
        {
          g_autofree char *known = g_strjoinv (", ", (char **) bpw_model_spec_bundled_names ());

          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("%s: no such file and no bundled model of that name (bundled: %s)"),
                       path_or_name, known);
          return FALSE;
        }
    }

  doc = bpw_json_doc_new_from_file (path_or_name, error);
  if (doc == NULL)
    return FALSE;
  return bpw_workload_load_doc (doc, vocab_override, spec, scenario_hint, warnings, error);
}

gboolean
bpw_workload_load_full (const char   *path_or_name,
                        gint64        vocab_override,
                        BpwModelSpec *spec,
                        BpwScenario  *scenario_hint,
                        GError      **error)
{
  return bpw_workload_load_with_warnings (path_or_name, vocab_override, spec, scenario_hint,
                                          NULL, error);
}

gboolean
bpw_workload_load (const char   *path_or_name,
                   BpwModelSpec *spec,
                   GError      **error)
{
  return bpw_workload_load_with_warnings (path_or_name, 0, spec, NULL, NULL, error);
}
