/* bpw-dist-collectives.c — the collectives and transfers a parallel decomposition needs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Message bytes are logical: the whole buffer one rank contributes to (all-reduce,
 * reduce-scatter) or receives from (all-gather) the collective, before any algorithm turns
 * it into transfers. Counts are per step on every rank of the issuing stage.
 *
 * Context parallelism splits every micro-batch's tokens over cp ranks, so every
 * activation-sized message below is 1/cp of the micro-batch's; the gradients of the
 * weights, which every CP rank holds whole, are reduced over dp × cp ranks.
 */
#define G_LOG_DOMAIN "bpw-dist-collectives"

#include "config.h"

#include <string.h>

#include "bpw-dist-work-private.h"
#include "bpw-work-graph-private.h"

static void
emit (BpwDistWork       *dist,
      gint64             stage,
      const BpwOp       *op,
      BpwCollectiveKind  kind,
      BpwGroupKind       group,
      gint64             group_size,
      BpwPhase           phase,
      guint64            bytes,
      guint64            count,
      const char        *name)
{
  BpwCollective c = {
    .kind = kind,
    .group = group,
    .phase = phase,
    .layer_type = op->layer_type,
    .layer = op->layer,
    .stage = stage,
    .op = op->lineage,
    .name = _bpw_work_graph_intern (dist->graph, name),
    .group_size = group_size,
    .bytes = bytes,
    .count = count,
  };

  if (group_size > 1 && bytes > 0 && count > 0)
    g_array_append_val (dist->stages[stage].collectives, c);
}

static gboolean
has_suffix (const char *name, const char *suffix)
{
  return g_str_has_suffix (name, suffix);
}

/* Column-parallel matmuls read the whole (gathered) input; row-parallel ones produce
 * partial sums that must be reduced. */
static gboolean
is_column_parallel (const char *name)
{
  /* Latent attention's up projections split over heads; their inputs, the compressed query
   * and latent of q_a and kv_a (or x for V2-Lite's q_proj), are whole on every rank or
   * gathered from the sequence shards. */
  if (has_suffix (name, "attn.q_b") || has_suffix (name, "attn.kv_b") ||
      has_suffix (name, "attn.q_proj"))
    return TRUE;
  return has_suffix (name, "attn.qkv") || has_suffix (name, ".fc1") ||
         has_suffix (name, ".gate_up") || strcmp (name, "head") == 0;
}

static gboolean
is_row_parallel (const char *name)
{
  return has_suffix (name, "attn.proj") || has_suffix (name, ".fc2") ||
         has_suffix (name, ".down");
}

static void
tensor_parallel (BpwDistWork *dist, gint64 stage, const BpwOp *op, const char *base,
                 guint64 count)
{
  const BpwParallel *p = &dist->parallel;
  const BpwWorkGraph *g = dist->graph;
  guint act = bpw_dtype_bytes (g->scenario.dtype);
  gboolean sp = p->sp;
  gboolean fwd = op->phase == BPW_PHASE_FORWARD || op->phase == BPW_PHASE_RECOMPUTE;
  gint64 tp = p->tp;
  guint64 cp = (guint64) p->cp;

  if (op->primitive != BPW_PRIM_MATMUL && op->primitive != BPW_PRIM_GATHER &&
      op->primitive != BPW_PRIM_SCATTER_ADD && op->primitive != BPW_PRIM_CROSS_ENTROPY)
    return;

  if (op->primitive == BPW_PRIM_GATHER && op->phase == BPW_PHASE_FORWARD)
    {
      /* Vocab-parallel embedding: each rank holds V/tp rows and contributes zeros elsewhere. */
      guint64 bytes = (guint64) g->tokens_per_micro_batch / cp * g->spec.hidden * act;
      emit (dist, stage, op, sp ? BPW_COLLECTIVE_REDUCE_SCATTER : BPW_COLLECTIVE_ALL_REDUCE,
            BPW_GROUP_TP, tp, op->phase, bytes, count, "embedding.tp");
      return;
    }
  if (op->primitive == BPW_PRIM_CROSS_ENTROPY && op->phase == BPW_PHASE_FORWARD)
    {
      /* Vocab-parallel cross-entropy: max, sum of exponentials and target logit, fp32. */
      emit (dist, stage, op, BPW_COLLECTIVE_ALL_REDUCE, BPW_GROUP_TP, tp, op->phase,
            (guint64) g->tokens_per_micro_batch / cp * 4 * 3, count, "loss.tp");
      return;
    }
  if (op->primitive != BPW_PRIM_MATMUL)
    return;

  if (is_column_parallel (base))
    {
      guint64 in_bytes = op->m / cp * op->k * act;

      if (fwd && sp)
        emit (dist, stage, op, BPW_COLLECTIVE_ALL_GATHER, BPW_GROUP_TP, tp, op->phase, in_bytes,
              count, "tp.all_gather");
      else if (op->phase == BPW_PHASE_BACKWARD_ACTIVATION)
        emit (dist, stage, op, sp ? BPW_COLLECTIVE_REDUCE_SCATTER : BPW_COLLECTIVE_ALL_REDUCE,
              BPW_GROUP_TP, tp, op->phase, in_bytes, count, "tp.input_grad");
      else if (op->phase == BPW_PHASE_BACKWARD_WEIGHT && sp)
        /* Sequence parallelism stores the sharded input and gathers it again for dW. */
        emit (dist, stage, op, BPW_COLLECTIVE_ALL_GATHER, BPW_GROUP_TP, tp, op->phase, in_bytes,
              count, "tp.regather");
    }
  else if (is_row_parallel (base))
    {
      guint64 out_bytes = op->m / cp * op->n * act;

      if (fwd)
        emit (dist, stage, op, sp ? BPW_COLLECTIVE_REDUCE_SCATTER : BPW_COLLECTIVE_ALL_REDUCE,
              BPW_GROUP_TP, tp, op->phase, out_bytes, count, "tp.output_reduce");
      else if (op->phase == BPW_PHASE_BACKWARD_ACTIVATION && sp)
        emit (dist, stage, op, BPW_COLLECTIVE_ALL_GATHER, BPW_GROUP_TP, tp, op->phase, out_bytes,
              count, "tp.grad_gather");
    }
}

static void
expert_parallel (BpwDistWork *dist, gint64 stage, const BpwOp *op, const BpwOp *fop,
                 const char *base, guint64 count)
{
  const BpwWorkGraph *g = dist->graph;
  guint64 bytes;

  if (op->layer_type != BPW_LAYER_MOE || op->primitive != BPW_PRIM_PERMUTE ||
      op->phase == BPW_PHASE_BACKWARD_WEIGHT)
    return;
  if (!has_suffix (base, "moe.dispatch") && !has_suffix (base, "moe.combine"))
    return;
  /* The routed slots x h of this rank's micro-batch, over its TP shard: what dispatch
   * writes and what combine reads first. */
  bytes = has_suffix (base, "moe.dispatch") ? fop->bytes_written
          : g_array_index (g->uses, BpwTensorUse, fop->use_first).bytes;
  bytes /= MAX (1, (guint64) dist->parallel.tp) * (guint64) dist->parallel.cp;
  /* Node-limited routing (DeepSeek-V3: n_group 8, topk_group 4): with the expert groups
   * laid over the EP ranks (ep >= groups, a group per node or more), a token's k routed
   * copies reach at most topk_groups groups, and dispatch sends it once to each, to be
   * fanned out to its experts inside the group: bytes x min(k, topk_groups) / k. The
   * in-group fan-out is not costed here. */
  if (g->spec.expert_groups > 0 && dist->parallel.ep >= g->spec.expert_groups &&
      g->spec.topk_groups < g->spec.top_k)
    bytes = (guint64) ((BpwU128) bytes * (guint64) g->spec.topk_groups
                       / (guint64) g->spec.top_k);
  emit (dist, stage, op, BPW_COLLECTIVE_ALL_TO_ALL, BPW_GROUP_EP, dist->parallel.ep, op->phase,
        bytes, count, has_suffix (base, "moe.dispatch") ? "ep.dispatch" : "ep.combine");
}

guint64
_bpw_dist_work_cp_kv_block_bytes (const BpwDistWork *dist)
{
  const BpwParallel *p = &dist->parallel;
  const BpwWorkGraph *g = dist->graph;
  const BpwModelSpec *m = &g->spec;
  guint64 kv_parts = (guint64) MIN (p->tp, m->kv_heads);
  guint64 kv_heads = ceil_div ((guint64) m->kv_heads, kv_parts);

  if (p->cp < 2)
    return 0;
  /* K and V of the rank's seq / cp tokens of each sequence of the micro-batch. */
  return (guint64) g->tokens_per_micro_batch / (guint64) p->cp * 2 * kv_heads *
         (guint64) m->head_dim * bpw_dtype_bytes (g->scenario.dtype);
}

guint64
_bpw_dist_work_cp_kv_buffer_bytes (const BpwDistWork *dist)
{
  guint64 block = _bpw_dist_work_cp_kv_block_bytes (dist);

  return dist->parallel.cp_algorithm == BPW_CP_ALLGATHER
         ? block * (guint64) (dist->parallel.cp - 1) : block;
}

/* Context parallelism (the balanced order: rank i holds chunks i and 2 cp - 1 - i of the
 * sequence). Every attention core gives each rank's queries the keys and values of the
 * whole sequence. B is one rank's K and V block (_bpw_dist_work_cp_kv_block_bytes):
 *
 *   ring       forward (and its recomputation): cp - 1 send/recv steps of B, step j
 *              bringing the block the next attention step works on;
 *              backward: the K and V blocks travel again (cp - 1 steps of B) and each
 *              block's dK/dV accumulator travels with them and returns home (cp steps).
 *   allgather  forward: all-gather of K and V (the gathered buffer, cp B);
 *              backward: the same all-gather again (the gathered copy is not kept), and a
 *              reduce-scatter of dK and dV (cp B) back to the ranks that own them.
 *
 * Logical bytes follow this file's convention (the whole buffer a rank receives from or
 * contributes to the collective), so the all-gather of cp B puts (cp - 1) B on each
 * rank's link, as the ring's cp - 1 steps do. */
static void
context_parallel (BpwDistWork *dist, gint64 stage, const BpwOp *op, const char *base,
                  guint64 count)
{
  const BpwParallel *p = &dist->parallel;
  guint64 block = _bpw_dist_work_cp_kv_block_bytes (dist);
  guint64 cp = (guint64) p->cp;
  gboolean fwd = op->phase == BPW_PHASE_FORWARD || op->phase == BPW_PHASE_RECOMPUTE;

  if (op->layer_type != BPW_LAYER_ATTENTION || op->primitive != BPW_PRIM_BATCHED_MATMUL ||
      !has_suffix (base, "attn.qk"))
    return;
  if (!fwd && op->phase != BPW_PHASE_BACKWARD_ACTIVATION)
    return;
  if (p->cp_algorithm == BPW_CP_RING)
    {
      emit (dist, stage, op, BPW_COLLECTIVE_SEND_RECV, BPW_GROUP_CP, p->cp, op->phase, block,
            count * (cp - 1), "cp.ring_kv");
      if (!fwd)
        emit (dist, stage, op, BPW_COLLECTIVE_SEND_RECV, BPW_GROUP_CP, p->cp, op->phase,
              block, count * cp, "cp.ring_dkv");
      return;
    }
  emit (dist, stage, op, BPW_COLLECTIVE_ALL_GATHER, BPW_GROUP_CP, p->cp, op->phase,
        block * cp, count, fwd ? "cp.kv_gather" : "cp.kv_regather");
  if (!fwd)
    emit (dist, stage, op, BPW_COLLECTIVE_REDUCE_SCATTER, BPW_GROUP_CP, p->cp, op->phase,
          block * cp, count, "cp.dkv_reduce_scatter");
}

/* Llama 3.2 Vision: the projected image states go with the activations to a stage from
 * @to on that holds a cross-attention layer (interleaved chunks: every boundary), and their
 * gradients come back in training; decode reads the layers' caches instead. Bytes per
 * micro-batch and rank. */
static guint64
image_states_bytes (const BpwDistWork *dist, gint64 to)
{
  const BpwWorkGraph *g = dist->graph;
  const BpwModelSpec *m = &g->spec;
  const BpwParallel *p = &dist->parallel;
  gint64 images = bpw_scenario_images (&g->scenario, m);
  gboolean later = p->interleave > 1;

  if (!bpw_model_spec_has_cross_attention (m) || images <= 0 ||
      g->scenario.phase == BPW_WORKLOAD_DECODE)
    return 0;
  for (gint64 i = 0; i < m->n_cross_layers && !later; i++)
    later = m->cross_layers[i] >= dist->stages[to].first_layer;
  if (!later)
    return 0;
  return (guint64) g->scenario.micro_batch * (guint64) images
         * (guint64) bpw_model_spec_cross_tokens (m) * (guint64) m->hidden
         * bpw_dtype_bytes (g->scenario.dtype) / (p->sp ? p->tp : 1);
}

static void
pipeline (BpwDistWork *dist)
{
  const BpwParallel *p = &dist->parallel;
  const BpwWorkGraph *g = dist->graph;
  guint64 bytes = (guint64) g->tokens_per_micro_batch * g->spec.hidden *
                  bpw_dtype_bytes (g->scenario.dtype) / (p->sp ? p->tp : 1) / p->cp;
  guint64 crossings = p->schedule == BPW_SCHEDULE_INTERLEAVED ? p->interleave : 1;
  guint64 count = dist->micro_batches_per_pipeline * crossings;
  gboolean train = g->scenario.phase == BPW_WORKLOAD_TRAIN;

  if (p->pp < 2)
    return;
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *tasks = dist->stages[s].tasks;
      const BpwOp *first = NULL, *last = NULL;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwOp *op = bpw_work_graph_op (g, g_array_index (tasks, BpwTask, i).op);

          if (op->phase == BPW_PHASE_FORWARD)
            last = op;
          if (first == NULL && op->phase == BPW_PHASE_BACKWARD_ACTIVATION)
            first = op;
        }
      if (s + 1 < dist->n_stages && last != NULL)
        emit (dist, s, last, BPW_COLLECTIVE_SEND_RECV, BPW_GROUP_PP, 2, BPW_PHASE_FORWARD,
              bytes + image_states_bytes (dist, s + 1), count, "pp.activation");
      if (s > 0 && train && first != NULL)
        emit (dist, s, first, BPW_COLLECTIVE_SEND_RECV, BPW_GROUP_PP, 2,
              BPW_PHASE_BACKWARD_ACTIVATION, bytes + image_states_bytes (dist, s), count,
              "pp.gradient");
    }
}

/* Per-rank gradient and weight bytes of stage @s: [0] dense, [1] experts. */
static void
stage_state (const BpwDistWork *dist, gint64 s, guint64 grads[2], guint64 params[2])
{
  const BpwWorkGraph *g = dist->graph;

  grads[0] = grads[1] = params[0] = params[1] = 0;
  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);
      int e = t->split == BPW_SPLIT_EXPERT;

      if (_bpw_dist_work_stage_of_layer (dist, t->layer) != s)
        continue;
      if (t->kind == BPW_TENSOR_GRADIENT)
        grads[e] += _bpw_dist_work_tensor_rank_bytes (dist, t);
      else if (t->kind == BPW_TENSOR_WEIGHT)
        params[e] += _bpw_dist_work_tensor_rank_bytes (dist, t);
    }
}

/* Inference keeps no gradients, but ZeRO-3 still shards the weights over DP: every
 * micro-batch's forward gathers them, as in training. Other DP ranks are independent. */
static void
serving_gathers (BpwDistWork *dist)
{
  const BpwParallel *p = &dist->parallel;
  const BpwWorkGraph *g = dist->graph;
  gint64 groups[2] = { p->dp * p->cp, p->dp / p->ep * p->cp };

  if (p->zero < 3 || p->dp * p->cp < 2)
    return;
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *tasks = dist->stages[s].tasks;
      guint64 grads[2], params[2];

      if (tasks->len == 0)
        continue;
      stage_state (dist, s, grads, params);
      for (int e = 0; e < 2; e++)
        emit (dist, s, bpw_work_graph_op (g, g_array_index (tasks, BpwTask, 0).op),
              BPW_COLLECTIVE_ALL_GATHER, BPW_GROUP_DP, groups[e], BPW_PHASE_FORWARD,
              params[e], dist->micro_batches_per_pipeline, e ? "dp.expert" : "dp");
    }
}

static void
data_parallel (BpwDistWork *dist)
{
  const BpwParallel *p = &dist->parallel;
  const BpwWorkGraph *g = dist->graph;
  guint64 m = dist->micro_batches_per_pipeline;

  if (g->scenario.phase != BPW_WORKLOAD_TRAIN)
    {
      serving_gathers (dist);
      return;
    }
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      /* [0] dense parameters over dp, [1] expert parameters over dp / ep */
      guint64 grads[2], params[2];
      gint64 groups[2] = { p->dp * p->cp, p->dp / p->ep * p->cp };
      const BpwOp *anchor = NULL;
      GArray *tasks = dist->stages[s].tasks;

      stage_state (dist, s, grads, params);
      for (guint i = 0; i < tasks->len && anchor == NULL; i++)
        {
          const BpwOp *op = bpw_work_graph_op (g, g_array_index (tasks, BpwTask, i).op);
          if (op->phase == BPW_PHASE_OPTIMIZER)
            anchor = op;
        }
      if (anchor == NULL)
        continue;
      for (int e = 0; e < 2; e++)
        {
          const char *label = e ? "dp.expert" : "dp";

          if (p->zero == 0)
            emit (dist, s, anchor, BPW_COLLECTIVE_ALL_REDUCE, BPW_GROUP_DP, groups[e],
                  BPW_PHASE_BACKWARD_WEIGHT, grads[e], 1, label);
          else
            {
              emit (dist, s, anchor, BPW_COLLECTIVE_REDUCE_SCATTER, BPW_GROUP_DP, groups[e],
                    BPW_PHASE_BACKWARD_WEIGHT, grads[e], 1, label);
              /* ZeRO-3 gathers the sharded weights for every micro-batch's forward and
               * backward; ZeRO-1/2 gather the updated weights once after the step. */
              if (p->zero == 3)
                emit (dist, s, anchor, BPW_COLLECTIVE_ALL_GATHER, BPW_GROUP_DP, groups[e],
                      BPW_PHASE_FORWARD, params[e], 2 * m, label);
              else
                emit (dist, s, anchor, BPW_COLLECTIVE_ALL_GATHER, BPW_GROUP_DP, groups[e],
                      BPW_PHASE_OPTIMIZER, params[e], 1, label);
            }
        }
    }
}

/* Tied embeddings (or MTP modules) across a pipeline: the last stage keeps a copy of the
 * table for the head (or the modules' lookups), and the two copies' gradients are summed
 * every step (Megatron-LM). */
static void
tied_embedding (BpwDistWork *dist)
{
  const BpwWorkGraph *g = dist->graph;
  const BpwParallel *p = &dist->parallel;
  GArray *tasks = dist->stages[0].tasks;

  if (!_bpw_dist_work_last_stage_embedding (dist) || g->scenario.phase != BPW_WORKLOAD_TRAIN)
    return;
  for (guint i = 0; i < tasks->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, g_array_index (tasks, BpwTask, i).op);

      if (op->primitive == BPW_PRIM_SCATTER_ADD)
        {
          guint64 bytes = (guint64) g->spec.vocab * g->spec.hidden / p->tp *
                          bpw_dtype_bytes (g->spec.gradient_dtype);
          emit (dist, 0, op, BPW_COLLECTIVE_ALL_REDUCE, BPW_GROUP_PP, 2,
                BPW_PHASE_BACKWARD_WEIGHT, bytes, 1, "pp.tied_embedding");
          emit (dist, dist->n_stages - 1, op, BPW_COLLECTIVE_ALL_REDUCE, BPW_GROUP_PP, 2,
                BPW_PHASE_BACKWARD_WEIGHT, bytes, 1, "pp.tied_embedding");
          return;
        }
    }
}

void
_bpw_dist_work_add_collectives (BpwDistWork *dist)
{
  const BpwWorkGraph *g = dist->graph;

  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *tasks = dist->stages[s].tasks;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwTask *task = &g_array_index (tasks, BpwTask, i);
          const BpwOp *op = bpw_work_graph_op (g, task->op);
          const BpwOp *fop = op->forward_of >= 0 ? bpw_work_graph_op (g, op->forward_of) : op;
          const char *base = bpw_work_graph_name (g, fop->name);

          if (op->phase == BPW_PHASE_OPTIMIZER)
            continue;
          if (dist->parallel.tp > 1)
            tensor_parallel (dist, s, op, base, task->count);
          if (dist->parallel.ep > 1)
            expert_parallel (dist, s, op, fop, base, task->count);
          if (dist->parallel.cp > 1)
            context_parallel (dist, s, op, base, task->count);
        }
    }
  pipeline (dist);
  data_parallel (dist);
  tied_embedding (dist);
}
