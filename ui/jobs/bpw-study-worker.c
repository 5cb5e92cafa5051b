/* bpw-study-worker.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-worker"

#include "config.h"

#include "bpw-job-queue.h"
#include "bpw-study-worker.h"

/* The data of the GTask the caller's callback gets, and the queue's input. */
typedef struct
{
  GTask            *task;       /* the caller's; not a reference (it holds the job) */
  BpwStudySnapshot *snapshot;
  guint             generation;
  BpwStudyJobFunc   func;
  gpointer          data;
  GDestroyNotify    destroy;
  GDestroyNotify    result_destroy;
} BpwStudyJob;

struct _BpwStudyWorker
{
  GObject           parent_instance;

  BpwStudy         *study;       /* nullable */
  BpwStudySnapshot *snapshot;    /* nullable */
  GArray           *added;       /* BpwAddedCandidate */
  BpwJobQueue      *jobs;        /* a generation per snapshot */
  gint64            changed_at;  /* monotonic µs of the last new snapshot */
  guint             delay_ms;
  guint             wake_id;     /* the delay's end, when a job waits for it */
  gboolean          running;
};

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (BpwStudyWorker, bpw_study_worker, G_TYPE_OBJECT)

static void
bpw_study_job_free (BpwStudyJob *job)
{
  g_clear_pointer (&job->snapshot, bpw_study_snapshot_unref);
  if (job->destroy != NULL)
    job->destroy (job->data);
  g_free (job);
}

/* Worker thread: the job's function on a study of the snapshot's own. */
static gpointer
bpw_study_worker_work (gpointer       data,
                       GCancellable  *cancellable,
                       GError       **error)
{
  BpwStudyJob *job = data;
  g_autoptr(BpwStudy) study = bpw_study_snapshot_load (job->snapshot, error);

  return study != NULL ? job->func (study, job->data, cancellable, error) : NULL;
}

/* Main thread: hands the outcome to the caller's callback (bpw_study_worker_finish()). A
 * stale job's result has been dropped already; it ends with G_IO_ERROR_CANCELLED. */
static void
bpw_study_worker_done (GObject      *owner,
                       gpointer      data,
                       gpointer      result,
                       const GError *error)
{
  BpwStudyJob *job = data;
  GTask *task = job->task;

  if (result != NULL)
    g_task_return_pointer (task, result, job->result_destroy);
  else
    g_task_return_error (task, g_error_copy (error));
  g_object_unref (task);
}

static void
bpw_study_worker_dispose (GObject *object)
{
  BpwStudyWorker *self = BPW_STUDY_WORKER (object);

  /* The jobs in flight hold the worker: each still reaches its caller, cancelled. */
  bpw_job_queue_invalidate (self->jobs);
  g_clear_handle_id (&self->wake_id, g_source_remove);
  g_clear_object (&self->study);
  g_clear_pointer (&self->snapshot, bpw_study_snapshot_unref);
  g_clear_pointer (&self->added, g_array_unref);

  G_OBJECT_CLASS (bpw_study_worker_parent_class)->dispose (object);
}

static void
bpw_study_worker_finalize (GObject *object)
{
  BpwStudyWorker *self = BPW_STUDY_WORKER (object);

  g_clear_pointer (&self->jobs, bpw_job_queue_free);

  G_OBJECT_CLASS (bpw_study_worker_parent_class)->finalize (object);
}

static void
bpw_study_worker_class_init (BpwStudyWorkerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = bpw_study_worker_dispose;
  object_class->finalize = bpw_study_worker_finalize;

  /* A new snapshot, and with it a new generation. */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
bpw_study_worker_init (BpwStudyWorker *self)
{
  self->added = bpw_added_candidates_new ();
  self->jobs = bpw_job_queue_new ();
}

BpwStudyWorker *
bpw_study_worker_new (void)
{
  return g_object_new (BPW_TYPE_STUDY_WORKER, NULL);
}

void
bpw_study_worker_set_delay (BpwStudyWorker *self,
                            guint           delay_ms)
{
  g_return_if_fail (BPW_IS_STUDY_WORKER (self));
  self->delay_ms = delay_ms;
  /* A job waiting for the old delay waits for the new one from its next try. */
  if (self->wake_id != 0)
    {
      g_clear_handle_id (&self->wake_id, g_source_remove);
      g_signal_emit (self, signals[CHANGED], 0);
    }
}

static gboolean
bpw_study_worker_wake_cb (gpointer data)
{
  BpwStudyWorker *self = data;

  self->wake_id = 0;
  g_signal_emit (self, signals[CHANGED], 0);
  return G_SOURCE_REMOVE;
}

gboolean
bpw_study_worker_set_study (BpwStudyWorker *self,
                            BpwStudy       *study)
{
  g_autoptr(BpwStudySnapshot) snapshot = NULL;

  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), FALSE);
  g_return_val_if_fail (study == NULL || BPW_IS_STUDY (study), FALSE);

  g_set_object (&self->study, study);
  if (study == NULL ? self->snapshot == NULL
      : self->snapshot != NULL && bpw_study_snapshot_matches (self->snapshot, study,
                                                              self->added))
    return FALSE;
  if (study != NULL)
    snapshot = bpw_study_snapshot_new (study, self->added);

  /* Whatever runs now works for a study that is gone. */
  g_clear_pointer (&self->snapshot, bpw_study_snapshot_unref);
  self->snapshot = g_steal_pointer (&snapshot);
  self->changed_at = g_get_monotonic_time ();
  bpw_job_queue_invalidate (self->jobs);
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

BpwStudy *
bpw_study_worker_get_study (BpwStudyWorker *self)
{
  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), NULL);
  return self->study;
}

BpwStudySnapshot *
bpw_study_worker_get_snapshot (BpwStudyWorker *self)
{
  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), NULL);
  return self->snapshot;
}

guint
bpw_study_worker_get_generation (BpwStudyWorker *self)
{
  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), 0);
  return bpw_job_queue_get_generation (self->jobs);
}

gboolean
bpw_study_worker_get_running (BpwStudyWorker *self)
{
  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), FALSE);
  return self->running;
}

gboolean
bpw_study_worker_run (BpwStudyWorker      *self,
                      gpointer             source_object,
                      BpwStudyJobFunc      func,
                      gpointer             job_data,
                      GDestroyNotify       job_destroy,
                      GDestroyNotify       result_destroy,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  GTask *task;
  BpwStudyJob *job;
  gint64 wait_ms;

  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  wait_ms = ((gint64) self->delay_ms * 1000 + self->changed_at - g_get_monotonic_time ()
             + 999) / 1000;
  if (wait_ms > 0 && self->wake_id == 0 && !self->running && self->snapshot != NULL)
    self->wake_id = g_timeout_add ((guint) wait_ms, bpw_study_worker_wake_cb, self);
  if (self->running || self->snapshot == NULL || wait_ms > 0)
    {
      if (job_destroy != NULL)
        job_destroy (job_data);
      return FALSE;
    }
  task = g_task_new (source_object, NULL, callback, user_data);
  job = g_new0 (BpwStudyJob, 1);
  *job = (BpwStudyJob) {
    .task = task, .snapshot = bpw_study_snapshot_ref (self->snapshot),
    .generation = bpw_job_queue_get_generation (self->jobs), .func = func, .data = job_data,
    .destroy = job_destroy, .result_destroy = result_destroy,
  };
  self->running = TRUE;
  g_task_set_source_tag (task, bpw_study_worker_run);
  g_task_set_task_data (task, job, (GDestroyNotify) bpw_study_job_free);
  /* The task owns the job; the queue's reference to it is the task's own, dropped once the
   * caller has its outcome (bpw_study_worker_done()). */
  bpw_job_queue_run (self->jobs, G_OBJECT (self), bpw_study_worker_work, job, NULL,
                     result_destroy, bpw_study_worker_done);
  return TRUE;
}

gpointer
bpw_study_worker_finish (BpwStudyWorker  *self,
                         GAsyncResult    *result,
                         gboolean        *current,
                         GError         **error)
{
  BpwStudyJob *job = g_task_get_task_data (G_TASK (result));
  gpointer value;

  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == bpw_study_worker_run, NULL);

  self->running = FALSE;
  *current = job->generation == bpw_job_queue_get_generation (self->jobs);
  value = g_task_propagate_pointer (G_TASK (result), error);
  if (!*current && value != NULL)
    {
      if (job->result_destroy != NULL)
        job->result_destroy (value);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "The study changed while it was worked on.");
      return NULL;
    }
  return value;
}

gpointer
bpw_study_worker_get_job_data (GAsyncResult *result)
{
  BpwStudyJob *job = g_task_get_task_data (G_TASK (result));

  return job->data;
}

void
bpw_study_worker_add_candidate (BpwStudyWorker     *self,
                                const char         *name,
                                const BpwBlueprint *blueprint,
                                const BpwMapping   *mapping)
{
  g_return_if_fail (BPW_IS_STUDY_WORKER (self));

  bpw_added_candidates_add (self->added, name, blueprint, mapping);
  bpw_study_worker_set_study (self, self->study);
}

void
bpw_study_worker_add_candidate_for_scenario (BpwStudyWorker     *self,
                                             const char         *name,
                                             const BpwBlueprint *blueprint,
                                             const BpwMapping   *mapping,
                                             const char         *source,
                                             const char         *scenario)
{
  g_return_if_fail (BPW_IS_STUDY_WORKER (self));

  bpw_added_candidates_add_for_scenario (self->added, name, blueprint, mapping, source,
                                         scenario);
  bpw_study_worker_set_study (self, self->study);
}

guint
bpw_study_worker_add_sweep (BpwStudyWorker *self,
                            const char     *label,
                            BpwSweep       *sweep)
{
  guint added;

  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), 0);

  added = bpw_added_candidates_add_sweep (self->added, label, sweep);
  if (added > 0)
    bpw_study_worker_set_study (self, self->study);
  return added;
}

void
bpw_study_worker_clear_added (BpwStudyWorker *self)
{
  g_return_if_fail (BPW_IS_STUDY_WORKER (self));

  if (self->added->len == 0)
    return;
  g_array_set_size (self->added, 0);
  bpw_study_worker_set_study (self, self->study);
}

guint
bpw_study_worker_get_n_added (BpwStudyWorker *self)
{
  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), 0);
  return self->added->len;
}

const BpwAddedCandidate *
bpw_study_worker_get_added (BpwStudyWorker *self,
                            guint           i)
{
  g_return_val_if_fail (BPW_IS_STUDY_WORKER (self), NULL);
  g_return_val_if_fail (i < self->added->len, NULL);
  return &g_array_index (self->added, BpwAddedCandidate, i);
}
