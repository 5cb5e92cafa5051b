/* bpw-dist-work-private.h — helpers shared by the distribution's source files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * First how a distribution divides tensors and layers over its ranks (bpw-dist-shares.c),
 * with the rounding and saturating arithmetic of per-rank counts.
 */
#pragma once

#include "bpw-dist-work.h"

G_BEGIN_DECLS

/* Shares are rounded up: the most loaded rank holds the remainder. */
static inline guint64
ceil_div (guint64 x, guint64 y)
{
  return x / y + (x % y != 0);
}

/* Byte sums per rank saturate at G_MAXUINT64 instead of wrapping; bpw_dist_work_new()
 * refuses a distribution with a saturated count (BPW_ERROR_OVERFLOW). */
static inline guint64
sat_add (guint64 x, guint64 y)
{
  guint64 r;

  return __builtin_add_overflow (x, y, &r) ? G_MAXUINT64 : r;
}

static inline guint64
sat_mul (guint64 x, guint64 y)
{
  guint64 r;

  return __builtin_mul_overflow (x, y, &r) ? G_MAXUINT64 : r;
}

guint64  _bpw_dist_work_tp_parts           (const BpwParallel  *parallel,
                                            const BpwModelSpec *spec,
                                            BpwSplit            split);
gint64   _bpw_dist_work_stage_of_layer     (const BpwDistWork  *dist,
                                            gint64              layer);
guint64  _bpw_dist_work_tensor_parts       (const BpwDistWork  *dist,
                                            const BpwTensor    *tensor);
guint64  _bpw_dist_work_tensor_rank_bytes  (const BpwDistWork  *dist,
                                            const BpwTensor    *tensor);


/* Whether a pipeline's last stage keeps its own copy of the embedding table, whose gradient
 * it sums with the first stage's every step: for a head tied to it, or, in training, for
 * the lookups of the multi-token prediction modules (Megatron-LM). */
static inline gboolean
_bpw_dist_work_last_stage_embedding (const BpwDistWork *dist)
{
  const BpwModelSpec *m = &dist->graph->spec;

  return dist->parallel.pp > 1 &&
         (m->tied_embeddings ||
          (m->mtp_modules > 0 && dist->graph->scenario.phase == BPW_WORKLOAD_TRAIN));
}

void     _bpw_dist_work_add_collectives    (BpwDistWork        *dist);
/* Context parallelism: the bytes of K and V one rank holds for its own seq / cp tokens of
 * one micro-batch in one layer (its TP share of the KV heads), and the transient buffer
 * for the other ranks' blocks while one layer's attention runs: one block in flight for
 * the ring (double buffering), the cp - 1 gathered blocks for all-gather. 0 when cp is 1. */
guint64  _bpw_dist_work_cp_kv_block_bytes  (const BpwDistWork  *dist);
guint64  _bpw_dist_work_cp_kv_buffer_bytes (const BpwDistWork  *dist);
/* FALSE when a count of some stage does not fit in 64 bits (saturated). */
gboolean _bpw_dist_work_compute_memory     (BpwDistWork        *dist);
gint64   _bpw_dist_work_in_flight          (BpwWorkloadPhase    phase,
                                            BpwSchedule         schedule,
                                            gint64              micro_batches,
                                            gint64              pp,
                                            gint64              stage);
/* Training with v > 1 interleaved chunks: the chunk forwards whose activations a stage
 * holds at its peak, Megatron-LM's warm-up plus the one forward before the first
 * backward (bpw-simulate-order.c runs the same order). A micro-batch is v chunks. */
gint64   _bpw_dist_work_chunks_in_flight   (gint64              micro_batches,
                                            gint64              pp,
                                            gint64              v,
                                            gint64              stage);
void     _bpw_dist_work_account_tensor     (const BpwDistWork  *dist,
                                            const BpwTensor    *tensor,
                                            BpwRankMemory      *mem,
                                            guint64            *stored,
                                            guint64            *kv,
                                            guint64            *live);

G_END_DECLS
