/* bpw-study-quality.h — the study's review data: owners, quality thresholds and evidence
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A release review needs to know who answers for the decision and whether a reduced
 * precision (FP8, INT8 weights) or 2:4 sparsity keeps model quality. None of that can be
 * computed: the study states it, each item with its source. A study file lists them as
 *
 *   "owners": [ { "role": "architecture", "name": "…", "contact": "…" } ],
 *   "quality_thresholds": [ { "metric": "mmlu", "max_degradation": 0.01,
 *                             "scale": "relative", "better": "higher", "source": "…" } ],
 *   "quality_evidence": [ { "mode": "fp8", "metric": "mmlu", "value": 0.683,
 *                           "baseline": 0.687, "source": "…" } ]
 *
 * A degradation is how much worse the mode's value is than its baseline, in the metric's
 * direction ("better": "higher" for accuracy, "lower" for perplexity): absolute, or relative
 * to the baseline. Evidence names a threshold by its metric and may tighten or loosen it with
 * its own "max_degradation" (same scale). Modes are plain strings ("fp8", "int8-weight",
 * "sparsity-2:4") compared without regard to case.
 */
#pragma once

#include "bpw-study.h"

G_BEGIN_DECLS

typedef struct
{
  char *role;     /* "architecture", "performance modelling", "release", … */
  char *name;
  char *contact;  /* nullable */
} BpwStudyOwner;

typedef enum
{
  BPW_QUALITY_SCALE_RELATIVE,  /* degradation / |baseline| */
  BPW_QUALITY_SCALE_ABSOLUTE,  /* in the metric's own unit */
} BpwQualityScale;

typedef enum
{
  BPW_QUALITY_HIGHER_IS_BETTER,  /* accuracy, MMLU */
  BPW_QUALITY_LOWER_IS_BETTER,   /* perplexity, loss */
} BpwQualityDirection;

typedef struct
{
  char                *metric;
  double               max_degradation;  /* >= 0, in @scale */
  BpwQualityScale      scale;
  BpwQualityDirection  better;
  char                *source;
} BpwQualityThreshold;

typedef struct
{
  char   *mode;             /* "fp8", "int8-weight", "sparsity-2:4", … */
  char   *metric;           /* a threshold's metric */
  double  value;            /* the metric under @mode */
  double  baseline;         /* the metric at the reference precision */
  double  max_degradation;  /* NaN: the threshold's; else this one, in its scale */
  char   *source;
} BpwQualityEvidence;

typedef enum
{
  BPW_QUALITY_VALIDATED,  /* evidence present, every item within its threshold */
  BPW_QUALITY_FAILED,     /* some evidence misses its threshold */
  BPW_QUALITY_MISSING,    /* no evidence for the mode */
} BpwQualityVerdict;

const char   *bpw_quality_scale_to_string     (BpwQualityScale     scale);
const char   *bpw_quality_direction_to_string (BpwQualityDirection better);
const char   *bpw_quality_verdict_to_string   (BpwQualityVerdict   verdict);

guint                      bpw_study_get_n_owners            (BpwStudy   *self);
const BpwStudyOwner       *bpw_study_get_owner               (BpwStudy   *self,
                                                              guint       i);
guint                      bpw_study_get_n_quality_thresholds (BpwStudy  *self);
const BpwQualityThreshold *bpw_study_get_quality_threshold   (BpwStudy   *self,
                                                              guint       i);
/* The threshold of @metric, or NULL. */
const BpwQualityThreshold *bpw_study_lookup_quality_threshold (BpwStudy  *self,
                                                               const char *metric);
guint                      bpw_study_get_n_quality_evidence  (BpwStudy   *self);
const BpwQualityEvidence  *bpw_study_get_quality_evidence    (BpwStudy   *self,
                                                              guint       i);

/* Whole lists replaced (copied) after the checks the reader makes: non-empty role and
 * name; unique metric, finite max_degradation >= 0, a source; evidence naming a threshold,
 * finite values, a non-zero baseline on a relative scale, a source. Thresholds that
 * evidence still names cannot go. On failure the study is unchanged. Undoable edits:
 * bpw_study_edit_new_owners() and its siblings. */
gboolean      bpw_study_set_owners             (BpwStudy                  *self,
                                                const BpwStudyOwner       *owners,
                                                guint                      n,
                                                GError                   **error);
gboolean      bpw_study_set_quality_thresholds (BpwStudy                  *self,
                                                const BpwQualityThreshold *thresholds,
                                                guint                      n,
                                                GError                   **error);
gboolean      bpw_study_set_quality_evidence   (BpwStudy                  *self,
                                                const BpwQualityEvidence  *evidence,
                                                guint                      n,
                                                GError                   **error);

/* How much worse @e's value is than its baseline under @t, in @t's scale (negative:
 * better); whether that is within the evidence's own limit, else the threshold's. */
double        bpw_quality_evidence_degradation (const BpwQualityEvidence  *e,
                                                const BpwQualityThreshold *t);
gboolean      bpw_quality_evidence_passes      (const BpwQualityEvidence  *e,
                                                const BpwQualityThreshold *t);
/* The study's judgement of @mode over all its evidence for it: missing without any,
 * failed when any item misses its threshold, else validated. */
BpwQualityVerdict bpw_study_judge_quality_mode (BpwStudy                  *self,
                                                const char                *mode);

G_END_DECLS
