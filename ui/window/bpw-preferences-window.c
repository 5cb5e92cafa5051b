/* bpw-preferences-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No Apply button: each row is bound to its GSettings key, as GNOME preferences are. The
 * application applies the style (AdwStyleManager) and the windows the units when the keys
 * change, so this window only edits settings.
 */
#define G_LOG_DOMAIN "bpw-preferences-window"

#include "config.h"

#include "bpw-preferences-window.h"

struct _BpwPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  /* Template widgets */
  AdwComboRow          *style_row;
  AdwComboRow          *units_row;
  AdwComboRow          *format_row;
  AdwComboRow          *resolution_row;
  GtkSpinButton        *width_spin;
  GtkSpinButton        *height_spin;
  GtkSwitch            *print_switch;

  /* Owned references */
  GSettings            *settings;  /* nullable */
};

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwPreferencesWindow, bpw_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/* Combo positions in the order of the schema's enum nicks. */
static const char * const style_nicks[] = { "system", "light", "dark", NULL };
static const char * const units_nicks[] = { "gib", "gb", NULL };
static const char * const format_nicks[] = { "png", "svg", "pdf", "csv", NULL };

static gboolean
bpw_preferences_nick_to_selected (GValue   *value,
                                  GVariant *variant,
                                  gpointer  user_data)
{
  const char * const *nicks = user_data;
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; nicks[i] != NULL; i++)
    if (g_strcmp0 (nicks[i], nick) == 0)
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
bpw_preferences_selected_to_nick (const GValue       *value,
                                  const GVariantType *expected_type,
                                  gpointer            user_data)
{
  const char * const *nicks = user_data;
  guint selected = g_value_get_uint (value);

  if (selected >= g_strv_length ((char **) nicks))
    return NULL;
  return g_variant_new_string (nicks[selected]);
}

/* export-scale is 1..4; the list starts at 1×. */
static gboolean
bpw_preferences_scale_to_selected (GValue   *value,
                                   GVariant *variant,
                                   gpointer  user_data)
{
  guint32 scale = g_variant_get_uint32 (variant);

  if (scale < 1)
    return FALSE;
  g_value_set_uint (value, scale - 1);
  return TRUE;
}

static GVariant *
bpw_preferences_selected_to_scale (const GValue       *value,
                                   const GVariantType *expected_type,
                                   gpointer            user_data)
{
  guint selected = g_value_get_uint (value);

  if (selected == GTK_INVALID_LIST_POSITION || selected > 3)
    return NULL;
  return g_variant_new_uint32 (selected + 1);
}

static void
bpw_preferences_bind_combo (GSettings   *settings,
                            const char  *key,
                            AdwComboRow *row,
                            const char * const *nicks)
{
  g_settings_bind_with_mapping (settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                bpw_preferences_nick_to_selected,
                                bpw_preferences_selected_to_nick, (gpointer) nicks, NULL);
}

static void
bpw_preferences_window_constructed (GObject *object)
{
  BpwPreferencesWindow *self = BPW_PREFERENCES_WINDOW (object);
  GtkWidget *rows[] = {
    GTK_WIDGET (self->style_row), GTK_WIDGET (self->units_row), GTK_WIDGET (self->format_row),
    GTK_WIDGET (self->resolution_row), GTK_WIDGET (self->width_spin),
    GTK_WIDGET (self->height_spin), GTK_WIDGET (self->print_switch),
  };

  G_OBJECT_CLASS (bpw_preferences_window_parent_class)->constructed (object);

  if (self->settings == NULL)
    {
      /* Nothing could be kept: say so by not offering it. */
      for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
        gtk_widget_set_sensitive (rows[i], FALSE);
      return;
    }

  bpw_preferences_bind_combo (self->settings, "style", self->style_row, style_nicks);
  bpw_preferences_bind_combo (self->settings, "units", self->units_row, units_nicks);
  bpw_preferences_bind_combo (self->settings, "export-format", self->format_row, format_nicks);
  g_settings_bind_with_mapping (self->settings, "export-scale", self->resolution_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, bpw_preferences_scale_to_selected,
                                bpw_preferences_selected_to_scale, NULL, NULL);
  g_settings_bind (self->settings, "export-width",
                   gtk_spin_button_get_adjustment (self->width_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "export-height",
                   gtk_spin_button_get_adjustment (self->height_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "export-print-style", self->print_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
}

static void
bpw_preferences_window_dispose (GObject *object)
{
  BpwPreferencesWindow *self = (BpwPreferencesWindow *) object;

  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (bpw_preferences_window_parent_class)->dispose (object);
}

static void
bpw_preferences_window_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  BpwPreferencesWindow *self = BPW_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_preferences_window_class_init (BpwPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = bpw_preferences_window_constructed;
  object_class->dispose = bpw_preferences_window_dispose;
  object_class->set_property = bpw_preferences_window_set_property;

  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/"
                                               "bpw-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwPreferencesWindow, style_row);
  gtk_widget_class_bind_template_child (widget_class, BpwPreferencesWindow, units_row);
  gtk_widget_class_bind_template_child (widget_class, BpwPreferencesWindow, format_row);
  gtk_widget_class_bind_template_child (widget_class, BpwPreferencesWindow, resolution_row);
  gtk_widget_class_bind_template_child (widget_class, BpwPreferencesWindow, width_spin);
  gtk_widget_class_bind_template_child (widget_class, BpwPreferencesWindow, height_spin);
  gtk_widget_class_bind_template_child (widget_class, BpwPreferencesWindow, print_switch);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
bpw_preferences_window_init (BpwPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
bpw_preferences_window_new (GSettings *settings)
{
  g_return_val_if_fail (settings == NULL || G_IS_SETTINGS (settings), NULL);

  return g_object_new (BPW_TYPE_PREFERENCES_WINDOW, "settings", settings, NULL);
}
