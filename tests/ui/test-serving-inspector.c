/* test-serving-inspector.c — the Scenario page's disaggregated serving rows: turned on, set,
 * refused, undone, and the Trade-offs page's curves that follow
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-serving-inspector"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-tradeoffs-page.h"
#include "bpw-ui-test-util.h"

#define H100 "h100-sxm-80gb"

static gboolean
bpw_test_edit_pending (gpointer data)
{
  return bpw_window_get_edit_pending (data) || bpw_window_get_busy (data)
         || bpw_sheet_page_get_busy (bpw_window_get_sheet_page (data));
}

static gboolean
bpw_test_tradeoffs_busy (gpointer data)
{
  return bpw_tradeoffs_page_get_busy (data);
}

static void
wait_edit (BpwWindow *window)
{
  bpw_test_wait (bpw_test_edit_pending, window);
}

static const BpwServePools *
pools_of (BpwStudy *study, guint scenario)
{
  return &bpw_study_get_scenario (study, scenario)->serving.pools;
}

/* The default study's decode scenario (TP 8) on the H100: the switch turns the pools on
 * with one replica each of TP 8 and the H100's outermost tier; a replica count and a tier
 * are typed (an unknown tier refused, naming the blueprint's); undo restores each; the
 * Trade-offs page then draws a disaggregated series per candidate with the pools'
 * utilisation. */
static void
test_serving_rows (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwInspector *inspector = bpw_window_get_inspector (window);
  BpwTradeoffsPage *page;
  const BpwTradeData *data;
  GtkWidget *toggle, *row;
  guint decode = 0, h100 = G_MAXUINT, disaggregated = 0;

  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &decode));
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->blueprint, H100) == 0)
      h100 = i;
  bpw_window_select (window, h100, decode);
  wait_edit (window);
  bpw_inspector_show_page (inspector, "scenario");

  row = bpw_inspector_lookup_row (inspector, "scenario/serving.pools.decode_replicas");
  g_assert_nonnull (row);
  g_assert_false (gtk_widget_get_sensitive (row));
  g_assert_false (pools_of (study, decode)->enabled);
  toggle = g_object_get_data (G_OBJECT (bpw_inspector_lookup_row (inspector,
                                                                  "scenario/serving.pools")),
                              "bpw-switch");
  gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
  wait_edit (window);
  g_assert_true (pools_of (study, decode)->enabled);
  g_assert_cmpint (pools_of (study, decode)->prefill_tp, ==, 8);
  g_assert_cmpint (pools_of (study, decode)->decode_replicas, ==, 1);
  g_assert_cmpstr (pools_of (study, decode)->kv_tier, ==, "infiniband");
  row = bpw_inspector_lookup_row (inspector, "scenario/serving.pools.decode_replicas");
  g_assert_true (gtk_widget_get_sensitive (row));
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (row)), ==, "1");

  bpw_value_row_commit_text (BPW_VALUE_ROW (row), "2");
  g_assert_null (bpw_value_row_get_error (BPW_VALUE_ROW (row)));
  wait_edit (window);
  g_assert_cmpint (pools_of (study, decode)->decode_replicas, ==, 2);
  row = bpw_inspector_lookup_row (inspector, "scenario/serving.pools.decode_replicas");
  bpw_value_row_commit_text (BPW_VALUE_ROW (row), "0");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (row)));
  g_assert_cmpint (pools_of (study, decode)->decode_replicas, ==, 2);

  row = bpw_inspector_lookup_row (inspector, "scenario/serving.pools.kv_tier");
  bpw_value_row_commit_text (BPW_VALUE_ROW (row), "ethernet");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (row)));
  g_assert_nonnull (strstr (bpw_value_row_get_error (BPW_VALUE_ROW (row)), "nvlink, infiniband"));
  g_assert_cmpstr (pools_of (study, decode)->kv_tier, ==, "infiniband");
  bpw_value_row_commit_text (BPW_VALUE_ROW (row), "nvlink");
  g_assert_null (bpw_value_row_get_error (BPW_VALUE_ROW (row)));
  wait_edit (window);
  g_assert_cmpstr (pools_of (study, decode)->kv_tier, ==, "nvlink");

  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_cmpstr (pools_of (study, decode)->kv_tier, ==, "infiniband");
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_cmpint (pools_of (study, decode)->decode_replicas, ==, 1);

  /* The curves follow: each candidate's disaggregated series after its colocated one. */
  page = BPW_TRADEOFFS_PAGE (bpw_test_find_widget (GTK_WIDGET (window),
                                                   BPW_TYPE_TRADEOFFS_PAGE));
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "tradeoffs");
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  g_assert_true (bpw_tradeoffs_page_set_scenario (page, decode));
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  bpw_test_wait (bpw_test_tradeoffs_busy, page);
  data = bpw_trade_plot_get_data (bpw_tradeoffs_page_get_plot (page));
  g_assert_cmpuint (data->series->len, ==, 2 * bpw_study_get_n_candidates (study));
  for (guint i = 0; i < data->series->len; i++)
    {
      const BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, i);

      g_assert_cmpint (s->disaggregated, ==, i % 2 == 1);
      if (s->disaggregated && s->error == NULL)
        {
          const BpwTradePoint *p = &g_array_index (data->points, BpwTradePoint, s->first);

          g_assert_cmpint (s->devices, ==, 16);
          g_assert_cmpfloat (p->prefill_utilisation, >, 0);
          g_assert_cmpfloat (p->decode_utilisation, >, 0);
          disaggregated++;
        }
    }
  g_assert_cmpuint (disaggregated, >, 0);

  /* Undone to colocated, the disaggregated series go. */
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_false (pools_of (study, decode)->enabled);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int status;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;
  g_test_add_func ("/bpw/ui/ServingInspector/rows", test_serving_rows);
  status = g_test_run ();
  bpw_test_remove_tree (scratch);
  return status;
}
