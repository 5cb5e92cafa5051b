/* bpw-review-dialog-prices.c — the review dialog's Prices group
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-review-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-review-dialog-private.h"

/* One form per candidate, filled with its price. */

static const char *
bpw_review_price_unit_label (BpwPriceUnit unit)
{
  /* Translators: what a price is for: one device bought, or one device for an hour */
  return unit == BPW_PRICE_PER_DEVICE_HOUR ? _("per device-hour") : _("per device");
}

static void
bpw_review_dialog_price_set_cb (GtkButton       *button,
                                BpwReviewDialog *self)
{
  g_autoptr(GError) error = NULL;
  GObject *row = g_object_get_data (G_OBJECT (button), "bpw-row");
  guint index = GPOINTER_TO_UINT (g_object_get_data (row, "bpw-index"));

  if (!bpw_review_dialog_set_price (self, index,
                                    gtk_editable_get_text (g_object_get_data (row, "bpw-amount")),
                                    adw_combo_row_get_selected (g_object_get_data (row,
                                                                                   "bpw-unit")),
                                    gtk_editable_get_text (g_object_get_data (row, "bpw-source")),
                                    &error))
    _bpw_review_dialog_show_error (self, error);
}

static void
bpw_review_dialog_price_clear_cb (GtkButton       *button,
                                  BpwReviewDialog *self)
{
  g_autoptr(GError) error = NULL;
  GObject *row = g_object_get_data (G_OBJECT (button), "bpw-row");

  if (!bpw_review_dialog_clear_price (self,
                                      GPOINTER_TO_UINT (g_object_get_data (row, "bpw-index")),
                                      &error))
    _bpw_review_dialog_show_error (self, error);
}

static GtkWidget *
bpw_review_price_button (GtkWidget       *row,
                         const char      *label,
                         GCallback        clicked,
                         BpwReviewDialog *self)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_object_set_data (G_OBJECT (button), "bpw-row", row);
  g_signal_connect_object (button, "clicked", clicked, self, 0);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), button);
  return button;
}

static void
bpw_review_dialog_add_price_row (BpwReviewDialog *self,
                                 guint            index,
                                 gboolean         expanded)
{
  const BpwStudyCandidate *c = bpw_study_get_candidate (self->study, index);
  const char * const units[] = { bpw_review_price_unit_label (BPW_PRICE_PER_DEVICE),
                                 bpw_review_price_unit_label (BPW_PRICE_PER_DEVICE_HOUR),
                                 NULL };
  g_autoptr(GtkStringList) list = gtk_string_list_new (units);
  GtkWidget *row = adw_expander_row_new ();
  GtkWidget *amount = adw_entry_row_new ();
  GtkWidget *unit = adw_combo_row_new ();
  GtkWidget *source = adw_entry_row_new ();
  GtkWidget *clear;
  g_autofree char *subtitle = NULL;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), c->name);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  if (c->price.set)
    {
      g_autofree char *value = g_strdup_printf ("%g", c->price.usd);

      /* Translators: "$2.49 per device-hour · vendor quote" */
      subtitle = g_strdup_printf (_("$%g %s · %s"), c->price.usd,
                                  bpw_review_price_unit_label (c->price.unit), c->price.source);
      gtk_editable_set_text (GTK_EDITABLE (amount), value);
      gtk_editable_set_text (GTK_EDITABLE (source), c->price.source);
    }
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row),
                                 subtitle != NULL ? subtitle : _("No price given"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (amount), _("Amount (US dollars)"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (unit), _("Unit"));
  adw_combo_row_set_model (ADW_COMBO_ROW (unit), G_LIST_MODEL (list));
  adw_combo_row_set_selected (ADW_COMBO_ROW (unit), c->price.set ? c->price.unit
                                                                  : BPW_PRICE_PER_DEVICE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (source),
                                 _("Source (quote, list price, cloud page)"));
  for (GtkWidget *w = amount; w != NULL; w = w == amount ? unit : w == unit ? source : NULL)
    adw_expander_row_add_row (ADW_EXPANDER_ROW (row), w);

  clear = bpw_review_price_button (row, _("_Clear"),
                                   G_CALLBACK (bpw_review_dialog_price_clear_cb), self);
  gtk_widget_set_sensitive (clear, c->price.set);
  gtk_widget_add_css_class (bpw_review_price_button (row, _("_Set"),
                                                     G_CALLBACK (bpw_review_dialog_price_set_cb),
                                                     self),
                            "suggested-action");
  g_object_set_data (G_OBJECT (row), "bpw-index", GUINT_TO_POINTER (index));
  g_object_set_data (G_OBJECT (row), "bpw-amount", amount);
  g_object_set_data (G_OBJECT (row), "bpw-unit", unit);
  g_object_set_data (G_OBJECT (row), "bpw-source", source);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), expanded);
  adw_preferences_group_add (self->prices, row);
  g_ptr_array_add (self->price_rows, row);
}

/* Rebuilt after every edit, keeping the forms the user had open. */
void
_bpw_review_dialog_refresh_prices (BpwReviewDialog *self)
{
  guint n = bpw_study_get_n_candidates (self->study);
  g_autofree gboolean *expanded = g_new0 (gboolean, n + 1);

  for (guint i = 0; i < self->price_rows->len; i++)
    {
      AdwExpanderRow *row = g_ptr_array_index (self->price_rows, i);

      if (i < n)
        expanded[i] = adw_expander_row_get_expanded (row);
      adw_preferences_group_remove (self->prices, GTK_WIDGET (row));
    }
  g_ptr_array_set_size (self->price_rows, 0);
  for (guint i = 0; i < n; i++)
    bpw_review_dialog_add_price_row (self, i, expanded[i]);
}

gboolean
bpw_review_dialog_set_price (BpwReviewDialog  *self,
                             guint             candidate,
                             const char       *amount,
                             BpwPriceUnit      unit,
                             const char       *source,
                             GError          **error)
{
  BpwStudyPrice price = { TRUE, 0, unit, (char *) source };
  g_autofree char *label = NULL;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), FALSE);
  g_return_val_if_fail (candidate < bpw_study_get_n_candidates (self->study), FALSE);

  if (!_bpw_review_parse_number (amount, _("Amount"), FALSE, &price.usd, error))
    return FALSE;
  /* Translators: an undoable edit; %s is a candidate */
  label = g_strdup_printf (_("Set the price of %s"),
                           bpw_study_get_candidate (self->study, candidate)->name);
  edit = bpw_study_edit_new_price (self->study, candidate, &price, label, error);
  return edit != NULL && _bpw_review_dialog_apply (self, edit, error);
}

gboolean
bpw_review_dialog_clear_price (BpwReviewDialog  *self,
                               guint             candidate,
                               GError          **error)
{
  g_autofree char *label = NULL;

  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), FALSE);
  g_return_val_if_fail (candidate < bpw_study_get_n_candidates (self->study), FALSE);

  /* Translators: an undoable edit; %s is a candidate */
  label = g_strdup_printf (_("Clear the price of %s"),
                           bpw_study_get_candidate (self->study, candidate)->name);
  return _bpw_review_dialog_apply (self, bpw_study_edit_new_price (self->study, candidate, NULL,
                                                                   label, NULL),
                                   error);
}
