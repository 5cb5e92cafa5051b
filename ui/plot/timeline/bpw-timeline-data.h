/* bpw-timeline-data.h — a simulated step as lanes of events, for the timeline chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The adapter between a BpwSimulation and the timeline plot: one lane per rank × queue
 * that has events (matrix and vector engines, one link queue per tier and parallel
 * group), each lane a slice of flat arrays sorted by start. The hot fields layout reads
 * for every visible event (start, end, the running maximum of ends, the colour keys) are
 * separate arrays; the rest (names, lineage, dependencies, work) are one 36-byte record
 * per event read only for the events a reader points at. Counter tracks: each rank's
 * device memory over the step and the link queues of each tier.
 *
 * The data copy what they need: the simulation and its plan may be freed afterwards.
 */
#pragma once

#include "bpw-correlate.h"
#include "bpw-simulation.h"

G_BEGIN_DECLS

#define BPW_TIMELINE_NONE G_MAXUINT32

/* Colour keys are taken modulo this under every colouring. */
#define BPW_TIMELINE_KEYS 16

typedef struct _BpwTimelineSummary BpwTimelineSummary;

/* What colours an event. */
typedef enum
{
  BPW_TIMELINE_COLOR_PHASE,
  BPW_TIMELINE_COLOR_BOTTLENECK,
  BPW_TIMELINE_COLOR_LAYER_TYPE,
  BPW_TIMELINE_N_COLORINGS
} BpwTimelineColorBy;

typedef struct
{
  guint32   rank;        /* lane rank of the simulation */
  gint64    stage;       /* the pipeline stage it runs */
  guint     queue;       /* BPW_SIM_QUEUE_* */
  gint      tier;        /* links: the tier; engines -1 */
  gboolean  link;
  const char *name;      /* pooled: "matrix", "nvlink tp" */
  /* What its stage runs: transformer blocks [first_layer, first_layer + n_layers), the
   * embedding, the head; n_layers -1 when not known (synthetic lanes). */
  gint64    first_layer, n_layers;
  const char *layers;    /* pooled: its blocks chunk by chunk, "0–6, 14–20"; NULL when
                          * not known */
  gboolean  embedding, head;
  guint32   first, n;    /* its events */
  double    busy_s;      /* Σ event durations */
} BpwTimelineLane;

typedef struct
{
  guint32  sim_index;    /* index of the event in the simulation */
  guint32  lineage;      /* op lineage id */
  guint32  pred;         /* the event whose end set the start (data index), or NONE */
  guint32  name;         /* into names: "attn.qkv.dgrad" */
  guint32  kind;         /* into names: the primitive or the collective ("matmul") */
  gint32   micro_batch;  /* -1: once per step */
  guint16  lane;
  guint8   transfer;
  guint8   flags;        /* BpwSimFlags */
  float    flops;        /* executed FLOPs of the task (all its executions) */
  float    bytes;        /* device bytes of a task, wire bytes of a transfer */
} BpwTimelineEvent;

G_STATIC_ASSERT (sizeof (BpwTimelineEvent) == 36);

/* A rank's device memory: total bytes from time[i] until time[i + 1]. */
typedef struct
{
  guint32  rank;
  double   peak, peak_time;
  double  *time;         /* owned */
  double  *bytes;        /* owned */
  double  *block_max;    /* owned: max of bytes over each BPW_TIMELINE_MEMORY_BLOCK samples */
  guint    n;
} BpwTimelineMemory;

/* Samples per block of BpwTimelineMemory.block_max: a column spanning many samples reads
 * whole blocks, so the memory track costs about columns × block, not the samples. */
#define BPW_TIMELINE_MEMORY_BLOCK 64

typedef struct
{
  char              *title;       /* owned */
  char              *label;       /* owned: the candidate */
  double             step_s;
  double             capacity;    /* device memory per device, bytes */
  guint32            n_ranks;
  guint              n_tiers;
  char             **tier_names;  /* owned, n_tiers */

  GArray            *lanes;       /* BpwTimelineLane, rank by rank, queue order */
  guint32            n_events;
  double            *start;       /* owned: lane by lane, by start within a lane */
  double            *end;
  double            *max_end;     /* max of end over the lane's events up to i */
  guint8            *key[BPW_TIMELINE_N_COLORINGS];  /* phase, bottleneck, layer type */
  BpwTimelineEvent  *events;      /* owned */

  GPtrArray         *names;       /* const char *, pooled in strings */
  BpwTimelineMemory *memory;      /* owned, n_ranks (NULL when not collected) */
  guint32           *critical;    /* owned: data indices of the critical path, in time order */
  guint              n_critical;
  GStringChunk      *strings;
  gpointer           builder;     /* private: arrays while events are added */

  /* Built by finish, for level of detail (bpw_timeline_data_summarize ()). */
  double             ticks_per_s; /* time is summed in ticks: see bpw_timeline_data_ticks () */
  BpwTimelineSummary *summary;    /* private */
} BpwTimelineData;

/* (transfer full): a simulation's events, lanes and counters. @title NULL: a title from
 * @label and the step. Memory curves are collected per rank when @with_memory. */
BpwTimelineData *bpw_timeline_data_new_from_simulation (const BpwSimulation *sim,
                                                        const char          *title,
                                                        const char          *label,
                                                        gboolean             with_memory);
void             bpw_timeline_data_free      (BpwTimelineData       *data);

/* Building synthetic data (tests, benchmarks): add lanes, then events lane by lane in
 * start order (events of a lane may come in any order; finish sorts them), then finish. */
BpwTimelineData *bpw_timeline_data_new       (const char            *title,
                                              double                 step_s);
guint            bpw_timeline_data_add_lane  (BpwTimelineData       *data,
                                              guint32                rank,
                                              guint                  queue,
                                              gint                   tier,
                                              const char            *name);
/* @event's lane, name and kind fields are used as given (name and kind index
 * bpw_timeline_data_intern()); @pred is a data index as added, or NONE. */
void             bpw_timeline_data_add_event (BpwTimelineData       *data,
                                              double                 start,
                                              double                 end,
                                              const guint8           keys[BPW_TIMELINE_N_COLORINGS],
                                              const BpwTimelineEvent *event);
guint32          bpw_timeline_data_intern    (BpwTimelineData       *data,
                                              const char            *str);
void             bpw_timeline_data_finish    (BpwTimelineData       *data);

static inline const char *
bpw_timeline_data_name (const BpwTimelineData *data, guint32 id)
{
  return id < data->names->len ? g_ptr_array_index (data->names, id) : "";
}

/* Measured lanes (bpw-timeline-measured.c): one lane per device of @corr (a correlation of
 * @profile with the simulation @data shows), right after its rank's modelled lanes, its
 * queue BPW_TIMELINE_QUEUE_MEASURED; matched items carry their operation's lineage and
 * colours. The step grows to the longest measured one. On finished data. */
#define BPW_TIMELINE_QUEUE_MEASURED G_MAXUINT
gboolean         bpw_timeline_data_add_measured_lanes (BpwTimelineData      *data,
                                                       const BpwProfile     *profile,
                                                       const BpwCorrelation *corr,
                                                       GError              **error);

/* First event of lane @lane that may end after @t (max_end > t), by bisection. */
guint32          bpw_timeline_data_lane_first_after (const BpwTimelineData *data,
                                                     guint                  lane,
                                                     double                 t);

/* ---- summaries, for level of detail ---- */

/* What the events [first, end) of one lane amount to under one colouring. */
typedef struct
{
  guint32  count;
  guint32  longest;                   /* the longest event (the first of equals), or NONE */
  double   longest_s;                 /* its duration; -1 when empty */
  double   max_end;                   /* -G_MAXDOUBLE when empty */
  gint64   ticks[BPW_TIMELINE_KEYS];  /* time per colour key, in ticks */
} BpwTimelineSpan;

/* Event @i's duration in ticks of 1 / data->ticks_per_s, a power of two small enough that
 * a tick is about 2^-40 of the step. Sums of ticks are exact, so they do not depend on the
 * order of adding, and a summary of blocks gives what adding event by event gives. */
static inline gint64
bpw_timeline_data_ticks (const BpwTimelineData *data, guint32 i)
{
  double t = (data->end[i] - data->start[i]) * data->ticks_per_s + 0.5;

  /* Not a number or negative (data changed by hand): no time. */
  return t >= 1 ? (gint64) MIN (t, 0x1p62) : 0;
}

/* The events [@first, @end) of one lane summed under @color_by; @span is overwritten. It
 * reads whole blocks of a multi-level summary where it can: O(log n) blocks and at most
 * a few dozen events at either end, whatever the length of the range. */
void             bpw_timeline_data_summarize        (const BpwTimelineData *data,
                                                     BpwTimelineColorBy     color_by,
                                                     guint32                first,
                                                     guint32                end,
                                                     BpwTimelineSpan       *span);
/* The first event in [@first, @end) (one lane) lasting at least @duration (end − start ≥
 * @duration), or @end when none does; skips blocks whose longest event is shorter. */
guint32          bpw_timeline_data_next_long        (const BpwTimelineData *data,
                                                     guint32                first,
                                                     guint32                end,
                                                     double                 duration);
/* The first event in [@first, @end) (one lane) ending at or after @t, or @end. */
guint32          bpw_timeline_data_next_ending      (const BpwTimelineData *data,
                                                     guint32                first,
                                                     guint32                end,
                                                     double                 t);

/* ---- area selection: the aggregate table ---- */

typedef struct
{
  const char  *label;    /* pooled in the data, or static */
  guint        key;      /* name id, bottleneck or phase */
  double       time_s;   /* Σ over the events of the part inside the area */
  guint        events;   /* events that overlap the area */
} BpwTimelineAggregateRow;

typedef struct
{
  double   t0, t1;
  guint    n_lanes;      /* lanes inside the area */
  double   busy_s;       /* Σ time_s: event time inside the area, all lanes */
  guint    events;
  GArray  *by_kind;       /* BpwTimelineAggregateRow: by primitive or collective */
  GArray  *by_name;       /* by operation name */
  GArray  *by_bottleneck;
  GArray  *by_phase;
} BpwTimelineAggregate;

/* (transfer full): the time events of lanes @lanes (NULL: every lane) spend inside
 * [@t0, @t1], each table sorted by time, largest first. */
BpwTimelineAggregate *bpw_timeline_data_aggregate (const BpwTimelineData *data,
                                                   double                 t0,
                                                   double                 t1,
                                                   const guint           *lanes,
                                                   guint                  n_lanes);
void                  bpw_timeline_aggregate_free (BpwTimelineAggregate  *aggregate);
/* (transfer full): "table,label,time_s,share,events" rows of every table. */
char                 *bpw_timeline_aggregate_to_csv (const BpwTimelineAggregate *aggregate);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwTimelineData, bpw_timeline_data_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwTimelineAggregate, bpw_timeline_aggregate_free)

G_END_DECLS
