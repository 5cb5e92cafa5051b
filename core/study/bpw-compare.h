/* bpw-compare.h — candidates × scenarios of a study: fit matrix, weighted scores, Pareto
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every candidate runs every scenario of the study (bpw_candidate_run_init()), with its
 * mapping as given — or, on request, the best mapping search finds where the candidate's
 * mapping object is empty — and the analytic estimator judges it:
 * - fit: legal, the scenario's SLA (step time for training, TTFT for prefill, TPOT for
 *   decode) passed or failed with its margin (limit − value) / limit, the bottleneck
 *   class; feasible = legal and the SLA (if any) passed;
 * - a suite's score of a candidate: the scenario-weighted mean of its throughput relative
 *   to the best candidate on each scenario, Σ w·(tokens/s ÷ best tokens/s) / Σ w, an
 *   infeasible scenario counting 0 (1 = best everywhere); likewise for tokens per joule
 *   (performance per watt); cost = devices × the candidate's price (the study's, per device
 *   or per device-hour; else the blueprint's cost per device), when given;
 * - the Pareto front of a suite over (score ↑, performance per watt ↑, cost ↓ when every
 *   candidate has a price, all in one unit), among the candidates feasible on the whole
 *   suite. Without prices nothing about cost is compared or claimed.
 * Without suites in the study, all scenarios form one suite, "all".
 */
#pragma once

#include <gio/gio.h>

#include "bpw-evaluation.h"
#include "bpw-search.h"
#include "bpw-study.h"

G_BEGIN_DECLS

typedef struct
{
  /* Search the best mapping where a candidate's mapping object is empty ({}); the
   * default (FALSE) evaluates the scenario's own decomposition as given. */
  gboolean          search_empty;
  BpwSearchOptions  search;
} BpwCompareOptions;

typedef struct
{
  gboolean       ok;           /* set up and evaluated; else @error says why */
  char          *error;        /* owned, nullable */
  gboolean       searched;     /* the mapping is search's best */
  guint64        space;        /* plans searched (0 when not searched) */
  BpwMapping     mapping;      /* owned */
  gint64         devices;
  BpwEvaluation  eval;
  GPtrArray     *reasons;      /* owned: why it is illegal */
  gboolean       has_sla;
  const char    *sla_metric;   /* "step_time_s", "ttft_s" or "tpot_s" */
  double         sla_limit, sla_value, sla_margin;
  gboolean       sla_pass;
  gboolean       feasible;
  double         cost;         /* $ or $/h by @cost_unit; NaN when no price is given */
  BpwPriceUnit   cost_unit;
} BpwCompareCell;

typedef struct
{
  char          *name;         /* owned */
  BpwSuiteKind   kind;
  guint         *scenarios;    /* owned */
  guint          n_scenarios;
  /* Per candidate: */
  double        *score;        /* relative throughput, weighted */
  double        *perf_per_watt;  /* relative tokens per joule, weighted; NaN when unknown */
  double        *tokens_per_s;   /* weighted mean of tokens/s (feasible scenarios) */
  double        *cost;         /* devices × cost per device (max over the suite); NaN */
  gboolean      *feasible;     /* on every scenario of the suite */
  gboolean      *pareto;
} BpwCompareSuite;

typedef struct _BpwComparison BpwComparison;

void                   bpw_compare_options_init  (BpwCompareOptions   *options);

/* Evaluates every cell; a cell that cannot be set up (a missing blueprint, an invalid
 * decomposition) is reported in the cell, not as an error. NULL with @error only for a
 * study without candidates or scenarios. */
BpwComparison         *bpw_compare_study         (BpwStudy            *study,
                                                  const BpwCompareOptions *options,
                                                  GCancellable        *cancellable,
                                                  GError             **error);
void                   bpw_comparison_free       (BpwComparison       *comparison);

guint                  bpw_comparison_get_n_candidates (BpwComparison *comparison);
guint                  bpw_comparison_get_n_scenarios  (BpwComparison *comparison);
guint                  bpw_comparison_get_n_suites     (BpwComparison *comparison);
const BpwCompareCell  *bpw_comparison_get_cell   (BpwComparison       *comparison,
                                                  guint                candidate,
                                                  guint                scenario);
const BpwCompareSuite *bpw_comparison_get_suite  (BpwComparison       *comparison,
                                                  guint                suite);
/* TRUE, with the unit, when every candidate has a price and all are in one unit: only
 * then are costs compared, drawn or claimed. */
gboolean               bpw_comparison_get_cost_unit (BpwComparison    *comparison,
                                                     BpwPriceUnit     *unit);

/* The `bpw compare --json` document and its text table. */
char                  *bpw_comparison_to_json    (BpwComparison       *comparison);
char                  *bpw_comparison_to_text    (BpwComparison       *comparison);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwComparison, bpw_comparison_free)

G_END_DECLS
