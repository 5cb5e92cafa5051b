/* test-timeline-page.c — the Timeline page: the simulated step, zoom and pan, area sums,
 * linked selection by lineage, and following the Sheet's candidate and edits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-timeline-page"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-assignment-plot.h"
#include "bpw-roofline-plot.h"
#include "bpw-chart-test-util.h"

static BpwTimelinePlot *
timeline_of (BpwPlotView *view)
{
  g_assert_true (BPW_IS_TIMELINE_PLOT (bpw_plot_view_get_plot (view)));
  return BPW_TIMELINE_PLOT (bpw_plot_view_get_plot (view));
}

/* The page shows every event of the simulated step, each counted by exactly one mark. */
static void
test_timeline_events (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", NULL, &view);
  BpwTimelinePlot *plot = timeline_of (view);
  const BpwTimelineData *data = bpw_timeline_plot_get_data (plot);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = bpw_test_simulate_shown (window, &plan);
  const BpwTimelineMark *marks;
  BpwTimelinePage *page;
  guint n_marks, n_tracks;
  guint64 counted = 0;
  double t0, t1;

  g_assert_cmpuint (data->n_events, >, 0);
  g_assert_cmpuint (data->n_events, ==, sim->events->len);
  g_assert_cmpuint (data->n_ranks, ==, sim->n_ranks);
  g_assert_cmpfloat (data->step_s, ==, sim->step_time_s);
  bpw_timeline_plot_get_time_range (plot, &t0, &t1);
  g_assert_cmpfloat (t0, ==, 0.0);
  g_assert_cmpfloat (t1, ==, sim->step_time_s);

  marks = bpw_timeline_plot_get_marks (plot, &n_marks);
  g_assert_cmpuint (n_marks, >, 0);
  for (guint i = 0; i < n_marks; i++)
    counted += marks[i].count;
  g_assert_cmpuint (counted, ==, data->n_events);
  bpw_timeline_plot_get_tracks (plot, &n_tracks);
  g_assert_cmpuint (n_tracks, >=, data->lanes->len);

  /* Beside it, the time in view (the whole step), summed by kind, bottleneck and phase. */
  page = BPW_TIMELINE_PAGE (bpw_test_find_widget (GTK_WIDGET (window), BPW_TYPE_TIMELINE_PAGE));
  g_assert_cmpuint (bpw_aggregate_table_get_n_rows (bpw_timeline_page_get_aggregate (page)), >,
                    2);
  g_assert_nonnull (strstr (bpw_aggregate_table_get_summary (
                              bpw_timeline_page_get_aggregate (page)), "events"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
assert_range (BpwTimelinePlot *plot,
              BpwPlotView     *view,
              double           t0,
              double           t1)
{
  BpwPlotHit hit;
  double a, b;

  bpw_plot_view_hit (view, 0, 0, &hit);
  bpw_timeline_plot_get_time_range (plot, &a, &b);
  g_assert_cmpfloat_with_epsilon (a, t0, (t1 - t0) * 1e-6);
  g_assert_cmpfloat_with_epsilon (b, t1, (t1 - t0) * 1e-6);
}

/* W, S, A, D and 0 through the page's actions: zoom about the centre by 1.25, pan by a
 * tenth of the width, stop at the step's ends, back to the whole step. */
static void
test_timeline_zoom (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", "llama3-70b-prefill", &view);
  BpwTimelinePlot *plot = timeline_of (view);
  GtkWidget *page = bpw_test_find_widget (GTK_WIDGET (window), BPW_TYPE_TIMELINE_PAGE);
  double step = bpw_timeline_plot_get_data (plot)->step_s, mid = step / 2, span = step / 1.25;

  g_assert_true (gtk_widget_activate_action (page, "timeline.zoom-in", NULL));
  g_assert_true (bpw_plot_view_get_zoomed (view));
  assert_range (plot, view, mid - span / 2, mid + span / 2);

  g_assert_true (gtk_widget_activate_action (page, "timeline.pan", "d", 0.1));
  assert_range (plot, view, mid - span / 2 + span / 10, mid + span / 2 + span / 10);
  /* Far to the left: the view stops at the start of the step, as wide as it was. */
  for (guint i = 0; i < 20; i++)
    gtk_widget_activate_action (page, "timeline.pan", "d", -0.1);
  assert_range (plot, view, 0, span);

  gtk_widget_activate_action (GTK_WIDGET (view), "plot.zoom-out", NULL);
  g_assert_false (bpw_plot_view_get_zoomed (view));
  assert_range (plot, view, 0, step);

  /* Zooming about a point keeps the time under it there. */
  {
    const BpwPlotRect *area = bpw_plot_get_area (BPW_PLOT (plot));
    double x = area->x + area->width / 4;
    double t = bpw_plot_unmap_x (BPW_PLOT (plot), x);
    const BpwPlotRect *zoomed;

    bpw_plot_view_zoom (view, 4.0, x, area->y + 1);
    assert_range (plot, view, t - (t - 0) / 4, t + (step - t) / 4);
    /* The time stays at the same fraction of the plot area; the area itself may move by
     * the width the tick labels take as the range changes. */
    zoomed = bpw_plot_get_area (BPW_PLOT (plot));
    g_assert_cmpfloat_with_epsilon ((bpw_plot_map_x (BPW_PLOT (plot), t) - zoomed->x)
                                    / zoomed->width, 0.25, 1e-6);
  }
  g_assert_true (gtk_widget_activate_action (page, "timeline.zoom-reset", NULL));
  assert_range (plot, view, 0, step);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* An area over every lane and the middle half of the step: the table sums exactly the
 * event time inside it, computed here from the events themselves. */
static void
test_timeline_area (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", "llama3-70b-prefill", &view);
  BpwTimelinePlot *plot = timeline_of (view);
  const BpwTimelineData *data = bpw_timeline_plot_get_data (plot);
  const BpwPlotRect *area = bpw_plot_get_area (BPW_PLOT (plot));
  BpwTimelinePage *page = BPW_TIMELINE_PAGE (bpw_test_find_widget (GTK_WIDGET (window),
                                                                   BPW_TYPE_TIMELINE_PAGE));
  BpwPlotRect rect = { area->x + area->width / 4, area->y, area->width / 2, area->height };
  g_autoptr(BpwTimelineAggregate) aggregate = NULL;
  g_autofree char *events = NULL;
  g_autofree char *count = NULL;
  double t0, t1, busy = 0;
  guint overlapping = 0;
  BpwPlotRect shown;

  bpw_plot_view_select_area (view, &rect);
  g_assert_true (bpw_plot_view_get_area (view, &shown));
  g_assert_cmpfloat_with_epsilon (shown.x, rect.x, 1e-6);

  t0 = bpw_plot_unmap_x (BPW_PLOT (plot), rect.x);
  t1 = bpw_plot_unmap_x (BPW_PLOT (plot), rect.x + rect.width);
  for (guint32 i = 0; i < data->n_events; i++)
    if (data->end[i] > t0 && data->start[i] < t1)
      {
        busy += MIN (data->end[i], t1) - MAX (data->start[i], t0);
        overlapping++;
      }
  aggregate = bpw_timeline_plot_aggregate_area (plot, &rect);
  g_assert_nonnull (aggregate);
  g_assert_cmpuint (aggregate->n_lanes, ==, data->lanes->len);
  g_assert_cmpuint (aggregate->events, ==, overlapping);
  g_assert_cmpfloat_with_epsilon (aggregate->busy_s, busy, busy * 1e-9);

  count = bpw_format_count (overlapping);
  events = g_strdup_printf ("%s events", count);
  g_assert_nonnull (strstr (bpw_aggregate_table_get_summary (
                              bpw_timeline_page_get_aggregate (page)), events));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A copy of a mark standing for one task on a matrix engine (selecting lays the plot out
 * again, which rebuilds its marks), and its centre. */
static gboolean
find_matrix_mark (BpwTimelinePlot *plot,
                  BpwTimelineMark *mark,
                  double          *x,
                  double          *y)
{
  const BpwTimelineData *data = bpw_timeline_plot_get_data (plot);
  const BpwTimelineTrack *tracks;
  const BpwTimelineMark *marks;
  guint n_tracks, n_marks;

  tracks = bpw_timeline_plot_get_tracks (plot, &n_tracks);
  marks = bpw_timeline_plot_get_marks (plot, &n_marks);
  for (guint i = 0; i < n_marks; i++)
    {
      const BpwTimelineTrack *t = &tracks[marks[i].track];
      const BpwTimelineLane *lane = &g_array_index (data->lanes, BpwTimelineLane, t->lane);

      if (t->kind == BPW_TIMELINE_TRACK_LANE && !lane->link && !marks[i].dense
          && marks[i].count == 1 && marks[i].x1 - marks[i].x0 >= 4
          && strcmp (lane->name, "matrix") == 0)
        {
          *x = (marks[i].x0 + marks[i].x1) / 2;
          *y = t->rect.y + t->rect.height / 2;
          *mark = marks[i];
          return TRUE;
        }
    }
  return FALSE;
}

static const BpwRooflinePoint *
selected_point (BpwWindow *window)
{
  BpwRooflinePlot *roofline = BPW_ROOFLINE_PLOT (bpw_sheet_page_get_roofline_plot (
                                                   bpw_window_get_sheet_page (window)));
  const GArray *points = bpw_roofline_plot_get_data (roofline)->points;
  guint32 lineage = bpw_plot_get_selected_lineage (BPW_PLOT (roofline));

  for (guint i = 0; lineage != BPW_PLOT_NO_LINEAGE && i < points->len; i++)
    if (g_array_index (points, BpwRooflinePoint, i).lineage == lineage)
      return &g_array_index (points, BpwRooflinePoint, i);
  return NULL;
}

/* Clicking an event selects its operation in the Sheet and on the roofline (the same
 * operation: its name and phase, in whichever block they list), and selecting a Sheet
 * row selects its events. */
static void
test_timeline_linked_selection (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", "llama3-70b-prefill", &view);
  BpwTimelinePlot *plot = timeline_of (view);
  const BpwTimelineData *data = bpw_timeline_plot_get_data (plot);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  BpwTimelineMark mark = { 0 };
  const BpwTimelineEvent *event;
  const BpwRooflinePoint *point;
  BpwSheetItem *item;
  GListModel *rows;
  double x = 0, y = 0, t0, t1;
  guint n_flows;

  /* Close enough to tell single kernels apart: 1/100 of the step shows a few layers (at
   * 1/500 the eager stack's unfused RMSNorm of 16 k tokens, about 2 ms, can fill the view). */
  bpw_plot_view_zoom (view, 100.0, bpw_plot_get_area (BPW_PLOT (plot))->x
                                   + bpw_plot_get_area (BPW_PLOT (plot))->width / 2, 0);
  bpw_plot_view_hit (view, 0, 0, &(BpwPlotHit) { 0 });
  g_assert_true (find_matrix_mark (plot, &mark, &x, &y));
  event = &data->events[mark.event];
  bpw_plot_view_select_at (view, x, y);
  g_assert_cmpuint (bpw_timeline_plot_get_selected (plot), ==, mark.event);
  g_assert_cmpuint (bpw_window_get_selected_lineage (window), ==, event->lineage);
  /* The plot draws its dependencies. */
  bpw_plot_view_hit (view, 0, 0, &(BpwPlotHit) { 0 });
  bpw_timeline_plot_get_flows (plot, &n_flows);
  g_assert_cmpuint (n_flows, >, 0);

  item = bpw_sheet_page_get_selected_item (sheet);
  g_assert_nonnull (item);
  g_assert_cmpstr (bpw_sheet_item_get_operation (item), ==,
                   bpw_timeline_data_name (data, event->name));
  g_assert_cmpint (bpw_sheet_item_get_phase (item), ==, data->key[BPW_TIMELINE_COLOR_PHASE]
                                                        [mark.event]);
  point = selected_point (window);
  g_assert_nonnull (point);
  g_assert_cmpstr (point->name, ==, bpw_timeline_data_name (data, event->name));

  /* The other way: a row of another operation (the last one listed). */
  rows = bpw_sheet_page_get_visible_rows (sheet);
  item = g_list_model_get_item (rows, g_list_model_get_n_items (rows) - 1);
  g_assert_true (bpw_sheet_page_select_item (sheet, item));
  g_assert_cmpuint (bpw_window_get_selected_lineage (window), ==,
                    bpw_sheet_item_get_lineage (item));
  g_assert_cmpuint (bpw_timeline_plot_get_selected (plot), !=, BPW_TIMELINE_NONE);
  g_assert_cmpuint (data->events[bpw_timeline_plot_get_selected (plot)].lineage, ==,
                    bpw_sheet_item_get_lineage (item));
  g_object_unref (item);
  /* The zoomed timeline panned to it (it may be longer than the view). */
  bpw_plot_view_hit (view, 0, 0, &(BpwPlotHit) { 0 });
  bpw_timeline_plot_get_time_range (plot, &t0, &t1);
  g_assert_cmpfloat (data->end[bpw_timeline_plot_get_selected (plot)], >, t0);
  g_assert_cmpfloat (data->start[bpw_timeline_plot_get_selected (plot)], <, t1);

  /* Clicking between the marks clears the selection everywhere. */
  bpw_plot_view_select_at (view, 1, 1);
  g_assert_cmpuint (bpw_window_get_selected_lineage (window), ==, BPW_PLOT_NO_LINEAGE);
  g_assert_cmpuint (bpw_timeline_plot_get_selected (plot), ==, BPW_TIMELINE_NONE);
  g_assert_null (bpw_sheet_page_get_selected_item (sheet));
  g_assert_null (selected_point (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Clicking a roofline dot selects its operation in the Sheet and on the timeline. */
static void
test_roofline_selects (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", "llama3-70b-prefill", &view);
  BpwTimelinePlot *plot = timeline_of (view);
  const BpwTimelineData *data = bpw_timeline_plot_get_data (plot);
  AdwViewStack *stack = bpw_window_get_view_stack (window);
  BpwPlotView *roofline;
  const BpwRooflineMark *marks;
  const BpwRooflinePoint *point;
  BpwRooflineMark mark;
  BpwSheetItem *item;
  guint n;

  adw_view_stack_set_visible_child_name (stack, "roofline");
  roofline = BPW_PLOT_VIEW (bpw_test_find_widget (adw_view_stack_get_visible_child (stack),
                                                  BPW_TYPE_PLOT_VIEW));
  bpw_test_wait_for_frame (GTK_WIDGET (roofline));
  bpw_plot_view_hit (roofline, 0, 0, &(BpwPlotHit) { 0 });
  marks = bpw_roofline_plot_get_marks (BPW_ROOFLINE_PLOT (bpw_plot_view_get_plot (roofline)),
                                       &n);
  g_assert_cmpuint (n, >, 0);
  mark = marks[n - 1];  /* drawn last: on top */
  bpw_plot_view_select_at (roofline, mark.x, mark.y);

  point = selected_point (window);
  g_assert_nonnull (point);
  g_assert_cmpuint (bpw_window_get_selected_lineage (window), ==, point->lineage);
  item = bpw_sheet_page_get_selected_item (bpw_window_get_sheet_page (window));
  g_assert_nonnull (item);
  g_assert_cmpstr (bpw_sheet_item_get_operation (item), ==, point->name);
  g_assert_cmpuint (bpw_timeline_plot_get_selected (plot), !=, BPW_TIMELINE_NONE);
  g_assert_cmpstr (bpw_timeline_data_name (data,
                                           data->events[bpw_timeline_plot_get_selected (plot)]
                                             .name), ==, point->name);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The page follows the Sheet's candidate and scenario, and simulates again after an edit
 * of its blueprint: the step it shows is always the one simulated here from the study. */
static void
test_timeline_follows (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", "llama3-70b-prefill", &view);
  BpwStudy *study = bpw_window_get_study (window);
  BpwSimulationJob *job = bpw_window_get_simulation_job (window);
  const BpwTimelineData *data;
  g_autoptr(BpwBlueprint) h100 = bpw_study_load_blueprint (study, "h100-sxm-80gb", NULL);
  g_autofree char *key = g_strdup_printf ("blueprint/memory[%d].bandwidth",
                                          bpw_blueprint_first_memory (h100, BPW_MEMORY_DEVICE));
  BpwValueRow *row;
  guint candidate = G_MAXUINT, decode = G_MAXUINT, runs = bpw_simulation_job_get_n_runs (job);
  double before;

  for (guint c = 0; c < bpw_study_get_n_candidates (study); c++)
    if (g_strcmp0 (bpw_study_get_candidate (study, c)->blueprint, "h100-sxm-80gb") == 0)
      candidate = c;
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &decode));
  g_assert_cmpuint (candidate, !=, G_MAXUINT);

  bpw_window_select (window, candidate, decode);
  bpw_test_wait (bpw_test_charts_pending, window);
  g_assert_cmpuint (bpw_simulation_job_get_n_runs (job), ==, runs + 1);
  data = bpw_timeline_plot_get_data (timeline_of (view));
  g_assert_cmpstr (data->label, ==, bpw_study_get_candidate (study, candidate)->name);
  {
    g_autoptr(BpwPlan) plan = NULL;
    g_autoptr(BpwSimulation) sim = bpw_test_simulate_shown (window, &plan);

    g_assert_cmpfloat (data->step_s, ==, sim->step_time_s);
  }
  before = data->step_s;

  /* More HBM bandwidth: decode streams the weights every token, so the step shortens. */
  row = BPW_VALUE_ROW (bpw_inspector_lookup_row (bpw_window_get_inspector (window), key));
  g_assert_nonnull (row);
  bpw_value_row_commit_text (row, "4.8 TB/s");
  bpw_test_wait (bpw_test_charts_pending, window);
  g_assert_cmpuint (bpw_simulation_job_get_n_runs (job), ==, runs + 2);
  data = bpw_timeline_plot_get_data (timeline_of (view));
  g_assert_cmpfloat (data->step_s, <, before);
  {
    g_autoptr(BpwPlan) plan = NULL;
    g_autoptr(BpwSimulation) sim = bpw_test_simulate_shown (window, &plan);

    g_assert_cmpfloat (data->step_s, ==, sim->step_time_s);
  }

  /* Undone, the same step as before, exactly. */
  g_assert_true (bpw_window_undo (window));
  bpw_test_wait (bpw_test_charts_pending, window);
  g_assert_cmpfloat (bpw_timeline_plot_get_data (timeline_of (view))->step_s, ==, before);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* For bpw_test_wait(), which waits while they hold. */
static gboolean
while_hidden (gpointer bar)
{
  return !gtk_widget_get_visible (bar);
}

static gboolean
while_shown (gpointer bar)
{
  return gtk_widget_get_visible (bar);
}

/* Sends @keyval to the key controllers of @widget, as a key press would, until one takes
 * it. */
static gboolean
press_key (GtkWidget *widget, guint keyval)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && !handled; i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_KEY (c))
        g_signal_emit_by_name (c, "key-pressed", keyval, 0, 0, &handled);
    }
  return handled;
}

/* Rows thinner than the page allows scroll instead of shrinking: the bar appears, moves
 * the rows shown, follows Page Down, and hides again when every row fits. */
static void
test_timeline_scrolls_rows (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("timeline", NULL, &view);
  BpwTimelinePlot *plot = timeline_of (view);
  /* Beside the chart (the empty state's scrolled window has scroll bars too). */
  GtkWidget *bar = gtk_widget_get_next_sibling (GTK_WIDGET (view));
  GtkAdjustment *rows;
  double first, shown, total, moved;
  BpwPlotHit hit;

  g_assert_true (GTK_IS_SCROLLBAR (bar));
  rows = gtk_scrollbar_get_adjustment (GTK_SCROLLBAR (bar));
  /* The default study's eight stages fit the window. */
  bpw_plot_view_hit (view, 0, 0, &hit);
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (shown, ==, total);
  bpw_test_wait (while_shown, bar);

  /* Rows of at least 40 px do not. (The hit lays the chart out as a frame would.) */
  bpw_timeline_plot_set_min_row_height (plot, 40);
  bpw_plot_view_hit (view, 0, 0, &hit);
  bpw_test_wait (while_hidden, bar);
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (first, ==, 0);
  g_assert_cmpfloat (shown, <, total);
  g_assert_cmpfloat (gtk_adjustment_get_upper (rows), ==, total);
  g_assert_cmpfloat (gtk_adjustment_get_page_size (rows), ==, shown);

  gtk_adjustment_set_value (rows, 10);
  bpw_plot_view_hit (view, 0, 0, &hit);
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (first, ==, 10);

  /* Page Down moves a window less one row. */
  moved = MIN (10 + MAX (shown - 1, 1), total - shown);
  g_assert_true (press_key (GTK_WIDGET (view), GDK_KEY_Page_Down));
  bpw_plot_view_hit (view, 0, 0, &hit);
  bpw_timeline_plot_get_row_window (plot, &first, NULL, NULL);
  g_assert_cmpfloat (first, ==, floor (moved));

  bpw_timeline_plot_set_min_row_height (plot, 8);
  bpw_plot_view_hit (view, 0, 0, &hit);
  bpw_test_wait (while_shown, bar);
  bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  g_assert_cmpfloat (shown, ==, total);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/TimelinePage/events", test_timeline_events);
  g_test_add_func ("/bpw/ui/TimelinePage/zoom", test_timeline_zoom);
  g_test_add_func ("/bpw/ui/TimelinePage/area", test_timeline_area);
  g_test_add_func ("/bpw/ui/TimelinePage/linked-selection", test_timeline_linked_selection);
  g_test_add_func ("/bpw/ui/TimelinePage/roofline-selects", test_roofline_selects);
  g_test_add_func ("/bpw/ui/TimelinePage/follows", test_timeline_follows);
  g_test_add_func ("/bpw/ui/TimelinePage/scrolls-rows", test_timeline_scrolls_rows);
  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
