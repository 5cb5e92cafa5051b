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

#include "bpw-dist-work-private.h"

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
  gint64 stage;

  bpw_dist_work_place_layer (dist, layer, &stage, NULL, NULL);
  return stage;
}

void
bpw_dist_work_place_layer (const BpwDistWork *dist,
                           gint64             layer,
                           gint64            *stage,
                           gint64            *chunk,
                           gint64            *slot)
{
  const BpwStageSplit *sp = &dist->split;
  gint64 k, s, c, i;

  if (layer < 0 || layer >= sp->layers)
    {
      gboolean before = layer == BPW_LAYER_BEFORE_BLOCKS;

      if (stage != NULL)
        *stage = before ? 0 : dist->n_stages - 1;
      if (chunk != NULL)
        *chunk = before ? 0 : sp->chunks - 1;
      if (slot != NULL)
        *slot = -1;
      return;
    }
  /* Virtual stage k = c·pp + s runs the k-th run of blocks: chunk c of rank s. */
  k = bpw_stage_split_virtual_of (sp, layer);
  s = k % sp->pp;
  c = k / sp->pp;
  if (stage != NULL)
    *stage = s;
  if (chunk != NULL)
    *chunk = c;
  if (slot == NULL)
    return;
  i = layer - bpw_stage_split_virtual_first (sp, k);
  for (gint64 before = 0; before < c; before++)
    i += bpw_stage_split_virtual (sp, before * sp->pp + s);
  *slot = i;
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
