/* bpw-search-dialog-private.h — what the files of BpwSearchDialog share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-search-dialog.c: lifecycle, the searched candidate and scenario, promotion;
 * bpw-search-dialog-space.c: the rows of the space page and the limits they stand for;
 * bpw-search-dialog-run.c: the worker thread, the progress shown while it runs and the
 * results table;
 * bpw-search-dialog-sweep.c: the sweep's parameter rows on the setup page;
 * bpw-search-dialog-sweep-run.c: the sweep in a worker thread, its progress and points;
 * bpw-search-dialog-pages.c: "Show in Trade-offs and Compare".
 */
#pragma once

#include "bpw-search-dialog.h"

G_BEGIN_DECLS

/* The decisions the space page offers as "Any" or one value. */
typedef enum
{
  BPW_SEARCH_CHOICE_TP,
  BPW_SEARCH_CHOICE_PP,
  BPW_SEARCH_CHOICE_DP,
  BPW_SEARCH_CHOICE_EP,
  BPW_SEARCH_CHOICE_CP,     /* context parallel: 1 unless chosen (both algorithms tried) */
  BPW_SEARCH_CHOICE_ZERO,
  BPW_SEARCH_CHOICE_SP,
  BPW_SEARCH_CHOICE_MICRO_BATCH,
  BPW_SEARCH_CHOICE_RECOMPUTE,
  BPW_SEARCH_CHOICE_SCHEDULE,
  BPW_SEARCH_CHOICE_TP_OVERLAP,
  BPW_SEARCH_CHOICE_DP_OVERLAP,
  BPW_N_SEARCH_CHOICES
} BpwSearchChoice;

/* The progress of a running search, shared between the worker and the main thread. */
typedef struct _BpwSearchJob BpwSearchJob;
/* The same for a search with Calculon's model. */
typedef struct _BpwCalculonJob BpwCalculonJob;
/* The same for a sweep. */
typedef struct _BpwSweepJob BpwSweepJob;

/* The figures the run page shows, in the order of its stat cells. */
typedef enum
{
  BPW_SEARCH_STAT_EVALUATED,
  BPW_SEARCH_STAT_RATE,
  BPW_SEARCH_STAT_REMAINING,
  BPW_SEARCH_STAT_STEP_TIME,
  BPW_SEARCH_STAT_MFU,
  BPW_SEARCH_STAT_MEMORY,
  BPW_N_SEARCH_STATS
} BpwSearchStat;

struct _BpwSearchDialog
{
  AdwWindow             parent_instance;

  /* Template widgets */
  AdwWindowTitle       *window_title;
  GtkButton            *back_button;
  GtkButton            *start_button;
  GtkButton            *cancel_button;
  GtkButton            *promote_button;
  AdwToastOverlay      *toast_overlay;
  GtkStack             *stack;
  AdwStatusPage        *unavailable_page;
  AdwComboRow          *objective_row;
  AdwPreferencesGroup  *space_group;
  GtkLabel             *size_label;
  GtkSpinButton        *threads_spin;
  GtkSpinButton        *top_spin;
  GtkSwitch            *simulate_switch;
  GtkLabel             *status_label;
  GtkLabel             *fraction_label;
  GtkProgressBar       *progress_bar;
  GtkBox               *stats_box;
  GtkLabel             *best_plan_label;
  GtkStack             *results_stack;
  AdwStatusPage        *empty_page;
  GtkColumnView        *column_view;
  GtkButton            *show_button;
  AdwStatusPage        *waiting_page;
  AdwPreferencesGroup  *sweep_group;
  GtkLabel             *sweep_size_label;
  GtkMenuButton        *sweep_add_button;
  GtkColumnView        *sweep_view;

  /* Widgets made in code (borrowed: the page holds them) */
  AdwComboRow          *space_row;     /* the full space or Calculon's */
  AdwComboRow          *cost_row;      /* the workbench's model or Calculon's */
  AdwActionRow         *error_row;
  AdwComboRow          *choice_rows[BPW_N_SEARCH_CHOICES];
  AdwExpanderRow       *fusion_row;
  GtkSwitch            *fusion_switches[BPW_SEARCH_N_FUSION_SETS];
  AdwExpanderRow       *offload_row;
  GtkSwitch            *offload_switches[BPW_SEARCH_N_OFFLOADS];
  GtkSwitch            *activation_switches[2];  /* on the device, on host (Calculon's) */
  GtkSwitch            *algorithms_switch;
  GtkLabel             *stat_values[BPW_N_SEARCH_STATS];

  /* Owned */
  GtkWindow            *window;        /* the workbench window: its actions (win.*) */
  BpwStudy             *study;         /* the window's, as it was when the dialog opened */
  BpwCandidateRun       run;           /* the candidate × scenario searched (has_run) */
  char                 *candidate_name;
  char                 *scenario_name;
  GArray               *choice_values[BPW_N_SEARCH_CHOICES];  /* gint64 per row position */
  BpwSearchSpace       *space;         /* nullable: the space of the current choices */
  char                 *space_error;   /* nullable: why the choices admit no space */
  GListStore           *results;       /* BpwSearchItem */
  GtkSortListModel     *sorted;        /* results in the order of the sorted column */
  GtkSingleSelection   *selection;
  BpwSearchReport      *report;        /* nullable: the last search */
  BpwSearchSpace       *report_space;  /* nullable: its space */
  BpwSearchJob         *job;           /* nullable: the running search */
  BpwCalculonJob       *calculon_job;  /* nullable: the running search in Calculon's model */
  /* Calculon's model: the run as Calculon's application and system (when calculon_error is
   * NULL), the space of the current choices, and the last search's own report. */
  BpwCalculonApp        calculon_app;
  BpwCalculonSystem     calculon_system;
  char                 *calculon_error;
  BpwCalculonSpace     *calculon_space;
  BpwCalculonSearchReport *calculon_report;
  GCancellable         *cancellable;   /* nullable: the running search's */
  guint                 poll_id;
  guint                 candidate, scenario;  /* G_MAXUINT: none */
  gint64                devices;
  BpwByteUnits          units;
  BpwSearchObjective    objective;     /* of the report */
  gboolean              has_run;
  gboolean              updating;      /* rows being set from code */
  gboolean              rows_calculon; /* the rows list the values of Calculon's space */

  GSimpleActionGroup   *actions;       /* "search.": show-page, add-sweep-param */

  /* Sweep (owned) */
  GPtrArray            *sweep_rows;    /* AdwActionRow (borrowed from the group), in order */
  guint64               sweep_points_planned;  /* of the rows' grid; 0 with a bad row */
  BpwSweepJob          *sweep_job;     /* nullable: the running sweep */
  BpwSweep             *sweep;         /* nullable: the last sweep, finished or stopped */
  GListStore           *sweep_points;  /* BpwSweepItem */
  GtkNoSelection       *sweep_selection;
  gboolean              sweep_shown;   /* the run page shows a sweep, not a search */
  gboolean              sweep_in_pages;  /* its points were added to the pages */
};

/* bpw-search-dialog-space.c */
/* Builds the rows for @self->run (the model, the scenario and the blueprint). */
void     _bpw_search_dialog_space_init   (BpwSearchDialog *self);
/* Rebuilds the space for the current choices (its size, or why there is none). */
void     _bpw_search_dialog_space_update (BpwSearchDialog *self);

/* Calculon's space for the choices of @limits (TP, PP, activations) and the page's top K
 * and threads. */
BpwCalculonSpace *_bpw_search_dialog_new_calculon_space (BpwSearchDialog       *self,
                                                        const BpwSearchLimits *limits,
                                                        GError               **error);
/* Whether Calculon's model prices the plans (the cost row says so and is shown). */
gboolean _bpw_search_dialog_calculon_model (BpwSearchDialog *self);

/* bpw-search-dialog-run.c */
void     _bpw_search_dialog_run_init     (BpwSearchDialog *self);
/* The page for the report just set (self->report, and self->calculon_report when
 * Calculon's model ran it): counts, best plan and the results table. */
void     _bpw_search_dialog_show_report  (BpwSearchDialog *self);
/* The cards' captions for a search in Calculon's model ("Best Efficiency": Calculon's
 * total efficiency, its MFU-like figure); _bpw_search_dialog_set_run_mode() resets them. */
void     _bpw_search_dialog_set_calculon_stats   (BpwSearchDialog *self);
/* The results' "Calculon" column: shown for a search in Calculon's model. */
void     _bpw_search_dialog_show_calculon_column (BpwSearchDialog *self,
                                                  gboolean         shown);
/* The poll period of a running search, ms. */
#define BPW_SEARCH_POLL_MS 100
/* The run page's figures: stat cell @stat shows @text (NULL: "—"); the bar @share. */
void     _bpw_search_dialog_set_stat     (BpwSearchDialog *self,
                                          BpwSearchStat    stat,
                                          const char      *text);
void     _bpw_search_dialog_set_fraction (BpwSearchDialog *self,
                                          double           share);
/* Shows the run page afresh for a search or a sweep, polling its progress with @poll. */
void     _bpw_search_dialog_begin_run    (BpwSearchDialog *self,
                                          gboolean         sweep,
                                          GSourceFunc      poll);
/* "about 3 min" (NaN: "—"); "4.93 M plans/s" (NULL without time). */
char    *_bpw_search_format_remaining    (double           seconds);
char    *_bpw_search_format_rate         (guint64          decided,
                                          double           seconds);
void     _bpw_search_dialog_run_dispose  (BpwSearchDialog *self);
/* Shows the columns of decisions the space can vary and figures the blueprint gives. */
void     _bpw_search_dialog_show_columns (BpwSearchDialog *self,
                                          gboolean         experts,
                                          gboolean         context,
                                          gboolean         offload,
                                          gboolean         energy);
/* Rebuilds the space when a row changes, unless the rows are being set from code. */
void     _bpw_search_dialog_choice_changed_cb (BpwSearchDialog *self);

/* bpw-search-dialog-calculon.c */
/* The "Priced By" row, after the space row; finds whether Calculon's model can price the
 * run (self->calculon_error says why not). */
void     _bpw_search_dialog_add_cost_row     (BpwSearchDialog *self);
/* Starts the search in Calculon's model for the current choices. */
gboolean _bpw_search_dialog_calculon_start   (BpwSearchDialog *self);
void     _bpw_search_dialog_calculon_dispose (BpwSearchDialog *self);

/* bpw-search-dialog-sweep.c */
/* Builds the "Add Parameter" menu for @self->run's blueprint. */
void     _bpw_search_dialog_sweep_init   (BpwSearchDialog *self);
/* Rows to sweep, and whether every one of them holds values that parse. */
gboolean _bpw_search_dialog_sweep_active (BpwSearchDialog *self);
gboolean _bpw_search_dialog_sweep_ready  (BpwSearchDialog *self);

/* bpw-search-dialog-sweep-run.c */
void     _bpw_search_dialog_sweep_run_init    (BpwSearchDialog *self);
void     _bpw_search_dialog_sweep_run_dispose (BpwSearchDialog *self);
gboolean _bpw_search_dialog_sweep_start       (BpwSearchDialog *self);
/* The run page's figures and texts are a search's (FALSE) or a sweep's (TRUE). */
void     _bpw_search_dialog_set_run_mode      (BpwSearchDialog *self,
                                               gboolean         sweep);

/* bpw-search-dialog-pages.c */
void     _bpw_search_dialog_pages_init   (BpwSearchDialog *self);
/* "Show in Trade-offs and Compare" can add something now. */
gboolean _bpw_search_dialog_can_show     (BpwSearchDialog *self);

/* bpw-search-dialog.c */
/* Which header buttons show and what they may do. */
void     _bpw_search_dialog_update_buttons (BpwSearchDialog *self);
void     _bpw_search_dialog_notify_running (BpwSearchDialog *self);

G_END_DECLS
