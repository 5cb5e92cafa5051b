/* bpw-study.h — what the user opens and saves: workloads, scenarios, suites, candidates
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "bpw-blueprint.h"
#include "bpw-json-doc.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"
#include "bpw-serve.h"

G_BEGIN_DECLS

#define BPW_STUDY_FORMAT_VERSION 1

#define BPW_TYPE_STUDY (bpw_study_get_type ())
G_DECLARE_FINAL_TYPE (BpwStudy, bpw_study, BPW, STUDY, GObject)

typedef struct
{
  char         *name;
  BpwModelSpec  spec;
  /* How the study file names the model: a bundled name or a path relative to the study
   * (written back as is); NULL when the model is written inline. */
  char         *model_ref;
} BpwStudyWorkload;

typedef struct
{
  char         *name;       /* = scenario.name */
  char         *suite;      /* nullable: the suite it was declared in */
  guint         workload;   /* index into the study's workloads */
  BpwScenario   scenario;
  BpwParallel   parallel;
  /* Serving features for its trade curves (an inference scenario's "serving" object). */
  BpwServeSettings serving;
} BpwStudyScenario;

typedef enum
{
  BPW_SUITE_REPRESENTATIVE,
  BPW_SUITE_STRESS,
  BPW_SUITE_PROJECTED,
} BpwSuiteKind;

typedef struct
{
  char         *name;
  BpwSuiteKind  kind;
  guint        *scenarios;  /* indices into the study's scenarios */
  guint         n_scenarios;
} BpwStudySuite;

/* What a candidate's price is per: one device bought, or one device for an hour. */
typedef enum
{
  BPW_PRICE_PER_DEVICE,
  BPW_PRICE_PER_DEVICE_HOUR,
} BpwPriceUnit;

/* A price is user data: the study states it with its source, never the blueprint's
 * datasheet. Unset (set == FALSE) means no price given: nothing about cost is claimed. */
typedef struct
{
  gboolean      set;
  double        usd;     /* > 0, US dollars per @unit */
  BpwPriceUnit  unit;
  char         *source;  /* owned: where the price comes from (quote, list price, cloud page) */
} BpwStudyPrice;

typedef struct
{
  char         *name;
  char         *blueprint;  /* bundled blueprint name or path */
  JsonNode     *mapping;    /* the mapping object as written ({} = search for the best) */
  /* An object: scenario name → mapping object read over @mapping for that scenario only
   * (prefill and decode of one model want different TP and batch); {} when none. */
  JsonNode     *mappings;
  BpwStudyPrice price;
} BpwStudyCandidate;

/* A profile of the hardware running a candidate on a scenario (bpw-study-measurement.c):
 * what the Validation page correlates with the candidate's simulated step. */
typedef struct
{
  char         *name;
  char         *candidate;   /* a candidate's name */
  char         *scenario;    /* a scenario's name */
  char         *profile;     /* the path as written: relative to the study's folder */
  char         *path;        /* the file, absolute */
  char         *sha256;      /* of the file as recorded (64 lowercase hex digits) */
  char         *calibrated;  /* nullable: the study's blueprint calibrated from it */
  gint          device;      /* the profile's device to correlate; -1: the default */
  gint          rank;        /* the simulated rank it ran as; -1: the default */
  char         *base;        /* private: the folder @profile is relative to, nullable */
} BpwStudyMeasurement;

const char   *bpw_suite_kind_to_string   (BpwSuiteKind kind);
/* "USD/device", "USD/device-hour": the unit as files write it. */
const char   *bpw_price_unit_to_string   (BpwPriceUnit unit);
/* The cost of @devices devices at @price: dollars (per device) or dollars per hour (per
 * device-hour); NaN when no price is given. */
double        bpw_study_price_cost       (const BpwStudyPrice *price,
                                          gint64               devices);

BpwStudy     *bpw_study_new              (void);
/* Relative model paths resolve against the study file's folder. */
BpwStudy     *bpw_study_new_from_file    (const char  *path,
                                          GError     **error);
BpwStudy     *bpw_study_new_from_data    (const char  *filename,
                                          const char  *data,
                                          gssize       length,
                                          GError     **error);
/* A study compiled into the core ("default": the one the GUI opens on first launch). */
BpwStudy     *bpw_study_new_bundled      (const char  *name,
                                          GError     **error);
const char * const *bpw_study_bundled_names (void);
/* STUDY on the command line: an existing file, else a bundled name. */
BpwStudy     *bpw_study_load             (const char  *path_or_name,
                                          GError     **error);

/* Atomic: written to a temporary file and renamed over @path; the previous file is kept
 * as "@path~". Sets the study's path on success. */
gboolean      bpw_study_save_to_file     (BpwStudy    *self,
                                          const char  *path,
                                          GError     **error);
/* Atomic like bpw_study_save_to_file(), without a backup, and the study's path and model
 * references stay as they are: for autosave and "save a copy". Relative model paths are
 * written so that they resolve from @path's folder. */
gboolean      bpw_study_save_copy        (BpwStudy    *self,
                                          const char  *path,
                                          GError     **error);
char         *bpw_study_to_json          (BpwStudy    *self);

/* A copy that shares nothing with @self: workloads, scenarios, suites, blueprints held
 * inline, candidates and their mapping objects, views, measurements, its file and folder.
 * Left unchanged, it is safe to read from another thread while @self is edited. */
BpwStudy     *bpw_study_copy             (BpwStudy    *self);
/* The same content, file and folder (a worker computes the same from either); the
 * warnings of reading are not compared. Either may be NULL. */
gboolean      bpw_study_equal            (BpwStudy    *a,
                                          BpwStudy    *b);

const char   *bpw_study_get_name         (BpwStudy    *self);
void          bpw_study_set_name         (BpwStudy    *self,
                                          const char  *name);
const char   *bpw_study_get_path         (BpwStudy    *self);  /* nullable */
/* "unknown field" warnings collected while reading (element-type utf8). */
GPtrArray    *bpw_study_get_warnings     (BpwStudy    *self);

guint                    bpw_study_get_n_workloads  (BpwStudy   *self);
const BpwStudyWorkload  *bpw_study_get_workload     (BpwStudy   *self,
                                                     guint       i);
gboolean                 bpw_study_lookup_workload  (BpwStudy   *self,
                                                     const char *name,
                                                     guint      *index);
guint                    bpw_study_get_n_scenarios  (BpwStudy   *self);
const BpwStudyScenario  *bpw_study_get_scenario     (BpwStudy   *self,
                                                     guint       i);
gboolean                 bpw_study_lookup_scenario  (BpwStudy   *self,
                                                     const char *name,
                                                     guint      *index);
guint                    bpw_study_get_n_suites     (BpwStudy   *self);
const BpwStudySuite     *bpw_study_get_suite        (BpwStudy   *self,
                                                     guint       i);
const char * const      *bpw_study_get_blueprints   (BpwStudy   *self);
guint                    bpw_study_get_n_candidates (BpwStudy   *self);
const BpwStudyCandidate *bpw_study_get_candidate    (BpwStudy   *self,
                                                     guint       i);
JsonNode                *bpw_study_get_views        (BpwStudy   *self);  /* nullable */

/* Building a study in code (the GUI's "add" actions). Names must be unique; the
 * scenario's workload must exist and the configuration must validate. */
gboolean      bpw_study_add_workload     (BpwStudy            *self,
                                          const char          *name,
                                          const BpwModelSpec  *spec,
                                          const char          *model_ref,
                                          GError             **error);
gboolean      bpw_study_add_scenario     (BpwStudy            *self,
                                          const char          *name,
                                          const char          *workload,
                                          const BpwScenario   *scenario,
                                          const BpwParallel   *parallel,
                                          GError             **error);
void          bpw_study_add_blueprint    (BpwStudy            *self,
                                          const char          *blueprint);
/* @mapping (nullable) is copied; NULL writes {} (search for the best). The blueprint is
 * not checked here: it may be added to the study's blueprints separately. */
gboolean      bpw_study_add_candidate    (BpwStudy            *self,
                                          const char          *name,
                                          const char          *blueprint,
                                          JsonNode            *mapping,
                                          GError             **error);

/* Changing a study in place (bpw-study-change.c): what the workbench's inspectors edit.
 *
 * A study may hold blueprints itself, as objects in its "blueprints" list. Editing a
 * bundled or file blueprint makes such an inline copy under the same name: it shadows the
 * original, so every candidate naming it runs the edited values (bpw_candidate_run_init()
 * resolves inline blueprints first), and dropping the copy restores the original. */
const BpwBlueprint *bpw_study_lookup_inline_blueprint (BpwStudy           *self,
                                                       const char         *name);
/* Copies @blueprint (valid, named) into the study, replacing an inline one of that name;
 * a new name joins the study's blueprints. */
gboolean      bpw_study_set_inline_blueprint (BpwStudy            *self,
                                              const BpwBlueprint  *blueprint,
                                              GError             **error);
/* FALSE when there was no inline blueprint of that name. The name stays listed. */
gboolean      bpw_study_remove_inline_blueprint (BpwStudy         *self,
                                                 const char       *name);
/* What @name means in this study, as a new copy: the inline blueprint, else a file next to
 * the study, else a path or a bundled name. */
BpwBlueprint *bpw_study_load_blueprint   (BpwStudy            *self,
                                          const char          *name,
                                          GError             **error);
/* Loads every candidate's blueprint and reads its mapping against it: FALSE with the
 * candidate named, located in @doc (nullable: the study file as read) at the candidate's
 * "blueprint" or "mapping" when given. `bpw check` and bpw_compare_study() call it. */
gboolean      bpw_study_check_references (BpwStudy            *self,
                                          BpwJsonDoc          *doc,
                                          GError             **error);
/* What @name means without the study's inline copy: a file or a bundled blueprint. */
BpwBlueprint *bpw_study_load_original_blueprint (BpwStudy     *self,
                                                 const char   *name,
                                                 GError      **error);
/* Replaces scenario @index's values (its name, suite and workload stay) after the checks
 * of bpw_scenario_validate(); on failure the study is unchanged. */
gboolean      bpw_study_set_scenario     (BpwStudy            *self,
                                          guint                index,
                                          const BpwScenario   *scenario,
                                          const BpwParallel   *parallel,
                                          GError             **error);
/* Replaces candidate @index's mapping object (copied) when it reads as a mapping for the
 * candidate's blueprint; on failure the study is unchanged. */
gboolean      bpw_study_set_candidate_mapping (BpwStudy       *self,
                                               guint           index,
                                               JsonNode       *mapping,
                                               GError        **error);
/* The mapping object candidate @c runs scenario @scenario with on top of its own, or
 * NULL when it has none for that scenario. */
JsonObject   *bpw_study_candidate_get_scenario_mapping (const BpwStudyCandidate *c,
                                                        const char              *scenario);
/* Sets (copied) or, with @mapping NULL, removes candidate @index's mapping for scenario
 * @scenario after the checks of bpw_study_set_candidate_mapping(), the candidate's own
 * mapping read first; on failure the study is unchanged. */
gboolean      bpw_study_set_candidate_scenario_mapping (BpwStudy   *self,
                                                        guint       index,
                                                        const char *scenario,
                                                        JsonNode   *mapping,
                                                        GError    **error);
/* Removes candidate @index (the undo of bpw_study_add_candidate()); later candidates move
 * down one place. */
void          bpw_study_remove_candidate (BpwStudy            *self,
                                          guint                index);

/* Measurements (bpw-study-measurement.c). A study file lists them under "measurements",
 * each naming a candidate, a scenario and a profile file with its sha256; a file that is
 * missing or changed since is a warning on load, not an error. */
guint                      bpw_study_get_n_measurements (BpwStudy   *self);
const BpwStudyMeasurement *bpw_study_get_measurement    (BpwStudy   *self,
                                                         guint       i);
gboolean                   bpw_study_lookup_measurement (BpwStudy   *self,
                                                         const char *name,
                                                         guint      *index);
/* Candidate @candidate measured on scenario @scenario by the profile at @path, whose
 * sha256 is recorded now. @name NULL: the file's base name, made unique. Fails when the
 * file cannot be read. */
gboolean      bpw_study_add_measurement  (BpwStudy            *self,
                                          const char          *name,
                                          guint                candidate,
                                          guint                scenario,
                                          const char          *path,
                                          GError             **error);
gboolean      bpw_study_remove_measurement (BpwStudy          *self,
                                            const char        *name);
/* Hashes @m's file: *@changed (nullable) says whether it differs from the recorded
 * sha256, *@sha256 (nullable) gets the digest. FALSE with an error when it cannot be
 * read. */
gboolean      bpw_study_measurement_verify (const BpwStudyMeasurement *m,
                                            gboolean                  *changed,
                                            char                     **sha256,
                                            GError                   **error);
G_END_DECLS
