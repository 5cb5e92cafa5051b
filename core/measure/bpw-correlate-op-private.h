/* bpw-correlate-op-private.h — what lies behind a modelled op of a correlation
 * (bpw-correlate-op.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-correlate.h"
#include "bpw-work-graph.h"

G_BEGIN_DECLS

/* The work-graph op and the dist task behind a modelled task event (NULL for transfers). */
const BpwOp  *_bpw_correlate_graph_op (const BpwCorrelation *corr,
                                       const BpwModelledOp  *op);
const char   *_bpw_correlate_op_name  (const BpwCorrelation *corr,
                                       const BpwModelledOp  *op);
/* The op's per-rank matmul shape; FALSE when it is no matmul. */
gboolean      _bpw_correlate_op_shape (const BpwCorrelation *corr,
                                       const BpwModelledOp  *op,
                                       double               *batch,
                                       double               *m,
                                       double               *n,
                                       double               *k);

/* Elements of the op's largest input on its rank; 0 when unknown (split over TP or
 * ZeRO ranks, or a transfer). */
double        _bpw_correlate_op_numel (const BpwCorrelation *corr,
                                       const BpwModelledOp  *op);

G_END_DECLS
