/* test-estimator-stack.c — the estimator that search ranks by against the bound plan and its
 * simulation, under the blueprint's software stack: eager launch, CUDA-graph replay, none
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The plan charges the stack's named implementation transformations per task; the estimator
 * binds a two-block template and scales it to the model's layers. Casts, unfused
 * element-wise kernels, the optimizer's implementation and graph replay gaps add per task and
 * scale exactly; eager launch gaps come from a host issue stream, a running maximum over the
 * stage's kernels, which the estimator replays over the real stage. Models × scenarios ×
 * launch modes: the estimate equals the plan's closed form to rounding (1e-9) wherever every
 * block is alike, and lies within 1 % of it where blocks come in two kinds (dense and MoE:
 * the estimator groups stages by how many blocks of each kind they hold, not in which order).
 * The simulated step equals the closed form on one stage and lies within 10 % of it with a
 * pipeline (its schedule against the closed form's bubble; so without a stack too).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-simulation.h"

#define EXACT      1e-9
#define TWO_KINDS  0.01
#define PIPELINED  0.10

typedef enum { MODEL_LLAMA, MODEL_GPT, MODEL_MOE, MODEL_DENSE_MOE, N_MODELS } Model;

static void
model (BpwModelSpec *s, Model which)
{
  bpw_model_spec_init_defaults (s);
  g_free (s->name);
  s->name = g_strdup ("small");
  s->layers = 6;
  s->hidden = 512;
  s->heads = 8;
  s->kv_heads = 2;
  s->head_dim = 64;
  s->ffn = 1536;
  s->vocab = 4096;
  s->max_positions = 4096;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->tied_embeddings = FALSE;
  s->qkv_bias = s->linear_bias = s->dropout = FALSE;
  switch (which)
    {
    case MODEL_GPT:
      s->layers = 5;
      s->kv_heads = 8;
      s->ffn = 2048;
      s->ffn_kind = BPW_FFN_GELU;
      s->norm = BPW_NORM_LAYERNORM;
      s->positions = BPW_POSITION_LEARNED;
      s->tied_embeddings = TRUE;
      s->qkv_bias = s->linear_bias = TRUE;
      break;
    case MODEL_MOE:
    case MODEL_DENSE_MOE:
      s->experts = 8;
      s->top_k = 2;
      s->moe_ffn = 768;
      s->moe_first = which == MODEL_DENSE_MOE ? 2 : 0;
      s->moe_every = 1;
      break;
    case MODEL_LLAMA:
    case N_MODELS:
    default:
      break;
    }
}

typedef struct
{
  const char       *name;
  BpwWorkloadPhase  phase;
  gint64            batch, micro, seq, pp;
  BpwRecompute      recompute;
} Case;

static const Case cases[] = {
  { "train", BPW_WORKLOAD_TRAIN, 4, 2, 256, 1, BPW_RECOMPUTE_NONE },
  { "train-pp2-full", BPW_WORKLOAD_TRAIN, 8, 1, 256, 2, BPW_RECOMPUTE_FULL },
  { "train-pp3", BPW_WORKLOAD_TRAIN, 6, 1, 128, 3, BPW_RECOMPUTE_SELECTIVE },
  { "prefill", BPW_WORKLOAD_PREFILL, 1, 1, 1024, 1, BPW_RECOMPUTE_NONE },
  { "decode-1", BPW_WORKLOAD_DECODE, 1, 1, 1024, 1, BPW_RECOMPUTE_NONE },
  { "decode-16", BPW_WORKLOAD_DECODE, 16, 16, 1024, 1, BPW_RECOMPUTE_NONE },
  { "decode-pp2", BPW_WORKLOAD_DECODE, 4, 4, 1024, 2, BPW_RECOMPUTE_NONE },
};

static const struct { const char *name; BpwLaunchMode launch; gboolean stack; } modes[] = {
  { "eager", BPW_LAUNCH_EAGER, TRUE },
  { "graph", BPW_LAUNCH_GRAPH, TRUE },
  { "stack's own", BPW_LAUNCH_STACK, TRUE },
  { "no stack", BPW_LAUNCH_STACK, FALSE },
};

static double
rel (double a, double b)
{
  return fabs (a / b - 1.0);
}

/* Returns the eager launch gaps' share of the plan's step (0 in other modes). */
static double
check (const BpwModelSpec *spec, Model which, const Case *c, guint mode,
       const BpwBlueprint *bp)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwEstimator) est = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwSimOptions options = { 0 };
  BpwScenario sc;
  BpwMapping m;
  BpwEvaluation full, fast, simulated;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  double tolerance = which == MODEL_DENSE_MOE ? TWO_KINDS : EXACT, gaps = 0;

  bpw_scenario_init_defaults (&sc);
  sc.phase = c->phase;
  sc.global_batch = c->batch;
  sc.micro_batch = c->micro;
  sc.seq = c->seq;
  sc.context = c->seq;
  sc.recompute = c->recompute;
  sc.launch = modes[mode].launch;
  bpw_mapping_init_defaults (&m);
  m.parallel.pp = c->pp;

  graph = bpw_work_graph_new (spec, &sc, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &m.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &m, &error);
  g_assert_no_error (error);
  bpw_evaluation_from_plan (plan, &full);
  sim = bpw_simulation_new (plan, &options, &error);
  g_assert_no_error (error);
  bpw_simulation_evaluation (sim, &full, &simulated);

  est = bpw_estimator_new (spec, &sc, bp, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_estimator_evaluate (est, &m, &fast, NULL, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      if (t->implementation && strcmp (t->name, "launch_gaps") == 0
          && modes[mode].launch == BPW_LAUNCH_EAGER)
        gaps = t->time_s / (full.step_time_s * (double) bpw_parallel_devices (&m.parallel));
    }
  g_test_message ("model %d, %s, %s: plan %.9g s, estimate %.9g s (%+.2e), simulated %.9g s",
                  which, c->name, modes[mode].name, full.step_time_s, fast.step_time_s,
                  fast.step_time_s / full.step_time_s - 1.0, simulated.step_time_s);
  if (rel (fast.step_time_s, full.step_time_s) > tolerance
      || rel (simulated.step_time_s, full.step_time_s) > (c->pp > 1 ? PIPELINED : EXACT))
    g_error ("model %d, %s, %s: plan %.9g s, estimate %.9g s (%+.3g %%), simulated %.9g s",
             which, c->name, modes[mode].name, full.step_time_s, fast.step_time_s,
             100 * (fast.step_time_s / full.step_time_s - 1.0), simulated.step_time_s);
  for (guint b = 0; b < BPW_N_BREAKDOWNS && which != MODEL_DENSE_MOE; b++)
    g_assert_cmpfloat (fabs (fast.breakdown_s[b] - full.breakdown_s[b]), <=,
                       EXACT * full.step_time_s);
  g_assert_cmpint (fast.legal, ==, full.legal);

  bpw_mapping_clear (&m);
  bpw_scenario_clear (&sc);
  return gaps;
}

static void
test_agrees (void)
{
  g_autoptr(BpwBlueprint) h200 = bpw_blueprint_load_bundled ("h200-sxm-141gb", NULL);
  g_autoptr(BpwBlueprint) bare = NULL;
  double most_gaps = 0;

  g_assert_nonnull (h200);
  g_assert_true (h200->stack.set && h200->stack.eager_gap.set);
  bare = bpw_blueprint_copy (h200);
  memset (&bare->stack, 0, sizeof bare->stack);
  for (Model which = 0; which < N_MODELS; which++)
    {
      BpwModelSpec spec;

      model (&spec, which);
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        for (guint mode = 0; mode < G_N_ELEMENTS (modes); mode++)
          most_gaps = MAX (most_gaps, check (&spec, which, &cases[c], mode,
                                             modes[mode].stack ? h200 : bare));
      bpw_model_spec_clear (&spec);
    }
  /* The crossing reaches steps that eager launch gaps dominate: what the replay is for. */
  g_assert_cmpfloat (most_gaps, >, 0.5);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/search/estimator-stack/agrees", test_agrees);
  return g_test_run ();
}
