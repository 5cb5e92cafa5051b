/* bpw-overview-page.h — the Overview page: every candidate on every scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-calibration-bar.h"
#include "bpw-compare-data.h"
#include "bpw-fit-matrix.h"
#include "bpw-overview-item.h"

G_BEGIN_DECLS

#define BPW_TYPE_OVERVIEW_PAGE (bpw_overview_page_get_type ())

G_DECLARE_FINAL_TYPE (BpwOverviewPage, bpw_overview_page, BPW, OVERVIEW_PAGE, GtkWidget)

/* @items (element-type BpwOverviewItem) is shown as it changes. */
void        bpw_overview_page_set_model      (BpwOverviewPage *self,
                                              GListModel      *items);
/* While busy, an empty model means "not computed yet" rather than "nothing to show". */
void        bpw_overview_page_set_busy       (BpwOverviewPage *self,
                                              gboolean         busy);
void        bpw_overview_page_set_units      (BpwOverviewPage *self,
                                              BpwByteUnits     units);
/* The items as the table shows them (sorted). */
GListModel *bpw_overview_page_get_visible_items (BpwOverviewPage *self);
/* Nullable; "notify::selected-item" tells when another candidate or scenario is picked. */
BpwOverviewItem *bpw_overview_page_get_selected_item (BpwOverviewPage *self);
/* Selects the item of @candidate on @scenario (names), now or once it exists. */
void        bpw_overview_page_select         (BpwOverviewPage *self,
                                              const char      *candidate,
                                              const char      *scenario);
/* The workload fit matrix under the table shows @data (read now, not kept; NULL: none). */
void        bpw_overview_page_set_fit        (BpwOverviewPage      *self,
                                              const BpwCompareData *data);
BpwFitMatrix *bpw_overview_page_get_fit_matrix (BpwOverviewPage    *self);
/* Each candidate's calibration status and the warning when they differ (from set_fit). */
BpwCalibrationBar *bpw_overview_page_get_calibration_bar (BpwOverviewPage *self);
/* TRUE when the evaluation's columns are shown: some item carries an evaluation. */
gboolean    bpw_overview_page_get_shows_evaluation (BpwOverviewPage *self);

G_END_DECLS
