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

#include "bpw-ui-test-util.h"

#define A100 "a100-sxm-80gb"
#define H100 "h100-sxm-80gb"
#define TRAIN "gpt3-175b-train"
#define PREFILL "llama3-70b-prefill"
#define DECODE "llama3-70b-decode"

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
candidate_of (BpwStudy   *study,
              const char *blueprint)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->blueprint, blueprint) == 0)
      return i;
  g_assert_not_reached ();
}

static guint
scenario_of (BpwStudy   *study,
             const char *name)
{
  guint index = G_MAXUINT;

  g_assert_true (bpw_study_lookup_scenario (study, name, &index));
  return index;
}

/* One window for all the tests: opening the default study is most of their time. Each
 * test undoes what it did, so that the next finds the study as it was. */
static BpwWindow *shared_window;

/* The window on the default study with @blueprint's candidate on @scenario selected and
 * the Mapping page editing the candidate's own mapping. */
static BpwWindow *
open_on (const char *blueprint,
         const char *scenario,
         guint      *candidate)
{
  BpwStudy *study;

  if (shared_window == NULL)
    shared_window = g_object_ref_sink (bpw_test_open_default ());
  study = bpw_window_get_study (shared_window);
  g_assert_false (bpw_window_get_can_undo (shared_window));
  *candidate = candidate_of (study, blueprint);
  bpw_window_select (shared_window, *candidate, scenario_of (study, scenario));
  wait_edit (shared_window);
  bpw_inspector_show_page (bpw_window_get_inspector (shared_window), "mapping");
  bpw_inspector_set_mapping_scope (bpw_window_get_inspector (shared_window), FALSE);
  return shared_window;
}

static const BpwOverviewEvaluation *
evaluation (BpwWindow  *window,
            guint       candidate,
            const char *scenario)
{
  BpwStudy *study = bpw_window_get_study (window);
  g_autoptr(BpwOverviewItem) item = g_list_model_get_item (
    bpw_window_get_overview_items (window),
    candidate * bpw_study_get_n_scenarios (study) + scenario_of (study, scenario));

  /* The window keeps the item; its evaluation lives as long. */
  return bpw_overview_item_get_evaluation (item);
}

static GtkWidget *
row (BpwWindow  *window,
     const char *key)
{
  GtkWidget *widget = bpw_inspector_lookup_row (bpw_window_get_inspector (window), key);

  if (widget == NULL)
    g_error ("no inspector row %s", key);
  return widget;
}

/* The labels a combo row offers, in order (a new strv). */
static char **
choices (GtkWidget *combo)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (combo));
  GStrvBuilder *builder = g_strv_builder_new ();
  char **labels;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    g_strv_builder_add (builder, gtk_string_list_get_string (GTK_STRING_LIST (model), i));
  labels = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return labels;
}

/* Picks the choice labelled @label, as a user would. */
static void
choose (GtkWidget  *combo,
        const char *label)
{
  g_auto(GStrv) labels = choices (combo);

  for (guint i = 0; labels[i] != NULL; i++)
    if (strcmp (labels[i], label) == 0)
      {
        adw_combo_row_set_selected (ADW_COMBO_ROW (combo), i);
        return;
      }
  g_error ("no choice %s", label);
}

static const char *
selected_label (GtkWidget *combo)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (combo));

  return gtk_string_list_get_string (GTK_STRING_LIST (model),
                                     adw_combo_row_get_selected (ADW_COMBO_ROW (combo)));
}

static JsonObject *
candidate_mapping (BpwWindow *window,
                   guint      candidate)
{
  return json_node_get_object (bpw_study_get_candidate (bpw_window_get_study (window),
                                                        candidate)->mapping);
}

/* What the Overview and the Sheet show for the selection, to compare after an edit. */
typedef struct
{
  double step_s;   /* Overview: step time, TTFT or TPOT, whichever the phase has */
  double sheet_s;  /* Sheet: the bound plan's step */
  gboolean legal;
} Numbers;

static Numbers
numbers (BpwWindow  *window,
         guint       candidate,
         const char *scenario)
{
  const BpwOverviewEvaluation *e = evaluation (window, candidate, scenario);
  Numbers n;

  g_assert_nonnull (e);
  n.step_s = strcmp (scenario, DECODE) == 0 ? e->tpot_s : e->step_time_s;
  n.sheet_s = bpw_sheet_page_get_step_time (bpw_window_get_sheet_page (window));
  n.legal = e->legal;
  return n;
}

static void
assert_same (Numbers a,
             Numbers b)
{
  g_assert_cmpfloat (a.step_s, ==, b.step_s);
  g_assert_cmpfloat (a.sheet_s, ==, b.sheet_s);
  g_assert_cmpint (a.legal, ==, b.legal);
}

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

/* The context-parallel row writes "cp" into the candidate's mapping, shows it back and
 * changes the evaluation; undo takes it back. */
static void
test_context_parallel (void)
{
  guint h100;
  BpwWindow *window = open_on (H100, TRAIN, &h100);
  GtkWidget *cp = row (window, "mapping/parallel.cp");
  Numbers before = numbers (window, h100, TRAIN);
  JsonObject *parallel;

  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (cp)), ==, "1");
  bpw_value_row_commit_text (BPW_VALUE_ROW (cp), "2");
  g_assert_null (bpw_value_row_get_error (BPW_VALUE_ROW (cp)));
  wait_edit (window);
  parallel = json_object_get_object_member (candidate_mapping (window, h100), "parallel");
  g_assert_nonnull (parallel);
  g_assert_cmpint (json_object_get_int_member (parallel, "cp"), ==, 2);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (cp)), ==, "2");
  g_assert_cmpfloat (numbers (window, h100, TRAIN).step_s, !=, before.step_s);

  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_cmpstr (bpw_value_row_get_value (BPW_VALUE_ROW (cp)), ==, "1");
  assert_same (numbers (window, h100, TRAIN), before);
}

/* The context-parallel algorithm: insensitive, and saying why, at CP 1; at CP 2 all-gather
 * KV instead of ring attention writes "allgather" and changes the step; undo restores.
 * The Scenario page's row does the same for the scenario's own decomposition. */
static void
test_cp_algorithm (void)
{
  guint h100;
  BpwWindow *window = open_on (H100, TRAIN, &h100);
  BpwStudy *study = bpw_window_get_study (window);
  BpwInspector *inspector = bpw_window_get_inspector (window);
  GtkWidget *algorithm = row (window, "mapping/parallel.cp_algorithm");
  GtkWidget *scenario_algorithm;
  Numbers before = numbers (window, h100, TRAIN), ring, gather;
  JsonObject *parallel;
  guint train = scenario_of (study, TRAIN);

  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (algorithm)), ==,
                   "Context-parallel algorithm");
  g_assert_false (gtk_widget_get_sensitive (algorithm));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (algorithm)), ==,
                   "Needs context parallelism (CP above 1)");

  bpw_value_row_commit_text (BPW_VALUE_ROW (row (window, "mapping/parallel.cp")), "2");
  wait_edit (window);
  ring = numbers (window, h100, TRAIN);
  g_assert_true (gtk_widget_get_sensitive (algorithm));
  g_assert_cmpstr (selected_label (algorithm), ==, "Ring attention");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (algorithm)), ==,
                   "From the scenario");

  choose (algorithm, "All-gather KV");
  wait_edit (window);
  parallel = json_object_get_object_member (candidate_mapping (window, h100), "parallel");
  g_assert_cmpstr (json_object_get_string_member (parallel, "cp_algorithm"), ==, "allgather");
  g_assert_cmpstr (selected_label (algorithm), ==, "All-gather KV");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (algorithm)), ==,
                   "Set by this candidate");
  gather = numbers (window, h100, TRAIN);
  g_test_message ("GPT-3 175B, CP 2: ring %.6f s, all-gather %.6f s", ring.step_s,
                  gather.step_s);
  g_assert_cmpfloat (gather.step_s, !=, ring.step_s);
  g_assert_cmpfloat (gather.sheet_s, !=, ring.sheet_s);

  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, TRAIN), ring);
  g_assert_cmpstr (selected_label (algorithm), ==, "Ring attention");
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, TRAIN), before);
  g_assert_cmpuint (json_object_get_size (candidate_mapping (window, h100)), ==, 0);

  /* The scenario's own: its decomposition's member, edited as the scenario. */
  bpw_inspector_show_page (inspector, "scenario");
  scenario_algorithm = row (window, "scenario/parallel.cp_algorithm");
  g_assert_false (gtk_widget_get_sensitive (scenario_algorithm));
  bpw_value_row_commit_text (BPW_VALUE_ROW (row (window, "scenario/parallel.cp")), "2");
  wait_edit (window);
  g_assert_true (gtk_widget_get_sensitive (row (window, "scenario/parallel.cp_algorithm")));
  choose (row (window, "scenario/parallel.cp_algorithm"), "All-gather KV");
  wait_edit (window);
  g_assert_cmpint (bpw_study_get_scenario (study, train)->parallel.cp_algorithm, ==,
                   BPW_CP_ALLGATHER);
  g_assert_cmpfloat (numbers (window, h100, TRAIN).step_s, ==, gather.step_s);
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  g_assert_cmpint (bpw_study_get_scenario (study, train)->parallel.cp_algorithm, ==,
                   BPW_CP_RING);
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, TRAIN), before);
  bpw_inspector_show_page (inspector, "mapping");
}

static void save_screen (GtkWidget  *window,
                         const char *name);

static const char *
value_of (GtkWidget *value_row)
{
  return bpw_value_row_get_value (BPW_VALUE_ROW (value_row));
}

/* The layer split of GPT-3 175B (96 layers): at PP 8 automatic is even, 12 a stage; at
 * PP 7, which does not divide them, even puts the extra layers on the later stages, the
 * last (with the head and the loss) among them, and balanced by time moves them off it
 * and shortens the step; lighter first and last by 1 and 2; a list that does not add up
 * to 96 or has the wrong count is refused with the core's words; a good one is written as
 * pp_layers, saved and read back. Each way writes one member; undo restores each step. At
 * PP 1 the rows say they need a pipeline. */
static void
test_pipeline_split (void)
{
  guint h100;
  BpwWindow *window = open_on (H100, TRAIN, &h100);
  GtkWidget *split = row (window, "mapping/parallel.pp_split");
  GtkWidget *lighter = row (window, "mapping/parallel.pp_lighter");
  GtkWidget *layers = row (window, "mapping/parallel.pp_layers");
  Numbers before = numbers (window, h100, TRAIN), even, balanced;
  g_autoptr(GError) error = NULL;
  g_autofree char *folder = g_dir_make_tmp ("bpw-split-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autoptr(BpwStudy) saved = NULL;
  JsonObject *parallel;

  g_assert_no_error (error);
  g_assert_cmpstr (selected_label (split), ==, "Automatic");
  g_assert_cmpstr (value_of (layers), ==, "12,12,12,12,12,12,12,12");
  g_assert_false (gtk_widget_get_sensitive (lighter));
  g_assert_true (gtk_widget_get_sensitive (layers));

  bpw_value_row_commit_text (BPW_VALUE_ROW (row (window, "mapping/parallel.pp")), "7");
  wait_edit (window);
  choose (split, "Even");
  wait_edit (window);
  parallel = json_object_get_object_member (candidate_mapping (window, h100), "parallel");
  g_assert_cmpstr (json_object_get_string_member (parallel, "pp_split"), ==, "even");
  g_assert_cmpstr (value_of (layers), ==, "13,13,14,14,14,14,14");
  even = numbers (window, h100, TRAIN);

  choose (split, "Balanced by time");
  wait_edit (window);
  parallel = json_object_get_object_member (candidate_mapping (window, h100), "parallel");
  g_assert_cmpstr (json_object_get_string_member (parallel, "pp_split"), ==, "balanced");
  g_assert_false (json_object_has_member (parallel, "pp_lighter"));
  g_assert_false (json_object_has_member (parallel, "pp_layers"));
  balanced = numbers (window, h100, TRAIN);
  g_test_message ("GPT-3 175B, PP 7: even %.6f s, balanced %.6f s (%s)", even.step_s,
                  balanced.step_s, value_of (layers));
  g_assert_cmpstr (value_of (layers), !=, "13,13,14,14,14,14,14");
  g_assert_cmpfloat (balanced.step_s, <, even.step_s);
  g_assert_cmpfloat (balanced.sheet_s, !=, even.sheet_s);

  choose (split, "Lighter first and last");
  wait_edit (window);
  parallel = json_object_get_object_member (candidate_mapping (window, h100), "parallel");
  g_assert_cmpint (json_object_get_int_member (parallel, "pp_lighter"), ==, 1);
  g_assert_false (json_object_has_member (parallel, "pp_split"));
  g_assert_true (gtk_widget_get_sensitive (lighter));
  g_assert_cmpstr (value_of (lighter), ==, "1");
  g_test_message ("lighter by 1: %s", value_of (layers));
  g_assert_cmpstr (value_of (layers), ==, "13,14,14,14,14,14,13");

  bpw_value_row_commit_text (BPW_VALUE_ROW (lighter), "2");
  wait_edit (window);
  parallel = json_object_get_object_member (candidate_mapping (window, h100), "parallel");
  g_assert_cmpint (json_object_get_int_member (parallel, "pp_lighter"), ==, 2);
  g_test_message ("lighter by 2: %s", value_of (layers));
  g_assert_cmpstr (value_of (layers), ==, "12,14,14,14,15,15,12");
  /* A picture of the rows, for people to look at. */
  if (g_getenv ("BPW_TEST_SHOT_DIR") != NULL && g_getenv ("DISPLAY") != NULL)
    {
      g_object_set (window, "show-inspector", TRUE, NULL);
      gtk_widget_grab_focus (split);
      save_screen (GTK_WIDGET (window), "mapping-inspector-split.png");
      g_object_set (window, "show-inspector", FALSE, NULL);
    }

  /* Lists the core refuses: the words are its own. */
  bpw_value_row_commit_text (BPW_VALUE_ROW (layers), "14,14,14,14,14,14,11");
  g_test_message ("95 layers: %s", bpw_value_row_get_error (BPW_VALUE_ROW (layers)));
  g_assert_nonnull (strstr (bpw_value_row_get_error (BPW_VALUE_ROW (layers)),
                            "the stages hold 95 layers, the model has 96"));
  bpw_value_row_commit_text (BPW_VALUE_ROW (layers), "48,48");
  g_test_message ("2 entries: %s", bpw_value_row_get_error (BPW_VALUE_ROW (layers)));
  g_assert_nonnull (strstr (bpw_value_row_get_error (BPW_VALUE_ROW (layers)), "2 entries"));
  bpw_value_row_commit_text (BPW_VALUE_ROW (layers), "13,12,0,12");
  g_assert_nonnull (bpw_value_row_get_error (BPW_VALUE_ROW (layers)));
  g_assert_false (bpw_window_get_edit_pending (window));
  g_assert_cmpint (json_object_get_int_member (parallel, "pp_lighter"), ==, 2);

  bpw_value_row_commit_text (BPW_VALUE_ROW (layers), "14, 14, 14, 14, 14, 14, 12");
  g_assert_null (bpw_value_row_get_error (BPW_VALUE_ROW (layers)));
  wait_edit (window);
  parallel = json_object_get_object_member (candidate_mapping (window, h100), "parallel");
  g_assert_false (json_object_has_member (parallel, "pp_lighter"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (parallel,
                                                                         "pp_layers")), ==, 7);
  g_assert_cmpstr (selected_label (split), ==, "Explicit");
  g_assert_cmpstr (value_of (layers), ==, "14,14,14,14,14,14,12");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (layers)), ==,
                   "Set by this candidate");

  /* Saved and read back, the list is the candidate's. */
  path = g_build_filename (folder, "split.bpw-study.json", NULL);
  g_assert_true (bpw_study_save_copy (bpw_window_get_study (window), path, &error));
  g_assert_no_error (error);
  saved = bpw_study_new_from_file (path, &error);
  g_assert_no_error (error);
  parallel = json_object_get_object_member (
    json_node_get_object (bpw_study_get_candidate (saved, h100)->mapping), "parallel");
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (parallel,
                                                                             "pp_layers"), 6),
                   ==, 12);
  bpw_test_remove_tree (folder);

  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (bpw_window_undo (window));
      wait_edit (window);
    }
  assert_same (numbers (window, h100, TRAIN), balanced);
  g_assert_cmpstr (selected_label (split), ==, "Balanced by time");
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, TRAIN), even);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (bpw_window_undo (window));
      wait_edit (window);
    }
  assert_same (numbers (window, h100, TRAIN), before);
  g_assert_cmpuint (json_object_get_size (candidate_mapping (window, h100)), ==, 0);
  g_assert_cmpstr (selected_label (split), ==, "Automatic");

  /* One stage: nothing to split. */
  bpw_value_row_commit_text (BPW_VALUE_ROW (row (window, "mapping/parallel.pp")), "1");
  wait_edit (window);
  g_assert_false (gtk_widget_get_sensitive (split));
  g_assert_false (gtk_widget_get_sensitive (layers));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (split)), ==,
                   "Needs pipeline parallelism (PP above 1)");
  g_assert_true (bpw_window_undo (window));
  wait_edit (window);
  assert_same (numbers (window, h100, TRAIN), before);
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

static gboolean
bpw_test_tick (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
bpw_test_not_yet (gpointer data)
{
  return !*(gboolean *) data;
}

/* Expanders and the inspector slide in; the pictures wait for them. */
static void
pause_for_animation (void)
{
  gboolean slept = FALSE;

  g_timeout_add (800, bpw_test_tick, &slept);
  bpw_test_wait (bpw_test_not_yet, &slept);
}

/* The screen as it is, into @name under $BPW_TEST_SHOT_DIR, with ImageMagick's import
 * (the X server's pixels: exactly what a person would see). */
static void
save_screen (GtkWidget  *window,
             const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("BPW_TEST_SHOT_DIR"), name, NULL);
  const char *argv[] = { "import", "-window", "root", path, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  pause_for_animation ();
  bpw_test_wait_for_frame (window);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("saved %s", path);
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
  g_test_add_func ("/bpw/ui/MappingInspector/context-parallel", test_context_parallel);
  g_test_add_func ("/bpw/ui/MappingInspector/cp-algorithm", test_cp_algorithm);
  g_test_add_func ("/bpw/ui/MappingInspector/pipeline-split", test_pipeline_split);
  g_test_add_func ("/bpw/ui/MappingInspector/weight-only", test_weight_only);
  g_test_add_func ("/bpw/ui/MappingInspector/weight-only-fp8", test_weight_only_fp8);
  g_test_add_func ("/bpw/ui/MappingInspector/scenario-window", test_scenario_window);
  g_test_add_func ("/bpw/ui/MappingInspector/screenshot", test_screenshot);

  result = g_test_run ();
  if (shared_window != NULL)
    {
      gtk_window_destroy (GTK_WINDOW (shared_window));
      g_clear_object (&shared_window);
    }
  bpw_test_remove_tree (scratch);
  return result;
}
