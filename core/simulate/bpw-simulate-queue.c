/* bpw-simulate-queue.c — the event loop's queue, events and links
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The binary heap of happenings, the event log, posted transfers, waking a blocked rank
 * and the per-tier link queues: what both the rank side (bpw-simulate.c) and the transfer
 * side (bpw-simulate-transfers.c) of the loop act on. Kept out of bpw-simulate.c, which
 * calls the transfer side, so that the transfer side does not call back into it.
 */
#define G_LOG_DOMAIN "bpw-simulate"

#include "config.h"

#include "bpw-simulate-private.h"

/* ---- heap ---- */

static gboolean
heap_less (const SimHeapEntry *a, const SimHeapEntry *b)
{
  if (a->time != b->time)
    return a->time < b->time;
  if (a->kind != b->kind)
    return a->kind < b->kind;
  return a->seq < b->seq;
}

void
_bpw_sim_heap_push (Sim     *s,
                    double   time,
                    guint    kind,
                    guint32  id)
{
  SimHeapEntry e = { .time = time, .seq = s->seq++, .id = id, .kind = kind };
  guint i;

  if (s->heap_len == s->heap_cap)
    {
      s->heap_cap = MAX (64, s->heap_cap * 2);
      s->heap = g_renew (SimHeapEntry, s->heap, s->heap_cap);
    }
  i = s->heap_len++;
  while (i > 0 && heap_less (&e, &s->heap[(i - 1) / 2]))
    {
      s->heap[i] = s->heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  s->heap[i] = e;
}

SimHeapEntry
_bpw_sim_heap_pop (Sim *s)
{
  SimHeapEntry top = s->heap[0], last = s->heap[--s->heap_len];
  guint i = 0;

  for (;;)
    {
      guint c = 2 * i + 1;

      if (c >= s->heap_len)
        break;
      if (c + 1 < s->heap_len && heap_less (&s->heap[c + 1], &s->heap[c]))
        c++;
      if (!heap_less (&s->heap[c], &last))
        break;
      s->heap[i] = s->heap[c];
      i = c;
    }
  if (s->heap_len > 0)
    s->heap[i] = last;
  return top;
}

/* ---- events ---- */

guint32
_bpw_sim_add_event (Sim               *s,
                    const BpwSimEvent *e)
{
  g_array_append_val (s->sim->events, *e);
  return s->sim->events->len - 1;
}

void
_bpw_sim_wake (Sim    *s,
               guint32 rank,
               double  time)
{
  if (s->ranks[rank].blocked)
    {
      s->ranks[rank].blocked = FALSE;
      _bpw_sim_heap_push (s, time, SIM_HEAP_RANK, rank);
    }
}

void
_bpw_sim_post (Sim              *s,
               const SimPending *pd)
{
  g_array_append_val (s->pending, *pd);
  _bpw_sim_heap_push (s, pd->ready, SIM_HEAP_XFER, s->pending->len - 1);
}

/* ---- links ---- */

/* Transfers of one group run in order on its queue; another group's traffic on the same
 * tier halves the bandwidth while they overlap, which stretches the later one. */
double
_bpw_sim_reserve (Sim     *s,
                  guint32  rank,
                  guint    tier,
                  guint    group,
                  double   ready,
                  double   duration,
                  guint32 *pred,
                  double  *stretch)
{
  guint base = (rank * s->p->n_tiers + tier) * BPW_N_GROUPS;
  double start = ready;

  if (s->link_free[base + group] > ready)
    {
      start = s->link_free[base + group];
      *pred = s->link_last[base + group];
    }
  *stretch = 0;
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (g != group)
      *stretch += CLAMP (s->link_free[base + g] - start, 0.0, duration);
  return start;
}

void
_bpw_sim_occupy (Sim     *s,
                 guint32  rank,
                 guint    tier,
                 guint    group,
                 guint32  idx,
                 gboolean overlapped)
{
  guint l = (rank * s->p->n_tiers + tier) * BPW_N_GROUPS + group;
  double end = _bpw_sim_ev (s, idx)->end;

  s->link_free[l] = MAX (s->link_free[l], end);
  s->link_last[l] = idx;
  if (overlapped)
    s->nb_busy[rank * s->p->n_tiers + tier] = MAX (s->nb_busy[rank * s->p->n_tiers + tier], end);
}
