/* test-job-queue.c — the one background-job mechanism: generations, cancellation, delivery
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Needs no display: the queue is GIO only.
 */
#include "config.h"

#include "bpw-job-queue.h"

typedef struct
{
  GMutex   lock;
  GCond    cond;
  gboolean open;       /* the gate the held jobs wait for */
  guint    entered;    /* held jobs that have started their work */
  guint    results_freed;
  guint    done_results;
  guint    done_cancelled;
  guint    done_failed;
  int      last_value;
} Fixture;

typedef struct
{
  Fixture *fixture;
  int      value;
  gboolean hold;       /* wait for the gate (or cancellation) */
  gboolean fail;
} Input;

typedef struct
{
  Fixture *fixture;
  int      value;
} Result;

static Fixture fixture;

static void
result_free (gpointer data)
{
  Result *result = data;

  g_atomic_int_inc (&result->fixture->results_freed);
  g_free (result);
}

static gpointer
work (gpointer       data,
      GCancellable  *cancellable,
      GError       **error)
{
  Input *input = data;
  Result *result;

  if (input->hold)
    {
      g_mutex_lock (&input->fixture->lock);
      input->fixture->entered++;
      g_cond_broadcast (&input->fixture->cond);
      while (!input->fixture->open)
        g_cond_wait (&input->fixture->cond, &input->fixture->lock);
      g_mutex_unlock (&input->fixture->lock);
    }
  if (input->fail)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "failed on purpose");
      return NULL;
    }
  result = g_new0 (Result, 1);
  result->fixture = input->fixture;
  result->value = input->value;
  return result;
}

static void
done (GObject      *owner,
      gpointer      data,
      gpointer      computed,
      const GError *error)
{
  Result *result = computed;

  g_assert_true (G_IS_OBJECT (owner));
  g_assert_nonnull (data);
  if (result != NULL)
    {
      g_assert_no_error (error);
      fixture.done_results++;
      fixture.last_value = result->value;
      result_free (result);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    fixture.done_cancelled++;
  else
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
      fixture.done_failed++;
    }
}

static Input *
input_new (int      value,
           gboolean hold,
           gboolean fail)
{
  Input *input = g_new0 (Input, 1);

  *input = (Input) { &fixture, value, hold, fail };
  return input;
}

static void
fixture_reset (void)
{
  fixture.open = FALSE;
  fixture.entered = 0;
  fixture.results_freed = fixture.done_results = fixture.done_cancelled = 0;
  fixture.done_failed = 0;
  fixture.last_value = 0;
}

static void
open_gate (void)
{
  g_mutex_lock (&fixture.lock);
  fixture.open = TRUE;
  g_cond_broadcast (&fixture.cond);
  g_mutex_unlock (&fixture.lock);
}

/* Waits until @n held jobs run their work. A job that has not started when its generation
 * is invalidated never runs (its task returns cancelled), so without this wait the
 * number of results made, and freed, would depend on the thread pool's timing. */
static void
wait_entered (guint n)
{
  g_mutex_lock (&fixture.lock);
  while (fixture.entered < n)
    g_cond_wait (&fixture.cond, &fixture.lock);
  g_mutex_unlock (&fixture.lock);
}

static void
wait_idle (BpwJobQueue *queue)
{
  while (bpw_job_queue_get_n_running (queue) > 0)
    g_main_context_iteration (NULL, TRUE);
}

/* A stale job's result is freed in its callback on the main thread (released-on-main-thread
 * checks that without polling); polling here keeps these tests about generations only. */
static void
wait_freed (guint n)
{
  while ((guint) g_atomic_int_get (&fixture.results_freed) < n)
    {
      g_main_context_iteration (NULL, FALSE);
      g_thread_yield ();
    }
}

/* A job's result reaches its done function on the main thread; an error does too. */
static void
test_delivers (void)
{
  g_autoptr(GObject) owner = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr(BpwJobQueue) queue = bpw_job_queue_new ();

  fixture_reset ();
  bpw_job_queue_run (queue, owner, work, input_new (7, FALSE, FALSE), g_free, result_free,
                     done);
  g_assert_cmpuint (bpw_job_queue_get_n_running (queue), ==, 1);
  wait_idle (queue);
  g_assert_cmpuint (fixture.done_results, ==, 1);
  g_assert_cmpint (fixture.last_value, ==, 7);

  bpw_job_queue_run (queue, owner, work, input_new (8, FALSE, TRUE), g_free, result_free,
                     done);
  wait_idle (queue);
  g_assert_cmpuint (fixture.done_failed, ==, 1);
  g_assert_cmpuint (fixture.done_results, ==, 1);
}

/* The newest request wins: a job restarted over a held one ends once, cancelled, and its
 * result (it finishes all the same) is freed, never delivered. */
static void
test_newest_wins (void)
{
  g_autoptr(GObject) owner = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr(BpwJobQueue) queue = bpw_job_queue_new ();
  guint generation = bpw_job_queue_get_generation (queue);

  fixture_reset ();
  bpw_job_queue_restart (queue, owner, work, input_new (1, TRUE, FALSE), g_free, result_free,
                         done);
  wait_entered (1);
  bpw_job_queue_restart (queue, owner, work, input_new (2, TRUE, FALSE), g_free, result_free,
                         done);
  g_assert_cmpuint (bpw_job_queue_get_generation (queue), ==, generation + 2);
  g_assert_cmpuint (bpw_job_queue_get_n_running (queue), ==, 2);
  open_gate ();
  wait_idle (queue);
  g_assert_cmpuint (fixture.done_results, ==, 1);
  g_assert_cmpint (fixture.last_value, ==, 2);
  g_assert_cmpuint (fixture.done_cancelled, ==, 1);
  /* The stale one's result and the delivered one's. */
  wait_freed (2);
  g_assert_cmpuint (fixture.results_freed, ==, 2);
}

/* Jobs run in one generation side by side until it is invalidated. */
static void
test_invalidate (void)
{
  g_autoptr(GObject) owner = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr(BpwJobQueue) queue = bpw_job_queue_new ();

  fixture_reset ();
  bpw_job_queue_run (queue, owner, work, input_new (3, TRUE, FALSE), g_free, result_free, done);
  bpw_job_queue_run (queue, owner, work, input_new (4, TRUE, FALSE), g_free, result_free, done);
  wait_entered (2);
  bpw_job_queue_invalidate (queue);
  bpw_job_queue_run (queue, owner, work, input_new (5, TRUE, FALSE), g_free, result_free, done);
  open_gate ();
  wait_idle (queue);
  g_assert_cmpuint (fixture.done_cancelled, ==, 2);
  g_assert_cmpuint (fixture.done_results, ==, 1);
  g_assert_cmpint (fixture.last_value, ==, 5);
  wait_freed (3);
  g_assert_cmpuint (fixture.results_freed, ==, 3);
}

static void
count_finalized (gpointer  data,
                 GObject  *where)
{
  g_atomic_int_set ((gint *) data, TRUE);
}

/* Freed by its owner while a job runs: the job ends without calling back, its result is
 * freed, and the owner lives until then. */
static void
test_free_while_running (void)
{
  GObject *owner = g_object_new (G_TYPE_OBJECT, NULL);
  BpwJobQueue *queue = bpw_job_queue_new ();
  gboolean finalized = FALSE;

  fixture_reset ();
  g_object_weak_ref (owner, count_finalized, &finalized);
  bpw_job_queue_run (queue, owner, work, input_new (6, TRUE, FALSE), g_free, result_free, done);
  wait_entered (1);
  bpw_job_queue_free (queue);
  g_object_unref (owner);
  g_assert_false (finalized);
  open_gate ();
  /* The owner's last reference goes in the job's callback on this thread. */
  while (!g_atomic_int_get (&finalized))
    {
      g_main_context_iteration (NULL, FALSE);
      g_thread_yield ();
    }
  g_assert_cmpuint (fixture.done_results + fixture.done_cancelled + fixture.done_failed, ==, 0);
  g_assert_cmpuint (fixture.results_freed, ==, 1);
}

/* What a job holds for its owner is released on the main thread by the time the queue is
 * idle: the owner's last reference (its page may have dropped its own while the job ran),
 * the input and a stale result. Were the owner the task's source, or the input freed with
 * the task, they would go wherever the task is finalized, often the worker thread, after
 * the callback: the owner would still be alive when the queue goes idle. */
static GThread *main_thread;
static gint     off_main;
static gint     inputs_freed;
static gint     owners_finalized;

static void
input_free_on_main (gpointer data)
{
  if (g_thread_self () != main_thread)
    g_atomic_int_inc (&off_main);
  g_atomic_int_inc (&inputs_freed);
  g_free (data);
}

static void
result_free_on_main (gpointer data)
{
  if (g_thread_self () != main_thread)
    g_atomic_int_inc (&off_main);
  result_free (data);
}

static void
owner_finalized (gpointer  data,
                 GObject  *where)
{
  if (g_thread_self () != main_thread)
    g_atomic_int_inc (&off_main);
  g_atomic_int_inc (&owners_finalized);
}

static void
test_released_on_main_thread (void)
{
  enum { N_JOBS = 64 };
  g_autoptr(BpwJobQueue) queue = bpw_job_queue_new ();

  fixture_reset ();
  main_thread = g_thread_self ();
  off_main = inputs_freed = owners_finalized = 0;
  for (guint i = 0; i < N_JOBS; i++)
    {
      GObject *owner = g_object_new (G_TYPE_OBJECT, NULL);

      g_object_weak_ref (owner, owner_finalized, NULL);
      /* Every other job is replaced by the next before it runs or while it runs: its
       * result, if it made one, is stale. */
      if (i % 2 == 0)
        bpw_job_queue_run (queue, owner, work, input_new ((int) i, FALSE, FALSE),
                           input_free_on_main, result_free_on_main, done);
      else
        bpw_job_queue_restart (queue, owner, work, input_new ((int) i, FALSE, FALSE),
                               input_free_on_main, result_free_on_main, done);
      g_object_unref (owner);
    }
  wait_idle (queue);
  /* No polling: everything is released before the last callback returns. */
  g_assert_cmpint (g_atomic_int_get (&owners_finalized), ==, N_JOBS);
  g_assert_cmpint (g_atomic_int_get (&inputs_freed), ==, N_JOBS);
  g_assert_cmpint (g_atomic_int_get (&off_main), ==, 0);
  g_assert_cmpuint (fixture.done_results + fixture.done_cancelled, ==, N_JOBS);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_mutex_init (&fixture.lock);
  g_cond_init (&fixture.cond);
  g_test_add_func ("/job-queue/delivers", test_delivers);
  g_test_add_func ("/job-queue/newest-wins", test_newest_wins);
  g_test_add_func ("/job-queue/invalidate", test_invalidate);
  g_test_add_func ("/job-queue/free-while-running", test_free_while_running);
  g_test_add_func ("/job-queue/released-on-main-thread", test_released_on_main_thread);
  return g_test_run ();
}
