/* bench-simulate.c — how fast and how lean the simulation of a full gpt3-175B step is
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a test: simulates one training step of gpt3-175B on A100s (TP 8 × PP 8 × DP 16,
 * 1F1B, 96 micro-batches per pipeline, full recompute: every task of every micro-batch of
 * one pipeline column) and prints the median wall time over a few runs, simulated tasks
 * and events per second (on the thread's CPU time, which other processes on a busy machine
 * do not inflate; wall time is printed beside it), and the heap the simulation holds per
 * simulated task (mallinfo2
 * with the simulation alive, minus before). Targets (issue 4): ≤ 1 s per step, ≥ 1 M tasks
 * per second on one core, ≤ 150 bytes per task. Also times the same for GPipe and
 * interleaved 1F1B, and a decode step.
 */
#define G_LOG_DOMAIN "bench-simulate"

#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bpw-core.h"
#include "bpw-simulation.h"

#define ROUNDS 5

static double
clock_s (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int
compare (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static BpwPlan *
bind (const BpwModelSpec *spec, const BpwScenario *scenario, const BpwBlueprint *bp,
      const BpwMapping *mapping)
{
  g_autoptr(GError) error = NULL;
  BpwWorkGraph *graph = bpw_work_graph_new (spec, scenario, &error);
  BpwDistWork *dist = graph != NULL ? bpw_dist_work_new (graph, &mapping->parallel, &error) : NULL;
  BpwPlan *plan = dist != NULL ? bpw_plan_new (dist, bp, mapping, &error) : NULL;

  if (plan == NULL)
    {
      g_printerr ("bench-simulate: %s\n", error->message);
      exit (1);
    }
  return plan;
}

static void
measure (const char *label, const BpwPlan *plan)
{
  double samples[ROUNDS], walls[ROUNDS], median, wall;
  guint64 tasks = 0, events = 0, held;
  struct mallinfo2 before, after;
  BpwSimulation *sim;

  for (guint r = 0; r < ROUNDS; r++)
    {
      double t0 = clock_s (CLOCK_THREAD_CPUTIME_ID), w0 = clock_s (CLOCK_MONOTONIC);

      sim = bpw_simulation_new (plan, NULL, NULL);
      samples[r] = clock_s (CLOCK_THREAD_CPUTIME_ID) - t0;
      walls[r] = clock_s (CLOCK_MONOTONIC) - w0;
      if (sim == NULL)
        {
          g_printerr ("bench-simulate: %s: the simulation failed\n", label);
          exit (1);
        }
      bpw_simulation_free (sim);
    }
  qsort (samples, ROUNDS, sizeof (double), compare);
  qsort (walls, ROUNDS, sizeof (double), compare);
  median = samples[ROUNDS / 2];
  wall = walls[ROUNDS / 2];

  malloc_trim (0);
  before = mallinfo2 ();
  sim = bpw_simulation_new (plan, NULL, NULL);
  after = mallinfo2 ();
  events = sim->events->len;
  for (guint32 i = 0; i < sim->events->len; i++)
    tasks += bpw_simulation_event (sim, i)->kind == BPW_SIM_EVENT_TASK;
  held = after.uordblks > before.uordblks ? after.uordblks - before.uordblks : 0;
  held += after.hblkhd > before.hblkhd ? after.hblkhd - before.hblkhd : 0;

  printf ("%s\n", label);
  printf ("  simulated step %.4f s; %" G_GUINT64_FORMAT " tasks, %" G_GUINT64_FORMAT
          " events (%u on the critical path)\n", sim->step_time_s, tasks, events,
          sim->critical_path->len);
  printf ("  CPU time, median of %d      %8.3f s  (target <= 1 s; wall %.3f s)%s\n", ROUNDS,
          median, wall, median <= 1.0 ? "" : "  SLOW");
  printf ("  simulated tasks per second  %8.3f M  (target >= 1 M)%s\n", tasks / median / 1e6,
          tasks / median >= 1e6 ? "" : "  SLOW");
  printf ("  events per second           %8.3f M\n", events / median / 1e6);
  printf ("  heap held per task          %8.1f B  (target <= 150 B; %.1f B per event)%s\n",
          (double) held / (double) tasks, (double) held / (double) events,
          (double) held / (double) tasks <= 150 ? ""
          : tasks < 100000 ? "  (a small step: the programs' fixed size dominates)" : "  LARGE");
  bpw_simulation_free (sim);
}

int
main (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) a100 = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwBlueprint) h200 = bpw_blueprint_load ("h200-sxm-141gb", NULL, &error);
  BpwModelSpec spec, llama;
  BpwScenario scenario, decode;
  BpwMapping mapping, tp8;

  bpw_model_spec_init_defaults (&spec);
  bpw_model_spec_init_defaults (&llama);
  if (a100 == NULL || h200 == NULL || !bpw_workload_load ("gpt3-175b", &spec, &error) ||
      !bpw_workload_load ("llama3-70b", &llama, &error))
    {
      g_printerr ("bench-simulate: %s\n", error->message);
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

  {
    g_autoptr(BpwPlan) plan = bind (&spec, &scenario, a100, &mapping);

    measure ("gpt3-175b on a100, TP 8 x PP 8 x DP 16, 1F1B, 96 micro-batches, full recompute",
             plan);
  }
  mapping.parallel.schedule = BPW_SCHEDULE_GPIPE;
  {
    g_autoptr(BpwPlan) plan = bind (&spec, &scenario, a100, &mapping);

    measure ("the same with GPipe", plan);
  }
  mapping.parallel.schedule = BPW_SCHEDULE_INTERLEAVED;
  mapping.parallel.interleave = 4;
  {
    g_autoptr(BpwPlan) plan = bind (&spec, &scenario, a100, &mapping);

    measure ("the same, interleaved 1F1B with 4 chunks per rank", plan);
  }

  bpw_scenario_init_defaults (&decode);
  decode.phase = BPW_WORKLOAD_DECODE;
  decode.global_batch = decode.micro_batch = 64;
  decode.context = 4096;
  bpw_mapping_init_defaults (&tp8);
  tp8.parallel.tp = 8;
  {
    g_autoptr(BpwPlan) plan = bind (&llama, &decode, h200, &tp8);

    measure ("llama3-70b decode on h200, TP 8, 64 sequences at 4096 tokens of context", plan);
  }
  bpw_model_spec_clear (&spec);
  bpw_model_spec_clear (&llama);
  return 0;
}
