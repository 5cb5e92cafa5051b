/* bpw-estimator-launch.c — the eager issue stream replayed over a stage's own layers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Under eager launch the plan charges the device idle of a host issue stream: a running
 * maximum over the stage's kernel sequence (bpw-plan-stack.c). It is not additive over
 * layers: the lead the host builds during a long matmul hides the issue time of the short
 * kernels after it, and a stage of 40 blocks is not 20 copies of the template's two.
 * Scaling the template's idle per block was off by up to 12 % of the step. So the template
 * keeps each task's kernels and device time in issue order, and the estimator replays the
 * stream over the real stage: the embedding's tasks on the first stage, each block's in
 * layer order (backward and recompute in reverse), the head's on the last, the optimizer's.
 *
 * A block's effect on the stream depends only on how far the idle so far stands above the
 * host's current lag (z below); once a block leaves z as it found it, every later block of
 * the same kind adds the same idle, and the replay multiplies instead of walking on. A
 * model whose blocks come in two kinds is walked layer by layer.
 */
#define G_LOG_DOMAIN "bpw-estimator-launch"

#include "config.h"

#include <math.h>

#include "bpw-estimator-private.h"
#include "bpw-plan-private.h"

void
_bpw_template_collect_issue (BpwTemplate *t, const BpwPlan *plan)
{
  gint64 n = MIN (plan->dist->n_stages, (gint64) G_N_ELEMENTS (t->issue));

  t->launch_gap = _bpw_plan_launch_gap (plan, &t->eager);
  t->device_gap = _bpw_plan_eager_device_gap (plan);
  for (gint64 s = 0; s < n; s++)
    {
      const GArray *tasks = plan->stages[s].tasks;

      t->issue[s] = g_array_sized_new (FALSE, FALSE, sizeof (BpwIssueItem), tasks->len);
      for (guint i = 0; (t->launch_gap > 0 || t->device_gap > 0) && i < tasks->len; i++)
        {
          const BpwPlanTask *pt = &g_array_index (tasks, BpwPlanTask, i);
          BpwIssueItem item = {
            .layer = pt->layer, .phase = pt->phase, .layer_type = pt->layer_type,
            .bottleneck = pt->cost.bottleneck, .kernels = pt->issue_kernels,
            .alone = pt->issue_alone,
            .busy = pt->issue_busy, .weight = pt->count / MAX (pt->count, 1.0),
          };

          item.part = pt->layer == BPW_LAYER_BEFORE_BLOCKS ? BPW_PART_BEFORE
                      : pt->layer == BPW_LAYER_AFTER_BLOCKS ? BPW_PART_AFTER : BPW_PART_BLOCK;
          g_array_append_val (t->issue[s], item);
        }
    }
}

/* @time of device idle booked for a task of @item's kind, as bpw_stage_totals_add_task()
 * books a task's time whose cost is all overhead (no FLOPs, no bytes, no energy). */
static void
book (BpwStageTotals *st, const BpwIssueItem *item, double time)
{
  if (bpw_stage_totals_book_time (st, item->phase, item->layer_type, item->bottleneck, time)
      == BPW_BOOKED_WORK)
    st->overhead += time;
}

/* Replays @n items, booking @times × their idle: eager, the issue stream's with the
 * device's own gap per kernel; from a graph, @h per kernel. */
static void
replay (const BpwTemplate *t, BpwIssueStream *q, const BpwIssueItem *items, guint n,
        gboolean alone, double times, BpwStageTotals *out)
{
  double h = t->launch_gap;

  for (guint i = 0; i < n; i++)
    {
      double kernels = alone ? items[i].alone : items[i].kernels;
      double idle = h * kernels;

      if (t->eager)
        idle = _bpw_eager_stream_add (q, h, t->device_gap, kernels, items[i].busy);
      else
        {
          q->idle += idle;
          q->issued += kernels;
          q->busy += items[i].busy;
        }

      if (idle != 0)
        book (out, &items[i], idle * items[i].weight * times);
    }
}

/* The lag of the host behind the device's work so far, idle excluded, and how far the
 * idle stands above it: a block's effect depends on z alone. */
static double
stream_z (const BpwIssueStream *q, double h)
{
  return q->idle - (q->issued * h - q->busy);
}

/* One template block's items within a run. */
typedef struct
{
  const BpwIssueItem *items;
  guint               n;
} Unit;

/* The direction a block's items are issued in over the layers: forward, backward (with
 * recompute) in reverse, the optimizer. A run: consecutive block items of one direction. */
static guint
direction (const BpwIssueItem *item)
{
  switch ((BpwPhase) item->phase)
    {
    case BPW_PHASE_RECOMPUTE:
    case BPW_PHASE_BACKWARD_ACTIVATION:
    case BPW_PHASE_BACKWARD_WEIGHT:
      return 1;
    case BPW_PHASE_OPTIMIZER:
      return 2;
    case BPW_PHASE_FORWARD:
    case BPW_N_PHASES:
    default:
      return 0;
    }
}

static const BpwIssueItem *
item_at (const GArray *issue, guint i)
{
  return &g_array_index (issue, BpwIssueItem, i);
}

/* The end of the run that starts at @begin. */
static guint
run_end (const GArray *issue, guint begin)
{
  guint j = begin + 1;

  while (j < issue->len && item_at (issue, j)->part == BPW_PART_BLOCK
         && direction (item_at (issue, j)) == direction (item_at (issue, begin)))
    j++;
  return j;
}

/* The @k-th run of @issue as [begin, end). */
static gboolean
block_run (const GArray *issue, guint k, guint *begin, guint *end)
{
  guint run = 0;

  for (guint i = 0; issue != NULL && i < issue->len; )
    {
      if (item_at (issue, i)->part != BPW_PART_BLOCK)
        {
          i++;
          continue;
        }
      if (run++ == k)
        {
          *begin = i;
          *end = run_end (issue, i);
          return TRUE;
        }
      i = run_end (issue, i);
    }
  return FALSE;
}

/* The block of the run [begin, end) that starts at @at. */
static Unit
block_at (const GArray *issue, guint at, guint end)
{
  Unit u = { item_at (issue, at), 0 };

  while (at + u.n < end && item_at (issue, at + u.n)->layer == u.items->layer)
    u.n++;
  return u;
}

/* The items of template layer @layer within the @k-th run of either template stage. */
static Unit
unit_of (const BpwTemplate *t, guint k, gint32 layer)
{
  Unit u = { NULL, 0 };

  for (guint s = 0; s < G_N_ELEMENTS (t->issue) && u.n == 0; s++)
    {
      guint begin, end;

      if (!block_run (t->issue[s], k, &begin, &end))
        continue;
      for (guint i = begin; i < end && u.n == 0; i += block_at (t->issue[s], i, end).n)
        if (item_at (t->issue[s], i)->layer == layer)
          u = block_at (t->issue[s], i, end);
    }
  return u;
}

/* The @k-th run, [begin, end) of @issue, over the real layers rank @stage holds. */
static void
replay_blocks (const BpwTemplate *t, const BpwModelSpec *spec, const GArray *issue,
               guint k, guint begin, guint end, const BpwStageSplit *split, gint64 stage,
               BpwIssueStream *q, BpwStageTotals *out)
{
  double h = t->launch_gap;
  gboolean reverse = direction (item_at (issue, begin)) == 1;
  gint64 n_layers = bpw_stage_split_rank (split, stage);

  if (!t->by_kind)
    {
      /* The run's first block as the template issues it (what precedes it decides its
       * kernels), the others as an inner block. Walk until a block leaves z as it found
       * it (or adds no idle while the host gains on the device, which it then keeps
       * doing), then multiply. */
      Unit u = block_at (issue, begin, end), inner = u;
      gboolean alone = FALSE;

      /* The template's second block of the run where it has one; else its first, with the
       * kernels it would issue after a block of its own pass. */
      if (begin + u.n < end)
        inner = block_at (issue, begin + u.n, end);
      for (gint64 done = 0; done < n_layers; done++)
        {
          double z = stream_z (q, h), idle = q->idle, issued = q->issued, busy = q->busy;
          gint64 rest;

          if (done > 0)
            {
              alone = inner.items == u.items;
              u = inner;
            }
          replay (t, q, u.items, u.n, alone, 1.0, out);
          rest = n_layers - done - 1;
          if (done > 0 && rest > 0
              && (!t->eager || fabs (stream_z (q, h) - z) <= 1e-12 * (q->busy + q->issued * h)
                  || (q->idle == idle && (q->issued - issued) * h <= q->busy - busy)))
            {
              double added = q->idle - idle;

              /* The same block again, rest times: its idle booked as the last one's (the
               * device's own gaps are idle even where the stream's is not). */
              if (added != 0 || t->device_gap > 0)
                {
                  BpwIssueStream again = { issued, busy, idle };

                  replay (t, &again, u.items, u.n, alone, (double) rest, out);
                }
              q->idle += added * (double) rest;
              q->issued += (q->issued - issued) * (double) rest;
              q->busy += (q->busy - busy) * (double) rest;
              return;
            }
        }
      return;
    }
  for (gint64 i = 0; i < n_layers; i++)
    {
      gint64 layer = bpw_stage_split_rank_layer (split, stage, reverse ? n_layers - 1 - i : i);
      gint64 n_a, n_b;
      Unit u;

      bpw_template_count_kinds (t, spec, layer, 1, &n_a, &n_b);
      u = unit_of (t, k, n_b > 0 ? 1 : 0);
      if (u.n == 0)
        u = unit_of (t, k, n_b > 0 ? 0 : 1);
      replay (t, q, u.items, u.n, i > 0, 1.0, out);
    }
}

void
_bpw_template_replay_issue (const BpwTemplate   *t,
                            const BpwModelSpec  *spec,
                            const BpwStageSplit *split,
                            gint64               stage,
                            gboolean             first,
                            gboolean             last,
                            BpwStageTotals      *out)
{
  /* The program of the stage: the template's first stage for a first or middle stage,
   * its last for the last (one and the same without a pipeline). */
  const GArray *issue = t->issue[last && !first && t->issue[1] != NULL ? 1 : 0];
  BpwIssueStream q = { 0 };
  guint run = 0;

  if ((t->launch_gap <= 0 && t->device_gap <= 0) || issue == NULL)
    return;
  for (guint i = 0; i < issue->len; )
    {
      const BpwIssueItem *item = item_at (issue, i);
      guint end;

      if (item->part != BPW_PART_BLOCK)
        {
          if ((item->part == BPW_PART_BEFORE && first) || (item->part == BPW_PART_AFTER && last))
            replay (t, &q, item, 1, FALSE, 1.0, out);
          i++;
          continue;
        }
      end = run_end (issue, i);
      replay_blocks (t, spec, issue, run++, i, end, split, stage, &q, out);
      i = end;
    }
}
