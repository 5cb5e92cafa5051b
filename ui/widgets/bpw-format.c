/* bpw-format.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-format"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-format.h"

static char *
bpw_format_significant (double      value,
                        const char *unit)
{
  double magnitude = fabs (value);

  if (value == 0.0)
    return g_strdup_printf ("0 %s", unit);
  if (magnitude < 0.001)
    return g_strdup_printf ("<0.001 %s", unit);
  if (magnitude >= 99.95)
    return g_strdup_printf ("%.0f %s", value, unit);
  if (magnitude >= 9.995)
    return g_strdup_printf ("%.1f %s", value, unit);
  if (magnitude >= 0.9995)
    return g_strdup_printf ("%.2f %s", value, unit);
  return g_strdup_printf ("%.3f %s", value, unit);
}

char *
bpw_format_si (double      value,
               const char *unit)
{
  static const char *prefixes[] = { "", "k", "M", "G", "T", "P", "E", "Z", "Y" };
  double scaled = value;
  guint i = 0;

  g_return_val_if_fail (unit != NULL, NULL);

  /* Round first, so that 999.96e15 becomes "1.00 E…" and not "1000 P…". */
  while (i + 1 < G_N_ELEMENTS (prefixes) && fabs (scaled) >= 999.5)
    {
      scaled /= 1000.0;
      i++;
    }

  if (*prefixes[i] == '\0')
    return bpw_format_significant (scaled, unit);
  else
    {
      g_autofree char *full = g_strconcat (prefixes[i], unit, NULL);

      return bpw_format_significant (scaled, full);
    }
}

char *
bpw_format_parameters (guint64 count)
{
  double value = (double) count;

  /* Short-scale letters, not SI prefixes: "175B" is how model sizes are named. */
  if (value >= 999.5e9)
    return bpw_format_significant (value / 1e12, "T");
  if (value >= 999.5e6)
    return bpw_format_significant (value / 1e9, "B");
  if (value >= 999.5e3)
    return bpw_format_significant (value / 1e6, "M");
  if (value >= 999.5)
    return bpw_format_significant (value / 1e3, "K");
  return g_strdup_printf ("%" G_GUINT64_FORMAT, count);
}

char *
bpw_format_bytes (guint64      bytes,
                  BpwByteUnits units)
{
  if (units == BPW_BYTE_UNITS_DECIMAL)
    return bpw_format_significant ((double) bytes / 1e9, "GB");
  return bpw_format_significant ((double) bytes / (double) (1ull << 30), "GiB");
}

char *
bpw_format_bytes_scaled (guint64      bytes,
                         BpwByteUnits units)
{
  static const char *binary[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  static const char *decimal[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
  const char **names = units == BPW_BYTE_UNITS_DECIMAL ? decimal : binary;
  double base = units == BPW_BYTE_UNITS_DECIMAL ? 1000.0 : 1024.0;
  double scaled = (double) bytes;
  guint i = 0;

  if (bytes < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  /* 999.5 rather than the base: "1.00 MiB" reads better than "1000 KiB", and the three
   * significant digits never need four. */
  while (i + 1 < G_N_ELEMENTS (binary) && scaled >= 999.5)
    {
      scaled /= base;
      i++;
    }
  return bpw_format_significant (scaled, names[i]);
}

char *
bpw_format_seconds (double seconds)
{
  static const struct { double scale; const char *unit; } units[] = {
    { 1.0, "s" }, { 1e-3, "ms" }, { 1e-6, "µs" }, { 1e-9, "ns" },
  };
  double magnitude = fabs (seconds);

  if (seconds == 0.0)
    return g_strdup ("0 s");
  /* The first unit in which the value, rounded to three digits, is at least one. */
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (magnitude >= 0.9995 * units[i].scale)
      return bpw_format_significant (seconds / units[i].scale, units[i].unit);
  return bpw_format_significant (seconds / 1e-9, "ns");
}

char *
bpw_format_count (BpwU128 value)
{
  char digits[48];
  GString *out;
  gsize len;

  bpw_u128_to_string (value, digits);
  len = strlen (digits);
  out = g_string_sized_new (len + len / 3);
  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }

  return g_string_free (out, FALSE);
}
