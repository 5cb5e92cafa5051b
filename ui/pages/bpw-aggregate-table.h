/* bpw-aggregate-table.h — where the time of a stretch of the timeline went
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The panel beside the timeline: the event time inside the area the user dragged out (or,
 * without one, inside the time in view), by operation kind, bottleneck class and phase,
 * each row with its time, its share and its events.
 */
#pragma once

#include <gtk/gtk.h>

#include "bpw-timeline-data.h"

G_BEGIN_DECLS

#define BPW_TYPE_AGGREGATE_TABLE (bpw_aggregate_table_get_type ())

G_DECLARE_FINAL_TYPE (BpwAggregateTable, bpw_aggregate_table, BPW, AGGREGATE_TABLE, GtkWidget)

GtkWidget *bpw_aggregate_table_new           (void);
/* Shows @aggregate (nullable: nothing in view), copying what it needs. @area: it sums a
 * selected area, which the "clear-area" signal (its close button) asks to drop. */
void       bpw_aggregate_table_set_aggregate (BpwAggregateTable          *self,
                                              const BpwTimelineAggregate *aggregate,
                                              gboolean                    area);
/* The rows shown under a heading ("By kind", "By bottleneck", "By phase"): the number of
 * labels, for tests. */
guint      bpw_aggregate_table_get_n_rows    (BpwAggregateTable          *self);
/* The text of the summary line ("0 s – 7.48 s · 12 lanes · 3,210 events"). */
const char *bpw_aggregate_table_get_summary  (BpwAggregateTable          *self);

G_END_DECLS
