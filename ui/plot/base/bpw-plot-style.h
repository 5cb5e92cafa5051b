/* bpw-plot-style.h — colours, fonts and sizes of a chart, as plain data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A style is a value: copied into a plot at layout time, compared and stored without
 * references to any toolkit. The print style (exports, memos, tests) is fixed, so
 * exported figures do not depend on the desktop theme; the screen style is built from the
 * few values the GTK widget reads from its theme (bpw_plot_style_init_screen()). Sizes
 * are in cairo user units: logical pixels on screen, points in PNG/SVG/PDF exports.
 */
#pragma once

#include <glib.h>
#include <pango/pango.h>

#include "bpw-cost.h"
#include "bpw-types.h"

G_BEGIN_DECLS

typedef struct
{
  double r, g, b, a;  /* 0..1, not premultiplied */
} BpwPlotColor;

typedef enum
{
  BPW_PLOT_FONT_BODY,   /* legend entries, lane names, annotations */
  BPW_PLOT_FONT_SMALL,  /* tick labels, notes, labels inside marks */
  BPW_PLOT_FONT_TITLE,  /* the chart title */
  BPW_PLOT_FONT_AXIS,   /* axis titles, group headings */
  BPW_N_PLOT_FONTS
} BpwPlotFont;

typedef struct
{
  char          family[64];             /* Pango family list: "DejaVu Sans, sans-serif" */
  double        font_size[BPW_N_PLOT_FONTS];
  gboolean      bold[BPW_N_PLOT_FONTS];

  BpwPlotColor  background;
  BpwPlotColor  plot_background;        /* inside the axes */
  BpwPlotColor  foreground;             /* text, axes */
  BpwPlotColor  muted;                  /* secondary text, tick labels, baseline marks */
  BpwPlotColor  grid;                   /* major grid lines */
  BpwPlotColor  grid_minor;
  BpwPlotColor  ceiling;                /* roofline ceilings */
  BpwPlotColor  accent;                 /* hover and selection */
  BpwPlotColor  band[2];                /* alternating group bands */
  BpwPlotColor  layer_type[BPW_N_LAYER_TYPES];
  BpwPlotColor  bottleneck[BPW_N_BOTTLENECKS];

  double        line_width;             /* ceilings, frames */
  double        grid_width;
  double        marker_min;             /* radius of the smallest dot */
  double        marker_max;             /* radius of the largest dot */
  double        padding;                /* around the figure and between parts */
  gboolean      text;                   /* FALSE: no text at all (reference images) */
  gboolean      dark;
  gboolean      decimal_bytes;          /* memory in kB, MB, GB; else KiB, MiB, GiB */
} BpwPlotStyle;

/* Light background, DejaVu Sans at sizes that read well in a 720 × 405 pt memo figure. */
void     bpw_plot_style_init_print  (BpwPlotStyle       *style);
/* From the widget's theme: its text and background colours, accent, font family and
 * size in logical pixels. Dark themes (background darker than the text) get lighter
 * category colours so marks keep their contrast. */
void     bpw_plot_style_init_screen (BpwPlotStyle       *style,
                                     const BpwPlotColor *foreground,
                                     const BpwPlotColor *background,
                                     const BpwPlotColor *accent,
                                     const char         *font_family,
                                     double              font_size);
gboolean bpw_plot_style_equal       (const BpwPlotStyle *a,
                                     const BpwPlotStyle *b);

/* The unit bpw-si-format.h formats memory sizes in under @style: "B" (decimal prefixes)
 * or BPW_SI_BINARY_BYTES. Rates ("B/s") stay decimal, as vendors state them. */
const char *bpw_plot_style_bytes_unit (const BpwPlotStyle *style);
/* @bytes with three significant digits in @style's memory units ("22.4 GiB"); returns the
 * length written, like g_snprintf. */
gsize       bpw_plot_style_format_bytes (const BpwPlotStyle *style,
                                         char               *buf,
                                         gsize               size,
                                         double              bytes);

/* (transfer full): the font for @role, with an absolute size in user units. */
PangoFontDescription *bpw_plot_style_get_font (const BpwPlotStyle *style,
                                               BpwPlotFont         role);

/* Mix of @a and @b: @t = 0 gives @a, 1 gives @b. */
BpwPlotColor bpw_plot_color_mix        (const BpwPlotColor *a,
                                        const BpwPlotColor *b,
                                        double              t);
/* Relative luminance (sRGB, WCAG), for choosing text colour on a filled mark. */
double       bpw_plot_color_luminance  (const BpwPlotColor *color);
/* "#rrggbb" or "#rrggbbaa"; FALSE on anything else. */
gboolean     bpw_plot_color_parse      (const char         *spec,
                                        BpwPlotColor       *color);

G_END_DECLS
