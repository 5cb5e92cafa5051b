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
  g_test_add_func ("/bpw/core/WeightOnly/hostile-policies", test_hostile_policies);
  g_test_add_func ("/bpw/core/WeightOnly/mapping-round-trip", test_mapping_round_trip);
  return g_test_run ();
}
