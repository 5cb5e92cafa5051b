/* bpw-timeline-plot-draw.c — the timeline's colours, drawing, descriptions and CSV
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draw paints the scene of the last layout and allocates nothing of its own.
 */
#define G_LOG_DOMAIN "bpw-timeline-plot"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bpw-plot-selection.h"
#include "bpw-timeline-plot-private.h"

/* Phases after Tableau 10, as the layer types: forward blue, recompute teal, the two
 * backward passes orange and red, the optimizer purple. */
static const char * const phase_colors[BPW_N_PHASES] = {
  [BPW_PHASE_FORWARD] = "#4e79a7",
  [BPW_PHASE_RECOMPUTE] = "#76b7b2",
  [BPW_PHASE_BACKWARD_ACTIVATION] = "#f28e2b",
  [BPW_PHASE_BACKWARD_WEIGHT] = "#e15759",
  [BPW_PHASE_OPTIMIZER] = "#b07aa1",
};

const BpwPlotColor *
_bpw_timeline_key_color (BpwTimelinePlot    *self,
                         const BpwPlotStyle *st,
                         guint               key,
                         BpwPlotColor       *scratch)
{
  BpwPlotColor white = { 1, 1, 1, 1 };

  switch (self->color_by)
    {
    case BPW_TIMELINE_COLOR_BOTTLENECK:
      return &st->bottleneck[MIN (key, BPW_N_BOTTLENECKS - 1)];
    case BPW_TIMELINE_COLOR_LAYER_TYPE:
      return &st->layer_type[MIN (key, BPW_N_LAYER_TYPES - 1)];
    case BPW_TIMELINE_COLOR_PHASE:
    default:
      if (!bpw_plot_color_parse (phase_colors[MIN (key, BPW_N_PHASES - 1)], scratch))
        *scratch = st->muted;
      /* As the style does for its palettes: lighter on a dark background. */
      *scratch = bpw_plot_color_mix (scratch, &white, st->dark ? 0.2 : 0);
      return scratch;
    }
}

const char *
_bpw_timeline_key_name (BpwTimelineColorBy color_by,
                        guint              key)
{
  switch (color_by)
    {
    case BPW_TIMELINE_COLOR_BOTTLENECK:
      return _bpw_plot_bottleneck_name (key);
    case BPW_TIMELINE_COLOR_LAYER_TYPE:
      return _bpw_plot_layer_type_name (key);
    case BPW_TIMELINE_COLOR_PHASE:
    default:
      return _bpw_plot_phase_name (key);
    }
}

BpwPlotColor
_bpw_timeline_counter_color (const BpwPlotStyle   *st,
                             BpwTimelineTrackKind  kind)
{
  if (kind == BPW_TIMELINE_TRACK_MEMORY)
    return bpw_plot_color_mix (&st->foreground, &st->background, 0.8);
  return bpw_plot_color_mix (&st->bottleneck[BPW_BOTTLENECK_COMMUNICATION], &st->background,
                             0.25);
}

/* ---- draw ---- */

/* Labels through their cached layouts: no text is shaped again. */
static void
draw_labels (BpwTimelinePlot *self, cairo_t *cr, BpwPlotText *text)
{
  if (!text->enabled)
    return;
  for (guint i = 0; i < self->labels->len; i++)
    {
      const BpwTimelineLabel *l = &g_array_index (self->labels, BpwTimelineLabel, i);

      bpw_plot_set_source (cr, &l->color);
      cairo_move_to (cr, l->x, l->y);
      pango_cairo_show_layout (cr, l->text->layout);
    }
}

/* Counters as boxes, one per run of columns with one value: cairo composites boxes far
 * faster than it scan-converts a polygon of thousands of vertices. The top of each box is
 * drawn again as a hairline box, so that small changes read as a line. */
static void
draw_counter (BpwTimelinePlot *self, cairo_t *cr, const BpwPlotStyle *st,
              const BpwTimelineTrack *t)
{
  double scale = t->kind == BPW_TIMELINE_TRACK_MEMORY ? self->memory_scale : 1.0;
  double base = t->rect.y + t->rect.height;
  BpwPlotColor fill = _bpw_timeline_counter_color (st, t->kind);

  if (!(scale > 0))
    return;
  /* Boxes on whole columns need no antialiasing, and without it cairo fills them as
   * spans instead of compositing each. */
  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint pass = 0; pass < (t->kind == BPW_TIMELINE_TRACK_MEMORY ? 2u : 1u); pass++)
    {
      for (guint i = 0; i < t->n_marks;)
        {
          double v = g_array_index (self->values, double, t->first_mark + i);
          double y = isfinite (v) ? _bpw_timeline_counter_y (t, v, scale) : NAN;
          guint j = i + 1;

          /* Columns whose tops fall on the same quarter unit are one box. */
          while (j < t->n_marks &&
                 _bpw_timeline_counter_y (t, g_array_index (self->values, double,
                                                            t->first_mark + j), scale) == y)
            j++;
          if (isfinite (y) && y < base)
            {
              if (pass == 0)
                cairo_rectangle (cr, self->col_first + (double) i, y, j - i, base - y);
              else
                cairo_rectangle (cr, self->col_first + (double) i, y, j - i, 0.8);
            }
          i = j;
        }
      bpw_plot_set_source (cr, pass == 0 ? &fill : &st->muted);
      cairo_fill (cr);
    }
  cairo_restore (cr);
}

void
_bpw_timeline_plot_draw_bands (BpwTimelinePlot    *self,
                               cairo_t            *cr,
                               const BpwPlotStyle *st,
                               double              hole_margin)
{
  /* Without antialiasing: a band behind a rank's tracks needs no soft edge, and on
   * pixels cairo fills whole rows instead of blending every pixel of the band. */
  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_fill_rule (cr, CAIRO_FILL_RULE_EVEN_ODD);
  for (guint i = 0; i < self->group_rects->len; i++)
    {
      const BpwPlotRect *r = &g_array_index (self->group_rects, BpwPlotRect, i);

      cairo_rectangle (cr, r->x, r->y - 1, r->width, r->height + 2);
      /* Holes where the lane tracks of the area will be painted over anyway. */
      for (guint t = 0; hole_margin >= 0 && t < self->tracks->len; t++)
        {
          const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
          double y0 = MAX (tr->rect.y, self->scene->area.y) + hole_margin;
          double y1 = MIN (tr->rect.y + tr->rect.height,
                           self->scene->area.y + self->scene->area.height) -
                      hole_margin;

          if (tr->visible && tr->kind == BPW_TIMELINE_TRACK_LANE && y1 > y0 &&
              y0 >= r->y && y1 <= r->y + r->height)
            cairo_rectangle (cr, self->scene->area.x, y0, self->scene->area.width, y1 - y0);
        }
      bpw_plot_set_source (cr, &st->band[i % 2]);
      cairo_fill (cr);
    }
  cairo_restore (cr);
}

static void
draw_selection (BpwTimelinePlot *self, cairo_t *cr, const BpwPlotStyle *st)
{
  const BpwTimelineData *data = self->data;
  guint32 e = self->selected;
  gboolean in_view = FALSE;

  if (e >= data->n_events)
    return;
  /* Everything but the selected event dimmed, when it is in view; then its dependencies
   * and outline. */
  cairo_new_path (cr);
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
      const BpwPlotRect *a = &self->scene->area;
      double x0, x1;

      if (tr->kind != BPW_TIMELINE_TRACK_LANE || tr->lane != data->events[e].lane ||
          !tr->visible)
        continue;
      x0 = bpw_scale_map (&self->scene->xscale, data->start[e]);
      x1 = MAX (bpw_scale_map (&self->scene->xscale, data->end[e]), x0 + 2);
      if (x1 < a->x || x0 > a->x + a->width || tr->rect.y + tr->rect.height < a->y
          || tr->rect.y > a->y + a->height)
        continue;
      cairo_rectangle (cr, x0 - 1, tr->rect.y - 1, x1 - x0 + 2, tr->rect.height + 2);
      in_view = TRUE;
    }
  if (in_view)
    bpw_plot_selection_dim (cr, st, &self->scene->area);
  cairo_new_path (cr);
  cairo_set_line_width (cr, 1.2);
  bpw_plot_set_source (cr, &st->accent);
  for (guint i = 0; i + 3 < self->flows->len; i += 4)
    {
      const double *f = &g_array_index (self->flows, double, i);
      double dx = MAX (fabs (f[2] - f[0]) / 2, 10.0);

      cairo_move_to (cr, f[0], f[1]);
      cairo_curve_to (cr, f[0] + dx, f[1], f[2] - dx, f[3], f[2], f[3]);
      cairo_stroke (cr);
      /* The curve arrives horizontally: the head points along +x. */
      cairo_move_to (cr, f[2], f[3]);
      cairo_line_to (cr, f[2] - 6, f[3] - 3);
      cairo_line_to (cr, f[2] - 6, f[3] + 3);
      cairo_close_path (cr);
      cairo_fill (cr);
    }
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
      double x0, x1;

      if (tr->kind != BPW_TIMELINE_TRACK_LANE || tr->lane != data->events[e].lane ||
          !tr->visible)
        continue;
      x0 = bpw_scale_map (&self->scene->xscale, data->start[e]);
      x1 = MAX (bpw_scale_map (&self->scene->xscale, data->end[e]), x0 + 2);
      cairo_rectangle (cr, x0 - 1, tr->rect.y - 1, x1 - x0 + 2, tr->rect.height + 2);
      bpw_plot_selection_stroke (cr, st);
    }
}

void
_bpw_timeline_plot_draw (BpwPlot *plot,
                         cairo_t *cr)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  const BpwPlotRect *a = &self->scene->area;

  /* Bands, grid, marks and counter bars: pixels straight into an image where they can
   * be (which clips them to the area itself, from the clip outside it); else through
   * cairo. */
  if (!_bpw_timeline_plot_draw_pixels (self, cr, st))
    {
      _bpw_timeline_plot_draw_bands (self, cr, st, -1);
      bpw_axis_layout_draw_grid (&self->scene->xaxis, cr, st, a);
      cairo_save (cr);
      /* A clip on whole pixels, as the pixels path clips. */
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      cairo_rectangle (cr, a->x, a->y, a->width, a->height);
      cairo_clip (cr);
      _bpw_timeline_plot_draw_marks (self, cr, st);
      for (guint t = 0; t < self->tracks->len; t++)
        {
          const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

          if (tr->visible && tr->kind != BPW_TIMELINE_TRACK_LANE)
            draw_counter (self, cr, st, tr);
        }
      cairo_restore (cr);
    }
  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->width, a->height);
  cairo_clip (cr);
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      /* A counter's base line. */
      if (tr->visible && tr->kind != BPW_TIMELINE_TRACK_LANE)
        cairo_rectangle (cr, tr->rect.x, tr->rect.y + tr->rect.height - st->grid_width,
                         tr->rect.width, st->grid_width);
    }
  bpw_plot_set_source (cr, &st->muted);
  cairo_fill (cr);
  draw_selection (self, cr, st);
  cairo_restore (cr);

  bpw_axis_layout_draw (&self->scene->xaxis, cr, text, st, a);
  draw_labels (self, cr, text);
  _bpw_plot_draw_label (text, cr, &self->scene->title);
  bpw_plot_legend_draw (&self->scene->legend, cr, text, st);
}

static const char *
lane_text (const BpwTimelineData *data, guint lane, char *buf, gsize size)
{
  const BpwTimelineLane *l = &g_array_index (data->lanes, BpwTimelineLane, lane);

  if (l->stage == (gint64) l->rank)
    g_snprintf (buf, size, _("stage %u, %s"), l->rank, l->name);
  else
    g_snprintf (buf, size, _("rank %u (stage %" PRId64 "), %s"), l->rank, l->stage,
                l->name);
  return buf;
}

static char *
describe_event (BpwTimelinePlot *self, guint32 i, guint count)
{
  const BpwTimelineData *data = self->data;
  const BpwTimelineEvent *e = &data->events[i];
  char start[BPW_SI_LABEL_MAX], dur[BPW_SI_LABEL_MAX], flops[BPW_SI_LABEL_MAX];
  char bytes[BPW_SI_LABEL_MAX], lane[96], pred_lane[96];
  g_autofree char *mb = e->micro_batch >= 0 ? g_strdup_printf (_(", micro-batch %d"),
                                                               e->micro_batch)
                                            : g_strdup (_(", once per step"));
  g_autofree char *work = NULL;
  g_autofree char *pred = NULL;
  g_autofree char *more = NULL;

  bpw_si_format (start, sizeof start, data->start[i], "s", 4);
  bpw_si_format (dur, sizeof dur, data->end[i] - data->start[i], "s", 3);
  bpw_si_format (flops, sizeof flops, e->flops, "FLOP", 3);
  bpw_plot_format_bytes (BPW_PLOT (self), bytes, sizeof bytes, e->bytes);
  work = e->transfer ? g_strdup_printf (_("%s on the wire"), bytes)
                     : g_strdup_printf (_("%s, %s of device traffic"), flops, bytes);
  if (e->pred < data->n_events)
    pred = g_strdup_printf (_("\nStarted by the end of %s (%s)"),
                            bpw_timeline_data_name (data, data->events[e->pred].name),
                            lane_text (data, data->events[e->pred].lane, pred_lane,
                                       sizeof pred_lane));
  more = count > 1 ? g_strdup_printf (_("\n%u events merged into this mark at this zoom; this is "
                                      "the longest"), count)
                   : g_strdup ("");
  return g_strdup_printf (_("%s — %s, %s\n%s%s\nStarts at %s, lasts %s\n%s\nBottleneck: %s; "
                          "layer type %s; lineage id %u%s%s"),
                          bpw_timeline_data_name (data, e->name),
                          _bpw_plot_phase_name (data->key[BPW_TIMELINE_COLOR_PHASE][i]),
                          bpw_timeline_data_name (data, e->kind),
                          lane_text (data, e->lane, lane, sizeof lane), mb, start, dur, work,
                          _bpw_plot_bottleneck_name (data->key[BPW_TIMELINE_COLOR_BOTTLENECK][i]),
                          _bpw_plot_layer_type_name (data->key[BPW_TIMELINE_COLOR_LAYER_TYPE][i]),
                          e->lineage, pred != NULL ? pred : "", more);
}

static char *
describe_counter (BpwTimelinePlot *self, const BpwPlotHit *hit)
{
  const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, hit->index);
  gint c = (gint) hit->bounds.x - self->col_first;
  double v = g_array_index (self->values, double, tr->first_mark + c);
  double ta = bpw_scale_unmap (&self->scene->xscale, hit->bounds.x);
  double tb = bpw_scale_unmap (&self->scene->xscale, hit->bounds.x + 1);
  char a[BPW_SI_LABEL_MAX], b[BPW_SI_LABEL_MAX], value[BPW_SI_LABEL_MAX], cap[BPW_SI_LABEL_MAX];

  bpw_si_format (a, sizeof a, ta, "s", 4);
  bpw_si_format (b, sizeof b, tb, "s", 4);
  if (tr->kind == BPW_TIMELINE_TRACK_MEMORY)
    {
      bpw_plot_format_bytes (BPW_PLOT (self), value, sizeof value, v);
      bpw_plot_format_bytes (BPW_PLOT (self), cap, sizeof cap, self->data->capacity);
      return g_strdup_printf (_("Device memory of stage %u: at most %s of %s between %s and %s"),
                              tr->rank, value, cap, a, b);
    }
  return g_strdup_printf (_("%s links of stage %u busy %.1f%% of the time between %s and %s"),
                          self->data->tier_names[tr->tier], tr->rank, 100 * v, a, b);
}

char *
_bpw_timeline_plot_describe (BpwPlot          *plot,
                             const BpwPlotHit *hit)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);

  if (hit->kind == BPW_PLOT_HIT_ITEM && hit->index >= 0 &&
      (guint32) hit->index < self->data->n_events)
    return describe_event (self, (guint32) hit->index, hit->count);
  if (hit->kind == BPW_PLOT_HIT_COUNTER && hit->index >= 0 &&
      (guint) hit->index < self->tracks->len)
    return describe_counter (self, hit);
  if (hit->kind == BPW_PLOT_HIT_LEGEND && hit->index >= 0)
    return g_strdup (self->scene->legend.entries[hit->index].label);
  return NULL;
}

/* ---- CSV: what is plotted, mark by mark ---- */

char *
_bpw_timeline_plot_to_csv (BpwPlot *plot)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);
  const BpwTimelineData *data = self->data;
  static const char * const colorings[] = { "phase", "bottleneck", "layer_type" };
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "series,rank,stage,lane,start_s,end_s,events,operation,kind,"
                          "phase,bottleneck,layer_type,lineage_id,color_%s,value\n",
                          colorings[self->color_by]);
  for (guint i = 0; i < self->marks->len; i++)
    {
      const BpwTimelineMark *m = &g_array_index (self->marks, BpwTimelineMark, i);
      const BpwTimelineTrack *t = &g_array_index (self->tracks, BpwTimelineTrack, m->track);
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, t->lane);
      const BpwTimelineEvent *e = &data->events[m->event];

      _bpw_csv_text (out, m->count > 1 ? "merged" : "event");
      g_string_append_printf (out, "%u,%" G_GINT64_FORMAT ",", lane->rank, lane->stage);
      _bpw_csv_text (out, lane->name);
      _bpw_csv_number (out, m->t0);
      _bpw_csv_number (out, m->t1);
      g_string_append_printf (out, "%u,", m->count);
      _bpw_csv_text (out, bpw_timeline_data_name (data, e->name));
      _bpw_csv_text (out, bpw_timeline_data_name (data, e->kind));
      _bpw_csv_text (out, bpw_phase_to_string (data->key[BPW_TIMELINE_COLOR_PHASE][m->event]));
      _bpw_csv_text (out, bpw_bottleneck_to_string (
                            data->key[BPW_TIMELINE_COLOR_BOTTLENECK][m->event]));
      _bpw_csv_text (out, bpw_layer_type_to_string (
                            data->key[BPW_TIMELINE_COLOR_LAYER_TYPE][m->event]));
      g_string_append_printf (out, "%u,", e->lineage);
      _bpw_csv_text (out, _bpw_timeline_key_name (self->color_by, m->key));
      _bpw_csv_end (out);
    }
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      if (!tr->visible || tr->kind == BPW_TIMELINE_TRACK_LANE)
        continue;
      for (guint i = 0; i < tr->n_marks; i++)
        {
          double v = g_array_index (self->values, double, tr->first_mark + i);
          double c = self->col_first + (double) i;

          if (!isfinite (v))
            continue;
          _bpw_csv_text (out, tr->kind == BPW_TIMELINE_TRACK_MEMORY ? "memory_bytes_max"
                                                                    : "link_busy_fraction");
          g_string_append_printf (out, "%u,%u,", tr->rank, tr->rank);
          _bpw_csv_text (out, tr->kind == BPW_TIMELINE_TRACK_MEMORY ? "memory"
                                                                    : data->tier_names[tr->tier]);
          _bpw_csv_number (out, MAX (bpw_scale_unmap (&self->scene->xscale, c), self->t0));
          _bpw_csv_number (out, MIN (bpw_scale_unmap (&self->scene->xscale, c + 1), self->t1));
          g_string_append (out, ",,,,,,,,");
          _bpw_csv_number (out, v);
          _bpw_csv_end (out);
        }
    }
  return g_string_free (out, FALSE);
}

