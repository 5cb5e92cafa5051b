/* bpw-compare-page-private.h — what the files of BpwComparePage share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-compare-page.c: the widget, its choices and the comparison in a worker thread;
 * bpw-compare-page-table.c: the delta table's columns (and the matrix by layer type, which
 * follows the same data).
 */
#pragma once

#include "bpw-added-button.h"
#include "bpw-calibration-bar.h"
#include "bpw-compare-page.h"
#include "bpw-layer-matrix.h"
#include "bpw-pinned-table.h"
#include "bpw-study-worker.h"

G_BEGIN_DECLS

struct _BpwComparePage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkDropDown       *scenario_dropdown;
  GtkDropDown       *baseline_dropdown;
  BpwAddedButton    *added_button;  /* "Clear N Added" */
  GtkSpinner        *spinner;
  GtkLabel          *status_label;
  BpwCalibrationBar *calibration_bar;
  GtkStack          *stack;
  AdwStatusPage     *error_page;
  GtkStack          *view_stack;
  BpwPlotView       *plot_view;
  BpwPinnedTable    *table;        /* scenario and candidate pinned, the numbers scroll */
  BpwLayerMatrix    *layer_matrix;

  /* Owned references */
  BpwStudyWorker    *worker;       /* the study, its snapshot and the comparison */
  BpwComparePlot    *plot;         /* nullable: owns the data shown */
  GtkStringList     *scenario_names;
  GtkStringList     *candidate_names;
  GListStore        *rows;         /* GtkStringObject: candidate names */
  GtkSortListModel  *sorted;
  char              *error;        /* nullable: why there is no comparison */

  BpwByteUnits       units;
  guint              computed;     /* the worker's generation shown */
  gboolean           busy;
  gboolean           updating;     /* the dropdowns follow the data, not the user */
};

/* bpw-compare-page-table.c */
void     _bpw_compare_page_init_table   (BpwComparePage *self);
/* New rows for new data: every cell is formatted again. */
void     _bpw_compare_page_update_table (BpwComparePage *self);
/* Candidates of the data shown that the study does not have (added from searches). */
guint    _bpw_compare_page_n_added      (BpwComparePage *self);

G_END_DECLS
