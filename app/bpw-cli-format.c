/* bpw-cli-format.c — human-readable numbers for the `bpw` command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-format"

#include "config.h"

#include "bpw-cli-format.h"

#include <math.h>

#define BPW_CLI_LABEL_WIDTH 30
#define BPW_CLI_VALUE_WIDTH 14

/* Four significant digits: 1.234, 12.34, 123.4. */
static char *
bpw_cli_format_scaled (double      scaled,
                       const char *prefix,
                       const char *unit)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  const char *format = scaled >= 100.0 ? "%.1f" : scaled >= 10.0 ? "%.2f" : "%.3f";

  g_ascii_formatd (number, sizeof number, format, scaled);
  return g_strdup_printf ("%s %s%s", number, prefix, unit);
}

/* "96 FLOP", or just "96" for a plain count. */
static char *
bpw_cli_format_small (BpwU128     value,
                      const char *unit)
{
  g_autofree char *exact = bpw_cli_format_exact (value);

  return unit[0] != '\0' ? g_strdup_printf ("%s %s", exact, unit) : g_steal_pointer (&exact);
}

char *
bpw_cli_format_si (BpwU128     value,
                   const char *unit)
{
  static const char * const prefixes[] = { "", "k", "M", "G", "T", "P", "E", "Z", "Y", "R", "Q" };
  double v = bpw_u128_to_double (value);
  guint i = 0;

  if (value < 1000)
    return bpw_cli_format_small (value, unit);
  /* Step up while the rounded mantissa would print as 1000.0 or more. */
  while (v >= 999.95 && i + 1 < G_N_ELEMENTS (prefixes))
    {
      v /= 1000.0;
      i++;
    }
  return bpw_cli_format_scaled (v, prefixes[i], unit);
}

char *
bpw_cli_format_bytes (BpwU128 value)
{
  static const char * const prefixes[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
  double v = bpw_u128_to_double (value);
  guint i = 0;

  if (value < 1024)
    return bpw_cli_format_small (value, "B");
  while (v >= 999.95 && i + 1 < G_N_ELEMENTS (prefixes))
    {
      v /= 1024.0;
      i++;
    }
  return bpw_cli_format_scaled (v, prefixes[i], "B");
}

char *
bpw_cli_format_gib (BpwU128 value)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (number, sizeof number, "%.3f",
                   bpw_u128_to_double (value) / (1024.0 * 1024.0 * 1024.0));
  return g_strdup_printf ("%s GiB", number);
}

char *
bpw_cli_format_exact (BpwU128 value)
{
  char digits[40];

  return g_strdup (bpw_u128_to_string (value, digits));
}

void
bpw_cli_format_row (GString    *out,
                    guint       indent,
                    const char *label,
                    const char *value,
                    const char *exact)
{
  int label_width = MAX (BPW_CLI_LABEL_WIDTH - (int) indent, 1);

  g_string_append_printf (out, "%*s%-*s %*s", (int) indent, "", label_width, label,
                          BPW_CLI_VALUE_WIDTH, value != NULL ? value : "");
  if (exact != NULL)
    g_string_append_printf (out, "  %s", exact);
  g_string_append_c (out, '\n');
}
