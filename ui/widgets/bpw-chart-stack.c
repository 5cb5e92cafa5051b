/* bpw-chart-stack.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-chart-stack"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-chart-stack.h"

struct _BpwChartStack
{
  GtkWidget         parent_instance;

  GtkStack         *stack;
  AdwStatusPage    *empty_page;
  AdwStatusPage    *error_page;
  GtkWidget        *chart;       /* borrowed: a child of @stack */

  /* owned */
  BpwSimulationJob *job;         /* nullable */
  GSignalGroup     *job_signals;
};

enum {
  PROP_0,
  PROP_CHART,
  PROP_ICON_NAME,
  PROP_EMPTY_TITLE,
  PROP_EMPTY_DESCRIPTION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwChartStack, bpw_chart_stack, GTK_TYPE_WIDGET)

static void
bpw_chart_stack_update (BpwChartStack *self)
{
  const char *error = self->job != NULL ? bpw_simulation_job_get_error (self->job) : NULL;
  const char *state = "empty";

  /* The last step stays while the next is simulated: an edit does not flash a spinner. */
  if (self->job != NULL && bpw_simulation_job_get_has_result (self->job) && self->chart != NULL)
    state = "chart";
  else if (self->job != NULL && bpw_simulation_job_get_busy (self->job))
    state = "loading";
  else if (error != NULL)
    {
      adw_status_page_set_description (self->error_page, error);
      state = "error";
    }
  gtk_stack_set_visible_child_name (self->stack, state);
}

static void
bpw_chart_stack_dispose (GObject *object)
{
  BpwChartStack *self = BPW_CHART_STACK (object);

  if (self->job_signals != NULL)
    g_signal_group_set_target (self->job_signals, NULL);
  g_clear_object (&self->job_signals);
  g_clear_object (&self->job);
  if (self->stack != NULL)
    gtk_widget_unparent (GTK_WIDGET (self->stack));
  self->stack = NULL;
  self->chart = NULL;

  G_OBJECT_CLASS (bpw_chart_stack_parent_class)->dispose (object);
}

static void
bpw_chart_stack_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  BpwChartStack *self = BPW_CHART_STACK (object);

  switch (prop_id)
    {
    case PROP_CHART:
      g_value_set_object (value, self->chart);
      break;
    case PROP_ICON_NAME:
      g_value_set_string (value, adw_status_page_get_icon_name (self->empty_page));
      break;
    case PROP_EMPTY_TITLE:
      g_value_set_string (value, adw_status_page_get_title (self->empty_page));
      break;
    case PROP_EMPTY_DESCRIPTION:
      g_value_set_string (value, adw_status_page_get_description (self->empty_page));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_chart_stack_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  BpwChartStack *self = BPW_CHART_STACK (object);

  switch (prop_id)
    {
    case PROP_CHART:
      bpw_chart_stack_set_chart (self, g_value_get_object (value));
      break;
    case PROP_ICON_NAME:
      adw_status_page_set_icon_name (self->empty_page, g_value_get_string (value));
      break;
    case PROP_EMPTY_TITLE:
      adw_status_page_set_title (self->empty_page, g_value_get_string (value));
      break;
    case PROP_EMPTY_DESCRIPTION:
      adw_status_page_set_description (self->empty_page, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_chart_stack_class_init (BpwChartStackClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_chart_stack_dispose;
  object_class->get_property = bpw_chart_stack_get_property;
  object_class->set_property = bpw_chart_stack_set_property;

  properties[PROP_CHART] =
    g_param_spec_object ("chart", NULL, NULL, GTK_TYPE_WIDGET,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ICON_NAME] =
    g_param_spec_string ("icon-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[PROP_EMPTY_TITLE] =
    g_param_spec_string ("empty-title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[PROP_EMPTY_DESCRIPTION] =
    g_param_spec_string ("empty-description", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "chartstack");
}

static void
bpw_chart_stack_init (BpwChartStack *self)
{
  GtkWidget *spinner = gtk_spinner_new ();
  GtkWidget *loading = adw_status_page_new ();

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_parent (GTK_WIDGET (self->stack), GTK_WIDGET (self));
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);

  self->empty_page = ADW_STATUS_PAGE (adw_status_page_new ());
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->empty_page), "empty");

  gtk_spinner_set_spinning (GTK_SPINNER (spinner), TRUE);
  gtk_widget_set_size_request (spinner, 32, 32);
  gtk_widget_set_halign (spinner, GTK_ALIGN_CENTER);
  adw_status_page_set_title (ADW_STATUS_PAGE (loading), _("Simulating the Step…"));
  adw_status_page_set_child (ADW_STATUS_PAGE (loading), spinner);
  gtk_stack_add_named (self->stack, loading, "loading");

  self->error_page = ADW_STATUS_PAGE (adw_status_page_new ());
  adw_status_page_set_icon_name (self->error_page, "dialog-warning-symbolic");
  adw_status_page_set_title (self->error_page, _("Could Not Simulate the Step"));
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->error_page), "error");

  self->job_signals = g_signal_group_new (BPW_TYPE_SIMULATION_JOB);
  g_signal_group_connect_swapped (self->job_signals, "notify::busy",
                                  G_CALLBACK (bpw_chart_stack_update), self);
  g_signal_group_connect_swapped (self->job_signals, "notify::error",
                                  G_CALLBACK (bpw_chart_stack_update), self);
  g_signal_group_connect_swapped (self->job_signals, "notify::has-result",
                                  G_CALLBACK (bpw_chart_stack_update), self);
  bpw_chart_stack_update (self);
}

void
bpw_chart_stack_set_chart (BpwChartStack *self,
                           GtkWidget     *chart)
{
  g_return_if_fail (BPW_IS_CHART_STACK (self));
  g_return_if_fail (chart == NULL || GTK_IS_WIDGET (chart));

  if (self->chart == chart)
    return;
  if (self->chart != NULL)
    gtk_stack_remove (self->stack, self->chart);
  self->chart = chart;
  if (chart != NULL)
    gtk_stack_add_named (self->stack, chart, "chart");
  bpw_chart_stack_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHART]);
}

void
bpw_chart_stack_set_job (BpwChartStack    *self,
                         BpwSimulationJob *job)
{
  g_return_if_fail (BPW_IS_CHART_STACK (self));
  g_return_if_fail (job == NULL || BPW_IS_SIMULATION_JOB (job));

  g_set_object (&self->job, job);
  g_signal_group_set_target (self->job_signals, job);
  bpw_chart_stack_update (self);
}

const char *
bpw_chart_stack_get_state (BpwChartStack *self)
{
  g_return_val_if_fail (BPW_IS_CHART_STACK (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}
