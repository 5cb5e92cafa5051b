/* bpw-assignment-data.h — which engine or link each operation of a stage runs on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The adapter between a plan and the assignment chart. Lanes are the engines one rank
 * uses (matrix, vector) and the link tiers of the blueprint; items are the distinct
 * operations of one pipeline stage, grouped by phase and, within a phase, by layer type,
 * each with the time it keeps its engine or link busy per step on one rank (the same
 * operation of every block merged into one item). Laid end to end in that order, items
 * give the x axis: busy time, cumulative.
 */
#pragma once

#include "bpw-plan.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_LANE_MATRIX,
  BPW_LANE_VECTOR,
  BPW_LANE_LINK,
} BpwLaneKind;

typedef struct
{
  BpwLaneKind  kind;
  const char  *name;     /* pooled: engine or tier name */
  gint         tier;     /* links: the tier index, -1 for engines */
  double       busy_s;   /* per step on one rank */
} BpwAssignmentLane;

typedef struct
{
  guint32        lineage;      /* the first operation merged into the item */
  guint          lane;
  guint          merged;       /* operations it stands for, ≥ 1 */
  guint          group;        /* index into groups */
  BpwLayerType   layer_type;
  BpwPhase       phase;
  BpwBottleneck  bottleneck;
  gboolean       transfer;
  const char    *name;         /* pooled */
  const char    *kind;         /* primitive or collective */
  const char    *dtype;
  const char    *fusion;       /* "" when not fused */
  guint32        fusion_group; /* of the first operation merged; 0 when not fused */
  double         tile_m, tile_n;
  double         flops;        /* per execution */
  double         bytes;        /* device bytes per execution; wire bytes for transfers */
  double         time_s;       /* per execution */
  double         start_s;      /* cumulative busy time before it, in item order */
  double         total_s;      /* per step on one rank, all merged operations */
} BpwAssignmentItem;

typedef struct
{
  BpwPhase      phase;
  BpwLayerType  layer_type;
  guint         first, n;      /* items */
  double        start_s, total_s;
} BpwAssignmentGroup;

typedef struct
{
  char          *title;       /* owned */
  char          *label;       /* owned: the candidate */
  gint64         stage;
  gint64         n_stages;
  gboolean       slowest;     /* the stage was chosen as the slowest */
  GArray        *lanes;       /* BpwAssignmentLane */
  GArray        *items;       /* BpwAssignmentItem, in group order */
  GArray        *groups;      /* BpwAssignmentGroup, by phase then layer type */
  double         total_s;
  GStringChunk  *strings;
} BpwAssignmentData;

BpwAssignmentData *bpw_assignment_data_new   (const char         *title,
                                              const char         *label);
void               bpw_assignment_data_free  (BpwAssignmentData  *data);
guint              bpw_assignment_data_add_lane (BpwAssignmentData *data,
                                                 BpwLaneKind        kind,
                                                 const char        *name,
                                                 gint               tier);
/* Appends @item (strings interned) to the group of its phase and layer type, creating
 * the group when it is the first; call bpw_assignment_data_finish() after the last. */
void               bpw_assignment_data_add_item (BpwAssignmentData       *data,
                                                 const BpwAssignmentItem *item);
/* Orders items by phase, then layer type (each group in the order its items came), and
 * computes start times, group spans and lane totals. */
void               bpw_assignment_data_finish (BpwAssignmentData *data);

/* @stage -1: the slowest stage of the plan's evaluation. */
BpwAssignmentData *bpw_assignment_data_new_from_plan (const BpwPlan *plan,
                                                      gint64         stage,
                                                      const char    *label,
                                                      GError       **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwAssignmentData, bpw_assignment_data_free)

G_END_DECLS
