/* fuzz-blueprint-calculon.c — libFuzzer target: Calculon system files (imported as blueprints)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both blueprint formats share bpw_blueprint_load_data(), which tells them apart by
 * content; the seed corpus keeps this target's mutations close to its format. An accepted
 * blueprint validates, and its native JSON loads back equal (bpw-blueprint-io.h promises
 * both).
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-blueprint-io.h"
#include "bpw-error.h"
#include "bpw-fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(BpwBlueprint) again = NULL;
  g_autofree char *json = NULL;

  bpw_fuzz_init ();
  bp = bpw_blueprint_load_data ("calculon-system.json", (const char *) data, (gssize) size,
                                warnings, &error);
  if (bp == NULL)
    {
      bpw_fuzz_check_error (error);
      return 0;
    }
  bpw_fuzz_assert (bpw_blueprint_validate (bp, &error), "a loaded blueprint validates");

  json = bpw_blueprint_to_json (bp);
  again = bpw_blueprint_load_data ("roundtrip.json", json, -1, NULL, &error);
  if (again == NULL)
    bpw_fuzz_fail (G_STRLOC, json, error->message);
  bpw_fuzz_assert (bpw_blueprint_equal (bp, again), "the native round trip is exact");
  return 0;
}
