/* bpw-pack-fit.h — a blueprint calibrated for the device and software stack of a
 * measurement pack, and how well it predicts the pack's own runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hardware rates come from the pack's microbenchmarks, fixed costs of the software stack
 * from its traces:
 * - device memory: the efficiency of the copy microbenchmark, bytes read plus written over
 *   the datasheet bandwidth;
 * - the matrix engine, per precision (bf16 from the shape sweep and the peak product, fp8
 *   from matmul_fp8), each product priced as the estimator prices it (FLOPs padded to the
 *   engine's tile, tiled operand traffic at the calibrated bandwidth): its time less the
 *   kit's per-call latency (the kit times one call on an idle device, host dispatch
 *   included: the sweep's fastest call less its kernel's least time, the fixed cost and
 *   its operands' memory time), less the fixed cost per kernel; memory as the blueprint's
 *   processing combines it: with overlap, products below the roofline's ridge are
 *   memory's and left out, without it their memory time is subtracted; products within
 *   1.25× of the fastest call (the kit's per-call floor) say nothing about the engine and
 *   are left out; the rest are binned by FLOPs (two bins per decade), each bin's
 *   efficiency Σ FLOPs / (peak · Σ time) at the time-weighted mean log FLOPs of its
 *   products, interpolated log-linearly;
 * - the matrix engine's clock in the runs: the kit's sustained loop of one product holds
 *   the board at its power limit and the clock below its maximum, a run's interleaved
 *   memory-bound kernels let it rise; the traced products with a recorded shape that the
 *   table prices compute-bound, runs left in, give Σ predicted engine time over Σ
 *   measured GEMM time less the fixed cost, at most the maximum SM clock over the peak
 *   product's; every table the microbenchmarks calibrated is scaled by it (capped at 1);
 * - the fixed cost per kernel of every engine: the lower quartile of the durations of the
 *   traces' element-wise and cast kernels (kernels that move next to nothing take it);
 * - the stack (the blueprint's "stack" member): eager launch as a host issue stream, the
 *   host issue time h per kernel the host's mean interval between kernel launch calls
 *   (bpw_pack_trace_launch_interval), least over the eager runs (each one's is an upper
 *   bound: host synchronisations lengthen it), one for inference (prefill, decode) and one
 *   for training (autograd's backward engine adds host work per kernel), each falling back
 *   to the other where no eager run of its kind is left in,
 *   graph replay gap as idle time per kernel boundary of graph-replayed runs, the eager
 *   device gap as the median idle before the eager runs' kernels whose launch call came
 *   before the previous kernel ended (the queue ahead; bpw_pack_trace_load), optimizer
 *   bytes per parameter (optimizer kernel time × copy bandwidth / parameters) and kernels
 *   per parameter tensor of the training runs, MoE per-expert time (idle time the issue
 *   queue does not explain, per expert, MoE layer and pass); the descriptive members
 *   (attention, precision, optimizer implementation, fusion, launch per phase) are read
 *   from the pack's stack strings and run notes.
 * Every value the fit changes names the pack, device, driver, CUDA, framework and the
 * microbenchmarks or runs it came from. The result is a deterministic function of the
 * inputs.
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-measurement-pack.h"
#include "bpw-profile.h"

G_BEGIN_DECLS

/* A traced matrix product whose shape the trace records ("Input Dims"): batch × (m × k) ·
 * (k × n), and its GEMM kernels' device time. */
typedef struct
{
  double   batch, m, n, k;
  double   time_s;
} BpwPackProduct;

/* The kernels of one traced run, by what they are to the stack. */
typedef struct
{
  double   span_s;          /* first kernel start to last kernel end */
  double   busy_s;          /* Σ kernel durations */
  double   idle_s;          /* time inside the span with no kernel running */
  guint    n_kernels;       /* kernels, memcpys and memsets */
  guint    count[BPW_N_STACK_KERNEL_CLASSES];
  double   time_s[BPW_N_STACK_KERNEL_CLASSES];
  double  *durations;       /* every kernel's duration, ascending; owned */
  double  *ordered;         /* every kernel's duration, in start order; owned */
  double  *short_durations; /* element-wise and cast kernels' durations, ascending; owned */
  guint    n_short;
  guint    n_launches;      /* the host's kernel launch calls */
  double   launch_span_s;   /* first launch call's start to the last's */
  double  *queued_gaps;     /* device idle before each kernel whose launch call came before
                             * the previous kernel ended (the queue ahead), ascending; owned */
  guint    n_queued_gaps;
  double  *offpath_elements; /* element-wise kernels off the vectorized path, of at least
                              * BPW_PACK_OFFPATH_MIN_ELEMENTS: their op's elements; owned */
  double  *offpath_durations; /* and their durations, in the same order; owned */
  guint    n_offpath;
  BpwPackProduct *products; /* the matrix products with a recorded shape, in item order; owned */
  guint    n_products;
} BpwPackTrace;

/* The least elements an off-path element-wise kernel of a trace has to tell the rate:
 * below it the fixed cost per kernel dominates. */
#define BPW_PACK_OFFPATH_MIN_ELEMENTS (1 << 20)

/* Reads a run's trace; errors name the file. */
BpwPackTrace *bpw_pack_trace_load (const char   *path,
                                   GError      **error);
void          bpw_pack_trace_free (BpwPackTrace *trace);
/* Eager launch as a host issue stream: the host issues a kernel every @h seconds, queuing
 * ahead while kernels run; the device starts each kernel when it is both free and issued.
 * The device idle that queue leaves over the trace's kernels in start order. */
double        bpw_pack_trace_queue_idle (const BpwPackTrace *trace,
                                         double              h);
/* The issue time h whose queue leaves the trace's own idle time (0: none). */
double        bpw_pack_trace_issue_time (const BpwPackTrace *trace);
/* The host's own time between kernel launch calls, first to last over their count
 * (0: fewer than two launches recorded). */
double        bpw_pack_trace_launch_interval (const BpwPackTrace *trace);

/* A run's launch mode as the pack's "launch" string says: TRUE when the clause that names
 * the run's trace file says "graph", or, with no clause naming it, when the run's name
 * says "graph". */
gboolean      bpw_pack_run_is_graph (const BpwMeasurementPack *pack,
                                     guint                     run);
/* The run's step: measured_s when the pack gives it, else its trace's span. */
double        bpw_pack_run_step_s   (const BpwMeasurementPack *pack,
                                     const BpwPackTrace       *trace,
                                     guint                     run);

/* The pack with every run's trace read, loaded once for all fits of a report. */
typedef struct
{
  BpwMeasurementPack *pack;     /* owned */
  BpwPackTrace      **traces;   /* owned, one per run */
  GPtrArray          *warnings; /* located warnings of the pack file */
} BpwPackData;

BpwPackData  *bpw_pack_data_load (const char   *path,
                                  GError      **error);
void          bpw_pack_data_free (BpwPackData  *data);

typedef struct
{
  double  value;
  char   *source;               /* owned */
} BpwPackFitValue;

typedef struct
{
  BpwBlueprint    *blueprint;   /* owned: the calibrated rates; the stack: bpw_pack_fit_blueprint */
  char            *source;      /* the provenance prefix every changed value carries */
  gint             excluded;    /* the run whose trace was left out, -1 */

  /* hardware */
  double           memory_efficiency;
  guint            matmul_points[BPW_N_PRECISIONS];  /* products that calibrated a table */
  double           kernel_overhead_s;
  double           call_floor_s;      /* the kit's fastest product */
  double           call_latency_s;    /* the kit's host time per timed call */
  BpwPackFitValue  engine_clock;      /* the engine's rate in the runs over the
                                       * microbenchmarks'; NAN: no traced product */

  /* stack */
  char            *framework;
  const char      *attention;         /* "flash" | "materialized" */
  gboolean         fused_attention;
  const char      *master_weights;    /* "fp32" | "none" */
  const char      *logits;            /* "fp32" | "compute" */
  const char      *optimizer;         /* "fused" | "foreach" | "per-tensor" */
  const char      *elementwise;       /* "unfused" | "fused" */
  const char      *launch[BPW_WORKLOAD_DECODE + 1];  /* "eager" | "graph" */
  const char      *moe_implementation;/* "loop" | "grouped"; NULL: no MoE run */
  BpwPackFitValue  optimizer_bytes;   /* per parameter; value NAN: no training run */
  BpwPackFitValue  optimizer_kernels; /* per parameter tensor; NAN for foreach */
  BpwPackFitValue  optimizer_launches;/* per parameter (foreach); NAN otherwise */
  BpwPackFitValue  eager_gap;         /* s, inference (prefill, decode); NAN: no eager run */
  BpwPackFitValue  train_eager_gap;   /* s, training; NAN: no eager run */
  BpwPackFitValue  graph_gap;         /* s; NAN: no graph-replayed run */
  BpwPackFitValue  eager_device_gap;  /* s; NAN: no eager run with the queue ahead */
  BpwPackFitValue  moe_per_expert;    /* s; NAN: no MoE training run */
  BpwPackFitValue  elementwise_rate;  /* elements/s off the vectorized path; NAN: no such
                                       * kernel in the traces left in */
  GPtrArray       *warnings;          /* sentences */
} BpwPackFit;

/* bpw-pack-fit-attention.c: the stack's fused attention kernel's efficiency table (the
 * fit's blueprint's stack.attention_efficiency) from the pack's causal prefill attention
 * microbenchmarks; empty without them. After the engine's clock. */
void          _bpw_pack_fit_attention (BpwPackFit               *fit,
                                       const BpwMeasurementPack *pack);

/* Calibrates @blueprint on @data; @exclude (-1: none) is a run whose trace-derived fixed
 * costs are left out (the leave-one-run-out fit). @name NULL: "<blueprint>-calibrated". */
BpwPackFit   *bpw_pack_fit       (const BpwBlueprint *blueprint,
                                  const BpwPackData  *data,
                                  gint                exclude,
                                  const char         *name,
                                  GError            **error);
void          bpw_pack_fit_free  (BpwPackFit         *fit);

/* The calibrated blueprint: the fitted copy with its "stack" set from the fit (replacing
 * any stack the blueprint had). A phase may be launched by graph with no replay gap known
 * (a leave-one-out fit without the graph-replayed run): no idle is charged then. */
BpwBlueprint *bpw_pack_fit_blueprint (const BpwPackFit *fit);
/* The calibrated blueprint file, written by the blueprint writer. */
char         *bpw_pack_fit_to_json   (const BpwPackFit *fit);
/* Writes it atomically; the text is loaded back first, so that nothing unreadable is
 * written. */
gboolean      bpw_pack_fit_save    (const BpwPackFit *fit,
                                    const char       *path,
                                    GError          **error);

/* Parameter tensors of @spec as the evaluation updates them: the optimizer operations of the
 * run's work graph, the unit the stack's kernels_per_tensor multiplies in the plan (the graph
 * holds Q, K and V as one weight, gate and up as one), so that the fit and the evaluation
 * count the same tensors. */
gboolean      bpw_pack_parameter_tensors (const BpwModelSpec *spec,
                                          const BpwScenario  *scenario,
                                          guint64            *tensors,
                                          GError            **error);

/* ---- judged out of sample (bpw-pack-report.c) ---- */

typedef struct
{
  char   *name;
  double  measured_s;
  gboolean timed;               /* measured_s is the pack's, not the trace span */
  double  before_s, after_s, loo_s;   /* predictions; NAN when the run cannot be evaluated */
  double  measured_peak;        /* bytes, the pack's peak_memory_bytes; NAN when absent */
  double  before_peak, after_peak, loo_peak;  /* predicted peak device memory, bytes */
  double  before_bound;         /* the static peak legality is judged on (before), bytes */
  gboolean before_legal;
} BpwPackReportRun;

typedef struct
{
  char             *pack;       /* file name */
  char             *blueprint, *calibrated;
  BpwPackReportRun *runs;
  guint             n_runs;
  double            mean_abs[3], max_abs[3];   /* before, after, leave-one-out */
  /* Peak memory over the runs the pack gives one for (NAN: none). */
  double            peak_mean_abs[3], peak_max_abs[3];
  guint             n_peaks;
  /* The blueprint before already models this pack's software stack (its stack names the
   * pack's framework): its error on these runs is in sample, so it is no baseline that an
   * out-of-sample figure could be refused against. */
  gboolean          before_in_sample;
} BpwPackReport;

/* Predicts every run of @data on @before and @after (nullable: calibrated here), and each
 * on the fit that leaves its own trace out. */
BpwPackReport *bpw_pack_report_new     (const BpwPackData  *data,
                                        const BpwBlueprint *before,
                                        const BpwBlueprint *after,
                                        GError            **error);
void           bpw_pack_report_free    (BpwPackReport      *report);
/* Judged out of sample: FALSE, with the reason, when the calibration predicts the runs it
 * did not see worse on average (leave-one-out) than the blueprint before it — unless that
 * blueprint's own figure is in sample (before_in_sample), which nothing can be refused
 * against; bpw_pack_report_to_text() then says so. */
gboolean       bpw_pack_report_accepts (const BpwPackReport *report,
                                        GError             **error);
char          *bpw_pack_report_to_text (const BpwPackReport *report);
char          *bpw_pack_report_to_json (const BpwPackReport *report);
/* One run's step on @bp through the estimator, with the default mapping, in the run's own
 * launch mode (bpw_pack_run_is_graph); @peak_bytes (nullable): the evaluation's peak device
 * memory, as the blueprint's stack holds it (fp32 master weights and gradients, optimizer
 * states, flash attention's stored tensors, fp32 logits). */
gboolean       bpw_pack_predict_run    (const BpwMeasurementPack *pack,
                                        guint                     run,
                                        const BpwBlueprint       *bp,
                                        double                   *step_s,
                                        double                   *peak_bytes,
                                        GError                  **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwPackData, bpw_pack_data_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwPackFit, bpw_pack_fit_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwPackReport, bpw_pack_report_free)

G_END_DECLS
