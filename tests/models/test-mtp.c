/* test-mtp.c — DeepSeek-V3's multi-token prediction modules in the training work graph
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each MTP depth (DeepSeek-V3 §2.2) adds, per micro-batch of T tokens: one block of the
 * model's last kind, the 2h -> h projection of the two normed halves, the shared head's
 * matmul and the cross-entropy. Expected values are written out from the spec's fields;
 * "one block" is checked in closed form for model FLOPs and, for all semantic FLOPs
 * (element-wise conventions included), as the difference a further main-model layer of the
 * same kind makes.
 */
#define G_LOG_DOMAIN "bpw-test-mtp"
#include "config.h"

#include <string.h>

#include "bpw-test-oracle.h"
#include "bpw-test-plan.h"
#include "bpw-decompose-size.h"

#define check_u128 oracle_check_u128

/* A small MLA + MoE model shaped as DeepSeek-V3: dense layer 0, MoE after it, a shared
 * expert, the balancing bias. */
static void
toy_spec (BpwModelSpec *s, gint64 mtp)
{
  bpw_oracle_lookup ("deepseek-v3", s);
  s->vocab = 512;
  s->hidden = 64;
  s->layers = 3;
  s->heads = s->kv_heads = 4;
  s->q_lora_rank = 32;
  s->kv_lora_rank = 16;
  s->qk_nope_head_dim = 8;
  s->qk_rope_head_dim = 4;
  s->v_head_dim = 8;
  s->head_dim = 12;
  s->ffn = 96;
  s->moe_ffn = 32;
  s->experts = 8;
  s->top_k = 2;
  s->shared_experts = 1;
  s->expert_groups = s->topk_groups = 0;
  s->moe_first = 1;
  s->moe_every = 1;
  s->mtp_modules = mtp;
}

static void
facts_of (const BpwModelSpec *s, const BpwScenario *sc, const BpwParallel *p, BpwFacts *f)
{
  g_autoptr(GError) error = NULL;
  BpwFacts analytic;

  if (!bpw_facts_compute (s, sc, p, f, &error))
    g_error ("mtp %" G_GINT64_FORMAT ": %s", s->mtp_modules, error->message);
  if (!f->conservation.ok)
    g_error ("conservation: %s", f->conservation.message);
  /* The search's fast path agrees with the graph. */
  g_assert_true (bpw_facts_compute_analytic (s, sc, p, &analytic, &error));
  g_assert_no_error (error);
  check_u128 (analytic.flops_model, f->flops_model, "analytic model FLOPs");
  check_u128 (analytic.flops_semantic, f->flops_semantic, "analytic semantic FLOPs");
  check_u128 (analytic.flops_hardware, f->flops_hardware, "analytic hardware FLOPs");
  bpw_facts_clear (&analytic);
}

/* Model FLOPs (matmuls, forward and both backward halves; routed experts by the rows they
 * get) of one MLA + MoE block in training, per micro-batch of @mb sequences of @s. */
static BpwU128
mla_moe_block_model_flops (const BpwModelSpec *m, guint64 mb, guint64 s)
{
  guint64 T = mb * s, h = m->hidden, a = m->heads, n = m->qk_nope_head_dim;
  guint64 r = m->qk_rope_head_dim, v = m->v_head_dim, cl = m->kv_lora_rank;
  guint64 ql = m->q_lora_rank, E = m->experts, K = m->top_k, f = m->moe_ffn;
  BpwU128 linears = (BpwU128) 2 * T * (h * ql + ql * a * (n + r) + h * (cl + r)
                                       + cl * a * (n + v) + a * v * h);
  BpwU128 core = (BpwU128) 2 * mb * a * s * s * (n + r) + (BpwU128) 2 * mb * a * s * s * v;
  BpwU128 moe = (BpwU128) 2 * T * h * E + (BpwU128) 2 * T * K * 3 * h * f
                + (BpwU128) m->shared_experts * 2 * T * 3 * h * f;

  return 3 * (linears + core + moe);
}

/* Model FLOPs of one MTP depth beyond its block: the projection and the shared head, each
 * forward, input gradient and weight gradient. */
static BpwU128
mtp_outer_model_flops (const BpwModelSpec *m, guint64 T)
{
  guint64 h = m->hidden;

  return 3 * ((BpwU128) 2 * T * 2 * h * h + (BpwU128) 2 * T * h * m->vocab);
}

static void
test_toy_model_flops (void)
{
  const guint64 batch = 4, mb = 2, s = 32, T = mb * s, count = batch / mb;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts base, deeper;

  bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, batch, mb, s, 0, BPW_RECOMPUTE_NONE);
  bpw_oracle_parallel (&p, 1, 1, 1, FALSE, 0);
  {
    BpwModelSpec m;

    toy_spec (&m, 0);
    facts_of (&m, &sc, &p, &base);
    /* The closed form of a block is right: one more MoE layer adds exactly it. */
    m.layers++;
    facts_of (&m, &sc, &p, &deeper);
    check_u128 (deeper.flops_model - base.flops_model,
                count * mla_moe_block_model_flops (&m, mb, s), "one MoE layer");
    bpw_facts_clear (&deeper);
    bpw_model_spec_clear (&m);
  }
  for (gint64 d = 1; d <= 2; d++)
    {
      BpwModelSpec m;
      BpwFacts f;

      toy_spec (&m, d);
      facts_of (&m, &sc, &p, &f);
      check_u128 (f.flops_model - base.flops_model,
                  (BpwU128) d * count * (mla_moe_block_model_flops (&m, mb, s)
                                         + mtp_outer_model_flops (&m, T)),
                  "MTP model FLOPs");
      /* The tokens and parameters the MFU and the report use are the main model's. */
      check_u128 (f.tokens_per_step, base.tokens_per_step, "tokens per step");
      g_assert_cmpuint (f.parameters, ==, base.parameters);
      g_assert_cmpuint (f.mtp_parameters, ==,
                        (guint64) d * (3 * 64 + 2 * 64 * 64
                                       + bpw_model_spec_layer_parameters (&m, m.layers)));
      bpw_facts_clear (&f);
      bpw_model_spec_clear (&m);
    }
  bpw_facts_clear (&base);
}

/* All semantic FLOPs: the block as a main layer's, plus per micro-batch three RMSNorms
 * (4 forward, 8 input gradient, 2 weight gradient per element), the lookup's gradient
 * (T h), the projection's 3 x 2 T 2h h, the head's 3 x 2 T h V, the cross-entropy's 5 + 2
 * per logit, and once per step AdamW's 12 per parameter of the norms and the projection
 * (the head and the table are the main model's). */
static void
test_toy_semantic_flops (void)
{
  const guint64 batch = 6, mb = 3, s = 16, T = mb * s, count = batch / mb;
  static const BpwRecompute policies[] = {
    BPW_RECOMPUTE_NONE, BPW_RECOMPUTE_SELECTIVE, BPW_RECOMPUTE_FULL,
  };

  for (guint i = 0; i < G_N_ELEMENTS (policies); i++)
    {
      BpwScenario sc;
      BpwParallel p;
      BpwModelSpec m;
      BpwFacts base, deeper;
      BpwU128 block;
      guint64 h, V;

      bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, batch, mb, s, 0, policies[i]);
      bpw_oracle_parallel (&p, 1, 1, 1, FALSE, 0);
      toy_spec (&m, 0);
      g_assert_cmpint (m.optimizer, ==, BPW_OPTIMIZER_ADAM);
      h = m.hidden;
      V = m.vocab;
      facts_of (&m, &sc, &p, &base);
      m.layers++;
      facts_of (&m, &sc, &p, &deeper);
      block = deeper.flops_semantic - base.flops_semantic;
      m.layers--;
      for (gint64 d = 1; d <= 2; d++)
        {
          BpwFacts f;
          BpwU128 outer = (BpwU128) count * (3 * 14 * T * h + T * h + 3 * 2 * T * 2 * h * h
                                             + 3 * 2 * T * h * V + 7 * T * V)
                          + 12 * (3 * h + 2 * h * h);

          m.mtp_modules = d;
          facts_of (&m, &sc, &p, &f);
          check_u128 (f.flops_semantic - base.flops_semantic, (BpwU128) d * (block + outer),
                      "MTP semantic FLOPs");
          bpw_facts_clear (&f);
        }
      bpw_facts_clear (&base);
      bpw_facts_clear (&deeper);
      bpw_model_spec_clear (&m);
    }
}

static guint
ops_of (const BpwWorkGraph *g, BpwPhase phase, gint32 layer)
{
  guint n = 0;

  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      n += op->phase == phase && op->layer == layer;
    }
  return n;
}

static guint
named_ops (const BpwWorkGraph *g, BpwPhase phase, const char *name)
{
  guint n = 0;

  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      n += op->phase == phase && strcmp (bpw_work_graph_name (g, op->name), name) == 0;
    }
  return n;
}

/* The block is a main layer's, op for op: its forward ops are those of the last (MoE)
 * layer, and full recomputation redoes all of them as it does a layer's. */
static void
test_toy_block_ops (void)
{
  BpwModelSpec m;
  BpwScenario sc;
  g_autoptr(GError) error = NULL;

  toy_spec (&m, 2);
  for (gint rc = BPW_RECOMPUTE_NONE; rc <= BPW_RECOMPUTE_FULL; rc += BPW_RECOMPUTE_FULL)
    {
      g_autoptr(BpwWorkGraph) g = NULL;
      guint layer_ops;

      bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 2, 1, 16, 0, (BpwRecompute) rc);
      g = bpw_work_graph_new (&m, &sc, &error);
      g_assert_no_error (error);
      layer_ops = ops_of (g, BPW_PHASE_FORWARD, (gint32) m.layers - 1);
      for (guint i = 0; i < g->ops->len; i++)
        {
          const BpwOp *op = bpw_work_graph_op (g, i);
          const char *name = bpw_work_graph_name (g, op->name);

          /* Every MoE op of the graph: the main layers' and the modules' blocks. */
          if (op->phase == BPW_PHASE_FORWARD && strcmp (name, "moe.router") == 0)
            g_assert_true (op->layer >= (gint32) m.moe_first
                           || op->layer == BPW_LAYER_AFTER_BLOCKS);
        }
      /* Two heads and losses more than the model's one; two projections. */
      g_assert_cmpuint (named_ops (g, BPW_PHASE_FORWARD, "head"), ==, 3);
      g_assert_cmpuint (named_ops (g, BPW_PHASE_FORWARD, "loss"), ==, 3);
      g_assert_cmpuint (named_ops (g, BPW_PHASE_FORWARD, "mtp.eh_proj"), ==, 2);
      g_assert_cmpuint (named_ops (g, BPW_PHASE_FORWARD, "moe.router"), ==, 2 + 2);
      g_assert_cmpuint (named_ops (g, BPW_PHASE_FORWARD, "attn.kv_b"), ==, 3 + 2);
      g_assert_cmpuint (ops_of (g, BPW_PHASE_RECOMPUTE, BPW_LAYER_AFTER_BLOCKS), ==,
                        rc == BPW_RECOMPUTE_FULL ? 2 * layer_ops : 0);
      /* The head's gradient accumulates in the one head weight: no second head tensor. */
      for (guint i = 0, heads = 0; i < g->tensors->len; i++)
        {
          const BpwTensor *t = bpw_work_graph_tensor (g, i);

          heads += t->kind == BPW_TENSOR_WEIGHT
                   && strcmp (bpw_work_graph_name (g, t->name), "head.w") == 0;
          g_assert_cmpuint (heads, <=, 1);
        }
    }
  bpw_model_spec_clear (&m);
}

/* The modules run on the last pipeline stage: the first stage's work and memory are what
 * they are without them; the last stage holds the modules' weights and a copy of the
 * embedding table for their lookups, whose gradients the two stages sum. */
static void
test_toy_last_stage (void)
{
  BpwScenario sc;
  BpwParallel p;
  BpwModelSpec m0, m1;
  g_autoptr(BpwDistWork) d0 = NULL;
  g_autoptr(BpwDistWork) d1 = NULL;
  const BpwRankMemory *first0, *first1, *last0, *last1;
  guint64 pb;
  gboolean reduced = FALSE;

  bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 4, 1, 32, 0, BPW_RECOMPUTE_NONE);
  bpw_oracle_parallel (&p, 1, 2, 1, FALSE, 0);
  p.pp_split = BPW_PP_SPLIT_EVEN;
  toy_spec (&m0, 0);
  toy_spec (&m1, 1);
  m0.layers = m1.layers = 4;
  g_assert_false (m1.tied_embeddings);
  d0 = bpw_oracle_distribute (&m0, &sc, &p);
  d1 = bpw_oracle_distribute (&m1, &sc, &p);
  g_assert_cmpuint (d0->stages[0].tasks->len, ==, d1->stages[0].tasks->len);
  g_assert_cmpuint (d0->stages[1].tasks->len, <, d1->stages[1].tasks->len);
  first0 = &d0->stages[0].memory;
  first1 = &d1->stages[0].memory;
  g_assert_true (memcmp (first0, first1, sizeof *first0) == 0);
  last0 = &d0->stages[1].memory;
  last1 = &d1->stages[1].memory;
  pb = bpw_dtype_bytes (m1.param_dtype);
  g_assert_cmpuint (last1->parameters - last0->parameters, ==,
                    bpw_model_spec_mtp_parameters (&m1) + (guint64) m1.vocab * m1.hidden);
  g_assert_cmpuint (last1->weights - last0->weights, ==,
                    (bpw_model_spec_mtp_parameters (&m1) + (guint64) m1.vocab * m1.hidden) * pb);
  for (guint i = 0; i < d1->stages[1].collectives->len; i++)
    {
      const BpwCollective *c = &g_array_index (d1->stages[1].collectives, BpwCollective, i);

      reduced |= c->group == BPW_GROUP_PP && c->kind == BPW_COLLECTIVE_ALL_REDUCE;
    }
  g_assert_true (reduced);
  bpw_model_spec_clear (&m0);
  bpw_model_spec_clear (&m1);
}

/* The estimator is the plan with the modules on the last stage. Its template puts the
 * dense block on the first stage and the MoE block on the last, with the modules' MoE
 * block: the expert parameters' DP reduction, which only the last template stage has,
 * is costed for every stage that holds experts. */
static void
test_toy_estimator_is_plan (void)
{
  static const gint64 eps[] = { 1, 2 };
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");

  for (gint64 d = 0; d <= 1; d++)
    for (guint i = 0; i < G_N_ELEMENTS (eps); i++)
      for (gint rc = BPW_RECOMPUTE_NONE; rc <= BPW_RECOMPUTE_FULL; rc += BPW_RECOMPUTE_FULL)
        {
          g_autoptr(BpwPlan) plan = NULL;
          g_autoptr(BpwEstimator) est = NULL;
          BpwModelSpec m;
          BpwScenario sc;
          BpwMapping mapping;
          BpwEvaluation full, fast;

          toy_spec (&m, d);
          m.layers = 6;
          bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 16, 1, 128, 0, (BpwRecompute) rc);
          bpw_mapping_init_defaults (&mapping);
          mapping.parallel.tp = 1;
          mapping.parallel.pp = 2;
          mapping.parallel.dp = 4;
          mapping.parallel.ep = eps[i];
          plan = bpw_test_bind (&m, &sc, bp, &mapping);
          bpw_evaluation_from_plan (plan, &full);
          est = bpw_test_estimate (&m, &sc, bp, &mapping, &fast);
          g_test_message ("mtp %" G_GINT64_FORMAT " ep %" G_GINT64_FORMAT " recompute %d: "
                          "plan %.9f s, estimate %.9f s", d, eps[i], rc, full.step_time_s,
                          fast.step_time_s);
          bpw_test_assert_estimate_is_plan (&full, &fast);
          bpw_mapping_clear (&mapping);
          bpw_scenario_clear (&sc);
          bpw_model_spec_clear (&m);
        }
}

/* The budget's bound of the graph's size counts the modules: a one-layer model with two
 * of them (each as large as its layer) stays within it, every policy. */
static void
test_toy_size_bound (void)
{
  for (gint rc = BPW_RECOMPUTE_NONE; rc <= BPW_RECOMPUTE_FULL; rc++)
    {
      BpwModelSpec m;
      BpwScenario sc;
      BpwWorkGraphSize bound;
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwWorkGraph) g = NULL;

      toy_spec (&m, 2);
      m.layers = 1;
      m.moe_first = 0;
      bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 2, 1, 16, 0, (BpwRecompute) rc);
      g = bpw_work_graph_new (&m, &sc, &error);
      g_assert_no_error (error);
      bpw_decompose_size_bound (&m, sc.phase, sc.recompute, &bound);
      g_assert_cmpuint (g->ops->len, <=, bound.ops);
      g_assert_cmpuint (g->tensors->len, <=, bound.tensors);
      g_assert_cmpuint (g->uses->len, <=, bound.uses);
      g_assert_cmpuint (g->deps->len, <=, bound.deps);
      bpw_model_spec_clear (&m);
    }
}

/* Inference builds no modules: prefill and decode graphs are those of the model without. */
static void
test_toy_inference_unchanged (void)
{
  static const BpwWorkloadPhase phases[] = { BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE };

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      BpwModelSpec m0, m2;
      BpwScenario sc;
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwWorkGraph) g0 = NULL;
      g_autoptr(BpwWorkGraph) g2 = NULL;

      toy_spec (&m0, 0);
      toy_spec (&m2, 2);
      bpw_oracle_scenario (&sc, phases[i], 2, 1, phases[i] == BPW_WORKLOAD_DECODE ? 1 : 32,
                           phases[i] == BPW_WORKLOAD_DECODE ? 31 : 0, BPW_RECOMPUTE_NONE);
      g0 = bpw_work_graph_new (&m0, &sc, &error);
      g_assert_no_error (error);
      g2 = bpw_work_graph_new (&m2, &sc, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (g0->ops->len, ==, g2->ops->len);
      g_assert_cmpuint (g0->tensors->len, ==, g2->tensors->len);
      check_u128 (bpw_work_graph_semantic_flops (g0), bpw_work_graph_semantic_flops (g2),
                  "inference semantic FLOPs");
      bpw_model_spec_clear (&m0);
      bpw_model_spec_clear (&m2);
    }
}

/* DeepSeek-V3 as bundled (one module): its training model FLOPs are the model's without
 * the module plus the module's closed form. */
static void
test_v3_model_flops (void)
{
  const guint64 mb = 1, s = 64, T = mb * s;
  BpwModelSpec v3, bare;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts with, without;

  bpw_oracle_lookup ("deepseek-v3", &v3);
  g_assert_cmpint (v3.mtp_modules, ==, 1);
  g_assert_true (bpw_model_spec_is_moe_layer (&v3, v3.layers));
  bare = v3;
  bare.mtp_modules = 0;
  bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 1, mb, s, 0, BPW_RECOMPUTE_NONE);
  bpw_oracle_parallel (&p, 1, 1, 1, FALSE, 0);
  facts_of (&v3, &sc, &p, &with);
  facts_of (&bare, &sc, &p, &without);
  check_u128 (with.flops_model - without.flops_model,
              mla_moe_block_model_flops (&v3, mb, s) + mtp_outer_model_flops (&v3, T),
              "DeepSeek-V3 MTP model FLOPs");
  bpw_facts_clear (&with);
  bpw_facts_clear (&without);
  bpw_model_spec_clear (&v3);
}

/* A model without MTP modules gets no trace of them: one head, one loss, no MTP tensor. */
static void
test_llama_without (void)
{
  BpwModelSpec m;
  BpwScenario sc;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) g = NULL;

  bpw_oracle_lookup ("llama3-8b", &m);
  g_assert_cmpint (m.mtp_modules, ==, 0);
  bpw_oracle_scenario (&sc, BPW_WORKLOAD_TRAIN, 2, 1, 128, 0, BPW_RECOMPUTE_FULL);
  g = bpw_work_graph_new (&m, &sc, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (named_ops (g, BPW_PHASE_FORWARD, "head"), ==, 1);
  g_assert_cmpuint (named_ops (g, BPW_PHASE_FORWARD, "loss"), ==, 1);
  g_assert_cmpuint (ops_of (g, BPW_PHASE_RECOMPUTE, BPW_LAYER_AFTER_BLOCKS), ==, 0);
  for (guint i = 0; i < g->tensors->len; i++)
    g_assert_false (g_str_has_prefix (bpw_work_graph_name (g, bpw_work_graph_tensor (g, i)->name),
                                      "mtp."));
  bpw_model_spec_clear (&m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Mtp/toy-model-flops", test_toy_model_flops);
  g_test_add_func ("/bpw/core/Mtp/toy-semantic-flops", test_toy_semantic_flops);
  g_test_add_func ("/bpw/core/Mtp/toy-block-ops", test_toy_block_ops);
  g_test_add_func ("/bpw/core/Mtp/toy-last-stage", test_toy_last_stage);
  g_test_add_func ("/bpw/core/Mtp/toy-estimator-is-plan", test_toy_estimator_is_plan);
  g_test_add_func ("/bpw/core/Mtp/toy-size-bound", test_toy_size_bound);
  g_test_add_func ("/bpw/core/Mtp/toy-inference-unchanged", test_toy_inference_unchanged);
  g_test_add_func ("/bpw/core/Mtp/v3-model-flops", test_v3_model_flops);
  g_test_add_func ("/bpw/core/Mtp/llama-without", test_llama_without);
  return g_test_run ();
}
