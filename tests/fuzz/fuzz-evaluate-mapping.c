/* fuzz-evaluate-mapping.c — libFuzzer target: a mapping file applied and evaluated
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where fuzz-mapping stops at the loader, this target binds what an accepted mapping says
 * (parallel decomposition, micro-batch, recompute, tiers, algorithms, fusion, tiling,
 * engines, placement, overlap) to a small Llama on the bundled H200 blueprint, in training
 * and decode, and evaluates it: legality, facts, the estimator, the bound plan and the
 * simulated step (bpw_fuzz_check_evaluation() lists the invariants). Indices the blueprint
 * does not have must make the plan illegal with a reason or be refused, never be read.
 *
 * The caps, part of this target: the model is Llama 3 8B cut to four blocks (so that two
 * stages of two interleaved chunks fit), and a mapping is skipped when it asks for more
 * than 64 devices, micro-batches of more than 8 sequences or more than 4 interleaved
 * chunks (plan and simulation grow with devices and micro-batches; the rules under test
 * do not). The global batch gives every pipeline replica two micro-batches per stage.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-blueprint-io.h"
#include "bpw-fuzz.h"
#include "bpw-workload-io.h"

#define MAX_DEVICES      64
#define MAX_MICRO_BATCH  8
#define MAX_INTERLEAVE   4

static BpwBlueprint *blueprint;
static BpwModelSpec  model;

int LLVMFuzzerInitialize (int    *argc,
                          char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GError) error = NULL;

  bpw_fuzz_init ();
  blueprint = bpw_blueprint_load ("h200-sxm-141gb", NULL, &error);
  if (blueprint == NULL)
    bpw_fuzz_fail (G_STRLOC, "bundled blueprint", error->message);
  bpw_model_spec_init_defaults (&model);
  if (!bpw_workload_load ("llama3-8b", &model, &error))
    bpw_fuzz_fail (G_STRLOC, "bundled model", error->message);
  model.layers = 4;
  return 0;
}

static gboolean
within_caps (const BpwMapping *m)
{
  const BpwParallel *p = &m->parallel;

  /* Each factor first, so that the product cannot overflow. */
  if (p->tp > MAX_DEVICES || p->pp > MAX_DEVICES || p->dp > MAX_DEVICES ||
      p->ep > MAX_DEVICES || p->tp * p->pp * p->dp > MAX_DEVICES)
    return FALSE;
  return m->micro_batch <= MAX_MICRO_BATCH && p->interleave <= MAX_INTERLEAVE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const BpwWorkloadPhase phases[] = { BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_DECODE };
  g_autoptr(GError) error = NULL;
  BpwMapping mapping;

  if (blueprint == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  bpw_mapping_init_defaults (&mapping);
  if (!bpw_mapping_load_data ("fuzz.bpw-mapping.json", (const char *) data, (gssize) size,
                              &mapping, NULL, &error))
    {
      bpw_fuzz_check_error (error);
      bpw_mapping_clear (&mapping);
      return 0;
    }
  if (!within_caps (&mapping))
    {
      bpw_mapping_clear (&mapping);
      return 0;
    }

  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      const BpwParallel *p = &mapping.parallel;
      BpwScenario scenario;
      gint64 micro_batch;

      bpw_fuzz_small_scenario (&scenario, &model, phases[i]);
      micro_batch = mapping.micro_batch > 0 ? mapping.micro_batch : 1;
      scenario.micro_batch = micro_batch;
      scenario.global_batch = MAX (p->dp, 1) * micro_batch * 2 * MAX (p->pp, 1);
      /* Recomputation is refused outside training (tested above): decode runs the rest
       * of the mapping. */
      if (phases[i] != BPW_WORKLOAD_TRAIN)
        mapping.recompute = -1;
      bpw_fuzz_check_evaluation (&model, &scenario, &mapping, blueprint);
      bpw_scenario_clear (&scenario);
    }
  bpw_mapping_clear (&mapping);
  return 0;
}
