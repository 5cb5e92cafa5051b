/* bpw-chart-test-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-chart-test-util"

#include "config.h"

#include "bpw-chart-test-util.h"

gboolean
bpw_test_charts_pending (gpointer data)
{
  BpwWindow *window = data;
  BpwSimulationJob *job = bpw_window_get_simulation_job (window);

  return bpw_window_get_edit_pending (window) || bpw_window_get_busy (window)
         || bpw_simulation_job_get_busy (job) || !bpw_simulation_job_get_has_result (job);
}

BpwWindow *
bpw_test_open_chart_page (const char   *page,
                          const char   *scenario,
                          BpwPlotView **view)
{
  BpwWindow *window = bpw_test_open_default ();
  AdwViewStack *stack = bpw_window_get_view_stack (window);
  guint s = 0;
  BpwPlotHit hit;

  bpw_test_wait_sheet (bpw_window_get_sheet_page (window));
  /* Chosen before the page shows: the job simulates only the step a page shows. */
  if (scenario != NULL)
    {
      g_assert_true (bpw_study_lookup_scenario (bpw_window_get_study (window), scenario, &s));
      bpw_window_select (window, 0, s);
      bpw_test_wait_sheet (bpw_window_get_sheet_page (window));
    }
  adw_view_stack_set_visible_child_name (stack, page);
  bpw_test_wait (bpw_test_charts_pending, window);
  *view = BPW_PLOT_VIEW (bpw_test_find_widget (adw_view_stack_get_visible_child (stack),
                                               BPW_TYPE_PLOT_VIEW));
  bpw_test_wait_for_frame (GTK_WIDGET (*view));
  bpw_plot_view_hit (*view, 0, 0, &hit);  /* lays out at the view's size */
  return window;
}

BpwSimulation *
bpw_test_simulate_shown (BpwWindow  *window,
                         BpwPlan   **plan)
{
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  g_autoptr(GError) error = NULL;
  BpwSimulation *sim;
  BpwCandidateRun run;

  g_assert_true (bpw_candidate_run_init (&run, bpw_window_get_study (window),
                                         bpw_sheet_page_get_candidate (sheet),
                                         bpw_sheet_page_get_scenario (sheet), &error));
  *plan = bpw_candidate_run_bind (&run, &error);
  g_assert_no_error (error);
  bpw_candidate_run_clear (&run);
  sim = bpw_simulation_new (*plan, NULL, &error);
  g_assert_no_error (error);
  return sim;
}
