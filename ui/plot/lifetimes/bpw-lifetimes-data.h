/* bpw-lifetimes-data.h — every buffer of one simulated rank, for the lifetimes chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The adapter between a BpwSimulation and the buffer lifetimes plot: one interval per
 * buffer per memory level (device memory from the simulation's replay; the persistent
 * state as one interval per category over the whole step; host memory when the plan
 * offloads), grouped by category, each buffer on a track of its group so that no two
 * buffers of a track overlap (first fit by allocation time: as few tracks as the most
 * buffers a category holds at once). Beside them the occupancy curve by category, the
 * capacity, and the peak with what is live there.
 */
#pragma once

#include "bpw-simulation.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_LIFETIME_DEVICE,
  BPW_LIFETIME_HOST,
  BPW_N_LIFETIME_LEVELS
} BpwLifetimeLevel;

typedef struct
{
  double   allocated, freed;   /* s; persistent state [0, step] */
  double   bytes;              /* per device */
  guint32  lineage;            /* op that allocates it; BPW_SIM_NONE for persistent state */
  guint32  name;               /* into names: the tensor ("attn.qkv.out") or the transfer */
  guint32  op;                 /* into names: the operation that allocates it */
  gint32   micro_batch;        /* -1: once per step or persistent */
  guint32  track;              /* within its group */
  guint8   category;           /* BpwMemoryCategory */
  guint8   level;              /* BpwLifetimeLevel */
  guint8   group;              /* index into groups */
  guint8   persistent;
  guint8   at_peak;            /* live at the peak (allocated ≤ peak < freed) */
} BpwLifetimeBuffer;

typedef struct
{
  BpwLifetimeLevel   level;
  BpwMemoryCategory  category;
  guint32            first, n;      /* its buffers (by allocation time) */
  guint32            tracks;        /* tracks its buffers are packed on */
  double             peak_bytes;    /* the most it holds at once */
  double             at_peak;       /* what it holds at the rank's peak */
} BpwLifetimeGroup;

typedef struct
{
  char          *title;        /* owned */
  char          *label;        /* owned: the candidate */
  guint32        rank;         /* lane rank of the simulation */
  gint64         stage;
  double         step_s;
  double         capacity;     /* device bytes per device */
  double         peak, peak_time;
  double         at_peak[BPW_N_MEM_CATEGORIES];
  double         host_bytes;   /* offloaded state on host memory, per device */
  GArray        *buffers;      /* BpwLifetimeBuffer, group by group */
  GArray        *groups;       /* BpwLifetimeGroup, level then category order */
  GArray        *curve;        /* BpwMemorySample: device occupancy by category */
  GPtrArray     *names;        /* const char *, pooled in strings */
  GStringChunk  *strings;
  GHashTable    *interned;     /* string → id + 1 */
} BpwLifetimesData;

/* Rank @rank of @sim (-1: the one with the highest peak). NULL with @error for a rank
 * out of range. */
BpwLifetimesData *bpw_lifetimes_data_new_from_simulation (const BpwSimulation *sim,
                                                          gint64               rank,
                                                          const char          *title,
                                                          const char          *label,
                                                          GError             **error);
void              bpw_lifetimes_data_free    (BpwLifetimesData       *data);

/* Building synthetic data (tests): add buffers (track, group and at_peak are computed),
 * a curve and the peak, then finish. */
BpwLifetimesData *bpw_lifetimes_data_new     (const char             *title,
                                              double                  step_s,
                                              double                  capacity);
guint32           bpw_lifetimes_data_intern  (BpwLifetimesData       *data,
                                              const char             *str);
void              bpw_lifetimes_data_add     (BpwLifetimesData       *data,
                                              const BpwLifetimeBuffer *buffer);
/* Groups, tracks and the at-peak flags (the peak is the curve's largest total when the
 * data has none yet). */
void              bpw_lifetimes_data_finish  (BpwLifetimesData       *data);

static inline const char *
bpw_lifetimes_data_name (const BpwLifetimesData *data, guint32 id)
{
  return id < data->names->len ? g_ptr_array_index (data->names, id) : "";
}

const char       *bpw_lifetime_category_name (BpwMemoryCategory       category);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwLifetimesData, bpw_lifetimes_data_free)

G_END_DECLS
