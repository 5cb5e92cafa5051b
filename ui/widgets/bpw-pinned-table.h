/* bpw-pinned-table.h — a table whose first column stays in place while the rest scroll
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GTK 4.8's column view cannot pin a column. This widget shows two column views side by
 * side: the pinned one, which scrolls only vertically, and the main one, which scrolls
 * both ways. They share one vertical adjustment (so a row stays level across both), one
 * selection model (so a row is selected in both) and one sorter (the header clicked last,
 * in either view, sorts the rows). Rows must be one line of text in both views, so that
 * they have the same height.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define BPW_TYPE_PINNED_TABLE (bpw_pinned_table_get_type ())

G_DECLARE_FINAL_TYPE (BpwPinnedTable, bpw_pinned_table, BPW, PINNED_TABLE, GtkWidget)

GtkWidget     *bpw_pinned_table_new            (void);
/* The view of the pinned column(s): append the first column here. */
GtkColumnView *bpw_pinned_table_get_pinned     (BpwPinnedTable    *self);
/* The view of the columns that scroll. */
GtkColumnView *bpw_pinned_table_get_view       (BpwPinnedTable    *self);
/* Sorts by the column whose header was clicked last in either view: give it to the sort
 * model under @model. */
GtkSorter     *bpw_pinned_table_get_sorter     (BpwPinnedTable    *self);
/* Both views show @model (nullable). */
void           bpw_pinned_table_set_model      (BpwPinnedTable    *self,
                                                GtkSelectionModel *model);

G_END_DECLS
