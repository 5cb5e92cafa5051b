/* bpw-stage-split.h — how many transformer blocks each pipeline stage runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A pipeline of pp ranks with v model chunks each (v = interleave under the interleaved
 * schedule, else 1) has V = pp × v virtual stages; virtual stage k = c·pp + s is chunk c of
 * rank s. The first virtual stage also runs the embedding, the last the head and the loss.
 * The split gives every virtual stage its blocks: even, balanced in time, the first and
 * last lighter by k, or listed. The work graph, the estimator and the simulation all read
 * it from here, so they agree on it.
 *
 * Balanced in time weighs every block by its own work, since blocks differ: full and
 * windowed attention (Qwen2, Gemma), dense and MoE (DeepSeek-V3), self- and
 * cross-attention (Llama 3.2 Vision). It cuts the blocks, in order, into the V virtual
 * stages so that the heaviest stage is as light as it can be (the linear partition
 * problem, solved exactly in integers), and among such cuts puts each boundary as near the
 * even share of the whole work as that bound allows, so the ranks' chunks even out too.
 */
#pragma once

#include "bpw-types.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

typedef struct
{
  gint64          pp;
  gint64          chunks;        /* v */
  gint64          n_virtual;     /* pp × v */
  gint64          layers;
  gint64          first, last;   /* blocks of virtual stages 0 and V − 1 */
  gint64          middle;        /* blocks of virtual stages 1 .. V − 2, as even as
                                  * possible, the extra ones on the later stages */
  const guint32  *listed;        /* borrowed from the parallel: explicit, or NULL */
  gint32          n_listed;      /* V, or pp (each rank's blocks split over its chunks) */
  /* The balanced split: virtual stage k runs blocks [bounds[k], bounds[k + 1]). */
  gboolean        weighed;
  guint16         bounds[BPW_MODEL_MAX_LAYERS + 1];
} BpwStageSplit;

/* What the balanced split weighs, in FLOPs per step: everything one block of each kind
 * executes in the forward, backward and optimizer step, and the same of the work before
 * the blocks (the embedding, a multimodal model's encoder: the first virtual stage) and
 * after them (final norm, head, loss: the last). Recomputation is left out, so the weights
 * and the split do not change with the recompute choice. The split only adds and compares
 * them: any whole measure of work does (a caller that prices blocks in time can pass
 * integer time units). */
typedef struct
{
  BpwU128  before;
  BpwU128  after;
  BpwU128  block[2][2];   /* [MoE][windowed; in a cross-attention model, cross-attention] */
} BpwStageWeights;

/* Chunks per rank of @parallel: its interleave under the interleaved schedule, else 1. */
gint64    bpw_parallel_chunks          (const BpwParallel *parallel);

/* Whether @parallel's split can place @spec's blocks: an explicit list has pp or pp × v
 * entries, each at least 1, adding up to the layers; "lighter" leaves every stage a block;
 * no more virtual stages than layers. Each violated rule is one sentence. */
gboolean  bpw_stage_split_check        (const BpwParallel  *parallel,
                                        const BpwModelSpec *spec,
                                        GError            **error);

/* The weights from @facts, as bpw_facts_compute_analytic() fills them. */
void      bpw_stage_weights_from_facts (BpwStageWeights    *weights,
                                        const BpwFacts     *facts);
/* The work of block @layer of @spec. */
BpwU128   bpw_stage_weights_block      (const BpwStageWeights *weights,
                                        const BpwModelSpec    *spec,
                                        gint64                 layer);

/* Resolves @parallel's split for @spec run as @scenario (the balanced split weighs each
 * block, the work before and the work after them by @scenario's FLOPs). The result
 * borrows @parallel's list: keep @parallel alive while using it. */
gboolean  bpw_stage_split_resolve      (BpwStageSplit      *split,
                                        const BpwParallel  *parallel,
                                        const BpwModelSpec *spec,
                                        const BpwScenario  *scenario,
                                        GError            **error);

/* As bpw_stage_split_resolve(), with the weights given: only the balanced split reads
 * them, so they may be NULL when bpw_stage_split_is_balanced() says it is not asked for. */
gboolean  bpw_stage_split_resolve_weighed (BpwStageSplit         *split,
                                           const BpwParallel     *parallel,
                                           const BpwModelSpec    *spec,
                                           const BpwStageWeights *weights,
                                           GError               **error);

/* Whether @parallel's split is balanced for @spec (asked for, or automatic where pp × v
 * does not divide the layers). */
gboolean  bpw_stage_split_is_balanced  (const BpwParallel  *parallel,
                                        const BpwModelSpec *spec);

/* The balanced split itself over @split's n_virtual ≤ layers virtual stages: block i
 * weighs @block_work[i] (layers entries), the first virtual stage also @before and the
 * last @after. Finds the least bound B on the heaviest virtual stage, then cuts each
 * boundary k at the block nearest the even share k (before + Σ blocks + after) / V of the
 * work that keeps every stage within B and leaves every stage a block, the earlier block
 * on a tie. Returns B. */
BpwU128   bpw_stage_split_balance      (BpwStageSplit      *split,
                                        const BpwU128      *block_work,
                                        BpwU128             before,
                                        BpwU128             after);

/* Blocks of virtual stage @k (0 ≤ k < V). */
gint64    bpw_stage_split_virtual      (const BpwStageSplit *split,
                                        gint64               k);
/* Blocks rank @stage holds over its chunks. */
gint64    bpw_stage_split_rank         (const BpwStageSplit *split,
                                        gint64               stage);

/* The first block of virtual stage @k (0 ≤ k ≤ V; V gives the layers): virtual stages run
 * the model's blocks in order, so rank s holds [first (c·pp + s), first (c·pp + s + 1)) for
 * each of its chunks c, which are not contiguous under interleaving. */
gint64    bpw_stage_split_virtual_first (const BpwStageSplit *split,
                                         gint64               k);
/* The virtual stage that runs block @layer (0 ≤ layer < layers). */
gint64    bpw_stage_split_virtual_of    (const BpwStageSplit *split,
                                         gint64               layer);
/* The @i-th block rank @stage runs (0 ≤ i < bpw_stage_split_rank()), chunk 0's first. */
gint64    bpw_stage_split_rank_layer    (const BpwStageSplit *split,
                                         gint64               stage,
                                         gint64               i);

G_END_DECLS
