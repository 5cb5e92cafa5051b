/* bpw-simulate-order.c — the pipeline schedules: each rank's segment instances in order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GPipe runs every forward, then every backward. 1F1B (PipeDream-Flush, Narayanan et al.
 * 2021) runs p − s − 1 warm-up forwards on stage s, then alternates one forward and one
 * backward, then drains. Interleaved 1F1B is Megatron-LM's order over v model chunks per
 * rank: groups of p micro-batches go through chunk 0, then chunk 1, ... forward, and
 * through the chunks in reverse backward, with (p − s − 1)·2 + (v − 1)·p warm-up units
 * (all of them when m = p). ZB-H1 (Qi et al. 2023) splits the backward into B (activation
 * gradients, on the critical path) and W (weight gradients): stage s keeps 1F1B's
 * warm-up, then runs F, B and the W of s micro-batches earlier, so that its B passes
 * reach the stage before it without waiting behind a W, and its held-back W passes fill
 * the drain; with p − s − 1 forwards and s W passes pending, no stage holds more
 * micro-batches than 1F1B's first. Inference runs forwards only.
 */
#define G_LOG_DOMAIN "bpw-simulate-order"

#include "config.h"

#include <string.h>

#include "bpw-simulation-private.h"

typedef struct
{
  gint32 mb;
  guint8 chunk;
} Unit;

/* The k-th forward (or backward) unit of the interleaved schedule (Megatron-LM): groups
 * of p micro-batches go through chunk 0, then chunk 1, ...; backward visits the chunks in
 * reverse. Without interleaving this is micro-batch k, chunk 0. */
static Unit
unit (const SimProgram *p, gint64 k, gboolean backward)
{
  gint64 pp = p->n_stages, v = p->chunks, in_group = k % (pp * v);
  gint64 chunk = in_group / pp;

  if (v <= 1)
    return (Unit) { .mb = (gint32) k, .chunk = 0 };
  return (Unit) {
    .mb = (gint32) ((k / (pp * v)) * pp + in_group % pp),
    .chunk = (guint8) (backward ? v - 1 - chunk : chunk),
  };
}

static void
push_segment (GArray *segs, guint seg, const Unit *u)
{
  SimSegment s = { .micro_batch = seg == SIM_SEG_OPTIMIZER ? -1 : u->mb, .seg = seg,
                   .chunk = u->chunk, .gather_event = BPW_SIM_NONE,
                   .done_event = BPW_SIM_NONE };

  g_array_append_val (segs, s);
}

static void
order_stage (SimProgram *p, const BpwPlan *plan, gint64 s)
{
  SimStage *st = &p->stages[s];
  SimRun *run = &p->runs[s];
  g_autoptr(GArray) segs = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  BpwSchedule pipeline = plan->dist->parallel.schedule;
  gint64 m = p->micro_batches, units = m * p->chunks, warmup;
  gboolean gathers = FALSE;
  Unit none = { 0 };

  if (!p->train)
    warmup = units;
  else if (pipeline == BPW_SCHEDULE_GPIPE)
    warmup = units;
  else if (pipeline == BPW_SCHEDULE_INTERLEAVED && p->chunks > 1)
    warmup = m == p->n_stages ? units
             : MIN ((p->n_stages - s - 1) * 2 + (p->chunks - 1) * p->n_stages, units);
  else
    warmup = MIN (p->n_stages - s - 1, units);

  for (gint64 k = 0; k < warmup; k++)
    {
      Unit f = unit (p, k, FALSE);

      push_segment (segs, SIM_SEG_FORWARD, &f);
    }
  if (p->train && p->split_weight)
    {
      gint64 held = MIN (s, units);

      for (gint64 k = 0; k < units; k++)
        {
          Unit b = unit (p, k, TRUE);

          if (k < units - warmup)
            {
              Unit f = unit (p, warmup + k, FALSE);

              push_segment (segs, SIM_SEG_FORWARD, &f);
            }
          push_segment (segs, SIM_SEG_BACKWARD, &b);
          if (k >= held)
            {
              Unit w = unit (p, k - held, TRUE);

              push_segment (segs, SIM_SEG_WEIGHT, &w);
            }
        }
      for (gint64 k = units - held; k < units; k++)
        {
          Unit w = unit (p, k, TRUE);

          push_segment (segs, SIM_SEG_WEIGHT, &w);
        }
    }
  else if (p->train)
    {
      for (gint64 k = 0; k < units - warmup; k++)
        {
          Unit f = unit (p, warmup + k, FALSE), b = unit (p, k, TRUE);

          push_segment (segs, SIM_SEG_FORWARD, &f);
          push_segment (segs, SIM_SEG_BACKWARD, &b);
        }
      for (gint64 k = MAX (units - warmup, 0); k < units; k++)
        {
          Unit b = unit (p, k, TRUE);

          push_segment (segs, SIM_SEG_BACKWARD, &b);
        }
    }
  if (_bpw_sim_list (p, st, SIM_SEG_OPTIMIZER, 0)->tasks->len > 0)
    push_segment (segs, SIM_SEG_OPTIMIZER, &none);

  for (guint k = 0; k < st->step_xfers->len; k++)
    if (g_array_index (st->xfers, SimXfer, g_array_index (st->step_xfers, guint32, k)).klass ==
        SIM_XFER_DP_GATHER_MB)
      gathers = TRUE;

  run->n_segments = segs->len;
  run->segments = (SimSegment *) g_array_steal (segs, NULL);
  {
    guint32 tasks = 0, xfers = 0;
    g_autofree gboolean *seen = g_new0 (gboolean, p->chunks);

    for (guint i = 0; i < run->n_segments; i++)
      {
        SimSegment *sg = &run->segments[i];
        const SimList *l = _bpw_sim_list (p, st, sg->seg, sg->chunk);

        sg->task_base = tasks;
        sg->xfer_base = xfers;
        tasks += l->tasks->len;
        xfers += l->n_xfers;
        /* ZeRO-3: weights are gathered for every micro-batch's forward and backward. */
        sg->gathered = gathers && ((sg->seg == SIM_SEG_FORWARD && sg->chunk == 0) ||
                                   (sg->seg == SIM_SEG_BACKWARD && sg->chunk == p->chunks - 1));
      }
    for (guint i = run->n_segments; i-- > 0;)
      if ((run->segments[i].seg == SIM_SEG_BACKWARD || run->segments[i].seg == SIM_SEG_WEIGHT) &&
          !seen[run->segments[i].chunk])
        {
          seen[run->segments[i].chunk] = TRUE;
          run->segments[i].last_of_chunk = 1;
        }
    run->n_task_slots = tasks;
    run->n_xfer_slots = xfers;
    run->task_events = g_new (guint32, MAX (tasks, 1));
    run->xfer_events = g_new (guint32, MAX (xfers, 1));
    memset (run->task_events, 0xff, MAX (tasks, 1) * sizeof (guint32));
    memset (run->xfer_events, 0xff, MAX (xfers, 1) * sizeof (guint32));
  }
}

void
_bpw_sim_program_order (SimProgram    *p,
                        const BpwPlan *plan)
{
  for (gint64 s = 0; s < p->n_stages; s++)
    order_stage (p, plan, s);
}
