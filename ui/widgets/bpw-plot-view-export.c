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
#include <math.h>

#include "bpw-export-chooser.h"
#include "bpw-lifetimes-plot.h"
#include "bpw-plot-export.h"
#include "bpw-plot-view-private.h"
#include "bpw-timeline-plot.h"

#define BPW_PLOT_VIEW_EXPORT_WIDTH 720.0
#define BPW_PLOT_VIEW_EXPORT_HEIGHT 405.0

/* Time charts export the time the user zoomed to: the plot's own time window, which
 * layouts without a viewport (exports) show. NaN restores the whole step. */
static void
bpw_plot_view_set_time_window (BpwPlotView *self,
                               double       t0,
                               double       t1)
{
  if (BPW_IS_TIMELINE_PLOT (self->plot))
    bpw_timeline_plot_set_time_window (BPW_TIMELINE_PLOT (self->plot), t0, t1);
  else if (BPW_IS_LIFETIMES_PLOT (self->plot))
    bpw_lifetimes_plot_set_time_window (BPW_LIFETIMES_PLOT (self->plot), t0, t1);
}

gboolean
bpw_plot_view_export (BpwPlotView *self,
                      const char  *path,
                      double       scale,
                      GError     **error)
{
  const char *dot;
  BpwPlotFormat format;
  BpwPlotStyle print;
  gboolean ok;

  g_return_val_if_fail (BPW_IS_PLOT_VIEW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (self->plot == NULL)
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
  if (self->zoomed)
    bpw_plot_view_set_time_window (self, self->viewport.x_min, self->viewport.x_max);
  bpw_plot_style_init_print (&print);
  print.decimal_bytes = self->decimal_bytes;
  ok = bpw_plot_export (self->plot, &print, format, BPW_PLOT_VIEW_EXPORT_WIDTH,
                        BPW_PLOT_VIEW_EXPORT_HEIGHT, scale, path, error);
  if (self->zoomed)
    bpw_plot_view_set_time_window (self, NAN, NAN);
  /* The export laid the plot out at its own size: the next frame lays it out again. */
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return ok;
}

gboolean
bpw_plot_view_export_to_file (BpwPlotView *self,
                              const char  *path,
                              GError     **error)
{
  return bpw_plot_view_export (self, path, 2.0, error);
}

static void
bpw_plot_view_export_response_cb (GtkNativeDialog *native,
                                  int              response,
                                  BpwPlotView     *self)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *dialog;
  double scale = 2.0;

  if (response == GTK_RESPONSE_ACCEPT)
    path = bpw_export_chooser_dup_path (GTK_FILE_CHOOSER_NATIVE (native), &scale);
  if (path != NULL && !bpw_plot_view_export (self, path, scale, &error))
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

  if (self->plot == NULL)
    return;
  native = bpw_export_chooser_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   bpw_plot_get_title (self->plot), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (bpw_plot_view_export_response_cb),
                    g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}
