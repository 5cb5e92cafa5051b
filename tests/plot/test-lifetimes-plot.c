/* test-lifetimes-plot.c — buffer lifetimes: the buffers against the simulation's memory,
 * track packing, level of detail, the peak, hit-testing and CSV
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-lifetimes-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-lifetimes-plot.h"
#include "bpw-plot-test-util.h"
#include "bpw-si-format.h"
#include "bpw-simulation-buffers.h"
#include "bpw-simulation.h"

static BpwPlotStyle style;

typedef struct
{
  BpwPlan          *plan;
  BpwSimulation    *sim;
  BpwLifetimesData *data;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer scenario)
{
  g_autoptr(GError) error = NULL;

  f->plan = bpw_plot_test_default_plan ("H200 SXM 141 GB", scenario);
  f->sim = bpw_simulation_new (f->plan, NULL, &error);
  g_assert_no_error (error);
  f->data = bpw_lifetimes_data_new_from_simulation (f->sim, -1, NULL, "H200", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *f, gconstpointer scenario)
{
  g_clear_pointer (&f->data, bpw_lifetimes_data_free);
  g_clear_pointer (&f->sim, bpw_simulation_free);
  g_clear_pointer (&f->plan, bpw_plan_free);
}

/* At every instant the curve changes, the buffers live then, plus the persistent state,
 * are the curve's bytes by category; and the buffers live then are exactly what
 * bpw_simulation_live_at() reports (checked at a sample of instants: it scans the rank). */
static void
test_buffers_match_memory (Fixture *f, gconstpointer scenario)
{
  const BpwLifetimesData *data = f->data;
  guint step = MAX (data->curve->len / 40, 1u);

  g_assert_cmpuint (data->buffers->len, >, 0);
  for (guint i = 0; i < data->curve->len; i += step)
    {
      const BpwMemorySample *s = &g_array_index (data->curve, BpwMemorySample, i);
      double sum[BPW_N_MEM_CATEGORIES] = { 0 }, transient[BPW_N_MEM_CATEGORIES] = { 0 };
      double persistent[BPW_N_MEM_CATEGORIES] = { 0 };
      g_autoptr(GArray) live = bpw_simulation_live_at (f->sim, data->rank, s->time);

      if (s->time >= data->step_s)
        continue;
      for (guint b = 0; b < data->buffers->len; b++)
        {
          const BpwLifetimeBuffer *buf = &g_array_index (data->buffers, BpwLifetimeBuffer, b);

          if (buf->level == BPW_LIFETIME_DEVICE && buf->allocated <= s->time &&
              s->time < buf->freed)
            sum[buf->category] += buf->bytes;
          if (buf->level == BPW_LIFETIME_DEVICE && buf->persistent)
            persistent[buf->category] += buf->bytes;
        }
      for (guint b = 0; b < live->len; b++)
        {
          const BpwLiveBuffer *lb = &g_array_index (live, BpwLiveBuffer, b);

          transient[lb->category] += lb->bytes;
        }
      for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
        {
          g_assert_cmpfloat_with_epsilon (sum[c], s->bytes[c], 1e-6 * MAX (s->bytes[c], 1.0));
          g_assert_cmpfloat_with_epsilon (transient[c] + persistent[c], s->bytes[c],
                                          1e-6 * MAX (s->bytes[c], 1.0));
        }
    }
}

/* bpw_simulation_buffers() has what live_at() has at an instant, buffer for buffer. */
static void
test_buffers_are_live_at (Fixture *f, gconstpointer scenario)
{
  g_autoptr(GArray) all = bpw_simulation_buffers (f->sim, f->data->rank);
  double t = f->data->peak_time;
  g_autoptr(GArray) live = bpw_simulation_live_at (f->sim, f->data->rank, t);
  guint n = 0;

  for (guint i = 0; i < all->len; i++)
    {
      const BpwLiveBuffer *b = &g_array_index (all, BpwLiveBuffer, i);

      if (b->allocated <= t && t < b->freed)
        n++;
    }
  g_assert_cmpuint (n, ==, live->len);
  g_assert_cmpuint (live->len, >, 0);
}

/* Tracks: buffers of one track never overlap, and a group has as many tracks as it holds
 * buffers at once at most (first fit in allocation order is optimal on intervals). */
static void
test_tracks (Fixture *f, gconstpointer scenario)
{
  const BpwLifetimesData *data = f->data;

  for (guint g = 0; g < data->groups->len; g++)
    {
      const BpwLifetimeGroup *grp = &g_array_index (data->groups, BpwLifetimeGroup, g);
      g_autofree double *free_at = g_new (double, grp->tracks);
      guint most = 0;

      for (guint t = 0; t < grp->tracks; t++)
        free_at[t] = -1;
      for (guint32 i = grp->first; i < grp->first + grp->n; i++)
        {
          const BpwLifetimeBuffer *b = &g_array_index (data->buffers, BpwLifetimeBuffer, i);
          guint live = 0;

          g_assert_cmpuint (b->track, <, grp->tracks);
          g_assert_cmpfloat (free_at[b->track], <=, b->allocated);
          free_at[b->track] = b->freed;
          /* Buffers live when this one starts: all are on distinct tracks. */
          for (guint32 j = grp->first; j <= i; j++)
            {
              const BpwLifetimeBuffer *o = &g_array_index (data->buffers, BpwLifetimeBuffer, j);

              live += o->allocated <= b->allocated && b->allocated < o->freed;
            }
          most = MAX (most, live);
          if (grp->n > 3000)
            break;  /* the pairwise count is quadratic: the small groups check it */
        }
      if (grp->n <= 3000)
        g_assert_cmpuint (grp->tracks, ==, most);
    }
}

/* Level of detail counts every buffer in view once, and rows never hold more marks than
 * columns. The peak's categories add up to the peak. */
static void
test_layout (Fixture *f, gconstpointer scenario)
{
  g_autoptr(BpwLifetimesPlot) plot = bpw_lifetimes_plot_new (g_steal_pointer (&f->data));
  const BpwLifetimesData *data = bpw_lifetimes_plot_get_data (plot);
  const BpwLifetimeMark *marks;
  guint n_marks;
  guint64 counted = 0;
  double at_peak = 0;

  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 720, 405);
  marks = bpw_lifetimes_plot_get_marks (plot, &n_marks);
  for (guint i = 0; i < n_marks; i++)
    counted += marks[i].count;
  g_assert_cmpuint (counted, ==, data->buffers->len);
  g_assert_cmpuint (bpw_lifetimes_plot_get_visible_buffers (plot), ==, data->buffers->len);
  g_assert_cmpuint (n_marks, <, data->buffers->len);
  for (guint c = 0; c < BPW_N_MEM_CATEGORIES; c++)
    at_peak += data->at_peak[c];
  g_assert_cmpfloat_with_epsilon (at_peak, data->peak, 1e-9 * data->peak);
  g_assert_cmpfloat (data->peak, <=, data->capacity);

  /* The curve's top at the peak's column is the peak (the column keeps its largest). */
  {
    double x = bpw_plot_map_x (BPW_PLOT (plot), data->peak_time);
    BpwPlotHit hit;
    g_autofree char *text = NULL;
    const BpwPlotRect *curve = bpw_lifetimes_plot_get_curve_area (plot);
    char peak[BPW_SI_LABEL_MAX];

    g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), floor (x) + 0.5,
                                      curve->y + curve->height - 1, &hit));
    g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_COUNTER);
    text = bpw_plot_describe (BPW_PLOT (plot), &hit);
    /* In GiB by default (the window's default units), in GB when the style asks. */
    bpw_si_format (peak, sizeof peak, data->peak, BPW_SI_BINARY_BYTES, 3);
    g_assert_nonnull (g_strrstr (peak, " GiB"));
    g_assert_nonnull (strstr (text, peak));
    {
      BpwPlotStyle decimal = style;
      g_autofree char *again = NULL;

      decimal.decimal_bytes = TRUE;
      /* Labels of another width move the curve's area: map the peak again. */
      bpw_plot_layout (BPW_PLOT (plot), &decimal, NULL, 720, 405);
      x = bpw_plot_map_x (BPW_PLOT (plot), data->peak_time);
      curve = bpw_lifetimes_plot_get_curve_area (plot);
      g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), floor (x) + 0.5,
                                        curve->y + curve->height - 1, &hit));
      again = bpw_plot_describe (BPW_PLOT (plot), &hit);
      bpw_si_format (peak, sizeof peak, data->peak, "B", 3);
      g_assert_nonnull (g_strrstr (peak, " GB"));
      g_assert_nonnull (strstr (again, peak));
      bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 720, 405);
    }
  }

  /* A bar of the first group with one buffer (persistent weights) is found under it. */
  {
    BpwPlotRect r;
    BpwPlotHit hit;

    g_assert_true (bpw_lifetimes_plot_get_group_rect (plot, 0, &r));
    g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), r.x + r.width / 2, r.y + 1, &hit));
    g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_ITEM);
    g_assert_cmpuint (g_array_index (data->buffers, BpwLifetimeBuffer, hit.index).group, ==, 0);
  }
}

/* The CSV's buffer rows are the buffers, byte for byte. */
static void
test_csv (Fixture *f, gconstpointer scenario)
{
  g_autoptr(BpwLifetimesPlot) plot = bpw_lifetimes_plot_new (g_steal_pointer (&f->data));
  const BpwLifetimesData *data = bpw_lifetimes_plot_get_data (plot);
  g_autofree char *csv = NULL;
  g_auto(GStrv) lines = NULL;
  double bytes = 0, expected = 0;
  guint rows = 0;

  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 720, 405);
  csv = bpw_plot_to_csv (BPW_PLOT (plot));
  lines = g_strsplit (csv, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "buffer,") || g_str_has_prefix (lines[i], "persistent,"))
      {
        g_auto(GStrv) fields = bpw_plot_test_csv_fields (lines[i]);

        bytes += g_ascii_strtod (fields[9], NULL);
        rows++;
      }
  for (guint b = 0; b < data->buffers->len; b++)
    expected += g_array_index (data->buffers, BpwLifetimeBuffer, b).bytes;
  g_assert_cmpuint (rows, ==, data->buffers->len);
  g_assert_cmpfloat_with_epsilon (bytes, expected, 1e-9 * expected);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  bpw_plot_style_init_print (&style);

  g_test_add ("/bpw/plot/LifetimesPlot/buffers-match-memory", Fixture, "llama3-70b-prefill",
              fixture_setup, test_buffers_match_memory, fixture_teardown);
  g_test_add ("/bpw/plot/LifetimesPlot/buffers-match-memory-training", Fixture,
              "gpt3-175b-train", fixture_setup, test_buffers_match_memory, fixture_teardown);
  g_test_add ("/bpw/plot/LifetimesPlot/buffers-are-live-at", Fixture, "gpt3-175b-train",
              fixture_setup, test_buffers_are_live_at, fixture_teardown);
  g_test_add ("/bpw/plot/LifetimesPlot/tracks", Fixture, "llama3-70b-prefill", fixture_setup,
              test_tracks, fixture_teardown);
  g_test_add ("/bpw/plot/LifetimesPlot/layout", Fixture, "gpt3-175b-train", fixture_setup,
              test_layout, fixture_teardown);
  g_test_add ("/bpw/plot/LifetimesPlot/csv", Fixture, "llama3-70b-prefill", fixture_setup,
              test_csv, fixture_teardown);
  return g_test_run ();
}
