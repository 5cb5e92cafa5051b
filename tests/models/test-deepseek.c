/* test-deepseek.c — the DeepSeek-V3 family: latent attention, fine-grained MoE, MTP
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parameter counts are summed here matrix by matrix from the published configs (the
 * safetensors index of deepseek-ai/DeepSeek-V3 lists these tensors); the one published
 * total, 671 026 419 200 for DeepSeek-V3 without its MTP module, is checked as such.
 * FLOPs of latent attention are written out per operation from the formulas in
 * bpw-decompose-mla.c's header, never read back from the implementation.
 */
#define G_LOG_DOMAIN "bpw-test-deepseek"
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bpw-core.h"
#include "bpw-estimator-private.h"
#include "bpw-test-plan.h"

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

  bpw_model_spec_init_defaults (spec);
  g_assert_true (bpw_workload_load (path, spec, &error));
  g_assert_no_error (error);
}

static void
parallel (BpwParallel *p, gint64 tp, gint64 pp, gint64 dp, gint64 ep, gboolean sp)
{
  bpw_parallel_init_defaults (p);
  p->tp = tp;
  p->pp = pp;
  p->dp = dp;
  p->ep = ep;
  p->sp = sp;
}

/* ---- parameters ---- */

typedef struct
{
  guint64 h, a, nope, rope, v, kvl, ql, vocab, layers, dense_layers, ffn, moe_ffn, routed,
          shared, top_k, bias, mtp;
} Config;

static guint64
mla_layer (const Config *c)
{
  guint64 qk = c->nope + c->rope;
  guint64 q = c->ql > 0 ? c->h * c->ql + c->ql + c->ql * c->a * qk   /* q_a, q_a_layernorm, q_b */
                        : c->h * c->a * qk;                          /* q_proj */

  return q + c->h * (c->kvl + c->rope)            /* kv_a_proj_with_mqa */
         + c->kvl                                  /* kv_a_layernorm */
         + c->kvl * c->a * (c->nope + c->v)        /* kv_b_proj */
         + c->a * c->v * c->h                      /* o_proj */
         + 2 * c->h;                               /* input and post-attention RMSNorm */
}

static guint64
moe_layer (const Config *c)
{
  return mla_layer (c) + c->routed * c->h + c->bias          /* gate, e_score_correction_bias */
         + (c->routed + c->shared) * 3 * c->h * c->moe_ffn;  /* gate, up, down per expert */
}

static guint64
total (const Config *c)
{
  return c->dense_layers * (mla_layer (c) + 3 * c->h * c->ffn)
         + (c->layers - c->dense_layers) * moe_layer (c)
         + 2 * c->vocab * c->h + c->h;             /* embed_tokens, lm_head, final norm */
}

static const Config v3 = {
  .h = 7168, .a = 128, .nope = 128, .rope = 64, .v = 128, .kvl = 512, .ql = 1536,
  .vocab = 129280, .layers = 61, .dense_layers = 3, .ffn = 18432, .moe_ffn = 2048,
  .routed = 256, .shared = 1, .top_k = 8, .bias = 256, .mtp = 1,
};

/* V2-Lite: no query compression (q_lora_rank null), 64 experts top 6, 2 shared, one dense
 * layer, no balancing bias (greedy routing). */
static const Config v2_lite = {
  .h = 2048, .a = 16, .nope = 128, .rope = 64, .v = 128, .kvl = 512, .ql = 0,
  .vocab = 102400, .layers = 27, .dense_layers = 1, .ffn = 10944, .moe_ffn = 1408,
  .routed = 64, .shared = 2, .top_k = 6, .bias = 0, .mtp = 0,
};

static void
test_v3_parameters (void)
{
  BpwModelSpec spec;
  BpwScenario sc;
  BpwParallel p;
  BpwFacts facts;
  g_autoptr(GError) error = NULL;
  /* The active count: every dense and attention weight, the router and its bias, and of
   * the experts the shared one and the top 8; the embedding table and head included. */
  guint64 active = total (&v3) - 58 * (256 - 8) * 3 * v3.h * v3.moe_ffn;
  /* MTP: enorm, hnorm, eh_proj (2h x h), one MoE block, shared_head.norm; its embedding
   * and head are the model's. */
  guint64 mtp = 3 * v3.h + 2 * v3.h * v3.h + moe_layer (&v3);

  load_ok ("hf/deepseek-v3.json", &spec);
  g_assert_cmpuint (total (&v3), ==, G_GUINT64_CONSTANT (671026419200));
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, G_GUINT64_CONSTANT (671026419200));
  g_assert_cmpuint (bpw_model_spec_active_parameters (&spec), ==, active);
  g_assert_cmpuint (active, ==, G_GUINT64_CONSTANT (37552297472));
  g_assert_cmpuint (bpw_model_spec_mtp_parameters (&spec), ==, mtp);
  g_assert_cmpuint (bpw_model_spec_kv_elements (&spec), ==, 576);
  g_assert_true (bpw_model_spec_is_mla (&spec));
  g_assert_cmpint (spec.moe_first, ==, 3);
  g_assert_cmpint (spec.expert_groups, ==, 8);
  g_assert_cmpint (spec.topk_groups, ==, 4);
  g_assert_true (spec.router_bias);

  /* The facts agree, with the MTP module apart, and the cache is the latent at any TP. */
  bpw_test_scenario (&sc, BPW_WORKLOAD_DECODE, 8, 8, 128, 4095, BPW_RECOMPUTE_NONE);
  parallel (&p, 8, 1, 1, 1, FALSE);
  g_assert_true (bpw_facts_compute_analytic (&spec, &sc, &p, &facts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (facts.parameters, ==, G_GUINT64_CONSTANT (671026419200));
  g_assert_cmpuint (facts.mtp_parameters, ==, mtp);
  g_assert_cmpuint (facts.kv_bytes_per_token, ==, 61 * 576 * 2);
  g_assert_cmpuint (facts.kv_bytes_per_sequence, ==, 61ull * 4096 * 576 * 2);
  bpw_facts_clear (&facts);
  bpw_model_spec_clear (&spec);
}

static void
test_v2_lite_parameters (void)
{
  BpwModelSpec spec;

  load_ok ("hf/deepseek-v2-lite.json", &spec);
  g_assert_cmpint (spec.q_lora_rank, ==, 0);
  g_assert_cmpint (spec.expert_groups, ==, 0);
  g_assert_false (spec.router_bias);
  g_assert_cmpint (spec.mtp_modules, ==, 0);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, total (&v2_lite));
  /* DeepSeek-V2-Lite is published as 15.7 B parameters. */
  g_assert_cmpuint (total (&v2_lite), ==, G_GUINT64_CONSTANT (15706484224));
  g_assert_cmpuint (bpw_model_spec_active_parameters (&spec), ==,
                    total (&v2_lite) - 26 * (64 - 6) * 3 * v2_lite.h * v2_lite.moe_ffn);
  g_assert_cmpuint (bpw_model_spec_mtp_parameters (&spec), ==, 0);
  bpw_model_spec_clear (&spec);
}

/* The bundled model, the native file and the Hugging Face import are one model, and the
 * native format writes and reads it back unchanged. */
static void
test_bundled_native_hf (void)
{
  BpwModelSpec hf, bundled, native, back;
  g_autofree char *native_path = g_build_filename (g_getenv ("BPW_SOURCE_ROOT"), "data",
                                                   "models", "deepseek-v3.json", NULL);
  g_autofree char *json = NULL;
  g_autofree char *tmp = NULL;
  g_autoptr(GError) error = NULL;
  int fd;

  load_ok ("hf/deepseek-v3.json", &hf);
  bpw_model_spec_init_defaults (&bundled);
  g_assert_true (bpw_model_spec_lookup_bundled ("deepseek-v3", &bundled));
  bpw_model_spec_init_defaults (&native);
  g_assert_true (bpw_workload_load (native_path, &native, &error));
  g_assert_no_error (error);
  /* Names and sources differ; max_positions is unused with rotary positions. */
  g_free (hf.source);
  hf.source = g_strdup (bundled.source);
  g_free (native.source);
  native.source = g_strdup (bundled.source);
  g_assert_true (bpw_model_spec_equal (&hf, &bundled));
  g_assert_true (bpw_model_spec_equal (&native, &bundled));

  json = bpw_workload_to_json (&bundled);
  fd = g_file_open_tmp ("deepseek-XXXXXX.json", &tmp, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (tmp, json, -1, &error));
  close (fd);
  bpw_model_spec_init_defaults (&back);
  g_assert_true (bpw_workload_load (tmp, &back, &error));
  g_assert_no_error (error);
  g_free (back.source);
  back.source = g_strdup (bundled.source);
  g_assert_true (bpw_model_spec_equal (&back, &bundled));
  g_unlink (tmp);
  bpw_model_spec_clear (&hf);
  bpw_model_spec_clear (&bundled);
  bpw_model_spec_clear (&native);
  bpw_model_spec_clear (&back);
}

/* ---- FLOPs of latent attention ---- */

static const char *
op_name (const BpwWorkGraph *g, const BpwOp *op)
{
  return bpw_work_graph_name (g, op->name);
}

/* Forward FLOPs of the op @name in block @layer, per micro-batch. */
static guint64
forward_flops (const BpwWorkGraph *g, const char *name, gint64 layer)
{
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (op->layer == layer && op->phase == BPW_PHASE_FORWARD &&
          strcmp (op_name (g, op), name) == 0)
        return op->flops;
    }
  g_error ("no forward op %s in layer %" G_GINT64_FORMAT, name, layer);
}

static gboolean
has_op (const BpwWorkGraph *g, const char *name)
{
  for (guint i = 0; i < g->ops->len; i++)
    if (strcmp (op_name (g, bpw_work_graph_op (g, i)), name) == 0)
      return TRUE;
  return FALSE;
}

/* Training decompresses keys and values; decode absorbs W_UK and W_UV and reads the
 * latent cache of c + r per position. */
static void
test_mla_flops (void)
{
  BpwModelSpec spec;
  BpwScenario sc;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) train = NULL;
  g_autoptr(BpwWorkGraph) decode = NULL;
  const guint64 h = 7168, a = 128, n = 128, r = 64, v = 128, c = 512, q = 1536;
  const guint64 mb = 2, s = 256, ctx = 1000, K = ctx + 1, T = mb * s;
  BpwU128 cache = 0;

  load_ok ("hf/deepseek-v3.json", &spec);
  bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 2, mb, s, 0, BPW_RECOMPUTE_NONE);
  train = bpw_work_graph_new (&spec, &sc, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (forward_flops (train, "attn.q_a", 0), ==, 2 * T * h * q);
  g_assert_cmpuint (forward_flops (train, "attn.q_b", 0), ==, 2 * T * q * a * (n + r));
  g_assert_cmpuint (forward_flops (train, "attn.kv_a", 0), ==, 2 * T * h * (c + r));
  g_assert_cmpuint (forward_flops (train, "attn.kv_b", 0), ==, 2 * T * c * a * (n + v));
  g_assert_cmpuint (forward_flops (train, "attn.qk", 0), ==, 2 * mb * a * s * s * (n + r));
  g_assert_cmpuint (forward_flops (train, "attn.av", 0), ==, 2 * mb * a * s * s * v);
  g_assert_cmpuint (forward_flops (train, "attn.proj", 0), ==, 2 * T * a * v * h);
  /* The balancing bias: one add per expert score, in MoE layers only. */
  g_assert_cmpuint (forward_flops (train, "moe.router_bias", 3), ==, T * 256);
  g_assert_false (has_op (train, "attn.q_absorb"));

  bpw_test_scenario (&sc, BPW_WORKLOAD_DECODE, mb, mb, 1, ctx, BPW_RECOMPUTE_NONE);
  decode = bpw_work_graph_new (&spec, &sc, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (forward_flops (decode, "attn.q_absorb", 5), ==, 2 * mb * a * n * c);
  g_assert_cmpuint (forward_flops (decode, "attn.qk", 5), ==, 2 * mb * a * K * (c + r));
  g_assert_cmpuint (forward_flops (decode, "attn.av", 5), ==, 2 * mb * a * K * c);
  g_assert_cmpuint (forward_flops (decode, "attn.v_absorb", 5), ==, 2 * mb * a * c * v);
  g_assert_false (has_op (decode, "attn.kv_b"));
  for (guint i = 0; i < decode->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (decode, i);

      if (t->kind == BPW_TENSOR_KV_CACHE)
        {
          g_assert_cmpstr (bpw_work_graph_name (decode, t->name), ==, "attn.latent_cache");
          g_assert_cmpint (t->split, ==, BPW_SPLIT_REPLICATED);
          cache += t->elements;
        }
    }
  g_assert_cmpuint (cache, ==, (BpwU128) 61 * mb * K * (c + r));
  bpw_model_spec_clear (&spec);
}

/* V2-Lite's full-rank query projection. */
static void
test_v2_lite_query (void)
{
  BpwModelSpec spec;
  BpwScenario sc;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) g = NULL;

  load_ok ("hf/deepseek-v2-lite.json", &spec);
  bpw_test_scenario (&sc, BPW_WORKLOAD_PREFILL, 1, 1, 128, 0, BPW_RECOMPUTE_NONE);
  g = bpw_work_graph_new (&spec, &sc, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (forward_flops (g, "attn.q_proj", 0), ==, 2ull * 128 * 2048 * 16 * 192);
  g_assert_false (has_op (g, "attn.q_a"));
  g_assert_false (has_op (g, "moe.router_bias"));
  bpw_model_spec_clear (&spec);
}

/* ---- conservation under TP, EP, PP and DP ---- */

static void
check_conserved (const BpwModelSpec *spec, const BpwScenario *sc, const BpwParallel *p)
{
  g_autoptr(GError) error = NULL;
  BpwFacts exact, analytic;

  if (!bpw_facts_compute (spec, sc, p, &exact, &error))
    g_error ("%s tp %" G_GINT64_FORMAT " pp %" G_GINT64_FORMAT " dp %" G_GINT64_FORMAT
             " ep %" G_GINT64_FORMAT ": %s", bpw_workload_phase_to_string (sc->phase), p->tp,
             p->pp, p->dp, p->ep, error->message);
  if (!exact.conservation.ok)
    g_error ("conservation: %s", exact.conservation.message);
  g_assert_true (bpw_facts_compute_analytic (spec, sc, p, &analytic, &error));
  g_assert_no_error (error);
  g_assert_true (exact.flops_model == analytic.flops_model);
  g_assert_true (exact.flops_semantic == analytic.flops_semantic);
  g_assert_true (exact.flops_hardware == analytic.flops_hardware);
  g_assert_cmpuint (exact.kv_bytes_per_sequence, ==, analytic.kv_bytes_per_sequence);
  /* The latent cache is whole on every rank, whatever the TP and EP: layers x the
   * replica's sequences x positions x 576 elements of 2 bytes. */
  if (sc->phase != BPW_WORKLOAD_TRAIN && p->pp == 1)
    g_assert_cmpuint (exact.memory.kv_cache, ==,
                      (guint64) spec->layers * (sc->global_batch / p->dp)
                      * bpw_facts_kv_context (sc) * 576 * 2);
  bpw_facts_clear (&exact);
  bpw_facts_clear (&analytic);
}

static void
test_conservation (void)
{
  static const gint64 tps[] = { 1, 2, 8 }, eps[] = { 1, 4 }, pps[] = { 1, 2, 4 };
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  BpwModelSpec spec;
  guint built = 0;

  load_ok ("hf/deepseek-v3.json", &spec);
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    for (guint i = 0; i < G_N_ELEMENTS (tps); i++)
      for (guint j = 0; j < G_N_ELEMENTS (eps); j++)
        for (guint k = 0; k < G_N_ELEMENTS (pps); k++)
          {
            BpwScenario sc;
            BpwParallel p;
            gboolean train = phases[ph] == BPW_WORKLOAD_TRAIN;

            bpw_test_scenario (&sc, phases[ph], 16, 2, phases[ph] == BPW_WORKLOAD_DECODE ? 1 : 64,
                               phases[ph] == BPW_WORKLOAD_DECODE ? 511 : 0,
                               train && k == 1 ? BPW_RECOMPUTE_SELECTIVE
                               : train && k == 2 ? BPW_RECOMPUTE_FULL : BPW_RECOMPUTE_NONE);
            parallel (&p, tps[i], pps[k], 4, eps[j], tps[i] > 1 && j == 1);
            check_conserved (&spec, &sc, &p);
            built++;
          }
  g_assert_cmpuint (built, ==, 3 * 3 * 2 * 3);
  bpw_model_spec_clear (&spec);
}

/* ---- node-limited routing ---- */

/* EP all-to-all bytes per rank and micro-batch of layer @layer's forward dispatch. */
static guint64
dispatch_bytes (const BpwModelSpec *spec, gint64 ep)
{
  g_autoptr(GError) error = NULL;
  BpwScenario sc;
  BpwParallel p;
  g_autoptr(BpwDistWork) dist = NULL;
  guint64 bytes = 0;

  bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 16, 1, 128, 0, BPW_RECOMPUTE_NONE);
  parallel (&p, 1, 1, 16, ep, FALSE);
  dist = bpw_dist_work_new (bpw_work_graph_new (spec, &sc, &error), &p, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < dist->stages[0].collectives->len; i++)
    {
      const BpwCollective *c = &g_array_index (dist->stages[0].collectives, BpwCollective, i);

      if (c->group == BPW_GROUP_EP && c->phase == BPW_PHASE_FORWARD && c->layer == 3 &&
          strcmp (bpw_work_graph_name (dist->graph, c->name), "ep.dispatch") == 0)
        bytes += c->bytes;
    }
  return bytes;
}

/* Bytes of the attention's TP collectives named @name in block 5 of @phase, per rank. */
static guint64
tp_bytes (const BpwModelSpec *spec, gboolean sp, BpwPhase phase, const char *name)
{
  g_autoptr(GError) error = NULL;
  BpwScenario sc;
  BpwParallel p;
  g_autoptr(BpwDistWork) dist = NULL;
  guint64 bytes = 0;

  bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 2, 1, 128, 0, BPW_RECOMPUTE_NONE);
  parallel (&p, 8, 1, 2, 1, sp);
  dist = bpw_dist_work_new (bpw_work_graph_new (spec, &sc, &error), &p, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < dist->stages[0].collectives->len; i++)
    {
      const BpwCollective *c = &g_array_index (dist->stages[0].collectives, BpwCollective, i);

      if (c->group == BPW_GROUP_TP && c->phase == phase && c->layer == 5 &&
          c->layer_type == BPW_LAYER_ATTENTION &&
          strcmp (bpw_work_graph_name (dist->graph, c->name), name) == 0)
        bytes += c->bytes;
    }
  return bytes;
}

/* Under TP the up projections q_b and kv_b are column parallel: their input gradients,
 * the compressed query (1536) and the latent (512) of 128 tokens, are all-reduced, or
 * gathered and reduce-scattered with sequence parallelism. */
static void
test_tensor_parallel (void)
{
  BpwModelSpec spec;
  const guint64 rows = 128 * 2;  /* tokens x bf16 */

  load_ok ("hf/deepseek-v3.json", &spec);
  g_assert_cmpuint (tp_bytes (&spec, FALSE, BPW_PHASE_BACKWARD_ACTIVATION, "tp.input_grad"), ==,
                    rows * (1536 + 512));
  g_assert_cmpuint (tp_bytes (&spec, FALSE, BPW_PHASE_FORWARD, "tp.all_gather"), ==, 0);
  g_assert_cmpuint (tp_bytes (&spec, TRUE, BPW_PHASE_FORWARD, "tp.all_gather"), ==,
                    rows * (1536 + 512));
  /* The output projection is row parallel: its output reduced, h per token. */
  g_assert_cmpuint (tp_bytes (&spec, FALSE, BPW_PHASE_FORWARD, "tp.output_reduce"), ==,
                    rows * 7168);
  bpw_model_spec_clear (&spec);
}

/* A token reaches at most topk_groups = 4 of the 8 groups: dispatch sends 4 copies, not
 * 8, once the EP ranks hold the groups apart (ep >= 8); T h bytes per copy. */
static void
test_node_limited (void)
{
  BpwModelSpec spec;
  const guint64 copy = 128ull * 7168 * 2;

  load_ok ("hf/deepseek-v3.json", &spec);
  g_assert_cmpuint (dispatch_bytes (&spec, 16), ==, 4 * copy);
  g_assert_cmpuint (dispatch_bytes (&spec, 4), ==, 8 * copy);
  spec.expert_groups = spec.topk_groups = 0;
  g_assert_cmpuint (dispatch_bytes (&spec, 16), ==, 8 * copy);
  bpw_model_spec_clear (&spec);
}

/* ---- the estimator's per-kind template ---- */

/* A DeepSeek-shaped model small enough to bind whole: latent attention, three dense layers
 * then MoE (or MoE every other layer), grouped routing with the bias. */
static void
small_deepseek (BpwModelSpec *s, gint64 layers, gint64 first, gint64 every)
{
  bpw_model_spec_init_defaults (s);
  s->name = g_strdup ("deepseek-small");
  s->vocab = 4096;
  s->hidden = 512;
  s->layers = layers;
  s->heads = 8;
  s->kv_heads = 8;
  s->head_dim = 48;
  s->ffn = 1536;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->max_positions = 4096;
  s->tied_embeddings = FALSE;
  s->q_lora_rank = 192;
  s->kv_lora_rank = 128;
  s->qk_nope_head_dim = 32;
  s->qk_rope_head_dim = 16;
  s->v_head_dim = 32;
  s->experts = 16;
  s->top_k = 4;
  s->shared_experts = 1;
  s->moe_ffn = 256;
  s->moe_first = first;
  s->moe_every = every;
  s->expert_groups = 4;
  s->topk_groups = 2;
  s->router_bias = TRUE;
}

/* Dense first layers (moe.first 3) and MoE every third layer: the two-block template
 * refused both; the per-kind template costs each stage by its blocks and agrees with the
 * plan of the whole model. */
static void
test_estimator_kinds (void)
{
  static const struct { gint64 layers, first, every, pp; } shapes[] = {
    { 8, 3, 1, 1 }, { 8, 3, 1, 2 }, { 9, 3, 1, 4 }, { 12, 1, 3, 3 }, { 6, 0, 1, 2 },
  };
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h100-sxm-80gb");

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
      {
        g_autoptr(BpwPlan) plan = NULL;
        g_autoptr(BpwEstimator) est = NULL;
        BpwModelSpec spec;
        BpwScenario sc;
        BpwMapping mapping;
        BpwEvaluation full, fast;
        BpwTemplate *t;

        small_deepseek (&spec, shapes[i].layers, shapes[i].first, shapes[i].every);
        bpw_test_scenario (&sc, phases[ph], 16, 2, phases[ph] == BPW_WORKLOAD_DECODE ? 1 : 256,
                           phases[ph] == BPW_WORKLOAD_DECODE ? 1023 : 0, BPW_RECOMPUTE_NONE);
        bpw_mapping_init_defaults (&mapping);
        mapping.parallel.tp = 2;
        mapping.parallel.pp = shapes[i].pp;
        mapping.parallel.dp = 2;
        mapping.parallel.ep = 2;
        plan = bpw_test_bind (&spec, &sc, bp, &mapping);
        bpw_evaluation_from_plan (plan, &full);
        est = bpw_test_estimate (&spec, &sc, bp, &mapping, &fast);
        t = _bpw_estimator_lookup_template (est, &mapping, &error);
        g_assert_no_error (error);
        g_assert_cmpint (t->by_kind, ==, shapes[i].first > 0);
        g_test_message ("%" G_GINT64_FORMAT " layers, first %" G_GINT64_FORMAT ", every %"
                        G_GINT64_FORMAT ", pp %" G_GINT64_FORMAT ", %s: plan %.9f s, "
                        "estimate %.9f s", shapes[i].layers, shapes[i].first, shapes[i].every,
                        shapes[i].pp, bpw_workload_phase_to_string (phases[ph]),
                        full.step_time_s, fast.step_time_s);
        bpw_test_assert_estimate_is_plan (&full, &fast);
        bpw_mapping_clear (&mapping);
        bpw_scenario_clear (&sc);
        bpw_model_spec_clear (&spec);
      }
}

/* DeepSeek-V3 itself (3 dense + 58 MoE layers) evaluates in every phase, with the model
 * FLOPs of the analytic facts. */
static void
test_estimator_v3 (void)
{
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  BpwModelSpec spec;

  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_model_spec_lookup_bundled ("deepseek-v3", &spec));
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    {
      g_autoptr(BpwEstimator) est = NULL;
      BpwScenario sc;
      BpwParallel single;
      BpwMapping mapping;
      BpwEvaluation eval;
      BpwFacts facts;

      bpw_test_scenario (&sc, phases[ph], 256, 1, phases[ph] == BPW_WORKLOAD_DECODE ? 1 : 4096,
                         phases[ph] == BPW_WORKLOAD_DECODE ? 4095 : 0, BPW_RECOMPUTE_NONE);
      parallel (&single, 1, 1, 1, 1, FALSE);
      g_assert_true (bpw_facts_compute_analytic (&spec, &sc, &single, &facts, &error));
      g_assert_no_error (error);
      est = bpw_estimator_new (&spec, &sc, bp, &error);
      g_assert_no_error (error);
      bpw_mapping_init_defaults (&mapping);
      mapping.parallel.tp = 8;
      mapping.parallel.pp = 8;
      mapping.parallel.dp = 32;
      mapping.parallel.ep = 32;
      g_assert_true (bpw_estimator_evaluate (est, &mapping, &eval, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (eval.model_flops, ==, bpw_u128_to_double (facts.flops_model));
      g_assert_cmpfloat (eval.step_time_s, >, 0);
      /* The estimate is the plan of the whole model: 61 layers over 8 stages of 7 and 8,
       * the first holding the 3 dense layers. */
      {
        g_autoptr(BpwPlan) plan = bpw_test_bind (&spec, &sc, bp, &mapping);
        BpwEvaluation full;

        bpw_evaluation_from_plan (plan, &full);
        g_test_message ("deepseek-v3 %s: plan %.9f s, estimate %.9f s",
                        bpw_workload_phase_to_string (phases[ph]), full.step_time_s,
                        eval.step_time_s);
        bpw_test_assert_close (full.step_time_s, eval.step_time_s, 1e-9);
        bpw_test_assert_close (full.peak_bytes, eval.peak_bytes, 1e-6);
      }
      bpw_facts_clear (&facts);
      bpw_mapping_clear (&mapping);
      bpw_scenario_clear (&sc);
    }
  bpw_model_spec_clear (&spec);
}

/* A search's fingerprint (what a resumed or sharded search must match) tells apart two
 * models that differ only in their latent rank. */
static void
test_search_fingerprint (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  g_autofree char *first = NULL;
  BpwSearchLimits limits;
  BpwModelSpec spec;
  BpwScenario sc;

  g_assert_no_error (error);
  bpw_search_limits_init (&limits);
  bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 8, 1, 256, 0, BPW_RECOMPUTE_NONE);
  small_deepseek (&spec, 8, 3, 1);
  for (guint i = 0; i < 2; i++)
    {
      BpwSearchSpace *space = bpw_search_space_new (&spec, &sc, bp, NULL, 8, &limits, &error);

      g_assert_no_error (error);
      if (i == 0)
        first = g_strdup (space->fingerprint);
      else
        g_assert_cmpstr (first, !=, space->fingerprint);
      bpw_search_space_free (space);
      spec.kv_lora_rank = 64;
    }
  bpw_model_spec_clear (&spec);
}

/* ---- refused specs ---- */

static void
test_refused (void)
{
  static const struct { const char *field; } cases[] = {
    { "model.head_dim" }, { "model.mla.qk_rope_head_dim" }, { "model.moe.topk_groups" },
    { "model.moe.groups" }, { "model.kv_heads" }, { "model.positions" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      BpwModelSpec s;

      small_deepseek (&s, 8, 3, 1);
      switch (i)
        {
        case 0: s.head_dim = 64; break;                   /* not nope + rope */
        case 1: s.qk_rope_head_dim = 15; s.head_dim = 47; break;  /* odd rope */
        case 2: s.topk_groups = 1; break;                 /* one group of 4 experts */
        case 3: s.expert_groups = 3; s.topk_groups = 1; break;  /* 16 over 3 groups */
        case 4: s.kv_heads = 4; break;                    /* MLA decompresses per head */
        case 5: s.positions = BPW_POSITION_LEARNED; break;  /* the rope key needs rotary */
        }
      if (i == 2)
        {
          /* Top 4 fits one group of 4; top 5 does not. */
          g_assert_true (bpw_model_spec_validate (&s, &error));
          s.top_k = 5;
        }
      g_assert_false (bpw_model_spec_validate (&s, &error));
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, cases[i].field));
      bpw_model_spec_clear (&s);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/deepseek/v3-parameters", test_v3_parameters);
  g_test_add_func ("/deepseek/v2-lite-parameters", test_v2_lite_parameters);
  g_test_add_func ("/deepseek/bundled-native-hf", test_bundled_native_hf);
  g_test_add_func ("/deepseek/mla-flops", test_mla_flops);
  g_test_add_func ("/deepseek/v2-lite-query", test_v2_lite_query);
  g_test_add_func ("/deepseek/conservation", test_conservation);
  g_test_add_func ("/deepseek/tensor-parallel", test_tensor_parallel);
  g_test_add_func ("/deepseek/node-limited", test_node_limited);
  g_test_add_func ("/deepseek/estimator-kinds", test_estimator_kinds);
  g_test_add_func ("/deepseek/estimator-v3", test_estimator_v3);
  g_test_add_func ("/deepseek/search-fingerprint", test_search_fingerprint);
  g_test_add_func ("/deepseek/refused", test_refused);
  return g_test_run ();
}
