/* bench-search.c — plans per second of the mapping search on gpt3-175B over 1024 A100s
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a test: searches the whole space of gpt3-175B training on 1024 A100 80 GB, global
 * batch 1536 × 2048 tokens (the problem; CALCULON.md §7 counts 11.7 M plans in
 * Calculon's narrower space of it and measures 75–473 plans/s on 2 cores), with every
 * processor and with one thread, and prints the space, the rate (wall and CPU time; the
 * CPU rate does not depend on what else runs on the machine), how the bounds pruned it,
 * and the best plan against the hand-written Megatron plan (TP 8, PP 8, DP 16, SP,
 * selective recompute). Goals: >= 1,000,000 plans/s on 2 cores, the space in <= 30 s.
 *
 *   bench-search [THREADS]      (default: one per processor)
 */
#define G_LOG_DOMAIN "bench-search"

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bpw-core.h"
#include "bench-util.h"
#include "bpw-search.h"

#define GOAL_RATE    1e6
#define GOAL_SECONDS 30.0
#define CALCULON_MIN 75.30
#define CALCULON_MAX 473.18

static BpwSearchReport *
search (const BpwSearchSpace *space, guint threads, double *cpu)
{
  g_autoptr(GError) error = NULL;
  BpwSearchOptions o;
  BpwSearchReport *r;
  double c0 = bench_cpu_seconds ();

  bpw_search_options_init (&o);
  o.threads = threads;
  o.reevaluate = FALSE;   /* the rate of the search itself */
  r = bpw_search_run (space, &o, NULL, NULL, NULL, &error);
  if (r == NULL)
    {
      g_printerr ("bench-search: %s\n", error->message);
      exit (1);
    }
  *cpu = bench_cpu_seconds () - c0;
  return r;
}

static void
describe (const char *label, const BpwSearchReport *r, double cpu)
{
  double rate = (double) r->evaluated / r->seconds;

  printf ("%s\n", label);
  printf ("  wall %8.3f s   %10.4g plans/s  (goal >= %.0g, <= %.0f s: %s)\n", r->seconds, rate,
          GOAL_RATE, GOAL_SECONDS,
          rate >= GOAL_RATE && r->seconds <= GOAL_SECONDS ? "met" : "NOT MET");
  printf ("  CPU  %8.3f s   %10.4g plans per CPU-second, %.4g per 2 cores\n", cpu,
          (double) r->evaluated / cpu, 2.0 * (double) r->evaluated / cpu);
  printf ("  vs Calculon's %.0f-%.0f plans/s on 2 cores: %.0fx-%.0fx faster\n", CALCULON_MIN,
          CALCULON_MAX, rate / CALCULON_MAX, rate / CALCULON_MIN);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) all = NULL;
  g_autoptr(BpwSearchReport) one = NULL;
  g_autoptr(BpwEstimator) est = NULL;
  guint threads = argc > 1 ? (guint) atoi (argv[1]) : g_get_num_processors ();
  BpwSearchLimits limits;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping megatron;
  BpwEvaluation m;
  const BpwSearchResult *best;
  double cpu_all, cpu_one, t0;

  bpw_model_spec_init_defaults (&spec);
  if (bp == NULL || !bpw_workload_load ("gpt3-175b", &spec, &error))
    {
      g_printerr ("bench-search: %s\n", error->message);
      return 1;
    }
  bpw_scenario_init_defaults (&scenario);
  scenario.global_batch = 1536;
  scenario.seq = 2048;
  bpw_search_limits_init (&limits);

  t0 = g_get_monotonic_time ();
  space = bpw_search_space_new (&spec, &scenario, bp, NULL, 1024, &limits, &error);
  if (space == NULL)
    {
      g_printerr ("bench-search: %s\n", error->message);
      return 1;
    }
  printf ("gpt3-175b training on 1024 x a100-sxm-80gb, batch 1536 x 2048 tokens\n");
  printf ("  space: %" G_GUINT64_FORMAT " plans in %u groups, %u template shapes "
          "(enumerated in %.3f s)\n", space->size, space->groups->len, space->nodes->len,
          (g_get_monotonic_time () - t0) / 1e6);

  all = search (space, threads, &cpu_all);
  {
    g_autofree char *label = g_strdup_printf ("search, %u threads", all->threads);

    describe (label, all, cpu_all);
  }
  printf ("  decided %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " estimated (%" G_GUINT64_FORMAT
          " legal), %" G_GUINT64_FORMAT " proved illegal, %" G_GUINT64_FORMAT " by the "
          "step-time bound, %" G_GUINT64_FORMAT " dominated; %" G_GUINT64_FORMAT
          " templates bound\n", all->evaluated, all->estimated, all->legal, all->pruned_illegal,
          all->pruned_bound, all->pruned_dominated, all->templates);
  one = search (space, 1, &cpu_one);
  describe ("search, 1 thread", one, cpu_one);
  printf ("  identical best with %u and 1 threads: %s\n", all->threads,
          all->best->len == one->best->len && all->best->len > 0 &&
          g_array_index (all->best, BpwSearchResult, 0).index ==
          g_array_index (one->best, BpwSearchResult, 0).index ? "yes" : "NO");

  best = &g_array_index (all->best, BpwSearchResult, 0);
  bpw_mapping_init_defaults (&megatron);
  megatron.parallel.tp = 8;
  megatron.parallel.pp = 8;
  megatron.parallel.dp = 16;
  megatron.parallel.sp = TRUE;
  megatron.micro_batch = 1;
  megatron.recompute = BPW_RECOMPUTE_SELECTIVE;
  est = bpw_estimator_new (&spec, &scenario, bp, &error);
  if (est == NULL || !bpw_estimator_evaluate (est, &megatron, &m, NULL, &error))
    {
      g_printerr ("bench-search: %s\n", error->message);
      return 1;
    }
  printf ("best: %.4f s (MFU %.1f %%), TP %" G_GINT64_FORMAT " PP %" G_GINT64_FORMAT " DP %"
          G_GINT64_FORMAT " mb %" G_GINT64_FORMAT " (%" G_GUINT64_FORMAT " equivalent algorithm "
          "choices); Megatron plan %.4f s (MFU %.1f %%): %s\n",
          best->estimate.step_time_s, 100 * best->estimate.mfu, best->mapping.parallel.tp,
          best->mapping.parallel.pp, best->mapping.parallel.dp, best->mapping.micro_batch,
          best->equivalent_variants,
          m.step_time_s, 100 * m.mfu,
          best->estimate.step_time_s <= m.step_time_s ? "at least as fast" : "SLOWER");
  bpw_mapping_clear (&megatron);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
  return 0;
}
