/* bpw-serve-pools.c — the settings of prefill/decode disaggregated serving
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-serve"

#include "config.h"

#include "bpw-serve-pools.h"

#include <string.h>

gboolean
bpw_serve_pools_equal (const BpwServePools *a,
                       const BpwServePools *b)
{
  if (!a->enabled || !b->enabled)
    return !a->enabled == !b->enabled;
  return a->prefill_replicas == b->prefill_replicas && a->prefill_tp == b->prefill_tp &&
         a->prefill_pp == b->prefill_pp && a->decode_replicas == b->decode_replicas &&
         a->decode_tp == b->decode_tp && a->decode_pp == b->decode_pp &&
         strcmp (a->kv_tier, b->kv_tier) == 0;
}

gboolean
bpw_serve_pools_set_tier (BpwServePools *pools,
                          const char    *tier)
{
  if (tier == NULL || *tier == '\0' || strlen (tier) >= sizeof pools->kv_tier)
    return FALSE;
  g_strlcpy (pools->kv_tier, tier, sizeof pools->kv_tier);
  return TRUE;
}

const char *
bpw_serve_pools_invalid_field (const BpwServePools *p)
{
  const struct { const char *name; gint64 value, top; } fields[] = {
    { "prefill_replicas", p->prefill_replicas, BPW_SERVE_MAX_POOL_REPLICAS },
    { "prefill_tp", p->prefill_tp, BPW_SERVE_MAX_POOL_DEGREE },
    { "prefill_pp", p->prefill_pp, BPW_SERVE_MAX_POOL_DEGREE },
    { "decode_replicas", p->decode_replicas, BPW_SERVE_MAX_POOL_REPLICAS },
    { "decode_tp", p->decode_tp, BPW_SERVE_MAX_POOL_DEGREE },
    { "decode_pp", p->decode_pp, BPW_SERVE_MAX_POOL_DEGREE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (fields[i].value < 1 || fields[i].value > fields[i].top)
      return fields[i].name;
  if (p->kv_tier[0] == '\0')
    return "kv_tier";
  return NULL;
}
