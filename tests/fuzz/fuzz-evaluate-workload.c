/* fuzz-evaluate-workload.c — libFuzzer target: a native workload file evaluated end to end
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where fuzz-workload-native stops at the loader, this target runs what an accepted model
 * goes through in `bpw evaluate`: decomposition (refused when over the work-graph budget),
 * distribution, facts, the estimator, the bound plan and the simulated step, in training,
 * prefill and decode, on one device of the bundled H200 blueprint with the default mapping
 * (bpw_fuzz_check_evaluation() lists the invariants).
 *
 * The cap, part of this target: a model keeps at most BPW_FUZZ_MAX_LAYERS transformer
 * blocks (more are cut to that many, so the bundled models in the seed corpus stay useful
 * seeds) and one that the cut leaves invalid is skipped. Graph, plan and simulation grow
 * with the blocks; widths, vocabulary and experts only change the numbers, so they are
 * fuzzed whole, which is where overflow and non-finite figures come from.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-blueprint-io.h"
#include "bpw-fuzz.h"
#include "bpw-workload-io.h"

static BpwBlueprint *blueprint;

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
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const BpwWorkloadPhase phases[] = {
    BPW_WORKLOAD_TRAIN, BPW_WORKLOAD_PREFILL, BPW_WORKLOAD_DECODE,
  };
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec;
  BpwMapping mapping;

  if (blueprint == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  bpw_model_spec_init_defaults (&spec);
  if (!bpw_workload_load_data ("fuzz.bpw-workload.json", (const char *) data, (gssize) size,
                               0, &spec, NULL, NULL, &error))
    {
      bpw_fuzz_check_error (error);
      bpw_model_spec_clear (&spec);
      return 0;
    }
  spec.layers = MIN (spec.layers, BPW_FUZZ_MAX_LAYERS);
  if (!bpw_model_spec_validate (&spec, &error))
    {
      bpw_fuzz_check_error (error);
      bpw_model_spec_clear (&spec);
      return 0;
    }

  bpw_mapping_init_defaults (&mapping);
  bpw_fuzz_check_phases (&spec, &mapping, blueprint, phases, G_N_ELEMENTS (phases));
  bpw_mapping_clear (&mapping);
  bpw_model_spec_clear (&spec);
  return 0;
}
