/* fuzz-calculon-execution.c — libFuzzer target: Calculon execution files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An accepted execution must hold Calculon's own consistency rules, and the configuration
 * it gives a model (GPT-3 175B, as in Calculon's examples) must give facts or a reason.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-fuzz.h"
#include "bpw-workload-io.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  BpwCalculonExecution exec = { 0 };
  BpwScenario scenario, before;
  BpwParallel parallel;
  BpwModelSpec spec;

  bpw_fuzz_init ();
  bpw_scenario_init_defaults (&scenario);
  bpw_parallel_init_defaults (&parallel);
  before = scenario;
  if (!bpw_calculon_execution_load_data ("fuzz.execution.json", (const char *) data,
                                         (gssize) size, &scenario, &parallel, &exec, warnings,
                                         &error))
    {
      bpw_fuzz_check_error (error);
      bpw_fuzz_assert (scenario.global_batch == before.global_batch &&
                       scenario.micro_batch == before.micro_batch && parallel.tp == 1 &&
                       parallel.pp == 1 && parallel.dp == 1,
                       "a failed load leaves the scenario and parallel untouched");
      return 0;
    }

  bpw_fuzz_assert (exec.num_procs == parallel.tp * parallel.pp * parallel.dp,
                   "num_procs = tensor_par x pipeline_par x data_par");
  bpw_fuzz_assert (parallel.tp >= 1 && parallel.pp >= 1 && parallel.dp >= 1,
                   "parallel degrees are positive");
  bpw_fuzz_assert (scenario.micro_batch >= 1 &&
                   scenario.global_batch % (parallel.dp * scenario.micro_batch) == 0,
                   "the batch splits into whole micro-batches per replica");

  bpw_model_spec_init_defaults (&spec);
  bpw_fuzz_assert (bpw_model_spec_lookup_bundled ("gpt3-175b", &spec), "gpt3-175b is bundled");
  bpw_calculon_execution_apply_to_model (&exec, scenario.dtype, &spec);
  bpw_fuzz_check_facts (&spec, &scenario, &parallel);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&scenario);
  return 0;
}
