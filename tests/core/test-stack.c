/* test-stack.c — a blueprint's software stack: its JSON, the fusion default, flash attention's
 * memory and the implementation transformations it prices
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"

static char *
fixture_path (void)
{
  return g_test_build_filename (G_TEST_DIST, "data", "stack", "h200-sxm-141gb-pytorch-stack.json",
                                NULL);
}

static BpwBlueprint *
load_fixture (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fixture_path ();
  BpwBlueprint *bp = bpw_blueprint_load_file (path, NULL, &error);

  g_assert_no_error (error);
  return bp;
}

/* The bundled H200 as the hardware alone: its estimated default stack removed. */
static BpwBlueprint *
h200_bare (void)
{
  BpwBlueprint *h200 = bpw_blueprint_load_bundled ("h200-sxm-141gb", NULL);

  g_assert_nonnull (h200);
  memset (&h200->stack, 0, sizeof h200->stack);
  return h200;
}

/* The bundled H200 with @stack (JSON text of the "stack" member) in place of its own. */
static BpwBlueprint *
h200_with_stack (const char *stack, GError **error)
{
  g_autoptr(BpwBlueprint) h200 = bpw_blueprint_load_bundled ("h200-sxm-141gb", NULL);
  g_autofree char *json = NULL;
  g_autofree char *with = NULL;
  char *end;

  memset (&h200->stack, 0, sizeof h200->stack);
  json = bpw_blueprint_to_json (h200);
  end = strrchr (json, '}');
  g_assert_nonnull (end);
  *end = '\0';
  with = g_strdup_printf ("%s, \"stack\": %s}", json, stack);
  return bpw_blueprint_load_data ("stack.json", with, -1, NULL, error);
}

static void
test_round_trip (void)
{
  g_autoptr(BpwBlueprint) bp = load_fixture ();
  g_autoptr(BpwBlueprint) back = NULL;
  g_autoptr(BpwBlueprint) copy = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  const BpwStack *st = &bp->stack;

  g_assert_true (st->set);
  g_assert_cmpstr (st->name, ==, "PyTorch 2.11.0+cu130");
  g_assert_cmpint (st->attention, ==, BPW_STACK_ATTENTION_FLASH);
  g_assert_true (st->has_fusion);
  g_assert_cmpuint (st->fusion, ==, BPW_FUSION_ATTENTION);
  g_assert_true (st->fp32_master && st->fp32_logits && st->unfused_elementwise);
  g_assert_cmpint (st->optimizer, ==, BPW_STACK_OPTIMIZER_FOREACH);
  g_assert_cmpfloat (st->optimizer_bytes_per_parameter.value, ==, 84);
  g_assert_cmpint (st->optimizer_bytes_per_parameter.kind, ==, BPW_PROVENANCE_ESTIMATE);
  g_assert_cmpint (st->optimizer_kernels_per_tensor.kind, ==, BPW_PROVENANCE_MEASURED);
  g_assert_cmpint (st->launch[BPW_STACK_PHASE_TRAIN], ==, BPW_STACK_LAUNCH_EAGER);
  g_assert_cmpint (st->launch[BPW_STACK_PHASE_DECODE], ==, BPW_STACK_LAUNCH_GRAPH);
  g_assert_cmpfloat (fabs (st->eager_gap.value - 32e-6), <, 1e-18);
  /* The fixture states one issue time: training takes it too. */
  g_assert_cmpfloat (st->train_eager_gap.value, ==, st->eager_gap.value);
  g_assert_cmpfloat (fabs (st->graph_gap.value - 0.5e-6), <, 1e-18);
  g_assert_true (st->moe_loop);
  g_assert_cmpfloat (fabs (st->moe_per_expert.value - 2.4e-3), <, 1e-15);
  g_assert_nonnull (strstr (st->eager_gap.source, "decode-eager"));

  json = bpw_blueprint_to_json (bp);
  back = bpw_blueprint_load_data ("saved.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (bp, back));
  copy = bpw_blueprint_copy (bp);
  g_assert_true (bpw_blueprint_equal (bp, copy));
  g_assert_true (copy->stack.eager_gap.source != bp->stack.eager_gap.source);
  copy->stack.graph_gap.value *= 2;
  g_assert_false (bpw_blueprint_equal (bp, copy));
  copy->stack.graph_gap.value = bp->stack.graph_gap.value;
  copy->stack.launch[BPW_STACK_PHASE_PREFILL] = BPW_STACK_LAUNCH_GRAPH;
  g_assert_false (bpw_blueprint_equal (bp, copy));
  copy->stack.launch[BPW_STACK_PHASE_PREFILL] = BPW_STACK_LAUNCH_EAGER;
  copy->stack.set = FALSE;
  g_assert_false (bpw_blueprint_equal (bp, copy));
}

static void
test_hostile (void)
{
  static const struct { const char *stack; const char *field; const char *says; } cases[] = {
    { "3", "stack", "object" },
    { "{\"attention\": \"fast\"}", "stack.attention", "fast" },
    { "{\"fusion\": \"attention\"}", "stack.fusion", "array" },
    { "{\"fusion\": [3]}", "stack.fusion[0]", "string" },
    { "{\"fusion\": [\"attention\", \"attention\"]}", "stack.fusion[1]", "twice" },
    { "{\"fusion\": [\"flash\"]}", "stack.fusion[0]", "flash" },
    { "{\"attention\": \"flash\", \"fusion\": []}", "stack.attention", "disagrees" },
    { "{\"precision\": {\"master_weights\": \"fp16\"}}", "stack.precision.master_weights", "fp16" },
    { "{\"optimizer\": {}}", "stack.optimizer", "implementation" },
    { "{\"optimizer\": {\"implementation\": \"foreach\", \"bytes_per_parameter\": -60}}",
      "stack.optimizer.bytes_per_parameter", "-60" },
    { "{\"optimizer\": {\"implementation\": \"foreach\", \"bytes_per_parameter\": 1e300}}",
      "stack.optimizer.bytes_per_parameter", "" },
    { "{\"optimizer\": {\"implementation\": \"foreach\", \"kernels_per_tensor\": 0}}",
      "stack.optimizer.kernels_per_tensor", "" },
    { "{\"optimizer\": {\"implementation\": \"foreach\", \"kernels_per_parameter\": 2}}",
      "stack.optimizer.kernels_per_parameter", "" },
    { "{\"optimizer\": {\"implementation\": \"foreach\", \"bytes_per_parameter\": "
      "{\"value\": \"60 GB\"}}}", "stack.optimizer.bytes_per_parameter", "" },
    { "{\"launch\": {\"train\": \"eager\", \"graph_gap\": \"1 us\"}}", "stack.launch", "eager_gap" },
    { "{\"launch\": {\"train\": \"graph\", \"prefill\": \"graph\", \"decode\": \"graph\"}}",
      "stack.launch", "graph_gap" },
    { "{\"launch\": {\"eager_gap\": \"0 s\"}}", "stack.launch.eager_gap", "" },
    { "{\"launch\": {\"eager_gap\": \"2 s\"}}", "stack.launch.eager_gap", "" },
    { "{\"launch\": {\"eager_gap\": \"4 GB\"}}", "stack.launch.eager_gap", "" },
    { "{\"launch\": {\"eager_gap\": \"4 us\", \"eager_device_gap\": \"0 s\"}}",
      "stack.launch.eager_device_gap", "" },
    { "{\"launch\": {\"eager_gap\": \"4 us\", \"eager_device_gap\": \"2 s\"}}",
      "stack.launch.eager_device_gap", "" },
    { "{\"launch\": {\"decode\": \"lazy\", \"eager_gap\": \"4 us\"}}", "stack.launch.decode", "lazy" },
    { "{\"moe_dispatch\": {\"implementation\": \"loop\", \"per_expert\": \"-1 ms\"}}",
      "stack.moe_dispatch.per_expert", "" },
    { "{\"elementwise_rate\": 0}", "stack.elementwise_rate", "" },
    { "{\"elementwise_rate\": 1e300}", "stack.elementwise_rate", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = h200_with_stack (cases[i].stack, &error);

      g_test_message ("%s", cases[i].stack);
      g_assert_null (bp);
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      /* Located: "stack.json:LINE:COL: FIELD: ..." */
      g_assert_true (g_str_has_prefix (error->message, "stack.json:"));
      g_assert_nonnull (strstr (error->message, cases[i].field));
      g_assert_nonnull (strstr (error->message, cases[i].says));
    }
}

static void
test_fusion_default (void)
{
  g_autoptr(BpwBlueprint) h200 = h200_bare ();
  g_autoptr(BpwBlueprint) tpu = bpw_blueprint_load_bundled ("tpu-v4", NULL);
  g_autoptr(BpwBlueprint) fixture = load_fixture ();
  g_autoptr(BpwBlueprint) materialized = NULL;
  g_autoptr(BpwBlueprint) flash_tpu = NULL;
  g_autoptr(GError) error = NULL;
  BpwMapping m;

  bpw_mapping_init_defaults (&m);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_AUTOMATIC);
  /* Tensor cores reach shared memory: flash attention by default. */
  g_assert_true (bpw_blueprint_runs_flash_attention (h200));
  g_assert_cmpuint (bpw_mapping_resolve_fusion (m.fusion, h200), ==,
                    BPW_FUSION_BASE | BPW_FUSION_ATTENTION);
  /* The TPU blueprint states no software-managed SRAM. */
  g_assert_false (bpw_blueprint_runs_flash_attention (tpu));
  g_assert_cmpuint (bpw_mapping_resolve_fusion (m.fusion, tpu), ==, BPW_FUSION_BASE);
  /* A stack's list replaces the default whole; its attention decides where it has none. */
  g_assert_cmpuint (bpw_mapping_resolve_fusion (m.fusion, fixture), ==, BPW_FUSION_ATTENTION);
  materialized = h200_with_stack ("{\"attention\": \"materialized\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_mapping_resolve_fusion (m.fusion, materialized), ==, BPW_FUSION_BASE);
  g_clear_error (&error);
  flash_tpu = bpw_blueprint_copy (tpu);
  flash_tpu->stack.set = TRUE;
  flash_tpu->stack.attention = BPW_STACK_ATTENTION_FLASH;
  g_assert_cmpuint (bpw_mapping_resolve_fusion (m.fusion, flash_tpu), ==,
                    BPW_FUSION_BASE | BPW_FUSION_ATTENTION);
  /* A list that is set (--fusion, a mapping file) always holds. */
  g_assert_cmpuint (bpw_mapping_resolve_fusion (BPW_FUSION_BASE, fixture), ==, BPW_FUSION_BASE);
  g_assert_cmpuint (bpw_mapping_resolve_fusion (0, h200), ==, 0);

  /* A mapping file says "auto" for it, and reads back the same. */
  {
    g_autofree char *json = bpw_mapping_to_json (&m);
    BpwMapping back;

    g_assert_nonnull (strstr (json, "\"fusion\": \"auto\""));
    bpw_mapping_init_defaults (&back);
    back.fusion = BPW_FUSION_ATTENTION;
    g_assert_true (bpw_mapping_load_data ("m.json", json, -1, &back, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (bpw_mapping_equal (&m, &back));
    bpw_mapping_clear (&back);
  }
  bpw_mapping_clear (&m);
}

/* ---- a small Llama-style model: RMSNorm, rotary, SwiGLU, untied head, no dropout ---- */

#define L   2
#define H   256
#define A   8
#define KV  2
#define D   32
#define F   512
#define V   1000
#define S   128
#define B   2

static void
small_llama (BpwModelSpec *s)
{
  bpw_model_spec_init_defaults (s);
  g_free (s->name);
  s->name = g_strdup ("llama-small");
  s->layers = L;
  s->hidden = H;
  s->heads = A;
  s->kv_heads = KV;
  s->head_dim = D;
  s->ffn = F;
  s->vocab = V;
  s->max_positions = 4096;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->tied_embeddings = FALSE;
  s->qkv_bias = FALSE;
  s->linear_bias = FALSE;
  s->dropout = FALSE;
}

static BpwPlan *
bind_launch (const BpwModelSpec *spec, BpwWorkloadPhase phase, const BpwBlueprint *bp,
             guint fusion, BpwLaunchMode launch)
{
  g_autoptr(GError) error = NULL;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwPlan *plan;

  bpw_scenario_init_defaults (&scenario);
  scenario.phase = phase;
  scenario.global_batch = B;
  scenario.micro_batch = B;
  scenario.seq = S;
  scenario.context = S;
  scenario.recompute = BPW_RECOMPUTE_NONE;
  scenario.launch = launch;
  bpw_mapping_init_defaults (&mapping);
  mapping.fusion = fusion;
  graph = bpw_work_graph_new (spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  return plan;
}

static BpwPlan *
bind (const BpwModelSpec *spec, BpwWorkloadPhase phase, const BpwBlueprint *bp, guint fusion)
{
  return bind_launch (spec, phase, bp, fusion, BPW_LAUNCH_STACK);
}

static const BpwTransformation *
find (const BpwPlan *plan, const char *name)
{
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      if (strcmp (t->name, name) == 0)
        return t;
    }
  return NULL;
}

static const BpwTransformation *
get (const BpwPlan *plan, const char *name)
{
  const BpwTransformation *t = find (plan, name);

  if (t == NULL)
    g_error ("no transformation \"%s\"", name);
  return t;
}

/* Flash attention stores no s×s tensor: without dropout the one stored is the softmax
 * output, b·a·s² elements of 2 bytes per layer (Korthikanti et al. 2022, Table 2, 2as²b). */
static void
test_flash_memory (void)
{
  g_autoptr(BpwBlueprint) h200 = h200_bare ();
  g_autoptr(BpwPlan) flash = NULL;
  g_autoptr(BpwPlan) stored = NULL;
  BpwModelSpec spec;
  double want = (double) L * B * A * S * S * 2;

  small_llama (&spec);
  flash = bind (&spec, BPW_WORKLOAD_TRAIN, h200, BPW_FUSION_AUTOMATIC);
  stored = bind (&spec, BPW_WORKLOAD_TRAIN, h200, BPW_FUSION_BASE);
  g_assert_cmpuint (flash->mapping.fusion, ==, BPW_FUSION_BASE | BPW_FUSION_ATTENTION);
  g_assert_cmpfloat (stored->stages[0].memory.activations - flash->stages[0].memory.activations,
                     ==, want);
  g_assert_nonnull (find (flash, "fused-attention"));
  g_assert_null (find (stored, "fused-attention"));
  bpw_model_spec_clear (&spec);
}

/* Each implementation transformation's bytes in closed form, from the model's shapes
 * (tp = dp = pp = 1, one micro-batch, no recompute; e = 2 bytes of bf16). */
static void
test_transformation_bytes (void)
{
  g_autoptr(BpwBlueprint) bp = load_fixture ();
  g_autoptr(BpwPlan) plan = NULL;
  const BpwTransformation *t;
  BpwModelSpec spec;
  const double e = 2, T = (double) B * S;
  /* Matmul weights: qkv, output projection, gate+up, down per layer, and the head. */
  double matmul_weights = L * ((double) H * (A + 2 * KV) * D + (double) A * D * H
                               + (double) H * 2 * F + (double) F * H) + (double) H * V;
  double optimizer_bytes = 0;

  small_llama (&spec);
  plan = bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);

  /* Forward: read fp32, write bf16; backward: weight gradient bf16 read, fp32 written. */
  t = get (plan, "amp_cast");
  g_assert_cmpfloat (t->bytes, ==, matmul_weights * 2 * (4 + e));
  g_assert_cmpfloat (t->count, ==, 2 * (4 * L + 1));
  g_assert_true (t->implementation);
  g_assert_cmpfloat (t->time_s, >, 0);

  /* The casts alone, e + 4 bytes per logit each way: the eager loss prices the rest. */
  t = get (plan, "fp32_logits");
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
  t = get (plan, "unfused_elementwise");
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
  g_assert_null (find (plan, "kv_cache_copy"));
  g_assert_null (find (plan, "splitk_reduce"));

  /* bytes_per_parameter × parameters, of which the fused ideal was already priced. */
  t = get (plan, "optimizer_implementation");
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *pt = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);

      if (pt->phase == BPW_PHASE_OPTIMIZER)
        optimizer_bytes += pt->bytes[BPW_TRAFFIC_DEVICE] * pt->count;
    }
  g_assert_cmpfloat (t->bytes + optimizer_bytes, ==, 84.0 * bpw_model_spec_parameters (&spec));

  t = get (plan, "launch_gaps");
  g_assert_cmpfloat (t->time_s, >, 0);
  g_assert_null (find (plan, "moe_dispatch_loop"));
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
  g_autoptr(BpwBlueprint) bp = load_fixture ();
  g_autoptr(BpwBlueprint) fused = bpw_blueprint_copy (bp);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) fused_plan = NULL;
  g_autoptr(BpwPlan) fused_train = NULL;
  const BpwWorkGraph *g;
  const BpwTransformation *t;
  BpwModelSpec spec;
  const double e = 2, T = (double) B * S;
  double recipe = 0, graph = 0, covered = 0, kernels = 0;

  small_llama (&spec);
  plan = bind (&spec, BPW_WORKLOAD_PREFILL, bp, BPW_FUSION_AUTOMATIC);
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
  t = get (plan, "unfused_elementwise");
  g_assert_cmpfloat (fabs (t->bytes - (recipe - graph)), <=, 1e-9 * recipe);
  g_assert_cmpfloat (t->count, ==, kernels - covered);
  g_assert_cmpfloat (t->count, ==, (2 * L + 1) * 7 + L * 15 + L * 1);
  g_assert_null (find (plan, "fp32_logits"));

  fused->stack.unfused_elementwise = FALSE;
  fused_plan = bind (&spec, BPW_WORKLOAD_PREFILL, fused, BPW_FUSION_AUTOMATIC);
  g_assert_null (find (fused_plan, "unfused_elementwise"));
  fused_train = bind (&spec, BPW_WORKLOAD_TRAIN, fused, BPW_FUSION_AUTOMATIC);
  g_assert_null (find (fused_train, "unfused_elementwise"));
  t = get (fused_train, "fp32_logits");
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
  g_autoptr(BpwBlueprint) bp = h200_with_stack (
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
  small_llama (&spec);
  plan = bind (&spec, BPW_WORKLOAD_PREFILL, bp, BPW_FUSION_AUTOMATIC);
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
static void
test_conservation (void)
{
  g_autoptr(BpwBlueprint) bp = load_fixture ();
  g_autoptr(BpwBlueprint) bare = bpw_blueprint_copy (bp);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) semantic = NULL;
  BpwModelSpec spec;
  g_autoptr(GArray) sheet = NULL;
  g_autofree char *csv = NULL;
  double step = 0, work = 0, added = 0, sheet_stack = 0;

  bare->stack.set = FALSE;
  small_llama (&spec);
  plan = bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_ATTENTION);
  semantic = bind (&spec, BPW_WORKLOAD_TRAIN, bare, BPW_FUSION_ATTENTION);
  g_assert_cmpuint (plan->stages[0].tasks->len, ==, semantic->stages[0].tasks->len);
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *a = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
      const BpwPlanTask *b = &g_array_index (semantic->stages[0].tasks, BpwPlanTask, i);
      double per_step = a->phase == BPW_PHASE_OPTIMIZER ? a->count
                        : a->count * (double) plan->micro_batches;

      g_assert_cmpfloat (a->flops, ==, b->flops);
      g_assert_cmpmem (a->bytes, sizeof a->bytes, b->bytes, sizeof b->bytes);
      g_assert_cmpfloat (b->impl_s, ==, 0);
      g_assert_cmpfloat (fabs (a->cost.time_s - a->impl_s - b->cost.time_s), <=,
                         1e-12 * a->cost.time_s);
      step += a->cost.time_s * per_step;
      work += b->cost.time_s * per_step;
    }
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      if (t->implementation)
        added += t->time_s;
    }
  g_assert_cmpfloat (added, >, 0);
  g_assert_cmpfloat (fabs (step - (work + added)), <=, 1e-9 * step);

  /* The sheet keeps the overhead apart, row by row. */
  sheet = bpw_mapping_sheet_new (plan, FALSE);
  for (guint i = 0; i < sheet->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (sheet, BpwSheetRow, i);

      sheet_stack += r->stack_s * r->count;
    }
  g_assert_cmpfloat (fabs (sheet_stack - added), <=, 1e-9 * added);
  csv = bpw_mapping_sheet_to_csv (sheet);
  g_assert_nonnull (strstr (csv, ",bottleneck,stack_s,"));
  bpw_model_spec_clear (&spec);
}

/* A MoE layer under a host loop: per_expert × experts × layers × passes, and in backward
 * the stacked expert weights' gradients: per layer and matrix (gate, up, down of E·H·F fp32
 * elements), E zero fills of the whole stack and E − 1 adds into .grad (3 × 4 B each). */
static void
test_moe_loop (void)
{
  g_autoptr(BpwBlueprint) bp = load_fixture ();
  g_autoptr(BpwPlan) plan = NULL;
  const BpwTransformation *t;
  BpwModelSpec spec;

  small_llama (&spec);
  spec.experts = 4;
  spec.top_k = 2;
  spec.moe_every = 1;
  spec.moe_first = 0;
  plan = bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = get (plan, "moe_dispatch_loop");
  g_assert_cmpfloat (t->bytes, ==, (double) L * 3 * (4.0 * H * F) * 4 * (4 + 3 * (4 - 1)));
  g_assert_cmpfloat (t->count, ==, (double) L * 3 * (2 * 4 - 1));
  /* The loop's host time, and the fills' and adds' device time beyond it. */
  g_assert_cmpfloat (t->time_s, >, 2.4e-3 * 4 * L * 2);
  g_assert_cmpfloat (t->time_s - 2.4e-3 * 4 * L * 2, <, 1e-3);
  bpw_model_spec_clear (&spec);
}

/* The loop in decode: an eager pass visits the experts its T = B tokens choose, in
 * expectation E · (1 − (1 − k/E)^T) (k distinct of E per token, uniformly): 64 experts,
 * top-4, 2 tokens: 64 · (1 − (60/64)²) = 7.75 of the 64, per layer, forward only. A step
 * replayed from a CUDA graph (the stack's decode) holds no host loop: no time per expert.
 * Training at B·S = 256 tokens visits all 64. */
static void
test_moe_loop_decode (void)
{
  g_autoptr(BpwBlueprint) bp = load_fixture ();
  g_autoptr(BpwPlan) eager = NULL;
  g_autoptr(BpwPlan) graph = NULL;
  g_autoptr(BpwPlan) train = NULL;
  const BpwTransformation *t;
  const double visited = 64.0 * (1.0 - (60.0 / 64) * (60.0 / 64));
  BpwEvaluation e, g;
  BpwModelSpec spec;

  small_llama (&spec);
  spec.experts = 64;
  spec.top_k = 4;
  spec.moe_every = 1;
  spec.moe_first = 0;
  g_assert_cmpint (bp->stack.launch[BPW_STACK_PHASE_DECODE], ==, BPW_STACK_LAUNCH_GRAPH);

  eager = bind_launch (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC, BPW_LAUNCH_EAGER);
  t = get (eager, "moe_dispatch_loop");
  g_assert_cmpfloat (fabs (t->time_s - 2.4e-3 * visited * L), <, 1e-12);
  g_assert_cmpfloat (t->bytes, ==, 0);

  graph = bind (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC);
  g_assert_null (find (graph, "moe_dispatch_loop"));
  bpw_evaluation_from_plan (eager, &e);
  bpw_evaluation_from_plan (graph, &g);
  g_assert_cmpfloat (g.step_time_s, <, e.step_time_s - 2.4e-3 * visited * L);

  train = bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = get (train, "moe_dispatch_loop");
  g_assert_cmpfloat (t->time_s, >, 2.4e-3 * 64 * L * 2);
  bpw_model_spec_clear (&spec);
}

/* Weights homed on the host (the A100's, behind its host link, with its estimated
 * stack): the stack's optimizer prices its device-memory bytes per parameter, and the
 * updated weights still go back over the host link, so that each optimizer task takes at
 * least its host bytes over the link's bandwidth. */
static void
test_optimizer_offload (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("a100-sxm-80gb", NULL);
  g_autoptr(GError) error = NULL;
  int host = bpw_blueprint_first_memory (bp, BPW_MEMORY_HOST);
  BpwScenario scenario;
  BpwMapping mapping;
  BpwModelSpec spec;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  g_autoptr(BpwPlan) plan = NULL;
  guint checked = 0;

  g_assert_cmpint (host, >=, 0);
  g_assert_true (bp->stack.optimizer_bytes_per_parameter.set);
  small_llama (&spec);
  bpw_scenario_init_defaults (&scenario);
  scenario.phase = BPW_WORKLOAD_TRAIN;
  scenario.global_batch = B;
  scenario.micro_batch = B;
  scenario.seq = S;
  scenario.recompute = BPW_RECOMPUTE_NONE;
  bpw_mapping_init_defaults (&mapping);
  mapping.placement[BPW_TENSOR_WEIGHT] = BPW_PLACEMENT_HOST;
  graph = bpw_work_graph_new (&spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *t = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);

      if (t->phase != BPW_PHASE_OPTIMIZER || t->bytes[BPW_TRAFFIC_HOST] <= 0)
        continue;
      g_assert_cmpfloat (t->cost.time_s, >=,
                         t->bytes[BPW_TRAFFIC_HOST] / bp->memory[host].bandwidth.value);
      checked++;
    }
  g_assert_cmpuint (checked, >, 0);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
}

/* Memory as the AMP stack holds it: fp32 gradients, and the fp32 logits of the loss kept
 * from forward to backward on the head's stage (tokens × vocab × 4 B). */
static void
test_stack_memory (void)
{
  g_autoptr(BpwBlueprint) bp = load_fixture ();
  g_autoptr(BpwBlueprint) bare = bpw_blueprint_copy (bp);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) semantic = NULL;
  const BpwPlanMemory *a, *b;
  BpwModelSpec spec;

  bare->stack.set = FALSE;
  small_llama (&spec);
  g_assert_cmpint (spec.gradient_dtype, ==, BPW_DTYPE_BF16);
  g_assert_cmpint (spec.master_dtype, ==, BPW_DTYPE_FP32);
  plan = bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_ATTENTION);
  semantic = bind (&spec, BPW_WORKLOAD_TRAIN, bare, BPW_FUSION_ATTENTION);
  a = &plan->stages[0].memory;
  b = &semantic->stages[0].memory;
  g_assert_cmpfloat (a->weights, ==, b->weights);
  g_assert_cmpfloat (a->gradients, ==, 2 * b->gradients);
  g_assert_cmpfloat (a->gradients, ==, 4.0 * bpw_model_spec_parameters (&spec));
  g_assert_cmpfloat (a->optimizer_state, ==, b->optimizer_state);
  g_assert_cmpfloat (a->activations - b->activations, ==, (double) B * S * V * 4);
  bpw_model_spec_clear (&spec);
}

/* Eager launch is a host issue queue: with an issue time h far beyond every kernel the
 * device waits for each issue, idling (n − 1)·h less the busy time of all kernels but the
 * last. Charging each kernel h − its own time would give n·h − busy, more than (n − 1)·h.
 * A run's launch mode overrides the stack's for its phase. */
static void
test_launch_queue (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = h200_with_stack (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"graph\", "
    "\"eager_gap\": \"1 s\", \"graph_gap\": \"1 us\"}}", &error);
  g_autoptr(BpwPlan) eager = NULL, graph = NULL, decode = NULL, decode_eager = NULL;
  const BpwTransformation *t;
  BpwEvaluation e;
  BpwModelSpec spec;

  g_assert_no_error (error);
  small_llama (&spec);
  eager = bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = get (eager, "launch_gaps");
  bpw_evaluation_from_plan (eager, &e);
  g_assert_cmpfloat (t->count, >, 2);
  g_assert_cmpfloat (t->time_s, <=, (t->count - 1) * (1 + 1e-12));
  g_assert_cmpfloat (t->time_s, >=, (t->count - 1) - (e.step_time_s - t->time_s));

  /* The same step replayed from a graph: graph_gap per kernel. */
  graph = bind_launch (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC, BPW_LAUNCH_GRAPH);
  t = get (graph, "launch_gaps");
  g_assert_cmpfloat (fabs (t->time_s - t->count * 1e-6), <, 1e-12 * t->count);
  /* Decode: the stack says graph, a run may say eager. */
  decode = bind (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC);
  decode_eager = bind_launch (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC,
                              BPW_LAUNCH_EAGER);
  t = get (decode, "launch_gaps");
  g_assert_cmpfloat (fabs (t->time_s - t->count * 1e-6), <, 1e-12 * t->count);
  t = get (decode_eager, "launch_gaps");
  g_assert_cmpfloat (t->time_s, >, 1.0);
  bpw_model_spec_clear (&spec);
}

/* Eager kernels the host has already issued still start apart: each boundary idles the
 * device eager_device_gap. With the host far ahead (an issue time of 1 ps) the launch gaps
 * are exactly kernels × that gap, and the step grows by as much; with the host far behind
 * (1 s per kernel) the gaps hide in the wait for the host and the step stays the host's.
 * It is part of the stack's launch_gaps, read, written, copied and compared like the rest,
 * and replay from a graph leaves it out. */
static void
test_eager_device_gap (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) ahead = h200_with_stack (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"1 ps\", \"graph_gap\": \"1 us\"}}", &error);
  g_autoptr(BpwBlueprint) ahead_gap = NULL, behind = NULL, behind_gap = NULL, back = NULL,
                          copy = NULL;
  g_autoptr(BpwPlan) a = NULL, ag = NULL, b = NULL, bg = NULL, graph = NULL;
  g_autofree char *json = NULL;
  const BpwTransformation *t;
  BpwEvaluation ea, eag, eb, ebg;
  BpwModelSpec spec;

  g_assert_no_error (error);
  ahead_gap = h200_with_stack (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"1 ps\", \"graph_gap\": \"1 us\", \"eager_device_gap\": \"1.5 us\"}}",
    &error);
  g_assert_no_error (error);
  behind = h200_with_stack (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"1 s\"}}", &error);
  g_assert_no_error (error);
  behind_gap = h200_with_stack (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"1 s\", \"eager_device_gap\": \"1.5 us\"}}", &error);
  g_assert_no_error (error);
  g_assert_true (ahead_gap->stack.eager_device_gap.set);
  g_assert_false (ahead->stack.eager_device_gap.set);

  small_llama (&spec);
  a = bind (&spec, BPW_WORKLOAD_TRAIN, ahead, BPW_FUSION_AUTOMATIC);
  ag = bind (&spec, BPW_WORKLOAD_TRAIN, ahead_gap, BPW_FUSION_AUTOMATIC);
  bpw_evaluation_from_plan (a, &ea);
  bpw_evaluation_from_plan (ag, &eag);
  t = get (ag, "launch_gaps");
  g_assert_cmpfloat (t->count, >, 2);
  g_assert_cmpfloat (fabs (t->time_s - t->count * 1.5e-6), <, 1e-9 * t->time_s);
  g_assert_cmpfloat (fabs (eag.step_time_s - ea.step_time_s - t->count * 1.5e-6), <,
                     1e-9 * eag.step_time_s);

  b = bind (&spec, BPW_WORKLOAD_TRAIN, behind, BPW_FUSION_AUTOMATIC);
  bg = bind (&spec, BPW_WORKLOAD_TRAIN, behind_gap, BPW_FUSION_AUTOMATIC);
  bpw_evaluation_from_plan (b, &eb);
  bpw_evaluation_from_plan (bg, &ebg);
  /* Only the last kernel's gap shows (per pipeline stage and micro-batch stream). */
  g_assert_cmpfloat (ebg.step_time_s, >=, eb.step_time_s);
  g_assert_cmpfloat (ebg.step_time_s - eb.step_time_s, <, 1e-6 * eb.step_time_s);

  /* Graph replay: graph_gap per kernel, no eager device gap. */
  graph = bind_launch (&spec, BPW_WORKLOAD_TRAIN, ahead_gap, BPW_FUSION_AUTOMATIC,
                       BPW_LAUNCH_GRAPH);
  t = get (graph, "launch_gaps");
  g_assert_cmpfloat (fabs (t->time_s - t->count * 1e-6), <, 1e-12 * t->count);

  json = bpw_blueprint_to_json (ahead_gap);
  back = bpw_blueprint_load_data ("saved.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (ahead_gap, back));
  g_assert_cmpfloat (back->stack.eager_device_gap.value, ==, 1.5e-6);
  copy = bpw_blueprint_copy (ahead_gap);
  g_assert_true (bpw_blueprint_equal (ahead_gap, copy));
  copy->stack.eager_device_gap.value *= 2;
  g_assert_false (bpw_blueprint_equal (ahead_gap, copy));
  g_assert_false (bpw_blueprint_equal (ahead, ahead_gap));
  bpw_model_spec_clear (&spec);
}

/* Training issues at its own host rate (train_eager_gap), inference at eager_gap; a stack
 * that states one eager_gap (written before training had its own) states it for both. */
static void
test_train_issue (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) one = h200_with_stack (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"10 us\"}}", &error);
  g_autoptr(BpwBlueprint) two = NULL, back = NULL;
  g_autoptr(BpwPlan) train_one = NULL, train_two = NULL, prefill_one = NULL, prefill_two = NULL;
  g_autofree char *json = NULL;
  BpwModelSpec spec;

  g_assert_no_error (error);
  two = h200_with_stack (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"10 us\", \"train_eager_gap\": \"1 s\"}}", &error);
  g_assert_no_error (error);
  g_assert_true (one->stack.train_eager_gap.set);
  g_assert_cmpfloat (one->stack.train_eager_gap.value, ==, one->stack.eager_gap.value);
  g_assert_cmpfloat (two->stack.train_eager_gap.value, ==, 1);
  g_assert_cmpfloat (fabs (two->stack.eager_gap.value - 10e-6), <, 1e-18);
  /* Both written, both read back. */
  json = bpw_blueprint_to_json (two);
  g_assert_nonnull (strstr (json, "\"train_eager_gap\""));
  back = bpw_blueprint_load_data ("saved.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (two, back));
  g_assert_false (bpw_blueprint_equal (one, two));

  small_llama (&spec);
  train_one = bind (&spec, BPW_WORKLOAD_TRAIN, one, BPW_FUSION_AUTOMATIC);
  train_two = bind (&spec, BPW_WORKLOAD_TRAIN, two, BPW_FUSION_AUTOMATIC);
  prefill_one = bind (&spec, BPW_WORKLOAD_PREFILL, one, BPW_FUSION_AUTOMATIC);
  prefill_two = bind (&spec, BPW_WORKLOAD_PREFILL, two, BPW_FUSION_AUTOMATIC);
  /* Training waits ~1 s per launch on the second, inference as on the first. */
  g_assert_cmpfloat (get (train_two, "launch_gaps")->time_s, >,
                     1000 * get (train_one, "launch_gaps")->time_s);
  g_assert_cmpfloat (get (train_two, "launch_gaps")->time_s, >, 1.0);
  g_assert_cmpfloat (get (prefill_two, "launch_gaps")->time_s, ==,
                     get (prefill_one, "launch_gaps")->time_s);
  bpw_model_spec_clear (&spec);
}

/* A foreach optimizer launches per chunk of elements: kernels_per_parameter × parameters
 * launches in all, whatever the tensors; kernels_per_tensor adds per tensor. */
static void
test_optimizer_launches (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = h200_with_stack (
    "{\"optimizer\": {\"implementation\": \"foreach\", \"bytes_per_parameter\": 60, "
    "\"kernels_per_parameter\": 1e-3}}", &error);
  g_autoptr(BpwBlueprint) back = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autofree char *json = NULL;
  const BpwTransformation *t;
  BpwModelSpec spec;

  g_assert_no_error (error);
  g_assert_cmpfloat (bp->stack.optimizer_kernels_per_parameter.value, ==, 1e-3);
  json = bpw_blueprint_to_json (bp);
  back = bpw_blueprint_load_data ("back.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (back->stack.optimizer_kernels_per_parameter.value, ==, 1e-3);
  small_llama (&spec);
  plan = bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = get (plan, "optimizer_implementation");
  g_assert_cmpfloat (fabs (t->count - 1e-3 * (double) bpw_model_spec_parameters (&spec)), <,
                     1e-9 * t->count);
  bpw_model_spec_clear (&spec);
}

/* An eager decode step launches what the shared pack's traced one does (Llama 3 8B cut to 4
 * layers, 191 kernels: 45 per layer, the embedding's gather, the final norm's 8, the head
 * and one memset the model leaves out): per layer two RMSNorms of 8 kernels, the QKV
 * product, RoPE on halves in 8 kernels for each of q and k, the two KV-cache copies, the
 * attention kernel (the rotary kernels between it and the QKV product break their fusion
 * group), the output projection and its split-K reduction, the residual add, gate+up,
 * SiLU and the gate product, down and its split-K reduction, the residual add. */
static void
test_decode_kernels (void)
{
  g_autoptr(BpwBlueprint) h200 = bpw_blueprint_load_bundled ("h200-sxm-141gb", NULL);
  g_autoptr(BpwPlan) plan = NULL;
  BpwModelSpec spec;

  small_llama (&spec);
  plan = bind (&spec, BPW_WORKLOAD_DECODE, h200, BPW_FUSION_AUTOMATIC);
  g_assert_cmpfloat (get (plan, "launch_gaps")->count, ==, L * 45 + 1 + 8 + 1);
  g_assert_cmpfloat (get (plan, "kv_cache_copy")->count, ==, L * 2);
  /* The output projection (256 → 256) and down (512 → 256) reduce at least as long as
   * they are wide; QKV (256 → 384), gate+up (256 → 1024) and the head do not. */
  g_assert_cmpfloat (get (plan, "splitk_reduce")->count, ==, L * 2);
  bpw_model_spec_clear (&spec);
}

/* Without a stack nothing is added: the plan is the one an explicit flash list gives. */
static void
test_no_stack (void)
{
  g_autoptr(BpwBlueprint) h200 = h200_bare ();
  BpwModelSpec spec;
  BpwWorkloadPhase phases[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE };

  small_llama (&spec);
  for (guint p = 0; p < G_N_ELEMENTS (phases); p++)
    {
      g_autoptr(BpwPlan) automatic = bind (&spec, phases[p], h200, BPW_FUSION_AUTOMATIC);
      g_autoptr(BpwPlan) flash = bind (&spec, phases[p], h200,
                                       BPW_FUSION_BASE | BPW_FUSION_ATTENTION);
      BpwEvaluation a, b;

      bpw_evaluation_from_plan (automatic, &a);
      bpw_evaluation_from_plan (flash, &b);
      g_assert_cmpfloat (a.step_time_s, ==, b.step_time_s);
      g_assert_cmpfloat (a.peak_bytes, ==, b.peak_bytes);
      for (guint i = 0; i < automatic->transformations->len; i++)
        g_assert_false (g_array_index (automatic->transformations, BpwTransformation,
                                       i).implementation);
      for (guint i = 0; i < automatic->stages[0].tasks->len; i++)
        g_assert_cmpfloat (g_array_index (automatic->stages[0].tasks, BpwPlanTask, i).impl_s,
                           ==, 0);
    }
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Stack/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/Stack/hostile", test_hostile);
  g_test_add_func ("/bpw/core/Stack/fusion-default", test_fusion_default);
  g_test_add_func ("/bpw/core/Stack/flash-memory", test_flash_memory);
  g_test_add_func ("/bpw/core/Stack/transformation-bytes", test_transformation_bytes);
  g_test_add_func ("/bpw/core/Stack/eager-recipe-inference", test_eager_recipe_inference);
  g_test_add_func ("/bpw/core/Stack/elementwise-rate", test_elementwise_rate);
  g_test_add_func ("/bpw/core/Stack/conservation", test_conservation);
  g_test_add_func ("/bpw/core/Stack/moe-loop", test_moe_loop);
  g_test_add_func ("/bpw/core/Stack/moe-loop-decode", test_moe_loop_decode);
  g_test_add_func ("/bpw/core/Stack/optimizer-offload", test_optimizer_offload);
  g_test_add_func ("/bpw/core/Stack/memory", test_stack_memory);
  g_test_add_func ("/bpw/core/Stack/no-stack", test_no_stack);
  g_test_add_func ("/bpw/core/Stack/launch-queue", test_launch_queue);
  g_test_add_func ("/bpw/core/Stack/train-issue", test_train_issue);
  g_test_add_func ("/bpw/core/Stack/eager-device-gap", test_eager_device_gap);
  g_test_add_func ("/bpw/core/Stack/optimizer-launches", test_optimizer_launches);
  g_test_add_func ("/bpw/core/Stack/decode-kernels", test_decode_kernels);
  return g_test_run ();
}
