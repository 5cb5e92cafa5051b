/* test-study.c — the native study format, the bundled default study, atomic save
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-study.h"

static char *
fixture (const char *relative)
{
  return g_test_build_filename (G_TEST_DIST, "data", relative, NULL);
}

static const BpwStudyScenario *
scenario_by_name (BpwStudy   *study,
                  const char *name)
{
  guint index = 0;

  g_assert_true (bpw_study_lookup_scenario (study, name, &index));
  return bpw_study_get_scenario (study, index);
}

static void
test_default_study (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  const BpwStudyScenario *train, *prefill, *decode;
  const char * const *blueprints;
  const BpwStudySuite *suite;
  double weights = 0.0;

  g_assert_no_error (error);
  g_assert_nonnull (study);
  g_assert_true (g_strv_contains (bpw_study_bundled_names (), "default"));
  g_assert_cmpstr (bpw_study_bundled_names ()[0], ==, "default");
  g_assert_null (bpw_study_get_path (study));
  g_assert_cmpuint (bpw_study_get_warnings (study)->len, ==, 0);
  g_assert_cmpuint (bpw_study_get_n_workloads (study), ==, 2);
  g_assert_cmpuint (bpw_study_get_n_scenarios (study), ==, 3);

  train = scenario_by_name (study, "gpt3-175b-train");
  g_assert_cmpstr (bpw_study_get_workload (study, train->workload)->name, ==, "gpt3-175b");
  g_assert_cmpint (train->scenario.phase, ==, BPW_WORKLOAD_TRAIN);
  g_assert_cmpint (train->scenario.global_batch, ==, 1536);
  g_assert_cmpint (train->scenario.micro_batch, ==, 1);
  g_assert_cmpint (train->scenario.seq, ==, 2048);
  g_assert_cmpint (train->scenario.recompute, ==, BPW_RECOMPUTE_SELECTIVE);
  g_assert_cmpint (train->parallel.tp, ==, 8);
  g_assert_cmpint (train->parallel.pp, ==, 8);
  g_assert_cmpint (train->parallel.dp, ==, 16);
  g_assert_true (train->parallel.sp);
  g_assert_cmpint (train->parallel.zero, ==, 1);
  g_assert_cmpint (train->parallel.schedule, ==, BPW_SCHEDULE_1F1B);
  g_assert_cmpint (bpw_parallel_devices (&train->parallel), ==, 1024);
  /* 1536 sequences over 16 replicas of micro-batch 1: 96 micro-batches per pipeline. */
  g_assert_cmpint (bpw_scenario_micro_batches (&train->scenario, &train->parallel), ==, 96);

  prefill = scenario_by_name (study, "llama3-70b-prefill");
  g_assert_cmpint (prefill->scenario.phase, ==, BPW_WORKLOAD_PREFILL);
  g_assert_cmpint (prefill->scenario.global_batch, ==, 8);
  g_assert_cmpint (prefill->scenario.seq, ==, 2048);
  g_assert_cmpint (prefill->parallel.tp, ==, 8);
  g_assert_cmpfloat (prefill->scenario.sla_ttft, ==, 1.0);

  decode = scenario_by_name (study, "llama3-70b-decode");
  g_assert_cmpint (decode->scenario.phase, ==, BPW_WORKLOAD_DECODE);
  g_assert_cmpint (decode->scenario.global_batch, ==, 64);
  g_assert_cmpint (decode->scenario.context, ==, 4096);
  g_assert_cmpfloat_with_epsilon (decode->scenario.sla_tpot, 0.050, 1e-15);
  g_assert_cmpint (bpw_model_spec_parameters (&bpw_study_get_workload (study,
                                                                       decode->workload)->spec),
                   >, G_GUINT64_CONSTANT (70000000000));

  blueprints = bpw_study_get_blueprints (study);
  g_assert_cmpuint (g_strv_length ((char **) blueprints), ==, 4);
  g_assert_cmpstr (blueprints[0], ==, "a100-sxm-80gb");
  g_assert_cmpstr (blueprints[3], ==, "mi300x");
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 4);
  g_assert_cmpstr (bpw_study_get_candidate (study, 2)->blueprint, ==, "h200-sxm-141gb");

  g_assert_cmpuint (bpw_study_get_n_suites (study), ==, 1);
  suite = bpw_study_get_suite (study, 0);
  g_assert_cmpint (suite->kind, ==, BPW_SUITE_REPRESENTATIVE);
  g_assert_cmpuint (suite->n_scenarios, ==, 3);
  for (guint i = 0; i < suite->n_scenarios; i++)
    weights += bpw_study_get_scenario (study, suite->scenarios[i])->scenario.weight;
  g_assert_cmpfloat_with_epsilon (weights, 1.0, 1e-12);
}

static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) a = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwStudy) b = NULL;
  g_autofree char *json_a = NULL;
  g_autofree char *json_b = NULL;

  g_assert_no_error (error);
  json_a = bpw_study_to_json (a);
  /* Units survive as written, and doubles print shortest. */
  g_assert_nonnull (strstr (json_a, "\"tpot\": \"50 ms\""));
  g_assert_nonnull (strstr (json_a, "\"weight\": 0.3,"));
  b = bpw_study_new_from_data ("rt.bpw-study.json", json_a, -1, &error);
  g_assert_no_error (error);
  json_b = bpw_study_to_json (b);
  g_assert_cmpstr (json_a, ==, json_b);
  g_assert_cmpfloat (scenario_by_name (b, "llama3-70b-decode")->scenario.sla_tpot, ==,
                     scenario_by_name (a, "llama3-70b-decode")->scenario.sla_tpot);
}

/* A scenario's "images" (per sequence, a request in serving): read, written back only when
 * given, absent as the model's default, and refused for a text-only model. */
static void
test_images (void)
{
  const char *head =
    "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"mm\",\n"
    " \"workloads\": [{\"name\": \"llava\", \"model\": \"llava-1.5-7b\"},\n"
    "  {\"name\": \"llama\", \"model\": \"llama3-8b\"}],\n"
    " \"scenarios\": [{\"name\": \"serve\", \"workload\": \"llava\", \"phase\": \"prefill\",\n"
    "   \"global_batch\": 8, \"seq\": 2048, \"images\": 2},\n"
    "  {\"name\": \"plain\", \"workload\": \"llava\", \"phase\": \"prefill\",\n"
    "   \"global_batch\": 8, \"seq\": 2048}";
  g_autofree char *text = g_strconcat (head, "]}", NULL);
  g_autofree char *text_only = g_strconcat (head, ",\n  {\"name\": \"bad\", \"workload\": "
                                            "\"llama\", \"phase\": \"prefill\", "
                                            "\"global_batch\": 8, \"images\": 1}]}", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_from_data ("mm.json", text, -1, &error);
  g_autoptr(BpwStudy) back = NULL;
  g_autoptr(BpwStudy) bad = NULL;
  g_autofree char *json = NULL;
  const BpwStudyScenario *sc;

  g_assert_no_error (error);
  sc = scenario_by_name (study, "serve");
  g_assert_true (sc->scenario.images_set);
  g_assert_cmpint (sc->scenario.images, ==, 2);
  sc = scenario_by_name (study, "plain");
  g_assert_false (sc->scenario.images_set);
  json = bpw_study_to_json (study);
  g_assert_nonnull (strstr (json, "\"images\": 2"));
  g_assert_null (strstr (json, "\"images\": 0"));
  back = bpw_study_new_from_data ("back.json", json, -1, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_equal (study, back));
  g_assert_cmpint (scenario_by_name (back, "serve")->scenario.images, ==, 2);
  g_assert_false (scenario_by_name (back, "plain")->scenario.images_set);

  bad = bpw_study_new_from_data ("bad.json", text_only, -1, &error);
  g_assert_null (bad);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "vision encoder"));
}

static void
test_atomic_save_backup (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwStudy) reread = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-study-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "s.bpw-study.json", NULL);
  g_autofree char *backup = g_strconcat (path, "~", NULL);
  g_autofree char *first = NULL;
  g_autofree char *old = NULL;

  g_assert_no_error (error);
  g_assert_true (bpw_study_save_to_file (study, path, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (bpw_study_get_path (study), ==, path);
  g_assert_true (g_file_get_contents (path, &first, NULL, NULL));

  bpw_study_set_name (study, "Renamed");
  g_assert_true (bpw_study_save_to_file (study, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (backup, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_get_contents (backup, &old, NULL, NULL));
  g_assert_cmpstr (old, ==, first);

  reread = bpw_study_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (bpw_study_get_name (reread), ==, "Renamed");
  g_assert_cmpstr (bpw_study_get_path (reread), ==, path);

  g_unlink (path);
  g_unlink (backup);
  g_rmdir (dir);
}

/* Inline models and models in files next to the study; saving elsewhere keeps the file
 * reference valid. */
static void
test_model_references (void)
{
  const char *model =
    "{\"format\": \"bpw-workload\", \"version\": 1, \"model\": {\"name\": \"tiny\", "
    "\"vocab\": 1000, \"hidden\": 64, \"layers\": 2, \"heads\": 4, \"ffn\": 256, "
    "\"max_positions\": 128}}";
  const char *study_text =
    "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"refs\",\n"
    " \"workloads\": [{\"name\": \"file\", \"model\": \"tiny.json\"},\n"
    "  {\"name\": \"inline\", \"model\": {\"vocab\": 1000, \"hidden\": 64, \"layers\": 3,\n"
    "   \"heads\": 4, \"ffn\": 256, \"max_positions\": 128}}],\n"
    " \"scenarios\": [{\"name\": \"t\", \"workload\": \"inline\", \"suite\": \"stress\",\n"
    "   \"phase\": \"train\", \"global_batch\": 4, \"seq\": 128}]}";
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-study-XXXXXX", &error);
  g_autofree char *other = g_dir_make_tmp ("bpw-study-XXXXXX", &error);
  g_autofree char *model_path = g_build_filename (dir, "tiny.json", NULL);
  g_autofree char *study_path = g_build_filename (dir, "refs.bpw-study.json", NULL);
  g_autofree char *moved = g_build_filename (other, "refs.bpw-study.json", NULL);
  g_autofree char *canonical = NULL;
  g_autoptr(BpwStudy) study = NULL;
  g_autoptr(BpwStudy) again = NULL;
  const BpwStudyWorkload *w;
  const BpwStudySuite *suite;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (model_path, model, -1, NULL));
  g_assert_true (g_file_set_contents (study_path, study_text, -1, NULL));
  study = bpw_study_new_from_file (study_path, &error);
  g_assert_no_error (error);

  w = bpw_study_get_workload (study, 0);
  g_assert_cmpstr (w->model_ref, ==, "tiny.json");
  g_assert_cmpint (w->spec.layers, ==, 2);
  w = bpw_study_get_workload (study, 1);
  g_assert_null (w->model_ref);
  g_assert_cmpint (w->spec.layers, ==, 3);
  /* A suite named only by its scenario exists afterwards. */
  g_assert_cmpuint (bpw_study_get_n_suites (study), ==, 1);
  suite = bpw_study_get_suite (study, 0);
  g_assert_cmpstr (suite->name, ==, "stress");
  g_assert_cmpuint (suite->n_scenarios, ==, 1);

  g_assert_true (bpw_study_save_to_file (study, moved, &error));
  g_assert_no_error (error);
  canonical = g_canonicalize_filename (model_path, NULL);
  g_assert_cmpstr (bpw_study_get_workload (study, 0)->model_ref, ==, canonical);
  again = bpw_study_new_from_file (moved, &error);
  g_assert_no_error (error);
  g_assert_cmpint (bpw_study_get_workload (again, 0)->spec.layers, ==, 2);
  g_assert_cmpint (bpw_study_get_workload (again, 1)->spec.layers, ==, 3);

  g_unlink (moved);
  g_unlink (model_path);
  g_unlink (study_path);
  g_rmdir (dir);
  g_rmdir (other);
}

static void
test_build_in_code (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new ();
  g_autoptr(BpwStudy) back = NULL;
  g_autofree char *json = NULL;
  BpwModelSpec spec = { 0 };
  BpwScenario scenario;
  BpwParallel parallel;

  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", &spec));
  g_assert_true (bpw_study_add_workload (study, "llama", &spec, "llama3-8b", &error));
  g_assert_no_error (error);
  g_assert_false (bpw_study_add_workload (study, "llama", &spec, NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  bpw_scenario_init_defaults (&scenario);
  bpw_parallel_init_defaults (&parallel);
  scenario.phase = BPW_WORKLOAD_DECODE;
  scenario.global_batch = 32;
  scenario.micro_batch = 32;
  scenario.context = 8192;
  scenario.sla_tpot = 0.025;
  parallel.tp = 3;  /* does not divide 32 heads */
  g_assert_false (bpw_study_add_scenario (study, "d", "llama", &scenario, &parallel, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN);
  g_clear_error (&error);
  parallel.tp = 4;
  g_assert_true (bpw_study_add_scenario (study, "d", "llama", &scenario, &parallel, &error));
  g_assert_no_error (error);
  bpw_study_add_blueprint (study, "h100-sxm-80gb");
  bpw_study_add_blueprint (study, "h100-sxm-80gb");
  g_assert_cmpuint (g_strv_length ((char **) bpw_study_get_blueprints (study)), ==, 1);

  json = bpw_study_to_json (study);
  back = bpw_study_new_from_data ("b.json", json, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (scenario_by_name (back, "d")->parallel.tp, ==, 4);
  g_assert_cmpfloat (scenario_by_name (back, "d")->scenario.sla_tpot, ==, 0.025);
  bpw_model_spec_clear (&spec);
}

/* A copy (autosave) written into another folder loads with the same models, and the
 * original keeps its path, its relative reference and writes no backup. */
static void
test_save_copy (void)
{
  const char *model =
    "{\"format\": \"bpw-workload\", \"version\": 1, \"model\": {\"name\": \"tiny\", "
    "\"vocab\": 1000, \"hidden\": 64, \"layers\": 2, \"heads\": 4, \"ffn\": 256, "
    "\"max_positions\": 128}}";
  const char *study_text =
    "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"copy\",\n"
    " \"workloads\": [{\"name\": \"file\", \"model\": \"tiny.json\"}]}";
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-study-XXXXXX", &error);
  g_autofree char *other = g_dir_make_tmp ("bpw-study-XXXXXX", &error);
  g_autofree char *model_path = g_build_filename (dir, "tiny.json", NULL);
  g_autofree char *study_path = g_build_filename (dir, "copy.bpw-study.json", NULL);
  g_autofree char *copy_path = g_build_filename (other, "autosave.bpw", NULL);
  g_autofree char *copy_backup = g_strconcat (copy_path, "~", NULL);
  g_autoptr(BpwStudy) study = NULL;
  g_autoptr(BpwStudy) copy = NULL;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (model_path, model, -1, NULL));
  g_assert_true (g_file_set_contents (study_path, study_text, -1, NULL));
  study = bpw_study_new_from_file (study_path, &error);
  g_assert_no_error (error);

  /* Twice: a second write replaces the first without leaving "path~". */
  g_assert_true (bpw_study_save_copy (study, copy_path, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_study_save_copy (study, copy_path, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (copy_backup, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (bpw_study_get_path (study), ==, study_path);
  g_assert_cmpstr (bpw_study_get_workload (study, 0)->model_ref, ==, "tiny.json");

  copy = bpw_study_new_from_file (copy_path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (bpw_study_get_name (copy), ==, "copy");
  g_assert_cmpint (bpw_study_get_workload (copy, 0)->spec.layers, ==, 2);

  g_unlink (copy_path);
  g_unlink (model_path);
  g_unlink (study_path);
  g_rmdir (dir);
  g_rmdir (other);
}

static void
test_add_candidate (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new ();
  g_autoptr(BpwStudy) back = NULL;
  g_autoptr(JsonNode) mapping = json_from_string ("{\"tp\": 8}", NULL);
  g_autofree char *json = NULL;
  const BpwStudyCandidate *c;

  g_assert_true (bpw_study_add_candidate (study, "H100", "h100-sxm-80gb", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_study_add_candidate (study, "H100 TP8", "h100-sxm-80gb", mapping,
                                          &error));
  g_assert_no_error (error);
  g_assert_false (bpw_study_add_candidate (study, "H100", "mi300x", NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_false (bpw_study_add_candidate (study, "", "mi300x", NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 2);

  json = bpw_study_to_json (study);
  back = bpw_study_new_from_data ("c.json", json, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (back), ==, 2);
  c = bpw_study_get_candidate (back, 0);
  g_assert_cmpstr (c->name, ==, "H100");
  g_assert_cmpstr (c->blueprint, ==, "h100-sxm-80gb");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (c->mapping));
  g_assert_cmpuint (json_object_get_size (json_node_get_object (c->mapping)), ==, 0);
  c = bpw_study_get_candidate (back, 1);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (c->mapping), "tp"), ==, 8);
}

typedef struct
{
  const char *file;
  int         code;
  const char *message;  /* after the file name */
} Broken;

static const Broken broken[] = {
  { "study-unknown-workload.json", BPW_ERROR_INVALID_INPUT,
    ":9:36: scenarios[0].workload: the study has no workload named \"llama\"" },
  { "study-bad-tp.json", BPW_ERROR_ILLEGAL_PLAN,
    ":8:5: scenarios[0]: tensor parallelism 3 does not divide the 32 attention heads" },
  { "study-bad-sla.json", BPW_ERROR_INVALID_INPUT,
    ":9:24: scenarios[0].sla.ttft: expected a time such as \"10 us\", got \"2 GB\"" },
  { "study-inline-negative.json", BPW_ERROR_INVALID_INPUT,
    ":6:57: workloads[0].model.layers: expected a positive integer, got -2" },
  /* An inline model is held to the work-graph budget as a workload file is. */
  { "study-inline-over-budget.json", BPW_ERROR_INVALID_INPUT,
    ":6:59: workloads[0].model.layers: the work graph of “deep” (4096 layers) would take up "
    "to 1818 MiB under the largest of its phases and recompute options, more than the budget "
    "of 512 MiB; at most about 1153 layers of this shape fit" },
  { "negative-layers.json", BPW_ERROR_INVALID_INPUT,
    ":2:13: format: expected \"bpw-study\", got \"bpw-workload\"; this is not a study file" },
};

static void
test_broken (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *relative = g_build_filename ("broken", broken[i].file, NULL);
      g_autofree char *path = fixture (relative);
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwStudy) study = bpw_study_new_from_file (path, &error);

      g_test_message ("%s -> %s", broken[i].file, error != NULL ? error->message : "(none)");
      g_assert_null (study);
      g_assert_error (error, BPW_ERROR, broken[i].code);
      g_assert_true (g_str_has_prefix (error->message, path));
      g_assert_cmpstr (error->message + strlen (path), ==, broken[i].message);
    }
}

static void
test_unknown_bundled (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_load ("no-such-study", &error);

  g_assert_null (study);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpstr (error->message, ==,
                   "no-such-study: no such file and no bundled study of that name "
                   "(bundled: default, disaggregated-serving, long-context, moe-training, "
                   "multimodal-serving)");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/Study/default", test_default_study);
  g_test_add_func ("/bpw/core/Study/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/Study/images", test_images);
  g_test_add_func ("/bpw/core/Study/atomic-save-backup", test_atomic_save_backup);
  g_test_add_func ("/bpw/core/Study/model-references", test_model_references);
  g_test_add_func ("/bpw/core/Study/build-in-code", test_build_in_code);
  g_test_add_func ("/bpw/core/Study/save-copy", test_save_copy);
  g_test_add_func ("/bpw/core/Study/add-candidate", test_add_candidate);
  g_test_add_func ("/bpw/core/Study/broken", test_broken);
  g_test_add_func ("/bpw/core/Study/unknown-bundled", test_unknown_bundled);

  return g_test_run ();
}
