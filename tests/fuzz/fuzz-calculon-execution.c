/* fuzz-calculon-execution.c — libFuzzer target: Calculon execution files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An accepted execution must hold Calculon's own consistency rules, and the configuration
 * it gives a model (GPT-3 175B, as in Calculon's examples) must give facts or a reason, and
 * Calculon's model on it (bpw evaluate --cost-model calculon) a result or a reason.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include <math.h>

#include "bpw-fuzz.h"
#include "bpw-calculon-model.h"
#include "bpw-workload-io.h"

/* Calculon's gpt3-175B on a system shaped like its a100_80g: every execution it accepts
 * runs to statistics that are finite where Calculon's are, or to Calculon's refusal. */
static void
bpw_fuzz_check_calculon_model (const BpwCalculonExecution *exec)
{
  static const BpwCalculonApp app = { 12288, 49152, 2048, 96, 128, 96 };
  BpwCalculonSystem sys = {
    .matrix_flops = 312e12, .vector_flops = 78e12,
    .matrix = { 4, { 128e9, 16e9, 1e9, 0 }, { 0.95, 0.9, 0.6, 0.1 } },
    .vector = { 3, { 16e9, 1e9, 0 }, { 0.95, 0.5, 0.1 } },
    .mem1_capacity = 80.0 * 1073741824.0, .mem1_bandwidth = 2048e9,
    .mem1 = { 4, { 100e6, 10e6, 1e6, 0 }, { 0.9, 0.75, 0.6, 0.3 } },
    .mem2_capacity = 512.0 * 1073741824.0, .mem2_bandwidth = 32e9,
    .mem2 = { 4, { 100e6, 10e6, 1e6, 0 }, { 0.95, 0.9, 0.7, 0.3 } },
    .n_networks = 2,
    .networks = {
      { 300e9, 0.65, 1e-5, 0.15, 8, TRUE, { 1, 1.5, 1.5, 2 }, { 0, -1, -1, -1 } },
      { 25e9, 0.9, 2e-5, 0.02, 65536, FALSE, { 1, 1, 1, 1 }, { 0, 0, 0, 0 } },
    },
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  BpwCalculonStats stats;

  if (!bpw_calculon_execution_check (&app, &sys, exec, &error))
    {
      bpw_fuzz_check_error (error);
      return;
    }
  if (!bpw_calculon_model_run (&app, &sys, exec, &stats, NULL, NULL, &reason))
    {
      bpw_fuzz_assert (reason != NULL && g_utf8_validate (reason, -1, NULL),
                       "a refused execution has Calculon's reason");
      return;
    }
  bpw_fuzz_assert (stats.total_time > 0 && isfinite (stats.total_time),
                   "an accepted execution has a finite positive step time");
  bpw_fuzz_assert (stats.proc_mem_tier1_cap_req <= sys.mem1_capacity,
                   "an accepted execution fits tier 1");
}

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

  bpw_fuzz_check_calculon_model (&exec);

  bpw_model_spec_init_defaults (&spec);
  bpw_fuzz_assert (bpw_model_spec_lookup_bundled ("gpt3-175b", &spec), "gpt3-175b is bundled");
  bpw_calculon_execution_apply_to_model (&exec, scenario.dtype, &spec);
  bpw_fuzz_check_facts (&spec, &scenario, &parallel);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&scenario);
  return 0;
}
