/* bpw-serve.c — continuous batching of a seeded request stream on serving replicas
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-serve"

#include "config.h"

#include "bpw-serve.h"
#include "bpw-serve-private.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-writer.h"

static GRand *
seeded (guint64 seed)
{
  guint32 words[2] = { (guint32) seed, (guint32) (seed >> 32) };

  return g_rand_new_with_seed_array (words, 2);
}

/* The whole stream, drawn in a fixed order: gap, prompt, output per request. */
static GArray *
draw (const BpwServeOptions *o)
{
  GArray *reqs = g_array_sized_new (FALSE, TRUE, sizeof (Request), (guint) o->requests);
  g_autoptr(GRand) rand = seeded (o->seed);
  double t = 0;

  for (gint64 i = 0; i < o->requests; i++)
    {
      Request r = { 0 };

      t += -log (1.0 - g_rand_double (rand)) / o->arrival_rate;
      r.arrival = t;
      r.prompt = bpw_length_dist_sample (&o->prompt, rand);
      r.output = bpw_length_dist_sample (&o->output, rand);
      g_array_append_val (reqs, r);
    }
  return reqs;
}

void
bpw_serve_settings_apply (const BpwServeSettings *settings,
                          BpwServeOptions        *o)
{
  o->kv_block = settings->kv_block;
  o->kv_contiguous = settings->kv_contiguous;
  o->prefix_hit = settings->prefix_hit;
  o->chunk_tokens = settings->chunk_tokens;
  o->spec_tokens = settings->spec_tokens;
  o->spec_accept = settings->spec_accept;
  o->draft = NULL;
}

gboolean
bpw_serve_settings_equal (const BpwServeSettings *a,
                          const BpwServeSettings *b)
{
  gint64 block_a = a->kv_block > 0 ? a->kv_block : BPW_SERVE_KV_BLOCK;
  gint64 block_b = b->kv_block > 0 ? b->kv_block : BPW_SERVE_KV_BLOCK;

  return block_a == block_b && !a->kv_contiguous == !b->kv_contiguous &&
         a->prefix_hit == b->prefix_hit && a->chunk_tokens == b->chunk_tokens &&
         a->spec_tokens == b->spec_tokens && a->spec_accept == b->spec_accept &&
         strcmp (a->draft, b->draft) == 0 &&
         bpw_serve_pools_equal (&a->pools, &b->pools);
}

gboolean
bpw_serve_settings_is_default (const BpwServeSettings *settings)
{
  static const BpwServeSettings defaults = { 0 };

  return bpw_serve_settings_equal (settings, &defaults);
}

void
bpw_serve_stream_bounds (const BpwServeOptions *options,
                         gint64                *longest_prompt,
                         gint64                *longest_request)
{
  g_autoptr(GArray) reqs = draw (options);

  *longest_prompt = 1;
  *longest_request = 2;
  for (guint i = 0; i < reqs->len; i++)
    {
      const Request *r = &g_array_index (reqs, Request, i);

      *longest_prompt = MAX (*longest_prompt, r->prompt);
      *longest_request = MAX (*longest_request, r->prompt + r->output);
    }
}

/* The KV layout: each request's reservation in units of the cache (blocks when paged,
 * tokens when contiguous), its waste, and the cached part of its prompt. */
static void
reserve (Run *run, const BpwServeOptions *o)
{
  gint64 block = o->kv_block > 0 ? o->kv_block : BPW_SERVE_KV_BLOCK, longest = 0;
  gint64 contiguous = 0, images = bpw_serve_model_image_kv_tokens (run->model);

  for (guint i = 0; i < run->reqs->len; i++)
    {
      const Request *r = &g_array_index (run->reqs, Request, i);

      longest = MAX (longest, images + r->prompt + r->output);
    }
  if (o->kv_contiguous)
    {
      contiguous = bpw_serve_model_kv_tokens (run->model, longest);
      run->capacity = bpw_serve_model_kv_capacity (run->model);
      run->out->kv_reserve_tokens = contiguous;
    }
  else
    run->capacity = bpw_serve_model_kv_capacity (run->model) / block;
  for (guint i = 0; i < run->reqs->len; i++)
    {
      Request *r = &g_array_index (run->reqs, Request, i);
      gint64 held = bpw_serve_model_kv_tokens (run->model, images + r->prompt + r->output);

      r->reserve = o->kv_contiguous ? contiguous : (held + block - 1) / block;
      r->cached = MIN ((gint64) floor ((double) r->prompt * o->prefix_hit), r->prompt - 1);
    }
}

static double
waste_tokens (const Run *run, const BpwServeOptions *o, const Request *r)
{
  gint64 block = o->kv_contiguous ? 1 : o->kv_block > 0 ? o->kv_block : BPW_SERVE_KV_BLOCK;

  return (double) (r->reserve * block -
                   bpw_serve_model_kv_tokens (run->model,
                                              bpw_serve_model_image_kv_tokens (run->model)
                                                          + r->prompt + r->output));
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
stats (GArray *values, BpwLatencyStats *out)
{
  const double p[3] = { 0.50, 0.95, 0.99 };
  double *q[3] = { &out->p50, &out->p95, &out->p99 };
  double sum = 0;
  guint n = values->len;

  if (n == 0)
    {
      out->mean = out->p50 = out->p95 = out->p99 = NAN;
      return;
    }
  g_array_sort (values, compare_double);
  for (guint i = 0; i < n; i++)
    sum += g_array_index (values, double, i);
  out->mean = sum / n;
  for (guint k = 0; k < 3; k++)
    {
      double h = (n - 1) * p[k];
      guint lo = (guint) floor (h), hi = MIN (lo + 1, n - 1);
      double a = g_array_index (values, double, lo), b = g_array_index (values, double, hi);

      *q[k] = a + (h - lo) * (b - a);
    }
}

gboolean
bpw_serve_check_speculation (const BpwModelSpec *spec,
                             gint64              spec_tokens,
                             gboolean            has_draft,
                             GError            **error)
{
  if (spec_tokens <= 0 || has_draft || spec->mtp_modules > 0)
    return TRUE;
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("speculative decoding of %" PRId64 " draft tokens without a draft model "
               "drafts with the target's multi-token-prediction (MTP) heads, and “%s” has "
               "none; name a draft model"), spec_tokens, spec->name ? spec->name : "");
  return FALSE;
}

gboolean
bpw_serve_run (BpwServeModel         *model,
               const BpwServeOptions *options,
               BpwServeResult        *out,
               GError               **error)
{
  Run run = { .model = model, .out = out };
  Tally tally;

  g_return_val_if_fail (options->arrival_rate >= BPW_SERVE_MIN_ARRIVAL_RATE, FALSE);
  memset (out, 0, sizeof *out);
  if (options->requests < 1 || options->requests > BPW_SERVE_MAX_REQUESTS)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("serve: %" PRId64 " requests; a run simulates from 1 to %" PRId64),
                   options->requests, BPW_SERVE_MAX_REQUESTS);
      return FALSE;
    }
  if (options->chunk_tokens < 0 || options->spec_tokens < 0 ||
      options->spec_tokens > BPW_SERVE_MAX_SPEC_TOKENS ||
      !(options->spec_accept >= 0 && options->spec_accept < 1))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("serve: chunks of %" PRId64 " tokens, %" PRId64 " draft tokens accepted "
                   "with probability %g; chunks must not be negative, drafts from 0 to %d "
                   "tokens, the acceptance rate at least 0 and below 1"),
                   options->chunk_tokens, options->spec_tokens, options->spec_accept,
                   BPW_SERVE_MAX_SPEC_TOKENS);
      return FALSE;
    }
  if (!(options->prefix_hit >= 0 && options->prefix_hit < 1) || options->kv_block < 0 ||
      options->kv_block > BPW_SERVE_MAX_KV_BLOCK)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("serve: a prefix-cache hit rate of %g and KV blocks of %" PRId64 " tokens; "
                   "the hit rate must be at least 0 and below 1, the block from 1 to %d tokens"),
                   options->prefix_hit, options->kv_block, BPW_SERVE_MAX_KV_BLOCK);
      return FALSE;
    }
  if (!bpw_serve_check_speculation (bpw_serve_model_spec (model), options->spec_tokens,
                                    options->draft != NULL, error))
    {
      g_prefix_error (error, _("serve: "));
      return FALSE;
    }
  /* A chunk would split a request's image tokens from the encoder step that makes them. */
  if (options->chunk_tokens > 0 && bpw_serve_model_images (model) > 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("serve: chunked prefill of requests with %" PRId64 " images each is not "
                   "modelled; serve them with whole prefills or with images 0"),
                   bpw_serve_model_images (model));
      return FALSE;
    }
  out->arrival_rate = options->arrival_rate;
  out->images = bpw_serve_model_images (model);
  out->image_tokens = bpw_serve_model_image_tokens (model);
  out->kv_capacity_tokens = bpw_serve_model_kv_capacity (model);
  out->ep_bytes_per_token = bpw_serve_model_ep_bytes_per_sequence (model);
  run.reqs = draw (options);
  reserve (&run, options);
  for (gint64 r = 0; r < MAX (options->replicas, 1); r++)
    if (!_bpw_serve_replica (&run, options, r, MAX (options->replicas, 1), error))
      {
        g_array_unref (run.reqs);
        return FALSE;
      }

  _bpw_serve_tally_init (&tally);
  for (guint i = 0; i < run.reqs->len; i++)
    {
      const Request *r = &g_array_index (run.reqs, Request, i);

      tally.first = MIN (tally.first, r->arrival);
      tally.last = MAX (tally.last, r->done);
      tally.in_system += r->done - r->arrival;
      if (!r->rejected)
        _bpw_serve_tally_served (&tally, &run, options, r->arrival, r);
    }
  g_array_unref (run.reqs);
  _bpw_serve_tally_finish (&tally, &run);
  return TRUE;
}

static void
number_or_null (BpwJsonWriter *w, const char *key, double v)
{
  if (isfinite (v))
    bpw_json_writer_double (w, key, v);
  else
    bpw_json_writer_null (w, key);
}

static void
write_stats (BpwJsonWriter *w, const char *key, const BpwLatencyStats *s)
{
  bpw_json_writer_begin_object (w, key);
  number_or_null (w, "mean", s->mean);
  number_or_null (w, "p50", s->p50);
  number_or_null (w, "p95", s->p95);
  number_or_null (w, "p99", s->p99);
  bpw_json_writer_end_object (w);
}

static void
write_stream (BpwJsonWriter *w, const BpwServeOptions *o, gboolean replicas)
{
  g_autofree char *prompt = bpw_length_dist_to_string (&o->prompt);
  g_autofree char *output = bpw_length_dist_to_string (&o->output);

  bpw_json_writer_begin_object (w, "stream");
  bpw_json_writer_int (w, "seed", (gint64) o->seed);
  bpw_json_writer_int (w, "requests", o->requests);
  bpw_json_writer_string (w, "prompt_len", prompt);
  bpw_json_writer_string (w, "prompt_counts", "text tokens");
  bpw_json_writer_string (w, "output_len", output);
  if (replicas)
    bpw_json_writer_int (w, "replicas", o->replicas);
  bpw_json_writer_string (w, "arrivals", "poisson");
  bpw_json_writer_end_object (w);
}

static void
write_kv_serving (BpwJsonWriter *w, const BpwServeOptions *o)
{
  bpw_json_writer_string (w, "kv_layout", o->kv_contiguous ? "contiguous" : "paged");
  if (!o->kv_contiguous)
    bpw_json_writer_int (w, "kv_block", o->kv_block > 0 ? o->kv_block : BPW_SERVE_KV_BLOCK);
  bpw_json_writer_double (w, "prefix_hit", o->prefix_hit);
  bpw_json_writer_int (w, "chunk_tokens", o->chunk_tokens);
  bpw_json_writer_int (w, "spec_tokens", o->spec_tokens);
}

static void
write_result (BpwJsonWriter *w, const BpwServeResult *r)
{
  bpw_json_writer_double (w, "arrival_rate", r->arrival_rate);
  bpw_json_writer_int (w, "requests", r->requests);
  bpw_json_writer_int (w, "rejected", r->rejected);
  write_stats (w, "ttft_s", &r->ttft_s);
  write_stats (w, "tpot_s", &r->tpot_s);
  write_stats (w, "e2e_s", &r->e2e_s);
  bpw_json_writer_double (w, "throughput_tokens_per_s", r->throughput_tokens_per_s);
  bpw_json_writer_int (w, "output_tokens", r->output_tokens);
  bpw_json_writer_double (w, "duration_s", r->duration_s);
  bpw_json_writer_double (w, "mean_in_system", r->mean_in_system);
  bpw_json_writer_double (w, "mean_decode_batch", r->mean_decode_batch);
  bpw_json_writer_int (w, "prefills", r->prefills);
  bpw_json_writer_int (w, "decodes", r->decodes);
  bpw_json_writer_int (w, "kv_capacity_tokens", r->kv_capacity_tokens);
  bpw_json_writer_int (w, "kv_reserve_tokens", r->kv_reserve_tokens);
  bpw_json_writer_int (w, "peak_batch", r->peak_batch);
  bpw_json_writer_double (w, "kv_waste_tokens", r->kv_waste_tokens);
  bpw_json_writer_int (w, "prompt_tokens", r->prompt_tokens);
  bpw_json_writer_int (w, "prefill_tokens", r->prefill_tokens);
  bpw_json_writer_double (w, "ep_bytes_per_token", r->ep_bytes_per_token);
  bpw_json_writer_double (w, "tokens_per_verify", r->tokens_per_verify);
  bpw_json_writer_double (w, "encoder_s", r->encoder_s);
  bpw_json_writer_double (w, "encoder_ttft_share", r->encoder_ttft_share);
}

char *
bpw_serve_to_json (const BpwServeResult  *results,
                   guint                  n,
                   const BpwServeOptions *o,
                   const BpwServeModel   *model)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  write_result (&w, &results[0]);
  write_stream (&w, o, TRUE);
  bpw_json_writer_begin_object (&w, "serving");
  write_kv_serving (&w, o);
  if (o->spec_tokens > 0)
    {
      bpw_json_writer_double (&w, "spec_accept", o->spec_accept);
      bpw_json_writer_string (&w, "draft", o->draft != NULL ? "model" : "mtp");
    }
  if (model != NULL)
    {
      bpw_json_writer_string (&w, "kv_dtype",
                              bpw_dtype_to_string (bpw_serve_model_kv_dtype (model)));
      bpw_json_writer_string (&w, "weights", bpw_serve_model_weights (model));
      bpw_json_writer_int (&w, "devices_per_replica", bpw_serve_model_devices (model));
      bpw_json_writer_int (&w, "ep", bpw_serve_model_ep (model));
      bpw_json_writer_int (&w, "images_per_request", bpw_serve_model_images (model));
      bpw_json_writer_int (&w, "image_tokens_per_request",
                           bpw_serve_model_image_tokens (model));
    }
  bpw_json_writer_end_object (&w);
  if (n > 1)
    {
      bpw_json_writer_begin_array (&w, "sweep");
      for (guint i = 0; i < n; i++)
        {
          bpw_json_writer_begin_object (&w, NULL);
          write_result (&w, &results[i]);
          bpw_json_writer_end_object (&w);
        }
      bpw_json_writer_end_array (&w);
    }
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}

GArray *
_bpw_serve_draw (const BpwServeOptions *options)
{
  return draw (options);
}

void
_bpw_serve_reserve (Run                   *run,
                    const BpwServeOptions *options)
{
  reserve (run, options);
}

void
_bpw_serve_write_result (BpwJsonWriter        *writer,
                         const BpwServeResult *result)
{
  write_result (writer, result);
}

void
_bpw_serve_write_stream (BpwJsonWriter         *writer,
                         const BpwServeOptions *options,
                         gboolean               replicas)
{
  write_stream (writer, options, replicas);
}

void
_bpw_serve_write_kv_serving (BpwJsonWriter         *writer,
                             const BpwServeOptions *options)
{
  write_kv_serving (writer, options);
}

void
_bpw_serve_tally_init (Tally *tally)
{
  *tally = (Tally) {
    .ttft = g_array_new (FALSE, FALSE, sizeof (double)),
    .tpot = g_array_new (FALSE, FALSE, sizeof (double)),
    .e2e = g_array_new (FALSE, FALSE, sizeof (double)),
    .first = G_MAXDOUBLE,
  };
}

void
_bpw_serve_tally_served (Tally                 *tally,
                         Run                   *run,
                         const BpwServeOptions *options,
                         double                 arrival,
                         const Request         *served)
{
  double v;

  run->out->requests++;
  run->out->prompt_tokens += served->prompt;
  tally->encoder += served->encoder;
  run->waste += waste_tokens (run, options, served);
  v = served->first - arrival;
  g_array_append_val (tally->ttft, v);
  v = served->done - arrival;
  g_array_append_val (tally->e2e, v);
  if (served->output > 1)
    {
      v = (served->done - served->first) / (double) (served->output - 1);
      g_array_append_val (tally->tpot, v);
    }
}

void
_bpw_serve_tally_finish (Tally     *tally,
                         const Run *run)
{
  BpwServeResult *out = run->out;

  stats (tally->ttft, &out->ttft_s);
  stats (tally->tpot, &out->tpot_s);
  stats (tally->e2e, &out->e2e_s);
  g_clear_pointer (&tally->ttft, g_array_unref);
  g_clear_pointer (&tally->tpot, g_array_unref);
  g_clear_pointer (&tally->e2e, g_array_unref);
  out->duration_s = tally->last - tally->first;
  if (out->duration_s > 0)
    {
      out->throughput_tokens_per_s = (double) out->output_tokens / out->duration_s;
      out->mean_in_system = tally->in_system / out->duration_s;
    }
  out->mean_decode_batch = out->decodes > 0 ? run->decode_batches / (double) out->decodes : 0;
  out->kv_waste_tokens = out->requests > 0 ? run->waste / (double) out->requests : 0;
  out->encoder_s = out->requests > 0 ? tally->encoder / (double) out->requests : 0;
  out->encoder_ttft_share = out->ttft_s.mean > 0 ? out->encoder_s / out->ttft_s.mean : 0;
  out->tokens_per_verify = run->verified > 0 ? run->drafted / run->verified : 1;
}
