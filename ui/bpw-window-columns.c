/* bpw-window-columns.c — the columns of the facts table: cells, formatting and sorting
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-window-columns"

#include "config.h"

#include "bpw-window-private.h"

static void
bpw_window_columns_cell_setup_cb (GtkSignalListItemFactory *factory,
                          GtkListItem              *item,
                          BpwWindow                *self)
{
  BpwFactsColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "bpw-column"));
  GtkWidget *label = gtk_label_new (NULL);

  if (bpw_facts_column_is_numeric (column))
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1.0);
      gtk_widget_add_css_class (label, "numeric");
    }
  else if (column == BPW_FACTS_COLUMN_CONSERVATION)
    gtk_label_set_xalign (GTK_LABEL (label), 0.5);
  else
    /* Not ellipsized: GtkColumnView sizes columns by their cells' minimum width, and an
     * ellipsized scenario name would shrink to "gpt3-…". The view scrolls instead. */
    gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  if (column == BPW_FACTS_COLUMN_SHAPE)
    gtk_widget_add_css_class (label, "numeric");

  gtk_list_item_set_child (item, label);
}

static void
bpw_window_columns_cell_bind_cb (GtkSignalListItemFactory *factory,
                         GtkListItem              *item,
                         BpwWindow                *self)
{
  BpwFactsColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "bpw-column"));
  BpwFactsRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = bpw_facts_row_format (row, column, _bpw_window_get_units (self));
  g_autofree char *tooltip = bpw_facts_row_dup_tooltip (row, column);

  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (label, tooltip);

  if (column == BPW_FACTS_COLUMN_CONSERVATION)
    {
      const BpwFacts *facts = bpw_facts_row_get_facts (row);
      gboolean ok = facts != NULL && facts->conservation.ok;

      gtk_widget_remove_css_class (label, ok ? "error" : "success");
      gtk_widget_add_css_class (label, ok ? "success" : "error");
    }
  else if (bpw_facts_row_get_error (row) != NULL)
    gtk_widget_add_css_class (label, "dim-label");
  else
    gtk_widget_remove_css_class (label, "dim-label");
}

static int
bpw_window_columns_compare_cb (gconstpointer a,
                       gconstpointer b,
                       gpointer      user_data)
{
  int order = bpw_facts_row_compare ((BpwFactsRow *) a, (BpwFactsRow *) b,
                                     GPOINTER_TO_INT (user_data));

  return order < 0 ? GTK_ORDERING_SMALLER : order > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

void
_bpw_window_add_columns (BpwWindow     *self,
                         GtkColumnView *column_view)
{
  for (int c = 0; c < BPW_N_FACTS_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      g_autoptr(GtkCustomSorter) sorter = NULL;

      g_object_set_data (G_OBJECT (factory), "bpw-column", GINT_TO_POINTER (c));
      g_signal_connect_object (factory, "setup", G_CALLBACK (bpw_window_columns_cell_setup_cb), self, 0);
      g_signal_connect_object (factory, "bind", G_CALLBACK (bpw_window_columns_cell_bind_cb), self, 0);

      column = gtk_column_view_column_new (bpw_facts_column_get_title (c), factory);
      sorter = gtk_custom_sorter_new (bpw_window_columns_compare_cb, GINT_TO_POINTER (c), NULL);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, c == BPW_FACTS_COLUMN_SCENARIO);
      gtk_column_view_append_column (column_view, column);
    }
}
