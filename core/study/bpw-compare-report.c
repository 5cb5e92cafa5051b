/* bpw-compare-report.c — the `bpw compare` JSON document and text table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-compare-report"

#include "config.h"

#include "bpw-compare-private.h"
#include "bpw-study-calibration.h"
#include "bpw-json-dump-private.h"

#include <math.h>

static void
set_number (JsonObject *o, const char *key, double v)
{
  if (isfinite (v))
    json_object_set_double_member (o, key, v);
  else
    json_object_set_null_member (o, key);
}

static JsonObject *
cell_to_object (const BpwCompareCell *cell)
{
  JsonObject *o = json_object_new ();
  JsonArray *reasons = json_array_new ();

  json_object_set_boolean_member (o, "ok", cell->ok);
  if (!cell->ok)
    {
      json_object_set_string_member (o, "error", cell->error);
      json_array_unref (reasons);
      return o;
    }
  json_object_set_boolean_member (o, "legal", cell->eval.legal);
  for (guint i = 0; i < cell->reasons->len; i++)
    json_array_add_string_element (reasons, cell->reasons->pdata[i]);
  json_object_set_array_member (o, "reasons", reasons);
  json_object_set_boolean_member (o, "feasible", cell->feasible);
  json_object_set_boolean_member (o, "searched", cell->searched);
  if (cell->searched)
    {
      g_autofree char *text = bpw_mapping_to_json (&cell->mapping);
      JsonNode *m = json_from_string (text, NULL);

      json_object_set_int_member (o, "space", (gint64) cell->space);
      if (m != NULL)
        json_object_set_member (o, "mapping", m);
    }
  json_object_set_int_member (o, "devices", cell->devices);
  set_number (o, "step_time_s", cell->eval.step_time_s);
  set_number (o, "mfu", cell->eval.mfu);
  set_number (o, "tokens_per_s", cell->eval.tokens_per_s);
  set_number (o, "tokens_per_joule", cell->eval.tokens_per_joule);
  set_number (o, "ttft_s", cell->eval.ttft_s);
  set_number (o, "tpot_s", cell->eval.tpot_s);
  set_number (o, "peak_bytes", cell->eval.peak_bytes);
  json_object_set_string_member (o, "bottleneck", bpw_bottleneck_to_string (cell->eval.bottleneck));
  if (cell->has_sla)
    {
      JsonObject *sla = json_object_new ();

      json_object_set_string_member (sla, "metric", cell->sla_metric);
      json_object_set_double_member (sla, "limit", cell->sla_limit);
      json_object_set_double_member (sla, "value", cell->sla_value);
      json_object_set_double_member (sla, "margin", cell->sla_margin);
      json_object_set_boolean_member (sla, "pass", cell->sla_pass);
      json_object_set_object_member (o, "sla", sla);
    }
  else
    json_object_set_null_member (o, "sla");
  set_number (o, "cost", cell->cost);
  if (!isnan (cell->cost))
    json_object_set_string_member (o, "cost_unit", bpw_price_unit_to_string (cell->cost_unit));
  return o;
}

char *
bpw_comparison_to_json (BpwComparison *cmp)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *root = json_object_new ();
  JsonArray *candidates = json_array_new (), *scenarios = json_array_new ();
  JsonArray *fit = json_array_new (), *suites = json_array_new ();

  json_object_set_string_member (root, "format", "bpw-comparison");
  json_object_set_int_member (root, "version", 1);
  json_object_set_string_member (root, "study", bpw_study_get_name (cmp->study));
  json_object_set_string_member (root, "mappings", cmp->search_empty
                                 ? "searched where a candidate's mapping is empty"
                                 : "as given");
  /* Costs are compared only with a price for every candidate, all in one unit. */
  if (cmp->cost_known)
    json_object_set_string_member (root, "cost_unit", bpw_price_unit_to_string (cmp->cost_unit));
  else
    json_object_set_null_member (root, "cost_unit");
  for (guint c = 0; c < cmp->n_candidates; c++)
    {
      const BpwStudyCandidate *sc = bpw_study_get_candidate (cmp->study, c);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "name", sc->name);
      json_object_set_string_member (o, "blueprint", sc->blueprint);
      if (sc->price.set)
        {
          JsonObject *price = json_object_new ();

          json_object_set_double_member (price, "value", sc->price.usd);
          json_object_set_string_member (price, "unit", bpw_price_unit_to_string (sc->price.unit));
          json_object_set_string_member (price, "source", sc->price.source);
          json_object_set_object_member (o, "price", price);
        }
      else
        json_object_set_null_member (o, "price");
      json_array_add_object_element (candidates, o);
    }
  for (guint s = 0; s < cmp->n_scenarios; s++)
    {
      const BpwStudyScenario *ss = bpw_study_get_scenario (cmp->study, s);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "name", ss->name);
      json_object_set_string_member (o, "phase",
                                     bpw_workload_phase_to_string (ss->scenario.phase));
      json_object_set_double_member (o, "weight", ss->scenario.weight);
      json_array_add_object_element (scenarios, o);
    }
  for (guint c = 0; c < cmp->n_candidates; c++)
    {
      JsonArray *row = json_array_new ();

      for (guint s = 0; s < cmp->n_scenarios; s++)
        json_array_add_object_element (row, cell_to_object (&cmp->cells[c * cmp->n_scenarios + s]));
      json_array_add_array_element (fit, row);
    }
  for (guint i = 0; i < cmp->suites->len; i++)
    {
      const BpwCompareSuite *suite = &g_array_index (cmp->suites, BpwCompareSuite, i);
      JsonObject *o = json_object_new ();
      JsonArray *names = json_array_new (), *scores = json_array_new (), *front = json_array_new ();

      json_object_set_string_member (o, "name", suite->name);
      json_object_set_string_member (o, "kind", bpw_suite_kind_to_string (suite->kind));
      for (guint k = 0; k < suite->n_scenarios; k++)
        json_array_add_string_element (names,
          bpw_study_get_scenario (cmp->study, suite->scenarios[k])->name);
      json_object_set_array_member (o, "scenarios", names);
      for (guint c = 0; c < cmp->n_candidates; c++)
        {
          JsonObject *sc = json_object_new ();

          json_object_set_string_member (sc, "candidate",
                                         bpw_study_get_candidate (cmp->study, c)->name);
          json_object_set_double_member (sc, "score", suite->score[c]);
          set_number (sc, "perf_per_watt", suite->perf_per_watt[c]);
          json_object_set_double_member (sc, "tokens_per_s", suite->tokens_per_s[c]);
          set_number (sc, "cost", suite->cost[c]);
          json_object_set_boolean_member (sc, "feasible", suite->feasible[c]);
          json_object_set_boolean_member (sc, "pareto", suite->pareto[c]);
          json_array_add_object_element (scores, sc);
          if (suite->pareto[c])
            json_array_add_string_element (front, bpw_study_get_candidate (cmp->study, c)->name);
        }
      json_object_set_array_member (o, "scores", scores);
      json_object_set_array_member (o, "pareto", front);
      json_array_add_object_element (suites, o);
    }
  json_object_set_array_member (root, "candidates", candidates);
  json_object_set_array_member (root, "scenarios", scenarios);
  json_object_set_array_member (root, "fit", fit);
  json_object_set_array_member (root, "suites", suites);
  node = json_node_init_object (json_node_alloc (), root);
  json_object_unref (root);
  return _bpw_json_dump (node);
}

char *
bpw_comparison_to_text (BpwComparison *cmp)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "Comparison: %s (mappings %s)\n\nFit matrix: step time, "
                          "SLA margin, bottleneck\n", bpw_study_get_name (cmp->study),
                          cmp->search_empty ? "searched where empty" : "as given");
  g_string_append_printf (out, "  %-22s", "");
  for (guint s = 0; s < cmp->n_scenarios; s++)
    g_string_append_printf (out, "  %-30.30s", bpw_study_get_scenario (cmp->study, s)->name);
  g_string_append_c (out, '\n');
  for (guint c = 0; c < cmp->n_candidates; c++)
    {
      g_string_append_printf (out, "  %-22.22s", bpw_study_get_candidate (cmp->study, c)->name);
      for (guint s = 0; s < cmp->n_scenarios; s++)
        {
          const BpwCompareCell *cell = &cmp->cells[c * cmp->n_scenarios + s];
          g_autofree char *text = NULL;

          if (!cell->ok)
            text = g_strdup ("error (see --json)");
          else if (!cell->eval.legal)
            text = g_strdup ("ILLEGAL");
          else if (cell->has_sla)
            text = g_strdup_printf ("%.4g s %s %+.0f%% %s", cell->eval.step_time_s,
                                    cell->sla_pass ? "ok" : "FAIL", 100.0 * cell->sla_margin,
                                    bpw_bottleneck_to_string (cell->eval.bottleneck));
          else
            text = g_strdup_printf ("%.4g s %s", cell->eval.step_time_s,
                                    bpw_bottleneck_to_string (cell->eval.bottleneck));
          g_string_append_printf (out, "  %-30.30s", text);
        }
      g_string_append_c (out, '\n');
    }
  for (guint i = 0; i < cmp->suites->len; i++)
    {
      const BpwCompareSuite *suite = &g_array_index (cmp->suites, BpwCompareSuite, i);

      g_string_append_printf (out, "\nSuite %s (%s): weighted throughput relative to the best "
                              "per scenario\n", suite->name,
                              bpw_suite_kind_to_string (suite->kind));
      for (guint c = 0; c < cmp->n_candidates; c++)
        {
          g_string_append_printf (out, "  %-22.22s  score %.3f",
                                  bpw_study_get_candidate (cmp->study, c)->name, suite->score[c]);
          if (!isnan (suite->perf_per_watt[c]))
            g_string_append_printf (out, "  perf/W %.3f", suite->perf_per_watt[c]);
          if (cmp->cost_known && !isnan (suite->cost[c]))
            g_string_append_printf (out, "  cost $%.4g%s", suite->cost[c],
                                    cmp->cost_unit == BPW_PRICE_PER_DEVICE_HOUR ? "/h" : "");
          g_string_append_printf (out, "  %s%s\n", suite->feasible[c] ? "feasible" : "INFEASIBLE",
                                  suite->pareto[c] ? "  pareto" : "");
        }
    }
  if (!cmp->cost_known)
    g_string_append (out, "\nCost: not compared (no price given for some candidate, or prices "
                     "in different units); the Pareto front leaves cost out.\n");
  /* What the ranking rests on: each candidate's calibration (bpw-study-calibration.h). */
  {
    g_autoptr(BpwStudyCalibration) cal = bpw_study_calibration_new (cmp->study);

    g_string_append (out, "\nCalibration (bpw check BLUEPRINT lists the sources)\n");
    for (guint c = 0; c < cal->n_candidates; c++)
      g_string_append_printf (out, "  %-22.22s  %s\n", cal->candidates[c],
                              cal->statuses[c].label != NULL ? cal->statuses[c].label : "—");
    if (cal->warning != NULL)
      g_string_append_printf (out, "%s\n", cal->warning);
  }
  return g_string_free (out, FALSE);
}
