/* bpw-sheet-page-compute.c — binding the shown candidate's plan, off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Binding a whole plan takes tens of milliseconds for the largest models, so the page binds
 * again only when what it shows changed: another candidate or scenario, or an edit of that
 * candidate's blueprint, mapping or scenario.
 */
#define G_LOG_DOMAIN "bpw-sheet-page-compute"

#include "config.h"

#include "bpw-measurement-run.h"
#include "bpw-sheet-page-private.h"

typedef struct
{
  BpwCandidateRun   run;
  char             *label;       /* the candidate's name, for the charts */
  BpwMeasurementRun measured;    /* the study's measurement of the candidate on the
                                  * scenario: its points go on the roofline */
  gboolean          has_measured;
} BpwSheetJob;

typedef struct
{
  GPtrArray         *items;       /* BpwSheetItem */
  BpwRooflineData   *roofline;    /* nullable: the plan has nothing to place */
  BpwAssignmentData *assignment;  /* nullable */
  double             step_time;
  BpwEvaluation      eval;        /* of the plan: the summary by layer type */
} BpwSheetResult;

static void
bpw_sheet_job_free (BpwSheetJob *job)
{
  bpw_candidate_run_clear (&job->run);
  if (job->has_measured)
    bpw_measurement_run_clear (&job->measured);
  g_free (job->label);
  g_free (job);
}

static void
bpw_sheet_result_free (BpwSheetResult *result)
{
  g_clear_pointer (&result->items, g_ptr_array_unref);
  g_clear_pointer (&result->roofline, bpw_roofline_data_free);
  g_clear_pointer (&result->assignment, bpw_assignment_data_free);
  g_free (result);
}

/* Worker thread: a BpwSheetResult for the BpwSheetJob @data. */
static gpointer
bpw_sheet_page_compute_work (gpointer       data,
                             GCancellable  *cancellable,
                             GError       **out_error)
{
  BpwSheetJob *job = data;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) rows = NULL;
  BpwSheetResult *result;
  BpwEvaluation e;
  GError *error = NULL;

  plan = bpw_candidate_run_bind (&job->run, out_error);
  if (plan == NULL || g_cancellable_set_error_if_cancelled (cancellable, out_error))
    return NULL;
  /* All blocks of a stage are alike: each stage's first block, embedding and head. */
  rows = bpw_mapping_sheet_new (plan, TRUE);
  bpw_evaluation_from_plan (plan, &e);
  result = g_new0 (BpwSheetResult, 1);
  result->items = bpw_sheet_item_list_from_sheet (rows);
  result->step_time = e.step_time_s;
  result->eval = e;
  /* The charts come from the same plan, so the pages agree with the table. A plan the
   * charts cannot show leaves them empty; the table still shows its rows. */
  result->roofline = bpw_roofline_data_new_from_plan (plan, -1, job->label, &error);
  if (result->roofline == NULL)
    {
      g_debug ("No roofline: %s", error->message);
      g_clear_error (&error);
    }
  else if (job->has_measured && bpw_measurement_run_execute (&job->measured, &error))
    bpw_roofline_data_add_measured (result->roofline, job->measured.correlation, NULL);
  else if (job->has_measured)
    {
      /* The Validation page says why; the roofline shows the model alone. */
      g_debug ("No measured points: %s", error->message);
      g_clear_error (&error);
    }
  result->assignment = bpw_assignment_data_new_from_plan (plan, -1, job->label, &error);
  if (result->assignment == NULL)
    {
      g_debug ("No assignment chart: %s", error->message);
      g_clear_error (&error);
    }
  return result;
}

/* After an edit of a value, the plan has the same rows with other numbers: the table keeps
 * its rows, widgets, selection and scroll position, and only the text of its cells changes.
 * Sorting by a number may then order the rows differently. */
static gboolean
bpw_sheet_page_update_in_place (BpwSheetPage *self,
                                GPtrArray    *items)
{
  GListModel *rows = G_LIST_MODEL (self->rows);
  guint n = g_list_model_get_n_items (rows);

  if (n == 0 || n != items->len)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      /* The first row that differs in shape means a differently shaped plan; rows before
       * it took the new numbers, which the splice that follows replaces anyway. */
      if (!bpw_sheet_item_update (row, g_ptr_array_index (items, i)))
        return FALSE;
    }
  gtk_sorter_changed (gtk_column_view_get_sorter (self->column_view), GTK_SORTER_CHANGE_DIFFERENT);
  return TRUE;
}

static void
bpw_sheet_page_clear_charts (BpwSheetPage *self)
{
  bpw_layer_summary_set_evaluation (self->layer_summary, NULL);
  if (bpw_roofline_plot_get_data (self->roofline_plot)->points->len > 0
      || bpw_roofline_plot_get_data (self->roofline_plot)->ceilings->len > 0)
    bpw_roofline_plot_set_data (self->roofline_plot, NULL);
  if (bpw_assignment_plot_get_data (self->assignment_plot)->items->len > 0)
    bpw_assignment_plot_set_data (self->assignment_plot, NULL);
}

static void
bpw_sheet_page_compute_done (GObject      *owner,
                             gpointer      job,
                             gpointer      result,
                             const GError *error)
{
  BpwSheetPage *self = BPW_SHEET_PAGE (owner);
  BpwSheetResult *computed = result;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;  /* a newer candidate, scenario, edit or study has replaced this one */

  g_clear_pointer (&self->error, g_free);
  if (computed == NULL)
    {
      self->error = g_strdup (error->message);
      self->step_time = 0.0;
      g_list_store_remove_all (self->rows);
      bpw_sheet_page_clear_charts (self);
    }
  else
    {
      self->step_time = computed->step_time;
      bpw_layer_summary_set_evaluation (self->layer_summary, &computed->eval);
      bpw_roofline_plot_set_data (self->roofline_plot, g_steal_pointer (&computed->roofline));
      bpw_assignment_plot_set_data (self->assignment_plot,
                                    g_steal_pointer (&computed->assignment));
      if (!bpw_sheet_page_update_in_place (self, computed->items))
        g_list_store_splice (self->rows, 0,
                             g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                             computed->items->pdata, computed->items->len);
      bpw_sheet_result_free (computed);
    }

  _bpw_sheet_page_set_busy (self, FALSE);
  _bpw_sheet_page_update_state (self);
}

/* The study's first measurement of @candidate on @scenario: its index, and what identifies
 * it (name, file, digest, calibration), or NULL when there is none. */
static char *
bpw_sheet_page_measurement (BpwStudy *study,
                            guint     candidate,
                            guint     scenario,
                            guint    *index)
{
  const char *c = bpw_study_get_candidate (study, candidate)->name;
  const char *s = bpw_study_get_scenario (study, scenario)->name;

  for (guint i = 0; i < bpw_study_get_n_measurements (study); i++)
    {
      const BpwStudyMeasurement *m = bpw_study_get_measurement (study, i);

      if (g_strcmp0 (m->candidate, c) != 0 || g_strcmp0 (m->scenario, s) != 0)
        continue;
      *index = i;
      return g_strjoin ("\n", m->name, m->path, m->sha256 != NULL ? m->sha256 : "",
                        m->calibrated != NULL ? m->calibrated : "", NULL);
    }
  return NULL;
}

void
_bpw_sheet_page_forget_shown (BpwSheetPage *self)
{
  if (self->has_shown)
    bpw_candidate_run_clear (&self->shown);
  g_clear_pointer (&self->shown_error, g_free);
  g_clear_pointer (&self->shown_measurement, g_free);
  self->has_shown = FALSE;
}

gboolean
_bpw_sheet_page_compute (BpwSheetPage *self,
                         gboolean      force)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *measurement = NULL;
  BpwCandidateRun run;
  BpwSheetJob *job;
  guint candidate = bpw_sheet_page_get_candidate (self);
  guint scenario = bpw_sheet_page_get_scenario (self);
  guint measured = 0;
  gboolean ok;

  if (self->study == NULL || candidate >= bpw_study_get_n_candidates (self->study)
      || scenario >= bpw_study_get_n_scenarios (self->study))
    {
      bpw_job_queue_invalidate (self->jobs);
      _bpw_sheet_page_forget_shown (self);
      g_clear_pointer (&self->error, g_free);
      g_list_store_remove_all (self->rows);
      bpw_sheet_page_clear_charts (self);
      _bpw_sheet_page_set_busy (self, FALSE);
      _bpw_sheet_page_update_state (self);
      return FALSE;
    }

  ok = bpw_candidate_run_init (&run, self->study, candidate, scenario, &error);
  measurement = bpw_sheet_page_measurement (self->study, candidate, scenario, &measured);
  if (!force && self->has_shown && candidate == self->shown_candidate
      && scenario == self->shown_scenario
      && g_strcmp0 (measurement, self->shown_measurement) == 0
      && bpw_candidate_run_same (&self->shown, self->shown_error, &run,
                                 ok ? NULL : error->message))
    {
      bpw_candidate_run_clear (&run);
      return FALSE;
    }

  bpw_job_queue_invalidate (self->jobs);
  _bpw_sheet_page_forget_shown (self);
  self->shown = run;
  self->shown_error = ok ? NULL : g_strdup (error->message);
  self->shown_measurement = g_strdup (measurement);
  self->shown_candidate = candidate;
  self->shown_scenario = scenario;
  self->has_shown = TRUE;
  g_clear_pointer (&self->error, g_free);

  if (!ok)
    {
      self->error = g_strdup (error->message);
      g_list_store_remove_all (self->rows);
      bpw_sheet_page_clear_charts (self);
      _bpw_sheet_page_set_busy (self, FALSE);
      _bpw_sheet_page_update_state (self);
      return FALSE;
    }

  /* The worker binds a copy: the page keeps its own to compare the next inputs with. The
   * rows stay until the new ones replace them, so an edit does not flash an empty table. */
  job = g_new0 (BpwSheetJob, 1);
  bpw_candidate_run_copy (&job->run, &self->shown);
  job->label = g_strdup (bpw_study_get_candidate (self->study, candidate)->name);
  if (measurement != NULL)
    {
      job->has_measured = TRUE;
      if (!bpw_measurement_run_init (&job->measured, self->study, measured, &error))
        {
          g_debug ("No measured points: %s", error->message);
          g_clear_error (&error);
          bpw_measurement_run_clear (&job->measured);
          job->has_measured = FALSE;
        }
    }

  self->n_binds++;
  _bpw_sheet_page_set_busy (self, TRUE);
  _bpw_sheet_page_update_state (self);
  bpw_job_queue_run (self->jobs, G_OBJECT (self), bpw_sheet_page_compute_work, job,
                     (GDestroyNotify) bpw_sheet_job_free,
                     (GDestroyNotify) bpw_sheet_result_free, bpw_sheet_page_compute_done);
  return TRUE;
}

