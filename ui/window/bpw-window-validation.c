/* bpw-window-validation.c — the Validation page in the window, and measurements added to
 * the study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page validates a snapshot of the study whenever the window computes the Overview
 * (a new study, something added, an edit, undo or redo); an unchanged study costs only
 * the snapshot's comparison. Its calibrations come back as edits, undoable like the
 * inspector's. A profile opened in the window becomes a measurement of the selected
 * candidate on the selected scenario, also as an edit.
 */
#define G_LOG_DOMAIN "bpw-window-validation"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-window-private.h"

static gboolean
bpw_window_validation_apply_cb (BpwStudyEdit  *edit,
                                gpointer       user_data,
                                GError       **error)
{
  BpwWindow *self = BPW_WINDOW (user_data);
  /* The page labels its edits as what a toast says once they are done. */
  g_autofree char *label = g_strdup (bpw_study_edit_get_label (edit));

  if (!bpw_window_apply_edit (self, edit, error))
    return FALSE;
  if (label != NULL)
    _bpw_window_show_toast (self, label);
  return TRUE;
}

void
_bpw_window_validation_init (BpwWindow *self)
{
  bpw_validation_page_set_apply_func (self->validation_page, bpw_window_validation_apply_cb,
                                      self);
}

void
_bpw_window_validation_update (BpwWindow *self)
{
  bpw_validation_page_set_study (self->validation_page, self->study);
}

gboolean
_bpw_window_add_measurement (BpwWindow   *self,
                             const char  *path,
                             GError     **error)
{
  g_autofree char *label = NULL;
  g_autofree char *message = NULL;
  BpwStudyEdit *edit;
  const char *name;

  if (self->selected_candidate >= bpw_study_get_n_candidates (self->study)
      || self->selected_scenario >= bpw_study_get_n_scenarios (self->study))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s is a profile: it is added as a measurement of the selected candidate "
                     "on the selected scenario, so the study needs both first"), path);
      return FALSE;
    }
  /* Translators: an undoable edit; %s is a profile's file */
  label = g_strdup_printf (_("Add measurement %s"), path);
  edit = bpw_study_edit_new_measurement (self->study, self->selected_candidate,
                                         self->selected_scenario, path, label, error);
  if (edit == NULL)
    return FALSE;
  name = bpw_study_edit_get_target (edit);
  /* Translators: a measurement's name, a candidate's and a scenario's */
  message = g_strdup_printf (_("Added measurement “%s” of %s on %s"), name,
                             bpw_study_get_candidate (self->study,
                                                      self->selected_candidate)->name,
                             bpw_study_get_scenario (self->study,
                                                    self->selected_scenario)->name);
  if (!bpw_window_apply_edit (self, edit, error))
    return FALSE;
  _bpw_window_show_toast (self, message);
  return TRUE;
}
