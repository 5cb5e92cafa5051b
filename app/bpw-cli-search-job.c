/* bpw-cli-search-job.c — the options of `bpw search`, shared with bpw-mpi-search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-search-job"

#include "config.h"

#include "bpw-cli-search-job.h"

#include <stdlib.h>
#include <string.h>

#include "bpw-calculon-rules.h"
#include "bpw-cli.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static const char bpw_cli_search_help[] =
  "The space: TP (divisors of N that divide heads, MLP width and vocabulary), PP (divisors\n"
  "of N/TP, at most the layers), DP = N/(TP x PP), EP (mixture of experts), ZeRO 0-3,\n"
  "offload (none, weights, optimizer, both; with host memory), SP, fusion set, recompute,\n"
  "micro-batch (divisors of the local batch), schedule (1F1B, GPipe, interleaved with v\n"
  "dividing layers/PP), TP overlap (ring, pipe, none), DP overlap (on, off) and the\n"
  "collective algorithm of each tier that carries a group (auto or each one it offers).\n"
  "Giving --tp, --pp, --dp, --ep, --zero, --sp, --schedule, --interleave, --micro-batch,\n"
  "--recompute, --tp-overlap or --[no-]dp-overlap fixes that choice; the other mapping\n"
  "options (tiers, tiling, --mapping) shape every plan.\n"
  "Context parallelism stays at --cp (1 without it) unless --max-cp N asks for it to be\n"
  "searched: every CP up to N that divides the devices and splits the sequence into 2 CP\n"
  "chunks, with both algorithms (ring, all-gather); the CP column shows what won.\n"
  "\n"
  "--space calculon restricts (and widens) the space to Calculon's llm-optimal-execution:\n"
  "TP also dividing the hidden size, PP dividing the layers, ZeRO 0 or 2, weights,\n"
  "activations and optimizer offloaded independently (3+ layers per stage), fusion set\n"
  "default, no GPipe, no algorithms, and the tier of TP, PP and DP chosen per plan;\n"
  "--activations device or host keeps one side of the activation-offload choice.\n"
  "\n"
  "--cost-model calculon runs Calculon's own search: its space, enumerated in its order,\n"
  "each execution priced by a port of Calculon's model (calculon-ai/calculon caa4b11) that\n"
  "gives its statistics to the last bit; ranked by its sample rate, ties in its order, so\n"
  "the counts (good, bad) and the best list are what `calculon loe` prints and writes.\n"
  "--global-batch is its maximum batch, --dtype its datatype (fp16: float16), --tp and\n"
  "--pp fix a slice, --tp-overlap none and --no-dp-overlap are its --no-tp-overlap and\n"
  "--no-dp-overlap, --fused-activation its -f; --shard and --threads work the same.\n"
  "\n"
  "Plans are ranked by the analytic step time (ties: lower index), pruned only by sound\n"
  "bounds; the best are re-evaluated through the full plan and simulated (their keys are\n"
  "those of bpw evaluate --json). Plans that differ only in collective algorithms and\n"
  "estimate exactly alike (time, energy, memory: overlap hides the collectives) are one\n"
  "result, the first of them, counted in equivalent_variants. Results do not depend on\n"
  "--threads. --shard I/N evaluates the I-th of N equal index ranges; 'bpw search-merge\n"
  "FILE...' (or 'bpw search --merge FILE...') combines the --json outputs of shards:\n"
  "their 'evaluated' counts add up and the merged 'best' equals the whole run's.\n"
  "\n"
  "--sweep-param NAME=V1,V2,... (repeatable: a grid) re-searches for every value of a\n"
  "blueprint parameter and splits the gain into architecture (the baseline's best mapping\n"
  "re-evaluated on the changed blueprint) and mapping (the re-searched best). NAME:\n"
  "hbm_bandwidth, hbm_capacity, sram_capacity, link_bandwidth (tier 0, or\n"
  "link_bandwidth.TIER), matrix_peak, power_cap, devices. Values take units: 3TB/s, 96GiB.\n"
  "\n"
  "JSON keys: evaluated (plans decided, adds up over shards), estimated, legal, failed,\n"
  "pruned.{illegal,bound,dominated}, space, shard, seconds, plans_per_s, complete, best\n"
  "(each: index, algorithm_class (the index of its automatic-algorithm plan),\n"
  "equivalent_variants, estimated_step_time_s, mapping, and the keys of bpw evaluate --json).";

void
bpw_cli_search_job_init (BpwCliSearchJob *job)
{
  memset (job, 0, sizeof *job);
  bpw_cli_options_init (&job->options);
  job->devices = BPW_CLI_UNSET;
  job->top = 10;
  job->threads = 0;
  job->max_cp = BPW_CLI_UNSET;
}

void
bpw_cli_search_job_clear (BpwCliSearchJob *job)
{
  bpw_cli_options_clear (&job->options);
  g_clear_pointer (&job->blueprint, g_free);
  g_clear_pointer (&job->shard, g_free);
  g_clear_pointer (&job->fusion_sets, g_free);
  g_clear_pointer (&job->offloads, g_free);
  g_clear_pointer (&job->activations, g_free);
  g_clear_pointer (&job->space, g_free);
  g_clear_pointer (&job->cost_model, g_free);
  g_clear_pointer (&job->fused_activation, g_free);
  g_clear_pointer (&job->sweep, g_strfreev);
}

void
bpw_cli_search_job_add (BpwCliSearchJob *job,
                        GOptionContext  *context)
{
  const GOptionEntry entries[] = {
    { "blueprint", 0, 0, G_OPTION_ARG_STRING, &job->blueprint,
      "The candidate accelerator (required)", "BP" },
    { "devices", 0, 0, G_OPTION_ARG_INT64, &job->devices,
      "Number of devices N (required)", "N" },
    { "top", 0, 0, G_OPTION_ARG_INT64, &job->top, "Keep the K best plans (default 10)", "K" },
    { "threads", 0, 0, G_OPTION_ARG_INT64, &job->threads,
      "Worker threads (default: one per processor)", "N" },
    { "max-cp", 0, 0, G_OPTION_ARG_INT64, &job->max_cp,
      "Search context parallelism from 1 to N (default: fixed at --cp, or 1)", "N" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &job->shard,
      "Evaluate the I-th of N equal index ranges (0 <= I < N)", "I/N" },
    { "fusion-sets", 0, 0, G_OPTION_ARG_STRING, &job->fusion_sets,
      "Fusion sets to try (default all: none,default,attention,all)", "LIST" },
    { "offload", 0, 0, G_OPTION_ARG_STRING, &job->offloads,
      "Offload choices to try (default all the blueprint allows: none,weights,optimizer,both)",
      "LIST" },
    { "activations", 0, 0, G_OPTION_ARG_STRING, &job->activations,
      "Where stored activations may live in Calculon's space: device, host or both (default)",
      "WHERE" },
    { "space", 0, 0, G_OPTION_ARG_STRING, &job->space,
      "The space: full (default) or calculon (Calculon's llm-optimal-execution)", "SPACE" },
    { "cost-model", 0, 0, G_OPTION_ARG_STRING, &job->cost_model,
      "Price plans with the workbench's model (default) or Calculon's own (calculon)",
      "MODEL" },
    { "fused-activation", 0, 0, G_OPTION_ARG_STRING, &job->fused_activation,
      "With --cost-model calculon: fused GeLU on (default), off or both (Calculon's -f)",
      "WHICH" },
    { "no-algorithms", 0, 0, G_OPTION_ARG_NONE, &job->no_algorithms,
      "Automatic collective algorithms only (do not enumerate them per tier)", NULL },
    { "exhaustive", 0, 0, G_OPTION_ARG_NONE, &job->exhaustive,
      "Evaluate every plan, without bounds (slow; for checking)", NULL },
    { "pareto", 0, 0, G_OPTION_ARG_NONE, &job->pareto,
      "Also keep the Pareto front of step time and energy (turns the time bounds off)", NULL },
    { "no-reevaluate", 0, 0, G_OPTION_ARG_NONE, &job->no_reevaluate,
      "Report the best with the analytic estimate only (no full plans)", NULL },
    { "no-simulate", 0, 0, G_OPTION_ARG_NONE, &job->no_simulate,
      "Re-evaluate the best through full plans but do not simulate them", NULL },
    { "sweep-param", 0, 0, G_OPTION_ARG_STRING_ARRAY, &job->sweep,
      "Sweep a blueprint parameter (repeatable)", "NAME=V1,V2,..." },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &job->progress,
      "Show progress, rate and best so far on stderr", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &job->json, "Print the result as JSON", NULL },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_options_add (&job->options, context);
  bpw_cli_options_add_mapping (&job->options, context);
}

const char *
bpw_cli_search_job_help (void)
{
  return bpw_cli_search_help;
}

gboolean
bpw_cli_search_parse_shard (const char *text,
                            guint64    *index,
                            guint64    *count,
                            GError    **error)
{
  g_auto(GStrv) parts = g_strsplit (text, "/", 2);

  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT32, index, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT32, count, NULL) ||
      *index >= *count)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0,
                   "--shard: expected I/N with 0 <= I < N (such as 0/4), got '%s'", text);
      return FALSE;
    }
  return TRUE;
}

/* A comma-separated list of names into a bit mask. */
static gboolean
parse_list (const char *option, const char *text, gboolean (*parse) (const char *, guint *),
            const char *choices, guint *mask, GError **error)
{
  g_auto(GStrv) items = g_strsplit (text, ",", -1);

  *mask = 0;
  for (guint i = 0; items[i] != NULL; i++)
    {
      guint v;

      if (!parse (g_strstrip (items[i]), &v))
        {
          g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--%s: expected a list of %s, got '%s'",
                       option, choices, items[i]);
          return FALSE;
        }
      *mask |= 1u << v;
    }
  if (*mask == 0)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--%s: expected at least one of %s",
                   option, choices);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_fusion_set (const char *s, guint *v)
{
  BpwSearchFusionSet f;

  if (!bpw_search_fusion_set_from_string (s, &f))
    return FALSE;
  *v = f;
  return TRUE;
}

static gboolean
parse_offload (const char *s, guint *v)
{
  BpwSearchOffload o;

  if (!bpw_search_offload_from_string (s, &o))
    return FALSE;
  *v = o;
  return TRUE;
}

gboolean
bpw_cli_search_job_check (const BpwCliSearchJob *job,
                          GError               **error)
{
  if (job->cost_model != NULL && g_strcmp0 (job->cost_model, "workbench") != 0
      && g_strcmp0 (job->cost_model, "calculon") != 0)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--cost-model: expected workbench or "
                   "calculon, got '%s'", job->cost_model);
      return FALSE;
    }
  if (job->devices == BPW_CLI_UNSET)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "search: missing --devices N");
      return FALSE;
    }
  if (job->devices < 1 || job->devices > (G_GINT64_CONSTANT (1) << 24))
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--devices: expected an integer from 1 to "
                   "16777216, got %" G_GINT64_FORMAT, job->devices);
      return FALSE;
    }
  if (job->top < 1 || job->top > 100000)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--top: expected an integer from 1 to "
                   "100000, got %" G_GINT64_FORMAT, job->top);
      return FALSE;
    }
  if (job->threads < 0 || job->threads > 1024)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--threads: expected an integer from 1 to "
                   "1024, got %" G_GINT64_FORMAT, job->threads);
      return FALSE;
    }
  if (job->max_cp != BPW_CLI_UNSET && (job->max_cp < 1 || job->max_cp > job->devices))
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--max-cp: expected an integer from 1 to "
                   "the devices (%" G_GINT64_FORMAT "), got %" G_GINT64_FORMAT, job->devices,
                   job->max_cp);
      return FALSE;
    }
  if (job->max_cp != BPW_CLI_UNSET && job->options.cp != BPW_CLI_UNSET)
    {
      g_set_error_literal (error, BPW_CLI_USAGE_ERROR, 0, "--max-cp searches context "
                           "parallelism and --cp fixes it: give one of them");
      return FALSE;
    }
  return TRUE;
}

gboolean
bpw_cli_search_job_activations (const BpwCliSearchJob *job,
                                gint                  *act_offload,
                                GError               **error)
{
  static const char * const wheres[] = { "device", "host", "both" };
  guint i = 0;

  *act_offload = -1;
  if (job->activations == NULL)
    return TRUE;
  while (i < G_N_ELEMENTS (wheres) && g_strcmp0 (job->activations, wheres[i]) != 0)
    i++;
  if (i == G_N_ELEMENTS (wheres))
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--activations: expected device, host or "
                   "both, got '%s'", job->activations);
      return FALSE;
    }
  *act_offload = i == 2 ? -1 : (gint) i;
  return TRUE;
}

gboolean
bpw_cli_search_job_prepare (BpwCliSearchJob   *job,
                            const char        *model,
                            BpwCliSetup       *setup,
                            BpwSearchOptions  *options,
                            BpwSearchLimits   *limits,
                            GError           **error)
{
  const BpwCliOptions *o = &job->options;

  bpw_search_options_init (options);
  bpw_search_limits_init (limits);
  /* Cleared as is when we fail before loading. */
  memset (setup, 0, sizeof *setup);

  if (!bpw_cli_search_job_check (job, error))
    return FALSE;
  if (job->fused_activation != NULL)
    {
      g_set_error_literal (error, BPW_CLI_USAGE_ERROR, 0, "--fused-activation belongs to "
                           "--cost-model calculon; the workbench's search has --fusion-sets");
      return FALSE;
    }
  if (o->fusion != NULL)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "search chooses fusion itself: use "
                   "--fusion-sets LIST to restrict it");
      return FALSE;
    }
  options->top_k = (guint) job->top;
  options->threads = (guint) job->threads;
  options->exhaustive = job->exhaustive;
  options->pareto = job->pareto;
  options->reevaluate = !job->no_reevaluate;
  options->simulate = !job->no_simulate;
  if (job->shard != NULL &&
      !bpw_cli_search_parse_shard (job->shard, &options->shard_index, &options->shard_count,
                                   error))
    return FALSE;
  if (job->fusion_sets != NULL &&
      !parse_list ("fusion-sets", job->fusion_sets, parse_fusion_set,
                   "none, default, attention, all", &limits->fusion_sets, error))
    return FALSE;
  if (job->offloads != NULL &&
      !parse_list ("offload", job->offloads, parse_offload, "none, weights, optimizer, both",
                   &limits->offloads, error))
    return FALSE;
  limits->algorithms = !job->no_algorithms;
  if (job->space != NULL && g_strcmp0 (job->space, "calculon") != 0 &&
      g_strcmp0 (job->space, "full") != 0)
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "--space: expected full or calculon, got '%s'",
                   job->space);
      return FALSE;
    }
  limits->rules = g_strcmp0 (job->space, "calculon") == 0 ? bpw_calculon_search_rules ()
                                                           : NULL;
  if (!bpw_cli_search_job_activations (job, &limits->act_offload, error))
    return FALSE;
  if (limits->act_offload == 1 && limits->rules != bpw_calculon_search_rules ())
    {
      g_set_error_literal (error, BPW_CLI_USAGE_ERROR, 0, "--activations host: only "
                           "Calculon's space (--space calculon) offloads activations");
      return FALSE;
    }

  if (!bpw_cli_setup_load (setup, model, job->blueprint, o, error))
    return FALSE;

  /* What the user gave is fixed; everything else is searched. */
  limits->tp = o->tp != BPW_CLI_UNSET ? o->tp : 0;
  limits->pp = o->pp != BPW_CLI_UNSET ? o->pp : 0;
  limits->dp = o->dp != BPW_CLI_UNSET ? o->dp : 0;
  limits->ep = o->ep != BPW_CLI_UNSET ? o->ep : 0;
  /* Context parallelism only pays off for long sequences and multiplies the space, so it
   * is searched only when --max-cp asks; else it stays at --cp (1 without it). */
  limits->cp = o->cp != BPW_CLI_UNSET ? o->cp : job->max_cp != BPW_CLI_UNSET ? 0 : 1;
  limits->max_cp = job->max_cp != BPW_CLI_UNSET ? job->max_cp : 0;
  limits->zero = o->zero != BPW_CLI_UNSET ? (gint) o->zero : -1;
  limits->sp = o->sp ? 1 : -1;
  limits->schedule = o->schedule != NULL ? (gint) setup->parallel.schedule : -1;
  limits->interleave = o->interleave != BPW_CLI_UNSET ? o->interleave : 0;
  limits->micro_batch = o->micro_batch != BPW_CLI_UNSET ? setup->scenario.micro_batch : 0;
  limits->recompute = o->recompute != NULL ? (gint) setup->scenario.recompute : -1;
  limits->tp_overlap = o->tp_overlap != NULL ? (gint) setup->mapping.tp_overlap : -1;
  limits->dp_overlap = o->dp_overlap || o->no_dp_overlap ? setup->mapping.dp_overlap : -1;
  return TRUE;
}

static void
describe_algorithms (GString *out, const BpwSearchSpace *space, const BpwMapping *m)
{
  gboolean any = FALSE;

  for (guint t = 0; t < MIN (space->blueprint->n_tiers, BPW_MAPPING_MAX_TIERS); t++)
    if (m->algorithm[t] != 0)
      {
        g_string_append_printf (out, "%s%s:%s", any ? "," : "", space->blueprint->tiers[t].name,
                                bpw_collective_algo_to_string (m->algorithm[t]));
        any = TRUE;
      }
  if (!any)
    g_string_append (out, "auto");
}

static const char *
offload_of (const BpwMapping *m)
{
  gboolean w = m->placement[BPW_TENSOR_WEIGHT] == BPW_PLACEMENT_HOST;
  gboolean o = m->placement[BPW_TENSOR_OPTIMIZER_STATE] == BPW_PLACEMENT_HOST;
  gboolean a = m->placement[BPW_TENSOR_ACTIVATION] == BPW_PLACEMENT_HOST;
  static const char * const with_acts[BPW_SEARCH_N_OFFLOADS] = {
    "acts", "w+acts", "opt+acts", "all",
  };
  BpwSearchOffload which = w && o ? BPW_SEARCH_OFFLOAD_BOTH
                           : w ? BPW_SEARCH_OFFLOAD_WEIGHTS
                           : o ? BPW_SEARCH_OFFLOAD_OPTIMIZER
                               : BPW_SEARCH_OFFLOAD_NONE;

  return a ? with_acts[which] : bpw_search_offload_to_string (which);
}

/* Calculon's space chooses the tier of each group: "TP:nvlink,DP:ib". */
static void
describe_tiers (GString *out, const BpwSearchSpace *space, const BpwMapping *m)
{
  static const char * const names[BPW_N_GROUPS] = { "TP", "PP", "DP", "EP", "CP" };
  const BpwParallel *p = &m->parallel;
  gint64 degree[BPW_N_GROUPS] = { p->tp, p->pp, p->dp, p->ep, p->cp };
  gboolean any = FALSE;

  for (guint g = BPW_GROUP_TP; g <= BPW_GROUP_DP; g++)
    if (degree[g] > 1 && m->tier[g] >= 0 && (guint) m->tier[g] < space->blueprint->n_tiers)
      {
        g_string_append_printf (out, "%s%s:%s", any ? "," : "", names[g],
                                space->blueprint->tiers[m->tier[g]].name);
        any = TRUE;
      }
  if (!any)
    g_string_append (out, "-");
}

static const char *
fusion_of (const BpwMapping *m)
{
  for (guint f = 0; f < BPW_SEARCH_N_FUSION_SETS; f++)
    if (bpw_search_fusion_set_flags (f) == m->fusion)
      return bpw_search_fusion_set_to_string (f);
  return "custom";
}

char *
bpw_cli_search_report_to_text (const BpwSearchReport *r,
                               const BpwSearchSpace  *space)
{
  GString *out = g_string_new (NULL);
  guint64 range = r->end - r->begin;
  gboolean folded = FALSE;

  g_string_append_printf (out, "Search: %s on %" G_GINT64_FORMAT " x %s, %s, batch %"
                          G_GINT64_FORMAT " x %" G_GINT64_FORMAT " tokens\n", space->spec.name,
                          space->devices, space->blueprint->name,
                          bpw_workload_phase_to_string (space->scenario.phase),
                          space->scenario.global_batch, space->scenario.seq);
  g_string_append_printf (out, "  space        %" G_GUINT64_FORMAT " plans", r->space);
  if (r->shard_count > 1)
    g_string_append_printf (out, " (shard %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ": %"
                            G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ")", r->shard_index,
                            r->shard_count, r->begin, r->end);
  g_string_append_printf (out, "\n  evaluated    %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                          "%s in %.3f s with %u threads (%.3g plans/s)\n", r->evaluated, range,
                          r->cancelled ? " (cancelled)" : "", r->seconds, r->threads,
                          r->seconds > 0 ? (double) r->evaluated / r->seconds : 0.0);
  g_string_append_printf (out, "  estimated    %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
                          " legal, %" G_GUINT64_FORMAT " refused), %" G_GUINT64_FORMAT
                          " templates\n", r->estimated, r->legal, r->failed, r->templates);
  g_string_append_printf (out, "  pruned       %" G_GUINT64_FORMAT " proved illegal, %"
                          G_GUINT64_FORMAT " by the step-time bound, %" G_GUINT64_FORMAT
                          " dominated\n", r->pruned_illegal, r->pruned_bound,
                          r->pruned_dominated);
  if (r->best->len == 0)
    {
      g_string_append (out, "No legal plan.\n");
      return g_string_free (out, FALSE);
    }
  for (guint i = 0; i < r->best->len; i++)
    folded |= g_array_index (r->best, BpwSearchResult, i).equivalent_variants > 1;
  g_string_append_printf (out, "\n  #  est. (s)  sim. (s)   MFU    TP  PP   DP EP CP       SP ZeRO  mb  "
                          "schedule      recompute fusion    offload   TP-ovl DP-ovl mem GiB  "
                          "%s\n", space->rules->network_tiers ? "tiers" : "algorithms");
  for (guint i = 0; i < r->best->len; i++)
    {
      const BpwSearchResult *b = &g_array_index (r->best, BpwSearchResult, i);
      const BpwMapping *m = &b->mapping;
      const BpwParallel *p = &m->parallel;
      g_autofree char *sched = p->schedule == BPW_SCHEDULE_INTERLEAVED
                               ? g_strdup_printf ("interleaved/%" G_GINT64_FORMAT, p->interleave)
                               : g_strdup (bpw_schedule_to_string (p->schedule));

      const BpwEvaluation *e = b->simulated ? &b->simulation : &b->evaluation;
      g_autofree char *sim = b->simulated ? g_strdup_printf ("%9.4f", e->step_time_s)
                                          : g_strdup ("        -");
      /* CP with its algorithm where it splits the sequence: "16/ring". */
      g_autofree char *cp = p->cp > 1 ? g_strdup_printf ("%" G_GINT64_FORMAT "/%s", p->cp,
                                                         bpw_cp_algorithm_to_string (p->cp_algorithm))
                                      : g_strdup ("1");

      g_string_append_printf (out, "%3u %9.4f %s %5.1f%% %4" G_GINT64_FORMAT " %3" G_GINT64_FORMAT
                              " %4" G_GINT64_FORMAT " %2" G_GINT64_FORMAT " %-8s %-3s %3d %4"
                              G_GINT64_FORMAT "  %-13s %-9s %-9s %-9s %-6s %-6s %6.1f  ", i + 1,
                              b->estimate.step_time_s, sim, 100.0 * e->mfu, p->tp, p->pp,
                              p->dp, p->ep, cp, p->sp ? "yes" : "no", p->zero, m->micro_batch, sched,
                              bpw_recompute_to_string (m->recompute), fusion_of (m), offload_of (m),
                              bpw_tp_overlap_to_string (m->tp_overlap),
                              m->dp_overlap ? "on" : "off", e->peak_bytes / GIB);
      if (space->rules->network_tiers)
        describe_tiers (out, space, m);
      else
        describe_algorithms (out, space, m);
      if (b->equivalent_variants > 1)
        g_string_append_printf (out, " (x%" G_GUINT64_FORMAT ")", b->equivalent_variants);
      g_string_append_printf (out, "%s\n", e->legal ? "" : "  (ILLEGAL as a plan)");
    }
  g_string_append (out, "\nRanked by the analytic estimate (bpw evaluate --analytic); sim.: "
                        "the simulated step of the plan (bpw evaluate),\nwhose MFU and memory "
                        "are shown.\n");
  if (folded)
    g_string_append (out, "(xN): N choices of collective algorithms give the plan exactly the "
                          "same estimate (hidden by\noverlap); the row stands for them all and "
                          "shows the first.\n");
  return g_string_free (out, FALSE);
}
