/* bpw-lifetimes-data.c — every buffer of one simulated rank, for the lifetimes chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-lifetimes-data"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-lifetimes-data.h"
#include "bpw-simulation-buffers.h"
#include "bpw-work-graph.h"

const char *
bpw_lifetime_category_name (BpwMemoryCategory category)
{
  static const char * const names[BPW_N_MEM_CATEGORIES] = {
    [BPW_MEM_WEIGHTS] = N_("Weights"), [BPW_MEM_GRADIENTS] = N_("Gradients"),
    [BPW_MEM_OPTIMIZER] = N_("Optimizer state"), [BPW_MEM_CHECKPOINTS] = N_("Checkpoints"),
    [BPW_MEM_TEMPORARIES] = N_("Temporaries"), [BPW_MEM_COMMUNICATION] = N_("Communication"),
    [BPW_MEM_KV_CACHE] = N_("KV cache"),
  };

  return category < BPW_N_MEM_CATEGORIES ? _(names[category]) : "?";
}

BpwLifetimesData *
bpw_lifetimes_data_new (const char *title,
                        double      step_s,
                        double      capacity)
{
  BpwLifetimesData *data = g_new0 (BpwLifetimesData, 1);

  data->title = g_strdup (title != NULL ? title : _("Buffer lifetimes"));
  data->label = g_strdup ("");
  data->step_s = step_s;
  data->capacity = capacity;
  data->buffers = g_array_new (FALSE, FALSE, sizeof (BpwLifetimeBuffer));
  data->groups = g_array_new (FALSE, FALSE, sizeof (BpwLifetimeGroup));
  data->curve = g_array_new (FALSE, FALSE, sizeof (BpwMemorySample));
  data->names = g_ptr_array_new ();
  data->strings = g_string_chunk_new (4096);
  data->interned = g_hash_table_new (g_str_hash, g_str_equal);
  return data;
}

void
bpw_lifetimes_data_free (BpwLifetimesData *data)
{
  if (data == NULL)
    return;
  g_free (data->title);
  g_free (data->label);
  g_array_unref (data->buffers);
  g_array_unref (data->groups);
  g_array_unref (data->curve);
  g_ptr_array_unref (data->names);
  g_string_chunk_free (data->strings);
  g_hash_table_unref (data->interned);
  g_free (data);
}

guint32
bpw_lifetimes_data_intern (BpwLifetimesData *data,
                           const char       *str)
{
  gpointer id;
  char *copy;

  if (str == NULL)
    str = "";
  id = g_hash_table_lookup (data->interned, str);
  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  copy = g_string_chunk_insert_const (data->strings, str);
  g_ptr_array_add (data->names, copy);
  g_hash_table_insert (data->interned, copy, GUINT_TO_POINTER (data->names->len));
  return data->names->len - 1;
}

void
bpw_lifetimes_data_add (BpwLifetimesData        *data,
                        const BpwLifetimeBuffer *buffer)
{
  BpwLifetimeBuffer b = *buffer;

  b.category = MIN (b.category, BPW_N_MEM_CATEGORIES - 1);
  b.level = MIN (b.level, BPW_N_LIFETIME_LEVELS - 1);
  b.freed = MAX (b.freed, b.allocated);
  g_array_append_val (data->buffers, b);
}

static gint
compare_buffers (gconstpointer a, gconstpointer b)
{
  const BpwLifetimeBuffer *x = a, *y = b;

  if (x->level != y->level)
    return x->level < y->level ? -1 : 1;
  if (x->category != y->category)
    return x->category < y->category ? -1 : 1;
  if (x->allocated != y->allocated)
    return x->allocated < y->allocated ? -1 : 1;
  if (x->freed != y->freed)
    return x->freed < y->freed ? -1 : 1;
  return (x->name > y->name) - (x->name < y->name);
}

/* A min-heap of tracks by the time they become free (then by index: deterministic). */
typedef struct
{
  double   free_at;
  guint32  track;
} Slot;

static gboolean
slot_less (const Slot *a, const Slot *b)
{
  return a->free_at < b->free_at || (a->free_at == b->free_at && a->track < b->track);
}

static void
heap_push (GArray *heap, Slot s)
{
  guint i = heap->len;

  g_array_append_val (heap, s);
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      Slot *h = (Slot *) heap->data;

      if (!slot_less (&h[i], &h[parent]))
        break;
      s = h[i], h[i] = h[parent], h[parent] = s;
      i = parent;
    }
}

static Slot
heap_pop (GArray *heap)
{
  Slot *h = (Slot *) heap->data, top = h[0];
  guint i = 0, n = heap->len - 1;

  h[0] = h[n];
  g_array_set_size (heap, n);
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      Slot s;

      if (l < n && slot_less (&h[l], &h[m]))
        m = l;
      if (r < n && slot_less (&h[r], &h[m]))
        m = r;
      if (m == i)
        break;
      s = h[i], h[i] = h[m], h[m] = s;
      i = m;
    }
  return top;
}

typedef struct
{
  double t, bytes;
} Change;

static gint
compare_change (gconstpointer a, gconstpointer b)
{
  const Change *x = a, *y = b;

  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  /* Frees first at one instant: intervals are half-open. */
  return (x->bytes > 0) - (y->bytes > 0);
}

static void
pack_group (BpwLifetimesData *data, BpwLifetimeGroup *g)
{
  g_autoptr(GArray) heap = g_array_new (FALSE, FALSE, sizeof (Slot));
  g_autofree Change *changes = g_new (Change, 2 * (gsize) g->n + 1);
  double cur = 0;

  for (guint32 i = 0; i < g->n; i++)
    {
      BpwLifetimeBuffer *b = &g_array_index (data->buffers, BpwLifetimeBuffer, g->first + i);
      Slot s;

      if (heap->len > 0 && ((Slot *) heap->data)[0].free_at <= b->allocated)
        s = heap_pop (heap);
      else
        s = (Slot) { 0, g->tracks++ };
      b->track = s.track;
      s.free_at = b->freed;
      heap_push (heap, s);
      changes[2 * i] = (Change) { b->allocated, b->bytes };
      changes[2 * i + 1] = (Change) { b->freed, -b->bytes };
      if (b->at_peak)
        g->at_peak += b->bytes;
    }
  qsort (changes, 2 * (gsize) g->n, sizeof (Change), compare_change);
  for (guint32 i = 0; i < 2 * g->n; i++)
    {
      cur += changes[i].bytes;
      g->peak_bytes = MAX (g->peak_bytes, cur);
    }
}

void
bpw_lifetimes_data_finish (BpwLifetimesData *data)
{
  g_array_set_size (data->groups, 0);
  if (data->peak <= 0 && data->curve->len > 0)
    for (guint i = 0; i < data->curve->len; i++)
      {
        const BpwMemorySample *s = &g_array_index (data->curve, BpwMemorySample, i);

        if (s->total > data->peak)
          {
            data->peak = s->total;
            data->peak_time = s->time;
            memcpy (data->at_peak, s->bytes, sizeof data->at_peak);
          }
      }
  g_array_sort (data->buffers, compare_buffers);
  for (guint32 i = 0; i < data->buffers->len; i++)
    {
      BpwLifetimeBuffer *b = &g_array_index (data->buffers, BpwLifetimeBuffer, i);
      BpwLifetimeGroup *g = data->groups->len > 0
                              ? &g_array_index (data->groups, BpwLifetimeGroup,
                                                data->groups->len - 1)
                              : NULL;

      if (g == NULL || g->level != b->level || g->category != b->category)
        {
          BpwLifetimeGroup ng = { .level = b->level, .category = b->category, .first = i };

          g_array_append_val (data->groups, ng);
          g = &g_array_index (data->groups, BpwLifetimeGroup, data->groups->len - 1);
        }
      g->n++;
      b->group = (guint8) MIN (data->groups->len - 1, 255u);
      b->at_peak = b->allocated <= data->peak_time && data->peak_time < b->freed;
    }
  for (guint i = 0; i < data->groups->len; i++)
    pack_group (data, &g_array_index (data->groups, BpwLifetimeGroup, i));
}

/* ---- from a simulation ---- */

static const char *
buffer_name (const BpwSimulation *sim, const BpwLiveBuffer *lb, char *buf, gsize size)
{
  const BpwWorkGraph *g = sim->plan->dist->graph;

  if (lb->tensor >= 0 && (guint) lb->tensor < g->tensors->len)
    return bpw_work_graph_name (g, bpw_work_graph_tensor (g, lb->tensor)->name);
  g_snprintf (buf, size, _("%s buffer"),
              bpw_simulation_event_name (sim, bpw_simulation_event (sim, lb->event)));
  return buf;
}

static void
add_persistent (BpwLifetimesData *data, guint category, guint level, double bytes,
                const char *name)
{
  BpwLifetimeBuffer b = {
    .allocated = 0, .freed = data->step_s, .bytes = bytes, .lineage = BPW_SIM_NONE,
    .name = bpw_lifetimes_data_intern (data, name), .op = bpw_lifetimes_data_intern (data, ""),
    .micro_batch = -1, .category = category, .level = level, .persistent = TRUE,
  };

  /* Below a byte is rounding of long sums, not state. */
  if (bytes >= 1)
    bpw_lifetimes_data_add (data, &b);
}

BpwLifetimesData *
bpw_lifetimes_data_new_from_simulation (const BpwSimulation *sim,
                                        gint64               rank,
                                        const char          *title,
                                        const char          *label,
                                        GError             **error)
{
  g_autoptr(GArray) live = NULL;
  g_autofree char *own_title = NULL;
  double transient[BPW_N_MEM_CATEGORIES] = { 0 };
  const BpwSimMemory *mem;
  BpwLifetimesData *data;
  gint64 stage;

  g_return_val_if_fail (sim != NULL, NULL);

  if (rank < 0)
    {
      rank = 0;
      for (guint32 r = 1; r < sim->n_ranks; r++)
        if (sim->memory[bpw_simulation_rank_stage (sim, r)].peak >
            sim->memory[bpw_simulation_rank_stage (sim, rank)].peak)
          rank = r;
    }
  if (rank >= (gint64) sim->n_ranks)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("the plan has %u pipeline stages (0 to %u); there is no stage %" PRId64), sim->n_ranks, sim->n_ranks - 1, rank);
      return NULL;
    }
  stage = bpw_simulation_rank_stage (sim, (guint32) rank);
  mem = &sim->memory[stage];
  if (title == NULL)
    title = own_title = g_strdup_printf (_("Buffer lifetimes: %s, pipeline stage %" PRId64),
                                         label != NULL ? label : _("plan"), stage);
  data = bpw_lifetimes_data_new (title, sim->step_time_s, sim->plan->capacity);
  g_free (data->label);
  data->label = g_strdup (label != NULL ? label : "");
  data->rank = (guint32) rank;
  data->stage = stage;
  data->peak = mem->peak;
  data->peak_time = mem->peak_time;
  memcpy (data->at_peak, mem->at_peak, sizeof data->at_peak);
  data->host_bytes = sim->plan->stages[stage].memory.host_total;

  live = bpw_simulation_buffers (sim, (guint32) rank);
  for (guint i = 0; i < live->len; i++)
    {
      const BpwLiveBuffer *lb = &g_array_index (live, BpwLiveBuffer, i);
      const BpwSimEvent *e = bpw_simulation_event (sim, lb->event);
      char buf[160];
      BpwLifetimeBuffer b = {
        .allocated = lb->allocated, .freed = lb->freed, .bytes = lb->bytes,
        .lineage = e->lineage,
        .name = bpw_lifetimes_data_intern (data, buffer_name (sim, lb, buf, sizeof buf)),
        .op = bpw_lifetimes_data_intern (data, bpw_simulation_event_name (sim, e)),
        .micro_batch = lb->micro_batch, .category = lb->category, .level = BPW_LIFETIME_DEVICE,
      };

      if (lb->allocated <= mem->peak_time && mem->peak_time < lb->freed)
        transient[MIN (lb->category, BPW_N_MEM_CATEGORIES - 1)] += lb->bytes;
      bpw_lifetimes_data_add (data, &b);
    }
  /* What is live at the peak beyond the buffers is the constant persistent state. */
  for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
    add_persistent (data, c, BPW_LIFETIME_DEVICE, mem->at_peak[c] - transient[c],
                    bpw_lifetime_category_name (c));
  add_persistent (data, BPW_MEM_OPTIMIZER, BPW_LIFETIME_HOST, data->host_bytes,
                  _("Offloaded state"));

  g_array_unref (data->curve);
  data->curve = bpw_simulation_memory_curve (sim, (guint32) rank);
  bpw_lifetimes_data_finish (data);
  return data;
}
