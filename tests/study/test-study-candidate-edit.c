/* test-study-candidate-edit.c — a candidate added to a study as one undoable edit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "bpw-candidate.h"
#include "bpw-error.h"
#include "bpw-study-edit.h"
#include "bpw-test-study.h"

#define PREFILL "llama3-70b-prefill"
#define DECODE  "llama3-70b-decode"

static guint
scenario_index (BpwStudy   *study,
                const char *name)
{
  guint index = G_MAXUINT;

  g_assert_true (bpw_study_lookup_scenario (study, name, &index));
  return index;
}

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  return node;
}

/* The TP and micro-batch candidate @c runs scenario @name with. */
static void
run_of (BpwStudy   *study,
        guint       c,
        const char *name,
        gint64     *tp,
        gint64     *micro_batch)
{
  g_autoptr(GError) error = NULL;
  BpwCandidateRun run;

  g_assert_true (bpw_candidate_run_init (&run, study, c, scenario_index (study, name), &error));
  g_assert_no_error (error);
  *tp = run.mapping.parallel.tp;
  *micro_batch = run.scenario.micro_batch;
  bpw_candidate_run_clear (&run);
}

/* Added: the candidate runs its own mapping for one scenario and the scenario's choices
 * for the others; it is saved and read back; reverted, the study is byte for byte the one
 * before. */
static void
test_add_and_revert (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwStudy) reread = NULL;
  g_autoptr(BpwStudyEdit) edit = NULL;
  g_autoptr(JsonNode) mappings = parse ("{\"" PREFILL "\": {\"parallel\": {\"tp\": 4, "
                                        "\"dp\": 2}, \"micro_batch\": 4}}");
  g_autoptr(GError) error = NULL;
  g_autofree char *before = bpw_study_to_json (study);
  g_autofree char *saved = NULL;
  g_autofree char *after = NULL;
  guint n = bpw_study_get_n_candidates (study);
  gint64 tp, micro_batch;

  g_assert_cmpuint (n, ==, 4);
  edit = bpw_study_edit_new_candidate (study, "H100 (searched)", "h100-sxm-80gb", NULL, mappings,
                                       "Promote");
  g_assert_cmpint (bpw_study_edit_get_kind (edit), ==, BPW_STUDY_EDIT_CANDIDATE);
  g_assert_cmpuint (bpw_study_edit_get_index (edit), ==, n);
  g_assert_cmpstr (bpw_study_edit_get_target (edit), ==, "H100 (searched)");

  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n + 1);
  g_assert_cmpstr (bpw_study_get_candidate (study, n)->blueprint, ==, "h100-sxm-80gb");
  run_of (study, n, PREFILL, &tp, &micro_batch);
  g_assert_cmpint (tp, ==, 4);
  g_assert_cmpint (micro_batch, ==, 4);
  /* The decode scenario keeps its own decomposition (TP 8, 64 sequences a micro-batch). */
  run_of (study, n, DECODE, &tp, &micro_batch);
  g_assert_cmpint (tp, ==, 8);
  g_assert_cmpint (micro_batch, ==, 64);

  saved = bpw_study_to_json (study);
  reread = bpw_study_new_from_data ("saved.bpw-study.json", saved, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (reread), ==, n + 1);
  run_of (reread, n, PREFILL, &tp, &micro_batch);
  g_assert_cmpint (tp, ==, 4);

  /* Applied twice, it would not be the last candidate any more: refused, nothing changes. */
  g_assert_false (bpw_study_edit_apply (edit, study, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n + 1);

  g_assert_true (bpw_study_edit_revert (edit, study, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n);
  after = bpw_study_to_json (study);
  g_assert_cmpstr (after, ==, before);
  /* Reverted twice: the last candidate is not this one. */
  g_assert_false (bpw_study_edit_revert (edit, study, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, n);
}

/* A name already taken, or a mapping the blueprint cannot read, is refused whole. */
static void
test_refused (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwStudyEdit) taken = NULL;
  g_autoptr(BpwStudyEdit) bad = NULL;
  g_autoptr(JsonNode) mappings = parse ("{\"" PREFILL "\": {\"tiers\": {\"tp\": 99}}}");
  g_autoptr(GError) error = NULL;
  g_autofree char *before = bpw_study_to_json (study);
  g_autofree char *after = NULL;

  taken = bpw_study_edit_new_candidate (study, "MI300X", "mi300x", NULL, NULL, NULL);
  g_assert_false (bpw_study_edit_apply (taken, study, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  bad = bpw_study_edit_new_candidate (study, "H100 (bad)", "h100-sxm-80gb", NULL, mappings,
                                      NULL);
  g_assert_false (bpw_study_edit_apply (bad, study, &error));
  g_assert_nonnull (error);
  after = bpw_study_to_json (study);
  g_assert_cmpstr (after, ==, before);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/StudyEdit/candidate-add-revert", test_add_and_revert);
  g_test_add_func ("/bpw/core/StudyEdit/candidate-refused", test_refused);
  return g_test_run ();
}
