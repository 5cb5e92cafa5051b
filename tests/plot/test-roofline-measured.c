/* test-roofline-measured.c — measured points beside predicted ones on the roofline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The profile is the plan's own trace with every duration doubled, so each measured point
 * must sit at its predicted point's intensity and attain exactly half its FLOP/s (up to
 * the trace's rounding of times to nanoseconds).
 */
#define G_LOG_DOMAIN "test-roofline-measured"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-plot-test-measured.h"
#include "bpw-plot-test-util.h"
#include "bpw-roofline-plot-private.h"

#define W 900.0
#define H 560.0
#define FACTOR 2.0

static const BpwRooflinePoint *
find_predicted (const BpwRooflineData  *data,
                const BpwRooflinePoint *measured)
{
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);

      if (!p->measured && !p->baseline && p->phase == measured->phase
          && strcmp (p->name, measured->name) == 0)
        return p;
    }
  return NULL;
}

static void
test_scaled (void)
{
  BpwPlotTestMeasured m;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwRooflineData) data = NULL;
  guint predicted = 0, measured = 0, added;

  bpw_plot_test_measured_init (&m, 1, FACTOR);
  data = bpw_roofline_data_new_from_plan (m.plan, -1, "A100", &error);
  g_assert_no_error (error);
  predicted = data->points->len;
  added = bpw_roofline_data_add_measured (data, m.corr, NULL);
  g_assert_cmpuint (added, ==, data->points->len - predicted);
  g_assert_cmpstr (data->measured_label, ==, "scaled-trace.json");
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);
      const BpwRooflinePoint *q;

      if (!p->measured)
        continue;
      measured++;
      q = find_predicted (data, p);
      g_assert_nonnull (q);
      g_assert_cmpuint (p->merged, >=, 1);
      g_assert_cmpfloat_with_epsilon (p->intensity / q->intensity, 1.0, 1e-9);
      /* The trace writes times in µs to the nanosecond. */
      g_assert_cmpfloat_with_epsilon (p->time_s, FACTOR * q->time_s, 3e-9);
      g_assert_cmpfloat_with_epsilon (p->attained, q->attained / FACTOR,
                                      p->attained * 3e-9 / p->time_s);
      g_assert_cmpint (p->layer_type, ==, q->layer_type);
      g_assert_cmpstr (p->kind, ==, q->kind);
    }
  g_assert_cmpuint (measured, ==, added);
  /* One measured point per distinct predicted operation name and phase. */
  g_assert_cmpuint (measured, >, 0);
  g_assert_cmpuint (measured, <=, predicted);
  bpw_plot_test_measured_clear (&m);
}

static void
test_diamonds (void)
{
  BpwPlotTestMeasured m;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwRooflinePlot) plot = NULL;
  g_autofree char *csv = NULL;
  BpwPlotStyle style;
  const BpwRooflineMark *marks;
  const BpwPlotLegend *legend;
  cairo_surface_t *surface;
  cairo_t *cr;
  BpwPlotColor ink;
  BpwPlotHit hit;
  guint n = 0, diamonds = 0, last_predicted = 0, first_measured = G_MAXUINT;
  gboolean entry = FALSE;

  bpw_plot_test_measured_init (&m, 1, FACTOR);
  plot = bpw_roofline_plot_new (bpw_roofline_data_new_from_plan (m.plan, -1, "A100", &error));
  g_assert_no_error (error);
  bpw_roofline_data_add_measured ((BpwRooflineData *) bpw_roofline_plot_get_data (plot),
                                  m.corr, "run.json");
  bpw_plot_style_init_print (&style);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, W, H);

  marks = bpw_roofline_plot_get_marks (plot, &n);
  for (guint i = 0; i < n; i++)
    if (marks[i].measured)
      {
        diamonds++;
        first_measured = MIN (first_measured, i);
      }
    else
      last_predicted = i;
  g_assert_cmpuint (diamonds, >, 0);
  /* Drawn over the predicted dots: after every one of them. */
  g_assert_cmpuint (first_measured, >, last_predicted);

  legend = &plot->scene->legend;
  for (guint i = 0; i < legend->n; i++)
    entry |= legend->entries[i].swatch == BPW_LEGEND_DIAMOND
             && strcmp (legend->entries[i].label, "measured (run.json)") == 0;
  g_assert_true (entry);

  /* The topmost mark under a diamond's centre is the measured point. */
  g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), marks[n - 1].x, marks[n - 1].y, &hit));
  g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_ITEM);
  g_assert_true (g_array_index (bpw_roofline_plot_get_data (plot)->points, BpwRooflinePoint,
                                hit.index).measured);

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  cr = cairo_create (surface);
  bpw_plot_draw (BPW_PLOT (plot), cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  bpw_plot_test_pixel (surface, 1.0, marks[n - 1].x, marks[n - 1].y, &ink);
  g_assert_false (fabs (ink.r - style.plot_background.r) < 0.02
                  && fabs (ink.g - style.plot_background.g) < 0.02
                  && fabs (ink.b - style.plot_background.b) < 0.02);
  cairo_surface_destroy (surface);

  csv = bpw_plot_to_csv (BPW_PLOT (plot));
  g_assert_nonnull (strstr (csv, "\nmeasured,"));
  bpw_plot_test_measured_clear (&m);
}

/* The real PyTorch run: measured time is accounted for, point by point. */
static void
test_fixture (void)
{
  BpwMeasurementRun run;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwRooflineData) data = NULL;
  double rows_s = 0, points_s = 0;
  guint rows = 0, merged = 0;

  if (!bpw_plot_test_measured_fixture (&run))
    return;
  data = bpw_roofline_data_new_from_plan (run.plan, -1, "CPU", &error);
  g_assert_no_error (error);
  bpw_roofline_data_add_measured (data, run.correlation, NULL);
  g_assert_cmpstr (data->measured_label, ==, "gpt2-block.json");
  for (guint i = 0; i < run.correlation->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (run.correlation, i);

      if (r->status != BPW_ROW_MATCHED || !(r->measured_s > 0))
        continue;
      rows++;
      if (r->flops > 0 && r->bytes > 0)
        rows_s += r->measured_s;
    }
  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);

      if (!p->measured)
        continue;
      merged += p->merged;
      points_s += p->total_s;
      g_assert_cmpfloat (p->attained, >, 0);
      g_assert_cmpfloat_with_epsilon (p->attained, p->flops / p->time_s, p->attained * 1e-12);
    }
  g_assert_cmpuint (merged + data->measured_skipped, ==, rows);
  g_assert_cmpfloat_with_epsilon (points_s, rows_s, rows_s * 1e-12);
  bpw_measurement_run_clear (&run);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/plot/RooflineData/measured-points-at-scaled-times", test_scaled);
  g_test_add_func ("/bpw/plot/RooflinePlot/measured-diamonds-and-legend", test_diamonds);
  g_test_add_func ("/bpw/plot/RooflineData/measured-time-accounted", test_fixture);
  return g_test_run ();
}
