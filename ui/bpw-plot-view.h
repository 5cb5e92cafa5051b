/* bpw-plot-view.h — a widget that shows a BpwPlot: hover, selection, zoom, pan, export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "bpw-plot.h"

G_BEGIN_DECLS

#define BPW_TYPE_PLOT_VIEW (bpw_plot_view_get_type ())

G_DECLARE_FINAL_TYPE (BpwPlotView, bpw_plot_view, BPW, PLOT_VIEW, GtkWidget)

GtkWidget    *bpw_plot_view_new             (void);
/* (nullable): the plot to show; the view lays it out again when it emits "changed". */
void          bpw_plot_view_set_plot        (BpwPlotView      *self,
                                             BpwPlot          *plot);
BpwPlot      *bpw_plot_view_get_plot        (BpwPlotView      *self);
/* Lays the plot out at the widget's size (if it is not already) and hit-tests the point,
 * in widget coordinates. */
gboolean      bpw_plot_view_hit             (BpwPlotView      *self,
                                             double            x,
                                             double            y,
                                             BpwPlotHit       *hit);
/* (transfer full) (nullable): the tooltip text for the point, as hovering shows it. */
char         *bpw_plot_view_describe_at     (BpwPlotView      *self,
                                             double            x,
                                             double            y);
/* Zooms by @factor (> 1 in) about the point (widget coordinates), on plots with axes. */
void          bpw_plot_view_zoom            (BpwPlotView      *self,
                                             double            factor,
                                             double            x,
                                             double            y);
/* Back to the view that fits the data. */
void          bpw_plot_view_reset_zoom      (BpwPlotView      *self);
/* What "plot.export" does once the file is chosen: the format from @path's extension
 * (.png, .svg, .pdf, .csv), the print style, 720 × 405 pt (PNG at 2 px per pt). */
gboolean      bpw_plot_view_export_to_file  (BpwPlotView      *self,
                                             const char       *path,
                                             GError          **error);

G_END_DECLS
