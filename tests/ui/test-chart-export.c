/* test-chart-export.c — the Export menu writes every chart and table, in every format,
 * through its file dialog
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-chart-export"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "bpw-chart-test-util.h"

static void
check_png (const char *path,
           int         width)
{
  cairo_surface_t *png = cairo_image_surface_create_from_png (path);

  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (png), ==, (int) ceil (width * 405.0 / 720));
  cairo_surface_destroy (png);
}

static void
check_svg (const char *contents,
           gsize       length)
{
  GMarkupParser parser = { 0 };
  g_autoptr(GMarkupParseContext) context = g_markup_parse_context_new (&parser, 0, NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (strstr (contents, "<svg"));
  g_assert_true (g_markup_parse_context_parse (context, contents, length, &error));
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
}

static void
check_pdf (const char *contents,
           gsize       length)
{
  g_assert_cmpuint (length, >, 100);
  g_assert_true (memcmp (contents, "%PDF-", 5) == 0);
  g_assert_nonnull (g_strrstr_len (contents + length - 32, 32, "%%EOF"));
}

static void
check_csv (const char *contents)
{
  g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
  guint columns = 0;

  g_assert_cmpuint (g_strv_length (lines), >, 2);
  for (const char *c = lines[0]; *c != '\0'; c++)
    columns += *c == ',';
  g_assert_cmpuint (columns, >, 0);
}

static gboolean
file_missing (gpointer data)
{
  return !g_file_test (data, G_FILE_TEST_EXISTS);
}

static guint
count_lines (const char *path)
{
  g_autofree char *contents = NULL;
  guint lines = 0;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  for (const char *c = contents; *c != '\0'; c++)
    lines += *c == '\n';
  return lines;
}

/* The Export menu's action, its dialog answered as a user would, for @target (@scale:
 * "1" or "2" for the PNG filters of a chart, NULL for a table). */
static void
export_through_menu (BpwWindow  *window,
                     const char *target,
                     const char *path,
                     const char *scale)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) folder = g_file_get_parent (file);
  g_autofree char *name = g_file_get_basename (file);
  g_autoptr(GListModel) filters = NULL;
  g_autoptr(GtkFileFilter) filter = NULL;
  GtkNativeDialog *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export", "s", target));
  dialog = bpw_window_get_export_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  /* The filter picks the PNG resolution: the second is 1×. */
  filters = gtk_file_chooser_get_filters (GTK_FILE_CHOOSER (dialog));
  if (scale == NULL)
    g_assert_cmpuint (g_list_model_get_n_items (filters), ==, 1);  /* a table: CSV */
  else
    {
      g_assert_cmpuint (g_list_model_get_n_items (filters), ==, 5);
      filter = g_list_model_get_item (filters, g_str_equal (scale, "1") ? 1 : 0);
      gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (dialog), filter);
    }
  /* The dialog loads the folder in the background. */
  bpw_test_wait_chooser (GTK_FILE_CHOOSER (dialog), file);
  g_signal_emit_by_name (dialog, "response", GTK_RESPONSE_ACCEPT);
  g_assert_null (bpw_window_get_export_dialog (window));
}

static void
test_timeline_export (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", "llama3-70b-prefill", &view);
  g_autofree char *dir = g_dir_make_tmp ("bpw-timeline-XXXXXX", NULL);
  g_autofree char *png1 = g_build_filename (dir, "timeline-1x.png", NULL);
  g_autofree char *png2 = g_build_filename (dir, "timeline-2x.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "timeline.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "timeline.pdf", NULL);
  g_autofree char *csv = g_build_filename (dir, "timeline.csv", NULL);
  g_autofree char *lifetimes = g_build_filename (dir, "memory.pdf", NULL);
  g_autofree char *roofline = g_build_filename (dir, "roofline.svg", NULL);
  g_autofree char *bad = g_build_filename (dir, "missing", "timeline.png", NULL);
  g_autofree char *sheet = g_build_filename (dir, "sheet.csv", NULL);
  g_autofree char *overview = g_build_filename (dir, "overview.csv", NULL);
  g_autoptr(GError) error = NULL;
  const char *paths[] = { svg, pdf, csv, lifetimes, roofline };

  export_through_menu (window, "timeline", png1, "1");
  check_png (png1, 720);
  export_through_menu (window, "timeline", png2, "2");
  check_png (png2, 1440);
  export_through_menu (window, "timeline", svg, "2");
  export_through_menu (window, "timeline", pdf, "2");
  export_through_menu (window, "timeline", csv, "2");
  export_through_menu (window, "lifetimes", lifetimes, "2");
  export_through_menu (window, "roofline", roofline, "2");
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (paths[i], &contents, &length, &error));
      g_assert_no_error (error);
      if (g_str_has_suffix (paths[i], ".svg"))
        check_svg (contents, length);
      else if (g_str_has_suffix (paths[i], ".pdf"))
        check_pdf (contents, length);
      else
        check_csv (contents);
    }

  /* The tables as CSV: the Sheet's rows (bound again in a worker) and the Overview's. */
  export_through_menu (window, "sheet", sheet, NULL);
  bpw_test_wait (file_missing, sheet);
  g_assert_cmpuint (count_lines (sheet), ==,
                    1 + g_list_model_get_n_items (bpw_sheet_page_get_rows (
                                                    bpw_window_get_sheet_page (window))));
  export_through_menu (window, "overview", overview, NULL);
  g_assert_cmpuint (count_lines (overview), ==,
                    1 + g_list_model_get_n_items (bpw_window_get_overview_items (window)));

  /* A folder that does not exist: an error (the menu shows it in a toast), nothing
   * written, the study as it was. */
  g_assert_false (bpw_window_export_chart (window, "timeline", bad, 2.0, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  g_assert_false (bpw_window_get_modified (window));

  bpw_test_remove_tree (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The window's own Ctrl+E shortcut: NULL when only a focused widget binds the key. */
static GtkShortcutAction *
find_window_shortcut (GtkWidget       *widget,
                      guint            keyval,
                      GdkModifierType  modifiers)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger)
              && gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval
              && gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == modifiers)
            return gtk_shortcut_get_action (shortcut);
        }
    }
  return NULL;
}

/* Ctrl+E belongs to the window: it exports the chart of the page in view, with the focus
 * anywhere, and the table on the Overview. */
static void
test_ctrl_e_exports_page (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", NULL, &view);
  AdwViewStack *stack = bpw_window_get_view_stack (window);
  GtkShortcutAction *export = find_window_shortcut (GTK_WIDGET (window), GDK_KEY_e,
                                                    GDK_CONTROL_MASK);
  GtkNativeDialog *dialog;
  g_autofree char *name = NULL;
  g_autofree char *expected = NULL;

  g_assert_nonnull (export);
  gtk_window_set_focus (GTK_WINDOW (window), NULL);
  g_assert_true (gtk_shortcut_action_activate (export, 0, GTK_WIDGET (window), NULL));
  dialog = bpw_window_get_export_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_cmpstr (gtk_native_dialog_get_title (dialog), ==, _("Export Chart"));
  name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (dialog));
  expected = g_strdup_printf ("%s.png", bpw_plot_get_title (bpw_plot_view_get_plot (view)));
  g_strdelimit (expected, "/\\:*?\"<>|", '-');
  g_assert_cmpstr (name, ==, expected);
  g_signal_emit_by_name (dialog, "response", GTK_RESPONSE_CANCEL);
  g_assert_null (bpw_window_get_export_dialog (window));

  adw_view_stack_set_visible_child_name (stack, "overview");
  g_assert_true (gtk_shortcut_action_activate (export, 0, GTK_WIDGET (window), NULL));
  dialog = bpw_window_get_export_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_cmpstr (gtk_native_dialog_get_title (dialog), ==, _("Export Table"));
  g_signal_emit_by_name (dialog, "response", GTK_RESPONSE_CANCEL);

  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/ChartExport/formats", test_timeline_export);
  g_test_add_func ("/bpw/ui/ChartExport/ctrl-e", test_ctrl_e_exports_page);
  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
