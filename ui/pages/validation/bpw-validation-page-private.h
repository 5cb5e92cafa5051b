/* bpw-validation-page-private.h — what the files of BpwValidationPage share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-validation-page.c (the widget, the study, calibration), bpw-validation-page-compute.c
 * (the worker thread and what it hands back), bpw-validation-page-sections.c (headers and
 * figures) and bpw-validation-page-tables.c (column views and their rows).
 */
#pragma once

#include "bpw-job-queue.h"
#include "bpw-measurement-run.h"
#include "bpw-study-snapshot.h"
#include "bpw-validation-item.h"
#include "bpw-validation-page.h"

G_BEGIN_DECLS

/* What one computation found; shared (reference counted) between the page and a
 * calibration running on one of its measurements. */
typedef struct
{
  BpwMeasurementRun    *runs;          /* n_runs, the study's measurements in order */
  char                **errors;        /* n_runs: why a measurement failed, or NULL */
  guint                 n_runs;
  BpwValidationReport  *report;        /* Table 1 (when has_table1), then each run that
                                        * correlated, in order */
  gboolean              has_table1;
  char                 *table1_error;  /* nullable */
  char                 *table1_blueprint;
  gboolean              held_out;      /* Table 1's leave-one-out figures asked for: only
                                        * while the page is shown (ten refits, seconds) */
} BpwValidationOutcome;

BpwValidationOutcome *_bpw_validation_outcome_ref   (BpwValidationOutcome *outcome);
void                  _bpw_validation_outcome_unref (BpwValidationOutcome *outcome);
/* The report section of run @i, or NULL when it did not correlate. */
const BpwReportSection *_bpw_validation_outcome_section (BpwValidationOutcome *outcome,
                                                         guint                 run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwValidationOutcome, _bpw_validation_outcome_unref)

typedef struct
{
  GtkWidget   *widget;                          /* the page of the sections stack */
  GListStore  *tables[BPW_VALIDATION_N_TABLES]; /* owned, nullable */
  char        *error;                           /* owned, nullable */
} BpwValidationSection;

struct _BpwValidationPage
{
  GtkWidget               parent_instance;

  /* Template widgets */
  GtkStack               *state;
  GtkStack               *sections;
  GtkStackSidebar        *sidebar;
  GtkLabel               *hint;

  /* Owned references */
  BpwStudy               *study;      /* nullable: the window's, for calibration edits */
  BpwStudySnapshot       *snapshot;   /* nullable: of the study last validated */
  BpwValidationOutcome   *outcome;    /* nullable: what is shown */
  GArray                 *section_list;  /* BpwValidationSection */
  BpwJobQueue            *jobs;

  BpwValidationApplyFunc  apply;
  gpointer                apply_data;
  gboolean                busy;
};

/* bpw-validation-page-compute.c: validates @study (nullable: nothing) in a worker; the
 * page shows the outcome with _bpw_validation_page_show() unless a later computation
 * started. */
void  _bpw_validation_page_compute (BpwValidationPage *self,
                                    BpwStudy          *study);
void  _bpw_validation_page_set_busy (BpwValidationPage *self,
                                     gboolean           busy);

/* bpw-validation-page-sections.c: replaces the sections with @outcome's (nullable:
 * none). */
void  _bpw_validation_page_show    (BpwValidationPage    *self,
                                    BpwValidationOutcome *outcome);
void  _bpw_validation_section_clear (gpointer data);

/* bpw-validation-page-tables.c */

/* Table 1's verdict, as `bpw validate` judges a row. */
#define BPW_VALIDATION_TABLE1_TOLERANCE 0.10

/* The column sets; a measurement's in the order of BpwValidationTable. */
typedef enum
{
  BPW_VALIDATION_COLUMNS_TABLE1,
  BPW_VALIDATION_COLUMNS_OPERATIONS,
  BPW_VALIDATION_COLUMNS_EXTRA,
  BPW_VALIDATION_COLUMNS_MISSING,
} BpwValidationColumns;

/* A scrolled, sortable column view of @store (BpwValidationItem) with the columns of
 * @set; the calibrated columns only with @calibrated. @label names it for screen readers. */
GtkWidget *_bpw_validation_table_new      (GListStore              *store,
                                           BpwValidationColumns     set,
                                           gboolean                 calibrated,
                                           const char              *label);
/* Table 1's rows from its report section; returns how many are within the tolerance. */
guint      _bpw_validation_fill_table1    (GListStore              *store,
                                           const BpwReportSection  *section);
/* A correlated measurement's operations (matched rows summed by lineage), and its extra
 * (BPW_ROW_EXTRA) or missing (BPW_ROW_MISSING) work. */
void       _bpw_validation_fill_operations (GListStore             *store,
                                            const BpwMeasurementRun *run);
void       _bpw_validation_fill_unmatched  (GListStore             *store,
                                            const BpwMeasurementRun *run,
                                            BpwRowStatus            status);

/* bpw-validation-page.c: the calibrate button of section @section. */
void  _bpw_validation_page_calibrate_clicked (BpwValidationPage *self,
                                              guint              section);

G_END_DECLS
