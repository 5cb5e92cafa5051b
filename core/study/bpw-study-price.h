/* bpw-study-price.h — setting a candidate's price in place
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A price is user data with its source (bpw-study.h): the workbench sets it with the
 * same checks the reader makes, so that what it saves reads back.
 */
#pragma once

#include "bpw-study.h"

G_BEGIN_DECLS

/* FALSE with @error unless @price is set with a finite amount above zero and at most
 * BPW_BLUEPRINT_MAX_COST, a known unit and a non-empty source. */
gboolean  bpw_study_price_check         (const BpwStudyPrice  *price,
                                         GError              **error);
/* Candidate @index's price becomes a copy of @price, or none with @price NULL or unset;
 * on failure the study is unchanged. */
gboolean  bpw_study_set_candidate_price (BpwStudy             *self,
                                         guint                 index,
                                         const BpwStudyPrice  *price,
                                         GError              **error);

G_END_DECLS
