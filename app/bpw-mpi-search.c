/* bpw-mpi-search.c — `bpw search` spread over the ranks of an MPI job
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every rank builds the same search space (the enumeration is deterministic) and searches
 * shard RANK/SIZE of it with its own threads; rank 0 gathers the shards' `bpw search
 * --json` documents and merges them exactly as `bpw search-merge` does, so the result
 * equals a single-process run: the counts add up, the best lists and Pareto fronts merge.
 *
 *   mpirun -n 4 bpw-mpi-search gpt3-175b --blueprint a100-sxm-80gb --devices 1024 \
 *          --global-batch 1536 --threads 2 [--pareto]
 *
 * Rank 0 prints the merged JSON document on stdout. Options are those of `bpw search`,
 * except --shard (the ranks are the shards), --merge and --sweep-param.
 */
#define G_LOG_DOMAIN "bpw-mpi-search"

#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "bpw-calculon-bridge.h"
#include "bpw-cli.h"
#include "bpw-cli-search-job.h"

/* bpw-cli.c, which defines it, has the `bpw` main(). */
G_DEFINE_QUARK (bpw-cli-usage-error-quark, bpw_cli_usage_error)

/* Whether every rank succeeded; every rank gets the verdict, so none waits forever. */
static gboolean
all_ok (gboolean ok)
{
  int mine = ok ? 1 : 0, every = 0;

  MPI_Allreduce (&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return every == 1;
}

/* Gathers every rank's text on rank 0 (NULL elsewhere). */
static GPtrArray *
gather_texts (const char *text, int rank, int size)
{
  int length = (int) strlen (text) + 1;
  g_autofree int *lengths = rank == 0 ? g_new0 (int, size) : NULL;
  g_autofree int *offsets = rank == 0 ? g_new0 (int, size) : NULL;
  g_autofree char *all = NULL;
  GPtrArray *texts = NULL;
  int total = 0;

  MPI_Gather (&length, 1, MPI_INT, lengths, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    {
      for (int r = 0; r < size; r++)
        {
          offsets[r] = total;
          total += lengths[r];
        }
      all = g_malloc (total);
    }
  MPI_Gatherv (text, length, MPI_CHAR, all, lengths, offsets, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return NULL;
  texts = g_ptr_array_new_with_free_func (g_free);
  for (int r = 0; r < size; r++)
    g_ptr_array_add (texts, g_strdup (all + offsets[r]));
  return texts;
}

/* Rank 0 merges the ranks' documents and prints the result. */
static int
merge_on_root (const char *mine, int rank, int size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) texts = gather_texts (mine, rank, size);
  g_autoptr(GPtrArray) names = NULL;
  g_autofree char *merged = NULL;

  if (rank != 0)
    return BPW_CLI_EXIT_OK;
  names = g_ptr_array_new_with_free_func (g_free);
  for (int r = 0; r < size; r++)
    g_ptr_array_add (names, g_strdup_printf ("rank %d", r));
  merged = bpw_cli_search_merge_texts ((const char * const *) texts->pdata,
                                       (const char * const *) names->pdata, texts->len, &error);
  if (merged == NULL)
    {
      g_printerr ("bpw-mpi-search: %s\n", error->message);
      return BPW_CLI_EXIT_INVALID_INPUT;
    }
  fputs (merged, stdout);
  return BPW_CLI_EXIT_OK;
}

/* --cost-model calculon: the ranks split Calculon's space as shards do. */
static int
calculon_search_rank (BpwCliSearchJob *job, const char *model, int rank, int size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwCalculonSpace) space = NULL;
  g_autoptr(BpwCalculonSearchReport) report = NULL;
  g_autoptr(BpwSearchReport) workbench = NULL;
  g_autofree char *mine = NULL;
  BpwCliSetup setup;
  gboolean ok;

  g_free (job->shard);
  job->shard = g_strdup_printf ("%d/%d", rank, size);
  space = bpw_cli_calculon_search_prepare (job, model, &setup, &error);
  ok = space != NULL;
  if (!all_ok (ok))
    {
      if (!ok)
        g_printerr ("bpw-mpi-search: rank %d: %s\n", rank, error->message);
      bpw_cli_setup_clear (&setup);
      return !ok ? bpw_cli_exit_code_for_error (error) : BPW_CLI_EXIT_INVALID_INPUT;
    }
  report = bpw_calculon_search_run (space, NULL, NULL, NULL);
  workbench = bpw_cli_calculon_workbench (report, &setup, job->devices);
  mine = workbench != NULL ? bpw_calculon_search_report_to_json_with (report, space, workbench)
                           : bpw_calculon_search_report_to_json (report, space);
  bpw_cli_setup_clear (&setup);
  return merge_on_root (mine, rank, size);
}

static int
search_rank (BpwCliSearchJob *job, const char *model, int rank, int size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) report = NULL;
  g_autofree char *mine = NULL;
  BpwCliSetup setup;
  BpwSearchOptions options;
  BpwSearchLimits limits;
  gboolean ok;

  ok = bpw_cli_search_job_prepare (job, model, &setup, &options, &limits, &error);
  if (ok)
    {
      space = bpw_search_space_new (&setup.spec, &setup.scenario, setup.blueprint,
                                    &setup.mapping, job->devices, &limits, &error);
      ok = space != NULL;
    }
  if (ok)
    {
      options.shard_index = (guint64) rank;
      options.shard_count = (guint64) size;
      report = bpw_search_run (space, &options, NULL, NULL, NULL, &error);
      ok = report != NULL;
    }
  if (!all_ok (ok))
    {
      if (!ok)
        g_printerr ("bpw-mpi-search: rank %d: %s\n", rank, error->message);
      bpw_cli_setup_clear (&setup);
      return !ok ? bpw_cli_exit_code_for_error (error) : BPW_CLI_EXIT_INVALID_INPUT;
    }

  mine = bpw_search_report_to_json (report, space);
  bpw_cli_setup_clear (&setup);
  return merge_on_root (mine, rank, size);
}

BpwCliExit
bpw_cli_exit_code_for_error (const GError *error)
{
  if (error == NULL)
    return BPW_CLI_EXIT_OK;
  if (error->domain == G_OPTION_ERROR || error->domain == BPW_CLI_USAGE_ERROR)
    return BPW_CLI_EXIT_USAGE;
  return BPW_CLI_EXIT_INVALID_INPUT;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  BpwCliSearchJob job;
  int rank = 0, size = 1, status;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);

  bpw_cli_search_job_init (&job);
  g_set_prgname ("bpw-mpi-search");
  context = g_option_context_new ("MODEL --blueprint BP --devices N");
  g_option_context_set_summary (context,
                                "bpw search over the ranks of an MPI job: rank R searches "
                                "shard R/SIZE with its\nthreads, rank 0 merges and prints the "
                                "JSON document (as bpw search-merge).");
  g_option_context_set_description (context, bpw_cli_search_job_help ());
  bpw_cli_search_job_add (&job, context);

  status = BPW_CLI_EXIT_USAGE;
  if (!g_option_context_parse (context, &argc, &argv, &error))
    ;
  else if (argc != 2)
    g_set_error (&error, BPW_CLI_USAGE_ERROR, 0, "expected one MODEL");
  else if (job.blueprint == NULL)
    g_set_error (&error, BPW_CLI_USAGE_ERROR, 0, "missing --blueprint BP");
  else if (job.shard != NULL || job.sweep != NULL)
    g_set_error (&error, BPW_CLI_USAGE_ERROR, 0, "--shard and --sweep-param are not "
                 "available here: the ranks are the shards");
  else if (bpw_cli_search_job_is_calculon (&job))
    status = calculon_search_rank (&job, argv[1], rank, size);
  else
    status = search_rank (&job, argv[1], rank, size);

  if (error != NULL && rank == 0)
    g_printerr ("bpw-mpi-search: %s\nTry 'bpw-mpi-search --help' for more information.\n",
                error->message);
  bpw_cli_search_job_clear (&job);
  MPI_Finalize ();
  return status;
}
