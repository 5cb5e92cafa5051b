/* bpw-window.h — the main window: one study, its sidebar and its pages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-autosave.h"
#include "bpw-inspector.h"
#include "bpw-overview-page.h"
#include "bpw-sheet-page.h"
#include "bpw-sidebar.h"
#include "bpw-simulation-job.h"
#include "bpw-study.h"

G_BEGIN_DECLS

/* The work the last computation of the Overview did: an edit recomputes only what it
 * changed. */
typedef struct
{
  guint facts;        /* scenarios whose facts were computed */
  guint evaluations;  /* candidate × scenario pairs evaluated (analytic estimator) */
  guint reused;       /* Overview items kept unchanged from the computation before */
} BpwComputeStats;

#define BPW_TYPE_WINDOW (bpw_window_get_type ())

G_DECLARE_FINAL_TYPE (BpwWindow, bpw_window, BPW, WINDOW, AdwApplicationWindow)

/* @settings (nullable) provides units and the last folder; without it, defaults apply. */
BpwWindow    *bpw_window_new              (GtkApplication *application,
                                           GSettings      *settings);

/* A new, unsaved study from a bundled template (bpw_study_bundled_names()), or an empty
 * study for @name NULL. Replaces the study without asking. */
gboolean      bpw_window_open_bundled     (BpwWindow      *self,
                                           const char     *name,
                                           GError        **error);
/* A study file replaces the study without asking; a workload (native, Hugging Face,
 * Calculon model) or blueprint (native, Calculon system) file is added to the study; a
 * profile (Chrome, Perfetto or PyTorch trace) becomes a measurement of the selected
 * candidate on the selected scenario, as an undoable edit. On
 * failure the error is shown in a toast, the study stays as it was, and FALSE is returned
 * with @error set. Facts are computed in a worker thread afterwards ("busy"). */
gboolean      bpw_window_open_file        (BpwWindow      *self,
                                           GFile          *file,
                                           GError        **error);
/* A scenario for workload @workload with the command line's defaults (training, one
 * device, one sequence of bpw_scenario_default_seq()), named after it, joins the study
 * and is selected: the step after opening a workload. Its index, or G_MAXUINT with
 * @error (no such workload; the study refuses it). */
/* The same for @phase (a name "WORKLOAD-PHASE"): win.add-scenario-phase. */
guint         bpw_window_add_scenario_for_phase (BpwWindow        *self,
                                                 const char       *workload,
                                                 BpwWorkloadPhase  phase,
                                                 GError          **error);
guint         bpw_window_add_scenario     (BpwWindow      *self,
                                           const char     *workload,
                                           GError        **error);
/* TRUE when @file is a study file (by its "format"), so that callers can decide whether
 * opening it replaces a study. */
gboolean      bpw_window_file_is_study    (GFile          *file);
/* Atomic, with a backup "FILE~"; marks the study saved and remembers @file. */
gboolean      bpw_window_save_to_file     (BpwWindow      *self,
                                           GFile          *file,
                                           GError        **error);
/* Opens an autosave left by an earlier run: the study comes back unsaved, to be saved to
 * the file it was saved to before (if any); the autosave file is taken over. */
gboolean      bpw_window_recover          (BpwWindow      *self,
                                           GFile          *autosave,
                                           GError        **error);
/* Asks whether to recover @autosave (AdwMessageDialog): Recover or Discard. */
void          bpw_window_offer_recovery   (BpwWindow      *self,
                                           GFile          *autosave);

BpwStudy     *bpw_window_get_study        (BpwWindow      *self);
GFile        *bpw_window_get_file         (BpwWindow      *self);  /* nullable */
gboolean      bpw_window_get_modified     (BpwWindow      *self);
gboolean      bpw_window_get_busy         (BpwWindow      *self);
/* The facts (BpwFactsRow), one per scenario, in study order. */
GListModel   *bpw_window_get_rows         (BpwWindow      *self);
/* The Overview's items (BpwOverviewItem): candidates × scenarios, candidate-major. */
GListModel   *bpw_window_get_overview_items (BpwWindow    *self);
BpwSidebar   *bpw_window_get_sidebar      (BpwWindow      *self);
BpwSheetPage *bpw_window_get_sheet_page   (BpwWindow      *self);
BpwOverviewPage *bpw_window_get_overview_page (BpwWindow  *self);
AdwViewStack *bpw_window_get_view_stack   (BpwWindow      *self);
BpwAutosave  *bpw_window_get_autosave     (BpwWindow      *self);
BpwInspector *bpw_window_get_inspector    (BpwWindow      *self);

/* Editing (bpw-window-edit.c). Applies @edit (transfer full) to the study, or refuses it
 * with @error and leaves everything as it was; an applied edit joins the undo history,
 * marks the study modified and updates every page in the background. */
gboolean      bpw_window_apply_edit       (BpwWindow      *self,
                                           BpwStudyEdit   *edit,
                                           GError        **error);
gboolean      bpw_window_undo             (BpwWindow      *self);
gboolean      bpw_window_redo             (BpwWindow      *self);
gboolean      bpw_window_get_can_undo     (BpwWindow      *self);
gboolean      bpw_window_get_can_redo     (BpwWindow      *self);
/* The candidate and scenario the Sheet lists and the inspector shows (indices into the
 * study's; G_MAXUINT keeps the current one). The blueprint shown is the candidate's. */
void          bpw_window_select           (BpwWindow      *self,
                                           guint           candidate,
                                           guint           scenario);
guint         bpw_window_get_selected_candidate (BpwWindow *self);
guint         bpw_window_get_selected_scenario  (BpwWindow *self);
/* Shows @name (a blueprint of the study) in the inspector. */
void          bpw_window_select_blueprint (BpwWindow      *self,
                                           const char     *name);
/* TRUE from an edit, undo or redo until the Overview and the Sheet show its result. */
gboolean      bpw_window_get_edit_pending (BpwWindow      *self);
/* Milliseconds from the last edit, undo or redo to both pages updated; -1 before the
 * first or while pending. */
double        bpw_window_get_edit_latency (BpwWindow      *self);
void          bpw_window_get_compute_stats (BpwWindow     *self,
                                            BpwComputeStats *stats);

/* Charts (bpw-window-charts.c) */
/* Selects the operation of @lineage in every view (the Sheet, timeline, roofline, engines
 * and lifetimes), each at its own grain; BPW_PLOT_NO_LINEAGE clears. */
void          bpw_window_select_lineage   (BpwWindow      *self,
                                           guint32         lineage);
guint32       bpw_window_get_selected_lineage (BpwWindow  *self);
/* The job that simulates the step the Timeline and Memory pages show. */
BpwSimulationJob *bpw_window_get_simulation_job (BpwWindow *self);
/* What the Export menu's "win.export" does once the file is chosen: the chart of
 * @target ("timeline", "lifetimes", "roofline", "assignment", or a page's name) to @path
 * (.png at @scale px per pt, .svg, .pdf or .csv). */
gboolean      bpw_window_export_chart     (BpwWindow      *self,
                                           const char     *target,
                                           const char     *path,
                                           double          scale,
                                           GError        **error);
/* Builds the study's review packet off the main thread (on a copy taken now) and writes
 * it to @file: JSON for a ".json" file, else Markdown; a toast says how it went.
 * @callback (nullable) then calls bpw_window_export_packet_finish(). */
void          bpw_window_export_packet    (BpwWindow           *self,
                                           GFile               *file,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
gboolean      bpw_window_export_packet_finish (GAsyncResult    *result,
                                               GError         **error);
/* (nullable): the Export menu's file dialog while it is open. */
GtkNativeDialog *bpw_window_get_export_dialog (BpwWindow  *self);

G_END_DECLS
