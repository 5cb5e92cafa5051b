/* bpw-cli-serve.c — `bpw serve MODEL --blueprint BP [parallel options] --arrival-rate R
 *                    --requests N [--prompt-len DIST] [--output-len DIST] [--seed S]
 *                    [--sweep R1,R2,...] [--max-batch N] [--kv-block N | --kv-contiguous]
 *                    [--prefix-hit H] [--kv-dtype DTYPE] [--chunked-prefill N]
 *                    [--spec-tokens K --spec-accept A [--draft MODEL]]
 *                    [--disaggregate --prefill-replicas N --prefill-tp T [--prefill-pp P]
 *                     --decode-replicas M --decode-tp U [--decode-pp Q] --kv-tier NAME] [--json]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-serve"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bpw-cli-options.h"
#include "bpw-cli-serve-disagg.h"
#include "bpw-cli-setup.h"
#include "bpw-error.h"
#include "bpw-serve.h"

#define DEFAULT_PROMPT    "fixed:512"
#define DEFAULT_OUTPUT    "fixed:128"
#define DEFAULT_MAX_BATCH 256

typedef struct
{
  double   rate;
  gint64   requests;
  gint64   seed;
  gint64   max_batch;
  char    *prompt;
  char    *output;
  char    *sweep;
  char    *kv_dtype;
  gint64   kv_block;
  gboolean kv_contiguous;
  double   prefix_hit;
  gint64   chunk;
  gint64   spec_tokens;
  double   spec_accept;
  char    *draft;
  gboolean json;
  BpwServePools pools;   /* --disaggregate and its pools */
  char    *kv_tier;
} ServeArgs;

static void
describe_stats (GString *out, const char *label, const BpwLatencyStats *s, double scale,
                const char *unit)
{
  g_string_append_printf (out, "  %-22s %10.4g %10.4g %10.4g %10.4g  %s\n", label,
                          s->mean * scale, s->p50 * scale, s->p95 * scale, s->p99 * scale, unit);
}

static char *
serve_to_text (const BpwServeResult *results, guint n, const BpwServeOptions *o,
               const BpwCliSetup *setup, const BpwServeModel *model)
{
  GString *out = g_string_new (NULL);
  g_autofree char *prompt = bpw_length_dist_to_string (&o->prompt);
  g_autofree char *output = bpw_length_dist_to_string (&o->output);

  g_string_append_printf (out, "Serving %s on %s: %" G_GINT64_FORMAT " replica(s) of %"
                          G_GINT64_FORMAT " devices, KV cache %" G_GINT64_FORMAT
                          " tokens per replica, at most %" G_GINT64_FORMAT " sequences per "
                          "step\n", setup->spec.name, setup->blueprint->name, o->replicas,
                          bpw_serve_model_devices (model), bpw_serve_model_kv_capacity (model),
                          bpw_serve_model_max_batch (model));
  if (o->kv_contiguous)
    g_string_append_printf (out, "KV cache contiguous: every sequence reserves %"
                            G_GINT64_FORMAT " tokens (the longest request)",
                            results[0].kv_reserve_tokens);
  else
    g_string_append_printf (out, "KV cache paged in blocks of %" G_GINT64_FORMAT " tokens",
                            o->kv_block > 0 ? o->kv_block : BPW_SERVE_KV_BLOCK);
  g_string_append_printf (out, " (%s), prefix-cache hit rate %.3g; weights %s\n",
                          bpw_dtype_to_string (setup->scenario.kv_dtype), o->prefix_hit,
                          bpw_serve_model_weights (model) +
                          (g_str_has_prefix (bpw_serve_model_weights (model),
                                             BPW_MODE_WEIGHTS_PREFIX)
                           ? strlen (BPW_MODE_WEIGHTS_PREFIX) : 0));
  if (o->chunk_tokens > 0)
    g_string_append_printf (out, "Chunked prefill: %" G_GINT64_FORMAT " prompt tokens per step\n",
                            o->chunk_tokens);
  if (o->spec_tokens > 0)
    g_string_append_printf (out, "Speculative decoding: %" G_GINT64_FORMAT " draft tokens (%s), "
                            "each accepted with probability %.3g: %.3f tokens per verify "
                            "step\n", o->spec_tokens, o->draft != NULL ? "draft model"
                            : "MTP heads", o->spec_accept, results[0].tokens_per_verify);
  if (results[0].images > 0)
    g_string_append_printf (out, "Images: %" G_GINT64_FORMAT " per request, %" G_GINT64_FORMAT
                            " tokens added to each prompt (prompt lengths count text)\n",
                            results[0].images, results[0].image_tokens);
  if (results[0].ep_bytes_per_token > 0)
    g_string_append_printf (out, "Expert parallelism over %" G_GINT64_FORMAT " ranks: each "
                            "sends %.4g KiB in all-to-alls per token it decodes\n",
                            setup->parallel.ep, results[0].ep_bytes_per_token / 1024.0);
  g_string_append_printf (out, "%" G_GINT64_FORMAT " requests, Poisson arrivals, prompts %s, "
                          "outputs %s, seed %" G_GUINT64_FORMAT "\n", o->requests, prompt,
                          output, o->seed);
  for (guint i = 0; i < n; i++)
    {
      const BpwServeResult *r = &results[i];

      g_string_append_printf (out, "\nArrival rate %.4g requests/s: %" G_GINT64_FORMAT
                              " served, %" G_GINT64_FORMAT " rejected (larger than the KV "
                              "cache)\n", r->arrival_rate, r->requests, r->rejected);
      g_string_append_printf (out, "  %-22s %10s %10s %10s %10s\n", "", "mean", "p50", "p95",
                              "p99");
      describe_stats (out, "time to first token", &r->ttft_s, 1e3, "ms");
      if (r->images > 0)
        g_string_append_printf (out, "  %-22s %10.4g ms per request (%.1f %% of the mean "
                                "time to first token)\n", "vision encoder",
                                r->encoder_s * 1e3, r->encoder_ttft_share * 100.0);
      describe_stats (out, "time per output token", &r->tpot_s, 1e3, "ms");
      describe_stats (out, "end to end", &r->e2e_s, 1.0, "s");
      g_string_append_printf (out, "  %-22s %10.4g tokens/s (mean decode batch %.1f, %"
                              G_GINT64_FORMAT " prefills, %" G_GINT64_FORMAT " decode steps)\n",
                              "throughput", r->throughput_tokens_per_s, r->mean_decode_batch,
                              r->prefills, r->decodes);
      g_string_append_printf (out, "  %-22s %10" G_GINT64_FORMAT " sequences at most, %.1f "
                              "tokens reserved and unused per request; %" G_GINT64_FORMAT
                              " of %" G_GINT64_FORMAT " prompt tokens computed\n", "batch",
                              r->peak_batch, r->kv_waste_tokens, r->prefill_tokens,
                              r->prompt_tokens);
    }
  return g_string_free (out, FALSE);
}

/* "R1,R2,...": positive rates. */
static gboolean
parse_sweep (const char *text, GArray *rates, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end = NULL;
      double r = g_ascii_strtod (g_strstrip (parts[i]), &end);

      if (end == parts[i] || *end != '\0' || !(r >= BPW_SERVE_MIN_ARRIVAL_RATE)
          || !isfinite (r))
        {
          g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--sweep: expected arrival rates of at "
                       "least %g requests per second separated by commas, got '%s'",
                       BPW_SERVE_MIN_ARRIVAL_RATE, text);
          return FALSE;
        }
      g_array_append_val (rates, r);
    }
  return TRUE;
}

static int
serve_run (const char *model_name, const char *blueprint, const BpwCliOptions *options,
           const ServeArgs *args)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) rates = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(BpwServeModel) model = NULL;
  g_autofree BpwServeResult *results = NULL;
  g_autofree char *text = NULL;
  BpwServeOptions o = { .requests = args->requests, .seed = (guint64) args->seed,
                        .kv_block = args->kv_block, .kv_contiguous = args->kv_contiguous,
                        .prefix_hit = args->prefix_hit, .chunk_tokens = args->chunk,
                        .spec_tokens = args->spec_tokens, .spec_accept = args->spec_accept };
  g_autoptr(BpwServeModel) draft = NULL;
  gint64 longest_prompt, longest_request;
  BpwCliOptions scenario_options;
  BpwCliSetup setup;
  int status = BPW_CLI_EXIT_OK;

  if (args->sweep != NULL ? !parse_sweep (args->sweep, rates, &error)
                          : (g_array_append_val (rates, args->rate), FALSE))
    return bpw_cli_report_error ("serve", error);
  if (!bpw_length_dist_parse (args->prompt ? args->prompt : DEFAULT_PROMPT, "--prompt-len",
                              &o.prompt, &error) ||
      !bpw_length_dist_parse (args->output ? args->output : DEFAULT_OUTPUT, "--output-len",
                              &o.output, &error))
    {
      g_prefix_error (&error, "serve: ");
      error->domain = BPW_CLI_USAGE_ERROR;
      return bpw_cli_report_error ("serve", error);
    }

  /* --images is serve's own: per request, beside prompts that count text. The setup's
   * scenario (whose seq serve ignores) must not weigh it against its seq. */
  scenario_options = *options;
  scenario_options.images = BPW_CLI_UNSET;
  if (!bpw_cli_setup_load (&setup, model_name, blueprint, &scenario_options, &error))
    {
      status = bpw_cli_report_error ("serve", error);
      bpw_cli_setup_clear (&setup);
      return status;
    }
  if (options->images != BPW_CLI_UNSET)
    {
      /* A cross-attention model's images take no prompt positions: bound by the image
       * tokens its cross-attention layers attend. */
      gint64 tokens = !bpw_model_spec_has_vision (&setup.spec) ? 0
                      : bpw_model_spec_has_cross_attention (&setup.spec)
                      ? bpw_model_spec_cross_tokens (&setup.spec)
                      : bpw_model_spec_image_tokens (&setup.spec);

      if (options->images > 0 && tokens == 0)
        g_set_error (&error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                     "serve: --images %" G_GINT64_FORMAT ": %s has no vision encoder",
                     options->images, setup.spec.name);
      else if (tokens > 0 && options->images > BPW_SCENARIO_MAX_TOKENS / tokens)
        g_set_error (&error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                     "serve: --images %" G_GINT64_FORMAT ": images of %" G_GINT64_FORMAT
                     " tokens each exceed %" G_GINT64_FORMAT " tokens per request",
                     options->images, tokens, BPW_SCENARIO_MAX_TOKENS);
      if (error != NULL)
        {
          status = bpw_cli_report_error ("serve", error);
          bpw_cli_setup_clear (&setup);
          return status;
        }
      setup.scenario.images_set = TRUE;
      setup.scenario.images = options->images;
    }
  if (args->kv_dtype != NULL && !bpw_dtype_from_string (args->kv_dtype,
                                                        &setup.scenario.kv_dtype))
    {
      bpw_cli_setup_clear (&setup);
      return bpw_cli_usage ("serve", "serve: --kv-dtype: expected bf16, fp16, fp8 or fp32, "
                            "got '%s'", args->kv_dtype);
    }
  /* Drafting with MTP heads needs a model that has them: a usage error, like the option's
   * other bounds. */
  if (!bpw_serve_check_speculation (&setup.spec, args->spec_tokens, args->draft != NULL,
                                    &error))
    {
      status = bpw_cli_usage ("serve", "serve: --spec-tokens %" G_GINT64_FORMAT ": %s "
                              "(--draft MODEL)", args->spec_tokens, error->message);
      bpw_cli_setup_clear (&setup);
      return status;
    }
  if (args->pools.enabled)
    {
      status = bpw_cli_serve_disagg (&setup, &o, rates, &args->pools, args->max_batch,
                                     args->json);
      bpw_cli_setup_clear (&setup);
      return status;
    }
  o.replicas = bpw_serve_replicas (&setup.parallel);
  o.arrival_rate = g_array_index (rates, double, 0);
  bpw_serve_stream_bounds (&o, &longest_prompt, &longest_request);
  model = bpw_serve_model_new (&setup.spec, &setup.scenario, setup.blueprint, &setup.mapping,
                               args->max_batch, longest_prompt, longest_request, &error);
  if (model != NULL && args->draft != NULL)
    {
      BpwModelSpec spec;

      bpw_model_spec_init_defaults (&spec);
      if (bpw_workload_load (args->draft, &spec, &error))
        draft = bpw_serve_model_new (&spec, &setup.scenario, setup.blueprint, &setup.mapping,
                                     args->max_batch, longest_prompt, longest_request, &error);
      if (error != NULL)
        g_prefix_error (&error, "--draft %s: ", args->draft);
      bpw_model_spec_clear (&spec);
      o.draft = draft;
    }
  results = g_new0 (BpwServeResult, rates->len);
  for (guint i = 0; model != NULL && error == NULL && i < rates->len; i++)
    {
      o.arrival_rate = g_array_index (rates, double, i);
      bpw_serve_run (model, &o, &results[i], &error);
    }
  if (error != NULL)
    status = bpw_cli_report_error ("serve", error);
  else
    {
      o.arrival_rate = g_array_index (rates, double, 0);
      text = args->json ? bpw_serve_to_json (results, rates->len, &o, model)
                        : serve_to_text (results, rates->len, &o, &setup, model);
      bpw_cli_print (stdout, "%s", text);
    }
  bpw_cli_setup_clear (&setup);
  return status;
}

int
bpw_cli_serve (int    argc,
               char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  g_autofree char *blueprint = NULL;
  ServeArgs args = { .rate = NAN, .requests = 0, .seed = 1, .max_batch = DEFAULT_MAX_BATCH,
                     .kv_block = BPW_SERVE_KV_BLOCK,
                     .pools = { .prefill_replicas = 1, .prefill_tp = 1, .prefill_pp = 1,
                                .decode_replicas = 1, .decode_tp = 1, .decode_pp = 1 } };
  const char *invalid;
  BpwCliOptions options;
  int status;
  const GOptionEntry entries[] = {
    { "blueprint", 0, 0, G_OPTION_ARG_STRING, &blueprint,
      "The candidate accelerator (required)", "BP" },
    { "arrival-rate", 0, 0, G_OPTION_ARG_DOUBLE, &args.rate,
      "Requests per second, all replicas together (required unless --sweep)", "R" },
    { "requests", 0, 0, G_OPTION_ARG_INT64, &args.requests,
      "Requests in the stream (required; at most 1000000)", "N" },
    { "prompt-len", 0, 0, G_OPTION_ARG_STRING, &args.prompt,
      "Prompt lengths: fixed:N, uniform:LO:HI or lognormal:MEAN:SIGMA (default "
      DEFAULT_PROMPT ")", "DIST" },
    { "output-len", 0, 0, G_OPTION_ARG_STRING, &args.output,
      "Output lengths, as --prompt-len (default " DEFAULT_OUTPUT ")", "DIST" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &args.seed,
      "Seed of the request stream (default 1)", "S" },
    { "sweep", 0, 0, G_OPTION_ARG_STRING, &args.sweep,
      "Arrival rates of a latency–throughput curve, comma-separated", "R1,R2,..." },
    { "max-batch", 0, 0, G_OPTION_ARG_INT64, &args.max_batch,
      "Sequences a replica runs at most per step (default 256)", "N" },
    { "kv-block", 0, 0, G_OPTION_ARG_INT64, &args.kv_block,
      "Tokens per block of the paged KV cache (default 16)", "N" },
    { "kv-contiguous", 0, 0, G_OPTION_ARG_NONE, &args.kv_contiguous,
      "Reserve the stream's longest prompt + output of KV cache for every sequence "
      "instead of paging", NULL },
    { "prefix-hit", 0, 0, G_OPTION_ARG_DOUBLE, &args.prefix_hit,
      "Fraction of each prompt already in the prefix cache, from 0 to below 1 (default 0)",
      "H" },
    { "kv-dtype", 0, 0, G_OPTION_ARG_STRING, &args.kv_dtype,
      "KV-cache precision: bf16, fp16, fp8 or fp32 (default: the --dtype)", "DTYPE" },
    { "chunked-prefill", 0, 0, G_OPTION_ARG_INT64, &args.chunk,
      "Prefill prompts in chunks of N tokens per step, mixed with the decodes", "N" },
    { "spec-tokens", 0, 0, G_OPTION_ARG_INT64, &args.spec_tokens,
      "Speculative decoding: K draft tokens per sequence and verify step (default 0: off)",
      "K" },
    { "spec-accept", 0, 0, G_OPTION_ARG_DOUBLE, &args.spec_accept,
      "Probability that the target accepts a draft token, from 0 to below 1", "A" },
    { "draft", 0, 0, G_OPTION_ARG_STRING, &args.draft,
      "The draft model, on the same devices (default: the target's MTP heads, costed as one "
      "of its layers; a target without them needs a draft model)", "MODEL" },
    { "disaggregate", 0, 0, G_OPTION_ARG_NONE, &args.pools.enabled,
      "Serve prefills and decodes on separate pools of replicas, moving each request's KV "
      "cache between them over --kv-tier", NULL },
    { "prefill-replicas", 0, 0, G_OPTION_ARG_INT64, &args.pools.prefill_replicas,
      "With --disaggregate: replicas of the prefill pool (default 1)", "N" },
    { "prefill-tp", 0, 0, G_OPTION_ARG_INT64, &args.pools.prefill_tp,
      "With --disaggregate: TP devices of a prefill replica (default 1)", "T" },
    { "prefill-pp", 0, 0, G_OPTION_ARG_INT64, &args.pools.prefill_pp,
      "With --disaggregate: PP stages of a prefill replica (default 1)", "P" },
    { "decode-replicas", 0, 0, G_OPTION_ARG_INT64, &args.pools.decode_replicas,
      "With --disaggregate: replicas of the decode pool (default 1)", "M" },
    { "decode-tp", 0, 0, G_OPTION_ARG_INT64, &args.pools.decode_tp,
      "With --disaggregate: TP devices of a decode replica (default 1)", "U" },
    { "decode-pp", 0, 0, G_OPTION_ARG_INT64, &args.pools.decode_pp,
      "With --disaggregate: PP stages of a decode replica (default 1)", "Q" },
    { "kv-tier", 0, 0, G_OPTION_ARG_STRING, &args.kv_tier,
      "With --disaggregate: the blueprint tier that carries KV caches from prefill to decode "
      "(required)", "NAME" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &args.json,
      "Print the results as JSON (keys of the bpw serve contract)", NULL },
    G_OPTION_ENTRY_NULL
  };

  bpw_cli_options_init (&options);
  g_set_prgname ("bpw serve");
  context = g_option_context_new ("MODEL --blueprint BP --arrival-rate R --requests N");
  g_option_context_set_summary (context,
                                "Serves a seeded stream of requests (Poisson arrivals) with "
                                "continuous batching on\nDP replicas of TP × PP devices "
                                "(with ZeRO 3, one replica of TP × PP × DP devices\nsharing "
                                "its weights; with EP, replicas of TP × PP × EP devices sharing "
                                "the experts\nand exchanging tokens by all-to-alls), a paged "
                                "KV cache and prefix caching: "
                                "prefill and decode steps from the analytic estimator,\nthe KV "
                                "cache as large as device memory allows, and the time to first "
                                "token, time\nper output token and end-to-end latency (mean, "
                                "p50, p95, p99) with throughput.");
  description = g_strconcat ("Lengths: fixed:N; uniform:LO:HI (whole tokens, both included); "
                             "lognormal:MEAN:SIGMA\n(round(X), ln X normal with standard "
                             "deviation SIGMA and E[X] = MEAN, at least 1).\nScenario options "
                             "other than --dtype and --images are ignored: the stream sets "
                             "batches and lengths.\nWith --ep N (N dividing --dp) the EP ranks are one "
                             "replica that splits the experts.\n--images N: images per "
                             "request of a model with a vision encoder (default 1 for\nsuch a "
                             "model, else 0). --prompt-len counts text tokens only: each "
                             "request adds\nN × the model's image tokens (576 for Llava-1.5), "
                             "which its prefill computes after\nrunning the vision encoder in "
                             "the same step, and its KV cache holds.\n--disaggregate: prefills "
                             "on --prefill-replicas replicas of --prefill-tp × --prefill-pp "
                             "devices,\ndecodes on --decode-replicas of --decode-tp × "
                             "--decode-pp, each request's KV cache crossing\nthe blueprint's "
                             "--kv-tier (latency + bytes / bandwidth, one link at a time);\n"
                             "TTFT includes the transfer, TPOT is the decode pool's alone.\n\n",
                             bpw_cli_options_mapping_help (), NULL);
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_options_add (&options, context);
  bpw_cli_options_add_mapping (&options, context);

  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("serve", error);
  else if (argc < 2)
    status = bpw_cli_usage ("serve", "serve: missing MODEL");
  else if (argc > 2)
    status = bpw_cli_usage ("serve", "serve: expected one MODEL, got also '%s'", argv[2]);
  else if (blueprint == NULL)
    status = bpw_cli_usage ("serve", "serve: missing --blueprint BP");
  else if (args.sweep == NULL && !(args.rate >= BPW_SERVE_MIN_ARRIVAL_RATE
                                   && isfinite (args.rate)))
    status = bpw_cli_usage ("serve", "serve: --arrival-rate R must be a number of requests "
                            "per second of at least 0.001 (or give --sweep)");
  else if (args.requests < 1 || args.requests > BPW_SERVE_MAX_REQUESTS)
    status = bpw_cli_usage ("serve", "serve: --requests N must be from 1 to %" G_GINT64_FORMAT,
                            BPW_SERVE_MAX_REQUESTS);
  else if (args.max_batch < 1 || args.max_batch > 65536)
    status = bpw_cli_usage ("serve", "serve: --max-batch N must be from 1 to 65536");
  else if (args.seed < 0)
    status = bpw_cli_usage ("serve", "serve: --seed S must not be negative");
  else if (args.kv_block < 1 || args.kv_block > BPW_SERVE_MAX_KV_BLOCK)
    status = bpw_cli_usage ("serve", "serve: --kv-block N must be from 1 to %d tokens",
                            BPW_SERVE_MAX_KV_BLOCK);
  else if (!(args.prefix_hit >= 0 && args.prefix_hit < 1))
    status = bpw_cli_usage ("serve", "serve: --prefix-hit H must be at least 0 and below 1");
  else if (args.chunk < 0)
    status = bpw_cli_usage ("serve", "serve: --chunked-prefill N must be a positive number "
                            "of tokens");
  else if (args.spec_tokens < 0 || args.spec_tokens > BPW_SERVE_MAX_SPEC_TOKENS)
    status = bpw_cli_usage ("serve", "serve: --spec-tokens K must be from 0 to %d",
                            BPW_SERVE_MAX_SPEC_TOKENS);
  else if (!(args.spec_accept >= 0 && args.spec_accept < 1))
    status = bpw_cli_usage ("serve", "serve: --spec-accept A must be at least 0 and below 1");
  else if (args.spec_tokens == 0 && (args.draft != NULL || args.spec_accept > 0))
    status = bpw_cli_usage ("serve", "serve: --draft and --spec-accept need --spec-tokens K");
  else if (!args.pools.enabled && args.kv_tier != NULL)
    status = bpw_cli_usage ("serve", "serve: --kv-tier needs --disaggregate");
  else if (args.pools.enabled && args.kv_tier == NULL)
    status = bpw_cli_usage ("serve", "serve: --disaggregate needs --kv-tier NAME, the tier "
                            "that carries KV caches from prefill to decode");
  else if (args.pools.enabled && !bpw_serve_pools_set_tier (&args.pools, args.kv_tier))
    status = bpw_cli_usage ("serve", "serve: --kv-tier: expected a tier name of 1 to %d "
                            "bytes", BPW_SERVE_TIER_NAME_SIZE - 1);
  else if (args.pools.enabled && (invalid = bpw_serve_pools_invalid_field (&args.pools)))
    {
      g_autofree char *flag = g_strdelimit (g_strdup (invalid), "_", '-');

      status = bpw_cli_usage ("serve", "serve: --%s must be from 1 to %d", flag,
                              g_str_has_suffix (invalid, "replicas")
                              ? BPW_SERVE_MAX_POOL_REPLICAS : BPW_SERVE_MAX_POOL_DEGREE);
    }
  else if (args.pools.enabled && (options.tp != BPW_CLI_UNSET || options.pp != BPW_CLI_UNSET
                                  || options.dp != BPW_CLI_UNSET))
    status = bpw_cli_usage ("serve", "serve: --tp, --pp and --dp shape colocated replicas; with "
                            "--disaggregate give --prefill-replicas, --prefill-tp, --prefill-pp, "
                            "--decode-replicas, --decode-tp and --decode-pp");
  else if (args.pools.enabled && args.draft != NULL)
    status = bpw_cli_usage ("serve", "serve: --draft with --disaggregate is not modelled; "
                            "speculate with the MTP heads (no --draft)");
  else
    status = serve_run (argv[1], blueprint, &options, &args);

  g_free (args.prompt);
  g_free (args.output);
  g_free (args.sweep);
  g_free (args.kv_dtype);
  g_free (args.draft);
  g_free (args.kv_tier);
  bpw_cli_options_clear (&options);
  return status;
}
