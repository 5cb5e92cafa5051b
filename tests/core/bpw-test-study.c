/* bpw-test-study.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-test-study.h"

BpwStudy *
bpw_test_default_study (void)
{
  g_autoptr(GError) error = NULL;
  BpwStudy *study = bpw_study_new_bundled ("default", &error);

  g_assert_no_error (error);
  return study;
}

guint
bpw_test_candidate_index (BpwStudy   *study,
                          const char *blueprint)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->blueprint, blueprint) == 0)
      return i;
  g_assert_not_reached ();
}
