/* bpw-value-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An AdwActionRow with an entry suffix rather than an AdwEntryRow: the row keeps its
 * subtitle for the provenance ("Datasheet · NVIDIA H100 datasheet"), which AdwEntryRow
 * (libadwaita 1.2) has no place for, and numbers line up at the right edge like a table.
 */
#define G_LOG_DOMAIN "bpw-value-row"

#include "config.h"

#include "bpw-value-row.h"
#include "bpw-tooltip.h"

struct _BpwValueRow
{
  AdwActionRow  parent_instance;

  /* Borrowed: children of self */
  GtkEntry     *entry;
  GtkWidget    *unit;    /* nullable */
  GtkWidget    *reset;   /* nullable */

  /* Owned */
  char         *value;   /* as last shown */
  char         *error;   /* nullable */
};

enum {
  COMMIT,
  RESET,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (BpwValueRow, bpw_value_row, ADW_TYPE_ACTION_ROW)

static void
bpw_value_row_commit (BpwValueRow *self)
{
  g_autofree char *text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->entry)));

  /* Leaving an entry unchanged is not an edit; nor is a refused text left as it was. */
  if (g_strcmp0 (text, self->value) == 0)
    {
      bpw_value_row_set_error (self, NULL);
      return;
    }
  g_signal_emit (self, signals[COMMIT], 0, text);
}

static void
bpw_value_row_activate_cb (BpwValueRow *self)
{
  bpw_value_row_commit (self);
}

static void
bpw_value_row_focus_leave_cb (BpwValueRow *self)
{
  /* A row taken out of the inspector while it had focus is no longer editing anything. */
  if (gtk_widget_get_root (GTK_WIDGET (self)) != NULL)
    bpw_value_row_commit (self);
}

static gboolean
bpw_value_row_key_pressed_cb (BpwValueRow     *self,
                              guint            keyval,
                              guint            keycode,
                              GdkModifierType  state)
{
  if (keyval != GDK_KEY_Escape)
    return GDK_EVENT_PROPAGATE;
  gtk_editable_set_text (GTK_EDITABLE (self->entry), self->value != NULL ? self->value : "");
  bpw_value_row_set_error (self, NULL);
  return GDK_EVENT_STOP;
}

static void
bpw_value_row_finalize (GObject *object)
{
  BpwValueRow *self = (BpwValueRow *) object;

  g_clear_pointer (&self->value, g_free);
  g_clear_pointer (&self->error, g_free);

  G_OBJECT_CLASS (bpw_value_row_parent_class)->finalize (object);
}

static void
bpw_value_row_class_init (BpwValueRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = bpw_value_row_finalize;

  signals[COMMIT] = g_signal_new ("commit", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[RESET] = g_signal_new ("reset", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                 NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
bpw_value_row_init (BpwValueRow *self)
{
  GtkEventController *focus = gtk_event_controller_focus_new ();
  GtkEventController *keys = gtk_event_controller_key_new ();

  self->entry = GTK_ENTRY (gtk_entry_new ());
  gtk_editable_set_width_chars (GTK_EDITABLE (self->entry), 11);
  gtk_editable_set_max_width_chars (GTK_EDITABLE (self->entry), 14);
  gtk_editable_set_alignment (GTK_EDITABLE (self->entry), 1.0);
  gtk_widget_set_valign (GTK_WIDGET (self->entry), GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (GTK_WIDGET (self->entry), "numeric");
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), GTK_WIDGET (self->entry));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self), GTK_WIDGET (self->entry));
  /* Titles and sources are data, not markup ("R&D estimate"). */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self), FALSE);
  /* Sources are long, and a review reads them whole: the subtitle wraps, never cut. */
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (self), 0);

  g_signal_connect_object (self->entry, "activate", G_CALLBACK (bpw_value_row_activate_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (focus, "leave", G_CALLBACK (bpw_value_row_focus_leave_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (bpw_value_row_key_pressed_cb),
                           self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->entry), focus);
  gtk_widget_add_controller (GTK_WIDGET (self->entry), keys);
}

GtkWidget *
bpw_value_row_new (const char *title)
{
  return g_object_new (BPW_TYPE_VALUE_ROW, "title", title, NULL);
}

void
bpw_value_row_set_value (BpwValueRow *self,
                         const char  *text)
{
  g_autofree char *old = NULL;

  g_return_if_fail (BPW_IS_VALUE_ROW (self));

  /* @text may be our own value (set_value (row, get_value (row))): free it after copying. */
  old = g_steal_pointer (&self->value);
  self->value = g_strdup (text != NULL ? text : "");
  gtk_editable_set_text (GTK_EDITABLE (self->entry), self->value);
  bpw_value_row_set_error (self, NULL);
}

const char *
bpw_value_row_get_value (BpwValueRow *self)
{
  g_return_val_if_fail (BPW_IS_VALUE_ROW (self), NULL);
  return self->value;
}

const char *
bpw_value_row_get_text (BpwValueRow *self)
{
  g_return_val_if_fail (BPW_IS_VALUE_ROW (self), NULL);
  return gtk_editable_get_text (GTK_EDITABLE (self->entry));
}

void
bpw_value_row_set_error (BpwValueRow *self,
                         const char  *message)
{
  g_return_if_fail (BPW_IS_VALUE_ROW (self));

  if (g_strcmp0 (message, self->error) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (message);
  if (message != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->entry), "error");
  bpw_tooltip_set (GTK_WIDGET (self->entry), message);
}

const char *
bpw_value_row_get_error (BpwValueRow *self)
{
  g_return_val_if_fail (BPW_IS_VALUE_ROW (self), NULL);
  return self->error;
}

void
bpw_value_row_set_placeholder (BpwValueRow *self,
                               const char  *text)
{
  g_return_if_fail (BPW_IS_VALUE_ROW (self));
  gtk_entry_set_placeholder_text (self->entry, text);
}

void
bpw_value_row_commit_text (BpwValueRow *self,
                           const char  *text)
{
  g_return_if_fail (BPW_IS_VALUE_ROW (self));

  gtk_editable_set_text (GTK_EDITABLE (self->entry), text);
  bpw_value_row_commit (self);
}

GtkEntry *
bpw_value_row_get_entry (BpwValueRow *self)
{
  g_return_val_if_fail (BPW_IS_VALUE_ROW (self), NULL);
  return self->entry;
}

void
bpw_value_row_set_unit (BpwValueRow *self,
                        const char  *unit)
{
  g_return_if_fail (BPW_IS_VALUE_ROW (self));

  if (unit == NULL)
    {
      if (self->unit != NULL)
        adw_action_row_remove (ADW_ACTION_ROW (self), self->unit);
      self->unit = NULL;
      return;
    }
  if (self->unit == NULL)
    {
      self->unit = gtk_label_new (NULL);
      gtk_widget_add_css_class (self->unit, "dim-label");
      gtk_widget_set_valign (self->unit, GTK_ALIGN_CENTER);
      adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->unit);
    }
  gtk_label_set_text (GTK_LABEL (self->unit), unit);
}

static void
bpw_value_row_reset_clicked_cb (BpwValueRow *self)
{
  g_signal_emit (self, signals[RESET], 0);
}

void
bpw_value_row_set_can_reset (BpwValueRow *self,
                             gboolean     can_reset,
                             const char  *tooltip)
{
  g_return_if_fail (BPW_IS_VALUE_ROW (self));

  if (self->reset == NULL && can_reset)
    {
      /* Before the entry, so that the values of a group stay in one column. */
      self->reset = gtk_button_new_from_icon_name ("edit-undo-symbolic");
      gtk_widget_add_css_class (self->reset, "flat");
      gtk_widget_set_valign (self->reset, GTK_ALIGN_CENTER);
      gtk_widget_insert_before (self->reset, gtk_widget_get_parent (GTK_WIDGET (self->entry)),
                                GTK_WIDGET (self->entry));
      g_signal_connect_object (self->reset, "clicked",
                               G_CALLBACK (bpw_value_row_reset_clicked_cb), self,
                               G_CONNECT_SWAPPED);
    }
  if (self->reset == NULL)
    return;
  gtk_widget_set_visible (self->reset, can_reset);
  bpw_tooltip_set (self->reset, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->reset),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip != NULL ? tooltip : "",
                                  -1);
}

gboolean
bpw_value_row_get_can_reset (BpwValueRow *self)
{
  g_return_val_if_fail (BPW_IS_VALUE_ROW (self), FALSE);
  return self->reset != NULL && gtk_widget_get_visible (self->reset);
}

void
bpw_value_row_reset (BpwValueRow *self)
{
  g_return_if_fail (BPW_IS_VALUE_ROW (self));

  if (bpw_value_row_get_can_reset (self))
    g_signal_emit (self, signals[RESET], 0);
}
