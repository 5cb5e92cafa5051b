/* bpw-memo-export.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-memo-export"

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "bpw-memo-export.h"

#include "bpw-file.h"

#include "bpw-memo-validation.h"
#include "bpw-memo.h"
#include "bpw-study-snapshot.h"
#include "bpw-toast.h"
#include "bpw-window-private.h"

#define BPW_MEMO_EXPORT_KEY "bpw-memo-export"

struct _BpwMemoExport
{
  GObject          parent_instance;

  /* Borrowed */
  BpwWindow       *window;       /* weak: NULL once the window is gone */
  GtkSpinner      *spinner;      /* the window's, shown while the memo is written */

  /* Owned references, each set only while its step lasts */
  GtkNativeDialog *dialog;       /* the file chooser */
  GCancellable    *cancellable;  /* of the memo being written */
  GFile           *file;         /* where it is being written */
};

G_DEFINE_FINAL_TYPE (BpwMemoExport, bpw_memo_export, G_TYPE_OBJECT)

/* What the worker reads: nothing of the window's. */
typedef struct
{
  BpwStudySnapshot *snapshot;
  char             *baseline;  /* nullable: the study's first candidate */
  GFile            *file;
  gboolean          decimal_bytes;  /* the window's units */
} BpwMemoJob;

static void
bpw_memo_job_free (BpwMemoJob *job)
{
  bpw_study_snapshot_unref (job->snapshot);
  g_free (job->baseline);
  g_object_unref (job->file);
  g_free (job);
}

static BpwMemoExport *
bpw_memo_export_get (BpwWindow *window)
{
  return g_object_get_data (G_OBJECT (window), BPW_MEMO_EXPORT_KEY);
}

/* libadwaita 1.2 crashes when a toast is dismissed early in its show animation, so the
 * progress is a spinner in the header bar, beside the Export menu, not a toast. */
static void
bpw_memo_export_show_progress (BpwMemoExport *self,
                               GFile         *file)
{
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : NULL;
  g_autofree char *tooltip = NULL;

  if (self->spinner == NULL)
    return;
  if (name != NULL)
    /* Translators: %s is the file name of the memo */
    tooltip = g_strdup_printf (_("Writing the memo “%s”…"), name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->spinner), tooltip);
  gtk_spinner_set_spinning (self->spinner, file != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), file != NULL);
}

static void
bpw_memo_export_update_action (BpwMemoExport *self)
{
  BpwStudy *study = bpw_window_get_study (self->window);

  gtk_widget_action_set_enabled (GTK_WIDGET (self->window), "win.export-memo",
                                 self->cancellable == NULL && study != NULL
                                 && bpw_study_get_n_candidates (study) > 0
                                 && bpw_study_get_n_scenarios (study) > 0);
}

static void
bpw_memo_export_close_dialog (BpwMemoExport *self)
{
  if (self->dialog == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->dialog, self);
  gtk_native_dialog_destroy (self->dialog);
  g_clear_object (&self->dialog);
}

/* The window is closing or gone: nobody is left to save the memo for. */
static void
bpw_memo_export_cancel (BpwMemoExport *self)
{
  bpw_memo_export_close_dialog (self);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

static void
bpw_memo_export_window_gone_cb (gpointer  data,
                                GObject  *where_the_window_was)
{
  BpwMemoExport *self = data;

  self->window = NULL;
  self->spinner = NULL;
  bpw_memo_export_cancel (self);
}

static gboolean
bpw_memo_export_close_request_cb (BpwMemoExport *self)
{
  /* Connected after the window's own handler, so it runs only when the window does close
   * (not when it asks about unsaved changes first). */
  bpw_memo_export_cancel (self);
  return GDK_EVENT_PROPAGATE;
}

/* Runs in the worker. The memo goes to a private temporary file; only a complete one, and
 * only when the export was not cancelled meanwhile, is copied over @job->file, through the
 * file writer's write-and-rename in the target's folder. */
static gboolean
bpw_memo_export_write (BpwMemoJob    *job,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GFile) folder = g_file_get_parent (job->file);
  g_autoptr(BpwStudy) study = NULL;
  g_autofree char *path = g_file_get_path (job->file);
  g_autofree char *tmp = NULL;
  g_autofree char *pdf = NULL;
  BpwMemoOptions options;
  gboolean ok;
  gsize length;
  int fd;

  if (path == NULL || folder == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("Memos can only be saved to local files."));
      return FALSE;
    }
  /* Before seconds of work that could not be saved anyway. */
  if (g_file_query_file_type (folder, G_FILE_QUERY_INFO_NONE, cancellable)
      != G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The folder “%s” does not exist."), g_file_peek_path (folder));
      return FALSE;
    }
  study = bpw_study_snapshot_load (job->snapshot, error);
  if (study == NULL || g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  fd = g_file_open_tmp ("bpw-memo-XXXXXX.pdf", &tmp, error);
  if (fd < 0)
    return FALSE;
  g_close (fd, NULL);

  bpw_memo_options_init (&options);
  bpw_memo_options_set_validation (&options, study);
  options.baseline = job->baseline;
  options.decimal_bytes = job->decimal_bytes;
  ok = bpw_memo_write_pdf (study, &options, tmp, error)
       && bpw_file_read (tmp, G_MAXSSIZE, &pdf, &length, error)  /* our own file */
       && !g_cancellable_set_error_if_cancelled (cancellable, error)
       && bpw_file_replace_contents (path, pdf, (gssize) length, error);
  g_unlink (tmp);
  return ok;
}

static void
bpw_memo_export_thread (GTask        *task,
                        gpointer      source_object,
                        gpointer      task_data,
                        GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;

  if (bpw_memo_export_write (task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
bpw_memo_export_shown_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!gtk_show_uri_full_finish (GTK_WINDOW (object), result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _bpw_window_show_toast (BPW_WINDOW (object), error->message);
}

static void
bpw_memo_export_open_cb (AdwToast *toast,
                         GFile    *file)
{
  BpwMemoExport *self = g_object_get_data (G_OBJECT (toast), BPW_MEMO_EXPORT_KEY);
  g_autofree char *uri = g_file_get_uri (file);

  if (self->window != NULL)
    gtk_show_uri_full (GTK_WINDOW (self->window), uri, GDK_CURRENT_TIME, NULL,
                       bpw_memo_export_shown_cb, NULL);
}

static void
bpw_memo_export_show_saved (BpwMemoExport *self,
                            GFile         *file)
{
  AdwToast *toast = adw_toast_new (_("Memo saved"));

  adw_toast_set_button_label (toast, _("_Open"));
  g_object_set_data_full (G_OBJECT (toast), BPW_MEMO_EXPORT_KEY, g_object_ref (self),
                          g_object_unref);
  g_signal_connect_data (toast, "button-clicked", G_CALLBACK (bpw_memo_export_open_cb),
                         g_object_ref (file), (GClosureNotify) (void (*) (void)) g_object_unref,
                         0);
  bpw_toast_show (self->window->toast_overlay, toast);
}

static void
bpw_memo_export_done_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  BpwMemoExport *self = BPW_MEMO_EXPORT (object);
  g_autoptr(GTask) outer = user_data;
  g_autoptr(GFile) file = g_steal_pointer (&self->file);
  g_autofree char *name = g_file_get_basename (file);
  g_autoptr(GError) error = NULL;

  g_clear_object (&self->cancellable);
  bpw_memo_export_show_progress (self, NULL);

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      /* Translators: "Could not save the memo “study-memo.pdf”: <the reason>" */
      g_prefix_error (&error, _("Could not save the memo “%s”: "), name);
      if (self->window != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _bpw_window_show_toast (self->window, error->message);
      g_task_return_error (outer, g_steal_pointer (&error));
    }
  else
    {
      if (self->window != NULL)
        bpw_memo_export_show_saved (self, file);
      g_task_return_boolean (outer, TRUE);
    }
  if (self->window != NULL)
    bpw_memo_export_update_action (self);
}

/* A request that cannot start: said in a toast, and to the caller. */
static void
bpw_memo_export_refuse (BpwMemoExport *self,
                        GTask         *outer,
                        int            code,
                        const char    *message)
{
  _bpw_window_show_toast (self->window, message);
  g_task_return_new_error (outer, G_IO_ERROR, code, "%s", message);
}

static void
bpw_memo_export_response_cb (BpwMemoExport        *self,
                             int                   response,
                             GtkFileChooserNative *native)
{
  g_autoptr(GFile) chosen = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *name = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    chosen = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  bpw_memo_export_close_dialog (self);
  if (chosen == NULL || self->window == NULL)
    return;

  /* The chooser's only filter is PDF: a name typed without the extension means one. */
  name = g_file_get_basename (chosen);
  if (name != NULL && !g_str_has_suffix (name, ".pdf") && !g_str_has_suffix (name, ".PDF"))
    {
      g_autoptr(GFile) folder = g_file_get_parent (chosen);
      g_autofree char *with_pdf = g_strconcat (name, ".pdf", NULL);

      file = folder != NULL ? g_file_get_child (folder, with_pdf) : g_object_ref (chosen);
    }
  else
    file = g_object_ref (chosen);
  _bpw_window_remember_folder (self->window, file);
  bpw_memo_export_start (self->window, file, NULL, NULL);
}

static void
bpw_memo_export_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  BpwWindow *window = BPW_WINDOW (widget);
  BpwMemoExport *self = bpw_memo_export_get (window);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  GtkFileChooserNative *native;

  if (self->dialog != NULL || bpw_window_get_study (window) == NULL)
    return;
  native = gtk_file_chooser_native_new (_("Export Memo"), GTK_WINDOW (window),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                        _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_filter_set_name (filter, _("PDF Document"));
  gtk_file_filter_add_mime_type (filter, "application/pdf");
  gtk_file_filter_add_suffix (filter, "pdf");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  _bpw_window_set_chooser_folder (window, GTK_FILE_CHOOSER (native));
  name = bpw_memo_export_suggest_name (bpw_window_get_study (window));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_signal_connect_object (native, "response", G_CALLBACK (bpw_memo_export_response_cb), self,
                           G_CONNECT_SWAPPED);
  self->dialog = GTK_NATIVE_DIALOG (native);
  gtk_native_dialog_show (self->dialog);
}

static void
bpw_memo_export_dispose (GObject *object)
{
  BpwMemoExport *self = BPW_MEMO_EXPORT (object);

  if (self->window != NULL)
    g_object_weak_unref (G_OBJECT (self->window), bpw_memo_export_window_gone_cb, self);
  self->window = NULL;
  bpw_memo_export_cancel (self);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);

  G_OBJECT_CLASS (bpw_memo_export_parent_class)->dispose (object);
}

static void
bpw_memo_export_class_init (BpwMemoExportClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = bpw_memo_export_dispose;
}

static void
bpw_memo_export_init (BpwMemoExport *self)
{
}

void
_bpw_memo_export_class_init (GtkWidgetClass *window_class)
{
  /* bpw-window.ui's spinner, found by name (no field in the window's struct). */
  gtk_widget_class_bind_template_child_full (window_class, "memo_spinner", FALSE, 0);
  gtk_widget_class_install_action (window_class, "win.export-memo", NULL,
                                   bpw_memo_export_action);
  gtk_widget_class_add_binding_action (window_class, GDK_KEY_e,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.export-memo",
                                       NULL);
}

void
_bpw_memo_export_attach (BpwWindow *window)
{
  BpwMemoExport *self = g_object_new (BPW_TYPE_MEMO_EXPORT, NULL);

  self->window = window;
  self->spinner = GTK_SPINNER (gtk_widget_get_template_child (GTK_WIDGET (window),
                                                              BPW_TYPE_WINDOW,
                                                              "memo_spinner"));
  g_object_weak_ref (G_OBJECT (window), bpw_memo_export_window_gone_cb, self);
  g_object_set_data_full (G_OBJECT (window), BPW_MEMO_EXPORT_KEY, self, g_object_unref);
  /* Every change of the study (opened, added to, edited) is computed again, and busy
   * turns off after it: the moment to look at its candidates and scenarios again. */
  g_signal_connect_object (window, "notify::busy",
                           G_CALLBACK (bpw_memo_export_update_action), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (window, "close-request",
                           G_CALLBACK (bpw_memo_export_close_request_cb), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  bpw_memo_export_update_action (self);
}

void
bpw_memo_export_start (BpwWindow          *window,
                       GFile              *file,
                       GAsyncReadyCallback callback,
                       gpointer            user_data)
{
  BpwMemoExport *self;
  BpwStudy *study;
  g_autoptr(GTask) outer = NULL;
  g_autoptr(GTask) task = NULL;
  BpwMemoJob *job;
  guint candidate;

  g_return_if_fail (BPW_IS_WINDOW (window));
  g_return_if_fail (G_IS_FILE (file));
  self = bpw_memo_export_get (window);
  g_return_if_fail (self != NULL);

  outer = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (outer, bpw_memo_export_start);
  study = bpw_window_get_study (window);
  if (self->cancellable != NULL)
    {
      bpw_memo_export_refuse (self, outer, G_IO_ERROR_BUSY,
                              _("A memo is being written already; wait until it is saved."));
      return;
    }
  if (study == NULL || bpw_study_get_n_candidates (study) == 0
      || bpw_study_get_n_scenarios (study) == 0)
    {
      bpw_memo_export_refuse (self, outer, G_IO_ERROR_INVALID_ARGUMENT,
                              _("A memo needs a candidate and a scenario in the study."));
      return;
    }

  job = g_new0 (BpwMemoJob, 1);
  job->snapshot = bpw_study_snapshot_new (study, NULL);
  candidate = bpw_window_get_selected_candidate (window);
  if (candidate < bpw_study_get_n_candidates (study))
    job->baseline = g_strdup (bpw_study_get_candidate (study, candidate)->name);
  job->file = g_object_ref (file);
  {
    g_autofree char *units = NULL;

    g_object_get (window, "units", &units, NULL);
    job->decimal_bytes = g_strcmp0 (units, "gb") == 0;
  }

  self->cancellable = g_cancellable_new ();
  self->file = g_object_ref (file);
  bpw_memo_export_show_progress (self, file);
  bpw_memo_export_update_action (self);

  task = g_task_new (self, self->cancellable, bpw_memo_export_done_cb,
                     g_steal_pointer (&outer));
  g_task_set_source_tag (task, bpw_memo_export_thread);
  g_task_set_task_data (task, job, (GDestroyNotify) bpw_memo_job_free);
  g_task_run_in_thread (task, bpw_memo_export_thread);
}

gboolean
bpw_memo_export_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == bpw_memo_export_start,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
bpw_memo_export_get_running (BpwWindow *window)
{
  BpwMemoExport *self;

  g_return_val_if_fail (BPW_IS_WINDOW (window), FALSE);
  self = bpw_memo_export_get (window);
  return self != NULL && self->cancellable != NULL;
}

GtkNativeDialog *
bpw_memo_export_get_dialog (BpwWindow *window)
{
  BpwMemoExport *self;

  g_return_val_if_fail (BPW_IS_WINDOW (window), NULL);
  self = bpw_memo_export_get (window);
  return self != NULL ? self->dialog : NULL;
}

char *
bpw_memo_export_suggest_name (BpwStudy *study)
{
  char *name;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);

  /* Translators: the default file name of the memo; %s is the study's name */
  name = g_strdup_printf (_("%s-memo.pdf"), bpw_study_get_name (study));
  g_strdelimit (name, "/\\:*?\"<>|", '-');
  return name;
}
