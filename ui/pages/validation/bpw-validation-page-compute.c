/* bpw-validation-page-compute.c — the Validation page's report, in a worker thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The measurements are read from the study on the main thread (bpw_measurement_run_init()
 * copies what it needs: the window edits the study in place); the worker predicts Table 1
 * on the A100 blueprint and binds, simulates and correlates every measurement. One that
 * fails keeps its message and does not stop the others.
 */
#define G_LOG_DOMAIN "bpw-validation-page"

#include "config.h"

#include "bpw-blueprint-io.h"
#include "bpw-validation-page-private.h"

static void
bpw_validation_outcome_clear (gpointer data)
{
  BpwValidationOutcome *outcome = data;

  for (guint i = 0; i < outcome->n_runs; i++)
    {
      bpw_measurement_run_clear (&outcome->runs[i]);
      g_free (outcome->errors[i]);
    }
  g_free (outcome->runs);
  g_free (outcome->errors);
  g_clear_pointer (&outcome->report, bpw_validation_report_free);
  g_free (outcome->table1_error);
  g_free (outcome->table1_blueprint);
}

BpwValidationOutcome *
_bpw_validation_outcome_ref (BpwValidationOutcome *outcome)
{
  return g_atomic_rc_box_acquire (outcome);
}

void
_bpw_validation_outcome_unref (BpwValidationOutcome *outcome)
{
  g_atomic_rc_box_release_full (outcome, bpw_validation_outcome_clear);
}

const BpwReportSection *
_bpw_validation_outcome_section (BpwValidationOutcome *outcome,
                                 guint                 run)
{
  guint index = outcome->has_table1 ? 1 : 0;

  if (outcome->report == NULL || run >= outcome->n_runs
      || outcome->runs[run].correlation == NULL)
    return NULL;
  /* The report has a section for each run that correlated, in order. */
  for (guint i = 0; i < run; i++)
    index += outcome->runs[i].correlation != NULL;
  return index < outcome->report->sections->len
         ? g_ptr_array_index (outcome->report->sections, index) : NULL;
}

/* Main thread: the measurements of @study, ready to execute. */
static BpwValidationOutcome *
bpw_validation_outcome_new (BpwStudy *study,
                            gboolean  held_out)
{
  BpwValidationOutcome *outcome = g_atomic_rc_box_new0 (BpwValidationOutcome);

  outcome->held_out = held_out;
  outcome->table1_blueprint = g_strdup (BPW_MEASUREMENT_TABLE1_BLUEPRINT);
  outcome->n_runs = bpw_study_get_n_measurements (study);
  outcome->runs = g_new0 (BpwMeasurementRun, MAX (outcome->n_runs, 1));
  outcome->errors = g_new0 (char *, MAX (outcome->n_runs, 1));
  for (guint i = 0; i < outcome->n_runs; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!bpw_measurement_run_init (&outcome->runs[i], study, i, &error))
        outcome->errors[i] = g_strdup (error->message);
    }
  return outcome;
}

static gpointer
bpw_validation_page_compute_work (gpointer       input,
                                  GCancellable  *cancellable,
                                  GError       **unused)
{
  BpwValidationOutcome *outcome = input;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) a100 = NULL;

  a100 = bpw_blueprint_load (BPW_MEASUREMENT_TABLE1_BLUEPRINT, NULL, &error);
  if (a100 == NULL)
    {
      outcome->table1_error = g_strdup (error->message);
      g_clear_error (&error);
    }
  outcome->has_table1 = a100 != NULL;
  for (guint i = 0; i < outcome->n_runs; i++)
    {
      if (g_cancellable_is_cancelled (cancellable))
        break;
      if (outcome->errors[i] != NULL)
        continue;
      if (!bpw_measurement_run_execute (&outcome->runs[i], &error))
        {
          outcome->errors[i] = g_strdup (error->message);
          g_clear_error (&error);
          /* A half-done run correlates nothing: the report skips it. */
          g_clear_pointer (&outcome->runs[i].correlation, bpw_correlation_free);
        }
    }
  outcome->report = bpw_measurement_run_report (outcome->runs, outcome->n_runs, a100, &error);
  if (outcome->report == NULL)
    {
      outcome->has_table1 = FALSE;
      g_free (outcome->table1_error);
      outcome->table1_error = g_strdup (error->message);
      g_clear_error (&error);
      outcome->report = bpw_measurement_run_report (outcome->runs, outcome->n_runs, NULL,
                                                    NULL);
    }
  /* Out of sample: Table 1 again, each row on efficiencies refitted without it. Ten fits;
   * where they fail the in-sample figures stand alone. */
  else if (outcome->held_out && a100 != NULL && !g_cancellable_is_cancelled (cancellable) &&
           !bpw_validation_report_add_held_out (outcome->report, a100, &error))
    g_clear_error (&error);
  /* Failures are the outcome's own, run by run: the job itself always has a result. */
  return _bpw_validation_outcome_ref (outcome);
}

static void
bpw_validation_page_compute_done (GObject      *owner,
                                  gpointer      input,
                                  gpointer      result,
                                  const GError *error)
{
  BpwValidationPage *self = BPW_VALIDATION_PAGE (owner);
  g_autoptr(BpwValidationOutcome) outcome = result;

  /* A later computation owns the page now. */
  if (outcome == NULL)
    return;
  _bpw_validation_page_show (self, outcome);
  _bpw_validation_page_set_busy (self, FALSE);
  /* Shown since this computation started without the held-out figures: add them. */
  if (!outcome->held_out && self->study != NULL && gtk_widget_get_mapped (GTK_WIDGET (self)))
    _bpw_validation_page_compute (self, self->study);
}

void
_bpw_validation_page_compute (BpwValidationPage *self,
                              BpwStudy          *study)
{
  if (study == NULL)
    {
      bpw_job_queue_invalidate (self->jobs);
      _bpw_validation_page_show (self, NULL);
      _bpw_validation_page_set_busy (self, FALSE);
      return;
    }
  _bpw_validation_page_set_busy (self, TRUE);
  bpw_job_queue_restart (self->jobs, G_OBJECT (self), bpw_validation_page_compute_work,
                         bpw_validation_outcome_new (study,
                                                     gtk_widget_get_mapped (GTK_WIDGET (self))),
                         (GDestroyNotify) _bpw_validation_outcome_unref,
                         (GDestroyNotify) _bpw_validation_outcome_unref,
                         bpw_validation_page_compute_done);
}
