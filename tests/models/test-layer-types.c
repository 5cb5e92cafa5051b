/* test-layer-types.c — the step by layer type: time shares that add up to the step, MFU by
 * layer type whose time-weighted mean is the step's MFU, bottleneck classes that add up to
 * each layer type's time; for the estimator, the bound plan and the simulated step, and in
 * the `bpw evaluate --json` object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <math.h>

#include <json-glib/json-glib.h>

#include "bpw-core.h"

#define REL 1e-12

static void
assert_rel (double a, double b, double rel, const char *what, const char *where)
{
  if (!(fabs (a - b) <= rel * MAX (fabs (a), fabs (b))))
    g_error ("%s: %s is %.17g, expected %.17g (relative %.3g)", where, what, a, b,
             fabs (a - b) / MAX (fabs (a), fabs (b)));
}

/* The identities of one evaluation. */
static void
check_evaluation (const BpwEvaluation *e, const char *where)
{
  double time = 0, weighted = 0, flops = 0;

  g_assert_cmpfloat (e->step_time_s, >, 0);
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    {
      double t = bpw_evaluation_layer_time (e, b);

      for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
        g_assert_cmpfloat (e->layer_class_s[b][c], >=, 0);
      /* Not a time, and not separated by the model: never filled. */
      g_assert_cmpfloat (e->layer_class_s[b][BPW_BOTTLENECK_CAPACITY], ==, 0);
      g_assert_cmpfloat (e->layer_class_s[b][BPW_BOTTLENECK_DEPENDENCY], ==, 0);
      time += t;
      if (t > 0)
        {
          g_assert_false (isnan (e->layer_mfu[b]));
          g_assert_cmpfloat (e->layer_mfu[b], >=, 0);
          weighted += t / e->step_time_s * e->layer_mfu[b];
        }
      else
        g_assert_true (isnan (e->layer_mfu[b]));
      /* Only layer types do work: waiting is "other"'s. */
      if (b != BPW_LAYER_OTHER)
        g_assert_cmpfloat (e->layer_class_s[b][BPW_BOTTLENECK_BUBBLE], ==, 0);
    }
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    flops += e->layer_model_flops[l];
  assert_rel (time, e->step_time_s, REL, "the layer types' time", where);
  assert_rel (flops, e->model_flops, REL, "the layer types' model FLOPs", where);
  assert_rel (weighted, e->mfu, REL, "the time-weighted mean of the layer types' MFU", where);
  /* Transformer blocks do the work: attention and MLP (or MoE) take time and FLOPs. */
  g_assert_cmpfloat (bpw_evaluation_layer_time (e, BPW_LAYER_ATTENTION), >, 0);
  g_assert_cmpfloat (e->layer_mfu[BPW_LAYER_ATTENTION], >, 0);
  g_assert_cmpfloat (e->layer_mfu[BPW_LAYER_OTHER], ==, 0);
}

static double
member (JsonObject *o, const char *object, const char *key)
{
  JsonObject *inner = json_object_get_object_member (o, object);

  g_assert_nonnull (inner);
  return json_object_get_double_member_with_default (inner, key, 0);
}

/* The same identities from the JSON object alone, as a reader of the contract has it. */
static void
check_json (const char *json, const char *where)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *o, *times, *classes;
  g_autoptr(GList) keys = NULL;
  double step, time = 0, weighted = 0;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  step = json_object_get_double_member (o, "step_time_s");
  times = json_object_get_object_member (o, "time_s_by_layer_type");
  classes = json_object_get_object_member (o, "bottleneck_by_layer_type");
  g_assert_nonnull (json_object_get_object_member (o, "mfu_by_layer_type"));
  g_assert_nonnull (classes);
  g_assert_true (json_object_has_member (times, "attention"));
  keys = json_object_get_members (times);
  for (GList *k = keys; k != NULL; k = k->next)
    {
      const char *name = k->data;
      double t = json_object_get_double_member (times, name), sum = 0;
      JsonObject *by_class = json_object_get_object_member (classes, name);
      g_autoptr(GList) names = NULL;

      g_assert_nonnull (by_class);
      names = json_object_get_members (by_class);
      g_assert_cmpuint (g_list_length (names), ==, 5);
      for (GList *c = names; c != NULL; c = c->next)
        sum += json_object_get_double_member (by_class, c->data);
      assert_rel (sum, t, REL, "a layer type's classes in the JSON", where);
      time += t;
      weighted += t / step * member (o, "mfu_by_layer_type", name);
    }
  assert_rel (time, step, REL, "the JSON's layer types' time", where);
  assert_rel (weighted, json_object_get_double_member (o, "mfu"), REL,
              "the JSON's time-weighted layer MFU", where);
}

static void
setup (const char *model, BpwWorkloadPhase phase, BpwRecompute recompute, BpwModelSpec *spec,
       BpwScenario *scenario, BpwMapping *mapping)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (spec);
  g_assert_true (bpw_workload_load (model, spec, &error));
  g_assert_no_error (error);
  /* GPT-2's 50257 tokens padded for TP, as Megatron-LM does. */
  spec->vocab = (spec->vocab + 127) / 128 * 128;
  bpw_scenario_init_defaults (scenario);
  scenario->phase = phase;
  scenario->recompute = recompute;
  scenario->seq = 1024;
  scenario->global_batch = 8;
  scenario->micro_batch = phase == BPW_WORKLOAD_TRAIN ? 1 : 2;
  if (phase == BPW_WORKLOAD_DECODE)
    scenario->context = 1024;
  bpw_mapping_init_defaults (mapping);
  /* TP and PP, and EP for the MoE model: every kind of layer communication. */
  mapping->parallel.tp = 2;
  mapping->parallel.pp = 2;
  mapping->parallel.dp = 2;
  mapping->parallel.ep = spec->experts > 1 ? 2 : 1;
  mapping->parallel.sp = TRUE;
  mapping->parallel.zero = 1;
  mapping->dp_overlap = TRUE;
}

static void
test_every_model (void)
{
  const char * const *models = bpw_model_spec_bundled_names ();
  const struct { BpwWorkloadPhase phase; BpwRecompute recompute; } runs[] = {
    { BPW_WORKLOAD_TRAIN, BPW_RECOMPUTE_NONE },
    { BPW_WORKLOAD_TRAIN, BPW_RECOMPUTE_SELECTIVE },
    { BPW_WORKLOAD_TRAIN, BPW_RECOMPUTE_FULL },
    /* Recomputation applies to training only: serving has none. */
    { BPW_WORKLOAD_PREFILL, BPW_RECOMPUTE_NONE },
    { BPW_WORKLOAD_DECODE, BPW_RECOMPUTE_NONE },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  g_autoptr(BpwBlueprint) hardware = NULL;
  guint checked = 0;

  g_assert_no_error (error);
  hardware = bpw_blueprint_copy (bp);
  /* With the bundled stack less its launch gaps, which depend on a stage's whole kernel
   * sequence and which the estimator's two-block template does not replay (test-evaluate
   * compares memory with them), and with the hardware alone. */
  bp->stack.has_launch = FALSE;
  memset (&hardware->stack, 0, sizeof hardware->stack);
  for (guint v = 0; v < 2; v++)
    for (guint i = 0; models[i] != NULL; i++)
      for (guint r = 0; r < G_N_ELEMENTS (runs); r++)
        {
          const BpwBlueprint *on = v == 0 ? bp : hardware;
          g_autofree char *where = g_strdup_printf ("%s, phase %d, recompute %d, %s", models[i],
                                                    runs[r].phase, runs[r].recompute,
                                                    v == 0 ? "stack" : "no stack");
          g_autoptr(BpwEstimator) est = NULL;
          g_autoptr(BpwPlan) plan = NULL;
          g_autoptr(BpwSimulation) sim = NULL;
          g_autofree char *json = NULL;
          BpwSimOptions options = { 0 };
          BpwModelSpec spec;
          BpwScenario scenario;
          BpwMapping mapping;
          BpwEvaluation fast, bound, simulated;
          BpwWorkGraph *graph;
          BpwDistWork *dist;

          setup (models[i], runs[r].phase, runs[r].recompute, &spec, &scenario, &mapping);
          est = bpw_estimator_new (&spec, &scenario, on, &error);
          g_assert_no_error (error);
          bpw_estimator_evaluate (est, &mapping, &fast, NULL, &error);
          g_assert_no_error (error);
          check_evaluation (&fast, where);

          graph = bpw_work_graph_new (&spec, &scenario, &error);
          g_assert_no_error (error);
          dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
          g_assert_no_error (error);
          plan = bpw_plan_new (dist, on, &mapping, &error);
          g_assert_no_error (error);
          bpw_evaluation_from_plan (plan, &bound);
          check_evaluation (&bound, where);
          /* The estimator prices the plan's tasks: the same split. */
          for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
            for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
              if (!(fabs (fast.layer_class_s[b][c] - bound.layer_class_s[b][c]) <=
                    1e-9 * fast.step_time_s))
                g_error ("%s: %s %s is %.9g s estimated, %.9g s on the plan", where,
                         bpw_layer_bucket_to_string (b), bpw_bottleneck_to_string (c),
                         fast.layer_class_s[b][c], bound.layer_class_s[b][c]);

          sim = bpw_simulation_new (plan, &options, &error);
          g_assert_no_error (error);
          bpw_simulation_evaluation (sim, &bound, &simulated);
          check_evaluation (&simulated, where);
          json = bpw_simulation_evaluation_to_json (sim, &simulated, &bound, NULL);
          check_json (json, where);
          g_clear_pointer (&json, g_free);
          json = bpw_evaluation_to_json (&fast, NULL, NULL);
          check_json (json, where);
          checked++;

          bpw_mapping_clear (&mapping);
          bpw_scenario_clear (&scenario);
          bpw_model_spec_clear (&spec);
        }
  g_assert_cmpuint (checked, ==, 2 * 5 * g_strv_length ((char **) models));
}

/* A hand-made stage: the split follows the stage's figures exactly. */
static void
test_combine_split (void)
{
  BpwStepContext ctx = {
    .micro_batches = 4, .pp = 2, .interleave = 1, .devices = 4, .phase = BPW_WORKLOAD_TRAIN,
    .peak_flops = 1e15, .model_flops = 8e15, .layer_model_flops = { [BPW_LAYER_ATTENTION] = 2e15,
    [BPW_LAYER_MLP] = 6e15 }, .legal = TRUE, .fits = TRUE, .idle_power = NAN, .tdp = NAN,
  };
  BpwStageTotals st[2] = { { 0 } };
  BpwEvaluation e;

  for (guint s = 0; s < 2; s++)
    {
      st[s].ranks = 2;
      st[s].copies = 1;
      st[s].first_stage = s;
      st[s].n_layers = 1;
    }
  /* Stage 0: attention 1 s compute-bound, MLP 2 s memory-bound, 0.5 s of TP on MLP.
   * Stage 1: MLP 1 s compute-bound, 0.25 s of pipeline sends. */
  st[0].compute = 2, st[0].stall = 1, st[0].comm_exposed = 0.5;
  st[0].layer_class[BPW_LAYER_ATTENTION][BPW_BOTTLENECK_COMPUTE] = 1;
  st[0].layer_class[BPW_LAYER_MLP][BPW_BOTTLENECK_MEMORY] = 2;
  st[0].layer_class[BPW_LAYER_MLP][BPW_BOTTLENECK_COMMUNICATION] = 0.5;
  st[1].compute = 1, st[1].comm_exposed = 0.25, st[1].comm_exposed_pipeline = 0.25;
  st[1].layer_class[BPW_LAYER_MLP][BPW_BOTTLENECK_COMPUTE] = 1;
  bpw_evaluation_combine (&ctx, st, 2, &e);

  /* Step: 4 × 3.5 s of the slower stage + a bubble of the other stage's 1.25 s once
   * = 15.25 s; per device the mean of the stages. */
  assert_rel (e.step_time_s, 15.25, REL, "step", "combine");
  assert_rel (e.layer_class_s[BPW_LAYER_ATTENTION][BPW_BOTTLENECK_COMPUTE], 2, REL,
              "attention compute", "combine");
  assert_rel (e.layer_class_s[BPW_LAYER_MLP][BPW_BOTTLENECK_MEMORY], 4, REL, "MLP memory",
              "combine");
  assert_rel (e.layer_class_s[BPW_LAYER_MLP][BPW_BOTTLENECK_COMPUTE], 2, REL, "MLP compute",
              "combine");
  assert_rel (e.layer_class_s[BPW_LAYER_MLP][BPW_BOTTLENECK_COMMUNICATION], 1, REL,
              "MLP communication", "combine");
  assert_rel (e.layer_class_s[BPW_LAYER_OTHER][BPW_BOTTLENECK_COMMUNICATION], 0.5, REL,
              "pipeline sends", "combine");
  /* Stage 0 waits 15.25 − 14 s, stage 1 15.25 − 5 s: a mean of 5.75 s. */
  assert_rel (e.layer_class_s[BPW_LAYER_OTHER][BPW_BOTTLENECK_BUBBLE], 5.75, REL, "bubble",
              "combine");
  /* MFU of attention: 2e15 FLOPs in 2 s on 4 devices of 1e15 FLOP/s. */
  assert_rel (e.layer_mfu[BPW_LAYER_ATTENTION], 0.25, REL, "attention MFU", "combine");
  assert_rel (e.layer_mfu[BPW_LAYER_MLP], 6e15 / (7 * 4e15), REL, "MLP MFU", "combine");
  g_assert_cmpint (bpw_evaluation_layer_bottleneck (&e, BPW_LAYER_MLP), ==,
                   BPW_BOTTLENECK_MEMORY);
  check_evaluation (&e, "combine");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/LayerTypes/combine-split", test_combine_split);
  g_test_add_func ("/bpw/core/LayerTypes/every-model", test_every_model);
  return g_test_run ();
}
