/* bpw-roofline-data.h — what a roofline shows: operations as points, blueprint ceilings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The adapter between the core's plan (through its mapping sheet) and the roofline plot.
 * x is arithmetic intensity (FLOPs per device-memory byte), y the FLOP rate an operation
 * attains in the plan (its executed FLOPs over its estimated time). Operations that are
 * alike (every transformer block repeats the same ones) become one point that carries
 * how many it stands for and their summed time, so the chart shows what differs.
 */
#pragma once

#include "bpw-correlate.h"
#include "bpw-plan.h"

G_BEGIN_DECLS

typedef struct
{
  guint32        lineage;      /* the first operation merged into the point */
  gint64         stage;        /* -1 when it stands for operations of several stages */
  guint          merged;       /* operations it stands for, ≥ 1 */
  BpwLayerType   layer_type;
  BpwPhase       phase;
  BpwBottleneck  bottleneck;
  gboolean       baseline;     /* from the baseline plan */
  gboolean       measured;     /* from a profile: attained = modelled FLOPs / measured time */
  const char    *name;         /* pooled in the data */
  const char    *kind;
  const char    *engine;
  const char    *dtype;
  double         flops;        /* per execution */
  double         bytes;        /* device-memory bytes per execution */
  double         intensity;    /* FLOP/B */
  double         attained;     /* FLOP/s */
  double         time_s;       /* per execution */
  double         total_s;      /* per step on one rank, all merged operations */
  double         share;        /* of its plan's task time in the chosen stages */
} BpwRooflinePoint;

typedef enum
{
  BPW_CEILING_COMPUTE,  /* horizontal: FLOP/s */
  BPW_CEILING_MEMORY,   /* slanted: B/s */
} BpwCeilingKind;

typedef struct
{
  BpwCeilingKind  kind;
  const char     *label;       /* pooled: "tensor-cores bf16", "hbm" */
  double          value;       /* FLOP/s or B/s, efficiency applied */
  double          efficiency;  /* 1 for the datasheet value */
  gboolean        calibrated;  /* datasheet × the best efficiency of a calibrated table */
  gboolean        baseline;
  gboolean        primary;     /* the plan's own engine in its precision, or device memory */
  gboolean        host;        /* host memory (offload) */
} BpwRooflineCeiling;

typedef struct
{
  guint     compute;   /* ceiling indices */
  guint     memory;
  double    intensity; /* FLOP/B where the two meet */
  double    value;     /* FLOP/s there */
} BpwRooflineRidge;

typedef struct
{
  char          *title;           /* owned */
  char          *label;           /* owned: the candidate */
  char          *baseline_label;  /* owned, nullable */
  char          *precision;       /* owned: "bf16" */
  gint64         stage;           /* -1: all stages */
  gint64         n_stages;
  GArray        *points;          /* BpwRooflinePoint */
  GArray        *ceilings;        /* BpwRooflineCeiling */
  GArray        *ridges;          /* BpwRooflineRidge, from bpw_roofline_data_update_ridges() */
  guint          skipped;         /* operations without FLOPs or device bytes: no place on
                                   * log axes (gathers, permutes) */
  guint          baseline_skipped;
  char          *measured_label;  /* owned, nullable: the profile of the measured points */
  guint          measured_skipped;  /* measured operations without FLOPs or device bytes */
  GStringChunk  *strings;
} BpwRooflineData;

BpwRooflineData *bpw_roofline_data_new        (const char            *title,
                                               const char            *label);
void             bpw_roofline_data_free       (BpwRooflineData       *data);
const char      *bpw_roofline_data_intern     (BpwRooflineData       *data,
                                               const char            *str);
/* Strings of @point are interned; returns the index. */
guint            bpw_roofline_data_add_point  (BpwRooflineData       *data,
                                               const BpwRooflinePoint *point);
guint            bpw_roofline_data_add_ceiling (BpwRooflineData      *data,
                                               const BpwRooflineCeiling *ceiling);
/* Where each datasheet compute ceiling meets each datasheet device-memory ceiling. */
void             bpw_roofline_data_update_ridges (BpwRooflineData    *data);

/* Points of @plan's tasks in @stage (-1: every stage), the ceilings of its blueprint in
 * the plan's precision (matrix and vector peaks, device memory, host memory when the
 * plan offloads, and dashed calibrated ceilings where the efficiency tables are
 * calibrated or measured), and the ridges. */
BpwRooflineData *bpw_roofline_data_new_from_plan (const BpwPlan      *plan,
                                                  gint64              stage,
                                                  const char         *label,
                                                  GError            **error);
/* Adds @plan's points as hollow baseline marks and its datasheet matrix and device-memory
 * ceilings. */
gboolean         bpw_roofline_data_add_baseline  (BpwRooflineData    *data,
                                                  const BpwPlan      *plan,
                                                  gint64              stage,
                                                  const char         *label,
                                                  GError            **error);
/* Measured points beside the predicted ones (bpw-roofline-measured.c): every matched
 * operation of @corr on the data's stage (-1: all), alike operations of every block and
 * micro-batch together as one point at the modelled intensity, attaining the modelled
 * FLOPs over the measured time. @label NULL: the profile's file name. Returns the points
 * added; an operation without FLOPs or device bytes counts in measured_skipped. */
guint            bpw_roofline_data_add_measured  (BpwRooflineData      *data,
                                                  const BpwCorrelation *corr,
                                                  const char           *label);
/* Matrix-engine peaks of the plan's blueprint in its other precisions (distinct values). */
void             bpw_roofline_data_add_precisions (BpwRooflineData   *data,
                                                   const BpwPlan     *plan);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwRooflineData, bpw_roofline_data_free)

G_END_DECLS
