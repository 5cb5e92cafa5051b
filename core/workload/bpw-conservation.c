/* bpw-conservation.c — reconciling every rank's share with the work graph
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Three levels must agree, each difference named:
 *   semantic work  + graph additions (causal full matrix, MoE capacity, recompute) = graph work
 *   graph work     + distribution additions (TP-replicated ops, DP-replicated optimizer)
 *                  = the sum over every rank of its tasks.
 * The per-rank sum is taken rank by rank from each task's exact share, so a task assigned to
 * no stage or to two stages, a wrong micro-batch count or a wrong split shows up.
 */
#define G_LOG_DOMAIN "bpw-conservation"

#include "config.h"

#include <string.h>

#include "bpw-dist-work-private.h"
#include "bpw-i18n.h"

/* Exact share of @total for part @i of @parts: the first total % parts parts get one more. */
static inline guint64
share (guint64 total, guint64 parts, guint64 i)
{
  return total / parts + (i < total % parts ? 1 : 0);
}

void
bpw_conservation_clear (BpwConservation *report)
{
  g_clear_pointer (&report->message, g_free);
}

void
bpw_dist_work_check_conservation (const BpwDistWork *dist,
                                  BpwConservation   *report)
{
  const BpwWorkGraph *g = dist->graph;
  const BpwParallel *p = &dist->parallel;
  g_autofree BpwU128 *dist_flops = g_new0 (BpwU128, g->ops->len);
  g_autofree BpwU128 *dist_bytes = g_new0 (BpwU128, g->ops->len);
  g_autofree guint *seen = g_new0 (guint, g->ops->len);

  memset (report, 0, sizeof *report);
  report->first_mismatch = -1;
  for (guint a = 0; a < BPW_N_ADDITIONS; a++)
    report->additions[a].addition = a;

  /* Sum every rank's share. Ranks of a stage are (dp_i, cp_i, tp_i) triples. */
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *tasks = dist->stages[s].tasks;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwTask *t = &g_array_index (tasks, BpwTask, i);
          const BpwOp *op = bpw_work_graph_op (g, t->op);
          guint64 parts = (guint64) t->tp_parts * t->dp_parts * t->cp_parts;
          guint64 bytes = op->bytes_read + op->bytes_written;
          BpwU128 f = 0, b = 0;

          seen[t->op]++;
          /* The task's own per-rank figures must be the most loaded rank's share; a task
           * that says otherwise is what later stages would consume, so it cannot pass. */
          if (t->flops != share (op->flops, parts, 0) ||
              t->bytes_read + t->bytes_written < share (bytes, parts, 0) ||
              (op->phase != BPW_PHASE_OPTIMIZER && t->count * (guint64) p->dp != op->count))
            seen[t->op] += 1000;
          /* The optimizer's ZeRO shards run over the dp × cp ranks of the replica group;
           * every other op's share over the CP ranks, which split its tokens. */
          for (gint64 dp_i = 0; dp_i < p->dp; dp_i++)
            for (gint64 cp_i = 0; cp_i < p->cp; cp_i++)
              for (gint64 tp_i = 0; tp_i < p->tp; tp_i++)
                {
                  guint64 replica = (guint64) (dp_i * p->cp + cp_i);
                  guint64 idx = (t->dp_parts > 1 ? (replica % t->dp_parts) * t->tp_parts : 0)
                                + (t->cp_parts > 1 ? (guint64) cp_i * t->tp_parts : 0)
                                + tp_i % t->tp_parts;

                  f += (BpwU128) share (op->flops, parts, idx) * t->count;
                  b += (BpwU128) share (bytes, parts, idx) * t->count;
                }
          dist_flops[t->op] += f;
          dist_bytes[t->op] += b;
        }
    }

  /* Reconcile op by op with the graph and the named additions. */
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);
      gboolean optimizer = op->phase == BPW_PHASE_OPTIMIZER;
      guint64 tp_parts = _bpw_dist_work_tp_parts (p, &g->spec, op->split);
      guint64 rep_tp = p->tp / tp_parts;
      guint64 rep_dp = 1;
      BpwU128 graph_f = (BpwU128) op->flops * op->count;
      BpwU128 graph_b = (BpwU128) (op->bytes_read + op->bytes_written) * op->count;
      BpwU128 expect_f, expect_b;

      if (optimizer)
        {
          gboolean expert = op->split == BPW_SPLIT_EXPERT;
          guint64 dp_parts = p->zero >= 1 ? (guint64) (p->dp * p->cp)
                             : expert ? (guint64) p->ep : 1;

          /* Without ZeRO every DP replica and every CP rank of it repeats the update. */
          rep_dp = (guint64) (p->dp * p->cp) / dp_parts;
        }
      expect_f = graph_f * rep_tp * rep_dp;
      expect_b = graph_b * rep_tp * rep_dp;

      report->graph_flops += graph_f;
      report->graph_bytes += graph_b;
      if (op->addition == BPW_ADDITION_RECOMPUTE)
        report->additions[BPW_ADDITION_RECOMPUTE].flops += graph_f;
      else
        {
          BpwU128 extra = (BpwU128) (op->flops - op->semantic_flops) * op->count;

          report->semantic_flops += (BpwU128) op->semantic_flops * op->count;
          if (op->layer_type == BPW_LAYER_MOE)
            report->additions[BPW_ADDITION_MOE_CAPACITY].flops += extra;
          else
            report->additions[BPW_ADDITION_CAUSAL_FULL_MATRIX].flops += extra;
        }
      report->additions[BPW_ADDITION_TP_REPLICATED].flops += graph_f * (rep_tp - 1);
      report->additions[BPW_ADDITION_TP_REPLICATED].bytes += graph_b * (rep_tp - 1);
      report->additions[BPW_ADDITION_DP_REPLICATED].flops += graph_f * rep_tp * (rep_dp - 1);
      report->additions[BPW_ADDITION_DP_REPLICATED].bytes += graph_b * rep_tp * (rep_dp - 1);
      report->distributed_flops += dist_flops[i];
      report->distributed_bytes += dist_bytes[i];

      if (seen[i] != 1 || dist_flops[i] != expect_f || dist_bytes[i] != expect_b)
        {
          if (report->n_mismatched_ops == 0)
            {
              char a[40], b[40];

              report->first_mismatch = i;
              report->message = g_strdup_printf (
                _("operation %u (%s, layer %d, %s) was assigned %u times and its rank shares "
                "sum to %s FLOPs where the graph and its additions give %s"), i,
                bpw_work_graph_name (g, op->name), op->layer, bpw_phase_to_string (op->phase),
                seen[i], bpw_u128_to_string (dist_flops[i], a), bpw_u128_to_string (expect_f, b));
            }
          report->n_mismatched_ops++;
        }
    }

  /* The totals must close as well: semantic + graph additions = graph. */
  {
    BpwU128 sum = report->semantic_flops
                  + report->additions[BPW_ADDITION_CAUSAL_FULL_MATRIX].flops
                  + report->additions[BPW_ADDITION_MOE_CAPACITY].flops
                  + report->additions[BPW_ADDITION_RECOMPUTE].flops;
    BpwU128 dsum = report->graph_flops
                   + report->additions[BPW_ADDITION_TP_REPLICATED].flops
                   + report->additions[BPW_ADDITION_DP_REPLICATED].flops;

    if (sum != report->graph_flops && report->message == NULL)
      report->message = g_strdup (_("semantic work and the graph's named additions do not add "
                                  "up to the work graph"));
    if (dsum != report->distributed_flops && report->message == NULL)
      report->message = g_strdup (_("the work graph and the distribution's named additions do "
                                  "not add up to the sum over ranks"));
    report->ok = report->n_mismatched_ops == 0 && sum == report->graph_flops &&
                 dsum == report->distributed_flops;
  }
}
