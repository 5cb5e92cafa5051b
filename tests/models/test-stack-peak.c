/* test-stack-peak.c — a training step's peak memory as a PyTorch stack holds it, in
 * closed form
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The bundled H200 blueprint's stack trains with fp32 master weights under bf16 autocast,
 * fp32 logits and PyTorch's foreach AdamW. Its optimizer step updates the P parameters in
 * place and holds, per parameter, the fp32 gradient (4 B), the master (4 B), the two
 * moments (8 B) and the foreach step's sqrt(exp_avg_sq) list (4 B): 20 P bytes; the bf16
 * weights are autocast's working copies, freed once backward has consumed them. For Llama
 * 3 8B cut to four layers at 1 × 2048 tokens (the measurement pack's training run) that
 * is the step's peak: the forward and backward hold 12 P (no .grad yet) to 16 P of state,
 * 2 P of working copies, and about 3 GiB of activations and fp32 logits. The pack's
 * training trace of that run shows the scratch: one out-of-place aten::_foreach_sqrt over
 * its 27 parameter tensors, 1 923 125 248 elements (recorded input shapes), which is P.
 *
 * The static peak counted the optimizer's update traffic (28 B per parameter of the
 * largest weight) as a working set on top of the activations: 48.99 GiB against the
 * 35.82 GiB of 20 P. It is now the larger of the forward-backward bound and the optimizer
 * step. A fused optimizer holds no scratch (16 P); ZeRO 1 over two ranks shards master,
 * moments and scratch (4 P + 12 P / 2 + 4 P / 2 = 12 P).
 */
#include "config.h"

#include <math.h>

#include "bpw-core.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Parameters of a Llama-style decoder in closed form: untied embedding and head, Q/K/V and
 * output projections, a SwiGLU MLP (three matrices), two RMSNorms per layer, a final one. */
static gint64
llama_parameters (const BpwModelSpec *m)
{
  gint64 q = m->heads * m->head_dim, kv = m->kv_heads * m->head_dim;
  gint64 layer = m->hidden * (q + 2 * kv) + q * m->hidden + 3 * m->hidden * m->ffn +
                 2 * m->hidden;

  return 2 * m->vocab * m->hidden + m->layers * layer + m->hidden;
}

typedef struct
{
  BpwPlanMemory memory;
  double        simulated, estimated;
} Peak;

static void
peak_of (const BpwModelSpec *spec, const BpwBlueprint *bp, gint64 dp, gint zero, Peak *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autoptr(BpwEstimator) est = NULL;
  BpwSimOptions options = { 0 };
  BpwEvaluation bound, simulated, fast;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwWorkGraph *graph;
  BpwDistWork *dist;

  bpw_scenario_init_defaults (&scenario);
  scenario.phase = BPW_WORKLOAD_TRAIN;
  scenario.recompute = BPW_RECOMPUTE_NONE;
  scenario.seq = 2048;
  scenario.micro_batch = 1;
  scenario.global_batch = dp;
  bpw_mapping_init_defaults (&mapping);
  mapping.parallel.dp = dp;
  mapping.parallel.zero = zero;
  mapping.micro_batch = 1;
  mapping.fusion = BPW_FUSION_BASE | BPW_FUSION_ATTENTION;

  graph = bpw_work_graph_new (spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);
  bpw_evaluation_from_plan (plan, &bound);
  sim = bpw_simulation_new (plan, &options, &error);
  g_assert_no_error (error);
  bpw_simulation_evaluation (sim, &bound, &simulated);
  est = bpw_estimator_new (spec, &scenario, bp, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_estimator_evaluate (est, &mapping, &fast, NULL, &error));
  g_assert_no_error (error);

  out->memory = plan->stages[0].memory;
  out->simulated = simulated.peak_bytes;
  out->estimated = fast.peak_bytes;
  g_assert_cmpfloat (bound.peak_bytes, ==, out->memory.device_total);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
}

static void
llama_cut (BpwModelSpec *spec)
{
  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", spec));
  spec->layers = 4;
}

static void
assert_bytes (double got, double want)
{
  g_assert_cmpfloat (fabs (got - want), <=, 1e-9 * want);
}

static void
test_foreach_adam (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h200-sxm-141gb", NULL, &error);
  BpwModelSpec spec;
  double p;
  Peak pk;

  g_assert_no_error (error);
  g_assert_true (bp->stack.set && bp->stack.fp32_master && bp->stack.has_optimizer);
  g_assert_cmpint (bp->stack.optimizer, ==, BPW_STACK_OPTIMIZER_FOREACH);
  llama_cut (&spec);
  p = (double) llama_parameters (&spec);
  peak_of (&spec, bp, 1, 0, &pk);
  g_test_message ("P = %.0f; optimizer step %.3f GiB, static %.3f GiB, simulated %.3f GiB",
                  p, pk.memory.optimizer_step / GIB, pk.memory.device_total / GIB,
                  pk.simulated / GIB);

  assert_bytes (pk.memory.gradients, 4 * p);
  assert_bytes (pk.memory.optimizer_state, 12 * p);
  assert_bytes (pk.memory.optimizer_scratch, 4 * p);
  assert_bytes (pk.memory.optimizer_released, 2 * p);
  assert_bytes (pk.memory.optimizer_step, 20 * p);
  /* The simulation replays the step: its peak is the optimizer's, 20 P. */
  assert_bytes (pk.simulated, 20 * p);
  /* The static bound holds it, the estimator agrees, and the forward-backward bound is
   * no longer inflated by the update's traffic (48.99 GiB = 1.37 × 20 P before). */
  g_assert_cmpfloat (pk.memory.device_total, >=, 20 * p);
  g_assert_cmpfloat (pk.memory.device_total, <=, 1.10 * 20 * p);
  assert_bytes (pk.estimated, pk.memory.device_total);
  bpw_model_spec_clear (&spec);
}

static void
test_fused_and_zero (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h200-sxm-141gb", NULL, &error);
  BpwModelSpec spec;
  double p;
  Peak pk;

  g_assert_no_error (error);
  llama_cut (&spec);
  p = (double) llama_parameters (&spec);

  /* ZeRO 1 over two ranks: gradients whole, master, moments and the scratch halved. */
  peak_of (&spec, bp, 2, 1, &pk);
  assert_bytes (pk.memory.optimizer_step, 12 * p);
  assert_bytes (pk.estimated, pk.memory.device_total);

  /* A fused AdamW updates in place chunk by chunk: no scratch. */
  bp->stack.optimizer = BPW_STACK_OPTIMIZER_FUSED;
  peak_of (&spec, bp, 1, 0, &pk);
  assert_bytes (pk.memory.optimizer_scratch, 0);
  assert_bytes (pk.memory.optimizer_step, 16 * p);
  g_assert_cmpfloat (pk.simulated, <=, pk.memory.device_total * (1 + 1e-9));
  assert_bytes (pk.estimated, pk.memory.device_total);
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stack-peak/foreach-adam", test_foreach_adam);
  g_test_add_func ("/stack-peak/fused-and-zero", test_fused_and_zero);
  return g_test_run ();
}
