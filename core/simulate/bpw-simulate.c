/* bpw-simulate.c — the discrete-event loop: ranks issue their programs, links carry transfers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A binary heap orders two kinds of happenings by time: a rank trying to issue its next
 * item (a task, or a transfer its stream waits for), and a transfer becoming ready
 * (pipeline sends, DP buckets, ZeRO gathers). A task's duration is known when it
 * starts, so its end is fixed the moment it is created; a transfer's end is planned when
 * it is created and moves later when another group's transfer arrives on its link while
 * it runs (fair shares, bpw-link-share.h). What was read from an end before it moved is
 * read again (the gates, the engines' last items, a posted transfer's ready time): at
 * the heap's time every end up to it is final. A rank blocks only on a transfer from
 * another rank that has not been issued yet, and the issuer wakes it. Each group's
 * transfers on a link run in the order they become ready. A hierarchical collective runs
 * as its parts (reduce-scatter inside the node, the shard's collective across nodes,
 * all-gather inside the node: bpw_cost_span_parts()), consecutive events each on its own
 * tier's link, each ready when the one before it ends: its parts inside the node share
 * the node's link with the other groups' transfers there. Every event records the event
 * that set its start (its predecessor), from which the critical path is read back.
 */
#define G_LOG_DOMAIN "bpw-simulate"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-simulate-private.h"
#include "bpw-error.h"

/* ---- ranks ---- */

static void
note_done (Sim *s, SimSegment *sg, guint32 idx)
{
  if (sg->done_event == BPW_SIM_NONE ||
      _bpw_sim_ev (s, idx)->end > _bpw_sim_ev (s, sg->done_event)->end)
    sg->done_event = idx;
}

static void
close_segment (Sim *s, guint32 rank)
{
  const SimProgram *p = s->p;
  SimRankState *rs = &s->ranks[rank];
  SimSegment *sg = &p->runs[rank].segments[rs->seg];
  const SimStage *st = &p->stages[rank];
  double done = sg->done_event != BPW_SIM_NONE ? _bpw_sim_ev (s, sg->done_event)->end : rs->gate;
  guint32 pred = sg->done_event != BPW_SIM_NONE ? sg->done_event : rs->gate_pred;
  gint64 k = _bpw_sim_virtual_stage (p, rank, sg->chunk), last = p->n_stages * p->chunks - 1;

  done = _bpw_sim_segment_done (s, rank, rs->seg, done, &pred);

  if ((sg->seg == SIM_SEG_FORWARD && k < last) ||
      (sg->seg == SIM_SEG_BACKWARD && k > 0 && st->train))
    _bpw_sim_post_send (s, rank, sg, done, pred);
  if ((sg->seg == SIM_SEG_BACKWARD || sg->seg == SIM_SEG_WEIGHT) &&
      rs->seg == rs->last_backward)
    _bpw_sim_backward_done (s, rank, done, pred);
  if (sg->seg == SIM_SEG_OPTIMIZER)
    _bpw_sim_optimizer_done (s, rank, done, pred);
  rs->seg++;
  rs->pos = 0;
  rs->sub = 0;
  rs->open = FALSE;
}

static void
consider (double t, guint32 e, double *best, guint32 *pred)
{
  if (t > *best)
    *best = t, *pred = e;
}

/* When the optimizer's reductions are all done: their ends as they are now. */
static double
dp_ready (Sim *s, SimRankState *rs, guint32 *pred)
{
  double ready = rs->dp_ready;

  *pred = rs->dp_last;
  if (s->epoch == 0)
    return ready;
  for (guint i = 0; i < rs->dp_events->len; i++)
    {
      guint32 e = g_array_index (rs->dp_events, guint32, i);

      if (_bpw_sim_ev (s, e)->end >= ready)
        ready = _bpw_sim_ev (s, e)->end, *pred = e;
    }
  return ready;
}

/* The current segment's gates, read from their events' ends as they are now; FALSE when
 * one is not issued yet (the rank blocks). */
static gboolean
segment_gate (Sim *s, guint32 rank, double *gate_out, guint32 *gpred_out)
{
  const SimProgram *p = s->p;
  SimRankState *rs = &s->ranks[rank];
  SimSegment *sg = &p->runs[rank].segments[rs->seg];
  gint64 k = _bpw_sim_virtual_stage (p, rank, sg->chunk), last = p->n_stages * p->chunks - 1;
  double gate = 0;
  guint32 gpred = BPW_SIM_NONE, e;

  if (sg->seg == SIM_SEG_FORWARD && k > 0)
    {
      e = s->pp_events[_bpw_sim_pp_slot (p, FALSE, k - 1, sg->micro_batch)];
      if (e == BPW_SIM_NONE)
        return FALSE;
      consider (_bpw_sim_ev (s, e)->end, e, &gate, &gpred);
    }
  if (sg->seg == SIM_SEG_BACKWARD)
    {
      guint32 f = rs->forward_of[sg->micro_batch * p->chunks + sg->chunk];

      if (k < last && p->train)
        {
          e = s->pp_events[_bpw_sim_pp_slot (p, TRUE, k, sg->micro_batch)];
          if (e == BPW_SIM_NONE)
            return FALSE;
          consider (_bpw_sim_ev (s, e)->end, e, &gate, &gpred);
        }
      if (f != BPW_SIM_NONE && (e = p->runs[rank].segments[f].done_event) != BPW_SIM_NONE)
        {
          double done = _bpw_sim_segment_done (s, rank, f, _bpw_sim_ev (s, e)->end, &e);

          consider (done, e, &gate, &gpred);
        }
    }
  if (sg->seg == SIM_SEG_FORWARD && sg->micro_batch == 0 && rs->gathers_pending > 0)
    return FALSE;
  if (sg->gathered)
    {
      if (sg->gather_event == BPW_SIM_NONE)
        return FALSE;
      consider (_bpw_sim_ev (s, sg->gather_event)->end, sg->gather_event, &gate, &gpred);
    }
  if (sg->seg == SIM_SEG_OPTIMIZER)
    {
      if (rs->dp_pending > 0)
        return FALSE;
      if (rs->dp_last != BPW_SIM_NONE)
        {
          double ready = dp_ready (s, rs, &e);

          consider (ready, e, &gate, &gpred);
        }
    }
  *gate_out = gate;
  *gpred_out = gpred;
  return TRUE;
}

static gboolean
open_segment (Sim *s, guint32 rank, double now)
{
  const SimProgram *p = s->p;
  SimRankState *rs = &s->ranks[rank];
  guint32 e;

  if (!segment_gate (s, rank, &rs->gate, &rs->gate_pred))
    return FALSE;
  rs->gate_epoch = s->epoch;
  rs->open = TRUE;
  e = rs->seg > 0 ? p->runs[rank].segments[rs->seg - 1].done_event : BPW_SIM_NONE;
  _bpw_sim_prefetch (s, rank, rs->seg + 1, now, e);
  return TRUE;
}

/* When engine @q is free: its last item's end, which a blocking transfer that shares its
 * link may have moved since. Items before it on the engine ended before it was issued. */
static double
engine_free (Sim *s, const SimRankState *rs, guint q)
{
  if (rs->last[q] == BPW_SIM_NONE)
    return rs->free[q];
  return MAX (rs->free[q], _bpw_sim_ev (s, rs->last[q])->end);
}

/* Earliest start of the current item (the task @t, or a transfer the stream waits for
 * around it) and the event that sets it. Items issue in program order: the cursor only
 * moves on once an item is issued, so nothing starts before its predecessor in the
 * program. */
static double
earliest (Sim *s, guint32 rank, const SimStage *st, const SimSegment *sg, const SimTask *t,
          gboolean is_task, guint32 *pred)
{
  SimRankState *rs = &s->ranks[rank];
  const SimRun *run = &s->p->runs[rank];
  double t0;

  /* A transfer's end moved since the gates were read: read them again. */
  if (rs->gate_epoch != s->epoch)
    {
      segment_gate (s, rank, &rs->gate, &rs->gate_pred);
      rs->gate_epoch = s->epoch;
    }
  t0 = rs->gate;
  *pred = rs->gate_pred;
  if (is_task)
    consider (engine_free (s, rs, t->queue), rs->last[t->queue], &t0, pred);
  else
    {
      /* A transfer the stream waits for holds both engines. */
      consider (engine_free (s, rs, 0), rs->last[0], &t0, pred);
      consider (engine_free (s, rs, 1), rs->last[1], &t0, pred);
    }
  for (guint g = t->gate_first; g < t->gate_first + t->gate_count; g++)
    {
      const SimXfer *x = &g_array_index (st->xfers, SimXfer, g_array_index (st->gates, guint32, g));
      guint32 e = run->xfer_events[sg->xfer_base + x->pos];

      if (e != BPW_SIM_NONE)
        consider (_bpw_sim_ev (s, e)->end, e, &t0, pred);
    }
  if (t->gather_gate > 0 && sg->seg == SIM_SEG_FORWARD && sg->micro_batch == 0 &&
      rs->gather_events != NULL)
    {
      guint32 e = rs->gather_events[t->gather_gate - 1];

      if (e != BPW_SIM_NONE)
        consider (_bpw_sim_ev (s, e)->end, e, &t0, pred);
    }
  if (!s->serial)
    for (guint d = t->dep_first; d < t->dep_first + t->dep_count; d++)
      {
        guint32 local = g_array_index (st->deps, guint32, d);
        const SimTask *u = &g_array_index (st->tasks, SimTask, local);
        guint32 e = run->task_events[sg->task_base + u->pos];

        if (e != BPW_SIM_NONE)
          consider (_bpw_sim_ev (s, e)->end, e, &t0, pred);
      }
  return t0;
}

/* The engines an item occupies: both with one issue stream or for a transfer the stream
 * waits for (@q < 0), else its own. */
static void
stream_set (Sim *s, SimRankState *rs, gint q, double end, guint32 idx)
{
  for (guint i = 0; i < 2; i++)
    if ((s->serial || q < 0 || (guint) q == i) && end >= rs->free[i])
      {
        rs->free[i] = end;
        rs->last[i] = idx;
      }
}

/* A task and the transfers overlapped with it. */
static void
issue_task (Sim *s, guint32 rank, const SimStage *st, SimSegment *sg, guint32 local,
            const SimTask *t, double now, guint32 pred)
{
  const SimProgram *p = s->p;
  SimRankState *rs = &s->ranks[rank];
  SimRun *run = &p->runs[rank];
  const BpwPlanTask *pt = &g_array_index (s->plan->stages[st->index].tasks, BpwPlanTask, local);
  BpwSimEvent e = {
    .start = now, .end = now + t->duration, .lineage = pt->op, .item = local, .rank = rank,
    .micro_batch = sg->micro_batch, .pred = pred, .stage = (guint16) st->index,
    .kind = BPW_SIM_EVENT_TASK, .queue = t->queue, .phase = t->phase, .chunk = sg->chunk,
  };
  guint32 idx = _bpw_sim_add_event (s, &e), first = t->xfer_first + t->n_pre;
  double ext = 0;

  run->task_events[sg->task_base + t->pos] = idx;

  /* Overlapped TP collectives start with the task (pipe: one tile of it later). */
  for (guint a = first; a < first + t->n_overlap; a++)
    {
      guint32 k = g_array_index (st->attached, guint32, a);
      const SimXfer *x = &g_array_index (st->xfers, SimXfer, k);
      const BpwPlanTransfer *tr = _bpw_sim_transfer (s->plan, (guint) st->index, x->item);
      gboolean pipe = s->plan->mapping.tp_overlap == BPW_TP_OVERLAP_PIPE;
      BpwSimEvent xe = {
        .lineage = tr->op, .item = x->item, .rank = rank, .micro_batch = sg->micro_batch,
        .stage = (guint16) st->index, .kind = BPW_SIM_EVENT_TRANSFER,
        .queue = (guint8) BPW_SIM_QUEUE_LINK (x->tier, x->group), .phase = tr->phase,
        .chunk = sg->chunk, .flags = BPW_SIM_FLAG_OVERLAP,
      };
      guint32 xi;

      xe.start = now + (pipe ? t->duration / (double) x->ranks : 0);
      xe.end = xe.start + x->duration;
      xe.pred = idx;
      xi = _bpw_sim_add_event (s, &xe);
      _bpw_sim_link_add (s, rank, x->tier, x->group, xi, x->duration, 0.0);
      run->xfer_events[sg->xfer_base + x->pos] = xi;
    }

  /* Contention: traffic that overlaps the task takes the tier's share of the processor. */
  for (guint tier = 0; tier < p->n_tiers; tier++)
    if (s->usage[tier] > 0)
      ext += s->usage[tier] * CLAMP (s->nb_busy[rank * p->n_tiers + tier] - now, 0.0, t->duration);
  _bpw_sim_ev (s, idx)->end = now + t->duration + ext;

  /* Pipe overlap: the last communication tile follows the last compute tile. */
  for (guint a = first; a < first + t->n_overlap; a++)
    {
      guint32 k = g_array_index (st->attached, guint32, a);
      const SimXfer *x = &g_array_index (st->xfers, SimXfer, k);
      guint32 xi = run->xfer_events[sg->xfer_base + x->pos];
      BpwSimEvent *xe = _bpw_sim_ev (s, xi);
      double tail = _bpw_sim_ev (s, idx)->end + x->duration / (double) x->ranks;

      if (s->plan->mapping.tp_overlap == BPW_TP_OVERLAP_PIPE && xe->end < tail)
        _bpw_sim_link_pin (s, rank, x->tier, xi, xe->start + (tail - xe->end), tail);
      note_done (s, sg, xi);
    }

  stream_set (s, rs, t->queue, _bpw_sim_ev (s, idx)->end, idx);
  note_done (s, sg, idx);
  if (t->bucket && sg->last_of_chunk && s->dp_overlap && st->train)
    _bpw_sim_post_buckets (s, st, rank, _bpw_sim_ev (s, idx)->end, idx);
}

/* A transfer the stream waits for. */
static void
issue_blocking (Sim *s, guint32 rank, const SimStage *st, SimSegment *sg, const SimXfer *x,
                double now, guint32 pred)
{
  SimRankState *rs = &s->ranks[rank];
  const BpwPlanTransfer *tr = _bpw_sim_transfer (s->plan, (guint) st->index, x->item);
  BpwSimEvent e = {
    .lineage = tr->op, .item = x->item, .rank = rank, .micro_batch = sg->micro_batch,
    .pred = pred, .stage = (guint16) st->index, .kind = BPW_SIM_EVENT_TRANSFER,
    .queue = (guint8) BPW_SIM_QUEUE_LINK (x->tier, x->group), .phase = tr->phase,
    .chunk = sg->chunk, .flags = BPW_SIM_FLAG_BLOCKING,
  };
  guint32 idx;

  e.start = now;
  e.end = now + x->duration;
  idx = _bpw_sim_link_add_transfer (s, rank, x->tier, x->group, x, &e, x->duration);
  e = *_bpw_sim_ev (s, idx);
  s->p->runs[rank].xfer_events[sg->xfer_base + x->pos] = idx;
  stream_set (s, rs, -1, e.end, idx);
  note_done (s, sg, idx);
}

static void
rank_try (Sim *s, guint32 rank, double now)
{
  const SimProgram *p = s->p;
  SimRankState *rs = &s->ranks[rank];
  SimRun *run = &p->runs[rank];
  const SimStage *st = &p->stages[rank];

  while (!rs->done)
    {
      SimSegment *sg;
      const SimList *l;
      const SimTask *t;
      guint32 local, pred;
      const SimXfer *x = NULL;
      double t0;

      if (rs->seg >= run->n_segments)
        {
          rs->done = TRUE;
          return;
        }
      sg = &run->segments[rs->seg];
      l = _bpw_sim_list (p, st, sg->seg, sg->chunk);
      if (!rs->open && !open_segment (s, rank, now))
        {
          rs->blocked = TRUE;
          return;
        }
      if (rs->pos >= l->tasks->len)
        {
          close_segment (s, rank);
          continue;
        }
      local = g_array_index (l->tasks, guint32, rs->pos);
      t = &g_array_index (st->tasks, SimTask, local);
      if (rs->sub < t->n_pre)
        x = &g_array_index (st->xfers, SimXfer,
                            g_array_index (st->attached, guint32, t->xfer_first + rs->sub));
      else if (rs->sub > t->n_pre)
        x = &g_array_index (st->xfers, SimXfer,
                            g_array_index (st->attached, guint32, t->xfer_first + t->n_overlap +
                                           rs->sub - 1));

      t0 = earliest (s, rank, st, sg, t, x == NULL, &pred);
      if (t0 > now)
        {
          _bpw_sim_heap_push (s, t0, SIM_HEAP_RANK, rank);
          return;
        }
      if (x == NULL)
        issue_task (s, rank, st, sg, local, t, now, pred);
      else
        issue_blocking (s, rank, st, sg, x, now, pred);

      if (++rs->sub > (guint) t->n_pre + t->n_post)
        {
          rs->sub = 0;
          rs->pos++;
        }
      if (s->serial)
        {
          _bpw_sim_heap_push (s, MAX (rs->free[0], rs->free[1]), SIM_HEAP_RANK, rank);
          return;
        }
    }
}

gboolean
_bpw_sim_run (BpwSimulation *sim,
              SimProgram    *p,
              GError       **error)
{
  Sim s = {
    .sim = sim, .plan = sim->plan, .p = p,
    .serial = !sim->options.concurrent_engines,
    .dp_overlap = sim->plan->mapping.dp_overlap,
  };
  guint n_tiers = (guint) p->n_stages * MAX (p->n_tiers, 1);
  gsize n_slots = 2 * (gsize) p->n_stages * p->chunks * p->micro_batches;
  gboolean ok = TRUE;

  s.ranks = g_new0 (SimRankState, p->n_stages);
  s.links = g_new0 (SimLink, n_tiers);
  s.nb_busy = g_new0 (double, n_tiers);
  s.usage = g_new0 (double, MAX (p->n_tiers, 1));
  s.pp_events = g_new (guint32, MAX (n_slots, 1));
  s.pending = g_array_new (FALSE, FALSE, sizeof (SimPending));
  s.moved_parts = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint l = 0; l < n_tiers; l++)
    memset (s.links[l].group_last, 0xff, sizeof s.links[l].group_last);
  memset (s.pp_events, 0xff, MAX (n_slots, 1) * sizeof (guint32));
  for (guint t = 0; t < p->n_tiers; t++)
    {
      const BpwTier *tier = &sim->plan->blueprint->tiers[t];

      s.usage[t] = tier->processor_usage.set ? tier->processor_usage.value : 0.0;
    }

  for (gint64 r = 0; r < p->n_stages; r++)
    {
      SimRankState *rs = &s.ranks[r];
      const SimRun *run = &p->runs[r];

      rs->last[0] = rs->last[1] = rs->gate_pred = rs->dp_last = BPW_SIM_NONE;
      rs->last_backward = BPW_SIM_NONE;
      rs->dp_pending = _bpw_sim_count_dp_gates (&s, &p->stages[r]);
      rs->dp_events = g_array_new (FALSE, FALSE, sizeof (guint32));
      rs->forward_of = g_new (guint32, p->micro_batches * p->chunks);
      memset (rs->forward_of, 0xff, p->micro_batches * p->chunks * sizeof (guint32));
      for (guint i = 0; i < run->n_segments; i++)
        {
          const SimSegment *sg = &run->segments[i];

          if (sg->seg == SIM_SEG_FORWARD)
            rs->forward_of[sg->micro_batch * p->chunks + sg->chunk] = i;
          else if (sg->seg == SIM_SEG_BACKWARD || sg->seg == SIM_SEG_WEIGHT)
            rs->last_backward = i;
        }
      if (p->stages[r].n_gather_buckets > 0)
        {
          rs->gather_events = g_new (guint32, p->stages[r].n_gather_buckets);
          memset (rs->gather_events, 0xff, p->stages[r].n_gather_buckets * sizeof (guint32));
          _bpw_sim_post_gathers (&s, (guint32) r);
        }
      _bpw_sim_prefetch (&s, (guint32) r, 0, 0.0, BPW_SIM_NONE);
      _bpw_sim_heap_push (&s, 0.0, SIM_HEAP_RANK, (guint32) r);
    }

  while (s.heap_len > 0)
    {
      SimHeapEntry e = _bpw_sim_heap_pop (&s);

      s.now = e.time;
      if (e.kind == SIM_HEAP_XFER)
        _bpw_sim_create_pending (&s, e.id, e.time);
      else
        rank_try (&s, e.id, e.time);
    }

  for (gint64 r = 0; r < p->n_stages; r++)
    if (!s.ranks[r].done)
      {
        g_set_error (error, BPW_ERROR, BPW_ERROR_UNSUPPORTED,
                     _("the simulated pipeline deadlocks: stage %" PRId64 " waits at "
                     "segment %u of %u; this is a bug, please report it with the command"),
                     r, s.ranks[r].seg, p->runs[r].n_segments);
        ok = FALSE;
        break;
      }

  for (gint64 r = 0; r < p->n_stages; r++)
    {
      g_free (s.ranks[r].forward_of);
      g_free (s.ranks[r].gather_events);
      g_array_unref (s.ranks[r].dp_events);
    }
  for (guint l = 0; l < n_tiers; l++)
    {
      g_free (s.links[l].flows);
      g_free (s.links[l].events);
      g_free (s.links[l].preds);
    }
  g_free (s.ranks);
  g_free (s.links);
  g_free (s.scratch);
  g_free (s.nb_busy);
  g_free (s.usage);
  g_free (s.pp_events);
  g_free (s.heap);
  g_array_unref (s.pending);
  g_array_unref (s.moved_parts);
  return ok;
}
