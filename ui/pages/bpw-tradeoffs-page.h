/* bpw-tradeoffs-page.h — the Trade-offs page: throughput against latency from serving sweeps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For each inference scenario of the study, every candidate serves a seeded request
 * stream at ten arrival rates (bpw_trade_data_new_from_study()), in a worker thread, one
 * scenario at a time: the one shown first, the others after it. That is about a second
 * of processor time per scenario: while the page is hidden, only scenarios it never
 * showed are swept (after a pause in the edits); curves an edit made stale are swept
 * again once the page is shown, and stay on screen until then. The page shows the
 * trade curves of one scenario in a BpwPlotView, with the latency metric and the measure
 * (throughput, per watt, per dollar) to choose.
 */
#pragma once

#include <adwaita.h>

#include "bpw-core.h"
#include "bpw-plot-view.h"
#include "bpw-study-worker.h"
#include "bpw-trade-plot.h"

G_BEGIN_DECLS

#define BPW_TYPE_TRADEOFFS_PAGE (bpw_tradeoffs_page_get_type ())

G_DECLARE_FINAL_TYPE (BpwTradeoffsPage, bpw_tradeoffs_page, BPW, TRADEOFFS_PAGE, GtkWidget)

/* Shows @study (nullable), or the same study after it changed in place: the sweeps run
 * again when anything they read changed (the study's JSON form differs), and the page
 * keeps the curves it has until the new ones replace them. Returns TRUE when something
 * changed: sweeps are due. Stale work is cancelled. */
gboolean      bpw_tradeoffs_page_set_study      (BpwTradeoffsPage *self,
                                                 BpwStudy         *study);
/* TRUE while curves are due: from a change until they are shown, and for stale curves
 * only while the page is shown ("notify::busy"). */
gboolean      bpw_tradeoffs_page_get_busy       (BpwTradeoffsPage *self);
/* The study's inference scenarios, by index into the study's scenarios. */
guint         bpw_tradeoffs_page_get_n_scenarios (BpwTradeoffsPage *self);
/* The scenario shown (an index into the study's scenarios), G_MAXUINT without one. */
guint         bpw_tradeoffs_page_get_scenario   (BpwTradeoffsPage *self);
/* Shows inference scenario @scenario (an index into the study's scenarios); FALSE when
 * it is not one. */
gboolean      bpw_tradeoffs_page_set_scenario   (BpwTradeoffsPage *self,
                                                 guint             scenario);
void          bpw_tradeoffs_page_set_latency    (BpwTradeoffsPage *self,
                                                 BpwTradeLatency   metric);
void          bpw_tradeoffs_page_set_measure    (BpwTradeoffsPage *self,
                                                 BpwTradeY         y);
/* The plot of the scenario shown (nullable), and the view that shows it. */
BpwTradePlot *bpw_tradeoffs_page_get_plot       (BpwTradeoffsPage *self);
BpwPlotView  *bpw_tradeoffs_page_get_view       (BpwTradeoffsPage *self);

/* The study, its snapshot and the sweeps. Candidates from outside the study (a search's
 * results) join the sweeps through bpw_study_worker_add_candidate() and
 * bpw_study_worker_add_sweep() on it; they stay until cleared, across edits and
 * studies. */
BpwStudyWorker *bpw_tradeoffs_page_get_worker   (BpwTradeoffsPage *self);

G_END_DECLS
