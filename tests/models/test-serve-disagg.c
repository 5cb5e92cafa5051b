/* test-serve-disagg.c — prefill/decode disaggregated serving against its closed forms
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The KV bytes a request moves (dense GQA and DeepSeek-V3's MLA latent), TTFT at light
 * load (colocated plus exactly the transfer), TPOT under a load whose prefills stall a
 * colocated replica's decodes, and each pool's utilisation against arrival rate × mean
 * service time ÷ replicas.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-serve-disagg.h"
#include "bpw-test-serve.h"

static BpwServeModel *
pool_new (BpwTestSetup *s, gint64 tp, gint64 max_batch, gint64 longest_prompt,
          gint64 longest_request)
{
  BpwMapping map;
  BpwServeModel *m;

  bpw_serve_pool_mapping (&s->mapping, tp, 1, &map);
  m = bpw_test_serve_model_new (s, &map, max_batch, longest_prompt, longest_request);
  bpw_mapping_clear (&map);
  return m;
}

static void
link_of (BpwTestSetup *s, const char *tier, BpwServeLink *link)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (bpw_serve_link_lookup (s->bp, tier, link, &error));
  g_assert_no_error (error);
}

static void
serve_disagg (BpwServeModel *p, gint64 np, BpwServeModel *d, gint64 nd,
              const BpwServeLink *link, const BpwServeOptions *o, BpwServeDisaggResult *r)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (bpw_serve_disagg_run (p, np, d, nd, link, o, r, &error));
  g_assert_no_error (error);
}

/* ---- KV bytes ---- */

/* Llama 3 70B (GQA): 80 layers × 2 × 8 KV heads × 128 × 2 bytes = 327 680 bytes a token;
 * TP 8 splits the 8 heads 8 ways, TP 16 no further. DeepSeek-V3 (MLA): 61 layers × (512
 * latent + 64 rope) × 2 bytes = 70 272 bytes a token, the same on every TP rank; PP 2
 * halves either over two stages' links. */
static void
test_kv_bytes (void)
{
  BpwTestSetup s;
  BpwParallel p = { .tp = 8, .pp = 1, .dp = 1 };

  bpw_test_setup_load (&s, "llama3-70b", "h100-sxm-80gb");
  g_assert_cmpuint (bpw_serve_kv_bytes (&s.spec, BPW_DTYPE_BF16, 4096), ==,
                    G_GUINT64_CONSTANT (327680) * 4096);
  g_assert_cmpuint (bpw_serve_kv_bytes (&s.spec, BPW_DTYPE_FP8, 1000), ==,
                    G_GUINT64_CONSTANT (163840) * 1000);
  g_assert_cmpint (bpw_serve_kv_parts (&s.spec, &p), ==, 8);
  p.tp = 16;
  g_assert_cmpint (bpw_serve_kv_parts (&s.spec, &p), ==, 8);
  p.tp = 2;
  p.pp = 2;
  g_assert_cmpint (bpw_serve_kv_parts (&s.spec, &p), ==, 4);
  bpw_test_setup_clear (&s);

  bpw_test_setup_load (&s, "deepseek-v3", "h100-sxm-80gb");
  g_assert_cmpuint (bpw_serve_kv_bytes (&s.spec, BPW_DTYPE_BF16, 4096), ==,
                    G_GUINT64_CONSTANT (61) * 576 * 2 * 4096);
  p.tp = 8;
  p.pp = 1;
  g_assert_cmpint (bpw_serve_kv_parts (&s.spec, &p), ==, 1);
  p.pp = 2;
  g_assert_cmpint (bpw_serve_kv_parts (&s.spec, &p), ==, 2);
  bpw_test_setup_clear (&s);
}

/* ---- TTFT at light load ---- */

/* Requests 100 s apart never queue: colocated TTFT is one prefill; disaggregated, the same
 * prefill and then the cache over InfiniBand, latency + 32 layers × 2 × 8 × 128 × 2 bytes
 * × 2048 tokens ÷ bandwidth later. */
static void
test_light_load_ttft (void)
{
  g_autoptr(BpwServeModel) colo = NULL;
  g_autoptr(BpwServeModel) pre = NULL;
  g_autoptr(BpwServeModel) dec = NULL;
  BpwServeOptions o = bpw_test_stream (0.01, 20, 5, "fixed:2048", "fixed:16");
  BpwServeResult c;
  BpwServeDisaggResult d;
  BpwServeLink link;
  BpwTestSetup s;
  double bytes = 32.0 * 2 * 8 * 128 * 2 * 2048, transfer;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  colo = pool_new (&s, 1, 64, 2048, 2064);
  pre = pool_new (&s, 1, 64, 2048, 2064);
  dec = pool_new (&s, 1, 64, 2048, 2064);
  link_of (&s, "infiniband", &link);
  transfer = link.latency + bytes / link.bandwidth;
  bpw_test_serve (colo, &o, &c);
  serve_disagg (pre, 1, dec, 1, &link, &o, &d);
  g_test_message ("TTFT colocated %.4f ms, disaggregated %.4f ms; transfer %.4f ms of "
                  "%.0f bytes", c.ttft_s.mean * 1e3, d.whole.ttft_s.mean * 1e3,
                  transfer * 1e3, bytes);
  g_assert_cmpint (d.whole.requests, ==, 20);
  g_assert_cmpfloat (d.kv_bytes_per_request, ==, bytes);
  g_assert_cmpfloat (d.kv_link_bytes_per_request, ==, bytes);
  g_assert_cmpfloat (fabs (d.kv_transfer_s - transfer), <=, 1e-12);
  g_assert_cmpfloat (d.kv_wait_s, ==, 0);
  g_assert_cmpfloat (fabs (d.whole.ttft_s.mean - c.ttft_s.mean - transfer), <=, 1e-9);
  g_assert_cmpfloat (fabs (d.whole.ttft_s.p99 - c.ttft_s.p99 - transfer), <=, 1e-9);
  /* Alone, a decode step is the same on either side. */
  g_assert_cmpfloat (fabs (d.whole.tpot_s.mean - c.tpot_s.mean), <=, 1e-9);
  g_assert_cmpint (d.whole.output_tokens, ==, c.output_tokens);
  bpw_test_setup_clear (&s);
}

/* ---- TPOT under load ---- */

/* 4096-token prompts at 6 requests/s: on two colocated replicas every whole prefill (tens
 * of ms) stops the decodes of its replica, about 3 × prefill seconds a second of them; on
 * one prefill and one decode replica (the same two devices) no prefill runs between
 * decode steps, so TPOT's median is lower. */
static void
test_load_tpot (void)
{
  g_autoptr(BpwServeModel) colo = NULL;
  g_autoptr(BpwServeModel) pre = NULL;
  g_autoptr(BpwServeModel) dec = NULL;
  BpwServeOptions o = bpw_test_stream (6, 600, 5, "fixed:4096", "fixed:128");
  BpwServeResult c;
  BpwServeDisaggResult d;
  BpwServeLink link;
  BpwTestSetup s;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  colo = pool_new (&s, 1, 256, 4096, 4224);
  pre = pool_new (&s, 1, 256, 4096, 4224);
  dec = pool_new (&s, 1, 256, 4096, 4224);
  link_of (&s, "nvlink", &link);
  o.replicas = 2;
  bpw_test_serve (colo, &o, &c);
  serve_disagg (pre, 1, dec, 1, &link, &o, &d);
  g_test_message ("TPOT p50 %.3f ms colocated on 2 replicas, %.3f ms on 1 + 1 pools "
                  "(prefill %.1f %% busy, decode %.1f %%); TTFT p50 %.3f ms, %.3f ms",
                  c.tpot_s.p50 * 1e3, d.whole.tpot_s.p50 * 1e3,
                  d.prefill_utilisation * 100, d.decode_utilisation * 100,
                  c.ttft_s.p50 * 1e3, d.whole.ttft_s.p50 * 1e3);
  g_assert_cmpint (d.whole.requests, ==, 600);
  g_assert_cmpint (d.whole.prefills, >, 0);
  g_assert_cmpfloat (d.whole.tpot_s.p50, <, c.tpot_s.p50);
  g_assert_cmpfloat (d.throughput_per_device, >, 0);
  bpw_test_setup_clear (&s);
}

/* ---- utilisation ---- */

/* At 0.5 requests/s over two replicas per pool, a request alone costs S_p = its prefill
 * and S_d = Σ decode steps of contexts 1024 … 1038; each pool is busy λ S ÷ replicas of
 * the time, up to the sampling of 3000 arrivals (a few %) and the rare batching of two. */
static void
test_utilisation (void)
{
  g_autoptr(BpwServeModel) pre = NULL;
  g_autoptr(BpwServeModel) dec = NULL;
  g_autoptr(GError) error = NULL;
  BpwServeOptions o = bpw_test_stream (0.5, 3000, 5, "fixed:1024", "fixed:16");
  BpwServeDisaggResult d;
  BpwServeLink link;
  BpwTestSetup s;
  double sp, sd = 0, t, up, ud;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  pre = pool_new (&s, 1, 64, 1024, 1040);
  dec = pool_new (&s, 1, 64, 1024, 1040);
  link_of (&s, "nvlink", &link);
  g_assert_true (bpw_serve_model_prefill_time (pre, 1, 1024.0 * 1024.0, &sp, &error));
  for (gint64 g = 1; g < 16; g++)
    {
      g_assert_true (bpw_serve_model_decode_time (dec, 1, (double) (1024 + g - 1), &t, &error));
      sd += t;
    }
  g_assert_no_error (error);
  serve_disagg (pre, 2, dec, 2, &link, &o, &d);
  up = 0.5 * sp / 2;
  ud = 0.5 * sd / 2;
  g_test_message ("utilisation prefill %.5f (closed form %.5f), decode %.5f (%.5f)",
                  d.prefill_utilisation, up, d.decode_utilisation, ud);
  g_assert_cmpfloat (fabs (d.prefill_utilisation / up - 1), <, 0.05);
  g_assert_cmpfloat (fabs (d.decode_utilisation / ud - 1), <, 0.05);
  /* Twice the replicas, half the busy fraction each. */
  serve_disagg (pre, 4, dec, 4, &link, &o, &d);
  g_assert_cmpfloat (fabs (d.prefill_utilisation / (up / 2) - 1), <, 0.05);
  g_assert_cmpfloat (fabs (d.decode_utilisation / (ud / 2) - 1), <, 0.05);
  bpw_test_setup_clear (&s);
}

/* ---- the tier ---- */

static void
test_unknown_tier (void)
{
  g_autoptr(GError) error = NULL;
  BpwServeLink link;
  BpwTestSetup s;

  bpw_test_setup_load (&s, "llama3-8b", "h100-sxm-80gb");
  g_assert_false (bpw_serve_link_lookup (s.bp, "ethernet", &link, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "ethernet"));
  g_assert_nonnull (strstr (error->message, "nvlink, infiniband"));
  bpw_test_setup_clear (&s);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/ServeDisagg/kv-bytes", test_kv_bytes);
  g_test_add_func ("/bpw/core/ServeDisagg/light-load-ttft", test_light_load_ttft);
  g_test_add_func ("/bpw/core/ServeDisagg/load-tpot", test_load_tpot);
  g_test_add_func ("/bpw/core/ServeDisagg/utilisation", test_utilisation);
  g_test_add_func ("/bpw/core/ServeDisagg/unknown-tier", test_unknown_tier);
  return g_test_run ();
}
