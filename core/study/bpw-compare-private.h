/* bpw-compare-private.h — the comparison's storage, shared with its report writers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-compare.h"

G_BEGIN_DECLS

struct _BpwComparison
{
  BpwStudy         *study;         /* owned reference */
  guint             n_candidates;
  guint             n_scenarios;
  BpwCompareCell   *cells;         /* [candidate * n_scenarios + scenario] */
  GArray           *suites;        /* BpwCompareSuite */
  gboolean          search_empty;
  gboolean          cost_known;    /* every cell has a cost, all in @cost_unit */
  BpwPriceUnit      cost_unit;
};

G_END_DECLS
