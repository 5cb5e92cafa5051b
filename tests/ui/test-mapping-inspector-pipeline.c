/* test-mapping-inspector-pipeline.c — the Mapping page's context-parallel rows (degree and
 * algorithm) and the pipeline's layer split: each edit writes one mapping member, changes
 * the evaluation, and undo restores it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-mapping-inspector-pipeline"

#include "config.h"

#include <string.h>

#include "bpw-mapping-inspector-test.h"

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

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/MappingInspector/context-parallel", test_context_parallel);
  g_test_add_func ("/bpw/ui/MappingInspector/cp-algorithm", test_cp_algorithm);
  g_test_add_func ("/bpw/ui/MappingInspector/pipeline-split", test_pipeline_split);

  result = g_test_run ();
  close_shared_window ();
  bpw_test_remove_tree (scratch);
  return result;
}
