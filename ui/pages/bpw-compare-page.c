/* bpw-compare-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The comparison reads the whole study: a copy of it (bpw-study-worker.h) goes to a
 * worker thread, which evaluates every candidate on every scenario with the analytic
 * estimator (a few milliseconds each). One comparison runs at a time; when the study
 * changes meanwhile, the running one is cancelled and the newest study is compared next.
 */
#define G_LOG_DOMAIN "bpw-compare-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-compare-page-private.h"

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

enum {
  UPDATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (BpwComparePage, bpw_compare_page, GTK_TYPE_WIDGET)

static void bpw_compare_page_schedule (BpwComparePage *self);

static void
bpw_compare_page_set_busy (BpwComparePage *self,
                           gboolean        busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  gtk_spinner_set_spinning (self->spinner, busy);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* A comparison needs a scenario and a candidate. */
static gboolean
bpw_compare_page_has_work (BpwComparePage *self)
{
  BpwStudy *study = bpw_study_worker_get_study (self->worker);

  return study != NULL && bpw_study_get_n_scenarios (study) > 0
         && bpw_study_get_n_candidates (study) + bpw_study_worker_get_n_added (self->worker) > 0;
}

static void
bpw_compare_page_update (BpwComparePage *self)
{
  const BpwCompareData *data = bpw_compare_page_get_data (self);
  gboolean current = self->computed == bpw_study_worker_get_generation (self->worker);
  g_autofree char *status = NULL;

  if (!bpw_compare_page_has_work (self))
    gtk_stack_set_visible_child_name (self->stack, "empty");
  else if (self->error != NULL && current)
    {
      adw_status_page_set_description (self->error_page, self->error);
      gtk_stack_set_visible_child_name (self->stack, "error");
    }
  else if (data != NULL)
    gtk_stack_set_visible_child_name (self->stack, "views");
  else
    gtk_stack_set_visible_child_name (self->stack, "computing");

  if (data != NULL && !current)
    status = g_strdup (_("Updating after the change…"));
  else if (data != NULL && _bpw_compare_page_n_added (self) > 0)
    /* Translators: "Candidates: 4 and 2 added, scenarios: 3" */
    status = g_strdup_printf (_("Candidates: %u and %u added, scenarios: %u"),
                              data->n_candidates - _bpw_compare_page_n_added (self),
                              _bpw_compare_page_n_added (self), data->n_scenarios);
  else if (data != NULL)
    /* Translators: the comparison's size, "Candidates: 4, scenarios: 3 — analytic
     * estimate, mappings as given" */
    status = g_strdup_printf (_("Candidates: %u, scenarios: %u — analytic estimate, "
                                "mappings as given"), data->n_candidates, data->n_scenarios);
  gtk_label_set_text (self->status_label, status != NULL ? status : "");
}

/* The dropdowns list the data's scenarios and candidates and show its choices. */
static void
bpw_compare_page_sync_choices (BpwComparePage *self)
{
  const BpwCompareData *data = bpw_compare_page_get_data (self);

  self->updating = TRUE;
  gtk_string_list_splice (self->scenario_names, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->scenario_names)),
                          data != NULL ? (const char * const *) data->scenarios : NULL);
  gtk_string_list_splice (self->candidate_names, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->candidate_names)),
                          data != NULL ? (const char * const *) data->candidates : NULL);
  if (data != NULL)
    {
      gtk_drop_down_set_selected (self->scenario_dropdown, data->scenario);
      gtk_drop_down_set_selected (self->baseline_dropdown, data->baseline);
    }
  self->updating = FALSE;
}

/* The worker thread: every candidate on every scenario. */
static gpointer
bpw_compare_page_compare (BpwStudy      *study,
                          gpointer       job_data,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_autoptr(BpwComparison) comparison = NULL;
  BpwCompareOptions options;

  bpw_compare_options_init (&options);
  comparison = bpw_compare_study (study, &options, cancellable, error);
  return comparison != NULL ? bpw_compare_data_new_from_comparison (comparison, study) : NULL;
}

/* New data keep the scenario and the baseline shown, by name. */
static void
bpw_compare_page_keep_choices (BpwComparePage *self,
                               BpwCompareData *data)
{
  const BpwCompareData *before = bpw_compare_page_get_data (self);

  if (before == NULL)
    return;
  for (guint s = 0; s < data->n_scenarios; s++)
    if (g_strcmp0 (data->scenarios[s], before->scenarios[before->scenario]) == 0)
      data->scenario = s;
  for (guint c = 0; c < data->n_candidates; c++)
    if (g_strcmp0 (data->candidates[c], before->candidates[before->baseline]) == 0)
      data->baseline = c;
}

static void
bpw_compare_page_computed_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  BpwComparePage *self = BPW_COMPARE_PAGE (object);
  g_autoptr(GError) error = NULL;
  BpwCompareData *data;
  gboolean current;

  if (self->worker == NULL)  /* disposed meanwhile */
    return;
  data = bpw_study_worker_finish (self->worker, result, &current, &error);
  if (!current || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      bpw_compare_page_schedule (self);
      return;
    }

  self->computed = bpw_study_worker_get_generation (self->worker);
  g_clear_pointer (&self->error, g_free);
  if (data == NULL)
    {
      self->error = g_strdup (error->message);
      g_clear_object (&self->plot);
    }
  else
    {
      bpw_compare_page_keep_choices (self, data);
      g_clear_object (&self->plot);
      self->plot = bpw_compare_plot_new (data);
    }
  bpw_plot_view_set_plot (self->plot_view, BPW_PLOT (self->plot));
  bpw_calibration_bar_set (self->calibration_bar, data != NULL ? data->calibration : NULL);
  bpw_compare_page_sync_choices (self);
  _bpw_compare_page_update_table (self);
  bpw_compare_page_set_busy (self, FALSE);
  bpw_compare_page_update (self);
  g_signal_emit (self, signals[UPDATED], 0);
}

static void
bpw_compare_page_schedule (BpwComparePage *self)
{
  if (bpw_study_worker_get_running (self->worker))
    return;
  if (!bpw_compare_page_has_work (self)
      || self->computed == bpw_study_worker_get_generation (self->worker))
    {
      bpw_compare_page_set_busy (self, FALSE);
      return;
    }
  bpw_compare_page_set_busy (self, TRUE);
  bpw_study_worker_run (self->worker, self, bpw_compare_page_compare, NULL, NULL,
                        (GDestroyNotify) bpw_compare_data_free, bpw_compare_page_computed_cb,
                        NULL);
}

/* A new study, an edit, or candidates added: compare again, or show that there is
 * nothing to compare (and the Overview's matrix empties too). */
static void
bpw_compare_page_worker_changed_cb (BpwComparePage *self)
{
  if (!bpw_compare_page_has_work (self))
    {
      self->computed = bpw_study_worker_get_generation (self->worker);
      g_clear_pointer (&self->error, g_free);
      g_clear_object (&self->plot);
      bpw_plot_view_set_plot (self->plot_view, NULL);
      bpw_compare_page_sync_choices (self);
      _bpw_compare_page_update_table (self);
      g_signal_emit (self, signals[UPDATED], 0);
    }
  bpw_compare_page_schedule (self);
  bpw_compare_page_update (self);
}

static void
bpw_compare_page_scenario_cb (BpwComparePage *self)
{
  guint selected = gtk_drop_down_get_selected (self->scenario_dropdown);

  if (!self->updating && selected != GTK_INVALID_LIST_POSITION)
    bpw_compare_page_set_scenario (self, selected);
}

static void
bpw_compare_page_baseline_cb (BpwComparePage *self)
{
  guint selected = gtk_drop_down_get_selected (self->baseline_dropdown);

  if (!self->updating && selected != GTK_INVALID_LIST_POSITION)
    bpw_compare_page_set_baseline (self, selected);
}

/* The scenario picks the chart's breakdown and the layer types shown; the table has
 * every scenario. */
static void
bpw_compare_page_view_cb (BpwComparePage *self)
{
  const char *view = gtk_stack_get_visible_child_name (self->view_stack);

  gtk_widget_set_sensitive (GTK_WIDGET (self->scenario_dropdown),
                            g_strcmp0 (view, "chart") == 0 || g_strcmp0 (view, "layers") == 0);
}

static void
bpw_compare_page_dispose (GObject *object)
{
  BpwComparePage *self = BPW_COMPARE_PAGE (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_COMPARE_PAGE);
  /* The template's toolbar and separator are not bound: they go here. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->worker);
  g_clear_pointer (&self->error, g_free);
  g_clear_object (&self->plot);
  g_clear_object (&self->sorted);
  g_clear_object (&self->rows);
  g_clear_object (&self->scenario_names);
  g_clear_object (&self->candidate_names);

  G_OBJECT_CLASS (bpw_compare_page_parent_class)->dispose (object);
}

static void
bpw_compare_page_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  BpwComparePage *self = BPW_COMPARE_PAGE (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_compare_page_class_init (BpwComparePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_compare_page_dispose;
  object_class->get_property = bpw_compare_page_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* New data are shown (or the comparison failed: the data are NULL then). */
  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (BPW_TYPE_PLOT_VIEW);
  g_type_ensure (BPW_TYPE_ADDED_BUTTON);
  g_type_ensure (BPW_TYPE_CALIBRATION_BAR);
  g_type_ensure (BPW_TYPE_LAYER_MATRIX);
  g_type_ensure (BPW_TYPE_PINNED_TABLE);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "comparepage");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-compare-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, scenario_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, baseline_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, added_button);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, status_label);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, calibration_bar);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, stack);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, error_page);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, view_stack);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, plot_view);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, table);
  gtk_widget_class_bind_template_child (widget_class, BpwComparePage, layer_matrix);
}

static void
bpw_compare_page_init (BpwComparePage *self)
{
  GtkLayoutManager *layout;

  gtk_widget_init_template (GTK_WIDGET (self));
  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);

  self->worker = bpw_study_worker_new ();
  /* After the window's own work for an edit, and once per burst of edits. */
  bpw_study_worker_set_delay (self->worker, 500);
  bpw_added_button_set_worker (self->added_button, self->worker);
  g_signal_connect_object (self->worker, "changed",
                           G_CALLBACK (bpw_compare_page_worker_changed_cb), self,
                           G_CONNECT_SWAPPED);
  self->scenario_names = gtk_string_list_new (NULL);
  self->candidate_names = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->scenario_dropdown, G_LIST_MODEL (self->scenario_names));
  gtk_drop_down_set_model (self->baseline_dropdown, G_LIST_MODEL (self->candidate_names));
  g_signal_connect_object (self->scenario_dropdown, "notify::selected",
                           G_CALLBACK (bpw_compare_page_scenario_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->baseline_dropdown, "notify::selected",
                           G_CALLBACK (bpw_compare_page_baseline_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->view_stack, "notify::visible-child-name",
                           G_CALLBACK (bpw_compare_page_view_cb), self, G_CONNECT_SWAPPED);
  _bpw_compare_page_init_table (self);
  bpw_compare_page_update (self);
}

gboolean
bpw_compare_page_set_study (BpwComparePage *self,
                            BpwStudy       *study)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), FALSE);
  g_return_val_if_fail (study == NULL || BPW_IS_STUDY (study), FALSE);

  return bpw_study_worker_set_study (self->worker, study);
}

void
bpw_compare_page_set_units (BpwComparePage *self,
                            BpwByteUnits    units)
{
  g_return_if_fail (BPW_IS_COMPARE_PAGE (self));

  if (self->units == units)
    return;
  self->units = units;
  _bpw_compare_page_update_table (self);
}

gboolean
bpw_compare_page_get_busy (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), FALSE);
  return self->busy;
}

const BpwCompareData *
bpw_compare_page_get_data (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), NULL);
  return self->plot != NULL ? bpw_compare_plot_get_data (self->plot) : NULL;
}

const char *
bpw_compare_page_get_error (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), NULL);
  return self->error;
}

BpwComparePlot *
bpw_compare_page_get_plot (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), NULL);
  return self->plot;
}

BpwPlotView *
bpw_compare_page_get_view (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), NULL);
  return self->plot_view;
}

BpwLayerMatrix *
bpw_compare_page_get_layer_matrix (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), NULL);
  return self->layer_matrix;
}

GListModel *
bpw_compare_page_get_rows (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

void
bpw_compare_page_set_scenario (BpwComparePage *self,
                               guint           scenario)
{
  const BpwCompareData *data;

  g_return_if_fail (BPW_IS_COMPARE_PAGE (self));

  data = bpw_compare_page_get_data (self);
  if (data == NULL || scenario >= data->n_scenarios || scenario == data->scenario)
    return;
  bpw_compare_plot_set_scenario (self->plot, scenario);
  bpw_compare_page_sync_choices (self);
  _bpw_compare_page_update_table (self);
}

void
bpw_compare_page_set_baseline (BpwComparePage *self,
                               guint           candidate)
{
  const BpwCompareData *data;

  g_return_if_fail (BPW_IS_COMPARE_PAGE (self));

  data = bpw_compare_page_get_data (self);
  if (data == NULL || candidate >= data->n_candidates || candidate == data->baseline)
    return;
  bpw_compare_plot_set_baseline (self->plot, candidate);
  bpw_compare_page_sync_choices (self);
  _bpw_compare_page_update_table (self);
}

BpwStudyWorker *
bpw_compare_page_get_worker (BpwComparePage *self)
{
  g_return_val_if_fail (BPW_IS_COMPARE_PAGE (self), NULL);
  return self->worker;
}
