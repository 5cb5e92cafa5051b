/* bpw-lifetimes-plot.h — buffer lifetimes under the occupancy curve of one rank
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Top: device memory over the step, stacked by category, with the capacity and the peak
 * marked and annotated with what is live there. Below, on the same time axis: one bar
 * per buffer, from allocation to free, on the tracks of its category (persistent state as
 * one bar over the whole step; host memory in its own group); buffers live at the peak
 * drawn in full colour, the others lighter. The viewport's x is time in seconds (y is
 * ignored).
 *
 * Level of detail: when a group has more tracks than its height has rows of one unit,
 * tracks share rows; within a row, bars closer than one unit merge into one mark that
 * counts them. So marks per row never outnumber the columns, and every buffer in view is
 * counted by exactly one mark.
 */
#pragma once

#include "bpw-lifetimes-data.h"
#include "bpw-plot.h"

G_BEGIN_DECLS

typedef struct
{
  double    x0, x1;      /* drawn extent */
  double    y, height;
  guint     group;
  guint32   buffer;      /* the largest buffer it stands for (index into data buffers) */
  guint32   count;       /* buffers it stands for */
  gboolean  at_peak;
} BpwLifetimeMark;

#define BPW_TYPE_LIFETIMES_PLOT (bpw_lifetimes_plot_get_type ())
G_DECLARE_FINAL_TYPE (BpwLifetimesPlot, bpw_lifetimes_plot, BPW, LIFETIMES_PLOT, BpwPlot)

/* Takes ownership of @data (finished). */
BpwLifetimesPlot       *bpw_lifetimes_plot_new        (BpwLifetimesData *data);
void                    bpw_lifetimes_plot_set_data   (BpwLifetimesPlot *self,
                                                       BpwLifetimesData *data);
const BpwLifetimesData *bpw_lifetimes_plot_get_data   (BpwLifetimesPlot *self);

/* The time range a layout without a viewport shows (exports); NaN or an empty range: the
 * whole step. */
void                    bpw_lifetimes_plot_set_time_window (BpwLifetimesPlot *self,
                                                            double            t0,
                                                            double            t1);

/* bpw_plot_set_selected_lineage() outlines the buffers allocated by the operation of that
 * lineage in the accent colour. */

/* The scene of the last layout; bpw_plot_get_area() is the bars' area, bpw_plot_map_x()
 * maps seconds and bpw_plot_map_y() bytes of the curve. */
const BpwPlotRect      *bpw_lifetimes_plot_get_curve_area (BpwLifetimesPlot *self);
/* The band of group @group (its marks lie inside it); FALSE when not shown. */
gboolean                bpw_lifetimes_plot_get_group_rect (BpwLifetimesPlot *self,
                                                           guint             group,
                                                           BpwPlotRect      *rect);
const BpwLifetimeMark  *bpw_lifetimes_plot_get_marks  (BpwLifetimesPlot *self,
                                                       guint            *n_marks);
/* Buffers inside the viewport's time range in the last layout. */
guint32                 bpw_lifetimes_plot_get_visible_buffers (BpwLifetimesPlot *self);

G_END_DECLS
