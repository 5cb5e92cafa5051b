/* test-memo.c — the design-review memo: a valid multi-page PDF whose text has the
 * sections, the axis titles and the provenance, and the validation hook
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-memo"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "bpw-error.h"
#include "bpw-memo.h"
#include "bpw-memo-validation.h"
#include "bpw-blueprint-io.h"
#include "bpw-validation-report.h"
#include "bpw-plot-test-util.h"

static gboolean
validation_hook (BpwMemoPage *page,
                 BpwStudy    *study,
                 gpointer     user_data)
{
  guint *calls = user_data;

  (*calls)++;
  bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, NULL, "Measured step time of the hook");
  return TRUE;
}

/* Occurrences of @needle in binary @pdf (compressed streams hold NUL bytes). */
static guint
count (const char *pdf, gsize len, const char *needle, char not_next)
{
  gsize k = strlen (needle);
  guint n = 0;

  for (gsize i = 0; i + k < len; i++)
    if (memcmp (pdf + i, needle, k) == 0 && pdf[i + k] != not_next)
      n++;
  return n;
}

static void
test_memo (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autofree char *dir = g_dir_make_tmp ("bpw-memo-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "memo.pdf", NULL);
  g_autofree char *pdf = NULL;
  g_autofree char *text = NULL;
  BpwMemoOptions options;
  guint calls = 0;
  gsize len;
  const char *want[] = {
    "GPT-3 175B training and Llama 3 70B serving", "Recommendation", "Scenarios",
    "Headline numbers", "Rejected alternatives", "Candidates side by side",
    "Roofline and assignment", "Arithmetic intensity (FLOP/B)", "Busy time per step",
    "Simulated step", "Time in the step", "Buffer lifetimes", "Device memory",
    "Trade curves", "Time per output token", "Mapping sheet excerpt",
    "Assumptions and provenance", "datasheet", "SHA-256", "Validation",
    "Measured step time of the hook", "Figure 1.", "Calibration",
    "estimate by rule from h200-sxm-141gb",
    "measured (measurement pack h200-pytorch)", "Compare with care",
    "By layer type", "MFU / memory stall",
    "Where the steps of", "Time by class", "Attention",
    /* The review packet's sections, as its Markdown has them. */
    "Review packet: GPT-3 175B training and Llama 3 70B serving", "Metadata",
    "Quality thresholds and evidence", "Decision: conditional", "Baseline and candidates",
    "Bottleneck evidence", "Mitigations", "Validation matrix", "Rollback trigger", "Owners",
    "unassigned",
  };

  g_assert_no_error (error);
  bpw_memo_options_init (&options);
  options.trade_requests = 40;
  options.validation = validation_hook;
  options.validation_data = &calls;
  g_assert_true (bpw_memo_write_pdf (study, &options, path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 1);
  g_assert_true (g_file_get_contents (path, &pdf, &len, &error));
  g_assert_true (len > 5 && memcmp (pdf, "%PDF-", 5) == 0);
  g_assert_cmpuint (count (pdf, len, "%%EOF", 0), ==, 1);
  /* Pages as cairo writes them: "/Type /Page" not followed by "s" (the tree). */
  g_assert_cmpuint (count (pdf, len, "/Type /Page", 's'), >=, 8);

  text = bpw_plot_test_pdf_text (path);
  if (text == NULL)
    {
      g_test_skip ("pdftotext (poppler-utils) is not installed: text not checked");
    }
  else
    {
      for (guint i = 0; i < G_N_ELEMENTS (want); i++)
        if (strstr (text, want[i]) == NULL)
          g_error ("the memo's text lacks “%s”", want[i]);
      /* The default study gives no prices: the memo says so and claims nothing about cost
       * (lines joined, as the PDF wraps them anywhere). */
      g_strdelimit (text, "\n", ' ');
      g_assert_nonnull (strstr (text, "nothing is claimed about cost"));
      g_assert_null (strstr (text, "and cost"));
      g_assert_null (strstr (text, "or cost"));
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* A study without measurements of its own: the memo's validation page gives Table 1 in
 * sample and left out, as the Validation page does, instead of calling it unvalidated. */
static void
test_validation_without_measurements (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwBlueprint) a100 = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(BpwValidationReport) report = bpw_validation_report_new ();
  g_autofree char *dir = g_dir_make_tmp ("bpw-memo-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "memo.pdf", NULL);
  g_autofree char *text = NULL;
  g_autofree char *in_sample = NULL;
  g_autofree char *left_out = NULL;
  const BpwReportSection *s;
  BpwMemoOptions options;

  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_measurements (study), ==, 0);
  bpw_memo_options_init (&options);
  options.trade_requests = 20;
  bpw_memo_options_set_validation (&options, study);
  g_assert_true (bpw_memo_write_pdf (study, &options, path, &error));
  g_assert_no_error (error);

  /* The figures `bpw validate` and the Validation page compute. */
  g_assert_true (bpw_validation_report_add_megatron (report, a100, &error));
  g_assert_true (bpw_validation_report_add_held_out (report, a100, &error));
  g_assert_no_error (error);
  s = g_ptr_array_index (report->sections, 0);
  in_sample = g_strdup_printf ("mean |error| %.1f %%, max %.1f %%", 100.0 * s->mean_abs_error,
                               100.0 * s->max_abs_error);
  left_out = g_strdup_printf ("mean |error| %.1f %%, max %.1f %%",
                              100.0 * s->held_out_mean_abs_error,
                              100.0 * s->held_out_max_abs_error);

  text = bpw_plot_test_pdf_text (path);
  if (text == NULL)
    g_test_skip ("pdftotext (poppler-utils) is not installed: text not checked");
  else
    {
      g_autofree char *flat = g_strdelimit (g_strdup (text), "\n", ' ');

      g_assert_null (strstr (flat, "not validated"));
      /* The left-out refits are least squares of the log error, not --fit's minimax rule
       * that fitted the blueprint in sample. */
      g_assert_null (strstr (flat, "same rule"));
      for (const char * const *want = (const char * const[]) { "Error in sample",
                                                               "Error left out", in_sample,
                                                               left_out,
                                                               "least squares of the log "
                                                               "error", NULL };
           *want != NULL; want++)
        if (strstr (flat, *want) == NULL)
          g_error ("the memo's validation lacks “%s”", *want);
    }
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  BpwMemoOptions options;

  bpw_memo_options_init (&options);
  options.baseline = "no such candidate";
  g_assert_false (bpw_memo_write_pdf (study, &options, "unused.pdf", &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  bpw_memo_options_init (&options);
  options.trade_requests = 20;
  g_assert_false (bpw_memo_write_pdf (study, &options, "/nonexistent/dir/memo.pdf", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, "/nonexistent/dir/memo.pdf"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/plot/Memo/sections-and-text", test_memo);
  g_test_add_func ("/bpw/plot/Memo/validation-without-measurements",
                   test_validation_without_measurements);
  g_test_add_func ("/bpw/plot/Memo/errors", test_errors);
  return g_test_run ();
}
