/* bpw-serve-model.h — one serving replica: prefill and decode step times, KV-cache capacity
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A replica is the mapping's TP × PP devices (DP replicas serve independent shares of the
 * requests), or with ZeRO-3 its TP × PP × DP devices: they hold one copy of the weights
 * between them, gather each layer's for every step and so step in lockstep, each rank
 * running its share of the batch and holding its share of the KV cache. With PP, an
 * iteration's batch goes through the stages as one micro-batch, one stage after the other:
 * the latency of a token, without overlapping iterations. Step times come from the
 * analytic estimator (bpw-estimator.h) evaluated on grids of batch sizes (powers of two up
 * to the largest batch) and per-sequence lengths (powers of two), cached, and interpolated
 * bilinearly in batch and length:
 * - prefill of b prompts of lengths l_i is the estimator's prefill of b prompts of the
 *   quadratic mean length sqrt(Σl_i²/b), which has the batch's attention work exactly and
 *   at least its linear work;
 * - decode of b sequences with C tokens in their caches is the estimator's decode of b
 *   sequences of mean context C/b: attention reads and KV bytes are linear in context.
 * Bilinear interpolation is a positive combination of grid points and exact on functions
 * a + b·x + c·y + d·x·y, so physical lower bounds of that form (weights and KV bytes read
 * per step over the memory bandwidth; FLOPs over the peak, convex in length) that hold at
 * the grid points hold everywhere in between.
 *
 * Images (Llava-style): each request's prompt gains images × image tokens; its prefill
 * runs the vision encoder and projector on them in the same step, as vLLM does
 * (bpw_serve_model_prompt_time, on a grid of its own in text tokens); decode steps do not.
 *
 * KV capacity (tokens per replica): device memory minus everything else the heavier of
 * two plans holds on its most constrained stage — a decode step of the largest batch and a
 * prefill of the longest prompt with its images — divided by the KV bytes per token of that stage. A token
 * here is one position in every layer's cache; a sequence of a sliding-window model holds
 * fewer (bpw_serve_model_kv_tokens).
 *
 * Expert parallelism: the EP ranks (carved out of DP, as in training) hold E/ep of the
 * experts each and one copy of the dense weights, run their own share of the batch and
 * their own KV cache, and exchange tokens by an all-to-all before (dispatch) and after
 * (combine) every MoE layer of every step: one replica of TP × PP × EP devices, stepping in
 * lockstep like a ZeRO-3 replica. Its capacity is its EP ranks' together.
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-mapping.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

typedef struct _BpwServeModel BpwServeModel;

/* @scenario gives dtype and KV dtype; @mapping the replica's TP, PP, EP, SP, tiers,
 * fusion, engines and placement (its DP counts only with ZeRO-3, or as the EP ranks). @max_batch
 * sequences at most per step; @longest_prompt and @longest_request bound the grids and
 * size the capacity. */
BpwServeModel *bpw_serve_model_new          (const BpwModelSpec *spec,
                                             const BpwScenario  *scenario,
                                             const BpwBlueprint *blueprint,
                                             const BpwMapping   *mapping,
                                             gint64              max_batch,
                                             gint64              longest_prompt,
                                             gint64              longest_request,
                                             GError            **error);
void           bpw_serve_model_free         (BpwServeModel      *model);

/* Seconds of a prefill of @batch text prompts with Σ length² = @sum_squares (no images:
 * also what speculative verification and a mixed step's fixed cost are priced by). */
gboolean       bpw_serve_model_prefill_time (BpwServeModel      *model,
                                             gint64              batch,
                                             double              sum_squares,
                                             double             *seconds,
                                             GError            **error);
/* Seconds of the prefill of @batch prompt chunks with Σ length² = @sum_squares in a
 * chunked-prefill step: as prefill_time, but issued as the stack issues a decode step (an
 * engine that chunks runs its mixed steps through its serving path, graph-captured where
 * its decode is; bpw-serve.h). */
gboolean       bpw_serve_model_chunk_time   (BpwServeModel      *model,
                                             gint64              batch,
                                             double              sum_squares,
                                             double             *seconds,
                                             GError            **error);
/* Seconds of the prefill of @batch requests' prompts with their images: Σ (decoder
 * tokens computed)² = @sum_squares, each request's count including its image tokens; the
 * step runs the vision encoder on the batch's images, and @encoder gets its share of
 * the seconds (0 for a text-only model or images 0: then the same as prefill_time). */
gboolean       bpw_serve_model_prompt_time  (BpwServeModel      *model,
                                             gint64              batch,
                                             double              sum_squares,
                                             double             *seconds,
                                             double             *encoder,
                                             GError            **error);
/* Seconds of a decode step of @batch sequences holding @context tokens in their caches
 * (together; each reads its context and the new token). */
gboolean       bpw_serve_model_decode_time  (BpwServeModel      *model,
                                             gint64              batch,
                                             double              context,
                                             double             *seconds,
                                             GError            **error);

gint64         bpw_serve_model_kv_capacity  (const BpwServeModel *model);  /* tokens */
gint64         bpw_serve_model_max_batch    (const BpwServeModel *model);
/* Images per request (the scenario's, by default the model's: 1 with a vision encoder)
 * and the decoder tokens they become, which every request's prompt and KV cache add to
 * its text tokens. */
gint64         bpw_serve_model_images       (const BpwServeModel *model);
gint64         bpw_serve_model_image_tokens (const BpwServeModel *model);
/* The KV cache a request's images hold, in tokens of the text's cache: its image tokens,
 * or a cross-attention model's image keys and values in every cross layer. */
gint64         bpw_serve_model_image_kv_tokens (const BpwServeModel *model);
gint64         bpw_serve_model_devices      (const BpwServeModel *model);  /* per replica */
gint64         bpw_serve_model_ep           (const BpwServeModel *model);  /* EP ranks */
gint64         bpw_serve_model_layers       (const BpwServeModel *model);  /* the model's */
BpwDType       bpw_serve_model_kv_dtype     (const BpwServeModel *model);
/* How the replica stores its weights: "native", or the weight-only mode of its MLP (else
 * of its attention projections), "weights-int4-g128". */
const char    *bpw_serve_model_weights      (const BpwServeModel *model);
/* The KV-cache tokens (as counted by the capacity) one sequence of @length positions
 * holds: ⌈cache slots / layers⌉, where a windowed layer keeps at most its window. */
gint64         bpw_serve_model_kv_tokens    (const BpwServeModel *model,
                                             gint64               length);
/* Bytes one EP rank sends in the dispatch and combine all-to-alls of a decode step, per
 * sequence it runs: 2 × MoE layers × top-k × hidden × activation bytes ÷ TP (0 without
 * EP). */
double         bpw_serve_model_ep_bytes_per_sequence (const BpwServeModel *model);
/* DP ranks one replica spans (ZeRO-3 shards the weights over DP: all of them; else the EP
 * ranks, which share the experts; else 1), and the independent replicas a mapping's DP
 * makes. */
gint64         bpw_serve_replica_shards     (const BpwParallel   *parallel);
gint64         bpw_serve_replicas           (const BpwParallel   *parallel);
/* The model served and the replica's parallel layout (its DP as the replica's shards). */
const BpwModelSpec *bpw_serve_model_spec     (const BpwServeModel *model);
const BpwParallel  *bpw_serve_model_parallel (const BpwServeModel *model);
/* Estimator evaluations so far (grid points computed). */
guint          bpw_serve_model_evaluations  (const BpwServeModel *model);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwServeModel, bpw_serve_model_free)

G_END_DECLS
