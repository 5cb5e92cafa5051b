/* bpw-blueprint-copy.c — copying and comparing blueprints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint-copy"

#include "config.h"

#include <string.h>

#include "bpw-blueprint.h"

/* Sources and names live in the blueprint's string pool, so a copy re-pools every one. */
static void
bpw_blueprint_copy_sourced (BpwBlueprint     *dest,
                            BpwSourced       *v)
{
  v->source = bpw_blueprint_intern (dest, v->source);
}

static void
bpw_blueprint_copy_table (BpwBlueprint       *dest,
                          BpwEfficiencyTable *t)
{
  t->points = t->n_points > 0 ? g_memdup2 (t->points, t->n_points * sizeof *t->points) : NULL;
  t->source = bpw_blueprint_intern (dest, t->source);
}

BpwBlueprint *
bpw_blueprint_copy (const BpwBlueprint *bp)
{
  BpwBlueprint *c;

  g_return_val_if_fail (bp != NULL, NULL);

  c = g_new (BpwBlueprint, 1);
  *c = *bp;
  c->name = g_strdup (bp->name);
  c->device = g_strdup (bp->device);
  c->description = g_strdup (bp->description);
  c->origin = g_strdup (bp->origin);
  c->strings = g_string_chunk_new (1024);
  c->engines = g_memdup2 (bp->engines, bp->n_engines * sizeof *bp->engines);
  c->memory = g_memdup2 (bp->memory, bp->n_memory * sizeof *bp->memory);
  c->tiers = g_memdup2 (bp->tiers, bp->n_tiers * sizeof *bp->tiers);

  for (guint i = 0; i < c->n_engines; i++)
    {
      BpwEngine *e = &c->engines[i];

      e->name = bpw_blueprint_intern (c, e->name);
      bpw_blueprint_copy_sourced (c, &e->count);
      bpw_blueprint_copy_sourced (c, &e->clock);
      bpw_blueprint_copy_sourced (c, &e->bandwidth);
      bpw_blueprint_copy_sourced (c, &e->overhead);
      e->tile.source = bpw_blueprint_intern (c, e->tile.source);
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        {
          bpw_blueprint_copy_sourced (c, &e->peak[p]);
          bpw_blueprint_copy_table (c, &e->efficiency[p]);
        }
    }
  for (guint i = 0; i < c->n_memory; i++)
    {
      BpwMemoryLevel *m = &c->memory[i];

      m->name = bpw_blueprint_intern (c, m->name);
      bpw_blueprint_copy_sourced (c, &m->instances);
      bpw_blueprint_copy_sourced (c, &m->capacity);
      bpw_blueprint_copy_sourced (c, &m->bandwidth);
      bpw_blueprint_copy_sourced (c, &m->latency);
      bpw_blueprint_copy_sourced (c, &m->energy_per_byte);
      bpw_blueprint_copy_table (c, &m->efficiency);
    }
  for (guint i = 0; i < c->n_tiers; i++)
    {
      BpwTier *t = &c->tiers[i];

      t->name = bpw_blueprint_intern (c, t->name);
      bpw_blueprint_copy_sourced (c, &t->size);
      bpw_blueprint_copy_sourced (c, &t->bandwidth);
      bpw_blueprint_copy_sourced (c, &t->links);
      bpw_blueprint_copy_sourced (c, &t->latency);
      bpw_blueprint_copy_sourced (c, &t->efficiency);
      bpw_blueprint_copy_sourced (c, &t->energy_per_byte);
      bpw_blueprint_copy_sourced (c, &t->processor_usage);
      bpw_blueprint_copy_sourced (c, &t->oversubscription);
      bpw_blueprint_copy_sourced (c, &t->rail_size);
    }
  bpw_blueprint_copy_sourced (c, &c->tdp);
  bpw_blueprint_copy_sourced (c, &c->power_cap);
  bpw_blueprint_copy_sourced (c, &c->idle_power);
  bpw_blueprint_copy_sourced (c, &c->cost);
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    bpw_blueprint_copy_sourced (c, &c->energy_per_flop[p]);
  c->stack.name = bpw_blueprint_intern (c, c->stack.name);
  c->stack.source = bpw_blueprint_intern (c, c->stack.source);
  bpw_blueprint_copy_sourced (c, &c->stack.optimizer_bytes_per_parameter);
  bpw_blueprint_copy_sourced (c, &c->stack.optimizer_kernels_per_tensor);
  bpw_blueprint_copy_sourced (c, &c->stack.optimizer_kernels_per_parameter);
  bpw_blueprint_copy_sourced (c, &c->stack.eager_gap);
  bpw_blueprint_copy_sourced (c, &c->stack.train_eager_gap);
  bpw_blueprint_copy_sourced (c, &c->stack.graph_gap);
  bpw_blueprint_copy_sourced (c, &c->stack.eager_device_gap);
  bpw_blueprint_copy_sourced (c, &c->stack.elementwise_rate);
  bpw_blueprint_copy_table (c, &c->stack.attention_efficiency);
  bpw_blueprint_copy_sourced (c, &c->stack.moe_per_expert);
  return c;
}

static gboolean
bpw_sourced_equal (const BpwSourced *a,
                   const BpwSourced *b)
{
  if (a->set != b->set)
    return FALSE;
  if (!a->set)
    return TRUE;
  return a->value == b->value && a->kind == b->kind && g_strcmp0 (a->source, b->source) == 0;
}

static gboolean
bpw_table_equal (const BpwEfficiencyTable *a,
                 const BpwEfficiencyTable *b)
{
  if (a->n_points != b->n_points)
    return FALSE;
  if (a->n_points == 0)
    return TRUE;
  if (a->interpolation != b->interpolation || a->kind != b->kind
      || g_strcmp0 (a->source, b->source) != 0)
    return FALSE;
  for (guint i = 0; i < a->n_points; i++)
    if (a->points[i].size != b->points[i].size
        || a->points[i].efficiency != b->points[i].efficiency)
      return FALSE;
  return TRUE;
}

static gboolean
bpw_engine_equal (const BpwEngine *a,
                  const BpwEngine *b)
{
  if (g_strcmp0 (a->name, b->name) != 0 || a->kind != b->kind
      || !bpw_sourced_equal (&a->count, &b->count) || !bpw_sourced_equal (&a->clock, &b->clock)
      || !bpw_sourced_equal (&a->bandwidth, &b->bandwidth)
      || !bpw_sourced_equal (&a->overhead, &b->overhead))
    return FALSE;
  if (a->tile.m != b->tile.m || a->tile.n != b->tile.n || a->tile.k != b->tile.k)
    return FALSE;
  if (a->tile.m > 0
      && (a->tile.kind != b->tile.kind || g_strcmp0 (a->tile.source, b->tile.source) != 0))
    return FALSE;
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    if (!bpw_sourced_equal (&a->peak[p], &b->peak[p])
        || !bpw_table_equal (&a->efficiency[p], &b->efficiency[p]))
      return FALSE;
  return TRUE;
}

static gboolean
bpw_memory_equal (const BpwMemoryLevel *a,
                  const BpwMemoryLevel *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && a->kind == b->kind
         && a->engine_mask == b->engine_mask
         && bpw_sourced_equal (&a->instances, &b->instances)
         && bpw_sourced_equal (&a->capacity, &b->capacity)
         && bpw_sourced_equal (&a->bandwidth, &b->bandwidth)
         && bpw_sourced_equal (&a->latency, &b->latency)
         && bpw_sourced_equal (&a->energy_per_byte, &b->energy_per_byte)
         && bpw_table_equal (&a->efficiency, &b->efficiency);
}

static gboolean
bpw_tier_equal (const BpwTier *a,
                const BpwTier *b)
{
  if (g_strcmp0 (a->name, b->name) != 0 || a->topology != b->topology
      || a->dimensions != b->dimensions || a->collectives != b->collectives
      || a->must_be_filled != b->must_be_filled
      || !bpw_sourced_equal (&a->size, &b->size)
      || !bpw_sourced_equal (&a->bandwidth, &b->bandwidth)
      || !bpw_sourced_equal (&a->links, &b->links)
      || !bpw_sourced_equal (&a->latency, &b->latency)
      || !bpw_sourced_equal (&a->efficiency, &b->efficiency)
      || !bpw_sourced_equal (&a->energy_per_byte, &b->energy_per_byte)
      || !bpw_sourced_equal (&a->processor_usage, &b->processor_usage)
      || !bpw_sourced_equal (&a->oversubscription, &b->oversubscription)
      || !bpw_sourced_equal (&a->rail_size, &b->rail_size)
      || memcmp (a->shape, b->shape, sizeof a->shape) != 0)
    return FALSE;
  for (guint i = 0; i < BPW_N_COLLECTIVES; i++)
    {
      const BpwOpFactor *x = &a->ops[i], *y = &b->ops[i];

      if (x->set != y->set)
        return FALSE;
      if (x->set && (x->scalar != y->scalar || x->has_offset != y->has_offset
                     || (x->has_offset && x->offset != y->offset)))
        return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_stack_equal (const BpwStack *a,
                 const BpwStack *b)
{
  if (a->set != b->set)
    return FALSE;
  if (!a->set)
    return TRUE;
  if (g_strcmp0 (a->name, b->name) != 0 || g_strcmp0 (a->source, b->source) != 0
      || a->attention != b->attention || a->has_fusion != b->has_fusion
      || (a->has_fusion && a->fusion != b->fusion)
      || a->fp32_master != b->fp32_master || a->fp32_logits != b->fp32_logits
      || a->has_optimizer != b->has_optimizer
      || (a->has_optimizer && a->optimizer != b->optimizer)
      || !bpw_sourced_equal (&a->optimizer_bytes_per_parameter, &b->optimizer_bytes_per_parameter)
      || !bpw_sourced_equal (&a->optimizer_kernels_per_tensor, &b->optimizer_kernels_per_tensor)
      || !bpw_sourced_equal (&a->optimizer_kernels_per_parameter,
                             &b->optimizer_kernels_per_parameter)
      || a->unfused_elementwise != b->unfused_elementwise
      || a->has_launch != b->has_launch
      || !bpw_sourced_equal (&a->eager_gap, &b->eager_gap)
      || !bpw_sourced_equal (&a->train_eager_gap, &b->train_eager_gap)
      || !bpw_sourced_equal (&a->graph_gap, &b->graph_gap)
      || !bpw_sourced_equal (&a->eager_device_gap, &b->eager_device_gap)
      || !bpw_sourced_equal (&a->elementwise_rate, &b->elementwise_rate)
      || !bpw_table_equal (&a->attention_efficiency, &b->attention_efficiency)
      || a->has_moe_dispatch != b->has_moe_dispatch || a->moe_loop != b->moe_loop
      || !bpw_sourced_equal (&a->moe_per_expert, &b->moe_per_expert))
    return FALSE;
  for (guint p = 0; a->has_launch && p < BPW_STACK_N_PHASES; p++)
    if (a->launch[p] != b->launch[p])
      return FALSE;
  return TRUE;
}

gboolean
bpw_blueprint_equal (const BpwBlueprint *a,
                     const BpwBlueprint *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (g_strcmp0 (a->name, b->name) != 0 || g_strcmp0 (a->device, b->device) != 0
      || g_strcmp0 (a->description, b->description) != 0
      || a->n_engines != b->n_engines || a->n_memory != b->n_memory
      || a->n_tiers != b->n_tiers || a->precisions != b->precisions
      || a->sparsity_2_4 != b->sparsity_2_4 || a->processing != b->processing
      || !bpw_sourced_equal (&a->tdp, &b->tdp)
      || !bpw_sourced_equal (&a->idle_power, &b->idle_power)
      || !bpw_sourced_equal (&a->power_cap, &b->power_cap)
      || !bpw_sourced_equal (&a->cost, &b->cost)
      || !bpw_stack_equal (&a->stack, &b->stack))
    return FALSE;
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    if (!bpw_sourced_equal (&a->energy_per_flop[p], &b->energy_per_flop[p]))
      return FALSE;
  for (guint i = 0; i < a->n_engines; i++)
    if (!bpw_engine_equal (&a->engines[i], &b->engines[i]))
      return FALSE;
  for (guint i = 0; i < a->n_memory; i++)
    if (!bpw_memory_equal (&a->memory[i], &b->memory[i]))
      return FALSE;
  for (guint i = 0; i < a->n_tiers; i++)
    if (!bpw_tier_equal (&a->tiers[i], &b->tiers[i]))
      return FALSE;
  return TRUE;
}
