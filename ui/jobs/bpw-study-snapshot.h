/* bpw-study-snapshot.h — a study frozen for a worker thread, with candidates added from outside
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window edits its study in place on the main thread, so a worker must never read it.
 * A snapshot holds a deep copy of the study (bpw_study_copy()), taken on the main thread
 * and never changed after, from which a worker takes a study of its own
 * (bpw_study_snapshot_load()). Relative model and blueprint paths resolve against the
 * study file's folder, as when it was opened. Candidates that are not part of the study
 * (a search's best mappings) can join the copy: they run every scenario exactly like the
 * study's own candidates.
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

/* A candidate from outside the study: a blueprint and a mapping of its own. */
typedef struct
{
  char         *name;
  BpwBlueprint *blueprint;  /* owned */
  char         *mapping;    /* owned, nullable: bpw_mapping_to_json(); NULL: each
                             * scenario's own decomposition */
  /* Nullable: the one scenario @mapping was found for (a search's). The others run as the
   * study's candidate @source does, on @blueprint: its mapping and per-scenario mappings
   * (each scenario's own decomposition when @source is NULL or gone). */
  char         *scenario;
  char         *source;
} BpwAddedCandidate;

/* A GArray of BpwAddedCandidate that clears its elements. */
GArray           *bpw_added_candidates_new       (void);
/* Copies @blueprint and @mapping (nullable). */
void              bpw_added_candidates_add       (GArray             *list,
                                                  const char         *name,
                                                  const BpwBlueprint *blueprint,
                                                  const BpwMapping   *mapping);
/* The same for the search of candidate @source (nullable) on @scenario (nullable: every
 * scenario runs @mapping): see BpwAddedCandidate. */
void              bpw_added_candidates_add_for_scenario (GArray             *list,
                                                         const char         *name,
                                                         const BpwBlueprint *blueprint,
                                                         const BpwMapping   *mapping,
                                                         const char         *source,
                                                         const char         *scenario);
/* The points of @sweep on its Pareto front that have a best mapping, as "LABEL N" (N
 * counts the sweep's points from 1) with the point's blueprint and best mapping. Returns
 * how many were added. */
guint             bpw_added_candidates_add_sweep (GArray             *list,
                                                  const char         *label,
                                                  BpwSweep           *sweep);

typedef struct _BpwStudySnapshot BpwStudySnapshot;

/* Main thread: @study as it is now, plus the candidates of @added (nullable; copied). */
BpwStudySnapshot *bpw_study_snapshot_new         (BpwStudy           *study,
                                                  GArray             *added);
BpwStudySnapshot *bpw_study_snapshot_ref         (BpwStudySnapshot   *self);
void              bpw_study_snapshot_unref       (BpwStudySnapshot   *self);
/* Both would compute the same: equal studies (bpw_study_equal()) and the same added
 * candidates. */
gboolean          bpw_study_snapshot_equal       (BpwStudySnapshot   *a,
                                                  BpwStudySnapshot   *b);
/* What bpw_study_snapshot_new (@study, @added) would give is equal to @self; without
 * copying anything, for the window's edit path where most edits change nothing. */
gboolean          bpw_study_snapshot_matches     (BpwStudySnapshot   *self,
                                                  BpwStudy           *study,
                                                  GArray             *added);
/* Any thread: a new study of the snapshot's, with the added candidates after the
 * study's own. */
BpwStudy         *bpw_study_snapshot_load        (BpwStudySnapshot   *self,
                                                  GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwStudySnapshot, bpw_study_snapshot_unref)

G_END_DECLS
