/* test-study-measurement.c — a study's measurements: format, paths, hashes, edits, runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixture tests/data/studies/gpt2-cpu.bpw-study.json measures the GPT-2 block of
 * tests/data/profiles on its CPU blueprint; the expected values here are derived from the
 * files (their bytes, their paths), not from what the study code computes.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-error.h"
#include "bpw-measurement-run.h"
#include "bpw-study-edit.h"
#include "bpw-validation.h"

static char *
fixture (const char *folder,
         const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", folder, name, NULL);
}

static char *
sha256_of (const char *path)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, length);
}

static JsonObject *
parse_measurement (JsonParser *parser,
                   const char *text,
                   guint       i)
{
  JsonObject *root;

  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_has_member (root, "measurements"));
  return json_array_get_object_element (json_object_get_array_member (root, "measurements"), i);
}

static BpwStudy *
load_fixture (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fixture ("studies", "gpt2-cpu.bpw-study.json");
  BpwStudy *study = bpw_study_new_from_file (path, &error);

  g_assert_no_error (error);
  return study;
}

static void
test_fixture (void)
{
  g_autoptr(BpwStudy) study = load_fixture ();
  g_autofree char *profile = fixture ("profiles", "gpt2-block.json");
  g_autofree char *expected = g_canonicalize_filename (profile, NULL);
  g_autofree char *digest = sha256_of (profile);
  const BpwStudyMeasurement *m;

  g_assert_cmpuint (bpw_study_get_n_measurements (study), ==, 1);
  m = bpw_study_get_measurement (study, 0);
  g_assert_cmpstr (m->name, ==, "gpt2-block-cpu");
  g_assert_cmpstr (m->candidate, ==, "epyc-1thread");
  g_assert_cmpstr (m->scenario, ==, "train-2x32");
  g_assert_cmpstr (m->profile, ==, "../profiles/gpt2-block.json");
  g_assert_cmpstr (m->path, ==, expected);
  /* The fixture's recorded digest is the file's: no warning. */
  g_assert_cmpstr (m->sha256, ==, digest);
  g_assert_cmpuint (bpw_study_get_warnings (study)->len, ==, 0);
  g_assert_cmpint (m->device, ==, -1);
  g_assert_cmpint (m->rank, ==, -1);
  g_assert_null (m->calibrated);
}

/* Read, written, read again: the same text, and the same text as a study without
 * measurements when there are none. */
static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = load_fixture ();
  g_autofree char *path = fixture ("studies", "gpt2-cpu.bpw-study.json");
  g_autofree char *first = bpw_study_to_json (study);
  g_autoptr(BpwStudy) again = bpw_study_new_from_data (path, first, -1, &error);
  g_autofree char *second = NULL;
  g_autoptr(BpwStudy) plain = bpw_study_new_bundled ("default", &error);
  g_autofree char *plain_text = NULL;

  g_assert_no_error (error);
  second = bpw_study_to_json (again);
  g_assert_cmpstr (first, ==, second);
  g_assert_nonnull (strstr (first, "\"measurements\""));
  g_assert_nonnull (strstr (first, "\"../profiles/gpt2-block.json\""));
  plain_text = bpw_study_to_json (plain);
  g_assert_null (strstr (plain_text, "measurements"));
}

/* A measurement added by path is written relative to wherever the study is saved. */
static void
test_relative_paths (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("bpw-measurement-XXXXXX", &error);
  g_autofree char *a = g_build_filename (tmp, "a", NULL);
  g_autofree char *b = g_build_filename (tmp, "b", NULL);
  g_autofree char *deep = g_build_filename (tmp, "a", "c", NULL);
  g_autofree char *run = g_build_filename (b, "run.json", NULL);
  g_autofree char *study_path = g_build_filename (a, "study.json", NULL);
  g_autofree char *copy_path = g_build_filename (deep, "copy.json", NULL);
  g_autofree char *beside_path = g_build_filename (b, "beside.json", NULL);
  g_autofree char *source = fixture ("profiles", "chrome-array.json");
  g_autofree char *contents = NULL, *digest = NULL, *text = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwStudy) loaded = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *files[] = { study_path, copy_path, beside_path };
  const char *expected[] = { "../b/run.json", "../../b/run.json", "run.json" };

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (deep, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (b, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, NULL, NULL));
  g_assert_true (g_file_set_contents (run, contents, -1, NULL));
  digest = sha256_of (run);

  g_assert_true (bpw_study_add_measurement (study, NULL, 1, 0, run, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (bpw_study_get_measurement (study, 0)->name, ==, "run");
  g_assert_cmpstr (bpw_study_get_measurement (study, 0)->sha256, ==, digest);
  g_assert_cmpstr (bpw_study_get_measurement (study, 0)->candidate, ==,
                   bpw_study_get_candidate (study, 1)->name);
  /* A second measurement of the same file gets a name of its own. */
  g_assert_true (bpw_study_add_measurement (study, NULL, 0, 0, run, &error));
  g_assert_cmpstr (bpw_study_get_measurement (study, 1)->name, ==, "run-2");
  g_assert_true (bpw_study_remove_measurement (study, "run-2"));
  g_assert_false (bpw_study_remove_measurement (study, "run-2"));

  g_assert_true (bpw_study_save_to_file (study, study_path, &error));
  /* In memory too, the path is now relative to the study's new folder: a copy read back
   * from the text under the study's path (a worker's snapshot) finds the file. */
  text = bpw_study_to_json (study);
  g_assert_cmpstr (json_object_get_string_member (parse_measurement (parser, text, 0),
                                                  "profile"), ==, "../b/run.json");
  g_assert_true (bpw_study_save_copy (study, copy_path, &error));
  g_assert_true (bpw_study_save_copy (study, beside_path, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      JsonObject *m;

      g_clear_pointer (&text, g_free);
      g_assert_true (g_file_get_contents (files[i], &text, NULL, NULL));
      m = parse_measurement (parser, text, 0);
      g_assert_cmpstr (json_object_get_string_member (m, "profile"), ==, expected[i]);
      g_assert_cmpstr (json_object_get_string_member (m, "sha256"), ==, digest);

      /* Each copy finds the file again from its own folder. */
      g_clear_object (&loaded);
      loaded = bpw_study_new_from_file (files[i], &error);
      g_assert_no_error (error);
      g_assert_cmpuint (bpw_study_get_warnings (loaded)->len, ==, 0);
      g_assert_cmpstr (bpw_study_get_measurement (loaded, 0)->path, ==, run);
    }

  g_assert_true (bpw_study_add_measurement (study, "elsewhere", 0, 0, source, &error));
  g_assert_false (bpw_study_add_measurement (study, "elsewhere", 0, 0, source, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_false (bpw_study_add_measurement (study, NULL, 0, 0, "/nonexistent/trace.json",
                                             &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_remove (run);
  g_remove (study_path);
  g_remove (copy_path);
  g_remove (beside_path);
  g_rmdir (deep);
  g_rmdir (a);
  g_rmdir (b);
  g_rmdir (tmp);
}

static char *
study_text (const char *measurement)
{
  return g_strdup_printf (
    "{\n"
    "  \"format\": \"bpw-study\",\n"
    "  \"version\": 1,\n"
    "  \"workloads\": [ { \"name\": \"w\", \"model\": \"../profiles/gpt2-block-config.json\" } ],\n"
    "  \"scenarios\": [ { \"name\": \"s\", \"workload\": \"w\", \"phase\": \"train\",\n"
    "                     \"global_batch\": 2, \"seq\": 32 } ],\n"
    "  \"candidates\": [ { \"name\": \"c\", \"blueprint\": \"a100-sxm-80gb\" } ],\n"
    "  \"measurements\": [\n"
    "    %s\n"
    "  ]\n"
    "}\n", measurement);
}

static BpwStudy *
load_text (const char  *measurement,
           GError     **error)
{
  g_autofree char *path = fixture ("studies", "probe.bpw-study.json");
  g_autofree char *text = study_text (measurement);

  return bpw_study_new_from_data (path, text, -1, error);
}

static void
test_hash_mismatch (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *zeros = g_strnfill (64, '0');
  g_autofree char *entry = g_strdup_printf ("{ \"candidate\": \"c\", \"scenario\": \"s\", "
                                            "\"profile\": \"../profiles/gpt2-block.json\", "
                                            "\"sha256\": \"%s\" }", zeros);
  g_autoptr(BpwStudy) study = load_text (entry, &error);
  g_autofree char *digest = NULL;
  g_autofree char *now = NULL;
  g_autofree char *profile = fixture ("profiles", "gpt2-block.json");
  GPtrArray *warnings;
  gboolean changed = FALSE;

  g_assert_no_error (error);
  warnings = bpw_study_get_warnings (study);
  g_assert_cmpuint (warnings->len, ==, 1);
  /* Located at the digest: the entry is on line 9, "sha256" its fifth member. */
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "probe.bpw-study.json:9:"));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "measurements[0].sha256: "));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "changed since it was recorded"));
  /* The name defaults to the file's; the recorded digest is kept, not replaced. */
  g_assert_cmpstr (bpw_study_get_measurement (study, 0)->name, ==, "gpt2-block");
  g_assert_cmpstr (bpw_study_get_measurement (study, 0)->sha256, ==, zeros);
  g_assert_true (bpw_study_measurement_verify (bpw_study_get_measurement (study, 0), &changed,
                                               &now, &error));
  digest = sha256_of (profile);
  g_assert_true (changed);
  g_assert_cmpstr (now, ==, digest);
}

static void
test_missing_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = load_text ("{ \"name\": \"gone\", \"candidate\": \"c\", "
                                         "\"scenario\": \"s\", \"profile\": \"gone.json\" }",
                                         &error);
  const char *warning;

  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_warnings (study)->len, ==, 1);
  warning = g_ptr_array_index (bpw_study_get_warnings (study), 0);
  g_assert_nonnull (strstr (warning, "measurements[0].profile: no profile at "));
  /* Without a file nothing is recorded, and nothing is invented. */
  g_assert_null (bpw_study_get_measurement (study, 0)->sha256);
}

static void
test_errors (void)
{
  const struct { const char *entry; const char *message; } cases[] = {
    { "{ \"candidate\": \"x\", \"scenario\": \"s\", \"profile\": \"a.json\" }",
      "probe.bpw-study.json:9:20: measurements[0].candidate: the study has no candidate "
      "named \"x\"" },
    { "{ \"candidate\": \"c\", \"scenario\": \"t\", \"profile\": \"a.json\" }",
      "probe.bpw-study.json:9:37: measurements[0].scenario: the study has no scenario named "
      "\"t\"" },
    { "{ \"candidate\": \"c\", \"scenario\": \"s\", \"profile\": \"\" }",
      "probe.bpw-study.json:9:53: measurements[0].profile: expected the path of a profile" },
    { "{ \"candidate\": \"c\", \"scenario\": \"s\", \"profile\": \"a.json\", \"sha256\": "
      "\"ABC\" }",
      "probe.bpw-study.json:9:73: measurements[0].sha256: expected the file's SHA-256 as 64 "
      "lowercase hexadecimal digits, got \"ABC\"" },
    { "{ \"candidate\": \"c\", \"scenario\": \"s\", \"profile\": \"a.json\", \"device\": -1 }",
      "probe.bpw-study.json:9:73: measurements[0].device: " },
    { "{ \"candidate\": \"c\", \"scenario\": \"s\", \"profile\": \"a.json\", \"calibrated\": "
      "\"nope\" }",
      "probe.bpw-study.json:9:77: measurements[0].calibrated: the study has no blueprint named "
      "\"nope\"" },
    { "{ \"scenario\": \"s\", \"profile\": \"a.json\" }",
      "probe.bpw-study.json:9:5: measurements[0]: missing required field 'candidate'" },
    { "\"a.json\"", "probe.bpw-study.json:9:5: measurements[0]: expected an object" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwStudy) study = load_text (cases[i].entry, &error);

      g_assert_null (study);
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].message));
    }
}

static void
test_edits (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = load_fixture ();
  g_autofree char *other = fixture ("profiles", "gpt2-block-legacy.json");
  g_autofree char *before = bpw_study_to_json (study);
  g_autofree char *after = NULL;
  g_autoptr(BpwStudyEdit) add = bpw_study_edit_new_measurement (study, 0, 0, other, "add",
                                                                &error);
  g_autoptr(BpwStudyEdit) calibrate = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autofree char *reverted = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (bpw_study_edit_get_kind (add), ==, BPW_STUDY_EDIT_MEASUREMENTS);
  g_assert_cmpstr (bpw_study_edit_get_target (add), ==, "gpt2-block-legacy");
  /* Making the edit does not apply it. */
  g_assert_cmpuint (bpw_study_get_n_measurements (study), ==, 1);
  g_assert_true (bpw_study_edit_apply (add, study, &error));
  g_assert_cmpuint (bpw_study_get_n_measurements (study), ==, 2);
  after = bpw_study_to_json (study);
  g_assert_true (bpw_study_edit_revert (add, study, &error));
  reverted = bpw_study_to_json (study);
  g_assert_cmpstr (reverted, ==, before);
  g_assert_true (bpw_study_edit_apply (add, study, &error));
  g_clear_pointer (&reverted, g_free);
  reverted = bpw_study_to_json (study);
  g_assert_cmpstr (reverted, ==, after);

  /* A calibration: a blueprint the study holds, named by the measurement; undone, the
   * study's blueprint list is as it was. */
  bp = bpw_study_load_blueprint (study, "../profiles/cpu-epyc-1thread.json", &error);
  g_assert_no_error (error);
  g_free (bp->name);
  bp->name = g_strdup ("cpu-calibrated");
  calibrate = bpw_study_edit_new_calibration (study, 1, bp, "calibrate");
  g_assert_cmpstr (bpw_study_edit_get_target (calibrate), ==, "gpt2-block-legacy");
  g_assert_true (bpw_study_edit_apply (calibrate, study, &error));
  g_assert_no_error (error);
  g_assert_true (g_strv_contains (bpw_study_get_blueprints (study), "cpu-calibrated"));
  g_assert_nonnull (bpw_study_lookup_inline_blueprint (study, "cpu-calibrated"));
  g_assert_cmpstr (bpw_study_get_measurement (study, 1)->calibrated, ==, "cpu-calibrated");
  g_assert_null (bpw_study_get_measurement (study, 0)->calibrated);
  g_assert_true (bpw_study_edit_revert (calibrate, study, &error));
  g_assert_false (g_strv_contains (bpw_study_get_blueprints (study), "cpu-calibrated"));
  g_assert_null (bpw_study_lookup_inline_blueprint (study, "cpu-calibrated"));
  g_clear_pointer (&reverted, g_free);
  reverted = bpw_study_to_json (study);
  g_assert_cmpstr (reverted, ==, after);
}

/* The fixture's measurement run end to end: the correlation of the real PyTorch run with
 * no unexplained kernels, Table 1 as bpw_validation predicts it, and a calibration that
 * brings the prediction closer to the measurement. */
static void
test_run (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = load_fixture ();
  g_autoptr(BpwBlueprint) a100 = bpw_blueprint_load (BPW_MEASUREMENT_TABLE1_BLUEPRINT, NULL,
                                                     &error);
  g_autoptr(BpwValidationReport) report = NULL;
  g_autoptr(BpwCalibration) cal = NULL;
  g_autoptr(BpwStudyEdit) edit = NULL;
  const BpwMegatronRow *rows;
  const BpwReportSection *table1, *profile;
  BpwMeasurementRun run, recal;
  guint n_rows = 0;

  g_assert_no_error (error);
  g_assert_true (bpw_measurement_run_init (&run, study, 0, &error));
  g_assert_true (bpw_measurement_run_execute (&run, &error));
  g_assert_no_error (error);
  g_assert_false (run.changed);
  g_assert_cmpuint (run.correlation->stats.unexplained_items, ==, 0);
  g_assert_cmpuint (run.correlation->stats.modelled_ops, ==, run.sim->events->len);
  g_assert_cmpuint (run.correlation->stats.matched_items, >, 0);

  report = bpw_measurement_run_report (&run, 1, a100, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (report->sections->len, ==, 2);
  table1 = g_ptr_array_index (report->sections, 0);
  rows = bpw_validation_megatron_rows (&n_rows);
  g_assert_cmpuint (table1->entries->len, ==, n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      BpwValidationResult r;

      g_assert_true (bpw_validation_megatron_predict (a100, &rows[i], &r, &error));
      g_assert_cmpfloat_with_epsilon (g_array_index (table1->entries, BpwReportEntry, i).error,
                                      r.error, 1e-12);
    }
  profile = g_ptr_array_index (report->sections, 1);
  g_assert_cmpfloat_with_epsilon (profile->step_measured_s,
                                  g_array_index (run.correlation->pairs, BpwCorrelationPair,
                                                 0).measured_span_s, 1e-15);
  g_assert_cmpuint (profile->unexplained_items, ==, 0);

  cal = bpw_measurement_run_calibrate (&run, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (cal->blueprint->name, "-calibrated"));
  edit = bpw_study_edit_new_calibration (study, 0, cal->blueprint, "calibrate");
  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  bpw_measurement_run_clear (&run);

  /* The study now validates the calibrated blueprint beside the original. */
  g_assert_true (bpw_measurement_run_init (&recal, study, 0, &error));
  g_assert_true (bpw_measurement_run_execute (&recal, &error));
  g_assert_no_error (error);
  g_assert_nonnull (recal.calibrated_correlation);
  g_clear_pointer (&report, bpw_validation_report_free);
  report = bpw_measurement_run_report (&recal, 1, NULL, &error);
  profile = g_ptr_array_index (report->sections, 0);
  g_assert_cmpfloat (profile->calibrated_weighted_error, <, profile->weighted_error);
  bpw_measurement_run_clear (&recal);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/StudyMeasurement/fixture", test_fixture);
  g_test_add_func ("/bpw/core/StudyMeasurement/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/StudyMeasurement/relative-paths", test_relative_paths);
  g_test_add_func ("/bpw/core/StudyMeasurement/hash-mismatch-warning", test_hash_mismatch);
  g_test_add_func ("/bpw/core/StudyMeasurement/missing-file-warning", test_missing_file);
  g_test_add_func ("/bpw/core/StudyMeasurement/located-errors", test_errors);
  g_test_add_func ("/bpw/core/StudyMeasurement/undoable-edits", test_edits);
  g_test_add_func ("/bpw/core/MeasurementRun/correlate-and-calibrate", test_run);
  return g_test_run ();
}
