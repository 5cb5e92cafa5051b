/* test-study-files.c — adding workloads and blueprints, saving, unsaved changes in the title,
 * and the question before closing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-study-files"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "bpw-ui-test-util.h"

static char *scratch_dir;

static GFile *
fixture (const char *first,
         ...)
{
  g_autofree char *path = NULL;
  va_list args;
  GString *relative = g_string_new (first);
  const char *part;

  va_start (args, first);
  while ((part = va_arg (args, const char *)) != NULL)
    g_string_append_printf (relative, "%c%s", G_DIR_SEPARATOR, part);
  va_end (args);
  path = g_test_build_filename (G_TEST_DIST, "data", relative->str, NULL);
  g_string_free (relative, TRUE);
  return g_file_new_for_path (path);
}

static gboolean
sidebar_has (BpwWindow          *window,
             BpwSidebarItemKind  kind,
             const char         *title)
{
  GListModel *items = bpw_sidebar_get_items (bpw_window_get_sidebar (window));

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(BpwSidebarItem) item = g_list_model_get_item (items, i);

      if (bpw_sidebar_item_get_kind (item) == kind
          && g_strcmp0 (bpw_sidebar_item_get_title (item), title) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
test_open_workload_adds_it (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  guint n_workloads = bpw_study_get_n_workloads (study);
  g_autoptr(GFile) hf = fixture ("hf", "mistral-7b.json", NULL);
  g_autoptr(GFile) calculon = fixture ("calculon", "gpt3-175B.json", NULL);
  g_autoptr(GFile) execution = fixture ("calculon", "gpt3-175B_full.execution.json", NULL);
  g_autoptr(GError) error = NULL;
  const BpwStudyWorkload *added;

  /* A Hugging Face config joins the study: same study object, one more workload. */
  g_assert_true (bpw_window_open_file (window, hf, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_window_get_study (window) == study);
  g_assert_cmpuint (bpw_study_get_n_workloads (study), ==, n_workloads + 1);
  added = bpw_study_get_workload (study, n_workloads);
  /* Mistral 7B: 32 layers of width 4096, 8 key/value heads. */
  g_assert_cmpint (added->spec.layers, ==, 32);
  g_assert_cmpint (added->spec.hidden, ==, 4096);
  g_assert_cmpint (added->spec.kv_heads, ==, 8);
  g_assert_true (g_path_is_absolute (added->model_ref));
  g_assert_true (sidebar_has (window, BPW_SIDEBAR_ITEM_WORKLOAD, added->name));
  g_assert_true (bpw_window_get_modified (window));

  /* A Calculon model file too; the scenarios stay as they were. */
  g_assert_true (bpw_window_open_file (window, calculon, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_workloads (study), ==, n_workloads + 2);
  g_assert_cmpuint (bpw_study_get_n_scenarios (study), ==, 3);

  /* An execution file is neither: refused with a reason, nothing added. */
  g_assert_false (bpw_window_open_file (window, execution, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "execution"));
  g_clear_error (&error);
  g_assert_cmpuint (bpw_study_get_n_workloads (study), ==, n_workloads + 2);

  bpw_test_wait_window (window);
  /* Modified: closing asks first, which these tests answer elsewhere. */
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The sidebar's visible button that adds a scenario for @workload, or NULL. */
static GtkWidget *
find_add_scenario (GtkWidget  *widget,
                   const char *workload)
{
  if (GTK_IS_BUTTON (widget) && gtk_widget_get_visible (widget)
      && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)),
                    "win.add-scenario") == 0)
    {
      GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (widget));

      if (target != NULL && g_strcmp0 (g_variant_get_string (target, NULL), workload) == 0)
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_add_scenario (child, workload);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A workload opened in the window leads on: a scenario for it, with the command line's
 * defaults, from its sidebar row or the toast's button; the Overview evaluates every
 * candidate on it, and it is selected for the pages and the search. */
static void
test_add_scenario_for_workload (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  g_autoptr(GFile) hf = fixture ("hf", "gpt2-config.json", NULL);
  g_autoptr(GError) error = NULL;
  guint n_scenarios = bpw_study_get_n_scenarios (study);
  guint n_workloads = bpw_study_get_n_workloads (study);
  const BpwStudyWorkload *added;
  const BpwStudyScenario *scenario;
  GListModel *items;
  GtkWidget *button;
  guint on_it = 0;

  g_assert_true (bpw_window_open_file (window, hf, &error));
  g_assert_no_error (error);
  added = bpw_study_get_workload (study, n_workloads);
  bpw_test_wait_window (window);
  button = find_add_scenario (GTK_WIDGET (bpw_window_get_sidebar (window)), added->name);
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (bpw_study_get_n_scenarios (study), ==, n_scenarios + 1);
  scenario = bpw_study_get_scenario (study, n_scenarios);
  g_assert_cmpuint (scenario->workload, ==, n_workloads);
  /* bpw facts's defaults: training one sequence on one device; GPT-2's learned position
   * table (1024) is the sequence. */
  g_assert_cmpint (scenario->scenario.phase, ==, BPW_WORKLOAD_TRAIN);
  g_assert_cmpint (scenario->scenario.seq, ==, 1024);
  g_assert_cmpint (scenario->scenario.seq, ==, bpw_scenario_default_seq (&added->spec));
  g_assert_cmpint (scenario->scenario.global_batch, ==, 1);
  g_assert_cmpint (bpw_parallel_devices (&scenario->parallel), ==, 1);
  g_assert_cmpuint (bpw_window_get_selected_scenario (window), ==, n_scenarios);
  g_assert_true (sidebar_has (window, BPW_SIDEBAR_ITEM_SCENARIO, scenario->name));

  /* The Overview evaluates every candidate on it. */
  bpw_test_wait_window (window);
  items = bpw_window_get_overview_items (window);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(BpwOverviewItem) item = g_list_model_get_item (items, i);

      on_it += g_strcmp0 (bpw_overview_item_get_scenario_name (item), scenario->name) == 0;
    }
  g_assert_cmpuint (on_it, ==, bpw_study_get_n_candidates (study));

  /* Twice: a second name, never a clash; an unknown workload is refused. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.add-scenario", "s",
                                             added->name));
  g_assert_cmpuint (bpw_study_get_n_scenarios (study), ==, n_scenarios + 2);
  g_assert_cmpstr (bpw_study_get_scenario (study, n_scenarios + 1)->name, !=,
                   bpw_study_get_scenario (study, n_scenarios)->name);
  g_assert_cmpuint (bpw_window_add_scenario (window, "no-such-workload", &error), ==,
                    G_MAXUINT);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);

  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_open_blueprint_adds_candidate (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  guint n_candidates = bpw_study_get_n_candidates (study);
  guint n_scenarios = bpw_study_get_n_scenarios (study);
  g_autofree char *path = g_build_filename (g_getenv ("BPW_SOURCE_ROOT"), "data",
                                            "blueprints", "gaudi3.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const BpwStudyCandidate *added;

  g_assert_true (bpw_window_open_file (window, file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n_candidates + 1);
  added = bpw_study_get_candidate (study, n_candidates);
  g_assert_cmpstr (added->blueprint, ==, path);
  g_assert_true (g_strv_contains (bpw_study_get_blueprints (study), path));
  g_assert_true (sidebar_has (window, BPW_SIDEBAR_ITEM_CANDIDATE, added->name));

  /* The new candidate joins the Overview on every scenario. */
  bpw_test_wait_window (window);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_overview_items (window)), ==,
                    (n_candidates + 1) * n_scenarios);

  /* Opening it again adds nothing. */
  g_assert_true (bpw_window_open_file (window, file, &error));
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n_candidates + 1);

  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_save_marks_clean (void)
{
  BpwWindow *window = bpw_test_open_default ();
  g_autoptr(GFile) hf = fixture ("hf", "qwen2-7b.json", NULL);
  g_autofree char *path = g_build_filename (scratch_dir, "saved.bpw-study.json", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) reread = NULL;
  const char *name = bpw_study_get_name (bpw_window_get_study (window));
  g_autofree char *dotted = g_strconcat ("• ", name, NULL);

  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, name);
  g_assert_true (bpw_window_open_file (window, hf, &error));
  g_assert_no_error (error);

  /* Unsaved changes show in the title. */
  g_assert_true (bpw_window_get_modified (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, dotted);

  g_assert_true (bpw_window_save_to_file (window, target, &error));
  g_assert_no_error (error);
  g_assert_false (bpw_window_get_modified (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, name);
  g_assert_true (g_file_equal (bpw_window_get_file (window), target));

  /* What was saved is the study with the added workload. */
  reread = bpw_study_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_workloads (reread), ==,
                    bpw_study_get_n_workloads (bpw_window_get_study (window)));

  /* Opening the saved file gives a clean study that knows its file. */
  g_assert_true (bpw_window_open_file (window, target, &error));
  g_assert_no_error (error);
  g_assert_false (bpw_window_get_modified (window));
  g_assert_true (g_file_equal (bpw_window_get_file (window), target));

  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_close_asks (void)
{
  BpwWindow *window = bpw_test_open_default ();
  g_autoptr(GFile) hf = fixture ("hf", "gpt2-config.json", NULL);
  AdwMessageDialog *dialog;
  GtkWidget *weak = GTK_WIDGET (window);

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &weak);
  g_assert_true (bpw_window_open_file (window, hf, NULL));
  bpw_test_wait_window (window);

  /* Cancel keeps the window and its changes. */
  gtk_window_close (GTK_WINDOW (window));
  g_assert_nonnull (weak);
  dialog = bpw_test_find_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  g_assert_true (adw_message_dialog_has_response (dialog, "save"));
  /* A click on a response button emits the response and closes the dialog; here the test
   * does both. */
  adw_message_dialog_response (dialog, "cancel");
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_nonnull (weak);
  g_assert_true (bpw_window_get_modified (window));
  g_assert_null (bpw_test_find_dialog (GTK_WINDOW (window)));

  /* Discard closes it. */
  gtk_window_close (GTK_WINDOW (window));
  dialog = bpw_test_find_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "discard");
  gtk_window_destroy (GTK_WINDOW (dialog));
  for (guint i = 0; i < 100 && weak != NULL; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (weak);
}

static GtkDropTarget *
find_drop_target (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        return GTK_DROP_TARGET (controller);
    }
  return NULL;
}

/* Files dropped onto the window go where opened files go: workloads into the study. */
static void
test_drop_adds (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  guint n_workloads = bpw_study_get_n_workloads (study);
  g_autoptr(GFile) mistral = fixture ("hf", "mistral-7b.json", NULL);
  g_autoptr(GFile) qwen = fixture ("hf", "qwen2-7b.json", NULL);
  GtkDropTarget *target = find_drop_target (GTK_WIDGET (window));
  g_auto(GValue) value = G_VALUE_INIT;
  GFile *files[] = { mistral, qwen };
  gboolean accepted = FALSE;

  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_array (files, G_N_ELEMENTS (files)));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &accepted);
  g_assert_true (accepted);
  g_assert_cmpuint (bpw_study_get_n_workloads (study), ==, n_workloads + 2);
  g_assert_true (bpw_window_get_modified (window));

  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* New from a template: unsaved, unmodified; over unsaved changes it asks first. */
static void
test_new_from_template (void)
{
  BpwWindow *window = bpw_test_open_default ();
  g_autoptr(GFile) hf = fixture ("hf", "gpt2-config.json", NULL);
  AdwMessageDialog *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-from-template",
                                             "s", ""));
  g_assert_cmpuint (bpw_study_get_n_workloads (bpw_window_get_study (window)), ==, 0);
  g_assert_false (bpw_window_get_modified (window));
  g_assert_null (bpw_window_get_file (window));
  bpw_test_wait_window (window);

  g_assert_true (bpw_window_open_file (window, hf, NULL));
  g_assert_true (bpw_window_get_modified (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-from-template",
                                             "s", "default"));
  /* Not replaced yet: the question comes first. */
  g_assert_cmpuint (bpw_study_get_n_workloads (bpw_window_get_study (window)), ==, 1);
  dialog = bpw_test_find_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "discard");
  gtk_window_destroy (GTK_WINDOW (dialog));
  for (guint i = 0; i < 100 && bpw_window_get_modified (window); i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_false (bpw_window_get_modified (window));
  g_assert_cmpuint (bpw_study_get_n_candidates (bpw_window_get_study (window)), ==, 4);

  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch_dir, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/StudyFiles/open-workload-adds-it", test_open_workload_adds_it);
  g_test_add_func ("/bpw/ui/StudyFiles/add-scenario", test_add_scenario_for_workload);
  g_test_add_func ("/bpw/ui/StudyFiles/open-blueprint-adds-candidate",
                   test_open_blueprint_adds_candidate);
  g_test_add_func ("/bpw/ui/StudyFiles/save-marks-clean", test_save_marks_clean);
  g_test_add_func ("/bpw/ui/StudyFiles/close-asks", test_close_asks);
  g_test_add_func ("/bpw/ui/StudyFiles/drop-adds", test_drop_adds);
  g_test_add_func ("/bpw/ui/StudyFiles/new-from-template", test_new_from_template);

  result = g_test_run ();
  bpw_test_remove_tree (scratch_dir);
  g_free (scratch_dir);
  return result;
}
