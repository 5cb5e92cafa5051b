/* bpw-review-quality.c — quality thresholds, precision modes and what is counted
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The modes are those the study's scenarios run (a compute or KV-cache precision below 16
 * bits: "fp8", "fp8-kv") and those its candidates' blueprints offer without the estimator
 * crediting them ("sparsity-2:4"). A scenario whose mode is not validated is counted at
 * bf16: the comparison the recommendation reads runs that copy of the study, and the
 * difference to the study as given is reported as the gain not counted.
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <math.h>

#include "bpw-candidate.h"
#include "bpw-i18n.h"
#include "bpw-review-private.h"
#include "bpw-study-quality.h"

#define KV_MODE_SUFFIX "-kv"
#define SPARSITY_MODE "sparsity-2:4"

JsonNode *
_bpw_review_thresholds (BpwReviewBuild *b)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < bpw_study_get_n_quality_thresholds (b->study); i++)
    {
      const BpwQualityThreshold *t = bpw_study_get_quality_threshold (b->study, i);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "metric", t->metric);
      json_object_set_double_member (o, "max_degradation", t->max_degradation);
      json_object_set_string_member (o, "scale", bpw_quality_scale_to_string (t->scale));
      json_object_set_string_member (o, "better", bpw_quality_direction_to_string (t->better));
      json_object_set_string_member (o, "source", t->source);
      json_array_add_object_element (array, o);
    }
  json_node_take_array (node, array);
  return node;
}

static JsonArray *
bpw_review_evidence_of (BpwStudy   *study,
                        const char *mode)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < bpw_study_get_n_quality_evidence (study); i++)
    {
      const BpwQualityEvidence *e = bpw_study_get_quality_evidence (study, i);
      const BpwQualityThreshold *t = bpw_study_lookup_quality_threshold (study, e->metric);
      JsonObject *o;

      if (g_ascii_strcasecmp (e->mode, mode) != 0 || t == NULL)
        continue;
      o = json_object_new ();
      json_object_set_string_member (o, "metric", e->metric);
      json_object_set_double_member (o, "value", e->value);
      json_object_set_double_member (o, "baseline", e->baseline);
      json_object_set_double_member (o, "degradation", bpw_quality_evidence_degradation (e, t));
      json_object_set_double_member (o, "max_degradation", isnan (e->max_degradation)
                                                           ? t->max_degradation
                                                           : e->max_degradation);
      json_object_set_string_member (o, "scale", bpw_quality_scale_to_string (t->scale));
      json_object_set_boolean_member (o, "within_threshold", bpw_quality_evidence_passes (e, t));
      json_object_set_string_member (o, "source", e->source);
      json_array_add_object_element (array, o);
    }
  return array;
}

/* Mode → the scenarios (names) that run it, in the study's order of first use. */
static void
bpw_review_add_use (GPtrArray  *modes,
                    GHashTable *users,
                    const char *mode,
                    const char *user)
{
  GPtrArray *list = g_hash_table_lookup (users, mode);

  if (list == NULL)
    {
      list = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (modes, g_strdup (mode));
      g_hash_table_insert (users, g_strdup (mode), list);
    }
  if (user != NULL && !g_ptr_array_find_with_equal_func (list, user, g_str_equal, NULL))
    g_ptr_array_add (list, g_strdup (user));
}

static gboolean
bpw_review_mode_counted (BpwReviewBuild *b,
                         const char     *mode)
{
  return bpw_study_judge_quality_mode (b->study, mode) == BPW_QUALITY_VALIDATED;
}

/* @b->counted: the study with each unvalidated mode's scenarios at bf16. */
static gboolean
bpw_review_count (BpwReviewBuild  *b,
                  GError         **error)
{
  b->counted = bpw_study_copy (b->study);
  for (guint s = 0; s < bpw_study_get_n_scenarios (b->study); s++)
    {
      const BpwStudyScenario *sc = bpw_study_get_scenario (b->study, s);
      const char *mode = _bpw_review_dtype_mode (sc->scenario.dtype);
      const char *kv = _bpw_review_dtype_mode (sc->scenario.kv_dtype);
      g_autofree char *kv_mode = kv != NULL ? g_strconcat (kv, KV_MODE_SUFFIX, NULL) : NULL;
      gboolean drop = mode != NULL && !bpw_review_mode_counted (b, mode);
      gboolean drop_kv = kv_mode != NULL && !bpw_review_mode_counted (b, kv_mode);
      BpwScenario copy;
      gboolean ok;

      if (!drop && !drop_kv)
        continue;
      bpw_scenario_copy (&copy, &sc->scenario);
      if (drop)
        copy.dtype = BPW_DTYPE_BF16;
      if (drop_kv)
        copy.kv_dtype = BPW_DTYPE_BF16;
      ok = bpw_study_set_scenario (b->counted, s, &copy, &sc->parallel, error);
      bpw_scenario_clear (&copy);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* The gains the study as given shows over what is counted, for the scenarios of @users. */
static JsonArray *
bpw_review_uncounted_gains (BpwReviewBuild *b,
                            GPtrArray      *users)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; users != NULL && i < users->len; i++)
    {
      guint s;

      if (!bpw_study_lookup_scenario (b->study, g_ptr_array_index (users, i), &s))
        continue;
      for (guint c = 0; c < bpw_comparison_get_n_candidates (b->cmp); c++)
        {
          const BpwCompareCell *counted = bpw_comparison_get_cell (b->cmp, c, s);
          const BpwCompareCell *given = bpw_comparison_get_cell (b->given, c, s);
          JsonObject *o;

          if (!counted->ok || !given->ok)
            continue;
          o = json_object_new ();
          json_object_set_string_member (o, "candidate",
                                         bpw_study_get_candidate (b->study, c)->name);
          json_object_set_string_member (o, "scenario", g_ptr_array_index (users, i));
          _bpw_review_set_double (o, "step_time_s_claimed", given->eval.step_time_s);
          _bpw_review_set_double (o, "step_time_s_counted", counted->eval.step_time_s);
          _bpw_review_set_double (o, "speedup_not_counted",
                                  counted->eval.step_time_s / given->eval.step_time_s);
          json_array_add_object_element (array, o);
        }
    }
  return array;
}

JsonNode *
_bpw_review_precision (BpwReviewBuild  *b,
                       GError         **error)
{
  g_autoptr(GPtrArray) modes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_ptr_array_unref);
  BpwCompareOptions copts;
  JsonArray *array;
  JsonNode *node;

  for (guint s = 0; s < bpw_study_get_n_scenarios (b->study); s++)
    {
      const BpwStudyScenario *sc = bpw_study_get_scenario (b->study, s);
      const char *mode = _bpw_review_dtype_mode (sc->scenario.dtype);
      const char *kv = _bpw_review_dtype_mode (sc->scenario.kv_dtype);

      if (mode != NULL)
        bpw_review_add_use (modes, users, mode, sc->name);
      if (kv != NULL)
        {
          g_autofree char *kv_mode = g_strconcat (kv, KV_MODE_SUFFIX, NULL);

          bpw_review_add_use (modes, users, kv_mode, sc->name);
        }
    }
  /* Offered, not credited: the estimator runs weight matmuls dense. */
  for (guint c = 0; c < bpw_study_get_n_candidates (b->study); c++)
    {
      g_autoptr(BpwBlueprint) bp =
        bpw_study_load_blueprint (b->study, bpw_study_get_candidate (b->study, c)->blueprint,
                                  NULL);

      if (bp != NULL && bp->sparsity_2_4)
        bpw_review_add_use (modes, users, SPARSITY_MODE, NULL);
    }

  if (!bpw_review_count (b, error))
    return NULL;
  bpw_compare_options_init (&copts);
  b->cmp = bpw_compare_study (b->counted, &copts, b->cancellable, error);
  if (b->cmp == NULL)
    return NULL;
  b->calibration = bpw_study_calibration_new (b->counted);
  b->uncounted = g_ptr_array_new_with_free_func (g_free);

  array = json_array_new ();
  for (guint i = 0; i < modes->len; i++)
    {
      const char *mode = g_ptr_array_index (modes, i);
      GPtrArray *scenarios = g_hash_table_lookup (users, mode);
      BpwQualityVerdict verdict = bpw_study_judge_quality_mode (b->study, mode);
      JsonObject *o = json_object_new ();
      JsonArray *names = json_array_new ();
      gboolean credited = scenarios->len > 0;

      for (guint k = 0; k < scenarios->len; k++)
        json_array_add_string_element (names, g_ptr_array_index (scenarios, k));
      json_object_set_string_member (o, "mode", mode);
      json_object_set_array_member (o, "scenarios", names);
      json_object_set_string_member (o, "verdict", bpw_quality_verdict_to_string (verdict));
      json_object_set_array_member (o, "evidence", bpw_review_evidence_of (b->study, mode));
      json_object_set_boolean_member (o, "credited_by_estimator", credited);
      json_object_set_boolean_member (o, "counted", credited && verdict == BPW_QUALITY_VALIDATED);
      if (credited && verdict != BPW_QUALITY_VALIDATED)
        {
          if (b->given == NULL)
            {
              b->given = bpw_compare_study (b->study, &copts, b->cancellable, error);
              if (b->given == NULL)
                {
                  json_object_unref (o);
                  json_array_unref (array);
                  return NULL;
                }
            }
          g_ptr_array_add (b->uncounted, g_strdup (mode));
          json_object_set_array_member (o, "gains_not_counted",
                                        bpw_review_uncounted_gains (b, scenarios));
        }
      else
        json_object_set_array_member (o, "gains_not_counted", json_array_new ());
      json_array_add_object_element (array, o);
    }
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
}
