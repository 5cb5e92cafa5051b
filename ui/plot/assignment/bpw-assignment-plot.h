/* bpw-assignment-plot.h — engines and links × the operations of one pipeline stage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One lane per engine (matrix, vector) and link tier; each operation a bar in the lane of
 * what runs it, as wide as the time it keeps that engine busy per step, coloured by its
 * bottleneck class. Operations are grouped by phase and layer type (the bands on top),
 * so the chart reads left to right as forward, recompute, backward and optimizer work.
 * Hover (hit-test + describe) gives tiling and fusion group.
 */
#pragma once

#include "bpw-assignment-data.h"
#include "bpw-plot.h"

G_BEGIN_DECLS

/* A bar as laid out. Level of detail: each bar owns whole pixel columns (units of width)
 * of its lane, never shared; an operation narrower than a column that starts in a column
 * the previous bar owns joins that bar, which counts it and shows the colour of its longest
 * operation. So a lane never holds more bars than the plot has columns, and no operation
 * vanishes. */
typedef struct
{
  double  x0, x1;      /* extent of the items it stands for (drawn at least 1 unit wide) */
  gint    col0, col1;  /* the whole columns it owns, [col0, col1): disjoint within a lane */
  guint   lane;
  guint   item;        /* the longest item it stands for */
  guint   count;       /* items it stands for */
} BpwAssignmentMark;

#define BPW_TYPE_ASSIGNMENT_PLOT (bpw_assignment_plot_get_type ())
G_DECLARE_FINAL_TYPE (BpwAssignmentPlot, bpw_assignment_plot, BPW, ASSIGNMENT_PLOT, BpwPlot)

/* Takes ownership of @data (finished). */
BpwAssignmentPlot        *bpw_assignment_plot_new       (BpwAssignmentData *data);
void                      bpw_assignment_plot_set_data  (BpwAssignmentPlot *self,
                                                         BpwAssignmentData *data);
const BpwAssignmentData  *bpw_assignment_plot_get_data  (BpwAssignmentPlot *self);

/* bpw_plot_set_selected_lineage() outlines the bars of that lineage's item in the accent
 * colour. bpw_plot_get_area() is the lanes, bpw_plot_map_x() maps seconds. */

/* The scene of the last layout, for views and tests. */
/* The band of lane @lane (its bars lie inside it). */
gboolean                  bpw_assignment_plot_get_lane_rect (BpwAssignmentPlot *self,
                                                             guint              lane,
                                                             BpwPlotRect       *rect);
/* Bars lane by lane, each lane's in x order. */
const BpwAssignmentMark  *bpw_assignment_plot_get_marks (BpwAssignmentPlot *self,
                                                         guint             *n_marks);

G_END_DECLS
