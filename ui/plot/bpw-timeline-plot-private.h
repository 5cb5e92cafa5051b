/* bpw-timeline-plot-private.h — the timeline's instance, shared by layout and draw
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-axis-layout.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"
#include "bpw-timeline-plot.h"

G_BEGIN_DECLS

/* Colour keys run below this under every colouring (phases, bottlenecks, layer types). */
#define BPW_TIMELINE_MAX_KEYS 16

struct _BpwTimelinePlot
{
  BpwPlot              parent_instance;

  /* owned */
  BpwTimelineData     *data;
  GArray              *tracks;       /* BpwTimelineTrack, all of them (visible or not) */
  GArray              *marks;        /* BpwTimelineMark, track by track, by column */
  GArray              *values;       /* double per column of each visible counter track */
  GArray              *flows;        /* double[4] per flow */
  GArray              *labels;       /* BpwPlotLabel: track and group names, event names */
  GArray              *group_rects;  /* BpwPlotRect: the band behind each rank's tracks */
  GArray              *successors;   /* guint32: events the selected one starts */
  GArray              *col_time;     /* double: time at each column boundary of the area */

  /* options */
  BpwTimelineColorBy   color_by;
  gboolean             show_memory, show_links;
  guint32              rank_first, rank_count;
  double               window[2];    /* default time range; NaN: the step */
  guint32              selected;
  guint32              present[BPW_TIMELINE_N_COLORINGS];  /* bit per key in the data */
  double               memory_scale;  /* bytes a memory track's height stands for */

  /* the scene of the last layout */
  BpwPlotRect          area;
  BpwScale             xscale;
  BpwAxisLayout        xaxis;
  BpwPlotLegend        legend;
  BpwPlotLabel         title;
  double               t0, t1;       /* visible time */
  double               rows;         /* rows of all tracks, gaps included */
  gint                 col_first, col_end;  /* columns of the area */
  guint32              visible_events;
};

void                _bpw_timeline_plot_layout      (BpwPlot               *plot,
                                                    const BpwPlotViewport *viewport,
                                                    double                 width,
                                                    double                 height);
/* Tracks from the data and the options into @tracks (rows set, nothing laid out);
 * returns the rows they take, gaps included. */
double              _bpw_timeline_plot_build_tracks (BpwTimelinePlot      *self,
                                                     GArray               *tracks);
/* Counter tracks: one value per column of the area into values; flows into flows. */
void                _bpw_timeline_plot_layout_memory (BpwTimelinePlot     *self,
                                                      BpwTimelineTrack    *track);
void                _bpw_timeline_plot_layout_link (BpwTimelinePlot       *self,
                                                    BpwTimelineTrack      *track);
void                _bpw_timeline_plot_layout_flows (BpwTimelinePlot      *self);
/* The colour of key @key under the plot's colouring. */
const BpwPlotColor *_bpw_timeline_key_color        (BpwTimelinePlot       *self,
                                                    const BpwPlotStyle    *style,
                                                    guint                  key,
                                                    BpwPlotColor          *scratch);
const char         *_bpw_timeline_key_name         (BpwTimelineColorBy     color_by,
                                                    guint                  key);
void                _bpw_timeline_plot_draw        (BpwPlot               *plot,
                                                    cairo_t               *cr);
char               *_bpw_timeline_plot_describe    (BpwPlot               *plot,
                                                    const BpwPlotHit      *hit);
char               *_bpw_timeline_plot_to_csv      (BpwPlot               *plot);
/* Counter colours: memory fill, link utilisation fill. */
BpwPlotColor        _bpw_timeline_counter_color    (const BpwPlotStyle    *style,
                                                    BpwTimelineTrackKind   kind);

G_END_DECLS
