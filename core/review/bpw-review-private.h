/* bpw-review-private.h — what the packet's sections share while it is built
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-compare.h"
#include "bpw-review-packet.h"
#include "bpw-study-calibration.h"

G_BEGIN_DECLS

/* The string a section writes where its source records nothing. */
#define BPW_REVIEW_NOT_RECORDED "not recorded"

typedef struct
{
  BpwStudy               *study;        /* as given */
  const BpwReviewOptions *options;
  GCancellable           *cancellable;
  /* A copy of @study with every unvalidated precision mode at the reference precision:
   * what is counted. @cmp compares it; @given compares @study where the two differ. */
  BpwStudy               *counted;      /* owned */
  BpwComparison          *cmp;          /* owned */
  BpwComparison          *given;        /* owned, nullable */
  BpwStudyCalibration    *calibration;  /* owned: of @counted */
  GPtrArray              *uncounted;    /* owned char *: modes whose gains are not counted */
  guint                   baseline;
  gint                    best;         /* the recommended candidate; -1: none feasible */
  double                  tolerance;    /* relative; NaN when not validated */
  char                   *tolerance_source;  /* owned, nullable */
  BpwReviewWork           work;         /* of the mitigation searches */
  JsonArray              *mitigations;  /* owned by the packet once built */
  JsonArray              *rejected;
} BpwReviewBuild;

/* Each returns its section (transfer full). */
JsonNode *_bpw_review_metadata      (BpwReviewBuild *b);
/* Also fills b->counted and b->uncounted. */
JsonNode *_bpw_review_thresholds    (BpwReviewBuild *b);
JsonNode *_bpw_review_precision     (BpwReviewBuild *b,
                                     GError        **error);
JsonNode *_bpw_review_baseline      (BpwReviewBuild *b);
JsonNode *_bpw_review_candidates    (BpwReviewBuild *b);
JsonNode *_bpw_review_bottlenecks   (BpwReviewBuild *b);
/* Fills b->mitigations (may stay empty when options->mitigations is off). */
gboolean  _bpw_review_mitigations   (BpwReviewBuild *b,
                                     GError        **error);
/* Fills b->tolerance from the leave-one-out refits. */
void      _bpw_review_tolerance     (BpwReviewBuild *b);
/* The recommendation; fills b->best and b->rejected. */
JsonNode *_bpw_review_decision      (BpwReviewBuild    *b,
                                     BpwReviewDecision *decision);
JsonNode *_bpw_review_validation    (BpwReviewBuild *b);
JsonNode *_bpw_review_owners        (BpwReviewBuild *b);

/* Helpers */
/* The suite the recommendation is judged on: the study's first (all scenarios without). */
const BpwCompareSuite *_bpw_review_suite (BpwReviewBuild *b);
/* A double member, null when not finite. */
void      _bpw_review_set_double    (JsonObject     *object,
                                     const char     *member,
                                     double          value);
/* Records an alternative the review considered and set aside, with why, in b->rejected. */
void      _bpw_review_reject        (BpwReviewBuild *b,
                                     const char     *kind,
                                     const char     *alternative,
                                     const char     *reason);
/* The mode a scenario's compute precision is ("fp8"), or NULL at or above 16 bits. */
const char *_bpw_review_dtype_mode  (BpwDType        dtype);

G_END_DECLS
