/* bpw-tradeoffs-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A serving sweep of one scenario takes about a second of processor time, so the page
 * sweeps one scenario at a time: the one shown first, then the others, each into a plot
 * of its own so that switching scenarios is instant. An edit makes every plot stale; each
 * keeps its curves until the new ones replace them. A sweep cannot be interrupted
 * half-way, so a stale one finishes, is thrown away, and the next one starts. Sweeps
 * start a quarter second after the last change while the page is shown. While it is
 * not, only scenarios never swept are, two seconds after the last change, so that the
 * page opens with curves; edits elsewhere cost no sweep until the page is shown.
 */
#define G_LOG_DOMAIN "bpw-tradeoffs-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-tradeoffs-page.h"
#include "bpw-added-button.h"
#include "bpw-calibration-bar.h"

/* One inference scenario and its curves. */
typedef struct
{
  guint            scenario;     /* index into the study's scenarios */
  char            *name;
  BpwTradePlot    *plot;         /* owned; without series until computed */
  char            *error;        /* nullable: why the last sweep has no curves */
  guint            computed;     /* the generation its curves come from; 0: none */
  BpwTradeLatency  latency;
  gboolean         has_latency;  /* chosen by the user: kept over new curves */
} BpwTradeSlot;

/* What a sweep is for: the slot it fills. */
typedef struct
{
  char             *name;        /* of the scenario */
  guint             scenario;
} BpwTradeJob;

struct _BpwTradeoffsPage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkDropDown       *scenario_dropdown;
  GtkDropDown       *latency_dropdown;
  GtkDropDown       *y_dropdown;
  BpwAddedButton    *added_button;  /* "Clear N Added" */
  GtkSpinner        *spinner;
  GtkLabel          *status_label;
  BpwCalibrationBar *calibration_bar;
  GtkStack          *stack;
  AdwStatusPage     *error_page;
  BpwPlotView       *plot_view;

  /* Owned references */
  BpwStudyWorker    *worker;      /* the study, its snapshot and the sweeps */
  GArray            *slots;       /* BpwTradeSlot, in study order */
  GtkStringList     *scenario_names;

  guint              selected;    /* index into slots; G_MAXUINT: none */
  BpwTradeY          y;
  gboolean           busy;
  gboolean           updating;    /* the dropdowns follow the page, not the user */
};

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwTradeoffsPage, bpw_tradeoffs_page, GTK_TYPE_WIDGET)

static void bpw_tradeoffs_page_schedule (BpwTradeoffsPage *self);

static void
bpw_trade_slot_clear (gpointer data)
{
  BpwTradeSlot *slot = data;

  g_free (slot->name);
  g_clear_object (&slot->plot);
  g_free (slot->error);
}

static void
bpw_trade_job_free (BpwTradeJob *job)
{
  g_free (job->name);
  g_free (job);
}

static BpwTradeSlot *
bpw_tradeoffs_page_slot (BpwTradeoffsPage *self,
                         guint             i)
{
  return i < self->slots->len ? &g_array_index (self->slots, BpwTradeSlot, i) : NULL;
}

static void
bpw_tradeoffs_page_set_busy (BpwTradeoffsPage *self,
                             gboolean          busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Everything shown follows from the slots, the selection and the generation. */
static void
bpw_tradeoffs_page_update (BpwTradeoffsPage *self)
{
  BpwTradeSlot *slot = bpw_tradeoffs_page_slot (self, self->selected);
  gboolean has_curves = slot != NULL && bpw_trade_plot_get_data (slot->plot)->points->len > 0;
  gboolean current = slot != NULL
                     && slot->computed == bpw_study_worker_get_generation (self->worker);
  const char *status = "";
  g_autoptr(GError) unpriced = NULL;

  /* Per dollar needs a price for every candidate: without, say so rather than draw an
   * empty chart. */
  if (slot != NULL && has_curves && self->y == BPW_TRADE_Y_PER_DOLLAR)
    bpw_trade_data_cost_unit (bpw_trade_plot_get_data (slot->plot), NULL, &unpriced);

  if (slot == NULL)
    gtk_stack_set_visible_child_name (self->stack, "empty");
  else if (slot->error != NULL && current)
    {
      adw_status_page_set_description (self->error_page, slot->error);
      gtk_stack_set_visible_child_name (self->stack, "error");
    }
  else if (unpriced != NULL)
    {
      adw_status_page_set_description (self->error_page, unpriced->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
    }
  else if (has_curves)
    gtk_stack_set_visible_child_name (self->stack, "chart");
  else
    gtk_stack_set_visible_child_name (self->stack, "computing");

  bpw_plot_view_set_plot (self->plot_view, slot != NULL ? BPW_PLOT (slot->plot) : NULL);
  /* The candidates of the curves shown, as calibrated: the curves rank them. */
  bpw_calibration_bar_set (self->calibration_bar,
                           has_curves ? bpw_trade_plot_get_data (slot->plot)->calibration
                                      : NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->latency_dropdown), has_curves);
  gtk_widget_set_sensitive (GTK_WIDGET (self->y_dropdown), has_curves);
  self->updating = TRUE;
  if (slot != NULL)
    gtk_drop_down_set_selected (self->latency_dropdown, slot->latency);
  gtk_drop_down_set_selected (self->y_dropdown, self->y);
  self->updating = FALSE;

  gtk_spinner_set_spinning (self->spinner, self->busy);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), self->busy);
  if (slot != NULL && !current && has_curves)
    status = _("Updating the curves after the change…");
  else if (slot != NULL && !current)
    status = _("Simulating serving…");
  else if (has_curves)
    status = _("Hover a point for its rate, throughput and latency percentiles");
  gtk_label_set_text (self->status_label, status);
}

/* The worker thread: every candidate serves the scenario at ten arrival rates. */
static gpointer
bpw_tradeoffs_page_sweep (BpwStudy      *study,
                          gpointer       job_data,
                          GCancellable  *cancellable,
                          GError       **error)
{
  BpwTradeJob *job = job_data;

  return bpw_trade_data_new_from_study (study, job->scenario, NULL, error);
}

static void
bpw_tradeoffs_page_computed_cb (GObject      *object,
                                GAsyncResult *result,
                                gpointer      user_data)
{
  BpwTradeoffsPage *self = BPW_TRADEOFFS_PAGE (object);
  BpwTradeJob *job = bpw_study_worker_get_job_data (result);
  g_autoptr(GError) error = NULL;
  BpwTradeData *data;
  BpwTradeSlot *slot = NULL;
  gboolean current;

  if (self->worker == NULL)  /* disposed meanwhile */
    return;
  data = bpw_study_worker_finish (self->worker, result, &current, &error);
  for (guint i = 0; i < self->slots->len && slot == NULL; i++)
    if (bpw_tradeoffs_page_slot (self, i)->scenario == job->scenario
        && g_strcmp0 (bpw_tradeoffs_page_slot (self, i)->name, job->name) == 0)
      slot = bpw_tradeoffs_page_slot (self, i);

  /* A newer study or change has replaced this one: its results are thrown away. */
  if (slot != NULL && current && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_pointer (&slot->error, g_free);
      if (data == NULL)
        slot->error = g_strdup (error->message);
      else
        {
          bpw_trade_plot_set_data (slot->plot, g_steal_pointer (&data));
          /* New data bring the scenario's own metric; the user's choice stays. */
          if (slot->has_latency)
            bpw_trade_plot_set_latency (slot->plot, slot->latency);
          else
            slot->latency = bpw_trade_plot_get_data (slot->plot)->metric;
          bpw_trade_plot_set_y (slot->plot, self->y);
        }
      slot->computed = bpw_study_worker_get_generation (self->worker);
    }
  g_clear_pointer (&data, bpw_trade_data_free);
  bpw_tradeoffs_page_schedule (self);
  bpw_tradeoffs_page_update (self);
}

/* Starts the next sweep unless one runs: the scenario shown first, then the others in
 * study order. */
static void
bpw_tradeoffs_page_schedule (BpwTradeoffsPage *self)
{
  guint generation = bpw_study_worker_get_generation (self->worker);
  BpwTradeSlot *slot = bpw_tradeoffs_page_slot (self, self->selected);
  BpwTradeJob *job;

  if (bpw_study_worker_get_running (self->worker))
    return;
  if (bpw_study_worker_get_snapshot (self->worker) == NULL)
    slot = NULL;
  else if (slot == NULL || slot->computed == generation)
    {
      slot = NULL;
      for (guint i = 0; i < self->slots->len && slot == NULL; i++)
        if (bpw_tradeoffs_page_slot (self, i)->computed != generation)
          slot = bpw_tradeoffs_page_slot (self, i);
    }
  /* Hidden, the page sweeps what it never showed (so that it opens with curves), but
   * leaves curves an edit made stale until it is shown again. */
  if (slot != NULL && slot->computed != 0 && !gtk_widget_get_mapped (GTK_WIDGET (self)))
    slot = NULL;
  if (slot == NULL)
    {
      bpw_tradeoffs_page_set_busy (self, FALSE);
      return;
    }

  job = g_new0 (BpwTradeJob, 1);
  job->name = g_strdup (slot->name);
  job->scenario = slot->scenario;
  bpw_tradeoffs_page_set_busy (self, TRUE);
  bpw_study_worker_run (self->worker, self, bpw_tradeoffs_page_sweep, job,
                        (GDestroyNotify) bpw_trade_job_free,
                        (GDestroyNotify) bpw_trade_data_free,
                        bpw_tradeoffs_page_computed_cb, NULL);
}

/* A new study, an edit, or candidates added: the new generation's sweeps. */
static void
bpw_tradeoffs_page_worker_changed_cb (BpwTradeoffsPage *self)
{
  bpw_tradeoffs_page_schedule (self);
  bpw_tradeoffs_page_update (self);
}

/* The slots follow the study's inference scenarios; a scenario that stays keeps its plot
 * (and the user's choices) by name. */
static void
bpw_tradeoffs_page_sync_slots (BpwTradeoffsPage *self,
                               BpwStudy         *study)
{
  g_autoptr(GArray) slots = g_array_new (FALSE, TRUE, sizeof (BpwTradeSlot));
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  BpwTradeSlot *old = bpw_tradeoffs_page_slot (self, self->selected);
  g_autofree char *selected = old != NULL ? g_strdup (old->name) : NULL;
  guint n = study != NULL ? bpw_study_get_n_scenarios (study) : 0;
  guint first_decode = G_MAXUINT;
  gboolean same;

  g_array_set_clear_func (slots, bpw_trade_slot_clear);
  for (guint i = 0; i < n; i++)
    {
      const BpwStudyScenario *sc = bpw_study_get_scenario (study, i);
      BpwTradeSlot slot = { .scenario = i };

      if (sc->scenario.phase == BPW_WORKLOAD_TRAIN)
        continue;
      slot.name = g_strdup (sc->name);
      for (guint j = 0; j < self->slots->len; j++)
        {
          BpwTradeSlot *before = bpw_tradeoffs_page_slot (self, j);

          if (before->plot != NULL && g_strcmp0 (before->name, sc->name) == 0)
            {
              slot.plot = g_steal_pointer (&before->plot);
              slot.latency = before->latency;
              slot.has_latency = before->has_latency;
              slot.computed = before->computed;
              slot.error = g_steal_pointer (&before->error);
            }
        }
      if (slot.plot == NULL)
        {
          slot.plot = bpw_trade_plot_new (bpw_trade_data_new (NULL, sc->name));
          slot.latency = sc->scenario.phase == BPW_WORKLOAD_DECODE ? BPW_TRADE_LATENCY_TPOT
                                                                   : BPW_TRADE_LATENCY_TTFT;
          bpw_trade_plot_set_y (slot.plot, self->y);
        }
      if (sc->scenario.phase == BPW_WORKLOAD_DECODE && first_decode == G_MAXUINT)
        first_decode = slots->len;
      g_array_append_val (slots, slot);
      g_ptr_array_add (names, sc->name);
    }
  g_ptr_array_add (names, NULL);

  same = slots->len == self->slots->len;
  for (guint i = 0; same && i < slots->len; i++)
    same = g_strcmp0 (g_array_index (slots, BpwTradeSlot, i).name,
                      g_array_index (self->slots, BpwTradeSlot, i).name) == 0;
  g_array_unref (self->slots);
  self->slots = g_steal_pointer (&slots);
  if (same)
    return;

  /* Serving studies are read from the decode side first, as `bpw export --view trade`. */
  self->selected = self->slots->len > 0 ? (first_decode != G_MAXUINT ? first_decode : 0)
                                        : G_MAXUINT;
  for (guint i = 0; selected != NULL && i < self->slots->len; i++)
    if (g_strcmp0 (bpw_tradeoffs_page_slot (self, i)->name, selected) == 0)
      self->selected = i;
  self->updating = TRUE;
  gtk_string_list_splice (self->scenario_names, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->scenario_names)),
                          (const char * const *) names->pdata);
  gtk_drop_down_set_selected (self->scenario_dropdown,
                              self->selected != G_MAXUINT ? self->selected
                                                          : GTK_INVALID_LIST_POSITION);
  self->updating = FALSE;
}

static void
bpw_tradeoffs_page_scenario_cb (BpwTradeoffsPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->scenario_dropdown);

  if (self->updating || selected == GTK_INVALID_LIST_POSITION || selected == self->selected)
    return;
  self->selected = selected;
  bpw_tradeoffs_page_schedule (self);
  bpw_tradeoffs_page_update (self);
}

static void
bpw_tradeoffs_page_latency_cb (BpwTradeoffsPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->latency_dropdown);

  if (self->updating || selected >= BPW_TRADE_N_LATENCIES)
    return;
  bpw_tradeoffs_page_set_latency (self, selected);
}

static void
bpw_tradeoffs_page_y_cb (BpwTradeoffsPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->y_dropdown);

  if (self->updating || selected >= BPW_TRADE_N_YS)
    return;
  bpw_tradeoffs_page_set_measure (self, selected);
}

/* Shown, the curves are wanted soon; hidden, they may wait for a pause in the edits. */
static void
bpw_tradeoffs_page_map (GtkWidget *widget)
{
  BpwTradeoffsPage *self = BPW_TRADEOFFS_PAGE (widget);

  GTK_WIDGET_CLASS (bpw_tradeoffs_page_parent_class)->map (widget);
  bpw_study_worker_set_delay (self->worker, 250);
  bpw_tradeoffs_page_schedule (self);
  bpw_tradeoffs_page_update (self);
}

static void
bpw_tradeoffs_page_unmap (GtkWidget *widget)
{
  BpwTradeoffsPage *self = BPW_TRADEOFFS_PAGE (widget);

  if (self->worker != NULL)
    bpw_study_worker_set_delay (self->worker, 2000);
  GTK_WIDGET_CLASS (bpw_tradeoffs_page_parent_class)->unmap (widget);
}

static void
bpw_tradeoffs_page_dispose (GObject *object)
{
  BpwTradeoffsPage *self = BPW_TRADEOFFS_PAGE (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_TRADEOFFS_PAGE);
  /* The template's toolbar and separator are not bound: they go here. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->worker);
  g_clear_pointer (&self->slots, g_array_unref);
  g_clear_object (&self->scenario_names);

  G_OBJECT_CLASS (bpw_tradeoffs_page_parent_class)->dispose (object);
}

static void
bpw_tradeoffs_page_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  BpwTradeoffsPage *self = BPW_TRADEOFFS_PAGE (object);

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
bpw_tradeoffs_page_class_init (BpwTradeoffsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_tradeoffs_page_dispose;
  object_class->get_property = bpw_tradeoffs_page_get_property;
  widget_class->map = bpw_tradeoffs_page_map;
  widget_class->unmap = bpw_tradeoffs_page_unmap;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (BPW_TYPE_PLOT_VIEW);
  g_type_ensure (BPW_TYPE_ADDED_BUTTON);
  g_type_ensure (BPW_TYPE_CALIBRATION_BAR);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "tradeoffspage");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-tradeoffs-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, scenario_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, latency_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, y_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, added_button);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, calibration_bar);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, BpwTradeoffsPage, plot_view);
}

static void
bpw_tradeoffs_page_init (BpwTradeoffsPage *self)
{
  GtkLayoutManager *layout;

  gtk_widget_init_template (GTK_WIDGET (self));
  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);

  self->slots = g_array_new (FALSE, TRUE, sizeof (BpwTradeSlot));
  g_array_set_clear_func (self->slots, bpw_trade_slot_clear);
  self->worker = bpw_study_worker_new ();
  /* A sweep cannot be stopped half-way: one per burst of edits (the page is not shown
   * yet). */
  bpw_study_worker_set_delay (self->worker, 2000);
  bpw_added_button_set_worker (self->added_button, self->worker);
  self->selected = G_MAXUINT;
  self->scenario_names = gtk_string_list_new (NULL);
  g_signal_connect_object (self->worker, "changed",
                           G_CALLBACK (bpw_tradeoffs_page_worker_changed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_drop_down_set_model (self->scenario_dropdown, G_LIST_MODEL (self->scenario_names));
  g_signal_connect_object (self->scenario_dropdown, "notify::selected",
                           G_CALLBACK (bpw_tradeoffs_page_scenario_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->latency_dropdown, "notify::selected",
                           G_CALLBACK (bpw_tradeoffs_page_latency_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->y_dropdown, "notify::selected",
                           G_CALLBACK (bpw_tradeoffs_page_y_cb), self, G_CONNECT_SWAPPED);
  bpw_tradeoffs_page_update (self);
}

gboolean
bpw_tradeoffs_page_set_study (BpwTradeoffsPage *self,
                              BpwStudy         *study)
{
  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), FALSE);
  g_return_val_if_fail (study == NULL || BPW_IS_STUDY (study), FALSE);

  /* The scenarios first: the new generation's sweeps are scheduled for them. */
  bpw_tradeoffs_page_sync_slots (self, study);
  if (bpw_study_worker_set_study (self->worker, study))
    return TRUE;
  bpw_tradeoffs_page_update (self);
  return FALSE;
}

gboolean
bpw_tradeoffs_page_get_busy (BpwTradeoffsPage *self)
{
  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), FALSE);
  return self->busy;
}

guint
bpw_tradeoffs_page_get_n_scenarios (BpwTradeoffsPage *self)
{
  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), 0);
  return self->slots->len;
}

guint
bpw_tradeoffs_page_get_scenario (BpwTradeoffsPage *self)
{
  BpwTradeSlot *slot;

  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), G_MAXUINT);

  slot = bpw_tradeoffs_page_slot (self, self->selected);
  return slot != NULL ? slot->scenario : G_MAXUINT;
}

gboolean
bpw_tradeoffs_page_set_scenario (BpwTradeoffsPage *self,
                                 guint             scenario)
{
  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), FALSE);

  for (guint i = 0; i < self->slots->len; i++)
    if (bpw_tradeoffs_page_slot (self, i)->scenario == scenario)
      {
        gtk_drop_down_set_selected (self->scenario_dropdown, i);
        return TRUE;
      }
  return FALSE;
}

void
bpw_tradeoffs_page_set_latency (BpwTradeoffsPage *self,
                                BpwTradeLatency   metric)
{
  BpwTradeSlot *slot;

  g_return_if_fail (BPW_IS_TRADEOFFS_PAGE (self));
  g_return_if_fail (metric < BPW_TRADE_N_LATENCIES);

  slot = bpw_tradeoffs_page_slot (self, self->selected);
  if (slot == NULL)
    return;
  slot->latency = metric;
  slot->has_latency = TRUE;
  bpw_trade_plot_set_latency (slot->plot, metric);
  bpw_tradeoffs_page_update (self);
}

void
bpw_tradeoffs_page_set_measure (BpwTradeoffsPage *self,
                                BpwTradeY         y)
{
  g_return_if_fail (BPW_IS_TRADEOFFS_PAGE (self));
  g_return_if_fail (y < BPW_TRADE_N_YS);

  /* One measure for every scenario: the question is the same across them. */
  self->y = y;
  for (guint i = 0; i < self->slots->len; i++)
    bpw_trade_plot_set_y (bpw_tradeoffs_page_slot (self, i)->plot, y);
  bpw_tradeoffs_page_update (self);
}

BpwTradePlot *
bpw_tradeoffs_page_get_plot (BpwTradeoffsPage *self)
{
  BpwTradeSlot *slot;

  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), NULL);

  slot = bpw_tradeoffs_page_slot (self, self->selected);
  return slot != NULL ? slot->plot : NULL;
}

BpwPlotView *
bpw_tradeoffs_page_get_view (BpwTradeoffsPage *self)
{
  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), NULL);
  return self->plot_view;
}

BpwStudyWorker *
bpw_tradeoffs_page_get_worker (BpwTradeoffsPage *self)
{
  g_return_val_if_fail (BPW_IS_TRADEOFFS_PAGE (self), NULL);
  return self->worker;
}
