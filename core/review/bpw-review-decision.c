/* bpw-review-decision.c — the recommendation, the rejected alternatives and the owners
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rule, on the counted comparison of the study's first suite:
 * - no-go when no candidate meets every SLA of the suite;
 * - else the feasible candidate with the highest weighted score (the first of equals) is
 *   recommended, and the decision is conditional when anything it rests on is not yet
 *   established: a precision mode the scenarios ask for without validated evidence (it is
 *   counted at bf16), its calibration is only an estimate or the datasheet, or nobody
 *   owns the release; go otherwise.
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <math.h>

#include "bpw-i18n.h"
#include "bpw-quantity.h"
#include "bpw-review-private.h"
#include "bpw-study-quality.h"

static const char * const owner_roles[] = {
  "architecture", "performance modelling", "release", NULL
};

static gboolean
bpw_review_has_owner (BpwStudy   *study,
                      const char *role)
{
  for (guint i = 0; i < bpw_study_get_n_owners (study); i++)
    if (g_ascii_strcasecmp (bpw_study_get_owner (study, i)->role, role) == 0)
      return TRUE;
  return FALSE;
}

/* Why candidate @c is not feasible on the suite, or NULL. */
static char *
bpw_review_infeasible_reason (BpwReviewBuild        *b,
                              const BpwCompareSuite *suite,
                              guint                  c)
{
  GString *why = g_string_new (NULL);

  for (guint i = 0; i < suite->n_scenarios; i++)
    {
      guint s = suite->scenarios[i];
      const BpwCompareCell *cell = bpw_comparison_get_cell (b->cmp, c, s);
      const char *name = bpw_study_get_scenario (b->study, s)->name;

      if (!cell->ok)
        g_string_append_printf (why, _("%s: not evaluated (%s). "), name, cell->error);
      else if (!cell->eval.legal)
        g_string_append_printf (why, _("%s: illegal (%s). "), name,
                                cell->reasons->len > 0 ? (char *) cell->reasons->pdata[0]
                                                       : _("no reason given"));
      else if (cell->has_sla && !cell->sla_pass)
        {
          g_autofree char *value = bpw_quantity_format (cell->sla_value, BPW_UNIT_SECONDS);
          g_autofree char *limit = bpw_quantity_format (cell->sla_limit, BPW_UNIT_SECONDS);

          g_string_append_printf (why, _("%s: %s %s against the SLA of %s. "), name,
                                  cell->sla_metric, value, limit);
        }
    }
  if (why->len == 0)
    {
      g_string_free (why, TRUE);
      return NULL;
    }
  g_strchomp (why->str);
  return g_string_free (why, FALSE);
}

JsonNode *
_bpw_review_decision (BpwReviewBuild    *b,
                      BpwReviewDecision *decision)
{
  const BpwCompareSuite *suite = _bpw_review_suite (b);
  JsonArray *reasons = json_array_new ();
  JsonArray *conditions = json_array_new ();
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  guint n = bpw_comparison_get_n_candidates (b->cmp);

  for (guint c = 0; suite != NULL && c < n; c++)
    if (suite->feasible[c] && (b->best < 0 || suite->score[c] > suite->score[b->best]))
      b->best = (gint) c;

  for (guint c = 0; suite != NULL && c < n; c++)
    {
      const char *name = bpw_study_get_candidate (b->study, c)->name;
      g_autofree char *why = bpw_review_infeasible_reason (b, suite, c);

      if ((gint) c == b->best)
        continue;
      if (why != NULL)
        _bpw_review_reject (b, "candidate", name, why);
      else
        {
          g_autofree char *lower = g_strdup_printf (
            _("Meets every SLA of suite “%s”, but its weighted score is %.3f against %.3f."),
            suite->name, suite->score[c], suite->score[b->best]);

          _bpw_review_reject (b, "candidate", name, lower);
        }
    }
  for (guint i = 0; i < b->uncounted->len; i++)
    {
      const char *mode = g_ptr_array_index (b->uncounted, i);
      BpwQualityVerdict verdict = bpw_study_judge_quality_mode (b->study, mode);
      gboolean failed = verdict == BPW_QUALITY_FAILED;
      const char *why = failed
        ? _("Its quality evidence misses the study's threshold: its gain is not counted and "
            "its scenarios are judged at bf16.")
        : _("The study has no quality evidence for it: its gain is not counted and its "
            "scenarios are judged at bf16.");
      g_autofree char *condition = NULL;

      if (failed)
        condition = g_strdup_printf (_("Run the scenarios that ask for %s at bf16: its "
                                       "evidence misses the quality threshold."), mode);
      else
        condition = g_strdup_printf (_("Run the scenarios that ask for %s at bf16 until "
                                       "quality evidence within the study's thresholds is "
                                       "recorded."), mode);

      _bpw_review_reject (b, "precision", mode, why);
      json_array_add_string_element (conditions, condition);
    }

  if (suite == NULL || b->best < 0)
    {
      *decision = BPW_REVIEW_NO_GO;
      json_array_add_string_element (reasons, suite != NULL
                                     ? _("No candidate meets every SLA of the suite at the "
                                         "precisions that are validated.")
                                     : _("The study has no scenario to judge."));
    }
  else
    {
      guint best = (guint) b->best;
      const char *name = bpw_study_get_candidate (b->study, best)->name;
      const BpwCalibrationStatus *status = &b->calibration->statuses[best];
      g_autofree char *first = g_strdup_printf (
        _("%s meets every SLA of suite “%s” with the highest weighted score, %.3f (1 = the "
          "best candidate on every scenario)."), name, suite->name, suite->score[best]);

      json_array_add_string_element (reasons, first);
      for (guint i = 0; i < suite->n_scenarios && best != b->baseline; i++)
        {
          guint s = suite->scenarios[i];
          const BpwCompareCell *x = bpw_comparison_get_cell (b->cmp, best, s);
          const BpwCompareCell *y = bpw_comparison_get_cell (b->cmp, b->baseline, s);
          g_autofree char *line = NULL, *tx = NULL, *ty = NULL;

          if (!x->ok || !y->ok || !y->eval.legal)
            continue;
          tx = bpw_quantity_format (x->eval.step_time_s, BPW_UNIT_SECONDS);
          ty = bpw_quantity_format (y->eval.step_time_s, BPW_UNIT_SECONDS);
          line = g_strdup_printf (_("On %s its step takes %s against %s on the baseline %s "
                                  "(%+.1f%%)."),
                                  bpw_study_get_scenario (b->study, s)->name, tx, ty,
                                  bpw_study_get_candidate (b->study, b->baseline)->name,
                                  100 * (x->eval.step_time_s / y->eval.step_time_s - 1));
          json_array_add_string_element (reasons, line);
        }
      if (b->calibration->warning != NULL)
        json_array_add_string_element (reasons, b->calibration->warning);
      if (status->label == NULL || status->level >= BPW_CALIBRATION_ESTIMATE)
        {
          g_autofree char *c = g_strdup_printf (
            _("Measure %s on the suite's scenarios and confirm the validation matrix: its "
              "calibration is %s."), name,
            status->label != NULL ? status->label : BPW_REVIEW_NOT_RECORDED);

          json_array_add_string_element (conditions, c);
        }
      if (!bpw_review_has_owner (b->study, "release"))
        json_array_add_string_element (conditions, _("Name the owner of the release in the "
                                                     "study."));
      *decision = json_array_get_length (conditions) > 0 ? BPW_REVIEW_CONDITIONAL
                                                         : BPW_REVIEW_GO;
      json_object_set_string_member (o, "candidate", name);
    }
  json_object_set_string_member (o, "decision", bpw_review_decision_to_string (*decision));
  if (b->best < 0)
    json_object_set_null_member (o, "candidate");
  json_object_set_string_member (o, "suite", suite != NULL ? suite->name : "");
  json_object_set_array_member (o, "reasons", reasons);
  json_object_set_array_member (o, "conditions", conditions);
  json_node_take_object (node, o);
  return node;
}

JsonNode *
_bpw_review_owners (BpwReviewBuild *b)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < bpw_study_get_n_owners (b->study); i++)
    {
      const BpwStudyOwner *owner = bpw_study_get_owner (b->study, i);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "role", owner->role);
      json_object_set_string_member (o, "name", owner->name);
      json_object_set_string_member (o, "contact", owner->contact != NULL
                                                   ? owner->contact : BPW_REVIEW_NOT_RECORDED);
      json_array_add_object_element (array, o);
    }
  /* The roles a review expects and nobody holds are listed as open, not left out. */
  for (guint r = 0; owner_roles[r] != NULL; r++)
    if (!bpw_review_has_owner (b->study, owner_roles[r]))
      {
        JsonObject *o = json_object_new ();

        json_object_set_string_member (o, "role", owner_roles[r]);
        json_object_set_string_member (o, "name", "unassigned");
        json_object_set_string_member (o, "contact", BPW_REVIEW_NOT_RECORDED);
        json_array_add_object_element (array, o);
      }
  json_node_take_array (node, array);
  return node;
}
