/* bpw-window-dialogs.c — asking about unsaved changes, and offering to recover an autosave
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-window-dialogs"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-window-private.h"

typedef struct
{
  BpwWindowThen then;
  gpointer      argument;  /* owned: GFile for OPEN, string for TEMPLATE */
} BpwConfirm;

static void
bpw_confirm_free (gpointer data)
{
  BpwConfirm *confirm = data;

  if (confirm->then == BPW_WINDOW_THEN_OPEN)
    g_clear_object ((GFile **) &confirm->argument);
  else
    g_clear_pointer (&confirm->argument, g_free);
  g_free (confirm);
}

static void
bpw_window_then (BpwWindow *self,
                 gpointer   data)
{
  BpwConfirm *confirm = data;

  switch (confirm->then)
    {
    case BPW_WINDOW_THEN_CLOSE:
      self->close_confirmed = TRUE;
      gtk_window_close (GTK_WINDOW (self));
      break;
    case BPW_WINDOW_THEN_OPEN:
      bpw_window_open_file (self, confirm->argument, NULL);  /* a failure is a toast */
      break;
    case BPW_WINDOW_THEN_TEMPLATE:
      bpw_window_open_bundled (self, confirm->argument, NULL);
      break;
    default:
      g_assert_not_reached ();
    }
}

typedef struct
{
  BpwWindow  *self;
  BpwConfirm *confirm;
} BpwThenLater;

static gboolean
bpw_window_then_later_cb (gpointer data)
{
  BpwThenLater *later = data;

  bpw_window_then (later->self, later->confirm);
  bpw_confirm_free (later->confirm);
  g_object_unref (later->self);
  g_free (later);
  return G_SOURCE_REMOVE;
}

/* From an idle callback: the dialog's response handler must return, and the dialog close,
 * before the window it belongs to may go. */
static void
bpw_window_then_deferred (BpwWindow *self,
                          gpointer   data)
{
  BpwThenLater *later = g_new0 (BpwThenLater, 1);
  BpwConfirm *confirm = data;

  later->self = g_object_ref (self);
  later->confirm = g_memdup2 (confirm, sizeof *confirm);
  /* The copy owns the argument now. */
  confirm->argument = NULL;
  g_idle_add (bpw_window_then_later_cb, later);
}

static void
bpw_window_confirm_response_cb (AdwMessageDialog *dialog,
                                const char       *response,
                                BpwWindow        *self)
{
  BpwConfirm *confirm = g_object_steal_data (G_OBJECT (dialog), "bpw-confirm");

  if (confirm == NULL)
    return;
  if (g_strcmp0 (response, "save") == 0)
    /* Saving may need a file chooser first; what comes after waits for it. */
    _bpw_window_save_interactive (self, FALSE, bpw_window_then_deferred, confirm,
                                  bpw_confirm_free);
  else if (g_strcmp0 (response, "discard") == 0)
    {
      bpw_window_then_deferred (self, confirm);
      bpw_confirm_free (confirm);
    }
  else
    bpw_confirm_free (confirm);
}

void
_bpw_window_confirm_unsaved (BpwWindow     *self,
                             BpwWindowThen  then,
                             gpointer       argument)
{
  BpwConfirm *confirm = g_new0 (BpwConfirm, 1);
  GtkWidget *dialog;

  confirm->then = then;
  confirm->argument = argument;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("“%s” has unsaved changes. Changes which are not saved "
                                    "will be permanently lost."),
                                  bpw_study_get_name (self->study));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "bpw-confirm", confirm, bpw_confirm_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (bpw_window_confirm_response_cb),
                           self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
bpw_window_recovery_response_cb (AdwMessageDialog *dialog,
                                 const char       *response,
                                 BpwWindow        *self)
{
  GFile *autosave = g_object_get_data (G_OBJECT (dialog), "bpw-autosave");

  if (g_strcmp0 (response, "recover") == 0)
    bpw_window_recover (self, autosave, NULL);  /* a failure is a toast */
  else if (g_strcmp0 (response, "discard") == 0)
    bpw_autosave_delete (autosave);
  /* Closed otherwise: the autosave stays and is offered again next time. */
}

/* "today at 14:02" or "on 12/03/26 at 14:02": when the autosave was written. */
static char *
bpw_window_autosave_time (GFile *autosave)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GDateTime) written = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  info = g_file_query_info (autosave, G_FILE_ATTRIBUTE_TIME_MODIFIED,
                            G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL)
    return g_strdup ("");
  written = g_date_time_new_from_unix_local (
    (gint64) g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED));
  if (written == NULL)
    return g_strdup ("");
  if (g_date_time_get_year (written) == g_date_time_get_year (now)
      && g_date_time_get_day_of_year (written) == g_date_time_get_day_of_year (now))
    /* Translators: when an autosave was written today, %H:%M as in strftime */
    return g_date_time_format (written, _("today at %H:%M"));
  /* Translators: when an autosave was written, %x and %H:%M as in strftime */
  return g_date_time_format (written, _("on %x at %H:%M"));
}

void
bpw_window_offer_recovery (BpwWindow *self,
                           GFile     *autosave)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = NULL;
  g_autofree char *when = NULL;
  GtkWidget *dialog;

  g_return_if_fail (BPW_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (autosave));

  study = bpw_autosave_load (autosave, NULL, &error);
  if (study == NULL)
    {
      g_autofree char *broken = g_strconcat (g_file_peek_path (autosave), ".broken", NULL);
      g_autoptr(GFile) aside = g_file_new_for_path (broken);

      /* Not offered again, but not deleted either: it may still be worth a look. */
      g_file_move (autosave, aside, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, NULL);
      _bpw_window_show_toast (self, error->message);
      return;
    }

  when = bpw_window_autosave_time (autosave);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Recover Unsaved Study?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  /* Translators: %s is a study name, then a time */
                                  _("Blueprint Workbench closed before “%s” was saved. Its "
                                    "changes were autosaved %s."),
                                  bpw_study_get_name (study), when);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "discard", _("_Discard"),
                                    "recover", _("_Recover"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "recover",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "recover");
  g_object_set_data_full (G_OBJECT (dialog), "bpw-autosave", g_object_ref (autosave),
                          g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (bpw_window_recovery_response_cb),
                           self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}
