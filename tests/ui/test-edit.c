/* test-edit.c — editing in the inspector updates the Overview and the Sheet, recomputing
 * only what changed; undo and redo; refused values; illegal mappings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-edit"

#include "config.h"

#include <string.h>

#include "bpw-ui-test-util.h"

#define H100 "h100-sxm-80gb"

static gboolean
bpw_test_edit_pending (gpointer data)
{
  return bpw_window_get_edit_pending (data) || bpw_window_get_busy (data)
         || bpw_sheet_page_get_busy (bpw_window_get_sheet_page (data));
}

static void
wait_edit (BpwWindow *window)
{
  bpw_test_wait (bpw_test_edit_pending, window);
}

static guint
index_of (BpwStudy   *study,
          const char *blueprint)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->blueprint, blueprint) == 0)
      return i;
  g_assert_not_reached ();
}

/* The Overview item of @candidate on @scenario (candidate-major, as the window builds
 * them); a new reference. */
static BpwOverviewItem *
overview_item (BpwWindow *window,
               guint      candidate,
               guint      scenario)
{
  BpwStudy *study = bpw_window_get_study (window);

  return g_list_model_get_item (bpw_window_get_overview_items (window),
                                candidate * bpw_study_get_n_scenarios (study) + scenario);
}

static double
sheet_total (BpwSheetPage *sheet)
{
  GListModel *rows = bpw_sheet_page_get_rows (sheet);
  double total = 0.0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      total += bpw_sheet_item_get_per_step (row);
    }
  return total;
}

static char *
hbm_row_key (BpwStudy *study)
{
  g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (study, H100, NULL);

  return g_strdup_printf ("blueprint/memory[%d].bandwidth",
                          bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE));
}

/* The promise: the H100's HBM bandwidth, typed into the inspector, visibly changes
 * the numbers of the Overview and of the Sheet; only the H100's three evaluations and one
 * plan are recomputed; undo brings every number back exactly. */
static void
test_edit_hbm_bandwidth (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  BpwInspector *inspector = bpw_window_get_inspector (window);
  g_autofree char *key = hbm_row_key (study);
  guint h100 = index_of (study, H100);
  guint a100 = index_of (study, "a100-sxm-80gb");
  guint decode = 0;
  g_autoptr(BpwOverviewItem) before = NULL;
  g_autoptr(BpwOverviewItem) after = NULL;
  g_autoptr(BpwOverviewItem) a100_before = NULL;
  g_autoptr(BpwOverviewItem) a100_after = NULL;
  g_autoptr(BpwOverviewItem) undone = NULL;
  g_autofree char *tpot_before = NULL;
  g_autofree char *tpot_after = NULL;
  BpwComputeStats stats;
  BpwValueRow *row;
  double step_before, total_before;
  const BpwSourced *hbm;
  guint binds;

  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &decode));
  bpw_window_select (window, h100, decode);
  wait_edit (window);
  g_assert_cmpuint (bpw_sheet_page_get_candidate (sheet), ==, h100);
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, decode);
  g_assert_cmpstr (bpw_inspector_get_blueprint (inspector), ==, H100);

  before = overview_item (window, h100, decode);
  a100_before = overview_item (window, a100, decode);
  g_assert_nonnull (bpw_overview_item_get_evaluation (before));
  tpot_before = bpw_overview_item_format (before, BPW_OVERVIEW_COLUMN_TPOT,
                                          BPW_BYTE_UNITS_BINARY);
  step_before = bpw_sheet_page_get_step_time (sheet);
  total_before = sheet_total (sheet);
  g_assert_cmpfloat (step_before, >, 0.0);
  binds = bpw_sheet_page_get_n_binds (sheet);

  row = BPW_VALUE_ROW (bpw_inspector_lookup_row (inspector, key));
  g_assert_nonnull (row);
  g_assert_cmpstr (bpw_value_row_get_value (row), ==, "3.35 TB/s");
  bpw_value_row_commit_text (row, "4.8 TB/s");
  g_assert_null (bpw_value_row_get_error (row));
  g_assert_true (bpw_window_get_edit_pending (window));
  wait_edit (window);
  g_assert_false (bpw_window_get_edit_pending (window));
  g_assert_cmpfloat (bpw_window_get_edit_latency (window), >, 0.0);

  /* The study holds the edited copy, with the workbench's provenance. */
  hbm = &bpw_study_lookup_inline_blueprint (study, H100)->memory[
    bpw_blueprint_first_memory (bpw_study_lookup_inline_blueprint (study, H100),
                                BPW_MEMORY_DEVICE)].bandwidth;
  g_assert_cmpfloat (hbm->value, ==, 4.8e12);
  g_assert_cmpint (hbm->kind, ==, BPW_PROVENANCE_ESTIMATE);
  g_assert_cmpstr (hbm->source, ==, "edited in the workbench");
  g_assert_cmpstr (bpw_value_row_get_value (row), ==, "4.8 TB/s");
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)),
                                   "Estimate · edited in the workbench"));
  /* Provenance is read whole: the subtitle wraps, no line limit cuts it with "…". */
  g_assert_cmpint (adw_action_row_get_subtitle_lines (ADW_ACTION_ROW (row)), ==, 0);
  g_assert_true (bpw_window_get_modified (window));

  /* Work: the H100 on each of the three scenarios, nothing else; one plan for the Sheet. */
  bpw_window_get_compute_stats (window, &stats);
  g_assert_cmpuint (stats.facts, ==, 0);
  g_assert_cmpuint (stats.evaluations, ==, bpw_study_get_n_scenarios (study));
  g_assert_cmpuint (stats.reused, ==, (bpw_study_get_n_candidates (study) - 1)
                                      * bpw_study_get_n_scenarios (study));
  g_assert_cmpuint (bpw_sheet_page_get_n_binds (sheet), ==, binds + 1);

  /* Overview: decode streams the weights every token; more bandwidth, a shorter TPOT,
   * and a different number on screen. Other candidates keep their very items. */
  after = overview_item (window, h100, decode);
  a100_after = overview_item (window, a100, decode);
  g_assert_true (a100_after == a100_before);
  g_assert_true (after != before);
  g_assert_cmpfloat (bpw_overview_item_get_evaluation (after)->tpot_s, <,
                     bpw_overview_item_get_evaluation (before)->tpot_s);
  tpot_after = bpw_overview_item_format (after, BPW_OVERVIEW_COLUMN_TPOT,
                                         BPW_BYTE_UNITS_BINARY);
  g_assert_cmpstr (tpot_after, !=, tpot_before);

  /* Sheet: the bound plan's step and its rows are faster. */
  g_assert_cmpfloat (bpw_sheet_page_get_step_time (sheet), <, step_before);
  g_assert_cmpfloat (sheet_total (sheet), <, total_before);

  /* Undo: back to the bundled blueprint, every number exactly as before, and nothing left
   * to save. */
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_null (bpw_study_lookup_inline_blueprint (study, H100));
  g_assert_cmpstr (bpw_value_row_get_value (row), ==, "3.35 TB/s");
  undone = overview_item (window, h100, decode);
  g_assert_cmpfloat (bpw_overview_item_get_evaluation (undone)->tpot_s, ==,
                     bpw_overview_item_get_evaluation (before)->tpot_s);
  g_assert_cmpfloat (bpw_sheet_page_get_step_time (sheet), ==, step_before);
  g_assert_cmpfloat (sheet_total (sheet), ==, total_before);
  g_assert_false (bpw_window_get_modified (window));
  g_assert_true (bpw_window_get_can_redo (window));

  g_assert_true (bpw_window_redo (window));
  wait_edit (window);
  g_assert_cmpstr (bpw_value_row_get_value (row), ==, "4.8 TB/s");
  g_assert_true (bpw_window_get_modified (window));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Values the core refuses are refused where they were typed, and nothing changes. */
static void
test_edit_refused (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwInspector *inspector = bpw_window_get_inspector (window);
  g_autofree char *key = NULL;
  const char * const bad[] = { "fast", "-3 TB/s", "0 B/s", "3 TFLOP/s" };
  BpwValueRow *row;
  GtkWidget *size;

  bpw_window_select (window, index_of (study, H100), 0);
  wait_edit (window);
  key = hbm_row_key (study);
  row = BPW_VALUE_ROW (bpw_inspector_lookup_row (inspector, key));
  g_assert_nonnull (row);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      bpw_value_row_commit_text (row, bad[i]);
      g_assert_nonnull (bpw_value_row_get_error (row));
      g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (bpw_value_row_get_entry (row)),
                                               "error"));
      g_assert_cmpstr (bpw_tooltip_get (GTK_WIDGET (bpw_value_row_get_entry (row))),
                       ==, bpw_value_row_get_error (row));
      g_assert_false (bpw_window_get_edit_pending (window));
    }
  /* A tier is a whole number of devices. */
  size = bpw_inspector_lookup_row (inspector, "blueprint/tiers[0].size");
  g_assert_nonnull (size);
  bpw_value_row_commit_text (BPW_VALUE_ROW (size), "2.5");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (size)));
  /* The H100's rail-optimised InfiniBand shows its oversubscription, a ratio of at least 1. */
  size = bpw_inspector_lookup_row (inspector, "blueprint/tiers[1].oversubscription");
  g_assert_nonnull (size);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (size)), ==, "1");
  bpw_value_row_commit_text (BPW_VALUE_ROW (size), "0.5");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (size)));

  g_assert_null (bpw_study_lookup_inline_blueprint (study, H100));
  g_assert_false (bpw_window_get_can_undo (window));
  g_assert_false (bpw_window_get_modified (window));

  /* Showing the study's value again clears the error. */
  bpw_value_row_set_value (row, bpw_value_row_get_value (row));
  g_assert_null (bpw_value_row_get_error (row));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A TP that does not divide the heads is refused; a decomposition whose state does not fit
 * is accepted, and its reason shows above the mapping until it is undone. */
static void
test_edit_mapping (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwInspector *inspector = bpw_window_get_inspector (window);
  guint h100 = index_of (study, H100);
  g_autoptr(BpwOverviewItem) item = NULL;
  GtkWidget *tp, *pp;

  bpw_window_select (window, h100, 0);
  wait_edit (window);
  g_assert_null (bpw_inspector_get_banner (inspector));

  tp = bpw_inspector_lookup_row (inspector, "mapping/parallel.tp");
  g_assert_nonnull (tp);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (tp)), ==, "8");
  /* 96 heads do not split over 5 ranks. */
  bpw_value_row_commit_text (BPW_VALUE_ROW (tp), "5");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (tp)));
  g_assert_cmpuint (json_object_get_size (json_node_get_object (
    bpw_study_get_candidate (study, h100)->mapping)), ==, 0);
  g_assert_false (bpw_window_get_can_undo (window));

  /* Without pipelining, 175 B parameters with their gradients and Adam state on 8-way TP
   * do not fit 80 GB. */
  pp = bpw_inspector_lookup_row (inspector, "mapping/parallel.pp");
  bpw_value_row_commit_text (BPW_VALUE_ROW (pp), "1");
  g_assert_null (bpw_value_row_get_error (BPW_VALUE_ROW (pp)));
  wait_edit (window);
  item = overview_item (window, h100, 0);
  g_assert_false (bpw_overview_item_get_evaluation (item)->legal);
  g_assert_nonnull (bpw_inspector_get_banner (inspector));
  g_assert_cmpstr (bpw_inspector_get_banner (inspector), ==,
                   bpw_overview_item_get_evaluation (item)->reason);
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (pp)),
                                   "Set by this candidate"));

  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_null (bpw_inspector_get_banner (inspector));
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (pp)), ==, "8");

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

  g_test_add_func ("/bpw/ui/Edit/hbm-bandwidth", test_edit_hbm_bandwidth);
  g_test_add_func ("/bpw/ui/Edit/refused", test_edit_refused);
  g_test_add_func ("/bpw/ui/Edit/mapping", test_edit_mapping);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
