/* bpw-cli-format.h — human-readable numbers for the `bpw` command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-types.h"

G_BEGIN_DECLS

/* "3.378 E" + @unit: four significant digits with an SI prefix; values below 1000 exactly
 * ("96 " + @unit). Always the C locale's decimal point, so scripts can read it. */
char *bpw_cli_format_si     (BpwU128     value,
                             const char *unit);
/* "1.500 MiB": binary prefixes, four significant digits; plain bytes below 1 KiB. */
char *bpw_cli_format_bytes  (BpwU128     value);
/* "40.750 GiB" whatever the size, so that a column of device memory reads at a glance. */
char *bpw_cli_format_gib    (BpwU128     value);
/* Plain decimal digits, ungrouped, so that they paste into a calculator or a script. */
char *bpw_cli_format_exact  (BpwU128     value);

/* Appends "LABEL  VALUE  EXACT" with fixed column widths, the label indented by @indent. */
void  bpw_cli_format_row    (GString    *out,
                             guint       indent,
                             const char *label,
                             const char *value,
                             const char *exact);

G_END_DECLS
