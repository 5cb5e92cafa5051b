/* bpw-inspector-private.h — what the files of BpwInspector share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * BpwInspector is split by page: bpw-inspector.c (the pane, selection, rows and their
 * refresh), bpw-inspector-blueprint.c, bpw-inspector-scenario.c and
 * bpw-inspector-mapping.c (each builds its page's groups, refreshes its rows from the study
 * and turns a row's change into a BpwStudyEdit).
 */
#pragma once

#include "bpw-inspector.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_INSPECTOR_BLUEPRINT,
  BPW_INSPECTOR_SCENARIO,
  BPW_INSPECTOR_MAPPING,
  BPW_N_INSPECTOR_PAGES
} BpwInspectorPage;

struct _BpwInspector
{
  GtkWidget               parent_instance;

  /* Template widgets */
  GtkStack               *stack;
  AdwPreferencesPage     *pages[BPW_N_INSPECTOR_PAGES];

  /* Owned */
  BpwStudy               *study;
  char                   *blueprint;      /* nullable: shown blueprint, selected or the
                                           * candidate's */
  char                   *selected_blueprint;  /* nullable: picked in the sidebar */
  GPtrArray              *groups[BPW_N_INSPECTOR_PAGES];  /* AdwPreferencesGroup */
  GPtrArray              *rows[BPW_N_INSPECTOR_PAGES];    /* GtkWidget with a "bpw-key" */
  char                   *source;         /* provenance source of typed values */
  char                   *reason;         /* nullable: why the inspected plan is illegal */
  char                   *mapping_shape;  /* nullable: blueprint structure the Mapping
                                           * page's choices were built for */

  /* Borrowed: children of the pages, valid while the page is built */
  AdwPreferencesGroup    *blueprint_header;
  GtkWidget              *revert_button;
  AdwPreferencesGroup    *banner_group;
  AdwActionRow           *banner_row;
  AdwPreferencesGroup    *mapping_header;
  GtkWidget              *scope_row;      /* "For this scenario only" */
  GtkWidget              *scope_drop;     /* drops the scenario's own mapping */
  AdwExpanderRow         *engines_row;
  AdwExpanderRow         *placement_row;

  BpwInspectorApplyFunc   apply;
  gpointer                apply_data;
  guint                   candidate;      /* G_MAXUINT: none */
  guint                   scenario;       /* G_MAXUINT: none */
  BpwByteUnits            units;
  BpwProvenance           kind;           /* provenance kind of typed values */
  gboolean                failed;         /* the inspected run could not be evaluated */
  gboolean                scenario_only;  /* mapping edits go to the scenario's own */
  gboolean                refreshing;     /* widgets are being set from the study */
};

/* bpw-inspector.c */
/* Adds @group to @page's page; it goes on the next rebuild. */
void        _bpw_inspector_add_group     (BpwInspector        *self,
                                          BpwInspectorPage     page,
                                          AdwPreferencesGroup *group);
/* Registers @row under "page/@key" for refresh and lookup. */
void        _bpw_inspector_add_row       (BpwInspector        *self,
                                          BpwInspectorPage     page,
                                          AdwPreferencesGroup *group,
                                          GtkWidget           *row,
                                          const char          *key);
/* As _bpw_inspector_add_row(), for a row the caller places (in an expander row). */
void        _bpw_inspector_register_row  (BpwInspector        *self,
                                          BpwInspectorPage     page,
                                          GtkWidget           *row,
                                          const char          *key);
/* Builds @page again from the study (its subject's structure changed). */
void        _bpw_inspector_rebuild       (BpwInspector        *self,
                                          BpwInspectorPage     page);
/* Hands @edit (transfer full) to the window; on refusal marks @row and returns FALSE. */
gboolean    _bpw_inspector_apply         (BpwInspector        *self,
                                          GtkWidget           *row,
                                          BpwStudyEdit        *edit);
/* Marks a row refused (error style, tooltip) or clears it: value rows, combos, switches. */
void        _bpw_inspector_row_set_error (GtkWidget           *row,
                                          const char          *message);
/* "Datasheet · source", "Estimate", "Not known". */
char       *_bpw_inspector_provenance    (const BpwSourced    *value);
/* A value with its unit as an entry shows it: bytes as the units setting says. */
char       *_bpw_inspector_format        (BpwInspector        *self,
                                          double               value,
                                          BpwUnit              unit);
/* Rows of the kinds the pages use. */
GtkWidget  *_bpw_inspector_combo_row     (const char          *title,
                                          const char * const  *labels);
GtkWidget  *_bpw_inspector_switch_row    (const char          *title);
void        _bpw_inspector_combo_set     (GtkWidget           *row,
                                          guint                selected);
void        _bpw_inspector_switch_set    (GtkWidget           *row,
                                          gboolean             active);
gboolean    _bpw_inspector_switch_get    (GtkWidget           *row);
/* An empty-state group: a title and why there is nothing to edit. */
void        _bpw_inspector_add_message   (BpwInspector        *self,
                                          BpwInspectorPage     page,
                                          const char          *title,
                                          const char          *description);

/* bpw-inspector-blueprint.c */
void        _bpw_inspector_build_blueprint   (BpwInspector *self);
void        _bpw_inspector_refresh_blueprint (BpwInspector *self);

/* bpw-inspector-scenario.c */
void        _bpw_inspector_build_scenario    (BpwInspector *self);
void        _bpw_inspector_refresh_scenario  (BpwInspector *self);
/* The parallel rows both the scenario and the mapping page have (tp, pp, dp, ep). */
void        _bpw_inspector_add_parallel_rows (BpwInspector        *self,
                                              BpwInspectorPage     page,
                                              AdwPreferencesGroup *group,
                                              GCallback            commit);
/* An integer the user typed ("16", " 2048 "), at least @min. */
/* The serving rows (bpw-inspector-serving.c): built after the scenario's for an inference
 * scenario; refresh_serving_row sets one of them from @s (FALSE: not one of them). */
void        _bpw_inspector_build_serving     (BpwInspector *self);
gboolean    _bpw_inspector_refresh_serving_row (BpwInspector           *self,
                                                GtkWidget              *row,
                                                const BpwStudyScenario *s);
/* The serving features' rows (bpw-inspector-serving-features.c): KV layout, prefix cache,
 * chunked prefill, speculation and images per request, built before the pools. */
void        _bpw_inspector_build_serving_features   (BpwInspector *self);
gboolean    _bpw_inspector_refresh_serving_feature  (BpwInspector           *self,
                                                     GtkWidget              *row,
                                                     const BpwStudyScenario *s);
gboolean    _bpw_inspector_parse_count       (const char          *text,
                                              gint64               min,
                                              gint64              *value,
                                              GError             **error);

/* bpw-inspector-mapping.c */
void        _bpw_inspector_build_mapping     (BpwInspector *self);
void        _bpw_inspector_refresh_mapping   (BpwInspector *self);

G_END_DECLS
