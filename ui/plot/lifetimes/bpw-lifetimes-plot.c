/* bpw-lifetimes-plot.c — buffer lifetimes under the occupancy curve of one rank
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Drawing, hit-testing, descriptions and CSV; the layout is in
 * bpw-lifetimes-plot-layout.c.
 */
#define G_LOG_DOMAIN "bpw-lifetimes-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-plot-selection.h"
#include "bpw-lifetimes-plot-private.h"

G_DEFINE_FINAL_TYPE (BpwLifetimesPlot, bpw_lifetimes_plot, BPW_TYPE_PLOT)

/* Persistent state in cool colours (weights blue, gradients purple, optimizer state
 * brown), what the step allocates in warm ones (checkpoints orange, temporaries yellow,
 * communication pink), the KV cache green: Tableau 10 again. */
static const char * const category_colors[BPW_N_MEM_CATEGORIES] = {
  [BPW_MEM_WEIGHTS] = "#4e79a7",
  [BPW_MEM_GRADIENTS] = "#b07aa1",
  [BPW_MEM_OPTIMIZER] = "#9c755f",
  [BPW_MEM_CHECKPOINTS] = "#f28e2b",
  [BPW_MEM_TEMPORARIES] = "#edc948",
  [BPW_MEM_COMMUNICATION] = "#ff9da7",
  [BPW_MEM_KV_CACHE] = "#59a14f",
};

BpwPlotColor
_bpw_lifetimes_color (const BpwPlotStyle *st,
                      guint               category,
                      gboolean            light)
{
  BpwPlotColor c = st->muted, white = { 1, 1, 1, 1 };

  bpw_plot_color_parse (category_colors[MIN (category, BPW_N_MEM_CATEGORIES - 1)], &c);
  if (st->dark)
    c = bpw_plot_color_mix (&c, &white, 0.2);
  return light ? bpw_plot_color_mix (&c, &st->background, 0.6) : c;
}

gint
_bpw_lifetimes_column (BpwLifetimesPlot *self,
                       double            x)
{
  gint c = (gint) floor (x);

  if (c < self->col_first || c >= self->col_end ||
      (guint) (c - self->col_first) >= self->stack->len)
    return -1;
  return c - self->col_first;
}

static void
bpw_lifetimes_plot_finalize (GObject *object)
{
  BpwLifetimesPlot *self = BPW_LIFETIMES_PLOT (object);

  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->group_rects, g_array_unref);
  g_clear_pointer (&self->stack, g_array_unref);
  g_clear_pointer (&self->labels, g_array_unref);

  G_OBJECT_CLASS (bpw_lifetimes_plot_parent_class)->finalize (object);
}

static const double *
stack_at (BpwLifetimesPlot *self, guint column)
{
  return &g_array_index (self->stack, double, column * BPW_N_MEM_CATEGORIES);
}

static void
draw_curve (BpwLifetimesPlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  guint n = self->stack->len / BPW_N_MEM_CATEGORIES;

  for (guint k = 0; k < BPW_N_MEM_CATEGORIES; k++)
    {
      BpwPlotColor c = _bpw_lifetimes_color (st, k, FALSE);
      guint i = 0;

      cairo_new_path (cr);
      /* One polygon per run of columns with data: the band between the stack below this
       * category and its own top. */
      while (i < n)
        {
          guint j;

          while (i < n && !isfinite (stack_at (self, i)[k]))
            i++;
          if (i >= n)
            break;
          for (j = i; j < n && isfinite (stack_at (self, j)[k]); j++)
            {
              double x = self->col_first + (double) j;
              double y = bpw_scale_map (&self->scene->yscale, stack_at (self, j)[k]);

              if (j == i)
                cairo_move_to (cr, x, y);
              else
                cairo_line_to (cr, x, y);
              cairo_line_to (cr, x + 1, y);
            }
          for (guint r = j; r-- > i;)
            {
              double x = self->col_first + (double) r;
              double y = bpw_scale_map (&self->scene->yscale, k > 0 ? stack_at (self,
                                                                                r)[k - 1] : 0);

              cairo_line_to (cr, x + 1, y);
              cairo_line_to (cr, x, y);
            }
          cairo_close_path (cr);
          i = j;
        }
      bpw_plot_set_source (cr, &c);
      cairo_fill (cr);
    }
}

static void
draw_marks (BpwLifetimesPlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  const BpwLifetimesData *data = self->data;

  /* One path per colour and shade. */
  for (guint pass = 0; pass < 2 * BPW_N_MEM_CATEGORIES; pass++)
    {
      guint category = pass / 2;
      gboolean at_peak = pass % 2 == 1, any = FALSE;
      BpwPlotColor c;

      for (guint i = 0; i < self->marks->len; i++)
        {
          const BpwLifetimeMark *m = &g_array_index (self->marks, BpwLifetimeMark, i);
          const BpwLifetimeGroup *g = &g_array_index (data->groups, BpwLifetimeGroup, m->group);

          if (g->category != category || m->at_peak != at_peak)
            continue;
          cairo_rectangle (cr, m->x0, m->y, MAX (m->x1 - m->x0, 1.0), m->height);
          any = TRUE;
        }
      if (!any)
        continue;
      c = _bpw_lifetimes_color (st, category, !at_peak);
      bpw_plot_set_source (cr, &c);
      cairo_fill (cr);
    }
  /* The selected buffers: the others dimmed, these outlined. */
  for (int pass = 0; self->scene->selected != BPW_PLOT_NO_LINEAGE && pass < 2; pass++)
    {
      guint found = 0;

      cairo_new_path (cr);
      for (guint i = 0; i < self->marks->len; i++)
        {
          const BpwLifetimeMark *m = &g_array_index (self->marks, BpwLifetimeMark, i);

          if (g_array_index (data->buffers, BpwLifetimeBuffer,
                             m->buffer).lineage != self->scene->selected)
            continue;
          cairo_rectangle (cr, m->x0 - 1, m->y - 1, MAX (m->x1 - m->x0, 1.0) + 2,
                           m->height + 2);
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
draw_peak (BpwLifetimesPlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  double x = bpw_scale_map (&self->scene->xscale, self->data->peak_time);
  double dots[] = { 1.5, 2.5 }, dash[] = { 5, 3 };

  if (isfinite (self->capacity_y))
    {
      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_line_width (cr, st->line_width);
      bpw_plot_set_source (cr, &st->bottleneck[BPW_BOTTLENECK_CAPACITY]);
      cairo_move_to (cr, self->curve_area.x, self->capacity_y);
      cairo_line_to (cr, self->curve_area.x + self->curve_area.width, self->capacity_y);
      cairo_stroke (cr);
    }
  if (x < self->curve_area.x || x > self->curve_area.x + self->curve_area.width ||
      !(self->data->peak > 0))
    {
      cairo_set_dash (cr, NULL, 0, 0);
      return;
    }
  cairo_set_dash (cr, dots, 2, 0);
  cairo_set_line_width (cr, 1.0);
  bpw_plot_set_source (cr, &st->foreground);
  cairo_move_to (cr, x, self->curve_area.y);
  cairo_line_to (cr, x, self->scene->area.y + self->scene->area.height);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_arc (cr, x, bpw_scale_map (&self->scene->yscale, self->data->peak), 3, 0, 2 * G_PI);
  bpw_plot_set_source (cr, &st->background);
  cairo_fill_preserve (cr);
  bpw_plot_set_source (cr, &st->foreground);
  cairo_stroke (cr);
}

static void
bpw_lifetimes_plot_draw (BpwPlot *plot,
                         cairo_t *cr)
{
  BpwLifetimesPlot *self = BPW_LIFETIMES_PLOT (plot);
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);

  bpw_axis_layout_draw_grid (&self->scene->yaxis, cr, st, &self->curve_area);
  bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, &self->curve_area);
  for (guint i = 0; i < self->group_rects->len; i++)
    {
      const BpwPlotRect *r = &g_array_index (self->group_rects, BpwPlotRect, i);

      cairo_rectangle (cr, r->x, r->y, r->width, r->height);
      bpw_plot_set_source (cr, &st->band[i % 2]);
      cairo_fill (cr);
    }
  bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, &self->scene->area);

  cairo_save (cr);
  cairo_rectangle (cr, self->curve_area.x, self->curve_area.y, self->curve_area.width,
                   self->curve_area.height);
  cairo_rectangle (cr, self->scene->area.x, self->scene->area.y, self->scene->area.width,
                   self->scene->area.height);
  cairo_clip (cr);
  draw_curve (self, cr, st);
  draw_marks (self, cr, st);
  cairo_restore (cr);
  draw_peak (self, cr, st);

  bpw_axis_layout_draw (&self->scene->yaxis, cr, text, st, &self->curve_area);
  bpw_axis_layout_draw (&self->scene->xaxis, cr, text, st, &self->scene->area);
  _bpw_plot_draw_labels (text, cr, self->labels);
  _bpw_plot_draw_label (text, cr, &self->peak_label[0]);
  _bpw_plot_draw_label (text, cr, &self->peak_label[1]);
  _bpw_plot_draw_label (text, cr, &self->scene->title);
  bpw_plot_legend_draw (&self->scene->legend, cr, text, st);
}

static gboolean
bpw_lifetimes_plot_hit_test (BpwPlot    *plot,
                             double      x,
                             double      y,
                             BpwPlotHit *hit)
{
  BpwLifetimesPlot *self = BPW_LIFETIMES_PLOT (plot);

  if (_bpw_plot_rect_contains (&self->curve_area, x, y))
    {
      gint c = _bpw_lifetimes_column (self, x);

      if (c < 0 || !isfinite (stack_at (self, c)[BPW_N_MEM_CATEGORIES - 1]))
        return FALSE;
      *hit = (BpwPlotHit) { .kind = BPW_PLOT_HIT_COUNTER, .index = 0, .count = 1,
                            .lineage = BPW_PLOT_NO_LINEAGE,
                            .bounds = { floor (x), self->curve_area.y, 1,
                                        self->curve_area.height } };
      return TRUE;
    }
  if (_bpw_plot_rect_contains (&self->scene->area, x, y))
    return _bpw_plot_hit_targets (plot, x, y, hit);
  return _bpw_plot_hit_legend (plot, x, y, hit);
}

static char *
describe_buffer (BpwLifetimesPlot *self, guint32 i, guint count)
{
  const BpwLifetimesData *data = self->data;
  const BpwLifetimeBuffer *b = &g_array_index (data->buffers, BpwLifetimeBuffer, i);
  char bytes[BPW_SI_LABEL_MAX], a[BPW_SI_LABEL_MAX], f[BPW_SI_LABEL_MAX], life[BPW_SI_LABEL_MAX];
  g_autofree char *who = NULL;
  g_autofree char *more = count > 1 ? g_strdup_printf (_("\n%u buffers merged into this mark at "
                                                       "this zoom; this is the largest"), count)
                                    : g_strdup ("");

  bpw_plot_format_bytes (BPW_PLOT (self), bytes, sizeof bytes, b->bytes);
  bpw_si_format (a, sizeof a, b->allocated, "s", 4);
  bpw_si_format (f, sizeof f, b->freed, "s", 4);
  bpw_si_format (life, sizeof life, b->freed - b->allocated, "s", 3);
  if (b->persistent)
    return g_strdup_printf (_("%s — %s, %s per device for the whole step%s"),
                            bpw_lifetimes_data_name (data, b->name),
                            b->level == BPW_LIFETIME_HOST ? _("host memory") : _("device memory"),
                            bytes, more);
  who = b->micro_batch >= 0 ? g_strdup_printf (_(", micro-batch %d"), b->micro_batch)
                            : g_strdup ("");
  return g_strdup_printf (_("%s — %s%s\n%s per device, allocated at %s by %s, freed at %s "
                          "(lives %s)\n%s; lineage id %u%s"),
                          bpw_lifetimes_data_name (data, b->name),
                          bpw_lifetime_category_name (b->category), who, bytes, a,
                          bpw_lifetimes_data_name (data, b->op), f, life,
                          b->at_peak ? _("Live at the peak") : _("Not live at the peak"), b->lineage,
                          more);
}

static char *
describe_curve (BpwLifetimesPlot *self, const BpwPlotHit *hit)
{
  gint c = _bpw_lifetimes_column (self, hit->bounds.x + 0.5);
  const double *s;
  GString *out;
  char a[BPW_SI_LABEL_MAX], b[BPW_SI_LABEL_MAX], total[BPW_SI_LABEL_MAX];

  if (c < 0)
    return NULL;
  s = stack_at (self, c);
  bpw_si_format (a, sizeof a, bpw_scale_unmap (&self->scene->xscale, hit->bounds.x), "s", 4);
  bpw_si_format (b, sizeof b, bpw_scale_unmap (&self->scene->xscale, hit->bounds.x + 1), "s", 4);
  bpw_plot_format_bytes (BPW_PLOT (self), total, sizeof total, s[BPW_N_MEM_CATEGORIES - 1]);
  out = g_string_new (NULL);
  g_string_append_printf (out, _("Device memory %s at its highest between %s and %s"), total, a, b);
  for (guint k = 0; k < BPW_N_MEM_CATEGORIES; k++)
    {
      double v = s[k] - (k > 0 ? s[k - 1] : 0);
      char bytes[BPW_SI_LABEL_MAX];

      if (v < 1)
        continue;
      bpw_plot_format_bytes (BPW_PLOT (self), bytes, sizeof bytes, v);
      g_string_append_printf (out, "\n%s: %s", bpw_lifetime_category_name (k), bytes);
    }
  return g_string_free (out, FALSE);
}

static char *
bpw_lifetimes_plot_describe (BpwPlot          *plot,
                             const BpwPlotHit *hit)
{
  BpwLifetimesPlot *self = BPW_LIFETIMES_PLOT (plot);

  if (hit->kind == BPW_PLOT_HIT_ITEM && hit->index >= 0 &&
      (guint) hit->index < self->data->buffers->len)
    return describe_buffer (self, (guint32) hit->index, hit->count);
  if (hit->kind == BPW_PLOT_HIT_COUNTER)
    return describe_curve (self, hit);
  if (hit->kind == BPW_PLOT_HIT_LEGEND && hit->index >= 0)
    return g_strdup (self->scene->legend.entries[hit->index].label);
  return NULL;
}

/* The data behind the chart in the viewport's time range: every buffer (not the merged
 * marks), the occupancy curve's samples, the peak. */
static char *
bpw_lifetimes_plot_to_csv (BpwPlot *plot)
{
  BpwLifetimesPlot *self = BPW_LIFETIMES_PLOT (plot);
  const BpwLifetimesData *data = self->data;
  GString *out = g_string_new ("series,level,category,name,operation,micro_batch,track,"
                               "start_s,end_s,bytes,live_at_peak,lineage_id\n");

  for (guint i = 0; i < data->buffers->len; i++)
    {
      const BpwLifetimeBuffer *b = &g_array_index (data->buffers, BpwLifetimeBuffer, i);

      if (b->freed < self->t0 || b->allocated > self->t1)
        continue;
      _bpw_csv_text (out, b->persistent ? "persistent" : "buffer");
      _bpw_csv_text (out, b->level == BPW_LIFETIME_HOST ? "host" : "device");
      _bpw_csv_text (out, bpw_memory_category_to_string (b->category));
      _bpw_csv_text (out, bpw_lifetimes_data_name (data, b->name));
      _bpw_csv_text (out, bpw_lifetimes_data_name (data, b->op));
      g_string_append_printf (out, "%d,%u,", b->micro_batch, b->track);
      _bpw_csv_number (out, b->allocated);
      _bpw_csv_number (out, b->freed);
      _bpw_csv_number (out, b->bytes);
      g_string_append_printf (out, "%s,", b->at_peak ? "true" : "false");
      if (b->lineage != BPW_SIM_NONE)
        g_string_append_printf (out, "%u", b->lineage);
      _bpw_csv_end (out);
    }
  for (guint i = 0; i < data->curve->len; i++)
    {
      const BpwMemorySample *s = &g_array_index (data->curve, BpwMemorySample, i);
      double next = i + 1 < data->curve->len
                      ? g_array_index (data->curve, BpwMemorySample, i + 1).time : s->time;

      if (next < self->t0 || s->time > self->t1)
        continue;
      for (guint k = 0; k < BPW_N_MEM_CATEGORIES; k++)
        {
          g_string_append (out, "occupancy,device,");
          _bpw_csv_text (out, bpw_memory_category_to_string (k));
          g_string_append (out, ",,,,");
          _bpw_csv_number (out, s->time);
          _bpw_csv_number (out, next);
          _bpw_csv_number (out, s->bytes[k]);
          _bpw_csv_end (out);
        }
    }
  g_string_append (out, "capacity,device,,,,,,");
  _bpw_csv_number (out, 0);
  _bpw_csv_number (out, data->step_s);
  _bpw_csv_number (out, data->capacity);
  _bpw_csv_end (out);
  g_string_append (out, "peak,device,,,,,,");
  _bpw_csv_number (out, data->peak_time);
  _bpw_csv_number (out, data->peak_time);
  _bpw_csv_number (out, data->peak);
  _bpw_csv_end (out);
  return g_string_free (out, FALSE);
}

static gboolean
bpw_lifetimes_plot_get_bounds (BpwPlot         *plot,
                               BpwPlotViewport *bounds)
{
  BpwLifetimesPlot *self = BPW_LIFETIMES_PLOT (plot);

  *bounds = (BpwPlotViewport) { 0, self->data->step_s, 0, MAX (self->data->peak, 1.0) };
  return self->data->buffers->len > 0 && self->data->step_s > 0;
}

static gpointer
new_empty_data (void)
{
  BpwLifetimesData *data = bpw_lifetimes_data_new (NULL, 0, 0);

  bpw_lifetimes_data_finish (data);
  return data;
}

static void
bpw_lifetimes_plot_class_init (BpwLifetimesPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  BpwPlotClass *plot_class = BPW_PLOT_CLASS (klass);

  object_class->finalize = bpw_lifetimes_plot_finalize;
  plot_class->get_bounds = bpw_lifetimes_plot_get_bounds;
  plot_class->layout = _bpw_lifetimes_plot_layout;
  plot_class->draw = bpw_lifetimes_plot_draw;
  plot_class->hit_test = bpw_lifetimes_plot_hit_test;
  plot_class->describe = bpw_lifetimes_plot_describe;
  plot_class->to_csv = bpw_lifetimes_plot_to_csv;
  _bpw_plot_class_set_data_type (plot_class, G_STRUCT_OFFSET (BpwLifetimesPlot, data),
                                 G_STRUCT_OFFSET (BpwLifetimesData, title), new_empty_data,
                                 (GDestroyNotify) bpw_lifetimes_data_free);
}

static void
bpw_lifetimes_plot_init (BpwLifetimesPlot *self)
{
  self->scene = _bpw_plot_get_scene (BPW_PLOT (self));
  self->marks = g_array_new (FALSE, FALSE, sizeof (BpwLifetimeMark));
  self->group_rects = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
  self->stack = g_array_new (FALSE, FALSE, sizeof (double));
  self->labels = g_array_new (FALSE, FALSE, sizeof (BpwPlotLabel));
  self->capacity_y = NAN;
  self->window[0] = self->window[1] = NAN;
}

BpwLifetimesPlot *
bpw_lifetimes_plot_new (BpwLifetimesData *data)
{
  BpwLifetimesPlot *self = g_object_new (BPW_TYPE_LIFETIMES_PLOT, NULL);

  bpw_lifetimes_plot_set_data (self, data);
  return self;
}

void
bpw_lifetimes_plot_set_data (BpwLifetimesPlot *self,
                             BpwLifetimesData *data)
{
  g_return_if_fail (BPW_IS_LIFETIMES_PLOT (self));

  _bpw_plot_set_data (BPW_PLOT (self), data);
}

const BpwLifetimesData *
bpw_lifetimes_plot_get_data (BpwLifetimesPlot *self)
{
  g_return_val_if_fail (BPW_IS_LIFETIMES_PLOT (self), NULL);

  return self->data;
}

void
bpw_lifetimes_plot_set_time_window (BpwLifetimesPlot *self,
                                    double            t0,
                                    double            t1)
{
  g_return_if_fail (BPW_IS_LIFETIMES_PLOT (self));

  if (!(t1 > t0))
    t0 = t1 = NAN;
  if ((self->window[0] == t0 && self->window[1] == t1) ||
      (isnan (t0) && isnan (self->window[0])))
    return;
  self->window[0] = t0;
  self->window[1] = t1;
  bpw_plot_changed (BPW_PLOT (self));
}

const BpwPlotRect *
bpw_lifetimes_plot_get_curve_area (BpwLifetimesPlot *self)
{
  g_return_val_if_fail (BPW_IS_LIFETIMES_PLOT (self), NULL);

  return &self->curve_area;
}

gboolean
bpw_lifetimes_plot_get_group_rect (BpwLifetimesPlot *self,
                                   guint             group,
                                   BpwPlotRect      *rect)
{
  g_return_val_if_fail (BPW_IS_LIFETIMES_PLOT (self), FALSE);

  if (group >= self->group_rects->len)
    return FALSE;
  *rect = g_array_index (self->group_rects, BpwPlotRect, group);
  return rect->height > 0;
}

const BpwLifetimeMark *
bpw_lifetimes_plot_get_marks (BpwLifetimesPlot *self,
                              guint            *n_marks)
{
  g_return_val_if_fail (BPW_IS_LIFETIMES_PLOT (self), NULL);

  *n_marks = self->marks->len;
  return (const BpwLifetimeMark *) self->marks->data;
}

guint32
bpw_lifetimes_plot_get_visible_buffers (BpwLifetimesPlot *self)
{
  g_return_val_if_fail (BPW_IS_LIFETIMES_PLOT (self), 0);

  return self->visible;
}
