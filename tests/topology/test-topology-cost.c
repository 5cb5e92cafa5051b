/* test-topology-cost.c — collectives on multi-level networks against their closed forms
 * (bpw-cost-topology.h): torus dimension-ordered, hierarchical, oversubscription and
 * rail-optimised all-to-all
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "bpw-core.h"
#include "bpw-cost-topology.h"

#define M      (256.0 * 1024 * 1024)  /* a 256 MiB buffer */
#define ALPHA  2e-6
#define B_TOR  540e9                  /* torus bandwidth per device per direction */
#define B_NODE 450e9                  /* NVLink-like inner tier */
#define A_NODE 3e-6
#define B_NET  50e9                   /* one 400 Gb/s NIC per device */
#define A_NET  5e-6

static void
check_close (const char *where, double got, double want)
{
  if (fabs (got - want) > 1e-12 * fabs (want) + 1e-18)
    g_error ("%s: got %.17g, want %.17g", where, got, want);
}
#define assert_close(got, want) check_close (G_STRLOC, (got), (want))

static BpwBlueprint *
torus_blueprint (const gint64 *shape, guint dims, double links)
{
  BpwBlueprint *bp = bpw_blueprint_new ("torus");
  guint t = bpw_blueprint_add_tier (bp, "ici", BPW_TOPOLOGY_TORUS);
  gint64 size = 1;

  for (guint d = 0; d < dims; d++)
    {
      bp->tiers[t].shape[d] = shape[d];
      size *= shape[d];
    }
  bp->tiers[t].dimensions = dims;
  bpw_blueprint_set_value (bp, &bp->tiers[t].size, (double) size, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].bandwidth, B_TOR, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].latency, ALPHA, BPW_PROVENANCE_ESTIMATE, NULL);
  if (links > 0)
    bpw_blueprint_set_value (bp, &bp->tiers[t].links, links, BPW_PROVENANCE_ESTIMATE, NULL);
  g_assert_true (bpw_tier_shape_valid (&bp->tiers[t]));
  return bp;
}

/* Eight devices per node on a switch, nodes on @topology with @oversubscription (0: none). */
static BpwBlueprint *
cluster_blueprint (BpwTopology topology, double oversubscription, guint algorithms)
{
  BpwBlueprint *bp = bpw_blueprint_new ("cluster");
  guint t = bpw_blueprint_add_tier (bp, "nvlink", BPW_TOPOLOGY_SWITCH);

  bpw_blueprint_set_value (bp, &bp->tiers[t].size, 8, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].bandwidth, B_NODE, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].latency, A_NODE, BPW_PROVENANCE_ESTIMATE, NULL);
  t = bpw_blueprint_add_tier (bp, "net", topology);
  bpw_blueprint_set_value (bp, &bp->tiers[t].size, 4096, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].bandwidth, B_NET, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].latency, A_NET, BPW_PROVENANCE_ESTIMATE, NULL);
  if (oversubscription > 0)
    bpw_blueprint_set_value (bp, &bp->tiers[t].oversubscription, oversubscription,
                             BPW_PROVENANCE_ESTIMATE, NULL);
  bp->tiers[t].collectives = algorithms;
  return bp;
}

/* The ring formula of bpw-cost.h on one tier. */
static double
ring (BpwCollectiveKind kind, double bytes, double n, double alpha, double beta)
{
  double steps = kind == BPW_COLLECTIVE_ALL_REDUCE ? 2.0 : 1.0;

  return steps * ((n - 1) * alpha + (n - 1) / n * bytes / beta);
}

static void
test_torus_1d_is_ring (void)
{
  static const gint64 shape[] = { 8 };
  g_autoptr(BpwBlueprint) bp = torus_blueprint (shape, 1, 0);
  const BpwTier *t = &bp->tiers[0];

  g_assert_true (bpw_cost_tier_algorithms (t) & BPW_COLLECTIVE_ALGO_TORUS);
  for (guint k = 0; k <= BPW_COLLECTIVE_ALL_GATHER; k++)
    {
      double want = ring (k, M, 8, ALPHA, B_TOR);

      assert_close (bpw_cost_collective (t, BPW_COLLECTIVE_ALGO_TORUS, k, M, 8), want);
      assert_close (bpw_cost_collective (t, BPW_COLLECTIVE_ALGO_RING, k, M, 8), want);
    }
  assert_close (bpw_cost_torus_wire_bytes (t, BPW_COLLECTIVE_ALL_REDUCE, M, 8, 1),
                bpw_cost_wire_bytes (BPW_COLLECTIVE_ALL_REDUCE, BPW_COLLECTIVE_ALGO_RING, M, 8));
}

static void
test_torus_dimension_ordered (void)
{
  static const gint64 square[] = { 4, 4 }, cube[] = { 4, 4, 4 };
  g_autoptr(BpwBlueprint) bp2 = torus_blueprint (square, 2, 0);
  g_autoptr(BpwBlueprint) bp3 = torus_blueprint (cube, 3, 6);
  const BpwTier *t2 = &bp2->tiers[0], *t3 = &bp3->tiers[0];
  /* Four links per device in 2D, six in 3D; a ring each way along a whole dimension. */
  double beta2 = 2.0 * B_TOR / 4.0, beta3 = 2.0 * B_TOR / 6.0, line3 = B_TOR / 6.0;
  double rs2 = 3 * ALPHA + 0.75 * M / beta2 + 3 * ALPHA + 0.75 * (M / 4) / beta2;
  double rs3 = 3 * (3 * ALPHA) + 0.75 * (M + M / 4 + M / 16) / beta3;
  BpwCollectiveSpan span;

  assert_close (bpw_cost_collective (t2, BPW_COLLECTIVE_ALGO_TORUS, BPW_COLLECTIVE_ALL_REDUCE,
                                     M, 16), 2 * rs2);
  assert_close (bpw_cost_collective (t2, BPW_COLLECTIVE_ALGO_TORUS,
                                     BPW_COLLECTIVE_REDUCE_SCATTER, M, 16), rs2);
  assert_close (bpw_cost_collective (t3, BPW_COLLECTIVE_ALGO_TORUS, BPW_COLLECTIVE_ALL_REDUCE,
                                     M, 64), 2 * rs3);
  assert_close (bpw_cost_collective (t3, BPW_COLLECTIVE_ALGO_TORUS, BPW_COLLECTIVE_ALL_GATHER,
                                     M, 64), rs3);
  /* 32 ranks: two whole dimensions and half of the third, a line without wraparound. */
  assert_close (bpw_cost_collective (t3, BPW_COLLECTIVE_ALGO_TORUS,
                                     BPW_COLLECTIVE_REDUCE_SCATTER, M, 32),
                2 * 3 * ALPHA + 0.75 * (M + M / 4) / beta3 + ALPHA + 0.5 * (M / 16) / line3);
  /* 64 ranks all-to-all: the bisection bound, n·M/4 over 2·64/4 links of B/6, beats the
   * injection bound M·63/64 / B; latency over the diameter 2 + 2 + 2. */
  assert_close (bpw_cost_collective (t3, BPW_COLLECTIVE_ALGO_TORUS, BPW_COLLECTIVE_ALL_TO_ALL,
                                     M, 64), 6 * ALPHA + 64 * M / 4 / (32 * B_TOR / 6));
  /* 24 ranks do not fill whole dimensions: no torus algorithm, the ring instead, laid along
   * a Hamiltonian cycle over two links of each device. */
  bpw_cost_span_init (&span, bp3, 0, 24, 1);
  g_assert_false (bpw_cost_span_applies (&span, BPW_COLLECTIVE_ALGO_TORUS,
                                         BPW_COLLECTIVE_ALL_REDUCE));
  assert_close (bpw_cost_collective (t3, BPW_COLLECTIVE_ALGO_TORUS, BPW_COLLECTIVE_ALL_REDUCE,
                                     M, 24),
                ring (BPW_COLLECTIVE_ALL_REDUCE, M, 24, ALPHA, beta3));
  /* 16 ranks 4 apart run along the second and third dimensions: the time of 16
   * neighbours on a 4×4 torus of the same links. */
  bpw_cost_span_init (&span, bp3, 0, 16, 4);
  assert_close (bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_TORUS,
                                    BPW_COLLECTIVE_REDUCE_SCATTER, M),
                2 * 3 * ALPHA + 0.75 * (M + M / 4) / beta3);
  /* Ranks 2 apart are not neighbours: no dimension-ordered schedule. */
  bpw_cost_span_init (&span, bp3, 0, 16, 2);
  g_assert_false (bpw_cost_span_applies (&span, BPW_COLLECTIVE_ALGO_TORUS,
                                         BPW_COLLECTIVE_ALL_REDUCE));
  /* The automatic choice on a 3-D torus at this size: dimension-ordered. */
  bpw_cost_span_init (&span, bp3, 0, 64, 1);
  g_assert_cmpint (bpw_cost_span_best (&span, BPW_COLLECTIVE_ALL_REDUCE, M), ==,
                   BPW_COLLECTIVE_ALGO_TORUS);
  assert_close (bpw_cost_span_time (&span, 0, BPW_COLLECTIVE_ALL_REDUCE, M), 2 * rs3);
}

/* RS inside the node + AR across nodes on M/8 + AG inside, each part its closed form. */
static void
test_hierarchical_sum_of_parts (void)
{
  g_autoptr(BpwBlueprint) bp = cluster_blueprint (BPW_TOPOLOGY_FAT_TREE, 0,
                                                  BPW_COLLECTIVE_ALGO_RING |
                                                  BPW_COLLECTIVE_ALGO_HIERARCHICAL);
  double rs_in = ring (BPW_COLLECTIVE_REDUCE_SCATTER, M, 8, A_NODE, B_NODE);
  double ag_in = ring (BPW_COLLECTIVE_ALL_GATHER, M, 8, A_NODE, B_NODE);
  double ar_out = ring (BPW_COLLECTIVE_ALL_REDUCE, M / 8, 16, A_NET, B_NET);
  double rs_out = ring (BPW_COLLECTIVE_REDUCE_SCATTER, M / 8, 16, A_NET, B_NET);
  double ag_out = ring (BPW_COLLECTIVE_ALL_GATHER, M / 8, 16, A_NET, B_NET);
  BpwCollectiveSpan span;

  /* 128 ranks, consecutive devices: 8 per node, 16 nodes. */
  bpw_cost_span_init (&span, bp, 1, 128, 1);
  g_assert_cmpint (span.local, ==, 8);
  g_assert_true (bpw_cost_span_applies (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                        BPW_COLLECTIVE_ALL_REDUCE));
  g_assert_false (bpw_cost_span_applies (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                         BPW_COLLECTIVE_ALL_TO_ALL));
  assert_close (bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                    BPW_COLLECTIVE_ALL_REDUCE, M), rs_in + ar_out + ag_in);
  assert_close (bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                    BPW_COLLECTIVE_REDUCE_SCATTER, M), rs_in + rs_out);
  assert_close (bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                    BPW_COLLECTIVE_ALL_GATHER, M), ag_out + ag_in);
  /* The parts in the order they run, each on its own tier; added in that order they are
   * the whole, to the bit. */
  {
    BpwCollectivePart parts[BPW_COLLECTIVE_MAX_PARTS];
    guint n = bpw_cost_span_parts (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                   BPW_COLLECTIVE_ALL_REDUCE, M, parts);
    double sum = 0, wire = 0;

    g_assert_cmpuint (n, ==, 3);
    g_assert_true (parts[0].inner && !parts[1].inner && parts[2].inner);
    g_assert_cmpint (parts[0].kind, ==, BPW_COLLECTIVE_REDUCE_SCATTER);
    g_assert_cmpint (parts[1].kind, ==, BPW_COLLECTIVE_ALL_REDUCE);
    g_assert_cmpint (parts[2].kind, ==, BPW_COLLECTIVE_ALL_GATHER);
    assert_close (parts[0].time_s, rs_in);
    assert_close (parts[1].time_s, ar_out);
    assert_close (parts[2].time_s, ag_in);
    for (guint i = 0; i < n; i++)
      {
        sum += parts[i].time_s;
        wire += parts[i].wire_bytes;
      }
    g_assert_cmpfloat (sum, ==, bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                                    BPW_COLLECTIVE_ALL_REDUCE, M));
    g_assert_cmpfloat (wire, ==, bpw_cost_span_wire_bytes (&span,
                                                           BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                                           BPW_COLLECTIVE_ALL_REDUCE, M));
    n = bpw_cost_span_parts (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                             BPW_COLLECTIVE_ALL_GATHER, M, parts);
    g_assert_cmpuint (n, ==, 2);
    g_assert_true (!parts[0].inner && parts[1].inner);
    assert_close (parts[0].time_s, ag_out);
    /* Not hierarchical: one whole transfer. */
    g_assert_cmpuint (bpw_cost_span_parts (&span, BPW_COLLECTIVE_ALGO_RING,
                                           BPW_COLLECTIVE_ALL_REDUCE, M, parts), ==, 0);
  }
  /* The flat ring over the network tier, as before. */
  assert_close (bpw_cost_span_time (&span, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE,
                                    M), ring (BPW_COLLECTIVE_ALL_REDUCE, M, 128, A_NET, B_NET));
  /* Automatic: hierarchical is the cheaper here, and what a mapping left to it gets. */
  g_assert_cmpint (bpw_cost_span_best (&span, BPW_COLLECTIVE_ALL_REDUCE, M), ==,
                   BPW_COLLECTIVE_ALGO_HIERARCHICAL);
  /* One rank per node: nothing to split, hierarchical does not apply. */
  bpw_cost_span_init (&span, bp, 1, 16, 8);
  g_assert_cmpint (span.local, ==, 1);
  g_assert_true (span.same_rail);
  g_assert_false (bpw_cost_span_applies (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                         BPW_COLLECTIVE_ALL_REDUCE));
}

static void
test_oversubscription (void)
{
  guint algos = BPW_COLLECTIVE_ALGO_RING | BPW_COLLECTIVE_ALGO_HIERARCHICAL;
  g_autoptr(BpwBlueprint) full = cluster_blueprint (BPW_TOPOLOGY_FAT_TREE, 1, algos);
  g_autoptr(BpwBlueprint) half = cluster_blueprint (BPW_TOPOLOGY_FAT_TREE, 2, algos);
  double cross = 2.0 * 15.0 / 16.0 * (M / 8) / B_NET;  /* bandwidth term across nodes */
  BpwCollectiveSpan a, b;

  bpw_cost_span_init (&a, full, 1, 128, 1);
  bpw_cost_span_init (&b, half, 1, 128, 1);
  /* 2:1 doubles the cross-level term: the difference is that term once more. */
  assert_close (bpw_cost_span_time (&b, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                    BPW_COLLECTIVE_ALL_REDUCE, M)
                - bpw_cost_span_time (&a, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                      BPW_COLLECTIVE_ALL_REDUCE, M), cross);
  /* A flat ring across the network: its whole bandwidth term doubles. */
  assert_close (bpw_cost_span_time (&b, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE, M),
                ring (BPW_COLLECTIVE_ALL_REDUCE, M, 128, A_NET, B_NET / 2));
  /* Inside the node nothing changes. */
  bpw_cost_span_init (&a, full, 0, 8, 1);
  bpw_cost_span_init (&b, half, 0, 8, 1);
  assert_close (bpw_cost_span_time (&b, 0, BPW_COLLECTIVE_ALL_REDUCE, M),
                bpw_cost_span_time (&a, 0, BPW_COLLECTIVE_ALL_REDUCE, M));
  assert_close (bpw_cost_span_time (&b, 0, BPW_COLLECTIVE_ALL_REDUCE, M),
                ring (BPW_COLLECTIVE_ALL_REDUCE, M, 8, A_NODE, B_NODE));
}

/* 16 ranks on two nodes: of the M/16 per peer, 7 peers are in the node, 1 on the same rail
 * in the other node and 7 on other rails there. */
static void
test_rail_optimized_all_to_all (void)
{
  g_autoptr(BpwBlueprint) tree = cluster_blueprint (BPW_TOPOLOGY_FAT_TREE, 2, 0);
  g_autoptr(BpwBlueprint) rail = cluster_blueprint (BPW_TOPOLOGY_RAIL_OPTIMIZED, 2, 0);
  g_autoptr(BpwBlueprint) plain = cluster_blueprint (BPW_TOPOLOGY_FAT_TREE, 0, 0);
  double intra = 7 * M / 16, same = M / 16, other = 7 * M / 16;
  double t_tree = 15 * A_NET + MAX (intra / B_NODE, (same + other) / (B_NET / 2));
  double t_pxn = 15 * A_NET + A_NODE + MAX ((intra + other) / B_NODE, (same + other) / B_NET);
  double t_spine = 15 * A_NET + MAX (intra / B_NODE, same / B_NET + other / (B_NET / 2));
  BpwCollectiveSpan span;
  double t_rail;

  bpw_cost_span_init (&span, tree, 1, 16, 1);
  assert_close (bpw_cost_span_time (&span, 0, BPW_COLLECTIVE_ALL_TO_ALL, M), t_tree);
  bpw_cost_span_init (&span, rail, 1, 16, 1);
  t_rail = bpw_cost_span_time (&span, 0, BPW_COLLECTIVE_ALL_TO_ALL, M);
  assert_close (t_rail, MIN (t_pxn, t_spine));
  g_assert_cmpfloat (t_rail, <, 0.6 * t_tree);
  /* A fat-tree without an oversubscription: the flat formula of a full-bisection switch. */
  bpw_cost_span_init (&span, plain, 1, 16, 1);
  assert_close (bpw_cost_span_time (&span, 0, BPW_COLLECTIVE_ALL_TO_ALL, M),
                15 * A_NET + 15.0 / 16 * M / B_NET);
  /* One rank per node, the same local rank everywhere: the whole exchange on one rail. */
  bpw_cost_span_init (&span, rail, 1, 8, 8);
  assert_close (bpw_cost_span_time (&span, 0, BPW_COLLECTIVE_ALL_TO_ALL, M),
                7 * A_NET + 7.0 / 8 * M / B_NET);
  bpw_cost_span_init (&span, tree, 1, 8, 8);
  assert_close (bpw_cost_span_time (&span, 0, BPW_COLLECTIVE_ALL_TO_ALL, M),
                7 * A_NET + 7.0 / 8 * M / (B_NET / 2));
}

/* A rail leaf switch that joins G nodes: rings and the all-to-all's bytes for nodes under
 * other leaf switches cross the oversubscribed spine; within G nodes nothing changes. */
static void
test_rail_size (void)
{
  guint algos = BPW_COLLECTIVE_ALGO_RING | BPW_COLLECTIVE_ALGO_HIERARCHICAL;
  g_autoptr(BpwBlueprint) rail = cluster_blueprint (BPW_TOPOLOGY_RAIL_OPTIMIZED, 2, algos);
  g_autoptr(BpwBlueprint) leaf = cluster_blueprint (BPW_TOPOLOGY_RAIL_OPTIMIZED, 2, algos);
  g_autoptr(BpwBlueprint) tree = cluster_blueprint (BPW_TOPOLOGY_FAT_TREE, 2, algos);
  g_autoptr(BpwBlueprint) flat = cluster_blueprint (BPW_TOPOLOGY_RAIL_OPTIMIZED, 2, 0);
  double intra = 7 * M / 16;
  BpwCollectiveSpan a, b;

  bpw_blueprint_set_value (leaf, &leaf->tiers[1].rail_size, 4, BPW_PROVENANCE_ESTIMATE, NULL);
  /* A ring over 4 nodes on one rail stays under its leaf switch: B either way. */
  bpw_cost_span_init (&a, rail, 1, 4, 8);
  bpw_cost_span_init (&b, leaf, 1, 4, 8);
  assert_close (bpw_cost_span_time (&b, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE, M),
                ring (BPW_COLLECTIVE_ALL_REDUCE, M, 4, A_NET, B_NET));
  assert_close (bpw_cost_span_time (&b, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE, M),
                bpw_cost_span_time (&a, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE, M));
  /* Over 16 nodes it crosses the 2:1 spine: B/2, where one rail switch for all gives B. */
  bpw_cost_span_init (&a, rail, 1, 16, 8);
  bpw_cost_span_init (&b, leaf, 1, 16, 8);
  assert_close (bpw_cost_span_time (&a, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE, M),
                ring (BPW_COLLECTIVE_ALL_REDUCE, M, 16, A_NET, B_NET));
  assert_close (bpw_cost_span_time (&b, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE, M),
                ring (BPW_COLLECTIVE_ALL_REDUCE, M, 16, A_NET, B_NET / 2));
  /* Hierarchical over 16 nodes: the outer part at B/2 too, so the fat-tree's time. */
  bpw_cost_span_init (&a, tree, 1, 128, 1);
  bpw_cost_span_init (&b, leaf, 1, 128, 1);
  assert_close (bpw_cost_span_time (&b, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                    BPW_COLLECTIVE_ALL_REDUCE, M),
                bpw_cost_span_time (&a, BPW_COLLECTIVE_ALGO_HIERARCHICAL,
                                    BPW_COLLECTIVE_ALL_REDUCE, M));
  /* All-to-all, one rank per node on 4 nodes, 2 under each leaf: M/4 to the same leaf at B,
   * M/2 over the spine at B/2. */
  bpw_blueprint_set_value (flat, &flat->tiers[1].rail_size, 2, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_cost_span_init (&b, flat, 1, 4, 8);
  assert_close (bpw_cost_span_time (&b, 0, BPW_COLLECTIVE_ALL_TO_ALL, M),
                3 * A_NET + M / 4 / B_NET + M / 2 / (B_NET / 2));
  /* A leaf switch per node is the fat-tree of test_rail_optimized_all_to_all. */
  bpw_blueprint_set_value (flat, &flat->tiers[1].rail_size, 1, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_cost_span_init (&b, flat, 1, 16, 1);
  assert_close (bpw_cost_span_time (&b, 0, BPW_COLLECTIVE_ALL_TO_ALL, M),
                15 * A_NET + MAX (intra / B_NODE, (M / 2) / (B_NET / 2)));
}

/* The span follows the rank layout: TP innermost, then CP, PP, DP. */
static void
test_group_stride (void)
{
  BpwParallel p = { .tp = 4, .pp = 2, .dp = 8, .ep = 2, .cp = 2 };

  g_assert_cmpint (bpw_cost_group_stride (&p, BPW_GROUP_TP), ==, 1);
  g_assert_cmpint (bpw_cost_group_stride (&p, BPW_GROUP_CP), ==, 4);
  g_assert_cmpint (bpw_cost_group_stride (&p, BPW_GROUP_PP), ==, 8);
  g_assert_cmpint (bpw_cost_group_stride (&p, BPW_GROUP_DP), ==, 16);
  g_assert_cmpint (bpw_cost_group_stride (&p, BPW_GROUP_EP), ==, 16);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/topology/torus-1d-is-ring", test_torus_1d_is_ring);
  g_test_add_func ("/topology/torus-dimension-ordered", test_torus_dimension_ordered);
  g_test_add_func ("/topology/hierarchical-sum-of-parts", test_hierarchical_sum_of_parts);
  g_test_add_func ("/topology/oversubscription", test_oversubscription);
  g_test_add_func ("/topology/rail-optimized-all-to-all", test_rail_optimized_all_to_all);
  g_test_add_func ("/topology/rail-size", test_rail_size);
  g_test_add_func ("/topology/group-stride", test_group_stride);
  return g_test_run ();
}
