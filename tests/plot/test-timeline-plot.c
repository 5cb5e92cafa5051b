/* test-timeline-plot.c — the timeline: level of detail, purity, hit-testing, CSV, the area
 * selection, counters, the simulation adapter and export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-timeline-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "bpw-blueprint-io.h"
#include "bpw-plot-export.h"
#include "bpw-plot-test-util.h"
#include "bpw-simulation.h"
#include "bpw-timeline-plot.h"
#include "bpw-workload-io.h"

static BpwPlotStyle style;

/* @n events per lane on @lanes lanes, back to back with gaps, durations from 1 ns to
 * 10 ms (mostly tiny: the case level of detail is for), keys cycling; lane l's events
 * start at l µs so that lanes differ. Deterministic. */
static BpwTimelineData *
synthetic (guint lanes, guint n, double *step)
{
  BpwTimelineData *data = bpw_timeline_data_new ("Synthetic timeline", 0);
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  guint32 name = bpw_timeline_data_intern (data, "op"), kind = bpw_timeline_data_intern (data, "k");
  guint32 index = 0;

  *step = 0;
  for (guint l = 0; l < lanes; l++)
    bpw_timeline_data_add_lane (data, l / 2, l % 2, -1, l % 2 ? "vector" : "matrix");
  for (guint l = 0; l < lanes; l++)
    {
      double t = l * 1e-6;

      for (guint i = 0; i < n; i++)
        {
          double u = g_rand_double (rand), dur = u < 0.98 ? 1e-9 + u * 2e-6 : u * 1e-2;
          guint8 keys[BPW_TIMELINE_N_COLORINGS] = { i % 5, (i / 3) % 7, i % 8 };
          BpwTimelineEvent e = { .lineage = index,
                                 .pred = index > 0 ? index - 1 : BPW_TIMELINE_NONE,
                                 .name = name, .kind = kind, .micro_batch = 0, .lane = l };

          bpw_timeline_data_add_event (data, t, t + dur, keys, &e);
          *step = MAX (*step, t + dur);
          t += dur + g_rand_double (rand) * 1e-6;
          index++;
        }
    }
  bpw_timeline_data_finish (data);
  return data;
}

static BpwTimelinePlot *
laid_out (BpwTimelineData *data, const BpwPlotViewport *vp, double w, double h)
{
  BpwTimelinePlot *plot = bpw_timeline_plot_new (data);

  bpw_plot_layout (BPW_PLOT (plot), &style, vp, w, h);
  return plot;
}

static guint64
sum_counts (BpwTimelinePlot *plot)
{
  guint n;
  const BpwTimelineMark *marks = bpw_timeline_plot_get_marks (plot, &n);
  guint64 total = 0;

  for (guint i = 0; i < n; i++)
    total += marks[i].count;
  return total;
}

/* The bound: 1 M events at 2000 units wide give at most lanes × 2000 marks, and
 * level of detail drops none: the counts add up to every event. */
static void
test_lod_bounded_keeps_every_event (void)
{
  double step;
  BpwTimelineData *data = synthetic (8, 125000, &step);
  g_autoptr(BpwTimelinePlot) plot = NULL;
  const BpwTimelineTrack *tracks;
  const BpwTimelineMark *marks;
  guint n_tracks, n_marks, lanes = 0;

  g_assert_cmpuint (data->n_events, ==, 1000000);
  plot = laid_out (data, NULL, 2000, 1000);
  tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
  marks = bpw_timeline_plot_get_marks (plot, &n_marks);
  for (guint t = 0; t < n_tracks; t++)
    if (tracks[t].kind == BPW_TIMELINE_TRACK_LANE)
      {
        lanes++;
        g_assert_true (tracks[t].visible);
        g_assert_cmpuint (tracks[t].n_marks, <=, 2000);
        /* Marks own disjoint runs of whole columns, in order. */
        for (guint i = tracks[t].first_mark; i < tracks[t].first_mark + tracks[t].n_marks; i++)
          {
            g_assert_cmpint (marks[i].col0, <, marks[i].col1);
            g_assert_cmpuint (marks[i].track, ==, t);
            if (i > tracks[t].first_mark)
              g_assert_cmpint (marks[i - 1].col1, <=, marks[i].col0);
          }
      }
  g_assert_cmpuint (lanes, ==, 8);
  g_assert_cmpuint (n_marks, <=, lanes * 2000);
  g_assert_cmpuint (sum_counts (plot), ==, 1000000);
}

/* Zoomed in: the counts add up to the events overlapping the range, counted by brute
 * force, and every one of them lies in the columns of the mark that counts it. */
static void
test_lod_zoomed (void)
{
  double step;
  BpwTimelineData *data = synthetic (4, 20000, &step);
  BpwPlotViewport vp = { step * 0.4, step * 0.41, 0, 0 };
  g_autoptr(BpwTimelinePlot) plot = laid_out (data, &vp, 900, 500);
  guint64 expected = 0, shown = 0;
  guint n_marks;
  const BpwTimelineMark *marks = bpw_timeline_plot_get_marks (plot, &n_marks);

  for (guint32 i = 0; i < data->n_events; i++)
    if (data->end[i] >= vp.x_min && data->start[i] <= vp.x_max)
      expected++;
  g_assert_cmpuint (expected, >, 100);
  g_assert_cmpuint (sum_counts (plot), ==, expected);
  /* A column holding the start of any visible event is covered by a mark of its lane. */
  for (guint32 i = 0; i < data->n_events; i++)
    {
      double x;
      gboolean covered = FALSE;

      if (!(data->start[i] >= vp.x_min && data->start[i] < vp.x_max))
        continue;
      shown++;
      x = floor (bpw_plot_map_x (BPW_PLOT (plot), data->start[i]));
      for (guint k = 0; k < n_marks && !covered; k++)
        {
          const BpwTimelineMark *m = &marks[k];
          const BpwTimelineTrack *tracks;
          guint n_tracks;

          tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
          covered = tracks[m->track].lane == data->events[i].lane &&
                    x + 1 > m->x0 && x < MAX (m->x1, m->x0 + 1);
        }
      g_assert_true (covered);
    }
  g_assert_cmpuint (shown, >, 0);
}

/* Layout is a function of data, options, viewport and size: the same inputs give the same
 * scene, whatever was laid out in between, and the data are not touched. */
static void
test_layout_pure (void)
{
  double step;
  BpwTimelineData *data = synthetic (6, 5000, &step);
  g_autoptr(BpwTimelinePlot) plot = laid_out (data, NULL, 1200, 700);
  g_autofree char *csv1 = bpw_plot_to_csv (BPW_PLOT (plot));
  g_autofree char *csv2 = NULL;
  g_autofree char *sum_before = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                                            (const guchar *) data->start,
                                                            data->n_events * sizeof (double));
  g_autofree char *sum_after = NULL;
  g_autofree BpwTimelineMark *first = NULL;
  BpwPlotViewport vp = { step * 0.2, step * 0.3, 1, 4 };
  guint n1, n2;
  const BpwTimelineMark *m = bpw_timeline_plot_get_marks (plot, &n1);

  first = g_memdup2 (m, n1 * sizeof *m);
  /* Bounds: the step, and 3 ranks of 2 lanes with 2 gaps between them; asking for them
   * leaves the scene as it is. */
  {
    BpwPlotViewport b;
    guint n_tracks;
    const BpwTimelineTrack *tracks;

    g_assert_true (bpw_plot_get_bounds (BPW_PLOT (plot), &b));
    g_assert_cmpfloat (b.x_max, ==, step);
    g_assert_cmpfloat (b.y_max, ==, 6 + 2 * BPW_TIMELINE_GROUP_GAP);
    tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
    g_assert_cmpuint (n_tracks, ==, 6);
    g_assert_true (tracks[5].visible);
    g_assert_cmpuint (tracks[5].first_mark + tracks[5].n_marks, ==, n1);
  }
  bpw_plot_layout (BPW_PLOT (plot), &style, &vp, 333, 222);
  bpw_timeline_plot_set_selected (plot, 10);
  bpw_timeline_plot_set_selected (plot, BPW_TIMELINE_NONE);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 1200, 700);
  m = bpw_timeline_plot_get_marks (plot, &n2);
  g_assert_cmpuint (n1, ==, n2);
  g_assert_cmpmem (first, n1 * sizeof *m, m, n2 * sizeof *m);
  csv2 = bpw_plot_to_csv (BPW_PLOT (plot));
  g_assert_cmpstr (csv1, ==, csv2);
  sum_after = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data->start,
                                           data->n_events * sizeof (double));
  g_assert_cmpstr (sum_before, ==, sum_after);
}

/* Three wide events on two lanes: hit-testing their middles finds them; between two
 * events there is nothing; a memory track gives its column. */
static void
test_hit_test (void)
{
  BpwTimelineData *data = bpw_timeline_data_new ("Hits", 10);
  guint32 name = bpw_timeline_data_intern (data, "attn.qkv");
  const double spans[3][2] = { { 1, 3 }, { 5, 6 }, { 2, 8 } };
  const guint lanes[3] = { 0, 0, 1 };
  g_autoptr(BpwTimelinePlot) plot = NULL;
  const BpwTimelineTrack *tracks;
  guint n_tracks;
  BpwPlotHit hit;
  g_autofree char *text = NULL;

  bpw_timeline_data_add_lane (data, 0, 0, -1, "matrix");
  bpw_timeline_data_add_lane (data, 0, 1, -1, "vector");
  for (guint i = 0; i < 3; i++)
    {
      guint8 keys[BPW_TIMELINE_N_COLORINGS] = { 0, 0, 0 };
      BpwTimelineEvent e = { .lineage = 100 + i, .pred = i == 2 ? 0 : BPW_TIMELINE_NONE,
                             .name = name, .kind = name, .micro_batch = 1, .lane = lanes[i] };

      bpw_timeline_data_add_event (data, spans[i][0], spans[i][1], keys, &e);
    }
  bpw_timeline_data_finish (data);
  plot = laid_out (data, NULL, 800, 400);
  tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
  g_assert_cmpuint (n_tracks, ==, 2);
  for (guint i = 0; i < 3; i++)
    {
      double x = bpw_plot_map_x (BPW_PLOT (plot), (spans[i][0] + spans[i][1]) / 2);
      const BpwTimelineTrack *t = &tracks[lanes[i]];

      g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), x, t->rect.y + t->rect.height / 2, &hit));
      g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_ITEM);
      g_assert_cmpuint (data->events[hit.index].lineage, ==, 100 + i);
      g_assert_cmpuint (hit.lineage, ==, 100 + i);
      g_assert_cmpuint (hit.count, ==, 1);
    }
  g_assert_false (bpw_plot_hit_test (BPW_PLOT (plot), bpw_plot_map_x (BPW_PLOT (plot), 4),
                                     tracks[0].rect.y + 2, &hit));
  g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), bpw_plot_map_x (BPW_PLOT (plot), 2),
                                    tracks[0].rect.y + 2, &hit));
  text = bpw_plot_describe (BPW_PLOT (plot), &hit);
  g_assert_nonnull (strstr (text, "attn.qkv"));
  g_assert_nonnull (strstr (text, "micro-batch 1"));

  /* The third event's start was set by the first's end: one flow, from (3 s, lane 0) to
   * (2 s, lane 1)... its start precedes the pred's end here, which layout draws as given. */
  bpw_timeline_plot_set_selected (plot, 2);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 800, 400);
  {
    guint n_flows;
    const double *f = bpw_timeline_plot_get_flows (plot, &n_flows);

    tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
    g_assert_cmpuint (n_flows, ==, 1);
    g_assert_cmpfloat_with_epsilon (f[0], bpw_plot_map_x (BPW_PLOT (plot), 3), 1e-9);
    g_assert_cmpfloat_with_epsilon (f[1], tracks[0].rect.y + tracks[0].rect.height / 2, 1e-9);
    g_assert_cmpfloat_with_epsilon (f[2], bpw_plot_map_x (BPW_PLOT (plot), 2), 1e-9);
    g_assert_cmpfloat_with_epsilon (f[3], tracks[1].rect.y + tracks[1].rect.height / 2, 1e-9);
  }
}

/* The CSV is the marks as plotted: one row per mark, with its time span and count. */
static void
test_csv_is_plotted_data (void)
{
  double step;
  BpwTimelineData *data = synthetic (3, 3000, &step);
  BpwPlotViewport vp = { step * 0.5, step * 0.52, 0, 0 };
  g_autoptr(BpwTimelinePlot) plot = laid_out (data, &vp, 700, 400);
  g_autofree char *csv = bpw_plot_to_csv (BPW_PLOT (plot));
  g_auto(GStrv) lines = g_strsplit (csv, "\n", -1);
  guint n_marks, rows = 0;
  const BpwTimelineMark *marks = bpw_timeline_plot_get_marks (plot, &n_marks);

  g_assert_true (g_str_has_prefix (lines[0], "series,rank,stage,lane,start_s,end_s,events,"));
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto(GStrv) f = bpw_plot_test_csv_fields (lines[i]);

      g_assert_cmpuint (rows, <, n_marks);
      g_assert_cmpstr (f[0], ==, marks[rows].count > 1 ? "merged" : "event");
      g_assert_cmpfloat (g_ascii_strtod (f[4], NULL), ==, marks[rows].t0);
      g_assert_cmpfloat (g_ascii_strtod (f[5], NULL), ==, marks[rows].t1);
      g_assert_cmpuint (g_ascii_strtoull (f[6], NULL, 10), ==, marks[rows].count);
      rows++;
    }
  g_assert_cmpuint (rows, ==, n_marks);
}

/* Time inside an area: each event contributes its overlap with the range, closed form. */
static void
test_aggregate (void)
{
  g_autoptr(BpwTimelineData) data = bpw_timeline_data_new ("Aggregate", 10);
  guint32 a = bpw_timeline_data_intern (data, "a"), b = bpw_timeline_data_intern (data, "b");
  const struct { double s, e; guint lane; guint32 name; guint8 bottleneck; } ev[] = {
    { 0, 2, 0, 0, BPW_BOTTLENECK_COMPUTE }, { 2, 5, 0, 1, BPW_BOTTLENECK_MEMORY },
    { 6, 9, 0, 0, BPW_BOTTLENECK_COMPUTE }, { 1, 4, 1, 1, BPW_BOTTLENECK_COMMUNICATION },
  };
  g_autoptr(BpwTimelineAggregate) agg = NULL;
  guint lane0 = 0;
  g_autofree char *csv = NULL;

  bpw_timeline_data_add_lane (data, 0, 0, -1, "matrix");
  bpw_timeline_data_add_lane (data, 0, 2, 0, "link");
  for (guint i = 0; i < G_N_ELEMENTS (ev); i++)
    {
      guint8 keys[BPW_TIMELINE_N_COLORINGS] = { 0, ev[i].bottleneck, 0 };
      BpwTimelineEvent e = { .pred = BPW_TIMELINE_NONE, .name = ev[i].name ? b : a,
                             .kind = ev[i].name ? b : a, .lane = ev[i].lane };

      bpw_timeline_data_add_event (data, ev[i].s, ev[i].e, keys, &e);
    }
  bpw_timeline_data_finish (data);

  /* [1, 7] on both lanes: a 1 + 1, b 3 + 3, compute 2, memory 3, communication 3. */
  agg = bpw_timeline_data_aggregate (data, 1, 7, NULL, 0);
  g_assert_cmpfloat (agg->busy_s, ==, 8);
  g_assert_cmpuint (agg->events, ==, 4);
  g_assert_cmpuint (agg->by_name->len, ==, 2);
  g_assert_cmpstr (g_array_index (agg->by_name, BpwTimelineAggregateRow, 0).label, ==, "b");
  g_assert_cmpfloat (g_array_index (agg->by_name, BpwTimelineAggregateRow, 0).time_s, ==, 6);
  g_assert_cmpfloat (g_array_index (agg->by_name, BpwTimelineAggregateRow, 1).time_s, ==, 2);
  g_assert_cmpuint (agg->by_bottleneck->len, ==, 3);
  for (guint i = 0; i < agg->by_bottleneck->len; i++)
    {
      const BpwTimelineAggregateRow *r = &g_array_index (agg->by_bottleneck,
                                                         BpwTimelineAggregateRow, i);

      g_assert_cmpfloat (r->time_s, ==, r->key == BPW_BOTTLENECK_COMPUTE ? 2 : 3);
    }
  g_clear_pointer (&agg, bpw_timeline_aggregate_free);

  /* Lane 0 alone, [2, 5]: the event ending at 2 only touches it and does not count. */
  agg = bpw_timeline_data_aggregate (data, 2, 5, &lane0, 1);
  g_assert_cmpuint (agg->events, ==, 1);
  g_assert_cmpfloat (agg->busy_s, ==, 3);
  csv = bpw_timeline_aggregate_to_csv (agg);
  g_assert_true (g_str_has_prefix (csv, "table,label,time_s,share,events\n"));
  g_assert_nonnull (strstr (csv, "operation,b,3,1,1\n"));
}

static BpwSimulation *
default_simulation (BpwPlan **plan, const char *candidate, const char *scenario)
{
  g_autoptr(GError) error = NULL;
  BpwSimulation *sim;

  *plan = bpw_plot_test_default_plan (candidate, scenario);
  sim = bpw_simulation_new (*plan, NULL, &error);
  g_assert_no_error (error);
  return sim;
}

/* Interleaved lanes are named by the blocks their stage really runs, one run per model
 * chunk: llama3-8b's 32 blocks over pp 2 x v 2 put 0–7 and 16–23 on stage 0. */
static void
test_interleaved_lane_layers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h100-sxm-80gb", &error);
  g_autoptr(BpwPlan) plan = NULL;
  BpwSimulation *sim;
  BpwTimelineData *data;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwModelSpec spec;
  BpwScenario sc;
  BpwMapping m;
  gboolean seen[2] = { FALSE, FALSE };

  g_assert_no_error (error);
  bpw_model_spec_init_defaults (&spec);
  g_assert_true (bpw_workload_load ("llama3-8b", &spec, &error));
  bpw_scenario_init_defaults (&sc);
  sc.global_batch = 4;
  sc.micro_batch = 1;
  sc.seq = 256;
  bpw_mapping_init_defaults (&m);
  m.parallel.pp = 2;
  m.parallel.schedule = BPW_SCHEDULE_INTERLEAVED;
  m.parallel.interleave = 2;
  graph = bpw_work_graph_new (&spec, &sc, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &m.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &m, &error);
  g_assert_no_error (error);
  sim = bpw_simulation_new (plan, NULL, &error);
  g_assert_no_error (error);
  data = bpw_timeline_data_new_from_simulation (sim, NULL, "H100", TRUE);
  for (guint l = 0; l < data->lanes->len; l++)
    {
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, l);

      if (lane->link)
        continue;
      g_assert_cmpint (lane->n_layers, ==, 16);
      g_assert_cmpstr (lane->layers, ==,
                       lane->stage == 0 ? "0\xe2\x80\x93" "7, 16\xe2\x80\x93" "23"
                                        : "8\xe2\x80\x93" "15, 24\xe2\x80\x93" "31");
      seen[lane->stage] = TRUE;
    }
  g_assert_true (seen[0] && seen[1]);
  bpw_timeline_data_free (data);
  bpw_simulation_free (sim);
  bpw_mapping_clear (&m);
  bpw_scenario_clear (&sc);
  bpw_model_spec_clear (&spec);
}

/* The adapter keeps every event of the simulation in its lane, in start order; preds map
 * to the same events; the memory track's column maxima are the curve's. */
static void
test_from_simulation (void)
{
  BpwPlan *plan;
  BpwSimulation *sim = default_simulation (&plan, "H100 SXM 80 GB", "llama3-70b-decode");
  BpwTimelineData *data = bpw_timeline_data_new_from_simulation (sim, NULL, "H100", TRUE);
  g_autoptr(BpwTimelinePlot) plot = NULL;
  g_autoptr(GArray) curve = bpw_simulation_memory_curve (sim, 0);
  g_autofree gboolean *seen = g_new0 (gboolean, sim->events->len);
  const BpwTimelineTrack *tracks;
  guint n_tracks;

  g_assert_cmpuint (data->n_events, ==, sim->events->len);
  for (guint32 i = 0; i < data->n_events; i++)
    {
      const BpwSimEvent *e = bpw_simulation_event (sim, data->events[i].sim_index);
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane,
                                                    data->events[i].lane);

      g_assert_false (seen[data->events[i].sim_index]);
      seen[data->events[i].sim_index] = TRUE;
      g_assert_cmpfloat (data->start[i], ==, e->start);
      g_assert_cmpfloat (data->end[i], ==, e->end);
      g_assert_cmpuint (lane->rank, ==, e->rank);
      g_assert_cmpuint (lane->queue, ==, e->queue);
      if (i > lane->first)
        g_assert_cmpfloat (data->start[i - 1], <=, data->start[i]);
      if (e->pred != BPW_SIM_NONE)
        g_assert_cmpuint (data->events[data->events[i].pred].sim_index, ==, e->pred);
      else
        g_assert_cmpuint (data->events[i].pred, ==, BPW_TIMELINE_NONE);
      g_assert_cmpstr (bpw_timeline_data_name (data, data->events[i].name), ==,
                       bpw_simulation_event_name (sim, e));
    }
  g_assert_cmpuint (data->memory[0].n, ==, curve->len);

  plot = laid_out (data, NULL, 1000, 600);
  g_assert_cmpuint (sum_counts (plot), ==, sim->events->len);
  tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
  for (guint t = 0; t < n_tracks; t++)
    if (tracks[t].kind == BPW_TIMELINE_TRACK_MEMORY)
      {
        BpwPlotHit hit;
        g_autofree char *text = NULL;
        double x = tracks[t].rect.x + tracks[t].rect.width / 2;

        g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), x,
                                          tracks[t].rect.y + tracks[t].rect.height - 1, &hit));
        g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_COUNTER);
        text = bpw_plot_describe (BPW_PLOT (plot), &hit);
        g_assert_nonnull (strstr (text, "Device memory of stage 0"));
      }
  g_object_unref (g_steal_pointer (&plot));
  bpw_simulation_free (sim);
  bpw_plan_free (plan);
}

static void
test_export (void)
{
  double step;
  g_autoptr(BpwTimelinePlot) plot = bpw_timeline_plot_new (synthetic (4, 2000, &step));
  g_autofree char *dir = g_dir_make_tmp ("bpw-timeline-XXXXXX", NULL);
  g_autofree char *svg = g_build_filename (dir, "t.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "t.pdf", NULL);
  g_autofree char *png = g_build_filename (dir, "t.png", NULL);
  g_autofree char *root = NULL;
  g_autofree char *head = NULL;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *image;
  gsize len;

  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_SVG, 720, 405, 1, svg,
                                  &error));
  g_assert_no_error (error);
  root = bpw_plot_test_xml_root (svg, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (root, ==, "svg");
  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_PDF, 720, 405, 1, pdf,
                                  &error));
  g_assert_true (g_file_get_contents (pdf, &head, &len, &error));
  g_assert_true (len > 5 && memcmp (head, "%PDF-", 5) == 0);
  g_assert_true (bpw_plot_export (BPW_PLOT (plot), NULL, BPW_PLOT_FORMAT_PNG, 720, 405, 2, png,
                                  &error));
  image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 1440);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 810);
  g_assert_cmpuint (bpw_plot_test_count_ink (image, &style.background), >, 10000);
  cairo_surface_destroy (image);
  g_unlink (svg);
  g_unlink (pdf);
  g_unlink (png);
  g_rmdir (dir);
}

/* Rows too thin to read scroll instead: 64 ranks of two lanes at 8 px a row do not fit
 * 600 px, so the area shows floor (height / 8) whole rows from the offset; a track is laid
 * out where it is in view, nowhere else, and the pointer finds the track shown there. At
 * 0 px (the default, exports) every row fits. */
static void
test_row_window (void)
{
  double step, first, shown, total, row_h;
  BpwTimelineData *data = synthetic (128, 50, &step);
  g_autoptr(BpwTimelinePlot) plot = bpw_timeline_plot_new (data);
  const BpwTimelineTrack *tracks;
  const BpwPlotRect *area;
  guint n;
  BpwPlotHit hit;

  bpw_timeline_plot_set_counters (plot, FALSE, FALSE);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 1000, 600);
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (first, ==, 0);
  g_assert_cmpfloat (shown, ==, total);
  /* 64 ranks: 128 lane rows and 63 gaps between ranks. */
  g_assert_cmpfloat (total, ==, 128 + 63 * BPW_TIMELINE_GROUP_GAP);

  bpw_timeline_plot_set_min_row_height (plot, 8);
  bpw_timeline_plot_set_row_offset (plot, 40);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 1000, 600);
  area = bpw_plot_get_area (BPW_PLOT (plot));
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (total * 8, >, area->height);
  g_assert_cmpfloat (shown, ==, floor (area->height / 8));
  g_assert_cmpfloat (first, ==, 40);
  row_h = area->height / shown;
  g_assert_cmpfloat (row_h, >=, 8);

  tracks = bpw_timeline_plot_get_tracks (plot, &n);
  for (guint t = 0; t < n; t++)
    {
      gboolean in_view = tracks[t].row + tracks[t].rows > first && tracks[t].row < first + shown;

      g_assert_cmpint (tracks[t].visible, ==, in_view);
      /* Its row's place in the window, less half the gap between tracks. */
      if (in_view)
        {
          double top = area->y + (tracks[t].row - first) * row_h;

          g_assert_cmpfloat (tracks[t].rect.y, >=, top);
          g_assert_cmpfloat (tracks[t].rect.y, <, top + row_h / 2);
        }
      /* The track at the window's top row is the one under the area's top. */
      if (tracks[t].row == first)
        {
          double x = area->x + area->width / 2;

          if (bpw_plot_hit_test (BPW_PLOT (plot), x, tracks[t].rect.y + tracks[t].rect.height / 2,
                                 &hit) && hit.kind == BPW_PLOT_HIT_ITEM)
            g_assert_cmpuint (data->events[hit.index].lane, ==, tracks[t].lane);
        }
    }

  /* Past the end the window stops at the last rows; back to 0 px every row fits again. */
  bpw_timeline_plot_set_row_offset (plot, 1e6);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 1000, 600);
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (first + shown, ==, total);
  bpw_timeline_plot_set_min_row_height (plot, 0);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 1000, 600);
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (first, ==, 0);
  g_assert_cmpfloat (shown, ==, total);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  bpw_plot_style_init_print (&style);

  g_test_add_func ("/bpw/plot/TimelinePlot/lod-bounded-keeps-every-event",
                   test_lod_bounded_keeps_every_event);
  g_test_add_func ("/bpw/plot/TimelinePlot/lod-zoomed", test_lod_zoomed);
  g_test_add_func ("/bpw/plot/TimelinePlot/layout-pure", test_layout_pure);
  g_test_add_func ("/bpw/plot/TimelinePlot/hit-test", test_hit_test);
  g_test_add_func ("/bpw/plot/TimelinePlot/row-window", test_row_window);
  g_test_add_func ("/bpw/plot/TimelinePlot/csv-is-plotted-data", test_csv_is_plotted_data);
  g_test_add_func ("/bpw/plot/TimelinePlot/aggregate", test_aggregate);
  g_test_add_func ("/bpw/plot/TimelinePlot/from-simulation", test_from_simulation);
  g_test_add_func ("/bpw/plot/TimelinePlot/interleaved-lane-layers",
                   test_interleaved_lane_layers);
  g_test_add_func ("/bpw/plot/TimelinePlot/export", test_export);
  return g_test_run ();
}
