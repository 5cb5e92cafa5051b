/* bpw-compare-plot.h — N candidates side by side: breakdowns, deltas, the fit matrix
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One row per candidate. Left: the step-time breakdown of the chosen scenario as stacked
 * bars on one time axis. Right, on the same rows: the fit matrix (candidate × scenario) as
 * a heat map — green cells meet the scenario's SLA, red ones fail it, shaded by the
 * margin; scenarios without an SLA in blue by throughput relative to the best candidate;
 * grey where the plan is illegal. Below: a table of the chosen scenario's headline numbers
 * with deltas against the baseline candidate. The viewport is ignored.
 */
#pragma once

#include "bpw-compare-data.h"
#include "bpw-plot.h"

G_BEGIN_DECLS

/* Hit-tests give BPW_PLOT_HIT_ITEM for a bar segment (index candidate × BPW_N_BREAKDOWNS
 * + part) and BPW_PLOT_HIT_CELL for a heat-map cell (index candidate × n_scenarios +
 * scenario) or a table row (index n_candidates × n_scenarios + candidate). */
typedef struct
{
  BpwPlotRect  rect;
  guint        candidate;
  guint        part;       /* BpwBreakdown */
} BpwCompareSegment;

#define BPW_TYPE_COMPARE_PLOT (bpw_compare_plot_get_type ())
G_DECLARE_FINAL_TYPE (BpwComparePlot, bpw_compare_plot, BPW, COMPARE_PLOT, BpwPlot)

/* Takes ownership of @data. */
BpwComparePlot       *bpw_compare_plot_new         (BpwCompareData   *data);
/* Compares every candidate of @study on every scenario (mappings as given) and shows the
 * breakdowns of scenario @scenario (NULL: the first) against @baseline (NULL: the first
 * candidate). NULL with @error for unknown names or a study without candidates. */
BpwComparePlot       *bpw_compare_plot_new_for_study (BpwStudy        *study,
                                                      const char      *scenario,
                                                      const char      *baseline,
                                                      GError         **error);
const BpwCompareData *bpw_compare_plot_get_data    (BpwComparePlot   *self);
/* Each emits "changed". */
void                  bpw_compare_plot_set_scenario (BpwComparePlot  *self,
                                                     guint            scenario);
void                  bpw_compare_plot_set_baseline (BpwComparePlot  *self,
                                                     guint            candidate);

/* A heat-map cell's fill: SLA pass green and fail red by the margin, no SLA slate by the
 * throughput relative to the best candidate, grey when illegal or not evaluated. */
BpwPlotColor          bpw_compare_fit_color        (const BpwPlotStyle  *style,
                                                    const BpwCompareFit *fit);

/* The scene of the last layout. */
const BpwCompareSegment *bpw_compare_plot_get_segments (BpwComparePlot *self,
                                                        guint          *n_segments);
/* The heat-map cell of @candidate × @scenario. */
gboolean              bpw_compare_plot_get_cell_rect (BpwComparePlot *self,
                                                      guint           candidate,
                                                      guint           scenario,
                                                      BpwPlotRect    *rect);
/* bpw_plot_get_area() is the bars' area, bpw_plot_map_x() maps their seconds. */
/* The table's text, row by row (header first), for tests. */
guint                 bpw_compare_plot_get_n_table_rows (BpwComparePlot *self);
const char           *bpw_compare_plot_get_table_text (BpwComparePlot *self,
                                                       guint           row,
                                                       guint           column);

G_END_DECLS
