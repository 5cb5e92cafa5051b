/* bpw-cli-compare.c — `bpw compare STUDY [--search] [--json]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-compare"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <stdio.h>

#include "bpw-compare.h"

static int
compare_run (const char *path, gboolean search, gint64 threads, gboolean json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_load (path, &error);
  g_autoptr(BpwComparison) cmp = NULL;
  g_autofree char *text = NULL;
  BpwCompareOptions options;

  /* A candidate whose blueprint is missing or wrong is a broken study, not a cell to
   * print beside the others with exit 0. */
  if (study == NULL || !bpw_study_check_references (study, NULL, &error))
    return bpw_cli_report_error ("compare", error);
  bpw_compare_options_init (&options);
  options.search_empty = search;
  options.search.threads = (guint) threads;
  cmp = bpw_compare_study (study, &options, NULL, &error);
  if (cmp == NULL)
    return bpw_cli_report_error ("compare", error);
  text = json ? bpw_comparison_to_json (cmp) : bpw_comparison_to_text (cmp);
  bpw_cli_print (stdout, "%s", text);
  return BPW_CLI_EXIT_OK;
}

int
bpw_cli_compare (int    argc,
                 char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE, search = FALSE;
  gint64 threads = 0;
  const GOptionEntry entries[] = {
    { "search", 0, 0, G_OPTION_ARG_NONE, &search,
      "Search the best mapping where a candidate's mapping is empty ({})", NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT64, &threads,
      "Search threads (default: one per processor)", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the comparison as JSON", NULL },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("bpw compare");
  context = g_option_context_new ("STUDY");
  g_option_context_set_summary (context,
                                "Evaluates every candidate of a study on every scenario: the "
                                "fit matrix (legal,\nSLA pass/fail with margin, bottleneck), "
                                "each suite's weighted score (throughput\nrelative to the best "
                                "candidate per scenario; an infeasible scenario counts 0),\n"
                                "performance per watt, cost, and the Pareto front of the "
                                "feasible candidates.\nSTUDY is a study file or a bundled "
                                "study name ('default').");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    return bpw_cli_report_error ("compare", error);
  if (argc != 2)
    return bpw_cli_usage ("compare", argc < 2 ? "compare: missing STUDY"
                                              : "compare: expected one STUDY");
  if (threads < 0 || threads > 1024)
    return bpw_cli_usage ("compare", "--threads: expected an integer from 1 to 1024");
  return compare_run (argv[1], search, threads, json);
}
