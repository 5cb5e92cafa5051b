/* bpw-plot-text.c — measuring and drawing chart text with one Pango context
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot-text"

#include "config.h"

#include "bpw-plot-text.h"

void
bpw_plot_text_init (BpwPlotText        *text,
                    const BpwPlotStyle *style)
{
  cairo_font_options_t *options = cairo_font_options_create ();

  g_return_if_fail (text != NULL && style != NULL);

  text->context = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  /* Unhinted metrics: the same advance widths on an image surface, in a PDF and in an
   * SVG, so labels placed by layout fit wherever they are drawn. */
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  pango_cairo_context_set_font_options (text->context, options);
  cairo_font_options_destroy (options);
  pango_context_set_base_dir (text->context, PANGO_DIRECTION_LTR);
  text->layout = pango_layout_new (text->context);
  for (guint i = 0; i < BPW_N_PLOT_FONTS; i++)
    text->fonts[i] = bpw_plot_style_get_font (style, i);
  text->enabled = style->text;
}

void
bpw_plot_text_clear (BpwPlotText *text)
{
  g_return_if_fail (text != NULL);

  g_clear_object (&text->layout);
  g_clear_object (&text->context);
  for (guint i = 0; i < BPW_N_PLOT_FONTS; i++)
    g_clear_pointer (&text->fonts[i], pango_font_description_free);
}

static void
prepare (BpwPlotText *text, BpwPlotFont role, const char *str, double wrap)
{
  pango_layout_set_font_description (text->layout, text->fonts[role]);
  pango_layout_set_width (text->layout, wrap > 0 ? (int) (wrap * PANGO_SCALE) : -1);
  pango_layout_set_wrap (text->layout, PANGO_WRAP_WORD);
  pango_layout_set_text (text->layout, str, -1);
}

void
bpw_plot_text_measure (BpwPlotText *text,
                       BpwPlotFont  role,
                       const char  *str,
                       double       wrap,
                       double      *width,
                       double      *height)
{
  PangoRectangle logical;

  g_return_if_fail (text != NULL && text->layout != NULL && str != NULL);

  prepare (text, role, str, wrap);
  pango_layout_get_extents (text->layout, NULL, &logical);
  if (width != NULL)
    *width = (double) logical.width / PANGO_SCALE;
  if (height != NULL)
    *height = (double) logical.height / PANGO_SCALE;
}

void
bpw_plot_set_source (cairo_t            *cr,
                     const BpwPlotColor *color)
{
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a);
}

void
bpw_plot_text_draw (BpwPlotText        *text,
                    cairo_t            *cr,
                    BpwPlotFont         role,
                    const char         *str,
                    double              wrap,
                    double              x,
                    double              y,
                    double              ax,
                    double              ay,
                    double              angle,
                    const BpwPlotColor *color)
{
  PangoRectangle logical;

  g_return_if_fail (text != NULL && text->layout != NULL && str != NULL);

  if (!text->enabled || *str == '\0')
    return;
  prepare (text, role, str, wrap);
  pango_layout_get_extents (text->layout, NULL, &logical);
  cairo_save (cr);
  cairo_translate (cr, x, y);
  if (angle != 0)
    cairo_rotate (cr, angle);
  cairo_move_to (cr, -ax * logical.width / PANGO_SCALE - (double) logical.x / PANGO_SCALE,
                 -ay * logical.height / PANGO_SCALE - (double) logical.y / PANGO_SCALE);
  bpw_plot_set_source (cr, color);
  pango_cairo_show_layout (cr, text->layout);
  cairo_restore (cr);
}
