/* bpw-plot-palette.h — colours of series and of step-time parts, shared by the charts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Candidates are told apart by a categorical palette (Tableau 10, which survives print
 * and the common colour-vision deficiencies); the parts of a step-time breakdown reuse the
 * bottleneck colours where the part is a bottleneck (compute, memory, communication,
 * latency, bubble), so a reader learns one set of colours. Also the grouping of counts,
 * which every chart's notes share.
 */
#pragma once

#include "bpw-evaluation.h"
#include "bpw-plot-style.h"

G_BEGIN_DECLS

/* The colour of series @index (candidates in study order); repeats after ten. */
BpwPlotColor  bpw_plot_series_color    (const BpwPlotStyle *style,
                                        guint               index);
BpwPlotColor  bpw_plot_breakdown_color (const BpwPlotStyle *style,
                                        BpwBreakdown        part);
/* "Compute", "Memory stall", "Exposed communication", ... */
const char   *bpw_plot_breakdown_name  (BpwBreakdown        part);

/* "594,157": counts in notes and tables read better grouped, whatever the locale.
 * Returns @buf. */
const char   *bpw_plot_format_count    (guint64             n,
                                        char               *buf,
                                        gsize               size);

G_END_DECLS
