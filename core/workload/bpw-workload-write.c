/* bpw-workload-write.c — writing the native workload format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-workload-write"

#include "config.h"

#include "bpw-workload-io.h"

#include "bpw-json-dump-private.h"

/* Every field is written, defaults included, so that a file says everything the model
 * of work uses and reads back to the same spec. */
JsonNode *
bpw_workload_model_to_node (const BpwModelSpec *spec)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (spec != NULL, NULL);

#define INT(key, value) \
  G_STMT_START { json_builder_set_member_name (b, key); \
                 json_builder_add_int_value (b, value); } G_STMT_END
#define BOOL(key, value) \
  G_STMT_START { json_builder_set_member_name (b, key); \
                 json_builder_add_boolean_value (b, value); } G_STMT_END
#define STR(key, value) \
  G_STMT_START { json_builder_set_member_name (b, key); \
                 json_builder_add_string_value (b, value); } G_STMT_END

  json_builder_begin_object (b);
  STR ("name", spec->name != NULL ? spec->name : "model");
  INT ("vocab", spec->vocab);
  INT ("hidden", spec->hidden);
  INT ("layers", spec->layers);
  INT ("heads", spec->heads);
  INT ("kv_heads", spec->kv_heads);
  INT ("head_dim", spec->head_dim);
  INT ("ffn", spec->ffn);
  /* Rotary models need no position table and may have none (0), which the reader, asking
   * for a positive size, would refuse: such a file states no size at all. */
  if (spec->max_positions > 0)
    INT ("max_positions", spec->max_positions);
  STR ("ffn_kind", spec->ffn_kind == BPW_FFN_SWIGLU ? "swiglu" : "gelu");
  STR ("norm", spec->norm == BPW_NORM_RMSNORM ? "rmsnorm" : "layernorm");
  STR ("positions", spec->positions == BPW_POSITION_ROTARY ? "rotary" : "learned");
  BOOL ("tied_embeddings", spec->tied_embeddings);
  BOOL ("qkv_bias", spec->qkv_bias);
  BOOL ("linear_bias", spec->linear_bias);
  BOOL ("dropout", spec->dropout);
  /* Full attention states no window, so files of models without one read as before. */
  if (spec->window > 0)
    {
      INT ("sliding_window", spec->window);
      if (spec->window_first > 0)
        INT ("window_first_layer", spec->window_first);
    }
  if (spec->kv_lora_rank > 0)
    {
      json_builder_set_member_name (b, "mla");
      json_builder_begin_object (b);
      INT ("q_lora_rank", spec->q_lora_rank);
      INT ("kv_lora_rank", spec->kv_lora_rank);
      INT ("qk_nope_head_dim", spec->qk_nope_head_dim);
      INT ("qk_rope_head_dim", spec->qk_rope_head_dim);
      INT ("v_head_dim", spec->v_head_dim);
      json_builder_end_object (b);
    }
  if (spec->mtp_modules > 0)
    INT ("mtp_modules", spec->mtp_modules);
  if (spec->experts > 0)
    {
      json_builder_set_member_name (b, "moe");
      json_builder_begin_object (b);
      INT ("experts", spec->experts);
      INT ("top_k", spec->top_k);
      INT ("shared_experts", spec->shared_experts);
      INT ("ffn", spec->moe_ffn);
      INT ("every", spec->moe_every);
      INT ("first", spec->moe_first);
      json_builder_set_member_name (b, "capacity_factor");
      json_builder_add_double_value (b, spec->capacity_factor);
      if (spec->expert_groups > 0)
        {
          INT ("groups", spec->expert_groups);
          INT ("topk_groups", spec->topk_groups);
        }
      if (spec->router_bias)
        BOOL ("router_bias", TRUE);
      json_builder_end_object (b);
    }
  if (spec->vision.layers > 0)
    {
      const BpwVisionSpec *v = &spec->vision;

      json_builder_set_member_name (b, "vision");
      json_builder_begin_object (b);
      INT ("image_size", v->image_size);
      INT ("patch_size", v->patch_size);
      INT ("channels", v->channels);
      INT ("hidden", v->hidden);
      INT ("layers", v->layers);
      INT ("heads", v->heads);
      INT ("ffn", v->ffn);
      STR ("norm", v->norm == BPW_NORM_RMSNORM ? "rmsnorm" : "layernorm");
      STR ("activation", v->quick_gelu ? "quick_gelu" : "gelu");
      BOOL ("class_token", v->class_token);
      BOOL ("patch_bias", v->patch_bias);
      BOOL ("pre_norm", v->pre_norm);
      BOOL ("post_norm", v->post_norm);
      INT ("feature_layer", v->feature_layer);
      STR ("feature_select", v->keep_class ? "full" : "default");
      STR ("projector", v->projector == BPW_PROJECTOR_LINEAR ? "linear" : "mlp");
      if (v->tiles > 0)
        {
          INT ("tiles", v->tiles);
          INT ("aspect_ratios", v->aspect_ratios);
          INT ("global_layers", v->global_layers);
          json_builder_set_member_name (b, "intermediate_layers");
          json_builder_begin_array (b);
          for (gint64 i = 0; i < v->n_intermediate; i++)
            json_builder_add_int_value (b, v->intermediate[i]);
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
    }
  if (spec->n_cross_layers > 0)
    {
      json_builder_set_member_name (b, "cross_attention_layers");
      json_builder_begin_array (b);
      for (gint64 i = 0; i < spec->n_cross_layers; i++)
        json_builder_add_int_value (b, spec->cross_layers[i]);
      json_builder_end_array (b);
    }
  if (spec->embedding_extra > 0)
    INT ("embedding_extra", spec->embedding_extra);
  json_builder_set_member_name (b, "dtypes");
  json_builder_begin_object (b);
  STR ("param", bpw_dtype_to_string (spec->param_dtype));
  STR ("activation", bpw_dtype_to_string (spec->activation_dtype));
  STR ("gradient", bpw_dtype_to_string (spec->gradient_dtype));
  STR ("optimizer", bpw_dtype_to_string (spec->optimizer_dtype));
  STR ("master", bpw_dtype_to_string (spec->master_dtype));
  json_builder_end_object (b);
  STR ("optimizer", bpw_optimizer_to_string (spec->optimizer));
  json_builder_end_object (b);

#undef INT
#undef BOOL
#undef STR

  return json_builder_get_root (b);
}

char *
bpw_workload_to_json (const BpwModelSpec *spec)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (spec != NULL, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "bpw-workload");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, BPW_WORKLOAD_FORMAT_VERSION);
  json_builder_set_member_name (b, "model");
  json_builder_add_value (b, bpw_workload_model_to_node (spec));
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return _bpw_json_dump (root);
}
