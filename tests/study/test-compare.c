/* test-compare.c — candidates × scenarios (fit, scores, Pareto) and blueprint sweeps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-compare.h"
#include "bpw-sweep.h"
#include "bpw-json-dump-private.h"

/* @text is the house writer's: parsed and written again, it reads the same, byte for byte
 * (json-glib's generator wrote "key" : value and 17-digit doubles). */
static void
assert_house_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (text, &error);
  g_autofree char *again = NULL;

  g_assert_no_error (error);
  again = _bpw_json_dump (node);
  g_assert_cmpstr (text, ==, again);
}

static void
small_spec (BpwModelSpec *spec)
{
  bpw_model_spec_init_defaults (spec);
  spec->name = g_strdup ("compare-test");
  spec->layers = 4;
  spec->hidden = 512;
  spec->heads = 8;
  spec->kv_heads = 8;
  spec->head_dim = 64;
  spec->ffn = 2048;
  spec->vocab = 4096;
  spec->max_positions = 1024;
}

/* The bundled study, as given: every number recomputed from the cells. */
static void
test_default_study (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwComparison) cmp = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *text = NULL;
  BpwCompareOptions options;
  guint nc, ns;

  g_assert_no_error (error);
  bpw_compare_options_init (&options);
  cmp = bpw_compare_study (study, &options, NULL, &error);
  g_assert_no_error (error);
  nc = bpw_comparison_get_n_candidates (cmp);
  ns = bpw_comparison_get_n_scenarios (cmp);
  g_assert_cmpuint (nc, ==, bpw_study_get_n_candidates (study));
  g_assert_cmpuint (ns, ==, bpw_study_get_n_scenarios (study));

  for (guint c = 0; c < nc; c++)
    for (guint s = 0; s < ns; s++)
      {
        const BpwCompareCell *cell = bpw_comparison_get_cell (cmp, c, s);
        const BpwScenario *sc = &bpw_study_get_scenario (study, s)->scenario;
        double limit = sc->phase == BPW_WORKLOAD_PREFILL ? sc->sla_ttft
                       : sc->phase == BPW_WORKLOAD_DECODE ? sc->sla_tpot : sc->sla_step_time;

        g_assert_true (cell->ok);
        g_assert_cmpint (cell->has_sla, ==, limit > 0);
        if (cell->has_sla)
          {
            double value = sc->phase == BPW_WORKLOAD_PREFILL ? cell->eval.ttft_s
                           : sc->phase == BPW_WORKLOAD_DECODE ? cell->eval.tpot_s
                                                              : cell->eval.step_time_s;

            g_assert_cmpfloat (cell->sla_limit, ==, limit);
            g_assert_cmpfloat_with_epsilon (cell->sla_margin, (limit - value) / limit, 1e-12);
            g_assert_cmpint (cell->sla_pass, ==, value <= limit);
          }
        g_assert_cmpint (cell->feasible, ==,
                         cell->eval.legal && (!cell->has_sla || cell->sla_pass));
      }

  for (guint i = 0; i < bpw_comparison_get_n_suites (cmp); i++)
    {
      const BpwCompareSuite *suite = bpw_comparison_get_suite (cmp, i);
      guint on_front = 0;

      for (guint c = 0; c < nc; c++)
        {
          double score = 0, weights = 0;
          gboolean feasible = TRUE;

          for (guint k = 0; k < suite->n_scenarios; k++)
            {
              guint s = suite->scenarios[k];
              double w = bpw_study_get_scenario (study, s)->scenario.weight, best = 0, mine;

              for (guint d = 0; d < nc; d++)
                {
                  const BpwCompareCell *x = bpw_comparison_get_cell (cmp, d, s);

                  if (x->feasible)
                    best = MAX (best, x->eval.tokens_per_s);
                }
              mine = bpw_comparison_get_cell (cmp, c, s)->feasible
                     ? bpw_comparison_get_cell (cmp, c, s)->eval.tokens_per_s : 0;
              score += w * (best > 0 ? mine / best : 0);
              weights += w;
              feasible &= bpw_comparison_get_cell (cmp, c, s)->feasible;
            }
          g_assert_cmpfloat_with_epsilon (suite->score[c], score / weights, 1e-12);
          g_assert_cmpint (suite->feasible[c], ==, feasible);
          g_assert_cmpfloat (suite->score[c], <=, 1.0 + 1e-12);
          on_front += suite->pareto[c];
          /* The front: feasible, and no feasible candidate is at least as good in score
           * and performance per watt and better in one (the blueprints of the bundled
           * study have power figures for all, prices for none). */
          g_assert_true (isfinite (suite->perf_per_watt[c]));
          g_assert_true (isnan (suite->cost[c]));
          if (suite->pareto[c])
            {
              g_assert_true (suite->feasible[c]);
              for (guint d = 0; d < nc; d++)
                if (suite->feasible[d])
                  g_assert_false (suite->score[d] >= suite->score[c]
                                  && suite->perf_per_watt[d] >= suite->perf_per_watt[c]
                                  && (suite->score[d] > suite->score[c]
                                      || suite->perf_per_watt[d] > suite->perf_per_watt[c]));
            }
        }
      g_assert_cmpuint (on_front, >=, 1);
    }

  text = bpw_comparison_to_json (cmp);
  assert_house_json (text);
  json = json_from_string (text, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_node_get_object (json), "fit")), ==, nc);
}

/* Search where the mapping is empty: never worse than the scenario's own decomposition,
 * which is one of the plans searched. */
static void
test_search_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new ();
  g_autoptr(BpwComparison) given = NULL;
  g_autoptr(BpwComparison) searched = NULL;
  BpwCompareOptions options;
  BpwModelSpec spec;
  BpwScenario s;
  BpwParallel p;

  small_spec (&spec);
  bpw_scenario_init_defaults (&s);
  s.global_batch = 16;
  s.seq = 512;
  bpw_parallel_init_defaults (&p);
  p.tp = 2;
  p.dp = 4;
  g_assert_true (bpw_study_add_workload (study, "w", &spec, NULL, &error));
  g_assert_true (bpw_study_add_scenario (study, "train", "w", &s, &p, &error));
  bpw_study_add_blueprint (study, "a100-sxm-80gb");
  g_assert_true (bpw_study_add_candidate (study, "a100", "a100-sxm-80gb", NULL, &error));
  g_assert_no_error (error);

  bpw_compare_options_init (&options);
  given = bpw_compare_study (study, &options, NULL, &error);
  g_assert_no_error (error);
  options.search_empty = TRUE;
  options.search.threads = 2;
  searched = bpw_compare_study (study, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_comparison_get_cell (searched, 0, 0)->searched);
  g_assert_cmpuint (bpw_comparison_get_cell (searched, 0, 0)->space, >, 1);
  g_assert_true (bpw_comparison_get_cell (given, 0, 0)->eval.legal);
  g_assert_cmpfloat (bpw_comparison_get_cell (searched, 0, 0)->eval.step_time_s, <=,
                     bpw_comparison_get_cell (given, 0, 0)->eval.step_time_s);
  g_assert_cmpint (bpw_parallel_devices (
                     &bpw_comparison_get_cell (searched, 0, 0)->mapping.parallel), ==, 8);
  bpw_model_spec_clear (&spec);
}

static void
test_sweep_gains (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwSweep) sweep = NULL;
  char *params[3] = { NULL };
  BpwSearchOptions options;
  BpwSearchLimits limits;
  BpwMapping base;
  BpwModelSpec spec;
  BpwScenario s;
  int level;

  g_assert_no_error (error);
  small_spec (&spec);
  bpw_scenario_init_defaults (&s);
  s.global_batch = 16;
  s.seq = 512;
  bpw_mapping_init_defaults (&base);
  bpw_search_limits_init (&limits);
  limits.fusion_sets = 1u << BPW_SEARCH_FUSION_DEFAULT;
  bpw_search_options_init (&options);
  options.threads = 2;
  options.reevaluate = FALSE;
  level = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  /* The unchanged value, then twice the bandwidth; then 8 and 4 devices. */
  params[0] = g_strdup_printf ("hbm_bandwidth=%.17g,%.17g", bp->memory[level].bandwidth.value,
                               2 * bp->memory[level].bandwidth.value);
  params[1] = g_strdup ("devices=8,4");
  sweep = bpw_sweep_new (&spec, &s, bp, &base, 8, &limits, (const char * const *) params, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_sweep_get_n_points (sweep), ==, 4);
  g_assert_true (bpw_sweep_run (sweep, &options, NULL, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < 4; i++)
    {
      const BpwSweepPoint *p = bpw_sweep_get_point (sweep, i);
      const BpwSearchResult *best = &g_array_index (p->report->best, BpwSearchResult, 0);
      const BpwSearchResult *b0 = &g_array_index (bpw_sweep_get_baseline (sweep)->best,
                                                  BpwSearchResult, 0);
      double t0 = b0->estimate.step_time_s, tp = best->estimate.step_time_s;

      g_assert_cmpint (p->devices, ==, i % 2 == 0 ? 8 : 4);
      /* The baseline's mapping is in the point's space when the devices match: the
       * re-searched best is never slower (mapping gain >= 1). */
      if (p->devices == 8)
        {
          g_assert_true (p->baseline_applies);
          g_assert_cmpfloat (tp, <=, p->baseline.step_time_s);
        }
      if (i == 0)
        {
          /* Nothing changed: no gain at all, and the same best. */
          g_assert_cmpfloat (tp, ==, t0);
          g_assert_cmpfloat (p->baseline.step_time_s, ==, t0);
          g_assert_cmpuint (best->index, ==, b0->index);
        }
      if (i == 2)
        g_assert_cmpfloat (p->baseline.step_time_s, <=, t0);  /* more bandwidth never hurts */
      if (p->baseline_applies)
        g_assert_cmpint (p->baseline.legal, ==, p->baseline_legal);
    }
  bpw_mapping_clear (&base);
  bpw_model_spec_clear (&spec);
  g_free (params[0]);
  g_free (params[1]);
  {
    g_autofree char *json = bpw_sweep_to_json (sweep);
    g_autoptr(JsonNode) node = json_from_string (json, &error);
    JsonArray *points;

    g_assert_no_error (error);
    assert_house_json (json);
    points = json_object_get_array_member (json_node_get_object (node), "points");
    g_assert_cmpuint (json_array_get_length (points), ==, 4);
    for (guint i = 0; i < 4; i++)
      {
        JsonObject *gain = json_object_get_object_member (json_array_get_object_element (points, i),
                                                          "gain");

        if (!json_object_get_null_member (gain, "architecture"))
          g_assert_cmpfloat_with_epsilon (json_object_get_double_member (gain, "total"),
                                          json_object_get_double_member (gain, "architecture") *
                                          json_object_get_double_member (gain, "mapping"), 1e-12);
      }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/Compare/default-study", test_default_study);
  g_test_add_func ("/bpw/core/Compare/search-empty", test_search_empty);
  g_test_add_func ("/bpw/core/Sweep/gains", test_sweep_gains);
  return g_test_run ();
}
