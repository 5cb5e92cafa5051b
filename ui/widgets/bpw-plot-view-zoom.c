/* bpw-plot-view-zoom.c — zoom and pan: scroll, drag, keys and actions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every gesture ends in bpw_plot_view_zoom() or bpw_plot_view_pan(), so that tests drive
 * the same code without synthesising events. Time charts (timeline, lifetimes,
 * assignment) move in x only and stay inside the step, as Perfetto's timeline does: W and
 * S zoom about the pointer (the centre when it is elsewhere), A and D pan, the wheel zooms
 * and Shift+wheel or a horizontal wheel pans. The roofline zooms in both log axes.
 */
#define G_LOG_DOMAIN "bpw-plot-view-zoom"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-assignment-plot.h"
#include "bpw-lifetimes-plot.h"
#include "bpw-plot-view-private.h"
#include "bpw-roofline-plot.h"
#include "bpw-timeline-plot.h"

#define BPW_PLOT_VIEW_ZOOM_STEP 1.25
/* A/D and Shift+wheel move the view by this share of its width. */
#define BPW_PLOT_VIEW_PAN_STEP 0.1
/* The narrowest time window, as a share of the step: deep enough for a single kernel of
 * the longest steps, short of the precision of doubles. */
#define BPW_PLOT_VIEW_MIN_SPAN 1e-9

gboolean
_bpw_plot_view_is_time_chart (BpwPlotView *self)
{
  return BPW_IS_TIMELINE_PLOT (self->plot) || BPW_IS_LIFETIMES_PLOT (self->plot)
         || BPW_IS_ASSIGNMENT_PLOT (self->plot);
}

static const BpwPlotRect *
bpw_plot_view_get_data_area (BpwPlotView *self)
{
  if (BPW_IS_ROOFLINE_PLOT (self->plot) || _bpw_plot_view_is_time_chart (self))
    return bpw_plot_get_area (self->plot);
  return NULL;
}

/* Read from the plot's map of two values, so the view inverts exactly what was drawn. */
gboolean
_bpw_plot_view_get_transform (BpwPlotView *self,
                              gboolean    *log_axes,
                              double      *ax,
                              double      *bx,
                              double      *ay,
                              double      *by)
{
  double x0, y0, x1, y1;

  if (BPW_IS_ROOFLINE_PLOT (self->plot))
    {
      bpw_roofline_plot_map (BPW_ROOFLINE_PLOT (self->plot), 1.0, 1.0, &x0, &y0);
      bpw_roofline_plot_map (BPW_ROOFLINE_PLOT (self->plot), 10.0, 10.0, &x1, &y1);
      *log_axes = TRUE;
    }
  else if (self->plot != NULL && _bpw_plot_view_is_time_chart (self))
    {
      x0 = bpw_plot_map_x (self->plot, 0.0);
      x1 = bpw_plot_map_x (self->plot, 1.0);
      y0 = 0.0, y1 = 1.0;  /* lanes: no y zoom */
      *log_axes = FALSE;
    }
  else
    return FALSE;
  if (!(x1 != x0) || !(y1 != y0) || !isfinite (x1 - x0) || !isfinite (y1 - y0))
    return FALSE;
  *ax = x0, *bx = x1 - x0;
  *ay = y0, *by = y1 - y0;
  return TRUE;
}

static double
bpw_plot_view_value (double u, gboolean log_axes)
{
  return log_axes ? pow (10.0, u) : u;
}

static double
bpw_plot_view_unit (double v, gboolean log_axes)
{
  return log_axes ? log10 (v) : v;
}

/* The data window now shown: the plot's area through the inverse transform. Time charts
 * show every row, so their y is the data's. */
static gboolean
bpw_plot_view_current_viewport (BpwPlotView     *self,
                                BpwPlotViewport *vp)
{
  const BpwPlotRect *area;
  BpwPlotViewport bounds;
  gboolean log_axes;
  double ax, bx, ay, by, x0, x1, y0, y1;

  _bpw_plot_view_ensure_layout (self);
  if (self->plot == NULL || !_bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    return FALSE;
  area = bpw_plot_view_get_data_area (self);
  if (area == NULL || area->width <= 0 || area->height <= 0)
    return FALSE;
  x0 = bpw_plot_view_value ((area->x - ax) / bx, log_axes);
  x1 = bpw_plot_view_value ((area->x + area->width - ax) / bx, log_axes);
  y0 = bpw_plot_view_value ((area->y + area->height - ay) / by, log_axes);
  y1 = bpw_plot_view_value ((area->y - ay) / by, log_axes);
  if (_bpw_plot_view_is_time_chart (self))
    {
      if (!bpw_plot_get_bounds (self->plot, &bounds))
        bounds = (BpwPlotViewport) { 0, 1, 0, 1 };
      y0 = bounds.y_min, y1 = bounds.y_max;
    }
  *vp = (BpwPlotViewport) { MIN (x0, x1), MAX (x0, x1), MIN (y0, y1), MAX (y0, y1) };
  return TRUE;
}

static void
bpw_plot_view_set_viewport (BpwPlotView           *self,
                            const BpwPlotViewport *viewport)
{
  BpwPlotViewport vp = *viewport, bounds;
  double span, full;

  if (!isfinite (vp.x_min) || !isfinite (vp.x_max) || !isfinite (vp.y_min)
      || !isfinite (vp.y_max) || !(vp.x_max > vp.x_min) || !(vp.y_max > vp.y_min))
    return;
  /* Time stays inside the step: zooming out past it fits it, panning stops at its ends. */
  if (_bpw_plot_view_is_time_chart (self) && bpw_plot_get_bounds (self->plot, &bounds)
      && bounds.x_max > bounds.x_min)
    {
      full = bounds.x_max - bounds.x_min;
      span = MAX (vp.x_max - vp.x_min, full * BPW_PLOT_VIEW_MIN_SPAN);
      if (span >= full * (1 - 1e-9))
        {
          bpw_plot_view_reset_zoom (self);
          return;
        }
      vp.x_min = CLAMP (vp.x_min, bounds.x_min, bounds.x_max - span);
      vp.x_max = vp.x_min + span;
    }
  self->viewport = vp;
  self->zoomed = TRUE;
  _bpw_plot_view_invalidate (self);
  _bpw_plot_view_viewport_changed (self);
}

void
bpw_plot_view_zoom (BpwPlotView *self,
                    double       factor,
                    double       x,
                    double       y)
{
  BpwPlotViewport vp, nv;
  gboolean log_axes;
  double ax, bx, ay, by, ux, uy;

  g_return_if_fail (BPW_IS_PLOT_VIEW (self));
  g_return_if_fail (factor > 0);

  if (!bpw_plot_view_current_viewport (self, &vp)
      || !_bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    return;
  /* The value under the pointer stays under it. */
  ux = (x - ax) / bx;
  uy = (y - ay) / by;
#define ZOOM_AXIS(lo, hi, u) \
  G_STMT_START { \
    double l = bpw_plot_view_unit (vp.lo, log_axes), h = bpw_plot_view_unit (vp.hi, log_axes); \
    double c = CLAMP (u, l, h); \
    nv.lo = bpw_plot_view_value (c - (c - l) / factor, log_axes); \
    nv.hi = bpw_plot_view_value (c + (h - c) / factor, log_axes); \
  } G_STMT_END
  ZOOM_AXIS (x_min, x_max, ux);
  if (BPW_IS_ROOFLINE_PLOT (self->plot))
    ZOOM_AXIS (y_min, y_max, uy);
  else
    nv.y_min = vp.y_min, nv.y_max = vp.y_max;
#undef ZOOM_AXIS
  bpw_plot_view_set_viewport (self, &nv);
}

void
bpw_plot_view_pan (BpwPlotView *self,
                   double       fraction)
{
  BpwPlotViewport vp;
  gboolean log_axes;
  double ax, bx, ay, by, l, h;

  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  if (!bpw_plot_view_current_viewport (self, &vp)
      || !_bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    return;
  l = bpw_plot_view_unit (vp.x_min, log_axes);
  h = bpw_plot_view_unit (vp.x_max, log_axes);
  vp.x_min = bpw_plot_view_value (l + fraction * (h - l), log_axes);
  vp.x_max = bpw_plot_view_value (h + fraction * (h - l), log_axes);
  bpw_plot_view_set_viewport (self, &vp);
}

void
bpw_plot_view_reveal_time (BpwPlotView *self,
                           double       t0,
                           double       t1)
{
  BpwPlotViewport vp;
  double span;

  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  if (!self->zoomed || self->plot == NULL || !_bpw_plot_view_is_time_chart (self)
      || !bpw_plot_view_current_viewport (self, &vp) || (t1 > vp.x_min && t0 < vp.x_max))
    return;
  /* The same zoom, centred on it. */
  span = vp.x_max - vp.x_min;
  vp.x_min = (t0 + t1) / 2 - span / 2;
  vp.x_max = vp.x_min + span;
  bpw_plot_view_set_viewport (self, &vp);
}

void
bpw_plot_view_reset_zoom (BpwPlotView *self)
{
  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  if (!self->zoomed)
    return;
  self->zoomed = FALSE;
  _bpw_plot_view_invalidate (self);
  _bpw_plot_view_viewport_changed (self);
}

gboolean
bpw_plot_view_get_zoomed (BpwPlotView *self)
{
  g_return_val_if_fail (BPW_IS_PLOT_VIEW (self), FALSE);
  return self->zoomed;
}

static gboolean
bpw_plot_view_scroll_cb (GtkEventControllerScroll *scroll,
                         double                    dx,
                         double                    dy,
                         BpwPlotView              *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (scroll));
  gboolean time_chart = self->plot != NULL && _bpw_plot_view_is_time_chart (self);

  /* Shift turns the wheel sideways (as GTK's scrolled windows do); sideways pans. */
  if ((state & GDK_SHIFT_MASK) && dx == 0)
    dx = dy, dy = 0;
  if (dx != 0 && (time_chart || (state & GDK_SHIFT_MASK)))
    {
      bpw_plot_view_pan (self, dx * BPW_PLOT_VIEW_PAN_STEP);
      return TRUE;
    }
  /* Time charts zoom with the plain wheel; the roofline, whose page may scroll one day,
   * with Ctrl. Scroll events carry no position of their own in GTK 4.8: the pointer's
   * last one. */
  if (dy == 0 || (!(state & GDK_CONTROL_MASK) && !time_chart))
    return FALSE;
  /* A notch of the wheel is one step; touchpads send fractions of one. */
  bpw_plot_view_zoom (self, pow (BPW_PLOT_VIEW_ZOOM_STEP, -CLAMP (dy, -5.0, 5.0)),
                      self->pointer_x, self->pointer_y);
  return TRUE;
}

static double
bpw_plot_view_area_unit (BpwPlotView *self,
                         double       x)
{
  gboolean log_axes;
  double ax, bx, ay, by;

  if (!_bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    return x;
  return (x - ax) / bx;
}

static void
bpw_plot_view_drag_begin_cb (GtkGestureDrag *drag,
                             double          x,
                             double          y,
                             BpwPlotView    *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (drag));

  self->drag_x = x;
  self->drag_y = y;
  self->dragging_area = self->area_selection && self->plot != NULL
                        && ((state & GDK_SHIFT_MASK) || self->drag_selects);
  if (self->dragging_area)
    _bpw_plot_view_ensure_layout (self);
  else if (!bpw_plot_view_current_viewport (self, &self->drag_viewport))
    gtk_gesture_set_state (GTK_GESTURE (drag), GTK_EVENT_SEQUENCE_DENIED);
}

static void
bpw_plot_view_drag_update_cb (GtkGestureDrag *drag,
                              double          dx,
                              double          dy,
                              BpwPlotView    *self)
{
  BpwPlotViewport vp = self->drag_viewport;
  gboolean log_axes;
  double ax, bx, ay, by, sx, sy;

  if (fabs (dx) + fabs (dy) < 3.0)
    return;
  if (self->dragging_area)
    {
      self->area_u0 = bpw_plot_view_area_unit (self, self->drag_x + MIN (dx, 0));
      self->area_u1 = bpw_plot_view_area_unit (self, self->drag_x + MAX (dx, 0));
      self->area_y0 = self->drag_y + MIN (dy, 0);
      self->area_y1 = self->drag_y + MAX (dy, 0);
      self->has_area = TRUE;
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return;
    }
  if (!_bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    return;
  /* Moving the pointer by d pixels moves the data by d/b units the other way. */
  sx = -dx / bx;
  sy = BPW_IS_ROOFLINE_PLOT (self->plot) ? -dy / by : 0.0;
  vp.x_min = bpw_plot_view_value (bpw_plot_view_unit (vp.x_min, log_axes) + sx, log_axes);
  vp.x_max = bpw_plot_view_value (bpw_plot_view_unit (vp.x_max, log_axes) + sx, log_axes);
  vp.y_min = bpw_plot_view_value (bpw_plot_view_unit (vp.y_min, log_axes) + sy, log_axes);
  vp.y_max = bpw_plot_view_value (bpw_plot_view_unit (vp.y_max, log_axes) + sy, log_axes);
  bpw_plot_view_set_viewport (self, &vp);
}

static void
bpw_plot_view_drag_end_cb (GtkGestureDrag *drag,
                           double          dx,
                           double          dy,
                           BpwPlotView    *self)
{
  BpwPlotRect rect = { self->drag_x + MIN (dx, 0), self->drag_y + MIN (dy, 0),
                       fabs (dx), fabs (dy) };

  if (!self->dragging_area)
    return;
  self->dragging_area = FALSE;
  /* A click is not an area: it leaves the last one as it was. */
  if (fabs (dx) < 3.0)
    return;
  bpw_plot_view_select_area (self, &rect);
}

static void
bpw_plot_view_zoom_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  BpwPlotView *self = BPW_PLOT_VIEW (widget);
  const BpwPlotRect *area;
  double x = gtk_widget_get_width (widget) / 2.0;
  double y = gtk_widget_get_height (widget) / 2.0;

  /* About the pointer when it is over the chart, as W and S do in Perfetto; else about
   * the middle of the axes. */
  _bpw_plot_view_ensure_layout (self);
  if (self->pointer_inside)
    x = self->pointer_x, y = self->pointer_y;
  else if (self->plot != NULL && (area = bpw_plot_view_get_data_area (self)) != NULL
           && area->width > 0 && area->height > 0)
    x = area->x + area->width / 2, y = area->y + area->height / 2;
  if (g_str_equal (action_name, "plot.zoom-in"))
    bpw_plot_view_zoom (self, BPW_PLOT_VIEW_ZOOM_STEP, x, y);
  else if (g_str_equal (action_name, "plot.zoom-out"))
    bpw_plot_view_zoom (self, 1.0 / BPW_PLOT_VIEW_ZOOM_STEP, x, y);
  else
    bpw_plot_view_reset_zoom (self);
}

static void
bpw_plot_view_pan_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  bpw_plot_view_pan (BPW_PLOT_VIEW (widget), g_variant_get_double (parameter));
}

void
_bpw_plot_view_class_zoom_init (GtkWidgetClass *widget_class)
{
  static const struct { guint key; const char *action; } zoom_keys[] = {
    { GDK_KEY_plus, "plot.zoom-in" }, { GDK_KEY_KP_Add, "plot.zoom-in" },
    { GDK_KEY_equal, "plot.zoom-in" }, { GDK_KEY_w, "plot.zoom-in" },
    { GDK_KEY_minus, "plot.zoom-out" }, { GDK_KEY_KP_Subtract, "plot.zoom-out" },
    { GDK_KEY_s, "plot.zoom-out" }, { GDK_KEY_0, "plot.zoom-reset" },
  };

  gtk_widget_class_install_action (widget_class, "plot.zoom-in", NULL,
                                   bpw_plot_view_zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.zoom-out", NULL,
                                   bpw_plot_view_zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.zoom-reset", NULL,
                                   bpw_plot_view_zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.pan", "d", bpw_plot_view_pan_action);
  for (guint i = 0; i < G_N_ELEMENTS (zoom_keys); i++)
    gtk_widget_class_add_binding_action (widget_class, zoom_keys[i].key, 0,
                                         zoom_keys[i].action, NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, 0, "plot.pan", "d",
                                       -BPW_PLOT_VIEW_PAN_STEP);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_d, 0, "plot.pan", "d",
                                       BPW_PLOT_VIEW_PAN_STEP);
}

static GtkWidget *
bpw_plot_view_find (GtkWidget *widget)
{
  if (BPW_IS_PLOT_VIEW (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = bpw_plot_view_find (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* "<page>.zoom-in" → "plot.zoom-in" on the page's view. */
static void
bpw_plot_view_page_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  GtkWidget *view = bpw_plot_view_find (widget);
  g_autofree char *name = g_strconcat ("plot", strrchr (action_name, '.'), NULL);

  if (view != NULL)
    gtk_widget_activate_action_variant (view, name, parameter);
}

void
bpw_plot_view_class_add_page_actions (GtkWidgetClass *page_class,
                                      const char     *prefix)
{
  static const char * const names[] = { "zoom-in", "zoom-out", "zoom-reset" };
  static const guint keys[] = { GDK_KEY_w, GDK_KEY_s, GDK_KEY_0 };
  g_autofree char *pan = g_strconcat (prefix, ".pan", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *name = g_strconcat (prefix, ".", names[i], NULL);

      gtk_widget_class_install_action (page_class, name, NULL, bpw_plot_view_page_action);
      gtk_widget_class_add_binding_action (page_class, keys[i], 0, name, NULL);
    }
  gtk_widget_class_install_action (page_class, pan, "d", bpw_plot_view_page_action);
  gtk_widget_class_add_binding_action (page_class, GDK_KEY_a, 0, pan, "d",
                                       -BPW_PLOT_VIEW_PAN_STEP);
  gtk_widget_class_add_binding_action (page_class, GDK_KEY_d, 0, pan, "d",
                                       BPW_PLOT_VIEW_PAN_STEP);
}

void
_bpw_plot_view_zoom_init (BpwPlotView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  gesture = gtk_gesture_drag_new ();
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (bpw_plot_view_drag_begin_cb), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (bpw_plot_view_drag_update_cb), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (bpw_plot_view_drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (bpw_plot_view_scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}
