/* bpw-calibrate.h — a blueprint's efficiency tables fitted to correlated profiles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each matched row of a correlation (bpw-correlate.h) says how long a modelled operation
 * took. The plan costs it as fixed cost + engine time FLOPs / (peak · eff(FLOPs)) and
 * memory time bytes / (bandwidth · eff(bytes)), the larger of the two (or both, for
 * blueprints that do not overlap them); the bound one decides which table the row
 * calibrates: the matrix or the vector engine's for the plan's precision, by FLOPs per
 * operation, or device memory's, by bytes, as the blueprint given judges it (the class
 * stays while the tables move). A row's measured time is shared among its operations in
 * proportion to their predicted time; each operation calibrates what is left of its share
 * after its fixed cost per operation, which is the blueprint's unless fit_overhead asks
 * for it to be fitted too. Latency-bound operations and operations measured faster than
 * their fixed part calibrate no table and are counted.
 *
 * The fit, per table: the rows are binned by size (bins_per_decade per factor of ten); a
 * bin's correction is Σ predicted / Σ measured of its rows' calibrated part, placed at
 * their time-weighted mean log size; the correction is log-linear between bins and
 * constant beyond them, and multiplies the table at its own points and at the bins', so
 * the table keeps its shape where no measurement says otherwise. Costs are recomputed on
 * the corrected blueprint and the fit repeated (an operation may change its bound), until
 * the corrections stop changing. Everything is a deterministic function of the inputs in
 * their order: the same profiles give the same blueprint.
 *
 * Changed tables get kind "calibrated" and a source naming the profiles, their metadata
 * (hardware, driver, framework, date), what was fitted and by what command.
 */
#pragma once

#include "bpw-correlate.h"

G_BEGIN_DECLS

typedef struct
{
  guint        bins_per_decade;  /* 0: 2 */
  guint        iterations;       /* 0: 8 */
  const char  *name;             /* of the result; NULL: "<name>-calibrated" */
  /* Also fit each engine's fixed cost per operation, before the tables: the median over
   * the operations the blueprint finds latency bound of their measured time less their
   * engine and memory time. */
  gboolean     fit_overhead;
} BpwCalibrateOptions;

/* The operations of one class (as the blueprint before calibration classed them). */
typedef struct
{
  guint   rows;                  /* matched operations that calibrated a table */
  guint   skipped;               /* latency-bound, or measured faster than their fixed part */
  double  measured_s;
  double  predicted_before_s;
  double  predicted_after_s;
} BpwCalibrationClass;

/* One efficiency table the fit changed. */
typedef struct
{
  char       *name;              /* "fma fp32", "dram" */
  BpwOpClass  op_class;
  guint       rows;
  double      min_size, max_size; /* FLOPs or bytes of the calibrating rows */
  GArray     *before;            /* BpwEfficiencyPoint */
  GArray     *after;
} BpwCalibrationTable;

typedef struct
{
  BpwBlueprint        *blueprint;   /* owned: the calibrated copy */
  BpwCalibrationClass  classes[BPW_N_OP_CLASSES];
  GPtrArray           *tables;      /* BpwCalibrationTable, owned */
  GPtrArray           *warnings;    /* sentences */
  char                *source;      /* the provenance the changed tables carry */
  guint                iterations;  /* fit rounds run */
} BpwCalibration;

/* Fits @blueprint to @n correlations (their plans bound to @blueprint). Fails when no row
 * can calibrate anything, or when a plan's precision has no engine on @blueprint. */
BpwCalibration *bpw_calibrate            (const BpwBlueprint        *blueprint,
                                          BpwCorrelation * const    *correlations,
                                          guint                      n,
                                          const BpwCalibrateOptions *options,
                                          GError                   **error);
void            bpw_calibration_free     (BpwCalibration            *calibration);

/* A plan task's duration on @blueprint as binding costs it (the simulated event's
 * duration on the plan's own blueprint); @cost (nullable) gets the per-execution cost. */
double          bpw_calibration_task_time (const BpwCostRates *rates,
                                           const BpwPlanTask  *task,
                                           BpwTaskCost        *cost);

/* The calibration as JSON: classes with their factors, tables before and after. */
char           *bpw_calibration_to_json  (const BpwCalibration      *calibration);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwCalibration, bpw_calibration_free)

G_END_DECLS
