/* bpw-test-oracle.c — the oracle tests' own closed forms and assertion helpers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-oracle"
#include "config.h"

#include "bpw-test-oracle.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

char *
bpw_oracle_u128_str (BpwU128 value)
{
  char buf[48];
  int i = sizeof buf - 1;

  buf[i] = '\0';
  do
    {
      buf[--i] = (char) ('0' + (int) (value % 10));
      value /= 10;
    }
  while (value != 0);
  return g_strdup (buf + i);
}

void
bpw_oracle_check_u128 (BpwU128 got, BpwU128 want, const char *what,
                       const char *file, int line, const char *func)
{
  g_autofree char *g = NULL;
  g_autofree char *w = NULL;
  g_autofree char *msg = NULL;

  if (got == want)
    return;
  g = bpw_oracle_u128_str (got);
  w = bpw_oracle_u128_str (want);
  msg = g_strdup_printf ("%s: got %s, expected %s (ratio %.9f)", what, g, w,
                         (double) got / (double) want);
  g_assertion_message (G_LOG_DOMAIN, file, line, func, msg);
}

void
bpw_oracle_check_near (double got, double want, double tol_rel, double tol_abs, const char *what,
                       const char *file, int line, const char *func)
{
  g_autofree char *msg = NULL;

  if (fabs (got - want) <= MAX (tol_rel * fabs (want), tol_abs))
    return;
  msg = g_strdup_printf ("%s: got %.10g, expected %.10g (off by %+.4f%%; tolerance %.3g%%, %.3g)",
                         what, got, want, (got / want - 1.0) * 100.0, tol_rel * 100.0, tol_abs);
  g_assertion_message (G_LOG_DOMAIN, file, line, func, msg);
}

void
bpw_oracle_check_range (double got, double low, double high, const char *what,
                        const char *file, int line, const char *func)
{
  g_autofree char *msg = NULL;

  if (got >= low && got <= high)
    return;
  msg = g_strdup_printf ("%s: got %.10g, expected within [%.10g, %.10g] (%+.4f%% of the %s)",
                         what, got, low, high,
                         got < low ? (got / low - 1.0) * 100.0 : (got / high - 1.0) * 100.0,
                         got < low ? "lower bound" : "upper bound");
  g_assertion_message (G_LOG_DOMAIN, file, line, func, msg);
}

guint
bpw_oracle_dtype_bytes (BpwDType dtype)
{
  return dtype == BPW_DTYPE_FP32 ? 4 : dtype == BPW_DTYPE_FP8 ? 1 : 2;
}

guint
bpw_oracle_grad_bytes (const BpwModelSpec *spec)
{
  return bpw_oracle_dtype_bytes (spec->gradient_dtype);
}

guint
bpw_oracle_optimizer_bytes (const BpwModelSpec *spec)
{
  guint moments = spec->optimizer == BPW_OPTIMIZER_ADAM ? 2 : 1;

  return moments * bpw_oracle_dtype_bytes (spec->optimizer_dtype)
         + (spec->master_dtype != spec->param_dtype
            ? bpw_oracle_dtype_bytes (spec->master_dtype) : 0);
}

gboolean
bpw_oracle_is_moe_layer (const BpwModelSpec *spec, gint64 layer)
{
  return spec->experts > 0 && layer >= spec->moe_first
         && (layer - spec->moe_first) % MAX (spec->moe_every, 1) == 0;
}

gint64
bpw_oracle_expert_ffn (const BpwModelSpec *spec)
{
  return spec->moe_ffn > 0 ? spec->moe_ffn : spec->ffn;
}

/* One MLP (or one expert) of inner width f: GeLU h->f->h, SwiGLU gate, up and down. */
static guint64
bpw_oracle_mlp_parameters (const BpwModelSpec *spec, gint64 f)
{
  guint64 h = spec->hidden;

  if (spec->ffn_kind == BPW_FFN_GELU)
    return 2 * h * f + (spec->linear_bias ? (guint64) f + h : 0);
  return 3 * h * f + (spec->linear_bias ? 2 * (guint64) f + h : 0);
}

static guint64
bpw_oracle_norm_parameters (const BpwModelSpec *spec)
{
  return spec->norm == BPW_NORM_LAYERNORM ? 2 * (guint64) spec->hidden : (guint64) spec->hidden;
}

guint64
bpw_oracle_layer_parameters (const BpwModelSpec *spec, gint64 layer, gboolean active)
{
  guint64 h = spec->hidden;
  guint64 qkv_out = (guint64) (spec->heads + 2 * spec->kv_heads) * spec->head_dim;
  guint64 p = h * qkv_out + (spec->qkv_bias ? qkv_out : 0)
              + (guint64) spec->heads * spec->head_dim * h + (spec->linear_bias ? h : 0)
              + 2 * bpw_oracle_norm_parameters (spec);

  g_assert_cmpint (spec->shared_experts, ==, 0);  /* no model tested here has them */
  if (bpw_oracle_is_moe_layer (spec, layer))
    p += h * spec->experts
         + (guint64) (active ? spec->top_k : spec->experts)
           * bpw_oracle_mlp_parameters (spec, bpw_oracle_expert_ffn (spec));
  else
    p += bpw_oracle_mlp_parameters (spec, spec->ffn);
  return p;
}

guint64
bpw_oracle_parameters (const BpwModelSpec *spec, gboolean active)
{
  guint64 h = spec->hidden;
  guint64 p = (guint64) spec->vocab * h;
  gint64 l;

  if (spec->positions == BPW_POSITION_LEARNED)
    p += (guint64) spec->max_positions * h;
  for (l = 0; l < spec->layers; l++)
    p += bpw_oracle_layer_parameters (spec, l, active);
  p += bpw_oracle_norm_parameters (spec);
  if (!spec->tied_embeddings)
    p += (guint64) spec->vocab * h;
  return p;
}

BpwU128
bpw_oracle_forward_matmul_per_token (const BpwModelSpec *spec, gint64 seq)
{
  BpwU128 h = spec->hidden;
  BpwU128 ad = (BpwU128) spec->heads * spec->head_dim;
  BpwU128 qkv_out = (BpwU128) (spec->heads + 2 * spec->kv_heads) * spec->head_dim;
  BpwU128 total = 2 * h * spec->vocab;  /* logits */
  gint64 l;

  for (l = 0; l < spec->layers; l++)
    {
      /* QKV and output projections; QK^T and AV at 2sd each per head. */
      BpwU128 per = 2 * h * qkv_out + 2 * ad * h + 4 * ad * (BpwU128) seq;

      if (bpw_oracle_is_moe_layer (spec, l))
        per += 2 * h * spec->experts  /* router */
               + (BpwU128) spec->top_k * (spec->ffn_kind == BPW_FFN_GELU ? 4 : 6) * h
                 * bpw_oracle_expert_ffn (spec);
      else
        per += (spec->ffn_kind == BPW_FFN_GELU ? 4 : 6) * h * spec->ffn;
      total += per;
    }
  return total;
}

BpwU128
bpw_oracle_model_flops (const BpwModelSpec *spec, gint64 batch, gint64 seq)
{
  return 3 * (BpwU128) batch * seq * bpw_oracle_forward_matmul_per_token (spec, seq);
}

void
bpw_oracle_gpt_spec (BpwModelSpec *s, const char *name, gint64 vocab, gint64 hidden,
                     gint64 layers, gint64 heads, gint64 head_dim, gint64 ffn, gint64 positions)
{
  bpw_model_spec_init_defaults (s);
  g_free (s->name);
  s->name = g_strdup (name);
  s->vocab = vocab;
  s->hidden = hidden;
  s->layers = layers;
  s->heads = heads;
  s->kv_heads = heads;
  s->head_dim = head_dim;
  s->ffn = ffn;
  s->max_positions = positions;
  s->ffn_kind = BPW_FFN_GELU;
  s->norm = BPW_NORM_LAYERNORM;
  s->positions = BPW_POSITION_LEARNED;
  s->tied_embeddings = TRUE;
  s->qkv_bias = TRUE;
  s->linear_bias = TRUE;
  s->dropout = TRUE;
  s->experts = 0;
  s->top_k = 0;
  s->shared_experts = 0;
  s->moe_ffn = 0;
  s->moe_every = 1;
  s->moe_first = 0;
  s->capacity_factor = 0.0;
  s->param_dtype = BPW_DTYPE_BF16;
  s->activation_dtype = BPW_DTYPE_BF16;
  s->gradient_dtype = BPW_DTYPE_BF16;
  s->optimizer_dtype = BPW_DTYPE_FP32;
  s->master_dtype = BPW_DTYPE_FP32;
  s->optimizer = BPW_OPTIMIZER_ADAM;
}

/* Llama-2-7B (Touvron et al. 2023): MHA, the LLM-Viewer KV-cache example. */
void
bpw_oracle_llama2_7b_spec (BpwModelSpec *s)
{
  bpw_oracle_gpt_spec (s, "llama2-7b", 32000, 4096, 32, 32, 128, 11008, 4096);
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->tied_embeddings = FALSE;
  s->qkv_bias = FALSE;
  s->linear_bias = FALSE;
  s->dropout = FALSE;
}

/* GPT-style parameters: Megatron Eq. (2) plus the final LayerNorm. */
guint64
bpw_oracle_gpt_parameters (const BpwModelSpec *s)
{
  guint64 l = s->layers, h = s->hidden;

  g_assert_cmpint (s->ffn, ==, 4 * s->hidden);
  g_assert_cmpint (s->heads * s->head_dim, ==, s->hidden);
  return 12 * l * h * h + 13 * l * h + (guint64) s->vocab * h + (guint64) s->max_positions * h
         + 2 * h;
}

/* Llama-style (GQA, SwiGLU, RMSNorm, untied, no bias) parameters, and the replicated norms. */
guint64
bpw_oracle_llama_layer_parameters (const BpwModelSpec *s)
{
  guint64 h = s->hidden;

  return h * (s->heads + 2 * s->kv_heads) * s->head_dim + (guint64) s->heads * s->head_dim * h
         + 3 * h * s->ffn + 2 * h;
}

gboolean
bpw_oracle_calculon_spec (const char *file, BpwModelSpec *spec, gint64 *seq)
{
  g_autofree char *path = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *o;

  path = g_test_build_filename (G_TEST_DIST, "data", "reference", "calculon", "models", file,
                                NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return FALSE;
  if (!json_parser_load_from_file (parser, path, &error))
    g_error ("%s: %s", path, error->message);
  o = json_node_get_object (json_parser_get_root (parser));
  *seq = json_object_get_int_member (o, "seq_size");
  /* Calculon has no vocabulary; the workbench uses 51200 for its files. */
  bpw_oracle_gpt_spec (spec, file, 51200, json_object_get_int_member (o, "hidden"),
                       json_object_get_int_member (o, "num_blocks"),
                       json_object_get_int_member (o, "attn_heads"),
                       json_object_get_int_member (o, "attn_size"),
                       json_object_get_int_member (o, "feedforward"), *seq);
  spec->param_dtype = BPW_DTYPE_FP16;
  spec->activation_dtype = BPW_DTYPE_FP16;
  spec->gradient_dtype = BPW_DTYPE_FP16;
  return TRUE;
}

void
bpw_oracle_lookup (const char *name, BpwModelSpec *spec)
{
  memset (spec, 0, sizeof *spec);
  if (!bpw_model_spec_lookup_bundled (name, spec))
    g_error ("bundled model %s is missing", name);
}

void
bpw_oracle_scenario (BpwScenario *sc, BpwWorkloadPhase phase, gint64 batch, gint64 micro,
                     gint64 seq, gint64 context, BpwRecompute recompute)
{
  bpw_scenario_init_defaults (sc);
  sc->phase = phase;
  sc->global_batch = batch;
  sc->micro_batch = micro;
  sc->seq = seq;
  sc->context = context;
  sc->recompute = recompute;
  sc->dtype = BPW_DTYPE_BF16;
  sc->kv_dtype = BPW_DTYPE_BF16;
}

void
bpw_oracle_parallel (BpwParallel *p, gint64 tp, gint64 pp, gint64 dp, gboolean sp, gint zero)
{
  bpw_parallel_init_defaults (p);
  p->tp = tp;
  p->pp = pp;
  p->dp = dp;
  p->ep = 1;
  p->sp = sp;
  p->zero = zero;
  p->schedule = BPW_SCHEDULE_1F1B;
  p->interleave = 1;
}

gboolean
bpw_oracle_compute (const BpwModelSpec *spec, const BpwScenario *scenario,
                    const BpwParallel *parallel, BpwFacts *facts)
{
  g_autoptr (GError) error = NULL;
  gboolean ok;

  memset (facts, 0, sizeof *facts);
  ok = bpw_facts_compute (spec, scenario, parallel, facts, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  return ok && error == NULL;
}

BpwDistWork *
bpw_oracle_distribute (const BpwModelSpec *spec, const BpwScenario *scenario,
                       const BpwParallel *parallel)
{
  g_autoptr (GError) error = NULL;
  BpwWorkGraph *graph = bpw_work_graph_new (spec, scenario, &error);
  BpwDistWork *dist;

  g_assert_no_error (error);
  if (graph == NULL)
    return NULL;
  dist = bpw_dist_work_new (graph, parallel, &error);
  g_assert_no_error (error);
  return dist;
}

BpwU128
bpw_oracle_addition_flops (const BpwConservation *report, BpwAddition addition)
{
  BpwU128 sum = 0;
  guint i;

  for (i = 0; i < BPW_N_ADDITIONS; i++)
    if (report->additions[i].addition == addition)
      sum += report->additions[i].flops;
  return sum;
}
