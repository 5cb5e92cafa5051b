/* test-preferences.c — the preferences window edits the GSettings keys, both ways
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-preferences"

#include "config.h"

#include "bpw-ui-test-util.h"

/* The first widget of @type whose row title is @title (mnemonics included). */
static GtkWidget *
find_row (GtkWidget  *root,
          GType       type,
          const char *title)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type)
      && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_row (child, type, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GSettings *
new_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, "io.github.bpw.Workbench", TRUE);
  g_assert_nonnull (schema);  /* GSETTINGS_SCHEMA_DIR points at the build's data folder */
  return g_settings_new_full (schema, NULL, NULL);
}

static void
test_preferences_bound (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  GtkWidget *window = bpw_preferences_window_new (settings);
  AdwComboRow *units, *style, *format, *resolution;
  g_autofree char *value = NULL;

  gtk_window_present (GTK_WINDOW (window));
  units = ADW_COMBO_ROW (find_row (window, ADW_TYPE_COMBO_ROW, "_Memory Sizes"));
  style = ADW_COMBO_ROW (find_row (window, ADW_TYPE_COMBO_ROW, "_Style"));
  format = ADW_COMBO_ROW (find_row (window, ADW_TYPE_COMBO_ROW, "_Format"));
  resolution = ADW_COMBO_ROW (find_row (window, ADW_TYPE_COMBO_ROW, "PNG _Resolution"));
  g_assert_nonnull (units);
  g_assert_nonnull (style);
  g_assert_nonnull (format);
  g_assert_nonnull (resolution);

  /* The schema's defaults show. */
  g_assert_cmpuint (adw_combo_row_get_selected (units), ==, 0);    /* gib */
  g_assert_cmpuint (adw_combo_row_get_selected (style), ==, 0);    /* system */
  g_assert_cmpuint (adw_combo_row_get_selected (resolution), ==,
                    g_settings_get_uint (settings, "export-scale") - 1);

  /* Rows write the keys... */
  adw_combo_row_set_selected (units, 1);
  value = g_settings_get_string (settings, "units");
  g_assert_cmpstr (value, ==, "gb");
  adw_combo_row_set_selected (format, 2);
  g_clear_pointer (&value, g_free);
  value = g_settings_get_string (settings, "export-format");
  g_assert_cmpstr (value, ==, "pdf");
  adw_combo_row_set_selected (resolution, 3);
  g_assert_cmpuint (g_settings_get_uint (settings, "export-scale"), ==, 4);

  /* ...and keys set elsewhere (the style from another window) show at once. */
  g_settings_set_string (settings, "style", "dark");
  g_assert_cmpuint (adw_combo_row_get_selected (style), ==, 2);
  g_settings_set_uint (settings, "export-width", 2400);
  {
    GtkWidget *spin = bpw_test_find_widget (window, GTK_TYPE_SPIN_BUTTON);

    g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 2400.0);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_preferences_without_settings (void)
{
  GtkWidget *window = bpw_preferences_window_new (NULL);
  GtkWidget *units = find_row (window, ADW_TYPE_COMBO_ROW, "_Memory Sizes");

  /* Nothing could be kept, so nothing is offered. */
  g_assert_false (gtk_widget_get_sensitive (units));
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

  g_test_add_func ("/bpw/ui/Preferences/bound", test_preferences_bound);
  g_test_add_func ("/bpw/ui/Preferences/without-settings", test_preferences_without_settings);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
