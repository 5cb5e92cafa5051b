/* bpw-sheet-item.h — one row of the Sheet page: an operation and what it costs per step
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Today a row is one operation of the scenario's work graph, merged over the layers where
 * it recurs unchanged (a dense model repeats every block operation once per layer). The
 * core's mapping sheet (core/bpw-mapping-sheet.h: engine, tiling, fusion, time, bottleneck
 * per operation of a bound plan) is meant to replace this source; its row struct took the
 * name BpwSheetRow, hence BpwSheetItem here. Columns are an enum so that the mapping sheet's
 * columns can be appended without touching the page.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-core.h"
#include "bpw-format.h"

G_BEGIN_DECLS

/* The columns of the sheet, in display order. */
typedef enum
{
  BPW_SHEET_COLUMN_OPERATION,
  BPW_SHEET_COLUMN_LAYER_TYPE,
  BPW_SHEET_COLUMN_PHASE,
  BPW_SHEET_COLUMN_PRIMITIVE,
  BPW_SHEET_COLUMN_SHAPE,
  BPW_SHEET_COLUMN_RUNS,
  BPW_SHEET_COLUMN_FLOPS,
  BPW_SHEET_COLUMN_BYTES_READ,
  BPW_SHEET_COLUMN_BYTES_WRITTEN,
  BPW_SHEET_COLUMN_INTENSITY,
  BPW_N_SHEET_COLUMNS
} BpwSheetColumn;

#define BPW_TYPE_SHEET_ITEM (bpw_sheet_item_get_type ())

G_DECLARE_FINAL_TYPE (BpwSheetItem, bpw_sheet_item, BPW, SHEET_ITEM, GObject)

/* The operations of @graph merged over identical layers, in graph order
 * (element-type BpwSheetItem). Totals are per step, whole job. */
GPtrArray      *bpw_sheet_item_list_from_graph (const BpwWorkGraph *graph);

const char     *bpw_sheet_item_get_operation   (BpwSheetItem        *self);
BpwPhase        bpw_sheet_item_get_phase       (BpwSheetItem        *self);
BpwLayerType    bpw_sheet_item_get_layer_type  (BpwSheetItem        *self);
BpwPrimitive    bpw_sheet_item_get_primitive   (BpwSheetItem        *self);
/* Executions per step (layers × micro-batches). */
guint64         bpw_sheet_item_get_runs        (BpwSheetItem        *self);
BpwU128         bpw_sheet_item_get_flops       (BpwSheetItem        *self);
BpwU128         bpw_sheet_item_get_bytes_read  (BpwSheetItem        *self);
BpwU128         bpw_sheet_item_get_bytes_written (BpwSheetItem      *self);

/* @needle is lower case (g_utf8_casefold); matches operation, layer type, phase and
 * primitive. An empty needle matches every row. */
gboolean        bpw_sheet_item_matches         (BpwSheetItem        *self,
                                               const char         *needle);
char           *bpw_sheet_item_format          (BpwSheetItem        *self,
                                               BpwSheetColumn      column,
                                               BpwByteUnits        units);
char           *bpw_sheet_item_dup_tooltip     (BpwSheetItem        *self,
                                               BpwSheetColumn      column);
int             bpw_sheet_item_compare         (BpwSheetItem        *a,
                                               BpwSheetItem        *b,
                                               BpwSheetColumn      column);

const char     *bpw_sheet_column_get_title    (BpwSheetColumn      column);
gboolean        bpw_sheet_column_is_numeric   (BpwSheetColumn      column);

G_END_DECLS
