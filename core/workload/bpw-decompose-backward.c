/* bpw-decompose-backward.c — the backward pass, recomputation and optimizer from the tape
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Walks the forward tape in reverse. A backward op reads the saved tensors it needs; that
 * read is what makes a forward tensor a stored activation (or, inside a recomputed region,
 * what keeps a recomputed copy live).
 */
#define G_LOG_DOMAIN "bpw-decompose-backward"

#include "config.h"

#include "bpw-decompose-private.h"

/* ---- backward ---- */

static gint32
grad_of (Ctx *c, gint32 t)
{
  gint32 *slot;

  if (t == NONE)
    return NONE;
  while (c->grad->len <= (guint) t)
    {
      gint32 none = NONE;
      g_array_append_val (c->grad, none);
    }
  slot = &g_array_index (c->grad, gint32, t);
  if (*slot == NONE)
    {
      const BpwTensor *src = T_ (c, t);
      g_autofree char *name = g_strconcat (bpw_work_graph_name (c->b->graph, src->name),
                                           ".grad", NULL);
      gboolean is_weight = src->kind == BPW_TENSOR_WEIGHT;
      gint32 g = tensor (c, name, is_weight ? BPW_TENSOR_GRADIENT : BPW_TENSOR_ACTIVATION_GRAD,
                         src->split, is_weight ? c->m->gradient_dtype : src->dtype, src->layer,
                         src->elements);

      slot = &g_array_index (c->grad, gint32, t);  /* tensor() may not move grad, but be safe */
      *slot = g;
    }
  return *slot;
}

/* What a backward op reads of a forward tensor. Inside a recomputed region it reads the
 * recomputed copy; outside (or for tensors the region does not produce) it reads the
 * original, which thereby becomes a stored activation of the reading layer. As with
 * activation checkpointing, a region's output that later ops keep stays stored. */
static gint32
saved_in (Ctx *c, gint32 t, gint layer, gboolean in_region)
{
  BpwTensor *tt;

  if (t == NONE)
    return NONE;
  if (in_region && (guint) t < c->recomputed->len &&
      g_array_index (c->recomputed, gint32, t) != NONE)
    {
      gint32 copy = g_array_index (c->recomputed, gint32, t);

      /* Live from its recomputation until this backward op: the recompute working set. */
      g_array_index (c->b->graph->tensors, BpwTensor, copy).stored = BPW_STORED_RECOMPUTED;
      return copy;
    }
  tt = &g_array_index (c->b->graph->tensors, BpwTensor, t);
  if (tt->kind == BPW_TENSOR_ACTIVATION && !tt->stored)
    {
      tt->stored = BPW_STORED_CHECKPOINT;
      tt->layer = layer;
    }
  return t;
}

static guint32
bwd_op (Ctx *c, const TapeEntry *e, BpwPhase phase, guint64 flops, guint64 semantic)
{
  g_autofree char *name = g_strconcat (e->name, phase == BPW_PHASE_BACKWARD_WEIGHT ? ".wgrad"
                                       : ".dgrad", NULL);
  guint32 op = _bpw_work_graph_add_op (c->b, name, e->prim == BPW_PRIM_GATHER
                                       ? BPW_PRIM_SCATTER_ADD : e->prim, phase, e->layer_type,
                                       e->split, e->layer, c->count, flops, semantic);
  BpwOp *o = &g_array_index (c->b->graph->ops, BpwOp, op);

  o->forward_of = e->op;
  o->batch = e->batch;
  o->m = e->m;
  o->n = e->n;
  o->k = e->k;
  return op;
}

static gboolean
in_recompute_region (Ctx *c, const TapeEntry *e)
{
  return (c->s->recompute == BPW_RECOMPUTE_FULL && (e->layer >= 0 || c->in_mtp_block)) ||
         (c->s->recompute == BPW_RECOMPUTE_SELECTIVE && e->selective);
}

#define saved(c, t, layer) saved_in ((c), (t), (layer), in_recompute_region ((c), e))

static void
backward_entry (Ctx *c, const TapeEntry *e)
{
  gint32 dy;
  gboolean needs_dx = e->in[0] != NONE && e->in[0] != c->tokens && !e->no_dx;
  guint32 op;

  /* A frozen encoder runs without gradients: nothing below it trains. */
  if (e->frozen)
    return;
  dy = grad_of (c, e->out);
  if (needs_dx || e->in[1] != NONE)
    {
      op = bwd_op (c, e, BPW_PHASE_BACKWARD_ACTIVATION, e->bwd_act, e->bwd_act_semantic);
      use (c, op, dy, BPW_ACCESS_READ);
      for (guint j = 0; j < G_N_ELEMENTS (e->out2); j++)
        if (e->out2[j] > 0)
          use (c, op, grad_of (c, e->out2[j]), BPW_ACCESS_READ);
      switch (e->prim)
        {
        case BPW_PRIM_MATMUL:
          use (c, op, e->weight, BPW_ACCESS_READ);
          break;
        case BPW_PRIM_BATCHED_MATMUL:
        case BPW_PRIM_SWIGLU:
          use (c, op, saved (c, e->in[0], e->layer), BPW_ACCESS_READ);
          use (c, op, saved (c, e->in[1], e->layer), BPW_ACCESS_READ);
          break;
        case BPW_PRIM_NORM:
          use (c, op, saved (c, e->in[0], e->layer), BPW_ACCESS_READ);
          use (c, op, e->weight, BPW_ACCESS_READ);
          break;
        case BPW_PRIM_GELU:
          use (c, op, saved (c, e->in[0], e->layer), BPW_ACCESS_READ);
          break;
        case BPW_PRIM_SOFTMAX:
        case BPW_PRIM_DROPOUT:
        case BPW_PRIM_CROSS_ENTROPY:
        case BPW_PRIM_ROUTER_TOPK:
          use (c, op, saved (c, e->saved, e->layer), BPW_ACCESS_READ);
          break;
        case BPW_PRIM_PERMUTE:
          if (e->in[1] != NONE && !e->concat)
            use (c, op, saved (c, e->in[1], e->layer), BPW_ACCESS_READ);
          break;
        default:
          break;
        }
      if (needs_dx)
        use (c, op, grad_of (c, e->in[0]), BPW_ACCESS_WRITE);
      if (e->in[1] != NONE && e->in[1] != c->tokens &&
          (e->prim == BPW_PRIM_BATCHED_MATMUL || e->prim == BPW_PRIM_ADD ||
           e->prim == BPW_PRIM_PERMUTE))
        use (c, op, grad_of (c, e->in[1]), BPW_ACCESS_WRITE);
    }

  if (e->weight != NONE && c->train)
    {
      /* Only matmuls have padded (capacity) rows whose semantic work differs. */
      op = bwd_op (c, e, BPW_PHASE_BACKWARD_WEIGHT, e->bwd_weight,
                   e->prim == BPW_PRIM_MATMUL ? e->bwd_weight_semantic : e->bwd_weight);
      use (c, op, dy, BPW_ACCESS_READ);
      if (e->prim == BPW_PRIM_MATMUL || e->prim == BPW_PRIM_NORM)
        use (c, op, saved (c, e->in[0], e->layer), BPW_ACCESS_READ);
      else if (e->prim == BPW_PRIM_GATHER)
        use (c, op, saved (c, e->in[0], e->layer), BPW_ACCESS_READ);
      /* Gradient accumulation over micro-batches reads and writes the gradient buffer. */
      use (c, op, grad_of (c, e->weight), BPW_ACCESS_READ);
      use (c, op, grad_of (c, e->weight), BPW_ACCESS_WRITE);
    }
}

/* Emits RECOMPUTE copies of the layer's tape entries [first, last) that the policy redoes,
 * reading stored inputs and writing fresh copies the backward ops then read. */
static void
recompute_layer (Ctx *c, guint first, guint last)
{
  BpwRecompute policy = c->s->recompute;

  for (guint i = first; i < last; i++)
    {
      const TapeEntry *e = &g_array_index (c->tape, TapeEntry, i);
      BpwOp forward, *redo;
      g_autofree char *name = NULL;
      guint32 op;
      gint32 outs[4] = { e->out, e->saved, e->out2[0], e->out2[1] };

      if (policy == BPW_RECOMPUTE_SELECTIVE && !e->selective)
        continue;
      /* A copy, not a pointer: adding the recompute op may move the ops array. */
      forward = *bpw_work_graph_op (c->b->graph, e->op);
      name = g_strconcat (e->name, ".recompute", NULL);
      op = _bpw_work_graph_add_op (c->b, name, e->prim, BPW_PHASE_RECOMPUTE, e->layer_type,
                                   e->split, e->layer, c->count, forward.flops,
                                   forward.semantic_flops);
      redo = &g_array_index (c->b->graph->ops, BpwOp, op);
      redo->forward_of = e->op;
      redo->batch = forward.batch;
      redo->m = forward.m;
      redo->n = forward.n;
      redo->k = forward.k;
      use (c, op, saved_in (c, e->in[0], e->layer, TRUE), BPW_ACCESS_READ);
      use (c, op, saved_in (c, e->in[1], e->layer, TRUE), BPW_ACCESS_READ);
      use_weight (c, op, e);
      for (guint j = 0; j < G_N_ELEMENTS (outs); j++)
        {
          gint32 t = outs[j], copy;
          const BpwTensor *src;
          g_autofree char *cname = NULL;

          if (t == NONE || t == 0 || (j == 1 && t == e->out))
            continue;
          src = T_ (c, t);
          cname = g_strconcat (bpw_work_graph_name (c->b->graph, src->name), ".recomputed", NULL);
          copy = tensor (c, cname, BPW_TENSOR_ACTIVATION, src->split, src->dtype, src->layer,
                         src->elements);
          use (c, op, copy, BPW_ACCESS_WRITE);
          while (c->recomputed->len <= (guint) t)
            {
              gint32 none = NONE;
              g_array_append_val (c->recomputed, none);
            }
          g_array_index (c->recomputed, gint32, t) = copy;
        }
    }
}

/* The tape's entries [first, last) after the blocks in reverse; each MTP module's block is
 * recomputed as a layer is. Returns @first. */
static guint
backward_after_blocks (Ctx *c, guint first, guint last)
{
  guint i = last;

  for (guint d = c->mtp_blocks->len / 2; d-- > 0;)
    {
      guint block_first = g_array_index (c->mtp_blocks, guint, 2 * d);
      guint block_last = g_array_index (c->mtp_blocks, guint, 2 * d + 1);

      while (i > block_last)
        backward_entry (c, &g_array_index (c->tape, TapeEntry, --i));
      c->in_mtp_block = TRUE;
      g_array_set_size (c->recomputed, 0);
      if (c->s->recompute != BPW_RECOMPUTE_NONE)
        recompute_layer (c, block_first, block_last);
      while (i > block_first)
        backward_entry (c, &g_array_index (c->tape, TapeEntry, --i));
      g_array_set_size (c->recomputed, 0);
      c->in_mtp_block = FALSE;
    }
  while (i > first)
    backward_entry (c, &g_array_index (c->tape, TapeEntry, --i));
  return first;
}

void
_bpw_decompose_backward (Ctx         *c,
                         const guint *layer_start,
                         gint64       n_layers)
{
  guint end = c->tape->len;

  /* Head, loss and final norm come after the last block on the tape, and the MTP modules
   * after them. */
  end = backward_after_blocks (c, layer_start[n_layers], end);
  for (gint64 l = n_layers - 1; l >= 0; l--)
    {
      guint first = layer_start[l];
      guint last = end;

      if (c->s->recompute != BPW_RECOMPUTE_NONE)
        {
          g_array_set_size (c->recomputed, 0);
          recompute_layer (c, first, last);
        }
      for (guint i = last; i-- > first;)
        backward_entry (c, &g_array_index (c->tape, TapeEntry, i));
      g_array_set_size (c->recomputed, 0);
      end = first;
    }
  /* The embedding's entries precede layer 0. */
  for (guint i = layer_start[0]; i-- > 0;)
    backward_entry (c, &g_array_index (c->tape, TapeEntry, i));
}

/* ---- optimizer ---- */

void
_bpw_decompose_optimizer (Ctx *c)
{
  const BpwModelSpec *m = c->m;
  BpwOptimizerKind kind = c->s->optimizer_set ? c->s->optimizer : m->optimizer;
  guint moments = kind == BPW_OPTIMIZER_ADAM ? 2 : 1;
  guint per_param = kind == BPW_OPTIMIZER_ADAM ? 12 : 4;
  gboolean master = m->master_dtype != m->param_dtype;

  for (guint i = 0; i < c->weights->len; i++)
    {
      guint32 w = g_array_index (c->weights, guint32, i);
      const BpwTensor *wt = T_ (c, w);
      g_autofree char *base = g_strdup (bpw_work_graph_name (c->b->graph, wt->name));
      g_autofree char *sname = g_strconcat (base, ".moments", NULL);
      g_autofree char *mname = g_strconcat (base, ".master", NULL);
      g_autofree char *oname = g_strconcat (base, ".update", NULL);
      guint64 n = wt->elements;
      BpwSplit split = wt->split;
      gint layer = wt->layer;
      gint32 st, ms = NONE, g;
      guint32 op;

      st = tensor (c, sname, BPW_TENSOR_OPTIMIZER_STATE, split, m->optimizer_dtype, layer,
                   mul (c, n, moments));
      if (master)
        ms = tensor (c, mname, BPW_TENSOR_MASTER_WEIGHT, split, m->master_dtype, layer, n);
      g = grad_of (c, w);
      op = _bpw_work_graph_add_op (c->b, oname, BPW_PRIM_OPTIMIZER_UPDATE, BPW_PHASE_OPTIMIZER,
                                   BPW_LAYER_OPTIMIZER, split, layer, 1, mul (c, n, per_param),
                                   mul (c, n, per_param));
      use (c, op, g, BPW_ACCESS_READ);
      use (c, op, st, BPW_ACCESS_READ);
      use (c, op, ms != NONE ? ms : (gint32) w, BPW_ACCESS_READ);
      use (c, op, st, BPW_ACCESS_WRITE);
      if (ms != NONE)
        use (c, op, ms, BPW_ACCESS_WRITE);
      use (c, op, w, BPW_ACCESS_WRITE);
    }
}
