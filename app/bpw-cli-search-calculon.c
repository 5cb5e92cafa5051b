/* bpw-cli-search-calculon.c — `bpw search --cost-model calculon`: Calculon's own search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The options of a workbench search that Calculon's `llm-optimal-execution` also has map
 * onto it (--tp and --pp fix a slice, --tp-overlap none and --no-dp-overlap are its
 * --no-tp-overlap and --no-dp-overlap, --fused-activation its -f, --global-batch its
 * maximum batch, --dtype its datatype); the choices it makes itself are refused.
 */
#define G_LOG_DOMAIN "bpw-cli-search-calculon"

#include "config.h"

#include "bpw-cli-search-job.h"

#include <math.h>
#include <string.h>

#include "bpw-calculon-bridge.h"
#include "bpw-calculon-rules.h"
#include "bpw-cli.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

gboolean
bpw_cli_search_job_is_calculon (const BpwCliSearchJob *job)
{
  return g_strcmp0 (job->cost_model, "calculon") == 0;
}

static gboolean
bpw_cli_calculon_refuse (GError    **error,
                         const char *option)
{
  g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--cost-model calculon: %s is not a choice of "
               "Calculon's search (it searches it, or lacks it)", option);
  return FALSE;
}

/* What the job asks of Calculon's search, checked before anything is loaded. */
static gboolean
bpw_cli_calculon_options (const BpwCliSearchJob    *job,
                          BpwCalculonSearchOptions *options,
                          GError                  **error)
{
  const BpwCliOptions *o = &job->options;
  static const char * const fused[] = { "on", "off", "both" };
  guint f = 0;

  bpw_calculon_search_options_init (options);
  if (job->space != NULL && g_strcmp0 (job->space, "calculon") != 0)
    return bpw_cli_calculon_refuse (error, "--space full");
  if (o->dp != BPW_CLI_UNSET)
    return bpw_cli_calculon_refuse (error, "--dp");
  if (o->ep != BPW_CLI_UNSET)
    return bpw_cli_calculon_refuse (error, "--ep");
  if (o->cp != BPW_CLI_UNSET || o->cp_algorithm != NULL || job->max_cp != BPW_CLI_UNSET)
    return bpw_cli_calculon_refuse (error, "--cp/--max-cp");
  if (o->zero != BPW_CLI_UNSET)
    return bpw_cli_calculon_refuse (error, "--zero");
  if (o->sp)
    return bpw_cli_calculon_refuse (error, "--sp");
  if (o->schedule != NULL || o->interleave != BPW_CLI_UNSET)
    return bpw_cli_calculon_refuse (error, "--schedule/--interleave");
  if (o->micro_batch != BPW_CLI_UNSET)
    return bpw_cli_calculon_refuse (error, "--micro-batch");
  if (o->recompute != NULL)
    return bpw_cli_calculon_refuse (error, "--recompute");
  if (o->execution != NULL || o->mapping != NULL)
    return bpw_cli_calculon_refuse (error, "--execution/--mapping");
  if (bpw_cli_options_unused_by_calculon (o) != NULL)
    return bpw_cli_calculon_refuse (error, bpw_cli_options_unused_by_calculon (o));
  if (job->sweep != NULL || job->pareto || job->fusion_sets != NULL || job->offloads != NULL)
    return bpw_cli_calculon_refuse (error, "--sweep-param, --pareto, --fusion-sets or "
                                    "--offload");
  if (o->tp_overlap != NULL && g_strcmp0 (o->tp_overlap, "none") != 0)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--cost-model calculon: --tp-overlap "
                   "takes only none (Calculon's --no-tp-overlap); it tries the others itself");
      return FALSE;
    }
  if (o->dp_overlap)
    return bpw_cli_calculon_refuse (error, "--dp-overlap (it tries both; --no-dp-overlap "
                                    "keeps it off)");
  if (job->fused_activation != NULL)
    {
      while (f < G_N_ELEMENTS (fused) && g_strcmp0 (job->fused_activation, fused[f]) != 0)
        f++;
      if (f == G_N_ELEMENTS (fused))
        {
          g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--fused-activation: expected on, off "
                       "or both, got '%s'", job->fused_activation);
          return FALSE;
        }
    }
  if (!bpw_cli_search_job_activations (job, &options->act_offload, error))
    return FALSE;

  options->top_n = (guint) job->top;
  options->threads = (guint) job->threads;
  options->fused_on = f != 1;
  options->fused_off = f != 0;
  options->tp_overlap = o->tp_overlap == NULL;
  options->dp_overlap = !o->no_dp_overlap;
  options->tp = o->tp != BPW_CLI_UNSET ? o->tp : 0;
  options->pp = o->pp != BPW_CLI_UNSET ? o->pp : 0;
  if (job->shard != NULL
      && !bpw_cli_search_parse_shard (job->shard, &options->shard_index, &options->shard_count,
                                      error))
    return FALSE;
  return TRUE;
}

BpwCalculonSpace *
bpw_cli_calculon_search_prepare (BpwCliSearchJob *job,
                                 const char      *model,
                                 BpwCliSetup     *setup,
                                 GError         **error)
{
  BpwCalculonSearchOptions options;
  BpwCalculonApp app;
  BpwCalculonSystem system;

  memset (setup, 0, sizeof *setup);
  if (!bpw_cli_search_job_check (job, error) || !bpw_cli_calculon_options (job, &options, error)
      || !bpw_cli_setup_load (setup, model, job->blueprint, &job->options, error)
      || !bpw_calculon_app_from_spec (&setup->spec, setup->scenario.seq, &app, error)
      || !bpw_calculon_system_from_blueprint (setup->blueprint, setup->scenario.dtype, &system,
                                              error))
    return NULL;
  if (setup->scenario.phase != BPW_WORKLOAD_TRAIN)
    {
      g_set_error_literal (error, BPW_CLI_USAGE_ERROR, 0, "--cost-model calculon: Calculon's "
                           "search is of training executions (--phase train)");
      return NULL;
    }
  return bpw_calculon_space_new (&app, &system, job->devices, setup->scenario.global_batch,
                                 setup->scenario.dtype, &options, error);
}

BpwSearchReport *
bpw_cli_calculon_workbench (const BpwCalculonSearchReport *report,
                            const BpwCliSetup             *setup,
                            gint64                         devices)
{
  g_autoptr(BpwSearchSpace) problem = NULL;
  BpwSearchLimits limits;

  bpw_search_limits_init (&limits);
  limits.rules = bpw_calculon_search_rules ();
  problem = bpw_search_space_new (&setup->spec, &setup->scenario, setup->blueprint,
                                  &setup->mapping, devices, &limits, NULL);
  if (problem == NULL)
    return NULL;
  return bpw_calculon_search_report_to_workbench (report, problem, FALSE, FALSE);
}

static const char *
bpw_cli_calculon_offloads (const BpwCalculonExecution *e)
{
  static const char * const names[8] = {
    "none", "opt", "acts", "acts+opt", "w", "w+opt", "w+acts", "all"
  };

  return names[(e->weight_offload ? 4 : 0) | (e->activations_offload ? 2 : 0)
               | (e->optimizer_offload ? 1 : 0)];
}

char *
bpw_cli_calculon_search_report_to_text (const BpwCalculonSearchReport *r,
                                        const BpwSearchReport         *workbench,
                                        const BpwCliSetup             *setup,
                                        gint64                         devices)
{
  static const char * const recompute[] = {
    [BPW_RECOMPUTE_NONE] = "none", [BPW_RECOMPUTE_SELECTIVE] = "attn_only",
    [BPW_RECOMPUTE_FULL] = "full",
  };
  static const char * const comm[] = { "ar", "p2p_rs_ag", "rs_ag" };
  static const char * const overlap[] = { "none", "ring", "pipe" };
  GString *out = g_string_new (NULL);
  guint64 range = r->end - r->begin;

  g_string_append_printf (out, "Search with Calculon's model (calculon-ai/calculon caa4b11): "
                          "%s on %" G_GINT64_FORMAT " x %s, training, batch up to %"
                          G_GINT64_FORMAT " x %" G_GINT64_FORMAT " tokens, %s\n",
                          setup->spec.name, devices, setup->blueprint->name,
                          setup->scenario.global_batch, setup->scenario.seq,
                          bpw_dtype_to_string (setup->scenario.dtype));
  g_string_append_printf (out, "  space        %" G_GUINT64_FORMAT " executions", r->space);
  if (r->shard_count > 1)
    g_string_append_printf (out, " (shard %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ": %"
                            G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ")", r->shard_index,
                            r->shard_count, r->begin, r->end);
  g_string_append_printf (out, "\n  evaluated    %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                          "%s in %.3f s with %u threads (%.3g executions/s)\n", r->evaluated,
                          range, r->cancelled ? " (cancelled)" : "", r->seconds, r->threads,
                          r->seconds > 0 ? (double) r->evaluated / r->seconds : 0.0);
  g_string_append_printf (out, "  good         %" G_GUINT64_FORMAT ", bad %" G_GUINT64_FORMAT
                          " (Calculon's Llm.Error: tiers, interleaving, offload, memory)\n",
                          r->good, r->bad);
  if (r->best->len == 0)
    {
      g_string_append (out, "No good execution.\n");
      return g_string_free (out, FALSE);
    }
  g_string_append (out, "\n  #  step (s)  bpw (s) samples/s  TP  PP   DP   v  mb batch "
                        "recompute comm      TP-ovl redo DP-ovl shard offload  tiers  tier1 GiB"
                        "  eff.\n");
  for (guint i = 0; i < r->best->len; i++)
    {
      const BpwCalculonSearchResult *b = &g_array_index (r->best, BpwCalculonSearchResult, i);
      const BpwCalculonExecution *e = &b->exe;
      double ours = workbench != NULL && i < workbench->best->len
                    ? g_array_index (workbench->best, BpwSearchResult, i).estimate.step_time_s
                    : NAN;
      g_autofree char *bpw = isfinite (ours) ? g_strdup_printf ("%8.4f", ours)
                                             : g_strdup ("       -");

      g_string_append_printf (out, "%3u %9.4f %s %9.3f %3" G_GINT64_FORMAT " %3" G_GINT64_FORMAT
                              " %4" G_GINT64_FORMAT " %3" G_GINT64_FORMAT " %3" G_GINT64_FORMAT
                              " %5" G_GINT64_FORMAT " %-9s %-9s %-6s %-4s %-6s %-5s %-8s "
                              "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                              "  %9.2f %5.1f%%\n", i + 1, b->stats.total_time, bpw,
                              b->stats.sample_rate, e->tensor_par, e->pipeline_par, e->data_par,
                              e->pipeline_interleaving, e->microbatch_size, e->batch_size,
                              recompute[e->activation_recompute], comm[e->tensor_par_comm_type],
                              overlap[e->tensor_par_overlap], e->seq_par_ag_redo ? "yes" : "no",
                              e->data_par_overlap ? "on" : "off",
                              e->optimizer_sharding ? "yes" : "no", bpw_cli_calculon_offloads (e),
                              e->tensor_par_net, e->pipeline_par_net, e->data_par_net,
                              b->stats.proc_mem_tier1_cap_req / GIB,
                              100.0 * b->stats.total_efficiency);
    }
  g_string_append (out, "\nRanked by Calculon's sample rate (ties: the order Calculon "
                        "enumerates in); step: its total_time;\nbpw: the workbench's analytic "
                        "estimate of the same plan (bpw evaluate --analytic); tiers: the\n"
                        "networks of TP/PP/DP; eff.: Calculon's total_efficiency. --json gives "
                        "each execution, all its\nstatistics and the workbench's mapping of "
                        "it.\n");
  return g_string_free (out, FALSE);
}

/* Shards of Calculon's own search merge by its rules; the format of the first says whose. */
static gboolean
bpw_cli_is_calculon_search (const char *text)
{
  g_autoptr(JsonNode) node = json_from_string (text, NULL);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node)
         && g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (node),
                                                                   "format", ""),
                       "bpw-calculon-search") == 0;
}

char *
bpw_cli_search_merge_texts (const char * const *texts,
                            const char * const *names,
                            guint               n,
                            GError            **error)
{
  if (n > 0 && bpw_cli_is_calculon_search (texts[0]))
    return bpw_calculon_search_merge_json (texts, names, n, error);
  return bpw_search_merge_json (texts, names, n, error);
}
