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
gboolean      bpw_plot_view_get_zoomed      (BpwPlotView      *self);
/* On a zoomed time chart, pans (keeping the zoom) to centre [@t0, @t1] s unless some of
 * it is in view already. */
void          bpw_plot_view_reveal_time     (BpwPlotView      *self,
                                             double            t0,
                                             double            t1);
/* Moves the view by @fraction of its width (negative: back), what A and D do. Time
 * charts stop at the ends of the step. */
void          bpw_plot_view_pan             (BpwPlotView      *self,
                                             double            fraction);
/* What a click does: selects the mark there ("item-selected" with its lineage; the
 * timeline also selects that very event), or clears the selection between marks. */
void          bpw_plot_view_select_at       (BpwPlotView      *self,
                                             double            x,
                                             double            y);
/* Area selection: with @shift_drag, Shift+drag drags out an area; with @plain_drag, a
 * plain drag does too (instead of panning). Both FALSE by default. */
void          bpw_plot_view_set_area_selection (BpwPlotView   *self,
                                                gboolean       shift_drag,
                                                gboolean       plain_drag);
/* Draws @rect (widget coordinates) as the selected area and emits "area-selected". */
void          bpw_plot_view_select_area     (BpwPlotView       *self,
                                             const BpwPlotRect *rect);
/* The selected area where it is now drawn (it follows zoom and pan); FALSE when none. */
gboolean      bpw_plot_view_get_area        (BpwPlotView      *self,
                                             BpwPlotRect      *rect);
void          bpw_plot_view_clear_area      (BpwPlotView      *self);
/* For pages around a view: installs "@prefix.zoom-in", ".zoom-out", ".zoom-reset" and
 * ".pan" (a double) on @page_class, with the keys W, S, 0, A and D, all passed to the
 * first BpwPlotView inside the page, so toolbar buttons and keys anywhere on the page
 * steer the chart. */
void          bpw_plot_view_class_add_page_actions (GtkWidgetClass *page_class,
                                                    const char     *prefix);
/* Memory sizes in GB (@decimal) or GiB, on screen and in exports: the window's units. */
void          bpw_plot_view_set_decimal_bytes (BpwPlotView    *self,
                                               gboolean        decimal);
/* What "plot.export" does once the file is chosen: the format from @path's extension
 * (.png, .svg, .pdf, .csv), the print style, 720 × 405 pt, PNG at @scale px per pt; a
 * zoomed timeline or lifetimes chart exports the time in view. */
gboolean      bpw_plot_view_export          (BpwPlotView      *self,
                                             const char       *path,
                                             double            scale,
                                             GError          **error);
/* bpw_plot_view_export() at 2 px per pt. */
gboolean      bpw_plot_view_export_to_file  (BpwPlotView      *self,
                                             const char       *path,
                                             GError          **error);

G_END_DECLS
