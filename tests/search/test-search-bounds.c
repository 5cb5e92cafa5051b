/* test-search-bounds.c — the search's sound bounds, checked plan by plan against the
 * estimator
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-calculon-rules.h"
#include "bpw-core.h"
#include "bpw-search.h"
#include "bpw-test-search.h"
#include "bpw-search-private.h"

#define SLACK 1e-9

/* ---- the bounds, checked plan by plan ---- */

static void
check_bounds (const BpwModelSpec *spec, const BpwScenario *s, const BpwBlueprint *bp,
              gint64 devices, const BpwSearchLimits *limits)
{
  g_autoptr(BpwSearchSpace) space = new_space (spec, s, bp, devices, limits);
  g_autoptr(BpwEstimator) est = NULL;
  g_autoptr(GError) error = NULL;
  double rate = _bpw_search_matrix_rate (bp, bpw_precision_from_dtype (s->dtype));
  guint checked = 0;

  est = bpw_estimator_new (spec, s, bp, &error);
  g_assert_no_error (error);
  for (guint ni = 0; ni < space->nodes->len; ni++)
    {
      const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, ni);
      const BpwSearchNode *base = &g_array_index (space->nodes, BpwSearchNode, n->run);
      const BpwSearchGroup *g = &g_array_index (space->groups, BpwSearchGroup, n->group);
      g_autofree BpwEvaluation *evals = g_new0 (BpwEvaluation, n->count);
      BpwSearchLeaf leaf = { 0 };
      BpwSearchBound b, rb;
      BpwMapping m, mb;
      double state, host, state0, host0;

      bpw_search_space_fill (space, ni, &leaf, &m);
      bpw_search_space_fill (space, n->run, &leaf, &mb);
      g_assert_true (_bpw_search_bound_node (est, space, &m, n->micro_batches, &b, NULL));
      g_assert_true (_bpw_search_bound_node (est, space, &mb, base->micro_batches, &rb, NULL));
      g_assert_true (_bpw_search_bound_state (est, space, &m, &state, &host, NULL));
      bpw_search_space_fill (space, g->first_node, &leaf, &mb);
      g_assert_true (_bpw_search_bound_state (est, space, &mb, &state0, &host0, NULL));
      /* The persistent state is the same for every node of a group. */
      g_assert_cmpfloat_with_epsilon (state, state0, SLACK * state0 + 1);
      /* Matmul FLOPs are proportional to the micro-batch within a run. */
      if (spec->experts == 0)
        g_assert_cmpfloat_with_epsilon (b.matmul_flops / (double) n->micro_batch,
                                        rb.matmul_flops / (double) base->micro_batch,
                                        SLACK * b.matmul_flops / (double) n->micro_batch);

      for (guint64 off = 0; off < n->count; off++)
        {
          BpwEvaluation *e = &evals[off];
          gint64 v;
          double pre;

          bpw_search_space_leaf (space, ni, off, &leaf);
          bpw_search_space_fill (space, ni, &leaf, &m);
          g_assert_true (bpw_estimator_evaluate (est, &m, e, NULL, &error));
          g_assert_no_error (error);
          bpw_search_space_schedule (space, ni, leaf.schedule, &v);
          if (b.illegal)
            g_assert_false (e->legal);
          g_assert_cmpfloat (e->peak_bytes, >=, b.memory * (1 - SLACK));
          g_assert_cmpfloat (e->peak_bytes, >=, state0 * (1 - SLACK));
          g_assert_cmpfloat (e->step_time_s, >=,
                             _bpw_search_bound_step (&b, n->micro_batches, g->pp, v) * (1 - SLACK));
          pre = ((double) n->micro_batches + (double) (g->pp - 1) / (double) v) *
                rb.matmul_flops / (double) base->micro_batch * (double) n->micro_batch / rate +
                rb.optimizer;
          if (spec->experts == 0)
            g_assert_cmpfloat (e->step_time_s, >=, pre * (1 - SLACK));

          /* Dominance: the dominating plan is never slower and has the same legality. */
          if (leaf.algorithm != 0 && !b.all_to_all)
            {
              BpwSearchLeaf d = leaf;
              const BpwEvaluation *x;

              d.algorithm = 0;
              x = &evals[bpw_search_space_leaf_offset (space, ni, &d)];
              g_assert_cmpint (x->legal, ==, e->legal);
              g_assert_cmpfloat (e->step_time_s, >=, x->step_time_s * (1 - SLACK));
            }
          if (n->tp_overlap[0] == BPW_TP_OVERLAP_RING)
            for (guint o = 0; o < leaf.tp_overlap; o++)
              {
                BpwSearchLeaf d = leaf;
                const BpwEvaluation *x;

                d.tp_overlap = o;
                x = &evals[bpw_search_space_leaf_offset (space, ni, &d)];
                g_assert_cmpint (x->legal, ==, e->legal);
                g_assert_cmpfloat (e->step_time_s, >=, x->step_time_s * (1 - SLACK));
              }
          if (leaf.dp_overlap == 1 && n->dp_overlap[0])
            {
              BpwSearchLeaf d = leaf;
              const BpwEvaluation *x;

              d.dp_overlap = 0;
              x = &evals[bpw_search_space_leaf_offset (space, ni, &d)];
              g_assert_cmpint (x->legal, ==, e->legal);
              g_assert_cmpfloat (e->step_time_s, >=, x->step_time_s * (1 - SLACK));
            }
          if (leaf.schedule == 1 && n->n_plain == 2)
            {
              BpwSearchLeaf d = leaf;
              const BpwEvaluation *x;

              d.schedule = 0;
              x = &evals[bpw_search_space_leaf_offset (space, ni, &d)];
              g_assert_true (x->legal || !e->legal);
              g_assert_cmpfloat (e->step_time_s, ==, x->step_time_s);
            }
          checked++;
        }
      bpw_estimator_drop_templates (est);
    }
  g_assert_cmpuint (checked, ==, space->size);
}

static void
test_bounds_sound (void)
{
  g_autoptr(BpwBlueprint) bp = a100 ();
  BpwModelSpec spec;
  BpwScenario s;
  BpwSearchLimits l;

  small_spec (&spec);
  train_scenario (&s, 8, 512);
  modest_limits (&l);
  l.fusion_sets = 1u << BPW_SEARCH_FUSION_ALL;
  check_bounds (&spec, &s, bp, 8, &l);

  /* Calculon's space: the tier of each group and activation offload per plan. */
  bpw_search_limits_init (&l);
  l.rules = bpw_calculon_search_rules ();
  check_bounds (&spec, &s, bp, 8, &l);

  /* A model that does not fit without ZeRO or offload: the memory bounds bite. */
  spec.layers = 8;
  spec.hidden = 8192;
  spec.head_dim = 1024;
  spec.ffn = 32768;
  l.fusion_sets = 1u << BPW_SEARCH_FUSION_DEFAULT;
  l.recompute = BPW_RECOMPUTE_FULL;
  check_bounds (&spec, &s, bp, 4, &l);

  s.phase = BPW_WORKLOAD_DECODE;
  s.context = 1024;
  s.seq = 1;
  bpw_search_limits_init (&l);
  check_bounds (&spec, &s, bp, 8, &l);
  bpw_model_spec_clear (&spec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/Search/bounds-sound", test_bounds_sound);
  return g_test_run ();
}
