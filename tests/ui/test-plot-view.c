/* test-plot-view.c — the Roofline page draws the Sheet's plan; hover and export work
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-plot-view"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-assignment-plot.h"
#include "bpw-roofline-plot.h"
#include "bpw-ui-test-util.h"

static BpwPlotView *
show_roofline_page (BpwWindow *window)
{
  AdwViewStack *stack = ADW_VIEW_STACK (bpw_test_find_widget (GTK_WIDGET (window),
                                                             ADW_TYPE_VIEW_STACK));
  BpwPlotView *view;

  adw_view_stack_set_visible_child_name (stack, "roofline");
  view = BPW_PLOT_VIEW (bpw_test_find_widget (adw_view_stack_get_visible_child (stack),
                                              BPW_TYPE_PLOT_VIEW));
  bpw_test_wait_for_frame (GTK_WIDGET (view));
  return view;
}

/* The default study's first candidate and scenario: the page shows the roofline of that
 * plan, bound here again on its own, with one dot for each of its points. */
static void
test_plot_view_roofline (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  g_autoptr(BpwRooflineData) expected = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const BpwRooflineData *shown;
  const BpwRooflineMark *marks;
  const BpwRooflinePoint *p;
  BpwCandidateRun run;
  BpwPlotView *view;
  BpwPlotHit hit;
  guint n_marks, counted = 0;

  bpw_test_wait_sheet (sheet);
  view = show_roofline_page (window);
  g_assert_true (BPW_IS_ROOFLINE_PLOT (bpw_plot_view_get_plot (view)));

  g_assert_true (bpw_candidate_run_init (&run, study, 0, 0, &error));
  g_assert_no_error (error);
  plan = bpw_candidate_run_bind (&run, &error);
  g_assert_no_error (error);
  bpw_candidate_run_clear (&run);
  expected = bpw_roofline_data_new_from_plan (plan, -1, NULL, &error);
  g_assert_no_error (error);

  shown = bpw_roofline_plot_get_data (BPW_ROOFLINE_PLOT (bpw_plot_view_get_plot (view)));
  g_assert_cmpuint (shown->points->len, >, 0);
  g_assert_cmpuint (shown->points->len, ==, expected->points->len);
  g_assert_cmpuint (shown->ceilings->len, ==, expected->ceilings->len);
  g_assert_cmpstr (shown->label, ==, bpw_study_get_candidate (study, 0)->name);

  /* Every point is drawn, as a dot of its own or merged into one. */
  marks = bpw_roofline_plot_get_marks (BPW_ROOFLINE_PLOT (bpw_plot_view_get_plot (view)),
                                       &n_marks);
  g_assert_cmpuint (n_marks, >, 0);
  for (guint i = 0; i < n_marks; i++)
    counted += marks[i].count;
  g_assert_cmpuint (counted, ==, shown->points->len);

  /* The topmost dot (drawn last) is what hovering its centre finds and describes. */
  g_assert_true (bpw_plot_view_hit (view, marks[n_marks - 1].x, marks[n_marks - 1].y, &hit));
  g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_ITEM);
  p = &g_array_index (shown->points, BpwRooflinePoint, marks[n_marks - 1].point);
  g_assert_cmpuint (hit.lineage, ==, p->lineage);
  text = bpw_plot_view_describe_at (view, marks[n_marks - 1].x, marks[n_marks - 1].y);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, p->name));

  /* A corner of the widget is outside the axes: nothing there. */
  g_assert_false (bpw_plot_view_hit (view, 0.5, 0.5, &hit));
  g_assert_cmpint (hit.index, ==, -1);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Zooming in about a point keeps the dot under it there and spreads the others apart. */
static void
test_plot_view_zoom (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwPlotView *view;
  BpwRooflinePlot *plot;
  const BpwRooflineMark *marks;
  BpwRooflineMark a, b;
  BpwPlotHit hit;
  guint n_marks, found = 0;

  bpw_test_wait_sheet (bpw_window_get_sheet_page (window));
  view = show_roofline_page (window);
  plot = BPW_ROOFLINE_PLOT (bpw_plot_view_get_plot (view));
  bpw_plot_view_hit (view, 0, 0, &hit);  /* lays out */
  marks = bpw_roofline_plot_get_marks (plot, &n_marks);
  g_assert_cmpuint (n_marks, >=, 2);
  a = marks[0];
  b = marks[n_marks - 1];

  bpw_plot_view_zoom (view, 2.0, a.x, a.y);
  bpw_plot_view_hit (view, 0, 0, &hit);
  marks = bpw_roofline_plot_get_marks (plot, &n_marks);
  for (guint i = 0; i < n_marks; i++)
    if (marks[i].point == a.point && marks[i].baseline == a.baseline)
      {
        found++;
        g_assert_cmpfloat (fabs (marks[i].x - a.x), <, 1.0);
        g_assert_cmpfloat (fabs (marks[i].y - a.y), <, 1.0);
      }
    else if (marks[i].point == b.point && marks[i].baseline == b.baseline)
      {
        found++;
        /* Distances from the fixed point double on both log axes. */
        g_assert_cmpfloat (fabs ((marks[i].x - a.x) - 2 * (b.x - a.x)), <, 1.0);
        g_assert_cmpfloat (fabs ((marks[i].y - a.y) - 2 * (b.y - a.y)), <, 1.0);
      }

  g_assert_cmpuint (found, ==, 2);

  bpw_plot_view_reset_zoom (view);
  bpw_plot_view_hit (view, 0, 0, &hit);
  marks = bpw_roofline_plot_get_marks (plot, &n_marks);
  g_assert_cmpfloat (fabs (marks[0].x - a.x), <, 1e-6);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
check_export (BpwPlotView *view,
              const char  *dir,
              const char  *name,
              const char  *magic,
              const char  *magic2)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  g_assert_true (bpw_plot_view_export_to_file (view, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_cmpuint (length, >, strlen (magic));
  g_assert_true (memcmp (contents, magic, strlen (magic)) == 0
                 || (magic2 != NULL && memcmp (contents, magic2, strlen (magic2)) == 0));
}

static void
test_plot_view_export (void)
{
  BpwWindow *window = bpw_test_open_default ();
  g_autofree char *dir = g_dir_make_tmp ("bpw-plot-view-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "chart.txt", NULL);
  g_autoptr(GError) error = NULL;
  BpwPlotView *view;
  BpwPlotHit hit;
  guint serial;

  bpw_test_wait_sheet (bpw_window_get_sheet_page (window));
  view = show_roofline_page (window);
  bpw_plot_view_hit (view, 0, 0, &hit);
  serial = bpw_plot_get_layout_serial (bpw_plot_view_get_plot (view));

  check_export (view, dir, "roofline.png", "\x89PNG\r\n\x1a\n", NULL);
  check_export (view, dir, "roofline.svg", "<?xml", "<svg");
  check_export (view, dir, "roofline.pdf", "%PDF-", NULL);
  check_export (view, dir, "roofline.csv", "", NULL);
  /* The export laid the plot out at its own size; the view lays it out again. */
  g_assert_cmpuint (bpw_plot_get_layout_serial (bpw_plot_view_get_plot (view)), !=, serial);
  bpw_plot_view_hit (view, 0, 0, &hit);
  g_assert_cmpfloat (bpw_plot_get_area (BPW_PLOT (bpw_plot_view_get_plot (view)))->width, <=,
                     gtk_widget_get_width (GTK_WIDGET (view)));

  g_assert_false (bpw_plot_view_export_to_file (view, bad, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));

  /* The Engines chart beside it is the slowest stage of the same plan. */
  view = BPW_PLOT_VIEW (gtk_stack_get_child_by_name (
    GTK_STACK (gtk_widget_get_parent (GTK_WIDGET (view))), "assignment"));
  g_assert_nonnull (view);
  g_assert_true (BPW_IS_ASSIGNMENT_PLOT (bpw_plot_view_get_plot (view)));
  g_assert_cmpuint (bpw_assignment_plot_get_data (
                      BPW_ASSIGNMENT_PLOT (bpw_plot_view_get_plot (view)))->items->len, >, 0);
  check_export (view, dir, "assignment.png", "\x89PNG\r\n\x1a\n", NULL);

  bpw_test_remove_tree (dir);
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

  g_test_add_func ("/bpw/ui/PlotView/roofline", test_plot_view_roofline);
  g_test_add_func ("/bpw/ui/PlotView/zoom", test_plot_view_zoom);
  g_test_add_func ("/bpw/ui/PlotView/export", test_plot_view_export);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
