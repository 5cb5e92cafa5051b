/* bpw-plan-collectives.h — the collective algorithm a plan chose, per group, kind and tier
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-plan.h"
#include "bpw-json-writer.h"

G_BEGIN_DECLS

/* Writes the plan's "collectives" array: one object per distinct (group, kind, tier,
 * ranks) among its transfers, with the algorithm binding chose for it (the mapping's, or
 * the cheapest on the group's span: bpw-cost-topology.h) and the tier's topology. In the
 * order the transfers first appear. */
void  bpw_plan_write_collectives (BpwJsonWriter *w,
                                  const BpwPlan *plan);

G_END_DECLS
