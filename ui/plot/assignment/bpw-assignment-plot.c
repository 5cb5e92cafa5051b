/* bpw-assignment-plot.c — engines and links × the operations of one pipeline stage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawing, hit-testing, descriptions and CSV; the layout is in
 * bpw-assignment-plot-layout.c.
 */
#define G_LOG_DOMAIN "bpw-assignment-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-plot-selection.h"
#include "bpw-assignment-plot-private.h"

G_DEFINE_FINAL_TYPE (BpwAssignmentPlot, bpw_assignment_plot, BPW_TYPE_PLOT)

static void
bpw_assignment_plot_finalize (GObject *object)
{
  BpwAssignmentPlot *self = BPW_ASSIGNMENT_PLOT (object);

  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->lane_first, g_array_unref);
  g_clear_pointer (&self->lane_rects, g_array_unref);
  g_clear_pointer (&self->bands, g_array_unref);
  g_clear_pointer (&self->labels, g_array_unref);
  g_clear_pointer (&self->separators, g_array_unref);

  G_OBJECT_CLASS (bpw_assignment_plot_parent_class)->finalize (object);
}

static const BpwAssignmentItem *
item (const BpwAssignmentData *data, guint i)
{
  return &g_array_index (data->items, BpwAssignmentItem, i);
}

static void
draw_bands (BpwAssignmentPlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  for (guint i = 0; i < self->bands->len; i++)
    {
      const BpwAssignmentBand *b = &g_array_index (self->bands, BpwAssignmentBand, i);
      /* Neutral greys: on this chart colour means the bottleneck class only. */
      BpwPlotColor mid = bpw_plot_color_mix (&st->band[0], &st->band[1], 0.5);
      BpwPlotColor fill = b->row == 0 ? st->band[1] : b->index % 2 == 0 ? st->band[0] : mid;

      /* A hairline of background between neighbouring bands. */
      cairo_rectangle (cr, b->rect.x, b->rect.y, MAX (b->rect.width - 1, 0.5), b->rect.height);
      bpw_plot_set_source (cr, &fill);
      cairo_fill (cr);
    }
}

static void
draw_marks (BpwAssignmentPlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  for (guint i = 0; i < self->marks->len; i++)
    {
      const BpwAssignmentMark *m = &g_array_index (self->marks, BpwAssignmentMark, i);
      const BpwAssignmentItem *it = item (self->data, m->item);
      const BpwPlotRect *lane = &g_array_index (self->lane_rects, BpwPlotRect, m->lane);
      double w = MAX (m->x1 - m->x0, 1.0);

      /* A hairline gap at the right of bars wide enough to spare it tells neighbours apart. */
      cairo_rectangle (cr, m->x0, lane->y, w > 3 ? w - 0.6 : w, lane->height);
      bpw_plot_set_source (cr, &st->bottleneck[MIN (it->bottleneck, BPW_N_BOTTLENECKS - 1)]);
      cairo_fill (cr);
    }
  /* The selected operation: the other bars dimmed, its bars outlined. */
  for (int pass = 0; self->scene->selected != BPW_PLOT_NO_LINEAGE && pass < 2; pass++)
    {
      guint found = 0;

      cairo_new_path (cr);
      for (guint i = 0; i < self->marks->len; i++)
        {
          const BpwAssignmentMark *m = &g_array_index (self->marks, BpwAssignmentMark, i);
          const BpwPlotRect *lane = &g_array_index (self->lane_rects, BpwPlotRect, m->lane);

          if (item (self->data, m->item)->lineage != self->scene->selected)
            continue;
          cairo_rectangle (cr, m->x0 - 1.0, lane->y + 1.0, MAX (m->x1 - m->x0, 1.0) + 2.0,
                           lane->height - 2.0);
          found++;
        }
      if (found == 0)
        break;
      if (pass == 0)
        bpw_plot_selection_dim (cr, st, &self->scene->area);
      else
        bpw_plot_selection_stroke (cr, st);
    }
}

static void
bpw_assignment_plot_draw (BpwPlot *plot,
                          cairo_t *cr)
{
  BpwAssignmentPlot *self = BPW_ASSIGNMENT_PLOT (plot);
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  const BpwPlotRect *a = &self->scene->area;
  double top = a->y;

  for (guint l = 0; l < self->lane_rects->len; l++)
    {
      const BpwPlotRect *r = &g_array_index (self->lane_rects, BpwPlotRect, l);

      cairo_rectangle (cr, r->x, r->y, r->width, r->height);
    }
  bpw_plot_set_source (cr, &st->band[0]);
  cairo_fill (cr);
  bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, a);

  draw_bands (self, cr, st);
  for (guint i = 0; i < self->bands->len; i++)
    top = MIN (top, g_array_index (self->bands, BpwAssignmentBand, i).rect.y);
  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->width, a->height);
  cairo_clip (cr);
  draw_marks (self, cr, st);
  cairo_restore (cr);

  cairo_set_line_width (cr, st->grid_width * 2);
  bpw_plot_set_source (cr, &st->muted);
  for (guint i = 0; i < self->separators->len; i++)
    {
      double x = g_array_index (self->separators, double, i);

      cairo_move_to (cr, x, top);
      cairo_line_to (cr, x, a->y + a->height);
    }
  cairo_stroke (cr);

  bpw_axis_layout_draw (&self->scene->xaxis, cr, text, st, a);
  _bpw_plot_draw_labels (text, cr, self->labels);
  _bpw_plot_draw_label (text, cr, &self->scene->title);
  bpw_plot_legend_draw (&self->scene->legend, cr, text, st);
}

static gboolean
bpw_assignment_plot_hit_test (BpwPlot    *plot,
                              double      x,
                              double      y,
                              BpwPlotHit *hit)
{
  BpwAssignmentPlot *self = BPW_ASSIGNMENT_PLOT (plot);

  for (guint l = 0; l < self->lane_rects->len; l++)
    {
      const BpwPlotRect *r = &g_array_index (self->lane_rects, BpwPlotRect, l);
      guint lo = g_array_index (self->lane_first, guint, l);
      guint hi = g_array_index (self->lane_first, guint, l + 1);
      guint first;

      if (!_bpw_plot_rect_contains (r, x, y))
        continue;
      /* Bars of a lane own disjoint, sorted runs of columns: bisect for the first bar
       * whose columns end after the pointer's, then look at it and the one before (a bar
       * may be drawn a fraction of a column into its neighbour's). */
      first = lo;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (g_array_index (self->marks, BpwAssignmentMark, mid).col1 <= floor (x))
            lo = mid + 1;
          else
            hi = mid;
        }
      for (guint step = 0; step < 2; step++)
        {
          const BpwAssignmentMark *m;
          guint k = lo - step;

          if ((step == 1 && lo == first) || k >= g_array_index (self->lane_first, guint, l + 1))
            continue;
          m = &g_array_index (self->marks, BpwAssignmentMark, k);
          if (x < m->x0 || x > MAX (m->x1, m->x0 + 1))
            continue;
          *hit = (BpwPlotHit) {
            .kind = BPW_PLOT_HIT_ITEM, .index = (gint) m->item, .count = m->count,
            .lineage = item (self->data, m->item)->lineage,
            .bounds = { m->x0, r->y, MAX (m->x1 - m->x0, 1.0), r->height },
          };
          return TRUE;
        }
      return FALSE;
    }
  return _bpw_plot_hit_legend (plot, x, y, hit);
}

static char *
describe_item (BpwAssignmentPlot *self, const BpwAssignmentItem *it, guint count)
{
  const BpwAssignmentData *data = self->data;
  const BpwAssignmentLane *lane = &g_array_index (data->lanes, BpwAssignmentLane, it->lane);
  char total[BPW_SI_LABEL_MAX], time[BPW_SI_LABEL_MAX], flops[BPW_SI_LABEL_MAX];
  char bytes[BPW_SI_LABEL_MAX];
  g_autofree char *work = NULL;
  g_autofree char *tiling = NULL;
  g_autofree char *fusion = NULL;
  g_autofree char *more = count > 1 ? g_strdup_printf (_("\n%u operations drawn as one bar at "
                                                       "this zoom; this is the longest"), count)
                                    : g_strdup ("");

  bpw_si_format (total, sizeof total, it->total_s, "s", 3);
  bpw_si_format (time, sizeof time, it->time_s, "s", 3);
  bpw_si_format (flops, sizeof flops, it->flops, "FLOP", 3);
  bpw_plot_format_bytes (BPW_PLOT (self), bytes, sizeof bytes, it->bytes);
  work = it->transfer ? g_strdup_printf (_("%s on the wire per execution, %s each"), bytes, time)
                      : g_strdup_printf (_("%s and %s per execution, %s each"), flops, bytes, time);
  tiling = it->tile_m > 0 ? g_strdup_printf (_("Tiling: %.0f × %.0f output tile"), it->tile_m,
                                             it->tile_n)
                          : g_strdup (_("Tiling: none (not a matrix product)"));
  fusion = it->fusion_group != 0 ? g_strdup_printf (_("Fusion: %s, group %u"), it->fusion,
                                                    it->fusion_group)
                                 : g_strdup (_("Fusion: not fused"));
  return g_strdup_printf (_("%s — %s, %s\n%s on %s%s%s\n%u operation%s: %s per step on one rank "
                          "(%.1f%% of the stage's busy time)\n%s\n%s\n%s\nBottleneck: %s; "
                          "lineage id %u%s"),
                          it->name, _bpw_plot_phase_name (it->phase),
                          _bpw_plot_layer_type_name (it->layer_type), it->kind, lane->name,
                          it->dtype[0] != '\0' ? ", " : "", it->dtype, it->merged,
                          it->merged == 1 ? "" : C_("plural ending of “operation”", "s"), total,
                          data->total_s > 0 ? 100 * it->total_s / data->total_s : 0, work,
                          tiling, fusion, _bpw_plot_bottleneck_name (it->bottleneck),
                          it->lineage, more);
}

static char *
bpw_assignment_plot_describe (BpwPlot          *plot,
                              const BpwPlotHit *hit)
{
  BpwAssignmentPlot *self = BPW_ASSIGNMENT_PLOT (plot);

  if (hit->kind == BPW_PLOT_HIT_ITEM && hit->index >= 0 &&
      (guint) hit->index < self->data->items->len)
    return describe_item (self, item (self->data, hit->index), hit->count);
  if (hit->kind == BPW_PLOT_HIT_LEGEND && hit->index >= 0)
    return g_strdup (self->scene->legend.entries[hit->index].label);
  return NULL;
}

static char *
bpw_assignment_plot_to_csv (BpwPlot *plot)
{
  BpwAssignmentPlot *self = BPW_ASSIGNMENT_PLOT (plot);
  const BpwAssignmentData *data = self->data;
  static const char * const kinds[] = { "matrix", "vector", "link" };
  GString *out = g_string_new ("stage,lane,lane_kind,phase,layer_type,name,kind,dtype,"
                               "lineage_id,merged_ops,start_s,total_s,time_s,flops,bytes,"
                               "tile_m,tile_n,fusion,fusion_group,bottleneck\n");

  for (guint i = 0; i < data->items->len; i++)
    {
      const BpwAssignmentItem *it = item (data, i);
      const BpwAssignmentLane *lane = &g_array_index (data->lanes, BpwAssignmentLane, it->lane);

      g_string_append_printf (out, "%" G_GINT64_FORMAT ",", data->stage);
      _bpw_csv_text (out, lane->name);
      _bpw_csv_text (out, kinds[MIN (lane->kind, 2u)]);
      _bpw_csv_text (out, bpw_phase_to_string (it->phase));
      _bpw_csv_text (out, bpw_layer_type_to_string (it->layer_type));
      _bpw_csv_text (out, it->name);
      _bpw_csv_text (out, it->kind);
      _bpw_csv_text (out, it->dtype);
      g_string_append_printf (out, "%u,%u,", it->lineage, it->merged);
      _bpw_csv_number (out, it->start_s);
      _bpw_csv_number (out, it->total_s);
      _bpw_csv_number (out, it->time_s);
      _bpw_csv_number (out, it->flops);
      _bpw_csv_number (out, it->bytes);
      _bpw_csv_number (out, it->tile_m);
      _bpw_csv_number (out, it->tile_n);
      _bpw_csv_text (out, it->fusion);
      g_string_append_printf (out, "%u,", it->fusion_group);
      _bpw_csv_text (out, bpw_bottleneck_to_string (it->bottleneck));
      _bpw_csv_end (out);
    }
  return g_string_free (out, FALSE);
}

static gboolean
bpw_assignment_plot_get_bounds (BpwPlot         *plot,
                                BpwPlotViewport *bounds)
{
  BpwAssignmentPlot *self = BPW_ASSIGNMENT_PLOT (plot);

  *bounds = (BpwPlotViewport) { 0, self->data->total_s, 0, self->data->lanes->len };
  return self->data->items->len > 0 && self->data->total_s > 0;
}

static gpointer
new_empty_data (void)
{
  return bpw_assignment_data_new (NULL, NULL);
}

static void
bpw_assignment_plot_class_init (BpwAssignmentPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  BpwPlotClass *plot_class = BPW_PLOT_CLASS (klass);

  object_class->finalize = bpw_assignment_plot_finalize;
  plot_class->get_bounds = bpw_assignment_plot_get_bounds;
  plot_class->layout = _bpw_assignment_plot_layout;
  plot_class->draw = bpw_assignment_plot_draw;
  plot_class->hit_test = bpw_assignment_plot_hit_test;
  plot_class->describe = bpw_assignment_plot_describe;
  plot_class->to_csv = bpw_assignment_plot_to_csv;
  _bpw_plot_class_set_data_type (plot_class, G_STRUCT_OFFSET (BpwAssignmentPlot, data),
                                 G_STRUCT_OFFSET (BpwAssignmentData, title), new_empty_data,
                                 (GDestroyNotify) bpw_assignment_data_free);
}

static void
bpw_assignment_plot_init (BpwAssignmentPlot *self)
{
  self->scene = _bpw_plot_get_scene (BPW_PLOT (self));
  self->marks = g_array_new (FALSE, FALSE, sizeof (BpwAssignmentMark));
  self->lane_first = g_array_new (FALSE, FALSE, sizeof (guint));
  self->lane_rects = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
  self->bands = g_array_new (FALSE, FALSE, sizeof (BpwAssignmentBand));
  self->labels = g_array_new (FALSE, FALSE, sizeof (BpwPlotLabel));
  self->separators = g_array_new (FALSE, FALSE, sizeof (double));
}

BpwAssignmentPlot *
bpw_assignment_plot_new (BpwAssignmentData *data)
{
  BpwAssignmentPlot *self = g_object_new (BPW_TYPE_ASSIGNMENT_PLOT, NULL);

  bpw_assignment_plot_set_data (self, data);
  return self;
}

void
bpw_assignment_plot_set_data (BpwAssignmentPlot *self,
                              BpwAssignmentData *data)
{
  g_return_if_fail (BPW_IS_ASSIGNMENT_PLOT (self));

  _bpw_plot_set_data (BPW_PLOT (self), data);
}

const BpwAssignmentData *
bpw_assignment_plot_get_data (BpwAssignmentPlot *self)
{
  g_return_val_if_fail (BPW_IS_ASSIGNMENT_PLOT (self), NULL);

  return self->data;
}

gboolean
bpw_assignment_plot_get_lane_rect (BpwAssignmentPlot *self,
                                   guint              lane,
                                   BpwPlotRect       *rect)
{
  g_return_val_if_fail (BPW_IS_ASSIGNMENT_PLOT (self), FALSE);

  if (lane >= self->lane_rects->len)
    return FALSE;
  *rect = g_array_index (self->lane_rects, BpwPlotRect, lane);
  return TRUE;
}

const BpwAssignmentMark *
bpw_assignment_plot_get_marks (BpwAssignmentPlot *self,
                               guint             *n_marks)
{
  g_return_val_if_fail (BPW_IS_ASSIGNMENT_PLOT (self), NULL);

  *n_marks = self->marks->len;
  return (const BpwAssignmentMark *) self->marks->data;
}
