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
 */
#pragma once

#include "bpw-types.h"
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
} BpwStageSplit;

/* Chunks per rank of @parallel: its interleave under the interleaved schedule, else 1. */
gint64    bpw_parallel_chunks          (const BpwParallel *parallel);

/* Whether @parallel's split can place @spec's blocks: an explicit list has pp or pp × v
 * entries, each at least 1, adding up to the layers; "lighter" leaves every stage a block;
 * no more virtual stages than layers. Each violated rule is one sentence. */
gboolean  bpw_stage_split_check        (const BpwParallel  *parallel,
                                        const BpwModelSpec *spec,
                                        GError            **error);

/* Resolves @parallel's split for @spec run as @scenario (the balanced split weighs the
 * embedding's, a block's and the head and loss's model FLOPs per token of @scenario). The
 * result borrows @parallel's list: keep @parallel alive while using it. */
gboolean  bpw_stage_split_resolve      (BpwStageSplit      *split,
                                        const BpwParallel  *parallel,
                                        const BpwModelSpec *spec,
                                        const BpwScenario  *scenario,
                                        GError            **error);

/* As bpw_stage_split_resolve(), with the model FLOPs per step of each layer type given
 * (bpw_facts_compute_analytic()'s flops_model_by_layer_type, as doubles). */
gboolean  bpw_stage_split_resolve_weighed (BpwStageSplit      *split,
                                           const BpwParallel  *parallel,
                                           const BpwModelSpec *spec,
                                           const double        layer_flops[BPW_N_LAYER_TYPES],
                                           GError            **error);

/* The balanced split itself, for costs in units of one block's time: @embedding for the
 * first virtual stage's extra work, @head for the last's. Minimises the slowest virtual
 * stage; among equal splits it takes blocks off the first and the last stage first.
 * @n_virtual ≤ @layers. Fills first, last and middle of @split. */
void      bpw_stage_split_balance      (BpwStageSplit      *split,
                                        double              embedding,
                                        double              head);

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
