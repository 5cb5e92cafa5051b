/* test-workload-io.c — importers and the native workload format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-workload-io.h"

static char *
fixture (const char *relative)
{
  return g_test_build_filename (G_TEST_DIST, "data", relative, NULL);
}

static void
load_ok (const char   *relative,
         BpwModelSpec *spec)
{
  g_autofree char *path = fixture (relative);
  g_autoptr(GError) error = NULL;

  g_assert_true (bpw_workload_load (path, spec, &error));
  g_assert_no_error (error);
}

/* GPT-2 small: 124,439,808 parameters with the LM head tied to the token table
 * (the number HF reports for gpt2). Closed form: V h + P h + L (12 h^2 + 13 h) + 2 h. */
static void
test_hf_gpt2 (void)
{
  BpwModelSpec spec = { 0 };
  const guint64 h = 768, L = 12, V = 50257, P = 1024;

  load_ok ("hf/gpt2-config.json", &spec);
  g_assert_cmpint (spec.hidden, ==, 768);
  g_assert_cmpint (spec.layers, ==, 12);
  g_assert_cmpint (spec.heads, ==, 12);
  g_assert_cmpint (spec.kv_heads, ==, 12);
  g_assert_cmpint (spec.head_dim, ==, 64);
  g_assert_cmpint (spec.ffn, ==, 3072);
  g_assert_cmpint (spec.max_positions, ==, 1024);
  g_assert_cmpint (spec.ffn_kind, ==, BPW_FFN_GELU);
  g_assert_cmpint (spec.norm, ==, BPW_NORM_LAYERNORM);
  g_assert_cmpint (spec.positions, ==, BPW_POSITION_LEARNED);
  g_assert_true (spec.tied_embeddings);
  g_assert_true (spec.qkv_bias && spec.linear_bias && spec.dropout);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, 124439808);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==,
                    V * h + P * h + L * (12 * h * h + 13 * h) + 2 * h);
  bpw_model_spec_clear (&spec);
}

static void
test_hf_gpt3_as_gpt2 (void)
{
  BpwModelSpec spec = { 0 };
  const guint64 h = 12288, L = 96, V = 50257, P = 2048;

  load_ok ("hf/gpt3-175b-gpt2-config.json", &spec);
  g_assert_cmpint (spec.ffn, ==, 4 * 12288);  /* n_inner null = 4 n_embd */
  g_assert_cmpint (spec.head_dim, ==, 128);
  g_assert_cmpint (spec.param_dtype, ==, BPW_DTYPE_FP16);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==,
                    V * h + P * h + L * (12 * h * h + 13 * h) + 2 * h);
  bpw_model_spec_clear (&spec);
}

/* Meta Llama 3 8B: 8,030,261,248 parameters (untied head, GQA 32/8, SwiGLU). */
static void
test_hf_llama3_8b (void)
{
  BpwModelSpec spec = { 0 };

  load_ok ("hf/llama-3-8b/config.json", &spec);
  g_assert_cmpstr (spec.name, ==, "llama-3-8b");  /* the checkpoint folder */
  g_assert_cmpint (spec.kv_heads, ==, 8);
  g_assert_cmpint (spec.head_dim, ==, 128);
  g_assert_cmpint (spec.vocab, ==, 128256);
  g_assert_cmpint (spec.ffn_kind, ==, BPW_FFN_SWIGLU);
  g_assert_cmpint (spec.norm, ==, BPW_NORM_RMSNORM);
  g_assert_cmpint (spec.positions, ==, BPW_POSITION_ROTARY);
  g_assert_false (spec.tied_embeddings);
  g_assert_false (spec.qkv_bias || spec.linear_bias || spec.dropout);
  g_assert_cmpint (spec.param_dtype, ==, BPW_DTYPE_BF16);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, G_GUINT64_CONSTANT (8030261248));
  bpw_model_spec_clear (&spec);
}

/* Mistral 7B v0.1: 7,241,732,096 parameters. */
static void
test_hf_mistral (void)
{
  BpwModelSpec spec = { 0 };

  load_ok ("hf/mistral-7b.json", &spec);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, G_GUINT64_CONSTANT (7241732096));
  bpw_model_spec_clear (&spec);
}

/* Mixtral 8x7B: 46,702,792,704 parameters, 12,879,925,248 active (2 of 8 experts). */
static void
test_hf_mixtral (void)
{
  BpwModelSpec spec = { 0 };

  load_ok ("hf/mixtral-8x7b.json", &spec);
  g_assert_cmpint (spec.experts, ==, 8);
  g_assert_cmpint (spec.top_k, ==, 2);
  g_assert_cmpint (bpw_model_spec_expert_ffn (&spec), ==, 14336);
  g_assert_cmpfloat (spec.capacity_factor, ==, 0.0);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, G_GUINT64_CONSTANT (46702792704));
  g_assert_cmpuint (bpw_model_spec_active_parameters (&spec), ==,
                    G_GUINT64_CONSTANT (46702792704)
                    - 32 * 6 * (3 * 4096 * G_GUINT64_CONSTANT (14336)));
  bpw_model_spec_clear (&spec);
}

/* Qwen2 7B: 7,615,616,512 parameters; Q, K and V carry biases, O and the MLP do not. */
static void
test_hf_qwen2 (void)
{
  BpwModelSpec spec = { 0 };

  load_ok ("hf/qwen2-7b.json", &spec);
  g_assert_true (spec.qkv_bias);
  g_assert_false (spec.linear_bias);
  g_assert_cmpint (spec.kv_heads, ==, 4);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, G_GUINT64_CONSTANT (7615616512));
  bpw_model_spec_clear (&spec);
}

/* Calculon's gpt3-175B with its 51,200-token vocabulary: its parameter calculator prints
 * 174.616 G, which is V h + s h + L (12 h^2 + 13 h); we also count the final LayerNorm. */
static void
test_calculon_model (void)
{
  g_autofree char *path = fixture ("calculon/gpt3-175B.json");
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec = { 0 };
  BpwScenario hint;
  const guint64 h = 12288, L = 96, s = 2048;
  guint64 lpc;

  bpw_scenario_init_defaults (&hint);
  hint.seq = 1;
  g_assert_true (bpw_workload_load_full (path, 0, &spec, &hint, &error));
  g_assert_no_error (error);
  g_assert_cmpint (hint.seq, ==, 2048);
  g_assert_cmpint (spec.vocab, ==, BPW_CALCULON_DEFAULT_VOCAB);
  g_assert_cmpint (spec.head_dim, ==, 128);
  g_assert_true (spec.tied_embeddings);
  lpc = 51200 * h + s * h + L * (12 * h * h + 13 * h);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, lpc + 2 * h);
  g_assert_cmpfloat_with_epsilon (lpc / 1e9, 174.616, 0.0005);

  g_assert_true (bpw_workload_load_full (path, 50257, &spec, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==,
                    50257 * h + s * h + L * (12 * h * h + 13 * h) + 2 * h);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&hint);
}

static void
test_bundled_and_unknown_name (void)
{
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec = { 0 };

  g_assert_true (bpw_workload_load ("llama3-8b", &spec, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, G_GUINT64_CONSTANT (8030261248));

  g_assert_false (bpw_workload_load ("llama9-1t", &spec, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_str_has_prefix (error->message,
                                   "llama9-1t: no such file and no bundled model of that name"));
  bpw_model_spec_clear (&spec);
}

/* Every bundled model survives native write -> read unchanged, field by field. */
static void
test_native_round_trip (void)
{
  const char * const *names = bpw_model_spec_bundled_names ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *json = NULL;
      g_autofree char *again = NULL;
      BpwModelSpec a = { 0 }, b = { 0 };

      g_assert_true (bpw_model_spec_lookup_bundled (names[i], &a));
      json = bpw_workload_to_json (&a);
      g_assert_true (bpw_workload_load_data ("rt.json", json, -1, 0, &b, NULL, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (a.name, ==, b.name);
      g_assert_cmpint (a.vocab, ==, b.vocab);
      g_assert_cmpint (a.hidden, ==, b.hidden);
      g_assert_cmpint (a.layers, ==, b.layers);
      g_assert_cmpint (a.heads, ==, b.heads);
      g_assert_cmpint (a.kv_heads, ==, b.kv_heads);
      g_assert_cmpint (a.head_dim, ==, b.head_dim);
      g_assert_cmpint (a.ffn, ==, b.ffn);
      g_assert_cmpint (a.ffn_kind, ==, b.ffn_kind);
      g_assert_cmpint (a.norm, ==, b.norm);
      g_assert_cmpint (a.positions, ==, b.positions);
      g_assert_cmpint (a.tied_embeddings, ==, b.tied_embeddings);
      g_assert_cmpint (a.qkv_bias, ==, b.qkv_bias);
      g_assert_cmpint (a.linear_bias, ==, b.linear_bias);
      g_assert_cmpint (a.dropout, ==, b.dropout);
      g_assert_cmpint (a.experts, ==, b.experts);
      g_assert_cmpint (a.top_k, ==, b.top_k);
      g_assert_cmpint (a.param_dtype, ==, b.param_dtype);
      g_assert_cmpint (a.master_dtype, ==, b.master_dtype);
      g_assert_cmpuint (bpw_model_spec_parameters (&a), ==, bpw_model_spec_parameters (&b));
      again = bpw_workload_to_json (&b);
      g_assert_cmpstr (json, ==, again);
      bpw_model_spec_clear (&a);
      bpw_model_spec_clear (&b);
    }
}

static void
test_unknown_fields_warn (void)
{
  const char *data =
    "{\"format\": \"bpw-workload\", \"version\": 1, \"colour\": \"red\",\n"
    " \"model\": {\"vocab\": 1000, \"hidden\": 64, \"layers\": 2, \"heads\": 4, \"ffn\": 256,\n"
    "  \"max_positions\": 128, \"widht\": 3}}";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec = { 0 };

  g_assert_true (bpw_workload_load_data ("w.json", data, -1, 0, &spec, NULL, warnings, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==, "w.json:1:52: colour: unknown field");
  g_assert_cmpstr (g_ptr_array_index (warnings, 1), ==, "w.json:3:34: model.widht: unknown field");
  bpw_model_spec_clear (&spec);
}

/* The shipped examples in data/models are the bundled models, written natively. */
static void
test_shipped_examples (void)
{
  const char *root = g_getenv ("BPW_SOURCE_ROOT");
  const char * const names[] = { "gpt3-175b", "llama3-8b", "llama3-70b", "mixtral-8x7b" };

  if (root == NULL)
    {
      g_test_skip ("BPW_SOURCE_ROOT is not set");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *file = g_strconcat (names[i], ".json", NULL);
      g_autofree char *path = g_build_filename (root, "data", "models", file, NULL);
      g_autoptr(GError) error = NULL;
      BpwModelSpec a = { 0 }, b = { 0 };

      g_assert_true (bpw_workload_load (path, &a, &error));
      g_assert_no_error (error);
      g_assert_true (bpw_model_spec_lookup_bundled (names[i], &b));
      g_assert_cmpuint (bpw_model_spec_parameters (&a), ==, bpw_model_spec_parameters (&b));
      g_assert_cmpuint (bpw_model_spec_active_parameters (&a), ==,
                        bpw_model_spec_active_parameters (&b));
      bpw_model_spec_clear (&a);
      bpw_model_spec_clear (&b);
    }
}

typedef struct
{
  const char *file;
  int         code;
  const char *message;  /* after the file name */
} Broken;

static const Broken broken[] = {
  { "bad-syntax.json", BPW_ERROR_INVALID_INPUT,
    ":5:21: expected a string key after ',', got ','" },
  { "wrong-type.json", BPW_ERROR_INVALID_INPUT,
    ":7:15: model.layers: expected a positive integer, got \"96\"" },
  { "negative-layers.json", BPW_ERROR_INVALID_INPUT,
    ":7:15: model.layers: expected a positive integer, got -4" },
  { "heads-not-dividing.json", BPW_ERROR_INVALID_INPUT,
    ":8:14: model.heads: 7 heads do not divide the hidden size 1000; "
    "give the head dimension explicitly" },
  { "kv-heads-not-dividing.json", BPW_ERROR_INVALID_INPUT,
    ":9:17: model.kv_heads: 32 query heads cannot be grouped over 5 key/value heads; "
    "use a divisor of 32" },
  { "overflow-int64.json", BPW_ERROR_INVALID_INPUT,
    ":5:14: model.vocab: expected a positive integer, got 1e+20" },
  { "overflow-width.json", BPW_ERROR_INVALID_INPUT,
    ":6:15: model.hidden: expected an integer between 1 and 16777216, got 1073741824" },
  { "overflow-count.json", BPW_ERROR_OVERFLOW,
    ":4:12: model: about 3.02e+23 parameters do not fit in a 64-bit count; check hidden, "
    "layers, ffn and vocab" },
  { "unknown-format.json", BPW_ERROR_INVALID_INPUT,
    ":2:13: format: expected \"bpw-workload\", got \"bpw-blueprint\"; "
    "this is not a workload file" },
  { "not-a-workload.json", BPW_ERROR_INVALID_INPUT,
    ":1:1: not a workload: expected a bpw-workload file, a Hugging Face config.json or a "
    "Calculon model file" },
  { "hf-unsupported.json", BPW_ERROR_UNSUPPORTED,
    ":3:17: model_type: model type \"falcon\" is not supported; supported are gpt2, llama, "
    "mistral, mixtral, qwen2, deepseek_v2, deepseek_v3, llava and mllama" },
  { "hf-missing-hidden.json", BPW_ERROR_INVALID_INPUT,
    ":1:1: missing required field 'hidden_size'" },
  { "hf-deepseek-odd-rope.json", BPW_ERROR_INVALID_INPUT,
    ":38:23: qk_rope_head_dim: rotary positions rotate pairs of dimensions, so it must be "
    "even, got 63" },
  { "newer-version.json", BPW_ERROR_INVALID_INPUT,
    ":3:14: version: version 7 is newer than this program reads (1); "
    "update Blueprint Workbench" },
};

static void
test_broken_corpus (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *relative = g_build_filename ("broken", broken[i].file, NULL);
      g_autofree char *path = fixture (relative);
      g_autoptr(GError) error = NULL;
      BpwModelSpec spec = { 0 };

      g_test_message ("%s", broken[i].file);
      g_assert_false (bpw_workload_load (path, &spec, &error));
      g_assert_error (error, BPW_ERROR, broken[i].code);
      g_test_message ("  -> %s", error->message);
      /* Every message starts with the file name, then line, column and JSON path. */
      g_assert_true (g_str_has_prefix (error->message, path));
      g_assert_cmpstr (error->message + strlen (path), ==, broken[i].message);
      /* A failed load leaves a cleared spec, never a half-read one. */
      g_assert_null (spec.name);
      bpw_model_spec_clear (&spec);
    }
}

static void
test_calculon_execution (void)
{
  g_autofree char *full = fixture ("calculon/gpt3-175B_full.execution.json");
  g_autofree char *seqsel = fixture ("calculon/gpt3-175B_seqsel.execution.json");
  g_autoptr(GError) error = NULL;
  BpwCalculonExecution exec;
  BpwScenario scenario;
  BpwParallel parallel;

  bpw_scenario_init_defaults (&scenario);
  bpw_parallel_init_defaults (&parallel);
  scenario.seq = 2048;
  g_assert_true (bpw_calculon_execution_load_full (full, &scenario, &parallel, &exec, NULL,
                                                   &error));
  g_assert_no_error (error);
  g_assert_cmpint (scenario.phase, ==, BPW_WORKLOAD_TRAIN);
  g_assert_cmpint (scenario.global_batch, ==, 1536);
  g_assert_cmpint (scenario.micro_batch, ==, 1);
  g_assert_cmpint (scenario.seq, ==, 2048);  /* untouched */
  g_assert_cmpint (scenario.dtype, ==, BPW_DTYPE_FP16);
  g_assert_cmpint (scenario.recompute, ==, BPW_RECOMPUTE_FULL);
  g_assert_cmpint (parallel.tp, ==, 8);
  g_assert_cmpint (parallel.pp, ==, 8);
  g_assert_cmpint (parallel.dp, ==, 16);
  g_assert_false (parallel.sp);
  g_assert_cmpint (parallel.zero, ==, 0);
  g_assert_cmpint (parallel.schedule, ==, BPW_SCHEDULE_1F1B);
  g_assert_true (exec.fused_activation);
  g_assert_cmpint (exec.tensor_par_comm_type, ==, BPW_CALCULON_TP_COMM_AR);
  g_assert_cmpint (exec.pipeline_par_net, ==, 1);
  g_assert_cmpint (bpw_scenario_micro_batches (&scenario, &parallel), ==, 1536 / 16);

  g_assert_true (bpw_calculon_execution_load_full (seqsel, &scenario, &parallel, &exec, NULL,
                                                   &error));
  g_assert_no_error (error);
  g_assert_cmpint (scenario.recompute, ==, BPW_RECOMPUTE_SELECTIVE);
  g_assert_true (parallel.sp);
  g_assert_cmpint (parallel.zero, ==, 2);
  g_assert_true (exec.seq_par_ag_redo && exec.data_par_overlap && exec.optimizer_sharding);
  bpw_scenario_clear (&scenario);
}

static void
test_calculon_execution_broken (void)
{
  g_autofree char *path = fixture ("broken/calculon-execution-procs.json");
  g_autofree char *expected = NULL;
  g_autoptr(GError) error = NULL;
  BpwScenario scenario;
  BpwParallel parallel;

  bpw_scenario_init_defaults (&scenario);
  bpw_parallel_init_defaults (&parallel);
  g_assert_false (bpw_calculon_execution_load (path, &scenario, &parallel, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  expected = g_strdup_printf ("%s:18:16: num_procs: num_procs (1000) must equal tensor_par "
                              "\xc3\x97 pipeline_par \xc3\x97 data_par (8 \xc3\x97 8 \xc3\x97 16)",
                              path);
  g_assert_cmpstr (error->message, ==, expected);
  /* Nothing changed on failure. */
  g_assert_cmpint (parallel.tp, ==, 1);
  g_assert_cmpint (scenario.global_batch, ==, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/WorkloadIo/hf-gpt2", test_hf_gpt2);
  g_test_add_func ("/bpw/core/WorkloadIo/hf-gpt3-as-gpt2", test_hf_gpt3_as_gpt2);
  g_test_add_func ("/bpw/core/WorkloadIo/hf-llama3-8b", test_hf_llama3_8b);
  g_test_add_func ("/bpw/core/WorkloadIo/hf-mistral-7b", test_hf_mistral);
  g_test_add_func ("/bpw/core/WorkloadIo/hf-mixtral-8x7b", test_hf_mixtral);
  g_test_add_func ("/bpw/core/WorkloadIo/hf-qwen2-7b", test_hf_qwen2);
  g_test_add_func ("/bpw/core/WorkloadIo/calculon-model", test_calculon_model);
  g_test_add_func ("/bpw/core/WorkloadIo/bundled-and-unknown", test_bundled_and_unknown_name);
  g_test_add_func ("/bpw/core/WorkloadIo/native-round-trip", test_native_round_trip);
  g_test_add_func ("/bpw/core/WorkloadIo/unknown-fields-warn", test_unknown_fields_warn);
  g_test_add_func ("/bpw/core/WorkloadIo/shipped-examples", test_shipped_examples);
  g_test_add_func ("/bpw/core/WorkloadIo/broken-corpus", test_broken_corpus);
  g_test_add_func ("/bpw/core/WorkloadIo/calculon-execution", test_calculon_execution);
  g_test_add_func ("/bpw/core/WorkloadIo/calculon-execution-broken",
                   test_calculon_execution_broken);

  return g_test_run ();
}
