/* bpw-compare-plot-private.h — the comparison chart's instance, shared by layout and draw
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-axis-layout.h"
#include "bpw-compare-plot.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"

G_BEGIN_DECLS

#define BPW_COMPARE_TABLE_COLUMNS 9

/* A table cell's text and where it goes. */
typedef struct
{
  char          text[64];
  BpwPlotRect   rect;
  double        ax;        /* 0 left-aligned, 1 right-aligned */
  gint          tone;      /* −1 worse, 0 neutral, +1 better than the baseline */
  gboolean      header;
} BpwCompareTableCell;

struct _BpwComparePlot
{
  BpwPlot          parent_instance;
  BpwPlotScene    *scene;  /* the base's: area, axes, legend, title, hit targets */

  BpwCompareData  *data;  /* owned by the base: _bpw_plot_set_data() */
  /* owned */
  GArray          *segments;    /* BpwCompareSegment */
  GArray          *cells;       /* BpwPlotRect per heat-map cell, [candidate][scenario] */
  GArray          *table;       /* BpwCompareTableCell, row by row */
  GArray          *labels;      /* BpwPlotLabel */
  GArray          *row_rects;   /* BpwPlotRect per candidate row (bars and heat map) */

  /* the scene of the last layout */
  BpwPlotRect      heat_area;
  BpwPlotRect      table_area;
  guint            table_columns;
};

void          _bpw_compare_plot_layout (BpwPlot               *plot,
                                        const BpwPlotViewport *viewport,
                                        double                 width,
                                        double                 height);
G_END_DECLS
