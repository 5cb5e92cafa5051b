/* bpw-window-compute.c — the facts of every scenario and the Overview's items, off the
 * main thread, recomputing only what an edit changed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An edit changes one blueprint, one scenario or one candidate's mapping. The window keeps
 * the inputs of its last computation (the batch) next to its results, so that the next one
 * computes the facts of changed scenarios only and evaluates only the candidate × scenario
 * pairs whose model, scenario, mapping or blueprint differ; everything else is the same
 * object as before. The evaluation is the core's analytic estimator (about a millisecond a
 * pair); full plans are bound only for the Sheet.
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
  BpwFactsRow   *reuse;           /* nullable: the last computation's row, unchanged */
} BpwFactsJob;

/* One candidate on every scenario: set up on the main thread (it reads the study),
 * evaluated in the worker. */
typedef struct
{
  char             *name;
  char             *blueprint_ref;  /* as the study names it */
  BpwCandidateRun  *runs;           /* one per scenario */
  char            **errors;         /* one per scenario: NULL, or why runs[i] is unusable */
  BpwOverviewItem **reuse;          /* one per scenario, nullable: unchanged items */
} BpwCandidateJob;

struct _BpwComputeBatch
{
  BpwFactsJob      *jobs;
  guint             n_jobs;
  BpwCandidateJob  *candidates;
  guint             n_candidates;
  BpwComputeStats   stats;          /* filled by the worker */
};

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
bpw_compute_batch_clear (BpwComputeBatch *batch)
{
  for (guint i = 0; i < batch->n_jobs; i++)
    {
      BpwFactsJob *job = &batch->jobs[i];

      g_free (job->name);
      g_free (job->suite);
      g_free (job->workload);
      bpw_model_spec_clear (&job->spec);
      bpw_scenario_clear (&job->scenario);
      g_clear_object (&job->reuse);
    }
  for (guint c = 0; c < batch->n_candidates; c++)
    {
      BpwCandidateJob *candidate = &batch->candidates[c];

      g_free (candidate->name);
      g_free (candidate->blueprint_ref);
      /* errors is sparse (a run without an error leaves a hole), so g_strfreev() would stop
       * at the first hole: each slot is freed on its own. */
      for (guint i = 0; i < batch->n_jobs; i++)
        {
          bpw_candidate_run_clear (&candidate->runs[i]);
          g_clear_object (&candidate->reuse[i]);
          g_free (candidate->errors[i]);
        }
      g_free (candidate->runs);
      g_free (candidate->reuse);
      g_free (candidate->errors);
    }
  g_free (batch->jobs);
  g_free (batch->candidates);
}

void
_bpw_compute_batch_unref (BpwComputeBatch *batch)
{
  g_atomic_rc_box_release_full (batch, (GDestroyNotify) bpw_compute_batch_clear);
}

/* The last computation's facts row for scenario @i when nothing it depends on changed. */
static BpwFactsRow *
bpw_window_reusable_row (BpwWindow         *self,
                         guint              i,
                         const BpwFactsJob *job)
{
  g_autoptr(BpwFactsRow) row = NULL;

  if (self->last_batch == NULL
      || self->last_batch->n_jobs != bpw_study_get_n_scenarios (self->study)
      || g_list_model_get_n_items (G_LIST_MODEL (self->rows)) != self->last_batch->n_jobs)
    return NULL;
  row = g_list_model_get_item (G_LIST_MODEL (self->rows), i);
  /* A row keeps "" for a missing suite. */
  if (g_strcmp0 (bpw_facts_row_get_name (row), job->name) != 0
      || g_strcmp0 (bpw_facts_row_get_suite (row), job->suite != NULL ? job->suite : "") != 0
      || g_strcmp0 (bpw_facts_row_get_workload (row), job->workload) != 0
      || !bpw_scenario_values_equal (bpw_facts_row_get_scenario (row), &job->scenario)
      || !bpw_parallel_equal (bpw_facts_row_get_parallel (row), &job->parallel))
    return NULL;
  return g_steal_pointer (&row);
}

static BpwOverviewItem *
bpw_window_reusable_item (BpwWindow             *self,
                          guint                  c,
                          guint                  i,
                          const BpwCandidateJob *candidate)
{
  BpwComputeBatch *last = self->last_batch;
  const BpwCandidateJob *before;
  guint position;

  if (last == NULL || last->n_candidates != bpw_study_get_n_candidates (self->study))
    return NULL;
  before = &last->candidates[c];
  position = c * last->n_jobs + i;
  if (g_strcmp0 (before->name, candidate->name) != 0
      || g_strcmp0 (before->blueprint_ref, candidate->blueprint_ref) != 0
      || position >= g_list_model_get_n_items (G_LIST_MODEL (self->overview_items))
      || !bpw_candidate_run_same (&before->runs[i], before->errors[i],
                                  &candidate->runs[i], candidate->errors[i]))
    return NULL;
  return g_list_model_get_item (G_LIST_MODEL (self->overview_items), position);
}

static BpwComputeBatch *
bpw_compute_batch_new (BpwWindow *self)
{
  BpwComputeBatch *batch = g_atomic_rc_box_new0 (BpwComputeBatch);
  BpwStudy *study = self->study;

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
      job->reuse = bpw_window_reusable_row (self, i, job);
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
      candidate->reuse = g_new0 (BpwOverviewItem *, batch->n_jobs);
      for (guint i = 0; i < batch->n_jobs; i++)
        {
          g_autoptr(GError) error = NULL;

          /* Copies what the run needs (model, scenario, mapping, blueprint) out of the
           * study, and resolves blueprint names: inline, next to the study, bundled. */
          if (!bpw_candidate_run_init (&candidate->runs[i], study, c, i, &error))
            candidate->errors[i] = g_strdup (error->message);
          /* An item points at its scenario's facts row: it can stay only with the row.
           * Workloads do not change between computations that share a batch. */
          if (batch->jobs[i].reuse != NULL)
            candidate->reuse[i] = bpw_window_reusable_item (self, c, i, candidate);
        }
    }

  return batch;
}

/* Worker thread: a BpwComputeResult for the BpwComputeBatch @data. */
static gpointer
bpw_window_compute_work (gpointer       data,
                         GCancellable  *cancellable,
                         GError       **out_error)
{
  BpwComputeBatch *batch = data;
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
      if (job->reuse != NULL)
        {
          g_ptr_array_add (result->rows, g_object_ref (job->reuse));
          continue;
        }

      batch->stats.facts++;
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

          if (candidate->reuse[i] != NULL)
            {
              batch->stats.reused++;
              g_ptr_array_add (result->overview_items, g_object_ref (candidate->reuse[i]));
              continue;
            }
          batch->stats.evaluations += candidate->errors[i] == NULL;
          g_ptr_array_add (result->overview_items, bpw_overview_item_new (&inputs));
        }
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, out_error))
    {
      bpw_compute_result_free (result);
      return NULL;
    }
  return result;
}

/* Replaces the items that changed only, so that the lists keep their other rows (and the
 * tables their selection and scroll position). */
static void
bpw_window_update_store (GListStore *store,
                         GPtrArray  *items)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (store));

  if (n != items->len)
    {
      g_list_store_splice (store, 0, n, items->pdata, items->len);
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) old = g_list_model_get_item (G_LIST_MODEL (store), i);

      if (old != g_ptr_array_index (items, i))
        g_list_store_splice (store, i, 1, &items->pdata[i], 1);
    }
}

static void
bpw_window_compute_done (GObject      *owner,
                         gpointer      input,
                         gpointer      result,
                         const GError *error)
{
  BpwWindow *self = BPW_WINDOW (owner);
  BpwComputeBatch *batch = input;
  BpwComputeResult *computed = result;
  guint n_failed = 0;
  const char *first_error = NULL;

  if (computed == NULL)
    return;  /* cancelled, or a newer study or change has replaced this one */

  bpw_window_update_store (self->rows, computed->rows);
  bpw_window_update_store (self->overview_items, computed->overview_items);
  /* What the stores now show was computed from this batch: the next edit compares
   * against it. */
  g_clear_pointer (&self->last_batch, _bpw_compute_batch_unref);
  self->last_batch = g_atomic_rc_box_acquire (batch);
  self->stats = batch->stats;

  for (guint i = 0; i < computed->rows->len; i++)
    {
      const char *message = bpw_facts_row_get_error (g_ptr_array_index (computed->rows, i));

      if (message != NULL && n_failed++ == 0)
        first_error = message;
    }
  /* An edit shows its consequences in the tables; repeating a toast per keystroke would
   * only cover them. */
  if (n_failed > 0 && batch->stats.facts > 0)
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
  _bpw_window_computed (self);
}

void
_bpw_window_compute_reset (BpwWindow *self)
{
  g_clear_pointer (&self->last_batch, _bpw_compute_batch_unref);
}

void
_bpw_window_compute (BpwWindow *self)
{
  bpw_job_queue_invalidate (self->jobs);
  _bpw_window_compare_update (self);
  _bpw_window_validation_update (self);

  /* The lists keep their items until the new ones replace them, so that an edit does not
   * flash an empty table. */
  if (self->study == NULL)
    {
      g_list_store_remove_all (self->rows);
      g_list_store_remove_all (self->overview_items);
      _bpw_window_compute_reset (self);
      _bpw_window_set_busy (self, FALSE);
      return;
    }

  _bpw_window_set_busy (self, TRUE);
  bpw_job_queue_run (self->jobs, G_OBJECT (self), bpw_window_compute_work,
                     bpw_compute_batch_new (self), (GDestroyNotify) _bpw_compute_batch_unref,
                     (GDestroyNotify) bpw_compute_result_free, bpw_window_compute_done);
}
