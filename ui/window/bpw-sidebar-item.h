/* bpw-sidebar-item.h — one line of the study sidebar: a section heading or a study item
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "bpw-study.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_SIDEBAR_ITEM_HEADING,
  BPW_SIDEBAR_ITEM_WORKLOAD,
  BPW_SIDEBAR_ITEM_SCENARIO,
  BPW_SIDEBAR_ITEM_SUITE,
  BPW_SIDEBAR_ITEM_BLUEPRINT,
  BPW_SIDEBAR_ITEM_CANDIDATE,
  BPW_SIDEBAR_ITEM_EMPTY,     /* "No candidates": a section without items */
} BpwSidebarItemKind;

#define BPW_TYPE_SIDEBAR_ITEM (bpw_sidebar_item_get_type ())

G_DECLARE_FINAL_TYPE (BpwSidebarItem, bpw_sidebar_item, BPW, SIDEBAR_ITEM, GObject)

/* The sections of @study in order: Workloads, Scenarios and Suites, Blueprints, Candidates,
 * each a heading followed by its items (element-type BpwSidebarItem). Empty sections keep
 * their heading and say that they are empty. */
GListStore         *bpw_sidebar_item_list_new_for_study (BpwStudy        *study);

BpwSidebarItemKind  bpw_sidebar_item_get_kind     (BpwSidebarItem  *self);
/* Index into the study's list of that kind (workloads, scenarios, ...); 0 for headings. */
guint               bpw_sidebar_item_get_index    (BpwSidebarItem  *self);
const char         *bpw_sidebar_item_get_title    (BpwSidebarItem  *self);
const char         *bpw_sidebar_item_get_subtitle (BpwSidebarItem  *self);  /* nullable */
const char         *bpw_sidebar_item_get_icon_name (BpwSidebarItem *self);  /* nullable */
/* Headings and "none yet" lines cannot be selected. */
gboolean            bpw_sidebar_item_is_selectable (BpwSidebarItem *self);

G_END_DECLS
