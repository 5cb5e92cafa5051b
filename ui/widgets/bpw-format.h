/* bpw-format.h — numbers with units, the way every view of the workbench shows them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "bpw-types.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_BYTE_UNITS_BINARY,   /* GiB = 2^30 bytes */
  BPW_BYTE_UNITS_DECIMAL,  /* GB = 10^9 bytes */
} BpwByteUnits;

/* "3.38 EFLOP", "175 B": three significant digits and an SI prefix. */
char *bpw_format_si          (double        value,
                              const char   *unit);
/* "175 B", "8.03 B", "1.56 T": parameter counts as the field writes them (B = billion). */
char *bpw_format_parameters  (guint64       count);
/* "46.7 GiB" or "50.2 GB": always giga, so that sizes in one column compare at a glance. */
char *bpw_format_bytes       (guint64       bytes,
                              BpwByteUnits  units);
/* "12.0 MiB", "512 B", "3.00 GB": the prefix that suits the size, for per-operation sizes
 * that range from bytes to gigabytes. */
char *bpw_format_bytes_scaled (guint64      bytes,
                               BpwByteUnits units);
/* "12.3 s", "45.6 ms", "789 µs", "2.00 ns": durations with three significant digits. */
char *bpw_format_seconds      (double       seconds);
/* "3,383,769,088,000,000,000": exact, with thousands separators for tooltips. */
char *bpw_format_count       (BpwU128       value);

G_END_DECLS
