/* bpw-assignment-plot-private.h — the assignment chart's instance, shared by layout and draw
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-assignment-plot.h"
#include "bpw-axis-layout.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"

G_BEGIN_DECLS

/* A header band: a phase (row 0) or a layer-type group (row 1). */
typedef struct
{
  BpwPlotRect  rect;
  guint        row;
  guint        index;   /* phase, or group index */
} BpwAssignmentBand;

struct _BpwAssignmentPlot
{
  BpwPlot             parent_instance;
  BpwPlotScene       *scene;  /* the base's: area, axes, legend, title, hit targets */

  BpwAssignmentData  *data;  /* owned by the base: _bpw_plot_set_data() */
  /* owned */
  GArray             *marks;        /* BpwAssignmentMark, lane by lane */
  GArray             *lane_first;   /* guint: first mark of each lane, plus the end */
  GArray             *lane_rects;   /* BpwPlotRect per lane */
  GArray             *bands;        /* BpwAssignmentBand */
  GArray             *labels;       /* BpwPlotLabel: lane names, band and bar labels */
  GArray             *separators;   /* double: x of phase boundaries */
};

void  _bpw_assignment_plot_layout (BpwPlot               *plot,
                                   const BpwPlotViewport *viewport,
                                   double                 width,
                                   double                 height);

G_END_DECLS
