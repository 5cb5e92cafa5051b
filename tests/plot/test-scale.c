/* test-scale.c — scales, nice ticks, SI labels and axis label thinning
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-scale"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-axis-layout.h"
#include "bpw-label-placer.h"
#include "bpw-plot-legend.h"
#include "bpw-scale.h"
#include "bpw-si-format.h"

static void
test_nice_number (void)
{
  g_assert_cmpfloat (bpw_scale_nice_number (0.13, TRUE), ==, 0.1);
  g_assert_cmpfloat (bpw_scale_nice_number (0.17, TRUE), ==, 0.2);
  g_assert_cmpfloat (bpw_scale_nice_number (4.2, TRUE), ==, 5);
  g_assert_cmpfloat (bpw_scale_nice_number (7.5, TRUE), ==, 10);
  g_assert_cmpfloat_with_epsilon (bpw_scale_nice_number (2.1e12, FALSE), 5e12, 1);
  g_assert_cmpfloat_with_epsilon (bpw_scale_nice_number (1e-3, FALSE), 1e-3, 1e-18);
}

static void
test_linear_ticks (void)
{
  BpwScale s;
  BpwTick ticks[64];
  guint n;

  /* 0..10 with about 5 steps: 0, 2, 4, 6, 8, 10. */
  bpw_scale_init (&s, BPW_SCALE_LINEAR, 0, 10, 0, 500);
  n = bpw_scale_ticks (&s, 5, FALSE, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (ticks[i].value, ==, 2.0 * i);
      g_assert_true (ticks[i].major);
    }

  /* Steps of 0.2 must not accumulate error: 0.6 is exactly 3 × 0.2, and 0 is 0, not -0. */
  bpw_scale_init (&s, BPW_SCALE_LINEAR, -0.4, 1.0, 0, 100);
  n = bpw_scale_ticks (&s, 7, FALSE, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 8);
  g_assert_cmpfloat_with_epsilon (ticks[0].value, -0.4, 1e-15);
  g_assert_cmpfloat (ticks[2].value, ==, 0.0);
  g_assert_false (signbit (ticks[2].value));
  g_assert_cmpfloat_with_epsilon (ticks[5].value, 0.6, 1e-15);

  /* Minor ticks: steps of 2 split in four (0.5), the majors still at multiples of 2. */
  bpw_scale_init (&s, BPW_SCALE_LINEAR, 0, 10, 0, 500);
  n = bpw_scale_ticks (&s, 5, TRUE, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 21);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (ticks[i].value, ==, 0.5 * i);
      g_assert_cmpint (ticks[i].major, ==, i % 4 == 0);
    }
}

static void
test_log_decades (void)
{
  BpwScale s;
  BpwTick ticks[128];
  guint n, majors = 0;

  /* 0.01 .. 1000 with room for every decade: majors at the six powers of ten, minors at
   * 2..9 of each decade but the last, none outside the domain. */
  bpw_scale_init (&s, BPW_SCALE_LOG, 0.01, 1000, 0, 600);
  n = bpw_scale_ticks (&s, 10, TRUE, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 6 + 5 * 8);
  for (guint i = 0; i < n; i++)
    {
      double e = floor (log10 (ticks[i].value) + 1e-9);
      double m = ticks[i].value / pow (10, e);

      g_assert_cmpfloat (ticks[i].value, >=, 0.01 * (1 - 1e-12));
      g_assert_cmpfloat (ticks[i].value, <=, 1000 * (1 + 1e-12));
      g_assert_cmpfloat_with_epsilon (m, round (m), 1e-9);
      g_assert_cmpint (ticks[i].major, ==, fabs (m - 1) < 1e-9);
      if (ticks[i].major)
        {
          double expected = pow (10, (double) majors - 2);

          g_assert_cmpfloat_with_epsilon (ticks[i].value, expected, 1e-12 * expected);
          majors++;
        }
      if (i > 0)
        g_assert_cmpfloat (ticks[i].value, >, ticks[i - 1].value);
    }
  g_assert_cmpuint (majors, ==, 6);

  /* Twelve decades for four labels: a major every third decade, the others minor. */
  bpw_scale_init (&s, BPW_SCALE_LOG, 1, 1e12, 0, 200);
  n = bpw_scale_ticks (&s, 4, TRUE, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, ==, 13);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat_with_epsilon (ticks[i].value, pow (10, i), 1e-9 * pow (10, i));
      g_assert_cmpint (ticks[i].major, ==, i % 3 == 0);
    }

  /* Less than a decade: round values inside it instead of a lone power of ten. */
  bpw_scale_init (&s, BPW_SCALE_LOG, 200, 900, 0, 300);
  n = bpw_scale_ticks (&s, 4, FALSE, ticks, G_N_ELEMENTS (ticks));
  g_assert_cmpuint (n, >=, 3);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (ticks[i].value, >=, 200);
      g_assert_cmpfloat (ticks[i].value, <=, 900);
      g_assert_cmpfloat (fmod (ticks[i].value, 100), ==, 0);
    }
}

static void
test_map (void)
{
  BpwScale s;

  /* y axis: data grows up, pixels grow down. */
  bpw_scale_init (&s, BPW_SCALE_LOG, 1e9, 1e15, 400, 100);
  g_assert_cmpfloat_with_epsilon (bpw_scale_map (&s, 1e9), 400, 1e-9);
  g_assert_cmpfloat_with_epsilon (bpw_scale_map (&s, 1e12), 250, 1e-9);
  g_assert_cmpfloat_with_epsilon (bpw_scale_map (&s, 1e15), 100, 1e-9);
  g_assert_cmpfloat_with_epsilon (bpw_scale_unmap (&s, 250), 1e12, 1e-3);
  g_assert_cmpfloat_with_epsilon (bpw_scale_density (&s), -50, 1e-12);

  bpw_scale_init (&s, BPW_SCALE_LINEAR, -1, 3, 0, 100);
  g_assert_cmpfloat_with_epsilon (bpw_scale_map (&s, 0), 25, 1e-12);
  g_assert_cmpfloat_with_epsilon (bpw_scale_unmap (&s, 75), 2, 1e-12);

  /* A non-positive log domain must not produce NaN. */
  bpw_scale_init (&s, BPW_SCALE_LOG, 0, 100, 0, 100);
  g_assert_true (isfinite (bpw_scale_map (&s, 10)));
  g_assert_true (isfinite (bpw_scale_map (&s, 0)));
}

static void
test_nice_domain (void)
{
  double lo = 0.013, hi = 1234;

  bpw_scale_nice_domain (BPW_SCALE_LOG, &lo, &hi, 0);
  g_assert_cmpfloat_with_epsilon (lo, 0.01, 1e-15);
  g_assert_cmpfloat_with_epsilon (hi, 10000, 1e-9);

  lo = 0.3;
  hi = 9.7;
  bpw_scale_nice_domain (BPW_SCALE_LINEAR, &lo, &hi, 5);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 10);

  lo = hi = 5;
  bpw_scale_nice_domain (BPW_SCALE_LINEAR, &lo, &hi, 5);
  g_assert_cmpfloat (lo, <, 5);
  g_assert_cmpfloat (hi, >, 5);
}

static void
check_si (double value, const char *unit, int digits, const char *expected)
{
  char buf[BPW_SI_LABEL_MAX];

  bpw_si_format (buf, sizeof buf, value, unit, digits);
  g_assert_cmpstr (buf, ==, expected);
}

static void
test_si_format (void)
{
  char buf[BPW_SI_LABEL_MAX];

  check_si (312e12, "FLOP/s", 3, "312 TFLOP/s");
  check_si (2.039e12, "B/s", 3, "2.04 TB/s");
  check_si (1.5e-3, "s", 3, "1.5 ms");
  check_si (250e-6, "s", 3, "250 µs");
  check_si (42, "s", 3, "42 s");
  check_si (0.25, "FLOP/B", 3, "0.25 FLOP/B");
  check_si (1328.43, "FLOP/B", 3, "1328 FLOP/B");
  check_si (153.0, NULL, 3, "153");
  check_si (0, "s", 3, "0 s");
  check_si (-2.5e9, "B", 2, "-2.5 GB");
  /* Rounding carries into the next prefix. */
  check_si (999.96e-3, "s", 3, "1 s");
  check_si (999.4e-3, "s", 3, "999 ms");
  /* Durations take no large prefixes; FLOP/s no small ones. */
  check_si (3600, "s", 3, "3600 s");
  check_si (0.5, "FLOP/s", 3, "0.5 FLOP/s");

  g_assert_cmpint (bpw_si_exponent (1e-3, BPW_SI_SMALL, 3), ==, -3);
  g_assert_cmpint (bpw_si_exponent (1e-3, 0, 3), ==, 0);
  g_assert_cmpint (bpw_si_decimals_for_step (0.5e-3, -3), ==, 1);
  g_assert_cmpint (bpw_si_decimals_for_step (0.25, 0), ==, 2);
  g_assert_cmpint (bpw_si_decimals_for_step (200e-6, -3), ==, 1);

  /* A shared prefix and decimals (linear axes): trailing zeros trimmed. */
  bpw_si_format_fixed (buf, sizeof buf, 1.0e-3, -3, 1, "s");
  g_assert_cmpstr (buf, ==, "1 ms");
  bpw_si_format_fixed (buf, sizeof buf, 1.5e12, 12, 1, NULL);
  g_assert_cmpstr (buf, ==, "1.5 T");
  bpw_si_format_fixed (buf, sizeof buf, NAN, 0, 1, "s");
  g_assert_cmpstr (buf, ==, "–");

  /* Binary memory sizes: prefixes of 1024, printed as KiB, MiB, GiB. */
  check_si (80.0 * (1 << 30), BPW_SI_BINARY_BYTES, 3, "80 GiB");
  check_si (81559.0 * (1 << 20), BPW_SI_BINARY_BYTES, 3, "79.6 GiB");
  check_si (512, BPW_SI_BINARY_BYTES, 3, "512 B");
  check_si (1536, BPW_SI_BINARY_BYTES, 3, "1.5 KiB");
  check_si (-3.0 * (1 << 20), BPW_SI_BINARY_BYTES, 3, "-3 MiB");
  check_si (4.0 * (1ull << 50), BPW_SI_BINARY_BYTES, 3, "4 PiB");
  /* 1000 to 1023 of a prefix take the next one, as decimal prefixes do at 1000. */
  check_si (1000.0 * (1 << 20), BPW_SI_BINARY_BYTES, 3, "0.977 GiB");
  check_si (999.0 * (1 << 20), BPW_SI_BINARY_BYTES, 3, "999 MiB");
  g_assert_cmpint (bpw_si_flags_for_unit (BPW_SI_BINARY_BYTES), ==,
                   BPW_SI_LARGE | BPW_SI_BINARY);
  g_assert_cmpfloat (bpw_si_scale (9, BPW_SI_BINARY), ==, 1073741824.0);
  g_assert_cmpfloat (bpw_si_scale (9, BPW_SI_LARGE), ==, 1e9);
  bpw_si_format_fixed (buf, sizeof buf, 20.0 * (1 << 30), 9, 1, BPW_SI_BINARY_BYTES);
  g_assert_cmpstr (buf, ==, "20 GiB");
}

static void
check_human (double value, const char *unit, int digits, const char *expected)
{
  char buf[BPW_SI_LABEL_MAX];

  bpw_si_format_human (buf, sizeof buf, value, unit, digits);
  g_assert_cmpstr (buf, ==, expected);
}

/* Figures for people: never "1.528e+05", grouped thousands, a prefix from 10,000. */
static void
test_si_format_human (void)
{
  check_human (152803.7, "tokens/s", 4, "152.8 k tokens/s");
  check_human (3.4149e6, "tokens/s", 3, "3.41 M tokens/s");
  check_human (9876.4, "requests", 4, "9,876 requests");
  check_human (1234.5, NULL, 5, "1,234.5");
  check_human (812.5, "tokens/s", 4, "812.5 tokens/s");
  check_human (0.00123, "tokens/J", 3, "0.00123 tokens/J");
  check_human (0, "tokens/s", 4, "0 tokens/s");
  check_human (-27350, NULL, 4, "-27.35 k");
  check_human (10000, NULL, 4, "10 k");
  /* Rounding carries into the next prefix: 999.96 k at three digits is 1 M. */
  check_human (999960, NULL, 3, "1 M");
  check_human (2.5e15, "tokens", 3, "2.5 P tokens");
  check_human (NAN, "tokens/s", 3, "–");
}

static void
test_axis_labels (void)
{
  BpwPlotStyle style;
  BpwPlotText text;
  BpwAxisLayout axis;
  BpwScale s;
  double last_end = -G_MAXDOUBLE;
  guint labelled = 0;

  bpw_plot_style_init_print (&style);
  bpw_plot_text_init (&text, &style);

  /* Milliseconds on a linear axis: one prefix for all labels, zero written as "0 ms". */
  bpw_axis_layout_init (&axis, BPW_AXIS_BOTTOM, "Time", "s", TRUE);
  bpw_scale_init (&s, BPW_SCALE_LINEAR, 0, 0.004, 50, 650);
  bpw_axis_layout_compute (&axis, &s, &text, &style);
  for (guint i = 0; i < axis.n_ticks; i++)
    if (axis.ticks[i].labelled)
      {
        const BpwAxisTick *t = &axis.ticks[i];

        g_assert_true (g_str_has_suffix (t->label, " ms"));
        if (t->value == 0)
          g_assert_cmpstr (t->label, ==, "0 ms");
        /* Labels never overlap. */
        g_assert_cmpfloat (t->position - t->label_width / 2, >, last_end);
        last_end = t->position + t->label_width / 2;
        labelled++;
      }
  g_assert_cmpuint (labelled, >=, 3);

  /* Twelve decades squeezed into 120 units: fewer labels, still no overlap. */
  bpw_axis_layout_init (&axis, BPW_AXIS_BOTTOM, NULL, "FLOP/s", TRUE);
  bpw_scale_init (&s, BPW_SCALE_LOG, 1, 1e12, 0, 120);
  bpw_axis_layout_compute (&axis, &s, &text, &style);
  last_end = -G_MAXDOUBLE;
  labelled = 0;
  for (guint i = 0; i < axis.n_ticks; i++)
    if (axis.ticks[i].labelled)
      {
        g_assert_cmpfloat (axis.ticks[i].position - axis.ticks[i].label_width / 2, >, last_end);
        last_end = axis.ticks[i].position + axis.ticks[i].label_width / 2;
        labelled++;
      }
  g_assert_cmpuint (labelled, >=, 1);
  g_assert_cmpuint (labelled, <, 13);

  /* Binary memory sizes tick at round numbers of GiB, not of bytes: 0 to 85.9 GB (an
   * A100's 80 GiB) labels 0, 20, 40, 60, 80 GiB or a finer round step, never 9.31 GiB. */
  bpw_axis_layout_init (&axis, BPW_AXIS_LEFT, "Device memory", BPW_SI_BINARY_BYTES, TRUE);
  bpw_scale_init (&s, BPW_SCALE_LINEAR, 0, 85.9e9, 300, 0);
  bpw_axis_layout_compute (&axis, &s, &text, &style);
  labelled = 0;
  for (guint i = 0; i < axis.n_ticks; i++)
    {
      const BpwAxisTick *t = &axis.ticks[i];
      double gib = t->value / (1 << 30);

      if (!t->major)
        continue;
      g_assert_cmpfloat (fabs (gib - round (gib)), <, 1e-9);
      g_assert_cmpfloat (t->position, ==, bpw_scale_map (&s, t->value));
      if (t->labelled)
        {
          g_autofree char *expected = g_strdup_printf ("%.0f GiB", gib);

          g_assert_cmpstr (t->label, ==, expected);
          labelled++;
        }
    }
  g_assert_cmpuint (labelled, >=, 3);
  bpw_plot_text_clear (&text);
}

static void
test_quads (void)
{
  BpwPlotRect a = { 0, 0, 10, 10 }, b = { 10, 0, 5, 5 }, c = { 9, 9, 5, 5 };
  BpwPlotQuad qa, qb, qc, diamond, segment = { .x = { -5, 20 }, .y = { 20, -5 }, .n = 2 };
  BpwPlotQuad far_segment = { .x = { 30, 40 }, .y = { 0, 10 }, .n = 2 };

  bpw_plot_quad_from_rect (&qa, &a);
  bpw_plot_quad_from_rect (&qb, &b);
  bpw_plot_quad_from_rect (&qc, &c);
  g_assert_false (bpw_plot_quad_intersects (&qa, &qb));  /* touching edges */
  g_assert_true (bpw_plot_quad_intersects (&qa, &qc));
  g_assert_true (bpw_plot_quad_intersects (&qa, &segment));  /* the line x + y = 15 */
  g_assert_false (bpw_plot_quad_intersects (&qa, &far_segment));

  /* A diamond in the corner gap of a square: their boxes overlap, the shapes do not. */
  diamond = (BpwPlotQuad) { .x = { 12, 14.5, 12, 9.5 }, .y = { 9.5, 12, 14.5, 12 }, .n = 4 };
  g_assert_false (bpw_plot_quad_intersects (&qa, &diamond));
  bpw_plot_quad_from_circle (&diamond, 0, 0, 10);
  g_assert_cmpuint (diamond.n, ==, 8);
  for (guint i = 0; i < diamond.n; i++)
    g_assert_cmpfloat_with_epsilon (hypot (diamond.x[i], diamond.y[i]), 10, 1e-9);
}

static void
test_style (void)
{
  BpwPlotStyle print, screen, dark, copy;
  BpwPlotColor black = { 0, 0, 0, 1 }, white = { 1, 1, 1, 1 }, accent = { 0.2, 0.4, 0.8, 1 };
  g_autoptr(PangoFontDescription) font = NULL;

  bpw_plot_style_init_print (&print);
  g_assert_true (print.text);
  g_assert_false (print.dark);
  g_assert_cmpfloat (bpw_plot_color_luminance (&print.background), >, 0.9);
  g_assert_cmpfloat (bpw_plot_color_luminance (&print.foreground), <, 0.05);
  copy = print;
  g_assert_true (bpw_plot_style_equal (&print, &copy));

  /* Light theme from the widget: its colours, its font, sizes derived from its size. */
  bpw_plot_style_init_screen (&screen, &black, &white, &accent, "Cantarell", 14);
  g_assert_false (screen.dark);
  g_assert_cmpstr (screen.family, ==, "Cantarell");
  g_assert_cmpfloat (screen.font_size[BPW_PLOT_FONT_BODY], ==, 14);
  g_assert_cmpfloat (screen.font_size[BPW_PLOT_FONT_SMALL], <, 14);
  g_assert_cmpfloat (screen.font_size[BPW_PLOT_FONT_TITLE], >, 14);
  g_assert_cmpfloat (screen.accent.b, ==, 0.8);
  g_assert_false (bpw_plot_style_equal (&print, &screen));
  /* Muted text lies between text and background. */
  g_assert_cmpfloat (screen.muted.r, >, 0);
  g_assert_cmpfloat (screen.muted.r, <, 1);

  /* Dark theme: marks get lighter so they keep contrast on the dark background. */
  bpw_plot_style_init_screen (&dark, &white, &black, NULL, NULL, 0);
  g_assert_true (dark.dark);
  for (guint i = 0; i < BPW_N_LAYER_TYPES; i++)
    g_assert_cmpfloat (bpw_plot_color_luminance (&dark.layer_type[i]), >,
                       bpw_plot_color_luminance (&print.layer_type[i]));
  g_assert_cmpfloat (dark.font_size[BPW_PLOT_FONT_BODY], ==, print.font_size[BPW_PLOT_FONT_BODY]);

  font = bpw_plot_style_get_font (&print, BPW_PLOT_FONT_TITLE);
  g_assert_true (pango_font_description_get_size_is_absolute (font));
  g_assert_cmpint (pango_font_description_get_size (font), ==,
                   (int) (print.font_size[BPW_PLOT_FONT_TITLE] * PANGO_SCALE));
  g_assert_cmpint (pango_font_description_get_weight (font), ==, PANGO_WEIGHT_BOLD);

  g_assert_false (bpw_plot_color_parse ("#12345", &copy.accent));
  g_assert_false (bpw_plot_color_parse ("12345678", &copy.accent));
  g_assert_true (bpw_plot_color_parse ("#ff000080", &copy.accent));
  g_assert_cmpfloat_with_epsilon (copy.accent.a, 128.0 / 255, 1e-12);
}

/* A label longer than an entry holds (a German note, say) is cut at a character, with an
 * ellipsis, and stays valid UTF-8; a label that fits is kept whole. */
static void
test_legend_long_label (void)
{
  BpwPlotLegend legend;
  g_autoptr(GString) long_label = g_string_new (NULL);
  const char *label;

  for (guint i = 0; i < 200; i++)
    g_string_append (long_label, "ä");
  bpw_plot_legend_clear (&legend);
  g_assert_true (bpw_plot_legend_add (&legend, BPW_LEGEND_NOTE, NULL, "Punktfläche"));
  g_assert_true (bpw_plot_legend_add (&legend, BPW_LEGEND_NOTE, NULL, long_label->str));
  g_assert_cmpstr (legend.entries[0].label, ==, "Punktfläche");
  label = legend.entries[1].label;
  g_assert_true (g_utf8_validate (label, -1, NULL));
  g_assert_true (g_str_has_suffix (label, "…"));
  g_assert_cmpuint (strlen (label), <, sizeof legend.entries[1].label);
  g_assert_cmpuint (strlen (label), >=, sizeof legend.entries[1].label - 5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/plot/Scale/nice-number", test_nice_number);
  g_test_add_func ("/bpw/plot/Scale/linear-ticks", test_linear_ticks);
  g_test_add_func ("/bpw/plot/Scale/log-decades", test_log_decades);
  g_test_add_func ("/bpw/plot/Scale/map", test_map);
  g_test_add_func ("/bpw/plot/Scale/nice-domain", test_nice_domain);
  g_test_add_func ("/bpw/plot/SiFormat/labels", test_si_format);
  g_test_add_func ("/bpw/plot/SiFormat/human", test_si_format_human);
  g_test_add_func ("/bpw/plot/AxisLayout/labels", test_axis_labels);
  g_test_add_func ("/bpw/plot/LabelPlacer/shapes", test_quads);
  g_test_add_func ("/bpw/plot/PlotStyle/print-and-screen", test_style);
  g_test_add_func ("/bpw/plot/PlotLegend/long-label", test_legend_long_label);

  return g_test_run ();
}
