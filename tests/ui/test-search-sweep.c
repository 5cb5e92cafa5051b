/* test-search-sweep.c — the search dialog's sweep of blueprint parameters, its results on
 * the Trade-offs and Compare pages (test-search-dialog.c has a plain search's result and
 * the choice of Calculon's space)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * BPW_TEST_HOLD=setup|sweep|sweep-devices|tradeoffs|compare|compare-table keeps the windows
 * open at that step (the main loop runs until the process is ended), so that
 * shared/tools/shot can take a picture of them.
 */
#define G_LOG_DOMAIN "bpw-test-search-sweep"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-added-button.h"
#include "bpw-compare-page.h"
#include "bpw-search-test-util.h"
#include "bpw-sweep-item.h"
#include "bpw-tradeoffs-page.h"
#include "bpw-ui-test-util.h"

/* The default study's H100 candidate on Llama 3 70B prefill (8 devices). */
#define CANDIDATE  1
#define PREFILL    1
#define SWEPT      "2 TB/s, 3.35 TB/s, 4.8 TB/s"

static void
hold_for_shot (const char *step)
{
  g_autoptr(GtkCssProvider) css = NULL;

  if (g_strcmp0 (g_getenv ("BPW_TEST_HOLD"), step) != 0)
    return;
  g_printerr ("# holding at %s for a screenshot\n", step);
  /* The application's style sheet, as the running workbench has it (GtkApplication loads
   * it there; tests have no application). */
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/io/github/bpw/Workbench/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  for (;;)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
tradeoffs_busy (gpointer data)
{
  return bpw_tradeoffs_page_get_busy (data);
}

/* The small space, with ZeRO 0: every replica holds the weights, as the Trade-offs
 * page's serving model has it (a weight-sharded serving plan has no KV cache room there). */
static void
small_limits (BpwSearchLimits *limits)
{
  bpw_search_test_small_limits (limits);
  limits->zero = 0;
}

static double
hbm_bandwidth (const BpwBlueprint *bp)
{
  return bp->memory[bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE)].bandwidth.value;
}

/* The same sweep, computed here from the study with the core alone: one thread. */
static BpwSweep *
expected_sweep (BpwStudy   *study,
                const char *param)
{
  const char *params[] = { param, NULL };
  g_autoptr(GError) error = NULL;
  BpwSearchLimits limits;
  BpwSearchOptions options;
  BpwCandidateRun run;
  BpwSweep *sweep;

  g_assert_true (bpw_candidate_run_init (&run, study, CANDIDATE, PREFILL, &error));
  g_assert_no_error (error);
  small_limits (&limits);
  sweep = bpw_sweep_new (&run.spec, &run.scenario, run.blueprint, &run.mapping,
                         bpw_parallel_devices (&bpw_study_get_scenario (study, PREFILL)->parallel),
                         &limits, params, &error);
  g_assert_no_error (error);
  bpw_search_options_init (&options);
  options.top_k = 1;
  options.threads = 1;
  options.simulate = FALSE;
  g_assert_true (bpw_sweep_run (sweep, &options, NULL, &error));
  g_assert_no_error (error);
  bpw_candidate_run_clear (&run);
  return sweep;
}

/* Rows refuse what does not parse, with the reason, and Start waits for them. */
static void
check_sweep_rows (BpwSearchDialog *dialog)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) params = NULL;
  const char *reason;

  g_assert_false (bpw_search_dialog_add_sweep_param (dialog, "flux", "1, 2"));
  g_assert_false (bpw_search_dialog_add_sweep_param (dialog, "link_bandwidth.warp", "1 TB/s"));
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "hbm_bandwidth", "2 TB/s, fast"));
  reason = bpw_search_dialog_get_sweep_error (dialog, "hbm_bandwidth");
  g_assert_nonnull (reason);
  g_assert_nonnull (strstr (reason, "fast"));
  g_assert_cmpuint (bpw_search_dialog_get_sweep_size (dialog), ==, 0);
  g_assert_false (bpw_search_dialog_start (dialog));
  params = bpw_search_dialog_dup_sweep_params (dialog, &error);
  g_assert_null (params);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  /* A bandwidth is not a size. */
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "hbm_bandwidth", "80 GiB"));
  g_assert_nonnull (bpw_search_dialog_get_sweep_error (dialog, "hbm_bandwidth"));

  /* The same row takes the good values: one row, three points. */
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "hbm_bandwidth", SWEPT));
  g_assert_null (bpw_search_dialog_get_sweep_error (dialog, "hbm_bandwidth"));
  g_assert_cmpuint (bpw_search_dialog_get_sweep_size (dialog), ==, 3);
  g_clear_pointer (&params, g_strfreev);
  params = bpw_search_dialog_dup_sweep_params (dialog, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (params), ==, 1);
  g_assert_true (g_str_has_prefix (params[0], "hbm_bandwidth="));
}

/* Each listed point is the core's own sweep of the same inputs, to the bit; its value is
 * @exact, shown as @shown. */
static void
check_points (BpwSearchDialog    *dialog,
              BpwSweep           *expected,
              const double       *exact,
              const char * const *shown)
{
  GListModel *points = bpw_search_dialog_get_sweep_points (dialog);
  BpwSweep *got = bpw_search_dialog_get_sweep (dialog);

  g_assert_nonnull (got);
  g_assert_cmpuint (bpw_sweep_get_n_points (got), ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (points), ==, bpw_sweep_get_n_points (expected));
  g_assert_cmpfloat (g_array_index (bpw_sweep_get_baseline (got)->best, BpwSearchResult,
                                    0).estimate.step_time_s, ==,
                     g_array_index (bpw_sweep_get_baseline (expected)->best, BpwSearchResult,
                                    0).estimate.step_time_s);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(BpwSweepItem) item = g_list_model_get_item (points, i);
      const BpwSweepPoint *e = bpw_sweep_get_point (expected, i);
      const BpwSearchResult *best = &g_array_index (e->report->best, BpwSearchResult, 0);
      g_autofree char *value = bpw_sweep_item_format_value (item, 0);
      double t[3], g[3];

      g_assert_cmpuint (bpw_sweep_item_get_index (item), ==, i);
      g_assert_cmpfloat (bpw_sweep_item_get_value (item, 0), ==, e->values[0]);
      g_assert_cmpfloat_with_epsilon (e->values[0], exact[i], 1e-3);
      g_assert_cmpstr (value, ==, shown[i]);
      g_assert_true (bpw_sweep_item_get_has_best (item));
      g_assert_cmpfloat (bpw_sweep_item_get_step_time (item), ==, best->estimate.step_time_s);
      bpw_search_test_assert_same_plan (&g_array_index (bpw_sweep_get_point (got, i)->report->best,
                                        BpwSearchResult, 0).mapping, &best->mapping);
      bpw_sweep_item_get_gains (item, &g[0], &g[1], &g[2]);
      bpw_sweep_get_gains (expected, i, &t[0], &t[1], &t[2]);
      for (guint k = 0; k < 3; k++)
        g_assert_true (g[k] == t[k] || (isnan (g[k]) && isnan (t[k])));
      g_assert_cmpint (bpw_sweep_item_get_pareto (item), ==, e->pareto);
      g_assert_cmpint (bpw_sweep_get_point (got, i)->devices, ==, e->devices);
      g_assert_true (bpw_blueprint_equal (bpw_sweep_get_point (got, i)->blueprint,
                                          e->blueprint));
    }
}

static void
run_sweep (BpwSearchDialog *dialog)
{
  g_assert_true (bpw_search_dialog_start (dialog));
  g_assert_true (bpw_search_dialog_get_running (dialog));
  g_assert_false (bpw_search_dialog_start (dialog));
  bpw_test_wait (bpw_search_test_running, dialog);
}

static guint
front_size (BpwSweep *sweep)
{
  guint n = 0;

  for (guint i = 0; i < bpw_sweep_get_n_points (sweep); i++)
    n += bpw_sweep_get_point (sweep, i)->pareto;
  return n;
}

/* The pages' snapshots hold the front's points: each runs the searched scenario with its
 * plan on its blueprint, and every other scenario as the H100 does. */
static void
check_worker (BpwStudyWorker *worker,
              BpwStudy       *study,
              BpwSweep       *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) copy = bpw_study_snapshot_load (bpw_study_worker_get_snapshot (worker),
                                                      &error);
  guint nc = bpw_study_get_n_candidates (study), k = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_worker_get_n_added (worker), ==, front_size (expected));
  g_assert_cmpuint (bpw_study_get_n_candidates (copy), ==, nc + front_size (expected));
  /* The added blueprints are copies under names of their own; the study's are as they
   * were. */
  g_assert_cmpuint (g_strv_length ((char **) bpw_study_get_blueprints (copy)), ==,
                    g_strv_length ((char **) bpw_study_get_blueprints (study))
                    + front_size (expected));
  for (guint i = 0; i < bpw_sweep_get_n_points (expected); i++)
    {
      const BpwSweepPoint *e = bpw_sweep_get_point (expected, i);
      const BpwAddedCandidate *added;
      BpwCandidateRun run, own;

      if (!e->pareto)
        continue;
      added = bpw_study_worker_get_added (worker, k);
      g_assert_true (g_str_has_prefix (added->name, "H100 SXM 80 GB · HBM "));
      g_assert_cmpstr (added->scenario, ==, "llama3-70b-prefill");
      g_assert_cmpstr (added->source, ==, "H100 SXM 80 GB");
      g_assert_cmpstr (bpw_study_get_candidate (copy, nc + k)->name, ==, added->name);

      g_assert_true (bpw_candidate_run_init (&run, copy, nc + k, PREFILL, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (hbm_bandwidth (run.blueprint), ==, e->values[0]);
      bpw_search_test_assert_same_plan (&run.mapping,
                        &g_array_index (e->report->best, BpwSearchResult, 0).mapping);
      bpw_candidate_run_clear (&run);
      for (guint s = 0; s < bpw_study_get_n_scenarios (study); s++)
        {
          if (s == PREFILL)
            continue;
          g_assert_true (bpw_candidate_run_init (&run, copy, nc + k, s, &error));
          g_assert_true (bpw_candidate_run_init (&own, study, CANDIDATE, s, &error));
          g_assert_no_error (error);
          bpw_search_test_assert_same_plan (&run.mapping, &own.mapping);
          bpw_candidate_run_clear (&run);
          bpw_candidate_run_clear (&own);
        }
      k++;
    }
}

static gboolean
rows_list (GListModel *rows,
           const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkStringObject) row = g_list_model_get_item (rows, i);

      if (g_strcmp0 (gtk_string_object_get_string (row), name) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
check_compare (BpwComparePage *page,
               BpwStudy       *study,
               BpwSweep       *expected)
{
  BpwStudyWorker *worker = bpw_compare_page_get_worker (page);
  guint nc = bpw_study_get_n_candidates (study), n = front_size (expected);
  const BpwCompareData *data;
  BpwAddedButton *clear;
  guint k = 0;

  bpw_test_wait (bpw_search_test_compare_busy, page);
  data = bpw_compare_page_get_data (page);
  g_assert_cmpuint (data->n_candidates, ==, nc + n);
  for (guint i = 0; i < bpw_sweep_get_n_points (expected); i++)
    {
      const BpwSweepPoint *e = bpw_sweep_get_point (expected, i);
      double t = g_array_index (e->report->best, BpwSearchResult, 0).estimate.step_time_s;
      const BpwCompareFit *fit;

      if (!e->pareto)
        continue;
      g_assert_cmpstr (data->candidates[nc + k], ==, bpw_study_worker_get_added (worker, k)->name);
      g_assert_true (rows_list (bpw_compare_page_get_rows (page), data->candidates[nc + k]));
      /* The page estimates the plan the sweep found on the point's blueprint. */
      fit = bpw_compare_data_cell (data, nc + k, PREFILL);
      g_assert_true (fit->ok && fit->legal);
      g_assert_cmpfloat_with_epsilon (fit->eval.step_time_s, t, 1e-9 * t);
      k++;
    }
  clear = BPW_ADDED_BUTTON (bpw_test_find_widget (GTK_WIDGET (page), BPW_TYPE_ADDED_BUTTON));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (clear)));
}

static void
check_tradeoffs (BpwWindow        *window,
                 BpwTradeoffsPage *page,
                 BpwStudy         *study,
                 BpwStudyWorker   *worker)
{
  guint nc = bpw_study_get_n_candidates (study), n = bpw_study_worker_get_n_added (worker);
  const BpwTradeData *data;

  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "tradeoffs");
  g_assert_true (bpw_tradeoffs_page_set_scenario (page, PREFILL));
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  bpw_test_wait (tradeoffs_busy, page);
  data = bpw_trade_plot_get_data (bpw_tradeoffs_page_get_plot (page));
  g_assert_cmpuint (data->series->len, ==, nc + n);
  for (guint k = 0; k < n; k++)
    {
      const BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, nc + k);

      g_assert_cmpstr (s->name, ==, bpw_study_worker_get_added (worker, k)->name);
      g_assert_null (s->error);
      g_assert_cmpuint (s->n, >=, 2);
    }
}

/* A sweep of HBM bandwidth through the dialog lists exactly the core's sweep of the same
 * inputs; "Show in Trade-offs and Compare" puts its front on both pages, where the
 * comparison estimates each point's plan and the trade curves serve it; "Clear Added"
 * takes them away again. The study never changes. */
static void
test_sweep (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  g_autofree char *before = bpw_study_to_json (study);
  g_autofree char *after = NULL;
  BpwSearchDialog *dialog = bpw_search_test_open (window, CANDIDATE, PREFILL);
  AdwViewStack *stack = bpw_window_get_view_stack (window);
  BpwTradeoffsPage *tradeoffs = BPW_TRADEOFFS_PAGE (adw_view_stack_get_child_by_name (stack,
                                                                                    "tradeoffs"));
  BpwComparePage *compare = BPW_COMPARE_PAGE (adw_view_stack_get_child_by_name (stack,
                                                                                "compare"));
  g_autoptr(BpwSweep) expected = expected_sweep (study, "hbm_bandwidth=2 TB/s,3.35 TB/s,"
                                                       "4.8 TB/s");
  const char * const shown[] = { "2 TB/s", "3.35 TB/s", "4.8 TB/s" };
  g_autoptr(GError) error = NULL;
  BpwSearchLimits limits;
  guint nc = bpw_study_get_n_candidates (study);

  small_limits (&limits);
  bpw_search_dialog_set_limits (dialog, &limits);
  bpw_search_dialog_set_threads (dialog, 2);
  check_sweep_rows (dialog);
  if (g_strcmp0 (g_getenv ("BPW_TEST_HOLD"), "setup") == 0)
    {
      /* The Sweep group is below the space's rows: its entry in view. */
      GtkWidget *entry = bpw_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
      GtkAdjustment *v;

      g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "link_bandwidth", "450 GB/s, x"));
      gtk_widget_grab_focus (entry);
      bpw_test_wait_for_frame (entry);
      v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (
            gtk_widget_get_ancestor (entry, GTK_TYPE_SCROLLED_WINDOW)));
      gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v));
      hold_for_shot ("setup");
    }
  run_sweep (dialog);
  check_points (dialog, expected, (double[]) { 2e12, 3.35e12, 4.8e12 }, shown);
  hold_for_shot ("sweep");

  g_assert_cmpuint (bpw_study_worker_get_n_added (bpw_compare_page_get_worker (compare)), ==, 0);
  g_assert_cmpuint (front_size (expected), >=, 1);
  g_assert_cmpuint (bpw_search_dialog_show_in_pages (dialog, &error), ==, front_size (expected));
  g_assert_no_error (error);
  /* Once: a second press would list the same points again. */
  g_assert_cmpuint (bpw_search_dialog_show_in_pages (dialog, &error), ==, 0);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  check_worker (bpw_compare_page_get_worker (compare), study, expected);
  check_worker (bpw_tradeoffs_page_get_worker (tradeoffs), study, expected);

  check_compare (compare, study, expected);
  check_tradeoffs (window, tradeoffs, study, bpw_tradeoffs_page_get_worker (tradeoffs));
  gtk_window_destroy (GTK_WINDOW (dialog));
  hold_for_shot ("tradeoffs");
  adw_view_stack_set_visible_child_name (stack, "compare");
  bpw_test_wait_for_frame (GTK_WIDGET (compare));
  hold_for_shot ("compare");
  if (g_strcmp0 (g_getenv ("BPW_TEST_HOLD"), "compare-table") == 0)
    {
      GtkWidget *table = bpw_test_find_widget (GTK_WIDGET (compare), GTK_TYPE_COLUMN_VIEW);

      gtk_stack_set_visible_child_name (GTK_STACK (gtk_widget_get_ancestor (table,
                                                                           GTK_TYPE_STACK)),
                                        "table");
      hold_for_shot ("compare-table");
    }

  /* Searching and showing changed nothing in the study. */
  after = bpw_study_to_json (study);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (bpw_window_get_modified (window));

  /* "Clear Added" on the Compare page takes its added candidates away. */
  g_signal_emit_by_name (bpw_test_find_widget (GTK_WIDGET (compare), BPW_TYPE_ADDED_BUTTON),
                         "clicked");
  g_assert_cmpuint (bpw_study_worker_get_n_added (bpw_compare_page_get_worker (compare)), ==, 0);
  bpw_test_wait (bpw_search_test_compare_busy, compare);
  g_assert_cmpuint (bpw_compare_page_get_data (compare)->n_candidates, ==, nc);
  g_assert_false (gtk_widget_get_visible (bpw_test_find_widget (GTK_WIDGET (compare),
                                                                BPW_TYPE_ADDED_BUTTON)));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A device count the baseline's plan cannot split (DP 8 of a batch of 8 at micro-batch 2)
 * leaves the gain's split unknown: the row says "total only", as the core does. */
static void
test_sweep_devices (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSearchDialog *dialog = bpw_search_test_open (window, CANDIDATE, PREFILL);
  g_autoptr(BpwSweep) expected = expected_sweep (study, "devices=4,8,16");
  const char * const shown[] = { "4", "8", "16" };
  GListModel *points;
  BpwSearchLimits limits;
  guint unknown = 0;

  small_limits (&limits);
  bpw_search_dialog_set_limits (dialog, &limits);
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "devices", "4, 8, 16"));
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "devices", "4, 8.5"));
  g_assert_nonnull (bpw_search_dialog_get_sweep_error (dialog, "devices"));
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "devices", "4, 8, 16"));
  run_sweep (dialog);
  check_points (dialog, expected, (double[]) { 4, 8, 16 }, shown);
  points = bpw_search_dialog_get_sweep_points (dialog);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(BpwSweepItem) item = g_list_model_get_item (points, i);
      g_autofree char *arch = bpw_sweep_item_format (item, BPW_SWEEP_COLUMN_ARCHITECTURE);
      g_autofree char *mapping = bpw_sweep_item_format (item, BPW_SWEEP_COLUMN_MAPPING);
      double a;

      bpw_sweep_get_gains (expected, i, NULL, &a, NULL);
      if (isnan (a))
        {
          g_assert_cmpstr (arch, ==, "total only");
          g_assert_cmpstr (mapping, ==, "total only");
          unknown++;
        }
      else
        {
          g_autofree char *gain = g_strdup_printf ("×%.2f", a);

          g_assert_cmpstr (arch, ==, gain);
        }
    }
  g_assert_cmpuint (unknown, >=, 1);
  hold_for_shot ("sweep-devices");

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Stopping a sweep of GPT-3 175B on 1024 devices (millions of plans a point) lists the
 * points it reached and says which it did not; closing the dialog stops a sweep too. */
static void
test_sweep_cancel (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSearchDialog *dialog = bpw_search_test_open (window, CANDIDATE, 0);
  GListModel *points = bpw_search_dialog_get_sweep_points (dialog);
  g_autoptr(BpwSweepItem) last = NULL;
  g_autofree char *legal = NULL;
  gboolean finalized = FALSE;

  bpw_search_dialog_set_threads (dialog, 1);
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "hbm_bandwidth", "2 TB/s, 4 TB/s"));
  g_assert_true (bpw_search_dialog_start (dialog));
  g_main_context_iteration (NULL, FALSE);
  bpw_search_dialog_cancel (dialog);
  bpw_test_wait (bpw_search_test_running, dialog);

  g_assert_nonnull (bpw_search_dialog_get_sweep (dialog));
  g_assert_cmpuint (g_list_model_get_n_items (points), ==, 2);
  last = g_list_model_get_item (points, 1);
  g_assert_false (bpw_sweep_item_get_searched (last));
  legal = bpw_sweep_item_format (last, BPW_SWEEP_COLUMN_LEGAL);
  g_assert_cmpstr (legal, ==, "Not searched");
  g_assert_false (bpw_window_get_modified (window));

  g_assert_true (bpw_search_dialog_start (dialog));
  bpw_search_test_watch_finalize (dialog, &finalized);
  gtk_window_destroy (GTK_WINDOW (dialog));
  bpw_test_wait (bpw_search_test_alive, &finalized);

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

  g_test_add_func ("/bpw/ui/SearchDialog/sweep", test_sweep);
  g_test_add_func ("/bpw/ui/SearchDialog/sweep-devices", test_sweep_devices);
  g_test_add_func ("/bpw/ui/SearchDialog/sweep-cancel", test_sweep_cancel);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
