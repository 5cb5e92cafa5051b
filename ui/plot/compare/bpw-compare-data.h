/* bpw-compare-data.h — candidates × scenarios of a study, for the comparison chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The adapter between a BpwComparison (core/study/bpw-compare.h) and the compare plot: per cell
 * the fit (legal, SLA pass or fail with its margin), the headline numbers and the
 * step-time breakdown; per suite the weighted scores, feasibility and the Pareto front.
 * The data copy what they need: the comparison may be freed afterwards.
 */
#pragma once

#include "bpw-compare.h"
#include "bpw-study-calibration.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean       ok;             /* evaluated; else @error says why */
  char          *error;          /* owned, nullable: why not evaluated, or why illegal */
  gboolean       legal;
  gboolean       feasible;       /* legal and the SLA (if any) met */
  gboolean       has_sla;
  gboolean       sla_pass;
  const char    *metric;         /* static: "step time", "TTFT" or "TPOT" */
  double         value;          /* s: the SLA metric, else the step time */
  double         sla_limit;      /* s */
  double         sla_margin;     /* (limit − value) / limit */
  double         relative;       /* tokens/s ÷ the best candidate's on this scenario */
  BpwEvaluation  eval;
  gint64         devices;
} BpwCompareFit;

typedef struct
{
  char      *name;               /* owned */
  double    *score;              /* per candidate */
  double    *perf_per_watt;
  gboolean  *feasible;
  gboolean  *pareto;
} BpwCompareDataSuite;

typedef struct
{
  char           *title;         /* owned */
  char           *study;         /* owned: the study's name */
  guint           n_candidates, n_scenarios;
  char          **candidates;    /* owned */
  char          **blueprints;    /* owned: each candidate's blueprint name */
  char          **scenarios;     /* owned */
  BpwCompareFit  *cells;         /* [candidate * n_scenarios + scenario] */
  GArray         *suites;        /* BpwCompareDataSuite */
  guint           scenario;      /* whose breakdown the bars and the table show */
  guint           baseline;      /* the candidate deltas are against */
  /* Every candidate has a price, all in @cost_unit: only then is cost compared (it is in
   * the Pareto front) or claimed. */
  gboolean        cost_known;
  BpwPriceUnit    cost_unit;
  /* owned: each candidate's calibration status, and the warning when they differ */
  BpwStudyCalibration *calibration;
} BpwCompareData;

BpwCompareData *bpw_compare_data_new_from_comparison (BpwComparison *comparison,
                                                      BpwStudy      *study);
void            bpw_compare_data_free      (BpwCompareData   *data);

static inline const BpwCompareFit *
bpw_compare_data_cell (const BpwCompareData *data, guint candidate, guint scenario)
{
  return &data->cells[candidate * data->n_scenarios + scenario];
}

/* The candidate with the highest score on the first suite among those feasible on all
 * of it; else the fastest on the chosen scenario; 0 when none ran. */
guint           bpw_compare_data_best      (const BpwCompareData *data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwCompareData, bpw_compare_data_free)

G_END_DECLS
