/* bpw-timeline-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chart does the drawing, level of detail, flows and hit-testing (ui/plot); the view
 * zooms and pans; this page wires the toolbar to the chart's options and keeps the table
 * beside it in step: the selected area's sums, or, without one, the sums of the time in
 * view, recomputed once zooming pauses.
 */
#define G_LOG_DOMAIN "bpw-timeline-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-chart-stack.h"
#include "bpw-format.h"
#include "bpw-timeline-page.h"

/* Zooming sends a viewport per wheel notch: the table waits until it pauses. */
#define BPW_TIMELINE_PAGE_AGGREGATE_DELAY_MS 150
/* Below this a lane is a hairline: more stages than fit scroll instead (a deep pipeline,
 * or every rank). Eight stages of five lanes and their counters fit a 1000-px window. */
#define BPW_TIMELINE_PAGE_MIN_ROW_PX 8.0

struct _BpwTimelinePage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkWidget         *toolbar;
  GtkDropDown       *color_dropdown;
  GtkToggleButton   *memory_toggle;
  GtkToggleButton   *links_toggle;
  GtkToggleButton   *area_toggle;
  GtkSpinner        *spinner;
  GtkLabel          *summary_label;
  BpwChartStack     *chart_stack;
  BpwPlotView       *view;
  GtkScrollbar      *row_scrollbar;
  BpwAggregateTable *aggregate;

  /* Owned references */
  BpwSimulationJob  *job;          /* nullable */
  GSignalGroup      *job_signals;

  guint              aggregate_timeout;
  gboolean           has_area;
  gboolean           syncing_rows;  /* the scroll bar being set from the layout */
};

G_DEFINE_FINAL_TYPE (BpwTimelinePage, bpw_timeline_page, GTK_TYPE_WIDGET)

static BpwTimelinePlot *
bpw_timeline_page_get_plot (BpwTimelinePage *self)
{
  BpwPlot *plot = bpw_plot_view_get_plot (self->view);

  return plot != NULL ? BPW_TIMELINE_PLOT (plot) : NULL;
}

/* The table for the selected area, else for the time in view. Both read the plot's last
 * layout, so the view lays it out at its size first. */
void
bpw_timeline_page_update_aggregate (BpwTimelinePage *self)
{
  g_autoptr(BpwTimelineAggregate) aggregate = NULL;
  BpwTimelinePlot *plot = bpw_timeline_page_get_plot (self);
  BpwPlotRect area;
  BpwPlotHit hit;
  double t0, t1;

  g_return_if_fail (BPW_IS_TIMELINE_PAGE (self));

  g_clear_handle_id (&self->aggregate_timeout, g_source_remove);
  if (plot != NULL && bpw_timeline_plot_get_data (plot)->n_events > 0)
    {
      bpw_plot_view_hit (self->view, 0, 0, &hit);
      if (self->has_area && bpw_plot_view_get_area (self->view, &area))
        aggregate = bpw_timeline_plot_aggregate_area (plot, &area);
      else
        {
          self->has_area = FALSE;
          bpw_timeline_plot_get_time_range (plot, &t0, &t1);
          aggregate = bpw_timeline_data_aggregate (bpw_timeline_plot_get_data (plot), t0, t1,
                                                   NULL, 0);
        }
    }
  bpw_aggregate_table_set_aggregate (self->aggregate, aggregate, self->has_area);
}

static gboolean
bpw_timeline_page_aggregate_timeout_cb (gpointer data)
{
  BpwTimelinePage *self = data;

  self->aggregate_timeout = 0;
  bpw_timeline_page_update_aggregate (self);
  return G_SOURCE_REMOVE;
}

static void
bpw_timeline_page_viewport_changed_cb (BpwTimelinePage *self)
{
  /* An area keeps its sums: it moves with the zoom, its time range does not change. */
  if (self->has_area)
    return;
  g_clear_handle_id (&self->aggregate_timeout, g_source_remove);
  self->aggregate_timeout = g_timeout_add (BPW_TIMELINE_PAGE_AGGREGATE_DELAY_MS,
                                           bpw_timeline_page_aggregate_timeout_cb, self);
}

static void
bpw_timeline_page_area_selected_cb (BpwTimelinePage *self)
{
  self->has_area = TRUE;
  bpw_timeline_page_update_aggregate (self);
}

static void
bpw_timeline_page_clear_area_cb (BpwTimelinePage *self)
{
  self->has_area = FALSE;
  bpw_plot_view_clear_area (self->view);
  bpw_timeline_page_update_aggregate (self);
}

static void
bpw_timeline_page_update_summary (BpwTimelinePage *self)
{
  BpwTimelinePlot *plot = bpw_timeline_page_get_plot (self);
  const BpwTimelineData *data = plot != NULL ? bpw_timeline_plot_get_data (plot) : NULL;
  gboolean busy = self->job != NULL && bpw_simulation_job_get_busy (self->job);
  g_autofree char *step = NULL;
  g_autofree char *events = NULL;
  g_autofree char *text = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  gtk_spinner_set_spinning (self->spinner, busy);
  if (data == NULL || data->n_events == 0)
    {
      gtk_label_set_text (self->summary_label, "");
      return;
    }
  step = bpw_format_seconds (data->step_s);
  events = bpw_format_count (data->n_events);
  /* Translators: "4 stages · 16 lanes · 123,456 events · step 7.48 s" */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%u stage · %u lanes · %s events · step %s",
                                       "%u stages · %u lanes · %s events · step %s",
                                       data->n_ranks),
                          data->n_ranks, data->lanes->len, events, step);
  gtk_label_set_text (self->summary_label, text);
}

/* A new step: the old area stands for nothing in it. */
static void
bpw_timeline_page_result_cb (BpwTimelinePage *self)
{
  bpw_timeline_page_update_summary (self);
  if (self->job == NULL || bpw_simulation_job_get_busy (self->job))
    return;
  self->has_area = FALSE;
  bpw_plot_view_clear_area (self->view);
  bpw_timeline_page_update_aggregate (self);
}

static void
bpw_timeline_page_color_cb (BpwTimelinePage *self)
{
  BpwTimelinePlot *plot = bpw_timeline_page_get_plot (self);
  guint selected = gtk_drop_down_get_selected (self->color_dropdown);

  if (plot != NULL && selected < BPW_TIMELINE_N_COLORINGS)
    bpw_timeline_plot_set_color_by (plot, selected);
}

static void
bpw_timeline_page_counters_cb (BpwTimelinePage *self)
{
  BpwTimelinePlot *plot = bpw_timeline_page_get_plot (self);

  if (plot != NULL)
    bpw_timeline_plot_set_counters (plot, gtk_toggle_button_get_active (self->memory_toggle),
                                    gtk_toggle_button_get_active (self->links_toggle));
  /* The lanes moved: an area no longer covers the lanes it summed. */
  if (self->has_area)
    bpw_timeline_page_clear_area_cb (self);
}

/* The scroll bar follows the rows the last layout shows, and shows only when some are
 * out of view. */
static void
bpw_timeline_page_laid_out_cb (BpwTimelinePage *self)
{
  BpwTimelinePlot *plot = bpw_timeline_page_get_plot (self);
  GtkAdjustment *rows = gtk_scrollbar_get_adjustment (self->row_scrollbar);
  double first = 0, shown = 1, total = 1;

  if (plot != NULL)
    bpw_timeline_plot_get_row_window (plot, &first, &shown, &total);
  self->syncing_rows = TRUE;
  gtk_adjustment_configure (rows, first, 0, total, 1, MAX (shown - 1, 1), shown);
  self->syncing_rows = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->row_scrollbar), plot != NULL && shown < total);
}

static void
bpw_timeline_page_rows_cb (BpwTimelinePage *self)
{
  BpwTimelinePlot *plot = bpw_timeline_page_get_plot (self);

  if (self->syncing_rows || plot == NULL)
    return;
  bpw_timeline_plot_set_row_offset (plot, gtk_adjustment_get_value (
    gtk_scrollbar_get_adjustment (self->row_scrollbar)));
  /* The lanes moved: an area no longer covers the lanes it summed. */
  if (self->has_area)
    bpw_timeline_page_clear_area_cb (self);
}

static gboolean
bpw_timeline_page_key_cb (BpwTimelinePage       *self,
                          guint                  keyval,
                          guint                  keycode,
                          GdkModifierType        state,
                          GtkEventControllerKey *controller)
{
  GtkAdjustment *rows = gtk_scrollbar_get_adjustment (self->row_scrollbar);
  double page = gtk_adjustment_get_page_increment (rows);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->row_scrollbar)))
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_Page_Up:
      gtk_adjustment_set_value (rows, gtk_adjustment_get_value (rows) - page);
      return TRUE;
    case GDK_KEY_Page_Down:
      gtk_adjustment_set_value (rows, gtk_adjustment_get_value (rows) + page);
      return TRUE;
    default:
      return FALSE;
    }
}

static void
bpw_timeline_page_area_mode_cb (BpwTimelinePage *self)
{
  bpw_plot_view_set_area_selection (self->view, TRUE,
                                    gtk_toggle_button_get_active (self->area_toggle));
}

static void
bpw_timeline_page_dispose (GObject *object)
{
  BpwTimelinePage *self = BPW_TIMELINE_PAGE (object);
  GtkWidget *child;

  g_clear_handle_id (&self->aggregate_timeout, g_source_remove);
  if (self->job_signals != NULL)
    g_signal_group_set_target (self->job_signals, NULL);
  g_clear_object (&self->job_signals);
  g_clear_object (&self->job);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_TIMELINE_PAGE);
  /* The separator has no name to bind, so the template does not drop it. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (bpw_timeline_page_parent_class)->dispose (object);
}

static void
bpw_timeline_page_class_init (BpwTimelinePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_timeline_page_dispose;

  g_type_ensure (BPW_TYPE_PLOT_VIEW);
  g_type_ensure (BPW_TYPE_CHART_STACK);
  g_type_ensure (BPW_TYPE_AGGREGATE_TABLE);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "timelinepage");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-timeline-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, toolbar);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, color_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, memory_toggle);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, links_toggle);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, area_toggle);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, summary_label);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, chart_stack);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, view);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, row_scrollbar);
  gtk_widget_class_bind_template_child (widget_class, BpwTimelinePage, aggregate);

  bpw_plot_view_class_add_page_actions (widget_class, "timeline");
}

static void
bpw_timeline_page_init (BpwTimelinePage *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  GtkEventController *controller;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_widget_init_template (GTK_WIDGET (self));

  bpw_plot_view_set_area_selection (self->view, TRUE, FALSE);
  g_signal_connect_object (self->view, "area-selected",
                           G_CALLBACK (bpw_timeline_page_area_selected_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->view, "viewport-changed",
                           G_CALLBACK (bpw_timeline_page_viewport_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->view, "laid-out",
                           G_CALLBACK (bpw_timeline_page_laid_out_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_scrollbar_get_adjustment (self->row_scrollbar),
                           "value-changed", G_CALLBACK (bpw_timeline_page_rows_cb), self,
                           G_CONNECT_SWAPPED);
  controller = gtk_event_controller_key_new ();
  g_signal_connect_object (controller, "key-pressed", G_CALLBACK (bpw_timeline_page_key_cb),
                           self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->view), controller);
  g_signal_connect_object (self->aggregate, "clear-area",
                           G_CALLBACK (bpw_timeline_page_clear_area_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->color_dropdown, "notify::selected",
                           G_CALLBACK (bpw_timeline_page_color_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->memory_toggle, "toggled",
                           G_CALLBACK (bpw_timeline_page_counters_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->links_toggle, "toggled",
                           G_CALLBACK (bpw_timeline_page_counters_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->area_toggle, "toggled",
                           G_CALLBACK (bpw_timeline_page_area_mode_cb), self, G_CONNECT_SWAPPED);

  self->job_signals = g_signal_group_new (BPW_TYPE_SIMULATION_JOB);
  g_signal_group_connect_swapped (self->job_signals, "notify::busy",
                                  G_CALLBACK (bpw_timeline_page_result_cb), self);
  g_signal_group_connect_swapped (self->job_signals, "notify::has-result",
                                  G_CALLBACK (bpw_timeline_page_result_cb), self);
}

void
bpw_timeline_page_set_job (BpwTimelinePage  *self,
                           BpwSimulationJob *job)
{
  g_return_if_fail (BPW_IS_TIMELINE_PAGE (self));
  g_return_if_fail (job == NULL || BPW_IS_SIMULATION_JOB (job));

  if (!g_set_object (&self->job, job))
    return;
  g_signal_group_set_target (self->job_signals, job);
  bpw_plot_view_set_plot (self->view,
                          job != NULL ? BPW_PLOT (bpw_simulation_job_get_timeline_plot (job))
                                      : NULL);
  bpw_chart_stack_set_job (self->chart_stack, job);
  if (job != NULL)
    {
      BpwTimelinePlot *plot = bpw_simulation_job_get_timeline_plot (job);

      bpw_timeline_plot_set_min_row_height (plot, BPW_TIMELINE_PAGE_MIN_ROW_PX);
      bpw_timeline_plot_set_row_offset (plot, 0);
    }
  /* The toolbar's choices apply to the new chart. */
  bpw_timeline_page_color_cb (self);
  bpw_timeline_page_counters_cb (self);
  bpw_timeline_page_result_cb (self);
}

BpwPlotView *
bpw_timeline_page_get_view (BpwTimelinePage *self)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PAGE (self), NULL);
  return self->view;
}

BpwAggregateTable *
bpw_timeline_page_get_aggregate (BpwTimelinePage *self)
{
  g_return_val_if_fail (BPW_IS_TIMELINE_PAGE (self), NULL);
  return self->aggregate;
}
