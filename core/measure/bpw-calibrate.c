/* bpw-calibrate.c — fitting efficiency tables (and fixed costs) to correlated profiles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fit works on samples, one per modelled task of a matched row. A row's measured time
 * is shared among its operations in proportion to their time on the blueprint as given
 * (a kernel that computes a norm's three gradients, an optimizer step of 23 updates), so
 * that every operation calibrates its own table at its own size; rows with a transfer
 * calibrate nothing. The class of a sample, and so its table, is judged on the blueprint
 * as given and kept while the tables move, so that the fit converges.
 */
#define G_LOG_DOMAIN "bpw-calibrate"

#include "config.h"

#include <math.h>

#include "bpw-calibrate-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

#define CONVERGED 1e-9

typedef struct
{
  guint               corr;        /* index of its correlation */
  const BpwPlanTask  *task;
  BpwOpClass          op_class;    /* on the blueprint as given */
  double              measured;    /* its share of the row's measured time */
  double              before;      /* its time on the blueprint as given */
} Sample;

typedef struct
{
  const BpwBlueprint      *original;
  BpwBlueprint            *work;
  BpwCorrelation * const  *corrs;
  guint                    n;
  guint                    bins_per_decade;
  GArray                  *samples;  /* Sample */
  BpwCostRates            *rates;    /* per correlation, on the working blueprint */
  GPtrArray               *tables;   /* BpwCalibrationFitTable, in order of first use */
  GHashTable              *index;    /* BpwEfficiencyTable * -> its fit table */
} Fit;

double
bpw_calibration_task_time (const BpwCostRates *rates,
                           const BpwPlanTask  *task,
                           BpwTaskCost        *cost)
{
  BpwTaskCost c;

  /* The host stream's exposed part, task->stream_s, is the layer's: it stays as binding
   * found it (bpw-plan-host-stream.c). */
  bpw_plan_task_cost (rates, task, &c);
  if (cost != NULL)
    *cost = c;
  return c.time_s * task->count;
}

static BpwOpClass
class_of (const BpwPlanTask *task, const BpwTaskCost *cost)
{
  if (cost->bottleneck == BPW_BOTTLENECK_MEMORY)
    return BPW_OP_CLASS_MEMORY;
  if (cost->bottleneck == BPW_BOTTLENECK_COMPUTE)
    return task->engine == BPW_ENGINE_MATRIX ? BPW_OP_CLASS_MATRIX : BPW_OP_CLASS_VECTOR;
  return BPW_OP_CLASS_LATENCY;
}

static gboolean
init_rates (Fit *fit, const BpwBlueprint *bp, BpwCostRates *rates, GError **error)
{
  for (guint c = 0; c < fit->n; c++)
    if (!bpw_cost_rates_init (&rates[c], bp, fit->corrs[c]->sim->plan->precision, error))
      return FALSE;
  return TRUE;
}

static gboolean
collect_samples (Fit *fit, GError **error)
{
  g_autofree BpwCostRates *rates = g_new0 (BpwCostRates, MAX (fit->n, 1));

  if (!init_rates (fit, fit->original, rates, error))
    return FALSE;
  for (guint c = 0; c < fit->n; c++)
    {
      const BpwCorrelation *corr = fit->corrs[c];
      const BpwPlan *plan = corr->sim->plan;

      for (guint r = 0; r < corr->rows->len; r++)
        {
          const BpwCorrelationRow *row = bpw_correlation_row (corr, r);
          guint first = fit->samples->len;
          double total = 0;

          if (row->status != BPW_ROW_MATCHED || row->measured_s <= 0)
            continue;
          for (guint k = 0; k < row->n_ops; k++)
            {
              const BpwSimEvent *e = bpw_simulation_event (corr->sim, bpw_correlation_row_op (
                                                             corr, row, k)->event);
              Sample s = { .corr = c };
              BpwTaskCost cost;

              if (e->kind != BPW_SIM_EVENT_TASK)
                break;
              s.task = &g_array_index (plan->stages[e->stage].tasks, BpwPlanTask, e->item);
              s.before = bpw_calibration_task_time (&rates[c], s.task, &cost);
              s.op_class = class_of (s.task, &cost);
              total += s.before;
              g_array_append_val (fit->samples, s);
            }
          if (fit->samples->len - first < row->n_ops || total <= 0)
            {
              g_array_set_size (fit->samples, first);
              continue;
            }
          for (guint i = first; i < fit->samples->len; i++)
            {
              Sample *s = &g_array_index (fit->samples, Sample, i);

              s->measured = row->measured_s * s->before / total;
            }
        }
    }
  return TRUE;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The fixed cost of each engine: the median, over the operations it runs that the
 * blueprint as given finds latency bound, of their measured time less their engine and
 * memory time. A median, because such small operations also carry the framework's noise. */
static void
fit_overheads (Fit *fit, const char *source, GPtrArray *warnings)
{
  static const BpwEngineKind kinds[] = { BPW_ENGINE_MATRIX, BPW_ENGINE_VECTOR };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr(GArray) rest = g_array_new (FALSE, FALSE, sizeof (double));
      int e = bpw_blueprint_first_engine (fit->work, kinds[k]);
      double median;

      for (guint i = 0; i < fit->samples->len; i++)
        {
          const Sample *s = &g_array_index (fit->samples, Sample, i);
          BpwTaskCost cost;
          double r;

          if (s->op_class != BPW_OP_CLASS_LATENCY || s->task->engine != kinds[k])
            continue;
          bpw_calibration_task_time (&fit->rates[s->corr], s->task, &cost);
          r = s->measured / s->task->count - (cost.time_s - cost.overhead_s);
          g_array_append_val (rest, r);
        }
      if (e < 0 || rest->len == 0)
        continue;
      g_array_sort (rest, compare_doubles);
      median = rest->len % 2 == 1 ? g_array_index (rest, double, rest->len / 2)
               : 0.5 * (g_array_index (rest, double, rest->len / 2 - 1) +
                        g_array_index (rest, double, rest->len / 2));
      if (median <= 0)
        {
          g_ptr_array_add (warnings, g_strdup_printf (_("%s: the latency-bound operations took "
                                                      "no longer than their arithmetic; the "
                                                      "fixed cost is left as it was"),
                                                      fit->work->engines[e].name));
          continue;
        }
      bpw_blueprint_set_value (fit->work, &fit->work->engines[e].overhead, median,
                               BPW_PROVENANCE_CALIBRATED, source);
    }
}

static BpwCalibrationFitTable *
lookup_table (Fit *fit, BpwEfficiencyTable *table, BpwOpClass op_class)
{
  BpwCalibrationFitTable *t = g_hash_table_lookup (fit->index, table);

  if (t == NULL)
    {
      t = _bpw_calibration_table_new (fit->work, table, op_class);
      g_ptr_array_add (fit->tables, t);
      g_hash_table_insert (fit->index, table, t);
    }
  return t;
}

/* One round: every sample's calibrated part on the current blueprint, binned per table,
 * the tables corrected. Returns the largest correction. */
static double
fit_round (Fit *fit, const char *source)
{
  double change = 0;

  for (guint i = 0; i < fit->tables->len; i++)
    _bpw_calibration_table_reset (g_ptr_array_index (fit->tables, i));
  for (guint i = 0; i < fit->samples->len; i++)
    {
      const Sample *s = &g_array_index (fit->samples, Sample, i);
      const BpwCostRates *rates = &fit->rates[s->corr];
      BpwEfficiencyTable *table;
      BpwTaskCost cost;
      double time, variable, size, measured;

      if (s->op_class == BPW_OP_CLASS_MEMORY)
        {
          table = (BpwEfficiencyTable *) &rates->traffic[BPW_TRAFFIC_DEVICE].level->efficiency;
          size = s->task->bytes[BPW_TRAFFIC_DEVICE];
        }
      else if (s->op_class == BPW_OP_CLASS_MATRIX || s->op_class == BPW_OP_CLASS_VECTOR)
        {
          table = (BpwEfficiencyTable *) (s->op_class == BPW_OP_CLASS_MATRIX
                                          ? rates->matrix.efficiency : rates->vector.efficiency);
          size = s->task->flops;
        }
      else
        continue;
      time = bpw_calibration_task_time (rates, s->task, &cost);
      variable = (s->op_class == BPW_OP_CLASS_MEMORY ? cost.memory_s : cost.compute_s) *
                 s->task->count;
      measured = s->measured - (time - variable);
      if (size > 0 && variable > 0 && measured > 0)
        _bpw_calibration_table_add (lookup_table (fit, table, s->op_class),
                                    fit->bins_per_decade, size, variable, measured);
    }
  for (guint i = 0; i < fit->tables->len; i++)
    {
      BpwCalibrationFitTable *t = g_ptr_array_index (fit->tables, i);
      double table_change;

      if (t->bins->len == 0)
        continue;
      /* Not inside MAX (), which would evaluate it twice. */
      table_change = _bpw_calibration_table_apply (t, fit->work, fit->bins_per_decade, source);
      change = MAX (change, table_change);
    }
  return change;
}

static char *
describe_sources (BpwCorrelation * const *corrs, guint n)
{
  GString *out = g_string_new (NULL);

  for (guint c = 0; c < n; c++)
    {
      g_autofree char *meta = bpw_profile_meta_describe (&corrs[c]->profile->meta);
      g_autofree char *base = g_path_get_basename (corrs[c]->profile->filename);

      g_string_append_printf (out, "%s%s (%s)", c > 0 ? ", " : "", base, meta);
    }
  return g_string_free (out, FALSE);
}

static void
summarise (BpwCalibration *cal, Fit *fit)
{
  for (guint i = 0; i < fit->samples->len; i++)
    {
      const Sample *s = &g_array_index (fit->samples, Sample, i);
      BpwCalibrationClass *k = &cal->classes[s->op_class];
      BpwTaskCost cost;
      double after = bpw_calibration_task_time (&fit->rates[s->corr], s->task, &cost);
      double variable = (s->op_class == BPW_OP_CLASS_MEMORY ? cost.memory_s : cost.compute_s) *
                        s->task->count;

      k->measured_s += s->measured;
      k->predicted_before_s += s->before;
      k->predicted_after_s += after;
      if (s->op_class != BPW_OP_CLASS_LATENCY && variable > 0 &&
          s->measured - (after - variable) > 0)
        k->rows++;
      else
        k->skipped++;
    }
}

static void
finish_tables (BpwCalibration *cal, Fit *fit)
{
  for (guint i = 0; i < fit->tables->len; i++)
    {
      BpwCalibrationFitTable *t = g_ptr_array_index (fit->tables, i);
      BpwCalibrationTable *out = g_new0 (BpwCalibrationTable, 1);
      g_autofree char *source = g_strdup_printf (
        "%s: %u %s-bound operations of %.3g to %.3g %s", cal->source, t->rows,
        t->op_class == BPW_OP_CLASS_MEMORY ? "memory" : "compute", t->min_size, t->max_size,
        t->op_class == BPW_OP_CLASS_MEMORY ? "bytes" : "FLOPs");

      t->table->source = bpw_blueprint_intern (fit->work, source);
      out->name = g_strdup (t->name);
      out->op_class = t->op_class;
      out->rows = t->rows;
      out->min_size = t->min_size;
      out->max_size = t->max_size;
      out->before = g_array_ref (t->before);
      out->after = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
      g_array_append_vals (out->after, t->table->points, t->table->n_points);
      g_ptr_array_add (cal->tables, out);
      if (t->clamped)
        g_ptr_array_add (cal->warnings, g_strdup_printf (
          _("%s: measured faster than its peak allows at some sizes; efficiency held at 1 there "
          "(the peak or the bandwidth may be too low)"), t->name));
    }
}

BpwCalibration *
bpw_calibrate (const BpwBlueprint        *blueprint,
               BpwCorrelation * const    *corrs,
               guint                      n,
               const BpwCalibrateOptions *options,
               GError                   **error)
{
  g_autoptr(BpwCalibration) cal = g_new0 (BpwCalibration, 1);
  g_autofree char *profiles = describe_sources (corrs, n);
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (Sample));
  g_autoptr(GPtrArray) tables = g_ptr_array_new_with_free_func (_bpw_calibration_table_free);
  g_autoptr(GHashTable) index = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autofree BpwCostRates *rates = g_new0 (BpwCostRates, MAX (n, 1));
  Fit fit = { .original = blueprint, .corrs = corrs, .n = n, .bins_per_decade = 2,
              .samples = samples, .rates = rates, .tables = tables, .index = index };
  guint iterations = 8;

  g_return_val_if_fail (blueprint != NULL && (n == 0 || corrs != NULL), NULL);

  if (options != NULL && options->bins_per_decade > 0)
    fit.bins_per_decade = options->bins_per_decade;
  if (options != NULL && options->iterations > 0)
    iterations = options->iterations;
  cal->tables = g_ptr_array_new ();
  cal->warnings = g_ptr_array_new_with_free_func (g_free);
  cal->blueprint = fit.work = bpw_blueprint_copy (blueprint);
  g_free (fit.work->name);
  fit.work->name = options != NULL && options->name != NULL
                   ? g_strdup (options->name) : g_strconcat (blueprint->name, "-calibrated", NULL);
  cal->source = g_strdup_printf ("calibrated on %s by `bpw profile calibrate`", profiles);

  if (!collect_samples (&fit, error) || !init_rates (&fit, fit.work, rates, error))
    return NULL;
  if (options != NULL && options->fit_overhead)
    {
      g_autofree char *source = g_strdup_printf ("%s: median fixed cost of its latency-bound "
                                                 "operations", cal->source);

      fit_overheads (&fit, source, cal->warnings);
      /* Cost rates cache the fixed cost. */
      if (!init_rates (&fit, fit.work, rates, error))
        return NULL;
    }
  for (guint round = 0; round < iterations; round++)
    {
      double change = fit_round (&fit, cal->source);

      cal->iterations = round + 1;
      if (round == 0 && tables->len == 0)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("Nothing to calibrate: no matched operation of %s is bound by an engine "
                       "or by memory with a measured time above its fixed cost."), profiles);
          return NULL;
        }
      if (change < CONVERGED)
        break;
    }
  summarise (cal, &fit);
  finish_tables (cal, &fit);
  return g_steal_pointer (&cal);
}

void
bpw_calibration_free (BpwCalibration *cal)
{
  if (cal == NULL)
    return;
  for (guint i = 0; cal->tables != NULL && i < cal->tables->len; i++)
    {
      BpwCalibrationTable *t = g_ptr_array_index (cal->tables, i);

      g_free (t->name);
      g_array_unref (t->before);
      g_array_unref (t->after);
      g_free (t);
    }
  g_clear_pointer (&cal->tables, g_ptr_array_unref);
  g_clear_pointer (&cal->warnings, g_ptr_array_unref);
  g_clear_pointer (&cal->blueprint, bpw_blueprint_free);
  g_free (cal->source);
  g_free (cal);
}
