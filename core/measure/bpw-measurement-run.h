/* bpw-measurement-run.h — a study's measurement correlated with its candidate's step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the Validation page, the memo and the command line do with a measurement of a
 * study: the candidate's plan for the scenario simulated, the profile loaded and checked
 * against its recorded sha256, and the two correlated by lineage (bpw-correlate.h); where
 * the measurement has a calibrated blueprint, the same on it. Init copies what it needs
 * from the study on the calling thread; execute touches nothing else, so it may run in a
 * worker thread while the study changes.
 */
#pragma once

#include "bpw-calibrate.h"
#include "bpw-candidate.h"
#include "bpw-correlate.h"
#include "bpw-study.h"
#include "bpw-validation-report.h"

G_BEGIN_DECLS

/* The blueprint Table 1 is predicted on: the one `bpw validate` uses. */
#define BPW_MEASUREMENT_TABLE1_BLUEPRINT "a100-sxm-80gb"

typedef struct
{
  /* inputs, copied by bpw_measurement_run_init() */
  char                *name;
  char                *candidate;
  char                *scenario;
  char                *path;           /* the profile */
  char                *sha256;         /* as recorded, nullable */
  char                *calibrated;     /* the calibrated blueprint's name, nullable */
  BpwCorrelateOptions  options;
  BpwCandidateRun      run;
  BpwBlueprint        *calibrated_bp;  /* owned, nullable */

  /* results of bpw_measurement_run_execute() */
  gboolean             changed;        /* the file differs from the recorded sha256 */
  BpwProfile          *profile;
  BpwPlan             *plan;
  BpwSimulation       *sim;
  BpwCorrelation      *correlation;
  BpwPlan             *calibrated_plan;
  BpwSimulation       *calibrated_sim;
  BpwCorrelation      *calibrated_correlation;
} BpwMeasurementRun;

/* Measurement @index of @study: its candidate on its scenario, ready to bind. @run is
 * always initialised and must be cleared. */
gboolean        bpw_measurement_run_init      (BpwMeasurementRun  *run,
                                               BpwStudy           *study,
                                               guint               index,
                                               GError            **error);
/* Binds and simulates the step, loads the profile and correlates them (and again on the
 * calibrated blueprint). Errors name the measurement. */
gboolean        bpw_measurement_run_execute   (BpwMeasurementRun  *run,
                                               GError            **error);
void            bpw_measurement_run_clear     (BpwMeasurementRun  *run);

/* The candidate's blueprint fitted to the executed run's correlation: a new blueprint
 * named "<blueprint>-calibrated" whose changed tables carry provenance "calibrated". */
BpwCalibration *bpw_measurement_run_calibrate (const BpwMeasurementRun *run,
                                               GError                 **error);

/* The validation report: Megatron-LM 2021 Table 1 on @table1 (nullable: left out), then
 * one section per executed run, in order. */
BpwValidationReport *bpw_measurement_run_report (const BpwMeasurementRun *runs,
                                                 guint                    n_runs,
                                                 const BpwBlueprint      *table1,
                                                 GError                 **error);

G_END_DECLS
