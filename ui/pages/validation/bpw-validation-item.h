/* bpw-validation-item.h — one row of a Validation page table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Table 1 row, a measured operation, an extra kernel or a missing operation: a few
 * texts and numbers, read by the page's columns (bpw-validation-page.c). The page makes
 * at most a few hundred, so one GObject per row is fine here.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum
{
  BPW_VALIDATION_TEXT_NAME,     /* the operation, kernel or Table 1 model */
  BPW_VALIDATION_TEXT_DETAIL,   /* layer, kind, or the decomposition */
  BPW_VALIDATION_TEXT_CLASS,    /* matrix, vector, memory... */
  BPW_VALIDATION_TEXT_REASON,   /* why it is extra or missing */
  BPW_VALIDATION_N_TEXTS
} BpwValidationText;

typedef enum
{
  BPW_VALIDATION_VALUE_COUNT,            /* occurrences, or GPUs */
  BPW_VALIDATION_VALUE_PREDICTED,        /* s, or TFLOP/s per GPU */
  BPW_VALIDATION_VALUE_MEASURED,         /* s, or the published TFLOP/s */
  BPW_VALIDATION_VALUE_ERROR,            /* predicted / measured − 1 */
  BPW_VALIDATION_VALUE_PREDICTED_FLOPS,  /* FLOP/s */
  BPW_VALIDATION_VALUE_ACHIEVED_FLOPS,   /* FLOP/s: modelled FLOPs over measured time */
  BPW_VALIDATION_VALUE_PREDICTED_BW,     /* B/s */
  BPW_VALIDATION_VALUE_ACHIEVED_BW,      /* B/s */
  BPW_VALIDATION_VALUE_CALIBRATED,       /* s on the calibrated blueprint */
  BPW_VALIDATION_VALUE_CALIBRATED_ERROR,
  BPW_VALIDATION_VALUE_START,            /* s into the step */
  BPW_VALIDATION_VALUE_FLOPS,            /* FLOPs of the modelled operation */
  BPW_VALIDATION_VALUE_STEP_PREDICTED,   /* Table 1: s per iteration */
  BPW_VALIDATION_VALUE_STEP_PUBLISHED,   /* Table 1: s implied by the published TFLOP/s */
  BPW_VALIDATION_VALUE_HELD_OUT_ERROR,   /* Table 1: leave-one-out prediction / measured − 1 */
  BPW_VALIDATION_N_VALUES
} BpwValidationValue;

#define BPW_TYPE_VALIDATION_ITEM (bpw_validation_item_get_type ())

G_DECLARE_FINAL_TYPE (BpwValidationItem, bpw_validation_item, BPW, VALIDATION_ITEM, GObject)

/* Every value NAN (shown as "—") until set. */
BpwValidationItem *bpw_validation_item_new       (const char         *name);
const char        *bpw_validation_item_get_text  (BpwValidationItem  *self,
                                                  BpwValidationText   text);
void               bpw_validation_item_set_text  (BpwValidationItem  *self,
                                                  BpwValidationText   text,
                                                  const char         *value);
double             bpw_validation_item_get_value (BpwValidationItem  *self,
                                                  BpwValidationValue  value);
void               bpw_validation_item_set_value (BpwValidationItem  *self,
                                                  BpwValidationValue  value,
                                                  double              number);

G_END_DECLS
