/* bpw-mapping.c — the mapping value: defaults, copy, equality, enum names, Calculon import
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-mapping"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-mapping.h"
#include "bpw-error.h"

/* Index i names flag 1 << i. */
static const char * const fusion_names[] = {
  "attention", "bias_activation", "norm_residual", "optimizer", NULL
};
static const char * const tp_overlap_names[] = { "none", "ring", "pipe", NULL };

G_STATIC_ASSERT (G_N_ELEMENTS (fusion_names) == BPW_N_FUSIONS + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (tp_overlap_names) == BPW_TP_OVERLAP_PIPE + 2);
/* A blueprint's stack names its fusions by the same bits (bpw_stack_fusion_name()). */
G_STATIC_ASSERT (BPW_STACK_N_FUSIONS == BPW_N_FUSIONS);

void
bpw_mapping_init_defaults (BpwMapping *mapping)
{
  g_return_if_fail (mapping != NULL);

  memset (mapping, 0, sizeof *mapping);
  bpw_parallel_init_defaults (&mapping->parallel);
  mapping->micro_batch = 0;
  mapping->recompute = -1;
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    mapping->tier[g] = -1;
  for (guint t = 0; t < BPW_MAPPING_MAX_TIERS; t++)
    mapping->algorithm[t] = 0;
  /* Left to the blueprint: what its stack performs, or the current practice its engines
   * can run (bpw_mapping_resolve_fusion()). */
  mapping->fusion = BPW_FUSION_AUTOMATIC;
  mapping->tiling.automatic = TRUE;
  for (guint p = 0; p < BPW_N_PRIMITIVES; p++)
    mapping->engine[p] = -1;
  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    mapping->placement[k] = -1;
  mapping->dp_overlap = TRUE;
  mapping->tp_overlap = BPW_TP_OVERLAP_NONE;
  mapping->sp_gather_again = FALSE;
}

void
bpw_mapping_copy (BpwMapping       *dest,
                  const BpwMapping *src)
{
  g_return_if_fail (dest != NULL && src != NULL);

  if (dest == src)
    return;
  *dest = *src;
  dest->name = g_strdup (src->name);
}

void
bpw_mapping_clear (BpwMapping *mapping)
{
  g_return_if_fail (mapping != NULL);

  g_clear_pointer (&mapping->name, g_free);
}

gboolean
bpw_mapping_equal (const BpwMapping *a,
                   const BpwMapping *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (g_strcmp0 (a->name, b->name) != 0
      || !bpw_parallel_equal (&a->parallel, &b->parallel)
      || a->micro_batch != b->micro_batch || a->recompute != b->recompute
      || a->fusion != b->fusion
      || !a->dp_overlap != !b->dp_overlap || a->tp_overlap != b->tp_overlap
      || !a->sp_gather_again != !b->sp_gather_again
      || !bpw_precision_policy_equal (&a->precision, &b->precision))
    return FALSE;
  /* An automatic tiling has no tile: whatever m, n, k hold then is not part of the value. */
  if (!a->tiling.automatic != !b->tiling.automatic
      || (!a->tiling.automatic
          && (a->tiling.m != b->tiling.m || a->tiling.n != b->tiling.n
              || a->tiling.k != b->tiling.k)))
    return FALSE;
  return memcmp (a->tier, b->tier, sizeof a->tier) == 0
         && memcmp (a->algorithm, b->algorithm, sizeof a->algorithm) == 0
         && memcmp (a->engine, b->engine, sizeof a->engine) == 0
         && memcmp (a->placement, b->placement, sizeof a->placement) == 0;
}

void
bpw_mapping_apply_to_scenario (const BpwMapping *mapping,
                               BpwScenario      *scenario)
{
  g_return_if_fail (mapping != NULL && scenario != NULL);

  if (mapping->micro_batch > 0)
    scenario->micro_batch = mapping->micro_batch;
  if (mapping->recompute >= 0)
    scenario->recompute = (BpwRecompute) mapping->recompute;
}

guint
bpw_mapping_resolve_fusion (guint               fusion,
                            const BpwBlueprint *blueprint)
{
  const BpwStack *st = &blueprint->stack;
  gboolean flash;

  if (fusion != BPW_FUSION_AUTOMATIC)
    return fusion;
  if (st->set && st->has_fusion)
    return st->fusion;
  /* Every production stack fuses bias + activation and the optimizer, and runs attention
   * as one FlashAttention-style kernel wherever the matrix engine has on-chip SRAM to keep
   * the score tiles in. */
  flash = st->set && st->attention != BPW_STACK_ATTENTION_DEFAULT
          ? st->attention == BPW_STACK_ATTENTION_FLASH
          : bpw_blueprint_runs_flash_attention (blueprint);
  return BPW_FUSION_BASE | (flash ? BPW_FUSION_ATTENTION : 0u);
}

const char *
bpw_fusion_to_string (BpwFusion fusion)
{
  for (guint i = 0; i < BPW_N_FUSIONS; i++)
    if ((guint) fusion == (1u << i))
      return fusion_names[i];
  g_return_val_if_reached (NULL);
}

gboolean
bpw_fusion_from_string (const char *str,
                        BpwFusion  *out)
{
  g_return_val_if_fail (out != NULL, FALSE);

  for (guint i = 0; str != NULL && i < BPW_N_FUSIONS; i++)
    if (strcmp (fusion_names[i], str) == 0)
      {
        *out = (BpwFusion) (1u << i);
        return TRUE;
      }
  return FALSE;
}

const char *
bpw_tp_overlap_to_string (BpwTpOverlap overlap)
{
  g_return_val_if_fail ((int) overlap >= 0 && overlap <= BPW_TP_OVERLAP_PIPE, NULL);
  return tp_overlap_names[overlap];
}

gboolean
bpw_tp_overlap_from_string (const char   *str,
                            BpwTpOverlap *out)
{
  g_return_val_if_fail (out != NULL, FALSE);

  for (guint i = 0; str != NULL && tp_overlap_names[i] != NULL; i++)
    if (strcmp (tp_overlap_names[i], str) == 0)
      {
        *out = (BpwTpOverlap) i;
        return TRUE;
      }
  return FALSE;
}

static gboolean
bpw_mapping_net_to_tier (gint64       net,
                         const char  *key,
                         gint        *out,
                         GError     **error)
{
  if (net < 0 || net >= BPW_MAPPING_MAX_TIERS)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s %" PRId64 " is beyond the %d interconnect tiers a mapping "
                   "holds; use a network index below %d"), key, net, BPW_MAPPING_MAX_TIERS,
                   BPW_MAPPING_MAX_TIERS);
      return FALSE;
    }
  *out = (gint) net;
  return TRUE;
}

gboolean
bpw_mapping_from_calculon_execution (const BpwCalculonExecution *exec,
                                     const BpwScenario          *scenario,
                                     const BpwParallel          *parallel,
                                     BpwMapping                 *mapping,
                                     GError                    **error)
{
  BpwMapping m;

  g_return_val_if_fail (exec != NULL && scenario != NULL, FALSE);
  g_return_val_if_fail (parallel != NULL && mapping != NULL, FALSE);

  bpw_mapping_init_defaults (&m);
  if (!bpw_mapping_net_to_tier (exec->tensor_par_net, "tensor_par_net", &m.tier[BPW_GROUP_TP],
                                error)
      || !bpw_mapping_net_to_tier (exec->pipeline_par_net, "pipeline_par_net",
                                   &m.tier[BPW_GROUP_PP], error)
      || !bpw_mapping_net_to_tier (exec->data_par_net, "data_par_net", &m.tier[BPW_GROUP_DP],
                                   error))
    return FALSE;
  /* Calculon has no expert parallelism; EP groups are carved out of DP, so they ride on
   * the DP network. */
  m.tier[BPW_GROUP_EP] = m.tier[BPW_GROUP_DP];

  m.parallel = *parallel;
  m.micro_batch = scenario->micro_batch;
  m.recompute = (gint) scenario->recompute;

  /* Calculon's fused_activation is a fused GeLU (no GeLU input stored); its Adam step is
   * one vector operation over all of a block's weights, which is what a fused optimizer
   * models; its attention always materialises the score matrix, so it is never fused
   * (shared/docs/CALCULON.md, execution keys and operator table). */
  m.fusion = BPW_FUSION_OPTIMIZER;
  if (exec->fused_activation)
    m.fusion |= BPW_FUSION_BIAS_ACTIVATION;

  m.dp_overlap = exec->data_par_overlap;
  switch (exec->tensor_par_overlap)
    {
    case BPW_CALCULON_TP_OVERLAP_RING:
      m.tp_overlap = BPW_TP_OVERLAP_RING;
      break;
    case BPW_CALCULON_TP_OVERLAP_PIPE:
      m.tp_overlap = BPW_TP_OVERLAP_PIPE;
      break;
    case BPW_CALCULON_TP_OVERLAP_NONE:
    default:
      m.tp_overlap = BPW_TP_OVERLAP_NONE;
      break;
    }
  m.sp_gather_again = exec->seq_par_ag_redo;

  if (exec->weight_offload)
    m.placement[BPW_TENSOR_WEIGHT] = BPW_PLACEMENT_HOST;
  if (exec->activations_offload)
    m.placement[BPW_TENSOR_ACTIVATION] = BPW_PLACEMENT_HOST;
  if (exec->optimizer_offload)
    {
      m.placement[BPW_TENSOR_OPTIMIZER_STATE] = BPW_PLACEMENT_HOST;
      m.placement[BPW_TENSOR_MASTER_WEIGHT] = BPW_PLACEMENT_HOST;
      m.placement[BPW_TENSOR_GRADIENT] = BPW_PLACEMENT_HOST;
    }

  bpw_mapping_clear (mapping);
  *mapping = m;
  return TRUE;
}
