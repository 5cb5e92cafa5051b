/* bpw-timeline-data.c — a simulated step as lanes of events, for the timeline chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-timeline-data"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-timeline-data-private.h"

typedef struct
{
  GArray     *start;     /* double */
  GArray     *end;       /* double */
  GArray     *keys;      /* guint8[BPW_TIMELINE_N_COLORINGS] per event */
  GArray     *events;    /* BpwTimelineEvent */
  GHashTable *interned;  /* string → id + 1 */
} Builder;

static Builder *
builder_new (void)
{
  Builder *b = g_new0 (Builder, 1);

  b->start = g_array_new (FALSE, FALSE, sizeof (double));
  b->end = g_array_new (FALSE, FALSE, sizeof (double));
  b->keys = g_array_new (FALSE, FALSE, BPW_TIMELINE_N_COLORINGS);
  b->events = g_array_new (FALSE, FALSE, sizeof (BpwTimelineEvent));
  b->interned = g_hash_table_new (g_str_hash, g_str_equal);
  return b;
}

static void
builder_free (Builder *b)
{
  if (b == NULL)
    return;
  g_array_unref (b->start);
  g_array_unref (b->end);
  g_array_unref (b->keys);
  g_array_unref (b->events);
  g_hash_table_unref (b->interned);
  g_free (b);
}

BpwTimelineData *
bpw_timeline_data_new (const char *title,
                       double      step_s)
{
  BpwTimelineData *data = g_new0 (BpwTimelineData, 1);

  data->title = g_strdup (title != NULL ? title : _("Timeline"));
  data->label = g_strdup ("");
  data->step_s = step_s;
  data->lanes = g_array_new (FALSE, FALSE, sizeof (BpwTimelineLane));
  data->names = g_ptr_array_new ();
  data->strings = g_string_chunk_new (4096);
  data->builder = builder_new ();
  return data;
}

void
bpw_timeline_data_free (BpwTimelineData *data)
{
  if (data == NULL)
    return;
  _bpw_timeline_summary_free (data->summary);
  g_free (data->title);
  g_free (data->label);
  g_strfreev (data->tier_names);
  g_array_unref (data->lanes);
  g_free (data->start);
  g_free (data->end);
  g_free (data->max_end);
  for (guint k = 0; k < BPW_TIMELINE_N_COLORINGS; k++)
    g_free (data->key[k]);
  g_free (data->events);
  g_ptr_array_unref (data->names);
  if (data->memory != NULL)
    for (guint32 r = 0; r < data->n_ranks; r++)
      {
        g_free (data->memory[r].time);
        g_free (data->memory[r].bytes);
        g_free (data->memory[r].block_max);
      }
  g_free (data->memory);
  g_free (data->critical);
  g_string_chunk_free (data->strings);
  builder_free (data->builder);
  g_free (data);
}

guint32
bpw_timeline_data_intern (BpwTimelineData *data,
                          const char      *str)
{
  Builder *b = data->builder;
  gpointer id;
  char *copy;

  g_return_val_if_fail (b != NULL, 0);

  if (str == NULL)
    str = "";
  id = g_hash_table_lookup (b->interned, str);
  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  copy = g_string_chunk_insert_const (data->strings, str);
  g_ptr_array_add (data->names, copy);
  g_hash_table_insert (b->interned, copy, GUINT_TO_POINTER (data->names->len));
  return data->names->len - 1;
}

guint
bpw_timeline_data_add_lane (BpwTimelineData *data,
                            guint32          rank,
                            guint            queue,
                            gint             tier,
                            const char      *name)
{
  BpwTimelineLane lane = {
    .rank = rank, .stage = rank, .queue = queue, .tier = tier, .link = tier >= 0,
    .name = g_string_chunk_insert_const (data->strings, name != NULL ? name : ""),
    .n_layers = -1,
  };

  g_return_val_if_fail (data->builder != NULL, 0);

  data->n_ranks = MAX (data->n_ranks, rank + 1);
  if (tier >= 0)
    data->n_tiers = MAX (data->n_tiers, (guint) tier + 1);
  g_array_append_val (data->lanes, lane);
  return data->lanes->len - 1;
}

void
bpw_timeline_data_add_event (BpwTimelineData        *data,
                             double                  start,
                             double                  end,
                             const guint8            keys[BPW_TIMELINE_N_COLORINGS],
                             const BpwTimelineEvent *event)
{
  Builder *b = data->builder;

  g_return_if_fail (b != NULL);
  g_return_if_fail (event->lane < data->lanes->len);

  /* Summaries count time in integer ticks: keep every time finite. */
  if (!isfinite (start))
    start = 0;
  if (!isfinite (end) || !(end >= start))
    end = start;
  g_array_append_val (b->start, start);
  g_array_append_val (b->end, end);
  g_array_append_vals (b->keys, keys, 1);
  g_array_append_vals (b->events, event, 1);
}

typedef struct
{
  guint16  lane;
  double   start;
  guint32  index;
} SortKey;

static gint
compare_key (gconstpointer a, gconstpointer b)
{
  const SortKey *x = a, *y = b;

  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Events of a lane contiguous and by start; preds follow the permutation. */
static void
sort_events (BpwTimelineData *data, Builder *b)
{
  guint32 n = b->events->len;
  g_autofree SortKey *keys = NULL;
  g_autofree guint32 *where = NULL;
  gboolean sorted = TRUE;

  for (guint32 i = 1; i < n && sorted; i++)
    {
      const BpwTimelineEvent *p = &g_array_index (b->events, BpwTimelineEvent, i - 1);
      const BpwTimelineEvent *e = &g_array_index (b->events, BpwTimelineEvent, i);

      sorted = p->lane < e->lane ||
               (p->lane == e->lane &&
                g_array_index (b->start, double, i - 1) <= g_array_index (b->start, double, i));
    }
  data->start = g_new (double, MAX (n, 1));
  data->end = g_new (double, MAX (n, 1));
  for (guint k = 0; k < BPW_TIMELINE_N_COLORINGS; k++)
    data->key[k] = g_new (guint8, MAX (n, 1));
  data->events = g_new (BpwTimelineEvent, MAX (n, 1));
  /* An empty timeline (a plot before its first step) has NULL arrays: memcpy may not see
   * them, even for 0 bytes. */
  if (n == 0)
    return;
  if (sorted)
    {
      memcpy (data->start, b->start->data, n * sizeof (double));
      memcpy (data->end, b->end->data, n * sizeof (double));
      memcpy (data->events, b->events->data, n * sizeof (BpwTimelineEvent));
      for (guint32 i = 0; i < n; i++)
        for (guint k = 0; k < BPW_TIMELINE_N_COLORINGS; k++)
          data->key[k][i] = ((const guint8 *) b->keys->data)[i * BPW_TIMELINE_N_COLORINGS + k];
      return;
    }

  keys = g_new (SortKey, n);
  where = g_new (guint32, n);
  for (guint32 i = 0; i < n; i++)
    keys[i] = (SortKey) { g_array_index (b->events, BpwTimelineEvent, i).lane,
                          g_array_index (b->start, double, i), i };
  qsort (keys, n, sizeof (SortKey), compare_key);
  for (guint32 i = 0; i < n; i++)
    where[keys[i].index] = i;
  for (guint32 i = 0; i < n; i++)
    {
      guint32 from = keys[i].index;
      BpwTimelineEvent e = g_array_index (b->events, BpwTimelineEvent, from);

      if (e.pred != BPW_TIMELINE_NONE)
        e.pred = e.pred < n ? where[e.pred] : BPW_TIMELINE_NONE;
      data->events[i] = e;
      data->start[i] = g_array_index (b->start, double, from);
      data->end[i] = g_array_index (b->end, double, from);
      for (guint k = 0; k < BPW_TIMELINE_N_COLORINGS; k++)
        data->key[k][i] = ((const guint8 *) b->keys->data)[from * BPW_TIMELINE_N_COLORINGS + k];
    }
  for (guint i = 0; i < data->n_critical; i++)
    data->critical[i] = data->critical[i] < n ? where[data->critical[i]] : 0;
}

void
bpw_timeline_data_finish (BpwTimelineData *data)
{
  Builder *b = data->builder;
  guint32 n;

  g_return_if_fail (b != NULL);

  n = b->events->len;
  sort_events (data, b);
  data->n_events = n;
  data->max_end = g_new (double, MAX (n, 1));
  for (guint l = 0; l < data->lanes->len; l++)
    {
      BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, l);

      lane->first = lane->n = 0;
      lane->busy_s = 0;
    }
  for (guint32 i = 0; i < n; i++)
    {
      BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, data->events[i].lane);

      if (lane->n == 0)
        {
          lane->first = i;
          data->max_end[i] = data->end[i];
        }
      else
        data->max_end[i] = MAX (data->max_end[i - 1], data->end[i]);
      lane->n++;
      lane->busy_s += data->end[i] - data->start[i];
      data->step_s = MAX (data->step_s, data->end[i]);
    }
  _bpw_timeline_summary_build (data);
  if (data->tier_names == NULL)
    {
      data->tier_names = g_new0 (char *, data->n_tiers + 1);
      for (guint t = 0; t < data->n_tiers; t++)
        data->tier_names[t] = g_strdup_printf (_("tier %u"), t);
    }
  builder_free (data->builder);
  data->builder = NULL;
}

guint32
bpw_timeline_data_lane_first_after (const BpwTimelineData *data,
                                    guint                  lane,
                                    double                 t)
{
  const BpwTimelineLane *l;
  guint32 lo, hi;

  g_return_val_if_fail (lane < data->lanes->len, 0);

  l = &g_array_index (data->lanes, BpwTimelineLane, lane);
  lo = l->first;
  hi = l->first + l->n;
  /* max_end is non-decreasing within the lane. */
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (data->max_end[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ---- from a simulation ---- */

static guint32
intern_cached (BpwTimelineData *data, GHashTable *by_pointer, const char *str)
{
  gpointer id = g_hash_table_lookup (by_pointer, str);
  guint32 v;

  /* Event names are pointers into the work graph's string table: one lookup by pointer
   * for most events, by content once per distinct pointer. */
  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  v = bpw_timeline_data_intern (data, str);
  g_hash_table_insert (by_pointer, (gpointer) str, GUINT_TO_POINTER (v + 1));
  return v;
}

static void
event_keys (const BpwSimulation *sim, const BpwSimEvent *e, guint8 keys[], const char **kind)
{
  keys[BPW_TIMELINE_COLOR_PHASE] = e->phase;
  keys[BPW_TIMELINE_COLOR_BOTTLENECK] = bpw_simulation_event_bottleneck (sim, e);
  if (e->kind == BPW_SIM_EVENT_TASK)
    {
      const BpwPlanTask *t = &g_array_index (sim->plan->stages[e->stage].tasks, BpwPlanTask,
                                             e->item);

      keys[BPW_TIMELINE_COLOR_LAYER_TYPE] = t->layer_type;
      *kind = bpw_primitive_to_string (t->primitive);
    }
  else
    {
      const BpwPlanTransfer *t = &g_array_index (sim->plan->stages[e->stage].transfers,
                                                 BpwPlanTransfer, e->item);

      keys[BPW_TIMELINE_COLOR_LAYER_TYPE] = t->layer_type;
      *kind = bpw_collective_to_string (t->kind);
    }
}

static void
collect_memory (BpwTimelineData *data, const BpwSimulation *sim)
{
  data->memory = g_new0 (BpwTimelineMemory, data->n_ranks);
  for (guint32 r = 0; r < data->n_ranks; r++)
    {
      g_autoptr(GArray) curve = bpw_simulation_memory_curve (sim, r);
      BpwTimelineMemory *m = &data->memory[r];
      gint64 stage = bpw_simulation_rank_stage (sim, r);

      m->rank = r;
      m->n = curve->len;
      m->time = g_new (double, MAX (curve->len, 1));
      m->bytes = g_new (double, MAX (curve->len, 1));
      for (guint i = 0; i < curve->len; i++)
        {
          const BpwMemorySample *s = &g_array_index (curve, BpwMemorySample, i);

          m->time[i] = s->time;
          m->bytes[i] = s->total;
        }
      m->block_max = g_new (double, m->n / BPW_TIMELINE_MEMORY_BLOCK + 1);
      for (guint b = 0; b * BPW_TIMELINE_MEMORY_BLOCK < m->n; b++)
        {
          m->block_max[b] = m->bytes[b * BPW_TIMELINE_MEMORY_BLOCK];
          for (guint i = b * BPW_TIMELINE_MEMORY_BLOCK;
               i < MIN ((b + 1) * BPW_TIMELINE_MEMORY_BLOCK, m->n); i++)
            m->block_max[b] = MAX (m->block_max[b], m->bytes[i]);
        }
      m->peak = sim->memory[stage].peak;
      m->peak_time = sim->memory[stage].peak_time;
    }
}

BpwTimelineData *
bpw_timeline_data_new_from_simulation (const BpwSimulation *sim,
                                       const char          *title,
                                       const char          *label,
                                       gboolean             with_memory)
{
  g_autofree char *own_title = NULL;
  g_autofree guint32 *map = NULL;
  g_autoptr(GHashTable) by_pointer = g_hash_table_new (g_direct_hash, g_direct_equal);
  BpwTimelineData *data;
  const BpwBlueprint *bp;
  guint32 next = 0;

  g_return_val_if_fail (sim != NULL, NULL);

  if (title == NULL)
    title = own_title = g_strdup_printf (_("Timeline: %s, simulated step"), label != NULL ? label
                                                                                       : _("plan"));
  data = bpw_timeline_data_new (title, sim->step_time_s);
  g_free (data->label);
  data->label = g_strdup (label != NULL ? label : "");
  data->capacity = sim->plan->capacity;
  bp = sim->plan->blueprint;
  data->n_tiers = bp->n_tiers;
  data->tier_names = g_new0 (char *, bp->n_tiers + 1);
  for (guint t = 0; t < bp->n_tiers; t++)
    data->tier_names[t] = g_strdup (bp->tiers[t].name);

  /* Data indices in lane order first, so that preds can point at any lane. */
  map = g_new (guint32, MAX (sim->events->len, 1));
  memset (map, 0xff, sim->events->len * sizeof (guint32));
  for (guint32 r = 0; r < sim->n_ranks; r++)
    for (guint32 q = 0; q < sim->n_queues; q++)
      {
        guint32 n;
        const guint32 *ev = bpw_simulation_lane (sim, r, q, &n);
        BpwTimelineLane *lane;
        const BpwStage *stage;

        if (n == 0)
          continue;
        bpw_timeline_data_add_lane (data, r, q, q >= 2 ? (gint) BPW_SIM_QUEUE_TIER (q) : -1,
                                    bpw_simulation_queue_name (sim, q));
        lane = &g_array_index (data->lanes, BpwTimelineLane, data->lanes->len - 1);
        lane->stage = bpw_simulation_rank_stage (sim, r);
        /* The plan knows what the stage runs: the lanes are named by it. */
        stage = &sim->plan->dist->stages[lane->stage];
        lane->first_layer = stage->first_layer;
        lane->n_layers = stage->n_layers;
        {
          /* Interleaved stages hold one run of blocks per model chunk. */
          g_autofree char *ranges = bpw_dist_work_stage_layer_ranges (sim->plan->dist,
                                                                      lane->stage);

          lane->layers = g_string_chunk_insert_const (data->strings, ranges);
        }
        lane->embedding = stage->has_embedding;
        lane->head = stage->has_head;
        for (guint32 i = 0; i < n; i++)
          map[ev[i]] = next++;
      }
  data->n_ranks = sim->n_ranks;

  for (guint l = 0; l < data->lanes->len; l++)
    {
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, l);
      guint32 n;
      const guint32 *ev = bpw_simulation_lane (sim, lane->rank, lane->queue, &n);

      for (guint32 i = 0; i < n; i++)
        {
          const BpwSimEvent *e = bpw_simulation_event (sim, ev[i]);
          guint8 keys[BPW_TIMELINE_N_COLORINGS];
          const char *kind = "";
          double flops, bytes;
          BpwTimelineEvent out;

          event_keys (sim, e, keys, &kind);
          bpw_simulation_event_work (sim, e, &flops, &bytes);
          out = (BpwTimelineEvent) {
            .sim_index = ev[i], .lineage = e->lineage,
            .pred = e->pred != BPW_SIM_NONE && e->pred < sim->events->len ? map[e->pred]
                                                                          : BPW_TIMELINE_NONE,
            .name = intern_cached (data, by_pointer, bpw_simulation_event_name (sim, e)),
            .kind = intern_cached (data, by_pointer, kind), .micro_batch = e->micro_batch,
            .lane = (guint16) l, .transfer = e->kind == BPW_SIM_EVENT_TRANSFER,
            .flags = e->flags, .flops = (float) flops, .bytes = (float) bytes,
          };
          bpw_timeline_data_add_event (data, e->start, e->end, keys, &out);
        }
    }

  data->n_critical = sim->critical_path->len;
  data->critical = g_new (guint32, MAX (data->n_critical, 1));
  for (guint i = 0; i < data->n_critical; i++)
    {
      guint32 s = g_array_index (sim->critical_path, guint32, i);

      data->critical[i] = s < sim->events->len && map[s] != BPW_TIMELINE_NONE ? map[s] : 0;
    }
  bpw_timeline_data_finish (data);
  data->step_s = sim->step_time_s;
  if (with_memory)
    collect_memory (data, sim);
  return data;
}
