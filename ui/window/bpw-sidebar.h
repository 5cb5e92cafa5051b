/* bpw-sidebar.h — the study's workloads, scenarios and suites, blueprints and candidates
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-sidebar-item.h"

G_BEGIN_DECLS

#define BPW_TYPE_SIDEBAR (bpw_sidebar_get_type ())

G_DECLARE_FINAL_TYPE (BpwSidebar, bpw_sidebar, BPW, SIDEBAR, GtkWidget)

GtkWidget      *bpw_sidebar_new          (void);
/* Rebuilds the list; the selected item stays selected while the study still has it.
 * @study (nullable) empties the list. */
void            bpw_sidebar_set_study    (BpwSidebar         *self,
                                          BpwStudy           *study);
/* (element-type BpwSidebarItem): headings and items, in display order. */
GListModel     *bpw_sidebar_get_items    (BpwSidebar         *self);
/* Nullable; "notify::selected-item" tells when it changes. */
BpwSidebarItem *bpw_sidebar_get_selected_item (BpwSidebar    *self);
/* FALSE when the study has no such item. */
gboolean        bpw_sidebar_select       (BpwSidebar         *self,
                                          BpwSidebarItemKind  kind,
                                          guint               index);

G_END_DECLS
