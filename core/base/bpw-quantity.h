/* bpw-quantity.h — physical quantities with units, as written in blueprints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-json-doc.h"

G_BEGIN_DECLS

/* The dimension a value is expected to have; values are always held in SI base units
 * (bytes, bytes/s, FLOP/s, seconds, watts, hertz, joules, dollars). */
typedef enum
{
  BPW_UNIT_NONE,
  BPW_UNIT_BYTES,
  BPW_UNIT_BYTES_PER_S,
  BPW_UNIT_FLOPS_PER_S,
  BPW_UNIT_SECONDS,
  BPW_UNIT_WATTS,
  BPW_UNIT_HERTZ,
  BPW_UNIT_JOULES,
  BPW_UNIT_JOULES_PER_FLOP,
  BPW_UNIT_JOULES_PER_BYTE,
  BPW_UNIT_DOLLARS,
} BpwUnit;

/* Index of the "kind" of a provenance object; -1 when not given. */
typedef enum
{
  BPW_PROVENANCE_DATASHEET,
  BPW_PROVENANCE_ESTIMATE,
  BPW_PROVENANCE_CALIBRATED,
  BPW_PROVENANCE_MEASURED,
} BpwProvenanceKind;

/* Parses a number with an optional unit: "3.35 TB/s", "80 GiB", "989.4 TFLOP/s", "700 W",
 * "10 us", "1.5 ms", "2 GHz", "1e-5 s", "0.65", "65 %", "400 Gb/s" (bits), "$2.50".
 * Decimal prefixes p n u/µ m k M G T P E, binary Ki Mi Gi Ti Pi Ei for bytes. A string for
 * a dimension other than NONE must carry a unit. On error (BPW_ERROR_INVALID_INPUT) the
 * message is "expected a size such as \"80 GiB\", got \"…\"", without a location. */
gboolean    bpw_quantity_parse       (const char  *text,
                                      BpwUnit      expected,
                                      double      *value,
                                      GError     **error);

/* Formats @value (SI base units) with an SI prefix and 4 significant digits, trailing zeros
 * dropped: "3.35 TB/s", "80 GiB" (exact binary multiples of bytes), "989.4 TFLOP/s",
 * "27.3 s", "336.8 µs". bpw_quantity_parse reads the result back. */
char       *bpw_quantity_format      (double       value,
                                      BpwUnit      unit);

/* "a bandwidth such as \"3.35 TB/s\"": what messages say is expected. */
const char *bpw_unit_describe        (BpwUnit      unit);
/* The base unit symbol: "B", "B/s", "FLOP/s", "s", "W", "Hz", "J", "J/FLOP", "J/B", "$", "". */
const char *bpw_unit_symbol          (BpwUnit      unit);

const char *bpw_provenance_kind_to_string (BpwProvenanceKind kind);

/* Reads member @member of @object as a quantity: a JSON number in base units, a string with
 * a unit, or {"value": number|string, "source": "...", "kind": "datasheet|estimate|
 * calibrated|measured"} (also "note"). Absent (or null, not @required): TRUE, outputs
 * untouched. Range [@min, @max] inclusive; min = G_MINDOUBLE means "positive".
 * @source (nullable) gets an owned copy of the source or NULL; @kind (nullable) gets a
 * BpwProvenanceKind or -1. Errors are located: "FILE:L:C: PATH.MEMBER: reason". */
gboolean    bpw_json_doc_get_quantity (BpwJsonDoc  *doc,
                                       JsonObject  *object,
                                       const char  *path,
                                       const char  *member,
                                       gboolean     required,
                                       BpwUnit      expected,
                                       double       min,
                                       double       max,
                                       double      *out,
                                       char       **source,
                                       int         *kind,
                                       GError     **error);

G_END_DECLS
