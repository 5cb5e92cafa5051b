/* bpw-roofline-plot.h — operations on the roofline of their blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Log–log: arithmetic intensity (FLOP/B) against attained FLOP/s. Ceilings: horizontal
 * compute peaks, slanted memory bandwidths, dashed where a calibrated efficiency lowers
 * them; ridge points labelled. One dot per distinct operation, its area proportional to
 * its share of task time, coloured by layer type; a baseline plan's operations as rings,
 * measured operations (bpw_roofline_data_add_measured()) as diamonds.
 */
#pragma once

#include "bpw-plot.h"
#include "bpw-roofline-data.h"

G_BEGIN_DECLS

/* A dot as laid out: in draw order (largest first, baseline below), so the last mark
 * containing a point is the one on top. */
typedef struct
{
  double    x, y, radius;
  guint     point;      /* index into the data's points */
  guint     count;      /* points drawn as this one dot (level of detail) */
  gboolean  baseline;
  gboolean  measured;   /* a measured point: a diamond */
} BpwRooflineMark;

/* Dots labelled with their operation name: the largest shares first, at most this many. */
#define BPW_ROOFLINE_MAX_POINT_LABELS 8

#define BPW_TYPE_ROOFLINE_PLOT (bpw_roofline_plot_get_type ())
G_DECLARE_FINAL_TYPE (BpwRooflinePlot, bpw_roofline_plot, BPW, ROOFLINE_PLOT, BpwPlot)

/* Takes ownership of @data. */
BpwRooflinePlot        *bpw_roofline_plot_new        (BpwRooflineData *data);
void                    bpw_roofline_plot_set_data   (BpwRooflinePlot *self,
                                                      BpwRooflineData *data);
const BpwRooflineData  *bpw_roofline_plot_get_data   (BpwRooflinePlot *self);

/* bpw_plot_set_selected_lineage() rings the operation of that lineage (a point's lineage)
 * in the accent colour; lineage ids are stable across data. bpw_plot_get_area() is the
 * axes' box. */

/* The scene of the last layout, for views and tests. */
/* Data → user units under the last layout. */
void                    bpw_roofline_plot_map        (BpwRooflinePlot *self,
                                                      double           intensity,
                                                      double           flops,
                                                      double          *x,
                                                      double          *y);
const BpwRooflineMark  *bpw_roofline_plot_get_marks  (BpwRooflinePlot *self,
                                                      guint           *n_marks);
/* Text placed by the last layout (ceiling, ridge and operation labels), for tests that
 * check that nothing overlaps. */
guint                   bpw_roofline_plot_get_n_labels (BpwRooflinePlot *self);
const BpwPlotRect      *bpw_roofline_plot_get_label_bounds (BpwRooflinePlot *self,
                                                            guint            i,
                                                            const char     **text);

G_END_DECLS
