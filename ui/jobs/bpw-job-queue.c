/* bpw-job-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A job is a GTask run in a thread. The job holds its owner, its input and its result
 * until the task's callback on the main thread, and releases all three there. The task
 * itself may be finalized on the worker thread (whichever thread drops its last reference):
 * were the owner the task's source object, or the input its data's to free, the owner's
 * last reference (a page widget, say, whose queue was freed while a job ran) and the input
 * would go with it on that thread. The queue itself is reference counted: a job in flight
 * holds it, so that freeing the queue while jobs run only marks it closed; its last
 * reference only drops a GCancellable, which any thread may do.
 */
#define G_LOG_DOMAIN "bpw-job-queue"

#include "config.h"

#include "bpw-job-queue.h"

struct _BpwJobQueue
{
  GCancellable *cancellable;  /* of the current generation's jobs */
  guint         generation;
  guint         n_running;
  gboolean      closed;       /* freed by its owner; jobs still in flight */
};

typedef struct
{
  BpwJobQueue    *queue;      /* a reference */
  GObject        *owner;      /* a reference, dropped on the main thread */
  guint           generation;
  BpwJobFunc      func;
  gpointer        input;
  GDestroyNotify  input_free;
  GDestroyNotify  result_free;
  BpwJobDoneFunc  done;
} BpwJob;

static void
bpw_job_queue_clear (BpwJobQueue *self)
{
  g_clear_object (&self->cancellable);
}

static BpwJobQueue *
bpw_job_queue_ref (BpwJobQueue *self)
{
  return g_atomic_rc_box_acquire (self);
}

static void
bpw_job_queue_unref (BpwJobQueue *self)
{
  g_atomic_rc_box_release_full (self, (GDestroyNotify) bpw_job_queue_clear);
}

BpwJobQueue *
bpw_job_queue_new (void)
{
  BpwJobQueue *self = g_atomic_rc_box_new0 (BpwJobQueue);

  self->cancellable = g_cancellable_new ();
  return self;
}

void
bpw_job_queue_free (BpwJobQueue *self)
{
  if (self == NULL)
    return;
  bpw_job_queue_invalidate (self);
  self->closed = TRUE;
  bpw_job_queue_unref (self);
}

void
bpw_job_queue_invalidate (BpwJobQueue *self)
{
  g_return_if_fail (self != NULL);

  self->generation++;
  g_cancellable_cancel (self->cancellable);
  g_object_unref (self->cancellable);
  self->cancellable = g_cancellable_new ();
}

guint
bpw_job_queue_get_generation (BpwJobQueue *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->generation;
}

guint
bpw_job_queue_get_n_running (BpwJobQueue *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_running;
}

/* The task's data, freed with the task on whichever thread drops it last: by then the
 * callback has released the owner and the input on the main thread. */
static void
bpw_job_free (BpwJob *job)
{
  g_assert (job->owner == NULL);
  bpw_job_queue_unref (job->queue);
  g_free (job);
}

/* Main thread: what the job held for its owner goes here, never with the task. */
static void
bpw_job_release (BpwJob *job)
{
  if (job->input_free != NULL)
    job->input_free (job->input);
  job->input = NULL;
  job->input_free = NULL;
  g_clear_object (&job->owner);
}

static void
bpw_job_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  BpwJob *job = task_data;
  GError *error = NULL;
  gpointer result;

  if (g_task_return_error_if_cancelled (task))
    return;
  result = job->func (job->input, cancellable, &error);
  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, job->result_free);
}

static void
bpw_job_done_cb (GObject      *source,
                 GAsyncResult *async,
                 gpointer      user_data)
{
  BpwJob *job = g_task_get_task_data (G_TASK (async));
  BpwJobQueue *queue = job->queue;
  g_autoptr(GError) error = NULL;
  gpointer result;

  queue->n_running--;
  /* The task does not check its cancellable here (see bpw_job_queue_run), so a result
   * made before the cancellation comes back and is freed below, on this thread; a job
   * cancelled before it ran answers G_IO_ERROR_CANCELLED with no result. */
  result = g_task_propagate_pointer (G_TASK (async), &error);
  if (queue->closed)
    {
      if (result != NULL && job->result_free != NULL)
        job->result_free (result);
      bpw_job_release (job);
      return;
    }
  if (job->generation != queue->generation && error == NULL)
    {
      if (job->result_free != NULL)
        job->result_free (result);
      result = NULL;
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "A newer job replaced this one.");
    }
  job->done (job->owner, job->input, result, error);
  bpw_job_release (job);
}

void
bpw_job_queue_run (BpwJobQueue    *self,
                   GObject        *owner,
                   BpwJobFunc      func,
                   gpointer        input,
                   GDestroyNotify  input_free,
                   GDestroyNotify  result_free,
                   BpwJobDoneFunc  done)
{
  g_autoptr(GTask) task = NULL;
  BpwJob *job;

  g_return_if_fail (self != NULL && !self->closed);
  g_return_if_fail (G_IS_OBJECT (owner));
  g_return_if_fail (func != NULL && done != NULL);

  job = g_new0 (BpwJob, 1);
  *job = (BpwJob) {
    .queue = bpw_job_queue_ref (self), .owner = g_object_ref (owner),
    .generation = self->generation, .func = func,
    .input = input, .input_free = input_free, .result_free = result_free, .done = done,
  };
  self->n_running++;
  /* No source object: the job holds the owner (bpw_job_release). A stale result is
   * returned to the callback, not freed by a cancelled task at its finalization. */
  task = g_task_new (NULL, self->cancellable, bpw_job_done_cb, NULL);
  g_task_set_source_tag (task, bpw_job_queue_run);
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) bpw_job_free);
  g_task_run_in_thread (task, bpw_job_thread);
}

void
bpw_job_queue_restart (BpwJobQueue    *self,
                       GObject        *owner,
                       BpwJobFunc      func,
                       gpointer        input,
                       GDestroyNotify  input_free,
                       GDestroyNotify  result_free,
                       BpwJobDoneFunc  done)
{
  g_return_if_fail (self != NULL);

  bpw_job_queue_invalidate (self);
  bpw_job_queue_run (self, owner, func, input, input_free, result_free, done);
}
