/* test-timeline-measured.c — measured lanes beside modelled lanes on the timeline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With the plan's own trace at twice the durations, every measured event must be twice
 * its modelled event's length, carry its lineage and colours, and sit in a lane right
 * after its rank's modelled lanes; with the real PyTorch run, extra work has no lineage
 * and the colours of the matched work before it.
 */
#define G_LOG_DOMAIN "test-timeline-measured"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-plot-test-measured.h"
#include "bpw-timeline-data.h"
#include "bpw-timeline-plot.h"

#define FACTOR 2.0

/* Ranks never go down along the lanes, and each rank's measured lane comes last. */
static void
assert_lane_order (const BpwTimelineData *data)
{
  for (guint l = 1; l < data->lanes->len; l++)
    {
      const BpwTimelineLane *a = &g_array_index (data->lanes, BpwTimelineLane, l - 1);
      const BpwTimelineLane *b = &g_array_index (data->lanes, BpwTimelineLane, l);

      g_assert_cmpuint (a->rank, <=, b->rank);
      if (a->rank == b->rank)
        g_assert_cmpuint (a->queue, !=, BPW_TIMELINE_QUEUE_MEASURED);
    }
}

/* Every event of every lane is in its lane's range, by start, with the running max_end. */
static void
assert_lanes_consistent (const BpwTimelineData *data)
{
  for (guint l = 0; l < data->lanes->len; l++)
    {
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, l);
      double busy = 0, max_end = -1;

      for (guint32 i = lane->first; i < lane->first + lane->n; i++)
        {
          g_assert_cmpuint (data->events[i].lane, ==, l);
          if (i > lane->first)
            g_assert_cmpfloat (data->start[i - 1], <=, data->start[i]);
          max_end = MAX (max_end, data->end[i]);
          g_assert_cmpfloat (data->max_end[i], ==, max_end);
          g_assert_cmpfloat (data->end[i], <=, data->step_s);
          busy += data->end[i] - data->start[i];
        }
      g_assert_cmpfloat_with_epsilon (lane->busy_s, busy, 1e-12 + busy * 1e-12);
    }
}

static char *
event_key (const BpwTimelineData *data,
           guint32                i)
{
  return g_strdup_printf ("%s|%u|%d", bpw_timeline_data_name (data, data->events[i].name),
                          data->events[i].lineage, data->events[i].micro_batch);
}

static void
test_scaled (void)
{
  BpwPlotTestMeasured m;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwTimelineData) data = NULL;
  g_autoptr(GHashTable) modelled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          NULL);
  guint old_lanes, old_events, measured_lanes = 0, checked = 0;
  double longest = 0;

  bpw_plot_test_measured_init (&m, 2, FACTOR);
  data = bpw_timeline_data_new_from_simulation (m.sim, NULL, "A100", FALSE);
  old_lanes = data->lanes->len;
  old_events = data->n_events;
  /* (name, lineage, micro-batch) → the modelled event's data index: an op and the
   * transfers that serve it share a lineage, ops repeat per micro-batch. */
  for (guint32 i = 0; i < old_events; i++)
    g_hash_table_insert (modelled, event_key (data, i), GUINT_TO_POINTER (i));

  g_assert_true (bpw_timeline_data_add_measured_lanes (data, m.profile, m.corr, &error));
  g_assert_no_error (error);
  /* Two stages: two devices in the trace, one measured lane each. */
  g_assert_cmpuint (m.corr->pairs->len, ==, 2);
  g_assert_cmpuint (data->lanes->len, ==, old_lanes + 2);
  g_assert_cmpuint (data->n_events, ==, old_events + m.profile->items->len);
  assert_lane_order (data);
  assert_lanes_consistent (data);

  for (guint l = 0; l < data->lanes->len; l++)
    {
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, l);

      if (lane->queue != BPW_TIMELINE_QUEUE_MEASURED)
        continue;
      measured_lanes++;
      g_assert_false (lane->link);
      for (guint32 i = lane->first; i < lane->first + lane->n; i++)
        {
          const BpwTimelineEvent *e = &data->events[i];
          g_autofree char *key = event_key (data, i);
          gpointer found;
          guint32 j;

          g_assert_cmpuint (e->lineage, !=, BPW_TIMELINE_NONE);
          g_assert_cmpuint (e->sim_index, ==, BPW_TIMELINE_NONE);
          g_assert_true (g_hash_table_lookup_extended (modelled, key, NULL, &found));
          j = GPOINTER_TO_UINT (found);
          /* The trace writes times in µs to the nanosecond. */
          g_assert_cmpfloat_with_epsilon (data->end[i] - data->start[i],
                                          FACTOR * (data->end[j] - data->start[j]), 3e-9);
          for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
            g_assert_cmpuint (data->key[c][i], ==, data->key[c][j]);
          g_assert_cmpstr (bpw_timeline_data_name (data, e->name), ==,
                           bpw_timeline_data_name (data, data->events[j].name));
          longest = MAX (longest, data->end[i]);
          checked++;
        }
    }
  g_assert_cmpuint (measured_lanes, ==, 2);
  g_assert_cmpuint (checked, ==, m.profile->items->len);
  g_assert_cmpfloat (data->step_s, ==, MAX (m.sim->step_time_s, longest));
  bpw_plot_test_measured_clear (&m);
}

/* The real PyTorch run: extra work sits in the lane without lineage, in the colours of
 * the matched item before it; and the chart lays the measured lane out. */
static void
test_fixture (void)
{
  BpwMeasurementRun run;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwTimelineData) data = NULL;
  g_autoptr(BpwTimelinePlot) plot = NULL;
  const BpwTimelineLane *lane = NULL;
  BpwPlotStyle style;
  guint extra = 0, first = 0, n = 0;
  gboolean matched_before = FALSE;

  if (!bpw_plot_test_measured_fixture (&run))
    return;
  data = bpw_timeline_data_new_from_simulation (run.sim, NULL, "CPU", FALSE);
  g_assert_true (bpw_timeline_data_add_measured_lanes (data, run.profile, run.correlation,
                                                       &error));
  g_assert_no_error (error);
  assert_lane_order (data);
  assert_lanes_consistent (data);
  for (guint l = 0; l < data->lanes->len; l++)
    if (g_array_index (data->lanes, BpwTimelineLane, l).queue == BPW_TIMELINE_QUEUE_MEASURED)
      lane = &g_array_index (data->lanes, BpwTimelineLane, l);
  g_assert_nonnull (lane);
  bpw_profile_device_items (run.profile, g_array_index (run.correlation->pairs,
                                                        BpwCorrelationPair, 0).device,
                            &first, &n);
  g_assert_cmpuint (lane->n, ==, n);
  /* The measured step is the device's span: first item start to last item end. */
  g_assert_cmpfloat_with_epsilon (data->step_s,
                                  g_array_index (run.correlation->pairs, BpwCorrelationPair,
                                                 0).measured_span_s, 1e-12);
  for (guint32 i = lane->first; i < lane->first + lane->n; i++)
    {
      guint item = first + (i - lane->first);
      gint32 row = run.correlation->item_row[item];
      gboolean is_extra = row >= 0 && bpw_correlation_row (run.correlation, row)->status
                                      == BPW_ROW_EXTRA;

      if (!is_extra)
        {
          matched_before |= data->events[i].lineage != BPW_TIMELINE_NONE;
          continue;
        }
      extra++;
      g_assert_cmpuint (data->events[i].lineage, ==, BPW_TIMELINE_NONE);
      if (matched_before)
        for (guint c = 0; c < BPW_TIMELINE_N_COLORINGS; c++)
          g_assert_cmpuint (data->key[c][i], ==, data->key[c][i - 1]);
    }
  g_assert_cmpuint (extra, >, 0);

  plot = bpw_timeline_plot_new (g_steal_pointer (&data));
  bpw_plot_style_init_print (&style);
  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 1200, 700);
  g_assert_true (bpw_plot_is_laid_out (BPW_PLOT (plot)));
  bpw_measurement_run_clear (&run);
}

static void
test_wrong_profile (void)
{
  BpwMeasurementRun run;
  BpwPlotTestMeasured m;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwTimelineData) data = NULL;

  if (!bpw_plot_test_measured_fixture (&run))
    return;
  bpw_plot_test_measured_init (&m, 1, FACTOR);
  data = bpw_timeline_data_new_from_simulation (m.sim, NULL, "A100", FALSE);
  g_assert_false (bpw_timeline_data_add_measured_lanes (data, run.profile, m.corr, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  bpw_plot_test_measured_clear (&m);
  bpw_measurement_run_clear (&run);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/plot/TimelineData/measured-lanes-at-scaled-times", test_scaled);
  g_test_add_func ("/bpw/plot/TimelineData/measured-extra-work", test_fixture);
  g_test_add_func ("/bpw/plot/TimelineData/measured-wrong-profile", test_wrong_profile);
  return g_test_run ();
}
