/* fuzz-study.c — libFuzzer target: study files (bpw_study_new_from_data)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The study sits in a folder that does not exist, so relative model paths fail the same
 * way on every run. An accepted study is written back and must read back to the same
 * document: the writer is the reader's inverse.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-fuzz.h"
#include "bpw-study.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = NULL;
  g_autoptr(BpwStudy) again = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json_again = NULL;

  bpw_fuzz_init ();
  study = bpw_study_new_from_data ("/nonexistent/fuzz.bpw-study.json", (const char *) data,
                                   (gssize) size, &error);
  if (study == NULL)
    {
      bpw_fuzz_check_error (error);
      return 0;
    }

  for (guint i = 0; i < bpw_study_get_n_scenarios (study); i++)
    {
      const BpwStudyScenario *s = bpw_study_get_scenario (study, i);

      bpw_fuzz_assert (s->workload < bpw_study_get_n_workloads (study),
                       "scenarios name an existing workload");
      bpw_fuzz_check_facts (&bpw_study_get_workload (study, s->workload)->spec, &s->scenario,
                            &s->parallel);
    }

  json = bpw_study_to_json (study);
  again = bpw_study_new_from_data ("/nonexistent/fuzz.bpw-study.json", json, -1, &error);
  if (again == NULL)
    bpw_fuzz_fail (G_STRLOC, json, error->message);
  json_again = bpw_study_to_json (again);
  bpw_fuzz_assert (g_strcmp0 (json, json_again) == 0, "the study round trip is exact");
  return 0;
}
