/* bpw-simulation-private.h — the simulator's programs, shared by the schedule's source files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A stage's program is built once from the plan (bpw-simulate-program.c): its tasks split
 * into segments — forward and backward per micro-batch and model chunk, the optimizer
 * once per step — with their dependencies inside a segment, the transfers around each
 * task, and the buffers each task allocates and frees. A rank's run is the sequence of
 * segment instances its pipeline schedule gives (bpw-simulate.c).
 */
#pragma once

#include "bpw-cost-topology.h"
#include "bpw-simulation.h"

G_BEGIN_DECLS

typedef enum
{
  SIM_SEG_FORWARD,
  SIM_SEG_BACKWARD,   /* recompute and both backward phases (ZB-H1: activation gradients) */
  SIM_SEG_OPTIMIZER,
  SIM_SEG_WEIGHT,     /* ZB-H1: the weight gradients, a pass W of their own */
  SIM_N_SEGS
} SimSegKind;

typedef enum
{
  SIM_XFER_BLOCKING_PRE,   /* the stream waits; runs before its task */
  SIM_XFER_BLOCKING_POST,  /* the stream waits; runs after its task */
  SIM_XFER_OVERLAP,        /* TP overlap: beside its task */
  SIM_XFER_PP_FORWARD,     /* templates of pipeline sends */
  SIM_XFER_PP_BACKWARD,
  SIM_XFER_DP_REDUCE,      /* per step: gradient reduction, bucketed with DP overlap */
  SIM_XFER_DP_GATHER_STEP, /* per step: ZeRO 1/2 weight all-gather after the optimizer,
                            * or with DP overlap bucketed behind the first forward */
  SIM_XFER_DP_GATHER_MB,   /* ZeRO-3: weights gathered before segments */
  SIM_XFER_TIED,           /* per step: tied-embedding all-reduce, first and last stage */
  SIM_N_XFER_CLASSES
} SimXferClass;

typedef struct
{
  double   duration;     /* cost.time_s × count */
  guint32  item;         /* index into the plan stage's tasks (= local index) */
  guint32  pos;          /* position in its segment's task list */
  guint32  dep_first;    /* into SimStage.deps: local tasks of the same segment */
  guint32  gate_first;   /* into SimStage.gates: overlapped transfers of its deps */
  guint32  xfer_first;   /* into SimStage.attached: pre, overlapped, post transfers */
  guint32  mem_first;    /* into SimStage.mem */
  guint16  dep_count;
  guint16  gate_count;
  guint16  mem_count;
  guint8   n_pre, n_overlap, n_post;
  guint8   queue;
  guint8   phase;
  guint8   seg;          /* SimSegKind */
  guint8   chunk;
  guint8   bucket;       /* 1 + layer offset whose DP bucket its end releases, 0 none */
  guint32  gather_gate;  /* 1 + layer offset whose overlapped weight gather it waits for in
                          * the first micro-batch's forward, 0 none */
} SimTask;

typedef struct
{
  double   duration;     /* time_s × count (per occurrence for the per-step classes) */
  double   usage;        /* the tier's processor usage, 0 when unknown */
  double   bytes;        /* receive buffer held while it runs */
  guint32  item;         /* index into the plan stage's transfers */
  gint32   task;         /* local task it serves, -1 none */
  guint32  pos;          /* position among its segment's per-micro-batch transfers */
  gint64   ranks;
  guint32  occurrences;  /* events per step of the per-step classes */
  guint8   klass;        /* SimXferClass */
  guint8   tier;
  guint8   group;        /* BpwGroupKind */
  guint8   seg;
  guint8   chunk;
  /* A hierarchical collective runs as its parts, one after the other, each on its own
   * tier's link (the node's for the parts inside it): their shares of @duration, in
   * order, and the wire bytes each puts on its link per occurrence. 0 parts: one
   * transfer on @tier. */
  guint8   n_parts;
  guint8   part_tier[BPW_COLLECTIVE_MAX_PARTS];
  guint8   part_kind[BPW_COLLECTIVE_MAX_PARTS];    /* BpwCollectiveKind */
  double   part_s[BPW_COLLECTIVE_MAX_PARTS];
  double   part_wire[BPW_COLLECTIVE_MAX_PARTS];
} SimXfer;

/* The service part @part of @x gets when the whole transfer gets @work (a bucket's share
 * of the step's reduction, or all of it: then exactly its part_s). */
static inline double
_bpw_sim_part_work (const SimXfer *x, guint part, double work)
{
  return x->part_s[part] * (work / x->duration);
}

/* A buffer's device bytes allocated at its task's start or freed at its end. */
typedef struct
{
  double   bytes;
  gint32   tensor;
  gint32   partner;      /* allocations: the local task whose end frees it, -1 its send */
  guint8   category;     /* BpwMemoryCategory */
  guint8   at_end;
} SimMem;

typedef struct
{
  GArray  *tasks;        /* guint32 local task indices, in op order */
  guint32  n_xfers;      /* per-micro-batch transfers of its tasks */
  GArray  *send_frees;   /* SimMem freed when its pipeline send completes */
} SimList;

typedef struct
{
  gint64   index;
  gint64   first_layer, n_layers;
  GArray  *tasks;        /* SimTask, one per plan task */
  GArray  *xfers;        /* SimXfer, one per plan transfer */
  GArray  *deps;         /* guint32 */
  GArray  *gates;        /* guint32 local transfer indices */
  GArray  *attached;     /* guint32 local transfer indices */
  GArray  *mem;          /* SimMem */
  SimList *lists;        /* [seg * chunks + chunk] */
  GArray  *step_xfers;   /* guint32: DP, tied and ZeRO-3 transfers */
  guint32  n_gather_buckets;  /* DP overlap: the ZeRO 1/2 weight gather runs in this many
                               * per-layer buckets behind the forward, 0 after the optimizer */
  double   constant[BPW_N_MEM_CATEGORIES];
  gint32   pp_send[2];   /* template transfer (forward, backward): stage << 16 | item, -1 */
  gboolean train;
} SimStage;

/* One segment instance of a rank's run. */
typedef struct
{
  guint32  task_base;    /* into SimRun.task_events */
  guint32  xfer_base;    /* into SimRun.xfer_events */
  gint32   micro_batch;
  guint8   seg;
  guint8   chunk;
  guint8   last_of_chunk;  /* the chunk's last backward segment: DP buckets */
  guint8   gathered;     /* a ZeRO-3 gather precedes it */
  guint32  gather_event;
  guint32  done_event;   /* its item that ends last */
} SimSegment;

typedef struct
{
  SimSegment *segments;
  guint32     n_segments;
  guint32    *task_events;  /* event per (segment instance, task position) */
  guint32    *xfer_events;
  guint32     n_task_slots, n_xfer_slots;
} SimRun;

typedef struct
{
  SimStage  *stages;
  SimRun    *runs;         /* per stage */
  gint64     n_stages;
  gint64     chunks;       /* v */
  gint64     micro_batches;
  guint      n_tiers;
  gboolean   train;
  gboolean   split_weight;  /* ZB-H1 training: weight gradients in SIM_SEG_WEIGHT */
} SimProgram;

/* bpw-simulate-program.c */
SimProgram *_bpw_sim_program_new     (const BpwPlan *plan);
void        _bpw_sim_program_free    (SimProgram    *program);
/* Segment instances of each rank in pipeline-schedule order. */
void        _bpw_sim_program_order   (SimProgram    *program,
                                      const BpwPlan *plan);
/* The plan transfer a template stands for. */
const BpwPlanTransfer *_bpw_sim_transfer (const BpwPlan *plan,
                                          guint          stage,
                                          guint32        item);

static inline const SimList *
_bpw_sim_list (const SimProgram *p, const SimStage *st, guint seg, guint chunk)
{
  return &st->lists[seg * p->chunks + chunk];
}

/* bpw-simulate.c: runs the programs; fills events, lanes are built afterwards. */
gboolean    _bpw_sim_run             (BpwSimulation *sim,
                                      SimProgram    *program,
                                      GError       **error);

/* The stage of a column event (the column's ranks are renumbered when expanded). */
static inline guint32
_bpw_sim_column_rank (const BpwSimulation *sim, const BpwSimEvent *e)
{
  return sim->expanded ? e->rank / (guint32) sim->plan->dist->parallel.tp : e->rank;
}

/* bpw-simulation-memory.c */
void        _bpw_simulation_compute_memory (BpwSimulation *sim);

/* bpw-simulation-metrics.c */
void        _bpw_simulation_compute_metrics (BpwSimulation *sim);

G_END_DECLS
