/* test-serve.c — inference serving: request streams, continuous batching, physics
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-serve.h"

typedef struct
{
  BpwModelSpec   spec;
  BpwScenario    scenario;
  BpwMapping     mapping;
  BpwBlueprint  *bp;
} Setup;

static gboolean
setup_load (Setup *s, const char *model, const char *blueprint, gint64 tp)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (&s->spec);
  g_assert_true (bpw_workload_load (model, &s->spec, &error));
  g_assert_no_error (error);
  bpw_scenario_init_defaults (&s->scenario);
  /* bpw serve prices text requests: a multimodal model's decoder serves them alone (its
   * prompts here are shorter than one image's tokens). */
  if (bpw_model_spec_has_vision (&s->spec))
    {
      s->scenario.images_set = TRUE;
      s->scenario.images = 0;
    }
  bpw_mapping_init_defaults (&s->mapping);
  s->mapping.parallel.tp = tp;
  s->bp = bpw_blueprint_load (blueprint, NULL, &error);
  g_assert_no_error (error);
  return s->spec.heads % tp == 0 && s->spec.vocab % tp == 0 && s->spec.ffn % tp == 0 &&
         (s->spec.kv_heads % tp == 0 || tp % s->spec.kv_heads == 0);
}

static void
setup_clear (Setup *s)
{
  bpw_model_spec_clear (&s->spec);
  bpw_scenario_clear (&s->scenario);
  bpw_mapping_clear (&s->mapping);
  g_clear_pointer (&s->bp, bpw_blueprint_free);
}

static BpwServeOptions
stream (double rate, gint64 requests, guint64 seed)
{
  BpwServeOptions o = { .arrival_rate = rate, .requests = requests, .seed = seed, .replicas = 1 };

  g_assert_true (bpw_length_dist_parse ("lognormal:512:0.6", "--prompt-len", &o.prompt, NULL));
  g_assert_true (bpw_length_dist_parse ("uniform:32:256", "--output-len", &o.output, NULL));
  return o;
}

static BpwServeModel *
model_for (Setup *s, const BpwServeOptions *o, gint64 max_batch)
{
  g_autoptr(GError) error = NULL;
  gint64 prompt, request;
  BpwServeModel *m;

  bpw_serve_stream_bounds (o, &prompt, &request);
  m = bpw_serve_model_new (&s->spec, &s->scenario, s->bp, &s->mapping, max_batch, prompt,
                           request, &error);
  g_assert_no_error (error);
  return m;
}

/* ---- length distributions ---- */

static void
test_lengths (void)
{
  static const struct { const char *text; double mean; } good[] = {
    { "fixed:512", 512 }, { "uniform:128:2048", 1088 }, { "lognormal:300:0.5", 300 },
  };
  static const char * const bad[] = {
    "fixed:0", "fixed:1.5", "uniform:10:5", "lognormal:100", "normal:5:1", "", "fixed:x",
    "lognormal:100:9",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      BpwLengthDist d;
      g_autofree char *back = NULL;
      double sum = 0;
      gint64 lo = G_MAXINT64, hi = 0;
      const int n = 200000;

      g_assert_true (bpw_length_dist_parse (good[i].text, "--prompt-len", &d, NULL));
      back = bpw_length_dist_to_string (&d);
      g_assert_cmpstr (back, ==, good[i].text);
      g_assert_cmpfloat (bpw_length_dist_mean (&d), ==, good[i].mean);
      for (int k = 0; k < n; k++)
        {
          gint64 x = bpw_length_dist_sample (&d, rand);

          sum += (double) x;
          lo = MIN (lo, x);
          hi = MAX (hi, x);
        }
      g_assert_cmpint (lo, >=, 1);
      /* Within 1 % of the documented mean (200 000 draws). */
      g_assert_cmpfloat (fabs (sum / n / good[i].mean - 1), <, 0.01);
      if (d.kind == BPW_LENGTH_UNIFORM)
        {
          g_assert_cmpint (lo, ==, 128);
          g_assert_cmpint (hi, ==, 2048);
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      BpwLengthDist d;

      g_assert_false (bpw_length_dist_parse (bad[i], "--output-len", &d, &error));
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_assert_nonnull (strstr (error->message, "--output-len"));
    }
}

/* ---- serving ---- */

static void
run (BpwServeModel *m, const BpwServeOptions *o, BpwServeResult *r)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (bpw_serve_run (m, o, r, &error));
  g_assert_no_error (error);
}

static void
assert_ordered (const BpwLatencyStats *s)
{
  g_assert_cmpfloat (s->p50, <=, s->p95);
  g_assert_cmpfloat (s->p95, <=, s->p99);
  g_assert_cmpfloat (s->p50, >, 0);
}

static void
test_deterministic (void)
{
  Setup s;
  BpwServeOptions o = stream (4.0, 1500, 42);
  g_autoptr(BpwServeModel) m = NULL;
  BpwServeResult a, b, c;
  g_autofree char *ja = NULL;
  g_autofree char *jb = NULL;

  setup_load (&s, "llama3-8b", "h100-sxm-80gb", 1);
  m = model_for (&s, &o, 64);
  run (m, &o, &a);
  run (m, &o, &b);
  g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
  ja = bpw_serve_to_json (&a, 1, &o, NULL);
  jb = bpw_serve_to_json (&b, 1, &o, NULL);
  g_assert_cmpstr (ja, ==, jb);
  o.seed = 43;
  run (m, &o, &c);
  g_assert_cmpfloat (c.e2e_s.mean, !=, a.e2e_s.mean);
  g_assert_cmpint (a.requests, ==, 1500);
  assert_ordered (&a.ttft_s);
  assert_ordered (&a.tpot_s);
  assert_ordered (&a.e2e_s);
  g_assert_cmpfloat (a.ttft_s.mean, <=, a.e2e_s.mean);
  setup_clear (&s);
}

/* A run refuses a stream longer than the documented maximum before drawing it. */
static void
test_request_bound (void)
{
  g_autoptr(GError) error = NULL;
  Setup s;
  BpwServeOptions o = stream (4.0, BPW_SERVE_MAX_REQUESTS + 1, 42);
  g_autoptr(BpwServeModel) m = NULL;
  BpwServeResult r;

  setup_load (&s, "llama3-8b", "h100-sxm-80gb", 1);
  o.requests = 10;
  m = model_for (&s, &o, 64);
  o.requests = BPW_SERVE_MAX_REQUESTS + 1;
  g_assert_false (bpw_serve_run (m, &o, &r, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "from 1 to 1000000"));
  setup_clear (&s);
}

/* Little's law on a long stable run: the time average of requests in the system equals
 * the arrival rate times the mean time in the system. */
static void
test_littles_law (void)
{
  Setup s;
  BpwServeOptions o = stream (6.0, 20000, 3);
  g_autoptr(BpwServeModel) m = NULL;
  BpwServeResult r;
  double lw;

  setup_load (&s, "llama3-8b", "h100-sxm-80gb", 1);
  m = model_for (&s, &o, 128);
  run (m, &o, &r);
  lw = o.arrival_rate * r.e2e_s.mean;
  g_test_message ("L = %.4f, λW = %.4f (%+.2f %%), mean decode batch %.1f", r.mean_in_system,
                  lw, 100 * (r.mean_in_system / lw - 1), r.mean_decode_batch);
  g_assert_cmpfloat (fabs (r.mean_in_system / lw - 1), <, 0.05);
  g_assert_cmpint (r.rejected, ==, 0);
  g_assert_cmpint (r.requests, ==, 20000);
  setup_clear (&s);
}

/* The tail grows with load; throughput follows the arrival rate until saturation. */
static void
test_load_sweep (void)
{
  Setup s;
  static const double rates[] = { 1, 4, 8, 16, 64 };
  BpwServeResult r[G_N_ELEMENTS (rates)];
  BpwServeOptions o = stream (1, 3000, 11);
  g_autoptr(BpwServeModel) m = NULL;

  setup_load (&s, "llama3-8b", "h100-sxm-80gb", 1);
  m = model_for (&s, &o, 128);
  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      o.arrival_rate = rates[i];
      run (m, &o, &r[i]);
      assert_ordered (&r[i].e2e_s);
      g_test_message ("rate %g: e2e p99 %.3f s, throughput %.1f tokens/s", rates[i],
                      r[i].e2e_s.p99, r[i].throughput_tokens_per_s);
      if (i > 0)
        {
          g_assert_cmpfloat (r[i].e2e_s.p99, >, r[i - 1].e2e_s.p99);
          g_assert_cmpfloat (r[i].throughput_tokens_per_s, >=,
                             r[i - 1].throughput_tokens_per_s * 0.99);
        }
    }
  setup_clear (&s);
}

/* Steps never beat physics: a decode step reads every weight it does not gather (all but
 * the embedding table, unless the head is tied to it) and the whole KV cache of the batch;
 * a prefill executes at least 2 FLOPs per weight and token. Bounds per device of the TP
 * group, pipeline stages one after the other. */
static gboolean
check_physics (Setup *s, const char *model, const char *blueprint)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwServeModel) m = NULL;
  const BpwModelSpec *sp = &s->spec;
  gint64 tp = s->mapping.parallel.tp;
  int hbm = bpw_blueprint_first_memory (s->bp, BPW_MEMORY_DEVICE);
  double bw = s->bp->memory[hbm].bandwidth.value;
  double peak = bpw_blueprint_peak_flops (s->bp, BPW_ENGINE_MATRIX,
                                          bpw_precision_from_dtype (s->scenario.dtype));
  double table = (double) sp->vocab * (double) sp->hidden;
  double read = (double) bpw_model_spec_parameters (sp) -
                (double) bpw_model_spec_embedding_parameters (sp) +
                (sp->tied_embeddings ? table : 0);
  double flop_params = (double) bpw_model_spec_active_parameters (sp) -
                       (double) bpw_model_spec_embedding_parameters (sp);
  /* Per device: K and V of its share of the heads, or latent attention's whole cache of
   * kv_lora_rank + qk_rope_head_dim per layer, which every TP rank holds. */
  double kv_token = sp->kv_lora_rank > 0
                    ? (double) sp->layers * (double) (sp->kv_lora_rank + sp->qk_rope_head_dim) *
                      bpw_dtype_bytes (s->scenario.kv_dtype) * (double) tp
                    : 2.0 * (double) sp->layers * (double) sp->kv_heads * (double) sp->head_dim *
                      bpw_dtype_bytes (s->scenario.kv_dtype);
  static const gint64 batches[] = { 1, 3, 17, 64 };
  static const double contexts[] = { 100, 1000, 3000 };
  static const double prompts[] = { 128, 700, 2048 };

  /* A prompt longer than a learned position table is refused: serve up to the table. */
  gint64 longest = sp->positions == BPW_POSITION_LEARNED ? MIN (2048, sp->max_positions) : 2048;

  m = bpw_serve_model_new (sp, &s->scenario, s->bp, &s->mapping, 64, longest, 4096, &error);
  if (m == NULL)
    {
      g_assert_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN);
      g_test_message ("%s on %s with TP %" G_GINT64_FORMAT " PP %" G_GINT64_FORMAT ": %s",
                      model, blueprint, tp, s->mapping.parallel.pp, error->message);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (batches); i++)
    {
      gint64 b = batches[i];

      for (guint j = 0; j < G_N_ELEMENTS (contexts); j++)
        {
          double c = contexts[j] * (double) b, t;
          double bound = (read * bpw_dtype_bytes (sp->param_dtype) + kv_token * (c + (double) b)) /
                         ((double) tp * bw);

          g_assert_true (bpw_serve_model_decode_time (m, b, c, &t, &error));
          if (t < bound)
            g_error ("%s on %s: decode of %" G_GINT64_FORMAT " × %g tokens takes %.6g s, "
                     "below the memory bound %.6g s", model, blueprint, b, contexts[j], t, bound);
        }
      for (guint j = 0; j < G_N_ELEMENTS (prompts) && b <= 17 && prompts[j] <= longest; j++)
        {
          double len = prompts[j], t;
          double bound = 2.0 * flop_params * len * (double) b / ((double) tp * peak);

          g_assert_true (bpw_serve_model_prefill_time (m, b, (double) b * len * len, &t, &error));
          if (t < bound)
            g_error ("%s on %s: prefill of %" G_GINT64_FORMAT " × %g tokens takes %.6g s, "
                     "below the compute bound %.6g s", model, blueprint, b, len, t, bound);
        }
    }
  return TRUE;
}

static void
test_physics (void)
{
  const char * const *models = bpw_model_spec_bundled_names ();
  const char * const *blueprints = bpw_blueprint_bundled_names ();
  guint checked = 0;

  for (guint i = 0; models[i] != NULL; i++)
    for (guint j = 0; blueprints[j] != NULL; j++)
      {
        static const gint64 tps[] = { 8, 4, 2, 1 };

        for (guint k = 0; k < G_N_ELEMENTS (tps); k++)
          {
            Setup s;
            gboolean ok = setup_load (&s, models[i], blueprints[j], tps[k]);

            /* Models too large for one node's memory get pipeline stages. */
            for (gint64 pp = 1; ok && pp <= 8; pp *= 2)
              {
                s.mapping.parallel.pp = pp;
                if (check_physics (&s, models[i], blueprints[j]))
                  {
                    checked++;
                    break;
                  }
              }
            setup_clear (&s);
            if (ok)
              break;
          }
      }
  /* Every bundled model on every bundled blueprint. */
  g_assert_cmpuint (checked, ==, g_strv_length ((char **) models) *
                                 g_strv_length ((char **) blueprints));
}

/* llama3-70b's 141 GB of bf16 weights do not fit one 80 GB H100: a TP 1 replica has no room
 * for a KV cache. With ZeRO 3 over DP 8 the eight devices hold one copy between them and
 * are one replica: each holds an eighth of the weights, its share of the batch and of the
 * KV cache, and every step gathers the other seven eighths of the weights from its peers. */
static void
test_zero3_replica (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwServeModel) m = NULL;
  Setup s;
  int hbm;
  double weights, kv_token, capacity, bound, link = 0, t;

  g_assert_true (setup_load (&s, "llama3-70b", "h100-sxm-80gb", 1));
  weights = (double) bpw_model_spec_parameters (&s.spec) * bpw_dtype_bytes (s.spec.param_dtype);
  kv_token = 2.0 * (double) s.spec.layers * (double) s.spec.kv_heads * (double) s.spec.head_dim *
             bpw_dtype_bytes (s.scenario.kv_dtype);
  hbm = bpw_blueprint_first_memory (s.bp, BPW_MEMORY_DEVICE);
  capacity = s.bp->memory[hbm].capacity.value;
  for (guint i = 0; i < s.bp->n_tiers; i++)
    link = MAX (link, s.bp->tiers[i].bandwidth.value);
  g_assert_cmpfloat (weights, >, capacity);

  s.mapping.parallel.dp = 8;
  g_assert_cmpint (bpw_serve_replicas (&s.mapping.parallel), ==, 8);
  g_assert_cmpint (bpw_serve_replica_shards (&s.mapping.parallel), ==, 1);
  g_assert_null (bpw_serve_model_new (&s.spec, &s.scenario, s.bp, &s.mapping, 64, 2048, 4096,
                                      &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN);
  g_clear_error (&error);

  s.mapping.parallel.zero = 3;
  g_assert_cmpint (bpw_serve_replicas (&s.mapping.parallel), ==, 1);
  g_assert_cmpint (bpw_serve_replica_shards (&s.mapping.parallel), ==, 8);
  m = bpw_serve_model_new (&s.spec, &s.scenario, s.bp, &s.mapping, 64, 2048, 4096, &error);
  g_assert_no_error (error);
  g_assert_cmpint (bpw_serve_model_devices (m), ==, 8);
  /* At most what the eight devices have left beside their eighth of the weights. */
  bound = 8.0 * (capacity - weights / 8.0) / kv_token;
  g_test_message ("KV cache %" G_GINT64_FORMAT " tokens, at most %.0f",
                  bpw_serve_model_kv_capacity (m), bound);
  g_assert_cmpfloat ((double) bpw_serve_model_kv_capacity (m), <=, bound);
  g_assert_cmpfloat ((double) bpw_serve_model_kv_capacity (m), >=, 0.8 * bound);
  /* A decode step waits for seven eighths of the weights over the fastest link. */
  g_assert_true (bpw_serve_model_decode_time (m, 8, 8.0 * 512, &t, &error));
  g_assert_no_error (error);
  g_test_message ("decode of 8 sequences: %.4f s, gather alone at least %.4f s", t,
                  weights * 7.0 / 8.0 / link);
  g_assert_cmpfloat (t, >=, weights * 7.0 / 8.0 / link);
  setup_clear (&s);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Serve/lengths", test_lengths);
  g_test_add_func ("/bpw/core/Serve/deterministic", test_deterministic);
  g_test_add_func ("/bpw/core/Serve/littles-law", test_littles_law);
  g_test_add_func ("/bpw/core/Serve/request-bound", test_request_bound);
  g_test_add_func ("/bpw/core/Serve/load-sweep", test_load_sweep);
  g_test_add_func ("/bpw/core/Serve/physics", test_physics);
  g_test_add_func ("/bpw/core/Serve/zero3-replica", test_zero3_replica);
  return g_test_run ();
}
