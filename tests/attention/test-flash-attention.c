/* test-flash-attention.c — the FLOPs a fused (flash) attention kernel executes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A flash kernel computes the scores in blocks of 128 query rows by 128 keys and skips
 * every block above the causal diagonal (or outside a sliding window's band). For one
 * head of s positions, n = ⌈s / 128⌉ query blocks, the last of r = s − 128(n − 1) rows:
 *   no window:        E = 128² · n(n − 1)/2 + r · s
 *   window W = 128k:  E = 128² · Σ_{i<n−1} min(i + 1, k + 1) + r · (s − 128 · max(0, n − 1 − k))
 * (block i's rows reach back to the key block i − k). Every op of the core executes its
 * per-element work on E elements instead of the graph's s × min(s, W): QKᵀ and PV 2d each,
 * softmax 5; backward twice that, plus the QKᵀ that the backward recomputes on chip
 * (2d). The rest is the "fused-attention" transformation, so that the plan still adds
 * up. The kernel holds the head in tiles of 64: other head dimensions pay the rest as
 * padding. Decode steps, encoders and cross-attention are not causal and keep their matrix.
 */
#define G_LOG_DOMAIN "bpw-test-flash-attention"
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-test-plan.h"

#define BLOCK 128

/* ---- closed forms ---- */

static guint64
blocks_min (guint64 m, guint64 k)
{
  /* Σ_{i<m} min(i + 1, k + 1) */
  return m <= k + 1 ? m * (m + 1) / 2 : (k + 1) * (k + 2) / 2 + (m - k - 1) * (k + 1);
}

/* Score elements of one head the kernel runs: @window 0 or a multiple of the block. */
static guint64
executed_scores (guint64 s, guint64 window)
{
  guint64 n = (s + BLOCK - 1) / BLOCK, r = s - BLOCK * (n - 1), k;

  if (window == 0 || window >= s)
    return BLOCK * BLOCK * n * (n - 1) / 2 + r * s;
  g_assert_cmpuint (window % BLOCK, ==, 0);
  k = window / BLOCK;
  return BLOCK * BLOCK * blocks_min (n - 1, k) + r * (s - BLOCK * (n - 1 > k ? n - 1 - k : 0));
}

/* ---- the models ---- */

static void
small_model (BpwModelSpec *s, gint64 window, gboolean mla)
{
  bpw_model_spec_init_defaults (s);
  g_free (s->name);
  s->name = g_strdup (mla ? "mla" : "gqa");
  s->vocab = 4096;
  s->hidden = 256;
  s->layers = 2;
  s->heads = 4;
  s->kv_heads = mla ? 4 : 2;
  s->head_dim = mla ? 48 : 64;
  s->ffn = 512;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->max_positions = 8192;
  s->tied_embeddings = FALSE;
  s->dropout = FALSE;
  /* Layer 0 attends fully, layer 1 through the window. */
  s->window = window;
  s->window_first = window > 0 ? 1 : 0;
  if (mla)
    {
      s->kv_lora_rank = 128;
      s->qk_nope_head_dim = 32;
      s->qk_rope_head_dim = 16;
      s->v_head_dim = 32;
    }
}

static BpwPlan *
bind (const BpwModelSpec *spec, const BpwBlueprint *bp, BpwWorkloadPhase phase, gint64 seq,
      gint64 context, BpwRecompute recompute, gint64 tp, BpwMapping *mapping)
{
  BpwScenario scenario;
  BpwPlan *plan;

  bpw_test_scenario (&scenario, phase, 2, 1, seq, context, recompute);
  bpw_mapping_init_defaults (mapping);
  mapping->parallel.tp = tp;
  mapping->fusion = BPW_FUSION_ATTENTION;
  plan = bpw_test_bind (spec, &scenario, bp, mapping);
  bpw_scenario_clear (&scenario);
  return plan;
}

/* The attention-core op an op of the graph is or derives from ("attn.qk.dgrad" → "attn.qk"). */
static gboolean
is_core (const BpwWorkGraph *g, const BpwOp *op)
{
  static const char * const names[] = { "attn.qk", "attn.softmax", "attn.av" };
  const char *name = bpw_work_graph_name (g, op->name);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_has_prefix (name, names[i]) &&
        (name[strlen (names[i])] == '\0' || name[strlen (names[i])] == '.'))
      return TRUE;
  return FALSE;
}

/* Executed FLOPs of layer @layer's attention core in @phase, per task execution and
 * rank, less the matrix engine's padding (the padding transformation's). */
static double
core_flops (const BpwPlan *plan, gint layer, BpwPhase phase)
{
  const BpwWorkGraph *g = plan->dist->graph;
  double sum = 0;
  guint found = 0;

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    for (guint i = 0; i < plan->stages[s].tasks->len; i++)
      {
        const BpwPlanTask *t = &g_array_index (plan->stages[s].tasks, BpwPlanTask, i);
        const BpwOp *op = bpw_work_graph_op (g, t->op);

        if (t->layer != layer || t->phase != phase || !is_core (g, op))
          continue;
        g_assert_cmpint (t->fusion, ==, BPW_FUSION_ATTENTION);
        sum += t->flops - t->padding_flops;
        found++;
      }
  g_assert_cmpuint (found, ==, 3);
  return sum;
}

static double
transformation_flops (const BpwPlan *plan, const char *name)
{
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      if (strcmp (t->name, name) == 0)
        return t->flops;
    }
  return 0;
}

/* ---- forward ---- */

static void
test_forward (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  static const gint64 seqs[] = { 2, 100, 128, 200, 256, 1000, 1024, 4096 };
  static const gint64 windows[] = { 0, 256 };

  for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
    for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
      {
        BpwModelSpec spec;
        BpwMapping mapping;
        g_autoptr(BpwPlan) plan = NULL;
        guint64 s = (guint64) seqs[i];
        double d = 64, bh = 1 * 4;   /* one sequence per micro-batch, four heads */

        small_model (&spec, windows[w], FALSE);
        plan = bind (&spec, bp, BPW_WORKLOAD_PREFILL, seqs[i], 0, BPW_RECOMPUTE_NONE, 1,
                     &mapping);
        g_test_message ("seq %" G_GUINT64_FORMAT ", window %" G_GINT64_FORMAT ": %.0f, %.0f",
                        s, windows[w], core_flops (plan, 0, BPW_PHASE_FORWARD),
                        core_flops (plan, 1, BPW_PHASE_FORWARD));
        bpw_test_assert_close (core_flops (plan, 0, BPW_PHASE_FORWARD),
                               (4 * d + 5) * bh * (double) executed_scores (s, 0), 1e-12);
        bpw_test_assert_close (core_flops (plan, 1, BPW_PHASE_FORWARD),
                               (4 * d + 5) * bh *
                               (double) executed_scores (s, (guint64) windows[w]), 1e-12);
        bpw_mapping_clear (&mapping);
        bpw_model_spec_clear (&spec);
      }
}

/* A window that is no whole number of blocks: summed block by block by hand. */
static void
test_odd_window (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  /* W = 200, s = 512: query blocks reach keys 0-127, 0-255, 0-383 (row 256 reaches back
   * to key 57), 128-511 (row 384 to key 185): 128 · (128 + 256 + 384 + 384).
   * s = 1000: then 256-639, 384-767, 512-895 and the last 104 rows 640-999. */
  static const struct { gint64 seq; double scores; } cases[] = {
    { 512, 128.0 * (128 + 256 + 384 + 384) },
    { 1000, 128.0 * (128 + 256 + 5 * 384) + 104.0 * 360 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      BpwModelSpec spec;
      BpwMapping mapping;
      g_autoptr(BpwPlan) plan = NULL;

      small_model (&spec, 200, FALSE);
      plan = bind (&spec, bp, BPW_WORKLOAD_PREFILL, cases[i].seq, 0, BPW_RECOMPUTE_NONE, 1,
                   &mapping);
      bpw_test_assert_close (core_flops (plan, 1, BPW_PHASE_FORWARD),
                             (4 * 64 + 5) * 4 * cases[i].scores, 1e-12);
      bpw_mapping_clear (&mapping);
      bpw_model_spec_clear (&spec);
    }
}

/* ---- backward, recompute and the transformation ---- */

static void
test_backward (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  static const gint64 seqs[] = { 200, 1024, 1000 };

  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    for (BpwRecompute rc = BPW_RECOMPUTE_NONE; rc <= BPW_RECOMPUTE_SELECTIVE; rc++)
      {
        BpwModelSpec spec;
        BpwMapping mapping;
        g_autoptr(BpwPlan) plan = NULL;
        guint64 s = (guint64) seqs[i];
        double d = 64, bh = 4, micro_batches = 2, fused = 0;

        small_model (&spec, 256, FALSE);
        plan = bind (&spec, bp, BPW_WORKLOAD_TRAIN, seqs[i], 0, rc, 1, &mapping);
        for (gint layer = 0; layer < 2; layer++)
          {
            double e = (double) executed_scores (s, layer == 0 ? 0 : 256);
            double matrix = (double) s * (double) MIN (s, layer == 0 ? s : 256);
            /* Without recompute the backward redoes QKᵀ on chip; selective recompute redoes
             * the whole core before it instead. */
            double extra = rc == BPW_RECOMPUTE_NONE ? 2 * d : 0;

            bpw_test_assert_close (core_flops (plan, layer, BPW_PHASE_FORWARD),
                                   (4 * d + 5) * bh * e, 1e-12);
            bpw_test_assert_close (core_flops (plan, layer, BPW_PHASE_BACKWARD_ACTIVATION),
                                   (8 * d + 10 + extra) * bh * e, 1e-12);
            if (rc == BPW_RECOMPUTE_SELECTIVE)
              bpw_test_assert_close (core_flops (plan, layer, BPW_PHASE_RECOMPUTE),
                                     (4 * d + 5) * bh * e, 1e-12);
            fused += micro_batches * bh * ((4 * d + 5) * (1 + (rc == BPW_RECOMPUTE_SELECTIVE))
                                           * (e - matrix) + (8 * d + 10) * (e - matrix)
                                           + extra * e);
          }
        bpw_test_assert_close (transformation_flops (plan, "fused-attention"), fused, 1e-12);
        bpw_mapping_clear (&mapping);
        bpw_model_spec_clear (&spec);
      }
}

/* Executed = distributed + padding + fused attention, over every rank, under TP. */
static void
test_conserves (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  static const gint64 windows[] = { 0, 256, 200 };

  for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
    {
      BpwModelSpec spec;
      BpwMapping mapping;
      g_autoptr(BpwPlan) plan = NULL;
      double executed = 0, distributed = 0;

      small_model (&spec, windows[w], FALSE);
      plan = bind (&spec, bp, BPW_WORKLOAD_TRAIN, 1000, 0, BPW_RECOMPUTE_NONE, 2, &mapping);
      for (gint64 s = 0; s < plan->dist->n_stages; s++)
        for (guint i = 0; i < plan->stages[s].tasks->len; i++)
          {
            const BpwTask *t = &g_array_index (plan->dist->stages[s].tasks, BpwTask, i);
            const BpwPlanTask *p = &g_array_index (plan->stages[s].tasks, BpwPlanTask, i);
            double per_step = p->phase == BPW_PHASE_OPTIMIZER ? p->count
                              : p->count * (double) plan->micro_batches;

            distributed += (double) t->flops * (double) t->count;
            executed += p->flops * per_step;
          }
      /* Per rank; tp ranks. */
      executed *= 2;
      distributed *= 2;
      g_assert_cmpfloat (transformation_flops (plan, "fused-attention"), <, 0.0);
      bpw_test_assert_close (executed, distributed + transformation_flops (plan, "padding") +
                                       transformation_flops (plan, "fused-attention"), 1e-12);
      bpw_mapping_clear (&mapping);
      bpw_model_spec_clear (&spec);
    }
}

/* ---- what stays as the graph has it ---- */

/* A decode step's single query row reaches every key: nothing to skip. The kernel is
 * still the one fused attention kernel. */
static void
test_decode_keeps_matrix (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  BpwModelSpec spec;
  BpwMapping mapping;
  g_autoptr(BpwPlan) plan = NULL;
  const BpwWorkGraph *g;

  small_model (&spec, 256, FALSE);
  plan = bind (&spec, bp, BPW_WORKLOAD_DECODE, 1, 1023, BPW_RECOMPUTE_NONE, 1, &mapping);
  g = plan->dist->graph;
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwTask *t = &g_array_index (plan->dist->stages[0].tasks, BpwTask, i);
      const BpwPlanTask *p = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);

      if (!is_core (g, bpw_work_graph_op (g, t->op)))
        continue;
      g_assert_cmpint (p->fusion, ==, BPW_FUSION_ATTENTION);
      bpw_test_assert_close (p->flops - p->padding_flops, (double) t->flops, 1e-12);
    }
  g_assert_cmpfloat (transformation_flops (plan, "fused-attention"), ==, 0.0);
  bpw_mapping_clear (&mapping);
  bpw_model_spec_clear (&spec);
}

/* Multi-head latent attention in training and prefill runs the same core with its own
 * widths: QKᵀ over the nope and rope parts (48), PV over the value head (32). */
static void
test_mla (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  static const gint64 seqs[] = { 200, 1024 };

  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    {
      BpwModelSpec spec;
      BpwMapping mapping;
      g_autoptr(BpwPlan) plan = NULL;
      double e = (double) executed_scores ((guint64) seqs[i], 0);

      small_model (&spec, 0, TRUE);
      g_assert_true (bpw_model_spec_is_mla (&spec));
      plan = bind (&spec, bp, BPW_WORKLOAD_TRAIN, seqs[i], 0, BPW_RECOMPUTE_NONE, 1,
                   &mapping);
      bpw_test_assert_close (core_flops (plan, 0, BPW_PHASE_FORWARD),
                             (2 * 48 + 5 + 2 * 32) * 4 * e, 1e-12);
      bpw_test_assert_close (core_flops (plan, 0, BPW_PHASE_BACKWARD_ACTIVATION),
                             (4 * 48 + 10 + 4 * 32 + 2 * 48) * 4 * e, 1e-12);
      bpw_mapping_clear (&mapping);
      bpw_model_spec_clear (&spec);
    }
}

/* ---- the estimator prices what the plan prices ---- */

static void
test_estimate_is_plan (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  static const BpwWorkloadPhase phases[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL };

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      BpwModelSpec spec;
      BpwScenario scenario;
      BpwMapping mapping;
      BpwEvaluation full, fast;
      g_autoptr(BpwPlan) plan = NULL;
      g_autoptr(BpwEstimator) est = NULL;

      small_model (&spec, 200, FALSE);
      spec.layers = 4;
      bpw_test_scenario (&scenario, phases[i], 4, 1, 1000, 0, BPW_RECOMPUTE_NONE);
      bpw_mapping_init_defaults (&mapping);
      mapping.parallel.tp = 2;
      mapping.parallel.pp = 2;
      plan = bpw_test_bind (&spec, &scenario, bp, &mapping);
      bpw_evaluation_from_plan (plan, &full);
      est = bpw_test_estimate (&spec, &scenario, bp, &mapping, &fast);
      bpw_test_assert_estimate_is_plan (&full, &fast);
      bpw_mapping_clear (&mapping);
      bpw_scenario_clear (&scenario);
      bpw_model_spec_clear (&spec);
    }
}

/* The flash kernel is the core only: the QKV projection in front of it (its forward, bias
 * and gradients) stays a kernel of its own, whose output reaches device memory, while every
 * core op of forward, backward and recompute belongs to the fused group. */
static void
test_projection_outside_kernel (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  BpwModelSpec spec;
  BpwMapping mapping;
  g_autoptr(BpwPlan) plan = NULL;
  const BpwWorkGraph *g;
  guint projection = 0, core = 0;

  small_model (&spec, 0, FALSE);
  spec.qkv_bias = TRUE;
  plan = bind (&spec, bp, BPW_WORKLOAD_TRAIN, 256, 0, BPW_RECOMPUTE_SELECTIVE, 1, &mapping);
  g = plan->dist->graph;
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    for (guint i = 0; i < plan->stages[s].tasks->len; i++)
      {
        const BpwPlanTask *t = &g_array_index (plan->stages[s].tasks, BpwPlanTask, i);
        const BpwOp *op = bpw_work_graph_op (g, t->op);
        const char *name = bpw_work_graph_name (g, op->name);

        if (g_str_has_prefix (name, "attn.qkv"))
          {
            g_assert_cmpint (t->fusion, !=, BPW_FUSION_ATTENTION);
            g_assert_cmpfloat (t->fused_bytes, ==, 0);
            projection++;
          }
        else if (is_core (g, op))
          {
            g_assert_cmpint (t->fusion, ==, BPW_FUSION_ATTENTION);
            core++;
          }
      }
  /* forward, bias, their gradients; QKᵀ, softmax, PV forward, backward and recomputed */
  g_assert_cmpuint (projection, >=, 5);
  g_assert_cmpuint (core, >=, 9);
  bpw_mapping_clear (&mapping);
  bpw_model_spec_clear (&spec);
}

/* Heads of 80 run in the kernel's 128-wide tiles: QKᵀ and PV, forward and backward, pay
 * 48/80 more as padding (softmax none), and the backward's engine runs at the efficiency
 * of its forward kernel's size. */
static void
test_head_padding (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  BpwModelSpec spec;
  BpwMapping mapping;
  g_autoptr(BpwPlan) plan = NULL;
  const BpwWorkGraph *g;
  double forward_qk = 0;
  guint padded = 0, backward = 0;

  small_model (&spec, 0, FALSE);
  spec.head_dim = 80;
  plan = bind (&spec, bp, BPW_WORKLOAD_TRAIN, 256, 0, BPW_RECOMPUTE_NONE, 1, &mapping);
  g = plan->dist->graph;
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < plan->stages[0].tasks->len; i++)
      {
        const BpwPlanTask *t = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
        const BpwOp *op = bpw_work_graph_op (g, t->op);
        const char *name = bpw_work_graph_name (g, op->name);

        if (t->layer != 0 || !is_core (g, op))
          continue;
        if (pass == 0 && t->phase == BPW_PHASE_FORWARD && strcmp (name, "attn.qk") == 0)
          forward_qk = t->flops;
        if (pass == 0 && op->primitive == BPW_PRIM_BATCHED_MATMUL)
          {
            bpw_test_assert_close (t->padding_flops / (t->flops - t->padding_flops),
                                   48.0 / 80.0, 1e-12);
            padded++;
          }
        else if (pass == 0)
          g_assert_cmpfloat (t->padding_flops, ==, 0);
        if (pass == 1 && t->phase == BPW_PHASE_BACKWARD_ACTIVATION &&
            strcmp (name, "attn.qk.dgrad") == 0)
          {
            g_assert_cmpfloat (forward_qk, >, 0);
            g_assert_cmpfloat (t->flops, >, forward_qk);
            bpw_test_assert_close (t->rate_flops, forward_qk, 1e-12);
            backward++;
          }
      }
  g_assert_cmpuint (padded, >=, 4);
  g_assert_cmpuint (backward, ==, 1);
  bpw_mapping_clear (&mapping);
  bpw_model_spec_clear (&spec);
}

/* A stack that states its flash kernel's efficiency prices the core's products with it, by
 * the size of their forward product, and nothing else; the table survives a round trip. */
static void
test_stack_efficiency (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  g_autoptr(BpwBlueprint) back = NULL;
  g_autofree char *json = NULL;
  static const BpwEfficiencyPoint points[] = { { 1e6, 0.2 }, { 1e12, 0.6 } };
  BpwModelSpec spec;
  BpwMapping mapping, mapping_back;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlan) again = NULL;
  g_autoptr(GError) error = NULL;
  const BpwWorkGraph *g;
  guint core = 0, backward = 0;

  bpw_efficiency_table_set (bp, &bp->stack.attention_efficiency, points, 2,
                            BPW_INTERPOLATION_LOG_LINEAR, BPW_PROVENANCE_MEASURED, "test");
  json = bpw_blueprint_to_json (bp);
  back = bpw_blueprint_load_data ("back.json", json, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->stack.attention_efficiency.n_points, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_cmpfloat (back->stack.attention_efficiency.points[i].size, ==, points[i].size);
      g_assert_cmpfloat (back->stack.attention_efficiency.points[i].efficiency, ==,
                         points[i].efficiency);
    }
  g_assert_cmpint (back->stack.attention_efficiency.kind, ==, BPW_PROVENANCE_MEASURED);
  g_assert_cmpstr (back->stack.attention_efficiency.source, ==, "test");

  small_model (&spec, 0, FALSE);
  plan = bind (&spec, bp, BPW_WORKLOAD_TRAIN, 1024, 0, BPW_RECOMPUTE_NONE, 1, &mapping);
  again = bind (&spec, back, BPW_WORKLOAD_TRAIN, 1024, 0, BPW_RECOMPUTE_NONE, 1, &mapping_back);
  g = plan->dist->graph;
  for (guint i = 0; i < plan->stages[0].tasks->len; i++)
    {
      const BpwPlanTask *t = &g_array_index (plan->stages[0].tasks, BpwPlanTask, i);
      const BpwPlanTask *u = &g_array_index (again->stages[0].tasks, BpwPlanTask, i);
      const BpwOp *op = bpw_work_graph_op (g, t->op);
      double eff;

      g_assert_cmpfloat (t->cost.time_s, ==, u->cost.time_s);
      if (t->engine != BPW_ENGINE_MATRIX || !(t->flops > 0))
        continue;
      eff = t->cost.compute_s > 0 ? t->flops / (plan->rates.matrix.peak * t->cost.compute_s) : 0;
      if (is_core (g, op))
        {
          double key = t->rate_flops > 0 ? t->rate_flops : t->flops;

          bpw_test_assert_close (eff, bpw_efficiency_table_lookup (
                                   &bp->stack.attention_efficiency, key), 1e-12);
          core++;
          backward += t->phase != BPW_PHASE_FORWARD;
        }
      else
        bpw_test_assert_close (eff, bpw_efficiency_table_lookup (plan->rates.matrix.efficiency,
                                                                 t->flops), 1e-12);
    }
  g_assert_cmpuint (core, >=, 4);
  g_assert_cmpuint (backward, >=, 2);
  bpw_mapping_clear (&mapping);
  bpw_mapping_clear (&mapping_back);
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/FlashAttention/forward", test_forward);
  g_test_add_func ("/bpw/core/FlashAttention/odd-window", test_odd_window);
  g_test_add_func ("/bpw/core/FlashAttention/backward", test_backward);
  g_test_add_func ("/bpw/core/FlashAttention/conserves", test_conserves);
  g_test_add_func ("/bpw/core/FlashAttention/decode-keeps-matrix", test_decode_keeps_matrix);
  g_test_add_func ("/bpw/core/FlashAttention/mla", test_mla);
  g_test_add_func ("/bpw/core/FlashAttention/estimate-is-plan", test_estimate_is_plan);
  g_test_add_func ("/bpw/core/FlashAttention/head-padding", test_head_padding);
  g_test_add_func ("/bpw/core/FlashAttention/stack-efficiency", test_stack_efficiency);
  g_test_add_func ("/bpw/core/FlashAttention/projection-outside-kernel",
                   test_projection_outside_kernel);
  return g_test_run ();
}
