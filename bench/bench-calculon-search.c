/* bench-calculon-search.c — executions per second of Calculon's search, in C
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a test: runs Calculon's own llm-optimal-execution space for gpt3-175B on 1024 GPUs of
 * its a100_80g system, batch up to 1536, float16 (11,698,528 executions), priced by the port
 * of Calculon's model (bpw search --cost-model calculon), with every processor and with one
 * thread, and prints the rate (wall and CPU time: the CPU rate does not depend on what else
 * runs on the machine) against Calculon's own, measured on the same problem
 * (tests/data/calculon-search/README.md: 2,852 CPU seconds, 4,102 executions per CPU
 * second), and the best execution. Both runs must find the same best.
 *
 *   bench-calculon-search [THREADS]      (default: one per processor)
 */
#define G_LOG_DOMAIN "bench-calculon-search"

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bpw-calculon-search.h"
#include "bpw-core.h"
#include "bench-util.h"

#define CALCULON_CPU_RATE 4102.0

static BpwCalculonSearchReport *
search (const BpwCalculonApp    *app,
        const BpwCalculonSystem *system,
        guint                    threads,
        double                  *cpu)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwCalculonSpace) space = NULL;
  BpwCalculonSearchOptions options;
  double c0 = bench_cpu_seconds ();
  BpwCalculonSearchReport *report;

  bpw_calculon_search_options_init (&options);
  options.threads = threads;
  space = bpw_calculon_space_new (app, system, 1024, 1536, BPW_DTYPE_FP16, &options, &error);
  if (space == NULL)
    {
      g_printerr ("bench-calculon-search: %s\n", error->message);
      exit (1);
    }
  report = bpw_calculon_search_run (space, NULL, NULL, NULL);
  *cpu = bench_cpu_seconds () - c0;
  return report;
}

static void
print_run (const char                    *label,
           const BpwCalculonSearchReport *r,
           double                         cpu)
{
  const BpwCalculonSearchResult *b = &g_array_index (r->best, BpwCalculonSearchResult, 0);

  printf ("%-10s %u threads: %" G_GUINT64_FORMAT " executions (%" G_GUINT64_FORMAT " good) in "
          "%.3f s wall, %.3f s CPU: %.3g /s wall, %.3g /s per CPU second (%.0fx Calculon's)\n",
          label, r->threads, r->evaluated, r->good, r->seconds, cpu,
          (double) r->evaluated / r->seconds, (double) r->evaluated / cpu,
          (double) r->evaluated / cpu / CALCULON_CPU_RATE);
  printf ("           best #%" G_GUINT64_FORMAT ": TP %" G_GINT64_FORMAT " PP %" G_GINT64_FORMAT
          " DP %" G_GINT64_FORMAT " v %" G_GINT64_FORMAT " mb %" G_GINT64_FORMAT ", %.4f s, "
          "%.3f samples/s\n", b->index, b->exe.tensor_par, b->exe.pipeline_par, b->exe.data_par,
          b->exe.pipeline_interleaving, b->exe.microbatch_size, b->stats.total_time,
          b->stats.sample_rate);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *system_path = g_build_filename (BPW_TESTS_DATA, "calculon-search",
                                                   "a100_80g.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load (system_path, NULL, &error);
  g_autoptr(BpwCalculonSearchReport) all = NULL, one = NULL;
  /* Calculon's models/gpt3-175B.json */
  const BpwCalculonApp app = { 12288, 49152, 2048, 96, 128, 96 };
  BpwCalculonSystem system;
  guint threads = argc > 1 ? (guint) atoi (argv[1]) : 0;
  double cpu_all, cpu_one;

  if (bp == NULL || !bpw_calculon_system_from_blueprint (bp, BPW_DTYPE_FP16, &system, &error))
    {
      g_printerr ("bench-calculon-search: %s\n", error->message);
      return 1;
    }
  all = search (&app, &system, threads, &cpu_all);
  print_run ("all", all, cpu_all);
  one = search (&app, &system, 1, &cpu_one);
  print_run ("one", one, cpu_one);
  if (g_array_index (all->best, BpwCalculonSearchResult, 0).index
      != g_array_index (one->best, BpwCalculonSearchResult, 0).index)
    {
      g_printerr ("bench-calculon-search: the two runs disagree on the best\n");
      return 1;
    }
  return 0;
}
