/* bpw-blueprint-tier.c — the shape of an interconnect tier: a torus's per-dimension sizes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint"

#include "config.h"

#include "bpw-blueprint.h"

gint64
bpw_tier_shape_devices (const BpwTier *tier)
{
  gint64 product = 1;

  if (tier->dimensions < 1 || tier->dimensions > BPW_TIER_MAX_DIMENSIONS || tier->shape[0] <= 0)
    return 0;
  for (gint64 d = 0; d < tier->dimensions; d++)
    {
      /* Each factor and the running product stay within the tier-size bound, so the
       * product never overflows. */
      if (tier->shape[d] < 1 || tier->shape[d] > (gint64) BPW_BLUEPRINT_MAX_TIER_SIZE
          || product > (gint64) BPW_BLUEPRINT_MAX_TIER_SIZE / tier->shape[d])
        return 0;
      product *= tier->shape[d];
    }
  return product;
}

gboolean
bpw_tier_shape_valid (const BpwTier *tier)
{
  gint64 devices;

  if (tier->shape[0] == 0)
    {
      for (guint d = 1; d < BPW_TIER_MAX_DIMENSIONS; d++)
        if (tier->shape[d] != 0)
          return FALSE;
      return TRUE;
    }
  devices = bpw_tier_shape_devices (tier);
  for (gint64 d = MAX (tier->dimensions, 0); d < BPW_TIER_MAX_DIMENSIONS; d++)
    if (tier->shape[d] != 0)
      return FALSE;
  return devices > 0 && tier->size.set && (double) devices == tier->size.value;
}
