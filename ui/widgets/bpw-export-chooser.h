/* bpw-export-chooser.h — the save dialog for a chart: file type and PNG resolution
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One dialog for every export (the window's Export menu and a chart's Ctrl+E): for charts
 * PNG at 2× or 1× the 720 × 405 pt figure, SVG, PDF and CSV, one filter each; for tables
 * CSV. A name without a known extension takes the chosen filter's.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* (transfer full): a modal save dialog for @parent, suggesting "@title.png" for a
 * @chart, else "@title.csv" (a table: CSV only). */
GtkFileChooserNative *bpw_export_chooser_new      (GtkWindow            *parent,
                                                   const char           *title,
                                                   gboolean              chart);
/* (transfer full) (nullable): the path accepted in @native, its extension added from
 * the filter when it has none; @scale: the PNG resolution of the filter (1 or 2; 2 for
 * the others). */
char                 *bpw_export_chooser_dup_path (GtkFileChooserNative *native,
                                                   double               *scale);

G_END_DECLS
