/* bpw-pinned-table.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-pinned-table"

#include "config.h"

#include "bpw-pinned-table.h"

struct _BpwPinnedTable
{
  GtkWidget          parent_instance;

  GtkWidget         *box;
  GtkScrolledWindow *pinned_scroll;
  GtkScrolledWindow *scroll;
  GtkColumnView     *pinned;
  GtkColumnView     *view;
  GtkMultiSorter    *sorter;      /* owned: the pinned view's, then the main view's */
  gboolean           unsorting;   /* one view's sort is being cleared for the other's */
};

G_DEFINE_FINAL_TYPE (BpwPinnedTable, bpw_pinned_table, GTK_TYPE_WIDGET)

/* A header clicked in one view sorts by that column alone: the other view's sort is
 * cleared, so that the multi-sorter's first active part is the one clicked last. */
static void
bpw_pinned_table_sorter_changed (BpwPinnedTable *self,
                                 GtkColumnView  *clicked)
{
  if (self->unsorting)
    return;
  self->unsorting = TRUE;
  gtk_column_view_sort_by_column (clicked == self->pinned ? self->view : self->pinned, NULL,
                                  GTK_SORT_ASCENDING);
  self->unsorting = FALSE;
}

static void
bpw_pinned_table_pinned_sorted_cb (BpwPinnedTable *self)
{
  bpw_pinned_table_sorter_changed (self, self->pinned);
}

static void
bpw_pinned_table_view_sorted_cb (BpwPinnedTable *self)
{
  bpw_pinned_table_sorter_changed (self, self->view);
}

static GtkColumnView *
bpw_pinned_table_new_view (void)
{
  GtkColumnView *view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));

  gtk_column_view_set_show_column_separators (view, TRUE);
  gtk_column_view_set_show_row_separators (view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (view), "data-table");
  return view;
}

static void
bpw_pinned_table_dispose (GObject *object)
{
  BpwPinnedTable *self = (BpwPinnedTable *) object;

  /* A view going away clears its sort: nothing is left to clear in the other. */
  if (self->box != NULL)
    {
      g_signal_handlers_disconnect_by_data (gtk_column_view_get_sorter (self->pinned), self);
      g_signal_handlers_disconnect_by_data (gtk_column_view_get_sorter (self->view), self);
    }
  g_clear_pointer (&self->box, gtk_widget_unparent);
  self->pinned = NULL;
  self->view = NULL;
  g_clear_object (&self->sorter);

  G_OBJECT_CLASS (bpw_pinned_table_parent_class)->dispose (object);
}

static void
bpw_pinned_table_class_init (BpwPinnedTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_pinned_table_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "pinnedtable");
}

static void
bpw_pinned_table_init (BpwPinnedTable *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->pinned = bpw_pinned_table_new_view ();
  gtk_widget_add_css_class (GTK_WIDGET (self->pinned), "pinned");
  self->pinned_scroll = GTK_SCROLLED_WINDOW (gtk_scrolled_window_new ());
  /* As wide as its column; scrolled only by the shared adjustment, with no scrollbar of
   * its own (the main view's stands for both). */
  gtk_scrolled_window_set_policy (self->pinned_scroll, GTK_POLICY_NEVER, GTK_POLICY_EXTERNAL);
  gtk_scrolled_window_set_propagate_natural_width (self->pinned_scroll, TRUE);
  gtk_scrolled_window_set_child (self->pinned_scroll, GTK_WIDGET (self->pinned));
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->pinned_scroll));

  self->view = bpw_pinned_table_new_view ();
  self->scroll = GTK_SCROLLED_WINDOW (gtk_scrolled_window_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->scroll), TRUE);
  gtk_scrolled_window_set_min_content_height (self->scroll, 160);
  gtk_scrolled_window_set_child (self->scroll, GTK_WIDGET (self->view));
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->scroll));

  /* A row stays level in both views: one vertical position for both. */
  gtk_scrolled_window_set_vadjustment (self->pinned_scroll,
                                       gtk_scrolled_window_get_vadjustment (self->scroll));

  self->sorter = gtk_multi_sorter_new ();
  gtk_multi_sorter_append (self->sorter, g_object_ref (gtk_column_view_get_sorter (self->pinned)));
  gtk_multi_sorter_append (self->sorter, g_object_ref (gtk_column_view_get_sorter (self->view)));
  g_signal_connect_object (gtk_column_view_get_sorter (self->pinned), "changed",
                           G_CALLBACK (bpw_pinned_table_pinned_sorted_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_column_view_get_sorter (self->view), "changed",
                           G_CALLBACK (bpw_pinned_table_view_sorted_cb), self,
                           G_CONNECT_SWAPPED);
}

GtkWidget *
bpw_pinned_table_new (void)
{
  return g_object_new (BPW_TYPE_PINNED_TABLE, NULL);
}

GtkColumnView *
bpw_pinned_table_get_pinned (BpwPinnedTable *self)
{
  g_return_val_if_fail (BPW_IS_PINNED_TABLE (self), NULL);
  return self->pinned;
}

GtkColumnView *
bpw_pinned_table_get_view (BpwPinnedTable *self)
{
  g_return_val_if_fail (BPW_IS_PINNED_TABLE (self), NULL);
  return self->view;
}

GtkSorter *
bpw_pinned_table_get_sorter (BpwPinnedTable *self)
{
  g_return_val_if_fail (BPW_IS_PINNED_TABLE (self), NULL);
  return GTK_SORTER (self->sorter);
}

void
bpw_pinned_table_set_model (BpwPinnedTable    *self,
                            GtkSelectionModel *model)
{
  g_return_if_fail (BPW_IS_PINNED_TABLE (self));
  g_return_if_fail (model == NULL || GTK_IS_SELECTION_MODEL (model));

  gtk_column_view_set_model (self->pinned, model);
  gtk_column_view_set_model (self->view, model);
}
