/* bpw-cost.c — the cost of one task or one collective on a blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cost"

#include "config.h"

#include <math.h>

#include "bpw-cost.h"
#include "bpw-cost-topology.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

static const char * const bottleneck_names[BPW_N_BOTTLENECKS] = {
  "compute", "memory", "communication", "latency", "capacity", "bubble", "dependency",
};

const char *
bpw_bottleneck_to_string (BpwBottleneck bottleneck)
{
  g_return_val_if_fail (bottleneck < BPW_N_BOTTLENECKS, "?");
  return bottleneck_names[bottleneck];
}

const char *
bpw_bottleneck_display_name (BpwBottleneck bottleneck)
{
  static const char * const display[BPW_N_BOTTLENECKS] = {
    /* Translators: bottleneck classes, shown in tables and legends */
    N_("Compute"), N_("Memory"), N_("Communication"), N_("Latency"), N_("Capacity"),
    /* Translators: the pipeline bubble, time a stage waits for the others */
    N_("Bubble"), N_("Dependency"),
  };

  g_return_val_if_fail (bottleneck < BPW_N_BOTTLENECKS, "?");
  return _(display[bottleneck]);
}

static gboolean
engine_rate_init (BpwEngineRate      *rate,
                  const BpwBlueprint *bp,
                  BpwEngineKind       kind,
                  BpwPrecision        precision)
{
  int i = bpw_blueprint_first_engine (bp, kind);
  const BpwEngine *e;

  *rate = (BpwEngineRate) { 0 };
  if (i < 0)
    return FALSE;
  e = &bp->engines[i];
  rate->engine = e;
  rate->efficiency = &e->efficiency[precision];
  rate->overhead = e->overhead.set ? e->overhead.value : 0.0;
  if (e->peak[precision].set && e->peak[precision].value > 0)
    rate->peak = e->peak[precision].value;
  /* A vector unit without a 16-bit figure still runs 16-bit element-wise work, at its
   * FP32 rate (the precision only sets the storage format of such kernels). */
  else if (kind == BPW_ENGINE_VECTOR && e->peak[BPW_PRECISION_FP32].set)
    {
      rate->peak = e->peak[BPW_PRECISION_FP32].value;
      rate->efficiency = &e->efficiency[BPW_PRECISION_FP32];
    }
  return rate->peak > 0;
}

static void
memory_rate_init (BpwMemoryRate      *rate,
                  const BpwBlueprint *bp,
                  BpwMemoryKind       kind)
{
  int i = bpw_blueprint_first_memory (bp, kind);

  *rate = (BpwMemoryRate) { 0 };
  if (i < 0 || !bp->memory[i].bandwidth.set)
    return;
  rate->level = &bp->memory[i];
  rate->bandwidth = bp->memory[i].bandwidth.value;
}

gboolean
bpw_cost_rates_init (BpwCostRates       *rates,
                     const BpwBlueprint *bp,
                     BpwPrecision        precision,
                     GError            **error)
{
  *rates = (BpwCostRates) { .processing = bp->processing, .precision = precision };

  if (!engine_rate_init (&rates->matrix, bp, BPW_ENGINE_MATRIX, precision))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN,
                   _("Blueprint “%s” has no matrix engine that runs %s."),
                   bp->name, bpw_precision_to_string (precision));
      return FALSE;
    }
  rates->attention = rates->matrix;
  if (bp->stack.attention_efficiency.n_points > 0)
    rates->attention.efficiency = &bp->stack.attention_efficiency;
  else
    rates->attention.efficiency = NULL;
  /* Without a vector engine, element-wise work runs on the matrix engine's datapath. */
  if (!engine_rate_init (&rates->vector, bp, BPW_ENGINE_VECTOR, precision))
    rates->vector = rates->matrix;
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    engine_rate_init (&rates->matrix_in[p], bp, BPW_ENGINE_MATRIX, (BpwPrecision) p);

  memory_rate_init (&rates->traffic[BPW_TRAFFIC_DEVICE], bp, BPW_MEMORY_DEVICE);
  memory_rate_init (&rates->traffic[BPW_TRAFFIC_HOST], bp, BPW_MEMORY_HOST);
  if (rates->traffic[BPW_TRAFFIC_DEVICE].level == NULL)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN,
                   _("Blueprint “%s” has no device memory level with a bandwidth."), bp->name);
      return FALSE;
    }

  for (guint i = 0; i < bp->n_memory; i++)
    {
      const BpwMemoryLevel *l = &bp->memory[i];
      double copies = l->instances.set ? l->instances.value : 1.0;

      if ((l->kind == BPW_MEMORY_SRAM || l->kind == BPW_MEMORY_CACHE) && l->capacity.set)
        rates->onchip_bytes = MAX (rates->onchip_bytes, l->capacity.value * copies);
    }
  return TRUE;
}

void
bpw_cost_task (const BpwCostRates  *rates,
               const BpwEngineRate *engine,
               double               flops,
               const double         bytes[BPW_N_TRAFFIC_LEVELS],
               BpwTaskCost         *cost)
{
  bpw_cost_task_at (rates, engine, flops, flops, bytes, cost);
}

void
bpw_cost_task_at (const BpwCostRates  *rates,
                  const BpwEngineRate *engine,
                  double               flops,
                  double               rate_flops,
                  const double         bytes[BPW_N_TRAFFIC_LEVELS],
                  BpwTaskCost         *cost)
{
  const BpwMemoryRate *dev = &rates->traffic[BPW_TRAFFIC_DEVICE];
  const BpwMemoryRate *hst = &rates->traffic[BPW_TRAFFIC_HOST];
  double compute = 0, device = 0, host = 0, memory, staged;

  if (flops > 0)
    compute = flops / (engine->peak * bpw_efficiency_table_lookup (engine->efficiency,
                                                                   rate_flops));
  /* Offloaded (host-homed) bytes are staged through device memory: the operation reads and
   * writes the double-buffered copy there, and a DMA stream moves them over the host link.
   * Without a host level they simply cost device bandwidth. */
  staged = bytes[BPW_TRAFFIC_DEVICE] + bytes[BPW_TRAFFIC_HOST];
  if (staged > 0)
    device = staged / (dev->bandwidth * bpw_efficiency_table_lookup (&dev->level->efficiency,
                                                                     staged));
  if (hst->level != NULL && bytes[BPW_TRAFFIC_HOST] > 0)
    host = bytes[BPW_TRAFFIC_HOST] /
           (hst->bandwidth * bpw_efficiency_table_lookup (&hst->level->efficiency,
                                                          bytes[BPW_TRAFFIC_HOST]));
  memory = device + host;

  cost->compute_s = compute;
  cost->memory_s = memory;
  cost->overhead_s = engine->overhead;
  if (rates->processing == BPW_PROCESSING_NO_OVERLAP)
    {
      /* The host stream overlaps compute, device traffic does not: Calculon's offload
       * overhead, max (0, offload + memory − (compute + memory)), for one operation
       * (shared/docs/CALCULON.md §5, Offload). */
      cost->stall_s = device + MAX (0.0, host - compute);
      cost->time_s = engine->overhead + compute + cost->stall_s;
    }
  else
    {
      cost->stall_s = MAX (0.0, memory - compute);
      cost->time_s = engine->overhead + MAX (compute, memory);
    }

  if (engine->overhead > compute && engine->overhead > memory)
    cost->bottleneck = BPW_BOTTLENECK_LATENCY;
  else
    cost->bottleneck = memory > compute ? BPW_BOTTLENECK_MEMORY : BPW_BOTTLENECK_COMPUTE;
}

static double
ceil_log2 (gint64 n)
{
  double steps = 0;

  for (gint64 v = 1; v < n; v <<= 1)
    steps++;
  return steps;
}

double
bpw_cost_wire_bytes (BpwCollectiveKind kind,
                     BpwCollectiveAlgo algo,
                     double            bytes,
                     gint64            n)
{
  double share = n > 1 ? (double) (n - 1) / (double) n : 0.0;

  if (n <= 1)
    return 0;
  switch (kind)
    {
    case BPW_COLLECTIVE_ALL_REDUCE:
      /* In-network reduction: each rank sends its buffer once and receives the result. */
      return algo == BPW_COLLECTIVE_ALGO_IN_NETWORK ? bytes : 2.0 * share * bytes;
    case BPW_COLLECTIVE_REDUCE_SCATTER:
    case BPW_COLLECTIVE_ALL_GATHER:
      return algo == BPW_COLLECTIVE_ALGO_IN_NETWORK ? bytes : share * bytes;
    case BPW_COLLECTIVE_ALL_TO_ALL:
      return share * bytes;
    case BPW_COLLECTIVE_SEND_RECV:
    case BPW_N_COLLECTIVES:
    default:
      return bytes;
    }
}

double
bpw_cost_latency_steps (BpwCollectiveKind kind,
                        BpwCollectiveAlgo algo,
                        gint64            n)
{
  double factor = kind == BPW_COLLECTIVE_ALL_REDUCE ? 2.0 : 1.0;

  if (kind == BPW_COLLECTIVE_SEND_RECV)
    return 1;
  if (n <= 1)
    return 0;
  switch (algo)
    {
    case BPW_COLLECTIVE_ALGO_TREE:
      return factor * ceil_log2 (n);
    case BPW_COLLECTIVE_ALGO_IN_NETWORK:
    case BPW_COLLECTIVE_ALGO_DIRECT:
      return factor;
    case BPW_COLLECTIVE_ALGO_RING:
    default:
      return factor * (double) (n - 1);
    }
}

guint
bpw_cost_tier_algorithms (const BpwTier *tier)
{
  guint offered = tier->collectives != 0 ? tier->collectives : BPW_COLLECTIVE_ALGO_RING;

  /* A torus whose shape is known runs dimension-ordered collectives without saying so. */
  if (tier->topology == BPW_TOPOLOGY_TORUS && bpw_tier_shape_devices (tier) > 0)
    offered |= BPW_COLLECTIVE_ALGO_TORUS;
  return offered;
}

gboolean
bpw_cost_algorithm_applies (const BpwTier    *tier,
                            BpwCollectiveAlgo algo,
                            BpwCollectiveKind kind)
{
  if (!(bpw_cost_tier_algorithms (tier) & algo))
    return FALSE;
  /* Tree and in-network algorithms combine or replicate one buffer; all-to-all sends
   * every peer a different piece and a point-to-point send has one peer. The hierarchical
   * split is a reduce-scatter and an all-gather, so it carries what they make up. */
  if (algo == BPW_COLLECTIVE_ALGO_IN_NETWORK || algo == BPW_COLLECTIVE_ALGO_TREE
      || algo == BPW_COLLECTIVE_ALGO_HIERARCHICAL)
    return kind != BPW_COLLECTIVE_ALL_TO_ALL && kind != BPW_COLLECTIVE_SEND_RECV;
  if (algo == BPW_COLLECTIVE_ALGO_TORUS)
    return kind != BPW_COLLECTIVE_SEND_RECV;
  return TRUE;
}

double
bpw_cost_tier_time_at (const BpwTier    *tier,
                       BpwCollectiveAlgo algo,
                       BpwCollectiveKind kind,
                       double            bytes,
                       gint64            n,
                       double            bandwidth)
{
  double alpha = tier->latency.set ? tier->latency.value : 0.0;
  const BpwOpFactor *f = &tier->ops[kind];

  if (bytes <= 0 || (n <= 1 && kind != BPW_COLLECTIVE_SEND_RECV))
    return 0;
  /* Calculon's own per-collective factor, as its systems state it. */
  if (f->set)
    return alpha + bytes * f->scalar * (1.0 + (f->has_offset ? f->offset / (double) n : 0.0))
                   / bandwidth;
  /* Without the span, a hierarchical collective has no inner tier to split over: it is
   * the ring over this tier (bpw-cost-topology.h prices it on its span). */
  if (algo == BPW_COLLECTIVE_ALGO_HIERARCHICAL)
    algo = BPW_COLLECTIVE_ALGO_RING;
  return alpha * bpw_cost_latency_steps (kind, algo, n) +
         bpw_cost_wire_bytes (kind, algo, bytes, n) / bandwidth;
}

double
bpw_cost_tier_bandwidth (const BpwTier *tier)
{
  return tier->bandwidth.value * (tier->efficiency.set ? tier->efficiency.value : 1.0);
}

static double
tier_time (const BpwTier *tier, BpwCollectiveAlgo algo, BpwCollectiveKind kind,
           double bytes, gint64 n)
{
  if (algo == BPW_COLLECTIVE_ALGO_TORUS && !tier->ops[kind].set)
    return bpw_cost_torus_time (tier, kind, bytes, n, 1);
  return bpw_cost_tier_time_at (tier, algo, kind, bytes, n, bpw_cost_flat_bandwidth (tier));
}

BpwCollectiveAlgo
bpw_cost_best_algorithm (const BpwTier    *tier,
                         BpwCollectiveKind kind,
                         double            bytes,
                         gint64            n)
{
  BpwCollectiveAlgo best = BPW_COLLECTIVE_ALGO_RING;
  double best_t = G_MAXDOUBLE;

  for (guint a = 0; a < BPW_N_COLLECTIVE_ALGOS; a++)
    {
      BpwCollectiveAlgo algo = 1u << a;
      double t;

      if (!bpw_cost_algorithm_applies (tier, algo, kind))
        continue;
      t = tier_time (tier, algo, kind, bytes, n);
      if (t >= 0 && t < best_t)
        {
          best_t = t;
          best = algo;
        }
    }
  return best;
}

double
bpw_cost_collective (const BpwTier     *tier,
                     BpwCollectiveAlgo  algo,
                     BpwCollectiveKind  kind,
                     double             bytes,
                     gint64             n)
{
  double t;

  if (algo == 0)
    algo = bpw_cost_best_algorithm (tier, kind, bytes, n);
  t = tier_time (tier, algo, kind, bytes, n);
  /* A torus collective over ranks that fill no whole dimensions runs as a ring. */
  return t >= 0 ? t : tier_time (tier, BPW_COLLECTIVE_ALGO_RING, kind, bytes, n);
}

double
bpw_cost_matmul_traffic (double  batch,
                         double  m,
                         double  n,
                         double  k,
                         double  elem,
                         double  onchip,
                         double *tile_m,
                         double *tile_n)
{
  /* Half of the on-chip capacity holds the output tile, the other half streams the A and
   * B panels; square tiles minimise re-reads for a given tile area. A blueprint that does
   * not describe its on-chip memory (Calculon systems) gets compulsory traffic only. */
  double t = onchip > 0 ? floor (sqrt (onchip / (2.0 * elem))) : G_MAXDOUBLE;
  double tm = MAX (1.0, MIN (m, t));
  double tn = MAX (1.0, MIN (n, t));
  double traffic = m * k * ceil (n / tn) + k * n * ceil (m / tm) + m * n;

  if (tile_m != NULL)
    *tile_m = tm;
  if (tile_n != NULL)
    *tile_n = tn;
  return traffic * batch * elem;
}

double
bpw_cost_padded_flops (const BpwTile *tile,
                       double         batch,
                       double         m,
                       double         n,
                       double         k)
{
  double pm = tile->m > 0 ? ceil (m / (double) tile->m) * (double) tile->m : m;
  double pn = tile->n > 0 ? ceil (n / (double) tile->n) * (double) tile->n : n;
  double pk = tile->k > 0 ? ceil (k / (double) tile->k) * (double) tile->k : k;

  return 2.0 * batch * pm * pn * pk;
}
