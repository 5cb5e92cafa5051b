/* bpw-timeline-plot.c — the simulated step: lanes per rank × engine and link over time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The object, its options, hit-testing and the area selection; drawing, descriptions and
 * CSV are in bpw-timeline-plot-draw.c, the layout in bpw-timeline-plot-layout.c and
 * bpw-timeline-plot-tracks.c.
 */
#define G_LOG_DOMAIN "bpw-timeline-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-timeline-plot-private.h"

G_DEFINE_FINAL_TYPE (BpwTimelinePlot, bpw_timeline_plot, BPW_TYPE_PLOT)

static void
bpw_timeline_plot_finalize (GObject *object)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (object);

  g_clear_pointer (&self->tracks, g_array_unref);
  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->values, g_array_unref);
  g_clear_pointer (&self->flows, g_array_unref);
  g_clear_pointer (&self->labels, g_array_unref);
  g_clear_pointer (&self->group_rects, g_array_unref);
  g_clear_pointer (&self->successors, g_array_unref);
  g_clear_pointer (&self->col_time, g_array_unref);
  _bpw_timeline_plot_clear_caches (self);

  G_OBJECT_CLASS (bpw_timeline_plot_parent_class)->finalize (object);
}

/* ---- hit-testing and descriptions ---- */

static gboolean
bpw_timeline_plot_hit_test (BpwPlot    *plot,
                            double      x,
                            double      y,
                            BpwPlotHit *hit)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);

  if (_bpw_plot_rect_contains (&self->scene->area, x, y))
    for (guint t = 0; t < self->tracks->len; t++)
      {
        const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
        guint lo, hi;

        if (!tr->visible || !_bpw_plot_rect_contains (&tr->rect, x, y))
          continue;
        if (tr->kind != BPW_TIMELINE_TRACK_LANE)
          {
            gint c = (gint) floor (x) - self->col_first;

            if (c < 0 || (guint) c >= tr->n_marks ||
                !isfinite (g_array_index (self->values, double, tr->first_mark + c)))
              return FALSE;
            *hit = (BpwPlotHit) { .kind = BPW_PLOT_HIT_COUNTER, .index = (gint) t, .count = 1,
                                  .lineage = BPW_PLOT_NO_LINEAGE,
                                  .bounds = { floor (x), tr->rect.y, 1, tr->rect.height } };
            return TRUE;
          }
        /* Marks own disjoint, sorted runs of columns: the first whose run ends after the
         * pointer's column, or the one before (drawn a little into its neighbour's). */
        lo = tr->first_mark;
        hi = tr->first_mark + tr->n_marks;
        while (lo < hi)
          {
            guint mid = lo + (hi - lo) / 2;

            if (g_array_index (self->marks, BpwTimelineMark, mid).col1 <= floor (x))
              lo = mid + 1;
            else
              hi = mid;
          }
        for (guint step = 0; step < 2; step++)
          {
            const BpwTimelineMark *m;
            guint k = lo - step;

            if ((step == 1 && lo == tr->first_mark) || k >= tr->first_mark + tr->n_marks)
              continue;
            m = &g_array_index (self->marks, BpwTimelineMark, k);
            if (x < m->x0 || x > MAX (m->x1, m->x0 + 1))
              continue;
            *hit = (BpwPlotHit) {
              .kind = BPW_PLOT_HIT_ITEM, .index = (gint) m->event, .count = m->count,
              .lineage = self->data->events[m->event].lineage,
              .bounds = { m->x0, tr->rect.y, MAX (m->x1 - m->x0, 1.0), tr->rect.height },
            };
            return TRUE;
          }
        return FALSE;
      }
  return _bpw_plot_hit_legend (plot, x, y, hit);
}

static gboolean
bpw_timeline_plot_get_bounds (BpwPlot         *plot,
                              BpwPlotViewport *bounds)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);
  g_autoptr(GArray) tracks = g_array_new (FALSE, FALSE, sizeof (BpwTimelineTrack));
  double rows;

  /* Into a scratch array: the scene of the last layout stays as it was drawn. */
  rows = _bpw_timeline_plot_build_tracks (self, tracks);
  *bounds = (BpwPlotViewport) { 0, self->data->step_s, 0, MAX (rows, 1.0) };
  return self->data->n_events > 0 && self->data->step_s > 0;
}

static gpointer
new_empty_data (void)
{
  BpwTimelineData *data = bpw_timeline_data_new (NULL, 0);

  bpw_timeline_data_finish (data);
  return data;
}

static void
bpw_timeline_plot_data_changed (BpwPlot *plot)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);
  const BpwTimelineData *data = self->data;

  memset (self->present, 0, sizeof self->present);
  for (guint k = 0; k < BPW_TIMELINE_N_COLORINGS; k++)
    for (guint32 i = 0; i < data->n_events; i++)
      self->present[k] |= 1u << (data->key[k][i] % BPW_TIMELINE_MAX_KEYS);
  self->selected = BPW_TIMELINE_NONE;
  g_array_set_size (self->successors, 0);
  /* Memory tracks share one scale, set at layout a little above the largest peak. */
  self->memory_peak = 0;
  for (guint32 r = 0; data->memory != NULL && r < data->n_ranks; r++)
    self->memory_peak = MAX (self->memory_peak, data->memory[r].peak);
}

static void
bpw_timeline_plot_class_init (BpwTimelinePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  BpwPlotClass *plot_class = BPW_PLOT_CLASS (klass);

  object_class->finalize = bpw_timeline_plot_finalize;
  plot_class->get_bounds = bpw_timeline_plot_get_bounds;
  plot_class->layout = _bpw_timeline_plot_layout;
  plot_class->draw = _bpw_timeline_plot_draw;
  plot_class->hit_test = bpw_timeline_plot_hit_test;
  plot_class->describe = _bpw_timeline_plot_describe;
  plot_class->to_csv = _bpw_timeline_plot_to_csv;
  plot_class->data_changed = bpw_timeline_plot_data_changed;
  _bpw_plot_class_set_data_type (plot_class, G_STRUCT_OFFSET (BpwTimelinePlot, data),
                                 G_STRUCT_OFFSET (BpwTimelineData, title), new_empty_data,
                                 (GDestroyNotify) bpw_timeline_data_free);
}

static void
bpw_timeline_plot_init (BpwTimelinePlot *self)
{
  self->scene = _bpw_plot_get_scene (BPW_PLOT (self));
  self->tracks = g_array_new (FALSE, FALSE, sizeof (BpwTimelineTrack));
  self->marks = g_array_new (FALSE, FALSE, sizeof (BpwTimelineMark));
  self->values = g_array_new (FALSE, FALSE, sizeof (double));
  self->flows = g_array_new (FALSE, FALSE, sizeof (double));
  self->labels = g_array_new (FALSE, FALSE, sizeof (BpwTimelineLabel));
  self->group_rects = g_array_new (FALSE, FALSE, sizeof (BpwPlotRect));
  self->successors = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->col_time = g_array_new (FALSE, FALSE, sizeof (double));
  self->color_by = BPW_TIMELINE_COLOR_PHASE;
  self->show_memory = self->show_links = TRUE;
  self->selected = BPW_TIMELINE_NONE;
  self->window[0] = self->window[1] = NAN;
}

/* ---- API ---- */

BpwTimelinePlot *
bpw_timeline_plot_new (BpwTimelineData *data)
{
  BpwTimelinePlot *self = g_object_new (BPW_TYPE_TIMELINE_PLOT, NULL);

  bpw_timeline_plot_set_data (self, data);
  return self;
}

void
bpw_timeline_plot_set_data (BpwTimelinePlot *self,
                            BpwTimelineData *data)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));
  g_return_if_fail (data == NULL || data->builder == NULL);

  _bpw_plot_set_data (BPW_PLOT (self), data);
}

const BpwTimelineData *
bpw_timeline_plot_get_data (BpwTimelinePlot *self)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), NULL);

  return self->data;
}

void
bpw_timeline_plot_set_color_by (BpwTimelinePlot    *self,
                                BpwTimelineColorBy  color_by)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));
  g_return_if_fail (color_by < BPW_TIMELINE_N_COLORINGS);

  if (self->color_by == color_by)
    return;
  self->color_by = color_by;
  bpw_plot_changed (BPW_PLOT (self));
}

BpwTimelineColorBy
bpw_timeline_plot_get_color_by (BpwTimelinePlot *self)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), BPW_TIMELINE_COLOR_PHASE);

  return self->color_by;
}

void
bpw_timeline_plot_set_counters (BpwTimelinePlot *self,
                                gboolean         memory,
                                gboolean         links)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  if (self->show_memory == !!memory && self->show_links == !!links)
    return;
  self->show_memory = !!memory;
  self->show_links = !!links;
  bpw_plot_changed (BPW_PLOT (self));
}

void
bpw_timeline_plot_set_ranks (BpwTimelinePlot *self,
                             guint32          first,
                             guint32          n)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  if (self->rank_first == first && self->rank_count == n)
    return;
  self->rank_first = first;
  self->rank_count = n;
  bpw_plot_changed (BPW_PLOT (self));
}

void
bpw_timeline_plot_set_min_row_height (BpwTimelinePlot *self,
                                      double           px)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  px = isfinite (px) ? MAX (px, 0.0) : 0.0;
  if (self->min_row_h == px)
    return;
  self->min_row_h = px;
  bpw_plot_changed (BPW_PLOT (self));
}

void
bpw_timeline_plot_set_row_offset (BpwTimelinePlot *self,
                                  double           row)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  row = isfinite (row) ? MAX (floor (row), 0.0) : 0.0;
  if (self->row_offset == row)
    return;
  self->row_offset = row;
  bpw_plot_changed (BPW_PLOT (self));
}

void
bpw_timeline_plot_get_row_window (BpwTimelinePlot *self,
                                  double          *first,
                                  double          *shown,
                                  double          *total)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  if (first != NULL)
    *first = self->row_first;
  if (shown != NULL)
    *shown = self->row_shown;
  if (total != NULL)
    *total = self->rows;
}

void
bpw_timeline_plot_set_time_window (BpwTimelinePlot *self,
                                   double           t0,
                                   double           t1)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  if (!(t1 > t0))
    t0 = t1 = NAN;
  if ((self->window[0] == t0 && self->window[1] == t1) ||
      (isnan (t0) && isnan (self->window[0])))
    return;
  self->window[0] = t0;
  self->window[1] = t1;
  bpw_plot_changed (BPW_PLOT (self));
}

void
bpw_timeline_plot_set_selected (BpwTimelinePlot *self,
                                guint32          event)
{
  const BpwTimelineData *data;

  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  data = self->data;
  if (event >= data->n_events)
    event = BPW_TIMELINE_NONE;
  if (event == self->selected)
    return;
  self->selected = event;
  g_array_set_size (self->successors, 0);
  /* Successors are not indexed: one pass when the selection changes, none per frame. */
  for (guint32 i = 0; event != BPW_TIMELINE_NONE && i < data->n_events; i++)
    if (data->events[i].pred == event)
      g_array_append_val (self->successors, i);
  bpw_plot_changed (BPW_PLOT (self));
}

guint32
bpw_timeline_plot_get_selected (BpwTimelinePlot *self)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), BPW_TIMELINE_NONE);

  return self->selected;
}

gboolean
bpw_timeline_plot_select_lineage (BpwTimelinePlot *self,
                                  guint32          lineage)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), FALSE);

  for (guint32 i = 0; i < self->data->n_events; i++)
    if (self->data->events[i].lineage == lineage)
      {
        bpw_timeline_plot_set_selected (self, i);
        return TRUE;
      }
  return FALSE;
}

const BpwTimelineTrack *
bpw_timeline_plot_get_tracks (BpwTimelinePlot *self,
                              guint           *n_tracks)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), NULL);

  *n_tracks = self->tracks->len;
  return (const BpwTimelineTrack *) self->tracks->data;
}

const BpwTimelineMark *
bpw_timeline_plot_get_marks (BpwTimelinePlot *self,
                             guint           *n_marks)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), NULL);

  *n_marks = self->marks->len;
  return (const BpwTimelineMark *) self->marks->data;
}

const double *
bpw_timeline_plot_get_flows (BpwTimelinePlot *self,
                             guint           *n_flows)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), NULL);

  *n_flows = self->flows->len / 4;
  return (const double *) self->flows->data;
}

void
bpw_timeline_plot_get_time_range (BpwTimelinePlot *self,
                                  double          *t0,
                                  double          *t1)
{
  g_return_if_fail (BPW_IS_TIMELINE_PLOT (self));

  *t0 = self->t0;
  *t1 = self->t1;
}

BpwTimelineAggregate *
bpw_timeline_plot_aggregate_area (BpwTimelinePlot   *self,
                                  const BpwPlotRect *rect)
{
  g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (guint));
  double x0, x1;

  g_return_val_if_fail (BPW_IS_TIMELINE_PLOT (self), NULL);
  g_return_val_if_fail (rect != NULL, NULL);

  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      if (tr->visible && tr->kind == BPW_TIMELINE_TRACK_LANE &&
          _bpw_plot_rect_intersects (&tr->rect, rect))
        g_array_append_val (lanes, tr->lane);
    }
  if (lanes->len == 0)
    return NULL;
  x0 = MAX (rect->x, self->scene->area.x);
  x1 = MIN (rect->x + rect->width, self->scene->area.x + self->scene->area.width);
  return bpw_timeline_data_aggregate (self->data, bpw_scale_unmap (&self->scene->xscale, x0),
                                      bpw_scale_unmap (&self->scene->xscale, MAX (x1, x0)),
                                      (const guint *) lanes->data, lanes->len);
}
