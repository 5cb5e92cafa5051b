/* bpw-scale.h — linear and logarithmic scales with "nice" ticks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure math, no allocation: a scale maps a data interval onto a pixel interval, and
 * produces tick values a reader finds natural (1, 2, 5 × 10^k on linear axes; decades with
 * 2…9 minor ticks on log axes). Axes and hit-testing both go through it, so what is drawn
 * and what is found under the pointer agree by construction.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  BPW_SCALE_LINEAR,
  BPW_SCALE_LOG,     /* base 10; the domain must be positive */
} BpwScaleKind;

typedef struct
{
  BpwScaleKind  kind;
  double        d0, d1;   /* data domain as given */
  double        r0, r1;   /* pixel range (r1 < r0 for a y axis growing upwards) */
  double        t0, t1;   /* transformed domain: d or log10 (d) */
} BpwScale;

typedef struct
{
  double    value;        /* in data units */
  gboolean  major;        /* major ticks carry labels and stronger grid lines */
} BpwTick;

/* A log scale clamps a non-positive domain to a tiny positive one rather than producing
 * NaN, so that a plot of bad data draws an empty frame instead of crashing. */
void      bpw_scale_init        (BpwScale     *scale,
                                 BpwScaleKind  kind,
                                 double        d0,
                                 double        d1,
                                 double        r0,
                                 double        r1);
double    bpw_scale_map         (const BpwScale *scale,
                                 double          value);
double    bpw_scale_unmap       (const BpwScale *scale,
                                 double          pixel);
/* Pixels per unit of transformed domain (per decade on a log scale); signed. */
double    bpw_scale_density     (const BpwScale *scale);

/* Heckbert's nice number: the 1, 2, 5 (or, with @round, the nearest of 1, 2, 5, 10)
 * multiple of a power of ten closest to @x from above. @x > 0. */
double    bpw_scale_nice_number (double        x,
                                 gboolean      round);
/* Widens [@lo, @hi] to whole multiples of a nice step (linear, about @target steps) or
 * to whole decades (log). A degenerate interval is widened around its value. */
void      bpw_scale_nice_domain (BpwScaleKind  kind,
                                 double       *lo,
                                 double       *hi,
                                 guint         target);
/* The nice step between about @target major ticks over the scale's domain (linear);
 * on a log scale, the step in decades (1 when every decade is labelled). */
double    bpw_scale_tick_step   (const BpwScale *scale,
                                 guint           target);
/* Writes up to @max ticks inside the domain, ascending, into @ticks; returns how many.
 * About @target major ticks; minor ticks between them when @minor. */
guint     bpw_scale_ticks       (const BpwScale *scale,
                                 guint           target,
                                 gboolean        minor,
                                 BpwTick        *ticks,
                                 guint           max);

G_END_DECLS
