/* bpw-sheet-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rows are the core's mapping sheet of one candidate's plan for one scenario
 * (bpw-sheet-page-compute.c binds it); this file is the widget around them.
 */
#define G_LOG_DOMAIN "bpw-sheet-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-sheet-page-private.h"
#include "bpw-tooltip.h"

enum {
  PROP_0,
  PROP_BUSY,
  PROP_CANDIDATE,
  PROP_SCENARIO,
  PROP_SELECTED_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The operation's name asks for room for this many characters, and gets at least
 * NAME_MIN_CHARS; beyond that, what the other columns leave. */
#define NAME_CHARS 16
#define NAME_MIN_CHARS 12

G_DEFINE_FINAL_TYPE (BpwSheetPage, bpw_sheet_page, GTK_TYPE_WIDGET)

void
_bpw_sheet_page_set_busy (BpwSheetPage *self,
                          gboolean      busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  gtk_spinner_set_spinning (self->spinner, busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

void
_bpw_sheet_page_update_state (BpwSheetPage *self)
{
  guint total = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));
  g_autofree char *count = NULL;

  if (self->study == NULL || bpw_study_get_n_scenarios (self->study) == 0
      || bpw_study_get_n_candidates (self->study) == 0)
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
  gtk_widget_set_visible (GTK_WIDGET (self->layer_expander),
                          self->error == NULL && total > 0
                          && bpw_layer_summary_get_n_rows (self->layer_summary) > 0);

  if (total == 0)
    count = g_strdup ("");
  else
    {
      g_autofree char *step = bpw_format_seconds (self->step_time);

      if (shown == total)
        /* Translators: %u rows, then the step time of the bound plan, e.g. "7.48 s" */
        count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                              "%u row · one rank per stage · step %s",
                                              "%u rows · one rank per stage · step %s", total),
                                 total, step);
      else
        /* Translators: filtered count, e.g. "12 of 214 rows · step 7.48 s" */
        count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u row · step %s",
                                              "%u of %u rows · step %s", total),
                                 shown, total, step);
    }
  gtk_label_set_text (self->count_label, count);
}

static void
bpw_sheet_page_scenario_cb (BpwSheetPage *self)
{
  if (self->updating_dropdown)
    return;
  _bpw_sheet_page_compute (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCENARIO]);
}

static void
bpw_sheet_page_candidate_cb (BpwSheetPage *self)
{
  if (self->updating_dropdown)
    return;
  _bpw_sheet_page_compute (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CANDIDATE]);
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
  _bpw_sheet_page_update_state (self);
}

static void
bpw_sheet_page_search_changed_cb (BpwSheetPage   *self,
                                  GtkSearchEntry *entry)
{
  bpw_sheet_page_apply_filter (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* Names of the column-visibility actions ("sheet.column-ID"), in column order. */
static const char * const column_ids[] = {
  "operation", "stage", "phase", "engine", "flops", "bytes", "intensity", "tile", "fusion",
  "precision", "time", "per-step", "stack", "bottleneck", "lineage",
};
G_STATIC_ASSERT (G_N_ELEMENTS (column_ids) == BPW_N_SHEET_COLUMNS);

static void
bpw_sheet_page_cell_setup_cb (GtkSignalListItemFactory *factory,
                              GtkListItem              *item,
                              gpointer                  user_data)
{
  BpwSheetColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "bpw-column"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), bpw_sheet_column_is_numeric (column) ? 1.0 : 0.0);
  if (bpw_sheet_column_is_numeric (column))
    gtk_widget_add_css_class (label, "numeric");
  /* The name takes the room the other columns leave and is ellipsized below it, as on the
   * Validation page; its tooltip starts with the whole name. Asking for no more than
   * NAME_CHARS keeps a long name from pushing the last columns out of sight. */
  if (column == BPW_SHEET_COLUMN_OPERATION)
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_width_chars (GTK_LABEL (label), NAME_MIN_CHARS);
      gtk_label_set_max_width_chars (GTK_LABEL (label), NAME_CHARS);
    }
  gtk_list_item_set_child (item, label);
}

static void
bpw_sheet_page_cell_update (GtkWidget *label)
{
  BpwSheetPage *self = g_object_get_data (G_OBJECT (label), "bpw-page");
  BpwSheetItem *row = g_object_get_data (G_OBJECT (label), "bpw-item");
  BpwSheetColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (label), "bpw-column"));
  g_autofree char *text = bpw_sheet_item_format (row, column, self->units);
  g_autofree char *tooltip = bpw_sheet_item_dup_tooltip (row, column);

  gtk_label_set_text (GTK_LABEL (label), text);
  bpw_tooltip_set (label, tooltip);
}

static void
bpw_sheet_page_cell_bind_cb (GtkSignalListItemFactory *factory,
                             GtkListItem              *item,
                             BpwSheetPage             *self)
{
  BpwSheetColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "bpw-column"));
  BpwSheetItem *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  gulong id;

  g_object_set_data (G_OBJECT (label), "bpw-page", self);
  g_object_set_data (G_OBJECT (label), "bpw-item", row);
  g_object_set_data (G_OBJECT (label), "bpw-column", GINT_TO_POINTER (column));
  bpw_sheet_page_cell_update (label);
  /* An edit updates the rows in place; the cell follows its row. */
  id = g_signal_connect_swapped (row, "changed", G_CALLBACK (bpw_sheet_page_cell_update), label);
  g_object_set_data (G_OBJECT (label), "bpw-changed-id", GSIZE_TO_POINTER ((gsize) id));
}

static void
bpw_sheet_page_cell_unbind_cb (GtkSignalListItemFactory *factory,
                               GtkListItem              *item,
                               BpwSheetPage             *self)
{
  GtkWidget *label = gtk_list_item_get_child (item);
  gulong id = (gulong) GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (label),
                                                             "bpw-changed-id"));

  if (id != 0)
    g_signal_handler_disconnect (gtk_list_item_get_item (item), id);
  g_object_set_data (G_OBJECT (label), "bpw-changed-id", NULL);
  g_object_set_data (G_OBJECT (label), "bpw-item", NULL);
}

static int
bpw_sheet_page_compare_cb (gconstpointer a,
                           gconstpointer b,
                           gpointer      user_data)
{
  int order = bpw_sheet_item_compare ((BpwSheetItem *) a, (BpwSheetItem *) b,
                                     GPOINTER_TO_INT (user_data));

  return gtk_ordering_from_cmpfunc (order);
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
      g_signal_connect_object (factory, "unbind", G_CALLBACK (bpw_sheet_page_cell_unbind_cb),
                               self, 0);

      column = gtk_column_view_column_new (bpw_sheet_column_get_title (c), factory);
      sorter = gtk_custom_sorter_new (bpw_sheet_page_compare_cb, GINT_TO_POINTER (c), NULL);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, c == BPW_SHEET_COLUMN_OPERATION);
      gtk_column_view_column_set_visible (column, c != BPW_SHEET_COLUMN_LINEAGE);
      gtk_column_view_append_column (self->column_view, column);
    }
}

/* GTK 4.8 has no API for a column header's tooltip. The header row is the column view's
 * child that is not its list; it holds one title per column, in column order, each with
 * the column's title in a label. A title whose label does not match is left alone. */
static void
bpw_sheet_page_set_header_tooltips (BpwSheetPage *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->column_view);

  for (GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (self->column_view));
       header != NULL; header = gtk_widget_get_next_sibling (header))
    {
      guint c = 0;

      if (GTK_IS_LIST_VIEW (header))
        continue;
      for (GtkWidget *title = gtk_widget_get_first_child (header);
           title != NULL && c < g_list_model_get_n_items (columns);
           title = gtk_widget_get_next_sibling (title), c++)
        {
          g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);
          GtkWidget *label = title;

          while (label != NULL && !GTK_IS_LABEL (label))
            label = gtk_widget_get_first_child (label);
          if (label != NULL && g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)),
                                          gtk_column_view_column_get_title (column)) == 0)
            gtk_widget_set_tooltip_text (title, bpw_sheet_column_get_description (c));
        }
    }
}

/* Every column but the operation's can be hidden, from the Columns button or a header's
 * context menu: stateful actions bound to the columns' visibility. */
static void
bpw_sheet_page_add_column_menu (BpwSheetPage *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->column_view);
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GMenu) menu = g_menu_new ();

  for (guint c = BPW_SHEET_COLUMN_OPERATION + 1; c < BPW_N_SHEET_COLUMNS; c++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);
      g_autofree char *name = g_strconcat ("column-", column_ids[c], NULL);
      g_autofree char *detailed = g_strconcat ("sheet.", name, NULL);
      g_autoptr(GPropertyAction) action = g_property_action_new (name, column, "visible");

      g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (action));
      g_menu_append (menu, bpw_sheet_column_get_name (c), detailed);
    }
  gtk_widget_insert_action_group (GTK_WIDGET (self), "sheet", G_ACTION_GROUP (group));
  gtk_menu_button_set_menu_model (self->columns_button, G_MENU_MODEL (menu));
  for (guint c = 0; c < BPW_N_SHEET_COLUMNS; c++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);

      gtk_column_view_column_set_header_menu (column, G_MENU_MODEL (menu));
    }
}

static void
bpw_sheet_page_selected_cb (BpwSheetPage *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_ITEM]);
}

static void
bpw_sheet_page_dispose (GObject *object)
{
  BpwSheetPage *self = (BpwSheetPage *) object;

  g_clear_pointer (&self->jobs, bpw_job_queue_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_SHEET_PAGE);

  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  g_clear_object (&self->rows);
  g_clear_object (&self->scenario_names);
  g_clear_object (&self->candidate_names);
  g_clear_object (&self->study);
  g_clear_object (&self->roofline_plot);
  g_clear_object (&self->assignment_plot);
  g_clear_pointer (&self->needle, g_free);
  g_clear_pointer (&self->error, g_free);
  _bpw_sheet_page_forget_shown (self);

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
    case PROP_CANDIDATE:
      g_value_set_uint (value, bpw_sheet_page_get_candidate (self));
      break;
    case PROP_SCENARIO:
      g_value_set_uint (value, bpw_sheet_page_get_scenario (self));
      break;
    case PROP_SELECTED_ITEM:
      g_value_set_object (value, bpw_sheet_page_get_selected_item (self));
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
  /* Notified when the user picks another one in the toolbar. */
  properties[PROP_CANDIDATE] =
    g_param_spec_uint ("candidate", NULL, NULL, 0, G_MAXUINT, G_MAXUINT,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SCENARIO] =
    g_param_spec_uint ("scenario", NULL, NULL, 0, G_MAXUINT, G_MAXUINT,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The row picked in the table: the operation the other views select too. */
  properties[PROP_SELECTED_ITEM] =
    g_param_spec_object ("selected-item", NULL, NULL, BPW_TYPE_SHEET_ITEM,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sheetpage");
  g_type_ensure (BPW_TYPE_LAYER_SUMMARY);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-sheet-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, toolbar);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, separator);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, candidate_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, scenario_dropdown);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, columns_button);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, count_label);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, stack);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, error_page);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, column_view);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, layer_expander);
  gtk_widget_class_bind_template_child (widget_class, BpwSheetPage, layer_summary);
}

static void
bpw_sheet_page_init (BpwSheetPage *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  GtkSorter *sorter;

  self->jobs = bpw_job_queue_new ();
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->needle = g_strdup ("");
  self->roofline_plot = bpw_roofline_plot_new (NULL);
  self->assignment_plot = bpw_assignment_plot_new (NULL);
  self->scenario_names = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->scenario_dropdown, G_LIST_MODEL (self->scenario_names));
  self->candidate_names = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->candidate_dropdown, G_LIST_MODEL (self->candidate_names));
  g_signal_connect_object (self->candidate_dropdown, "notify::selected",
                           G_CALLBACK (bpw_sheet_page_candidate_cb), self, G_CONNECT_SWAPPED);
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
  bpw_sheet_page_add_column_menu (self);
  bpw_sheet_page_set_header_tooltips (self);
  sorter = gtk_column_view_get_sorter (self->column_view);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filtered)),
                                          g_object_ref (sorter));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (bpw_sheet_page_selected_cb), self, G_CONNECT_SWAPPED);

  _bpw_sheet_page_update_state (self);
}

/* Fills @list with the names and returns the index of @previous among them, else 0 (or
 * GTK_INVALID_LIST_POSITION for an empty list). */
static guint
bpw_sheet_page_fill_names (GtkStringList *list,
                           const char   **names,
                           guint          n,
                           const char    *previous)
{
  guint selected = n > 0 ? 0 : GTK_INVALID_LIST_POSITION;

  gtk_string_list_splice (list, 0, g_list_model_get_n_items (G_LIST_MODEL (list)), NULL);
  for (guint i = 0; i < n; i++)
    {
      gtk_string_list_append (list, names[i]);
      if (g_strcmp0 (names[i], previous) == 0)
        selected = i;
    }
  return selected;
}

void
bpw_sheet_page_set_study (BpwSheetPage *self,
                          BpwStudy     *study)
{
  g_autofree char *previous_scenario = NULL;
  g_autofree char *previous_candidate = NULL;
  g_autofree const char **names = NULL;
  guint n_scenarios, n_candidates, n;

  g_return_if_fail (BPW_IS_SHEET_PAGE (self));
  g_return_if_fail (study == NULL || BPW_IS_STUDY (study));

  /* The same names stay selected in a changed study. */
  if (self->study != NULL
      && bpw_sheet_page_get_scenario (self) < bpw_study_get_n_scenarios (self->study))
    previous_scenario = g_strdup (bpw_study_get_scenario (
      self->study, bpw_sheet_page_get_scenario (self))->name);
  if (self->study != NULL
      && bpw_sheet_page_get_candidate (self) < bpw_study_get_n_candidates (self->study))
    previous_candidate = g_strdup (bpw_study_get_candidate (
      self->study, bpw_sheet_page_get_candidate (self))->name);
  g_set_object (&self->study, study);

  n_scenarios = study != NULL ? bpw_study_get_n_scenarios (study) : 0;
  n_candidates = study != NULL ? bpw_study_get_n_candidates (study) : 0;
  names = g_new0 (const char *, MAX (n_scenarios, n_candidates) + 1);
  self->updating_dropdown = TRUE;
  for (guint i = 0; i < n_scenarios; i++)
    names[i] = bpw_study_get_scenario (study, i)->name;
  n = bpw_sheet_page_fill_names (self->scenario_names, names, n_scenarios, previous_scenario);
  gtk_drop_down_set_selected (self->scenario_dropdown, n);
  for (guint i = 0; i < n_candidates; i++)
    names[i] = bpw_study_get_candidate (study, i)->name;
  n = bpw_sheet_page_fill_names (self->candidate_names, names, n_candidates,
                                 previous_candidate);
  gtk_drop_down_set_selected (self->candidate_dropdown, n);
  gtk_widget_set_sensitive (GTK_WIDGET (self->scenario_dropdown), n_scenarios > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->candidate_dropdown), n_candidates > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->search_entry), n_scenarios > 0);
  self->updating_dropdown = FALSE;

  _bpw_sheet_page_compute (self, TRUE);
}

void
bpw_sheet_page_select (BpwSheetPage *self,
                       guint         candidate,
                       guint         scenario)
{
  g_return_if_fail (BPW_IS_SHEET_PAGE (self));

  /* Set both before computing once. */
  self->updating_dropdown = TRUE;
  if (candidate != G_MAXUINT)
    gtk_drop_down_set_selected (self->candidate_dropdown, candidate);
  if (scenario != G_MAXUINT)
    gtk_drop_down_set_selected (self->scenario_dropdown, scenario);
  self->updating_dropdown = FALSE;
  _bpw_sheet_page_compute (self, FALSE);
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

guint
bpw_sheet_page_get_candidate (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), GTK_INVALID_LIST_POSITION);
  return gtk_drop_down_get_selected (self->candidate_dropdown);
}

gboolean
bpw_sheet_page_refresh (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), FALSE);
  return _bpw_sheet_page_compute (self, FALSE);
}

guint
bpw_sheet_page_get_n_binds (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), 0);
  return self->n_binds;
}

BpwLayerSummary *
bpw_sheet_page_get_layer_summary (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), NULL);
  return self->layer_summary;
}

double
bpw_sheet_page_get_step_time (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), 0.0);
  return self->step_time;
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

BpwPlot *
bpw_sheet_page_get_roofline_plot (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), NULL);
  return BPW_PLOT (self->roofline_plot);
}

BpwPlot *
bpw_sheet_page_get_assignment_plot (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), NULL);
  return BPW_PLOT (self->assignment_plot);
}

BpwSheetItem *
bpw_sheet_page_get_selected_item (BpwSheetPage *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), NULL);
  return gtk_single_selection_get_selected_item (self->selection);
}

gboolean
bpw_sheet_page_select_item (BpwSheetPage *self,
                            BpwSheetItem *item)
{
  GListModel *visible = G_LIST_MODEL (self->sorted);
  guint n = g_list_model_get_n_items (visible), i = 0;

  g_return_val_if_fail (BPW_IS_SHEET_PAGE (self), FALSE);

  for (; item != NULL && i < n; i++)
    {
      g_autoptr(BpwSheetItem) row = g_list_model_get_item (visible, i);

      if (row == item)
        break;
    }
  if (item == NULL || i == n)
    {
      gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
      return item == NULL;
    }
  gtk_single_selection_set_selected (self->selection, i);
  /* GTK 4.8 scrolls a column view only through its list's action. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->column_view));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      gtk_widget_activate_action (child, "list.scroll-to-item", "u", i);
  return TRUE;
}
