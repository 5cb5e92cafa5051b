/* bpw-pack-report.c — a pack's runs predicted before and after calibration, and each on
 * the calibration that left its own trace out
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Predictions go through the estimator with the default mapping, the evaluation `bpw
 * evaluate` runs: whatever the evaluation makes of a calibrated blueprint (its efficiency
 * tables, fixed costs and software stack), the report shows.
 */
#define G_LOG_DOMAIN "bpw-pack-report"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-i18n.h"
#include "bpw-json-writer.h"
#include "bpw-mapping.h"
#include "bpw-model-spec.h"
#include "bpw-pack-fit.h"
#include "bpw-plan.h"
#include "bpw-simulation.h"
#include "bpw-work-graph.h"
#include "bpw-workload-io.h"

enum { BEFORE, AFTER, LOO, N_COLUMNS };

/* The peak `bpw evaluate` reports: the plan simulated, its tensors live only while the
 * schedule holds them (the estimator's peak is a bound that holds them all at once). */
static gboolean
simulated_peak (const BpwModelSpec *spec, const BpwScenario *scenario,
                const BpwMapping *mapping, const BpwBlueprint *bp, double *peak_bytes,
                double *bound_bytes, gboolean *legal, GError **error)
{
  BpwWorkGraph *graph = bpw_work_graph_new (spec, scenario, error);
  BpwDistWork *dist;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwSimOptions options = { 0 };
  BpwEvaluation bound, simulated;

  if (graph == NULL)
    return FALSE;
  dist = bpw_dist_work_new (graph, &mapping->parallel, error);
  if (dist == NULL)
    return FALSE;
  plan = bpw_plan_new (dist, bp, mapping, error);
  if (plan == NULL)
    return FALSE;
  bpw_evaluation_from_plan (plan, &bound);
  if (bound_bytes != NULL)
    *bound_bytes = bound.peak_bytes;
  if (legal != NULL)
    *legal = bound.legal;
  sim = bpw_simulation_new (plan, &options, error);
  if (sim == NULL)
    return FALSE;
  bpw_simulation_evaluation (sim, &bound, &simulated);
  *peak_bytes = simulated.peak_bytes;
  return TRUE;
}

#define GIB 1073741824.0

/* As bpw_pack_predict_run(), and the static peak legality is judged on (nullable). */
static gboolean
predict_run (const BpwMeasurementPack *pack, guint run, const BpwBlueprint *bp,
             double *step_s, double *peak_bytes, double *bound_bytes, gboolean *legal,
             GError **error)
{
  const BpwPackRun *r = &pack->runs[run];
  g_autoptr(BpwEstimator) est = NULL;
  BpwModelSpec spec;
  BpwMapping mapping;
  BpwScenario scenario;
  BpwEvaluation e;
  gboolean ok;

  bpw_model_spec_init_defaults (&spec);
  bpw_mapping_init_defaults (&mapping);
  /* Each run in its own launch mode: an eager and a graph-replayed run of one step differ
   * by exactly that. */
  bpw_scenario_copy (&scenario, &r->scenario);
  scenario.launch = bpw_pack_run_is_graph (pack, run) ? BPW_LAUNCH_GRAPH : BPW_LAUNCH_EAGER;
  ok = bpw_workload_load (r->model_path, &spec, error);
  if (ok)
    {
      est = bpw_estimator_new (&spec, &scenario, bp, error);
      ok = est != NULL && bpw_estimator_evaluate (est, &mapping, &e, NULL, error);
    }
  if (ok)
    *step_s = e.step_time_s;
  if (ok && peak_bytes != NULL)
    ok = simulated_peak (&spec, &scenario, &mapping, bp, peak_bytes, bound_bytes, legal,
                         error);
  else
    g_prefix_error (error, _("run “%s”: "), r->name);
  g_clear_pointer (&est, bpw_estimator_free);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
  return ok;
}

gboolean
bpw_pack_predict_run (const BpwMeasurementPack *pack,
                      guint                     run,
                      const BpwBlueprint       *bp,
                      double                   *step_s,
                      double                   *peak_bytes,
                      GError                  **error)
{
  return predict_run (pack, run, bp, step_s, peak_bytes, NULL, NULL, error);
}

static double
error_of (double predicted, double measured)
{
  return predicted / measured - 1.0;
}

BpwPackReport *
bpw_pack_report_new (const BpwPackData  *data,
                     const BpwBlueprint *before,
                     const BpwBlueprint *after,
                     GError            **error)
{
  const BpwMeasurementPack *pack = data->pack;
  g_autoptr(BpwPackReport) report = g_new0 (BpwPackReport, 1);
  g_autoptr(BpwPackFit) fitted = NULL;
  g_autoptr(BpwBlueprint) fitted_bp = NULL;
  guint counted[N_COLUMNS] = { 0 };
  double peak_sum[N_COLUMNS] = { 0 };

  if (after == NULL)
    {
      fitted = bpw_pack_fit (before, data, -1, NULL, error);
      if (fitted == NULL)
        return NULL;
      fitted_bp = bpw_pack_fit_blueprint (fitted);
      after = fitted_bp;
    }
  report->pack = g_path_get_basename (pack->filename);
  report->blueprint = g_strdup (before->name);
  report->calibrated = g_strdup (after->name);
  /* The stack's name or provenance names the framework the pack measured (as `profile
   * calibrate` writes it, and as the bundled stacks cite their pack). */
  report->before_in_sample =
    pack->framework != NULL
    && ((before->stack.name != NULL && strstr (before->stack.name, pack->framework) != NULL)
        || (before->stack.source != NULL
            && strstr (before->stack.source, pack->framework) != NULL));
  report->n_runs = pack->n_runs;
  report->runs = g_new0 (BpwPackReportRun, pack->n_runs);
  for (guint i = 0; i < pack->n_runs; i++)
    {
      BpwPackReportRun *row = &report->runs[i];
      g_autoptr(BpwPackFit) loo = bpw_pack_fit (before, data, (gint) i, NULL, error);
      g_autoptr(BpwBlueprint) loo_bp = loo != NULL ? bpw_pack_fit_blueprint (loo) : NULL;
      double *predicted[N_COLUMNS] = { &row->before_s, &row->after_s, &row->loo_s };
      double *peaks[N_COLUMNS] = { &row->before_peak, &row->after_peak, &row->loo_peak };

      if (loo_bp == NULL)
        return NULL;
      row->name = g_strdup (pack->runs[i].name);
      row->timed = !isnan (pack->runs[i].measured_s);
      row->measured_s = bpw_pack_run_step_s (pack, data->traces[i], i);
      row->measured_peak = pack->runs[i].peak_bytes;
      if (!predict_run (pack, i, before, &row->before_s, &row->before_peak, &row->before_bound,
                        &row->before_legal, error) ||
          !bpw_pack_predict_run (pack, i, after, &row->after_s, &row->after_peak, error) ||
          !bpw_pack_predict_run (pack, i, loo_bp, &row->loo_s, &row->loo_peak, error))
        return NULL;
      if (!isnan (row->measured_peak))
        {
          for (guint c = 0; c < N_COLUMNS; c++)
            {
              double err = fabs (error_of (*peaks[c], row->measured_peak));

              peak_sum[c] += err;
              report->peak_max_abs[c] = MAX (report->peak_max_abs[c], err);
            }
          report->n_peaks++;
        }
      for (guint c = 0; c < N_COLUMNS; c++)
        {
          double err = fabs (error_of (*predicted[c], row->measured_s));

          report->mean_abs[c] += err;
          report->max_abs[c] = MAX (report->max_abs[c], err);
          counted[c]++;
        }
    }
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      report->mean_abs[c] = counted[c] > 0 ? report->mean_abs[c] / counted[c] : NAN;
      report->peak_mean_abs[c] = report->n_peaks > 0 ? peak_sum[c] / report->n_peaks : NAN;
      if (report->n_peaks == 0)
        report->peak_max_abs[c] = NAN;
    }
  return g_steal_pointer (&report);
}

gboolean
bpw_pack_report_accepts (const BpwPackReport *report,
                         GError             **error)
{
  if (report->mean_abs[LOO] <= report->mean_abs[BEFORE] || report->before_in_sample)
    return TRUE;
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("%s: calibration refused: the mean leave-one-run-out |error| would be %.1f %%, "
                 "worse than %s's %.1f %% on the pack's runs; nothing was written"),
               report->pack, 100 * report->mean_abs[LOO], report->blueprint,
               100 * report->mean_abs[BEFORE]);
  return FALSE;
}

void
bpw_pack_report_free (BpwPackReport *report)
{
  if (report == NULL)
    return;
  for (guint i = 0; i < report->n_runs; i++)
    g_free (report->runs[i].name);
  g_free (report->runs);
  g_free (report->pack);
  g_free (report->blueprint);
  g_free (report->calibrated);
  g_free (report);
}

char *
bpw_pack_report_to_text (const BpwPackReport *report)
{
  GString *out = g_string_new (NULL);
  static const char * const labels[] = { "mean |error|", "max |error|" };

  g_string_append_printf (out, _("Measurement pack %s: each run predicted on %s (before), on %s "
                                 "(after),\nand on the calibration that leaves the run's own "
                                 "trace out (leave-one-out); error = predicted / measured − 1\n"),
                          report->pack, report->blueprint, report->calibrated);
  g_string_append_printf (out, "  %-18s %12s %11s %8s %11s %8s %11s %8s\n", "run", "measured ms",
                          "before ms", "error", "after ms", "error", "l-o-o ms", "error");
  for (guint i = 0; i < report->n_runs; i++)
    {
      const BpwPackReportRun *r = &report->runs[i];

      g_string_append_printf (out, "  %-18s %11.3f%s %11.3f %+7.1f%% %11.3f %+7.1f%% %11.3f "
                              "%+7.1f%%\n", r->name, r->measured_s * 1e3, r->timed ? " " : "*",
                              r->before_s * 1e3, 100 * error_of (r->before_s, r->measured_s),
                              r->after_s * 1e3, 100 * error_of (r->after_s, r->measured_s),
                              r->loo_s * 1e3, 100 * error_of (r->loo_s, r->measured_s));
    }
  for (guint k = 0; k < G_N_ELEMENTS (labels); k++)
    {
      const double *v = k == 0 ? report->mean_abs : report->max_abs;

      g_string_append_printf (out, "  %-18s %12s %11s %7.1f%% %11s %7.1f%% %11s %7.1f%%\n",
                              labels[k], "", "", 100 * v[BEFORE], "", 100 * v[AFTER], "",
                              100 * v[LOO]);
    }
  g_string_append (out, _("  (*: the trace's span, the pack gives no measured_ms)\n"));
  if (report->before_in_sample)
    g_string_append_printf (out, _("  %s already models this software stack from its "
                                   "measurements: its \"before\" error is in sample; the "
                                   "leave-one-out column is the out-of-sample figure\n"),
                            report->blueprint);
  g_string_append (out, _("Peak device memory (GiB) as the blueprint's stack holds it, against the pack's "
                          "peak_memory_bytes where it gives one; bound: the static peak the "
                          "plan's legality is judged on (before)\n"));
  g_string_append_printf (out, "  %-18s %12s %11s %8s %11s %8s %11s %8s %9s %8s\n", "run",
                          "measured", "before", "error", "after", "error", "l-o-o", "error",
                          "bound", "error");
  for (guint i = 0; i < report->n_runs; i++)
    {
      const BpwPackReportRun *r = &report->runs[i];
      const double p[N_COLUMNS] = { r->before_peak, r->after_peak, r->loo_peak };

      if (isnan (r->measured_peak))
        g_string_append_printf (out, "  %-18s %12s", r->name, "—");
      else
        g_string_append_printf (out, "  %-18s %12.2f", r->name, r->measured_peak / GIB);
      for (guint c = 0; c < N_COLUMNS; c++)
        if (isnan (r->measured_peak))
          g_string_append_printf (out, " %11.2f %8s", p[c] / GIB, "");
        else
          g_string_append_printf (out, " %11.2f %+7.1f%%", p[c] / GIB,
                                  100 * error_of (p[c], r->measured_peak));
      g_string_append_printf (out, " %9.2f", r->before_bound / GIB);
      if (isnan (r->measured_peak))
        g_string_append_printf (out, " %8s", "");
      else
        g_string_append_printf (out, " %+7.1f%%", 100 * error_of (r->before_bound,
                                                                  r->measured_peak));
      /* A run the device ran that the plan calls illegal is a wrong verdict. */
      if (!r->before_legal)
        g_string_append (out, isnan (r->measured_peak) ? _("  illegal")
                                                       : _("  illegal, but it ran"));
      g_string_append_c (out, '\n');
    }
  if (report->n_peaks > 0)
    for (guint k = 0; k < G_N_ELEMENTS (labels); k++)
      {
        const double *v = k == 0 ? report->peak_mean_abs : report->peak_max_abs;

        g_string_append_printf (out, "  %-18s %12s %11s %7.1f%% %11s %7.1f%% %11s %7.1f%%\n",
                                labels[k], "", "", 100 * v[BEFORE], "", 100 * v[AFTER], "",
                                100 * v[LOO]);
      }
  else
    g_string_append (out, _("  (the pack gives no run's peak_memory_bytes: nothing to compare)\n"));
  return g_string_free (out, FALSE);
}

char *
bpw_pack_report_to_json (const BpwPackReport *report)
{
  static const char * const columns[] = { "before", "after", "leave_one_out" };
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_string (&w, "pack", report->pack);
  bpw_json_writer_string (&w, "blueprint", report->blueprint);
  bpw_json_writer_string (&w, "calibrated", report->calibrated);
  bpw_json_writer_bool (&w, "before_in_sample", report->before_in_sample);
  bpw_json_writer_begin_array (&w, "runs");
  for (guint i = 0; i < report->n_runs; i++)
    {
      const BpwPackReportRun *r = &report->runs[i];
      const double predicted[N_COLUMNS] = { r->before_s, r->after_s, r->loo_s };

      bpw_json_writer_begin_object (&w, NULL);
      bpw_json_writer_string (&w, "name", r->name);
      bpw_json_writer_double (&w, "measured_s", r->measured_s);
      bpw_json_writer_string (&w, "measured_from", r->timed ? "measured_ms" : "trace span");
      for (guint c = 0; c < N_COLUMNS; c++)
        {
          g_autofree char *key = g_strdup_printf ("%s_s", columns[c]);
          g_autofree char *err = g_strdup_printf ("%s_error", columns[c]);

          bpw_json_writer_double (&w, key, predicted[c]);
          bpw_json_writer_double (&w, err, error_of (predicted[c], r->measured_s));
        }
      {
        const double peaks[N_COLUMNS] = { r->before_peak, r->after_peak, r->loo_peak };

        bpw_json_writer_begin_object (&w, "peak_memory");
        if (isnan (r->measured_peak))
          bpw_json_writer_null (&w, "measured_bytes");
        else
          bpw_json_writer_double (&w, "measured_bytes", r->measured_peak);
        for (guint c = 0; c < N_COLUMNS; c++)
          {
            g_autofree char *key = g_strdup_printf ("%s_bytes", columns[c]);
            g_autofree char *err = g_strdup_printf ("%s_error", columns[c]);

            bpw_json_writer_double (&w, key, peaks[c]);
            if (!isnan (r->measured_peak))
              bpw_json_writer_double (&w, err, error_of (peaks[c], r->measured_peak));
          }
        bpw_json_writer_double (&w, "before_bound_bytes", r->before_bound);
        if (!isnan (r->measured_peak))
          bpw_json_writer_double (&w, "before_bound_error",
                                  error_of (r->before_bound, r->measured_peak));
        bpw_json_writer_bool (&w, "before_legal", r->before_legal);
        bpw_json_writer_end_object (&w);
      }
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_array (&w);
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      bpw_json_writer_begin_object (&w, columns[c]);
      bpw_json_writer_double (&w, "mean_abs_error", report->mean_abs[c]);
      bpw_json_writer_double (&w, "max_abs_error", report->max_abs[c]);
      if (report->n_peaks > 0)
        {
          bpw_json_writer_double (&w, "peak_memory_mean_abs_error", report->peak_mean_abs[c]);
          bpw_json_writer_double (&w, "peak_memory_max_abs_error", report->peak_max_abs[c]);
        }
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
