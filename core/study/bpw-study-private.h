/* bpw-study-private.h — the study's fields, shared by its reader, writer and object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-json-doc.h"
#include "bpw-mapping.h"
#include "bpw-study.h"
#include "bpw-study-quality.h"

G_BEGIN_DECLS

struct _BpwStudy
{
  GObject    parent_instance;

  /* owned */
  char      *name;
  char      *description;
  char      *path;        /* nullable: the file it was read from or saved to */
  char      *base_dir;    /* nullable: where relative model paths resolve */
  GArray    *workloads;   /* BpwStudyWorkload */
  GArray    *scenarios;   /* BpwStudyScenario */
  GArray    *suites;      /* BpwStudySuite */
  GPtrArray *blueprints;  /* char *, NULL-terminated */
  GHashTable *inline_blueprints;  /* char *name → BpwBlueprint *: objects in "blueprints" */
  GArray    *candidates;  /* BpwStudyCandidate */
  JsonNode  *views;       /* nullable, kept as written */
  GArray    *measurements;  /* BpwStudyMeasurement, nullable until the first */
  GArray    *owners;              /* BpwStudyOwner, nullable until the first */
  GArray    *quality_thresholds;  /* BpwQualityThreshold, nullable */
  GArray    *quality_evidence;    /* BpwQualityEvidence, nullable */
  GPtrArray *warnings;    /* char * */
};

/* Fills an empty @self from the document; on failure @self is left partly filled and
 * must be dropped. */
gboolean _bpw_study_read  (BpwStudy    *self,
                           BpwJsonDoc  *doc,
                           GError     **error);
JsonNode *_bpw_study_to_node (BpwStudy *self,
                              const char *target_dir);

/* The model reference to write when saving into @target_dir (NULL: as loaded). */
char    *_bpw_study_model_ref_for (BpwStudy               *self,
                                   const BpwStudyWorkload *w,
                                   const char             *target_dir);

/* The relation checks shared by the reader and bpw_study_add_scenario(): runs
 * bpw_scenario_validate() and returns its message unlocated. */
gboolean _bpw_study_validate_scenario (BpwStudy         *self,
                                       BpwStudyScenario *sc,
                                       GError          **error);

/* bpw-study-change.c: an object of "blueprints" (element @node at @path) and its JSON. */
gboolean  _bpw_study_read_inline_blueprint (BpwStudy    *self,
                                            BpwJsonDoc  *doc,
                                            JsonNode    *node,
                                            const char  *path,
                                            GError     **error);
JsonNode *_bpw_study_inline_blueprint_to_node (BpwStudy   *self,
                                               const char *name);
/* Reads candidate @c's mapping @object (its own, or with @scenario its mapping for that
 * scenario) over @mapping, names resolved against @bp (nullable); messages name the
 * candidate, and "mapping" or "mappings.SCENARIO" as the path. */
gboolean  _bpw_study_candidate_read_mapping (const BpwStudyCandidate *c,
                                             const char              *scenario,
                                             JsonObject              *object,
                                             const BpwBlueprint      *bp,
                                             BpwMapping              *mapping,
                                             GError                 **error);
/* A copy that shares nothing with @node (json_node_copy() shares objects and arrays). */
JsonNode *_bpw_study_json_copy (JsonNode *node);

/* bpw-study-measurement.c: "measurements" (after the candidates), written into @target_dir
 * (NULL: as loaded); the list as a whole, for undoable edits. */
gboolean  _bpw_study_read_measurements  (BpwStudy    *self,
                                         BpwJsonDoc  *doc,
                                         JsonObject  *root,
                                         GError     **error);
void      _bpw_study_write_measurements (BpwStudy    *self,
                                         JsonBuilder *builder,
                                         const char  *target_dir);
/* A new list (copies) of the study's measurements; sets the study's to copies of @list. */
GArray   *_bpw_study_copy_measurements  (BpwStudy    *self);
void      _bpw_study_set_measurements   (BpwStudy    *self,
                                         GArray      *list);
/* A list of copies of @list's measurements (nullable: NULL); whether two lists (nullable:
 * empty) hold the same measurements in the same order. */
GArray   *_bpw_study_measurement_list_copy  (GArray      *list);
gboolean  _bpw_study_measurement_list_equal (GArray      *a,
                                             GArray      *b);
/* Appends to @list (BpwStudyMeasurement) what bpw_study_add_measurement() would add. */
gboolean  _bpw_study_append_measurement (BpwStudy    *self,
                                         GArray      *list,
                                         const char  *name,
                                         guint        candidate,
                                         guint        scenario,
                                         const char  *path,
                                         GError     **error);
/* Drops @name from the study's blueprint list (an undone calibration's blueprint). */
void      _bpw_study_unlist_blueprint   (BpwStudy    *self,
                                         const char  *name);

/* bpw-study-quality.c: "owners", "quality_thresholds" and "quality_evidence" (after the
 * measurements); copies of lists (their items copied); copy and comparison of all three. */
gboolean  _bpw_study_read_quality        (BpwStudy    *self,
                                          BpwJsonDoc  *doc,
                                          JsonObject  *root,
                                          GError     **error);
void      _bpw_study_write_quality       (BpwStudy    *self,
                                          JsonBuilder *builder);
void      _bpw_study_copy_quality        (BpwStudy    *dest,
                                          BpwStudy    *src);
gboolean  _bpw_study_quality_equal       (BpwStudy    *a,
                                          BpwStudy    *b);
GArray   *_bpw_study_owner_list_new      (const BpwStudyOwner       *owners,
                                          guint                      n);
GArray   *_bpw_quality_threshold_list_new (const BpwQualityThreshold *thresholds,
                                           guint                      n);
GArray   *_bpw_quality_evidence_list_new (const BpwQualityEvidence  *evidence,
                                          guint                      n);
G_END_DECLS
