/* fuzz-evaluate-blueprint.c — libFuzzer target: a native blueprint that prices a model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where fuzz-blueprint-native stops at the loader, this target evaluates a tiny model on
 * what an accepted blueprint says — engines, efficiency tables, memory levels, tiers,
 * power (TDP, idle, energy per FLOP and byte, cap) and the optional software "stack" —
 * in training, prefill and decode with the default mapping on one device: facts, the
 * estimator, the bound plan and the simulated step (bpw_fuzz_check_evaluation() lists the
 * invariants). A rate small or large enough to drive a figure to infinity or NaN must be
 * refused with a reason naming the blueprint, by the estimator and the plan alike.
 *
 * The cap, part of this target: the model is fixed and small, Llama 3 8B cut to two
 * blocks, so each execution spends its time on the blueprint's rules.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-blueprint-io.h"
#include "bpw-fuzz.h"
#include "bpw-workload-io.h"

static BpwModelSpec model;
static gboolean     ready;

int LLVMFuzzerInitialize (int    *argc,
                          char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GError) error = NULL;

  bpw_fuzz_init ();
  bpw_model_spec_init_defaults (&model);
  if (!bpw_workload_load ("llama3-8b", &model, &error))
    bpw_fuzz_fail (G_STRLOC, "bundled model", error->message);
  model.layers = 2;
  ready = TRUE;
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
  g_autoptr(BpwBlueprint) bp = NULL;
  BpwMapping mapping;

  if (!ready)
    LLVMFuzzerInitialize (NULL, NULL);
  bp = bpw_blueprint_load_data ("fuzz.bpw-blueprint.json", (const char *) data, (gssize) size,
                                NULL, &error);
  if (bp == NULL)
    {
      bpw_fuzz_check_error (error);
      return 0;
    }

  bpw_mapping_init_defaults (&mapping);
  bpw_fuzz_check_phases (&model, &mapping, bp, phases, G_N_ELEMENTS (phases));
  bpw_mapping_clear (&mapping);
  return 0;
}
