/* bpw-scenario.h — one regime of a workload, and the parallel decomposition applied to it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-types.h"

G_BEGIN_DECLS

/* How the host launches the step's kernels: as the blueprint's software stack says for the
 * phase, or stated for this run (a pack's eager and graph-replayed runs of one step). */
typedef enum
{
  BPW_LAUNCH_STACK,  /* the stack's launch mode for the phase */
  BPW_LAUNCH_EAGER,  /* the host issues every kernel */
  BPW_LAUNCH_GRAPH,  /* replayed from a captured CUDA graph */
} BpwLaunchMode;

struct _BpwScenario
{
  char             *name;           /* owned, nullable */
  BpwWorkloadPhase  phase;
  gint64            global_batch;   /* sequences per step (train), requests in flight (inference) */
  gint64            micro_batch;    /* sequences per micro-batch */
  gint64            seq;            /* training sequence or prompt length */
  gint64            context;        /* decode: tokens already in the KV cache */
  BpwRecompute      recompute;
  BpwDType          dtype;          /* compute / activation precision */
  BpwDType          kv_dtype;       /* KV cache precision */
  gboolean          optimizer_set;  /* optimizer overrides the model's */
  BpwOptimizerKind  optimizer;
  BpwLaunchMode     launch;
  /* Images per sequence of a multimodal model when images_set; else the model's default
   * (1 with a vision encoder, 0 without). seq counts every decoder token, the images'
   * included, as Llava's training reports its 2048-token length. */
  gboolean          images_set;
  gint64            images;
  /* Training also trains the vision encoder. By default it is frozen, as in both of
   * Llava's stages: no weight gradients or optimizer state for it, and no activation
   * gradients either, since nothing below it trains. The projector always trains. */
  gboolean          train_vision;

  double            weight;         /* in its suite */
  /* SLAs in seconds; 0 = none */
  double            sla_step_time;
  double            sla_ttft;
  double            sla_tpot;
  double            sla_p99;
};

/* How context parallelism gives each rank's queries the keys and values of the whole
 * sequence (the rank's own queries are its chunks of the sequence). */
typedef enum
{
  BPW_CP_RING,       /* ring attention: cp - 1 send/recv steps of a KV block, each overlapped
                      * with the attention of the block in hand */
  BPW_CP_ALLGATHER,  /* all-gather K and V before attention, reduce-scatter dK and dV after
                      * its backward (Llama 3) */
  BPW_N_CP_ALGORITHMS
} BpwCpAlgorithm;
/* How the transformer blocks are split over the pipeline's (virtual) stages; resolved by
 * bpw_stage_split_resolve() (bpw-stage-split.h). */
typedef enum
{
  BPW_PP_SPLIT_AUTO,      /* even when pp × interleave divides the layers, else balanced */
  BPW_PP_SPLIT_EVEN,      /* as even as possible, the extra layers on the later stages */
  BPW_PP_SPLIT_BALANCED,  /* balances stage time, embedding and head with loss included */
  BPW_PP_SPLIT_LIGHTER,   /* first and last stage pp_lighter layers lighter than the rest */
  BPW_PP_SPLIT_EXPLICIT,  /* stage_layers */
} BpwPpSplit;

/* Most entries an explicit split may list (one per stage, or per virtual stage). */
#define BPW_PARALLEL_MAX_STAGE_LAYERS 128

struct _BpwParallel
{
  gint64       tp, pp, dp, ep;
  gboolean     sp;          /* sequence parallelism (Korthikanti); needs tp > 1 to matter */
  gint         zero;        /* 0..3 */
  BpwSchedule  schedule;
  gint64       interleave;  /* virtual stages per rank for the interleaved schedule */
  /* Context parallelism: the sequence of every micro-batch is split over cp ranks, each
   * holding 2 chunks of seq / (2 cp) tokens (chunk i and 2 cp - 1 - i, the load-balanced
   * "zig-zag" order), so every rank does the same causal attention work. */
  gint64       cp;
  BpwCpAlgorithm cp_algorithm;
  BpwPpSplit   pp_split;
  gint32       pp_lighter;  /* BPW_PP_SPLIT_LIGHTER: layers fewer on the first and last */
  /* BPW_PP_SPLIT_EXPLICIT: layers of each stage in pipeline order: pp entries, or
   * pp × interleave under the interleaved schedule (virtual stage c·pp + s runs on rank s). */
  gint32       n_stage_layers;
  guint32      stage_layers[BPW_PARALLEL_MAX_STAGE_LAYERS];
};

/* What bpw_scenario_validate() accepts at most: devices in tp × pp × dp (and each degree),
 * and tokens in a step (sequences, micro-batches and lengths each too). */
#define BPW_SCENARIO_MAX_DEVICES (G_GINT64_CONSTANT (1) << 24)
#define BPW_SCENARIO_MAX_TOKENS  (G_GINT64_CONSTANT (1) << 40)

void     bpw_scenario_init_defaults (BpwScenario       *scenario);
/* The sequence length a scenario of @spec gets when none is given (the CLI's --seq, the
 * window's new scenarios): the learned position table when it is at most 8192, else
 * 2048. */
gint64   bpw_scenario_default_seq   (const BpwModelSpec *spec);
void     bpw_scenario_copy          (BpwScenario       *dest,
                                     const BpwScenario *src);
void     bpw_scenario_clear         (BpwScenario       *scenario);

void     bpw_parallel_init_defaults (BpwParallel       *parallel);
/* tp × cp × pp × dp: EP is carved out of DP and SP out of TP, so neither adds devices. */
gint64   bpw_parallel_devices       (const BpwParallel *parallel);

const char *bpw_cp_algorithm_to_string   (BpwCpAlgorithm  algorithm);
gboolean    bpw_cp_algorithm_from_string (const char     *str,
                                          BpwCpAlgorithm *out);

/* The ratio of the most loaded rank's causal attention work to the average when the
 * sequence is cut into cp contiguous chunks instead of the balanced 2 cp chunks: rank
 * cp - 1 attends to the whole sequence, (2 cp - 1) / cp of the average. Returned as the
 * numerator and denominator. The distribution always uses the balanced order. */
void     bpw_cp_contiguous_imbalance (gint64  cp,
                                      gint64 *numerator,
                                      gint64 *denominator);

/* Micro-batches each pipeline runs per step: global_batch / (dp * micro_batch). */
gint64   bpw_scenario_micro_batches (const BpwScenario *scenario,
                                     const BpwParallel *parallel);

/* Images per sequence, the default resolved against @spec. */
gint64   bpw_scenario_images        (const BpwScenario  *scenario,
                                     const BpwModelSpec *spec);

/* The micro-batch when none is given, shared by the command line and studies: 1 for
 * training; for prefill and decode the whole per-replica batch B = global_batch / dp when
 * pp is 1, and B / pp (pp micro-batches, the fewest that keep every stage busy) when pp > 1
 * divides B, else 1. */
gint64   bpw_scenario_default_micro_batch (BpwWorkloadPhase   phase,
                                           gint64             global_batch,
                                           const BpwParallel *parallel);

/* Every relation between model, scenario and parallel decomposition that makes the
 * configuration executable; each violated rule is one sentence in the error. */
gboolean bpw_scenario_validate      (const BpwScenario  *scenario,
                                     const BpwParallel  *parallel,
                                     const BpwModelSpec *spec,
                                     GError            **error);

/* The scenario's values (not its name) are the same. */
gboolean bpw_scenario_values_equal  (const BpwScenario  *a,
                                     const BpwScenario  *b);
gboolean bpw_parallel_equal         (const BpwParallel  *a,
                                     const BpwParallel  *b);

G_END_DECLS
