/* bpw-timeline-aggregate.c — what the events of some lanes spend inside a time range
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The timeline's area selection: each event contributes the part of it inside the range,
 * summed by operation, by kind (primitive or collective), by bottleneck and by phase.
 * Events are found by bisection on each lane's running maximum of ends.
 */
#define G_LOG_DOMAIN "bpw-timeline-data"

#include "config.h"

#include <string.h>

#include "bpw-timeline-data.h"

typedef struct
{
  double  time;
  guint   events;
} Acc;

static gint
compare_rows (gconstpointer a, gconstpointer b)
{
  const BpwTimelineAggregateRow *x = a, *y = b;

  if (x->time_s != y->time_s)
    return x->time_s > y->time_s ? -1 : 1;
  return g_strcmp0 (x->label, y->label);
}

static GArray *
rows_from (const Acc *acc, guint n, const char *(*label) (const BpwTimelineData *, guint),
           const BpwTimelineData *data)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (BpwTimelineAggregateRow));

  for (guint i = 0; i < n; i++)
    if (acc[i].events > 0)
      {
        BpwTimelineAggregateRow row = { label (data, i), i, acc[i].time, acc[i].events };

        g_array_append_val (rows, row);
      }
  g_array_sort (rows, compare_rows);
  return rows;
}

static const char *
name_label (const BpwTimelineData *data, guint i)
{
  return bpw_timeline_data_name (data, i);
}

static const char *
bottleneck_label (const BpwTimelineData *data, guint i)
{
  return bpw_bottleneck_to_string (i);
}

static const char *
phase_label (const BpwTimelineData *data, guint i)
{
  return bpw_phase_to_string (i);
}

BpwTimelineAggregate *
bpw_timeline_data_aggregate (const BpwTimelineData *data,
                             double                 t0,
                             double                 t1,
                             const guint           *lanes,
                             guint                  n_lanes)
{
  BpwTimelineAggregate *agg = g_new0 (BpwTimelineAggregate, 1);
  g_autofree Acc *by_name = g_new0 (Acc, MAX (data->names->len, 1));
  g_autofree Acc *by_kind = g_new0 (Acc, MAX (data->names->len, 1));
  Acc by_bottleneck[BPW_N_BOTTLENECKS] = { { 0 } };
  Acc by_phase[BPW_N_PHASES] = { { 0 } };
  guint n = lanes != NULL ? n_lanes : data->lanes->len;

  g_return_val_if_fail (data != NULL && data->builder == NULL, agg);

  agg->t0 = MIN (t0, t1);
  agg->t1 = MAX (t0, t1);
  for (guint k = 0; k < n; k++)
    {
      guint l = lanes != NULL ? lanes[k] : k;
      const BpwTimelineLane *lane;

      if (l >= data->lanes->len)
        continue;
      lane = &g_array_index (data->lanes, BpwTimelineLane, l);
      agg->n_lanes++;
      for (guint32 i = bpw_timeline_data_lane_first_after (data, l, agg->t0);
           i < lane->first + lane->n && data->start[i] <= agg->t1; i++)
        {
          const BpwTimelineEvent *e = &data->events[i];
          double part = MIN (data->end[i], agg->t1) - MAX (data->start[i], agg->t0);
          guint8 b = MIN (data->key[BPW_TIMELINE_COLOR_BOTTLENECK][i], BPW_N_BOTTLENECKS - 1);
          guint8 p = MIN (data->key[BPW_TIMELINE_COLOR_PHASE][i], BPW_N_PHASES - 1);

          /* Overlap is half-open except for instants: an event that only touches an edge
           * is not inside; a zero-length event inside counts with no time. */
          if (part < 0 || (part == 0 && data->end[i] > data->start[i]))
            continue;
          by_name[e->name].time += part;
          by_name[e->name].events++;
          by_kind[e->kind].time += part;
          by_kind[e->kind].events++;
          by_bottleneck[b].time += part;
          by_bottleneck[b].events++;
          by_phase[p].time += part;
          by_phase[p].events++;
          agg->busy_s += part;
          agg->events++;
        }
    }
  agg->by_name = rows_from (by_name, data->names->len, name_label, data);
  agg->by_kind = rows_from (by_kind, data->names->len, name_label, data);
  agg->by_bottleneck = rows_from (by_bottleneck, BPW_N_BOTTLENECKS, bottleneck_label, data);
  agg->by_phase = rows_from (by_phase, BPW_N_PHASES, phase_label, data);
  return agg;
}

void
bpw_timeline_aggregate_free (BpwTimelineAggregate *aggregate)
{
  if (aggregate == NULL)
    return;
  g_clear_pointer (&aggregate->by_kind, g_array_unref);
  g_clear_pointer (&aggregate->by_name, g_array_unref);
  g_clear_pointer (&aggregate->by_bottleneck, g_array_unref);
  g_clear_pointer (&aggregate->by_phase, g_array_unref);
  g_free (aggregate);
}

static void
csv_rows (GString *out, const char *table, const GArray *rows, double total)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwTimelineAggregateRow *r = &g_array_index (rows, BpwTimelineAggregateRow, i);
      char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
      gboolean quote = strpbrk (r->label, ",\"\n") != NULL;
      g_autofree char *label = NULL;

      if (quote)
        {
          g_auto(GStrv) parts = g_strsplit (r->label, "\"", -1);
          g_autofree char *joined = g_strjoinv ("\"\"", parts);

          label = g_strdup_printf ("\"%s\"", joined);
        }
      g_string_append_printf (out, "%s,%s,%s,%s,%u\n", table, quote ? label : r->label,
                              g_ascii_formatd (a, sizeof a, "%.17g", r->time_s),
                              g_ascii_formatd (b, sizeof b, "%.17g",
                                               total > 0 ? r->time_s / total : 0),
                              r->events);
    }
}

char *
bpw_timeline_aggregate_to_csv (const BpwTimelineAggregate *aggregate)
{
  GString *out = g_string_new ("table,label,time_s,share,events\n");

  g_return_val_if_fail (aggregate != NULL, g_string_free (out, FALSE));

  csv_rows (out, "kind", aggregate->by_kind, aggregate->busy_s);
  csv_rows (out, "operation", aggregate->by_name, aggregate->busy_s);
  csv_rows (out, "bottleneck", aggregate->by_bottleneck, aggregate->busy_s);
  csv_rows (out, "phase", aggregate->by_phase, aggregate->busy_s);
  return g_string_free (out, FALSE);
}
