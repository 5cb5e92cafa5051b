/* test-roofline-plot.c — the roofline: data adapter, layout, hit-testing, CSV and export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-roofline-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "bpw-label-placer.h"
#include "bpw-plot-export.h"
#include "bpw-plot-test-util.h"
#include "bpw-roofline-plot.h"

#define W 720.0
#define H 405.0

/* Closed-form data: ceilings of 100 and 10 TFLOP/s over 1 TB/s, so the ridges are at
 * exactly 100 and 10 FLOP/B. */
static BpwRooflineData *
synthetic_data (gboolean with_baseline)
{
  BpwRooflineData *data = bpw_roofline_data_new ("Synthetic roofline", "cand");
  const struct { const char *name; BpwLayerType type; double intensity, attained, share; } pts[] = {
    { "op.a", BPW_LAYER_ATTENTION, 1, 0.5e12, 0.10 },
    { "op.b", BPW_LAYER_MLP, 10, 5e12, 0.05 },
    { "op.c", BPW_LAYER_MLP, 1000, 90e12, 0.60 },
    { "op.d", BPW_LAYER_NORM, 0.1, 0.08e12, 0.05 },
    { "op.e", BPW_LAYER_ATTENTION, 300, 60e12, 0.20 },
  };
  const BpwRooflineCeiling ceilings[] = {
    { .kind = BPW_CEILING_COMPUTE, .label = "mx", .value = 100e12, .primary = TRUE },
    { .kind = BPW_CEILING_COMPUTE, .label = "mx", .value = 80e12, .efficiency = 0.8,
      .calibrated = TRUE, .primary = TRUE },
    { .kind = BPW_CEILING_COMPUTE, .label = "vec", .value = 10e12, .primary = TRUE },
    { .kind = BPW_CEILING_MEMORY, .label = "mem", .value = 1e12, .primary = TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (pts); i++)
    {
      BpwRooflinePoint p = {
        .lineage = 100 + i, .stage = 0, .merged = 1, .layer_type = pts[i].type,
        .phase = BPW_PHASE_FORWARD, .bottleneck = BPW_BOTTLENECK_MEMORY, .name = pts[i].name,
        .kind = "matmul", .engine = "eng", .dtype = "bf16", .flops = pts[i].intensity * 1e9,
        .bytes = 1e9, .intensity = pts[i].intensity, .attained = pts[i].attained,
        .time_s = pts[i].intensity * 1e9 / pts[i].attained, .share = pts[i].share,
      };

      p.total_s = p.time_s;
      bpw_roofline_data_add_point (data, &p);
    }
  for (guint i = 0; i < G_N_ELEMENTS (ceilings); i++)
    bpw_roofline_data_add_ceiling (data, &ceilings[i]);
  if (with_baseline)
    {
      BpwRooflinePoint b = {
        .lineage = 7, .merged = 1, .layer_type = BPW_LAYER_MLP, .baseline = TRUE,
        .name = "op.c", .kind = "matmul", .engine = "eng", .dtype = "bf16", .flops = 1e12,
        .bytes = 1e9, .intensity = 1000, .attained = 30e12, .time_s = 1e12 / 30e12, .share = 0.5,
      };
      BpwRooflineCeiling c = { .kind = BPW_CEILING_COMPUTE, .label = "old", .value = 50e12,
                               .baseline = TRUE, .primary = TRUE };

      bpw_roofline_data_add_point (data, &b);
      bpw_roofline_data_add_ceiling (data, &c);
      data->baseline_label = g_strdup ("base");
    }
  bpw_roofline_data_update_ridges (data);
  return data;
}

static BpwRooflinePlot *
laid_out_plot (gboolean with_baseline, BpwPlotStyle *style)
{
  BpwRooflinePlot *plot = bpw_roofline_plot_new (synthetic_data (with_baseline));

  bpw_plot_style_init_print (style);
  bpw_plot_layout (BPW_PLOT (plot), style, NULL, W, H);
  return plot;
}

static void
test_ridges (void)
{
  g_autoptr(BpwRooflineData) data = synthetic_data (FALSE);
  gboolean seen_100 = FALSE, seen_10 = FALSE;

  /* Datasheet compute ceilings × datasheet memory ceilings; calibrated ones make none. */
  g_assert_cmpuint (data->ridges->len, ==, 2);
  for (guint i = 0; i < data->ridges->len; i++)
    {
      const BpwRooflineRidge *r = &g_array_index (data->ridges, BpwRooflineRidge, i);

      seen_100 |= r->intensity == 100 && r->value == 100e12;
      seen_10 |= r->intensity == 10 && r->value == 10e12;
    }
  g_assert_true (seen_100 && seen_10);
}

/* Field by field: the structs have padding. */
static void
assert_same_marks (const BpwRooflineMark *a, guint na, const BpwRooflineMark *b, guint nb)
{
  g_assert_cmpuint (na, ==, nb);
  for (guint i = 0; i < na; i++)
    {
      g_assert_cmpfloat (a[i].x, ==, b[i].x);
      g_assert_cmpfloat (a[i].y, ==, b[i].y);
      g_assert_cmpfloat (a[i].radius, ==, b[i].radius);
      g_assert_cmpuint (a[i].point, ==, b[i].point);
      g_assert_cmpuint (a[i].count, ==, b[i].count);
      g_assert_cmpint (a[i].baseline, ==, b[i].baseline);
    }
}

static void
test_layout_deterministic (void)
{
  BpwPlotStyle style;
  g_autoptr(BpwRooflinePlot) a = laid_out_plot (TRUE, &style);
  g_autoptr(BpwRooflinePlot) b = laid_out_plot (TRUE, &style);
  g_autofree char *csv_before = bpw_plot_to_csv (BPW_PLOT (a));
  g_autofree char *csv_after = NULL;
  const BpwRooflineMark *ma, *mb;
  guint na, nb, serial = bpw_plot_get_layout_serial (BPW_PLOT (a));
  g_autofree BpwRooflineMark *first = NULL;

  ma = bpw_roofline_plot_get_marks (a, &na);
  mb = bpw_roofline_plot_get_marks (b, &nb);
  g_assert_cmpuint (na, ==, 6);
  assert_same_marks (ma, na, mb, nb);
  first = g_memdup2 (ma, na * sizeof *ma);

  /* Again, after a layout at another size: the same scene, the data untouched. */
  bpw_plot_layout (BPW_PLOT (a), &style, NULL, 300, 200);
  bpw_plot_layout (BPW_PLOT (a), &style, NULL, W, H);
  g_assert_cmpuint (bpw_plot_get_layout_serial (BPW_PLOT (a)), ==, serial + 2);
  ma = bpw_roofline_plot_get_marks (a, &na);
  assert_same_marks (ma, na, first, 6);
  csv_after = bpw_plot_to_csv (BPW_PLOT (a));
  g_assert_cmpstr (csv_before, ==, csv_after);
  g_assert_cmpuint (bpw_roofline_plot_get_n_labels (a), ==, bpw_roofline_plot_get_n_labels (b));
  for (guint i = 0; i < bpw_roofline_plot_get_n_labels (a); i++)
    {
      const char *ta, *tb;
      const BpwPlotRect *ra = bpw_roofline_plot_get_label_bounds (a, i, &ta);
      const BpwPlotRect *rb = bpw_roofline_plot_get_label_bounds (b, i, &tb);

      g_assert_cmpstr (ta, ==, tb);
      g_assert_cmpmem (ra, sizeof *ra, rb, sizeof *rb);
    }
}

static const BpwRooflineMark *
mark_of (BpwRooflinePlot *plot, guint point)
{
  guint n;
  const BpwRooflineMark *marks = bpw_roofline_plot_get_marks (plot, &n);

  for (guint i = 0; i < n; i++)
    if (marks[i].point == point)
      return &marks[i];
  g_assert_not_reached ();
  return NULL;
}

static void
test_marks_on_log_axes (void)
{
  BpwPlotStyle style;
  g_autoptr(BpwRooflinePlot) plot = laid_out_plot (FALSE, &style);
  const BpwPlotRect *area = bpw_plot_get_area (BPW_PLOT (plot));
  const BpwRooflineMark *a = mark_of (plot, 0), *b = mark_of (plot, 1), *c = mark_of (plot, 2);
  const BpwRooflineMark *e = mark_of (plot, 4);

  /* Log axes: equal ratios, equal distances. Intensities 1, 10, 1000: b is a third of the
   * way from a to c; attained 0.5, 5, 90 TFLOP/s: log(10)/log(180) of the way, upwards. */
  g_assert_cmpfloat_with_epsilon ((b->x - a->x) / (c->x - a->x), 1.0 / 3, 1e-9);
  g_assert_cmpfloat_with_epsilon ((b->y - a->y) / (c->y - a->y), log (10) / log (180), 1e-9);
  g_assert_cmpfloat (c->y, <, a->y);
  for (guint i = 0; i < 5; i++)
    {
      const BpwRooflineMark *m = mark_of (plot, i);

      g_assert_cmpfloat (m->x, >, area->x);
      g_assert_cmpfloat (m->x, <, area->x + area->width);
      g_assert_cmpfloat (m->y, >, area->y);
      g_assert_cmpfloat (m->y, <, area->y + area->height);
    }
  /* Area ∝ share: the largest share gets the largest radius. */
  g_assert_cmpfloat_with_epsilon (c->radius, style.marker_max, 1e-12);
  g_assert_cmpfloat_with_epsilon (e->radius / c->radius, sqrt (0.20 / 0.60), 1e-12);
}

static void
test_hit_test (void)
{
  BpwPlotStyle style;
  g_autoptr(BpwRooflinePlot) plot = laid_out_plot (TRUE, &style);
  const BpwPlotRect *area = bpw_plot_get_area (BPW_PLOT (plot));
  const BpwRooflineData *data = bpw_roofline_plot_get_data (plot);
  BpwPlotHit hit;
  g_autofree char *text = NULL;
  double x, y;

  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, i);
      const BpwRooflineMark *m = mark_of (plot, i);

      g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), m->x + m->radius * 0.5, m->y, &hit));
      g_assert_cmpint (hit.index, ==, (gint) i);
      g_assert_cmpint (hit.kind, ==, p->baseline ? BPW_PLOT_HIT_BASELINE : BPW_PLOT_HIT_ITEM);
      g_assert_cmpuint (hit.lineage, ==, p->lineage);
      g_assert_cmpuint (hit.count, ==, 1);
    }
  hit.index = 3;
  hit.kind = BPW_PLOT_HIT_ITEM;
  hit.count = 1;
  text = bpw_plot_describe (BPW_PLOT (plot), &hit);
  g_assert_nonnull (strstr (text, "op.d"));
  g_assert_nonnull (strstr (text, "0.1 FLOP/B"));

  /* The top-left corner of the frame is empty on this data. */
  g_assert_false (bpw_plot_hit_test (BPW_PLOT (plot), area->x + 2, area->y + 2, &hit));
  g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_NONE);
  g_assert_cmpint (hit.index, ==, -1);

  /* The 100 TFLOP/s ceiling near its right end, away from every dot. */
  bpw_roofline_plot_map (plot, 1, 100e12, &x, &y);
  g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), area->x + area->width - 2, y + 1, &hit));
  g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_CEILING);
  g_assert_cmpstr (g_array_index (data->ceilings, BpwRooflineCeiling, hit.index).label, ==, "mx");
  g_assert_cmpfloat (g_array_index (data->ceilings, BpwRooflineCeiling, hit.index).value, ==,
                     100e12);

  /* Outside the frame and the legend: nothing; NaN: nothing. */
  g_assert_false (bpw_plot_hit_test (BPW_PLOT (plot), 1, H - 1, &hit));
  g_assert_false (bpw_plot_hit_test (BPW_PLOT (plot), NAN, 10, &hit));
}

static void
test_labels (void)
{
  BpwPlotStyle style;
  g_autoptr(BpwRooflinePlot) plot = laid_out_plot (FALSE, &style);
  const BpwPlotRect *area = bpw_plot_get_area (BPW_PLOT (plot));
  guint n = bpw_roofline_plot_get_n_labels (plot);
  gboolean peak = FALSE, ridge = FALSE;

  g_assert_cmpuint (n, >=, 3);
  for (guint i = 0; i < n; i++)
    {
      const char *text;
      const BpwPlotRect *r = bpw_roofline_plot_get_label_bounds (plot, i, &text);

      peak |= strcmp (text, "mx: 100 TFLOP/s") == 0;
      ridge |= strcmp (text, "ridge 100 FLOP/B") == 0;
      g_assert_cmpfloat (r->x, >=, area->x);
      g_assert_cmpfloat (r->y, >=, area->y);
      g_assert_cmpfloat (r->x + r->width, <=, area->x + area->width);
      g_assert_cmpfloat (r->y + r->height, <=, area->y + area->height);
      /* Unrotated labels never overlap one another (rotated ones have wider boxes). */
      for (guint j = 0; j < i; j++)
        {
          const char *other;
          const BpwPlotRect *o = bpw_roofline_plot_get_label_bounds (plot, j, &other);
          gboolean overlap = r->x < o->x + o->width && o->x < r->x + r->width &&
                             r->y < o->y + o->height && o->y < r->y + r->height;

          if (overlap && !strstr (text, "mem") && !strstr (other, "mem"))
            g_error ("labels “%s” and “%s” overlap", text, other);
        }
    }
  g_assert_true (peak);
  g_assert_true (ridge);
}

static void
test_csv (void)
{
  BpwPlotStyle style;
  g_autoptr(BpwRooflinePlot) plot = laid_out_plot (TRUE, &style);
  const BpwRooflineData *data = bpw_roofline_plot_get_data (plot);
  g_autofree char *csv = bpw_plot_to_csv (BPW_PLOT (plot));
  g_auto(GStrv) lines = g_strsplit (csv, "\n", -1);
  g_auto(GStrv) header = bpw_plot_test_csv_fields (lines[0]);
  guint n_fields = g_strv_length (header), ops = 0, ceilings = 0, ridges = 0;

  g_assert_cmpstr (header[0], ==, "series");
  g_assert_cmpstr (header[12], ==, "intensity_flop_per_byte");
  g_assert_cmpstr (header[13], ==, "attained_flop_per_s");
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto(GStrv) f = bpw_plot_test_csv_fields (lines[i]);

      g_assert_cmpuint (g_strv_length (f), ==, n_fields);
      if (strcmp (f[0], "operation") == 0 || strcmp (f[0], "baseline") == 0)
        {
          const BpwRooflinePoint *p = &g_array_index (data->points, BpwRooflinePoint, ops);
          double intensity = g_ascii_strtod (f[12], NULL), attained = g_ascii_strtod (f[13], NULL);
          const BpwRooflineMark *m = mark_of (plot, ops);
          double x, y;

          /* Exactly the plotted numbers, and the dot is where they map to. */
          g_assert_cmpstr (f[1], ==, p->name);
          g_assert_cmpint (strcmp (f[0], "baseline") == 0, ==, p->baseline);
          g_assert_cmpfloat (intensity, ==, p->intensity);
          g_assert_cmpfloat (attained, ==, p->attained);
          g_assert_cmpfloat (g_ascii_strtod (f[16], NULL), ==, p->share);
          bpw_roofline_plot_map (plot, intensity, attained, &x, &y);
          g_assert_cmpfloat_with_epsilon (m->x, x, 1e-9);
          g_assert_cmpfloat_with_epsilon (m->y, y, 1e-9);
          ops++;
        }
      else if (g_str_has_suffix (f[0], "ceiling"))
        ceilings++;
      else if (strcmp (f[0], "ridge") == 0)
        {
          double intensity = g_ascii_strtod (f[12], NULL);

          g_assert_true (intensity == 100 || intensity == 10);
          ridges++;
        }
      else
        g_error ("unexpected series “%s”", f[0]);
    }
  g_assert_cmpuint (ops, ==, data->points->len);
  g_assert_cmpuint (ceilings, ==, data->ceilings->len);
  g_assert_cmpuint (ridges, ==, 2);
}

static void
test_render (void)
{
  BpwPlotStyle style, plain;
  g_autoptr(BpwRooflinePlot) plot = laid_out_plot (FALSE, &style);
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface, *no_text;
  const BpwRooflineMark *c;
  BpwPlotColor pixel, expected, white = { 1, 1, 1, 1 };
  guint ink, ink_plain;

  surface = bpw_plot_render_image (BPW_PLOT (plot), &style, W, H, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 1440);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 810);
  ink = bpw_plot_test_count_ink (surface, &style.background);
  g_assert_cmpuint (ink, >, 1440 * 810 / 50);
  g_assert_cmpuint (ink, <, 1440 * 810 / 2);

  /* The largest dot is MLP-coloured at 85 % over the white plot. */
  c = mark_of (plot, 2);
  bpw_plot_test_pixel (surface, 2, c->x, c->y, &pixel);
  expected = bpw_plot_color_mix (&white, &style.layer_type[BPW_LAYER_MLP], 0.85);
  g_assert_cmpfloat_with_epsilon (pixel.r, expected.r, 0.03);
  g_assert_cmpfloat_with_epsilon (pixel.g, expected.g, 0.03);
  g_assert_cmpfloat_with_epsilon (pixel.b, expected.b, 0.03);

  /* Without text (reference images): less ink, same dots. */
  plain = style;
  plain.text = FALSE;
  no_text = bpw_plot_render_image (BPW_PLOT (plot), &plain, W, H, 2, &error);
  g_assert_no_error (error);
  ink_plain = bpw_plot_test_count_ink (no_text, &plain.background);
  g_assert_cmpuint (ink_plain, <, ink);
  g_assert_cmpuint (ink_plain, >, 0);
  cairo_surface_destroy (surface);
  cairo_surface_destroy (no_text);

  g_assert_null (bpw_plot_render_image (BPW_PLOT (plot), &style, 0, H, 1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

static void
test_export (void)
{
  g_autoptr(BpwRooflinePlot) plot = bpw_roofline_plot_new (synthetic_data (TRUE));
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-plot-XXXXXX", &error);
  g_autofree char *png = g_build_filename (dir, "r.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "r.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "r.pdf", NULL);
  g_autofree char *csv = g_build_filename (dir, "r.csv", NULL);
  g_autofree char *bad = g_build_filename (dir, "missing", "r.png", NULL);
  g_autofree char *root = NULL;
  g_autofree char *pdf_bytes = NULL;
  g_autofree char *text = NULL;
  g_autofree char *csv_file = NULL;
  g_autofree char *csv_plot = NULL;
  cairo_surface_t *image;
  gsize len;

  g_assert_no_error (error);
  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_PNG, W, H, 1, png,
                                  &error));
  g_assert_no_error (error);
  image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 720);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 405);
  cairo_surface_destroy (image);

  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_SVG, W, H, 1, svg,
                                  &error));
  root = bpw_plot_test_xml_root (svg, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (root, ==, "svg");

  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_PDF, W, H, 1, pdf,
                                  &error));
  g_assert_true (g_file_get_contents (pdf, &pdf_bytes, &len, &error));
  g_assert_cmpuint (len, >, 1000);
  g_assert_true (g_str_has_prefix (pdf_bytes, "%PDF-"));
  text = bpw_plot_test_pdf_text (pdf);
  if (text != NULL)
    {
      /* Text stays text in the vector formats: the axis titles and the ceiling label. */
      g_assert_nonnull (strstr (text, "Arithmetic intensity (FLOP/B)"));
      g_assert_nonnull (strstr (text, "mx: 100 TFLOP/s"));
      g_assert_nonnull (strstr (text, "Synthetic roofline"));
    }
  else
    g_test_message ("pdftotext not installed: PDF text not checked");

  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_CSV, W, H, 1, csv,
                                  &error));
  g_assert_true (g_file_get_contents (csv, &csv_file, NULL, &error));
  csv_plot = bpw_plot_to_csv (BPW_PLOT (plot));
  g_assert_cmpstr (csv_file, ==, csv_plot);

  g_assert_false (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_PNG, W, H, 1, bad,
                                   &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  g_assert_false (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_PNG, 20000, H, 2, png,
                                   &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);

  g_unlink (png);
  g_unlink (svg);
  g_unlink (pdf);
  g_unlink (csv);
  g_rmdir (dir);
}

static void
on_changed (BpwPlot *plot, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
test_changed (void)
{
  BpwPlotStyle style;
  g_autoptr(BpwRooflinePlot) plot = laid_out_plot (FALSE, &style);
  guint changed = 0;

  g_signal_connect (plot, "changed", G_CALLBACK (on_changed), &changed);
  g_assert_true (bpw_plot_is_laid_out (BPW_PLOT (plot)));
  g_assert_cmpstr (bpw_plot_get_title (BPW_PLOT (plot)), ==, "Synthetic roofline");
  bpw_roofline_plot_set_data (plot, bpw_roofline_data_new ("Other", "x"));
  g_assert_cmpuint (changed, ==, 1);
  g_assert_false (bpw_plot_is_laid_out (BPW_PLOT (plot)));
  g_assert_cmpstr (bpw_plot_get_title (BPW_PLOT (plot)), ==, "Other");
  /* Empty data lays out (an empty frame) and hits nothing. */
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, W, H);
  {
    BpwPlotHit hit;
    const BpwPlotRect *area = bpw_plot_get_area (BPW_PLOT (plot));

    g_assert_false (bpw_plot_hit_test (BPW_PLOT (plot), area->x + area->width / 2,
                                       area->y + area->height / 2, &hit));
  }
  g_assert_finalize_object (g_steal_pointer (&plot));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/plot/RooflinePlot/ridges", test_ridges);
  g_test_add_func ("/bpw/plot/RooflinePlot/layout-deterministic", test_layout_deterministic);
  g_test_add_func ("/bpw/plot/RooflinePlot/marks-on-log-axes", test_marks_on_log_axes);
  g_test_add_func ("/bpw/plot/RooflinePlot/hit-test", test_hit_test);
  g_test_add_func ("/bpw/plot/RooflinePlot/labels", test_labels);
  g_test_add_func ("/bpw/plot/RooflinePlot/csv", test_csv);
  g_test_add_func ("/bpw/plot/RooflinePlot/render", test_render);
  g_test_add_func ("/bpw/plot/RooflinePlot/export", test_export);
  g_test_add_func ("/bpw/plot/RooflinePlot/changed", test_changed);

  return g_test_run ();
}
