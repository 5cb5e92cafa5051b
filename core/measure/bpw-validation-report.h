/* bpw-validation-report.h — predicted against measured, per operation and end to end, for
 * every reference at hand
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A report is a list of sections, one per reference: Megatron-LM 2021 Table 1 (the
 * published TF/s per GPU of ten GPT models, predicted with bpw-validation.h on a
 * blueprint: the numbers `bpw validate` prints) and each imported profile (its correlation
 * with a simulated step: per operation the predicted and the measured time, and the step
 * end to end; with a second correlation on a calibrated blueprint, the same after
 * calibration). Every section has its mean and largest |error|, error being predicted /
 * measured − 1 as in bpw-validation.h. The report is data for the CLI, the GUI page and
 * the memo; it holds copies, not references.
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-correlate.h"

G_BEGIN_DECLS

typedef struct
{
  char    *name;          /* an operation, or a Table 1 row ("18.4B tp8 pp1 256 GPUs") */
  double   predicted;     /* s, or TF/s per GPU for Table 1 */
  double   measured;      /* s, or the published TF/s */
  double   error;         /* predicted / measured − 1 */
  double   calibrated;    /* prediction on the calibrated blueprint; NAN without one */
  double   calibrated_error;
  guint    occurrences;   /* operations: rows summed (micro-batches, repeats) */
  /* Table 1, out of sample: predicted on the blueprint refitted without this row
   * (bpw_validation_leave_one_out); NAN when not computed. */
  double   held_out;
  double   held_out_error;
} BpwReportEntry;

typedef struct
{
  char    *title;         /* "Megatron-LM 2021 Table 1 (Narayanan et al., SC'21)", a file */
  char    *blueprint;
  char    *calibrated_blueprint;   /* nullable */
  char    *unit;          /* "s" or "TFLOP/s per GPU" */
  char    *metadata;      /* nullable: where the profile was taken */
  GArray  *entries;       /* BpwReportEntry */
  double   mean_abs_error, max_abs_error;
  double   calibrated_mean_abs_error, calibrated_max_abs_error;   /* NAN without */
  double   held_out_mean_abs_error, held_out_max_abs_error;       /* NAN without */
  /* Σ |predicted − measured| / Σ measured: the error where the time is. */
  double   weighted_error, calibrated_weighted_error;
  /* Profiles: the step, first measured start to last end against the simulated step,
   * and the matched work summed; NAN for Table 1. */
  double   step_predicted_s, step_measured_s, step_error, step_calibrated_s;
  double   work_predicted_s, work_measured_s, work_error, work_calibrated_s;
  /* Profiles: how much was correlated. */
  double   modelled_match_rate, measured_match_rate;
  guint    unexplained_items;
} BpwReportSection;

typedef struct
{
  GPtrArray *sections;    /* BpwReportSection, owned */
} BpwValidationReport;

BpwValidationReport *bpw_validation_report_new   (void);
void                 bpw_validation_report_free  (BpwValidationReport *report);

/* Table 1 on @blueprint, row by row (bpw_validation_megatron_predict). */
gboolean  bpw_validation_report_add_megatron (BpwValidationReport  *report,
                                              const BpwBlueprint   *blueprint,
                                              GError              **error);
/* Adds to the report's Table 1 section (which must be there) each row's leave-one-out
 * prediction (bpw_validation_leave_one_out on @blueprint) beside the in-sample one: one
 * fit of the efficiencies per row, about ten times the work of the section itself. */
gboolean  bpw_validation_report_add_held_out (BpwValidationReport  *report,
                                              const BpwBlueprint   *blueprint,
                                              GError              **error);
/* A correlated profile; @calibrated (nullable) correlates the same profile with the
 * step simulated on the calibrated blueprint. */
void      bpw_validation_report_add_profile  (BpwValidationReport  *report,
                                              const BpwCorrelation *correlation,
                                              const BpwCorrelation *calibrated);

char     *bpw_validation_report_to_json      (const BpwValidationReport *report);
char     *bpw_validation_report_to_text      (const BpwValidationReport *report,
                                              guint                      max_entries);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwValidationReport, bpw_validation_report_free)

G_END_DECLS
