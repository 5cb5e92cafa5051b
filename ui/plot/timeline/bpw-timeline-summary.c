/* bpw-timeline-summary.c — multi-level block summaries of the timeline's lanes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built once when the data are finished, read by every layout: per block of FAN events,
 * of FAN blocks and so on, the time per colour key (in exact integer ticks), the longest
 * event and the latest end. A range of one lane is then summed from O(FAN · levels)
 * blocks and events whatever its length, which keeps a layout of the whole step bounded
 * by lanes × columns rather than by the events (see bpw-timeline-plot-layout.c).
 */
#define G_LOG_DOMAIN "bpw-timeline-data"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-timeline-data-private.h"

#define FAN_BITS BPW_TIMELINE_FAN_BITS
#define FAN BPW_TIMELINE_FAN
#define MAX_LEVELS BPW_TIMELINE_MAX_LEVELS

typedef BpwTimelineLevel Level;

void
_bpw_timeline_summary_free (BpwTimelineSummary *sum)
{
  if (sum == NULL)
    return;
  g_free (sum->ticks);
  for (guint l = 1; l <= sum->n_levels; l++)
    {
      g_free (sum->level[l].max_dur);
      g_free (sum->level[l].max_end);
      g_free (sum->level[l].longest);
      for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
        g_free (sum->level[l].ticks[c]);
    }
  g_free (sum);
}

/* Level 1 from the events, each level above from the one below. */
static void
build_level (BpwTimelineData *data, BpwTimelineSummary *sum, guint l)
{
  Level *lv = &sum->level[l];
  const Level *below = &sum->level[l - 1];

  lv->n = data->n_events >> (FAN_BITS * l);
  lv->max_dur = g_new (double, lv->n);
  lv->max_end = g_new (double, lv->n);
  lv->longest = g_new (guint32, lv->n);
  for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
    lv->ticks[c] = g_new0 (gint64, (gsize) lv->n * sum->n_keys[c]);
  for (guint32 b = 0; b < lv->n; b++)
    {
      double max_dur = -1, max_end = -G_MAXDOUBLE;
      guint32 longest = BPW_TIMELINE_NONE;

      for (guint32 u = b * FAN; u < (b + 1) * FAN; u++)
        {
          double d = l == 1 ? data->end[u] - data->start[u] : below->max_dur[u];

          /* Strictly longer: the first of equals, as adding event by event keeps. */
          if (d > max_dur)
            {
              max_dur = d;
              longest = l == 1 ? u : below->longest[u];
            }
          max_end = MAX (max_end, l == 1 ? data->end[u] : below->max_end[u]);
          if (l == 1)
            {
              gint64 ticks = bpw_timeline_data_ticks (data, u);

              for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
                lv->ticks[c][(gsize) b * sum->n_keys[c] +
                             data->key[c][u] % BPW_TIMELINE_KEYS] += ticks;
            }
          else
            for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
              for (guint k = 0; k < sum->n_keys[c]; k++)
                lv->ticks[c][(gsize) b * sum->n_keys[c] + k] +=
                  below->ticks[c][(gsize) u * sum->n_keys[c] + k];
        }
      lv->max_dur[b] = max_dur;
      lv->max_end[b] = max_end;
      lv->longest[b] = longest;
    }
}

void
_bpw_timeline_summary_build (BpwTimelineData *data)
{
  BpwTimelineSummary *sum = g_new0 (BpwTimelineSummary, 1);
  double span = data->step_s;
  int e;

  for (guint32 i = 0; i < data->n_events; i++)
    span = MAX (span, data->end[i]);
  /* A power of two: 2^40 ticks cover the step; 1M events of a whole step sum below 2^60. */
  data->ticks_per_s = ldexp (1.0, 40);
  if (span > 0 && isfinite (span))
    {
      frexp (span, &e);
      data->ticks_per_s = ldexp (1.0, 40 - e);
    }
  for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
    for (guint32 i = 0; i < data->n_events; i++)
      sum->n_keys[c] = MAX (sum->n_keys[c], (guint) (data->key[c][i] % BPW_TIMELINE_KEYS) + 1);
  sum->n_events = data->n_events;
  sum->ticks = g_new (guint32, MAX (data->n_events, 1));
  for (guint32 i = 0; i < data->n_events; i++)
    sum->ticks[i] = (guint32) MIN (bpw_timeline_data_ticks (data, i), (gint64) G_MAXUINT32);
  while (sum->n_levels < MAX_LEVELS &&
         (data->n_events >> (FAN_BITS * (sum->n_levels + 1))) > 0)
    build_level (data, sum, ++sum->n_levels);
  _bpw_timeline_summary_free (data->summary);
  data->summary = sum;
}

void
_bpw_timeline_summary_ensure (BpwTimelineData *data)
{
  if (data->summary == NULL || data->summary->n_events != data->n_events)
    _bpw_timeline_summary_build (data);
}

/* The level of the largest block that starts at @i and ends by @end; 0: the event @i. */
static inline guint
unit_level (const BpwTimelineSummary *sum, guint32 i, guint32 end)
{
  guint l = 0;

  /* Blocks past the summary's events (appended since) are read event by event. */
  while (l < sum->n_levels &&
         (i & ((1u << (FAN_BITS * (l + 1))) - 1)) == 0 &&
         (guint64) i + (1u << (FAN_BITS * (l + 1))) <= end &&
         (i >> (FAN_BITS * (l + 1))) < sum->level[l + 1].n)
    l++;
  return l;
}

void
bpw_timeline_data_summarize (const BpwTimelineData *data,
                             BpwTimelineColorBy     color_by,
                             guint32                first,
                             guint32                end,
                             BpwTimelineSpan       *span)
{
  const BpwTimelineSummary *sum = data->summary;
  const guint8 *keys;
  guint32 i = first;

  g_return_if_fail (color_by < BPW_TIMELINE_N_COLORINGS && span != NULL);
  g_return_if_fail (first <= end && end <= data->n_events && sum != NULL);

  memset (span, 0, sizeof *span);
  span->count = end - first;
  span->longest = BPW_TIMELINE_NONE;
  span->longest_s = -1;
  span->max_end = -G_MAXDOUBLE;
  keys = data->key[color_by];
  /* Left to right, so that the first of equally long events stays the longest. */
  while (i < end)
    {
      guint l = unit_level (sum, i, end);

      if (l == 0)
        {
          double d = data->end[i] - data->start[i];

          span->ticks[keys[i] % BPW_TIMELINE_KEYS] += bpw_timeline_data_ticks (data, i);
          if (d > span->longest_s)
            span->longest_s = d, span->longest = i;
          span->max_end = MAX (span->max_end, data->end[i]);
          i++;
        }
      else
        {
          const Level *lv = &sum->level[l];
          guint32 b = i >> (FAN_BITS * l);
          const gint64 *t = lv->ticks[color_by] + (gsize) b * sum->n_keys[color_by];

          for (guint k = 0; k < sum->n_keys[color_by]; k++)
            span->ticks[k] += t[k];
          if (lv->max_dur[b] > span->longest_s)
            span->longest_s = lv->max_dur[b], span->longest = lv->longest[b];
          span->max_end = MAX (span->max_end, lv->max_end[b]);
          i += 1u << (FAN_BITS * l);
        }
    }
}

static inline double
unit_value (const BpwTimelineData *data, guint l, guint32 i, gboolean by_end)
{
  const Level *lv = &data->summary->level[l];

  if (l == 0)
    return by_end ? data->end[i] : data->end[i] - data->start[i];
  return by_end ? lv->max_end[i >> (FAN_BITS * l)] : lv->max_dur[i >> (FAN_BITS * l)];
}

/* The first event in [first, end) whose duration (or end) reaches @t. */
static guint32
next_reaching (const BpwTimelineData *data, guint32 first, guint32 end, double t,
               gboolean by_end)
{
  const BpwTimelineSummary *sum = data->summary;
  guint32 i = first;

  while (i < end)
    {
      guint l = unit_level (sum, i, end);

      if (unit_value (data, l, i, by_end) < t)
        {
          i += 1u << (FAN_BITS * l);
          continue;
        }
      /* It is in this block: down to the first child that reaches, level by level. */
      while (l > 0)
        {
          l--;
          while (unit_value (data, l, i, by_end) < t)
            i += 1u << (FAN_BITS * l);
        }
      return i;
    }
  return end;
}

guint32
bpw_timeline_data_next_long (const BpwTimelineData *data,
                             guint32                first,
                             guint32                end,
                             double                 duration)
{
  g_return_val_if_fail (first <= end && end <= data->n_events && data->summary != NULL, end);

  return next_reaching (data, first, end, duration, FALSE);
}

guint32
bpw_timeline_data_next_ending (const BpwTimelineData *data,
                               guint32                first,
                               guint32                end,
                               double                 t)
{
  g_return_val_if_fail (first <= end && end <= data->n_events && data->summary != NULL, end);

  return next_reaching (data, first, end, t, TRUE);
}

