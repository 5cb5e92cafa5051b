/* bpw-serve-private.h — the request stream and one replica's scheduler, shared by bpw-serve.c
 * and bpw-serve-replica.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-json-writer.h"
#include "bpw-serve.h"

G_BEGIN_DECLS

typedef struct
{
  double   arrival;
  gint64   prompt;
  gint64   output;
  gint64   cached;     /* prompt tokens found in the prefix cache */
  gint64   reserve;    /* KV units (blocks, or tokens when contiguous) it holds running */
  double   first;      /* time of the first token */
  double   encoder;    /* seconds of the vision encoder in its prefill step */
  double   done;       /* completion (or rejection) */
  gboolean rejected;
} Request;

typedef struct
{
  guint32 request;
  gint64  prefilled;   /* prompt tokens in its cache (cached prefix, then computed) */
  gint64  generated;   /* output tokens so far; 0 while its prompt is prefilled */
} Running;

typedef struct
{
  BpwServeModel  *model;
  GArray         *reqs;            /* Request, the whole stream */
  BpwServeResult *out;
  double          decode_batches;  /* sequences decoded, summed over decode steps */
  double          waste;           /* KV tokens reserved and never held, summed */
  gint64          capacity;        /* KV units per replica */
  double          drafted;         /* speculative: tokens a verify step yielded, summed */
  double          verified;        /* speculative: sequences verified, summed */
  double          busy;            /* seconds of steps, summed over the replicas */
  gboolean        decode_only;     /* a disaggregated decode pool: every request arrives
                                    * with its prompt's KV cache and first token */
} Run;

/* Serves the requests i with i mod @replicas == @replica, as bpw-serve.h describes. */
gboolean _bpw_serve_replica (Run                   *run,
                             const BpwServeOptions *options,
                             gint64                 replica,
                             gint64                 replicas,
                             GError               **error);

/* The whole stream of @options, in arrival order (bpw-serve.c). */
GArray  *_bpw_serve_draw    (const BpwServeOptions *options);
/* Each request's KV reservation and cached prefix for @run's model (bpw-serve.c). */
void     _bpw_serve_reserve (Run                   *run,
                             const BpwServeOptions *options);

/* What the requests of a run add up to, gathered request by request (bpw-serve.c). */
typedef struct
{
  GArray *ttft;       /* seconds, per served request */
  GArray *tpot;       /* seconds, per served request of more than one output token */
  GArray *e2e;        /* seconds, per served request */
  double  first;      /* the first arrival */
  double  last;       /* the last completion or rejection */
  double  in_system;  /* ∫ N(t) dt: each request counts from its arrival until it leaves */
  double  encoder;    /* seconds of vision encoder, summed over the served requests */
} Tally;

void     _bpw_serve_tally_init   (Tally                 *tally);
/* Counts @served, a request that arrived at @arrival and was not rejected, into @tally
 * and @run's result (requests, prompt tokens, KV waste). */
void     _bpw_serve_tally_served (Tally                 *tally,
                                  Run                   *run,
                                  const BpwServeOptions *options,
                                  double                 arrival,
                                  const Request         *served);
/* Fills @run's result from @tally and @run's sums, and frees @tally's samples. */
void     _bpw_serve_tally_finish (Tally                 *tally,
                                  const Run             *run);
/* The "stream" object: seed, request count, length distributions, arrivals, and the
 * replica count where @replicas. */
void     _bpw_serve_write_stream     (BpwJsonWriter         *writer,
                                      const BpwServeOptions *options,
                                      gboolean               replicas);
/* The KV layout, prefix cache, chunking and speculation keys of the "serving" object. */
void     _bpw_serve_write_kv_serving (BpwJsonWriter         *writer,
                                      const BpwServeOptions *options);

/* One result's keys of the `bpw serve --json` object (bpw-serve.c). */
void     _bpw_serve_write_result (BpwJsonWriter        *writer,
                                  const BpwServeResult *result);

G_END_DECLS
