/* test-study-price.c — a candidate's price set and cleared as an undoable edit
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-study-edit.h"
#include "bpw-test-study.h"

#define QUOTE "vendor quote 2026-11"

static void
assert_price (BpwStudy     *study,
              guint         candidate,
              double        usd,
              BpwPriceUnit  unit,
              const char   *source)
{
  const BpwStudyPrice *p = &bpw_study_get_candidate (study, candidate)->price;

  g_assert_true (p->set);
  g_assert_cmpfloat (p->usd, ==, usd);
  g_assert_cmpint (p->unit, ==, unit);
  g_assert_cmpstr (p->source, ==, source);
}

static void
test_price_edit (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  g_autoptr(BpwStudy) back = NULL;
  g_autoptr(BpwStudyEdit) set = NULL;
  g_autoptr(BpwStudyEdit) change = NULL;
  g_autoptr(BpwStudyEdit) clear = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  BpwStudyPrice hourly = { TRUE, 2.49, BPW_PRICE_PER_DEVICE_HOUR, (char *) QUOTE };
  BpwStudyPrice bought = { TRUE, 25000, BPW_PRICE_PER_DEVICE, (char *) "list price" };

  g_assert_cmpuint (bpw_study_get_n_candidates (study), >=, 2);
  g_assert_false (bpw_study_get_candidate (study, 0)->price.set);

  /* Set: the edit copies the price; the caller's may go. */
  set = bpw_study_edit_new_price (study, 0, &hourly, "Set price", &error);
  g_assert_no_error (error);
  g_assert_nonnull (set);
  g_assert_cmpint (bpw_study_edit_get_kind (set), ==, BPW_STUDY_EDIT_PRICE);
  g_assert_cmpuint (bpw_study_edit_get_index (set), ==, 0);
  g_assert_cmpstr (bpw_study_edit_get_target (set), ==, bpw_study_get_candidate (study, 0)->name);
  g_assert_false (bpw_study_get_candidate (study, 0)->price.set);
  g_assert_true (bpw_study_edit_apply (set, study, &error));
  g_assert_no_error (error);
  assert_price (study, 0, 2.49, BPW_PRICE_PER_DEVICE_HOUR, QUOTE);
  g_assert_false (bpw_study_get_candidate (study, 1)->price.set);

  /* A second edit over the first: undo gives the first back, not none. */
  change = bpw_study_edit_new_price (study, 0, &bought, "Change price", &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_edit_apply (change, study, &error));
  assert_price (study, 0, 25000, BPW_PRICE_PER_DEVICE, "list price");
  g_assert_true (bpw_study_edit_revert (change, study, &error));
  g_assert_no_error (error);
  assert_price (study, 0, 2.49, BPW_PRICE_PER_DEVICE_HOUR, QUOTE);

  /* Undo and redo of the first. */
  g_assert_true (bpw_study_edit_revert (set, study, &error));
  g_assert_no_error (error);
  g_assert_false (bpw_study_get_candidate (study, 0)->price.set);
  g_assert_null (bpw_study_get_candidate (study, 0)->price.source);
  g_assert_true (bpw_study_edit_apply (set, study, &error));
  assert_price (study, 0, 2.49, BPW_PRICE_PER_DEVICE_HOUR, QUOTE);

  /* Through the file and back, exactly. */
  json = bpw_study_to_json (study);
  g_assert_nonnull (strstr (json, "\"USD/device-hour\""));
  back = bpw_study_new_from_data ("price.bpw-study.json", json, -1, &error);
  g_assert_no_error (error);
  assert_price (back, 0, 2.49, BPW_PRICE_PER_DEVICE_HOUR, QUOTE);
  g_assert_false (bpw_study_get_candidate (back, 1)->price.set);

  /* Clear: none, written as no "price" at all; undone, the price is back. */
  clear = bpw_study_edit_new_price (study, 0, NULL, "Clear price", &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_edit_apply (clear, study, &error));
  g_assert_false (bpw_study_get_candidate (study, 0)->price.set);
  g_clear_pointer (&json, g_free);
  json = bpw_study_to_json (study);
  g_assert_null (strstr (json, "\"price\""));
  g_assert_true (bpw_study_edit_revert (clear, study, &error));
  assert_price (study, 0, 2.49, BPW_PRICE_PER_DEVICE_HOUR, QUOTE);
}

/* What the reader would refuse, the edit refuses, naming the candidate; the study stays. */
static void
test_price_refused (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  const char *name = bpw_study_get_candidate (study, 1)->name;
  const struct { double usd; const char *source; const char *field; } bad[] = {
    { -3.0, QUOTE, "price.value" },
    { 0.0, QUOTE, "price.value" },
    { NAN, QUOTE, "price.value" },
    { INFINITY, QUOTE, "price.value" },
    { 2e9, QUOTE, "price.value" },
    { 2.0, "", "price.source" },
    { 2.0, "   ", "price.source" },
    { 2.0, NULL, "price.source" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      BpwStudyPrice p = { TRUE, bad[i].usd, BPW_PRICE_PER_DEVICE, (char *) bad[i].source };
      g_autoptr(BpwStudyEdit) edit = bpw_study_edit_new_price (study, 1, &p, NULL, &error);

      g_assert_null (edit);
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_assert_nonnull (strstr (error->message, name));
      g_assert_nonnull (strstr (error->message, bad[i].field));
      g_clear_error (&error);
      g_assert_false (bpw_study_set_candidate_price (study, 1, &p, &error));
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_assert_false (bpw_study_get_candidate (study, 1)->price.set);
    }
}

/* An edit made for one candidate does not land on another that took its place. */
static void
test_price_stale (void)
{
  g_autoptr(BpwStudy) study = bpw_test_default_study ();
  guint last = bpw_study_get_n_candidates (study) - 1;
  BpwStudyPrice p = { TRUE, 3.0, BPW_PRICE_PER_DEVICE_HOUR, (char *) QUOTE };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudyEdit) edit = bpw_study_edit_new_price (study, last, &p, NULL, &error);

  g_assert_no_error (error);
  bpw_study_remove_candidate (study, last);
  g_assert_false (bpw_study_edit_apply (edit, study, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/study/price/edit", test_price_edit);
  g_test_add_func ("/bpw/study/price/refused", test_price_refused);
  g_test_add_func ("/bpw/study/price/stale", test_price_stale);
  return g_test_run ();
}
