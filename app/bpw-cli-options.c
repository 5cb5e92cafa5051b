/* bpw-cli-options.c — scenario and parallel options shared by the `bpw` subcommands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-options"

#include "config.h"

#include "bpw-cli-options.h"

#include <string.h>

#include "bpw-cli.h"
#include "bpw-workload-io.h"

/* Longest sequence the default may take from a learned position table: beyond this a
 * table describes what the model can read, not what anyone trains it on. */
/* Micro-batches per pipeline per step when the global batch is not given and pp > 1: four
 * per stage keeps the 1F1B bubble at (pp - 1) / (5 pp - 1) < 20 % and is a multiple of pp,
 * as the interleaved schedule requires. */
#define BPW_CLI_MICRO_BATCHES_PER_STAGE 4

static const char bpw_cli_defaults_help[] =
  "Defaults when an option is not given (options override --execution, which overrides what\n"
  "the model file knows):\n"
  "  --phase train, --recompute none, --dtype bf16, the model's optimizer;\n"
  "  --micro-batch: 1 for train; for prefill and decode the whole per-replica batch\n"
  "    (global batch / dp) when pp is 1, and that batch / pp (pp micro-batches, the fewest\n"
  "    that fill the pipeline) when pp > 1 divides it, else 1 (as in studies);\n"
  "  --seq: the model file's sequence length (Calculon seq_size), else the model's learned\n"
  "    position table when it is at most 8192, else 2048;\n"
  "  --context (decode): the default --seq;\n"
  "  --images: 1 per sequence for a model with a vision encoder, else 0; --seq counts the\n"
  "    image tokens (576 per image for Llava-1.5) with the text, as Llava's training does;\n"
  "    the encoder stays frozen in training without --train-vision;\n"
  "  --global-batch: dp x micro-batch x m, with m = 4 x pp micro-batches per pipeline when\n"
  "    pp > 1 and m = 1 otherwise (micro-batch: the given one, else 1);\n"
  "  --tp/--pp/--dp/--ep/--cp 1, no --sp, --zero 0, --schedule 1f1b (interleaved when\n"
  "    --interleave N > 1 is given), --cp-algorithm ring;\n"
  "  --vocab: the model's (Calculon models have none: 51200).\n";

static const char bpw_cli_mapping_help[] =
  "Mapping defaults (options override --mapping, which overrides --execution):\n"
  "  --fusion: the blueprint's: its stack's fusion list when it states one, else\n"
  "    bias_activation,optimizer plus attention (flash attention: no s x s score tensor\n"
  "    stored, recomputed in backward) when the stack says flash or, with no stack saying\n"
  "    otherwise, when a matrix engine of the blueprint reaches on-chip SRAM;\n"
  "  --tp-overlap none; DP overlap on;\n"
  "  --tp-tier/--pp-tier/--dp-tier/--ep-tier/--cp-tier: the innermost tier that holds the\n"
  "    group;\n"
  "  --tiling auto: per matmul, the largest square tile that fits on chip.\n"
  "  --precision-policy scenario: every matmul in --dtype. Otherwise the value of a\n"
  "    mapping's \"precision\" member, inline or in a file: per class (attention_projection,\n"
  "    mlp, attention_core, lm_head) a format (bf16, fp8-e4m3, fp8-e5m2, fp4, int8),\n"
  "    scaling (none, per-tensor, per-channel, per-block with block), keep_bf16 and\n"
  "    sparsity (dense, 2:4), weights (native, int8, int4) with group, e.g.\n"
  "    '{\"mlp\": {\"format\": \"fp8-e4m3\"}}'.\n"
  "  --weights native: weights as the matmuls compute. int8 or int4: weight-only\n"
  "    quantisation of the attention projections and the MLP (the LM head keeps its\n"
  "    weights), one fp16 scale per --group-size elements along k (default 128), over\n"
  "    --precision-policy; computed at the activation precision (not with --dtype fp8).\n"
  "  --mapping FILE: a bpw-mapping file; its parallel, micro_batch and recompute also\n"
  "    replace those of --execution.\n";

void
bpw_cli_options_init (BpwCliOptions *options)
{
  *options = (BpwCliOptions) {
    .global_batch = BPW_CLI_UNSET,
    .micro_batch = BPW_CLI_UNSET,
    .seq = BPW_CLI_UNSET,
    .context = BPW_CLI_UNSET,
    .vocab = BPW_CLI_UNSET,
    .tp = BPW_CLI_UNSET,
    .pp = BPW_CLI_UNSET,
    .dp = BPW_CLI_UNSET,
    .ep = BPW_CLI_UNSET,
    .cp = BPW_CLI_UNSET,
    .zero = BPW_CLI_UNSET,
    .interleave = BPW_CLI_UNSET,
    .images = BPW_CLI_UNSET,
    .group_size = BPW_CLI_UNSET,
  };
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    options->tier[g] = BPW_CLI_UNSET;
}

void
bpw_cli_options_clear (BpwCliOptions *options)
{
  g_clear_pointer (&options->phase, g_free);
  g_clear_pointer (&options->recompute, g_free);
  g_clear_pointer (&options->launch, g_free);
  g_clear_pointer (&options->dtype, g_free);
  g_clear_pointer (&options->optimizer, g_free);
  g_clear_pointer (&options->schedule, g_free);
  g_clear_pointer (&options->cp_algorithm, g_free);
  g_clear_pointer (&options->pp_layers, g_free);
  g_clear_pointer (&options->execution, g_free);
  g_clear_pointer (&options->mapping, g_free);
  g_clear_pointer (&options->fusion, g_free);
  g_clear_pointer (&options->tp_overlap, g_free);
  g_clear_pointer (&options->tiling, g_free);
  g_clear_pointer (&options->precision_policy, g_free);
  g_clear_pointer (&options->weights, g_free);
}

void
bpw_cli_options_add (BpwCliOptions  *o,
                     GOptionContext *context)
{
  /* g_option_context_add_main_entries copies the array, so it may live on the stack. */
  const GOptionEntry entries[] = {
    { "phase", 0, 0, G_OPTION_ARG_STRING, &o->phase,
      "Workload phase: train, prefill or decode", "PHASE" },
    { "global-batch", 0, 0, G_OPTION_ARG_INT64, &o->global_batch,
      "Sequences per step (train) or requests in flight (inference)", "N" },
    { "micro-batch", 0, 0, G_OPTION_ARG_INT64, &o->micro_batch,
      "Sequences per micro-batch", "N" },
    { "seq", 0, 0, G_OPTION_ARG_INT64, &o->seq,
      "Training sequence or prompt length in tokens", "N" },
    { "context", 0, 0, G_OPTION_ARG_INT64, &o->context,
      "Decode: tokens already in the KV cache", "N" },
    { "images", 0, 0, G_OPTION_ARG_INT64, &o->images,
      "Images per sequence of a multimodal model (their tokens count in --seq)", "N" },
    { "train-vision", 0, 0, G_OPTION_ARG_NONE, &o->train_vision,
      "Train the vision encoder too (frozen by default; the projector always trains)", NULL },
    { "recompute", 0, 0, G_OPTION_ARG_STRING, &o->recompute,
      "Activation recomputation: none, selective or full", "MODE" },
    { "launch", 0, 0, G_OPTION_ARG_STRING, &o->launch,
      "Kernel launch: eager or graph (default: the blueprint's stack for the phase)", "MODE" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype,
      "Compute and activation precision: bf16, fp16, fp8 or fp32", "DTYPE" },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &o->optimizer,
      "Optimizer: adam or sgd", "OPT" },
    { "vocab", 0, 0, G_OPTION_ARG_INT64, &o->vocab,
      "Vocabulary size, replacing the model's (Calculon models have none)", "N" },
    { "execution", 0, 0, G_OPTION_ARG_FILENAME, &o->execution,
      "Calculon execution file giving the scenario and parallel options", "FILE" },
    { "tp", 0, 0, G_OPTION_ARG_INT64, &o->tp, "Tensor-parallel degree", "N" },
    { "pp", 0, 0, G_OPTION_ARG_INT64, &o->pp, "Pipeline-parallel degree", "N" },
    { "dp", 0, 0, G_OPTION_ARG_INT64, &o->dp, "Data-parallel degree", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT64, &o->ep,
      "Expert-parallel degree (carved out of dp)", "N" },
    { "cp", 0, 0, G_OPTION_ARG_INT64, &o->cp,
      "Context-parallel degree: the sequence split over N ranks (seq a multiple of 2N)", "N" },
    { "cp-algorithm", 0, 0, G_OPTION_ARG_STRING, &o->cp_algorithm,
      "Context parallelism's key/value exchange: ring or allgather", "ALGO" },
    { "sp", 0, 0, G_OPTION_ARG_NONE, &o->sp, "Sequence parallelism (with tp > 1)", NULL },
    { "zero", 0, 0, G_OPTION_ARG_INT64, &o->zero, "ZeRO stage: 0, 1, 2 or 3", "STAGE" },
    { "schedule", 0, 0, G_OPTION_ARG_STRING, &o->schedule,
      "Pipeline schedule: gpipe, 1f1b, interleaved or zb-h1", "SCHED" },
    { "pp-layers", 0, 0, G_OPTION_ARG_STRING, &o->pp_layers,
      "Layers per pipeline stage: a comma list (one per stage or virtual stage), auto, "
      "even, balanced, or lighter:K (first and last stage K layers lighter)", "SPLIT" },
    { "interleave", 0, 0, G_OPTION_ARG_INT64, &o->interleave,
      "Virtual stages per rank for the interleaved schedule", "N" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

void
bpw_cli_options_add_mapping (BpwCliOptions  *o,
                             GOptionContext *context)
{
  const GOptionEntry entries[] = {
    { "mapping", 0, 0, G_OPTION_ARG_FILENAME, &o->mapping,
      "Mapping file (bpw-mapping) as the base; options override it", "FILE" },
    { "fusion", 0, 0, G_OPTION_ARG_STRING, &o->fusion,
      "Fusions: comma list of attention, bias_activation, norm_residual, optimizer; or none",
      "LIST" },
    { "tp-overlap", 0, 0, G_OPTION_ARG_STRING, &o->tp_overlap,
      "Overlap of TP communication with matmuls: none, ring or pipe", "MODE" },
    { "dp-overlap", 0, 0, G_OPTION_ARG_NONE, &o->dp_overlap,
      "Overlap DP traffic: gradient reduction behind the backward pass, ZeRO 1/2 weight "
      "gather behind the next step's forward", NULL },
    { "no-dp-overlap", 0, 0, G_OPTION_ARG_NONE, &o->no_dp_overlap,
      "Reduce DP gradients after the backward pass, gather ZeRO 1/2 weights after the "
      "optimizer", NULL },
    { "tp-tier", 0, 0, G_OPTION_ARG_INT64, &o->tier[BPW_GROUP_TP],
      "Interconnect tier index for TP traffic", "N" },
    { "pp-tier", 0, 0, G_OPTION_ARG_INT64, &o->tier[BPW_GROUP_PP],
      "Interconnect tier index for PP traffic", "N" },
    { "dp-tier", 0, 0, G_OPTION_ARG_INT64, &o->tier[BPW_GROUP_DP],
      "Interconnect tier index for DP traffic", "N" },
    { "ep-tier", 0, 0, G_OPTION_ARG_INT64, &o->tier[BPW_GROUP_EP],
      "Interconnect tier index for EP traffic", "N" },
    { "cp-tier", 0, 0, G_OPTION_ARG_INT64, &o->tier[BPW_GROUP_CP],
      "Interconnect tier index for CP traffic", "N" },
    { "tiling", 0, 0, G_OPTION_ARG_STRING, &o->tiling,
      "Matmul tiling: auto or MxNxK (e.g. 128x128x64)", "TILE" },
    { "precision-policy", 0, 0, G_OPTION_ARG_STRING, &o->precision_policy,
      "Precision and 2:4 sparsity per matmul class: inline JSON, a file, or scenario",
      "POLICY" },
    { "weights", 0, 0, G_OPTION_ARG_STRING, &o->weights,
      "Weight-only quantisation of the attention projections and MLP: native, int8 or int4",
      "FORMAT" },
    { "group-size", 0, 0, G_OPTION_ARG_INT64, &o->group_size,
      "Weight-only: weight elements along k per fp16 scale (default 128)", "N" },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

const char *
bpw_cli_options_defaults_help (void)
{
  return bpw_cli_defaults_help;
}

const char *
bpw_cli_options_mapping_help (void)
{
  return bpw_cli_mapping_help;
}

gint64
bpw_cli_options_vocab (const BpwCliOptions *options)
{
  return options->vocab == BPW_CLI_UNSET ? 0 : options->vocab;
}

/* A given integer option must lie in [min, max]; an unset one is left alone. */
static gboolean
bpw_cli_options_check_int (const char *name,
                           gint64      value,
                           gint64      min,
                           gint64      max,
                           GError    **error)
{
  if (value == BPW_CLI_UNSET || (value >= min && value <= max))
    return TRUE;
  if (max == G_MAXINT64)
    g_set_error (error, BPW_CLI_USAGE_ERROR, 0,
                 "--%s: expected an integer of at least %" G_GINT64_FORMAT ", got %"
                 G_GINT64_FORMAT, name, min, value);
  else
    g_set_error (error, BPW_CLI_USAGE_ERROR, 0,
                 "--%s: expected an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                 ", got %" G_GINT64_FORMAT, name, min, max, value);
  return FALSE;
}

/* The degrees the options give, 1 for those not given. */
static gint64
bpw_cli_options_given (gint64 value)
{
  return value == BPW_CLI_UNSET ? 1 : value;
}

/* The limits are bpw_scenario_validate()'s, checked here so that the message names the
 * option and the exit status is a usage error's. */
static gboolean
bpw_cli_options_check (const BpwCliOptions *o,
                       GError             **error)
{
  const gint64 tokens = BPW_SCENARIO_MAX_TOKENS, devices = BPW_SCENARIO_MAX_DEVICES;

  if (!(bpw_cli_options_check_int ("global-batch", o->global_batch, 1, tokens, error) &&
        bpw_cli_options_check_int ("micro-batch", o->micro_batch, 1, tokens, error) &&
        bpw_cli_options_check_int ("seq", o->seq, 1, tokens, error) &&
        bpw_cli_options_check_int ("context", o->context, 0, tokens, error) &&
        bpw_cli_options_check_int ("images", o->images, 0, tokens, error) &&
        bpw_cli_options_check_int ("vocab", o->vocab, 1, G_MAXINT64, error) &&
        bpw_cli_options_check_int ("tp", o->tp, 1, devices, error) &&
        bpw_cli_options_check_int ("pp", o->pp, 1, devices, error) &&
        bpw_cli_options_check_int ("dp", o->dp, 1, devices, error) &&
        bpw_cli_options_check_int ("ep", o->ep, 1, devices, error) &&
        bpw_cli_options_check_int ("cp", o->cp, 1, devices, error) &&
        bpw_cli_options_check_int ("zero", o->zero, 0, 3, error) &&
        bpw_cli_options_check_int ("interleave", o->interleave, 1, devices, error)))
    return FALSE;
  /* Each is at most 2^24, so the product of four is taken in doubles. */
  if ((double) bpw_cli_options_given (o->tp) * (double) bpw_cli_options_given (o->pp)
      * (double) bpw_cli_options_given (o->dp) * (double) bpw_cli_options_given (o->cp)
      > (double) devices)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--tp \xc3\x97 --cp \xc3\x97 --pp \xc3\x97 --dp: "
                   "expected at most %" G_GINT64_FORMAT " devices", devices);
      return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_cli_options_bad_choice (const char *name,
                            const char *value,
                            const char *choices,
                            GError    **error)
{
  g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--%s: expected %s, got '%s'",
               name, choices, value);
  return FALSE;
}

/* Applies the string options; the enum parsers of bpw-types.h decide what is accepted. */
static gboolean bpw_cli_options_parse_pp_layers (const char   *value,
                                                 BpwParallel  *parallel,
                                                 GError      **error);

static gboolean
bpw_cli_options_apply_choices (const BpwCliOptions *o,
                               BpwScenario         *scenario,
                               BpwParallel         *parallel,
                               GError             **error)
{
  if (o->phase != NULL && !bpw_workload_phase_from_string (o->phase, &scenario->phase))
    return bpw_cli_options_bad_choice ("phase", o->phase, "train, prefill or decode", error);
  if (o->recompute != NULL && !bpw_recompute_from_string (o->recompute, &scenario->recompute))
    return bpw_cli_options_bad_choice ("recompute", o->recompute, "none, selective or full",
                                       error);
  if (o->launch != NULL)
    {
      if (g_strcmp0 (o->launch, "eager") == 0)
        scenario->launch = BPW_LAUNCH_EAGER;
      else if (g_strcmp0 (o->launch, "graph") == 0)
        scenario->launch = BPW_LAUNCH_GRAPH;
      else
        return bpw_cli_options_bad_choice ("launch", o->launch, "eager or graph", error);
    }
  if (o->dtype != NULL)
    {
      if (!bpw_dtype_from_string (o->dtype, &scenario->dtype))
        return bpw_cli_options_bad_choice ("dtype", o->dtype, "bf16, fp16, fp8 or fp32", error);
      scenario->kv_dtype = scenario->dtype;
    }
  if (o->optimizer != NULL)
    {
      if (!bpw_optimizer_from_string (o->optimizer, &scenario->optimizer))
        return bpw_cli_options_bad_choice ("optimizer", o->optimizer, "adam or sgd", error);
      scenario->optimizer_set = TRUE;
    }
  if (o->cp_algorithm != NULL
      && !bpw_cp_algorithm_from_string (o->cp_algorithm, &parallel->cp_algorithm))
    return bpw_cli_options_bad_choice ("cp-algorithm", o->cp_algorithm, "ring or allgather",
                                       error);
  if (o->schedule != NULL && !bpw_schedule_from_string (o->schedule, &parallel->schedule))
    return bpw_cli_options_bad_choice ("schedule", o->schedule,
                                       "gpipe, 1f1b, interleaved or zb-h1", error);
  if (o->pp_layers != NULL && !bpw_cli_options_parse_pp_layers (o->pp_layers, parallel, error))
    return FALSE;
  return TRUE;
}

/* --pp-layers: how the layers are split over the pipeline stages. */
static gboolean
bpw_cli_options_parse_pp_layers (const char   *value,
                                 BpwParallel  *parallel,
                                 GError      **error)
{
  static const char * const modes[] = { "auto", "even", "balanced" };
  g_auto(GStrv) parts = NULL;
  guint n;

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    if (g_strcmp0 (value, modes[i]) == 0)
      {
        parallel->pp_split = (BpwPpSplit) i;
        parallel->n_stage_layers = 0;
        return TRUE;
      }
  if (g_str_has_prefix (value, "lighter:"))
    {
      guint64 k;

      if (!g_ascii_string_to_unsigned (value + strlen ("lighter:"), 10, 1, 1 << 20, &k, NULL))
        goto bad;
      parallel->pp_split = BPW_PP_SPLIT_LIGHTER;
      parallel->pp_lighter = (gint32) k;
      return TRUE;
    }
  parts = g_strsplit (value, ",", -1);
  n = g_strv_length (parts);
  if (n < 1 || n > BPW_PARALLEL_MAX_STAGE_LAYERS)
    goto bad;
  for (guint i = 0; i < n; i++)
    {
      guint64 layers;

      if (!g_ascii_string_to_unsigned (g_strstrip (parts[i]), 10, 1, G_MAXINT32, &layers, NULL))
        goto bad;
      parallel->stage_layers[i] = (guint32) layers;
    }
  parallel->n_stage_layers = (gint32) n;
  parallel->pp_split = BPW_PP_SPLIT_EXPLICIT;
  return TRUE;

bad:
  g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--pp-layers: expected a comma list of up to "
               "%d positive layer counts, auto, even, balanced or lighter:K, got \u201c%s\u201d",
               BPW_PARALLEL_MAX_STAGE_LAYERS, value);
  return FALSE;
}

/* What a mapping file says about the scenario and the decomposition; what it leaves out
 * keeps the execution's (or default) values. Its warnings are reported by
 * bpw_cli_options_resolve_mapping(), which reads it again. */
static gboolean
bpw_cli_options_apply_mapping_file (const char   *path,
                                    BpwScenario  *scenario,
                                    BpwParallel  *parallel,
                                    GError      **error)
{
  BpwMapping m;

  bpw_mapping_init_defaults (&m);
  m.parallel = *parallel;
  /* The blueprint is not known yet: a level, engine or tier named here is resolved when
   * bpw_cli_options_resolve_mapping() reads the file again with it. */
  if (!bpw_mapping_load_over_for (path, NULL, &m, NULL, error))
    {
      bpw_mapping_clear (&m);
      return FALSE;
    }
  *parallel = m.parallel;
  bpw_mapping_apply_to_scenario (&m, scenario);
  bpw_mapping_clear (&m);
  return TRUE;
}

static gint64
bpw_cli_options_default_seq (const BpwModelSpec *spec,
                             const BpwScenario  *hint)
{
  if (hint != NULL && hint->seq > 0)
    return hint->seq;
  return bpw_scenario_default_seq (spec);
}

gboolean
bpw_cli_options_resolve (const BpwCliOptions *o,
                         const BpwModelSpec  *spec,
                         const BpwScenario   *hint,
                         BpwScenario         *scenario,
                         BpwParallel         *parallel,
                         GPtrArray           *warnings,
                         GError             **error)
{
  gint64 default_seq = bpw_cli_options_default_seq (spec, hint);

  if (!bpw_cli_options_check (o, error))
    return FALSE;

  bpw_scenario_init_defaults (scenario);
  bpw_parallel_init_defaults (parallel);
  /* 0 marks "not set by the execution file either"; defaults are filled in last, since
   * the global batch depends on dp, pp and the micro-batch. */
  scenario->global_batch = 0;
  scenario->micro_batch = 0;
  scenario->seq = 0;

  if (o->execution != NULL)
    {
      if (!bpw_calculon_execution_load_full (o->execution, scenario, parallel, NULL, warnings,
                                             error))
        return FALSE;
      scenario->kv_dtype = scenario->dtype;
    }
  if (o->mapping != NULL && !bpw_cli_options_apply_mapping_file (o->mapping, scenario, parallel,
                                                                 error))
    return FALSE;

  if (!bpw_cli_options_apply_choices (o, scenario, parallel, error))
    return FALSE;

  if (o->global_batch != BPW_CLI_UNSET)
    scenario->global_batch = o->global_batch;
  if (o->micro_batch != BPW_CLI_UNSET)
    scenario->micro_batch = o->micro_batch;
  if (o->seq != BPW_CLI_UNSET)
    scenario->seq = o->seq;
  if (o->context != BPW_CLI_UNSET)
    scenario->context = o->context;
  if (o->images != BPW_CLI_UNSET)
    {
      scenario->images_set = TRUE;
      scenario->images = o->images;
    }
  if (o->train_vision)
    scenario->train_vision = TRUE;
  if (o->tp != BPW_CLI_UNSET)
    parallel->tp = o->tp;
  if (o->pp != BPW_CLI_UNSET)
    parallel->pp = o->pp;
  if (o->dp != BPW_CLI_UNSET)
    parallel->dp = o->dp;
  if (o->ep != BPW_CLI_UNSET)
    parallel->ep = o->ep;
  if (o->cp != BPW_CLI_UNSET)
    parallel->cp = o->cp;
  if (o->zero != BPW_CLI_UNSET)
    parallel->zero = (gint) o->zero;
  if (o->sp)
    parallel->sp = TRUE;
  if (o->interleave != BPW_CLI_UNSET)
    {
      parallel->interleave = o->interleave;
      if (o->schedule == NULL && o->interleave > 1)
        parallel->schedule = BPW_SCHEDULE_INTERLEAVED;
    }

  /* Said here with the option's name (usage, exit 2); bpw_scenario_validate() says it for
   * files. */
  if (o->sp && parallel->tp == 1)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--sp: sequence parallelism splits the "
                   "sequence over the tensor-parallel group; it needs --tp 2 or more");
      return FALSE;
    }
  if (spec->positions == BPW_POSITION_LEARNED && spec->max_positions > 0
      && ((o->seq != BPW_CLI_UNSET && scenario->phase != BPW_WORKLOAD_DECODE
           && o->seq > spec->max_positions)
          || (o->context != BPW_CLI_UNSET && scenario->phase == BPW_WORKLOAD_DECODE
              && o->context > spec->max_positions)))
    {
      gboolean decode = scenario->phase == BPW_WORKLOAD_DECODE;

      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--%s: %" G_GINT64_FORMAT " positions exceed "
                   "the model's learned position table of %" G_GINT64_FORMAT
                   " (max_position_embeddings)", decode ? "context" : "seq",
                   decode ? o->context : o->seq, spec->max_positions);
      return FALSE;
    }
  if (scenario->seq == 0)
    scenario->seq = default_seq;
  if (scenario->phase == BPW_WORKLOAD_DECODE && o->context == BPW_CLI_UNSET &&
      scenario->context == 0)
    scenario->context = default_seq;
  if (scenario->global_batch == 0)
    {
      gint64 per_pipeline = parallel->pp > 1 ? BPW_CLI_MICRO_BATCHES_PER_STAGE * parallel->pp : 1;
      gint64 batch;

      /* All three factors are positive here, so only overflow can fail. */
      if (__builtin_mul_overflow (parallel->dp, MAX (scenario->micro_batch, 1), &batch) ||
          __builtin_mul_overflow (batch, per_pipeline, &batch))
        {
          g_set_error (error, BPW_CLI_USAGE_ERROR, 0,
                       "the default global batch dp \xc3\x97 micro-batch \xc3\x97 %"
                       G_GINT64_FORMAT " overflows; give --global-batch", per_pipeline);
          return FALSE;
        }
      scenario->global_batch = batch;
    }
  /* Said by the mapping file, a micro-batch that does not fit is the file's error. */
  if (o->mapping != NULL && o->micro_batch == BPW_CLI_UNSET
      && !bpw_mapping_check_micro_batch_file (o->mapping, scenario, parallel, error))
    return FALSE;
  /* A split the file lists that does not place the model's layers is the file's error. */
  if (o->mapping != NULL && o->pp_layers == NULL
      && !bpw_mapping_check_pp_layers_file (o->mapping, spec, parallel, error))
    return FALSE;
  /* Neither an option, the execution nor the mapping gave one: the default studies use. */
  if (scenario->micro_batch == 0)
    scenario->micro_batch = bpw_scenario_default_micro_batch (scenario->phase,
                                                              scenario->global_batch, parallel);
  return TRUE;
}

/* "none", or a comma list of fusion names. */
static gboolean
bpw_cli_options_parse_fusion (const char  *value,
                              guint       *out,
                              GError     **error)
{
  g_auto(GStrv) items = NULL;
  guint flags = 0;

  if (strcmp (value, "none") == 0)
    {
      *out = 0;
      return TRUE;
    }
  items = g_strsplit (value, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      BpwFusion f;

      if (!bpw_fusion_from_string (g_strstrip (items[i]), &f))
        return bpw_cli_options_bad_choice ("fusion", value, "a comma-separated list of "
                                           "attention, bias_activation, norm_residual and "
                                           "optimizer, or none", error);
      flags |= f;
    }
  *out = flags;
  return TRUE;
}

/* One positive tile edge of "MxNxK"; FALSE for anything else (signs, spaces, overflow). */
static gboolean
bpw_cli_options_parse_edge (const char *str,
                            gint64     *out)
{
  guint64 v;

  if (str[0] < '0' || str[0] > '9')
    return FALSE;
  if (!g_ascii_string_to_unsigned (str, 10, 1, G_MAXINT32, &v, NULL))
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

static gboolean
bpw_cli_options_parse_tiling (const char  *value,
                              BpwTiling   *out,
                              GError     **error)
{
  g_auto(GStrv) edges = NULL;
  BpwTiling t = { FALSE, 0, 0, 0 };

  if (strcmp (value, "auto") == 0)
    {
      *out = (BpwTiling) { TRUE, 0, 0, 0 };
      return TRUE;
    }
  edges = g_strsplit (value, "x", -1);
  if (g_strv_length (edges) != 3
      || !bpw_cli_options_parse_edge (edges[0], &t.m)
      || !bpw_cli_options_parse_edge (edges[1], &t.n)
      || !bpw_cli_options_parse_edge (edges[2], &t.k))
    return bpw_cli_options_bad_choice ("tiling", value, "auto or MxNxK with positive "
                                       "integers (e.g. 128x128x64)", error);
  *out = t;
  return TRUE;
}

/* --precision-policy over @policy: "scenario", an inline JSON value (it starts with '{'),
 * or a file holding one; errors located in the option or the file. */
static gboolean
bpw_cli_options_parse_precision (const char         *value,
                                 BpwPrecisionPolicy *policy,
                                 GError            **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  if (strcmp (value, "scenario") == 0)
    {
      bpw_precision_policy_init (policy);
      return TRUE;
    }
  if (value[strspn (value, " \t\n")] == '{')
    return bpw_mapping_read_precision_data ("--precision-policy", value, -1, policy, NULL,
                                            error);
  if (!g_file_get_contents (value, &contents, &length, error))
    return FALSE;
  return bpw_mapping_read_precision_data (value, contents, (gssize) length, policy, NULL, error);
}

/* --weights and --group-size over the policy of @m: weight-only on the attention
 * projections and the MLP, which must then compute at the activation precision. */
static gboolean
bpw_cli_options_apply_weights (const BpwCliOptions *o,
                               const BpwScenario   *scenario,
                               BpwMapping          *m,
                               GError             **error)
{
  BpwWeightFormat weights;
  BpwMatmulClass cls;
  BpwNumberFormat format;

  if (!bpw_cli_options_check_int ("group-size", o->group_size, 1, BPW_WEIGHT_GROUP_MAX, error))
    return FALSE;
  if (o->weights == NULL)
    {
      if (o->group_size == BPW_CLI_UNSET)
        return TRUE;
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0,
                   "--group-size applies to weight-only quantisation: give --weights int8 "
                   "or int4 with it");
      return FALSE;
    }
  if (!bpw_weight_format_from_string (o->weights, &weights))
    return bpw_cli_options_bad_choice ("weights", o->weights, "native, int8 or int4", error);
  bpw_precision_policy_set_weights (&m->precision, weights,
                                    o->group_size != BPW_CLI_UNSET ? o->group_size
                                                                   : BPW_WEIGHT_GROUP_DEFAULT);
  if (weights == BPW_WEIGHT_FORMAT_NATIVE ||
      !bpw_precision_policy_weight_only_blocked (&m->precision, scenario->dtype, &cls, &format))
    return TRUE;
  g_set_error (error, BPW_CLI_USAGE_ERROR, 0,
               "--weights %s: weight-only quantisation computes at the activation "
               "precision, but %s runs in %s; use --dtype bf16 or a policy with "
               "\"format\": \"bf16\" for it", o->weights, bpw_matmul_class_to_string (cls),
               bpw_number_format_to_string (format));
  return FALSE;
}

/* The explicit mapping options over @m; usage errors for bad values. */
static gboolean
bpw_cli_options_apply_mapping_options (const BpwCliOptions *o,
                                       BpwMapping          *m,
                                       GError             **error)
{
  static const char * const tier_options[] = {
    "tp-tier", "pp-tier", "dp-tier", "ep-tier", "cp-tier"
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (tier_options) == BPW_N_GROUPS);

  if (o->dp_overlap && o->no_dp_overlap)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0,
                   "--dp-overlap and --no-dp-overlap contradict each other; give one");
      return FALSE;
    }
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (!bpw_cli_options_check_int (tier_options[g], o->tier[g], 0, BPW_MAPPING_MAX_TIERS - 1,
                                    error))
      return FALSE;
  if (o->fusion != NULL && !bpw_cli_options_parse_fusion (o->fusion, &m->fusion, error))
    return FALSE;
  if (o->tp_overlap != NULL && !bpw_tp_overlap_from_string (o->tp_overlap, &m->tp_overlap))
    return bpw_cli_options_bad_choice ("tp-overlap", o->tp_overlap, "none, ring or pipe", error);
  if (o->tiling != NULL && !bpw_cli_options_parse_tiling (o->tiling, &m->tiling, error))
    return FALSE;
  if (o->precision_policy != NULL
      && !bpw_cli_options_parse_precision (o->precision_policy, &m->precision, error))
    return FALSE;
  if (o->dp_overlap)
    m->dp_overlap = TRUE;
  if (o->no_dp_overlap)
    m->dp_overlap = FALSE;
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (o->tier[g] != BPW_CLI_UNSET)
      m->tier[g] = (gint) o->tier[g];
  return TRUE;
}

gboolean
bpw_cli_options_resolve_mapping (const BpwCliOptions        *o,
                                 const BpwScenario          *scenario,
                                 const BpwParallel          *parallel,
                                 const BpwCalculonExecution *exec,
                                 const BpwBlueprint         *blueprint,
                                 BpwMapping                 *mapping,
                                 GPtrArray                  *warnings,
                                 GError                    **error)
{
  BpwCalculonExecution loaded;
  BpwMapping m;
  gboolean ok = TRUE;

  g_return_val_if_fail (o != NULL && scenario != NULL && parallel != NULL, FALSE);
  g_return_val_if_fail (mapping != NULL, FALSE);

  bpw_mapping_init_defaults (&m);
  if (exec == NULL && o->execution != NULL)
    {
      BpwScenario s;
      BpwParallel p;

      /* Read again for the knobs BpwScenario has no place for; bpw_cli_options_resolve()
       * reported its warnings already. */
      bpw_scenario_init_defaults (&s);
      bpw_parallel_init_defaults (&p);
      ok = bpw_calculon_execution_load_full (o->execution, &s, &p, &loaded, NULL, error);
      bpw_scenario_clear (&s);
      exec = ok ? &loaded : NULL;
    }
  ok = ok
       && (exec == NULL
           || bpw_mapping_from_calculon_execution (exec, scenario, parallel, &m, error))
       && (o->mapping == NULL
           || bpw_mapping_load_over_for (o->mapping, blueprint, &m, warnings, error))
       && bpw_cli_options_apply_mapping_options (o, &m, error)
       && bpw_cli_options_apply_weights (o, scenario, &m, error);
  if (!ok)
    {
      bpw_mapping_clear (&m);
      return FALSE;
    }

  /* bpw_cli_options_resolve() already layered these the same way; the mapping states
   * them explicitly so that it reads the same without the scenario. */
  m.parallel = *parallel;
  m.micro_batch = scenario->micro_batch;
  m.recompute = (gint) scenario->recompute;
  bpw_mapping_clear (mapping);
  *mapping = m;
  return TRUE;
}

const char *
bpw_cli_options_unused_by_calculon (const BpwCliOptions *o)
{
  static const char * const tier_options[] = {
    "--tp-tier", "--pp-tier", "--dp-tier", "--ep-tier", "--cp-tier"
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (tier_options) == BPW_N_GROUPS);

  /* Calculon's execution has no fusion list, tile or tier per group beyond its three
   * networks, always trains with Adam, has no KV cache and no embedding. */
  if (o->fusion != NULL)
    return "--fusion";
  if (o->tiling != NULL)
    return "--tiling";
  if (o->precision_policy != NULL)
    return "--precision-policy";
  if (o->weights != NULL)
    return "--weights";
  if (o->group_size != BPW_CLI_UNSET)
    return "--group-size";
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (o->tier[g] != BPW_CLI_UNSET)
      return tier_options[g];
  if (o->optimizer != NULL)
    return "--optimizer";
  if (o->context != BPW_CLI_UNSET)
    return "--context";
  if (o->vocab != BPW_CLI_UNSET)
    return "--vocab";
  return NULL;
}
