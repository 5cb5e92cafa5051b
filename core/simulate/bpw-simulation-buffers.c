/* bpw-simulation-buffers.c — every buffer a simulated rank allocates over the step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One pass over the rank's segment instances, with an index from (segment kind,
 * micro-batch, chunk) to the segment instance and to the end of its pipeline send, so each
 * buffer's free time is found in constant time. What is live at one instant is the same
 * list filtered (bpw_simulation_live_at()), so the two cannot disagree.
 */
#define G_LOG_DOMAIN "bpw-simulation-buffers"

#include "config.h"

#include "bpw-simulation-buffers.h"
#include "bpw-simulation-free-index-private.h"
#include "bpw-simulation-private.h"

GArray *
bpw_simulation_buffers (const BpwSimulation *sim,
                        guint32              lane_rank)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (BpwLiveBuffer));
  const SimProgram *p;
  const SimStage *st;
  const SimRun *run;
  guint32 rank;
  SimFreeIndex ix;

  g_return_val_if_fail (sim != NULL, out);
  g_return_val_if_fail (lane_rank < sim->n_ranks, out);

  p = sim->program;
  rank = (guint32) bpw_simulation_rank_stage (sim, lane_rank);
  st = &p->stages[rank];
  run = &p->runs[rank];
  _bpw_sim_free_index_init (&ix, sim, rank);

  for (guint32 i = 0; i < run->n_segments; i++)
    {
      const SimSegment *sg = &run->segments[i];
      const SimList *l = _bpw_sim_list (p, st, sg->seg, sg->chunk);

      for (guint n = 0; n < l->tasks->len; n++)
        {
          guint32 local = g_array_index (l->tasks, guint32, n);
          const SimTask *t = &g_array_index (st->tasks, SimTask, local);
          guint32 e = run->task_events[sg->task_base + n];
          const BpwSimEvent *te;

          if (e == BPW_SIM_NONE)
            continue;
          te = bpw_simulation_event (sim, e);
          for (guint k = t->mem_first; k < t->mem_first + t->mem_count; k++)
            {
              const SimMem *m = &g_array_index (st->mem, SimMem, k);
              BpwLiveBuffer b;

              if (m->at_end)
                continue;
              b = (BpwLiveBuffer) {
                .tensor = m->tensor, .event = e, .micro_batch = sg->micro_batch,
                .category = m->category, .chunk = sg->chunk, .bytes = m->bytes,
                .allocated = te->start, .freed = _bpw_sim_free_time (sim, &ix, st, run, sg, m),
              };
              /* live_at's half-open rule: a buffer freed when it is allocated is never
               * live, and holds no memory on the curve. */
              if (b.freed > b.allocated)
                g_array_append_val (out, b);
            }
        }
    }

  /* Receive buffers of the rank's own transfers (not pipeline sends, not per step). */
  for (guint64 i = 0; i < sim->column_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, (guint32) i);
      const SimXfer *x;

      if (e->kind != BPW_SIM_EVENT_TRANSFER || _bpw_sim_column_rank (sim, e) != rank ||
          (e->flags & (BPW_SIM_FLAG_PIPELINE | BPW_SIM_FLAG_STEP)) || e->stage != rank ||
          !(e->end > e->start))
        continue;
      x = &g_array_index (st->xfers, SimXfer, e->item);
      if (x->bytes > 0)
        {
          BpwLiveBuffer b = {
            .tensor = -1, .event = (guint32) i, .micro_batch = e->micro_batch,
            .category = BPW_MEM_COMMUNICATION, .chunk = e->chunk, .bytes = x->bytes,
            .allocated = e->start, .freed = e->end,
          };

          g_array_append_val (out, b);
        }
    }
  _bpw_sim_free_index_clear (&ix);
  return out;
}

GArray *
bpw_simulation_live_at (const BpwSimulation *sim,
                        guint32              lane_rank,
                        double               time)
{
  GArray *live = bpw_simulation_buffers (sim, lane_rank);
  guint kept = 0;

  for (guint i = 0; i < live->len; i++)
    {
      const BpwLiveBuffer *b = &g_array_index (live, BpwLiveBuffer, i);

      if (b->allocated <= time && time < b->freed)
        g_array_index (live, BpwLiveBuffer, kept++) = *b;
    }
  g_array_set_size (live, kept);
  return live;
}
