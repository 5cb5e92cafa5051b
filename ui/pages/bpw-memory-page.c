/* bpw-memory-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chart (ui/plot) draws the curve, the capacity, the peak and the bars, and names
 * the buffer under the pointer; this page picks the stage and sums up the peak.
 */
#define G_LOG_DOMAIN "bpw-memory-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-chart-stack.h"
#include "bpw-format.h"
#include "bpw-memory-page.h"

struct _BpwMemoryPage
{
  GtkWidget         parent_instance;

  /* Template widgets */
  GtkWidget        *toolbar;
  GtkDropDown      *stage_dropdown;
  GtkSpinner       *spinner;
  GtkLabel         *summary_label;
  BpwChartStack    *chart_stack;
  BpwPlotView      *view;

  /* Owned references */
  BpwSimulationJob *job;             /* nullable */
  GSignalGroup     *job_signals;
  GtkStringList    *stage_names;     /* "Highest peak", "Stage 0", … */

  gboolean          updating_dropdown;
};

G_DEFINE_FINAL_TYPE (BpwMemoryPage, bpw_memory_page, GTK_TYPE_WIDGET)

static void
bpw_memory_page_update_summary (BpwMemoryPage *self)
{
  BpwPlot *plot = bpw_plot_view_get_plot (self->view);
  const BpwLifetimesData *data = plot != NULL
                                 ? bpw_lifetimes_plot_get_data (BPW_LIFETIMES_PLOT (plot)) : NULL;
  gboolean busy = self->job != NULL && bpw_simulation_job_get_busy (self->job);
  g_autofree char *time = NULL;
  g_autofree char *buffers = NULL;
  g_autofree char *text = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  gtk_spinner_set_spinning (self->spinner, busy);
  if (data == NULL || data->buffers->len == 0)
    {
      gtk_label_set_text (self->summary_label, "");
      return;
    }
  /* A share, not bytes: the chart gives the bytes in its own (decimal) units. */
  time = bpw_format_seconds (data->peak_time);
  buffers = bpw_format_count (data->buffers->len);
  /* Translators: "Stage 3 · peak at 1.42 s, 30 % of capacity · 72,291 buffers" */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "Stage %u · peak at %s, %.0f %% of capacity · %s buffer",
                                       "Stage %u · peak at %s, %.0f %% of capacity · %s buffers",
                                       data->buffers->len),
                          data->rank, time,
                          data->capacity > 0 ? 100.0 * data->peak / data->capacity : 0.0,
                          buffers);
  gtk_label_set_text (self->summary_label, text);
}

/* The stages of the simulated step, and the one shown. */
static void
bpw_memory_page_update_stages (BpwMemoryPage *self)
{
  guint n = self->job != NULL ? bpw_simulation_job_get_n_stages (self->job) : 0;
  gint64 shown = self->job != NULL ? bpw_simulation_job_get_lifetimes_stage (self->job) : -1;

  /* A step without stages keeps the list of the last one: an edit is simulating. */
  if (n == 0)
    return;
  self->updating_dropdown = TRUE;
  if (g_list_model_get_n_items (G_LIST_MODEL (self->stage_names)) != n + 1)
    {
      gtk_string_list_splice (self->stage_names, 0,
                              g_list_model_get_n_items (G_LIST_MODEL (self->stage_names)), NULL);
      gtk_string_list_append (self->stage_names, _("Highest peak"));
      for (guint i = 0; i < n; i++)
        {
          /* Translators: a pipeline stage in the Memory page's stage list */
          g_autofree char *name = g_strdup_printf (_("Stage %u"), i);

          gtk_string_list_append (self->stage_names, name);
        }
    }
  gtk_drop_down_set_selected (self->stage_dropdown, shown < 0 || shown >= n ? 0 : shown + 1);
  self->updating_dropdown = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->stage_dropdown), n > 1);
}

static void
bpw_memory_page_result_cb (BpwMemoryPage *self)
{
  bpw_memory_page_update_stages (self);
  bpw_memory_page_update_summary (self);
}

static void
bpw_memory_page_stage_cb (BpwMemoryPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->stage_dropdown);

  if (self->updating_dropdown || self->job == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  bpw_simulation_job_set_lifetimes_stage (self->job, (gint64) selected - 1);
  bpw_memory_page_update_summary (self);
}

static void
bpw_memory_page_dispose (GObject *object)
{
  BpwMemoryPage *self = BPW_MEMORY_PAGE (object);
  GtkWidget *child;

  if (self->job_signals != NULL)
    g_signal_group_set_target (self->job_signals, NULL);
  g_clear_object (&self->job_signals);
  g_clear_object (&self->job);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_MEMORY_PAGE);
  /* The separator has no name to bind, so the template does not drop it. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->stage_names);

  G_OBJECT_CLASS (bpw_memory_page_parent_class)->dispose (object);
}

static void
bpw_memory_page_class_init (BpwMemoryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_memory_page_dispose;

  g_type_ensure (BPW_TYPE_PLOT_VIEW);
  g_type_ensure (BPW_TYPE_CHART_STACK);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "memorypage");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-memory-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwMemoryPage, toolbar);
  gtk_widget_class_bind_template_child (widget_class, BpwMemoryPage, stage_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwMemoryPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwMemoryPage, summary_label);
  gtk_widget_class_bind_template_child (widget_class, BpwMemoryPage, chart_stack);
  gtk_widget_class_bind_template_child (widget_class, BpwMemoryPage, view);

  bpw_plot_view_class_add_page_actions (widget_class, "memory");
}

static void
bpw_memory_page_init (BpwMemoryPage *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->stage_names = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->stage_dropdown, G_LIST_MODEL (self->stage_names));
  gtk_widget_set_sensitive (GTK_WIDGET (self->stage_dropdown), FALSE);
  g_signal_connect_object (self->stage_dropdown, "notify::selected",
                           G_CALLBACK (bpw_memory_page_stage_cb), self, G_CONNECT_SWAPPED);

  self->job_signals = g_signal_group_new (BPW_TYPE_SIMULATION_JOB);
  g_signal_group_connect_swapped (self->job_signals, "notify::busy",
                                  G_CALLBACK (bpw_memory_page_result_cb), self);
  g_signal_group_connect_swapped (self->job_signals, "notify::has-result",
                                  G_CALLBACK (bpw_memory_page_result_cb), self);
}

void
bpw_memory_page_set_job (BpwMemoryPage    *self,
                         BpwSimulationJob *job)
{
  g_return_if_fail (BPW_IS_MEMORY_PAGE (self));
  g_return_if_fail (job == NULL || BPW_IS_SIMULATION_JOB (job));

  if (!g_set_object (&self->job, job))
    return;
  g_signal_group_set_target (self->job_signals, job);
  bpw_plot_view_set_plot (self->view,
                          job != NULL ? BPW_PLOT (bpw_simulation_job_get_lifetimes_plot (job))
                                      : NULL);
  bpw_chart_stack_set_job (self->chart_stack, job);
  bpw_memory_page_result_cb (self);
}

BpwPlotView *
bpw_memory_page_get_view (BpwMemoryPage *self)
{
  g_return_val_if_fail (BPW_IS_MEMORY_PAGE (self), NULL);
  return self->view;
}

const char *
bpw_memory_page_get_summary (BpwMemoryPage *self)
{
  g_return_val_if_fail (BPW_IS_MEMORY_PAGE (self), NULL);
  return gtk_label_get_text (self->summary_label);
}
