/* fuzz-workload-calculon.c — libFuzzer target: Calculon model (application) files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * All workload formats share bpw_workload_load_data(), which tells them apart by content;
 * this target differs from its siblings by its seed corpus, which keeps the mutations
 * close to this format. An accepted file must validate, survive the native round trip and
 * give facts or a reason.
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
  BpwModelSpec spec;
  BpwScenario hint;

  bpw_fuzz_init ();
  bpw_model_spec_init_defaults (&spec);
  bpw_scenario_init_defaults (&hint);
  if (bpw_workload_load_data ("calculon-model.json", (const char *) data, (gssize) size, 0,
                              &spec, &hint, warnings, &error))
    bpw_fuzz_check_workload (&spec, &hint);
  else
    {
      bpw_fuzz_check_error (error);
      bpw_fuzz_assert (spec.name == NULL && spec.layers == 0,
                       "a failed load leaves the spec cleared and defaulted");
    }
  for (guint i = 0; i < warnings->len; i++)
    bpw_fuzz_assert (g_utf8_validate (g_ptr_array_index (warnings, i), -1, NULL),
                     "warnings are UTF-8");
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&hint);
  return 0;
}
