/* bpw-study-pools.h — a scenario's disaggregated serving pools in a study file
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "serving": { "pools": { "prefill_replicas": 2, "prefill_tp": 4, "prefill_pp": 1,
 *                         "decode_replicas": 1, "decode_tp": 8, "decode_pp": 1,
 *                         "kv_tier": "infiniband" } }
 * The pools' replica counts and kv_tier are required, TP and PP default to 1; the tier is
 * checked against a candidate's blueprint when its serving runs (bpw_serve_link_lookup).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "bpw-json-doc.h"
#include "bpw-serve-pools.h"
#include "bpw-study.h"

G_BEGIN_DECLS

/* Reads @serving's optional "pools" member (@path is the serving object's path) into
 * @pools, enabled when present; errors name file:line:col and the field. */
gboolean  bpw_study_read_pools  (BpwJsonDoc     *doc,
                                 JsonObject     *serving,
                                 const char     *path,
                                 BpwServePools  *pools,
                                 GPtrArray      *warnings,
                                 GError        **error);
/* Writes the "pools" member when @pools is enabled (inside the serving object). */
void      bpw_study_write_pools (JsonBuilder         *builder,
                                 const BpwServePools *pools);

/* Scenario @index's serving settings become @serving; FALSE with an error naming the
 * field when its pools are enabled with a count, degree or tier out of range. */
gboolean  bpw_study_set_scenario_serving (BpwStudy               *study,
                                          guint                   index,
                                          const BpwServeSettings *serving,
                                          GError                **error);

G_END_DECLS
