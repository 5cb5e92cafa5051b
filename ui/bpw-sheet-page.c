/* bpw-sheet-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rows come from the scenario's work graph today; when the core produces the mapping
 * sheet, only bpw_sheet_page_compute_thread() and BpwSheetItem change.
 */
#define G_LOG_DOMAIN "bpw-sheet-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-sheet-page.h"

struct _BpwSheetPage
{
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkWidget          *toolbar;
  GtkWidget          *separator;
  GtkDropDown        *scenario_dropdown;
  GtkSearchEntry     *search_entry;
  GtkSpinner         *spinner;
  GtkLabel           *count_label;
  GtkStack           *stack;
  AdwStatusPage      *error_page;
  GtkColumnView      *column_view;

  /* Owned references */
  BpwStudy           *study;
  GtkStringList      *scenario_names;
  GListStore         *rows;
  GtkCustomFilter    *filter;
  GtkFilterListModel *filtered;
  GtkSortListModel   *sorted;
  GtkSingleSelection *selection;
  GCancellable       *cancellable;
  char               *needle;      /* casefolded filter text */
  char               *error;       /* nullable: why the rows could not be computed */

  BpwByteUnits        units;
  guint               generation;
  gboolean            busy;
  gboolean            updating_dropdown;
};

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwSheetPage, bpw_sheet_page, GTK_TYPE_WIDGET)

typedef struct
{
  BpwModelSpec spec;
  BpwScenario  scenario;
  guint        generation;
} BpwSheetJob;

static void
bpw_sheet_job_free (BpwSheetJob *job)
{
  bpw_model_spec_clear (&job->spec);
  bpw_scenario_clear (&job->scenario);
  g_free (job);
}

static void
bpw_sheet_page_compute_thread (GTask        *task,
                               gpointer      source_object,
                               gpointer      task_data,
                               GCancellable *cancellable)
{
  BpwSheetJob *job = task_data;
  g_autoptr(BpwWorkGraph) graph = NULL;
  GError *error = NULL;

  graph = bpw_work_graph_new (&job->spec, &job->scenario, &error);
  if (graph == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, bpw_sheet_item_list_from_graph (graph),
                         (GDestroyNotify) g_ptr_array_unref);
}

static void
bpw_sheet_page_set_busy (BpwSheetPage *self,
                         gboolean      busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  gtk_spinner_set_spinning (self->spinner, busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* The stack page and the count follow from the rows, the filter and the error. */
static void
bpw_sheet_page_update_state (BpwSheetPage *self)
{
  guint total = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));
  g_autofree char *count = NULL;

  if (self->study == NULL || bpw_study_get_n_scenarios (self->study) == 0)
    gtk_stack_set_visible_child_name (self->stack, "empty");
  else if (self->error != NULL)
    {
      adw_status_page_set_description (self->error_page, self->error);
      gtk_stack_set_visible_child_name (self->stack, "error");
    }
  else if (total > 0 && shown == 0)
    gtk_stack_set_visible_child_name (self->stack, "no-match");
  else
    gtk_stack_set_visible_child_name (self->stack, "table");

  if (total == 0)
    count = g_strdup ("");
  else if (shown == total)
    count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "%u operation, per step for the whole job",
                                          "%u operations, per step for the whole job", total),
                             total);
  else
    /* Translators: filtered count, e.g. "12 of 214 operations" */
    count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u operation",
                                          "%u of %u operations", total), shown, total);
  gtk_label_set_text (self->count_label, count);
}

static void
bpw_sheet_page_compute_cb (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  BpwSheetPage *self = BPW_SHEET_PAGE (object);
  BpwSheetJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;

  rows = g_task_propagate_pointer (G_TASK (result), &error);
  if (job->generation != self->generation
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;  /* a newer scenario or study has replaced this one */

  g_clear_pointer (&self->error, g_free);
  if (rows == NULL)
    {
      self->error = g_strdup (error->message);
      g_list_store_remove_all (self->rows);
    }
  else
    g_list_store_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                         rows->pdata, rows->len);

  bpw_sheet_page_set_busy (self, FALSE);
  bpw_sheet_page_update_state (self);
}

static void
bpw_sheet_page_compute (BpwSheetPage *self)
{
  g_autoptr(GTask) task = NULL;
  const BpwStudyScenario *s;
  BpwSheetJob *job;
  guint index = bpw_sheet_page_get_scenario (self);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->generation++;
  g_clear_pointer (&self->error, g_free);
  g_list_store_remove_all (self->rows);

  if (self->study == NULL || index >= bpw_study_get_n_scenarios (self->study))
    {
      bpw_sheet_page_set_busy (self, FALSE);
      bpw_sheet_page_update_state (self);
      return;
    }

  /* Copies: the worker reads nothing the study may change meanwhile. */
  s = bpw_study_get_scenario (self->study, index);
  job = g_new0 (BpwSheetJob, 1);
  bpw_model_spec_copy (&job->spec, &bpw_study_get_workload (self->study, s->workload)->spec);
  bpw_scenario_copy (&job->scenario, &s->scenario);
  job->generation = self->generation;

  self->cancellable = g_cancellable_new ();
  bpw_sheet_page_set_busy (self, TRUE);
  bpw_sheet_page_update_state (self);
  task = g_task_new (self, self->cancellable, bpw_sheet_page_compute_cb, NULL);
  g_task_set_source_tag (task, bpw_sheet_page_compute);
  g_task_set_task_data (task, job, (GDestroyNotify) bpw_sheet_job_free);
  g_task_run_in_thread (task, bpw_sheet_page_compute_thread);
}

static void
bpw_sheet_page_scenario_cb (BpwSheetPage *self)
{
  if (!self->updating_dropdown)
    bpw_sheet_page_compute (self);
}

static gboolean
bpw_sheet_page_filter_func (gpointer item,
                            gpointer user_data)
{
  BpwSheetPage *self = user_data;

  return bpw_sheet_item_matches (item, self->needle);
}

static void
bpw_sheet_page_apply_filter (BpwSheetPage *self,
                             const char   *text)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text != NULL ? text : ""));
  g_autofree char *needle = g_utf8_casefold (stripped, -1);

  if (g_strcmp0 (needle, self->needle) == 0)
    return;
  g_free (self->needle);
  self->needle = g_steal_pointer (&needle);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  bpw_sheet_page_update_state (self);
}

static void
bpw_sheet_page_search_changed_cb (BpwSheetPage   *self,
                                  GtkSearchEntry *entry)
{
  bpw_sheet_page_apply_filter (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
bpw_sheet_page_cell_setup_cb (GtkSignalListItemFactory *factory,
                              GtkListItem              *item,
                              gpointer                  user_data)
{
  BpwSheetColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "bpw-column"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), bpw_sheet_column_is_numeric (column) ? 1.0 : 0.0);
  if (bpw_sheet_column_is_numeric (column) || column == BPW_SHEET_COLUMN_SHAPE)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bpw_sheet_page_cell_bind_cb (GtkSignalListItemFactory *factory,
                             GtkListItem              *item,
                             BpwSheetPage             *self)
{
  BpwSheetColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "bpw-column"));
  BpwSheetItem *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = bpw_sheet_item_format (row, column, self->units);
  g_autofree char *tooltip = bpw_sheet_item_dup_tooltip (row, column);

  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (label, tooltip);
}

static int
bpw_sheet_page_compare_cb (gconstpointer a,
                           gconstpointer b,
                           gpointer      user_data)
{
  int order = bpw_sheet_item_compare ((BpwSheetItem *) a, (BpwSheetItem *) b,
                                     GPOINTER_TO_INT (user_data));

  return order < 0 ? GTK_ORDERING_SMALLER : order > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void
bpw_sheet_page_add_columns (BpwSheetPage *self)
{
  for (int c = 0; c < BPW_N_SHEET_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      g_autoptr(GtkCustomSorter) sorter = NULL;

      g_object_set_data (G_OBJECT (factory), "bpw-column", GINT_TO_POINTER (c));
      g_signal_connect (factory, "setup", G_CALLBACK (bpw_sheet_page_cell_setup_cb), NULL);
      g_signal_connect_object (factory, "bind", G_CALLBACK (bpw_sheet_page_cell_bind_cb),
                               self, 0);

      column = gtk_column_view_column_new (bpw_sheet_column_get_title (c), factory);
      sorter = gtk_custom_sorter_new (bpw_sheet_page_compare_cb, GINT_TO_POINTER (c), NULL);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, c == BPW_SHEET_COLUMN_OPERATION);
      gtk_column_view_append_column (self->column_view, column);
    }
}

static void
bpw_sheet_page_dispose (GObject *object)
{
  BpwSheetPage *self = (BpwSheetPage *) object;

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_SHEET_PAGE);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  g_clear_object (&self->rows);
  g_clear_object (&self->scenario_names);
  g_clear_object (&self->study);
  g_clear_pointer (&self->needle, g_free);
  g_clear_pointer (&self->error, g_free);

  G_OBJECT_CLASS (bpw_sheet_page_parent_class)->dispose (object);
}

static void
bpw_sheet_page_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  BpwSheetPage *self = BPW_SHEET_PAGE (object);

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
bpw_sheet_page_class_init (BpwSheetPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_sheet_page_dispose;
  object_class->get_property = bpw_sheet_page_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sheetpage");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-sheet-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, toolbar);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, separator);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, scenario_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, count_label);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, stack);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, column_view);
}

static void
bpw_sheet_page_init (BpwSheetPage *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  GtkSorter *sorter;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->needle = g_strdup ("");
  self->scenario_names = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->scenario_dropdown, G_LIST_MODEL (self->scenario_names));
  g_signal_connect_object (self->scenario_dropdown, "notify::selected",
                           G_CALLBACK (bpw_sheet_page_scenario_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "search-changed",
                           G_CALLBACK (bpw_sheet_page_search_changed_cb), self,
                           G_CONNECT_SWAPPED);

  self->rows = g_list_store_new (BPW_TYPE_SHEET_ITEM);
  self->filter = gtk_custom_filter_new (bpw_sheet_page_filter_func, self, NULL);
  self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->rows)),
                                              g_object_ref (GTK_FILTER (self->filter)));
  bpw_sheet_page_add_columns (self);
  sorter = gtk_column_view_get_sorter (self->column_view);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filtered)),
                                          g_object_ref (sorter));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));

  bpw_sheet_page_update_state (self);
}

void
bpw_sheet_page_set_study (BpwSheetPage *self,
                          BpwStudy     *study)
{
  g_autofree char *previous = NULL;
  guint n, selected = GTK_INVALID_LIST_POSITION;

  g_return_if_fail (BPW_IS_SHEET_PAGE (self));
  g_return_if_fail (study == NULL || BPW_IS_STUDY (study));

  if (self->study != NULL && bpw_sheet_page_get_scenario (self) != GTK_INVALID_LIST_POSITION)
    previous = g_strdup (bpw_study_get_scenario (self->study,
                                                 bpw_sheet_page_get_scenario (self))->name);
  g_set_object (&self->study, study);

  n = study != NULL ? bpw_study_get_n_scenarios (study) : 0;
  self->updating_dropdown = TRUE;
  gtk_string_list_splice (self->scenario_names, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->scenario_names)),
                          NULL);
  for (guint i = 0; i < n; i++)
    {
      const char *name = bpw_study_get_scenario (study, i)->name;

      gtk_string_list_append (self->scenario_names, name);
      if (g_strcmp0 (name, previous) == 0)
        selected = i;
    }
  if (selected == GTK_INVALID_LIST_POSITION && n > 0)
    selected = 0;
  gtk_drop_down_set_selected (self->scenario_dropdown, selected);
  gtk_widget_set_sensitive (GTK_WIDGET (self->scenario_dropdown), n > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->search_entry), n > 0);
  self->updating_dropdown = FALSE;

  bpw_sheet_page_compute (self);
}

void
bpw_sheet_page_select_scenario (BpwSheetPage *self,
                                guint         index)
{
  g_return_if_fail (BPW_IS_SHEET_PAGE (self));

  if (index == bpw_sheet_page_get_scenario (self))
    return;
  /* notify::selected starts the computation. */
  gtk_drop_down_set_selected (self->scenario_dropdown, index);
}

guint
bpw_sheet_page_get_scenario (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), GTK_INVALID_LIST_POSITION);
  return gtk_drop_down_get_selected (self->scenario_dropdown);
}

void
bpw_sheet_page_set_filter_text (BpwSheetPage *self,
                                const char   *text)
{
  g_return_if_fail (BPW_IS_SHEET_PAGE (self));

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text != NULL ? text : "");
  bpw_sheet_page_apply_filter (self, text);
}

GListModel *
bpw_sheet_page_get_rows (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), NULL);
  return G_LIST_MODEL (self->rows);
}

GListModel *
bpw_sheet_page_get_visible_rows (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

gboolean
bpw_sheet_page_get_busy (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), FALSE);
  return self->busy;
}

void
bpw_sheet_page_set_units (BpwSheetPage *self,
                          BpwByteUnits  units)
{
  g_return_if_fail (BPW_IS_SHEET_PAGE (self));

  if (self->units == units)
    return;
  self->units = units;
  /* Rebinding every visible cell is the simplest way to reformat them. */
  gtk_column_view_set_model (self->column_view, NULL);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
}

void
bpw_sheet_page_focus_search (BpwSheetPage *self)
{
  g_return_if_fail (BPW_IS_SHEET_PAGE (self));
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}
