/* bpw-dist-shares.c — how a distribution divides tensors and layers over its ranks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The shares every part of the distribution agrees on: which TP (and EP) ranks divide a
 * tensor, the bytes of it the most loaded rank holds, and the pipeline stage of a layer.
 * Kept apart from bpw-dist-work.c so that the collectives and memory passes it runs use
 * them without calling back into it.
 */
#define G_LOG_DOMAIN "bpw-dist-work"

#include "config.h"

#include "bpw-dist-shares-private.h"

/* How many TP ranks divide work or bytes of @split; the rest of the TP group repeats it. */
guint64
_bpw_dist_work_tp_parts (const BpwParallel  *p,
                         const BpwModelSpec *m,
                         BpwSplit            split)
{
  switch (split)
    {
    case BPW_SPLIT_TP:
    case BPW_SPLIT_EXPERT:
      return p->tp;
    case BPW_SPLIT_SEQUENCE:
      return p->sp ? p->tp : 1;
    case BPW_SPLIT_KV_HEADS:
      return MIN (p->tp, m->kv_heads);
    case BPW_SPLIT_REPLICATED:
    default:
      return 1;
    }
}

gint64
_bpw_dist_work_stage_of_layer (const BpwDistWork *dist,
                               gint64             layer)
{
  if (layer == BPW_LAYER_BEFORE_BLOCKS)
    return 0;
  if (layer == BPW_LAYER_AFTER_BLOCKS)
    return dist->n_stages - 1;
  for (gint64 s = 0; s < dist->n_stages; s++)
    if (layer < dist->stages[s].first_layer + dist->stages[s].n_layers)
      return s;
  return dist->n_stages - 1;
}

/* Ranks of a stage's TP (and EP, and CP) group that divide a tensor. Expert parameters are also
 * divided over EP; expert activations are not, since each EP rank processes the tokens of
 * ep replicas for its E/ep experts. */
guint64
_bpw_dist_work_tensor_parts (const BpwDistWork *dist,
                             const BpwTensor   *t)
{
  guint64 parts = _bpw_dist_work_tp_parts (&dist->parallel, &dist->graph->spec, t->split);

  if (t->split == BPW_SPLIT_EXPERT &&
      (t->kind == BPW_TENSOR_WEIGHT || t->kind == BPW_TENSOR_GRADIENT ||
       t->kind == BPW_TENSOR_OPTIMIZER_STATE || t->kind == BPW_TENSOR_MASTER_WEIGHT))
    parts *= dist->parallel.ep;
  /* Context parallelism splits every micro-batch's tokens: its activations, their
   * gradients and the KV cache it writes. Weights and their state are whole on each CP
   * rank. */
  if (t->kind == BPW_TENSOR_ACTIVATION || t->kind == BPW_TENSOR_ACTIVATION_GRAD ||
      t->kind == BPW_TENSOR_KV_CACHE || t->kind == BPW_TENSOR_COMMUNICATION)
    parts *= dist->parallel.cp;
  return parts;
}

/* Per-rank bytes of a tensor (most loaded rank). */
guint64
_bpw_dist_work_tensor_rank_bytes (const BpwDistWork *dist,
                                  const BpwTensor   *t)
{
  return ceil_div (t->bytes, _bpw_dist_work_tensor_parts (dist, t));
}
