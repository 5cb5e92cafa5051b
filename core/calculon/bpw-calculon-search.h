/* bpw-calculon-search.h — Calculon's optimal-execution search, every execution, in C
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Calculon's `llm-optimal-execution` (loe) enumerates the executions of a model on N
 * processors and keeps the n with the highest sample rate. This runs the same search,
 * over the same space in the same order, each execution priced by Calculon's own model
 * (bpw-calculon-model.h), so that its counts (total, good, bad) and its best list are
 * Calculon's, with the same ties broken the same way: by sample rate, then by the order of
 * enumeration. Calculon's space, outermost first (calculon/llm/optimal_execution.py
 * @ dd35b00, Apache License 2.0; see bpw-calculon-model.h for the NOTICE):
 *
 *   TP        divisors of N that divide the hidden size and the heads
 *   PP        divisors of min(N/TP, blocks) that divide the blocks; DP = N/(TP·PP)
 *   v         1 without PP, else the divisors of blocks/PP
 *   batch     the largest multiple of DP up to the maximum (none: DP above it)
 *   recompute full, attn_only, none
 *   sharding  on, off (DP > 1; else off)
 *   comm      ar, p2p_rs_ag, rs_ag
 *   ag redo   on, off (rs_ag without full recompute; else off)
 *   DP overlap on, off (DP > 1 and allowed)
 *   TP overlap none, ring, pipe (TP > 1 and allowed)
 *   offload   weights, activations (not under full recompute), optimizer: on, off each,
 *             with a second memory tier
 *   fused activation   the options' values (Calculon's -f; default on)
 *   micro-batch        divisors of the batch per replica with micro-batch × seq divisible by TP
 *   tiers     of TP, PP and DP, each over every network when its degree is above 1
 *
 * Every execution has an index in that order, so that threads, shards (`--shard i/n`) and
 * ranks split the space exactly and their results merge into the whole's. Options can fix
 * TP and PP (a slice of the space) and keep only one side of the activation-offload choice;
 * Calculon's -m (stop raising the micro-batch once one fails) is not offered, as it makes
 * the space depend on the results.
 */
#pragma once

#include <gio/gio.h>

#include "bpw-calculon-model.h"

G_BEGIN_DECLS

typedef struct
{
  guint     top_n;           /* default 10 */
  guint     threads;         /* 0: one per processor */
  guint64   shard_index;     /* default 0 of 1 */
  guint64   shard_count;
  gboolean  fused_on, fused_off;      /* Calculon's -f true (default), false, all */
  gboolean  tp_overlap, dp_overlap;   /* FALSE: Calculon's --no-tp-overlap, --no-dp-overlap */
  gint64    tp, pp;          /* 0: every value */
  gint      act_offload;     /* -1: both (default); 0: activations on the device; 1: on tier 2 */
  guint     progress_ms;     /* default 200 */
} BpwCalculonSearchOptions;

typedef struct
{
  guint64              index;
  BpwCalculonExecution exe;
  BpwCalculonStats     stats;
} BpwCalculonSearchResult;

typedef struct
{
  guint64   space;            /* executions in the whole space */
  guint64   begin, end;       /* this run's index range */
  guint64   evaluated;        /* = good + bad; end − begin unless cancelled */
  guint64   good, bad;
  double    seconds;
  gboolean  cancelled;
  guint     top_n, threads;
  guint64   shard_index, shard_count;
  char     *fingerprint;
  GArray   *best;             /* BpwCalculonSearchResult: sample rate down, then index up */
} BpwCalculonSearchReport;

typedef struct
{
  guint64   evaluated, total;
  guint64   good;
  double    elapsed_s, remaining_s;   /* NaN before any progress */
  gboolean  has_best;
  guint64   best_index;
  double    best_sample_rate, best_total_time;
  double    best_total_efficiency;   /* Calculon's MFU-like figure */
  double    best_tier1_bytes;        /* its memory need on the device */
} BpwCalculonSearchProgress;

typedef void (*BpwCalculonSearchProgressFunc) (const BpwCalculonSearchProgress *progress,
                                               gpointer                          user_data);

/* The problem and the space, built once; read-only after. */
typedef struct _BpwCalculonSpace BpwCalculonSpace;

void              bpw_calculon_search_options_init (BpwCalculonSearchOptions *options);

/* Fails (BPW_ERROR_INVALID_INPUT) for fewer than 1 processor or a batch below 1, and for
 * options that leave nothing to enumerate (fused activation neither on nor off). */
BpwCalculonSpace *bpw_calculon_space_new     (const BpwCalculonApp           *app,
                                              const BpwCalculonSystem        *system,
                                              gint64                          num_procs,
                                              gint64                          max_batch,
                                              BpwDType                        datatype,
                                              const BpwCalculonSearchOptions *options,
                                              GError                        **error);
void              bpw_calculon_space_free    (BpwCalculonSpace               *space);
guint64           bpw_calculon_space_size    (const BpwCalculonSpace         *space);
const char       *bpw_calculon_space_fingerprint (const BpwCalculonSpace     *space);
/* The execution at @index (< size). */
void              bpw_calculon_space_execution (const BpwCalculonSpace       *space,
                                                guint64                       index,
                                                BpwCalculonExecution         *exe);

/* Evaluates the space's shard (options given to bpw_calculon_space_new()); blocks until
 * done or cancelled. */
BpwCalculonSearchReport *bpw_calculon_search_run (const BpwCalculonSpace        *space,
                                                  BpwCalculonSearchProgressFunc  progress,
                                                  gpointer                       user_data,
                                                  GCancellable                  *cancellable);
void              bpw_calculon_search_report_free (BpwCalculonSearchReport *report);

/* The `bpw search --cost-model calculon --json` document (format "bpw-calculon-search"). */
char             *bpw_calculon_search_report_to_json (const BpwCalculonSearchReport *report,
                                                      const BpwCalculonSpace        *space);
/* Calculon's execution JSON (its 23 keys, its order). */
char             *bpw_calculon_execution_to_json     (const BpwCalculonExecution    *exe);

/* Merges the documents of shards of one space: counts add up, the best lists merge (the
 * shortest top n of the inputs). FALSE with BPW_ERROR_INVALID_INPUT naming the file for a
 * document that is not one, shards of different spaces, or overlapping ones. */
char             *bpw_calculon_search_merge_json     (const char * const *texts,
                                                      const char * const *names,
                                                      guint               n,
                                                      GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwCalculonSpace, bpw_calculon_space_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwCalculonSearchReport, bpw_calculon_search_report_free)

G_END_DECLS
