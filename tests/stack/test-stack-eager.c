/* test-stack-eager.c — the eager element-wise kernels an unfused stack issues: the
 * recipe's bytes and kernels by closed form, in training and inference, and the element
 * rate of the kernels off the vectorized path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-test-stack.h"

/* Each implementation transformation's bytes in closed form, from the model's shapes
 * (tp = dp = pp = 1, one micro-batch, no recompute; e = 2 bytes of bf16). */
static void
test_transformation_bytes (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_fixture ();
  g_autoptr(BpwPlan) plan = NULL;
  const BpwTransformation *t;
  BpwModelSpec spec;
  const double e = 2, T = (double) B * S;
  /* Matmul weights: qkv, output projection, gate+up, down per layer, and the head. */
  double matmul_weights = L * ((double) H * (A + 2 * KV) * D + (double) A * D * H
                               + (double) H * 2 * F + (double) F * H) + (double) H * V;
  double optimizer_bytes = 0;

  bpw_test_stack_small_llama (&spec);
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);

  /* Forward: read fp32, write bf16; backward: weight gradient bf16 read, fp32 written. */
  t = bpw_test_stack_get (plan, "amp_cast");
  g_assert_cmpfloat (t->bytes, ==, matmul_weights * 2 * (4 + e));
  g_assert_cmpfloat (t->count, ==, 2 * (4 * L + 1));
  g_assert_true (t->implementation);
  g_assert_cmpfloat (t->time_s, >, 0);

  /* The casts alone, e + 4 bytes per logit each way: the eager loss prices the rest. */
  t = bpw_test_stack_get (plan, "fp32_logits");
  g_assert_nonnull (t);
  g_assert_cmpfloat (t->bytes, ==, 2 * (e + 4) * T * V);

  /* The eager kernels in place of the graph's one per operation (r = 4: the fp32 residual
   * stream of fp32 master weights; l = 4: fp32 logits), per element of the basis:
   * RMSNorm forward pow 8, mean 4, x·rsqrt 8, ·weight 2r, autocast cast e+r, and two row
   * kernels of 8 per token (7 kernels); backward cast e+r, then 8, 12, 8, 4, 4, 8, 8, 12,
   * 12, three row kernels of 8, 8, 12 per token (13); weight gradient 12 and 4 (2). SiLU
   * gate 2e + 3e (2), backward 3e three times and 4e (4). Rotary, per element of q and of
   * k, each its own kernels: 2e+2r (4), 1.5r, 1.5r, 2r (2), e+r (9); backward e+r, 4r, 2e+2r,
   * r, 3e, 2e, 2e, 3e (17) and a cat of q, k and v, 2e per element of all three (1).
   * Residual add e + 2r (1), backward 3r and e+r (2). Loss 4l per logit and 12 per token
   * (2); backward l, 4l, and 12 per token (3). */
  t = bpw_test_stack_get (plan, "unfused_elementwise");
  {
    const BpwWorkGraph *g = plan->dist->graph;
    const double r = 4, l = 4;
    const double norms = 2 * L + 1, qk = T * (A + KV) * D, qkv = T * (A + 2 * KV) * D;
    double recipe = norms * (T * H * ((8 + 4 + 8 + 2 * r + e + r)
                                      + (e + r + 8 + 12 + 8 + 4 + 4 + 8 + 8 + 12 + 12)
                                      + (12 + 4))
                             + T * (8 + 8 + 8 + 8 + 12))
                    + L * T * F * (5 * e + (3 + 3 + 3 + 4) * e)
                    + L * (qk * ((2 * e + 2 * r + 1.5 * r + 1.5 * r + 2 * r + e + r)
                                 + (e + r + 4 * r + 2 * e + 2 * r + r + 3 * e + 2 * e + 2 * e
                                    + 3 * e))
                           + qkv * 2 * e)
                    + 2 * L * T * H * ((e + 2 * r) + (3 * r + e + r))
                    + T * V * (4 * l + l + 4 * l) + T * (12 + 12);
    double graph = 0, covered = 0;

    for (guint i = 0; i < plan->stages[0].tasks->len; i++)
      {
        const BpwPlanTask *pt = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
        const char *name = bpw_work_graph_name (g, bpw_work_graph_op (g, pt->op)->name);

        if (pt->primitive == BPW_PRIM_NORM || pt->primitive == BPW_PRIM_SWIGLU
            || pt->primitive == BPW_PRIM_ROTARY || pt->primitive == BPW_PRIM_CROSS_ENTROPY
            || (pt->primitive == BPW_PRIM_ADD && strstr (name, ".residual") != NULL))
          {
            graph += pt->bytes[BPW_TRAFFIC_DEVICE] * pt->count;
            covered += pt->count;
          }
      }
    g_assert_cmpfloat (fabs (t->bytes - (recipe - graph)), <=, 1e-9 * recipe);
    /* Kernels beyond the one the graph counts per covered task. */
    g_assert_cmpfloat (t->count + covered, ==,
                       norms * (7 + 13 + 2) + L * (2 + 4) + L * (18 + 34 + 1)
                       + 2 * L * (1 + 2) + 2 + 3);
    g_assert_cmpfloat (covered, ==, norms * 3 + L * 2 + L * 2 + 2 * L * 2 + 2);
  }
  /* Training keeps no KV cache, and its matmuls have T rows: no split-K. */
  g_assert_null (bpw_test_stack_find (plan, "kv_cache_copy"));
  g_assert_null (bpw_test_stack_find (plan, "splitk_reduce"));

  /* bytes_per_parameter × parameters, of which the fused ideal was already priced. */
  t = bpw_test_stack_get (plan, "optimizer_implementation");
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *pt = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);

      if (pt->phase == BPW_PHASE_OPTIMIZER)
        optimizer_bytes += pt->bytes[BPW_TRAFFIC_DEVICE] * pt->count;
    }
  g_assert_cmpfloat (t->bytes + optimizer_bytes, ==, 84.0 * bpw_model_spec_parameters (&spec));

  t = bpw_test_stack_get (plan, "launch_gaps");
  g_assert_cmpfloat (t->time_s, >, 0);
  g_assert_null (bpw_test_stack_find (plan, "moe_dispatch_loop"));
  bpw_model_spec_clear (&spec);
}

/* Inference holds the weights in the compute dtype (r = e): the norm's x.float() and
 * .to(dtype) casts appear, autocast's do not. Per element: RMSNorm e+4, pow 8, mean 4,
 * x·rsqrt 8, 4+e, ·weight 2e, and two row kernels of 8 per token (8 kernels: 4e + 28 bytes);
 * rotary per element of q and of k 2e+2e (4 kernels), 1.5e, 1.5e, 2e (2): 8 each, 9e; SiLU
 * gate 5e (2); residual add 3e (1). A stack whose element-wise work is fused pays none of
 * it, and its fp32 logits cost their 8 bytes a logit each way. */
static void
test_eager_recipe_inference (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_fixture ();
  g_autoptr(BpwBlueprint) fused = bpw_blueprint_copy (bp);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) fused_plan = NULL;
  g_autoptr(BpwPlan) fused_train = NULL;
  const BpwWorkGraph *g;
  const BpwTransformation *t;
  BpwModelSpec spec;
  const double e = 2, T = (double) B * S;
  double recipe = 0, graph = 0, covered = 0, kernels = 0;

  bpw_test_stack_small_llama (&spec);
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_PREFILL, bp, BPW_FUSION_AUTOMATIC);
  g = plan->dist->graph;
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *pt = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
      const BpwOp *op = bpw_work_graph_op (g, pt->op);
      const char *name = bpw_work_graph_name (g, op->name);
      double n = 0, k = 0;

      switch ((BpwPrimitive) pt->primitive)
        {
        case BPW_PRIM_NORM:
          /* over every token: prefill's final norm included */
          n = T * H * (4 * e + 28) + T * 16;
          k = 8;
          break;
        case BPW_PRIM_ROTARY:
          n = T * (A + KV) * D * 9 * e;
          k = 16;
          break;
        case BPW_PRIM_SWIGLU:
          n = T * F * 5 * e;
          k = 2;
          break;
        case BPW_PRIM_ADD:
          if (strstr (name, ".residual") == NULL)
            continue;
          n = T * H * 3 * e;
          k = 1;
          break;
        default:
          continue;
        }
      recipe += n * pt->count;
      kernels += k * pt->count;
      graph += pt->bytes[BPW_TRAFFIC_DEVICE] * pt->count;
      covered += pt->count;
    }
  g_assert_cmpfloat (covered, ==, (2 * L + 1) + L + L + 2 * L);
  t = bpw_test_stack_get (plan, "unfused_elementwise");
  g_assert_cmpfloat (fabs (t->bytes - (recipe - graph)), <=, 1e-9 * recipe);
  g_assert_cmpfloat (t->count, ==, kernels - covered);
  g_assert_cmpfloat (t->count, ==, (2 * L + 1) * 7 + L * 15 + L * 1);
  g_assert_null (bpw_test_stack_find (plan, "fp32_logits"));

  fused->stack.unfused_elementwise = FALSE;
  fused_plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_PREFILL, fused, BPW_FUSION_AUTOMATIC);
  g_assert_null (bpw_test_stack_find (fused_plan, "unfused_elementwise"));
  fused_train = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, fused, BPW_FUSION_AUTOMATIC);
  g_assert_null (bpw_test_stack_find (fused_train, "unfused_elementwise"));
  t = bpw_test_stack_get (fused_train, "fp32_logits");
  g_assert_cmpfloat (t->bytes, ==, 2 * 8 * T * V);
  bpw_model_spec_clear (&spec);
}

/* An element-wise kernel off the vectorized path takes its fixed cost and its elements at
 * the stack's elementwise_rate where that is the longer: at 1e9 elements/s the SiLU gate's
 * two kernels (silu on the strided gate half, the product with the strided up half) take
 * 2 (c + T·f / 1e9) with c the fixed cost per kernel, far above their bytes' time. The rate
 * is read, written and compared with the rest of the stack. */
static void
test_elementwise_rate (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_h200_with (
    "{\"elementwise\": \"unfused\", \"elementwise_rate\": 1e9}", &error);
  g_autoptr(BpwBlueprint) back = NULL;
  g_autoptr(BpwBlueprint) copy = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autofree char *json = NULL;
  const double T = (double) B * S;
  BpwModelSpec spec;
  guint checked = 0;

  g_assert_no_error (error);
  g_assert_true (bp->stack.elementwise_rate.set);
  g_assert_cmpfloat (bp->stack.elementwise_rate.value, ==, 1e9);
  bpw_test_stack_small_llama (&spec);
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_PREFILL, bp, BPW_FUSION_AUTOMATIC);
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *pt = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
      double want = 2 * (plan->rates.vector.overhead + T * F / 1e9);

      if (pt->primitive != BPW_PRIM_SWIGLU)
        continue;
      g_assert_cmpfloat (fabs (pt->cost.time_s - want), <=, 1e-12 * want);
      checked++;
    }
  g_assert_cmpuint (checked, ==, L);

  json = bpw_blueprint_to_json (bp);
  g_assert_nonnull (strstr (json, "\"elementwise_rate\""));
  back = bpw_blueprint_load_data ("saved.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (bp, back));
  copy = bpw_blueprint_copy (bp);
  copy->stack.elementwise_rate.value *= 2;
  g_assert_false (bpw_blueprint_equal (bp, copy));
  bpw_model_spec_clear (&spec);
}

/* The semantic work does not move; what the step costs is it plus the transformations. */

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Stack/transformation-bytes", test_transformation_bytes);
  g_test_add_func ("/bpw/core/Stack/eager-recipe-inference", test_eager_recipe_inference);
  g_test_add_func ("/bpw/core/Stack/elementwise-rate", test_elementwise_rate);
  return g_test_run ();
}
