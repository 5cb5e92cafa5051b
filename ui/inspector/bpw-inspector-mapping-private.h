/* bpw-inspector-mapping-private.h — what the Mapping page's files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Mapping page is split by concern: bpw-inspector-mapping.c builds the page and
 * refreshes it, bpw-inspector-mapping-edit.c turns a row's change into a member of the
 * candidate's mapping object (or of its mapping for the selected scenario), and
 * bpw-inspector-mapping-binding.c builds and refreshes the rows whose choices come from the
 * blueprint: interconnect tiers, collective algorithms, tiling, engines, placement;
 * bpw-inspector-mapping-precision.c the weight-only quantisation rows;
 * bpw-inspector-mapping-pipeline.c the rows of the pipeline's layer split.
 */
#pragma once

#include "bpw-inspector-private.h"

G_BEGIN_DECLS

/* What a row of the Mapping page edits; its "bpw-mapping-index" says which one of a kind:
 * the parallel degree (0 tp … 3 ep), the fusion flag, the group, the tier, the tile edge
 * (0 m, 1 n, 2 k), the primitive, the tensor kind. */
typedef enum
{
  BPW_MAPPING_FIELD_PARALLEL,
  BPW_MAPPING_FIELD_SP,
  BPW_MAPPING_FIELD_SP_GATHER,
  BPW_MAPPING_FIELD_ZERO,
  BPW_MAPPING_FIELD_SCHEDULE,
  BPW_MAPPING_FIELD_INTERLEAVE,
  BPW_MAPPING_FIELD_CP_ALGORITHM,
  BPW_MAPPING_FIELD_PP_SPLIT,      /* the way the layers are split, a BpwPpSplit */
  BPW_MAPPING_FIELD_PP_LIGHTER,    /* layers fewer on the first and last stage */
  BPW_MAPPING_FIELD_PP_LAYERS,     /* layers of each (virtual) stage, listed */
  BPW_MAPPING_FIELD_MICRO_BATCH,
  BPW_MAPPING_FIELD_RECOMPUTE,
  BPW_MAPPING_FIELD_FUSION,
  BPW_MAPPING_FIELD_DP_OVERLAP,
  BPW_MAPPING_FIELD_TP_OVERLAP,
  BPW_MAPPING_FIELD_TIER,
  BPW_MAPPING_FIELD_ALGORITHM,
  BPW_MAPPING_FIELD_TILING,
  BPW_MAPPING_FIELD_TILE,
  BPW_MAPPING_FIELD_ENGINE,
  BPW_MAPPING_FIELD_PLACEMENT,
  BPW_MAPPING_FIELD_WEIGHTS,       /* weight-only quantisation, a BpwWeightFormat */
  BPW_MAPPING_FIELD_WEIGHT_GROUP,  /* its group size */
} BpwMappingField;

/* The explicit tile a switch from automatic tiling starts with, for the user to edit: a
 * starting point of the size GEMM libraries use for 16-bit types, not a claim about any
 * kernel. Binding says when it does not fit on chip. */
#define BPW_INSPECTOR_TILE_M 128
#define BPW_INSPECTOR_TILE_N 128
#define BPW_INSPECTOR_TILE_K 64
/* As the mapping reader takes them (bpw-mapping-read.c). */
#define BPW_INSPECTOR_MAX_TILE (1 << 20)

/* What the page shows, computed once per refresh. */
typedef struct
{
  BpwCandidateRun  run;       /* the selected scenario as the candidate runs it */
  gboolean         ok;        /* run could be set up */
  JsonObject      *own;       /* borrowed: the candidate's mapping object */
  JsonObject      *scenario;  /* borrowed, nullable: its mapping for the scenario */
} BpwMappingView;

/* bpw-inspector-mapping.c */
void          _bpw_inspector_mapping_view_init  (BpwInspector     *self,
                                                 BpwMappingView   *view);
void          _bpw_inspector_mapping_view_clear (BpwMappingView   *view);
/* Registers @row as the page's editor of @field / @index under @key, connected to the
 * page's handlers, in @group or, when @expander is set, inside it. */
void          _bpw_inspector_mapping_add        (BpwInspector        *self,
                                                 AdwPreferencesGroup *group,
                                                 AdwExpanderRow      *expander,
                                                 GtkWidget           *row,
                                                 BpwMappingField      field,
                                                 guint                index,
                                                 const char          *key);
AdwPreferencesGroup *_bpw_inspector_mapping_group (BpwInspector    *self,
                                                   const char      *title,
                                                   const char      *description);

/* bpw-inspector-mapping-edit.c */
BpwMappingField _bpw_inspector_mapping_field   (GtkWidget        *row);
guint         _bpw_inspector_mapping_index     (GtkWidget        *row);
/* TRUE when @object (nullable) itself sets what @row edits. */
gboolean      _bpw_inspector_mapping_is_set    (GtkWidget        *row,
                                                JsonObject       *object);
/* Writes @value (a count, a choice's value, a switch's state) as @row's member of the
 * mapping the edits go to, and hands the edit to the window. */
void          _bpw_inspector_mapping_apply     (BpwInspector     *self,
                                                GtkWidget        *row,
                                                gint64            value);
/* Removes @row's member from the mapping the edits go to. */
void          _bpw_inspector_mapping_unset     (BpwInspector     *self,
                                                GtkWidget        *row);
/* Drops the candidate's mapping for the selected scenario. */
void          _bpw_inspector_mapping_drop_scenario (BpwInspector *self,
                                                    GtkWidget    *row);

/* bpw-inspector-mapping-precision.c */
/* The Weights group: weight-only quantisation of the attention projections and MLP. */
void          _bpw_inspector_build_mapping_precision (BpwInspector     *self);
gboolean      _bpw_inspector_precision_is_set  (GtkWidget         *row,
                                                JsonObject        *object);
/* Writes @value as @row's members of @root's precision policy; @m is the mapping the
 * scenario runs with now. */
void          _bpw_inspector_precision_write   (GtkWidget         *row,
                                                JsonObject        *root,
                                                gint64             value,
                                                gboolean           scenario_only,
                                                const BpwMapping  *m);
/* Removes @row's members from @root; FALSE when it had none. */
gboolean      _bpw_inspector_precision_unset   (GtkWidget         *row,
                                                JsonObject        *root);
/* Sets @row from @m; a scenario of @dtype whose weight classes compute in fp8 leaves it
 * insensitive (unless there is a choice to take back) and says why. */
void          _bpw_inspector_refresh_precision_row (GtkWidget        *row,
                                                    const BpwMapping *m,
                                                    BpwDType          dtype);

/* The mapping-edit.c side of the layer list: writes @layers as "parallel.pp_layers" of
 * the mapping the edits go to (the other ways of splitting taken out) and hands the edit
 * to the window. */
void          _bpw_inspector_mapping_apply_layers (BpwInspector   *self,
                                                   GtkWidget      *row,
                                                   const guint32  *layers,
                                                   guint           n_layers);

/* bpw-inspector-mapping-pipeline.c */
/* The rows of the layer split, after the schedule's, in @group. */
void          _bpw_inspector_build_mapping_pipeline (BpwInspector        *self,
                                                     AdwPreferencesGroup *group);
/* The text a user typed into the layer list: parsed, checked against the model the
 * selected scenario runs (bpw_stage_split_check()) and applied; or refused on the row. */
void          _bpw_inspector_pipeline_commit_layers (BpwInspector     *self,
                                                     GtkWidget        *row,
                                                     const char       *text);
/* Writes @value (a BpwPpSplit or a count of layers) as @row's member of @root's
 * "parallel", taking out the other ways of splitting; @view gives the split in use. */
void          _bpw_inspector_pipeline_write   (GtkWidget            *row,
                                               JsonObject           *parallel,
                                               gint64                value,
                                               const BpwMappingView *view);
/* Sets @row (one of the split rows or the context-parallel algorithm's) from @view; FALSE
 * when @row is none of them. */
gboolean      _bpw_inspector_refresh_pipeline_row (BpwInspector         *self,
                                                   GtkWidget            *row,
                                                   const BpwMappingView *view);

/* bpw-inspector-mapping-binding.c */
/* A combo row of labelled values; the values ride on the row. */
GtkWidget    *_bpw_inspector_choice_row        (const char        *title);
void          _bpw_inspector_choice_append     (GtkWidget         *row,
                                                const char        *label,
                                                gint               value);
/* Selects @value; FALSE when the row has no such choice. */
gboolean      _bpw_inspector_choice_select     (GtkWidget         *row,
                                                gint               value);
gint          _bpw_inspector_choice_value      (GtkWidget         *row);
void          _bpw_inspector_choice_relabel    (GtkWidget         *row,
                                                guint              position,
                                                const char        *label);
/* The groups whose choices come from @bp: Interconnect, Tiling, Engines and memory. */
void          _bpw_inspector_build_mapping_binding   (BpwInspector       *self,
                                                      const BpwBlueprint *bp);
/* Sets @row (a row of those groups) from @view; FALSE when @row is not one of them. */
gboolean      _bpw_inspector_refresh_binding_row     (BpwInspector       *self,
                                                      GtkWidget          *row,
                                                      const BpwMappingView *view);
/* The summaries of the engine and placement expanders. */
void          _bpw_inspector_refresh_binding_summary (BpwInspector       *self,
                                                      const BpwMappingView *view);
/* A short description of @bp's structure; the page is rebuilt when it changes. */
char         *_bpw_inspector_binding_shape     (const BpwBlueprint *bp);

G_END_DECLS
