/* bpw-overview-item.h — one candidate × scenario line of the Overview page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every number of an item is filled in one place, bpw_overview_item_new(), in the worker
 * thread: the hardware-independent facts of the scenario (devices, parameters, model FLOPs,
 * memory per device), the blueprint's device memory, and the core's evaluation of the
 * candidate's mapping (step time or TTFT/TPOT, MFU, peak memory, bottleneck, SLA).
 */
#pragma once

#include <gio/gio.h>

#include "bpw-core.h"
#include "bpw-facts-row.h"
#include "bpw-format.h"

G_BEGIN_DECLS

/* Display order. */
typedef enum
{
  BPW_OVERVIEW_COLUMN_CANDIDATE,
  BPW_OVERVIEW_COLUMN_SCENARIO,
  BPW_OVERVIEW_COLUMN_PHASE,
  BPW_OVERVIEW_COLUMN_DEVICES,
  /* Facts of the scenario: shown, with the phase, until candidates are evaluated. */
  BPW_OVERVIEW_COLUMN_PARAMETERS,
  BPW_OVERVIEW_COLUMN_MODEL_FLOPS,
  /* From the evaluation: shown once an item has one. */
  BPW_OVERVIEW_COLUMN_LATENCY,
  BPW_OVERVIEW_COLUMN_TPOT,
  BPW_OVERVIEW_COLUMN_MFU,
  /* Modelled energy of a step (whole job) and the tokens it processes per joule. */
  BPW_OVERVIEW_COLUMN_ENERGY,
  BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE,
  /* Peak memory from the evaluation, else the facts' memory per device. */
  BPW_OVERVIEW_COLUMN_MEMORY,
  BPW_OVERVIEW_COLUMN_CAPACITY,
  BPW_OVERVIEW_COLUMN_MEMORY_SHARE,
  BPW_OVERVIEW_COLUMN_BOTTLENECK,
  BPW_OVERVIEW_COLUMN_SLA,
  BPW_N_OVERVIEW_COLUMNS
} BpwOverviewColumn;

typedef enum
{
  BPW_SLA_NONE,     /* the scenario sets no target the evaluation can judge */
  BPW_SLA_MET,
  BPW_SLA_MISSED,
} BpwSlaResult;

/* The evaluation's headline numbers for one candidate on one scenario (DESIGN.md,
 * `bpw evaluate --json`). Times in seconds (0 where the scenario has none), memory in
 * bytes. */
typedef struct
{
  gboolean      legal;
  const char   *reason;        /* nullable: why the plan is illegal, or why it failed */
  gboolean      failed;        /* no evaluation could be made (see reason) */
  double        step_time_s;
  double        ttft_s;
  double        tpot_s;
  double        mfu;           /* [0, 1] */
  guint64       peak_bytes;    /* on the most loaded device */
  const char   *bottleneck;    /* one of DESIGN.md's bottleneck classes */
  BpwSlaResult  sla;
  /* Modelled, not measured: idle power over the step plus the work at the blueprint's
   * energy figures (bpw-evaluation.h). NaN when the blueprint cannot price energy. */
  double        energy_j;          /* per step, whole job */
  double        tokens_per_joule;
  double        power_w;           /* whole job: energy_j ÷ step time */
  const char   *energy_source;     /* nullable: the blueprint's figures and their status */
} BpwOverviewEvaluation;

/* One implementation transformation of the candidate's plan (bpw-plan.h): kernels, bytes
 * and time that the blueprint's software stack adds beside the semantic work, whole job
 * per step, as `bpw evaluate` lists them under "Transformations". */
typedef struct
{
  char   *name;          /* "amp_cast", "launch_gaps" ... */
  char   *description;   /* the core's sentence */
  double  bytes;         /* added device-memory traffic */
  double  kernels;       /* kernels it launches */
  double  time_s;        /* device-seconds, summed over every rank */
} BpwOverviewTransformation;

/* What one item is computed from; read in the worker thread. */
typedef struct
{
  const char            *candidate;
  const char            *blueprint_ref;  /* bundled name or path, as the study names it */
  const BpwCandidateRun *run;            /* nullable: no evaluation wanted */
  const char            *run_error;      /* nullable: why @run could not be set up; its
                                          * blueprint, when loaded, still counts */
  BpwFactsRow           *scenario;       /* the scenario and its facts */
} BpwOverviewInputs;

#define BPW_TYPE_OVERVIEW_ITEM (bpw_overview_item_get_type ())

G_DECLARE_FINAL_TYPE (BpwOverviewItem, bpw_overview_item, BPW, OVERVIEW_ITEM, GObject)

/* Evaluates the candidate's mapping (the analytic estimator) when @inputs has a run: call
 * it from a worker thread. */
BpwOverviewItem *bpw_overview_item_new            (const BpwOverviewInputs     *inputs);
/* Copies @evaluation (its strings too); NULL removes it. */
void             bpw_overview_item_set_evaluation (BpwOverviewItem             *self,
                                                   const BpwOverviewEvaluation *evaluation);
/* The implementation transformations of the candidate's bound plan, in the core's order
 * (element-type BpwOverviewTransformation); NULL when the plan could not be bound. */
GArray          *bpw_overview_item_get_transformations (BpwOverviewItem       *self);
/* The blueprint's software stack the transformations come from: its name ("typical PyTorch
 * eager stack (estimate)") and where it was measured or estimated from; NULL when the
 * blueprint states none. */
const char      *bpw_overview_item_get_stack_name   (BpwOverviewItem            *self);
const char      *bpw_overview_item_get_stack_source (BpwOverviewItem            *self);
/* NULL when the candidate has not been evaluated. */
const BpwOverviewEvaluation *bpw_overview_item_get_evaluation (BpwOverviewItem *self);

const char      *bpw_overview_item_get_candidate  (BpwOverviewItem             *self);
const char      *bpw_overview_item_get_scenario_name (BpwOverviewItem          *self);
BpwFactsRow     *bpw_overview_item_get_scenario   (BpwOverviewItem             *self);
gint64           bpw_overview_item_get_devices    (BpwOverviewItem             *self);
/* The evaluation's peak memory when there is one, else weights, gradients, optimizer
 * state, activations and KV cache on the most loaded device (the facts); 0 when neither
 * could be computed. */
guint64          bpw_overview_item_get_memory     (BpwOverviewItem             *self);
/* Device memory (HBM) of one device of the blueprint; 0 when unknown. */
guint64          bpw_overview_item_get_capacity   (BpwOverviewItem             *self);

char            *bpw_overview_item_format         (BpwOverviewItem             *self,
                                                   BpwOverviewColumn            column,
                                                   BpwByteUnits                 units);
char            *bpw_overview_item_dup_tooltip    (BpwOverviewItem             *self,
                                                   BpwOverviewColumn            column);
/* "error" or "success" for cells that judge (memory over capacity, SLA, illegal), else
 * NULL. */
const char      *bpw_overview_item_get_style      (BpwOverviewItem             *self,
                                                   BpwOverviewColumn            column);
int              bpw_overview_item_compare        (BpwOverviewItem             *a,
                                                   BpwOverviewItem             *b,
                                                   BpwOverviewColumn            column);

const char      *bpw_overview_column_get_title    (BpwOverviewColumn            column);
gboolean         bpw_overview_column_is_numeric   (BpwOverviewColumn            column);
gboolean         bpw_overview_column_is_evaluation (BpwOverviewColumn           column);
/* Columns shown only until candidates are evaluated: the evaluation's columns need their
 * room, and the details pane, the tooltips and the sidebar keep what these said. */
gboolean         bpw_overview_column_is_preliminary (BpwOverviewColumn          column);

G_END_DECLS
