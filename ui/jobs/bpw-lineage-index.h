/* bpw-lineage-index.h — which operations of a plan are the same operation in another block
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Views show the work at different grains: the timeline every operation of every block,
 * the Sheet each stage's first block, the roofline one point for operations alike in every
 * block and stage. Selecting by lineage id across them needs to know that attn.qkv of
 * block 17 is the same operation as attn.qkv of block 0: its class, the lowest lineage of
 * the operations with its name, phase, primitive, layer type and addition. The index is
 * built from a plan's work graph once, in a worker thread, and read on the main thread.
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

typedef struct _BpwLineageIndex BpwLineageIndex;

/* (transfer full): the classes of every operation of @graph (a plan's: plan->dist->graph;
 * the graph depends on the workload and scenario only, so it can be built without binding). */
BpwLineageIndex *bpw_lineage_index_new           (const BpwWorkGraph    *graph);
void             bpw_lineage_index_free          (BpwLineageIndex       *index);

/* The class of @lineage (the lowest lineage of its kind); G_MAXUINT32 when unknown. */
guint32          bpw_lineage_index_get_class     (const BpwLineageIndex *index,
                                                  guint32                lineage);
/* Its block, or BPW_LAYER_BEFORE_BLOCKS / AFTER_BLOCKS; G_MININT32 when unknown. */
gint32           bpw_lineage_index_get_layer     (const BpwLineageIndex *index,
                                                  guint32                lineage);
/* Where a view that shows @n items (an array of structs @stride bytes apart, each with a
 * guint32 lineage @offset bytes in) should select @lineage: the first item that is
 * @lineage itself, else one of its class — the one of the highest block not above
 * @lineage's (the first block of its stage, in the Sheet), else of the lowest block.
 * -1 when none is. @index may be NULL: exact matches only. */
gint             bpw_lineage_index_pick          (const BpwLineageIndex *index,
                                                  guint32                lineage,
                                                  gconstpointer          items,
                                                  guint                  n,
                                                  gsize                  stride,
                                                  gsize                  offset);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwLineageIndex, bpw_lineage_index_free)

G_END_DECLS
