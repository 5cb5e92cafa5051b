/* bpw-plot-private.h — what BpwPlot shares with its subclasses
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-plot.h"
#include "bpw-axis-layout.h"
#include "bpw-label-placer.h"
#include "bpw-plot-legend.h"
#include "bpw-plot-text.h"

G_BEGIN_DECLS

/* A piece of text placed by layout and painted by draw. */
typedef struct
{
  double        x, y;        /* anchor point */
  double        ax, ay;      /* which point of the text box is at (x, y): 0..1 */
  double        angle;       /* radians */
  double        wrap;        /* > 0: wrapped at this width */
  BpwPlotFont   font;
  BpwPlotColor  color;
  BpwPlotRect   bounds;      /* axis-aligned box it covers (for hit-testing and tests) */
  BpwPlotQuad   quad;        /* the (rotated) box with a little air, for placement */
  gboolean      halo;        /* paint the box in halo_color first: text over grid lines */
  BpwPlotColor  halo_color;
  char          text[128];
} BpwPlotLabel;

/* Something hit-testing finds: @hit is what bpw_plot_hit_test() reports (its bounds the
 * mark, for the hover highlight). A dot (@reach > 0) is hit within @reach of the centre of
 * its bounds, the nearest of those under the pointer winning; anything else inside its
 * bounds, the last added (drawn on top) winning. */
typedef struct
{
  BpwPlotHit  hit;
  double      reach;
} BpwPlotTarget;

/* What every chart lays out, kept by the base: the chart's layout fills it, the base answers
 * bpw_plot_get_area(), bpw_plot_map_x() and hit-testing from it. */
typedef struct
{
  BpwPlotRect     area;          /* where the data are drawn */
  BpwScale        xscale, yscale;
  BpwAxisLayout   xaxis, yaxis;
  BpwPlotLegend   legend;
  BpwPlotLabel    title;
  GArray         *targets;       /* BpwPlotTarget in draw order; emptied before each layout */
  guint32         selected;      /* lineage outlined; BPW_PLOT_NO_LINEAGE */
} BpwPlotScene;

/* From class_init: the chart's data are a struct made empty by @new_empty and freed by
 * @free, with a char * title at @title_offset; the base owns them and keeps the chart's
 * typed pointer at @data_offset in the instance up to date. */
void          _bpw_plot_class_set_data_type (BpwPlotClass   *klass,
                                             gsize           data_offset,
                                             gsize           title_offset,
                                             gpointer      (*new_empty) (void),
                                             GDestroyNotify  free);
/* Takes ownership of @data (NULL: empty data); does nothing when it is already the plot's.
 * Runs data_changed, sets the title and emits "changed". */
void          _bpw_plot_set_data     (BpwPlot             *self,
                                      gpointer             data);
/* Valid as long as the plot. */
BpwPlotScene *_bpw_plot_get_scene    (BpwPlot             *self);
void          _bpw_plot_add_target   (BpwPlot             *self,
                                      const BpwPlotTarget *target);
/* The default hit_test: the targets, then the legend. */
gboolean      _bpw_plot_hit_targets  (BpwPlot             *self,
                                      double               x,
                                      double               y,
                                      BpwPlotHit          *hit);
gboolean      _bpw_plot_hit_legend   (BpwPlot             *self,
                                      double               x,
                                      double               y,
                                      BpwPlotHit          *hit);
gboolean      _bpw_plot_default_hit_test (BpwPlot         *self,
                                          double           x,
                                          double           y,
                                          BpwPlotHit      *hit);

/* Measures @str and fills @label so that its box is placed with (@ax, @ay) at (@x, @y);
 * @angle rotates about that point, and @bounds is the rotated box's bounding box. */
void         _bpw_plot_label_init  (BpwPlotLabel       *label,
                                    BpwPlotText        *text,
                                    BpwPlotFont         font,
                                    const char         *str,
                                    double              x,
                                    double              y,
                                    double              ax,
                                    double              ay,
                                    double              angle,
                                    const BpwPlotColor *color);
void         _bpw_plot_draw_labels (BpwPlotText        *text,
                                    cairo_t            *cr,
                                    const GArray       *labels);
void         _bpw_plot_draw_label  (BpwPlotText        *text,
                                    cairo_t            *cr,
                                    const BpwPlotLabel *label);
/* The chart title at the top left, wrapped to the figure's width; returns its bottom. */
double       _bpw_plot_title_init  (BpwPlotLabel       *label,
                                    BpwPlotText        *text,
                                    const BpwPlotStyle *style,
                                    const char         *str,
                                    double              width);

/* Names as charts show them: "Attention", "MLP", "Backward (weights)", "bwd-w". */
const char  *_bpw_plot_layer_type_name (guint layer_type);
const char  *_bpw_plot_phase_name      (guint phase);
const char  *_bpw_plot_phase_short     (guint phase);
const char  *_bpw_plot_bottleneck_name (guint bottleneck);

/* Valid from the start of layout until the style changes. */
BpwPlotText *_bpw_plot_get_text   (BpwPlot      *self);
void         _bpw_plot_set_title  (BpwPlot      *self,
                                   const char   *title);

/* CSV helpers: RFC 4180 quoting where a field needs it; numbers with %.17g (exact). */
void         _bpw_csv_text        (GString      *out,
                                   const char   *field);
void         _bpw_csv_number      (GString      *out,
                                   double        value);
void         _bpw_csv_end         (GString      *out);

static inline gboolean
_bpw_plot_rect_contains (const BpwPlotRect *r,
                         double             x,
                         double             y)
{
  return x >= r->x && x <= r->x + r->width && y >= r->y && y <= r->y + r->height;
}

static inline gboolean
_bpw_plot_rect_intersects (const BpwPlotRect *a,
                           const BpwPlotRect *b)
{
  return a->x < b->x + b->width && b->x < a->x + a->width &&
         a->y < b->y + b->height && b->y < a->y + a->height;
}

G_END_DECLS
