/* bpw-review-quality.c — quality thresholds, precision modes and what is counted
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The modes are those the study's scenarios run (a compute or KV-cache precision below 16
 * bits: "fp8", "fp8-kv"), those its candidates' mappings ask for in their precision
 * policies (a class's format, "fp8-e4m3", "fp4", ...; 2:4 sparsity, "sparsity-2:4";
 * weight-only quantisation, "weights-int4-g128"), and 2:4 sparsity where a blueprint
 * offers it and no mapping uses it (listed, not credited). What is not validated is
 * counted without: a scenario at bf16, a policy class's format at bf16, its weights dense
 * and native. The comparison the recommendation reads runs that copy of the
 * study, and the difference to the study as given is reported as the gain not counted.
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-candidate.h"
#include "bpw-i18n.h"
#include "bpw-precision-policy.h"
#include "bpw-review-private.h"
#include "bpw-study-quality.h"

#define KV_MODE_SUFFIX "-kv"
#define SPARSITY_MODE BPW_MODE_SPARSITY_2_4

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

/* The modes candidate @c's precision policy asks for on scenario @s, each noted as used by
 * that scenario. A class held in bf16 for quality asks for nothing. */
static void
bpw_review_policy_modes (BpwReviewBuild *b,
                         guint           c,
                         guint           s,
                         GPtrArray      *modes,
                         GHashTable     *users)
{
  const char *scenario = bpw_study_get_scenario (b->study, s)->name;
  BpwCandidateRun run;

  if (bpw_candidate_run_init (&run, b->study, c, s, NULL) && run.mapping.precision.set)
    for (guint k = 0; k < BPW_N_POLICY_CLASSES; k++)
      {
        const BpwClassPrecision *cp = &run.mapping.precision.classes[k];

        if (bpw_number_format_is_reduced (cp->format) && !cp->keep_bf16)
          bpw_review_add_use (modes, users, bpw_number_format_to_string (cp->format), scenario);
        if (cp->sparse_2_4)
          bpw_review_add_use (modes, users, SPARSITY_MODE, scenario);
        if (cp->weights != BPW_WEIGHT_FORMAT_NATIVE)
          bpw_review_add_use (modes, users, bpw_weight_only_mode (cp->weights, cp->group),
                              scenario);
      }
  bpw_candidate_run_clear (&run);
}

/* A copy of @node that shares nothing with it (json_node_copy() shares an object's members). */
static JsonNode *
deep_copy (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  if (!json_parser_load_from_data (parser, text, -1, NULL))
    g_assert_not_reached ();
  return json_node_copy (json_parser_get_root (parser));
}

/* The weight-only mode policy class @cls asks for ("weights-int4-g128"), or NULL. */
static const char *
bpw_review_weights_mode (JsonObject *cls)
{
  BpwWeightFormat weights;
  JsonNode *group = json_object_get_member (cls, "group");

  if (!bpw_weight_format_from_string (json_object_get_string_member_with_default (cls,
                                                                                  "weights",
                                                                                  "native"),
                                      &weights) || weights == BPW_WEIGHT_FORMAT_NATIVE)
    return NULL;
  return bpw_weight_only_mode (weights, group != NULL && JSON_NODE_HOLDS_VALUE (group)
                                        ? json_node_get_int (group)
                                        : BPW_WEIGHT_GROUP_DEFAULT);
}

/* A copy of the mapping object @mapping whose precision policy asks only for what is
 * counted: an unvalidated format becomes bf16, unvalidated 2:4 sparsity dense, unvalidated
 * weight-only weights native; NULL when nothing changes. */
static JsonNode *
bpw_review_counted_mapping (BpwReviewBuild *b,
                            JsonNode       *mapping)
{
  g_autoptr(JsonNode) copy = NULL;
  g_autoptr(GList) classes = NULL;
  JsonObject *policy;
  gboolean changed = FALSE;

  if (mapping == NULL || !JSON_NODE_HOLDS_OBJECT (mapping) ||
      !json_object_has_member (json_node_get_object (mapping), "precision") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (mapping),
                                                       "precision")))
    return NULL;
  copy = deep_copy (mapping);
  policy = json_object_get_object_member (json_node_get_object (copy), "precision");
  classes = json_object_get_members (policy);
  for (GList *l = classes; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (policy, l->data);
      JsonObject *cls;
      const char *format, *sparsity, *weights;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      cls = json_node_get_object (node);
      format = json_object_get_string_member_with_default (cls, "format", "scenario");
      sparsity = json_object_get_string_member_with_default (cls, "sparsity", "dense");
      if (strcmp (format, "scenario") != 0 && strcmp (format, "bf16") != 0 &&
          !json_object_get_boolean_member_with_default (cls, "keep_bf16", FALSE) &&
          !bpw_review_mode_counted (b, format))
        {
          json_object_set_string_member (cls, "format", "bf16");
          changed = TRUE;
        }
      if (strcmp (sparsity, "2:4") == 0 && !bpw_review_mode_counted (b, SPARSITY_MODE))
        {
          json_object_set_string_member (cls, "sparsity", "dense");
          changed = TRUE;
        }
      weights = bpw_review_weights_mode (cls);
      if (weights != NULL && !bpw_review_mode_counted (b, weights))
        {
          json_object_set_string_member (cls, "weights", "native");
          if (json_object_has_member (cls, "group"))
            json_object_remove_member (cls, "group");
          changed = TRUE;
        }
    }
  return changed ? g_steal_pointer (&copy) : NULL;
}

/* Candidate @c of @b->counted with its mappings' policies asking only for what is counted. */
static gboolean
bpw_review_count_candidate (BpwReviewBuild  *b,
                            guint            c,
                            GError         **error)
{
  const BpwStudyCandidate *cand = bpw_study_get_candidate (b->study, c);
  g_autoptr(JsonNode) own = bpw_review_counted_mapping (b, cand->mapping);
  g_autoptr(GList) scenarios = NULL;
  JsonObject *per;

  if (own != NULL && !bpw_study_set_candidate_mapping (b->counted, c, own, error))
    return FALSE;
  if (cand->mappings == NULL || !JSON_NODE_HOLDS_OBJECT (cand->mappings))
    return TRUE;
  per = json_node_get_object (cand->mappings);
  scenarios = json_object_get_members (per);
  for (GList *l = scenarios; l != NULL; l = l->next)
    {
      g_autoptr(JsonNode) counted =
        bpw_review_counted_mapping (b, json_object_get_member (per, l->data));

      if (counted != NULL &&
          !bpw_study_set_candidate_scenario_mapping (b->counted, c, l->data, counted, error))
        return FALSE;
    }
  return TRUE;
}

/* @b->counted: the study with each unvalidated mode taken out (scenarios at bf16, policies
 * without it). */
static gboolean
bpw_review_count (BpwReviewBuild  *b,
                  GError         **error)
{
  b->counted = bpw_study_copy (b->study);
  for (guint c = 0; c < bpw_study_get_n_candidates (b->study); c++)
    if (!bpw_review_count_candidate (b, c, error))
      return FALSE;
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
  for (guint c = 0; c < bpw_study_get_n_candidates (b->study); c++)
    for (guint s = 0; s < bpw_study_get_n_scenarios (b->study); s++)
      bpw_review_policy_modes (b, c, s, modes, users);
  /* Offered and not asked for by any mapping: listed, nothing credited. */
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
