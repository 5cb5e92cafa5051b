/* bpw-calibration-bar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-calibration-bar"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-calibration-bar.h"

struct _BpwCalibrationBar
{
  GtkWidget  parent_instance;

  /* borrowed: children */
  GtkWidget *warning_box;
  GtkLabel  *warning_label;
  GtkWidget *badges;         /* GtkBox of GtkLabel */

  GPtrArray *badge_labels;   /* borrowed GtkLabel, in candidate order */
};

G_DEFINE_FINAL_TYPE (BpwCalibrationBar, bpw_calibration_bar, GTK_TYPE_WIDGET)

static void
bpw_calibration_bar_dispose (GObject *object)
{
  BpwCalibrationBar *self = BPW_CALIBRATION_BAR (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->badge_labels, g_ptr_array_unref);
  G_OBJECT_CLASS (bpw_calibration_bar_parent_class)->dispose (object);
}

static void
bpw_calibration_bar_class_init (BpwCalibrationBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_calibration_bar_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "calibrationbar");
}

static void
bpw_calibration_bar_init (BpwCalibrationBar *self)
{
  GtkWidget *icon;
  GtkWidget *caption;
  GtkWidget *row;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (
                                    GTK_WIDGET (self))), GTK_ORIENTATION_VERTICAL);
  self->badge_labels = g_ptr_array_new ();

  self->warning_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_add_css_class (self->warning_box, "calibration-warning");
  icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (self->warning_box), icon);
  self->warning_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->warning_label, TRUE);
  gtk_label_set_xalign (self->warning_label, 0);
  gtk_label_set_selectable (self->warning_label, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->warning_label), TRUE);
  gtk_box_append (GTK_BOX (self->warning_box), GTK_WIDGET (self->warning_label));
  gtk_widget_set_parent (self->warning_box, GTK_WIDGET (self));

  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_add_css_class (row, "calibration-row");
  /* Translators: a caption before each candidate's calibration status */
  caption = gtk_label_new (_("Calibration"));
  gtk_widget_add_css_class (caption, "dim-label");
  gtk_widget_set_valign (caption, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (row), caption);
  /* A line of badges that ellipsize rather than widen the window: the tooltips say all. */
  self->badges = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_hexpand (self->badges, TRUE);
  gtk_box_append (GTK_BOX (row), self->badges);
  gtk_widget_set_parent (row, GTK_WIDGET (self));

  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
bpw_calibration_bar_new (void)
{
  return g_object_new (BPW_TYPE_CALIBRATION_BAR, NULL);
}

void
bpw_calibration_bar_set (BpwCalibrationBar         *self,
                         const BpwStudyCalibration *calibration)
{
  GtkWidget *child;

  g_return_if_fail (BPW_IS_CALIBRATION_BAR (self));

  while ((child = gtk_widget_get_first_child (self->badges)) != NULL)
    gtk_box_remove (GTK_BOX (self->badges), child);
  g_ptr_array_set_size (self->badge_labels, 0);

  for (guint i = 0; calibration != NULL && i < calibration->n_candidates; i++)
    {
      const BpwCalibrationStatus *status = &calibration->statuses[i];
      g_autofree char *text = NULL;
      g_autofree char *tooltip = NULL;
      g_autofree char *css = NULL;
      GtkWidget *badge;

      if (status->label == NULL)
        continue;
      /* Translators: a badge: a candidate and its calibration status (“measured”) */
      text = g_strdup_printf (_("%s · %s"), calibration->candidates[i],
                              bpw_calibration_level_to_label (status->level));
      tooltip = bpw_study_calibration_dup_tooltip (calibration, i);
      css = g_strdup_printf ("calibration-%s", bpw_calibration_level_to_string (status->level));
      badge = gtk_label_new (text);
      gtk_label_set_ellipsize (GTK_LABEL (badge), PANGO_ELLIPSIZE_END);
      gtk_widget_add_css_class (badge, "calibration-badge");
      gtk_widget_add_css_class (badge, css);
      gtk_widget_set_tooltip_text (badge, tooltip);
      gtk_box_append (GTK_BOX (self->badges), badge);
      g_ptr_array_add (self->badge_labels, badge);
    }
  gtk_label_set_text (self->warning_label,
                      calibration != NULL && calibration->warning != NULL
                      ? calibration->warning : "");
  gtk_widget_set_visible (self->warning_box,
                          calibration != NULL && calibration->warning != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self), self->badge_labels->len > 0);
}

const char *
bpw_calibration_bar_get_warning (BpwCalibrationBar *self)
{
  g_return_val_if_fail (BPW_IS_CALIBRATION_BAR (self), NULL);
  if (!gtk_widget_get_visible (self->warning_box))
    return NULL;
  return gtk_label_get_text (self->warning_label);
}

guint
bpw_calibration_bar_get_n_badges (BpwCalibrationBar *self)
{
  g_return_val_if_fail (BPW_IS_CALIBRATION_BAR (self), 0);
  return self->badge_labels->len;
}

GtkLabel *
bpw_calibration_bar_get_badge (BpwCalibrationBar *self,
                               guint              i)
{
  g_return_val_if_fail (BPW_IS_CALIBRATION_BAR (self), NULL);
  g_return_val_if_fail (i < self->badge_labels->len, NULL);
  return g_ptr_array_index (self->badge_labels, i);
}
