/* bpw-inspector.h — the side pane that edits what is selected: blueprint, scenario, mapping
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "bpw-core.h"
#include "bpw-format.h"
#include "bpw-overview-item.h"
#include "bpw-value-row.h"

G_BEGIN_DECLS

#define BPW_TYPE_INSPECTOR (bpw_inspector_get_type ())

G_DECLARE_FINAL_TYPE (BpwInspector, bpw_inspector, BPW, INSPECTOR, GtkWidget)

/* Applies an edit the inspector made (transfer full), or refuses it with @error; the
 * inspector shows the refusal on the row that made it. */
typedef gboolean (*BpwInspectorApplyFunc) (BpwStudyEdit  *edit,
                                           gpointer       user_data,
                                           GError       **error);

GtkWidget   *bpw_inspector_new             (void);
void         bpw_inspector_set_apply_func  (BpwInspector          *self,
                                            BpwInspectorApplyFunc  func,
                                            gpointer               user_data);
/* Rebuilds every page for @study (nullable). */
void         bpw_inspector_set_study       (BpwInspector          *self,
                                            BpwStudy              *study);
/* What the pages show: a candidate and a scenario (indices; G_MAXUINT for none) and a
 * blueprint (nullable: the candidate's). Rebuilds the pages whose subject changed. */
void         bpw_inspector_set_selection   (BpwInspector          *self,
                                            guint                  candidate,
                                            guint                  scenario,
                                            const char            *blueprint);
/* Values, provenance and states read again from the study (after an edit, undo, redo). */
void         bpw_inspector_refresh         (BpwInspector          *self);
/* The evaluation of the selected candidate on the selected scenario (nullable): an
 * illegal or failed one shows its reason above the mapping. */
void         bpw_inspector_set_evaluation  (BpwInspector          *self,
                                            const BpwOverviewEvaluation *evaluation);
void         bpw_inspector_set_units       (BpwInspector          *self,
                                            BpwByteUnits           units);
/* "blueprint", "scenario" or "mapping". */
void         bpw_inspector_show_page       (BpwInspector          *self,
                                            const char            *name);
const char  *bpw_inspector_get_page        (BpwInspector          *self);
const char  *bpw_inspector_get_blueprint   (BpwInspector          *self);  /* nullable */

/* The row that edits @key, or NULL: "blueprint/memory[3].bandwidth",
 * "blueprint/engines[0].peak.bf16", "blueprint/tiers[0].latency", "blueprint/power.tdp",
 * "scenario/global_batch", "scenario/parallel.tp", "mapping/parallel.tp",
 * "mapping/fusion.attention", "mapping/overlap.tp", "mapping/scope", "mapping/tiers.tp",
 * "mapping/collective_algorithms[0]", "mapping/tiling", "mapping/tiling.m",
 * "mapping/engines.softmax", "mapping/placement.kv_cache", ... (tests). */
GtkWidget   *bpw_inspector_lookup_row      (BpwInspector          *self,
                                            const char            *key);
/* Where Mapping edits go: FALSE, the candidate's mapping (every scenario); TRUE, its
 * mapping for the selected scenario only ("mappings" in the study file). Selecting
 * another candidate or scenario sets it to whether that scenario has a mapping of its
 * own. */
void         bpw_inspector_set_mapping_scope (BpwInspector        *self,
                                              gboolean             scenario_only);
gboolean     bpw_inspector_get_mapping_scope (BpwInspector        *self);
/* The reason shown above the mapping, or NULL when the mapping is legal. */
const char  *bpw_inspector_get_banner      (BpwInspector          *self);

G_END_DECLS
