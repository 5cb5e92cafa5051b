/* bpw-search-private.h — sound bounds of the search, shared with its tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-search.h"
#include <json-glib/json-glib.h>

#include "bpw-estimator-private.h"

G_BEGIN_DECLS

/* Relative slack on every bound: the estimator adds the same terms in another order, so a
 * bound may exceed the exact value by a few ulps; pruning only beyond this margin keeps
 * it sound. */
#define BPW_SEARCH_BOUND_SLACK 1e-9

/* What a node's template proves about every plan of the node, whatever its schedule,
 * overlaps and collective algorithms (which only add non-negative exposed time). */
typedef struct
{
  gboolean  illegal;       /* capability reasons, or memory that no schedule can lower */
  double    memory;        /* device bytes of the most loaded stage without stored activations */
  double    host;          /* host bytes of the stage with the most */
  double    compute;       /* max over stages: task time per micro-batch (no communication) */
  double    compute_min;   /* min over stages: the least a stage adds to the bubble */
  double    optimizer;     /* max over stages: optimizer time per step */
  /* Max over stages: matmul FLOPs per micro-batch on matrix engines (recompute included,
   * padding excluded). Proportional to the micro-batch within a run of nodes. */
  double    matmul_flops;
  double    matmul_flops_min;  /* min over stages */
  gboolean  all_to_all;    /* an all-to-all transfer exists: explicit algorithms may beat auto */
} BpwSearchBound;

/* Device capacity per device and host capacity (0: unlimited), as the estimator has them. */
void      _bpw_search_capacities     (const BpwBlueprint   *blueprint,
                                      double               *device,
                                      double               *host,
                                      gboolean             *has_host);

/* Bound of the node @mapping (any plan of it) belongs to. FALSE with @error when its
 * template cannot be bound. */
gboolean  _bpw_search_bound_node     (BpwEstimator         *estimator,
                                      const BpwSearchSpace *space,
                                      const BpwMapping     *mapping,
                                      gint64                micro_batches,
                                      BpwSearchBound       *bound,
                                      GError              **error);

/* Persistent state alone (weights, gradients, optimizer state after offload) of the
 * stage that holds the most, from @mapping's template: equal for every node of a group
 * (micro-batch, recompute, fusion and SP do not change it), so a group whose state does
 * not fit is illegal as a whole. Host bytes likewise into @host. */
gboolean  _bpw_search_bound_state    (BpwEstimator         *estimator,
                                      const BpwSearchSpace *space,
                                      const BpwMapping     *mapping,
                                      double               *device,
                                      double               *host,
                                      GError              **error);

/* The fastest any matrix engine runs @precision: peak × its best efficiency. A matmul of F
 * FLOPs takes at least F over this. 0 when no matrix engine runs it. */
double    _bpw_search_matrix_rate    (const BpwBlueprint   *blueprint,
                                      BpwPrecision          precision);

/* Lower bound on the step time of every plan of the node with schedule interleave @v:
 * the slowest stage's micro-batches, and a bubble of every other stage's work once
 * (bpw_evaluation_combine()), each at least the lightest stage's. */
static inline double
_bpw_search_bound_step (const BpwSearchBound *b,
                        gint64                micro_batches,
                        gint64                pp,
                        gint64                v)
{
  return (double) micro_batches * b->compute +
         (double) (pp - 1) / (double) v * b->compute_min + b->optimizer;
}

/* TRUE when a plan whose step time is at least @bound cannot enter a top list whose
 * last entry takes @threshold seconds. */
static inline gboolean
_bpw_search_bound_exceeds (double bound,
                           double threshold)
{
  return bound > threshold * (1.0 + BPW_SEARCH_BOUND_SLACK);
}

/* ---- the runner (bpw-search.c) and its workers (bpw-search-worker.c) ---- */

/* One result of the ranking. Plans that differ only in their collective algorithms (one
 * "class": the same node and leaf but for the algorithm digit) and whose estimates are
 * exactly equal in what ranks them and makes them legal (step time, energy, peak memory)
 * are one result: the lowest index stands for the @variants of them. Results are ordered
 * by (time, klass, energy, peak), which, unlike the index of whichever member a shard
 * happens to hold, is the same in every shard, so shards and threads fold and rank them
 * as the whole run does. Two entries with equal keys are the same result. */
typedef struct
{
  double         time;
  guint64        klass;     /* index of the class's first plan (automatic algorithms) */
  double         energy;    /* +inf when unknown */
  double         peak;      /* device bytes */
  guint64        index;     /* the lowest of the members seen */
  guint64        variants;  /* members seen (>= 1) */
} BpwSearchKey;

typedef struct
{
  BpwSearchKey   key;       /* first: arrays of hits sort with the key functions */
  BpwEvaluation  eval;      /* of key.index */
} BpwSearchHit;

enum { BPW_SEARCH_GROUP_UNKNOWN, BPW_SEARCH_GROUP_OK, BPW_SEARCH_GROUP_ILLEGAL };

typedef struct
{
  const BpwSearchSpace   *space;
  const BpwSearchOptions *options;
  GCancellable           *cancellable;
  guint64                 begin, end;
  double                  capacity, host_capacity;
  gboolean                has_host;
  gboolean                dp_dominance;  /* DP overlap on is never slower than off */
  double                  matrix_rate;   /* _bpw_search_matrix_rate(), 0: no FLOP bound */
  gboolean                linear;        /* matmul FLOPs scale with the micro-batch */
  guint                   phase;         /* 1, 2: reported with the progress */

  /* The current phase's work list, taken through an atomic counter. */
  const guint            *work;
  guint                   n_work;
  gint                    next;
  guint64                 decided;       /* atomic */
  guint64                 estimated;     /* atomic */
  gint                   *group_state;   /* atomic per group */
  /* Per node, read only between phases: the pre-binding bound (+inf: illegal group). */
  double                 *node_bound;
  /* Per run (indexed by its first node): FLOPs per sequence and optimizer time. */
  double                 *run_flops;
  double                 *run_optimizer;
  double                 *run_flops_min;  /* per micro-batch sequence: the lightest stage */
  gint                   *run_state;

  GMutex                  lock;          /* the fields below */
  GCond                   done;
  guint                   running;
  /* Phase 2 (bounds pruning) takes its work in blocks of BPW_SEARCH_BLOCK_NODES, in order.
   * Block b prunes against the K-th best of blocks 0 to b − 2, merged in order once each
   * is done, so every run and thread count sees the same thresholds and counts the same;
   * a worker two blocks ahead of the last merged one waits. */
  gboolean                blocks;
  guint                   n_blocks;
  guint                   merged;        /* blocks merged into @top, in order */
  guint                  *block_left;    /* per block: nodes not finished */
  GPtrArray              *block_hits;    /* per block: GArray of BpwSearchHit, best K per node */
  double                 *block_threshold; /* per block: +inf until block b − 2 is merged */
  GArray                 *top;           /* the best K of the merged blocks */
  GCond                   advanced;      /* a block was merged */
  gboolean                has_best;
  double                  best_time;
  guint64                 best_index;
} BpwSearchRun;

enum { BPW_SEARCH_RUN_UNKNOWN, BPW_SEARCH_RUN_BOUND, BPW_SEARCH_RUN_ILLEGAL };

typedef struct
{
  BpwSearchRun  *run;
  BpwEstimator  *est;
  GArray        *hits;        /* BpwSearchHit, sorted, at most K */
  GArray        *front;       /* BpwSearchHit */
  GArray        *values;      /* double per leaf of the current node */
  GArray        *interleave;  /* gint64 per schedule of the current node */
  guint64        estimated, legal, failed, pruned_illegal, pruned_bound, pruned_dominated;
  guint64        templates;
  double         threshold;   /* the current node's block's, +inf when none */
  GArray        *node_hits;   /* BpwSearchHit: the current node's legal plans */
} BpwSearchWorker;

/* Nodes per block of phase 2: small, so that a worker rarely waits for a block. */
#define BPW_SEARCH_BLOCK_NODES 16

/* Before phase 1: whether @group can hold a legal plan, decided once (it binds a
 * template, and the count of templates bound is reported). */
void      _bpw_search_worker_group      (BpwSearchWorker *w,
                                         guint            group);
/* Phase 1: binds the first node of run @node's run, records its FLOPs and optimizer time. */
void      _bpw_search_worker_bound_run  (BpwSearchWorker *w,
                                         guint            node);
/* Phase 2: every plan of @node in the range, pruned or evaluated. */
void      _bpw_search_worker_node       (BpwSearchWorker *w,
                                         guint            node);
/* Order of results (BpwSearchKey first in each element): 0 for the same result. */
int       _bpw_search_key_compare       (gconstpointer    a,
                                         gconstpointer    b);
/* Folds @from (the same result) into @into: the members add up, the lower index stays
 * (TRUE when it is @from's: the caller moves the rest of the element). */
gboolean  _bpw_search_key_fold          (BpwSearchKey       *into,
                                         const BpwSearchKey *from);
/* Folds the runs of equal keys of @sorted (sorted by _bpw_search_key_compare) into one
 * element each, the lowest index's. */
void      _bpw_search_fold_sorted       (GArray          *sorted);
/* Whether @a is at least as good in step time and energy and better in one, or equal in
 * both and earlier in the order: the Pareto front keeps one result per point. */
gboolean  _bpw_search_key_dominates     (const BpwSearchKey *a,
                                         const BpwSearchKey *b);
/* Front of (step time, energy) of hits, both minimised; the same result folds. */
void      _bpw_search_front_insert      (GArray          *front,
                                         const BpwSearchHit *hit);

/* One entry of a "best" list: index, analytic step time, mapping, evaluate keys. */
JsonNode *_bpw_search_result_to_node (const BpwSearchResult *result);

/* bpw_search_result_reevaluate() in @scenario (with @r's micro-batch and recompute) instead
 * of the space's: what Calculon's results need where its batch is not the scenario's. */
void     _bpw_search_result_reevaluate_in (const BpwSearchSpace *space,
                                           const BpwScenario    *scenario,
                                           BpwSearchResult      *r);
/* The clear function of arrays of BpwSearchResult. */
void     _bpw_search_result_clear         (gpointer              result);

/* The index range of one shard document. */
typedef struct
{
  gint64 begin, end;
} BpwSearchRange;

/* Sorts @ranges (BpwSearchRange) and adds up the plans they cover; FALSE when two overlap
 * (BPW_ERROR_INVALID_INPUT: each shard is given once). */
gboolean _bpw_search_ranges_cover         (GArray               *ranges,
                                           gint64               *covered,
                                           GError              **error);

G_END_DECLS
