/* bpw-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-application"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-application.h"
#include "bpw-ui.h"

#define BPW_SCHEMA_ID "io.github.bpw.Workbench"

struct _BpwApplication
{
  AdwApplication  parent_instance;

  /* Owned references */
  GSettings      *settings;  /* nullable */

  gboolean        recovery_offered;
};

G_DEFINE_FINAL_TYPE (BpwApplication, bpw_application, ADW_TYPE_APPLICATION)

static void
bpw_application_apply_style (BpwApplication *self)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  g_autofree char *style = g_settings_get_string (self->settings, "style");
  AdwColorScheme scheme = ADW_COLOR_SCHEME_DEFAULT;

  if (g_strcmp0 (style, "light") == 0)
    scheme = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_strcmp0 (style, "dark") == 0)
    scheme = ADW_COLOR_SCHEME_FORCE_DARK;
  adw_style_manager_set_color_scheme (manager, scheme);
}

static gboolean
bpw_application_window_close_cb (GtkWindow      *window,
                                 BpwApplication *self)
{
  int width = 0;
  int height = 0;

  /* Saved once on close rather than bound live, so resizing does not write settings on
   * every frame. */
  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_string (self->settings, "page",
                         adw_view_stack_get_visible_child_name (
                           bpw_window_get_view_stack (BPW_WINDOW (window))));
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }

  return GDK_EVENT_PROPAGATE;
}

static BpwWindow *
bpw_application_new_window (BpwApplication *self)
{
  BpwWindow *window = bpw_window_new (GTK_APPLICATION (self), self->settings);
  g_autofree char *page = NULL;

  if (self->settings != NULL)
    {
      gtk_window_set_default_size (GTK_WINDOW (window),
                                   g_settings_get_int (self->settings, "window-width"),
                                   g_settings_get_int (self->settings, "window-height"));
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (window));
      g_settings_bind (self->settings, "units", window, "units", G_SETTINGS_BIND_GET);
      /* The schema's choices are the pages' names, so any stored value names one. */
      page = g_settings_get_string (self->settings, "page");
      adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), page);
      g_signal_connect_object (window, "close-request",
                               G_CALLBACK (bpw_application_window_close_cb), self, 0);
    }

  return window;
}

static void
bpw_application_about_action (GSimpleAction *action,
                              GVariant      *parameter,
                              gpointer       user_data)
{
  BpwApplication *self = user_data;
  static const char *developers[] = { "The Blueprint Workbench developers", NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", gtk_application_get_active_window (GTK_APPLICATION (self)),
                        "application-name", _("Blueprint Workbench"),
                        "application-icon", APP_ID,
                        "version", PACKAGE_VERSION,
                        "developer-name", _("The Blueprint Workbench developers"),
                        "developers", developers,
                        "comments", _("Map machine-learning workloads onto candidate "
                                      "accelerators, and compare them with evidence."),
                        "website", "https://github.com/bpw/workbench",
                        "issue-url", "https://github.com/bpw/workbench/issues",
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "copyright", "© 2026 The Blueprint Workbench developers",
                        "translator-credits", _("translator-credits"),
                        NULL);
  /* Model and system files and formulas ported from Calculon; Apache-2.0 asks that the
   * attribution and the NOTICE text travel with them. */
  adw_about_window_add_legal_section (ADW_ABOUT_WINDOW (about), "Calculon",
                                      "Calculon — Co-design for large scale parallel "
                                      "applications\nCopyright © 2022 Michael Isaev, "
                                      "Nic McDonald",
                                      GTK_LICENSE_APACHE_2_0, NULL);
  adw_about_window_add_acknowledgement_section (ADW_ABOUT_WINDOW (about),
                                                _("Models and Formulas"),
                                                (const char *[]) {
                                                  "Calculon https://github.com/calculon-ai/calculon",
                                                  NULL });
  gtk_window_present (GTK_WINDOW (about));
}

static void
bpw_application_quit_action (GSimpleAction *action,
                             GVariant      *parameter,
                             gpointer       user_data)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (user_data));
  g_autoptr(GPtrArray) copy = g_ptr_array_new_with_free_func (g_object_unref);

  /* Closing each window, rather than quitting outright, lets a window with unsaved
   * changes ask first; the application ends with its last window. */
  for (GList *l = windows; l != NULL; l = l->next)
    g_ptr_array_add (copy, g_object_ref (l->data));
  for (guint i = 0; i < copy->len; i++)
    gtk_window_close (g_ptr_array_index (copy, i));
}

static void
bpw_application_shortcuts_action (GSimpleAction *action,
                                  GVariant      *parameter,
                                  gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  if (window != NULL)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
}

static void
bpw_application_preferences_action (GSimpleAction *action,
                                    GVariant      *parameter,
                                    gpointer       user_data)
{
  BpwApplication *self = user_data;
  GtkWidget *preferences = bpw_preferences_window_new (self->settings);

  gtk_window_set_transient_for (GTK_WINDOW (preferences),
                                gtk_application_get_active_window (GTK_APPLICATION (self)));
  gtk_window_present (GTK_WINDOW (preferences));
}

static const GActionEntry app_actions[] = {
  { .name = "about", .activate = bpw_application_about_action },
  { .name = "preferences", .activate = bpw_application_preferences_action },
  { .name = "quit", .activate = bpw_application_quit_action },
  { .name = "shortcuts", .activate = bpw_application_shortcuts_action },
};

static void
bpw_application_startup (GApplication *application)
{
  BpwApplication *self = BPW_APPLICATION (application);
  GSettingsSchemaSource *source;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GAction) units_action = NULL;
  g_autoptr(GAction) style_action = NULL;

  /* Before chaining up: GtkApplication loads style.css and gtk/help-overlay.ui from the
   * resource base path during its startup. */
  bpw_ui_init ();

  G_APPLICATION_CLASS (bpw_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit",
                                         (const char *[]) { "<Control>q", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.shortcuts",
                                         (const char *[]) { "<Control>question", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.preferences",
                                         (const char *[]) { "<Control>comma", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.undo",
                                         (const char *[]) { "<Control>z", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.redo",
                                         (const char *[]) { "<Control><Shift>z", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.show-inspector",
                                         (const char *[]) { "F9", NULL });
  /* The windows bind these keys themselves; set here too, so that menus show them. */
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.open",
                                         (const char *[]) { "<Control>o", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.save",
                                         (const char *[]) { "<Control>s", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.save-as",
                                         (const char *[]) { "<Control><Shift>s", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.find",
                                         (const char *[]) { "<Control>f", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "window.close",
                                         (const char *[]) { "<Control>w", NULL });

  source = g_settings_schema_source_get_default ();
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, BPW_SCHEMA_ID, TRUE);
  if (schema == NULL)
    {
      g_message ("GSettings schema %s is not installed; preferences will not be kept "
                 "(set GSETTINGS_SCHEMA_DIR to the build's data folder)", BPW_SCHEMA_ID);
      return;
    }

  self->settings = g_settings_new_full (schema, NULL, NULL);
  units_action = g_settings_create_action (self->settings, "units");
  style_action = g_settings_create_action (self->settings, "style");
  g_action_map_add_action (G_ACTION_MAP (self), units_action);
  g_action_map_add_action (G_ACTION_MAP (self), style_action);
  g_signal_connect_object (self->settings, "changed::style",
                           G_CALLBACK (bpw_application_apply_style), self, G_CONNECT_SWAPPED);
  bpw_application_apply_style (self);
}

/* Once per run, with the first window: autosaves an earlier run left behind were not
 * saved, so each is offered for recovery (the first in @window, the others in windows of
 * their own). */
static void
bpw_application_offer_recovery (BpwApplication *self,
                                BpwWindow      *window)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GPtrArray) pending = NULL;

  if (self->recovery_offered)
    return;
  self->recovery_offered = TRUE;

  dir = bpw_autosave_dup_default_dir ();
  pending = bpw_autosave_list_pending (dir);
  for (guint i = 0; i < pending->len; i++)
    {
      BpwWindow *target = window;

      if (i > 0)
        {
          target = bpw_application_new_window (self);
          bpw_window_open_bundled (target, "default", NULL);
          gtk_window_present (GTK_WINDOW (target));
        }
      bpw_window_offer_recovery (target, g_ptr_array_index (pending, i));
    }
}

static BpwWindow *
bpw_application_get_bpw_window (BpwApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  return BPW_IS_WINDOW (window) ? BPW_WINDOW (window) : NULL;
}

static void
bpw_application_activate (GApplication *application)
{
  BpwApplication *self = BPW_APPLICATION (application);
  BpwWindow *window = bpw_application_get_bpw_window (self);

  if (window == NULL)
    {
      window = bpw_application_new_window (self);
      /* First launch, and every launch without files: the bundled default study. A
       * failure is shown in the window as a toast. */
      bpw_window_open_bundled (window, "default", NULL);
    }

  gtk_window_present (GTK_WINDOW (window));
  bpw_application_offer_recovery (self, window);
}

static void
bpw_application_open (GApplication  *application,
                      GFile        **files,
                      int            n_files,
                      const char    *hint)
{
  BpwApplication *self = BPW_APPLICATION (application);
  BpwWindow *first = NULL;

  for (int i = 0; i < n_files; i++)
    {
      BpwWindow *window = bpw_application_get_bpw_window (self);
      gboolean study = bpw_window_file_is_study (files[i]);

      /* A study replaces only a study nobody has touched or saved (the default one);
       * workloads and blueprints join the study of the active window. */
      if (window == NULL
          || (study && (bpw_window_get_modified (window) || bpw_window_get_file (window) != NULL)))
        {
          window = bpw_application_new_window (self);
          if (!study)
            bpw_window_open_bundled (window, "default", NULL);
        }

      /* On failure the toast with the file's error stays, and the window keeps (or gets)
       * the default study. */
      if (!bpw_window_open_file (window, files[i], NULL) && bpw_window_get_study (window) == NULL)
        bpw_window_open_bundled (window, "default", NULL);
      gtk_window_present (GTK_WINDOW (window));
      if (first == NULL)
        first = window;
    }

  if (first != NULL)
    bpw_application_offer_recovery (self, first);
}

static void
bpw_application_dispose (GObject *object)
{
  BpwApplication *self = BPW_APPLICATION (object);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (bpw_application_parent_class)->dispose (object);
}

static void
bpw_application_class_init (BpwApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = bpw_application_dispose;
  app_class->startup = bpw_application_startup;
  app_class->activate = bpw_application_activate;
  app_class->open = bpw_application_open;
}

static void
bpw_application_init (BpwApplication *self)
{
}

BpwApplication *
bpw_application_new (void)
{
  /* The resource base path stays the same for the .Devel id, where the resources live. */
  return g_object_new (BPW_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/bpw/Workbench",
                       NULL);
}

GSettings *
bpw_application_get_settings (BpwApplication *self)
{
  g_return_val_if_fail (BPW_IS_APPLICATION (self), NULL);
  return self->settings;
}
