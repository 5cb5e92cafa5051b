/* bpw-search-dialog-calculon.c — the search in Calculon's model: its row and its run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With Calculon's options the setup page offers "Priced By": the workbench's model, or
 * Calculon's, where the run can be put in Calculon's terms (a Calculon system as the
 * blueprint, a model its block can express). With Calculon's model, Start runs Calculon's own search
 * (bpw_calculon_search_run(): its space, its model, its ranking) in a GTask thread, then
 * puts its best in the workbench's terms (bpw_calculon_search_report_to_workbench(): the
 * mapping each execution stands for, the workbench's estimate and, with "Simulate the
 * Best", its simulated step), so that the table shows both models side by side and
 * "Promote to Candidate" adds Calculon's choice to the study. The progress is copied
 * under a lock and read by a 100 ms timeout, as for the workbench's search.
 */
#define G_LOG_DOMAIN "bpw-search-dialog-calculon"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-search-dialog-private.h"
#include "bpw-calculon-rules.h"
#include "bpw-toast.h"

/* The setup page ---------------------------------------------------------------------- */

/* Who prices the plans, shown with Calculon's options: the workbench's model, or
 * Calculon's own (its search), where the run can be put in Calculon's terms. */
void
_bpw_search_dialog_add_cost_row (BpwSearchDialog *self)
{
  g_autoptr(GtkStringList) model = gtk_string_list_new (NULL);
  g_autoptr(GError) error = NULL;

  if (!bpw_calculon_app_from_spec (&self->run.spec, self->run.scenario.seq, &self->calculon_app,
                                   &error)
      || !bpw_calculon_system_from_blueprint (self->run.blueprint, self->run.scenario.dtype,
                                              &self->calculon_system, &error))
    self->calculon_error = g_strdup (error->message);

  /* Translators: plans priced by this application's own model */
  gtk_string_list_append (model, _("The workbench’s model"));
  /* Translators: plans priced by Calculon's model (a peer tool) */
  gtk_string_list_append (model, _("Calculon’s model"));
  self->cost_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->cost_row), _("Priced _By"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (self->cost_row), TRUE);
  adw_combo_row_set_model (self->cost_row, G_LIST_MODEL (model));
  gtk_widget_set_sensitive (GTK_WIDGET (self->cost_row), self->calculon_error == NULL);
  /* Translators: %s says what the blueprint or model lacks */
  if (self->calculon_error != NULL)
    {
      g_autofree char *why = g_strdup_printf (_("Calculon’s model cannot price this run: %s"),
                                              self->calculon_error);

      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->cost_row), why);
    }
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->cost_row),
                                 _("Calculon’s model runs Calculon’s own search: its plans, "
                                   "its ranking, its numbers to the last digit"));
  gtk_widget_set_visible (GTK_WIDGET (self->cost_row), FALSE);
  g_signal_connect_object (self->cost_row, "notify::selected",
                           G_CALLBACK (_bpw_search_dialog_choice_changed_cb), self,
                           G_CONNECT_SWAPPED);
  adw_preferences_group_add (self->space_group, GTK_WIDGET (self->cost_row));
}

gboolean
_bpw_search_dialog_calculon_model (BpwSearchDialog *self)
{
  return self->cost_row != NULL && gtk_widget_get_visible (GTK_WIDGET (self->cost_row))
         && self->calculon_error == NULL && adw_combo_row_get_selected (self->cost_row) == 1;
}

BpwCalculonSpace *
_bpw_search_dialog_new_calculon_space (BpwSearchDialog       *self,
                                      const BpwSearchLimits *limits,
                                      GError               **error)
{
  BpwCalculonSearchOptions options;

  bpw_calculon_search_options_init (&options);
  options.tp = limits->tp;
  options.pp = limits->pp;
  options.act_offload = limits->act_offload;
  options.top_n = (guint) gtk_spin_button_get_value_as_int (self->top_spin);
  options.threads = (guint) gtk_spin_button_get_value_as_int (self->threads_spin);
  options.progress_ms = BPW_SEARCH_POLL_MS;
  return bpw_calculon_space_new (&self->calculon_app, &self->calculon_system, self->devices,
                                 self->run.scenario.global_batch, self->run.scenario.dtype,
                                 &options, error);
}

gboolean
bpw_search_dialog_set_cost_model (BpwSearchDialog    *self,
                                  BpwSearchCostModel  model)
{
  BpwSearchLimits limits;

  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), FALSE);

  if (self->cost_row == NULL
      || (model == BPW_SEARCH_COST_CALCULON
          && (self->calculon_error != NULL
              || !gtk_widget_get_sensitive (GTK_WIDGET (self->space_row)))))
    return FALSE;
  if (model == BPW_SEARCH_COST_CALCULON)
    {
      bpw_search_dialog_get_limits (self, &limits);
      if (limits.rules != bpw_calculon_search_rules ())
        {
          limits.rules = bpw_calculon_search_rules ();
          bpw_search_dialog_set_limits (self, &limits);
        }
    }
  adw_combo_row_set_selected (self->cost_row, model == BPW_SEARCH_COST_CALCULON ? 1 : 0);
  return TRUE;
}

BpwSearchCostModel
bpw_search_dialog_get_cost_model (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), BPW_SEARCH_COST_WORKBENCH);
  return _bpw_search_dialog_calculon_model (self) ? BPW_SEARCH_COST_CALCULON
                                                  : BPW_SEARCH_COST_WORKBENCH;
}

const char *
bpw_search_dialog_get_calculon_error (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return self->calculon_error;
}

/* The run ------------------------------------------------------------------------------- */

struct _BpwCalculonJob
{
  BpwCalculonSpace          *space;      /* owned, read-only while the search runs */
  BpwSearchSpace            *problem;    /* owned: the workbench's space of the same run */
  gboolean                   simulate;

  GMutex                     lock;
  /* Under @lock */
  BpwCalculonSearchProgress  progress;
  gboolean                   has_progress;
  gboolean                   evaluating;   /* the search ended; its best are being priced */

  /* Set by the thread before it returns */
  BpwCalculonSearchReport   *report;
  BpwSearchReport           *workbench;
};

static void
bpw_calculon_job_free (BpwCalculonJob *job)
{
  g_clear_pointer (&job->space, bpw_calculon_space_free);
  g_clear_pointer (&job->problem, bpw_search_space_free);
  g_clear_pointer (&job->report, bpw_calculon_search_report_free);
  g_clear_pointer (&job->workbench, bpw_search_report_free);
  g_mutex_clear (&job->lock);
  g_free (job);
}

/* In the worker thread. */
static void
bpw_calculon_job_progress_cb (const BpwCalculonSearchProgress *progress,
                              gpointer                         user_data)
{
  BpwCalculonJob *job = user_data;

  g_mutex_lock (&job->lock);
  job->progress = *progress;
  job->has_progress = TRUE;
  g_mutex_unlock (&job->lock);
}

static void
bpw_calculon_job_thread (GTask        *task,
                         gpointer      source_object,
                         gpointer      task_data,
                         GCancellable *cancellable)
{
  BpwCalculonJob *job = task_data;

  /* A cancelled search still returns what it found. */
  job->report = bpw_calculon_search_run (job->space, bpw_calculon_job_progress_cb, job,
                                         cancellable);
  g_mutex_lock (&job->lock);
  job->evaluating = TRUE;
  g_mutex_unlock (&job->lock);
  job->workbench = bpw_calculon_search_report_to_workbench (job->report, job->problem, TRUE,
                                                            job->simulate);
  g_task_return_boolean (task, TRUE);
}

static gboolean
bpw_search_dialog_calculon_poll_cb (gpointer user_data)
{
  BpwSearchDialog *self = user_data;
  BpwCalculonJob *job = self->calculon_job;
  BpwCalculonSearchProgress p;
  g_autofree char *evaluated = NULL, *rate = NULL, *remaining = NULL;
  gboolean has_progress, evaluating;

  g_mutex_lock (&job->lock);
  p = job->progress;
  has_progress = job->has_progress;
  evaluating = job->evaluating;
  g_mutex_unlock (&job->lock);
  if (!has_progress || g_cancellable_is_cancelled (self->cancellable))
    return G_SOURCE_CONTINUE;

  if (!evaluating)
    gtk_label_set_text (self->status_label, _("Searching with Calculon’s model…"));
  else
    gtk_label_set_text (self->status_label, job->simulate
                                            ? _("Simulating the best plans…")
                                            : _("Evaluating the best plans…"));
  _bpw_search_dialog_set_fraction (self, p.total > 0 ? (double) p.evaluated / (double) p.total
                                                     : 0.0);
  evaluated = bpw_format_count (p.evaluated);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_EVALUATED, evaluated);
  rate = _bpw_search_format_rate (p.evaluated, p.elapsed_s);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_RATE, rate);
  remaining = _bpw_search_format_remaining (p.remaining_s);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_REMAINING, remaining);
  if (p.has_best)
    {
      g_autofree char *step = bpw_format_seconds (p.best_total_time);
      g_autofree char *efficiency = g_strdup_printf ("%.1f %%", 100.0 * p.best_total_efficiency);
      g_autofree char *memory = bpw_format_bytes ((guint64) p.best_tier1_bytes, self->units);

      _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_STEP_TIME, step);
      _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MFU, efficiency);
      _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MEMORY, memory);
    }
  return G_SOURCE_CONTINUE;
}

static void
bpw_search_dialog_calculon_done_cb (GObject      *object,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  BpwSearchDialog *self = BPW_SEARCH_DIALOG (object);
  BpwCalculonJob *job = g_task_get_task_data (G_TASK (result));

  /* Closed meanwhile: nothing left to show it in. */
  if (self->window == NULL)
    return;
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_clear_object (&self->cancellable);
  self->calculon_job = NULL;

  g_clear_pointer (&self->report, bpw_search_report_free);
  g_clear_pointer (&self->report_space, bpw_search_space_free);
  g_clear_pointer (&self->calculon_report, bpw_calculon_search_report_free);
  self->report = g_steal_pointer (&job->workbench);
  self->report_space = g_steal_pointer (&job->problem);
  self->calculon_report = g_steal_pointer (&job->report);
  self->objective = BPW_SEARCH_OBJECTIVE_STEP_TIME;
  _bpw_search_dialog_show_report (self);
  _bpw_search_dialog_update_buttons (self);
  _bpw_search_dialog_notify_running (self);
}

gboolean
_bpw_search_dialog_calculon_start (BpwSearchDialog *self)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  BpwSearchLimits limits;
  BpwCalculonJob *job;

  bpw_search_dialog_get_limits (self, &limits);
  job = g_new0 (BpwCalculonJob, 1);
  g_mutex_init (&job->lock);
  job->simulate = gtk_switch_get_active (self->simulate_switch);
  /* The worker gets spaces of its own: the page rebuilds its spaces on every change. */
  job->space = _bpw_search_dialog_new_calculon_space (self, &limits, &error);
  if (job->space != NULL)
    job->problem = bpw_search_space_new (&self->run.spec, &self->run.scenario,
                                         self->run.blueprint, &self->run.mapping,
                                         self->devices, &limits, &error);
  if (job->space == NULL || job->problem == NULL)
    {
      bpw_calculon_job_free (job);
      bpw_toast_show (self->toast_overlay, adw_toast_new (error->message));
      return FALSE;
    }

  self->cancellable = g_cancellable_new ();
  self->calculon_job = job;
  task = g_task_new (self, self->cancellable, bpw_search_dialog_calculon_done_cb, NULL);
  g_task_set_source_tag (task, _bpw_search_dialog_calculon_start);
  /* The partial result of a cancelled search is wanted, not G_IO_ERROR_CANCELLED. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) bpw_calculon_job_free);
  g_task_run_in_thread (task, bpw_calculon_job_thread);

  g_list_store_remove_all (self->results);
  _bpw_search_dialog_begin_run (self, FALSE, bpw_search_dialog_calculon_poll_cb);
  _bpw_search_dialog_set_calculon_stats (self);
  gtk_label_set_text (self->best_plan_label, _("The best plans in Calculon’s model are "
                                               "priced in the workbench’s when the search "
                                               "ends."));
  return TRUE;
}

void
_bpw_search_dialog_calculon_dispose (BpwSearchDialog *self)
{
  /* The task holds the job until its worker returns; the callback then finds it closed. */
  self->calculon_job = NULL;
  g_clear_pointer (&self->calculon_space, bpw_calculon_space_free);
}
