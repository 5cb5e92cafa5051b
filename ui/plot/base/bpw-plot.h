/* bpw-plot.h — the abstract chart: layout (pure), draw (cairo), hit-test
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One drawing path for the screen, PNG, SVG, PDF and headless tests (STYLE.md §7.8):
 *
 *   bpw_plot_layout()    data + style + size → a scene of positions in flat arrays
 *                        (pure; level-of-detail rules live here);
 *   bpw_plot_draw()      paints that scene with cairo, allocating nothing of its own;
 *   bpw_plot_hit_test()  point → the item under it, from the same scene.
 *
 * A plot is a GObject because the GTK view holds it and listens to "changed"; the data it
 * shows are flat structs, never one object per item. Units are cairo user units: logical
 * pixels on screen, points in exports.
 */
#pragma once

#include <cairo.h>
#include <glib-object.h>

#include "bpw-plot-style.h"

G_BEGIN_DECLS

#define BPW_PLOT_NO_LINEAGE G_MAXUINT32

typedef struct
{
  double x, y, width, height;
} BpwPlotRect;

/* The data window a plot shows; on log axes the bounds are positive. */
typedef struct
{
  double x_min, x_max;
  double y_min, y_max;
} BpwPlotViewport;

typedef enum
{
  BPW_PLOT_HIT_NONE,
  BPW_PLOT_HIT_ITEM,      /* an operation, a mark: index into the plot's items */
  BPW_PLOT_HIT_BASELINE,  /* an item of the baseline overlay */
  BPW_PLOT_HIT_CEILING,   /* a roofline ceiling: index into its ceilings */
  BPW_PLOT_HIT_LEGEND,    /* a legend entry: index into the legend */
  BPW_PLOT_HIT_COUNTER,   /* a counter track or curve: index is the plot's track or series */
  BPW_PLOT_HIT_CELL,      /* a table or heat-map cell: index is the plot's cell */
} BpwPlotHitKind;

typedef struct
{
  BpwPlotHitKind  kind;
  gint            index;    /* -1 when nothing is hit */
  guint           count;    /* items merged under this mark by level of detail, ≥ 1 */
  guint32         lineage;  /* for linked selection; BPW_PLOT_NO_LINEAGE when none */
  BpwPlotRect     bounds;   /* the mark, for the hover highlight */
} BpwPlotHit;

#define BPW_TYPE_PLOT (bpw_plot_get_type ())
G_DECLARE_DERIVABLE_TYPE (BpwPlot, bpw_plot, BPW, PLOT, GObject)

struct _BpwPlotClass
{
  GObjectClass parent_class;

  /* Data extents (for zoom to fit); FALSE when there is nothing to show. */
  gboolean  (*get_bounds) (BpwPlot               *self,
                           BpwPlotViewport       *bounds);
  /* @viewport is NULL for "fit"; the style is bpw_plot_get_style(). */
  void      (*layout)     (BpwPlot               *self,
                           const BpwPlotViewport *viewport,
                           double                 width,
                           double                 height);
  /* The background is painted before; paint the scene only. */
  void      (*draw)       (BpwPlot               *self,
                           cairo_t               *cr);
  gboolean  (*hit_test)   (BpwPlot               *self,
                           double                 x,
                           double                 y,
                           BpwPlotHit            *hit);
  char     *(*describe)   (BpwPlot               *self,
                           const BpwPlotHit      *hit);
  char     *(*to_csv)     (BpwPlot               *self);
  /* The data were replaced (bpw_plot_set_data()): derive what the chart keeps of them,
   * before "changed" is emitted. */
  void      (*data_changed) (BpwPlot             *self);

  /* What the chart's data are, set in class_init with _bpw_plot_class_set_data_type(). */
  gsize       data_offset;   /* of the chart's typed data pointer in its instance */
  gsize       title_offset;  /* of the title (char *) in the data */
  gpointer  (*new_empty_data) (void);
  void      (*free_data)      (gpointer data);

  gpointer padding[4];
};

/* Lays the plot out at @width × @height with a copy of @style. Exports lay the plot out
 * again at their own size: a view compares bpw_plot_get_layout_serial() with what it drew. */
void         bpw_plot_layout            (BpwPlot               *self,
                                         const BpwPlotStyle    *style,
                                         const BpwPlotViewport *viewport,
                                         double                 width,
                                         double                 height);
gboolean     bpw_plot_is_laid_out       (BpwPlot               *self);
guint        bpw_plot_get_layout_serial (BpwPlot               *self);
/* Paints the background and the scene of the last layout. */
void         bpw_plot_draw              (BpwPlot               *self,
                                         cairo_t               *cr);
/* Fills @hit (kind NONE, index -1 when nothing is there); TRUE when something is hit. */
gboolean     bpw_plot_hit_test          (BpwPlot               *self,
                                         double                 x,
                                         double                 y,
                                         BpwPlotHit            *hit);
/* (transfer full) (nullable): a tooltip for @hit, several lines. */
char        *bpw_plot_describe          (BpwPlot               *self,
                                         const BpwPlotHit      *hit);
/* (transfer full): the data behind the chart as CSV (RFC 4180, header line first). */
char        *bpw_plot_to_csv            (BpwPlot               *self);
gboolean     bpw_plot_get_bounds        (BpwPlot               *self,
                                         BpwPlotViewport       *bounds);

const BpwPlotStyle *bpw_plot_get_style  (BpwPlot               *self);
/* bpw_plot_style_format_bytes() in the style of the last layout (hover texts). */
gsize               bpw_plot_format_bytes (BpwPlot             *self,
                                           char                *buf,
                                           gsize                size,
                                           double               bytes);
void         bpw_plot_get_size          (BpwPlot               *self,
                                         double                *width,
                                         double                *height);
/* The title the chart draws; exports use it for document metadata. */
const char  *bpw_plot_get_title         (BpwPlot               *self);

/* For subclasses: data changed; drops the layout and emits "changed". */
void         bpw_plot_changed           (BpwPlot               *self);

/* The rectangle the data are drawn in (the lanes, the axes' box) in the last layout;
 * what zoom, pan and area selection act on. Empty before the first layout. */
const BpwPlotRect *bpw_plot_get_area    (BpwPlot               *self);
/* Data to user units and back on the axes of the last layout. */
double       bpw_plot_map_x             (BpwPlot               *self,
                                         double                 value);
double       bpw_plot_map_y             (BpwPlot               *self,
                                         double                 value);
double       bpw_plot_unmap_x           (BpwPlot               *self,
                                         double                 x);

/* The charts that outline a lineage (roofline, engines, lifetimes) outline the marks of
 * @lineage in the accent colour; BPW_PLOT_NO_LINEAGE clears. Kept when the data change.
 * Notifies "selected-lineage" and drops the layout. */
void         bpw_plot_set_selected_lineage (BpwPlot            *self,
                                            guint32             lineage);
guint32      bpw_plot_get_selected_lineage (BpwPlot            *self);

G_END_DECLS
