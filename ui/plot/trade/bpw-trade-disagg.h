/* bpw-trade-disagg.h — the disaggregated series of the serving trade curves
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * When a scenario's serving settings have prefill and decode pools, each candidate gets a
 * second series beside its colocated one: the same stream served by the pools on the
 * candidate's blueprint (each replica the candidate's mapping with the pool's TP and PP),
 * the KV caches crossing the named tier. Its devices are both pools' together, so that
 * throughput per device, per watt and per dollar compare with the colocated curve; its
 * points carry each pool's utilisation.
 */
#pragma once

#include "bpw-candidate.h"
#include "bpw-trade-data.h"

G_BEGIN_DECLS

/* Appends candidate @candidate's disaggregated series on @scenario (with its error when
 * it cannot serve: an unknown tier, a pool that does not fit). */
void    _bpw_trade_sweep_disagg       (BpwTradeData          *data,
                                       BpwStudy              *study,
                                       guint                  candidate,
                                       guint                  scenario,
                                       const BpwTradeOptions *options);
/* "disaggregated: 2 prefill replicas of TP 4, 1 decode replica of TP 8, KV over
 * infiniband", translated. */
char   *_bpw_trade_describe_pools     (const BpwServePools   *pools);

/* Shared with bpw-trade-data.c: the candidate's legend label and its modelled power. */
char   *_bpw_trade_series_label       (const char            *name,
                                       const BpwCandidateRun *run);
double  _bpw_trade_modelled_power     (const BpwCandidateRun *run);

G_END_DECLS
