/* bpw-validation.h — predicted against published: Megatron-LM 2021 Table 1, and the
 * calibration of a blueprint's efficiencies on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Table 1 of Narayanan et al. (SC'21) reports the achieved TF/s per A100 of GPT models
 * from 1.7 B to 1 T parameters, trained with full activation recomputation and the
 * interleaved schedule, vocabulary 51,200, sequence 2,048 (REFERENCES.md §3.1). What the
 * table does not state is assumed and printed with every prediction: fp16 with Adam,
 * micro-batch 1, interleaving by the largest of 4, 3, 2 chunks the layer and micro-batch
 * counts allow (1F1B without a pipeline), fused bias + GeLU and fused Adam (Megatron-LM's
 * kernels), no fused attention (2021: the scores are materialised), no DP overlap.
 * Predicted TF/s per GPU = Eq. (3) FLOPs / (GPUs × predicted step time), the paper's own
 * convention, so that the numbers compare one to one.
 */
#pragma once

#include "bpw-blueprint.h"

G_BEGIN_DECLS

typedef struct
{
  double  parameters_b;   /* as published, billions */
  gint64  heads, hidden, layers, tp, pp, gpus, batch;
  double  published_tflops;
} BpwMegatronRow;

typedef struct
{
  double   predicted_tflops;
  double   error;          /* predicted / published − 1 */
  double   step_time_s;
  double   published_step_s;  /* implied by the published TF/s */
  gint64   micro_batch;
  gint64   interleave;     /* 1: 1F1B */
  gboolean legal;
} BpwValidationResult;

const BpwMegatronRow *bpw_validation_megatron_rows (guint *n_rows);

/* Eq. (3): 96·B·s·l·h²·(1 + s/6h + V/16lh), FLOPs per iteration. */
double    bpw_validation_megatron_flops   (const BpwMegatronRow *row);

/* The row on @blueprint's hardware with Megatron-LM's fused kernels: a software "stack" the
 * blueprint carries (an eager PyTorch stack) is not applied, here or in the fits below. */
gboolean  bpw_validation_megatron_predict (const BpwBlueprint   *blueprint,
                                           const BpwMegatronRow *row,
                                           BpwValidationResult  *result,
                                           GError              **error);

/* Table 1's products run from about 6e9 to 1e12 FLOP: the rows determine the matrix
 * efficiency from here up, not below. */
#define BPW_VALIDATION_FITTED_FROM 31622776601.683792  /* 10^10.5 FLOP */

/* The measured part whose bf16 matrix-efficiency curve shapes a fitted table below
 * BPW_VALIDATION_FITTED_FROM: the equal-footing rule's nearest NVIDIA part with
 * measurements (bpw-blueprint-calibration.h). */
#define BPW_VALIDATION_SHAPE_PART "h200-sxm-141gb"

/* Fits @blueprint's matrix-engine efficiency (log-linear in FLOPs per operation) and its
 * vector engine's efficiency, so that the largest relative error over the rows is
 * smallest. Of the matrix table only the points at BPW_VALIDATION_FITTED_FROM and 10^12
 * FLOP are fitted; below, the table follows the small-product rule: at 10^9 FLOP and at
 * every point of the measured part's curve below BPW_VALIDATION_FITTED_FROM, the fitted
 * efficiency at BPW_VALIDATION_FITTED_FROM times the measured part's ratio
 * (bpw_validation_small_end_ratio()). The table is marked "estimate" with a source that
 * begins BPW_CALIBRATION_RULE, names the part and says which points were fitted; the
 * vector efficiency "calibrated". The engines' fixed cost per operation and the
 * device-memory efficiency are @blueprint's own and not fitted (the rows do not determine
 * them; the equal-footing rule sets them where the part has no measurement). Starts from
 * fixed values, whatever @blueprint holds, so the result is reproducible. Returns the
 * largest |error| reached in @max_error. bpw_validation_fit() takes the curve of the
 * bundled BPW_VALIDATION_SHAPE_PART, bpw_validation_fit_shaped() that of @shape_part. */
gboolean  bpw_validation_fit              (BpwBlueprint         *blueprint,
                                           double               *max_error,
                                           GError              **error);
gboolean  bpw_validation_fit_shaped       (BpwBlueprint         *blueprint,
                                           const BpwBlueprint   *shape_part,
                                           double               *max_error,
                                           GError              **error);

/* The small-product rule's factor at @flops: @shape's efficiency there over its efficiency
 * at BPW_VALIDATION_FITTED_FROM (1 where @shape is constant in size). */
double    bpw_validation_small_end_ratio  (const BpwEfficiencyTable *shape,
                                           double                    flops);

/* Fits the same values as bpw_validation_fit(), by the same small-product rule, but by
 * least squares of the log ratio (predicted over published) on every row except @skip_row
 * (-1: all rows). Every row weighs
 * in this fit, so leaving one out moves it; under the minimax rule only the rows that bind
 * the worst error do, and any other row left out predicts its in-sample value. */
gboolean  bpw_validation_refit            (BpwBlueprint         *blueprint,
                                           gint                  skip_row,
                                           double               *max_error,
                                           GError              **error);

/* Out of sample: for each row, a copy of @blueprint refitted by bpw_validation_refit() on
 * the other rows only, then the row predicted on that copy. The in-sample figure of a
 * blueprint fitted on all rows (the bundled A100) says how well the fit reproduces what it
 * saw; this one, how well a fit predicts a row it did not see. @results holds one entry per
 * row of bpw_validation_megatron_rows(). */
gboolean  bpw_validation_leave_one_out    (const BpwBlueprint   *blueprint,
                                           BpwValidationResult  *results,
                                           GError              **error);

G_END_DECLS
