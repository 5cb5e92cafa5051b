/* bpw-ui.h — the GTK side of the workbench: widgets, pages, the window and resources
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-autosave.h"
#include "bpw-facts-details.h"
#include "bpw-facts-row.h"
#include "bpw-format.h"
#include "bpw-inspector.h"
#include "bpw-memory-page.h"
#include "bpw-overview-item.h"
#include "bpw-overview-page.h"
#include "bpw-pinned-table.h"
#include "bpw-plot-view.h"
#include "bpw-preferences-window.h"
#include "bpw-sheet-page.h"
#include "bpw-sheet-item.h"
#include "bpw-sidebar.h"
#include "bpw-sidebar-item.h"
#include "bpw-timeline-page.h"
#include "bpw-tooltip.h"
#include "bpw-value-row.h"
#include "bpw-window.h"

G_BEGIN_DECLS

/* Registers the UI resources and the widget types; further calls do nothing. Call it
 * before GtkApplication's startup chains up (GTK loads style.css and the help overlay
 * from the resources there), or in tests before adw_init(). */
void bpw_ui_init (void);

G_END_DECLS
