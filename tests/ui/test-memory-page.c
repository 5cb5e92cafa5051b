/* test-memory-page.c — the Memory page: buffer lifetimes of the stage with the highest
 * peak, hover names the buffer, another stage from the kept simulation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-memory-page"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-chart-test-util.h"

/* The Memory page: the stage with the highest peak; hovering a buffer names it. */
static void
test_memory_page (void)
{
  BpwPlotView *view;
  BpwWindow *window = bpw_test_open_chart_page ("memory", NULL, &view);
  BpwLifetimesPlot *plot = BPW_LIFETIMES_PLOT (bpw_plot_view_get_plot (view));
  const BpwLifetimesData *data = bpw_lifetimes_plot_get_data (plot);
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = bpw_test_simulate_shown (window, &plan);
  const BpwLifetimeMark *marks;
  guint n_marks, highest = 0;

  for (guint32 r = 1; r < sim->n_ranks; r++)
    if (sim->memory[r].peak > sim->memory[highest].peak)
      highest = r;
  g_assert_cmpuint (data->rank, ==, highest);
  g_assert_cmpfloat (data->peak, ==, sim->memory[highest].peak);
  g_assert_cmpuint (data->buffers->len, >, 0);

  marks = bpw_lifetimes_plot_get_marks (plot, &n_marks);
  g_assert_cmpuint (n_marks, >, 0);
  for (guint i = 0; i < n_marks; i++)
    if (marks[i].count == 1 && marks[i].x1 - marks[i].x0 > 4 && marks[i].height > 2)
      {
        const BpwLifetimeBuffer *b = &g_array_index (data->buffers, BpwLifetimeBuffer,
                                                     marks[i].buffer);
        g_autofree char *text = bpw_plot_view_describe_at (view, (marks[i].x0 + marks[i].x1) / 2,
                                                           marks[i].y + marks[i].height / 2);

        g_assert_nonnull (text);
        g_assert_nonnull (strstr (text, bpw_lifetimes_data_name (data, b->name)));
        break;
      }

  /* The window's memory units reach the chart: GiB by default, GB once chosen. */
  {
    const BpwPlotRect *curve = bpw_lifetimes_plot_get_curve_area (plot);
    double x = curve->x + curve->width / 2, y = curve->y + curve->height - 1;
    g_autofree char *gib = bpw_plot_view_describe_at (view, x, y);
    g_autofree char *gb = NULL;

    g_assert_nonnull (gib);
    g_assert_nonnull (strstr (gib, " GiB"));
    g_object_set (window, "units", "gb", NULL);
    gb = bpw_plot_view_describe_at (view, x, y);
    g_assert_true (bpw_plot_get_style (BPW_PLOT (plot))->decimal_bytes);
    g_assert_nonnull (gb);
    g_assert_nonnull (strstr (gb, " GB"));
    g_assert_null (strstr (gb, "GiB"));
    g_object_set (window, "units", "gib", NULL);
  }

  /* Another stage, from the kept simulation. */
  bpw_simulation_job_set_lifetimes_stage (bpw_window_get_simulation_job (window),
                                          highest == 0 ? 1 : 0);
  data = bpw_lifetimes_plot_get_data (plot);
  g_assert_cmpuint (data->rank, ==, highest == 0 ? 1 : 0);
  g_assert_cmpfloat (data->peak, ==, sim->memory[data->rank].peak);
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

  g_test_add_func ("/bpw/ui/MemoryPage/lifetimes", test_memory_page);
  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
