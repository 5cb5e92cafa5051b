/* bpw-si-format.c — numbers with SI prefixes and units for tick labels and annotations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-si-format"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-si-format.h"

#define MIN_EXPONENT (-12)
#define MAX_EXPONENT 18

static const char * const prefixes[] = {
  "p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E",
};
static const char * const binary_prefixes[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };

BpwSiFlags
bpw_si_flags_for_unit (const char *unit)
{
  static const char * const large[] = { "B", "B/s", "FLOP", "FLOP/s", "W", "J", "b/s" };

  if (unit == NULL)
    return 0;
  if (strcmp (unit, BPW_SI_BINARY_BYTES) == 0)
    return BPW_SI_LARGE | BPW_SI_BINARY;
  if (strcmp (unit, "s") == 0)
    return BPW_SI_SMALL;
  for (guint i = 0; i < G_N_ELEMENTS (large); i++)
    if (strcmp (unit, large[i]) == 0)
      return BPW_SI_LARGE;
  return 0;
}

const char *
bpw_si_prefix (int exponent)
{
  if (exponent % 3 != 0 || exponent < MIN_EXPONENT || exponent > MAX_EXPONENT)
    return "";
  return prefixes[(exponent - MIN_EXPONENT) / 3];
}

/* floor (log10 (x)) that is not fooled by log10 (1000) = 2.9999999999999996. */
static int
decade_of (double x)
{
  return (int) floor (log10 (x) + 1e-12);
}

double
bpw_si_scale (int        exponent,
              BpwSiFlags flags)
{
  if (flags & BPW_SI_BINARY)
    return ldexp (1.0, 10 * (exponent / 3));
  return pow (10.0, exponent);
}

int
bpw_si_exponent (double     value,
                 BpwSiFlags flags,
                 int        digits)
{
  int lo = flags & BPW_SI_SMALL ? MIN_EXPONENT : 0;
  int hi = flags & BPW_SI_LARGE ? MAX_EXPONENT : 0;
  double a = fabs (value), scaled, unit, rounded;
  int e;

  if (a == 0 || !isfinite (a))
    return 0;
  if (flags & BPW_SI_BINARY)
    e = CLAMP ((int) floor (log2 (a) / 10.0 + 1e-12) * 3, 0, hi);
  else
    e = CLAMP ((int) floor (decade_of (a) / 3.0) * 3, lo, hi);
  /* Rounding to @digits may carry into the next prefix: 999.96 ms → "1 s", not "1000 ms";
   * binary sizes of 1000 to 1023 of a prefix take the next one too ("0.98 GiB"), so that
   * no label needs four digits before the point. */
  scaled = a / bpw_si_scale (e, flags);
  unit = pow (10.0, decade_of (scaled) - MAX (digits, 1) + 1);
  rounded = round (scaled / unit) * unit;
  if (rounded >= 1000 && e + 3 <= hi)
    e += 3;
  return e;
}

gsize
bpw_si_format_fixed (char       *buf,
                     gsize       size,
                     double      value,
                     int         exponent,
                     int         decimals,
                     const char *unit)
{
  char number[64];
  gboolean binary = unit != NULL && strcmp (unit, BPW_SI_BINARY_BYTES) == 0;
  const char *prefix;
  double scale;
  char *dot;

  g_return_val_if_fail (buf != NULL && size > 0, 0);

  if (!isfinite (value))
    return g_snprintf (buf, size, "%s", isnan (value) ? "–" : value > 0 ? "∞" : "−∞");
  if (binary)
    {
      exponent = exponent >= 0 && exponent % 3 == 0 ? MIN (exponent, 18) : 0;
      prefix = binary_prefixes[exponent / 3];
      scale = bpw_si_scale (exponent, BPW_SI_BINARY);
      unit = "B";
    }
  else
    {
      prefix = bpw_si_prefix (exponent);
      scale = pow (10.0, exponent);
    }
  g_snprintf (number, sizeof number, "%.*f", CLAMP (decimals, 0, 15), value / scale);
  dot = strchr (number, '.');
  if (dot != NULL)
    {
      char *end = number + strlen (number) - 1;

      while (end > dot && *end == '0')
        *end-- = '\0';
      if (end == dot)
        *end = '\0';
    }
  if (strcmp (number, "-0") == 0)
    strcpy (number, "0");
  if (unit != NULL && *unit != '\0')
    return g_snprintf (buf, size, "%s %s%s", number, prefix, unit);
  if (*prefix != '\0')
    return g_snprintf (buf, size, "%s %s", number, prefix);
  return g_snprintf (buf, size, "%s", number);
}

gsize
bpw_si_format (char       *buf,
               gsize       size,
               double      value,
               const char *unit,
               int         digits)
{
  BpwSiFlags flags = bpw_si_flags_for_unit (unit);
  int exponent = bpw_si_exponent (value, flags, digits);
  double scaled = fabs (value) / bpw_si_scale (exponent, flags);
  int decimals = scaled > 0 && isfinite (scaled) ? MAX (digits, 1) - 1 - decade_of (scaled) : 0;

  return bpw_si_format_fixed (buf, size, value, exponent, MAX (decimals, 0), unit);
}

/* Where counts start taking a prefix: 9,999 reads at a glance, 152,800 less so. */
#define HUMAN_PREFIX_FROM 1e4

gsize
bpw_si_format_human (char       *buf,
                     gsize       size,
                     double      value,
                     const char *unit,
                     int         digits)
{
  char number[BPW_SI_LABEL_MAX];
  GString *grouped;
  const char *start, *end;
  double a = fabs (value);
  int exponent = 0, decimals;
  gsize length;

  g_return_val_if_fail (buf != NULL && size > 0, 0);

  if (!isfinite (value))
    return bpw_si_format_fixed (buf, size, value, 0, 0, unit);
  digits = MAX (digits, 1);
  if (a > 0)
    {
      exponent = a >= HUMAN_PREFIX_FROM ? bpw_si_exponent (value, BPW_SI_LARGE, digits) : 0;
      decimals = MAX (digits - 1 - decade_of (a / pow (10.0, exponent)), 0);
    }
  else
    decimals = 0;
  /* The scaled number without unit ("152.8 k", "9876.5"); its integer part grouped. */
  bpw_si_format_fixed (number, sizeof number, value, exponent, decimals, NULL);
  grouped = g_string_sized_new (sizeof number + 8);
  start = number + (number[0] == '-');
  for (end = start; g_ascii_isdigit (*end); end++)
    ;
  g_string_append_len (grouped, number, start - number);
  for (const char *c = start; c < end; c++)
    {
      if (c > start && (end - c) % 3 == 0)
        g_string_append_c (grouped, ',');
      g_string_append_c (grouped, *c);
    }
  g_string_append (grouped, end);
  if (unit != NULL && *unit != '\0')
    g_string_append_printf (grouped, " %s", unit);
  length = g_strlcpy (buf, grouped->str, size);
  g_string_free (grouped, TRUE);
  return length;
}

int
bpw_si_decimals_for_step (double step,
                          int    exponent)
{
  double s = fabs (step) / pow (10.0, exponent);

  if (!(s > 0) || !isfinite (s))
    return 0;
  for (int d = 0; d < 12; d++)
    {
      double scaled = s * pow (10.0, d);

      if (fabs (scaled - round (scaled)) < 1e-6 * MAX (scaled, 1.0))
        return d;
    }
  return 12;
}
