/* bpw-work-graph-private.h — the builder the decomposition uses to fill a work graph
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-work-graph.h"

G_BEGIN_DECLS

/* Checked arithmetic: every product that derives a count from user sizes goes through
 * these, and the first overflow poisons the builder so that it fails with a sentence. */
typedef struct
{
  BpwWorkGraph *graph;
  gboolean      overflow;
  const char   *overflow_what;
} BpwGraphBuilder;

guint64  _bpw_mul    (BpwGraphBuilder *b, const char *what, guint64 x, guint64 y);
guint64  _bpw_mul3   (BpwGraphBuilder *b, const char *what, guint64 x, guint64 y, guint64 z);
guint64  _bpw_add    (BpwGraphBuilder *b, const char *what, guint64 x, guint64 y);

guint32  _bpw_work_graph_intern (BpwWorkGraph *graph, const char *name);

guint32  _bpw_work_graph_add_tensor (BpwGraphBuilder *b,
                                     const char      *name,
                                     BpwTensorKind    kind,
                                     BpwSplit         split,
                                     BpwDType         dtype,
                                     gint             layer,
                                     guint64          elements);

guint32  _bpw_work_graph_add_op (BpwGraphBuilder *b,
                                 const char      *name,
                                 BpwPrimitive     primitive,
                                 BpwPhase         phase,
                                 BpwLayerType     layer_type,
                                 BpwSplit         split,
                                 gint             layer,
                                 guint64          count,
                                 guint64          flops,
                                 guint64          semantic_flops);

/* Records that @op reads or writes @tensor (all of it) and derives the dependency on the
 * tensor's producer. Must be called right after the op is added, before the next op. */
void     _bpw_work_graph_use (BpwGraphBuilder *b,
                              guint32          op,
                              guint32          tensor,
                              BpwAccess        access);

/* The same for a part of the tensor (appending to a KV cache). */
void     _bpw_work_graph_use_bytes (BpwGraphBuilder *b,
                                    guint32          op,
                                    guint32          tensor,
                                    BpwAccess        access,
                                    guint64          bytes);


/* An empty graph owning copies of @spec and @scenario, its arrays sized for @reserve_ops
 * ops. The decomposition (bpw-decompose.c) fills it; the graph knows nothing of how.
 *
 * The arrays grow as ops and tensors are added: a pointer into them (bpw_work_graph_op(),
 * bpw_work_graph_tensor(), g_array_index()) is valid only until the next
 * _bpw_work_graph_add_*() or _bpw_work_graph_use*(). Hold indices across appends, or copy. */
/* bpw_work_graph_new() with the arrays first sized for @reserve_ops ops (0: grown from
 * empty). Defined by the decomposition; tests pass a small reserve so that the arrays move
 * while the graph is built. */
BpwWorkGraph *_bpw_work_graph_new_reserved (const BpwModelSpec *spec,
                                            const BpwScenario  *scenario,
                                            guint               reserve_ops,
                                            GError            **error);

BpwWorkGraph *_bpw_work_graph_alloc (const BpwModelSpec *spec,
                                     const BpwScenario  *scenario,
                                     guint               reserve_ops);

G_END_DECLS
