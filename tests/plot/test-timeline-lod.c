/* test-timeline-lod.c — the timeline's level of detail against brute force: the data's
 * block summaries, the marks of a layout, and the pixels the marks and counters paint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fast paths (summaries read block by block, lanes walked in bulk, pixels written
 * straight into an image) must give exactly what the slow definitions give: each test
 * computes the slow answer itself, event by event or rectangle by rectangle, on random
 * data with the awkward cases (overlapping events, events of no duration, events wider
 * than a column, events reaching in from before the view, keys past the last colour).
 */
#define G_LOG_DOMAIN "test-timeline-lod"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-plot-test-util.h"
#include "bpw-simulation.h"
#include "bpw-timeline-plot.h"

static BpwPlotStyle style;

/* @lanes lanes of @n events each: mostly back to back, some overlapping the one before,
 * some of no duration, many of equal durations, a few long; keys up to 19 (past
 * BPW_TIMELINE_KEYS, which wraps). */
static BpwTimelineData *
random_data (guint lanes, guint n, guint32 seed)
{
  BpwTimelineData *data = bpw_timeline_data_new ("Random timeline", 0);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  guint32 name = bpw_timeline_data_intern (data, "op");

  for (guint l = 0; l < lanes; l++)
    bpw_timeline_data_add_lane (data, l / 2, l % 2, -1, "lane");
  for (guint l = 0; l < lanes; l++)
    {
      double t = g_rand_double (rand) * 1e-3;

      for (guint i = 0; i < n; i++)
        {
          double u = g_rand_double (rand);
          /* Many equal durations: ties for the longest and for the key with most time;
           * now and then one of about a hundredth of the step, more ticks than 32 bits
           * hold. */
          double dur = i % 4001 == 4000 ? 9e-3
                       : u < 0.05 ? 0 : u < 0.93 ? floor (u * 30) * 1e-7 : u * 4e-4;
          guint8 keys[BPW_TIMELINE_N_COLORINGS] = {
            g_rand_int_range (rand, 0, 5), g_rand_int_range (rand, 0, 20),
            g_rand_int_range (rand, 0, 3),
          };
          BpwTimelineEvent e = { .pred = BPW_TIMELINE_NONE, .name = name, .kind = name,
                                 .lane = l, .micro_batch = -1 };

          bpw_timeline_data_add_event (data, t, t + dur, keys, &e);
          /* Mostly a small gap; sometimes the next starts before this one ends. */
          t += g_rand_double (rand) < 0.1 ? dur * g_rand_double (rand)
                                          : dur + g_rand_double (rand) * 2e-6;
        }
    }
  bpw_timeline_data_finish (data);
  return data;
}

/* ---- summaries ---- */

static void
brute_span (const BpwTimelineData *data, BpwTimelineColorBy c, guint32 a, guint32 b,
            BpwTimelineSpan *span)
{
  memset (span, 0, sizeof *span);
  span->count = b - a;
  span->longest = BPW_TIMELINE_NONE;
  span->longest_s = -1;
  span->max_end = -G_MAXDOUBLE;
  for (guint32 i = a; i < b; i++)
    {
      double d = data->end[i] - data->start[i];

      span->ticks[data->key[c][i] % BPW_TIMELINE_KEYS] += bpw_timeline_data_ticks (data, i);
      if (d > span->longest_s)
        {
          span->longest_s = d;
          span->longest = i;
        }
      span->max_end = MAX (span->max_end, data->end[i]);
    }
}

/* Random ranges of one lane of 70 000 events (three levels of blocks), of every length
 * from none to the whole lane: the summary's sums, longest event and latest end are
 * those of adding the events one by one; the searches find what a scan finds. */
static void
test_summary_is_brute_force (void)
{
  g_autoptr(BpwTimelineData) data = random_data (2, 70000, 11);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  const guint32 lengths[] = { 0, 1, 2, 31, 32, 33, 64, 1000, 1023, 1024, 1025, 33000, 69999 };

  for (guint trial = 0; trial < 400; trial++)
    {
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, trial % 2);
      guint32 len = trial < 2 * G_N_ELEMENTS (lengths) ? lengths[trial / 2]
                                                       : (guint32) g_rand_int_range (rand, 0, 3000);
      guint32 a = lane->first + (guint32) g_rand_int_range (rand, 0, lane->n - len + 1);
      BpwTimelineColorBy c = trial % BPW_TIMELINE_N_COLORINGS;
      BpwTimelineSpan fast, slow;
      double threshold = g_rand_double (rand) * 5e-4, t = data->start[a] + 1e-4;
      guint32 long_slow = a + len, ending_slow = a + len;

      bpw_timeline_data_summarize (data, c, a, a + len, &fast);
      brute_span (data, c, a, a + len, &slow);
      g_assert_cmpuint (fast.count, ==, slow.count);
      g_assert_cmpuint (fast.longest, ==, slow.longest);
      g_assert_cmpfloat (fast.longest_s, ==, slow.longest_s);
      g_assert_cmpfloat (fast.max_end, ==, slow.max_end);
      g_assert_cmpmem (fast.ticks, sizeof fast.ticks, slow.ticks, sizeof slow.ticks);

      for (guint32 i = a; i < a + len && long_slow == a + len; i++)
        if (data->end[i] - data->start[i] >= threshold)
          long_slow = i;
      for (guint32 i = a; i < a + len && ending_slow == a + len; i++)
        if (data->end[i] >= t)
          ending_slow = i;
      g_assert_cmpuint (bpw_timeline_data_next_long (data, a, a + len, threshold), ==, long_slow);
      g_assert_cmpuint (bpw_timeline_data_next_ending (data, a, a + len, t), ==, ending_slow);
    }
}

/* ---- marks ---- */

typedef struct
{
  double   r0, t0, k, left, right;
  gint     col_first, col_last;
  BpwTimelinePlot *plot;
} View;

typedef struct
{
  BpwTimelineMark  m;
  gint64           ticks[BPW_TIMELINE_KEYS];
  double           longest;
  gboolean         active;
} Ref;

static void
ref_flush (const View *v, const BpwTimelineData *data, Ref *p, GArray *out, guint first)
{
  if (!p->active)
    return;
  p->active = FALSE;
  if (p->m.dense)
    {
      guint best = p->m.key % BPW_TIMELINE_KEYS;

      for (guint k = 0; k < BPW_TIMELINE_KEYS; k++)
        if (p->ticks[k] > p->ticks[best])
          best = k;
      p->m.key = (guint8) best;
      p->m.x0 = MAX ((double) p->m.col0, v->left);
      p->m.x1 = MIN ((double) p->m.col1, v->right);
      if (out->len > first)
        {
          BpwTimelineMark *prev = &g_array_index (out, BpwTimelineMark, out->len - 1);

          if (prev->dense && prev->key == p->m.key && prev->col1 == p->m.col0)
            {
              if (p->longest > data->end[prev->event] - data->start[prev->event])
                prev->event = p->m.event;
              prev->count += p->m.count;
              prev->t1 = MAX (prev->t1, p->m.t1);
              prev->x1 = p->m.x1;
              prev->col1 = p->m.col1;
              return;
            }
        }
    }
  g_array_append_val (out, p->m);
}

static void
ref_start (const BpwTimelineData *data, const guint8 *keys, Ref *p, guint32 i, guint track,
           double x0, double x1, gint c0, gint c1, gboolean dense)
{
  memset (p->ticks, 0, sizeof p->ticks);
  p->ticks[keys[i] % BPW_TIMELINE_KEYS] = bpw_timeline_data_ticks (data, i);
  p->longest = data->end[i] - data->start[i];
  p->active = TRUE;
  p->m = (BpwTimelineMark) { .t0 = data->start[i], .t1 = data->end[i], .x0 = x0, .x1 = x1,
                             .col0 = c0, .col1 = c1, .track = track, .event = i,
                             .count = 1, .key = keys[i], .dense = dense };
}

/* The marks of one lane as bpw-timeline-plot.h defines them, event by event: a visible
 * event (starting by the view's end, ending at or after its start) wider than a column
 * is a mark of its own, taking its first column over from the mark before (or absorbing
 * it when that lies in this column only); a narrower one joins the mark whose columns it
 * starts in, else starts a dense mark; a dense mark takes the key with the most ticks,
 * and neighbouring dense marks of one key merge. */
static void
ref_lane (const View *v, const BpwTimelineData *data, const guint8 *keys, guint lane,
          guint track, double t0, double t1, GArray *out)
{
  const BpwTimelineLane *l = &g_array_index (data->lanes, BpwTimelineLane, lane);
  guint first = out->len;
  Ref p = { .active = FALSE };

  for (guint32 i = l->first; i < l->first + l->n; i++)
    {
      double x0, x1;
      gint c0, c1;
      gboolean wide;

      if (!(data->start[i] <= t1 && data->end[i] >= t0))
        continue;
      x0 = MAX (v->r0 + (data->start[i] - v->t0) * v->k, v->left);
      x1 = MIN (MAX (v->r0 + (data->end[i] - v->t0) * v->k, x0), v->right);
      wide = x1 - x0 >= 1.0;
      /* The column a start falls in, by the plot's own map. */
      c0 = data->start[i] < t0 ? v->col_first
                               : MIN ((gint) floor (bpw_plot_map_x (BPW_PLOT (v->plot),
                                                                               data->start[i])),
                                      v->col_last);
      c1 = MIN (MAX ((gint) ceil (x1), c0 + 1), v->col_last + 1);
      if (p.active && c0 < p.m.col1)
        {
          if (!wide)
            {
              double dur = data->end[i] - data->start[i];

              p.ticks[keys[i] % BPW_TIMELINE_KEYS] += bpw_timeline_data_ticks (data, i);
              p.m.count++;
              p.m.t1 = MAX (p.m.t1, data->end[i]);
              p.m.x1 = MAX (p.m.x1, x1);
              p.m.col1 = MAX (p.m.col1, c1);
              if (dur > p.longest)
                p.longest = dur, p.m.event = i;
              continue;
            }
          if (p.m.col0 < c0)
            {
              p.m.col1 = c0;
              ref_flush (v, data, &p, out, first);
            }
          else
            {
              BpwTimelineMark absorbed = p.m;
              double longest = p.longest;

              ref_start (data, keys, &p, i, track, MIN (x0, absorbed.x0), x1, absorbed.col0,
                         c1, FALSE);
              p.m.t0 = MIN (p.m.t0, absorbed.t0);
              p.m.count += absorbed.count;
              if (longest > p.longest)
                p.m.event = absorbed.event, p.longest = longest;
              continue;
            }
        }
      else
        ref_flush (v, data, &p, out, first);
      ref_start (data, keys, &p, i, track, x0, x1, c0, c1, !wide);
    }
  ref_flush (v, data, &p, out, first);
}

static void
assert_marks_equal (const BpwTimelineMark *a, const BpwTimelineMark *b)
{
  g_assert_cmpuint (a->track, ==, b->track);
  g_assert_cmpint (a->col0, ==, b->col0);
  g_assert_cmpint (a->col1, ==, b->col1);
  g_assert_cmpuint (a->count, ==, b->count);
  g_assert_cmpuint (a->event, ==, b->event);
  g_assert_cmpuint (a->key, ==, b->key);
  g_assert_cmpint (a->dense, ==, b->dense);
  g_assert_cmpfloat (a->t0, ==, b->t0);
  g_assert_cmpfloat (a->t1, ==, b->t1);
  g_assert_cmpfloat (a->x0, ==, b->x0);
  g_assert_cmpfloat (a->x1, ==, b->x1);
}

/* Layouts of random data at random views, widths and colourings: every lane's marks are
 * the event-by-event definition's, field by field. */
static void
test_marks_are_brute_force (void)
{
  BpwTimelineData *data = random_data (6, 40000, 23);
  g_autoptr(BpwTimelinePlot) plot = bpw_timeline_plot_new (data);
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  g_autoptr(GArray) ref = g_array_new (FALSE, FALSE, sizeof (BpwTimelineMark));
  BpwPlotViewport bounds;

  g_assert_true (bpw_plot_get_bounds (BPW_PLOT (plot), &bounds));
  for (guint trial = 0; trial < 24; trial++)
    {
      /* From the whole step down to a few events, sometimes past either end. */
      double span = bounds.x_max * pow (10, -g_rand_double_range (rand, 0, 5));
      double mid = g_rand_double_range (rand, -0.05, 1.05) * bounds.x_max;
      BpwPlotViewport vp = { mid - span / 2, mid + span / 2, 0, 0 };
      double width = g_rand_double_range (rand, 300, 2200), t0, t1;
      const BpwPlotRect *area;
      const BpwTimelineTrack *tracks;
      const BpwTimelineMark *marks;
      guint n_tracks, n_marks;
      View v;

      if (trial % 3 == 1)
        vp.y_min = 0.7, vp.y_max = 3.6;  /* some tracks out of view */
      /* The whole step on a hundred-odd columns: the longest events (over 2^32 ticks)
       * are narrower than a column. */
      if (trial == 1)
        width = 200;
      bpw_timeline_plot_set_color_by (plot, trial % BPW_TIMELINE_N_COLORINGS);
      bpw_plot_layout (BPW_PLOT (plot), &style, trial <= 1 ? NULL : &vp, width, 600);
      area = bpw_plot_get_area (BPW_PLOT (plot));
      bpw_timeline_plot_get_time_range (plot, &t0, &t1);
      v = (View) {
        .r0 = area->x, .t0 = t0, .k = (area->x + area->width - area->x) / (t1 - t0),
        .left = area->x, .right = area->x + area->width,
        .col_first = (gint) floor (area->x), .col_last = (gint) ceil (area->x + area->width) - 1,
        .plot = plot,
      };
      tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
      marks = bpw_timeline_plot_get_marks (plot, &n_marks);
      if (trial == 1)
        {
          gboolean narrow_and_long = FALSE;

          for (guint32 i = 0; i < data->n_events; i++)
            narrow_and_long |= bpw_timeline_data_ticks (data, i) > G_MAXUINT32 &&
                               (data->end[i] - data->start[i]) * v.k < 0.9;
          g_assert_true (narrow_and_long);
        }
      g_array_set_size (ref, 0);
      for (guint t = 0; t < n_tracks; t++)
        if (tracks[t].visible && tracks[t].kind == BPW_TIMELINE_TRACK_LANE)
          {
            guint before = ref->len;

            ref_lane (&v, data, data->key[trial % BPW_TIMELINE_N_COLORINGS], tracks[t].lane, t,
                      t0, t1, ref);
            g_assert_cmpuint (tracks[t].first_mark, ==, before);
            g_assert_cmpuint (tracks[t].n_marks, ==, ref->len - before);
          }
      g_assert_cmpuint (n_marks, ==, ref->len);
      for (guint i = 0; i < n_marks; i++)
        assert_marks_equal (&marks[i], &g_array_index (ref, BpwTimelineMark, i));
    }
}

/* ---- pixels ---- */

/* The plot drawn on an image of @scale, and the same with a rotation by a full turn,
 * which keeps every pixel in place but makes cairo fill the marks' and the counters'
 * rectangles itself: the pixels written straight into the image must be those. (Text is
 * off; a full turn moves antialiased lines by a level or two, no more.) A third copy
 * goes through a recording surface, as GTK draws, and is replayed onto an image. */
static void
check_pixels (BpwTimelinePlot *plot, const BpwPlotViewport *vp, double scale)
{
  cairo_surface_t *img[3];
  guint differ[2] = { 0, 0 };
  gint w = (gint) (900 * scale), h = (gint) (520 * scale);

  for (guint k = 0; k < 3; k++)
    {
      cairo_surface_t *target = k == 2 ? cairo_recording_surface_create (
                                  CAIRO_CONTENT_COLOR_ALPHA, NULL) : NULL;
      cairo_t *cr;

      img[k] = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
      cairo_surface_set_device_scale (img[k], scale, scale);
      cr = cairo_create (target != NULL ? target : img[k]);
      if (k == 1)
        cairo_rotate (cr, 2 * G_PI);
      bpw_plot_layout (BPW_PLOT (plot), &style, vp, 900, 520);
      bpw_plot_draw (BPW_PLOT (plot), cr);
      cairo_destroy (cr);
      if (target != NULL)
        {
          cr = cairo_create (img[k]);
          cairo_set_source_surface (cr, target, 0, 0);
          cairo_paint (cr);
          cairo_destroy (cr);
          cairo_surface_destroy (target);
        }
      cairo_surface_flush (img[k]);
    }
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      for (guint k = 1; k < 3; k++)
        {
          guint32 a = ((guint32 *) (cairo_image_surface_get_data (img[0]) +
                                    y * cairo_image_surface_get_stride (img[0])))[x];
          guint32 b = ((guint32 *) (cairo_image_surface_get_data (img[k]) +
                                    y * cairo_image_surface_get_stride (img[k])))[x];
          gint most = 0;

          for (guint c = 0; c < 32; c += 8)
            most = MAX (most, ABS ((gint) ((a >> c) & 255) - (gint) ((b >> c) & 255)));
          differ[k - 1] += most > 8;
        }
  g_assert_cmpuint (differ[0], ==, 0);
  /* The recording samples a stretched image: exact where the image's pixels are the
   * surface's (scale 1). */
  if (scale == 1)
    g_assert_cmpuint (differ[1], ==, 0);
  for (guint k = 0; k < 3; k++)
    cairo_surface_destroy (img[k]);
}

static void
test_pixels_are_cairo_marks (void)
{
  g_autoptr(BpwTimelinePlot) plot = bpw_timeline_plot_new (random_data (5, 20000, 31));
  BpwPlotViewport bounds, vp;

  g_assert_true (bpw_plot_get_bounds (BPW_PLOT (plot), &bounds));
  vp = (BpwPlotViewport) { bounds.x_max * 0.3, bounds.x_max * 0.31, 0.6, 4.3 };
  for (guint s = 1; s <= 2; s++)
    {
      check_pixels (plot, NULL, s);
      check_pixels (plot, &vp, s);
    }
}

static void
test_pixels_are_cairo_counters (void)
{
  BpwPlan *plan = bpw_plot_test_default_plan ("H100 SXM 80 GB", "llama3-70b-decode");
  g_autoptr(GError) error = NULL;
  BpwSimulation *sim = bpw_simulation_new (plan, NULL, &error);
  g_autoptr(BpwTimelinePlot) plot = NULL;
  BpwPlotViewport bounds, vp;

  g_assert_no_error (error);
  plot = bpw_timeline_plot_new (bpw_timeline_data_new_from_simulation (sim, NULL, "H100", TRUE));
  g_assert_true (bpw_plot_get_bounds (BPW_PLOT (plot), &bounds));
  vp = (BpwPlotViewport) { bounds.x_max * 0.4, bounds.x_max * 0.45, 0, bounds.y_max };
  check_pixels (plot, NULL, 1);
  check_pixels (plot, &vp, 2);
  g_clear_object (&plot);
  bpw_simulation_free (sim);
  bpw_plan_free (plan);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  bpw_plot_style_init_print (&style);
  style.text = FALSE;

  g_test_add_func ("/bpw/plot/TimelinePlot/summary-is-brute-force",
                   test_summary_is_brute_force);
  g_test_add_func ("/bpw/plot/TimelinePlot/marks-are-brute-force", test_marks_are_brute_force);
  g_test_add_func ("/bpw/plot/TimelinePlot/pixels-are-cairo-marks", test_pixels_are_cairo_marks);
  g_test_add_func ("/bpw/plot/TimelinePlot/pixels-are-cairo-counters",
                   test_pixels_are_cairo_counters);
  return g_test_run ();
}
