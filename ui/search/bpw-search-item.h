/* bpw-search-item.h — one plan of a search's results: its decisions and headline numbers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search dialog lists the best plans of a search (at most a hundred) in a column view;
 * an item copies what a row shows out of the BpwSearchResult, so that it outlives the
 * report it came from, and keeps the mapping for "Promote to Candidate".
 */
#pragma once

#include <gio/gio.h>

#include "bpw-core.h"
#include "bpw-format.h"

G_BEGIN_DECLS

/* The columns of the results, in display order. */
typedef enum
{
  BPW_SEARCH_COLUMN_RANK,
  BPW_SEARCH_COLUMN_CALCULON,     /* Calculon's step time, which its search ranks by */
  BPW_SEARCH_COLUMN_STEP_TIME,    /* the analytic estimate the search ranked by */
  BPW_SEARCH_COLUMN_SIMULATED,    /* the simulated step of the plan, when it ran */
  BPW_SEARCH_COLUMN_MFU,
  BPW_SEARCH_COLUMN_MEMORY,       /* peak device memory of the most loaded device */
  BPW_SEARCH_COLUMN_ENERGY,       /* per step, whole job */
  BPW_SEARCH_COLUMN_TP,
  BPW_SEARCH_COLUMN_PP,
  BPW_SEARCH_COLUMN_DP,
  BPW_SEARCH_COLUMN_EP,
  BPW_SEARCH_COLUMN_CP,           /* context parallel, with its algorithm above 1 */
  BPW_SEARCH_COLUMN_SP,
  BPW_SEARCH_COLUMN_ZERO,
  BPW_SEARCH_COLUMN_MICRO_BATCH,
  BPW_SEARCH_COLUMN_SCHEDULE,
  BPW_SEARCH_COLUMN_RECOMPUTE,
  BPW_SEARCH_COLUMN_FUSION,
  BPW_SEARCH_COLUMN_OFFLOAD,
  BPW_SEARCH_COLUMN_TP_OVERLAP,
  BPW_SEARCH_COLUMN_DP_OVERLAP,
  BPW_SEARCH_COLUMN_ALGORITHMS,
  BPW_N_SEARCH_COLUMNS
} BpwSearchColumn;

#define BPW_TYPE_SEARCH_ITEM (bpw_search_item_get_type ())

G_DECLARE_FINAL_TYPE (BpwSearchItem, bpw_search_item, BPW, SEARCH_ITEM, GObject)

/* @rank counts from 1; @blueprint names the tiers of the collective algorithms. */
BpwSearchItem       *bpw_search_item_new            (guint                  rank,
                                                     const BpwSearchResult *result,
                                                     const BpwBlueprint    *blueprint);

guint                bpw_search_item_get_rank       (BpwSearchItem         *self);
/* The plan's index in its search space. */
guint64              bpw_search_item_get_index      (BpwSearchItem         *self);
const BpwMapping    *bpw_search_item_get_mapping    (BpwSearchItem         *self);
/* The analytic evaluation the search ranked the plan by. */
const BpwEvaluation *bpw_search_item_get_estimate   (BpwSearchItem         *self);
/* What the row's MFU, memory and energy show: the simulated step when the plan was
 * simulated, else the full plan's evaluation, else the estimate. */
const BpwEvaluation *bpw_search_item_get_evaluation (BpwSearchItem         *self);
gboolean             bpw_search_item_get_simulated  (BpwSearchItem         *self);
/* An item of Calculon's search (--cost-model calculon): its step time in Calculon's model,
 * which ranks it, and what its mapping approximates of Calculon's execution (nullable). */
void                 bpw_search_item_set_calculon   (BpwSearchItem         *self,
                                                     double                 step_time_s,
                                                     const char            *approximations);
/* NaN for an item of the workbench's own search. */
double               bpw_search_item_get_calculon_step_time (BpwSearchItem *self);

char                *bpw_search_item_format         (BpwSearchItem         *self,
                                                     BpwSearchColumn        column,
                                                     BpwByteUnits           units);
/* Nullable: why the plan is illegal, or what a cell abbreviates. */
char                *bpw_search_item_dup_tooltip    (BpwSearchItem         *self,
                                                     BpwSearchColumn        column);

const char          *bpw_search_column_get_title    (BpwSearchColumn        column);
gboolean             bpw_search_column_is_numeric   (BpwSearchColumn        column);
/* Ordering by @column (negative, 0, positive), ties by rank: bpw-search-item-compare.c. */
int                  bpw_search_item_compare        (BpwSearchItem         *a,
                                                     BpwSearchItem         *b,
                                                     BpwSearchColumn        column);

/* What the dialog calls each choice (translated). */
const char          *bpw_search_recompute_label     (BpwRecompute           recompute);
const char          *bpw_search_schedule_label      (BpwSchedule            schedule);
const char          *bpw_search_tp_overlap_label    (BpwTpOverlap           overlap);
const char          *bpw_search_fusion_set_label    (BpwSearchFusionSet     set);
const char          *bpw_search_offload_label       (BpwSearchOffload       offload);

/* "TP 8 · PP 8 · DP 16 · SP · ZeRO 1 · micro-batch 1 · 1F1B · selective recompute · …":
 * the decisions of @mapping in one line. */
char                *bpw_search_describe_mapping    (const BpwMapping      *mapping,
                                                     const BpwBlueprint    *blueprint);

G_END_DECLS
