/* test-study-copy.c — a study's deep copy and its value equality, as handed to workers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-blueprint-field.h"
#include "bpw-study-edit.h"
#include "bpw-test-study.h"

#define H100 "h100-sxm-80gb"

static JsonNode *
json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

/* A copy reads back as the same study and compares equal to it. */
static void
test_copy_equal (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwStudy) copy = bpw_study_copy (study);
  g_autofree char *text = bpw_study_to_json (study);
  g_autofree char *copy_text = bpw_study_to_json (copy);

  g_assert_true (copy != study);
  g_assert_cmpstr (copy_text, ==, text);
  g_assert_true (bpw_study_equal (study, copy));
  g_assert_true (bpw_study_equal (copy, study));
  g_assert_true (bpw_study_equal (NULL, NULL));
  g_assert_false (bpw_study_equal (study, NULL));
  g_assert_cmpstr (bpw_study_get_path (copy), ==, bpw_study_get_path (study));
  g_assert_cmpuint (bpw_study_get_n_scenarios (copy), ==, bpw_study_get_n_scenarios (study));
  /* Nothing is shared: the copy's parts live at addresses of their own. */
  g_assert_true (bpw_study_get_candidate (copy, 0)->mapping
                 != bpw_study_get_candidate (study, 0)->mapping);
  g_assert_true (json_node_get_object (bpw_study_get_candidate (copy, 0)->mapping)
                 != json_node_get_object (bpw_study_get_candidate (study, 0)->mapping));
}

/* The folder relative paths resolve from is part of what a copy keeps and of equality. */
static void
test_copy_keeps_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autofree char *text = bpw_study_to_json (study);
  g_autoptr(BpwStudy) here = bpw_study_new_from_data ("/a/study.json", text, -1, &error);
  g_autoptr(BpwStudy) there = bpw_study_new_from_data ("/b/study.json", text, -1, &error);
  g_autoptr(BpwStudy) copy = NULL;

  g_assert_no_error (error);
  g_assert_false (bpw_study_equal (here, there));
  copy = bpw_study_copy (here);
  g_assert_true (bpw_study_equal (here, copy));
  g_assert_false (bpw_study_equal (copy, there));
}

typedef BpwStudyEdit *(*EditFunc) (BpwStudy *study);

static BpwStudyEdit *
edit_blueprint (BpwStudy *study)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (study, H100, &error);
  BpwBlueprintField field = { BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH, 0, 0 };
  BpwStudyEdit *edit;

  g_assert_no_error (error);
  field.index = (guint) bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  edit = bpw_study_edit_new_blueprint_value (study, H100, &field, 4.8e12,
                                             BPW_PROVENANCE_ESTIMATE, "test", NULL, &error);
  g_assert_no_error (error);
  return edit;
}

static BpwStudyEdit *
edit_scenario (BpwStudy *study)
{
  const BpwStudyScenario *s = bpw_study_get_scenario (study, 0);
  BpwScenario changed;
  BpwStudyEdit *edit;

  bpw_scenario_copy (&changed, &s->scenario);
  changed.global_batch *= 2;
  edit = bpw_study_edit_new_scenario (study, 0, &changed, &s->parallel, NULL);
  bpw_scenario_clear (&changed);
  return edit;
}

static BpwStudyEdit *
edit_mapping (BpwStudy *study)
{
  g_autoptr(JsonNode) tp4 = json ("{\"parallel\": {\"tp\": 4}}");

  return bpw_study_edit_new_mapping (study, bpw_test_candidate_index (study, H100), tp4, NULL);
}

static BpwStudyEdit *
edit_scenario_mapping (BpwStudy *study)
{
  g_autoptr(JsonNode) tp2 = json ("{\"parallel\": {\"tp\": 2}}");
  const char *scenario = bpw_study_get_scenario (study, 0)->name;

  return bpw_study_edit_new_scenario_mapping (study, bpw_test_candidate_index (study, H100), scenario,
                                              tp2, NULL);
}

static BpwStudyEdit *
edit_measurement (BpwStudy *study)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *profile = g_test_build_filename (G_TEST_DIST, "data", "profiles",
                                                    "chrome-array.json", NULL);
  BpwStudyEdit *edit = bpw_study_edit_new_measurement (study, 0, 0, profile, NULL, &error);

  g_assert_no_error (error);
  return edit;
}

static BpwStudyEdit *
edit_candidate (BpwStudy *study)
{
  return bpw_study_edit_new_candidate (study, "H100 again", H100, NULL, NULL, NULL);
}

/* Each kind of edit of the original: the copy stays as it was, the two differ, and
 * undoing the edit makes them equal again (equality is by value, not by history). */
static void
test_edits (void)
{
  const EditFunc edits[] = {
    edit_blueprint, edit_scenario, edit_mapping, edit_scenario_mapping, edit_measurement,
    edit_candidate,
  };

  for (guint i = 0; i < G_N_ELEMENTS (edits); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwStudy) study = bpw_test_default_study ();
      g_autoptr(BpwStudy) copy = bpw_study_copy (study);
      g_autofree char *before = bpw_study_to_json (study);
      g_autofree char *after = NULL, *copy_after = NULL;
      g_autoptr(BpwStudyEdit) edit = edits[i] (study);

      g_test_message ("edit %u", i);
      g_assert_nonnull (edit);
      g_assert_true (bpw_study_edit_apply (edit, study, &error));
      g_assert_no_error (error);
      after = bpw_study_to_json (study);
      copy_after = bpw_study_to_json (copy);
      g_assert_cmpstr (after, !=, before);
      g_assert_cmpstr (copy_after, ==, before);
      g_assert_false (bpw_study_equal (study, copy));
      g_assert_false (bpw_study_equal (copy, study));

      g_assert_true (bpw_study_edit_revert (edit, study, &error));
      g_assert_no_error (error);
      g_assert_true (bpw_study_equal (study, copy));
    }
}

/* Edits that no undoable edit makes: in place inside a mapping object, a name, a new
 * workload, an inline blueprint dropped. The copy keeps none of them. */
static void
test_other_changes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwStudy) copy = NULL;
  g_autofree char *before = bpw_study_to_json (study);
  g_autofree char *copy_after = NULL;
  JsonObject *mapping;
  BpwModelSpec spec;

  /* An inline blueprint first, so that dropping it is a change. */
  {
    g_autoptr(BpwStudyEdit) edit = edit_blueprint (study);

    g_assert_true (bpw_study_edit_apply (edit, study, &error));
    g_assert_no_error (error);
  }
  g_clear_pointer (&before, g_free);
  before = bpw_study_to_json (study);

  copy = bpw_study_copy (study);
  mapping = json_node_get_object (bpw_study_get_candidate (study, 0)->mapping);
  json_object_set_string_member (mapping, "note", "changed in place");
  g_assert_false (bpw_study_equal (study, copy));
  json_object_remove_member (mapping, "note");
  g_assert_true (bpw_study_equal (study, copy));

  bpw_study_set_name (study, "Renamed");
  g_assert_false (bpw_study_equal (study, copy));
  bpw_study_set_name (study, bpw_study_get_name (copy));
  g_assert_true (bpw_study_equal (study, copy));

  bpw_model_spec_copy (&spec, &bpw_study_get_workload (study, 0)->spec);
  spec.layers += 1;
  g_assert_true (bpw_study_add_workload (study, "deeper", &spec, NULL, &error));
  g_assert_no_error (error);
  bpw_model_spec_clear (&spec);
  g_assert_false (bpw_study_equal (study, copy));
  g_clear_object (&study);
  study = bpw_study_copy (copy);

  g_assert_true (bpw_study_remove_inline_blueprint (study, H100));
  g_assert_false (bpw_study_equal (study, copy));
  g_assert_nonnull (bpw_study_lookup_inline_blueprint (copy, H100));

  copy_after = bpw_study_to_json (copy);
  g_assert_cmpstr (copy_after, ==, before);
}

static gpointer
copy_in_thread (gpointer data)
{
  return bpw_study_copy (data);
}

/* A copy made on another thread from a frozen one is equal to both. */
static void
test_copy_in_thread (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwStudy) frozen = bpw_study_copy (study);
  GThread *thread = g_thread_new ("copy", copy_in_thread, frozen);
  g_autoptr(BpwStudy) copy = g_thread_join (thread);

  g_assert_true (bpw_study_equal (copy, frozen));
  g_assert_true (bpw_study_equal (copy, study));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/study-copy/equal", test_copy_equal);
  g_test_add_func ("/study-copy/file", test_copy_keeps_file);
  g_test_add_func ("/study-copy/edits", test_edits);
  g_test_add_func ("/study-copy/other-changes", test_other_changes);
  g_test_add_func ("/study-copy/thread", test_copy_in_thread);
  return g_test_run ();
}
