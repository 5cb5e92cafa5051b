/* bpw-blueprint-calibration.h — how well a blueprint's time is grounded, and whether
 * candidates are compared on equal footing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The equal-footing rule. A step time moves with the values that turn datasheet peaks into
 * rates: the matrix engine's efficiency in the precision run, the fixed cost per operation
 * of the engines that run work, the vector engine's efficiency where a file sets one, and
 * the device memory's (HBM) efficiency. Every bundled blueprint sets each of them by one
 * rule, and names in each value's source which step of the rule gave it:
 *
 *  1. calibrated: fitted to published runs of that part (the A100's matrix and vector
 *     efficiencies: Megatron-LM 2021 Table 1, by `bpw validate --fit`) — kept as fitted;
 *     where the runs do not determine a value, the rule gives it: the A100's fixed cost,
 *     its HBM efficiency, and the small-product end of its matrix table (below 10^10.5
 *     FLOP: the shape of the H200's measured curve scaled to the fitted value there,
 *     bpw-validation.h), which makes that table an estimate by the rule;
 *  2. measured: a measurement of that part — a measurement pack (the H200: matmul peak,
 *     memory copy, and the fixed cost per kernel, the shortest kernel of its traces: the
 *     time between kernels is the software stack's, not the device's) or a
 *     published microbenchmark (the MAMF matrix efficiencies of REFERENCES.md §4);
 *     an fp16 efficiency equals the part's bf16 measurement (same datapath), an estimate;
 *  3. estimate by rule: a value without a calibration or measurement of the part is the
 *     value of the nearest part that has one — the same die first (the H100 from the H200),
 *     then the same vendor's nearest generation (the B200 and the A100 from the H200) — marked
 *     "estimate", its source beginning with BPW_CALIBRATION_RULE and naming that part
 *     ("from h200-sxm-141gb");
 *  4. the fallback: parts of a vendor with no measured part (MI300X, Gaudi 3, TPU v4 and
 *     v5p) take the values of the part with a measurement pack (the H200), marked the same.
 * Vector-engine efficiencies are not set by the rule: element-wise work is bound by device
 * memory, whose efficiency the rule sets; a file's own vector efficiency (the A100's
 * calibrated one) still counts. Interconnect efficiencies are outside the rule.
 *
 * The software stack (the "stack" member) follows the same rule: the bundled GPU blueprints
 * carry one estimated PyTorch eager stack whose numbers come from the H200 pack's
 * calibration, taken unchanged (they are the framework's and the host's; byte counts run at
 * each part's own rates), each marked "estimate" with a source beginning with
 * BPW_CALIBRATION_RULE. The status below does not walk the stack: every GPU states the same.
 *
 * The status of a blueprint is the weakest kind among those values (calibrated, then
 * measured, estimate, datasheet); a value the file leaves unset runs at 100 % of the
 * datasheet with no fixed cost and makes the status "datasheet only".
 */
#pragma once

#include "bpw-blueprint.h"

G_BEGIN_DECLS

/* The source of every value the rule estimates begins with this. */
#define BPW_CALIBRATION_RULE "equal-footing rule"

typedef enum
{
  BPW_CALIBRATION_CALIBRATED,  /* every value fitted to published runs of the part */
  BPW_CALIBRATION_MEASURED,    /* every value measured (or calibrated) on the part */
  BPW_CALIBRATION_ESTIMATE,    /* some value estimated, by the rule or otherwise */
  BPW_CALIBRATION_DATASHEET,   /* some value unset: 100 % of the datasheet, no fixed cost */
  BPW_N_CALIBRATION_LEVELS
} BpwCalibrationLevel;

typedef struct
{
  BpwCalibrationLevel level;
  char *label;    /* owned, translated: "measured (measurement pack h200-pytorch)" */
  char *details;  /* owned, translated: one line per value, its kind and source */
} BpwCalibrationStatus;

/* @precisions: flags 1 << BpwPrecision, the precisions the candidate runs (0: bf16).
 * @status is overwritten; clear it with bpw_calibration_status_clear(). */
void        bpw_blueprint_calibration_status (const BpwBlueprint   *bp,
                                              guint                 precisions,
                                              BpwCalibrationStatus *status);
void        bpw_calibration_status_clear     (BpwCalibrationStatus *status);
void        bpw_calibration_status_copy      (BpwCalibrationStatus       *dest,
                                              const BpwCalibrationStatus *src);
/* Translated one word for a badge: "calibrated", "measured", "estimate", "datasheet". */
const char *bpw_calibration_level_to_label   (BpwCalibrationLevel   level);
/* Untranslated key for files and CSS: the same words. */
const char *bpw_calibration_level_to_string  (BpwCalibrationLevel   level);

/* TRUE when the @n candidates (@names, @statuses) are calibrated differently: their labels
 * differ. *why (nullable) gets a translated sentence that groups the candidates by label
 * ("A100 calibrated (…); H200 measured (…): compare with care"), or NULL when FALSE. */
gboolean    bpw_calibration_differs          (const char * const         *names,
                                              const BpwCalibrationStatus *statuses,
                                              guint                       n,
                                              char                      **why);

G_END_DECLS
