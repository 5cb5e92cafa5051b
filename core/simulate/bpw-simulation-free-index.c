/* bpw-simulation-free-index.c — when each buffer of a simulated rank is freed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One index per rank from (segment kind, micro-batch, chunk) to the segment instance and
 * to the end of its pipeline send, so each buffer's free time is found in constant time.
 * A buffer read later is freed when the task that reads it last ends (the end of the step
 * when that task never ran); one without a reader when its pipeline send ends.
 */
#define G_LOG_DOMAIN "bpw-simulation-memory"

#include "config.h"

#include <string.h>

#include "bpw-simulation-free-index-private.h"

static gsize
slot (const SimProgram *p, guint kind, gint32 mb, guint chunk)
{
  return ((gsize) kind * (gsize) p->micro_batches + (gsize) MAX (mb, 0)) * (gsize) p->chunks +
         chunk;
}

void
_bpw_sim_free_index_init (SimFreeIndex        *ix,
                          const BpwSimulation *sim,
                          guint32              rank)
{
  const SimProgram *p = sim->program;
  const SimRun *run = &p->runs[rank];
  gsize n = slot (p, SIM_N_SEGS, 0, 0);

  ix->p = p;
  ix->segment = g_new (guint32, n);
  ix->send_end = g_new (double, n);
  memset (ix->segment, 0xff, n * sizeof (guint32));
  for (gsize i = 0; i < n; i++)
    ix->send_end[i] = sim->step_time_s;
  for (guint32 i = 0; i < run->n_segments; i++)
    ix->segment[slot (p, run->segments[i].seg, run->segments[i].micro_batch,
                      run->segments[i].chunk)] = i;
  for (guint64 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *x = bpw_simulation_event (sim, (guint32) i);

      if ((x->flags & BPW_SIM_FLAG_PIPELINE) && _bpw_sim_column_rank (sim, x) == rank)
        ix->send_end[slot (p, (x->flags & BPW_SIM_FLAG_BACKWARD) ? 1 : 0, x->micro_batch,
                           x->chunk)] = x->end;
    }
}

void
_bpw_sim_free_index_clear (SimFreeIndex *ix)
{
  g_free (ix->segment);
  g_free (ix->send_end);
}

double
_bpw_sim_free_time (const BpwSimulation *sim,
                    const SimFreeIndex  *ix,
                    const SimStage      *st,
                    const SimRun        *run,
                    const SimSegment    *sg,
                    const SimMem        *m)
{
  const SimTask *t;
  guint32 seg, e;

  if (m->partner < 0)
    return ix->send_end[slot (ix->p, sg->seg == SIM_SEG_BACKWARD, sg->micro_batch, sg->chunk)];
  t = &g_array_index (st->tasks, SimTask, m->partner);
  seg = ix->segment[slot (ix->p, t->seg, t->seg == SIM_SEG_OPTIMIZER ? 0 : sg->micro_batch,
                          t->chunk)];
  if (seg == BPW_SIM_NONE)
    return sim->step_time_s;
  e = run->task_events[run->segments[seg].task_base + t->pos];
  return e == BPW_SIM_NONE ? sim->step_time_s : bpw_simulation_event (sim, e)->end;
}
