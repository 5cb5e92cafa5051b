/* bpw-simulate-private.h — state of the event loop, shared by bpw-simulate*.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-simulation-private.h"

G_BEGIN_DECLS

typedef enum
{
  SIM_TARGET_NONE,
  SIM_TARGET_PP,       /* a slot of pp_events */
  SIM_TARGET_DP,       /* gates the rank's optimizer */
  SIM_TARGET_GATHER,   /* gates segment @target of the rank */
  SIM_TARGET_LAYER,    /* gates the first forward tasks of layer offset @target */
} SimTarget;

/* A transfer that becomes ready at @ready and is created then. */
typedef struct
{
  double   ready;
  double   duration;
  guint32  pred;
  guint32  rank;
  guint32  stage;      /* stage holding the plan transfer */
  guint32  item;
  gint32   micro_batch;
  guint32  target;
  guint8   target_kind;
  guint8   tier, group, chunk, flags;
} SimPending;

typedef struct
{
  guint32   seg, pos, sub;
  gboolean  open, blocked, done;
  double    gate;
  guint32   gate_pred;
  double    free[2];        /* matrix, vector engine (equal in serial mode) */
  guint32   last[2];
  guint32   dp_pending;     /* DP reductions and tied all-reduce the optimizer waits for */
  double    dp_ready;
  guint32   dp_last;
  guint32   last_backward;  /* index of the rank's last backward segment, or NONE */
  guint32  *forward_of;     /* [mb·chunks + chunk] → forward segment index */
  guint32  *gather_events;  /* [layer offset]: the overlapped weight gather's bucket */
  guint32   gathers_pending;
} SimRankState;

typedef struct
{
  double   time;
  guint32  seq;
  guint32  id;
  guint32  kind;
} SimHeapEntry;

typedef struct
{
  BpwSimulation *sim;
  const BpwPlan *plan;
  SimProgram    *p;
  SimRankState  *ranks;
  double        *link_free;   /* [(rank·tiers + tier)·groups + group] */
  guint32       *link_last;
  double        *nb_busy;     /* [rank·tiers + tier]: end of the latest overlapped transfer */
  double        *usage;       /* per tier: processor usage */
  guint32       *pp_events;   /* [backward][boundary][mb] */
  SimHeapEntry  *heap;
  guint          heap_len, heap_cap;
  guint32        seq;
  GArray        *pending;     /* SimPending */
  gboolean       serial;
  gboolean       dp_overlap;
  double         tied_ready[2];
  guint32        tied_pred[2];
  gint           tied_posted;
} Sim;

static inline BpwSimEvent *
_bpw_sim_ev (Sim *s, guint32 i)
{
  return &g_array_index (s->sim->events, BpwSimEvent, i);
}

static inline guint32
_bpw_sim_pp_slot (const SimProgram *p, gboolean backward, gint64 boundary, gint64 mb)
{
  return (guint32) (((backward ? 1 : 0) * p->n_stages * p->chunks + boundary) *
                    p->micro_batches + mb);
}

/* Chunk c of rank s is virtual stage c·p + s. */
static inline gint64
_bpw_sim_virtual_stage (const SimProgram *p, guint32 rank, guint chunk)
{
  return (gint64) chunk * p->n_stages + rank;
}

/* bpw-simulate-queue.c */
/* What a heap entry wakes: at equal times transfers go first. */
enum { SIM_HEAP_XFER, SIM_HEAP_RANK };

void     _bpw_sim_heap_push   (Sim *s, double time, guint kind, guint32 id);
SimHeapEntry _bpw_sim_heap_pop (Sim *s);
guint32  _bpw_sim_add_event   (Sim *s, const BpwSimEvent *e);
void     _bpw_sim_wake        (Sim *s, guint32 rank, double time);
void     _bpw_sim_post        (Sim *s, const SimPending *pending);
/* Start of a transfer of @group on @tier of @rank ready at @ready (@pred is set when the
 * group's queue was the binding constraint), and in @stretch the time sharing the tier
 * with other groups' traffic adds to @duration. */
double   _bpw_sim_reserve     (Sim *s, guint32 rank, guint tier, guint group, double ready,
                               double duration, guint32 *pred, double *stretch);
void     _bpw_sim_occupy      (Sim *s, guint32 rank, guint tier, guint group, guint32 idx,
                               gboolean overlapped);

/* bpw-simulate-transfers.c */
void     _bpw_sim_create_pending (Sim *s, guint32 id, double now);
void     _bpw_sim_post_buckets   (Sim *s, const SimStage *st, guint32 rank, double ready,
                                  guint32 pred);
void     _bpw_sim_post_gathers   (Sim *s, guint32 rank);
void     _bpw_sim_backward_done  (Sim *s, guint32 rank, double ready, guint32 pred);
void     _bpw_sim_optimizer_done (Sim *s, guint32 rank, double ready, guint32 pred);
void     _bpw_sim_post_send      (Sim *s, guint32 rank, const SimSegment *sg, double ready,
                                  guint32 pred);
void     _bpw_sim_prefetch       (Sim *s, guint32 rank, guint32 seg_index, double ready,
                                  guint32 pred);
guint32  _bpw_sim_count_dp_gates (const Sim *s, const SimStage *st);

G_END_DECLS
