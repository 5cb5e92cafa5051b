/* bpw-profile.c — a measured profile: lanes, nesting, accessors, metadata
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-profile"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-profile-private.h"

/* A slice starting less than this (µs) before another's end starts after it, and one
 * ending less than ROUNDING_US after the end of one it starts in is inside it: exporters
 * round to the µs or to the ns. */
#define NEST_TOLERANCE_US 1e-3
#define ROUNDING_US       1.0

BpwProfile *
_bpw_profile_new (const char *filename)
{
  BpwProfile *p = g_new0 (BpwProfile, 1);

  p->filename = g_strdup (filename != NULL ? filename : "profile");
  p->meta.rank = p->meta.world_size = -1;
  p->events = g_array_new (FALSE, FALSE, sizeof (BpwProfileEvent));
  p->lanes = g_array_new (FALSE, FALSE, sizeof (BpwProfileLane));
  p->items = g_array_new (FALSE, FALSE, sizeof (BpwProfileItem));
  p->item_kernels = g_array_new (FALSE, FALSE, sizeof (guint32));
  p->dims = g_array_new (FALSE, FALSE, sizeof (gint64));
  p->devices = g_ptr_array_new_with_free_func (g_free);
  p->device_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  p->strings = g_ptr_array_new_with_free_func (g_free);
  p->string_index = g_hash_table_new (g_str_hash, g_str_equal);
  p->warnings = g_ptr_array_new_with_free_func (g_free);
  _bpw_profile_intern (p, "");
  return p;
}

guint32
_bpw_profile_intern (BpwProfile *p,
                     const char *str)
{
  gpointer found = g_hash_table_lookup (p->string_index, str);
  char *copy;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  /* Names come from the file: keep them valid UTF-8 for messages and JSON output. */
  copy = g_utf8_make_valid (str, -1);
  g_ptr_array_add (p->strings, copy);
  g_hash_table_insert (p->string_index, g_strdup (str), GUINT_TO_POINTER (p->strings->len));
  return p->strings->len - 1;
}

void
bpw_profile_free (BpwProfile *p)
{
  GHashTableIter it;
  gpointer key;

  if (p == NULL)
    return;
  g_free (p->filename);
  g_free (p->meta.hardware);
  g_free (p->meta.driver);
  g_free (p->meta.runtime);
  g_free (p->meta.framework);
  g_free (p->meta.date);
  g_free (p->meta.trace_name);
  g_free (p->meta.backend);
  g_array_unref (p->events);
  g_array_unref (p->lanes);
  g_free (p->lane_events);
  g_array_unref (p->items);
  g_array_unref (p->item_kernels);
  g_array_unref (p->dims);
  g_ptr_array_unref (p->devices);
  g_array_unref (p->device_ids);
  /* The index's keys are copies of what the file said (the strings may differ after
   * UTF-8 repair), so they are freed here. */
  g_hash_table_iter_init (&it, p->string_index);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_free (key);
  g_hash_table_unref (p->string_index);
  g_ptr_array_unref (p->strings);
  g_ptr_array_unref (p->warnings);
  g_free (p);
}

static int
compare_lane_order (gconstpointer a, gconstpointer b, gpointer data)
{
  const BpwProfileEvent *events = data;
  const BpwProfileEvent *x = &events[*(const guint32 *) a];
  const BpwProfileEvent *y = &events[*(const guint32 *) b];

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  /* The enclosing slice first, then the file's order. */
  if (x->duration != y->duration)
    return x->duration > y->duration ? -1 : 1;
  return *(const guint32 *) a < *(const guint32 *) b ? -1 : 1;
}

/* Drops lanes without slices (metadata-only), sorts each lane's events and links every
 * slice to the one that encloses it. Times are still µs from the origin here. */
static void
build_lanes (BpwProfile *p)
{
  BpwProfileEvent *ev = (BpwProfileEvent *) (void *) p->events->data;
  g_autofree guint32 *remap = g_new0 (guint32, p->lanes->len + 1);
  g_autofree guint32 *fill = NULL;
  g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (BpwProfileLane));
  guint32 stack[BPW_PROFILE_MAX_NESTING];

  for (guint i = 0; i < p->events->len; i++)
    g_array_index (p->lanes, BpwProfileLane, ev[i].lane).n_events++;
  for (guint l = 0; l < p->lanes->len; l++)
    {
      BpwProfileLane lane = g_array_index (p->lanes, BpwProfileLane, l);

      remap[l] = lanes->len;
      if (lane.n_events == 0)
        continue;
      lane.first = lanes->len > 0 ? g_array_index (lanes, BpwProfileLane, lanes->len - 1).first +
                                    g_array_index (lanes, BpwProfileLane, lanes->len - 1).n_events
                                  : 0;
      g_array_append_val (lanes, lane);
    }
  g_array_set_size (p->lanes, 0);
  g_array_append_vals (p->lanes, lanes->data, lanes->len);

  p->lane_events = g_new (guint32, MAX (p->events->len, 1));
  fill = g_new0 (guint32, p->lanes->len + 1);
  for (guint i = 0; i < p->events->len; i++)
    {
      const BpwProfileLane *l;

      ev[i].lane = remap[ev[i].lane];
      l = &g_array_index (p->lanes, BpwProfileLane, ev[i].lane);
      p->lane_events[l->first + fill[ev[i].lane]++] = i;
    }

  for (guint l = 0; l < p->lanes->len; l++)
    {
      const BpwProfileLane *lane = &g_array_index (p->lanes, BpwProfileLane, l);
      guint depth = 0;

      g_qsort_with_data (p->lane_events + lane->first, (gint) lane->n_events, sizeof (guint32),
                         compare_lane_order, ev);
      for (guint j = 0; j < lane->n_events; j++)
        {
          guint32 e = p->lane_events[lane->first + j];

          /* On one thread slices nest or follow each other: one inside another is its
           * child even if rounding lets it end up to a µs later; the workbench's own
           * slices never nest (edited ones may overlap). */
          while (depth > 0 && (p->format == BPW_PROFILE_FORMAT_BPW ||
                               ev[stack[depth - 1]].start + ev[stack[depth - 1]].duration <=
                               ev[e].start + NEST_TOLERANCE_US ||
                               ev[stack[depth - 1]].start + ev[stack[depth - 1]].duration +
                               ROUNDING_US < ev[e].start + ev[e].duration))
            depth--;
          ev[e].parent = depth > 0 ? (gint32) stack[depth - 1] : -1;
          if (depth < BPW_PROFILE_MAX_NESTING)
            stack[depth++] = e;
        }
    }
}

void
_bpw_profile_finish (BpwProfile *p)
{
  BpwProfileEvent *ev = (BpwProfileEvent *) (void *) p->events->data;
  double origin = G_MAXDOUBLE, last = 0;

  for (guint i = 0; i < p->events->len; i++)
    origin = MIN (origin, ev[i].start);
  p->origin_us = p->events->len > 0 ? origin : 0;
  for (guint i = 0; i < p->events->len; i++)
    ev[i].start -= p->origin_us;
  build_lanes (p);

  for (guint i = 0; i < p->events->len; i++)
    {
      ev[i].start *= 1e-6;
      ev[i].duration *= 1e-6;
      last = MAX (last, ev[i].start + ev[i].duration);
      switch (ev[i].type)
        {
        case BPW_PROFILE_EVENT_HOST:
        case BPW_PROFILE_EVENT_KERNEL:
          ev[i].kind = bpw_kernel_kind_from_name (p->format, bpw_profile_event_name (p, &ev[i]));
          break;
        case BPW_PROFILE_EVENT_MEMCPY:
          ev[i].kind = BPW_KERNEL_COPY;
          break;
        case BPW_PROFILE_EVENT_MEMSET:
          ev[i].kind = BPW_KERNEL_FILL;
          break;
        default:
          ev[i].kind = BPW_KERNEL_NONE;
          break;
        }
    }
  p->span_s = last;
}

const gint64 *
bpw_profile_event_input (const BpwProfile      *p,
                         const BpwProfileEvent *e,
                         guint                  i,
                         guint                 *rank)
{
  guint at = e->dims_first;

  *rank = 0;
  if (i >= e->n_inputs)
    return NULL;
  for (guint k = 0; k < i; k++)
    at += 1 + (guint) g_array_index (p->dims, gint64, at);
  *rank = (guint) g_array_index (p->dims, gint64, at);
  return &g_array_index (p->dims, gint64, at + 1);
}

const guint32 *
bpw_profile_lane (const BpwProfile *p,
                  guint             lane,
                  guint            *n_events)
{
  const BpwProfileLane *l;

  g_return_val_if_fail (lane < p->lanes->len, NULL);
  l = &g_array_index (p->lanes, BpwProfileLane, lane);
  *n_events = l->n_events;
  return p->lane_events + l->first;
}

void
bpw_profile_device_items (const BpwProfile *p,
                          guint             device,
                          guint            *first,
                          guint            *n_items)
{
  guint lo = 0, hi = p->items->len, begin;

  /* Items are sorted by device: two binary searches. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (bpw_profile_item (p, mid)->device < device)
        lo = mid + 1;
      else
        hi = mid;
    }
  begin = lo;
  hi = p->items->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (bpw_profile_item (p, mid)->device <= device)
        lo = mid + 1;
      else
        hi = mid;
    }
  *first = begin;
  *n_items = lo - begin;
}

double
bpw_profile_device_time (const BpwProfile *p,
                         guint             device)
{
  guint first, n;
  double sum = 0;

  bpw_profile_device_items (p, device, &first, &n);
  for (guint i = first; i < first + n; i++)
    sum += bpw_profile_item (p, i)->duration;
  return sum;
}

char *
bpw_profile_item_name (const BpwProfile     *p,
                       const BpwProfileItem *item)
{
  const BpwProfileEvent *e = bpw_profile_event (p, item->event);

  if (item->n_kernels > 0 && e->type == BPW_PROFILE_EVENT_HOST)
    {
      guint32 k = g_array_index (p->item_kernels, guint32, item->first_kernel);

      return g_strdup_printf ("%s → %s", bpw_profile_event_name (p, e),
                              bpw_profile_event_name (p, bpw_profile_event (p, k)));
    }
  return g_strdup (bpw_profile_event_name (p, e));
}

char *
bpw_profile_meta_describe (const BpwProfileMeta *m)
{
  const char *parts[] = { m->hardware, m->driver, m->runtime, m->framework, m->date };
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    if (parts[i] != NULL)
      g_string_append_printf (out, "%s%s", out->len > 0 ? "; " : "", parts[i]);
  if (m->backend != NULL && m->world_size > 0)
    g_string_append_printf (out, "%s%s rank %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT,
                            out->len > 0 ? "; " : "", m->backend, m->rank, m->world_size);
  if (out->len == 0)
    g_string_append (out, "no metadata");
  return g_string_free (out, FALSE);
}

const char *
bpw_profile_format_to_string (BpwProfileFormat format)
{
  static const char * const names[] = { "chrome", "bpw", "pytorch", "pytorch-legacy" };

  g_return_val_if_fail (format < BPW_N_PROFILE_FORMATS, "?");
  return names[format];
}

const char *
bpw_profile_event_type_to_string (BpwProfileEventType type)
{
  static const char * const names[] = {
    "host", "kernel", "memcpy", "memset", "runtime", "annotation",
  };

  g_return_val_if_fail (type < BPW_N_PROFILE_EVENT_TYPES, "?");
  return names[type];
}
