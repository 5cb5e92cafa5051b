/* bpw-plot-text.h — measuring and drawing chart text with one Pango context
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layout measures text and draw paints it through the same context, fonts and font
 * options (hinting off), so a label is exactly as wide on paper as layout reserved, on
 * any surface. One PangoLayout is reused for every string: drawing allocates nothing of
 * its own.
 */
#pragma once

#include <cairo.h>
#include <pango/pangocairo.h>

#include "bpw-plot-style.h"

G_BEGIN_DECLS

typedef struct
{
  PangoContext          *context;                 /* owned */
  PangoLayout           *layout;                  /* owned, reused for every string */
  PangoFontDescription  *fonts[BPW_N_PLOT_FONTS]; /* owned */
  gboolean               enabled;                 /* the style's text flag */
} BpwPlotText;

void     bpw_plot_text_init     (BpwPlotText        *text,
                                 const BpwPlotStyle *style);
void     bpw_plot_text_clear    (BpwPlotText        *text);

/* Logical size of @str in @role; with @wrap > 0, wrapped at that width. */
void     bpw_plot_text_measure  (BpwPlotText        *text,
                                 BpwPlotFont         role,
                                 const char         *str,
                                 double              wrap,
                                 double             *width,
                                 double             *height);
/* Draws @str so that the point (@ax, @ay) of its box (0 left/top … 1 right/bottom) lies
 * at (@x, @y), rotated by @angle radians about that point. @wrap as for measuring. Does
 * nothing when the style has no text. */
void     bpw_plot_text_draw     (BpwPlotText        *text,
                                 cairo_t            *cr,
                                 BpwPlotFont         role,
                                 const char         *str,
                                 double              wrap,
                                 double              x,
                                 double              y,
                                 double              ax,
                                 double              ay,
                                 double              angle,
                                 const BpwPlotColor *color);

void     bpw_plot_set_source    (cairo_t            *cr,
                                 const BpwPlotColor *color);

G_END_DECLS
