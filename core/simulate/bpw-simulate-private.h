/* bpw-simulate-private.h — state of the event loop, shared by bpw-simulate*.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-link-share.h"
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
  guint32  source_seg; /* 1 + the rank's segment whose end sets @ready, 0 none */
  guint32  epoch;      /* Sim.epoch when @ready was read */
  guint8   target_kind;
  guint8   tier, group, chunk, flags;
} SimPending;

typedef struct
{
  guint32   seg, pos, sub;
  gboolean  open, blocked, done;
  double    gate;
  guint32   gate_pred;
  guint32   gate_epoch;     /* Sim.epoch when @gate was read */
  double    free[2];        /* matrix, vector engine (equal in serial mode) */
  guint32   last[2];
  guint32   dp_pending;     /* DP reductions and tied all-reduce the optimizer waits for */
  double    dp_ready;
  guint32   dp_last;
  GArray   *dp_events;      /* guint32: the DP reductions and tied all-reduce created */
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

/* One rank's port on one tier: the transfers not yet finished on it, in arrival order,
 * and what its groups' finished transfers leave behind (bpw-link-share.h). */
typedef struct
{
  BpwLinkFlow  *flows;
  guint32      *events;      /* each flow's event */
  guint32      *preds;       /* the event that made each flow ready */
  guint         n, cap;
  double        clock;       /* the flows are served up to here */
  double        group_free[BPW_LINK_MAX_GROUPS];
  guint32       group_last[BPW_LINK_MAX_GROUPS];
} SimLink;

G_STATIC_ASSERT (BPW_N_GROUPS <= BPW_LINK_MAX_GROUPS);

typedef struct
{
  BpwSimulation *sim;
  const BpwPlan *plan;
  SimProgram    *p;
  SimRankState  *ranks;
  SimLink       *links;       /* [rank·tiers + tier] */
  BpwLinkFlow   *scratch;     /* a link's flows, planned to their ends */
  guint          scratch_cap;
  double         now;         /* the heap's time */
  guint32        epoch;       /* counts moves of a created transfer's end: sharing with a
                               * later arrival slowed it; what was read before re-reads */
  double        *nb_busy;     /* [rank·tiers + tier]: end of the latest overlapped transfer */
  double        *usage;       /* per tier: processor usage */
  guint32       *pp_events;   /* [backward][boundary][mb] */
  SimHeapEntry  *heap;
  guint          heap_len, heap_cap;
  guint32        seq;
  GArray        *pending;     /* SimPending */
  GArray        *moved_parts; /* guint32: parts of a hierarchical collective whose ends
                               * moved, whose next parts are to follow them */
  gboolean       settling;
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
/* Puts the transfer event @idx (ready at its start, made ready by its pred) on its link
 * of @tier of @rank with @work s of service, ending no earlier than @floor (0 none), and
 * plans the link again: the event's start, end and pred are its share's, and the ends of
 * the transfers it shares with move (Sim.epoch counts it). */
void     _bpw_sim_link_add    (Sim *s, guint32 rank, guint tier, guint group, guint32 idx,
                               double work, double floor);
/* Moves the transfer @idx on its link to be ready at @ready and end no earlier than
 * @floor (pipe overlap: its last tile follows the task's). */
void     _bpw_sim_link_pin    (Sim *s, guint32 rank, guint tier, guint32 idx, double ready,
                               double floor);
/* Creates the transfer event @e of template @x (its start the ready time) of @rank with
 * @work s of service: one event on @tier's link, or for a hierarchical collective one per
 * part, consecutive, each on its part's tier and ready when the part before it ends (and
 * kept so when that end moves). Returns the event that ends the transfer (its last part). */
guint32  _bpw_sim_link_add_transfer (Sim *s, guint32 rank, guint tier, guint group,
                                     const SimXfer *x, const BpwSimEvent *e, double work);
/* When @group's transfers on the link end (the last one's event in @pred). */
double   _bpw_sim_link_group_free (Sim *s, guint32 rank, guint tier, guint group,
                                   guint32 *pred);
/* The end of segment @seg of @rank: @done, or the end of one of its events if later
 * (@pred set to it). */
double   _bpw_sim_segment_done (Sim *s, guint32 rank, guint32 seg, double done,
                                guint32 *pred);

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
