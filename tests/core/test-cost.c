/* test-cost.c — physics is never beaten: property tests of the cost model, and the
 * collective formulas against their closed forms (REFERENCES.md §5)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "bpw-core.h"

/* A random but valid blueprint: one matrix and one vector engine with random peaks and
 * efficiency tables, device memory with a random bandwidth and table, and one tier. */
static BpwBlueprint *
random_blueprint (GRand *rand)
{
  BpwBlueprint *bp = bpw_blueprint_new ("random");
  BpwEfficiencyPoint points[4];
  guint e, m, t;
  BpwInterpolation interp = g_rand_boolean (rand) ? BPW_INTERPOLATION_STEP
                                                  : BPW_INTERPOLATION_LOG_LINEAR;

  e = bpw_blueprint_add_engine (bp, "matrix", BPW_ENGINE_MATRIX);
  bpw_blueprint_set_value (bp, &bp->engines[e].peak[BPW_PRECISION_BF16],
                           g_rand_double_range (rand, 1e12, 5e15), BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->engines[e].overhead, g_rand_double_range (rand, 0, 1e-5),
                           BPW_PROVENANCE_ESTIMATE, NULL);
  for (guint i = 0; i < 4; i++)
    points[i] = (BpwEfficiencyPoint) { pow (10.0, 6 + 3 * i),
                                       g_rand_double_range (rand, 0.05, 1.0) };
  bpw_efficiency_table_set (bp, &bp->engines[e].efficiency[BPW_PRECISION_BF16], points, 4, interp,
                            BPW_PROVENANCE_ESTIMATE, NULL);
  e = bpw_blueprint_add_engine (bp, "vector", BPW_ENGINE_VECTOR);
  bpw_blueprint_set_value (bp, &bp->engines[e].peak[BPW_PRECISION_BF16],
                           g_rand_double_range (rand, 1e11, 2e14), BPW_PROVENANCE_ESTIMATE, NULL);

  m = bpw_blueprint_add_memory (bp, "hbm", BPW_MEMORY_DEVICE);
  bpw_blueprint_set_value (bp, &bp->memory[m].capacity, 80e9, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->memory[m].bandwidth, g_rand_double_range (rand, 1e11, 1e13),
                           BPW_PROVENANCE_ESTIMATE, NULL);
  for (guint i = 0; i < 4; i++)
    points[i] = (BpwEfficiencyPoint) { pow (10.0, 3 + 2 * i),
                                       g_rand_double_range (rand, 0.05, 1.0) };
  bpw_efficiency_table_set (bp, &bp->memory[m].efficiency, points, 4, interp,
                            BPW_PROVENANCE_ESTIMATE, NULL);
  bp->processing = g_rand_boolean (rand) ? BPW_PROCESSING_OVERLAP : BPW_PROCESSING_NO_OVERLAP;

  t = bpw_blueprint_add_tier (bp, "link", BPW_TOPOLOGY_SWITCH);
  bpw_blueprint_set_value (bp, &bp->tiers[t].size, 1024, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].bandwidth, g_rand_double_range (rand, 1e9, 1e12),
                           BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].latency, g_rand_double_range (rand, 0, 2e-5),
                           BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->tiers[t].efficiency, g_rand_double_range (rand, 0.3, 1.0),
                           BPW_PROVENANCE_ESTIMATE, NULL);
  bp->tiers[t].collectives = (guint) g_rand_int_range (rand, 1, 16);
  return bp;
}

static void
test_task_never_beats_physics (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261130);

  for (guint trial = 0; trial < 2000; trial++)
    {
      g_autoptr(BpwBlueprint) bp = random_blueprint (rand);
      g_autoptr(GError) error = NULL;
      BpwCostRates rates;
      BpwTaskCost cost;
      double flops = pow (10.0, g_rand_double_range (rand, 3, 15));
      double bytes[BPW_N_TRAFFIC_LEVELS] = { pow (10.0, g_rand_double_range (rand, 2, 11)), 0 };
      gboolean matrix = g_rand_boolean (rand);
      double peak, bandwidth = bp->memory[0].bandwidth.value;

      g_assert_true (bpw_cost_rates_init (&rates, bp, BPW_PRECISION_BF16, &error));
      g_assert_no_error (error);
      bpw_cost_task (&rates, matrix ? &rates.matrix : &rates.vector, flops, bytes, &cost);
      peak = bp->engines[matrix ? 0 : 1].peak[BPW_PRECISION_BF16].value;

      g_assert_cmpfloat (cost.time_s, >=, flops / peak * (1 - 1e-12));
      g_assert_cmpfloat (cost.time_s, >=, bytes[0] / bandwidth * (1 - 1e-12));
      g_assert_cmpfloat (cost.time_s, >=, MAX (flops / peak, bytes[0] / bandwidth) * (1 - 1e-12));
      g_assert_cmpfloat (cost.stall_s, >=, 0);
      g_assert_cmpfloat (cost.stall_s, <=, cost.time_s);
    }
}

static void
test_collective_never_beats_its_algorithm (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (424242);

  for (guint trial = 0; trial < 5000; trial++)
    {
      g_autoptr(BpwBlueprint) bp = random_blueprint (rand);
      const BpwTier *tier = &bp->tiers[0];
      BpwCollectiveKind kind = (BpwCollectiveKind) g_rand_int_range (rand, 0, BPW_N_COLLECTIVES);
      double bytes = pow (10.0, g_rand_double_range (rand, 2, 11));
      gint64 n = kind == BPW_COLLECTIVE_SEND_RECV ? 2 : g_rand_int_range (rand, 2, 1025);
      BpwCollectiveAlgo algo = bpw_cost_best_algorithm (tier, kind, bytes, n);
      double t = bpw_cost_collective (tier, algo, kind, bytes, n);
      double bound = bpw_cost_wire_bytes (kind, algo, bytes, n) / tier->bandwidth.value;

      g_assert_cmpfloat (t, >=, bound * (1 - 1e-12));
      /* And never below what any point-to-point algorithm must move (nccl-tests): an
       * all-reduce without in-network reduction moves 2(n−1)/n·M per rank. */
      if (kind == BPW_COLLECTIVE_ALL_REDUCE && algo != BPW_COLLECTIVE_ALGO_IN_NETWORK)
        g_assert_cmpfloat (t, >=, 2.0 * (n - 1) / n * bytes / tier->bandwidth.value * (1 - 1e-12));
    }
}

/* Ring all-reduce: 2(n−1)·α + 2(n−1)/n·M/(B·eff); ring all-gather (n−1)·α +
 * (n−1)/n·M/(B·eff) (REFERENCES.md §5.2); tree all-reduce 2⌈log2 n⌉ latencies. */
static void
test_collective_closed_forms (void)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_new ("closed");
  guint t = bpw_blueprint_add_tier (bp, "ib", BPW_TOPOLOGY_FAT_TREE);
  BpwTier *tier;
  double alpha = 5e-6, beta = 50e9, eff = 0.8, m = 256e6;
  gint64 n = 12;

  tier = &bp->tiers[t];
  bpw_blueprint_set_value (bp, &tier->bandwidth, beta, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &tier->latency, alpha, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &tier->efficiency, eff, BPW_PROVENANCE_ESTIMATE, NULL);
  tier->collectives = BPW_COLLECTIVE_ALGO_RING | BPW_COLLECTIVE_ALGO_TREE;

  g_assert_cmpfloat_with_epsilon (
    bpw_cost_collective (tier, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_REDUCE, m, n),
    2.0 * (n - 1) * alpha + 2.0 * (n - 1) / n * m / (beta * eff), 1e-15);
  g_assert_cmpfloat_with_epsilon (
    bpw_cost_collective (tier, BPW_COLLECTIVE_ALGO_RING, BPW_COLLECTIVE_ALL_GATHER, m, n),
    (n - 1) * alpha + (double) (n - 1) / n * m / (beta * eff), 1e-15);
  g_assert_cmpfloat_with_epsilon (
    bpw_cost_collective (tier, BPW_COLLECTIVE_ALGO_TREE, BPW_COLLECTIVE_ALL_REDUCE, m, n),
    2.0 * 4 * alpha + 2.0 * (n - 1) / n * m / (beta * eff), 1e-15);
  g_assert_cmpfloat_with_epsilon (
    bpw_cost_collective (tier, 0, BPW_COLLECTIVE_SEND_RECV, m, 2), alpha + m / (beta * eff),
    1e-15);
  /* Small messages are latency-bound: the tree wins; large ones tie on bandwidth. */
  g_assert_cmpint (bpw_cost_best_algorithm (tier, BPW_COLLECTIVE_ALL_REDUCE, 1024, n), ==,
                   BPW_COLLECTIVE_ALGO_TREE);
  /* Calculon's a100 factor [2, -1] is the ring formula. */
  tier->ops[BPW_COLLECTIVE_ALL_REDUCE] = (BpwOpFactor) { TRUE, TRUE, 2.0, -1.0 };
  g_assert_cmpfloat_with_epsilon (
    bpw_cost_collective (tier, 0, BPW_COLLECTIVE_ALL_REDUCE, m, n),
    alpha + 2.0 * (n - 1) / n * m / (beta * eff), 1e-15);
}

/* Tiles that cover the matmul read every operand once; a smaller on-chip memory re-reads
 * the panels: A once per column panel, B once per row panel. */
static void
test_matmul_traffic (void)
{
  double tm, tn;
  double compulsory = 2.0 * (4096.0 * 1024 + 1024.0 * 2048 + 4096.0 * 2048);

  g_assert_cmpfloat (bpw_cost_matmul_traffic (1, 4096, 2048, 1024, 2, 0, NULL, NULL), ==,
                     compulsory);
  g_assert_cmpfloat (bpw_cost_matmul_traffic (1, 4096, 2048, 1024, 2, 1e9, &tm, &tn), ==,
                     compulsory);
  /* 256 KiB on chip: half of it holds a square 256 x 256 output tile of 2-byte elements. */
  g_assert_cmpfloat (bpw_cost_matmul_traffic (1, 4096, 2048, 1024, 2, 256.0 * 1024, &tm, &tn), ==,
                     2.0 * (4096.0 * 1024 * 8 + 1024.0 * 2048 * 16 + 4096.0 * 2048));
  g_assert_cmpfloat (tm, ==, 256);
  g_assert_cmpfloat (tn, ==, 256);
}

static void
test_padding (void)
{
  BpwTile tile = { .m = 16, .n = 8, .k = 16 };

  g_assert_cmpfloat (bpw_cost_padded_flops (&tile, 1, 16, 8, 16), ==, 2.0 * 16 * 8 * 16);
  g_assert_cmpfloat (bpw_cost_padded_flops (&tile, 3, 17, 9, 1), ==, 2.0 * 3 * 32 * 16 * 16);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Cost/task-never-beats-physics", test_task_never_beats_physics);
  g_test_add_func ("/bpw/core/Cost/collective-never-beats-its-algorithm",
                   test_collective_never_beats_its_algorithm);
  g_test_add_func ("/bpw/core/Cost/collective-closed-forms", test_collective_closed_forms);
  g_test_add_func ("/bpw/core/Cost/matmul-traffic", test_matmul_traffic);
  g_test_add_func ("/bpw/core/Cost/padding", test_padding);
  return g_test_run ();
}
