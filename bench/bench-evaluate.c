/* bench-evaluate.c — how long one analytic evaluation of a gpt3-175B mapping takes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a test: prints the median time of bpw_estimator_evaluate() over mappings that share
 * one template (the search's steady state; target ≤ 5 µs on one core), the time to bind a
 * new template (paid once per TP/DP/EP/SP/ZeRO/micro-batch/recompute/fusion shape), the
 * time of the full path (work graph, distribution, plan, evaluation), and whether the hot
 * path allocated (mallinfo2 before and after).
 */
#define G_LOG_DOMAIN "bench-evaluate"

#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bpw-core.h"

#define TARGET_US 5.0
#define ROUNDS    31
#define PER_ROUND 2000

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int
compare (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Variations that keep the template: schedule, overlap, tiers, algorithms. */
static void
vary (BpwMapping *m, guint i)
{
  m->parallel.schedule = i % 2 ? BPW_SCHEDULE_GPIPE : BPW_SCHEDULE_1F1B;
  m->tp_overlap = (BpwTpOverlap) (i / 2 % 3);
  m->dp_overlap = i / 6 % 2;
  m->algorithm[1] = i / 12 % 2 ? BPW_COLLECTIVE_ALGO_TREE : 0;
}

int
main (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwEstimator) est = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwEvaluation e;
  double samples[ROUNDS], t0, median_us, cold_ms, full_ms;
  struct mallinfo2 before, after;
  double sink = 0;

  bpw_model_spec_init_defaults (&spec);
  if (bp == NULL || !bpw_workload_load ("gpt3-175b", &spec, &error))
    {
      g_printerr ("bench-evaluate: %s\n", error->message);
      return 1;
    }
  bpw_scenario_init_defaults (&scenario);
  scenario.global_batch = 1536;
  scenario.micro_batch = 1;
  scenario.seq = 2048;
  scenario.recompute = BPW_RECOMPUTE_FULL;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.tp = 8;
  mapping.parallel.pp = 8;
  mapping.parallel.dp = 16;

  /* Cold: a new estimator binds its first template. */
  t0 = now ();
  est = bpw_estimator_new (&spec, &scenario, bp, &error);
  if (est == NULL || !bpw_estimator_evaluate (est, &mapping, &e, NULL, &error))
    {
      g_printerr ("bench-evaluate: %s\n", error->message);
      return 1;
    }
  cold_ms = (now () - t0) * 1e3;

  for (guint r = 0; r < ROUNDS; r++)
    {
      t0 = now ();
      for (guint i = 0; i < PER_ROUND; i++)
        {
          vary (&mapping, i);
          bpw_estimator_evaluate (est, &mapping, &e, NULL, NULL);
          sink += e.step_time_s;
        }
      samples[r] = (now () - t0) / PER_ROUND;
    }
  qsort (samples, ROUNDS, sizeof (double), compare);
  median_us = samples[ROUNDS / 2] * 1e6;

  before = mallinfo2 ();
  for (guint i = 0; i < 10000; i++)
    {
      vary (&mapping, i);
      bpw_estimator_evaluate (est, &mapping, &e, NULL, NULL);
    }
  after = mallinfo2 ();

  vary (&mapping, 0);
  t0 = now ();
  {
    g_autoptr(BpwWorkGraph) graph = bpw_work_graph_new (&spec, &scenario, &error);
    g_autoptr(BpwPlan) plan = NULL;
    BpwDistWork *dist = bpw_dist_work_new (g_steal_pointer (&graph), &mapping.parallel, &error);

    plan = bpw_plan_new (dist, bp, &mapping, &error);
    bpw_evaluation_from_plan (plan, &e);
  }
  full_ms = (now () - t0) * 1e3;

  printf ("gpt3-175b on a100-sxm-80gb, TP 8 x PP 8 x DP 16, 1536 x 2048 tokens, full recompute\n");
  printf ("  analytic evaluation, template cached   median %8.3f us  (target <= %.0f us)  %s\n",
          median_us, TARGET_US, median_us <= TARGET_US ? "ok" : "SLOW");
  printf ("  analytic evaluation, new template             %8.3f ms\n", cold_ms);
  printf ("  full path: graph, distribution, plan          %8.3f ms\n", full_ms);
  printf ("  heap in use before/after 10000 evaluations   %zu / %zu bytes (%s)\n",
          before.uordblks, after.uordblks,
          before.uordblks == after.uordblks ? "allocation-free" : "ALLOCATES");
  printf ("  (checksum %.6g)\n", sink);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
  return 0;
}
