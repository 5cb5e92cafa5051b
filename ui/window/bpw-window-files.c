/* bpw-window-files.c — opening studies, adding workloads and blueprints, saving, dropping
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-window-files"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-window-private.h"

#include "bpw-core.h"
#include "bpw-toast.h"

typedef enum
{
  BPW_FILE_STUDY,
  BPW_FILE_WORKLOAD,
  BPW_FILE_BLUEPRINT,
  BPW_FILE_PROFILE,
} BpwFileKind;

/* A trace: an object with "traceEvents" (Chrome, Perfetto, PyTorch's kineto), or a bare
 * array of events (the autograd profiler's export). */
static gboolean
bpw_window_is_profile (JsonNode *root)
{
  JsonArray *events;

  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    return json_object_has_member (json_node_get_object (root), "traceEvents");
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return FALSE;
  events = json_node_get_array (root);
  return json_array_get_length (events) > 0
         && JSON_NODE_HOLDS_OBJECT (json_array_get_element (events, 0))
         && json_object_has_member (json_array_get_object_element (events, 0), "ph");
}

/* Judged by content, as the command line does: the native "format", else the shape of a
 * Hugging Face config or a Calculon file. */
static gboolean
bpw_window_detect_kind (const char   *path,
                        BpwFileKind  *kind,
                        GError      **error)
{
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_file (path, error);
  JsonNode *root;
  JsonNode *format = NULL;

  if (doc == NULL)
    return FALSE;
  root = bpw_json_doc_get_root (doc);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    format = json_object_get_member (json_node_get_object (root), "format");

  if (format != NULL && JSON_NODE_HOLDS_VALUE (format)
      && g_strcmp0 (json_node_get_string (format), "bpw-study") == 0)
    *kind = BPW_FILE_STUDY;
  else if (bpw_blueprint_detect_format (root) != BPW_BLUEPRINT_FORMAT_UNKNOWN)
    *kind = BPW_FILE_BLUEPRINT;
  else if (bpw_workload_detect_format (root) != BPW_WORKLOAD_FORMAT_UNKNOWN)
    *kind = BPW_FILE_WORKLOAD;
  else if (bpw_window_is_profile (root))
    *kind = BPW_FILE_PROFILE;
  else if (bpw_calculon_execution_detect (root))
    return bpw_json_doc_error (doc, root, "", error, "%s",
                               _("a Calculon execution file describes how to run a model, "
                                 "not a model or a system; evaluate it with its model from "
                                 "the command line (bpw evaluate MODEL --execution FILE)"));
  else
    return bpw_json_doc_error (doc, root, "", error, "%s",
                               _("not a study, workload, blueprint or profile: expected "
                                 "\"format\": \"bpw-study\", \"bpw-workload\" or "
                                 "\"bpw-blueprint\", a Hugging Face config.json, a Calculon "
                                 "model or system file, or a Chrome, Perfetto or PyTorch "
                                 "profiler trace"));
  return TRUE;
}

/* @base, or @base-2, @base-3, ...: the first that @taken does not know. */
static char *
bpw_window_unique_name (const char  *base,
                        gboolean   (*taken) (BpwStudy *, const char *),
                        BpwStudy    *study)
{
  char *name = g_strdup (base);

  for (guint i = 2; taken (study, name); i++)
    {
      g_free (name);
      name = g_strdup_printf ("%s-%u", base, i);
    }
  return name;
}

static gboolean
bpw_window_workload_taken (BpwStudy   *study,
                           const char *name)
{
  return bpw_study_lookup_workload (study, name, NULL);
}

static gboolean
bpw_window_candidate_taken (BpwStudy   *study,
                            const char *name)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (g_strcmp0 (bpw_study_get_candidate (study, i)->name, name) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
bpw_window_add_workload (BpwWindow   *self,
                         const char  *path,
                         GError     **error)
{
  BpwModelSpec spec = { 0 };
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;
  gboolean ok;

  if (!bpw_workload_load (path, &spec, error))
    {
      bpw_model_spec_clear (&spec);
      return FALSE;
    }
  name = bpw_window_unique_name (spec.name != NULL && spec.name[0] != '\0' ? spec.name
                                                                            : "workload",
                                 bpw_window_workload_taken, self->study);
  /* The absolute path keeps the reference valid wherever the study is saved. */
  ok = bpw_study_add_workload (self->study, name, &spec, path, error);
  bpw_model_spec_clear (&spec);
  if (!ok)
    return FALSE;

  /* A workload alone is not evaluated: the toast offers the next step, a scenario. */
  {
    g_autofree char *escaped = NULL;
    AdwToast *toast;

    /* Translators: %s is the name of a workload */
    message = g_strdup_printf (_("Added workload “%s”"), name);
    escaped = g_markup_escape_text (message, -1);
    toast = adw_toast_new (escaped);
    adw_toast_set_button_label (toast, _("Add a _Scenario"));
    adw_toast_set_action_name (toast, "win.add-scenario");
    adw_toast_set_action_target (toast, "s", name);
    adw_toast_set_timeout (toast, 10);
    bpw_toast_show (self->toast_overlay, toast);
  }
  return TRUE;
}

static gboolean
bpw_window_scenario_taken (BpwStudy   *study,
                           const char *name)
{
  return bpw_study_lookup_scenario (study, name, NULL);
}

guint
bpw_window_add_scenario (BpwWindow   *self,
                         const char  *workload,
                         GError     **error)
{
  return bpw_window_add_scenario_for_phase (self, workload, BPW_WORKLOAD_TRAIN, error);
}

guint
bpw_window_add_scenario_for_phase (BpwWindow         *self,
                                   const char        *workload,
                                   BpwWorkloadPhase   phase,
                                   GError           **error)
{
  const BpwStudyWorkload *w;
  BpwScenario scenario;
  BpwParallel parallel;
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;
  guint index;

  g_return_val_if_fail (BPW_IS_WINDOW (self), G_MAXUINT);
  g_return_val_if_fail (workload != NULL, G_MAXUINT);

  if (self->study == NULL || !bpw_study_lookup_workload (self->study, workload, &index))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("The study has no workload named “%s”."), workload);
      return G_MAXUINT;
    }
  w = bpw_study_get_workload (self->study, index);
  /* The command line's defaults: one device training one sequence of the model's
   * default length; the inspector changes them. */
  bpw_scenario_init_defaults (&scenario);
  bpw_parallel_init_defaults (&parallel);
  scenario.phase = phase;
  scenario.seq = bpw_scenario_default_seq (&w->spec);
  /* Decode continues a prompt of the default length (the command line's --context). */
  if (phase == BPW_WORKLOAD_DECODE)
    scenario.context = scenario.seq;
  base = g_strdup_printf ("%s-%s", workload, bpw_workload_phase_to_string (scenario.phase));
  name = bpw_window_unique_name (base, bpw_window_scenario_taken, self->study);
  if (!bpw_study_add_scenario (self->study, name, workload, &scenario, &parallel, error))
    return G_MAXUINT;

  index = bpw_study_get_n_scenarios (self->study) - 1;
  _bpw_window_study_changed (self);
  bpw_window_select (self, self->selected_candidate, index);
  /* Translators: %s is the name of a scenario */
  message = g_strdup_printf (_("Added scenario “%s”"), name);
  _bpw_window_show_toast (self, message);
  return index;
}

static gboolean
bpw_window_add_blueprint (BpwWindow   *self,
                          const char  *path,
                          GError     **error)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_file (path, NULL, error);
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;

  if (bp == NULL)
    return FALSE;
  if (g_strv_contains (bpw_study_get_blueprints (self->study), path))
    {
      message = g_strdup_printf (_("%s is already part of the study"), path);
      _bpw_window_show_toast (self, message);
      return TRUE;
    }
  name = bpw_window_unique_name (bp->device != NULL ? bp->device : bp->name,
                                 bpw_window_candidate_taken, self->study);
  /* A blueprint becomes a candidate with the best mapping, so that it joins the
   * comparison at once. */
  if (!bpw_study_add_candidate (self->study, name, path, NULL, error))
    return FALSE;
  bpw_study_add_blueprint (self->study, path);

  /* Translators: %s is the name of a candidate accelerator */
  message = g_strdup_printf (_("Added candidate “%s”"), name);
  _bpw_window_show_toast (self, message);
  return TRUE;
}

gboolean
bpw_window_file_is_study (GFile *file)
{
  g_autofree char *path = NULL;
  BpwFileKind kind;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  path = g_file_get_path (file);
  return path != NULL && bpw_window_detect_kind (path, &kind, NULL) && kind == BPW_FILE_STUDY;
}

gboolean
bpw_window_open_file (BpwWindow  *self,
                      GFile      *file,
                      GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  BpwFileKind kind = BPW_FILE_STUDY;
  gboolean ok = FALSE;

  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (&local_error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: only local files can be opened"), uri);
    }
  else if (bpw_window_detect_kind (path, &kind, &local_error))
    {
      if (kind == BPW_FILE_STUDY)
        {
          BpwStudy *study = bpw_study_new_from_file (path, &local_error);

          if ((ok = study != NULL))
            _bpw_window_set_study (self, study, file);
        }
      else if (self->study == NULL)
        {
          /* Something to add to: an empty study. */
          bpw_window_open_bundled (self, NULL, NULL);
        }

      /* A measurement is an edit, which updates the pages itself. */
      if (kind == BPW_FILE_PROFILE)
        ok = _bpw_window_add_measurement (self, path, &local_error);
      else if (kind != BPW_FILE_STUDY)
        {
          ok = kind == BPW_FILE_WORKLOAD ? bpw_window_add_workload (self, path, &local_error)
                                         : bpw_window_add_blueprint (self, path, &local_error);
          if (ok)
            _bpw_window_study_changed (self);
        }
    }

  if (!ok)
    {
      _bpw_window_show_toast (self, local_error->message);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  _bpw_window_add_recent (self, file);
  return TRUE;
}

gboolean
bpw_window_save_to_file (BpwWindow  *self,
                         GFile      *file,
                         GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (self->study != NULL, FALSE);

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (&local_error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: studies can only be saved to local files"), uri);
    }
  if (path == NULL || !bpw_study_save_to_file (self->study, path, &local_error))
    {
      _bpw_window_show_toast (self, local_error->message);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  g_set_object (&self->file, file);
  bpw_autosave_set_study (self->autosave, self->study, file);
  _bpw_window_set_modified (self, FALSE);
  _bpw_window_add_recent (self, file);
  return TRUE;
}

gboolean
bpw_window_recover (BpwWindow  *self,
                    GFile      *autosave,
                    GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GFile) origin = NULL;
  BpwStudy *study;

  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (autosave), FALSE);

  study = bpw_autosave_load (autosave, &origin, &local_error);
  if (study == NULL)
    {
      _bpw_window_show_toast (self, local_error->message);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  _bpw_window_set_study (self, study, origin);
  _bpw_window_set_modified (self, TRUE);
  /* This window's own autosave takes over at once, so that nothing is unprotected in
   * between; then the old one can go. */
  if (!bpw_autosave_save_now (self->autosave, &local_error))
    {
      _bpw_window_show_toast (self, local_error->message);
      return TRUE;
    }
  if (!g_file_equal (autosave, bpw_autosave_get_file (self->autosave)))
    bpw_autosave_delete (autosave);
  return TRUE;
}

void
_bpw_window_open_interactive (BpwWindow *self,
                              GFile     *file)
{
  _bpw_window_remember_folder (self, file);
  if (self->modified && bpw_window_file_is_study (file))
    _bpw_window_confirm_unsaved (self, BPW_WINDOW_THEN_OPEN, g_object_ref (file));
  else
    bpw_window_open_file (self, file, NULL);  /* a failure is shown as a toast */
}

static gboolean
bpw_window_drop_cb (GtkDropTarget *target,
                    const GValue  *value,
                    double         x,
                    double         y,
                    BpwWindow     *self)
{
  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      GSList *files = gdk_file_list_get_files (g_value_get_boxed (value));

      for (GSList *l = files; l != NULL; l = l->next)
        _bpw_window_open_interactive (self, l->data);
      g_slist_free (files);
      return TRUE;
    }
  if (G_VALUE_HOLDS (value, G_TYPE_FILE))
    {
      _bpw_window_open_interactive (self, g_value_get_object (value));
      return TRUE;
    }
  return FALSE;
}

void
_bpw_window_dnd_init (BpwWindow *self)
{
  GtkDropTarget *target = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);

  gtk_drop_target_set_gtypes (target, (GType[]) { GDK_TYPE_FILE_LIST, G_TYPE_FILE }, 2);
  g_signal_connect_object (target, "drop", G_CALLBACK (bpw_window_drop_cb), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
}
