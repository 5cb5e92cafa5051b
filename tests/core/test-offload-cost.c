/* test-offload-cost.c — what offload (host-homed tensors) costs, against closed forms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Offloaded bytes are staged through device memory and stream over the host link while
 * the engine computes (shared/docs/CALCULON.md §5, Offload: overhead = max (0, offload +
 * memory − block time), tier 1 keeps two blocks). Per operation, with compute c, device
 * traffic d (the staged bytes included), host traffic h and overhead o:
 *   no-overlap processing   time = o + c + d + max (0, h − c)
 *   overlap processing      time = o + max (c, d + h)
 */
#include "config.h"

#include <math.h>

#include "bpw-core.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static void
assert_close (double a, double b, double rel)
{
  if (!(fabs (a - b) <= rel * MAX (fabs (a), fabs (b)) + 1e-15))
    g_error ("%.12g and %.12g differ by more than %g relative", a, b, rel);
}

/* Flat efficiencies (1.0 everywhere): every term is bytes / bandwidth or FLOPs / peak. */
static BpwBlueprint *
flat_blueprint (BpwProcessing processing, gboolean host, double overhead)
{
  BpwBlueprint *bp = bpw_blueprint_new ("flat");
  guint e, m;

  e = bpw_blueprint_add_engine (bp, "matrix", BPW_ENGINE_MATRIX);
  bpw_blueprint_set_value (bp, &bp->engines[e].peak[BPW_PRECISION_BF16], 100e12,
                           BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->engines[e].overhead, overhead, BPW_PROVENANCE_ESTIMATE,
                           NULL);
  m = bpw_blueprint_add_memory (bp, "hbm", BPW_MEMORY_DEVICE);
  bpw_blueprint_set_value (bp, &bp->memory[m].capacity, 80e9, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->memory[m].bandwidth, 2e12, BPW_PROVENANCE_ESTIMATE, NULL);
  if (host)
    {
      m = bpw_blueprint_add_memory (bp, "host", BPW_MEMORY_HOST);
      bpw_blueprint_set_value (bp, &bp->memory[m].capacity, 512e9, BPW_PROVENANCE_ESTIMATE,
                               NULL);
      bpw_blueprint_set_value (bp, &bp->memory[m].bandwidth, 25e9, BPW_PROVENANCE_ESTIMATE,
                               NULL);
    }
  bp->processing = processing;
  return bp;
}

static void
task_cost (const BpwBlueprint *bp, double flops, double device, double host, BpwTaskCost *cost)
{
  g_autoptr(GError) error = NULL;
  BpwCostRates rates;
  double bytes[BPW_N_TRAFFIC_LEVELS] = { device, host };

  g_assert_true (bpw_cost_rates_init (&rates, bp, BPW_PRECISION_BF16, &error));
  g_assert_no_error (error);
  bpw_cost_task (&rates, &rates.matrix, flops, bytes, cost);
}

/* A 4096 x 4096 bf16 weight (32 MiB) read by a matmul over m tokens: compute 2·m·4096²
 * FLOPs at 100 TFLOP/s, the weight over a 25 GB/s host link. m = 8192 hides the stream
 * (2.75 ms of compute against 1.34 ms), m = 1024 does not (0.34 ms against 1.34 ms). */
static void
test_task_closed_forms (void)
{
  const double w = 4096.0 * 4096.0 * 2.0, o = 5e-6;
  const gint64 tokens[] = { 8192, 1024 };

  for (guint i = 0; i < G_N_ELEMENTS (tokens); i++)
    {
      double m = (double) tokens[i];
      double flops = 2.0 * m * 4096.0 * 4096.0;
      double act = 2.0 * m * 4096.0 * 2.0;          /* input and output, bf16 */
      double c = flops / 100e12, h = w / 25e9;
      double d_home = (act + w) / 2e12;              /* weight in HBM: all device traffic */
      double d_staged = (act + w) / 2e12;            /* offloaded: staged through HBM too */
      g_autoptr(BpwBlueprint) serial = flat_blueprint (BPW_PROCESSING_NO_OVERLAP, TRUE, o);
      g_autoptr(BpwBlueprint) roof = flat_blueprint (BPW_PROCESSING_OVERLAP, TRUE, o);
      g_autoptr(BpwBlueprint) hostless = flat_blueprint (BPW_PROCESSING_NO_OVERLAP, FALSE, o);
      BpwTaskCost a, b;

      /* No-overlap: the stream hides behind compute, device traffic does not. */
      task_cost (serial, flops, act, w, &a);
      assert_close (a.time_s, o + c + d_staged + MAX (0.0, h - c), 1e-12);
      assert_close (a.stall_s, d_staged + MAX (0.0, h - c), 1e-12);
      assert_close (a.compute_s + a.stall_s + a.overhead_s, a.time_s, 1e-12);
      /* The same operation with its weight at home in HBM. */
      task_cost (serial, flops, act + w, 0, &b);
      assert_close (b.time_s, o + c + d_home, 1e-12);
      /* Offload never beats keeping the weight on the device, and costs exactly the part
       * of the stream that compute does not cover. */
      assert_close (a.time_s - b.time_s, MAX (0.0, h - c), 1e-9);
      if (i == 0)
        g_assert_cmpfloat (a.time_s, ==, b.time_s);

      /* Overlap: the op takes the longest of compute and all memory traffic. */
      task_cost (roof, flops, act, w, &a);
      assert_close (a.time_s, o + MAX (c, d_staged + h), 1e-12);
      assert_close (a.stall_s, MAX (0.0, d_staged + h - c), 1e-12);

      /* Without a host level there is no stream: the bytes cost device bandwidth. */
      task_cost (hostless, flops, act, w, &a);
      assert_close (a.time_s, o + c + (act + w) / 2e12, 1e-12);
    }
}

/* ---- gpt3-175B on 1024 A100s: the weight-offloaded best plan of the full space ---- */

static void
plan_mapping (BpwMapping *m, gboolean offload)
{
  bpw_mapping_init_defaults (m);
  m->parallel.tp = 8;
  m->parallel.pp = 1;
  m->parallel.dp = 128;
  m->parallel.sp = TRUE;
  m->parallel.zero = 2;
  m->micro_batch = 6;
  m->recompute = BPW_RECOMPUTE_NONE;
  m->fusion = BPW_FUSION_ATTENTION | BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_NORM_RESIDUAL |
              BPW_FUSION_OPTIMIZER;
  m->tp_overlap = BPW_TP_OVERLAP_RING;
  m->dp_overlap = TRUE;
  m->placement[BPW_TENSOR_WEIGHT] = offload ? BPW_PLACEMENT_HOST : -1;
}

/* Per block, micro-batch and rank the forward matmuls take 24·b·s·h²/TP FLOPs; at the
 * A100's 312 TFLOP/s and its best matrix efficiency (0.8 on the bundled blueprint) that is
 * at least 22.3 ms, while the block's 12·h²/TP bf16 weights cross the 32 GB/s host link in
 * 14.2 ms: Calculon's block overhead max (0, offload + memory − block time) is 0, and so is
 * ours operation by operation. The weight-offloaded plan therefore takes the step time of
 * the same plan with its weights in HBM, up to the once-per-step write-back of the updated
 * weight shard (weights / (TP·DP) over the link) and the weights no matmul hides: the word
 * and position embeddings and the norms, read per micro-batch in forward and backward at
 * most. Its MFU is the model FLOPs
 * 72·L·h²·T·(1 + s/(6h) + V/(12hL)) over 1024 · 312 TFLOP/s · step. */
static void
test_offloaded_175b_plan (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwEstimator) est = NULL;
  const double L = 96, h = 12288, s = 2048, V = 51200, tp = 8, dp = 128, mbs = 6;
  const double T = 1536.0 * 2048.0, peak = 312e12, host_bw = 32e9;
  double block_flops = 24.0 * mbs * s * h * h / tp, block_weights = 12.0 * h * h / tp * 2.0;
  double model_flops = 72.0 * L * h * h * T * (1 + s / (6 * h) + V / (12 * h * L));
  double write_back = L * block_weights / dp / host_bw;
  double unhidden = 1536 / dp / mbs * 2 * (V * h / tp + s * h + 4 * L * h + 2 * h) * 2 / host_bw;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping on, off;
  BpwEvaluation e_on, e_off;

  g_assert_nonnull (bp);
  g_assert_true (block_flops / (peak * 0.8) > block_weights / host_bw);
  bpw_model_spec_init_defaults (&spec);
  bpw_scenario_init_defaults (&scenario);
  g_assert_true (bpw_model_spec_lookup_bundled ("gpt3-175b", &spec));
  scenario.phase = BPW_WORKLOAD_TRAIN;
  scenario.global_batch = 1536;
  scenario.seq = 2048;
  est = bpw_estimator_new (&spec, &scenario, bp, &error);
  g_assert_no_error (error);
  plan_mapping (&on, TRUE);
  plan_mapping (&off, FALSE);
  g_assert_true (bpw_estimator_evaluate (est, &on, &e_on, NULL, &error));
  g_assert_true (bpw_estimator_evaluate (est, &off, &e_off, NULL, &error));
  g_assert_no_error (error);

  /* Offloaded it fits; in HBM it does not (43.5 GB of weights, ZeRO 2 shards no weight). */
  g_assert_true (e_on.legal);
  g_assert_false (e_off.legal);
  g_test_message ("weights on host %.4f s, in HBM %.4f s: %+.4f s (write-back %.4f s, "
                  "unhidden weights at most %.4f s), MFU %.1f %%", e_on.step_time_s,
                  e_off.step_time_s, e_on.step_time_s - e_off.step_time_s, write_back, unhidden,
                  100 * e_on.mfu);
  g_assert_cmpfloat (e_on.step_time_s - e_off.step_time_s, >=, write_back * (1 - 1e-6));
  g_assert_cmpfloat (e_on.step_time_s - e_off.step_time_s, <=, write_back + unhidden);
  /* MFU is the convention's, with the model FLOPs of the closed form. */
  assert_close (e_on.model_flops, model_flops, 1e-3);
  assert_close (e_on.mfu, model_flops / (1024 * peak * e_on.step_time_s), 1e-3);
  /* And it cannot beat the matrix engine's best efficiency on the work it must do. */
  g_assert_cmpfloat (e_on.mfu, <, 0.8);
  bpw_mapping_clear (&on);
  bpw_mapping_clear (&off);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
}

/* ---- Activation offload: one stream per layer, hidden behind the layer's work ---- */

/* A four-layer slice of gpt3-175B (h 12288) on TP 8 with SP and selective recompute: a
 * layer stores 34·s·b·h/t bytes per micro-batch for backward (Korthikanti et al. 2022;
 * test-memory-formulas.c). With activations on the host that stash goes out over the link
 * while the layer's forward runs and comes back while its backward runs; the operations
 * themselves work on the device copy. So per layer and micro-batch the step waits
 * max (0, S/B − W_fwd) + max (0, S/B − W_bwd), where W is the layer's work beside its memory
 * traffic (compute and launch overhead) in that direction and B the link's bandwidth. */
static BpwPlan *
bind_slice (const BpwBlueprint *bp, gboolean acts_on_host, BpwMapping *m, BpwModelSpec *spec,
            BpwScenario *scenario)
{
  g_autoptr(GError) error = NULL;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwPlan *plan;

  bpw_model_spec_init_defaults (spec);
  bpw_scenario_init_defaults (scenario);
  g_assert_true (bpw_model_spec_lookup_bundled ("gpt3-175b", spec));
  spec->layers = 4;
  scenario->phase = BPW_WORKLOAD_TRAIN;
  scenario->global_batch = 2;
  scenario->micro_batch = 1;
  scenario->seq = 2048;
  scenario->recompute = BPW_RECOMPUTE_SELECTIVE;
  bpw_mapping_init_defaults (m);
  m->parallel.tp = 8;
  m->parallel.sp = TRUE;
  m->micro_batch = 1;
  m->recompute = BPW_RECOMPUTE_SELECTIVE;
  m->fusion = 0;
  m->placement[BPW_TENSOR_ACTIVATION] = acts_on_host ? BPW_PLACEMENT_HOST : -1;

  graph = bpw_work_graph_new (spec, scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &m->parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, m, &error);
  g_assert_no_error (error);
  return plan;
}

static void
test_activation_stash (void)
{
  const double host_bw[] = { 1e9, 1e12 };  /* one link too slow to hide the stash, one not */
  const double s = 2048, b = 1, h = 12288, t = 8;
  const double stash = 34.0 * s * b * h / t;

  for (guint i = 0; i < G_N_ELEMENTS (host_bw); i++)
    {
      g_autoptr(BpwBlueprint) bp = flat_blueprint (BPW_PROCESSING_NO_OVERLAP, TRUE, 5e-6);
      g_autoptr(BpwPlan) dev = NULL, off = NULL;
      g_autoptr(BpwEstimator) est = NULL;
      g_autoptr(GError) error = NULL;
      BpwModelSpec spec, spec2;
      BpwScenario scenario, scenario2;
      BpwMapping m_dev, m_off;
      BpwEvaluation e_dev, e_off;
      double expected_total = 0;
      int host = bpw_blueprint_first_memory (bp, BPW_MEMORY_HOST);

      bpw_blueprint_set_value (bp, &bp->memory[host].bandwidth, host_bw[i],
                               BPW_PROVENANCE_ESTIMATE, NULL);
      dev = bind_slice (bp, FALSE, &m_dev, &spec, &scenario);
      off = bind_slice (bp, TRUE, &m_off, &spec2, &scenario2);
      g_assert_cmpint (dev->dist->n_stages, ==, 1);
      g_assert_cmpuint (dev->stages[0].tasks->len, ==, off->stages[0].tasks->len);

      /* The blocks, and the embedding (−1) and the head and loss (−2), whose stash is what
       * their own graph stores. */
      for (gint32 layer = BPW_LAYER_AFTER_BLOCKS; layer < 4; layer++)
        {
          double w_fwd = 0, w_bwd = 0, stashed = 0, waited = 0, expected, out;

          for (guint k = 0; k < dev->stages[0].tasks->len; k++)
            {
              const BpwPlanTask *a = &g_array_index (dev->stages[0].tasks, BpwPlanTask, k);
              const BpwPlanTask *o = &g_array_index (off->stages[0].tasks, BpwPlanTask, k);

              if (a->layer != layer)
                continue;
              /* The operations' own traffic is the same: the device copy. */
              g_assert_cmpfloat (o->bytes[BPW_TRAFFIC_HOST], ==, 0);
              g_assert_cmpfloat (o->bytes[BPW_TRAFFIC_DEVICE], ==, a->bytes[BPW_TRAFFIC_DEVICE]);
              if (a->phase == BPW_PHASE_FORWARD)
                w_fwd += (a->cost.compute_s + a->cost.overhead_s) * a->count;
              else if (a->phase != BPW_PHASE_OPTIMIZER)
                w_bwd += (a->cost.compute_s + a->cost.overhead_s) * a->count;
              stashed += o->stash_bytes * o->count;
              waited += (o->cost.time_s - a->cost.time_s) * o->count;
              assert_close (o->cost.time_s - a->cost.time_s, o->stream_s, 1e-9);
            }
          /* Out once and back once. */
          out = stashed / 2.0;
          if (layer >= 0)
            assert_close (out, stash, 1e-12);
          expected = MAX (0.0, out / host_bw[i] - w_fwd) + MAX (0.0, out / host_bw[i] - w_bwd);
          g_test_message ("link %.0e B/s, layer %d: stash %.1f MB, %.3f ms each way, windows "
                          "%.3f / %.3f ms, waits %.3f ms", host_bw[i], layer, out / 1e6,
                          1e3 * out / host_bw[i], 1e3 * w_fwd, 1e3 * w_bwd, 1e3 * waited);
          assert_close (waited, expected, 1e-9);
          if (i == 0 && layer >= 0)
            g_assert_cmpfloat (waited, >, 0.09);  /* 107 MB at 1 GB/s against ~10 ms windows */
          else if (i == 1)
            g_assert_cmpfloat (waited, ==, 0);
          expected_total += expected;
        }

      /* The search's estimator prices the same wait, micro-batch by micro-batch. */
      est = bpw_estimator_new (&spec, &scenario, bp, &error);
      g_assert_no_error (error);
      g_assert_true (bpw_estimator_evaluate (est, &m_dev, &e_dev, NULL, &error));
      g_assert_true (bpw_estimator_evaluate (est, &m_off, &e_off, NULL, &error));
      g_assert_no_error (error);
      assert_close (e_off.step_time_s - e_dev.step_time_s,
                    (double) off->micro_batches * expected_total, 1e-6);

      bpw_mapping_clear (&m_dev);
      bpw_mapping_clear (&m_off);
      bpw_scenario_clear (&scenario);
      bpw_scenario_clear (&scenario2);
      bpw_model_spec_clear (&spec);
      bpw_model_spec_clear (&spec2);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/Offload/task-closed-forms", test_task_closed_forms);
  g_test_add_func ("/bpw/core/Offload/gpt3-175b-weights-hidden", test_offloaded_175b_plan);
  g_test_add_func ("/bpw/core/Offload/activation-stash-per-layer", test_activation_stash);
  return g_test_run ();
}
