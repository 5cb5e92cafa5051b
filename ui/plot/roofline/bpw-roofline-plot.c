/* bpw-roofline-plot.c — operations on the roofline of their blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawing, hit-testing, descriptions and CSV; the layout is in bpw-roofline-plot-layout.c.
 */
#define G_LOG_DOMAIN "bpw-roofline-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "bpw-plot-selection.h"
#include "bpw-roofline-plot-private.h"

/* Pointer tolerance around small dots and thin lines, in user units. */

G_DEFINE_FINAL_TYPE (BpwRooflinePlot, bpw_roofline_plot, BPW_TYPE_PLOT)

static void
bpw_roofline_plot_finalize (GObject *object)
{
  BpwRooflinePlot *self = BPW_ROOFLINE_PLOT (object);

  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->segments, g_array_unref);
  g_clear_pointer (&self->ridges, g_array_unref);
  g_clear_pointer (&self->leaders, g_array_unref);
  g_clear_pointer (&self->labels, g_array_unref);

  G_OBJECT_CLASS (bpw_roofline_plot_parent_class)->finalize (object);
}

static void
draw_segments (BpwRooflinePlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  static const double dashed[] = { 5.0, 3.0 };
  static const double dotted[] = { 1.5, 2.5 };

  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  for (guint i = 0; i < self->segments->len; i++)
    {
      const BpwRooflineSegment *s = &g_array_index (self->segments, BpwRooflineSegment, i);
      const BpwRooflineCeiling *c = ceiling (self->data, s->ceiling);
      gboolean strong = c->primary && !c->calibrated && !c->baseline;

      cairo_move_to (cr, s->x0, s->y0);
      cairo_line_to (cr, s->x1, s->y1);
      cairo_set_line_width (cr, strong ? st->line_width * 1.4 : st->line_width);
      if (c->calibrated)
        cairo_set_dash (cr, dashed, G_N_ELEMENTS (dashed), 0);
      else if (c->baseline)
        cairo_set_dash (cr, dotted, G_N_ELEMENTS (dotted), 0);
      else
        cairo_set_dash (cr, NULL, 0, 0);
      bpw_plot_set_source (cr, c->baseline || (!c->primary && !c->host) ? &st->muted
                                                                          : &st->ceiling);
      cairo_stroke (cr);
    }
  cairo_set_dash (cr, dotted, G_N_ELEMENTS (dotted), 0);
  cairo_set_line_width (cr, st->line_width * 0.8);
  bpw_plot_set_source (cr, &st->muted);
  for (guint i = 0; i < self->ridges->len; i++)
    {
      const BpwRooflineRidgeMark *r = &g_array_index (self->ridges, BpwRooflineRidgeMark, i);

      cairo_move_to (cr, r->x, r->y + RIDGE_RADIUS);
      cairo_line_to (cr, r->x, r->bottom);
    }
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_width (cr, st->line_width);
  for (guint i = 0; i < self->ridges->len; i++)
    {
      const BpwRooflineRidgeMark *r = &g_array_index (self->ridges, BpwRooflineRidgeMark, i);

      cairo_new_sub_path (cr);
      cairo_arc (cr, r->x, r->y, RIDGE_RADIUS, 0, 2 * G_PI);
      bpw_plot_set_source (cr, &st->plot_background);
      cairo_fill_preserve (cr);
      bpw_plot_set_source (cr, &st->ceiling);
      cairo_stroke (cr);
    }
}

static void
draw_marks (BpwRooflinePlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  BpwPlotColor black = { 0, 0, 0, 1 };

  for (guint i = 0; i < self->marks->len; i++)
    {
      const BpwRooflineMark *m = &g_array_index (self->marks, BpwRooflineMark, i);
      const BpwRooflinePoint *p = &g_array_index (self->data->points, BpwRooflinePoint, m->point);
      const BpwPlotColor *color = &st->layer_type[MIN (p->layer_type, BPW_N_LAYER_TYPES - 1)];
      BpwPlotColor edge = bpw_plot_color_mix (color, &black, 0.35);

      cairo_new_sub_path (cr);
      if (m->measured)
        /* The same area as a dot of that radius, so sizes compare. */
        bpw_plot_diamond_path (cr, m->x, m->y, m->radius * 1.25);
      else
        cairo_arc (cr, m->x, m->y, m->radius, 0, 2 * G_PI);
      if (m->baseline)
        {
          cairo_set_line_width (cr, 1.3);
          bpw_plot_set_source (cr, color);
          cairo_stroke (cr);
          continue;
        }
      cairo_set_source_rgba (cr, color->r, color->g, color->b, 0.85);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, 0.6);
      bpw_plot_set_source (cr, &edge);
      cairo_stroke (cr);
    }
  /* The selected operation last: the other dots dimmed, its ring on top of them. */
  for (int pass = 0; self->scene->selected != BPW_PLOT_NO_LINEAGE && pass < 2; pass++)
    {
      guint found = 0;

      cairo_new_path (cr);
      for (guint i = 0; i < self->marks->len; i++)
        {
          const BpwRooflineMark *m = &g_array_index (self->marks, BpwRooflineMark, i);

          if (m->baseline
              || g_array_index (self->data->points, BpwRooflinePoint, m->point).lineage
                 != self->scene->selected)
            continue;
          cairo_new_sub_path (cr);
          cairo_arc (cr, m->x, m->y, m->radius + (pass == 0 ? 1.0 : 3.5), 0, 2 * G_PI);
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
bpw_roofline_plot_draw (BpwPlot *plot,
                        cairo_t *cr)
{
  BpwRooflinePlot *self = BPW_ROOFLINE_PLOT (plot);
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  const BpwPlotRect *a = &self->scene->area;

  bpw_plot_set_source (cr, &st->plot_background);
  cairo_rectangle (cr, a->x, a->y, a->width, a->height);
  cairo_fill (cr);
  bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, a);
  bpw_axis_layout_draw_grid (&self->scene->yaxis, cr, st, a);

  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->width, a->height);
  cairo_clip (cr);
  draw_segments (self, cr, st);
  draw_marks (self, cr, st);
  cairo_set_line_width (cr, 0.6);
  bpw_plot_set_source (cr, &st->muted);
  for (guint i = 0; i < self->leaders->len; i++)
    {
      const BpwPlotQuad *l = &g_array_index (self->leaders, BpwPlotQuad, i);

      cairo_move_to (cr, l->x[0], l->y[0]);
      cairo_line_to (cr, l->x[1], l->y[1]);
    }
  cairo_stroke (cr);
  cairo_restore (cr);

  bpw_axis_layout_draw (&self->scene->xaxis, cr, text, st, a);
  bpw_axis_layout_draw (&self->scene->yaxis, cr, text, st, a);
  _bpw_plot_draw_labels (text, cr, self->labels);
  _bpw_plot_draw_label (text, cr, &self->scene->title);
  bpw_plot_legend_draw (&self->scene->legend, cr, text, st);
}

static double
segment_distance (const BpwRooflineSegment *s, double x, double y)
{
  double dx = s->x1 - s->x0, dy = s->y1 - s->y0, len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? CLAMP (((x - s->x0) * dx + (y - s->y0) * dy) / len2, 0, 1) : 0;

  return hypot (x - (s->x0 + t * dx), y - (s->y0 + t * dy));
}

static gboolean
bpw_roofline_plot_hit_test (BpwPlot    *plot,
                            double      x,
                            double      y,
                            BpwPlotHit *hit)
{
  BpwRooflinePlot *self = BPW_ROOFLINE_PLOT (plot);

  if (_bpw_plot_rect_contains (&self->scene->area, x, y))
    {
      /* The dots before the ceilings under them. */
      if (_bpw_plot_hit_targets (plot, x, y, hit))
        return TRUE;
      for (guint i = 0; i < self->segments->len; i++)
        {
          const BpwRooflineSegment *s = &g_array_index (self->segments, BpwRooflineSegment, i);

          if (segment_distance (s, x, y) > HIT_SLOP)
            continue;
          *hit = (BpwPlotHit) {
            .kind = BPW_PLOT_HIT_CEILING, .index = (gint) s->ceiling, .count = 1,
            .lineage = BPW_PLOT_NO_LINEAGE,
            .bounds = { MIN (s->x0, s->x1), MIN (s->y0, s->y1), fabs (s->x1 - s->x0),
                        fabs (s->y1 - s->y0) },
          };
          return TRUE;
        }
      return FALSE;
    }
  return _bpw_plot_hit_legend (plot, x, y, hit);
}

static char *
describe_point (BpwRooflinePlot *self, const BpwRooflinePoint *p, guint count)
{
  char flops[BPW_SI_LABEL_MAX], bytes[BPW_SI_LABEL_MAX], attained[BPW_SI_LABEL_MAX];
  char time[BPW_SI_LABEL_MAX], total[BPW_SI_LABEL_MAX], intensity[BPW_SI_LABEL_MAX];
  g_autofree char *where = p->stage >= 0 ? g_strdup_printf (_("stage %" PRId64), p->stage)
                                         : g_strdup (_("several stages"));
  g_autofree char *more = count > 1 ? g_strdup_printf (_("\n%u dots drawn as one at this zoom"),
                                                       count)
                                    : g_strdup ("");

  bpw_si_format (flops, sizeof flops, p->flops, "FLOP", 3);
  bpw_plot_format_bytes (BPW_PLOT (self), bytes, sizeof bytes, p->bytes);
  bpw_si_format (attained, sizeof attained, p->attained, "FLOP/s", 3);
  bpw_si_format (time, sizeof time, p->time_s, "s", 3);
  bpw_si_format (total, sizeof total, p->total_s, "s", 3);
  bpw_si_format (intensity, sizeof intensity, p->intensity, NULL, 3);
  return g_strdup_printf (_("%s%s — %s, %s\n%s on %s, %s\n%s and %s per execution: %s FLOP/B\n"
                          "%s in %s: %s attained\n%u operation%s (%s), %s per step on one rank, "
                          "%.1f%% of task time\nBottleneck: %s; lineage id %u%s"),
                          p->name,
                          p->baseline ? _(" (baseline)") : p->measured ? _(" (measured)") : "",
                          _bpw_plot_phase_name (p->phase), _bpw_plot_layer_type_name (p->layer_type), p->kind, p->engine, p->dtype,
                          flops, bytes, intensity, flops, time, attained, p->merged,
                          p->merged == 1 ? "" : C_("plural ending of “operation”", "s"), where, total, p->share * 100,
                          _bpw_plot_bottleneck_name (p->bottleneck), p->lineage, more);
}

static char *
bpw_roofline_plot_describe (BpwPlot          *plot,
                            const BpwPlotHit *hit)
{
  BpwRooflinePlot *self = BPW_ROOFLINE_PLOT (plot);
  const BpwRooflineData *data = self->data;

  if ((hit->kind == BPW_PLOT_HIT_ITEM || hit->kind == BPW_PLOT_HIT_BASELINE) &&
      hit->index >= 0 && (guint) hit->index < data->points->len)
    return describe_point (self, &g_array_index (data->points, BpwRooflinePoint, hit->index),
                           hit->count);
  if (hit->kind == BPW_PLOT_HIT_CEILING && hit->index >= 0 &&
      (guint) hit->index < data->ceilings->len)
    {
      const BpwRooflineCeiling *c = ceiling (data, hit->index);
      char value[BPW_SI_LABEL_MAX];

      bpw_si_format (value, sizeof value, c->value,
                     c->kind == BPW_CEILING_COMPUTE ? "FLOP/s" : "B/s", 4);
      if (c->calibrated)
        return g_strdup_printf (_("%s: %s\nDatasheet value × %.3f, the best efficiency of its "
                                "calibrated table"), c->label, value, c->efficiency);
      return g_strdup_printf (_("%s%s: %s (datasheet)"), c->baseline ? _("Baseline ") : "", c->label,
                              value);
    }
  if (hit->kind == BPW_PLOT_HIT_LEGEND && hit->index >= 0)
    return g_strdup (self->scene->legend.entries[hit->index].label);
  return NULL;
}

static char *
bpw_roofline_plot_to_csv (BpwPlot *plot)
{
  BpwRooflinePlot *self = BPW_ROOFLINE_PLOT (plot);
  const BpwRooflineData *data = self->data;
  GString *out = g_string_new ("series,label,stage,lineage_id,merged_ops,layer_type,phase,kind,"
                               "engine,dtype,flops,device_bytes,intensity_flop_per_byte,"
                               "attained_flop_per_s,time_s,total_s,time_share,bottleneck,"
                               "ceiling_flop_per_s,ceiling_bytes_per_s,efficiency\n");

  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);

      _bpw_csv_text (out, p->baseline ? "baseline" : p->measured ? "measured" : "operation");
      _bpw_csv_text (out, p->name);
      g_string_append_printf (out, "%" G_GINT64_FORMAT ",%u,%u,", p->stage, p->lineage, p->merged);
      _bpw_csv_text (out, bpw_layer_type_to_string (p->layer_type));
      _bpw_csv_text (out, bpw_phase_to_string (p->phase));
      _bpw_csv_text (out, p->kind);
      _bpw_csv_text (out, p->engine);
      _bpw_csv_text (out, p->dtype);
      _bpw_csv_number (out, p->flops);
      _bpw_csv_number (out, p->bytes);
      _bpw_csv_number (out, p->intensity);
      _bpw_csv_number (out, p->attained);
      _bpw_csv_number (out, p->time_s);
      _bpw_csv_number (out, p->total_s);
      _bpw_csv_number (out, p->share);
      _bpw_csv_text (out, bpw_bottleneck_to_string (p->bottleneck));
      g_string_append (out, ",,,");
      _bpw_csv_end (out);
    }
  for (guint i = 0; i < data->ceilings->len; i++)
    {
      const BpwRooflineCeiling *c = ceiling (data, i);

      _bpw_csv_text (out, c->baseline ? "baseline-ceiling" : c->calibrated ? "calibrated-ceiling"
                                                                            : "ceiling");
      _bpw_csv_text (out, c->label);
      g_string_append (out, ",,,,,,,,,,,,,,,,");
      _bpw_csv_number (out, c->kind == BPW_CEILING_COMPUTE ? c->value : NAN);
      _bpw_csv_number (out, c->kind == BPW_CEILING_MEMORY ? c->value : NAN);
      _bpw_csv_number (out, c->efficiency);
      _bpw_csv_end (out);
    }
  for (guint i = 0; i < data->ridges->len; i++)
    {
      const BpwRooflineRidge *r = &g_array_index (data->ridges, BpwRooflineRidge, i);
      g_autofree char *label = g_strdup_printf ("%s / %s", ceiling (data, r->compute)->label,
                                                ceiling (data, r->memory)->label);

      _bpw_csv_text (out, "ridge");
      _bpw_csv_text (out, label);
      g_string_append (out, ",,,,,,,,,,");
      _bpw_csv_number (out, r->intensity);
      _bpw_csv_number (out, r->value);
      g_string_append (out, ",,,,,,,");
      _bpw_csv_end (out);
    }
  return g_string_free (out, FALSE);
}

static gpointer
new_empty_data (void)
{
  return bpw_roofline_data_new (NULL, NULL);
}

static void
bpw_roofline_plot_class_init (BpwRooflinePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  BpwPlotClass *plot_class = BPW_PLOT_CLASS (klass);

  object_class->finalize = bpw_roofline_plot_finalize;
  plot_class->get_bounds = _bpw_roofline_plot_bounds;
  plot_class->layout = _bpw_roofline_plot_layout;
  plot_class->draw = bpw_roofline_plot_draw;
  plot_class->hit_test = bpw_roofline_plot_hit_test;
  plot_class->describe = bpw_roofline_plot_describe;
  plot_class->to_csv = bpw_roofline_plot_to_csv;
  _bpw_plot_class_set_data_type (plot_class, G_STRUCT_OFFSET (BpwRooflinePlot, data),
                                 G_STRUCT_OFFSET (BpwRooflineData, title), new_empty_data,
                                 (GDestroyNotify) bpw_roofline_data_free);
}

static void
bpw_roofline_plot_init (BpwRooflinePlot *self)
{
  self->scene = _bpw_plot_get_scene (BPW_PLOT (self));
  self->marks = g_array_new (FALSE, FALSE, sizeof (BpwRooflineMark));
  self->segments = g_array_new (FALSE, FALSE, sizeof (BpwRooflineSegment));
  self->ridges = g_array_new (FALSE, FALSE, sizeof (BpwRooflineRidgeMark));
  self->leaders = g_array_new (FALSE, FALSE, sizeof (BpwPlotQuad));
  self->labels = g_array_new (FALSE, FALSE, sizeof (BpwPlotLabel));
}

BpwRooflinePlot *
bpw_roofline_plot_new (BpwRooflineData *data)
{
  BpwRooflinePlot *self = g_object_new (BPW_TYPE_ROOFLINE_PLOT, NULL);

  bpw_roofline_plot_set_data (self, data);
  return self;
}

void
bpw_roofline_plot_set_data (BpwRooflinePlot *self,
                            BpwRooflineData *data)
{
  g_return_if_fail (BPW_IS_ROOFLINE_PLOT (self));

  _bpw_plot_set_data (BPW_PLOT (self), data);
}

const BpwRooflineData *
bpw_roofline_plot_get_data (BpwRooflinePlot *self)
{
  g_return_val_if_fail (BPW_IS_ROOFLINE_PLOT (self), NULL);

  return self->data;
}

void
bpw_roofline_plot_map (BpwRooflinePlot *self,
                       double           intensity,
                       double           flops,
                       double          *x,
                       double          *y)
{
  g_return_if_fail (BPW_IS_ROOFLINE_PLOT (self));

  *x = bpw_scale_map (&self->scene->xscale, intensity);
  *y = bpw_scale_map (&self->scene->yscale, flops);
}

const BpwRooflineMark *
bpw_roofline_plot_get_marks (BpwRooflinePlot *self,
                             guint           *n_marks)
{
  g_return_val_if_fail (BPW_IS_ROOFLINE_PLOT (self), NULL);

  *n_marks = self->marks->len;
  return (const BpwRooflineMark *) self->marks->data;
}

guint
bpw_roofline_plot_get_n_labels (BpwRooflinePlot *self)
{
  g_return_val_if_fail (BPW_IS_ROOFLINE_PLOT (self), 0);

  return self->labels->len;
}

const BpwPlotRect *
bpw_roofline_plot_get_label_bounds (BpwRooflinePlot *self,
                                    guint            i,
                                    const char     **text)
{
  const BpwPlotLabel *label;

  g_return_val_if_fail (BPW_IS_ROOFLINE_PLOT (self), NULL);
  g_return_val_if_fail (i < self->labels->len, NULL);

  label = &g_array_index (self->labels, BpwPlotLabel, i);
  if (text != NULL)
    *text = label->text;
  return &label->bounds;
}
