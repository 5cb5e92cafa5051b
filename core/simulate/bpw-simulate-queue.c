/* bpw-simulate-queue.c — the event loop's queue, events and links
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The binary heap of happenings, the event log, posted transfers, waking a blocked rank
 * and the links (each rank's port on each tier, shared fairly by the transfers on it:
 * bpw-link-share.h): what both the rank side (bpw-simulate.c) and the transfer side
 * (bpw-simulate-transfers.c) of the loop act on. Kept out of bpw-simulate.c, which
 * calls the transfer side, so that the transfer side does not call back into it.
 */
#define G_LOG_DOMAIN "bpw-simulate"

#include "config.h"

#include <string.h>

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

static SimLink *
link_of (Sim *s, guint32 rank, guint tier)
{
  return &s->links[rank * s->p->n_tiers + tier];
}

/* Serves the link's flows up to the heap's time and drops the finished ones: what
 * happened before now is final. */
static void
link_advance (Sim *s, SimLink *l)
{
  guint k = 0;

  if (s->now > l->clock)
    {
      bpw_link_share_sweep (l->flows, l->n, l->clock, s->now, l->group_free);
      l->clock = s->now;
    }
  for (guint i = 0; i < l->n; i++)
    {
      BpwLinkFlow *f = &l->flows[i];
      const BpwSimEvent *e = _bpw_sim_ev (s, l->events[i]);

      if (f->done || (f->started && e->end <= l->clock))
        {
          l->group_free[f->group] = MAX (l->group_free[f->group], e->end);
          l->group_last[f->group] = l->events[i];
          continue;
        }
      l->flows[k] = *f;
      l->events[k] = l->events[i];
      l->preds[k] = l->preds[i];
      k++;
    }
  l->n = k;
}

static const SimXfer *
xfer_of (Sim *s, const BpwSimEvent *e)
{
  return &g_array_index (s->p->stages[e->stage].xfers, SimXfer, e->item);
}

/* Plans the link's flows to their ends and writes their events: a flow's end only moves
 * later (another's arrival slows it), and each move is counted. @fresh: the last flow's
 * event is new, its times are the plan's whatever they were. */
static void
link_plan (Sim *s, SimLink *l, guint32 rank, guint tier, gboolean fresh)
{
  double group_free[BPW_LINK_MAX_GROUPS];
  double *busy = &s->nb_busy[rank * s->p->n_tiers + tier];

  if (l->n > s->scratch_cap)
    {
      s->scratch_cap = MAX (l->n, 2 * s->scratch_cap);
      s->scratch = g_renew (BpwLinkFlow, s->scratch, s->scratch_cap);
    }
  memcpy (s->scratch, l->flows, l->n * sizeof (BpwLinkFlow));
  memcpy (group_free, l->group_free, sizeof group_free);
  bpw_link_share_sweep (s->scratch, l->n, l->clock, G_MAXDOUBLE, group_free);

  for (guint i = 0; i < l->n; i++)
    {
      const BpwLinkFlow *f = &s->scratch[i];
      BpwSimEvent *e = _bpw_sim_ev (s, l->events[i]);
      guint32 pred = f->behind == BPW_LINK_READY ? l->preds[i]
                   : f->behind == BPW_LINK_EARLIER ? l->group_last[f->group]
                   : l->events[f->behind];

      if (fresh && i + 1 == l->n)
        {
          e->start = f->start;
          e->end = f->end;
          e->pred = pred;
        }
      else
        {
          if (f->start > e->start)
            e->start = f->start, e->pred = pred;
          if (f->end > e->end)
            {
              e->end = f->end;
              s->epoch++;
              if (e->part > 0 && e->part < xfer_of (s, e)->n_parts)
                g_array_append_val (s->moved_parts, l->events[i]);
            }
        }
      if (!(e->flags & BPW_SIM_FLAG_BLOCKING))
        *busy = MAX (*busy, e->end);
    }
}

static void
link_add (Sim *s, guint32 rank, guint tier, guint group, guint32 idx, double work,
          double floor)
{
  SimLink *l = link_of (s, rank, tier);
  const BpwSimEvent *e = _bpw_sim_ev (s, idx);

  link_advance (s, l);
  if (l->n == l->cap)
    {
      l->cap = MAX (8, 2 * l->cap);
      l->flows = g_renew (BpwLinkFlow, l->flows, l->cap);
      l->events = g_renew (guint32, l->events, l->cap);
      l->preds = g_renew (guint32, l->preds, l->cap);
    }
  l->flows[l->n] = bpw_link_flow (e->start, work, group);
  l->flows[l->n].floor = floor;
  l->events[l->n] = idx;
  l->preds[l->n] = e->pred;
  l->n++;
  link_plan (s, l, rank, tier, TRUE);
}

/* @floor < 0: the flow keeps its own. */
static void
link_pin (Sim *s, guint32 rank, guint tier, guint32 idx, double ready, double floor)
{
  SimLink *l = link_of (s, rank, tier);
  BpwSimEvent *e = _bpw_sim_ev (s, idx);

  for (guint i = l->n; i-- > 0;)
    if (l->events[i] == idx)
      {
        BpwLinkFlow *f = &l->flows[i];

        f->ready = ready;
        if (floor >= 0)
          f->floor = floor;
        if (f->started && f->left == f->work)
          f->started = FALSE;
        /* The move is the pipe's own, not another transfer's: no re-read. */
        e->start = MAX (e->start, ready);
        e->end = MAX (e->end, floor);
        link_plan (s, l, rank, tier, FALSE);
        return;
      }
}

/* The parts whose ends moved: each next part is ready when its part before it ends now,
 * which may move its own end, and so on (ends only move later, so it settles). */
static void
settle_parts (Sim *s)
{
  if (s->settling)
    return;
  s->settling = TRUE;
  while (s->moved_parts->len > 0)
    {
      guint32 idx = g_array_index (s->moved_parts, guint32, s->moved_parts->len - 1);
      const BpwSimEvent *e = _bpw_sim_ev (s, idx);
      const BpwSimEvent *next = _bpw_sim_ev (s, idx + 1);

      g_array_set_size (s->moved_parts, s->moved_parts->len - 1);
      if (next->start < e->end)
        link_pin (s, next->rank, BPW_SIM_QUEUE_TIER (next->queue), idx + 1, e->end, -1.0);
    }
  s->settling = FALSE;
}

void
_bpw_sim_link_add (Sim     *s,
                   guint32  rank,
                   guint    tier,
                   guint    group,
                   guint32  idx,
                   double   work,
                   double   floor)
{
  link_add (s, rank, tier, group, idx, work, floor);
  settle_parts (s);
}

void
_bpw_sim_link_pin (Sim     *s,
                   guint32  rank,
                   guint    tier,
                   guint32  idx,
                   double   ready,
                   double   floor)
{
  link_pin (s, rank, tier, idx, ready, floor);
  settle_parts (s);
}

guint32
_bpw_sim_link_add_transfer (Sim               *s,
                            guint32            rank,
                            guint              tier,
                            guint              group,
                            const SimXfer     *x,
                            const BpwSimEvent *e,
                            double             work)
{
  guint32 first = s->sim->events->len;
  /* No part ends before its work is done, so the whole ends no earlier than its work
   * after its start: alone, exactly then (one transfer's arithmetic, not the sum of the
   * parts' ends rounded three times). */
  double whole_end = e->start + work;

  if (x->n_parts < 2)
    {
      _bpw_sim_add_event (s, e);
      _bpw_sim_link_add (s, rank, tier, group, first, work, 0.0);
      return first;
    }
  /* All parts first, so that they are consecutive: a part's next is the event after it. */
  for (guint k = 0; k < x->n_parts; k++)
    {
      BpwSimEvent part = *e;

      part.queue = (guint8) BPW_SIM_QUEUE_LINK (x->part_tier[k], group);
      part.part = (guint8) (k + 1);
      _bpw_sim_add_event (s, &part);
    }
  for (guint k = 0; k < x->n_parts; k++)
    {
      BpwSimEvent *part = _bpw_sim_ev (s, first + k);
      double part_work = _bpw_sim_part_work (x, k, work);

      if (k > 0)
        {
          part->start = _bpw_sim_ev (s, first + k - 1)->end;
          part->pred = first + k - 1;
        }
      part->end = part->start + part_work;
      link_add (s, rank, x->part_tier[k], group, first + k, part_work,
                k + 1 == x->n_parts ? whole_end : 0.0);
    }
  settle_parts (s);
  return first + x->n_parts - 1;
}

double
_bpw_sim_link_group_free (Sim     *s,
                          guint32  rank,
                          guint    tier,
                          guint    group,
                          guint32 *pred)
{
  SimLink *l = link_of (s, rank, tier);

  for (guint i = l->n; i-- > 0;)
    if (l->flows[i].group == group)
      {
        *pred = l->events[i];
        return _bpw_sim_ev (s, l->events[i])->end;
      }
  *pred = l->group_last[group];
  return l->group_free[group];
}

double
_bpw_sim_segment_done (Sim     *s,
                       guint32  rank,
                       guint32  seg,
                       double   done,
                       guint32 *pred)
{
  const SimProgram *p = s->p;
  const SimRun *run = &p->runs[rank];
  const SimSegment *sg = &run->segments[seg];
  const SimList *list = _bpw_sim_list (p, &p->stages[rank], sg->seg, sg->chunk);

  if (s->epoch == 0)
    return done;
  for (guint i = 0; i < list->tasks->len; i++)
    {
      guint32 e = run->task_events[sg->task_base + i];

      if (e != BPW_SIM_NONE && _bpw_sim_ev (s, e)->end > done)
        done = _bpw_sim_ev (s, e)->end, *pred = e;
    }
  for (guint i = 0; i < list->n_xfers; i++)
    {
      guint32 e = run->xfer_events[sg->xfer_base + i];

      if (e != BPW_SIM_NONE && _bpw_sim_ev (s, e)->end > done)
        done = _bpw_sim_ev (s, e)->end, *pred = e;
    }
  return done;
}
