/* bpw-calculon-search.c — Calculon's optimal-execution space, indexed, and its threaded run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The enumeration of Calculon's OptimalExecution.run_command() and search()
 * (calculon/llm/optimal_execution.py @ dd35b00, Apache License 2.0; see
 * bpw-calculon-model.h for the NOTICE). Calculon hands its outer tuples (TP, PP, DP, v,
 * batch, recompute, sharding, comm) to a process pool; here every execution has an index,
 * threads take fixed chunks of indices, and each keeps its own best: the order of
 * (sample rate down, index up) is total, so the merged list is the same for any split.
 */
#define G_LOG_DOMAIN "bpw-calculon-search"

#include "config.h"

#include "bpw-calculon-search-private.h"
#include "bpw-calculon-model-private.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-search.h"


void
bpw_calculon_search_options_init (BpwCalculonSearchOptions *options)
{
  g_return_if_fail (options != NULL);

  *options = (BpwCalculonSearchOptions) {
    .top_n = 10,
    .shard_count = 1,
    .fused_on = TRUE,
    .tp_overlap = TRUE,
    .dp_overlap = TRUE,
    .act_offload = -1,
    .progress_ms = 200,
  };
}

/* The space ----------------------------------------------------------------------------- */

static void
bpw_calculon_params_set (guint8       *values,
                         guint8       *n,
                         gboolean      on,
                         gboolean      off)
{
  *n = 0;
  if (on)
    values[(*n)++] = TRUE;
  if (off)
    values[(*n)++] = FALSE;
}

static void
bpw_calculon_space_add (BpwCalculonSpace *space,
                        gint64            tp,
                        gint64            pp,
                        gint64            dp,
                        gint64            v,
                        gint64            batch)
{
  static const BpwRecompute recomputes[] = {
    BPW_RECOMPUTE_FULL, BPW_RECOMPUTE_SELECTIVE, BPW_RECOMPUTE_NONE
  };
  const BpwCalculonSearchOptions *o = &space->options;
  gboolean has_mem2 = space->system.mem2_capacity > 0;
  guint nets = space->system.n_networks;
  guint first_mbs = space->mbs->len, n_mbs;

  /* get_valid_microbatch_sizes() */
  for (gint64 m = 1; m <= batch / dp; m++)
    if ((batch / dp) % m == 0 && (m * space->app.seq_size) % tp == 0)
      g_array_append_val (space->mbs, m);
  n_mbs = space->mbs->len - first_mbs;

  for (guint r = 0; r < G_N_ELEMENTS (recomputes); r++)
    for (guint s = 0; s < (dp > 1 ? 2u : 1u); s++)
      for (guint c = 0; c < 3; c++)
        {
          BpwCalculonParams p = {
            .tp = tp, .pp = pp, .dp = dp, .v = v, .batch = batch,
            .recompute = recomputes[r],
            .sharding = dp > 1 && s == 0,
            .comm = (BpwCalculonTpComm) c,
            .first_mbs = first_mbs, .n_mbs = n_mbs,
            .n_tn = tp > 1 ? nets : 1, .n_pn = pp > 1 ? nets : 1, .n_dn = dp > 1 ? nets : 1,
          };
          gboolean can_redo = p.comm == BPW_CALCULON_TP_COMM_RS_AG
                              && p.recompute != BPW_RECOMPUTE_FULL;
          gboolean act_choice = p.recompute != BPW_RECOMPUTE_FULL && has_mem2;

          bpw_calculon_params_set (p.redo, &p.n_redo, can_redo, TRUE);
          bpw_calculon_params_set (p.dpov, &p.n_dpov, dp > 1 && o->dp_overlap, TRUE);
          p.n_tpov = tp > 1 && o->tp_overlap ? 3 : 1;
          for (guint i = 0; i < p.n_tpov; i++)
            p.tpov[i] = (guint8) i;   /* none, ring, pipe */
          bpw_calculon_params_set (p.wo, &p.n_wo, has_mem2, TRUE);
          bpw_calculon_params_set (p.ao, &p.n_ao, act_choice && o->act_offload != 0,
                                   o->act_offload != 1);
          bpw_calculon_params_set (p.oo, &p.n_oo, has_mem2, TRUE);
          /* Calculon's -f all is [False, True]. */
          p.n_fused = 0;
          if (o->fused_off)
            p.fused[p.n_fused++] = FALSE;
          if (o->fused_on)
            p.fused[p.n_fused++] = TRUE;
          p.first = space->size;
          p.count = (guint64) p.n_redo * p.n_dpov * p.n_tpov * p.n_wo * p.n_ao * p.n_oo
                    * p.n_fused * p.n_mbs * p.n_tn * p.n_pn * p.n_dn;
          if (p.count == 0)
            continue;
          space->size += p.count;
          space->max_block_keys = MAX (space->max_block_keys,
                                       (guint) p.n_redo * p.n_tpov * p.n_fused * p.n_mbs
                                       * p.n_tn);
          g_array_append_val (space->params, p);
        }
}

/* Python's get_batch_size(): the largest multiple of DP up to the maximum, or none. */
static gint64
bpw_calculon_batch_size (gint64 dp,
                         gint64 max_batch)
{
  return dp > max_batch ? 0 : max_batch / dp * dp;
}

static char *
bpw_calculon_space_hash (const BpwCalculonSpace *space)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  const BpwCalculonSearchOptions *o = &space->options;
  g_autofree char *problem = NULL;

  /* Everything that decides the space and every evaluation in it. */
  g_checksum_update (sum, (const guchar *) &space->app, sizeof space->app);
  g_checksum_update (sum, (const guchar *) &space->system, sizeof space->system);
  problem = g_strdup_printf ("calculon-loe/1 n=%" G_GINT64_FORMAT " batch=%" G_GINT64_FORMAT
                             " dtype=%d fused=%d%d tpov=%d dpov=%d tp=%" G_GINT64_FORMAT
                             " pp=%" G_GINT64_FORMAT " act=%d size=%" G_GUINT64_FORMAT,
                             space->num_procs, space->max_batch, space->datatype, o->fused_on,
                             o->fused_off, o->tp_overlap, o->dp_overlap, o->tp, o->pp,
                             o->act_offload, space->size);
  g_checksum_update (sum, (const guchar *) problem, -1);
  return g_strndup (g_checksum_get_string (sum), 16);
}

BpwCalculonSpace *
bpw_calculon_space_new (const BpwCalculonApp           *app,
                        const BpwCalculonSystem        *system,
                        gint64                          num_procs,
                        gint64                          max_batch,
                        BpwDType                        datatype,
                        const BpwCalculonSearchOptions *options,
                        GError                        **error)
{
  g_autoptr(BpwCalculonSpace) space = NULL;
  gint64 blocks = app->num_blocks;

  g_return_val_if_fail (app != NULL && system != NULL, NULL);

  if (num_procs < 1 || max_batch < 1)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Calculon's search needs at least one processor and a batch of one"));
      return NULL;
    }

  if (app->seq_size < 1 || app->hidden < 1 || app->attn_heads < 1 || app->num_blocks < 1
      || app->feedforward < 1 || app->attn_size < 1
      || !_bpw_calculon_sizes_fit (app, 1, 1))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Calculon's search: the model at a micro-batch of 1 is too large for "
                   "exact 64-bit sizes"));
      return NULL;
    }
  space = g_new0 (BpwCalculonSpace, 1);
  space->app = *app;
  space->system = *system;
  space->num_procs = num_procs;
  space->max_batch = max_batch;
  space->datatype = datatype;
  if (options != NULL)
    space->options = *options;
  else
    bpw_calculon_search_options_init (&space->options);
  if (!space->options.fused_on && !space->options.fused_off)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Calculon's search needs fused activation on, off or both"));
      return NULL;
    }
  space->options.top_n = MAX (space->options.top_n, 1);
  space->options.shard_count = MAX (space->options.shard_count, 1);
  space->params = g_array_new (FALSE, FALSE, sizeof (BpwCalculonParams));
  space->mbs = g_array_new (FALSE, FALSE, sizeof (gint64));

  /* run_command(): get_all_tensor_parallelisms(), get_all_pipeline_parallelisms(),
   * get_valid_pipeline_interleavings(). */
  for (gint64 tp = 1; tp <= num_procs; tp++)
    {
      if (num_procs % tp != 0 || app->hidden % tp != 0 || app->attn_heads % tp != 0)
        continue;
      if (space->options.tp != 0 && tp != space->options.tp)
        continue;
      for (gint64 pp = 1; pp <= MIN (num_procs / tp, blocks); pp++)
        {
          gint64 dp = num_procs / (tp * pp), batch = bpw_calculon_batch_size (dp, max_batch);

          if (num_procs % (tp * pp) != 0 || blocks % pp != 0)
            continue;
          if (space->options.pp != 0 && pp != space->options.pp)
            continue;
          if (batch == 0)
            continue;
          /* The largest micro-batch this (TP, PP) enumerates is the whole batch of a
           * replica; the global batch itself may be far larger than any micro-batch. */
          if (!_bpw_calculon_sizes_fit (app, batch / dp, tp))
            {
              g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                           _("Calculon's search: the model at a micro-batch of %" PRId64
                             " (TP %" PRId64 ", PP %" PRId64 ") is too large "
                             "for exact 64-bit sizes"), batch / dp, tp, pp);
              return NULL;
            }
          for (gint64 v = 1; v <= (pp == 1 ? 1 : blocks / pp); v++)
            if ((blocks / pp) % v == 0)
              bpw_calculon_space_add (space, tp, pp, dp, v, batch);
        }
    }
  space->fingerprint = bpw_calculon_space_hash (space);
  return g_steal_pointer (&space);
}

void
bpw_calculon_space_free (BpwCalculonSpace *space)
{
  if (space == NULL)
    return;
  g_clear_pointer (&space->params, g_array_unref);
  g_clear_pointer (&space->mbs, g_array_unref);
  g_free (space->fingerprint);
  g_free (space);
}

guint64
bpw_calculon_space_size (const BpwCalculonSpace *space)
{
  return space->size;
}

const char *
bpw_calculon_space_fingerprint (const BpwCalculonSpace *space)
{
  return space->fingerprint;
}

static guint
bpw_calculon_space_params_of (const BpwCalculonSpace *space,
                              guint64                 index)
{
  guint lo = 0, hi = space->params->len;

  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (space->params, BpwCalculonParams, mid).first <= index)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

void
_bpw_calculon_cursor_seek (const BpwCalculonSpace *space,
                           guint64                 index,
                           BpwCalculonCursor      *c)
{
  const BpwCalculonParams *p;
  guint64 offset;
  const guint *radix;

  c->params = bpw_calculon_space_params_of (space, index);
  p = &g_array_index (space->params, BpwCalculonParams, c->params);
  offset = index - p->first;
  _bpw_calculon_params_radix (p, c->radix);
  radix = c->radix;
  for (int d = BPW_CALCULON_N_DIGITS - 1; d >= 0; d--)
    {
      c->digit[d] = (guint) (offset % radix[d]);
      offset /= radix[d];
    }
}

void
_bpw_calculon_params_radix (const BpwCalculonParams *p,
                            guint                   *radix)
{
  guint values[BPW_CALCULON_N_DIGITS] = {
    p->n_redo, p->n_dpov, p->n_tpov, p->n_wo, p->n_ao, p->n_oo, p->n_fused, p->n_mbs,
    p->n_tn, p->n_pn, p->n_dn
  };

  memcpy (radix, values, sizeof values);
}

/* The next execution (in the same or the next tuple); FALSE past the end. */
gboolean
_bpw_calculon_cursor_next (const BpwCalculonSpace *space,
                           BpwCalculonCursor      *c)
{
  for (int d = BPW_CALCULON_N_DIGITS - 1; d >= 0; d--)
    {
      if (++c->digit[d] < c->radix[d])
        return TRUE;
      c->digit[d] = 0;
    }
  if (++c->params >= space->params->len)
    return FALSE;
  _bpw_calculon_params_radix (&g_array_index (space->params, BpwCalculonParams, c->params),
                              c->radix);
  return TRUE;
}

void
_bpw_calculon_cursor_execution (const BpwCalculonSpace *space,
                                const BpwCalculonCursor *c,
                                BpwCalculonExecution   *exe)
{
  const BpwCalculonParams *p = &g_array_index (space->params, BpwCalculonParams, c->params);
  const guint *d = c->digit;

  *exe = (BpwCalculonExecution) {
    .num_procs = space->num_procs,
    .tensor_par = p->tp,
    .pipeline_par = p->pp,
    .data_par = p->dp,
    .batch_size = p->batch,
    .microbatch_size = g_array_index (space->mbs, gint64, p->first_mbs + d[BPW_CALCULON_D_MBS]),
    .pipeline_interleaving = p->v,
    .datatype = space->datatype,
    .tensor_par_net = d[BPW_CALCULON_D_TN],
    .pipeline_par_net = d[BPW_CALCULON_D_PN],
    .data_par_net = d[BPW_CALCULON_D_DN],
    .tensor_par_comm_type = p->comm,
    .tensor_par_overlap = p->tpov[d[BPW_CALCULON_D_TPOV]],
    .attention_type = BPW_CALCULON_ATTENTION_MULTIHEAD,
    .activation_recompute = p->recompute,
    .fused_activation = p->fused[d[BPW_CALCULON_D_FUSED]],
    .seq_par_ag_redo = p->redo[d[BPW_CALCULON_D_REDO]],
    .data_par_overlap = p->dpov[d[BPW_CALCULON_D_DPOV]],
    .optimizer_sharding = p->sharding,
    .weight_offload = p->wo[d[BPW_CALCULON_D_WO]],
    .activations_offload = p->ao[d[BPW_CALCULON_D_AO]],
    .optimizer_offload = p->oo[d[BPW_CALCULON_D_OO]],
    .training = TRUE,
  };
}

void
bpw_calculon_space_execution (const BpwCalculonSpace *space,
                              guint64                 index,
                              BpwCalculonExecution   *exe)
{
  BpwCalculonCursor c;

  g_return_if_fail (space != NULL && exe != NULL && index < space->size);

  _bpw_calculon_cursor_seek (space, index, &c);
  _bpw_calculon_cursor_execution (space, &c, exe);
}

/* The run ------------------------------------------------------------------------------- */

/* a before b: higher sample rate, then lower index (Calculon's stable sort). */
gboolean
_bpw_calculon_result_before (const BpwCalculonSearchResult *a,
                             const BpwCalculonSearchResult *b)
{
  if (a->stats.sample_rate != b->stats.sample_rate)
    return a->stats.sample_rate > b->stats.sample_rate;
  return a->index < b->index;
}

/* Keeps @best (sorted) at most @n long with @r inserted where it belongs. */
void
_bpw_calculon_best_insert (GArray                        *best,
                           guint                          n,
                           const BpwCalculonSearchResult *r)
{
  guint at = best->len;

  if (best->len >= n
      && !_bpw_calculon_result_before (r, &g_array_index (best, BpwCalculonSearchResult,
                                                          best->len - 1)))
    return;
  while (at > 0 && _bpw_calculon_result_before (r, &g_array_index (best, BpwCalculonSearchResult,
                                                                   at - 1)))
    at--;
  g_array_insert_val (best, at, *r);
  if (best->len > n)
    g_array_set_size (best, n);
}

typedef struct
{
  const BpwCalculonSpace *space;
  GCancellable           *cancellable;
  guint64                 begin, end;
  guint                   first_params, end_params;   /* the tuples the range touches */
  guint                   next_params;   /* atomic */
  GMutex                  lock;
  GCond                   done;
  guint                   running;
  guint64                 evaluated, good;   /* atomic, for progress */
  BpwCalculonSearchResult best_so_far;       /* under lock */
  gboolean                has_best;
} BpwCalculonRun;

/* A worker prices each block once per tuple: the executions of a tuple that differ only
 * in what the block does not depend on (DP overlap, offload, PP and DP tiers) share it. */
typedef struct
{
  BpwCalculonRun   *run;
  GArray           *best;
  guint64           good, bad;
  guint             cached_params;   /* the tuple the cache holds blocks of */
  guint             n_keys;
  BpwCalculonBlock *blocks;          /* n_keys, by bpw_calculon_block_key() */
  gboolean         *built;
} BpwCalculonWorker;

/* The digits a block depends on, as one number below the space's max_block_keys. */
static guint
bpw_calculon_block_key (const BpwCalculonCursor *c)
{
  const guint *r = c->radix, *d = c->digit;

  return (((d[BPW_CALCULON_D_REDO] * r[BPW_CALCULON_D_TPOV] + d[BPW_CALCULON_D_TPOV])
           * r[BPW_CALCULON_D_FUSED] + d[BPW_CALCULON_D_FUSED])
          * r[BPW_CALCULON_D_MBS] + d[BPW_CALCULON_D_MBS])
         * r[BPW_CALCULON_D_TN] + d[BPW_CALCULON_D_TN];
}

static gboolean
bpw_calculon_worker_evaluate (BpwCalculonWorker          *w,
                              const BpwCalculonCursor    *c,
                              const BpwCalculonExecution *exe,
                              BpwCalculonStats           *stats)
{
  const BpwCalculonSpace *space = w->run->space;
  BpwCalculonLlm llm;
  guint key;

  if (!_bpw_calculon_llm_compile (&llm, &space->app, &space->system, exe, NULL))
    return FALSE;
  if (c->params != w->cached_params)
    {
      memset (w->built, 0, w->n_keys * sizeof *w->built);
      w->cached_params = c->params;
    }
  key = bpw_calculon_block_key (c);
  g_assert (key < w->n_keys);
  if (!w->built[key])
    {
      _bpw_calculon_block_build (&w->blocks[key], &space->app, &space->system, exe);
      w->built[key] = TRUE;
    }
  return _bpw_calculon_llm_run (&llm, &w->blocks[key], stats, NULL);
}

static gpointer
bpw_calculon_worker_main (gpointer data)
{
  BpwCalculonWorker *w = data;
  BpwCalculonRun *run = w->run;
  const BpwCalculonSpace *space = run->space;
  guint n = space->options.top_n;

  for (;;)
    {
      /* One tuple at a time: its executions share the worker's cache of blocks. */
      guint params = __atomic_fetch_add (&run->next_params, 1, __ATOMIC_RELAXED);
      const BpwCalculonParams *p;
      guint64 first, last, good = 0;
      BpwCalculonCursor c;

      if (params >= run->end_params || g_cancellable_is_cancelled (run->cancellable))
        break;
      p = &g_array_index (space->params, BpwCalculonParams, params);
      first = MAX (p->first, run->begin);
      last = MIN (p->first + p->count, run->end);
      if (first >= last)
        continue;
      _bpw_calculon_cursor_seek (space, first, &c);
      for (guint64 i = first; i < last; i++)
        {
          BpwCalculonSearchResult r;

          r.index = i;
          _bpw_calculon_cursor_execution (space, &c, &r.exe);
          if (bpw_calculon_worker_evaluate (w, &c, &r.exe, &r.stats))
            {
              good++;
              _bpw_calculon_best_insert (w->best, n, &r);
            }
          else
            w->bad++;
          if (i + 1 < last)
            _bpw_calculon_cursor_next (space, &c);
        }
      w->good += good;
      __atomic_fetch_add (&run->evaluated, last - first, __ATOMIC_RELAXED);
      __atomic_fetch_add (&run->good, good, __ATOMIC_RELAXED);
      if (w->best->len > 0)
        {
          const BpwCalculonSearchResult *top = &g_array_index (w->best,
                                                               BpwCalculonSearchResult, 0);

          g_mutex_lock (&run->lock);
          if (!run->has_best || _bpw_calculon_result_before (top, &run->best_so_far))
            {
              run->best_so_far = *top;
              run->has_best = TRUE;
            }
          g_mutex_unlock (&run->lock);
        }
    }

  g_mutex_lock (&run->lock);
  run->running--;
  g_cond_signal (&run->done);
  g_mutex_unlock (&run->lock);
  return NULL;
}

static void
bpw_calculon_report_progress (BpwCalculonRun               *run,
                              gint64                        t0,
                              BpwCalculonSearchProgressFunc progress,
                              gpointer                      user_data)
{
  BpwCalculonSearchProgress p = { 0 };
  double rate;

  p.total = run->end - run->begin;
  p.evaluated = __atomic_load_n (&run->evaluated, __ATOMIC_RELAXED);
  p.good = __atomic_load_n (&run->good, __ATOMIC_RELAXED);
  p.elapsed_s = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  rate = p.elapsed_s > 0 ? (double) p.evaluated / p.elapsed_s : 0;
  p.remaining_s = rate > 0 ? (double) (p.total - p.evaluated) / rate : NAN;
  g_mutex_lock (&run->lock);
  p.has_best = run->has_best;
  p.best_index = run->best_so_far.index;
  p.best_sample_rate = run->best_so_far.stats.sample_rate;
  p.best_total_time = run->best_so_far.stats.total_time;
  p.best_total_efficiency = run->best_so_far.stats.total_efficiency;
  p.best_tier1_bytes = run->best_so_far.stats.proc_mem_tier1_cap_req;
  g_mutex_unlock (&run->lock);
  progress (&p, user_data);
}

BpwCalculonSearchReport *
bpw_calculon_search_run (const BpwCalculonSpace        *space,
                         BpwCalculonSearchProgressFunc  progress,
                         gpointer                       user_data,
                         GCancellable                  *cancellable)
{
  const BpwCalculonSearchOptions *o;
  BpwCalculonSearchReport *report;
  g_autofree BpwCalculonWorker *workers = NULL;
  g_autofree GThread **threads = NULL;
  BpwCalculonRun run = { 0 };
  gint64 t0 = g_get_monotonic_time ();
  guint n_threads;

  g_return_val_if_fail (space != NULL, NULL);
  o = &space->options;

  report = g_new0 (BpwCalculonSearchReport, 1);
  report->space = space->size;
  report->top_n = o->top_n;
  report->shard_index = o->shard_index;
  report->shard_count = o->shard_count;
  report->fingerprint = g_strdup (space->fingerprint);
  report->best = g_array_new (FALSE, FALSE, sizeof (BpwCalculonSearchResult));
  bpw_search_shard_range (space->size, o->shard_index, o->shard_count, &report->begin,
                          &report->end);

  run.space = space;
  run.cancellable = cancellable;
  run.begin = report->begin;
  run.end = report->end;
  if (run.begin < run.end)
    {
      run.first_params = bpw_calculon_space_params_of (space, run.begin);
      run.end_params = bpw_calculon_space_params_of (space, run.end - 1) + 1;
    }
  run.next_params = run.first_params;
  n_threads = o->threads > 0 ? o->threads : g_get_num_processors ();
  n_threads = MAX (1, MIN (n_threads, run.end_params - run.first_params));
  report->threads = n_threads;
  run.running = n_threads;
  g_mutex_init (&run.lock);
  g_cond_init (&run.done);
  workers = g_new0 (BpwCalculonWorker, n_threads);
  threads = g_new0 (GThread *, n_threads);
  for (guint i = 0; i < n_threads; i++)
    {
      workers[i].run = &run;
      workers[i].best = g_array_new (FALSE, FALSE, sizeof (BpwCalculonSearchResult));
      workers[i].cached_params = G_MAXUINT;
      workers[i].n_keys = space->max_block_keys;
      workers[i].blocks = g_new (BpwCalculonBlock, space->max_block_keys);
      workers[i].built = g_new0 (gboolean, space->max_block_keys);
      threads[i] = g_thread_new ("bpw-calculon-search", bpw_calculon_worker_main, &workers[i]);
    }

  g_mutex_lock (&run.lock);
  while (run.running > 0)
    {
      gint64 deadline = g_get_monotonic_time ()
                        + (gint64) MAX (o->progress_ms, 10) * G_TIME_SPAN_MILLISECOND;

      if (!g_cond_wait_until (&run.done, &run.lock, deadline) && progress != NULL)
        {
          g_mutex_unlock (&run.lock);
          bpw_calculon_report_progress (&run, t0, progress, user_data);
          g_mutex_lock (&run.lock);
        }
    }
  g_mutex_unlock (&run.lock);

  for (guint i = 0; i < n_threads; i++)
    {
      g_thread_join (threads[i]);
      report->good += workers[i].good;
      report->bad += workers[i].bad;
      for (guint j = 0; j < workers[i].best->len; j++)
        _bpw_calculon_best_insert (report->best, o->top_n,
                                   &g_array_index (workers[i].best, BpwCalculonSearchResult, j));
      g_array_unref (workers[i].best);
      g_free (workers[i].blocks);
      g_free (workers[i].built);
    }
  report->evaluated = report->good + report->bad;
  report->cancelled = report->evaluated < report->end - report->begin;
  report->seconds = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  if (progress != NULL)
    bpw_calculon_report_progress (&run, t0, progress, user_data);
  g_mutex_clear (&run.lock);
  g_cond_clear (&run.done);
  return report;
}

void
bpw_calculon_search_report_free (BpwCalculonSearchReport *report)
{
  if (report == NULL)
    return;
  g_clear_pointer (&report->best, g_array_unref);
  g_free (report->fingerprint);
  g_free (report);
}

