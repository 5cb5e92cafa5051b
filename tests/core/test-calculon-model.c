/* test-calculon-model.c — Calculon's model, ported, gives Calculon's numbers to the last bit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/calculon/ holds two of Calculon's own runs (`calculon llm gpt3-175B.json
 * EXECUTION a100_80g.json stats.json -l`, shared/reference/calculon/runs/): gpt3-175B on
 * 1,024 A100s, Megatron-2021 style (all-reduce TP, full recompute) and Megatron-2022 style
 * (sequence parallelism, attention-only recompute, sharded optimizer, DP overlap). Every one
 * of their 96 statistics and the 47 numbers of each of their 24 layers must come out equal
 * as doubles, not merely close: the port follows Calculon's order of operations. Calculon's
 * optimal-execution runs (tests/data/calculon-search/) check the other branches through
 * test-calculon-search.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "bpw-calculon-model.h"
#include "bpw-core.h"

typedef struct
{
  BpwCalculonApp       app;
  BpwCalculonSystem    system;
  BpwCalculonExecution exe;
} Problem;

static void
problem_load (Problem    *p,
              const char *model,
              const char *system,
              const char *execution)
{
  g_autofree char *model_path = g_test_build_filename (G_TEST_DIST, "data", model, NULL);
  g_autofree char *system_path = g_test_build_filename (G_TEST_DIST, "data", system, NULL);
  g_autofree char *exe_path = g_test_build_filename (G_TEST_DIST, "data", execution, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwParallel parallel;

  bpw_model_spec_init_defaults (&spec);
  bpw_scenario_init_defaults (&scenario);
  memset (&parallel, 0, sizeof parallel);
  g_assert_true (bpw_workload_load_full (model_path, 0, &spec, &scenario, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_calculon_app_from_spec (&spec, scenario.seq, &p->app, &error));
  g_assert_no_error (error);
  bp = bpw_blueprint_load (system_path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_calculon_execution_load_full (exe_path, &scenario, &parallel, &p->exe,
                                                   NULL, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_calculon_system_from_blueprint (bp, p->exe.datatype, &p->system, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_calculon_execution_check (&p->app, &p->system, &p->exe, &error));
  g_assert_no_error (error);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&scenario);
}

static double
expected_number (JsonObject *object,
                 const char *key)
{
  JsonNode *node = json_object_get_member (object, key);

  g_assert_nonnull (node);
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return (double) json_node_get_int (node);
  return json_node_get_double (node);
}

/* Exactly equal, or both of Calculon's non-finite values. */
static void
assert_same (const char *what,
             const char *key,
             double      ours,
             double      theirs)
{
  if (ours == theirs || (isnan (ours) && isnan (theirs)))
    return;
  g_test_message ("%s %s: ours %.17g, Calculon's %.17g", what, key, ours, theirs);
  g_test_fail ();
}

static void
check_run (const char *execution,
           const char *stats_file)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "calculon", stats_file,
                                                 NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  BpwCalculonLayerStats layers[BPW_CALCULON_MAX_LAYERS];
  const BpwCalculonField *fields;
  BpwCalculonStats stats;
  g_autofree char *reason = NULL;
  guint n_fields, n_layers = 0;
  JsonObject *root;
  JsonArray *expected_layers;
  Problem p;

  problem_load (&p, "calculon/gpt3-175B.json", "calculon-search/a100_80g.json", execution);
  g_assert_true (bpw_calculon_model_run (&p.app, &p.system, &p.exe, &stats, layers, &n_layers,
                                         &reason));
  g_assert_null (reason);

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));

  fields = bpw_calculon_stats_fields (&n_fields);
  g_assert_cmpuint (n_fields, ==, 96);
  for (guint i = 0; i < n_fields; i++)
    assert_same ("stat", fields[i].name,
                 *(const double *) ((const char *) &stats + fields[i].offset),
                 expected_number (root, fields[i].name));

  expected_layers = json_object_get_array_member (root, "layers");
  g_assert_cmpuint (n_layers, ==, json_array_get_length (expected_layers));
  fields = bpw_calculon_layer_stats_fields (&n_fields);
  for (guint l = 0; l < n_layers; l++)
    {
      JsonObject *expected = json_array_get_object_element (expected_layers, l);

      g_assert_cmpstr (layers[l].name, ==, json_object_get_string_member (expected, "name"));
      for (guint i = 0; i < n_fields; i++)
        assert_same (layers[l].name, fields[i].name,
                     *(const double *) ((const char *) &layers[l] + fields[i].offset),
                     expected_number (expected, fields[i].name));
    }
}

static void
test_full (void)
{
  check_run ("calculon/gpt3-175B_full.execution.json", "gpt3-175B_full_a100_80g.stats.json");
}

static void
test_seqsel (void)
{
  check_run ("calculon/gpt3-175B_seqsel.execution.json",
             "gpt3-175B_seqsel_a100_80g.stats.json");
}

/* An execution Calculon refuses with Llm.Error is "bad", with its reason. */
static void
test_refusals (void)
{
  g_autofree char *reason = NULL;
  BpwCalculonStats stats;
  Problem p;

  problem_load (&p, "calculon/gpt3-175B.json", "calculon-search/a100_80g.json",
                "calculon/gpt3-175B_seqsel.execution.json");

  /* TP 16 does not fit the 8 devices of the first tier. */
  p.exe.tensor_par = 16;
  g_assert_false (bpw_calculon_model_run (&p.app, &p.system, &p.exe, &stats, NULL, NULL,
                                          &reason));
  g_assert_cmpstr (reason, ==, "Network tier0 isn't big enough");
  g_clear_pointer (&reason, g_free);

  /* Without optimizer sharding and with no recompute, the 12 blocks of a stage hold more
   * than the 80 GiB. */
  p.exe.tensor_par = 8;
  p.exe.optimizer_sharding = FALSE;
  p.exe.data_par_overlap = FALSE;
  p.exe.activation_recompute = BPW_RECOMPUTE_NONE;
  p.exe.seq_par_ag_redo = FALSE;
  p.exe.pipeline_par = 8;
  p.exe.microbatch_size = 8;
  g_assert_false (bpw_calculon_model_run (&p.app, &p.system, &p.exe, &stats, NULL, NULL,
                                          &reason));
  g_assert_true (g_str_has_prefix (reason, "Mem tier1 needs "));
  g_clear_pointer (&reason, g_free);

  /* Offloading needs 3 or more blocks per processor: 96 blocks over PP 48 are 2. */
  p.exe.microbatch_size = 1;
  p.exe.weight_offload = TRUE;
  p.exe.pipeline_par = 48;
  p.exe.data_par = 2;
  p.exe.num_procs = 8 * 48 * 2;
  g_assert_false (bpw_calculon_model_run (&p.app, &p.system, &p.exe, &stats, NULL, NULL,
                                          &reason));
  g_assert_cmpstr (reason, ==, "Offloading requires each processor to handle at least 3 "
                   "blocks");

  /* Sizes that would not stay exact in 64 bits are refused before the model runs. */
  {
    g_autoptr(GError) error = NULL;

    p.exe = (BpwCalculonExecution) {
      .num_procs = 1, .tensor_par = 1, .pipeline_par = 1, .data_par = 1,
      .batch_size = G_GINT64_CONSTANT (1) << 30, .microbatch_size = G_GINT64_CONSTANT (1) << 30,
      .pipeline_interleaving = 1, .datatype = BPW_DTYPE_FP16, .training = TRUE,
    };
    g_assert_false (bpw_calculon_execution_check (&p.app, &p.system, &p.exe, &error));
    g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
    g_assert_nonnull (strstr (error->message, "exact 64-bit sizes"));
  }
}

/* A blueprint without what Calculon's system has is refused, naming what is missing. */
static void
test_system_needs (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "calculon-search",
                                                 "a100_80g.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load (path, NULL, &error);
  g_autoptr(BpwBlueprint) bundled = NULL;
  BpwCalculonSystem system;

  g_assert_no_error (error);
  g_assert_true (bpw_calculon_system_from_blueprint (bp, BPW_DTYPE_FP16, &system, &error));
  g_assert_cmpuint (system.n_networks, ==, 2);
  g_assert_cmpfloat (system.mem1_capacity, ==, 80.0 * 1024 * 1024 * 1024);
  g_assert_cmpfloat (system.networks[0].scalar[BPW_CALCULON_OP_ALL_REDUCE], ==, 2.0);
  g_assert_cmpfloat (system.networks[0].offset[BPW_CALCULON_OP_ALL_REDUCE], ==, -1.0);

  bp->tiers[1].ops[BPW_COLLECTIVE_SEND_RECV].set = FALSE;
  g_assert_false (bpw_calculon_system_from_blueprint (bp, BPW_DTYPE_FP16, &system, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "the op factors of tier 'net1' (ops.p2p)"));
  g_clear_error (&error);

  g_assert_false (bpw_calculon_system_from_blueprint (bp, BPW_DTYPE_FP8, &system, &error));
  g_assert_nonnull (strstr (error->message, "a matrix engine with a peak in the datatype"));
  g_clear_error (&error);

  /* The bundled blueprints interpolate their efficiency tables. */
  bundled = bpw_blueprint_load_bundled ("a100-sxm-80gb", &error);
  g_assert_no_error (error);
  g_assert_false (bpw_calculon_system_from_blueprint (bundled, BPW_DTYPE_BF16, &system,
                                                      &error));
  g_assert_nonnull (strstr (error->message, "step efficiency table"));
}

/* Calculon's block has no gated MLP, experts or grouped KV heads. */
static void
test_app_needs (void)
{
  g_autoptr(GError) error = NULL;
  BpwCalculonApp app;
  BpwModelSpec spec;

  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-70b", &spec));
  g_assert_false (bpw_calculon_app_from_spec (&spec, 4096, &app, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED);
  bpw_model_spec_clear (&spec);
  g_clear_error (&error);

  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_model_spec_lookup_bundled ("gpt3-175b", &spec));
  g_assert_true (bpw_calculon_app_from_spec (&spec, 2048, &app, &error));
  g_assert_no_error (error);
  g_assert_cmpint (app.hidden, ==, 12288);
  g_assert_cmpint (app.num_blocks, ==, 96);
  g_assert_cmpint (app.attn_size, ==, 128);
  bpw_model_spec_clear (&spec);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/CalculonModel/megatron-2021-full-recompute", test_full);
  g_test_add_func ("/bpw/core/CalculonModel/megatron-2022-seqsel", test_seqsel);
  g_test_add_func ("/bpw/core/CalculonModel/refusals", test_refusals);
  g_test_add_func ("/bpw/core/CalculonModel/system-needs", test_system_needs);
  g_test_add_func ("/bpw/core/CalculonModel/app-needs", test_app_needs);
  return g_test_run ();
}
