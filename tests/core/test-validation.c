/* test-validation.c — every row of Megatron-LM 2021 Table 1 within 10 %, and the
 * calibration that makes it so reproducible
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"

/* Eq. (3) reproduces the table's implied iteration time ([D] column of REFERENCES.md). */
static void
test_equation_3 (void)
{
  static const double implied[] = { 3.53, 3.70, 3.70, 9.40, 14.45, 16.06, 24.82, 37.61, 54.08,
                                    102.63 };
  guint n;
  const BpwMegatronRow *rows = bpw_validation_megatron_rows (&n);

  g_assert_cmpuint (n, ==, G_N_ELEMENTS (implied));
  for (guint i = 0; i < n; i++)
    {
      double t = bpw_validation_megatron_flops (&rows[i]) /
                 ((double) rows[i].gpus * rows[i].published_tflops * 1e12);

      g_assert_cmpfloat (fabs (t - implied[i]), <, 0.006 * implied[i]);
    }
}

static void
test_table_1_within_10_percent (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  guint n;
  const BpwMegatronRow *rows = bpw_validation_megatron_rows (&n);

  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      BpwValidationResult r;

      g_assert_true (bpw_validation_megatron_predict (bp, &rows[i], &r, &error));
      g_assert_no_error (error);
      g_test_message ("%7.1fB: predicted %.1f TF/s, published %.0f (%+.1f %%)",
                      rows[i].parameters_b, r.predicted_tflops, rows[i].published_tflops,
                      100.0 * r.error);
      g_assert_true (r.legal);
      g_assert_cmpfloat (fabs (r.error), <, 0.10);
    }
}

/* Fitting again from the fixed starting values gives the bundled calibration. */
static void
test_fit_reproduces_bundle (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bundled = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwBlueprint) fitted = bpw_blueprint_copy (bundled);
  int mi = bpw_blueprint_first_engine (bundled, BPW_ENGINE_MATRIX);
  int hi = bpw_blueprint_first_memory (bundled, BPW_MEMORY_DEVICE);
  const BpwEfficiencyTable *a = &bundled->engines[mi].efficiency[BPW_PRECISION_FP16];
  const BpwEfficiencyTable *b;
  double worst;

  g_assert_true (bpw_validation_fit (fitted, &worst, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (worst, <, 0.10);
  b = &fitted->engines[mi].efficiency[BPW_PRECISION_FP16];
  g_assert_cmpuint (a->n_points, ==, b->n_points);
  for (guint i = 0; i < a->n_points; i++)
    {
      g_assert_cmpfloat_with_epsilon (a->points[i].size, b->points[i].size, 1e-3);
      g_assert_cmpfloat_with_epsilon (a->points[i].efficiency, b->points[i].efficiency, 1e-9);
    }
  g_assert_cmpint (b->kind, ==, BPW_PROVENANCE_CALIBRATED);
  g_assert_cmpfloat_with_epsilon (bundled->memory[hi].efficiency.points[0].efficiency,
                                  fitted->memory[hi].efficiency.points[0].efficiency, 1e-9);
  g_assert_cmpfloat_with_epsilon (bundled->engines[mi].overhead.value,
                                  fitted->engines[mi].overhead.value, 1e-12);
  /* Only the efficiencies were calibrated: peaks stay datasheet figures. */
  g_assert_cmpint (bundled->engines[mi].peak[BPW_PRECISION_FP16].kind, ==,
                   BPW_PROVENANCE_DATASHEET);
}

/* Leave-one-out: each row predicted by a fit that did not see it, carried by the report
 * beside the in-sample figure and named as such in its text. */
static void
test_leave_one_out (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwValidationReport) report = bpw_validation_report_new ();
  g_autoptr(BpwBlueprint) all_rows = bpw_blueprint_copy (bp);
  g_autofree char *text = NULL;
  const BpwMegatronRow *rows;
  const BpwReportSection *s;
  guint moved = 0, n_rows;
  double worst = 0, fit_worst;

  g_assert_true (bpw_validation_report_add_megatron (report, bp, &error));
  s = g_ptr_array_index (report->sections, 0);
  g_assert_true (isnan (s->held_out_mean_abs_error));
  g_assert_true (bpw_validation_report_add_held_out (report, bp, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < s->entries->len; i++)
    {
      const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, i);

      g_assert_true (isfinite (e->held_out));
      g_assert_cmpfloat_with_epsilon (e->held_out_error, e->held_out / e->measured - 1, 1e-12);
      g_test_message ("%s: in-sample %+.1f %%, leave-one-out %+.1f %%", e->name,
                      100 * e->error, 100 * e->held_out_error);
      worst = MAX (worst, fabs (e->held_out_error));
    }
  g_assert_cmpfloat (s->held_out_max_abs_error, ==, worst);

  /* Every row moves the refit: each row's leave-one-out prediction differs from its
   * prediction by the same rule fitted on all rows. (Under the minimax rule only the one
   * row that bound the fit moved.) */
  g_assert_true (bpw_validation_refit (all_rows, -1, &fit_worst, &error));
  g_assert_no_error (error);
  rows = bpw_validation_megatron_rows (&n_rows);
  g_assert_cmpuint (n_rows, ==, s->entries->len);
  for (guint i = 0; i < n_rows; i++)
    {
      const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, i);
      BpwValidationResult r;

      g_assert_true (bpw_validation_megatron_predict (all_rows, &rows[i], &r, &error));
      g_test_message ("%s: all rows %.2f TF/s, left out %.2f TF/s", e->name,
                      r.predicted_tflops, e->held_out);
      moved += fabs (e->held_out - r.predicted_tflops) > 1e-3 * e->measured;
    }
  g_assert_cmpuint (moved, ==, n_rows);
  text = bpw_validation_report_to_text (report, 20);
  g_assert_nonnull (strstr (text, "in-sample: mean |error|"));
  g_assert_nonnull (strstr (text, "leave-one-out (each row predicted by a fit on the other "
                                  "rows)"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Validation/equation-3", test_equation_3);
  g_test_add_func ("/bpw/core/Validation/table-1-within-10-percent",
                   test_table_1_within_10_percent);
  g_test_add_func ("/bpw/core/Validation/fit-reproduces-bundle", test_fit_reproduces_bundle);
  g_test_add_func ("/bpw/core/Validation/leave-one-out", test_leave_one_out);
  return g_test_run ();
}
