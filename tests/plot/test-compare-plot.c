/* test-compare-plot.c — candidates side by side: cells against the comparison, bars
 * against the breakdown, deltas, heat-map colours, hit-testing and CSV
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-compare-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-compare-plot.h"
#include "bpw-error.h"
#include "bpw-plot-test-util.h"

static BpwPlotStyle style;

typedef struct
{
  BpwStudy       *study;
  BpwComparison  *cmp;
  BpwComparePlot *plot;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer unused)
{
  g_autoptr(GError) error = NULL;
  BpwCompareOptions options;

  f->study = bpw_study_new_bundled ("default", &error);
  g_assert_no_error (error);
  bpw_compare_options_init (&options);
  f->cmp = bpw_compare_study (f->study, &options, NULL, &error);
  g_assert_no_error (error);
  f->plot = bpw_compare_plot_new_for_study (f->study, NULL, NULL, &error);
  g_assert_no_error (error);
  bpw_plot_layout (BPW_PLOT (f->plot), &style, NULL, 720, 405);
}

static void
fixture_teardown (Fixture *f, gconstpointer unused)
{
  g_clear_object (&f->plot);
  g_clear_pointer (&f->cmp, bpw_comparison_free);
  g_clear_object (&f->study);
}

/* Every cell says what the comparison says. */
static void
test_cells (Fixture *f, gconstpointer unused)
{
  const BpwCompareData *data = bpw_compare_plot_get_data (f->plot);

  g_assert_cmpuint (data->n_candidates, ==, bpw_comparison_get_n_candidates (f->cmp));
  g_assert_cmpuint (data->n_scenarios, ==, bpw_comparison_get_n_scenarios (f->cmp));
  for (guint c = 0; c < data->n_candidates; c++)
    for (guint s = 0; s < data->n_scenarios; s++)
      {
        const BpwCompareCell *cell = bpw_comparison_get_cell (f->cmp, c, s);
        const BpwCompareFit *fit = bpw_compare_data_cell (data, c, s);
        BpwPlotColor color;
        BpwPlotRect r;

        g_assert_cmpint (fit->feasible, ==, cell->feasible);
        g_assert_cmpint (fit->has_sla, ==, cell->has_sla);
        g_assert_cmpfloat (fit->eval.step_time_s, ==, cell->eval.step_time_s);
        if (cell->has_sla)
          {
            g_assert_cmpint (fit->sla_pass, ==, cell->sla_pass);
            g_assert_cmpfloat (fit->value, ==, cell->sla_value);
            g_assert_cmpfloat (fit->sla_margin, ==, cell->sla_margin);
          }
        /* Green passes, red fails. */
        g_assert_true (bpw_compare_plot_get_cell_rect (f->plot, c, s, &r));
        color = bpw_compare_fit_color (&style, fit);
        if (fit->legal && fit->has_sla)
          g_assert_cmpint (fit->sla_pass ? color.g > color.r : color.r > color.g, ==, TRUE);
      }
}

/* The bars: a candidate's segments are its breakdown, end to end, from 0 to its step
 * time (the parts add up to the step exactly). */
static void
test_bars (Fixture *f, gconstpointer unused)
{
  const BpwCompareData *data = bpw_compare_plot_get_data (f->plot);
  guint n;
  const BpwCompareSegment *seg = bpw_compare_plot_get_segments (f->plot, &n);

  for (guint c = 0; c < data->n_candidates; c++)
    {
      const BpwCompareFit *fit = bpw_compare_data_cell (data, c, data->scenario);
      double x = bpw_plot_map_x (BPW_PLOT (f->plot), 0);

      for (guint i = 0; i < n; i++)
        if (seg[i].candidate == c)
          {
            g_assert_cmpfloat_with_epsilon (seg[i].rect.x, x, 1e-6);
            g_assert_cmpfloat_with_epsilon (seg[i].rect.width,
                                            bpw_plot_map_x (BPW_PLOT (f->plot),
                                                                       fit->eval.breakdown_s[seg[i].part]) -
                                              bpw_plot_map_x (BPW_PLOT (f->plot), 0), 1e-6);
            x += seg[i].rect.width;
          }
      g_assert_cmpfloat_with_epsilon (x, bpw_plot_map_x (BPW_PLOT (f->plot),
                                                                   fit->eval.step_time_s),
                                      1e-6);
    }
}

/* The table's step-time deltas against the baseline (the first candidate). */
static void
test_table (Fixture *f, gconstpointer unused)
{
  const BpwCompareData *data = bpw_compare_plot_get_data (f->plot);
  double base = bpw_compare_data_cell (data, 0, 0)->eval.step_time_s;

  g_assert_cmpuint (bpw_compare_plot_get_n_table_rows (f->plot), ==, data->n_candidates + 1);
  g_assert_cmpstr (bpw_compare_plot_get_table_text (f->plot, 1, 2), ==, "baseline");
  for (guint c = 1; c < data->n_candidates; c++)
    {
      double d = bpw_compare_data_cell (data, c, 0)->eval.step_time_s / base - 1;
      g_autofree char *want = g_strdup_printf ("%s%.1f%%", d >= 0 ? "+" : "−", fabs (100 * d));

      g_assert_cmpstr (bpw_compare_plot_get_table_text (f->plot, c + 1, 0), ==,
                       data->candidates[c]);
      g_assert_cmpstr (bpw_compare_plot_get_table_text (f->plot, c + 1, 2), ==, want);
    }
}

static void
test_hits_and_csv (Fixture *f, gconstpointer unused)
{
  const BpwCompareData *data = bpw_compare_plot_get_data (f->plot);
  g_autofree char *csv = bpw_plot_to_csv (BPW_PLOT (f->plot));
  g_auto(GStrv) lines = g_strsplit (csv, "\n", -1);
  guint fits = 0;
  BpwPlotRect r;
  BpwPlotHit hit;
  g_autofree char *text = NULL;

  g_assert_true (bpw_compare_plot_get_cell_rect (f->plot, 0, 1, &r));
  g_assert_true (bpw_plot_hit_test (BPW_PLOT (f->plot), r.x + r.width / 2, r.y + r.height / 2,
                                    &hit));
  g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_CELL);
  g_assert_cmpint (hit.index, ==, 1);
  text = bpw_plot_describe (BPW_PLOT (f->plot), &hit);
  g_assert_nonnull (strstr (text, data->candidates[0]));
  g_assert_nonnull (strstr (text, data->scenarios[1]));
  for (guint i = 1; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "fit,"))
      fits++;
  g_assert_cmpuint (fits, ==, data->n_candidates * data->n_scenarios);
}

static void
test_unknown_names (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);

  g_assert_null (bpw_compare_plot_new_for_study (study, "nope", NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_null (bpw_compare_plot_new_for_study (study, NULL, "nope", &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  bpw_plot_style_init_print (&style);

  g_test_add ("/bpw/plot/ComparePlot/cells", Fixture, NULL, fixture_setup, test_cells,
              fixture_teardown);
  g_test_add ("/bpw/plot/ComparePlot/bars", Fixture, NULL, fixture_setup, test_bars,
              fixture_teardown);
  g_test_add ("/bpw/plot/ComparePlot/table", Fixture, NULL, fixture_setup, test_table,
              fixture_teardown);
  g_test_add ("/bpw/plot/ComparePlot/hits-and-csv", Fixture, NULL, fixture_setup,
              test_hits_and_csv, fixture_teardown);
  g_test_add_func ("/bpw/plot/ComparePlot/unknown-names", test_unknown_names);
  return g_test_run ();
}
