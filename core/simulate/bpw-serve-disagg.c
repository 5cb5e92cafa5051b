/* bpw-serve-disagg.c — prefill/decode disaggregated serving: two pools and a KV link
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-serve"

#include "config.h"

#include "bpw-serve-disagg.h"
#include "bpw-serve-private.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"

gboolean
bpw_serve_link_lookup (const BpwBlueprint *bp,
                       const char         *tier,
                       BpwServeLink       *link,
                       GError            **error)
{
  int i = tier != NULL ? bpw_blueprint_lookup_tier (bp, tier) : -1;
  const BpwTier *t;

  if (i < 0)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint k = 0; k < bp->n_tiers; k++)
        g_string_append_printf (names, "%s%s", k > 0 ? ", " : "", bp->tiers[k].name);
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("KV tier “%s”: blueprint “%s” has no tier of that name (its tiers: %s)"),
                   tier != NULL ? tier : "", bp->name, names->len > 0 ? names->str : _("none"));
      return FALSE;
    }
  t = &bp->tiers[i];
  if (!t->bandwidth.set || !(t->bandwidth.value > 0) || !t->latency.set
      || !(t->latency.value >= 0))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("KV tier “%s” of blueprint “%s” has no bandwidth or latency to carry KV "
                   "caches"), t->name, bp->name);
      return FALSE;
    }
  link->tier = t->name;
  link->bandwidth = t->bandwidth.value;
  link->latency = t->latency.value;
  return TRUE;
}

void
bpw_serve_pool_mapping (const BpwMapping *base,
                        gint64            tp,
                        gint64            pp,
                        BpwMapping       *pool)
{
  bpw_mapping_copy (pool, base);
  pool->parallel.tp = tp;
  pool->parallel.pp = pp;
  pool->parallel.dp = MAX (base->parallel.ep, 1);
  pool->parallel.zero = 0;
}

guint64
bpw_serve_kv_bytes (const BpwModelSpec *spec,
                    BpwDType            kv_dtype,
                    gint64              length)
{
  return bpw_model_spec_kv_slots (spec, (guint64) MAX (length, 0)) *
         bpw_model_spec_kv_elements (spec) * bpw_dtype_bytes (kv_dtype);
}

gint64
bpw_serve_kv_parts (const BpwModelSpec *spec,
                    const BpwParallel  *p)
{
  /* Every head reads MLA's whole latent: it is replicated over TP, not split. */
  gint64 heads = bpw_model_spec_is_mla (spec) ? 1 : MIN (MAX (p->tp, 1), spec->kv_heads);

  return MAX (heads, 1) * MIN (MAX (p->pp, 1), MAX (spec->layers, 1));
}

/* The links that carry a cache at once: the narrower pool's TP shares times the narrower
 * pool's PP stages (a rank of either pool sends or receives no more than its share). */
static gint64
link_parts (const BpwModelSpec *spec, const BpwParallel *a, const BpwParallel *b)
{
  BpwParallel a_tp = *a, b_tp = *b;
  gint64 shares, stages;

  a_tp.pp = b_tp.pp = 1;
  shares = MIN (bpw_serve_kv_parts (spec, &a_tp), bpw_serve_kv_parts (spec, &b_tp));
  stages = MIN (bpw_serve_kv_parts (spec, a) / bpw_serve_kv_parts (spec, &a_tp),
                bpw_serve_kv_parts (spec, b) / bpw_serve_kv_parts (spec, &b_tp));
  return shares * stages;
}

typedef struct
{
  double   ready;
  guint32  request;
} Ready;

static int
compare_ready (gconstpointer a, gconstpointer b)
{
  const Ready *x = a, *y = b;

  if (x->ready != y->ready)
    return x->ready < y->ready ? -1 : 1;
  return (x->request > y->request) - (x->request < y->request);
}

/* The last step's end of a pool (its requests' completions and rejections). */
static double
pool_end (GArray *reqs)
{
  double end = 0;

  for (guint i = 0; i < reqs->len; i++)
    end = MAX (end, g_array_index (reqs, Request, i).done);
  return end;
}

static gboolean
serve_pool (Run *run, const BpwServeOptions *o, gint64 replicas, GError **error)
{
  _bpw_serve_reserve (run, o);
  for (gint64 r = 0; r < replicas; r++)
    if (!_bpw_serve_replica (run, o, r, replicas, error))
      return FALSE;
  return TRUE;
}

static gboolean
check (const BpwServeModel *prefill, gint64 prefill_replicas, gint64 decode_replicas,
       const BpwServeOptions *o, GError **error)
{
  if (o->requests < 1 || o->requests > BPW_SERVE_MAX_REQUESTS)
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                 _("serve: %" PRId64 " requests; a run simulates from 1 to %" PRId64),
                 o->requests, BPW_SERVE_MAX_REQUESTS);
  else if (prefill_replicas < 1 || prefill_replicas > BPW_SERVE_MAX_POOL_REPLICAS ||
           decode_replicas < 1 || decode_replicas > BPW_SERVE_MAX_POOL_REPLICAS)
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                 _("serve: %" PRId64 " prefill and %" PRId64 " decode replicas; each pool "
                 "has from 1 to %d"), prefill_replicas, decode_replicas,
                 BPW_SERVE_MAX_POOL_REPLICAS);
  else if (o->chunk_tokens > 0 && bpw_serve_model_images (prefill) > 0)
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                 _("serve: chunked prefill of requests with %" PRId64 " images each is not "
                 "modelled; serve them with whole prefills or with images 0"),
                 bpw_serve_model_images (prefill));
  else if (!bpw_serve_check_speculation (bpw_serve_model_spec (prefill), o->spec_tokens,
                                         o->draft != NULL, error))
    g_prefix_error (error, _("serve: "));
  return error == NULL || *error == NULL;
}

gboolean
bpw_serve_disagg_run (BpwServeModel         *prefill,
                      gint64                 prefill_replicas,
                      BpwServeModel         *decode,
                      gint64                 decode_replicas,
                      const BpwServeLink    *link,
                      const BpwServeOptions *o,
                      BpwServeDisaggResult  *out,
                      GError               **error)
{
  g_autoptr(GArray) reqs = NULL;
  g_autoptr(GArray) pre = NULL;
  g_autoptr(GArray) dec = NULL;
  g_autoptr(GArray) order = NULL;
  BpwServeResult pre_out = { 0 };
  BpwServeResult *w = &out->whole;
  BpwServeOptions po = *o;
  Run pr = { .model = prefill, .out = &pre_out };
  Run dr = { .model = decode, .out = w, .decode_only = TRUE };
  const BpwModelSpec *spec = bpw_serve_model_spec (prefill);
  gint64 parts = link_parts (spec, bpw_serve_model_parallel (prefill),
                             bpw_serve_model_parallel (decode));
  BpwDType kv_dtype = bpw_serve_model_kv_dtype (prefill);
  gint64 images = bpw_serve_model_image_tokens (prefill);
  double link_free = 0, link_busy = 0, wait = 0, transfer = 0, link_bytes = 0;
  Tally tally;
  double span;

  g_return_val_if_fail (o->arrival_rate >= BPW_SERVE_MIN_ARRIVAL_RATE, FALSE);
  memset (out, 0, sizeof *out);
  if (!check (prefill, prefill_replicas, decode_replicas, o, error))
    return FALSE;

  /* The prefill pool: each request stops at its first token (and reserves only it). */
  reqs = _bpw_serve_draw (o);
  pre = g_array_copy (reqs);
  for (guint i = 0; i < pre->len; i++)
    g_array_index (pre, Request, i).output = 1;
  po.spec_tokens = 0;
  po.spec_accept = 0;
  po.draft = NULL;
  pr.reqs = pre;
  if (!serve_pool (&pr, &po, prefill_replicas, error))
    return FALSE;

  /* The link: caches in the order their prefills end, one at a time. */
  order = g_array_new (FALSE, FALSE, sizeof (Ready));
  for (guint i = 0; i < pre->len; i++)
    {
      const Request *r = &g_array_index (pre, Request, i);
      Ready e = { .ready = r->first, .request = i };

      if (!r->rejected)
        g_array_append_val (order, e);
    }
  g_array_sort (order, compare_ready);
  dec = g_array_sized_new (FALSE, TRUE, sizeof (Request), order->len);
  for (guint j = 0; j < order->len; j++)
    {
      const Ready *e = &g_array_index (order, Ready, j);
      Request d = g_array_index (reqs, Request, e->request);
      guint64 bytes = bpw_serve_kv_bytes (spec, kv_dtype, images + d.prompt);
      double on_link = (double) ((bytes + (guint64) parts - 1) / (guint64) parts);
      double start = MAX (e->ready, link_free);

      link_free = start + on_link / link->bandwidth;
      link_busy += on_link / link->bandwidth;
      wait += start - e->ready;
      transfer += link->latency + on_link / link->bandwidth;
      link_bytes += on_link;
      out->kv_bytes += (double) bytes;
      d.arrival = d.first = link_free + link->latency;
      d.encoder = g_array_index (pre, Request, e->request).encoder;
      g_array_append_val (dec, d);
    }

  /* The decode pool, in order of the caches' arrival. */
  dr.reqs = dec;
  if (!serve_pool (&dr, o, decode_replicas, error))
    return FALSE;

  w->arrival_rate = o->arrival_rate;
  w->rejected += pre_out.rejected;
  w->output_tokens = 0;
  _bpw_serve_tally_init (&tally);
  for (guint i = 0; i < reqs->len; i++)
    {
      const Request *r = &g_array_index (reqs, Request, i);

      tally.first = MIN (tally.first, r->arrival);
    }
  for (guint i = 0; i < pre->len; i++)
    {
      const Request *r = &g_array_index (pre, Request, i);

      if (r->rejected)
        {
          tally.last = MAX (tally.last, r->done);
          tally.in_system += r->done - r->arrival;
        }
    }
  for (guint j = 0; j < dec->len; j++)
    {
      const Request *d = &g_array_index (dec, Request, j);
      const Request *r = &g_array_index (reqs, Request,
                                         g_array_index (order, Ready, j).request);

      tally.last = MAX (tally.last, d->done);
      tally.in_system += d->done - r->arrival;
      if (d->rejected)
        continue;
      w->output_tokens += d->output;
      _bpw_serve_tally_served (&tally, &dr, o, r->arrival, d);
    }
  _bpw_serve_tally_finish (&tally, &dr);
  w->prefills = pre_out.prefills;
  w->prefill_tokens = pre_out.prefill_tokens;
  w->kv_capacity_tokens = bpw_serve_model_kv_capacity (decode);
  w->ep_bytes_per_token = bpw_serve_model_ep_bytes_per_sequence (decode);
  w->images = bpw_serve_model_images (prefill);
  w->image_tokens = images;

  out->prefill_replicas = prefill_replicas;
  out->decode_replicas = decode_replicas;
  out->prefill_devices = bpw_serve_model_devices (prefill);
  out->decode_devices = bpw_serve_model_devices (decode);
  out->prefill_kv_capacity_tokens = bpw_serve_model_kv_capacity (prefill);
  span = pool_end (pre) - tally.first;
  out->prefill_utilisation = span > 0 ? pr.busy / ((double) prefill_replicas * span) : 0;
  span = pool_end (dec) - tally.first;
  out->decode_utilisation = span > 0 ? dr.busy / ((double) decode_replicas * span) : 0;
  out->link_utilisation = w->duration_s > 0 ? link_busy / w->duration_s : 0;
  if (order->len > 0)
    {
      out->kv_bytes_per_request = out->kv_bytes / (double) order->len;
      out->kv_link_bytes_per_request = link_bytes / (double) order->len;
      out->kv_transfer_s = transfer / (double) order->len;
      out->kv_wait_s = wait / (double) order->len;
    }
  out->throughput_per_device = w->throughput_tokens_per_s /
                               (double) (prefill_replicas * out->prefill_devices +
                                         decode_replicas * out->decode_devices);
  return TRUE;
}

static void
write_pools (BpwJsonWriter *w, const BpwServeDisaggResult *r, const BpwServeLink *link)
{
  bpw_json_writer_begin_object (w, "pools");
  bpw_json_writer_begin_object (w, "prefill");
  bpw_json_writer_int (w, "replicas", r->prefill_replicas);
  bpw_json_writer_int (w, "devices_per_replica", r->prefill_devices);
  bpw_json_writer_int (w, "kv_capacity_tokens", r->prefill_kv_capacity_tokens);
  bpw_json_writer_double (w, "utilisation", r->prefill_utilisation);
  bpw_json_writer_end_object (w);
  bpw_json_writer_begin_object (w, "decode");
  bpw_json_writer_int (w, "replicas", r->decode_replicas);
  bpw_json_writer_int (w, "devices_per_replica", r->decode_devices);
  bpw_json_writer_int (w, "kv_capacity_tokens", r->whole.kv_capacity_tokens);
  bpw_json_writer_double (w, "utilisation", r->decode_utilisation);
  bpw_json_writer_end_object (w);
  bpw_json_writer_end_object (w);
  bpw_json_writer_begin_object (w, "kv_transfer");
  bpw_json_writer_string (w, "tier", link->tier);
  bpw_json_writer_double (w, "bandwidth_bytes_per_s", link->bandwidth);
  bpw_json_writer_double (w, "latency_s", link->latency);
  bpw_json_writer_double (w, "bytes", r->kv_bytes);
  bpw_json_writer_double (w, "bytes_per_request", r->kv_bytes_per_request);
  bpw_json_writer_double (w, "link_bytes_per_request", r->kv_link_bytes_per_request);
  bpw_json_writer_double (w, "time_s", r->kv_transfer_s);
  bpw_json_writer_double (w, "wait_s", r->kv_wait_s);
  bpw_json_writer_double (w, "link_utilisation", r->link_utilisation);
  bpw_json_writer_end_object (w);
  bpw_json_writer_int (w, "devices", r->prefill_replicas * r->prefill_devices +
                                     r->decode_replicas * r->decode_devices);
  bpw_json_writer_double (w, "throughput_tokens_per_s_per_device", r->throughput_per_device);
}

char *
bpw_serve_disagg_to_json (const BpwServeDisaggResult *results,
                          guint                       n,
                          const BpwServeOptions      *o,
                          const BpwServePools        *pools,
                          const BpwServeLink         *link,
                          const BpwServeModel        *decode)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  _bpw_serve_write_result (&w, &results[0].whole);
  write_pools (&w, &results[0], link);
  /* One stream over both pools: no replica count of its own. */
  _bpw_serve_write_stream (&w, o, FALSE);
  bpw_json_writer_begin_object (&w, "serving");
  bpw_json_writer_bool (&w, "disaggregated", TRUE);
  bpw_json_writer_int (&w, "prefill_tp", pools->prefill_tp);
  bpw_json_writer_int (&w, "prefill_pp", pools->prefill_pp);
  bpw_json_writer_int (&w, "decode_tp", pools->decode_tp);
  bpw_json_writer_int (&w, "decode_pp", pools->decode_pp);
  _bpw_serve_write_kv_serving (&w, o);
  bpw_json_writer_string (&w, "kv_dtype",
                          bpw_dtype_to_string (bpw_serve_model_kv_dtype (decode)));
  bpw_json_writer_int (&w, "ep", bpw_serve_model_ep (decode));
  bpw_json_writer_end_object (&w);
  if (n > 1)
    {
      bpw_json_writer_begin_array (&w, "sweep");
      for (guint i = 0; i < n; i++)
        {
          bpw_json_writer_begin_object (&w, NULL);
          _bpw_serve_write_result (&w, &results[i].whole);
          write_pools (&w, &results[i], link);
          bpw_json_writer_end_object (&w);
        }
      bpw_json_writer_end_array (&w);
    }
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}
