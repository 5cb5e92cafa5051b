/* test-facts-closed-form.c — parameters and FLOPs against published closed forms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every expected value here is computed from the spec's fields with formulas written out here
 * and in bpw-test-oracle.c (Megatron-LM Eq. (2)/(3), Korthikanti App. A, PaLM's MFU), never
 * copied from the implementation. Published constants (8.03e9 for Llama-3-8B, ...) are
 * checked separately, so that a wrong bundled spec and a wrong formula both show up.
 */
#define G_LOG_DOMAIN "bpw-test-facts-closed-form"
#include "config.h"

#include <string.h>

#include "bpw-test-oracle.h"

#define check_u128 oracle_check_u128
#define check_rel oracle_check_rel

static void
train_scenario (BpwScenario *sc, gint64 batch, gint64 micro, gint64 seq, BpwRecompute rc)
{
  bpw_oracle_scenario (sc, BPW_WORKLOAD_TRAIN, batch, micro, seq, 0, rc);
}

static void
parallel (BpwParallel *p, gint64 tp, gint64 pp, gint64 dp)
{
  bpw_oracle_parallel (p, tp, pp, dp, FALSE, 0);
}

/* Whole-job FLOPs of graph ops matching a phase and a primitive set. */
static BpwU128
graph_sum (const BpwWorkGraph *g, int phase, gboolean matmul_only, gboolean blocks_only)
{
  BpwU128 sum = 0;
  guint i;

  for (i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (phase >= 0 && op->phase != phase)
        continue;
      if (matmul_only && op->primitive != BPW_PRIM_MATMUL
          && op->primitive != BPW_PRIM_BATCHED_MATMUL)
        continue;
      if (blocks_only && op->layer < 0)
        continue;
      sum += (BpwU128) op->flops * op->count;
    }
  return sum;
}

/* ---- parameters ---- */

static void
test_parameters_gpt3 (void)
{
  BpwModelSpec s;
  guint64 l, h, v, pos, eq2;

  bpw_oracle_lookup ("gpt3-175b", &s);
  /* Brown et al. 2020 Table 2.1 dims. */
  g_assert_cmpint (s.hidden, ==, 12288);
  g_assert_cmpint (s.layers, ==, 96);
  g_assert_cmpint (s.heads, ==, 96);
  g_assert_cmpint (s.kv_heads, ==, 96);
  g_assert_cmpint (s.head_dim, ==, 128);
  g_assert_cmpint (s.ffn, ==, 49152);
  g_assert_cmpint (s.max_positions, ==, 2048);
  g_assert_cmpint (s.ffn_kind, ==, BPW_FFN_GELU);
  g_assert_cmpint (s.norm, ==, BPW_NORM_LAYERNORM);
  g_assert_cmpint (s.positions, ==, BPW_POSITION_LEARNED);
  g_assert_true (s.tied_embeddings && s.qkv_bias && s.linear_bias && s.dropout);
  g_assert_cmpint (s.experts, ==, 0);
  /* GPT-2 BPE (50257) or Megatron's padded 51200. */
  g_assert_true (s.vocab == 50257 || s.vocab == 51200);

  l = s.layers;
  h = s.hidden;
  v = s.vocab;
  pos = s.max_positions;
  /* Megatron Eq. (2): 12lh^2 + 13lh + Vh + sh, plus the final LayerNorm (2h) it leaves out. */
  eq2 = 12 * l * h * h + 13 * l * h + v * h + pos * h + 2 * h;
  g_assert_cmpuint (bpw_oracle_parameters (&s, FALSE), ==, eq2);
  g_assert_cmpuint (bpw_model_spec_parameters (&s), ==, eq2);
  g_assert_cmpuint (bpw_model_spec_active_parameters (&s), ==, eq2);
  g_assert_cmpuint (bpw_model_spec_layer_parameters (&s, 0), ==, 12 * h * h + 13 * h);
  g_assert_cmpuint (bpw_model_spec_layer_parameters (&s, 95), ==, 12 * h * h + 13 * h);
  g_assert_cmpuint (bpw_model_spec_embedding_parameters (&s), ==, v * h + pos * h);
  g_assert_cmpuint (bpw_model_spec_head_parameters (&s), ==, 2 * h);
  /* Published: "175B"; Narayanan Table 2 gives 174.6B. */
  check_rel (eq2, 175e9, 0.005, "gpt3-175b parameters vs 175e9");
  check_rel (eq2, 174.6e9, 0.001, "gpt3-175b parameters vs 174.6e9");
  bpw_model_spec_clear (&s);
}

static void
check_llama (const char *name, gint64 h, gint64 l, gint64 a, gint64 f, double published)
{
  BpwModelSpec s;
  guint64 p;

  bpw_oracle_lookup (name, &s);
  /* Llama 3 herd paper, Table 3, and the published config.json files. */
  g_assert_cmpint (s.hidden, ==, h);
  g_assert_cmpint (s.layers, ==, l);
  g_assert_cmpint (s.heads, ==, a);
  g_assert_cmpint (s.kv_heads, ==, 8);
  g_assert_cmpint (s.head_dim, ==, 128);
  g_assert_cmpint (s.ffn, ==, f);
  g_assert_cmpint (s.vocab, ==, 128256);
  g_assert_cmpint (s.ffn_kind, ==, BPW_FFN_SWIGLU);
  g_assert_cmpint (s.norm, ==, BPW_NORM_RMSNORM);
  g_assert_cmpint (s.positions, ==, BPW_POSITION_ROTARY);
  g_assert_false (s.tied_embeddings || s.qkv_bias || s.linear_bias);
  g_assert_cmpint (s.experts, ==, 0);

  p = bpw_oracle_parameters (&s, FALSE);
  /* Written out once more for GQA + SwiGLU + RMSNorm, untied, no bias. */
  g_assert_cmpuint (p, ==, 2 * (guint64) s.vocab * h + (guint64) h
                           + (guint64) l * ((guint64) h * (a + 16) * 128 + (guint64) a * 128 * h
                                            + 3 * (guint64) h * f + 2 * (guint64) h));
  g_assert_cmpuint (bpw_model_spec_parameters (&s), ==, p);
  g_assert_cmpuint (bpw_model_spec_active_parameters (&s), ==, p);
  g_assert_cmpuint (bpw_model_spec_embedding_parameters (&s), ==, (guint64) s.vocab * h);
  g_assert_cmpuint (bpw_model_spec_head_parameters (&s), ==, (guint64) s.vocab * h + h);
  check_rel (p, published, 0.005, name);
  bpw_model_spec_clear (&s);
}

static void
test_parameters_llama3 (void)
{
  check_llama ("llama3-8b", 4096, 32, 32, 14336, 8.03e9);
  check_llama ("llama3-70b", 8192, 80, 64, 28672, 70.55e9);
  check_llama ("llama3-405b", 16384, 126, 128, 53248, 405e9);
}

static void
test_parameters_mixtral (void)
{
  BpwModelSpec s;
  guint64 total, active;

  bpw_oracle_lookup ("mixtral-8x7b", &s);
  g_assert_cmpint (s.hidden, ==, 4096);
  g_assert_cmpint (s.layers, ==, 32);
  g_assert_cmpint (s.heads, ==, 32);
  g_assert_cmpint (s.kv_heads, ==, 8);
  g_assert_cmpint (s.head_dim, ==, 128);
  g_assert_cmpint (bpw_oracle_expert_ffn (&s), ==, 14336);
  g_assert_cmpint (s.vocab, ==, 32000);
  g_assert_cmpint (s.experts, ==, 8);
  g_assert_cmpint (s.top_k, ==, 2);
  g_assert_cmpint (s.shared_experts, ==, 0);
  g_assert_true (bpw_oracle_is_moe_layer (&s, 0) && bpw_oracle_is_moe_layer (&s, 31));

  total = bpw_oracle_parameters (&s, FALSE);
  active = bpw_oracle_parameters (&s, TRUE);
  g_assert_cmpuint (bpw_model_spec_parameters (&s), ==, total);
  g_assert_cmpuint (bpw_model_spec_active_parameters (&s), ==, active);
  /* Jiang et al. 2024: 46.7B total, 12.9B active. */
  check_rel (total, 46.7e9, 0.005, "mixtral total parameters");
  check_rel (active, 12.9e9, 0.005, "mixtral active parameters");
  bpw_model_spec_clear (&s);
}

/* ---- FLOPs ---- */

static void
test_flops_gpt3 (void)
{
  BpwModelSpec s;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts f;
  BpwU128 B = 8, S = 2048, L, h, V, want;

  bpw_oracle_lookup ("gpt3-175b", &s);
  train_scenario (&sc, (gint64) B, 2, (gint64) S, BPW_RECOMPUTE_NONE);
  parallel (&p, 1, 1, 1);
  L = s.layers;
  h = s.hidden;
  V = s.vocab;
  /* Korthikanti Eq. (7): 72BLsh^2 (1 + s/6h + V/12hL), in integers. */
  want = 72 * B * S * L * h * h + 12 * B * L * S * S * h + 6 * B * S * h * V;
  check_u128 (bpw_oracle_model_flops (&s, (gint64) B, (gint64) S), want, "oracle self-check");
  if (bpw_oracle_compute (&s, &sc, &p, &f))
    {
      check_u128 (f.flops_model, want, "gpt3-175b flops.model");
      check_u128 (f.tokens_per_step, B * S, "tokens_per_step");
      g_assert_cmpint (f.micro_batches, ==, 4);
      g_assert_cmpuint (f.parameters, ==, bpw_oracle_parameters (&s, FALSE));
      check_u128 (f.flops_by_phase[BPW_PHASE_RECOMPUTE], 0, "no recompute phase");
      g_assert_true (f.flops_hardware >= f.flops_model);
      /* Non-matmul work (norms, softmax, GeLU, dropout, optimizer) is well under 1%. */
      check_rel (bpw_u128_to_double (f.flops_hardware), (double) want, 0.01,
                 "hardware vs model, no recompute");
    }
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&s);
}

static void
check_model_flops (const char *name, gint64 batch, gint64 seq)
{
  BpwModelSpec s;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts f;

  bpw_oracle_lookup (name, &s);
  /* Model FLOPs are semantic: capacity padding must never enter them. */
  s.capacity_factor = 0.0;
  train_scenario (&sc, batch, 1, seq, BPW_RECOMPUTE_NONE);
  parallel (&p, 1, 1, 1);
  if (bpw_oracle_compute (&s, &sc, &p, &f))
    {
      check_u128 (f.flops_model, bpw_oracle_model_flops (&s, batch, seq), name);
      g_assert_cmpuint (f.active_parameters, ==, bpw_oracle_parameters (&s, TRUE));
    }
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&s);
}

static void
test_flops_gqa (void)
{
  BpwModelSpec s;
  BpwU128 per, T = 2 * 4096;

  /* The GQA/SwiGLU per-token formula written out for llama3-8b. */
  bpw_oracle_lookup ("llama3-8b", &s);
  per = 32 * ((BpwU128) 2 * 4096 * (32 + 16) * 128 + 2 * 32 * 128 * 4096
              + 6 * (BpwU128) 4096 * 14336 + 4 * 32 * 128 * (BpwU128) 4096)
        + 2 * (BpwU128) 4096 * 128256;
  check_u128 (bpw_oracle_model_flops (&s, 2, 4096), 3 * T * per, "llama3-8b oracle written out");
  /* PaLM: model FLOPs per token = 6N + 12LHQT, N excluding the embedding table only. */
  check_u128 (3 * per,
              6 * (BpwU128) (bpw_oracle_parameters (&s, FALSE) - 32 * 2 * 4096 - 4096
                             - (guint64) 128256 * 4096)
              + 12 * (BpwU128) 32 * 32 * 128 * 4096,
              "llama3-8b vs PaLM 6N + 12LHQT");
  bpw_model_spec_clear (&s);

  check_model_flops ("llama3-8b", 2, 4096);
  check_model_flops ("llama3-70b", 2, 8192);
  check_model_flops ("llama3-405b", 1, 8192);
}

static void
test_flops_mixtral (void)
{
  check_model_flops ("mixtral-8x7b", 4, 4096);
}

/* Megatron Eq. (3) (full recompute) and the selective-recompute addition. */
static void
test_flops_recompute (void)
{
  BpwModelSpec s;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts f;
  BpwU128 B = 4, S = 2048, L, h, V, model, eq3, sel;

  bpw_oracle_lookup ("gpt3-175b", &s);
  parallel (&p, 1, 1, 1);
  L = s.layers;
  h = s.hidden;
  V = s.vocab;
  model = 72 * B * S * L * h * h + 12 * B * L * S * S * h + 6 * B * S * h * V;
  /* 96 BslH^2 (1 + s/6h + V/16lh): four passes over the blocks, three over the logits. */
  eq3 = 96 * B * S * L * h * h + 16 * B * S * S * L * h + 6 * B * S * h * V;
  /* Selective recomputes only QK^T and AV: 2Bs^2h + 2Bs^2h per layer. */
  sel = 4 * B * S * S * h * L;

  train_scenario (&sc, (gint64) B, 1, (gint64) S, BPW_RECOMPUTE_FULL);
  if (bpw_oracle_compute (&s, &sc, &p, &f))
    {
      check_u128 (f.flops_model, model, "flops.model ignores full recompute");
      g_assert_true (f.flops_hardware >= eq3);
      check_rel (bpw_u128_to_double (f.flops_hardware), (double) eq3, 0.01,
                 "hardware FLOPs vs Megatron Eq. (3)");
      g_assert_true (f.flops_by_phase[BPW_PHASE_RECOMPUTE] >= eq3 - model);
      check_rel (bpw_u128_to_double (f.flops_by_phase[BPW_PHASE_RECOMPUTE]),
                 (double) (eq3 - model), 0.01, "full recompute phase vs one block forward");
    }
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);

  train_scenario (&sc, (gint64) B, 1, (gint64) S, BPW_RECOMPUTE_SELECTIVE);
  if (bpw_oracle_compute (&s, &sc, &p, &f))
    {
      check_u128 (f.flops_model, model, "flops.model ignores selective recompute");
      g_assert_true (f.flops_hardware >= model + sel);
      check_rel (bpw_u128_to_double (f.flops_hardware), (double) (model + sel), 0.01,
                 "hardware FLOPs, selective");
      g_assert_true (f.flops_by_phase[BPW_PHASE_RECOMPUTE] >= sel);
      /* Softmax and dropout on a*s^2 elements ride along: a few percent of the BMMs. */
      check_rel (bpw_u128_to_double (f.flops_by_phase[BPW_PHASE_RECOMPUTE]), (double) sel, 0.05,
                 "selective recompute phase vs 4Bs^2hL");
    }
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&s);
}

/* In the graph: forward matmuls are 1/3 of flops.model, backward 2/3, recompute as defined. */
static void
test_graph_matmul_phases (void)
{
  static const BpwRecompute modes[] = {
    BPW_RECOMPUTE_NONE, BPW_RECOMPUTE_SELECTIVE, BPW_RECOMPUTE_FULL,
  };
  const char *models[] = { "gpt3-175b", "llama3-8b", "mixtral-8x7b" };
  guint m, r;

  for (m = 0; m < G_N_ELEMENTS (models); m++)
    for (r = 0; r < G_N_ELEMENTS (modes); r++)
      {
        BpwModelSpec s;
        BpwScenario sc;
        g_autoptr (GError) error = NULL;
        g_autoptr (BpwWorkGraph) g = NULL;
        BpwU128 per_tok, T, blocks_fwd, recompute_mm, recompute_bmm;
        gint64 seq = 2048;
        guint i;

        bpw_oracle_lookup (models[m], &s);
        s.capacity_factor = 0.0;
        train_scenario (&sc, 4, 2, seq, modes[r]);
        g = bpw_work_graph_new (&s, &sc, &error);
        g_assert_no_error (error);
        if (g == NULL)
          continue;
        T = 4 * (BpwU128) seq;
        per_tok = bpw_oracle_forward_matmul_per_token (&s, seq);
        blocks_fwd = T * (per_tok - 2 * (BpwU128) s.hidden * s.vocab);

        check_u128 (graph_sum (g, BPW_PHASE_FORWARD, TRUE, FALSE), T * per_tok,
                    "forward matmul FLOPs");
        check_u128 (graph_sum (g, BPW_PHASE_BACKWARD_ACTIVATION, TRUE, FALSE)
                    + graph_sum (g, BPW_PHASE_BACKWARD_WEIGHT, TRUE, FALSE),
                    2 * T * per_tok, "backward matmul FLOPs = 2x forward");
        check_u128 (bpw_work_graph_model_flops (g), 3 * T * per_tok, "graph model flops");
        check_u128 (graph_sum (g, BPW_PHASE_OPTIMIZER, TRUE, FALSE), 0, "optimizer has no matmul");

        recompute_mm = 0;
        recompute_bmm = 0;
        for (i = 0; i < g->ops->len; i++)
          {
            const BpwOp *op = bpw_work_graph_op (g, i);

            if (op->phase != BPW_PHASE_RECOMPUTE)
              continue;
            g_assert_cmpint (op->addition, ==, BPW_ADDITION_RECOMPUTE);
            g_assert_cmpint (op->layer, >=, 0);
            if (op->primitive == BPW_PRIM_MATMUL)
              recompute_mm += (BpwU128) op->flops * op->count;
            else if (op->primitive == BPW_PRIM_BATCHED_MATMUL)
              recompute_bmm += (BpwU128) op->flops * op->count;
          }
        if (modes[r] == BPW_RECOMPUTE_NONE)
          check_u128 (graph_sum (g, BPW_PHASE_RECOMPUTE, FALSE, FALSE), 0, "no recompute ops");
        else if (modes[r] == BPW_RECOMPUTE_SELECTIVE)
          {
            check_u128 (recompute_mm, 0, "selective recomputes no projection");
            check_u128 (recompute_bmm, T * s.layers * 4 * (BpwU128) s.heads * s.head_dim * seq,
                        "selective recomputes QK^T and AV");
          }
        else
          check_u128 (recompute_mm + recompute_bmm, blocks_fwd,
                      "full recompute = one forward of the blocks, logits excluded");
        bpw_scenario_clear (&sc);
        bpw_model_spec_clear (&s);
      }
}

/* Causal attention: the full s x s matrix is executed, s(s+1)/2 scores are semantic. */
static void
test_causal_addition (void)
{
  BpwModelSpec s;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts f;
  BpwU128 B = 2, S = 1024, want;

  bpw_oracle_lookup ("llama3-8b", &s);
  train_scenario (&sc, (gint64) B, 1, (gint64) S, BPW_RECOMPUTE_NONE);
  parallel (&p, 1, 1, 1);
  /* Per head: QK^T and AV each 2s^2d executed vs d s(s+1) semantic; fwd + 2x bwd. */
  want = 6 * B * (BpwU128) s.layers * s.heads * s.head_dim * S * (S - 1);
  if (bpw_oracle_compute (&s, &sc, &p, &f))
    {
      BpwU128 got = bpw_oracle_addition_flops (&f.conservation, BPW_ADDITION_CAUSAL_FULL_MATRIX);

      g_assert_true (got >= want);
      check_rel (bpw_u128_to_double (got), (double) want, 0.05, "causal full-matrix addition");
      g_assert_true (f.flops_semantic < f.flops_hardware);
    }
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&s);
}

/* ---- bytes: the token embedding is a gather ---- */

/* Bytes that ops of @phase read from weight tensors, whole job. */
static BpwU128
weight_bytes_read (const BpwWorkGraph *g, int phase)
{
  BpwU128 sum = 0;

  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (op->phase != phase)
        continue;
      for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
        {
          const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);

          if (use->access == BPW_ACCESS_READ
              && bpw_work_graph_tensor (g, use->tensor)->kind == BPW_TENSOR_WEIGHT)
            sum += (BpwU128) use->bytes * op->count;
        }
    }
  return sum;
}

static const BpwOp *
op_named (const BpwWorkGraph *g, const char *name)
{
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (strcmp (bpw_work_graph_name (g, op->name), name) == 0)
        return op;
    }
  g_error ("no op %s", name);
  return NULL;
}

/* The embedding looks up the rows of the step's T tokens: it reads their ids (fp32) and
 * T·h elements of the table, and writes T·h activations; it does not stream the V·h table.
 * So a forward pass (decode, prefill or training) reads every weight once, P·p bytes,
 * except the table, of which T·h·p: P·p − V·h·p + T·h·p, plus the table once more, V·h·p,
 * where the head is tied to it (its matmul reads all of it). The table's gradient in
 * training is a scatter-add into the whole V·h buffer, read and written, and the
 * optimizer updates the whole table. */
static void
test_embedding_gather_bytes (void)
{
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_DECODE, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_TRAIN,
  };
  const gint64 batch = 8, seq = 512, context = 1000;

  for (guint tied = 0; tied < 2; tied++)
    for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
      {
        BpwModelSpec s;
        BpwScenario sc;
        g_autoptr (GError) error = NULL;
        g_autoptr (BpwWorkGraph) g = NULL;
        const BpwOp *emb;
        BpwU128 T, h, V, p, a, P, want;

        bpw_oracle_llama2_7b_spec (&s);
        s.layers = 2;
        s.tied_embeddings = tied;
        bpw_oracle_scenario (&sc, phases[i], batch, batch, seq, context, BPW_RECOMPUTE_NONE);
        g = bpw_work_graph_new (&s, &sc, &error);
        g_assert_no_error (error);
        T = (BpwU128) batch * (phases[i] == BPW_WORKLOAD_DECODE ? 1 : (BpwU128) seq);
        h = s.hidden;
        V = s.vocab;
        p = bpw_oracle_dtype_bytes (s.param_dtype);
        a = bpw_oracle_dtype_bytes (sc.dtype);
        P = bpw_oracle_parameters (&s, FALSE);

        emb = op_named (g, "embedding");
        g_assert_cmpint (emb->primitive, ==, BPW_PRIM_GATHER);
        check_u128 (emb->bytes_read, T * 4 + T * h * p, "embedding reads ids and T rows");
        check_u128 (emb->bytes_written, T * h * a, "embedding writes T rows");
        want = P * p - V * h * p + T * h * p + (tied ? V * h * p : 0);
        check_u128 (weight_bytes_read (g, BPW_PHASE_FORWARD), want,
                    "forward weight bytes: all but the table, T rows of it, a tied head all");
        if (phases[i] == BPW_WORKLOAD_TRAIN)
          {
            const BpwOp *wgrad = op_named (g, "embedding.wgrad");
            BpwU128 gb = bpw_oracle_grad_bytes (&s);

            g_assert_cmpint (wgrad->primitive, ==, BPW_PRIM_SCATTER_ADD);
            check_u128 (wgrad->bytes_read, T * h * a + T * 4 + V * h * gb,
                        "table gradient reads dy, the ids and the whole gradient");
            check_u128 (wgrad->bytes_written, V * h * gb, "table gradient writes all of it");
          }
        bpw_scenario_clear (&sc);
        bpw_model_spec_clear (&s);
      }
}

/* ---- Calculon gpt3-175B reference (CALCULON.md §6) ---- */

/* Definitions differ: Calculon models only the blocks (no embedding, head or logits) but counts
 * element-wise work (LayerNorm 9/14+7, softmax 5/8, GeLU 8/13, dropout, residual) as FLOPs;
 * our flops.model adds the 6BshV logit term and counts matmuls only. So: model minus logits is
 * the analytic 72Lh^2T + 12LshT exactly, and executed block FLOPs (fw + bw, no recompute) are
 * compared with Calculon's 3.378 EFLOP within 1%. */
static void
test_calculon_gpt3 (void)
{
  BpwModelSpec s;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts f;
  gint64 seq;
  BpwU128 B = 1536, T, L, h, analytic;

  g_assert_true (bpw_oracle_calculon_spec ("gpt3-175B.json", &s, &seq));
  g_assert_cmpint (seq, ==, 2048);
  T = B * seq;
  L = s.layers;
  h = s.hidden;
  analytic = 72 * L * h * h * T + 12 * L * (BpwU128) seq * h * T;
  check_rel ((double) analytic, 3.374e18, 0.0005, "analytic 72Lh^2T + 12LshT");

  /* The "full" run: TP 8, PP 8, DP 16, micro-batch 1, all-reduce TP, full recompute. */
  train_scenario (&sc, (gint64) B, 1, seq, BPW_RECOMPUTE_FULL);
  sc.dtype = BPW_DTYPE_FP16;
  parallel (&p, 8, 8, 16);
  if (bpw_oracle_compute (&s, &sc, &p, &f))
    {
      BpwU128 logits = 6 * T * h * s.vocab;

      g_assert_cmpint (f.micro_batches, ==, 96);
      check_u128 (f.flops_model - logits, analytic, "flops.model minus 6BshV");
      check_rel (bpw_u128_to_double (f.flops_model - logits), 3.374e18, 0.002,
                 "model FLOPs without logits vs Calculon's analytic 3.374 EFLOP");
      g_assert_true (f.conservation.ok);
    }
  bpw_facts_clear (&f);
  bpw_scenario_clear (&sc);

  /* Executed block FLOPs, forward + backward, recompute excluded. */
  train_scenario (&sc, (gint64) B, 1, seq, BPW_RECOMPUTE_NONE);
  sc.dtype = BPW_DTYPE_FP16;
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (BpwWorkGraph) g = bpw_work_graph_new (&s, &sc, &error);
    g_autoptr (BpwDistWork) d = NULL;
    BpwU128 blocks = 0, dist_blocks = 0;
    gint64 k;

    g_assert_no_error (error);
    if (g != NULL)
      {
        blocks = graph_sum (g, BPW_PHASE_FORWARD, FALSE, TRUE)
                 + graph_sum (g, BPW_PHASE_BACKWARD_ACTIVATION, FALSE, TRUE)
                 + graph_sum (g, BPW_PHASE_BACKWARD_WEIGHT, FALSE, TRUE);
        g_test_message ("block FLOPs fw+bw: graph %.6e (Calculon 3.378e18)",
                        bpw_u128_to_double (blocks));
        check_rel (bpw_u128_to_double (blocks), 3.378e18, 0.01,
                   "block FLOPs fw+bw (graph) vs Calculon full 3.378 EFLOP");
        g_assert_true (blocks > analytic);  /* element-wise work is on top of the matmuls */

        /* Per-rank sums include what every TP rank repeats, as Calculon's per-GPU FLOPs do. */
        d = bpw_dist_work_new (g_steal_pointer (&g), &p, &error);
        g_assert_no_error (error);
      }
    for (k = 0; d != NULL && k < d->n_stages; k++)
      {
        const BpwStage *st = &d->stages[k];
        guint t;

        for (t = 0; t < st->tasks->len; t++)
          {
            const BpwTask *task = &g_array_index (st->tasks, BpwTask, t);
            const BpwOp *op = bpw_work_graph_op (d->graph, task->op);

            if (op->layer < 0 || (op->phase != BPW_PHASE_FORWARD
                                  && op->phase != BPW_PHASE_BACKWARD_ACTIVATION
                                  && op->phase != BPW_PHASE_BACKWARD_WEIGHT))
              continue;
            dist_blocks += (BpwU128) task->flops * task->count * p.tp * p.dp;
          }
      }
    if (d != NULL)
      g_test_message ("block FLOPs fw+bw: over ranks %.6e", bpw_u128_to_double (dist_blocks));
    if (d != NULL)
      check_rel (bpw_u128_to_double (dist_blocks), 3.378e18, 0.01,
                 "block FLOPs fw+bw summed over 1024 ranks vs Calculon 3.378 EFLOP");
  }
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&s);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_set_nonfatal_assertions ();

  g_test_add_func ("/bpw/core/Facts/parameters-gpt3-175b", test_parameters_gpt3);
  g_test_add_func ("/bpw/core/Facts/parameters-llama3", test_parameters_llama3);
  g_test_add_func ("/bpw/core/Facts/parameters-mixtral", test_parameters_mixtral);
  g_test_add_func ("/bpw/core/Facts/flops-model-gpt3", test_flops_gpt3);
  g_test_add_func ("/bpw/core/Facts/flops-model-gqa-swiglu", test_flops_gqa);
  g_test_add_func ("/bpw/core/Facts/flops-model-mixtral", test_flops_mixtral);
  g_test_add_func ("/bpw/core/Facts/flops-recompute", test_flops_recompute);
  g_test_add_func ("/bpw/core/Facts/graph-matmul-phases", test_graph_matmul_phases);
  g_test_add_func ("/bpw/core/Facts/causal-addition", test_causal_addition);
  g_test_add_func ("/bpw/core/Facts/embedding-gather-bytes", test_embedding_gather_bytes);
  g_test_add_func ("/bpw/core/Facts/calculon-gpt3-175b", test_calculon_gpt3);

  return g_test_run ();
}
