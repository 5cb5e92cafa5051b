/* bpw-measurement-run.c — a study's measurement correlated with its candidate's step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-measurement-run"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-measurement-run.h"

#include "bpw-error.h"

gboolean
bpw_measurement_run_init (BpwMeasurementRun  *run,
                          BpwStudy           *study,
                          guint               index,
                          GError            **error)
{
  const BpwStudyMeasurement *m;
  guint candidate = G_MAXUINT, scenario = G_MAXUINT;

  g_return_val_if_fail (run != NULL, FALSE);

  *run = (BpwMeasurementRun) { 0 };
  g_return_val_if_fail (BPW_IS_STUDY (study), FALSE);
  g_return_val_if_fail (index < bpw_study_get_n_measurements (study), FALSE);

  m = bpw_study_get_measurement (study, index);
  run->name = g_strdup (m->name);
  run->candidate = g_strdup (m->candidate);
  run->scenario = g_strdup (m->scenario);
  run->path = g_strdup (m->path);
  run->sha256 = g_strdup (m->sha256);
  run->calibrated = g_strdup (m->calibrated);
  run->options = (BpwCorrelateOptions) { .device = m->device, .rank = m->rank };
  for (guint c = 0; c < bpw_study_get_n_candidates (study); c++)
    if (g_strcmp0 (bpw_study_get_candidate (study, c)->name, m->candidate) == 0)
      candidate = c;
  bpw_study_lookup_scenario (study, m->scenario, &scenario);
  if (candidate == G_MAXUINT || scenario == G_MAXUINT)
    {
      /* Both are checked on load; only an edit that renamed them gets here. */
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("measurement “%s”: the study no longer has candidate “%s” or scenario "
                   "“%s”"), m->name, m->candidate, m->scenario);
      return FALSE;
    }
  if (!bpw_candidate_run_init (&run->run, study, candidate, scenario, error))
    {
      g_prefix_error (error, _("measurement “%s”: "), m->name);
      return FALSE;
    }
  if (m->calibrated != NULL)
    {
      run->calibrated_bp = bpw_study_load_blueprint (study, m->calibrated, error);
      if (run->calibrated_bp == NULL)
        {
          g_prefix_error (error, _("measurement “%s”: "), m->name);
          return FALSE;
        }
    }
  return TRUE;
}

/* Binds @run with @blueprint in place of its own (nullable: its own), simulates the step
 * and correlates @run's profile with it. */
static gboolean
bpw_measurement_run_correlate (BpwMeasurementRun  *run,
                               BpwBlueprint       *blueprint,
                               BpwPlan           **plan,
                               BpwSimulation     **sim,
                               BpwCorrelation    **correlation,
                               GError            **error)
{
  BpwCandidateRun bound = run->run;
  BpwSimOptions options = { 0 };

  if (blueprint != NULL)
    bound.blueprint = blueprint;
  *plan = bpw_candidate_run_bind (&bound, error);
  if (*plan == NULL)
    return FALSE;
  if (!(*plan)->legal)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("candidate “%s” cannot run scenario “%s” on %s: its plan is illegal, so "
                   "there is no simulated step to compare with"), run->candidate, run->scenario,
                   bound.blueprint->name);
      return FALSE;
    }
  *sim = bpw_simulation_new (*plan, &options, error);
  if (*sim == NULL)
    return FALSE;
  *correlation = bpw_correlate (*sim, run->profile, &run->options, error);
  return *correlation != NULL;
}

gboolean
bpw_measurement_run_execute (BpwMeasurementRun  *run,
                             GError            **error)
{
  g_autofree char *digest = NULL;
  BpwStudyMeasurement m = { .path = run->path, .sha256 = run->sha256 };
  gboolean ok;

  g_return_val_if_fail (run != NULL && run->run.blueprint != NULL, FALSE);

  ok = bpw_study_measurement_verify (&m, &run->changed, &digest, error);
  if (ok)
    run->profile = bpw_profile_load_file (run->path, error);
  ok = ok && run->profile != NULL
       && bpw_measurement_run_correlate (run, NULL, &run->plan, &run->sim, &run->correlation,
                                         error)
       && (run->calibrated_bp == NULL
           || bpw_measurement_run_correlate (run, run->calibrated_bp, &run->calibrated_plan,
                                             &run->calibrated_sim,
                                             &run->calibrated_correlation, error));
  if (!ok)
    g_prefix_error (error, _("measurement “%s”: "), run->name);
  return ok;
}

void
bpw_measurement_run_clear (BpwMeasurementRun *run)
{
  /* Correlations borrow the simulations and the profile; simulations the plans. */
  g_clear_pointer (&run->calibrated_correlation, bpw_correlation_free);
  g_clear_pointer (&run->correlation, bpw_correlation_free);
  g_clear_pointer (&run->calibrated_sim, bpw_simulation_free);
  g_clear_pointer (&run->sim, bpw_simulation_free);
  g_clear_pointer (&run->calibrated_plan, bpw_plan_free);
  g_clear_pointer (&run->plan, bpw_plan_free);
  g_clear_pointer (&run->profile, bpw_profile_free);
  g_clear_pointer (&run->calibrated_bp, bpw_blueprint_free);
  bpw_candidate_run_clear (&run->run);
  g_clear_pointer (&run->name, g_free);
  g_clear_pointer (&run->candidate, g_free);
  g_clear_pointer (&run->scenario, g_free);
  g_clear_pointer (&run->path, g_free);
  g_clear_pointer (&run->sha256, g_free);
  g_clear_pointer (&run->calibrated, g_free);
}

BpwCalibration *
bpw_measurement_run_calibrate (const BpwMeasurementRun  *run,
                               GError                  **error)
{
  BpwCalibrateOptions options = { 0 };
  BpwCalibration *calibration;

  g_return_val_if_fail (run != NULL, NULL);

  if (run->correlation == NULL)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("measurement “%s” has not been correlated, so there is nothing to "
                   "calibrate on"), run->name);
      return NULL;
    }
  calibration = bpw_calibrate (run->run.blueprint, &run->correlation, 1, &options, error);
  if (calibration == NULL)
    g_prefix_error (error, _("measurement “%s”: "), run->name);
  return calibration;
}

BpwValidationReport *
bpw_measurement_run_report (const BpwMeasurementRun  *runs,
                            guint                     n_runs,
                            const BpwBlueprint       *table1,
                            GError                  **error)
{
  g_autoptr(BpwValidationReport) report = bpw_validation_report_new ();

  if (table1 != NULL && !bpw_validation_report_add_megatron (report, table1, error))
    return NULL;
  for (guint i = 0; i < n_runs; i++)
    if (runs[i].correlation != NULL)
      bpw_validation_report_add_profile (report, runs[i].correlation,
                                         runs[i].calibrated_correlation);
  return g_steal_pointer (&report);
}
