/* bpw-serve-pools.h — the settings of prefill/decode disaggregated serving
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Disaggregated serving (DistServe, Splitwise, Mooncake) runs the prefills on one pool of
 * replicas and the decodes on another, on the same blueprint: each pool has its replica
 * count and its replica's TP × PP devices (the rest of the mapping is shared), and a
 * request's KV cache moves from its prefill replica to a decode replica over a named tier
 * of the blueprint (bpw-serve-disagg.h). All zero is colocated serving.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most replicas of one pool, and the most TP or PP devices of one pool's replica. */
#define BPW_SERVE_MAX_POOL_REPLICAS 4096
#define BPW_SERVE_MAX_POOL_DEGREE   4096
/* Bytes of a tier's name kept, its terminating NUL included: the settings are plain
 * values, copied by assignment with a study's scenario. */
#define BPW_SERVE_TIER_NAME_SIZE    64

typedef struct
{
  gboolean  enabled;           /* FALSE: colocated (the rest unused) */
  gint64    prefill_replicas;  /* ≥ 1 */
  gint64    prefill_tp;        /* ≥ 1 */
  gint64    prefill_pp;        /* ≥ 1 */
  gint64    decode_replicas;
  gint64    decode_tp;
  gint64    decode_pp;
  char      kv_tier[BPW_SERVE_TIER_NAME_SIZE];  /* the blueprint tier the KV caches cross */
} BpwServePools;

/* Equal when both are colocated, or both disaggregated with the same pools and tier. */
gboolean  bpw_serve_pools_equal      (const BpwServePools *a,
                                      const BpwServePools *b);
/* Sets the tier's name; FALSE when it is empty or does not fit. */
gboolean  bpw_serve_pools_set_tier   (BpwServePools       *pools,
                                      const char          *tier);
/* Whether replica counts and degrees are from 1 to their maxima and a tier is named; when
 * not, the name of the first field out of range ("prefill_replicas", "kv_tier", ...). */
const char *bpw_serve_pools_invalid_field (const BpwServePools *pools);

G_END_DECLS
