/* bpw-timeline-page.h — the Timeline page: the simulated step, lane by lane
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The timeline chart of a BpwSimulationJob in a BpwPlotView, a toolbar (colouring,
 * counter tracks, zoom, area mode) and, beside it, where the time of the area the user
 * dragged out (or of the time in view) went.
 */
#pragma once

#include <adwaita.h>

#include "bpw-aggregate-table.h"
#include "bpw-plot-view.h"
#include "bpw-simulation-job.h"

G_BEGIN_DECLS

#define BPW_TYPE_TIMELINE_PAGE (bpw_timeline_page_get_type ())

G_DECLARE_FINAL_TYPE (BpwTimelinePage, bpw_timeline_page, BPW, TIMELINE_PAGE, GtkWidget)

/* Shows @job's timeline (nullable: nothing). */
void               bpw_timeline_page_set_job       (BpwTimelinePage  *self,
                                                    BpwSimulationJob *job);
BpwPlotView       *bpw_timeline_page_get_view      (BpwTimelinePage  *self);
BpwAggregateTable *bpw_timeline_page_get_aggregate (BpwTimelinePage  *self);
/* Recomputes the table for the time in view at once (it otherwise waits for zooming to
 * pause). */
void               bpw_timeline_page_update_aggregate (BpwTimelinePage *self);

G_END_DECLS
