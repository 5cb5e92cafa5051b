/* bpw-facts-json.c — the `bpw facts --json` rendering of BpwFacts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-facts-json"

#include "config.h"

#include "bpw-facts.h"
#include "bpw-json-writer.h"

/* The keys below are a contract (DESIGN.md, "The `bpw` command line"): snake_case, SI units
 * (FLOPs, bytes), integers wherever the value is exact. Scripts rely on them, so rename
 * nothing; add keys instead. */

#define BPW_FACTS_MODEL_CONVENTION \
  "Megatron/PaLM: matmul FLOPs of forward and backward, full attention matrix, " \
  "logits included, no recompute"

static const char *
bpw_facts_json_ffn_kind (BpwFfnKind kind)
{
  switch (kind)
    {
    case BPW_FFN_GELU:
      return "gelu";
    case BPW_FFN_SWIGLU:
      return "swiglu";
    default:
      return "unknown";
    }
}

static const char *
bpw_facts_json_norm (BpwNormKind norm)
{
  switch (norm)
    {
    case BPW_NORM_LAYERNORM:
      return "layernorm";
    case BPW_NORM_RMSNORM:
      return "rmsnorm";
    default:
      return "unknown";
    }
}

static const char *
bpw_facts_json_positions (BpwPositionKind positions)
{
  switch (positions)
    {
    case BPW_POSITION_LEARNED:
      return "learned";
    case BPW_POSITION_ROTARY:
      return "rotary";
    default:
      return "unknown";
    }
}

static void
bpw_facts_json_model (BpwJsonWriter      *w,
                      const BpwModelSpec *spec)
{
  bpw_json_writer_begin_object (w, "model");
  bpw_json_writer_string (w, "name", spec->name);
  if (spec->source != NULL)
    bpw_json_writer_string (w, "source", spec->source);
  bpw_json_writer_int (w, "vocab", spec->vocab);
  bpw_json_writer_int (w, "hidden", spec->hidden);
  bpw_json_writer_int (w, "layers", spec->layers);
  bpw_json_writer_int (w, "heads", spec->heads);
  bpw_json_writer_int (w, "kv_heads", spec->kv_heads);
  bpw_json_writer_int (w, "head_dim", spec->head_dim);
  bpw_json_writer_int (w, "ffn", spec->ffn);
  bpw_json_writer_string (w, "ffn_kind", bpw_facts_json_ffn_kind (spec->ffn_kind));
  bpw_json_writer_string (w, "norm", bpw_facts_json_norm (spec->norm));
  bpw_json_writer_string (w, "positions", bpw_facts_json_positions (spec->positions));
  if (spec->positions == BPW_POSITION_LEARNED)
    bpw_json_writer_int (w, "max_positions", spec->max_positions);
  bpw_json_writer_bool (w, "tied_embeddings", spec->tied_embeddings);
  bpw_json_writer_bool (w, "qkv_bias", spec->qkv_bias);
  bpw_json_writer_bool (w, "linear_bias", spec->linear_bias);
  bpw_json_writer_bool (w, "dropout", spec->dropout);
  if (bpw_model_spec_window_layers (spec) > 0)
    {
      bpw_json_writer_int (w, "sliding_window", spec->window);
      bpw_json_writer_int (w, "window_first_layer", spec->window_first);
      bpw_json_writer_int (w, "window_layers", bpw_model_spec_window_layers (spec));
    }
  if (bpw_model_spec_is_mla (spec))
    {
      bpw_json_writer_begin_object (w, "mla");
      bpw_json_writer_int (w, "q_lora_rank", spec->q_lora_rank);
      bpw_json_writer_int (w, "kv_lora_rank", spec->kv_lora_rank);
      bpw_json_writer_int (w, "qk_nope_head_dim", spec->qk_nope_head_dim);
      bpw_json_writer_int (w, "qk_rope_head_dim", spec->qk_rope_head_dim);
      bpw_json_writer_int (w, "v_head_dim", spec->v_head_dim);
      bpw_json_writer_string (w, "decode", "absorbed");
      bpw_json_writer_end_object (w);
    }
  if (spec->mtp_modules > 0)
    bpw_json_writer_int (w, "mtp_modules", spec->mtp_modules);
  if (spec->experts > 0)
    {
      bpw_json_writer_begin_object (w, "moe");
      bpw_json_writer_int (w, "experts", spec->experts);
      bpw_json_writer_int (w, "top_k", spec->top_k);
      bpw_json_writer_int (w, "shared_experts", spec->shared_experts);
      bpw_json_writer_int (w, "expert_ffn", bpw_model_spec_expert_ffn (spec));
      bpw_json_writer_int (w, "every", spec->moe_every);
      bpw_json_writer_int (w, "first", spec->moe_first);
      bpw_json_writer_double (w, "capacity_factor", spec->capacity_factor);
      if (spec->expert_groups > 0)
        {
          bpw_json_writer_int (w, "groups", spec->expert_groups);
          bpw_json_writer_int (w, "topk_groups", spec->topk_groups);
        }
      if (spec->router_bias)
        bpw_json_writer_bool (w, "router_bias", TRUE);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_string (w, "param_dtype", bpw_dtype_to_string (spec->param_dtype));
  bpw_json_writer_string (w, "optimizer", bpw_optimizer_to_string (spec->optimizer));
  bpw_json_writer_end_object (w);
}

static void
bpw_facts_json_scenario (BpwJsonWriter      *w,
                         const BpwScenario  *scenario,
                         const BpwModelSpec *spec)
{
  BpwOptimizerKind optimizer = scenario->optimizer_set ? scenario->optimizer : spec->optimizer;

  bpw_json_writer_begin_object (w, "scenario");
  if (scenario->name != NULL)
    bpw_json_writer_string (w, "name", scenario->name);
  bpw_json_writer_string (w, "phase", bpw_workload_phase_to_string (scenario->phase));
  bpw_json_writer_int (w, "global_batch", scenario->global_batch);
  bpw_json_writer_int (w, "micro_batch", scenario->micro_batch);
  bpw_json_writer_int (w, "seq", scenario->seq);
  if (scenario->phase == BPW_WORKLOAD_DECODE)
    bpw_json_writer_int (w, "context", scenario->context);
  bpw_json_writer_string (w, "recompute", bpw_recompute_to_string (scenario->recompute));
  bpw_json_writer_string (w, "dtype", bpw_dtype_to_string (scenario->dtype));
  bpw_json_writer_string (w, "kv_dtype", bpw_dtype_to_string (scenario->kv_dtype));
  bpw_json_writer_string (w, "optimizer", bpw_optimizer_to_string (optimizer));
  bpw_json_writer_end_object (w);
}

static void
bpw_facts_json_parallel (BpwJsonWriter     *w,
                         const BpwParallel *parallel)
{
  bpw_json_writer_begin_object (w, "parallel");
  bpw_json_writer_int (w, "tp", parallel->tp);
  bpw_json_writer_int (w, "pp", parallel->pp);
  bpw_json_writer_int (w, "dp", parallel->dp);
  bpw_json_writer_int (w, "ep", parallel->ep);
  bpw_json_writer_bool (w, "sp", parallel->sp);
  bpw_json_writer_int (w, "zero", parallel->zero);
  bpw_json_writer_string (w, "schedule", bpw_schedule_to_string (parallel->schedule));
  bpw_json_writer_int (w, "interleave", parallel->interleave);
  /* Context parallelism only when used, so that other facts read as before. */
  if (parallel->cp != 1)
    {
      bpw_json_writer_int (w, "cp", parallel->cp);
      bpw_json_writer_string (w, "cp_algorithm", bpw_cp_algorithm_to_string (parallel->cp_algorithm));
    }
  bpw_json_writer_int (w, "devices", bpw_parallel_devices (parallel));
  bpw_json_writer_end_object (w);
}

static void
bpw_facts_json_flops (BpwJsonWriter  *w,
                      const BpwFacts *facts)
{
  bpw_json_writer_begin_object (w, "flops");
  bpw_json_writer_u128 (w, "model", facts->flops_model);
  bpw_json_writer_string (w, "model_convention", BPW_FACTS_MODEL_CONVENTION);
  bpw_json_writer_u128 (w, "hardware", facts->flops_hardware);
  bpw_json_writer_u128 (w, "semantic", facts->flops_semantic);
  bpw_json_writer_begin_object (w, "by_phase");
  for (int phase = 0; phase < BPW_N_PHASES; phase++)
    bpw_json_writer_u128 (w, bpw_phase_to_string ((BpwPhase) phase),
                          facts->flops_by_phase[phase]);
  bpw_json_writer_end_object (w);
  bpw_json_writer_end_object (w);
}

static void
bpw_facts_json_memory (BpwJsonWriter  *w,
                       const BpwFacts *facts)
{
  const BpwRankMemory *m = &facts->memory;
  /* Five guint64 terms cannot overflow 128 bits. */
  BpwU128 total = (BpwU128) m->weights + m->gradients + m->optimizer_state
                  + m->activations + m->kv_cache;

  bpw_json_writer_begin_object (w, "memory");
  bpw_json_writer_begin_object (w, "per_device");
  bpw_json_writer_u128 (w, "weights", m->weights);
  bpw_json_writer_u128 (w, "gradients", m->gradients);
  bpw_json_writer_u128 (w, "optimizer_state", m->optimizer_state);
  bpw_json_writer_u128 (w, "activations", m->activations);
  bpw_json_writer_u128 (w, "kv_cache", m->kv_cache);
  bpw_json_writer_u128 (w, "total", total);
  bpw_json_writer_end_object (w);
  bpw_json_writer_int (w, "stage", facts->memory_stage);
  bpw_json_writer_u128 (w, "parameters_on_device", m->parameters);
  bpw_json_writer_int (w, "micro_batches_in_flight", m->in_flight);
  bpw_json_writer_u128 (w, "activation_per_layer", facts->activation_per_layer);
  bpw_json_writer_end_object (w);
}

static void
bpw_facts_json_conservation (BpwJsonWriter         *w,
                             const BpwConservation *c)
{
  bpw_json_writer_begin_object (w, "conservation");
  bpw_json_writer_bool (w, "ok", c->ok);
  bpw_json_writer_u128 (w, "semantic_flops", c->semantic_flops);
  bpw_json_writer_u128 (w, "graph_flops", c->graph_flops);
  bpw_json_writer_u128 (w, "distributed_flops", c->distributed_flops);
  bpw_json_writer_u128 (w, "graph_bytes", c->graph_bytes);
  bpw_json_writer_u128 (w, "distributed_bytes", c->distributed_bytes);

  /* Only additions that this plan actually has: an empty list means the distributed work
   * equals the model's mathematics exactly. */
  bpw_json_writer_begin_array (w, "additions");
  for (int i = 0; i < BPW_N_ADDITIONS; i++)
    {
      const BpwAdditionTotal *a = &c->additions[i];
      BpwAddition which = (BpwAddition) i;

      if (which == BPW_ADDITION_NONE || (a->flops == 0 && a->bytes == 0))
        continue;
      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "name", bpw_addition_to_string (which));
      bpw_json_writer_string (w, "description", bpw_addition_describe (which));
      bpw_json_writer_u128 (w, "flops", a->flops);
      bpw_json_writer_u128 (w, "bytes", a->bytes);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);

  bpw_json_writer_int (w, "mismatched_ops", c->n_mismatched_ops);
  if (!c->ok)
    {
      if (c->first_mismatch >= 0)
        bpw_json_writer_int (w, "first_mismatch", c->first_mismatch);
      bpw_json_writer_string (w, "message",
                              c->message != NULL ? c->message
                                                 : "distributed work does not reconcile");
    }
  bpw_json_writer_end_object (w);
}

char *
bpw_facts_to_json (const BpwFacts     *facts,
                   const BpwModelSpec *spec,
                   const BpwScenario  *scenario,
                   const BpwParallel  *parallel)
{
  BpwJsonWriter w;

  g_return_val_if_fail (facts != NULL, NULL);
  g_return_val_if_fail (spec != NULL, NULL);
  g_return_val_if_fail (scenario != NULL, NULL);
  g_return_val_if_fail (parallel != NULL, NULL);

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);

  bpw_facts_json_model (&w, spec);
  bpw_facts_json_scenario (&w, scenario, spec);
  bpw_facts_json_parallel (&w, parallel);

  bpw_json_writer_u128 (&w, "parameters", facts->parameters);
  bpw_json_writer_u128 (&w, "active_parameters", facts->active_parameters);
  if (spec->mtp_modules > 0)
    bpw_json_writer_u128 (&w, "mtp_parameters", facts->mtp_parameters);
  if (bpw_model_spec_has_vision (spec))
    {
      bpw_json_writer_u128 (&w, "vision_parameters", facts->vision_parameters);
      bpw_json_writer_u128 (&w, "projector_parameters", facts->projector_parameters);
      bpw_json_writer_int (&w, "images_per_sequence", bpw_scenario_images (scenario, spec));
      bpw_json_writer_int (&w, "image_tokens", bpw_model_spec_image_tokens (spec));
      bpw_json_writer_u128 (&w, "vision_flops_per_image", facts->vision_flops_per_image);
    }
  if (bpw_model_spec_has_cross_attention (spec))
    {
      bpw_json_writer_begin_array (&w, "cross_attention_layers");
      for (gint64 i = 0; i < spec->n_cross_layers; i++)
        bpw_json_writer_int (&w, NULL, spec->cross_layers[i]);
      bpw_json_writer_end_array (&w);
      bpw_json_writer_int (&w, "cross_attention_tokens_per_image",
                           bpw_model_spec_cross_tokens (spec));
    }
  bpw_json_writer_u128 (&w, "tokens_per_step", facts->tokens_per_step);
  bpw_json_writer_int (&w, "micro_batches", facts->micro_batches);

  bpw_facts_json_flops (&w, facts);
  bpw_facts_json_memory (&w, facts);
  bpw_json_writer_u128 (&w, "kv_elements_per_layer_token", bpw_model_spec_kv_elements (spec));
  bpw_json_writer_u128 (&w, "kv_bytes_per_token", facts->kv_bytes_per_token);
  bpw_json_writer_u128 (&w, "kv_bytes_per_sequence", facts->kv_bytes_per_sequence);
  if (bpw_model_spec_has_cross_attention (spec))
    bpw_json_writer_u128 (&w, "image_kv_bytes_per_sequence", facts->image_kv_bytes_per_sequence);
  bpw_facts_json_conservation (&w, &facts->conservation);

  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
