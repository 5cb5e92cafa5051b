/* bpw-ui-test-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-util"

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-ui-test-util.h"

gboolean
bpw_test_init_gui (int    *argc,
                   char ***argv,
                   char  **scratch,
                   int    *exit_code)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *state = NULL;
  g_autofree char *data = NULL;

  *scratch = g_dir_make_tmp ("bpw-ui-test-XXXXXX", &error);
  g_assert_no_error (error);
  state = g_build_filename (*scratch, "state", NULL);
  data = g_build_filename (*scratch, "data", NULL);
  /* Before anything asks GLib for these folders: it reads them once. */
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);

  /* No G_TEST_OPTION_ISOLATE_DIRS: it empties XDG_DATA_DIRS, and libadwaita's adw_init()
   * then looks up its settings schema in a NULL source (a critical, fatal in tests). */
  g_test_init (argc, argv, NULL);

  *exit_code = 0;
  if (!gtk_init_check ())
    {
      if (g_strcmp0 (g_getenv ("BPW_REQUIRE_DISPLAY"), "1") == 0)
        {
          g_printerr ("no display, and BPW_REQUIRE_DISPLAY=1\n");
          *exit_code = 1;
        }
      else
        g_print ("1..0 # SKIP no display\n");
      bpw_test_remove_tree (*scratch);
      return FALSE;
    }
  bpw_ui_init ();
  adw_init ();
  return TRUE;
}

static gboolean
bpw_test_timeout_cb (gpointer data)
{
  g_error ("timed out waiting for the workbench");
  return G_SOURCE_REMOVE;
}

/* How long a wait may take before the test gives up as hung: 60 s, or BPW_TEST_HANG_SECONDS.
 * Not a limit on speed: it only turns a hang into a failure. The sanitizer stage's rerun with
 * exact stacks (.ci/run) unwinds every allocation and runs many times slower, so it raises it. */
static guint
bpw_test_hang_seconds (void)
{
  const char *env = g_getenv ("BPW_TEST_HANG_SECONDS");
  guint64 seconds;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, 86400, &seconds, NULL))
    return (guint) seconds;
  return 60;
}

void
bpw_test_wait (gboolean (*busy) (gpointer data),
               gpointer   data)
{
  guint timeout = g_timeout_add_seconds (bpw_test_hang_seconds (), bpw_test_timeout_cb, NULL);

  while (busy (data))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
}

static gboolean
bpw_test_chooser_not_ready (gpointer data)
{
  GFile *want = g_object_get_data (data, "bpw-test-file");
  g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (data));
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) parent = NULL;

  if (file != NULL && g_file_equal (file, want))
    return FALSE;
  /* GTK 4.8 loads the folder in the background, and a chooser mapped before it loaded
   * sometimes goes to a default folder afterwards (about 1 run in 10 here): ask again
   * until it shows ours. */
  folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (data));
  parent = g_file_get_parent (want);
  if (folder != NULL && !g_file_equal (folder, parent))
    g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (data), parent,
                                                        NULL));
  return TRUE;
}

void
bpw_test_wait_chooser (GtkFileChooser *chooser,
                       GFile          *file)
{
  g_object_set_data_full (G_OBJECT (chooser), "bpw-test-file", g_object_ref (file),
                          g_object_unref);
  bpw_test_wait (bpw_test_chooser_not_ready, chooser);
}

static gboolean
bpw_test_window_busy (gpointer data)
{
  return bpw_window_get_busy (data);
}

static gboolean
bpw_test_sheet_busy (gpointer data)
{
  return bpw_sheet_page_get_busy (data);
}

void
bpw_test_wait_window (BpwWindow *window)
{
  bpw_test_wait (bpw_test_window_busy, window);
}

void
bpw_test_wait_sheet (BpwSheetPage *page)
{
  bpw_test_wait (bpw_test_sheet_busy, page);
}

static void
bpw_test_after_paint_cb (GdkFrameClock *clock,
                         gboolean      *painted)
{
  *painted = TRUE;
}

static gboolean
bpw_test_not_mapped (gpointer data)
{
  return !gtk_widget_get_mapped (data);
}

static gboolean
bpw_test_not_painted (gpointer data)
{
  return !*(gboolean *) data;
}

void
bpw_test_wait_for_frame (GtkWidget *widget)
{
  GdkFrameClock *clock;
  gboolean painted = FALSE;
  gulong id;

  bpw_test_wait (bpw_test_not_mapped, widget);
  clock = gtk_widget_get_frame_clock (widget);
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (bpw_test_after_paint_cb), &painted);
  gtk_widget_queue_draw (widget);
  bpw_test_wait (bpw_test_not_painted, &painted);
  g_signal_handler_disconnect (clock, id);
}

GtkWidget *
bpw_test_find_widget (GtkWidget *root,
                      GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = bpw_test_find_widget (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

BpwWindow *
bpw_test_open_default (void)
{
  g_autoptr(GError) error = NULL;
  BpwWindow *window = bpw_window_new (NULL, NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_bundled (window, "default", &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);
  return window;
}

AdwMessageDialog *
bpw_test_find_dialog (GtkWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel)
          && gtk_window_get_transient_for (toplevel) == window)
        return ADW_MESSAGE_DIALOG (toplevel);
    }
  return NULL;
}

void
bpw_test_remove_tree (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        bpw_test_remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

void
bpw_test_check_calibration_bar (GtkWidget *page,
                                BpwStudy  *study)
{
  BpwCalibrationBar *bar = BPW_CALIBRATION_BAR (bpw_test_find_widget (page,
                                                                      BPW_TYPE_CALIBRATION_BAR));
  g_autoptr(BpwStudyCalibration) expected = bpw_study_calibration_new (study);
  const char *warning = bpw_calibration_bar_get_warning (bar);

  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (bar)));
  g_assert_cmpuint (bpw_calibration_bar_get_n_badges (bar), ==, expected->n_candidates);
  for (guint i = 0; i < expected->n_candidates; i++)
    {
      GtkLabel *badge = bpw_calibration_bar_get_badge (bar, i);
      g_autofree char *tooltip = bpw_study_calibration_dup_tooltip (expected, i);

      g_assert_true (g_str_has_prefix (gtk_label_get_text (badge), expected->candidates[i]));
      g_assert_nonnull (strstr (gtk_label_get_text (badge),
                                bpw_calibration_level_to_label (expected->statuses[i].level)));
      g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (badge)), ==, tooltip);
    }
  /* The default study mixes a calibrated A100, a measured H200 and estimates. */
  g_assert_nonnull (expected->warning);
  g_assert_cmpstr (warning, ==, expected->warning);
}

/* The column a view under @widget shows under @title, or NULL. */
GtkColumnViewColumn *
bpw_test_find_column (GtkWidget  *widget,
             const char *title)
{
  if (GTK_IS_COLUMN_VIEW (widget))
    {
      GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (widget));

      for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
        {
          g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

          if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
            return column;
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkColumnViewColumn *column = bpw_test_find_column (child, title);

      if (column != NULL)
        return column;
    }
  return NULL;
}
