/* bpw-window-compute.c — the facts of every scenario and the Overview's items, off the
 * main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-window-compute"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "bpw-window-private.h"

#include "bpw-core.h"
#include "bpw-overview-item.h"

/* One scenario's inputs, copied out of the study so that the worker thread reads only
 * data nobody else touches. */
typedef struct
{
  char          *name;
  char          *suite;
  char          *workload;
  BpwModelSpec   spec;
  BpwScenario    scenario;
  BpwParallel    parallel;
} BpwFactsJob;

/* One candidate on every scenario: set up on the main thread (it reads the study),
 * bound and evaluated in the worker. */
typedef struct
{
  char            *name;
  char            *blueprint_ref;  /* as the study names it */
  BpwCandidateRun *runs;           /* one per scenario */
  char           **errors;         /* one per scenario: NULL, or why runs[i] is unusable */
} BpwCandidateJob;

typedef struct
{
  BpwFactsJob      *jobs;
  guint             n_jobs;
  BpwCandidateJob  *candidates;
  guint             n_candidates;
  guint             generation;
} BpwComputeBatch;

typedef struct
{
  GPtrArray *rows;            /* BpwFactsRow */
  GPtrArray *overview_items;  /* BpwOverviewItem */
} BpwComputeResult;

static void
bpw_compute_result_free (BpwComputeResult *result)
{
  g_clear_pointer (&result->rows, g_ptr_array_unref);
  g_clear_pointer (&result->overview_items, g_ptr_array_unref);
  g_free (result);
}

static void
bpw_compute_batch_free (BpwComputeBatch *batch)
{
  for (guint i = 0; i < batch->n_jobs; i++)
    {
      BpwFactsJob *job = &batch->jobs[i];

      g_free (job->name);
      g_free (job->suite);
      g_free (job->workload);
      bpw_model_spec_clear (&job->spec);
      bpw_scenario_clear (&job->scenario);
    }
  for (guint c = 0; c < batch->n_candidates; c++)
    {
      BpwCandidateJob *candidate = &batch->candidates[c];

      g_free (candidate->name);
      g_free (candidate->blueprint_ref);
      for (guint i = 0; i < batch->n_jobs; i++)
        bpw_candidate_run_clear (&candidate->runs[i]);
      g_free (candidate->runs);
      g_strfreev (candidate->errors);
    }
  g_free (batch->jobs);
  g_free (batch->candidates);
  g_free (batch);
}

static BpwComputeBatch *
bpw_compute_batch_new (BpwWindow *self)
{
  BpwComputeBatch *batch = g_new0 (BpwComputeBatch, 1);
  BpwStudy *study = self->study;

  batch->generation = self->generation;
  batch->n_jobs = bpw_study_get_n_scenarios (study);
  batch->jobs = g_new0 (BpwFactsJob, batch->n_jobs);
  for (guint i = 0; i < batch->n_jobs; i++)
    {
      const BpwStudyScenario *s = bpw_study_get_scenario (study, i);
      const BpwStudyWorkload *w = bpw_study_get_workload (study, s->workload);
      BpwFactsJob *job = &batch->jobs[i];

      job->name = g_strdup (s->name);
      job->suite = g_strdup (s->suite);
      job->workload = g_strdup (w->name);
      bpw_model_spec_copy (&job->spec, &w->spec);
      bpw_scenario_copy (&job->scenario, &s->scenario);
      job->parallel = s->parallel;
    }

  batch->n_candidates = bpw_study_get_n_candidates (study);
  batch->candidates = g_new0 (BpwCandidateJob, batch->n_candidates);
  for (guint c = 0; c < batch->n_candidates; c++)
    {
      const BpwStudyCandidate *sc = bpw_study_get_candidate (study, c);
      BpwCandidateJob *candidate = &batch->candidates[c];

      candidate->name = g_strdup (sc->name);
      candidate->blueprint_ref = g_strdup (sc->blueprint);
      candidate->runs = g_new0 (BpwCandidateRun, batch->n_jobs);
      candidate->errors = g_new0 (char *, batch->n_jobs + 1);
      for (guint i = 0; i < batch->n_jobs; i++)
        {
          g_autoptr(GError) error = NULL;

          /* Copies what the run needs (model, scenario, mapping, blueprint) out of the
           * study, and resolves blueprint paths against its folder. */
          if (!bpw_candidate_run_init (&candidate->runs[i], study, c, i, &error))
            candidate->errors[i] = g_strdup (error->message);
        }
    }

  return batch;
}

static void
bpw_window_compute_thread (GTask        *task,
                           gpointer      source_object,
                           gpointer      task_data,
                           GCancellable *cancellable)
{
  BpwComputeBatch *batch = task_data;
  BpwComputeResult *result = g_new0 (BpwComputeResult, 1);

  result->rows = g_ptr_array_new_with_free_func (g_object_unref);
  result->overview_items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < batch->n_jobs; i++)
    {
      const BpwFactsJob *job = &batch->jobs[i];
      g_autoptr(GError) error = NULL;
      BpwFacts facts;

      if (g_cancellable_is_cancelled (cancellable))
        break;

      memset (&facts, 0, sizeof facts);
      if (bpw_facts_compute (&job->spec, &job->scenario, &job->parallel, &facts, &error))
        g_ptr_array_add (result->rows,
                         bpw_facts_row_new (job->name, job->suite, job->workload,
                                            &job->scenario, &job->parallel, &facts, NULL));
      else
        {
          bpw_facts_clear (&facts);
          g_ptr_array_add (result->rows,
                           bpw_facts_row_new (job->name, job->suite, job->workload,
                                              &job->scenario, &job->parallel, NULL, error));
        }
    }

  /* Candidate-major: each candidate's scenarios together, as a review reads them. */
  for (guint c = 0; c < batch->n_candidates && !g_cancellable_is_cancelled (cancellable); c++)
    {
      const BpwCandidateJob *candidate = &batch->candidates[c];

      for (guint i = 0; i < result->rows->len; i++)
        {
          BpwOverviewInputs inputs = {
            .candidate = candidate->name,
            .blueprint_ref = candidate->blueprint_ref,
            .run = &candidate->runs[i],
            .run_error = candidate->errors[i],
            .scenario = g_ptr_array_index (result->rows, i),
          };

          g_ptr_array_add (result->overview_items, bpw_overview_item_new (&inputs));
        }
    }

  if (g_task_return_error_if_cancelled (task))
    {
      bpw_compute_result_free (result);
      return;
    }
  g_task_return_pointer (task, result, (GDestroyNotify) bpw_compute_result_free);
}

static void
bpw_window_compute_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  BpwWindow *self = BPW_WINDOW (object);
  BpwComputeBatch *batch = g_task_get_task_data (G_TASK (result));
  BpwComputeResult *computed;
  g_autoptr(GError) error = NULL;
  guint n_failed = 0;
  const char *first_error = NULL;

  computed = g_task_propagate_pointer (G_TASK (result), &error);
  if (computed == NULL || batch->generation != self->generation)
    {
      g_clear_pointer (&computed, bpw_compute_result_free);
      return;  /* cancelled, or a newer study or change has replaced this one */
    }

  g_list_store_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                       computed->rows->pdata, computed->rows->len);
  g_list_store_splice (self->overview_items, 0,
                       g_list_model_get_n_items (G_LIST_MODEL (self->overview_items)),
                       computed->overview_items->pdata, computed->overview_items->len);

  for (guint i = 0; i < computed->rows->len; i++)
    {
      const char *message = bpw_facts_row_get_error (g_ptr_array_index (computed->rows, i));

      if (message != NULL && n_failed++ == 0)
        first_error = message;
    }
  if (n_failed > 0)
    {
      g_autofree char *message = NULL;

      message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                              "%u scenario has no facts: %s",
                                              "%u scenarios have no facts; the first: %s",
                                              n_failed), n_failed, first_error);
      _bpw_window_show_toast (self, message);
    }

  bpw_compute_result_free (computed);
  _bpw_window_set_busy (self, FALSE);
}

void
_bpw_window_compute (BpwWindow *self)
{
  g_autoptr(GTask) task = NULL;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->generation++;

  /* The lists keep their items until the new ones replace them, so that an edit does not
   * flash an empty table. */
  if (self->study == NULL)
    {
      g_list_store_remove_all (self->rows);
      g_list_store_remove_all (self->overview_items);
      _bpw_window_set_busy (self, FALSE);
      return;
    }

  self->cancellable = g_cancellable_new ();
  _bpw_window_set_busy (self, TRUE);
  task = g_task_new (self, self->cancellable, bpw_window_compute_cb, NULL);
  g_task_set_source_tag (task, _bpw_window_compute);
  g_task_set_task_data (task, bpw_compute_batch_new (self),
                        (GDestroyNotify) bpw_compute_batch_free);
  g_task_run_in_thread (task, bpw_window_compute_thread);
}
