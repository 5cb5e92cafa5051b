/* bpw-trade-plot.h — throughput against latency from serving sweeps, one curve per candidate
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * x: latency (the scenario's SLA metric by default; log scale); each candidate's sweep as
 * two curves: p50 (solid, filled dots) and p99 (dashed, rings), at the same y. y:
 * throughput in output tokens/s, or per watt of modelled power, or per dollar of devices. The Pareto
 * front over all points (lower p99 latency, higher y) is highlighted, and the latencies
 * meeting the SLA are shaded. The viewport is in data units (latency s × y).
 */
#pragma once

#include "bpw-plot.h"
#include "bpw-trade-data.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_TRADE_Y_THROUGHPUT,   /* output tokens/s */
  BPW_TRADE_Y_PER_WATT,     /* tokens/s per W of modelled power = tokens/J */
  BPW_TRADE_Y_PER_DOLLAR,   /* tokens/s per $ of devices */
  BPW_TRADE_N_YS
} BpwTradeY;

/* A dot as laid out: p50 and p99 of each point. Hit-tests of dots give BPW_PLOT_HIT_ITEM
 * with index 2 × point + (0 for p50, 1 for p99). */
typedef struct
{
  double    x, y;
  guint     point;
  gboolean  p99;
  gboolean  pareto;    /* the point is on the front */
} BpwTradeMark;

#define BPW_TYPE_TRADE_PLOT (bpw_trade_plot_get_type ())
G_DECLARE_FINAL_TYPE (BpwTradePlot, bpw_trade_plot, BPW, TRADE_PLOT, BpwPlot)

/* Takes ownership of @data. */
BpwTradePlot       *bpw_trade_plot_new          (BpwTradeData    *data);
void                bpw_trade_plot_set_data     (BpwTradePlot    *self,
                                                 BpwTradeData    *data);
const BpwTradeData *bpw_trade_plot_get_data     (BpwTradePlot    *self);
/* Each emits "changed" when it changes something. */
void                bpw_trade_plot_set_latency  (BpwTradePlot    *self,
                                                 BpwTradeLatency  metric);
void                bpw_trade_plot_set_y        (BpwTradePlot    *self,
                                                 BpwTradeY        y);
BpwTradeY           bpw_trade_plot_get_y        (BpwTradePlot    *self);
/* The y value of @point under @y; NaN when the candidate's power or cost is unknown. */
double              bpw_trade_point_y           (const BpwTradeData  *data,
                                                 const BpwTradePoint *point,
                                                 BpwTradeY            y);
/* Whether point @i is on the Pareto front of (p99 latency ↓, y ↑) among all points with
 * a finite y and no rejected request, under the plot's latency and y (pure: computed
 * from the data, laid out or not). */
gboolean            bpw_trade_plot_is_pareto    (BpwTradePlot    *self,
                                                 guint            point);

/* bpw_plot_get_area() is the axes' box; bpw_plot_map_y() maps the y metric. */
const BpwTradeMark *bpw_trade_plot_get_marks    (BpwTradePlot    *self,
                                                 guint           *n_marks);
/* x of @latency_s, or NaN outside the axis' domain; the SLA boundary when shaded. */
double              bpw_trade_plot_map_latency  (BpwTradePlot    *self,
                                                 double           latency_s);

G_END_DECLS
