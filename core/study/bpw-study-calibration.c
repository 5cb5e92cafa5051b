/* bpw-study-calibration.c — the calibration status of a study's candidates
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-calibration"

#include "config.h"

#include "bpw-candidate.h"
#include "bpw-study-calibration.h"

BpwStudyCalibration *
bpw_study_calibration_new (BpwStudy *study)
{
  BpwStudyCalibration *cal = g_new0 (BpwStudyCalibration, 1);
  guint n_scenarios = bpw_study_get_n_scenarios (study);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GArray) statuses = g_array_new (FALSE, TRUE, sizeof (BpwCalibrationStatus));

  cal->n_candidates = bpw_study_get_n_candidates (study);
  cal->candidates = g_new0 (char *, cal->n_candidates + 1);
  cal->statuses = g_new0 (BpwCalibrationStatus, cal->n_candidates);
  for (guint c = 0; c < cal->n_candidates; c++)
    {
      g_autoptr(BpwBlueprint) bp = NULL;
      guint precisions = 0;

      cal->candidates[c] = g_strdup (bpw_study_get_candidate (study, c)->name);
      /* The precisions every scenario runs, on the blueprint as the candidate loads it. */
      for (guint s = 0; s < n_scenarios; s++)
        {
          BpwCandidateRun run;

          if (bpw_candidate_run_init (&run, study, c, s, NULL))
            {
              precisions |= 1u << bpw_precision_from_dtype (run.scenario.dtype);
              if (bp == NULL)
                bp = g_steal_pointer (&run.blueprint);
            }
          bpw_candidate_run_clear (&run);
        }
      if (bp == NULL)
        continue;
      bpw_blueprint_calibration_status (bp, precisions, &cal->statuses[c]);
      g_ptr_array_add (names, cal->candidates[c]);
      g_array_append_val (statuses, cal->statuses[c]);
    }
  bpw_calibration_differs ((const char * const *) names->pdata,
                           (const BpwCalibrationStatus *) (gpointer) statuses->data,
                           names->len, &cal->warning);
  return cal;
}

BpwStudyCalibration *
bpw_study_calibration_copy (const BpwStudyCalibration *calibration)
{
  BpwStudyCalibration *copy = g_new0 (BpwStudyCalibration, 1);

  copy->n_candidates = calibration->n_candidates;
  copy->candidates = g_strdupv (calibration->candidates);
  copy->statuses = g_new0 (BpwCalibrationStatus, MAX (calibration->n_candidates, 1));
  for (guint c = 0; c < calibration->n_candidates; c++)
    bpw_calibration_status_copy (&copy->statuses[c], &calibration->statuses[c]);
  copy->warning = g_strdup (calibration->warning);
  return copy;
}

void
bpw_study_calibration_free (BpwStudyCalibration *calibration)
{
  if (calibration == NULL)
    return;
  for (guint c = 0; c < calibration->n_candidates; c++)
    bpw_calibration_status_clear (&calibration->statuses[c]);
  g_free (calibration->statuses);
  g_strfreev (calibration->candidates);
  g_free (calibration->warning);
  g_free (calibration);
}

char *
bpw_study_calibration_dup_tooltip (const BpwStudyCalibration *calibration,
                                   guint                      i)
{
  const BpwCalibrationStatus *status;

  g_return_val_if_fail (i < calibration->n_candidates, NULL);
  status = &calibration->statuses[i];
  if (status->label == NULL)
    return NULL;
  return g_strdup_printf ("%s\n\n%s", status->label, status->details);
}
