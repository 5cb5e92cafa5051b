/* bpw-scale.c — linear and logarithmic scales with "nice" ticks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-scale"

#include "config.h"

#include <math.h>

#include "bpw-scale.h"

/* Values within this relative distance of the domain's ends still get their tick: the
 * ends are often computed as 10^k or k·step and differ from the tick in the last bit. */
#define EDGE_TOLERANCE 1e-9

static double
transform (BpwScaleKind kind, double value)
{
  if (kind == BPW_SCALE_LINEAR)
    return value;
  return log10 (value > 0 ? value : G_MINDOUBLE);
}

void
bpw_scale_init (BpwScale     *scale,
                BpwScaleKind  kind,
                double        d0,
                double        d1,
                double        r0,
                double        r1)
{
  g_return_if_fail (scale != NULL);

  if (kind == BPW_SCALE_LOG && (!(d0 > 0) || !(d1 > 0)))
    {
      double top = MAX (d0, d1) > 0 ? MAX (d0, d1) : 1.0;

      d0 = top / 1000.0;
      d1 = top;
    }
  *scale = (BpwScale) {
    .kind = kind, .d0 = d0, .d1 = d1, .r0 = r0, .r1 = r1,
    .t0 = transform (kind, d0), .t1 = transform (kind, d1),
  };
}

double
bpw_scale_map (const BpwScale *scale,
               double          value)
{
  double span = scale->t1 - scale->t0;

  if (span == 0)
    return (scale->r0 + scale->r1) / 2;
  return scale->r0 + (transform (scale->kind, value) - scale->t0) / span * (scale->r1 - scale->r0);
}

double
bpw_scale_unmap (const BpwScale *scale,
                 double          pixel)
{
  double range = scale->r1 - scale->r0;
  double t = range == 0 ? scale->t0
                        : scale->t0 + (pixel - scale->r0) / range * (scale->t1 - scale->t0);

  return scale->kind == BPW_SCALE_LOG ? pow (10.0, t) : t;
}

double
bpw_scale_density (const BpwScale *scale)
{
  double span = scale->t1 - scale->t0;

  return span == 0 ? 0 : (scale->r1 - scale->r0) / span;
}

double
bpw_scale_nice_number (double   x,
                       gboolean round)
{
  double exponent, fraction, nice;

  g_return_val_if_fail (x > 0 && isfinite (x), 1.0);

  exponent = floor (log10 (x));
  fraction = x / pow (10.0, exponent);
  if (round)
    nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
  else
    nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * pow (10.0, exponent);
}

void
bpw_scale_nice_domain (BpwScaleKind  kind,
                       double       *lo,
                       double       *hi,
                       guint         target)
{
  double a = MIN (*lo, *hi), b = MAX (*lo, *hi), step;

  if (kind == BPW_SCALE_LOG)
    {
      if (!(b > 0))
        a = 1, b = 10;
      else if (!(a > 0))
        a = b / 1000.0;
      a = pow (10.0, floor (log10 (a) + EDGE_TOLERANCE));
      b = pow (10.0, ceil (log10 (b) - EDGE_TOLERANCE));
      if (b <= a)
        b = a * 10.0;
      *lo = a;
      *hi = b;
      return;
    }

  if (a == b)
    {
      double pad = a != 0 ? fabs (a) / 2 : 1.0;

      a -= pad;
      b += pad;
    }
  step = bpw_scale_nice_number ((b - a) / MAX (target, 1u), TRUE);
  *lo = floor (a / step + EDGE_TOLERANCE) * step;
  *hi = ceil (b / step - EDGE_TOLERANCE) * step;
}

static double
linear_step (double lo, double hi, guint target)
{
  double range = hi - lo;

  if (!(range > 0) || !isfinite (range))
    return 1.0;
  return bpw_scale_nice_number (range / MAX (target, 1u), TRUE);
}

double
bpw_scale_tick_step (const BpwScale *scale,
                     guint           target)
{
  double span = fabs (scale->t1 - scale->t0);

  if (scale->kind == BPW_SCALE_LINEAR)
    return linear_step (MIN (scale->d0, scale->d1), MAX (scale->d0, scale->d1), target);
  return MAX (1.0, ceil (span / MAX (target, 1u) - EDGE_TOLERANCE));
}

/* Ticks at multiples of @step, every @sub-th of them major (@sub = 1: all major). */
static guint
multiples (double lo, double hi, double step, guint sub, gboolean minor, BpwTick *ticks,
           guint max)
{
  double first = ceil (lo / step - EDGE_TOLERANCE), last = floor (hi / step + EDGE_TOLERANCE);
  guint n = 0;

  for (double i = first; i <= last && n < max; i++)
    {
      gboolean major = fmod (fabs (i), sub) == 0;
      double value = i * step;

      if (!major && !minor)
        continue;
      if (fabs (value) < step * EDGE_TOLERANCE)
        value = 0;
      ticks[n++] = (BpwTick) { .value = value, .major = major };
    }
  return n;
}

static guint
minor_subdivisions (double step)
{
  double mantissa = step / pow (10.0, floor (log10 (step) + EDGE_TOLERANCE));

  /* 1 → 0.2 steps, 2 → 0.5, 5 → 1: minor ticks stay on round values. */
  return mantissa < 1.5 ? 5 : mantissa < 3 ? 4 : 5;
}

static guint
log_ticks (double lo, double hi, double decades, guint target, gboolean minor, BpwTick *ticks,
           guint max)
{
  double step = MAX (1.0, ceil (decades / MAX (target, 1u) - EDGE_TOLERANCE));
  double first = floor (log10 (lo) + EDGE_TOLERANCE), last = ceil (log10 (hi) - EDGE_TOLERANCE);
  /* Few decades for many ticks: 1-2-5 labels inside each decade as well. */
  gboolean fine = step == 1 && decades * 5 <= target;
  guint n = 0;

  for (double e = first; e <= last && n < max; e++)
    {
      double decade = pow (10.0, e);
      gboolean major = fmod (fabs (e), step) == 0;

      for (int m = 1; m <= 9 && n < max; m++)
        {
          double value = m * decade;
          gboolean is_major = m == 1 ? major : fine && (m == 2 || m == 5);
          gboolean wanted = is_major || (minor && (step == 1 || m == 1));

          if (!wanted || value < lo * (1 - EDGE_TOLERANCE) || value > hi * (1 + EDGE_TOLERANCE))
            continue;
          ticks[n++] = (BpwTick) { .value = value, .major = is_major };
        }
    }
  return n;
}

guint
bpw_scale_ticks (const BpwScale *scale,
                 guint           target,
                 gboolean        minor,
                 BpwTick        *ticks,
                 guint           max)
{
  double lo = MIN (scale->d0, scale->d1), hi = MAX (scale->d0, scale->d1);
  double decades = fabs (scale->t1 - scale->t0), step;

  g_return_val_if_fail (ticks != NULL || max == 0, 0);

  if (!isfinite (lo) || !isfinite (hi) || max == 0)
    return 0;
  if (scale->kind == BPW_SCALE_LOG && decades >= 1 - EDGE_TOLERANCE)
    return log_ticks (lo, hi, decades, target, minor, ticks, max);

  /* Linear, and log scales narrower than a decade (where decades would leave at most one
   * tick): round multiples in data units. */
  step = linear_step (lo, hi, target);
  if (!minor)
    return multiples (lo, hi, step, 1, FALSE, ticks, max);
  {
    guint sub = minor_subdivisions (step);

    return multiples (lo, hi, step / sub, sub, TRUE, ticks, max);
  }
}
