/* bpw-cost-topology.c — collectives priced on the network a group really spans
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The formulas and their sources: bpw-cost-topology.h.
 */
#define G_LOG_DOMAIN "bpw-cost"

#include "config.h"

#include <math.h>

#include "bpw-cost-topology.h"

/* Ring, tree, in-network and direct: the first four BpwCollectiveAlgo flags, the ones that
 * run over one tier. */
#define N_FLAT_ALGOS 4
G_STATIC_ASSERT (BPW_COLLECTIVE_ALGO_DIRECT == 1u << (N_FLAT_ALGOS - 1));

gint64
bpw_cost_group_stride (const BpwParallel *p,
                       BpwGroupKind       group)
{
  switch (group)
    {
    case BPW_GROUP_TP:
      return 1;
    case BPW_GROUP_CP:
      return MAX (p->tp, 1);
    case BPW_GROUP_PP:
      return MAX (p->tp, 1) * MAX (p->cp, 1);
    case BPW_GROUP_EP:
    case BPW_GROUP_DP:
    case BPW_N_GROUPS:
    default:
      return MAX (p->tp, 1) * MAX (p->cp, 1) * MAX (p->pp, 1);
    }
}

void
bpw_cost_span_init (BpwCollectiveSpan  *span,
                    const BpwBlueprint *bp,
                    guint               tier,
                    gint64              ranks,
                    gint64              stride)
{
  gint64 inner_size;

  g_return_if_fail (tier < bp->n_tiers);
  *span = (BpwCollectiveSpan) {
    .tier = &bp->tiers[tier], .ranks = MAX (ranks, 1), .local = MAX (ranks, 1),
    .stride = MAX (stride, 1),
  };
  if (tier == 0 || !bp->tiers[tier - 1].size.set)
    return;
  span->inner = &bp->tiers[tier - 1];
  inner_size = MAX ((gint64) span->inner->size.value, 1);
  stride = span->stride;
  if (stride >= inner_size)
    {
      /* One rank per inner instance; the same local rank in each when the stride is a
       * whole number of instances. */
      span->local = 1;
      span->same_rail = stride % inner_size == 0;
    }
  else
    span->local = MIN (span->ranks, MAX (inner_size / stride, 1));
}

/* Ranks per dimension the group takes: whole dimensions in order, then at most a part of
 * the next. FALSE when @n does not fit so. */
static gboolean
torus_parts (const BpwTier *tier, gint64 n, gint64 stride,
             gint64 parts[BPW_TIER_MAX_DIMENSIONS], guint *n_parts)
{
  gint64 left = MAX (n, 1), first = 0;

  *n_parts = 0;
  if (bpw_tier_shape_devices (tier) <= 0)
    return FALSE;
  /* Consecutive ranks @stride devices apart start at the first dimension the stride does
   * not cover; a stride inside a dimension makes ranks that are not neighbours. */
  for (stride = MAX (stride, 1); first < tier->dimensions && stride > 1; first++)
    {
      if (stride % tier->shape[first] != 0)
        return FALSE;
      parts[first] = 1;
      stride /= tier->shape[first];
    }
  if (stride > 1)
    return FALSE;
  for (gint64 d = first; d < tier->dimensions && left > 1; d++)
    {
      gint64 size = tier->shape[d];

      if (left % size == 0)
        parts[d] = size;
      else if (size % left == 0)
        parts[d] = left;
      else
        return FALSE;
      left /= parts[d];
      *n_parts = (guint) d + 1;
    }
  return left == 1;
}

/* b: bandwidth of one link per direction, efficiency included. */
static double
torus_link_bandwidth (const BpwTier *tier)
{
  double links = tier->links.set && tier->links.value > 0 ? tier->links.value
                                                          : 2.0 * (double) tier->dimensions;

  return bpw_cost_tier_bandwidth (tier) / links;
}

double
bpw_cost_flat_bandwidth (const BpwTier *tier)
{
  if (tier->topology == BPW_TOPOLOGY_TORUS && bpw_tier_shape_devices (tier) > 0)
    return 2.0 * torus_link_bandwidth (tier);
  return bpw_cost_tier_bandwidth (tier);
}

double
bpw_cost_torus_time (const BpwTier    *tier,
                     BpwCollectiveKind kind,
                     double            bytes,
                     gint64            n,
                     gint64            stride)
{
  gint64 parts[BPW_TIER_MAX_DIMENSIONS];
  double alpha = tier->latency.set ? tier->latency.value : 0.0;
  double b = torus_link_bandwidth (tier), data = bytes, t = 0, diameter = 0, crossing;
  gint64 widest = 1;
  gboolean widest_wraps = TRUE;
  guint n_parts;

  if (kind == BPW_COLLECTIVE_SEND_RECV || !torus_parts (tier, n, stride, parts, &n_parts))
    return -1;
  if (bytes <= 0 || n <= 1)
    return 0;
  for (guint d = 0; d < n_parts; d++)
    {
      gint64 a = parts[d];
      gboolean wraps = a == tier->shape[d];
      double beta = wraps ? 2.0 * b : b;  /* a ring in each direction, or a line */

      if (a > widest)
        {
          widest = a;
          widest_wraps = wraps;
        }
      diameter += wraps ? (double) (a / 2) : (double) (a - 1);
      if (a <= 1)
        continue;
      t += (double) (a - 1) * alpha + (double) (a - 1) / (double) a * data / beta;
      data /= (double) a;
    }
  switch (kind)
    {
    case BPW_COLLECTIVE_ALL_REDUCE:
      return 2.0 * t;
    case BPW_COLLECTIVE_REDUCE_SCATTER:
    case BPW_COLLECTIVE_ALL_GATHER:
      return t;
    case BPW_COLLECTIVE_ALL_TO_ALL:
      /* A cut across the widest dimension crosses n/a_max rings: two links each with
       * wraparound, one for a line. */
      crossing = (double) n / (double) widest * (widest_wraps && widest > 2 ? 2.0 : 1.0);
      return alpha * diameter +
             MAX (bytes * (double) (n - 1) / (double) n / bpw_cost_tier_bandwidth (tier),
                  (double) n * bytes / 4.0 / (crossing * b));
    case BPW_COLLECTIVE_SEND_RECV:
    case BPW_N_COLLECTIVES:
    default:
      return -1;
    }
}

double
bpw_cost_torus_wire_bytes (const BpwTier    *tier,
                           BpwCollectiveKind kind,
                           double            bytes,
                           gint64            n,
                           gint64            stride)
{
  gint64 parts[BPW_TIER_MAX_DIMENSIONS];
  double data = bytes, wire = 0;
  guint n_parts;

  if (kind == BPW_COLLECTIVE_ALL_TO_ALL || !torus_parts (tier, n, stride, parts, &n_parts))
    return bpw_cost_wire_bytes (kind, BPW_COLLECTIVE_ALGO_RING, bytes, n);
  for (guint d = 0; d < n_parts; d++)
    {
      wire += (double) (parts[d] - 1) / (double) parts[d] * data;
      data /= (double) parts[d];
    }
  return kind == BPW_COLLECTIVE_ALL_REDUCE ? 2.0 * wire : wire;
}

static double
oversubscription (const BpwTier *tier)
{
  return tier->oversubscription.set ? MAX (tier->oversubscription.value, 1.0) : 1.0;
}

/* Nodes (inner instances) of @span's group that one rail leaf switch joins: all of them
 * unless the tier gives a rail size. */
static gint64
rail_group_nodes (const BpwCollectiveSpan *span)
{
  gint64 nodes = MAX (span->ranks / MAX (span->local, 1), 1);
  const BpwTier *t = span->tier;

  if (t->topology == BPW_TOPOLOGY_RAIL_OPTIMIZED && t->rail_size.set && t->rail_size.value > 0)
    return MIN (nodes, (gint64) t->rail_size.value);
  return nodes;
}

/* Bandwidth the flat algorithms get on @span's tier: a fat-tree's traffic leaves the inner
 * tier through the oversubscribed uplinks; a rail-optimised tier's rings stay on their
 * rails while the group fits one rail leaf switch, and cross the spine beyond it. */
static double
flat_bandwidth (const BpwCollectiveSpan *span)
{
  double bw = bpw_cost_flat_bandwidth (span->tier);
  gint64 nodes = MAX (span->ranks / MAX (span->local, 1), 1);

  if (span->inner != NULL && (span->tier->topology == BPW_TOPOLOGY_FAT_TREE
                              || rail_group_nodes (span) < nodes))
    return bw / oversubscription (span->tier);
  return bw;
}

static gboolean
hierarchical_fits (const BpwCollectiveSpan *span)
{
  return span->inner != NULL && span->local > 1 && span->local < span->ranks &&
         span->ranks % span->local == 0;
}

gboolean
bpw_cost_span_applies (const BpwCollectiveSpan *span,
                       BpwCollectiveAlgo        algo,
                       BpwCollectiveKind        kind)
{
  gint64 parts[BPW_TIER_MAX_DIMENSIONS];
  guint n_parts;

  if (!bpw_cost_algorithm_applies (span->tier, algo, kind))
    return FALSE;
  if (algo == BPW_COLLECTIVE_ALGO_HIERARCHICAL)
    return hierarchical_fits (span);
  if (algo == BPW_COLLECTIVE_ALGO_TORUS)
    return torus_parts (span->tier, span->ranks, span->stride, parts, &n_parts);
  return TRUE;
}

/* The cheapest flat algorithm of @tier for @kind (the parts of a hierarchical one). */
static BpwCollectiveAlgo
flat_best (const BpwTier *tier, BpwCollectiveKind kind, double bytes, gint64 n, double bw)
{
  BpwCollectiveAlgo best = BPW_COLLECTIVE_ALGO_RING;
  double best_t = G_MAXDOUBLE;

  for (guint a = 0; a < N_FLAT_ALGOS; a++)
    {
      BpwCollectiveAlgo algo = 1u << a;
      double t;

      if (!bpw_cost_algorithm_applies (tier, algo, kind))
        continue;
      t = bpw_cost_tier_time_at (tier, algo, kind, bytes, n, bw);
      if (t < best_t)
        {
          best_t = t;
          best = algo;
        }
    }
  return best;
}

/* One part of a hierarchical collective: inside the inner tier at its own rate, or across
 * the outer tier among devices of one local rank. */
static BpwCollectivePart
part_of (const BpwTier *tier, gboolean inner, double bw, BpwCollectiveKind kind,
         double bytes, gint64 n)
{
  BpwCollectiveAlgo algo = flat_best (tier, kind, bytes, n, bw);

  return (BpwCollectivePart) {
    .inner = inner, .kind = kind,
    .time_s = bpw_cost_tier_time_at (tier, algo, kind, bytes, n, bw),
    .wire_bytes = bpw_cost_wire_bytes (kind, algo, bytes, n),
  };
}

static guint
hierarchical_parts (const BpwCollectiveSpan *span, BpwCollectiveKind kind, double bytes,
                    BpwCollectivePart parts[BPW_COLLECTIVE_MAX_PARTS])
{
  const BpwTier *in = span->inner, *out = span->tier;
  double bw_in = bpw_cost_tier_bandwidth (in);
  /* The outer part joins one local rank of each instance: a rail of a rail-optimised
   * tier, the uplinks of a fat-tree. */
  double bw_out = flat_bandwidth (span);
  gint64 r = span->local, k = span->ranks / span->local;
  double shard = bytes / (double) r;
  guint n = 0;

  if (kind == BPW_COLLECTIVE_ALL_REDUCE || kind == BPW_COLLECTIVE_REDUCE_SCATTER)
    parts[n++] = part_of (in, TRUE, bw_in, BPW_COLLECTIVE_REDUCE_SCATTER, bytes, r);
  parts[n++] = part_of (out, FALSE, bw_out, kind, shard, k);
  if (kind == BPW_COLLECTIVE_ALL_REDUCE || kind == BPW_COLLECTIVE_ALL_GATHER)
    parts[n++] = part_of (in, TRUE, bw_in, BPW_COLLECTIVE_ALL_GATHER, bytes, r);
  return n;
}

static double
hierarchical_time (const BpwCollectiveSpan *span, BpwCollectiveKind kind, double bytes,
                   double *wire)
{
  BpwCollectivePart parts[BPW_COLLECTIVE_MAX_PARTS];
  guint n = hierarchical_parts (span, kind, bytes, parts);
  double t = 0;

  *wire = 0;
  for (guint i = 0; i < n; i++)
    {
      t += parts[i].time_s;
      *wire += parts[i].wire_bytes;
    }
  return t;
}

/* All-to-all over @span when it leaves the inner tier of a fat-tree with an
 * oversubscription or of a rail-optimised tier; -1 otherwise (the flat formula holds). */
static double
all_to_all_time (const BpwCollectiveSpan *span, BpwCollectiveAlgo algo, double bytes)
{
  const BpwTier *in = span->inner, *out = span->tier;
  double n = (double) span->ranks, r = (double) span->local, k = n / r;
  double alpha = (out->latency.set ? out->latency.value : 0.0) *
                 bpw_cost_latency_steps (BPW_COLLECTIVE_ALL_TO_ALL, algo, span->ranks);
  double alpha_in, bw_in, bw = bpw_cost_tier_bandwidth (out), o = oversubscription (out);
  double intra, same_rail, cross_rail, remote, spine, pxn, g;

  if (in == NULL || span->ranks <= 1 || out->ops[BPW_COLLECTIVE_ALL_TO_ALL].set
      || !(out->topology == BPW_TOPOLOGY_RAIL_OPTIMIZED
           || (out->topology == BPW_TOPOLOGY_FAT_TREE && out->oversubscription.set)))
    return -1;
  alpha_in = in->latency.set ? in->latency.value : 0.0;
  bw_in = bpw_cost_tier_bandwidth (in);
  intra = bytes * (r - 1.0) / n;
  if (out->topology == BPW_TOPOLOGY_FAT_TREE)
    return alpha + MAX (intra / bw_in, bytes * (n - r) / n / (bw / o));
  /* Nodes under this node's rail leaf switches: what goes to the others crosses the
   * spine on any path. */
  g = (double) rail_group_nodes (span);
  remote = bytes * (k - g) * r / n;
  same_rail = span->local == 1 && !span->same_rail ? 0.0 : bytes * (g - 1.0) / n;
  cross_rail = bytes * (n - r) / n - same_rail - remote;
  spine = alpha + MAX (intra / bw_in, same_rail / bw + (cross_rail + remote) / (bw / o));
  pxn = alpha + (cross_rail > 0 ? alpha_in : 0.0) +
        MAX ((intra + cross_rail) / bw_in, (same_rail + cross_rail) / bw + remote / (bw / o));
  return MIN (spine, pxn);
}

static double
span_time (const BpwCollectiveSpan *span, BpwCollectiveAlgo algo, BpwCollectiveKind kind,
           double bytes, double *wire)
{
  double t;

  if (bytes <= 0 || (span->ranks <= 1 && kind != BPW_COLLECTIVE_SEND_RECV))
    {
      *wire = 0;
      return 0;
    }
  if (algo == BPW_COLLECTIVE_ALGO_HIERARCHICAL && hierarchical_fits (span))
    return hierarchical_time (span, kind, bytes, wire);
  if (algo == BPW_COLLECTIVE_ALGO_TORUS && !span->tier->ops[kind].set
      && (t = bpw_cost_torus_time (span->tier, kind, bytes, span->ranks, span->stride)) >= 0)
    {
      *wire = bpw_cost_torus_wire_bytes (span->tier, kind, bytes, span->ranks, span->stride);
      return t;
    }
  if (algo == BPW_COLLECTIVE_ALGO_HIERARCHICAL || algo == BPW_COLLECTIVE_ALGO_TORUS)
    algo = BPW_COLLECTIVE_ALGO_RING;
  *wire = bpw_cost_wire_bytes (kind, algo, bytes, span->ranks);
  if (kind == BPW_COLLECTIVE_ALL_TO_ALL && (t = all_to_all_time (span, algo, bytes)) >= 0)
    return t;
  return bpw_cost_tier_time_at (span->tier, algo, kind, bytes, span->ranks,
                                flat_bandwidth (span));
}

BpwCollectiveAlgo
bpw_cost_span_best (const BpwCollectiveSpan *span,
                    BpwCollectiveKind        kind,
                    double                   bytes)
{
  BpwCollectiveAlgo best = BPW_COLLECTIVE_ALGO_RING;
  double best_t = G_MAXDOUBLE, wire;

  for (guint a = 0; a < BPW_N_COLLECTIVE_ALGOS; a++)
    {
      BpwCollectiveAlgo algo = 1u << a;
      double t;

      if (!bpw_cost_span_applies (span, algo, kind))
        continue;
      t = span_time (span, algo, kind, bytes, &wire);
      if (t < best_t)
        {
          best_t = t;
          best = algo;
        }
    }
  return best;
}

double
bpw_cost_span_time (const BpwCollectiveSpan *span,
                    BpwCollectiveAlgo        algo,
                    BpwCollectiveKind        kind,
                    double                   bytes)
{
  double wire;

  if (algo == 0)
    algo = bpw_cost_span_best (span, kind, bytes);
  return span_time (span, algo, kind, bytes, &wire);
}

guint
bpw_cost_span_parts (const BpwCollectiveSpan *span,
                     BpwCollectiveAlgo        algo,
                     BpwCollectiveKind        kind,
                     double                   bytes,
                     BpwCollectivePart        parts[BPW_COLLECTIVE_MAX_PARTS])
{
  /* The conditions under which span_time() prices it hierarchically. */
  if (bytes <= 0 || span->ranks <= 1 || algo != BPW_COLLECTIVE_ALGO_HIERARCHICAL
      || !hierarchical_fits (span))
    return 0;
  return hierarchical_parts (span, kind, bytes, parts);
}

double
bpw_cost_span_wire_bytes (const BpwCollectiveSpan *span,
                          BpwCollectiveAlgo        algo,
                          BpwCollectiveKind        kind,
                          double                   bytes)
{
  double wire;

  if (algo == 0)
    algo = bpw_cost_span_best (span, kind, bytes);
  span_time (span, algo, kind, bytes, &wire);
  return wire;
}
