/* bpw-layer-matrix.h — candidates × layer types: MFU and memory stall on one scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Compare page's view by layer type: a row per candidate, a column per layer type
 * that takes time on the scenario for any candidate (and "Other"), each cell the layer
 * type's MFU and memory-stall fraction (bpw-evaluation.h's conventions).
 */
#pragma once

#include <gtk/gtk.h>

#include "bpw-compare-data.h"

G_BEGIN_DECLS

#define BPW_TYPE_LAYER_MATRIX (bpw_layer_matrix_get_type ())

G_DECLARE_FINAL_TYPE (BpwLayerMatrix, bpw_layer_matrix, BPW, LAYER_MATRIX, GtkWidget)

GtkWidget  *bpw_layer_matrix_new      (void);
/* @data nullable: empty. Shows data->scenario. */
void        bpw_layer_matrix_set_data (BpwLayerMatrix       *self,
                                       const BpwCompareData *data);
/* Layer-type columns shown (the candidates' column not counted), and which bucket each
 * is (a BpwLayerType or BPW_LAYER_OTHER). */
guint       bpw_layer_matrix_get_n_columns (BpwLayerMatrix *self);
guint       bpw_layer_matrix_get_bucket    (BpwLayerMatrix *self,
                                            guint           column);
/* The text of the cell of @candidate in layer-type column @column. */
const char *bpw_layer_matrix_get_cell      (BpwLayerMatrix *self,
                                            guint           candidate,
                                            guint           column);

G_END_DECLS
