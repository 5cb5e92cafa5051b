/* test-evaluate.c — binding and evaluation against Calculon's reference runs, the fast
 * path against the full plan, and the identities every evaluation must satisfy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-test-plan.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* ---- helpers ---- */

/* ---- Calculon's own inputs (CALCULON.md §6) ---- */

typedef struct
{
  const char *run;
  double      total;        /* Calculon's printed "Batch total time" */
  double      fw_bw_optim;  /* FW + BW + optim */
  double      recompute;
  double      bubble;
  double      exposed;      /* TP + PP + DP exposed + recomm exposed */
  double      recompute_tolerance;
} CalculonRun;

static const CalculonRun calculon_runs[] = {
  { "full",   27.295, 5.473 + 10.359 + 0.0215, 5.473, 1.837, 2.392 + 0.433 + 0.242 + 1.064, 0.10 },
  /* Our selective recomputation is Korthikanti's: QKᵀ, softmax, dropout *and* attention
   * over V; Calculon's attn_only leaves out the second matmul, so ours costs more. */
  { "seqsel", 21.422, 5.000 + 9.522 + 0.0016, 0.478, 1.429, 3.731 + 0.058 + 0.401 + 0.804, 0.40 },
};

static void
test_calculon_reference (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "reference", "calculon",
                                                NULL);

  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));

  for (guint i = 0; i < G_N_ELEMENTS (calculon_runs); i++)
    {
      const CalculonRun *r = &calculon_runs[i];
      g_autoptr(GError) error = NULL;
      g_autofree char *model = g_build_filename (dir, "models", "gpt3-175B.json", NULL);
      g_autofree char *system = g_build_filename (dir, "systems", "a100_80g.json", NULL);
      g_autofree char *name = g_strdup_printf ("gpt3-175B_%s.execution.json", r->run);
      g_autofree char *exe = g_build_filename (dir, "runs", name, NULL);
      g_autoptr(BpwBlueprint) bp = NULL;
      g_autoptr(BpwPlan) plan = NULL;
      BpwCalculonExecution exec;
      BpwModelSpec spec;
      BpwScenario scenario;
      BpwParallel parallel;
      BpwMapping mapping;
      BpwEvaluation e;
      double ours[4], theirs[4] = { r->fw_bw_optim, r->recompute, r->bubble, r->exposed };
      double tolerance[4] = { 0.10, r->recompute_tolerance, 0.10, 0.15 };
      static const char * const labels[4] = { "fw+bw+optim", "recompute", "bubble",
                                              "exposed comm" };

      bpw_model_spec_init_defaults (&spec);
      bpw_scenario_init_defaults (&scenario);
      bpw_parallel_init_defaults (&parallel);
      bpw_mapping_init_defaults (&mapping);
      g_assert_true (bpw_workload_load_full (model, 0, &spec, &scenario, &error));
      g_assert_no_error (error);
      g_assert_true (bpw_calculon_execution_load_full (exe, &scenario, &parallel, &exec, NULL,
                                                       &error));
      g_assert_no_error (error);
      bpw_calculon_execution_apply_to_model (&exec, scenario.dtype, &spec);
      bp = bpw_blueprint_load (system, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (bpw_mapping_from_calculon_execution (&exec, &scenario, &parallel, &mapping,
                                                          &error));
      g_assert_no_error (error);

      plan = bpw_test_bind (&spec, &scenario, bp, &mapping);
      g_assert_true (plan->legal);
      bpw_evaluation_from_plan (plan, &e);

      /* The headline: within 10 % of Calculon's step time. */
      g_test_message ("%s: step %.3f s (Calculon %.3f s, %+.1f %%)", r->run, e.step_time_s,
                      r->total, 100.0 * (e.step_time_s / r->total - 1.0));
      g_assert_cmpfloat (fabs (e.step_time_s / r->total - 1.0), <, 0.10);

      /* Component by component, with our breakdown mapped onto Calculon's terms. */
      ours[0] = e.breakdown_s[BPW_BREAKDOWN_COMPUTE] + e.breakdown_s[BPW_BREAKDOWN_MEMORY_STALL] +
                e.breakdown_s[BPW_BREAKDOWN_LATENCY] + e.breakdown_s[BPW_BREAKDOWN_OPTIMIZER];
      ours[1] = e.breakdown_s[BPW_BREAKDOWN_RECOMPUTE];
      ours[2] = e.breakdown_s[BPW_BREAKDOWN_BUBBLE];
      ours[3] = e.breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION];
      for (guint c = 0; c < 4; c++)
        {
          g_test_message ("  %-14s ours %.3f s, Calculon %.3f s (%+.1f %%)", labels[c], ours[c],
                          theirs[c], 100.0 * (ours[c] / theirs[c] - 1.0));
          g_assert_cmpfloat (fabs (ours[c] / theirs[c] - 1.0), <, tolerance[c]);
        }
      bpw_mapping_clear (&mapping);
      bpw_scenario_clear (&scenario);
      bpw_model_spec_clear (&spec);
    }
}

/* ---- the fast path agrees with the full plan ---- */

typedef struct
{
  const char *model;
  const char *blueprint;
  gint64      tp, pp, dp, ep, global_batch, micro_batch, interleave;
  gboolean    sp;
  int         zero;
  BpwRecompute recompute;
  BpwWorkloadPhase phase;
  guint       fusion;
  BpwTpOverlap tp_overlap;
} Case;

static const Case cases[] = {
  { "gpt3-175b", "a100-sxm-80gb", 8, 8, 16, 1, 1536, 1, 1, FALSE, 0, BPW_RECOMPUTE_FULL,
    BPW_WORKLOAD_TRAIN, BPW_FUSION_BIAS_ACTIVATION, BPW_TP_OVERLAP_NONE },
  { "gpt3-175b", "h100-sxm-80gb", 8, 8, 2, 1, 32, 1, 1, TRUE, 3, BPW_RECOMPUTE_SELECTIVE,
    BPW_WORKLOAD_TRAIN, BPW_FUSION_ATTENTION | BPW_FUSION_OPTIMIZER, BPW_TP_OVERLAP_RING },
  { "gpt3-175b", "b200", 4, 4, 2, 1, 64, 1, 3, FALSE, 1, BPW_RECOMPUTE_FULL,
    BPW_WORKLOAD_TRAIN, 0, BPW_TP_OVERLAP_PIPE },
  { "llama3-70b", "h200-sxm-141gb", 8, 1, 1, 1, 8, 1, 1, FALSE, 0, BPW_RECOMPUTE_NONE,
    BPW_WORKLOAD_PREFILL, BPW_FUSION_ATTENTION, BPW_TP_OVERLAP_NONE },
  { "mixtral-8x7b", "mi300x", 2, 2, 4, 2, 32, 2, 1, TRUE, 1, BPW_RECOMPUTE_NONE,
    BPW_WORKLOAD_TRAIN, BPW_FUSION_NORM_RESIDUAL, BPW_TP_OVERLAP_NONE },
  { "llama3-8b", "tpu-v5p", 1, 3, 2, 1, 12, 2, 1, FALSE, 2, BPW_RECOMPUTE_NONE,
    BPW_WORKLOAD_TRAIN, 0, BPW_TP_OVERLAP_NONE },
  /* Serving with the weights sharded over DP: each micro-batch gathers them. */
  { "llama3-70b", "h100-sxm-80gb", 2, 2, 4, 1, 16, 2, 1, FALSE, 3, BPW_RECOMPUTE_NONE,
    BPW_WORKLOAD_PREFILL, BPW_FUSION_ATTENTION, BPW_TP_OVERLAP_NONE },
};

static void
setup_case (const Case *c, BpwModelSpec *spec, BpwScenario *scenario, BpwMapping *mapping)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (spec);
  g_assert_true (bpw_workload_load (c->model, spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (scenario);
  scenario->phase = c->phase;
  scenario->global_batch = c->global_batch;
  scenario->micro_batch = c->micro_batch;
  scenario->seq = 2048;
  scenario->recompute = c->recompute;
  bpw_mapping_init_defaults (mapping);
  mapping->parallel.tp = c->tp;
  mapping->parallel.pp = c->pp;
  mapping->parallel.dp = c->dp;
  mapping->parallel.ep = c->ep;
  mapping->parallel.sp = c->sp;
  mapping->parallel.zero = c->zero;
  mapping->parallel.schedule = c->interleave > 1 ? BPW_SCHEDULE_INTERLEAVED : BPW_SCHEDULE_1F1B;
  mapping->parallel.interleave = c->interleave;
  mapping->fusion = c->fusion;
  mapping->tp_overlap = c->tp_overlap;
}

typedef enum
{
  STACK_EAGER,
  STACK_NO_GAPS,
  STACK_NONE,
} StackVariant;

static const char * const variant_names[] = { "stack, eager", "stack, no launch gaps", "no stack" };

static void
assert_time_agrees (const BpwEvaluation *full, const BpwEvaluation *fast)
{
  bpw_test_assert_close (full->step_time_s, fast->step_time_s, 1e-9);
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    bpw_test_assert_close (full->breakdown_s[b], fast->breakdown_s[b], 1e-9);
  bpw_test_assert_close (full->mfu, fast->mfu, 1e-9);
  bpw_test_assert_close (full->hfu, fast->hfu, 1e-9);
  g_assert_cmpint (full->bottleneck, ==, fast->bottleneck);
  g_assert_cmpint (full->slowest_stage, ==, fast->slowest_stage);
}

static void
test_analytic_agrees (void)
{
  /* Each case three ways: with the blueprint's bundled software stack as it launches
   * (eager), with that stack less its launch gaps, and with the hardware alone. */
  for (guint n = 0; n < 3 * G_N_ELEMENTS (cases); n++)
    {
      guint i = n / 3;
      StackVariant variant = n % 3;
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load (cases[i].blueprint, NULL, &error);
      g_autoptr(BpwPlan) plan = NULL;
      g_autoptr(BpwEstimator) est = NULL;
      BpwModelSpec spec;
      BpwScenario scenario;
      BpwMapping mapping;
      BpwEvaluation full, fast;

      g_assert_no_error (error);
      if (variant == STACK_NONE)
        memset (&bp->stack, 0, sizeof bp->stack);
      if (variant == STACK_NO_GAPS)
        bp->stack.has_launch = FALSE;
      setup_case (&cases[i], &spec, &scenario, &mapping);
      plan = bpw_test_bind (&spec, &scenario, bp, &mapping);
      bpw_evaluation_from_plan (plan, &full);
      est = bpw_test_estimate (&spec, &scenario, bp, &mapping, &fast);

      g_test_message ("%s on %s (%s): plan %.9f s, %.6f GB; analytic %.9f s, %.6f GB",
                      cases[i].model, cases[i].blueprint, variant_names[variant],
                      full.step_time_s, full.peak_bytes / 1e9, fast.step_time_s,
                      fast.peak_bytes / 1e9);
      /* Integer byte shares round per tensor in the plan; the template scales sums. The
       * stack's fp32 master weights, fp32 gradients and fp32 logits included. */
      bpw_test_assert_close (full.peak_bytes, fast.peak_bytes, 1e-6);
      g_assert_cmpint (full.legal, ==, fast.legal);
      /* Launch gaps depend on a stage's whole kernel sequence (eager: a running maximum
       * over it; either mode: one launch per stage for a fused optimizer), which the
       * two-block template does not replay: with them only memory is compared. Every
       * other transformation of the stack (casts, unfused element-wise kernels, fp32
       * logits, the optimizer's implementation, the MoE loop) is linear in the blocks and
       * agrees exactly. */
      if (variant != STACK_EAGER)
        assert_time_agrees (&full, &fast);

      /* A second mapping of the same shape reuses the template. */
      mapping.parallel.schedule = BPW_SCHEDULE_GPIPE;
      mapping.parallel.interleave = 1;
      g_assert_true (bpw_estimator_evaluate (est, &mapping, &fast, NULL, &error));
      g_assert_cmpuint (bpw_estimator_n_templates (est), ==, 1);

      bpw_mapping_clear (&mapping);
      bpw_scenario_clear (&scenario);
      bpw_model_spec_clear (&spec);
    }
}

/* The property: every bundled blueprint with a software stack (the GPUs), in every phase,
 * under mappings that exercise each state the stack changes (TP, PP, DP, each ZeRO stage,
 * recomputation): the estimator's peak memory is the bound plan's, with the stack as
 * bundled; and with the stack less its launch gaps, so is every part of the step time. */
typedef struct
{
  gint64       tp, pp, dp;
  int          zero;
  gboolean     sp;
  BpwRecompute recompute;  /* training only */
} StackMapping;

static const StackMapping stack_mappings[] = {
  { 2, 1, 1, 0, FALSE, BPW_RECOMPUTE_NONE },
  { 1, 2, 1, 0, FALSE, BPW_RECOMPUTE_FULL },
  { 1, 1, 4, 1, FALSE, BPW_RECOMPUTE_NONE },
  { 2, 1, 2, 3, TRUE, BPW_RECOMPUTE_SELECTIVE },
  { 2, 2, 2, 2, TRUE, BPW_RECOMPUTE_SELECTIVE },
};

static void
test_analytic_agrees_under_stacks (void)
{
  const char * const *names = bpw_blueprint_bundled_names ();
  const BpwWorkloadPhase phases[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL,
                                      BPW_WORKLOAD_DECODE };
  guint stacks = 0, checked = 0;

  for (guint b = 0; names[b] != NULL; b++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load (names[b], NULL, &error);

      g_assert_no_error (error);
      if (!bp->stack.set)
        continue;
      stacks++;
      for (guint gaps = 0; gaps < 2; gaps++)
        for (guint f = 0; f < G_N_ELEMENTS (phases); f++)
          for (guint m = 0; m < G_N_ELEMENTS (stack_mappings); m++)
            {
              const StackMapping *sm = &stack_mappings[m];
              g_autoptr(BpwPlan) plan = NULL;
              g_autoptr(BpwEstimator) est = NULL;
              BpwModelSpec spec;
              BpwScenario scenario;
              BpwMapping mapping;
              BpwEvaluation full, fast;

              /* gaps 0: the stack less its launch gaps; 1: as bundled. */
              bp->stack.has_launch = gaps == 1;
              bpw_model_spec_init_defaults (&spec);
              g_assert_true (bpw_workload_load ("llama3-8b", &spec, &error));
              g_assert_no_error (error);
              bpw_scenario_init_defaults (&scenario);
              scenario.phase = phases[f];
              scenario.global_batch = 16;
              scenario.micro_batch = 2;
              scenario.seq = 1024;
              if (phases[f] == BPW_WORKLOAD_DECODE)
                scenario.context = 1024;
              scenario.recompute = phases[f] == BPW_WORKLOAD_TRAIN ? sm->recompute
                                                                   : BPW_RECOMPUTE_NONE;
              bpw_mapping_init_defaults (&mapping);
              mapping.parallel.tp = sm->tp;
              mapping.parallel.pp = sm->pp;
              mapping.parallel.dp = sm->dp;
              mapping.parallel.zero = sm->zero;
              mapping.parallel.sp = sm->sp;

              plan = bpw_test_bind (&spec, &scenario, bp, &mapping);
              bpw_evaluation_from_plan (plan, &full);
              est = bpw_test_estimate (&spec, &scenario, bp, &mapping, &fast);
              g_test_message ("%s, phase %d, mapping %u, %s: plan %.9f s %.0f B, "
                              "analytic %.9f s %.0f B", names[b], phases[f], m,
                              gaps ? "launch gaps" : "no launch gaps", full.step_time_s,
                              full.peak_bytes, fast.step_time_s, fast.peak_bytes);
              bpw_test_assert_close (full.peak_bytes, fast.peak_bytes, 1e-6);
              g_assert_cmpint (full.legal, ==, fast.legal);
              if (gaps == 0)
                assert_time_agrees (&full, &fast);
              checked++;

              bpw_mapping_clear (&mapping);
              bpw_scenario_clear (&scenario);
              bpw_model_spec_clear (&spec);
            }
    }
  /* The A100, H100, H200, B200 and MI300X carry the bundled stack. */
  g_assert_cmpuint (stacks, >=, 5);
  g_assert_cmpuint (checked, ==, stacks * 2 * G_N_ELEMENTS (phases)
                                 * G_N_ELEMENTS (stack_mappings));
}

/* gpt3-175B on Calculon's a100_80g, TP 4 × PP 2 on NVLink and DP 128 on the network, DP
 * overlapped: the per-step collectives of a stage are DP's on the network (processor usage
 * 0.02) and the tied-embedding all-reduce on NVLink (0.15). Both paths must weigh each by
 * its own tier; the plan once took whichever came last, 0.5 s apart from the estimator. */
static void
test_analytic_agrees_across_tiers (void)
{
  const char *root = g_getenv ("BPW_SOURCE_ROOT");
  g_autofree char *system = NULL, *model = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  const gint64 interleave[] = { 1, 48 };

  if (root == NULL)
    {
      g_test_skip ("BPW_SOURCE_ROOT is not set");
      return;
    }
  system = g_build_filename (root, "tests", "data", "calculon-search", "a100_80g.json", NULL);
  model = g_build_filename (root, "tests", "data", "calculon-search", "gpt3-175B.json", NULL);
  bp = bpw_blueprint_load (system, NULL, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (interleave); i++)
    for (gint pp_tier = 0; pp_tier < 2; pp_tier++)
      {
        g_autoptr(BpwPlan) plan = NULL;
        g_autoptr(BpwEstimator) est = NULL;
        BpwModelSpec spec;
        BpwScenario scenario;
        BpwMapping m;
        BpwEvaluation full, fast;

        bpw_model_spec_init_defaults (&spec);
        g_assert_true (bpw_workload_load (model, &spec, &error));
        g_assert_no_error (error);
        bpw_scenario_init_defaults (&scenario);
        scenario.phase = BPW_WORKLOAD_TRAIN;
        scenario.global_batch = 1536;
        scenario.micro_batch = 6;
        scenario.seq = 2048;
        scenario.recompute = BPW_RECOMPUTE_SELECTIVE;
        bpw_mapping_init_defaults (&m);
        m.parallel.tp = 4;
        m.parallel.pp = 2;
        m.parallel.dp = 128;
        m.parallel.sp = TRUE;
        m.parallel.zero = 2;
        m.parallel.schedule = interleave[i] > 1 ? BPW_SCHEDULE_INTERLEAVED : BPW_SCHEDULE_1F1B;
        m.parallel.interleave = interleave[i];
        m.tp_overlap = BPW_TP_OVERLAP_RING;
        m.dp_overlap = TRUE;
        m.tier[BPW_GROUP_TP] = 0;
        m.tier[BPW_GROUP_PP] = pp_tier;
        m.tier[BPW_GROUP_DP] = 1;
        m.placement[BPW_TENSOR_ACTIVATION] = BPW_PLACEMENT_HOST;

        plan = bpw_test_bind (&spec, &scenario, bp, &m);
        bpw_evaluation_from_plan (plan, &full);
        est = bpw_test_estimate (&spec, &scenario, bp, &m, &fast);
        g_test_message ("v %" G_GINT64_FORMAT ", PP on tier %d: plan %.6f s, analytic %.6f s",
                        interleave[i], pp_tier, full.step_time_s, fast.step_time_s);
        bpw_test_assert_close (full.step_time_s, fast.step_time_s, 1e-9);
        for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
          bpw_test_assert_close (full.breakdown_s[b], fast.breakdown_s[b], 1e-9);

        bpw_mapping_clear (&m);
        bpw_scenario_clear (&scenario);
        bpw_model_spec_clear (&spec);
      }
}

/* ---- DP overlap windows ---- */

/* One stage of 4 layers, one micro-batch: 3 s of forward and 7 s of backward, 4 s of
 * gradient reduce-scatter and 4 s of gathering the updated weights. With DP overlap the
 * reduction hides behind the backward but for the last layer's bucket, min (7, 4)·3/4 =
 * 3 s; the gather behind the next forward but for the first layer's, min (3, 4)·3/4 =
 * 2.25 s; hidden traffic costs compute its tier's processor usage. */
static void
test_dp_overlap_windows (void)
{
  BpwStageTotals st = {
    .compute = 10, .forward = 3, .backward = 7, .optimizer = 0.5,
    .dp_time = 8, .dp_gather = 4, .n_layers = 4, .ranks = 1, .copies = 1,
  };
  BpwStepContext ctx = {
    .micro_batches = 1, .pp = 1, .interleave = 1, .devices = 1,
    .phase = BPW_WORKLOAD_TRAIN, .dp_overlap = TRUE, .legal = TRUE, .fits = TRUE,
  };
  BpwEvaluation e;

  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION], 8 - 3 - 2.25, 1e-12);
  bpw_test_assert_close (e.step_time_s, 10 + 0.5 + 2.75, 1e-12);

  /* A usage of 0.1 on both: 10 % of the hidden 5.25 s comes back. */
  st.dp_usage = 0.8;
  st.dp_gather_usage = 0.4;
  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION], 2.75 + 0.525, 1e-12);

  /* A gather longer than the forward: all of it beyond 3·3/4 s is exposed. */
  st.dp_usage = st.dp_gather_usage = 0;
  st.dp_time = 4 + 6;
  st.dp_gather = 6;
  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION], 10 - 3 - 2.25, 1e-12);

  /* Without overlap, or in inference, every second of it is. */
  ctx.dp_overlap = FALSE;
  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION], 10, 1e-12);
  ctx.dp_overlap = TRUE;
  ctx.phase = BPW_WORKLOAD_PREFILL;
  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION], 10, 1e-12);
}

/* ZeRO 3, two micro-batches, a 5 s gather of the stage's weights before each forward and
 * each backward: each runs behind the pass before it, so per micro-batch min (5, 7) +
 * min (5, 3) = 8 s of the 10 s hide and 2 s stall the stage; the step's first gather has
 * nothing before it and adds the 5 s it would have hidden. The 4 s reduce-scatter hides
 * 3 s behind the backward as before. */
static void
test_zero3_prefetch_windows (void)
{
  BpwStageTotals st = {
    .compute = 10, .forward = 3, .backward = 7, .optimizer = 0.5,
    .dp_time = 4 + 20, .dp_mb_gather = 20, .n_layers = 4, .ranks = 1, .copies = 1,
  };
  BpwStepContext ctx = {
    .micro_batches = 2, .pp = 1, .interleave = 1, .devices = 1,
    .phase = BPW_WORKLOAD_TRAIN, .dp_overlap = TRUE, .legal = TRUE, .fits = TRUE,
  };
  BpwEvaluation e;
  double sum = 0;

  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.breakdown_s[BPW_BREAKDOWN_EXPOSED_COMMUNICATION], 2 * 2 + 1 + 5, 1e-12);
  bpw_test_assert_close (e.step_time_s, 2 * (10 + 2) + 0.5 + 1 + 5, 1e-12);
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    sum += e.breakdown_s[b];
  bpw_test_assert_close (sum, e.step_time_s, 1e-12);

  /* DP overlap does not change the prefetch: only the reduce-scatter becomes exposed. */
  ctx.dp_overlap = FALSE;
  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.step_time_s, 2 * (10 + 2) + 0.5 + 4 + 5, 1e-12);

  /* In inference one gather precedes each forward, behind the forward before it. */
  st.dp_time = st.dp_mb_gather = 10;
  st.backward = st.optimizer = 0;
  st.compute = 3;
  ctx.phase = BPW_WORKLOAD_PREFILL;
  bpw_evaluation_combine (&ctx, &st, 1, &e);
  bpw_test_assert_close (e.step_time_s, 2 * (3 + 5 - 3) + 3, 1e-12);

  /* Two stages: the first stalls 2 per micro-batch on its gathers (12 a micro-batch), the
   * second has none but more work (11). The pipeline fills and drains through the work
   * alone, the gathers being fetched while a stage waits: a micro-batch passes once
   * through every stage but the slowest, 10 + 11 − 11 = 10 (the first stage's work, not
   * its 12), and never below the search's bound, (p − 1) times the least work. */
  {
    BpwStageTotals two[2] = {
      {
        .compute = 10, .forward = 3, .backward = 7, .optimizer = 0.5,
        .dp_time = 4 + 20, .dp_mb_gather = 20, .n_layers = 4, .ranks = 1, .copies = 1,
      },
      {
        .compute = 11, .forward = 4, .backward = 7, .optimizer = 0.5,
        .n_layers = 4, .ranks = 1, .copies = 1, .first_stage = 1,
      },
    };

    ctx.phase = BPW_WORKLOAD_TRAIN;
    ctx.dp_overlap = TRUE;
    ctx.pp = 2;
    bpw_evaluation_combine (&ctx, two, 2, &e);
    g_assert_cmpint (e.slowest_stage, ==, 0);
    bpw_test_assert_close (e.breakdown_s[BPW_BREAKDOWN_BUBBLE], 10, 1e-12);
    /* 2 micro-batches of 12, the bubble, and the first stage's tail: its optimizer, the
     * reduce-scatter's last bucket and its first gather. */
    bpw_test_assert_close (e.step_time_s, 2 * 12 + 10 + 0.5 + 1 + 5, 1e-12);
    sum = 0;
    for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
      sum += e.breakdown_s[b];
    bpw_test_assert_close (sum, e.step_time_s, 1e-12);
  }
}

/* ---- identities ---- */

static void
test_identities (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load (cases[i].blueprint, NULL, &error);
      g_autoptr(BpwPlan) plan = NULL;
      BpwModelSpec spec;
      BpwScenario scenario;
      BpwMapping mapping;
      BpwEvaluation e;
      double sum = 0, peak;

      setup_case (&cases[i], &spec, &scenario, &mapping);
      plan = bpw_test_bind (&spec, &scenario, bp, &mapping);
      bpw_evaluation_from_plan (plan, &e);

      /* The overlap windows are the time of the pass they name, from the plan's tasks. */
      for (gint64 st = 0; st < plan->dist->n_stages; st++)
        {
          BpwStageTotals totals;
          double forward = 0, backward = 0;
          GArray *tasks = plan->stages[st].tasks;

          for (guint k = 0; k < tasks->len; k++)
            {
              const BpwPlanTask *t = &g_array_index (tasks, BpwPlanTask, k);

              if (t->phase == BPW_PHASE_FORWARD)
                forward += t->cost.time_s * t->count;
              else if (t->phase == BPW_PHASE_BACKWARD_ACTIVATION ||
                       t->phase == BPW_PHASE_BACKWARD_WEIGHT)
                backward += t->cost.time_s * t->count;
            }
          bpw_stage_totals_from_plan (plan, st, &totals);
          bpw_test_assert_close (totals.forward, forward, 1e-12);
          bpw_test_assert_close (totals.backward, backward, 1e-12);
          g_assert_cmpfloat (forward, >, 0);
        }

      /* The breakdown partitions the step. */
      for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
        {
          g_assert_cmpfloat (e.breakdown_s[b], >=, 0.0);
          sum += e.breakdown_s[b];
        }
      bpw_test_assert_close (sum, e.step_time_s, 1e-12);

      /* MFU is its definition, with the model FLOPs of the work graph. */
      peak = bpw_blueprint_peak_flops (bp, BPW_ENGINE_MATRIX,
                                       bpw_precision_from_dtype (scenario.dtype));
      bpw_test_assert_close (e.mfu,
                             bpw_u128_to_double (bpw_work_graph_model_flops (plan->dist->graph))
                             / (e.step_time_s * (double) plan->devices * peak), 1e-12);
      g_assert_cmpfloat (e.mfu, >, 0.0);
      g_assert_cmpfloat (e.mfu, <, 1.0);
      /* Recompute only adds executed FLOPs. */
      g_assert_cmpfloat (e.hfu, >=, e.mfu * (1.0 - 0.02));

      for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
        if (!isnan (e.stall_fraction[l]))
          {
            g_assert_cmpfloat (e.stall_fraction[l], >=, 0.0);
            g_assert_cmpfloat (e.stall_fraction[l], <=, 1.0);
          }
      bpw_mapping_clear (&mapping);
      bpw_scenario_clear (&scenario);
      bpw_model_spec_clear (&spec);
    }
}

/* ---- a 1T model on 8 GPUs without ZeRO does not fit, and says by how much ---- */

static void
test_illegal_capacity (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwPlan) plan = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwEvaluation e;
  g_autofree char *reasons = NULL;
  double need;

  /* Megatron's 1T configuration (Table 1, last row). */
  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("gpt3-175b", &spec, &error));
  spec.hidden = 25600;
  spec.heads = spec.kv_heads = 160;
  spec.head_dim = 160;
  spec.ffn = 4 * 25600;
  spec.layers = 128;
  bpw_scenario_init_defaults (&scenario);
  scenario.global_batch = 8;
  scenario.micro_batch = 1;
  scenario.seq = 2048;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.tp = 8;

  plan = bpw_test_bind (&spec, &scenario, bp, &mapping);
  g_assert_false (plan->legal);
  reasons = bpw_plan_reasons_to_string (plan);
  g_assert_nonnull (strstr (reasons, "GiB short"));
  g_assert_nonnull (strstr (reasons, "ZeRO"));
  /* 16 bytes per parameter (bf16 weights and grads, fp32 master and two moments) over 8
   * ranks already exceed 80 GiB by far. */
  need = 16.0 * (double) bpw_model_spec_parameters (&spec) / 8.0;
  g_assert_cmpfloat (plan->stages[0].memory.device_total, >=, need * 0.99);
  bpw_evaluation_from_plan (plan, &e);
  g_assert_false (e.legal);
  g_assert_cmpint (e.bottleneck, ==, BPW_BOTTLENECK_CAPACITY);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
}

/* ---- conservation through binding: executed = distributed + listed transformations ---- */

static double
transformation (const BpwPlan *plan, const char *name, gboolean bytes)
{
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      if (strcmp (t->name, name) == 0)
        return bytes ? t->bytes : t->flops;
    }
  return 0;
}

static void
test_binding_conserves (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwPlan) plan = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  double executed = 0, distributed = 0, ring = 0, n;

  /* Head dimension 125 and an odd MLP width: the 16×8×16 tensor-core tile pads them. */
  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("gpt2", &spec, &error));
  spec.hidden = 1000;
  spec.heads = spec.kv_heads = 8;
  spec.head_dim = 125;
  spec.ffn = 3000;
  spec.vocab = 50000;
  bpw_scenario_init_defaults (&scenario);
  scenario.global_batch = 16;
  scenario.micro_batch = 2;
  scenario.seq = 1000;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.tp = 2;
  mapping.parallel.pp = 2;
  mapping.parallel.dp = 2;
  mapping.fusion = BPW_FUSION_ATTENTION;
  plan = bpw_test_bind (&spec, &scenario, bp, &mapping);

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      const GArray *tasks = plan->dist->stages[s].tasks;
      const GArray *bound = plan->stages[s].tasks;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwTask *t = &g_array_index (tasks, BpwTask, i);
          const BpwPlanTask *p = &g_array_index (bound, BpwPlanTask, i);
          double per_step = p->phase == BPW_PHASE_OPTIMIZER ? p->count
                            : p->count * (double) plan->micro_batches;

          distributed += (double) t->flops * (double) t->count;
          executed += p->flops * per_step;
        }
      for (guint i = 0; i < plan->stages[s].transfers->len; i++)
        {
          const BpwPlanTransfer *tr = &g_array_index (plan->stages[s].transfers,
                                                      BpwPlanTransfer, i);

          /* Ring all-reduce: 2(n−1)/n of the message per rank (nccl-tests). */
          if (tr->kind == BPW_COLLECTIVE_ALL_REDUCE && tr->algorithm == BPW_COLLECTIVE_ALGO_RING)
            {
              n = (double) tr->ranks;
              ring += 2.0 * (n - 1.0) / n * tr->bytes * tr->count *
                      (bpw_plan_transfer_per_step (tr->group, tr->kind, tr->phase)
                       ? 1.0 : (double) plan->micro_batches) * 4.0;  /* tp × dp ranks */
            }
        }
    }
  /* Per rank of a stage; every stage has tp × dp = 4 ranks. */
  distributed *= 4.0;
  executed *= 4.0;
  g_assert_cmpfloat (transformation (plan, "padding", FALSE), >, 0.0);
  /* Causal training: the blocks above the diagonal that the flash kernel skips outweigh
   * the QKᵀ its backward recomputes. */
  g_assert_cmpfloat (transformation (plan, "fused-attention", FALSE), <, 0.0);
  g_assert_cmpfloat (transformation (plan, "fused-attention", TRUE), <, 0.0);
  bpw_test_assert_close (executed, distributed + transformation (plan, "padding", FALSE) +
                                   transformation (plan, "fused-attention", FALSE), 1e-12);
  bpw_test_assert_close (ring, transformation (plan, "ring-all-reduce", TRUE), 1e-12);

  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Evaluation/binding-conserves", test_binding_conserves);
  g_test_add_func ("/bpw/core/Evaluation/calculon-reference", test_calculon_reference);
  g_test_add_func ("/bpw/core/Evaluation/analytic-agrees-with-plan", test_analytic_agrees);
  g_test_add_func ("/bpw/core/Evaluation/analytic-agrees-under-stacks",
                   test_analytic_agrees_under_stacks);
  g_test_add_func ("/bpw/core/Evaluation/analytic-agrees-across-tiers",
                   test_analytic_agrees_across_tiers);
  g_test_add_func ("/bpw/core/Evaluation/dp-overlap-windows", test_dp_overlap_windows);
  g_test_add_func ("/bpw/core/Evaluation/zero3-prefetch-windows", test_zero3_prefetch_windows);
  g_test_add_func ("/bpw/core/Evaluation/identities", test_identities);
  g_test_add_func ("/bpw/core/Evaluation/illegal-capacity", test_illegal_capacity);
  return g_test_run ();
}
