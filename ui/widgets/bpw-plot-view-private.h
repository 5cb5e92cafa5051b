/* bpw-plot-view-private.h — what the files of BpwPlotView share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-plot-view.c: drawing, hover, selection and the area overlay;
 * bpw-plot-view-zoom.c: zoom and pan by scroll, drag, keys and actions;
 * bpw-plot-view-export.c: the "plot.export" action.
 */
#pragma once

#include "bpw-plot-view.h"

G_BEGIN_DECLS

struct _BpwPlotView
{
  GtkWidget        parent_instance;

  BpwPlot         *plot;
  gulong           changed_id;
  BpwPlotStyle     style;
  BpwPlotViewport  viewport;       /* when zoomed */
  BpwPlotViewport  drag_viewport;  /* at the start of a drag */
  BpwPlotHit       hover;
  guint32          selected;       /* lineage; BPW_PLOT_NO_LINEAGE */
  guint            serial;         /* of the layout drawn */
  guint            laid_out_idle;  /* emits "laid-out" after a new layout */
  int              width, height;  /* of that layout */
  double           pointer_x, pointer_y;
  double           drag_x, drag_y; /* where the drag started */
  /* The selected area: x in data units (u, see _bpw_plot_view_get_transform) so that it
   * follows zoom and pan, y in widget pixels (time charts do not zoom in y). */
  double           area_u0, area_u1, area_y0, area_y1;
  gboolean         has_area;
  gboolean         dragging_area;
  gboolean         area_selection; /* shift-drag selects an area */
  gboolean         drag_selects;   /* plain drag does too */
  gboolean         pointer_inside;
  gboolean         zoomed;
  gboolean         style_valid;
  gboolean         decimal_bytes;  /* the window's memory units: GB, else GiB */
};

/* bpw-plot-view.c */
void     _bpw_plot_view_ensure_layout  (BpwPlotView     *self);
void     _bpw_plot_view_invalidate     (BpwPlotView     *self);
/* Emits "viewport-changed" (after a zoom or pan). */
void     _bpw_plot_view_viewport_changed (BpwPlotView   *self);

/* bpw-plot-view-zoom.c */
/* Pixel = a + b·u on each axis, u the value or its log10. FALSE for plots without axes. */
gboolean _bpw_plot_view_get_transform  (BpwPlotView     *self,
                                        gboolean        *log_axes,
                                        double          *ax,
                                        double          *bx,
                                        double          *ay,
                                        double          *by);
/* Time charts (timeline, lifetimes, assignment) zoom and pan in x only. */
gboolean _bpw_plot_view_is_time_chart  (BpwPlotView     *self);
void     _bpw_plot_view_class_zoom_init (GtkWidgetClass *widget_class);
void     _bpw_plot_view_zoom_init      (BpwPlotView     *self);

/* "plot.export": a save dialog, then bpw_plot_view_export_to_file(). */
void     _bpw_plot_view_export_action (GtkWidget  *widget,
                                       const char *action_name,
                                       GVariant   *parameter);

G_END_DECLS
