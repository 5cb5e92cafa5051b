/* bpw-serve.h — inference serving: a seeded request stream under continuous batching
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Requests arrive as a Poisson process of the given rate (exponential gaps from a GRand
 * seeded with the seed: the same seed gives the same run, bit for bit) with prompt and
 * output lengths from their distributions; request i goes to DP replica i mod dp. Each
 * replica runs iterations in the manner of Orca and vLLM: when requests wait and fit, a
 * prefill iteration admits them (first come, first served, at most max_batch sequences
 * running, each reserving the KV cache of its whole prompt + output so that nothing is
 * ever evicted); otherwise a decode iteration advances every running sequence by one token.
 *
 * KV cache layout (the reservation):
 * - paged (vLLM's PagedAttention, the default): the cache is floor(capacity / block) blocks
 *   of kv_block tokens; a sequence takes ⌈its tokens / block⌉ blocks, so it wastes at most
 *   block − 1 tokens (internal fragmentation), and nothing between sequences;
 * - contiguous (a server with a fixed maximum length): every sequence reserves one region
 *   of the stream's longest prompt + output, however short it is itself.
 * A sliding-window model's sequence holds at most its window on the windowed layers
 * (bpw_serve_model_kv_tokens).
 *
 * Prefix caching with hit rate h: the first floor(h × prompt) tokens of every prompt are
 * already in the cache (a shared system prompt, an earlier turn); the prefill computes
 * the rest (at least one token), so prefill FLOPs and, at light load, TTFT scale by 1 − h.
 * The cached prefix still counts in the sequence's KV.
 *
 * Chunked prefill (Sarathi-Serve, chunk_tokens C): every step decodes the sequences past
 * their prompts and computes up to C prompt tokens of the others, first come first; a
 * prompt of P tokens takes ⌈P / C⌉ steps alone. The step costs the prefill of its chunks
 * (as prompts of their own: like a cached prefix, the earlier chunks' keys are not counted
 * in the attention, which the linear work outweighs for prompts of a few thousand tokens)
 * plus what the decode adds to an empty step (the decode of one token with one cached,
 * which is the weights read once): a decode no longer waits a whole prompt's prefill
 * (TPOT's tail falls) and a prompt shares its steps (TTFT rises). An engine that chunks
 * runs its mixed steps through its serving path, graph-captured where its decode is (vLLM
 * captures them piecewise), so a chunk step issues its kernels as the software stack
 * issues a decode step, not as its one-off eager prefill of a whole prompt
 * (bpw_serve_model_chunk_time). Alone, a prompt of P tokens then waits ⌈P / C⌉ steps of
 * C tokens, whose work adds to that of the whole prompt at most one weight read and one
 * graph replay per extra step: TTFT rises by at most (⌈P / C⌉ − 1) times an empty step;
 * the work per token is unchanged, so throughput is too (within the attention a chunk
 * leaves out).
 *
 * Speculative decoding (draft length k, acceptance α): a decode step drafts k tokens per
 * sequence (k decode steps of the draft model, or with no draft model the target's MTP
 * heads, costed as one of its layers: its decode step ÷ layers) and verifies them in one
 * target step of k + 1 tokens per sequence (its decode plus the prefill of k more tokens
 * per sequence beyond an empty step). Draft tokens are accepted in order, each with
 * probability α (from the stream's seed) until the first rejection; the verify step adds
 * the accepted ones and one of its own: (1 − α^(k+1)) / (1 − α) tokens expected.
 * Images (a multimodal model, bpw_serve_model_images): the stream's prompt lengths count
 * text tokens; every request adds its images' tokens before them, which its KV cache holds
 * (reservation, capacity in requests) and its prefill computes, running the vision encoder
 * in the same step (as vLLM does); a cached prefix is text. Chunked prefill with images is
 * refused.
 *
 * The prefill produces the first token (TTFT = its end − arrival); each decode step one
 * more (TPOT = (end − first token) / (output − 1)). A request that alone exceeds the KV
 * capacity is rejected and counted.
 */
#pragma once

#include "bpw-serve-length.h"
#include "bpw-serve-model.h"
#include "bpw-serve-pools.h"

G_BEGIN_DECLS

/* The slowest arrival rate served: one request per 1000 s. Arrival times are absolute
 * seconds in doubles; at 1e-16 requests/s they are 1e16 s apart, where a double's step is
 * 2 s, so every millisecond latency computed as finish minus arrival came out as 0. At this
 * bound 1e6 requests arrive within about 1e9 s, where the step is 0.1 µs. */
#define BPW_SERVE_MIN_ARRIVAL_RATE 1e-3

/* The most requests one run simulates. The run keeps every request (about 50 bytes) and
 * its three latencies (exact quantiles need them all), so a million requests take about
 * 75 MB; that is 10 000 samples above the p99, more than any latency figure needs.
 * bpw_serve_run() refuses more, and the command line refuses more at parse (exit 2). */
#define BPW_SERVE_MAX_REQUESTS G_GINT64_CONSTANT (1000000)

typedef struct
{
  double         arrival_rate;  /* requests per second, all replicas together; at least
                                 * BPW_SERVE_MIN_ARRIVAL_RATE */
  gint64         requests;      /* 1 to BPW_SERVE_MAX_REQUESTS */
  BpwLengthDist  prompt;
  BpwLengthDist  output;
  guint64        seed;
  gint64         replicas;      /* DP replicas; ≥ 1 */
  gint64         kv_block;      /* tokens per KV block (paged); 0 = BPW_SERVE_KV_BLOCK */
  gboolean       kv_contiguous; /* reserve the longest request for every sequence */
  double         prefix_hit;    /* fraction of each prompt found in the prefix cache, [0, 1) */
  gint64         chunk_tokens;  /* chunked prefill: prompt tokens per step; 0 = whole prompts */
  gint64         spec_tokens;   /* speculative decoding: draft length k; 0 = off */
  double         spec_accept;   /* acceptance rate α of each draft token, [0, 1) */
  BpwServeModel *draft;         /* borrowed, nullable: the draft model on the same devices;
                                 * NULL = the target's own MTP heads */
} BpwServeOptions;

#define BPW_SERVE_KV_BLOCK     16     /* vLLM's default block size */
#define BPW_SERVE_MAX_KV_BLOCK 65536
#define BPW_SERVE_MAX_SPEC_TOKENS 64

/* The longest draft-model reference a study's serving settings hold, with its NUL. */
#define BPW_SERVE_DRAFT_NAME_SIZE 256

/* The serving features a study's scenario or a trade sweep sets (bpw_serve_settings_apply
 * copies them into a run's options); all zero is the default: a paged KV cache of
 * BPW_SERVE_KV_BLOCK tokens, no prefix cache, whole prefills, no speculation. Speculative
 * decoding drafts with the draft model @draft names, or with none named with the target's
 * MTP heads (a model without them refuses speculation: bpw_serve_check_speculation). */
typedef struct
{
  gint64   kv_block;       /* 0 = BPW_SERVE_KV_BLOCK */
  gboolean kv_contiguous;
  double   prefix_hit;
  gint64   chunk_tokens;
  gint64   spec_tokens;
  double   spec_accept;
  char     draft[BPW_SERVE_DRAFT_NAME_SIZE];  /* a bundled model's name or a model file
                                               * (relative to the study); "" = MTP heads */
  BpwServePools pools;     /* prefill/decode disaggregation (bpw-serve-disagg.h) */
} BpwServeSettings;

typedef struct
{
  double  mean, p50, p95, p99;  /* p-quantiles with linear interpolation between ranks */
} BpwLatencyStats;

typedef struct
{
  double           arrival_rate;
  gint64           requests;          /* completed */
  gint64           rejected;
  BpwLatencyStats  ttft_s, tpot_s, e2e_s;
  double           throughput_tokens_per_s;  /* output tokens over the run */
  double           duration_s;        /* first arrival to last completion */
  double           mean_in_system;    /* time average of requests arrived and not finished */
  double           mean_decode_batch;
  gint64           prefills, decodes;
  gint64           output_tokens;
  gint64           kv_capacity_tokens;  /* per replica */
  gint64           kv_reserve_tokens;   /* contiguous: what each sequence reserves; else 0 */
  gint64           peak_batch;          /* most sequences running at once on a replica */
  double           kv_waste_tokens;     /* mean reserved − held at completion, per request */
  gint64           prompt_tokens;       /* of the requests served: text tokens, as drawn */
  gint64           prefill_tokens;      /* text tokens computed by prefills (prompt − cached
                                         * prefix); each also computes its image tokens */
  double           ep_bytes_per_token;  /* all-to-all bytes an EP rank sends per token
                                         * it decodes (dispatch and combine; 0 without EP) */
  double           tokens_per_verify;   /* speculative: mean tokens a sequence gains per
                                         * verify step (before the output's end); else 1 */
  gint64           images;              /* per request (the model's) */
  gint64           image_tokens;        /* per request: decoder tokens of its images */
  double           encoder_s;           /* mean per request: seconds of the vision encoder
                                         * in the prefill step of its first token */
  double           encoder_ttft_share;  /* encoder_s over the mean TTFT */
} BpwServeResult;

void      bpw_serve_settings_apply (const BpwServeSettings *settings,
                                    BpwServeOptions        *options);
gboolean  bpw_serve_settings_equal (const BpwServeSettings *a,
                                    const BpwServeSettings *b);
gboolean  bpw_serve_settings_is_default (const BpwServeSettings *settings);

/* Speculative decoding of @spec_tokens drafts without a draft model drafts with the
 * target's MTP heads: FALSE, with an error naming @spec's model, when it has none. */
gboolean  bpw_serve_check_speculation (const BpwModelSpec *spec,
                                       gint64              spec_tokens,
                                       gboolean            has_draft,
                                       GError            **error);

/* The longest prompt and prompt + output the stream of @options will draw (for sizing the
 * model before the run). */
void      bpw_serve_stream_bounds (const BpwServeOptions *options,
                                   gint64                *longest_prompt,
                                   gint64                *longest_request);

gboolean  bpw_serve_run           (BpwServeModel         *model,
                                   const BpwServeOptions *options,
                                   BpwServeResult        *result,
                                   GError               **error);

/* The `bpw serve --json` object: one result's keys at the top level, and with @n > 1 the
 * list "sweep" of all of them (one per arrival rate); "stream" and "serving" (the KV
 * layout, prefix hit rate and, with @model, the replica's devices, EP, KV dtype and
 * weights). */
char     *bpw_serve_to_json       (const BpwServeResult  *results,
                                   guint                  n,
                                   const BpwServeOptions *options,
                                   const BpwServeModel   *model);

G_END_DECLS
