/* test-window.c — the main window opens the default study, shows its pages and survives
 * broken files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-window"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "bpw-ui-test-util.h"

/* The row widgets a list view has created and shows. */
static guint
count_visible_rows (GtkWidget *column_view)
{
  GtkWidget *list_view = bpw_test_find_widget (column_view, GTK_TYPE_LIST_VIEW);
  guint n = 0;

  g_assert_nonnull (list_view);
  for (GtkWidget *child = gtk_widget_get_first_child (list_view);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (g_strcmp0 (gtk_widget_get_css_name (child), "row") == 0 && gtk_widget_get_visible (child))
      n++;
  return n;
}

/* The Overview's headline numbers are the core's evaluation of the candidate, read
 * consistently: MFU is model FLOPs over step time × devices × dense matrix peak
 * (DESIGN.md), and the SLA verdict follows from the scenario's target. */
static void
check_evaluation (BpwStudy        *study,
                  guint            candidate,
                  guint            scenario,
                  BpwOverviewItem *item)
{
  const BpwOverviewEvaluation *e = bpw_overview_item_get_evaluation (item);
  const BpwStudyScenario *s = bpw_study_get_scenario (study, scenario);
  const BpwFacts *facts = bpw_facts_row_get_facts (bpw_overview_item_get_scenario (item));
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(GError) error = NULL;
  double peak, mfu;

  g_assert_nonnull (e);
  g_test_message ("%s on %s: step %g s, MFU %g", bpw_overview_item_get_candidate (item),
                  s->name, e->step_time_s, e->mfu);
  /* The default study is meant to run on every candidate. */
  g_assert_false (e->failed);
  g_assert_true (e->legal);
  g_assert_cmpfloat (e->step_time_s, >, 0.0);
  g_assert_nonnull (e->bottleneck);
  g_assert_cmpuint (e->peak_bytes, >, 0);
  g_assert_cmpuint (e->peak_bytes, <=, bpw_overview_item_get_capacity (item));
  g_assert_cmpuint (bpw_overview_item_get_memory (item), ==, e->peak_bytes);

  bp = bpw_blueprint_load (bpw_study_get_candidate (study, candidate)->blueprint, NULL, &error);
  g_assert_no_error (error);
  peak = bpw_blueprint_peak_flops (bp, BPW_ENGINE_MATRIX,
                                   bpw_precision_from_dtype (s->scenario.dtype));
  mfu = bpw_u128_to_double (facts->flops_model)
        / (e->step_time_s * (double) bpw_overview_item_get_devices (item) * peak);
  g_assert_cmpfloat_with_epsilon (e->mfu, mfu, 1e-6 * mfu);
  g_assert_cmpfloat (e->mfu, >, 0.0);
  g_assert_cmpfloat (e->mfu, <, 1.0);

  /* Energy is the core's modelled energy of the step, for every bundled blueprint, with
   * the average power it implies and the figures it comes from. */
  {
    g_autoptr(BpwEstimator) estimator = NULL;
    BpwCandidateRun run;
    BpwEvaluation ev;

    g_assert_true (bpw_candidate_run_init (&run, study, candidate, scenario, &error));
    g_assert_no_error (error);
    estimator = bpw_estimator_new (&run.spec, &run.scenario, run.blueprint, &error);
    g_assert_no_error (error);
    g_assert_true (bpw_estimator_evaluate (estimator, &run.mapping, &ev, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpfloat (e->energy_j, >, 0.0);
    g_assert_cmpfloat (e->energy_j, ==, ev.energy_j);
    g_assert_cmpfloat (e->tokens_per_joule, ==, ev.tokens_per_joule);
    g_assert_cmpfloat_with_epsilon (e->power_w, ev.energy_j / ev.step_time_s,
                                    1e-12 * e->power_w);
    g_assert_nonnull (e->energy_source);
    g_assert_nonnull (strstr (e->energy_source, "Idle power"));
    bpw_candidate_run_clear (&run);
  }

  switch (s->scenario.phase)
    {
    case BPW_WORKLOAD_TRAIN:
      g_assert_cmpint (e->sla, ==, BPW_SLA_NONE);  /* no step-time target */
      break;
    case BPW_WORKLOAD_PREFILL:
      g_assert_cmpfloat (e->ttft_s, >, 0.0);
      g_assert_cmpint (e->sla, ==, e->ttft_s <= s->scenario.sla_ttft ? BPW_SLA_MET
                                                                     : BPW_SLA_MISSED);
      break;
    case BPW_WORKLOAD_DECODE:
      g_assert_cmpfloat (e->tpot_s, >, 0.0);
      g_assert_cmpint (e->sla, ==, e->tpot_s <= s->scenario.sla_tpot ? BPW_SLA_MET
                                                                     : BPW_SLA_MISSED);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
test_window_default_study (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  GListModel *rows = bpw_window_get_rows (window);
  GListModel *items = bpw_window_get_overview_items (window);
  BpwOverviewPage *overview = bpw_window_get_overview_page (window);
  GtkWidget *column_view;
  guint n_scenarios, n_candidates;

  g_assert_nonnull (study);
  n_scenarios = bpw_study_get_n_scenarios (study);
  n_candidates = bpw_study_get_n_candidates (study);
  /* Issue 5: GPT-3 training and Llama 3 prefill and decode, on four candidates. */
  g_assert_cmpuint (n_scenarios, ==, 3);
  g_assert_cmpuint (n_candidates, ==, 4);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n_scenarios);

  for (guint i = 0; i < n_scenarios; i++)
    {
      g_autoptr(BpwFactsRow) row = g_list_model_get_item (rows, i);
      const BpwStudyScenario *scenario = bpw_study_get_scenario (study, i);
      const BpwStudyWorkload *workload = bpw_study_get_workload (study, scenario->workload);
      const BpwFacts *facts = bpw_facts_row_get_facts (row);

      g_assert_cmpstr (bpw_facts_row_get_name (row), ==, scenario->name);
      g_assert_cmpstr (bpw_facts_row_get_workload (row), ==, workload->name);
      /* The bundled study is meant to be valid: every scenario has facts that conserve. */
      g_assert_null (bpw_facts_row_get_error (row));
      g_assert_nonnull (facts);
      g_assert_true (facts->conservation.ok);
      /* The parameter count is the model's closed form, whatever the decomposition. */
      g_assert_cmpuint (facts->parameters, ==, bpw_model_spec_parameters (&workload->spec));
      g_assert_true (facts->flops_hardware >= facts->flops_model);
    }

  /* Candidate × scenario, candidate-major. */
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, n_candidates * n_scenarios);
  for (guint c = 0; c < n_candidates; c++)
    for (guint s = 0; s < n_scenarios; s++)
      {
        g_autoptr(BpwOverviewItem) item = g_list_model_get_item (items, c * n_scenarios + s);
        const BpwStudyScenario *scenario = bpw_study_get_scenario (study, s);

        g_assert_cmpstr (bpw_overview_item_get_candidate (item), ==,
                         bpw_study_get_candidate (study, c)->name);
        g_assert_cmpstr (bpw_overview_item_get_scenario_name (item), ==, scenario->name);
        g_assert_cmpint (bpw_overview_item_get_devices (item), ==,
                         scenario->parallel.tp * scenario->parallel.pp * scenario->parallel.dp);
        check_evaluation (study, c, s, item);
      }
  {
    /* GPT-3 175B training on 1024 GPUs: TP 8 × PP 8 × DP 16. */
    g_autoptr(BpwOverviewItem) train = g_list_model_get_item (items, 0);
    /* H100 SXM: 81559 MiB of HBM3 (nvidia-smi), MI300X: 196592 MiB (rocminfo). */
    g_autoptr(BpwOverviewItem) h100 = g_list_model_get_item (items, 1 * n_scenarios);
    g_autoptr(BpwOverviewItem) mi300x = g_list_model_get_item (items, 3 * n_scenarios);

    g_assert_cmpint (bpw_overview_item_get_devices (train), ==, 1024);
    g_assert_cmpuint (bpw_overview_item_get_capacity (h100), ==, 81559ull << 20);
    g_assert_cmpuint (bpw_overview_item_get_capacity (mi300x), ==, 196592ull << 20);
  }
  g_assert_true (bpw_overview_page_get_shows_evaluation (overview));

  /* One row widget per item: twelve fit on a 1000 px high window. */
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  column_view = bpw_test_find_widget (GTK_WIDGET (overview), GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (column_view);
  g_assert_cmpuint (count_visible_rows (column_view), ==, n_candidates * n_scenarios);

  /* A fresh study from a template is not modified and has no file. */
  g_assert_false (bpw_window_get_modified (window));
  g_assert_null (bpw_window_get_file (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, bpw_study_get_name (study));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_window_pages (void)
{
  static const char * const names[] = {
    "overview", "sheet", "timeline", "memory", "roofline", "tradeoffs", "compare",
    "validation",
  };
  BpwWindow *window = bpw_test_open_default ();
  AdwViewStack *stack = bpw_window_get_view_stack (window);
  GtkSelectionModel *pages = adw_view_stack_get_pages (stack);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pages)), ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);
      GtkWidget *child = adw_view_stack_page_get_child (page);

      g_assert_cmpstr (adw_view_stack_page_get_name (page), ==, names[i]);
      g_assert_nonnull (adw_view_stack_page_get_title (page));
      g_assert_nonnull (adw_view_stack_page_get_icon_name (page));
      /* Chart pages not drawn yet say what will be there; the Roofline page draws. */
      if (g_str_equal (names[i], "roofline"))
        g_assert_true (BPW_IS_PLOT_VIEW (bpw_test_find_widget (child, BPW_TYPE_PLOT_VIEW)));
      else if (i >= 2 && ADW_IS_STATUS_PAGE (child))
        {
          g_assert_true (ADW_IS_STATUS_PAGE (child));
          g_assert_cmpuint (strlen (adw_status_page_get_description (ADW_STATUS_PAGE (child))),
                            >, 40);
        }

      /* Alt+1..8 and the menu reach each page through win.show-page. */
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s",
                                                 names[i]));
      g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, names[i]);
    }
  g_assert_true (BPW_IS_OVERVIEW_PAGE (adw_view_stack_get_child_by_name (stack, "overview")));
  g_assert_true (BPW_IS_SHEET_PAGE (adw_view_stack_get_child_by_name (stack, "sheet")));
  g_assert_true (BPW_IS_TIMELINE_PAGE (adw_view_stack_get_child_by_name (stack, "timeline")));
  g_assert_true (BPW_IS_MEMORY_PAGE (adw_view_stack_get_child_by_name (stack, "memory")));
  g_object_unref (pages);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The Overview's columns in the order a review reads them: the verdict (bottleneck,
 * SLA) before the memory details, so that a 1280-pixel window shows it; long names
 * ellipsize rather than push columns out. */
static void
test_window_overview_columns (void)
{
  BpwWindow *window = bpw_test_open_default ();
  GtkWidget *view = bpw_test_find_widget (GTK_WIDGET (bpw_window_get_overview_page (window)),
                                          GTK_TYPE_COLUMN_VIEW);
  GListModel *columns;
  int sla = -1, bottleneck = -1, memory = -1, scenario = -1;

  BpwPinnedTable *table = BPW_PINNED_TABLE (gtk_widget_get_ancestor (view,
                                                                     BPW_TYPE_PINNED_TABLE));
  g_autoptr(GListStore) all = g_list_store_new (GTK_TYPE_COLUMN_VIEW_COLUMN);
  int energy = -1, per_joule = -1, mfu = -1;

  g_assert_nonnull (view);
  /* The pinned candidate column, then those that scroll. */
  g_assert_true (GTK_COLUMN_VIEW (view) == bpw_pinned_table_get_pinned (table));
  for (int v = 0; v < 2; v++)
    {
      GListModel *in = gtk_column_view_get_columns (v == 0 ? bpw_pinned_table_get_pinned (table)
                                                           : bpw_pinned_table_get_view (table));

      for (guint i = 0; i < g_list_model_get_n_items (in); i++)
        {
          g_autoptr(GObject) column = g_list_model_get_item (in, i);

          g_list_store_append (all, column);
        }
    }
  g_assert_cmpuint (g_list_model_get_n_items (gtk_column_view_get_columns (
                      bpw_pinned_table_get_pinned (table))), ==, 1);
  columns = G_LIST_MODEL (all);
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      const char *title = gtk_column_view_column_get_title (column);

      if (i == 0)
        g_assert_cmpstr (title, ==, "Candidate");
      if (g_strcmp0 (title, "Energy / Step") == 0)
        energy = (int) i;
      else if (g_strcmp0 (title, "Tokens / J") == 0)
        per_joule = (int) i;
      else if (g_strcmp0 (title, "MFU") == 0)
        mfu = (int) i;

      if (g_strcmp0 (title, "SLA") == 0)
        sla = (int) i;
      else if (g_strcmp0 (title, "Bottleneck") == 0)
        bottleneck = (int) i;
      else if (g_strcmp0 (title, "Memory / Device") == 0)
        memory = (int) i;
      else if (g_strcmp0 (title, "Scenario") == 0)
        scenario = (int) i;
    }
  g_assert_cmpint (scenario, ==, 1);
  g_assert_cmpint (bottleneck, >, scenario);
  g_assert_cmpint (sla, ==, bottleneck + 1);
  g_assert_cmpint (memory, >, sla);
  /* Energy and tokens per joule, after the verdict and before the memory details. */
  g_assert_cmpint (mfu, >, scenario);
  g_assert_cmpint (energy, ==, sla + 1);
  g_assert_cmpint (per_joule, ==, energy + 1);
  g_assert_cmpint (memory, >, per_joule);
  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, BPW_N_OVERVIEW_COLUMNS);

  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The y of each row a column view shows, in @window's coordinates, sorted. */
static GArray *
row_positions (GtkColumnView *view,
               GtkWidget     *window)
{
  GtkWidget *list_view = bpw_test_find_widget (GTK_WIDGET (view), GTK_TYPE_LIST_VIEW);
  GArray *ys = g_array_new (FALSE, FALSE, sizeof (double));

  for (GtkWidget *child = gtk_widget_get_first_child (list_view);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_point_t at;
      double y;

      if (g_strcmp0 (gtk_widget_get_css_name (child), "row") != 0
          || !gtk_widget_get_child_visible (child))
        continue;
      g_assert_true (gtk_widget_compute_point (child, window, &GRAPHENE_POINT_INIT (0, 0), &at));
      y = at.y;
      g_array_append_val (ys, y);
    }
  g_array_sort (ys, compare_doubles);
  return ys;
}

/* At 1280 × 800 the Overview's numbers scroll sideways while the candidate column stays
 * in place, and scrolled down, each candidate stays level with its numbers. */
static void
test_window_overview_pinned (void)
{
  BpwWindow *window = bpw_window_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  BpwPinnedTable *table;
  GtkColumnView *pinned, *view;
  GtkAdjustment *h, *v;
  g_autoptr(GArray) left = NULL;
  g_autoptr(GArray) right = NULL;
  graphene_point_t before, after;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_bundled (window, "default", &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);
  bpw_test_wait_for_frame (GTK_WIDGET (window));

  table = BPW_PINNED_TABLE (bpw_test_find_widget (GTK_WIDGET (bpw_window_get_overview_page (window)),
                                                  BPW_TYPE_PINNED_TABLE));
  pinned = bpw_pinned_table_get_pinned (table);
  view = bpw_pinned_table_get_view (table);
  h = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (view));
  v = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  /* One vertical position for both; one selection. */
  g_assert_true (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (pinned)) == v);
  g_assert_true (gtk_column_view_get_model (pinned) == gtk_column_view_get_model (view));

  /* Sideways: the numbers move, the candidates do not.  Measured against the table, not
   * the window: the window may still settle its sidebar by a pixel between two frames. */
  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (pinned), GTK_WIDGET (table),
                                           &GRAPHENE_POINT_INIT (0, 0), &before));
  gtk_adjustment_set_value (h, gtk_adjustment_get_upper (h));
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (pinned), GTK_WIDGET (table),
                                           &GRAPHENE_POINT_INIT (0, 0), &after));
  g_assert_cmpfloat (after.x, ==, before.x);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (pinned)));

  /* Down: with the details pane dragged up, twelve rows do not fit; scrolled to the end,
   * the rows of both views stand at the same heights. */
  gtk_paned_set_position (GTK_PANED (gtk_widget_get_ancestor (GTK_WIDGET (table),
                                                               GTK_TYPE_PANED)), 200);
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  g_assert_cmpfloat (gtk_adjustment_get_upper (v), >, gtk_adjustment_get_page_size (v));
  gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v));
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  g_assert_cmpfloat (gtk_adjustment_get_value (v), >, 0.0);
  left = row_positions (pinned, GTK_WIDGET (window));
  right = row_positions (view, GTK_WIDGET (window));
  g_assert_cmpuint (left->len, >, 0);
  g_assert_cmpuint (left->len, ==, right->len);
  for (guint i = 0; i < left->len; i++)
    g_assert_cmpfloat_with_epsilon (g_array_index (left, double, i),
                                    g_array_index (right, double, i), 0.5);

  /* A header clicked in either view sorts the rows; the other view's sort is cleared. */
  {
    GListModel *shown = G_LIST_MODEL (gtk_column_view_get_model (view));
    g_autoptr(GtkColumnViewColumn) candidate = g_list_model_get_item (
      gtk_column_view_get_columns (pinned), 0);
    g_autoptr(GtkColumnViewColumn) scenario = g_list_model_get_item (
      gtk_column_view_get_columns (view), 0);
    g_autoptr(BpwOverviewItem) first = NULL;
    g_autoptr(BpwOverviewItem) last = NULL;

    gtk_column_view_sort_by_column (view, scenario, GTK_SORT_ASCENDING);
    gtk_column_view_sort_by_column (pinned, candidate, GTK_SORT_DESCENDING);
    first = g_list_model_get_item (shown, 0);
    last = g_list_model_get_item (shown, g_list_model_get_n_items (shown) - 1);
    g_assert_cmpint (g_utf8_collate (bpw_overview_item_get_candidate (first),
                                     bpw_overview_item_get_candidate (last)), >, 0);
    g_assert_cmpint (gtk_sorter_get_order (gtk_column_view_get_sorter (view)), ==,
                     GTK_SORTER_ORDER_NONE);
    gtk_column_view_sort_by_column (view, scenario, GTK_SORT_ASCENDING);
    g_assert_cmpint (gtk_sorter_get_order (gtk_column_view_get_sorter (pinned)), ==,
                     GTK_SORTER_ORDER_NONE);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_window_broken_file (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  guint n_rows = g_list_model_get_n_items (bpw_window_get_rows (window));
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-test-window-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *basename = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) missing = NULL;

  g_assert_no_error (error);
  path = g_build_filename (dir, "broken-study.json", NULL);
  g_assert_true (g_file_set_contents (path, "{\n  \"format\": \"bpw-study\",\n  \"version\": ",
                                      -1, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (path);

  g_assert_false (bpw_window_open_file (window, file, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  /* The message names the file, so the user knows which one to fix. */
  basename = g_path_get_basename (path);
  g_assert_nonnull (strstr (error->message, basename));
  g_clear_error (&error);

  g_assert_true (bpw_window_get_study (window) == study);
  g_assert_false (bpw_window_get_busy (window));
  g_assert_false (bpw_window_get_modified (window));
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_rows (window)), ==, n_rows);

  missing = g_file_new_for_path ("/nonexistent/bpw/no-such-study.json");
  g_assert_false (bpw_window_open_file (window, missing, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (bpw_window_get_study (window) == study);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_rows (window)), ==, n_rows);

  g_assert_false (bpw_window_open_bundled (window, "no-such-bundled-study", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (bpw_window_get_study (window) == study);

  g_unlink (path);
  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
bpw_test_revealer_moving (gpointer data)
{
  GtkRevealer *revealer = data;

  return gtk_revealer_get_child_revealed (revealer) != gtk_revealer_get_reveal_child (revealer);
}

/* Opening the inspector keeps the window's width, on every page of it: the inspector
 * takes its room from the pages, never from beyond the screen's edge. */
static void
test_window_inspector_width (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwInspector *inspector = bpw_window_get_inspector (window);
  GtkRevealer *revealer = GTK_REVEALER (gtk_widget_get_ancestor (GTK_WIDGET (inspector),
                                                                 GTK_TYPE_REVEALER));
  static const char * const pages[] = { "blueprint", "scenario", "mapping" };
  int width;

  bpw_test_wait_for_frame (GTK_WIDGET (window));
  width = gtk_widget_get_width (GTK_WIDGET (window));
  g_assert_cmpint (width, >, 0);
  g_object_set (window, "show-inspector", TRUE, NULL);
  bpw_test_wait (bpw_test_revealer_moving, revealer);
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      bpw_inspector_show_page (inspector, pages[i]);
      for (int f = 0; f < 3; f++)
        bpw_test_wait_for_frame (GTK_WIDGET (window));
      g_test_message ("inspector page %s: window %d px wide, %d before", pages[i],
                      gtk_widget_get_width (GTK_WIDGET (window)), width);
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), ==, width);
    }
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

  g_test_add_func ("/bpw/ui/Window/default-study", test_window_default_study);
  g_test_add_func ("/bpw/ui/Window/pages", test_window_pages);
  g_test_add_func ("/bpw/ui/Window/broken-file", test_window_broken_file);
  g_test_add_func ("/bpw/ui/Window/overview-columns", test_window_overview_columns);
  g_test_add_func ("/bpw/ui/Window/overview-pinned", test_window_overview_pinned);
  g_test_add_func ("/bpw/ui/Window/inspector-width", test_window_inspector_width);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
