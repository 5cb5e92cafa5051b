/* bpw-correlate-private.h — what the correlation's source files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-correlate-op-private.h"
#include "bpw-correlate.h"
#include "bpw-work-graph.h"

G_BEGIN_DECLS

/* The DP alignment keeps at most this many cells (one byte each); beyond it, the band
 * around the diagonal narrows. */
#define BPW_CORRELATE_MAX_CELLS (64u * 1024u * 1024u)

/* Aligns the items [@first_item, +@n_items) of a pair's device with its modelled ops
 * [@first_op, +@n_ops) (indices into corr->modelled, in time order) and appends the rows.
 * @by_lineage: match by lineage, micro-batch and name (the workbench's own traces). */
void          _bpw_correlate_pair (BpwCorrelation *corr,
                                   guint           pair,
                                   guint           first_item,
                                   guint           n_items,
                                   guint           first_op,
                                   guint           n_ops,
                                   gboolean        by_lineage);

/* The alignment of one pair (bpw-correlate-align.c) and its explanation of what is left
 * over (bpw-correlate-explain.c). */
typedef struct
{
  GArray       *ops;     /* guint32 modelled indices, primary first */
  GArray       *items;   /* guint32 profile items, primary first */
  BpwRowStatus  status;
  BpwShapeCheck shape;
  double        order;   /* position in the alignment, for sorting */
  const char   *reason;
} BpwCorrelatePending;

typedef struct
{
  gboolean  has_shape;
  double    batch, m, n, k;
  guint8    phase;
  gint32    name;        /* the op's name as a profile string index, -1 if the profile lacks it */
  double    numel;       /* elements of its largest input on this rank, 0 unknown */
  gboolean  run;         /* an optimizer update after another: joins its row */
} BpwCorrelateOpInfo;

typedef struct
{
  BpwCorrelation   *corr;
  const BpwProfile *p;
  guint             pair;
  guint             first_item, n;   /* items */
  guint             first_op, m;     /* modelled ops */
  BpwCorrelateOpInfo *info;
  double           *item_numel;
  guint8           *item_run;        /* an optimizer item after another: part of its row */
  gint32           *item_match;      /* local item -> local op */
  guint8           *item_shape;
  gint32           *item_row;        /* local item -> pending row */
  gint32           *op_row;          /* local op -> pending row */
  GPtrArray        *rows;            /* BpwCorrelatePending */
} BpwCorrelateAlign;

static inline const BpwProfileItem *
_bpw_correlate_local_item (const BpwCorrelateAlign *a, guint i)
{
  return bpw_profile_item (a->p, a->first_item + i);
}

static inline BpwModelledOp *
_bpw_correlate_local_op (const BpwCorrelateAlign *a, guint j)
{
  return &g_array_index (a->corr->modelled, BpwModelledOp, a->first_op + j);
}

BpwCorrelatePending *_bpw_correlate_pending_new  (BpwCorrelateAlign   *a,
                                                  BpwRowStatus         status,
                                                  double               order);
void                 _bpw_correlate_pending_free (gpointer             pending);
void                 _bpw_correlate_add_op       (BpwCorrelateAlign   *a,
                                                  BpwCorrelatePending *row,
                                                  guint                j,
                                                  BpwModelledStatus    status);
/* Covers or reports the modelled ops left over, claims or reports the items left over,
 * and appends the rows to the correlation in alignment order. */
void                 _bpw_correlate_explain      (BpwCorrelateAlign   *a);

G_END_DECLS
