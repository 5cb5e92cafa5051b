/* bpw-cli-serve-disagg.c — `bpw serve --disaggregate`: prefill and decode pools
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-serve"

#include "config.h"

#include "bpw-cli-serve-disagg.h"

#include <stdio.h>

#include "bpw-cli.h"
#include "bpw-cli-print.h"

static BpwServeModel *
pool_model (BpwCliSetup *setup, gint64 tp, gint64 pp, gint64 max_batch,
            const BpwServeOptions *o, const char *pool, GError **error)
{
  BpwMapping mapping;
  gint64 longest_prompt, longest_request;
  BpwServeModel *m;

  bpw_serve_stream_bounds (o, &longest_prompt, &longest_request);
  bpw_serve_pool_mapping (&setup->mapping, tp, pp, &mapping);
  m = bpw_serve_model_new (&setup->spec, &setup->scenario, setup->blueprint, &mapping,
                           max_batch, longest_prompt, longest_request, error);
  bpw_mapping_clear (&mapping);
  if (m == NULL)
    g_prefix_error (error, "%s pool (TP %" G_GINT64_FORMAT ", PP %" G_GINT64_FORMAT "): ",
                    pool, tp, pp);
  return m;
}

static void
describe_stats (GString *out, const char *label, const BpwLatencyStats *s, double scale,
                const char *unit)
{
  g_string_append_printf (out, "  %-22s %10.4g %10.4g %10.4g %10.4g  %s\n", label,
                          s->mean * scale, s->p50 * scale, s->p95 * scale, s->p99 * scale, unit);
}

static char *
to_text (const BpwServeDisaggResult *results, guint n, const BpwServeOptions *o,
         const BpwCliSetup *setup, const BpwServePools *pools, const BpwServeLink *link)
{
  GString *out = g_string_new (NULL);
  g_autofree char *prompt = bpw_length_dist_to_string (&o->prompt);
  g_autofree char *output = bpw_length_dist_to_string (&o->output);
  const BpwServeDisaggResult *r0 = &results[0];

  g_string_append_printf (out, "Serving %s on %s, disaggregated: %" G_GINT64_FORMAT
                          " prefill replica(s) of %" G_GINT64_FORMAT " devices (TP %"
                          G_GINT64_FORMAT ", PP %" G_GINT64_FORMAT "), %" G_GINT64_FORMAT
                          " decode replica(s) of %" G_GINT64_FORMAT " devices (TP %"
                          G_GINT64_FORMAT ", PP %" G_GINT64_FORMAT "); %" G_GINT64_FORMAT
                          " devices in all\n", setup->spec.name, setup->blueprint->name,
                          r0->prefill_replicas, r0->prefill_devices, pools->prefill_tp,
                          pools->prefill_pp, r0->decode_replicas, r0->decode_devices,
                          pools->decode_tp, pools->decode_pp,
                          r0->prefill_replicas * r0->prefill_devices +
                          r0->decode_replicas * r0->decode_devices);
  g_string_append_printf (out, "KV caches cross tier %s (%.4g GB/s, %.4g us) on one link; "
                          "KV cache %" G_GINT64_FORMAT " tokens per decode replica (%s)\n",
                          link->tier, link->bandwidth / 1e9, link->latency * 1e6,
                          r0->whole.kv_capacity_tokens,
                          bpw_dtype_to_string (setup->scenario.kv_dtype));
  g_string_append_printf (out, "%" G_GINT64_FORMAT " requests, Poisson arrivals, prompts %s, "
                          "outputs %s, seed %" G_GUINT64_FORMAT "\n", o->requests, prompt,
                          output, o->seed);
  for (guint i = 0; i < n; i++)
    {
      const BpwServeDisaggResult *d = &results[i];
      const BpwServeResult *r = &d->whole;

      g_string_append_printf (out, "\nArrival rate %.4g requests/s: %" G_GINT64_FORMAT
                              " served, %" G_GINT64_FORMAT " rejected (larger than a pool's "
                              "KV cache)\n", r->arrival_rate, r->requests, r->rejected);
      g_string_append_printf (out, "  %-22s %10s %10s %10s %10s\n", "", "mean", "p50", "p95",
                              "p99");
      describe_stats (out, "time to first token", &r->ttft_s, 1e3, "ms");
      describe_stats (out, "time per output token", &r->tpot_s, 1e3, "ms");
      describe_stats (out, "end to end", &r->e2e_s, 1.0, "s");
      g_string_append_printf (out, "  %-22s %10.4g tokens/s, %.4g per device (mean decode "
                              "batch %.1f)\n", "throughput", r->throughput_tokens_per_s,
                              d->throughput_per_device, r->mean_decode_batch);
      g_string_append_printf (out, "  %-22s prefill %.1f %%, decode %.1f %%, link %.1f %%\n",
                              "utilisation", d->prefill_utilisation * 100.0,
                              d->decode_utilisation * 100.0, d->link_utilisation * 100.0);
      g_string_append_printf (out, "  %-22s %.4g MiB per request (%.4g MiB per link), %.4g ms "
                              "each, %.4g ms waiting for the link\n", "KV transfer",
                              d->kv_bytes_per_request / 1048576.0,
                              d->kv_link_bytes_per_request / 1048576.0,
                              d->kv_transfer_s * 1e3, d->kv_wait_s * 1e3);
    }
  return g_string_free (out, FALSE);
}

int
bpw_cli_serve_disagg (BpwCliSetup         *setup,
                      BpwServeOptions     *o,
                      GArray              *rates,
                      const BpwServePools *pools,
                      gint64               max_batch,
                      gboolean             json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwServeModel) prefill = NULL;
  g_autoptr(BpwServeModel) decode = NULL;
  g_autofree BpwServeDisaggResult *results = g_new0 (BpwServeDisaggResult, rates->len);
  g_autofree char *text = NULL;
  BpwServeLink link;

  o->arrival_rate = g_array_index (rates, double, 0);
  if (!bpw_serve_link_lookup (setup->blueprint, pools->kv_tier, &link, &error))
    {
      g_prefix_error (&error, "serve: --kv-tier: ");
      return bpw_cli_report_error ("serve", error);
    }
  prefill = pool_model (setup, pools->prefill_tp, pools->prefill_pp, max_batch, o, "prefill",
                        &error);
  if (prefill != NULL)
    decode = pool_model (setup, pools->decode_tp, pools->decode_pp, max_batch, o, "decode",
                         &error);
  for (guint i = 0; decode != NULL && error == NULL && i < rates->len; i++)
    {
      o->arrival_rate = g_array_index (rates, double, i);
      bpw_serve_disagg_run (prefill, pools->prefill_replicas, decode, pools->decode_replicas,
                            &link, o, &results[i], &error);
    }
  if (error != NULL)
    return bpw_cli_report_error ("serve", error);
  o->arrival_rate = g_array_index (rates, double, 0);
  text = json ? bpw_serve_disagg_to_json (results, rates->len, o, pools, &link, decode)
              : to_text (results, rates->len, o, setup, pools, &link);
  bpw_cli_print (stdout, "%s", text);
  return BPW_CLI_EXIT_OK;
}
