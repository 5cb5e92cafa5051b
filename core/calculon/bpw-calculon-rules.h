/* bpw-calculon-rules.h — Calculon's space as rules of the workbench's search space
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `bpw search --space calculon` searches, with the workbench's estimator, the space
 * Calculon's llm-optimal-execution enumerates (shared/docs/CALCULON.md §5): TP also
 * divides the hidden size and PP the layers; ZeRO is 0 or 2 (Calculon's optimizer
 * sharding); weights, optimizer state and activations are offloaded independently
 * (activations not under full recompute), and only with 3 or more layers per stage; the
 * fusion set is "default" (its fused activation); there is no GPipe; and instead of
 * collective algorithms the tier of each of TP, PP and DP is enumerated per plan. The
 * space is one of training runs.
 */
#pragma once

#include "bpw-search-rules.h"

G_BEGIN_DECLS

/* Static rules, for BpwSearchLimits.rules; never freed. */
const BpwSearchRules *bpw_calculon_search_rules (void);

G_END_DECLS
