/* bpw-correlate.h — measured work lined up with modelled operations, by lineage
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Correlation pairs a device of a profile with a rank of a simulated step and matches the
 * device's work items (bpw-profile.h) with the rank's tasks and transfers:
 * - the workbench's own trace carries lineage ids: an item matches the modelled event of
 *   its lineage, micro-batch and name, occurrence by occurrence;
 * - any other trace is aligned in time order, the way a diff aligns lines: an item may
 *   match a modelled operation of a compatible kind (aten::addmm a matmul, a softmax
 *   kernel a softmax, aten::sum a bias gradient), scored higher when the kinds agree
 *   exactly and higher still when the recorded shapes agree with the operation's matmul
 *   shape in the orientation its phase implies; the alignment maximises the total score,
 *   so order within a layer decides between operations of the same kind;
 * - what the alignment leaves over is then explained where the model says why:
 *   a modelled operation in the same fusion group as a matched one, or the other gradient
 *   of the same forward operation next to a matched one, is *covered* by that kernel
 *   (layer norm's backward computes dX, dγ and dβ in one); a measured item next to a
 *   matched one that is part of its implementation (the second bmm of a batched matmul's
 *   backward, the NLL after a log-softmax, the position lookup before the position add,
 *   the per-tensor arithmetic of an optimizer step) is counted with it.
 * Each match is a row: the modelled operations and measured items it joins, predicted and
 * measured time, FLOPs and bytes. Rows without measured items are missing work, rows
 * without modelled operations extra work; an extra item whose kind is unknown is
 * unexplained.
 */
#pragma once

#include "bpw-profile.h"
#include "bpw-simulation.h"

G_BEGIN_DECLS

/* How an operation is costed, and so which efficiency table calibrates it. */
typedef enum
{
  BPW_OP_CLASS_MATRIX,         /* compute bound on the matrix engine: efficiency by FLOPs */
  BPW_OP_CLASS_VECTOR,         /* compute bound on the vector engine: efficiency by FLOPs */
  BPW_OP_CLASS_MEMORY,         /* memory bound: device memory efficiency by bytes */
  BPW_OP_CLASS_LATENCY,        /* the fixed cost per operation dominates */
  BPW_OP_CLASS_COMMUNICATION,  /* a transfer */
  BPW_N_OP_CLASSES
} BpwOpClass;

typedef enum
{
  BPW_MODELLED_MATCHED,   /* the primary operation of a row with measured items */
  BPW_MODELLED_COVERED,   /* computed by the measured items of a sibling's row */
  BPW_MODELLED_MISSING,   /* nothing measured does it */
} BpwModelledStatus;

typedef enum
{
  BPW_ROW_MATCHED,
  BPW_ROW_MISSING,        /* modelled operations, nothing measured */
  BPW_ROW_EXTRA,          /* measured items, nothing modelled */
} BpwRowStatus;

typedef enum
{
  BPW_SHAPE_UNKNOWN,      /* no shapes recorded, or not a matmul */
  BPW_SHAPE_AGREES,
  BPW_SHAPE_DIFFERS,
} BpwShapeCheck;

/* One modelled occurrence: a task or transfer event of the simulated rank. */
typedef struct
{
  guint32  event;        /* index into sim->events */
  guint32  lineage;
  gint32   row;
  guint8   kind;         /* BpwKernelKind it is expected to look like */
  guint8   op_class;     /* BpwOpClass from the plan's cost */
  guint8   status;       /* BpwModelledStatus */
  guint32  pair;
  double   predicted_s;  /* the simulated duration */
  double   flops;        /* executed by the event */
  double   bytes;        /* device bytes (wire bytes for transfers) */
} BpwModelledOp;

typedef struct
{
  guint32      first_op, n_ops;      /* into row_ops: indices into modelled, primary first */
  guint32      first_item, n_items;  /* into row_items: profile item indices, primary first */
  guint8       status;               /* BpwRowStatus */
  guint8       kind;                 /* BpwKernelKind: the primary op's, or the item's */
  guint8       op_class;             /* the primary modelled op's */
  guint8       shape;                /* BpwShapeCheck of the primary pair */
  guint32      pair;
  gint64       lineage;              /* the primary modelled op's, -1 for extra work */
  double       start_s;              /* measured start, or the modelled one for missing work */
  double       predicted_s;          /* Σ over its modelled ops */
  double       measured_s;           /* Σ over its items */
  double       flops, bytes;         /* Σ over its modelled ops */
  const char  *reason;               /* static, nullable: why it is missing or extra */
} BpwCorrelationRow;

/* One device of the profile against one simulated rank. */
typedef struct
{
  guint32  device;             /* profile device */
  guint32  rank;               /* simulation lane rank */
  double   measured_span_s;    /* first item start to last item end on the device */
  double   predicted_span_s;   /* the simulated step */
} BpwCorrelationPair;

typedef struct
{
  guint    modelled_ops, matched_ops, covered_ops, missing_ops;
  guint    measured_items, matched_items, extra_items, unexplained_items;
  guint    no_work_events;      /* views, allocations, bookkeeping, runtime calls */
  double   predicted_s, measured_s;                 /* all modelled ops, all items */
  double   matched_predicted_s, matched_measured_s; /* over matched rows */
  double   missing_predicted_s, extra_measured_s;
  double   mean_abs_error;      /* over matched rows: |predicted / measured − 1| */
  double   max_abs_error;
  double   time_weighted_error; /* Σ|predicted − measured| / Σ measured over matched rows */
} BpwCorrelationStats;

typedef struct
{
  const BpwSimulation *sim;      /* borrowed: must outlive the correlation */
  const BpwProfile    *profile;  /* borrowed */
  GArray              *pairs;    /* BpwCorrelationPair */
  GArray              *modelled; /* BpwModelledOp */
  GArray              *rows;     /* BpwCorrelationRow, by pair then start */
  GArray              *row_ops;  /* guint32 */
  GArray              *row_items;/* guint32 */
  gint32              *item_row; /* per profile item: its row, -1 when not correlated */
  BpwCorrelationStats  stats;
} BpwCorrelation;

typedef struct
{
  gint      device;        /* profile device; -1: bpw traces all (device d ↔ its pid's
                            * rank), other traces the device with the most measured time */
  gint      rank;          /* simulation lane rank; -1: the device's pid (bpw traces), else
                            * the reference rank */
  gboolean  ignore_lineage; /* align bpw traces by name and order as any other trace */
} BpwCorrelateOptions;

/* Correlates @profile with @sim. @options is nullable (the defaults). Fails for a device
 * or rank out of range, or a device without work items. */
BpwCorrelation *bpw_correlate            (const BpwSimulation       *sim,
                                          const BpwProfile          *profile,
                                          const BpwCorrelateOptions *options,
                                          GError                   **error);
void            bpw_correlation_free     (BpwCorrelation            *corr);

static inline const BpwCorrelationRow *
bpw_correlation_row (const BpwCorrelation *corr, guint i)
{
  return &g_array_index (corr->rows, BpwCorrelationRow, i);
}

static inline const BpwModelledOp *
bpw_correlation_modelled (const BpwCorrelation *corr, guint i)
{
  return &g_array_index (corr->modelled, BpwModelledOp, i);
}

/* Modelled op @i of a row (0: primary) and measured item @i (0: primary). */
const BpwModelledOp *bpw_correlation_row_op   (const BpwCorrelation    *corr,
                                               const BpwCorrelationRow *row,
                                               guint                    i);
guint                bpw_correlation_row_item (const BpwCorrelation    *corr,
                                               const BpwCorrelationRow *row,
                                               guint                    i);
/* "mlp.norm.dgrad + mlp.norm.wgrad", or the primary item's name for extra work. */
char                *bpw_correlation_row_name (const BpwCorrelation    *corr,
                                               const BpwCorrelationRow *row);

/* Rows summed by the primary lineage (micro-batches and repeats together): the per-operation
 * comparison. Matched rows only; sorted by measured time, largest first. */
typedef struct
{
  gint64   lineage;
  gint32   layer;          /* the work graph op's: a block, or BPW_LAYER_*_BLOCKS */
  guint    rows;
  guint8   kind, op_class;
  double   predicted_s, measured_s, flops, bytes;
  guint32  first_row;      /* a representative row, for the name */
} BpwCorrelationOp;

GArray     *bpw_correlation_by_operation (const BpwCorrelation *corr);  /* BpwCorrelationOp */

/* The matched, extra and missing rows as JSON (snake_case keys, SI units): stats, pairs,
 * per-operation comparison, every row. */
char       *bpw_correlation_to_json      (const BpwCorrelation *corr);

const char *bpw_op_class_to_string       (BpwOpClass  op_class);
BpwOpClass  bpw_op_class_of_task         (const BpwPlanTask *task);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwCorrelation, bpw_correlation_free)

G_END_DECLS
