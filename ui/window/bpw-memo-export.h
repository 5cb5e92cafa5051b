/* bpw-memo-export.h — the window's "Export Memo": the design-review memo as a PDF
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writing a memo simulates candidates and takes seconds, so it runs in a worker thread on a
 * snapshot of the study (bpw-study-snapshot.h), taken when it starts: edits made while it
 * runs do not change it, and it changes nothing in the window. The PDF goes to a temporary
 * file first and replaces the chosen file in one rename, so a failure never leaves half a
 * PDF or destroys what was there. One memo at a time per window; closing the window
 * cancels it. BpwMemoExport is that per-window state; callers use the functions below,
 * which take the window.
 */
#pragma once

#include <adwaita.h>

#include "bpw-window.h"

G_BEGIN_DECLS

#define BPW_TYPE_MEMO_EXPORT (bpw_memo_export_get_type ())

G_DECLARE_FINAL_TYPE (BpwMemoExport, bpw_memo_export, BPW, MEMO_EXPORT, GObject)

/* Installs "win.export-memo" (Ctrl+Shift+E): the file chooser, then
 * bpw_memo_export_start(). */
void      _bpw_memo_export_class_init (GtkWidgetClass     *window_class);
/* Gives @window its memo export; the action is enabled while the study has a candidate
 * and a scenario and no memo is being written. */
void      _bpw_memo_export_attach     (BpwWindow          *window);

/* (transfer full): "@study's name-memo.pdf", without characters file systems refuse. */
char     *bpw_memo_export_suggest_name (BpwStudy          *study);
/* Starts writing the memo of @window's study to @file (a local file) and returns at once.
 * The comparison's baseline is the window's selected candidate. While it runs a spinner
 * turns beside the Export menu; then the window shows "Memo saved" with an Open button, or
 * the error naming the file. Refused (G_IO_ERROR_BUSY) while another memo is being written, and
 * (G_IO_ERROR_INVALID_ARGUMENT) for a study without candidates or scenarios. @callback
 * (nullable) runs once it is over, even after the window is gone (cancelled then), and
 * calls bpw_memo_export_finish(). */
void      bpw_memo_export_start       (BpwWindow          *window,
                                       GFile              *file,
                                       GAsyncReadyCallback callback,
                                       gpointer            user_data);
gboolean  bpw_memo_export_finish      (GAsyncResult       *result,
                                       GError            **error);
/* TRUE from bpw_memo_export_start() until its callback. */
gboolean  bpw_memo_export_get_running (BpwWindow          *window);
/* (nullable): the action's file chooser while it is open. */
GtkNativeDialog *bpw_memo_export_get_dialog (BpwWindow    *window);

G_END_DECLS
