/* bpw-added-button.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-added-button"

#include "config.h"

#include "bpw-added-button.h"

#include <glib/gi18n.h>

struct _BpwAddedButton
{
  GtkButton          parent_instance;

  AdwButtonContent  *content;   /* borrowed: the child */
  BpwStudyWorker    *worker;    /* owned, nullable */
};

G_DEFINE_FINAL_TYPE (BpwAddedButton, bpw_added_button, GTK_TYPE_BUTTON)

static void
bpw_added_button_update (BpwAddedButton *self)
{
  guint n = self->worker != NULL ? bpw_study_worker_get_n_added (self->worker) : 0;
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *label = NULL;
  g_autofree char *tooltip = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self), n > 0);
  if (n == 0)
    return;
  for (guint i = 0; i < n; i++)
    g_string_append_printf (names, "\n• %s", bpw_study_worker_get_added (self->worker, i)->name);
  /* Translators: a button that removes the candidates added from searches */
  label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Clear %u Added", "Clear %u Added",
                                        n), n);
  /* Translators: the tooltip of "Clear N Added"; a list of names follows */
  tooltip = g_strdup_printf ("%s%s", _("Remove the candidates added from searches; they are "
                                       "not part of the study:"), names->str);
  adw_button_content_set_label (self->content, label);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), tooltip);
}

static void
bpw_added_button_clicked (GtkButton *button)
{
  BpwAddedButton *self = BPW_ADDED_BUTTON (button);

  if (self->worker != NULL)
    bpw_study_worker_clear_added (self->worker);
}

static void
bpw_added_button_dispose (GObject *object)
{
  BpwAddedButton *self = BPW_ADDED_BUTTON (object);

  g_clear_object (&self->worker);

  G_OBJECT_CLASS (bpw_added_button_parent_class)->dispose (object);
}

static void
bpw_added_button_class_init (BpwAddedButtonClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = bpw_added_button_dispose;
  GTK_BUTTON_CLASS (klass)->clicked = bpw_added_button_clicked;
}

static void
bpw_added_button_init (BpwAddedButton *self)
{
  self->content = ADW_BUTTON_CONTENT (adw_button_content_new ());
  adw_button_content_set_icon_name (self->content, "edit-clear-all-symbolic");
  gtk_button_set_child (GTK_BUTTON (self), GTK_WIDGET (self->content));
  gtk_widget_set_valign (GTK_WIDGET (self), GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (GTK_WIDGET (self), "flat");
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

void
bpw_added_button_set_worker (BpwAddedButton *self,
                             BpwStudyWorker *worker)
{
  g_return_if_fail (BPW_IS_ADDED_BUTTON (self));
  g_return_if_fail (worker == NULL || BPW_IS_STUDY_WORKER (worker));

  if (self->worker != NULL)
    g_signal_handlers_disconnect_by_data (self->worker, self);
  g_set_object (&self->worker, worker);
  if (worker != NULL)
    g_signal_connect_object (worker, "changed", G_CALLBACK (bpw_added_button_update), self,
                             G_CONNECT_SWAPPED);
  bpw_added_button_update (self);
}

BpwStudyWorker *
bpw_added_button_get_worker (BpwAddedButton *self)
{
  g_return_val_if_fail (BPW_IS_ADDED_BUTTON (self), NULL);
  return self->worker;
}
