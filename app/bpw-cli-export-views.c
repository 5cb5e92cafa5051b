/* bpw-cli-export-views.c — the charts `bpw export` draws, built from a study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each view binds what it needs (a plan, a simulation, serving sweeps, a comparison of
 * every candidate on every scenario) and hands it to its libbpw-plot chart; the export
 * path then lays the chart out and draws it with the print style.
 */
#define G_LOG_DOMAIN "bpw-cli-export"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"
#include "bpw-cli-export.h"

#include <math.h>
#include <string.h>

#include "bpw-candidate.h"
#include "bpw-error.h"

#ifdef BPW_HAVE_PLOT
#include "bpw-assignment-plot.h"
#include "bpw-compare-plot.h"
#include "bpw-lifetimes-plot.h"
#include "bpw-measurement-run.h"
#include "bpw-memo.h"
#include "bpw-memo-validation.h"
#include "bpw-roofline-plot.h"
#include "bpw-simulation.h"
#include "bpw-timeline-plot.h"
#include "bpw-trade-plot.h"
#endif

static gboolean
lookup_candidate (BpwStudy *study, const char *name, guint *index, GError **error)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (name == NULL || strcmp (bpw_study_get_candidate (study, i)->name, name) == 0)
      {
        *index = i;
        return TRUE;
      }
  g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "export: the study has no candidate “%s”",
               name != NULL ? name : "");
  return FALSE;
}

static gboolean
lookup_scenario (BpwStudy *study, const char *name, guint *index, GError **error)
{
  *index = 0;
  if (name != NULL && !bpw_study_lookup_scenario (study, name, index))
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "export: the study has no scenario “%s”",
                   name);
      return FALSE;
    }
  return TRUE;
}

BpwPlan *
bpw_cli_export_bind_plan (BpwStudy   *study,
                          const char *candidate,
                          const char *scenario,
                          guint      *s,
                          GError    **error)
{
  BpwPlan *plan = NULL;
  BpwCandidateRun run;
  guint c = 0;
  gboolean ok;

  if (!lookup_candidate (study, candidate, &c, error) ||
      !lookup_scenario (study, scenario, s, error))
    return NULL;
  ok = bpw_candidate_run_init (&run, study, c, *s, error);
  if (ok)
    plan = bpw_candidate_run_bind (&run, error);
  bpw_candidate_run_clear (&run);
  return plan;
}

const char *
bpw_cli_export_candidate_name (BpwStudy   *study,
                               const char *name)
{
  return name != NULL ? name : bpw_study_get_candidate (study, 0)->name;
}

#ifdef BPW_HAVE_PLOT
/* The study's first measurement of the candidate on scenario @s, as diamonds beside the
 * predicted dots. A measurement that cannot be correlated is a warning: the chart of the
 * model is still worth having. */
static void
roofline_add_measured (BpwStudy *study, const char *candidate, guint s, BpwRooflineData *data)
{
  const char *scenario = bpw_study_get_scenario (study, s)->name;

  for (guint i = 0; i < bpw_study_get_n_measurements (study); i++)
    {
      const BpwStudyMeasurement *m = bpw_study_get_measurement (study, i);
      g_autoptr(GError) error = NULL;
      BpwMeasurementRun run;

      if (g_strcmp0 (m->candidate, candidate) != 0 || g_strcmp0 (m->scenario, scenario) != 0)
        continue;
      if (bpw_measurement_run_init (&run, study, i, &error)
          && bpw_measurement_run_execute (&run, &error))
        bpw_roofline_data_add_measured (data, run.correlation, NULL);
      else
        bpw_cli_print (stderr, "bpw: warning: %s\n", error->message);
      bpw_measurement_run_clear (&run);
      return;
    }
}

static BpwPlot *
roofline_plot (BpwStudy *study, const BpwExportOptions *o, BpwPlan *plan, GError **error)
{
  g_autoptr(BpwRooflineData) data = NULL;
  g_autoptr(BpwPlan) baseline = NULL;
  guint s;

  data = bpw_roofline_data_new_from_plan (plan, o->stage,
                                          bpw_cli_export_candidate_name (study, o->candidate),
                                          error);
  if (data == NULL)
    return NULL;
  if (o->all_precisions)
    bpw_roofline_data_add_precisions (data, plan);
  if (o->baseline != NULL)
    {
      baseline = bpw_cli_export_bind_plan (study, o->baseline, o->scenario, &s, error);
      if (baseline == NULL ||
          !bpw_roofline_data_add_baseline (data, baseline, o->stage, o->baseline, error))
        return NULL;
    }
  if (lookup_scenario (study, o->scenario, &s, NULL))
    roofline_add_measured (study, bpw_cli_export_candidate_name (study, o->candidate), s, data);
  return BPW_PLOT (bpw_roofline_plot_new (g_steal_pointer (&data)));
}

static BpwPlot *
assignment_plot (BpwStudy *study, const BpwExportOptions *o, BpwPlan *plan, GError **error)
{
  const char *label = bpw_cli_export_candidate_name (study, o->candidate);
  BpwAssignmentData *data = bpw_assignment_data_new_from_plan (plan, o->stage, label, error);

  return data != NULL ? BPW_PLOT (bpw_assignment_plot_new (data)) : NULL;
}

static char *
step_title (const char *what, BpwStudy *study, const BpwExportOptions *o, guint s,
            const BpwSimulation *sim)
{
  char step[BPW_SI_LABEL_MAX];

  bpw_si_format (step, sizeof step, sim->step_time_s, "s", 4);
  return g_strdup_printf ("%s: %s on %s, simulated step of %s", what,
                          bpw_study_get_scenario (study, s)->name,
                          bpw_cli_export_candidate_name (study, o->candidate), step);
}

/* The first event of lineage --select that starts in --time (else the first of all). */
static gboolean
select_event (BpwTimelinePlot *plot, const BpwExportOptions *o)
{
  const BpwTimelineData *data = bpw_timeline_plot_get_data (plot);

  for (guint32 i = 0; !isnan (o->t0) && i < data->n_events; i++)
    if (data->events[i].lineage == (guint32) o->select && data->start[i] >= o->t0 &&
        data->start[i] <= o->t1)
      {
        bpw_timeline_plot_set_selected (plot, i);
        return TRUE;
      }
  return bpw_timeline_plot_select_lineage (plot, (guint32) o->select);
}

static BpwPlot *
timeline_plot (BpwStudy *study, const BpwExportOptions *o, GError **error)
{
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autofree char *title = NULL;
  BpwTimelineData *data;
  BpwTimelinePlot *plot;
  guint s;

  if ((plan = bpw_cli_export_bind_plan (study, o->candidate, o->scenario, &s, error)) == NULL ||
      (sim = bpw_simulation_new (plan, NULL, error)) == NULL)
    return NULL;
  if (o->stage >= (gint64) sim->n_ranks || o->last_stage >= (gint64) sim->n_ranks)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "export: --stage %"
                   G_GINT64_FORMAT ": the plan has %u pipeline stages (0 to %u)",
                   MAX (o->stage, o->last_stage),
                   sim->n_ranks, sim->n_ranks - 1);
      return NULL;
    }
  title = step_title ("Timeline", study, o, s, sim);
  data = bpw_timeline_data_new_from_simulation (sim, title, bpw_cli_export_candidate_name (
                                                  study, o->candidate), TRUE);
  plot = bpw_timeline_plot_new (data);
  if (o->stage >= 0)
    bpw_timeline_plot_set_ranks (plot, (guint32) o->stage, 1);
  else if (o->first_stage >= 0)
    bpw_timeline_plot_set_ranks (plot, (guint32) o->first_stage,
                                 (guint32) (o->last_stage - o->first_stage + 1));
  if (o->color_by != NULL)
    bpw_timeline_plot_set_color_by (plot, strcmp (o->color_by, "bottleneck") == 0
                                            ? BPW_TIMELINE_COLOR_BOTTLENECK
                                          : strcmp (o->color_by, "layer-type") == 0
                                            ? BPW_TIMELINE_COLOR_LAYER_TYPE
                                            : BPW_TIMELINE_COLOR_PHASE);
  bpw_timeline_plot_set_time_window (plot, o->t0, o->t1);
  if (o->select >= 0 && !select_event (plot, o))
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "export: --select %" G_GINT64_FORMAT ": no "
                   "event of the step has that lineage id", o->select);
      g_object_unref (plot);
      return NULL;
    }
  return BPW_PLOT (plot);
}

static BpwPlot *
lifetimes_plot (BpwStudy *study, const BpwExportOptions *o, GError **error)
{
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autofree char *title = NULL;
  g_autofree char *what = NULL;
  BpwLifetimesData *data;
  BpwLifetimesPlot *plot;
  gint64 rank = o->stage;
  guint s;

  if ((plan = bpw_cli_export_bind_plan (study, o->candidate, o->scenario, &s, error)) == NULL ||
      (sim = bpw_simulation_new (plan, NULL, error)) == NULL)
    return NULL;
  if (rank < 0)
    for (guint32 r = 0; r < sim->n_ranks; r++)
      if (rank < 0 || sim->memory[r].peak > sim->memory[rank].peak)
        rank = r;
  what = g_strdup_printf ("Buffer lifetimes of pipeline stage %" G_GINT64_FORMAT, rank);
  title = step_title (what, study, o, s, sim);
  data = bpw_lifetimes_data_new_from_simulation (sim, rank, title, bpw_cli_export_candidate_name (
                                                   study, o->candidate), error);
  if (data == NULL)
    {
      g_prefix_error (error, "export: --stage: ");
      return NULL;
    }
  plot = bpw_lifetimes_plot_new (data);
  bpw_lifetimes_plot_set_time_window (plot, o->t0, o->t1);
  return BPW_PLOT (plot);
}

/* The first serving scenario (decode before prefill) unless one is named. */
static gboolean
serving_scenario (BpwStudy *study, const char *name, guint *s, GError **error)
{
  if (name != NULL)
    return lookup_scenario (study, name, s, error);
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < bpw_study_get_n_scenarios (study); i++)
      if (bpw_study_get_scenario (study, i)->scenario.phase ==
          (pass == 0 ? BPW_WORKLOAD_DECODE : BPW_WORKLOAD_PREFILL))
        {
          *s = i;
          return TRUE;
        }
  g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "export: trade curves need a prefill or decode "
               "scenario, and the study has none");
  return FALSE;
}

static BpwPlot *
trade_plot (BpwStudy *study, const BpwExportOptions *o, GError **error)
{
  BpwTradeOptions options;
  BpwTradeData *data;
  BpwTradePlot *plot;
  guint s;

  if (!serving_scenario (study, o->scenario, &s, error))
    return NULL;
  bpw_trade_options_init_from_study (&options, study, s);
  if (o->requests > 0)
    options.requests = o->requests;
  data = bpw_trade_data_new_from_study (study, s, &options, error);
  if (data == NULL)
    return NULL;
  plot = bpw_trade_plot_new (data);
  if (o->metric != NULL)
    bpw_trade_plot_set_latency (plot, strcmp (o->metric, "ttft") == 0 ? BPW_TRADE_LATENCY_TTFT
                                      : strcmp (o->metric, "e2e") == 0 ? BPW_TRADE_LATENCY_E2E
                                      : BPW_TRADE_LATENCY_TPOT);
  /* No chart of unknown costs: a per-dollar view needs a price for every candidate. */
  if (g_strcmp0 (o->y, "per-dollar") == 0 && !bpw_trade_data_cost_unit (data, NULL, error))
    {
      g_object_unref (plot);
      return NULL;
    }
  if (o->y != NULL)
    bpw_trade_plot_set_y (plot, strcmp (o->y, "per-watt") == 0 ? BPW_TRADE_Y_PER_WATT
                                : strcmp (o->y, "per-dollar") == 0 ? BPW_TRADE_Y_PER_DOLLAR
                                : BPW_TRADE_Y_THROUGHPUT);
  return BPW_PLOT (plot);
}

gboolean
bpw_cli_export_memo (BpwStudy               *study,
                     const BpwExportOptions *o,
                     GError                **error)
{
  BpwMemoOptions options;

  bpw_memo_options_init (&options);
  bpw_memo_options_set_validation (&options, study);
  options.baseline = o->baseline;
  options.decimal_bytes = bpw_cli_export_decimal_bytes (o);
  if (o->requests > 0)
    options.trade_requests = o->requests;
  return bpw_memo_write_pdf (study, &options, o->output, error);
}

BpwPlot *
bpw_cli_export_chart (BpwStudy               *study,
                      const BpwExportOptions *o,
                      GError                **error)
{
  g_autoptr(BpwPlan) plan = NULL;
  guint s;

  if (strcmp (o->view, "timeline") == 0)
    return timeline_plot (study, o, error);
  if (strcmp (o->view, "lifetimes") == 0)
    return lifetimes_plot (study, o, error);
  if (strcmp (o->view, "trade") == 0)
    return trade_plot (study, o, error);
  if (strcmp (o->view, "compare") == 0)
    return BPW_PLOT (bpw_compare_plot_new_for_study (study, o->scenario, o->baseline, error));
  plan = bpw_cli_export_bind_plan (study, o->candidate, o->scenario, &s, error);
  if (plan == NULL)
    return NULL;
  return strcmp (o->view, "roofline") == 0 ? roofline_plot (study, o, plan, error)
                                           : assignment_plot (study, o, plan, error);
}
#endif
