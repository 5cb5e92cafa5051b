/* bpw-serve-length.h — prompt and output length distributions of a request stream
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text forms (`bpw serve --prompt-len DIST --output-len DIST`):
 *   fixed:N                 every request N tokens
 *   uniform:LO:HI           integers LO..HI, each equally likely (both included)
 *   lognormal:MEAN:SIGMA    round(X) with ln X normal of standard deviation SIGMA and
 *                           E[X] = MEAN (so μ = ln MEAN − SIGMA²/2), at least 1
 * Lengths are whole tokens ≥ 1.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  BPW_LENGTH_FIXED,
  BPW_LENGTH_UNIFORM,
  BPW_LENGTH_LOGNORMAL,
} BpwLengthKind;

typedef struct
{
  BpwLengthKind kind;
  double        a;   /* N, LO or MEAN */
  double        b;   /* HI or SIGMA */
} BpwLengthDist;

/* Parses @text; @what names the option in the error ("--prompt-len"). */
gboolean  bpw_length_dist_parse     (const char          *text,
                                     const char          *what,
                                     BpwLengthDist       *out,
                                     GError             **error);
char     *bpw_length_dist_to_string (const BpwLengthDist *dist);
double    bpw_length_dist_mean      (const BpwLengthDist *dist);
/* One length from @rand (deterministic for a seeded GRand). */
gint64    bpw_length_dist_sample    (const BpwLengthDist *dist,
                                     GRand               *rand);

G_END_DECLS
