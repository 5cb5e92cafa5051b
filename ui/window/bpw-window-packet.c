/* bpw-window-packet.c — "Export Review Packet…": the study's review packet to a file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The packet is built off the main thread on a copy of the study taken when the export
 * starts (bpw-review-packet-job.h), then written in one rename: JSON for a ".json" file,
 * else Markdown. A toast says where it went, or why it did not.
 */
#define G_LOG_DOMAIN "bpw-window-packet"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-review-packet-job.h"
#include "bpw-window-private.h"

static void
bpw_window_packet_built_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  BpwWindow *self = g_task_get_source_object (task);
  GFile *file = g_task_get_task_data (task);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *json = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GError) error = NULL;
  const char *decision = NULL;

  if (!bpw_review_packet_job_finish (result, &json, &markdown, &decision, &error)
      || !bpw_review_packet_job_write (path, json, markdown, &error))
    {
      /* Translators: "Could not export “packet.md”: <the reason>" */
      message = g_strdup_printf (_("Could not export “%s”: %s"), name, error->message);
      _bpw_window_show_toast (self, message);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Translators: %s: a file; then the packet's recommendation (go, conditional, no-go) */
  message = g_strdup_printf (_("Exported review packet “%s”: %s"), name, decision);
  _bpw_window_show_toast (self, message);
  g_task_return_boolean (task, TRUE);
}

void
bpw_window_export_packet (BpwWindow           *self,
                          GFile               *file,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (BPW_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, bpw_window_export_packet);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  if (self->study == NULL || g_file_peek_path (file) == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s",
                               _("There is no study to export, or the file is not local."));
      g_object_unref (task);
      return;
    }
  bpw_review_packet_job_run (self->study, NULL, bpw_window_packet_built_cb, task);
}

gboolean
bpw_window_export_packet_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result)
                        && g_task_get_source_tag (G_TASK (result)) == bpw_window_export_packet,
                        FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
bpw_window_packet_response_cb (BpwWindow            *self,
                               int                   response,
                               GtkFileChooserNative *native)
{
  g_autoptr(GFile) file = _bpw_window_chooser_finish (native, response);

  if (file != NULL)
    bpw_window_export_packet (self, file, NULL, NULL);
}

static void
bpw_window_export_packet_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  g_autoptr(GtkFileFilter) markdown = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) json = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  GtkFileChooserNative *native;

  if (self->study == NULL)
    return;
  native = gtk_file_chooser_native_new (_("Export Review Packet"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                        _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_filter_set_name (markdown, _("Markdown (.md)"));
  gtk_file_filter_add_suffix (markdown, "md");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), markdown);
  gtk_file_filter_set_name (json, _("JSON (.json)"));
  gtk_file_filter_add_suffix (json, "json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), json);
  _bpw_window_set_chooser_folder (self, GTK_FILE_CHOOSER (native));
  /* Translators: the default file name of the review packet; %s is the study's name */
  name = g_strdup_printf (_("%s-review-packet.md"), bpw_study_get_name (self->study));
  g_strdelimit (name, "/\\:*?\"<>|", '-');
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_signal_connect_object (native, "response", G_CALLBACK (bpw_window_packet_response_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

void
_bpw_window_class_packet_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.export-packet", NULL,
                                   bpw_window_export_packet_action);
}
