/* test-study-edit.c — editing a study in place: inline blueprints, scenarios, mappings, undo
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-candidate.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-study-edit.h"
#include "bpw-test-study.h"

#define H100 "h100-sxm-80gb"
#define EDITED "edited in the workbench"

static BpwBlueprintField
hbm_bandwidth (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (H100, NULL);
  BpwBlueprintField field = { BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH, 0, 0 };

  g_assert_nonnull (bp);
  field.index = (guint) bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  return field;
}

/* The blueprint a candidate runs, as bpw_candidate_run_init() resolves it. */
static BpwBlueprint *
run_blueprint (BpwStudy *study,
               guint     candidate,
               guint     scenario)
{
  g_autoptr(GError) error = NULL;
  BpwCandidateRun run;
  BpwBlueprint *bp;

  g_assert_true (bpw_candidate_run_init (&run, study, candidate, scenario, &error));
  g_assert_no_error (error);
  bp = g_steal_pointer (&run.blueprint);
  bpw_candidate_run_clear (&run);
  return bp;
}

static double
decode_tpot (BpwStudy *study,
             guint     candidate)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwEstimator) estimator = NULL;
  BpwCandidateRun run;
  BpwEvaluation e;
  guint decode = 0;

  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &decode));
  g_assert_true (bpw_candidate_run_init (&run, study, candidate, decode, &error));
  estimator = bpw_estimator_new (&run.spec, &run.scenario, run.blueprint, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_estimator_evaluate (estimator, &run.mapping, &e, NULL, &error));
  g_assert_no_error (error);
  bpw_candidate_run_clear (&run);
  return e.tpot_s;
}

static void
test_field_parse (void)
{
  BpwBlueprintField field = { BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH, 0, 0 };
  g_autoptr(GError) error = NULL;
  double value = 0.0;

  g_assert_true (bpw_blueprint_field_parse (&field, " 4.8 TB/s ", &value, &error));
  g_assert_cmpfloat (value, ==, 4.8e12);
  field.kind = BPW_BLUEPRINT_FIELD_MEMORY_CAPACITY;
  g_assert_true (bpw_blueprint_field_parse (&field, "80 GiB", &value, &error));
  g_assert_cmpfloat (value, ==, 80.0 * 1024 * 1024 * 1024);
  field.kind = BPW_BLUEPRINT_FIELD_TIER_LATENCY;
  g_assert_true (bpw_blueprint_field_parse (&field, "3 us", &value, &error));
  g_assert_cmpfloat_with_epsilon (value, 3e-6, 1e-21);
  field.kind = BPW_BLUEPRINT_FIELD_TIER_SIZE;
  g_assert_true (bpw_blueprint_field_parse (&field, "16", &value, &error));
  g_assert_cmpfloat (value, ==, 16.0);
  g_assert_no_error (error);

  g_assert_false (bpw_blueprint_field_parse (&field, "2.5", &value, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  field.kind = BPW_BLUEPRINT_FIELD_TDP;
  g_assert_false (bpw_blueprint_field_parse (&field, "fast", &value, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  /* A bandwidth is not a power. */
  g_assert_false (bpw_blueprint_field_parse (&field, "3 TB/s", &value, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

/* Editing the H100's HBM bandwidth: an inline copy the H100 candidate runs, nobody else. */
static void
test_blueprint_edit (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudyEdit) edit = NULL;
  g_autoptr(BpwBlueprint) bundled = bpw_blueprint_load_bundled (H100, NULL);
  g_autoptr(BpwBlueprint) expected = NULL;
  g_autoptr(BpwBlueprint) h100_run = NULL;
  g_autoptr(BpwBlueprint) a100_run = NULL;
  g_autoptr(BpwBlueprint) a100 = bpw_blueprint_load_bundled ("a100-sxm-80gb", NULL);
  BpwBlueprintField field = hbm_bandwidth ();
  guint h100 = bpw_test_candidate_index (study, H100);
  guint other = bpw_test_candidate_index (study, "a100-sxm-80gb");
  double tpot_before = decode_tpot (study, h100);
  BpwSourced *hbm;

  g_assert_null (bpw_study_lookup_inline_blueprint (study, H100));
  edit = bpw_study_edit_new_blueprint_value (study, H100, &field, 4.8e12,
                                             BPW_PROVENANCE_ESTIMATE, EDITED,
                                             "HBM bandwidth", &error);
  g_assert_no_error (error);
  g_assert_nonnull (edit);
  /* Making the edit does not change the study; applying it does. */
  g_assert_null (bpw_study_lookup_inline_blueprint (study, H100));
  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  g_assert_no_error (error);

  /* Expected: the bundled blueprint with that one value replaced, provenance included. */
  expected = bpw_blueprint_copy (bundled);
  hbm = &expected->memory[field.index].bandwidth;
  hbm->value = 4.8e12;
  hbm->kind = BPW_PROVENANCE_ESTIMATE;
  hbm->source = bpw_blueprint_intern (expected, EDITED);
  g_assert_true (bpw_blueprint_equal (bpw_study_lookup_inline_blueprint (study, H100), expected));
  g_assert_false (bpw_blueprint_equal (expected, bundled));

  h100_run = run_blueprint (study, h100, 0);
  g_assert_true (bpw_blueprint_equal (h100_run, expected));
  a100_run = run_blueprint (study, other, 0);
  g_assert_true (bpw_blueprint_equal (a100_run, a100));
  /* The name is listed once, where it was. */
  g_assert_cmpstr (bpw_study_get_blueprints (study)[1], ==, H100);
  g_assert_cmpuint (g_strv_length ((char **) bpw_study_get_blueprints (study)), ==, 4);

  /* Decode reads every weight once per token: more bandwidth, a shorter TPOT. */
  g_assert_cmpfloat (decode_tpot (study, h100), <, tpot_before);

  /* "Revert to the original" is an edit too, and undoing it brings the copy back. */
  {
    g_autoptr(BpwStudyEdit) revert = bpw_study_edit_new_blueprint_revert (study, H100, NULL,
                                                                          &error);

    g_assert_no_error (error);
    g_assert_true (bpw_study_edit_apply (revert, study, &error));
    g_assert_null (bpw_study_lookup_inline_blueprint (study, H100));
    g_assert_null (bpw_study_edit_new_blueprint_revert (study, H100, NULL, &error));
    g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
    g_clear_error (&error);
    g_assert_true (bpw_study_edit_revert (revert, study, &error));
    g_assert_true (bpw_blueprint_equal (bpw_study_lookup_inline_blueprint (study, H100),
                                        expected));
  }

  /* Revert: the bundled blueprint again, exactly. */
  g_assert_true (bpw_study_edit_revert (edit, study, &error));
  g_assert_no_error (error);
  g_assert_null (bpw_study_lookup_inline_blueprint (study, H100));
  g_clear_pointer (&h100_run, bpw_blueprint_free);
  h100_run = run_blueprint (study, h100, 0);
  g_assert_true (bpw_blueprint_equal (h100_run, bundled));
  g_assert_cmpfloat (decode_tpot (study, h100), ==, tpot_before);
}

/* Saving and reopening keeps an edited blueprint exactly, as an object in "blueprints". */
static void
test_inline_round_trip (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwStudy) reopened = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudyEdit) edit = NULL;
  g_autoptr(BpwStudyEdit) second = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-study-edit-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "edited.bpw-study.json", NULL);
  g_autofree char *backup = g_strconcat (path, "~", NULL);
  g_autofree char *text = NULL;
  BpwBlueprintField field = hbm_bandwidth ();
  BpwBlueprintField tdp = { BPW_BLUEPRINT_FIELD_TDP, 0, 0 };
  JsonArray *blueprints;

  edit = bpw_study_edit_new_blueprint_value (study, H100, &field, 4.8e12,
                                             BPW_PROVENANCE_ESTIMATE, EDITED, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  /* A value that needs all 17 digits, and another provenance. */
  second = bpw_study_edit_new_blueprint_value (study, H100, &tdp, 700.0 / 3.0,
                                               BPW_PROVENANCE_MEASURED, "lab run 42", NULL,
                                               &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_edit_apply (second, study, &error));

  g_assert_true (bpw_study_save_to_file (study, path, &error));
  g_assert_no_error (error);
  reopened = bpw_study_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_warnings (reopened)->len, ==, 0);
  g_assert_nonnull (bpw_study_lookup_inline_blueprint (reopened, H100));
  g_assert_true (bpw_blueprint_equal (bpw_study_lookup_inline_blueprint (reopened, H100),
                                      bpw_study_lookup_inline_blueprint (study, H100)));
  g_assert_null (bpw_study_lookup_inline_blueprint (reopened, "a100-sxm-80gb"));
  g_assert_cmpstrv (bpw_study_get_blueprints (reopened), bpw_study_get_blueprints (study));

  /* On disk: names stay strings, the edited one is an object. */
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  root = json_from_string (text, &error);
  g_assert_no_error (error);
  blueprints = json_object_get_array_member (json_node_get_object (root), "blueprints");
  g_assert_cmpuint (json_array_get_length (blueprints), ==, 4);
  g_assert_cmpstr (json_array_get_string_element (blueprints, 0), ==, "a100-sxm-80gb");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_array_get_element (blueprints, 1)));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (blueprints, 1),
                                                  "name"), ==, H100);

  /* And a second save of the reopened study writes the same text. */
  {
    g_autofree char *again = bpw_study_to_json (reopened);
    g_autofree char *first = bpw_study_to_json (study);

    g_assert_cmpstr (again, ==, first);
  }

  g_unlink (path);
  g_unlink (backup);
  g_rmdir (dir);
}

static void
test_refused_values (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (H100, NULL);
  g_autoptr(BpwBlueprint) before = bpw_blueprint_copy (bp);
  g_autoptr(GError) error = NULL;
  BpwBlueprintField field = hbm_bandwidth ();
  BpwBlueprintField idle = { BPW_BLUEPRINT_FIELD_IDLE_POWER, 0, 0 };
  BpwBlueprintField size = { BPW_BLUEPRINT_FIELD_TIER_SIZE, 0, 0 };
  BpwStudyEdit *edit;

  g_assert_false (bpw_blueprint_field_set (bp, &field, -1.0, BPW_PROVENANCE_ESTIMATE, EDITED,
                                           &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_false (bpw_blueprint_field_set (bp, &field, NAN, BPW_PROVENANCE_ESTIMATE, EDITED,
                                           &error));
  g_clear_error (&error);
  /* Idle power above the TDP (700 W). */
  g_assert_false (bpw_blueprint_field_set (bp, &idle, 900.0, BPW_PROVENANCE_ESTIMATE, EDITED,
                                           &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  /* The node tier may not outgrow the scale-out tier that holds it. */
  g_assert_cmpuint (bp->n_tiers, >=, 2);
  g_assert_false (bpw_blueprint_field_set (bp, &size, bp->tiers[1].size.value * 2,
                                           BPW_PROVENANCE_ESTIMATE, EDITED, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_false (bpw_blueprint_field_set (bp, &size, 2.5, BPW_PROVENANCE_ESTIMATE, EDITED,
                                           &error));
  g_clear_error (&error);
  g_assert_true (bpw_blueprint_equal (bp, before));

  /* A refused value makes no edit, and the study holds no copy. */
  edit = bpw_study_edit_new_blueprint_value (study, H100, &field, 0.0, BPW_PROVENANCE_ESTIMATE,
                                             EDITED, NULL, &error);
  g_assert_null (edit);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  edit = bpw_study_edit_new_blueprint_value (study, "no-such-chip", &field, 1e12,
                                             BPW_PROVENANCE_ESTIMATE, EDITED, NULL, &error);
  g_assert_null (edit);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_null (bpw_study_lookup_inline_blueprint (study, H100));
}

static void
check_broken (const char *blueprints,
              const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf ("{\n\"format\": \"bpw-study\", \"version\": 1,\n"
                                           "\"blueprints\": %s\n}\n", blueprints);
  g_autoptr(BpwStudy) study = bpw_study_new_from_data ("broken.json", text, -1, &error);

  g_assert_null (study);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  if (strstr (error->message, expected) == NULL)
    g_error ("expected “%s” in “%s”", expected, error->message);
}

static void
test_inline_errors (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (H100, NULL);
  g_autofree char *json = bpw_blueprint_to_json (bp);
  g_autofree char *twice = g_strdup_printf ("[%s, %s]", json, json);
  g_autofree char *negative = NULL;
  g_autofree char *list = NULL;
  char *at;

  check_broken ("[{\"name\": \"x\"}]", "broken.json:3:16: blueprints[0]: expected a native");
  check_broken (twice, "is already used");
  /* A wrong value inside names its place in the study. */
  negative = g_strdup (json);
  at = strstr (negative, "\"value\": 700");
  g_assert_nonnull (at);
  memcpy (at, "\"value\": -70", 12);
  list = g_strdup_printf ("[%s]", negative);
  check_broken (list, "blueprints[0].power.tdp");
}

/* Scenario and mapping edits: checked like the reader checks them, exactly undone. */
static void
test_scenario_and_mapping (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudyEdit) edit = NULL;
  g_autoptr(BpwStudyEdit) mapping_edit = NULL;
  g_autoptr(JsonNode) tp4 = json_from_string ("{\"parallel\": {\"tp\": 4}}", NULL);
  g_autoptr(JsonNode) bad = json_from_string ("{\"fusion\": [\"everything\"]}", NULL);
  const BpwStudyScenario *s = bpw_study_get_scenario (study, 0);
  BpwScenario changed;
  BpwParallel parallel = s->parallel;
  BpwCandidateRun run;
  guint h100 = bpw_test_candidate_index (study, H100);

  bpw_scenario_copy (&changed, &s->scenario);
  /* 1537 sequences do not split over 16 data-parallel ranks. */
  changed.global_batch = 1537;
  g_assert_false (bpw_study_set_scenario (study, 0, &changed, &parallel, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == BPW_ERROR);
  g_clear_error (&error);
  g_assert_cmpint (bpw_study_get_scenario (study, 0)->scenario.global_batch, ==, 1536);

  changed.global_batch = 3072;
  edit = bpw_study_edit_new_scenario (study, 0, &changed, &parallel, "Global batch");
  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  g_assert_no_error (error);
  g_assert_cmpint (bpw_study_get_scenario (study, 0)->scenario.global_batch, ==, 3072);
  g_assert_cmpstr (bpw_study_get_scenario (study, 0)->scenario.name, ==, "gpt3-175b-train");
  g_assert_true (bpw_study_edit_revert (edit, study, &error));
  g_assert_cmpint (bpw_study_get_scenario (study, 0)->scenario.global_batch, ==, 1536);
  bpw_scenario_clear (&changed);

  g_assert_false (bpw_study_set_candidate_mapping (study, h100, bad, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  mapping_edit = bpw_study_edit_new_mapping (study, h100, tp4, "TP");
  /* The edit keeps its own copy: changing the node it was made from changes nothing. */
  json_object_set_int_member (json_node_get_object (tp4), "micro_batch", 2);
  g_assert_true (bpw_study_edit_apply (mapping_edit, study, &error));
  g_assert_no_error (error);
  g_assert_false (json_object_has_member (json_node_get_object (
    bpw_study_get_candidate (study, h100)->mapping), "micro_batch"));
  g_assert_true (bpw_candidate_run_init (&run, study, h100, 0, &error));
  g_assert_cmpint (run.mapping.parallel.tp, ==, 4);
  g_assert_cmpint (run.mapping.parallel.pp, ==, 8);
  bpw_candidate_run_clear (&run);
  g_assert_true (bpw_study_edit_revert (mapping_edit, study, &error));
  g_assert_cmpuint (json_object_get_size (json_node_get_object (
    bpw_study_get_candidate (study, h100)->mapping)), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bpw/core/StudyEdit/field-parse", test_field_parse);
  g_test_add_func ("/bpw/core/StudyEdit/blueprint", test_blueprint_edit);
  g_test_add_func ("/bpw/core/StudyEdit/inline-round-trip", test_inline_round_trip);
  g_test_add_func ("/bpw/core/StudyEdit/refused-values", test_refused_values);
  g_test_add_func ("/bpw/core/StudyEdit/inline-errors", test_inline_errors);
  g_test_add_func ("/bpw/core/StudyEdit/scenario-and-mapping", test_scenario_and_mapping);

  return g_test_run ();
}
