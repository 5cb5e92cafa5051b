/* bpw-review-validation.c — the validation matrix: how each claim would be confirmed, and
 * what would withdraw it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tolerance of a time is the estimator's out-of-sample error: the largest |error| of
 * the leave-one-out refits on Megatron-LM 2021 Table 1 (bpw-validation.h), the figure that
 * says how well the fitting rule predicts a run it did not see. A speed-up of one
 * candidate over another, each within that tolerance, lies within
 * [r·(1−t)/(1+t), r·(1+t)/(1−t)]; its rollback trigger is the lower end. A memory claim's
 * trigger is the device's capacity: a plan that does not fit withdraws the recommendation.
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <inttypes.h>

#include <math.h>

#include "bpw-blueprint-io.h"
#include "bpw-i18n.h"
#include "bpw-quantity.h"
#include "bpw-review-private.h"
#include "bpw-validation.h"

#define VALIDATION_BLUEPRINT "a100-sxm-80gb"

/* The refits of the bundled blueprint give the same figure every time: computed once per
 * process (three seconds of fitting), for the memo and the packet alike. */
G_LOCK_DEFINE_STATIC (tolerance);
static gboolean tolerance_known;
static double   tolerance_worst;
static guint    tolerance_rows;

static gboolean
bpw_review_leave_one_out (double *worst,
                          guint  *rows)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (VALIDATION_BLUEPRINT, NULL);
  g_autofree BpwValidationResult *results = NULL;
  guint n = 0;

  bpw_validation_megatron_rows (&n);
  if (bp == NULL || n == 0)
    return FALSE;
  results = g_new0 (BpwValidationResult, n);
  if (!bpw_validation_leave_one_out (bp, results, NULL))
    return FALSE;
  *worst = 0;
  for (guint i = 0; i < n; i++)
    *worst = MAX (*worst, fabs (results[i].error));
  *rows = n;
  return TRUE;
}

void
_bpw_review_tolerance (BpwReviewBuild *b)
{
  gboolean known;

  G_LOCK (tolerance);
  if (!tolerance_known)
    tolerance_known = bpw_review_leave_one_out (&tolerance_worst, &tolerance_rows);
  known = tolerance_known;
  G_UNLOCK (tolerance);
  if (!known)
    return;
  b->tolerance = tolerance_worst;
  b->tolerance_source = g_strdup_printf (_("largest |error| of the leave-one-out refits on "
                                         "Megatron-LM 2021 Table 1 (%u rows, %s)"),
                                         tolerance_rows, VALIDATION_BLUEPRINT);
}

static void
bpw_review_claim (JsonArray  *matrix,
                  const char *claim,
                  const char *measurement,
                  double      expected,
                  const char *unit,
                  double      tolerance,
                  const char *tolerance_source,
                  const char *rollback)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "claim", claim);
  json_object_set_string_member (o, "measurement", measurement);
  _bpw_review_set_double (o, "expected", expected);
  json_object_set_string_member (o, "unit", unit);
  _bpw_review_set_double (o, "tolerance", tolerance);
  json_object_set_string_member (o, "tolerance_source", tolerance_source != NULL
                                                        ? tolerance_source
                                                        : BPW_REVIEW_NOT_RECORDED);
  json_object_set_string_member (o, "rollback_trigger", rollback);
  json_array_add_object_element (matrix, o);
}

static void
bpw_review_best_claims (BpwReviewBuild *b,
                        JsonArray      *matrix)
{
  const BpwCompareSuite *suite = _bpw_review_suite (b);
  guint best = (guint) b->best;
  const char *name = bpw_study_get_candidate (b->study, best)->name;
  const char *base = bpw_study_get_candidate (b->study, b->baseline)->name;
  double t = b->tolerance;

  for (guint i = 0; i < suite->n_scenarios; i++)
    {
      guint s = suite->scenarios[i];
      const char *scenario = bpw_study_get_scenario (b->study, s)->name;
      const BpwCompareCell *x = bpw_comparison_get_cell (b->cmp, best, s);
      const BpwCompareCell *y = bpw_comparison_get_cell (b->cmp, b->baseline, s);
      g_autofree char *claim = NULL, *measure = NULL, *rollback = NULL;
      g_autofree char *headroom_source = NULL;
      g_autofree char *step = NULL, *limit = NULL, *peak = NULL, *capacity = NULL;

      if (!x->ok || !x->eval.legal)
        continue;
      step = bpw_quantity_format (x->eval.step_time_s, BPW_UNIT_SECONDS);
      limit = bpw_quantity_format (x->eval.step_time_s * (1 + (isfinite (t) ? t : 0)),
                                   BPW_UNIT_SECONDS);
      peak = bpw_quantity_format (x->eval.peak_bytes, BPW_UNIT_BYTES);
      capacity = bpw_quantity_format (x->eval.capacity_bytes, BPW_UNIT_BYTES);
      claim = g_strdup_printf (_("%s runs a step of %s in %s"), name, scenario, step);
      measure = g_strdup_printf (_("Profile %s running %s with the study's mapping (%" PRId64
                                 " devices) and add the trace to the study's measurements"),
                                 name, scenario, x->devices);
      rollback = isfinite (t)
        ? g_strdup_printf (_("measured step time above %s"), limit)
        : g_strdup_printf (_("measured step time above %s (no tolerance validated)"), limit);
      bpw_review_claim (matrix, claim, measure, x->eval.step_time_s, "s", t,
                        b->tolerance_source, rollback);

      g_free (claim);
      g_free (rollback);
      claim = g_strdup_printf (_("%s fits %s in %s per device"), name, scenario, peak);
      rollback = g_strdup_printf (_("measured peak memory above the device's %s"), capacity);
      headroom_source = g_strdup (_("headroom to the device's capacity"));
      bpw_review_claim (matrix, claim, measure, x->eval.peak_bytes, "bytes",
                        x->eval.capacity_bytes / x->eval.peak_bytes - 1, headroom_source,
                        rollback);

      if (best != b->baseline && y->ok && y->eval.legal && isfinite (t) && t < 1)
        {
          double r = y->eval.step_time_s / x->eval.step_time_s;

          g_free (claim);
          g_free (measure);
          g_free (rollback);
          claim = g_strdup_printf (_("%s is ×%.3f faster than the baseline %s on %s"), name, r,
                                   base, scenario);
          measure = g_strdup_printf (_("Profile both on %s and divide the baseline's measured "
                                     "step time by %s's"), scenario, name);
          rollback = g_strdup_printf (_("measured speed-up below ×%.3f"),
                                      r * (1 - t) / (1 + t));
          bpw_review_claim (matrix, claim, measure, r, "ratio", t, b->tolerance_source,
                            rollback);
        }
    }
}

static void
bpw_review_mitigation_claims (BpwReviewBuild *b,
                              JsonArray      *matrix,
                              JsonArray      *mitigations)
{
  for (guint i = 0; i < json_array_get_length (mitigations); i++)
    {
      JsonObject *m = json_array_get_object_element (mitigations, i);
      const char *candidate = json_object_get_string_member (m, "candidate");
      const char *scenario = json_object_get_string_member (m, "scenario");
      const char *change = json_object_get_string_member (m, "change");
      double after = json_object_get_double_member_with_default (m, "step_time_s_after", NAN);
      g_autofree char *step = bpw_quantity_format (after, BPW_UNIT_SECONDS);
      g_autofree char *claim = g_strdup_printf (_("%s on %s: %s takes a step to %s"),
                                                candidate, scenario, change, step);
      g_autofree char *measure = g_strdup_printf (_("Profile %s on %s with and without the "
                                                  "change"), candidate, scenario);

      bpw_review_claim (matrix, claim, measure, after, "s", b->tolerance, b->tolerance_source,
                        _("measured step time with the change not below the step time "
                          "measured without it"));
    }
}

JsonNode *
_bpw_review_validation (BpwReviewBuild *b)
{
  JsonArray *matrix = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  if (b->best >= 0)
    bpw_review_best_claims (b, matrix);
  bpw_review_mitigation_claims (b, matrix, b->mitigations);
  json_node_take_array (node, matrix);
  return node;
}
