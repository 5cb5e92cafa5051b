/* bpw-job-queue.h — work for an object of the main thread, in a worker thread, newest wins
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every background job of the workbench follows one rule: the main thread copies what the
 * work needs (the input), a worker thread computes a result from it, and the main thread
 * takes the result only when nothing newer has been asked for since. A queue counts
 * generations: bpw_job_queue_invalidate() starts a new one and cancels the jobs of the
 * older ones (their GCancellable), whose results are then dropped. Its owner keeps only
 * its work function and what it does with a result.
 *
 * Each job that ends reaches its done function on the main thread exactly once: with its
 * result, with the work function's error, or, when it was superseded (a newer generation,
 * or cancelled), with a G_IO_ERROR_CANCELLED error and no result (the queue has freed it).
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Worker thread: the result for @input (never NULL on success), or NULL with @error. */
typedef gpointer (*BpwJobFunc)     (gpointer       input,
                                    GCancellable  *cancellable,
                                    GError       **error);
/* Main thread: @result (transfer full; NULL with @error) of the job given @input. */
typedef void     (*BpwJobDoneFunc) (GObject       *owner,
                                    gpointer       input,
                                    gpointer       result,
                                    const GError  *error);

typedef struct _BpwJobQueue BpwJobQueue;

BpwJobQueue *bpw_job_queue_new            (void);
/* Cancels the jobs in flight and drops the queue; they end without reaching their done
 * function, as their owner is going. */
void         bpw_job_queue_free           (BpwJobQueue    *self);

/* A new generation: the jobs in flight are cancelled and their results will be dropped. */
void         bpw_job_queue_invalidate     (BpwJobQueue    *self);
guint        bpw_job_queue_get_generation (BpwJobQueue    *self);
/* Jobs started and not yet ended, of any generation. */
guint        bpw_job_queue_get_n_running  (BpwJobQueue    *self);

/* Runs @func on @input (freed with @input_free) in a worker thread, in the current
 * generation; @done gets @owner (held until then) and the result, freed with @result_free
 * when @done is not given it or it is dropped. */
void         bpw_job_queue_run            (BpwJobQueue    *self,
                                           GObject        *owner,
                                           BpwJobFunc      func,
                                           gpointer        input,
                                           GDestroyNotify  input_free,
                                           GDestroyNotify  result_free,
                                           BpwJobDoneFunc  done);
/* bpw_job_queue_invalidate(), then bpw_job_queue_run(): the newest request replaces the
 * work in flight. */
void         bpw_job_queue_restart        (BpwJobQueue    *self,
                                           GObject        *owner,
                                           BpwJobFunc      func,
                                           gpointer        input,
                                           GDestroyNotify  input_free,
                                           GDestroyNotify  result_free,
                                           BpwJobDoneFunc  done);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwJobQueue, bpw_job_queue_free)

G_END_DECLS
