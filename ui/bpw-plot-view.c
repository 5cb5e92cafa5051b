/* bpw-plot-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The plot draws itself with cairo (ui/plot); this widget only decides when to lay it out
 * (a new size, a new theme, a new zoom or a plot that changed), passes the pointer to its
 * hit test and keeps the viewport the user zoomed and panned to. Exports lay the plot out
 * at their own size, which the layout serial tells the view, so it lays out again after.
 */
#define G_LOG_DOMAIN "bpw-plot-view"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-assignment-plot.h"
#include "bpw-plot-view-private.h"
#include "bpw-roofline-plot.h"

#define BPW_PLOT_VIEW_ZOOM_STEP 1.25

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
  int              width, height;  /* of that layout */
  double           pointer_x, pointer_y;
  gboolean         zoomed;
  gboolean         style_valid;
};

enum {
  ITEM_SELECTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (BpwPlotView, bpw_plot_view, GTK_TYPE_WIDGET)

static BpwPlotColor
bpw_plot_color_from_rgba (const GdkRGBA *rgba)
{
  BpwPlotColor c = { rgba->red, rgba->green, rgba->blue, rgba->alpha };

  return c;
}

/* The theme's colours and font; GTK 4.8 has no newer API than the style context for
 * named colours. */
static void
bpw_plot_view_update_style (BpwPlotView *self)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GtkStyleContext *context = gtk_widget_get_style_context (GTK_WIDGET (self));
  PangoContext *pango = gtk_widget_get_pango_context (GTK_WIDGET (self));
  const PangoFontDescription *font = pango_context_get_font_description (pango);
  GdkRGBA fg, bg, accent;
  BpwPlotColor f, b, a;
  const char *family = NULL;
  double size = 14.0;
  double dpi;

  gtk_style_context_get_color (context, &fg);
  if (!gtk_style_context_lookup_color (context, "view_bg_color", &bg))
    gdk_rgba_parse (&bg, fg.red + fg.green + fg.blue > 1.5 ? "#1e1e1e" : "#ffffff");
  if (!gtk_style_context_lookup_color (context, "accent_color", &accent))
    gdk_rgba_parse (&accent, "#3584e4");
  G_GNUC_END_IGNORE_DEPRECATIONS

  if (font != NULL)
    {
      family = pango_font_description_get_family (font);
      if (pango_font_description_get_size (font) > 0)
        {
          size = (double) pango_font_description_get_size (font) / PANGO_SCALE;
          /* A size in points becomes logical pixels at the context's resolution. */
          if (!pango_font_description_get_size_is_absolute (font))
            {
              dpi = pango_cairo_context_get_resolution (pango);
              size *= (dpi > 0 ? dpi : 96.0) / 72.0;
            }
        }
    }
  f = bpw_plot_color_from_rgba (&fg);
  b = bpw_plot_color_from_rgba (&bg);
  a = bpw_plot_color_from_rgba (&accent);
  bpw_plot_style_init_screen (&self->style, &f, &b, &a, family, size);
  self->style_valid = TRUE;
}

/* Lays out when the size, the theme or the zoom changed, or something else (an export,
 * new data) laid the plot out differently since. */
static void
bpw_plot_view_ensure_layout (BpwPlotView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));

  if (self->plot == NULL)
    return;
  if (!self->style_valid)
    bpw_plot_view_update_style (self);
  if (bpw_plot_is_laid_out (self->plot) && width == self->width && height == self->height
      && bpw_plot_get_layout_serial (self->plot) == self->serial)
    return;
  bpw_plot_layout (self->plot, &self->style, self->zoomed ? &self->viewport : NULL,
                   MAX (width, 1), MAX (height, 1));
  self->width = width;
  self->height = height;
  self->serial = bpw_plot_get_layout_serial (self->plot);
}

static void
bpw_plot_view_invalidate (BpwPlotView *self)
{
  self->serial = 0;
  self->width = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Pixel = a + b·u on each axis, u the value or its log10: read from the plot's map of two
 * values, so the view inverts exactly what was drawn. FALSE for plots without axes. */
static gboolean
bpw_plot_view_get_transform (BpwPlotView *self,
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
  else if (BPW_IS_ASSIGNMENT_PLOT (self->plot))
    {
      x0 = bpw_assignment_plot_map_time (BPW_ASSIGNMENT_PLOT (self->plot), 0.0);
      x1 = bpw_assignment_plot_map_time (BPW_ASSIGNMENT_PLOT (self->plot), 1.0);
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

/* The data window now shown: the plot's area through the inverse transform. */
static gboolean
bpw_plot_view_current_viewport (BpwPlotView     *self,
                                BpwPlotViewport *vp)
{
  const BpwPlotRect *area;
  gboolean log_axes;
  double ax, bx, ay, by, x0, x1, y0, y1;

  bpw_plot_view_ensure_layout (self);
  if (self->plot == NULL || !bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    return FALSE;
  area = BPW_IS_ROOFLINE_PLOT (self->plot)
         ? bpw_roofline_plot_get_area (BPW_ROOFLINE_PLOT (self->plot))
         : bpw_assignment_plot_get_area (BPW_ASSIGNMENT_PLOT (self->plot));
  if (area == NULL || area->width <= 0 || area->height <= 0)
    return FALSE;
  x0 = bpw_plot_view_value ((area->x - ax) / bx, log_axes);
  x1 = bpw_plot_view_value ((area->x + area->width - ax) / bx, log_axes);
  y0 = bpw_plot_view_value ((area->y + area->height - ay) / by, log_axes);
  y1 = bpw_plot_view_value ((area->y - ay) / by, log_axes);
  *vp = (BpwPlotViewport) { MIN (x0, x1), MAX (x0, x1), MIN (y0, y1), MAX (y0, y1) };
  return TRUE;
}

static void
bpw_plot_view_set_viewport (BpwPlotView           *self,
                            const BpwPlotViewport *vp)
{
  if (!isfinite (vp->x_min) || !isfinite (vp->x_max) || !isfinite (vp->y_min)
      || !isfinite (vp->y_max) || !(vp->x_max > vp->x_min) || !(vp->y_max > vp->y_min))
    return;
  self->viewport = *vp;
  self->zoomed = TRUE;
  bpw_plot_view_invalidate (self);
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
      || !bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
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
bpw_plot_view_reset_zoom (BpwPlotView *self)
{
  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  if (!self->zoomed)
    return;
  self->zoomed = FALSE;
  bpw_plot_view_invalidate (self);
}

static void
bpw_plot_view_snapshot (GtkWidget   *widget,
                        GtkSnapshot *snapshot)
{
  BpwPlotView *self = BPW_PLOT_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  const BpwPlotRect *r;
  cairo_t *cr;

  if (self->plot == NULL || width <= 0 || height <= 0)
    return;
  bpw_plot_view_ensure_layout (self);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  bpw_plot_draw (self->plot, cr);
  if (self->hover.kind != BPW_PLOT_HIT_NONE)
    {
      r = &self->hover.bounds;
      cairo_set_source_rgba (cr, self->style.accent.r, self->style.accent.g,
                             self->style.accent.b, 0.9);
      cairo_set_line_width (cr, 2.0);
      cairo_rectangle (cr, r->x - 1.5, r->y - 1.5, r->width + 3.0, r->height + 3.0);
      cairo_stroke (cr);
    }
  cairo_destroy (cr);
}

gboolean
bpw_plot_view_hit (BpwPlotView *self,
                   double       x,
                   double       y,
                   BpwPlotHit  *hit)
{
  g_return_val_if_fail (BPW_IS_PLOT_VIEW (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  *hit = (BpwPlotHit) { BPW_PLOT_HIT_NONE, -1, 0, BPW_PLOT_NO_LINEAGE, { 0, 0, 0, 0 } };
  if (self->plot == NULL)
    return FALSE;
  bpw_plot_view_ensure_layout (self);
  return bpw_plot_hit_test (self->plot, x, y, hit);
}

char *
bpw_plot_view_describe_at (BpwPlotView *self,
                           double       x,
                           double       y)
{
  BpwPlotHit hit;

  g_return_val_if_fail (BPW_IS_PLOT_VIEW (self), NULL);

  if (!bpw_plot_view_hit (self, x, y, &hit))
    return NULL;
  return bpw_plot_describe (self->plot, &hit);
}

static gboolean
bpw_plot_view_query_tooltip (GtkWidget  *widget,
                             int         x,
                             int         y,
                             gboolean    keyboard,
                             GtkTooltip *tooltip)
{
  g_autofree char *text = NULL;

  /* Away from the marks, the widget's own tooltip (how to zoom and export), if any. */
  if (!keyboard)
    text = bpw_plot_view_describe_at (BPW_PLOT_VIEW (widget), x, y);
  if (text == NULL)
    return GTK_WIDGET_CLASS (bpw_plot_view_parent_class)->query_tooltip (widget, x, y,
                                                                        keyboard, tooltip);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
bpw_plot_view_motion_cb (GtkEventControllerMotion *motion,
                         double                    x,
                         double                    y,
                         BpwPlotView              *self)
{
  BpwPlotHit hit;

  self->pointer_x = x;
  self->pointer_y = y;
  bpw_plot_view_hit (self, x, y, &hit);
  if (hit.kind == self->hover.kind && hit.index == self->hover.index)
    return;
  self->hover = hit;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
bpw_plot_view_leave_cb (GtkEventControllerMotion *motion,
                        BpwPlotView              *self)
{
  if (self->hover.kind == BPW_PLOT_HIT_NONE)
    return;
  self->hover.kind = BPW_PLOT_HIT_NONE;
  self->hover.index = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
bpw_plot_view_pressed_cb (GtkGestureClick *click,
                          int              n_press,
                          double           x,
                          double           y,
                          BpwPlotView     *self)
{
  BpwPlotHit hit;

  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (n_press == 2)
    {
      bpw_plot_view_reset_zoom (self);
      return;
    }
  if (!bpw_plot_view_hit (self, x, y, &hit) || hit.lineage == BPW_PLOT_NO_LINEAGE)
    return;
  self->selected = hit.lineage;
  g_signal_emit (self, signals[ITEM_SELECTED], 0, hit.lineage);
}

static gboolean
bpw_plot_view_scroll_cb (GtkEventControllerScroll *scroll,
                         double                    dx,
                         double                    dy,
                         BpwPlotView              *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (scroll));
  /* Scroll events carry no position of their own in GTK 4.8: the pointer's last one. */
  double x = self->pointer_x;
  double y = self->pointer_y;

  if (!(state & GDK_CONTROL_MASK) || dy == 0)
    return FALSE;
  bpw_plot_view_zoom (self, dy < 0 ? BPW_PLOT_VIEW_ZOOM_STEP : 1.0 / BPW_PLOT_VIEW_ZOOM_STEP,
                      x, y);
  return TRUE;
}

static void
bpw_plot_view_drag_begin_cb (GtkGestureDrag *drag,
                             double          x,
                             double          y,
                             BpwPlotView    *self)
{
  if (!bpw_plot_view_current_viewport (self, &self->drag_viewport))
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

  if (fabs (dx) + fabs (dy) < 3.0
      || !bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
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
bpw_plot_view_zoom_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  BpwPlotView *self = BPW_PLOT_VIEW (widget);
  double x = gtk_widget_get_width (widget) / 2.0;
  double y = gtk_widget_get_height (widget) / 2.0;

  if (g_str_equal (action_name, "plot.zoom-in"))
    bpw_plot_view_zoom (self, BPW_PLOT_VIEW_ZOOM_STEP, x, y);
  else if (g_str_equal (action_name, "plot.zoom-out"))
    bpw_plot_view_zoom (self, 1.0 / BPW_PLOT_VIEW_ZOOM_STEP, x, y);
  else
    bpw_plot_view_reset_zoom (self);
}

static void
bpw_plot_view_plot_changed_cb (BpwPlot     *plot,
                               BpwPlotView *self)
{
  self->hover.kind = BPW_PLOT_HIT_NONE;
  self->hover.index = -1;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.export", TRUE);
  bpw_plot_view_invalidate (self);
}

void
bpw_plot_view_set_plot (BpwPlotView *self,
                        BpwPlot     *plot)
{
  g_return_if_fail (BPW_IS_PLOT_VIEW (self));
  g_return_if_fail (plot == NULL || BPW_IS_PLOT (plot));

  if (self->plot == plot)
    return;
  if (self->plot != NULL)
    g_clear_signal_handler (&self->changed_id, self->plot);
  g_set_object (&self->plot, plot);
  if (plot != NULL)
    self->changed_id = g_signal_connect (plot, "changed",
                                         G_CALLBACK (bpw_plot_view_plot_changed_cb), self);
  self->zoomed = FALSE;
  self->hover.kind = BPW_PLOT_HIT_NONE;
  self->hover.index = -1;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.export", plot != NULL);
  bpw_plot_view_invalidate (self);
}

BpwPlot *
bpw_plot_view_get_plot (BpwPlotView *self)
{
  g_return_val_if_fail (BPW_IS_PLOT_VIEW (self), NULL);

  return self->plot;
}

static void
bpw_plot_view_css_changed (GtkWidget         *widget,
                           GtkCssStyleChange *change)
{
  BpwPlotView *self = BPW_PLOT_VIEW (widget);

  GTK_WIDGET_CLASS (bpw_plot_view_parent_class)->css_changed (widget, change);
  self->style_valid = FALSE;
  bpw_plot_view_invalidate (self);
}

static void
bpw_plot_view_dispose (GObject *object)
{
  bpw_plot_view_set_plot (BPW_PLOT_VIEW (object), NULL);

  G_OBJECT_CLASS (bpw_plot_view_parent_class)->dispose (object);
}

static void
bpw_plot_view_class_init (BpwPlotViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_plot_view_dispose;
  widget_class->snapshot = bpw_plot_view_snapshot;
  widget_class->query_tooltip = bpw_plot_view_query_tooltip;
  widget_class->css_changed = bpw_plot_view_css_changed;

  /**
   * BpwPlotView::item-selected:
   * @lineage: the lineage of the operation clicked
   *
   * A mark that stands for an operation was clicked.
   */
  signals[ITEM_SELECTED] = g_signal_new ("item-selected", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_install_action (widget_class, "plot.export", NULL,
                                   _bpw_plot_view_export_action);
  gtk_widget_class_install_action (widget_class, "plot.zoom-in", NULL,
                                   bpw_plot_view_zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.zoom-out", NULL,
                                   bpw_plot_view_zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.zoom-reset", NULL,
                                   bpw_plot_view_zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "plot.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "plot.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0,
                                       "plot.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "plot.zoom-reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "plot.export", NULL);
  gtk_widget_class_set_css_name (widget_class, "bpw-plot-view");
}

static void
bpw_plot_view_init (BpwPlotView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->selected = BPW_PLOT_NO_LINEAGE;
  self->hover = (BpwPlotHit) { BPW_PLOT_HIT_NONE, -1, 0, BPW_PLOT_NO_LINEAGE, { 0, 0, 0, 0 } };
  self->width = -1;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (self), 240, 160);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.export", FALSE);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (bpw_plot_view_motion_cb), self);
  g_signal_connect (controller, "leave", G_CALLBACK (bpw_plot_view_leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_click_new ();
  g_signal_connect (gesture, "pressed", G_CALLBACK (bpw_plot_view_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (bpw_plot_view_drag_begin_cb), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (bpw_plot_view_drag_update_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (controller, "scroll", G_CALLBACK (bpw_plot_view_scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

GtkWidget *
bpw_plot_view_new (void)
{
  return g_object_new (BPW_TYPE_PLOT_VIEW, NULL);
}
