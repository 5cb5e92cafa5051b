/* bpw-study-calibration.h — each candidate's calibration status, and whether the
 * candidates of a study are on equal footing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A candidate's status is its blueprint's (bpw-blueprint-calibration.h) over the precisions
 * of the study's scenarios. The pages and the memo show it beside every candidate and warn
 * when the candidates compared are calibrated differently.
 */
#pragma once

#include "bpw-blueprint-calibration.h"
#include "bpw-study.h"

G_BEGIN_DECLS

typedef struct
{
  guint                 n_candidates;
  char                **candidates;  /* owned, NULL-terminated: the candidates' names */
  BpwCalibrationStatus *statuses;    /* owned: label NULL where the blueprint did not load */
  char                 *warning;     /* owned, nullable: why they are not on equal footing */
} BpwStudyCalibration;

BpwStudyCalibration *bpw_study_calibration_new  (BpwStudy                  *study);
BpwStudyCalibration *bpw_study_calibration_copy (const BpwStudyCalibration *calibration);
void                 bpw_study_calibration_free (BpwStudyCalibration       *calibration);
/* "LABEL\n\nDETAILS" of candidate @i, for a tooltip; NULL when it has no status. */
char                *bpw_study_calibration_dup_tooltip (const BpwStudyCalibration *calibration,
                                                        guint                      i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwStudyCalibration, bpw_study_calibration_free)

G_END_DECLS
