/* bpw-timeline-plot.h — the simulated step: lanes per rank × engine and link over time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One track per lane (a rank's matrix or vector engine, or one of its link queues), the
 * ranks one under the other, and per rank optional counter tracks: device memory
 * occupancy (0 to the capacity) and the utilisation of each link tier (0 to 1). The
 * viewport's x is time in seconds; its y is rows: each lane and link counter is one row,
 * the memory counter two, and a gap of BPW_TIMELINE_GROUP_GAP rows separates ranks
 * (bpw_plot_get_bounds() gives the whole).
 *
 * Level of detail (in layout, so screen and export agree): per lane, events wider than a
 * column (one user unit) are marks of their own; narrower ones merge into a mark per run
 * of columns, which counts them and takes the colour of the key holding most of their
 * time (summed in exact ticks, bpw_timeline_data_ticks (); on a tie, the first event's
 * key). Every mark owns whole columns, disjoint within its lane, so a lane holds at most
 * as many marks as the plot has columns; and every visible event (one that starts by the
 * view's end and ends at or after its start) is counted by exactly one mark, so no short
 * event disappears: a column with any event shows a mark. The layout reads the data's
 * block summaries where it can, so its cost follows the marks and columns rather than
 * the events (tests/plot/test-timeline-lod.c holds it to the event-by-event definition).
 */
#pragma once

#include "bpw-plot.h"
#include "bpw-timeline-data.h"

G_BEGIN_DECLS

#define BPW_TIMELINE_GROUP_GAP 0.5

typedef enum
{
  BPW_TIMELINE_TRACK_LANE,
  BPW_TIMELINE_TRACK_MEMORY,
  BPW_TIMELINE_TRACK_LINK,    /* utilisation of one tier's link queues of a rank */
} BpwTimelineTrackKind;

typedef struct
{
  BpwTimelineTrackKind  kind;
  guint32               rank;
  guint                 lane;        /* LANE: index into the data's lanes */
  gint                  tier;        /* LINK: the tier */
  double                row;         /* position in viewport rows */
  double                rows;        /* its height in rows */
  gboolean              visible;     /* laid out in the last layout */
  BpwPlotRect           rect;        /* after layout */
  guint                 first_mark;  /* LANE: its marks; counters: its first column value */
  guint                 n_marks;
} BpwTimelineTrack;

typedef struct
{
  double   t0, t1;       /* time span of the events it stands for */
  double   x0, x1;       /* drawn extent (at least one unit wide when drawn) */
  gint     col0, col1;   /* the whole columns it owns, [col0, col1) */
  guint    track;
  guint32  event;        /* the longest event it stands for (data index) */
  guint32  count;        /* events it stands for, ≥ 1 */
  guint8   key;          /* colour key under the plot's colouring */
  gboolean dense;        /* merged events narrower than a column */
} BpwTimelineMark;

#define BPW_TYPE_TIMELINE_PLOT (bpw_timeline_plot_get_type ())
G_DECLARE_FINAL_TYPE (BpwTimelinePlot, bpw_timeline_plot, BPW, TIMELINE_PLOT, BpwPlot)

/* Takes ownership of @data (finished). */
BpwTimelinePlot       *bpw_timeline_plot_new            (BpwTimelineData    *data);
void                   bpw_timeline_plot_set_data       (BpwTimelinePlot    *self,
                                                         BpwTimelineData    *data);
const BpwTimelineData *bpw_timeline_plot_get_data       (BpwTimelinePlot    *self);

/* Options; each emits "changed" when it changes something. */
void                   bpw_timeline_plot_set_color_by   (BpwTimelinePlot    *self,
                                                         BpwTimelineColorBy  color_by);
BpwTimelineColorBy     bpw_timeline_plot_get_color_by   (BpwTimelinePlot    *self);
/* Counter tracks: memory occupancy and link utilisation per rank (default both). */
void                   bpw_timeline_plot_set_counters   (BpwTimelinePlot    *self,
                                                         gboolean            memory,
                                                         gboolean            links);
/* Ranks @first … @first + @n − 1 only; @n 0: every rank (the default). */
void                   bpw_timeline_plot_set_ranks      (BpwTimelinePlot    *self,
                                                         guint32             first,
                                                         guint32             n);
/* Rows at least @px tall (0, the default: every row fits the area, as exports want). When
 * the tracks do not fit at that height, the area shows a window of whole rows starting at
 * the row offset, as a scrolled view does; bpw_timeline_plot_get_row_window() says which. */
void                   bpw_timeline_plot_set_min_row_height (BpwTimelinePlot *self,
                                                             double           px);
void                   bpw_timeline_plot_set_row_offset (BpwTimelinePlot    *self,
                                                         double              row);
/* The rows of the last layout: the first shown, how many, and all of them. */
void                   bpw_timeline_plot_get_row_window (BpwTimelinePlot    *self,
                                                         double             *first,
                                                         double             *shown,
                                                         double             *total);
/* The time range a layout without a viewport shows (exports); NaN or an empty range: the
 * whole step. A viewport given to bpw_plot_layout() takes precedence. */
void                   bpw_timeline_plot_set_time_window (BpwTimelinePlot   *self,
                                                          double             t0,
                                                          double             t1);
/* The selected event (data index; BPW_TIMELINE_NONE clears): outlined, with flows from
 * the chain of events that set its start (pred, pred of pred, …) and to the events it
 * starts. */
void                   bpw_timeline_plot_set_selected   (BpwTimelinePlot    *self,
                                                         guint32             event);
guint32                bpw_timeline_plot_get_selected   (BpwTimelinePlot    *self);
/* Selects the first event of @lineage (in lane order); FALSE when none has it. */
gboolean               bpw_timeline_plot_select_lineage (BpwTimelinePlot    *self,
                                                         guint32             lineage);

/* The scene of the last layout; bpw_plot_get_area() is the tracks', bpw_plot_map_x() and
 * bpw_plot_unmap_x() map seconds. */
const BpwTimelineTrack *bpw_timeline_plot_get_tracks    (BpwTimelinePlot    *self,
                                                         guint              *n_tracks);
const BpwTimelineMark *bpw_timeline_plot_get_marks      (BpwTimelinePlot    *self,
                                                         guint              *n_marks);
/* Flows of the last layout as segments x0, y0, x1, y1 (the arrow points at x1, y1). */
const double          *bpw_timeline_plot_get_flows      (BpwTimelinePlot    *self,
                                                         guint              *n_flows);
/* The visible time range of the last layout. */
void                   bpw_timeline_plot_get_time_range (BpwTimelinePlot    *self,
                                                         double             *t0,
                                                         double             *t1);

/* (transfer full): what the lanes under @rect (user units, as a rubber band is drawn)
 * spend inside its time range — the area selection's table. NULL when no lane is
 * inside. */
BpwTimelineAggregate  *bpw_timeline_plot_aggregate_area (BpwTimelinePlot    *self,
                                                         const BpwPlotRect  *rect);

G_END_DECLS
