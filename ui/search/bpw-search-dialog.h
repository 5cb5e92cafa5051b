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
 *
 * With blueprint parameters to sweep (the setup page's Sweep group), Start runs a sweep
 * instead (bpw_sweep_run()): the space of the same choices searched at every point of the
 * parameters' grid, and the points listed with their gain over the baseline split into
 * architecture × mapping. "Show in Trade-offs and Compare" adds the selected plan, or the
 * sweep's points on its Pareto front, to those pages as candidates from outside the study.
 *
 * The dialog changes the window only through the window's actions: "win.promote-candidate",
 * "win.show-in-pages" and "win.show-page" (bpw-window-actions.c).
 */
#pragma once

#include <adwaita.h>

#include "bpw-search-item.h"

G_BEGIN_DECLS

/* What the search ranks by. */
typedef enum
{
  BPW_SEARCH_OBJECTIVE_STEP_TIME,  /* fastest step: throughput and MFU */
  BPW_SEARCH_OBJECTIVE_ENERGY,     /* least energy per step, from the step-time × energy front */
} BpwSearchObjective;

#define BPW_TYPE_SEARCH_DIALOG (bpw_search_dialog_get_type ())

typedef enum
{
  BPW_SEARCH_COST_WORKBENCH,
  BPW_SEARCH_COST_CALCULON,
} BpwSearchCostModel;

G_DECLARE_FINAL_TYPE (BpwSearchDialog, bpw_search_dialog, BPW, SEARCH_DIALOG, AdwWindow)

/* Modal and transient for @window (the workbench window, whose actions it activates);
 * searches candidate @candidate × scenario @scenario of @study (nullable), the window's
 * selection, as they are now. Without a selection (an index out of range) it says so. */
BpwSearchDialog *bpw_search_dialog_new             (GtkWindow               *window,
                                                    BpwStudy                *study,
                                                    guint                    candidate,
                                                    guint                    scenario);

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
/* Who prices the plans: the workbench's model, or Calculon's own (its search, over its
 * space: `bpw search --cost-model calculon`), which needs Calculon's options and a
 * blueprint with Calculon's tables (a Calculon system file). Setting it to Calculon's also
 * chooses Calculon's options, and leaves free the decisions Calculon's search makes itself;
 * FALSE (nothing changed) when Calculon's model cannot price this run. */
gboolean         bpw_search_dialog_set_cost_model  (BpwSearchDialog         *self,
                                                    BpwSearchCostModel       model);
BpwSearchCostModel bpw_search_dialog_get_cost_model (BpwSearchDialog        *self);
/* Why Calculon's model cannot price this run; NULL when it can. */
const char      *bpw_search_dialog_get_calculon_error (BpwSearchDialog      *self);
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
/* The last search's own report when Calculon's model ran it (its counts and best list);
 * bpw_search_dialog_get_report() then holds the workbench's evaluation of that list. */
const BpwCalculonSearchReport *bpw_search_dialog_get_calculon_report (BpwSearchDialog *self);
/* The results listed (element-type BpwSearchItem), best first for the objective. */
GListModel      *bpw_search_dialog_get_results     (BpwSearchDialog         *self);
void             bpw_search_dialog_select_result   (BpwSearchDialog         *self,
                                                    guint                    position);
/* The selected result (nullable, borrowed) and the blueprint of the searched candidate:
 * what "Promote to Candidate" adds, and what "Show in Trade-offs and Compare" shows. */
BpwSearchItem   *bpw_search_dialog_get_selected_result (BpwSearchDialog     *self);
const BpwBlueprint *bpw_search_dialog_get_blueprint (BpwSearchDialog        *self);

/* Sweep ------------------------------------------------------------------------------ */

/* Adds a row that sweeps @param (as bpw_sweep_new() names it: "hbm_bandwidth",
 * "link_bandwidth.TIER", "devices", …) over @values as typed ("2 TB/s, 3.35 TB/s"); a row of
 * that parameter that is there already gets @values. FALSE when the blueprint has no such
 * parameter (no SRAM level, no such tier). Values that do not parse are refused in the
 * row, with the reason (bpw_search_dialog_get_sweep_error()). */
gboolean         bpw_search_dialog_add_sweep_param (BpwSearchDialog         *self,
                                                    const char              *param,
                                                    const char              *values);
void             bpw_search_dialog_remove_sweep_params (BpwSearchDialog     *self);
/* Why the row of @param refuses its values (nullable: it does not, or there is no row). */
const char      *bpw_search_dialog_get_sweep_error (BpwSearchDialog         *self,
                                                    const char              *param);
/* The rows as bpw_sweep_new() takes them ("NAME=V1,V2,…", values in SI units, exact),
 * NULL-terminated and empty without rows; NULL with @error when a row refuses its values. */
char           **bpw_search_dialog_dup_sweep_params (BpwSearchDialog        *self,
                                                     GError                **error);
/* Points of the rows' grid; 0 without rows or when one refuses its values. */
guint64          bpw_search_dialog_get_sweep_size  (BpwSearchDialog         *self);
/* The last sweep, finished or stopped (nullable; borrowed). A sweep keeps the best plan of
 * each point (top K 1), without simulating it, and ranks by step time. */
BpwSweep        *bpw_search_dialog_get_sweep       (BpwSearchDialog         *self);
/* The points listed (element-type BpwSweepItem), in the sweep's order. */
GListModel      *bpw_search_dialog_get_sweep_points (BpwSearchDialog        *self);

/* "Show in Trade-offs and Compare": adds the sweep's points on its Pareto front (when the
 * run page shows a sweep) or the selected result to the window's Trade-offs and Compare
 * pages (bpw_study_worker_add_candidate_for_scenario()): each runs the searched scenario
 * with its plan, and the others as the searched candidate does. Returns how many were
 * added to each page; 0 with @error when there is nothing to add. */
guint            bpw_search_dialog_show_in_pages   (BpwSearchDialog         *self,
                                                    GError                 **error);

/* Adds the selected result as a new candidate: the searched candidate's blueprint and
 * mappings, with the result's mapping for the searched scenario, as one undoable edit of
 * the window; the window then selects it. FALSE with @error when nothing is selected or
 * the study refuses it. */
gboolean         bpw_search_dialog_promote         (BpwSearchDialog         *self,
                                                    GError                 **error);

G_END_DECLS
