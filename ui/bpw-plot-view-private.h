/* bpw-plot-view-private.h — what the files of BpwPlotView share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw-plot-view.c: drawing, hover, selection, zoom and pan;
 * bpw-plot-view-export.c: the "plot.export" action.
 */
#pragma once

#include "bpw-plot-view.h"

G_BEGIN_DECLS

/* "plot.export": a save dialog, then bpw_plot_view_export_to_file(). */
void     _bpw_plot_view_export_action (GtkWidget  *widget,
                                       const char *action_name,
                                       GVariant   *parameter);

G_END_DECLS
