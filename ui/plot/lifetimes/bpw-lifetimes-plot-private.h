/* bpw-lifetimes-plot-private.h — the lifetimes chart's instance, shared by layout and draw
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-axis-layout.h"
#include "bpw-lifetimes-plot.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"

G_BEGIN_DECLS

struct _BpwLifetimesPlot
{
  BpwPlot            parent_instance;
  BpwPlotScene      *scene;  /* the base's: area, axes, legend, title, hit targets */

  BpwLifetimesData  *data;  /* owned by the base: _bpw_plot_set_data() */
  /* owned */
  double             window[2];    /* default time range; NaN: the step */
  GArray            *marks;        /* BpwLifetimeMark, group by group, row by row */
  GArray            *group_rects;  /* BpwPlotRect per group (height 0: not shown) */
  GArray            *stack;        /* double[BPW_N_MEM_CATEGORIES] per column: stacked tops */
  GArray            *labels;       /* BpwPlotLabel */

  /* the scene of the last layout */
  BpwPlotRect        curve_area;
  BpwPlotLabel       peak_label[2];
  double             t0, t1;
  double             capacity_y;   /* NaN when the capacity is above the curve area */
  gint               col_first, col_end;
  guint32            visible;
};

void                _bpw_lifetimes_plot_layout (BpwPlot               *plot,
                                                const BpwPlotViewport *viewport,
                                                double                 width,
                                                double                 height);
/* Category colours after Tableau 10; @light for buffers not live at the peak. */
BpwPlotColor        _bpw_lifetimes_color       (const BpwPlotStyle    *style,
                                                guint                  category,
                                                gboolean               light);
/* The column of the occupancy curve under @x, or -1. */
gint                _bpw_lifetimes_column      (BpwLifetimesPlot      *self,
                                                double                 x);

G_END_DECLS
