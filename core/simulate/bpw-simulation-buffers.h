/* bpw-simulation-buffers.h — every buffer a simulated rank allocates over the step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The buffer lifetimes chart draws one interval per buffer; bpw_simulation_live_at()
 * answers for one instant by filtering this list. It walks the rank's run once: a
 * task allocates the buffers it produces when it starts, the task that reads them last
 * frees them when it ends (a pipeline send's buffer when the send ends), and a transfer
 * holds its receive buffer while it runs.
 */
#pragma once

#include "bpw-simulation.h"

G_BEGIN_DECLS

/* (transfer full): BpwLiveBuffer of every buffer of lane rank @rank over the step, in the
 * order of its run (segment instances, then each segment's tasks), the receive buffers
 * of transfers last; the constant persistent state excluded (BpwSimMemory has it by
 * category). bpw_simulation_live_at (sim, rank, t) returns those of them with
 * allocated ≤ t < freed. */
GArray  *bpw_simulation_buffers (const BpwSimulation *sim,
                                 guint32              rank);

G_END_DECLS
