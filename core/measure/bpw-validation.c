/* bpw-validation.c — Megatron-LM 2021 Table 1: prediction and calibration
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-validation"

#include "config.h"

#include <string.h>

#include <math.h>

#include "bpw-i18n.h"
#include "bpw-validation.h"
#include "bpw-blueprint-calibration.h"
#include "bpw-blueprint-io.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-mapping.h"
#include "bpw-workload-io.h"

#define SEQ   2048
#define VOCAB 51200

/* Narayanan et al., SC'21, Table 1 (REFERENCES.md §3.1). */
static const BpwMegatronRow megatron_rows[] = {
  {    1.7,  24,  2304,  24, 1,  1,   32,  512, 137 },
  {    3.6,  32,  3072,  30, 2,  1,   64,  512, 138 },
  {    7.5,  32,  4096,  36, 4,  1,  128,  512, 142 },
  {   18.4,  48,  6144,  40, 8,  1,  256, 1024, 135 },
  {   39.1,  64,  8192,  48, 8,  2,  512, 1536, 138 },
  {   76.1,  80, 10240,  60, 8,  4, 1024, 1792, 140 },
  {  145.6,  96, 12288,  80, 8,  8, 1536, 2304, 148 },
  {  310.1, 128, 16384,  96, 8, 16, 1920, 2160, 155 },
  {  529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163 },
  { 1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163 },
};

const BpwMegatronRow *
bpw_validation_megatron_rows (guint *n_rows)
{
  *n_rows = G_N_ELEMENTS (megatron_rows);
  return megatron_rows;
}

double
bpw_validation_megatron_flops (const BpwMegatronRow *r)
{
  double h = (double) r->hidden, l = (double) r->layers, s = SEQ;

  return 96.0 * (double) r->batch * s * l * h * h *
         (1.0 + s / (6.0 * h) + VOCAB / (16.0 * l * h));
}

static gboolean
row_setup (const BpwMegatronRow *r, BpwModelSpec *spec, BpwScenario *scenario,
           BpwMapping *mapping, GError **error)
{
  gint64 dp = r->gpus / (r->tp * r->pp), micro_batches;

  /* The GPT-3 family: GeLU MLP of 4h, LayerNorm, learned positions, biases, V = 51,200. */
  if (!bpw_workload_load ("gpt3-175b", spec, error))
    return FALSE;
  g_free (spec->name);
  spec->name = g_strdup_printf ("megatron-%.1fB", r->parameters_b);
  spec->layers = r->layers;
  spec->hidden = r->hidden;
  spec->heads = spec->kv_heads = r->heads;
  spec->head_dim = r->hidden / r->heads;
  spec->ffn = 4 * r->hidden;
  spec->vocab = VOCAB;

  bpw_scenario_init_defaults (scenario);
  scenario->phase = BPW_WORKLOAD_TRAIN;
  scenario->global_batch = r->batch;
  scenario->micro_batch = 1;
  scenario->seq = SEQ;
  scenario->recompute = BPW_RECOMPUTE_FULL;
  scenario->dtype = BPW_DTYPE_FP16;

  bpw_mapping_init_defaults (mapping);
  mapping->parallel.tp = r->tp;
  mapping->parallel.pp = r->pp;
  mapping->parallel.dp = dp;
  mapping->fusion = BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER;
  mapping->dp_overlap = FALSE;
  micro_batches = r->batch / dp;
  if (r->pp > 1)
    for (gint64 v = 4; v >= 2; v--)
      if (r->layers % (r->pp * v) == 0 && micro_batches % r->pp == 0)
        {
          mapping->parallel.schedule = BPW_SCHEDULE_INTERLEAVED;
          mapping->parallel.interleave = v;
          break;
        }
  return TRUE;
}

gboolean
bpw_validation_megatron_predict (const BpwBlueprint   *bp,
                                 const BpwMegatronRow *r,
                                 BpwValidationResult  *result,
                                 GError              **error)
{
  g_autoptr(BpwEstimator) est = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwEvaluation e;
  gboolean ok;
  g_autoptr(BpwBlueprint) hardware = NULL;

  /* Table 1 was run on Megatron-LM's own fused kernels (row_setup's fusions), not on the
   * eager PyTorch stack a bundled blueprint carries: its rows price the hardware alone. */
  if (bp->stack.set)
    {
      hardware = bpw_blueprint_copy (bp);
      bpw_blueprint_clear_stack (hardware);
      bp = hardware;
    }
  bpw_model_spec_init_defaults (&spec);
  ok = row_setup (r, &spec, &scenario, &mapping, error);
  if (ok)
    {
      est = bpw_estimator_new (&spec, &scenario, bp, error);
      ok = est != NULL && bpw_estimator_evaluate (est, &mapping, &e, NULL, error);
    }
  if (ok)
    {
      double flops = bpw_validation_megatron_flops (r);

      *result = (BpwValidationResult) {
        .step_time_s = e.step_time_s,
        .predicted_tflops = flops / ((double) r->gpus * e.step_time_s) / 1e12,
        .published_step_s = flops / ((double) r->gpus * r->published_tflops * 1e12),
        .micro_batch = scenario.micro_batch,
        .interleave = mapping.parallel.schedule == BPW_SCHEDULE_INTERLEAVED
                      ? mapping.parallel.interleave : 1,
        .legal = e.legal,
      };
      result->error = result->predicted_tflops / r->published_tflops - 1.0;
    }
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  bpw_model_spec_clear (&spec);
  return ok;
}

/* ---- calibration ---- */

/* The matrix and vector engines' efficiencies only: what Table 1's rows, matmul-bound
 * training steps, determine. Two values are the blueprint's own and not fitted:
 * - the engines' fixed cost per kernel, the device's shortest kernel (by the equal-footing
 *   rule where the part has no measurement); the gaps between kernels belong to a software
 *   stack, which the rows are priced without. Fitted, it absorbed Megatron-LM's launch
 *   gaps (5 µs per kernel) and charged every other workload on the part a fixed cost that
 *   does not follow bandwidth;
 * - the device-memory efficiency: with the fixed cost no longer fitted the rows drove it
 *   to its bound, 100 % of the datasheet, which no copy reaches (the H200's measured
 *   0.882): the rows do not determine it, and batch-1 decode, which it alone sets, would
 *   follow it.
 * Of the matrix efficiency, the rows determine the points from BPW_VALIDATION_FITTED_FROM
 * up: their products run from about 6e9 FLOP (the attention products of the 18.4 B row)
 * to 1e12. Fitted, the point at 1e9 went wherever the few products between moved it
 * (0.39, then 0.20 once the fixed cost per kernel became the H200's 2.016 µs), and every
 * decode step's products, most of them below 1e10 FLOP, followed it. Below that point the
 * table takes the shape of the measured part's curve instead (small_end_points()). */
enum { P_MATRIX_MID, P_MATRIX_HIGH, P_VECTOR, N_PARAMS };

static const double param_min[N_PARAMS] = { 0.05, 0.05, 0.05 };
static const double param_max[N_PARAMS] = { 1.0, 1.0, 1.0 };
static const double param_start[N_PARAMS] = { 0.7, 0.85, 0.7 };
static const double param_step[N_PARAMS] = { 0.1, 0.1, 0.1 };

/* The lowest point of the table, where the old three-point fit had its first. */
#define SMALL_END_FLOPS 1e9
#define LARGE_END_FLOPS 1e12

#define FIT_SOURCE "fitted to Megatron-LM 2021 Table 1 (Narayanan et al., SC'21; REFERENCES.md " \
                   "§3.1), all 10 rows, by `bpw validate --fit` from fixed starting values"
#define REPRODUCE "; reproduce with `bpw validate --blueprint %s --fit`"

/* What a fit needs besides the blueprint: the measured curve and the sources it writes. */
typedef struct
{
  const BpwEfficiencyTable *shape;  /* the measured part's bf16 matrix efficiency */
  char                     *matrix_source;
  char                     *vector_source;
} FitRule;

static void
fit_rule_clear (FitRule *rule)
{
  g_clear_pointer (&rule->matrix_source, g_free);
  g_clear_pointer (&rule->vector_source, g_free);
}

static gboolean
fit_rule_init (FitRule            *rule,
               const BpwBlueprint *bp,
               const BpwBlueprint *shape_part,
               GError            **error)
{
  int m = bpw_blueprint_first_engine (shape_part, BPW_ENGINE_MATRIX);
  const BpwEfficiencyTable *shape;
  const char *basis;

  if (m < 0 || shape_part->engines[m].efficiency[BPW_PRECISION_BF16].n_points == 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Blueprint “%s” has no bf16 matrix efficiency to shape the small "
                     "products of a fit."), shape_part->name);
      return FALSE;
    }
  shape = &shape_part->engines[m].efficiency[BPW_PRECISION_BF16];
  basis = shape->source != NULL ? shape->source : "no source given";
  rule->shape = shape;
  /* Begins with the rule and names the part right after its first " from ": the
   * calibration status reads the part from there (bpw-blueprint-calibration.c). */
  rule->matrix_source = g_strdup_printf (
    BPW_CALIBRATION_RULE " (README, Calibration status): below %.4g FLOP, where "
    "Megatron-LM 2021 Table 1 does not determine it, the shape of the bf16 matrix "
    "efficiency from %s (its source: %s), scaled to this part's fitted efficiency at "
    "%.4g FLOP: e(x) = e(%.4g) × e_%s(x) / e_%s(%.4g), "
    "the ratio %.4f at %.4g FLOP; from %.4g FLOP up " FIT_SOURCE REPRODUCE,
    BPW_VALIDATION_FITTED_FROM, shape_part->name, basis, BPW_VALIDATION_FITTED_FROM,
    BPW_VALIDATION_FITTED_FROM, shape_part->name, shape_part->name,
    BPW_VALIDATION_FITTED_FROM, bpw_validation_small_end_ratio (shape, SMALL_END_FLOPS),
    SMALL_END_FLOPS, BPW_VALIDATION_FITTED_FROM, bp->name);
  rule->vector_source = g_strdup_printf (FIT_SOURCE REPRODUCE, bp->name);
  return TRUE;
}

double
bpw_validation_small_end_ratio (const BpwEfficiencyTable *shape,
                                double                    flops)
{
  return bpw_efficiency_table_lookup (shape, flops) /
         bpw_efficiency_table_lookup (shape, BPW_VALIDATION_FITTED_FROM);
}

/* The points below BPW_VALIDATION_FITTED_FROM: at SMALL_END_FLOPS and at every point of
 * the shape below, each the fitted efficiency there times the shape's ratio. Returns how
 * many it wrote into @points (room for the shape's points and one). */
static guint
small_end_points (const BpwEfficiencyTable *shape,
                  double                    fitted,
                  BpwEfficiencyPoint       *points)
{
  guint n = 0;

  points[n++] = (BpwEfficiencyPoint) { SMALL_END_FLOPS, 0 };
  for (guint i = 0; i < shape->n_points; i++)
    if (shape->points[i].size < BPW_VALIDATION_FITTED_FROM
        && fabs (shape->points[i].size / SMALL_END_FLOPS - 1.0) > 1e-9)
      points[n++] = (BpwEfficiencyPoint) { shape->points[i].size, 0 };
  for (guint i = 0; i < n; i++)
    points[i].efficiency = CLAMP (fitted * bpw_validation_small_end_ratio (shape,
                                                                           points[i].size),
                                  1e-6, 1.0);
  return n;
}

static void
apply_params (BpwBlueprint *bp, const FitRule *rule, const double *x)
{
  int mi = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
  int vi = bpw_blueprint_first_engine (bp, BPW_ENGINE_VECTOR);
  g_autofree BpwEfficiencyPoint *matrix = g_new (BpwEfficiencyPoint, rule->shape->n_points + 3);
  guint n = small_end_points (rule->shape, x[P_MATRIX_MID], matrix);
  BpwEfficiencyPoint vector[1] = { { 1e9, x[P_VECTOR] } };
  BpwPrecision precisions[2] = { BPW_PRECISION_FP16, BPW_PRECISION_BF16 };

  matrix[n++] = (BpwEfficiencyPoint) { BPW_VALIDATION_FITTED_FROM, x[P_MATRIX_MID] };
  matrix[n++] = (BpwEfficiencyPoint) { LARGE_END_FLOPS, x[P_MATRIX_HIGH] };
  /* One table, one kind: its small end is the rule's, so the table is an estimate; its
   * source says which points were fitted. */
  for (guint p = 0; p < G_N_ELEMENTS (precisions); p++)
    {
      bpw_efficiency_table_set (bp, &bp->engines[mi].efficiency[precisions[p]], matrix, n,
                                BPW_INTERPOLATION_LOG_LINEAR, BPW_PROVENANCE_ESTIMATE,
                                rule->matrix_source);
      if (vi >= 0)
        bpw_efficiency_table_set (bp, &bp->engines[vi].efficiency[precisions[p]], vector, 1,
                                  BPW_INTERPOLATION_LOG_LINEAR, BPW_PROVENANCE_CALIBRATED,
                                  rule->vector_source);
    }
}

/* Over the rows fitted to (@skip excluded): the largest |error|, the sum of squared errors
 * and the sum of squared log ratios (predicted over published). */
typedef struct
{
  double worst, squares, log_squares;
} FitScore;

static gboolean
objective (BpwBlueprint  *bp,
           const FitRule *rule,
           const double  *x,
           gint           skip,
           FitScore      *score,
           GError       **error)
{
  guint n;
  const BpwMegatronRow *rows = bpw_validation_megatron_rows (&n);

  apply_params (bp, rule, x);
  *score = (FitScore) { 0 };
  for (guint i = 0; i < n; i++)
    {
      BpwValidationResult r;
      double log_ratio;

      if ((gint) i == skip)
        continue;
      if (!bpw_validation_megatron_predict (bp, &rows[i], &r, error))
        return FALSE;
      log_ratio = log1p (r.error);
      score->worst = MAX (score->worst, fabs (r.error));
      score->squares += r.error * r.error;
      score->log_squares += log_ratio * log_ratio;
    }
  return TRUE;
}

/* Minimax (@least_squares FALSE): the largest |error| smallest, the sum of squares breaking
 * ties; the rule the bundled A100 was fitted by. Least squares of the log ratio: every row
 * weighs in, a row 10 % fast as much as one 10 % slow. */
static gboolean
better (const FitScore *score, const FitScore *best, gboolean least_squares)
{
  if (least_squares)
    return score->log_squares < best->log_squares - 1e-12;
  return score->worst < best->worst - 1e-9 ||
         (score->worst < best->worst + 1e-9 && score->squares < best->squares - 1e-12);
}

static gboolean
fit_rows (BpwBlueprint  *bp,
          const FitRule *rule,
          gint           skip,
          gboolean       least_squares,
          double        *max_error,
          GError       **error)
{
  double x[N_PARAMS], step[N_PARAMS];
  FitScore best;

  if (bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX) < 0 ||
      bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE) < 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Blueprint “%s” needs a matrix engine and device memory to be calibrated."),
                   bp->name);
      return FALSE;
    }
  for (guint p = 0; p < N_PARAMS; p++)
    {
      x[p] = param_start[p];
      step[p] = param_step[p];
    }
  if (!objective (bp, rule, x, skip, &best, error))
    return FALSE;

  /* Pattern search: try each parameter up and down by its step, keep what helps, halve
   * the steps when nothing does. Deterministic, bounded, no derivatives needed. */
  for (guint sweep = 0; sweep < 200 && step[P_MATRIX_MID] > 2e-4; sweep++)
    {
      gboolean improved = FALSE;

      for (guint p = 0; p < N_PARAMS; p++)
        for (int dir = -1; dir <= 1; dir += 2)
          {
            double saved = x[p];
            FitScore score;

            x[p] = CLAMP (saved + dir * step[p], param_min[p], param_max[p]);
            if (x[p] == saved)
              continue;
            if (!objective (bp, rule, x, skip, &score, error))
              return FALSE;
            if (better (&score, &best, least_squares))
              {
                best = score;
                improved = TRUE;
              }
            else
              x[p] = saved;
          }
      if (!improved)
        for (guint p = 0; p < N_PARAMS; p++)
          step[p] /= 2.0;
    }
  apply_params (bp, rule, x);
  *max_error = best.worst;
  return TRUE;
}

/* @bp refitted by @least_squares or minimax on the rows but @skip (-1: all of them), its
 * small products shaped by @shape_part's curve. */
static gboolean
fit_without_stack (BpwBlueprint       *bp,
                   const BpwBlueprint *shape_part,
                   gint                skip,
                   gboolean            least_squares,
                   double             *max_error,
                   GError            **error)
{
  BpwStack stack = bp->stack;
  FitRule rule = { 0 };
  gboolean ok;

  if (!fit_rule_init (&rule, bp, shape_part, error))
    return FALSE;
  /* Without its stack while fitting (as every row is priced), so that the rows' evaluations
   * need no copy each; the stack is the caller's again after. */
  memset (&bp->stack, 0, sizeof bp->stack);
  ok = fit_rows (bp, &rule, skip, least_squares, max_error, error);
  bp->stack = stack;
  fit_rule_clear (&rule);
  return ok;
}

gboolean
bpw_validation_fit_shaped (BpwBlueprint       *bp,
                           const BpwBlueprint *shape_part,
                           double             *max_error,
                           GError            **error)
{
  return fit_without_stack (bp, shape_part, -1, FALSE, max_error, error);
}

gboolean
bpw_validation_fit (BpwBlueprint *bp,
                    double       *max_error,
                    GError      **error)
{
  g_autoptr(BpwBlueprint) shape_part = bpw_blueprint_load_bundled (BPW_VALIDATION_SHAPE_PART,
                                                                   error);

  return shape_part != NULL && fit_without_stack (bp, shape_part, -1, FALSE, max_error, error);
}

static gboolean
refit_shaped (BpwBlueprint       *bp,
              const BpwBlueprint *shape_part,
              gint                skip_row,
              double             *max_error,
              GError            **error)
{
  guint n;

  bpw_validation_megatron_rows (&n);
  g_return_val_if_fail (skip_row >= -1 && skip_row < (gint) n, FALSE);

  return fit_without_stack (bp, shape_part, skip_row, TRUE, max_error, error);
}

gboolean
bpw_validation_refit (BpwBlueprint *bp,
                      gint          skip_row,
                      double       *max_error,
                      GError      **error)
{
  g_autoptr(BpwBlueprint) shape_part = bpw_blueprint_load_bundled (BPW_VALIDATION_SHAPE_PART,
                                                                   error);

  return shape_part != NULL && refit_shaped (bp, shape_part, skip_row, max_error, error);
}

static gboolean
leave_one_out (const BpwBlueprint  *bp,
               BpwValidationResult *results,
               GError             **error)
{
  guint n;
  const BpwMegatronRow *rows = bpw_validation_megatron_rows (&n);
  g_autoptr(BpwBlueprint) shape_part = bpw_blueprint_load_bundled (BPW_VALIDATION_SHAPE_PART,
                                                                   error);

  if (shape_part == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(BpwBlueprint) fitted = bpw_blueprint_copy (bp);
      double worst;

      if (!refit_shaped (fitted, shape_part, (gint) i, &worst, error) ||
          !bpw_validation_megatron_predict (fitted, &rows[i], &results[i], error))
        return FALSE;
    }
  return TRUE;
}

/* The ten refits take about half a second, and the window asks again after every edit of
 * its study although Table 1 is priced on one blueprint that edits of the candidates do
 * not touch: the last blueprint's results are kept, and an equal blueprint gets them. */
static GMutex         held_out_lock;
static BpwBlueprint  *held_out_blueprint;
static BpwValidationResult *held_out_results;

gboolean
bpw_validation_leave_one_out (const BpwBlueprint  *bp,
                              BpwValidationResult *results,
                              GError             **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&held_out_lock);
  guint n;

  bpw_validation_megatron_rows (&n);
  if (held_out_blueprint == NULL || !bpw_blueprint_equal (held_out_blueprint, bp))
    {
      g_autofree BpwValidationResult *fresh = g_new0 (BpwValidationResult, n);

      if (!leave_one_out (bp, fresh, error))
        return FALSE;
      g_clear_pointer (&held_out_blueprint, bpw_blueprint_free);
      g_free (held_out_results);
      held_out_blueprint = bpw_blueprint_copy (bp);
      held_out_results = g_steal_pointer (&fresh);
    }
  memcpy (results, held_out_results, n * sizeof *results);
  return TRUE;
}
