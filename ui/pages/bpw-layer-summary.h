/* bpw-layer-summary.h — where one evaluated step goes, layer type by layer type
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A small table, a row per layer type that takes time (and "Other": bubble, pipeline and
 * DP traffic): its time, its share of the step, its MFU, its memory-stall fraction, its
 * dominant bottleneck class and its time by class (bpw-evaluation.h's conventions).
 */
#pragma once

#include <gtk/gtk.h>

#include "bpw-evaluation.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_LAYER_SUMMARY_TYPE,
  BPW_LAYER_SUMMARY_TIME,
  BPW_LAYER_SUMMARY_SHARE,
  BPW_LAYER_SUMMARY_MFU,
  BPW_LAYER_SUMMARY_STALL,
  BPW_LAYER_SUMMARY_BOTTLENECK,
  BPW_LAYER_SUMMARY_CLASSES,
  BPW_N_LAYER_SUMMARY_COLUMNS
} BpwLayerSummaryColumn;

#define BPW_TYPE_LAYER_SUMMARY (bpw_layer_summary_get_type ())

G_DECLARE_FINAL_TYPE (BpwLayerSummary, bpw_layer_summary, BPW, LAYER_SUMMARY, GtkWidget)

GtkWidget  *bpw_layer_summary_new            (void);
/* @eval nullable: no rows. */
void        bpw_layer_summary_set_evaluation (BpwLayerSummary       *self,
                                              const BpwEvaluation   *eval);
/* Rows shown (the header not counted). */
guint       bpw_layer_summary_get_n_rows     (BpwLayerSummary       *self);
/* The text of a cell of row @row (0: the first below the header). */
const char *bpw_layer_summary_get_cell       (BpwLayerSummary       *self,
                                              guint                  row,
                                              BpwLayerSummaryColumn  column);

/* The text of one cell for @bucket of @eval (the Compare page and the memo format alike):
 * percentages as "42.1 %", "—" where there is no value. Free with g_free(). */
char       *bpw_layer_summary_format         (const BpwEvaluation   *eval,
                                              guint                  bucket,
                                              BpwLayerSummaryColumn  column);

G_END_DECLS
