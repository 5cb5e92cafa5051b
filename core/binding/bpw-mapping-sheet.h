/* bpw-mapping-sheet.h — the operator-to-kernel mapping sheet of a plan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One row per operation (and per transfer) of every pipeline stage, as one rank of the
 * stage executes it: layer type, phase, engine, dtype, FLOPs, bytes per memory level,
 * arithmetic intensity, tiling, fusion group, estimated time, bottleneck class and lineage
 * id — the primary artifact of an architecture review, and the data behind the GUI's
 * Sheet page.
 */
#pragma once

#include "bpw-plan.h"

G_BEGIN_DECLS

typedef struct
{
  gint64         stage;
  guint32        lineage;       /* op it is (or serves, for transfers) */
  gboolean       transfer;      /* a collective or send, on a link */
  const char    *name;          /* borrowed from the plan's graph */
  gint32         layer;         /* block, or -1 embedding side, -2 head side */
  BpwLayerType   layer_type;
  BpwPhase       phase;
  const char    *kind;          /* primitive, or collective kind */
  const char    *engine;        /* engine name, or tier name for transfers */
  const char    *dtype;
  double         flops;         /* per execution, padding included */
  double         device_bytes;  /* per execution; wire bytes for transfers */
  double         host_bytes;
  double         intensity;     /* FLOP per device byte; 0 when no bytes */
  double         tile_m, tile_n;
  guint32        fusion_group;  /* 0: not fused */
  const char    *fusion;        /* "attention", "bias_activation", ... or "" */
  double         count;         /* executions per step on one rank */
  double         time_s;        /* per execution */
  double         total_s;       /* per step on one rank (count × time) */
  BpwBottleneck  bottleneck;
  /* Of time_s: the implementation overhead the blueprint's software stack adds beside the
   * op (casts, element-wise kernels, launch gaps ...), apart from its semantic work. */
  double         stack_s;
  guint32        stack_kinds;   /* the task's impl_kinds: bpw_plan_implementation_name() */
  double         launch_s;      /* of stack_s: device idle waiting for launches */
  /* The precision it runs in ("fp8-e4m3", "bf16", "int4 w/ g128 (bf16 compute)"; "" for
   * transfers), whether its weights
   * are 2:4 sparse, and why the policy's format fell back to bf16 ("engine", "quality",
   * "shape"; "" when it did not). */
  const char    *precision;
  gboolean       sparse;
  /* Of time_s: weight-only dequantisation that the weight loads and matrix work do not
   * hide (the weight_dequant implementation transformation); 0 otherwise. */
  double         dequant_s;
  const char    *fallback;
  /* Transfers: the collective algorithm binding chose ("ring", "hierarchical",
   * "dimension-ordered"); "" for tasks. */
  const char    *algorithm;
} BpwSheetRow;

/* Rows of every stage; with @first_block_only, only each stage's first transformer block
 * besides its embedding and head rows (all blocks of a stage are alike). */
GArray   *bpw_mapping_sheet_new      (const BpwPlan *plan,
                                      gboolean       first_block_only);

char     *bpw_mapping_sheet_to_csv   (const GArray  *rows);
char     *bpw_mapping_sheet_to_markdown (const GArray *rows,
                                         const char   *title);

G_END_DECLS
