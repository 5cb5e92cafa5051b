/* bpw-search-space-index.c — from a global index to its plan, and shards of the space
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-search-space-index"

#include "config.h"

#include "bpw-search-space.h"

void
bpw_search_shard_range (guint64  size,
                        guint64  i,
                        guint64  n,
                        guint64 *begin,
                        guint64 *end)
{
  /* ⌊i·S/n⌋ without overflow: S < 2^62 and n < 2^32 in practice, but stay exact. */
  unsigned __int128 s = size;

  g_return_if_fail (n > 0 && i < n);
  *begin = (guint64) (s * i / n);
  *end = (guint64) (s * (i + 1) / n);
}

BpwSchedule
bpw_search_space_schedule (const BpwSearchSpace *space,
                           guint                 node,
                           guint                 i,
                           gint64               *interleave)
{
  const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, node);
  const BpwSearchGroup *g = &g_array_index (space->groups, BpwSearchGroup, n->group);
  guint k = n->n_plain;

  *interleave = 1;
  if (i < n->n_plain)
    return n->plain[i];
  for (gint64 v = 2; v <= space->spec.layers / g->pp; v++)
    if (bpw_search_space_chunks_fit (space->spec.layers, g->pp, v) &&
        (space->limits.interleave == 0 || space->limits.interleave == v) && k++ == i)
      {
        *interleave = v;
        return BPW_SCHEDULE_INTERLEAVED;
      }
  g_return_val_if_reached (BPW_SCHEDULE_1F1B);
}

guint
bpw_search_space_node_of (const BpwSearchSpace *space,
                          guint64               index)
{
  guint lo = 0, hi = space->nodes->len;

  /* The last node whose first index is <= @index. */
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (space->nodes, BpwSearchNode, mid).first <= index)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

void
bpw_search_space_leaf (const BpwSearchSpace *space,
                       guint                 node,
                       guint64               offset,
                       BpwSearchLeaf        *leaf)
{
  const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, node);

  leaf->network = offset % n->n_networks;
  offset /= n->n_networks;
  leaf->algorithm = offset % n->n_algorithms;
  offset /= n->n_algorithms;
  leaf->dp_overlap = offset % n->n_dp_overlaps;
  offset /= n->n_dp_overlaps;
  leaf->tp_overlap = offset % n->n_tp_overlaps;
  leaf->schedule = offset / n->n_tp_overlaps;
}

guint64
bpw_search_space_leaf_offset (const BpwSearchSpace *space,
                              guint                 node,
                              const BpwSearchLeaf  *leaf)
{
  const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, node);

  return ((((guint64) leaf->schedule * n->n_tp_overlaps + leaf->tp_overlap) *
           n->n_dp_overlaps + leaf->dp_overlap) * n->n_algorithms + leaf->algorithm) *
         n->n_networks + leaf->network;
}

void
bpw_search_space_fill (const BpwSearchSpace *space,
                       guint                 node,
                       const BpwSearchLeaf  *leaf,
                       BpwMapping           *m)
{
  const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, node);
  const BpwSearchGroup *g = &g_array_index (space->groups, BpwSearchGroup, n->group);
  gboolean weights = g->offload == BPW_SEARCH_OFFLOAD_WEIGHTS ||
                     g->offload == BPW_SEARCH_OFFLOAD_BOTH;
  gboolean optimizer = g->offload == BPW_SEARCH_OFFLOAD_OPTIMIZER ||
                       g->offload == BPW_SEARCH_OFFLOAD_BOTH;
  guint a = leaf->algorithm, net = leaf->network;

  *m = space->base;
  m->parallel.tp = g->tp;
  m->parallel.pp = g->pp;
  m->parallel.dp = g->dp;
  m->parallel.ep = g->ep;
  m->parallel.cp = g->cp;
  m->parallel.cp_algorithm = g->cp_algorithm;
  m->parallel.sp = n->sp;
  m->parallel.zero = g->zero;
  m->parallel.schedule = bpw_search_space_schedule (space, node, leaf->schedule,
                                                    &m->parallel.interleave);
  m->micro_batch = n->micro_batch;
  m->recompute = n->recompute;
  m->fusion = bpw_search_fusion_set_flags (n->fusion);
  m->placement[BPW_TENSOR_WEIGHT] = weights ? BPW_PLACEMENT_HOST : -1;
  m->placement[BPW_TENSOR_OPTIMIZER_STATE] = optimizer ? BPW_PLACEMENT_HOST : -1;
  m->placement[BPW_TENSOR_MASTER_WEIGHT] = optimizer ? BPW_PLACEMENT_HOST : -1;
  m->placement[BPW_TENSOR_GRADIENT] = optimizer ? BPW_PLACEMENT_HOST : -1;
  if (space->rules->activation_offload)
    m->placement[BPW_TENSOR_ACTIVATION] = g->act_offload ? BPW_PLACEMENT_HOST : -1;
  m->tp_overlap = n->tp_overlap[leaf->tp_overlap];
  m->dp_overlap = n->dp_overlap[leaf->dp_overlap];
  for (guint i = 0; i < g->n_alg_tiers; i++)
    {
      m->algorithm[g->alg_tier[i]] = g->alg_flag[i][a % g->alg_choices[i]];
      a /= g->alg_choices[i];
    }
  /* The last enumerated group is the least significant digit (TP outermost). */
  for (guint i = g->n_net_groups; i > 0; i--)
    {
      m->tier[g->net_group[i - 1]] = (gint) (net % g->n_tiers);
      net /= g->n_tiers;
    }
  /* EP's tier is never enumerated: its groups ride on DP's. */
  if (g->n_net_groups > 0)
    m->tier[BPW_GROUP_EP] = m->tier[BPW_GROUP_DP];
}

void
bpw_search_space_mapping (const BpwSearchSpace *space,
                          guint64               index,
                          BpwMapping           *mapping)
{
  BpwMapping shallow;
  BpwSearchLeaf leaf;
  guint node;

  g_return_if_fail (index < space->size);
  node = bpw_search_space_node_of (space, index);
  bpw_search_space_leaf (space, node,
                         index - g_array_index (space->nodes, BpwSearchNode, node).first, &leaf);
  bpw_search_space_fill (space, node, &leaf, &shallow);
  shallow.name = NULL;
  bpw_mapping_clear (mapping);
  bpw_mapping_copy (mapping, &shallow);
  mapping->name = g_strdup_printf ("search-%" G_GUINT64_FORMAT, index);
}
