/* bpw-serve-replica.c — one serving replica's iterations: admission, prefill (whole or
 * chunked), decode (plain or speculative)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-serve"

#include "config.h"

#include "bpw-serve-private.h"

typedef struct
{
  Run                   *run;
  const BpwServeOptions *o;
  GRand                 *accept;    /* draws of speculative acceptance */
  GArray                *running;   /* Running */
  gint64                 kv_used;   /* KV units held */
  double                 t;
  double                 empty;     /* seconds of a decode of one token, one cached: the
                                     * weights read once, what a mixed step shares */
  double                 prefill_empty; /* seconds of a prefill of one token: the fixed cost
                                         * of a prefill step (weights read once, and its
                                         * kernel launches under an eager software stack) */
} Replica;

static void
finish (Replica *rp, guint k)
{
  Running *s = &g_array_index (rp->running, Running, k);
  Request *r = &g_array_index (rp->run->reqs, Request, s->request);

  r->done = rp->t;
  rp->kv_used -= r->reserve;
  rp->run->out->output_tokens += r->output;
  g_array_remove_index (rp->running, k);
}

static Request *
request_of (Replica *rp, const Running *s)
{
  return &g_array_index (rp->run->reqs, Request, s->request);
}

/* Tokens one sequence gains from a verify step: the accepted prefix of k drafts, each
 * accepted with probability α, and the target's own token. */
static gint64
speculate (Replica *rp)
{
  gint64 n = 1;

  while (n <= rp->o->spec_tokens && g_rand_double (rp->accept) < rp->o->spec_accept)
    n++;
  rp->run->drafted += (double) n;
  rp->run->verified += 1;
  return n;
}

/* Seconds of the decode part of a step: @batch sequences with @context cached tokens. */
static gboolean
decode_cost (Replica *rp, gint64 batch, double context, double *seconds, GError **error)
{
  BpwServeModel *m = rp->run->model;
  gint64 k = rp->o->spec_tokens;
  double draft = 0, extra = 0;

  if (!bpw_serve_model_decode_time (m, batch, context, seconds, error))
    return FALSE;
  if (k <= 0)
    return TRUE;
  if (rp->o->draft != NULL)
    {
      gint64 b = MIN (batch, bpw_serve_model_max_batch (rp->o->draft));

      if (!bpw_serve_model_decode_time (rp->o->draft, b, context * (double) b / (double) batch,
                                        &draft, error))
        return FALSE;
      draft *= (double) batch / (double) b;
    }
  else
    draft = *seconds / (double) MAX (bpw_serve_model_layers (m), 1);
  /* The verify step computes k more tokens per sequence than a decode, inside the decode's
   * own step: only the work those tokens add, not a second step's fixed cost (the prefill
   * runs eager where the decode replays a graph, so its launches are not the verify's). */
  if (!bpw_serve_model_prefill_time (m, batch, (double) batch * (double) (k * k), &extra, error))
    return FALSE;
  *seconds += (double) k * draft + MAX (extra - rp->prefill_empty, 0.0);
  return TRUE;
}

/* Admits waiting requests in arrival order while the batch and the KV cache have room;
 * rejects a request larger than the whole cache. */
static void
admit (Replica *rp, GArray *waiting, guint *head)
{
  Run *run = rp->run;
  gint64 max_batch = bpw_serve_model_max_batch (run->model);

  while (*head < waiting->len && (gint64) rp->running->len < max_batch)
    {
      guint32 i = g_array_index (waiting, guint32, *head);
      Request *r = &g_array_index (run->reqs, Request, i);
      Running s = { .request = i, .prefilled = r->cached, .generated = 0 };

      if (r->reserve > run->capacity)
        {
          r->rejected = TRUE;
          r->done = rp->t;
          run->out->rejected++;
          (*head)++;
          continue;
        }
      if (rp->kv_used + r->reserve > run->capacity)
        break;
      (*head)++;
      if (run->decode_only)
        {
          /* Its prompt's cache and first token came from the prefill pool. */
          s.prefilled = r->prompt;
          s.generated = 1;
          if (r->output <= 1)
            {
              r->done = rp->t;
              run->out->output_tokens += r->output;
              continue;
            }
          rp->kv_used += r->reserve;
          g_array_append_val (rp->running, s);
          continue;
        }
      rp->kv_used += r->reserve;
      /* The prefill computes the uncached rest of the prompt. */
      run->out->prefill_tokens += r->prompt - r->cached;
      g_array_append_val (rp->running, s);
    }
  run->out->peak_batch = MAX (run->out->peak_batch, (gint64) rp->running->len);
}

/* One iteration over the running sequences: the prompts' chunks (all of every new prompt
 * without chunking) and, when no whole prompt was prefilled, the decodes. */
static gboolean
step (Replica *rp, GError **error)
{
  Run *run = rp->run;
  gint64 chunk = rp->o->chunk_tokens;
  gint64 budget = chunk > 0 ? chunk : G_MAXINT64, pieces = 0, decoders = 0;
  gint64 images = bpw_serve_model_image_tokens (run->model);
  double sum_sq = 0, context = 0, dt = 0, part, encoder = 0;
  g_autoptr(GArray) piece = g_array_sized_new (FALSE, TRUE, sizeof (gint64), rp->running->len);

  for (guint k = 0; k < rp->running->len; k++)
    {
      const Running *s = &g_array_index (rp->running, Running, k);
      const Request *r = request_of (rp, s);
      gint64 c = 0;

      if (s->generated == 0 && budget > 0)
        {
          c = MIN (r->prompt - s->prefilled, budget);
          budget -= c;
          pieces++;
          /* The image tokens come with the prompt (never chunked: bpw_serve_run). */
          sum_sq += (double) (c + images) * (double) (c + images);
        }
      else if (s->generated > 0)
        {
          decoders++;
          context += (double) (images + r->prompt + s->generated - 1);
        }
      g_array_append_val (piece, c);
    }
  /* Without chunking a prefill iteration runs alone (the decodes wait for it). */
  if (chunk <= 0 && pieces > 0)
    decoders = 0;
  /* A chunked step goes through the engine's serving path (bpw_serve_model_chunk_time);
   * chunks never carry images (bpw_serve_run refuses them). */
  if (pieces > 0 && chunk > 0)
    {
      if (!bpw_serve_model_chunk_time (run->model, pieces, sum_sq, &dt, error))
        return FALSE;
      run->out->prefills++;
    }
  else if (pieces > 0)
    {
      if (!bpw_serve_model_prompt_time (run->model, pieces, sum_sq, &dt, &encoder, error))
        return FALSE;
      run->out->prefills++;
    }
  if (decoders > 0)
    {
      if (!decode_cost (rp, decoders, context, &part, error))
        return FALSE;
      dt += pieces > 0 ? MAX (part - rp->empty, 0.0) : part;
      run->out->decodes++;
      run->decode_batches += (double) decoders;
    }
  rp->t += dt;
  run->busy += dt;

  for (guint k = rp->running->len; k-- > 0;)
    {
      Running *s = &g_array_index (rp->running, Running, k);
      Request *r = request_of (rp, s);
      gint64 c = g_array_index (piece, gint64, k);

      if (c > 0)
        {
          s->prefilled += c;
          if (s->prefilled == r->prompt)
            {
              s->generated = 1;
              r->first = rp->t;
              r->encoder = encoder;
            }
        }
      else if (decoders > 0 && s->generated > 0)
        s->generated = MIN (s->generated + (rp->o->spec_tokens > 0 ? speculate (rp) : 1),
                            r->output);
      else
        continue;
      if (s->generated == r->output)
        finish (rp, k);
    }
  return TRUE;
}

gboolean
_bpw_serve_replica (Run                   *run,
                    const BpwServeOptions *o,
                    gint64                 replica,
                    gint64                 replicas,
                    GError               **error)
{
  guint32 words[3] = { (guint32) o->seed, (guint32) (o->seed >> 32), (guint32) replica };
  g_autoptr(GRand) accept = g_rand_new_with_seed_array (words, 3);
  g_autoptr(GArray) waiting = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) running = g_array_new (FALSE, FALSE, sizeof (Running));
  Replica rp = { .run = run, .o = o, .accept = accept, .running = running };
  guint next = (guint) replica, head = 0;

  if ((o->chunk_tokens > 0 || o->spec_tokens > 0) &&
      !bpw_serve_model_decode_time (run->model, 1, 1.0, &rp.empty, error))
    return FALSE;
  if (o->spec_tokens > 0 &&
      !bpw_serve_model_prefill_time (run->model, 1, 1.0, &rp.prefill_empty, error))
    return FALSE;
  while (next < run->reqs->len || head < waiting->len || running->len > 0)
    {
      while (next < run->reqs->len && g_array_index (run->reqs, Request, next).arrival <= rp.t)
        {
          g_array_append_val (waiting, next);
          next += (guint) replicas;
        }
      if (head == waiting->len && running->len == 0)
        {
          rp.t = g_array_index (run->reqs, Request, next).arrival;
          continue;
        }
      admit (&rp, waiting, &head);
      if (running->len > 0 && !step (&rp, error))
        return FALSE;
    }
  return TRUE;
}
