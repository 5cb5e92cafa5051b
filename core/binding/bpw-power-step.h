/* bpw-power-step.h — the energy of a step and the power cap's throttle
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every device idles through the step; on top of that, the dynamic energy of its work (FLOPs,
 * bytes and wire bytes at the blueprint's energy figures or, without energy per FLOP,
 * (TDP − idle) over the busy time).
 *
 * The power cap. At a fixed energy per FLOP and per byte, dynamic power is proportional to
 * the rate work runs at, and the dynamic energy of a step does not change when clocks drop;
 * only the time it spreads over does. A step whose modelled average power per device P
 * exceeds the cap C therefore runs its work at (C − I) / (P − I) of its rate (I: idle power)
 * and lasts
 *
 *     T' = E_dynamic / (N · (C − I)) = T · (P − I) / (C − I),
 *
 * drawing exactly C. The added time T' − T is compute-bound time: throttled clocks slow the
 * engines. Without a cap, the TDP bounds the estimate of the average power instead (a
 * thermal rating, not a limit that stretches the step).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  double step_s;           /* the step, stretched where the cap throttles */
  double throttle_s;       /* the stretch: compute-bound time the cap adds, 0 when none */
  double energy_j;         /* whole job */
  double average_power_w;  /* per device */
} BpwPowerStep;

/* @idle_w, @tdp_w, @cap_w: per device, NaN when unknown or unset. @dynamic_j: the dynamic
 * energy of the whole job's step, NaN when the blueprint has no energy per FLOP; then
 * @busy_s (device-seconds of task time) at (TDP − idle) stands in. FALSE, with @out's
 * energy and power NaN and its step @step_s, when the energy cannot be known (no idle
 * power, or neither energy per FLOP nor a TDP, or no step). */
gboolean bpw_power_step (double        idle_w,
                         double        tdp_w,
                         double        cap_w,
                         double        devices,
                         double        step_s,
                         double        dynamic_j,
                         double        busy_s,
                         BpwPowerStep *out);

G_END_DECLS
