/* bpw-study-edit.c — one undoable change of a study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-edit"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-study-edit.h"
#include "bpw-study-pools.h"

#include "bpw-error.h"
#include "bpw-study-private.h"

struct _BpwStudyEdit
{
  BpwStudyEditKind  kind;
  guint             index;
  char             *target;
  char             *label;

  /* BLUEPRINT: before may be NULL (the name was not held in the study) */
  BpwBlueprint     *blueprint[2];
  /* SCENARIO */
  BpwScenario       scenario[2];
  BpwParallel       parallel[2];
  BpwServeSettings  serving[2];
  /* MAPPING: with @mapping_scenario, that scenario's (NULL: none) */
  JsonNode         *mapping[2];
  char             *mapping_scenario;
  /* MEASUREMENTS: the whole list; a calibration also sets blueprint[AFTER], and @listed
   * says whether its name was among the study's blueprints before */
  GArray           *measurements[2];
  gboolean          listed;
  /* CANDIDATE: added at @index; mapping[AFTER] is its own mapping */
  char             *candidate_blueprint;
  JsonNode         *candidate_mappings;
  /* OWNERS, QUALITY_THRESHOLDS, QUALITY_EVIDENCE: the whole list of that kind */
  GArray           *items[2];
  /* PRICE: of candidate @index (set == FALSE: none); the sources are owned */
  BpwStudyPrice     price[2];
};

enum { BEFORE, AFTER };

static BpwStudyEdit *
bpw_study_edit_alloc (BpwStudyEditKind  kind,
                      guint             index,
                      const char       *target,
                      const char       *label)
{
  BpwStudyEdit *edit = g_new0 (BpwStudyEdit, 1);

  edit->kind = kind;
  edit->index = index;
  edit->target = g_strdup (target);
  edit->label = g_strdup (label);
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_blueprint (BpwStudy           *study,
                              const BpwBlueprint *after,
                              const char         *label)
{
  const BpwBlueprint *before;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (after != NULL && after->name != NULL, NULL);

  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_BLUEPRINT, 0, after->name, label);
  before = bpw_study_lookup_inline_blueprint (study, after->name);
  edit->blueprint[BEFORE] = before != NULL ? bpw_blueprint_copy (before) : NULL;
  edit->blueprint[AFTER] = bpw_blueprint_copy (after);
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_blueprint_value (BpwStudy                *study,
                                    const char              *name,
                                    const BpwBlueprintField *field,
                                    double                   value,
                                    BpwProvenance            kind,
                                    const char              *source,
                                    const char              *label,
                                    GError                 **error)
{
  g_autoptr(BpwBlueprint) bp = NULL;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (name != NULL && field != NULL, NULL);

  bp = bpw_study_load_blueprint (study, name, error);
  if (bp == NULL)
    return NULL;
  /* A file or bundled blueprint may carry another name inside; the study knows it by
   * @name, and the inline copy must shadow exactly that. */
  if (g_strcmp0 (bp->name, name) != 0)
    {
      g_free (bp->name);
      bp->name = g_strdup (name);
    }
  if (!bpw_blueprint_field_set (bp, field, value, kind, source, error))
    return NULL;
  return bpw_study_edit_new_blueprint (study, bp, label);
}

BpwStudyEdit *
bpw_study_edit_new_blueprint_revert (BpwStudy    *study,
                                     const char  *name,
                                     const char  *label,
                                     GError     **error)
{
  g_autoptr(BpwBlueprint) original = NULL;
  const BpwBlueprint *held;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  held = bpw_study_lookup_inline_blueprint (study, name);
  if (held == NULL)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("the study holds no edited copy of “%s”"), name);
      return NULL;
    }
  /* Reverting must leave a blueprint behind the name, or its candidates would fail. */
  original = bpw_study_load_original_blueprint (study, name, error);
  if (original == NULL)
    return NULL;
  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_BLUEPRINT, 0, name, label);
  edit->blueprint[BEFORE] = bpw_blueprint_copy (held);
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_scenario (BpwStudy          *study,
                             guint              index,
                             const BpwScenario *scenario,
                             const BpwParallel *parallel,
                             const char        *label)
{
  const BpwStudyScenario *s;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (index < bpw_study_get_n_scenarios (study), NULL);
  g_return_val_if_fail (scenario != NULL && parallel != NULL, NULL);

  s = bpw_study_get_scenario (study, index);
  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_SCENARIO, index, s->name, label);
  bpw_scenario_copy (&edit->scenario[BEFORE], &s->scenario);
  edit->parallel[BEFORE] = s->parallel;
  bpw_scenario_copy (&edit->scenario[AFTER], scenario);
  edit->parallel[AFTER] = *parallel;
  edit->serving[BEFORE] = edit->serving[AFTER] = s->serving;
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_scenario_serving (BpwStudy               *study,
                                     guint                   index,
                                     const BpwServeSettings *serving,
                                     const char             *label)
{
  const BpwStudyScenario *s;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (index < bpw_study_get_n_scenarios (study), NULL);
  g_return_val_if_fail (serving != NULL, NULL);

  s = bpw_study_get_scenario (study, index);
  edit = bpw_study_edit_new_scenario (study, index, &s->scenario, &s->parallel, label);
  edit->serving[AFTER] = *serving;
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_mapping (BpwStudy   *study,
                            guint       candidate,
                            JsonNode   *mapping,
                            const char *label)
{
  const BpwStudyCandidate *c;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (candidate < bpw_study_get_n_candidates (study), NULL);
  g_return_val_if_fail (mapping != NULL, NULL);

  c = bpw_study_get_candidate (study, candidate);
  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_MAPPING, candidate, c->name, label);
  edit->mapping[BEFORE] = _bpw_study_json_copy (c->mapping);
  edit->mapping[AFTER] = _bpw_study_json_copy (mapping);
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_scenario_mapping (BpwStudy   *study,
                                     guint       candidate,
                                     const char *scenario,
                                     JsonNode   *mapping,
                                     const char *label)
{
  const BpwStudyCandidate *c;
  BpwStudyEdit *edit;
  JsonObject *before;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (candidate < bpw_study_get_n_candidates (study), NULL);
  g_return_val_if_fail (scenario != NULL, NULL);

  c = bpw_study_get_candidate (study, candidate);
  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_MAPPING, candidate, c->name, label);
  edit->mapping_scenario = g_strdup (scenario);
  before = bpw_study_candidate_get_scenario_mapping (c, scenario);
  if (before != NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), before);

      edit->mapping[BEFORE] = _bpw_study_json_copy (node);
    }
  edit->mapping[AFTER] = mapping != NULL ? _bpw_study_json_copy (mapping) : NULL;
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_measurement (BpwStudy    *study,
                                guint        candidate,
                                guint        scenario,
                                const char  *path,
                                const char  *label,
                                GError     **error)
{
  g_autoptr(GArray) after = NULL;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  after = _bpw_study_copy_measurements (study);
  if (!_bpw_study_append_measurement (study, after, NULL, candidate, scenario, path, error))
    return NULL;
  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_MEASUREMENTS, after->len - 1,
                               g_array_index (after, BpwStudyMeasurement, after->len - 1).name,
                               label);
  edit->measurements[BEFORE] = _bpw_study_copy_measurements (study);
  edit->measurements[AFTER] = g_steal_pointer (&after);
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_calibration (BpwStudy           *study,
                                guint               measurement,
                                const BpwBlueprint *calibrated,
                                const char         *label)
{
  BpwStudyMeasurement *m;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (measurement < bpw_study_get_n_measurements (study), NULL);
  g_return_val_if_fail (calibrated != NULL && calibrated->name != NULL, NULL);

  edit = bpw_study_edit_new_blueprint (study, calibrated, label);
  edit->kind = BPW_STUDY_EDIT_MEASUREMENTS;
  edit->index = measurement;
  edit->listed = g_strv_contains (bpw_study_get_blueprints (study), calibrated->name);
  edit->measurements[BEFORE] = _bpw_study_copy_measurements (study);
  edit->measurements[AFTER] = _bpw_study_copy_measurements (study);
  m = &g_array_index (edit->measurements[AFTER], BpwStudyMeasurement, measurement);
  g_free (m->calibrated);
  m->calibrated = g_strdup (calibrated->name);
  g_free (edit->target);
  edit->target = g_strdup (m->name);
  return edit;
}

/* MEASUREMENTS: the list, and a calibration's blueprint first so that the list may name
 * it. */
static gboolean
bpw_study_edit_set_measurements (const BpwStudyEdit *edit,
                                 BpwStudy           *study,
                                 int                 state,
                                 GError            **error)
{
  const BpwBlueprint *after = edit->blueprint[AFTER];

  if (after != NULL && edit->blueprint[state] != NULL
      && !bpw_study_set_inline_blueprint (study, edit->blueprint[state], error))
    return FALSE;
  if (after != NULL && edit->blueprint[state] == NULL)
    {
      bpw_study_remove_inline_blueprint (study, after->name);
      if (!edit->listed)
        _bpw_study_unlist_blueprint (study, after->name);
    }
  _bpw_study_set_measurements (study, edit->measurements[state]);
  return TRUE;
}

BpwStudyEdit *
bpw_study_edit_new_candidate (BpwStudy   *study,
                              const char *name,
                              const char *blueprint,
                              JsonNode   *mapping,
                              JsonNode   *mappings,
                              const char *label)
{
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (name != NULL && blueprint != NULL, NULL);
  g_return_val_if_fail (mapping == NULL || JSON_NODE_HOLDS_OBJECT (mapping), NULL);
  g_return_val_if_fail (mappings == NULL || JSON_NODE_HOLDS_OBJECT (mappings), NULL);

  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_CANDIDATE, bpw_study_get_n_candidates (study),
                               name, label);
  edit->candidate_blueprint = g_strdup (blueprint);
  edit->mapping[AFTER] = mapping != NULL ? _bpw_study_json_copy (mapping) : NULL;
  edit->candidate_mappings = mappings != NULL ? _bpw_study_json_copy (mappings) : NULL;
  return edit;
}

/* AFTER: the candidate joins at @index, which must be the end again (as when the edit was
 * made), with its mappings checked one by one; BEFORE: it leaves. */
static gboolean
bpw_study_edit_set_candidate (const BpwStudyEdit *edit,
                              BpwStudy           *study,
                              int                 state,
                              GError            **error)
{
  guint n = bpw_study_get_n_candidates (study);
  JsonObjectIter iter;
  const char *scenario;
  JsonNode *mapping;

  if (state == BEFORE)
    {
      if (edit->index + 1 != n
          || g_strcmp0 (bpw_study_get_candidate (study, edit->index)->name, edit->target) != 0)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("the study’s last candidate is no longer “%s”"), edit->target);
          return FALSE;
        }
      bpw_study_remove_candidate (study, edit->index);
      return TRUE;
    }
  if (edit->index != n)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("the study’s candidates changed since “%s” was added"), edit->target);
      return FALSE;
    }
  if (!bpw_study_add_candidate (study, edit->target, edit->candidate_blueprint,
                                edit->mapping[AFTER], error))
    return FALSE;
  if (edit->candidate_mappings == NULL)
    return TRUE;
  json_object_iter_init_ordered (&iter, json_node_get_object (edit->candidate_mappings));
  while (json_object_iter_next_ordered (&iter, &scenario, &mapping))
    if (!bpw_study_set_candidate_scenario_mapping (study, n, scenario, mapping, error))
      {
        bpw_study_remove_candidate (study, n);
        return FALSE;
      }
  return TRUE;
}

/* OWNERS, QUALITY_THRESHOLDS, QUALITY_EVIDENCE: the whole list before and after; takes both. */
static BpwStudyEdit *
bpw_study_edit_new_items (BpwStudyEditKind  kind,
                          const char       *target,
                          const char       *label,
                          GArray           *before,
                          GArray           *after)
{
  BpwStudyEdit *edit = bpw_study_edit_alloc (kind, 0, target, label);

  edit->items[BEFORE] = before;
  edit->items[AFTER] = after;
  return edit;
}

BpwStudyEdit *
bpw_study_edit_new_owners (BpwStudy            *study,
                           const BpwStudyOwner *owners,
                           guint                n,
                           const char          *label)
{
  guint before;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (n == 0 || owners != NULL, NULL);

  before = bpw_study_get_n_owners (study);
  return bpw_study_edit_new_items (BPW_STUDY_EDIT_OWNERS, "owners", label,
                                   _bpw_study_owner_list_new (before > 0
                                                              ? bpw_study_get_owner (study, 0)
                                                              : NULL, before),
                                   _bpw_study_owner_list_new (owners, n));
}

BpwStudyEdit *
bpw_study_edit_new_quality_thresholds (BpwStudy                  *study,
                                       const BpwQualityThreshold *thresholds,
                                       guint                      n,
                                       const char                *label)
{
  guint before;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (n == 0 || thresholds != NULL, NULL);

  before = bpw_study_get_n_quality_thresholds (study);
  return bpw_study_edit_new_items (BPW_STUDY_EDIT_QUALITY_THRESHOLDS, "quality_thresholds", label,
                                   _bpw_quality_threshold_list_new (
                                     before > 0 ? bpw_study_get_quality_threshold (study, 0)
                                                : NULL, before),
                                   _bpw_quality_threshold_list_new (thresholds, n));
}

BpwStudyEdit *
bpw_study_edit_new_quality_evidence (BpwStudy                 *study,
                                     const BpwQualityEvidence *evidence,
                                     guint                     n,
                                     const char               *label)
{
  guint before;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (n == 0 || evidence != NULL, NULL);

  before = bpw_study_get_n_quality_evidence (study);
  return bpw_study_edit_new_items (BPW_STUDY_EDIT_QUALITY_EVIDENCE, "quality_evidence", label,
                                   _bpw_quality_evidence_list_new (
                                     before > 0 ? bpw_study_get_quality_evidence (study, 0)
                                                : NULL, before),
                                   _bpw_quality_evidence_list_new (evidence, n));
}

static void
bpw_study_edit_copy_price (BpwStudyPrice       *to,
                           const BpwStudyPrice *from)
{
  if (from == NULL || !from->set)
    return;
  *to = *from;
  to->source = g_strdup (from->source);
}

BpwStudyEdit *
bpw_study_edit_new_price (BpwStudy             *study,
                          guint                 candidate,
                          const BpwStudyPrice  *price,
                          const char           *label,
                          GError              **error)
{
  const BpwStudyCandidate *c;
  BpwStudyEdit *edit;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);
  g_return_val_if_fail (candidate < bpw_study_get_n_candidates (study), NULL);

  c = bpw_study_get_candidate (study, candidate);
  if (price != NULL && price->set)
    {
      g_autoptr(GError) local = NULL;

      if (!bpw_study_price_check (price, &local))
        {
          g_set_error (error, local->domain, local->code, _("candidate “%s”: %s"), c->name,
                       local->message);
          return NULL;
        }
    }
  edit = bpw_study_edit_alloc (BPW_STUDY_EDIT_PRICE, candidate, c->name, label);
  bpw_study_edit_copy_price (&edit->price[BEFORE], &c->price);
  bpw_study_edit_copy_price (&edit->price[AFTER], price);
  return edit;
}

void
bpw_study_edit_free (BpwStudyEdit *edit)
{
  if (edit == NULL)
    return;
  for (int i = BEFORE; i <= AFTER; i++)
    {
      g_clear_pointer (&edit->blueprint[i], bpw_blueprint_free);
      g_clear_pointer (&edit->mapping[i], json_node_unref);
      g_clear_pointer (&edit->measurements[i], g_array_unref);
      g_clear_pointer (&edit->items[i], g_array_unref);
      g_clear_pointer (&edit->price[i].source, g_free);
      if (edit->kind == BPW_STUDY_EDIT_SCENARIO)
        bpw_scenario_clear (&edit->scenario[i]);
    }
  g_free (edit->target);
  g_free (edit->label);
  g_free (edit->mapping_scenario);
  g_free (edit->candidate_blueprint);
  g_clear_pointer (&edit->candidate_mappings, json_node_unref);
  g_free (edit);
}

/* Whether the candidate this edit was made on is still at its index. */
static gboolean
bpw_study_edit_finds_candidate (const BpwStudyEdit *edit,
                                BpwStudy           *study)
{
  return edit->index < bpw_study_get_n_candidates (study)
         && g_strcmp0 (bpw_study_get_candidate (study, edit->index)->name, edit->target) == 0;
}

static gboolean
bpw_study_edit_set (const BpwStudyEdit *edit,
                    BpwStudy           *study,
                    int                 state,
                    GError            **error)
{
  switch (edit->kind)
    {
    case BPW_STUDY_EDIT_BLUEPRINT:
      if (edit->blueprint[state] == NULL)
        {
          bpw_study_remove_inline_blueprint (study, edit->target);
          return TRUE;
        }
      return bpw_study_set_inline_blueprint (study, edit->blueprint[state], error);
    case BPW_STUDY_EDIT_SCENARIO:
      if (edit->index >= bpw_study_get_n_scenarios (study)
          || g_strcmp0 (bpw_study_get_scenario (study, edit->index)->name, edit->target) != 0)
        break;
      return bpw_study_set_scenario (study, edit->index, &edit->scenario[state],
                                     &edit->parallel[state], error)
             && bpw_study_set_scenario_serving (study, edit->index, &edit->serving[state],
                                                error);
    case BPW_STUDY_EDIT_MAPPING:
      if (!bpw_study_edit_finds_candidate (edit, study))
        break;
      if (edit->mapping_scenario != NULL)
        return bpw_study_set_candidate_scenario_mapping (study, edit->index,
                                                         edit->mapping_scenario,
                                                         edit->mapping[state], error);
      return bpw_study_set_candidate_mapping (study, edit->index, edit->mapping[state], error);
    case BPW_STUDY_EDIT_PRICE:
      if (!bpw_study_edit_finds_candidate (edit, study))
        break;
      return bpw_study_set_candidate_price (study, edit->index, &edit->price[state], error);
    case BPW_STUDY_EDIT_MEASUREMENTS:
      return bpw_study_edit_set_measurements (edit, study, state, error);
    case BPW_STUDY_EDIT_CANDIDATE:
      return bpw_study_edit_set_candidate (edit, study, state, error);
    case BPW_STUDY_EDIT_OWNERS:
      return bpw_study_set_owners (study, (const BpwStudyOwner *) edit->items[state]->data,
                                   edit->items[state]->len, error);
    case BPW_STUDY_EDIT_QUALITY_THRESHOLDS:
      return bpw_study_set_quality_thresholds (study, (const BpwQualityThreshold *)
                                                      edit->items[state]->data,
                                               edit->items[state]->len, error);
    case BPW_STUDY_EDIT_QUALITY_EVIDENCE:
      return bpw_study_set_quality_evidence (study, (const BpwQualityEvidence *)
                                                    edit->items[state]->data,
                                             edit->items[state]->len, error);
    default:
      break;
    }
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("the study no longer has “%s” where this change was made"), edit->target);
  return FALSE;
}

gboolean
bpw_study_edit_apply (const BpwStudyEdit *edit,
                      BpwStudy           *study,
                      GError            **error)
{
  g_return_val_if_fail (edit != NULL && BPW_IS_STUDY (study), FALSE);
  return bpw_study_edit_set (edit, study, AFTER, error);
}

gboolean
bpw_study_edit_revert (const BpwStudyEdit *edit,
                       BpwStudy           *study,
                       GError            **error)
{
  g_return_val_if_fail (edit != NULL && BPW_IS_STUDY (study), FALSE);
  return bpw_study_edit_set (edit, study, BEFORE, error);
}

BpwStudyEditKind
bpw_study_edit_get_kind (const BpwStudyEdit *edit)
{
  g_return_val_if_fail (edit != NULL, BPW_STUDY_EDIT_BLUEPRINT);
  return edit->kind;
}

guint
bpw_study_edit_get_index (const BpwStudyEdit *edit)
{
  g_return_val_if_fail (edit != NULL, 0);
  return edit->index;
}

const char *
bpw_study_edit_get_target (const BpwStudyEdit *edit)
{
  g_return_val_if_fail (edit != NULL, NULL);
  return edit->target;
}

const char *
bpw_study_edit_get_label (const BpwStudyEdit *edit)
{
  g_return_val_if_fail (edit != NULL, NULL);
  return edit->label;
}

const char *
bpw_study_edit_get_scenario (const BpwStudyEdit *edit)
{
  g_return_val_if_fail (edit != NULL, NULL);
  return edit->mapping_scenario;
}
