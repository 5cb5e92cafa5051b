/* bpw-memo-figures.c — the memo's charts, mapping-sheet excerpt, assumptions, validation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A chart that cannot be made (a plan that cannot bind, a study without serving
 * scenarios) becomes a sentence saying so: the memo is still written.
 */
#define G_LOG_DOMAIN "bpw-memo"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bpw-assignment-plot.h"
#include "bpw-candidate.h"
#include "bpw-compare-plot.h"
#include "bpw-lifetimes-plot.h"
#include "bpw-mapping-sheet.h"
#include "bpw-memo-private.h"
#include "bpw-roofline-plot.h"
#include "bpw-simulation.h"
#include "bpw-timeline-plot.h"
#include "bpw-trade-plot.h"

static void
unavailable (BpwMemo *m, const char *what, const GError *error)
{
  g_autofree char *line = g_strdup_printf (_("The %s is not available: %s"), what,
                                           error != NULL ? error->message : _("no data."));

  bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, &m->page.style.muted, line);
}

/* Lays @plot out and draws it at the page's text width; takes @plot. */
static void
figure (BpwMemo *m, BpwPlot *plot, const BpwPlotViewport *viewport, double height,
        const char *caption)
{
  g_autofree char *text = g_strdup_printf (_("Figure %u. %s"), ++m->figures, caption);

  bpw_memo_page_figure (&m->page, plot, viewport, height, text);
  g_object_unref (plot);
}

static const char *
blueprint_words (const BpwPlan *plan, char *buf, gsize size)
{
  g_snprintf (buf, size, _("blueprint %s%s%s%s"), plan->blueprint->name,
              plan->blueprint->device != NULL ? " (" : "",
              plan->blueprint->device != NULL ? plan->blueprint->device : "",
              plan->blueprint->device != NULL ? ")" : "");
  return buf;
}

static void
compare_figure (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  g_autoptr(GError) error = NULL;
  BpwComparePlot *plot = bpw_compare_plot_new_for_study (m->study, cmp->scenarios[cmp->scenario],
                                                         cmp->candidates[cmp->baseline], &error);
  g_autofree char *caption = NULL;

  bpw_memo_page_need (&m->page, 460);
  bpw_memo_page_heading (&m->page, 1, _("Candidates side by side"));
  if (plot == NULL)
    {
      unavailable (m, _("comparison"), error);
      return;
    }
  caption = g_strdup_printf (_("Left: the step time of %s per candidate split into its parts "
                             "(seconds per step). Right: every candidate on every scenario — "
                             "the SLA metric (seconds) and its margin, (limit − value) ÷ limit. "
                             "Below: headline numbers with deltas against %s. Source: the "
                             "analytic estimator on each candidate's blueprint (datasheet "
                             "values and calibrated efficiencies; see Assumptions)."),
                             cmp->scenarios[cmp->scenario], cmp->candidates[cmp->baseline]);
  figure (m, BPW_PLOT (plot), NULL, 400, caption);
}

static void
plan_figures (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  g_autoptr(GError) error = NULL;
  g_autofree char *heading = NULL;
  g_autofree char *caption = NULL;
  BpwRooflineData *roof;
  BpwAssignmentData *assign;
  char bp[192];

  heading = g_strdup_printf (_("Roofline and assignment: %s on %s"), cmp->candidates[m->best],
                             cmp->scenarios[cmp->scenario]);
  bpw_memo_page_need (&m->page, 470);
  bpw_memo_page_heading (&m->page, 1, heading);
  if (m->plan == NULL)
    {
      unavailable (m, _("plan of the recommended candidate"), NULL);
      return;
    }
  blueprint_words (m->plan, bp, sizeof bp);
  roof = bpw_roofline_data_new_from_plan (m->plan, -1, cmp->candidates[m->best], &error);
  if (roof == NULL)
    unavailable (m, _("roofline"), error);
  else
    {
      caption = g_strdup_printf (_("Roofline of every stage: arithmetic intensity (FLOP per byte "
                                 "of device memory) against attained FLOP/s, one dot per distinct "
                                 "operation, its area ∝ its share of task time. Ceilings: the "
                                 "datasheet peaks and bandwidths of %s; dashed: lowered by the "
                                 "calibrated efficiencies its provenance names."), bp);
      figure (m, BPW_PLOT (bpw_roofline_plot_new (roof)), NULL, 420, caption);
    }
  g_clear_error (&error);
  assign = bpw_assignment_data_new_from_plan (m->plan, -1, cmp->candidates[m->best], &error);
  if (assign == NULL)
    unavailable (m, _("assignment"), error);
  else
    {
      g_free (caption);
      caption = g_strdup_printf (_("Operations of the slowest pipeline stage on the engines and "
                                 "links of %s: bar width ∝ busy time per step on one rank "
                                 "(seconds), colour = bottleneck class; analytic estimate."), bp);
      figure (m, BPW_PLOT (bpw_assignment_plot_new (assign)), NULL, 420, caption);
    }
}

static void
simulation_figures (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  g_autofree char *heading = NULL;
  g_autofree char *caption = NULL;
  BpwTimelineData *data;
  BpwTimelinePlot *plot;
  BpwLifetimesData *life;
  BpwPlotViewport excerpt;
  char step[BPW_SI_LABEL_MAX], bp[192];
  double window;

  heading = g_strdup_printf (_("Simulated step: %s on %s"), cmp->candidates[m->best],
                             cmp->scenarios[cmp->scenario]);
  bpw_memo_page_need (&m->page, 300);
  bpw_memo_page_heading (&m->page, 1, heading);
  if (m->plan == NULL || (sim = bpw_simulation_new (m->plan, NULL, &error)) == NULL)
    {
      unavailable (m, _("simulation"), error);
      return;
    }
  blueprint_words (m->plan, bp, sizeof bp);
  bpw_si_format (step, sizeof step, sim->step_time_s, "s", 4);
  g_free (heading);
  heading = g_strdup_printf (_("Timeline of the whole step (%s)"), step);
  data = bpw_timeline_data_new_from_simulation (sim, heading, cmp->candidates[m->best], TRUE);
  plot = bpw_timeline_plot_new (data);
  bpw_timeline_plot_set_counters (plot, FALSE, FALSE);
  caption = g_strdup_printf (_("Discrete-event simulation of one step on %s: one lane per engine "
                             "and link queue of each pipeline stage's rank, coloured by phase; "
                             "time in seconds from the step's start. Events narrower than a "
                             "column are merged, never dropped."), bp);
  figure (m, BPW_PLOT (g_object_ref (plot)), NULL, 250, caption);

  /* An excerpt from the middle of the step, a sixteenth of a micro-batch's share of the step
   * (operations wide enough to carry their names), of the first two stages with their
   * memory and link counters. */
  window = sim->step_time_s / MAX ((double) m->plan->micro_batches, 1.0) / 16;
  excerpt = (BpwPlotViewport) { MAX (sim->step_time_s / 2 - window / 2, 0),
                                MIN (sim->step_time_s / 2 + window / 2, sim->step_time_s),
                                0, 0 };
  data = bpw_timeline_data_new_from_simulation (sim, _("Excerpt from the middle of the step: "
                                                "stages 0 and 1 with memory and link counters"),
                                                cmp->candidates[m->best], TRUE);
  g_object_unref (plot);
  plot = bpw_timeline_plot_new (data);
  bpw_timeline_plot_set_ranks (plot, 0, 2);
  g_free (caption);
  caption = g_strdup (_("The same simulation around mid-step: lanes of stages 0 and 1, device "
                      "memory in use (bytes, the track's height given in the legend) and the "
                      "fraction of time each link tier carries traffic."));
  figure (m, BPW_PLOT (plot), &excerpt, 380, caption);

  life = bpw_lifetimes_data_new_from_simulation (sim, -1, NULL, cmp->candidates[m->best],
                                                 &error);
  if (life == NULL)
    {
      unavailable (m, _("buffer lifetimes chart"), error);
      return;
    }
  g_free (life->title);
  life->title = g_strdup_printf (_("Buffer lifetimes of pipeline stage %" PRId64
                                 " (the highest peak)"), life->stage);
  g_free (caption);
  caption = g_strdup_printf (_("Device memory of one rank over the simulated step by category "
                             "(bytes), the capacity of %s, and below one bar per buffer from "
                             "allocation to free (seconds); full colour: live at the peak."), bp);
  figure (m, BPW_PLOT (bpw_lifetimes_plot_new (life)), NULL, 430, caption);
}

static void
trade_figure (BpwMemo *m)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *caption = NULL;
  BpwTradeOptions options;
  BpwTradeData *data;
  guint s = G_MAXUINT;

  for (guint pass = 0; pass < 2 && s == G_MAXUINT; pass++)
    for (guint i = 0; i < bpw_study_get_n_scenarios (m->study) && s == G_MAXUINT; i++)
      if (bpw_study_get_scenario (m->study, i)->scenario.phase ==
          (pass == 0 ? BPW_WORKLOAD_DECODE : BPW_WORKLOAD_PREFILL))
        s = i;
  if (s == G_MAXUINT)
    return;
  bpw_memo_page_need (&m->page, 460);
  bpw_memo_page_heading (&m->page, 1, _("Serving: throughput against latency"));
  /* With the scenario's serving settings, as the Trade-offs page and `bpw export` draw it
   * (disaggregated pools among them). */
  bpw_trade_options_init_from_study (&options, m->study, s);
  options.requests = m->options->trade_requests > 0 ? m->options->trade_requests : 500;
  data = bpw_trade_data_new_from_study (m->study, s, &options, &error);
  if (data == NULL)
    {
      unavailable (m, _("trade-curve chart"), error);
      return;
    }
  caption = g_strdup_printf (_("Each candidate serving a seeded Poisson request stream on its "
                             "mapping of %s, at arrival rates from light load to past "
                             "saturation: output tokens per second against the latency "
                             "percentiles (log scale), continuous batching with step "
                             "times from the analytic estimator. %s."), data->scenario,
                             data->stream);
  figure (m, BPW_PLOT (bpw_trade_plot_new (data)), NULL, 400, caption);
}

void
_bpw_memo_figures (BpwMemo *m)
{
  g_autoptr(GError) error = NULL;
  BpwCandidateRun run;

  if (bpw_candidate_run_init (&run, m->study, m->best, m->cmp->scenario, &error))
    m->plan = bpw_candidate_run_bind (&run, &error);
  bpw_candidate_run_clear (&run);
  compare_figure (m);
  plan_figures (m);
  simulation_figures (m);
  trade_figure (m);
}
