/* bpw-memo-validation.h — the memo's validation section from the study's measurements
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fills BpwMemoOptions.validation: Megatron-LM 2021 Table 1 on the A100 blueprint (the
 * numbers `bpw validate` prints), then each measurement of the study correlated with its
 * candidate's simulated step (bpw-measurement-run.h): the step end to end, how much was
 * correlated, the operations with the most measured time, and the unmatched work.
 */
#pragma once

#include "bpw-memo.h"

G_BEGIN_DECLS

/* Operations listed per measurement; the rest are summed in one line. */
#define BPW_MEMO_VALIDATION_TOP 15

/* A BpwMemoValidationFunc: Megatron-LM 2021 Table 1 on the A100, in sample and left out as
 * the Validation page shows it, then each of @study's measurements (none is fine). Always
 * TRUE; a measurement that cannot be correlated is reported in place. */
gboolean  bpw_memo_validation_write  (BpwMemoPage    *page,
                                      BpwStudy       *study,
                                      gpointer        user_data);
/* Sets @options' validation hook to bpw_memo_validation_write(). */
void      bpw_memo_options_set_validation (BpwMemoOptions *options,
                                           BpwStudy       *study);

G_END_DECLS
