/* bpw-decompose-private.h — the tape and builder context shared by the decomposition files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-work-graph-private.h"

G_BEGIN_DECLS

#define NONE (-1)

typedef struct
{
  guint32      op;
  BpwPrimitive prim;
  BpwLayerType layer_type;
  BpwSplit     split;
  gint32       layer;
  gint32       in[2];      /* activation inputs */
  gint32       weight;     /* weight tensor (matmul, norm, gather, bias) */
  gint32       out;        /* activation output */
  gint32       out2[2];    /* further outputs: K and V of the QKV split; 0 = none (tensor 0 is
                            * the token ids, never an output) */
  gint32       saved;      /* what backward reads besides inputs: softmax output, dropout mask, CE probs */
  /* Flags in one word, so that the tape entry (which the graph-size bound counts) keeps its
   * size. */
  guint        selective : 1;  /* part of the attention core that selective recompute redoes */
  guint        frozen : 1;     /* of a frozen vision encoder: no backward at all */
  guint        no_dx : 1;      /* its input needs no gradient (pixels, a frozen encoder's output) */
  guint        concat : 1;     /* a concatenation: backward routes gradients, reads no values */
  guint64      flops, semantic;  /* forward */
  guint64      bwd_act, bwd_act_semantic, bwd_weight, bwd_weight_semantic;
  guint64      batch, m, n, k;
  const char  *name;
} TapeEntry;

typedef struct
{
  BpwGraphBuilder    *b;
  const BpwModelSpec *m;
  const BpwScenario  *s;
  gboolean            train;
  gboolean            dropout;
  guint64             count;   /* executions of a micro-batch op per step, whole job */
  guint64             mb;      /* sequences per micro-batch */
  guint64             sq;      /* query positions per sequence */
  guint64             skv;     /* key positions per sequence */
  guint64             T;       /* tokens per micro-batch */
  BpwDType            act;
  GArray             *tape;    /* TapeEntry */
  GArray             *grad;    /* gint32 per tensor: its gradient tensor */
  GArray             *weights; /* guint32: every weight tensor, for the optimizer */
  GArray             *recomputed; /* gint32 per tensor: its recomputed copy in this layer */
  gint32              tokens;
  guint64             weight_copies; /* experts stacked in one weight tensor; else 1 */
  /* The vision encoder (bpw-decompose-vision.c) builds with the block code on a Ctx of its
   * own: its ops are of layer type vision, its attention bidirectional without a cache,
   * and, when frozen, its weights neither get gradients nor reach the optimizer. */
  gboolean            vision;
  gboolean            encoder;
  gboolean            frozen;
  gint32              image_features; /* the projector's output the embedding merges, or NONE */
  /* Llama 3.2 Vision (bpw-decompose-cross.c): the encoder's layers have no attention
   * biases and its global layers gated residuals; the decoder's cross-attention layers
   * read the projected image tokens (NONE in decode, which reads their cache), cross_keys
   * of them per sequence. */
  gboolean            no_attn_bias;
  gboolean            cross;   /* building a cross-attention layer: its attention ops are
                                * of layer type cross_attention */
  gboolean            gated;
  gint32              cross_states;
  guint64             cross_keys;
  /* Multi-token prediction (bpw-decompose-mtp.c): while @mtp is set the blocks built are
   * the MTP modules', tagged after the blocks (the last pipeline stage holds them) and of
   * the kind of layer m->layers; @mtp_blocks holds each such block's tape range [first,
   * last) as two guints, for the backward pass to recompute it as a layer. */
  gboolean            mtp;
  GArray             *mtp_blocks;
  gboolean            in_mtp_block;  /* backward: inside one of them */
} Ctx;

/* The layer whose kind (dense or MoE, windowed, cross-attention) block @layer takes: an MTP
 * module's block, tagged after the blocks, is built as layer m->layers, the layer that
 * bpw_model_spec_mtp_parameters() counts. */
static inline gint64
kind_layer (const Ctx *c, gint layer)
{
  return c->mtp && layer == BPW_LAYER_AFTER_BLOCKS ? c->m->layers : layer;
}

static inline guint64
mul (Ctx *c, guint64 x, guint64 y)
{
  return _bpw_mul (c->b, "FLOP and byte counts", x, y);
}

static inline guint64
mul3 (Ctx *c, guint64 x, guint64 y, guint64 z)
{
  return _bpw_mul3 (c->b, "FLOP and byte counts", x, y, z);
}

static inline gint32
tensor (Ctx           *c,
        const char    *name,
        BpwTensorKind  kind,
        BpwSplit       split,
        BpwDType       dtype,
        gint           layer,
        guint64        elements)
{
  return _bpw_work_graph_add_tensor (c->b, name, kind, split, dtype, layer, elements);
}

static inline gint32
activation (Ctx *c, const char *name, BpwSplit split, gint layer, guint64 elements)
{
  return tensor (c, name, BPW_TENSOR_ACTIVATION, split, c->act, layer, elements);
}

/* A weight with its persistent companions: gradient, master copy, optimizer moments. */
static inline gint32
weight (Ctx *c, const char *name, BpwSplit split, gint layer, guint64 elements)
{
  gint32 w = tensor (c, name, BPW_TENSOR_WEIGHT, split, c->m->param_dtype, layer,
                    mul (c, elements, c->weight_copies));
  guint32 wu = w;

  if (!c->frozen)
    g_array_append_val (c->weights, wu);
  return w;
}

static inline const BpwTensor *
T_ (Ctx *c, gint32 t)
{
  return bpw_work_graph_tensor (c->b->graph, t);
}

static inline void
use (Ctx *c, guint32 op, gint32 t, BpwAccess access)
{
  if (t != NONE)
    _bpw_work_graph_use (c->b, op, t, access);
}

/* The forward read of @e's weight by op @op. A gather (the token embedding) reads the rows
 * of the tokens it looks up, as many elements as it writes, not the whole table: tokens ×
 * hidden of the table's dtype. Every other op reads all of its weight. */
static inline void
use_weight (Ctx *c, guint32 op, const TapeEntry *e)
{
  if (e->weight == NONE)
    return;
  if (e->prim == BPW_PRIM_GATHER)
    _bpw_work_graph_use_bytes (c->b, op, e->weight, BPW_ACCESS_READ,
                               mul (c, T_ (c, e->out)->elements,
                                    bpw_dtype_bytes (T_ (c, e->weight)->dtype)));
  else
    _bpw_work_graph_use (c->b, op, e->weight, BPW_ACCESS_READ);
}

/* bpw-decompose.c: the building blocks, for the other decomposition files */
TapeEntry *_bpw_decompose_fwd           (Ctx             *c,
                                         const TapeEntry *tmpl);
gint32     _bpw_decompose_linear        (Ctx             *c,
                                         const char      *name,
                                         BpwLayerType     lt,
                                         gint             layer,
                                         gint32           x,
                                         guint64          rows,
                                         guint64          in,
                                         guint64          out,
                                         BpwSplit         wsplit,
                                         BpwSplit         osplit,
                                         gboolean         bias,
                                         guint64          semantic_rows);
gint32     _bpw_decompose_dropout       (Ctx             *c,
                                         const char      *name,
                                         BpwLayerType     lt,
                                         BpwSplit         split,
                                         gint             layer,
                                         gint32           x,
                                         guint64          elements,
                                         gboolean         selective);
gint32     _bpw_decompose_attention_core (Ctx            *c,
                                          gint            layer,
                                          gint32          q,
                                          gint32          k,
                                          gint32          v,
                                          guint64         qk,
                                          guint64         vd,
                                          guint64         keys,
                                          guint64         scores,
                                          guint64         tri);
gint32     _bpw_decompose_attention_out (Ctx             *c,
                                         gint             layer,
                                         gint32           y);

gint32     _bpw_decompose_pointwise     (Ctx             *c,
                                         const char      *name,
                                         BpwPrimitive     prim,
                                         BpwLayerType     lt,
                                         BpwSplit         split,
                                         gint             layer,
                                         gint32           x,
                                         gint32           x2,
                                         guint64          elements,
                                         guint64          out_elements,
                                         guint64          per_elem);
gint32     _bpw_decompose_norm          (Ctx             *c,
                                         const char      *name,
                                         BpwLayerType     lt,
                                         gint             layer,
                                         gint32           x);
/* One pre-norm Transformer block of c->m, as the decoder's; the vision encoder's layers. */
gint32     _bpw_decompose_block         (Ctx             *c,
                                         gint             layer,
                                         gint32           x);

gint32     _bpw_decompose_dense_mlp     (Ctx             *c,
                                         gint             layer,
                                         gint32           x);
/* x + tanh(gate) y, the gate a one-element weight of @layer. */
gint32     _bpw_decompose_gated_add     (Ctx             *c,
                                         const char      *name,
                                         BpwLayerType     lt,
                                         gint             layer,
                                         gint32           x,
                                         gint32           y);

/* bpw-decompose-cross.c: Llama 3.2 Vision's tiled encoder and projector (sets
 * c->cross_states and c->cross_keys), and a cross-attention layer of the decoder. */
void       _bpw_decompose_tiled_vision  (Ctx             *c);
gint32     _bpw_decompose_cross_block   (Ctx             *c,
                                         gint             layer,
                                         gint32           x);

/* bpw-decompose-vision.c: the vision encoder and projector of c->m for the micro-batch's
 * images; returns the projected image tokens (NONE when no image is encoded) and sets
 * *rows to their count. */
gint32     _bpw_decompose_vision        (Ctx             *c,
                                         guint64         *rows);

/* The head's matmul of the normed @y by @w and, in training, the cross-entropy loss. */
void       _bpw_decompose_logits_loss   (Ctx             *c,
                                         gint32           y,
                                         gint32           w);

/* bpw-decompose-mtp.c: the training graph's multi-token prediction modules after the head,
 * from the last block's output @x, sharing the embedding @table and the head's weight
 * @head_w. */
void       _bpw_decompose_mtp           (Ctx             *c,
                                         gint32           x,
                                         gint32           table,
                                         gint32           head_w);

/* bpw-decompose-mla.c: multi-head latent attention from the normed input @x */
gint32     _bpw_decompose_mla           (Ctx             *c,
                                         gint             layer,
                                         gint32           x);

/* bpw-decompose-backward.c */
void _bpw_decompose_backward  (Ctx         *c,
                               const guint *layer_start,
                               gint64       n_layers);
void _bpw_decompose_optimizer (Ctx         *c);

G_END_DECLS
