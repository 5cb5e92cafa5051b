/* bpw-facts.h — the exact, hardware-free facts of one scenario under one decomposition
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-dist-work.h"

G_BEGIN_DECLS

struct _BpwFacts
{
  guint64          parameters;
  guint64          active_parameters;
  guint64          mtp_parameters;      /* the MTP modules, in neither count above */
  /* A multimodal model's vision tower (its checkpoint, every layer) and projector, both
   * in parameters; the forward matmul FLOPs of encoding and projecting one image (0 in
   * decode, which encodes none). */
  guint64          vision_parameters;
  guint64          projector_parameters;
  guint64          vision_flops_per_image;
  BpwU128          tokens_per_step;
  gint64           micro_batches;       /* per pipeline, per step */
  BpwU128          flops_model;         /* Megatron/PaLM convention, whole job */
  BpwU128          flops_model_by_layer_type[BPW_N_LAYER_TYPES];  /* adds up to flops_model */
  BpwU128          flops_hardware;      /* everything executed, whole job */
  BpwU128          flops_semantic;
  BpwU128          flops_by_phase[BPW_N_PHASES];
  /* The work graph's FLOPs per step, recomputation left out, of one block of each kind
   * ([MoE][windowed; cross-attention in a cross-attention model]; 0 for a kind the model
   * lacks) and of the work before and after the blocks: what the balanced pipeline split
   * weighs. Filled by bpw_facts_compute_analytic() only. */
  BpwU128          flops_block[2][2];
  BpwU128          flops_before_blocks;
  BpwU128          flops_after_blocks;
  BpwRankMemory    memory;              /* on the most loaded device */
  gint64           memory_stage;        /* which pipeline stage that is */
  guint64          activation_per_layer; /* bytes one micro-batch stores in layer 0, per rank */
  guint64          kv_bytes_per_token;   /* per rank, every layer attending fully */
  /* Per rank, one sequence at the scenario's context (seq, or context + 1 in decode): a
   * windowed layer's rolling buffer holds min(context, window) positions. */
  guint64          kv_bytes_per_sequence;       /* the images' cross-attention cache included */
  guint64          image_kv_bytes_per_sequence; /* of it, the images' (cross-attention models) */
  BpwConservation  conservation;        /* owned */
};

/* Bytes one token takes in one layer's KV cache on one rank: K and V of the rank's
 * kv_heads / min(tp, kv_heads) heads, or MLA's whole latent and rope key (replicated). */
guint64   bpw_facts_kv_rank_bytes (const BpwModelSpec *spec,
                                   const BpwParallel  *parallel,
                                   BpwDType            kv_dtype);

/* Positions the KV cache of one sequence spans in @scenario: seq, or context + 1 in decode
 * (the step's own token included), before any window. */
guint64   bpw_facts_kv_context (const BpwScenario *scenario);
/* Forward matmul FLOPs of the vision encoder and projector per image encoded in @graph
 * (0 when it encodes none). */
guint64   bpw_facts_vision_flops_per_image (const BpwWorkGraph *graph);

/* Builds the work graph and its distribution and fills @facts. */
gboolean  bpw_facts_compute (const BpwModelSpec *spec,
                             const BpwScenario  *scenario,
                             const BpwParallel  *parallel,
                             BpwFacts           *facts,
                             GError            **error);
void      bpw_facts_clear   (BpwFacts           *facts);

/* Whole-model totals (parameters, FLOPs by phase, model and semantic FLOPs, KV bytes per
 * token) from a one-layer template of each layer kind, scaled: the fast path for search.
 * Agrees exactly with bpw_facts_compute on those fields (tested); leaves per-device memory
 * and the conservation report (beyond ok) empty. */
gboolean  bpw_facts_compute_analytic (const BpwModelSpec *spec,
                                      const BpwScenario  *scenario,
                                      const BpwParallel  *parallel,
                                      BpwFacts           *facts,
                                      GError            **error);

/* JSON rendering with the keys of the `bpw facts --json` contract; big integers exact. */
char     *bpw_facts_to_json (const BpwFacts     *facts,
                             const BpwModelSpec *spec,
                             const BpwScenario  *scenario,
                             const BpwParallel  *parallel);

G_END_DECLS
