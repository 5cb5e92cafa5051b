/* test-search-dialog.c — the search dialog finds the core's best plans, stops when told,
 * promotes a plan to a candidate as one undoable edit, shows one on the Trade-offs and
 * Compare pages, and fits a 1280-pixel window (Calculon's space and model:
 * test-search-dialog-calculon.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-search-dialog"

#include "config.h"

#include <string.h>

#include "bpw-compare-page.h"
#include "bpw-search-test-util.h"
#include "bpw-ui-test-util.h"

/* The default study's H100 candidate on Llama 3 70B prefill (8 devices). */
#define CANDIDATE 1
#define SCENARIO  1

static gboolean
window_pending (gpointer data)
{
  return bpw_window_get_edit_pending (data) || bpw_window_get_busy (data)
         || bpw_sheet_page_get_busy (bpw_window_get_sheet_page (data));
}

/* The brute force over the same space, computed here from the study: every plan
 * evaluated, no bound, one thread. */
static BpwSearchReport *
brute_force (BpwStudy              *study,
             const BpwSearchLimits *limits,
             guint                  top_k,
             guint64               *size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  BpwSearchReport *report;
  BpwSearchOptions options;
  BpwCandidateRun run;

  g_assert_true (bpw_candidate_run_init (&run, study, CANDIDATE, SCENARIO, &error));
  g_assert_no_error (error);
  space = bpw_search_space_new (&run.spec, &run.scenario, run.blueprint, &run.mapping,
                                bpw_parallel_devices (&bpw_study_get_scenario (study,
                                                                               SCENARIO)->parallel),
                                limits, &error);
  g_assert_no_error (error);
  bpw_search_options_init (&options);
  options.top_k = top_k;
  options.threads = 1;
  options.exhaustive = TRUE;
  options.reevaluate = FALSE;
  options.simulate = FALSE;
  report = bpw_search_run (space, &options, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  *size = bpw_search_space_size (space);
  bpw_candidate_run_clear (&run);
  return report;
}

/* Runs the small search in the dialog, two threads, to its end. */
static void
run_small_search (BpwSearchDialog *dialog,
                  guint            top_k)
{
  BpwSearchLimits limits, back;

  bpw_search_test_small_limits (&limits);
  bpw_search_dialog_set_limits (dialog, &limits);
  bpw_search_dialog_get_limits (dialog, &back);
  g_assert_cmpint (back.pp, ==, 1);
  g_assert_cmpint (back.tp, ==, 0);
  g_assert_cmpuint (back.fusion_sets, ==, limits.fusion_sets);
  g_assert_false (back.algorithms);
  bpw_search_dialog_set_threads (dialog, 2);
  bpw_search_dialog_set_top_k (dialog, top_k);
  g_assert_true (bpw_search_dialog_start (dialog));
  g_assert_true (bpw_search_dialog_get_running (dialog));
  bpw_test_wait (bpw_search_test_running, dialog);
  g_assert_nonnull (bpw_search_dialog_get_report (dialog));
}

/* The dialog's search of a restricted space finds exactly what the core's brute force
 * finds for that space: the same plans, in the same order, with the same step times. */
/* The results table: the column view with a column per search column. */
static GtkColumnView *
find_column_view (GtkWidget *root)
{
  if (GTK_IS_COLUMN_VIEW (root) &&
      g_list_model_get_n_items (gtk_column_view_get_columns (GTK_COLUMN_VIEW (root))) ==
      BPW_N_SEARCH_COLUMNS)
    return GTK_COLUMN_VIEW (root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkColumnView *found = find_column_view (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_search_best (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSearchDialog *dialog = bpw_search_test_open (window, CANDIDATE, SCENARIO);
  g_autoptr(BpwSearchReport) expected = NULL;
  const BpwSearchReport *got;
  GListModel *results;
  BpwSearchLimits limits;
  guint64 size;

  g_assert_cmpint (bpw_search_dialog_get_devices (dialog), ==, 8);
  bpw_search_test_small_limits (&limits);
  expected = brute_force (study, &limits, 4, &size);
  g_assert_cmpuint (expected->best->len, ==, 4);

  run_small_search (dialog, 4);
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, size);
  got = bpw_search_dialog_get_report (dialog);
  g_assert_false (got->cancelled);
  g_assert_cmpuint (got->space, ==, size);
  g_assert_cmpuint (got->evaluated, ==, size);
  g_assert_cmpuint (got->threads, ==, 2);
  g_assert_cmpuint (got->best->len, ==, expected->best->len);
  results = bpw_search_dialog_get_results (dialog);
  g_assert_cmpuint (g_list_model_get_n_items (results), ==, expected->best->len);
  for (guint i = 0; i < expected->best->len; i++)
    {
      const BpwSearchResult *e = &g_array_index (expected->best, BpwSearchResult, i);
      const BpwSearchResult *g = &g_array_index (got->best, BpwSearchResult, i);
      g_autoptr(BpwSearchItem) item = g_list_model_get_item (results, i);
      g_autofree char *rank = bpw_search_item_format (item, BPW_SEARCH_COLUMN_RANK,
                                                      BPW_BYTE_UNITS_BINARY);
      g_autofree char *tp = bpw_search_item_format (item, BPW_SEARCH_COLUMN_TP,
                                                    BPW_BYTE_UNITS_BINARY);
      g_autofree char *expected_tp = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                      e->mapping.parallel.tp);
      g_autofree char *expected_rank = g_strdup_printf ("%u", i + 1);

      g_assert_cmpuint (g->index, ==, e->index);
      g_assert_cmpfloat (g->estimate.step_time_s, ==, e->estimate.step_time_s);
      bpw_search_test_assert_same_plan (&g->mapping, &e->mapping);
      g_assert_cmpuint (bpw_search_item_get_index (item), ==, e->index);
      g_assert_cmpfloat (bpw_search_item_get_estimate (item)->step_time_s, ==,
                         e->estimate.step_time_s);
      g_assert_cmpint (bpw_search_item_get_mapping (item)->parallel.pp, ==, 1);
      g_assert_cmpstr (rank, ==, expected_rank);
      g_assert_cmpstr (tp, ==, expected_tp);
      /* The dialog simulates the best by default: the simulated step is a real one. */
      g_assert_true (bpw_search_item_get_simulated (item));
      g_assert_cmpfloat (bpw_search_item_get_evaluation (item)->step_time_s, >, 0.0);
    }
  /* Any heading sorts the table: by the simulated step, ascending and descending, each
   * plan once; the search's rank order is the store's whatever the view shows. */
  {
    GtkColumnView *view = find_column_view (GTK_WIDGET (dialog));
    g_autoptr(GtkColumnViewColumn) simulated = NULL;
    GListModel *shown;

    g_assert_nonnull (view);
    simulated = g_list_model_get_item (gtk_column_view_get_columns (view),
                                       BPW_SEARCH_COLUMN_SIMULATED);
    shown = G_LIST_MODEL (gtk_column_view_get_model (view));
    for (int direction = 0; direction < 2; direction++)
      {
        double previous = direction ? G_MAXDOUBLE : 0;

        gtk_column_view_sort_by_column (view, simulated, direction ? GTK_SORT_DESCENDING
                                                                   : GTK_SORT_ASCENDING);
        g_assert_cmpuint (g_list_model_get_n_items (shown), ==, expected->best->len);
        for (guint i = 0; i < g_list_model_get_n_items (shown); i++)
          {
            g_autoptr(BpwSearchItem) item = g_list_model_get_item (shown, i);
            double t = bpw_search_item_get_evaluation (item)->step_time_s;

            g_assert_cmpfloat (direction ? t : previous, <=, direction ? previous : t);
            previous = t;
          }
      }
    gtk_column_view_sort_by_column (view, NULL, GTK_SORT_ASCENDING);
    for (guint i = 0; i < g_list_model_get_n_items (shown); i++)
      {
        g_autoptr(BpwSearchItem) item = g_list_model_get_item (shown, i);

        g_assert_cmpuint (bpw_search_item_get_rank (item), ==, i + 1);
      }
  }

  /* Nothing was added to the study by searching. */
  g_assert_false (bpw_window_get_modified (window));

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Stopping a search of GPT-3 175B on 1024 devices (millions of plans) reports what was
 * decided so far and leaves the study exactly as it was; closing the dialog in the middle
 * of a search stops it too. */
static void
test_search_cancel (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  g_autofree char *before = bpw_study_to_json (study);
  g_autofree char *after = NULL;
  BpwSearchDialog *dialog = bpw_search_test_open (window, 0, 0);
  const BpwSearchReport *report;
  gboolean finalized = FALSE;

  g_assert_cmpint (bpw_search_dialog_get_devices (dialog), ==, 1024);
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), >, 1000000);
  bpw_search_dialog_set_threads (dialog, 1);
  /* What it found is listed at once, without binding and simulating it first. */
  bpw_search_dialog_set_simulate (dialog, FALSE);
  g_assert_true (bpw_search_dialog_start (dialog));
  /* One search at a time. */
  g_assert_false (bpw_search_dialog_start (dialog));
  g_main_context_iteration (NULL, FALSE);
  bpw_search_dialog_cancel (dialog);
  bpw_test_wait (bpw_search_test_running, dialog);

  report = bpw_search_dialog_get_report (dialog);
  g_assert_nonnull (report);
  g_assert_true (report->cancelled);
  g_assert_cmpuint (report->evaluated, <, report->space);
  g_assert_cmpuint (report->space, ==, bpw_search_dialog_get_space_size (dialog));
  after = bpw_study_to_json (study);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (bpw_window_get_modified (window));
  g_assert_false (bpw_window_get_can_undo (window));
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 4);

  /* Closed while it runs: the worker stops and lets the dialog go. */
  g_assert_true (bpw_search_dialog_start (dialog));
  bpw_search_test_watch_finalize (dialog, &finalized);
  gtk_window_destroy (GTK_WINDOW (dialog));
  bpw_test_wait (bpw_search_test_alive, &finalized);
  g_assert_false (bpw_window_get_modified (window));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The search dialog @window's Search Mappings action presents. */
static BpwSearchDialog *
find_search_dialog (BpwWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* borrowed */
  BpwSearchDialog *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (BPW_IS_SEARCH_DIALOG (toplevel)
          && gtk_window_get_transient_for (toplevel) == GTK_WINDOW (window))
        {
          g_assert_null (found);  /* one at a time */
          found = BPW_SEARCH_DIALOG (toplevel);
        }
    }
  return found;
}

/* The dialog does not block the window: it is not modal, Ctrl+Shift+F brings the open one
 * back; a study opened in its place and closing the window each stop the search and let
 * the dialog go. */
static void
test_search_not_modal (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSearchDialog *dialog;
  gboolean finalized = FALSE;
  g_autoptr(GError) error = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL));
  dialog = find_search_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_false (gtk_window_get_modal (GTK_WINDOW (dialog)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL));
  g_assert_true (find_search_dialog (window) == dialog);

  /* Another study in the window: the search of the one before goes. */
  bpw_search_dialog_set_threads (dialog, 1);
  bpw_search_dialog_set_simulate (dialog, FALSE);
  g_assert_true (bpw_search_dialog_start (dialog));
  bpw_search_test_watch_finalize (dialog, &finalized);
  g_assert_true (bpw_window_open_bundled (window, "default", &error));
  g_assert_no_error (error);
  bpw_test_wait (bpw_search_test_alive, &finalized);
  g_assert_null (find_search_dialog (window));

  /* Closing the window in the middle of a search stops it. */
  bpw_test_wait (window_pending, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL));
  dialog = find_search_dialog (window);
  bpw_search_dialog_set_threads (dialog, 1);
  bpw_search_dialog_set_simulate (dialog, FALSE);
  g_assert_true (bpw_search_dialog_start (dialog));
  finalized = FALSE;
  bpw_search_test_watch_finalize (dialog, &finalized);
  gtk_window_destroy (GTK_WINDOW (window));
  bpw_test_wait (bpw_search_test_alive, &finalized);
}

/* "Promote to Candidate" adds the selected plan as a candidate that runs the searched
 * scenario with that plan and every other scenario as the searched candidate does; the
 * sidebar and the Overview show it; undo removes it and the study is as it was. */
static void
test_search_promote (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  g_autofree char *before = bpw_study_to_json (study);
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  BpwSearchDialog *dialog = bpw_search_test_open (window, CANDIDATE, SCENARIO);
  g_autoptr(BpwSearchItem) second = NULL;
  g_autoptr(BpwOverviewItem) overview = NULL;
  const BpwStudyCandidate *added;
  const char *source_name = bpw_study_get_candidate (study, CANDIDATE)->name;
  g_autofree char *source_name_copy = g_strdup (source_name);
  BpwCandidateRun run, source_run;
  GListModel *sidebar;
  gboolean listed = FALSE;
  guint n = bpw_study_get_n_candidates (study);

  run_small_search (dialog, 3);
  /* Not the first plan: promotion takes the selected one. */
  second = g_list_model_get_item (bpw_search_dialog_get_results (dialog), 1);
  bpw_search_dialog_select_result (dialog, 1);
  g_assert_true (bpw_search_dialog_get_selected_result (dialog) == second);
  g_assert_cmpstr (bpw_search_dialog_get_blueprint (dialog)->name, ==, "h100-sxm-80gb");
  g_assert_true (bpw_search_dialog_promote (dialog, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n + 1);
  added = bpw_study_get_candidate (study, n);
  g_assert_true (g_str_has_prefix (added->name, source_name_copy));
  g_assert_cmpstr (added->blueprint, ==, bpw_study_get_candidate (study, CANDIDATE)->blueprint);
  g_assert_true (bpw_window_get_modified (window));
  g_assert_true (bpw_window_get_can_undo (window));
  g_assert_cmpuint (bpw_window_get_selected_candidate (window), ==, n);
  g_assert_cmpuint (bpw_window_get_selected_scenario (window), ==, SCENARIO);

  /* It runs the searched scenario with the promoted plan ... */
  g_assert_true (bpw_candidate_run_init (&run, study, n, SCENARIO, &error));
  g_assert_no_error (error);
  bpw_search_test_assert_same_plan (&run.mapping, bpw_search_item_get_mapping (second));
  bpw_candidate_run_clear (&run);
  /* ... and the other scenarios as the candidate it came from. */
  g_assert_true (bpw_candidate_run_init (&run, study, n, 0, &error));
  g_assert_true (bpw_candidate_run_init (&source_run, study, CANDIDATE, 0, &error));
  g_assert_no_error (error);
  bpw_search_test_assert_same_plan (&run.mapping, &source_run.mapping);
  bpw_candidate_run_clear (&run);
  bpw_candidate_run_clear (&source_run);

  /* The sidebar lists it and the Overview evaluates it: the plan's own step time. */
  bpw_test_wait (window_pending, window);
  sidebar = bpw_sidebar_get_items (bpw_window_get_sidebar (window));
  for (guint i = 0; i < g_list_model_get_n_items (sidebar); i++)
    {
      g_autoptr(BpwSidebarItem) item = g_list_model_get_item (sidebar, i);

      listed |= g_strcmp0 (bpw_sidebar_item_get_title (item), added->name) == 0;
    }
  g_assert_true (listed);
  overview = g_list_model_get_item (bpw_window_get_overview_items (window),
                                    n * bpw_study_get_n_scenarios (study) + SCENARIO);
  g_assert_cmpstr (bpw_overview_item_get_candidate (overview), ==, added->name);
  g_assert_true (bpw_overview_item_get_evaluation (overview)->legal);
  g_assert_cmpfloat_with_epsilon (bpw_overview_item_get_evaluation (overview)->step_time_s,
                                  bpw_search_item_get_estimate (second)->step_time_s,
                                  1e-9 * bpw_search_item_get_estimate (second)->step_time_s);

  /* Undo removes it; the study is the one before, unmodified; redo brings it back. */
  g_assert_true (bpw_window_undo (window));
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n);
  after = bpw_study_to_json (study);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (bpw_window_get_modified (window));
  g_assert_cmpuint (bpw_window_get_selected_candidate (window), <, n);
  bpw_test_wait (window_pending, window);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_overview_items (window)), ==,
                    n * bpw_study_get_n_scenarios (study));
  g_assert_true (bpw_window_redo (window));
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n + 1);
  g_assert_true (bpw_window_undo (window));
  bpw_test_wait (window_pending, window);

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Without a candidate and a scenario there is nothing to search: the dialog says so. */
static void
test_search_unavailable (void)
{
  BpwWindow *window = bpw_window_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  BpwSearchDialog *dialog;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_bundled (window, NULL, &error));
  g_assert_no_error (error);
  dialog = bpw_search_dialog_new (GTK_WINDOW (window), bpw_window_get_study (window),
                                  bpw_window_get_selected_candidate (window),
                                  bpw_window_get_selected_scenario (window));
  g_assert_cmpuint (bpw_search_dialog_get_candidate (dialog), ==, G_MAXUINT);
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, 0);
  g_assert_false (bpw_search_dialog_start (dialog));
  g_assert_false (bpw_search_dialog_promote (dialog, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A plan of a plain search is shown too: its own name, its plan on the searched scenario. */
static void
test_show_result (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSearchDialog *dialog = bpw_search_test_open (window, CANDIDATE, SCENARIO);
  AdwViewStack *stack = bpw_window_get_view_stack (window);
  BpwComparePage *compare = BPW_COMPARE_PAGE (adw_view_stack_get_child_by_name (stack,
                                                                                "compare"));
  BpwStudyWorker *worker = bpw_compare_page_get_worker (compare);
  g_autoptr(GError) error = NULL;
  BpwSearchItem *item;
  BpwSearchLimits limits;
  const BpwAddedCandidate *added;
  const BpwCompareData *data;
  guint nc = bpw_study_get_n_candidates (bpw_window_get_study (window));
  double t;

  bpw_search_test_small_limits (&limits);
  bpw_search_dialog_set_limits (dialog, &limits);
  bpw_search_dialog_set_simulate (dialog, FALSE);
  bpw_search_dialog_set_top_k (dialog, 2);
  g_assert_true (bpw_search_dialog_start (dialog));
  bpw_test_wait (bpw_search_test_running, dialog);
  item = bpw_search_dialog_get_selected_result (dialog);
  g_assert_nonnull (item);
  g_assert_cmpuint (bpw_search_dialog_show_in_pages (dialog, &error), ==, 1);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_worker_get_n_added (worker), ==, 1);
  added = bpw_study_worker_get_added (worker, 0);
  g_assert_true (g_str_has_prefix (added->name, "H100 SXM 80 GB · best TP"));
  g_assert_true (bpw_blueprint_equal (added->blueprint, bpw_search_dialog_get_blueprint (dialog)));
  /* The second plan is another candidate. */
  bpw_search_dialog_select_result (dialog, 1);
  g_assert_cmpuint (bpw_search_dialog_show_in_pages (dialog, &error), ==, 1);
  g_assert_true (g_str_has_prefix (bpw_study_worker_get_added (worker, 1)->name,
                                   "H100 SXM 80 GB · #2 TP"));
  bpw_test_wait (bpw_search_test_compare_busy, compare);
  data = bpw_compare_page_get_data (compare);
  g_assert_cmpuint (data->n_candidates, ==, nc + 2);
  /* The searched scenario runs the plan found; the others run as the H100 does. */
  t = bpw_search_item_get_estimate (item)->step_time_s;
  g_assert_cmpfloat_with_epsilon (bpw_compare_data_cell (data, nc, SCENARIO)->eval.step_time_s,
                                  t, 1e-9 * t);
  for (guint s = 0; s < data->n_scenarios; s++)
    if (s != SCENARIO)
      g_assert_cmpfloat (bpw_compare_data_cell (data, nc, s)->eval.step_time_s, ==,
                         bpw_compare_data_cell (data, CANDIDATE, s)->eval.step_time_s);

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
stack_sliding (gpointer stack)
{
  return gtk_stack_get_transition_running (stack);
}

/* In a window 1280 pixels wide, the dialog and its results fit: no page asks for more
 * width than the dialog is given, the results table ends inside it, and the columns it
 * cannot show are a visible scroll bar away, not cut off at the edge. */
static void
test_search_fits_1280 (void)
{
  BpwWindow *window = bpw_window_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  BpwSearchDialog *dialog;
  GtkWidget *content, *stack, *table;
  graphene_rect_t bounds;
  int minimum = 0, natural = 0, width;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_bundled (window, "default", &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 1280);
  dialog = bpw_search_test_open (window, CANDIDATE, SCENARIO);
  run_small_search (dialog, 4);
  stack = bpw_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_STACK);
  bpw_test_wait (stack_sliding, stack);
  for (int i = 0; i < 3; i++)
    bpw_test_wait_for_frame (GTK_WIDGET (dialog));

  width = gtk_widget_get_width (GTK_WIDGET (dialog));
  g_assert_cmpint (width, <=, gtk_widget_get_width (GTK_WIDGET (window)) - 48);
  content = adw_window_get_content (ADW_WINDOW (dialog));
  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
  g_test_message ("search dialog: %d px wide, content needs at least %d", width, minimum);
  g_assert_cmpint (minimum, <=, width);
  table = gtk_widget_get_parent (GTK_WIDGET (find_column_view (GTK_WIDGET (dialog))));
  g_assert_true (gtk_widget_get_mapped (table));
  g_assert_true (gtk_widget_compute_bounds (table, GTK_WIDGET (dialog), &bounds));
  g_assert_cmpfloat (bounds.origin.x, >=, 0);
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, width);
  {
    GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (table));
    GtkWidget *bar = gtk_scrolled_window_get_hscrollbar (GTK_SCROLLED_WINDOW (table));

    g_test_message ("results: %g px of columns in %g px", gtk_adjustment_get_upper (h),
                    gtk_adjustment_get_page_size (h));
    g_assert_cmpfloat (gtk_adjustment_get_upper (h), >, gtk_adjustment_get_page_size (h));
    g_assert_false (gtk_scrolled_window_get_overlay_scrolling (GTK_SCROLLED_WINDOW (table)));
    g_assert_true (gtk_widget_get_mapped (bar));
    g_assert_cmpint (gtk_widget_get_height (bar), >, 0);
  }

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The preferences row of @root titled @title, or NULL. */
static GtkWidget *
find_row_titled (GtkWidget  *root,
                 const char *title)
{
  if (ADW_IS_PREFERENCES_ROW (root)
      && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_row_titled (c, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The screen into @name under $BPW_TEST_SHOT_DIR, with ImageMagick's import, when it is
 * set (under an X server): pictures for people to look at. */
static void
maybe_save_screen (GtkWidget  *window,
                   const char *name)
{
  g_autofree char *path = NULL;
  const char *argv[] = { "import", "-window", "root", NULL, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (g_getenv ("BPW_TEST_SHOT_DIR") == NULL || g_getenv ("DISPLAY") == NULL)
    return;
  path = g_build_filename (g_getenv ("BPW_TEST_SHOT_DIR"), name, NULL);
  argv[3] = path;
  bpw_test_wait_for_frame (window);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("saved %s", path);
}

/* A 128 K-token training sequence of one small model on 8 H100s, a batch of one sequence:
 * the CP row lists the degrees the sequence allows and starts at 1 (no plan splits the
 * sequence); with "Any" the limits free CP, the space grows, and the search finds plans
 * with CP above 1, the best of them among them, shown in the CP column. */
static void
test_search_context_parallel (void)
{
  static const char *const study_json =
    "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"long\",\n"
    " \"workloads\": [\n"
    "  {\"name\": \"small\", \"model\": {\"vocab\": 32000, \"hidden\": 2048, \"layers\": 8,\n"
    "   \"heads\": 16, \"ffn\": 8192, \"positions\": \"rotary\"}}],\n"
    " \"scenarios\": [\n"
    "  {\"name\": \"long\", \"workload\": \"small\", \"phase\": \"train\",\n"
    "   \"global_batch\": 1, \"micro_batch\": 1, \"seq\": 131072, \"recompute\": \"full\",\n"
    "   \"parallel\": {\"tp\": 8}}],\n"
    " \"blueprints\": [\"h100-sxm-80gb\"],\n"
    " \"candidates\": [{\"name\": \"h100\", \"blueprint\": \"h100-sxm-80gb\", \"mapping\": {}}]}";
  BpwWindow *window = bpw_test_open_default ();
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_from_data ("long.bpw-study.json", study_json, -1,
                                                       &error);
  BpwSearchDialog *dialog;
  AdwComboRow *cp_row;
  GListModel *values;
  const BpwSearchReport *report;
  BpwSearchLimits limits;
  guint64 fixed;
  gboolean split = FALSE;

  g_assert_no_error (error);
  dialog = bpw_search_dialog_new (GTK_WINDOW (window), study, 0, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  g_assert_cmpint (bpw_search_dialog_get_devices (dialog), ==, 8);
  bpw_search_test_small_limits (&limits);
  bpw_search_dialog_set_limits (dialog, &limits);
  fixed = bpw_search_dialog_get_space_size (dialog);
  g_assert_cmpuint (fixed, >, 0);

  /* The row, as a user finds it: "Any", 1, 2, 4, 8; on 1. */
  cp_row = ADW_COMBO_ROW (find_row_titled (GTK_WIDGET (dialog), "Co_ntext Parallel (CP)"));
  g_assert_nonnull (cp_row);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (cp_row)));
  values = adw_combo_row_get_model (cp_row);
  g_assert_cmpuint (g_list_model_get_n_items (values), ==, 5);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (values), 4), ==, "8");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (values),
                                               adw_combo_row_get_selected (cp_row)), ==, "1");
  bpw_search_dialog_get_limits (dialog, &limits);
  g_assert_cmpint (limits.cp, ==, 1);

  adw_combo_row_set_selected (cp_row, 0);
  maybe_save_screen (GTK_WIDGET (dialog), "search-dialog-cp-space.png");
  bpw_search_dialog_get_limits (dialog, &limits);
  g_assert_cmpint (limits.cp, ==, 0);
  g_test_message ("plans: %" G_GUINT64_FORMAT " with CP 1, %" G_GUINT64_FORMAT " with any",
                  fixed, bpw_search_dialog_get_space_size (dialog));
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), >, fixed);

  bpw_search_dialog_set_threads (dialog, 2);
  bpw_search_dialog_set_top_k (dialog, 8);
  bpw_search_dialog_set_simulate (dialog, FALSE);
  g_assert_true (bpw_search_dialog_start (dialog));
  bpw_test_wait (bpw_search_test_running, dialog);
  report = bpw_search_dialog_get_report (dialog);
  g_assert_nonnull (report);
  g_assert_false (report->cancelled);
  for (guint i = 0; i < report->best->len; i++)
    {
      const BpwSearchResult *r = &g_array_index (report->best, BpwSearchResult, i);

      g_test_message ("#%u: TP %" G_GINT64_FORMAT " CP %" G_GINT64_FORMAT " %s, %.4f s", i + 1,
                      r->mapping.parallel.tp, r->mapping.parallel.cp,
                      bpw_cp_algorithm_to_string (r->mapping.parallel.cp_algorithm),
                      r->estimate.step_time_s);
      split |= r->mapping.parallel.cp > 1;
    }
  g_assert_true (split);
  {
    GListModel *results = bpw_search_dialog_get_results (dialog);
    g_autoptr(BpwSearchItem) best = g_list_model_get_item (results, 0);
    g_autofree char *cell = bpw_search_item_format (best, BPW_SEARCH_COLUMN_CP,
                                                    BPW_BYTE_UNITS_BINARY);

    g_test_message ("best: CP %s", cell);
    g_assert_nonnull (strstr (cell, " · "));
  }
  maybe_save_screen (GTK_WIDGET (dialog), "search-dialog-cp.png");

  gtk_window_destroy (GTK_WINDOW (dialog));
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

  g_test_add_func ("/bpw/ui/SearchDialog/best", test_search_best);
  g_test_add_func ("/bpw/ui/SearchDialog/cancel", test_search_cancel);
  g_test_add_func ("/bpw/ui/SearchDialog/not-modal", test_search_not_modal);
  g_test_add_func ("/bpw/ui/SearchDialog/promote-undo", test_search_promote);
  g_test_add_func ("/bpw/ui/SearchDialog/unavailable", test_search_unavailable);
  g_test_add_func ("/bpw/ui/SearchDialog/show-result", test_show_result);
  g_test_add_func ("/bpw/ui/SearchDialog/fits-1280", test_search_fits_1280);
  g_test_add_func ("/bpw/ui/SearchDialog/context-parallel", test_search_context_parallel);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
