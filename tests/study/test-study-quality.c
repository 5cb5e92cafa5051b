/* test-study-quality.c — owners, quality thresholds and evidence: format, judgement, edits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The study under test is the bundled default with review data appended to its text, so
 * that the expected line of a bad member is counted from the text itself.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-study-edit.h"
#include "bpw-study-quality.h"
#include "bpw-test-study.h"

#define REVIEW_DATA \
  "\"owners\": [\n" \
  "  { \"role\": \"architecture\", \"name\": \"A. Architect\", \"contact\": \"a@example.org\" },\n" \
  "  { \"role\": \"release\", \"name\": \"R. Release\" }\n" \
  "],\n" \
  "\"quality_thresholds\": [\n" \
  "  { \"metric\": \"mmlu\", \"max_degradation\": 0.01, \"scale\": \"relative\",\n" \
  "    \"better\": \"higher\", \"source\": \"release policy\" },\n" \
  "  { \"metric\": \"perplexity\", \"max_degradation\": 0.2, \"scale\": \"absolute\",\n" \
  "    \"better\": \"lower\", \"source\": \"release policy\" }\n" \
  "],\n" \
  "\"quality_evidence\": [\n" \
  "  { \"mode\": \"fp8\", \"metric\": \"mmlu\", \"value\": 0.683, \"baseline\": 0.687,\n" \
  "    \"source\": \"eval run 1\" },\n" \
  "  { \"mode\": \"fp8\", \"metric\": \"perplexity\", \"value\": 6.25, \"baseline\": 6.1,\n" \
  "    \"source\": \"eval run 1\" },\n" \
  "  { \"mode\": \"sparsity-2:4\", \"metric\": \"mmlu\", \"value\": 0.65, \"baseline\": 0.687,\n" \
  "    \"source\": \"eval run 2\" }\n" \
  "]"

/* The default study's text with @extra spliced in as its last members; *@first_line (if
 * given) gets the line @extra starts on. */
static char *
default_text_with (const char *extra,
                   guint      *first_line)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autofree char *text = bpw_study_to_json (study);
  char *end = strrchr (text, '}');
  g_autofree char *head = NULL;
  guint line = 1;

  g_assert_nonnull (end);
  head = g_strndup (text, end - text);
  g_strchomp (head);
  for (const char *c = head; *c != '\0'; c++)
    line += *c == '\n';
  if (first_line != NULL)
    *first_line = line + 1;
  return g_strdup_printf ("%s,\n%s\n}\n", head, extra);
}

static BpwStudy *
study_with (const char  *extra,
            GError     **error)
{
  g_autofree char *text = default_text_with (extra, NULL);

  return bpw_study_new_from_data ("q.bpw-study.json", text, -1, error);
}

static void
test_quality_read_and_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with (REVIEW_DATA, &error);
  g_autoptr(BpwStudy) back = NULL;
  g_autoptr(BpwStudy) copy = NULL;
  g_autofree char *json = NULL;
  const BpwQualityThreshold *t;
  const BpwQualityEvidence *e;

  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_owners (study), ==, 2);
  g_assert_cmpstr (bpw_study_get_owner (study, 0)->role, ==, "architecture");
  g_assert_cmpstr (bpw_study_get_owner (study, 0)->contact, ==, "a@example.org");
  g_assert_null (bpw_study_get_owner (study, 1)->contact);
  g_assert_cmpuint (bpw_study_get_n_quality_thresholds (study), ==, 2);
  t = bpw_study_lookup_quality_threshold (study, "perplexity");
  g_assert_nonnull (t);
  g_assert_cmpint (t->scale, ==, BPW_QUALITY_SCALE_ABSOLUTE);
  g_assert_cmpint (t->better, ==, BPW_QUALITY_LOWER_IS_BETTER);
  g_assert_cmpfloat (t->max_degradation, ==, 0.2);
  g_assert_cmpuint (bpw_study_get_n_quality_evidence (study), ==, 3);
  e = bpw_study_get_quality_evidence (study, 0);
  g_assert_cmpstr (e->mode, ==, "fp8");
  g_assert_true (isnan (e->max_degradation));

  json = bpw_study_to_json (study);
  g_assert_nonnull (strstr (json, "\"quality_evidence\""));
  back = bpw_study_new_from_data ("q.bpw-study.json", json, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_quality_evidence (back), ==, 3);
  /* Paths differ (none for either), so compare through a copy's equality as well. */
  g_assert_true (bpw_study_equal (study, back));
  copy = bpw_study_copy (study);
  g_assert_true (bpw_study_equal (study, copy));
  g_assert_cmpuint (bpw_study_get_n_owners (copy), ==, 2);
}

static void
test_quality_absent_writes_nothing (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autofree char *json = bpw_study_to_json (study);

  g_assert_null (strstr (json, "\"owners\""));
  g_assert_null (strstr (json, "\"quality_thresholds\""));
  g_assert_null (strstr (json, "\"quality_evidence\""));
}

static void
test_quality_judgement (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with (REVIEW_DATA, &error);
  const BpwQualityThreshold *mmlu, *ppl;
  const BpwQualityEvidence *e;

  g_assert_no_error (error);
  mmlu = bpw_study_lookup_quality_threshold (study, "mmlu");
  ppl = bpw_study_lookup_quality_threshold (study, "perplexity");
  /* fp8 on MMLU: (0.687 − 0.683) / 0.687 = 0.58 % ≤ 1 %. */
  e = bpw_study_get_quality_evidence (study, 0);
  g_assert_cmpfloat_with_epsilon (bpw_quality_evidence_degradation (e, mmlu),
                                  0.004 / 0.687, 1e-12);
  g_assert_true (bpw_quality_evidence_passes (e, mmlu));
  /* fp8 on perplexity, lower is better: 6.25 − 6.1 = 0.15 ≤ 0.2. */
  e = bpw_study_get_quality_evidence (study, 1);
  g_assert_cmpfloat_with_epsilon (bpw_quality_evidence_degradation (e, ppl), 0.15, 1e-12);
  g_assert_true (bpw_quality_evidence_passes (e, ppl));
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "fp8"), ==, BPW_QUALITY_VALIDATED);
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "FP8"), ==, BPW_QUALITY_VALIDATED);
  /* 2:4 sparsity on MMLU: 5.4 % > 1 %. */
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "sparsity-2:4"), ==,
                   BPW_QUALITY_FAILED);
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "int8-weight"), ==,
                   BPW_QUALITY_MISSING);
  g_assert_cmpstr (bpw_quality_verdict_to_string (BPW_QUALITY_FAILED), ==, "failed");
}

static void
test_quality_own_limit (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with (
    "\"quality_thresholds\": [ { \"metric\": \"mmlu\", \"max_degradation\": 0.01,"
    " \"scale\": \"relative\", \"better\": \"higher\", \"source\": \"policy\" } ],\n"
    "\"quality_evidence\": [ { \"mode\": \"fp8\", \"metric\": \"mmlu\", \"value\": 0.683,"
    " \"baseline\": 0.687, \"max_degradation\": 0.005, \"source\": \"run\" } ]", &error);

  g_assert_no_error (error);
  /* 0.58 % is within the threshold's 1 % but not the evidence's own 0.5 %. */
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "fp8"), ==, BPW_QUALITY_FAILED);
}

static void
test_quality_errors (void)
{
  static const struct
  {
    const char *extra;
    guint       line_offset;  /* from the first line of extra */
    const char *path;
  } broken[] = {
    { "\"quality_evidence\": [\n  { \"mode\": \"fp8\", \"metric\": \"mmlu\", \"value\": 1,"
      " \"baseline\": 1, \"source\": \"s\" } ]", 1, "quality_evidence[0].metric" },
    { "\"quality_thresholds\": [\n  { \"metric\": \"mmlu\", \"max_degradation\": -1,"
      " \"scale\": \"relative\", \"better\": \"higher\", \"source\": \"s\" } ]", 1,
      "quality_thresholds[0].max_degradation" },
    { "\"quality_thresholds\": [\n  { \"metric\": \"mmlu\", \"max_degradation\": 1,"
      " \"scale\": \"percent\", \"better\": \"higher\", \"source\": \"s\" } ]", 1,
      "quality_thresholds[0].scale" },
    { "\"owners\": [\n  { \"role\": \"release\",\n    \"name\": \"\" } ]", 2, "owners[0].name" },
    { "\"quality_thresholds\": [ { \"metric\": \"m\", \"max_degradation\": 1,"
      " \"scale\": \"relative\", \"better\": \"higher\", \"source\": \"s\" } ],\n"
      "\"quality_evidence\": [ { \"mode\": \"fp8\", \"metric\": \"m\", \"value\": 1,\n"
      "  \"baseline\": 0, \"source\": \"s\" } ]", 2, "quality_evidence[0].baseline" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(GError) error = NULL;
      guint first = 0;
      g_autofree char *text = default_text_with (broken[i].extra, &first);
      g_autoptr(BpwStudy) study = bpw_study_new_from_data ("q.bpw-study.json", text, -1,
                                                           &error);
      g_autofree char *prefix = g_strdup_printf ("q.bpw-study.json:%u:",
                                                 first + broken[i].line_offset);
      g_autofree char *field = g_strdup_printf (": %s: ", broken[i].path);

      g_assert_null (study);
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, prefix));
      g_assert_nonnull (strstr (error->message, field));
    }
}

static void
test_quality_edits (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with (REVIEW_DATA, &error);
  g_autoptr(BpwStudyEdit) edit = NULL;
  g_autoptr(BpwStudyEdit) drop = NULL;
  g_autoptr(BpwStudyEdit) owners = NULL;
  BpwQualityEvidence passing[1];
  BpwStudyOwner one = { (char *) "performance modelling", (char *) "P. Model", NULL };

  g_assert_no_error (error);
  /* Replace the failing 2:4 evidence by one within 1 %. */
  passing[0] = *bpw_study_get_quality_evidence (study, 2);
  passing[0].value = 0.684;
  edit = bpw_study_edit_new_quality_evidence (study, passing, 1, "evidence");
  g_assert_cmpint (bpw_study_edit_get_kind (edit), ==, BPW_STUDY_EDIT_QUALITY_EVIDENCE);
  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_quality_evidence (study), ==, 1);
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "sparsity-2:4"), ==,
                   BPW_QUALITY_VALIDATED);
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "fp8"), ==, BPW_QUALITY_MISSING);
  g_assert_true (bpw_study_edit_revert (edit, study, &error));
  g_assert_cmpuint (bpw_study_get_n_quality_evidence (study), ==, 3);
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "sparsity-2:4"), ==,
                   BPW_QUALITY_FAILED);

  /* Thresholds that evidence names cannot go; the study stays as it was. */
  drop = bpw_study_edit_new_quality_thresholds (study, NULL, 0, "thresholds");
  g_assert_false (bpw_study_edit_apply (drop, study, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "quality_evidence[0].metric"));
  g_clear_error (&error);
  g_assert_cmpuint (bpw_study_get_n_quality_thresholds (study), ==, 2);

  owners = bpw_study_edit_new_owners (study, &one, 1, "owners");
  g_assert_true (bpw_study_edit_apply (owners, study, &error));
  g_assert_cmpuint (bpw_study_get_n_owners (study), ==, 1);
  g_assert_cmpstr (bpw_study_get_owner (study, 0)->name, ==, "P. Model");
  g_assert_true (bpw_study_edit_revert (owners, study, &error));
  g_assert_cmpuint (bpw_study_get_n_owners (study), ==, 2);

  /* A setter refuses an owner without a name, naming the item. */
  one.name = (char *) "";
  g_assert_false (bpw_study_set_owners (study, &one, 1, &error));
  g_assert_nonnull (strstr (error->message, "owners[0].name"));
  g_assert_cmpuint (bpw_study_get_n_owners (study), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/study-quality/read-and-round-trip", test_quality_read_and_round_trip);
  g_test_add_func ("/study-quality/absent-writes-nothing", test_quality_absent_writes_nothing);
  g_test_add_func ("/study-quality/judgement", test_quality_judgement);
  g_test_add_func ("/study-quality/own-limit", test_quality_own_limit);
  g_test_add_func ("/study-quality/errors", test_quality_errors);
  g_test_add_func ("/study-quality/edits", test_quality_edits);
  return g_test_run ();
}
