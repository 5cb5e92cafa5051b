/* bpw-dist-work.c — splitting the work graph over TP, SP, PP, DP, EP and ZeRO
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Ranks of one pipeline stage differ only by the even shares that the divisibility rules of
 * bpw_scenario_validate() guarantee, so tasks and collectives are stored once per stage.
 * Megatron conventions: column-parallel then row-parallel matmuls under TP, sequence
 * parallelism shards the norm/dropout/residual region, EP is carved out of DP, ZeRO 1/2/3
 * shard optimizer state, then gradients, then weights over DP.
 */
#define G_LOG_DOMAIN "bpw-dist-work"

#include "config.h"

#include "bpw-dist-work-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-stage-split.h"

gint64
bpw_dist_work_n_ranks (const BpwDistWork *dist)
{
  return bpw_parallel_devices (&dist->parallel);
}

gint64
bpw_dist_work_rank_stage (const BpwDistWork *dist,
                          gint64             rank)
{
  return (rank / (dist->parallel.tp * dist->parallel.cp)) % dist->parallel.pp;
}

guint64
bpw_dist_work_layer_stored_bytes (const BpwDistWork *dist,
                                  gint64             layer)
{
  const BpwWorkGraph *g = dist->graph;
  guint64 total = 0;

  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);

      if (t->stored == BPW_STORED_CHECKPOINT && t->layer == layer)
        total += _bpw_dist_work_tensor_rank_bytes (dist, t);
    }
  return total;
}

static void
bpw_dist_work_assign_tasks (BpwDistWork *dist)
{
  const BpwWorkGraph *g = dist->graph;
  const BpwParallel *p = &dist->parallel;

  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);
      gint64 stage = _bpw_dist_work_stage_of_layer (dist, op->layer);
      guint64 tp_parts = _bpw_dist_work_tp_parts (p, &g->spec, op->split);
      gboolean optimizer = op->phase == BPW_PHASE_OPTIMIZER;
      /* Optimizer updates run once per step; ZeRO >= 1 shards them over the DP group
       * (over dp / ep for expert parameters, which EP already divides). The CP ranks of a
       * replica hold the same weights, so ZeRO shards over dp × cp as Megatron-LM does. */
      gboolean expert = op->split == BPW_SPLIT_EXPERT;
      /* Expert parameters are also divided over the EP ranks, which come out of DP. */
      guint64 dp_parts = !optimizer ? 1 : p->zero >= 1 ? (guint64) (p->dp * p->cp)
                         : expert ? (guint64) p->ep : 1;
      /* Every op of a micro-batch works on the rank's seq / cp tokens; the balanced chunk
       * order gives each rank the same share of the causal attention too. */
      guint64 cp_parts = optimizer ? 1 : (guint64) p->cp;
      guint64 parts = tp_parts * dp_parts * cp_parts;
      BpwTask task;

      task = (BpwTask) {
        .op = op->lineage,
        .addition = op->addition,
        .flops = ceil_div (op->flops, parts),
        .bytes_read = ceil_div (op->bytes_read, parts),
        .bytes_written = ceil_div (op->bytes_written, parts),
        .count = optimizer ? 1 : op->count / p->dp,
        .tp_parts = tp_parts,
        .dp_parts = dp_parts,
        .cp_parts = cp_parts,
      };

      /* Expert ops need no EP factor: each EP rank holds E/ep experts but receives the
       * tokens of ep replicas for them, so its work equals one replica's share. */
      if (task.addition == BPW_ADDITION_NONE && tp_parts < (guint64) p->tp)
        task.addition = BPW_ADDITION_TP_REPLICATED;
      if (task.addition == BPW_ADDITION_NONE && optimizer && dp_parts < (guint64) (p->dp * p->cp))
        task.addition = BPW_ADDITION_DP_REPLICATED;
      g_array_append_val (dist->stages[stage].tasks, task);
    }
}

BpwDistWork *
bpw_dist_work_new (BpwWorkGraph      *graph,
                   const BpwParallel *parallel,
                   GError           **error)
{
  g_autoptr(BpwDistWork) dist = g_new0 (BpwDistWork, 1);
  const BpwModelSpec *m = &graph->spec;
  const BpwStageSplit *split = &dist->split;

  dist->graph = graph;
  dist->parallel = *parallel;
  if (!bpw_scenario_validate (&graph->scenario, parallel, m, error))
    return NULL;

  /* Resolved on the distribution's own copy of the parallel, whose list it borrows. */
  if (!bpw_stage_split_resolve (&dist->split, &dist->parallel, m, &graph->scenario, error))
    return NULL;

  dist->n_stages = parallel->pp;
  dist->stages = g_new0 (BpwStage, dist->n_stages);
  dist->micro_batches_per_pipeline = bpw_scenario_micro_batches (&graph->scenario, parallel);
  /* Each rank holds its chunks' blocks: virtual stage c·pp + s is chunk c of rank s, so
   * under interleaving rank 0 of pp 2 × v 2 runs the first and the third quarter. Where
   * the layers differ along the depth (windowed, MoE after dense, cross-attention) this is
   * what decides each rank's work; bpw_dist_work_place_layer() places every block. */
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      BpwStage *st = &dist->stages[s];

      st->index = s;
      st->first_layer = bpw_stage_split_virtual_first (split, s);
      st->n_layers = bpw_stage_split_rank (split, s);
      st->has_embedding = s == 0;
      st->has_head = s == dist->n_stages - 1;
      st->tasks = g_array_new (FALSE, FALSE, sizeof (BpwTask));
      st->collectives = g_array_new (FALSE, FALSE, sizeof (BpwCollective));
    }

  bpw_dist_work_assign_tasks (dist);
  _bpw_dist_work_add_collectives (dist);
  if (!_bpw_dist_work_compute_memory (dist))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_OVERFLOW,
                   _("the memory per device of this scenario exceeds 2^64 bytes; reduce the "
                   "batch, sequence or model size, or split it over more devices"));
      return NULL;
    }
  return g_steal_pointer (&dist);
}

void
bpw_dist_work_chunk_layers (const BpwDistWork *dist,
                            gint64             stage,
                            gint64            *layers)
{
  for (gint64 c = 0; c < dist->split.chunks; c++)
    layers[c] = bpw_stage_split_virtual (&dist->split, c * dist->split.pp + stage);
}

gint64
bpw_dist_work_stage_layer (const BpwDistWork *dist,
                           gint64             stage,
                           gint64             i)
{
  return bpw_stage_split_rank_layer (&dist->split, stage, i);
}

char *
bpw_dist_work_stage_layer_ranges (const BpwDistWork *dist,
                                  gint64             stage)
{
  const BpwStageSplit *sp = &dist->split;
  GString *out = g_string_new (NULL);

  for (gint64 c = 0; c < sp->chunks; c++)
    {
      gint64 k = c * sp->pp + stage, n = bpw_stage_split_virtual (sp, k);
      gint64 first = bpw_stage_split_virtual_first (sp, k);

      if (n <= 0)
        continue;
      if (out->len > 0)
        g_string_append (out, ", ");
      if (n == 1)
        g_string_append_printf (out, "%" PRId64, first);
      else
        g_string_append_printf (out, "%" PRId64 "\xe2\x80\x93%" PRId64, first, first + n - 1);
    }
  return g_string_free (out, FALSE);
}

void
bpw_dist_work_free (BpwDistWork *dist)
{
  if (dist == NULL)
    return;
  for (gint64 s = 0; s < dist->n_stages && dist->stages != NULL; s++)
    {
      g_clear_pointer (&dist->stages[s].tasks, g_array_unref);
      g_clear_pointer (&dist->stages[s].collectives, g_array_unref);
    }
  g_free (dist->stages);
  bpw_work_graph_free (dist->graph);
  g_free (dist);
}
