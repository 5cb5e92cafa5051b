/* bpw-plot-selection.c — the selected mark, dimmed surroundings and a contrasting outline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot-selection"

#include "config.h"

#include "bpw-plot-selection.h"

#define HALO_WIDTH   5.0
#define ACCENT_WIDTH 2.5

void
bpw_plot_selection_dim (cairo_t            *cr,
                        const BpwPlotStyle *style,
                        const BpwPlotRect  *area)
{
  g_return_if_fail (cr != NULL && style != NULL && area != NULL);

  cairo_save (cr);
  /* The selected marks are holes in the veil: even-odd against the area around them. */
  cairo_rectangle (cr, area->x, area->y, area->width, area->height);
  cairo_set_fill_rule (cr, CAIRO_FILL_RULE_EVEN_ODD);
  cairo_set_source_rgba (cr, style->plot_background.r, style->plot_background.g,
                         style->plot_background.b, BPW_PLOT_SELECTION_DIM);
  cairo_fill (cr);
  cairo_restore (cr);
}

void
bpw_plot_selection_stroke (cairo_t            *cr,
                           const BpwPlotStyle *style)
{
  g_return_if_fail (cr != NULL && style != NULL);

  cairo_save (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_width (cr, HALO_WIDTH);
  bpw_plot_set_source (cr, &style->background);
  cairo_stroke_preserve (cr);
  cairo_set_line_width (cr, ACCENT_WIDTH);
  bpw_plot_set_source (cr, &style->accent);
  cairo_stroke (cr);
  cairo_restore (cr);
}
