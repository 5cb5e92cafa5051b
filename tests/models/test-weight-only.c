/* test-weight-only.c — weight-only INT8 / INT4 quantisation against its closed forms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Weights of n × k elements stored with b bits and one fp16 scale per group of g along k
 * hold n·k·b/8 + (n·k/g)·2 bytes; a group that does not divide k falls back with the
 * reason "group"; a batch-1 decode, which waits on the weight bytes, speeds up by about
 * the ratio of the bytes it reads; the memory the weights free holds more KV cache, so
 * more sequences; a prefill, bound by its matmuls, gains nothing; the policy's reader
 * refuses what the mode cannot be, naming file, line, column and field.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-serve.h"
#include "bpw-test-plan.h"
#include "bpw-test-serve.h"

/* A plan of one decode step (batch @batch, @context cached tokens) or one prefill of
 * @batch prompts of @context tokens, with @weights on the attention projections and MLP. */
static BpwPlan *
plan_new (BpwTestSetup *s, BpwWorkloadPhase phase, gint64 batch, gint64 context,
          BpwWeightFormat weights, gint64 group)
{
  g_autoptr(GError) error = NULL;
  BpwScenario sc = s->scenario;
  BpwMapping m = s->mapping;
  BpwWorkGraph *g;
  BpwDistWork *dist;
  BpwPlan *plan;

  sc.name = NULL;
  sc.phase = phase;
  sc.global_batch = sc.micro_batch = batch;
  sc.recompute = BPW_RECOMPUTE_NONE;
  if (phase == BPW_WORKLOAD_DECODE)
    sc.context = context;
  else
    sc.seq = context;
  m.micro_batch = batch;
  m.recompute = BPW_RECOMPUTE_NONE;
  bpw_precision_policy_init (&m.precision);
  if (weights != BPW_WEIGHT_FORMAT_NATIVE)
    bpw_precision_policy_set_weights (&m.precision, weights, group);
  g = bpw_work_graph_new (&s->spec, &sc, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (g, &m.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, s->bp, &m, &error);
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

static double
step_time (const BpwPlan *plan)
{
  BpwEvaluation e;

  bpw_evaluation_from_plan (plan, &e);
  return e.step_time_s;
}

/* Elements of one block's quantised weights: Q and O (h × h), K and V (h × kv·d), gate,
 * up and down (h × f). */
static gint64
block_weight_elements (const BpwModelSpec *m)
{
  gint64 h = m->hidden, kv = m->kv_heads * m->head_dim;

  return 2 * h * h + 2 * h * kv + 3 * h * m->ffn;
}

/* Device bytes every task reads or writes in one step, and of them the weights' reads. */
static void
step_bytes (const BpwPlan *plan, double *all, double *weights)
{
  const BpwWorkGraph *g = plan->dist->graph;

  *all = *weights = 0;
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    for (guint i = 0; i < plan->stages[s].tasks->len; i++)
      {
        const BpwPlanTask *t = &g_array_index (plan->stages[s].tasks, BpwPlanTask, i);
        const BpwOp *op = bpw_work_graph_op (g, t->op);

        *all += t->bytes[BPW_TRAFFIC_DEVICE] * t->count;
        for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
          {
            const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);

            if (use->access == BPW_ACCESS_READ &&
                bpw_work_graph_tensor (g, use->tensor)->kind == BPW_TENSOR_WEIGHT)
              *weights += (double) use->bytes * t->count;
          }
      }
}

/* ---- bytes ---- */

static void
test_bytes_closed_form (void)
{
  const gint64 n = 14336, k = 4096;

  /* INT8: one byte per element and 2 bytes per 128 of them; INT4: half a byte. */
  g_assert_cmpint (bpw_weight_only_bytes (BPW_WEIGHT_FORMAT_INT8, 128, n * k), ==,
                   n * k + n * k / 128 * 2);
  g_assert_cmpint (bpw_weight_only_bytes (BPW_WEIGHT_FORMAT_INT4, 128, n * k), ==,
                   n * k / 2 + n * k / 128 * 2);
  g_assert_cmpint (bpw_weight_only_bytes (BPW_WEIGHT_FORMAT_INT4, 64, n * k), ==,
                   n * k / 2 + n * k / 64 * 2);
  /* An odd count of INT4 elements takes its last byte whole. */
  g_assert_cmpint (bpw_weight_only_bytes (BPW_WEIGHT_FORMAT_INT4, 1, 3), ==, 2 + 3 * 2);
  g_assert_cmpint (bpw_weight_only_bytes (BPW_WEIGHT_FORMAT_NATIVE, 128, n * k), ==, -1);
  g_assert_cmpstr (bpw_weight_only_mode (BPW_WEIGHT_FORMAT_INT4, 128), ==, "weights-int4-g128");
  g_assert_cmpstr (bpw_weight_only_mode (BPW_WEIGHT_FORMAT_INT8, 64), ==, "weights-int8-g64");
}

/* Llama 3 8B on one H100: the plan's weights shrink by exactly the blocks' quantised
 * elements × (2 − b/8) bytes less their scales; the embedding, the head and the norms
 * keep theirs. */
static void
test_plan_weight_memory (void)
{
  static const BpwWeightFormat formats[] = { BPW_WEIGHT_FORMAT_INT8, BPW_WEIGHT_FORMAT_INT4 };
  g_autoptr(BpwPlan) native = NULL;
  BpwTestSetup s;
  gint64 e;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  e = block_weight_elements (&s.spec) * s.spec.layers;
  native = plan_new (&s, BPW_WORKLOAD_DECODE, 1, 16, BPW_WEIGHT_FORMAT_NATIVE, 0);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autoptr(BpwPlan) woq = plan_new (&s, BPW_WORKLOAD_DECODE, 1, 16, formats[i], 128);
      double bits = (double) bpw_weight_format_bits (formats[i]);
      double expected = (double) e * 2.0 - ((double) e * bits / 8.0 + (double) e / 128.0 * 2.0);
      double all16, w16, allq, wq;

      g_test_message ("%s: weights %.0f B native, %.0f B weight-only, %.0f B saved "
                      "(closed form %.0f)", bpw_weight_format_to_string (formats[i]),
                      native->stages[0].memory.weights, woq->stages[0].memory.weights,
                      native->stages[0].memory.weights - woq->stages[0].memory.weights,
                      expected);
      g_assert_cmpfloat (native->stages[0].memory.weights - woq->stages[0].memory.weights, ==,
                         expected);
      /* The step reads them as they are stored. */
      step_bytes (native, &all16, &w16);
      step_bytes (woq, &allq, &wq);
      g_assert_cmpfloat (fabs ((all16 - allq) - expected), <=, (double) s.spec.layers * 7.0);
    }
  bpw_test_setup_clear (&s);
}

/* ---- legality ---- */

/* Groups of 96 divide none of Llama 3 8B's k (4096, 14336): every weight matmul falls
 * back with the reason "group" and the weights stay as they were. Groups of 4096 divide
 * the hidden size but not the MLP's 14336: only the down projection falls back. */
static void
test_group_not_dividing_k (void)
{
  g_autoptr(BpwPlan) native = NULL;
  g_autoptr(BpwPlan) g96 = NULL;
  g_autoptr(BpwPlan) g4096 = NULL;
  g_autoptr(GArray) fallbacks = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autofree char *csv = NULL;
  BpwTestSetup s;
  guint quantised = 0, group = 0;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  native = plan_new (&s, BPW_WORKLOAD_DECODE, 1, 16, BPW_WEIGHT_FORMAT_NATIVE, 0);
  g96 = plan_new (&s, BPW_WORKLOAD_DECODE, 1, 16, BPW_WEIGHT_FORMAT_INT4, 96);
  g_assert_cmpfloat (g96->stages[0].memory.weights, ==, native->stages[0].memory.weights);
  fallbacks = bpw_plan_precision_fallbacks (g96);
  g_assert_cmpuint (fallbacks->len, ==, 2);
  for (guint i = 0; i < fallbacks->len; i++)
    g_assert_cmpint (g_array_index (fallbacks, BpwPrecisionFallback, i).reason, ==,
                     BPW_FALLBACK_GROUP);

  g4096 = plan_new (&s, BPW_WORKLOAD_DECODE, 1, 16, BPW_WEIGHT_FORMAT_INT4, 4096);
  for (guint i = 0; i < g4096->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *t = &g_array_index (g4096->stages[0].tasks, BpwPlanTask, i);

      quantised += t->weights != BPW_WEIGHT_FORMAT_NATIVE;
      group += t->fallback == BPW_FALLBACK_GROUP;
    }
  /* Per block: QKV, O and gate-up (fused or not) quantised; the down projection falls back. */
  g_assert_cmpuint (group, ==, (guint) s.spec.layers);
  g_assert_cmpuint (quantised, >=, 3 * (guint) s.spec.layers);
  g_assert_cmpfloat (g4096->stages[0].memory.weights, <, native->stages[0].memory.weights);
  g_assert_cmpfloat (g4096->stages[0].memory.weights, >, g96->stages[0].memory.weights / 4.0);

  rows = bpw_mapping_sheet_new (g4096, TRUE);
  csv = bpw_mapping_sheet_to_csv (rows);
  g_assert_nonnull (strstr (csv, ",int4 w/ g4096 (bf16 compute),dense,\n"));
  g_assert_nonnull (strstr (csv, ",bf16,dense,group\n"));
  bpw_test_setup_clear (&s);
}

/* ---- effects ---- */

/* A batch-1 decode of Llama 3 8B with 16 cached tokens reads the weights and little else:
 * with B the step's device bytes at bf16, W of them weights and Wq what they are
 * weight-only, the step takes (B − W + Wq) / B of its time at least (all of it waiting on
 * bytes), and at most that plus the share of the step that is not memory-bound
 * (latency and compute: its time not spent waiting on bytes, which the weights do not
 * change). The dequantisation hides behind the weight loads (but for a hundredth). */
static void
test_decode_speedup (void)
{
  static const BpwWeightFormat formats[] = { BPW_WEIGHT_FORMAT_INT8, BPW_WEIGHT_FORMAT_INT4 };
  g_autoptr(BpwPlan) native = NULL;
  BpwTestSetup s;
  double t16, all16, w16;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  native = plan_new (&s, BPW_WORKLOAD_DECODE, 1, 16, BPW_WEIGHT_FORMAT_NATIVE, 0);
  t16 = step_time (native);
  step_bytes (native, &all16, &w16);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autoptr(BpwPlan) woq = plan_new (&s, BPW_WORKLOAD_DECODE, 1, 16, formats[i], 128);
      double tq = step_time (woq), allq, wq, ratio, bound, memory = 0, dequant = 0, exposed = 0;

      step_bytes (woq, &allq, &wq);
      for (guint k = 0; k < native->stages[0].tasks->len; k++)
        {
          const BpwPlanTask *t = &g_array_index (native->stages[0].tasks, BpwPlanTask, k);

          memory += (t->cost.stall_s + t->cost.compute_s) * t->count *
                    (t->cost.bottleneck == BPW_BOTTLENECK_MEMORY);
        }
      for (guint k = 0; k < woq->stages[0].tasks->len; k++)
        {
          const BpwPlanTask *t = &g_array_index (woq->stages[0].tasks, BpwPlanTask, k);

          dequant += t->dequant_ops * t->count;
          exposed += t->dequant_s * t->count;
        }
      ratio = tq / t16;
      bound = allq / all16;
      g_test_message ("%s: decode step %.4f ms at bf16, %.4f ms weight-only: ratio %.4f; "
                      "bytes %.4g → %.4g (ratio %.4f); memory-bound share %.4f; dequant %.4g "
                      "ops, %.3g s exposed", bpw_weight_format_to_string (formats[i]), t16 * 1e3,
                      tq * 1e3, ratio, all16, allq, bound, memory / t16, dequant, exposed);
      g_assert_cmpfloat (dequant, >, 0);
      /* Where padding to the engine's tile makes a matmul's work rival its loads, a little
       * of it shows; never more than a hundredth of the step. */
      g_assert_cmpfloat (exposed, <=, 0.01 * tq);
      g_assert_cmpfloat (ratio, >=, bound * (1.0 - 1e-9));
      g_assert_cmpfloat (ratio, <=, bound + (1.0 - memory / t16) + 1e-9);
      g_assert_cmpfloat (ratio, <, 1.0);
    }
  bpw_test_setup_clear (&s);
}

/* A prefill of 8 prompts of 2048 tokens is bound by its matmuls: weight-only changes no
 * FLOPs and no rate, so it gains nothing beyond the weight bytes it reads less, and
 * pays the dequantisation where the matrix work no longer hides it. */
static void
test_prefill_no_gain (void)
{
  g_autoptr(BpwPlan) native = NULL;
  g_autoptr(BpwPlan) int4 = NULL;
  BpwTestSetup s;
  double t16, t4, all16, w16, all4, w4;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  native = plan_new (&s, BPW_WORKLOAD_PREFILL, 8, 2048, BPW_WEIGHT_FORMAT_NATIVE, 0);
  int4 = plan_new (&s, BPW_WORKLOAD_PREFILL, 8, 2048, BPW_WEIGHT_FORMAT_INT4, 128);
  t16 = step_time (native);
  t4 = step_time (int4);
  step_bytes (native, &all16, &w16);
  step_bytes (int4, &all4, &w4);
  g_test_message ("prefill %.4f ms at bf16, %.4f ms int4", t16 * 1e3, t4 * 1e3);
  /* No faster than the bytes saved at the HBM bandwidth allow... */
  g_assert_cmpfloat (t16 - t4, <=, (all16 - all4) /
                     s.bp->memory[bpw_blueprint_first_memory (s.bp, BPW_MEMORY_DEVICE)]
                       .bandwidth.value);
  /* ...which is a small share of a compute-bound step. */
  g_assert_cmpfloat (t4, >=, 0.97 * t16);
  bpw_test_setup_clear (&s);
}

/* Serving Llama 3 8B on one H100: the weights free W − Wq bytes, which the KV cache takes:
 * its capacity grows by ⌊(W − Wq) / kv bytes per token⌋ (± 1 for the floors), and the
 * sequences of 4096 tokens that fit at once grow by that over 4096 tokens per sequence. */
static void
test_max_batch_growth (void)
{
  g_autoptr(BpwServeModel) bf16 = NULL;
  g_autoptr(BpwServeModel) int4 = NULL;
  g_autoptr(GError) error = NULL;
  BpwTestSetup s;
  gint64 e, per_token, grown, expected;
  double freed;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  bf16 = bpw_serve_model_new (&s.spec, &s.scenario, s.bp, &s.mapping, 64, 2048, 4096, &error);
  g_assert_no_error (error);
  bpw_precision_policy_set_weights (&s.mapping.precision, BPW_WEIGHT_FORMAT_INT4, 128);
  int4 = bpw_serve_model_new (&s.spec, &s.scenario, s.bp, &s.mapping, 64, 2048, 4096, &error);
  g_assert_no_error (error);
  e = block_weight_elements (&s.spec) * s.spec.layers;
  freed = (double) e * 2.0 - ((double) e / 2.0 + (double) e / 128.0 * 2.0);
  per_token = 2 * s.spec.layers * s.spec.kv_heads * s.spec.head_dim *
              (gint64) bpw_dtype_bytes (s.scenario.kv_dtype);
  grown = bpw_serve_model_kv_capacity (int4) - bpw_serve_model_kv_capacity (bf16);
  expected = (gint64) floor (freed / (double) per_token);
  g_test_message ("KV cache %" G_GINT64_FORMAT " tokens at bf16, %" G_GINT64_FORMAT " with "
                  "int4 weights: %" G_GINT64_FORMAT " more (closed form %" G_GINT64_FORMAT
                  "); sequences of 4096 tokens %" G_GINT64_FORMAT " → %" G_GINT64_FORMAT,
                  bpw_serve_model_kv_capacity (bf16), bpw_serve_model_kv_capacity (int4), grown,
                  expected, bpw_serve_model_kv_capacity (bf16) / 4096,
                  bpw_serve_model_kv_capacity (int4) / 4096);
  g_assert_cmpint (grown, >=, expected - 1);
  g_assert_cmpint (grown, <=, expected + 1);
  g_assert_cmpint (bpw_serve_model_kv_capacity (int4) / 4096 -
                   bpw_serve_model_kv_capacity (bf16) / 4096, >=, expected / 4096 - 1);
  bpw_test_setup_clear (&s);
}

/* ---- with an FP8 KV cache ---- */

/* Serving Llama 3 8B on one H100 with an FP8 KV cache (one byte an element) and INT4
 * weights: the two savings add up and do not touch each other. The weights free
 * W − Wq bytes, which hold ⌊(W − Wq) / (2 · layers · kv_heads · head_dim · 1)⌋ more
 * tokens of FP8 KV (± 1 for the floors): twice what they hold at bf16. A decode step of 8
 * sequences with 1024 cached tokens reads exactly W − Wq weight bytes less than with bf16
 * weights and the same FP8 cache, and exactly as many KV bytes less as an FP8 cache saves
 * with bf16 weights. */
static void
test_fp8_kv_cache (void)
{
  g_autoptr(BpwServeModel) kv8 = NULL;
  g_autoptr(BpwServeModel) kv8_int4 = NULL;
  g_autoptr(BpwPlan) bf16_kv16 = NULL;
  g_autoptr(BpwPlan) bf16_kv8 = NULL;
  g_autoptr(BpwPlan) int4_kv16 = NULL;
  g_autoptr(BpwPlan) int4_kv8 = NULL;
  g_autoptr(GError) error = NULL;
  BpwTestSetup s;
  gint64 e, per_token, grown, expected;
  double freed, a16_16, a16_8, a4_16, a4_8, w;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  e = block_weight_elements (&s.spec) * s.spec.layers;
  freed = (double) e * 2.0 - ((double) e / 2.0 + (double) e / 128.0 * 2.0);
  bf16_kv16 = plan_new (&s, BPW_WORKLOAD_DECODE, 8, 1024, BPW_WEIGHT_FORMAT_NATIVE, 0);
  int4_kv16 = plan_new (&s, BPW_WORKLOAD_DECODE, 8, 1024, BPW_WEIGHT_FORMAT_INT4, 128);

  s.scenario.kv_dtype = BPW_DTYPE_FP8;
  per_token = 2 * s.spec.layers * s.spec.kv_heads * s.spec.head_dim;
  kv8 = bpw_serve_model_new (&s.spec, &s.scenario, s.bp, &s.mapping, 64, 2048, 4096, &error);
  g_assert_no_error (error);
  bpw_precision_policy_set_weights (&s.mapping.precision, BPW_WEIGHT_FORMAT_INT4, 128);
  kv8_int4 = bpw_serve_model_new (&s.spec, &s.scenario, s.bp, &s.mapping, 64, 2048, 4096,
                                  &error);
  g_assert_no_error (error);
  bpw_precision_policy_init (&s.mapping.precision);
  grown = bpw_serve_model_kv_capacity (kv8_int4) - bpw_serve_model_kv_capacity (kv8);
  expected = (gint64) floor (freed / (double) per_token);
  g_test_message ("FP8 KV cache %" G_GINT64_FORMAT " tokens with bf16 weights, %"
                  G_GINT64_FORMAT " with int4: %" G_GINT64_FORMAT " more (closed form %"
                  G_GINT64_FORMAT ")", bpw_serve_model_kv_capacity (kv8),
                  bpw_serve_model_kv_capacity (kv8_int4), grown, expected);
  g_assert_cmpint (grown, >=, expected - 1);
  g_assert_cmpint (grown, <=, expected + 1);

  bf16_kv8 = plan_new (&s, BPW_WORKLOAD_DECODE, 8, 1024, BPW_WEIGHT_FORMAT_NATIVE, 0);
  int4_kv8 = plan_new (&s, BPW_WORKLOAD_DECODE, 8, 1024, BPW_WEIGHT_FORMAT_INT4, 128);
  step_bytes (bf16_kv16, &a16_16, &w);
  step_bytes (bf16_kv8, &a16_8, &w);
  step_bytes (int4_kv16, &a4_16, &w);
  step_bytes (int4_kv8, &a4_8, &w);
  g_test_message ("decode step bytes: bf16 weights %.0f (KV bf16) %.0f (KV fp8); int4 "
                  "weights %.0f, %.0f; weights save %.0f (closed form %.0f), FP8 KV %.0f",
                  a16_16, a16_8, a4_16, a4_8, a16_8 - a4_8, freed, a4_16 - a4_8);
  g_assert_cmpfloat (a16_8 - a4_8, ==, a16_16 - a4_16);
  g_assert_cmpfloat (a4_16 - a4_8, ==, a16_16 - a16_8);
  g_assert_cmpfloat (fabs ((a16_8 - a4_8) - freed), <=, (double) s.spec.layers * 7.0);
  /* The cache read, at least: 8 sequences × 1024 tokens × a byte less an element. */
  g_assert_cmpfloat (a16_16 - a16_8, >=, 8.0 * 1024.0 * (double) per_token);
  g_assert_cmpfloat (int4_kv8->stages[0].memory.weights, ==,
                     int4_kv16->stages[0].memory.weights);
  bpw_test_setup_clear (&s);
}

/* ---- ZeRO-3 ---- */

/* @plan's data-parallel weight all-gathers per micro-batch: dense ([0]) and experts ([1]),
 * summed over the stages. */
static void
gathered_bytes (const BpwPlan *plan, double gathered[2])
{
  const BpwWorkGraph *g = plan->dist->graph;

  gathered[0] = gathered[1] = 0;
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    for (guint i = 0; i < plan->stages[s].transfers->len; i++)
      {
        const BpwPlanTransfer *tr = &g_array_index (plan->stages[s].transfers,
                                                    BpwPlanTransfer, i);

        if (tr->group == BPW_GROUP_DP && tr->kind == BPW_COLLECTIVE_ALL_GATHER)
          gathered[g_str_has_suffix (bpw_work_graph_name (g, tr->name), "expert")] += tr->bytes;
      }
}

/* @s's plan of @phase (batch @batch per replica, @context tokens) over DP @dp with ZeRO
 * stage @zero and EP @ep, with @weights in groups of 128; the estimator's evaluation is
 * held against it. */
static BpwPlan *
dp_plan_new (BpwTestSetup *s, BpwWorkloadPhase phase, gint64 batch, gint64 context,
             gint64 dp, gint64 ep, gint zero, BpwWeightFormat weights)
{
  g_autoptr(BpwEstimator) est = NULL;
  BpwScenario sc = s->scenario;
  BpwMapping m = s->mapping;
  BpwEvaluation planned, estimated;
  BpwPlan *plan;

  sc.name = NULL;
  sc.phase = phase;
  sc.micro_batch = batch;
  sc.global_batch = batch * dp;
  sc.recompute = BPW_RECOMPUTE_NONE;
  if (phase == BPW_WORKLOAD_DECODE)
    sc.context = context;
  else
    sc.seq = context;
  m.micro_batch = batch;
  m.recompute = BPW_RECOMPUTE_NONE;
  m.parallel.dp = dp;
  m.parallel.ep = ep;
  m.parallel.zero = zero;
  bpw_precision_policy_init (&m.precision);
  if (weights != BPW_WEIGHT_FORMAT_NATIVE)
    bpw_precision_policy_set_weights (&m.precision, weights, 128);
  plan = bpw_test_bind (&s->spec, &sc, s->bp, &m);
  bpw_evaluation_from_plan (plan, &planned);
  est = bpw_test_estimate (&s->spec, &sc, s->bp, &m, &estimated);
  bpw_test_assert_estimate_is_plan (&planned, &estimated);
  return plan;
}

/* Llama 3 8B decoding over 2 ZeRO-3 shards: the weights each rank gathers every
 * micro-batch are the blocks' e quantised elements at b/8 bytes and 2 per 128 of them,
 * the rest (embedding, head, norms) at 2 bytes: the gather moves exactly
 * e · (2 − b/8 − 2/128) bytes less than at bf16, and each rank holds half of that less.
 * Training reads its weights at bf16 in the backward pass and updates them: they are held,
 * and gathered, as they are. */
static void
test_zero3_gather (void)
{
  static const BpwWeightFormat formats[] = { BPW_WEIGHT_FORMAT_INT8, BPW_WEIGHT_FORMAT_INT4 };
  static const BpwWorkloadPhase phases[] = { BPW_WORKLOAD_DECODE, BPW_WORKLOAD_PREFILL };
  BpwTestSetup s;
  gint64 e;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  e = block_weight_elements (&s.spec) * s.spec.layers;
  for (guint p = 0; p < G_N_ELEMENTS (phases); p++)
    {
      g_autoptr(BpwPlan) native = dp_plan_new (&s, phases[p], 1, 512, 2, 1, 3,
                                                  BPW_WEIGHT_FORMAT_NATIVE);
      double native_gather[2];

      gathered_bytes (native, native_gather);
      /* Every weight at bf16. */
      g_assert_cmpfloat (native_gather[0], ==,
                         (double) bpw_model_spec_parameters (&s.spec) * 2.0);
      for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
        {
          g_autoptr(BpwPlan) woq = dp_plan_new (&s, phases[p], 1, 512, 2, 1, 3, formats[i]);
          double bits = (double) bpw_weight_format_bits (formats[i]);
          double saved = (double) e * (2.0 - bits / 8.0 - 2.0 / 128.0), gathered[2];

          gathered_bytes (woq, gathered);
          g_test_message ("%s %s, ZeRO-3 over 2: gathers %.0f B at bf16, %.0f B weight-only "
                          "(closed form %.0f less); holds %.0f B → %.0f B",
                          bpw_workload_phase_to_string (phases[p]),
                          bpw_weight_format_to_string (formats[i]), native_gather[0],
                          gathered[0], saved, native->stages[0].memory.weights,
                          woq->stages[0].memory.weights);
          g_assert_cmpfloat (native_gather[0] - gathered[0], ==, saved);
          g_assert_cmpfloat (gathered[1], ==, 0);
          g_assert_cmpfloat (native->stages[0].memory.weights -
                             woq->stages[0].memory.weights, ==, saved / 2.0);
        }
    }
  {
    g_autoptr(BpwPlan) native = dp_plan_new (&s, BPW_WORKLOAD_TRAIN, 1, 512, 2, 1, 3,
                                                BPW_WEIGHT_FORMAT_NATIVE);
    g_autoptr(BpwPlan) int4 = dp_plan_new (&s, BPW_WORKLOAD_TRAIN, 1, 512, 2, 1, 3,
                                              BPW_WEIGHT_FORMAT_INT4);
    double native_gather[2], gathered[2];

    gathered_bytes (native, native_gather);
    gathered_bytes (int4, gathered);
    g_assert_cmpfloat (native_gather[0], >, 0);
    g_assert_cmpfloat (gathered[0], ==, native_gather[0]);
    g_assert_cmpfloat (int4->stages[0].memory.weights, ==, native->stages[0].memory.weights);
  }
  bpw_test_setup_clear (&s);
}

/* Mixtral 8x7B decoding over 4 ZeRO-3 shards with EP 2: each rank's experts, 8 / 2 of
 * them with 3 · h · f elements per block, are gathered over dp / ep = 2 ranks in INT4 as
 * (1/2 + 2/128) bytes an element; the dense gather saves the attention projections' and
 * the router's elements at 2 − 1/2 − 2/128 bytes each. */
static void
test_zero3_expert_gather (void)
{
  g_autoptr(BpwPlan) native = NULL;
  g_autoptr(BpwPlan) int4 = NULL;
  BpwTestSetup s;
  gint64 h, kv, experts, dense;
  double native_gather[2], gathered[2];

  bpw_test_setup_load (&s, "mixtral-8x7b", "h100-sxm-80gb");
  h = s.spec.hidden;
  kv = s.spec.kv_heads * s.spec.head_dim;
  experts = s.spec.layers * s.spec.experts / 2 * 3 * h * s.spec.ffn;
  dense = s.spec.layers * (2 * h * h + 2 * h * kv + h * s.spec.experts);
  native = dp_plan_new (&s, BPW_WORKLOAD_DECODE, 1, 512, 4, 2, 3, BPW_WEIGHT_FORMAT_NATIVE);
  int4 = dp_plan_new (&s, BPW_WORKLOAD_DECODE, 1, 512, 4, 2, 3, BPW_WEIGHT_FORMAT_INT4);
  gathered_bytes (native, native_gather);
  gathered_bytes (int4, gathered);
  g_test_message ("Mixtral ZeRO-3 over 4, EP 2: experts gather %.0f B → %.0f B (closed form "
                  "%.0f → %.0f), dense %.0f B → %.0f B", native_gather[1], gathered[1],
                  (double) experts * 2.0, (double) experts * (0.5 + 2.0 / 128.0),
                  native_gather[0], gathered[0]);
  g_assert_cmpfloat (native_gather[1], ==, (double) experts * 2.0);
  g_assert_cmpfloat (gathered[1], ==, (double) experts * (0.5 + 2.0 / 128.0));
  g_assert_cmpfloat (native_gather[0] - gathered[0], ==,
                     (double) dense * (2.0 - 0.5 - 2.0 / 128.0));
  bpw_test_setup_clear (&s);
}

/* ---- experts ---- */

/* A prefill of Mixtral 8x7B (8 prompts of 2048 tokens, top-2 of 8 experts) with INT4
 * weights: the experts' grouped GEMM multiplies the rank's T·k routed rows, but each
 * expert only the T·k / (E / ep) routed to it, so its weights are dequantised
 * ⌈(T·k / (E / ep)) / tile_m⌉ times, not ⌈T·k / tile_m⌉: the dequantisation of the
 * gate-up and down projections is 2 · (the rank's expert weight elements) · that. */
static void
test_expert_dequant (void)
{
  BpwTestSetup s;

  bpw_test_setup_load (&s, "mixtral-8x7b", "h100-sxm-80gb");
  g_assert_cmpint (s.spec.experts, ==, 8);
  for (gint64 ep = 1; ep <= 2; ep *= 2)
    {
      g_autoptr(BpwPlan) plan = NULL;
      const BpwWorkGraph *g;
      gint64 T = 8 * 2048, routed = T * s.spec.top_k, per_expert = routed / (8 / ep);
      guint experts = 0;

      plan = dp_plan_new (&s, BPW_WORKLOAD_PREFILL, 8, 2048, ep, ep, 0, BPW_WEIGHT_FORMAT_INT4);
      g = plan->dist->graph;
      for (guint i = 0; i < plan->stages[0].tasks->len; i++)
        {
          const BpwPlanTask *t = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
          const BpwOp *op = bpw_work_graph_op (g, t->op);
          gint64 elements, passes;

          if (op->split != BPW_SPLIT_EXPERT || op->primitive != BPW_PRIM_MATMUL ||
              t->phase != BPW_PHASE_FORWARD)
            continue;
          g_assert_cmpint (t->weights, ==, BPW_WEIGHT_FORMAT_INT4);
          g_assert_cmpint (op->m, ==, routed);
          g_assert_cmpfloat (t->tile_m, >, 0);
          /* The rank's experts: E / ep of them, h × n each. */
          elements = 8 / ep * (gint64) op->n * (gint64) op->k;
          passes = (gint64) ceil ((double) per_expert / t->tile_m);
          if (op->layer == 0)
            g_test_message ("ep %" G_GINT64_FORMAT " %s: %" G_GINT64_FORMAT " rows per expert, "
                            "tile %.0f: %" G_GINT64_FORMAT " passes over %" G_GINT64_FORMAT
                            " elements = %.6g ops (plan %.6g; all %" G_GINT64_FORMAT
                            " rows would give %.6g)", ep, bpw_work_graph_name (g, op->name),
                            per_expert, t->tile_m, passes, elements,
                            (double) (BPW_WEIGHT_DEQUANT_OPS * elements * passes), t->dequant_ops,
                            routed, BPW_WEIGHT_DEQUANT_OPS * (double) elements *
                                    ceil ((double) routed / t->tile_m));
          g_assert_cmpfloat (t->dequant_ops, ==,
                             (double) (BPW_WEIGHT_DEQUANT_OPS * elements * passes));
          experts++;
        }
      /* Gate-up and down in each of the 32 blocks. */
      g_assert_cmpuint (experts, ==, 2 * (guint) s.spec.layers);
    }
  bpw_test_setup_clear (&s);
}

/* ---- hostile policies ---- */

static void
assert_refused (const char *policy, const char *field, const char *words)
{
  g_autoptr(GError) error = NULL;
  BpwPrecisionPolicy p;

  bpw_precision_policy_init (&p);
  g_assert_false (bpw_mapping_read_precision_data ("policy.json", policy, -1, &p, NULL,
                                                   &error));
  g_assert_nonnull (error);
  g_test_message ("%s → %s", policy, error->message);
  g_assert_nonnull (strstr (error->message, "policy.json:1:"));
  g_assert_nonnull (strstr (error->message, field));
  g_assert_nonnull (strstr (error->message, words));
  g_assert_false (p.set);
}

static void
test_hostile_policies (void)
{
  g_autoptr(GError) error = NULL;
  BpwPrecisionPolicy p;

  assert_refused ("{\"attention_core\": {\"weights\": \"int4\"}}",
                  "precision.attention_core.weights", "have none");
  assert_refused ("{\"mlp\": {\"format\": \"fp8-e4m3\", \"weights\": \"int4\"}}",
                  "precision.mlp.weights", "activation precision");
  assert_refused ("{\"mlp\": {\"sparsity\": \"2:4\", \"weights\": \"int8\"}}",
                  "precision.mlp.weights", "2:4");
  assert_refused ("{\"mlp\": {\"group\": 128}}", "precision.mlp.group", "weight-only");
  assert_refused ("{\"mlp\": {\"weights\": \"int3\"}}", "precision.mlp.weights", "int4");
  assert_refused ("{\"mlp\": {\"weights\": \"int4\", \"group\": 0}}", "precision.mlp.group", "1");
  assert_refused ("{\"mlp\": {\"weights\": \"int4\", \"group\": 65537}}", "precision.mlp.group",
                  "65536");
  assert_refused ("{\"mlp\": {\"weights\": \"int4\", \"group\": 1.5}}", "precision.mlp.group",
                  "integer");
  assert_refused ("{\"mlp\": {\"weights\": 4}}", "precision.mlp.weights", "int4");

  /* Accepted: the default group, and read back as written. */
  bpw_precision_policy_init (&p);
  g_assert_true (bpw_mapping_read_precision_data ("policy.json",
                                                  "{\"mlp\": {\"weights\": \"int8\"}, "
                                                  "\"lm_head\": {\"format\": \"bf16\"}}", -1,
                                                  &p, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (p.classes[BPW_MATMUL_CLASS_MLP].weights, ==, BPW_WEIGHT_FORMAT_INT8);
  g_assert_cmpint (p.classes[BPW_MATMUL_CLASS_MLP].group, ==, BPW_WEIGHT_GROUP_DEFAULT);
  g_assert_cmpint (p.classes[BPW_MATMUL_CLASS_LM_HEAD].weights, ==, BPW_WEIGHT_FORMAT_NATIVE);
}

/* A mapping with weight-only classes is written and read back equal. */
static void
test_mapping_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  BpwMapping m, back;

  bpw_mapping_init_defaults (&m);
  bpw_mapping_init_defaults (&back);
  bpw_precision_policy_set_weights (&m.precision, BPW_WEIGHT_FORMAT_INT4, 64);
  json = bpw_mapping_to_json (&m);
  g_assert_nonnull (strstr (json, "\"weights\""));
  g_assert_nonnull (strstr (json, "\"int4\""));
  g_assert_true (bpw_mapping_load_data ("round-trip.json", json, -1, &back, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_precision_policy_equal (&m.precision, &back.precision));
  bpw_mapping_clear (&m);
  bpw_mapping_clear (&back);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/WeightOnly/bytes", test_bytes_closed_form);
  g_test_add_func ("/bpw/core/WeightOnly/plan-memory", test_plan_weight_memory);
  g_test_add_func ("/bpw/core/WeightOnly/group-not-dividing-k", test_group_not_dividing_k);
  g_test_add_func ("/bpw/core/WeightOnly/decode-speedup", test_decode_speedup);
  g_test_add_func ("/bpw/core/WeightOnly/prefill-no-gain", test_prefill_no_gain);
  g_test_add_func ("/bpw/core/WeightOnly/max-batch-growth", test_max_batch_growth);
  g_test_add_func ("/bpw/core/WeightOnly/fp8-kv-cache", test_fp8_kv_cache);
  g_test_add_func ("/bpw/core/WeightOnly/zero3-gather", test_zero3_gather);
  g_test_add_func ("/bpw/core/WeightOnly/zero3-expert-gather", test_zero3_expert_gather);
  g_test_add_func ("/bpw/core/WeightOnly/expert-dequant", test_expert_dequant);
  g_test_add_func ("/bpw/core/WeightOnly/hostile-policies", test_hostile_policies);
  g_test_add_func ("/bpw/core/WeightOnly/mapping-round-trip", test_mapping_round_trip);
  return g_test_run ();
}
