/* bpw-compare-data.c — candidates × scenarios of a study, for the comparison chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-compare-data"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-compare-data.h"

static const char *
metric_name (const char *sla_metric, BpwWorkloadPhase phase)
{
  if (g_strcmp0 (sla_metric, "ttft_s") == 0)
    return "TTFT";
  if (g_strcmp0 (sla_metric, "tpot_s") == 0)
    return "TPOT";
  if (sla_metric == NULL && phase == BPW_WORKLOAD_PREFILL)
    return "TTFT";
  if (sla_metric == NULL && phase == BPW_WORKLOAD_DECODE)
    return "TPOT";
  return _("step time");
}

static double
metric_value (const char *metric, const BpwEvaluation *eval)
{
  if (strcmp (metric, "TTFT") == 0 && isfinite (eval->ttft_s))
    return eval->ttft_s;
  if (strcmp (metric, "TPOT") == 0 && isfinite (eval->tpot_s))
    return eval->tpot_s;
  return eval->step_time_s;
}

static void
copy_cell (BpwCompareFit *fit, const BpwCompareCell *cell, BpwWorkloadPhase phase)
{
  *fit = (BpwCompareFit) {
    .ok = cell->ok, .legal = cell->ok && cell->eval.legal, .feasible = cell->feasible,
    .has_sla = cell->has_sla, .sla_pass = cell->sla_pass, .sla_limit = cell->sla_limit,
    .sla_margin = cell->sla_margin, .eval = cell->eval, .devices = cell->devices,
    .relative = NAN,
  };
  fit->metric = metric_name (cell->has_sla ? cell->sla_metric : NULL, phase);
  fit->value = cell->has_sla ? cell->sla_value : metric_value (fit->metric, &cell->eval);
  if (!cell->ok)
    fit->error = g_strdup (cell->error != NULL ? cell->error : _("not evaluated"));
  else if (!cell->eval.legal && cell->reasons != NULL && cell->reasons->len > 0)
    fit->error = g_strdup (g_ptr_array_index (cell->reasons, 0));
}

BpwCompareData *
bpw_compare_data_new_from_comparison (BpwComparison *comparison,
                                      BpwStudy      *study)
{
  BpwCompareData *data = g_new0 (BpwCompareData, 1);
  guint nc = bpw_comparison_get_n_candidates (comparison);
  guint ns = bpw_comparison_get_n_scenarios (comparison);

  g_return_val_if_fail (BPW_IS_STUDY (study), data);

  data->study = g_strdup (bpw_study_get_name (study));
  data->title = g_strdup_printf (_("Comparison: %s"), data->study);
  data->n_candidates = nc;
  data->n_scenarios = ns;
  data->candidates = g_new0 (char *, nc + 1);
  data->blueprints = g_new0 (char *, nc + 1);
  data->scenarios = g_new0 (char *, ns + 1);
  data->cells = g_new0 (BpwCompareFit, (gsize) MAX (nc * ns, 1));
  for (guint c = 0; c < nc; c++)
    {
      data->candidates[c] = g_strdup (bpw_study_get_candidate (study, c)->name);
      data->blueprints[c] = g_strdup (bpw_study_get_candidate (study, c)->blueprint);
    }
  for (guint s = 0; s < ns; s++)
    {
      const BpwStudyScenario *sc = bpw_study_get_scenario (study, s);
      double best = 0;

      data->scenarios[s] = g_strdup (sc->name);
      for (guint c = 0; c < nc; c++)
        {
          BpwCompareFit *fit = &data->cells[c * ns + s];

          copy_cell (fit, bpw_comparison_get_cell (comparison, c, s), sc->scenario.phase);
          if (fit->legal && fit->eval.tokens_per_s > best)
            best = fit->eval.tokens_per_s;
        }
      for (guint c = 0; c < nc; c++)
        {
          BpwCompareFit *fit = &data->cells[c * ns + s];

          if (fit->legal && best > 0)
            fit->relative = fit->eval.tokens_per_s / best;
        }
    }
  data->cost_known = bpw_comparison_get_cost_unit (comparison, &data->cost_unit);
  data->suites = g_array_new (FALSE, TRUE, sizeof (BpwCompareDataSuite));
  for (guint i = 0; i < bpw_comparison_get_n_suites (comparison); i++)
    {
      const BpwCompareSuite *src = bpw_comparison_get_suite (comparison, i);
      BpwCompareDataSuite suite = {
        .name = g_strdup (src->name),
        .score = g_memdup2 (src->score, nc * sizeof (double)),
        .perf_per_watt = g_memdup2 (src->perf_per_watt, nc * sizeof (double)),
        .feasible = g_memdup2 (src->feasible, nc * sizeof (gboolean)),
        .pareto = g_memdup2 (src->pareto, nc * sizeof (gboolean)),
      };

      g_array_append_val (data->suites, suite);
    }
  data->calibration = bpw_study_calibration_new (study);
  return data;
}

void
bpw_compare_data_free (BpwCompareData *data)
{
  if (data == NULL)
    return;
  for (guint i = 0; i < data->n_candidates * data->n_scenarios; i++)
    g_free (data->cells[i].error);
  g_free (data->cells);
  for (guint i = 0; data->suites != NULL && i < data->suites->len; i++)
    {
      BpwCompareDataSuite *s = &g_array_index (data->suites, BpwCompareDataSuite, i);

      g_free (s->name);
      g_free (s->score);
      g_free (s->perf_per_watt);
      g_free (s->feasible);
      g_free (s->pareto);
    }
  if (data->suites != NULL)
    g_array_unref (data->suites);
  g_clear_pointer (&data->calibration, bpw_study_calibration_free);
  g_strfreev (data->candidates);
  g_strfreev (data->blueprints);
  g_strfreev (data->scenarios);
  g_free (data->title);
  g_free (data->study);
  g_free (data);
}

guint
bpw_compare_data_best (const BpwCompareData *data)
{
  guint best = G_MAXUINT;

  if (data->suites->len > 0)
    {
      const BpwCompareDataSuite *s = &g_array_index (data->suites, BpwCompareDataSuite, 0);

      for (guint c = 0; c < data->n_candidates; c++)
        if (s->feasible[c] && isfinite (s->score[c]) &&
            (best == G_MAXUINT || s->score[c] > s->score[best]))
          best = c;
    }
  if (best != G_MAXUINT)
    return best;
  for (guint c = 0; c < data->n_candidates; c++)
    {
      const BpwCompareFit *f = bpw_compare_data_cell (data, c, data->scenario);

      if (f->legal && (best == G_MAXUINT ||
                       f->eval.step_time_s <
                         bpw_compare_data_cell (data, best, data->scenario)->eval.step_time_s))
        best = c;
    }
  return best == G_MAXUINT ? 0 : best;
}
