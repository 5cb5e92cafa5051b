/* bpw-work-graph.h — the exact decomposition of one scenario into operations and tensors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-types.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

/* Layer indices of ops and tensors outside the transformer blocks. */
#define BPW_LAYER_BEFORE_BLOCKS (-1)  /* embedding: first pipeline stage */
#define BPW_LAYER_AFTER_BLOCKS  (-2)  /* final norm, head, loss: last pipeline stage */

/* How tensor parallelism divides an operation's work or a tensor's bytes. */
typedef enum
{
  BPW_SPLIT_REPLICATED,  /* every TP rank holds or does all of it */
  BPW_SPLIT_TP,          /* divided evenly over the TP ranks (heads, columns, rows) */
  BPW_SPLIT_SEQUENCE,    /* divided over TP ranks only under sequence parallelism */
  BPW_SPLIT_EXPERT,      /* divided over EP ranks (and TP within an expert) */
  BPW_SPLIT_KV_HEADS,    /* key/value heads: divided over min(tp, kv_heads) ranks */
} BpwSplit;

typedef enum
{
  BPW_STORED_NO,
  BPW_STORED_CHECKPOINT,   /* kept from forward to backward */
  BPW_STORED_RECOMPUTED,   /* recomputed in backward and read there: live for one layer */
} BpwStored;

/* One logical tensor: an activation, a weight, a gradient, optimizer state, KV cache.
 * Buffers are tensors with a lifetime: produced by @producer, last used by @last_consumer. */
typedef struct
{
  guint32  name;            /* index into the graph's string table */
  guint8   kind;            /* BpwTensorKind */
  guint8   split;           /* BpwSplit */
  guint8   dtype;           /* BpwDType */
  guint8   stored;          /* BpwStored */
  gint32   layer;           /* block, or BPW_LAYER_BEFORE_BLOCKS / AFTER_BLOCKS */
  guint64  elements;        /* whole tensor, all ranks together */
  guint64  bytes;
  gint32   producer;        /* op index, -1 for persistent state */
  gint32   last_consumer;   /* op index, -1 if none */
} BpwTensor;

typedef enum
{
  BPW_ACCESS_READ,
  BPW_ACCESS_WRITE,
} BpwAccess;

typedef struct
{
  guint32  tensor;
  guint8   access;          /* BpwAccess */
  guint64  bytes;           /* bytes of the tensor this op touches */
} BpwTensorUse;

/* One operation of one micro-batch (or of the optimizer step). FLOPs are integers,
 * 2 per multiply-add. @flops is what an unfused implementation executes; @semantic_flops
 * is what the mathematics needs (causal attention: s(s+1)/2 scores per head). */
typedef struct
{
  guint32  lineage;         /* stable id = index */
  guint8   primitive;       /* BpwPrimitive */
  guint8   phase;           /* BpwPhase */
  guint8   layer_type;      /* BpwLayerType */
  guint8   split;           /* BpwSplit of its work */
  guint8   addition;        /* BpwAddition: BPW_ADDITION_RECOMPUTE for recompute ops */
  guint8   dtype;           /* BpwDType it computes in */
  gint32   layer;           /* block, or BPW_LAYER_BEFORE_BLOCKS / AFTER_BLOCKS */
  guint32  name;            /* index into the string table: "attn.qkv" */
  guint64  count;           /* executions per step, whole job (micro-batches, or 1) */
  guint64  flops;
  guint64  semantic_flops;
  guint64  batch, m, n, k;  /* matmul shape: batch x (m x k) . (k x n); 0 otherwise */
  guint64  bytes_read;
  guint64  bytes_written;
  guint32  use_first, use_count;  /* into uses */
  guint32  dep_first, dep_count;  /* into deps: ops this one waits for */
  gint32   forward_of;      /* backward/recompute ops: the forward op they derive from; else -1 */
} BpwOp;

/* A collective or point-to-point transfer needed by the parallel decomposition,
 * attached to the op whose output it moves. */
typedef struct
{
  guint8   kind;            /* BpwCollectiveKind */
  guint8   group;           /* BpwGroupKind */
  guint8   phase;           /* BpwPhase */
  guint8   layer_type;
  gint32   layer;
  gint32   stage;           /* pipeline stage that issues it */
  guint32  op;              /* lineage of the op it serves */
  guint32  name;
  gint64   group_size;
  guint64  bytes;           /* logical message bytes: the full buffer each rank contributes/receives */
  guint64  count;           /* occurrences per step on each rank of the stage */
} BpwCollective;

struct _BpwWorkGraph
{
  /* owned */
  BpwModelSpec   spec;
  BpwScenario    scenario;
  GArray        *ops;        /* BpwOp */
  GArray        *tensors;    /* BpwTensor */
  GArray        *uses;       /* BpwTensorUse */
  GArray        *deps;       /* guint32 op indices */
  GPtrArray     *names;      /* interned strings */
  GHashTable    *name_index; /* string -> index + 1 */

  gint64         micro_batches; /* per step, whole job */
  gint64         tokens_per_micro_batch;
};

BpwWorkGraph *bpw_work_graph_new       (const BpwModelSpec *spec,
                                        const BpwScenario  *scenario,
                                        GError            **error);
void          bpw_work_graph_free      (BpwWorkGraph       *graph);

static inline const BpwOp *
bpw_work_graph_op (const BpwWorkGraph *graph, guint i)
{
  return &g_array_index (graph->ops, BpwOp, i);
}

static inline const BpwTensor *
bpw_work_graph_tensor (const BpwWorkGraph *graph, guint i)
{
  return &g_array_index (graph->tensors, BpwTensor, i);
}

static inline const char *
bpw_work_graph_name (const BpwWorkGraph *graph, guint32 name)
{
  return g_ptr_array_index (graph->names, name);
}

/* Whole-job totals per step. */
BpwU128       bpw_work_graph_total_flops     (const BpwWorkGraph *graph,
                                              BpwPhase            phase); /* executed */
BpwU128       bpw_work_graph_model_flops     (const BpwWorkGraph *graph);
/* The model FLOPs above by the layer type of their operation, into @flops of
 * BPW_N_LAYER_TYPES entries; they add up to them. */
void          bpw_work_graph_model_flops_by_layer_type (const BpwWorkGraph *graph,
                                                        BpwU128             flops[]);
BpwU128       bpw_work_graph_semantic_flops  (const BpwWorkGraph *graph);

/* Bytes of activations one micro-batch stores in layer @layer for its backward pass
 * (whole tensor, no parallelism): the per-layer figure of Korthikanti et al. Table 2. */
guint64       bpw_work_graph_layer_stored_bytes (const BpwWorkGraph *graph,
                                                 gint                layer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwWorkGraph, bpw_work_graph_free)

G_END_DECLS
