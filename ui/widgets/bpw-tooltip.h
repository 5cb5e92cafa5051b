/* bpw-tooltip.h — tooltips that cost nothing until the pointer asks for them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On X11, GTK 4.8 answers gtk_widget_set_tooltip_text() on a visible widget by querying
 * the pointer from the X server, a round trip each time. Tables set a tooltip on every
 * cell they bind, so an edit that rebinds a few hundred cells spent most of its time
 * waiting for the X server. These tooltips keep their text and hand it out from
 * "query-tooltip", which GTK emits only when the pointer rests on the widget.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* @text (nullable) is copied; NULL removes the tooltip. */
void        bpw_tooltip_set (GtkWidget  *widget,
                             const char *text);
const char *bpw_tooltip_get (GtkWidget  *widget);  /* nullable */

G_END_DECLS
