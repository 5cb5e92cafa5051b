/* bpw-study-edit.h — one undoable change of a study: a blueprint, a scenario or a mapping
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An edit records the part of the study it changes as it was and as it becomes, whole: a
 * blueprint (with "not held in the study" as a possible before), a scenario's values, a
 * candidate's mapping object, its mapping for one scenario (with "none" possible), or a
 * whole candidate (added, with "none" before), or a candidate's price (with "none").
 * Applying and reverting are then exact, in any order an undo stack replays them, and need
 * no knowledge of which value inside the part changed.
 */
#pragma once

#include "bpw-blueprint-field.h"
#include "bpw-study.h"
#include "bpw-study-price.h"
#include "bpw-study-quality.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_STUDY_EDIT_BLUEPRINT,
  BPW_STUDY_EDIT_SCENARIO,
  BPW_STUDY_EDIT_MAPPING,
  BPW_STUDY_EDIT_MEASUREMENTS,
  BPW_STUDY_EDIT_CANDIDATE,
  BPW_STUDY_EDIT_OWNERS,
  BPW_STUDY_EDIT_QUALITY_THRESHOLDS,
  BPW_STUDY_EDIT_QUALITY_EVIDENCE,
  BPW_STUDY_EDIT_PRICE,
} BpwStudyEditKind;

typedef struct _BpwStudyEdit BpwStudyEdit;

/* The study's blueprint @after->name becomes @after (held inline); before is the study's
 * inline blueprint of that name, or none. @label (nullable) says what changed, for menus. */
BpwStudyEdit     *bpw_study_edit_new_blueprint (BpwStudy           *study,
                                                const BpwBlueprint *after,
                                                const char         *label);
/* One value of blueprint @name (inline, file or bundled) set to @value with provenance:
 * the whole blueprint with that value, checked by bpw_blueprint_field_set(). NULL with
 * @error when the blueprint cannot be loaded or the value is refused. */
BpwStudyEdit     *bpw_study_edit_new_blueprint_value (BpwStudy                *study,
                                                      const char              *name,
                                                      const BpwBlueprintField *field,
                                                      double                   value,
                                                      BpwProvenance            kind,
                                                      const char              *source,
                                                      const char              *label,
                                                      GError                 **error);
/* Drops the study's inline copy of @name, so that the name means its file or bundled
 * blueprint again. NULL with @error when the study holds no copy or nothing else answers
 * to the name. */
BpwStudyEdit     *bpw_study_edit_new_blueprint_revert (BpwStudy      *study,
                                                       const char    *name,
                                                       const char    *label,
                                                       GError       **error);
BpwStudyEdit     *bpw_study_edit_new_scenario  (BpwStudy           *study,
                                                guint               index,
                                                const BpwScenario  *scenario,
                                                const BpwParallel  *parallel,
                                                const char         *label);
/* Scenario @index's serving settings become @serving (its other values stay); its kind
 * is BPW_STUDY_EDIT_SCENARIO. */
BpwStudyEdit     *bpw_study_edit_new_scenario_serving (BpwStudy               *study,
                                                       guint                   index,
                                                       const BpwServeSettings *serving,
                                                       const char             *label);
/* @mapping (an object) is copied. */
BpwStudyEdit     *bpw_study_edit_new_mapping   (BpwStudy           *study,
                                                guint               candidate,
                                                JsonNode           *mapping,
                                                const char         *label);
/* Candidate @candidate's mapping for scenario @scenario becomes @mapping (an object,
 * copied), or none with @mapping NULL. Its kind is BPW_STUDY_EDIT_MAPPING. */
BpwStudyEdit     *bpw_study_edit_new_scenario_mapping (BpwStudy   *study,
                                                       guint       candidate,
                                                       const char *scenario,
                                                       JsonNode   *mapping,
                                                       const char *label);
/* A new measurement of candidate @candidate on scenario @scenario by the profile at @path
 * (bpw_study_add_measurement()); NULL with @error when the file cannot be read. Its kind
 * is BPW_STUDY_EDIT_MEASUREMENTS, its target the measurement's name. */
BpwStudyEdit     *bpw_study_edit_new_measurement (BpwStudy         *study,
                                                  guint             candidate,
                                                  guint             scenario,
                                                  const char       *path,
                                                  const char       *label,
                                                  GError          **error);
/* @calibrated (named, copied) joins the study as a blueprint it holds, and measurement
 * @measurement records it as its calibrated blueprint; undone, both are as before. */
BpwStudyEdit     *bpw_study_edit_new_calibration (BpwStudy           *study,
                                                  guint               measurement,
                                                  const BpwBlueprint *calibrated,
                                                  const char         *label);
/* A new candidate @name (unique) on @blueprint joins the end of the study's candidates,
 * with @mapping (nullable: {}) and @mappings (nullable: none; an object scenario name →
 * mapping object); all are copied. Undone, it leaves. Its kind is
 * BPW_STUDY_EDIT_CANDIDATE, its index the new candidate's. */
BpwStudyEdit     *bpw_study_edit_new_candidate (BpwStudy           *study,
                                                const char         *name,
                                                const char         *blueprint,
                                                JsonNode           *mapping,
                                                JsonNode           *mappings,
                                                const char         *label);
/* The study's owners, quality thresholds or quality evidence become @n items (copied),
 * checked when applied by bpw_study_set_owners() and its siblings. Kinds
 * BPW_STUDY_EDIT_OWNERS, _QUALITY_THRESHOLDS and _QUALITY_EVIDENCE; the target is the
 * study's list ("owners", "quality_thresholds", "quality_evidence"). */
BpwStudyEdit     *bpw_study_edit_new_owners    (BpwStudy                  *study,
                                                const BpwStudyOwner       *owners,
                                                guint                      n,
                                                const char                *label);
BpwStudyEdit     *bpw_study_edit_new_quality_thresholds (BpwStudy                  *study,
                                                         const BpwQualityThreshold *thresholds,
                                                         guint                      n,
                                                         const char                *label);
BpwStudyEdit     *bpw_study_edit_new_quality_evidence (BpwStudy                 *study,
                                                       const BpwQualityEvidence *evidence,
                                                       guint                     n,
                                                       const char               *label);
/* Candidate @candidate's price becomes @price (copied), or none with @price NULL or
 * unset. NULL with @error when @price does not pass bpw_study_price_check(). Its kind is
 * BPW_STUDY_EDIT_PRICE, its index the candidate's and its target the candidate's name. */
BpwStudyEdit     *bpw_study_edit_new_price     (BpwStudy                  *study,
                                                guint                      candidate,
                                                const BpwStudyPrice       *price,
                                                const char                *label,
                                                GError                   **error);
void              bpw_study_edit_free          (BpwStudyEdit       *edit);

/* Sets the part to its "after" (apply) or "before" (revert) state, with the checks of the
 * study's setters; on failure the study is unchanged. */
gboolean          bpw_study_edit_apply         (const BpwStudyEdit *edit,
                                                BpwStudy           *study,
                                                GError            **error);
gboolean          bpw_study_edit_revert        (const BpwStudyEdit *edit,
                                                BpwStudy           *study,
                                                GError            **error);

BpwStudyEditKind  bpw_study_edit_get_kind      (const BpwStudyEdit *edit);
/* Scenario or candidate index; 0 for blueprints. */
guint             bpw_study_edit_get_index     (const BpwStudyEdit *edit);
/* Blueprint, scenario or candidate name. */
const char       *bpw_study_edit_get_target    (const BpwStudyEdit *edit);
const char       *bpw_study_edit_get_label     (const BpwStudyEdit *edit);  /* nullable */
/* The scenario a mapping edit is limited to; NULL for the candidate's own mapping. */
const char       *bpw_study_edit_get_scenario  (const BpwStudyEdit *edit);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwStudyEdit, bpw_study_edit_free)

G_END_DECLS
