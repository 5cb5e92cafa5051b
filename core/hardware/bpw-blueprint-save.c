/* bpw-blueprint-save.c — writing a blueprint as native JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint-save"

#include "config.h"

#include "bpw-blueprint-private.h"
#include "bpw-json-writer.h"

/* Values are written in the provenance-object form with SI base units and round-trip
 * precision, so that a saved blueprint loads back equal, sources included. */
static void
bpw_blueprint_write_value (BpwJsonWriter    *w,
                           const char       *key,
                           const BpwSourced *v)
{
  if (!v->set)
    return;
  bpw_json_writer_begin_object (w, key);
  bpw_json_writer_double (w, "value", v->value);
  bpw_json_writer_string (w, "kind", bpw_provenance_kind_to_string (v->kind));
  if (v->source != NULL)
    bpw_json_writer_string (w, "source", v->source);
  bpw_json_writer_end_object (w);
}

static void
bpw_blueprint_write_table (BpwJsonWriter            *w,
                           const char               *key,
                           const BpwEfficiencyTable *t)
{
  bpw_json_writer_begin_object (w, key);
  bpw_json_writer_string (w, "interpolation", bpw_interpolation_to_string (t->interpolation));
  bpw_json_writer_begin_array (w, "points");
  for (guint i = 0; i < t->n_points; i++)
    {
      bpw_json_writer_begin_array (w, NULL);
      bpw_json_writer_double (w, NULL, t->points[i].size);
      bpw_json_writer_double (w, NULL, t->points[i].efficiency);
      bpw_json_writer_end_array (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_string (w, "kind", bpw_provenance_kind_to_string (t->kind));
  if (t->source != NULL)
    bpw_json_writer_string (w, "source", t->source);
  bpw_json_writer_end_object (w);
}

static void
bpw_blueprint_write_engine (BpwJsonWriter   *w,
                            const BpwEngine *e)
{
  gboolean any;

  bpw_json_writer_begin_object (w, NULL);
  bpw_json_writer_string (w, "name", e->name);
  bpw_json_writer_string (w, "kind", bpw_engine_kind_to_string (e->kind));
  bpw_blueprint_write_value (w, "count", &e->count);
  bpw_blueprint_write_value (w, "clock", &e->clock);
  any = FALSE;
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    any |= e->peak[p].set;
  if (any)
    {
      bpw_json_writer_begin_object (w, "peak");
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        bpw_blueprint_write_value (w, bpw_precision_to_string (p), &e->peak[p]);
      bpw_json_writer_end_object (w);
    }
  bpw_blueprint_write_value (w, "bandwidth", &e->bandwidth);
  bpw_blueprint_write_value (w, "overhead", &e->overhead);
  if (e->tile.m > 0)
    {
      bpw_json_writer_begin_object (w, "tile");
      bpw_json_writer_int (w, "m", e->tile.m);
      bpw_json_writer_int (w, "n", e->tile.n);
      bpw_json_writer_int (w, "k", e->tile.k);
      bpw_json_writer_string (w, "kind", bpw_provenance_kind_to_string (e->tile.kind));
      if (e->tile.source != NULL)
        bpw_json_writer_string (w, "source", e->tile.source);
      bpw_json_writer_end_object (w);
    }
  any = FALSE;
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    any |= e->efficiency[p].n_points > 0;
  if (any)
    {
      bpw_json_writer_begin_object (w, "efficiency");
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        if (e->efficiency[p].n_points > 0)
          bpw_blueprint_write_table (w, bpw_precision_to_string (p), &e->efficiency[p]);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_object (w);
}

static void
bpw_blueprint_write_memory (BpwJsonWriter        *w,
                            const BpwBlueprint   *bp,
                            const BpwMemoryLevel *m)
{
  bpw_json_writer_begin_object (w, NULL);
  bpw_json_writer_string (w, "name", m->name);
  bpw_json_writer_string (w, "kind", bpw_memory_kind_to_string (m->kind));
  bpw_blueprint_write_value (w, "instances", &m->instances);
  bpw_blueprint_write_value (w, "capacity", &m->capacity);
  bpw_blueprint_write_value (w, "bandwidth", &m->bandwidth);
  bpw_blueprint_write_value (w, "latency", &m->latency);
  bpw_blueprint_write_value (w, "energy_per_byte", &m->energy_per_byte);
  bpw_json_writer_begin_array (w, "engines");
  for (guint i = 0; i < bp->n_engines && i < 64; i++)
    if (m->engine_mask & (G_GUINT64_CONSTANT (1) << i))
      bpw_json_writer_string (w, NULL, bp->engines[i].name);
  bpw_json_writer_end_array (w);
  if (m->efficiency.n_points > 0)
    bpw_blueprint_write_table (w, "efficiency", &m->efficiency);
  bpw_json_writer_end_object (w);
}

static void
bpw_blueprint_write_tier (BpwJsonWriter *w,
                          const BpwTier *t)
{
  gboolean any = FALSE;

  bpw_json_writer_begin_object (w, NULL);
  bpw_json_writer_string (w, "name", t->name);
  bpw_json_writer_string (w, "topology", bpw_topology_to_string (t->topology));
  if (t->dimensions > 0 && t->shape[0] > 0)
    {
      bpw_json_writer_begin_array (w, "dimensions");
      for (gint64 d = 0; d < t->dimensions; d++)
        bpw_json_writer_int (w, NULL, t->shape[d]);
      bpw_json_writer_end_array (w);
    }
  else if (t->dimensions > 0)
    bpw_json_writer_int (w, "dimensions", t->dimensions);
  bpw_blueprint_write_value (w, "size", &t->size);
  bpw_blueprint_write_value (w, "bandwidth", &t->bandwidth);
  bpw_blueprint_write_value (w, "links", &t->links);
  bpw_blueprint_write_value (w, "latency", &t->latency);
  bpw_blueprint_write_value (w, "efficiency", &t->efficiency);
  bpw_blueprint_write_value (w, "energy_per_byte", &t->energy_per_byte);
  bpw_blueprint_write_value (w, "processor_usage", &t->processor_usage);
  bpw_blueprint_write_value (w, "oversubscription", &t->oversubscription);
  bpw_blueprint_write_value (w, "rail_size", &t->rail_size);
  bpw_json_writer_begin_array (w, "collectives");
  for (guint i = 0; i < BPW_N_COLLECTIVE_ALGOS; i++)
    if (t->collectives & (1u << i))
      bpw_json_writer_string (w, NULL, bpw_collective_algo_to_string (1u << i));
  bpw_json_writer_end_array (w);
  for (guint k = 0; k < BPW_N_COLLECTIVES; k++)
    any |= t->ops[k].set;
  if (any)
    {
      bpw_json_writer_begin_object (w, "op_factors");
      for (guint k = 0; k < BPW_N_COLLECTIVES; k++)
        {
          if (!t->ops[k].set)
            continue;
          bpw_json_writer_begin_array (w, bpw_op_factor_key (k));
          bpw_json_writer_double (w, NULL, t->ops[k].scalar);
          if (t->ops[k].has_offset)
            bpw_json_writer_double (w, NULL, t->ops[k].offset);
          else
            bpw_json_writer_null (w, NULL);
          bpw_json_writer_end_array (w);
        }
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_bool (w, "must_be_filled", t->must_be_filled);
  bpw_json_writer_end_object (w);
}

/* The "stack" member as bpw-blueprint-read-stack.c reads it: every stated member written. */
static void
bpw_blueprint_write_stack (BpwJsonWriter  *w,
                           const BpwStack *st)
{
  bpw_json_writer_begin_object (w, "stack");
  if (st->name != NULL)
    bpw_json_writer_string (w, "name", st->name);
  if (st->source != NULL)
    bpw_json_writer_string (w, "source", st->source);
  if (st->attention != BPW_STACK_ATTENTION_DEFAULT)
    bpw_json_writer_string (w, "attention", bpw_stack_attention_to_string (st->attention));
  if (st->has_fusion)
    {
      bpw_json_writer_begin_array (w, "fusion");
      for (guint i = 0; i < BPW_STACK_N_FUSIONS; i++)
        if (st->fusion & (1u << i))
          bpw_json_writer_string (w, NULL, bpw_stack_fusion_name (i));
      bpw_json_writer_end_array (w);
    }
  bpw_json_writer_begin_object (w, "precision");
  bpw_json_writer_string (w, "master_weights", st->fp32_master ? "fp32" : "none");
  bpw_json_writer_string (w, "logits", st->fp32_logits ? "fp32" : "compute");
  bpw_json_writer_end_object (w);
  if (st->has_optimizer)
    {
      bpw_json_writer_begin_object (w, "optimizer");
      bpw_json_writer_string (w, "implementation", bpw_stack_optimizer_to_string (st->optimizer));
      bpw_blueprint_write_value (w, "bytes_per_parameter", &st->optimizer_bytes_per_parameter);
      bpw_blueprint_write_value (w, "kernels_per_tensor", &st->optimizer_kernels_per_tensor);
      bpw_blueprint_write_value (w, "kernels_per_parameter",
                                 &st->optimizer_kernels_per_parameter);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_string (w, "elementwise", st->unfused_elementwise ? "unfused" : "fused");
  bpw_blueprint_write_value (w, "elementwise_rate", &st->elementwise_rate);
  if (st->attention_efficiency.n_points > 0)
    bpw_blueprint_write_table (w, "attention_efficiency", &st->attention_efficiency);
  if (st->has_launch)
    {
      bpw_json_writer_begin_object (w, "launch");
      for (guint p = 0; p < BPW_STACK_N_PHASES; p++)
        bpw_json_writer_string (w, bpw_stack_phase_to_string (p),
                                bpw_stack_launch_to_string (st->launch[p]));
      bpw_blueprint_write_value (w, "eager_gap", &st->eager_gap);
      bpw_blueprint_write_value (w, "train_eager_gap", &st->train_eager_gap);
      bpw_blueprint_write_value (w, "graph_gap", &st->graph_gap);
      bpw_blueprint_write_value (w, "eager_device_gap", &st->eager_device_gap);
      bpw_json_writer_end_object (w);
    }
  if (st->has_moe_dispatch)
    {
      bpw_json_writer_begin_object (w, "moe_dispatch");
      bpw_json_writer_string (w, "implementation", st->moe_loop ? "loop" : "grouped");
      bpw_blueprint_write_value (w, "per_expert", &st->moe_per_expert);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_object (w);
}

char *
bpw_blueprint_to_json (const BpwBlueprint *bp)
{
  BpwJsonWriter w;
  gboolean any = FALSE;
  char *json;

  g_return_val_if_fail (bp != NULL, NULL);

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_string (&w, "format", "bpw-blueprint");
  bpw_json_writer_int (&w, "version", BPW_BLUEPRINT_FORMAT_VERSION);
  bpw_json_writer_string (&w, "name", bp->name);
  if (bp->device != NULL)
    bpw_json_writer_string (&w, "device", bp->device);
  if (bp->description != NULL)
    bpw_json_writer_string (&w, "description", bp->description);
  bpw_json_writer_string (&w, "processing",
                          bp->processing == BPW_PROCESSING_OVERLAP ? "overlap" : "no_overlap");

  bpw_json_writer_begin_object (&w, "capabilities");
  bpw_json_writer_begin_array (&w, "dtypes");
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    if (bp->precisions & (1u << p))
      bpw_json_writer_string (&w, NULL, bpw_precision_to_string (p));
  bpw_json_writer_end_array (&w);
  bpw_json_writer_begin_array (&w, "sparsity");
  if (bp->sparsity_2_4)
    bpw_json_writer_string (&w, NULL, "2:4");
  bpw_json_writer_end_array (&w);
  bpw_json_writer_end_object (&w);

  bpw_json_writer_begin_array (&w, "engines");
  for (guint i = 0; i < bp->n_engines; i++)
    bpw_blueprint_write_engine (&w, &bp->engines[i]);
  bpw_json_writer_end_array (&w);
  bpw_json_writer_begin_array (&w, "memory");
  for (guint i = 0; i < bp->n_memory; i++)
    bpw_blueprint_write_memory (&w, bp, &bp->memory[i]);
  bpw_json_writer_end_array (&w);
  bpw_json_writer_begin_array (&w, "tiers");
  for (guint i = 0; i < bp->n_tiers; i++)
    bpw_blueprint_write_tier (&w, &bp->tiers[i]);
  bpw_json_writer_end_array (&w);

  bpw_json_writer_begin_object (&w, "power");
  bpw_blueprint_write_value (&w, "tdp", &bp->tdp);
  bpw_blueprint_write_value (&w, "idle", &bp->idle_power);
  bpw_blueprint_write_value (&w, "cap", &bp->power_cap);
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    any |= bp->energy_per_flop[p].set;
  if (any)
    {
      bpw_json_writer_begin_object (&w, "energy_per_flop");
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        bpw_blueprint_write_value (&w, bpw_precision_to_string (p), &bp->energy_per_flop[p]);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_object (&w);
  if (bp->cost.set)
    {
      bpw_json_writer_begin_object (&w, "cost");
      bpw_blueprint_write_value (&w, "device", &bp->cost);
      bpw_json_writer_end_object (&w);
    }
  if (bp->stack.set)
    bpw_blueprint_write_stack (&w, &bp->stack);
  bpw_json_writer_end_object (&w);

  json = bpw_json_writer_finish (&w);
  return json;
}
