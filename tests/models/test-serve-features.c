/* test-serve-features.c — modern serving against the closed forms each feature predicts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Expert parallelism (expert weights split over the EP ranks, the all-to-all bytes of
 * every MoE layer), the paged KV cache against a contiguous maximum-length reservation,
 * prefix caching, an FP8 KV cache, sliding-window KV, chunked prefill, speculative decoding
 * (MTP heads or a draft model) and images per request, each changing `bpw serve`'s
 * figures in the direction and by the size its simple formula gives.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-serve.h"
#include "bpw-test-serve.h"

static double
hbm_bandwidth (const BpwBlueprint *bp)
{
  return bp->memory[bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE)].bandwidth.value;
}

static double
fastest_link (const BpwBlueprint *bp)
{
  double link = 0;

  for (guint i = 0; i < bp->n_tiers; i++)
    link = MAX (link, bp->tiers[i].bandwidth.value);
  return link;
}

/* ---- expert parallelism ---- */

/* Mixtral 8x7B on TP 2 H100s, then the same over EP 2 (four devices, one replica): each
 * device drops half its share of the expert weights, (P − A) · E / (E − k) · bytes ÷ 2 ÷ TP
 * (A the parameters a token uses), and the replica's KV cache grows by that over the KV
 * bytes of a token per device, on each of its two EP ranks. Every decode step sends each
 * token's top-k hidden vectors out and back in every MoE layer: 2 · layers · k · h ·
 * bytes ÷ TP per token, and the step takes at least those bytes over the fastest link. */
static void
test_expert_parallel (void)
{
  g_autoptr(BpwServeModel) one = NULL;
  g_autoptr(BpwServeModel) ep = NULL;
  g_autoptr(GError) error = NULL;
  BpwTestSetup s;
  double act, kv_token, expert_bytes, gain, moe_layers = 0, bytes_token, t;
  const gint64 tp = 2, batch = 64;

  bpw_test_setup_load (&s, "mixtral-8x7b", "h100-sxm-80gb");
  s.mapping.parallel.tp = tp;
  act = bpw_dtype_bytes (s.scenario.dtype);
  kv_token = 2.0 * (double) s.spec.layers * (double) s.spec.kv_heads *
             (double) s.spec.head_dim * bpw_dtype_bytes (s.scenario.kv_dtype) / (double) tp;
  expert_bytes = (double) (bpw_model_spec_parameters (&s.spec) -
                           bpw_model_spec_active_parameters (&s.spec)) *
                 (double) s.spec.experts / (double) (s.spec.experts - s.spec.top_k) *
                 bpw_dtype_bytes (s.spec.param_dtype);
  for (gint64 l = 0; l < s.spec.layers; l++)
    moe_layers += bpw_model_spec_is_moe_layer (&s.spec, l);

  one = bpw_test_serve_model_new (&s, &s.mapping, batch, 1024, 2048);
  g_assert_cmpfloat (bpw_serve_model_ep_bytes_per_sequence (one), ==, 0);

  s.mapping.parallel.dp = 2;
  s.mapping.parallel.ep = 2;
  g_assert_cmpint (bpw_serve_replicas (&s.mapping.parallel), ==, 1);
  g_assert_cmpint (bpw_serve_replica_shards (&s.mapping.parallel), ==, 2);
  ep = bpw_test_serve_model_new (&s, &s.mapping, batch, 1024, 2048);
  g_assert_cmpint (bpw_serve_model_devices (ep), ==, 4);

  gain = expert_bytes / 2.0 / (double) tp / kv_token;
  g_test_message ("KV cache: EP 1 %" G_GINT64_FORMAT " tokens, EP 2 %" G_GINT64_FORMAT
                  " (%" G_GINT64_FORMAT " per rank); expert weights freed per rank: %.0f tokens",
                  bpw_serve_model_kv_capacity (one), bpw_serve_model_kv_capacity (ep),
                  bpw_serve_model_kv_capacity (ep) / 2, gain);
  /* Beside the weights, the working memory of a step differs a little (an EP rank runs
   * half the batch; it holds all-to-all buffers): within 3 % of the freed weights. */
  g_assert_cmpfloat (fabs ((double) bpw_serve_model_kv_capacity (ep) / 2.0 -
                           (double) bpw_serve_model_kv_capacity (one) - gain), <, 0.03 * gain);

  bytes_token = 2.0 * moe_layers * (double) s.spec.top_k * (double) s.spec.hidden * act /
                (double) tp;
  g_test_message ("all-to-all bytes per token and rank: %.0f, closed form %.0f",
                  bpw_serve_model_ep_bytes_per_sequence (ep), bytes_token);
  g_assert_cmpfloat (fabs (bpw_serve_model_ep_bytes_per_sequence (ep) - bytes_token), <=,
                     1e-9 * bytes_token);

  g_assert_true (bpw_serve_model_decode_time (ep, batch, batch * 1024.0, &t, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (t, >=, bytes_token * (double) batch / 2.0 / fastest_link (s.bp));
  bpw_test_setup_clear (&s);
}

/* ---- paged and contiguous KV cache ---- */

/* Every request arrives at once, so the replica admits as many as its KV cache holds. With
 * fixed 500 + 100 tokens in blocks of 16 each takes ⌈600 / 16⌉ = 38 blocks: floor(floor(C /
 * 16) / 38) run together, 8 tokens of each wasted. A contiguous cache reserves the
 * stream's longest request for every sequence: with outputs from 1 to 300, floor(C / L)
 * run, and paging admits at least floor(floor(C / 16) / ⌈L / 16⌉) — more. */
static void
test_paged_kv (void)
{
  g_autoptr(BpwServeModel) m = NULL;
  BpwServeOptions o = bpw_test_stream (1e6, 3000, 3, "fixed:500", "fixed:100");
  BpwServeResult paged, exact, contiguous, varied;
  BpwTestSetup s;
  gint64 c, longest = 0, prompt;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  m = bpw_test_serve_model_new (&s, &s.mapping, 8192, 500, 800);
  c = bpw_serve_model_kv_capacity (m);
  g_assert_cmpint (c / 600, <, o.requests);

  bpw_test_serve (m, &o, &paged);
  g_assert_cmpint (paged.peak_batch, ==, c / 16 / 38);
  g_assert_cmpfloat (paged.kv_waste_tokens, ==, 38 * 16 - 600);
  o.kv_block = 1;
  bpw_test_serve (m, &o, &exact);
  g_assert_cmpint (exact.peak_batch, ==, c / 600);
  g_assert_cmpfloat (exact.kv_waste_tokens, ==, 0);
  g_assert_cmpint (exact.peak_batch, >=, paged.peak_batch);

  o = bpw_test_stream (1e6, 3000, 3, "fixed:500", "uniform:1:300");
  bpw_serve_stream_bounds (&o, &prompt, &longest);
  o.kv_contiguous = TRUE;
  bpw_test_serve (m, &o, &contiguous);
  g_assert_cmpint (contiguous.kv_reserve_tokens, ==, longest);
  g_assert_cmpint (contiguous.peak_batch, ==, c / longest);
  o.kv_contiguous = FALSE;
  o.kv_block = 0;   /* the default, 16 */
  bpw_test_serve (m, &o, &varied);
  g_test_message ("peak batch: contiguous %" G_GINT64_FORMAT " (reserving %" G_GINT64_FORMAT
                  " tokens each, %.1f unused), paged %" G_GINT64_FORMAT " (%.1f unused)",
                  contiguous.peak_batch, longest, contiguous.kv_waste_tokens,
                  varied.peak_batch, varied.kv_waste_tokens);
  g_assert_cmpint (varied.peak_batch, >=, c / 16 / ((longest + 15) / 16));
  g_assert_cmpint (varied.peak_batch, >, contiguous.peak_batch);
  g_assert_cmpfloat (varied.kv_waste_tokens, <=, 15);
  g_assert_cmpfloat (contiguous.kv_waste_tokens, >, 100);
  g_assert_cmpfloat (varied.throughput_tokens_per_s, >, contiguous.throughput_tokens_per_s);
  bpw_test_setup_clear (&s);
}

/* ---- prefix caching ---- */

/* Requests far apart (no queue): TTFT is one prefill. With half of every 2048-token prompt
 * cached the prefill computes 1024 tokens, and TTFT falls to about half (compute-bound:
 * the linear work halves, the attention within the suffix quarters, the weights are read
 * once either way). */
static void
test_prefix_cache (void)
{
  g_autoptr(BpwServeModel) m = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 20, 3, "fixed:2048", "fixed:2");
  BpwServeResult cold, warm;
  BpwTestSetup s;
  double ratio;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  m = bpw_test_serve_model_new (&s, &s.mapping, 64, 2048, 2050);
  bpw_test_serve (m, &o, &cold);
  g_assert_cmpint (cold.prefill_tokens, ==, cold.prompt_tokens);
  o.prefix_hit = 0.5;
  bpw_test_serve (m, &o, &warm);
  g_assert_cmpint (warm.prompt_tokens, ==, 20 * 2048);
  g_assert_cmpint (warm.prefill_tokens, ==, 20 * (2048 - 1024));
  ratio = warm.ttft_s.mean / cold.ttft_s.mean;
  g_test_message ("TTFT %.3f ms cold, %.3f ms with half the prompt cached (x %.3f)",
                  cold.ttft_s.mean * 1e3, warm.ttft_s.mean * 1e3, ratio);
  g_assert_cmpfloat (fabs (ratio - 0.5), <, 0.1);
  /* A hit rate of 1 would leave nothing to compute: refused. */
  o.prefix_hit = 1.0;
  {
    g_autoptr(GError) error = NULL;

    g_assert_false (bpw_serve_run (m, &o, &warm, &error));
    g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  }
  bpw_test_setup_clear (&s);
}

/* ---- FP8 KV cache ---- */

/* One byte per element instead of two: the KV cache holds twice the tokens in the same
 * free memory, and a memory-bound decode step reads half the KV bytes: 64 sequences of
 * 2048 tokens are 64 · 2048 · 2 · layers · kv_heads · head_dim bytes less at FP8, which
 * at the HBM bandwidth is the least time it saves. */
static void
test_fp8_kv (void)
{
  g_autoptr(BpwServeModel) bf16 = NULL;
  g_autoptr(BpwServeModel) fp8 = NULL;
  g_autoptr(GError) error = NULL;
  BpwTestSetup s;
  double t16, t8, saved_bytes, ratio;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  bf16 = bpw_test_serve_model_new (&s, &s.mapping, 64, 2048, 4096);
  s.scenario.kv_dtype = BPW_DTYPE_FP8;
  fp8 = bpw_test_serve_model_new (&s, &s.mapping, 64, 2048, 4096);
  ratio = (double) bpw_serve_model_kv_capacity (fp8) / (double) bpw_serve_model_kv_capacity (bf16);
  g_test_message ("KV cache %" G_GINT64_FORMAT " tokens in bf16, %" G_GINT64_FORMAT " in fp8",
                  bpw_serve_model_kv_capacity (bf16), bpw_serve_model_kv_capacity (fp8));
  g_assert_cmpfloat (fabs (ratio - 2.0), <, 1e-3);

  g_assert_true (bpw_serve_model_decode_time (bf16, 64, 64 * 2048.0, &t16, &error));
  g_assert_true (bpw_serve_model_decode_time (fp8, 64, 64 * 2048.0, &t8, &error));
  g_assert_no_error (error);
  saved_bytes = 64.0 * 2048.0 * 2.0 * (double) s.spec.layers * (double) s.spec.kv_heads *
                (double) s.spec.head_dim * 1.0;
  g_test_message ("decode step %.4f ms in bf16, %.4f ms in fp8; %.0f KV bytes less read, "
                  "%.4f ms at the HBM bandwidth", t16 * 1e3, t8 * 1e3, saved_bytes,
                  saved_bytes / hbm_bandwidth (s.bp) * 1e3);
  g_assert_cmpfloat (t16 - t8, >=, saved_bytes / hbm_bandwidth (s.bp));
  g_assert_cmpfloat (t16 - t8, <=, 2.0 * saved_bytes / hbm_bandwidth (s.bp));
  bpw_test_setup_clear (&s);
}

/* ---- sliding window ---- */

/* With a 1024-token window on every layer (Mistral's rolling buffer) a sequence of 3100
 * tokens holds 1024 per layer: ⌈1024 / 16⌉ = 64 blocks instead of ⌈3100 / 16⌉ = 194, and
 * the cache admits floor(floor(C / 16) / 64) sequences at once. */
static void
test_sliding_window (void)
{
  g_autoptr(BpwServeModel) m = NULL;
  BpwServeOptions o = bpw_test_stream (1e6, 2000, 3, "fixed:3000", "fixed:100");
  BpwServeResult r;
  BpwTestSetup s;
  gint64 c;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  s.spec.window = 1024;
  s.spec.window_first = 0;
  g_assert_true (bpw_model_spec_validate (&s.spec, NULL));
  m = bpw_test_serve_model_new (&s, &s.mapping, 8192, 3000, 3100);
  g_assert_cmpint (bpw_serve_model_kv_tokens (m, 3100), ==, 1024);
  g_assert_cmpint (bpw_serve_model_kv_tokens (m, 700), ==, 700);
  c = bpw_serve_model_kv_capacity (m);
  g_assert_cmpint (c / 16 / 64, <, o.requests);
  bpw_test_serve (m, &o, &r);
  g_test_message ("KV cache %" G_GINT64_FORMAT " tokens: %" G_GINT64_FORMAT " sequences of "
                  "3100 tokens at once through a 1024-token window", c, r.peak_batch);
  g_assert_cmpint (r.peak_batch, ==, c / 16 / 64);
  bpw_test_setup_clear (&s);
}

/* ---- chunked prefill ---- */

/* On the bundled H100 with its software stack (prefill issued eagerly, decode replayed from
 * a CUDA graph): an engine that chunks runs its mixed steps through its serving path, so a
 * chunk step issues as a decode step does (bpw-serve.h).
 * Alone, a prompt of 2048 tokens in chunks of 512 takes n = ⌈2048 / 512⌉ = 4 steps, each
 * the prefill of 512 tokens: TTFT is four of them. Its work per token is the whole
 * prompt's; what a step repeats is at most an empty step (the weights read once and the
 * step's fixed cost: a decode of one token), so TTFT rises by at most (n − 1) of them.
 * Under a moderate mixed load (the prompts of up to 4096 tokens: n ≤ 8), a decode no
 * longer waits for a whole prompt: no step exceeds a chunk of C tokens plus the decode of
 * the running batch, so the tail of TPOT falls to that; the work is the same, so the
 * throughput stays within 2 %; TTFT rises by at most (8 − 1) empty steps on average. */
static void
test_chunked_prefill (void)
{
  g_autoptr(BpwServeModel) m = NULL;
  g_autoptr(GError) error = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 20, 3, "fixed:2048", "fixed:4");
  BpwServeResult whole, chunked;
  BpwTestSetup s;
  double t512, t512_eager, t_empty, t_batch;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  /* This test is about the stack: restore it. */
  bpw_blueprint_free (s.bp);
  s.bp = bpw_blueprint_load ("h100-sxm-80gb", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (s.bp->stack.has_launch);
  g_assert_cmpint (s.bp->stack.launch[BPW_STACK_PHASE_PREFILL], ==, BPW_STACK_LAUNCH_EAGER);
  g_assert_cmpint (s.bp->stack.launch[BPW_STACK_PHASE_DECODE], ==, BPW_STACK_LAUNCH_GRAPH);
  m = bpw_test_serve_model_new (&s, &s.mapping, 256, 4096, 4352);
  bpw_test_serve (m, &o, &whole);
  o.chunk_tokens = 512;
  bpw_test_serve (m, &o, &chunked);
  g_assert_cmpint (whole.prefills, ==, 20);
  g_assert_cmpint (chunked.prefills, ==, 20 * 4);
  g_assert_true (bpw_serve_model_chunk_time (m, 1, 512.0 * 512.0, &t512, &error));
  g_assert_true (bpw_serve_model_prefill_time (m, 1, 512.0 * 512.0, &t512_eager, &error));
  g_assert_true (bpw_serve_model_decode_time (m, 1, 1.0, &t_empty, &error));
  g_assert_no_error (error);
  g_test_message ("TTFT alone: %.3f ms whole, %.3f ms in 4 chunks (4 x %.3f ms; eager "
                  "%.3f ms); bound: whole + 3 x %.3f ms", whole.ttft_s.mean * 1e3,
                  chunked.ttft_s.mean * 1e3, t512 * 1e3, t512_eager * 1e3, t_empty * 1e3);
  /* The chunk step issues through the graph, not the eager prefill's issue stream. */
  g_assert_cmpfloat (t512, <, t512_eager);
  g_assert_cmpfloat (fabs (chunked.ttft_s.mean - 4.0 * t512), <=, 1e-9 * chunked.ttft_s.mean);
  g_assert_cmpfloat (chunked.ttft_s.mean, >, whole.ttft_s.mean);
  g_assert_cmpfloat (chunked.ttft_s.mean, <=, whole.ttft_s.mean + 3.0 * t_empty);

  o = bpw_test_stream (4, 200, 1, "uniform:256:4096", "fixed:256");
  bpw_test_serve (m, &o, &whole);
  o.chunk_tokens = 512;
  bpw_test_serve (m, &o, &chunked);
  g_assert_true (bpw_serve_model_decode_time (m, chunked.peak_batch,
                                              (double) chunked.peak_batch * (4096 + 256),
                                              &t_batch, &error));
  g_assert_no_error (error);
  g_test_message ("under load: TPOT p99 %.3f ms whole, %.3f ms chunked (step ceiling %.3f "
                  "ms); TTFT mean %.3f ms, %.3f ms (bound + %.3f ms); throughput %.1f, "
                  "%.1f tokens/s", whole.tpot_s.p99 * 1e3, chunked.tpot_s.p99 * 1e3,
                  (t512 + t_batch) * 1e3, whole.ttft_s.mean * 1e3, chunked.ttft_s.mean * 1e3,
                  7.0 * t_empty * 1e3, whole.throughput_tokens_per_s,
                  chunked.throughput_tokens_per_s);
  g_assert_cmpfloat (chunked.tpot_s.p99, <, whole.tpot_s.p99);
  g_assert_cmpfloat (chunked.tpot_s.p99, <=, t512 + t_batch);
  g_assert_cmpfloat (fabs (chunked.throughput_tokens_per_s / whole.throughput_tokens_per_s - 1),
                     <, 0.02);
  g_assert_cmpfloat (chunked.ttft_s.mean, >, whole.ttft_s.mean);
  g_assert_cmpfloat (chunked.ttft_s.mean, <=, whole.ttft_s.mean + 7.0 * t_empty);
  bpw_test_setup_clear (&s);
}

/* ---- speculative decoding ---- */

/* k = 4 drafts accepted with α = 0.7 give (1 − α^5) / (1 − α) = 2.773 tokens per verify
 * step. A lone sequence's verify step costs its decode, four drafts from the MTP heads
 * (each a decode ÷ layers) and the prefill of 4 more tokens beyond an empty step, so TPOT
 * falls to that cost over 2.773 tokens. With α = 0 every step yields one token: dearer. */
static void
test_speculative (void)
{
  g_autoptr(BpwServeModel) m = NULL;
  g_autoptr(GError) error = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 200, 3, "fixed:512", "fixed:256");
  BpwServeResult plain, spec, rejected;
  BpwTestSetup s;
  double expected = (1 - pow (0.7, 5)) / (1 - 0.7), t_dec, t_empty, t_extra, cost;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  /* Llama 3 has no MTP heads (speculating without a draft is refused: below); given one
   * module, its arithmetic is DeepSeek-V3's on a model that serves on one device. */
  s.spec.mtp_modules = 1;
  m = bpw_test_serve_model_new (&s, &s.mapping, 64, 512, 768);
  bpw_test_serve (m, &o, &plain);
  g_assert_cmpfloat (plain.tokens_per_verify, ==, 1);
  o.spec_tokens = 4;
  o.spec_accept = 0.7;
  bpw_test_serve (m, &o, &spec);
  g_test_message ("tokens per verify step %.4f, closed form %.4f; TPOT %.3f ms plain, %.3f ms "
                  "speculative", spec.tokens_per_verify, expected, plain.tpot_s.mean * 1e3,
                  spec.tpot_s.mean * 1e3);
  g_assert_cmpfloat (fabs (spec.tokens_per_verify / expected - 1), <, 0.02);

  /* The middle of a sequence's life: 640 tokens cached. */
  g_assert_true (bpw_serve_model_decode_time (m, 1, 640, &t_dec, &error));
  g_assert_true (bpw_serve_model_decode_time (m, 1, 1, &t_empty, &error));
  g_assert_true (bpw_serve_model_prefill_time (m, 1, 16, &t_extra, &error));
  g_assert_no_error (error);
  cost = t_dec * (1 + 4.0 / (double) s.spec.layers) + MAX (t_extra - t_empty, 0);
  g_test_message ("TPOT ratio %.4f, closed form %.4f", spec.tpot_s.mean / plain.tpot_s.mean,
                  cost / expected / t_dec);
  g_assert_cmpfloat (fabs (spec.tpot_s.mean / plain.tpot_s.mean / (cost / expected / t_dec) - 1),
                     <, 0.05);

  o.spec_accept = 0;
  bpw_test_serve (m, &o, &rejected);
  g_assert_cmpfloat (rejected.tokens_per_verify, ==, 1);
  g_assert_cmpfloat (rejected.tpot_s.mean, >, plain.tpot_s.mean);
  bpw_test_setup_clear (&s);
}

/* Without a draft model the MTP heads draft; a model without them refuses speculation,
 * naming the model, and serves with a draft model. */
static void
test_speculative_needs_drafter (void)
{
  g_autoptr(BpwServeModel) m = NULL;
  g_autoptr(BpwServeModel) draft = NULL;
  g_autoptr(GError) error = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 20, 3, "fixed:512", "fixed:64");
  BpwServeResult r;
  BpwTestSetup s;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  g_assert_cmpint (s.spec.mtp_modules, ==, 0);
  m = bpw_test_serve_model_new (&s, &s.mapping, 64, 512, 576);
  o.spec_tokens = 4;
  o.spec_accept = 0.8;
  g_assert_false (bpw_serve_run (m, &o, &r, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "MTP"));
  g_assert_nonnull (strstr (error->message, s.spec.name));
  g_clear_error (&error);
  g_assert_false (bpw_serve_check_speculation (&s.spec, 4, FALSE, NULL));
  g_assert_true (bpw_serve_check_speculation (&s.spec, 0, FALSE, NULL));
  g_assert_true (bpw_serve_check_speculation (&s.spec, 4, TRUE, NULL));

  draft = bpw_test_serve_model_new (&s, &s.mapping, 64, 512, 576);
  o.draft = draft;
  bpw_test_serve (m, &o, &r);
  g_assert_cmpfloat (r.tokens_per_verify, >, 1);
  bpw_test_setup_clear (&s);
}

/* Llama 3 70B on TP 4 H100s drafted by Llama 3 8B on the same devices: k = 3 drafts
 * accepted with α = 0.8 give E = (1 − α^4) / (1 − α) = 2.952 tokens per verify step. A lone
 * sequence's verify step costs k decode steps of the draft, the target's decode and the
 * prefill of k more tokens beyond an empty prefill, so TPOT ≈ (k · t_draft + t_verify) / E
 * with both at the middle of its life (640 tokens cached); within 5 % (the context grows
 * over its life, the draws of acceptance are 200 × 255 tokens). */
static void
test_speculative_draft_model (void)
{
  g_autoptr(BpwServeModel) m = NULL;
  g_autoptr(BpwServeModel) draft = NULL;
  g_autoptr(GError) error = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 200, 3, "fixed:512", "fixed:256");
  BpwServeResult plain, spec;
  BpwTestSetup s, d;
  BpwMapping tp4;
  double expected = (1 - pow (0.8, 4)) / (1 - 0.8), t_dec, t_draft, t_extra, t_empty, cost;

  bpw_test_setup_load (&s, "llama3-70b", "h100-sxm-80gb");
  bpw_test_setup_load (&d, "llama3-8b", "h100-sxm-80gb");
  bpw_mapping_copy (&tp4, &s.mapping);
  tp4.parallel.tp = 4;
  m = bpw_test_serve_model_new (&s, &tp4, 64, 512, 768);
  draft = bpw_test_serve_model_new (&d, &tp4, 64, 512, 768);
  bpw_test_serve (m, &o, &plain);
  o.spec_tokens = 3;
  o.spec_accept = 0.8;
  o.draft = draft;
  bpw_test_serve (m, &o, &spec);
  g_assert_true (bpw_serve_model_decode_time (m, 1, 640, &t_dec, &error));
  g_assert_true (bpw_serve_model_decode_time (draft, 1, 640, &t_draft, &error));
  g_assert_true (bpw_serve_model_prefill_time (m, 1, 9, &t_extra, &error));
  g_assert_true (bpw_serve_model_prefill_time (m, 1, 1, &t_empty, &error));
  g_assert_no_error (error);
  cost = 3.0 * t_draft + t_dec + MAX (t_extra - t_empty, 0);
  g_test_message ("tokens per verify step %.4f, closed form %.4f; TPOT %.3f ms plain, %.3f ms "
                  "drafted, closed form (3 x %.3f + %.3f) / %.4f = %.3f ms",
                  spec.tokens_per_verify, expected, plain.tpot_s.mean * 1e3,
                  spec.tpot_s.mean * 1e3, t_draft * 1e3, (cost - 3.0 * t_draft) * 1e3,
                  expected, cost / expected * 1e3);
  g_assert_cmpfloat (fabs (spec.tokens_per_verify / expected - 1), <, 0.02);
  g_assert_cmpfloat (fabs (spec.tpot_s.mean / (cost / expected) - 1), <, 0.05);
  g_assert_cmpfloat (spec.tpot_s.mean, <, plain.tpot_s.mean);
  bpw_mapping_clear (&tp4);
  bpw_test_setup_clear (&d);
  bpw_test_setup_clear (&s);
}

/* ---- images per request ---- */

/* A Llava-1.5 request of 1024 text tokens and n images alone (no queue): TTFT is one
 * prefill, which now also runs the vision encoder on n images and computes 576 n more
 * tokens. So TTFT rises by the encoder's time plus the text prefill of the longer prompt
 * less that of the shorter; the encoder's time is at least its FLOPs over the matrix peak
 * and grows with the images (less than in proportion: a step's fixed costs are paid once).
 * Images 0 is the text-only prefill exactly. */
static void
test_images_ttft (void)
{
  g_autoptr(BpwServeModel) text = NULL;
  g_autoptr(GError) error = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 20, 3, "fixed:1024", "fixed:2");
  BpwServeResult r0, r[3];
  BpwFacts facts = { 0 };
  BpwTestSetup s;
  gint64 tokens;
  double t0, tn, peak;

  bpw_test_setup_load (&s, "llava-1.5-7b", "h100-sxm-80gb");
  tokens = bpw_model_spec_image_tokens (&s.spec);
  g_assert_cmpint (tokens, ==, 576);
  s.scenario.images_set = TRUE;
  s.scenario.images = 0;
  text = bpw_test_serve_model_new (&s, &s.mapping, 64, 1024, 1026);
  g_assert_cmpint (bpw_serve_model_image_tokens (text), ==, 0);
  bpw_test_serve (text, &o, &r0);
  g_assert_true (bpw_serve_model_prefill_time (text, 1, 1024.0 * 1024.0, &t0, &error));
  g_assert_no_error (error);
  /* One prefill exactly (up to the rounding of its end minus its arrival). */
  g_assert_cmpfloat (fabs (r0.ttft_s.mean - t0), <=, 1e-9 * t0);
  g_assert_cmpfloat (r0.encoder_s, ==, 0);
  g_assert_cmpint (r0.images, ==, 0);

  s.scenario.seq = 2048;
  s.scenario.phase = BPW_WORKLOAD_PREFILL;
  s.scenario.images = 1;
  g_assert_true (bpw_facts_compute (&s.spec, &s.scenario, &s.mapping.parallel, &facts, &error));
  g_assert_no_error (error);
  peak = bpw_blueprint_peak_flops (s.bp, BPW_ENGINE_MATRIX, BPW_PRECISION_BF16);
  for (gint64 n = 1; n <= 2; n++)
    {
      g_autoptr(BpwServeModel) m = NULL;
      double grow;

      s.scenario.images = n;
      m = bpw_test_serve_model_new (&s, &s.mapping, 64, 1024, 1026);
      g_assert_cmpint (bpw_serve_model_images (m), ==, n);
      g_assert_cmpint (bpw_serve_model_image_tokens (m), ==, n * tokens);
      bpw_test_serve (m, &o, &r[n]);
      g_assert_true (bpw_serve_model_prefill_time (text, 1, pow (1024.0 + n * tokens, 2), &tn,
                                                   &error));
      g_assert_no_error (error);
      grow = r[n].encoder_s + tn - t0;
      g_test_message ("%" G_GINT64_FORMAT " image(s): TTFT %.3f ms (text only %.3f ms), "
                      "encoder %.3f ms (%.1f %% of TTFT), closed form rise %.3f ms",
                      n, r[n].ttft_s.mean * 1e3, r0.ttft_s.mean * 1e3, r[n].encoder_s * 1e3,
                      r[n].encoder_ttft_share * 100, grow * 1e3);
      g_assert_cmpfloat (fabs ((r[n].ttft_s.mean - r0.ttft_s.mean) / grow - 1), <, 0.1);
      g_assert_cmpfloat (r[n].encoder_s, >=, (double) n * (double) facts.vision_flops_per_image
                                             / peak);
      g_assert_cmpfloat (fabs (r[n].encoder_ttft_share - r[n].encoder_s / r[n].ttft_s.mean),
                         <, 1e-12);
      g_assert_cmpint (r[n].prompt_tokens, ==, r0.prompt_tokens);
    }
  /* A second image adds work but not a second step's fixed costs. */
  g_assert_cmpfloat (r[2].encoder_s, >, r[1].encoder_s);
  g_assert_cmpfloat (r[2].encoder_s, <=, 2 * r[1].encoder_s * (1 + 1e-9));
  /* Every decode step reads the image tokens' keys and values too. */
  g_assert_cmpfloat (r[1].tpot_s.mean, >, r0.tpot_s.mean);

  /* Over two pipeline stages the encoder still runs whole, on the first. */
  {
    g_autoptr(BpwServeModel) m = NULL;
    BpwServeResult piped;

    s.scenario.images = 1;
    s.mapping.parallel.pp = 2;
    m = bpw_test_serve_model_new (&s, &s.mapping, 64, 1024, 1026);
    bpw_test_serve (m, &o, &piped);
    s.mapping.parallel.pp = 1;
    g_test_message ("encoder %.3f ms over PP 2, %.3f ms alone", piped.encoder_s * 1e3,
                    r[1].encoder_s * 1e3);
    g_assert_cmpfloat (fabs (piped.encoder_s / r[1].encoder_s - 1), <, 0.05);
  }

  /* A chunk would split the image tokens from their encoder step: refused. */
  {
    g_autoptr(BpwServeModel) m = bpw_test_serve_model_new (&s, &s.mapping, 64, 1024, 1026);

    o.chunk_tokens = 512;
    g_assert_false (bpw_serve_run (m, &o, &r[0], &error));
    g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  }
  bpw_facts_clear (&facts);
  bpw_test_setup_clear (&s);
}

/* All requests at once: the paged cache admits ⌊blocks / blocks per request⌋ of them,
 * and a request's blocks cover its image tokens, so the requests the cache holds fall by
 * the images' share of a request (576 of 576 + 1024 + 64 tokens) up to the small change of
 * capacity (the prefill with an image needs a little more working memory). */
static void
test_images_kv (void)
{
  g_autoptr(BpwServeModel) text = NULL;
  g_autoptr(BpwServeModel) img = NULL;
  BpwServeOptions o = bpw_test_stream (1e6, 300, 3, "fixed:1024", "fixed:64");
  BpwServeResult r0, r1;
  BpwTestSetup s;
  double share, fell;

  bpw_test_setup_load (&s, "llava-1.5-7b", "h100-sxm-80gb");
  s.scenario.images_set = TRUE;
  s.scenario.images = 0;
  text = bpw_test_serve_model_new (&s, &s.mapping, 256, 1024, 1088);
  s.scenario.images = 1;
  img = bpw_test_serve_model_new (&s, &s.mapping, 256, 1024, 1088);
  bpw_test_serve (text, &o, &r0);
  bpw_test_serve (img, &o, &r1);
  g_assert_cmpint (r0.peak_batch, ==, r0.kv_capacity_tokens / 16 / (1088 / 16));
  g_assert_cmpint (r1.peak_batch, ==, r1.kv_capacity_tokens / 16 / ((576 + 1088) / 16));
  share = 576.0 / (576.0 + 1088.0);
  fell = 1.0 - (double) r1.peak_batch / (double) r0.peak_batch;
  g_test_message ("KV cache %" G_GINT64_FORMAT " / %" G_GINT64_FORMAT " tokens: %"
                  G_GINT64_FORMAT " requests text only, %" G_GINT64_FORMAT " with an image "
                  "(fell %.3f, the image's share %.3f)", r0.kv_capacity_tokens,
                  r1.kv_capacity_tokens, r0.peak_batch, r1.peak_batch, fell, share);
  g_assert_cmpint (r1.kv_capacity_tokens, <=, r0.kv_capacity_tokens);
  g_assert_cmpfloat (fabs (fell - share), <, 0.03);
  bpw_test_setup_clear (&s);
}

/* Llama 3.2 Vision: an image takes no prompt position (prompt tokens and image tokens are
 * the text's), its prefill runs the encoder, and its keys and values stay cached in the 8
 * cross-attention layers: 4 tiles x 1601 tokens x 8 layers, in tokens of the 32
 * self-attention layers' cache 1601 per image. Decode reads them, so a decode step is
 * dearer with images than without; without images the cross layers are skipped. */
static void
test_images_cross_attention (void)
{
  g_autoptr(BpwServeModel) text = NULL;
  g_autoptr(BpwServeModel) one = NULL;
  g_autoptr(GError) error = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 10, 3, "fixed:512", "fixed:4");
  BpwServeResult r0, r1;
  double d0, d1;
  BpwTestSetup s;

  bpw_test_setup_load (&s, "llama3.2-11b-vision", "h100-sxm-80gb");
  g_assert_cmpint (bpw_model_spec_image_tokens (&s.spec), ==, 0);
  s.scenario.images_set = TRUE;
  s.scenario.images = 0;
  text = bpw_test_serve_model_new (&s, &s.mapping, 16, 512, 516);
  s.scenario.images = 1;
  one = bpw_test_serve_model_new (&s, &s.mapping, 16, 512, 516);
  g_assert_cmpint (bpw_serve_model_image_tokens (one), ==, 0);
  g_assert_cmpint (bpw_serve_model_image_kv_tokens (text), ==, 0);
  g_assert_cmpint (bpw_serve_model_image_kv_tokens (one), ==, 4 * 1601 * 8 / 32);
  bpw_test_serve (text, &o, &r0);
  bpw_test_serve (one, &o, &r1);
  g_assert_cmpint (r1.prompt_tokens, ==, r0.prompt_tokens);
  g_assert_cmpfloat (r1.encoder_s, >, 0);
  g_assert_cmpfloat (r1.ttft_s.mean, >, r0.ttft_s.mean + r1.encoder_s * 0.9);
  g_assert_true (bpw_serve_model_decode_time (text, 1, 600, &d0, &error));
  g_assert_true (bpw_serve_model_decode_time (one, 1, 600, &d1, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (d1, >, d0);
  g_assert_cmpfloat (r1.tpot_s.mean, >, r0.tpot_s.mean);
  bpw_test_setup_clear (&s);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/ServeFeatures/expert-parallel", test_expert_parallel);
  g_test_add_func ("/bpw/core/ServeFeatures/paged-kv", test_paged_kv);
  g_test_add_func ("/bpw/core/ServeFeatures/prefix-cache", test_prefix_cache);
  g_test_add_func ("/bpw/core/ServeFeatures/fp8-kv", test_fp8_kv);
  g_test_add_func ("/bpw/core/ServeFeatures/sliding-window", test_sliding_window);
  g_test_add_func ("/bpw/core/ServeFeatures/chunked-prefill", test_chunked_prefill);
  g_test_add_func ("/bpw/core/ServeFeatures/speculative", test_speculative);
  g_test_add_func ("/bpw/core/ServeFeatures/speculative-needs-drafter",
                   test_speculative_needs_drafter);
  g_test_add_func ("/bpw/core/ServeFeatures/speculative-draft-model",
                   test_speculative_draft_model);
  g_test_add_func ("/bpw/core/ServeFeatures/images-ttft", test_images_ttft);
  g_test_add_func ("/bpw/core/ServeFeatures/images-kv", test_images_kv);
  g_test_add_func ("/bpw/core/ServeFeatures/images-cross-attention",
                   test_images_cross_attention);
  return g_test_run ();
}
