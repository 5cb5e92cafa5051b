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

#include "bpw-plot-view-private.h"
#include "bpw-timeline-plot.h"

enum {
  ITEM_SELECTED,
  AREA_SELECTED,
  VIEWPORT_CHANGED,
  LAID_OUT,
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
  self->style.decimal_bytes = self->decimal_bytes;
  self->style_valid = TRUE;
}

/* Lays out when the size, the theme or the zoom changed, or something else (an export,
 * new data) laid the plot out differently since. */
static gboolean
bpw_plot_view_laid_out_cb (gpointer data)
{
  BpwPlotView *self = data;

  self->laid_out_idle = 0;
  g_signal_emit (self, signals[LAID_OUT], 0);
  return G_SOURCE_REMOVE;
}

void
_bpw_plot_view_ensure_layout (BpwPlotView *self)
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
  /* Layouts happen while drawing, where widgets must not change: the page hears of it
   * once the frame is done. */
  if (self->laid_out_idle == 0)
    self->laid_out_idle = g_idle_add (bpw_plot_view_laid_out_cb, self);
}

void
_bpw_plot_view_invalidate (BpwPlotView *self)
{
  self->serial = 0;
  self->width = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
bpw_plot_view_set_decimal_bytes (BpwPlotView *self,
                                 gboolean     decimal)
{
  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  if (self->decimal_bytes == !!decimal)
    return;
  self->decimal_bytes = !!decimal;
  self->style_valid = FALSE;
  _bpw_plot_view_invalidate (self);
}

void
_bpw_plot_view_viewport_changed (BpwPlotView *self)
{
  g_signal_emit (self, signals[VIEWPORT_CHANGED], 0);
}

static void
bpw_plot_view_snapshot (GtkWidget   *widget,
                        GtkSnapshot *snapshot)
{
  BpwPlotView *self = BPW_PLOT_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  const BpwPlotRect *r;
  BpwPlotRect area;
  cairo_t *cr;

  if (self->plot == NULL || width <= 0 || height <= 0)
    return;
  _bpw_plot_view_ensure_layout (self);
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
  if (bpw_plot_view_get_area (self, &area))
    {
      cairo_rectangle (cr, area.x + 0.5, area.y + 0.5, area.width, area.height);
      cairo_set_source_rgba (cr, self->style.accent.r, self->style.accent.g,
                             self->style.accent.b, 0.15);
      cairo_fill_preserve (cr);
      cairo_set_source_rgba (cr, self->style.accent.r, self->style.accent.g,
                             self->style.accent.b, 0.9);
      cairo_set_line_width (cr, 1.0);
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
  _bpw_plot_view_ensure_layout (self);
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
  self->pointer_inside = TRUE;
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
  self->pointer_inside = FALSE;
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
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (n_press == 2)
    bpw_plot_view_reset_zoom (self);
}

/* On release, so that the press that starts a drag selects nothing. */
static void
bpw_plot_view_released_cb (GtkGestureClick *click,
                           int              n_press,
                           double           x,
                           double           y,
                           BpwPlotView     *self)
{
  if (n_press == 1)
    bpw_plot_view_select_at (self, x, y);
}

void
bpw_plot_view_select_at (BpwPlotView *self,
                         double       x,
                         double       y)
{
  BpwPlotHit hit;

  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  bpw_plot_view_hit (self, x, y, &hit);
  /* Clicking between the marks clears the selection; a legend entry or a counter keeps it. */
  if (hit.kind != BPW_PLOT_HIT_NONE && hit.lineage == BPW_PLOT_NO_LINEAGE)
    return;
  /* The timeline selects the very event clicked (its micro-batch), not only its lineage. */
  if (BPW_IS_TIMELINE_PLOT (self->plot))
    bpw_timeline_plot_set_selected (BPW_TIMELINE_PLOT (self->plot),
                                    hit.kind == BPW_PLOT_HIT_ITEM ? (guint32) hit.index
                                                                  : BPW_TIMELINE_NONE);
  self->selected = hit.lineage;
  g_signal_emit (self, signals[ITEM_SELECTED], 0, hit.lineage);
}

void
bpw_plot_view_select_area (BpwPlotView       *self,
                           const BpwPlotRect *rect)
{
  gboolean log_axes;
  double ax, bx, ay, by;

  g_return_if_fail (BPW_IS_PLOT_VIEW (self));
  g_return_if_fail (rect != NULL);

  _bpw_plot_view_ensure_layout (self);
  if (!_bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    ax = 0, bx = 1;
  self->area_u0 = (rect->x - ax) / bx;
  self->area_u1 = (rect->x + rect->width - ax) / bx;
  self->area_y0 = rect->y;
  self->area_y1 = rect->y + rect->height;
  self->has_area = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[AREA_SELECTED], 0, rect->x, rect->y, rect->width, rect->height);
}

gboolean
bpw_plot_view_get_area (BpwPlotView *self,
                        BpwPlotRect *rect)
{
  gboolean log_axes;
  double ax, bx, ay, by, x0, x1;

  g_return_val_if_fail (BPW_IS_PLOT_VIEW (self), FALSE);

  if (!self->has_area)
    return FALSE;
  if (!_bpw_plot_view_get_transform (self, &log_axes, &ax, &bx, &ay, &by))
    ax = 0, bx = 1;
  x0 = ax + bx * self->area_u0;
  x1 = ax + bx * self->area_u1;
  *rect = (BpwPlotRect) { MIN (x0, x1), self->area_y0, fabs (x1 - x0),
                          self->area_y1 - self->area_y0 };
  return TRUE;
}

void
bpw_plot_view_clear_area (BpwPlotView *self)
{
  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  if (!self->has_area)
    return;
  self->has_area = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
bpw_plot_view_set_area_selection (BpwPlotView *self,
                                  gboolean     shift_drag,
                                  gboolean     plain_drag)
{
  g_return_if_fail (BPW_IS_PLOT_VIEW (self));

  self->area_selection = shift_drag || plain_drag;
  self->drag_selects = plain_drag;
}

static void
bpw_plot_view_plot_changed_cb (BpwPlot     *plot,
                               BpwPlotView *self)
{
  self->hover.kind = BPW_PLOT_HIT_NONE;
  self->hover.index = -1;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.export", TRUE);
  _bpw_plot_view_invalidate (self);
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
  self->has_area = FALSE;
  self->hover.kind = BPW_PLOT_HIT_NONE;
  self->hover.index = -1;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.export", plot != NULL);
  _bpw_plot_view_invalidate (self);
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
  _bpw_plot_view_invalidate (self);
}

static void
bpw_plot_view_dispose (GObject *object)
{
  BpwPlotView *self = BPW_PLOT_VIEW (object);

  g_clear_handle_id (&self->laid_out_idle, g_source_remove);
  bpw_plot_view_set_plot (self, NULL);

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

  /**
   * BpwPlotView::area-selected:
   * @x, @y, @width, @height: the area, in widget coordinates
   *
   * An area was dragged out (Shift+drag, or a plain drag in area mode) or set with
   * bpw_plot_view_select_area(). The view keeps it drawn, following zoom and pan.
   */
  signals[AREA_SELECTED] = g_signal_new ("area-selected", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 4, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                         G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  /**
   * BpwPlotView::viewport-changed:
   *
   * The view zoomed or panned, or went back to fitting the data.
   */
  signals[VIEWPORT_CHANGED] = g_signal_new ("viewport-changed", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);

  /**
   * BpwPlotView::laid-out:
   *
   * The plot was laid out anew (its size, data, options or viewport changed), after the
   * frame that did it: what depends on the scene of the layout can follow.
   */
  signals[LAID_OUT] = g_signal_new ("laid-out", G_TYPE_FROM_CLASS (klass),
                                    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_install_action (widget_class, "plot.export", NULL,
                                   _bpw_plot_view_export_action);
  _bpw_plot_view_class_zoom_init (widget_class);
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
  g_signal_connect (gesture, "released", G_CALLBACK (bpw_plot_view_released_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  _bpw_plot_view_zoom_init (self);
}

GtkWidget *
bpw_plot_view_new (void)
{
  return g_object_new (BPW_TYPE_PLOT_VIEW, NULL);
}
