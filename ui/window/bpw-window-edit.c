/* bpw-window-edit.c — edits, undo and redo, and the selection the pages share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every edit is a BpwStudyEdit: the part of the study it changes, before and after. The
 * window applies it, keeps it for undo, and updates the pages in the background: the
 * Overview recomputes only what the edit changed (bpw-window-compute.c), the Sheet binds
 * its plan again only when its candidate's inputs changed. The time from the edit until
 * both show the result is kept for the benchmark (bench/bench-edit.c).
 */
#define G_LOG_DOMAIN "bpw-window-edit"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-window-private.h"

static gboolean
bpw_window_inspector_apply_cb (BpwStudyEdit  *edit,
                               gpointer       user_data,
                               GError       **error)
{
  return bpw_window_apply_edit (BPW_WINDOW (user_data), edit, error);
}

static void
bpw_window_edit_done (BpwWindow *self,
                      guint      done)
{
  if (self->pending == 0)
    return;
  self->pending &= ~done;
  if (self->pending != 0)
    return;
  self->edit_latency_ms = (g_get_monotonic_time () - self->edit_started) / 1000.0;
  g_debug ("edit → Overview and Sheet updated in %.1f ms (%u facts, %u evaluations, "
           "%u items kept, %u plans bound so far)", self->edit_latency_ms, self->stats.facts,
           self->stats.evaluations, self->stats.reused,
           bpw_sheet_page_get_n_binds (self->sheet_page));
}

static void
bpw_window_sheet_busy_cb (BpwWindow *self)
{
  if (!bpw_sheet_page_get_busy (self->sheet_page))
    bpw_window_edit_done (self, BPW_WINDOW_PENDING_SHEET);
}

static void
bpw_window_update_edit_actions (BpwWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo", self->undo->len > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.redo", self->redo->len > 0);
}

/* The inspected candidate's evaluation, from the Overview's items (candidate-major). */
static void
bpw_window_update_inspected_evaluation (BpwWindow *self)
{
  guint n_scenarios = self->study != NULL ? bpw_study_get_n_scenarios (self->study) : 0;
  guint position = self->selected_candidate * n_scenarios + self->selected_scenario;
  g_autoptr(BpwOverviewItem) item = NULL;

  if (self->selected_candidate != G_MAXUINT && self->selected_scenario != G_MAXUINT
      && position < g_list_model_get_n_items (G_LIST_MODEL (self->overview_items)))
    item = g_list_model_get_item (G_LIST_MODEL (self->overview_items), position);
  bpw_inspector_set_evaluation (self->inspector,
                                item != NULL ? bpw_overview_item_get_evaluation (item) : NULL);
}

/* What the sidebar shows of values an edit can change: which blueprints the study holds
 * edited, which candidates have their own mapping, and how many devices each scenario
 * takes. */
static char *
bpw_window_sidebar_signature (BpwWindow *self)
{
  const char * const *blueprints = bpw_study_get_blueprints (self->study);
  GString *signature = g_string_new (NULL);

  for (guint i = 0; blueprints[i] != NULL; i++)
    g_string_append_c (signature,
                       bpw_study_lookup_inline_blueprint (self->study, blueprints[i]) != NULL
                       ? 'e' : '-');
  for (guint i = 0; i < bpw_study_get_n_candidates (self->study); i++)
    {
      const BpwStudyCandidate *c = bpw_study_get_candidate (self->study, i);

      g_string_append_c (signature,
                         json_object_get_size (json_node_get_object (c->mapping)) > 0
                         || json_object_get_size (json_node_get_object (c->mappings)) > 0
                         ? 'm' : '-');
    }
  for (guint i = 0; i < bpw_study_get_n_scenarios (self->study); i++)
    g_string_append_printf (signature, " %" G_GINT64_FORMAT,
                            bpw_parallel_devices (&bpw_study_get_scenario (self->study,
                                                                           i)->parallel));
  return g_string_free (signature, FALSE);
}

/* After an edit, undo or redo: everything that shows the study follows it. */
static void
bpw_window_edited (BpwWindow *self)
{
  g_autofree char *signature = NULL;

  /* The workers first, then the widgets on the main thread while they compute. */
  self->edit_latency_ms = -1.0;
  self->pending = BPW_WINDOW_PENDING_OVERVIEW;
  if (bpw_sheet_page_refresh (self->sheet_page))
    self->pending |= BPW_WINDOW_PENDING_SHEET;
  _bpw_window_charts_update (self);
  _bpw_window_compute (self);

  /* Sidebar subtitles say which blueprints are edited and how many devices a scenario
   * takes; rebuilding keeps its selection, which is not a new choice of the user. Most
   * edits change neither, and rebuilding the list costs a frame. */
  signature = bpw_window_sidebar_signature (self);
  if (g_strcmp0 (signature, self->sidebar_signature) != 0)
    {
      self->selecting = TRUE;
      bpw_sidebar_set_study (self->sidebar, self->study);
      self->selecting = FALSE;
      g_free (self->sidebar_signature);
      self->sidebar_signature = g_steal_pointer (&signature);
    }
  bpw_inspector_refresh (self->inspector);
  /* Undo and redo change the review data behind its window's back. */
  if (_bpw_window_get_review_dialog (self) != NULL)
    bpw_review_dialog_refresh (_bpw_window_get_review_dialog (self));
  _bpw_window_set_modified (self, self->undo->len != self->saved_depth);
  bpw_window_update_edit_actions (self);
}

/* A candidate added (promoted from a search) or removed (that undone): the Sheet lists the
 * candidates, and the selection must stay among them. */
static void
bpw_window_candidates_changed (BpwWindow          *self,
                               const BpwStudyEdit *edit)
{
  guint n = bpw_study_get_n_candidates (self->study);

  if (bpw_study_edit_get_kind (edit) != BPW_STUDY_EDIT_CANDIDATE)
    return;
  if (self->selected_candidate != G_MAXUINT && self->selected_candidate >= n)
    self->selected_candidate = n > 0 ? n - 1 : G_MAXUINT;
  self->selecting = TRUE;
  bpw_sheet_page_set_study (self->sheet_page, self->study);
  self->selecting = FALSE;
  _bpw_window_sync_selection (self);
}

gboolean
bpw_window_apply_edit (BpwWindow     *self,
                       BpwStudyEdit  *edit,
                       GError       **error)
{
  g_autoptr(BpwStudyEdit) owned = edit;

  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (edit != NULL, FALSE);

  self->edit_started = g_get_monotonic_time ();
  if (self->study == NULL || !bpw_study_edit_apply (edit, self->study, error))
    return FALSE;

  /* A mapping the inspected scenario cannot even be set up with (a TP that does not divide
   * the heads, say) is refused where it was typed; one that sets up but does not fit is an
   * illegal plan, shown with its reasons. */
  if (bpw_study_edit_get_kind (edit) == BPW_STUDY_EDIT_MAPPING
      && self->selected_scenario < bpw_study_get_n_scenarios (self->study))
    {
      g_autoptr(GError) local_error = NULL;
      BpwCandidateRun run;
      gboolean ok = bpw_candidate_run_init (&run, self->study, bpw_study_edit_get_index (edit),
                                            self->selected_scenario, &local_error);

      bpw_candidate_run_clear (&run);
      if (!ok)
        {
          bpw_study_edit_revert (edit, self->study, NULL);
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
    }

  g_ptr_array_add (self->undo, g_steal_pointer (&owned));
  g_ptr_array_set_size (self->redo, 0);
  /* The saved state can no longer be reached by undoing once it was undone past. */
  if (self->saved_depth != G_MAXUINT && self->saved_depth >= self->undo->len)
    self->saved_depth = G_MAXUINT;
  bpw_window_candidates_changed (self, edit);
  bpw_window_edited (self);
  return TRUE;
}

static gboolean
bpw_window_step (BpwWindow *self,
                 gboolean   undo)
{
  GPtrArray *from = undo ? self->undo : self->redo;
  GPtrArray *to = undo ? self->redo : self->undo;
  g_autoptr(GError) error = NULL;
  BpwStudyEdit *edit;
  gboolean ok;

  if (self->study == NULL || from->len == 0)
    return FALSE;
  self->edit_started = g_get_monotonic_time ();
  edit = g_ptr_array_steal_index (from, from->len - 1);
  ok = undo ? bpw_study_edit_revert (edit, self->study, &error)
            : bpw_study_edit_apply (edit, self->study, &error);
  if (!ok)
    {
      /* Cannot happen with edits this window made; never leave a half-undone history. */
      _bpw_window_show_toast (self, error->message);
      bpw_study_edit_free (edit);
      g_ptr_array_set_size (self->undo, 0);
      g_ptr_array_set_size (self->redo, 0);
      self->saved_depth = G_MAXUINT;
      bpw_window_update_edit_actions (self);
      return FALSE;
    }
  g_ptr_array_add (to, edit);
  bpw_window_candidates_changed (self, edit);
  bpw_window_edited (self);
  return TRUE;
}

gboolean
bpw_window_undo (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return bpw_window_step (self, TRUE);
}

gboolean
bpw_window_redo (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return bpw_window_step (self, FALSE);
}

gboolean
bpw_window_get_can_undo (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return self->undo->len > 0;
}

gboolean
bpw_window_get_can_redo (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return self->redo->len > 0;
}

static void
bpw_window_undo_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  bpw_window_undo (BPW_WINDOW (widget));
}

static void
bpw_window_redo_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  bpw_window_redo (BPW_WINDOW (widget));
}

void
_bpw_window_computed (BpwWindow *self)
{
  bpw_window_update_inspected_evaluation (self);
  bpw_window_edit_done (self, BPW_WINDOW_PENDING_OVERVIEW);
}

/* Selection ------------------------------------------------------------------------- */

void
_bpw_window_sync_selection (BpwWindow *self)
{
  if (self->study == NULL)
    return;
  self->selecting = TRUE;
  bpw_sheet_page_select (self->sheet_page, self->selected_candidate, self->selected_scenario);
  _bpw_window_charts_update (self);
  if (self->selected_candidate != G_MAXUINT && self->selected_scenario != G_MAXUINT)
    bpw_overview_page_select (self->overview_page,
                              bpw_study_get_candidate (self->study,
                                                       self->selected_candidate)->name,
                              bpw_study_get_scenario (self->study,
                                                      self->selected_scenario)->name);
  bpw_inspector_set_selection (self->inspector, self->selected_candidate,
                               self->selected_scenario, self->selected_blueprint);
  bpw_window_update_inspected_evaluation (self);
  self->selecting = FALSE;
}

void
bpw_window_select (BpwWindow *self,
                   guint      candidate,
                   guint      scenario)
{
  g_return_if_fail (BPW_IS_WINDOW (self));

  if (self->study == NULL)
    return;
  if (candidate != G_MAXUINT && candidate < bpw_study_get_n_candidates (self->study))
    {
      self->selected_candidate = candidate;
      g_clear_pointer (&self->selected_blueprint, g_free);
    }
  if (scenario != G_MAXUINT && scenario < bpw_study_get_n_scenarios (self->study))
    self->selected_scenario = scenario;
  _bpw_window_sync_selection (self);
}

void
bpw_window_select_blueprint (BpwWindow  *self,
                             const char *name)
{
  g_return_if_fail (BPW_IS_WINDOW (self));

  g_free (self->selected_blueprint);
  self->selected_blueprint = g_strdup (name);
  _bpw_window_sync_selection (self);
}

guint
bpw_window_get_selected_candidate (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), G_MAXUINT);
  return self->selected_candidate;
}

guint
bpw_window_get_selected_scenario (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), G_MAXUINT);
  return self->selected_scenario;
}

static void
bpw_window_overview_selected_cb (BpwWindow *self)
{
  BpwOverviewItem *item = bpw_overview_page_get_selected_item (self->overview_page);
  guint candidate = G_MAXUINT, scenario = G_MAXUINT;

  if (self->selecting || item == NULL || self->study == NULL)
    return;
  for (guint c = 0; c < bpw_study_get_n_candidates (self->study); c++)
    if (g_strcmp0 (bpw_study_get_candidate (self->study, c)->name,
                   bpw_overview_item_get_candidate (item)) == 0)
      candidate = c;
  bpw_study_lookup_scenario (self->study, bpw_overview_item_get_scenario_name (item), &scenario);
  bpw_window_select (self, candidate, scenario);
}

static void
bpw_window_sheet_selected_cb (BpwWindow *self)
{
  if (!self->selecting)
    bpw_window_select (self, bpw_sheet_page_get_candidate (self->sheet_page),
                       bpw_sheet_page_get_scenario (self->sheet_page));
}

void
_bpw_window_edit_reset (BpwWindow *self)
{
  gboolean any = self->study != NULL;

  g_ptr_array_set_size (self->undo, 0);
  g_ptr_array_set_size (self->redo, 0);
  self->saved_depth = 0;
  self->pending = 0;
  self->edit_latency_ms = -1.0;
  g_clear_pointer (&self->selected_blueprint, g_free);
  g_clear_pointer (&self->sidebar_signature, g_free);
  if (any)
    self->sidebar_signature = bpw_window_sidebar_signature (self);
  self->selected_candidate = any && bpw_study_get_n_candidates (self->study) > 0 ? 0 : G_MAXUINT;
  self->selected_scenario = any && bpw_study_get_n_scenarios (self->study) > 0 ? 0 : G_MAXUINT;
  bpw_inspector_set_study (self->inspector, self->study);
  bpw_window_update_edit_actions (self);
  _bpw_window_sync_selection (self);
}

void
_bpw_window_class_edit_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, bpw_window_undo_action);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, bpw_window_redo_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK,
                                       "win.undo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.redo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_y, GDK_CONTROL_MASK,
                                       "win.redo", NULL);
}

void
_bpw_window_edit_init (BpwWindow *self)
{
  self->undo = g_ptr_array_new_with_free_func ((GDestroyNotify) bpw_study_edit_free);
  self->redo = g_ptr_array_new_with_free_func ((GDestroyNotify) bpw_study_edit_free);
  self->selected_candidate = G_MAXUINT;
  self->selected_scenario = G_MAXUINT;
  self->edit_latency_ms = -1.0;
  bpw_inspector_set_apply_func (self->inspector, bpw_window_inspector_apply_cb, self);
  g_signal_connect_object (self->sheet_page, "notify::busy",
                           G_CALLBACK (bpw_window_sheet_busy_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sheet_page, "notify::candidate",
                           G_CALLBACK (bpw_window_sheet_selected_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sheet_page, "notify::scenario",
                           G_CALLBACK (bpw_window_sheet_selected_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->overview_page, "notify::selected-item",
                           G_CALLBACK (bpw_window_overview_selected_cb), self,
                           G_CONNECT_SWAPPED);
  bpw_window_update_edit_actions (self);
}

gboolean
bpw_window_get_edit_pending (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  return self->pending != 0;
}

double
bpw_window_get_edit_latency (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), -1.0);
  return self->pending != 0 ? -1.0 : self->edit_latency_ms;
}

void
bpw_window_get_compute_stats (BpwWindow       *self,
                              BpwComputeStats *stats)
{
  g_return_if_fail (BPW_IS_WINDOW (self));
  g_return_if_fail (stats != NULL);
  *stats = self->stats;
}
