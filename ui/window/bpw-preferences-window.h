/* bpw-preferences-window.h — the preferences: style, memory units, export defaults
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define BPW_TYPE_PREFERENCES_WINDOW (bpw_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (BpwPreferencesWindow, bpw_preferences_window, BPW, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

/* Every row is bound to a key of @settings (the io.github.bpw.Workbench schema): a change
 * is written at once, and a change made elsewhere shows at once. Without @settings (the
 * schema is not installed) the rows are insensitive. */
GtkWidget *bpw_preferences_window_new (GSettings *settings);

G_END_DECLS
