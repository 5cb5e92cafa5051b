/* bpw-plan-flash.c — the score tiles a fused (flash) attention kernel runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The work graph executes the whole rectangular score matrix of causal attention, as a
 * materialized implementation does (its semantic work is the triangle). A flash kernel
 * walks the scores in blocks of query rows by keys and skips every block that lies wholly
 * above the diagonal, or outside a sliding window's band: it runs the triangle (the band)
 * rounded up to whole blocks along its edge. The forward, the backward's gradients and
 * its on-chip recompute of QKᵀ all walk the same blocks.
 */
#define G_LOG_DOMAIN "bpw-plan"

#include "config.h"

#include <string.h>

#include "bpw-plan-private.h"

/* The block, query rows × keys: 128 × 128. FlashAttention-3 runs causal and windowed
 * attention on Hopper in 128 × 128 blocks at head dimensions 65 … 128 (128 × 176 without
 * a mask), FlashAttention-2 and cuDNN's fused attention in blocks of 64 or 128 on a side;
 * one block for the forward and the backward keeps both on the same diagonal (the
 * backward's 64-row blocks would skip a little more of each diagonal block). No
 * blueprint or mapping states the attention kernel's block, so the rule is one for all. */
#define FLASH_BLOCK_QUERIES 128
#define FLASH_BLOCK_KEYS    128

/* Score elements of one head that the kernel computes for a causal attention of @rows
 * queries over the same @rows keys, each row reaching back @window keys (0: all before
 * it): per block of query rows, the key blocks from the one holding its first row's
 * first key to the one holding its last row's own position, clipped to the matrix. */
guint64
_bpw_plan_flash_scores (guint64 rows,
                        guint64 window)
{
  guint64 total = 0;

  for (guint64 first = 0; first < rows; first += FLASH_BLOCK_QUERIES)
    {
      guint64 last = MIN (first + FLASH_BLOCK_QUERIES, rows) - 1;
      guint64 from = window > 0 && first + 1 > window ? first + 1 - window : 0;
      guint64 key_first = from / FLASH_BLOCK_KEYS * FLASH_BLOCK_KEYS;
      guint64 key_end = MIN ((last / FLASH_BLOCK_KEYS + 1) * FLASH_BLOCK_KEYS, rows);

      total += (last - first + 1) * (key_end - key_first);
    }
  return total;
}

BpwFlashBand *
_bpw_plan_flash_bands (const BpwWorkGraph *g,
                       gsize              *n_layers)
{
  BpwFlashBand *bands;
  gint32 layers = 0;

  for (guint i = 0; i < g->ops->len; i++)
    layers = MAX (layers, bpw_work_graph_op (g, i)->layer + 1);
  bands = g_new0 (BpwFlashBand, (gsize) MAX (layers, 1));
  *n_layers = (gsize) layers;

  /* The layer's forward QKᵀ has the score matrix's shape: its rows are the queries, its
   * columns the keys each row holds (all of them, or the window's W when W < rows). The
   * graph marks causal attention by its semantic work, the triangle (or band), being
   * less than the matrix it executes; cross-attention, encoders, decode steps and
   * prefill over a cache keep the whole matrix. */
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);

      if (op->phase != BPW_PHASE_FORWARD || op->layer < 0 ||
          op->layer_type != BPW_LAYER_ATTENTION || op->primitive != BPW_PRIM_BATCHED_MATMUL ||
          op->semantic_flops >= op->flops || op->m < 2 || op->n == 0 || op->n > op->m ||
          strcmp (bpw_work_graph_name (g, op->name), "attn.qk") != 0)
        continue;
      bands[op->layer].scores = op->m * op->n;
      bands[op->layer].executed = _bpw_plan_flash_scores (op->m, op->n < op->m ? op->n : 0);
    }
  return bands;
}

guint64
_bpw_plan_flash_flops (const BpwFlashBand *bands,
                       gsize               n_layers,
                       const BpwWorkGraph *g,
                       const BpwOp        *op)
{
  const BpwOp *fwd = op->forward_of >= 0 ? bpw_work_graph_op (g, (guint) op->forward_of) : op;
  const BpwFlashBand *band;

  if (op->layer < 0 || (gsize) op->layer >= n_layers || op->layer_type != BPW_LAYER_ATTENTION ||
      !_bpw_plan_attention_core_name (bpw_work_graph_name (g, fwd->name)))
    return op->flops;
  band = &bands[op->layer];
  if (band->scores == 0)
    return op->flops;
  /* Every op of the core does the same work per score element (2·d per multiply, 5 per
   * softmax element, their backward's twice that), so its FLOPs are a whole multiple of
   * the matrix's elements. */
  return op->flops / band->scores * band->executed + op->flops % band->scores;
}

/* The head dimension in the kernel's tiles: FlashAttention-2/3 and cuDNN's fused attention
 * are built for head dimensions in steps of 64 on Hopper (64, 128, 192, 256; FA3's 96 is
 * the exception) and run others on the next one up. The shared H200 pack shows it: the
 * GPT-style model's 80-wide heads run its forward and backward kernels at 0.64 of the
 * rate of Llama's 128-wide ones at the same sequence (80 / 128 = 0.625). */
#define FLASH_HEAD_GRANULE 64

double
_bpw_plan_flash_head_factor (const BpwWorkGraph *g,
                             const BpwOp        *op)
{
  const BpwOp *fwd = op->forward_of >= 0 ? bpw_work_graph_op (g, (guint) op->forward_of) : op;
  const char *name = bpw_work_graph_name (g, fwd->name);
  guint64 head;

  if (fwd->primitive != BPW_PRIM_BATCHED_MATMUL || op->layer_type != BPW_LAYER_ATTENTION)
    return 1.0;
  /* QKᵀ contracts over the head (k); PV's output is the value head (n). */
  if (strcmp (name, "attn.qk") == 0)
    head = fwd->k;
  else if (strcmp (name, "attn.av") == 0)
    head = fwd->n;
  else
    return 1.0;
  if (head == 0)
    return 1.0;
  return (double) ((head + FLASH_HEAD_GRANULE - 1) / FLASH_HEAD_GRANULE * FLASH_HEAD_GRANULE) /
         (double) head;
}
