/* bpw-cli-facts.c — `bpw facts MODEL [options] [--json]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-facts"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <stdio.h>

#include "bpw-cli-format.h"
#include "bpw-cli-options.h"
#include "bpw-error.h"
#include "bpw-facts.h"
#include "bpw-workload-io.h"

static const char * const bpw_cli_facts_phase_labels[BPW_N_PHASES] = {
  [BPW_PHASE_FORWARD] = "forward",
  [BPW_PHASE_RECOMPUTE] = "recompute",
  [BPW_PHASE_BACKWARD_ACTIVATION] = "backward, activations",
  [BPW_PHASE_BACKWARD_WEIGHT] = "backward, weights",
  [BPW_PHASE_OPTIMIZER] = "optimizer",
};

static void
bpw_cli_facts_row_si (GString    *out,
                      guint       indent,
                      const char *label,
                      BpwU128     value,
                      const char *unit)
{
  g_autofree char *human = bpw_cli_format_si (value, unit);
  g_autofree char *exact = bpw_cli_format_exact (value);

  bpw_cli_format_row (out, indent, label, human, exact);
}

static void
bpw_cli_facts_row_gib (GString    *out,
                       const char *label,
                       BpwU128     value)
{
  g_autofree char *human = bpw_cli_format_gib (value);
  g_autofree char *exact = bpw_cli_format_exact (value);
  g_autofree char *with_unit = g_strdup_printf ("%s B", exact);

  bpw_cli_format_row (out, 2, label, human, with_unit);
}

static void
bpw_cli_facts_row_bytes (GString    *out,
                         const char *label,
                         BpwU128     value)
{
  g_autofree char *human = bpw_cli_format_bytes (value);
  g_autofree char *exact = bpw_cli_format_exact (value);
  g_autofree char *with_unit = g_strdup_printf ("%s B", exact);

  bpw_cli_format_row (out, 2, label, human, with_unit);
}

static void
bpw_cli_facts_describe_setup (GString            *out,
                              const BpwModelSpec *spec,
                              const BpwScenario  *scenario,
                              const BpwParallel  *parallel)
{
  BpwOptimizerKind optimizer = scenario->optimizer_set ? scenario->optimizer : spec->optimizer;
  g_autofree char *window = NULL;

  g_string_append_printf (out, "%-30s %s%s%s%s\n", "Model", spec->name,
                          spec->source != NULL ? " (" : "",
                          spec->source != NULL ? spec->source : "",
                          spec->source != NULL ? ")" : "");
  g_string_append_printf (out, "%-30s %" G_GINT64_FORMAT " layers, hidden %" G_GINT64_FORMAT
                          ", %" G_GINT64_FORMAT " heads (%" G_GINT64_FORMAT " kv, dim %"
                          G_GINT64_FORMAT "), ffn %" G_GINT64_FORMAT " %s, vocab %"
                          G_GINT64_FORMAT "\n", "", spec->layers, spec->hidden, spec->heads,
                          spec->kv_heads, spec->head_dim, spec->ffn,
                          spec->ffn_kind == BPW_FFN_SWIGLU ? "swiglu" : "gelu", spec->vocab);
  window = bpw_model_spec_describe_window (spec);
  if (window != NULL)
    g_string_append_printf (out, "%-30s %s\n", "", window);
  if (spec->experts > 0)
    g_string_append_printf (out, "%-30s %" G_GINT64_FORMAT " experts, top-%" G_GINT64_FORMAT
                            ", expert ffn %" G_GINT64_FORMAT "\n", "", spec->experts,
                            spec->top_k, bpw_model_spec_expert_ffn (spec));
  if (spec->experts > 0 && (spec->shared_experts > 0 || spec->moe_first > 0 ||
                            spec->expert_groups > 0 || spec->router_bias))
    g_string_append_printf (out, "%-30s %" G_GINT64_FORMAT " shared, MoE from layer %"
                            G_GINT64_FORMAT " every %" G_GINT64_FORMAT ", top %"
                            G_GINT64_FORMAT " of %" G_GINT64_FORMAT " groups%s\n", "",
                            spec->shared_experts, spec->moe_first, spec->moe_every,
                            spec->topk_groups, spec->expert_groups,
                            spec->router_bias ? ", balancing bias" : "");
  if (bpw_model_spec_is_mla (spec))
    g_string_append_printf (out, "%-30s latent attention: q rank %" G_GINT64_FORMAT
                            ", kv rank %" G_GINT64_FORMAT ", nope %" G_GINT64_FORMAT
                            ", rope %" G_GINT64_FORMAT ", v %" G_GINT64_FORMAT
                            "; cache %" G_GUINT64_FORMAT " elements per layer and token;"
                            " decode absorbed\n", "", spec->q_lora_rank, spec->kv_lora_rank,
                            spec->qk_nope_head_dim, spec->qk_rope_head_dim, spec->v_head_dim,
                            bpw_model_spec_kv_elements (spec));

  g_string_append_printf (out, "%-30s %s, global batch %" G_GINT64_FORMAT ", micro-batch %"
                          G_GINT64_FORMAT, "Scenario",
                          bpw_workload_phase_to_string (scenario->phase),
                          scenario->global_batch, scenario->micro_batch);
  /* A decode step reads the cache and adds one token per sequence; seq plays no part. */
  if (scenario->phase == BPW_WORKLOAD_DECODE)
    g_string_append_printf (out, ", context %" G_GINT64_FORMAT " + 1 new token",
                            scenario->context);
  else
    g_string_append_printf (out, ", seq %" G_GINT64_FORMAT, scenario->seq);
  g_string_append_printf (out, ", recompute %s, %s, %s\n",
                          bpw_recompute_to_string (scenario->recompute),
                          bpw_dtype_to_string (scenario->dtype),
                          bpw_optimizer_to_string (optimizer));

  g_string_append_printf (out, "%-30s tp %" G_GINT64_FORMAT, "Parallel", parallel->tp);
  /* Context parallelism only when used, so that other reports read as before. */
  if (parallel->cp != 1)
    g_string_append_printf (out, " \xc3\x97 cp %" G_GINT64_FORMAT " (%s)", parallel->cp,
                            bpw_cp_algorithm_to_string (parallel->cp_algorithm));
  g_string_append_printf (out, " \xc3\x97 pp %" G_GINT64_FORMAT
                          " \xc3\x97 dp %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT
                          " device%s; ep %" G_GINT64_FORMAT ", sp %s, zero %d, %s",
                          parallel->pp, parallel->dp, bpw_parallel_devices (parallel),
                          bpw_parallel_devices (parallel) == 1 ? "" : "s", parallel->ep,
                          parallel->sp ? "on" : "off", parallel->zero,
                          bpw_schedule_to_string (parallel->schedule));
  if (parallel->schedule == BPW_SCHEDULE_INTERLEAVED)
    g_string_append_printf (out, " \xc3\x97 %" G_GINT64_FORMAT, parallel->interleave);
  g_string_append_c (out, '\n');
}

static void
bpw_cli_facts_describe_conservation (GString               *out,
                                     const BpwConservation *c)
{
  if (!c->ok)
    {
      g_string_append_printf (out, "%-30s FAILED: %s\n", "Conservation",
                              c->message != NULL ? c->message
                                                 : "distributed work does not reconcile");
      return;
    }

  g_string_append_printf (out, "%-30s ok: the ranks' work sums to the model's work plus "
                          "the named additions\n", "Conservation");
  for (int i = 0; i < BPW_N_ADDITIONS; i++)
    {
      const BpwAdditionTotal *a = &c->additions[i];
      g_autofree char *label = NULL;
      g_autofree char *bytes = NULL;

      if (i == BPW_ADDITION_NONE || (a->flops == 0 && a->bytes == 0))
        continue;
      label = g_strdup_printf ("+ %s", bpw_addition_to_string ((BpwAddition) i));
      bpw_cli_facts_row_si (out, 2, label, a->flops, "FLOP");
      bytes = bpw_cli_format_bytes (a->bytes);
      g_string_append_printf (out, "%32s%s; %s moved\n", "",
                              bpw_addition_describe ((BpwAddition) i), bytes);
    }
}

static char *
bpw_cli_facts_to_text (const BpwFacts     *facts,
                       const BpwModelSpec *spec,
                       const BpwScenario  *scenario,
                       const BpwParallel  *parallel)
{
  GString *out = g_string_new (NULL);
  const BpwRankMemory *m = &facts->memory;
  BpwU128 total = (BpwU128) m->weights + m->gradients + m->optimizer_state + m->activations
                  + m->kv_cache;
  g_autofree char *micro = g_strdup_printf ("%" G_GINT64_FORMAT, facts->micro_batches);

  bpw_cli_facts_describe_setup (out, spec, scenario, parallel);
  g_string_append_c (out, '\n');

  bpw_cli_facts_row_si (out, 0, "Parameters", facts->parameters, "");
  if (facts->active_parameters != facts->parameters)
    bpw_cli_facts_row_si (out, 0, "Active parameters", facts->active_parameters, "");
  if (spec->mtp_modules > 0)
    bpw_cli_facts_row_si (out, 0, "MTP parameters (apart)", facts->mtp_parameters, "");
  if (bpw_model_spec_has_vision (spec))
    {
      bpw_cli_facts_row_si (out, 0, "Vision tower parameters", facts->vision_parameters, "");
      bpw_cli_facts_row_si (out, 0, "Projector parameters", facts->projector_parameters, "");
      /* Decode encodes no image: the figure is the prefill's and training's. */
      if (scenario->phase != BPW_WORKLOAD_DECODE)
        bpw_cli_facts_row_si (out, 0, "Vision FLOPs per image (forward)",
                              facts->vision_flops_per_image, "FLOP");
    }
  if (bpw_model_spec_has_cross_attention (spec))
    {
      g_autoptr(GString) layers = g_string_new (NULL);

      for (gint64 i = 0; i < spec->n_cross_layers; i++)
        g_string_append_printf (layers, "%s%d", i > 0 ? ", " : "", spec->cross_layers[i]);
      g_string_append_printf (layers, " (%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT ")",
                              spec->n_cross_layers, spec->layers);
      bpw_cli_format_row (out, 0, "Cross-attention layers", layers->str, NULL);
      bpw_cli_facts_row_si (out, 0, "Cross-attended image tokens",
                            (BpwU128) bpw_model_spec_cross_tokens (spec), "");
    }
  bpw_cli_facts_row_si (out, 0, "Tokens per step", facts->tokens_per_step, "");
  bpw_cli_format_row (out, 0, "Micro-batches per pipeline", micro, NULL);
  g_string_append_c (out, '\n');

  g_string_append (out, "FLOPs per step, whole job\n");
  bpw_cli_facts_row_si (out, 2, "model (MFU numerator)", facts->flops_model, "FLOP");
  bpw_cli_facts_row_si (out, 2, "hardware (executed)", facts->flops_hardware, "FLOP");
  bpw_cli_facts_row_si (out, 2, "semantic", facts->flops_semantic, "FLOP");
  for (int phase = 0; phase < BPW_N_PHASES; phase++)
    bpw_cli_facts_row_si (out, 4, bpw_cli_facts_phase_labels[phase],
                          facts->flops_by_phase[phase], "FLOP");
  g_string_append (out, "  (model: Megatron/PaLM convention, matmuls of forward and backward, "
                        "full attention matrix,\n   logits included, no recompute)\n");
  g_string_append_c (out, '\n');

  g_string_append_printf (out, "Memory per device (pipeline stage %" G_GINT64_FORMAT " of %"
                          G_GINT64_FORMAT ", the most loaded)\n",
                          facts->memory_stage, parallel->pp);
  bpw_cli_facts_row_gib (out, "weights", m->weights);
  bpw_cli_facts_row_gib (out, "gradients", m->gradients);
  bpw_cli_facts_row_gib (out, "optimizer state", m->optimizer_state);
  bpw_cli_facts_row_gib (out, "activations", m->activations);
  bpw_cli_facts_row_gib (out, "KV cache", m->kv_cache);
  bpw_cli_facts_row_gib (out, "total", total);
  bpw_cli_facts_row_bytes (out, "activations per layer", facts->activation_per_layer);
  bpw_cli_facts_row_bytes (out, "KV cache per token", facts->kv_bytes_per_token);
  bpw_cli_facts_row_bytes (out, "KV cache per sequence", facts->kv_bytes_per_sequence);
  if (facts->image_kv_bytes_per_sequence > 0)
    bpw_cli_facts_row_bytes (out, "  of it, the images' cross-attention K/V",
                             facts->image_kv_bytes_per_sequence);
  g_string_append_c (out, '\n');

  bpw_cli_facts_describe_conservation (out, &facts->conservation);
  return g_string_free (out, FALSE);
}

static int
bpw_cli_facts_run (const char          *model,
                   const BpwCliOptions *options,
                   gboolean             json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;
  BpwModelSpec spec;
  BpwScenario hint;
  BpwScenario scenario;
  BpwParallel parallel;
  BpwFacts facts = { 0 };
  int status = BPW_CLI_EXIT_OK;

  bpw_model_spec_init_defaults (&spec);
  bpw_scenario_init_defaults (&hint);
  bpw_scenario_init_defaults (&scenario);
  /* Fields the model file does not set stay 0 and are not hints. */
  hint.seq = 0;
  hint.global_batch = 0;
  hint.micro_batch = 0;

  if (!bpw_workload_load_with_warnings (model, bpw_cli_options_vocab (options), &spec, &hint,
                                        warnings, &error) ||
      !bpw_cli_options_resolve (options, &spec, &hint, &scenario, &parallel, warnings, &error))
    {
      status = bpw_cli_report_error ("facts", error);
      goto out;
    }
  /* Unknown fields do not stop the run, but they are usually typos. */
  for (guint i = 0; i < warnings->len; i++)
    bpw_cli_print (stderr, "bpw: warning: %s\n",
                   (const char *) g_ptr_array_index (warnings, i));

  if (!bpw_scenario_validate (&scenario, &parallel, &spec, &error) ||
      !bpw_facts_compute (&spec, &scenario, &parallel, &facts, &error))
    {
      status = bpw_cli_report_error ("facts", error);
      goto out;
    }

  if (json)
    text = bpw_facts_to_json (&facts, &spec, &scenario, &parallel);
  else
    text = bpw_cli_facts_to_text (&facts, &spec, &scenario, &parallel);
  bpw_cli_print (stdout, "%s", text);

  /* The facts are still printed (they show what did not add up), but a plan whose totals
   * do not reconcile is a bug in the workbench, never a result. */
  if (!facts.conservation.ok)
    {
      g_printerr ("bpw: internal error: distributed work does not reconcile with the work "
                  "graph (%s); please report this\n",
                  facts.conservation.message != NULL ? facts.conservation.message : "no detail");
      status = BPW_CLI_EXIT_INVALID_INPUT;
    }

out:
  bpw_facts_clear (&facts);
  bpw_scenario_clear (&scenario);
  bpw_scenario_clear (&hint);
  bpw_model_spec_clear (&spec);
  return status;
}

int
bpw_cli_facts (int    argc,
               char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  BpwCliOptions options;
  gboolean json = FALSE;
  int status;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print the facts as JSON (keys of the bpw facts contract)", NULL },
    G_OPTION_ENTRY_NULL
  };

  bpw_cli_options_init (&options);
  g_set_prgname ("bpw facts");
  context = g_option_context_new ("MODEL");
  g_option_context_set_summary (context,
                                "Exact parameters, FLOPs by phase, memory per device and the "
                                "conservation check of one\nscenario under one parallel "
                                "decomposition. MODEL is a bundled name, a native workload\n"
                                "file, a Hugging Face config.json or a Calculon model file.");
  g_option_context_set_description (context, bpw_cli_options_defaults_help ());
  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_options_add (&options, context);

  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("facts", error);
  else if (argc < 2)
    status = bpw_cli_usage ("facts", "facts: missing MODEL");
  else if (argc > 2)
    status = bpw_cli_usage ("facts", "facts: expected one MODEL, got also '%s'", argv[2]);
  else
    status = bpw_cli_facts_run (argv[1], &options, json);

  bpw_cli_options_clear (&options);
  return status;
}
