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
 */
#pragma once

#include "bpw-search.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_SWEEP_HBM_BANDWIDTH,    /* device memory bandwidth, B/s */
  BPW_SWEEP_HBM_CAPACITY,     /* device memory capacity per device, bytes */
  BPW_SWEEP_SRAM_CAPACITY,    /* on-chip software-managed memory per instance, bytes */
  BPW_SWEEP_LINK_BANDWIDTH,   /* a tier's bandwidth per direction per device, B/s */
  BPW_SWEEP_MATRIX_PEAK,      /* matrix-engine dense peak in the scenario's precision */
  BPW_SWEEP_POWER_CAP,        /* W: caps the power estimate (energy, performance per watt) */
  BPW_SWEEP_DEVICES,          /* device count */
  BPW_SWEEP_N_PARAMS
} BpwSweepParam;

typedef struct _BpwSweep BpwSweep;

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

guint                bpw_sweep_get_n_points (BpwSweep              *sweep);
const BpwSweepPoint *bpw_sweep_get_point    (BpwSweep              *sweep,
                                             guint                  i);
/* The baseline search (nullable before run). */
const BpwSearchReport *bpw_sweep_get_baseline (BpwSweep            *sweep);

/* The `bpw search --sweep-param ... --json` document (format "bpw-sweep"). */
char                *bpw_sweep_to_json      (BpwSweep              *sweep);
char                *bpw_sweep_to_text      (BpwSweep              *sweep);

const char          *bpw_sweep_param_to_string (BpwSweepParam param);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwSweep, bpw_sweep_free)

G_END_DECLS
