/* bpw-search-dialog-run.c — the search in a worker thread, its progress, and the results
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw_search_run() blocks and runs its own threads, so it runs in a GTask thread on a
 * space the dialog no longer touches. Its progress callback (in that thread, every 100 ms)
 * copies the progress under a lock and, when the best plan changed, evaluates it with an
 * estimator of its own, so that the page can show the best plan's MFU and memory and not
 * only its step time. The main thread reads that copy from a 100 ms timeout: the page
 * updates at most ten times a second however fast the search goes, and never waits.
 */
#define G_LOG_DOMAIN "bpw-search-dialog-run"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-search-dialog-private.h"
#include "bpw-toast.h"

struct _BpwSearchJob
{
  BpwSearchSpace    *space;        /* owned, read-only while the search runs */
  BpwSearchOptions   options;
  BpwEstimator      *estimator;    /* nullable; the worker thread's only */

  GMutex             lock;
  /* Under @lock */
  BpwSearchProgress  progress;
  gboolean           has_progress;
  gboolean           has_best;
  guint64            best_index;   /* of @best */
  BpwEvaluation      best;
  char              *best_plan;    /* its decisions in one line */
};

static void
bpw_search_job_free (BpwSearchJob *job)
{
  g_clear_pointer (&job->space, bpw_search_space_free);
  g_clear_pointer (&job->estimator, bpw_estimator_free);
  g_clear_pointer (&job->best_plan, g_free);
  g_mutex_clear (&job->lock);
  g_free (job);
}

/* In the worker thread. */
static void
bpw_search_job_progress_cb (const BpwSearchProgress *progress,
                            gpointer                 user_data)
{
  BpwSearchJob *job = user_data;
  BpwMapping mapping;
  BpwEvaluation eval;
  char *plan;
  gboolean changed, ok;

  g_mutex_lock (&job->lock);
  job->progress = *progress;
  job->has_progress = TRUE;
  changed = progress->has_best && (!job->has_best || job->best_index != progress->best_index);
  g_mutex_unlock (&job->lock);
  if (!changed || job->estimator == NULL)
    return;

  /* The same analytic evaluation that ranked the plan (it gives the same step time). */
  bpw_mapping_init_defaults (&mapping);
  bpw_search_space_mapping (job->space, progress->best_index, &mapping);
  ok = bpw_estimator_evaluate (job->estimator, &mapping, &eval, NULL, NULL);
  plan = ok ? bpw_search_describe_mapping (&mapping, job->space->blueprint) : NULL;
  bpw_mapping_clear (&mapping);
  if (!ok)
    return;

  g_mutex_lock (&job->lock);
  job->best = eval;
  job->best_index = progress->best_index;
  job->has_best = TRUE;
  g_free (job->best_plan);
  job->best_plan = plan;
  g_mutex_unlock (&job->lock);
}

static void
bpw_search_dialog_thread (GTask        *task,
                          gpointer      source_object,
                          gpointer      task_data,
                          GCancellable *cancellable)
{
  BpwSearchJob *job = task_data;
  g_autoptr(GError) error = NULL;
  BpwSearchReport *report;

  job->estimator = bpw_estimator_new (&job->space->spec, &job->space->scenario,
                                      job->space->blueprint, NULL);
  /* A cancelled search still returns what it found: that is a result, not an error. */
  report = bpw_search_run (job->space, &job->options, bpw_search_job_progress_cb, job,
                           cancellable, &error);
  if (report == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, report, (GDestroyNotify) bpw_search_report_free);
}

/* Stat cells -------------------------------------------------------------------------- */

void
_bpw_search_dialog_set_stat (BpwSearchDialog *self,
                             BpwSearchStat    stat,
                             const char      *text)
{
  gtk_label_set_text (self->stat_values[stat], text != NULL ? text : "—");
  /* A narrow window ellipsizes the card; the whole value stays a hover away. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->stat_values[stat]), text);
}

void
_bpw_search_dialog_set_fraction (BpwSearchDialog *self,
                                 double           share)
{
  g_autofree char *percent = g_strdup_printf ("%.0f %%", floor (100.0 * share));

  gtk_progress_bar_set_fraction (self->progress_bar, share);
  gtk_label_set_text (self->fraction_label, percent);
}

char *
_bpw_search_format_remaining (double seconds)
{
  if (isnan (seconds) || seconds < 0)
    return g_strdup ("—");
  if (seconds < 1.0)
    /* Translators: estimated time left */
    return g_strdup (_("under a second"));
  if (seconds < 90.0)
    /* Translators: estimated time left, in seconds */
    return g_strdup_printf (_("about %.0f s"), seconds);
  if (seconds < 5400.0)
    /* Translators: estimated time left, in minutes */
    return g_strdup_printf (_("about %.0f min"), seconds / 60.0);
  /* Translators: estimated time left, in hours */
  return g_strdup_printf (_("about %.1f h"), seconds / 3600.0);
}

char *
_bpw_search_format_rate (guint64 decided,
                         double  seconds)
{
  g_autofree char *count = NULL;

  if (!(seconds > 0))
    return NULL;
  /* Three significant digits and an SI prefix ("4.93 M"): the exact count would not fit
   * a stat card, and the digits past the third are noise between runs. */
  count = bpw_format_si ((double) decided / seconds, "");
  g_strchomp (count);
  /* Translators: search rate, "4.93 M plans/s" */
  return g_strdup_printf (_("%s plans/s"), count);
}

static void
bpw_search_dialog_show_best (BpwSearchDialog     *self,
                             double               step_time_s,
                             const BpwEvaluation *eval,
                             const char          *plan)
{
  g_autofree char *step = step_time_s > 0 ? bpw_format_seconds (step_time_s) : NULL;
  g_autofree char *mfu = eval != NULL ? g_strdup_printf ("%.1f %%", 100.0 * eval->mfu) : NULL;
  g_autofree char *memory = NULL, *share = NULL;

  if (eval != NULL && eval->peak_bytes > 0)
    {
      memory = bpw_format_bytes ((guint64) eval->peak_bytes, self->units);
      /* The card holds the peak; its share of device memory is a hover away. */
      if (eval->capacity_bytes > 0)
        {
          g_autofree char *capacity = bpw_format_bytes ((guint64) eval->capacity_bytes,
                                                        self->units);

          /* Translators: "61.2 GiB, 76 % of the device’s 80.0 GiB" */
          share = g_strdup_printf (_("%s, %.0f %% of the device’s %s"), memory,
                                   100.0 * eval->peak_bytes / eval->capacity_bytes, capacity);
        }
    }
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_STEP_TIME, step);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MFU, mfu);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MEMORY, memory);
  if (share != NULL)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->stat_values[BPW_SEARCH_STAT_MEMORY]), share);
  gtk_label_set_text (self->best_plan_label, plan != NULL ? plan : "");
}

static gboolean
bpw_search_dialog_poll_cb (gpointer user_data)
{
  BpwSearchDialog *self = user_data;
  BpwSearchJob *job = self->job;
  BpwSearchProgress p;
  BpwEvaluation best;
  g_autofree char *plan = NULL;
  g_autofree char *decided = NULL;
  g_autofree char *rate = NULL;
  g_autofree char *remaining = NULL;
  gboolean has_progress, has_best;
  double share;

  g_mutex_lock (&job->lock);
  p = job->progress;
  has_progress = job->has_progress;
  has_best = job->has_best && job->best_index == p.best_index;
  best = job->best;
  plan = g_strdup (job->best_plan);
  g_mutex_unlock (&job->lock);
  if (!has_progress || g_cancellable_is_cancelled (self->cancellable))
    return G_SOURCE_CONTINUE;

  share = p.total > 0 ? (double) p.decided / (double) p.total : 0.0;
  if (p.phase < 2)
    /* Translators: the search's first phase bounds every shape of the space */
    gtk_label_set_text (self->status_label, _("Bounding the space…"));
  else if (p.decided < p.total)
    gtk_label_set_text (self->status_label, _("Searching…"));
  else
    gtk_label_set_text (self->status_label, job->options.simulate
                                            ? _("Simulating the best plans…")
                                            : _("Evaluating the best plans…"));
  _bpw_search_dialog_set_fraction (self, share);

  decided = bpw_format_count (p.decided);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_EVALUATED, decided);
  rate = _bpw_search_format_rate (p.decided, p.elapsed_s);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_RATE, rate);
  remaining = _bpw_search_format_remaining (p.remaining_s);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_REMAINING, remaining);
  if (p.has_best)
    bpw_search_dialog_show_best (self, p.best_step_time_s, has_best ? &best : NULL,
                                 has_best ? plan : NULL);
  return G_SOURCE_CONTINUE;
}

/* Results ----------------------------------------------------------------------------- */

static int
bpw_search_compare_energy (gconstpointer a,
                           gconstpointer b)
{
  const BpwSearchResult *x = a, *y = b;

  if (x->estimate.energy_j != y->estimate.energy_j)
    return x->estimate.energy_j < y->estimate.energy_j ? -1 : 1;
  if (x->estimate.step_time_s != y->estimate.step_time_s)
    return x->estimate.step_time_s < y->estimate.step_time_s ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* The best plans for the objective: the search's own list for step time; for energy the
 * front of step time and energy, least energy first (its least-energy end is the plan of
 * least energy in the whole space). */
static void
bpw_search_dialog_fill_results (BpwSearchDialog *self)
{
  const BpwSearchReport *r = self->report;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GArray) order = NULL;
  const GArray *list = r->best;
  guint n;

  if (self->objective == BPW_SEARCH_OBJECTIVE_ENERGY && r->pareto != NULL)
    {
      order = g_array_sized_new (FALSE, FALSE, sizeof (BpwSearchResult), r->pareto->len);
      g_array_append_vals (order, r->pareto->data, r->pareto->len);
      g_array_sort (order, bpw_search_compare_energy);
      list = order;
    }
  n = MIN (list->len, r->top_k);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, bpw_search_item_new (i + 1, &g_array_index (list, BpwSearchResult, i),
                                                 self->report_space->blueprint));
  /* Calculon's search ranked them: its step time beside the workbench's. */
  for (guint i = 0; self->calculon_report != NULL && i < items->len
                    && i < self->calculon_report->best->len; i++)
    {
      const BpwCalculonSearchResult *c = &g_array_index (self->calculon_report->best,
                                                         BpwCalculonSearchResult, i);
      g_autoptr(GPtrArray) notes = bpw_calculon_execution_approximations (&c->exe);
      g_autofree char *text = NULL;

      g_ptr_array_add (notes, NULL);
      text = notes->len > 1 ? g_strjoinv ("; ", (char **) notes->pdata) : NULL;
      bpw_search_item_set_calculon (items->pdata[i], c->stats.total_time, text);
    }
  g_list_store_splice (self->results, 0, g_list_model_get_n_items (G_LIST_MODEL (self->results)),
                       items->pdata, items->len);
  if (items->len > 0)
    gtk_single_selection_set_selected (self->selection, 0);
}

/* The best plan's cards in Calculon's model, which ranked it. */
static void
bpw_search_dialog_show_calculon_best (BpwSearchDialog               *self,
                                      const BpwCalculonSearchResult *best,
                                      const char                    *plan)
{
  g_autofree char *step = bpw_format_seconds (best->stats.total_time);
  g_autofree char *efficiency = g_strdup_printf ("%.1f %%",
                                                 100.0 * best->stats.total_efficiency);
  g_autofree char *memory = bpw_format_bytes ((guint64) best->stats.proc_mem_tier1_cap_req,
                                              self->units);

  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_STEP_TIME, step);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MFU, efficiency);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MEMORY, memory);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->stat_values[BPW_SEARCH_STAT_STEP_TIME]),
                               _("Step time in Calculon’s model"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->stat_values[BPW_SEARCH_STAT_MFU]),
                               _("Calculon’s total efficiency, its MFU-like figure"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->stat_values[BPW_SEARCH_STAT_MEMORY]),
                               _("Device memory the plan needs in Calculon’s model"));
  gtk_label_set_text (self->best_plan_label, plan != NULL ? plan : "");
  _bpw_search_dialog_set_calculon_stats (self);
}

void
_bpw_search_dialog_show_report (BpwSearchDialog *self)
{
  const BpwSearchReport *r = self->report;
  guint64 range = r->end - r->begin;
  g_autofree char *evaluated = bpw_format_count (r->evaluated);
  g_autofree char *total = bpw_format_count (range);
  g_autofree char *rate = _bpw_search_format_rate (r->evaluated, r->seconds);
  g_autofree char *status = NULL;
  g_autofree char *seconds = bpw_format_seconds (r->seconds);
  double share = range > 0 ? (double) r->evaluated / (double) range : 1.0;

  if (r->cancelled)
    /* Translators: "Stopped after 1,234 of 5,678 plans: the best of those are listed" */
    status = g_strdup_printf (_("Stopped after %s of %s plans: the best of those are listed"),
                              evaluated, total);
  else
    /* Translators: "Searched 5,678 plans in 1.23 s" */
    status = g_strdup_printf (_("Searched %s plans in %s"), total, seconds);
  gtk_label_set_text (self->status_label, status);
  _bpw_search_dialog_set_fraction (self, share);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_EVALUATED, evaluated);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_RATE, rate);
  /* Translators: no time left: the search ended */
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_REMAINING, r->cancelled ? C_("time", "Stopped")
                                                                            : C_("time", "Done"));

  bpw_search_dialog_fill_results (self);
  _bpw_search_dialog_show_calculon_column (self, self->calculon_report != NULL);
  if (g_list_model_get_n_items (G_LIST_MODEL (self->results)) > 0)
    {
      g_autoptr(BpwSearchItem) first = g_list_model_get_item (G_LIST_MODEL (self->results), 0);
      g_autofree char *plan = bpw_search_describe_mapping (bpw_search_item_get_mapping (first),
                                                           self->report_space->blueprint);

      if (self->calculon_report != NULL)
        bpw_search_dialog_show_calculon_best (self, &g_array_index (self->calculon_report->best,
                                                                    BpwCalculonSearchResult, 0),
                                              plan);
      else
        bpw_search_dialog_show_best (self, bpw_search_item_get_estimate (first)->step_time_s,
                                     bpw_search_item_get_evaluation (first), plan);
      gtk_stack_set_visible_child_name (self->results_stack, "table");
    }
  else
    {
      adw_status_page_set_description (self->empty_page,
                                       r->cancelled
                                       ? _("The search was stopped before it found a legal plan.")
                                       : _("No plan of this space fits the blueprint. Free more "
                                           "decisions, or add devices to the scenario."));
      bpw_search_dialog_show_best (self, 0, NULL, NULL);
      gtk_stack_set_visible_child_name (self->results_stack, "empty");
    }
}

static void
bpw_search_dialog_search_cb (GObject      *object,
                             GAsyncResult *result,
                             gpointer      user_data)
{
  BpwSearchDialog *self = BPW_SEARCH_DIALOG (object);
  BpwSearchJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  BpwSearchReport *report = g_task_propagate_pointer (G_TASK (result), &error);

  /* Closed meanwhile: nothing left to show it in. */
  if (self->window == NULL)
    {
      g_clear_pointer (&report, bpw_search_report_free);
      return;
    }
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_clear_object (&self->cancellable);
  self->job = NULL;

  if (report == NULL)
    {
      bpw_toast_show (self->toast_overlay, adw_toast_new (error->message));
      gtk_stack_set_visible_child_name (self->stack, "setup");
    }
  else
    {
      g_clear_pointer (&self->report, bpw_search_report_free);
      g_clear_pointer (&self->report_space, bpw_search_space_free);
      self->report = report;
      /* The job is done with its space: the results name tiers from it. */
      self->report_space = g_steal_pointer (&job->space);
      g_clear_pointer (&self->calculon_report, bpw_calculon_search_report_free);
      _bpw_search_dialog_show_report (self);
    }
  _bpw_search_dialog_update_buttons (self);
  _bpw_search_dialog_notify_running (self);
}

gboolean
bpw_search_dialog_start (BpwSearchDialog *self)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  BpwSearchJob *job;
  BpwSearchLimits limits;

  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), FALSE);

  if (bpw_search_dialog_get_running (self) || self->space == NULL)
    return FALSE;
  if (_bpw_search_dialog_calculon_model (self))
    return !_bpw_search_dialog_sweep_active (self) && _bpw_search_dialog_calculon_start (self);
  if (_bpw_search_dialog_sweep_active (self))
    return _bpw_search_dialog_sweep_start (self);

  /* The worker gets a space of its own: the page rebuilds its space on every change. */
  bpw_search_dialog_get_limits (self, &limits);
  job = g_new0 (BpwSearchJob, 1);
  g_mutex_init (&job->lock);
  bpw_search_dialog_get_options (self, &job->options);
  job->options.progress_ms = BPW_SEARCH_POLL_MS;
  job->space = bpw_search_space_new (&self->run.spec, &self->run.scenario, self->run.blueprint,
                                     &self->run.mapping, self->devices, &limits, &error);
  if (job->space == NULL)
    {
      bpw_search_job_free (job);
      bpw_toast_show (self->toast_overlay, adw_toast_new (error->message));
      return FALSE;
    }
  self->objective = job->options.pareto ? BPW_SEARCH_OBJECTIVE_ENERGY
                                        : BPW_SEARCH_OBJECTIVE_STEP_TIME;

  self->cancellable = g_cancellable_new ();
  self->job = job;
  task = g_task_new (self, self->cancellable, bpw_search_dialog_search_cb, NULL);
  g_task_set_source_tag (task, bpw_search_dialog_start);
  /* The partial result of a cancelled search is wanted, not G_IO_ERROR_CANCELLED. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) bpw_search_job_free);
  g_task_run_in_thread (task, bpw_search_dialog_thread);

  g_list_store_remove_all (self->results);
  _bpw_search_dialog_begin_run (self, FALSE, bpw_search_dialog_poll_cb);
  return TRUE;
}

void
_bpw_search_dialog_begin_run (BpwSearchDialog *self,
                              gboolean         sweep,
                              GSourceFunc      poll)
{
  /* A fresh page: nothing of the last search or sweep stays to be mistaken for this one's. */
  self->sweep_shown = sweep;
  _bpw_search_dialog_set_run_mode (self, sweep);
  gtk_label_set_text (self->status_label, _("Starting…"));
  gtk_label_set_text (self->fraction_label, "");
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  for (guint s = 0; s < BPW_N_SEARCH_STATS; s++)
    _bpw_search_dialog_set_stat (self, s, NULL);
  gtk_label_set_text (self->best_plan_label, "");
  gtk_stack_set_visible_child_name (self->results_stack, "waiting");
  gtk_stack_set_visible_child_name (self->stack, "run");
  self->poll_id = g_timeout_add (BPW_SEARCH_POLL_MS, poll, self);
  _bpw_search_dialog_update_buttons (self);
  _bpw_search_dialog_notify_running (self);
}

void
bpw_search_dialog_cancel (BpwSearchDialog *self)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));

  if (self->cancellable == NULL || g_cancellable_is_cancelled (self->cancellable))
    return;
  g_cancellable_cancel (self->cancellable);
  /* The best found so far may still be simulated before they are listed. */
  gtk_label_set_text (self->status_label, _("Stopping…"));
}

/* Table --------------------------------------------------------------------------------- */

static void
bpw_search_dialog_cell_setup_cb (GtkSignalListItemFactory *factory,
                                 GtkListItem              *item)
{
  BpwSearchColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory),
                                                               "bpw-column"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), bpw_search_column_is_numeric (column) ? 1.0 : 0.0);
  if (bpw_search_column_is_numeric (column))
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bpw_search_dialog_cell_bind_cb (GtkSignalListItemFactory *factory,
                                GtkListItem              *item,
                                BpwSearchDialog          *self)
{
  BpwSearchColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory),
                                                               "bpw-column"));
  BpwSearchItem *result = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = bpw_search_item_format (result, column, self->units);
  g_autofree char *tooltip = bpw_search_item_dup_tooltip (result, column);

  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (label, tooltip);
}

static int
bpw_search_dialog_compare_cb (gconstpointer a,
                              gconstpointer b,
                              gpointer      user_data)
{
  int order = bpw_search_item_compare ((BpwSearchItem *) a, (BpwSearchItem *) b,
                                       GPOINTER_TO_INT (user_data));

  return gtk_ordering_from_cmpfunc (order);
}

/* Every column sorts: the search ranks by the estimate, a click on "Simulated" (or any
 * other heading) orders the plans by that instead. */
static void
bpw_search_dialog_add_columns (BpwSearchDialog *self)
{
  for (guint c = 0; c < BPW_N_SEARCH_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      g_autoptr(GtkCustomSorter) sorter = NULL;

      g_object_set_data (G_OBJECT (factory), "bpw-column", GINT_TO_POINTER (c));
      g_signal_connect (factory, "setup", G_CALLBACK (bpw_search_dialog_cell_setup_cb), NULL);
      g_signal_connect_object (factory, "bind", G_CALLBACK (bpw_search_dialog_cell_bind_cb),
                               self, 0);
      column = gtk_column_view_column_new (bpw_search_column_get_title (c), factory);
      sorter = gtk_custom_sorter_new (bpw_search_dialog_compare_cb, GINT_TO_POINTER (c), NULL);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, c == BPW_SEARCH_COLUMN_ALGORITHMS);
      gtk_column_view_append_column (self->column_view, column);
    }
}

static GtkLabel *
bpw_search_dialog_add_stat (BpwSearchDialog *self,
                            const char      *caption)
{
  GtkWidget *cell = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *title = gtk_label_new (caption);
  GtkWidget *value = gtk_label_new ("—");

  gtk_widget_add_css_class (cell, "card");
  gtk_widget_add_css_class (cell, "search-stat");
  gtk_label_set_xalign (GTK_LABEL (title), 0.0);
  gtk_widget_add_css_class (title, "caption-heading");
  gtk_widget_add_css_class (title, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (value), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (value), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (value, "title-3");
  gtk_widget_add_css_class (value, "numeric");
  gtk_box_append (GTK_BOX (cell), title);
  gtk_box_append (GTK_BOX (cell), value);
  gtk_box_append (self->stats_box, cell);
  return GTK_LABEL (value);
}

static void
bpw_search_dialog_selection_cb (BpwSearchDialog *self)
{
  _bpw_search_dialog_update_buttons (self);
}

void
_bpw_search_dialog_run_init (BpwSearchDialog *self)
{
  self->stat_values[BPW_SEARCH_STAT_EVALUATED] =
    bpw_search_dialog_add_stat (self, _("Plans Evaluated"));
  self->stat_values[BPW_SEARCH_STAT_RATE] = bpw_search_dialog_add_stat (self, _("Rate"));
  self->stat_values[BPW_SEARCH_STAT_REMAINING] =
    bpw_search_dialog_add_stat (self, _("Time Left"));
  self->stat_values[BPW_SEARCH_STAT_STEP_TIME] =
    bpw_search_dialog_add_stat (self, _("Best Step Time"));
  /* Translators: model FLOPs utilisation of the best plan */
  self->stat_values[BPW_SEARCH_STAT_MFU] = bpw_search_dialog_add_stat (self, _("Best MFU"));
  self->stat_values[BPW_SEARCH_STAT_MEMORY] =
    bpw_search_dialog_add_stat (self, _("Peak Memory"));

  self->results = g_list_store_new (BPW_TYPE_SEARCH_ITEM);
  bpw_search_dialog_add_columns (self);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->results)),
                                          g_object_ref (gtk_column_view_get_sorter (
                                            self->column_view)));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  g_signal_connect_object (self->selection, "notify::selected",
                           G_CALLBACK (bpw_search_dialog_selection_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  _bpw_search_dialog_show_calculon_column (self, FALSE);
}

void
_bpw_search_dialog_show_columns (BpwSearchDialog *self,
                                 gboolean         experts,
                                 gboolean         context,
                                 gboolean         offload,
                                 gboolean         energy)
{
  GListModel *columns = gtk_column_view_get_columns (self->column_view);
  const struct { BpwSearchColumn column; gboolean shown; } shown[] = {
    { BPW_SEARCH_COLUMN_EP, experts },
    { BPW_SEARCH_COLUMN_CP, context },
    { BPW_SEARCH_COLUMN_OFFLOAD, offload },
    { BPW_SEARCH_COLUMN_ENERGY, energy },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shown); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, shown[i].column);

      gtk_column_view_column_set_visible (column, shown[i].shown);
    }
}

void
_bpw_search_dialog_run_dispose (BpwSearchDialog *self)
{
  /* The task holds the dialog until the worker returns; the callback then finds it closed. */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  self->job = NULL;
  if (self->column_view != NULL)
    gtk_column_view_set_model (self->column_view, NULL);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->results);
  g_clear_pointer (&self->report, bpw_search_report_free);
  g_clear_pointer (&self->report_space, bpw_search_space_free);
  g_clear_pointer (&self->calculon_report, bpw_calculon_search_report_free);
}

void
_bpw_search_dialog_set_calculon_stats (BpwSearchDialog *self)
{
  GtkWidget *caption = gtk_widget_get_prev_sibling (GTK_WIDGET (
                                                      self->stat_values[BPW_SEARCH_STAT_MFU]));

  /* Translators: Calculon's total efficiency of the best plan (its MFU-like figure) */
  gtk_label_set_text (GTK_LABEL (caption), _("Best Efficiency"));
}

void
_bpw_search_dialog_show_calculon_column (BpwSearchDialog *self,
                                         gboolean         shown)
{
  GListModel *columns = gtk_column_view_get_columns (self->column_view);
  g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns,
                                                                 BPW_SEARCH_COLUMN_CALCULON);

  gtk_column_view_column_set_visible (column, shown);
}
