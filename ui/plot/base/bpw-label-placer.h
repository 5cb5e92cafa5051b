/* bpw-label-placer.h — greedy placement of annotations without overlaps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layout offers each label a few candidate boxes in order of preference; the first that
 * stays inside the bounds and overlaps nothing placed before (labels, or obstacles such
 * as the ceilings' lines and the largest marks) is taken. Labels are offered most
 * important first, so when space runs out the least important ones are left out. Boxes may
 * be rotated (labels along a slanted line): shapes are convex quadrilaterals or segments,
 * tested with the separating-axis theorem.
 */
#pragma once

#include "bpw-plot.h"

G_BEGIN_DECLS

/* A convex shape: a segment (n = 2), a quadrilateral (n = 4) or an octagon around a dot
 * (n = 8), points in order. */
#define BPW_PLOT_QUAD_MAX_POINTS 8

typedef struct
{
  double  x[BPW_PLOT_QUAD_MAX_POINTS], y[BPW_PLOT_QUAD_MAX_POINTS];
  guint   n;
  guint   tag;   /* a bit: kinds of obstacles a shape may be allowed to cross; 0 none */
} BpwPlotQuad;

typedef struct
{
  BpwPlotRect  bounds;
  GArray      *taken;   /* BpwPlotQuad, owned */
} BpwLabelPlacer;

void      bpw_plot_quad_from_rect   (BpwPlotQuad       *quad,
                                     const BpwPlotRect *rect);
/* The regular octagon inscribed in a circle: much tighter than its bounding box. */
void      bpw_plot_quad_from_circle (BpwPlotQuad       *quad,
                                     double             x,
                                     double             y,
                                     double             radius);
gboolean  bpw_plot_quad_intersects  (const BpwPlotQuad *a,
                                     const BpwPlotQuad *b);

void      bpw_label_placer_init     (BpwLabelPlacer    *placer,
                                     const BpwPlotRect *bounds);
void      bpw_label_placer_clear    (BpwLabelPlacer    *placer);
/* Marks a shape as occupied whether or not it overlaps anything. */
void      bpw_label_placer_block    (BpwLabelPlacer    *placer,
                                     const BpwPlotQuad *shape);
void      bpw_label_placer_block_rect (BpwLabelPlacer  *placer,
                                       const BpwPlotRect *rect);
void      bpw_label_placer_block_segment (BpwLabelPlacer *placer,
                                          double          x0,
                                          double          y0,
                                          double          x1,
                                          double          y1,
                                          guint           tag);
/* TRUE when @shape lies inside the bounds and overlaps no obstacle, except those whose
 * tag is in the mask @ignore (a leader line may cross ceilings and dots, a label not). */
gboolean  bpw_label_placer_is_free  (const BpwLabelPlacer *placer,
                                     const BpwPlotQuad    *shape,
                                     guint                 ignore);
/* bpw_label_placer_is_free(), and when free, blocks @shape. */
gboolean  bpw_label_placer_try      (BpwLabelPlacer    *placer,
                                     const BpwPlotQuad *shape,
                                     guint              ignore);

G_END_DECLS
