/* bpw-work-graph.c — storage, interning and totals of the work graph
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-work-graph"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-work-graph-private.h"

guint64
_bpw_mul (BpwGraphBuilder *b,
          const char      *what,
          guint64          x,
          guint64          y)
{
  guint64 r;

  if (G_UNLIKELY (__builtin_mul_overflow (x, y, &r)))
    {
      if (!b->overflow)
        b->overflow_what = what;
      b->overflow = TRUE;
      return 0;
    }
  return r;
}

guint64
_bpw_mul3 (BpwGraphBuilder *b,
           const char      *what,
           guint64          x,
           guint64          y,
           guint64          z)
{
  return _bpw_mul (b, what, _bpw_mul (b, what, x, y), z);
}

guint64
_bpw_add (BpwGraphBuilder *b,
          const char      *what,
          guint64          x,
          guint64          y)
{
  guint64 r;

  if (G_UNLIKELY (__builtin_add_overflow (x, y, &r)))
    {
      if (!b->overflow)
        b->overflow_what = what;
      b->overflow = TRUE;
      return 0;
    }
  return r;
}

guint32
_bpw_work_graph_intern (BpwWorkGraph *graph,
                        const char   *name)
{
  gpointer found = g_hash_table_lookup (graph->name_index, name);
  char *copy;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  copy = g_strdup (name);
  g_ptr_array_add (graph->names, copy);
  g_hash_table_insert (graph->name_index, copy, GUINT_TO_POINTER (graph->names->len));
  return graph->names->len - 1;
}

guint32
_bpw_work_graph_add_tensor (BpwGraphBuilder *b,
                            const char      *name,
                            BpwTensorKind    kind,
                            BpwSplit         split,
                            BpwDType         dtype,
                            gint             layer,
                            guint64          elements)
{
  BpwTensor t = {
    .name = _bpw_work_graph_intern (b->graph, name),
    .kind = kind,
    .split = split,
    .dtype = dtype,
    .layer = layer,
    .elements = elements,
    .bytes = _bpw_mul (b, name, elements, bpw_dtype_bytes (dtype)),
    .producer = -1,
    .last_consumer = -1,
  };

  g_array_append_val (b->graph->tensors, t);
  return b->graph->tensors->len - 1;
}

guint32
_bpw_work_graph_add_op (BpwGraphBuilder *b,
                        const char      *name,
                        BpwPrimitive     primitive,
                        BpwPhase         phase,
                        BpwLayerType     layer_type,
                        BpwSplit         split,
                        gint             layer,
                        guint64          count,
                        guint64          flops,
                        guint64          semantic_flops)
{
  BpwWorkGraph *g = b->graph;
  BpwOp op = {
    .lineage = g->ops->len,
    .primitive = primitive,
    .phase = phase,
    .layer_type = layer_type,
    .split = split,
    .addition = phase == BPW_PHASE_RECOMPUTE ? BPW_ADDITION_RECOMPUTE : BPW_ADDITION_NONE,
    .dtype = g->scenario.dtype,
    .layer = layer,
    .name = _bpw_work_graph_intern (g, name),
    .count = count,
    .flops = flops,
    .semantic_flops = semantic_flops,
    .use_first = g->uses->len,
    .dep_first = g->deps->len,
    .forward_of = -1,
  };

  g_array_append_val (g->ops, op);
  return g->ops->len - 1;
}

void
_bpw_work_graph_use (BpwGraphBuilder *b,
                     guint32          op_index,
                     guint32          tensor_index,
                     BpwAccess        access)
{
  _bpw_work_graph_use_bytes (b, op_index, tensor_index, access,
                             g_array_index (b->graph->tensors, BpwTensor, tensor_index).bytes);
}

void
_bpw_work_graph_use_bytes (BpwGraphBuilder *b,
                           guint32          op_index,
                           guint32          tensor_index,
                           BpwAccess        access,
                           guint64          bytes)
{
  BpwWorkGraph *g = b->graph;
  BpwOp *op = &g_array_index (g->ops, BpwOp, op_index);
  BpwTensor *t = &g_array_index (g->tensors, BpwTensor, tensor_index);
  BpwTensorUse use = { .tensor = tensor_index, .access = access, .bytes = bytes };

  g_assert (op->use_first + op->use_count == g->uses->len);
  g_array_append_val (g->uses, use);
  op->use_count++;

  if (access == BPW_ACCESS_READ)
    {
      op->bytes_read = _bpw_add (b, N_("bytes read"), op->bytes_read, bytes);
      t->last_consumer = op_index;
      if (t->producer >= 0 && (guint32) t->producer != op_index)
        {
          guint32 dep = t->producer;

          /* Ops read few tensors; a linear scan beats a set. */
          for (guint i = 0; i < op->dep_count; i++)
            if (g_array_index (g->deps, guint32, op->dep_first + i) == dep)
              return;
          g_assert (op->dep_first + op->dep_count == g->deps->len);
          g_array_append_val (g->deps, dep);
          op->dep_count++;
        }
    }
  else
    {
      op->bytes_written = _bpw_add (b, N_("bytes written"), op->bytes_written, bytes);
      if (t->producer < 0)
        t->producer = op_index;
    }
}

BpwWorkGraph *
_bpw_work_graph_alloc (const BpwModelSpec *spec,
                       const BpwScenario  *scenario,
                       guint               reserve_ops)
{
  BpwWorkGraph *graph = g_new0 (BpwWorkGraph, 1);

  bpw_model_spec_copy (&graph->spec, spec);
  bpw_scenario_copy (&graph->scenario, scenario);
  /* Uses and deps run about three and two per op. */
  graph->ops = g_array_sized_new (FALSE, FALSE, sizeof (BpwOp), reserve_ops);
  graph->tensors = g_array_sized_new (FALSE, FALSE, sizeof (BpwTensor), reserve_ops);
  graph->uses = g_array_sized_new (FALSE, FALSE, sizeof (BpwTensorUse), 3 * reserve_ops);
  graph->deps = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 2 * reserve_ops);
  graph->names = g_ptr_array_new_with_free_func (g_free);
  graph->name_index = g_hash_table_new (g_str_hash, g_str_equal);
  return graph;
}

void
bpw_work_graph_free (BpwWorkGraph *graph)
{
  if (graph == NULL)
    return;
  bpw_model_spec_clear (&graph->spec);
  bpw_scenario_clear (&graph->scenario);
  g_clear_pointer (&graph->ops, g_array_unref);
  g_clear_pointer (&graph->tensors, g_array_unref);
  g_clear_pointer (&graph->uses, g_array_unref);
  g_clear_pointer (&graph->deps, g_array_unref);
  g_clear_pointer (&graph->name_index, g_hash_table_unref);
  g_clear_pointer (&graph->names, g_ptr_array_unref);
  g_free (graph);
}

BpwU128
bpw_work_graph_total_flops (const BpwWorkGraph *graph,
                            BpwPhase            phase)
{
  BpwU128 total = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (graph, i);

      if (op->phase == phase)
        total += (BpwU128) op->flops * op->count;
    }
  return total;
}

static gboolean
bpw_op_is_matmul (const BpwOp *op)
{
  return op->primitive == BPW_PRIM_MATMUL || op->primitive == BPW_PRIM_BATCHED_MATMUL;
}

/* Megatron/PaLM convention: matmul FLOPs of forward and backward, the full attention
 * matrix, logits included, recompute excluded. MoE experts count routed tokens only
 * (no capacity padding), which is the MoE analogue of "6 N_active per token". */
void
bpw_work_graph_model_flops_by_layer_type (const BpwWorkGraph *graph,
                                          BpwU128             flops[])
{
  memset (flops, 0, BPW_N_LAYER_TYPES * sizeof (BpwU128));
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (graph, i);
      guint64 f;

      if (!bpw_op_is_matmul (op) || op->phase == BPW_PHASE_RECOMPUTE ||
          op->phase == BPW_PHASE_OPTIMIZER)
        continue;
      f = op->layer_type == BPW_LAYER_MOE ? op->semantic_flops : op->flops;
      flops[op->layer_type] += (BpwU128) f * op->count;
    }
}

BpwU128
bpw_work_graph_model_flops (const BpwWorkGraph *graph)
{
  BpwU128 by_type[BPW_N_LAYER_TYPES], total = 0;

  bpw_work_graph_model_flops_by_layer_type (graph, by_type);
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    total += by_type[l];
  return total;
}

BpwU128
bpw_work_graph_semantic_flops (const BpwWorkGraph *graph)
{
  BpwU128 total = 0;

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (graph, i);

      if (op->addition == BPW_ADDITION_NONE)
        total += (BpwU128) op->semantic_flops * op->count;
    }
  return total;
}

guint64
bpw_work_graph_layer_stored_bytes (const BpwWorkGraph *graph,
                                   gint                layer)
{
  guint64 total = 0;

  for (guint i = 0; i < graph->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (graph, i);

      if (t->stored == BPW_STORED_CHECKPOINT && t->layer == layer)
        total += t->bytes;
    }
  return total;
}
