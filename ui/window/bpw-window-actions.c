/* bpw-window-actions.c — the window's actions, their shortcuts and the menus built at runtime
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-window-actions"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-memo-export.h"
#include "bpw-review-dialog.h"
#include "bpw-search-dialog.h"
#include "bpw-window-private.h"

#define BPW_RECENT_MAX 8

static const char * const page_names[] = {
  "overview", "sheet", "timeline", "memory", "roofline", "tradeoffs", "compare", "validation",
};

typedef struct
{
  BpwWindow      *self;
  void          (*done) (BpwWindow *self,
                         gpointer   data);
  gpointer        data;
  GDestroyNotify  destroy;
} BpwSaveOp;

static void
bpw_save_op_finish (BpwSaveOp *op,
                    gboolean   saved)
{
  if (saved && op->done != NULL)
    op->done (op->self, op->data);
  if (op->destroy != NULL)
    op->destroy (op->data);
  g_object_unref (op->self);
  g_free (op);
}

static GtkFileFilter *
bpw_window_json_filter (const char *name)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_mime_type (filter, "application/json");
  gtk_file_filter_add_suffix (filter, "json");
  gtk_file_filter_add_suffix (filter, "bpw");
  return filter;
}

void
_bpw_window_set_chooser_folder (BpwWindow      *self,
                                GtkFileChooser *chooser)
{
  g_autofree char *last_folder = NULL;
  g_autoptr(GFile) folder = NULL;

  if (self->file != NULL)
    folder = g_file_get_parent (self->file);
  else if (self->settings != NULL
           && (last_folder = g_settings_get_string (self->settings, "last-folder"))[0] != '\0')
    folder = g_file_new_for_path (last_folder);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (chooser, folder, NULL);
}

GFile *
_bpw_window_chooser_finish (GtkFileChooserNative *native,
                            int                   response)
{
  GFile *file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (native));
  g_object_unref (native);
  return file;
}

static void
bpw_window_open_response_cb (BpwWindow            *self,
                             int                   response,
                             GtkFileChooserNative *native)
{
  g_autoptr(GFile) file = _bpw_window_chooser_finish (native, response);

  if (file != NULL)
    _bpw_window_open_interactive (self, file);
}

static void
bpw_window_open_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  g_autoptr(GtkFileFilter) json = NULL;
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (_("Open"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  json = bpw_window_json_filter (_("Studies, Workloads and Blueprints (JSON)"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), json);
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), all);
  _bpw_window_set_chooser_folder (self, GTK_FILE_CHOOSER (native));

  g_signal_connect_object (native, "response", G_CALLBACK (bpw_window_open_response_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
bpw_window_save_response_cb (GtkFileChooserNative *native,
                             int                   response,
                             BpwSaveOp            *op)
{
  g_autoptr(GFile) file = _bpw_window_chooser_finish (native, response);
  gboolean saved = FALSE;

  if (file != NULL)
    {
      _bpw_window_remember_folder (op->self, file);
      saved = bpw_window_save_to_file (op->self, file, NULL);  /* a failure is a toast */
    }
  bpw_save_op_finish (op, saved);
}

/* "GPT-3 175B training" → "GPT-3 175B training.bpw-study.json", without characters that
 * file systems refuse. */
static char *
bpw_window_suggest_file_name (BpwWindow *self)
{
  g_autofree char *name = g_strdup (bpw_study_get_name (self->study));

  g_strdelimit (name, "/\\:*?\"<>|", '-');
  return g_strconcat (name, ".bpw-study.json", NULL);
}

void
_bpw_window_save_interactive (BpwWindow      *self,
                              gboolean        choose_file,
                              void          (*done) (BpwWindow *self,
                                                     gpointer   data),
                              gpointer        data,
                              GDestroyNotify  destroy)
{
  BpwSaveOp *op = g_new0 (BpwSaveOp, 1);
  g_autoptr(GtkFileFilter) json = NULL;
  g_autofree char *suggested = NULL;
  GtkFileChooserNative *native;

  op->self = g_object_ref (self);
  op->done = done;
  op->data = data;
  op->destroy = destroy;

  if (self->study == NULL)
    {
      bpw_save_op_finish (op, FALSE);
      return;
    }
  if (!choose_file && self->file != NULL)
    {
      bpw_save_op_finish (op, bpw_window_save_to_file (self, self->file, NULL));
      return;
    }

  native = gtk_file_chooser_native_new (_("Save Study"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  json = bpw_window_json_filter (_("Studies (JSON)"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), json);
  _bpw_window_set_chooser_folder (self, GTK_FILE_CHOOSER (native));
  if (self->file != NULL)
    gtk_file_chooser_set_file (GTK_FILE_CHOOSER (native), self->file, NULL);
  else
    {
      suggested = bpw_window_suggest_file_name (self);
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), suggested);
    }
  g_signal_connect (native, "response", G_CALLBACK (bpw_window_save_response_cb), op);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
bpw_window_save_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  _bpw_window_save_interactive (BPW_WINDOW (widget), FALSE, NULL, NULL, NULL);
}

static void
bpw_window_save_as_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  _bpw_window_save_interactive (BPW_WINDOW (widget), TRUE, NULL, NULL, NULL);
}

static void
bpw_window_new_from_template_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  const char *name = g_variant_get_string (parameter, NULL);

  /* The empty name is the empty study. */
  if (self->modified)
    _bpw_window_confirm_unsaved (self, BPW_WINDOW_THEN_TEMPLATE,
                                 name[0] != '\0' ? g_strdup (name) : NULL);
  else
    bpw_window_open_bundled (self, name[0] != '\0' ? name : NULL, NULL);
}

static void
bpw_window_open_recent_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  _bpw_window_open_interactive (BPW_WINDOW (widget), file);
}

static void
bpw_window_show_page_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->view_stack,
                                         g_variant_get_string (parameter, NULL));
}

static void
bpw_window_find_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->view_stack, "sheet");
  bpw_sheet_page_focus_search (self->sheet_page);
}

static void
bpw_window_search_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  GListModel *toplevels = gtk_window_get_toplevels ();  /* borrowed */

  /* The dialog does not block the window: a second Ctrl+Shift+F finds the one open for
   * the same candidate and scenario. */
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) dialog = g_list_model_get_item (toplevels, i);

      if (BPW_IS_SEARCH_DIALOG (dialog)
          && gtk_window_get_transient_for (dialog) == GTK_WINDOW (self)
          && bpw_search_dialog_get_candidate (BPW_SEARCH_DIALOG (dialog))
             == self->selected_candidate
          && bpw_search_dialog_get_scenario (BPW_SEARCH_DIALOG (dialog))
             == self->selected_scenario)
        {
          gtk_window_present (dialog);
          return;
        }
    }
  gtk_window_present (GTK_WINDOW (bpw_search_dialog_new (GTK_WINDOW (self), self->study,
                                                         self->selected_candidate,
                                                         self->selected_scenario)));
}

void
_bpw_window_close_searches (BpwWindow *self)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* borrowed */
  g_autoptr(GPtrArray) searches = g_ptr_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) dialog = g_list_model_get_item (toplevels, i);

      /* The review data's window edits the study being replaced: it goes too. */
      if ((BPW_IS_SEARCH_DIALOG (dialog) || BPW_IS_REVIEW_DIALOG (dialog))
          && gtk_window_get_transient_for (dialog) == GTK_WINDOW (self))
        g_ptr_array_add (searches, dialog);
    }
  /* Destroying changes the list: collected first. */
  for (guint i = 0; i < searches->len; i++)
    gtk_window_destroy (g_ptr_array_index (searches, i));
}

/* (workload): a scenario for it, with the command line's defaults. */
static void
bpw_window_add_scenario_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (bpw_window_add_scenario (self, g_variant_get_string (parameter, NULL), &error)
      == G_MAXUINT)
    _bpw_window_show_toast (self, error->message);
}

/* (workload, phase): a scenario of that phase for it ("train", "prefill", "decode"). */
static void
bpw_window_add_scenario_phase_action (GtkWidget  *widget,
                                      const char *action_name,
                                      GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  const char *workload, *phase_name;
  BpwWorkloadPhase phase;

  g_variant_get (parameter, "(&s&s)", &workload, &phase_name);
  if (!bpw_workload_phase_from_string (phase_name, &phase)
      || bpw_window_add_scenario_for_phase (self, workload, phase, &error) == G_MAXUINT)
    _bpw_window_show_toast (self, error != NULL ? error->message : phase_name);
}

/* (name, blueprint, mapping, mappings, label, scenario): a new candidate on the study's
 * blueprint @blueprint with the mapping objects @mapping and @mappings (JSON), added as one
 * undoable edit labelled @label, then selected on scenario @scenario. */
static void
bpw_window_promote_candidate_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) mapping = NULL;
  g_autoptr(JsonNode) mappings = NULL;
  const char *name, *blueprint, *mapping_text, *mappings_text, *label;
  BpwStudyEdit *edit;
  guint scenario, index;

  g_variant_get (parameter, "(&s&s&s&s&su)", &name, &blueprint, &mapping_text, &mappings_text,
                 &label, &scenario);
  if (self->study == NULL)
    return;
  if ((mapping = json_from_string (mapping_text, &error)) == NULL
      || (mappings = json_from_string (mappings_text, &error)) == NULL)
    {
      _bpw_window_show_toast (self, error->message);
      return;
    }
  edit = bpw_study_edit_new_candidate (self->study, name, blueprint, mapping, mappings, label);
  index = bpw_study_edit_get_index (edit);
  if (!bpw_window_apply_edit (self, edit, &error))
    {
      _bpw_window_show_toast (self, error->message);
      return;
    }
  bpw_window_select (self, index, scenario);
}

/* (blueprint): a bundled blueprint joins the study as a candidate that searches for its
 * best mapping, as one undoable edit, and is selected: the path from a model opened in the
 * window to a comparison needs no blueprint file. */
static void
bpw_window_add_candidate_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  const char *blueprint = g_variant_get_string (parameter, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autofree char *name = NULL;
  g_autofree char *label = NULL;
  BpwStudyEdit *edit;
  guint index;

  if (self->study == NULL)
    return;
  if ((bp = bpw_study_load_blueprint (self->study, blueprint, &error)) == NULL)
    {
      _bpw_window_show_toast (self, error->message);
      return;
    }
  name = g_strdup (bp->device != NULL ? bp->device : blueprint);
  for (guint i = 2; ; i++)
    {
      gboolean taken = FALSE;

      for (guint c = 0; c < bpw_study_get_n_candidates (self->study); c++)
        taken |= g_strcmp0 (bpw_study_get_candidate (self->study, c)->name, name) == 0;
      if (!taken)
        break;
      g_free (name);
      name = g_strdup_printf ("%s-%u", bp->device != NULL ? bp->device : blueprint, i);
    }
  /* Translators: an undoable edit; %s is a candidate accelerator */
  label = g_strdup_printf (_("Add candidate %s"), name);
  edit = bpw_study_edit_new_candidate (self->study, name, blueprint, NULL, NULL, label);
  index = bpw_study_edit_get_index (edit);
  if (!bpw_window_apply_edit (self, edit, &error))
    {
      _bpw_window_show_toast (self, error->message);
      return;
    }
  bpw_window_select (self, index, self->selected_scenario);
  /* Translators: %s is the name of a candidate accelerator */
  g_free (label);
  label = g_strdup_printf (_("Added candidate “%s”"), name);
  _bpw_window_show_toast (self, label);
}

static gboolean
bpw_window_review_apply_cb (BpwStudyEdit  *edit,
                            gpointer       user_data,
                            GError       **error)
{
  return bpw_window_apply_edit (BPW_WINDOW (user_data), edit, error);
}

/* The study's review data (owners, quality thresholds, evidence); one window per study. */
static void
bpw_window_review_data_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  BpwReviewDialog *dialog = _bpw_window_get_review_dialog (self);

  if (self->study == NULL)
    return;
  if (dialog == NULL)
    dialog = bpw_review_dialog_new (GTK_WINDOW (self), self->study,
                                    bpw_window_review_apply_cb, self);
  gtk_window_present (GTK_WINDOW (dialog));
}

BpwReviewDialog *
_bpw_window_get_review_dialog (BpwWindow *self)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* borrowed */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) dialog = g_list_model_get_item (toplevels, i);

      if (BPW_IS_REVIEW_DIALOG (dialog)
          && gtk_window_get_transient_for (dialog) == GTK_WINDOW (self)
          && bpw_review_dialog_get_study (BPW_REVIEW_DIALOG (dialog)) == self->study)
        return BPW_REVIEW_DIALOG (dialog);
    }
  return NULL;
}

static void
bpw_window_build_candidates_menu (BpwWindow *self)
{
  const char * const *names = bpw_blueprint_bundled_names ();

  g_menu_remove_all (self->candidates_menu);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (names[i], NULL);
      g_autoptr(GMenuItem) item = NULL;

      if (bp == NULL)
        continue;
      item = g_menu_item_new (bp->device != NULL ? bp->device : names[i], NULL);
      g_menu_item_set_action_and_target (item, "win.add-candidate", "s", names[i]);
      g_menu_append_item (self->candidates_menu, item);
    }
}

/* An array of (name, blueprint, mapping, source, scenario), the blueprint and mapping as
 * their native JSON: candidates from outside the study for the Trade-offs and Compare
 * pages (bpw_study_worker_add_candidate_for_scenario()). */
static void
bpw_window_show_in_pages_action (GtkWidget  *widget,
                                 const char *action_name,
                                 GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  BpwStudyWorker *tradeoffs = bpw_tradeoffs_page_get_worker (self->tradeoffs_page);
  BpwStudyWorker *compare = bpw_compare_page_get_worker (self->compare_page);
  const char *name, *blueprint_text, *mapping_text, *source, *scenario;
  GVariantIter iter;

  g_variant_iter_init (&iter, parameter);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &name, &blueprint_text, &mapping_text,
                              &source, &scenario))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) blueprint = NULL;
      BpwMapping mapping;

      bpw_mapping_init_defaults (&mapping);
      blueprint = bpw_blueprint_load_data (name, blueprint_text, -1, NULL, &error);
      if (blueprint == NULL
          || !bpw_mapping_load_data (name, mapping_text, -1, &mapping, NULL, &error))
        {
          bpw_mapping_clear (&mapping);
          _bpw_window_show_toast (self, error->message);
          continue;
        }
      bpw_study_worker_add_candidate_for_scenario (tradeoffs, name, blueprint, &mapping,
                                                   source, scenario);
      bpw_study_worker_add_candidate_for_scenario (compare, name, blueprint, &mapping, source,
                                                   scenario);
      bpw_mapping_clear (&mapping);
    }
}

static void
bpw_window_build_templates_menu (BpwWindow *self)
{
  const char * const *names = bpw_study_bundled_names ();

  g_menu_remove_all (self->templates_menu);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(BpwStudy) study = bpw_study_new_bundled (names[i], NULL);
      g_autoptr(GMenuItem) item = NULL;

      if (study == NULL)
        continue;
      item = g_menu_item_new (bpw_study_get_name (study), NULL);
      g_menu_item_set_action_and_target (item, "win.new-from-template", "s", names[i]);
      g_menu_append_item (self->templates_menu, item);
    }
  {
    g_autoptr(GMenuItem) item = g_menu_item_new (_("_Empty Study"), NULL);

    g_menu_item_set_action_and_target (item, "win.new-from-template", "s", "");
    g_menu_append_item (self->templates_menu, item);
  }
}

static int
bpw_window_compare_recent (gconstpointer a,
                           gconstpointer b)
{
  GDateTime *x = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *y = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return g_date_time_compare (y, x);  /* newest first */
}

static void
bpw_window_build_recent_menu (BpwWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  const char *app_name = g_get_application_name ();
  guint n = 0;

  g_menu_remove_all (self->recent_menu);
  items = g_list_sort (items, bpw_window_compare_recent);
  for (GList *l = items; l != NULL && n < BPW_RECENT_MAX; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      g_autoptr(GMenuItem) item = NULL;
      g_autofree char *label = NULL;
      g_auto(GStrv) parts = NULL;

      if (!gtk_recent_info_has_application (info, app_name) || !gtk_recent_info_is_local (info)
          || !gtk_recent_info_exists (info))
        continue;
      /* Underscores in file names are not mnemonics. */
      parts = g_strsplit (gtk_recent_info_get_display_name (info), "_", -1);
      label = g_strjoinv ("__", parts);
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target (item, "win.open-recent", "s",
                                         gtk_recent_info_get_uri (info));
      g_menu_append_item (self->recent_menu, item);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);

  if (n == 0)
    /* An item without an action shows greyed out. */
    g_menu_append (self->recent_menu, _("No Recent Files"), NULL);
}

void
_bpw_window_add_recent (BpwWindow *self,
                        GFile     *file)
{
  g_autofree char *uri = g_file_get_uri (file);

  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
}

void
_bpw_window_actions_update (BpwWindow *self)
{
  gboolean has_study = self->study != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save", has_study);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-as", has_study);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.search", has_study);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-candidate", has_study);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.review-data", has_study);
}

void
_bpw_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open", NULL, bpw_window_open_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, bpw_window_save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL,
                                   bpw_window_save_as_action);
  gtk_widget_class_install_action (widget_class, "win.new-from-template", "s",
                                   bpw_window_new_from_template_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s",
                                   bpw_window_open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.show-page", "s",
                                   bpw_window_show_page_action);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, bpw_window_find_action);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, bpw_window_search_action);
  gtk_widget_class_install_action (widget_class, "win.promote-candidate", "(sssssu)",
                                   bpw_window_promote_candidate_action);
  gtk_widget_class_install_action (widget_class, "win.show-in-pages", "a(sssss)",
                                   bpw_window_show_in_pages_action);
  gtk_widget_class_install_action (widget_class, "win.add-scenario", "s",
                                   bpw_window_add_scenario_action);
  gtk_widget_class_install_action (widget_class, "win.add-scenario-phase", "(ss)",
                                   bpw_window_add_scenario_phase_action);
  gtk_widget_class_install_action (widget_class, "win.add-candidate", "s",
                                   bpw_window_add_candidate_action);
  gtk_widget_class_install_action (widget_class, "win.review-data", NULL,
                                   bpw_window_review_data_action);
  _bpw_memo_export_class_init (widget_class);
  _bpw_window_class_packet_init (widget_class);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK,
                                       "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK,
                                       "win.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.save-as", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, GDK_CONTROL_MASK,
                                       "win.new-from-template", "s", "default");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK,
                                       "win.find", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK,
                                       "window.close", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (page_names); i++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_ALT_MASK,
                                         "win.show-page", "s", page_names[i]);
}

void
_bpw_window_actions_init (BpwWindow *self)
{
  bpw_window_build_templates_menu (self);
  bpw_window_build_candidates_menu (self);
  bpw_window_build_recent_menu (self);
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (bpw_window_build_recent_menu), self, G_CONNECT_SWAPPED);
  _bpw_memo_export_attach (self);
  _bpw_window_actions_update (self);
}
