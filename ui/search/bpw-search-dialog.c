/* bpw-search-dialog.c — design-space search for the selected candidate and scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The dialog copies what it searches out of the study when it opens (the candidate's run
 * on the scenario: model, scenario, blueprint and mapping), so the search never reads the
 * study, and the window stays usable while it runs: the study may change meanwhile.
 * Promotion goes back to the study through the window's edits, which makes it undoable
 * like any other change, and only while the searched candidate is still there. The dialog
 * goes with its window, which stops the search.
 */
#define G_LOG_DOMAIN "bpw-search-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-search-dialog-private.h"
#include "bpw-json-writer.h"
#include "bpw-toast.h"

enum
{
  PROP_0,
  PROP_RUNNING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwSearchDialog, bpw_search_dialog, ADW_TYPE_WINDOW)

void
_bpw_search_dialog_notify_running (BpwSearchDialog *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

void
_bpw_search_dialog_update_buttons (BpwSearchDialog *self)
{
  const char *page = gtk_stack_get_visible_child_name (self->stack);
  gboolean running = bpw_search_dialog_get_running (self);
  gboolean on_setup = g_strcmp0 (page, "setup") == 0;
  gboolean on_run = g_strcmp0 (page, "run") == 0;
  gboolean selected = bpw_search_dialog_get_selected_result (self) != NULL;
  gboolean sweep = _bpw_search_dialog_sweep_active (self);
  /* A sweep re-searches with the workbench's model at every point. */
  gboolean calculon_sweep = sweep && _bpw_search_dialog_calculon_model (self);
  gboolean startable = self->space != NULL && !running && _bpw_search_dialog_sweep_ready (self)
                       && !calculon_sweep;

  gtk_widget_set_visible (GTK_WIDGET (self->start_button), on_setup);
  gtk_widget_set_sensitive (GTK_WIDGET (self->start_button), startable);
  gtk_button_set_label (self->start_button, sweep ? _("_Start Sweep") : _("_Start Search"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->start_button),
                               calculon_sweep
                               ? _("Sweeps price plans with the workbench’s model: choose it "
                                   "under Priced By")
                               : sweep ? _("Search the space at every point of the sweep")
                                       : _("Search the space for the best plans"));
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), on_run && running);
  gtk_widget_set_visible (GTK_WIDGET (self->back_button), on_run && !running);
  /* A sweep point's blueprint is not the study's: it is shown, not promoted. */
  gtk_widget_set_visible (GTK_WIDGET (self->promote_button),
                          on_run && !running && !self->sweep_shown);
  gtk_widget_set_sensitive (GTK_WIDGET (self->promote_button), selected);
  gtk_widget_set_visible (GTK_WIDGET (self->show_button), on_run && !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->show_button), _bpw_search_dialog_can_show (self));
  if (on_setup && self->space != NULL)
    gtk_window_set_default_widget (GTK_WINDOW (self), GTK_WIDGET (self->start_button));
}

static void
bpw_search_dialog_start_cb (BpwSearchDialog *self)
{
  bpw_search_dialog_start (self);
}

static void
bpw_search_dialog_cancel_cb (BpwSearchDialog *self)
{
  bpw_search_dialog_cancel (self);
}

static void
bpw_search_dialog_back_cb (BpwSearchDialog *self)
{
  gtk_stack_set_visible_child_name (self->stack, "setup");
  _bpw_search_dialog_update_buttons (self);
}

static void
bpw_search_dialog_show_cb (BpwSearchDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (bpw_search_dialog_show_in_pages (self, &error) == 0)
    bpw_toast_show (self->toast_overlay, adw_toast_new (error->message));
}

static void
bpw_search_dialog_promote_cb (BpwSearchDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (!bpw_search_dialog_promote (self, &error))
    bpw_toast_show (self->toast_overlay, adw_toast_new (error->message));
}

/* Closing stops the search: nobody would see its result. The task holds the dialog until
 * its worker returns, so dispose comes too late for this; gtk_window_destroy() unrealizes
 * at once. */
static void
bpw_search_dialog_unrealize (GtkWidget *widget)
{
  bpw_search_dialog_cancel (BPW_SEARCH_DIALOG (widget));
  GTK_WIDGET_CLASS (bpw_search_dialog_parent_class)->unrealize (widget);
}

static void
bpw_search_dialog_dispose (GObject *object)
{
  BpwSearchDialog *self = (BpwSearchDialog *) object;

  _bpw_search_dialog_run_dispose (self);
  _bpw_search_dialog_calculon_dispose (self);
  _bpw_search_dialog_sweep_run_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_SEARCH_DIALOG);
  /* GTK lets go of the transient parent in its own dispose: while it is still alive. */
  gtk_window_set_transient_for (GTK_WINDOW (self), NULL);
  g_clear_object (&self->window);
  g_clear_object (&self->study);
  g_clear_object (&self->actions);
  g_clear_pointer (&self->space, bpw_search_space_free);

  G_OBJECT_CLASS (bpw_search_dialog_parent_class)->dispose (object);
}

static void
bpw_search_dialog_finalize (GObject *object)
{
  BpwSearchDialog *self = (BpwSearchDialog *) object;

  bpw_candidate_run_clear (&self->run);
  g_free (self->candidate_name);
  g_free (self->scenario_name);
  g_free (self->space_error);
  g_free (self->calculon_error);
  for (guint c = 0; c < BPW_N_SEARCH_CHOICES; c++)
    g_clear_pointer (&self->choice_values[c], g_array_unref);

  G_OBJECT_CLASS (bpw_search_dialog_parent_class)->finalize (object);
}

static void
bpw_search_dialog_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  BpwSearchDialog *self = BPW_SEARCH_DIALOG (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, bpw_search_dialog_get_running (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_search_dialog_class_init (BpwSearchDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_search_dialog_dispose;
  object_class->finalize = bpw_search_dialog_finalize;
  object_class->get_property = bpw_search_dialog_get_property;
  widget_class->unrealize = bpw_search_dialog_unrealize;

  /**
   * BpwSearchDialog:running:
   *
   * Whether a search runs in the worker thread.
   */
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/"
                                               "bpw-search-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, window_title);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, back_button);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, start_button);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, promote_button);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, unavailable_page);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, objective_row);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, space_group);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, size_label);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, threads_spin);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, top_spin);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, simulate_switch);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, status_label);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, fraction_label);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, stats_box);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, best_plan_label);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, results_stack);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, empty_page);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, column_view);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, show_button);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, waiting_page);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, sweep_group);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, sweep_size_label);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, sweep_add_button);
  gtk_widget_class_bind_template_child (widget_class, BpwSearchDialog, sweep_view);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
bpw_search_dialog_init (BpwSearchDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->candidate = G_MAXUINT;
  self->scenario = G_MAXUINT;
  /* What bpw_candidate_run_init() starts from, so that finalize can always clear it. */
  bpw_model_spec_init_defaults (&self->run.spec);
  bpw_scenario_init_defaults (&self->run.scenario);
  bpw_mapping_init_defaults (&self->run.mapping);
  gtk_spin_button_set_value (self->threads_spin, g_get_num_processors ());
  _bpw_search_dialog_run_init (self);
  _bpw_search_dialog_sweep_run_init (self);
  _bpw_search_dialog_pages_init (self);

  g_signal_connect_object (self->start_button, "clicked",
                           G_CALLBACK (bpw_search_dialog_start_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->cancel_button, "clicked",
                           G_CALLBACK (bpw_search_dialog_cancel_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->back_button, "clicked",
                           G_CALLBACK (bpw_search_dialog_back_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->promote_button, "clicked",
                           G_CALLBACK (bpw_search_dialog_promote_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->show_button, "clicked",
                           G_CALLBACK (bpw_search_dialog_show_cb), self, G_CONNECT_SWAPPED);
}

/* Reads the window's selection and copies what the search needs out of the study. */
static void
bpw_search_dialog_load (BpwSearchDialog *self,
                        guint            candidate,
                        guint            scenario)
{
  BpwStudy *study = self->study;
  g_autoptr(GError) error = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *devices = NULL;
  g_autofree char *units = NULL;
  const BpwStudyScenario *s;

  g_object_get (self->window, "units", &units, NULL);
  self->units = g_strcmp0 (units, "gb") == 0 ? BPW_BYTE_UNITS_DECIMAL : BPW_BYTE_UNITS_BINARY;
  if (study == NULL || candidate >= bpw_study_get_n_candidates (study)
      || scenario >= bpw_study_get_n_scenarios (study))
    {
      adw_status_page_set_description (self->unavailable_page,
                                       _("Select a candidate and a scenario first: the search "
                                         "looks for the candidate’s best mapping of the "
                                         "scenario."));
      gtk_stack_set_visible_child_name (self->stack, "unavailable");
      _bpw_search_dialog_update_buttons (self);
      return;
    }

  self->candidate = candidate;
  self->scenario = scenario;
  self->candidate_name = g_strdup (bpw_study_get_candidate (study, candidate)->name);
  s = bpw_study_get_scenario (study, scenario);
  self->scenario_name = g_strdup (s->name);
  /* The device count is the scenario's: the job's size is part of the regime. */
  self->devices = bpw_parallel_devices (&s->parallel);
  devices = g_strdup_printf ("%" G_GINT64_FORMAT, self->devices);
  /* Translators: "H100 SXM 80 GB · gpt3-175b-train · 1024 devices" */
  subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %s · %s device",
                                           "%s · %s · %s devices", (gulong) self->devices),
                              self->candidate_name, self->scenario_name, devices);
  adw_window_title_set_subtitle (self->window_title, subtitle);

  bpw_candidate_run_clear (&self->run);
  if (!bpw_candidate_run_init (&self->run, study, candidate, scenario, &error))
    {
      adw_status_page_set_description (self->unavailable_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "unavailable");
      _bpw_search_dialog_update_buttons (self);
      return;
    }
  self->has_run = TRUE;
  _bpw_search_dialog_space_init (self);
  if (self->choice_values[0] == NULL)
    {
      adw_status_page_set_description (self->unavailable_page, self->space_error);
      gtk_stack_set_visible_child_name (self->stack, "unavailable");
    }
  else
    {
      _bpw_search_dialog_sweep_init (self);
      gtk_stack_set_visible_child_name (self->stack, "setup");
    }
  _bpw_search_dialog_update_buttons (self);
}

BpwSearchDialog *
bpw_search_dialog_new (GtkWindow *window,
                       BpwStudy  *study,
                       guint      candidate,
                       guint      scenario)
{
  BpwSearchDialog *self;
  int width, height;

  g_return_val_if_fail (GTK_IS_WINDOW (window), NULL);
  g_return_val_if_fail (study == NULL || BPW_IS_STUDY (study), NULL);

  self = g_object_new (BPW_TYPE_SEARCH_DIALOG, "transient-for", window, NULL);
  self->window = g_object_ref (window);
  /* The window does not wait for the dialog: destroyed, it takes the dialog (and so the
   * search) with it. gtk_window_destroy() unrealizes; the reference held here would keep
   * destroy-with-parent from ever coming. */
  g_signal_connect_object (window, "unrealize", G_CALLBACK (gtk_window_destroy), self,
                           G_CONNECT_SWAPPED);
  self->study = study != NULL ? g_object_ref (study) : NULL;
  /* Room for every column of the results, but never larger than the window it serves. */
  width = gtk_widget_get_width (GTK_WIDGET (window));
  height = gtk_widget_get_height (GTK_WIDGET (window));
  /* Not laid out yet (just presented): the size it asked for is the size it will have. */
  if (width <= 0 || height <= 0)
    gtk_window_get_default_size (window, &width, &height);
  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (self), MIN (1280, MAX (640, width - 48)),
                                 MIN (780, MAX (480, height - 48)));
  bpw_search_dialog_load (self, candidate, scenario);
  return self;
}

guint
bpw_search_dialog_get_candidate (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), G_MAXUINT);
  return self->candidate;
}

guint
bpw_search_dialog_get_scenario (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), G_MAXUINT);
  return self->scenario;
}

gint64
bpw_search_dialog_get_devices (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), 0);
  return self->devices;
}

void
bpw_search_dialog_get_options (BpwSearchDialog  *self,
                               BpwSearchOptions *options)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  g_return_if_fail (options != NULL);

  bpw_search_options_init (options);
  options->top_k = (guint) gtk_spin_button_get_value_as_int (self->top_spin);
  options->threads = (guint) gtk_spin_button_get_value_as_int (self->threads_spin);
  options->simulate = gtk_switch_get_active (self->simulate_switch);
  /* Least energy needs the front of step time and energy: a slower plan may use less. */
  options->pareto = adw_combo_row_get_selected (self->objective_row)
                    == BPW_SEARCH_OBJECTIVE_ENERGY;
}

void
bpw_search_dialog_set_objective (BpwSearchDialog    *self,
                                 BpwSearchObjective  objective)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  /* Insensitive when the blueprint gives no energy: step time is then the only one. */
  if (gtk_widget_get_sensitive (GTK_WIDGET (self->objective_row)))
    adw_combo_row_set_selected (self->objective_row, objective);
}

void
bpw_search_dialog_set_threads (BpwSearchDialog *self,
                               guint            threads)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  gtk_spin_button_set_value (self->threads_spin, threads);
}

void
bpw_search_dialog_set_top_k (BpwSearchDialog *self,
                             guint            top_k)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  gtk_spin_button_set_value (self->top_spin, top_k);
}

void
bpw_search_dialog_set_simulate (BpwSearchDialog *self,
                                gboolean         simulate)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  gtk_switch_set_active (self->simulate_switch, simulate);
}

gboolean
bpw_search_dialog_get_running (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), FALSE);
  return self->job != NULL || self->calculon_job != NULL || self->sweep_job != NULL;
}

const BpwSearchReport *
bpw_search_dialog_get_report (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return self->report;
}

const BpwCalculonSearchReport *
bpw_search_dialog_get_calculon_report (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return self->calculon_report;
}

GListModel *
bpw_search_dialog_get_results (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return G_LIST_MODEL (self->results);
}

void
bpw_search_dialog_select_result (BpwSearchDialog *self,
                                 guint            position)
{
  g_return_if_fail (BPW_IS_SEARCH_DIALOG (self));
  gtk_single_selection_set_selected (self->selection, position);
}

BpwSearchItem *
bpw_search_dialog_get_selected_result (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return self->selection != NULL ? gtk_single_selection_get_selected_item (self->selection)
                                 : NULL;
}

const BpwBlueprint *
bpw_search_dialog_get_blueprint (BpwSearchDialog *self)
{
  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), NULL);
  return self->has_run ? self->run.blueprint : NULL;
}

/* Promotion -------------------------------------------------------------------------- */

/* "H100 SXM 80 GB (searched)", then "… (searched 2)", … : unique among the candidates. */
static char *
bpw_search_dialog_candidate_name (BpwSearchDialog *self,
                                  BpwStudy        *study)
{
  for (guint n = 1;; n++)
    {
      /* Translators: the name of a candidate promoted from a search of candidate %s */
      g_autofree char *name = n == 1 ? g_strdup_printf (_("%s (searched)"), self->candidate_name)
      /* Translators: the second, third, … candidate promoted from searches of %s */
                                     : g_strdup_printf (_("%s (searched %u)"),
                                                        self->candidate_name, n);
      gboolean taken = FALSE;

      for (guint i = 0; i < bpw_study_get_n_candidates (study) && !taken; i++)
        taken = g_strcmp0 (bpw_study_get_candidate (study, i)->name, name) == 0;
      if (!taken)
        return g_steal_pointer (&name);
    }
}

/* The mapping object a study writes for @mapping: the native mapping file without its
 * "format" and "version". Every field is written, so the candidate runs exactly it. */
static JsonNode *
bpw_search_dialog_mapping_node (const BpwMapping *mapping,
                                GError          **error)
{
  g_autofree char *text = bpw_mapping_to_json (mapping);
  JsonNode *node = json_from_string (text, error);

  if (node == NULL)
    return NULL;
  json_object_remove_member (json_node_get_object (node), "format");
  json_object_remove_member (json_node_get_object (node), "version");
  return node;
}

/* @source's mappings by scenario, with @scenario's set to @mapping. json_node_copy() shares
 * objects, so the members are copied into a new object: @source stays as it is. */
static JsonNode *
bpw_search_dialog_mappings_node (const BpwStudyCandidate *source,
                                 const char              *scenario,
                                 JsonNode                *mapping)
{
  g_autoptr(JsonObject) object = json_object_new ();

  if (source->mappings != NULL && JSON_NODE_HOLDS_OBJECT (source->mappings))
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *value;

      json_object_iter_init_ordered (&iter, json_node_get_object (source->mappings));
      while (json_object_iter_next_ordered (&iter, &member, &value))
        json_object_set_member (object, member, json_node_copy (value));
    }
  json_object_set_member (object, scenario, json_node_ref (mapping));
  return json_node_init_object (json_node_alloc (), object);
}

/* @node as the compact text an action's parameter carries. */
static char *
bpw_search_dialog_json_text (JsonNode *node)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_node (&w, NULL, node);
  return bpw_json_writer_finish (&w);
}

gboolean
bpw_search_dialog_promote (BpwSearchDialog  *self,
                           GError          **error)
{
  g_autoptr(JsonNode) mapping = NULL;
  g_autoptr(JsonNode) mappings = NULL;
  g_autofree char *name = NULL;
  g_autofree char *label = NULL;
  g_autofree char *message = NULL;
  BpwSearchItem *item;
  g_autofree char *mapping_text = NULL;
  g_autofree char *mappings_text = NULL;
  BpwStudy *study;
  const BpwStudyCandidate *source;
  guint n_before;

  g_return_val_if_fail (BPW_IS_SEARCH_DIALOG (self), FALSE);

  item = bpw_search_dialog_get_selected_result (self);
  study = self->window != NULL ? self->study : NULL;
  if (item == NULL || study == NULL || self->candidate >= bpw_study_get_n_candidates (study)
      || g_strcmp0 (bpw_study_get_candidate (study, self->candidate)->name,
                    self->candidate_name) != 0)
    {
      g_set_error_literal (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                           _("Select a plan of the results to promote."));
      return FALSE;
    }

  /* The new candidate runs every other scenario as the searched one does, and this one with
   * the plan found: its mappings, with this scenario's replaced. */
  source = bpw_study_get_candidate (study, self->candidate);
  mapping = bpw_search_dialog_mapping_node (bpw_search_item_get_mapping (item), error);
  if (mapping == NULL)
    return FALSE;
  mappings = bpw_search_dialog_mappings_node (source, self->scenario_name, mapping);

  name = bpw_search_dialog_candidate_name (self, study);
  /* Translators: an undoable change, "Promote “H100 (searched)”" */
  label = g_strdup_printf (_("Promote “%s”"), name);
  /* The window's action cannot answer: the edit is tried on a copy first, so that what
   * the study would refuse is refused here, with its reason. */
  {
    g_autoptr(BpwStudy) trial = bpw_study_copy (study);
    g_autoptr(BpwStudyEdit) edit = bpw_study_edit_new_candidate (trial, name, source->blueprint,
                                                                 source->mapping, mappings,
                                                                 label);

    if (!bpw_study_edit_apply (edit, trial, error))
      return FALSE;
  }
  mapping_text = bpw_search_dialog_json_text (source->mapping);
  mappings_text = bpw_search_dialog_json_text (mappings);
  n_before = bpw_study_get_n_candidates (study);
  gtk_widget_activate_action (GTK_WIDGET (self->window), "win.promote-candidate", "(sssssu)",
                              name, source->blueprint, mapping_text, mappings_text, label,
                              self->scenario);
  if (bpw_study_get_n_candidates (study) != n_before + 1)
    {
      g_set_error_literal (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                           _("The window did not add the candidate."));
      return FALSE;
    }

  /* Translators: a toast after promotion */
  message = g_strdup_printf (_("“%s” added to the study’s candidates"), name);
  bpw_toast_show (self->toast_overlay, adw_toast_new (message));
  return TRUE;
}
