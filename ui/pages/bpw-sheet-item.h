/* bpw-sheet-item.h — one row of the Sheet page: an operation or transfer of a bound plan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A row is one row of the core's mapping sheet (core/binding/bpw-mapping-sheet.h, whose row struct
 * took the name BpwSheetRow, hence BpwSheetItem here): what one rank of a pipeline stage
 * executes, on which engine or link, with its FLOPs, bytes, tiling, fusion, time and
 * bottleneck, and the lineage id of the work-graph operation it implements. The strings
 * are copied, so an item outlives the plan it came from.
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
  BPW_SHEET_COLUMN_STAGE,
  BPW_SHEET_COLUMN_PHASE,
  BPW_SHEET_COLUMN_ENGINE,
  BPW_SHEET_COLUMN_FLOPS,
  BPW_SHEET_COLUMN_BYTES,
  BPW_SHEET_COLUMN_INTENSITY,
  BPW_SHEET_COLUMN_TILE,
  BPW_SHEET_COLUMN_FUSION,
  BPW_SHEET_COLUMN_PRECISION,
  BPW_SHEET_COLUMN_TIME,
  BPW_SHEET_COLUMN_PER_STEP,
  BPW_SHEET_COLUMN_STACK,
  BPW_SHEET_COLUMN_BOTTLENECK,
  BPW_SHEET_COLUMN_LINEAGE,
  BPW_N_SHEET_COLUMNS
} BpwSheetColumn;

#define BPW_TYPE_SHEET_ITEM (bpw_sheet_item_get_type ())

G_DECLARE_FINAL_TYPE (BpwSheetItem, bpw_sheet_item, BPW, SHEET_ITEM, GObject)

/* One item per row of @rows (element-type BpwSheetRow), in order
 * (element-type BpwSheetItem). */
GPtrArray      *bpw_sheet_item_list_from_sheet (const GArray   *rows);

/* When @other is the same row (operation, stage, layer, phase) with new numbers, as after
 * an edit of the blueprint: takes its values, emits "changed" and returns TRUE. Cells
 * then update their text instead of the table building new rows. */
gboolean        bpw_sheet_item_update          (BpwSheetItem   *self,
                                                BpwSheetItem   *other);

const char     *bpw_sheet_item_get_operation   (BpwSheetItem   *self);
gint64          bpw_sheet_item_get_stage       (BpwSheetItem   *self);
/* Block index, or -1 (embedding side), -2 (head side). */
gint32          bpw_sheet_item_get_layer       (BpwSheetItem   *self);
BpwPhase        bpw_sheet_item_get_phase       (BpwSheetItem   *self);
BpwLayerType    bpw_sheet_item_get_layer_type  (BpwSheetItem   *self);
gboolean        bpw_sheet_item_is_transfer     (BpwSheetItem   *self);
/* Engine, or the tier a transfer runs on. */
const char     *bpw_sheet_item_get_engine      (BpwSheetItem   *self);
/* Per execution, padding included. */
double          bpw_sheet_item_get_flops       (BpwSheetItem   *self);
/* Device-memory bytes per execution; wire bytes for transfers. */
double          bpw_sheet_item_get_bytes       (BpwSheetItem   *self);
/* Executions per step on one rank. */
double          bpw_sheet_item_get_count       (BpwSheetItem   *self);
/* Seconds per execution. */
double          bpw_sheet_item_get_time        (BpwSheetItem   *self);
/* Seconds per step on one rank: count × time, exposed time for transfers. */
double          bpw_sheet_item_get_per_step    (BpwSheetItem   *self);
guint32         bpw_sheet_item_get_lineage     (BpwSheetItem   *self);
/* Of the time per execution: what the blueprint's software stack adds beside the op's
 * semantic work (the implementation transformations), in seconds. */
double          bpw_sheet_item_get_stack_time  (BpwSheetItem   *self);

/* @needle is lower case (g_utf8_casefold); matches operation, layer type, phase, kind,
 * engine, fusion and bottleneck. An empty needle matches every row. */
gboolean        bpw_sheet_item_matches         (BpwSheetItem   *self,
                                                const char     *needle);
char           *bpw_sheet_item_format          (BpwSheetItem   *self,
                                                BpwSheetColumn  column,
                                                BpwByteUnits    units);
char           *bpw_sheet_item_dup_tooltip     (BpwSheetItem   *self,
                                                BpwSheetColumn  column);
int             bpw_sheet_item_compare         (BpwSheetItem   *a,
                                                BpwSheetItem   *b,
                                                BpwSheetColumn  column);

/* The header: short enough for every column to show at once. */
const char     *bpw_sheet_column_get_title       (BpwSheetColumn  column);
/* The name in full, where the title abbreviates it: the Columns menu's. */
const char     *bpw_sheet_column_get_name        (BpwSheetColumn  column);
/* What the column shows, in a sentence: the header's tooltip. */
const char     *bpw_sheet_column_get_description (BpwSheetColumn  column);
gboolean        bpw_sheet_column_is_numeric      (BpwSheetColumn  column);

G_END_DECLS
