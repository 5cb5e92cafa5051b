/* bpw-serve-length.c — prompt and output length distributions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-serve-length"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-serve-length.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"

/* Lengths beyond this are refused: no model has such a context, and the draws must fit
 * the step model's grids. */
#define MAX_LENGTH 16777216.0

static gboolean
parse_number (const char *s, double *out)
{
  char *end = NULL;

  if (s == NULL || *s == '\0')
    return FALSE;
  *out = g_ascii_strtod (s, &end);
  return end != NULL && *end == '\0' && isfinite (*out);
}

gboolean
bpw_length_dist_parse (const char     *text,
                       const char     *what,
                       BpwLengthDist  *out,
                       GError        **error)
{
  g_auto(GStrv) parts = g_strsplit (text != NULL ? text : "", ":", -1);
  guint n = g_strv_length (parts);
  BpwLengthDist d = { 0 };
  gboolean ok = FALSE;

  if (n == 2 && strcmp (parts[0], "fixed") == 0)
    {
      d.kind = BPW_LENGTH_FIXED;
      ok = parse_number (parts[1], &d.a) && d.a >= 1 && d.a <= MAX_LENGTH && d.a == floor (d.a);
    }
  else if (n == 3 && strcmp (parts[0], "uniform") == 0)
    {
      d.kind = BPW_LENGTH_UNIFORM;
      ok = parse_number (parts[1], &d.a) && parse_number (parts[2], &d.b) && d.a >= 1 &&
           d.b >= d.a && d.b <= MAX_LENGTH && d.a == floor (d.a) && d.b == floor (d.b);
    }
  else if (n == 3 && strcmp (parts[0], "lognormal") == 0)
    {
      d.kind = BPW_LENGTH_LOGNORMAL;
      ok = parse_number (parts[1], &d.a) && parse_number (parts[2], &d.b) && d.a >= 1 &&
           d.a <= MAX_LENGTH && d.b >= 0 && d.b <= 4;
    }
  if (!ok)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: expected fixed:N, uniform:LO:HI or lognormal:MEAN:SIGMA with whole "
                   "token counts from 1 to %.0f (SIGMA from 0 to 4), got '%s'"), what,
                   MAX_LENGTH, text != NULL ? text : "");
      return FALSE;
    }
  *out = d;
  return TRUE;
}

char *
bpw_length_dist_to_string (const BpwLengthDist *d)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (a, sizeof a, "%.10g", d->a);
  g_ascii_formatd (b, sizeof b, "%.10g", d->b);
  switch (d->kind)
    {
    case BPW_LENGTH_UNIFORM:
      return g_strdup_printf ("uniform:%s:%s", a, b);
    case BPW_LENGTH_LOGNORMAL:
      return g_strdup_printf ("lognormal:%s:%s", a, b);
    case BPW_LENGTH_FIXED:
    default:
      return g_strdup_printf ("fixed:%s", a);
    }
}

double
bpw_length_dist_mean (const BpwLengthDist *d)
{
  switch (d->kind)
    {
    case BPW_LENGTH_UNIFORM:
      return (d->a + d->b) / 2.0;
    case BPW_LENGTH_LOGNORMAL:
      return d->a;  /* before rounding and the floor of one token */
    case BPW_LENGTH_FIXED:
    default:
      return d->a;
    }
}

gint64
bpw_length_dist_sample (const BpwLengthDist *d,
                        GRand               *rand)
{
  switch (d->kind)
    {
    case BPW_LENGTH_UNIFORM:
      return (gint64) d->a + (gint64) floor (g_rand_double (rand) * (d->b - d->a + 1.0));
    case BPW_LENGTH_LOGNORMAL:
      {
        /* Box–Muller from two uniforms in (0, 1]. */
        double u1 = 1.0 - g_rand_double (rand), u2 = g_rand_double (rand);
        double z = sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
        double mu = log (d->a) - d->b * d->b / 2.0;

        return (gint64) CLAMP (round (exp (mu + d->b * z)), 1.0, MAX_LENGTH);
      }
    case BPW_LENGTH_FIXED:
    default:
      return (gint64) d->a;
    }
}
