/* test-vision.c — Llava-style multimodal models: the vision encoder and projector
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parameter counts are summed here tensor by tensor as the checkpoints list them
 * (openai/clip-vit-large-patch14-336's vision_model, Llava-1.5's mm_projector and
 * Llama-2-7B); encoder FLOPs are written out per matmul from the shapes, never read back
 * from the implementation.
 */
#define G_LOG_DOMAIN "bpw-test-vision"
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bpw-core.h"
#include "bpw-estimator-private.h"
#include "bpw-test-plan.h"

static void
llava (BpwModelSpec *spec)
{
  bpw_model_spec_init_defaults (spec);
  g_assert_true (bpw_model_spec_lookup_bundled ("llava-1.5-7b", spec));
}

/* A Llava-shaped model small enough to bind whole. */
static void
small_llava (BpwModelSpec *s, gint64 layers)
{
  bpw_model_spec_init_defaults (s);
  s->name = g_strdup ("llava-small");
  s->vocab = 4096;
  s->hidden = 512;
  s->layers = layers;
  s->heads = 8;
  s->kv_heads = 8;
  s->head_dim = 64;
  s->ffn = 1408;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->max_positions = 4096;
  s->tied_embeddings = FALSE;
  s->vision = (BpwVisionSpec) {
    .image_size = 64, .patch_size = 8, .channels = 3, .hidden = 256, .layers = 4,
    .heads = 4, .ffn = 1024, .norm = BPW_NORM_LAYERNORM, .quick_gelu = TRUE,
    .class_token = TRUE, .pre_norm = TRUE, .post_norm = TRUE, .feature_layer = -2,
    .projector = BPW_PROJECTOR_MLP,
  };
}

/* ---- parameters ---- */

static void
test_parameters (void)
{
  BpwModelSpec spec;
  const guint64 vh = 1024, vf = 4096, p = 14, side = 336 / 14;
  const guint64 h = 4096, f = 11008, V = 32000;
  guint64 clip = 0, layer = 0, projector = 0, text = 0, block = 0;

  /* CLIP vision_model: embeddings.patch_embedding (a bias-free conv 1024 x 3 x 14 x 14),
   * class_embedding, position_embedding (577 x 1024), pre_layrnorm, 24 layers, and
   * post_layernorm. */
  clip += vh * 3 * p * p;
  clip += vh;
  clip += (side * side + 1) * vh;
  clip += 2 * vh;
  layer += 2 * vh;                 /* layer_norm1 */
  layer += 3 * (vh * vh + vh);     /* q_proj, k_proj, v_proj with biases */
  layer += vh * vh + vh;           /* out_proj */
  layer += 2 * vh;                 /* layer_norm2 */
  layer += vh * vf + vf;           /* mlp.fc1 */
  layer += vf * vh + vh;           /* mlp.fc2 */
  clip += 24 * layer;
  clip += 2 * vh;
  g_assert_cmpuint (clip, ==, 303507456);

  /* mm_projector.0 (1024 -> 4096) and mm_projector.2 (4096 -> 4096), both biased. */
  projector = (vh * h + h) + (h * h + h);
  g_assert_cmpuint (projector, ==, 20979712);

  /* Llama-2-7B: embed_tokens, 32 blocks, norm, lm_head. */
  block = 4 * h * h + 3 * h * f + 2 * h;
  text = V * h + 32 * block + h + V * h;
  g_assert_cmpuint (text, ==, 6738415616);

  llava (&spec);
  g_assert_true (bpw_model_spec_validate (&spec, NULL));
  g_assert_cmpuint (bpw_model_spec_vision_layer_parameters (&spec), ==, layer);
  g_assert_cmpuint (bpw_model_spec_vision_parameters (&spec), ==, clip);
  g_assert_cmpuint (bpw_model_spec_projector_parameters (&spec), ==, projector);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, clip + projector + text);
  g_assert_cmpuint (bpw_model_spec_parameters (&spec), ==, 7062902784);
  g_assert_cmpint (bpw_model_spec_vision_run_layers (&spec), ==, 23);
  g_assert_cmpint (bpw_model_spec_vision_seq (&spec), ==, 577);
  g_assert_cmpint (bpw_model_spec_image_tokens (&spec), ==, 576);
  bpw_model_spec_clear (&spec);
}

/* Every parameter of the checkpoint is resident, in every phase: the graph's weights add
 * up to the model's parameters (the unused last encoder layer and post-norm included, and
 * the whole tower in decode, which encodes nothing); only the trained ones reach the
 * optimizer. */
static void
test_resident (void)
{
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  BpwModelSpec spec;

  llava (&spec);
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    for (gint64 images = 0; images <= 1; images++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(BpwWorkGraph) g = NULL;
        BpwScenario sc;
        guint64 weights = 0, tp = 0, updated = 0;

        bpw_test_scenario (&sc, phases[ph], 2, 1, phases[ph] == BPW_WORKLOAD_DECODE ? 1 : 1024,
                           phases[ph] == BPW_WORKLOAD_DECODE ? 1023 : 0, BPW_RECOMPUTE_NONE);
        sc.images_set = TRUE;
        sc.images = images;
        g = bpw_work_graph_new (&spec, &sc, &error);
        g_assert_no_error (error);
        for (guint i = 0; i < g->tensors->len; i++)
          {
            const BpwTensor *t = bpw_work_graph_tensor (g, i);

            if (t->kind == BPW_TENSOR_WEIGHT)
              {
                weights += t->elements;
                if (t->split == BPW_SPLIT_TP && t->layer == -1
                    && strcmp (bpw_work_graph_name (g, t->name), "embedding.w") != 0)
                  tp += t->elements;
              }
            if (t->kind == BPW_TENSOR_OPTIMIZER_STATE)
              updated += t->elements / 2;
          }
        g_assert_cmpuint (weights, ==, bpw_model_spec_parameters (&spec));
        /* Split over TP: per layer Q, K, V, O and both MLP matrices with the Q, K, V and
         * fc1 biases; the projector's matrices and first bias. */
        g_assert_cmpuint (tp, ==, 24 * (4 * 1024 * 1024 + 3 * 1024 + 2 * 1024 * 4096 + 4096)
                          + 1024 * 4096 + 4096 + 4096 * 4096);
        /* Of a frozen tower only its output is stored, the projector's input (for fc1's
         * weight gradient); the merge of the image tokens into the text reads no values,
         * so the projector's output is not stored. */
        if (phases[ph] == BPW_WORKLOAD_TRAIN)
          for (guint i = 0; i < g->tensors->len; i++)
            {
              const BpwTensor *t = bpw_work_graph_tensor (g, i);
              const char *name = bpw_work_graph_name (g, t->name);

              if (t->kind == BPW_TENSOR_ACTIVATION && t->stored == BPW_STORED_CHECKPOINT
                  && t->layer == -1
                  && strcmp (name, "vision.select.out") != 0
                  && (g_str_has_prefix (name, "vision.") || g_str_has_prefix (name, "attn.")
                      || g_str_has_prefix (name, "mlp.")
                      || strcmp (name, "projector.fc2.bias.out") == 0))
                g_error ("%s is stored for backward", name);
            }
        /* Training updates the decoder and the projector; the tower stays frozen. */
        if (phases[ph] == BPW_WORKLOAD_TRAIN)
          g_assert_cmpuint (updated, ==, 6738415616 + (images > 0 ? 20979712 : 0));
      }
  bpw_model_spec_clear (&spec);
}

/* ---- the encoder's FLOPs ---- */

typedef struct
{
  guint64 forward_matmul;   /* forward FLOPs of the vision layer type's matmuls */
  guint64 projector_matmul; /* of which the projector's */
  guint   qkv;              /* encoder layers run (their qkv matmuls) */
  guint   backward;         /* backward ops of the vision layer type */
  guint   encoder_backward; /* of which outside the projector */
  guint   optimizer;        /* optimizer updates of vision weights */
} VisionOps;

static VisionOps
vision_ops (const BpwWorkGraph *g)
{
  VisionOps v = { 0 };

  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);
      const char *name = bpw_work_graph_name (g, op->name);
      gboolean projector = g_str_has_prefix (name, "projector.");

      if (op->phase == BPW_PHASE_OPTIMIZER)
        {
          /* Updates carry the weight's layer type as optimizer; count vision weights by
           * name: the encoder's are "vision.*" and the block names at layer -1. */
          if (op->layer == -1 && !g_str_has_prefix (name, "embedding") &&
              !g_str_has_prefix (name, "projector."))
            v.optimizer++;
          continue;
        }
      if (op->layer_type != BPW_LAYER_VISION)
        continue;
      if (op->phase == BPW_PHASE_FORWARD &&
          (op->primitive == BPW_PRIM_MATMUL || op->primitive == BPW_PRIM_BATCHED_MATMUL))
        {
          v.forward_matmul += op->flops * op->count;
          if (projector)
            v.projector_matmul += op->flops * op->count;
          if (strcmp (name, "attn.qkv") == 0)
            v.qkv++;
        }
      if (op->phase == BPW_PHASE_BACKWARD_ACTIVATION || op->phase == BPW_PHASE_BACKWARD_WEIGHT)
        {
          v.backward++;
          if (!projector)
            v.encoder_backward++;
        }
    }
  return v;
}

/* Per image of CLIP ViT-L/14-336 up to the penultimate layer and Llava-1.5's projector:
 * patches x 588 x 1024 for the patch convolution; per layer over s = 577 tokens the Q, K,
 * V projections, the two s x s score matmuls of 16 heads of 64, the output projection and
 * the 4096-wide MLP; then the projector on the 576 patch tokens. */
static guint64
llava_encoder_flops (void)
{
  const guint64 n = 576, s = 577, vh = 1024, vf = 4096, a = 16, d = 64, h = 4096;
  guint64 layer = 2 * s * vh * 3 * vh + 2 * (2 * a * s * s * d) + 2 * s * vh * vh
                  + 2 * (2 * s * vh * vf);

  return 2 * n * 588 * vh + 23 * layer + 2 * n * vh * h + 2 * n * h * h;
}

static void
test_encoder_flops (void)
{
  BpwModelSpec spec;
  BpwScenario sc;
  g_autoptr(GError) error = NULL;
  const guint64 projector = 2ull * 576 * 1024 * 4096 + 2ull * 576 * 4096 * 4096;

  llava (&spec);
  g_assert_cmpuint (llava_encoder_flops (), ==, 2 * 576 * 588 * 1024ull
                    + 23ull * 2 * 577 * (4ull * 1024 * 1024 + 2 * 1024 * 4096)
                    + 23ull * 4 * 16 * 577 * 577 * 64 + projector);

  /* One and two images per sequence, frozen and trained encoder. */
  for (gint64 images = 1; images <= 2; images++)
    for (guint trained = 0; trained < 2; trained++)
      {
        g_autoptr(BpwWorkGraph) g = NULL;
        VisionOps v;

        bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 4, 2, 2048, 0, BPW_RECOMPUTE_NONE);
        sc.images_set = TRUE;
        sc.images = images;
        sc.train_vision = trained;
        g = bpw_work_graph_new (&spec, &sc, &error);
        g_assert_no_error (error);
        v = vision_ops (g);
        /* count = 2 micro-batches of 2 sequences each. */
        g_assert_cmpuint (v.forward_matmul, ==, 4 * images * llava_encoder_flops ());
        g_assert_cmpuint (v.projector_matmul, ==, 4 * images * projector);
        g_assert_cmpuint (v.qkv, ==, 23);
        /* The projector always trains; the encoder only when asked, and then all of it. */
        g_assert_cmpuint (v.backward, >, v.encoder_backward);
        if (trained)
          {
            g_assert_cmpuint (v.encoder_backward, >, 0);
            g_assert_cmpuint (v.optimizer, >, 0);
          }
        else
          {
            g_assert_cmpuint (v.encoder_backward, ==, 0);
            g_assert_cmpuint (v.optimizer, ==, 0);
          }
      }

  /* The decoder's text tokens: seq counts the image tokens, so the token embedding
   * gathers 2048 - 576 rows per sequence. */
  {
    g_autoptr(BpwWorkGraph) g = NULL;

    bpw_test_scenario (&sc, BPW_WORKLOAD_PREFILL, 1, 1, 2048, 0, BPW_RECOMPUTE_NONE);
    g = bpw_work_graph_new (&spec, &sc, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g->tokens_per_micro_batch, ==, 2048);
    g_assert_cmpuint (vision_ops (g).forward_matmul, ==, llava_encoder_flops ());
    for (guint i = 0; i < g->tensors->len; i++)
      {
        const BpwTensor *t = bpw_work_graph_tensor (g, i);

        if (strcmp (bpw_work_graph_name (g, t->name), "embedding.out") == 0)
          g_assert_cmpuint (t->elements, ==, (2048 - 576) * 4096ull);
      }
  }

  /* The facts: the tower and projector apart, FLOPs per image, exact and analytic. */
  {
    BpwParallel p;
    BpwFacts exact, analytic;

    bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 8, 1, 2048, 0, BPW_RECOMPUTE_NONE);
    bpw_parallel_init_defaults (&p);
    p.dp = 2;
    p.pp = 2;
    g_assert_true (bpw_facts_compute (&spec, &sc, &p, &exact, &error));
    g_assert_no_error (error);
    g_assert_true (bpw_facts_compute_analytic (&spec, &sc, &p, &analytic, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (exact.vision_parameters, ==, 303507456);
    g_assert_cmpuint (exact.projector_parameters, ==, 20979712);
    g_assert_cmpuint (exact.parameters, ==, 7062902784);
    g_assert_cmpuint (exact.vision_flops_per_image, ==, llava_encoder_flops ());
    g_assert_cmpuint (analytic.vision_flops_per_image, ==, llava_encoder_flops ());
    g_assert_cmpuint (analytic.vision_parameters, ==, 303507456);
    bpw_facts_clear (&exact);
    bpw_facts_clear (&analytic);
  }

  /* Decode: the image tokens are in the KV cache; no encoder runs. */
  {
    g_autoptr(BpwWorkGraph) g = NULL;

    bpw_test_scenario (&sc, BPW_WORKLOAD_DECODE, 1, 1, 1, 1000, BPW_RECOMPUTE_NONE);
    g = bpw_work_graph_new (&spec, &sc, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (vision_ops (g).forward_matmul, ==, 0);
  }
  bpw_model_spec_clear (&spec);
}

/* Bidirectional attention: model (semantic) FLOPs of the score matmuls are the whole
 * s x s matrix, unlike the decoder's causal triangle. */
static void
test_bidirectional (void)
{
  BpwModelSpec spec;
  BpwScenario sc;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwWorkGraph) g = NULL;
  guint seen = 0;

  small_llava (&spec, 2);
  bpw_test_scenario (&sc, BPW_WORKLOAD_PREFILL, 1, 1, 256, 0, BPW_RECOMPUTE_NONE);
  g = bpw_work_graph_new (&spec, &sc, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (op->phase == BPW_PHASE_FORWARD && op->primitive == BPW_PRIM_BATCHED_MATMUL)
        {
          if (op->layer_type == BPW_LAYER_VISION)
            {
              /* 65 tokens, 4 heads of 64. */
              g_assert_cmpuint (op->flops, ==, 2ull * 4 * 65 * 65 * 64);
              g_assert_cmpuint (op->semantic_flops, ==, op->flops);
              seen++;
            }
          else
            g_assert_cmpuint (op->semantic_flops, <, op->flops);
        }
    }
  /* Three of the four layers run (feature layer -2), two score matmuls each. */
  g_assert_cmpuint (seen, ==, 6);
  /* No KV cache for the encoder in prefill. */
  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);

      if (t->kind == BPW_TENSOR_KV_CACHE)
        g_assert_cmpint (t->layer, >=, 0);
    }
  bpw_model_spec_clear (&spec);
}

/* ---- conservation under TP, PP and DP with images ---- */

static void
check_conserved (const BpwModelSpec *spec, const BpwScenario *sc, const BpwParallel *p)
{
  g_autoptr(GError) error = NULL;
  BpwFacts exact, analytic;

  if (!bpw_facts_compute (spec, sc, p, &exact, &error))
    g_error ("%s tp %" G_GINT64_FORMAT " pp %" G_GINT64_FORMAT " dp %" G_GINT64_FORMAT
             ": %s", bpw_workload_phase_to_string (sc->phase), p->tp, p->pp, p->dp,
             error->message);
  if (!exact.conservation.ok)
    g_error ("conservation: %s", exact.conservation.message);
  g_assert_true (bpw_facts_compute_analytic (spec, sc, p, &analytic, &error));
  g_assert_no_error (error);
  g_assert_true (exact.flops_model == analytic.flops_model);
  g_assert_true (exact.flops_semantic == analytic.flops_semantic);
  g_assert_true (exact.flops_hardware == analytic.flops_hardware);
  g_assert_cmpuint (exact.vision_flops_per_image, ==, analytic.vision_flops_per_image);
  g_assert_cmpuint (exact.vision_parameters + exact.projector_parameters, <, exact.parameters);
  if (sc->phase != BPW_WORKLOAD_DECODE)
    g_assert_true (exact.flops_model_by_layer_type[BPW_LAYER_VISION] > 0);
  else
    g_assert_true (exact.flops_model_by_layer_type[BPW_LAYER_VISION] == 0);
  bpw_facts_clear (&exact);
  bpw_facts_clear (&analytic);
}

static void
test_conservation (void)
{
  static const gint64 tps[] = { 1, 2, 4 }, pps[] = { 1, 2, 4 };
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  BpwModelSpec spec;
  guint built = 0;

  small_llava (&spec, 4);
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    for (guint i = 0; i < G_N_ELEMENTS (tps); i++)
      for (guint k = 0; k < G_N_ELEMENTS (pps); k++)
        for (guint trained = 0; trained < 2; trained++)
          {
            BpwScenario sc;
            BpwParallel p;
            gboolean train = phases[ph] == BPW_WORKLOAD_TRAIN;

            if (!train && trained)
              continue;
            bpw_test_scenario (&sc, phases[ph], 16, 2, phases[ph] == BPW_WORKLOAD_DECODE ? 1 : 256,
                               phases[ph] == BPW_WORKLOAD_DECODE ? 511 : 0,
                               train && k == 1 ? BPW_RECOMPUTE_SELECTIVE
                               : train && k == 2 ? BPW_RECOMPUTE_FULL : BPW_RECOMPUTE_NONE);
            sc.images_set = TRUE;
            sc.images = 1 + (gint64) (i % 2);
            sc.train_vision = trained;
            bpw_parallel_init_defaults (&p);
            p.tp = tps[i];
            p.pp = pps[k];
            p.dp = 2;
            p.sp = tps[i] > 1 && k == 1;
            check_conserved (&spec, &sc, &p);
            built++;
          }
  g_assert_cmpuint (built, ==, 3 * 3 * 2 + 2 * 3 * 3);
  bpw_model_spec_clear (&spec);
}

/* ---- the estimator ---- */

/* The encoder runs before the first block, on the first stage: the estimate from the
 * template equals the plan of the whole model, frozen or trained, over 1 to 4 stages. */
static void
test_estimator (void)
{
  static const gint64 pps[] = { 1, 2, 4 };
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h100-sxm-80gb");

  for (guint k = 0; k < G_N_ELEMENTS (pps); k++)
    for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
      for (guint trained = 0; trained < 2; trained++)
        {
          g_autoptr(BpwPlan) plan = NULL;
          g_autoptr(BpwEstimator) est = NULL;
          BpwModelSpec spec;
          BpwScenario sc;
          BpwMapping mapping;
          BpwEvaluation full, fast;

          if (phases[ph] != BPW_WORKLOAD_TRAIN && trained)
            continue;
          small_llava (&spec, 8);
          bpw_test_scenario (&sc, phases[ph], 16, 2, phases[ph] == BPW_WORKLOAD_DECODE ? 1 : 512,
                             phases[ph] == BPW_WORKLOAD_DECODE ? 1023 : 0, BPW_RECOMPUTE_NONE);
          sc.train_vision = trained;
          bpw_mapping_init_defaults (&mapping);
          mapping.parallel.tp = 2;
          mapping.parallel.pp = pps[k];
          mapping.parallel.dp = 2;
          plan = bpw_test_bind (&spec, &sc, bp, &mapping);
          bpw_evaluation_from_plan (plan, &full);
          est = bpw_test_estimate (&spec, &sc, bp, &mapping, &fast);
          g_test_message ("pp %" G_GINT64_FORMAT ", %s%s: plan %.9f s, estimate %.9f s",
                          pps[k], bpw_workload_phase_to_string (phases[ph]),
                          trained ? " (encoder trained)" : "", full.step_time_s,
                          fast.step_time_s);
          bpw_test_assert_estimate_is_plan (&full, &fast);
          bpw_mapping_clear (&mapping);
          bpw_scenario_clear (&sc);
          bpw_model_spec_clear (&spec);
        }
}

/* llava-1.5-7b itself in every phase: the estimate is the plan of the whole model. */
static void
test_estimator_llava (void)
{
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h100-sxm-80gb");
  BpwModelSpec spec;

  llava (&spec);
  for (guint ph = 0; ph < G_N_ELEMENTS (phases); ph++)
    {
      g_autoptr(BpwEstimator) est = NULL;
      g_autoptr(BpwPlan) plan = NULL;
      BpwScenario sc;
      BpwParallel single;
      BpwMapping mapping;
      BpwEvaluation eval, full;
      BpwFacts facts;

      bpw_test_scenario (&sc, phases[ph], 128, 1, phases[ph] == BPW_WORKLOAD_DECODE ? 1 : 2048,
                         phases[ph] == BPW_WORKLOAD_DECODE ? 2047 : 0, BPW_RECOMPUTE_NONE);
      bpw_parallel_init_defaults (&single);
      g_assert_true (bpw_facts_compute_analytic (&spec, &sc, &single, &facts, &error));
      g_assert_no_error (error);
      est = bpw_estimator_new (&spec, &sc, bp, &error);
      g_assert_no_error (error);
      bpw_mapping_init_defaults (&mapping);
      mapping.parallel.tp = 4;
      mapping.parallel.pp = 2;
      mapping.parallel.dp = 8;
      g_assert_true (bpw_estimator_evaluate (est, &mapping, &eval, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (eval.model_flops, ==, bpw_u128_to_double (facts.flops_model));
      plan = bpw_test_bind (&spec, &sc, bp, &mapping);
      bpw_evaluation_from_plan (plan, &full);
      g_test_message ("llava-1.5-7b %s: plan %.9f s, estimate %.9f s, MFU %.4f",
                      bpw_workload_phase_to_string (phases[ph]), full.step_time_s,
                      eval.step_time_s, eval.mfu);
      bpw_test_assert_close (full.step_time_s, eval.step_time_s, 1e-9);
      bpw_test_assert_close (full.peak_bytes, eval.peak_bytes, 1e-6);
      bpw_facts_clear (&facts);
      bpw_mapping_clear (&mapping);
      bpw_scenario_clear (&sc);
    }
  bpw_model_spec_clear (&spec);
}

/* ---- the formats ---- */

static void
load_ok (const char *path, BpwModelSpec *spec)
{
  g_autoptr(GError) error = NULL;

  bpw_model_spec_init_defaults (spec);
  if (!bpw_workload_load (path, spec, &error))
    g_error ("%s: %s", path, error->message);
}

/* The bundled model, the native file and llava-hf's config are one model (the conversion
 * pads the vocabulary to 32064 and stores fp16), and the native format writes and reads it
 * back unchanged. */
static void
test_formats (void)
{
  BpwModelSpec hf, bundled, native, back;
  g_autofree char *native_path = g_build_filename (g_getenv ("BPW_SOURCE_ROOT"), "data",
                                                   "models", "llava-1.5-7b.json", NULL);
  g_autofree char *hf_path = g_test_build_filename (G_TEST_DIST, "data", "hf",
                                                    "llava-1.5-7b.json", NULL);
  g_autofree char *json = NULL;
  g_autofree char *tmp = NULL;
  g_autoptr(GError) error = NULL;
  int fd;

  llava (&bundled);
  load_ok (native_path, &native);
  load_ok (hf_path, &hf);
  g_assert_cmpint (hf.vocab, ==, 32064);
  g_assert_cmpint (hf.param_dtype, ==, BPW_DTYPE_FP16);
  g_assert_cmpuint (bpw_model_spec_parameters (&hf), ==, 7062902784 + 2 * 64 * 4096);
  hf.vocab = bundled.vocab;
  hf.param_dtype = bundled.param_dtype;
  for (BpwModelSpec *s = &hf; s != NULL; s = s == &hf ? &native : NULL)
    {
      g_free (s->name);
      s->name = g_strdup (bundled.name);
      g_free (s->source);
      s->source = g_strdup (bundled.source);
    }
  g_assert_true (memcmp (&hf.vision, &bundled.vision, sizeof hf.vision) == 0);
  g_assert_true (bpw_model_spec_equal (&hf, &bundled));
  g_assert_true (bpw_model_spec_equal (&native, &bundled));

  json = bpw_workload_to_json (&bundled);
  g_assert_nonnull (strstr (json, "\"feature_select\""));
  fd = g_file_open_tmp ("llava-XXXXXX.json", &tmp, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (tmp, json, -1, &error));
  close (fd);
  load_ok (tmp, &back);
  g_free (back.source);
  back.source = g_strdup (bundled.source);
  g_assert_true (bpw_model_spec_equal (&back, &bundled));
  g_unlink (tmp);
  bpw_model_spec_clear (&hf);
  bpw_model_spec_clear (&bundled);
  bpw_model_spec_clear (&native);
  bpw_model_spec_clear (&back);
}

/* image_seq_length that the vision config contradicts is refused at its line and column;
 * a vision tower other than CLIP is named as unsupported. */
static void
test_hf_refused (void)
{
  static const struct { const char *file; gint code; const char *message; } cases[] = {
    { "hf-llava-image-seq.json", BPW_ERROR_INVALID_INPUT,
      ":14:23: image_seq_length: 577 tokens per image, but the vision config gives 576" },
    { "hf-llava-siglip.json", BPW_ERROR_UNSUPPORTED,
      ":7:19: vision_config.model_type: vision model type \"siglip_vision_model\" is not "
      "supported" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "broken",
                                                     cases[i].file, NULL);
      g_autoptr(GError) error = NULL;
      BpwModelSpec spec;

      bpw_model_spec_init_defaults (&spec);
      g_assert_false (bpw_workload_load (path, &spec, &error));
      g_assert_error (error, BPW_ERROR, cases[i].code);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: got \"%s\"", cases[i].file, error->message);
      bpw_model_spec_clear (&spec);
    }
}

/* ---- refusals ---- */

static void
test_refused (void)
{
  BpwModelSpec spec, text;
  BpwScenario sc;
  BpwParallel p;
  g_autoptr(GError) error = NULL;

  llava (&spec);
  bpw_parallel_init_defaults (&p);
  /* Two images of 576 tokens do not fit in 1024 tokens. */
  bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 1, 1, 1024, 0, BPW_RECOMPUTE_NONE);
  sc.images_set = TRUE;
  sc.images = 2;
  g_assert_false (bpw_scenario_validate (&sc, &p, &spec, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "scenario.seq"));
  g_clear_error (&error);
  sc.images = 1;
  g_assert_true (bpw_scenario_validate (&sc, &p, &spec, &error));
  g_assert_no_error (error);

  /* TP must divide the encoder's 16 heads too. */
  p.tp = 32;
  sc.seq = 4096;
  g_assert_false (bpw_scenario_validate (&sc, &p, &spec, &error));
  g_clear_error (&error);
  bpw_parallel_init_defaults (&p);

  /* A graph built without the scenario's validation refuses as well. */
  {
    g_autoptr(BpwWorkGraph) g = NULL;

    sc.seq = 512;
    sc.images = 1;
    g = bpw_work_graph_new (&spec, &sc, &error);
    g_assert_null (g);
    g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
    g_assert_nonnull (strstr (error->message, "scenario.seq"));
    g_clear_error (&error);
  }

  /* A feature layer before the first encoder layer, and patches that do not tile. */
  spec.vision.feature_layer = -25;
  g_assert_false (bpw_model_spec_validate (&spec, &error));
  g_assert_nonnull (strstr (error->message, "vision.feature_layer"));
  g_clear_error (&error);
  spec.vision.feature_layer = -2;
  spec.vision.patch_size = 15;
  g_assert_false (bpw_model_spec_validate (&spec, &error));
  g_assert_nonnull (strstr (error->message, "vision.patch_size"));
  g_clear_error (&error);

  /* Images on a text-only model. */
  bpw_model_spec_init_defaults (&text);
  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", &text));
  g_assert_cmpint (bpw_scenario_images (&sc, &text), ==, 0);
  g_assert_false (bpw_scenario_validate (&sc, &p, &text, &error));
  g_assert_nonnull (strstr (error->message, "scenario.images"));
  g_clear_error (&error);
  sc.images = 0;
  g_assert_true (bpw_scenario_validate (&sc, &p, &text, &error));
  bpw_model_spec_clear (&text);
  bpw_model_spec_clear (&spec);
}

/* A search's fingerprint (what a resumed or sharded search must match) tells a Llava
 * model apart from the same model with another image size, and from its images per
 * sequence. */
static void
test_search_fingerprint (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  char *prints[3] = { NULL, NULL, NULL };
  BpwSearchLimits limits;
  BpwModelSpec spec;
  BpwScenario sc;

  g_assert_no_error (error);
  bpw_search_limits_init (&limits);
  bpw_test_scenario (&sc, BPW_WORKLOAD_TRAIN, 8, 1, 2048, 0, BPW_RECOMPUTE_NONE);
  llava (&spec);
  for (guint i = 0; i < 3; i++)
    {
      BpwSearchSpace *space = bpw_search_space_new (&spec, &sc, bp, NULL, 8, &limits, &error);

      g_assert_no_error (error);
      prints[i] = g_strdup (space->fingerprint);
      bpw_search_space_free (space);
      if (i == 0)
        spec.vision.image_size = 224;
      else
        sc.images_set = TRUE, sc.images = 2;
    }
  g_assert_cmpstr (prints[0], !=, prints[1]);
  g_assert_cmpstr (prints[1], !=, prints[2]);
  for (guint i = 0; i < 3; i++)
    g_free (prints[i]);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&sc);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/vision/parameters", test_parameters);
  g_test_add_func ("/vision/resident", test_resident);
  g_test_add_func ("/vision/encoder-flops", test_encoder_flops);
  g_test_add_func ("/vision/bidirectional", test_bidirectional);
  g_test_add_func ("/vision/conservation", test_conservation);
  g_test_add_func ("/vision/estimator", test_estimator);
  g_test_add_func ("/vision/estimator-llava", test_estimator_llava);
  g_test_add_func ("/vision/formats", test_formats);
  g_test_add_func ("/vision/hf-refused", test_hf_refused);
  g_test_add_func ("/vision/refused", test_refused);
  g_test_add_func ("/vision/search-fingerprint", test_search_fingerprint);
  return g_test_run ();
}
