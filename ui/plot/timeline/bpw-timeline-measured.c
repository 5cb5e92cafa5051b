/* bpw-timeline-measured.c — measured lanes beside the modelled ones on the timeline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A correlation pairs a device of a profile with a simulated rank (bpw-correlate.h). Each
 * pair becomes one lane of the device's measured work items, placed right after the
 * modelled lanes of its rank, so the two read one above the other on the same time axis:
 * the measured step starts at 0 with its first work item, as the simulated one does.
 * A matched item is coloured as the modelled operation it was matched with (phase,
 * bottleneck, layer type) and carries its lineage, so selecting it selects the operation
 * everywhere; extra work (nothing modelled does it) takes the colours of the matched item
 * before it and no lineage.
 */
#define G_LOG_DOMAIN "bpw-timeline-measured"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-timeline-data.h"

typedef struct
{
  BpwTimelineData *data;
  GHashTable      *names;  /* string → id + 1 */
} Interner;

/* The builder's interning table is gone once the data are finished: names are added to
 * the pool directly, each once. */
static guint32
bpw_timeline_measured_intern (Interner   *in,
                              const char *str)
{
  gpointer id = g_hash_table_lookup (in->names, str);
  char *copy;

  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  copy = g_string_chunk_insert_const (in->data->strings, str);
  g_ptr_array_add (in->data->names, copy);
  g_hash_table_insert (in->names, copy, GUINT_TO_POINTER (in->data->names->len));
  return in->data->names->len - 1;
}

/* Colours and identity of a matched item: those of the modelled operation. */
static gboolean
bpw_timeline_measured_matched (const BpwCorrelation *corr,
                               guint                 item,
                               guint8                keys[BPW_TIMELINE_N_COLORINGS],
                               BpwTimelineEvent     *out)
{
  gint32 r = corr->item_row[item];
  const BpwCorrelationRow *row;
  const BpwSimEvent *e;
  const BpwSimulation *sim = corr->sim;

  if (r < 0)
    return FALSE;
  row = bpw_correlation_row (corr, (guint) r);
  if (row->status != BPW_ROW_MATCHED || row->n_ops == 0)
    return FALSE;
  e = bpw_simulation_event (sim, bpw_correlation_row_op (corr, row, 0)->event);
  keys[BPW_TIMELINE_COLOR_PHASE] = e->phase;
  keys[BPW_TIMELINE_COLOR_BOTTLENECK] = bpw_simulation_event_bottleneck (sim, e);
  if (e->kind == BPW_SIM_EVENT_TASK)
    keys[BPW_TIMELINE_COLOR_LAYER_TYPE] =
      g_array_index (sim->plan->stages[e->stage].tasks, BpwPlanTask, e->item).layer_type;
  else
    keys[BPW_TIMELINE_COLOR_LAYER_TYPE] =
      g_array_index (sim->plan->stages[e->stage].transfers, BpwPlanTransfer, e->item).layer_type;
  out->lineage = row->lineage >= 0 ? (guint32) row->lineage : BPW_TIMELINE_NONE;
  out->micro_batch = e->micro_batch;
  /* The row's modelled work once, on its primary item. */
  if (bpw_correlation_row_item (corr, row, 0) == item)
    {
      out->flops = (float) row->flops;
      out->bytes = (float) row->bytes;
    }
  return TRUE;
}

/* Appends the events of pair @p's device as lane @lane: start, end, keys, events at
 * index @at of the data's arrays. Returns the end of the last event. */
static double
bpw_timeline_measured_fill (BpwTimelineData          *data,
                            Interner                 *in,
                            const BpwCorrelation     *corr,
                            const BpwCorrelationPair *p,
                            guint16                   lane,
                            guint32                   at)
{
  const BpwProfile *profile = corr->profile;
  guint8 last[BPW_TIMELINE_N_COLORINGS] = { 0 };
  guint first, n;
  double origin, end = 0;
  gboolean seen = FALSE;

  bpw_profile_device_items (profile, p->device, &first, &n);
  origin = n > 0 ? bpw_profile_item (profile, first)->start : 0;
  /* Extra work before the first match takes the first match's colours. */
  for (guint i = first; i < first + n && !seen; i++)
    {
      BpwTimelineEvent probe = { 0 };

      seen = bpw_timeline_measured_matched (corr, i, last, &probe);
    }
  for (guint i = 0; i < n; i++)
    {
      const BpwProfileItem *item = bpw_profile_item (profile, first + i);
      g_autofree char *name = bpw_profile_item_name (profile, item);
      guint8 keys[BPW_TIMELINE_N_COLORINGS];
      BpwTimelineEvent e = {
        .sim_index = BPW_TIMELINE_NONE, .lineage = BPW_TIMELINE_NONE,
        .pred = BPW_TIMELINE_NONE, .micro_batch = -1, .lane = lane,
        .transfer = item->kind == BPW_KERNEL_COMMUNICATION,
      };
      guint32 k = at + i;

      if (bpw_timeline_measured_matched (corr, first + i, keys, &e))
        memcpy (last, keys, sizeof keys);
      else
        memcpy (keys, last, sizeof keys);
      e.name = bpw_timeline_measured_intern (in, name);
      e.kind = bpw_timeline_measured_intern (in, bpw_kernel_kind_to_string (item->kind));
      data->start[k] = item->start - origin;
      data->end[k] = data->start[k] + item->duration;
      data->max_end[k] = i == 0 ? data->end[k] : MAX (data->max_end[k - 1], data->end[k]);
      for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
        data->key[c][k] = keys[c];
      data->events[k] = e;
      end = MAX (end, data->end[k]);
    }
  return end;
}

/* The lanes in their new order: each rank's modelled lanes, then its measured ones.
 * @remap gets the new index of every old lane; @measured the new index of each pair's. */
static GArray *
bpw_timeline_measured_order (BpwTimelineData      *data,
                             const BpwCorrelation *corr,
                             guint                *remap,
                             guint                *measured)
{
  GArray *lanes = g_array_sized_new (FALSE, FALSE, sizeof (BpwTimelineLane),
                                     data->lanes->len + corr->pairs->len);
  g_autofree gboolean *placed = g_new0 (gboolean, MAX (corr->pairs->len, 1));

  for (guint l = 0; l <= data->lanes->len; l++)
    {
      const BpwTimelineLane *old = l < data->lanes->len
                                   ? &g_array_index (data->lanes, BpwTimelineLane, l) : NULL;

      /* Before a lane of rank R: the measured lanes of every rank below R. */
      for (guint i = 0; i < corr->pairs->len; i++)
        {
          const BpwCorrelationPair *p = &g_array_index (corr->pairs, BpwCorrelationPair, i);
          BpwTimelineLane lane = { 0 };

          if (placed[i] || (old != NULL && p->rank >= old->rank))
            continue;
          lane = (BpwTimelineLane) {
            .rank = p->rank, .stage = bpw_simulation_rank_stage (corr->sim, p->rank),
            .queue = BPW_TIMELINE_QUEUE_MEASURED, .tier = -1, .link = FALSE,
          };
          lane.name = g_string_chunk_insert_const (
            data->strings, g_ptr_array_index (corr->profile->devices, p->device));
          measured[i] = lanes->len;
          placed[i] = TRUE;
          g_array_append_val (lanes, lane);
        }
      if (old == NULL)
        break;
      remap[l] = lanes->len;
      g_array_append_vals (lanes, old, 1);
    }
  return lanes;
}

gboolean
bpw_timeline_data_add_measured_lanes (BpwTimelineData       *data,
                                      const BpwProfile      *profile,
                                      const BpwCorrelation  *corr,
                                      GError               **error)
{
  g_autoptr(GHashTable) names = NULL;
  g_autofree guint *remap = NULL;
  g_autofree guint *measured = NULL;
  GArray *lanes;
  Interner in;
  guint64 n_new = 0;
  guint32 at;
  double end = 0;

  g_return_val_if_fail (data != NULL && data->builder == NULL, FALSE);
  g_return_val_if_fail (profile != NULL && corr != NULL, FALSE);

  if (corr->profile != profile)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: the correlation was made with another profile (%s)"), profile->filename,
                   corr->profile->filename);
      return FALSE;
    }
  for (guint i = 0; i < corr->pairs->len; i++)
    {
      const BpwCorrelationPair *p = &g_array_index (corr->pairs, BpwCorrelationPair, i);
      guint first, n;

      if (p->rank >= data->n_ranks)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("%s: its device %s was correlated with simulated rank %u, which this "
                       "timeline of %u ranks does not show"), profile->filename,
                       (const char *) g_ptr_array_index (profile->devices, p->device), p->rank,
                       data->n_ranks);
          return FALSE;
        }
      bpw_profile_device_items (profile, p->device, &first, &n);
      n_new += n;
    }
  /* Events name their lane with 16 bits. */
  if (data->lanes->len + corr->pairs->len > G_MAXUINT16
      || data->n_events + n_new >= G_MAXUINT32)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: too many lanes or events to show beside this timeline"),
                   profile->filename);
      return FALSE;
    }

  remap = g_new (guint, MAX (data->lanes->len, 1));
  measured = g_new (guint, MAX (corr->pairs->len, 1));
  lanes = bpw_timeline_measured_order (data, corr, remap, measured);
  for (guint32 i = 0; i < data->n_events; i++)
    data->events[i].lane = (guint16) remap[data->events[i].lane];
  g_array_unref (data->lanes);
  data->lanes = lanes;

  at = data->n_events;
  data->n_events += (guint32) n_new;
  data->start = g_renew (double, data->start, MAX (data->n_events, 1));
  data->end = g_renew (double, data->end, MAX (data->n_events, 1));
  data->max_end = g_renew (double, data->max_end, MAX (data->n_events, 1));
  for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
    data->key[c] = g_renew (guint8, data->key[c], MAX (data->n_events, 1));
  data->events = g_renew (BpwTimelineEvent, data->events, MAX (data->n_events, 1));

  names = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < data->names->len; i++)
    g_hash_table_insert (names, g_ptr_array_index (data->names, i), GUINT_TO_POINTER (i + 1));
  in = (Interner) { data, names };
  for (guint i = 0; i < corr->pairs->len; i++)
    {
      const BpwCorrelationPair *p = &g_array_index (corr->pairs, BpwCorrelationPair, i);
      BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, measured[i]);
      guint first, n;

      bpw_profile_device_items (profile, p->device, &first, &n);
      lane->first = at;
      lane->n = n;
      end = MAX (end, bpw_timeline_measured_fill (data, &in, corr, p, (guint16) measured[i], at));
      for (guint32 k = at; k < at + n; k++)
        lane->busy_s += data->end[k] - data->start[k];
      at += n;
    }
  /* The x range is the step; a measured step longer than the simulated one must fit. */
  data->step_s = MAX (data->step_s, end);
  return TRUE;
}
