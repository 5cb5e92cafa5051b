/* bpw-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "bpw-window-private.h"

#include "bpw-core.h"
#include "bpw-facts-details.h"
#include "bpw-facts-row.h"
#include "bpw-study.h"

struct _BpwWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwWindowTitle       *window_title;
  GtkSpinner           *spinner;
  AdwToastOverlay      *toast_overlay;
  GtkStack             *stack;
  GtkColumnView        *column_view;
  BpwFactsDetails      *details;

  /* Owned references */
  BpwStudy             *study;
  GListStore           *rows;
  GtkSortListModel     *sorted;
  GtkSingleSelection   *selection;
  GCancellable         *cancellable;
  GSettings            *settings;

  BpwByteUnits          units;
  guint                 generation;  /* of the study whose facts are being computed */
  gboolean              busy;
};

enum {
  PROP_0,
  PROP_SETTINGS,
  PROP_UNITS,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwWindow, bpw_window, ADW_TYPE_APPLICATION_WINDOW)

/* One scenario's inputs, copied out of the study so that the worker thread reads only
 * data nobody else touches. */
typedef struct
{
  char          *name;
  char          *suite;
  char          *workload;
  BpwModelSpec   spec;
  BpwScenario    scenario;
  BpwParallel    parallel;
} BpwFactsJob;

typedef struct
{
  BpwFactsJob *jobs;
  guint        n_jobs;
  guint        generation;
} BpwFactsBatch;

static void
bpw_facts_batch_free (BpwFactsBatch *batch)
{
  for (guint i = 0; i < batch->n_jobs; i++)
    {
      BpwFactsJob *job = &batch->jobs[i];

      g_free (job->name);
      g_free (job->suite);
      g_free (job->workload);
      bpw_model_spec_clear (&job->spec);
      bpw_scenario_clear (&job->scenario);
    }
  g_free (batch->jobs);
  g_free (batch);
}

static BpwFactsBatch *
bpw_facts_batch_new (BpwStudy *study,
                     guint     generation)
{
  BpwFactsBatch *batch = g_new0 (BpwFactsBatch, 1);

  batch->n_jobs = bpw_study_get_n_scenarios (study);
  batch->jobs = g_new0 (BpwFactsJob, batch->n_jobs);
  batch->generation = generation;

  for (guint i = 0; i < batch->n_jobs; i++)
    {
      const BpwStudyScenario *s = bpw_study_get_scenario (study, i);
      const BpwStudyWorkload *w = bpw_study_get_workload (study, s->workload);
      BpwFactsJob *job = &batch->jobs[i];

      job->name = g_strdup (s->name);
      job->suite = g_strdup (s->suite);
      job->workload = g_strdup (w->name);
      bpw_model_spec_copy (&job->spec, &w->spec);
      bpw_scenario_copy (&job->scenario, &s->scenario);
      job->parallel = s->parallel;
    }

  return batch;
}

static void
bpw_window_compute_thread (GTask        *task,
                           gpointer      source_object,
                           gpointer      task_data,
                           GCancellable *cancellable)
{
  BpwFactsBatch *batch = task_data;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < batch->n_jobs; i++)
    {
      const BpwFactsJob *job = &batch->jobs[i];
      g_autoptr(GError) error = NULL;
      BpwFacts facts;

      if (g_task_return_error_if_cancelled (task))
        return;

      memset (&facts, 0, sizeof facts);
      if (bpw_facts_compute (&job->spec, &job->scenario, &job->parallel, &facts, &error))
        g_ptr_array_add (rows, bpw_facts_row_new (job->name, job->suite, job->workload,
                                                  &job->scenario, &job->parallel, &facts, NULL));
      else
        {
          bpw_facts_clear (&facts);
          g_ptr_array_add (rows, bpw_facts_row_new (job->name, job->suite, job->workload,
                                                    &job->scenario, &job->parallel, NULL, error));
        }
    }

  g_task_return_pointer (task, g_steal_pointer (&rows), (GDestroyNotify) g_ptr_array_unref);
}

static void
bpw_window_show_toast (BpwWindow  *self,
                       const char *message,
                       guint       timeout)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_timeout (toast, timeout);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
bpw_window_set_busy (BpwWindow *self,
                     gboolean   busy)
{
  if (self->busy == busy)
    return;

  self->busy = busy;
  gtk_spinner_set_spinning (self->spinner, busy);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
bpw_window_update_details (BpwWindow *self)
{
  bpw_facts_details_set_row (self->details,
                             gtk_single_selection_get_selected_item (self->selection));
}

static void
bpw_window_update_title (BpwWindow *self)
{
  guint n_scenarios = 0;
  guint n_workloads = 0;
  g_autofree char *scenarios = NULL;
  g_autofree char *workloads = NULL;
  g_autofree char *subtitle = NULL;

  if (self->study == NULL)
    {
      adw_window_title_set_title (self->window_title, _("Blueprint Workbench"));
      adw_window_title_set_subtitle (self->window_title, NULL);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  n_scenarios = bpw_study_get_n_scenarios (self->study);
  n_workloads = bpw_study_get_n_workloads (self->study);
  scenarios = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u scenario", "%u scenarios",
                                            n_scenarios), n_scenarios);
  workloads = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u workload", "%u workloads",
                                            n_workloads), n_workloads);
  subtitle = g_strconcat (scenarios, " · ", workloads, NULL);
  adw_window_title_set_title (self->window_title, bpw_study_get_name (self->study));
  adw_window_title_set_subtitle (self->window_title, subtitle);
  gtk_stack_set_visible_child_name (self->stack, "table");
}

static void
bpw_window_compute_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  BpwWindow *self = BPW_WINDOW (object);
  BpwFactsBatch *batch = g_task_get_task_data (G_TASK (result));
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  guint n_failed = 0;
  const char *first_error = NULL;

  rows = g_task_propagate_pointer (G_TASK (result), &error);
  if (rows == NULL || batch->generation != self->generation)
    return;  /* cancelled, or a newer study has replaced this one */

  g_list_store_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                       rows->pdata, rows->len);

  for (guint i = 0; i < rows->len; i++)
    {
      const char *message = bpw_facts_row_get_error (g_ptr_array_index (rows, i));

      if (message != NULL && n_failed++ == 0)
        first_error = message;
    }
  if (n_failed > 0)
    {
      g_autofree char *message = NULL;

      message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                              "%u scenario has no facts: %s",
                                              "%u scenarios have no facts; the first: %s",
                                              n_failed), n_failed, first_error);
      bpw_window_show_toast (self, message, 10);
    }

  bpw_window_update_details (self);
  bpw_window_set_busy (self, FALSE);
}

/* Takes ownership of @study. */
static void
bpw_window_set_study (BpwWindow *self,
                      BpwStudy  *study)
{
  g_autoptr(GTask) task = NULL;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->generation++;

  g_clear_object (&self->study);
  self->study = study;
  g_list_store_remove_all (self->rows);
  bpw_window_update_title (self);
  bpw_window_update_details (self);
  bpw_window_set_busy (self, TRUE);

  task = g_task_new (self, self->cancellable, bpw_window_compute_cb, NULL);
  g_task_set_source_tag (task, bpw_window_set_study);
  g_task_set_task_data (task, bpw_facts_batch_new (study, self->generation),
                        (GDestroyNotify) bpw_facts_batch_free);
  g_task_run_in_thread (task, bpw_window_compute_thread);
}

static void
bpw_window_open_response_cb (BpwWindow            *self,
                             int                   response,
                             GtkFileChooserNative *native)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) folder = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (native));
  g_object_unref (native);

  if (file == NULL)
    return;

  folder = g_file_get_parent (file);
  if (self->settings != NULL && folder != NULL && g_file_peek_path (folder) != NULL)
    g_settings_set_string (self->settings, "last-folder", g_file_peek_path (folder));

  bpw_window_open_file (self, file, NULL);  /* a failure is shown as a toast */
}

static void
bpw_window_open_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  g_autoptr(GtkFileFilter) studies = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();
  g_autofree char *last_folder = NULL;
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (_("Open Study"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);

  gtk_file_filter_set_name (studies, _("Studies and Workloads (JSON)"));
  gtk_file_filter_add_mime_type (studies, "application/json");
  gtk_file_filter_add_suffix (studies, "json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), studies);
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), all);

  if (self->settings != NULL)
    last_folder = g_settings_get_string (self->settings, "last-folder");
  if (last_folder != NULL && last_folder[0] != '\0')
    {
      g_autoptr(GFile) folder = g_file_new_for_path (last_folder);

      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), folder, NULL);
    }

  g_signal_connect_object (native, "response", G_CALLBACK (bpw_window_open_response_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
bpw_window_open_default_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  bpw_window_open_bundled (BPW_WINDOW (widget), "default", NULL);
}

static void
bpw_window_dispose (GObject *object)
{
  BpwWindow *self = (BpwWindow *) object;

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_WINDOW);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->rows);
  g_clear_object (&self->study);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (bpw_window_parent_class)->dispose (object);
}

static void
bpw_window_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  BpwWindow *self = BPW_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    case PROP_UNITS:
      g_value_set_string (value, self->units == BPW_BYTE_UNITS_DECIMAL ? "gb" : "gib");
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_window_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  BpwWindow *self = BPW_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    case PROP_UNITS:
      {
        BpwByteUnits units = g_strcmp0 (g_value_get_string (value), "gb") == 0
                             ? BPW_BYTE_UNITS_DECIMAL : BPW_BYTE_UNITS_BINARY;

        if (units == self->units)
          break;
        self->units = units;
        /* Rebinding every visible cell is the simplest way to reformat them. */
        gtk_column_view_set_model (self->column_view, NULL);
        gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
        g_object_notify_by_pspec (object, pspec);
      }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_window_class_init (BpwWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_window_dispose;
  object_class->get_property = bpw_window_get_property;
  object_class->set_property = bpw_window_set_property;

  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UNITS] =
    g_param_spec_string ("units", NULL, NULL, "gib",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (BPW_TYPE_FACTS_DETAILS);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-window.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, column_view);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, details);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, bpw_window_open_action);
  gtk_widget_class_install_action (widget_class, "win.open-default", NULL,
                                   bpw_window_open_default_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK,
                                       "window.close", NULL);
}

static void
bpw_window_init (BpwWindow *self)
{
  GtkSorter *sorter;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);

  self->rows = g_list_store_new (BPW_TYPE_FACTS_ROW);
  _bpw_window_add_columns (self, self->column_view);
  sorter = gtk_column_view_get_sorter (self->column_view);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->rows)),
                                          g_object_ref (sorter));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (bpw_window_update_details), self, G_CONNECT_SWAPPED);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));

  bpw_window_update_title (self);
  bpw_window_update_details (self);
}

BpwWindow *
bpw_window_new (GtkApplication *application,
                GSettings      *settings)
{
  g_return_val_if_fail (application == NULL || GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (settings == NULL || G_IS_SETTINGS (settings), NULL);

  return g_object_new (BPW_TYPE_WINDOW,
                       "application", application,
                       "settings", settings,
                       NULL);
}

gboolean
bpw_window_open_bundled (BpwWindow   *self,
                         const char  *name,
                         GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  BpwStudy *study;

  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  study = bpw_study_new_bundled (name, &local_error);
  if (study == NULL)
    {
      bpw_window_show_toast (self, local_error->message, 10);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  bpw_window_set_study (self, study);
  return TRUE;
}

gboolean
bpw_window_open_file (BpwWindow  *self,
                      GFile      *file,
                      GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  BpwStudy *study = NULL;

  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (&local_error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: only local files can be opened"), uri);
    }
  else
    study = bpw_study_new_from_file (path, &local_error);

  if (study == NULL)
    {
      bpw_window_show_toast (self, local_error->message, 10);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  bpw_window_set_study (self, study);
  return TRUE;
}

BpwByteUnits
_bpw_window_get_units (BpwWindow *self)
{
  return self->units;
}

BpwStudy *
bpw_window_get_study (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->study;
}

GListModel *
bpw_window_get_rows (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return G_LIST_MODEL (self->rows);
}

gboolean
bpw_window_get_busy (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return self->busy;
}
