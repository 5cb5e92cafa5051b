/* bpw-simulate-transfers.c — transfers that are not a rank's stream items
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pipeline sends (asynchronous for the sender), DP gradient buckets and reductions, ZeRO
 * weight gathers and the tied-embedding all-reduce. Each becomes ready at a known time,
 * waits there in the heap, and is created when the heap reaches it, on its group's queue.
 */
#define G_LOG_DOMAIN "bpw-simulate-transfers"

#include "config.h"

#include "bpw-simulate-private.h"

static BpwSimEvent
transfer_event (Sim *s, guint stage, guint32 item, guint32 rank, gint32 mb, guint tier,
                guint group, guint chunk, guint flags)
{
  const BpwPlanTransfer *tr = _bpw_sim_transfer (s->plan, stage, item);

  return (BpwSimEvent) {
    .lineage = tr->op, .item = item, .rank = rank, .micro_batch = mb,
    .stage = (guint16) stage, .kind = BPW_SIM_EVENT_TRANSFER,
    .queue = (guint8) BPW_SIM_QUEUE_LINK (tier, group), .phase = tr->phase,
    .chunk = (guint8) chunk, .flags = (guint8) flags, .pred = BPW_SIM_NONE,
  };
}

static void
dp_arrived (Sim *s, guint32 rank, guint32 idx)
{
  SimRankState *rs = &s->ranks[rank];
  double end = _bpw_sim_ev (s, idx)->end;

  g_array_append_val (rs->dp_events, idx);
  rs->dp_pending--;
  if (end >= rs->dp_ready)
    rs->dp_ready = end, rs->dp_last = idx;
  if (rs->dp_pending == 0)
    _bpw_sim_wake (s, rank, end);
}

void
_bpw_sim_create_pending (Sim    *s,
                         guint32 id,
                         double  now)
{
  SimPending pd = g_array_index (s->pending, SimPending, id);
  BpwSimEvent e = transfer_event (s, pd.stage, pd.item, pd.rank, pd.micro_batch, pd.tier,
                                  pd.group, pd.chunk, pd.flags);
  guint32 idx;

  /* The segment whose end made it ready ended later than read then: a transfer of it
   * was slowed by sharing its link since. */
  if (pd.source_seg > 0 && pd.epoch != s->epoch)
    {
      SimPending *stored = &g_array_index (s->pending, SimPending, id);
      double ready = _bpw_sim_segment_done (s, pd.rank, pd.source_seg - 1, pd.ready,
                                            &stored->pred);

      stored->epoch = s->epoch;
      if (ready > now)
        {
          stored->ready = ready;
          _bpw_sim_heap_push (s, ready, SIM_HEAP_XFER, id);
          return;
        }
      pd.pred = stored->pred;
    }

  e.pred = pd.pred;
  e.start = now;
  e.end = now + pd.duration;
  idx = _bpw_sim_link_add_transfer (s, pd.rank, pd.tier, pd.group,
                                    &g_array_index (s->p->stages[pd.stage].xfers, SimXfer,
                                                    pd.item),
                                    &e, pd.duration);
  e = *_bpw_sim_ev (s, idx);

  switch ((SimTarget) pd.target_kind)
    {
    case SIM_TARGET_PP:
      {
        const SimProgram *p = s->p;
        gint64 k = pd.target % (p->n_stages * p->chunks * p->micro_batches) / p->micro_batches;
        gboolean backward = pd.flags & BPW_SIM_FLAG_BACKWARD;

        s->pp_events[pd.target] = idx;
        _bpw_sim_wake (s, (guint32) ((backward ? k : k + 1) % p->n_stages), e.end);
      }
      break;
    case SIM_TARGET_DP:
      dp_arrived (s, pd.rank, idx);
      break;
    case SIM_TARGET_GATHER:
      s->p->runs[pd.rank].segments[pd.target].gather_event = idx;
      _bpw_sim_wake (s, pd.rank, e.end);
      break;
    case SIM_TARGET_LAYER:
      {
        SimRankState *rs = &s->ranks[pd.rank];
        guint32 *slot = &rs->gather_events[pd.target];

        if (*slot == BPW_SIM_NONE || e.end >= _bpw_sim_ev (s, *slot)->end)
          *slot = idx;
        if (--rs->gathers_pending == 0)
          _bpw_sim_wake (s, pd.rank, now);
      }
      break;
    case SIM_TARGET_NONE:
    default:
      break;
    }
}

static const SimXfer *
step_xfer (const SimStage *st, guint k)
{
  return &g_array_index (st->xfers, SimXfer, g_array_index (st->step_xfers, guint32, k));
}

static SimPending
pending_for (const SimStage *st, const SimXfer *x, guint32 rank, double ready, guint32 pred,
             SimTarget target)
{
  return (SimPending) {
    .ready = ready, .duration = x->duration, .pred = pred, .rank = rank,
    .stage = (guint32) st->index, .item = x->item, .micro_batch = -1,
    .target_kind = target, .tier = x->tier, .group = x->group, .flags = BPW_SIM_FLAG_STEP,
  };
}

guint32
_bpw_sim_count_dp_gates (const Sim      *s,
                         const SimStage *st)
{
  guint32 n = 0;

  for (guint k = 0; k < st->step_xfers->len; k++)
    {
      const SimXfer *x = step_xfer (st, k);

      if (x->klass == SIM_XFER_TIED)
        n++;
      else if (x->klass == SIM_XFER_DP_REDUCE)
        n += s->dp_overlap && st->train ? (guint32) MAX (st->n_layers, 1) : 1;
    }
  return n;
}

/* One layer's share of every gradient reduction of the stage. */
void
_bpw_sim_post_buckets (Sim            *s,
                       const SimStage *st,
                       guint32         rank,
                       double          ready,
                       guint32         pred)
{
  double layers = (double) MAX (st->n_layers, 1);

  for (guint k = 0; k < st->step_xfers->len; k++)
    {
      const SimXfer *x = step_xfer (st, k);
      SimPending pd;

      if (x->klass != SIM_XFER_DP_REDUCE)
        continue;
      pd = pending_for (st, x, rank, ready, pred, SIM_TARGET_DP);
      pd.duration = x->duration / layers;
      pd.flags |= BPW_SIM_FLAG_BUCKET;
      _bpw_sim_post (s, &pd);
    }
}

/* The tied-embedding all-reduce synchronises the first and the last stage: it starts on
 * both when both finished their backward passes and both queues are free, and ends on
 * both when the slower side ends. */
static void
post_tied (Sim *s, guint side, double ready, guint32 pred)
{
  const SimProgram *p = s->p;
  guint32 rank[2] = { 0, (guint32) (p->n_stages - 1) };
  const SimXfer *x[2] = { NULL, NULL };
  double start = 0, end = 0;
  guint32 spred = BPW_SIM_NONE, idx[2];

  s->tied_ready[side] = ready;
  s->tied_pred[side] = pred;
  if (++s->tied_posted < 2)
    return;
  for (guint i = 0; i < 2; i++)
    {
      const SimStage *st = &p->stages[rank[i]];

      if (s->tied_ready[i] >= start)
        start = s->tied_ready[i], spred = s->tied_pred[i];
      for (guint k = 0; k < st->step_xfers->len; k++)
        if (step_xfer (st, k)->klass == SIM_XFER_TIED)
          x[i] = step_xfer (st, k);
    }
  if (x[0] == NULL || x[1] == NULL)
    return;
  for (guint i = 0; i < 2; i++)
    {
      guint32 queue_pred;
      double queue_free = _bpw_sim_link_group_free (s, rank[i], x[i]->tier, x[i]->group,
                                                    &queue_pred);

      if (queue_free > start)
        start = queue_free, spred = queue_pred;
    }
  for (guint i = 0; i < 2; i++)
    end = MAX (end, start + x[i]->duration);
  for (guint i = 0; i < 2; i++)
    {
      BpwSimEvent e = transfer_event (s, (guint) p->stages[rank[i]].index, x[i]->item, rank[i],
                                      -1, x[i]->tier, x[i]->group, 0,
                                      BPW_SIM_FLAG_STEP | BPW_SIM_FLAG_SYNC);

      e.start = start;
      e.end = end;
      e.pred = spred;
      idx[i] = _bpw_sim_add_event (s, &e);
      _bpw_sim_link_add (s, rank[i], x[i]->tier, x[i]->group, idx[i], x[i]->duration, end);
    }
  /* Synchronised: neither side ends before the other, its link shared or not (a share
   * slowed on one side after this is not carried to the other). */
  end = MAX (_bpw_sim_ev (s, idx[0])->end, _bpw_sim_ev (s, idx[1])->end);
  for (guint i = 0; i < 2; i++)
    {
      if (_bpw_sim_ev (s, idx[i])->end < end)
        _bpw_sim_link_pin (s, rank[i], x[i]->tier, idx[i], start, end);
      dp_arrived (s, rank[i], idx[i]);
    }
}

/* The rank issued its last backward segment: reductions that do not overlap backward
 * start now, and this side of the tied all-reduce is ready. */
void
_bpw_sim_backward_done (Sim    *s,
                        guint32 rank,
                        double  ready,
                        guint32 pred)
{
  const SimStage *st = &s->p->stages[rank];
  gboolean tied = FALSE;

  for (guint k = 0; k < st->step_xfers->len; k++)
    {
      const SimXfer *x = step_xfer (st, k);

      if (x->klass == SIM_XFER_TIED)
        tied = TRUE;
      else if (x->klass == SIM_XFER_DP_REDUCE && !(s->dp_overlap && st->train))
        {
          SimPending pd = pending_for (st, x, rank, ready, pred, SIM_TARGET_DP);

          pd.source_seg = s->ranks[rank].seg + 1;
          pd.epoch = s->epoch;
          _bpw_sim_post (s, &pd);
        }
    }
  if (tied)
    post_tied (s, rank == 0 ? 0 : 1, ready, pred);
}

/* ZeRO 1/2 with DP overlap: the previous step's gather of the updated weight shards,
 * one bucket per layer in the order the forward needs them, ready when the step starts. */
void
_bpw_sim_post_gathers (Sim    *s,
                       guint32 rank)
{
  const SimStage *st = &s->p->stages[rank];
  SimRankState *rs = &s->ranks[rank];

  for (guint32 b = 0; b < st->n_gather_buckets; b++)
    for (guint k = 0; k < st->step_xfers->len; k++)
      {
        const SimXfer *x = step_xfer (st, k);
        SimPending pd;

        if (x->klass != SIM_XFER_DP_GATHER_STEP)
          continue;
        pd = pending_for (st, x, rank, 0.0, BPW_SIM_NONE, SIM_TARGET_LAYER);
        pd.duration = x->duration / (double) st->n_gather_buckets;
        pd.target = b;
        pd.flags |= BPW_SIM_FLAG_BUCKET;
        rs->gathers_pending++;
        _bpw_sim_post (s, &pd);
      }
}

/* ZeRO 1/2 without DP overlap: the updated weight shards are gathered after the
 * optimizer. */
void
_bpw_sim_optimizer_done (Sim    *s,
                         guint32 rank,
                         double  ready,
                         guint32 pred)
{
  const SimStage *st = &s->p->stages[rank];

  if (st->n_gather_buckets > 0)
    return;
  for (guint i = 0; i < st->step_xfers->len; i++)
    if (step_xfer (st, i)->klass == SIM_XFER_DP_GATHER_STEP)
      {
        SimPending pd = pending_for (st, step_xfer (st, i), rank, ready, pred, SIM_TARGET_NONE);

        pd.source_seg = s->ranks[rank].seg + 1;
        pd.epoch = s->epoch;
        _bpw_sim_post (s, &pd);
      }
}

/* Pipeline send of a finished segment, on the template transfer of its direction. */
void
_bpw_sim_post_send (Sim              *s,
                    guint32           rank,
                    const SimSegment *sg,
                    double            ready,
                    guint32           pred)
{
  const SimProgram *p = s->p;
  gboolean backward = sg->seg == SIM_SEG_BACKWARD;
  gint64 k = _bpw_sim_virtual_stage (p, rank, sg->chunk);
  gint32 tmpl = -1;
  const SimXfer *x;
  SimPending pd;

  /* The last rank has no forward send of its own in the plan (nor the first a backward
   * one); interleaving's wrap-around sends use a neighbour's, which moves the same bytes. */
  for (gint64 i = 0; i < p->n_stages && tmpl < 0; i++)
    tmpl = p->stages[(rank + i) % p->n_stages].pp_send[backward];
  if (tmpl < 0)
    return;
  x = &g_array_index (p->stages[tmpl >> 16].xfers, SimXfer, tmpl & 0xffff);
  pd = (SimPending) {
    .ready = ready, .duration = x->duration, .pred = pred, .rank = rank,
    .stage = (guint32) (tmpl >> 16), .item = x->item, .micro_batch = sg->micro_batch,
    .target = _bpw_sim_pp_slot (p, backward, backward ? k - 1 : k, sg->micro_batch),
    .target_kind = SIM_TARGET_PP, .tier = x->tier, .group = x->group, .chunk = sg->chunk,
    .flags = BPW_SIM_FLAG_PIPELINE | (backward ? BPW_SIM_FLAG_BACKWARD : 0),
    .source_seg = s->ranks[rank].seg + 1, .epoch = s->epoch,
  };
  _bpw_sim_post (s, &pd);
}

/* ZeRO-3: the weights of a segment are gathered while the segment before it runs. */
void
_bpw_sim_prefetch (Sim    *s,
                   guint32 rank,
                   guint32 seg_index,
                   double  ready,
                   guint32 pred)
{
  const SimStage *st = &s->p->stages[rank];
  const SimRun *run = &s->p->runs[rank];

  if (seg_index >= run->n_segments || !run->segments[seg_index].gathered)
    return;
  for (guint i = 0; i < st->step_xfers->len; i++)
    if (step_xfer (st, i)->klass == SIM_XFER_DP_GATHER_MB)
      {
        SimPending pd = pending_for (st, step_xfer (st, i), rank, ready, pred, SIM_TARGET_GATHER);

        pd.target = seg_index;
        pd.micro_batch = run->segments[seg_index].micro_batch;
        _bpw_sim_post (s, &pd);
      }
}
