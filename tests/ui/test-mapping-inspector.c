/* test-mapping-inspector.c — every mapping decision in the inspector: the tier a group
 * rides on, a tier's collective algorithm, engines, buffer placement, tiling, weight-only
 * quantisation and a mapping for one scenario only; each edit changes the Overview and
 * the Sheet and undo restores them exactly
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-mapping-inspector"

#include "config.h"

#include <string.h>

#include "bpw-mapping-inspector-test.h"

/* GPT-3 on 1024 H100s: its TP all-reduces moved from NVLink to InfiniBand take longer on
 * the Overview and the Sheet; the study says "infiniband" by name; undo restores. */
static void
test_tier (void)
{
  guint h100;
  BpwWindow *window = open_on (H100, TRAIN, &h100);
  GtkWidget *tier = row (window, "mapping/tiers.tp");
  Numbers before = numbers (window, h100, TRAIN), after;
  JsonObject *tiers;

  g_assert_cmpstr (selected_label (tier), ==, "Automatic (nvlink)");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (tier)), ==, "Default");
  g_assert_true (before.legal);

  choose (tier, "infiniband");
  wait_edit (window);
  tiers = json_object_get_object_member (candidate_mapping (window, h100), "tiers");
  g_assert_cmpstr (json_object_get_string_member (tiers, "tp"), ==, "infiniband");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (tier)), ==,
                   "Set by this candidate");
  after = numbers (window, h100, TRAIN);
  g_assert_cmpfloat (after.step_s, >, before.step_s);
  g_assert_cmpfloat (after.sheet_s, >, before.sheet_s);

  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, TRAIN), before);
  g_assert_cmpstr (selected_label (tier), ==, "Automatic (nvlink)");
  g_assert_cmpuint (json_object_get_size (candidate_mapping (window, h100)), ==, 0);

}

/* A tier lists the algorithms it implements and no other; ring instead of the cheapest
 * on NVLink slows the exposed TP all-reduces; undo restores. */
static void
test_algorithm (void)
{
  guint h100, a100;
  BpwWindow *window = open_on (H100, TRAIN, &h100);
  BpwStudy *study = bpw_window_get_study (window);
  GtkWidget *nvlink = row (window, "mapping/collective_algorithms[0]");
  g_auto(GStrv) offered = choices (nvlink);
  const char * const h100_nvlink[] = { "Automatic (cheapest)", "Ring", "Tree", "In-network",
                                       NULL };
  Numbers before = numbers (window, h100, TRAIN), after;

  g_assert_true (g_strv_equal ((const char * const *) offered, h100_nvlink));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (nvlink)), ==,
                   "Collectives on nvlink");

  choose (nvlink, "Ring");
  wait_edit (window);
  g_assert_cmpstr (json_array_get_string_element (
                     json_object_get_array_member (candidate_mapping (window, h100),
                                                   "collective_algorithms"), 0), ==, "ring");
  after = numbers (window, h100, TRAIN);
  g_assert_cmpfloat (after.step_s, >, before.step_s);
  g_assert_cmpfloat (after.sheet_s, >, before.sheet_s);
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, TRAIN), before);
  g_assert_cmpstr (selected_label (nvlink), ==, "Automatic (cheapest)");

  /* The A100's NVLink has no switch reduction, so no in-network choice. */
  a100 = candidate_of (study, A100);
  bpw_window_select (window, a100, scenario_of (study, TRAIN));
  wait_edit (window);
  {
    g_auto(GStrv) a100_offered = choices (row (window, "mapping/collective_algorithms[0]"));
    const char * const a100_nvlink[] = { "Automatic (cheapest)", "Ring", "Tree", NULL };

    g_assert_true (g_strv_equal ((const char * const *) a100_offered, a100_nvlink));
  }
}

/* Llama-3-70B decode on A100s with the weights on the host streams them over PCIe every
 * token: a longer TPOT. On the H100, which describes no host memory, the same choice is
 * not legal and the inspector says why. Undo restores both. */
static void
test_placement (void)
{
  guint a100, h100;
  BpwWindow *window = open_on (A100, DECODE, &a100);
  BpwInspector *inspector = bpw_window_get_inspector (window);
  GtkWidget *weights = row (window, "mapping/placement.weight");
  Numbers before = numbers (window, a100, DECODE), after;

  g_assert_cmpstr (selected_label (weights), ==, "Device memory (hbm)");
  choose (weights, "Host memory (host)");
  wait_edit (window);
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (candidate_mapping (window, a100),
                                                    "placement"), "weight"), ==, "host");
  after = numbers (window, a100, DECODE);
  g_assert_cmpfloat (after.step_s, >, before.step_s);
  g_assert_cmpfloat (after.sheet_s, >, before.sheet_s);
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, a100, DECODE), before);

  h100 = candidate_of (bpw_window_get_study (window), H100);
  bpw_window_select (window, h100, scenario_of (bpw_window_get_study (window), DECODE));
  wait_edit (window);
  g_assert_null (bpw_inspector_get_banner (inspector));
  choose (row (window, "mapping/placement.kv_cache"), "Host memory (none)");
  wait_edit (window);
  g_assert_false (numbers (window, h100, DECODE).legal);
  g_assert_nonnull (bpw_inspector_get_banner (inspector));
  g_assert_nonnull (strstr (bpw_inspector_get_banner (inspector), "no host memory level"));
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_null (bpw_inspector_get_banner (inspector));

}

/* Matrix multiplies on the vector engine are slower; an explicit tile is written whole,
 * and impossible edges are refused where they were typed. */
static void
test_engine_and_tiling (void)
{
  guint h100;
  BpwWindow *window = open_on (H100, PREFILL, &h100);
  GtkWidget *matmul = row (window, "mapping/engines.matmul");
  GtkWidget *automatic = row (window, "mapping/tiling");
  GtkWidget *edge = row (window, "mapping/tiling.k");
  Numbers before = numbers (window, h100, PREFILL);
  JsonObject *tiling;

  g_assert_cmpstr (selected_label (matmul), ==, "Automatic (tensor-cores)");
  choose (matmul, "cuda-cores (vector)");
  wait_edit (window);
  g_assert_cmpfloat (numbers (window, h100, PREFILL).step_s, >, before.step_s);
  g_assert_cmpfloat (numbers (window, h100, PREFILL).sheet_s, >, before.sheet_s);
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, PREFILL), before);

  g_assert_false (gtk_widget_get_visible (edge));
  gtk_switch_set_active (g_object_get_data (G_OBJECT (automatic), "bpw-switch"), FALSE);
  wait_edit (window);
  g_assert_true (gtk_widget_get_visible (edge));
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (edge)), ==, "64");
  bpw_value_row_commit_text (BPW_VALUE_ROW (edge), "32");
  wait_edit (window);
  tiling = json_object_get_object_member (candidate_mapping (window, h100), "tiling");
  g_assert_cmpint (json_object_get_int_member (tiling, "m"), ==, 128);
  g_assert_cmpint (json_object_get_int_member (tiling, "n"), ==, 128);
  g_assert_cmpint (json_object_get_int_member (tiling, "k"), ==, 32);

  bpw_value_row_commit_text (BPW_VALUE_ROW (edge), "0");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (edge)));
  bpw_value_row_commit_text (BPW_VALUE_ROW (edge), "2000000");
  g_assert_cmpstr (bpw_value_row_get_error (BPW_VALUE_ROW (edge)), ==,
                   "A tile edge is at most 1048576 elements");
  g_assert_false (bpw_window_get_edit_pending (window));

  g_assert_true (bpw_window_undo (window));
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, PREFILL), before);
  g_assert_false (bpw_window_get_can_undo (window));

}

/* "For this scenario only": decode gets TP 4 of its own and prefill keeps TP 8 (its very
 * Overview item); the reset button and undo take it back. */
static void
test_scenario_only (void)
{
  guint h100;
  BpwWindow *window = open_on (H100, DECODE, &h100);
  BpwInspector *inspector = bpw_window_get_inspector (window);
  BpwStudy *study = bpw_window_get_study (window);
  const BpwStudyCandidate *c = bpw_study_get_candidate (study, h100);
  GtkWidget *scope = row (window, "mapping/scope");
  GtkWidget *tp = row (window, "mapping/parallel.tp");
  Numbers before = numbers (window, h100, DECODE);
  g_autoptr(BpwOverviewItem) prefill = NULL;
  g_autoptr(BpwOverviewItem) prefill_after = NULL;
  guint n_scenarios = bpw_study_get_n_scenarios (study);
  JsonObject *own;

  prefill = g_list_model_get_item (bpw_window_get_overview_items (window),
                                   h100 * n_scenarios + scenario_of (study, PREFILL));
  g_assert_false (bpw_inspector_get_mapping_scope (inspector));
  gtk_switch_set_active (g_object_get_data (G_OBJECT (scope), "bpw-switch"), TRUE);
  g_assert_true (bpw_inspector_get_mapping_scope (inspector));
  g_assert_false (bpw_window_get_can_undo (window));

  bpw_value_row_commit_text (BPW_VALUE_ROW (tp), "4");
  g_assert_null (bpw_value_row_get_error (BPW_VALUE_ROW (tp)));
  wait_edit (window);
  own = bpw_study_candidate_get_scenario_mapping (c, DECODE);
  g_assert_nonnull (own);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (own, "parallel"),
                                               "tp"), ==, 4);
  g_assert_cmpuint (json_object_get_size (candidate_mapping (window, h100)), ==, 0);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (tp)), ==,
                   "Set for this scenario");
  g_assert_true (bpw_value_row_get_can_reset (BPW_VALUE_ROW (tp)));
  g_assert_cmpfloat (numbers (window, h100, DECODE).step_s, !=, before.step_s);
  prefill_after = g_list_model_get_item (bpw_window_get_overview_items (window),
                                         h100 * n_scenarios + scenario_of (study, PREFILL));
  g_assert_true (prefill_after == prefill);

  /* Reset takes the member out; the scenario's object is then empty, and TP is 8 again. */
  bpw_value_row_reset (BPW_VALUE_ROW (tp));
  wait_edit (window);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (tp)), ==, "8");
  assert_same (numbers (window, h100, DECODE), before);
  g_assert_true (bpw_window_undo (window));
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_null (bpw_study_candidate_get_scenario_mapping (c, DECODE));
  assert_same (numbers (window, h100, DECODE), before);

}

/* How many of the Sheet's MLP rows with arithmetic say @precision in their Precision column. */
static guint
mlp_rows_in (BpwWindow  *window,
             const char *precision)
{
  GListModel *rows = bpw_sheet_page_get_rows (bpw_window_get_sheet_page (window));
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(BpwSheetItem) item = g_list_model_get_item (rows, i);
      g_autofree char *text = NULL;

      if (bpw_sheet_item_get_layer_type (item) != BPW_LAYER_MLP
          || bpw_sheet_item_get_flops (item) <= 0)
        continue;
      text = bpw_sheet_item_format (item, BPW_SHEET_COLUMN_PRECISION, BPW_BYTE_UNITS_BINARY);
      n += strcmp (text, precision) == 0;
    }
  return n;
}

/* Class @cls of the candidate's precision policy; it must be there. */
static JsonObject *
policy_class (BpwWindow  *window,
              guint       candidate,
              const char *cls)
{
  JsonObject *mapping = candidate_mapping (window, candidate);
  JsonObject *policy;

  g_assert_true (json_object_has_member (mapping, "precision"));
  policy = json_object_get_object_member (mapping, "precision");
  g_assert_true (json_object_has_member (policy, cls));
  return json_object_get_object_member (policy, cls);
}

static void
assert_weights (BpwWindow  *window,
                guint       candidate,
                const char *weights,
                gint64      group)
{
  const char * const classes[] = { "attention_projection", "mlp" };

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      JsonObject *object = policy_class (window, candidate, classes[i]);

      g_assert_cmpstr (json_object_get_string_member (object, "weights"), ==, weights);
      g_assert_cmpint (json_object_get_int_member (object, "group"), ==, group);
    }
}

/* Llama-3-70B decode on H100s with INT4 weights, as `--weights int4` writes them: both
 * weight classes say int4 in groups of 128, the Sheet's MLP matmuls say so, and each
 * token reads fewer weight bytes (a shorter TPOT). The group is written to both classes,
 * Native takes the two members out and leaves the rest of the policy as written, and for
 * one scenario overrides the candidate's INT4; undo restores each step. */
static void
test_weight_only (void)
{
  static const char *const policy_json =
    "{\"precision\": {\"mlp\": {\"format\": \"bf16\"}, \"lm_head\": {\"format\": \"bf16\"}}}";
  guint h100;
  BpwWindow *window = open_on (H100, DECODE, &h100);
  GtkWidget *weights = row (window, "mapping/precision.weights");
  GtkWidget *group = row (window, "mapping/precision.group");
  Numbers before = numbers (window, h100, DECODE), after;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) preset = json_from_string (policy_json, &error);
  JsonObject *mlp;

  g_assert_no_error (error);
  g_assert_cmpstr (selected_label (weights), ==, "Native");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (weights)), ==, "Default");
  g_assert_false (gtk_widget_get_sensitive (group));
  g_assert_cmpuint (mlp_rows_in (window, "int4 w/ g128 (bf16 compute)"), ==, 0);

  choose (weights, "INT4");
  wait_edit (window);
  assert_weights (window, h100, "int4", 128);
  g_assert_cmpuint (json_object_get_size (policy_class (window, h100, "mlp")), ==, 2);
  g_assert_false (json_object_has_member (json_object_get_object_member (
                                            candidate_mapping (window, h100), "precision"),
                                          "lm_head"));
  g_assert_cmpstr (selected_label (weights), ==, "INT4");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (weights)), ==,
                   "Set by this candidate");
  g_assert_true (gtk_widget_get_sensitive (group));
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (group)), ==, "128");
  g_assert_cmpuint (mlp_rows_in (window, "int4 w/ g128 (bf16 compute)"), >, 0);
  after = numbers (window, h100, DECODE);
  g_test_message ("TPOT native %.3f ms, int4 %.3f ms", before.step_s * 1e3, after.step_s * 1e3);
  g_assert_true (after.legal);
  g_assert_cmpfloat (after.step_s, <, before.step_s);
  g_assert_cmpfloat (after.sheet_s, <, before.sheet_s);

  bpw_value_row_commit_text (BPW_VALUE_ROW (group), "70000");
  g_assert_cmpstr (bpw_value_row_get_error (BPW_VALUE_ROW (group)), ==,
                   "A quantisation group is at most 65536 elements");
  g_assert_false (bpw_window_get_edit_pending (window));
  bpw_value_row_commit_text (BPW_VALUE_ROW (group), "64");
  wait_edit (window);
  assert_weights (window, h100, "int4", 64);
  g_assert_cmpuint (mlp_rows_in (window, "int4 w/ g64 (bf16 compute)"), >, 0);

  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_weights (window, h100, "int4", 128);
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_cmpuint (json_object_get_size (candidate_mapping (window, h100)), ==, 0);
  assert_same (numbers (window, h100, DECODE), before);
  g_assert_cmpstr (selected_label (weights), ==, "Native");
  g_assert_false (gtk_widget_get_sensitive (group));
  g_assert_cmpuint (mlp_rows_in (window, "int4 w/ g128 (bf16 compute)"), ==, 0);

  /* Over a policy of its own, the other members stay; INT8 then Native gives it back. */
  g_assert_true (bpw_window_apply_edit (window,
                                        bpw_study_edit_new_mapping (bpw_window_get_study (window),
                                                                    h100, preset, "policy"),
                                        &error));
  g_assert_no_error (error);
  wait_edit (window);
  choose (weights, "INT8");
  wait_edit (window);
  assert_weights (window, h100, "int8", 128);
  mlp = policy_class (window, h100, "mlp");
  g_assert_cmpstr (json_object_get_string_member (mlp, "format"), ==, "bf16");
  g_assert_cmpuint (json_object_get_size (policy_class (window, h100, "lm_head")), ==, 1);
  g_assert_cmpuint (mlp_rows_in (window, "int8 w/ g128 (bf16 compute)"), >, 0);
  choose (weights, "Native");
  wait_edit (window);
  g_assert_true (json_node_equal (bpw_study_get_candidate (bpw_window_get_study (window),
                                                           h100)->mapping, preset));
  g_assert_cmpuint (mlp_rows_in (window, "int8 w/ g128 (bf16 compute)"), ==, 0);
  for (guint i = 0; i < 3; i++)
    g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_cmpuint (json_object_get_size (candidate_mapping (window, h100)), ==, 0);
  assert_same (numbers (window, h100, DECODE), before);
  g_assert_false (bpw_window_get_can_undo (window));

  /* For decode only, Native over the candidate's INT4 says "native" and runs as before. */
  choose (weights, "INT4");
  wait_edit (window);
  bpw_inspector_set_mapping_scope (bpw_window_get_inspector (window), TRUE);
  choose (weights, "Native");
  wait_edit (window);
  {
    const BpwStudyCandidate *c = bpw_study_get_candidate (bpw_window_get_study (window), h100);
    JsonObject *own = bpw_study_candidate_get_scenario_mapping (c, DECODE);
    JsonObject *scenario_mlp;

    g_assert_nonnull (own);
    scenario_mlp = json_object_get_object_member (
      json_object_get_object_member (own, "precision"), "mlp");
    g_assert_cmpstr (json_object_get_string_member (scenario_mlp, "weights"), ==, "native");
    g_assert_false (json_object_has_member (scenario_mlp, "group"));
  }
  assert_weights (window, h100, "int4", 128);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (weights)), ==,
                   "Set for this scenario");
  g_assert_false (gtk_widget_get_sensitive (group));
  g_assert_cmpfloat (numbers (window, h100, DECODE).step_s, ==, before.step_s);

  /* INT8 for the candidate under decode's own Native is one edit: decode still shows and
   * runs Native, and the list showing so again is not taken for a second choice. */
  bpw_inspector_set_mapping_scope (bpw_window_get_inspector (window), FALSE);
  choose (weights, "INT8");
  wait_edit (window);
  assert_weights (window, h100, "int8", 128);
  g_assert_cmpstr (selected_label (weights), ==, "Native");
  g_assert_cmpfloat (numbers (window, h100, DECODE).step_s, ==, before.step_s);
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_weights (window, h100, "int4", 128);

  g_assert_true (bpw_window_undo (window));
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_null (bpw_study_candidate_get_scenario_mapping (
    bpw_study_get_candidate (bpw_window_get_study (window), h100), DECODE));
  g_assert_cmpuint (json_object_get_size (candidate_mapping (window, h100)), ==, 0);
  assert_same (numbers (window, h100, DECODE), before);
}

/* Pictures for people to look at, with BPW_TEST_SHOT_DIR set (under Xvfb): the Mapping
 * page of H100 on decode with choices for this scenario only, at its top, its middle and
 * its end with the placement expander open. */
static void
test_screenshot (void)
{
  guint h100;
  BpwWindow *window;
  GtkWidget *weights, *page;
  GtkAdjustment *adjustment;

  if (g_getenv ("BPW_TEST_SHOT_DIR") == NULL || g_getenv ("DISPLAY") == NULL)
    {
      g_test_skip ("set BPW_TEST_SHOT_DIR (and run under an X server) for screenshots");
      return;
    }
  window = open_on (H100, DECODE, &h100);
  g_object_set (window, "show-inspector", TRUE, NULL);
  bpw_inspector_set_mapping_scope (bpw_window_get_inspector (window), TRUE);
  bpw_value_row_commit_text (BPW_VALUE_ROW (row (window, "mapping/micro_batch")), "32");
  choose (row (window, "mapping/collective_algorithms[0]"), "Tree");
  choose (row (window, "mapping/placement.kv_cache"), "Host memory (none)");
  gtk_switch_set_active (g_object_get_data (G_OBJECT (row (window, "mapping/tiling")),
                                            "bpw-switch"), FALSE);
  wait_edit (window);
  save_screen (GTK_WIDGET (window), "mapping-inspector.png");

  weights = row (window, "mapping/placement.weight");
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (
    weights, ADW_TYPE_EXPANDER_ROW)), TRUE);
  page = gtk_widget_get_ancestor (weights, ADW_TYPE_PREFERENCES_PAGE);
  adjustment = gtk_scrolled_window_get_vadjustment (
    GTK_SCROLLED_WINDOW (bpw_test_find_widget (page, GTK_TYPE_SCROLLED_WINDOW)));
  /* Scroll once the expander has its height. */
  pause_for_animation ();
  gtk_adjustment_set_value (adjustment, 0.45 * gtk_adjustment_get_upper (adjustment));
  save_screen (GTK_WIDGET (window), "mapping-inspector-middle.png");
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  save_screen (GTK_WIDGET (window), "mapping-inspector-end.png");

  /* The engines, with one matmul kind on the vector engine. */
  choose (row (window, "mapping/engines.batched_matmul"), "cuda-cores (vector)");
  wait_edit (window);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (
    weights, ADW_TYPE_EXPANDER_ROW)), FALSE);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (
    row (window, "mapping/engines.matmul"), ADW_TYPE_EXPANDER_ROW)), TRUE);
  pause_for_animation ();
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  save_screen (GTK_WIDGET (window), "mapping-inspector-engines.png");

}

/* @window's picture into @name, scrolled to the Weights rows of @inspector. */
static void
shoot_weights (GtkWidget  *window,
               GtkWidget  *inspector,
               const char *name)
{
  GtkWidget *weights, *page;
  GtkScrolledWindow *scrolled;
  GtkAdjustment *adjustment;
  double x, y;

  /* A new selection rebuilds the page: its rows have their places after a frame. */
  pause_for_animation ();
  bpw_test_wait_for_frame (window);
  weights = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.weights");
  page = gtk_widget_get_ancestor (weights, ADW_TYPE_PREFERENCES_PAGE);
  scrolled = GTK_SCROLLED_WINDOW (bpw_test_find_widget (page, GTK_TYPE_SCROLLED_WINDOW));
  adjustment = gtk_scrolled_window_get_vadjustment (scrolled);
  g_assert_true (gtk_widget_translate_coordinates (weights,
                                                   gtk_scrolled_window_get_child (scrolled),
                                                   0, 0, &x, &y));
  /* @y is where the row shows now: put it 200 pixels below the top. */
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) + y - 200);
  save_screen (window, name);
}

/* The study of Llama 3 8B decode in bf16 and in fp8 on one H100, with candidates whose
 * mappings are empty, INT4, and INT4 over a policy computing in bf16. */
static BpwStudy *
fp8_study_new (void)
{
  static const char *const study_json =
    "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"fp8\",\n"
    " \"workloads\": [{\"name\": \"llama\", \"model\": \"llama3-8b\"}],\n"
    " \"scenarios\": [\n"
    "  {\"name\": \"bf16\", \"workload\": \"llama\", \"phase\": \"decode\",\n"
    "   \"global_batch\": 1, \"micro_batch\": 1, \"context\": 1024, \"dtype\": \"bf16\"},\n"
    "  {\"name\": \"fp8\", \"workload\": \"llama\", \"phase\": \"decode\",\n"
    "   \"global_batch\": 1, \"micro_batch\": 1, \"context\": 1024, \"dtype\": \"fp8\"}],\n"
    " \"blueprints\": [\"" H100 "\"],\n"
    " \"candidates\": [\n"
    "  {\"name\": \"plain\", \"blueprint\": \"" H100 "\", \"mapping\": {}},\n"
    "  {\"name\": \"int4\", \"blueprint\": \"" H100 "\", \"mapping\": {\"precision\": {\n"
    "   \"attention_projection\": {\"weights\": \"int4\", \"group\": 128},\n"
    "   \"mlp\": {\"weights\": \"int4\", \"group\": 128}}}},\n"
    "  {\"name\": \"bf16 int4\", \"blueprint\": \"" H100 "\", \"mapping\": {\"precision\": {\n"
    "   \"attention_projection\": {\"format\": \"bf16\", \"weights\": \"int4\"},\n"
    "   \"mlp\": {\"format\": \"bf16\", \"weights\": \"int4\"}}}}]}";
  g_autoptr(GError) error = NULL;
  BpwStudy *study = bpw_study_new_from_data ("fp8.bpw-study.json", study_json, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (study);
  return study;
}

/* Weight-only quantisation computes at the activation precision, so an fp8 scenario
 * cannot take it, as `bpw --weights int4 --dtype fp8` refuses: its Weights rows cannot be
 * set and say why, naming the class and format as the command line does. A choice the
 * plan ignores there stays on show, marked ignored, and can still go back to Native. A
 * policy computing both classes in bf16 takes it on fp8 too; bf16 always does. */
static void
test_weight_only_fp8 (void)
{
  g_autoptr(BpwStudy) study = fp8_study_new ();
  GtkWidget *inspector = g_object_ref_sink (bpw_inspector_new ());
  GtkWidget *weights, *group, *shot = NULL;
  const char *subtitle;

  /* With BPW_TEST_SHOT_DIR set (under Xvfb), a picture of the fp8 scenario's rows. */
  if (g_getenv ("BPW_TEST_SHOT_DIR") != NULL && g_getenv ("DISPLAY") != NULL)
    {
      shot = gtk_window_new ();
      gtk_window_set_default_size (GTK_WINDOW (shot), 520, 900);
      gtk_window_set_child (GTK_WINDOW (shot), inspector);
      gtk_window_present (GTK_WINDOW (shot));
    }
  bpw_inspector_set_study (BPW_INSPECTOR (inspector), study);
  bpw_inspector_set_selection (BPW_INSPECTOR (inspector), 0, 0, NULL);
  bpw_inspector_show_page (BPW_INSPECTOR (inspector), "mapping");
  weights = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.weights");
  group = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.group");
  g_assert_nonnull (weights);
  g_assert_nonnull (group);
  g_assert_true (gtk_widget_get_sensitive (weights));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (weights)), ==, "Default");

  /* fp8, nothing chosen: not available, and why. */
  bpw_inspector_set_selection (BPW_INSPECTOR (inspector), 0, 1, NULL);
  weights = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.weights");
  group = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.group");
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (weights));
  g_test_message ("fp8, native: %s", subtitle);
  g_assert_false (gtk_widget_get_sensitive (weights));
  g_assert_false (gtk_widget_get_sensitive (group));
  g_assert_cmpstr (selected_label (weights), ==, "Native");
  g_assert_cmpstr (subtitle, ==, "Not available: weight-only quantisation computes at the "
                   "activation precision, but attention_projection runs in fp8-e4m3");
  g_assert_cmpstr (bpw_tooltip_get (weights), ==, subtitle);
  if (shot != NULL)
    shoot_weights (shot, inspector, "mapping-inspector-fp8.png");

  /* fp8 under a candidate's INT4: ignored, and Native can still be chosen. */
  bpw_inspector_set_selection (BPW_INSPECTOR (inspector), 1, 1, NULL);
  weights = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.weights");
  group = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.group");
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (weights));
  g_test_message ("fp8, int4: %s", subtitle);
  g_assert_cmpstr (selected_label (weights), ==, "INT4");
  g_assert_true (gtk_widget_get_sensitive (weights));
  g_assert_false (gtk_widget_get_sensitive (group));
  g_assert_true (g_str_has_prefix (subtitle, "Ignored: weight-only quantisation computes at "
                                   "the activation precision, but attention_projection "
                                   "runs in fp8-e4m3"));
  if (shot != NULL)
    shoot_weights (shot, inspector, "mapping-inspector-fp8-ignored.png");
  /* The same candidate on bf16 quantises as asked. */
  bpw_inspector_set_selection (BPW_INSPECTOR (inspector), 1, 0, NULL);
  weights = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.weights");
  group = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.group");
  g_assert_true (gtk_widget_get_sensitive (weights));
  g_assert_true (gtk_widget_get_sensitive (group));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (weights)), ==,
                   "Set by this candidate");
  g_assert_null (bpw_tooltip_get (weights));

  /* fp8 with both weight classes computing in bf16 by policy: INT4 applies. */
  bpw_inspector_set_selection (BPW_INSPECTOR (inspector), 2, 1, NULL);
  weights = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.weights");
  group = bpw_inspector_lookup_row (BPW_INSPECTOR (inspector), "mapping/precision.group");
  g_assert_true (gtk_widget_get_sensitive (weights));
  g_assert_true (gtk_widget_get_sensitive (group));
  g_assert_cmpstr (selected_label (weights), ==, "INT4");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (weights)), ==,
                   "Set by this candidate");
  if (shot != NULL)
    gtk_window_destroy (GTK_WINDOW (shot));
  g_object_unref (inspector);
}

/* The description of the first preferences group below @root that contains @needle. */
static const char *
group_description (GtkWidget  *root,
                   const char *needle)
{
  if (ADW_IS_PREFERENCES_GROUP (root))
    {
      const char *text = adw_preferences_group_get_description (ADW_PREFERENCES_GROUP (root));

      if (text != NULL && strstr (text, needle) != NULL)
        return text;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *text = group_description (child, needle);

      if (text != NULL)
        return text;
    }
  return NULL;
}

/* The Scenario page names a workload's sliding window beside it (Qwen2 style: the first
 * two layers attend fully), and says nothing of one for a model without. */
static void
test_scenario_window (void)
{
  static const char *const study_json =
    "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"window\",\n"
    " \"workloads\": [\n"
    "  {\"name\": \"windowed\", \"model\": {\"vocab\": 1000, \"hidden\": 256, \"layers\": 6,\n"
    "   \"heads\": 4, \"ffn\": 512, \"positions\": \"rotary\", \"sliding_window\": 64,\n"
    "   \"window_first_layer\": 2}},\n"
    "  {\"name\": \"full\", \"model\": {\"vocab\": 1000, \"hidden\": 256, \"layers\": 6,\n"
    "   \"heads\": 4, \"ffn\": 512, \"positions\": \"rotary\"}}],\n"
    " \"scenarios\": [\n"
    "  {\"name\": \"w\", \"workload\": \"windowed\", \"phase\": \"prefill\",\n"
    "   \"global_batch\": 1, \"micro_batch\": 1, \"seq\": 256},\n"
    "  {\"name\": \"f\", \"workload\": \"full\", \"phase\": \"prefill\",\n"
    "   \"global_batch\": 1, \"micro_batch\": 1, \"seq\": 256}],\n"
    " \"blueprints\": [\"" H100 "\"],\n"
    " \"candidates\": [{\"name\": \"h100\", \"blueprint\": \"" H100 "\", \"mapping\": {}}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_from_data ("window.bpw-study.json", study_json, -1,
                                                       &error);
  GtkWidget *inspector;
  const char *text;

  g_assert_no_error (error);
  g_assert_nonnull (study);
  inspector = g_object_ref_sink (bpw_inspector_new ());
  bpw_inspector_set_study (BPW_INSPECTOR (inspector), study);
  bpw_inspector_set_selection (BPW_INSPECTOR (inspector), 0, 0, NULL);
  bpw_inspector_show_page (BPW_INSPECTOR (inspector), "scenario");
  /* The Scenario page's header: "Prefill · WORKLOAD · 1 device". */
  text = group_description (inspector, " · windowed");
  g_assert_nonnull (text);
  g_test_message ("windowed: %s", text);
  g_assert_nonnull (strstr (text, " · windowed, sliding window 64 tokens (layers 2–5) · "));

  bpw_inspector_set_selection (BPW_INSPECTOR (inspector), 0, 1, NULL);
  text = group_description (inspector, " · full");
  g_assert_nonnull (text);
  g_test_message ("full: %s", text);
  g_assert_null (strstr (text, "sliding window"));
  g_object_unref (inspector);
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

  g_test_add_func ("/bpw/ui/MappingInspector/tier", test_tier);
  g_test_add_func ("/bpw/ui/MappingInspector/algorithm", test_algorithm);
  g_test_add_func ("/bpw/ui/MappingInspector/placement", test_placement);
  g_test_add_func ("/bpw/ui/MappingInspector/engine-and-tiling", test_engine_and_tiling);
  g_test_add_func ("/bpw/ui/MappingInspector/scenario-only", test_scenario_only);
  g_test_add_func ("/bpw/ui/MappingInspector/weight-only", test_weight_only);
  g_test_add_func ("/bpw/ui/MappingInspector/weight-only-fp8", test_weight_only_fp8);
  g_test_add_func ("/bpw/ui/MappingInspector/scenario-window", test_scenario_window);
  g_test_add_func ("/bpw/ui/MappingInspector/screenshot", test_screenshot);

  result = g_test_run ();
  close_shared_window ();
  bpw_test_remove_tree (scratch);
  return result;
}
