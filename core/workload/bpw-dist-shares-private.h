/* bpw-dist-shares-private.h — how a distribution divides tensors and layers over its ranks
 * (bpw-dist-shares.c), and the rounding and saturating arithmetic of per-rank counts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-dist-work.h"

G_BEGIN_DECLS

/* Shares are rounded up: the most loaded rank holds the remainder. */
static inline guint64
ceil_div (guint64 x, guint64 y)
{
  return x / y + (x % y != 0);
}

/* Byte sums per rank saturate at G_MAXUINT64 instead of wrapping; bpw_dist_work_new()
 * refuses a distribution with a saturated count (BPW_ERROR_OVERFLOW). */
static inline guint64
sat_add (guint64 x, guint64 y)
{
  guint64 r;

  return __builtin_add_overflow (x, y, &r) ? G_MAXUINT64 : r;
}

static inline guint64
sat_mul (guint64 x, guint64 y)
{
  guint64 r;

  return __builtin_mul_overflow (x, y, &r) ? G_MAXUINT64 : r;
}

guint64  _bpw_dist_work_tp_parts           (const BpwParallel  *parallel,
                                            const BpwModelSpec *spec,
                                            BpwSplit            split);
gint64   _bpw_dist_work_stage_of_layer     (const BpwDistWork  *dist,
                                            gint64              layer);
guint64  _bpw_dist_work_tensor_parts       (const BpwDistWork  *dist,
                                            const BpwTensor    *tensor);
guint64  _bpw_dist_work_tensor_rank_bytes  (const BpwDistWork  *dist,
                                            const BpwTensor    *tensor);

G_END_DECLS
