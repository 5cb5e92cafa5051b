/* bpw-cost.h — what one task or one collective costs on a blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure functions, no allocation: the analytic estimator calls them millions of times.
 *
 * Task:        compute = FLOPs / (peak · eff_engine(FLOPs))
 *              memory  = Σ_level bytes_level / (bandwidth_level · eff_level(bytes))
 *              time    = overhead + (compute + memory)       (processing "no-overlap")
 *                        overhead + max (compute, memory)    (processing "overlap")
 *              where host (offload) traffic, a DMA stream into the device's double buffer,
 *              overlaps compute in both modes: no-overlap is overhead + device memory +
 *              max (compute, host), Calculon's max (0, offload + memory − op time) per op.
 * Collective:  time    = steps · α + bytes_on_the_wire / (β⁻¹ · efficiency),
 *              with the algorithm's steps and traffic factor (REFERENCES.md §5.1, §5.2):
 *              ring all-reduce 2(n−1) steps of M/n; ring reduce-scatter / all-gather (n−1)
 *              steps of M/n; tree all-reduce 2·⌈log2 n⌉ latencies and 2(n−1)/n·M traffic;
 *              in-network all-reduce 2 latencies and M traffic each way (NVLS / SHARP);
 *              direct (one shot over a switch or full mesh) 1 latency and (n−1)/n·M;
 *              all-to-all (n−1)/n·M; send/recv M. A tier imported from Calculon keeps its own
 *              per-collective factor t = α + M·scalar·(1 + offset/n) / (B·eff).
 *              Torus (dimension-ordered) and hierarchical collectives, oversubscription and
 *              rail-optimised layouts: bpw-cost-topology.h.
 * Efficiencies never exceed 1, so a cost is never below the physical bound
 * max (FLOPs/peak, bytes/bandwidth) — the property the tests check.
 */
#pragma once

#include "bpw-blueprint.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_BOTTLENECK_COMPUTE,
  BPW_BOTTLENECK_MEMORY,
  BPW_BOTTLENECK_COMMUNICATION,
  BPW_BOTTLENECK_LATENCY,
  BPW_BOTTLENECK_CAPACITY,
  BPW_BOTTLENECK_BUBBLE,
  BPW_BOTTLENECK_DEPENDENCY,
  BPW_N_BOTTLENECKS
} BpwBottleneck;

/* Where a task's bytes go: device memory (HBM) and, when placement offloads, host memory. */
typedef enum
{
  BPW_TRAFFIC_DEVICE,
  BPW_TRAFFIC_HOST,
  BPW_N_TRAFFIC_LEVELS
} BpwTrafficLevel;

typedef struct
{
  double         compute_s;    /* engine time at its size-dependent efficiency */
  double         memory_s;     /* all levels, each at its size-dependent efficiency */
  double         overhead_s;   /* fixed per-operation cost of the engine */
  double         time_s;       /* the task's duration */
  double         stall_s;      /* part of time_s spent waiting on memory beyond compute */
  BpwBottleneck  bottleneck;
} BpwTaskCost;

/* Resolved once per blueprint and precision so the hot path does no lookups. */
typedef struct
{
  const BpwEngine      *engine;
  double                peak;        /* FLOP/s, 0 when the engine cannot run the precision */
  const BpwEfficiencyTable *efficiency;
  double                overhead;    /* s */
} BpwEngineRate;

typedef struct
{
  const BpwMemoryLevel *level;       /* NULL when the blueprint has no such level */
  double                bandwidth;   /* B/s */
} BpwMemoryRate;

typedef struct
{
  BpwPrecision   precision;          /* of matrix and vector */
  BpwEngineRate  matrix;
  BpwEngineRate  vector;
  /* The same matrix engine in every precision (peak 0 where it has no rate): what a
   * precision policy's operations run at. */
  BpwEngineRate  matrix_in[BPW_N_PRECISIONS];
  /* The matrix engine in the software stack's fused attention kernel, at @precision: its
   * efficiency by FLOPs of one forward product (NULL: the engine's own table). */
  BpwEngineRate  attention;
  BpwMemoryRate  traffic[BPW_N_TRAFFIC_LEVELS];
  BpwProcessing  processing;
  double         onchip_bytes;       /* capacity tiles may use (largest on-chip level) */
} BpwCostRates;

/* Fills @rates for @precision; FALSE when the blueprint has no matrix or vector engine
 * able to run it or no device memory (the reason in @error, as a sentence). */
gboolean      bpw_cost_rates_init  (BpwCostRates       *rates,
                                    const BpwBlueprint *bp,
                                    BpwPrecision        precision,
                                    GError            **error);

void          bpw_cost_task        (const BpwCostRates  *rates,
                                    const BpwEngineRate *engine,
                                    double               flops,
                                    const double         bytes[BPW_N_TRAFFIC_LEVELS],
                                    BpwTaskCost         *cost);
/* As bpw_cost_task, the engine's efficiency looked up at @rate_flops rather than the
 * task's own FLOPs (a kernel whose efficiency is that of another size: a flash backward
 * walks the forward's blocks). */
void          bpw_cost_task_at     (const BpwCostRates  *rates,
                                    const BpwEngineRate *engine,
                                    double               flops,
                                    double               rate_flops,
                                    const double         bytes[BPW_N_TRAFFIC_LEVELS],
                                    BpwTaskCost         *cost);

/* Bytes one rank puts on the wire per direction for a collective of logical size
 * @bytes over @n ranks with @algo (the bandwidth term of the α–β model). */
double        bpw_cost_wire_bytes  (BpwCollectiveKind   kind,
                                    BpwCollectiveAlgo   algo,
                                    double              bytes,
                                    gint64              n);
/* Latency steps of the algorithm (the α term's multiplier). */
double        bpw_cost_latency_steps (BpwCollectiveKind kind,
                                      BpwCollectiveAlgo algo,
                                      gint64            n);
/* Whether @tier offers @algo and @algo can carry @kind: tree and in-network reduce or
 * gather along a tree or in the switch, so all-to-all and point-to-point sends have only
 * ring and direct. A tier that lists no algorithm offers ring. */
gboolean      bpw_cost_algorithm_applies (const BpwTier    *tier,
                                          BpwCollectiveAlgo algo,
                                          BpwCollectiveKind kind);
/* The algorithms @tier offers (flags); ring when it lists none. */
guint         bpw_cost_tier_algorithms  (const BpwTier    *tier);
/* The cheapest algorithm @tier offers for @kind at this size; ring when it lists none. */
BpwCollectiveAlgo bpw_cost_best_algorithm (const BpwTier    *tier,
                                           BpwCollectiveKind kind,
                                           double            bytes,
                                           gint64            n);
/* Time of one collective on @tier. @algo 0 picks bpw_cost_best_algorithm(). */
double        bpw_cost_collective  (const BpwTier      *tier,
                                    BpwCollectiveAlgo   algo,
                                    BpwCollectiveKind   kind,
                                    double              bytes,
                                    gint64              n);

/* The flat α–β time of @algo on @tier at an achieved @bandwidth (B/s, efficiency
 * included): what bpw_cost_collective() gives at the tier's own, and what the topology
 * costs (bpw-cost-topology.h) use at an oversubscribed or rail bandwidth. */
double        bpw_cost_tier_time_at (const BpwTier      *tier,
                                     BpwCollectiveAlgo   algo,
                                     BpwCollectiveKind   kind,
                                     double              bytes,
                                     gint64              n,
                                     double              bandwidth);
/* The tier's bandwidth times its efficiency, B/s per direction per device. */
double        bpw_cost_tier_bandwidth (const BpwTier    *tier);

/* HBM traffic of a (m×k)·(k×n) matmul, @batch times, with output-stationary tiles that fit
 * @onchip bytes: A is read once per column panel of tiles, B once per row panel, C written
 * once. Never below the compulsory (m·k + k·n + m·n)·batch·@elem, which is what an
 * @onchip of 0 (not described) gives. */
double        bpw_cost_matmul_traffic (double batch,
                                       double m,
                                       double n,
                                       double k,
                                       double elem,
                                       double onchip,
                                       double *tile_m,
                                       double *tile_n);

/* FLOPs after padding each dimension to the engine's native tile (0 = no padding). */
double        bpw_cost_padded_flops (const BpwTile *tile,
                                     double batch,
                                     double m,
                                     double n,
                                     double k);

/* The class's one-word name of DESIGN.md ("compute"): for CSV, JSON and traces. */
const char   *bpw_bottleneck_to_string (BpwBottleneck bottleneck);
/* Its translated name for people ("Compute", „Rechnen“): for tables, legends, the memo. */
const char   *bpw_bottleneck_display_name (BpwBottleneck bottleneck);

G_END_DECLS
