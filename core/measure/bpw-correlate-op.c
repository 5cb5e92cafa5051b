/* bpw-correlate-op.c — what lies behind a modelled op of a correlation: its work-graph op,
 * name, per-rank matmul shape and largest input
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Asked by the pairing (bpw-correlate.c), the alignment (bpw-correlate-align.c) and its
 * explanation (bpw-correlate-explain.c); kept out of bpw-correlate.c, which runs the
 * alignment, so that the alignment does not call back into it.
 */
#define G_LOG_DOMAIN "bpw-correlate"

#include "config.h"

#include "bpw-correlate-op-private.h"
#include "bpw-plan-private.h"

static const BpwSimEvent *
op_event (const BpwCorrelation *corr, const BpwModelledOp *op)
{
  return bpw_simulation_event (corr->sim, op->event);
}

const BpwOp *
_bpw_correlate_graph_op (const BpwCorrelation *corr,
                         const BpwModelledOp  *op)
{
  const BpwSimEvent *e = op_event (corr, op);

  if (e->kind != BPW_SIM_EVENT_TASK)
    return NULL;
  return bpw_work_graph_op (corr->sim->plan->dist->graph, op->lineage);
}

const char *
_bpw_correlate_op_name (const BpwCorrelation *corr,
                        const BpwModelledOp  *op)
{
  return bpw_simulation_event_name (corr->sim, op_event (corr, op));
}

gboolean
_bpw_correlate_op_shape (const BpwCorrelation *corr,
                         const BpwModelledOp  *op,
                         double               *batch,
                         double               *m,
                         double               *n,
                         double               *k)
{
  const BpwSimEvent *e = op_event (corr, op);
  const BpwOp *gop = _bpw_correlate_graph_op (corr, op);
  const BpwTask *task;

  if (gop == NULL || gop->m == 0 || gop->n == 0 || gop->k == 0)
    return FALSE;
  task = &g_array_index (corr->sim->plan->dist->stages[e->stage].tasks, BpwTask, e->item);
  _bpw_plan_rank_shape (gop, task->tp_parts, batch, m, n, k);
  return TRUE;
}

double
_bpw_correlate_op_numel (const BpwCorrelation *corr,
                         const BpwModelledOp  *op)
{
  const BpwSimEvent *e = bpw_simulation_event (corr->sim, op->event);
  const BpwOp *gop = _bpw_correlate_graph_op (corr, op);
  const BpwWorkGraph *g = corr->sim->plan->dist->graph;
  const BpwTask *task;
  double best = 0;

  if (gop == NULL)
    return 0;
  task = &g_array_index (corr->sim->plan->dist->stages[e->stage].tasks, BpwTask, e->item);
  if (task->tp_parts > 1 || task->dp_parts > 1)
    return 0;
  for (guint u = gop->use_first; u < gop->use_first + gop->use_count; u++)
    {
      const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);

      if (use->access == BPW_ACCESS_READ)
        best = MAX (best, (double) bpw_work_graph_tensor (g, use->tensor)->elements);
    }
  return best;
}
