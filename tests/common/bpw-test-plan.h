/* bpw-test-plan.h — binding a plan and holding the estimator against it, as the tests of
 * the work, the binding and the model families do
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

/* Aborts the test unless @a and @b agree within @rel of the larger, plus 1e-12. */
void          bpw_test_assert_close            (double               a,
                                                double               b,
                                                double               rel);
/* @scenario from the defaults, with the phase, global and micro-batch, sequence, context
 * and recompute given. */
void          bpw_test_scenario                (BpwScenario         *scenario,
                                                BpwWorkloadPhase     phase,
                                                gint64               batch,
                                                gint64               micro,
                                                gint64               seq,
                                                gint64               context,
                                                BpwRecompute         recompute);
/* The bundled blueprint @name less its stack's launch gaps: they depend on a stage's whole
 * kernel sequence, which the estimator's templates do not replay. It must load. */
BpwBlueprint *bpw_test_blueprint_without_launch (const char          *name);
/* The plan of @mapping (its parallel decomposition) for @spec under @scenario on @bp;
 * every step must succeed. */
BpwPlan      *bpw_test_bind                    (const BpwModelSpec  *spec,
                                                const BpwScenario   *scenario,
                                                const BpwBlueprint  *bp,
                                                const BpwMapping    *mapping);
/* The estimator of @spec under @scenario on @bp, and its evaluation of @mapping in
 * @estimate; both must succeed. */
BpwEstimator *bpw_test_estimate                (const BpwModelSpec  *spec,
                                                const BpwScenario   *scenario,
                                                const BpwBlueprint  *bp,
                                                const BpwMapping    *mapping,
                                                BpwEvaluation       *estimate);
/* The estimate is the plan's evaluation: step time and MFU to 1e-9, peak memory to 1e-6,
 * the same slowest stage. */
void          bpw_test_assert_estimate_is_plan (const BpwEvaluation *plan,
                                                const BpwEvaluation *estimate);

G_END_DECLS
