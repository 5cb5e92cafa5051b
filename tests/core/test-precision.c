/* test-precision.c — the mapping's precision policy and 2:4 sparsity: reading and writing
 * it, each fallback reason, the engine rate each precision runs at, sparse weight matmuls,
 * conservation of FLOPs, the modes a plan is credited for, and `--dtype fp8` unchanged
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-test-mapping.h"

/* ---- helpers ---- */

static void
setup (BpwModelSpec *spec, BpwScenario *scenario, BpwMapping *mapping, BpwDType dtype)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (spec);
  g_assert_true (bpw_workload_load ("llama3-8b", spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (scenario);
  scenario->phase = BPW_WORKLOAD_TRAIN;
  scenario->seq = 1024;
  scenario->global_batch = 2;
  scenario->micro_batch = 1;
  scenario->dtype = dtype;
  bpw_mapping_init_defaults (mapping);
}

static BpwPlan *
bind (const BpwModelSpec *spec, const BpwScenario *scenario, const char *blueprint,
      const BpwMapping *mapping)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (blueprint, &error);
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwPlan *plan;

  g_assert_no_error (error);
  graph = bpw_work_graph_new (spec, scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping->parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, mapping, &error);
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

/* A plan of llama3-8b training on @blueprint with @policy (NULL: none) in @dtype. */
static BpwPlan *
bind_policy (const char *blueprint, const BpwPrecisionPolicy *policy, BpwDType dtype)
{
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwPlan *plan;

  setup (&spec, &scenario, &mapping, dtype);
  if (policy != NULL)
    mapping.precision = *policy;
  plan = bind (&spec, &scenario, blueprint, &mapping);
  bpw_mapping_clear (&mapping);
  bpw_model_spec_clear (&spec);
  return plan;
}

static BpwPrecisionPolicy
policy_for (BpwMatmulClass cls, BpwNumberFormat format)
{
  BpwPrecisionPolicy p;

  bpw_precision_policy_init (&p);
  p.set = TRUE;
  p.classes[cls].format = format;
  return p;
}

static const BpwPlanTask *
task (const BpwPlan *plan, guint i)
{
  return &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
}

/* Whether task @i reads a weight tensor (a weight matmul's forward or data gradient). */
static gboolean
reads_weight (const BpwPlan *plan, guint i, guint64 *bytes)
{
  const BpwWorkGraph *g = plan->dist->graph;
  const BpwOp *op = bpw_work_graph_op (g, task (plan, i)->op);

  for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);

      if (use->access == BPW_ACCESS_READ &&
          bpw_work_graph_tensor (g, use->tensor)->kind == BPW_TENSOR_WEIGHT)
        {
          if (bytes != NULL)
            *bytes = use->bytes;
          return TRUE;
        }
    }
  return FALSE;
}

/* ---- reading and writing ---- */

static void
test_round_trip (void)
{
  BpwMapping m;

  bpw_test_mapping_fill_non_default (&m);
  m.precision.set = TRUE;
  m.precision.classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION] =
    (BpwClassPrecision) { BPW_NUMBER_FORMAT_FP8_E4M3, BPW_SCALING_PER_TENSOR, 0, FALSE, FALSE };
  m.precision.classes[BPW_MATMUL_CLASS_MLP] =
    (BpwClassPrecision) { BPW_NUMBER_FORMAT_FP4, BPW_SCALING_PER_BLOCK, 32, FALSE, TRUE };
  m.precision.classes[BPW_MATMUL_CLASS_ATTENTION_CORE] =
    (BpwClassPrecision) { BPW_NUMBER_FORMAT_FP8_E5M2, BPW_SCALING_PER_CHANNEL, 0, FALSE, FALSE };
  m.precision.classes[BPW_MATMUL_CLASS_LM_HEAD] =
    (BpwClassPrecision) { BPW_NUMBER_FORMAT_INT8, BPW_SCALING_NONE, 0, TRUE, FALSE };
  bpw_test_mapping_assert_round_trip (&m);
  bpw_mapping_clear (&m);

  /* No policy is written as "scenario" and read back as none. */
  bpw_mapping_init_defaults (&m);
  bpw_test_mapping_assert_round_trip (&m);
  bpw_mapping_clear (&m);
}

static void
test_read (void)
{
  static const char text[] =
    "{ \"format\": \"bpw-mapping\", \"version\": 1, \"precision\": {\n"
    "  \"mlp\": { \"format\": \"fp8-e4m3\", \"scaling\": \"per-block\", \"block\": 128,\n"
    "           \"sparsity\": \"2:4\" },\n"
    "  \"lm_head\": { \"format\": \"fp8-e4m3\", \"keep_bf16\": true } } }";
  g_autoptr(GError) error = NULL;
  BpwMapping m;
  const BpwClassPrecision *mlp, *head, *core;

  bpw_mapping_init_defaults (&m);
  g_assert_true (bpw_mapping_load_data ("p.json", text, -1, &m, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (m.precision.set);
  mlp = &m.precision.classes[BPW_MATMUL_CLASS_MLP];
  head = &m.precision.classes[BPW_MATMUL_CLASS_LM_HEAD];
  core = &m.precision.classes[BPW_MATMUL_CLASS_ATTENTION_CORE];
  g_assert_cmpint (mlp->format, ==, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_assert_cmpint (mlp->scaling, ==, BPW_SCALING_PER_BLOCK);
  g_assert_cmpint (mlp->block, ==, 128);
  g_assert_true (mlp->sparse_2_4);
  g_assert_true (head->keep_bf16);
  g_assert_cmpint (core->format, ==, BPW_NUMBER_FORMAT_DEFAULT);
  bpw_mapping_clear (&m);
}

static void
test_read_errors (void)
{
  static const struct { const char *text; const char *needle; const char *says; } cases[] = {
    { "{\"format\":\"bpw-mapping\",\"version\":1,\"precision\":{\"attention_core\":"
      "{\"sparsity\":\"2:4\"}}}", "\"2:4\"", "have none" },
    { "{\"format\":\"bpw-mapping\",\"version\":1,\"precision\":{\"mlp\":"
      "{\"format\":\"fp8-e4m3\",\"scaling\":\"per-block\"}}}", "\"per-block\"", "block" },
    { "{\"format\":\"bpw-mapping\",\"version\":1,\"precision\":{\"norms\":{}}}",
      "{}", "unknown operation class 'norms'" },
    { "{\"format\":\"bpw-mapping\",\"version\":1,\"precision\":{\"mlp\":"
      "{\"format\":\"fp6\"}}}", "\"fp6\"", "fp8-e4m3" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *where = bpw_test_mapping_location ("e.json", cases[i].text,
                                                          cases[i].needle);
      BpwMapping m;

      bpw_mapping_init_defaults (&m);
      g_assert_false (bpw_mapping_load_data ("e.json", cases[i].text, -1, &m, NULL, &error));
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, where));
      g_assert_nonnull (strstr (error->message, cases[i].says));
      g_assert_false (m.precision.set);
      bpw_mapping_clear (&m);
    }
}

/* ---- fallbacks ---- */

/* Every matrix task of @cls asks @format and falls back for @reason; the count is > 0. */
static void
assert_fallback (const BpwPlan *plan, BpwMatmulClass cls, BpwFallback reason)
{
  g_autoptr(GArray) fallbacks = bpw_plan_precision_fallbacks (plan);
  guint seen = 0;

  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *t = task (plan, i);

      if (t->op_class != cls || t->engine != BPW_ENGINE_MATRIX)
        continue;
      g_assert_cmpint (t->fallback, ==, reason);
      g_assert_cmpint (t->format, ==, BPW_NUMBER_FORMAT_BF16);
      g_assert_cmpint (t->precision, ==, BPW_PRECISION_BF16);
      seen++;
    }
  g_assert_cmpuint (seen, >, 0);
  g_assert_cmpuint (fallbacks->len, ==, 1);
  g_assert_cmpint (g_array_index (fallbacks, BpwPrecisionFallback, 0).reason, ==, reason);
  g_assert_cmpint (g_array_index (fallbacks, BpwPrecisionFallback, 0).cls, ==, cls);
  g_assert_cmpuint (g_array_index (fallbacks, BpwPrecisionFallback, 0).operations, ==, seen);
}

/* Same cost task by task: a fallback prices the operation exactly as bf16 does. */
static void
assert_same_costs (const BpwPlan *a, const BpwPlan *b)
{
  g_assert_cmpuint (a->stages[0].tasks->len, ==, b->stages[0].tasks->len);
  for (guint i = 0; i < a->stages[0].tasks->len; i++)
    {
      g_assert_cmpfloat (task (a, i)->cost.time_s, ==, task (b, i)->cost.time_s);
      g_assert_cmpfloat (task (a, i)->bytes[BPW_TRAFFIC_DEVICE], ==,
                         task (b, i)->bytes[BPW_TRAFFIC_DEVICE]);
    }
}

static void
test_engine_fallback (void)
{
  /* The A100's tensor cores have no FP8 rate: its MLP matmuls stay bf16, reason engine. */
  BpwPrecisionPolicy p = policy_for (BPW_MATMUL_CLASS_MLP, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_autoptr(BpwPlan) plan = bind_policy ("a100-sxm-80gb", &p, BPW_DTYPE_BF16);
  g_autoptr(BpwPlan) dense = bind_policy ("a100-sxm-80gb", NULL, BPW_DTYPE_BF16);
  g_autoptr(GArray) modes = bpw_evaluation_precision_modes (plan, NULL);

  assert_fallback (plan, BPW_MATMUL_CLASS_MLP, BPW_FALLBACK_ENGINE);
  assert_same_costs (plan, dense);
  g_assert_cmpuint (modes->len, ==, 0);
}

static void
test_shape_fallback (void)
{
  /* llama3-8b's k (4096, 14336) is no multiple of a 96-element block: shape. With blocks
   * of 128 the same class runs fp8. */
  BpwPrecisionPolicy p = policy_for (BPW_MATMUL_CLASS_MLP, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_autoptr(BpwPlan) plan = NULL, fits = NULL;
  g_autoptr(GArray) none = NULL;

  p.classes[BPW_MATMUL_CLASS_MLP].scaling = BPW_SCALING_PER_BLOCK;
  p.classes[BPW_MATMUL_CLASS_MLP].block = 96;
  plan = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  assert_fallback (plan, BPW_MATMUL_CLASS_MLP, BPW_FALLBACK_SHAPE);

  p.classes[BPW_MATMUL_CLASS_MLP].block = 128;
  fits = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  none = bpw_plan_precision_fallbacks (fits);
  g_assert_cmpuint (none->len, ==, 0);

  /* The rule itself: k or n off the 16-element alignment, or k off the block. */
  g_assert_cmpint (bpw_precision_shape_fallback (BPW_NUMBER_FORMAT_FP8_E4M3, BPW_SCALING_NONE,
                                                 0, 4096, 4104), ==, BPW_FALLBACK_SHAPE);
  g_assert_cmpint (bpw_precision_shape_fallback (BPW_NUMBER_FORMAT_FP8_E4M3, BPW_SCALING_NONE,
                                                 0, 4104, 4096), ==, BPW_FALLBACK_SHAPE);
  g_assert_cmpint (bpw_precision_shape_fallback (BPW_NUMBER_FORMAT_FP8_E4M3, BPW_SCALING_NONE,
                                                 0, 4096, 4112), ==, BPW_FALLBACK_NONE);
  g_assert_cmpint (bpw_precision_shape_fallback (BPW_NUMBER_FORMAT_BF16, BPW_SCALING_NONE,
                                                 0, 4097, 4097), ==, BPW_FALLBACK_NONE);
}

static void
test_quality_fallback (void)
{
  BpwPrecisionPolicy p = policy_for (BPW_MATMUL_CLASS_LM_HEAD, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_autoptr(BpwPlan) plan = NULL, dense = NULL;
  g_autoptr(GArray) modes = NULL;

  p.classes[BPW_MATMUL_CLASS_LM_HEAD].keep_bf16 = TRUE;
  plan = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  dense = bind_policy ("h100-sxm-80gb", NULL, BPW_DTYPE_BF16);
  assert_fallback (plan, BPW_MATMUL_CLASS_LM_HEAD, BPW_FALLBACK_QUALITY);
  assert_same_costs (plan, dense);
  modes = bpw_evaluation_precision_modes (plan, NULL);
  g_assert_cmpuint (modes->len, ==, 0);
}

/* ---- rates ---- */

static void
test_fp8_rate (void)
{
  /* H100: the projections and MLP in fp8-e4m3 (unscaled). Each of their matmuls computes
   * at peak_fp8 · eff_fp8 instead of peak_bf16 · eff_bf16 (both tables constant in size):
   * 1978.9 · 0.7088 / (989.4 · 0.803) = 1.7655 times faster. The attention core, the LM
   * head and element-wise work are untouched. */
  BpwPrecisionPolicy p = policy_for (BPW_MATMUL_CLASS_MLP, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_autoptr(BpwPlan) plan = NULL, dense = NULL;
  const BpwEngine *tc;
  double ratio;
  guint faster = 0;

  p.classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION].format = BPW_NUMBER_FORMAT_FP8_E4M3;
  plan = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  dense = bind_policy ("h100-sxm-80gb", NULL, BPW_DTYPE_BF16);
  tc = plan->rates.matrix.engine;
  ratio = tc->peak[BPW_PRECISION_FP8].value *
          bpw_efficiency_table_lookup (&tc->efficiency[BPW_PRECISION_FP8], 1e12) /
          (tc->peak[BPW_PRECISION_BF16].value *
           bpw_efficiency_table_lookup (&tc->efficiency[BPW_PRECISION_BF16], 1e12));
  g_assert_cmpfloat_with_epsilon (ratio, 1978.9 * 0.7088 / (989.4 * 0.803), 1e-9);

  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *t = task (plan, i), *d = task (dense, i);

      g_assert_cmpfloat (t->flops, ==, d->flops);
      if (t->engine == BPW_ENGINE_MATRIX && (t->op_class == BPW_MATMUL_CLASS_MLP ||
                                             t->op_class == BPW_MATMUL_CLASS_ATTENTION_PROJECTION))
        {
          g_assert_cmpint (t->format, ==, BPW_NUMBER_FORMAT_FP8_E4M3);
          g_assert_cmpfloat_with_epsilon (d->cost.compute_s / t->cost.compute_s, ratio, 1e-9);
          /* Operands read in one byte instead of two: less traffic. */
          g_assert_cmpfloat (t->bytes[BPW_TRAFFIC_DEVICE], <, d->bytes[BPW_TRAFFIC_DEVICE]);
          faster++;
        }
      else
        {
          g_assert_cmpfloat (t->cost.compute_s, ==, d->cost.compute_s);
          g_assert_cmpfloat (t->bytes[BPW_TRAFFIC_DEVICE], ==, d->bytes[BPW_TRAFFIC_DEVICE]);
        }
    }
  g_assert_cmpuint (faster, >=, 3 * 4);  /* q k v o, gate up down: forward and backward */
}

static void
test_fp8_energy (void)
{
  /* An fp8 matmul is charged the blueprint's fp8 energy per FLOP, not the scenario's. */
  BpwPrecisionPolicy p = policy_for (BPW_MATMUL_CLASS_MLP, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_autoptr(BpwPlan) plan = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  const BpwBlueprint *bp = plan->blueprint;
  guint checked = 0;

  g_assert_true (bp->energy_per_flop[BPW_PRECISION_FP8].set);
  g_assert_cmpfloat (bp->energy_per_flop[BPW_PRECISION_FP8].value, !=,
                     bp->energy_per_flop[BPW_PRECISION_BF16].value);
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *t = task (plan, i);
      BpwStageTotals st = { 0 };
      double want;

      if (t->format != BPW_NUMBER_FORMAT_FP8_E4M3 || t->phase != BPW_PHASE_FORWARD)
        continue;
      want = t->flops * bp->energy_per_flop[BPW_PRECISION_FP8].value;
      for (guint l = 0; l < BPW_N_TRAFFIC_LEVELS; l++)
        if (plan->rates.traffic[l].level != NULL &&
            plan->rates.traffic[l].level->energy_per_byte.set)
          want += t->bytes[l] * plan->rates.traffic[l].level->energy_per_byte.value;
      bpw_stage_totals_add_task (plan, t, 1.0, &st);
      g_assert_cmpfloat_with_epsilon (st.energy, want * t->count, 1e-12 * want * t->count);
      checked++;
    }
  g_assert_cmpuint (checked, >, 0);
}

static void
test_scaling_bytes (void)
{
  /* Per-block scales of 128 elements along k on a 1×(4096×4096) matmul with m 1024:
   * 4 · (1024 + 4096) · 32 bytes; per-channel 4 · (1024 + 4096); per-tensor 8. */
  g_assert_cmpfloat (bpw_scaling_bytes (BPW_SCALING_PER_BLOCK, 128, 1, 1024, 4096, 4096), ==,
                     4.0 * (1024 + 4096) * 32);
  g_assert_cmpfloat (bpw_scaling_bytes (BPW_SCALING_PER_CHANNEL, 0, 1, 1024, 4096, 4096), ==,
                     4.0 * (1024 + 4096));
  g_assert_cmpfloat (bpw_scaling_bytes (BPW_SCALING_PER_TENSOR, 0, 1, 1024, 4096, 4096), ==, 8);
  g_assert_cmpfloat (bpw_scaling_bytes (BPW_SCALING_NONE, 0, 1, 1024, 4096, 4096), ==, 0);
}

/* ---- sparsity ---- */

static void
test_sparsity (void)
{
  /* 2:4 on the MLP and the projections (bf16): each matmul that reads a weight runs at
   * twice the dense rate and reads w/2 + w/16 weight bytes instead of w (bf16: e = 2,
   * w/e elements, half kept, 2 bits each); the attention core and the weight gradients
   * stay dense; every task keeps its FLOPs. */
  BpwPrecisionPolicy p;
  g_autoptr(BpwPlan) plan = NULL, dense = NULL;
  BpwEvaluation e_sparse, e_dense;
  g_autofree char *reasons = NULL;
  guint sparse = 0, core = 0;

  bpw_precision_policy_init (&p);
  p.set = TRUE;
  p.classes[BPW_MATMUL_CLASS_MLP].sparse_2_4 = TRUE;
  p.classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION].sparse_2_4 = TRUE;
  plan = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  dense = bind_policy ("h100-sxm-80gb", NULL, BPW_DTYPE_BF16);
  /* H100 runs 2:4: no reason of the plan is about it (one device does not hold the
   * training state, which is all the dense plan is refused for as well). */
  reasons = bpw_plan_reasons_to_string (plan);
  g_assert_null (strstr (reasons, "2:4"));
  g_assert_cmpuint (plan->reasons->len, ==, dense->reasons->len);

  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *t = task (plan, i), *d = task (dense, i);
      guint64 w = 0;

      g_assert_cmpfloat (t->flops, ==, d->flops);
      if (t->engine != BPW_ENGINE_MATRIX)
        continue;
      if (t->op_class == BPW_MATMUL_CLASS_ATTENTION_CORE)
        {
          g_assert_false (t->sparse);
          g_assert_cmpfloat (t->cost.compute_s, ==, d->cost.compute_s);
          core++;
          continue;
        }
      if (t->op_class != BPW_MATMUL_CLASS_MLP &&
          t->op_class != BPW_MATMUL_CLASS_ATTENTION_PROJECTION)
        continue;
      if (!reads_weight (plan, i, &w))
        {
          g_assert_false (t->sparse);
          continue;
        }
      g_assert_true (t->sparse);
      g_assert_cmpfloat_with_epsilon (t->cost.compute_s * 2.0, d->cost.compute_s,
                                      1e-12 * d->cost.compute_s);
      g_assert_cmpfloat (d->bytes[BPW_TRAFFIC_DEVICE] - t->bytes[BPW_TRAFFIC_DEVICE], ==,
                         (double) w - ceil ((double) w / 2.0 + (double) w / 16.0));
      sparse++;
    }
  g_assert_cmpuint (sparse, >=, 7 * 2);  /* q k v o gate up down: forward and data grad */
  g_assert_cmpuint (core, >, 0);

  /* The semantic work is the dense model's; only its speed changes. */
  bpw_evaluation_from_plan (plan, &e_sparse);
  bpw_evaluation_from_plan (dense, &e_dense);
  g_assert_cmpfloat (e_sparse.model_flops, ==, e_dense.model_flops);
  g_assert_cmpfloat (e_sparse.hardware_flops, ==, e_dense.hardware_flops);
  g_assert_cmpfloat (e_sparse.step_time_s, <, e_dense.step_time_s);
  g_assert_cmpfloat (e_sparse.mfu, >, e_dense.mfu);
}

static void
test_sparsity_unsupported (void)
{
  /* MI300X lists no 2:4 sparsity: the plan is refused with that reason. */
  BpwPrecisionPolicy p;
  g_autoptr(BpwPlan) plan = NULL;
  g_autofree char *reasons = NULL;

  bpw_precision_policy_init (&p);
  p.set = TRUE;
  p.classes[BPW_MATMUL_CLASS_MLP].sparse_2_4 = TRUE;
  plan = bind_policy ("mi300x", &p, BPW_DTYPE_BF16);
  g_assert_false (plan->legal);
  reasons = bpw_plan_reasons_to_string (plan);
  g_assert_nonnull (strstr (reasons, "2:4"));
  g_assert_nonnull (strstr (reasons, "mi300x"));
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    g_assert_false (task (plan, i)->sparse);
}

/* ---- `--dtype fp8`, modes and the evaluation JSON ---- */

static void
test_dtype_fp8_unchanged (void)
{
  /* `--dtype fp8` is the policy "every matmul fp8-e4m3": a policy that leaves every class
   * to the scenario binds exactly the plan no policy binds, task by task. */
  BpwPrecisionPolicy p;
  g_autoptr(BpwPlan) legacy = bind_policy ("h100-sxm-80gb", NULL, BPW_DTYPE_FP8);
  g_autoptr(BpwPlan) scenario = NULL;
  g_autoptr(GArray) modes = bpw_evaluation_precision_modes (legacy, NULL);
  g_autoptr(BpwPlan) bf16 = bind_policy ("h100-sxm-80gb", NULL, BPW_DTYPE_BF16);
  BpwEvaluation e_legacy, e_bf16;

  bpw_precision_policy_init (&p);
  p.set = TRUE;
  scenario = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_FP8);
  assert_same_costs (legacy, scenario);
  for (guint i = 0; i < legacy->stages[0].tasks->len; i++)
    if (task (legacy, i)->engine == BPW_ENGINE_MATRIX &&
        task (legacy, i)->op_class != BPW_MATMUL_CLASS_OTHER)
      {
        g_assert_cmpint (task (legacy, i)->format, ==, BPW_NUMBER_FORMAT_FP8_E4M3);
        g_assert_cmpint (task (legacy, i)->precision, ==, BPW_PRECISION_FP8);
        g_assert_cmpint (task (legacy, i)->fallback, ==, BPW_FALLBACK_NONE);
      }

  /* Its one mode, and the gain the bf16 scenario's plan gives. */
  bpw_evaluation_from_plan (legacy, &e_legacy);
  bpw_evaluation_from_plan (bf16, &e_bf16);
  g_assert_cmpuint (modes->len, ==, 1);
  g_assert_cmpstr (g_array_index (modes, BpwPrecisionMode, 0).mode, ==, "fp8-e4m3");
  g_assert_cmpfloat_with_epsilon (g_array_index (modes, BpwPrecisionMode, 0).time_ratio,
                                  e_bf16.step_time_s / e_legacy.step_time_s, 1e-12);
  g_assert_cmpfloat (g_array_index (modes, BpwPrecisionMode, 0).time_ratio, >, 1.0);
}

static void
test_modes_and_json (void)
{
  BpwPrecisionPolicy p = policy_for (BPW_MATMUL_CLASS_MLP, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_autoptr(BpwPlan) plan = NULL, no_fp8 = NULL, dense = NULL;
  g_autoptr(GArray) modes = NULL, shares = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *json = NULL;
  BpwEvaluation e, e_no_fp8, e_dense;
  JsonObject *precision;
  double time = 0, flops = 0, task_time = 0, task_flops = 0;
  double ranks;

  p.classes[BPW_MATMUL_CLASS_MLP].sparse_2_4 = TRUE;
  p.classes[BPW_MATMUL_CLASS_LM_HEAD].format = BPW_NUMBER_FORMAT_FP8_E4M3;
  p.classes[BPW_MATMUL_CLASS_LM_HEAD].keep_bf16 = TRUE;
  plan = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);

  /* Each mode's gain: the step with that mode taken out over the plan's own. */
  p.classes[BPW_MATMUL_CLASS_MLP].format = BPW_NUMBER_FORMAT_BF16;
  no_fp8 = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  p.classes[BPW_MATMUL_CLASS_MLP].format = BPW_NUMBER_FORMAT_FP8_E4M3;
  p.classes[BPW_MATMUL_CLASS_MLP].sparse_2_4 = FALSE;
  dense = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  bpw_evaluation_from_plan (plan, &e);
  bpw_evaluation_from_plan (no_fp8, &e_no_fp8);
  bpw_evaluation_from_plan (dense, &e_dense);
  modes = bpw_evaluation_precision_modes (plan, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (modes->len, ==, 2);
  g_assert_cmpstr (g_array_index (modes, BpwPrecisionMode, 0).mode, ==, "fp8-e4m3");
  g_assert_cmpstr (g_array_index (modes, BpwPrecisionMode, 1).mode, ==, "sparsity-2:4");
  g_assert_cmpfloat_with_epsilon (g_array_index (modes, BpwPrecisionMode, 0).time_ratio,
                                  e_no_fp8.step_time_s / e.step_time_s, 1e-12);
  g_assert_cmpfloat_with_epsilon (g_array_index (modes, BpwPrecisionMode, 1).time_ratio,
                                  e_dense.step_time_s / e.step_time_s, 1e-12);

  /* Time and FLOPs by precision add up to the tasks'. */
  shares = bpw_plan_precision_shares (plan);
  ranks = (double) (plan->dist->parallel.tp * plan->dist->parallel.dp);
  for (guint i = 0; i < shares->len; i++)
    {
      time += g_array_index (shares, BpwPrecisionShare, i).time_s;
      flops += g_array_index (shares, BpwPrecisionShare, i).flops;
    }
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    for (guint i = 0; i < plan->stages[s].tasks->len; i++)
      {
        const BpwPlanTask *t = &g_array_index (plan->stages[s].tasks, BpwPlanTask, i);
        double n = (t->phase == BPW_PHASE_OPTIMIZER ? 1.0 : (double) plan->micro_batches) *
                   t->count * ranks;

        task_time += t->cost.time_s * n;
        task_flops += t->flops * n;
      }
  g_assert_cmpfloat_with_epsilon (time, task_time, 1e-9 * task_time);
  g_assert_cmpfloat_with_epsilon (flops, task_flops, 1e-9 * task_flops);

  json = bpw_evaluation_to_json (&e, plan, NULL);
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  precision = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                             "precision");
  g_assert_nonnull (precision);
  g_assert_cmpstr (json_object_get_string_member (precision, "policy"), ==, "mapping");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (precision,
                                                                         "by_precision")), ==,
                    shares->len);
  {
    JsonArray *fallbacks = json_object_get_array_member (precision, "fallbacks");
    JsonObject *f;

    g_assert_cmpuint (json_array_get_length (fallbacks), ==, 1);
    f = json_array_get_object_element (fallbacks, 0);
    g_assert_cmpstr (json_object_get_string_member (f, "class"), ==, "lm_head");
    g_assert_cmpstr (json_object_get_string_member (f, "reason"), ==, "quality");
    g_assert_cmpint (json_object_get_int_member (f, "operations"), >, 0);
  }
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (precision, "modes")),
                    ==, 2);
}

static void
test_sheet (void)
{
  BpwPrecisionPolicy p = policy_for (BPW_MATMUL_CLASS_MLP, BPW_NUMBER_FORMAT_FP8_E4M3);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autofree char *csv = NULL;
  guint fp8 = 0, fallback = 0;

  p.classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION].format = BPW_NUMBER_FORMAT_FP8_E4M3;
  p.classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION].keep_bf16 = TRUE;
  plan = bind_policy ("h100-sxm-80gb", &p, BPW_DTYPE_BF16);
  rows = bpw_mapping_sheet_new (plan, FALSE);
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);

      fp8 += strcmp (r->precision, "fp8-e4m3") == 0;
      fallback += strcmp (r->fallback, "quality") == 0;
    }
  g_assert_cmpuint (fp8, >, 0);
  g_assert_cmpuint (fallback, >, 0);
  csv = bpw_mapping_sheet_to_csv (rows);
  g_assert_nonnull (strstr (csv, ",precision,sparsity,fallback\n"));
  g_assert_nonnull (strstr (csv, ",fp8-e4m3,dense,\n"));
  g_assert_nonnull (strstr (csv, ",bf16,dense,quality\n"));
}

/* The estimator binds its template with the mapping, policy included: its step time, MFU
 * and peak memory equal the bound plan's under fp8 classes, 2:4 sparsity and a shape
 * fallback, over TP, PP and DP (the bundled stack less its launch gaps, which the
 * template does not replay), and two policies never share a template. */
static void
test_estimator (void)
{
  static const BpwWorkloadPhase phases[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL };
  static const gint64 shapes[][3] = { { 1, 1, 1 }, { 2, 2, 1 }, { 2, 1, 2 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  BpwPrecisionPolicy policies[2];

  g_assert_no_error (error);
  bp->stack.has_launch = FALSE;
  bpw_precision_policy_init (&policies[0]);
  policies[0].set = TRUE;
  policies[0].classes[BPW_MATMUL_CLASS_MLP].format = BPW_NUMBER_FORMAT_FP8_E4M3;
  policies[0].classes[BPW_MATMUL_CLASS_MLP].sparse_2_4 = TRUE;
  policies[0].classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION].format = BPW_NUMBER_FORMAT_FP8_E4M3;
  policies[0].classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION].scaling = BPW_SCALING_PER_BLOCK;
  policies[0].classes[BPW_MATMUL_CLASS_ATTENTION_PROJECTION].block = 96;  /* shape fallback */
  policies[1] = policy_for (BPW_MATMUL_CLASS_LM_HEAD, BPW_NUMBER_FORMAT_FP8_E4M3);
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    for (guint k = 0; k < G_N_ELEMENTS (shapes); k++)
      {
        g_autoptr(BpwEstimator) est = NULL;
        BpwModelSpec spec;
        BpwScenario scenario;
        BpwMapping mapping;
        double first = 0;

        setup (&spec, &scenario, &mapping, BPW_DTYPE_BF16);
        scenario.phase = phases[ph];
        scenario.global_batch = 4;
        mapping.parallel.tp = shapes[k][0];
        mapping.parallel.pp = shapes[k][1];
        mapping.parallel.dp = shapes[k][2];
        est = bpw_estimator_new (&spec, &scenario, bp, &error);
        g_assert_no_error (error);
        for (guint i = 0; i < G_N_ELEMENTS (policies); i++)
          {
            BpwWorkGraph *graph = bpw_work_graph_new (&spec, &scenario, &error);
            BpwDistWork *dist;
            g_autoptr(BpwPlan) plan = NULL;
            BpwEvaluation e_plan, e_est;

            g_assert_no_error (error);
            mapping.precision = policies[i];
            dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
            g_assert_no_error (error);
            plan = bpw_plan_new (dist, bp, &mapping, &error);
            g_assert_no_error (error);
            bpw_evaluation_from_plan (plan, &e_plan);
            g_assert_true (bpw_estimator_evaluate (est, &mapping, &e_est, NULL, &error));
            g_assert_no_error (error);
            g_assert_cmpfloat_with_epsilon (e_est.step_time_s, e_plan.step_time_s,
                                            1e-9 * e_plan.step_time_s);
            g_assert_cmpfloat_with_epsilon (e_est.mfu, e_plan.mfu, 1e-9);
            g_assert_cmpfloat_with_epsilon (e_est.peak_bytes, e_plan.peak_bytes,
                                            1e-6 * e_plan.peak_bytes);
            if (i == 0)
              first = e_est.step_time_s;
            else
              g_assert_cmpfloat (e_est.step_time_s, !=, first);
          }
        bpw_mapping_clear (&mapping);
        bpw_scenario_clear (&scenario);
        bpw_model_spec_clear (&spec);
      }
}

int
main (int argc, char **argv)

{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bpw/core/Precision/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/Precision/read", test_read);
  g_test_add_func ("/bpw/core/Precision/read-errors", test_read_errors);
  g_test_add_func ("/bpw/core/Precision/engine-fallback", test_engine_fallback);
  g_test_add_func ("/bpw/core/Precision/shape-fallback", test_shape_fallback);
  g_test_add_func ("/bpw/core/Precision/quality-fallback", test_quality_fallback);
  g_test_add_func ("/bpw/core/Precision/fp8-rate", test_fp8_rate);
  g_test_add_func ("/bpw/core/Precision/fp8-energy", test_fp8_energy);
  g_test_add_func ("/bpw/core/Precision/scaling-bytes", test_scaling_bytes);
  g_test_add_func ("/bpw/core/Precision/sparsity", test_sparsity);
  g_test_add_func ("/bpw/core/Precision/sparsity-unsupported", test_sparsity_unsupported);
  g_test_add_func ("/bpw/core/Precision/dtype-fp8-unchanged", test_dtype_fp8_unchanged);
  g_test_add_func ("/bpw/core/Precision/modes-and-json", test_modes_and_json);
  g_test_add_func ("/bpw/core/Precision/sheet", test_sheet);
  g_test_add_func ("/bpw/core/Precision/estimator", test_estimator);
  return g_test_run ();
}
