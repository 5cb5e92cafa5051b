/* bpw-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-window"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-window-private.h"

#include "bpw-core.h"
#include "bpw-toast.h"
#include "bpw-overview-item.h"

enum {
  PROP_0,
  PROP_SETTINGS,
  PROP_UNITS,
  PROP_BUSY,
  PROP_MODIFIED,
  PROP_SHOW_INSPECTOR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwWindow, bpw_window, ADW_TYPE_APPLICATION_WINDOW)

void
_bpw_window_show_toast (BpwWindow  *self,
                        const char *message)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *toast = adw_toast_new (escaped);

  /* Errors name a file, a line and a field: long enough to need time to read. */
  adw_toast_set_timeout (toast, 10);
  bpw_toast_show (self->toast_overlay, toast);
}

static gboolean
bpw_window_show_spinner_cb (gpointer data)
{
  BpwWindow *self = data;

  self->spinner_timeout = 0;
  gtk_spinner_set_spinning (self->spinner, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), TRUE);
  return G_SOURCE_REMOVE;
}

void
_bpw_window_set_busy (BpwWindow *self,
                      gboolean   busy)
{
  if (self->busy == busy)
    return;

  self->busy = busy;
  /* An edit is recomputed in milliseconds: a spinner that flashes on every keystroke would
   * only distract, so it shows for work that takes noticeably long. */
  g_clear_handle_id (&self->spinner_timeout, g_source_remove);
  if (busy)
    self->spinner_timeout = g_timeout_add (300, bpw_window_show_spinner_cb, self);
  else
    {
      gtk_spinner_set_spinning (self->spinner, FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);
    }
  bpw_overview_page_set_busy (self->overview_page, busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* "~/studies/gpu.bpw-study.json": where the study lives, short enough for a subtitle. */
static char *
bpw_window_dup_location (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  const char *home = g_get_home_dir ();

  if (path == NULL)
    return g_file_get_uri (file);
  if (home != NULL && g_str_has_prefix (path, home) && path[strlen (home)] == G_DIR_SEPARATOR)
    return g_strconcat ("~", path + strlen (home), NULL);
  return g_steal_pointer (&path);
}

static void
bpw_window_update_title (BpwWindow *self)
{
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;

  if (self->study == NULL)
    {
      title = g_strdup (_("Blueprint Workbench"));
      subtitle = g_strdup ("");
    }
  else
    {
      /* The dot is how GNOME applications mark a document with unsaved changes. */
      title = self->modified ? g_strconcat ("• ", bpw_study_get_name (self->study), NULL)
                             : g_strdup (bpw_study_get_name (self->study));
      if (self->file != NULL)
        subtitle = bpw_window_dup_location (self->file);
      else
        subtitle = g_strdup (_("Not saved yet"));
    }

  adw_window_title_set_title (self->study_title, title);
  adw_window_title_set_subtitle (self->study_title, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->study_title), title);
  adw_view_switcher_title_set_title (self->switcher_title, title);
  adw_view_switcher_title_set_subtitle (self->switcher_title, subtitle);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

void
_bpw_window_set_modified (BpwWindow *self,
                          gboolean   modified)
{
  if (modified)
    bpw_autosave_mark_modified (self->autosave);
  else
    {
      bpw_autosave_discard (self->autosave);  /* saved, or the changes were dropped */
      /* Undoing or redoing back to here is the saved study again. */
      self->saved_depth = self->undo->len;
    }

  if (self->modified == modified)
    return;
  self->modified = modified;
  bpw_window_update_title (self);
  _bpw_window_actions_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

void
_bpw_window_set_study (BpwWindow *self,
                       BpwStudy  *study,
                       GFile     *file)
{
  /* A search of the study shown before would promote into this one. */
  if (self->study != study)
    _bpw_window_close_searches (self);
  g_clear_object (&self->study);
  self->study = study;
  g_set_object (&self->file, file);
  bpw_autosave_set_study (self->autosave, study, file);
  _bpw_window_compute_reset (self);

  self->selecting = TRUE;
  bpw_sidebar_set_study (self->sidebar, study);
  self->selecting = FALSE;
  bpw_sheet_page_set_study (self->sheet_page, study);
  _bpw_window_edit_reset (self);
  _bpw_window_set_modified (self, FALSE);
  bpw_window_update_title (self);
  _bpw_window_actions_update (self);
  _bpw_window_compute (self);
}

void
_bpw_window_study_changed (BpwWindow *self)
{
  /* Something was added: every computation starts afresh, and no undo returns to the
   * saved study any more. */
  _bpw_window_compute_reset (self);
  self->selecting = TRUE;
  bpw_sidebar_set_study (self->sidebar, self->study);
  self->selecting = FALSE;
  bpw_sheet_page_set_study (self->sheet_page, self->study);
  bpw_inspector_set_study (self->inspector, self->study);
  g_clear_pointer (&self->sidebar_signature, g_free);
  if (self->selected_candidate == G_MAXUINT && bpw_study_get_n_candidates (self->study) > 0)
    self->selected_candidate = 0;
  if (self->selected_scenario == G_MAXUINT && bpw_study_get_n_scenarios (self->study) > 0)
    self->selected_scenario = 0;
  _bpw_window_sync_selection (self);
  _bpw_window_set_modified (self, TRUE);
  self->saved_depth = G_MAXUINT;
  _bpw_window_compute (self);
}

void
_bpw_window_remember_folder (BpwWindow *self,
                             GFile     *file)
{
  g_autoptr(GFile) folder = g_file_get_parent (file);

  if (self->settings != NULL && folder != NULL && g_file_peek_path (folder) != NULL)
    g_settings_set_string (self->settings, "last-folder", g_file_peek_path (folder));
}

static void
bpw_window_set_show_inspector (BpwWindow *self,
                               gboolean   show)
{
  if (self->inspector_revealer == NULL
      || gtk_revealer_get_reveal_child (self->inspector_revealer) == show)
    return;
  gtk_revealer_set_reveal_child (self->inspector_revealer, show);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_INSPECTOR]);
}

/* Picking a candidate, scenario or blueprint in the sidebar selects it everywhere and opens
 * it in the inspector: the sidebar is how one says "this one". */
static void
bpw_window_sidebar_selected_cb (BpwWindow *self)
{
  BpwSidebarItem *item = bpw_sidebar_get_selected_item (self->sidebar);
  guint index;

  if (item == NULL || self->selecting || self->study == NULL)
    return;
  index = bpw_sidebar_item_get_index (item);
  switch (bpw_sidebar_item_get_kind (item))
    {
    case BPW_SIDEBAR_ITEM_CANDIDATE:
      bpw_window_select (self, index, G_MAXUINT);
      bpw_inspector_show_page (self->inspector, "blueprint");
      break;
    case BPW_SIDEBAR_ITEM_SCENARIO:
      bpw_window_select (self, G_MAXUINT, index);
      bpw_inspector_show_page (self->inspector, "scenario");
      break;
    case BPW_SIDEBAR_ITEM_BLUEPRINT:
      bpw_window_select_blueprint (self, bpw_study_get_blueprints (self->study)[index]);
      bpw_inspector_show_page (self->inspector, "blueprint");
      break;
    case BPW_SIDEBAR_ITEM_HEADING:
    case BPW_SIDEBAR_ITEM_WORKLOAD:
    case BPW_SIDEBAR_ITEM_SUITE:
    case BPW_SIDEBAR_ITEM_EMPTY:
    default:
      return;
    }
  bpw_window_set_show_inspector (self, TRUE);
}

static gboolean
bpw_window_close_request (GtkWindow *window)
{
  BpwWindow *self = BPW_WINDOW (window);

  if (self->modified && !self->close_confirmed)
    {
      _bpw_window_confirm_unsaved (self, BPW_WINDOW_THEN_CLOSE, NULL);
      return GDK_EVENT_STOP;
    }

  /* Saved, or the changes were deliberately dropped: nothing is left to recover. */
  bpw_autosave_discard (self->autosave);
  bpw_job_queue_invalidate (self->jobs);
  return GTK_WINDOW_CLASS (bpw_window_parent_class)->close_request (window);
}

static void
bpw_window_constructed (GObject *object)
{
  BpwWindow *self = BPW_WINDOW (object);
  GtkApplicationWindow *window = GTK_APPLICATION_WINDOW (object);
  g_autoptr(GFile) dir = bpw_autosave_dup_default_dir ();
  g_autoptr(GFile) file = NULL;

  G_OBJECT_CLASS (bpw_window_parent_class)->constructed (object);

  /* The application numbers its windows from 1; each window autosaves to its own file,
   * the first (and a window without application) to "autosave.bpw". */
  file = bpw_autosave_dup_file_for_slot (dir, gtk_application_window_get_id (window));
  self->autosave = bpw_autosave_new (file);
}

static void
bpw_window_dispose (GObject *object)
{
  BpwWindow *self = (BpwWindow *) object;

  g_clear_pointer (&self->jobs, bpw_job_queue_free);
  g_clear_handle_id (&self->spinner_timeout, g_source_remove);
  _bpw_window_charts_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_WINDOW);

  g_clear_pointer (&self->last_batch, _bpw_compute_batch_unref);
  g_clear_pointer (&self->undo, g_ptr_array_unref);
  g_clear_pointer (&self->redo, g_ptr_array_unref);
  g_clear_pointer (&self->selected_blueprint, g_free);
  g_clear_pointer (&self->sidebar_signature, g_free);
  g_clear_object (&self->overview_items);
  g_clear_object (&self->rows);
  g_clear_object (&self->study);
  g_clear_object (&self->file);
  g_clear_object (&self->autosave);
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
    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;
    case PROP_SHOW_INSPECTOR:
      /* The property action asks while the template is being disposed, too. */
      g_value_set_boolean (value, self->inspector_revealer != NULL
                                  && gtk_revealer_get_reveal_child (self->inspector_revealer));
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
        bpw_overview_page_set_units (self->overview_page, units);
        bpw_sheet_page_set_units (self->sheet_page, units);
        bpw_compare_page_set_units (self->compare_page, units);
        bpw_inspector_set_units (self->inspector, units);
        _bpw_window_charts_set_units (self, units);
        g_object_notify_by_pspec (object, pspec);
      }
      break;
    case PROP_SHOW_INSPECTOR:
      bpw_window_set_show_inspector (self, g_value_get_boolean (value));
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
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = bpw_window_constructed;
  object_class->dispose = bpw_window_dispose;
  object_class->get_property = bpw_window_get_property;
  object_class->set_property = bpw_window_set_property;
  window_class->close_request = bpw_window_close_request;

  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UNITS] =
    g_param_spec_string ("units", NULL, NULL, "gib",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_INSPECTOR] =
    g_param_spec_boolean ("show-inspector", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (BPW_TYPE_SIDEBAR);
  g_type_ensure (BPW_TYPE_OVERVIEW_PAGE);
  g_type_ensure (BPW_TYPE_SHEET_PAGE);
  g_type_ensure (BPW_TYPE_TIMELINE_PAGE);
  g_type_ensure (BPW_TYPE_MEMORY_PAGE);
  g_type_ensure (BPW_TYPE_TRADEOFFS_PAGE);
  g_type_ensure (BPW_TYPE_COMPARE_PAGE);
  g_type_ensure (BPW_TYPE_VALIDATION_PAGE);
  g_type_ensure (BPW_TYPE_INSPECTOR);
  g_type_ensure (BPW_TYPE_PLOT_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-window.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, study_title);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, overview_page);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, sheet_page);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, timeline_page);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, memory_page);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, tradeoffs_page);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, compare_page);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, validation_page);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, roofline_view);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, assignment_view);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, inspector_revealer);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, inspector);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, templates_menu);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, candidates_menu);
  gtk_widget_class_bind_template_child (widget_class, BpwWindow, recent_menu);

  _bpw_window_class_actions_init (widget_class);
  _bpw_window_class_edit_init (widget_class);
  _bpw_window_class_charts_init (widget_class);
  gtk_widget_class_install_property_action (widget_class, "win.show-inspector",
                                            "show-inspector");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F9, 0, "win.show-inspector",
                                       NULL);
}

static void
bpw_window_init (BpwWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->jobs = bpw_job_queue_new ();
  self->rows = g_list_store_new (BPW_TYPE_FACTS_ROW);
  self->overview_items = g_list_store_new (BPW_TYPE_OVERVIEW_ITEM);
  bpw_overview_page_set_model (self->overview_page, G_LIST_MODEL (self->overview_items));
  /* The charts show the plan the Sheet binds: one binding for the table and the charts. */
  bpw_plot_view_set_plot (self->roofline_view,
                          bpw_sheet_page_get_roofline_plot (self->sheet_page));
  bpw_plot_view_set_plot (self->assignment_view,
                          bpw_sheet_page_get_assignment_plot (self->sheet_page));
  g_signal_connect_object (self->sidebar, "notify::selected-item",
                           G_CALLBACK (bpw_window_sidebar_selected_cb), self,
                           G_CONNECT_SWAPPED);

  _bpw_window_charts_init (self);
  _bpw_window_compare_init (self);
  _bpw_window_validation_init (self);
  _bpw_window_edit_init (self);
  _bpw_window_actions_init (self);
  _bpw_window_dnd_init (self);
  bpw_window_update_title (self);
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

  study = name != NULL ? bpw_study_new_bundled (name, &local_error) : bpw_study_new ();
  if (study == NULL)
    {
      _bpw_window_show_toast (self, local_error->message);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (name == NULL)
    bpw_study_set_name (study, _("Untitled Study"));

  _bpw_window_set_study (self, study, NULL);
  return TRUE;
}

BpwStudy *
bpw_window_get_study (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->study;
}

GFile *
bpw_window_get_file (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->file;
}

gboolean
bpw_window_get_modified (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return self->modified;
}

gboolean
bpw_window_get_busy (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return self->busy;
}

GListModel *
bpw_window_get_rows (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return G_LIST_MODEL (self->rows);
}

GListModel *
bpw_window_get_overview_items (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return G_LIST_MODEL (self->overview_items);
}

BpwSidebar *
bpw_window_get_sidebar (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->sidebar;
}

BpwSheetPage *
bpw_window_get_sheet_page (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->sheet_page;
}

BpwOverviewPage *
bpw_window_get_overview_page (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->overview_page;
}

AdwViewStack *
bpw_window_get_view_stack (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->view_stack;
}

BpwInspector *
bpw_window_get_inspector (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->inspector;
}

BpwAutosave *
bpw_window_get_autosave (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->autosave;
}
