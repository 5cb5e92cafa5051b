/* bpw-si-format.h — numbers with SI prefixes and units for tick labels and annotations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writes into a caller's buffer and never allocates, so draw code and layout loops can
 * format labels freely: "1.5 ms", "312 TFLOP/s", "2.04 TB/s", "0.25 FLOP/B".
 *
 * Memory sizes may also be binary: the unit BPW_SI_BINARY_BYTES prints as "B" with the
 * prefixes Ki, Mi, Gi, … ("80 GiB"). Its exponents stay multiples of 3, each 3 standing
 * for a factor of 1024 instead of 1000, so the functions below serve both.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  BPW_SI_SMALL = 1 << 0,  /* m, µ, n, p: durations */
  BPW_SI_LARGE = 1 << 1,  /* k, M, G, T, P, E: rates, bytes, FLOPs */
  BPW_SI_BINARY = 1 << 2, /* Ki, Mi, Gi, Ti, Pi, Ei: powers of 1024 (BPW_SI_BINARY_BYTES) */
} BpwSiFlags;

#define BPW_SI_BINARY_BYTES "iB"

/* Longest label the plot code formats, terminator included. */
#define BPW_SI_LABEL_MAX 48

/* Prefixes a unit takes: "s" small ones, "B", "B/s", "FLOP", "FLOP/s", "W" and "J" large
 * ones, BPW_SI_BINARY_BYTES binary ones; ratios such as "FLOP/B" and unknown units none
 * (plain decimals). */
BpwSiFlags  bpw_si_flags_for_unit (const char *unit);

/* What a prefix of @exponent multiplies by: 10^@exponent, or with BPW_SI_BINARY
 * 1024^(@exponent / 3). */
double      bpw_si_scale          (int         exponent,
                                   BpwSiFlags  flags);

/* The power of ten, a multiple of 3, whose prefix suits |@value| when it is written with
 * @digits significant digits (999.96 ms at 3 digits is 1 s); 0 for zero. */
int         bpw_si_exponent       (double      value,
                                   BpwSiFlags  flags,
                                   int         digits);
/* "µ", "k", ... for an exponent that is a multiple of 3 in [-12, 18]; "" otherwise. The
 * binary prefixes are bpw_si_format_fixed()'s, for BPW_SI_BINARY_BYTES. */
const char *bpw_si_prefix         (int         exponent);

/* @value / 10^@exponent with @decimals decimals (trailing zeros trimmed), the prefix and
 * @unit (nullable: no unit, the prefix alone: "1.5 T"). Returns the length written, like
 * g_snprintf. */
gsize       bpw_si_format_fixed   (char       *buf,
                                   gsize       size,
                                   double      value,
                                   int         exponent,
                                   int         decimals,
                                   const char *unit);
/* With the prefix chosen by bpw_si_exponent() and at most @digits significant digits. */
gsize       bpw_si_format         (char       *buf,
                                   gsize       size,
                                   double      value,
                                   const char *unit,
                                   int         digits);
/* A figure for people to read, never in exponent notation: below 10,000 with at most
 * @digits significant digits and its thousands grouped ("0.125", "812.5", "9,876"), from
 * 10,000 up scaled by a large SI prefix ("152.8 k", "3.41 M"); then " @unit" (nullable):
 * "152.8 k tokens/s". For counts and rates whose unit takes no prefix of its own (tokens,
 * requests); the memo, tables, tooltips and notes print them all through here. */
gsize       bpw_si_format_human   (char       *buf,
                                   gsize       size,
                                   double      value,
                                   const char *unit,
                                   int         digits);
/* Decimals that tell ticks @step apart once scaled by 10^-@exponent (0.5 ms → 1). */
int         bpw_si_decimals_for_step (double   step,
                                      int      exponent);

G_END_DECLS
