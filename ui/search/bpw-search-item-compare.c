/* bpw-search-item-compare.c — the order of search results by one column, for sorting
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search ranks plans by its analytic estimate; the results table lets the user order
 * them by any column instead, the simulated step time above all. Numbers compare as
 * numbers (a value the plan lacks, such as the simulated time of a plan that was not
 * simulated, sorts after every known one); the other columns compare as the text shown.
 * Ties keep the search's rank, so the order is total and stable.
 */
#include "config.h"

#include <math.h>

#include "bpw-search-item.h"

/* The column's value for @item; NAN where the plan has none. */
static double
bpw_search_item_sort_key (BpwSearchItem   *item,
                          BpwSearchColumn  column)
{
  const BpwParallel *p = &bpw_search_item_get_mapping (item)->parallel;
  const BpwEvaluation *e = bpw_search_item_get_evaluation (item);

  switch (column)
    {
    case BPW_SEARCH_COLUMN_RANK:
      return bpw_search_item_get_rank (item);
    case BPW_SEARCH_COLUMN_CALCULON:
      return bpw_search_item_get_calculon_step_time (item);
    case BPW_SEARCH_COLUMN_STEP_TIME:
      return isfinite (bpw_search_item_get_estimate (item)->step_time_s)
             ? bpw_search_item_get_estimate (item)->step_time_s : NAN;
    case BPW_SEARCH_COLUMN_SIMULATED:
      return bpw_search_item_get_simulated (item) ? e->step_time_s : NAN;
    case BPW_SEARCH_COLUMN_MFU:
      return e->mfu;
    case BPW_SEARCH_COLUMN_MEMORY:
      return e->peak_bytes > 0 ? e->peak_bytes : NAN;
    case BPW_SEARCH_COLUMN_ENERGY:
      return isfinite (e->energy_j) && e->energy_j > 0 ? e->energy_j : NAN;
    case BPW_SEARCH_COLUMN_TP:
      return (double) p->tp;
    case BPW_SEARCH_COLUMN_PP:
      return (double) p->pp;
    case BPW_SEARCH_COLUMN_DP:
      return (double) p->dp;
    case BPW_SEARCH_COLUMN_EP:
      return (double) p->ep;
    case BPW_SEARCH_COLUMN_CP:
      return (double) p->cp;
    case BPW_SEARCH_COLUMN_ZERO:
      return p->zero;
    case BPW_SEARCH_COLUMN_MICRO_BATCH:
      return (double) bpw_search_item_get_mapping (item)->micro_batch;
    case BPW_SEARCH_COLUMN_SP:
    case BPW_SEARCH_COLUMN_SCHEDULE:
    case BPW_SEARCH_COLUMN_RECOMPUTE:
    case BPW_SEARCH_COLUMN_FUSION:
    case BPW_SEARCH_COLUMN_OFFLOAD:
    case BPW_SEARCH_COLUMN_TP_OVERLAP:
    case BPW_SEARCH_COLUMN_DP_OVERLAP:
    case BPW_SEARCH_COLUMN_ALGORITHMS:
    case BPW_N_SEARCH_COLUMNS:
    default:
      return NAN;
    }
}

static int
compare_numbers (double a, double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) - isnan (b);
  return (a > b) - (a < b);
}

int
bpw_search_item_compare (BpwSearchItem   *a,
                         BpwSearchItem   *b,
                         BpwSearchColumn  column)
{
  int order;

  g_return_val_if_fail (BPW_IS_SEARCH_ITEM (a) && BPW_IS_SEARCH_ITEM (b), 0);

  if (bpw_search_column_is_numeric (column))
    order = compare_numbers (bpw_search_item_sort_key (a, column),
                             bpw_search_item_sort_key (b, column));
  else
    {
      g_autofree char *x = bpw_search_item_format (a, column, BPW_BYTE_UNITS_BINARY);
      g_autofree char *y = bpw_search_item_format (b, column, BPW_BYTE_UNITS_BINARY);

      order = g_utf8_collate (x, y);
    }
  if (order != 0)
    return order;
  return compare_numbers (bpw_search_item_get_rank (a), bpw_search_item_get_rank (b));
}
