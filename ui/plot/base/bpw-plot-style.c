/* bpw-plot-style.c — colours, fonts and sizes of a chart, as plain data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot-style"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-plot-style.h"
#include "bpw-si-format.h"

/* Category colours after Tableau 10, which stays distinguishable in print and for the
 * common colour-vision deficiencies. Indexed by the core enums, so one layer type has
 * one colour in every chart. */
static const char * const layer_type_colors[BPW_N_LAYER_TYPES] = {
  [BPW_LAYER_EMBEDDING] = "#59a14f",
  [BPW_LAYER_ATTENTION] = "#4e79a7",
  [BPW_LAYER_MLP] = "#f28e2b",
  [BPW_LAYER_MOE] = "#b07aa1",
  [BPW_LAYER_NORM] = "#76b7b2",
  [BPW_LAYER_HEAD] = "#9c755f",
  [BPW_LAYER_LOSS] = "#e15759",
  [BPW_LAYER_OPTIMIZER] = "#c9a227",
  [BPW_LAYER_VISION] = "#ff9da7",
  [BPW_LAYER_CROSS_ATTENTION] = "#bab0ac",
};

/* After Okabe and Ito's colour-blind-safe palette: compute blue (the engine is doing its
 * job), memory orange (the usual problem), links reddish purple, fixed costs green,
 * capacity vermillion; blue against orange also survives red-green colour blindness. */
static const char * const bottleneck_colors[BPW_N_BOTTLENECKS] = {
  [BPW_BOTTLENECK_COMPUTE] = "#3d7ab8",
  [BPW_BOTTLENECK_MEMORY] = "#e69f00",
  [BPW_BOTTLENECK_COMMUNICATION] = "#cc79a7",
  [BPW_BOTTLENECK_LATENCY] = "#009e73",
  [BPW_BOTTLENECK_CAPACITY] = "#d55e00",
  [BPW_BOTTLENECK_BUBBLE] = "#bab0ac",
  [BPW_BOTTLENECK_DEPENDENCY] = "#56b4e9",
};

gboolean
bpw_plot_color_parse (const char   *spec,
                      BpwPlotColor *color)
{
  guint v[4] = { 0, 0, 0, 255 };
  gsize len;

  g_return_val_if_fail (color != NULL, FALSE);

  if (spec == NULL || spec[0] != '#')
    return FALSE;
  len = strlen (spec + 1);
  if (len != 6 && len != 8)
    return FALSE;
  for (gsize i = 0; i < len / 2; i++)
    {
      int hi = g_ascii_xdigit_value (spec[1 + 2 * i]), lo = g_ascii_xdigit_value (spec[2 + 2 * i]);

      if (hi < 0 || lo < 0)
        return FALSE;
      v[i] = (guint) (hi * 16 + lo);
    }
  *color = (BpwPlotColor) { v[0] / 255.0, v[1] / 255.0, v[2] / 255.0, v[3] / 255.0 };
  return TRUE;
}

static BpwPlotColor
hex (const char *spec)
{
  BpwPlotColor c = { 0, 0, 0, 1 };

  if (!bpw_plot_color_parse (spec, &c))
    g_assert_not_reached ();
  return c;
}

BpwPlotColor
bpw_plot_color_mix (const BpwPlotColor *a,
                    const BpwPlotColor *b,
                    double              t)
{
  return (BpwPlotColor) {
    a->r + (b->r - a->r) * t, a->g + (b->g - a->g) * t,
    a->b + (b->b - a->b) * t, a->a + (b->a - a->a) * t,
  };
}

static double
linear_channel (double c)
{
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

double
bpw_plot_color_luminance (const BpwPlotColor *color)
{
  return 0.2126 * linear_channel (color->r) + 0.7152 * linear_channel (color->g) +
         0.0722 * linear_channel (color->b);
}

static void
init_palettes (BpwPlotStyle *style, double lighten)
{
  BpwPlotColor white = { 1, 1, 1, 1 };

  for (guint i = 0; i < BPW_N_LAYER_TYPES; i++)
    {
      BpwPlotColor c = hex (layer_type_colors[i]);

      style->layer_type[i] = bpw_plot_color_mix (&c, &white, lighten);
    }
  for (guint i = 0; i < BPW_N_BOTTLENECKS; i++)
    {
      BpwPlotColor c = hex (bottleneck_colors[i]);

      style->bottleneck[i] = bpw_plot_color_mix (&c, &white, lighten);
    }
}

void
bpw_plot_style_init_print (BpwPlotStyle *style)
{
  g_return_if_fail (style != NULL);

  memset (style, 0, sizeof *style);
  g_strlcpy (style->family, "DejaVu Sans, sans-serif", sizeof style->family);
  style->font_size[BPW_PLOT_FONT_BODY] = 9;
  style->font_size[BPW_PLOT_FONT_SMALL] = 8;
  style->font_size[BPW_PLOT_FONT_TITLE] = 12;
  style->font_size[BPW_PLOT_FONT_AXIS] = 9;
  style->bold[BPW_PLOT_FONT_TITLE] = TRUE;
  style->background = hex ("#ffffff");
  style->plot_background = hex ("#ffffff");
  style->foreground = hex ("#1e1e1e");
  style->muted = hex ("#5e5e5e");
  style->grid = hex ("#d4d4d4");
  style->grid_minor = hex ("#ededed");
  style->ceiling = hex ("#2b2b2b");
  style->accent = hex ("#1c71d8");
  style->band[0] = hex ("#f6f6f6");
  style->band[1] = hex ("#e8e8e8");
  init_palettes (style, 0);
  style->line_width = 1.3;
  style->grid_width = 0.5;
  style->marker_min = 2.0;
  style->marker_max = 9.0;
  style->padding = 8.0;
  style->text = TRUE;
  style->dark = FALSE;
  style->decimal_bytes = FALSE;
}

void
bpw_plot_style_init_screen (BpwPlotStyle       *style,
                            const BpwPlotColor *foreground,
                            const BpwPlotColor *background,
                            const BpwPlotColor *accent,
                            const char         *font_family,
                            double              font_size)
{
  const BpwPlotColor *fg = foreground, *bg = background;

  g_return_if_fail (style != NULL && foreground != NULL && background != NULL);

  bpw_plot_style_init_print (style);
  if (font_family != NULL && *font_family != '\0')
    g_strlcpy (style->family, font_family, sizeof style->family);
  if (font_size > 0)
    {
      style->font_size[BPW_PLOT_FONT_BODY] = font_size;
      style->font_size[BPW_PLOT_FONT_SMALL] = round (font_size * 0.88 * 4) / 4;
      style->font_size[BPW_PLOT_FONT_TITLE] = round (font_size * 1.2 * 4) / 4;
      style->font_size[BPW_PLOT_FONT_AXIS] = font_size;
      style->marker_max = MAX (8.0, font_size);
    }
  style->dark = bpw_plot_color_luminance (bg) < bpw_plot_color_luminance (fg);
  style->background = *bg;
  style->plot_background = *bg;
  style->foreground = *fg;
  style->muted = bpw_plot_color_mix (fg, bg, 0.35);
  style->grid = bpw_plot_color_mix (fg, bg, 0.82);
  style->grid_minor = bpw_plot_color_mix (fg, bg, 0.92);
  style->ceiling = bpw_plot_color_mix (fg, bg, 0.12);
  style->band[0] = bpw_plot_color_mix (fg, bg, 0.96);
  style->band[1] = bpw_plot_color_mix (fg, bg, 0.90);
  if (accent != NULL)
    style->accent = *accent;
  init_palettes (style, style->dark ? 0.2 : 0);
}

const char *
bpw_plot_style_bytes_unit (const BpwPlotStyle *style)
{
  return style->decimal_bytes ? "B" : BPW_SI_BINARY_BYTES;
}

gsize
bpw_plot_style_format_bytes (const BpwPlotStyle *style,
                             char               *buf,
                             gsize               size,
                             double              bytes)
{
  return bpw_si_format (buf, size, bytes, bpw_plot_style_bytes_unit (style), 3);
}

gboolean
bpw_plot_style_equal (const BpwPlotStyle *a,
                      const BpwPlotStyle *b)
{
  /* The struct has no pointers and is zero-filled by the initialisers, padding included. */
  return memcmp (a, b, sizeof *a) == 0;
}

PangoFontDescription *
bpw_plot_style_get_font (const BpwPlotStyle *style,
                         BpwPlotFont         role)
{
  PangoFontDescription *font = pango_font_description_new ();

  pango_font_description_set_family (font, style->family);
  pango_font_description_set_absolute_size (font, style->font_size[role] * PANGO_SCALE);
  pango_font_description_set_weight (font, style->bold[role] ? PANGO_WEIGHT_BOLD
                                                              : PANGO_WEIGHT_NORMAL);
  return font;
}
