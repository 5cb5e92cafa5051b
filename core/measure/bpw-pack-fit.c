/* bpw-pack-fit.c — hardware rates from a pack's microbenchmarks, the stack's fixed costs
 * from its traces (the method: bpw-pack-fit.h)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-pack-fit"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpw-cost.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-model-spec.h"
#include "bpw-pack-fit.h"
#include "bpw-work-graph.h"
#include "bpw-workload-io.h"

/* Bins of the matrix-engine tables per factor of ten of FLOPs. */
#define BINS_PER_DECADE 2
/* A product within this factor of the sweep's fastest call shows the kit's per-call floor,
 * not the engine. */
#define FLOOR_FACTOR 1.25
/* Passes of the MoE expert loop per training step: forward and backward. */
#define MOE_TRAIN_PASSES 2

static gboolean
contains (const char *haystack, const char *needle)
{
  g_autofree char *lower = NULL;

  if (haystack == NULL)
    return FALSE;
  lower = g_ascii_strdown (haystack, -1);
  return strstr (lower, needle) != NULL;
}

gboolean
bpw_pack_parameter_tensors (const BpwModelSpec *spec,
                            const BpwScenario  *scenario,
                            guint64            *tensors,
                            GError            **error)
{
  g_autoptr(BpwWorkGraph) graph = bpw_work_graph_new (spec, scenario, error);

  if (graph == NULL)
    return FALSE;
  *tensors = 0;
  for (guint i = 0; i < graph->ops->len; i++)
    *tensors += bpw_work_graph_op (graph, i)->phase == BPW_PHASE_OPTIMIZER;
  return TRUE;
}

static double
lower_quartile (const double *sorted, guint n)
{
  double pos = 0.25 * (n - 1);
  guint i = (guint) pos;

  if (n == 0)
    return NAN;
  if (i + 1 >= n)
    return sorted[n - 1];
  return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

static char *
run_list (const BpwMeasurementPack *pack, const guint *runs, guint n)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", pack->runs[runs[i]].name);
  return g_string_free (s, FALSE);
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

static void
fit_value (BpwPackFitValue *v, double value, char *source)
{
  v->value = value;
  g_free (v->source);
  v->source = source;
}

/* ---- hardware ---- */

typedef struct
{
  double flops, time, log_weighted;
  double first;   /* FLOPs of its first product: the size of a bin of one, exactly */
  guint  n;
} Bin;

/* A product as the cost model prices it (bind_matmul, bpw_cost_task): its FLOPs padded to
 * the engine's native tile, and the time device memory needs for its tiled operand traffic
 * at the calibrated bandwidth. */
static void
product_cost (const BpwCostRates *rates, double batch, double m, double n, double k,
              double elem, double *flops, double *memory_s)
{
  double bytes[BPW_N_TRAFFIC_LEVELS] = { 0 };
  BpwTaskCost cost;

  *flops = bpw_cost_padded_flops (&rates->matrix.engine->tile, batch, m, n, k);
  bytes[BPW_TRAFFIC_DEVICE] = bpw_cost_matmul_traffic (batch, m, n, k, elem,
                                                       rates->onchip_bytes, NULL, NULL);
  bpw_cost_task (rates, &rates->matrix, 0, bytes, &cost);
  *memory_s = cost.memory_s;
}

static double
operand_bytes (BpwPrecision precision)
{
  return precision == BPW_PRECISION_FP8 ? 1 : 2;
}

/* The kit times each product alone, host call included (CUDA events around one call on an
 * idle device): every time holds the host's dispatch of the call before its kernel starts,
 * which a run's queued kernels do not wait for (the stack's launch model has the host's own
 * time). The sweep's fastest call shows it: its time less the least its kernel takes, the
 * fixed cost per kernel and its operands' memory time. (On the shared pack: 33.7 us for a
 * product whose kernel cannot take less than 10 us; the pack's decode traces run products
 * of the same shapes 10 to 27 us faster than the kit times them, at any size.) */
static void
fit_call_latency (BpwPackFit *fit, const BpwMeasurementPack *pack)
{
  const BpwPackMatmul *fastest = &pack->peak;
  BpwPrecision precision;
  BpwCostRates rates;
  double flops, memory;

  for (guint i = 0; i < pack->n_matmuls; i++)
    if (pack->matmuls[i].time_s < fastest->time_s)
      fastest = &pack->matmuls[i];
  fit->call_floor_s = fastest->time_s;
  precision = bpw_precision_from_dtype (fastest->dtype);
  if (!bpw_cost_rates_init (&rates, fit->blueprint, precision, NULL))
    return;
  product_cost (&rates, 1, (double) fastest->m, (double) fastest->n, (double) fastest->k,
                operand_bytes (precision), &flops, &memory);
  fit->call_latency_s = MAX (0, fastest->time_s - fit->kernel_overhead_s - memory);
}

/* A product's time on the engine, or 0 when it says nothing about the engine: at the kit's
 * per-call floor, or, the way the cost model combines compute and memory, no engine time
 * left: with overlap (time = fixed cost + max (compute, memory)) a product below the
 * roofline's ridge — memory slower than the best engine rate — is memory's, whatever the
 * engine does; without overlap (fixed cost + compute + memory) its memory time is
 * subtracted. The kit's per-call latency is not the engine's. */
static double
engine_time (const BpwPackFit *fit, const BpwCostRates *rates, const BpwPackMatmul *mm,
             BpwPrecision precision, double best_rate, double *flops)
{
  double memory, t = mm->time_s - fit->call_latency_s - fit->kernel_overhead_s;

  product_cost (rates, 1, (double) mm->m, (double) mm->n, (double) mm->k,
                operand_bytes (precision), flops, &memory);
  if (mm->time_s < FLOOR_FACTOR * fit->call_floor_s)
    return 0;
  if (rates->processing == BPW_PROCESSING_NO_OVERLAP)
    t -= memory;
  else if (memory >= *flops / best_rate || t <= memory)
    return 0;
  return MAX (t, 0);
}

/* The matrix engine's table in @precision from @products (indices into pack->matmuls),
 * and the peak product when @with_peak. */
static void
fit_matrix_table (BpwPackFit *fit, const BpwMeasurementPack *pack, BpwPrecision precision,
                  const guint *products, guint n_products, gboolean with_peak)
{
  BpwBlueprint *bp = fit->blueprint;
  int e = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
  guint total = n_products + (with_peak ? 1 : 0), used = 0, at_floor = 0;
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
  g_autofree Bin *bins = NULL;
  g_autofree char *source = NULL;
  gint lowest = G_MAXINT, highest = G_MININT;
  double peak, best = 0;
  BpwCostRates rates;

  if (e < 0 || total == 0)
    return;
  if (!bp->engines[e].peak[precision].set || bp->engines[e].peak[precision].value <= 0 ||
      !bpw_cost_rates_init (&rates, bp, precision, NULL))
    {
      g_ptr_array_add (fit->warnings,
                       g_strdup_printf (_("%s has no %s peak on its matrix engine: the pack's "
                                          "%s products calibrate nothing"), bp->name,
                                        bpw_precision_to_string (precision),
                                        bpw_precision_to_string (precision)));
      return;
    }
  peak = bp->engines[e].peak[precision].value;
  for (guint i = 0; i < total; i++)
    {
      const BpwPackMatmul *mm = i < n_products ? &pack->matmuls[products[i]] : &pack->peak;
      double flops, memory;

      product_cost (&rates, 1, (double) mm->m, (double) mm->n, (double) mm->k,
                    operand_bytes (precision), &flops, &memory);
      best = MAX (best, flops / mm->time_s);
      lowest = MIN (lowest, (gint) floor (log10 (flops) * BINS_PER_DECADE));
      highest = MAX (highest, (gint) floor (log10 (flops) * BINS_PER_DECADE));
    }
  bins = g_new0 (Bin, highest - lowest + 1);
  for (guint i = 0; i < total; i++)
    {
      const BpwPackMatmul *mm = i < n_products ? &pack->matmuls[products[i]] : &pack->peak;
      double flops, t = engine_time (fit, &rates, mm, precision, best, &flops);
      Bin *b = &bins[(gint) floor (log10 (flops) * BINS_PER_DECADE) - lowest];

      if (mm->time_s < FLOOR_FACTOR * fit->call_floor_s)
        at_floor++;
      if (t <= 0)
        continue;
      if (b->n == 0)
        b->first = flops;
      b->flops += flops;
      b->time += t;
      b->log_weighted += t * log (flops);
      b->n++;
      used++;
    }
  for (gint i = 0; i <= highest - lowest; i++)
    if (bins[i].n > 0)
      {
        BpwEfficiencyPoint p = { bins[i].n == 1 ? bins[i].first
                                                : exp (bins[i].log_weighted / bins[i].time),
                                 MIN (1.0, bins[i].flops / (peak * bins[i].time)) };

        g_array_append_val (points, p);
      }
  fit->matmul_points[precision] = used;
  if (points->len == 0)
    {
      g_ptr_array_add (fit->warnings,
                       g_strdup_printf (_("no %s product of the pack is slower than the kit's "
                                          "per-call floor and its memory time: the %s table "
                                          "stays"), bpw_precision_to_string (precision),
                                        bpw_precision_to_string (precision)));
      return;
    }
  source = g_strdup_printf ("%s: microbenchmarks %s%s (%u of %u products; %u at the kit's "
                            "per-call floor of %.1f us left out): each product's time less "
                            "the kit's per-call latency %.1f us (the floor less its kernel's "
                            "least time), less the fixed cost per kernel and, %s; FLOPs padded "
                            "to the engine's tile; binned %d per decade of FLOPs",
                            fit->source, precision == BPW_PRECISION_FP8 ? "matmul_fp8"
                                                                         : "matmul_bf16",
                            with_peak ? " and matmul_peak" : "", used, total, at_floor,
                            fit->call_floor_s * 1e6, fit->call_latency_s * 1e6,
                            rates.processing == BPW_PROCESSING_NO_OVERLAP
                            ? "less its operands' memory time (no overlap)"
                            : "as memory overlaps compute, only products above the "
                              "roofline's ridge", BINS_PER_DECADE);
  bpw_efficiency_table_set (bp, &bp->engines[e].efficiency[precision],
                            &g_array_index (points, BpwEfficiencyPoint, 0), points->len,
                            BPW_INTERPOLATION_LOG_LINEAR, BPW_PROVENANCE_MEASURED, source);
}

/* The matrix engine in the runs against the microbenchmarks: the kit times each product
 * in a loop of that product alone, which holds the board at its power limit and the SM
 * clock below its maximum (the shared pack: 1479 of 1980 MHz at 674 of 700 W under its
 * peak product), while a run interleaves memory-bound kernels that let the clock rise.
 * Its matrix products that the table prices as compute-bound (their engine time above
 * their memory time) give the ratio: Σ engine time the table predicts over Σ measured
 * time less the fixed cost per kernel, over the traced products of the runs left in. The
 * clock the microbenchmark recorded bounds it: the engine can run no faster than at its
 * maximum clock. Every table the microbenchmarks calibrated is scaled by it, capped at 1
 * (a clock moves the engine in every precision). */
static gboolean
fit_engine_clock (BpwPackFit *fit, const BpwPackData *data, GError **error)
{
  const BpwMeasurementPack *pack = data->pack;
  BpwBlueprint *bp = fit->blueprint;
  int e = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *names = NULL, *bound = NULL;
  double predicted = 0, measured = 0, ratio, cap = INFINITY;
  guint used = 0;

  if (e < 0)
    return TRUE;
  for (guint r = 0; r < pack->n_runs; r++)
    {
      const BpwPackTrace *t = data->traces[r];
      BpwPrecision precision = bpw_precision_from_dtype (pack->runs[r].scenario.dtype);
      guint before = used;
      BpwCostRates rates;

      if ((gint) r == fit->excluded || t->n_products == 0 ||
          fit->matmul_points[precision] == 0 ||
          !bpw_cost_rates_init (&rates, bp, precision, error))
        {
          if (error != NULL && *error != NULL)
            return FALSE;
          continue;
        }
      for (guint i = 0; i < t->n_products; i++)
        {
          const BpwPackProduct *p = &t->products[i];
          double flops, memory, engine;

          product_cost (&rates, p->batch, p->m, p->n, p->k, operand_bytes (precision),
                        &flops, &memory);
          engine = flops / (rates.matrix.peak *
                            bpw_efficiency_table_lookup (rates.matrix.efficiency, flops));
          if (engine <= memory || p->time_s <= fit->kernel_overhead_s)
            continue;
          predicted += engine;
          measured += p->time_s - fit->kernel_overhead_s;
          used++;
        }
      if (used > before)
        g_array_append_val (runs, r);
    }
  if (used == 0)
    return TRUE;
  ratio = predicted / measured;
  if (pack->sm_clock_max_mhz > 0 && pack->peak_sm_clock_mhz > 0)
    {
      cap = pack->sm_clock_max_mhz / pack->peak_sm_clock_mhz;
      bound = g_strdup_printf ("; at most the maximum SM clock over the peak product's, "
                               "%.0f / %.0f MHz", pack->sm_clock_max_mhz,
                               pack->peak_sm_clock_mhz);
    }
  if (ratio > cap)
    {
      g_ptr_array_add (fit->warnings,
                       g_strdup_printf (_("the traced matrix products run %.3g times as fast "
                                          "as the microbenchmarks predict, more than the "
                                          "SM clock allows (%.3g): the ratio is capped"),
                                        ratio, cap));
      ratio = cap;
    }
  names = run_list (pack, (const guint *) runs->data, runs->len);
  fit_value (&fit->engine_clock, ratio,
             g_strdup_printf ("%s: the matrix engine's rate in the runs over the "
                              "microbenchmarks' (the clock under a run's load against the "
                              "sustained product loop's): %u traced products of runs %s "
                              "that the microbenchmark table prices compute-bound, %.3f ms "
                              "of engine time predicted over %.3f ms measured less the "
                              "fixed cost per kernel%s", fit->source, used, names,
                              predicted * 1e3, measured * 1e3, bound != NULL ? bound : ""));
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    {
      BpwEfficiencyTable *table = &bp->engines[e].efficiency[p];
      g_autofree BpwEfficiencyPoint *points = NULL;
      g_autofree char *source = NULL;

      if (fit->matmul_points[p] == 0 || table->n_points == 0)
        continue;
      points = g_memdup2 (table->points, table->n_points * sizeof *points);
      for (guint i = 0; i < table->n_points; i++)
        points[i].efficiency = MIN (1.0, points[i].efficiency * ratio);
      source = g_strdup_printf ("%s; scaled by the engine's clock in the runs, %.4f (%s)",
                                table->source, ratio, fit->engine_clock.source);
      bpw_efficiency_table_set (bp, table, points, table->n_points, table->interpolation,
                                table->kind, source);
    }
  return TRUE;
}

/* Device memory: each copy reads its bytes and writes them. */
static gboolean
fit_memory (BpwPackFit *fit, const BpwMeasurementPack *pack, GError **error)
{
  BpwBlueprint *bp = fit->blueprint;
  int mem = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
  g_autofree char *source = NULL;
  double bandwidth, largest = 0;

  if (mem < 0 || !bp->memory[mem].bandwidth.set || bp->memory[mem].bandwidth.value <= 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: no device memory with a bandwidth to calibrate"), bp->name);
      return FALSE;
    }
  if (pack->n_copies == 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: microbenchmarks: no memory_copy, so device-memory bandwidth cannot "
                     "be calibrated"), pack->filename);
      return FALSE;
    }
  bandwidth = bp->memory[mem].bandwidth.value;
  for (guint i = 0; i < pack->n_copies; i++)
    {
      BpwEfficiencyPoint p = { 2.0 * (double) pack->copies[i].bytes,
                               MIN (1.0, pack->copies[i].bytes_per_s / bandwidth) };
      gboolean seen = FALSE;

      for (guint j = 0; j < points->len; j++)
        seen |= g_array_index (points, BpwEfficiencyPoint, j).size == p.size;
      if (!seen)   /* the first copy of a size stands */
        g_array_append_val (points, p);
      if (p.size > largest)
        {
          largest = p.size;
          fit->memory_efficiency = p.efficiency;
        }
    }
  source = g_strdup_printf ("%s: microbenchmark memory_copy (%u size%s), bytes read plus "
                            "written over the datasheet bandwidth %.4g TB/s", fit->source,
                            pack->n_copies, pack->n_copies == 1 ? "" : "s", bandwidth / 1e12);
  bpw_efficiency_table_set (bp, &bp->memory[mem].efficiency,
                            &g_array_index (points, BpwEfficiencyPoint, 0), points->len,
                            BPW_INTERPOLATION_LOG_LINEAR, BPW_PROVENANCE_MEASURED, source);
  return TRUE;
}

/* Every engine's fixed cost per operation: the lower quartile of the element-wise and
 * cast kernels' durations in the traces left in — their execution on the device, from
 * start to end, not the gaps between kernels (the stack's: eager issue, graph replay).
 * A kernel that moves next to nothing still takes that long (DRAM latency, the grid's
 * ramp and tail); the device's shortest kernel (0.64 µs on the shared pack, a memset) is
 * no such kernel: with it as the fixed cost the pack's CUDA-graph decode, two thousand
 * small kernels, came out 17 % too fast after calibration and 23 % leaving it out, against
 * +1 % and −4 % with this rule. */
static void
fit_overhead (BpwPackFit *fit, const BpwPackData *data)
{
  const BpwMeasurementPack *pack = data->pack;
  g_autoptr(GArray) durations = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *names = NULL, *source = NULL;
  BpwBlueprint *bp = fit->blueprint;

  for (guint r = 0; r < pack->n_runs; r++)
    if ((gint) r != fit->excluded && data->traces[r]->n_short > 0)
      {
        g_array_append_vals (durations, data->traces[r]->short_durations,
                             data->traces[r]->n_short);
        g_array_append_val (runs, r);
      }
  if (durations->len == 0)
    return;
  qsort (durations->data, durations->len, sizeof (double), compare_double);
  fit->kernel_overhead_s = lower_quartile ((const double *) durations->data, durations->len);
  names = run_list (pack, (const guint *) runs->data, runs->len);
  source = g_strdup_printf ("%s: lower quartile of the durations of the %u element-wise and "
                            "cast kernels of runs %s", fit->source, durations->len, names);
  for (guint i = 0; i < bp->n_engines; i++)
    if (bp->engines[i].kind == BPW_ENGINE_MATRIX || bp->engines[i].kind == BPW_ENGINE_VECTOR)
      bpw_blueprint_set_value (bp, &bp->engines[i].overhead, fit->kernel_overhead_s,
                               BPW_PROVENANCE_CALIBRATED, source);
}

/* ---- the software stack ---- */

/* The two kinds of host issue: inference (forward only) and training (autograd's backward
 * engine and the optimizer add host work per kernel). */
enum { ISSUE_INFERENCE, ISSUE_TRAINING, N_ISSUE };

static const char * const issue_names[N_ISSUE] = { "inference", "training" };

/* A phase without an eager run left in takes the other's issue time, saying so. */
static void
fit_issue_fallback (BpwPackFit *fit, BpwPackFitValue *v, const BpwPackFitValue *other,
                    guint kind)
{
  if (!isnan (v->value) || isnan (other->value))
    return;
  fit_value (v, other->value,
             g_strdup_printf ("%s: no eager %s run left in, so the %s runs' issue time: %s",
                              fit->source, issue_names[kind], issue_names[1 - kind],
                              other->source));
}

/* Every eager run's trace times the host's kernel launch calls: their mean interval bounds
 * the host issue time from above (a host synchronisation, a host loop over experts lengthen
 * it). The tightest bound, the least of the eager runs left in, is the issue time;
 * inference and training runs each give their own. The host's own record serves where the
 * device's idle does not: a run of long kernels (prefill) keeps the queue ahead, and its
 * idle says little of the issue rate. */
static void
fit_launch (BpwPackFit *fit, const BpwPackData *data)
{
  const BpwMeasurementPack *pack = data->pack;
  double idle = 0, boundaries = 0, h[N_ISSUE] = { INFINITY, INFINITY };
  g_autoptr(GArray) queued = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) queued_runs = g_array_new (FALSE, FALSE, sizeof (guint));
  gint eager[N_ISSUE] = { -1, -1 };
  BpwPackFitValue *gap[N_ISSUE] = { &fit->eager_gap, &fit->train_eager_gap };
  g_autoptr(GArray) graph = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *eager_runs[N_ISSUE] = { g_array_new (FALSE, FALSE, sizeof (guint)),
                                  g_array_new (FALSE, FALSE, sizeof (guint)) };

  for (guint r = 0; r < pack->n_runs; r++)
    {
      BpwWorkloadPhase phase = pack->runs[r].scenario.phase;
      const BpwPackTrace *t = data->traces[r];
      gboolean is_graph = bpw_pack_run_is_graph (pack, r);

      /* What the stack does is read from all runs; numbers only from those left in. */
      if (phase <= BPW_WORKLOAD_DECODE && (fit->launch[phase] == NULL || is_graph))
        fit->launch[phase] = is_graph ? "graph" : "eager";
      if ((gint) r == fit->excluded)
        continue;
      if (is_graph)
        {
          idle += t->idle_s;
          boundaries += t->n_kernels > 1 ? t->n_kernels - 1 : 0;
          g_array_append_val (graph, r);
        }
      else if (bpw_pack_trace_launch_interval (t) > 0)
        {
          guint kind = phase == BPW_WORKLOAD_TRAIN ? ISSUE_TRAINING : ISSUE_INFERENCE;
          double run_h = bpw_pack_trace_launch_interval (t);

          g_array_append_val (eager_runs[kind], r);
          if (t->n_queued_gaps > 0)
            {
              g_array_append_vals (queued, t->queued_gaps, t->n_queued_gaps);
              g_array_append_val (queued_runs, r);
            }
          if (run_h < h[kind])
            {
              h[kind] = run_h;
              eager[kind] = (gint) r;
            }
        }
    }
  for (guint p = 0; p <= BPW_WORKLOAD_DECODE; p++)
    if (fit->launch[p] == NULL)
      fit->launch[p] = "eager";
  for (guint k = 0; k < N_ISSUE; k++)
    {
      if (eager[k] >= 0)
        {
          const BpwPackTrace *t = data->traces[eager[k]];
          g_autofree char *names = run_list (pack, (const guint *) eager_runs[k]->data,
                                             eager_runs[k]->len);

          fit_value (gap[k], h[k],
                     g_strdup_printf ("%s: the host issue time per kernel, the host's "
                                      "mean interval between kernel launch calls, least over the eager %s runs %s: run "
                                      "%s, %.3f ms over %u launches", fit->source,
                                      issue_names[k], names, pack->runs[eager[k]].name,
                                      t->launch_span_s * 1e3, t->n_launches));
        }
      g_array_unref (eager_runs[k]);
    }
  fit_issue_fallback (fit, &fit->eager_gap, &fit->train_eager_gap, ISSUE_INFERENCE);
  fit_issue_fallback (fit, &fit->train_eager_gap, &fit->eager_gap, ISSUE_TRAINING);
  if (graph->len > 0 && boundaries > 0)
    {
      g_autofree char *names = run_list (pack, (const guint *) graph->data, graph->len);

      fit_value (&fit->graph_gap, idle / boundaries,
                 g_strdup_printf ("%s: run%s %s (CUDA graph replay): idle time %.3f ms over "
                                  "%.0f kernel boundaries", fit->source,
                                  graph->len == 1 ? "" : "s", names, idle * 1e3, boundaries));
    }
  /* The median, not the mean: a host synchronisation, an allocator call, a late launch
   * inside a long queue make a few boundaries long. */
  if (queued->len > 0)
    {
      g_autofree char *names = run_list (pack, (const guint *) queued_runs->data,
                                         queued_runs->len);
      double *gaps = (double *) queued->data;
      guint n = queued->len;

      qsort (gaps, n, sizeof (double), compare_double);
      fit_value (&fit->eager_device_gap,
                 n % 2 ? gaps[n / 2] : (gaps[n / 2 - 1] + gaps[n / 2]) / 2,
                 g_strdup_printf ("%s: eager run%s %s: median device idle between consecutive "
                                  "kernels while the host was ahead (the next kernel's launch "
                                  "call before the previous kernel ended), over %u such "
                                  "boundaries", fit->source, queued_runs->len == 1 ? "" : "s",
                                  names, n));
    }
}

/* Eager element-wise kernels off the vectorized path (a broadcast or strided operand, a
 * dtype converted per element) are bound by their elements, not their bytes: on the shared
 * pack's H200 such kernels of bf16 and of fp32 alike run about 3.4e11 elements/s, where a
 * vectorized one of the same bytes moves them at the copy rate. The rate is the median over
 * the traces left in of each such kernel's elements (its op's, from the recorded input
 * dims) over its duration less the fixed cost per kernel. */
static void
fit_elementwise_rate (BpwPackFit *fit, const BpwPackData *data)
{
  const BpwMeasurementPack *pack = data->pack;
  g_autoptr(GArray) rates = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *names = NULL;
  double *r;
  guint n;

  for (guint run = 0; run < pack->n_runs; run++)
    {
      const BpwPackTrace *t = data->traces[run];
      gboolean used = FALSE;

      if ((gint) run == fit->excluded)
        continue;
      for (guint i = 0; i < t->n_offpath; i++)
        {
          double busy = t->offpath_durations[i] - fit->kernel_overhead_s;
          double rate;

          if (busy <= 0)
            continue;
          rate = t->offpath_elements[i] / busy;
          g_array_append_val (rates, rate);
          used = TRUE;
        }
      if (used)
        g_array_append_val (runs, run);
    }
  if (rates->len == 0)
    return;
  r = (double *) rates->data;
  n = rates->len;
  qsort (r, n, sizeof (double), compare_double);
  names = run_list (pack, (const guint *) runs->data, runs->len);
  fit_value (&fit->elementwise_rate, n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2,
             g_strdup_printf ("%s: run%s %s: median elements per second of the %u element-wise "
                              "kernels off the vectorized path (strided or converting, of at "
                              "least %d elements), each its op's elements over its duration "
                              "less the fixed cost per kernel", fit->source,
                              runs->len == 1 ? "" : "s", names, n,
                              BPW_PACK_OFFPATH_MIN_ELEMENTS));
}

static gboolean
fit_training (BpwPackFit *fit, const BpwPackData *data, double copy_rate, GError **error)
{
  const BpwMeasurementPack *pack = data->pack;
  double time = 0, kernels = 0, params = 0, tensors = 0;
  double moe_unexplained = 0, moe_loops = 0;
  g_autoptr(GArray) train = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) moe = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint r = 0; r < pack->n_runs; r++)
    {
      const BpwPackTrace *t = data->traces[r];
      BpwModelSpec spec;
      gint64 moe_layers = 0;

      if ((gint) r == fit->excluded || pack->runs[r].scenario.phase != BPW_WORKLOAD_TRAIN)
        continue;
      bpw_model_spec_init_defaults (&spec);
      if (!bpw_workload_load (pack->runs[r].model_path, &spec, error))
        {
          bpw_model_spec_clear (&spec);
          return FALSE;
        }
      if (t->count[BPW_STACK_KERNEL_OPTIMIZER] > 0)
        {
          guint64 n = 0;

          time += t->time_s[BPW_STACK_KERNEL_OPTIMIZER];
          kernels += t->count[BPW_STACK_KERNEL_OPTIMIZER];
          params += (double) bpw_model_spec_parameters (&spec);
          if (!bpw_pack_parameter_tensors (&spec, &pack->runs[r].scenario, &n, error))
            {
              bpw_model_spec_clear (&spec);
              return FALSE;
            }
          tensors += (double) n;
          g_array_append_val (train, r);
        }
      for (gint64 l = 0; spec.experts > 0 && l < spec.layers; l++)
        moe_layers += bpw_model_spec_is_moe_layer (&spec, l);
      if (moe_layers > 0)
        {
          /* Idle time the host issue queue does not explain is the expert loop's: its
           * host synchronisations drain the queue. The idle is the measured step's beyond
           * the kernels where the pack times the step: the profiler slows the host, not
           * the kernels, so a trace's own idle overstates it (the shared pack's MoE run:
           * 38.2 ms idle in a 135.3 ms trace span, for a 110.3 ms step of 97.1 ms of
           * kernels). */
          double h = isnan (fit->train_eager_gap.value) ? 0 : fit->train_eager_gap.value;
          double idle = isnan (pack->runs[r].measured_s) ? t->idle_s
                                                          : MAX (0, MIN (t->idle_s,
                                                                         pack->runs[r].measured_s
                                                                         - t->busy_s));

          moe_unexplained += MAX (0, idle - bpw_pack_trace_queue_idle (t, h));
          moe_loops += (double) (spec.experts * moe_layers * MOE_TRAIN_PASSES);
          g_array_append_val (moe, r);
        }
      bpw_model_spec_clear (&spec);
    }
  if (train->len > 0)
    {
      g_autofree char *names = run_list (pack, (const guint *) train->data, train->len);

      fit_value (&fit->optimizer_bytes, time * copy_rate / params,
                 g_strdup_printf ("%s: runs %s: optimizer kernel time %.3f ms at the "
                                  "memory_copy rate %.4g TB/s over %.0f parameters",
                                  fit->source, names, time * 1e3, copy_rate / 1e12, params));
      /* A foreach optimizer launches per chunk of elements across tensors: its launches
       * follow the parameters (the shared pack: 383 per 10⁹ parameters in each of its three
       * training runs, against 4 to 19 per tensor); a loop over tensors follows the tensors. */
      if (g_strcmp0 (fit->optimizer, "foreach") == 0)
        fit_value (&fit->optimizer_launches, kernels / params,
                   g_strdup_printf ("%s: runs %s: %.0f optimizer kernels over %.0f parameters",
                                    fit->source, names, kernels, params));
      else
        fit_value (&fit->optimizer_kernels, kernels / tensors,
                 g_strdup_printf ("%s: runs %s: %.0f optimizer kernels over %.0f parameter "
                                  "tensors (the optimizer operations of their work graphs)",
                                  fit->source, names, kernels, tensors));
    }
  /* None left beyond the queue (a step no slower than its kernels): nothing to add, and a
   * time of zero is no value the blueprint takes. */
  if (moe->len > 0 && moe_unexplained > 0)
    {
      g_autofree char *names = run_list (pack, (const guint *) moe->data, moe->len);

      fit_value (&fit->moe_per_expert, moe_unexplained / moe_loops,
                 g_strdup_printf ("%s: run%s %s: %.3f ms of idle time beyond what the host "
                                  "issue queue leaves, over %.0f expert visits (experts x MoE layers x %d "
                                  "passes); charged per expert that an eager pass's tokens "
                                  "visit, none in a pass replayed from a CUDA graph",
                                  fit->source, moe->len == 1 ? "" : "s", names,
                                  moe_unexplained * 1e3, moe_loops, MOE_TRAIN_PASSES));
    }
  return TRUE;
}

static void
read_stack (BpwPackFit *fit, const BpwMeasurementPack *pack)
{
  gboolean fp32_loss = FALSE;

  fit->framework = g_strdup (pack->framework);
  fit->fused_attention = pack->attention_impl == NULL || contains (pack->attention_impl, "flash");
  fit->attention = fit->fused_attention ? "flash" : "materialized";
  fit->master_weights = contains (pack->precision, "fp32 master") ? "fp32" : "none";
  for (guint r = 0; r < pack->n_runs; r++)
    {
      const char *note = pack->runs[r].note;

      fp32_loss |= contains (note, "fp32") &&
                   (contains (note, "entropy") || contains (note, "loss") ||
                    contains (note, "logits"));
    }
  fp32_loss |= contains (pack->precision, "fp32 logits") || contains (pack->precision, "fp32 loss");
  fit->logits = fp32_loss ? "fp32" : "compute";
  fit->optimizer = contains (pack->optimizer, "fused") ? "fused"
                   : contains (pack->optimizer, "foreach") ? "foreach" : "per-tensor";
  fit->elementwise = pack->fusion == NULL || contains (pack->fusion, "none") ||
                     contains (pack->fusion, "separate") || contains (pack->fusion, "unfused")
                     ? "unfused" : "fused";
  if (contains (pack->other_models, "expert"))
    fit->moe_implementation = contains (pack->other_models, "loop") ? "loop" : "grouped";
}

BpwPackFit *
bpw_pack_fit (const BpwBlueprint *blueprint,
              const BpwPackData  *data,
              gint                exclude,
              const char         *name,
              GError            **error)
{
  const BpwMeasurementPack *pack = data->pack;
  g_autoptr(BpwPackFit) fit = g_new0 (BpwPackFit, 1);
  g_autofree char *base = g_path_get_basename (pack->filename);
  g_autofree char *default_name = g_strdup_printf ("%s-calibrated", blueprint->name);
  g_autofree guint *bf16 = NULL, *fp8 = NULL;
  guint n_bf16 = 0, n_fp8 = 0;
  double copy_rate = 0, largest = 0;

  fit->excluded = exclude;
  fit->warnings = g_ptr_array_new_with_free_func (g_free);
  fit->optimizer_bytes.value = fit->optimizer_kernels.value = NAN;
  fit->optimizer_launches.value = NAN;
  fit->eager_gap.value = fit->train_eager_gap.value = fit->graph_gap.value = fit->moe_per_expert.value = NAN;
  fit->eager_device_gap.value = NAN;
  fit->elementwise_rate.value = NAN;
  fit->engine_clock.value = NAN;
  fit->source = g_strdup_printf ("measurement pack %s (%s, driver %s, CUDA %s, %s)", base,
                                 pack->device_name, pack->driver != NULL ? pack->driver : "?",
                                 pack->cuda != NULL ? pack->cuda : "?", pack->framework);
  fit->blueprint = bpw_blueprint_copy (blueprint);
  g_free (fit->blueprint->name);
  fit->blueprint->name = g_strdup (name != NULL ? name : default_name);
  read_stack (fit, pack);

  if (!fit_memory (fit, pack, error))
    return NULL;
  fit_overhead (fit, data);
  for (guint i = 0; i < pack->n_copies; i++)
    if ((double) pack->copies[i].bytes > largest)
      {
        largest = (double) pack->copies[i].bytes;
        copy_rate = pack->copies[i].bytes_per_s;
      }

  /* The kit's per-call floor and latency: its fastest product of any precision. */
  fit_call_latency (fit, pack);
  bf16 = bpw_measurement_pack_matmuls_of (pack, BPW_DTYPE_BF16, &n_bf16);
  fp8 = bpw_measurement_pack_matmuls_of (pack, BPW_DTYPE_FP8, &n_fp8);
  fit_matrix_table (fit, pack, BPW_PRECISION_BF16, bf16, n_bf16,
                    pack->peak.dtype == BPW_DTYPE_BF16);
  fit_matrix_table (fit, pack, BPW_PRECISION_FP8, fp8, n_fp8, pack->peak.dtype == BPW_DTYPE_FP8);
  if (!fit_engine_clock (fit, data, error))
    return NULL;
  _bpw_pack_fit_attention (fit, pack);

  fit_launch (fit, data);
  fit_elementwise_rate (fit, data);
  if (!fit_training (fit, data, copy_rate, error))
    return NULL;
  if (!bpw_blueprint_validate (fit->blueprint, error))
    return NULL;
  return g_steal_pointer (&fit);
}

void
bpw_pack_fit_free (BpwPackFit *fit)
{
  if (fit == NULL)
    return;
  g_clear_pointer (&fit->blueprint, bpw_blueprint_free);
  g_free (fit->source);
  g_free (fit->framework);
  g_free (fit->optimizer_bytes.source);
  g_free (fit->optimizer_kernels.source);
  g_free (fit->optimizer_launches.source);
  g_free (fit->eager_gap.source);
  g_free (fit->train_eager_gap.source);
  g_free (fit->graph_gap.source);
  g_free (fit->eager_device_gap.source);
  g_free (fit->moe_per_expert.source);
  g_free (fit->elementwise_rate.source);
  g_free (fit->engine_clock.source);
  g_clear_pointer (&fit->warnings, g_ptr_array_unref);
  g_free (fit);
}
