/* bpw-calibrate-table.c — one efficiency table's fit: binned corrections, log-linear
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-calibrate-table"

#include "config.h"

#include <math.h>

#include "bpw-calibrate-private.h"

#define MIN_EFFICIENCY 1e-4

BpwCalibrationFitTable *
_bpw_calibration_table_new (const BpwBlueprint *bp,
                            BpwEfficiencyTable *table,
                            BpwOpClass          op_class)
{
  BpwCalibrationFitTable *t = g_new0 (BpwCalibrationFitTable, 1);

  t->table = table;
  t->op_class = op_class;
  t->bins = g_array_new (FALSE, FALSE, sizeof (BpwCalibrationBin));
  t->before = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
  g_array_append_vals (t->before, table->points, table->n_points);
  t->min_size = G_MAXDOUBLE;
  for (guint e = 0; e < bp->n_engines && t->name == NULL; e++)
    for (guint p = 0; p < BPW_N_PRECISIONS; p++)
      if (&bp->engines[e].efficiency[p] == table)
        t->name = g_strdup_printf ("%s %s", bp->engines[e].name, bpw_precision_to_string (p));
  for (guint m = 0; m < bp->n_memory && t->name == NULL; m++)
    if (&bp->memory[m].efficiency == table)
      t->name = g_strdup (bp->memory[m].name);
  if (t->name == NULL)
    t->name = g_strdup ("?");
  return t;
}

void
_bpw_calibration_table_free (gpointer data)
{
  BpwCalibrationFitTable *t = data;

  g_free (t->name);
  g_array_unref (t->bins);
  g_array_unref (t->before);
  g_free (t);
}

void
_bpw_calibration_table_reset (BpwCalibrationFitTable *t)
{
  g_array_set_size (t->bins, 0);
  t->rows = 0;
  t->min_size = G_MAXDOUBLE;
  t->max_size = 0;
}

void
_bpw_calibration_table_add (BpwCalibrationFitTable *t,
                            guint                   bins_per_decade,
                            double                  size,
                            double                  predicted,
                            double                  measured)
{
  gint bin = (gint) floor (log10 (size) * bins_per_decade);
  guint i = 0;

  while (i < t->bins->len && g_array_index (t->bins, BpwCalibrationBin, i).bin < bin)
    i++;
  if (i == t->bins->len || g_array_index (t->bins, BpwCalibrationBin, i).bin != bin)
    {
      BpwCalibrationBin fresh = { .bin = bin };

      g_array_insert_val (t->bins, i, fresh);
    }
  g_array_index (t->bins, BpwCalibrationBin, i).predicted += predicted;
  g_array_index (t->bins, BpwCalibrationBin, i).measured += measured;
  t->rows++;
  t->min_size = MIN (t->min_size, size);
  t->max_size = MAX (t->max_size, size);
}

/* The correction at log10 size @x: log-linear between bin centres, constant beyond. */
static double
correction (const BpwCalibrationFitTable *t, guint bpd, double x)
{
  const BpwCalibrationBin *b = (const BpwCalibrationBin *) (void *) t->bins->data;
  guint n = t->bins->len;

  for (guint i = 0; i < n; i++)
    {
      double c = (b[i].bin + 0.5) / bpd;

      if (x <= c)
        {
          double r1 = b[i].predicted / b[i].measured, c0, r0;

          if (i == 0)
            return r1;
          c0 = (b[i - 1].bin + 0.5) / bpd;
          r0 = b[i - 1].predicted / b[i - 1].measured;
          return r0 + (r1 - r0) * (x - c0) / (c - c0);
        }
    }
  return b[n - 1].predicted / b[n - 1].measured;
}

static int
compare_points (gconstpointer a, gconstpointer b)
{
  double x = ((const BpwEfficiencyPoint *) a)->size, y = ((const BpwEfficiencyPoint *) b)->size;

  return x < y ? -1 : x > y;
}

double
_bpw_calibration_table_apply (BpwCalibrationFitTable *t,
                              BpwBlueprint           *bp,
                              guint                   bins_per_decade,
                              const char             *source)
{
  BpwEfficiencyTable *table = t->table;
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
  BpwInterpolation interp = table->n_points > 0 ? table->interpolation
                                                : BPW_INTERPOLATION_LOG_LINEAR;
  double change = 0;

  for (guint i = 0; i < table->n_points; i++)
    g_array_append_val (points, table->points[i]);
  for (guint i = 0; i < t->bins->len; i++)
    {
      const BpwCalibrationBin *bin = &g_array_index (t->bins, BpwCalibrationBin, i);
      BpwEfficiencyPoint p = { pow (10.0, (bin->bin + 0.5) / bins_per_decade), 0 };
      gboolean present = FALSE;

      for (guint k = 0; k < points->len && !present; k++)
        present = fabs (g_array_index (points, BpwEfficiencyPoint, k).size / p.size - 1) < 1e-12;
      if (!present)
        g_array_append_val (points, p);
      change = MAX (change, fabs (bin->predicted / bin->measured - 1.0));
    }
  g_array_sort (points, compare_points);
  for (guint i = 0; i < points->len; i++)
    {
      BpwEfficiencyPoint *p = &g_array_index (points, BpwEfficiencyPoint, i);
      double eff = bpw_efficiency_table_lookup (table, p->size) *
                   correction (t, bins_per_decade, log10 (p->size));

      t->clamped |= eff > 1.0;
      p->efficiency = CLAMP (eff, MIN_EFFICIENCY, 1.0);
    }
  bpw_efficiency_table_set (bp, table, (BpwEfficiencyPoint *) (void *) points->data,
                            points->len, interp, BPW_PROVENANCE_CALIBRATED, source);

  return change;
}

/* One round: costs on the current blueprint, samples binned per table, tables corrected.
 * Returns the largest correction, or a negative value with @error set. */
