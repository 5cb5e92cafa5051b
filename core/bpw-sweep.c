/* bpw-sweep.c — blueprint parameters × best mapping, gains split by their source
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-sweep"

#include "config.h"

#include "bpw-sweep-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-quantity.h"
#include "bpw-search-private.h"

static const char * const param_names[BPW_SWEEP_N_PARAMS] = {
  "hbm_bandwidth", "hbm_capacity", "sram_capacity", "link_bandwidth", "matrix_peak",
  "power_cap", "devices",
};

static const BpwUnit param_units[BPW_SWEEP_N_PARAMS] = {
  BPW_UNIT_BYTES_PER_S, BPW_UNIT_BYTES, BPW_UNIT_BYTES, BPW_UNIT_BYTES_PER_S,
  BPW_UNIT_FLOPS_PER_S, BPW_UNIT_WATTS, BPW_UNIT_NONE,
};

const char *
bpw_sweep_param_to_string (BpwSweepParam param)
{
  g_return_val_if_fail (param < BPW_SWEEP_N_PARAMS, "?");
  return param_names[param];
}

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
parse_value (const Axis *a, const char *text, double *out, GError **error)
{
  g_autoptr(GError) local = NULL;
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0')
    {
      if (!bpw_quantity_parse (text, param_units[a->param], &v, &local))
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "--sweep-param %s: %s",
                       a->name, local->message);
          return FALSE;
        }
    }
  if (!(v > 0) || !isfinite (v) ||
      (a->param == BPW_SWEEP_DEVICES && (v != floor (v) || v > (double) (1 << 24))))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "--sweep-param %s: expected "
                   "%s, got '%s'", a->name, a->param == BPW_SWEEP_DEVICES
                   ? "a device count from 1 to 16777216" : "a positive value", text);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_axis (const BpwBlueprint *bp, const char *spec, Axis *a, GError **error)
{
  g_auto(GStrv) kv = g_strsplit (spec, "=", 2);
  g_auto(GStrv) items = NULL;
  g_auto(GStrv) name = NULL;
  guint p;

  a->values = g_array_new (FALSE, FALSE, sizeof (double));
  a->name = g_strdup (kv[0]);
  if (g_strv_length (kv) != 2 || kv[1][0] == '\0')
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "--sweep-param: expected "
                   "NAME=V1,V2,..., got '%s'", spec);
      return FALSE;
    }
  name = g_strsplit (kv[0], ".", 2);
  for (p = 0; p < BPW_SWEEP_N_PARAMS && g_strcmp0 (name[0], param_names[p]) != 0; p++)
    ;
  if (p == BPW_SWEEP_N_PARAMS || (name[1] != NULL && p != BPW_SWEEP_LINK_BANDWIDTH))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "--sweep-param: unknown "
                   "parameter '%s'; expected hbm_bandwidth, hbm_capacity, sram_capacity, "
                   "link_bandwidth[.TIER], matrix_peak, power_cap or devices", kv[0]);
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
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "--sweep-param %s: “%s” has "
                   "no such tier", kv[0], bp->name);
      return FALSE;
    }
  if (p == BPW_SWEEP_SRAM_CAPACITY && bpw_blueprint_first_memory (bp, BPW_MEMORY_SRAM) < 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "--sweep-param %s: “%s” has "
                   "no on-chip SRAM level", kv[0], bp->name);
      return FALSE;
    }
  items = g_strsplit (kv[1], ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      double v;

      if (!parse_value (a, g_strstrip (items[i]), &v, error))
        return FALSE;
      g_array_append_val (a->values, v);
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
      bpw_blueprint_set_value (bp, &bp->tdp, v, BPW_PROVENANCE_ESTIMATE, source);
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
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "--sweep-param: the grid "
                       "has more than 10000 points; sweep fewer values");
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

gboolean
bpw_sweep_run (BpwSweep               *sweep,
               const BpwSearchOptions *options,
               GCancellable           *cancellable,
               GError                **error)
{
  g_autoptr(BpwSearchSpace) space = NULL;
  const BpwSearchResult *best0 = NULL;

  space = bpw_search_space_new (&sweep->spec, &sweep->scenario, sweep->blueprint, &sweep->base,
                                sweep->devices, &sweep->limits, error);
  if (space == NULL)
    return FALSE;
  g_clear_pointer (&sweep->baseline, bpw_search_report_free);
  sweep->baseline = bpw_search_run (space, options, NULL, NULL, cancellable, error);
  if (sweep->baseline == NULL)
    return FALSE;
  if (sweep->baseline->best->len > 0)
    best0 = &g_array_index (sweep->baseline->best, BpwSearchResult, 0);

  for (guint i = 0; i < sweep->points->len; i++)
    {
      BpwSweepPoint *p = &g_array_index (sweep->points, BpwSweepPoint, i);
      g_autoptr(BpwSearchSpace) ps = NULL;
      g_autoptr(GError) local = NULL;

      if (g_cancellable_is_cancelled (cancellable))
        break;
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
              continue;
            }
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      p->report = bpw_search_run (ps, options, NULL, NULL, cancellable, error);
      if (p->report == NULL)
        return FALSE;
      p->searched = TRUE;
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
