/* bpw-candidate.h — one candidate of a study on one of its scenarios, ready to bind
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A study candidate names a blueprint and a mapping object; a study scenario carries its
 * workload and its parallel decomposition. The mapping a candidate runs a scenario with
 * is the defaults, then the scenario's decomposition, micro-batch and recompute, then the
 * candidate's mapping object over them (an empty object keeps the scenario's choices;
 * search, once it runs, replaces them with the best it finds), then the candidate's
 * mapping for that scenario ("mappings": {"<scenario>": {...}}) over all of these.
 */
#pragma once

#include "bpw-study.h"
#include "bpw-blueprint.h"
#include "bpw-mapping.h"
#include "bpw-plan.h"
#include "bpw-evaluation.h"

G_BEGIN_DECLS

typedef struct
{
  BpwModelSpec  spec;
  BpwScenario   scenario;
  BpwMapping    mapping;
  BpwBlueprint *blueprint;  /* owned */
} BpwCandidateRun;

/* Blueprint names resolve as bundled names or paths relative to the study's folder.
 * @run is always initialised and must be cleared. */
gboolean  bpw_candidate_run_init  (BpwCandidateRun *run,
                                   BpwStudy        *study,
                                   guint            candidate,
                                   guint            scenario,
                                   GError         **error);
void      bpw_candidate_run_clear (BpwCandidateRun *run);

/* Decomposes, distributes and binds (the plan may be illegal; see plan->legal). */
BpwPlan  *bpw_candidate_run_bind  (const BpwCandidateRun *run,
                                   GError               **error);

/* Evaluating either gives the same result: same scenario, mapping and blueprint, or the
 * same error (@a_error, @b_error: why the run could not be set up, nullable). The models
 * are not compared: callers compare runs of one workload. */
gboolean  bpw_candidate_run_same  (const BpwCandidateRun *a,
                                   const char            *a_error,
                                   const BpwCandidateRun *b,
                                   const char            *b_error);
/* A deep copy into uninitialised @dest (clear it with bpw_candidate_run_clear()). */
void      bpw_candidate_run_copy  (BpwCandidateRun       *dest,
                                   const BpwCandidateRun *src);

G_END_DECLS
