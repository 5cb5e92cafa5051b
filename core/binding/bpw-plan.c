/* bpw-plan.c — binding distributed work to a blueprint: resolution, legality, lifecycle
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plan"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-plan-private.h"
#include "bpw-error.h"
#include "bpw-model-spec.h"

static const char * const group_words[BPW_N_GROUPS] = {
  N_("tensor parallelism"), N_("pipeline parallelism"), N_("data parallelism"), N_("expert parallelism"),
  N_("context parallelism"),
};

/* Ranks are laid out TP innermost, then CP, then PP, then DP (with EP inside DP): a group's
 * ranks span this many consecutive devices. */
static gint64
group_span (const BpwParallel *p, BpwGroupKind group)
{
  switch (group)
    {
    case BPW_GROUP_TP:
      return p->tp;
    case BPW_GROUP_CP:
      return p->tp * p->cp;
    case BPW_GROUP_PP:
      return p->tp * p->cp * p->pp;
    case BPW_GROUP_EP:
      return p->tp * p->cp * p->pp * p->ep;
    case BPW_GROUP_DP:
    case BPW_N_GROUPS:
    default:
      return p->tp * p->cp * p->pp * p->dp;
    }
}

static gint64
group_degree (const BpwParallel *p, BpwGroupKind group)
{
  switch (group)
    {
    case BPW_GROUP_TP:
      return p->tp;
    case BPW_GROUP_PP:
      return p->pp;
    case BPW_GROUP_EP:
      return p->ep;
    case BPW_GROUP_CP:
      return p->cp;
    case BPW_GROUP_DP:
    case BPW_N_GROUPS:
    default:
      return p->dp;
    }
}

void
bpw_plan_resolve_tiers (const BpwBlueprint *bp,
                        const BpwParallel  *parallel,
                        const gint          requested[BPW_N_GROUPS],
                        gint                resolved[BPW_N_GROUPS])
{
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    {
      gint64 span = group_span (parallel, g);

      resolved[g] = requested[g];
      if (resolved[g] >= 0 || bp->n_tiers == 0)
        continue;
      resolved[g] = (gint) bp->n_tiers - 1;
      for (guint t = 0; t < bp->n_tiers; t++)
        if (bp->tiers[t].size.set && bp->tiers[t].size.value >= (double) span)
          {
            resolved[g] = (gint) t;
            break;
          }
    }
}

static const char *
group_abbreviation (BpwGroupKind group)
{
  static const char * const names[BPW_N_GROUPS] = { "TP", "PP", "DP", "EP", "CP" };

  return names[group];
}

/* EP ranks are a subset of DP's, so EP on DP's tier adds no devices to it. */
static gboolean
counts_on_tier (const BpwParallel *p, const gint tiers[BPW_N_GROUPS], guint g, guint t)
{
  return tiers[g] == (gint) t && group_degree (p, g) > 1 &&
         !(g == BPW_GROUP_EP && tiers[BPW_GROUP_DP] == (gint) t);
}

static void
tier_reason (GPtrArray *reasons, const BpwBlueprint *bp, const BpwParallel *p,
             const gint tiers[BPW_N_GROUPS], guint t, gint64 product, gboolean overfull)
{
  const BpwTier *tier = &bp->tiers[t];
  g_autoptr(GString) who = g_string_new (NULL);
  gint64 size = (gint64) tier->size.value;

  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (counts_on_tier (p, tiers, g, t))
      g_string_append_printf (who, "%s%s %" G_GINT64_FORMAT, who->len ? " × " : "",
                              group_abbreviation (g), group_degree (p, g));
  if (overfull)
    _bpw_plan_reason (reasons, _("Tier “%s” holds %" PRId64 " devices, but the "
                      "mapping puts %s = %" PRId64 " on it; move a group to an "
                      "outer tier."), tier->name, size, who->str, product);
  else
    _bpw_plan_reason (reasons, _("Tier “%s” must be filled evenly: %s = %" PRId64
                      " does not divide its %" PRId64 " devices."), tier->name,
                      who->str, product, size);
}

gboolean
bpw_plan_check_tiers (const BpwBlueprint *bp,
                      const BpwParallel  *parallel,
                      const gint          tiers[BPW_N_GROUPS],
                      GPtrArray          *reasons)
{
  gboolean ok = TRUE;

  if (bp->n_tiers == 0)
    {
      if (bpw_parallel_devices (parallel) > 1 && reasons != NULL)
        _bpw_plan_reason (reasons, _("Blueprint “%s” has no interconnect tier, but the mapping "
                          "uses %" PRId64 " devices."), bp->name,
                          bpw_parallel_devices (parallel));
      return bpw_parallel_devices (parallel) <= 1;
    }
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (group_degree (parallel, g) > 1 && (tiers[g] < 0 || (guint) tiers[g] >= bp->n_tiers))
      {
        if (reasons != NULL)
          _bpw_plan_reason (reasons, _("The mapping puts %s on tier %d, but blueprint “%s” has "
                            "tiers 0 to %u."), _(group_words[g]), tiers[g], bp->name,
                            bp->n_tiers - 1);
        ok = FALSE;
      }
  if (!ok)
    return FALSE;

  for (guint t = 0; t < bp->n_tiers; t++)
    {
      const BpwTier *tier = &bp->tiers[t];
      gint64 product = 1;
      gint64 size = tier->size.set ? (gint64) tier->size.value : G_MAXINT64;
      gboolean overfull, unfilled;

      for (guint g = 0; g < BPW_N_GROUPS; g++)
        if (counts_on_tier (parallel, tiers, g, t))
          product *= group_degree (parallel, g);
      overfull = product > size;
      unfilled = !overfull && tier->must_be_filled && product > 1 && size % product != 0;
      if ((overfull || unfilled) && reasons != NULL)
        tier_reason (reasons, bp, parallel, tiers, t, product, overfull);
      ok = ok && !overfull && !unfilled;
    }
  return ok;
}

static void
check_capabilities (BpwPlan *plan)
{
  const BpwBlueprint *bp = plan->blueprint;
  const BpwModelSpec *m = &plan->dist->graph->spec;

  if (bp->precisions != 0 && !(bp->precisions & (1u << plan->precision)))
    _bpw_plan_reason (plan->reasons, _("Blueprint “%s” does not list %s among its data types; "
                      "choose another --dtype."), bp->name,
                      bpw_precision_to_string (plan->precision));
  if (bpw_precision_policy_sparse (&plan->mapping.precision) && !bp->sparsity_2_4)
    _bpw_plan_reason (plan->reasons, _("The mapping runs weights 2:4 sparse, but blueprint "
                      "“%s” lists no 2:4 structured sparsity among its capabilities."),
                      bp->name);
  if (m->experts > 0 && plan->mapping.parallel.ep > m->experts)
    _bpw_plan_reason (plan->reasons, _("Expert parallelism %" PRId64 " exceeds the "
                      "model's %" PRId64 " experts."), plan->mapping.parallel.ep,
                      (gint64) m->experts);
  for (guint p = 0; p < BPW_N_PRIMITIVES; p++)
    if (plan->mapping.engine[p] >= (gint) bp->n_engines)
      _bpw_plan_reason (plan->reasons, _("The mapping assigns %s to engine %d, but blueprint "
                        "“%s” has %u engines."), bpw_primitive_to_string (p),
                        plan->mapping.engine[p], bp->name, bp->n_engines);
}

gboolean
bpw_plan_check_algorithms (const BpwBlueprint *bp,
                           const BpwMapping   *mapping,
                           GPtrArray          *reasons)
{
  gboolean ok = TRUE;

  for (guint t = 0; t < MIN (bp->n_tiers, BPW_MAPPING_MAX_TIERS); t++)
    {
      BpwCollectiveAlgo algo = mapping->algorithm[t];
      guint offered = bpw_cost_tier_algorithms (&bp->tiers[t]);
      g_autoptr(GString) names = NULL;

      if (algo == 0 || (offered & algo))
        continue;
      ok = FALSE;
      if (reasons == NULL)
        continue;
      names = g_string_new (NULL);
      for (guint a = 0; a < BPW_N_COLLECTIVE_ALGOS; a++)
        if (offered & (1u << a))
          g_string_append_printf (names, "%s%s", names->len ? ", " : "",
                                  bpw_collective_algo_to_string (1u << a));
      _bpw_plan_reason (reasons, _("The mapping runs collectives on tier “%s” as %s, but the "
                        "tier offers only %s."), bp->tiers[t].name,
                        bpw_collective_algo_to_string (algo), names->str);
    }
  return ok;
}

/* "0 “SRAM”, 1 “HBM”, 2 “DDR”": the levels a placement may name. */
static char *
memory_levels_list (const BpwBlueprint *bp)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < bp->n_memory; i++)
    g_string_append_printf (s, "%s%u “%s”", i ? ", " : "", i, bp->memory[i].name);
  return g_string_free (s, FALSE);
}

gboolean
bpw_plan_check_placement (const BpwBlueprint *bp,
                          const BpwMapping   *mapping,
                          GError            **error)
{
  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    {
      gint level = mapping->placement[k];
      g_autofree char *levels = NULL;

      if (level == -1 || level == BPW_PLACEMENT_HOST ||
          (level >= 0 && (guint) level < bp->n_memory))
        continue;
      levels = memory_levels_list (bp);
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("The mapping places %s at memory level %d, but blueprint “%s” has "
                   "levels %s."), bpw_tensor_kind_to_string (k), level, bp->name, levels);
      return FALSE;
    }
  return TRUE;
}

static gboolean
on_chip (BpwMemoryKind kind)
{
  return kind == BPW_MEMORY_REGISTERS || kind == BPW_MEMORY_SRAM || kind == BPW_MEMORY_CACHE;
}

gboolean
bpw_plan_check_on_chip (const BpwBlueprint *bp,
                        const BpwMapping   *mapping,
                        const double        bytes[BPW_N_TENSOR_KINDS],
                        GPtrArray          *reasons)
{
  gboolean ok = TRUE;

  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    {
      gint level = mapping->placement[k];
      const BpwMemoryLevel *mem;
      double capacity;

      if (level < 0 || (guint) level >= bp->n_memory)
        continue;
      mem = &bp->memory[level];
      if (!on_chip (mem->kind) || !mem->capacity.set)
        continue;
      capacity = mem->capacity.value * (mem->instances.set ? mem->instances.value : 1.0);
      if (bytes[k] <= capacity)
        continue;
      ok = FALSE;
      if (reasons != NULL)
        {
          g_autofree char *have = g_format_size_full ((guint64) MIN (bytes[k], 1e18),
                                                      G_FORMAT_SIZE_IEC_UNITS);
          g_autofree char *room = g_format_size_full ((guint64) capacity,
                                                      G_FORMAT_SIZE_IEC_UNITS);

          _bpw_plan_reason (reasons, _("%s: %s per device placed in %s “%s” of %s per "
                            "device; place it in device memory."),
                            bpw_tensor_kind_to_string (k), have,
                            bpw_memory_kind_to_string (mem->kind), mem->name, room);
        }
    }
  return ok;
}

/* Transfers can be costed even on an overfull tier, but not on one that does not exist.
 * Only groups of more than one rank have transfers: the tier of a group of one is unused
 * (bpw_plan_check_tiers() ignores it too), and must not keep the other groups' transfers
 * from being bound. */
gint
bpw_plan_group_off_tiers (const BpwPlan *plan)
{
  const BpwParallel *p = &plan->mapping.parallel;

  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (group_degree (p, g) > 1 &&
        (plan->mapping.tier[g] < 0 || (guint) plan->mapping.tier[g] >= plan->blueprint->n_tiers))
      return (gint) g;
  return -1;
}

BpwPlan *
bpw_plan_new (BpwDistWork        *dist,
              const BpwBlueprint *blueprint,
              const BpwMapping   *mapping,
              GError            **error)
{
  g_autoptr(BpwPlan) plan = g_new0 (BpwPlan, 1);
  const BpwWorkGraph *g = dist->graph;
  int hbm;

  plan->dist = dist;
  plan->blueprint = bpw_blueprint_copy (blueprint);
  bpw_mapping_copy (&plan->mapping, mapping);
  plan->mapping.parallel = dist->parallel;
  plan->mapping.fusion = bpw_mapping_resolve_fusion (mapping->fusion, plan->blueprint);
  plan->precision = bpw_precision_from_dtype (g->scenario.dtype);
  plan->transformations = g_array_new (FALSE, FALSE, sizeof (BpwTransformation));
  plan->reasons = g_ptr_array_new_with_free_func (g_free);
  plan->micro_batches = MAX (dist->micro_batches_per_pipeline, 1);
  plan->devices = bpw_parallel_devices (&dist->parallel);
  plan->legal = TRUE;

  if (!bpw_plan_check_placement (plan->blueprint, &plan->mapping, error) ||
      !bpw_cost_rates_init (&plan->rates, plan->blueprint, plan->precision, error))
    return NULL;
  hbm = bpw_blueprint_first_memory (plan->blueprint, BPW_MEMORY_DEVICE);
  plan->capacity = plan->blueprint->memory[hbm].capacity.value *
                   (plan->blueprint->memory[hbm].instances.set
                    ? plan->blueprint->memory[hbm].instances.value : 1.0);

  bpw_plan_resolve_tiers (plan->blueprint, &plan->mapping.parallel, mapping->tier,
                          plan->mapping.tier);
  bpw_plan_check_tiers (plan->blueprint, &plan->mapping.parallel, plan->mapping.tier,
                        plan->reasons);
  check_capabilities (plan);
  bpw_plan_check_algorithms (plan->blueprint, &plan->mapping, plan->reasons);

  plan->stages = g_new0 (BpwPlanStage, dist->n_stages);
  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      plan->stages[s].tasks = g_array_new (FALSE, FALSE, sizeof (BpwPlanTask));
      plan->stages[s].transfers = g_array_new (FALSE, FALSE, sizeof (BpwPlanTransfer));
    }
  _bpw_plan_bind_tasks (plan);
  if (bpw_plan_group_off_tiers (plan) < 0)
    _bpw_plan_bind_transfers (plan);
  _bpw_plan_bind_host_streams (plan);
  _bpw_plan_bind_stack (plan);
  _bpw_plan_place_memory (plan);
  plan->legal = plan->reasons->len == 0;
  return g_steal_pointer (&plan);
}

void
bpw_plan_free (BpwPlan *plan)
{
  if (plan == NULL)
    return;
  for (gint64 s = 0; plan->stages != NULL && s < plan->dist->n_stages; s++)
    {
      g_clear_pointer (&plan->stages[s].tasks, g_array_unref);
      g_clear_pointer (&plan->stages[s].transfers, g_array_unref);
    }
  g_free (plan->stages);
  g_clear_pointer (&plan->transformations, g_array_unref);
  g_clear_pointer (&plan->weight_only, _bpw_plan_weight_only_free);
  g_clear_pointer (&plan->reasons, g_ptr_array_unref);
  bpw_mapping_clear (&plan->mapping);
  g_clear_pointer (&plan->blueprint, bpw_blueprint_free);
  g_clear_pointer (&plan->dist, bpw_dist_work_free);
  g_free (plan);
}

char *
bpw_plan_reasons_to_string (const BpwPlan *plan)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < plan->reasons->len; i++)
    g_string_append_printf (s, "%s%s", i ? "\n" : "", (char *) plan->reasons->pdata[i]);
  return g_string_free (s, FALSE);
}
