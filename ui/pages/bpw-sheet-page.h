/* bpw-sheet-page.h — the Sheet page: one candidate's plan for one scenario, row by row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-layer-summary.h"
#include "bpw-plot.h"
#include "bpw-sheet-item.h"

G_BEGIN_DECLS

#define BPW_TYPE_SHEET_PAGE (bpw_sheet_page_get_type ())

G_DECLARE_FINAL_TYPE (BpwSheetPage, bpw_sheet_page, BPW, SHEET_PAGE, GtkWidget)

/* Lists the candidates and scenarios of @study (nullable) and shows those of the same
 * names as before, else the first. The rows are the mapping sheet of the candidate's plan
 * for the scenario, bound in a worker thread; "busy" is TRUE meanwhile. */
void          bpw_sheet_page_set_study        (BpwSheetPage *self,
                                               BpwStudy     *study);
/* Indices into the study's candidates and scenarios; G_MAXUINT keeps the current one. */
void          bpw_sheet_page_select           (BpwSheetPage *self,
                                               guint         candidate,
                                               guint         scenario);
/* Index into the study's scenarios; GTK_INVALID_LIST_POSITION when there is none. */
void          bpw_sheet_page_select_scenario  (BpwSheetPage *self,
                                               guint         index);
guint         bpw_sheet_page_get_scenario     (BpwSheetPage *self);
guint         bpw_sheet_page_get_candidate    (BpwSheetPage *self);
/* The study changed in place (an edit): binds again when the shown candidate's blueprint,
 * mapping or scenario differ from what the rows came from. TRUE when it started. */
gboolean      bpw_sheet_page_refresh          (BpwSheetPage *self);
/* Plans bound so far (each a full binding: the expensive part). */
guint         bpw_sheet_page_get_n_binds      (BpwSheetPage *self);
/* Step time of the bound plan; 0 without one. */
double        bpw_sheet_page_get_step_time    (BpwSheetPage *self);
/* Applies at once (the search entry waits for typing to pause). */
void          bpw_sheet_page_set_filter_text  (BpwSheetPage *self,
                                               const char   *text);
/* Every row of the scenario (element-type BpwSheetItem). */
GListModel   *bpw_sheet_page_get_rows         (BpwSheetPage *self);
/* The rows the table shows: filtered and sorted. */
GListModel   *bpw_sheet_page_get_visible_rows (BpwSheetPage *self);
gboolean      bpw_sheet_page_get_busy         (BpwSheetPage *self);
void          bpw_sheet_page_set_units        (BpwSheetPage *self,
                                               BpwByteUnits  units);
/* The charts of the bound plan (all stages; the slowest stage's assignment), drawn from
 * the same binding as the rows; empty while there is none. They emit "changed". */
BpwPlot      *bpw_sheet_page_get_roofline_plot   (BpwSheetPage *self);
BpwPlot      *bpw_sheet_page_get_assignment_plot (BpwSheetPage *self);
/* The row selected in the table, or NULL; "selected-item" notifies. */
BpwSheetItem *bpw_sheet_page_get_selected_item (BpwSheetPage *self);
/* Selects @item (a row of bpw_sheet_page_get_rows(); NULL: none) and scrolls to it.
 * FALSE when the filter hides it (nothing is selected then). */
gboolean      bpw_sheet_page_select_item      (BpwSheetPage *self,
                                               BpwSheetItem *item);
/* The bound plan's step by layer type: time, share, MFU, memory stall, bottleneck. */
BpwLayerSummary *bpw_sheet_page_get_layer_summary (BpwSheetPage *self);
/* Moves the keyboard focus to the search entry (Ctrl+F). */
void          bpw_sheet_page_focus_search     (BpwSheetPage *self);

G_END_DECLS
