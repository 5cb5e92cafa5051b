/* bpw-study-edit.c — one undoable change of a study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-edit"

#include "config.h"

#include "bpw-study-edit.h"

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
  /* MAPPING */
  JsonNode         *mapping[2];
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
                   "the study holds no edited copy of “%s”", name);
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

void
bpw_study_edit_free (BpwStudyEdit *edit)
{
  if (edit == NULL)
    return;
  for (int i = BEFORE; i <= AFTER; i++)
    {
      g_clear_pointer (&edit->blueprint[i], bpw_blueprint_free);
      g_clear_pointer (&edit->mapping[i], json_node_unref);
      if (edit->kind == BPW_STUDY_EDIT_SCENARIO)
        bpw_scenario_clear (&edit->scenario[i]);
    }
  g_free (edit->target);
  g_free (edit->label);
  g_free (edit);
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
                                     &edit->parallel[state], error);
    case BPW_STUDY_EDIT_MAPPING:
      if (edit->index >= bpw_study_get_n_candidates (study)
          || g_strcmp0 (bpw_study_get_candidate (study, edit->index)->name, edit->target) != 0)
        break;
      return bpw_study_set_candidate_mapping (study, edit->index, edit->mapping[state], error);
    default:
      break;
    }
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               "the study no longer has “%s” where this change was made", edit->target);
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
