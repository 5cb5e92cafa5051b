/* bpw-autosave.h — unsaved work written aside every half minute, and found again after a crash
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An autosave is a study file (written atomically, like a save) plus a small "FILE.origin"
 * beside it that names the file the study belongs to, if any. A clean save or close deletes
 * both; whatever is left at startup was not saved and can be recovered.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-study.h"

G_BEGIN_DECLS

#define BPW_AUTOSAVE_INTERVAL_SECONDS 30

#define BPW_TYPE_AUTOSAVE (bpw_autosave_get_type ())

G_DECLARE_FINAL_TYPE (BpwAutosave, bpw_autosave, BPW, AUTOSAVE, GObject)

/* g_get_user_state_dir()/blueprint-workbench */
GFile       *bpw_autosave_dup_default_dir (void);
/* "autosave.bpw" for @slot 0 or 1 (the first window), "autosave-N.bpw" for others. */
GFile       *bpw_autosave_dup_file_for_slot (GFile       *dir,
                                             guint        slot);
/* Autosaves left in @dir by an earlier run, oldest name first (element-type GFile). */
GPtrArray   *bpw_autosave_list_pending    (GFile       *dir);
/* Reads an autosave; @origin (nullable out, nullable result) is the file the study was
 * saved to before, so that recovering can save there again. */
BpwStudy    *bpw_autosave_load            (GFile       *file,
                                           GFile      **origin,
                                           GError     **error);
/* Deletes an autosave and its origin note; missing files are not an error. */
void         bpw_autosave_delete          (GFile       *file);

BpwAutosave *bpw_autosave_new             (GFile       *file);
GFile       *bpw_autosave_get_file        (BpwAutosave *self);
/* The study to write and where it was saved before (both nullable). */
void         bpw_autosave_set_study       (BpwAutosave *self,
                                           BpwStudy    *study,
                                           GFile       *origin);
/* Unsaved changes: writes within the interval unless saved or discarded first. */
void         bpw_autosave_mark_modified   (BpwAutosave *self);
gboolean     bpw_autosave_is_scheduled    (BpwAutosave *self);
/* Writes now (the timer's work); TRUE without writing when there is no study. */
gboolean     bpw_autosave_save_now        (BpwAutosave *self,
                                           GError     **error);
/* The work was saved or deliberately dropped: stops the timer and deletes the files this
 * object wrote (an earlier run's autosave of the same name is left to recovery). */
void         bpw_autosave_discard         (BpwAutosave *self);

G_END_DECLS
