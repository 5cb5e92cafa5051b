/* bpw-sweep.c — blueprint parameters × best mapping, gains split by their source
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-sweep"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-sweep-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-quantity.h"
#include "bpw-search-private.h"

static void
axis_clear (gpointer data)
{
  Axis *a = data;

  g_free (a->name);
  g_array_unref (a->values);
}

static void
point_clear (gpointer data)
{
  BpwSweepPoint *p = data;

  g_free (p->values);
  g_clear_pointer (&p->blueprint, bpw_blueprint_free);
  g_clear_pointer (&p->report, bpw_search_report_free);
}

static gboolean
parse_axis (const BpwBlueprint *bp, const char *spec, Axis *a, GError **error)
{
  g_auto(GStrv) kv = g_strsplit (spec, "=", 2);
  g_auto(GStrv) name = NULL;
  BpwSweepParam p;

  a->values = g_array_new (FALSE, FALSE, sizeof (double));
  a->name = g_strdup (kv[0]);
  if (g_strv_length (kv) != 2 || kv[1][0] == '\0')
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("--sweep-param: expected "
                   "NAME=V1,V2,..., got '%s'"), spec);
      return FALSE;
    }
  name = g_strsplit (kv[0], ".", 2);
  if (!_bpw_sweep_param_from_string (name[0], &p)
      || (name[1] != NULL && p != BPW_SWEEP_LINK_BANDWIDTH))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("--sweep-param: unknown "
                   "parameter '%s'; expected hbm_bandwidth, hbm_capacity, sram_capacity, "
                   "link_bandwidth[.TIER], matrix_peak, power_cap or devices"), kv[0]);
      return FALSE;
    }
  a->param = p;
  a->tier = 0;
  if (name[1] != NULL)
    {
      guint64 idx;

      a->tier = bpw_blueprint_lookup_tier (bp, name[1]);
      if (a->tier < 0 && g_ascii_string_to_unsigned (name[1], 10, 0, G_MAXINT, &idx, NULL))
        a->tier = (gint) idx;
    }
  if (p == BPW_SWEEP_LINK_BANDWIDTH && (a->tier < 0 || (guint) a->tier >= bp->n_tiers))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("--sweep-param %s: “%s” has "
                   "no such tier"), kv[0], bp->name);
      return FALSE;
    }
  if (p == BPW_SWEEP_SRAM_CAPACITY && bpw_blueprint_first_memory (bp, BPW_MEMORY_SRAM) < 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("--sweep-param %s: “%s” has "
                   "no on-chip SRAM level"), kv[0], bp->name);
      return FALSE;
    }
  if (!bpw_sweep_param_parse_values (p, kv[1], a->values, error))
    {
      g_prefix_error (error, _("--sweep-param %s: "), a->name);
      return FALSE;
    }
  /* A cap at or below the idle power leaves no power to run at any rate. */
  for (guint i = 0; p == BPW_SWEEP_POWER_CAP && bp->idle_power.set && i < a->values->len; i++)
    if (g_array_index (a->values, double, i) <= bp->idle_power.value)
      {
        g_autofree char *cap = bpw_quantity_format (g_array_index (a->values, double, i),
                                                    BPW_UNIT_WATTS);
        g_autofree char *idle = bpw_quantity_format (bp->idle_power.value, BPW_UNIT_WATTS);

        g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("--sweep-param %s: a cap "
                     "of %s is not above the idle power of “%s” (%s)"), a->name, cap, bp->name,
                     idle);
        return FALSE;
      }
  return TRUE;
}

static void
apply (BpwBlueprint *bp, const Axis *a, double v, BpwDType dtype, gint64 *devices)
{
  const char *source = "bpw search --sweep-param";
  int level;

  switch (a->param)
    {
    case BPW_SWEEP_HBM_BANDWIDTH:
      level = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
      if (level >= 0)
        bpw_blueprint_set_value (bp, &bp->memory[level].bandwidth, v, BPW_PROVENANCE_ESTIMATE,
                                 source);
      break;
    case BPW_SWEEP_HBM_CAPACITY:
      level = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
      if (level >= 0)
        bpw_blueprint_set_value (bp, &bp->memory[level].capacity,
                                 v / (bp->memory[level].instances.set
                                      ? bp->memory[level].instances.value : 1.0),
                                 BPW_PROVENANCE_ESTIMATE, source);
      break;
    case BPW_SWEEP_SRAM_CAPACITY:
      level = bpw_blueprint_first_memory (bp, BPW_MEMORY_SRAM);
      if (level >= 0)
        bpw_blueprint_set_value (bp, &bp->memory[level].capacity, v, BPW_PROVENANCE_ESTIMATE,
                                 source);
      break;
    case BPW_SWEEP_LINK_BANDWIDTH:
      bpw_blueprint_set_value (bp, &bp->tiers[a->tier].bandwidth, v, BPW_PROVENANCE_ESTIMATE,
                               source);
      break;
    case BPW_SWEEP_MATRIX_PEAK:
      level = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
      if (level >= 0)
        bpw_blueprint_set_value (bp, &bp->engines[level].peak[bpw_precision_from_dtype (dtype)],
                                 v, BPW_PROVENANCE_ESTIMATE, source);
      break;
    case BPW_SWEEP_POWER_CAP:
      bpw_blueprint_set_value (bp, &bp->power_cap, v, BPW_PROVENANCE_ESTIMATE, source);
      break;
    case BPW_SWEEP_DEVICES:
    case BPW_SWEEP_N_PARAMS:
    default:
      *devices = (gint64) v;
      break;
    }
}

BpwSweep *
bpw_sweep_new (const BpwModelSpec    *spec,
               const BpwScenario     *scenario,
               const BpwBlueprint    *blueprint,
               const BpwMapping      *base,
               gint64                 devices,
               const BpwSearchLimits *limits,
               const char * const    *params,
               GError               **error)
{
  g_autoptr(BpwSweep) sweep = g_new0 (BpwSweep, 1);
  guint n_points = 1;

  bpw_model_spec_copy (&sweep->spec, spec);
  bpw_scenario_copy (&sweep->scenario, scenario);
  sweep->blueprint = bpw_blueprint_copy (blueprint);
  bpw_mapping_copy (&sweep->base, base);
  sweep->devices = devices;
  sweep->limits = *limits;
  sweep->axes = g_array_new (FALSE, TRUE, sizeof (Axis));
  g_array_set_clear_func (sweep->axes, axis_clear);
  sweep->points = g_array_new (FALSE, TRUE, sizeof (BpwSweepPoint));
  g_array_set_clear_func (sweep->points, point_clear);

  for (guint i = 0; params[i] != NULL; i++)
    {
      Axis a = { 0 };
      gboolean ok = parse_axis (blueprint, params[i], &a, error);

      g_array_append_val (sweep->axes, a);
      if (!ok)
        return NULL;
      n_points *= a.values->len;
      if (n_points > 10000)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("--sweep-param: the grid "
                       "has more than 10000 points; sweep fewer values"));
          return NULL;
        }
    }

  for (guint k = 0; k < n_points; k++)
    {
      BpwSweepPoint p = { 0 };
      guint rest = k;

      p.values = g_new0 (double, sweep->axes->len);
      p.blueprint = bpw_blueprint_copy (blueprint);
      p.devices = devices;
      /* First parameter outermost: the last one varies fastest. */
      for (guint i = sweep->axes->len; i-- > 0;)
        {
          const Axis *a = &g_array_index (sweep->axes, Axis, i);

          p.values[i] = g_array_index (a->values, double, rest % a->values->len);
          rest /= a->values->len;
          apply (p.blueprint, a, p.values[i], scenario->dtype, &p.devices);
        }
      g_array_append_val (sweep->points, p);
    }
  return g_steal_pointer (&sweep);
}

void
bpw_sweep_free (BpwSweep *sweep)
{
  if (sweep == NULL)
    return;
  bpw_model_spec_clear (&sweep->spec);
  bpw_scenario_clear (&sweep->scenario);
  g_clear_pointer (&sweep->blueprint, bpw_blueprint_free);
  bpw_mapping_clear (&sweep->base);
  g_clear_pointer (&sweep->axes, g_array_unref);
  g_clear_pointer (&sweep->points, g_array_unref);
  g_clear_pointer (&sweep->baseline, bpw_search_report_free);
  g_free (sweep);
}

/* The baseline's best mapping on @p: DP rescaled to the point's device count. */
static void
baseline_on_point (BpwSweep *sweep, const BpwMapping *m0, BpwSweepPoint *p)
{
  g_autoptr(BpwEstimator) est = NULL;
  BpwMapping m = *m0;
  gint64 model_parallel = m0->parallel.tp * m0->parallel.pp;
  gint64 mb = m0->micro_batch > 0 ? m0->micro_batch : sweep->scenario.micro_batch;

  p->baseline_applies = FALSE;
  if (p->devices % model_parallel != 0)
    return;
  m.parallel.dp = p->devices / model_parallel;
  if (m.parallel.dp % m.parallel.ep != 0 ||
      sweep->scenario.global_batch % (m.parallel.dp * mb) != 0 ||
      (m.parallel.dp == 1 && m.parallel.zero > 0))
    return;
  est = bpw_estimator_new (&sweep->spec, &sweep->scenario, p->blueprint, NULL);
  if (est == NULL || !bpw_estimator_evaluate (est, &m, &p->baseline, NULL, NULL))
    return;
  p->baseline_applies = TRUE;
  p->baseline_legal = p->baseline.legal;
}

static double
tokens_per_joule (const BpwSweepPoint *p)
{
  const BpwSearchResult *b = &g_array_index (p->report->best, BpwSearchResult, 0);

  return isnan (b->evaluation.tokens_per_joule) ? 0 : b->evaluation.tokens_per_joule;
}

double
_bpw_sweep_point_cost (const BpwSweepPoint *p)
{
  return p->blueprint->cost.set ? p->blueprint->cost.value * (double) p->devices : 0;
}

gboolean
_bpw_sweep_has_best (const BpwSweepPoint *p)
{
  return p->report != NULL && p->report->best->len > 0;
}

/* Front of throughput and tokens per joule (maximised) and cost (minimised). */
static void
mark_pareto (BpwSweep *sweep)
{
  for (guint i = 0; i < sweep->points->len; i++)
    {
      BpwSweepPoint *p = &g_array_index (sweep->points, BpwSweepPoint, i);
      const BpwSearchResult *bp;

      p->pareto = _bpw_sweep_has_best (p);
      if (!p->pareto)
        continue;
      bp = &g_array_index (p->report->best, BpwSearchResult, 0);
      for (guint j = 0; j < sweep->points->len && p->pareto; j++)
        {
          const BpwSweepPoint *q = &g_array_index (sweep->points, BpwSweepPoint, j);
          const BpwSearchResult *bq;
          double tq, tp, cq, cp;
          gboolean ge, gt;

          if (j == i || !_bpw_sweep_has_best (q))
            continue;
          bq = &g_array_index (q->report->best, BpwSearchResult, 0);
          tq = bq->evaluation.tokens_per_s;
          tp = bp->evaluation.tokens_per_s;
          cq = _bpw_sweep_point_cost (q);
          cp = _bpw_sweep_point_cost (p);
          ge = tq >= tp && tokens_per_joule (q) >= tokens_per_joule (p) && cq <= cp;
          gt = tq > tp || tokens_per_joule (q) > tokens_per_joule (p) || cq < cp;
          /* Equal points: the earlier one stays. */
          if (ge && (gt || j < i))
            p->pareto = FALSE;
        }
    }
}

/* What the searches' progress callback needs to report on the whole sweep. */
typedef struct
{
  BpwSweepProgress      progress;
  BpwSweepProgressFunc  func;
  gpointer              user_data;
  guint64               decided_before;  /* by the finished searches */
  gint64                start_us;
} SweepWatch;

static void
watch_report (SweepWatch *w)
{
  BpwSweepProgress *p = &w->progress;
  double share = p->current.total > 0 ? (double) p->current.decided / (double) p->current.total
                                      : 0.0;
  /* Search s runs while s searches are done; once it ends, its plans are in @done. */
  double done = (double) p->done + (p->done == p->search ? share : 0.0);

  if (w->func == NULL)
    return;
  p->decided = w->decided_before + p->current.decided;
  p->elapsed_s = (double) (g_get_monotonic_time () - w->start_us) / G_USEC_PER_SEC;
  /* Searches differ in size (a device count changes the space), so this is the time per
   * search so far times the searches left: a forecast, never part of a result. */
  p->remaining_s = done > 0 ? p->elapsed_s * ((double) p->n_searches - done) / done : NAN;
  w->func (p, w->user_data);
}

static void
watch_search_cb (const BpwSearchProgress *progress,
                 gpointer                 user_data)
{
  SweepWatch *w = user_data;

  w->progress.current = *progress;
  watch_report (w);
}

/* Search @search (0: the baseline) starts. */
static void
watch_begin (SweepWatch *w, guint search)
{
  memset (&w->progress.current, 0, sizeof w->progress.current);
  w->progress.search = search;
  watch_report (w);
}

/* The search ends: @report's own figures (NULL: a point without plans), so that the
 * watcher sees every search's best, whatever the interval of the reports. */
static void
watch_end (SweepWatch *w, const BpwSearchReport *report)
{
  BpwSearchProgress *c = &w->progress.current;

  memset (c, 0, sizeof *c);
  c->phase = 2;
  if (report != NULL)
    {
      c->decided = report->evaluated;
      c->total = report->end - report->begin;
      c->estimated = report->estimated;
      c->elapsed_s = report->seconds;
      c->remaining_s = 0;
      c->has_best = report->best->len > 0;
      if (c->has_best)
        {
          c->best_index = g_array_index (report->best, BpwSearchResult, 0).index;
          c->best_step_time_s = g_array_index (report->best, BpwSearchResult,
                                               0).estimate.step_time_s;
        }
    }
  w->progress.done++;
  watch_report (w);
  /* The next search's figures start from these plans. */
  w->decided_before += c->decided;
  memset (c, 0, sizeof *c);
}

gboolean
bpw_sweep_run (BpwSweep               *sweep,
               const BpwSearchOptions *options,
               GCancellable           *cancellable,
               GError                **error)
{
  return bpw_sweep_run_with_progress (sweep, options, NULL, NULL, cancellable, error);
}

void
bpw_sweep_take_baseline (BpwSweep        *sweep,
                         BpwSearchReport *baseline)
{
  g_return_if_fail (sweep != NULL && baseline != NULL);

  g_clear_pointer (&sweep->baseline, bpw_search_report_free);
  sweep->baseline = baseline;
  sweep->baseline_given = TRUE;
}

gboolean
bpw_sweep_get_baseline_reused (BpwSweep *sweep)
{
  g_return_val_if_fail (sweep != NULL, FALSE);
  return sweep->baseline_reused;
}

/* Whether @report is what searching @space with @options would give: the same space, the
 * whole of it, to its end, keeping as many and the same kind of results. */
static gboolean
baseline_serves (const BpwSearchReport  *report,
                 const BpwSearchSpace   *space,
                 const BpwSearchOptions *options)
{
  return report != NULL && g_strcmp0 (report->fingerprint, space->fingerprint) == 0
         && !report->cancelled && report->shard_count == 1 && options->shard_count == 1
         && report->top_k == options->top_k && report->pareto_kept == options->pareto;
}

gboolean
bpw_sweep_run_with_progress (BpwSweep               *sweep,
                             const BpwSearchOptions *options,
                             BpwSweepProgressFunc    progress,
                             gpointer                user_data,
                             GCancellable           *cancellable,
                             GError                **error)
{
  g_autoptr(BpwSearchSpace) space = NULL;
  const BpwSearchResult *best0 = NULL;
  BpwSearchProgressFunc search_cb = progress != NULL ? watch_search_cb : NULL;
  SweepWatch w = { .func = progress, .user_data = user_data,
                   .start_us = g_get_monotonic_time () };

  w.progress.n_searches = sweep->points->len + 1;
  space = bpw_search_space_new (&sweep->spec, &sweep->scenario, sweep->blueprint, &sweep->base,
                                sweep->devices, &sweep->limits, error);
  if (space == NULL)
    return FALSE;
  sweep->baseline_reused = sweep->baseline_given
                           && baseline_serves (sweep->baseline, space, options);
  if (!sweep->baseline_reused)
    g_clear_pointer (&sweep->baseline, bpw_search_report_free);
  sweep->baseline_given = FALSE;
  watch_begin (&w, 0);
  if (sweep->baseline == NULL)
    sweep->baseline = bpw_search_run (space, options, search_cb, &w, cancellable, error);
  if (sweep->baseline == NULL)
    return FALSE;
  watch_end (&w, sweep->baseline);
  if (sweep->baseline->best->len > 0)
    best0 = &g_array_index (sweep->baseline->best, BpwSearchResult, 0);

  for (guint i = 0; i < sweep->points->len; i++)
    {
      BpwSweepPoint *p = &g_array_index (sweep->points, BpwSweepPoint, i);
      g_autoptr(BpwSearchSpace) ps = NULL;
      g_autoptr(GError) local = NULL;

      if (g_cancellable_is_cancelled (cancellable))
        break;
      watch_begin (&w, i + 1);
      if (best0 != NULL)
        baseline_on_point (sweep, &best0->mapping, p);
      ps = bpw_search_space_new (&sweep->spec, &sweep->scenario, p->blueprint, &sweep->base,
                                 p->devices, &sweep->limits, &local);
      if (ps == NULL)
        {
          /* A device count the scenario cannot split is a point without plans. */
          if (g_error_matches (local, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN))
            {
              p->searched = TRUE;
              watch_end (&w, NULL);
              continue;
            }
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      p->report = bpw_search_run (ps, options, search_cb, &w, cancellable, error);
      if (p->report == NULL)
        return FALSE;
      p->searched = TRUE;
      watch_end (&w, p->report);
    }
  mark_pareto (sweep);
  return TRUE;
}

guint
bpw_sweep_get_n_points (BpwSweep *sweep)
{
  return sweep->points->len;
}

const BpwSweepPoint *
bpw_sweep_get_point (BpwSweep *sweep,
                     guint     i)
{
  g_return_val_if_fail (i < sweep->points->len, NULL);
  return &g_array_index (sweep->points, BpwSweepPoint, i);
}

const BpwSearchReport *
bpw_sweep_get_baseline (BpwSweep *sweep)
{
  return sweep->baseline;
}

void
_bpw_sweep_gains (BpwSweep            *sweep,
                  const BpwSweepPoint *p,
                  double               g[3])
{
  double t0, tp, ta;

  g[0] = g[1] = g[2] = NAN;
  if (sweep->baseline == NULL || sweep->baseline->best->len == 0 || !_bpw_sweep_has_best (p))
    return;
  t0 = g_array_index (sweep->baseline->best, BpwSearchResult, 0).estimate.step_time_s;
  tp = g_array_index (p->report->best, BpwSearchResult, 0).estimate.step_time_s;
  g[0] = t0 / tp;
  if (!p->baseline_applies || !p->baseline_legal)
    return;
  ta = p->baseline.step_time_s;
  g[1] = t0 / ta;
  g[2] = ta / tp;
}

void
bpw_sweep_get_gains (BpwSweep *sweep,
                     guint     i,
                     double   *total,
                     double   *architecture,
                     double   *mapping)
{
  double g[3];

  g_return_if_fail (i < sweep->points->len);

  _bpw_sweep_gains (sweep, &g_array_index (sweep->points, BpwSweepPoint, i), g);
  if (total != NULL)
    *total = g[0];
  if (architecture != NULL)
    *architecture = g[1];
  if (mapping != NULL)
    *mapping = g[2];
}

guint
bpw_sweep_get_n_params (BpwSweep *sweep)
{
  return sweep->axes->len;
}

BpwSweepParam
bpw_sweep_get_param (BpwSweep *sweep,
                     guint     i,
                     gint     *tier)
{
  const Axis *a;

  g_return_val_if_fail (i < sweep->axes->len, BPW_SWEEP_N_PARAMS);

  a = &g_array_index (sweep->axes, Axis, i);
  if (tier != NULL)
    *tier = a->param == BPW_SWEEP_LINK_BANDWIDTH ? a->tier : 0;
  return a->param;
}

const char *
bpw_sweep_get_param_name (BpwSweep *sweep,
                          guint     i)
{
  g_return_val_if_fail (i < sweep->axes->len, NULL);
  return g_array_index (sweep->axes, Axis, i).name;
}
