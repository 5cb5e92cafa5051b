/* bpw-sheet-page-private.h — what the files of BpwSheetPage share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-sheet-page.c: the widget, its columns, filter and selection;
 * bpw-sheet-page-compute.c: binding the plan in a worker thread.
 */
#pragma once

#include "bpw-assignment-plot.h"
#include "bpw-job-queue.h"
#include "bpw-layer-summary.h"
#include "bpw-roofline-plot.h"
#include "bpw-sheet-page.h"

G_BEGIN_DECLS

struct _BpwSheetPage
{
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkWidget          *toolbar;
  GtkWidget          *separator;
  GtkDropDown        *candidate_dropdown;
  GtkDropDown        *scenario_dropdown;
  GtkSearchEntry     *search_entry;
  GtkMenuButton      *columns_button;
  GtkSpinner         *spinner;
  GtkLabel           *count_label;
  GtkStack           *stack;
  AdwStatusPage      *error_page;
  GtkColumnView      *column_view;
  GtkExpander        *layer_expander;
  BpwLayerSummary    *layer_summary;  /* of the bound plan's step */

  /* Owned references */
  BpwRooflinePlot    *roofline_plot;   /* of the bound plan; empty without one */
  BpwAssignmentPlot  *assignment_plot;
  BpwStudy           *study;
  GtkStringList      *candidate_names;
  GtkStringList      *scenario_names;
  GListStore         *rows;
  GtkCustomFilter    *filter;
  GtkFilterListModel *filtered;
  GtkSortListModel   *sorted;
  GtkSingleSelection *selection;
  BpwJobQueue        *jobs;
  char               *needle;      /* casefolded filter text */
  char               *error;       /* nullable: why the rows could not be computed */
  BpwCandidateRun     shown;       /* what the rows are (being) computed from */
  char               *shown_error; /* nullable: why @shown could not be set up */
  char               *shown_measurement; /* nullable: the measurement of @shown's candidate
                                          * and scenario whose points the roofline has */

  BpwByteUnits        units;
  guint               shown_candidate;
  guint               shown_scenario;
  guint               n_binds;
  double              step_time;   /* of the bound plan; 0 without one */
  gboolean            has_shown;
  gboolean            busy;
  gboolean            updating_dropdown;
};

/* bpw-sheet-page.c */
void     _bpw_sheet_page_set_busy     (BpwSheetPage *self,
                                       gboolean      busy);
/* The stack page and the count follow from the rows, the filter and the error. */
void     _bpw_sheet_page_update_state (BpwSheetPage *self);

/* bpw-sheet-page-compute.c */
void     _bpw_sheet_page_forget_shown (BpwSheetPage *self);
/* Binds the selected candidate's plan for the selected scenario, unless the rows already
 * come from the same inputs (and @force is FALSE). TRUE when a binding started. */
gboolean _bpw_sheet_page_compute      (BpwSheetPage *self,
                                       gboolean      force);

G_END_DECLS
