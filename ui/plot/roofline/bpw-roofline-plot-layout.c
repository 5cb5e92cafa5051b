/* bpw-roofline-plot-layout.c — the roofline's layout: data + size → scene
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure: reads the data and the style, writes only the plot's scene arrays. Axes and
 * legend claim their room, then the ceilings and dots are placed; their labels are in
 * bpw-roofline-plot-labels.c.
 */
#define G_LOG_DOMAIN "bpw-roofline-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-roofline-plot-private.h"


gboolean
_bpw_roofline_plot_bounds (BpwPlot         *plot,
                           BpwPlotViewport *b)
{
  BpwRooflinePlot *self = BPW_ROOFLINE_PLOT (plot);
  const BpwRooflineData *data = self->data;
  double top = 0;

  *b = (BpwPlotViewport) { G_MAXDOUBLE, 0, G_MAXDOUBLE, 0 };
  if (data == NULL)
    return FALSE;
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);

      b->x_min = MIN (b->x_min, p->intensity);
      b->x_max = MAX (b->x_max, p->intensity);
      b->y_min = MIN (b->y_min, p->attained);
      b->y_max = MAX (b->y_max, p->attained);
    }
  for (guint i = 0; i < data->ridges->len; i++)
    {
      const BpwRooflineRidge *r = &g_array_index (data->ridges, BpwRooflineRidge, i);

      b->x_min = MIN (b->x_min, r->intensity / 10);
      b->x_max = MAX (b->x_max, r->intensity * 3);
    }
  for (guint i = 0; i < data->ceilings->len; i++)
    {
      const BpwRooflineCeiling *c = &g_array_index (data->ceilings, BpwRooflineCeiling, i);

      if (c->kind == BPW_CEILING_COMPUTE)
        top = MAX (top, c->value);
    }
  if (top > 0)
    {
      b->y_max = MAX (b->y_max, top);
      b->y_min = MIN (b->y_min, top / 1000);
    }
  if (!(b->x_max > 0) || !(b->y_max > 0))
    return FALSE;
  return TRUE;
}

static void
fit_domain (BpwRooflinePlot *self, const BpwPlotViewport *viewport, BpwPlotViewport *d)
{
  if (viewport != NULL && viewport->x_min > 0 && viewport->x_max > viewport->x_min &&
      viewport->y_min > 0 && viewport->y_max > viewport->y_min)
    {
      *d = *viewport;
      return;
    }
  if (!_bpw_roofline_plot_bounds (BPW_PLOT (self), d))
    *d = (BpwPlotViewport) { 0.1, 1000, 1e9, 1e15 };
  /* A factor of two of air on every side, so no dot or ceiling label sits on the frame.
   * Not widened to whole decades: that can waste most of a decade above the peak. */
  d->x_min /= 2;
  d->x_max *= 2;
  d->y_min /= 2;
  d->y_max *= 2;
}

/* When fitting, room above the highest compute ceiling for its label, whatever the
 * height: with log y from a to b (decades), the peak t sits (b − t)/(b − a) of the height
 * below the top; solve for the b that makes that at least @need. */
static void
fit_headroom (BpwRooflinePlot *self, BpwPlotViewport *d, double height, const BpwPlotStyle *st)
{
  double need = st->font_size[BPW_PLOT_FONT_SMALL] * 1.4 + 3 * LABEL_OFFSET, top = 0, k, a, t, b;

  for (guint i = 0; i < self->data->ceilings->len; i++)
    {
      const BpwRooflineCeiling *c = &g_array_index (self->data->ceilings, BpwRooflineCeiling, i);

      if (c->kind == BPW_CEILING_COMPUTE)
        top = MAX (top, c->value);
    }
  k = need / height;
  if (!(top > 0) || !(d->y_min > 0) || k >= 0.5)
    return;
  a = log10 (d->y_min);
  t = log10 (top);
  b = (t - k * a) / (1 - k);
  if (b > log10 (d->y_max))
    d->y_max = pow (10.0, b);
}

/* The highest ceiling of @kind in @c's family (datasheet or calibrated, plan or
 * baseline): where @c's line turns. Host memory never bounds a compute line, and memory
 * lines end at the peak of the plan's own precision, not at other precisions' peaks. */
static double
top_of_family (const BpwRooflineData *data, const BpwRooflineCeiling *c, BpwCeilingKind kind)
{
  double best = 0, any = 0;

  for (guint i = 0; i < data->ceilings->len; i++)
    {
      const BpwRooflineCeiling *o = ceiling (data, i);

      if (o->kind != kind || o->baseline != c->baseline || o->host ||
          (kind == BPW_CEILING_COMPUTE && !o->primary))
        continue;
      any = MAX (any, o->value);
      if (o->calibrated == c->calibrated)
        best = MAX (best, o->value);
    }
  return best > 0 ? best : any;
}

static void
build_legend (BpwRooflinePlot *self, const BpwPlotStyle *st)
{
  const BpwRooflineData *data = self->data;
  gboolean types[BPW_N_LAYER_TYPES] = { FALSE };
  gboolean calibrated = FALSE, baseline_points = FALSE, baseline_ceilings = FALSE;
  gboolean others = FALSE, measured = FALSE;
  BpwPlotColor dot = bpw_plot_color_mix (&st->foreground, &st->background, 0.45);
  g_autofree char *note = NULL;
  g_autofree char *baseline = NULL;
  guint merged = 0, shown = 0;

  bpw_plot_legend_clear (&self->scene->legend);
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);

      types[MIN (p->layer_type, BPW_N_LAYER_TYPES - 1)] = TRUE;
      baseline_points |= p->baseline;
      measured |= p->measured;
      if (!p->baseline && !p->measured)
        merged += p->merged, shown++;
    }
  for (guint i = 0; i < data->ceilings->len; i++)
    {
      calibrated |= ceiling (data, i)->calibrated;
      baseline_ceilings |= ceiling (data, i)->baseline;
      others |= !ceiling (data, i)->primary && !ceiling (data, i)->host;
    }
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Layer type"));
  for (guint t = 0; t < BPW_N_LAYER_TYPES; t++)
    if (types[t])
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DOT, &st->layer_type[t],
                           _bpw_plot_layer_type_name (t));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Operations"));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DOT, &dot, data->label);
  if (baseline_points)
    {
      baseline = g_strdup_printf (_("%s (baseline)"), data->baseline_label != NULL
                                                     ? data->baseline_label : _("baseline"));
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_RING, &dot, baseline);
    }
  if (measured)
    {
      g_autofree char *label = g_strdup_printf (_("measured (%s)"), data->measured_label != NULL
                                                                   ? data->measured_label
                                                                   : _("profile"));

      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DIAMOND, &dot, label);
    }
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_HEADING, NULL, _("Ceilings"));
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_LINE, &st->ceiling, _("datasheet"));
  if (calibrated)
    {
      GString *factors = g_string_new (NULL);

      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DASH, &st->ceiling,
                           _("calibrated (best efficiency)"));
      for (guint i = 0; i < data->ceilings->len; i++)
        if (ceiling (data, i)->calibrated && !ceiling (data, i)->baseline)
          g_string_append_printf (factors, "%s%s ×%.2f", factors->len > 0 ? ", " : "",
                                  ceiling (data, i)->label, ceiling (data, i)->efficiency);
      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, factors->str);
      g_string_free (factors, TRUE);
    }
  if (others)
    bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_LINE, &st->muted, _("other precisions"));
  if (baseline_ceilings)
    bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_DOTTED, &st->muted, _("baseline datasheet"));
  if (data->skipped > 0)
    note = g_strdup_printf (_("Dot area ∝ share of task time. %u operations as %u dots (alike "
                            "operations of every block merged); %u without FLOPs or memory "
                            "traffic not shown."), merged, shown, data->skipped);
  else
    note = g_strdup_printf (_("Dot area ∝ share of task time. %u operations as %u dots (alike "
                            "operations of every block merged)."), merged, shown);
  bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, note);
  if (measured)
    {
      /* A legend entry holds 160 bytes. */
      g_autofree char *how = data->measured_skipped > 0
        ? g_strdup_printf (_("Diamonds: modelled FLOPs over measured kernel time, alike "
                           "operations merged; %u without FLOPs or traffic not shown."),
                           data->measured_skipped)
        : g_strdup (_("Diamonds: modelled FLOPs over measured kernel time, alike operations "
                    "merged."));

      bpw_plot_legend_add (&self->scene->legend, BPW_LEGEND_NOTE, NULL, how);
    }
}

static void
add_segment (BpwRooflinePlot *self, guint index, double x0, double y0, double x1, double y1)
{
  BpwRooflineSegment s = {
    .ceiling = index,
    .x0 = bpw_scale_map (&self->scene->xscale, x0), .y0 = bpw_scale_map (&self->scene->yscale, y0),
    .x1 = bpw_scale_map (&self->scene->xscale, x1), .y1 = bpw_scale_map (&self->scene->yscale, y1),
  };

  g_array_append_val (self->segments, s);
}

static void
layout_ceilings (BpwRooflinePlot *self, const BpwPlotViewport *d)
{
  const BpwRooflineData *data = self->data;

  for (guint i = 0; i < data->ceilings->len; i++)
    {
      const BpwRooflineCeiling *c = ceiling (data, i);

      if (!(c->value > 0))
        continue;
      if (c->kind == BPW_CEILING_COMPUTE)
        {
          double bw = top_of_family (data, c, BPW_CEILING_MEMORY);
          double x0 = MAX (d->x_min, bw > 0 ? c->value / bw : d->x_min);

          if (c->value >= d->y_min && c->value <= d->y_max && x0 < d->x_max)
            add_segment (self, i, x0, c->value, d->x_max, c->value);
        }
      else
        {
          double peak = top_of_family (data, c, BPW_CEILING_COMPUTE);
          double x0 = MAX (d->x_min, d->y_min / c->value);
          double x1 = MIN (MIN (d->x_max, d->y_max / c->value),
                           peak > 0 ? peak / c->value : d->x_max);

          if (x0 < x1)
            add_segment (self, i, x0, c->value * x0, x1, c->value * x1);
        }
    }
}

static gint
compare_marks (gconstpointer a, gconstpointer b)
{
  const BpwRooflineMark *x = a, *y = b;

  if (x->baseline != y->baseline)
    return x->baseline ? -1 : 1;
  /* Measured diamonds above the predicted dots they are compared with. */
  if (x->measured != y->measured)
    return x->measured ? 1 : -1;
  if (x->radius != y->radius)
    return x->radius > y->radius ? -1 : 1;
  return x->point < y->point ? -1 : x->point > y->point;
}

/* Dots. Level of detail: points that land on the same pixel with the same colour and
 * kind are one dot that counts them, so the number of dots is bounded by the area. */
static void
layout_marks (BpwRooflinePlot *self, const BpwPlotStyle *st)
{
  const BpwRooflineData *data = self->data;
  g_autoptr(GHashTable) cells = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) keys = g_array_sized_new (FALSE, FALSE, sizeof (gint64), data->points->len);
  double max_share = 0;

  for (guint i = 0; i < data->points->len; i++)
    max_share = MAX (max_share, g_array_index (data->points, BpwRooflinePoint, i).share);
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);
      double x = bpw_scale_map (&self->scene->xscale, p->intensity);
      double y = bpw_scale_map (&self->scene->yscale, p->attained);
      double r = max_share > 0 ? st->marker_max * sqrt (p->share / max_share) : st->marker_min;
      gint64 key;
      gpointer found;
      BpwRooflineMark m;

      if (!_bpw_plot_rect_contains (&self->scene->area, x, y))
        continue;
      r = CLAMP (r, st->marker_min, st->marker_max);
      /* Inside the area, so both pixel coordinates are small and non-negative. */
      key = ((gint64) lround (x) << 32) | ((gint64) lround (y) << 8) |
            ((gint64) (p->layer_type & 0x3f) << 2) | (p->measured ? 2 : 0) |
            (p->baseline ? 1 : 0);
      /* Sized for every point up front: it never grows, so the hash table's pointers to
       * its elements stay valid. */
      g_array_append_val (keys, key);
      if (g_hash_table_lookup_extended (cells, &g_array_index (keys, gint64, keys->len - 1),
                                        NULL, &found))
        {
          BpwRooflineMark *o = &g_array_index (self->marks, BpwRooflineMark,
                                               GPOINTER_TO_UINT (found));

          o->count++;
          if (r > o->radius)
            o->radius = r, o->point = i;
          continue;
        }
      m = (BpwRooflineMark) { .x = x, .y = y, .radius = r, .point = i, .count = 1,
                              .baseline = p->baseline, .measured = p->measured };
      g_array_append_val (self->marks, m);
      g_hash_table_insert (cells, &g_array_index (keys, gint64, keys->len - 1),
                           GUINT_TO_POINTER (self->marks->len - 1));
    }
  g_array_sort (self->marks, compare_marks);
}

/* The dots, in draw order: of those in reach, the nearest is hit. */
static void
add_targets (BpwRooflinePlot *self)
{
  for (guint i = 0; i < self->marks->len; i++)
    {
      const BpwRooflineMark *m = &g_array_index (self->marks, BpwRooflineMark, i);
      const BpwRooflinePoint *p = &g_array_index (self->data->points, BpwRooflinePoint,
                                                  m->point);
      BpwPlotTarget t = {
        .hit = { .kind = m->baseline ? BPW_PLOT_HIT_BASELINE : BPW_PLOT_HIT_ITEM,
                 .index = (gint) m->point, .count = m->count, .lineage = p->lineage,
                 .bounds = { m->x - m->radius, m->y - m->radius, 2 * m->radius,
                             2 * m->radius } },
        .reach = MAX (m->radius, HIT_SLOP),
      };

      _bpw_plot_add_target (BPW_PLOT (self), &t);
    }
}

void
_bpw_roofline_plot_layout (BpwPlot               *plot,
                           const BpwPlotViewport *viewport,
                           double                 width,
                           double                 height)
{
  BpwRooflinePlot *self = BPW_ROOFLINE_PLOT (plot);
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  double pad = st->padding, top, right, bottom, x_extent, legend_w;
  gboolean column = width >= 520;
  BpwPlotViewport d;

  g_array_set_size (self->marks, 0);
  g_array_set_size (self->segments, 0);
  g_array_set_size (self->ridges, 0);
  g_array_set_size (self->leaders, 0);
  g_array_set_size (self->labels, 0);

  _bpw_plot_set_title (plot, self->data->title);
  top = _bpw_plot_title_init (&self->scene->title, text, st, self->data->title, width) + pad * 1.5;

  build_legend (self, st);
  legend_w = column ? CLAMP (width * 0.24, 120, 190) : width - 2 * pad;
  bpw_plot_legend_layout (&self->scene->legend, text, st, !column, 0, 0, legend_w);
  right = width - pad - (column ? self->scene->legend.width + 2 * pad : 0);
  bottom = height - pad - (column ? 0 : self->scene->legend.height + pad);

  fit_domain (self, viewport, &d);
  bpw_axis_layout_init (&self->scene->xaxis, BPW_AXIS_BOTTOM, _("Arithmetic intensity (FLOP/B)"),
                        "FLOP/B", FALSE);
  bpw_axis_layout_init (&self->scene->yaxis, BPW_AXIS_LEFT, _("Attained (FLOP/s)"), "FLOP/s", TRUE);

  /* The x axis' height hardly depends on its ticks; the y axis' width does on its labels.
   * Lay out y against an estimated height, then x against the width that leaves, then y
   * again against the true height. */
  bpw_scale_init (&self->scene->xscale, BPW_SCALE_LOG, d.x_min, d.x_max, pad, right);
  bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
  x_extent = bpw_axis_layout_extent (&self->scene->xaxis, st);
  for (int pass = 0; pass < 2; pass++)
    {
      double y_extent;

      self->scene->area.y = top;
      self->scene->area.height = MAX (bottom - x_extent - top, 1.0);
      if (viewport == NULL)
        fit_headroom (self, &d, self->scene->area.height, st);
      bpw_scale_init (&self->scene->yscale, BPW_SCALE_LOG, d.y_min, d.y_max,
                      self->scene->area.y + self->scene->area.height, self->scene->area.y);
      bpw_axis_layout_compute (&self->scene->yaxis, &self->scene->yscale, text, st);
      y_extent = bpw_axis_layout_extent (&self->scene->yaxis, st);
      self->scene->area.x = pad + y_extent;
      self->scene->area.width = MAX (right - self->scene->area.x, 1.0);
      bpw_scale_init (&self->scene->xscale, BPW_SCALE_LOG, d.x_min, d.x_max, self->scene->area.x,
                      self->scene->area.x + self->scene->area.width);
      bpw_axis_layout_compute (&self->scene->xaxis, &self->scene->xscale, text, st);
      x_extent = bpw_axis_layout_extent (&self->scene->xaxis, st);
    }

  if (column)
    bpw_plot_legend_move (&self->scene->legend, right + 2 * pad, self->scene->area.y);
  else
    bpw_plot_legend_move (&self->scene->legend, pad, height - pad - self->scene->legend.height);

  layout_ceilings (self, &d);
  layout_marks (self, st);
  add_targets (self);
  _bpw_roofline_plot_place_labels (self, text, st);
}
