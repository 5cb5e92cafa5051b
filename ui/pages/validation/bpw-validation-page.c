/* bpw-validation-page.c — the Validation page: predicted against measured
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-validation-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-error.h"
#include "bpw-validation-page-private.h"

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwValidationPage, bpw_validation_page, GTK_TYPE_WIDGET)

void
_bpw_validation_page_set_busy (BpwValidationPage *self,
                               gboolean           busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static const BpwMeasurementRun *
bpw_validation_page_run (BpwValidationPage  *self,
                         guint               section,
                         GError            **error)
{
  const BpwMeasurementRun *run;

  if (self->outcome == NULL || section == 0 || section > self->outcome->n_runs)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("There is no measurement in section %u of the Validation page."), section);
      return NULL;
    }
  run = &self->outcome->runs[section - 1];
  if (run->correlation == NULL)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Measurement “%s” could not be correlated, so there is nothing to "
                     "calibrate on: %s"), run->name != NULL ? run->name : "",
                   self->outcome->errors[section - 1]);
      return NULL;
    }
  return run;
}

static void
bpw_validation_page_error_response_cb (AdwMessageDialog *dialog)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
}

void
_bpw_validation_page_calibrate_clicked (BpwValidationPage *self,
                                        guint              section)
{
  g_autoptr(GError) error = NULL;
  GtkRoot *root;
  GtkWidget *dialog;

  if (bpw_validation_page_calibrate (self, section, &error))
    return;
  root = gtk_widget_get_root (GTK_WIDGET (self));
  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Calibration Failed"), error->message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  g_signal_connect (dialog, "response", G_CALLBACK (bpw_validation_page_error_response_cb),
                    NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
bpw_validation_page_dispose (GObject *object)
{
  BpwValidationPage *self = BPW_VALIDATION_PAGE (object);

  g_clear_pointer (&self->jobs, bpw_job_queue_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_VALIDATION_PAGE);
  g_clear_pointer (&self->section_list, g_array_unref);
  g_clear_pointer (&self->outcome, _bpw_validation_outcome_unref);
  g_clear_pointer (&self->snapshot, bpw_study_snapshot_unref);
  g_clear_object (&self->study);

  G_OBJECT_CLASS (bpw_validation_page_parent_class)->dispose (object);
}

static void
bpw_validation_page_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  BpwValidationPage *self = BPW_VALIDATION_PAGE (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The leave-one-out figures cost ten refits: they are computed once the page is shown,
 * not behind every edit of a study whose Validation page nobody looks at. */
static void
bpw_validation_page_map (GtkWidget *widget)
{
  BpwValidationPage *self = BPW_VALIDATION_PAGE (widget);

  GTK_WIDGET_CLASS (bpw_validation_page_parent_class)->map (widget);
  if (self->study != NULL && self->outcome != NULL && !self->outcome->held_out)
    _bpw_validation_page_compute (self, self->study);
}

static void
bpw_validation_page_class_init (BpwValidationPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_validation_page_dispose;
  object_class->get_property = bpw_validation_page_get_property;
  widget_class->map = bpw_validation_page_map;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/"
                                               "bpw-validation-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwValidationPage, state);
  gtk_widget_class_bind_template_child (widget_class, BpwValidationPage, sections);
  gtk_widget_class_bind_template_child (widget_class, BpwValidationPage, sidebar);
  gtk_widget_class_bind_template_child (widget_class, BpwValidationPage, hint);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "validationpage");
}

static void
bpw_validation_page_init (BpwValidationPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->jobs = bpw_job_queue_new ();
  self->section_list = g_array_new (FALSE, TRUE, sizeof (BpwValidationSection));
  g_array_set_clear_func (self->section_list, _bpw_validation_section_clear);
}

gboolean
bpw_validation_page_set_study (BpwValidationPage *self,
                               BpwStudy          *study)
{
  g_autoptr(BpwStudySnapshot) snapshot = NULL;

  g_return_val_if_fail (BPW_IS_VALIDATION_PAGE (self), FALSE);
  g_return_val_if_fail (study == NULL || BPW_IS_STUDY (study), FALSE);

  g_set_object (&self->study, study);
  if (study != NULL)
    {
      /* Most edits change nothing the report reads: an equal study. */
      if (self->snapshot != NULL && bpw_study_snapshot_matches (self->snapshot, study, NULL))
        return FALSE;
      snapshot = bpw_study_snapshot_new (study, NULL);
    }
  else if (self->snapshot == NULL && self->outcome == NULL)
    return FALSE;
  g_clear_pointer (&self->snapshot, bpw_study_snapshot_unref);
  self->snapshot = g_steal_pointer (&snapshot);
  _bpw_validation_page_compute (self, study);
  return self->snapshot != NULL;
}

void
bpw_validation_page_set_apply_func (BpwValidationPage      *self,
                                    BpwValidationApplyFunc  func,
                                    gpointer                user_data)
{
  g_return_if_fail (BPW_IS_VALIDATION_PAGE (self));

  self->apply = func;
  self->apply_data = user_data;
}

gboolean
bpw_validation_page_get_busy (BpwValidationPage *self)
{
  g_return_val_if_fail (BPW_IS_VALIDATION_PAGE (self), FALSE);
  return self->busy;
}

const BpwValidationReport *
bpw_validation_page_get_report (BpwValidationPage *self)
{
  g_return_val_if_fail (BPW_IS_VALIDATION_PAGE (self), NULL);
  return self->outcome != NULL ? self->outcome->report : NULL;
}

guint
bpw_validation_page_get_n_sections (BpwValidationPage *self)
{
  g_return_val_if_fail (BPW_IS_VALIDATION_PAGE (self), 0);
  return self->section_list->len;
}

GListModel *
bpw_validation_page_get_table (BpwValidationPage  *self,
                               guint               section,
                               BpwValidationTable  table)
{
  g_return_val_if_fail (BPW_IS_VALIDATION_PAGE (self), NULL);
  g_return_val_if_fail ((guint) table < BPW_VALIDATION_N_TABLES, NULL);

  if (section >= self->section_list->len)
    return NULL;
  return (GListModel *) g_array_index (self->section_list, BpwValidationSection,
                                       section).tables[table];
}

const char *
bpw_validation_page_get_error (BpwValidationPage *self,
                               guint              section)
{
  g_return_val_if_fail (BPW_IS_VALIDATION_PAGE (self), NULL);

  if (section >= self->section_list->len)
    return NULL;
  return g_array_index (self->section_list, BpwValidationSection, section).error;
}

void
bpw_validation_page_show_section (BpwValidationPage *self,
                                  guint              section)
{
  g_return_if_fail (BPW_IS_VALIDATION_PAGE (self));

  if (section < self->section_list->len)
    gtk_stack_set_visible_child (self->sections,
                                 g_array_index (self->section_list, BpwValidationSection,
                                                section).widget);
}

gboolean
bpw_validation_page_calibrate (BpwValidationPage  *self,
                               guint               section,
                               GError            **error)
{
  g_autoptr(BpwCalibration) calibration = NULL;
  g_autofree char *label = NULL;
  const BpwMeasurementRun *run;
  BpwStudyEdit *edit;
  guint index = 0;
  gboolean ok;

  g_return_val_if_fail (BPW_IS_VALIDATION_PAGE (self), FALSE);

  run = bpw_validation_page_run (self, section, error);
  if (run == NULL)
    return FALSE;
  /* The report is of the study as it was; the edit goes to the study as it is now. */
  if (self->study == NULL || !bpw_study_lookup_measurement (self->study, run->name, &index))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("The study no longer has measurement “%s”."), run->name);
      return FALSE;
    }
  /* A few fit rounds over one step's operations: milliseconds, like an edit. */
  calibration = bpw_measurement_run_calibrate (run, error);
  if (calibration == NULL)
    return FALSE;
  /* Translators: an undoable edit, also shown when it is done: the calibrated blueprint,
   * the measurement */
  label = g_strdup_printf (_("Added blueprint “%s”, calibrated on “%s”"),
                           calibration->blueprint->name, run->name);
  edit = bpw_study_edit_new_calibration (self->study, index, calibration->blueprint, label);
  if (self->apply != NULL)
    return self->apply (edit, self->apply_data, error);
  ok = bpw_study_edit_apply (edit, self->study, error);
  bpw_study_edit_free (edit);
  if (ok)
    bpw_validation_page_set_study (self, self->study);
  return ok;
}
