/* bpw-label-placer.c — greedy placement of annotations without overlaps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-label-placer"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-label-placer.h"

void
bpw_plot_quad_from_rect (BpwPlotQuad       *quad,
                         const BpwPlotRect *r)
{
  *quad = (BpwPlotQuad) {
    .x = { r->x, r->x + r->width, r->x + r->width, r->x },
    .y = { r->y, r->y, r->y + r->height, r->y + r->height },
    .n = 4,
  };
}

void
bpw_plot_quad_from_circle (BpwPlotQuad *quad,
                           double       x,
                           double       y,
                           double       radius)
{
  /* Inscribed: the circle pokes out of the flat sides by under 8 % of its radius, which a
   * label's halo may cover; a circumscribed one would keep labels off lines that dots
   * merely touch. */
  double r = radius;

  memset (quad, 0, sizeof *quad);
  quad->n = 8;
  for (guint i = 0; i < 8; i++)
    {
      quad->x[i] = x + r * cos (G_PI / 8 + i * G_PI / 4);
      quad->y[i] = y + r * sin (G_PI / 8 + i * G_PI / 4);
    }
}

/* Projections of @q onto the axis (@ax, @ay). */
static void
project (const BpwPlotQuad *q, double ax, double ay, double *lo, double *hi)
{
  *lo = G_MAXDOUBLE;
  *hi = -G_MAXDOUBLE;
  for (guint i = 0; i < q->n; i++)
    {
      double d = q->x[i] * ax + q->y[i] * ay;

      *lo = MIN (*lo, d);
      *hi = MAX (*hi, d);
    }
}

/* TRUE when one of @a's edge normals separates @a from @b. Touching is not overlapping. */
static gboolean
separated_by_edges_of (const BpwPlotQuad *a, const BpwPlotQuad *b)
{
  guint edges = a->n == 2 ? 1 : a->n;

  for (guint i = 0; i < edges; i++)
    {
      guint j = (i + 1) % a->n;
      double nx = -(a->y[j] - a->y[i]), ny = a->x[j] - a->x[i];
      double alo, ahi, blo, bhi;

      if (nx == 0 && ny == 0)
        continue;
      project (a, nx, ny, &alo, &ahi);
      project (b, nx, ny, &blo, &bhi);
      if (ahi <= blo || bhi <= alo)
        return TRUE;
    }
  return FALSE;
}

gboolean
bpw_plot_quad_intersects (const BpwPlotQuad *a,
                          const BpwPlotQuad *b)
{
  return !separated_by_edges_of (a, b) && !separated_by_edges_of (b, a);
}

void
bpw_label_placer_init (BpwLabelPlacer    *placer,
                       const BpwPlotRect *bounds)
{
  g_return_if_fail (placer != NULL && bounds != NULL);

  placer->bounds = *bounds;
  placer->taken = g_array_new (FALSE, FALSE, sizeof (BpwPlotQuad));
}

void
bpw_label_placer_clear (BpwLabelPlacer *placer)
{
  g_return_if_fail (placer != NULL);

  g_clear_pointer (&placer->taken, g_array_unref);
}

void
bpw_label_placer_block (BpwLabelPlacer    *placer,
                        const BpwPlotQuad *shape)
{
  g_array_append_val (placer->taken, *shape);
}

void
bpw_label_placer_block_rect (BpwLabelPlacer    *placer,
                             const BpwPlotRect *rect)
{
  BpwPlotQuad q;

  bpw_plot_quad_from_rect (&q, rect);
  bpw_label_placer_block (placer, &q);
}

void
bpw_label_placer_block_segment (BpwLabelPlacer *placer,
                                double          x0,
                                double          y0,
                                double          x1,
                                double          y1,
                                guint           tag)
{
  BpwPlotQuad q = { .x = { x0, x1 }, .y = { y0, y1 }, .n = 2, .tag = tag };

  bpw_label_placer_block (placer, &q);
}

gboolean
bpw_label_placer_is_free (const BpwLabelPlacer *placer,
                          const BpwPlotQuad    *shape,
                          guint                 ignore)
{
  const BpwPlotRect *b = &placer->bounds;

  for (guint i = 0; i < shape->n; i++)
    if (shape->x[i] < b->x || shape->y[i] < b->y || shape->x[i] > b->x + b->width ||
        shape->y[i] > b->y + b->height)
      return FALSE;
  for (guint i = 0; i < placer->taken->len; i++)
    {
      const BpwPlotQuad *o = &g_array_index (placer->taken, BpwPlotQuad, i);

      if ((o->tag & ignore) != 0)
        continue;
      if (bpw_plot_quad_intersects (shape, o))
        return FALSE;
    }
  return TRUE;
}

gboolean
bpw_label_placer_try (BpwLabelPlacer    *placer,
                      const BpwPlotQuad *shape,
                      guint              ignore)
{
  g_return_val_if_fail (placer != NULL && shape != NULL, FALSE);

  if (!bpw_label_placer_is_free (placer, shape, ignore))
    return FALSE;
  bpw_label_placer_block (placer, shape);
  return TRUE;
}
