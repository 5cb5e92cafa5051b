/* bpw-cost-topology.h — collectives priced on the network a group really spans
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bpw_cost_collective() prices a collective on one tier as if every rank had the tier to
 * itself. A group mapped to an outer tier has several ranks inside each instance of the
 * tier below it (a node), and the network's layout decides what crosses which link. Here a
 * collective is priced on its span: the tier, the tier inside it, and how many of the
 * group's ranks share one inner instance. Every formula is per rank, α–β (Hockney), with
 * B the tier's bandwidth per direction per device times its efficiency:
 *
 * Hierarchical (two levels; NCCL's CollNet/NVLS-tree and Thakur, Rabenseifner & Gropp,
 * "Optimization of collective communication operations in MPICH", IJHPCA 2005, §4, the
 * reduce-scatter + all-gather decomposition), r ranks per inner instance, k = n/r instances:
 *   all-reduce     = RS_inner(M, r) + AR_outer(M/r, k) + AG_inner(M, r)
 *   reduce-scatter = RS_inner(M, r) + RS_outer(M/r, k)
 *   all-gather     = AG_outer(M/r, k) + AG_inner(M, r)
 * each part at its own tier's cheapest flat algorithm; the outer part joins devices of the
 * same local rank, so on a rail-optimised tier it stays on one rail.
 *
 * Torus, dimension-ordered (Ying et al., "Image classification at supercomputer scale",
 * 2018, §3 2-D all-reduce; Kumar et al., "Exploring the limits of concurrency in ML training
 * on Google TPUs", MLSys 2021): the group takes whole dimensions in order (a_i = d_i, a
 * wraparound ring with both directions, 2b) and at most one part of the next (a line,
 * b), b = B / links per link (2 per dimension when links is not given). With
 * M_i = M / Π_{j<i} a_i:
 *   reduce-scatter = all-gather = Σ_i (a_i − 1)·α + (a_i − 1)/a_i · M_i / β_i
 *   all-reduce     = 2 · Σ_i (…)        (a 1-D torus is exactly the ring formula)
 *   all-to-all     = α·diameter + max (M(n−1)/n / B, (n·M/4) / (c·b)),
 * the second term the bisection bound: n·M/4 bytes cross a cut perpendicular to the
 * largest dimension a_max, over c = 2·n/a_max links (n/a_max for a line). A flat ring on
 * a torus follows a Hamiltonian cycle and so uses two links of each device (2b): its
 * bandwidth term equals the dimension-ordered one (Σ (a_i−1)/a_i·M_i = (n−1)/n·M), its
 * latency term is (n−1)·α against Σ (a_i−1)·α.
 *
 * Oversubscription o of a fat-tree (Leiserson 1985; the "2:1 tapered" trees of NVIDIA's
 * DGX SuperPOD reference architecture): traffic that leaves the inner tier gets B/o; traffic
 * inside it is untouched. All-to-all over r ranks per node and k nodes sends
 * M(r−1)/n inside the node (inner tier) while M(n−r)/n leaves it:
 *   fat-tree       = s·α + max (M(r−1)/n / B_inner, M(n−r)/n / (B/o)),
 * s the algorithm's latency steps (n−1 pairwise rounds for ring, 1 for direct).
 * Rail-optimised (NVIDIA DGX SuperPOD; NCCL's PXN, "Doubling all2all performance with
 * NVIDIA Collective Communication Library 2.12"): of the remote bytes, M(k−1)/n go to the
 * same rail at B; the M(n−r−k+1)/n that cross rails take either the spine (B/o) or one
 * extra hop over the inner tier first (α_inner + bytes / B_inner), whichever is cheaper.
 * Rings and hierarchical outer parts are rail-aligned (every cross-node hop joins the same
 * local rank), so they run at B.
 * A rail leaf switch joins the same local rank of G nodes (the tier's "rail_size"; the
 * DGX H100 SuperPOD's scalable unit has G = 32): beyond G nodes, rings and the outer parts
 * cross the spine at B/o, and of the all-to-all's bytes the M(k−G)·r/n bound for nodes under
 * other leaf switches take the spine on either path; "same rail" is then M(G−1)/n. Unset,
 * G is every node of the group (one rail switch).
 *
 * A fat-tree without an oversubscription is a full-bisection switch: priced as before.
 */
#pragma once

#include "bpw-cost.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

typedef struct
{
  const BpwTier *tier;       /* carries the group */
  const BpwTier *inner;      /* the tier inside it; NULL for the innermost */
  gint64         ranks;      /* n */
  gint64         local;      /* the group's ranks in one instance of @inner, 1 ≤ local ≤ n */
  gboolean       same_rail;  /* every rank has the same local rank in @inner */
  gint64         stride;     /* devices between consecutive ranks (1: neighbours) */
} BpwCollectiveSpan;

/* One part of a hierarchical collective (the formulas above): inside one instance of the
 * inner tier (the node) or across the span's tier among devices of one local rank. */
typedef struct
{
  gboolean           inner;       /* on @span->inner, else on @span->tier */
  BpwCollectiveKind  kind;        /* the part's own collective */
  double             time_s;
  double             wire_bytes;  /* per rank per direction */
} BpwCollectivePart;

#define BPW_COLLECTIVE_MAX_PARTS 3

/* Device stride between consecutive ranks of @group: ranks are laid out TP innermost,
 * then CP, PP and DP (EP inside DP), as bpw_plan_resolve_tiers() places them. */
gint64            bpw_cost_group_stride   (const BpwParallel  *parallel,
                                           BpwGroupKind        group);
/* The span of @ranks ranks @stride devices apart on tier @tier of @bp. */
void              bpw_cost_span_init      (BpwCollectiveSpan  *span,
                                           const BpwBlueprint *bp,
                                           guint               tier,
                                           gint64              ranks,
                                           gint64              stride);
/* Whether @algo can carry @kind on @span: the tier offers it, hierarchical needs ranks in
 * more than one inner instance and more than one in each, the torus a group that fills
 * whole dimensions in order. */
gboolean          bpw_cost_span_applies   (const BpwCollectiveSpan *span,
                                           BpwCollectiveAlgo  algo,
                                           BpwCollectiveKind  kind);
/* The cheapest algorithm that applies; ring when none does. */
BpwCollectiveAlgo bpw_cost_span_best      (const BpwCollectiveSpan *span,
                                           BpwCollectiveKind  kind,
                                           double             bytes);
/* Time of one collective of logical size @bytes; @algo 0 picks the cheapest. */
double            bpw_cost_span_time      (const BpwCollectiveSpan *span,
                                           BpwCollectiveAlgo  algo,
                                           BpwCollectiveKind  kind,
                                           double             bytes);
/* Bytes one rank puts on the wire per direction, all tiers the algorithm uses together. */
double            bpw_cost_span_wire_bytes (const BpwCollectiveSpan *span,
                                            BpwCollectiveAlgo  algo,
                                            BpwCollectiveKind  kind,
                                            double             bytes);

/* The parts of @algo carrying @kind on @span, in the order they run (reduce-scatter inside,
 * the outer part, all-gather inside): their times added in that order from 0 are
 * bpw_cost_span_time()'s, bit for bit, and their wire bytes bpw_cost_span_wire_bytes()'s.
 * Returns how many; 0 when @algo does not run hierarchically on @span (one whole
 * transfer), 1 when only the outer part moves data (an all-to-all). */
guint             bpw_cost_span_parts     (const BpwCollectiveSpan *span,
                                           BpwCollectiveAlgo  algo,
                                           BpwCollectiveKind  kind,
                                           double             bytes,
                                           BpwCollectivePart  parts[BPW_COLLECTIVE_MAX_PARTS]);

/* Bandwidth a flat algorithm (ring, tree, direct, in-network) gets on @tier alone: on a
 * torus with a shape, a ring laid along a Hamiltonian cycle uses two of each device's links,
 * one each way (2·b); on every other tier, the tier's bandwidth times its efficiency. */
double            bpw_cost_flat_bandwidth (const BpwTier     *tier);

/* The torus parts alone (a torus tier's shape is all they need), for @n ranks @stride
 * devices apart: the stride skips the leading dimensions it covers (ranks 4 apart on a
 * 4×4×4 torus run along the second and third). A negative time when the ranks do not fill
 * whole dimensions of @tier's shape in order after those. */
double            bpw_cost_torus_time     (const BpwTier     *tier,
                                           BpwCollectiveKind  kind,
                                           double             bytes,
                                           gint64             n,
                                           gint64             stride);
double            bpw_cost_torus_wire_bytes (const BpwTier   *tier,
                                             BpwCollectiveKind kind,
                                             double           bytes,
                                             gint64           n,
                                             gint64           stride);

G_END_DECLS
