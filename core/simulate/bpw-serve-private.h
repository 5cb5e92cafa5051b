/* bpw-serve-private.h — the request stream and one replica's scheduler, shared by bpw-serve.c
 * and bpw-serve-replica.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

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
} Run;

/* Serves the requests i with i mod @replicas == @replica, as bpw-serve.h describes. */
gboolean _bpw_serve_replica (Run                   *run,
                             const BpwServeOptions *options,
                             gint64                 replica,
                             gint64                 replicas,
                             GError               **error);

G_END_DECLS
