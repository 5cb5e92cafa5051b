/* bpw-trade-plot-private.h — the trade chart's instance, shared by layout and draw
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-axis-layout.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"
#include "bpw-trade-plot.h"

G_BEGIN_DECLS

#define DOT_RADIUS 3.2

struct _BpwTradePlot
{
  BpwPlot          parent_instance;
  BpwPlotScene    *scene;  /* the base's: area, axes, legend, title, hit targets */

  BpwTradeData    *data;  /* owned by the base: _bpw_plot_set_data() */
  /* owned */
  GArray          *marks;       /* BpwTradeMark: p50 and p99 of each point, point order */
  GArray          *front;       /* double x, y: the front's staircase in user units */
  GArray          *labels;      /* BpwPlotLabel */
  gboolean        *pareto;      /* per point */

  /* options */
  BpwTradeLatency  metric;
  BpwTradeY        y;

  /* the scene of the last layout */
  double           sla_x;       /* NaN: no SLA shading */
};

void  _bpw_trade_plot_layout         (BpwPlot               *plot,
                                      const BpwPlotViewport *viewport,
                                      double                 width,
                                      double                 height);
/* Recomputes the per-point Pareto flags for the current latency and y. */
void  _bpw_trade_plot_update_pareto  (BpwTradePlot          *self);

G_END_DECLS
