/* bpw-plot-selection.h — how every chart that links selection shows the selected mark
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A ring in the accent colour alone was easy to miss among marks of similar colours. The
 * selection now dims everything else in the plot area and outlines the selected marks
 * with a halo in the background colour under a thick accent line, so the outline keeps
 * its contrast against any fill beside it.
 */
#pragma once

#include <cairo.h>

#include "bpw-plot.h"
#include "bpw-plot-style.h"
#include "bpw-plot-text.h"

G_BEGIN_DECLS

/* Share of the background laid over what is not selected. */
#define BPW_PLOT_SELECTION_DIM 0.55

/* Lays the dimming veil over @area except the current path (the selected marks, as
 * closed sub-paths), which it consumes. */
void  bpw_plot_selection_dim     (cairo_t            *cr,
                                  const BpwPlotStyle *style,
                                  const BpwPlotRect  *area);
/* Strokes the current path (the selected marks' outlines) as the selection: a halo in
 * the background colour, then the accent on top; consumes the path. */
void  bpw_plot_selection_stroke  (cairo_t            *cr,
                                  const BpwPlotStyle *style);

G_END_DECLS
