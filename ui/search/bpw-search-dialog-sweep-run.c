/* bpw-search-dialog-sweep-run.c — the sweep in a worker thread, its progress, its points
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sweep searches the baseline and then every point of the grid, each a whole search of
 * the space, so it runs in a GTask thread on a BpwSweep the dialog does not touch until it
 * returns. Its progress callback (in that thread) copies the progress under a lock, and
 * keeps the baseline's best step time and the best of the points finished so far: each
 * search's end reports that search's result. The main thread reads the copy from a
 * 100 ms timeout, as for a search, and shows it in the same cells, captioned for a sweep.
 * When the sweep ends (or is stopped), its points are listed, one row each.
 */
#define G_LOG_DOMAIN "bpw-search-dialog-sweep-run"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-search-dialog-private.h"
#include "bpw-sweep-item.h"
#include "bpw-toast.h"

/* Progress reports as often as the page reads them (bpw-search-dialog-run.c). */
#define BPW_SWEEP_POLL_MS 100

struct _BpwSweepJob
{
  BpwSweep          *sweep;        /* owned; the worker thread's while it runs */
  BpwSearchOptions   options;

  GMutex             lock;
  /* Under @lock */
  BpwSweepProgress   progress;
  gboolean           has_progress;
  double             baseline_s;   /* the baseline's best step time; NaN before */
  double             best_s;       /* the fastest point's so far; NaN before */
};

static void
bpw_sweep_job_free (BpwSweepJob *job)
{
  g_clear_pointer (&job->sweep, bpw_sweep_free);
  g_mutex_clear (&job->lock);
  g_free (job);
}

/* In the worker thread. */
static void
bpw_sweep_job_progress_cb (const BpwSweepProgress *progress,
                           gpointer                user_data)
{
  BpwSweepJob *job = user_data;
  /* A search has just ended: the report carries its own best. */
  gboolean ended = progress->done == progress->search + 1;

  g_mutex_lock (&job->lock);
  job->progress = *progress;
  job->has_progress = TRUE;
  if (ended && progress->current.has_best && progress->search == 0)
    job->baseline_s = progress->current.best_step_time_s;
  else if (ended && progress->current.has_best
           && !(progress->current.best_step_time_s >= job->best_s))
    job->best_s = progress->current.best_step_time_s;
  g_mutex_unlock (&job->lock);
}

static void
bpw_sweep_dialog_thread (GTask        *task,
                         gpointer      source_object,
                         gpointer      task_data,
                         GCancellable *cancellable)
{
  BpwSweepJob *job = task_data;
  g_autoptr(GError) error = NULL;

  /* A stopped sweep still returns the points it searched: a result, not an error. */
  if (bpw_sweep_run_with_progress (job->sweep, &job->options, bpw_sweep_job_progress_cb, job,
                                   cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static const char *
bpw_search_stat_title (BpwSearchStat stat,
                       gboolean      sweep)
{
  switch (stat)
    {
    case BPW_SEARCH_STAT_EVALUATED:
      /* Translators: which search of a sweep runs: "Baseline", "2 of 3" */
      return sweep ? C_("sweep", "Point") : _("Plans Evaluated");
    case BPW_SEARCH_STAT_RATE:
      return sweep ? _("Plans Evaluated") : _("Rate");
    case BPW_SEARCH_STAT_REMAINING:
      return sweep ? _("Rate") : _("Time Left");
    case BPW_SEARCH_STAT_STEP_TIME:
      return sweep ? _("Time Left") : _("Best Step Time");
    case BPW_SEARCH_STAT_MFU:
      /* Translators: the best step time of the blueprint as it is (a sweep's caption) */
      return sweep ? _("Baseline Step Time")
      /* Translators: model FLOPs utilisation of the best plan */
                   : _("Best MFU");
    case BPW_SEARCH_STAT_MEMORY:
      /* Translators: the largest gain in throughput of a sweep point over the baseline */
      return sweep ? _("Best Gain") : _("Peak Memory");
    case BPW_N_SEARCH_STATS:
    default:
      g_return_val_if_reached ("?");
    }
}

void
_bpw_search_dialog_set_run_mode (BpwSearchDialog *self,
                                 gboolean         sweep)
{
  for (guint s = 0; s < BPW_N_SEARCH_STATS; s++)
    {
      /* Each cell is a caption over its value (bpw_search_dialog_add_stat()). */
      GtkWidget *caption = gtk_widget_get_prev_sibling (GTK_WIDGET (self->stat_values[s]));

      gtk_label_set_text (GTK_LABEL (caption), bpw_search_stat_title (s, sweep));
    }
  adw_status_page_set_title (self->waiting_page, sweep ? _("Sweeping…") : _("Searching…"));
  adw_status_page_set_description (self->waiting_page, sweep
                                   ? _("The points are listed here when the sweep ends or is "
                                       "stopped.")
                                   : _("The best plans are listed here when the search ends "
                                       "or is stopped."));
}

static char *
bpw_sweep_format_gain (double baseline_s,
                       double best_s)
{
  if (!(baseline_s > 0) || !(best_s > 0))
    return NULL;
  /* Translators: a gain in throughput over the baseline, "×1.43" */
  return g_strdup_printf (_("×%.2f"), baseline_s / best_s);
}

/* The figures of the cells: where the sweep is, and the baseline and best gain so far. */
static void
bpw_search_dialog_show_sweep_stats (BpwSearchDialog        *self,
                                    const BpwSweepProgress *p,
                                    double                  baseline_s,
                                    double                  best_s)
{
  g_autofree char *point = NULL;
  g_autofree char *decided = bpw_format_count (p->decided);
  g_autofree char *rate = _bpw_search_format_rate (p->decided, p->elapsed_s);
  g_autofree char *remaining = _bpw_search_format_remaining (p->remaining_s);
  g_autofree char *baseline = baseline_s > 0 ? bpw_format_seconds (baseline_s) : NULL;
  g_autofree char *gain = bpw_sweep_format_gain (baseline_s, best_s);
  guint n_points = p->n_searches - 1;
  guint at = MIN (p->done == p->search ? p->search : p->done - 1, n_points);

  if (at == 0)
    /* Translators: the sweep searches the unchanged blueprint first */
    point = g_strdup (C_("sweep", "Baseline"));
  else
    /* Translators: the sweep's point being searched, "2 of 3" */
    point = g_strdup_printf (_("%u of %u"), at, n_points);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_EVALUATED, point);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_RATE, decided);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_REMAINING, rate);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_STEP_TIME, remaining);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MFU, baseline);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_MEMORY, gain);
}

static gboolean
bpw_search_dialog_sweep_poll_cb (gpointer user_data)
{
  BpwSearchDialog *self = user_data;
  BpwSweepJob *job = self->sweep_job;
  BpwSweepProgress p;
  double baseline_s, best_s, share;
  gboolean has_progress;
  g_autofree char *status = NULL;

  g_mutex_lock (&job->lock);
  p = job->progress;
  has_progress = job->has_progress;
  baseline_s = job->baseline_s;
  best_s = job->best_s;
  g_mutex_unlock (&job->lock);
  if (!has_progress || g_cancellable_is_cancelled (self->cancellable))
    return G_SOURCE_CONTINUE;

  share = p.done == p.search && p.current.total > 0
          ? (double) p.current.decided / (double) p.current.total : 0.0;
  if (p.search == 0)
    status = g_strdup (_("Searching the baseline…"));
  else
    /* Translators: "Searching point 2 of 3…" */
    status = g_strdup_printf (_("Searching point %u of %u…"), p.search, p.n_searches - 1);
  gtk_label_set_text (self->status_label, status);
  _bpw_search_dialog_set_fraction (self, ((double) p.done + share) / (double) p.n_searches);
  bpw_search_dialog_show_sweep_stats (self, &p, baseline_s, best_s);
  return G_SOURCE_CONTINUE;
}

/* Columns ------------------------------------------------------------------------------- */

static void
bpw_search_dialog_sweep_setup_cb (GtkSignalListItemFactory *factory,
                                  GtkListItem              *item)
{
  gboolean numeric = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "bpw-numeric"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  /* The best plan's decisions run long: the cell ends in "…", its tooltip has them all. */
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 56);
  gtk_list_item_set_child (item, label);
}

static void
bpw_search_dialog_sweep_bind_cb (GtkSignalListItemFactory *factory,
                                 GtkListItem              *item)
{
  /* "bpw-param": a parameter's column, from 1; else "bpw-column" is a BpwSweepColumn. */
  guint param = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (factory), "bpw-param"));
  BpwSweepColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory),
                                                              "bpw-column"));
  BpwSweepItem *point = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = param > 0 ? bpw_sweep_item_format_value (point, param - 1)
                                    : bpw_sweep_item_format (point, column);
  g_autofree char *tooltip = param > 0 ? NULL : bpw_sweep_item_dup_tooltip (point, column);
  gboolean unknown = param == 0 && (column == BPW_SWEEP_COLUMN_ARCHITECTURE
                                    || column == BPW_SWEEP_COLUMN_MAPPING
                                    || column == BPW_SWEEP_COLUMN_LEGAL) && tooltip != NULL;

  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (label, tooltip);
  /* "total only" and "No legal plan" are remarks, not numbers. */
  if (unknown)
    gtk_widget_add_css_class (label, "dim-label");
  else
    gtk_widget_remove_css_class (label, "dim-label");
}

static void
bpw_search_dialog_sweep_column (BpwSearchDialog *self,
                                const char      *title,
                                guint            param,
                                BpwSweepColumn   column,
                                gboolean         numeric)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkColumnViewColumn) view_column = NULL;

  g_object_set_data (G_OBJECT (factory), "bpw-param", GUINT_TO_POINTER (param));
  g_object_set_data (G_OBJECT (factory), "bpw-column", GINT_TO_POINTER (column));
  g_object_set_data (G_OBJECT (factory), "bpw-numeric", GINT_TO_POINTER (numeric));
  g_signal_connect (factory, "setup", G_CALLBACK (bpw_search_dialog_sweep_setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bpw_search_dialog_sweep_bind_cb), NULL);
  view_column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_resizable (view_column, TRUE);
  gtk_column_view_column_set_expand (view_column, param == 0 && column == BPW_SWEEP_COLUMN_PLAN);
  gtk_column_view_append_column (self->sweep_view, view_column);
}

/* A column per parameter of @sweep, then the point's figures. */
static void
bpw_search_dialog_sweep_columns (BpwSearchDialog *self,
                                 BpwSweep        *sweep)
{
  GListModel *columns = gtk_column_view_get_columns (self->sweep_view);

  while (g_list_model_get_n_items (columns) > 0)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, 0);

      gtk_column_view_remove_column (self->sweep_view, column);
    }
  bpw_search_dialog_sweep_column (self, bpw_sweep_column_get_title (BPW_SWEEP_COLUMN_POINT), 0,
                                  BPW_SWEEP_COLUMN_POINT, TRUE);
  for (guint i = 0; i < bpw_sweep_get_n_params (sweep); i++)
    {
      gint tier;
      BpwSweepParam param = bpw_sweep_get_param (sweep, i, &tier);
      g_autofree char *title = bpw_sweep_param_title (param, param == BPW_SWEEP_LINK_BANDWIDTH
                                                             ? self->run.blueprint->tiers[tier].name
                                                             : NULL);

      bpw_search_dialog_sweep_column (self, title, i + 1, 0, TRUE);
    }
  for (BpwSweepColumn c = BPW_SWEEP_COLUMN_STEP_TIME; c < BPW_N_SWEEP_COLUMNS; c++)
    bpw_search_dialog_sweep_column (self, bpw_sweep_column_get_title (c), 0, c,
                                    bpw_sweep_column_is_numeric (c));
}

/* Results ------------------------------------------------------------------------------- */

static void
bpw_search_dialog_show_sweep (BpwSearchDialog *self,
                              double           seconds)
{
  BpwSweep *sweep = self->sweep;
  const BpwSearchReport *baseline = bpw_sweep_get_baseline (sweep);
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  BpwSweepProgress done = { 0 };
  double baseline_s = NAN, best_s = NAN;
  guint n = bpw_sweep_get_n_points (sweep), searched = 0, legal = 0;
  g_autofree char *status = NULL;
  g_autofree char *elapsed = bpw_format_seconds (seconds);

  bpw_search_dialog_sweep_columns (self, sweep);
  for (guint i = 0; i < n; i++)
    {
      BpwSweepItem *item = bpw_sweep_item_new (sweep, i);

      searched += bpw_sweep_item_get_searched (item);
      legal += bpw_sweep_item_get_has_best (item);
      if (bpw_sweep_item_get_has_best (item)
          && !(bpw_sweep_item_get_step_time (item) >= best_s))
        best_s = bpw_sweep_item_get_step_time (item);
      done.decided += bpw_sweep_get_point (sweep, i)->report != NULL
                      ? bpw_sweep_get_point (sweep, i)->report->evaluated : 0;
      g_ptr_array_add (items, item);
    }
  g_list_store_splice (self->sweep_points, 0,
                       g_list_model_get_n_items (G_LIST_MODEL (self->sweep_points)),
                       items->pdata, items->len);

  if (baseline != NULL && baseline->best->len > 0)
    {
      const BpwSearchResult *b = &g_array_index (baseline->best, BpwSearchResult, 0);
      g_autofree char *plan = bpw_search_describe_mapping (&b->mapping, self->run.blueprint);
      g_autofree char *text = g_strdup_printf (_("Baseline, the blueprint as it is: %s"), plan);

      baseline_s = b->estimate.step_time_s;
      gtk_label_set_text (self->best_plan_label, text);
    }
  else
    gtk_label_set_text (self->best_plan_label,
                        _("The baseline has no legal plan: gains are not known"));

  done.decided += baseline != NULL ? baseline->evaluated : 0;
  done.n_searches = n + 1;
  /* As when the last point searched has just ended. */
  done.search = searched;
  done.done = searched + 1;
  done.elapsed_s = seconds;
  done.remaining_s = NAN;
  bpw_search_dialog_show_sweep_stats (self, &done, baseline_s, best_s);
  _bpw_search_dialog_set_stat (self, BPW_SEARCH_STAT_STEP_TIME,
                               searched < n ? C_("time", "Stopped") : C_("time", "Done"));
  _bpw_search_dialog_set_fraction (self, (double) (searched + 1) / (double) (n + 1));
  if (searched < n)
    /* Translators: "Stopped after 2 of 5 points: those are listed" */
    status = g_strdup_printf (_("Stopped after %u of %u points: those are listed"), searched, n);
  else
    /* Translators: "Swept 3 points in 12.3 s" */
    status = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Swept %u point in %s",
                                           "Swept %u points in %s", n), n, elapsed);
  gtk_label_set_text (self->status_label, status);

  if (legal > 0)
    gtk_stack_set_visible_child_name (self->results_stack, "sweep");
  else
    {
      adw_status_page_set_description (self->empty_page, searched < n
                                       ? _("The sweep was stopped before a point had a legal "
                                           "plan.")
                                       : _("No point of the sweep has a legal plan in this "
                                           "space. Free more decisions, or sweep other "
                                           "values."));
      gtk_stack_set_visible_child_name (self->results_stack, "empty");
    }
}

static void
bpw_search_dialog_sweep_cb (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  BpwSearchDialog *self = BPW_SEARCH_DIALOG (object);
  BpwSweepJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);
  double seconds;

  /* Closed meanwhile: nothing left to show it in. */
  if (self->window == NULL)
    return;
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_clear_object (&self->cancellable);
  self->sweep_job = NULL;

  if (!ok)
    {
      bpw_toast_show (self->toast_overlay, adw_toast_new (error->message));
      gtk_stack_set_visible_child_name (self->stack, "setup");
    }
  else
    {
      g_mutex_lock (&job->lock);
      seconds = job->progress.elapsed_s;
      g_mutex_unlock (&job->lock);
      g_clear_pointer (&self->sweep, bpw_sweep_free);
      self->sweep = g_steal_pointer (&job->sweep);
      bpw_search_dialog_show_sweep (self, seconds);
    }
  _bpw_search_dialog_update_buttons (self);
  _bpw_search_dialog_notify_running (self);
}

gboolean
_bpw_search_dialog_sweep_start (BpwSearchDialog *self)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) params = bpw_search_dialog_dup_sweep_params (self, &error);
  BpwSweepJob *job;
  BpwSearchLimits limits;
  BpwSweep *sweep = NULL;

  bpw_search_dialog_get_limits (self, &limits);
  if (params != NULL)
    sweep = bpw_sweep_new (&self->run.spec, &self->run.scenario, self->run.blueprint,
                           &self->run.mapping, self->devices, &limits,
                           (const char * const *) params, &error);
  if (sweep == NULL)
    {
      bpw_toast_show (self->toast_overlay, adw_toast_new (error->message));
      return FALSE;
    }

  job = g_new0 (BpwSweepJob, 1);
  g_mutex_init (&job->lock);
  job->sweep = sweep;
  job->baseline_s = NAN;
  job->best_s = NAN;
  /* A point's gain needs its best plan only, by step time, and its analytic estimate:
   * one plan per point, re-evaluated for the Pareto marks, not simulated. */
  bpw_search_dialog_get_options (self, &job->options);
  job->options.top_k = 1;
  job->options.pareto = FALSE;
  job->options.simulate = FALSE;
  job->options.progress_ms = BPW_SWEEP_POLL_MS;

  self->cancellable = g_cancellable_new ();
  self->sweep_job = job;
  task = g_task_new (self, self->cancellable, bpw_search_dialog_sweep_cb, NULL);
  g_task_set_source_tag (task, _bpw_search_dialog_sweep_start);
  /* The points of a stopped sweep are wanted, not G_IO_ERROR_CANCELLED. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) bpw_sweep_job_free);
  g_task_run_in_thread (task, bpw_sweep_dialog_thread);

  self->sweep_in_pages = FALSE;
  g_clear_pointer (&self->sweep, bpw_sweep_free);
  g_list_store_remove_all (self->sweep_points);
  _bpw_search_dialog_begin_run (self, TRUE, bpw_search_dialog_sweep_poll_cb);
  return TRUE;
}

void
_bpw_search_dialog_sweep_run_init (BpwSearchDialog *self)
{
  self->sweep_rows = g_ptr_array_new ();
  self->sweep_points = g_list_store_new (BPW_TYPE_SWEEP_ITEM);
  self->sweep_selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->sweep_points)));
  gtk_column_view_set_model (self->sweep_view, GTK_SELECTION_MODEL (self->sweep_selection));
}

void
_bpw_search_dialog_sweep_run_dispose (BpwSearchDialog *self)
{
  /* The task holds the dialog until the worker returns; run_dispose cancelled it. */
  self->sweep_job = NULL;
  if (self->sweep_view != NULL)
    gtk_column_view_set_model (self->sweep_view, NULL);
  g_clear_object (&self->sweep_selection);
  g_clear_object (&self->sweep_points);
  g_clear_pointer (&self->sweep, bpw_sweep_free);
  g_clear_pointer (&self->sweep_rows, g_ptr_array_unref);
}

BpwSweep *
bpw_search_dialog_get_sweep (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return self->sweep;
}

GListModel *
bpw_search_dialog_get_sweep_points (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return G_LIST_MODEL (self->sweep_points);
}
