/* bpw-window-charts.c — the simulated step's pages, linked selection and chart export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Timeline and Memory pages show the step of the candidate × scenario the Sheet
 * shows, simulated by one BpwSimulationJob that follows the Sheet's selection and the
 * edits, and simulates only while one of those pages is visible.
 *
 * Selecting an operation anywhere (a Sheet row, a timeline event, a roofline dot, an
 * engine bar, a buffer) selects it everywhere by lineage id. Views show the work at
 * different grains, so each picks its own item for the lineage: itself when it has it,
 * else the same operation in another block (BpwLineageIndex). The window's "selecting"
 * flag keeps the views' own notifications from echoing back.
 */
#define G_LOG_DOMAIN "bpw-window-charts"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-assignment-plot.h"
#include "bpw-export-chooser.h"
#include "bpw-file.h"
#include "bpw-roofline-plot.h"
#include "bpw-table-export.h"
#include "bpw-window-private.h"

#define PICK(index, lineage, array, type) \
  bpw_lineage_index_pick (index, lineage, (array)->data, (array)->len, sizeof (type), \
                          G_STRUCT_OFFSET (type, lineage))

static void
bpw_window_charts_select_in_sheet (BpwWindow             *self,
                                   const BpwLineageIndex *index,
                                   guint32                lineage)
{
  GListModel *rows = bpw_sheet_page_get_rows (self->sheet_page);
  guint n = g_list_model_get_n_items (rows);
  g_autofree guint32 *lineages = g_new (guint32, MAX (n, 1));
  g_autoptr(BpwSheetItem) item = NULL;
  gint pick;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (rows, i);

      lineages[i] = bpw_sheet_item_get_lineage (row);
    }
  pick = lineage == BPW_PLOT_NO_LINEAGE
         ? -1 : bpw_lineage_index_pick (index, lineage, lineages, n, sizeof (guint32), 0);
  if (pick >= 0)
    item = g_list_model_get_item (rows, pick);
  bpw_sheet_page_select_item (self->sheet_page, item);
}

static void
bpw_window_charts_select_in_timeline (BpwWindow             *self,
                                      const BpwLineageIndex *index,
                                      guint32                lineage)
{
  BpwTimelinePlot *plot = bpw_simulation_job_get_timeline_plot (self->simulation);
  const BpwTimelineData *data = bpw_timeline_plot_get_data (plot);
  guint32 selected = bpw_timeline_plot_get_selected (plot);
  gint pick;

  /* The event already selected (clicked in its micro-batch) stays. */
  if (selected != BPW_TIMELINE_NONE && data->events[selected].lineage == lineage)
    return;
  pick = lineage == BPW_PLOT_NO_LINEAGE
         ? -1 : bpw_lineage_index_pick (index, lineage, data->events, data->n_events,
                                        sizeof (BpwTimelineEvent),
                                        G_STRUCT_OFFSET (BpwTimelineEvent, lineage));
  bpw_timeline_plot_set_selected (plot, pick >= 0 ? (guint32) pick : BPW_TIMELINE_NONE);
  /* Selected elsewhere, it comes into view, as in Perfetto. */
  if (pick >= 0)
    bpw_plot_view_reveal_time (bpw_timeline_page_get_view (self->timeline_page),
                               data->start[pick], data->end[pick]);
}

/* Every view but @source (NULL: all) selects the window's lineage. */
static void
bpw_window_charts_apply (BpwWindow *self,
                         gpointer   source)
{
  BpwRooflinePlot *roofline = BPW_ROOFLINE_PLOT (bpw_sheet_page_get_roofline_plot (
                                                   self->sheet_page));
  BpwAssignmentPlot *assignment = BPW_ASSIGNMENT_PLOT (bpw_sheet_page_get_assignment_plot (
                                                         self->sheet_page));
  const GArray *points = bpw_roofline_plot_get_data (roofline)->points;
  const GArray *items = bpw_assignment_plot_get_data (assignment)->items;
  guint32 lineage = self->selected_lineage;
  const BpwLineageIndex *index;
  BpwLifetimesPlot *lifetimes;
  const GArray *buffers;
  gboolean selecting = self->selecting;
  gint pick;

  if (self->simulation == NULL)
    return;  /* the window is being disposed */
  index = bpw_simulation_job_get_lineage_index (self->simulation);
  lifetimes = bpw_simulation_job_get_lifetimes_plot (self->simulation);
  buffers = bpw_lifetimes_plot_get_data (lifetimes)->buffers;
  self->selecting = TRUE;
  if (source != self->sheet_page)
    bpw_window_charts_select_in_sheet (self, index, lineage);
  if (source != bpw_timeline_page_get_view (self->timeline_page))
    bpw_window_charts_select_in_timeline (self, index, lineage);
  /* Baseline points come after the plan's own: a pick among the first ones is the plan's. */
  pick = PICK (index, lineage, points, BpwRooflinePoint);
  bpw_plot_set_selected_lineage (BPW_PLOT (roofline), pick >= 0 ? g_array_index (
    points, BpwRooflinePoint, pick).lineage : BPW_PLOT_NO_LINEAGE);
  pick = PICK (index, lineage, items, BpwAssignmentItem);
  bpw_plot_set_selected_lineage (BPW_PLOT (assignment), pick >= 0 ? g_array_index (
    items, BpwAssignmentItem, pick).lineage : BPW_PLOT_NO_LINEAGE);
  pick = PICK (index, lineage, buffers, BpwLifetimeBuffer);
  bpw_plot_set_selected_lineage (BPW_PLOT (lifetimes), pick >= 0 ? g_array_index (
    buffers, BpwLifetimeBuffer, pick).lineage : BPW_PLOT_NO_LINEAGE);
  /* This may run inside another passing of selections (a job cancelled while the window
   * syncs its candidate): that one still holds the flag. */
  self->selecting = selecting;
}

void
bpw_window_select_lineage (BpwWindow *self,
                           guint32    lineage)
{
  g_return_if_fail (BPW_IS_WINDOW (self));

  self->selected_lineage = lineage;
  bpw_window_charts_apply (self, NULL);
}

guint32
bpw_window_get_selected_lineage (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), BPW_PLOT_NO_LINEAGE);
  return self->selected_lineage;
}

static void
bpw_window_charts_view_selected_cb (BpwWindow   *self,
                                    guint        lineage,
                                    BpwPlotView *view)
{
  if (self->selecting)
    return;
  self->selected_lineage = lineage;
  bpw_window_charts_apply (self, view);
}

static void
bpw_window_charts_sheet_selected_cb (BpwWindow *self)
{
  BpwSheetItem *item = bpw_sheet_page_get_selected_item (self->sheet_page);

  /* Rows replaced after an edit unselect: that is not the user's choice. */
  if (self->selecting || item == NULL)
    return;
  self->selected_lineage = bpw_sheet_item_get_lineage (item);
  bpw_window_charts_apply (self, self->sheet_page);
}

/* New rows, a new step or a new index: the selection finds its items in them. */
static void
bpw_window_charts_refreshed_cb (BpwWindow *self,
                                GParamSpec *pspec,
                                GObject    *object)
{
  gboolean busy = FALSE;

  g_object_get (object, "busy", &busy, NULL);
  if (!busy && self->selected_lineage != BPW_PLOT_NO_LINEAGE)
    bpw_window_charts_apply (self, NULL);
}

/* The job simulates while a page that shows its step is visible. */
static void
bpw_window_charts_page_cb (BpwWindow *self)
{
  const char *name = adw_view_stack_get_visible_child_name (self->view_stack);

  bpw_simulation_job_set_active (self->simulation, g_strcmp0 (name, "timeline") == 0
                                                   || g_strcmp0 (name, "memory") == 0);
}

void
_bpw_window_charts_update (BpwWindow *self)
{
  bpw_simulation_job_update (self->simulation, self->study,
                             bpw_sheet_page_get_candidate (self->sheet_page),
                             bpw_sheet_page_get_scenario (self->sheet_page), FALSE);
}

/* Export ---------------------------------------------------------------------------- */

static GtkWidget *
bpw_window_charts_find_view (GtkWidget *widget)
{
  if (BPW_IS_PLOT_VIEW (widget))
    return widget;
  /* In a stack, the chart shown. */
  if (GTK_IS_STACK (widget))
    return gtk_stack_get_visible_child (GTK_STACK (widget)) != NULL
           ? bpw_window_charts_find_view (gtk_stack_get_visible_child (GTK_STACK (widget)))
           : NULL;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = bpw_window_charts_find_view (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The view of an Export menu target (nullable). Targets of pages added later find the
 * chart on the page of that name. */
static BpwPlotView *
bpw_window_charts_lookup_view (BpwWindow  *self,
                               const char *target)
{
  GtkWidget *page;

  if (g_str_equal (target, "timeline"))
    return bpw_timeline_page_get_view (self->timeline_page);
  if (g_str_equal (target, "lifetimes") || g_str_equal (target, "memory"))
    return bpw_memory_page_get_view (self->memory_page);
  if (g_str_equal (target, "roofline"))
    return self->roofline_view;
  if (g_str_equal (target, "assignment"))
    return self->assignment_view;
  page = adw_view_stack_get_child_by_name (self->view_stack, g_str_equal (target, "trade")
                                                             ? "tradeoffs" : target);
  page = page != NULL ? bpw_window_charts_find_view (page) : NULL;
  return page != NULL ? BPW_PLOT_VIEW (page) : NULL;
}

gboolean
bpw_window_export_chart (BpwWindow   *self,
                         const char  *target,
                         const char  *path,
                         double       scale,
                         GError     **error)
{
  BpwPlotView *view;
  BpwPlot *plot;

  g_return_val_if_fail (BPW_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (target != NULL && path != NULL, FALSE);

  view = bpw_window_charts_lookup_view (self, target);
  plot = view != NULL ? bpw_plot_view_get_plot (view) : NULL;
  if (plot == NULL || !bpw_plot_get_bounds (plot, &(BpwPlotViewport) { 0 }))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The chart has nothing to export yet; wait until it is drawn."));
      return FALSE;
    }
  return bpw_plot_view_export (view, path, scale, error);
}

static gboolean
bpw_window_charts_is_table (const char *target)
{
  return g_str_equal (target, "overview") || g_str_equal (target, "sheet");
}

/* Success or failure, in a toast; the study is never touched. */
static void
bpw_window_charts_exported (BpwWindow  *self,
                            const char *path,
                            GError     *error)
{
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *message = NULL;

  if (error != NULL)
    /* Translators: "Could not export “timeline.png”: <the reason>" */
    message = g_strdup_printf (_("Could not export “%s”: %s"), name, error->message);
  else
    message = g_strdup_printf (_("Exported “%s”"), name);
  _bpw_window_show_toast (self, message);
}

typedef struct
{
  BpwWindow *self;
  char      *path;
} BpwTableExport;

static void
bpw_window_charts_sheet_exported_cb (GObject      *object,
                                     GAsyncResult *result,
                                     gpointer      user_data)
{
  BpwTableExport *export = user_data;
  g_autoptr(GError) error = NULL;

  bpw_table_export_sheet_finish (result, &error);
  bpw_window_charts_exported (export->self, export->path, error);
  g_object_unref (export->self);
  g_free (export->path);
  g_free (export);
}

/* The Overview's items at once; the Sheet's plan is bound again in a worker thread. */
static void
bpw_window_charts_export_table (BpwWindow  *self,
                                const char *target,
                                const char *path)
{
  g_autofree char *csv = NULL;
  g_autoptr(GError) error = NULL;

  if (g_str_equal (target, "sheet"))
    {
      BpwTableExport *export = g_new0 (BpwTableExport, 1);

      export->self = g_object_ref (self);
      export->path = g_strdup (path);
      bpw_table_export_sheet_async (self->study, bpw_sheet_page_get_candidate (self->sheet_page),
                                    bpw_sheet_page_get_scenario (self->sheet_page), path,
                                    NULL, bpw_window_charts_sheet_exported_cb,
                                    export);
      return;
    }
  csv = bpw_table_export_overview_csv (G_LIST_MODEL (self->overview_items));
  bpw_file_replace_contents (path, csv, -1, &error);
  bpw_window_charts_exported (self, path, error);
}

static void
bpw_window_charts_export_response_cb (BpwWindow            *self,
                                      int                   response,
                                      GtkFileChooserNative *native)
{
  const char *target = g_object_get_data (G_OBJECT (native), "bpw-target");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  double scale = 2.0;

  if (response == GTK_RESPONSE_ACCEPT)
    path = bpw_export_chooser_dup_path (native, &scale);
  if (path != NULL && bpw_window_charts_is_table (target))
    bpw_window_charts_export_table (self, target, path);
  else if (path != NULL)
    {
      bpw_window_export_chart (self, target, path, scale, &error);
      bpw_window_charts_exported (self, path, error);
    }
  if (self->export_dialog == GTK_NATIVE_DIALOG (native))
    self->export_dialog = NULL;
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (native));
  g_object_unref (native);
}

static void
bpw_window_export_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  const char *target = g_variant_get_string (parameter, NULL);
  BpwPlotView *view = bpw_window_charts_lookup_view (self, target);
  BpwPlot *plot = view != NULL ? bpw_plot_view_get_plot (view) : NULL;
  gboolean table = bpw_window_charts_is_table (target);
  g_autofree char *name = NULL;
  GtkFileChooserNative *native;

  if (self->study == NULL || (plot == NULL && !table))
    {
      _bpw_window_show_toast (self, _("This page has no chart to export."));
      return;
    }
  /* The simulated step is computed while the dialog is open, if it is not yet. */
  if (view == bpw_timeline_page_get_view (self->timeline_page)
      || view == bpw_memory_page_get_view (self->memory_page))
    {
      bpw_simulation_job_set_active (self->simulation, TRUE);
      bpw_window_charts_page_cb (self);
    }
  if (table)
    /* Translators: file name of an exported table, "GPT-3 study – sheet" */
    name = g_strdup_printf (_("%s – %s"), bpw_study_get_name (self->study), target);
  native = bpw_export_chooser_new (GTK_WINDOW (self), table ? name : bpw_plot_get_title (plot),
                                   !table);
  g_object_set_data_full (G_OBJECT (native), "bpw-target", g_strdup (target), g_free);
  g_signal_connect_object (native, "response",
                           G_CALLBACK (bpw_window_charts_export_response_cb), self,
                           G_CONNECT_SWAPPED);
  self->export_dialog = GTK_NATIVE_DIALOG (native);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* The Export menu's target for the page in view: its chart, or its table. */
static const char *
bpw_window_charts_page_target (BpwWindow *self)
{
  const char *page = adw_view_stack_get_visible_child_name (self->view_stack);

  if (page == NULL)
    return NULL;
  if (g_str_equal (page, "memory"))
    return "lifetimes";
  if (g_str_equal (page, "tradeoffs"))
    return "trade";
  /* The Roofline page stacks the roofline and the engine assignment: the one shown. */
  if (g_str_equal (page, "roofline") && gtk_widget_get_mapped (GTK_WIDGET (self->assignment_view)))
    return "assignment";
  return page;
}

/* Ctrl+E, wherever the focus is: the chart (or table) of the page in view. */
static void
bpw_window_export_page_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  BpwWindow *self = BPW_WINDOW (widget);
  const char *target = bpw_window_charts_page_target (self);

  if (target == NULL)
    return;
  gtk_widget_activate_action (widget, "win.export", "s", target);
}

GtkNativeDialog *
bpw_window_get_export_dialog (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->export_dialog;
}

BpwSimulationJob *
bpw_window_get_simulation_job (BpwWindow *self)
{
  g_return_val_if_fail (BPW_IS_WINDOW (self), NULL);
  return self->simulation;
}

/* Set up ----------------------------------------------------------------------------- */

void
_bpw_window_charts_set_units (BpwWindow    *self,
                              BpwByteUnits  units)
{
  static const char * const targets[] = {
    "timeline", "memory", "roofline", "assignment", "trade", "compare",
  };

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      BpwPlotView *view = bpw_window_charts_lookup_view (self, targets[i]);

      if (view != NULL)
        bpw_plot_view_set_decimal_bytes (view, units == BPW_BYTE_UNITS_DECIMAL);
    }
}

void
_bpw_window_class_charts_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.export", "s", bpw_window_export_action);
  gtk_widget_class_install_action (widget_class, "win.export-page", NULL,
                                   bpw_window_export_page_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "win.export-page", NULL);
}

void
_bpw_window_charts_init (BpwWindow *self)
{
  BpwPlotView *views[] = {
    self->roofline_view, self->assignment_view,
    bpw_timeline_page_get_view (self->timeline_page),
    bpw_memory_page_get_view (self->memory_page),
  };

  self->simulation = bpw_simulation_job_new ();
  self->selected_lineage = BPW_PLOT_NO_LINEAGE;
  bpw_timeline_page_set_job (self->timeline_page, self->simulation);
  bpw_memory_page_set_job (self->memory_page, self->simulation);
  g_signal_connect_object (self->view_stack, "notify::visible-child-name",
                           G_CALLBACK (bpw_window_charts_page_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->simulation, "notify::busy",
                           G_CALLBACK (bpw_window_charts_refreshed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sheet_page, "notify::busy",
                           G_CALLBACK (bpw_window_charts_refreshed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sheet_page, "notify::selected-item",
                           G_CALLBACK (bpw_window_charts_sheet_selected_cb), self,
                           G_CONNECT_SWAPPED);
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    g_signal_connect_object (views[i], "item-selected",
                             G_CALLBACK (bpw_window_charts_view_selected_cb), self,
                             G_CONNECT_SWAPPED);
  bpw_window_charts_page_cb (self);
}

void
_bpw_window_charts_dispose (BpwWindow *self)
{
  if (self->export_dialog != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->export_dialog, self);
      gtk_native_dialog_destroy (self->export_dialog);
      g_clear_object (&self->export_dialog);
    }
  if (self->simulation != NULL)
    bpw_simulation_job_cancel (self->simulation);
  g_clear_object (&self->simulation);
}
