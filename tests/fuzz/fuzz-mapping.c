/* fuzz-mapping.c — libFuzzer target: mapping files (bpw_mapping_load_data)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A failed load leaves the mapping as it was; an accepted one is written back and must
 * load equal (bpw-mapping.h promises both).
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-fuzz.h"
#include "bpw-mapping.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *json = NULL;
  BpwMapping mapping, defaults, again;

  bpw_fuzz_init ();
  bpw_mapping_init_defaults (&mapping);
  bpw_mapping_init_defaults (&defaults);
  if (!bpw_mapping_load_data ("fuzz.bpw-mapping.json", (const char *) data, (gssize) size,
                              &mapping, warnings, &error))
    {
      bpw_fuzz_check_error (error);
      bpw_fuzz_assert (bpw_mapping_equal (&mapping, &defaults),
                       "a failed load leaves the mapping as it was");
      bpw_mapping_clear (&mapping);
      bpw_mapping_clear (&defaults);
      return 0;
    }

  json = bpw_mapping_to_json (&mapping);
  bpw_mapping_init_defaults (&again);
  if (!bpw_mapping_load_data ("roundtrip.json", json, -1, &again, NULL, &error))
    bpw_fuzz_fail (G_STRLOC, json, error->message);
  bpw_fuzz_assert (bpw_mapping_equal (&mapping, &again), "the native round trip is exact");
  bpw_mapping_clear (&again);
  bpw_mapping_clear (&mapping);
  bpw_mapping_clear (&defaults);
  return 0;
}
