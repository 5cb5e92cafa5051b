/* bpw-window.h — the main window: one study and the facts of its scenarios
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-study.h"

G_BEGIN_DECLS

#define BPW_TYPE_WINDOW (bpw_window_get_type ())

G_DECLARE_FINAL_TYPE (BpwWindow, bpw_window, BPW, WINDOW, AdwApplicationWindow)

/* @settings (nullable) provides units and the last folder; without it, defaults apply. */
BpwWindow  *bpw_window_new           (GtkApplication *application,
                                      GSettings      *settings);
/* Both replace the study on success. On failure they show the error in a toast, leave the
 * window as it was and return FALSE with @error set. Facts are computed in a worker
 * thread afterwards; "busy" is TRUE until every row is in the model. */
gboolean    bpw_window_open_bundled  (BpwWindow      *self,
                                      const char     *name,
                                      GError        **error);
gboolean    bpw_window_open_file     (BpwWindow      *self,
                                      GFile          *file,
                                      GError        **error);
BpwStudy   *bpw_window_get_study     (BpwWindow      *self);
/* The rows (BpwFactsRow), one per scenario, in study order. */
GListModel *bpw_window_get_rows      (BpwWindow      *self);
gboolean    bpw_window_get_busy      (BpwWindow      *self);

G_END_DECLS
