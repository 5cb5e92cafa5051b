/* bpw-review-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-review-dialog"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-review-dialog-private.h"
#include "bpw-review-packet-job.h"
#include "bpw-toast.h"


G_DEFINE_FINAL_TYPE (BpwReviewDialog, bpw_review_dialog, ADW_TYPE_WINDOW)

enum { GROUP_OWNERS, GROUP_THRESHOLDS, GROUP_EVIDENCE };

static const char * const list_names[] = { "owners", "quality_thresholds", "quality_evidence" };

gboolean
_bpw_review_parse_number (const char  *text,
                          const char  *field,
                          gboolean     optional,
                          double      *value,
                          GError     **error)
{
  g_autofree char *copy = g_strstrip (g_strdelimit (g_strdup (text != NULL ? text : ""), ",",
                                                    '.'));
  char *end = NULL;

  if (copy[0] == '\0' && optional)
    {
      *value = NAN;
      return TRUE;
    }
  *value = g_ascii_strtod (copy, &end);
  if (copy[0] == '\0' || end == NULL || *end != '\0' || !isfinite (*value))
    {
      /* Translators: %s: a field (Value, Baseline…), then what was typed */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: “%s” is not a number"),
                   field, text != NULL ? text : "");
      return FALSE;
    }
  return TRUE;
}

gboolean
_bpw_review_dialog_apply (BpwReviewDialog  *self,
                          BpwStudyEdit     *edit,
                          GError          **error)
{
  gboolean ok;

  ok = self->apply (edit, self->apply_data, error);
  bpw_review_dialog_refresh (self);
  return ok;
}

void
_bpw_review_dialog_show_error (BpwReviewDialog *self,
                               GError          *error)
{
  g_autofree char *escaped = g_markup_escape_text (error->message, -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_timeout (toast, 8);
  bpw_toast_show (self->toasts, toast);
}

/* Rows of the study's items ------------------------------------------------------- */

static void
bpw_review_dialog_remove_clicked_cb (GtkButton       *button,
                                     BpwReviewDialog *self)
{
  g_autoptr(GError) error = NULL;
  guint group = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "bpw-group"));
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "bpw-index"));

  if (!bpw_review_dialog_remove (self, list_names[group], index, &error))
    _bpw_review_dialog_show_error (self, error);
}

static void
bpw_review_dialog_add_item_row (BpwReviewDialog *self,
                                guint            group,
                                guint            index,
                                const char      *title,
                                const char      *subtitle)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_set_tooltip_text (remove, _("Remove"));
  g_object_set_data (G_OBJECT (remove), "bpw-group", GUINT_TO_POINTER (group));
  g_object_set_data (G_OBJECT (remove), "bpw-index", GUINT_TO_POINTER (index));
  g_signal_connect_object (remove, "clicked", G_CALLBACK (bpw_review_dialog_remove_clicked_cb),
                           self, 0);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), remove);
  adw_preferences_group_add (self->groups[group], row);
  g_ptr_array_add (self->item_rows[group], row);
}

static const char *
bpw_review_verdict_label (BpwQualityVerdict verdict)
{
  switch (verdict)
    {
    case BPW_QUALITY_VALIDATED:
      /* Translators: the quality evidence of a precision mode is within its thresholds */
      return _("validated");
    case BPW_QUALITY_FAILED:
      return _("misses its threshold");
    case BPW_QUALITY_MISSING:
    default:
      return _("no evidence");
    }
}

void
bpw_review_dialog_refresh (BpwReviewDialog *self)
{
  g_return_if_fail (BPW_IS_REVIEW_DIALOG (self));

  for (guint g = 0; g < G_N_ELEMENTS (self->groups); g++)
    {
      for (guint i = 0; i < self->item_rows[g]->len; i++)
        adw_preferences_group_remove (self->groups[g], g_ptr_array_index (self->item_rows[g], i));
      g_ptr_array_set_size (self->item_rows[g], 0);
    }

  for (guint i = 0; i < bpw_study_get_n_owners (self->study); i++)
    {
      const BpwStudyOwner *o = bpw_study_get_owner (self->study, i);
      g_autofree char *subtitle = g_strdup_printf ("%s%s%s", o->role,
                                                   o->contact != NULL ? " · " : "",
                                                   o->contact != NULL ? o->contact : "");

      bpw_review_dialog_add_item_row (self, GROUP_OWNERS, i, o->name, subtitle);
    }
  for (guint i = 0; i < bpw_study_get_n_quality_thresholds (self->study); i++)
    {
      const BpwQualityThreshold *t = bpw_study_get_quality_threshold (self->study, i);
      g_autofree char *subtitle = NULL;

      subtitle = t->scale == BPW_QUALITY_SCALE_RELATIVE
        /* Translators: "at most 1 % worse (relative), higher is better · source" */
        ? g_strdup_printf (_("at most %g %% worse (relative), %s is better · %s"),
                           100.0 * t->max_degradation,
                           t->better == BPW_QUALITY_HIGHER_IS_BETTER ? _("higher") : _("lower"),
                           t->source)
        : g_strdup_printf (_("at most %g worse (absolute), %s is better · %s"),
                           t->max_degradation,
                           t->better == BPW_QUALITY_HIGHER_IS_BETTER ? _("higher") : _("lower"),
                           t->source);
      bpw_review_dialog_add_item_row (self, GROUP_THRESHOLDS, i, t->metric, subtitle);
    }
  for (guint i = 0; i < bpw_study_get_n_quality_evidence (self->study); i++)
    {
      const BpwQualityEvidence *e = bpw_study_get_quality_evidence (self->study, i);
      const BpwQualityThreshold *t = bpw_study_lookup_quality_threshold (self->study, e->metric);
      g_autofree char *title = g_strdup_printf ("%s · %s", e->mode, e->metric);
      g_autofree char *subtitle = NULL;

      /* Translators: "0.683 against 0.687: within its threshold; mode fp8: validated · source" */
      subtitle = g_strdup_printf (_("%g against %g: %s; mode %s: %s · %s"), e->value,
                                  e->baseline,
                                  t != NULL && bpw_quality_evidence_passes (e, t)
                                  ? _("within its threshold") : _("beyond its threshold"),
                                  e->mode,
                                  bpw_review_verdict_label (bpw_study_judge_quality_mode (self->study,
                                                                                         e->mode)),
                                  e->source);
      bpw_review_dialog_add_item_row (self, GROUP_EVIDENCE, i, title, subtitle);
    }
  _bpw_review_dialog_refresh_prices (self);
}

/* Changes: each replaces a list whole, as one edit ---------------------------------- */

gboolean
bpw_review_dialog_add_owner (BpwReviewDialog  *self,
                             const char       *role,
                             const char       *name,
                             const char       *contact,
                             GError          **error)
{
  guint n = bpw_study_get_n_owners (self->study);
  g_autofree BpwStudyOwner *owners = g_new0 (BpwStudyOwner, n + 1);
  g_autofree char *label = NULL;

  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), FALSE);

  for (guint i = 0; i < n; i++)
    owners[i] = *bpw_study_get_owner (self->study, i);
  owners[n] = (BpwStudyOwner) {
    .role = (char *) role, .name = (char *) name,
    .contact = contact != NULL && contact[0] != '\0' ? (char *) contact : NULL,
  };
  /* Translators: an undoable edit; %s is a person */
  label = g_strdup_printf (_("Add owner %s"), name);
  return _bpw_review_dialog_apply (self, bpw_study_edit_new_owners (self->study, owners, n + 1,
                                                                    label), error);
}

gboolean
bpw_review_dialog_add_threshold (BpwReviewDialog     *self,
                                 const char          *metric,
                                 const char          *max_degradation,
                                 BpwQualityScale      scale,
                                 BpwQualityDirection  better,
                                 const char          *source,
                                 GError             **error)
{
  guint n = bpw_study_get_n_quality_thresholds (self->study);
  g_autofree BpwQualityThreshold *thresholds = g_new0 (BpwQualityThreshold, n + 1);
  g_autofree char *label = NULL;
  double max;

  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), FALSE);

  if (!_bpw_review_parse_number (max_degradation, _("Maximum degradation"), FALSE, &max, error))
    return FALSE;
  /* Typed as a percentage on a relative scale ("1" is 1 %), as the row shows it. */
  if (scale == BPW_QUALITY_SCALE_RELATIVE)
    max /= 100.0;
  for (guint i = 0; i < n; i++)
    thresholds[i] = *bpw_study_get_quality_threshold (self->study, i);
  thresholds[n] = (BpwQualityThreshold) {
    .metric = (char *) metric, .max_degradation = max, .scale = scale, .better = better,
    .source = (char *) source,
  };
  /* Translators: an undoable edit; %s is a quality metric */
  label = g_strdup_printf (_("Add quality threshold %s"), metric);
  return _bpw_review_dialog_apply (self,
                                   bpw_study_edit_new_quality_thresholds (self->study, thresholds,
                                                                          n + 1, label),
                                   error);
}

gboolean
bpw_review_dialog_add_evidence (BpwReviewDialog  *self,
                                const char       *mode,
                                const char       *metric,
                                const char       *value,
                                const char       *baseline,
                                const char       *max_degradation,
                                const char       *source,
                                GError          **error)
{
  guint n = bpw_study_get_n_quality_evidence (self->study);
  g_autofree BpwQualityEvidence *evidence = g_new0 (BpwQualityEvidence, n + 1);
  const BpwQualityThreshold *threshold;
  g_autofree char *label = NULL;
  double v, b, max;

  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), FALSE);

  if (!_bpw_review_parse_number (value, _("Value"), FALSE, &v, error)
      || !_bpw_review_parse_number (baseline, _("Baseline"), FALSE, &b, error)
      || !_bpw_review_parse_number (max_degradation, _("Own limit"), TRUE, &max, error))
    return FALSE;
  threshold = bpw_study_lookup_quality_threshold (self->study, metric);
  if (!isnan (max) && threshold != NULL && threshold->scale == BPW_QUALITY_SCALE_RELATIVE)
    max /= 100.0;
  for (guint i = 0; i < n; i++)
    evidence[i] = *bpw_study_get_quality_evidence (self->study, i);
  evidence[n] = (BpwQualityEvidence) {
    .mode = (char *) mode, .metric = (char *) metric, .value = v, .baseline = b,
    .max_degradation = max, .source = (char *) source,
  };
  /* Translators: an undoable edit; %s is a precision mode and a metric */
  label = g_strdup_printf (_("Add quality evidence %s · %s"), mode, metric);
  return _bpw_review_dialog_apply (self,
                                   bpw_study_edit_new_quality_evidence (self->study, evidence,
                                                                        n + 1, label),
                                   error);
}

gboolean
bpw_review_dialog_remove (BpwReviewDialog  *self,
                          const char       *list,
                          guint             index,
                          GError          **error)
{
  BpwStudyEdit *edit = NULL;

  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), FALSE);

  if (g_str_equal (list, "owners") && index < bpw_study_get_n_owners (self->study))
    {
      guint n = bpw_study_get_n_owners (self->study);
      g_autofree BpwStudyOwner *owners = g_new0 (BpwStudyOwner, n);

      for (guint i = 0, k = 0; i < n; i++)
        if (i != index)
          owners[k++] = *bpw_study_get_owner (self->study, i);
      edit = bpw_study_edit_new_owners (self->study, owners, n - 1, _("Remove owner"));
    }
  else if (g_str_equal (list, "quality_thresholds")
           && index < bpw_study_get_n_quality_thresholds (self->study))
    {
      guint n = bpw_study_get_n_quality_thresholds (self->study);
      g_autofree BpwQualityThreshold *thresholds = g_new0 (BpwQualityThreshold, n);

      for (guint i = 0, k = 0; i < n; i++)
        if (i != index)
          thresholds[k++] = *bpw_study_get_quality_threshold (self->study, i);
      edit = bpw_study_edit_new_quality_thresholds (self->study, thresholds, n - 1,
                                                    _("Remove quality threshold"));
    }
  else if (g_str_equal (list, "quality_evidence")
           && index < bpw_study_get_n_quality_evidence (self->study))
    {
      guint n = bpw_study_get_n_quality_evidence (self->study);
      g_autofree BpwQualityEvidence *evidence = g_new0 (BpwQualityEvidence, n);

      for (guint i = 0, k = 0; i < n; i++)
        if (i != index)
          evidence[k++] = *bpw_study_get_quality_evidence (self->study, i);
      edit = bpw_study_edit_new_quality_evidence (self->study, evidence, n - 1,
                                                  _("Remove quality evidence"));
    }
  if (edit == NULL)
    {
      /* Translators: %u: a position; %s: a list of the study (owners, quality_evidence) */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("The study has no item %u in %s."),
                   index, list);
      return FALSE;
    }
  return _bpw_review_dialog_apply (self, edit, error);
}

/* The forms ------------------------------------------------------------------------ */

static const char *
bpw_review_text (AdwEntryRow *row)
{
  return gtk_editable_get_text (GTK_EDITABLE (row));
}

static void
bpw_review_clear (AdwEntryRow *first,
                  ...)
{
  va_list args;

  va_start (args, first);
  for (AdwEntryRow *row = first; row != NULL; row = va_arg (args, AdwEntryRow *))
    gtk_editable_set_text (GTK_EDITABLE (row), "");
  va_end (args);
}

static void
bpw_review_dialog_add_owner_cb (BpwReviewDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (!bpw_review_dialog_add_owner (self, bpw_review_text (self->owner_role),
                                    bpw_review_text (self->owner_name),
                                    bpw_review_text (self->owner_contact), &error))
    _bpw_review_dialog_show_error (self, error);
  else
    bpw_review_clear (self->owner_role, self->owner_name, self->owner_contact, NULL);
}

static void
bpw_review_dialog_add_threshold_cb (BpwReviewDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (!bpw_review_dialog_add_threshold (self, bpw_review_text (self->threshold_metric),
                                        bpw_review_text (self->threshold_max),
                                        adw_combo_row_get_selected (self->threshold_scale),
                                        adw_combo_row_get_selected (self->threshold_better),
                                        bpw_review_text (self->threshold_source), &error))
    _bpw_review_dialog_show_error (self, error);
  else
    bpw_review_clear (self->threshold_metric, self->threshold_max, self->threshold_source,
                      NULL);
}

static void
bpw_review_dialog_add_evidence_cb (BpwReviewDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (!bpw_review_dialog_add_evidence (self, bpw_review_text (self->evidence_mode),
                                       bpw_review_text (self->evidence_metric),
                                       bpw_review_text (self->evidence_value),
                                       bpw_review_text (self->evidence_baseline),
                                       bpw_review_text (self->evidence_max),
                                       bpw_review_text (self->evidence_source), &error))
    _bpw_review_dialog_show_error (self, error);
  else
    bpw_review_clear (self->evidence_mode, self->evidence_metric, self->evidence_value,
                      self->evidence_baseline, self->evidence_max, self->evidence_source, NULL);
}

static AdwEntryRow *
bpw_review_entry (AdwExpanderRow *form,
                  const char     *title)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_expander_row_add_row (form, row);
  return ADW_ENTRY_ROW (row);
}

static AdwComboRow *
bpw_review_combo (AdwExpanderRow     *form,
                  const char         *title,
                  const char * const *choices)
{
  GtkWidget *row = adw_combo_row_new ();
  g_autoptr(GtkStringList) list = gtk_string_list_new (choices);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (list));
  adw_expander_row_add_row (form, row);
  return ADW_COMBO_ROW (row);
}

/* "Add an owner…": an expander with the form's rows and its button. */
static AdwExpanderRow *
bpw_review_form (AdwPreferencesGroup *group,
                 const char          *title,
                 const char          *button_label,
                 GCallback            clicked,
                 BpwReviewDialog     *self)
{
  GtkWidget *form = adw_expander_row_new ();
  GtkWidget *button = gtk_button_new_with_mnemonic (button_label);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (form), title);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "suggested-action");
  g_signal_connect_object (button, "clicked", clicked, self, G_CONNECT_SWAPPED);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (form), button);
  adw_preferences_group_add (group, form);
  return ADW_EXPANDER_ROW (form);
}

static AdwPreferencesGroup *
bpw_review_group (AdwPreferencesPage *page,
                  const char         *title,
                  const char         *description)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), description);
  adw_preferences_page_add (page, ADW_PREFERENCES_GROUP (group));
  return ADW_PREFERENCES_GROUP (group);
}

static void
bpw_review_dialog_packet_cb (GObject      *source,
                             GAsyncResult *result,
                             gpointer      user_data)
{
  g_autoptr(BpwReviewDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *markdown = NULL;
  const char *decision = NULL;

  if (!bpw_review_packet_job_finish (result, NULL, &markdown, &decision, &error)
      && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->cancellable);
  gtk_spinner_stop (self->packet_spinner);
  gtk_widget_set_visible (GTK_WIDGET (self->packet_spinner), FALSE);
  if (markdown == NULL)
    {
      adw_action_row_set_subtitle (self->packet_row, error->message);
      return;
    }
  g_free (self->markdown);
  self->markdown = g_steal_pointer (&markdown);
  self->decision = decision;
  gtk_text_buffer_set_text (self->packet_text, self->markdown, -1);
  /* Translators: the review packet's recommendation: go, conditional or no-go */
  {
    g_autofree char *subtitle = g_strdup_printf (_("Recommendation: %s"), decision);

    adw_action_row_set_subtitle (self->packet_row, subtitle);
  }
}

void
bpw_review_dialog_preview (BpwReviewDialog *self)
{
  g_return_if_fail (BPW_IS_REVIEW_DIALOG (self));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  gtk_widget_set_visible (GTK_WIDGET (self->packet_spinner), TRUE);
  gtk_spinner_start (self->packet_spinner);
  adw_action_row_set_subtitle (self->packet_row,
                               _("Building the packet: searches and refits take seconds"));
  bpw_review_packet_job_run (self->study, self->cancellable, bpw_review_dialog_packet_cb,
                             g_object_ref (self));
}

gboolean
bpw_review_dialog_get_busy (BpwReviewDialog *self)
{
  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), FALSE);
  return self->cancellable != NULL;
}

const char *
bpw_review_dialog_get_preview (BpwReviewDialog *self)
{
  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), NULL);
  return self->markdown;
}

const char *
bpw_review_dialog_get_decision (BpwReviewDialog *self)
{
  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), NULL);
  return self->decision;
}

static void
bpw_review_dialog_export_cb (BpwReviewDialog *self)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));

  if (parent != NULL)
    gtk_widget_activate_action (GTK_WIDGET (parent), "win.export-packet", NULL);
}

/* "Review Packet": Preview and Export… buttons, and the packet read-only below. */
static void
bpw_review_dialog_build_packet (BpwReviewDialog    *self,
                                AdwPreferencesPage *page)
{
  AdwPreferencesGroup *group =
    bpw_review_group (page, _("Review Packet"),
                      _("What the review signs, built from the study as it is: metadata, "
                        "thresholds and evidence, candidates, bottleneck evidence, "
                        "mitigations, the validation matrix, owners and the "
                        "recommendation."));
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *preview = gtk_button_new_with_mnemonic (_("_Preview"));
  GtkWidget *export = gtk_button_new_with_mnemonic (_("_Export…"));
  GtkWidget *spinner = gtk_spinner_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_text_view_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Packet"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Not built yet"));
  gtk_widget_set_visible (spinner, FALSE);
  for (GtkWidget *w = preview; w != NULL; w = w == preview ? export : NULL)
    gtk_widget_set_valign (w, GTK_ALIGN_CENTER);
  g_signal_connect_object (preview, "clicked", G_CALLBACK (bpw_review_dialog_preview), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (export, "clicked", G_CALLBACK (bpw_review_dialog_export_cb), self,
                           G_CONNECT_SWAPPED);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spinner);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), preview);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), export);
  adw_preferences_group_add (group, row);

  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 8);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 280);
  gtk_widget_set_margin_top (scrolled, 12);
  gtk_widget_add_css_class (scrolled, "card");
  adw_preferences_group_add (group, scrolled);

  self->packet_row = ADW_ACTION_ROW (row);
  self->packet_spinner = GTK_SPINNER (spinner);
  self->packet_text = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
}

static void
bpw_review_dialog_build (BpwReviewDialog *self)
{
  const char * const scales[] = { _("Relative (%)"), _("Absolute"), NULL };
  const char * const directions[] = { _("Higher is better"), _("Lower is better"), NULL };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *page = adw_preferences_page_new ();
  AdwExpanderRow *form;

  self->toasts = ADW_TOAST_OVERLAY (adw_toast_overlay_new ());
  gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
  gtk_widget_set_vexpand (page, TRUE);
  gtk_box_append (GTK_BOX (box), page);
  adw_toast_overlay_set_child (self->toasts, box);
  adw_window_set_content (ADW_WINDOW (self), GTK_WIDGET (self->toasts));

  self->groups[GROUP_OWNERS] =
    bpw_review_group (ADW_PREFERENCES_PAGE (page), _("Owners"),
                      _("Who answers for the review and its recommendation."));
  form = bpw_review_form (self->groups[GROUP_OWNERS], _("Add an Owner"), _("_Add"),
                          G_CALLBACK (bpw_review_dialog_add_owner_cb), self);
  self->owner_role = bpw_review_entry (form, _("Role"));
  self->owner_name = bpw_review_entry (form, _("Name"));
  self->owner_contact = bpw_review_entry (form, _("Contact (optional)"));

  self->groups[GROUP_THRESHOLDS] =
    bpw_review_group (ADW_PREFERENCES_PAGE (page), _("Quality Thresholds"),
                      _("How far each quality metric may degrade under a reduced precision "
                        "or sparsity. A mode whose evidence misses its threshold is never "
                        "counted in the recommendation."));
  form = bpw_review_form (self->groups[GROUP_THRESHOLDS], _("Add a Threshold"), _("_Add"),
                          G_CALLBACK (bpw_review_dialog_add_threshold_cb), self);
  self->threshold_metric = bpw_review_entry (form, _("Metric"));
  self->threshold_max = bpw_review_entry (form, _("Maximum degradation"));
  self->threshold_scale = bpw_review_combo (form, _("Scale"), scales);
  self->threshold_better = bpw_review_combo (form, _("Direction"), directions);
  self->threshold_source = bpw_review_entry (form, _("Source"));

  self->groups[GROUP_EVIDENCE] =
    bpw_review_group (ADW_PREFERENCES_PAGE (page), _("Quality Evidence"),
                      _("Measured quality of each precision or sparsity mode against its "
                        "baseline, for a threshold’s metric."));
  form = bpw_review_form (self->groups[GROUP_EVIDENCE], _("Add Evidence"), _("_Add"),
                          G_CALLBACK (bpw_review_dialog_add_evidence_cb), self);
  self->evidence_mode = bpw_review_entry (form, _("Mode (fp8, int8-weight, sparsity-2:4)"));
  self->evidence_metric = bpw_review_entry (form, _("Metric"));
  self->evidence_value = bpw_review_entry (form, _("Value"));
  self->evidence_baseline = bpw_review_entry (form, _("Baseline"));
  self->evidence_max = bpw_review_entry (form, _("Own limit (optional)"));
  self->evidence_source = bpw_review_entry (form, _("Source"));

  self->prices =
    bpw_review_group (ADW_PREFERENCES_PAGE (page), _("Prices"),
                      _("What each candidate costs, with where the figure comes from: per "
                        "device bought, or per device-hour rented. Per-dollar charts need "
                        "a price for every candidate, all in one unit."));

  bpw_review_dialog_build_packet (self, ADW_PREFERENCES_PAGE (page));
}

static void
bpw_review_dialog_dispose (GObject *object)
{
  BpwReviewDialog *self = (BpwReviewDialog *) object;

  for (guint g = 0; g < G_N_ELEMENTS (self->item_rows); g++)
    g_clear_pointer (&self->item_rows[g], g_ptr_array_unref);
  g_clear_pointer (&self->price_rows, g_ptr_array_unref);
  g_clear_object (&self->study);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->markdown, g_free);

  G_OBJECT_CLASS (bpw_review_dialog_parent_class)->dispose (object);
}

static void
bpw_review_dialog_class_init (BpwReviewDialogClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = bpw_review_dialog_dispose;
}

static void
bpw_review_dialog_init (BpwReviewDialog *self)
{
  for (guint g = 0; g < G_N_ELEMENTS (self->item_rows); g++)
    self->item_rows[g] = g_ptr_array_new ();
  self->price_rows = g_ptr_array_new ();
  gtk_window_set_title (GTK_WINDOW (self), _("Review Data"));
  gtk_window_set_default_size (GTK_WINDOW (self), 640, 720);
  bpw_review_dialog_build (self);
}

BpwReviewDialog *
bpw_review_dialog_new (GtkWindow          *parent,
                       BpwStudy           *study,
                       BpwReviewApplyFunc  apply,
                       gpointer            user_data)
{
  BpwReviewDialog *self;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (apply != NULL, NULL);

  self = g_object_new (BPW_TYPE_REVIEW_DIALOG, "transient-for", parent, NULL);
  self->study = g_object_ref (study);
  self->apply = apply;
  self->apply_data = user_data;
  bpw_review_dialog_refresh (self);
  return self;
}

BpwStudy *
bpw_review_dialog_get_study (BpwReviewDialog *self)
{
  g_return_val_if_fail (BPW_IS_REVIEW_DIALOG (self), NULL);
  return self->study;
}
