/* bpw-search.h — the best mappings of a scenario on a blueprint: exact, pruned, threaded
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Search evaluates the plans of a BpwSearchSpace (or of one shard of it) with the
 * analytic estimator, one per thread, and keeps the K best legal results by step time.
 * A result is a plan, or the plans that differ from it only in collective algorithms and
 * whose estimates are exactly the same in step time, energy and peak memory (where overlap
 * hides the collectives, every algorithm prices alike): the lowest index stands for them
 * and counts them (equivalent_variants). Where an algorithm changes the estimate, each
 * estimate is its own result. Ties in step time go to the lower index of the automatic-
 * algorithm plan (algorithm_class), then the lower energy and memory. Bounds prune
 * without ever dropping a plan that belongs in that list, so the result (and every count)
 * is the brute force's, whatever the thread count, shards and ranks:
 * - a group (TP, PP, DP, EP, ZeRO, offload) whose tier rules fail, or whose weights,
 *   gradients and optimizer state alone do not fit, is illegal as a whole;
 * - a node (one template shape) whose capability reasons or schedule-independent memory
 *   (everything but stored activations) exceed capacity is illegal as a whole;
 * - a schedule of a node whose step-time bound (m + (p−1)/v) · task time + optimizer —
 *   communication left out — exceeds the K-th best so far is skipped;
 * - a plan that can only be slower than a plan already seen (same plan with automatic
 *   collective algorithms, ring TP overlap, DP overlap on, or 1F1B instead of GPipe) is
 *   skipped when that plan was illegal or slower than the K-th best.
 * The best are then re-evaluated through the full plan path (bpw_plan_new() and
 * bpw_evaluation_from_plan()) and simulated (bpw_simulation_new()); the ranking stays
 * the analytic one, which is what the search can prove things about.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-evaluation.h"
#include "bpw-search-space.h"

G_BEGIN_DECLS

typedef struct
{
  guint     top_k;          /* default 10 */
  guint     threads;        /* 0: one per processor */
  guint64   shard_index;    /* default 0 of 1: the whole space */
  guint64   shard_count;
  gboolean  exhaustive;     /* evaluate every plan, no bound (brute force) */
  /* Also keep the Pareto front of step time and energy per step (throughput and
   * performance per watt). A slower plan may use less energy, so the step-time bounds
   * are off; only proofs of illegality prune. */
  gboolean  pareto;
  gboolean  reevaluate;     /* full plan path for the best (default TRUE) */
  gboolean  simulate;       /* and the event simulation of those plans (default TRUE) */
  guint     progress_ms;    /* progress callback interval (default 200) */
} BpwSearchOptions;

typedef struct
{
  guint64        index;        /* the lowest of its equivalent variants */
  /* The index of the plan with the same choices but automatic collective algorithms:
   * equal for plans that differ only in algorithms. */
  guint64        algorithm_class;
  /* Plans (this one included) that differ from it only in collective algorithms and
   * whose estimates are the same: this result stands for them all. */
  guint64        equivalent_variants;
  BpwMapping     mapping;      /* owned, named "search-INDEX" */
  BpwEvaluation  estimate;     /* the analytic evaluation that ranked it */
  BpwPlan       *plan;         /* owned, nullable: the full plan path */
  BpwEvaluation  evaluation;   /* from @plan when there is one, else = @estimate */
  GPtrArray     *reasons;      /* owned sentences: why the plan is illegal (usually empty) */
  gboolean       simulated;    /* the schedule simulator ran @plan: */
  BpwEvaluation  simulation;   /* the simulated step (bpw_simulation_evaluation()) */
  char          *simulation_json;  /* owned: its `bpw evaluate --json` object */
} BpwSearchResult;

typedef struct
{
  guint64   space;             /* plans in the whole space */
  guint64   begin, end;        /* this run's index range */
  /* Plans of the range decided: estimated, refused, or pruned by a sound bound. Shards'
   * counts add up to the whole's; less than end − begin only when cancelled. */
  guint64   evaluated;
  guint64   estimated;         /* analytic evaluations run */
  guint64   legal;             /* of which legal */
  guint64   failed;            /* the estimator refused the configuration */
  guint64   pruned_illegal;    /* proved illegal without evaluating them */
  guint64   pruned_bound;      /* step-time bound above the K-th best */
  guint64   pruned_dominated;  /* a plan that can only do better was illegal or too slow */
  guint64   templates;         /* estimator templates bound */
  double    seconds;
  gboolean  cancelled;
  gboolean  pareto_kept;       /* options->pareto */
  guint     top_k, threads;
  guint64   shard_index, shard_count;
  char     *fingerprint;       /* the space's */
  GArray   *best;              /* BpwSearchResult by estimated step time (see above) */
  /* BpwSearchResult by estimated step time; with options->pareto. Not re-evaluated:
   * evaluation = estimate, no plan (a front may hold many plans). One result per point
   * of (step time, energy): equal points go to the first in the ranking's order. */
  GArray   *pareto;
} BpwSearchReport;

typedef struct
{
  guint     phase;             /* 1: bounding the template shapes; 2: searching */
  guint64   decided, total;    /* plans of the range (decided only grows in phase 2) */
  guint64   estimated;
  double    elapsed_s;
  double    remaining_s;       /* from the rate so far; NaN before any progress */
  gboolean  has_best;
  guint64   best_index;
  double    best_step_time_s;
} BpwSearchProgress;

/* Called from the thread that runs bpw_search_run(), every options->progress_ms. */
typedef void (*BpwSearchProgressFunc) (const BpwSearchProgress *progress,
                                       gpointer                 user_data);

void              bpw_search_options_init  (BpwSearchOptions       *options);

/* Blocks until the range is done or @cancellable is cancelled; a cancelled search returns
 * what it found so far (report->cancelled). NULL with @error only for bad options. */
BpwSearchReport  *bpw_search_run           (const BpwSearchSpace   *space,
                                            const BpwSearchOptions *options,
                                            BpwSearchProgressFunc   progress,
                                            gpointer                user_data,
                                            GCancellable           *cancellable,
                                            GError                **error);
void              bpw_search_report_free   (BpwSearchReport        *report);

/* Fills @result's plan, evaluation and reasons through the full plan path. */
void              bpw_search_result_reevaluate (const BpwSearchSpace *space,
                                                BpwSearchResult      *result);

/* Simulates @result's plan (bpw_simulation_new(), the default options of `bpw evaluate`)
 * and keeps the simulated evaluation and its JSON; FALSE (nothing changed) without a
 * plan or when the simulation fails. */
gboolean          bpw_search_result_simulate   (const BpwSearchSpace *space,
                                                BpwSearchResult      *result);

/* The `bpw search --json` document (format "bpw-search"). */
char             *bpw_search_report_to_json (const BpwSearchReport *report,
                                             const BpwSearchSpace  *space);

/* Merges `bpw search --json` documents of shards of one space (@names for messages):
 * counts add up, the best lists and Pareto fronts merge, and a result whose equivalent
 * variants a shard boundary split folds back into one (their counts add up). FALSE with a located
 * BPW_ERROR_INVALID_INPUT for a document that is not one, shards of different spaces, or
 * overlapping shards. The merged document says "complete": true when the shards cover the
 * whole space and none was cancelled. */
char             *bpw_search_merge_json    (const char * const     *texts,
                                            const char * const     *names,
                                            guint                   n,
                                            GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwSearchReport, bpw_search_report_free)

G_END_DECLS
