/* bpw-memory-page.h — the Memory page: buffer lifetimes of one pipeline stage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The lifetimes chart of a BpwSimulationJob: occupancy by category against the capacity
 * with the peak and what is live there, and one bar per buffer; hovering a bar names the
 * buffer. A toolbar picks the stage (by default the one with the highest peak).
 */
#pragma once

#include <adwaita.h>

#include "bpw-plot-view.h"
#include "bpw-simulation-job.h"

G_BEGIN_DECLS

#define BPW_TYPE_MEMORY_PAGE (bpw_memory_page_get_type ())

G_DECLARE_FINAL_TYPE (BpwMemoryPage, bpw_memory_page, BPW, MEMORY_PAGE, GtkWidget)

void         bpw_memory_page_set_job   (BpwMemoryPage    *self,
                                        BpwSimulationJob *job);
BpwPlotView *bpw_memory_page_get_view  (BpwMemoryPage    *self);
/* The summary line ("Stage 3 · peak 30 % of capacity at 1.42 s · 72,291 buffers"). */
const char  *bpw_memory_page_get_summary (BpwMemoryPage  *self);

G_END_DECLS
