/* bpw-plot-view-export.c — the view's chart to a file the user chooses
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exports use the print style at the memo figure size, not the screen's theme and window
 * size, so a figure looks the same whoever exports it (STYLE.md §7.8).
 */
#define G_LOG_DOMAIN "bpw-plot-view-export"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "bpw-plot-export.h"
#include "bpw-plot-view-private.h"

#define BPW_PLOT_VIEW_EXPORT_WIDTH 720.0
#define BPW_PLOT_VIEW_EXPORT_HEIGHT 405.0

gboolean
bpw_plot_view_export_to_file (BpwPlotView *self,
                              const char  *path,
                              GError     **error)
{
  BpwPlot *plot = bpw_plot_view_get_plot (self);
  const char *dot;
  BpwPlotFormat format;
  gboolean ok;

  g_return_val_if_fail (BPW_IS_PLOT_VIEW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (plot == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("There is no chart to export."));
      return FALSE;
    }
  dot = strrchr (path, '.');
  if (dot == NULL || strchr (dot, G_DIR_SEPARATOR) != NULL
      || !bpw_plot_format_from_string (dot + 1, &format))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: the file name must end in .png, .svg, .pdf or .csv."), path);
      return FALSE;
    }
  ok = bpw_plot_export (plot, NULL, format, BPW_PLOT_VIEW_EXPORT_WIDTH,
                        BPW_PLOT_VIEW_EXPORT_HEIGHT, 2.0, path, error);
  /* The export laid the plot out at its own size: the next frame lays it out again. */
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return ok;
}

static void
bpw_plot_view_export_response_cb (GtkNativeDialog *native,
                                  int              response,
                                  BpwPlotView     *self)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *dialog;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  if (file != NULL)
    path = g_file_get_path (file);
  if (path != NULL && !bpw_plot_view_export_to_file (self, path, &error))
    {
      dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                       _("Could Not Export the Chart"), error->message);
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
      gtk_window_present (GTK_WINDOW (dialog));
    }
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}

void
_bpw_plot_view_export_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  BpwPlotView *self = BPW_PLOT_VIEW (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkFileChooserNative *native;
  g_autofree char *name = NULL;
  const char *title;

  if (bpw_plot_view_get_plot (self) == NULL)
    return;
  native = gtk_file_chooser_native_new (_("Export Chart"),
                                        GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  title = bpw_plot_get_title (bpw_plot_view_get_plot (self));
  /* TRANSLATORS: the default file name of an exported chart without a title */
  name = g_strdup_printf ("%s.png", title != NULL && *title != '\0' ? title : _("chart"));
  g_strdelimit (name, "/\\:", '-');
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_signal_connect (native, "response", G_CALLBACK (bpw_plot_view_export_response_cb),
                    g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}
