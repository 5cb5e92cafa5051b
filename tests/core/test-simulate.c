/* test-simulate.c — the discrete-event simulation of a plan against closed forms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Expected values are derived here from the plan's own arrays or from published formulas
 * (the 1F1B bubble, Korthikanti et al.'s Eq. 5), never from the simulator's output.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-simulation.h"
#include "bpw-test-plan.h"

/* ---- helpers ---- */

typedef struct
{
  BpwModelSpec   spec;
  BpwScenario    scenario;
  BpwMapping     mapping;
  BpwBlueprint  *bp;
} Setup;

static void
setup_gpt3 (Setup *s, gint64 global_batch, BpwRecompute recompute)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (&s->spec);
  g_assert_true (bpw_workload_load ("gpt3-175b", &s->spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (&s->scenario);
  s->scenario.global_batch = global_batch;
  s->scenario.micro_batch = 1;
  s->scenario.seq = 2048;
  s->scenario.recompute = recompute;
  bpw_mapping_init_defaults (&s->mapping);
  s->mapping.parallel.tp = 8;
  s->mapping.parallel.pp = 8;
  s->mapping.parallel.dp = global_batch / 96 > 0 ? global_batch / 96 : 1;
  s->bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_assert_no_error (error);
}

/* A model whose pipeline stages are alike: 16 equal blocks, a 64-token vocabulary (the
 * embedding and the head are negligible), and links with no latency and unbounded
 * bandwidth, so that communication is negligible. */
static void
setup_uniform (Setup *s, gint64 micro_batches)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (&s->spec);
  g_free (s->spec.name);
  s->spec.name = g_strdup ("uniform");
  s->spec.vocab = 64;
  s->spec.hidden = 4096;
  s->spec.layers = 16;
  s->spec.heads = 32;
  s->spec.kv_heads = 32;
  s->spec.head_dim = 128;
  s->spec.ffn = 16384;
  s->spec.max_positions = 2048;
  bpw_scenario_init_defaults (&s->scenario);
  s->scenario.global_batch = micro_batches;
  s->scenario.micro_batch = 1;
  s->scenario.seq = 2048;
  bpw_mapping_init_defaults (&s->mapping);
  s->mapping.parallel.pp = 4;
  s->bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_assert_no_error (error);
  for (guint t = 0; t < s->bp->n_tiers; t++)
    {
      s->bp->tiers[t].latency.value = 0;
      s->bp->tiers[t].bandwidth.value = 1e18;
    }
}

static void
setup_clear (Setup *s)
{
  bpw_model_spec_clear (&s->spec);
  bpw_scenario_clear (&s->scenario);
  bpw_mapping_clear (&s->mapping);
  g_clear_pointer (&s->bp, bpw_blueprint_free);
}

static BpwPlan *
bind (Setup *s)
{
  bpw_mapping_apply_to_scenario (&s->mapping, &s->scenario);
  return bpw_test_bind (&s->spec, &s->scenario, s->bp, &s->mapping);
}

static BpwSimulation *
simulate (const BpwPlan *plan, gboolean all_ranks, gboolean concurrent)
{
  g_autoptr(GError) error = NULL;
  BpwSimOptions options = { .all_ranks = all_ranks, .concurrent_engines = concurrent };
  BpwSimulation *sim = bpw_simulation_new (plan, &options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (sim);
  return sim;
}

static double
task_time (const BpwPlanTask *t)
{
  return t->cost.time_s * t->count;
}

/* Events the schedule must hold, from the plan's arrays: every per-micro-batch task and
 * transfer once per micro-batch, optimizer tasks and per-step transfers once (DP
 * reductions and ZeRO 1/2 gathers once per layer bucket with DP overlap), and a pipeline
 * send per micro-batch
 * across every boundary of the p·v virtual stages, in each direction that runs. */
static guint64
expected_events (const BpwPlan *plan)
{
  const BpwParallel *p = &plan->dist->parallel;
  gboolean train = plan->dist->graph->scenario.phase == BPW_WORKLOAD_TRAIN;
  gint64 v = p->schedule == BPW_SCHEDULE_INTERLEAVED ? p->interleave : 1;
  guint64 m = (guint64) plan->micro_batches, total = 0;

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      const BpwPlanStage *st = &plan->stages[s];

      for (guint i = 0; i < st->tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (st->tasks, BpwPlanTask, i);

          g_assert_cmpfloat (t->count, ==, 1.0);
          total += t->phase == BPW_PHASE_OPTIMIZER ? 1 : m;
        }
      for (guint i = 0; i < st->transfers->len; i++)
        {
          const BpwPlanTransfer *tr = &g_array_index (st->transfers, BpwPlanTransfer, i);

          if (tr->group == BPW_GROUP_PP && tr->kind == BPW_COLLECTIVE_SEND_RECV)
            continue;
          if (!bpw_plan_transfer_per_step (tr->group, tr->kind, tr->phase))
            total += m;
          else if (tr->group == BPW_GROUP_PP)
            total += 1;
          else if (tr->phase == BPW_PHASE_OPTIMIZER)
            total += plan->mapping.dp_overlap && train
                     ? (guint64) MAX (plan->dist->stages[s].n_layers, 1) : 1;
          else if (tr->phase == BPW_PHASE_FORWARD)
            total += (guint64) tr->count;
          else
            total += plan->mapping.dp_overlap && train
                     ? (guint64) MAX (plan->dist->stages[s].n_layers, 1) : 1;
        }
      for (gint64 c = 0; c < v && p->pp > 1; c++)
        {
          gint64 k = c * p->pp + s;

          total += k < p->pp * v - 1 ? m : 0;
          total += train && k > 0 ? m : 0;
        }
    }
  return total;
}

static void
assert_breakdowns_sum (const BpwSimulation *sim)
{
  for (gint64 r = 0; r < sim->plan->dist->n_stages; r++)
    {
      double sum = 0;

      for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
        {
          g_assert_cmpfloat (sim->ranks[r].breakdown_s[b], >=, -1e-12);
          sum += sim->ranks[r].breakdown_s[b];
        }
      bpw_test_assert_close (sum, sim->step_time_s, 1e-9);
    }
}

/* ---- tests ---- */

static void
test_event_count (void)
{
  static const struct
  {
    BpwSchedule schedule;
    gint64      v;
    gint        zero;
    gboolean    dp_overlap;
  } cases[] = {
    { BPW_SCHEDULE_1F1B, 1, 0, TRUE },
    { BPW_SCHEDULE_GPIPE, 1, 1, FALSE },
    { BPW_SCHEDULE_INTERLEAVED, 2, 3, TRUE },
    { BPW_SCHEDULE_INTERLEAVED, 3, 2, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Setup s;
      g_autoptr(BpwPlan) plan = NULL;
      g_autoptr(BpwSimulation) sim = NULL;

      setup_gpt3 (&s, 192, BPW_RECOMPUTE_FULL);
      s.mapping.parallel.schedule = cases[i].schedule;
      s.mapping.parallel.interleave = cases[i].v;
      s.mapping.parallel.zero = cases[i].zero;
      s.mapping.dp_overlap = cases[i].dp_overlap;
      plan = bind (&s);
      sim = simulate (plan, FALSE, FALSE);
      g_assert_cmpuint (sim->events->len, ==, expected_events (plan));
      g_assert_cmpuint (sim->column_events, ==, sim->events->len);
      assert_breakdowns_sum (sim);
      setup_clear (&s);
    }
}

/* The step is at least each rank's serial work and at least one micro-batch's way through
 * every stage and back; the critical path is a chain of predecessors ending the step. */
static void
test_critical_path (void)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  const guint32 *path;
  double chain = 0, work = 0;

  setup_gpt3 (&s, 1536, BPW_RECOMPUTE_FULL);
  plan = bind (&s);
  sim = simulate (plan, FALSE, FALSE);
  for (gint64 st = 0; st < plan->dist->n_stages; st++)
    {
      GArray *tasks = plan->stages[st].tasks;
      double stage_work = 0;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (tasks, BpwPlanTask, i);

          if (t->phase == BPW_PHASE_OPTIMIZER)
            stage_work += task_time (t);
          else
            {
              stage_work += task_time (t) * (double) plan->micro_batches;
              chain += task_time (t);
            }
        }
      work = MAX (work, stage_work);
    }
  g_test_message ("step %.4f s, serial work bound %.4f s, one micro-batch chain %.4f s",
                  sim->step_time_s, work, chain);
  g_assert_cmpfloat (sim->step_time_s, >=, work);
  g_assert_cmpfloat (sim->step_time_s, >=, chain);

  g_assert_cmpuint (sim->critical_path->len, >, 0);
  path = (const guint32 *) sim->critical_path->data;
  g_assert_cmpuint (bpw_simulation_event (sim, path[0])->pred, ==, BPW_SIM_NONE);
  for (guint i = 1; i < sim->critical_path->len; i++)
    {
      guint32 prev = path[i - 1];
      const BpwSimEvent *e = bpw_simulation_event (sim, path[i]);

      g_assert_cmpuint (e->pred, ==, prev);
      g_assert_cmpfloat (e->start, >=, bpw_simulation_event (sim, prev)->start);
    }
  g_assert_cmpfloat (bpw_simulation_event (sim, path[sim->critical_path->len - 1])->end, ==,
                     sim->step_time_s);
  setup_clear (&s);
}

/* Without a pipeline, DP or overlap, a rank runs its tasks and blocking TP collectives one
 * after the other: the simulated step is the analytic one exactly. */
static void
test_no_overlap_exact (void)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwEvaluation analytic, e;
  BpwSimDifference d;

  setup_uniform (&s, 4);
  s.mapping.parallel.pp = 1;
  s.mapping.parallel.tp = 2;
  g_clear_pointer (&s.bp, bpw_blueprint_free);
  s.bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, NULL);
  plan = bind (&s);
  bpw_evaluation_from_plan (plan, &analytic);
  sim = simulate (plan, FALSE, FALSE);
  bpw_simulation_evaluation (sim, &analytic, &e);
  bpw_test_assert_close (e.step_time_s, analytic.step_time_s, 1e-9);
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    g_assert_cmpfloat (fabs (e.breakdown_s[b] - analytic.breakdown_s[b]), <=, 1e-9 * e.step_time_s);
  bpw_simulation_difference (sim, &analytic, &d);
  g_assert_cmpfloat (fabs (d.difference_s), <=, 1e-9 * e.step_time_s);
  setup_clear (&s);
}

static void
assert_agrees_within (const BpwPlan *plan, const char *label, double tolerance)
{
  g_autoptr(BpwSimulation) sim = simulate (plan, FALSE, FALSE);
  BpwEvaluation analytic, e;
  BpwSimDifference d;
  double rel;

  bpw_evaluation_from_plan (plan, &analytic);
  bpw_simulation_evaluation (sim, &analytic, &e);
  bpw_simulation_difference (sim, &analytic, &d);
  rel = e.step_time_s / analytic.step_time_s - 1.0;
  g_test_message ("%s: simulated %.4f s, analytic %.4f s (%+.2f %%): bubble %+.4f, overlap "
                  "%+.4f, contention %+.4f, work %+.4f s", label, e.step_time_s,
                  analytic.step_time_s, 100 * rel, d.bubble_s, d.overlap_s, d.contention_s,
                  d.work_s);
  g_assert_cmpfloat (fabs (rel), <, tolerance);
  /* Every part of the difference is a named effect. */
  bpw_test_assert_close (d.bubble_s + d.overlap_s + d.contention_s + d.work_s, d.difference_s,
                         1e-6);
  assert_breakdowns_sum (sim);
  /* The same numerators over the simulated step. */
  bpw_test_assert_close (e.mfu * e.step_time_s, analytic.mfu * analytic.step_time_s, 1e-12);
  /* The plan's memory is a safe bound on the simulated peak. */
  for (gint64 st = 0; st < plan->dist->n_stages; st++)
    g_assert_cmpfloat (sim->memory[st].peak, <=, sim->memory[st].analytic * (1 + 1e-9));
}

static void
assert_agrees (const BpwPlan *plan, const char *label)
{
  assert_agrees_within (plan, label, 0.10);
}

static void
test_agrees_with_analytic (void)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  static const char * const runs[] = { "full", "seqsel" };

  setup_gpt3 (&s, 1536, BPW_RECOMPUTE_FULL);
  plan = bind (&s);
  assert_agrees (plan, "gpt3-175b TP8 PP8 DP16 full recompute");
  setup_clear (&s);

  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "reference",
                                                    "calculon", NULL);
      g_autofree char *model = g_build_filename (dir, "models", "gpt3-175B.json", NULL);
      g_autofree char *system = g_build_filename (dir, "systems", "a100_80g.json", NULL);
      g_autofree char *name = g_strdup_printf ("gpt3-175B_%s.execution.json", runs[i]);
      g_autofree char *exe = g_build_filename (dir, "runs", name, NULL);
      g_autoptr(BpwPlan) cplan = NULL;
      BpwCalculonExecution exec;
      BpwParallel parallel;
      Setup c = { 0 };

      if (!g_file_test (exe, G_FILE_TEST_EXISTS))
        continue;
      bpw_model_spec_init_defaults (&c.spec);
      bpw_scenario_init_defaults (&c.scenario);
      bpw_parallel_init_defaults (&parallel);
      bpw_mapping_init_defaults (&c.mapping);
      g_assert_true (bpw_workload_load_full (model, 0, &c.spec, &c.scenario, &error));
      g_assert_true (bpw_calculon_execution_load_full (exe, &c.scenario, &parallel, &exec, NULL,
                                                       &error));
      bpw_calculon_execution_apply_to_model (&exec, c.scenario.dtype, &c.spec);
      c.bp = bpw_blueprint_load (system, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (bpw_mapping_from_calculon_execution (&exec, &c.scenario, &parallel,
                                                          &c.mapping, &error));
      cplan = bind (&c);
      assert_agrees (cplan, runs[i]);
      setup_clear (&c);
    }
}

/* ZeRO 2 with DP overlap: the previous step's weight gather runs in one bucket per layer
 * from the start of the step, and the first micro-batch's forward of each layer waits for
 * its bucket. Without overlap the gather follows the optimizer and ends the step. */
static void
test_gather_overlap (void)
{
  double step[2], gather = 0;
  gint64 layers = 0;

  for (guint overlap = 0; overlap < 2; overlap++)
    {
      Setup s;
      g_autoptr(BpwPlan) plan = NULL;
      g_autoptr(BpwSimulation) sim = NULL;
      double first_end = G_MAXDOUBLE, first_forward = G_MAXDOUBLE, last_end = 0;
      guint buckets = 0;

      /* Few micro-batches per pipeline, so that the gather weighs on the step. */
      setup_gpt3 (&s, 128, BPW_RECOMPUTE_SELECTIVE);
      s.mapping.parallel.pp = 4;
      s.mapping.parallel.dp = 32;
      s.mapping.parallel.zero = 2;
      s.mapping.dp_overlap = overlap;
      plan = bind (&s);
      sim = simulate (plan, FALSE, FALSE);
      layers = plan->dist->stages[0].n_layers;
      gather = 0;
      for (guint i = 0; i < plan->stages[0].transfers->len; i++)
        {
          const BpwPlanTransfer *tr = &g_array_index (plan->stages[0].transfers,
                                                      BpwPlanTransfer, i);

          if (bpw_plan_transfer_gathers_update (tr->group, tr->kind, tr->phase))
            gather += tr->time_s * tr->count;
        }
      g_assert_cmpfloat (gather, >, 0);
      for (guint i = 0; i < sim->events->len; i++)
        {
          const BpwSimEvent *e = bpw_simulation_event (sim, i);

          if (e->stage != 0)
            continue;
          if (e->kind == BPW_SIM_EVENT_TRANSFER && e->phase == BPW_PHASE_OPTIMIZER)
            {
              buckets++;
              first_end = MIN (first_end, e->end);
              last_end = MAX (last_end, e->end);
              if (overlap)
                g_assert_cmpfloat (e->start, <, sim->step_time_s / 2);
            }
          else if (e->kind == BPW_SIM_EVENT_TASK && e->phase == BPW_PHASE_FORWARD &&
                   e->micro_batch == 0)
            first_forward = MIN (first_forward, e->start);
        }
      if (overlap)
        {
          /* One bucket per layer, back to back from the start on an idle link: the first
           * is 1/L of the gather and the stage's first forward waits for it. */
          g_assert_cmpuint (buckets, ==, (guint) layers);
          bpw_test_assert_close (first_end, gather / (double) layers, 1e-9);
          bpw_test_assert_close (last_end, gather, 1e-9);
          g_assert_cmpfloat (first_forward, >=, first_end);
        }
      else
        {
          g_assert_cmpuint (buckets, ==, 1);
          bpw_test_assert_close (last_end, sim->step_time_s, 1e-12);
          g_assert_cmpfloat (first_forward, ==, 0);
        }
      step[overlap] = sim->step_time_s;
      assert_agrees (plan, overlap ? "ZeRO 2, DP overlap" : "ZeRO 2, no DP overlap");
      setup_clear (&s);
    }
  /* Overlap hides all of the gather but the first bucket, and slows compute by no more
   * than the network's processor usage of it. */
  g_test_message ("gather %.4f s over %" G_GINT64_FORMAT " layers: step %.4f s without "
                  "overlap, %.4f s with", gather, layers, step[0], step[1]);
  g_assert_cmpfloat (step[0] - step[1], >=, 0.5 * gather * (double) (layers - 1) / (double) layers);
}

/* ZeRO 3 prefetches each segment's weights while the segment before it runs, and while a
 * stage waits for the pipeline to fill or drain: the estimate charges the same windows
 * and leaves the gathers out of the bubble (bpw-evaluation.c), and so stays within 2 % of
 * the simulation, with and without interleaving (4 micro-batches on 4 stages: a step
 * that is mostly fill and drain). */
static void
test_zero3_prefetch (void)
{
  for (gint64 v = 1; v <= 2; v++)
    {
      Setup s;
      g_autoptr(BpwPlan) plan = NULL;
      g_autofree char *label = g_strdup_printf ("ZeRO 3, v %" G_GINT64_FORMAT, v);

      setup_gpt3 (&s, 128, BPW_RECOMPUTE_SELECTIVE);
      s.scenario.micro_batch = 2;
      s.mapping.parallel.pp = 4;
      s.mapping.parallel.dp = 16;
      s.mapping.parallel.zero = 3;
      s.mapping.parallel.schedule = v > 1 ? BPW_SCHEDULE_INTERLEAVED : BPW_SCHEDULE_1F1B;
      s.mapping.parallel.interleave = v;
      plan = bind (&s);
      assert_agrees_within (plan, label, 0.02);
      setup_clear (&s);
    }
}

static double
bubble_ratio (gint64 micro_batches, BpwSchedule schedule, gint64 v, double *imbalance)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwEvaluation analytic, e;
  double p, expected, fraction, lo = G_MAXDOUBLE, hi = 0;

  setup_uniform (&s, micro_batches);
  s.mapping.parallel.schedule = schedule;
  s.mapping.parallel.interleave = v;
  plan = bind (&s);
  sim = simulate (plan, FALSE, FALSE);
  bpw_evaluation_from_plan (plan, &analytic);
  bpw_simulation_evaluation (sim, &analytic, &e);
  for (gint64 st = 0; st < plan->dist->n_stages; st++)
    {
      double w = 0;

      for (guint i = 0; i < plan->stages[st].tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (plan->stages[st].tasks, BpwPlanTask, i);

          if (t->phase != BPW_PHASE_OPTIMIZER)
            w += task_time (t);
        }
      lo = MIN (lo, w);
      hi = MAX (hi, w);
    }
  *imbalance = (hi - lo) / hi;
  p = (double) plan->dist->parallel.pp;
  /* 1F1B: every stage idles (p−1)(F+B) of (m+p−1)(F+B); interleaving divides it by v. The
   * optimizer runs after the pipeline drains, outside the bubble's closed form. */
  expected = (p - 1) / ((double) v * (double) micro_batches + p - 1);
  fraction = e.breakdown_s[BPW_BREAKDOWN_BUBBLE] /
             (e.step_time_s - e.breakdown_s[BPW_BREAKDOWN_OPTIMIZER]);
  g_test_message ("%s v=%" G_GINT64_FORMAT " m=%" G_GINT64_FORMAT ": bubble fraction %.5f, "
                  "closed form %.5f, stages unequal by %.3f %%", bpw_schedule_to_string (schedule),
                  v, micro_batches, fraction, expected, 100 * *imbalance);
  setup_clear (&s);
  return fraction / expected;
}

static void
test_bubble_1f1b (void)
{
  for (gint64 m = 4; m <= 32; m *= 2)
    {
      double imbalance, ratio = bubble_ratio (m, BPW_SCHEDULE_1F1B, 1, &imbalance);

      /* Stages are equal but for the embedding and the head (a fraction of a percent). */
      g_assert_cmpfloat (fabs (ratio - 1.0), <, 2 * imbalance + 1e-3);
    }
}

static void
test_bubble_interleaved (void)
{
  for (gint64 v = 2; v <= 4; v *= 2)
    {
      double imbalance, ratio = bubble_ratio (8, BPW_SCHEDULE_INTERLEAVED, v, &imbalance);

      /* A chunk is 1/v of a stage: the embedding and head weigh v times more in it. */
      g_assert_cmpfloat (fabs (ratio - 1.0), <, 2 * (double) v * imbalance + 1e-3);
    }
}

/* GPipe keeps every micro-batch's activations until its backward pass; 1F1B at most p. */
static void
test_gpipe_memory (void)
{
  Setup s;
  g_autoptr(BpwPlan) gpipe = NULL;
  g_autoptr(BpwPlan) ofob = NULL;
  g_autoptr(BpwSimulation) a = NULL;
  g_autoptr(BpwSimulation) b = NULL;
  double per_mb;

  setup_gpt3 (&s, 32, BPW_RECOMPUTE_NONE);
  s.mapping.parallel.sp = TRUE;
  s.mapping.fusion = 0;
  s.mapping.parallel.schedule = BPW_SCHEDULE_GPIPE;
  gpipe = bind (&s);
  s.mapping.parallel.schedule = BPW_SCHEDULE_1F1B;
  ofob = bind (&s);
  a = simulate (gpipe, FALSE, FALSE);
  b = simulate (ofob, FALSE, FALSE);
  g_assert_cmpint (gpipe->micro_batches, ==, 32);
  for (gint64 st = 0; st < 8; st++)
    {
      g_assert_cmpfloat (a->memory[st].peak, >=, b->memory[st].peak);
      /* Checkpoints: m micro-batches under GPipe, p − stage under 1F1B. */
      per_mb = 0;
      for (gint64 l = ofob->dist->stages[st].first_layer;
           l < ofob->dist->stages[st].first_layer + ofob->dist->stages[st].n_layers; l++)
        per_mb += (double) bpw_dist_work_layer_stored_bytes (ofob->dist, l);
      /* The embedding's and the head's stored tensors live on the first and last stage. */
      if (st == 0)
        per_mb += (double) bpw_dist_work_layer_stored_bytes (ofob->dist, BPW_LAYER_BEFORE_BLOCKS);
      if (st == 7)
        per_mb += (double) bpw_dist_work_layer_stored_bytes (ofob->dist, BPW_LAYER_AFTER_BLOCKS);
      bpw_test_assert_close (a->memory[st].category_peak[BPW_MEM_CHECKPOINTS], 32 * per_mb, 1e-9);
      bpw_test_assert_close (b->memory[st].category_peak[BPW_MEM_CHECKPOINTS], (8 - st) * per_mb,
                             1e-9);
    }
  setup_clear (&s);
}

/* Korthikanti et al. 2022, Eq. 5: the first 1F1B stage holds L·sbh/t·(34 + 5as/h) bytes of
 * activations with tensor and sequence parallelism (p micro-batches × L/p layers). */
static void
test_korthikanti_eq5 (void)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  double L = 96, sq = 2048, b = 1, h = 12288, a = 96, t = 8, eq5;

  setup_gpt3 (&s, 16, BPW_RECOMPUTE_NONE);
  s.mapping.parallel.sp = TRUE;
  s.mapping.fusion = 0;
  plan = bind (&s);
  sim = simulate (plan, FALSE, FALSE);
  eq5 = L * sq * b * h / t * (34 + 5 * a * sq / h);
  g_test_message ("stage 0 checkpoints at their peak %.6g B, Eq. 5 %.6g B (%+.3f %%)",
                  sim->memory[0].category_peak[BPW_MEM_CHECKPOINTS], eq5,
                  100 * (sim->memory[0].category_peak[BPW_MEM_CHECKPOINTS] / eq5 - 1));
  bpw_test_assert_close (sim->memory[0].category_peak[BPW_MEM_CHECKPOINTS], eq5, 0.02);
  setup_clear (&s);
}

/* The curve's peak is the sum of what is live then, found buffer by buffer. */
static void
test_peak_is_live_sum (void)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;

  setup_gpt3 (&s, 16, BPW_RECOMPUTE_SELECTIVE);
  s.mapping.parallel.tp = 8;
  s.mapping.parallel.schedule = BPW_SCHEDULE_INTERLEAVED;
  s.mapping.parallel.interleave = 2;
  plan = bind (&s);
  sim = simulate (plan, FALSE, FALSE);
  for (guint32 r = 0; r < sim->n_ranks; r++)
    {
      const BpwSimMemory *m = &sim->memory[r];
      g_autoptr(GArray) live = bpw_simulation_live_at (sim, r, m->peak_time);
      g_autoptr(GArray) curve = bpw_simulation_memory_curve (sim, r);
      double sum = 0, by_cat[BPW_N_MEM_CATEGORIES] = { 0 }, curve_max = 0;

      for (guint i = 0; i < live->len; i++)
        {
          const BpwLiveBuffer *lb = &g_array_index (live, BpwLiveBuffer, i);

          g_assert_cmpfloat (lb->allocated, <=, m->peak_time);
          g_assert_cmpfloat (lb->freed, >, m->peak_time);
          by_cat[lb->category] += lb->bytes;
        }
      for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
        {
          if (c == BPW_MEM_WEIGHTS || c == BPW_MEM_GRADIENTS || c == BPW_MEM_OPTIMIZER ||
              c == BPW_MEM_KV_CACHE)
            by_cat[c] = m->at_peak[c];
          bpw_test_assert_close (by_cat[c], m->at_peak[c], 1e-9);
          sum += by_cat[c];
        }
      bpw_test_assert_close (sum, m->peak, 1e-9);
      for (guint i = 0; i < curve->len; i++)
        curve_max = MAX (curve_max, g_array_index (curve, BpwMemorySample, i).total);
      bpw_test_assert_close (curve_max, m->peak, 1e-12);
    }
  setup_clear (&s);
}

/* Lanes are sorted; a rank's engines run one task at a time; links of one group one
 * transfer at a time; all ranks are copies of the column. */
static void
test_lanes_and_all_ranks (void)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) column = NULL;
  g_autoptr(BpwSimulation) all = NULL;
  guint64 copies;

  setup_gpt3 (&s, 8, BPW_RECOMPUTE_FULL);
  s.mapping.parallel.pp = 4;
  s.mapping.parallel.dp = 2;
  s.scenario.global_batch = 16;
  plan = bind (&s);
  column = simulate (plan, FALSE, FALSE);
  all = simulate (plan, TRUE, FALSE);
  copies = (guint64) (plan->dist->parallel.tp * plan->dist->parallel.dp);
  g_assert_cmpuint (all->events->len, ==, column->events->len * copies);
  g_assert_cmpuint (all->n_ranks, ==, bpw_parallel_devices (&plan->dist->parallel));
  g_assert_cmpfloat (all->step_time_s, ==, column->step_time_s);
  for (guint32 r = 0; r < all->n_ranks; r++)
    for (guint32 q = 0; q < all->n_queues; q++)
      {
        guint32 n, nc;
        const guint32 *lane = bpw_simulation_lane (all, r, q, &n);

        bpw_simulation_lane (column, (guint32) bpw_simulation_rank_stage (all, r), q, &nc);
        g_assert_cmpuint (n, ==, nc);
        for (guint32 i = 1; i < n; i++)
          {
            const BpwSimEvent *x = bpw_simulation_event (all, lane[i - 1]);
            const BpwSimEvent *y = bpw_simulation_event (all, lane[i]);

            g_assert_cmpfloat (x->start, <=, y->start);
            g_assert_cmpfloat (x->end, <=, y->start + 1e-12);
            g_assert_cmpuint (x->rank, ==, r);
          }
      }
  for (guint32 i = 0; i < all->events->len; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (all, i);

      /* A predecessor is in the same DP replica and TP rank. */
      if (e->pred != BPW_SIM_NONE)
        g_assert_cmpuint (bpw_simulation_event (all, e->pred)->rank % 8, ==, e->rank % 8);
    }
  setup_clear (&s);
}

/* Matrix and vector tasks overlapping where dependencies allow never lengthen the step. */
static void
test_concurrent_engines (void)
{
  Setup s;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) serial = NULL;
  g_autoptr(BpwSimulation) concurrent = NULL;

  setup_gpt3 (&s, 32, BPW_RECOMPUTE_SELECTIVE);
  s.mapping.parallel.dp = 1;
  plan = bind (&s);
  serial = simulate (plan, FALSE, FALSE);
  concurrent = simulate (plan, FALSE, TRUE);
  g_test_message ("serial %.4f s, concurrent engines %.4f s", serial->step_time_s,
                  concurrent->step_time_s);
  g_assert_cmpfloat (concurrent->step_time_s, <=, serial->step_time_s * (1 + 1e-9));
  g_assert_cmpuint (concurrent->events->len, ==, serial->events->len);
  assert_breakdowns_sum (concurrent);
  setup_clear (&s);
}

/* A decode step without a pipeline is the analytic one, and its time per output token. */
static void
test_decode (void)
{
  g_autoptr(GError) error = NULL;
  Setup s = { 0 };
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwEvaluation analytic, e;

  bpw_model_spec_init_defaults (&s.spec);
  g_assert_true (bpw_workload_load ("llama3-70b", &s.spec, &error));
  bpw_scenario_init_defaults (&s.scenario);
  s.scenario.phase = BPW_WORKLOAD_DECODE;
  s.scenario.global_batch = 64;
  s.scenario.micro_batch = 64;
  s.scenario.context = 4096;
  bpw_mapping_init_defaults (&s.mapping);
  s.mapping.parallel.tp = 8;
  s.bp = bpw_blueprint_load ("h200-sxm-141gb", NULL, &error);
  g_assert_no_error (error);
  plan = bind (&s);
  sim = simulate (plan, FALSE, FALSE);
  bpw_evaluation_from_plan (plan, &analytic);
  bpw_simulation_evaluation (sim, &analytic, &e);
  bpw_test_assert_close (e.step_time_s, analytic.step_time_s, 1e-9);
  g_assert_cmpfloat (e.tpot_s, ==, e.step_time_s);
  g_assert_true (isnan (e.ttft_s));
  g_assert_cmpuint (sim->events->len, ==, expected_events (plan));
  g_assert_cmpfloat (sim->memory[0].at_peak[BPW_MEM_KV_CACHE], ==,
                     plan->stages[0].memory.kv_cache);
  setup_clear (&s);
}

static guint
count_transfers (const BpwPlan *plan)
{
  guint n = 0;

  for (gint64 st = 0; st < plan->dist->n_stages; st++)
    n += plan->stages[st].transfers->len;
  return n;
}

/* A group of one rank has no transfers, so the tier a mapping gives it is unused: a tier
 * the blueprint does not have there must not drop the other groups' transfers. It did: a
 * 4-stage pipeline with TP's (unused) tier out of range was bound legal without its
 * pipeline sends, and the simulation deadlocked ("this is a bug"). */
static void
test_unused_tier_out_of_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) reference = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwEvaluation a, b;
  Setup s;

  setup_uniform (&s, 8);
  reference = bind (&s);
  g_assert_true (reference->legal);
  g_assert_cmpuint (count_transfers (reference), >, 0);
  s.mapping.tier[BPW_GROUP_TP] = (gint) s.bp->n_tiers + 3;
  plan = bind (&s);
  g_assert_true (plan->legal);
  g_assert_cmpuint (count_transfers (plan), ==, count_transfers (reference));
  bpw_evaluation_from_plan (reference, &a);
  bpw_evaluation_from_plan (plan, &b);
  g_assert_cmpfloat (b.step_time_s, ==, a.step_time_s);
  sim = bpw_simulation_new (plan, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sim);
  setup_clear (&s);
}

/* A pipeline whose PP group is on a tier the blueprint does not have is illegal and binds
 * no transfer; the simulator says so instead of deadlocking on the missing sends. */
static void
test_pipeline_tier_out_of_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  Setup s;

  setup_uniform (&s, 8);
  s.mapping.tier[BPW_GROUP_PP] = (gint) s.bp->n_tiers;
  plan = bind (&s);
  g_assert_false (plan->legal);
  g_assert_cmpint (bpw_plan_group_off_tiers (plan), ==, BPW_GROUP_PP);
  sim = bpw_simulation_new (plan, NULL, &error);
  g_assert_null (sim);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "pp on tier"));
  setup_clear (&s);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Simulation/event-count", test_event_count);
  g_test_add_func ("/bpw/core/Simulation/critical-path", test_critical_path);
  g_test_add_func ("/bpw/core/Simulation/no-overlap-exact", test_no_overlap_exact);
  g_test_add_func ("/bpw/core/Simulation/agrees-with-analytic", test_agrees_with_analytic);
  g_test_add_func ("/bpw/core/Simulation/gather-overlap", test_gather_overlap);
  g_test_add_func ("/bpw/core/Simulation/zero3-prefetch", test_zero3_prefetch);
  g_test_add_func ("/bpw/core/Simulation/bubble-1f1b", test_bubble_1f1b);
  g_test_add_func ("/bpw/core/Simulation/bubble-interleaved", test_bubble_interleaved);
  g_test_add_func ("/bpw/core/Simulation/gpipe-memory", test_gpipe_memory);
  g_test_add_func ("/bpw/core/Simulation/korthikanti-eq5", test_korthikanti_eq5);
  g_test_add_func ("/bpw/core/Simulation/peak-is-live-sum", test_peak_is_live_sum);
  g_test_add_func ("/bpw/core/Simulation/lanes-and-all-ranks", test_lanes_and_all_ranks);
  g_test_add_func ("/bpw/core/Simulation/concurrent-engines", test_concurrent_engines);
  g_test_add_func ("/bpw/core/Simulation/decode", test_decode);
  g_test_add_func ("/bpw/core/Simulation/unused-tier-out-of-range",
                   test_unused_tier_out_of_range);
  g_test_add_func ("/bpw/core/Simulation/pipeline-tier-out-of-range",
                   test_pipeline_tier_out_of_range);
  return g_test_run ();
}
