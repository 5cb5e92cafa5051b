/* bpw-plot-legend.c — a chart legend: headings, swatches with labels, notes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot-legend"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"

#define SWATCH_GAP 4.0
#define ITEM_GAP 12.0
#define ROW_GAP 3.0
#define GROUP_GAP 7.0

void
bpw_plot_legend_clear (BpwPlotLegend *legend)
{
  g_return_if_fail (legend != NULL);

  legend->n = 0;
  legend->width = legend->height = 0;
}

gboolean
bpw_plot_legend_add (BpwPlotLegend      *legend,
                     BpwLegendSwatch     swatch,
                     const BpwPlotColor *color,
                     const char         *label)
{
  BpwLegendEntry *e;

  g_return_val_if_fail (legend != NULL && label != NULL, FALSE);

  if (legend->n >= BPW_PLOT_LEGEND_MAX_ENTRIES)
    return FALSE;
  e = &legend->entries[legend->n++];
  memset (e, 0, sizeof *e);
  e->swatch = swatch;
  if (color != NULL)
    e->color = *color;
  if (g_strlcpy (e->label, label, sizeof e->label) >= sizeof e->label)
    {
      /* Cut at a character boundary, leaving room for the ellipsis (3 bytes). */
      char *end = e->label + sizeof e->label - 4;

      while (end > e->label && (*end & 0xC0) == 0x80)
        end--;
      memcpy (end, "…", sizeof "…");
    }
  return TRUE;
}

static double
swatch_size (const BpwPlotStyle *style)
{
  return style->font_size[BPW_PLOT_FONT_BODY];
}

static BpwPlotFont
entry_font (const BpwLegendEntry *e)
{
  return e->swatch == BPW_LEGEND_HEADING ? BPW_PLOT_FONT_AXIS
         : e->swatch == BPW_LEGEND_NOTE  ? BPW_PLOT_FONT_SMALL
                                         : BPW_PLOT_FONT_BODY;
}

static gboolean
has_swatch (const BpwLegendEntry *e)
{
  return e->swatch != BPW_LEGEND_HEADING && e->swatch != BPW_LEGEND_NOTE;
}

void
bpw_plot_legend_layout (BpwPlotLegend      *legend,
                        BpwPlotText        *text,
                        const BpwPlotStyle *style,
                        gboolean            rows,
                        double              x,
                        double              y,
                        double              max_width)
{
  double s = swatch_size (style), cx = 0, cy = 0, line_h = 0, width = 0;

  g_return_if_fail (legend != NULL && text != NULL && style != NULL);

  legend->rows = rows;
  for (guint i = 0; i < legend->n; i++)
    {
      BpwLegendEntry *e = &legend->entries[i];
      double wrap = e->swatch == BPW_LEGEND_NOTE ? max_width : 0;
      double w, h;
      gboolean line_start;

      bpw_plot_text_measure (text, entry_font (e), e->label, wrap, &e->text_width,
                             &e->text_height);
      w = e->text_width + (has_swatch (e) ? s + SWATCH_GAP : 0);
      h = MAX (e->text_height, has_swatch (e) ? s : 0);
      if (!rows)
        {
          if (i > 0)
            cy += line_h + (e->swatch == BPW_LEGEND_HEADING ? GROUP_GAP : ROW_GAP);
          line_h = h;
        }
      else
        {
          line_start = i == 0 || e->swatch == BPW_LEGEND_NOTE ||
                       (e->swatch == BPW_LEGEND_HEADING) ||
                       legend->entries[i - 1].swatch == BPW_LEGEND_NOTE ||
                       cx + ITEM_GAP + w > max_width;
          if (i > 0 && line_start)
            {
              cy += line_h + ROW_GAP;
              cx = 0;
              line_h = 0;
            }
          else if (i > 0)
            cx += ITEM_GAP;
          line_h = MAX (line_h, h);
        }
      e->bounds = (BpwPlotRect) { x + cx, y + cy, w, h };
      width = MAX (width, cx + w);
      if (rows)
        cx += w;
    }
  legend->width = width;
  legend->height = legend->n > 0 ? cy + line_h : 0;
}

void
bpw_plot_legend_move (BpwPlotLegend *legend,
                      double         dx,
                      double         dy)
{
  for (guint i = 0; i < legend->n; i++)
    {
      legend->entries[i].bounds.x += dx;
      legend->entries[i].bounds.y += dy;
    }
}

void
bpw_plot_diamond_path (cairo_t *cr,
                       double   x,
                       double   y,
                       double   r)
{
  cairo_move_to (cr, x, y - r);
  cairo_line_to (cr, x + r, y);
  cairo_line_to (cr, x, y + r);
  cairo_line_to (cr, x - r, y);
  cairo_close_path (cr);
}

static void
draw_swatch (cairo_t *cr, const BpwLegendEntry *e, const BpwPlotStyle *style, double x, double cy,
             double s)
{
  BpwPlotColor black = { 0, 0, 0, 1 };
  BpwPlotColor edge = bpw_plot_color_mix (&e->color, &black, 0.35);
  double dash[] = { 4.0, 2.5 }, dots[] = { 1.5, 2.5 };

  cairo_new_path (cr);
  switch (e->swatch)
    {
    case BPW_LEGEND_DOT:
      cairo_arc (cr, x + s / 2, cy, s * 0.38, 0, 2 * G_PI);
      bpw_plot_set_source (cr, &e->color);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, 0.6);
      bpw_plot_set_source (cr, &edge);
      cairo_stroke (cr);
      break;
    case BPW_LEGEND_DIAMOND:
      bpw_plot_diamond_path (cr, x + s / 2, cy, s * 0.48);
      bpw_plot_set_source (cr, &e->color);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, 0.6);
      bpw_plot_set_source (cr, &edge);
      cairo_stroke (cr);
      break;
    case BPW_LEGEND_RING:
      cairo_arc (cr, x + s / 2, cy, s * 0.34, 0, 2 * G_PI);
      cairo_set_line_width (cr, 1.4);
      bpw_plot_set_source (cr, &e->color);
      cairo_stroke (cr);
      break;
    case BPW_LEGEND_BOX:
      cairo_rectangle (cr, x + 0.5, cy - s / 2 + 0.5, s - 1, s - 1);
      bpw_plot_set_source (cr, &e->color);
      cairo_fill (cr);
      break;
    case BPW_LEGEND_LINE:
    case BPW_LEGEND_DASH:
    case BPW_LEGEND_DOTTED:
      cairo_move_to (cr, x, cy);
      cairo_line_to (cr, x + s, cy);
      cairo_set_line_width (cr, style->line_width);
      if (e->swatch == BPW_LEGEND_DASH)
        cairo_set_dash (cr, dash, 2, 0);
      else if (e->swatch == BPW_LEGEND_DOTTED)
        cairo_set_dash (cr, dots, 2, 0);
      bpw_plot_set_source (cr, &e->color);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      break;
    case BPW_LEGEND_HEADING:
    case BPW_LEGEND_NOTE:
    default:
      break;
    }
}

void
bpw_plot_legend_draw (const BpwPlotLegend *legend,
                      cairo_t             *cr,
                      BpwPlotText         *text,
                      const BpwPlotStyle  *style)
{
  double s = swatch_size (style);

  cairo_save (cr);
  for (guint i = 0; i < legend->n; i++)
    {
      const BpwLegendEntry *e = &legend->entries[i];
      double cy = e->bounds.y + e->bounds.height / 2;
      double tx = e->bounds.x;

      if (has_swatch (e))
        {
          draw_swatch (cr, e, style, e->bounds.x, cy, s);
          tx += s + SWATCH_GAP;
        }
      bpw_plot_text_draw (text, cr, entry_font (e), e->label,
                          e->swatch == BPW_LEGEND_NOTE ? e->bounds.width + 0.5 : 0,
                          tx, cy, 0, 0.5, 0,
                          e->swatch == BPW_LEGEND_NOTE ? &style->muted : &style->foreground);
    }
  cairo_restore (cr);
}

int
bpw_plot_legend_hit (const BpwPlotLegend *legend,
                     double               x,
                     double               y)
{
  for (guint i = 0; i < legend->n; i++)
    if (_bpw_plot_rect_contains (&legend->entries[i].bounds, x, y))
      return (int) i;
  return -1;
}
