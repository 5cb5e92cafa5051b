/* bpw-estimator-private.h — the estimator's templates
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-estimator.h"
#include "bpw-mapping.h"
#include "bpw-plan-private.h"
#include "bpw-stage-split.h"

G_BEGIN_DECLS

/* The template model: two blocks, two micro-batches per pipeline. */
#define BPW_TEMPLATE_BLOCKS        2
#define BPW_TEMPLATE_MICRO_BATCHES 2

/* Parts of a pipeline stage: embedding (first stage), one transformer block, head and
 * loss (last stage). A model whose blocks come in two kinds binds one block of each, A and
 * B, and costs each stage by how many of each it holds: dense and MoE blocks (DeepSeek's
 * dense first layers, MoE every n-th layer), or else full-attention and windowed blocks
 * (Qwen2's max_window_layers). BLOCK is then the element-wise lesser of the two, a
 * per-layer lower bound for the search. Otherwise BLOCK is the template's mean block and
 * A and B stay empty. A model varying in both binds the MoE kinds, windowed or not as its
 * template's second block is (an estimate). */
typedef enum
{
  BPW_PART_BEFORE,
  BPW_PART_BLOCK,
  BPW_PART_AFTER,
  BPW_PART_BLOCK_A,
  BPW_PART_BLOCK_B,
  BPW_N_PARTS
} BpwPart;

/* Everything in a mapping that changes the bound tasks (not the tiers, algorithms,
 * overlap or pipeline depth, which the hot path applies). Compared bytewise: build it
 * with bpw_template_key_init() so that padding is zero. */
typedef struct
{
  gint64  tp, dp, ep, cp, micro_batch;
  gint64  tile_m, tile_n, tile_k;
  gint32  sp, zero, recompute, pipelined, tiling_automatic, cp_algorithm;
  guint32 fusion;
  gint32  engine[BPW_N_PRIMITIVES];
  gint32  placement[BPW_N_TENSOR_KINDS];
  /* The precision policy, field by field (the policy struct has padding): per class its
   * format, scaling, block, bf16 hold, 2:4 sparsity and weight-only format and group;
   * policy_set 0 when there is none. */
  gint32  policy_set;
  gint32  policy_format[BPW_N_POLICY_CLASSES], policy_scaling[BPW_N_POLICY_CLASSES];
  gint32  policy_keep[BPW_N_POLICY_CLASSES], policy_sparse[BPW_N_POLICY_CLASSES];
  gint64  policy_block[BPW_N_POLICY_CLASSES];
  gint32  policy_weights[BPW_N_POLICY_CLASSES];
  gint64  policy_group[BPW_N_POLICY_CLASSES];
} BpwTemplateKey;

/* One task of a template stage as the eager issue stream sees it, in issue order: the
 * kernels it issues and their device time per micro-batch (BpwPlanTask.issue_*), and
 * where its idle is booked
 * (per execution idle × weight, weight = count / max (count, 1)). */
typedef struct
{
  gint32  layer;
  guint8  part, phase, layer_type, bottleneck;
  double  kernels, alone, busy, weight;  /* alone: kernels with no fused kernel shared
                                         * with the task before it of another block */
} BpwIssueItem;

typedef struct
{
  BpwTemplateKey   key;
  gboolean         train;
  gboolean         by_kind;                /* BLOCK_A and BLOCK_B bound apart */
  gboolean         kind_is_window;         /* B is windowed attention, not MoE */
  gboolean         kind_is_cross;          /* B is a cross-attention layer (Llama 3.2 Vision) */
  gboolean         on_chip;                /* a kind is placed on an on-chip level */
  BpwStageTotals   tasks[BPW_N_PARTS];     /* BLOCK: one block */
  GArray          *transfers[BPW_N_PARTS]; /* BpwPlanTransfer; BLOCK counts per block */
  BpwPlanTransfer  pp_send[2];             /* [0] forward activations, [1] gradients */
  /* DP reduces one bucket per stage, whose size depends on the stage's layers: the
   * shapes of the first stage's DP transfers, and per part the bytes they carry. */
  GArray          *dp_shapes;              /* BpwPlanTransfer; bytes unused */
  GArray          *dp_expert;              /* gboolean per shape: expert parameters */
  double           dp_bytes[2][2][BPW_N_PARTS];  /* [gradients, weights][dense, expert] */
  gboolean         has_pp_send[2];
  /* Per rank. BEFORE and AFTER hold the first and the last stage's own state (the tied
   * embedding copy included); stored activations per micro-batch, fusion applied. */
  double           weights[BPW_N_PARTS], gradients[BPW_N_PARTS], optimizer[BPW_N_PARTS];
  double           stored[BPW_N_PARTS];
  double           live_block;             /* one block's tensors live while it runs */
  double           kv_block;
  double           live[BPW_N_PARTS], kv[BPW_N_PARTS];  /* of each block part */
  double           logits;                 /* the stack's fp32 logits, on the last stage */
  BpwStackMemory   stack_memory;           /* the optimizer step's scratch and working copies */
  double           cp_kv_buffer;           /* context parallelism's K/V blocks of other ranks
                                            * held while one layer's attention runs */
  double           temporaries[BPW_N_PARTS], communication[BPW_N_PARTS];
  GPtrArray       *reasons;                /* mapping-invariant legality reasons */
  /* Launch gaps: eager launch's issue stream is a running maximum over a stage's kernels,
   * not a sum over its parts, and a block next to the head may issue a kernel fewer than
   * the others; so the tasks above leave launch gaps out and each evaluation replays them
   * over the stage's own layers (bpw-estimator-launch.c). 0: nothing to replay. */
  double           launch_gap;
  double           device_gap;             /* eager: the device's own idle per boundary */
  gboolean         eager;
  GArray          *issue[2];               /* BpwIssueItem per template stage */
} BpwTemplate;

void          bpw_template_key_init (BpwTemplateKey     *key,
                                     const BpwMapping   *mapping,
                                     const BpwScenario  *scenario);
guint         bpw_template_key_hash (gconstpointer       key);
gboolean      bpw_template_key_equal (gconstpointer      a,
                                      gconstpointer      b);

BpwTemplate  *bpw_template_new      (const BpwTemplateKey *key,
                                     const BpwModelSpec   *spec,
                                     const BpwScenario    *scenario,
                                     const BpwBlueprint   *blueprint,
                                     const BpwMapping     *mapping,
                                     GError              **error);
void          bpw_template_free     (BpwTemplate          *tmpl);

/* Blocks of each kind among layers [first, first + n) of @spec, as @t binds them: with
 * by_kind, n_a dense (or full-attention) and n_b MoE (or windowed); else all n in *n_a. */
void          bpw_template_count_kinds (const BpwTemplate  *t,
                                        const BpwModelSpec *spec,
                                        gint64              first,
                                        gint64              n,
                                        gint64             *n_a,
                                        gint64             *n_b);

/* The template @mapping binds to, bound on first use and cached (borrowed: valid until
 * the estimator is freed or its templates dropped). Search reads its mapping-invariant
 * totals for sound bounds. @mapping's scenario overrides must already be validated. */
BpwTemplate  *_bpw_estimator_lookup_template (BpwEstimator      *estimator,
                                              const BpwMapping  *mapping,
                                              GError           **error);

/* bpw-estimator-launch.c: the template's issue items from its bound @plan, and their
 * replay over the blocks rank @stage of @split holds, chunk by chunk (@first, @last:
 * whether it holds the embedding, the head), its idle booked into @out as the plan books
 * it. */
void          _bpw_template_collect_issue (BpwTemplate         *t,
                                           const BpwPlan       *plan);
void          _bpw_template_replay_issue  (const BpwTemplate   *t,
                                           const BpwModelSpec  *spec,
                                           const BpwStageSplit *split,
                                           gint64               stage,
                                           gboolean             first,
                                           gboolean             last,
                                           BpwStageTotals      *out);

G_END_DECLS
