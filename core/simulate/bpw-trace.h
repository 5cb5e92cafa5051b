/* bpw-trace.h — a simulated step as a Chrome Trace Event file (Perfetto, chrome://tracing)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The JSON object format: {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {}}.
 * One process per rank (pid = lane rank, named after its stage), one thread per queue
 * that has events (matrix engine, vector engine, one per tier and parallel group). Every
 * event is a complete slice ("ph": "X") with microsecond "ts" and "dur" and args: lineage
 * id, micro-batch, FLOPs, bytes, bottleneck class, event index. A dependency between
 * events of different queues (an event's predecessor, BpwSimEvent.pred) is a flow: "s"
 * inside the predecessor, "f" bound to the enclosing slice ("bp": "e") of the successor,
 * both with the successor's index as id. Counter tracks ("ph": "C"): device memory by
 * category per rank, and link utilisation per tier per rank, each at most
 * @counter_points points (the memory curve keeps each bin's highest point).
 */
#pragma once

#include <gio/gio.h>

#include "bpw-simulation.h"

G_BEGIN_DECLS

typedef struct
{
  guint     counter_points;  /* points per counter track; 0: 2000 */
  gboolean  no_flows;        /* leave out the flow events */
} BpwTraceOptions;

/* Writes the trace to @stream. @options is nullable (the defaults). */
gboolean  bpw_trace_write_stream (const BpwSimulation   *sim,
                                  const BpwTraceOptions *options,
                                  GOutputStream         *stream,
                                  GCancellable          *cancellable,
                                  GError               **error);

/* Writes the trace to the file at @path (replaced atomically). */
gboolean  bpw_trace_write        (const BpwSimulation   *sim,
                                  const BpwTraceOptions *options,
                                  const char            *path,
                                  GError               **error);

G_END_DECLS
