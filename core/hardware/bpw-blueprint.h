/* bpw-blueprint.h — a candidate accelerator system: engines, memory levels, interconnect tiers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-types.h"
#include "bpw-quantity.h"

G_BEGIN_DECLS

typedef struct _BpwBlueprint BpwBlueprint;

/* Where a number comes from: BpwProvenanceKind (bpw-quantity.h). A bare number in a file,
 * without a provenance object, is taken as an unsourced estimate. */
typedef BpwProvenanceKind BpwProvenance;
#define BPW_N_PROVENANCES 4

/* Number formats an engine may run. Wider than BpwDType because hardware quotes TF32, INT8
 * and FP4 peaks that workloads never name directly. */
typedef enum
{
  BPW_PRECISION_FP32,
  BPW_PRECISION_TF32,
  BPW_PRECISION_BF16,
  BPW_PRECISION_FP16,
  BPW_PRECISION_FP8,
  BPW_PRECISION_INT8,
  BPW_PRECISION_FP4,
  BPW_N_PRECISIONS
} BpwPrecision;

typedef enum
{
  BPW_ENGINE_MATRIX,
  BPW_ENGINE_VECTOR,
  BPW_ENGINE_DMA,
  BPW_ENGINE_COLLECTIVE,
  BPW_N_ENGINE_KINDS
} BpwEngineKind;

typedef enum
{
  BPW_MEMORY_REGISTERS,
  BPW_MEMORY_SRAM,      /* software-managed, per core (shared memory, VMEM, TPC SRAM) */
  BPW_MEMORY_CACHE,     /* hardware-managed, shared (L2, Infinity Cache) */
  BPW_MEMORY_DEVICE,    /* HBM */
  BPW_MEMORY_HOST,      /* host DRAM behind PCIe or a coherent link */
  BPW_N_MEMORY_KINDS
} BpwMemoryKind;

typedef enum
{
  BPW_TOPOLOGY_SWITCH,     /* every device one hop from every other through a switch */
  BPW_TOPOLOGY_FULL_MESH,  /* direct links between all pairs */
  BPW_TOPOLOGY_RING,
  BPW_TOPOLOGY_TORUS,      /* dims > 0; per-dimension sizes in BpwTier.shape when known */
  BPW_TOPOLOGY_FAT_TREE,   /* switches in levels; "oversubscription" thins the uplinks */
  /* A fat-tree whose leaf switches are rails: the devices with the same local rank in the
   * inner tier (node) share one rail switch. Same-rail traffic runs at full bandwidth;
   * traffic between rails takes one extra hop over the inner tier first (PXN). */
  BPW_TOPOLOGY_RAIL_OPTIMIZED,
  BPW_N_TOPOLOGIES
} BpwTopology;

/* Collective implementations a tier offers (flags). */
typedef enum
{
  BPW_COLLECTIVE_ALGO_RING       = 1 << 0,
  BPW_COLLECTIVE_ALGO_TREE       = 1 << 1,
  BPW_COLLECTIVE_ALGO_IN_NETWORK = 1 << 2,  /* switch reduction: NVLS, SHARP */
  BPW_COLLECTIVE_ALGO_DIRECT     = 1 << 3,  /* one-shot over a full mesh or switch */
  /* Two levels: reduce-scatter inside the inner tier, the collective across this tier on
   * 1/n of the data, all-gather inside (bpw-cost-topology.h). */
  BPW_COLLECTIVE_ALGO_HIERARCHICAL = 1 << 4,
  /* Dimension-ordered over a torus's per-dimension sizes, bidirectional rings per dimension;
   * a torus tier with a shape offers it without listing it. */
  BPW_COLLECTIVE_ALGO_TORUS      = 1 << 5,
} BpwCollectiveAlgo;
#define BPW_N_COLLECTIVE_ALGOS 6

/* Calculon's processing_mode: op time = compute + memory, or max of the two. */
typedef enum
{
  BPW_PROCESSING_OVERLAP,
  BPW_PROCESSING_NO_OVERLAP,
} BpwProcessing;

typedef enum
{
  /* Calculon's semantics: the efficiency of the largest size <= x; below the first point,
   * the first point's efficiency. Reproduces Calculon exactly on its own tables. */
  BPW_INTERPOLATION_STEP,
  /* Linear in log(size) between points, constant beyond the ends. Sizes must be > 0.
   * Default for native blueprints: it has no jumps that make search flip between plans. */
  BPW_INTERPOLATION_LOG_LINEAR,
} BpwInterpolation;

/* A number in SI base units with its provenance. @source is borrowed from the owning
 * blueprint's string pool. Unset values (set == FALSE) are "not known", never zero. */
typedef struct
{
  double         value;
  BpwProvenance  kind;
  gboolean       set;
  const char    *source;
} BpwSourced;

/* Ends the source of a bf16 peak that a Calculon system file took from its float16 entry:
 * the workbench prices bf16 as 16-bit there, Calculon's own model refuses it. */
#define BPW_BLUEPRINT_BF16_FROM_FP16 "(no bfloat16 entry: bf16 taken as float16)"

typedef struct
{
  double size;        /* FLOPs of one operation (engines) or bytes it touches (memory) */
  double efficiency;  /* (0, 1] */
} BpwEfficiencyPoint;

/* Empty (n_points == 0) means efficiency 1. Points are sorted by size, sizes distinct. */
typedef struct
{
  BpwEfficiencyPoint *points;  /* owned */
  guint               n_points;
  BpwInterpolation    interpolation;
  BpwProvenance       kind;
  const char         *source;  /* pooled */
} BpwEfficiencyTable;

/* Native matrix-engine tile: operand dimensions are padded up to multiples of m, n, k. */
typedef struct
{
  gint64         m, n, k;  /* 0 when unknown */
  BpwProvenance  kind;
  const char    *source;
} BpwTile;

typedef struct
{
  const char        *name;      /* pooled */
  BpwEngineKind      kind;
  BpwSourced         count;     /* units per device (SMs, tensor cores, MXUs) */
  BpwSourced         clock;     /* Hz */
  BpwSourced         peak[BPW_N_PRECISIONS];  /* dense FLOP/s per device, all units */
  BpwSourced         bandwidth; /* DMA and collective engines: B/s per device */
  BpwSourced         overhead;  /* s fixed per operation (launch, synchronisation) */
  BpwTile            tile;
  BpwEfficiencyTable efficiency[BPW_N_PRECISIONS];  /* by FLOPs of one operation */
} BpwEngine;

#define BPW_BLUEPRINT_MAX_ENGINES 64

/* Physical bounds on what one device may have (data/schemas/bpw-blueprint.schema.json states
 * them too). Outside them a value is a typo or a unit slip, and the model would price it as
 * nonsense: a denormal bandwidth makes every step time infinite or NaN, a bandwidth of
 * 1e-300 B/s a step time with hundreds of digits. The bounds are wide: the smallest is far
 * below any accelerator, the largest far above a wafer-scale part. */
#define BPW_BLUEPRINT_MIN_BANDWIDTH  1e6                    /* 1 MB/s */
#define BPW_BLUEPRINT_MAX_BANDWIDTH  1e15                   /* 1 PB/s */
#define BPW_BLUEPRINT_MIN_PEAK       1e6                    /* 1 MFLOP/s */
#define BPW_BLUEPRINT_MAX_PEAK       1e18                   /* 1 EFLOP/s */
#define BPW_BLUEPRINT_MIN_CAPACITY   1024.0                 /* 1 KiB */
/* 2^70 B (1024 EiB): Calculon's a100_80e system stands in for unlimited memory with
 * 80e9 GiB (75 EiB), which must still load. */
#define BPW_BLUEPRINT_MAX_CAPACITY   1180591620717411303424.0
#define BPW_BLUEPRINT_MAX_LATENCY    1.0                    /* 1 s, per operation or message */
#define BPW_BLUEPRINT_MIN_CLOCK      1e6                    /* 1 MHz */
#define BPW_BLUEPRINT_MAX_CLOCK      1e11                   /* 100 GHz */
#define BPW_BLUEPRINT_MIN_POWER      1e-3                   /* 1 mW */
#define BPW_BLUEPRINT_MAX_POWER      1e6                    /* 1 MW */
#define BPW_BLUEPRINT_MIN_EFFICIENCY 1e-3                   /* of a peak or a bandwidth */
/* Devices in one instance of a tier: no more than a scenario may have (2^24, as
 * BPW_SCENARIO_MAX_DEVICES), so that a tier's size never passes what can be mapped. */
#define BPW_BLUEPRINT_MAX_TIER_SIZE  16777216.0
#define BPW_BLUEPRINT_MAX_OP_FACTOR  1e3                    /* a collective's scalar or offset */
#define BPW_BLUEPRINT_MAX_ENERGY     1e-6                   /* 1 µJ per FLOP or byte */
#define BPW_BLUEPRINT_MAX_COST       1e9                    /* $1 billion per device */
#define BPW_BLUEPRINT_MAX_COUNT      1e9                    /* units, instances, links */
/* Dimensions a torus may have, and the largest uplink oversubscription (a ratio ≥ 1): far
 * beyond any built network, so that a larger figure is a typo. */
#define BPW_TIER_MAX_DIMENSIONS      16
#define BPW_TIER_MAX_OVERSUBSCRIPTION 1e3

typedef struct
{
  const char        *name;             /* pooled */
  BpwMemoryKind      kind;
  BpwSourced         instances;        /* copies per device: one per core for per-core SRAM */
  BpwSourced         capacity;         /* bytes per instance */
  BpwSourced         bandwidth;        /* B/s per device, all instances together */
  BpwSourced         latency;          /* s */
  BpwSourced         energy_per_byte;  /* J/B */
  guint64            engine_mask;      /* bit i: engines[i] reads and writes this level */
  BpwEfficiencyTable efficiency;       /* by bytes one operation touches */
} BpwMemoryLevel;

/* Calculon's per-collective traffic factor: t = latency + S·scalar·(1 + offset/N) / (B·eff). */
typedef struct
{
  gboolean set;
  gboolean has_offset;  /* FALSE: Calculon's null offset (p2p) */
  double   scalar;
  double   offset;
} BpwOpFactor;

typedef struct
{
  const char  *name;             /* pooled */
  BpwTopology  topology;
  gint64       dimensions;       /* torus or ring dimensions; 0 otherwise */
  /* Torus: devices along each of the first @dimensions dimensions (wraparound links), their
   * product the tier's size; all 0 when the file gives only the count. */
  gint64       shape[BPW_TIER_MAX_DIMENSIONS];
  /* Ratio ≥ 1 of downlink to uplink capacity where traffic leaves the inner tier (2 for a
   * 2:1 fat-tree): such traffic gets bandwidth / oversubscription. Unset: 1. */
  BpwSourced   oversubscription;
  /* Rail-optimised only: instances of the inner tier (nodes) that one rail's leaf switch
   * joins. Traffic between nodes of different rail groups crosses the spine, where the
   * oversubscription applies. Unset: one rail switch joins every node of the tier. */
  BpwSourced   rail_size;
  BpwSourced   size;             /* devices in one instance of the tier, inner tiers included */
  BpwSourced   bandwidth;        /* B/s per direction per device */
  BpwSourced   links;            /* ports per device */
  BpwSourced   latency;          /* s per message */
  BpwSourced   efficiency;       /* achievable fraction of bandwidth */
  BpwSourced   energy_per_byte;  /* J/B */
  BpwSourced   processor_usage;  /* fraction of compute lost while its traffic overlaps */
  guint        collectives;      /* BpwCollectiveAlgo flags */
  gboolean     must_be_filled;   /* degrees mapped here must divide size */
  BpwOpFactor  ops[BPW_N_COLLECTIVES];
} BpwTier;

/* The software stack a blueprint was measured or calibrated with (its optional "stack"
 * member; data/schemas/bpw-blueprint.schema.json). Kernels that the work graph does not
 * contain (casts of fp32 master weights, unfused element-wise chains, the optimizer's
 * implementation, launch gaps, fp32 logits, a host loop over MoE experts) are priced from it
 * as named implementation transformations, apart from the semantic work. A member the file
 * leaves out is not modelled. */
typedef enum
{
  BPW_STACK_ATTENTION_DEFAULT,       /* not stated: the default rule (flash where it runs) */
  BPW_STACK_ATTENTION_FLASH,         /* fused, O(s) memory */
  BPW_STACK_ATTENTION_MATERIALIZED,  /* s×s scores stored */
} BpwStackAttention;

typedef enum
{
  BPW_STACK_LAUNCH_EAGER,  /* host issues every kernel: short kernels leave the device idle */
  BPW_STACK_LAUNCH_GRAPH,  /* replayed from a captured graph */
} BpwStackLaunch;

typedef enum
{
  BPW_STACK_OPTIMIZER_FUSED,
  BPW_STACK_OPTIMIZER_FOREACH,
  BPW_STACK_OPTIMIZER_PER_TENSOR,
} BpwStackOptimizer;

/* Phases a launch mode is stated for: "train", "prefill", "decode". */
typedef enum
{
  BPW_STACK_PHASE_TRAIN,
  BPW_STACK_PHASE_PREFILL,
  BPW_STACK_PHASE_DECODE,
  BPW_STACK_N_PHASES
} BpwStackPhase;

/* Fusion names a stack may list, bit i naming 1 << i: the same order as the mapping's
 * BpwFusion flags (binding asserts that they agree). */
#define BPW_STACK_N_FUSIONS 4

/* Sane maxima of a stack's numbers: beyond them a value is a unit slip. */
#define BPW_STACK_MAX_BYTES_PER_PARAMETER 1e4
#define BPW_STACK_MAX_KERNELS_PER_TENSOR  1e3
#define BPW_STACK_MAX_KERNELS_PER_PARAMETER 1.0
#define BPW_STACK_MAX_ELEMENTWISE_RATE    1e15

typedef struct
{
  gboolean           set;                 /* the blueprint has a "stack" */
  const char        *name;                /* pooled, nullable */
  const char        *source;              /* pooled, nullable */
  BpwStackAttention  attention;
  gboolean           has_fusion;          /* "fusion" stated (an empty list is "none") */
  guint              fusion;              /* bit i: BpwFusion 1 << i */
  gboolean           fp32_master;         /* precision.master_weights "fp32" */
  gboolean           fp32_logits;         /* precision.logits "fp32" */
  gboolean           has_optimizer;
  BpwStackOptimizer  optimizer;
  BpwSourced         optimizer_bytes_per_parameter;  /* bytes moved per parameter */
  BpwSourced         optimizer_kernels_per_tensor;   /* launches per parameter tensor */
  BpwSourced         optimizer_kernels_per_parameter; /* launches per parameter (foreach:
                                                       * chunks of elements per launch) */
  gboolean           unfused_elementwise; /* "elementwise": "unfused" */
  BpwSourced         elementwise_rate;    /* elements/s of an eager element-wise kernel off
                                           * the vectorized path (a broadcast or strided
                                           * operand, a dtype converted per element) */
  BpwEfficiencyTable attention_efficiency; /* the matrix engine's efficiency in the stack's
                                            * fused attention kernel, by FLOPs of its
                                            * forward (empty: the engine's own table) */
  gboolean           has_launch;
  BpwStackLaunch     launch[BPW_STACK_N_PHASES];
  BpwSourced         eager_gap;           /* s of host issue time per eager kernel in
                                           * inference (prefill, decode) */
  BpwSourced         train_eager_gap;     /* the same in training: autograd's backward
                                           * engine adds host work per kernel */
  BpwSourced         graph_gap;           /* s of device idle between replayed kernels */
  BpwSourced         eager_device_gap;    /* s of device idle between consecutive eager
                                           * kernels already issued (the queue ahead) */
  gboolean           moe_loop;            /* moe_dispatch.implementation "loop" */
  gboolean           has_moe_dispatch;
  BpwSourced         moe_per_expert;      /* s per expert per layer per pass */
} BpwStack;

struct _BpwBlueprint
{
  /* owned */
  char           *name;
  char           *device;       /* nullable: product name */
  char           *description;  /* nullable */
  char           *origin;       /* nullable: file or "bundled" it came from */
  GStringChunk   *strings;      /* pool for names and sources */

  BpwEngine      *engines;      /* owned arrays */
  guint           n_engines;
  BpwMemoryLevel *memory;       /* innermost first */
  guint           n_memory;
  BpwTier        *tiers;        /* innermost (node) first */
  guint           n_tiers;

  guint           precisions;   /* capabilities: 1 << BpwPrecision */
  gboolean        sparsity_2_4; /* 2:4 structured sparsity doubles matrix peak (not in peaks) */
  BpwProcessing   processing;

  BpwSourced      tdp;          /* W */
  BpwSourced      idle_power;   /* W */
  /* W per device, above the idle power: when a step's modelled average power exceeds it the
   * clocks throttle and the step stretches (bpw-power-cap.h). Unset: no throttling. */
  BpwSourced      power_cap;
  BpwSourced      energy_per_flop[BPW_N_PRECISIONS];  /* J/FLOP */
  BpwSourced      cost;         /* dollars per device */
  BpwStack        stack;        /* stack.set == FALSE: none stated */
};

BpwBlueprint *bpw_blueprint_new         (const char         *name);
BpwBlueprint *bpw_blueprint_copy        (const BpwBlueprint *bp);
void          bpw_blueprint_free        (BpwBlueprint       *bp);
/* Every field, sources and provenance included. */
/* Removes @bp's software stack (the hardware alone), freeing what it owns. */
void          bpw_blueprint_clear_stack (BpwBlueprint      *bp);
gboolean      bpw_blueprint_equal       (const BpwBlueprint *a,
                                         const BpwBlueprint *b);

/* Pools @str in @bp (NULL stays NULL); the result lives as long as @bp. */
const char   *bpw_blueprint_intern      (BpwBlueprint       *bp,
                                         const char         *str);
void          bpw_blueprint_set_value   (BpwBlueprint       *bp,
                                         BpwSourced         *value,
                                         double              number,
                                         BpwProvenance       kind,
                                         const char         *source);
/* Append zero-initialised entries; return the new index. Pointers into the arrays are
 * invalidated by the next add. */
guint         bpw_blueprint_add_engine  (BpwBlueprint       *bp,
                                         const char         *name,
                                         BpwEngineKind       kind);
guint         bpw_blueprint_add_memory  (BpwBlueprint       *bp,
                                         const char         *name,
                                         BpwMemoryKind       kind);
guint         bpw_blueprint_add_tier    (BpwBlueprint       *bp,
                                         const char         *name,
                                         BpwTopology         topology);
/* Copies @n points (any order, distinct sizes) into @table, sorted. */
void          bpw_efficiency_table_set  (BpwBlueprint       *bp,
                                         BpwEfficiencyTable *table,
                                         const BpwEfficiencyPoint *points,
                                         guint               n,
                                         BpwInterpolation    interpolation,
                                         BpwProvenance       kind,
                                         const char         *source);
double        bpw_efficiency_table_lookup (const BpwEfficiencyTable *table,
                                           double              size);

/* Lookups; -1 when absent. */
int           bpw_blueprint_lookup_engine (const BpwBlueprint *bp,
                                           const char         *name);
int           bpw_blueprint_lookup_memory (const BpwBlueprint *bp,
                                           const char         *name);
int           bpw_blueprint_lookup_tier   (const BpwBlueprint *bp,
                                           const char         *name);
int           bpw_blueprint_first_engine  (const BpwBlueprint *bp,
                                           BpwEngineKind       kind);
int           bpw_blueprint_first_memory  (const BpwBlueprint *bp,
                                           BpwMemoryKind       kind);
/* Dense peak of the first engine of @kind in @precision; 0 when unset. */
double        bpw_blueprint_peak_flops    (const BpwBlueprint *bp,
                                           BpwEngineKind       kind,
                                           BpwPrecision        precision);
/* Matrix peak in @precision over device-memory (HBM) bandwidth, FLOP/byte; 0 when unknown. */
double        bpw_blueprint_ridge_point   (const BpwBlueprint *bp,
                                           BpwPrecision        precision);
/* Whether the blueprint's engines run FlashAttention-style fused attention: a matrix engine
 * reaches an on-chip software-managed level (kind "sram") of known capacity, where the
 * score tiles stay. */
gboolean      bpw_blueprint_runs_flash_attention (const BpwBlueprint *bp);
/* Structural checks for blueprints built in code or imported: names unique, required values
 * set and positive, tier sizes non-decreasing and nested. */
gboolean      bpw_blueprint_validate      (const BpwBlueprint *bp,
                                           GError            **error);
/* Whether @tier's torus shape, when it has one, has 1 to BPW_TIER_MAX_DIMENSIONS positive
 * sizes whose product is the tier's size (a tier without a shape passes). */
gboolean      bpw_tier_shape_valid        (const BpwTier      *tier);
/* Product of the torus shape's sizes; 0 without a shape or when it passes the tier size
 * bound (no overflow). */
gint64        bpw_tier_shape_devices      (const BpwTier      *tier);

const char   *bpw_precision_to_string    (BpwPrecision precision);
gboolean      bpw_precision_from_string  (const char *str, BpwPrecision *out);
BpwPrecision  bpw_precision_from_dtype   (BpwDType dtype);
const char   *bpw_engine_kind_to_string  (BpwEngineKind kind);
gboolean      bpw_engine_kind_from_string (const char *str, BpwEngineKind *out);
const char   *bpw_memory_kind_to_string  (BpwMemoryKind kind);
gboolean      bpw_memory_kind_from_string (const char *str, BpwMemoryKind *out);
const char   *bpw_topology_to_string     (BpwTopology topology);
gboolean      bpw_topology_from_string   (const char *str, BpwTopology *out);
const char   *bpw_collective_algo_to_string (BpwCollectiveAlgo algo);  /* one flag */
gboolean      bpw_collective_algo_from_string (const char *str, BpwCollectiveAlgo *out);
const char   *bpw_interpolation_to_string (BpwInterpolation interpolation);
gboolean      bpw_interpolation_from_string (const char *str, BpwInterpolation *out);
/* Key used in files: "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "p2p". */
const char   *bpw_op_factor_key          (BpwCollectiveKind kind);
const char   *bpw_stack_attention_to_string (BpwStackAttention attention);
const char   *bpw_stack_launch_to_string (BpwStackLaunch launch);
const char   *bpw_stack_optimizer_to_string (BpwStackOptimizer optimizer);
const char   *bpw_stack_phase_to_string  (BpwStackPhase phase);
/* "attention", "bias_activation", "norm_residual", "optimizer" for i = 0 … 3. */
const char   *bpw_stack_fusion_name      (guint i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwBlueprint, bpw_blueprint_free)

G_END_DECLS
