/* bpw-timeline-plot-marks.c — the timeline's level of detail: a lane's events → marks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the pure layout (see bpw-timeline-plot-layout.c). What a mark is, is defined
 * event by event in lane_event (); lane_walk () gives the same marks with less work: a
 * narrow event only adds to the pending mark, so it reads little of each; and where a
 * run of narrow events stays inside the pending mark's reach, it takes whole blocks of
 * the data's summary (bpw-timeline-data-private.h) instead of their events. A layout of
 * the whole step then costs about the marks plus the columns, not the events.
 */
#define G_LOG_DOMAIN "bpw-timeline-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-timeline-data-private.h"
#include "bpw-timeline-plot-private.h"

typedef struct
{
  BpwTimelineMark  m;
  gint64           ticks[BPW_TIMELINE_KEYS];  /* time per key, for a dense mark's colour */
  guint32          touched;  /* keys whose ticks are set: cleared alone, not the array */
  double           longest;  /* duration of m.event */
  gboolean         active;
} Pending;

/* One lane being laid out. */
typedef struct
{
  const BpwTimelineData *data;
  const BpwTimelineSummary *sum;
  BpwTimelineColorBy     color_by;
  const guint8          *keys;
  const double          *col_time;  /* the first time of each column, from col_first */
  double                 r0, t0, density;  /* the x scale */
  double                 left, right;
  double                 view_t0;
  double                 wide_s;    /* shorter events are narrower than a column */
  guint32                wide_ticks;  /* events of fewer stored ticks are shorter than
                                     * wide_s */
  gint                   col_first, col_last;
  guint                  track;
  BpwTimelineMark       *out;       /* the lane's marks: room for one per column */
  guint                  first, n, room;
  GArray                *labelled;  /* the plot's: marks wide enough for a label */
  Pending                p;
  double                 reach;     /* the first time of the column after the pending
                                     * mark's: an event starting before it joins it */
} Lane;

static inline double
lane_x (const Lane *ln, double t)
{
  return ln->r0 + (t - ln->t0) * ln->density;
}

/* The column of time @t ≥ the view's start: where col_time puts it, which is where
 * (gint) map (t) does (see column_time () in bpw-timeline-plot-layout.c). */
static inline gint
lane_column (const Lane *ln, double t)
{
  gint c = CLAMP ((gint) lane_x (ln, t), ln->col_first, ln->col_last);

  while (c < ln->col_last && t >= ln->col_time[c + 1 - ln->col_first])
    c++;
  while (c > ln->col_first && t < ln->col_time[c - ln->col_first])
    c--;
  return c;
}

/* The right end of a mark reaching @x1: the column after it, at most the area's. */
static inline gint
column_after (const Lane *ln, double x1, gint at_least)
{
  gint c1 = (gint) x1;

  /* x1 ≥ the area's left, which is not negative: truncation is floor. */
  return MIN (MAX (c1 + (x1 > c1), at_least), ln->col_last + 1);
}

static inline void
lane_set_reach (Lane *ln)
{
  const Pending *p = &ln->p;

  if (!p->active)
    ln->reach = -G_MAXDOUBLE;
  else if (p->m.col1 > ln->col_last)
    ln->reach = G_MAXDOUBLE;
  else
    ln->reach = ln->col_time[p->m.col1 - ln->col_first];
}

static void
pending_clear_ticks (Pending *p)
{
  for (guint32 bits = p->touched; bits != 0; bits &= bits - 1)
    p->ticks[__builtin_ctz (bits)] = 0;
  p->touched = 0;
}

static void
pending_start (Lane *ln, guint32 i, double x0, double x1, gint c0, gint c1, gboolean dense)
{
  const BpwTimelineData *data = ln->data;
  Pending *p = &ln->p;
  guint key = ln->keys[i] % BPW_TIMELINE_KEYS;

  pending_clear_ticks (p);
  /* Time per key colours dense marks only; a wide event's mark has its own colour. */
  if (dense)
    {
      p->ticks[key] = bpw_timeline_data_ticks (data, i);
      p->touched = 1u << key;
    }
  p->longest = data->end[i] - data->start[i];
  p->active = TRUE;
  p->m = (BpwTimelineMark) { .t0 = data->start[i], .t1 = data->end[i], .x0 = x0, .x1 = x1,
                             .col0 = c0, .col1 = c1, .track = ln->track, .event = i,
                             .count = 1, .key = ln->keys[i], .dense = dense };
}

static void
pending_flush (Lane *ln)
{
  const BpwTimelineData *data = ln->data;
  Pending *p = &ln->p;
  BpwTimelineMark *prev;

  if (!p->active)
    return;
  p->active = FALSE;
  if (p->m.dense)
    {
      guint best = p->m.key % BPW_TIMELINE_KEYS;

      for (guint32 bits = p->touched; bits != 0; bits &= bits - 1)
        {
          guint k = (guint) __builtin_ctz (bits);

          /* Strictly more: on a tie the first event's key stays. */
          if (p->ticks[k] > p->ticks[best])
            best = k;
        }
      p->m.key = (guint8) best;
      /* Dense marks fill their columns: at least one column shows every short event. */
      p->m.x0 = MAX ((double) p->m.col0, ln->left);
      p->m.x1 = MIN ((double) p->m.col1, ln->right);
      /* Neighbouring dense runs of one colour become one rectangle. */
      prev = ln->n > 0 ? &ln->out[ln->n - 1] : NULL;
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
  /* Marks own disjoint runs of whole columns: there is room for a mark per column. */
  g_assert (ln->n < ln->room);
  /* Dense marks carry no label; the others do not change once out. */
  if (!p->m.dense &&
      MIN (p->m.x1, ln->right) - MAX (p->m.x0, ln->left) >= BPW_TIMELINE_LABEL_MIN_WIDTH)
    {
      guint index = ln->first + ln->n;

      g_array_append_val (ln->labelled, index);
    }
  ln->out[ln->n++] = p->m;
}

/* Event @i on its own: a mark of its own when it is wider than a column, else merged
 * with the pending mark when it starts in the pending mark's columns. This defines the
 * marks; lane_walk () does the same for narrow events with less work. */
static void
lane_event (Lane *ln, guint32 i)
{
  const BpwTimelineData *data = ln->data;
  Pending *p = &ln->p;
  double x0 = MAX (lane_x (ln, data->start[i]), ln->left);
  double x1 = MIN (MAX (lane_x (ln, data->end[i]), x0), ln->right);
  gboolean wide = x1 - x0 >= 1.0;
  gint c0, c1;

  c0 = data->start[i] < ln->view_t0 ? ln->col_first : lane_column (ln, data->start[i]);
  c1 = column_after (ln, x1, c0 + 1);
  if (p->active && c0 < p->m.col1)
    {
      if (!wide)
        {
          double dur = data->end[i] - data->start[i];
          guint key = ln->keys[i] % BPW_TIMELINE_KEYS;

          p->ticks[key] += bpw_timeline_data_ticks (data, i);
          p->touched |= 1u << key;
          p->m.count++;
          p->m.t1 = MAX (p->m.t1, data->end[i]);
          p->m.x1 = MAX (p->m.x1, x1);
          p->m.col1 = MAX (p->m.col1, c1);
          if (dur > p->longest)
            {
              p->longest = dur;
              p->m.event = i;
            }
          return;
        }
      if (p->m.col0 < c0)
        {
          /* The wide event takes its first column over from the pending mark. */
          p->m.col1 = c0;
          pending_flush (ln);
        }
      else
        {
          /* The pending mark lies in this column only: the wide event absorbs it. */
          BpwTimelineMark absorbed = p->m;
          double longest = p->longest;

          pending_start (ln, i, MIN (x0, absorbed.x0), x1, absorbed.col0, c1, FALSE);
          p->m.t0 = MIN (p->m.t0, absorbed.t0);
          p->m.count += absorbed.count;
          if (longest > p->longest)
            p->m.event = absorbed.event, p->longest = longest;
          return;
        }
    }
  else
    pending_flush (ln);
  pending_start (ln, i, x0, x1, c0, c1, !wide);
}

/* The pending mark's events now end as late as @max_end: its right end follows. */
static void
lane_extend (Lane *ln, double max_end)
{
  Pending *p = &ln->p;
  double x1 = MIN (lane_x (ln, max_end), ln->right);

  p->m.t1 = MAX (p->m.t1, max_end);
  p->m.x1 = MAX (p->m.x1, x1);
  p->m.col1 = MAX (p->m.col1, column_after (ln, x1, p->m.col1));
  lane_set_reach (ln);
}

/* A run of narrow events closes, ending latest at @max_end: the pending mark's columns
 * and reach already follow it (lane_reach_past ()), its end and right edge now. */
static inline void
lane_close_run (Lane *ln, double max_end)
{
  Pending *p = &ln->p;
  double x1 = MIN (lane_x (ln, max_end), ln->right);

  p->m.t1 = MAX (p->m.t1, max_end);
  p->m.x1 = MAX (p->m.x1, x1);
}

/* An end at or past the pending mark's reach, while a run is open: only the columns
 * and the reach follow at once (the rest, lane_extend () when the run closes). */
static inline double
lane_reach_past (Lane *ln, double e)
{
  Pending *p = &ln->p;
  gint c1 = column_after (ln, MIN (lane_x (ln, e), ln->right), p->m.col1);

  p->m.col1 = c1;
  ln->reach = c1 > ln->col_last ? G_MAXDOUBLE : ln->col_time[c1 - ln->col_first];
  return ln->reach;
}

/* A narrow event @i, at or after the view's start, that starts no earlier than the
 * pending mark's reach: a dense mark of its own to start with, as lane_event () has it. */
static void
lane_open (Lane *ln, guint32 i)
{
  Pending *p = &ln->p;
  double s = ln->data->start[i], x0 = lane_x (ln, s);
  gint c = lane_column (ln, s);

  pending_flush (ln);
  pending_clear_ticks (p);
  p->active = TRUE;
  p->longest = -1;
  p->m = (BpwTimelineMark) { .t0 = s, .t1 = -G_MAXDOUBLE, .x0 = x0, .x1 = x0, .col0 = c,
                             .col1 = c + 1, .track = ln->track, .event = i,
                             .key = ln->keys[i], .dense = TRUE };
  lane_set_reach (ln);
}

/* Whole blocks of narrow events at @i that all start within the pending mark's reach:
 * the largest such block, added as its events would be (their time only to a dense
 * mark, which alone is coloured by it); the reach follows their latest end. */
typedef struct
{
  guint32  taken;    /* events; 0: none */
  double   max_end;
} Block;

static Block
lane_block (Lane *ln, guint32 i, guint32 end)
{
  const BpwTimelineSummary *sum = ln->sum;
  const double *start = ln->data->start;
  Pending *p = &ln->p;
  Block taken = { 0, -G_MAXDOUBLE };
  guint l = 0;

  /* A block that does not do holds one that does not: from the smallest up. */
  while (l < sum->n_levels)
    {
      const BpwTimelineLevel *lv = &sum->level[l + 1];
      guint32 size = 1u << (BPW_TIMELINE_FAN_BITS * (l + 1));
      guint32 b = i >> (BPW_TIMELINE_FAN_BITS * (l + 1));

      if ((i & (size - 1)) != 0 || (guint64) i + size > end || b >= lv->n ||
          !(lv->max_dur[b] < ln->wide_s) || !(start[i + size - 1] < ln->reach))
        break;
      l++;
    }
  if (l > 0)
    {
      const BpwTimelineLevel *lv = &sum->level[l];
      guint32 b = i >> (BPW_TIMELINE_FAN_BITS * l);

      if (p->m.dense)
        {
          const gint64 *t = lv->ticks[ln->color_by] + (gsize) b * sum->n_keys[ln->color_by];

          for (guint k = 0; k < sum->n_keys[ln->color_by]; k++)
            if (t[k] != 0)
              {
                p->ticks[k] += t[k];
                p->touched |= 1u << k;
              }
        }
      taken = (Block) { 1u << (BPW_TIMELINE_FAN_BITS * l), lv->max_end[b] };
      p->m.count += taken.taken;
      if (lv->max_dur[b] > p->longest)
        p->longest = lv->max_dur[b], p->m.event = lv->longest[b];
      if (taken.max_end >= ln->reach)
        lane_extend (ln, taken.max_end);
    }
  return taken;
}

/* Narrow events from @i that join the pending mark: up to the first that may be wide or
 * starts past the pending mark's reach, or @end; returns where it stopped. Each adds its
 * count and its end; to a @dense mark also its ticks (to its key) and maybe itself as
 * the longest — a wide event's mark keeps its colour, and the wide event is longer than
 * any of them. So the loop reads each event's start, end and ticks (and key) and little
 * else: the duration only when the ticks say the event may be wide or the longest yet
 * (ticks are monotonic in the duration). Once a run is long, whole blocks at a time.
 * Inlined with @dense a constant, it is two loops. */
static G_ALWAYS_INLINE inline guint32
walk_run (Lane *ln, guint32 i, guint32 end, const gboolean dense)
{
  const double *start = ln->data->start, *end_t = ln->data->end;
  const guint8 *keys = ln->keys;
  const guint32 *ticks = ln->sum->ticks;
  const double wide_s = ln->wide_s;
  const guint32 wide_ticks = ln->wide_ticks;
  Pending *p = &ln->p;
  double max_end = -G_MAXDOUBLE, reach = ln->reach;
  guint32 longest_t = 0;
  guint32 entry = i, first = i, touched = 0;

  while (i < end)
    {
      double s = start[i], e = end_t[i];
      guint32 t = ticks[i];

      /* Blocks only once the run is long: short runs seldom hold a whole one. */
      if ((i & (BPW_TIMELINE_FAN - 1)) == 0 && i - entry >= BPW_TIMELINE_FAN)
        {
          Block b;

          p->touched |= touched;
          p->m.count += i - first;
          touched = 0;
          b = lane_block (ln, i, end);
          first = i += b.taken;
          max_end = MAX (max_end, b.max_end);
          reach = ln->reach;
          if (b.taken > 0)
            continue;
        }
      if ((t >= wide_ticks && e - s >= wide_s) || !(s < reach))
        break;
      if (dense)
        {
          guint k = keys[i] & (BPW_TIMELINE_KEYS - 1);

          /* The stored ticks saturate: the few events that long count exactly. */
          p->ticks[k] += G_LIKELY (t != G_MAXUINT32) ? t : bpw_timeline_data_ticks (ln->data, i);
          touched |= 1u << k;
          /* Fewer ticks: shorter; as many: maybe longer by less than a tick. */
          if (t >= longest_t)
            {
              longest_t = t;
              if (e - s > p->longest)
                p->longest = e - s, p->m.event = i;
            }
        }
      /* Without a branch: whether an end is the latest yet is anyone's guess. */
      max_end = MAX (max_end, e);
      if (e >= reach)
        reach = lane_reach_past (ln, e);
      i++;
    }
  p->touched |= touched;
  p->m.count += i - first;
  lane_close_run (ln, max_end);
  return i;
}

/* Events [i, end), which start in the view, in order: the narrow ones that join the
 * pending mark in bulk (walk_run ()), the rest one by one. A narrow
 * event joins the pending mark when it starts before the pending mark's reach, else it
 * opens a dense mark of its own. */
static void
lane_walk (Lane *ln, guint32 i, guint32 end)
{
  const double *start = ln->data->start, *end_t = ln->data->end;
  const guint32 *ticks = ln->sum->ticks;

  lane_set_reach (ln);
  while (i < end)
    {
      if (ticks[i] >= ln->wide_ticks && end_t[i] - start[i] >= ln->wide_s)
        {
          lane_event (ln, i++);
          lane_set_reach (ln);
          continue;
        }
      if (!(start[i] < ln->reach))
        lane_open (ln, i);
      i = ln->p.m.dense ? walk_run (ln, i, end, TRUE) : walk_run (ln, i, end, FALSE);
    }
}

/* First index in [lo, hi) whose start is at or after @t (@strict: after). */
static guint32
first_start (const double *start, guint32 lo, guint32 hi, double t, gboolean strict)
{
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (start[mid] < t || (strict && start[mid] == t))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The marks of one lane: see BpwTimelineMark. Events are visible when they start by the
 * view's end and end at or after its start. */
void
_bpw_timeline_plot_layout_lane (BpwTimelinePlot *self,
                                guint            track_index)
{
  const BpwTimelineData *data = self->data;
  BpwTimelineTrack *track = &g_array_index (self->tracks, BpwTimelineTrack, track_index);
  const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, track->lane);
  const BpwScale *xs = &self->scene->xscale;
  double k = bpw_scale_density (xs);
  guint first = self->marks->len;
  Lane ln = {
    .data = data, .sum = data->summary, .color_by = self->color_by,
    .keys = data->key[self->color_by], .col_time = (const double *) self->col_time->data,
    .r0 = xs->r0, .t0 = xs->t0, .density = k,
    .left = self->scene->area.x, .right = self->scene->area.x + self->scene->area.width,
    .view_t0 = self->t0,
    /* Wider than a column within rounding: lane_event () decides exactly. */
    .wide_s = k > 0 ? (1 - 1e-6) / k : G_MAXDOUBLE,
    .col_first = self->col_first, .col_last = self->col_end - 1, .track = track_index,
    .first = first, .room = (guint) (self->col_end - self->col_first),
    .labelled = self->labelled,
  };
  guint32 lane_end = lane->first + lane->n, i, in_view, view_end;

  /* An event of duration d has round (d · ticks_per_s) ticks, monotonic in d: one at
   * least wide_s long has at least floor (wide_s · ticks_per_s), or the saturated
   * G_MAXUINT32 stored. */
  ln.wide_ticks = (guint32) CLAMP (floor (ln.wide_s * data->ticks_per_s), 0, G_MAXUINT32);
  g_array_set_size (self->marks, first + ln.room);
  ln.out = &g_array_index (self->marks, BpwTimelineMark, first);
  /* max_end is non-decreasing within a lane: events before i end before the view. */
  i = lane->first;
  for (guint32 hi = lane_end; i < hi;)
    {
      guint32 mid = i + (hi - i) / 2;

      if (data->max_end[mid] < self->t0)
        i = mid + 1;
      else
        hi = mid;
    }
  in_view = first_start (data->start, i, lane_end, self->t0, FALSE);
  view_end = first_start (data->start, in_view, lane_end, self->t1, TRUE);
  for (i = bpw_timeline_data_next_ending (data, i, in_view, self->t0); i < in_view;
       i = bpw_timeline_data_next_ending (data, i + 1, in_view, self->t0))
    {
      self->visible_events++;
      lane_event (&ln, i);
    }
  self->visible_events += view_end - in_view;
  lane_walk (&ln, in_view, view_end);
  pending_flush (&ln);
  g_array_set_size (self->marks, first + ln.n);
  track->first_mark = first;
  track->n_marks = ln.n;
}
