/* bpw-search-dialog.h — design-space search for the selected candidate and scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The dialog searches the mapping space of the window's selected candidate on its selected
 * scenario (the Sheet's selection), on the scenario's device count: which decisions vary
 * (by default every one: the full legal space), the objective and the threads are chosen
 * on its first page; Start runs the core's search (bpw_search_run()) in a worker thread
 * and shows progress, rate, time left and the best plan so far, at most ten times a
 * second; then the best plans are listed, and "Promote to Candidate" adds the chosen one
 * to the study as a new candidate through the window's undoable edits.
 */
#pragma once

#include <adwaita.h>

#include "bpw-search-item.h"
#include "bpw-window.h"

G_BEGIN_DECLS

/* What the search ranks by. */
typedef enum
{
  BPW_SEARCH_OBJECTIVE_STEP_TIME,  /* fastest step: throughput and MFU */
  BPW_SEARCH_OBJECTIVE_ENERGY,     /* least energy per step, from the step-time × energy front */
} BpwSearchObjective;

#define BPW_TYPE_SEARCH_DIALOG (bpw_search_dialog_get_type ())

G_DECLARE_FINAL_TYPE (BpwSearchDialog, bpw_search_dialog, BPW, SEARCH_DIALOG, AdwWindow)

/* Modal and transient for @window; searches its selected candidate × scenario as they are
 * now. Without a selection it says so. */
BpwSearchDialog *bpw_search_dialog_new             (BpwWindow               *window);

/* The candidate and scenario searched (indices into the study's); G_MAXUINT when none. */
guint            bpw_search_dialog_get_candidate   (BpwSearchDialog         *self);
guint            bpw_search_dialog_get_scenario    (BpwSearchDialog         *self);
gint64           bpw_search_dialog_get_devices     (BpwSearchDialog         *self);

/* The choices of the space page. Setting sets every row; a fixed value the row does not
 * offer is ignored (the row stays free). */
void             bpw_search_dialog_set_limits      (BpwSearchDialog         *self,
                                                    const BpwSearchLimits   *limits);
void             bpw_search_dialog_get_limits      (BpwSearchDialog         *self,
                                                    BpwSearchLimits         *limits);
/* The search options the page stands for (top K, threads, simulation, Pareto). */
void             bpw_search_dialog_get_options     (BpwSearchDialog         *self,
                                                    BpwSearchOptions        *options);
void             bpw_search_dialog_set_objective   (BpwSearchDialog         *self,
                                                    BpwSearchObjective       objective);
void             bpw_search_dialog_set_threads     (BpwSearchDialog         *self,
                                                    guint                    threads);
void             bpw_search_dialog_set_top_k       (BpwSearchDialog         *self,
                                                    guint                    top_k);
void             bpw_search_dialog_set_simulate    (BpwSearchDialog         *self,
                                                    gboolean                 simulate);
/* Plans in the space of the current choices; 0 when they admit none (the page says why). */
guint64          bpw_search_dialog_get_space_size  (BpwSearchDialog         *self);

/* Starts the search (the Start button); FALSE when the choices admit no space or a search
 * is running. */
gboolean         bpw_search_dialog_start           (BpwSearchDialog         *self);
/* Stops a running search; what it found so far is listed. */
void             bpw_search_dialog_cancel          (BpwSearchDialog         *self);
gboolean         bpw_search_dialog_get_running     (BpwSearchDialog         *self);
/* The last finished (or cancelled) search; NULL before one. */
const BpwSearchReport *bpw_search_dialog_get_report (BpwSearchDialog        *self);
/* The results listed (element-type BpwSearchItem), best first for the objective. */
GListModel      *bpw_search_dialog_get_results     (BpwSearchDialog         *self);
void             bpw_search_dialog_select_result   (BpwSearchDialog         *self,
                                                    guint                    position);
/* The selected result (nullable, borrowed) and the blueprint of the searched candidate:
 * what "Promote to Candidate" adds, and what another view can take as it is (the
 * Trade-offs page's bpw_tradeoffs_page_add_candidate(), once it exists, is the hook for a
 * "Show in Trade-offs" action). */
BpwSearchItem   *bpw_search_dialog_get_selected_result (BpwSearchDialog     *self);
const BpwBlueprint *bpw_search_dialog_get_blueprint (BpwSearchDialog        *self);

/* Adds the selected result as a new candidate: the searched candidate's blueprint and
 * mappings, with the result's mapping for the searched scenario, as one undoable edit of
 * the window; the window then selects it. FALSE with @error when nothing is selected or
 * the study refuses it. */
gboolean         bpw_search_dialog_promote         (BpwSearchDialog         *self,
                                                    GError                 **error);

G_END_DECLS
