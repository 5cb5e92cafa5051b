/* bpw-sweep-item.h — one point of a sweep's results: its parameter values and best plan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search dialog lists the points of a sweep (at most ten thousand) in a column view;
 * an item copies what a row shows out of the BpwSweepPoint, so that rows never read the
 * sweep while the dialog replaces it.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-core.h"

G_BEGIN_DECLS

/* The columns after the parameters' own (one per parameter swept), in display order. */
typedef enum
{
  BPW_SWEEP_COLUMN_POINT,         /* the point's number, from 1 */
  BPW_SWEEP_COLUMN_STEP_TIME,     /* the best plan's analytic step time */
  BPW_SWEEP_COLUMN_THROUGHPUT,    /* its tokens per second */
  BPW_SWEEP_COLUMN_GAIN,          /* over the baseline: architecture × mapping */
  BPW_SWEEP_COLUMN_ARCHITECTURE,
  BPW_SWEEP_COLUMN_MAPPING,
  BPW_SWEEP_COLUMN_LEGAL,
  BPW_SWEEP_COLUMN_PARETO,
  BPW_SWEEP_COLUMN_PLAN,          /* the best plan's decisions */
  BPW_N_SWEEP_COLUMNS
} BpwSweepColumn;

#define BPW_TYPE_SWEEP_ITEM (bpw_sweep_item_get_type ())

G_DECLARE_FINAL_TYPE (BpwSweepItem, bpw_sweep_item, BPW, SWEEP_ITEM, GObject)

/* Point @i of @sweep (after bpw_sweep_run()). */
BpwSweepItem  *bpw_sweep_item_new             (BpwSweep        *sweep,
                                               guint            i);
/* The point's index in the sweep, from 0. */
guint          bpw_sweep_item_get_index       (BpwSweepItem    *self);
gboolean       bpw_sweep_item_get_searched    (BpwSweepItem    *self);
/* A legal plan was found: the step time and the gains are known. */
gboolean       bpw_sweep_item_get_has_best    (BpwSweepItem    *self);
/* The best plan's analytic step time (what search ranked it by); NaN without one. */
double         bpw_sweep_item_get_step_time   (BpwSweepItem    *self);
gboolean       bpw_sweep_item_get_pareto      (BpwSweepItem    *self);
/* As bpw_sweep_get_gains(). */
void           bpw_sweep_item_get_gains       (BpwSweepItem    *self,
                                               double          *total,
                                               double          *architecture,
                                               double          *mapping);
double         bpw_sweep_item_get_value       (BpwSweepItem    *self,
                                               guint            param);
char          *bpw_sweep_item_format          (BpwSweepItem    *self,
                                               BpwSweepColumn   column);
/* Parameter @param's value with its unit: "4.8 TB/s", "16". */
char          *bpw_sweep_item_format_value    (BpwSweepItem    *self,
                                               guint            param);
/* Nullable: what a cell abbreviates or why it has no number. */
char          *bpw_sweep_item_dup_tooltip     (BpwSweepItem    *self,
                                               BpwSweepColumn   column);
/* "HBM 4.8 TB/s · 16 devices": the point's values, each with what it is. */
char          *bpw_sweep_item_dup_label       (BpwSweepItem    *self);

const char    *bpw_sweep_column_get_title     (BpwSweepColumn   column);
gboolean       bpw_sweep_column_is_numeric    (BpwSweepColumn   column);

/* What the workbench calls parameter @param ("HBM Bandwidth", "Link Bandwidth (nvlink)"
 * with @tier_name for link_bandwidth), translated. */
char          *bpw_sweep_param_title          (BpwSweepParam    param,
                                               const char      *tier_name);
/* @value of @param with its unit, or a device count: "4.8 TB/s", "80 GiB", "16". */
char          *bpw_sweep_param_format         (BpwSweepParam    param,
                                               double           value);

G_END_DECLS
