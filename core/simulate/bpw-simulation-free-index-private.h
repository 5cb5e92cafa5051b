/* bpw-simulation-free-index-private.h — when each buffer of a simulated rank is freed
 * (bpw-simulation-free-index.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Used by bpw_simulation_buffers() (bpw-simulation-buffers.c), whose list
 * bpw_simulation_live_at() filters: one rule for every free.
 */
#pragma once

#include "bpw-simulation-private.h"

G_BEGIN_DECLS

/* Where the buffers of a rank's segment instances are freed: segment instances and
 * pipeline sends by (kind, micro-batch, chunk). */
typedef struct
{
  const SimProgram *p;
  guint32          *segment;    /* [seg][mb][chunk] → segment instance */
  double           *send_end;   /* [backward][mb][chunk] → end of its pipeline send */
} SimFreeIndex;

/* Builds the index of stage rank @rank of @sim; release it with
 * _bpw_sim_free_index_clear(). */
void    _bpw_sim_free_index_init  (SimFreeIndex        *ix,
                                   const BpwSimulation *sim,
                                   guint32              rank);
void    _bpw_sim_free_index_clear (SimFreeIndex        *ix);
/* When the buffer allocated by @m in segment instance @sg is freed. */
double  _bpw_sim_free_time        (const BpwSimulation *sim,
                                   const SimFreeIndex  *ix,
                                   const SimStage      *st,
                                   const SimRun        *run,
                                   const SimSegment    *sg,
                                   const SimMem        *m);

G_END_DECLS
