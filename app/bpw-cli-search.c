/* bpw-cli-search.c — `bpw search` and `bpw search-merge`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-search"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "bpw-calculon-bridge.h"
#include "bpw-cli-search-job.h"
#include "bpw-error.h"
#include "bpw-file.h"
#include "bpw-sweep.h"

static volatile sig_atomic_t interrupted = FALSE;

static void
on_sigint (int signum)
{
  (void) signum;
  interrupted = TRUE;
}

typedef struct
{
  GCancellable *cancellable;
  gboolean      show;
} Watch;

/* One line, rewritten in place: share done, rate, time left, best so far. */
static void
print_progress (guint64     done,
                guint64     total,
                const char *what,
                double      elapsed_s,
                double      remaining_s,
                gboolean    has_best,
                double      best_s,
                guint64     best_index)
{
  g_printerr ("\rsearch: %5.1f %% of %" G_GUINT64_FORMAT " %s, %.3g %s/s",
              total > 0 ? 100.0 * (double) done / (double) total : 100.0, total, what,
              elapsed_s > 0 ? (double) done / elapsed_s : 0.0, what);
  if (!isnan (remaining_s))
    g_printerr (", ~%.0f s left", remaining_s);
  if (has_best)
    g_printerr (", best %.4f s (#%" G_GUINT64_FORMAT ")", best_s, best_index);
  g_printerr ("   ");
}

static void
search_progress_cb (const BpwSearchProgress *p,
                    gpointer                 user_data)
{
  Watch *watch = user_data;

  /* Ctrl-C stops the search; what it found so far is still reported. */
  if (interrupted)
    g_cancellable_cancel (watch->cancellable);
  if (watch->show)
    print_progress (p->decided, p->total, "plans", p->elapsed_s, p->remaining_s, p->has_best,
                    p->best_step_time_s, p->best_index);
}

static int
merge_files (char **files, guint n, gboolean json)
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *merged = NULL;

  for (guint i = 0; i < n; i++)
    {
      char *text = NULL;

      if (!bpw_file_read (files[i], BPW_FILE_MAX_INPUT_SIZE, &text, NULL, &error))
        return bpw_cli_report_error ("search-merge", error);
      g_ptr_array_add (texts, text);
    }
  merged = bpw_cli_search_merge_texts ((const char * const *) texts->pdata,
                                       (const char * const *) files, n, &error);
  if (merged == NULL)
    return bpw_cli_report_error ("search-merge", error);
  (void) json;  /* the merge of JSON documents is JSON */
  bpw_cli_print (stdout, "%s", merged);
  return BPW_CLI_EXIT_OK;
}

static void
calculon_progress_cb (const BpwCalculonSearchProgress *p,
                      gpointer                         user_data)
{
  Watch *watch = user_data;

  if (interrupted)
    g_cancellable_cancel (watch->cancellable);
  if (watch->show)
    print_progress (p->evaluated, p->total, "executions", p->elapsed_s, p->remaining_s,
                    p->has_best, p->best_total_time, p->best_index);
}

/* --cost-model calculon: Calculon's own search. */
static int
calculon_search_run (BpwCliSearchJob *job, const char *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwCalculonSpace) space = NULL;
  g_autoptr(BpwCalculonSearchReport) report = NULL;
  g_autoptr(BpwSearchReport) workbench = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *text = NULL;
  Watch watch = { cancellable, job->progress };
  BpwCliSetup setup;
  int status = BPW_CLI_EXIT_OK;

  space = bpw_cli_calculon_search_prepare (job, model, &setup, &error);
  if (space == NULL)
    {
      bpw_cli_setup_clear (&setup);
      return bpw_cli_report_error ("search", error);
    }
  signal (SIGINT, on_sigint);
  report = bpw_calculon_search_run (space, calculon_progress_cb, &watch, cancellable);
  if (job->progress)
    g_printerr ("\n");
  workbench = bpw_cli_calculon_workbench (report, &setup, job->devices);
  if (job->json)
    text = workbench != NULL
           ? bpw_calculon_search_report_to_json_with (report, space, workbench)
           : bpw_calculon_search_report_to_json (report, space);
  else
    text = bpw_cli_calculon_search_report_to_text (report, workbench, &setup, job->devices);
  bpw_cli_print (stdout, "%s", text);
  if (report->cancelled)
    g_printerr ("bpw: search interrupted: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " executions evaluated; the best so far are reported\n", report->evaluated,
                report->end - report->begin);
  if (report->best->len == 0 && report->shard_count == 1 && !report->cancelled)
    {
      bpw_cli_print (stderr, "bpw: no good execution among the %" G_GUINT64_FORMAT " of "
                     "Calculon's space for %s on %" G_GINT64_FORMAT " x %s\n", report->space,
                     setup.spec.name, job->devices, setup.blueprint->name);
      status = BPW_CLI_EXIT_ILLEGAL_PLAN;
    }
  bpw_cli_setup_clear (&setup);
  return status;
}

static int
search_run (BpwCliSearchJob *job, const char *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) report = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *text = NULL;
  BpwCliSetup setup;
  BpwSearchOptions options;
  BpwSearchLimits limits;
  Watch watch = { cancellable, job->progress };
  int status = BPW_CLI_EXIT_OK;

  if (!bpw_cli_search_job_prepare (job, model, &setup, &options, &limits, &error))
    {
      bpw_cli_setup_clear (&setup);
      return bpw_cli_report_error ("search", error);
    }
  signal (SIGINT, on_sigint);

  if (job->sweep != NULL)
    {
      g_autoptr(BpwSweep) sweep = bpw_sweep_new (&setup.spec, &setup.scenario, setup.blueprint,
                                                 &setup.mapping, job->devices, &limits,
                                                 (const char * const *) job->sweep, &error);

      /* bpw_sweep_new() fails only on what --sweep-param says: a usage error. */
      if (sweep == NULL)
        status = bpw_cli_usage ("search", "%s", error->message);
      else if (!bpw_sweep_run (sweep, &options, cancellable, &error))
        status = bpw_cli_report_error ("search", error);
      else
        {
          text = job->json ? bpw_sweep_to_json (sweep) : bpw_sweep_to_text (sweep);
          bpw_cli_print (stdout, "%s", text);
        }
      bpw_cli_setup_clear (&setup);
      return status;
    }

  space = bpw_search_space_new (&setup.spec, &setup.scenario, setup.blueprint, &setup.mapping,
                                job->devices, &limits, &error);
  if (space != NULL)
    report = bpw_search_run (space, &options, search_progress_cb, &watch, cancellable, &error);
  if (job->progress)
    g_printerr ("\n");
  if (report == NULL)
    {
      bpw_cli_setup_clear (&setup);
      return bpw_cli_report_error ("search", error);
    }

  text = job->json ? bpw_search_report_to_json (report, space)
                   : bpw_cli_search_report_to_text (report, space);
  bpw_cli_print (stdout, "%s", text);
  if (report->cancelled)
    g_printerr ("bpw: search interrupted: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                " plans decided; the best so far are reported\n", report->evaluated,
                report->end - report->begin);
  /* A whole search without a single legal plan is the "illegal plan" exit; a shard may
   * legitimately hold none. */
  if (report->best->len == 0 && options.shard_count == 1 && !report->cancelled)
    {
      bpw_cli_print (stderr, "bpw: no legal plan among the %" G_GUINT64_FORMAT " plans of %s "
                     "on %" G_GINT64_FORMAT " devices of %s\n", report->space, setup.spec.name,
                     job->devices, setup.blueprint->name);
      status = BPW_CLI_EXIT_ILLEGAL_PLAN;
    }
  bpw_cli_setup_clear (&setup);
  return status;
}

int
bpw_cli_search (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  BpwCliSearchJob job;
  gboolean merge = FALSE;
  int status;
  const GOptionEntry entries[] = {
    { "merge", 0, 0, G_OPTION_ARG_NONE, &merge,
      "Merge the --json outputs of shards given as FILE arguments (as 'bpw search-merge')",
      NULL },
    G_OPTION_ENTRY_NULL
  };

  bpw_cli_search_job_init (&job);
  g_set_prgname ("bpw search");
  context = g_option_context_new ("MODEL --blueprint BP --devices N | --merge FILE...");
  g_option_context_set_summary (context,
                                "Finds the best mappings of a scenario on N devices of a "
                                "blueprint: every legal\nTP/PP/DP/EP/SP, micro-batch, schedule, "
                                "recompute, ZeRO, fusion, offload, overlap\nand collective "
                                "algorithm, evaluated analytically and pruned by sound bounds.");
  description = g_strconcat (bpw_cli_search_job_help (), "\n\n",
                             bpw_cli_options_defaults_help (), NULL);
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_search_job_add (&job, context);

  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("search", error);
  else if (merge)
    status = argc < 2 ? bpw_cli_usage ("search", "search --merge: expected FILE...")
                      : merge_files (argv + 1, argc - 1, job.json);
  else if (argc < 2)
    status = bpw_cli_usage ("search", "search: missing MODEL");
  else if (argc > 2)
    status = bpw_cli_usage ("search", "search: expected one MODEL, got also '%s'", argv[2]);
  else if (job.blueprint == NULL)
    status = bpw_cli_usage ("search", "search: missing --blueprint BP");
  else if (bpw_cli_search_job_is_calculon (&job))
    status = calculon_search_run (&job, argv[1]);
  else
    status = search_run (&job, argv[1]);

  bpw_cli_search_job_clear (&job);
  return status;
}

int
bpw_cli_search_merge (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  g_set_prgname ("bpw search-merge");
  context = g_option_context_new ("FILE...");
  g_option_context_set_summary (context,
                                "Merges the `bpw search --shard I/N --json` outputs of the "
                                "shards of one search:\nthe counts add up, the best lists "
                                "(and Pareto fronts) merge into the whole run's.\nThe result "
                                "is the same JSON document; \"complete\" says whether the "
                                "shards covered\nthe whole space.");
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    return bpw_cli_report_error ("search-merge", error);
  if (argc < 2)
    return bpw_cli_usage ("search-merge", "search-merge: expected FILE...");
  return merge_files (argv + 1, argc - 1, TRUE);
}
