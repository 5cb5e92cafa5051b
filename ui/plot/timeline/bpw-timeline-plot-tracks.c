/* bpw-timeline-plot-tracks.c — the timeline's tracks, counter tracks and flows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the pure layout (see bpw-timeline-plot-layout.c): counters are one value per
 * column of the plot area, so their cost is bounded by the width as the marks' is.
 */
#define G_LOG_DOMAIN "bpw-timeline-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-timeline-plot-private.h"

#define MAX_FLOW_DEPTH 4
#define MIN_FLOW_LENGTH 3.0

double
_bpw_timeline_plot_build_tracks (BpwTimelinePlot *self,
                                 GArray          *tracks)
{
  const BpwTimelineData *data = self->data;
  guint32 r0 = MIN (self->rank_first, data->n_ranks);
  guint32 r1 = self->rank_count > 0 ? MIN (r0 + self->rank_count, data->n_ranks) : data->n_ranks;
  double row = 0;
  guint l = 0;

  g_array_set_size (tracks, 0);
  for (guint32 r = r0; r < r1; r++)
    {
      guint tiers = 0;
      gboolean any = FALSE;

      /* Lanes are rank by rank: skip to this rank's. */
      while (l < data->lanes->len && g_array_index (data->lanes, BpwTimelineLane, l).rank < r)
        l++;
      if (tracks->len > 0)
        row += BPW_TIMELINE_GROUP_GAP;
      for (; l < data->lanes->len && g_array_index (data->lanes, BpwTimelineLane, l).rank == r;
           l++)
        {
          const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, l);
          BpwTimelineTrack t = { .kind = BPW_TIMELINE_TRACK_LANE, .rank = r, .lane = l,
                                 .tier = lane->tier, .row = row++, .rows = 1 };

          if (lane->link && lane->tier >= 0 && lane->tier < 32)
            tiers |= 1u << lane->tier;
          g_array_append_val (tracks, t);
          any = TRUE;
        }
      if (self->show_memory && data->memory != NULL)
        {
          /* Two rows: occupancy against the capacity needs height to read. */
          BpwTimelineTrack t = { .kind = BPW_TIMELINE_TRACK_MEMORY, .rank = r, .tier = -1,
                                 .row = row, .rows = 2 };

          row += t.rows;

          g_array_append_val (tracks, t);
          any = TRUE;
        }
      for (guint tier = 0; self->show_links && tier < 32; tier++)
        if (tiers & (1u << tier))
          {
            BpwTimelineTrack t = { .kind = BPW_TIMELINE_TRACK_LINK, .rank = r, .tier = tier,
                                   .row = row++, .rows = 1 };

            g_array_append_val (tracks, t);
          }
      if (!any && tracks->len > 0)
        row -= BPW_TIMELINE_GROUP_GAP;
    }
  return row;
}

/* ---- counters ---- */

/* Per column, the largest occupancy during it: a peak narrower than a column shows. */
void
_bpw_timeline_plot_layout_memory (BpwTimelinePlot  *self,
                                  BpwTimelineTrack *track)
{
  const BpwTimelineMemory *m = &self->data->memory[track->rank];
  guint lo = 0, hi = m->n;

  track->first_mark = self->values->len;
  track->n_marks = (guint) (self->col_end - self->col_first);
  /* The sample in force at the first column's start. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (m->time[mid] <= self->t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  lo = lo > 0 ? lo - 1 : 0;
  for (gint c = self->col_first; c < self->col_end; c++)
    {
      double ta = g_array_index (self->col_time, double, c - self->col_first);
      double tb = g_array_index (self->col_time, double, c - self->col_first + 1);
      double v = NAN;

      if (m->n > 0 && tb > 0 && ta < self->data->step_s)
        {
          while (lo + 1 < m->n && m->time[lo + 1] <= ta)
            lo++;
          v = m->bytes[lo];
          while (lo + 1 < m->n && m->time[lo + 1] < tb)
            {
              guint b = (lo + 1) / BPW_TIMELINE_MEMORY_BLOCK;
              guint b_end = (b + 1) * BPW_TIMELINE_MEMORY_BLOCK;

              /* A whole block inside the column: its maximum, then past it. */
              if ((lo + 1) % BPW_TIMELINE_MEMORY_BLOCK == 0 && b_end < m->n &&
                  m->time[b_end] < tb)
                {
                  v = MAX (v, m->block_max[b]);
                  lo = b_end - 1;
                }
              else
                v = MAX (v, m->bytes[++lo]);
            }
        }
      g_array_append_val (self->values, v);
    }
}

static void
add_coverage (BpwTimelinePlot *self, guint base, double s, double e)
{
  const double *col_time = (const double *) self->col_time->data;
  gint n = self->col_end - self->col_first, c;

  s = MAX (s, self->t0);
  e = MIN (e, self->t1);
  if (!(e > s))
    return;
  /* The column that holds s: a guess from the density, put right by the columns' first
   * times (no division, no floor (): this runs for every interval in view). */
  c = CLAMP ((gint) ((s - self->t0) * bpw_scale_density (&self->scene->xscale)), 0, n - 1);
  while (c + 1 < n && col_time[c + 1] <= s)
    c++;
  while (c > 0 && col_time[c] > s)
    c--;
  for (; c < n && col_time[c] < e; c++)
    g_array_index (self->values, double, base + c) +=
      (MIN (e, col_time[c + 1]) - MAX (s, col_time[c])) / (col_time[c + 1] - col_time[c]);
}

/* Per column, the fraction of it during which any link queue of the tier carries traffic
 * (the union of its groups' transfers: groups share the link). */
void
_bpw_timeline_plot_layout_link (BpwTimelinePlot  *self,
                                BpwTimelineTrack *track)
{
  const BpwTimelineData *data = self->data;
  guint n = 0, base = self->values->len;
  guint32 pos[16], end[16];
  double us = 0, ue = -G_MAXDOUBLE;
  gboolean open = FALSE;

  track->first_mark = base;
  track->n_marks = (guint) (self->col_end - self->col_first);
  g_array_set_size (self->values, base + track->n_marks);
  memset (&g_array_index (self->values, double, base), 0, track->n_marks * sizeof (double));
  for (guint l = 0; l < data->lanes->len && n < G_N_ELEMENTS (pos); l++)
    {
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, l);

      if (lane->rank == track->rank && lane->link && lane->tier == track->tier)
        {
          pos[n] = bpw_timeline_data_lane_first_after (data, l, self->t0);
          end[n] = lane->first + lane->n;
          n++;
        }
    }
  for (;;)
    {
      guint best = n;

      for (guint k = 0; k < n; k++)
        if (pos[k] < end[k] && (best == n || data->start[pos[k]] < data->start[pos[best]]))
          best = k;
      if (best == n || data->start[pos[best]] > self->t1)
        break;
      if (open && data->start[pos[best]] <= ue)
        ue = MAX (ue, data->end[pos[best]]);
      else
        {
          if (open)
            add_coverage (self, base, us, ue);
          us = data->start[pos[best]];
          ue = data->end[pos[best]];
          open = TRUE;
        }
      pos[best]++;
    }
  if (open)
    add_coverage (self, base, us, ue);
}

/* ---- flows ---- */

static gboolean
event_anchor (BpwTimelinePlot *self, const gint *lane_track, guint32 e, gboolean at_end,
              double *x, double *y)
{
  guint16 lane = self->data->events[e].lane;
  const BpwTimelineTrack *t;

  if (lane_track[lane] < 0)
    return FALSE;
  t = &g_array_index (self->tracks, BpwTimelineTrack, lane_track[lane]);
  *x = bpw_scale_map (&self->scene->xscale, at_end ? self->data->end[e] : self->data->start[e]);
  *y = t->rect.y + t->rect.height / 2;
  return TRUE;
}

static void
add_flow (BpwTimelinePlot *self, const gint *lane_track, guint32 from, guint32 to)
{
  double f[4];

  if (!event_anchor (self, lane_track, from, TRUE, &f[0], &f[1]) ||
      !event_anchor (self, lane_track, to, FALSE, &f[2], &f[3]))
    return;
  /* Too short to see, or both ends off the same side: nothing of it would show. */
  if (hypot (f[2] - f[0], f[3] - f[1]) < MIN_FLOW_LENGTH)
    return;
  if ((f[0] < self->scene->area.x && f[2] < self->scene->area.x) ||
      (f[0] > self->scene->area.x + self->scene->area.width &&
       f[2] > self->scene->area.x + self->scene->area.width))
    return;
  g_array_append_vals (self->flows, f, 4);
}

void
_bpw_timeline_plot_layout_flows (BpwTimelinePlot *self)
{
  const BpwTimelineData *data = self->data;
  g_autofree gint *lane_track = g_new (gint, MAX (data->lanes->len, 1));
  guint32 e = self->selected;

  if (e >= data->n_events)
    return;
  for (guint l = 0; l < data->lanes->len; l++)
    lane_track[l] = -1;
  for (guint t = 0; t < self->tracks->len; t++)
    {
      const BpwTimelineTrack *tr = &g_array_index (self->tracks, BpwTimelineTrack, t);

      if (tr->kind == BPW_TIMELINE_TRACK_LANE && tr->visible)
        lane_track[tr->lane] = (gint) t;
    }
  for (guint depth = 0; depth < MAX_FLOW_DEPTH && data->events[e].pred < data->n_events;
       depth++)
    {
      guint32 pred = data->events[e].pred;

      add_flow (self, lane_track, pred, e);
      e = pred;
    }
  for (guint i = 0; i < self->successors->len; i++)
    add_flow (self, lane_track, self->selected, g_array_index (self->successors, guint32, i));
}

