/* bpw-review-packet.h — the review packet of a study: what a release review signs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A packet is a JSON document (format "bpw-review-packet") with these members, each filled
 * from the study and from computation, never from fixed text:
 * - metadata: tool version, SHA-256 of the study, of each workload's and each blueprint's
 *   canonical JSON, and for each measured run what its trace records (device, driver,
 *   runtime, framework; compiler, firmware and power mode where a source has them, else
 *   "not recorded");
 * - quality_thresholds, and precision_modes: each reduced precision or sparsity mode the
 *   candidates or scenarios use, the study's evidence for it, its verdict (validated,
 *   failed, missing) and, where it is not validated, the gain that is therefore not
 *   counted;
 * - baseline and candidates, with calibration status (bpw-blueprint-calibration.h);
 * - bottleneck_evidence: per candidate and scenario, time and MFU by layer type and the
 *   bottleneck class of that time, with the chart that shows it;
 * - mitigations: mapping changes from a bounded search of each candidate's mappings and
 *   blueprint changes from a one-point sweep of the recommended candidate's binding
 *   resource, each with its predicted gain and its cost in memory and power;
 * - rejected_alternatives, with the reason;
 * - validation_matrix: per claim, the measurement that confirms it, the expected value, the
 *   tolerance (the estimator's leave-one-out error on Megatron-LM Table 1) and the
 *   rollback trigger;
 * - owners, and the recommendation: go, conditional or no-go, with reasons and conditions.
 *
 * The counting rule: every figure the recommendation rests on is computed with each
 * unvalidated precision mode replaced by the reference precision (bf16). A gain from FP8
 * without evidence within its thresholds is reported, and never counted.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "bpw-study.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_REVIEW_GO,
  BPW_REVIEW_CONDITIONAL,
  BPW_REVIEW_NO_GO,
} BpwReviewDecision;

/* The mitigation searches' cap on the micro-batch: see bpw-review-mitigations.c. */
#define BPW_REVIEW_MAX_MICRO_BATCH 8

typedef struct
{
  const char *baseline;     /* the candidate deltas are against; NULL: the first */
  gboolean    mitigations;  /* bounded searches and sweeps (default TRUE) */
  gboolean    validation;   /* the leave-one-out refits (default TRUE) */
  guint       threads;      /* search threads; 0: one per processor */
  /* Mitigation searches try micro-batches of at most this many sequences, or of the
   * scenario's own where that is more, and the whole local batch (default
   * BPW_REVIEW_MAX_MICRO_BATCH); 0: every divisor of the local batch. */
  gint64      max_micro_batch;
} BpwReviewOptions;

/* What the mitigation searches did, summed over every search the packet ran. */
typedef struct
{
  guint    searches;   /* mapping searches run (a sweep's baseline reused counts none) */
  guint64  plans;      /* plans in the spaces searched */
  guint64  templates;  /* estimator templates bound */
  guint64  estimated;  /* analytic evaluations run */
} BpwReviewWork;

typedef struct _BpwReviewPacket BpwReviewPacket;

void               bpw_review_options_init          (BpwReviewOptions       *options);
/* NULL with @error for a study without candidates or scenarios, an unknown baseline, or
 * when cancelled. */
BpwReviewPacket   *bpw_review_packet_new            (BpwStudy               *study,
                                                     const BpwReviewOptions *options,
                                                     GCancellable           *cancellable,
                                                     GError                **error);
void               bpw_review_packet_free           (BpwReviewPacket        *packet);
void               bpw_review_packet_get_work       (BpwReviewPacket        *packet,
                                                     BpwReviewWork          *work);
/* The document (borrowed). */
JsonObject        *bpw_review_packet_get_root       (BpwReviewPacket        *packet);
BpwReviewDecision  bpw_review_packet_get_decision   (BpwReviewPacket        *packet);
/* "go", "conditional", "no-go". */
const char        *bpw_review_decision_to_string    (BpwReviewDecision       decision);
/* The document as pretty JSON (the house writer), ending in a newline. */
char              *bpw_review_packet_to_json        (BpwReviewPacket        *packet);
/* The same content as Markdown (bpw-review-document.h). */
char              *bpw_review_packet_to_markdown    (BpwReviewPacket        *packet);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwReviewPacket, bpw_review_packet_free)

G_END_DECLS
