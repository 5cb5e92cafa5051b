/* bpw-timeline-plot-private.h — the timeline's instance, shared by layout and draw
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <math.h>

#include "bpw-axis-layout.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-private.h"
#include "bpw-timeline-plot.h"

G_BEGIN_DECLS

/* Colour keys run below this under every colouring (phases, bottlenecks, layer types). */
#define BPW_TIMELINE_MAX_KEYS BPW_TIMELINE_KEYS

/* Marks narrower than this (in the area) carry no label. */
#define BPW_TIMELINE_LABEL_MIN_WIDTH 24.0

/* A string laid out once in one of the plot's fonts: layout measures it, draw shows it. */
typedef struct
{
  PangoLayout  *layout;
  double        x, y, width, height;  /* its logical box */
} BpwTimelineText;

/* A label of the scene: its text's logical box has its top left at x, y. */
typedef struct
{
  const BpwTimelineText *text;        /* in the text cache, which layout alone changes */
  double                 x, y;
  BpwPlotColor           color;
} BpwTimelineLabel;

struct _BpwTimelinePlot
{
  BpwPlot              parent_instance;
  BpwPlotScene        *scene;  /* the base's: area, axes, legend, title, hit targets */

  BpwTimelineData     *data;  /* owned by the base: _bpw_plot_set_data() */
  /* owned */
  GArray              *tracks;       /* BpwTimelineTrack, all of them (visible or not) */
  GArray              *marks;        /* BpwTimelineMark, track by track, by column */
  GArray              *values;       /* double per column of each visible counter track */
  GArray              *flows;        /* double[4] per flow */
  GArray              *labels;       /* BpwTimelineLabel: track and group names, events */
  GArray              *group_rects;  /* BpwPlotRect: the band behind each rank's tracks */
  GArray              *successors;   /* guint32: events the selected one starts */
  GArray              *col_time;     /* double: the first time of each column of the area */

  /* caches, created when first needed */
  GHashTable          *text_cache;   /* font and string → BpwTimelineText */
  PangoContext        *text_context; /* the one the cached layouts belong to */
  cairo_surface_t     *raster;       /* draw: a row of pixels per lane track */
  cairo_pattern_t     *raster_pattern;
  GArray              *raster_line;  /* guint32: a track's row of pixels */
  GArray              *labelled;     /* guint: marks wide enough for a label, in order */
  double               x_extent;     /* the time axis' height; NaN: not measured */
  double               legend_height;  /* the reserved legend's, for legend_sig */
  GString             *legend_sig;   /* its entries and width */

  /* options */
  BpwTimelineColorBy   color_by;
  gboolean             show_memory, show_links;
  guint32              rank_first, rank_count;
  double               window[2];    /* default time range; NaN: the step */
  guint32              selected;
  guint32              present[BPW_TIMELINE_N_COLORINGS];  /* bit per key in the data */
  double               memory_peak;   /* the largest rank's peak, bytes */
  double               memory_scale;  /* bytes a memory track's height stands for */
  double               min_row_h;     /* px; 0: every row fits the area */
  double               row_offset;    /* the first row shown when they do not */

  /* the scene of the last layout */
  double               t0, t1;       /* visible time */
  double               rows;         /* rows of all tracks, gaps included */
  double               row_first, row_shown;  /* the rows in the area */
  gint                 col_first, col_end;  /* columns of the area */
  guint32              visible_events;
};

void                _bpw_timeline_plot_layout      (BpwPlot               *plot,
                                                    const BpwPlotViewport *viewport,
                                                    double                 width,
                                                    double                 height);
/* The marks of lane track @track into marks (see BpwTimelineMark). */
void                _bpw_timeline_plot_layout_lane (BpwTimelinePlot      *self,
                                                    guint                 track);
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
void                _bpw_timeline_plot_clear_caches (BpwTimelinePlot     *self);
void                _bpw_timeline_plot_clear_raster (BpwTimelinePlot     *self);
/* Marks through cairo: an image stretched per track on raster surfaces, else
 * rectangles. */
void                _bpw_timeline_plot_draw_marks  (BpwTimelinePlot       *self,
                                                    cairo_t               *cr,
                                                    const BpwPlotStyle    *style);
/* The bands behind each rank's tracks; with @hole_margin ≥ 0, not behind the lane tracks
 * in the area, but for that margin at their tops and bottoms. */
void                _bpw_timeline_plot_draw_bands  (BpwTimelinePlot       *self,
                                                    cairo_t               *cr,
                                                    const BpwPlotStyle    *style,
                                                    double                 hole_margin);
/* Bands, grid lines, marks and counter bars, the last two straight into the pixels of an
 * image surface, clipped to the area; FALSE (nothing drawn) where cairo must do it. */
gboolean            _bpw_timeline_plot_draw_pixels (BpwTimelinePlot       *self,
                                                    cairo_t               *cr,
                                                    const BpwPlotStyle    *style);
void                _bpw_timeline_plot_draw        (BpwPlot               *plot,
                                                    cairo_t               *cr);
char               *_bpw_timeline_plot_describe    (BpwPlot               *plot,
                                                    const BpwPlotHit      *hit);
char               *_bpw_timeline_plot_to_csv      (BpwPlot               *plot);
/* Where a counter track draws value @v (of @scale, its full height), to a quarter unit;
 * NaN for an unknown value. */
static inline double
_bpw_timeline_counter_y (const BpwTimelineTrack *t, double v, double scale)
{
  if (!isfinite (v))
    return NAN;
  return round (4 * (t->rect.y + t->rect.height * (1 - CLAMP (v / scale, 0.0, 1.0)))) / 4;
}

/* Counter colours: memory fill, link utilisation fill. */
BpwPlotColor        _bpw_timeline_counter_color    (const BpwPlotStyle    *style,
                                                    BpwTimelineTrackKind   kind);

G_END_DECLS
