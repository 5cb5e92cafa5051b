/* bpw-timeline-plot-layout.c — the timeline's layout: data + viewport + size → scene
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure: reads the data, the options and the style, writes only the plot's scene arrays.
 * Work is bounded by what is visible: tracks outside the rows of the viewport are not
 * laid out, each lane's visible events are found by bisection on the running maximum of
 * ends, and the marks per lane never outnumber the columns (see BpwTimelineMark).
 */
#define G_LOG_DOMAIN "bpw-timeline-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-plot-palette.h"
#include "bpw-timeline-plot-private.h"

#define TRACK_GAP 0.12       /* of a row, between tracks */
#define MAX_EVENT_LABELS 400
#define TEXT_PAD 3.0

/* ---- marks ---- */

typedef struct
{
  BpwTimelineMark  m;
  double           weight[BPW_TIMELINE_MAX_KEYS];
  guint32          touched;  /* keys whose weight is set: cleared alone, not the array */
  double           longest;
  gboolean         active;
} Pending;

static void
pending_start (Pending *p, const BpwTimelineData *data, const guint8 *keys, guint32 i,
               double x0, double x1, gint c0, gint c1, guint track, gboolean dense)
{
  double dur = data->end[i] - data->start[i];

  for (guint k = 0; p->touched != 0; k++, p->touched >>= 1)
    if (p->touched & 1)
      p->weight[k] = 0;
  p->weight[keys[i] % BPW_TIMELINE_MAX_KEYS] = dur;
  p->touched = 1u << (keys[i] % BPW_TIMELINE_MAX_KEYS);
  p->longest = dur;
  p->active = TRUE;
  p->m = (BpwTimelineMark) { .t0 = data->start[i], .t1 = data->end[i], .x0 = x0, .x1 = x1,
                             .col0 = c0, .col1 = c1, .track = track, .event = i, .count = 1,
                             .key = keys[i], .dense = dense };
}

static void
pending_add (Pending *p, const BpwTimelineData *data, const guint8 *keys, guint32 i, double x1,
             gint c1)
{
  double dur = data->end[i] - data->start[i];

  p->weight[keys[i] % BPW_TIMELINE_MAX_KEYS] += dur;
  p->touched |= 1u << (keys[i] % BPW_TIMELINE_MAX_KEYS);
  p->m.count++;
  p->m.t1 = MAX (p->m.t1, data->end[i]);
  p->m.x1 = MAX (p->m.x1, x1);
  p->m.col1 = MAX (p->m.col1, c1);
  if (dur > p->longest)
    {
      p->longest = dur;
      p->m.event = i;
    }
}

static void
pending_flush (BpwTimelinePlot *self, Pending *p, guint first)
{
  const BpwTimelineData *data = self->data;
  BpwTimelineMark *prev;

  if (!p->active)
    return;
  p->active = FALSE;
  if (p->m.dense)
    {
      guint best = p->m.key % BPW_TIMELINE_MAX_KEYS;

      for (guint k = 0; k < BPW_TIMELINE_MAX_KEYS; k++)
        if ((p->touched & (1u << k)) && p->weight[k] > p->weight[best])
          best = k;
      p->m.key = (guint8) best;
      /* Dense marks fill their columns: at least one column shows every short event. */
      p->m.x0 = MAX ((double) p->m.col0, self->area.x);
      p->m.x1 = MIN ((double) p->m.col1, self->area.x + self->area.width);
      /* Neighbouring dense runs of one colour become one rectangle. */
      prev = self->marks->len > first ? &g_array_index (self->marks, BpwTimelineMark,
                                                        self->marks->len - 1) : NULL;
      if (prev != NULL && prev->dense && prev->key == p->m.key && prev->col1 == p->m.col0)
        {
          if (p->longest > data->end[prev->event] - data->start[prev->event])
            prev->event = p->m.event;
          prev->count += p->m.count;
          prev->t1 = MAX (prev->t1, p->m.t1);
          prev->x1 = p->m.x1;
          prev->col1 = p->m.col1;
          return;
        }
    }
  g_array_append_val (self->marks, p->m);
}

/* The marks of one lane: see BpwTimelineMark. */
static void
layout_lane (BpwTimelinePlot *self, guint track_index)
{
  const BpwTimelineData *data = self->data;
  BpwTimelineTrack *track = &g_array_index (self->tracks, BpwTimelineTrack, track_index);
  const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, track->lane);
  const guint8 *keys = data->key[self->color_by];
  double left = self->area.x, right = self->area.x + self->area.width;
  double a = self->xscale.r0, k = bpw_scale_density (&self->xscale), d0 = self->xscale.t0;
  guint32 end = lane->first + lane->n;
  guint first = self->marks->len;
  gint col_last = self->col_end - 1;
  Pending p = { .active = FALSE, .touched = 0 };

  for (guint32 i = bpw_timeline_data_lane_first_after (data, track->lane, self->t0);
       i < end && data->start[i] <= self->t1; i++)
    {
      double x0 = a + (data->start[i] - d0) * k, x1 = a + (data->end[i] - d0) * k;
      gboolean wide;
      gint c0, c1;

      if (data->end[i] < self->t0)
        continue;
      self->visible_events++;
      x0 = MAX (x0, left);
      x1 = MIN (MAX (x1, x0), right);
      /* x0, x1 ≥ the area's left, which is not negative: truncation is floor. */
      c0 = MIN ((gint) x0, col_last);
      c1 = (gint) x1;
      c1 = MIN (MAX (c1 + (x1 > c1), c0 + 1), self->col_end);
      wide = x1 - x0 >= 1.0;
      if (p.active && c0 < p.m.col1)
        {
          if (!wide)
            {
              pending_add (&p, data, keys, i, x1, c1);
              continue;
            }
          if (p.m.col0 < c0)
            {
              /* The wide event takes its first column over from the pending mark. */
              p.m.col1 = c0;
              pending_flush (self, &p, first);
            }
          else
            {
              /* The pending mark lies in this column only: the wide event absorbs it. */
              BpwTimelineMark absorbed = p.m;
              double longest = p.longest;

              pending_start (&p, data, keys, i, MIN (x0, absorbed.x0), x1, absorbed.col0, c1,
                             track_index, FALSE);
              p.m.t0 = MIN (p.m.t0, absorbed.t0);
              p.m.count += absorbed.count;
              if (longest > p.longest)
                p.m.event = absorbed.event, p.longest = longest;
              continue;
            }
        }
      else
        pending_flush (self, &p, first);
      pending_start (&p, data, keys, i, x0, x1, c0, c1, track_index, !wide);
    }
  pending_flush (self, &p, first);
  track->first_mark = first;
  track->n_marks = self->marks->len - first;
}

/* ---- text ---- */

static void
add_label (BpwTimelinePlot *self, BpwPlotText *text, BpwPlotFont font, const char *str,
           double x, double y, double ax, double ay, const BpwPlotColor *color)
{
  BpwPlotLabel label;

  _bpw_plot_label_init (&label, text, font, str, x, y, ax, ay, 0, color);
  g_array_append_val (self->labels, label);
}

static const char *
track_label (BpwTimelinePlot *self, const BpwTimelineTrack *t, char *buf, gsize size)
{
  const BpwTimelineData *data = self->data;

  switch (t->kind)
    {
    case BPW_TIMELINE_TRACK_LANE:
      return g_array_index (data->lanes, BpwTimelineLane, t->lane).name;
    case BPW_TIMELINE_TRACK_MEMORY:
      return "memory";
    case BPW_TIMELINE_TRACK_LINK:
    default:
      g_snprintf (buf, size, "%s busy", t->tier >= 0 && (guint) t->tier < data->n_tiers
                                          ? data->tier_names[t->tier] : "link");
      return buf;
    }
}

static const char *
group_label (BpwTimelinePlot *self, guint32 rank, char *buf, gsize size)
{
  const BpwTimelineData *data = self->data;
  gint64 stage = rank;

  for (guint l = 0; l < data->lanes->len; l++)
    if (g_array_index (data->lanes, BpwTimelineLane, l).rank == rank)
      {
        stage = g_array_index (data->lanes, BpwTimelineLane, l).stage;
        break;
      }
  if (stage == (gint64) rank)
    g_snprintf (buf, size, "stage %u", rank);
  else
    g_snprintf (buf, size, "rank %u · stage %" G_GINT64_FORMAT, rank, stage);
  return buf;
}

static void
label_marks (BpwTimelinePlot *self, BpwPlotText *text, const BpwPlotStyle *st)
{
  const BpwPlotColor dark = { 0.1, 0.1, 0.1, 1 }, light = { 1, 1, 1, 1 };
  guint placed = 0;
  double small_h;

  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &small_h);
  for (guint i = 0; i < self->marks->len && placed < MAX_EVENT_LABELS; i++)
    {
      const BpwTimelineMark *m = &g_array_index (self->marks, BpwTimelineMark, i);
      const BpwTimelineTrack *t = &g_array_index (self->tracks, BpwTimelineTrack, m->track);
      const char *name, *dot;
      BpwPlotColor scratch;
      const BpwPlotColor *fill;
      double w, x0, x1;

      x0 = MAX (m->x0, self->area.x);
      x1 = MIN (m->x1, self->area.x + self->area.width);
      if (m->dense || x1 - x0 < 24 || t->rect.height < small_h)
        continue;
      name = bpw_timeline_data_name (self->data, self->data->events[m->event].name);
      bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, name, 0, &w, NULL);
      dot = strchr (name, '.');
      if (w + 2 * TEXT_PAD > x1 - x0 && dot != NULL && dot[1] != '\0')
        {
          name = dot + 1;
          bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, name, 0, &w, NULL);
        }
      if (w + 2 * TEXT_PAD > x1 - x0)
        continue;
      fill = _bpw_timeline_key_color (self, st, m->key, &scratch);
      add_label (self, text, BPW_PLOT_FONT_SMALL, name, (x0 + x1) / 2,
                 t->rect.y + t->rect.height / 2, 0.5, 0.5,
                 bpw_plot_color_luminance (fill) > 0.4 ? &dark : &light);
      placed++;
    }
}

/* @reserve: the largest legend the layout may need, before flows and counts are known. */
static void
build_legend (BpwTimelinePlot *self, const BpwPlotStyle *st, guint32 events, guint marks,
              gboolean reserve)
{
  char a[32], b[32];
  static const char * const headings[BPW_TIMELINE_N_COLORINGS] = {
    "Phase", "Bottleneck", "Layer type",
  };
  g_autofree char *note = NULL;
  BpwPlotColor scratch, c;
  char cap[BPW_SI_LABEL_MAX];

  bpw_plot_legend_clear (&self->legend);
  bpw_plot_legend_add (&self->legend, BPW_LEGEND_HEADING, NULL, headings[self->color_by]);
  for (guint k = 0; k < BPW_TIMELINE_MAX_KEYS; k++)
    if (self->present[self->color_by] & (1u << k))
      bpw_plot_legend_add (&self->legend, BPW_LEGEND_BOX,
                           _bpw_timeline_key_color (self, st, k, &scratch),
                           _bpw_timeline_key_name (self->color_by, k));
  if (self->show_memory && self->data->memory != NULL)
    {
      g_autofree char *label = NULL;

      char height[BPW_SI_LABEL_MAX];

      bpw_si_format (cap, sizeof cap, self->data->capacity, "B", 3);
      bpw_si_format (height, sizeof height, self->memory_scale, "B", 3);
      label = g_strdup_printf ("Memory in use (track height %s; capacity %s)", height, cap);
      c = _bpw_timeline_counter_color (st, BPW_TIMELINE_TRACK_MEMORY);
      bpw_plot_legend_add (&self->legend, BPW_LEGEND_BOX, &c, label);
    }
  if (self->show_links && self->data->n_tiers > 0)
    {
      c = _bpw_timeline_counter_color (st, BPW_TIMELINE_TRACK_LINK);
      bpw_plot_legend_add (&self->legend, BPW_LEGEND_BOX, &c, "Link busy (0–100%)");
    }
  if (self->selected < self->data->n_events && (self->flows->len > 0 || reserve))
    bpw_plot_legend_add (&self->legend, BPW_LEGEND_LINE, &st->accent,
                         "Dependencies of the selection");
  note = g_strdup_printf ("One lane per queue of a pipeline stage's rank. Events narrower than "
                          "a column are merged, never dropped: %s events in view drawn as "
                          "%s marks.", bpw_plot_format_count (events, a, sizeof a),
                          bpw_plot_format_count (marks, b, sizeof b));
  bpw_plot_legend_add (&self->legend, BPW_LEGEND_NOTE, NULL, note);
}

/* ---- the whole ---- */

static void
reset_scene (BpwTimelinePlot *self)
{
  g_array_set_size (self->marks, 0);
  g_array_set_size (self->values, 0);
  g_array_set_size (self->flows, 0);
  g_array_set_size (self->labels, 0);
  g_array_set_size (self->group_rects, 0);
  self->visible_events = 0;
}

/* The largest occupancy in view, under the memory track's name when there is room. */
static void
memory_label (BpwTimelinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
              const BpwTimelineTrack *tr, double x)
{
  char value[BPW_SI_LABEL_MAX], str[96];
  double max = NAN, small_h;

  for (guint i = 0; i < tr->n_marks; i++)
    {
      double v = g_array_index (self->values, double, tr->first_mark + i);

      if (isfinite (v) && !(v <= max))
        max = v;
    }
  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &small_h);
  if (!isfinite (max) || tr->rect.height < 2 * small_h)
    return;
  bpw_si_format (value, sizeof value, max, "B", 3);
  g_snprintf (str, sizeof str, "max %s", value);
  add_label (self, text, BPW_PLOT_FONT_SMALL, str, x, tr->rect.y + tr->rect.height / 2, 1, 0,
             &st->muted);
}

static void
layout_text (BpwTimelinePlot *self, BpwPlotText *text, const BpwPlotStyle *st,
             gboolean track_labels, double col_a, double pad)
{
  double small_h;
  guint t = 0;

  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &small_h);

  while (t < self->tracks->len)
    {
      const BpwTimelineTrack *first = &g_array_index (self->tracks, BpwTimelineTrack, t);
      double top = G_MAXDOUBLE, bottom = -G_MAXDOUBLE;
      guint32 rank = first->rank;
      char buf[64];

      for (; t < self->tracks->len &&
             g_array_index (self->tracks, BpwTimelineTrack, t).rank == rank; t++)
        {
          const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

          if (!tr->visible)
            continue;
          top = MIN (top, tr->rect.y);
          bottom = MAX (bottom, tr->rect.y + tr->rect.height);
          if (track_labels)
            add_label (self, text, BPW_PLOT_FONT_SMALL, track_label (self, tr, buf, sizeof buf),
                       self->area.x - pad / 2, tr->rect.y + tr->rect.height / 2, 1,
                       tr->kind == BPW_TIMELINE_TRACK_MEMORY &&
                       tr->rect.height >= 2 * small_h ? 1 : 0.5,
                       tr->kind == BPW_TIMELINE_TRACK_LANE ? &st->foreground : &st->muted);
          if (track_labels && tr->kind == BPW_TIMELINE_TRACK_MEMORY)
            memory_label (self, text, st, tr, self->area.x - pad / 2);
        }
      if (bottom <= top)
        continue;
      {
        BpwPlotRect band = { pad, top, self->area.x + self->area.width - pad, bottom - top };
        double cy = CLAMP ((top + bottom) / 2, self->area.y + 6,
                           self->area.y + self->area.height - 6);

        g_array_append_val (self->group_rects, band);
        add_label (self, text, BPW_PLOT_FONT_BODY, group_label (self, rank, buf, sizeof buf),
                   pad + (track_labels ? 0 : col_a / 2) + pad / 2, cy, track_labels ? 0 : 0.5,
                   0.5, &st->foreground);
      }
    }
}

void
_bpw_timeline_plot_layout (BpwPlot               *plot,
                           const BpwPlotViewport *viewport,
                           double                 width,
                           double                 height)
{
  BpwTimelinePlot *self = BPW_TIMELINE_PLOT (plot);
  const BpwTimelineData *data = self->data;
  const BpwPlotStyle *st = bpw_plot_get_style (plot);
  BpwPlotText *text = _bpw_plot_get_text (plot);
  double pad = st->padding, top, bottom, x_extent, row_h, y0, y1, col_a = 0, col_b = 0, small_h;
  gboolean track_labels;
  char buf[64];

  reset_scene (self);
  self->rows = _bpw_timeline_plot_build_tracks (self, self->tracks);
  _bpw_plot_set_title (plot, data->title);
  top = _bpw_plot_title_init (&self->title, text, st, data->title, width) + pad * 1.5;

  /* The note's longest form reserves the legend's height before the counts are known. */
  build_legend (self, st, data->n_events, data->n_events, TRUE);
  bpw_plot_legend_layout (&self->legend, text, st, TRUE, 0, 0, width - 2 * pad);
  bottom = height - pad - self->legend.height - pad;

  self->t0 = 0;
  self->t1 = data->step_s > 0 ? data->step_s : 1;
  if (viewport != NULL && viewport->x_max > viewport->x_min)
    self->t0 = viewport->x_min, self->t1 = viewport->x_max;
  else if (self->window[1] > self->window[0])
    self->t0 = self->window[0], self->t1 = self->window[1];
  y0 = 0;
  y1 = MAX (self->rows, 1.0);
  if (viewport != NULL && viewport->y_max > viewport->y_min)
    y0 = viewport->y_min, y1 = viewport->y_max;

  bpw_scale_init (&self->xscale, BPW_SCALE_LINEAR, self->t0, self->t1, 0, width);
  bpw_axis_layout_init (&self->xaxis, BPW_AXIS_BOTTOM, "Time in the step", "s", TRUE);
  bpw_axis_layout_compute (&self->xaxis, &self->xscale, text, st);
  x_extent = bpw_axis_layout_extent (&self->xaxis, st);
  self->area.y = top;
  self->area.height = MAX (bottom - x_extent - top, 1.0);
  row_h = self->area.height / (y1 - y0);

  bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, "Ag", 0, NULL, &small_h);
  track_labels = row_h * (1 - TRACK_GAP) >= small_h * 0.95;
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);
      double w;

      bpw_plot_text_measure (text, BPW_PLOT_FONT_BODY, group_label (self, tr->rank, buf,
                                                                    sizeof buf), 0, &w, NULL);
      col_a = MAX (col_a, w);
      bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, track_label (self, tr, buf, sizeof buf),
                             0, &w, NULL);
      col_b = MAX (col_b, w);
    }
  self->area.x = floor (pad + col_a + pad + (track_labels ? col_b + pad : 0));
  self->area.x = MIN (self->area.x, width * 0.4);
  /* Room for half the last tick label, which is centred on the area's right edge. */
  {
    char last[BPW_SI_LABEL_MAX];
    double w;

    bpw_si_format (last, sizeof last, self->t1, "s", 6);
    bpw_plot_text_measure (text, BPW_PLOT_FONT_SMALL, last, 0, &w, NULL);
    self->area.width = MAX (floor (width - MAX (pad, w / 2 + 2)) - self->area.x, 1.0);
  }
  bpw_scale_init (&self->xscale, BPW_SCALE_LINEAR, self->t0, self->t1, self->area.x,
                  self->area.x + self->area.width);
  bpw_axis_layout_compute (&self->xaxis, &self->xscale, text, st);
  self->col_first = (gint) floor (self->area.x);
  self->col_end = (gint) ceil (self->area.x + self->area.width);
  g_array_set_size (self->col_time, 0);
  for (gint c = self->col_first; c <= self->col_end; c++)
    {
      double t = bpw_scale_unmap (&self->xscale, c);

      g_array_append_val (self->col_time, t);
    }

  for (guint t = 0; t < self->tracks->len; t++)
    {
      BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      tr->visible = tr->row + tr->rows > y0 && tr->row < y1;
      tr->rect = (BpwPlotRect) { self->area.x,
                                 self->area.y + (tr->row + TRACK_GAP / 2 - y0) * row_h,
                                 self->area.width, row_h * (tr->rows - TRACK_GAP) };
      tr->first_mark = tr->n_marks = 0;
      if (!tr->visible)
        continue;
      if (tr->kind == BPW_TIMELINE_TRACK_LANE)
        layout_lane (self, t);
      else if (tr->kind == BPW_TIMELINE_TRACK_MEMORY)
        _bpw_timeline_plot_layout_memory (self, tr);
      else
        _bpw_timeline_plot_layout_link (self, tr);
    }

  _bpw_timeline_plot_layout_flows (self);
  layout_text (self, text, st, track_labels, col_a, pad);
  label_marks (self, text, st);

  build_legend (self, st, self->visible_events, self->marks->len, FALSE);
  bpw_plot_legend_layout (&self->legend, text, st, TRUE, 0, 0, width - 2 * pad);
  bpw_plot_legend_move (&self->legend, pad, self->area.y + self->area.height + x_extent + pad);
}
