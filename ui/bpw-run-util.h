/* bpw-run-util.h — comparing and copying candidate runs, to skip work an edit did not change
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

/* The scenario's values (not its name) are the same. */
gboolean bpw_scenario_values_equal (const BpwScenario     *a,
                                    const BpwScenario     *b);
gboolean bpw_parallel_equal        (const BpwParallel     *a,
                                    const BpwParallel     *b);
/* Evaluating either gives the same result: same scenario, mapping and blueprint, or the
 * same error (@a_error, @b_error: why the run could not be set up, nullable). The models
 * are not compared: callers compare runs of one workload. */
gboolean bpw_candidate_run_same    (const BpwCandidateRun *a,
                                    const char            *a_error,
                                    const BpwCandidateRun *b,
                                    const char            *b_error);
/* A deep copy into uninitialised @dest (clear it with bpw_candidate_run_clear()). */
void     bpw_candidate_run_copy    (BpwCandidateRun       *dest,
                                    const BpwCandidateRun *src);

G_END_DECLS
