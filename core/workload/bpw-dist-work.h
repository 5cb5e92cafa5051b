/* bpw-dist-work.h — a work graph split over ranks by TP, SP, PP, DP, EP and ZeRO
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-stage-split.h"
#include "bpw-work-graph.h"

G_BEGIN_DECLS

/* One rank's share of one op. Ranks of one pipeline stage are alike up to the even splits
 * that divisibility rules guarantee, so tasks are stored per stage. */
typedef struct
{
  guint32  op;              /* lineage id of the model operation */
  guint8   addition;        /* BPW_ADDITION_TP_REPLICATED when every TP rank repeats it */
  guint16  tp_parts;        /* TP ranks that divide the op's work; the others repeat it */
  guint32  dp_parts;        /* DP (× CP) ranks that divide it (ZeRO-sharded optimizer), else 1 */
  guint32  cp_parts;        /* CP ranks that divide it: cp for the ops of a micro-batch, whose
                             * tokens the CP group splits; 1 for the optimizer */
  guint64  flops;           /* per rank, per execution */
  guint64  bytes_read;      /* per rank, per execution */
  guint64  bytes_written;
  guint64  count;           /* executions per step on one rank */
} BpwTask;

/* Bytes held per rank of a stage, by what they are. */
typedef struct
{
  guint64  weights;
  guint64  gradients;
  guint64  optimizer_state;  /* moments and master weights */
  guint64  activations;      /* stored for backward, peak over the schedule */
  guint64  kv_cache;
  guint64  parameters;       /* parameter elements this rank holds (before ZeRO-3 sharding) */
  gint64   in_flight;        /* micro-batches whose activations are live at once */
} BpwRankMemory;

typedef struct
{
  gint64         index;
  /* Its transformer blocks: n_layers of them, one contiguous run per model chunk (chunk c
   * is virtual stage c·pp + index), so under interleaving they are not contiguous; walk
   * them with bpw_dist_work_stage_layer(). first_layer is the first block of chunk 0. */
  gint64         first_layer;
  gint64         n_layers;
  gboolean       has_embedding;
  gboolean       has_head;
  GArray        *tasks;        /* BpwTask */
  GArray        *collectives;  /* BpwCollective, per rank of this stage */
  BpwRankMemory  memory;
} BpwStage;

struct _BpwDistWork
{
  BpwWorkGraph  *graph;        /* owned */
  BpwParallel    parallel;
  gint64         n_stages;
  BpwStage      *stages;       /* n_stages */
  gint64         micro_batches_per_pipeline;
  gint64         heaviest_stage; /* most loaded in memory */
  BpwStageSplit  split;        /* the blocks of every virtual stage (borrows parallel) */
};

BpwDistWork *bpw_dist_work_new   (BpwWorkGraph      *graph,   /* transfer full */
                                  const BpwParallel *parallel,
                                  GError           **error);
void         bpw_dist_work_free  (BpwDistWork       *dist);

/* Rank r = (((dp_index * pp) + pp_index) * cp + cp_index) * tp + tp_index. */
gint64       bpw_dist_work_n_ranks     (const BpwDistWork *dist);
gint64       bpw_dist_work_rank_stage  (const BpwDistWork *dist,
                                        gint64             rank);

/* Blocks of each of @stage's chunks (bpw_parallel_chunks() entries into @layers): the stage
 * runs them in order, chunk 0 first; the embedding is in chunk 0, head and loss in the
 * last. */
void         bpw_dist_work_chunk_layers (const BpwDistWork *dist,
                                         gint64             stage,
                                         gint64            *layers);

/* The @i-th block (0 ≤ i < n_layers) @stage runs, its chunks in order. */
gint64       bpw_dist_work_stage_layer  (const BpwDistWork *dist,
                                         gint64             stage,
                                         gint64             i);
/* Where block @layer runs: its stage, its model chunk on that stage, and its position
 * among the stage's blocks (the i of bpw_dist_work_stage_layer()). The embedding side is
 * chunk 0 of stage 0, the head side the last chunk of the last stage (@slot -1 for both);
 * any out argument may be NULL. */
void         bpw_dist_work_place_layer  (const BpwDistWork *dist,
                                         gint64             layer,
                                         gint64            *stage,
                                         gint64            *chunk,
                                         gint64            *slot);
/* The blocks of @stage as ranges, chunk by chunk: "0–6, 14–20" (one range a chunk, "5"
 * for a single block); "" when it holds none. */
char        *bpw_dist_work_stage_layer_ranges (const BpwDistWork *dist,
                                               gint64             stage);

/* Per-rank activation bytes one micro-batch stores in @layer (Korthikanti Table 2 under TP/SP). */
guint64      bpw_dist_work_layer_stored_bytes (const BpwDistWork *dist,
                                               gint64             layer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwDistWork, bpw_dist_work_free)

/* ---- conservation ---- */

typedef struct
{
  BpwAddition  addition;
  BpwU128      flops;
  BpwU128      bytes;
} BpwAdditionTotal;

typedef struct
{
  gboolean          ok;
  BpwU128           semantic_flops;      /* the model's mathematics, whole job */
  BpwU128           graph_flops;         /* work graph as decomposed (semantic + graph additions) */
  BpwU128           distributed_flops;   /* summed over every rank */
  BpwU128           graph_bytes;
  BpwU128           distributed_bytes;
  BpwAdditionTotal  additions[BPW_N_ADDITIONS];
  guint             n_mismatched_ops;    /* ops whose rank shares do not reconcile */
  gint64            first_mismatch;      /* lineage, or -1 */
  char             *message;             /* owned, nullable: what did not reconcile */
} BpwConservation;

/* Sums every rank's tasks per lineage id and reconciles them with the graph and the named
 * additions. Never fails: a mismatch is reported in @report with ok = FALSE. */
void         bpw_dist_work_check_conservation (const BpwDistWork *dist,
                                               BpwConservation   *report);
void         bpw_conservation_clear           (BpwConservation   *report);

G_END_DECLS
