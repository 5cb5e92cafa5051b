/* bpw-review-packet-job.h — the review packet of a study, built off the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Building a packet searches mappings and refits the estimator: seconds. It runs in a
 * worker thread on a copy of the study taken when it starts, so edits made meanwhile do
 * not change it and it changes nothing in the window; it gives both forms of the same
 * packet, JSON and Markdown (bpw-review-packet.h).
 */
#pragma once

#include <gio/gio.h>

#include "bpw-study.h"

G_BEGIN_DECLS

void      bpw_review_packet_job_run    (BpwStudy             *study,
                                        GCancellable         *cancellable,
                                        GAsyncReadyCallback   callback,
                                        gpointer              user_data);
/* The packet as JSON and as Markdown (each nullable, transfer full), and its decision
 * ("go", "conditional", "no-go"; nullable, static). */
gboolean  bpw_review_packet_job_finish (GAsyncResult         *result,
                                        char                **json,
                                        char                **markdown,
                                        const char          **decision,
                                        GError              **error);
/* Writes the packet to @path: JSON when it ends in ".json", else Markdown. Atomic. */
gboolean  bpw_review_packet_job_write  (const char           *path,
                                        const char           *json,
                                        const char           *markdown,
                                        GError              **error);

G_END_DECLS
