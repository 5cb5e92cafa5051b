/* fuzz-quantity.c — libFuzzer target: quantities with units ("3.35 TB/s", "80 GiB")
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The first byte picks the expected dimension, the rest is the text. An accepted quantity
 * is a finite number; formatted again it must parse back to (nearly) the same value, since
 * bpw_quantity_format promises that bpw_quantity_parse reads its output.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include <math.h>

#include "bpw-fuzz.h"
#include "bpw-quantity.h"

#define N_UNITS (BPW_UNIT_DOLLARS + 1)

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *formatted = NULL;
  BpwUnit unit;
  double value = 0, again = 0, tolerance;

  bpw_fuzz_init ();
  if (size < 1 || size > 256)
    return 0;
  unit = (BpwUnit) (data[0] % N_UNITS);
  text = g_strndup ((const char *) data + 1, size - 1);
  if (!bpw_quantity_parse (text, unit, &value, &error))
    {
      bpw_fuzz_check_error (error);
      return 0;
    }
  bpw_fuzz_assert (isfinite (value), "quantities are finite");

  formatted = bpw_quantity_format (value, unit);
  bpw_fuzz_assert (g_utf8_validate (formatted, -1, NULL), "formatted quantities are UTF-8");
  if (!bpw_quantity_parse (formatted, unit, &again, &error))
    bpw_fuzz_fail (G_STRLOC, formatted, error->message);
  /* Four significant digits: the relative error is below 5e-4; prices are written to the
   * cent. */
  tolerance = 5e-4 * fabs (value) + (unit == BPW_UNIT_DOLLARS ? 0.005 : 1e-300);
  bpw_fuzz_assert (fabs (again - value) <= tolerance,
                   "the formatted quantity parses back to the same value");
  return 0;
}
