/* test-crossattn.c — Llama 3.2 Vision: a tiled encoder and cross-attention layers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <math.h>

#include "bpw-core.h"
#include "bpw-estimator-private.h"
#include "bpw-test-plan.h"

static void
scenario (BpwScenario *sc, BpwWorkloadPhase phase, gint64 batch, gint64 micro, gint64 seq,
          gint64 context, gint64 images)
{
  bpw_test_scenario (sc, phase, batch, micro, seq, context, BPW_RECOMPUTE_NONE);
  sc->images_set = TRUE;
  sc->images = images;
}

/* An mllama-shaped model small enough to bind whole: 6 layers, 2 of them cross-attention. */
static void
toy (BpwModelSpec *s)
{
  bpw_model_spec_init_defaults (s);
  s->name = g_strdup ("mllama-toy");
  s->vocab = 4096;
  s->embedding_extra = 8;
  s->hidden = 512;
  s->layers = 6;
  s->heads = 8;
  s->kv_heads = 2;
  s->head_dim = 64;
  s->ffn = 1408;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->max_positions = 4096;
  s->tied_embeddings = FALSE;
  s->n_cross_layers = 2;
  s->cross_layers[0] = 1;
  s->cross_layers[1] = 4;
  s->vision = (BpwVisionSpec) {
    .image_size = 56, .patch_size = 14, .channels = 3, .hidden = 128, .layers = 4,
    .heads = 4, .ffn = 256, .norm = BPW_NORM_LAYERNORM, .class_token = TRUE,
    .pre_norm = TRUE, .post_norm = TRUE, .feature_layer = -1, .keep_class = TRUE,
    .projector = BPW_PROJECTOR_LINEAR, .tiles = 2, .aspect_ratios = 3, .global_layers = 2,
    .n_intermediate = 2, .intermediate = { 1, 3 },
  };
}

/* Hugging Face's module list of MllamaForConditionalGeneration, summed by hand. */
static void
test_parameters (void)
{
  const guint64 h = 4096, f = 14336, V = 128256, d = 128, kvd = 8 * 128;
  const guint64 vh = 1280, vf = 5120, seq = 40 * 40 + 1, tiles = 4, ratios = 9;
  guint64 self = 0, cross = 0, text, vlayer, tower, projector;
  BpwModelSpec spec;

  self = 2 * h + h * h + 2 * h * kvd + h * h + 3 * h * f;
  cross = self + 2 * d + 2;      /* q_norm, k_norm, cross_attn_attn_gate, cross_attn_mlp_gate */
  text = (V + 8) * h + 32 * self + 8 * cross + h + V * h;
  vlayer = 2 * 2 * vh + 4 * vh * vh + (vh * vf + vf) + (vf * vh + vh);
  tower = 3 * 14 * 14 * vh                            /* patch_embedding, no bias */
          + vh                                        /* class_embedding */
          + seq * vh + 1 + ratios * tiles * seq * vh  /* gated_positional_embedding */
          + 2 * (ratios * tiles * vh + 1)             /* pre- and post-tile embeddings */
          + 2 * 2 * vh                                /* layernorm_pre, layernorm_post */
          + 32 * vlayer + 8 * (vlayer + 2);           /* transformer, global_transformer */
  projector = 6 * vh * h + h;

  g_assert_cmpuint (tower, ==, 863567379);
  g_assert_cmpuint (projector, ==, 31461376);
  g_assert_cmpuint (text + tower + projector, ==, G_GUINT64_CONSTANT (10670220835));

  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_model_spec_lookup_bundled ("llama3.2-11b-vision", &spec));
  g_assert_true (bpw_model_spec_validate (&spec, NULL));
  g_assert_cmpuint (bpw_model_spec_vision_parameters (&spec), ==, tower);
  g_assert_cmpuint (bpw_model_spec_projector_parameters (&spec), ==, projector);
  g_assert_cmpuint (bpw_model_spec_layer_parameters (&spec, 3), ==, cross);
  g_assert_cmpuint (bpw_model_spec_layer_parameters (&spec, 4), ==, self);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, G_GUINT64_CONSTANT (10670220835));
  g_assert_cmpint (bpw_model_spec_image_tokens (&spec), ==, 0);
  g_assert_cmpint (bpw_model_spec_cross_tokens (&spec), ==, 4 * 1601);
  g_assert_cmpint (bpw_model_spec_vision_encoder_tokens (&spec), ==, 4 * 1608);
  g_assert_cmpint (bpw_model_spec_self_layers (&spec), ==, 32);
  bpw_model_spec_clear (&spec);
}

/* The bundled model, the native file and the Hugging Face config are one model, and the
 * native format writes and reads it back unchanged. */
static void
test_formats (void)
{
  g_autofree char *native_path = g_build_filename (g_getenv ("BPW_SOURCE_ROOT"), "data",
                                                   "models", "llama3.2-11b-vision.json", NULL);
  g_autofree char *hf_path = g_test_build_filename (G_TEST_DIST, "data", "hf",
                                                    "llama-3.2-11b-vision.json", NULL);
  BpwModelSpec bundled, loaded[3];
  g_autofree char *json = NULL;
  g_autofree char *tmp = NULL;
  g_autoptr(GError) error = NULL;
  int fd;

  bpw_model_spec_init_defaults (&bundled);
  g_assert_true (bpw_model_spec_lookup_bundled ("llama3.2-11b-vision", &bundled));
  json = bpw_workload_to_json (&bundled);
  fd = g_file_open_tmp ("mllama-XXXXXX.json", &tmp, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (tmp, json, -1, &error));
  close (fd);
  for (guint i = 0; i < 3; i++)
    {
      const char *path = i == 0 ? native_path : i == 1 ? hf_path : tmp;

      bpw_model_spec_init_defaults (&loaded[i]);
      if (!bpw_workload_load (path, &loaded[i], &error))
        g_error ("%s: %s", path, error->message);
      g_free (loaded[i].name);
      loaded[i].name = g_strdup (bundled.name);
      g_free (loaded[i].source);
      loaded[i].source = g_strdup (bundled.source);
      if (!bpw_model_spec_equal (&loaded[i], &bundled))
        g_error ("%s differs from the bundled model", path);
      bpw_model_spec_clear (&loaded[i]);
    }
  g_unlink (tmp);
  bpw_model_spec_clear (&bundled);
}

static void
test_hf_refused (void)
{
  static const struct { const char *file; const char *message; } cases[] = {
    { "hf-mllama-cross-range.json",
      ":10:58: text_config.cross_attention_layers[7]: index 40 is out of range (0 to 39)" },
    { "hf-mllama-negative.json",
      ":43:20: vision_config.hidden_size: expected a positive integer, got -1280" },
    { "hf-mllama-intermediate-order.json",
      ":46:47: vision_config.intermediate_layers_indices[3]: index 15 does not follow 15" },
    { "hf-mllama-output-dim.json",
      ":58:26: vision_config.vision_output_dim: 6400, but hidden_size x (1 + 5 intermediate "
      "layers) is 7680" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "broken",
                                                     cases[i].file, NULL);
      g_autoptr(GError) error = NULL;
      BpwModelSpec spec;

      bpw_model_spec_init_defaults (&spec);
      g_assert_false (bpw_workload_load (path, &spec, &error));
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: got \"%s\"", cases[i].file, error->message);
      bpw_model_spec_clear (&spec);
    }
}

/* Model FLOPs of decode with images less without: the cross-attention layers run only with
 * images, each per sequence q and o (4 h a d), q k^T and p v over the image tokens
 * (4 a keys d), the SwiGLU MLP (6 h f); their K and V come from the cache. */
static void
test_cross_flops (void)
{
  BpwModelSpec spec;
  BpwScenario with, without;
  BpwParallel p;
  BpwFacts a, b;
  const guint64 h = 512, A = 8, d = 64, f = 1408, mb = 3, C = 2;
  const guint64 keys = 2 * 2 * (4 * 4 + 1);   /* images x tiles x (patches + class) */
  const guint64 kv_token = 2 * 2 * 64 * 2;    /* K and V, 2 heads of 64, bf16 */

  toy (&spec);
  g_assert_cmpuint (bpw_model_spec_cross_tokens (&spec) * 2, ==, keys);
  scenario (&with, BPW_WORKLOAD_DECODE, mb, mb, 1, 99, 2);
  scenario (&without, BPW_WORKLOAD_DECODE, mb, mb, 1, 99, 0);
  bpw_parallel_init_defaults (&p);
  g_assert_true (bpw_facts_compute (&spec, &with, &p, &a, NULL));
  g_assert_true (bpw_facts_compute (&spec, &without, &p, &b, NULL));
  g_assert_cmpuint (a.flops_model - b.flops_model, ==,
                    mb * C * (4 * h * A * d + 4 * A * keys * d + 6 * h * f));
  /* The attention to the images is its own layer type; the MLP stays the MLP's. */
  g_assert_true (a.flops_model_by_layer_type[BPW_LAYER_CROSS_ATTENTION]
                 == (BpwU128) (mb * C * (4 * h * A * d + 4 * A * keys * d)));
  g_assert_true (b.flops_model_by_layer_type[BPW_LAYER_CROSS_ATTENTION] == 0);
  g_assert_true (a.flops_model_by_layer_type[BPW_LAYER_MLP]
                 - b.flops_model_by_layer_type[BPW_LAYER_MLP] == (BpwU128) (mb * C * 6 * h * f));
  /* The cache: 4 self-attention layers x 100 positions, and the images' K and V in each
   * cross-attention layer; the plan holds the micro-batch's. */
  g_assert_cmpuint (a.image_kv_bytes_per_sequence, ==, C * keys * kv_token);
  g_assert_cmpuint (a.kv_bytes_per_sequence, ==, (4 * 100 + C * keys) * kv_token);
  g_assert_cmpuint (b.kv_bytes_per_sequence, ==, 4 * 100 * kv_token);
  g_assert_cmpuint ((guint64) a.memory.kv_cache, ==, mb * a.kv_bytes_per_sequence);
  bpw_facts_clear (&a);
  bpw_facts_clear (&b);
  bpw_model_spec_clear (&spec);
}

/* The ranks' work adds up to the model's under TP x PP x DP in three phases, with and
 * without images, frozen and trained encoders; every parameter is resident. */
static void
test_conservation (void)
{
  static const gint64 tps[] = { 1, 2, 4 }, pps[] = { 1, 2, 3 };
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  BpwModelSpec spec;
  guint built = 0;

  toy (&spec);
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    for (guint i = 0; i < G_N_ELEMENTS (tps); i++)
      for (guint k = 0; k < G_N_ELEMENTS (pps); k++)
        for (gint64 images = 0; images <= 2; images++)
          {
            g_autoptr(GError) error = NULL;
            gboolean decode = phases[ph] == BPW_WORKLOAD_DECODE;
            BpwScenario sc;
            BpwParallel p;
            BpwFacts exact;

            scenario (&sc, phases[ph], 8, 2, decode ? 1 : 64, decode ? 127 : 0, images);
            sc.train_vision = phases[ph] == BPW_WORKLOAD_TRAIN && images == 2;
            bpw_parallel_init_defaults (&p);
            p.tp = tps[i];
            p.pp = pps[k];
            p.dp = 2;
            p.sp = tps[i] > 1 && k == 1;
            if (!bpw_facts_compute (&spec, &sc, &p, &exact, &error))
              g_error ("%s tp %" G_GINT64_FORMAT " pp %" G_GINT64_FORMAT ": %s",
                       bpw_workload_phase_to_string (sc.phase), p.tp, p.pp, error->message);
            if (!exact.conservation.ok)
              g_error ("conservation: %s", exact.conservation.message);
            g_assert_cmpuint (exact.parameters, ==, bpw_model_spec_parameters (&spec));
            bpw_facts_clear (&exact);
            built++;
          }
  g_assert_cmpuint (built, ==, 3 * 3 * 3 * 3);
  bpw_model_spec_clear (&spec);
}

/* The estimator's template (a self-attention and a cross-attention block, counted per
 * stage) gives the plan of the whole model, over 1 to 3 stages in three phases. */
static void
test_estimator (void)
{
  static const gint64 pps[] = { 1, 2, 3 };
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h100-sxm-80gb");

  for (guint k = 0; k < G_N_ELEMENTS (pps); k++)
    for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
      {
        g_autoptr(BpwPlan) plan = NULL;
        g_autoptr(BpwEstimator) est = NULL;
        BpwModelSpec spec;
        BpwScenario sc;
        BpwMapping mapping;
        BpwEvaluation full, fast;
        gboolean decode = phases[ph] == BPW_WORKLOAD_DECODE;

        toy (&spec);
        scenario (&sc, phases[ph], 16, 2, decode ? 1 : 256, decode ? 511 : 0, 1);
        bpw_mapping_init_defaults (&mapping);
        mapping.parallel.tp = 2;
        mapping.parallel.pp = pps[k];
        mapping.parallel.dp = 2;
        plan = bpw_test_bind (&spec, &sc, bp, &mapping);
        bpw_evaluation_from_plan (plan, &full);
        est = bpw_test_estimate (&spec, &sc, bp, &mapping, &fast);
        g_test_message ("pp %" G_GINT64_FORMAT ", %s: plan %.9f s, estimate %.9f s", pps[k],
                        bpw_workload_phase_to_string (phases[ph]), full.step_time_s,
                        fast.step_time_s);
        if (fabs (full.step_time_s - fast.step_time_s) > 1e-9 * full.step_time_s ||
            fabs (full.mfu - fast.mfu) > 1e-9 * full.mfu ||
            fabs (full.peak_bytes - fast.peak_bytes) > 1e-6 * full.peak_bytes)
          g_error ("pp %" G_GINT64_FORMAT " %s: plan %.12g s, %.12g MFU, %.12g B; estimate "
                   "%.12g s, %.12g MFU, %.12g B", pps[k],
                   bpw_workload_phase_to_string (phases[ph]), full.step_time_s, full.mfu,
                   full.peak_bytes, fast.step_time_s, fast.mfu, fast.peak_bytes);
        g_assert_cmpint (full.slowest_stage, ==, fast.slowest_stage);
        bpw_mapping_clear (&mapping);
        bpw_scenario_clear (&sc);
        bpw_model_spec_clear (&spec);
      }
}

/* The pipeline's forward send carries the image states to a stage with cross-attention
 * layers in training and prefill, and its backward send their gradients: mb x images x
 * tiles x (patches + 1) x h elements more than the text's activations. Decode sends none. */
static guint64
pp_send_bytes (const BpwModelSpec *spec, const BpwScenario *sc, guint8 phase)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwDistWork) dist = NULL;
  BpwWorkGraph *graph = bpw_work_graph_new (spec, sc, &error);
  BpwParallel p;

  g_assert_no_error (error);
  bpw_parallel_init_defaults (&p);
  p.pp = 2;
  dist = bpw_dist_work_new (graph, &p, &error);
  g_assert_no_error (error);
  for (gint64 s = 0; s < dist->n_stages; s++)
    for (guint i = 0; i < dist->stages[s].collectives->len; i++)
      {
        const BpwCollective *c = &g_array_index (dist->stages[s].collectives, BpwCollective, i);

        if (c->group == BPW_GROUP_PP && c->phase == phase)
          return c->bytes;
      }
  return 0;
}

static void
test_pipeline_images (void)
{
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  const guint64 mb = 2, h = 512, per_image = 2 * (4 * 4 + 1);
  BpwModelSpec spec;

  toy (&spec);
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    {
      gboolean decode = phases[ph] == BPW_WORKLOAD_DECODE;
      guint8 dirs[] = { BPW_PHASE_FORWARD, BPW_PHASE_BACKWARD_ACTIVATION };

      for (guint d = 0; d < (phases[ph] == BPW_WORKLOAD_TRAIN ? 2 : 1); d++)
        {
          BpwScenario with, without;
          guint64 a, b;

          scenario (&with, phases[ph], 4, mb, decode ? 1 : 64, decode ? 63 : 0, 2);
          scenario (&without, phases[ph], 4, mb, decode ? 1 : 64, decode ? 63 : 0, 0);
          a = pp_send_bytes (&spec, &with, dirs[d]);
          b = pp_send_bytes (&spec, &without, dirs[d]);
          g_assert_cmpuint (b, >, 0);
          g_assert_cmpuint (a - b, ==, decode ? 0 : mb * 2 * per_image * h * 2);
        }
    }
  bpw_model_spec_clear (&spec);
}

/* Moving a cross-attention layer changes the search space's fingerprint: two models that
 * differ there must not share cached search results. */
static void
test_search_fingerprint (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  char *prints[2] = { NULL, NULL };
  BpwSearchLimits limits;
  BpwModelSpec spec;
  BpwScenario sc;

  g_assert_no_error (error);
  bpw_search_limits_init (&limits);
  scenario (&sc, BPW_WORKLOAD_PREFILL, 8, 1, 256, 0, 1);
  toy (&spec);
  for (guint i = 0; i < 2; i++)
    {
      BpwSearchSpace *space = bpw_search_space_new (&spec, &sc, bp, NULL, 8, &limits, &error);

      g_assert_no_error (error);
      prints[i] = g_strdup (space->fingerprint);
      bpw_search_space_free (space);
      spec.cross_layers[1] = 5;
    }
  g_assert_cmpstr (prints[0], !=, prints[1]);
  for (guint i = 0; i < 2; i++)
    g_free (prints[i]);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&sc);
}

static void
test_refused (void)
{
  BpwModelSpec spec;
  g_autoptr(GError) error = NULL;

  toy (&spec);
  spec.cross_layers[1] = 6;
  g_assert_false (bpw_model_spec_validate (&spec, &error));
  g_assert_nonnull (strstr (error->message, "cross_attention_layers[1]"));
  g_clear_error (&error);
  spec.cross_layers[1] = 4;
  spec.vision = (BpwVisionSpec) {
    .image_size = 56, .patch_size = 14, .channels = 3, .hidden = 128, .layers = 4,
    .heads = 4, .ffn = 256, .feature_layer = -1, .keep_class = TRUE,
    .projector = BPW_PROJECTOR_LINEAR,
  };
  g_assert_false (bpw_model_spec_validate (&spec, &error));
  g_assert_nonnull (strstr (error->message, "cross_attention_layers"));
  g_clear_error (&error);
  bpw_model_spec_clear (&spec);
  toy (&spec);
  spec.vision.intermediate[1] = 5;
  g_assert_false (bpw_model_spec_validate (&spec, &error));
  g_assert_nonnull (strstr (error->message, "intermediate_layers[1]"));
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/crossattn/parameters", test_parameters);
  g_test_add_func ("/crossattn/formats", test_formats);
  g_test_add_func ("/crossattn/hf-refused", test_hf_refused);
  g_test_add_func ("/crossattn/cross-flops", test_cross_flops);
  g_test_add_func ("/crossattn/conservation", test_conservation);
  g_test_add_func ("/crossattn/refused", test_refused);
  g_test_add_func ("/crossattn/search-fingerprint", test_search_fingerprint);
  g_test_add_func ("/crossattn/estimator", test_estimator);
  g_test_add_func ("/crossattn/pipeline-images", test_pipeline_images);
  return g_test_run ();
}
