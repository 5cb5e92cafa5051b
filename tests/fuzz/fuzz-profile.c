/* fuzz-profile.c — libFuzzer target: measured profiles (bpw_profile_load_data)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Chrome/Perfetto traces, PyTorch profiler traces (kineto and the legacy autograd export)
 * and the workbench's own traces. A refused file gets a message located in it; an accepted
 * one must be a consistent profile, because correlation and the reports index into it
 * without checking: every index in range, lanes a partition of the events sorted by
 * start, parents enclosing slices on their own lane, items sorted by device then start,
 * times finite, non-negative and inside the span, names valid UTF-8.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-fuzz.h"
#include "bpw-profile.h"

#define FILENAME "fuzz.trace.json"

static gboolean
is_time (double t)
{
  return isfinite (t) && t >= 0;
}

static void
check_event (const BpwProfile *p,
             guint             i)
{
  const BpwProfileEvent *e = bpw_profile_event (p, i);
  guint hops = 0;

  bpw_fuzz_assert (is_time (e->start) && is_time (e->duration), "event times are finite");
  bpw_fuzz_assert (e->start + e->duration <= p->span_s, "events end inside the span");
  bpw_fuzz_assert (e->name < p->strings->len && e->category < p->strings->len,
                   "event names are interned strings");
  bpw_fuzz_assert (e->lane < p->lanes->len, "events are on a lane");
  bpw_fuzz_assert (e->type < BPW_N_PROFILE_EVENT_TYPES && e->kind < BPW_N_KERNEL_KINDS,
                   "event types and kinds are in range");
  bpw_fuzz_assert (e->item == -1 || (guint) e->item < p->items->len, "event items exist");
  bpw_fuzz_assert (e->micro_batch >= -1 && e->lineage >= -1 && e->external_id >= -1 &&
                   e->stream >= -1 && e->device >= -1, "ids are -1 (unknown) or valid");
  /* Parents are on the same lane, start no later and form a chain that ends. */
  for (const BpwProfileEvent *child = e; child->parent != -1;)
    {
      const BpwProfileEvent *parent;

      bpw_fuzz_assert (child->parent >= 0 && (guint) child->parent < p->events->len,
                       "parents are events");
      parent = bpw_profile_event (p, (guint) child->parent);
      bpw_fuzz_assert (parent != child, "no event is its own parent");
      bpw_fuzz_assert (parent->lane == child->lane, "parents are on their child's lane");
      bpw_fuzz_assert (parent->start <= child->start, "parents start no later than children");
      bpw_fuzz_assert (++hops <= p->events->len, "parent chains end");
      child = parent;
    }
  for (guint k = 0; k < e->n_inputs; k++)
    {
      guint rank = 0;
      const gint64 *dims = bpw_profile_event_input (p, e, k, &rank);

      bpw_fuzz_assert (dims != NULL, "recorded inputs have dimensions");
      bpw_fuzz_assert (dims >= (const gint64 *) (void *) p->dims->data &&
                       dims + rank <= (const gint64 *) (void *) p->dims->data + p->dims->len,
                       "input dimensions lie in the dims array");
      for (guint d = 0; d < rank; d++)
        bpw_fuzz_assert (dims[d] >= 0, "dimensions are non-negative");
    }
}

static void
check_lanes (const BpwProfile *p)
{
  guint total = 0;

  for (guint l = 0; l < p->lanes->len; l++)
    {
      const BpwProfileLane *lane = &g_array_index (p->lanes, BpwProfileLane, l);
      guint n = 0;
      const guint32 *ev = bpw_profile_lane (p, l, &n);

      bpw_fuzz_assert (lane->process_name < p->strings->len &&
                       lane->thread_name < p->strings->len, "lane names are interned");
      bpw_fuzz_assert (n > 0, "lanes without slices are dropped");
      bpw_fuzz_assert (lane->first == total, "lanes are consecutive in lane_events");
      total += n;
      for (guint j = 0; j < n; j++)
        {
          bpw_fuzz_assert (ev[j] < p->events->len, "lane entries are events");
          bpw_fuzz_assert (bpw_profile_event (p, ev[j])->lane == l, "lane entries are its own");
          bpw_fuzz_assert (j == 0 || bpw_profile_event (p, ev[j - 1])->start <=
                                     bpw_profile_event (p, ev[j])->start,
                           "lanes are sorted by start");
        }
    }
  bpw_fuzz_assert (total == p->events->len, "lanes partition the events");
}

static void
check_items (const BpwProfile *p)
{
  guint counted = 0;

  for (guint i = 0; i < p->items->len; i++)
    {
      const BpwProfileItem *it = bpw_profile_item (p, i);
      const BpwProfileItem *prev = i > 0 ? bpw_profile_item (p, i - 1) : NULL;
      g_autofree char *name = NULL;

      bpw_fuzz_assert (it->event < p->events->len, "items name an event");
      bpw_fuzz_assert (it->device < p->devices->len, "items are on a device");
      bpw_fuzz_assert (it->kind < BPW_N_KERNEL_KINDS, "item kinds are in range");
      bpw_fuzz_assert (is_time (it->start) && is_time (it->duration), "item times are finite");
      bpw_fuzz_assert ((guint64) it->first_kernel + it->n_kernels <= p->item_kernels->len,
                       "item kernels lie in item_kernels");
      for (guint k = 0; k < it->n_kernels; k++)
        bpw_fuzz_assert (g_array_index (p->item_kernels, guint32, it->first_kernel + k) <
                         p->events->len, "item kernels are events");
      bpw_fuzz_assert (prev == NULL || prev->device < it->device ||
                       (prev->device == it->device && prev->start <= it->start),
                       "items are sorted by device then start");
      bpw_fuzz_assert (!it->has_shape || (it->m > 0 && it->k > 0 && it->n > 0 && it->batch >= 1),
                       "known matmul shapes are positive");
      name = bpw_profile_item_name (p, it);
      bpw_fuzz_assert (name != NULL && g_utf8_validate (name, -1, NULL), "item names are UTF-8");
    }
  bpw_fuzz_assert (p->device_ids->len == p->devices->len, "every device has an id");
  for (guint d = 0; d < p->devices->len; d++)
    {
      guint first = 0, n = 0;
      double time = bpw_profile_device_time (p, d);

      bpw_profile_device_items (p, d, &first, &n);
      bpw_fuzz_assert (first == counted, "device item ranges are consecutive");
      counted += n;
      bpw_fuzz_assert (isfinite (time) && time >= 0, "device time is finite");
      bpw_fuzz_assert (g_utf8_validate (g_ptr_array_index (p->devices, d), -1, NULL),
                       "device names are UTF-8");
    }
  bpw_fuzz_assert (counted == p->items->len, "device ranges cover the items");
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwProfile) p = NULL;
  g_autofree char *meta = NULL;

  bpw_fuzz_init ();
  p = bpw_profile_load_data (FILENAME, (const char *) data, (gssize) size, &error);
  if (p == NULL)
    {
      bpw_fuzz_check_error (error);
      bpw_fuzz_assert (g_str_has_prefix (error->message, FILENAME ":"),
                       "errors name the file");
      return 0;
    }

  bpw_fuzz_assert (p->format < BPW_N_PROFILE_FORMATS, "the format is known");
  bpw_fuzz_assert (p->events->len <= BPW_PROFILE_MAX_EVENTS, "the event limit holds");
  bpw_fuzz_assert (is_time (p->span_s) && isfinite (p->origin_us), "the span is finite");
  for (guint i = 0; i < p->strings->len; i++)
    bpw_fuzz_assert (g_utf8_validate (bpw_profile_string (p, i), -1, NULL),
                     "interned strings are UTF-8");
  for (guint i = 0; i < p->warnings->len; i++)
    bpw_fuzz_assert (g_utf8_validate (g_ptr_array_index (p->warnings, i), -1, NULL),
                     "warnings are UTF-8");
  for (guint i = 0; i < p->events->len; i++)
    check_event (p, i);
  check_lanes (p);
  check_items (p);
  meta = bpw_profile_meta_describe (&p->meta);
  bpw_fuzz_assert (meta != NULL && g_utf8_validate (meta, -1, NULL), "metadata is UTF-8");
  return 0;
}
