/* bpw-study-worker.h — work on a copy of the study in a worker thread, one job at a time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the Trade-offs and Compare pages share: the study they show, candidates added from
 * outside it (a search's results), the snapshot of both that workers read
 * (bpw-study-snapshot.h), and the rule that one job runs at a time. Every new snapshot
 * starts a generation: jobs of an older one are cancelled and their results are to be
 * dropped. "changed" is emitted when the snapshot changed, and again once a job may start:
 * the owner then schedules the work the new generation needs.
 *
 * Jobs start a delay after the last change, so that a burst of edits (typing, undo held
 * down) starts one job, and the window's own work for an edit (the Overview, the Sheet)
 * has the processors first.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-study-snapshot.h"

G_BEGIN_DECLS

/* Runs in the worker thread on the snapshot's own study; returns the result or NULL with
 * @error. */
typedef gpointer (*BpwStudyJobFunc) (BpwStudy      *study,
                                     gpointer       job_data,
                                     GCancellable  *cancellable,
                                     GError       **error);

#define BPW_TYPE_STUDY_WORKER (bpw_study_worker_get_type ())

G_DECLARE_FINAL_TYPE (BpwStudyWorker, bpw_study_worker, BPW, STUDY_WORKER, GObject)

BpwStudyWorker   *bpw_study_worker_new            (void);
/* Milliseconds from a change to the first job that may start (default 0). A job waiting
 * for the delay tries again at once ("changed"). */
void              bpw_study_worker_set_delay      (BpwStudyWorker     *self,
                                                   guint               delay_ms);
/* Snapshots @study (nullable: nothing to work on) with the added candidates. TRUE, and
 * "changed", when the snapshot differs from the last one. */
gboolean          bpw_study_worker_set_study      (BpwStudyWorker     *self,
                                                   BpwStudy           *study);
BpwStudy         *bpw_study_worker_get_study      (BpwStudyWorker     *self);  /* nullable */
/* Nullable: nothing to work on. */
BpwStudySnapshot *bpw_study_worker_get_snapshot   (BpwStudyWorker     *self);
guint             bpw_study_worker_get_generation (BpwStudyWorker     *self);
gboolean          bpw_study_worker_get_running    (BpwStudyWorker     *self);

/* Runs @func on the snapshot in a thread, unless a job runs, the delay after the last
 * change has not passed ("changed" follows when it has) or there is no snapshot (FALSE
 * then). @callback gets @source_object and is to call bpw_study_worker_finish(). Takes
 * @job_data (freed with @job_destroy); results are freed with @result_destroy when
 * nobody takes them. */
gboolean          bpw_study_worker_run            (BpwStudyWorker     *self,
                                                   gpointer            source_object,
                                                   BpwStudyJobFunc     func,
                                                   gpointer            job_data,
                                                   GDestroyNotify      job_destroy,
                                                   GDestroyNotify      result_destroy,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
/* The job's result (transfer full) or NULL with @error. @current: the job ran on the
 * snapshot of this generation (else its result is stale, and NULL is returned with
 * G_IO_ERROR_CANCELLED). */
gpointer          bpw_study_worker_finish         (BpwStudyWorker     *self,
                                                   GAsyncResult       *result,
                                                   gboolean           *current,
                                                   GError            **error);
/* The job data bpw_study_worker_run() was given, while its callback runs. */
gpointer          bpw_study_worker_get_job_data   (GAsyncResult       *result);

/* Candidates from outside the study (bpw-study-snapshot.h): each change takes a new
 * snapshot ("changed"). */
void              bpw_study_worker_add_candidate  (BpwStudyWorker     *self,
                                                   const char         *name,
                                                   const BpwBlueprint *blueprint,
                                                   const BpwMapping   *mapping);
/* The same, @mapping for @scenario only (bpw_added_candidates_add_for_scenario()). */
void              bpw_study_worker_add_candidate_for_scenario (BpwStudyWorker     *self,
                                                               const char         *name,
                                                               const BpwBlueprint *blueprint,
                                                               const BpwMapping   *mapping,
                                                               const char         *source,
                                                               const char         *scenario);
guint             bpw_study_worker_add_sweep      (BpwStudyWorker     *self,
                                                   const char         *label,
                                                   BpwSweep           *sweep);
void              bpw_study_worker_clear_added    (BpwStudyWorker     *self);
guint             bpw_study_worker_get_n_added    (BpwStudyWorker     *self);
/* Added candidate @i, in the order added (their names in the snapshot may gain a number
 * where they would clash with the study's). */
const BpwAddedCandidate *bpw_study_worker_get_added (BpwStudyWorker     *self,
                                                     guint               i);

G_END_DECLS
