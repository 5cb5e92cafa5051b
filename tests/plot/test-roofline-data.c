/* test-roofline-data.c — the roofline's data adapter on the default study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Points, ceilings and ridges from a bound plan, checked against the mapping sheet and the
 * blueprint's own figures.
 */
#define G_LOG_DOMAIN "test-roofline-data"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-mapping-sheet.h"
#include "bpw-plot-test-util.h"
#include "bpw-roofline-plot.h"

#define W 720.0
#define H 405.0

static double
best_calibrated (const BpwEfficiencyTable *t)
{
  double best = 0;

  for (guint i = 0; i < t->n_points; i++)
    best = MAX (best, t->points[i].efficiency);
  return best;
}

static void
test_default_study (void)
{
  g_autoptr(BpwPlan) plan = bpw_plot_test_default_plan (NULL, NULL);
  g_autoptr(BpwPlan) base = bpw_plot_test_default_plan ("H100 SXM 80 GB", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) rows = bpw_mapping_sheet_new (plan, FALSE);
  BpwRooflineData *data = bpw_roofline_data_new_from_plan (plan, -1, "A100", &error);
  const BpwBlueprint *bp = plan->blueprint;
  double peak = bpw_blueprint_peak_flops (bp, BPW_ENGINE_MATRIX, plan->precision);
  double ridge = bpw_blueprint_ridge_point (bp, plan->precision);
  int matrix = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
  guint placeable = 0, others = 0, merged = 0;
  double total = 0, shown = 0;
  gboolean peak_seen = FALSE, ridge_seen = FALSE, calibrated_seen = FALSE;
  g_autoptr(BpwRooflinePlot) plot = NULL;
  BpwPlotStyle style;
  guint n_marks, baseline_hits = 0;
  const BpwRooflineMark *marks;
  g_autofree char *matrix_label = NULL;

  g_assert_no_error (error);
  g_assert_cmpfloat (peak, >, 0);
  g_assert_cmpint (matrix, >=, 0);
  matrix_label = g_strdup_printf ("%s %s", bp->engines[matrix].name,
                                  bpw_precision_to_string (plan->precision));
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);

      if (r->transfer)
        continue;
      total += r->total_s;
      if (r->flops > 0 && r->device_bytes > 0 && r->time_s > 0)
        placeable++;
      else
        others++;
    }
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);

      merged += p->merged;
      shown += p->total_s;
      g_assert_cmpfloat_with_epsilon (p->intensity, p->flops / p->bytes, 1e-12 * p->intensity);
      g_assert_cmpfloat (p->attained, <=, peak * (1 + 1e-12));
      g_assert_cmpfloat_with_epsilon (p->share, p->total_s / total, 1e-12);
    }
  /* Every placeable task of every stage is in exactly one point; the rest are counted. */
  g_assert_cmpuint (merged, ==, placeable);
  g_assert_cmpuint (data->skipped, ==, others);
  g_assert_cmpuint (data->points->len, <, placeable);
  g_assert_cmpfloat (shown, <=, total);

  for (guint i = 0; i < data->ceilings->len; i++)
    {
      const BpwRooflineCeiling *c = &g_array_index (data->ceilings, BpwRooflineCeiling, i);

      peak_seen |= c->kind == BPW_CEILING_COMPUTE && !c->calibrated && c->value == peak;
      if (c->kind == BPW_CEILING_COMPUTE && c->calibrated && strcmp (c->label, matrix_label) == 0)
        {
          double eff = best_calibrated (&bp->engines[matrix].efficiency[plan->precision]);

          calibrated_seen = TRUE;
          g_assert_cmpfloat_with_epsilon (c->value, peak * eff, 1e-6 * peak);
        }
    }
  for (guint i = 0; i < data->ridges->len; i++)
    ridge_seen |= fabs (g_array_index (data->ridges, BpwRooflineRidge, i).intensity - ridge) <=
                  1e-12 * ridge;
  g_assert_true (peak_seen);
  g_assert_true (ridge_seen);
  /* A table fitted or measured draws its best efficiency as a ceiling; the A100's is an
   * estimate (its small products by the equal-footing rule), the H100's measured (MAMF). */
  {
    const BpwEfficiencyTable *t = &bp->engines[matrix].efficiency[plan->precision];
    g_autoptr(BpwRooflineData) measured = bpw_roofline_data_new_from_plan (base, -1, "H100",
                                                                          &error);
    gboolean measured_seen = FALSE;

    g_assert_no_error (error);
    g_assert_true (calibrated_seen == (t->kind == BPW_PROVENANCE_CALIBRATED ||
                                       t->kind == BPW_PROVENANCE_MEASURED));
    for (guint i = 0; i < measured->ceilings->len; i++)
      measured_seen |= g_array_index (measured->ceilings, BpwRooflineCeiling, i).calibrated;
    g_assert_true (measured_seen);
  }

  g_assert_true (bpw_roofline_data_add_baseline (data, base, -1, "H100", &error));
  g_assert_no_error (error);
  plot = bpw_roofline_plot_new (data);
  bpw_plot_style_init_print (&style);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, W, H);
  marks = bpw_roofline_plot_get_marks (plot, &n_marks);
  for (guint i = 0; i < n_marks; i++)
    if (marks[i].baseline)
      {
        BpwPlotHit hit;

        /* The baseline's rings lie under the plan's dots: only test the uncovered ones. */
        if (bpw_plot_hit_test (BPW_PLOT (plot), marks[i].x, marks[i].y, &hit) &&
            hit.kind == BPW_PLOT_HIT_BASELINE)
          {
            g_assert_true (g_array_index (data->points, BpwRooflinePoint, hit.index).baseline);
            baseline_hits++;
          }
      }
  g_assert_cmpuint (baseline_hits, >, 0);
}

static void
test_bad_stage (void)
{
  g_autoptr(BpwPlan) plan = bpw_plot_test_default_plan (NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_null (bpw_roofline_data_new_from_plan (plan, plan->dist->n_stages, NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/plot/RooflineData/default-study", test_default_study);
  g_test_add_func ("/bpw/plot/RooflineData/bad-stage", test_bad_stage);

  return g_test_run ();
}
