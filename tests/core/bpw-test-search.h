/* bpw-test-search.h — fixtures shared by the search tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-core.h"
#include "bpw-search.h"

G_BEGIN_DECLS

/* A small dense model whose every width divides by 8: TP 1–8 all legal. */
void            small_spec     (BpwModelSpec *spec);
void            train_scenario (BpwScenario *s, gint64 batch, gint64 seq);
/* Two fusion sets and two offload choices: the searches stay short under sanitizers. */
void            modest_limits  (BpwSearchLimits *l);
BpwBlueprint   *a100           (void);
/* A search without re-evaluation: the @top best of shard @shard of @shards. */
BpwSearchReport *run_search    (const BpwSearchSpace *space, guint top, guint threads,
                                gboolean exhaustive, gboolean pareto, guint64 shard,
                                guint64 shards);
/* @limits NULL: no limits. */
BpwSearchSpace *new_space      (const BpwModelSpec *spec, const BpwScenario *s,
                                const BpwBlueprint *bp, gint64 devices,
                                const BpwSearchLimits *limits);

G_END_DECLS
