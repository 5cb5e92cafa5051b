/* bpw-power-step.c — the energy of a step and the power cap's throttle
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-power-step"

#include "config.h"

#include "bpw-power-step.h"

#include <math.h>

gboolean
bpw_power_step (double        idle_w,
                double        tdp_w,
                double        cap_w,
                double        devices,
                double        step_s,
                double        dynamic_j,
                double        busy_s,
                BpwPowerStep *out)
{
  double dynamic = dynamic_j;

  g_return_val_if_fail (out != NULL, FALSE);

  *out = (BpwPowerStep) { .step_s = step_s, .energy_j = NAN, .average_power_w = NAN };
  if (isnan (idle_w) || !(step_s > 0) || !(devices > 0))
    return FALSE;
  if (isnan (dynamic))
    {
      if (isnan (tdp_w))
        return FALSE;
      dynamic = (tdp_w - idle_w) * busy_s;
    }

  out->energy_j = idle_w * devices * step_s + dynamic;
  out->average_power_w = out->energy_j / (devices * step_s);
  if (!isnan (cap_w) && cap_w > idle_w && out->average_power_w > cap_w)
    {
      out->step_s = dynamic / (devices * (cap_w - idle_w));
      out->throttle_s = out->step_s - step_s;
      out->energy_j = idle_w * devices * out->step_s + dynamic;
      out->average_power_w = cap_w;
    }
  else if (isnan (cap_w) && !isnan (tdp_w) && out->average_power_w > tdp_w)
    {
      out->average_power_w = tdp_w;
      out->energy_j = tdp_w * devices * step_s;
    }
  return TRUE;
}
