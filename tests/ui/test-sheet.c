/* test-sheet.c — the Sheet lists a scenario's operations, exactly, sorted and filtered
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-sheet"

#include "config.h"

#include <string.h>

#include "bpw-ui-test-util.h"

static BpwSheetItem *
find_row (GListModel *rows,
          const char *operation,
          BpwPhase    phase)
{
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      if (strcmp (bpw_sheet_item_get_operation (row), operation) == 0
          && bpw_sheet_item_get_phase (row) == phase)
        return row;
    }
  return NULL;
}

/* GPT-3 175B training: the QKV projection, closed form, and nothing lost in merging. */
static void
test_sheet_training (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  const BpwStudyScenario *s = bpw_study_get_scenario (study, 0);
  const BpwModelSpec *spec = &bpw_study_get_workload (study, s->workload)->spec;
  GListModel *rows;
  BpwSheetItem *qkv;
  g_autoptr(BpwWorkGraph) graph = NULL;
  g_autoptr(GError) error = NULL;
  BpwU128 expected, sum = 0, total = 0;
  guint64 micro_batches, tokens, width;

  bpw_test_wait_sheet (sheet);
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, 0);
  rows = bpw_sheet_page_get_rows (sheet);
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 20);

  /* Every block operation recurs once per layer and per micro-batch. */
  micro_batches = s->scenario.global_batch / s->scenario.micro_batch;
  tokens = s->scenario.micro_batch * s->scenario.seq;
  width = (spec->heads + 2 * spec->kv_heads) * spec->head_dim;
  qkv = find_row (rows, "attn.qkv", BPW_PHASE_FORWARD);
  g_assert_nonnull (qkv);
  g_assert_cmpint (bpw_sheet_item_get_layer_type (qkv), ==, BPW_LAYER_ATTENTION);
  g_assert_cmpint (bpw_sheet_item_get_primitive (qkv), ==, BPW_PRIM_MATMUL);
  g_assert_cmpuint (bpw_sheet_item_get_runs (qkv), ==, (guint64) spec->layers * micro_batches);
  expected = (BpwU128) 2 * tokens * spec->hidden * width * spec->layers * micro_batches;
  g_assert_true (bpw_sheet_item_get_flops (qkv) == expected);

  /* Merging rows keeps every FLOP of the work graph. */
  graph = bpw_work_graph_new (spec, &s->scenario, &error);
  g_assert_no_error (error);
  for (guint p = 0; p < BPW_N_PHASES; p++)
    total += bpw_work_graph_total_flops (graph, p);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      sum += bpw_sheet_item_get_flops (row);
    }
  g_assert_true (sum == total);
  g_assert_true (find_row (rows, "attn.qkv.wgrad", BPW_PHASE_BACKWARD_WEIGHT) != NULL);

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
row_mentions_mlp (BpwSheetItem *row)
{
  return strstr (bpw_sheet_item_get_operation (row), "mlp") != NULL
         || bpw_sheet_item_get_layer_type (row) == BPW_LAYER_MLP;
}

static void
test_sheet_filter_and_sort (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  GListModel *rows, *visible;
  GtkColumnView *column_view;
  GListModel *columns;
  guint total, expected = 0;

  bpw_test_wait_sheet (sheet);
  rows = bpw_sheet_page_get_rows (sheet);
  visible = bpw_sheet_page_get_visible_rows (sheet);
  total = g_list_model_get_n_items (rows);
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, total);

  for (guint i = 0; i < total; i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      expected += row_mentions_mlp (row);
    }
  g_assert_cmpuint (expected, >, 0);
  g_assert_cmpuint (expected, <, total);

  /* Case does not matter; the filter reduces the rows to those that match. */
  bpw_sheet_page_set_filter_text (sheet, "MLP");
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, expected);
  for (guint i = 0; i < g_list_model_get_n_items (visible); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (visible, i);

      g_assert_true (row_mentions_mlp (row));
    }

  bpw_sheet_page_set_filter_text (sheet, "no such operation");
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, 0);
  bpw_sheet_page_set_filter_text (sheet, "");
  g_assert_cmpuint (g_list_model_get_n_items (visible), ==, total);

  /* Sorting by a column header: FLOPs, largest first. */
  column_view = GTK_COLUMN_VIEW (bpw_test_find_widget (GTK_WIDGET (sheet),
                                                       GTK_TYPE_COLUMN_VIEW));
  columns = gtk_column_view_get_columns (column_view);
  {
    g_autoptr(GtkColumnViewColumn) flops = g_list_model_get_item (columns,
                                                                  BPW_SHEET_COLUMN_FLOPS);

    gtk_column_view_sort_by_column (column_view, flops, GTK_SORT_DESCENDING);
  }
  for (guint i = 1; i < total; i++)
    {
      g_autoptr(BpwSheetItem) a = g_list_model_get_item (visible, i - 1);
      g_autoptr(BpwSheetItem) b = g_list_model_get_item (visible, i);

      g_assert_true (bpw_sheet_item_get_flops (a) >= bpw_sheet_item_get_flops (b));
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Decode is inference: forward work only, one new token per sequence. */
static void
test_sheet_decode (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  GListModel *rows;

  bpw_test_wait_sheet (sheet);
  bpw_sheet_page_select_scenario (sheet, 2);
  g_assert_true (bpw_sheet_page_get_busy (sheet));
  bpw_test_wait_sheet (sheet);
  g_assert_cmpuint (bpw_sheet_page_get_scenario (sheet), ==, 2);

  rows = bpw_sheet_page_get_rows (sheet);
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      g_assert_cmpint (bpw_sheet_item_get_phase (row), ==, BPW_PHASE_FORWARD);
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

  g_test_add_func ("/bpw/ui/Sheet/training", test_sheet_training);
  g_test_add_func ("/bpw/ui/Sheet/filter-and-sort", test_sheet_filter_and_sort);
  g_test_add_func ("/bpw/ui/Sheet/decode", test_sheet_decode);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
