/* bpw-sweep.h — joint exploration: blueprint parameters × the best mapping of each point
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sweep changes blueprint parameters over a grid and re-searches the mapping space at
 * every point. Against the baseline (the unchanged blueprint and its best mapping) the
 * gain of a point splits exactly into two factors of throughput:
 *   architecture = baseline step / baseline mapping re-evaluated on the point's blueprint
 *   mapping      = that re-evaluation / the point's own best
 * whose product is the total gain. Where the baseline mapping cannot run on the point
 * (it no longer fits, or the device count changed so that TP × PP does not divide it),
 * the split is unknown and only the total is reported. A device-count point keeps the
 * baseline's TP, PP, EP and micro-batch and rescales DP.
 *
 * A sweep is deterministic: the points, their searches and their results do not depend on
 * the thread count or on whether anybody watches its progress.
 */
#pragma once

#include "bpw-quantity.h"
#include "bpw-search.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_SWEEP_HBM_BANDWIDTH,    /* device memory bandwidth, B/s */
  BPW_SWEEP_HBM_CAPACITY,     /* device memory capacity per device, bytes */
  BPW_SWEEP_SRAM_CAPACITY,    /* on-chip software-managed memory per instance, bytes */
  BPW_SWEEP_LINK_BANDWIDTH,   /* a tier's bandwidth per direction per device, B/s */
  BPW_SWEEP_MATRIX_PEAK,      /* matrix-engine dense peak in the scenario's precision */
  BPW_SWEEP_POWER_CAP,        /* W: power.cap; throttles the step (bpw-power-step.h) */
  BPW_SWEEP_DEVICES,          /* device count */
  BPW_SWEEP_N_PARAMS
} BpwSweepParam;

typedef struct _BpwSweep BpwSweep;

/* Where a running sweep is: it searches the baseline first, then each point in order. */
typedef struct
{
  guint              search;       /* the search running: 0 the baseline, i ≥ 1 point i */
  guint              n_searches;   /* the points and the baseline */
  guint              done;         /* searches finished */
  /* The running search's (zeros before its first report); when a search ends (@done just
   * counted it), its final figures: its best step time is that search's result. */
  BpwSearchProgress  current;
  guint64            decided;      /* plans decided by the finished searches and this one */
  double             elapsed_s;
  /* From the share of searches done so far (the running one counted by its plans
   * decided); NaN before any progress. */
  double             remaining_s;
} BpwSweepProgress;

/* Called from the thread that runs the sweep: when a search starts and ends, and in
 * between as often as options->progress_ms asks of the search. */
typedef void (*BpwSweepProgressFunc) (const BpwSweepProgress *progress,
                                      gpointer                user_data);

typedef struct
{
  double            *values;          /* one per parameter, SI units */
  gint64             devices;
  BpwBlueprint      *blueprint;       /* owned: the changed copy */
  gboolean           searched;
  BpwSearchReport   *report;          /* owned, nullable: the point's search */
  /* The baseline's best mapping on this point (analytic): applies is FALSE when it
   * cannot be mapped here at all; legal is its verdict otherwise. */
  gboolean           baseline_applies;
  gboolean           baseline_legal;
  BpwEvaluation      baseline;
  gboolean           pareto;          /* on the front of throughput, tokens/J and cost */
} BpwSweepPoint;

/* @params: "NAME=V1,V2,..." each (NAME: hbm_bandwidth, hbm_capacity, sram_capacity,
 * link_bandwidth or link_bandwidth.TIER (name or index; default tier 0), matrix_peak,
 * power_cap, devices); values are numbers in SI units or quantities with units. The
 * points are the grid of all parameters, the first one outermost. Usage mistakes are
 * BPW_ERROR_INVALID_INPUT naming the parameter. */
BpwSweep            *bpw_sweep_new          (const BpwModelSpec    *spec,
                                             const BpwScenario     *scenario,
                                             const BpwBlueprint    *blueprint,
                                             const BpwMapping      *base,
                                             gint64                 devices,
                                             const BpwSearchLimits *limits,
                                             const char * const    *params,
                                             GError               **error);
void                 bpw_sweep_free         (BpwSweep              *sweep);

/* Searches the baseline and every point. FALSE with @error when a space cannot be built;
 * cancellation stops between and inside searches (points left are not searched). */
gboolean             bpw_sweep_run          (BpwSweep              *sweep,
                                             const BpwSearchOptions *options,
                                             GCancellable          *cancellable,
                                             GError               **error);

/* Hands @sweep its baseline already searched, and takes @baseline: a whole, uncancelled
 * search of the sweep's own space (the same fingerprint) with the options the next run is
 * given (a mapping search of the same cell, say). The next run searches the points only;
 * a report of another space, of another top K or Pareto choice, of a shard or cancelled is
 * dropped there, and the baseline searched again. */
void                 bpw_sweep_take_baseline (BpwSweep             *sweep,
                                              BpwSearchReport      *baseline);
/* Whether the last run used the baseline it was handed instead of searching it. */
gboolean             bpw_sweep_get_baseline_reused (BpwSweep       *sweep);

/* The same, telling @progress (nullable) where it is. */
gboolean             bpw_sweep_run_with_progress (BpwSweep               *sweep,
                                                  const BpwSearchOptions *options,
                                                  BpwSweepProgressFunc    progress,
                                                  gpointer                user_data,
                                                  GCancellable           *cancellable,
                                                  GError                **error);

guint                bpw_sweep_get_n_points (BpwSweep              *sweep);
const BpwSweepPoint *bpw_sweep_get_point    (BpwSweep              *sweep,
                                             guint                  i);
/* The baseline search (nullable before run). */
const BpwSearchReport *bpw_sweep_get_baseline (BpwSweep            *sweep);

/* The gain of point @i over the baseline as factors of throughput, NaN where unknown:
 * @total = @architecture × @mapping. The split is NaN where the baseline's mapping cannot
 * run on the point or is illegal there; all three are NaN without a best plan on either
 * side. */
void                 bpw_sweep_get_gains    (BpwSweep              *sweep,
                                             guint                  i,
                                             double                *total,
                                             double                *architecture,
                                             double                *mapping);
/* The parameters swept, in the order given (the first one outermost). */
guint                bpw_sweep_get_n_params (BpwSweep              *sweep);
/* Parameter @i, and its tier (link_bandwidth; 0 otherwise) in @tier (nullable). */
BpwSweepParam        bpw_sweep_get_param    (BpwSweep              *sweep,
                                             guint                  i,
                                             gint                  *tier);
/* As given: "hbm_bandwidth", "link_bandwidth.nvlink". */
const char          *bpw_sweep_get_param_name (BpwSweep            *sweep,
                                               guint                i);

/* The `bpw search --sweep-param ... --json` document (format "bpw-sweep"). */
char                *bpw_sweep_to_json      (BpwSweep              *sweep);
char                *bpw_sweep_to_text      (BpwSweep              *sweep);

/* bpw-sweep-param.c: the parameters on their own. */
const char          *bpw_sweep_param_to_string (BpwSweepParam param);
/* The dimension of @param's values; BPW_UNIT_NONE for the device count. */
BpwUnit              bpw_sweep_param_get_unit  (BpwSweepParam param);
/* Parses "V1, V2, ..." for @param: numbers in SI units or quantities with units, each
 * positive (a device count: a whole number from 1 to 16777216), appended to @values
 * (doubles). FALSE with BPW_ERROR_INVALID_INPUT naming the value that is wrong and why. */
gboolean             bpw_sweep_param_parse_values (BpwSweepParam  param,
                                                   const char    *text,
                                                   GArray        *values,
                                                   GError       **error);
/* What @param is on @blueprint now, the value a point replaces (@tier: link_bandwidth's;
 * @dtype: the precision whose matrix peak is swept; @devices: the device count). FALSE
 * when the blueprint has no such value (no on-chip SRAM, no such tier, a value not set). */
gboolean             bpw_sweep_param_get_value (BpwSweepParam        param,
                                                gint                 tier,
                                                const BpwBlueprint  *blueprint,
                                                BpwDType             dtype,
                                                gint64               devices,
                                                double              *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwSweep, bpw_sweep_free)

G_END_DECLS
