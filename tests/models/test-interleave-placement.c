/* test-interleave-placement.c — which blocks each pipeline rank runs, chunk by chunk
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Virtual stage k = c·pp + s is model chunk c of rank s, and the virtual stages run the
 * blocks in order: under interleaving rank s holds one run of blocks per chunk, not one
 * contiguous run. Checked against the split's own counts (prefix sums taken here), against
 * the work each rank is given where layers differ along the depth (Qwen2's windowed upper
 * half, DeepSeek's dense first layers), for the estimator against the bound plan, and for
 * the stage labels.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-stage-split.h"
#include "bpw-test-plan.h"

static char *
fixture (const char *relative)
{
  return g_test_build_filename (G_TEST_DIST, "data", relative, NULL);
}

static void
load_model (const char *name, BpwModelSpec *spec)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = strchr (name, '/') != NULL ? fixture (name) : g_strdup (name);

  bpw_model_spec_init_defaults (spec);
  g_assert_true (bpw_workload_load (path, spec, &error));
  g_assert_no_error (error);
}

/* Training, @micro_batches of one sequence of @seq tokens. */
static void
scenario_for (BpwScenario *sc, gint64 micro_batches, gint64 seq)
{
  bpw_scenario_init_defaults (sc);
  sc->global_batch = micro_batches;
  sc->micro_batch = 1;
  sc->seq = seq;
  sc->recompute = BPW_RECOMPUTE_FULL;
}

static void
parallel_for (BpwParallel *p, BpwSchedule schedule, gint64 pp, gint64 v)
{
  bpw_parallel_init_defaults (p);
  p->pp = pp;
  p->schedule = schedule;
  p->interleave = v;
}

static BpwDistWork *
distribute (const BpwModelSpec *spec, const BpwScenario *sc, const BpwParallel *p)
{
  g_autoptr(GError) error = NULL;
  BpwWorkGraph *graph = bpw_work_graph_new (spec, sc, &error);
  BpwDistWork *dist;

  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, p, &error);
  g_assert_no_error (error);
  return dist;
}

/* Rank @s's blocks as the definition gives them: for each chunk c, the blocks of virtual
 * stage c·pp + s, which starts after the blocks of every earlier virtual stage. Counts
 * come from the split; the positions are summed here. Returns how many (into @out). */
static gint64
expected_blocks (const BpwParallel *p, const BpwModelSpec *spec, const BpwScenario *sc,
                 gint64 s, gint64 *out)
{
  g_autoptr(GError) error = NULL;
  BpwStageSplit sp;
  gint64 n = 0;

  g_assert_true (bpw_stage_split_resolve (&sp, p, spec, sc, &error));
  g_assert_no_error (error);
  for (gint64 c = 0; c < sp.chunks; c++)
    {
      gint64 k = c * sp.pp + s, first = 0;

      for (gint64 j = 0; j < k; j++)
        first += bpw_stage_split_virtual (&sp, j);
      for (gint64 i = 0; i < bpw_stage_split_virtual (&sp, k); i++)
        out[n++] = first + i;
    }
  return n;
}

/* ---- every rank holds the union of its chunks ---- */

static void
test_rank_is_union_of_chunks (void)
{
  static const guint32 per_rank[] = { 15, 17 };
  static const guint32 per_virtual[] = { 7, 9, 8, 8 };
  static const struct
  {
    BpwSchedule schedule;
    gint64 pp, v;
    BpwPpSplit split;
    gint lighter;
    const guint32 *listed;
    gint32 n_listed;
  } cases[] = {
    { BPW_SCHEDULE_INTERLEAVED, 2, 2, BPW_PP_SPLIT_AUTO, 0, NULL, 0 },
    { BPW_SCHEDULE_INTERLEAVED, 4, 2, BPW_PP_SPLIT_AUTO, 0, NULL, 0 },
    { BPW_SCHEDULE_INTERLEAVED, 3, 2, BPW_PP_SPLIT_AUTO, 0, NULL, 0 },      /* balanced */
    { BPW_SCHEDULE_INTERLEAVED, 4, 4, BPW_PP_SPLIT_LIGHTER, 1, NULL, 0 },
    { BPW_SCHEDULE_INTERLEAVED, 2, 2, BPW_PP_SPLIT_EXPLICIT, 0, per_rank, 2 },
    { BPW_SCHEDULE_INTERLEAVED, 2, 2, BPW_PP_SPLIT_EXPLICIT, 0, per_virtual, 4 },
    { BPW_SCHEDULE_1F1B, 5, 1, BPW_PP_SPLIT_AUTO, 0, NULL, 0 },
    { BPW_SCHEDULE_GPIPE, 3, 1, BPW_PP_SPLIT_LIGHTER, 2, NULL, 0 },
    { BPW_SCHEDULE_ZB_H1, 4, 1, BPW_PP_SPLIT_AUTO, 0, NULL, 0 },
  };
  BpwModelSpec spec;

  load_model ("llama3-8b", &spec);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(BpwDistWork) dist = NULL;
      g_autofree gint64 *want = g_new (gint64, spec.layers);
      g_autofree gint64 *seen = g_new0 (gint64, spec.layers);
      BpwScenario sc;
      BpwParallel p;
      BpwConservation report;

      scenario_for (&sc, 60, 512);
      parallel_for (&p, cases[i].schedule, cases[i].pp, cases[i].v);
      if (cases[i].schedule == BPW_SCHEDULE_ZB_H1)
        sc.recompute = BPW_RECOMPUTE_NONE;  /* ZB-H1 holds W passes back */
      p.pp_split = cases[i].split;
      p.pp_lighter = cases[i].lighter;
      if (cases[i].listed != NULL)
        {
          p.n_stage_layers = cases[i].n_listed;
          memcpy (p.stage_layers, cases[i].listed, cases[i].n_listed * sizeof (guint32));
        }
      dist = distribute (&spec, &sc, &p);
      for (gint64 s = 0; s < dist->n_stages; s++)
        {
          const BpwStage *st = &dist->stages[s];
          gint64 n = expected_blocks (&p, &spec, &sc, s, want);
          g_autofree gboolean *held = g_new0 (gboolean, spec.layers);

          g_assert_cmpint (st->n_layers, ==, n);
          g_assert_cmpint (st->first_layer, ==, want[0]);
          for (gint64 k = 0; k < n; k++)
            {
              gint64 stage, chunk, slot;

              g_assert_cmpint (bpw_dist_work_stage_layer (dist, s, k), ==, want[k]);
              bpw_dist_work_place_layer (dist, want[k], &stage, &chunk, &slot);
              g_assert_cmpint (stage, ==, s);
              g_assert_cmpint (slot, ==, k);
              g_assert_cmpint (chunk, <, MAX (cases[i].v, 1));
              held[want[k]] = TRUE;
              seen[want[k]]++;
            }
          /* Every task of a block is on the rank that holds the block. */
          for (guint t = 0; t < st->tasks->len; t++)
            {
              const BpwOp *op = bpw_work_graph_op (dist->graph,
                                                   g_array_index (st->tasks, BpwTask, t).op);

              if (op->layer >= 0)
                g_assert_true (held[op->layer]);
            }
        }
      for (gint64 l = 0; l < spec.layers; l++)
        g_assert_cmpint (seen[l], ==, 1);
      bpw_dist_work_check_conservation (dist, &report);
      if (!report.ok)
        g_error ("case %u: %s", i, report.message);
      bpw_conservation_clear (&report);
      bpw_scenario_clear (&sc);
    }
  /* The example of the definition: 32 blocks over pp 2 × v 2, eight a chunk. */
  {
    g_autoptr(BpwDistWork) dist = NULL;
    BpwScenario sc;
    BpwParallel p;

    scenario_for (&sc, 4, 512);
    parallel_for (&p, BPW_SCHEDULE_INTERLEAVED, 2, 2);
    dist = distribute (&spec, &sc, &p);
    g_assert_cmpint (bpw_dist_work_stage_layer (dist, 0, 7), ==, 7);
    g_assert_cmpint (bpw_dist_work_stage_layer (dist, 0, 8), ==, 16);
    g_assert_cmpint (bpw_dist_work_stage_layer (dist, 1, 0), ==, 8);
    g_assert_cmpint (bpw_dist_work_stage_layer (dist, 1, 15), ==, 31);
    bpw_scenario_clear (&sc);
  }
  bpw_model_spec_clear (&spec);
}

/* ---- each rank does its own layers' work ---- */

/* Per-rank FLOPs per step of the blocks on stage @s, and what the graph's own blocks @want
 * add up to (one rank: no TP, DP or CP to divide them). */
static void
block_flops (const BpwDistWork *dist, gint64 s, const gint64 *want, gint64 n,
             double *rank, double *graph)
{
  const BpwWorkGraph *g = dist->graph;
  const GArray *tasks = dist->stages[s].tasks;
  g_autofree gboolean *held = g_new0 (gboolean, g->spec.layers);

  *rank = *graph = 0;
  for (guint t = 0; t < tasks->len; t++)
    {
      const BpwTask *task = &g_array_index (tasks, BpwTask, t);

      if (bpw_work_graph_op (g, task->op)->layer >= 0)
        *rank += (double) task->flops * (double) task->count;
    }
  for (gint64 k = 0; k < n; k++)
    held[want[k]] = TRUE;
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (op->layer >= 0 && held[op->layer])
        *graph += (double) op->flops * (double) op->count;
    }
}

static void
test_flops_follow_layers (void)
{
  /* Qwen2's window is 4 096 tokens: longer sequences make its windowed blocks lighter. */
  static const struct { const char *model; gint64 pp, v, seq; } cases[] = {
    { "hf/qwen2-7b-use-sliding-window.json", 2, 2, 16384 },
    { "hf/qwen2-7b-use-sliding-window.json", 4, 2, 16384 },   /* 28 over 8: balanced */
    { "hf/deepseek-v3.json", 4, 2, 4096 },                    /* 61 over 8, dense first 3 */
    { "hf/deepseek-v3.json", 2, 3, 4096 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(BpwDistWork) dist = NULL;
      BpwModelSpec spec;
      BpwScenario sc;
      BpwParallel p;
      gint64 total_windowed = 0;

      load_model (cases[i].model, &spec);
      scenario_for (&sc, cases[i].pp * 2, cases[i].seq);
      parallel_for (&p, BPW_SCHEDULE_INTERLEAVED, cases[i].pp, cases[i].v);
      dist = distribute (&spec, &sc, &p);
      for (gint64 s = 0; s < dist->n_stages; s++)
        {
          g_autofree gint64 *want = g_new (gint64, spec.layers);
          gint64 n = expected_blocks (&p, &spec, &sc, s, want), windowed = 0, moe = 0;
          double rank, graph;

          block_flops (dist, s, want, n, &rank, &graph);
          for (gint64 k = 0; k < n; k++)
            {
              windowed += bpw_model_spec_layer_window (&spec, want[k]) > 0;
              moe += bpw_model_spec_is_moe_layer (&spec, want[k]);
            }
          g_test_message ("%s pp %" G_GINT64_FORMAT " x v %" G_GINT64_FORMAT ": stage %"
                          G_GINT64_FORMAT " %" G_GINT64_FORMAT " blocks, %" G_GINT64_FORMAT
                          " windowed, %" G_GINT64_FORMAT " MoE, %.6g FLOP", cases[i].model,
                          cases[i].pp, cases[i].v, s, n, windowed, moe, rank);
          g_assert_cmpfloat (rank, ==, graph);
          g_assert_cmpfloat (rank, >, 0);
          /* Qwen2 over pp 2 × v 2: the windowed upper half is chunk 1 of both ranks. */
          if (cases[i].pp == 2 && cases[i].v == 2)
            g_assert_cmpint (windowed, ==, 7);
          total_windowed += windowed;
        }
      g_assert_cmpint (total_windowed, ==, spec.window > 0 ? spec.layers - spec.window_first
                                                           : 0);
      bpw_scenario_clear (&sc);
      bpw_model_spec_clear (&spec);
    }
}

/* Qwen2 with its upper half windowed, at 32 K tokens, balanced over pp 4 × v 2 (28 blocks
 * over 8 virtual stages): a full-attention block does more than a windowed one, and the
 * split weighs each block by its own work, so every rank's work (its blocks, the first
 * rank's embedding, the last's head and loss) comes within one windowed block's of every
 * other's. */
static void
test_balanced_weighs_window (void)
{
  g_autoptr(BpwDistWork) dist = NULL;
  g_autofree double *layer = NULL;
  BpwModelSpec spec;
  BpwScenario sc;
  BpwParallel p;
  double heaviest = 0, least = INFINITY, most = 0;

  load_model ("hf/qwen2-7b-use-sliding-window.json", &spec);
  scenario_for (&sc, 8, 32768);
  parallel_for (&p, BPW_SCHEDULE_INTERLEAVED, 4, 2);
  p.pp_split = BPW_PP_SPLIT_BALANCED;
  dist = distribute (&spec, &sc, &p);
  layer = g_new0 (double, spec.layers);
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      const GArray *tasks = dist->stages[s].tasks;
      double rank = 0;

      for (guint t = 0; t < tasks->len; t++)
        {
          const BpwTask *task = &g_array_index (tasks, BpwTask, t);
          const BpwOp *op = bpw_work_graph_op (dist->graph, task->op);
          double f = (double) task->flops * (double) task->count;

          rank += f;
          if (op->layer >= 0)
            layer[op->layer] += f;
        }
      g_test_message ("Qwen2 windowed, pp 4 x v 2, balanced: rank %" G_GINT64_FORMAT
                      ", %" G_GINT64_FORMAT " blocks, %.4g FLOP", s,
                      dist->stages[s].n_layers, rank);
      least = MIN (least, rank);
      most = MAX (most, rank);
    }
  for (gint64 l = 0; l < spec.layers; l++)
    heaviest = MAX (heaviest, layer[l]);
  g_test_message ("blocks: full attention %.4g, windowed %.4g FLOP", layer[0],
                  layer[spec.layers - 1]);
  /* The full-attention blocks are the heavier kind, by more than a tenth; the ranks come
   * within one of the lighter blocks (weighing blocks alike left them a full block apart). */
  g_assert_cmpfloat (layer[0], ==, heaviest);
  g_assert_cmpfloat (layer[spec.layers - 1], <, 0.9 * heaviest);
  g_assert_cmpfloat (most - least, <=, layer[spec.layers - 1]);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* Qwen2 over pp 2 × v 2: each rank runs 7 full-attention and 7 windowed blocks, so the
 * plan prices the blocks of both ranks alike (the embedding and the head apart). */
static void
test_plan_prices_real_layers (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h200-sxm-141gb");
  g_autoptr(BpwPlan) plan = NULL;
  BpwModelSpec spec;
  BpwScenario sc;
  BpwMapping m;
  double block_s[2] = { 0, 0 };

  load_model ("hf/qwen2-7b-use-sliding-window.json", &spec);
  scenario_for (&sc, 8, 32768);
  bpw_mapping_init_defaults (&m);
  parallel_for (&m.parallel, BPW_SCHEDULE_INTERLEAVED, 2, 2);
  plan = bpw_test_bind (&spec, &sc, bp, &m);
  for (gint64 s = 0; s < 2; s++)
    for (guint i = 0; i < plan->stages[s].tasks->len; i++)
      {
        const BpwPlanTask *t = &g_array_index (plan->stages[s].tasks, BpwPlanTask, i);

        if (t->layer >= 0)
          block_s[s] += t->cost.time_s * t->count;
      }
  g_test_message ("blocks: stage 0 %.6f s, stage 1 %.6f s", block_s[0], block_s[1]);
  bpw_test_assert_close (block_s[0], block_s[1], 1e-9);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* The estimator counts each rank's kinds over its chunks, as the distribution places them. */
static void
test_estimator_is_plan (void)
{
  static const struct { const char *model; gint64 pp, v, seq; } cases[] = {
    { "hf/qwen2-7b-use-sliding-window.json", 2, 2, 16384 },
    { "hf/qwen2-7b-use-sliding-window.json", 4, 2, 16384 },
    { "hf/deepseek-v2-lite.json", 2, 2, 4096 },
    { "hf/deepseek-v2-lite.json", 3, 3, 4096 },
  };
  g_autoptr(BpwBlueprint) bp = bpw_test_blueprint_without_launch ("h100-sxm-80gb");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(BpwPlan) plan = NULL;
      g_autoptr(BpwEstimator) est = NULL;
      BpwEvaluation full, fast;
      BpwModelSpec spec;
      BpwScenario sc;
      BpwMapping m;

      load_model (cases[i].model, &spec);
      scenario_for (&sc, cases[i].pp * 2, cases[i].seq);
      bpw_mapping_init_defaults (&m);
      parallel_for (&m.parallel, BPW_SCHEDULE_INTERLEAVED, cases[i].pp, cases[i].v);
      plan = bpw_test_bind (&spec, &sc, bp, &m);
      bpw_evaluation_from_plan (plan, &full);
      est = bpw_test_estimate (&spec, &sc, bp, &m, &fast);
      g_test_message ("%s pp %" G_GINT64_FORMAT " x v %" G_GINT64_FORMAT ": plan %.9f s, "
                      "estimate %.9f s", cases[i].model, cases[i].pp, cases[i].v,
                      full.step_time_s, fast.step_time_s);
      bpw_test_assert_estimate_is_plan (&full, &fast);
      bpw_mapping_clear (&m);
      bpw_scenario_clear (&sc);
      bpw_model_spec_clear (&spec);
    }
}

/* ---- labels ---- */

static void
test_labels (void)
{
  static const struct { BpwSchedule schedule; gint64 pp, v; const char *stage0, *stage1; }
  cases[] = {
    { BPW_SCHEDULE_INTERLEAVED, 2, 2, "0\xe2\x80\x93" "6, 14\xe2\x80\x93" "20",
      "7\xe2\x80\x93" "13, 21\xe2\x80\x93" "27" },
    { BPW_SCHEDULE_1F1B, 2, 1, "0\xe2\x80\x93" "13", "14\xe2\x80\x93" "27" },
    { BPW_SCHEDULE_INTERLEAVED, 7, 4, "0, 7, 14, 21", "1, 8, 15, 22" },
  };
  BpwModelSpec spec;

  load_model ("hf/qwen2-7b-use-sliding-window.json", &spec);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(BpwDistWork) dist = NULL;
      g_autofree char *zero = NULL, *one = NULL;
      BpwScenario sc;
      BpwParallel p;

      scenario_for (&sc, 2 * cases[i].pp, 512);
      parallel_for (&p, cases[i].schedule, cases[i].pp, cases[i].v);
      dist = distribute (&spec, &sc, &p);
      zero = bpw_dist_work_stage_layer_ranges (dist, 0);
      one = bpw_dist_work_stage_layer_ranges (dist, 1);
      g_assert_cmpstr (zero, ==, cases[i].stage0);
      g_assert_cmpstr (one, ==, cases[i].stage1);
      bpw_scenario_clear (&sc);
    }
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/InterleavePlacement/rank-is-union-of-chunks",
                   test_rank_is_union_of_chunks);
  g_test_add_func ("/bpw/core/InterleavePlacement/flops-follow-layers", test_flops_follow_layers);
  g_test_add_func ("/bpw/core/InterleavePlacement/balanced-weighs-window",
                   test_balanced_weighs_window);
  g_test_add_func ("/bpw/core/InterleavePlacement/plan-prices-real-layers",
                   test_plan_prices_real_layers);
  g_test_add_func ("/bpw/core/InterleavePlacement/estimator-is-plan", test_estimator_is_plan);
  g_test_add_func ("/bpw/core/InterleavePlacement/labels", test_labels);
  return g_test_run ();
}
