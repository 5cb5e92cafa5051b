/* bpw-sweep-private.h — the sweep's storage, shared with its report writers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-sweep.h"

G_BEGIN_DECLS

typedef struct
{
  BpwSweepParam  param;
  gint           tier;      /* link_bandwidth */
  char          *name;      /* as given */
  GArray        *values;    /* double */
} Axis;

struct _BpwSweep
{
  BpwModelSpec      spec;
  BpwScenario       scenario;
  BpwBlueprint     *blueprint;   /* owned: the baseline */
  BpwMapping        base;
  gint64            devices;
  BpwSearchLimits   limits;
  GArray           *axes;        /* Axis */
  GArray           *points;      /* BpwSweepPoint */
  BpwSearchReport  *baseline;    /* owned, nullable */
  gboolean          baseline_given;  /* bpw_sweep_take_baseline(), until the next run */
  gboolean          baseline_reused; /* the last run's baseline was the one given */
};

/* Gains of @p over the baseline (NaN where unknown): total, architecture, mapping. */
void      _bpw_sweep_gains      (BpwSweep            *sweep,
                                 const BpwSweepPoint *p,
                                 double               gains[3]);
gboolean  _bpw_sweep_has_best   (const BpwSweepPoint *p);
/* bpw-sweep-param.c: "hbm_bandwidth" → BPW_SWEEP_HBM_BANDWIDTH (no tier suffix). */
gboolean  _bpw_sweep_param_from_string (const char    *name,
                                        BpwSweepParam *param);
double    _bpw_sweep_point_cost (const BpwSweepPoint *p);

G_END_DECLS
