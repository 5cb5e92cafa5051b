/* bpw-simulation-memory.c — device memory over the simulated step: curve, peak, live buffers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Persistent state (weights, gradients, optimizer state, KV cache) is constant at the
 * plan's placement. Everything else is replayed from the events: a task allocates the
 * buffers it produces when it starts and frees those it reads last when it ends; a
 * transfer holds its receive buffer while it runs; a pipeline send frees the send buffer
 * when it ends. At one instant frees come before allocations, so intervals are half-open.
 * The optimizer step, from its first task's start to its last task's end, holds its
 * scratch and not the weights that are autocast's working copies (bpw-plan-memory.c).
 */
#define G_LOG_DOMAIN "bpw-simulation-memory"

#include "config.h"

#include <string.h>

#include "bpw-simulation-private.h"

typedef struct
{
  double  time;
  double  bytes;     /* negative: a free */
  guint32 category;
} Delta;

static gint
compare_delta (gconstpointer a, gconstpointer b, gpointer data)
{
  const Delta *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  /* Frees first at one instant; the order within allocations or frees does not matter,
   * the state is read once all changes of an instant are applied. */
  return (x->bytes > 0) - (y->bytes > 0);
}

/* A rank's deltas in three streams. Tasks are issued in start order, so their
 * allocations come sorted and (with one issue stream) so do their frees; the transfers'
 * buffers and the send buffers are few and sorted apart. Merging the streams replaces a
 * sort of millions of deltas. */
typedef struct
{
  GArray *alloc;
  GArray *free;
  GArray *other;
} Deltas;

static void
deltas_init (Deltas *d)
{
  d->alloc = g_array_new (FALSE, FALSE, sizeof (Delta));
  d->free = g_array_new (FALSE, FALSE, sizeof (Delta));
  d->other = g_array_new (FALSE, FALSE, sizeof (Delta));
}

static void
deltas_clear (Deltas *d)
{
  g_clear_pointer (&d->alloc, g_array_unref);
  g_clear_pointer (&d->free, g_array_unref);
  g_clear_pointer (&d->other, g_array_unref);
}

static void
push (GArray *deltas, double time, double bytes, guint category)
{
  Delta d = { .time = time, .bytes = bytes, .category = category };

  if (bytes != 0)
    g_array_append_val (deltas, d);
}

static void
sort_stream (GArray *a)
{
  for (guint i = 1; i < a->len; i++)
    if (compare_delta (&g_array_index (a, Delta, i - 1), &g_array_index (a, Delta, i), NULL) > 0)
      {
        g_qsort_with_data (a->data, (gint) a->len, sizeof (Delta), compare_delta, NULL);
        return;
      }
}

static const SimList *
send_list (const SimProgram *p, guint32 rank, const BpwSimEvent *e)
{
  return _bpw_sim_list (p, &p->stages[rank],
                        e->flags & BPW_SIM_FLAG_BACKWARD ? SIM_SEG_BACKWARD : SIM_SEG_FORWARD,
                        e->chunk);
}

/* The allocations and frees of one event of column rank @rank. */
typedef struct
{
  double start, end;   /* start > end: no optimizer task seen */
} Window;

static void
collect (const BpwSimulation *sim, guint32 rank, const BpwSimEvent *e, Deltas *d,
         Window *optimizer)
{
  const SimProgram *p = sim->program;
  const SimStage *st = &p->stages[rank];

  if (e->kind == BPW_SIM_EVENT_TASK)
    {
      const SimTask *t = &g_array_index (st->tasks, SimTask, e->item);

      if (t->seg == SIM_SEG_OPTIMIZER)
        {
          optimizer->start = MIN (optimizer->start, e->start);
          optimizer->end = MAX (optimizer->end, e->end);
        }
      for (guint k = t->mem_first; k < t->mem_first + t->mem_count; k++)
        {
          const SimMem *m = &g_array_index (st->mem, SimMem, k);

          if (m->at_end)
            push (d->free, e->end, -m->bytes, m->category);
          else
            push (d->alloc, e->start, m->bytes, m->category);
        }
    }
  else if (e->flags & BPW_SIM_FLAG_PIPELINE)
    {
      const SimList *l = send_list (p, rank, e);

      for (guint k = 0; k < l->send_frees->len; k++)
        {
          const SimMem *m = &g_array_index (l->send_frees, SimMem, k);

          push (d->other, e->end, -m->bytes, m->category);
        }
    }
  else if (e->stage == rank && !(e->flags & BPW_SIM_FLAG_STEP))
    {
      const SimXfer *x = &g_array_index (st->xfers, SimXfer, e->item);

      /* A hierarchical collective's buffer lives from its first part to its last. */
      if (e->part <= 1)
        push (d->other, e->start, x->bytes, BPW_MEM_COMMUNICATION);
      if (e->part == 0 || e->part == x->n_parts)
        push (d->other, e->end, -x->bytes, BPW_MEM_COMMUNICATION);
    }
}

/* The optimizer step's scratch and the working copies it does without, over @window. */
static void
push_optimizer (const BpwSimulation *sim, guint32 rank, const Window *window, Deltas *d)
{
  const BpwPlanMemory *pm = &sim->plan->stages[rank].memory;

  if (!(window->start < window->end))
    return;
  push (d->other, window->start, pm->optimizer_scratch, BPW_MEM_TEMPORARIES);
  push (d->other, window->end, -pm->optimizer_scratch, BPW_MEM_TEMPORARIES);
  push (d->other, window->start, -pm->optimizer_released, BPW_MEM_WEIGHTS);
  push (d->other, window->end, pm->optimizer_released, BPW_MEM_WEIGHTS);
}

/* The next delta of the three sorted streams, or NULL. */
static const Delta *
next_delta (Deltas *d, guint pos[3])
{
  GArray *streams[3] = { d->alloc, d->free, d->other };
  const Delta *best = NULL;
  guint which = 0;

  for (guint k = 0; k < 3; k++)
    if (pos[k] < streams[k]->len)
      {
        const Delta *c = &g_array_index (streams[k], Delta, pos[k]);

        if (best == NULL || compare_delta (c, best, NULL) < 0)
          best = c, which = k;
      }
  if (best != NULL)
    pos[which]++;
  return best;
}

static double
sum (const double *bytes)
{
  double total = 0;

  for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
    total += bytes[c];
  return total;
}

/* Replays @rank from its deltas; with @curve, appends a sample per instant. */
static void
replay (const BpwSimulation *sim, guint32 rank, Deltas *deltas, BpwSimMemory *out,
        GArray *curve)
{
  const SimStage *st = &((const SimProgram *) sim->program)->stages[rank];
  double cur[BPW_N_MEM_CATEGORIES];
  BpwMemorySample sample;
  guint pos[3] = { 0, 0, 0 };
  const Delta *d, *following;

  memcpy (cur, st->constant, sizeof cur);
  memset (out, 0, sizeof *out);
  out->analytic = sim->plan->stages[rank].memory.device_total;
  out->peak = sum (cur);
  memcpy (out->at_peak, cur, sizeof cur);
  memcpy (out->category_peak, cur, sizeof cur);
  if (curve != NULL)
    {
      sample.time = 0;
      memcpy (sample.bytes, cur, sizeof cur);
      sample.total = sum (cur);
      g_array_append_val (curve, sample);
    }

  sort_stream (deltas->alloc);
  sort_stream (deltas->free);
  sort_stream (deltas->other);
  for (d = next_delta (deltas, pos); d != NULL; d = following)
    {
      gboolean last_at_instant;
      double total;

      following = next_delta (deltas, pos);
      last_at_instant = following == NULL || following->time != d->time;

      cur[d->category] += d->bytes;
      /* Rounding of long sums must not leave a freed category at -1e-7 bytes. */
      if (cur[d->category] < 0 && cur[d->category] > -1.0)
        cur[d->category] = 0;
      out->category_peak[d->category] = MAX (out->category_peak[d->category], cur[d->category]);
      if (!last_at_instant)
        continue;
      total = sum (cur);
      if (total > out->peak)
        {
          out->peak = total;
          out->peak_time = d->time;
          memcpy (out->at_peak, cur, sizeof cur);
        }
      if (curve != NULL)
        {
          BpwMemorySample *prev = &g_array_index (curve, BpwMemorySample, curve->len - 1);

          sample.time = d->time;
          memcpy (sample.bytes, cur, sizeof cur);
          sample.total = total;
          if (prev->time == d->time)
            *prev = sample;
          else
            g_array_append_val (curve, sample);
        }
    }
  if (curve != NULL &&
      g_array_index (curve, BpwMemorySample, curve->len - 1).time < sim->step_time_s)
    {
      sample = g_array_index (curve, BpwMemorySample, curve->len - 1);
      sample.time = sim->step_time_s;
      g_array_append_val (curve, sample);
    }
}

void
_bpw_simulation_compute_memory (BpwSimulation *sim)
{
  const SimProgram *p = sim->program;
  g_autofree Deltas *deltas = g_new (Deltas, p->n_stages);
  g_autofree Window *optimizer = g_new (Window, p->n_stages);

  sim->memory = g_new0 (BpwSimMemory, p->n_stages);
  for (gint64 s = 0; s < p->n_stages; s++)
    {
      deltas_init (&deltas[s]);
      optimizer[s] = (Window) { G_MAXDOUBLE, -G_MAXDOUBLE };
    }
  /* One pass over the events for every rank. */
  for (guint64 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, (guint32) i);
      guint32 rank = _bpw_sim_column_rank (sim, e);

      collect (sim, rank, e, &deltas[rank], &optimizer[rank]);
    }
  for (gint64 s = 0; s < p->n_stages; s++)
    {
      push_optimizer (sim, (guint32) s, &optimizer[s], &deltas[s]);
      replay (sim, (guint32) s, &deltas[s], &sim->memory[s], NULL);
      deltas_clear (&deltas[s]);
    }
}

GArray *
bpw_simulation_memory_curve (const BpwSimulation *sim,
                             guint32              lane_rank)
{
  GArray *curve = g_array_new (FALSE, FALSE, sizeof (BpwMemorySample));
  BpwSimMemory scratch;
  Window optimizer = { G_MAXDOUBLE, -G_MAXDOUBLE };
  guint32 rank;
  Deltas deltas;

  g_return_val_if_fail (lane_rank < sim->n_ranks, curve);
  rank = (guint32) bpw_simulation_rank_stage (sim, lane_rank);
  deltas_init (&deltas);
  for (guint64 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, (guint32) i);

      if (_bpw_sim_column_rank (sim, e) == rank)
        collect (sim, rank, e, &deltas, &optimizer);
    }
  push_optimizer (sim, rank, &optimizer, &deltas);
  replay (sim, rank, &deltas, &scratch, curve);
  deltas_clear (&deltas);
  return curve;
}

