/* bench-facts.c — how long the facts of the largest bundled models take
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a test: prints the median wall time of bpw_facts_compute_analytic (search's fast path,
 * target < 1 ms) and of bpw_facts_compute (work graph, per-stage distribution and the
 * conservation check, target < 50 ms) for llama3-405b and gpt3-175b under PP 8.
 */
#define G_LOG_DOMAIN "bench-facts"

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bpw-error.h"
#include "bpw-facts.h"

#define BENCH_ANALYTIC_TARGET_MS 1.0
#define BENCH_FULL_TARGET_MS     50.0

typedef struct
{
  const char *model;
  gint64      seq;
  gint64      tp, pp, dp;
  BpwRecompute recompute;
} BenchCase;

/* Megatron-style 3D layouts at the scale these models were trained at; 4 x pp micro-batches
 * per pipeline, one sequence each. */
static const BenchCase bench_cases[] = {
  { "llama3-405b", 8192, 8, 8, 16, BPW_RECOMPUTE_SELECTIVE },
  { "gpt3-175b", 2048, 8, 8, 16, BPW_RECOMPUTE_FULL },
};

typedef gboolean (*BenchFunc) (const BpwModelSpec *spec,
                               const BpwScenario  *scenario,
                               const BpwParallel  *parallel,
                               BpwFacts           *facts,
                               GError            **error);

static double
bench_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

static int
bench_compare_doubles (const void *a,
                       const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Median of @runs timed calls; the facts of the last call stay in @facts. FALSE on error. */
static gboolean
bench_median_ms (BenchFunc           func,
                 const BpwModelSpec *spec,
                 const BpwScenario  *scenario,
                 const BpwParallel  *parallel,
                 guint               runs,
                 BpwFacts           *facts,
                 double             *median,
                 GError            **error)
{
  g_autofree double *times = g_new (double, runs);

  for (guint i = 0; i < runs; i++)
    {
      double start;

      bpw_facts_clear (facts);
      start = bench_now_ms ();
      if (!func (spec, scenario, parallel, facts, error))
        return FALSE;
      times[i] = bench_now_ms () - start;
    }
  qsort (times, runs, sizeof (double), bench_compare_doubles);
  *median = runs % 2 == 1 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
  return TRUE;
}

static gboolean
bench_case (const BenchCase *c,
            guint            runs,
            gboolean        *met,
            GError         **error)
{
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwParallel parallel;
  BpwFacts analytic = { 0 };
  BpwFacts full = { 0 };
  double analytic_ms = 0.0, full_ms = 0.0;
  gboolean ok = FALSE;
  gboolean agree;

  bpw_model_spec_init_defaults (&spec);
  bpw_scenario_init_defaults (&scenario);
  bpw_parallel_init_defaults (&parallel);
  if (!bpw_model_spec_lookup_bundled (c->model, &spec))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s is not a bundled model",
                   c->model);
      goto out;
    }
  parallel.tp = c->tp;
  parallel.pp = c->pp;
  parallel.dp = c->dp;
  parallel.sp = TRUE;
  scenario.seq = c->seq;
  scenario.micro_batch = 1;
  scenario.global_batch = c->dp * 4 * c->pp;
  scenario.recompute = c->recompute;

  if (!bpw_scenario_validate (&scenario, &parallel, &spec, error) ||
      !bench_median_ms (bpw_facts_compute_analytic, &spec, &scenario, &parallel, runs * 10,
                        &analytic, &analytic_ms, error) ||
      !bench_median_ms (bpw_facts_compute, &spec, &scenario, &parallel, runs, &full,
                        &full_ms, error))
    goto out;

  /* The two paths must agree exactly; a fast wrong answer is not a result. */
  agree = analytic.flops_model == full.flops_model &&
          analytic.flops_hardware == full.flops_hardware &&
          analytic.flops_semantic == full.flops_semantic &&
          analytic.parameters == full.parameters &&
          analytic.kv_bytes_per_token == full.kv_bytes_per_token;
  for (guint ph = 0; ph < BPW_N_PHASES; ph++)
    agree = agree && analytic.flops_by_phase[ph] == full.flops_by_phase[ph];

  printf ("%-12s %2" G_GINT64_FORMAT " %2" G_GINT64_FORMAT " %3" G_GINT64_FORMAT
          " %5" G_GINT64_FORMAT "  %10.4f %-4s  %10.3f %-4s  %s\n",
          c->model, c->tp, c->pp, c->dp, c->seq,
          analytic_ms, analytic_ms < BENCH_ANALYTIC_TARGET_MS ? "ok" : "SLOW",
          full_ms, full_ms < BENCH_FULL_TARGET_MS ? "ok" : "SLOW",
          agree ? "yes" : "NO");
  *met = *met && agree && analytic_ms < BENCH_ANALYTIC_TARGET_MS &&
         full_ms < BENCH_FULL_TARGET_MS;
  ok = TRUE;

out:
  bpw_facts_clear (&analytic);
  bpw_facts_clear (&full);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
  return ok;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gint runs = 21;
  gboolean met = TRUE;
  const GOptionEntry entries[] = {
    { "runs", 'n', 0, G_OPTION_ARG_INT, &runs,
      "Timed runs of the full path (the analytic path gets ten times as many)", "N" },
    G_OPTION_ENTRY_NULL
  };

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, "Median wall time of the facts of the largest "
                                         "bundled models.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-facts: %s\n", error->message);
      return 2;
    }
  if (runs < 1 || runs > 100000)
    {
      g_printerr ("bench-facts: --runs: expected 1 to 100000, got %d\n", runs);
      return 2;
    }

  printf ("median of %d runs (analytic: %d); targets: analytic < %g ms, full < %g ms\n\n",
          runs, runs * 10, BENCH_ANALYTIC_TARGET_MS, BENCH_FULL_TARGET_MS);
  printf ("%-12s %2s %2s %3s %5s  %15s  %15s  %s\n", "model", "tp", "pp", "dp", "seq",
          "analytic (ms)", "full (ms)", "agree");
  for (guint i = 0; i < G_N_ELEMENTS (bench_cases); i++)
    {
      if (!bench_case (&bench_cases[i], (guint) runs, &met, &error))
        {
          g_printerr ("bench-facts: %s: %s\n", bench_cases[i].model, error->message);
          return 1;
        }
    }
  printf ("\n%s\n", met ? "all targets met" : "some targets missed");
  return met ? 0 : 1;
}
