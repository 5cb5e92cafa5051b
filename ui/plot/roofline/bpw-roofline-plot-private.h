/* bpw-roofline-plot-private.h — the roofline's instance, shared by its layout and draw code
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-axis-layout.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"
#include "bpw-roofline-plot.h"

G_BEGIN_DECLS

/* How near the pointer must come to a dot or a ceiling to hit it. */
#define HIT_SLOP 3.0

/* A ceiling's visible piece, in user units. */
typedef struct
{
  double  x0, y0, x1, y1;
  guint   ceiling;
} BpwRooflineSegment;

#define RIDGE_RADIUS 3.0
/* Gap between a line and the label that names it. */
#define LABEL_OFFSET 3.0

/* A labelled ridge: the knee's marker and the dotted drop line to the x axis. */
typedef struct
{
  double  x, y;
  double  bottom;
} BpwRooflineRidgeMark;

struct _BpwRooflinePlot
{
  BpwPlot           parent_instance;
  BpwPlotScene     *scene;  /* the base's: area, axes, legend, title, hit targets */

  BpwRooflineData  *data;  /* owned by the base: _bpw_plot_set_data() */
  /* owned */
  GArray           *marks;      /* BpwRooflineMark, in draw order */
  GArray           *segments;   /* BpwRooflineSegment */
  GArray           *ridges;     /* BpwRooflineRidgeMark */
  GArray           *leaders;    /* BpwPlotQuad segments from dots to their labels */
  GArray           *labels;     /* BpwPlotLabel */
};

static inline const BpwRooflineCeiling *
ceiling (const BpwRooflineData *data,
         guint                  i)
{
  return &g_array_index (data->ceilings, BpwRooflineCeiling, i);
}

/* bpw-roofline-plot-labels.c: ridge markers, then every label, after the lines and dots. */
void  _bpw_roofline_plot_place_labels (BpwRooflinePlot    *self,
                                       BpwPlotText        *text,
                                       const BpwPlotStyle *style);
void  _bpw_roofline_plot_layout (BpwPlot               *plot,
                                 const BpwPlotViewport *viewport,
                                 double                 width,
                                 double                 height);
gboolean _bpw_roofline_plot_bounds (BpwPlot         *plot,
                                    BpwPlotViewport *bounds);

G_END_DECLS
