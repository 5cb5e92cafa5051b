/* bpw-facts-row.h — one scenario of a study and its facts, as an item of a list model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "bpw-core.h"
#include "bpw-format.h"

G_BEGIN_DECLS

/* The columns of the facts table, in display order. */
typedef enum
{
  BPW_FACTS_COLUMN_SCENARIO,
  BPW_FACTS_COLUMN_WORKLOAD,
  BPW_FACTS_COLUMN_PHASE,
  BPW_FACTS_COLUMN_SHAPE,
  BPW_FACTS_COLUMN_PARALLEL,
  BPW_FACTS_COLUMN_PARAMETERS,
  BPW_FACTS_COLUMN_FLOPS_MODEL,
  BPW_FACTS_COLUMN_FLOPS_HARDWARE,
  BPW_FACTS_COLUMN_WEIGHTS,
  BPW_FACTS_COLUMN_GRADIENTS,
  BPW_FACTS_COLUMN_OPTIMIZER,
  BPW_FACTS_COLUMN_ACTIVATIONS,
  BPW_FACTS_COLUMN_KV_CACHE,
  BPW_FACTS_COLUMN_CONSERVATION,
  BPW_N_FACTS_COLUMNS
} BpwFactsColumn;

#define BPW_TYPE_FACTS_ROW (bpw_facts_row_get_type ())

G_DECLARE_FINAL_TYPE (BpwFactsRow, bpw_facts_row, BPW, FACTS_ROW, GObject)

/* @facts is moved into the row (and zeroed) when @error is NULL; with an @error the row
 * carries the message and no facts. */
BpwFactsRow    *bpw_facts_row_new             (const char        *name,
                                               const char        *suite,
                                               const char        *workload,
                                               const BpwScenario *scenario,
                                               const BpwParallel *parallel,
                                               BpwFacts          *facts,
                                               const GError      *error);
const char     *bpw_facts_row_get_name        (BpwFactsRow       *self);
const char     *bpw_facts_row_get_suite       (BpwFactsRow       *self);
const char     *bpw_facts_row_get_workload    (BpwFactsRow       *self);
const BpwScenario *bpw_facts_row_get_scenario (BpwFactsRow       *self);
const BpwParallel *bpw_facts_row_get_parallel (BpwFactsRow       *self);
/* NULL when the facts could not be computed. */
const BpwFacts *bpw_facts_row_get_facts       (BpwFactsRow       *self);
const char     *bpw_facts_row_get_error       (BpwFactsRow       *self);

char           *bpw_facts_row_format          (BpwFactsRow       *self,
                                               BpwFactsColumn     column,
                                               BpwByteUnits       units);
char           *bpw_facts_row_dup_tooltip     (BpwFactsRow       *self,
                                               BpwFactsColumn     column);
int             bpw_facts_row_compare         (BpwFactsRow       *a,
                                               BpwFactsRow       *b,
                                               BpwFactsColumn     column);

const char     *bpw_facts_column_get_title    (BpwFactsColumn     column);
gboolean        bpw_facts_column_is_numeric   (BpwFactsColumn     column);

G_END_DECLS
