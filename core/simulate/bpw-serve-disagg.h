/* bpw-serve-disagg.h — prefill/decode disaggregated serving: two pools and a KV link
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stream of bpw-serve.h goes first to the prefill pool: request i to prefill replica
 * i mod P, which schedules prompts as a colocated replica does (whole or chunked, with
 * the prefix cache and images) but never decodes; its prefill produces the first token.
 * The request's KV cache then crosses a named tier of the blueprint to the decode pool:
 * the transfers queue on one link, first ready first sent, and each takes the tier's
 * latency plus its link bytes over the tier's bandwidth (per direction per device). The
 * cache of L positions (image and prompt tokens) is exactly Σ_layers min(L, window) ×
 * KV elements per token (2 × kv_heads × head_dim, or MLA's latent and rope key) × KV dtype
 * bytes; the pools split it over their TP ranks (min(tp, kv_heads) ways; MLA's latent is
 * replicated over TP, so 1 way) and their PP stages, which all send at once, so one link
 * carries ⌈bytes / (parts × stages)⌉, parts and stages the smaller of the two pools'.
 * A prefill replica frees a request's cache when its prefill ends (the transfer reads a
 * staged copy), so a queue on the link does not hold back its admissions.
 * Request j in order of arrival at the decode pool goes to decode replica j mod D, which
 * holds its whole cache (prompt + output reserved, as colocated) and decodes it with no
 * prefill between its steps.
 *
 * TTFT = the arrival of the cache at the decode pool − the request's arrival (queueing,
 * prefill and transfer); TPOT = (end − that arrival) / (output − 1), from the decode pool
 * alone. A pool's utilisation is its replicas' busy fraction: the seconds of its steps
 * summed over its replicas, over replicas × (its last step's end − the stream's first
 * arrival).
 */
#pragma once

#include "bpw-serve.h"

G_BEGIN_DECLS

typedef struct
{
  const char *tier;        /* borrowed: the blueprint's name for it */
  double      bandwidth;   /* B/s, per direction per device */
  double      latency;     /* s per transfer */
} BpwServeLink;

typedef struct
{
  BpwServeResult whole;            /* latencies, throughput and counts of the system;
                                    * its KV capacity and peak batch are a decode replica's */
  gint64         prefill_replicas, decode_replicas;
  gint64         prefill_devices, decode_devices;   /* per replica */
  gint64         prefill_kv_capacity_tokens;
  double         prefill_utilisation, decode_utilisation;
  double         link_utilisation; /* the link's busy fraction over the same span */
  double         kv_bytes;         /* whole caches of the requests served, summed */
  double         kv_bytes_per_request;
  double         kv_link_bytes_per_request;  /* what one link carries, mean */
  double         kv_transfer_s;    /* mean latency + link bytes / bandwidth */
  double         kv_wait_s;        /* mean wait for the link */
  double         throughput_per_device;  /* output tokens/s over both pools' devices */
} BpwServeDisaggResult;

/* The tier named @tier of @blueprint; an error naming it and listing the tiers when it
 * has none of that name, or a tier without bandwidth or latency. */
gboolean  bpw_serve_link_lookup      (const BpwBlueprint   *blueprint,
                                      const char           *tier,
                                      BpwServeLink         *link,
                                      GError              **error);

/* @base with the pool's replica of @tp × @pp devices: its DP is its EP ranks, one replica
 * (bpw_serve_replicas() gives 1). */
void      bpw_serve_pool_mapping     (const BpwMapping     *base,
                                      gint64                tp,
                                      gint64                pp,
                                      BpwMapping           *pool);

/* Bytes of one request's whole KV cache of @length positions: Σ_layers min(@length,
 * window) × KV elements per token × @kv_dtype's bytes. */
guint64   bpw_serve_kv_bytes         (const BpwModelSpec   *spec,
                                      BpwDType              kv_dtype,
                                      gint64                length);
/* The ways a replica of @parallel splits a request's cache between links that carry it
 * at once: its TP ranks' shares (min(tp, kv_heads); 1 under MLA) times its PP stages. */
gint64    bpw_serve_kv_parts         (const BpwModelSpec   *spec,
                                      const BpwParallel    *parallel);

gboolean  bpw_serve_disagg_run       (BpwServeModel         *prefill,
                                      gint64                 prefill_replicas,
                                      BpwServeModel         *decode,
                                      gint64                 decode_replicas,
                                      const BpwServeLink    *link,
                                      const BpwServeOptions *options,
                                      BpwServeDisaggResult  *result,
                                      GError               **error);

/* The `bpw serve --disaggregate --json` object: the whole system's keys as bpw_serve_to_json
 * gives them, with "pools" (prefill and decode: replicas, devices, utilisation) and
 * "kv_transfer" (tier, bytes, time); with @n > 1 the list "sweep" of all of them. */
char     *bpw_serve_disagg_to_json   (const BpwServeDisaggResult *results,
                                      guint                       n,
                                      const BpwServeOptions      *options,
                                      const BpwServePools        *pools,
                                      const BpwServeLink         *link,
                                      const BpwServeModel        *decode);

G_END_DECLS
