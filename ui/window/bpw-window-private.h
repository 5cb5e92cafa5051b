/* bpw-window-private.h — what the files of BpwWindow share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * BpwWindow is split by concern, Text Editor style: bpw-window.c (lifecycle, study, title),
 * bpw-window-actions.c (actions and menus), bpw-window-compute.c (facts and Overview items
 * in a worker thread), bpw-window-files.c (opening, adding, saving, drag and drop),
 * bpw-window-dialogs.c (unsaved changes and recovery) and bpw-window-charts.c (the
 * simulated step's pages, selection by lineage across views, the Export menu).
 */
#pragma once

#include "bpw-compare-page.h"
#include "bpw-facts-row.h"
#include "bpw-inspector.h"
#include "bpw-job-queue.h"
#include "bpw-memory-page.h"
#include "bpw-plot-view.h"
#include "bpw-review-dialog.h"
#include "bpw-timeline-page.h"
#include "bpw-tradeoffs-page.h"
#include "bpw-validation-page.h"
#include "bpw-window.h"

G_BEGIN_DECLS

/* The inputs of one computation of the Overview (bpw-window-compute.c), kept after it
 * finished so that the next one recomputes only what changed. */
typedef struct _BpwComputeBatch BpwComputeBatch;

/* What an edit waits for before the pages count as updated. */
typedef enum
{
  BPW_WINDOW_PENDING_OVERVIEW = 1 << 0,
  BPW_WINDOW_PENDING_SHEET    = 1 << 1,
} BpwWindowPending;

struct _BpwWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwWindowTitle       *study_title;
  AdwViewSwitcherTitle *switcher_title;
  GtkSpinner           *spinner;
  AdwToastOverlay      *toast_overlay;
  AdwViewStack         *view_stack;
  BpwSidebar           *sidebar;
  BpwOverviewPage      *overview_page;
  BpwSheetPage         *sheet_page;
  BpwTimelinePage      *timeline_page;
  BpwMemoryPage        *memory_page;
  BpwTradeoffsPage     *tradeoffs_page;
  BpwComparePage       *compare_page;
  BpwValidationPage    *validation_page;
  BpwPlotView          *roofline_view;
  BpwPlotView          *assignment_view;
  GtkRevealer          *inspector_revealer;
  BpwInspector         *inspector;
  GMenu                *templates_menu;
  GMenu                *candidates_menu;
  GMenu                *recent_menu;

  /* Owned references */
  BpwStudy             *study;
  GFile                *file;            /* nullable: where the study is saved */
  GListStore           *rows;            /* BpwFactsRow */
  GListStore           *overview_items;  /* BpwOverviewItem */
  BpwJobQueue          *jobs;            /* the facts and the Overview's items */
  GSettings            *settings;        /* nullable */
  BpwAutosave          *autosave;
  BpwSimulationJob     *simulation;      /* the Timeline and Memory pages' step */
  GtkNativeDialog      *export_dialog;   /* nullable: the Export menu's, while open */
  BpwComputeBatch      *last_batch;      /* nullable: what rows and items were computed from */
  GPtrArray            *undo;            /* BpwStudyEdit, oldest first */
  GPtrArray            *redo;            /* BpwStudyEdit, next to redo last */
  char                 *selected_blueprint;  /* nullable: else the candidate's */
  char                 *sidebar_signature;   /* nullable: what the sidebar last showed */
  guint                 selected_candidate;  /* G_MAXUINT: none */
  guint                 selected_scenario;   /* G_MAXUINT: none */

  BpwComputeStats       stats;           /* of the last computation that finished */
  gint64                edit_started;    /* monotonic µs of the edit whose pages are pending */
  double                edit_latency_ms; /* of the last edit whose pages were updated; -1 */
  guint                 pending;         /* BpwWindowPending */
  guint                 saved_depth;     /* undo depth of the saved study; G_MAXUINT: none */
  gboolean              selecting;       /* a selection is being passed between views */
  guint32               selected_lineage; /* selected everywhere; BPW_PLOT_NO_LINEAGE */

  BpwByteUnits          units;
  guint                 spinner_timeout;
  gboolean              busy;
  gboolean              modified;
  gboolean              close_confirmed;
};

/* What to do once unsaved changes are saved or discarded. */
typedef enum
{
  BPW_WINDOW_THEN_CLOSE,
  BPW_WINDOW_THEN_OPEN,      /* @argument: the file */
  BPW_WINDOW_THEN_TEMPLATE,  /* @argument: the template name, NULL for an empty study */
} BpwWindowThen;

/* bpw-window.c */
void     _bpw_window_show_toast        (BpwWindow     *self,
                                        const char    *message);
void     _bpw_window_set_busy          (BpwWindow     *self,
                                        gboolean       busy);
/* Takes ownership of @study; @file (nullable) is where it is saved. Unmodified. */
void     _bpw_window_set_study         (BpwWindow     *self,
                                        BpwStudy      *study,
                                        GFile         *file);
/* The study changed in place (something was added): modified, lists rebuilt. */
void     _bpw_window_study_changed     (BpwWindow     *self);
void     _bpw_window_set_modified      (BpwWindow     *self,
                                        gboolean       modified);
void     _bpw_window_remember_folder   (BpwWindow     *self,
                                        GFile         *file);

/* bpw-window-compute.c */
void     _bpw_window_compute           (BpwWindow     *self);
/* Forgets the last computation: the next one computes everything (a new study, or one
 * whose workloads, scenarios or candidates were added). */
void     _bpw_window_compute_reset     (BpwWindow     *self);
void     _bpw_compute_batch_unref      (BpwComputeBatch *batch);

/* bpw-window-edit.c */
void     _bpw_window_edit_init         (BpwWindow     *self);
void     _bpw_window_class_edit_init   (GtkWidgetClass *widget_class);
/* A new study: no history, first candidate and scenario selected. */
void     _bpw_window_edit_reset        (BpwWindow     *self);
/* The Overview finished computing (bpw-window-compute.c). */
void     _bpw_window_computed          (BpwWindow     *self);
/* Passes the selected candidate, scenario and blueprint to the Sheet and the inspector. */
void     _bpw_window_sync_selection    (BpwWindow     *self);

/* bpw-window-charts.c */
void     _bpw_window_class_charts_init (GtkWidgetClass *widget_class);
void     _bpw_window_charts_init       (BpwWindow     *self);
void     _bpw_window_charts_dispose    (BpwWindow     *self);
/* The Timeline and Memory pages follow the Sheet's candidate, scenario and their edits. */
void     _bpw_window_charts_update     (BpwWindow     *self);
/* Every chart's memory sizes in @units, on screen and in its exports. */
void     _bpw_window_charts_set_units  (BpwWindow     *self,
                                        BpwByteUnits   units);

/* bpw-window-compare.c */
void     _bpw_window_compare_init      (BpwWindow     *self);
/* The Trade-offs and Compare pages and the Overview's fit matrix follow the study. */
void     _bpw_window_compare_update    (BpwWindow     *self);

/* bpw-window-validation.c: the Validation page follows the study; a profile opened is
 * added as a measurement of the selected candidate on the selected scenario (an edit). */
void     _bpw_window_validation_init   (BpwWindow     *self);
void     _bpw_window_validation_update (BpwWindow     *self);
gboolean _bpw_window_add_measurement   (BpwWindow     *self,
                                        const char    *path,
                                        GError       **error);

/* bpw-window-actions.c */
void     _bpw_window_class_actions_init (GtkWidgetClass *widget_class);
void     _bpw_window_actions_init      (BpwWindow     *self);
void     _bpw_window_actions_update    (BpwWindow     *self);
/* Destroys the search dialogs of @self's study (which is being replaced), stopping them,
 * and its review data's window. */
void     _bpw_window_close_searches    (BpwWindow     *self);
/* (nullable): the review data's window of @self's study, while open. */
BpwReviewDialog *_bpw_window_get_review_dialog (BpwWindow *self);
void     _bpw_window_add_recent        (BpwWindow     *self,
                                        GFile         *file);
/* The study's folder, else the last folder used. */
void     _bpw_window_set_chooser_folder (BpwWindow     *self,
                                        GtkFileChooser *chooser);
/* The file a chooser's @response accepted (NULL otherwise); destroys and releases @native. */
GFile   *_bpw_window_chooser_finish    (GtkFileChooserNative *native,
                                        int                   response);
/* Save, or Save As when there is no file; @done (nullable) runs with TRUE once saved. */
void     _bpw_window_save_interactive  (BpwWindow     *self,
                                        gboolean       choose_file,
                                        void         (*done) (BpwWindow *self,
                                                              gpointer   data),
                                        gpointer       data,
                                        GDestroyNotify destroy);

/* bpw-window-packet.c: "win.export-packet" */
void     _bpw_window_class_packet_init (GtkWidgetClass *widget_class);

/* bpw-window-files.c */
void     _bpw_window_dnd_init          (BpwWindow     *self);
/* Opens from the user's hand (chooser, recent, drop): asks first before a study with
 * unsaved changes is replaced. */
void     _bpw_window_open_interactive  (BpwWindow     *self,
                                        GFile         *file);

/* bpw-window-dialogs.c */
/* Asks Cancel / Discard / Save about the unsaved changes, then does @then. Takes
 * ownership of @argument (a GFile for OPEN, a string for TEMPLATE). */
void     _bpw_window_confirm_unsaved   (BpwWindow     *self,
                                        BpwWindowThen  then,
                                        gpointer       argument);

G_END_DECLS
