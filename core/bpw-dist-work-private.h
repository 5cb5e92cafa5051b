/* bpw-dist-work-private.h — helpers shared by the distribution's source files
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

guint64  _bpw_dist_work_tp_parts           (const BpwParallel  *parallel,
                                            const BpwModelSpec *spec,
                                            BpwSplit            split);
gint64   _bpw_dist_work_stage_of_layer     (const BpwDistWork  *dist,
                                            gint64              layer);
guint64  _bpw_dist_work_tensor_parts       (const BpwDistWork  *dist,
                                            const BpwTensor    *tensor);
guint64  _bpw_dist_work_tensor_rank_bytes  (const BpwDistWork  *dist,
                                            const BpwTensor    *tensor);
void     _bpw_dist_work_add_collectives    (BpwDistWork        *dist);
void     _bpw_dist_work_compute_memory     (BpwDistWork        *dist);

G_END_DECLS
