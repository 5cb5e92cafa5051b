/* bpw-window.h — the main window: one study, its sidebar and its pages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-autosave.h"
#include "bpw-overview-page.h"
#include "bpw-sheet-page.h"
#include "bpw-sidebar.h"
#include "bpw-study.h"

G_BEGIN_DECLS

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
 * Calculon model) or blueprint (native, Calculon system) file is added to the study. On
 * failure the error is shown in a toast, the study stays as it was, and FALSE is returned
 * with @error set. Facts are computed in a worker thread afterwards ("busy"). */
gboolean      bpw_window_open_file        (BpwWindow      *self,
                                           GFile          *file,
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

G_END_DECLS
