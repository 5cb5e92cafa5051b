/* bpw-simulation.h — the simulated plan: events on queues, memory over time, critical path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A discrete-event simulation of one training step (or one inference step) of a plan.
 *
 * Symmetry: every rank of a pipeline stage does the same work (the distribution stores
 * tasks per stage, and TP ranks and DP replicas differ only by even shares), so one
 * pipeline column — one rank per stage — is simulated, and collectives whose group lies
 * outside the column (TP, DP, EP) start when the local rank's input is ready, as they do
 * on every rank of the group at the same instant. Collectives inside the column (the
 * tied-embedding all-reduce between the first and the last stage) synchronise their two
 * ranks. BpwSimOptions.all_ranks expands the column to every rank: the copies are
 * exact because the simulation is deterministic and the ranks of a stage identical.
 *
 * Queues per rank: the matrix and the vector engine, and per interconnect tier one queue
 * for each parallel group that uses it (NCCL runs one communicator's collectives in
 * order; different communicators share the link fairly: while n groups' transfers are
 * active on a tier each gets 1/n of its bandwidth, so an arrival slows the transfers
 * already running as well as itself, and a departure speeds up the rest).
 * Tasks issue in program order (the pipeline schedule's order of micro-batches, then the
 * plan's op order, which is topological); by default a rank has one issue stream, as a
 * GPU stream serialises kernels, and with concurrent_engines matrix and vector tasks
 * overlap where their dependencies (the work graph's op deps) allow.
 *
 * Communication, as the mapping says:
 * - TP collectives without TP overlap, and EP all-to-alls, block the stream: they start
 *   when their input is ready and the link is free, and the next task waits for them.
 *   Gathers (SP all-gather, re-gather, gradient gather, MoE combine) run before the op
 *   they serve, reductions and dispatches after it.
 * - With TP overlap (ring, pipe) a TP collective runs beside the task it serves; pipe
 *   starts one tile (1/tp of the task) late and ends at least one communication tile
 *   after the task. Consumers wait for both.
 * - Pipeline sends are asynchronous for the sender; the receiving segment waits.
 * - DP gradient reductions run per layer bucket as the last micro-batch's backward
 *   releases each layer (dp_overlap), or after the whole backward pass; the optimizer
 *   waits for them. ZeRO 1/2 gather the updated weights after it, or with dp_overlap
 *   (the steady state of Megatron's overlapped parameter gather) the previous step's
 *   gather runs per layer bucket from the step's start and the first micro-batch's
 *   forward of each layer waits for its bucket. ZeRO-3 gathers each micro-batch's
 *   weights while the previous segment runs.
 * - A task that starts while an overlapped transfer occupies a link of its rank is slowed
 *   by the tier's processor usage times the overlap known at its start (contention).
 *
 * Interleaved 1F1B is simulated as v virtual stages per rank: chunk c of rank s holds
 * the c-th 1/v of the plan stage's layers and is virtual stage c·p + s (Narayanan et al.
 * 2021, Megatron-LM's placement), with its own pipeline sends, including those from the
 * last rank back to the first between chunks. The work per rank is the plan's.
 *
 * Step-time breakdown (same keys as BpwEvaluation) on the reference rank, the analytic
 * evaluation's slowest stage: its task time by phase and cost component, its exposed
 * communication (blocking transfers, waits on overlapped transfers, contention), and the
 * rest of the step (waiting for other stages: pipeline fill, drain and imbalance) as
 * bubble. The parts add up to the step time exactly.
 */
#pragma once

#include "bpw-evaluation.h"

G_BEGIN_DECLS

#define BPW_SIM_NONE G_MAXUINT32

typedef struct _BpwSimulation BpwSimulation;

typedef enum
{
  BPW_SIM_EVENT_TASK,
  BPW_SIM_EVENT_TRANSFER,
} BpwSimEventKind;

/* Queues of a rank: 0 matrix engine, 1 vector engine, then one per interconnect tier and
 * parallel group (BpwGroupKind) using it: transfers of one group (one communicator) run
 * in order; groups sharing a tier run side by side and share its bandwidth. */
#define BPW_SIM_QUEUE_MATRIX        0
#define BPW_SIM_QUEUE_VECTOR        1
#define BPW_SIM_QUEUE_LINK(t, g)    (2 + (t) * BPW_N_GROUPS + (g))
#define BPW_SIM_QUEUE_TIER(q)       (((q) - 2) / BPW_N_GROUPS)
#define BPW_SIM_QUEUE_GROUP(q)      (((q) - 2) % BPW_N_GROUPS)

typedef enum
{
  BPW_SIM_FLAG_BLOCKING = 1 << 0,  /* a transfer the issue stream waits for */
  BPW_SIM_FLAG_PIPELINE = 1 << 1,  /* a pipeline send between (virtual) stages */
  BPW_SIM_FLAG_BACKWARD = 1 << 2,  /* a pipeline send of gradients */
  BPW_SIM_FLAG_BUCKET   = 1 << 3,  /* one layer's bucket of a DP reduction */
  BPW_SIM_FLAG_STEP     = 1 << 4,  /* once per step (DP, tied embeddings) */
  BPW_SIM_FLAG_OVERLAP  = 1 << 5,  /* a TP collective overlapped with its task */
  BPW_SIM_FLAG_SYNC     = 1 << 6,  /* synchronises ranks of the column (tied embeddings) */
} BpwSimFlags;

/* One task or transfer occurrence: 48 bytes, in a flat array. */
typedef struct
{
  double   start;        /* s from the start of the step */
  double   end;
  guint32  lineage;      /* op lineage id: the task's op, or the op a transfer serves */
  guint32  item;         /* index into plan->stages[stage].tasks or .transfers */
  guint32  rank;         /* column rank (the stage), or the global rank when expanded */
  gint32   micro_batch;  /* -1: once per step */
  guint32  pred;         /* the event whose completion set the start, or BPW_SIM_NONE */
  guint16  stage;        /* plan stage that holds item */
  guint8   kind;         /* BpwSimEventKind */
  guint8   queue;        /* BPW_SIM_QUEUE_* */
  guint8   phase;        /* BpwPhase */
  guint8   chunk;        /* interleaved model chunk, else 0 */
  guint8   flags;        /* BpwSimFlags */
  guint8   part;         /* a hierarchical collective's part, 1 + its index in the order
                          * the parts run (bpw_cost_span_parts()), each on its own tier's
                          * link; 0: the whole transfer */
} BpwSimEvent;

G_STATIC_ASSERT (sizeof (BpwSimEvent) == 48);

typedef enum
{
  BPW_MEM_WEIGHTS,
  BPW_MEM_GRADIENTS,
  BPW_MEM_OPTIMIZER,
  BPW_MEM_CHECKPOINTS,    /* activations stored for backward */
  BPW_MEM_TEMPORARIES,    /* activations, gradients and recomputed copies in use */
  BPW_MEM_COMMUNICATION,  /* collective receive buffers, pipeline send buffers */
  BPW_MEM_KV_CACHE,
  BPW_N_MEM_CATEGORIES
} BpwMemoryCategory;

typedef struct
{
  gboolean  concurrent_engines;  /* matrix and vector tasks may overlap (else one stream) */
  gboolean  all_ranks;           /* expand the column to every rank of the job */
} BpwSimOptions;

/* One point of a memory occupancy curve: bytes from @time until the next point. */
typedef struct
{
  double  time;
  double  bytes[BPW_N_MEM_CATEGORIES];
  double  total;
} BpwMemorySample;

/* A buffer live at some instant (bpw_simulation_live_at). */
typedef struct
{
  gint32   tensor;       /* work-graph tensor index, -1 for a transfer's buffer */
  guint32  event;        /* transfer event for tensor == -1 */
  gint32   micro_batch;
  guint8   category;     /* BpwMemoryCategory */
  guint8   chunk;
  double   bytes;        /* per device */
  double   allocated, freed;  /* s */
} BpwLiveBuffer;

/* Memory of one stage's rank over the step. */
typedef struct
{
  double  peak;                                 /* device bytes */
  double  peak_time;
  double  at_peak[BPW_N_MEM_CATEGORIES];     /* what is live at the peak: sums to @peak */
  double  category_peak[BPW_N_MEM_CATEGORIES]; /* each category's own maximum */
  double  analytic;                             /* the plan's bound (device_total) */
} BpwSimMemory;

/* How one rank spent the step; the breakdown adds up to the step time. */
typedef struct
{
  double  breakdown_s[BPW_N_BREAKDOWNS];
  double  busy_s;          /* task time (contention included) */
  double  contention_s;    /* of exposed communication: processor-usage slowdowns, link
                            * sharing and queueing (time: the bytes do not change) */
  double  pipeline_wait_s; /* of exposed communication: waiting on pipeline transfers in flight */
  double  link_busy_s[BPW_MAPPING_MAX_TIERS];  /* per tier: time its link carries traffic */
  double  layer_s[BPW_N_LAYER_BUCKETS][BPW_N_BOTTLENECKS];  /* the step by layer type and
                                                   * class (bpw-evaluation.h); adds up to it */
} BpwSimRank;

/* How the simulated step differs from the analytic one, each part a named effect. */
typedef struct
{
  double  analytic_step_s;
  double  difference_s;    /* simulated − analytic = Σ of the effects below */
  double  bubble_s;        /* pipeline fill/drain: unequal stages, first/last stage work */
  double  overlap_s;       /* exposed communication other than contention (DP and TP overlap,
                            * pipeline sends on or off the critical cycle) */
  double  contention_s;    /* processor usage of overlapped traffic, link sharing, queueing */
  double  work_s;          /* task time on the reference rank (optimizer and DP tail of
                            * another stage in the analytic step) */
} BpwSimDifference;

struct _BpwSimulation
{
  const BpwPlan    *plan;           /* borrowed: must outlive the simulation */
  BpwSimOptions     options;
  GArray           *events;         /* BpwSimEvent, owned */
  guint32           n_ranks;        /* ranks with lanes: pp, or every device */
  guint32           n_queues;       /* per rank: 2 + tiers × groups */
  guint32          *lane_first;     /* n_ranks·n_queues + 1 offsets into lane_events */
  guint32          *lane_events;    /* event indices per lane, sorted by start */
  GArray           *critical_path;  /* guint32 event indices, in time order */
  double            step_time_s;
  gint64            reference_rank; /* the stage whose breakdown is reported */
  guint64           column_events;  /* events of one pipeline column: the first ones */
  gboolean          expanded;       /* the other ranks' copies follow the column */
  BpwSimRank       *ranks;          /* per stage (column rank) */
  BpwSimMemory     *memory;         /* per stage */
  gpointer          program;        /* SimProgram: what the replays need */
  GPtrArray        *queue_names;    /* owned strings */
};

/* Simulates one step of @plan (legal or not). Fails only for a step that cannot run (a
 * deadlock, which would be a bug, or too many events to expand to all ranks). */
BpwSimulation *bpw_simulation_new       (const BpwPlan        *plan,
                                         const BpwSimOptions  *options,
                                         GError              **error);
void           bpw_simulation_free      (BpwSimulation        *sim);

static inline const BpwSimEvent *
bpw_simulation_event (const BpwSimulation *sim, guint32 i)
{
  return &g_array_index (sim->events, BpwSimEvent, i);
}

/* Events of one lane (rank × queue), sorted by start: indices into sim->events. */
const guint32 *bpw_simulation_lane      (const BpwSimulation *sim,
                                         guint32              rank,
                                         guint32              queue,
                                         guint32             *n_events);
/* The plan stage a lane rank belongs to. */
gint64         bpw_simulation_rank_stage (const BpwSimulation *sim,
                                          guint32              rank);
/* Lane name: "matrix", "vector", or the tier's and the group's: "nvlink tp". */
const char    *bpw_simulation_queue_name (const BpwSimulation *sim,
                                          guint32              queue);
/* Event name: the op's or the transfer's name in the work graph ("attn.qkv.dgrad",
 * "tp.output_reduce"). */
const char    *bpw_simulation_event_name (const BpwSimulation *sim,
                                          const BpwSimEvent   *event);
/* FLOPs and device bytes of a task event (0 for transfers: wire bytes in @bytes, a
 * hierarchical collective's part's own on its link). */
void           bpw_simulation_event_work (const BpwSimulation *sim,
                                          const BpwSimEvent   *event,
                                          double              *flops,
                                          double              *bytes);
/* The collective a part of a hierarchical collective runs (@event->part > 0: reduce-scatter
 * or all-gather inside the node, or the outer part), and in @n_parts how many parts its
 * collective has. */
BpwCollectiveKind bpw_simulation_event_part (const BpwSimulation *sim,
                                             const BpwSimEvent   *event,
                                             guint               *n_parts);
/* How long the event takes alone: a task's cost, a transfer's time on an idle link (one
 * bucket's share for a bucketed reduction or gather; one part's for a part of a
 * hierarchical collective). A transfer's span beyond it is contention: time, not bytes. */
double         bpw_simulation_event_alone_s (const BpwSimulation *sim,
                                             const BpwSimEvent   *event);
/* Bottleneck class of an event: its task's cost class, communication for transfers. */
BpwBottleneck  bpw_simulation_event_bottleneck (const BpwSimulation *sim,
                                                const BpwSimEvent   *event);

/* Fraction of each of @n_bins equal bins of the step during which the lane is busy. */
void           bpw_simulation_utilisation (const BpwSimulation *sim,
                                           guint32              rank,
                                           guint32              queue,
                                           guint                n_bins,
                                           double              *fractions);

/* Occupancy curve of a rank's device memory: one BpwMemorySample per change, in time
 * order, the last one at the end of the step. */
GArray        *bpw_simulation_memory_curve (const BpwSimulation *sim,
                                            guint32              rank);
/* BpwLiveBuffer of everything live on @rank at @time (allocated ≤ time < freed), the
 * constant persistent state excluded (BpwSimMemory.at_peak has it by category). */
GArray        *bpw_simulation_live_at      (const BpwSimulation *sim,
                                            guint32              rank,
                                            double               time);

/* The evaluation of the simulated step with BpwEvaluation's conventions: step time and
 * breakdown of the reference rank, MFU and HFU over the simulated step, simulated peak
 * memory, memory-stall fraction by layer type over the executed tasks, the step of every
 * column rank by layer type and class (the mean over the ranks) with the MFU of each
 * layer type, energy. */
void           bpw_simulation_evaluation   (const BpwSimulation *sim,
                                            const BpwEvaluation *analytic,
                                            BpwEvaluation       *out);
void           bpw_simulation_difference   (const BpwSimulation *sim,
                                            const BpwEvaluation *analytic,
                                            BpwSimDifference    *out);
/* Fraction of the step the reference rank spends in the pipeline bubble. */
double         bpw_simulation_bubble_fraction (const BpwSimulation *sim);

/* The `bpw evaluate --json` object of a simulated step: bpw_evaluation_to_json() of @eval
 * with analytic_step_time_s, simulated_vs_analytic and a "simulation" object added. */
char          *bpw_simulation_evaluation_to_json (const BpwSimulation *sim,
                                                  const BpwEvaluation *eval,
                                                  const BpwEvaluation *analytic,
                                                  GPtrArray           *reasons);

const char    *bpw_memory_category_to_string (BpwMemoryCategory category);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwSimulation, bpw_simulation_free)

G_END_DECLS
