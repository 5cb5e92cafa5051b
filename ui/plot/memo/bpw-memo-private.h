/* bpw-memo-private.h — what the memo's sections share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-compare-data.h"
#include "bpw-memo.h"
#include "bpw-review-packet.h"

G_BEGIN_DECLS

typedef struct
{
  BpwStudy             *study;
  const BpwMemoOptions *options;
  BpwCompareData       *cmp;       /* owned */
  guint                 best;      /* the recommended candidate */
  BpwPlan              *plan;      /* owned, nullable: best on the compared scenario */
  BpwMemoPage           page;
  guint                 figures;   /* figures numbered so far */
} BpwMemo;

/* bpw-memo-figures.c: the charts of the best candidate, each a section. */
void  _bpw_memo_figures     (BpwMemo *memo);
/* bpw-memo-layers.c: MFU, memory stall and bottleneck classes by layer type. */
void  _bpw_memo_layers      (BpwMemo *memo);
/* bpw-memo-appendix.c: mapping-sheet excerpt, assumptions and provenance, validation. */
void  _bpw_memo_appendix    (BpwMemo *memo);
/* bpw-memo-packet.c: the review packet's sections, as its Markdown has them. */
void  _bpw_memo_packet      (BpwMemo         *memo,
                             BpwReviewPacket *packet);
/* A cell's short verdict: "meets SLA (+40%)", "fails SLA (−82%)", "illegal", "no SLA". */
const char *_bpw_memo_verdict (const BpwCompareFit *fit,
                               char                *buf,
                               gsize                size);

G_END_DECLS
