/* bpw-validation-page.h — the Validation page: predicted against measured
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The validation report of the study, computed in a worker thread after every change
 * (a snapshot of the study tells whether it changed): Megatron-LM 2021 Table 1 predicted
 * on the A100 blueprint (the
 * numbers `bpw validate` prints), then one section per measurement of the study — its
 * profile correlated with the candidate's simulated step: the step end to end, and as
 * tables the operations (predicted and measured time, predicted and achieved FLOP/s and
 * bandwidth), the extra work (measured kernels nothing modelled does) and the missing work
 * (modelled operations nothing measured does). A measurement's blueprint can be calibrated
 * on it: the calibrated copy joins the study as an undoable edit, through the apply
 * function the window sets.
 */
#pragma once

#include <adwaita.h>

#include "bpw-core.h"
#include "bpw-study-edit.h"
#include "bpw-validation-report.h"

G_BEGIN_DECLS

#define BPW_TYPE_VALIDATION_PAGE (bpw_validation_page_get_type ())

G_DECLARE_FINAL_TYPE (BpwValidationPage, bpw_validation_page, BPW, VALIDATION_PAGE, GtkWidget)

/* The tables of a section: Table 1's rows or a measurement's operations; a measurement's
 * extra and missing work. */
typedef enum
{
  BPW_VALIDATION_TABLE_MAIN,
  BPW_VALIDATION_TABLE_EXTRA,
  BPW_VALIDATION_TABLE_MISSING,
  BPW_VALIDATION_N_TABLES
} BpwValidationTable;

/* Applies an edit the page made (takes ownership of @edit); FALSE with @error when it
 * was refused. */
typedef gboolean (*BpwValidationApplyFunc) (BpwStudyEdit  *edit,
                                            gpointer       user_data,
                                            GError       **error);

/* Validates @study (nullable) again when it changed since the last time; keeps what it
 * shows until the new report replaces it. Returns TRUE when work started. */
gboolean     bpw_validation_page_set_study      (BpwValidationPage      *self,
                                                 BpwStudy               *study);
void         bpw_validation_page_set_apply_func (BpwValidationPage      *self,
                                                 BpwValidationApplyFunc  func,
                                                 gpointer                user_data);
/* TRUE while computing ("notify::busy"). */
gboolean     bpw_validation_page_get_busy       (BpwValidationPage      *self);
/* The report shown (nullable): Table 1, then the measurements that could be correlated. */
const BpwValidationReport *bpw_validation_page_get_report (BpwValidationPage *self);
/* Sections: Table 1 first, then one per measurement of the study (in its order, those
 * that failed too, which show why). */
guint        bpw_validation_page_get_n_sections (BpwValidationPage      *self);
/* BpwValidationItem rows of a section's table as first shown (nullable when the section
 * has no such table). */
GListModel  *bpw_validation_page_get_table      (BpwValidationPage      *self,
                                                 guint                   section,
                                                 BpwValidationTable      table);
/* Why measurement section @section could not be correlated (nullable). */
const char  *bpw_validation_page_get_error      (BpwValidationPage      *self,
                                                 guint                   section);
void         bpw_validation_page_show_section   (BpwValidationPage      *self,
                                                 guint                   section);
/* Calibrates the blueprint of the measurement of section @section (≥ 1) on it and
 * applies the edit that adds the calibrated blueprint to the study. */
gboolean     bpw_validation_page_calibrate      (BpwValidationPage      *self,
                                                 guint                   section,
                                                 GError                **error);

G_END_DECLS
