/* test-window.c — the main window opens the default study and survives broken files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-window"

#include "config.h"

#include <glib/gstdio.h>

#include "bpw-study.h"
#include "bpw-ui.h"

static void
wait_until_idle (BpwWindow *window)
{
  while (bpw_window_get_busy (window))
    g_main_context_iteration (NULL, TRUE);
}

static void
after_paint_cb (GdkFrameClock *clock,
                gboolean      *painted)
{
  *painted = TRUE;
}

/* Iterates until the window is mapped and one frame with the current contents is painted. */
static void
wait_for_frame (GtkWidget *widget)
{
  GdkFrameClock *clock;
  gboolean painted = FALSE;
  gulong id;

  while (!gtk_widget_get_mapped (widget))
    g_main_context_iteration (NULL, TRUE);
  clock = gtk_widget_get_frame_clock (widget);
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &painted);
  gtk_widget_queue_draw (widget);
  while (!painted)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (clock, id);
}

static GtkWidget *
find_widget (GtkWidget *root,
             GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The row widgets the column view has created and shows. */
static guint
count_visible_rows (GtkWidget *column_view)
{
  GtkWidget *list_view = find_widget (column_view, GTK_TYPE_LIST_VIEW);
  guint n = 0;

  g_assert_nonnull (list_view);
  for (GtkWidget *child = gtk_widget_get_first_child (list_view);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (g_strcmp0 (gtk_widget_get_css_name (child), "row") == 0 && gtk_widget_get_visible (child))
      n++;
  return n;
}

static BpwWindow *
open_default_window (void)
{
  g_autoptr(GError) error = NULL;
  BpwWindow *window = bpw_window_new (NULL, NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_bundled (window, "default", &error));
  g_assert_no_error (error);
  wait_until_idle (window);
  return window;
}

static void
test_window_default_study (void)
{
  BpwWindow *window = open_default_window ();
  BpwStudy *study = bpw_window_get_study (window);
  GListModel *rows = bpw_window_get_rows (window);
  GtkWidget *column_view;
  guint n_scenarios;

  g_assert_nonnull (study);
  n_scenarios = bpw_study_get_n_scenarios (study);
  g_assert_cmpuint (n_scenarios, >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n_scenarios);

  for (guint i = 0; i < n_scenarios; i++)
    {
      g_autoptr(BpwFactsRow) row = g_list_model_get_item (rows, i);
      const BpwStudyScenario *scenario = bpw_study_get_scenario (study, i);
      const BpwStudyWorkload *workload = bpw_study_get_workload (study, scenario->workload);
      const BpwFacts *facts = bpw_facts_row_get_facts (row);

      g_assert_cmpstr (bpw_facts_row_get_name (row), ==, scenario->name);
      g_assert_cmpstr (bpw_facts_row_get_workload (row), ==, workload->name);
      /* The bundled study is meant to be valid: every scenario has facts that conserve. */
      g_assert_null (bpw_facts_row_get_error (row));
      g_assert_nonnull (facts);
      g_assert_true (facts->conservation.ok);
      /* The parameter count is the model's closed form, whatever the decomposition. */
      g_assert_cmpuint (facts->parameters, ==, bpw_model_spec_parameters (&workload->spec));
      g_assert_true (facts->flops_hardware >= facts->flops_model);
    }

  /* One row widget per scenario: the default study fits on a 1000 px high window. */
  wait_for_frame (GTK_WIDGET (window));
  column_view = find_widget (GTK_WIDGET (window), GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (column_view);
  g_assert_cmpuint (count_visible_rows (column_view), ==, n_scenarios);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_window_broken_file (void)
{
  BpwWindow *window = open_default_window ();
  BpwStudy *study = bpw_window_get_study (window);
  guint n_rows = g_list_model_get_n_items (bpw_window_get_rows (window));
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-test-window-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *basename = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) missing = NULL;

  g_assert_no_error (error);
  path = g_build_filename (dir, "broken-study.json", NULL);
  g_assert_true (g_file_set_contents (path, "{\n  \"format\": \"bpw-study\",\n  \"version\": ",
                                      -1, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (path);

  g_assert_false (bpw_window_open_file (window, file, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  /* The message names the file, so the user knows which one to fix. */
  basename = g_path_get_basename (path);
  g_assert_nonnull (strstr (error->message, basename));
  g_clear_error (&error);

  g_assert_true (bpw_window_get_study (window) == study);
  g_assert_false (bpw_window_get_busy (window));
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_rows (window)), ==, n_rows);

  missing = g_file_new_for_path ("/nonexistent/bpw/no-such-study.json");
  g_assert_false (bpw_window_open_file (window, missing, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (bpw_window_get_study (window) == study);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_rows (window)), ==, n_rows);

  g_assert_false (bpw_window_open_bundled (window, "no-such-bundled-study", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (bpw_window_get_study (window) == study);

  g_unlink (path);
  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  /* No G_TEST_OPTION_ISOLATE_DIRS: it empties XDG_DATA_DIRS, and libadwaita's adw_init()
   * then looks up its settings schema in a NULL source (a critical, fatal in tests). */
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      if (g_strcmp0 (g_getenv ("BPW_REQUIRE_DISPLAY"), "1") == 0)
        {
          g_printerr ("no display, and BPW_REQUIRE_DISPLAY=1\n");
          return 1;
        }
      g_print ("1..0 # SKIP no display\n");
      return 0;
    }
  bpw_ui_init ();
  adw_init ();

  g_test_add_func ("/bpw/ui/Window/default-study", test_window_default_study);
  g_test_add_func ("/bpw/ui/Window/broken-file", test_window_broken_file);

  return g_test_run ();
}
