/* test-stack.c — a blueprint's software stack: its JSON, the fusion default, flash attention's
 * memory and the implementation transformations it prices
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-test-stack.h"

static void
test_round_trip (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_fixture ();
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
      g_autoptr(BpwBlueprint) bp = bpw_test_stack_h200_with (cases[i].stack, &error);

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
  g_autoptr(BpwBlueprint) h200 = bpw_test_stack_h200_bare ();
  g_autoptr(BpwBlueprint) tpu = bpw_blueprint_load_bundled ("tpu-v4", NULL);
  g_autoptr(BpwBlueprint) fixture = bpw_test_stack_fixture ();
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
  materialized = bpw_test_stack_h200_with ("{\"attention\": \"materialized\"}", &error);
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

/* Flash attention stores no s×s tensor: without dropout the one stored is the softmax
 * output, b·a·s² elements of 2 bytes per layer (Korthikanti et al. 2022, Table 2, 2as²b). */
static void
test_flash_memory (void)
{
  g_autoptr(BpwBlueprint) h200 = bpw_test_stack_h200_bare ();
  g_autoptr(BpwPlan) flash = NULL;
  g_autoptr(BpwPlan) stored = NULL;
  BpwModelSpec spec;
  double want = (double) L * B * A * S * S * 2;

  bpw_test_stack_small_llama (&spec);
  flash = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, h200, BPW_FUSION_AUTOMATIC);
  stored = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, h200, BPW_FUSION_BASE);
  g_assert_cmpuint (flash->mapping.fusion, ==, BPW_FUSION_BASE | BPW_FUSION_ATTENTION);
  g_assert_cmpfloat (stored->stages[0].memory.activations - flash->stages[0].memory.activations,
                     ==, want);
  g_assert_nonnull (bpw_test_stack_find (flash, "fused-attention"));
  g_assert_null (bpw_test_stack_find (stored, "fused-attention"));
  bpw_model_spec_clear (&spec);
}

static void
test_conservation (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_fixture ();
  g_autoptr(BpwBlueprint) bare = bpw_blueprint_copy (bp);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) semantic = NULL;
  BpwModelSpec spec;
  g_autoptr(GArray) sheet = NULL;
  g_autofree char *csv = NULL;
  double step = 0, work = 0, added = 0, sheet_stack = 0;

  bare->stack.set = FALSE;
  bpw_test_stack_small_llama (&spec);
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_ATTENTION);
  semantic = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bare, BPW_FUSION_ATTENTION);
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
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_fixture ();
  g_autoptr(BpwPlan) plan = NULL;
  const BpwTransformation *t;
  BpwModelSpec spec;

  bpw_test_stack_small_llama (&spec);
  spec.experts = 4;
  spec.top_k = 2;
  spec.moe_every = 1;
  spec.moe_first = 0;
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = bpw_test_stack_get (plan, "moe_dispatch_loop");
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
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_fixture ();
  g_autoptr(BpwPlan) eager = NULL;
  g_autoptr(BpwPlan) graph = NULL;
  g_autoptr(BpwPlan) train = NULL;
  const BpwTransformation *t;
  const double visited = 64.0 * (1.0 - (60.0 / 64) * (60.0 / 64));
  BpwEvaluation e, g;
  BpwModelSpec spec;

  bpw_test_stack_small_llama (&spec);
  spec.experts = 64;
  spec.top_k = 4;
  spec.moe_every = 1;
  spec.moe_first = 0;
  g_assert_cmpint (bp->stack.launch[BPW_STACK_PHASE_DECODE], ==, BPW_STACK_LAUNCH_GRAPH);

  eager = bpw_test_stack_bind_launch (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC, BPW_LAUNCH_EAGER);
  t = bpw_test_stack_get (eager, "moe_dispatch_loop");
  g_assert_cmpfloat (fabs (t->time_s - 2.4e-3 * visited * L), <, 1e-12);
  g_assert_cmpfloat (t->bytes, ==, 0);

  graph = bpw_test_stack_bind (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC);
  g_assert_null (bpw_test_stack_find (graph, "moe_dispatch_loop"));
  bpw_evaluation_from_plan (eager, &e);
  bpw_evaluation_from_plan (graph, &g);
  g_assert_cmpfloat (g.step_time_s, <, e.step_time_s - 2.4e-3 * visited * L);

  train = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = bpw_test_stack_get (train, "moe_dispatch_loop");
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
  bpw_test_stack_small_llama (&spec);
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
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_fixture ();
  g_autoptr(BpwBlueprint) bare = bpw_blueprint_copy (bp);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) semantic = NULL;
  const BpwPlanMemory *a, *b;
  BpwModelSpec spec;

  bare->stack.set = FALSE;
  bpw_test_stack_small_llama (&spec);
  g_assert_cmpint (spec.gradient_dtype, ==, BPW_DTYPE_BF16);
  g_assert_cmpint (spec.master_dtype, ==, BPW_DTYPE_FP32);
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_ATTENTION);
  semantic = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bare, BPW_FUSION_ATTENTION);
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
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_h200_with (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"graph\", "
    "\"eager_gap\": \"1 s\", \"graph_gap\": \"1 us\"}}", &error);
  g_autoptr(BpwPlan) eager = NULL, graph = NULL, decode = NULL, decode_eager = NULL;
  const BpwTransformation *t;
  BpwEvaluation e;
  BpwModelSpec spec;

  g_assert_no_error (error);
  bpw_test_stack_small_llama (&spec);
  eager = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = bpw_test_stack_get (eager, "launch_gaps");
  bpw_evaluation_from_plan (eager, &e);
  g_assert_cmpfloat (t->count, >, 2);
  g_assert_cmpfloat (t->time_s, <=, (t->count - 1) * (1 + 1e-12));
  g_assert_cmpfloat (t->time_s, >=, (t->count - 1) - (e.step_time_s - t->time_s));

  /* The same step replayed from a graph: graph_gap per kernel. */
  graph = bpw_test_stack_bind_launch (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC, BPW_LAUNCH_GRAPH);
  t = bpw_test_stack_get (graph, "launch_gaps");
  g_assert_cmpfloat (fabs (t->time_s - t->count * 1e-6), <, 1e-12 * t->count);
  /* Decode: the stack says graph, a run may say eager. */
  decode = bpw_test_stack_bind (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC);
  decode_eager = bpw_test_stack_bind_launch (&spec, BPW_WORKLOAD_DECODE, bp, BPW_FUSION_AUTOMATIC,
                              BPW_LAUNCH_EAGER);
  t = bpw_test_stack_get (decode, "launch_gaps");
  g_assert_cmpfloat (fabs (t->time_s - t->count * 1e-6), <, 1e-12 * t->count);
  t = bpw_test_stack_get (decode_eager, "launch_gaps");
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
  g_autoptr(BpwBlueprint) ahead = bpw_test_stack_h200_with (
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
  ahead_gap = bpw_test_stack_h200_with (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"1 ps\", \"graph_gap\": \"1 us\", \"eager_device_gap\": \"1.5 us\"}}",
    &error);
  g_assert_no_error (error);
  behind = bpw_test_stack_h200_with (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"1 s\"}}", &error);
  g_assert_no_error (error);
  behind_gap = bpw_test_stack_h200_with (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"1 s\", \"eager_device_gap\": \"1.5 us\"}}", &error);
  g_assert_no_error (error);
  g_assert_true (ahead_gap->stack.eager_device_gap.set);
  g_assert_false (ahead->stack.eager_device_gap.set);

  bpw_test_stack_small_llama (&spec);
  a = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, ahead, BPW_FUSION_AUTOMATIC);
  ag = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, ahead_gap, BPW_FUSION_AUTOMATIC);
  bpw_evaluation_from_plan (a, &ea);
  bpw_evaluation_from_plan (ag, &eag);
  t = bpw_test_stack_get (ag, "launch_gaps");
  g_assert_cmpfloat (t->count, >, 2);
  g_assert_cmpfloat (fabs (t->time_s - t->count * 1.5e-6), <, 1e-9 * t->time_s);
  g_assert_cmpfloat (fabs (eag.step_time_s - ea.step_time_s - t->count * 1.5e-6), <,
                     1e-9 * eag.step_time_s);

  b = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, behind, BPW_FUSION_AUTOMATIC);
  bg = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, behind_gap, BPW_FUSION_AUTOMATIC);
  bpw_evaluation_from_plan (b, &eb);
  bpw_evaluation_from_plan (bg, &ebg);
  /* Only the last kernel's gap shows (per pipeline stage and micro-batch stream). */
  g_assert_cmpfloat (ebg.step_time_s, >=, eb.step_time_s);
  g_assert_cmpfloat (ebg.step_time_s - eb.step_time_s, <, 1e-6 * eb.step_time_s);

  /* Graph replay: graph_gap per kernel, no eager device gap. */
  graph = bpw_test_stack_bind_launch (&spec, BPW_WORKLOAD_TRAIN, ahead_gap, BPW_FUSION_AUTOMATIC,
                       BPW_LAUNCH_GRAPH);
  t = bpw_test_stack_get (graph, "launch_gaps");
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
  g_autoptr(BpwBlueprint) one = bpw_test_stack_h200_with (
    "{\"launch\": {\"train\": \"eager\", \"prefill\": \"eager\", \"decode\": \"eager\", "
    "\"eager_gap\": \"10 us\"}}", &error);
  g_autoptr(BpwBlueprint) two = NULL, back = NULL;
  g_autoptr(BpwPlan) train_one = NULL, train_two = NULL, prefill_one = NULL, prefill_two = NULL;
  g_autofree char *json = NULL;
  BpwModelSpec spec;

  g_assert_no_error (error);
  two = bpw_test_stack_h200_with (
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

  bpw_test_stack_small_llama (&spec);
  train_one = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, one, BPW_FUSION_AUTOMATIC);
  train_two = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, two, BPW_FUSION_AUTOMATIC);
  prefill_one = bpw_test_stack_bind (&spec, BPW_WORKLOAD_PREFILL, one, BPW_FUSION_AUTOMATIC);
  prefill_two = bpw_test_stack_bind (&spec, BPW_WORKLOAD_PREFILL, two, BPW_FUSION_AUTOMATIC);
  /* Training waits ~1 s per launch on the second, inference as on the first. */
  g_assert_cmpfloat (bpw_test_stack_get (train_two, "launch_gaps")->time_s, >,
                     1000 * bpw_test_stack_get (train_one, "launch_gaps")->time_s);
  g_assert_cmpfloat (bpw_test_stack_get (train_two, "launch_gaps")->time_s, >, 1.0);
  g_assert_cmpfloat (bpw_test_stack_get (prefill_two, "launch_gaps")->time_s, ==,
                     bpw_test_stack_get (prefill_one, "launch_gaps")->time_s);
  bpw_model_spec_clear (&spec);
}

/* A foreach optimizer launches per chunk of elements: kernels_per_parameter × parameters
 * launches in all, whatever the tensors; kernels_per_tensor adds per tensor. */
static void
test_optimizer_launches (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_test_stack_h200_with (
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
  bpw_test_stack_small_llama (&spec);
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_TRAIN, bp, BPW_FUSION_AUTOMATIC);
  t = bpw_test_stack_get (plan, "optimizer_implementation");
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

  bpw_test_stack_small_llama (&spec);
  plan = bpw_test_stack_bind (&spec, BPW_WORKLOAD_DECODE, h200, BPW_FUSION_AUTOMATIC);
  g_assert_cmpfloat (bpw_test_stack_get (plan, "launch_gaps")->count, ==, L * 45 + 1 + 8 + 1);
  g_assert_cmpfloat (bpw_test_stack_get (plan, "kv_cache_copy")->count, ==, L * 2);
  /* The output projection (256 → 256) and down (512 → 256) reduce at least as long as
   * they are wide; QKV (256 → 384), gate+up (256 → 1024) and the head do not. */
  g_assert_cmpfloat (bpw_test_stack_get (plan, "splitk_reduce")->count, ==, L * 2);
  bpw_model_spec_clear (&spec);
}

/* Without a stack nothing is added: the plan is the one an explicit flash list gives. */
static void
test_no_stack (void)
{
  g_autoptr(BpwBlueprint) h200 = bpw_test_stack_h200_bare ();
  BpwModelSpec spec;
  BpwWorkloadPhase phases[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE };

  bpw_test_stack_small_llama (&spec);
  for (guint p = 0; p < G_N_ELEMENTS (phases); p++)
    {
      g_autoptr(BpwPlan) automatic = bpw_test_stack_bind (&spec, phases[p], h200, BPW_FUSION_AUTOMATIC);
      g_autoptr(BpwPlan) flash = bpw_test_stack_bind (&spec, phases[p], h200,
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
