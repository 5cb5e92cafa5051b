/* test-sliding-window.c — sliding-window attention: import, FLOPs and KV cache
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A query at position i attends min(i + 1, W) keys (Hugging Face's sliding-window mask,
 * kv_idx > q_idx - sliding_window, on top of the causal one); a decode step at context c
 * attends min(c + 1, W). Every expected count here is summed position by position in this
 * file, never taken from the implementation's closed form.
 */
#define G_LOG_DOMAIN "bpw-test-sliding-window"
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-test-oracle.h"
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

/* Keys a causal sequence of @seq positions attends through a window, position by position. */
static guint64
keys_by_position (guint64 seq,
                  guint64 window)
{
  guint64 sum = 0;

  for (guint64 i = 0; i < seq; i++)
    sum += window == 0 ? i + 1 : MIN (i + 1, window);
  return sum;
}

/* The window the test expects for @layer: W from @first on, full attention below. */
static guint64
expected_window (guint64 window,
                 gint64  first,
                 gint64  layer)
{
  return layer >= first ? window : 0;
}

static const char *
op_name (const BpwWorkGraph *g,
         const BpwOp        *op)
{
  return g_ptr_array_index (g->names, op->name);
}

/* Sums semantic and executed FLOPs of the forward ops called @name in block @layer. */
static void
layer_op_flops (const BpwWorkGraph *g,
                const char         *name,
                gint64              layer,
                BpwU128            *semantic,
                BpwU128            *executed)
{
  *semantic = *executed = 0;
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (op->layer != layer || op->phase != BPW_PHASE_FORWARD
          || strcmp (op_name (g, op), name) != 0)
        continue;
      *semantic += (BpwU128) op->semantic_flops * op->count;
      *executed += (BpwU128) op->flops * op->count;
    }
}

static guint64
kv_cache_elements (const BpwWorkGraph *g)
{
  guint64 sum = 0;

  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = &g_array_index (g->tensors, BpwTensor, i);

      if (t->kind == BPW_TENSOR_KV_CACHE)
        sum += t->elements;
    }
  return sum;
}

/* ---- the closed form against the position-by-position sum ---- */

static void
test_causal_keys_closed_form (void)
{
  static const guint64 seqs[] = { 1, 2, 7, 64, 255, 4096, 8192 };
  static const gint64 windows[] = { 0, 1, 2, 3, 63, 64, 65, 127, 4095, 4096, 4097, 8191 };

  for (guint s = 0; s < G_N_ELEMENTS (seqs); s++)
    for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
      g_assert_cmpuint (bpw_model_spec_causal_keys (seqs[s], windows[w]), ==,
                        keys_by_position (seqs[s], windows[w]));
  /* Windows below, at and above the sequence around it, and odd sizes. */
  for (gint64 wi = 1; wi <= 40; wi++)
    for (guint64 s = 1; s <= 40; s += 3)
      g_assert_cmpuint (bpw_model_spec_causal_keys (s, wi), ==, keys_by_position (s, wi));
}

/* ---- conservation of the op counts in the work graph ---- */

static void
check_prefill (const BpwModelSpec *spec,
               gint64              seq,
               gint64              batch,
               gint64              micro,
               BpwWorkloadPhase    phase)
{
  BpwScenario sc;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) g = NULL;
  guint64 a = spec->heads, d = spec->head_dim;
  guint64 want_cache = 0;

  bpw_oracle_scenario (&sc, phase, batch, micro, seq, 0, BPW_RECOMPUTE_NONE);
  g = bpw_work_graph_new (spec, &sc, &error);
  g_assert_no_error (error);
  g_assert_nonnull (g);
  for (gint64 l = 0; l < spec->layers; l++)
    {
      guint64 w = expected_window (spec->window, spec->window_first, l);
      guint64 row = w > 0 ? MIN ((guint64) seq, w) : (guint64) seq;
      BpwU128 semantic, executed;
      BpwU128 want = (BpwU128) batch * a * 2 * d * keys_by_position (seq, w);
      BpwU128 want_exec = (BpwU128) batch * a * 2 * d * seq * row;

      layer_op_flops (g, "attn.qk", l, &semantic, &executed);
      oracle_check_u128 (semantic, want, "attn.qk semantic FLOPs");
      oracle_check_u128 (executed, want_exec, "attn.qk executed FLOPs (rows x band)");
      layer_op_flops (g, "attn.av", l, &semantic, &executed);
      oracle_check_u128 (semantic, want, "attn.av semantic FLOPs");
      oracle_check_u128 (executed, want_exec, "attn.av executed FLOPs (rows x band)");
      want_cache += 2 * (guint64) micro * row * spec->kv_heads * d;
    }
  if (phase != BPW_WORKLOAD_TRAIN)
    g_assert_cmpuint (kv_cache_elements (g), ==, want_cache);
}

static void
small_spec (BpwModelSpec *spec,
            gint64        window,
            gint64        first)
{
  bpw_oracle_llama2_7b_spec (spec);
  spec->hidden = 256;
  spec->heads = 4;
  spec->kv_heads = 2;
  spec->head_dim = 64;
  spec->ffn = 512;
  spec->vocab = 1000;
  spec->layers = 4;
  spec->window = window;
  spec->window_first = first;
}

static void
test_graph_crossing_windows (void)
{
  static const gint64 seqs[] = { 1, 7, 16, 33 };
  static const gint64 windows[] = { 1, 5, 15, 16, 17, 33, 64 };

  for (guint s = 0; s < G_N_ELEMENTS (seqs); s++)
    for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
      for (gint64 first = 0; first <= 2; first += 2)
        {
          BpwModelSpec spec;

          small_spec (&spec, windows[w], first);
          check_prefill (&spec, seqs[s], 2, 1, BPW_WORKLOAD_PREFILL);
          check_prefill (&spec, seqs[s], 4, 2, BPW_WORKLOAD_TRAIN);
          bpw_model_spec_clear (&spec);
        }
}

/* Training's backward matmuls of the attention core follow the same band: 2x forward. */
static void
test_training_backward_band (void)
{
  BpwModelSpec spec;
  BpwFacts facts, windowless;
  BpwScenario sc;
  BpwParallel p;
  g_autoptr(GError) error = NULL;
  const gint64 seq = 33, w = 5, batch = 4;
  guint64 a, d;
  BpwU128 drop;

  small_spec (&spec, w, 0);
  a = spec.heads;
  d = spec.head_dim;
  bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, batch, 1, seq, 0, BPW_RECOMPUTE_NONE);
  bpw_oracle_parallel (&p, 1, 1, 1, FALSE, 0);
  g_assert_true (bpw_facts_compute (&spec, &sc, &p, &facts, &error));
  g_assert_no_error (error);
  spec.window = 0;
  g_assert_true (bpw_facts_compute (&spec, &sc, &p, &windowless, &error));
  g_assert_no_error (error);
  /* Semantic: QK and AV forward (2 x 2d per key) and their backward (2 x 4d). */
  drop = (BpwU128) spec.layers * batch * a * 12 * d
         * (keys_by_position (seq, 0) - keys_by_position (seq, w));
  /* Softmax: 5 forward + 10 backward per score, also on the band only. */
  drop += (BpwU128) spec.layers * batch * a * 15
          * (keys_by_position (seq, 0) - keys_by_position (seq, w));
  oracle_check_u128 (windowless.flops_semantic - facts.flops_semantic, drop,
                     "semantic FLOPs the window saves");
  bpw_facts_clear (&facts);
  bpw_facts_clear (&windowless);
  bpw_model_spec_clear (&spec);
}

/* ---- the analytic fast path agrees with the graph ---- */

static void
test_analytic_agrees (void)
{
  static const gint64 firsts[] = { 0, 1, 3, 4 };

  for (guint i = 0; i < G_N_ELEMENTS (firsts); i++)
    for (int phase = BPW_WORKLOAD_TRAIN; phase <= BPW_WORKLOAD_DECODE; phase++)
      {
        BpwModelSpec spec;
        BpwScenario sc;
        BpwParallel p;
        BpwFacts full, fast;
        g_autoptr(GError) error = NULL;

        small_spec (&spec, 9, firsts[i]);
        spec.experts = 4;
        spec.top_k = 2;
        spec.moe_every = 2;
        spec.moe_first = 1;
        bpw_oracle_scenario (&sc, phase, 4, 2, 40, 30, BPW_RECOMPUTE_NONE);
        bpw_oracle_parallel (&p, 2, 1, 1, FALSE, 0);
        g_assert_true (bpw_facts_compute (&spec, &sc, &p, &full, &error));
        g_assert_no_error (error);
        g_assert_true (bpw_facts_compute_analytic (&spec, &sc, &p, &fast, &error));
        g_assert_no_error (error);
        oracle_check_u128 (fast.flops_semantic, full.flops_semantic, "semantic FLOPs");
        oracle_check_u128 (fast.flops_model, full.flops_model, "model FLOPs");
        oracle_check_u128 (fast.flops_hardware, full.flops_hardware, "hardware FLOPs");
        oracle_check_u128 (fast.kv_bytes_per_sequence, full.kv_bytes_per_sequence,
                           "KV bytes per sequence");
        bpw_facts_clear (&full);
        bpw_facts_clear (&fast);
        bpw_model_spec_clear (&spec);
      }
}

/* ---- published Hugging Face configs ---- */

static void
test_hf_mistral_v01 (void)
{
  BpwModelSpec spec = { 0 };

  load_ok ("hf/mistral-7b.json", &spec);
  g_assert_cmpint (spec.window, ==, 4096);
  g_assert_cmpint (spec.window_first, ==, 0);
  g_assert_cmpint (bpw_model_spec_window_layers (&spec), ==, 32);
  check_prefill (&spec, 8192, 1, 1, BPW_WORKLOAD_PREFILL);
  check_prefill (&spec, 32768, 1, 1, BPW_WORKLOAD_PREFILL);
  bpw_model_spec_clear (&spec);
}

static void
test_hf_mistral_null_window (void)
{
  BpwModelSpec spec = { 0 };

  load_ok ("hf/mistral-7b-instruct-v0.2.json", &spec);
  g_assert_cmpint (spec.window, ==, 0);
  g_assert_cmpint (bpw_model_spec_window_layers (&spec), ==, 0);
  check_prefill (&spec, 8192, 1, 1, BPW_WORKLOAD_PREFILL);
  bpw_model_spec_clear (&spec);
}

static void
test_hf_qwen2 (void)
{
  BpwModelSpec off = { 0 }, on = { 0 };

  /* Qwen2-7B as published: use_sliding_window false, so the 131072 window is not used. */
  load_ok ("hf/qwen2-7b.json", &off);
  g_assert_cmpint (off.window, ==, 0);
  check_prefill (&off, 8192, 1, 1, BPW_WORKLOAD_PREFILL);

  /* The same model with use_sliding_window true: layers 0..13 (below max_window_layers)
   * attend fully, 14..27 through 4096 tokens. */
  load_ok ("hf/qwen2-7b-use-sliding-window.json", &on);
  g_assert_cmpint (on.window, ==, 4096);
  g_assert_cmpint (on.window_first, ==, 14);
  g_assert_cmpint (bpw_model_spec_window_layers (&on), ==, 14);
  g_assert_cmpint (bpw_model_spec_layer_window (&on, 13), ==, 0);
  g_assert_cmpint (bpw_model_spec_layer_window (&on, 14), ==, 4096);
  check_prefill (&on, 8192, 1, 1, BPW_WORKLOAD_PREFILL);
  check_prefill (&on, 32768, 1, 1, BPW_WORKLOAD_PREFILL);
  bpw_model_spec_clear (&off);
  bpw_model_spec_clear (&on);
}

/* transformers' defaults and switches, each on a small config: MistralConfig's
 * sliding_window defaults to 4096, MixtralConfig's to none; Qwen2's window needs
 * use_sliding_window (default false), and max_window_layers (default 28) full layers come
 * first, so that a window over no layer is no window. */
static void
test_hf_defaults (void)
{
  static const struct
  {
    const char *type, *extra;
    gint64      window, first;
  } cases[] = {
    { "mistral", "", 4096, 0 },
    { "mistral", ", \"sliding_window\": null", 0, 0 },
    { "mistral", ", \"sliding_window\": 33", 33, 0 },
    { "mixtral", ", \"num_local_experts\": 4, \"num_experts_per_tok\": 2", 0, 0 },
    { "mixtral", ", \"num_local_experts\": 4, \"num_experts_per_tok\": 2, "
                 "\"sliding_window\": 7", 7, 0 },
    { "qwen2", ", \"sliding_window\": 64, \"max_window_layers\": 1", 0, 0 },
    { "qwen2", ", \"use_sliding_window\": true, \"sliding_window\": 64", 0, 0 },
    { "qwen2", ", \"use_sliding_window\": true, \"sliding_window\": 64, "
               "\"max_window_layers\": 1", 64, 1 },
    { "qwen2", ", \"use_sliding_window\": true, \"sliding_window\": null, "
               "\"max_window_layers\": 1", 0, 0 },
    { "qwen2", ", \"use_sliding_window\": true, \"sliding_window\": 64, "
               "\"max_window_layers\": 0", 64, 0 },
    { "llama", ", \"sliding_window\": 64", 0, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      BpwModelSpec spec = { 0 };
      g_autoptr(GError) error = NULL;
      g_autofree char *json = g_strdup_printf (
        "{\"model_type\": \"%s\", \"hidden_size\": 64, \"num_hidden_layers\": 3,"
        " \"num_attention_heads\": 2, \"intermediate_size\": 128, \"vocab_size\": 100%s}",
        cases[i].type, cases[i].extra);

      g_test_message ("%s", json);
      g_assert_true (bpw_workload_load_data ("config.json", json, -1, 0, &spec, NULL, NULL,
                                             &error));
      g_assert_no_error (error);
      g_assert_cmpint (spec.window, ==, cases[i].window);
      g_assert_cmpint (spec.window_first, ==, cases[i].first);
      bpw_model_spec_clear (&spec);
    }
}

/* KV bytes of one sequence and decode at a context beyond the window. */
static void
check_kv_and_decode (const char *file,
                     gint64      context)
{
  BpwModelSpec spec = { 0 };
  BpwScenario sc;
  BpwParallel p;
  BpwFacts facts;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) g = NULL;
  guint64 slots = 0, cache = 0;
  const gint64 batch = 8;

  load_ok (file, &spec);
  bpw_oracle_scenario (&sc, BPW_WORKLOAD_DECODE, batch, batch, 1, context, BPW_RECOMPUTE_NONE);
  bpw_oracle_parallel (&p, 1, 1, 1, FALSE, 0);
  g = bpw_work_graph_new (&spec, &sc, &error);
  g_assert_no_error (error);
  for (gint64 l = 0; l < spec.layers; l++)
    {
      guint64 w = expected_window (spec.window, spec.window_first, l);
      guint64 keys = w > 0 ? MIN ((guint64) context + 1, w) : (guint64) context + 1;
      BpwU128 semantic, executed;

      layer_op_flops (g, "attn.qk", l, &semantic, &executed);
      oracle_check_u128 (semantic, (BpwU128) batch * spec.heads * 2 * spec.head_dim * keys,
                         "decode attn.qk FLOPs");
      oracle_check_u128 (executed, semantic, "decode attn.qk executed = semantic");
      slots += keys;
    }
  cache = 2 * (guint64) batch * slots * spec.kv_heads * spec.head_dim;
  g_assert_cmpuint (kv_cache_elements (g), ==, cache);

  g_assert_true (bpw_facts_compute (&spec, &sc, &p, &facts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (facts.kv_bytes_per_sequence, ==,
                    2 * slots * spec.kv_heads * spec.head_dim * 2 /* bf16 */);
  g_assert_cmpuint (facts.memory.kv_cache, ==, 2 * cache);
  bpw_facts_clear (&facts);
  bpw_model_spec_clear (&spec);
}

static void
test_decode_beyond_window (void)
{
  check_kv_and_decode ("hf/mistral-7b.json", 10000);
  check_kv_and_decode ("hf/mistral-7b.json", 4095);
  check_kv_and_decode ("hf/mistral-7b.json", 32767);
  check_kv_and_decode ("hf/qwen2-7b-use-sliding-window.json", 10000);
  check_kv_and_decode ("hf/qwen2-7b.json", 10000);
}

/* KV bytes per sequence at prefill of 8192 and 32768 tokens: 32 layers x 4096 positions for
 * Mistral whatever the length beyond W. */
static void
test_kv_bytes_prefill (void)
{
  static const gint64 seqs[] = { 8192, 32768 };

  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    {
      BpwModelSpec mistral = { 0 }, qwen = { 0 };
      BpwScenario sc;
      BpwParallel p;
      BpwFacts facts;
      g_autoptr(GError) error = NULL;

      bpw_oracle_scenario (&sc, BPW_WORKLOAD_PREFILL, 1, 1, seqs[i], 0, BPW_RECOMPUTE_NONE);
      bpw_oracle_parallel (&p, 1, 1, 1, FALSE, 0);
      load_ok ("hf/mistral-7b.json", &mistral);
      g_assert_true (bpw_facts_compute_analytic (&mistral, &sc, &p, &facts, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (facts.kv_bytes_per_sequence, ==, 2ull * 32 * 4096 * 8 * 128 * 2);
      g_assert_cmpuint (facts.kv_bytes_per_token, ==, 2ull * 32 * 8 * 128 * 2);
      load_ok ("hf/qwen2-7b-use-sliding-window.json", &qwen);
      g_assert_true (bpw_facts_compute_analytic (&qwen, &sc, &p, &facts, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (facts.kv_bytes_per_sequence, ==,
                        2ull * (14 * (guint64) seqs[i] + 14 * 4096) * 4 * 128 * 2);
      bpw_model_spec_clear (&mistral);
      bpw_model_spec_clear (&qwen);
    }
}

/* ---- the closed-form estimate search uses ---- */

/* The estimator binds a two-block model: a window on only the upper layers (Qwen2's
 * max_window_layers = 14 of 28) must not be refused there, and its model FLOPs are the
 * analytic ones, window included. Also uniform Mistral. */
static void
test_estimator (void)
{
  static const char * const files[] = {
    "hf/qwen2-7b-use-sliding-window.json", "hf/mistral-7b.json",
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      BpwModelSpec spec = { 0 };
      BpwScenario sc;
      BpwParallel single;
      BpwMapping mapping;
      BpwEvaluation eval;
      BpwFacts facts;
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
      g_autoptr(BpwEstimator) est = NULL;

      g_assert_no_error (error);
      load_ok (files[i], &spec);
      bpw_oracle_scenario (&sc, BPW_WORKLOAD_PREFILL, 1, 1, 32768, 0, BPW_RECOMPUTE_NONE);
      bpw_oracle_parallel (&single, 1, 1, 1, FALSE, 0);
      g_assert_true (bpw_facts_compute_analytic (&spec, &sc, &single, &facts, &error));
      g_assert_no_error (error);
      est = bpw_estimator_new (&spec, &sc, bp, &error);
      g_assert_no_error (error);
      bpw_mapping_init_defaults (&mapping);
      mapping.parallel.pp = 2;
      g_assert_true (bpw_estimator_evaluate (est, &mapping, &eval, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (eval.model_flops, ==, bpw_u128_to_double (facts.flops_model));
      bpw_facts_clear (&facts);
      bpw_mapping_clear (&mapping);
      g_clear_pointer (&est, bpw_estimator_free);
      bpw_model_spec_clear (&spec);
    }
}

/* Full and windowed blocks are bound apart and counted per stage: over 2 or 4 stages,
 * Qwen2's 14 full and 14 windowed layers fall unevenly (7 + 7 + 7 + 7: two stages of
 * each kind), and the estimate equals the plan of the whole model. The two-block mean gave
 * every stage half of each. */
static void
test_estimator_by_kind (void)
{
  static const gint64 pps[] = { 2, 4, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  BpwModelSpec spec = { 0 };

  g_assert_no_error (error);
  load_ok ("hf/qwen2-7b-use-sliding-window.json", &spec);
  for (guint i = 0; i < G_N_ELEMENTS (pps); i++)
    {
      g_autoptr(BpwEstimator) est = NULL;
      g_autoptr(BpwWorkGraph) graph = NULL;
      g_autoptr(BpwPlan) plan = NULL;
      BpwDistWork *dist;
      BpwScenario sc;
      BpwMapping mapping;
      BpwEvaluation full, fast;

      bpw_oracle_scenario (&sc, BPW_WORKLOAD_PREFILL, 4, 1, 16384, 0, BPW_RECOMPUTE_NONE);
      bpw_mapping_init_defaults (&mapping);
      mapping.parallel.pp = pps[i];
      graph = bpw_work_graph_new (&spec, &sc, &error);
      g_assert_no_error (error);
      dist = bpw_dist_work_new (g_steal_pointer (&graph), &mapping.parallel, &error);
      g_assert_no_error (error);
      plan = bpw_plan_new (dist, bp, &mapping, &error);
      g_assert_no_error (error);
      bpw_evaluation_from_plan (plan, &full);
      est = bpw_estimator_new (&spec, &sc, bp, &error);
      g_assert_no_error (error);
      g_assert_true (bpw_estimator_evaluate (est, &mapping, &fast, NULL, &error));
      g_assert_no_error (error);
      g_test_message ("qwen2 pp %" G_GINT64_FORMAT ": plan %.9f s, estimate %.9f s", pps[i],
                      full.step_time_s, fast.step_time_s);
      g_assert_cmpfloat (fabs (full.step_time_s - fast.step_time_s), <=,
                         1e-9 * full.step_time_s);
      g_assert_cmpint (full.slowest_stage, ==, fast.slowest_stage);
      bpw_mapping_clear (&mapping);
    }
  bpw_model_spec_clear (&spec);
}

/* ---- the native format and bad values ---- */

static void
test_native_round_trip (void)
{
  BpwModelSpec spec = { 0 }, back = { 0 };
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;

  load_ok ("hf/qwen2-7b-use-sliding-window.json", &spec);
  json = bpw_workload_to_json (&spec);
  g_assert_nonnull (strstr (json, "\"sliding_window\""));
  g_assert_true (bpw_workload_load_data ("qwen.json", json, -1, 0, &back, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (back.window, ==, 4096);
  g_assert_cmpint (back.window_first, ==, 14);
  g_free (back.source);
  back.source = g_strdup (spec.source);
  g_assert_true (bpw_model_spec_equal (&spec, &back));
  back.window_first = 13;
  g_assert_false (bpw_model_spec_equal (&spec, &back));
  bpw_model_spec_clear (&spec);
  bpw_model_spec_clear (&back);
}

static void
load_fails (const char *filename,
            const char *data,
            const char *want_location,
            const char *want_field)
{
  BpwModelSpec spec = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_false (bpw_workload_load_data (filename, data, -1, 0, &spec, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, want_location));
  g_assert_nonnull (strstr (error->message, want_field));
  bpw_model_spec_clear (&spec);
}

static void
test_bad_values (void)
{
  load_fails ("w.json",
              "{\"format\": \"bpw-workload\", \"version\": 1, \"model\": {\n"
              "  \"vocab\": 100, \"hidden\": 64, \"layers\": 2, \"heads\": 2, \"ffn\": 128,\n"
              "  \"max_positions\": 64, \"sliding_window\": -1}}",
              "w.json:3:", "sliding_window");
  load_fails ("w.json",
              "{\"format\": \"bpw-workload\", \"version\": 1, \"model\": {\n"
              "  \"vocab\": 100, \"hidden\": 64, \"layers\": 2, \"heads\": 2, \"ffn\": 128,\n"
              "  \"max_positions\": 64, \"sliding_window\": 16,\n"
              "  \"window_first_layer\": 3}}",
              "w.json:4:", "window_first_layer");
  load_fails ("config.json",
              "{\"model_type\": \"mistral\", \"hidden_size\": 64, \"num_hidden_layers\": 2,\n"
              " \"num_attention_heads\": 2, \"intermediate_size\": 128, \"vocab_size\": 100,\n"
              " \"sliding_window\": 0}",
              "config.json:3:", "sliding_window");
  load_fails ("config.json",
              "{\"model_type\": \"qwen2\", \"hidden_size\": 64, \"num_hidden_layers\": 2,\n"
              " \"num_attention_heads\": 2, \"intermediate_size\": 128, \"vocab_size\": 100,\n"
              " \"use_sliding_window\": true, \"sliding_window\": 8,\n"
              " \"max_window_layers\": \"two\"}",
              "config.json:4:", "max_window_layers");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_set_nonfatal_assertions ();
  g_test_add_func ("/sliding-window/closed-form", test_causal_keys_closed_form);
  g_test_add_func ("/sliding-window/graph-crossing-windows", test_graph_crossing_windows);
  g_test_add_func ("/sliding-window/training-backward", test_training_backward_band);
  g_test_add_func ("/sliding-window/analytic-agrees", test_analytic_agrees);
  g_test_add_func ("/sliding-window/hf-mistral-v0.1", test_hf_mistral_v01);
  g_test_add_func ("/sliding-window/hf-mistral-null", test_hf_mistral_null_window);
  g_test_add_func ("/sliding-window/hf-qwen2", test_hf_qwen2);
  g_test_add_func ("/sliding-window/hf-defaults", test_hf_defaults);
  g_test_add_func ("/sliding-window/decode-beyond-window", test_decode_beyond_window);
  g_test_add_func ("/sliding-window/kv-bytes-prefill", test_kv_bytes_prefill);
  g_test_add_func ("/sliding-window/estimator", test_estimator);
  g_test_add_func ("/sliding-window/estimator-by-kind", test_estimator_by_kind);
  g_test_add_func ("/sliding-window/native-round-trip", test_native_round_trip);
  g_test_add_func ("/sliding-window/bad-values", test_bad_values);
  return g_test_run ();
}
