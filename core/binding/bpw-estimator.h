/* bpw-estimator.h — the analytic evaluation of mappings: the fast path search uses
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every transformer block of a model costs the same, so the estimator binds a two-block
 * template of the model once per "shape" of the mapping — TP, DP, EP, SP, ZeRO,
 * micro-batch, recompute, fusion, tiling, engines, placement, and whether there is a
 * pipeline — with the very binding code of full plans, and keeps per-block, embedding and
 * head totals, their transfers and their memory. Evaluating a mapping then resolves its
 * tiers and collective algorithms, re-costs the template's transfers on them, assembles
 * the pipeline stages, checks capacity and tiers, and combines the step: no allocation,
 * a few microseconds. It agrees with bpw_evaluation_from_plan() on the same mapping (a
 * test), which is what makes it safe for search.
 */
#pragma once

#include "bpw-evaluation.h"

G_BEGIN_DECLS

typedef struct _BpwEstimator BpwEstimator;

/* Keeps shallow copies of @spec and @scenario (it copies @blueprint): their strings must
 * outlive the estimator. */
BpwEstimator *bpw_estimator_new      (const BpwModelSpec *spec,
                                      const BpwScenario  *scenario,
                                      const BpwBlueprint *blueprint,
                                      GError            **error);
void          bpw_estimator_free     (BpwEstimator       *estimator);

/* Evaluates @mapping (its parallel, micro_batch and recompute override the scenario's).
 * FALSE with @error when the configuration is invalid for the model (divisibility,
 * sizes); an illegal plan (capacity, tiers, capabilities) is an evaluation with
 * legal == FALSE, its reasons appended to @reasons when non-NULL. Not thread-safe: one
 * estimator per thread. */
gboolean      bpw_estimator_evaluate (BpwEstimator       *estimator,
                                      const BpwMapping   *mapping,
                                      BpwEvaluation      *out,
                                      GPtrArray          *reasons,
                                      GError            **error);

/* Templates bound so far (each one binding of a two-block model). */
guint         bpw_estimator_n_templates (const BpwEstimator *estimator);
/* Frees the cached templates (search visits each shape once and bounds its memory). */
void          bpw_estimator_drop_templates (BpwEstimator *estimator);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwEstimator, bpw_estimator_free)

G_END_DECLS
