/* bpw-plot-legend.h — a chart legend: headings, swatches with labels, notes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fixed storage, measured at layout, painted at draw. A legend is either a column (beside
 * the plot) or rows that wrap at a width (below the plot).
 */
#pragma once

#include "bpw-plot.h"
#include "bpw-plot-text.h"

G_BEGIN_DECLS

#define BPW_PLOT_LEGEND_MAX_ENTRIES 40

typedef enum
{
  BPW_LEGEND_DOT,      /* filled circle */
  BPW_LEGEND_RING,     /* hollow circle: baseline */
  BPW_LEGEND_BOX,      /* filled square: a class of marks */
  BPW_LEGEND_LINE,     /* solid line: a ceiling */
  BPW_LEGEND_DASH,     /* dashed line: a calibrated ceiling */
  BPW_LEGEND_DOTTED,   /* dotted line: a baseline ceiling */
  BPW_LEGEND_HEADING,  /* bold text, starts a group (a new line in rows) */
  BPW_LEGEND_NOTE,     /* wrapped small text, no swatch (a new line in rows) */
  BPW_LEGEND_DIAMOND,  /* filled diamond: measured */
} BpwLegendSwatch;

typedef struct
{
  BpwLegendSwatch  swatch;
  BpwPlotColor     color;
  /* A note's sentence in its longest translation (German runs about a third longer than
   * English) fits; a longer one is cut at a character with "…". */
  char             label[320];
  BpwPlotRect      bounds;   /* after placement */
  double           text_width, text_height;
} BpwLegendEntry;

typedef struct
{
  guint           n;
  gboolean        rows;        /* flow in rows instead of a column */
  double          width, height;
  BpwLegendEntry  entries[BPW_PLOT_LEGEND_MAX_ENTRIES];
} BpwPlotLegend;

void      bpw_plot_legend_clear   (BpwPlotLegend      *legend);
/* Ignored (FALSE) when the legend is full. */
gboolean  bpw_plot_legend_add     (BpwPlotLegend      *legend,
                                   BpwLegendSwatch     swatch,
                                   const BpwPlotColor *color,
                                   const char         *label);
/* Measures and places the entries with the top-left corner at (@x, @y), in a column at
 * most @max_width wide (notes wrap) or, with @rows, in rows that wrap at @max_width. */
void      bpw_plot_legend_layout  (BpwPlotLegend      *legend,
                                   BpwPlotText        *text,
                                   const BpwPlotStyle *style,
                                   gboolean            rows,
                                   double              x,
                                   double              y,
                                   double              max_width);
void      bpw_plot_legend_move    (BpwPlotLegend      *legend,
                                   double              dx,
                                   double              dy);
void      bpw_plot_legend_draw    (const BpwPlotLegend *legend,
                                   cairo_t             *cr,
                                   BpwPlotText         *text,
                                   const BpwPlotStyle  *style);
/* The path of a diamond (a square on its corner) of half-diagonal @r centred at (@x, @y):
 * the marker of measured points, here so that legends and charts draw the same shape. */
void      bpw_plot_diamond_path   (cairo_t            *cr,
                                   double              x,
                                   double              y,
                                   double              r);
/* Index of the entry at (@x, @y), or -1. */
int       bpw_plot_legend_hit     (const BpwPlotLegend *legend,
                                   double               x,
                                   double               y);

G_END_DECLS
