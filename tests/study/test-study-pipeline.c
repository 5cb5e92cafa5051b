/* test-study-pipeline.c — a study scenario's uneven pipeline: "pp_split", "pp_lighter" and
 * "pp_layers" in its "parallel" object, as a candidate's mapping states them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-candidate.h"
#include "bpw-error.h"
#include "bpw-study.h"

/* Llama 3 8B has 32 layers. @parallel is the scenario's "parallel" object, @mapping the
 * candidate's. */
static char *
study_text (const char *parallel,
            const char *mapping)
{
  return g_strdup_printf ("{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"pp\",\n"
                          " \"workloads\": [{\"name\": \"l\", \"model\": \"llama3-8b\"}],\n"
                          " \"scenarios\": [{\"name\": \"train\", \"workload\": \"l\",\n"
                          "   \"phase\": \"train\", \"global_batch\": 64, \"seq\": 2048,\n"
                          "   \"parallel\": %s}],\n"
                          " \"candidates\": [{\"name\": \"h100\", \"blueprint\": "
                          "\"h100-sxm-80gb\",\n"
                          "   \"mapping\": %s}]}\n", parallel, mapping);
}

static BpwStudy *
read_study (const char  *parallel,
            const char  *mapping,
            GError     **error)
{
  g_autofree char *text = study_text (parallel, mapping);

  return bpw_study_new_from_data ("pp.bpw-study.json", text, -1, error);
}

/* Written and read back the same; the study's text names the split as given. */
static BpwStudy *
round_trip (const char *parallel,
            const char *written)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = read_study (parallel, "{}", &error);
  g_autoptr(BpwStudy) back = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json_back = NULL;

  g_assert_no_error (error);
  json = bpw_study_to_json (study);
  g_test_message ("%s", json);
  g_assert_nonnull (strstr (json, written));
  back = bpw_study_new_from_data ("back.bpw-study.json", json, -1, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_equal (study, back));
  json_back = bpw_study_to_json (back);
  g_assert_cmpstr (json, ==, json_back);
  return g_steal_pointer (&back);
}

static void
test_round_trip (void)
{
  g_autoptr(BpwStudy) layers = NULL, lighter = NULL, balanced = NULL, plain = NULL;
  const BpwParallel *p;
  g_autofree char *json = NULL;

  layers = round_trip ("{\"pp\": 4, \"pp_layers\": [7, 9, 9, 7]}", "\"pp_layers\"");
  p = &bpw_study_get_scenario (layers, 0)->parallel;
  g_assert_cmpint (p->pp_split, ==, BPW_PP_SPLIT_EXPLICIT);
  g_assert_cmpint (p->n_stage_layers, ==, 4);
  g_assert_cmpuint (p->stage_layers[0], ==, 7);
  g_assert_cmpuint (p->stage_layers[1], ==, 9);
  g_assert_cmpuint (p->stage_layers[2], ==, 9);
  g_assert_cmpuint (p->stage_layers[3], ==, 7);

  lighter = round_trip ("{\"pp\": 4, \"pp_lighter\": 1}", "\"pp_lighter\": 1");
  p = &bpw_study_get_scenario (lighter, 0)->parallel;
  g_assert_cmpint (p->pp_split, ==, BPW_PP_SPLIT_LIGHTER);
  g_assert_cmpint (p->pp_lighter, ==, 1);

  balanced = round_trip ("{\"pp\": 4, \"pp_split\": \"balanced\"}",
                         "\"pp_split\": \"balanced\"");
  g_assert_cmpint (bpw_study_get_scenario (balanced, 0)->parallel.pp_split, ==,
                   BPW_PP_SPLIT_BALANCED);
  g_assert_false (bpw_study_equal (layers, lighter));
  g_assert_false (bpw_study_equal (lighter, balanced));

  /* The automatic split is left out, so that studies of even pipelines read as before. */
  plain = round_trip ("{\"pp\": 4}", "\"pp\": 4");
  g_assert_cmpint (bpw_study_get_scenario (plain, 0)->parallel.pp_split, ==,
                   BPW_PP_SPLIT_AUTO);
  json = bpw_study_to_json (plain);
  g_assert_null (strstr (json, "\"pp_"));
}

/* A candidate's run takes the scenario's split; a mapping that states its own wins. */
static void
test_candidate_run (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = read_study ("{\"pp\": 4, \"pp_layers\": [7, 9, 9, 7]}", "{}",
                                          &error);
  g_autoptr(BpwStudy) even = NULL;
  BpwCandidateRun run;

  g_assert_no_error (error);
  g_assert_true (bpw_candidate_run_init (&run, study, 0, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run.mapping.parallel.pp_split, ==, BPW_PP_SPLIT_EXPLICIT);
  g_assert_cmpint (run.mapping.parallel.n_stage_layers, ==, 4);
  g_assert_cmpuint (run.mapping.parallel.stage_layers[1], ==, 9);
  bpw_candidate_run_clear (&run);

  even = read_study ("{\"pp\": 4, \"pp_layers\": [7, 9, 9, 7]}",
                     "{\"parallel\": {\"pp_split\": \"even\"}}", &error);
  g_assert_no_error (error);
  g_assert_true (bpw_candidate_run_init (&run, even, 0, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run.mapping.parallel.pp_split, ==, BPW_PP_SPLIT_EVEN);
  g_assert_cmpint (run.mapping.parallel.n_stage_layers, ==, 0);
  bpw_candidate_run_clear (&run);
}

static const struct
{
  const char   *parallel;
  gint          code;  /* BpwError */
  const char   *message;  /* after "pp.bpw-study.json" */
} bad[] = {
  /* Read: the entry, the value, the enum, one key too many. */
  { "{\"pp\": 4, \"pp_layers\": [8, 0, 12, 12]}", BPW_ERROR_INVALID_INPUT,
    ":5:43: scenarios[0].parallel.pp_layers[1]: expected a positive whole number of layers: "
    "every stage needs at least one" },
  { "{\"pp\": 4, \"pp_layers\": []}", BPW_ERROR_INVALID_INPUT,
    ":5:39: scenarios[0].parallel.pp_layers: expected 1 to 128 stages, got 0" },
  { "{\"pp\": 4, \"pp_lighter\": 0}", BPW_ERROR_INVALID_INPUT,
    ":5:40: scenarios[0].parallel.pp_lighter: expected an integer between 1 and 1048576, got 0" },
  { "{\"pp\": 4, \"pp_split\": \"uneven\"}", BPW_ERROR_INVALID_INPUT,
    ":5:38: scenarios[0].parallel.pp_split: expected one of \"auto\", \"even\", "
    "\"balanced\", got \"uneven\"" },
  { "{\"pp\": 4, \"pp_split\": \"even\", \"pp_lighter\": 1}", BPW_ERROR_INVALID_INPUT,
    ":5:60: scenarios[0].parallel: give one of pp_split, pp_lighter and pp_layers" },
  /* Checked against the model and the pipeline, located at the member. */
  { "{\"pp\": 4, \"pp_layers\": [8, 8, 8, 4]}", BPW_ERROR_ILLEGAL_PLAN,
    ":5:39: scenarios[0].parallel.pp_layers: the stages hold 28 layers, the model has 32" },
  { "{\"pp\": 4, \"pp_layers\": [8, 12, 12]}", BPW_ERROR_ILLEGAL_PLAN,
    ":5:39: scenarios[0].parallel.pp_layers: 3 entries for 4 stages; list one per stage (pp) "
    "or one per virtual stage (pp × interleave = 4)" },
  { "{\"pp\": 2, \"schedule\": \"interleaved\", \"interleave\": 2, \"pp_layers\": [31, 1]}",
    BPW_ERROR_ILLEGAL_PLAN,
    ":5:88: scenarios[0].parallel.pp_layers[1]: stage 1 has 1 layers; every stage needs at "
    "least one per model chunk" },
  { "{\"pp\": 2, \"pp_lighter\": 1}", BPW_ERROR_ILLEGAL_PLAN,
    ":5:40: scenarios[0].parallel.pp_lighter: lightening the first and last stage needs at "
    "least three stages, got 2" },
};

static void
test_bad_values (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwStudy) study = read_study (bad[i].parallel, "{}", &error);

      g_test_message ("%s -> %s", bad[i].parallel, error != NULL ? error->message : "(none)");
      g_assert_null (study);
      g_assert_error (error, BPW_ERROR, bad[i].code);
      g_assert_true (g_str_has_prefix (error->message, "pp.bpw-study.json"));
      g_assert_cmpstr (error->message + strlen ("pp.bpw-study.json"), ==, bad[i].message);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/Study/pipeline/round-trip", test_round_trip);
  g_test_add_func ("/bpw/core/Study/pipeline/candidate-run", test_candidate_run);
  g_test_add_func ("/bpw/core/Study/pipeline/bad-values", test_bad_values);

  return g_test_run ();
}
