/* bpw-run-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-run-util"

#include "config.h"

#include "bpw-run-util.h"

gboolean
bpw_scenario_values_equal (const BpwScenario *a,
                           const BpwScenario *b)
{
  return a->phase == b->phase && a->global_batch == b->global_batch
         && a->micro_batch == b->micro_batch && a->seq == b->seq && a->context == b->context
         && a->recompute == b->recompute && a->dtype == b->dtype && a->kv_dtype == b->kv_dtype
         && a->optimizer_set == b->optimizer_set
         && (!a->optimizer_set || a->optimizer == b->optimizer) && a->weight == b->weight
         && a->sla_step_time == b->sla_step_time && a->sla_ttft == b->sla_ttft
         && a->sla_tpot == b->sla_tpot && a->sla_p99 == b->sla_p99;
}

gboolean
bpw_parallel_equal (const BpwParallel *a,
                    const BpwParallel *b)
{
  return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->ep == b->ep
         && !a->sp == !b->sp && a->zero == b->zero && a->schedule == b->schedule
         && a->interleave == b->interleave;
}

gboolean
bpw_candidate_run_same (const BpwCandidateRun *a,
                        const char            *a_error,
                        const BpwCandidateRun *b,
                        const char            *b_error)
{
  if (a_error != NULL || b_error != NULL)
    return g_strcmp0 (a_error, b_error) == 0;
  return a->blueprint != NULL && b->blueprint != NULL
         && bpw_scenario_values_equal (&a->scenario, &b->scenario)
         && bpw_mapping_equal (&a->mapping, &b->mapping)
         && bpw_blueprint_equal (a->blueprint, b->blueprint);
}

void
bpw_candidate_run_copy (BpwCandidateRun       *dest,
                        const BpwCandidateRun *src)
{
  /* The copy functions fill their destination whole. */
  bpw_model_spec_copy (&dest->spec, &src->spec);
  bpw_scenario_copy (&dest->scenario, &src->scenario);
  bpw_mapping_copy (&dest->mapping, &src->mapping);
  dest->blueprint = src->blueprint != NULL ? bpw_blueprint_copy (src->blueprint) : NULL;
}
