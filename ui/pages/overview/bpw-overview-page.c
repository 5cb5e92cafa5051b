/* bpw-overview-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-overview-page"

#include "config.h"

#include <glib/gi18n.h>

#include "bpw-calibration-bar.h"
#include "bpw-facts-details.h"
#include "bpw-fit-matrix.h"
#include "bpw-overview-page.h"
#include "bpw-pinned-table.h"
#include "bpw-tooltip.h"

struct _BpwOverviewPage
{
  GtkWidget            parent_instance;

  /* Template widgets */
  GtkStack            *stack;
  BpwPinnedTable      *table;
  BpwFactsDetails     *details;
  GtkWidget           *fit_box;
  BpwFitMatrix        *fit_matrix;
  BpwCalibrationBar   *calibration_bar;

  GtkColumnView       *column_view;   /* the table's columns that scroll */

  /* Owned references */
  GListModel          *items;
  GtkSortListModel    *sorted;
  GtkSingleSelection  *selection;
  GtkColumnViewColumn *columns[BPW_N_OVERVIEW_COLUMNS];

  char                *selected_candidate;  /* nullable: the selected item's names */
  char                *selected_scenario;

  BpwByteUnits         units;
  gboolean             busy;
  gboolean             shows_evaluation;
  gboolean             restoring;     /* the selection follows replaced items */
};

enum {
  PROP_0,
  PROP_SELECTED_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (BpwOverviewPage, bpw_overview_page, GTK_TYPE_WIDGET)

/* The position of the item for @candidate on @scenario in the sorted list. */
static guint
bpw_overview_page_find (BpwOverviewPage *self,
                        const char      *candidate,
                        const char      *scenario)
{
  GListModel *model = G_LIST_MODEL (self->sorted);

  for (guint i = 0; candidate != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(BpwOverviewItem) item = g_list_model_get_item (model, i);

      if (g_strcmp0 (bpw_overview_item_get_candidate (item), candidate) == 0
          && g_strcmp0 (bpw_overview_item_get_scenario_name (item), scenario) == 0)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

static void bpw_overview_page_selection_cb (BpwOverviewPage *self);

static void
bpw_overview_page_items_changing_cb (BpwOverviewPage *self)
{
  self->restoring = TRUE;
}

/* An edit replaces items with new ones: the same candidate on the same scenario stays
 * selected wherever sorting puts it. */
static void
bpw_overview_page_items_changed_after_cb (BpwOverviewPage *self)
{
  guint position = bpw_overview_page_find (self, self->selected_candidate,
                                           self->selected_scenario);

  if (position != GTK_INVALID_LIST_POSITION)
    gtk_single_selection_set_selected (self->selection, position);
  self->restoring = FALSE;
  bpw_overview_page_selection_cb (self);
}

static void
bpw_overview_page_update (BpwOverviewPage *self)
{
  guint n = self->items != NULL ? g_list_model_get_n_items (self->items) : 0;
  gboolean evaluated = FALSE;

  for (guint i = 0; i < n && !evaluated; i++)
    {
      g_autoptr(BpwOverviewItem) item = g_list_model_get_item (self->items, i);

      evaluated = bpw_overview_item_get_evaluation (item) != NULL;
    }
  /* No column stands empty waiting for numbers that do not exist yet. */
  self->shows_evaluation = evaluated;
  for (int c = 0; c < BPW_N_OVERVIEW_COLUMNS; c++)
    if (bpw_overview_column_is_evaluation (c))
      gtk_column_view_column_set_visible (self->columns[c], evaluated);
    else if (bpw_overview_column_is_preliminary (c))
      gtk_column_view_column_set_visible (self->columns[c], !evaluated);

  gtk_stack_set_visible_child_name (self->stack, n > 0 || self->busy ? "table" : "empty");
}

/* The selected candidate's implementation transformations on the scenario, under the
 * scenario's conservation. */
static void
bpw_overview_page_show_stack (BpwOverviewPage *self,
                              BpwOverviewItem *item)
{
  GArray *transformations = item != NULL ? bpw_overview_item_get_transformations (item) : NULL;

  bpw_facts_details_set_stack (self->details,
                               transformations != NULL
                               ? bpw_overview_item_get_candidate (item) : NULL,
                               item != NULL ? bpw_overview_item_get_stack_name (item) : NULL,
                               item != NULL ? bpw_overview_item_get_stack_source (item) : NULL);
  for (guint i = 0; transformations != NULL && i < transformations->len; i++)
    {
      const BpwOverviewTransformation *t = &g_array_index (transformations,
                                                           BpwOverviewTransformation, i);

      bpw_facts_details_add_transformation (self->details, t->name, t->description,
                                            t->time_s, t->bytes, t->kernels);
    }
}

static void
bpw_overview_page_selection_cb (BpwOverviewPage *self)
{
  BpwOverviewItem *item = gtk_single_selection_get_selected_item (self->selection);
  const char *candidate = item != NULL ? bpw_overview_item_get_candidate (item) : NULL;
  const char *scenario = item != NULL ? bpw_overview_item_get_scenario_name (item) : NULL;

  /* While items are being replaced the selection passes through others; only the user's
   * choice of another candidate or scenario is news. */
  if (self->restoring)
    return;
  bpw_facts_details_set_row (self->details,
                             item != NULL ? bpw_overview_item_get_scenario (item) : NULL);
  bpw_overview_page_show_stack (self, item);
  if (item == NULL
      || (g_strcmp0 (candidate, self->selected_candidate) == 0
          && g_strcmp0 (scenario, self->selected_scenario) == 0))
    return;
  g_free (self->selected_candidate);
  self->selected_candidate = g_strdup (candidate);
  g_free (self->selected_scenario);
  self->selected_scenario = g_strdup (scenario);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_ITEM]);
}

static void
bpw_overview_page_cell_setup_cb (GtkSignalListItemFactory *factory,
                                 GtkListItem              *item,
                                 gpointer                  user_data)
{
  BpwOverviewColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory),
                                                                 "bpw-column"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), bpw_overview_column_is_numeric (column) ? 1.0 : 0.0);
  if (bpw_overview_column_is_numeric (column))
    gtk_widget_add_css_class (label, "numeric");
  /* Long names give way in the middle ("llama3-7…-prefill" keeps the phase), so that the
   * columns after them fit a 1280-pixel window; the tooltip has the whole name. */
  if (column == BPW_OVERVIEW_COLUMN_CANDIDATE || column == BPW_OVERVIEW_COLUMN_SCENARIO)
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
      gtk_label_set_width_chars (GTK_LABEL (label), 15);
      /* The pinned candidate has room for a device's whole name ("NVIDIA H100 SXM5
       * 80GB"): the numbers scroll past it. */
      gtk_label_set_max_width_chars (GTK_LABEL (label),
                                     column == BPW_OVERVIEW_COLUMN_CANDIDATE ? 22 : 18);
    }
  gtk_list_item_set_child (item, label);
}

static void
bpw_overview_page_cell_bind_cb (GtkSignalListItemFactory *factory,
                                GtkListItem              *item,
                                BpwOverviewPage          *self)
{
  BpwOverviewColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory),
                                                                 "bpw-column"));
  BpwOverviewItem *entry = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = bpw_overview_item_format (entry, column, self->units);
  g_autofree char *tooltip = bpw_overview_item_dup_tooltip (entry, column);
  const char *style = bpw_overview_item_get_style (entry, column);

  gtk_label_set_text (GTK_LABEL (label), text);
  if (tooltip == NULL && gtk_label_get_ellipsize (GTK_LABEL (label)) != PANGO_ELLIPSIZE_NONE)
    tooltip = g_strdup (text);
  bpw_tooltip_set (label, tooltip);
  gtk_widget_remove_css_class (label, "error");
  gtk_widget_remove_css_class (label, "success");
  if (style != NULL)
    gtk_widget_add_css_class (label, style);
}

static int
bpw_overview_page_compare_cb (gconstpointer a,
                              gconstpointer b,
                              gpointer      user_data)
{
  int order = bpw_overview_item_compare ((BpwOverviewItem *) a, (BpwOverviewItem *) b,
                                         GPOINTER_TO_INT (user_data));

  return gtk_ordering_from_cmpfunc (order);
}

/* What the review reads first comes first: the verdict (bottleneck, SLA) before the
 * memory details, so that a 1280-pixel window shows it without scrolling. Columns not
 * listed follow in the enumeration's order. */
static const BpwOverviewColumn display_order[] = {
  BPW_OVERVIEW_COLUMN_CANDIDATE, BPW_OVERVIEW_COLUMN_SCENARIO, BPW_OVERVIEW_COLUMN_PHASE,
  BPW_OVERVIEW_COLUMN_DEVICES, BPW_OVERVIEW_COLUMN_PARAMETERS,
  BPW_OVERVIEW_COLUMN_MODEL_FLOPS, BPW_OVERVIEW_COLUMN_LATENCY, BPW_OVERVIEW_COLUMN_TPOT,
  BPW_OVERVIEW_COLUMN_MFU, BPW_OVERVIEW_COLUMN_BOTTLENECK, BPW_OVERVIEW_COLUMN_SLA,
  BPW_OVERVIEW_COLUMN_ENERGY, BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE,
  BPW_OVERVIEW_COLUMN_MEMORY, BPW_OVERVIEW_COLUMN_CAPACITY, BPW_OVERVIEW_COLUMN_MEMORY_SHARE,
};

static BpwOverviewColumn
bpw_overview_page_display_column (guint i)
{
  guint rest = G_N_ELEMENTS (display_order);

  if (i < G_N_ELEMENTS (display_order))
    return display_order[i];
  for (int c = 0; c < BPW_N_OVERVIEW_COLUMNS; c++)
    {
      gboolean listed = FALSE;

      for (guint k = 0; k < G_N_ELEMENTS (display_order); k++)
        listed |= display_order[k] == (BpwOverviewColumn) c;
      if (!listed && rest++ == i)
        return c;
    }
  g_return_val_if_reached (BPW_OVERVIEW_COLUMN_CANDIDATE);
}

static void
bpw_overview_page_add_columns (BpwOverviewPage *self)
{
  for (guint i = 0; i < BPW_N_OVERVIEW_COLUMNS; i++)
    {
      BpwOverviewColumn c = bpw_overview_page_display_column (i);
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkCustomSorter) sorter = NULL;
      GtkColumnViewColumn *column;

      g_object_set_data (G_OBJECT (factory), "bpw-column", GINT_TO_POINTER (c));
      g_signal_connect (factory, "setup", G_CALLBACK (bpw_overview_page_cell_setup_cb), NULL);
      g_signal_connect_object (factory, "bind", G_CALLBACK (bpw_overview_page_cell_bind_cb),
                               self, 0);

      column = gtk_column_view_column_new (bpw_overview_column_get_title (c), factory);
      sorter = gtk_custom_sorter_new (bpw_overview_page_compare_cb, GINT_TO_POINTER (c), NULL);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, c == BPW_OVERVIEW_COLUMN_SCENARIO);
      /* The candidate stays in view while the numbers scroll past it. */
      gtk_column_view_append_column (c == BPW_OVERVIEW_COLUMN_CANDIDATE
                                     ? bpw_pinned_table_get_pinned (self->table)
                                     : self->column_view, column);
      self->columns[c] = column;
    }
}

/* A tile of the fit matrix picks its candidate × scenario in the table. */
static void
bpw_overview_page_fit_activated_cb (BpwOverviewPage *self,
                                    guint            candidate,
                                    guint            scenario)
{
  bpw_overview_page_select (self, bpw_fit_matrix_get_candidate (self->fit_matrix, candidate),
                            bpw_fit_matrix_get_scenario (self->fit_matrix, scenario));
}

static void
bpw_overview_page_dispose (GObject *object)
{
  BpwOverviewPage *self = (BpwOverviewPage *) object;

  gtk_widget_dispose_template (GTK_WIDGET (self), BPW_TYPE_OVERVIEW_PAGE);

  for (int c = 0; c < BPW_N_OVERVIEW_COLUMNS; c++)
    g_clear_object (&self->columns[c]);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  if (self->items != NULL)
    g_signal_handlers_disconnect_by_data (self->items, self);
  g_clear_object (&self->items);
  g_clear_pointer (&self->selected_candidate, g_free);
  g_clear_pointer (&self->selected_scenario, g_free);

  G_OBJECT_CLASS (bpw_overview_page_parent_class)->dispose (object);
}

static void
bpw_overview_page_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  BpwOverviewPage *self = BPW_OVERVIEW_PAGE (object);

  switch (prop_id)
    {
    case PROP_SELECTED_ITEM:
      g_value_set_object (value, bpw_overview_page_get_selected_item (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
bpw_overview_page_class_init (BpwOverviewPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_overview_page_dispose;
  object_class->get_property = bpw_overview_page_get_property;

  /* Notified when another candidate or scenario is selected, not when an edit replaces the
   * selected item with its new numbers. */
  properties[PROP_SELECTED_ITEM] =
    g_param_spec_object ("selected-item", NULL, NULL, BPW_TYPE_OVERVIEW_ITEM,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (BPW_TYPE_FACTS_DETAILS);
  g_type_ensure (BPW_TYPE_FIT_MATRIX);
  g_type_ensure (BPW_TYPE_CALIBRATION_BAR);
  g_type_ensure (BPW_TYPE_PINNED_TABLE);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "overviewpage");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/bpw/Workbench/ui/bpw-overview-page.ui");
  gtk_widget_class_bind_template_child (widget_class, BpwOverviewPage, stack);
  gtk_widget_class_bind_template_child (widget_class, BpwOverviewPage, table);
  gtk_widget_class_bind_template_child (widget_class, BpwOverviewPage, details);
  gtk_widget_class_bind_template_child (widget_class, BpwOverviewPage, fit_box);
  gtk_widget_class_bind_template_child (widget_class, BpwOverviewPage, fit_matrix);
  gtk_widget_class_bind_template_child (widget_class, BpwOverviewPage, calibration_bar);
}

static void
bpw_overview_page_init (BpwOverviewPage *self)
{
  GtkSorter *sorter;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->column_view = bpw_pinned_table_get_view (self->table);
  bpw_overview_page_add_columns (self);

  sorter = bpw_pinned_table_get_sorter (self->table);
  self->sorted = gtk_sort_list_model_new (NULL, g_object_ref (sorter));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (bpw_overview_page_selection_cb), self,
                           G_CONNECT_SWAPPED);
  bpw_pinned_table_set_model (self->table, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_object (self->fit_matrix, "cell-activated",
                           G_CALLBACK (bpw_overview_page_fit_activated_cb), self,
                           G_CONNECT_SWAPPED);

  bpw_overview_page_update (self);
  bpw_overview_page_selection_cb (self);
}

void
bpw_overview_page_set_model (BpwOverviewPage *self,
                             GListModel      *items)
{
  g_return_if_fail (BPW_IS_OVERVIEW_PAGE (self));
  g_return_if_fail (items == NULL || G_IS_LIST_MODEL (items));

  if (self->items != NULL)
    g_signal_handlers_disconnect_by_data (self->items, self);
  g_set_object (&self->items, items);
  if (items != NULL)
    {
      /* Before the sort model and the selection see the change (connected first). */
      g_signal_connect_object (items, "items-changed",
                               G_CALLBACK (bpw_overview_page_items_changing_cb), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (items, "items-changed", G_CALLBACK (bpw_overview_page_update),
                               self, G_CONNECT_SWAPPED);
      /* After the sort model and the selection have seen the change. */
      g_signal_connect_object (items, "items-changed",
                               G_CALLBACK (bpw_overview_page_items_changed_after_cb), self,
                               G_CONNECT_SWAPPED | G_CONNECT_AFTER);
    }
  gtk_sort_list_model_set_model (self->sorted, items);
  bpw_overview_page_update (self);
}

void
bpw_overview_page_set_busy (BpwOverviewPage *self,
                            gboolean         busy)
{
  g_return_if_fail (BPW_IS_OVERVIEW_PAGE (self));

  self->busy = busy;
  bpw_overview_page_update (self);
}

void
bpw_overview_page_set_units (BpwOverviewPage *self,
                             BpwByteUnits     units)
{
  g_return_if_fail (BPW_IS_OVERVIEW_PAGE (self));

  if (self->units == units)
    return;
  self->units = units;
  bpw_facts_details_set_units (self->details, units);
  /* Rebinding every visible cell is the simplest way to reformat them. */
  bpw_pinned_table_set_model (self->table, NULL);
  bpw_pinned_table_set_model (self->table, GTK_SELECTION_MODEL (self->selection));
}

GListModel *
bpw_overview_page_get_visible_items (BpwOverviewPage *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_PAGE (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

gboolean
bpw_overview_page_get_shows_evaluation (BpwOverviewPage *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_PAGE (self), FALSE);
  return self->shows_evaluation;
}

BpwOverviewItem *
bpw_overview_page_get_selected_item (BpwOverviewPage *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_PAGE (self), NULL);
  return gtk_single_selection_get_selected_item (self->selection);
}

void
bpw_overview_page_select (BpwOverviewPage *self,
                          const char      *candidate,
                          const char      *scenario)
{
  guint position;

  g_return_if_fail (BPW_IS_OVERVIEW_PAGE (self));

  g_free (self->selected_candidate);
  self->selected_candidate = g_strdup (candidate);
  g_free (self->selected_scenario);
  self->selected_scenario = g_strdup (scenario);
  position = bpw_overview_page_find (self, candidate, scenario);
  if (position != GTK_INVALID_LIST_POSITION)
    gtk_single_selection_set_selected (self->selection, position);
}

void
bpw_overview_page_set_fit (BpwOverviewPage      *self,
                           const BpwCompareData *data)
{
  g_return_if_fail (BPW_IS_OVERVIEW_PAGE (self));

  /* The matrix keeps its tiles while a change is compared again, a moment later. */
  bpw_fit_matrix_set_data (self->fit_matrix, data);
  /* Likewise the candidates' calibration; a study without candidates clears it. */
  if (data != NULL || bpw_fit_matrix_get_n_candidates (self->fit_matrix) == 0)
    bpw_calibration_bar_set (self->calibration_bar, data != NULL ? data->calibration : NULL);
  gtk_widget_set_visible (self->fit_box, bpw_fit_matrix_get_n_candidates (self->fit_matrix) > 0
                                         && bpw_fit_matrix_get_n_scenarios (self->fit_matrix) > 0);
}

BpwCalibrationBar *
bpw_overview_page_get_calibration_bar (BpwOverviewPage *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_PAGE (self), NULL);
  return self->calibration_bar;
}

BpwFitMatrix *
bpw_overview_page_get_fit_matrix (BpwOverviewPage *self)
{
  g_return_val_if_fail (BPW_IS_OVERVIEW_PAGE (self), NULL);
  return self->fit_matrix;
}
