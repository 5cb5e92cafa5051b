/* bpw-compare-page.h — the Compare page: N candidates side by side on every scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A comparison (core/study/bpw-compare.h) of every candidate on every scenario, mappings as
 * given, computed in a worker thread after every change of the study: the chart
 * (step-time breakdown bars, the fit matrix as a heat map, the delta table of one
 * scenario) in a BpwPlotView, and the deltas of every scenario as a sortable table.
 * "updated" tells when new data arrived (the Overview's fit matrix follows it).
 */
#pragma once

#include <adwaita.h>

#include "bpw-compare-plot.h"
#include "bpw-core.h"
#include "bpw-format.h"
#include "bpw-layer-matrix.h"
#include "bpw-plot-view.h"
#include "bpw-study-worker.h"

G_BEGIN_DECLS

#define BPW_TYPE_COMPARE_PAGE (bpw_compare_page_get_type ())

G_DECLARE_FINAL_TYPE (BpwComparePage, bpw_compare_page, BPW, COMPARE_PAGE, GtkWidget)

/* Shows @study (nullable), or the same study after it changed in place: compares again
 * when anything the comparison reads changed, keeping what it shows until the new data
 * replace it. Returns TRUE when something changed: the comparison is due, 0.5 s
 * after the last change. Stale work is cancelled. */
gboolean              bpw_compare_page_set_study    (BpwComparePage     *self,
                                                     BpwStudy           *study);
void                  bpw_compare_page_set_units    (BpwComparePage     *self,
                                                     BpwByteUnits        units);
/* TRUE from a change until its comparison is shown ("notify::busy"). */
gboolean              bpw_compare_page_get_busy     (BpwComparePage     *self);
/* The data shown (nullable: not computed yet, or no comparison possible): candidates
 * (the study's, then the added ones) × the study's scenarios. */
const BpwCompareData *bpw_compare_page_get_data     (BpwComparePage     *self);
/* Why there is no comparison (nullable). */
const char           *bpw_compare_page_get_error    (BpwComparePage     *self);
BpwComparePlot       *bpw_compare_page_get_plot     (BpwComparePage     *self);  /* nullable */
BpwPlotView          *bpw_compare_page_get_view     (BpwComparePage     *self);
/* The table's rows, as sorted: one per candidate × scenario, scenario by scenario at
 * first (GtkStringObject: the candidate's name). */
GListModel           *bpw_compare_page_get_rows     (BpwComparePage     *self);
/* The view by layer type: MFU and memory stall of every candidate on the scenario. */
BpwLayerMatrix       *bpw_compare_page_get_layer_matrix (BpwComparePage *self);
/* The scenario whose breakdown and deltas are shown, and the candidate they are against
 * (indices). */
void                  bpw_compare_page_set_scenario (BpwComparePage     *self,
                                                     guint               scenario);
void                  bpw_compare_page_set_baseline (BpwComparePage     *self,
                                                     guint               candidate);

/* The study, its snapshot and the comparison. Candidates from outside the study (a
 * search's results) join the comparison through bpw_study_worker_add_candidate() and
 * bpw_study_worker_add_sweep() on it, after the study's own; they stay until cleared,
 * across edits and studies. */
BpwStudyWorker       *bpw_compare_page_get_worker   (BpwComparePage     *self);

G_END_DECLS
