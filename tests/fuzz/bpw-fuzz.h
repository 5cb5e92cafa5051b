/* bpw-fuzz.h — what the libFuzzer targets share: setup, invariant checks, round trips
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every target defines LLVMFuzzerTestOneInput(). In a -Dfuzzing=true build libFuzzer calls
 * it; in every build fuzz-replay.c calls it once per seed and regression file, so the
 * corpora are tested by the normal suite too.
 */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "bpw-blueprint.h"
#include "bpw-mapping.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

int  LLVMFuzzerTestOneInput (const uint8_t *data,
                             size_t         size);

/* Makes criticals and warnings fatal (a g_return_if_fail reached from a file is a bug)
 * and the locale deterministic. Idempotent; every target calls it first. */
void bpw_fuzz_init          (void);

/* Aborts with @what when @condition is false: a broken invariant is a crash for the fuzzer. */
#define bpw_fuzz_assert(condition, what)                                              \
  G_STMT_START {                                                                      \
    if (G_UNLIKELY (!(condition)))                                                    \
      bpw_fuzz_fail (G_STRLOC, #condition, what);                                     \
  } G_STMT_END

G_NORETURN void bpw_fuzz_fail (const char *location,
                               const char *condition,
                               const char *what);

/* A failed load must say why: an error of domain BPW_ERROR with a non-empty message. */
void bpw_fuzz_check_error   (const GError *error);

/* Checks a workload the loaders accepted: it validates, survives the native writer and
 * reader unchanged, and its facts under @scenario (the loader's hint, or defaults) are
 * computed or refused with a reason. */
void bpw_fuzz_check_workload (const BpwModelSpec *spec,
                              const BpwScenario  *scenario);

/* Facts of @spec under @scenario and @parallel: exact, or refused with a BPW_ERROR. */
void bpw_fuzz_check_facts    (const BpwModelSpec *spec,
                              const BpwScenario  *scenario,
                              const BpwParallel  *parallel);

/* The most transformer blocks the evaluating targets keep of a model (fuzz-evaluate-*):
 * decomposition, binding and simulation grow with the layers, and a few blocks exercise
 * every kind of stage, boundary and schedule, so each execution stays in milliseconds. */
#define BPW_FUZZ_MAX_LAYERS 4

/* Sets @scenario to a small step of @phase for @spec: 64 tokens (fewer when a learned
 * position table is shorter), decode at a context of 64, two sequences. */
void bpw_fuzz_small_scenario (BpwScenario        *scenario,
                              const BpwModelSpec *spec,
                              BpwWorkloadPhase    phase);

/* Evaluates @spec under @scenario through @mapping on @bp by every path there is: the
 * scenario's validation, facts (decomposition and distribution), the estimator, the bound
 * plan and its closed-form step, and the simulated step. Each path answers or refuses
 * with a BPW_ERROR; what answers must hold: distribution conserves the graph's FLOPs and
 * bytes, facts agree with their analytic form, every figure that reaches a user is finite
 * (NaN only where it means "none"), MFU and HFU lie in [0, 1], the breakdown adds up to
 * the step time and the simulated memory peak is within the device's bytes it reports. */
void bpw_fuzz_check_evaluation (const BpwModelSpec *spec,
                                const BpwScenario  *scenario,
                                const BpwMapping   *mapping,
                                const BpwBlueprint *bp);

/* bpw_fuzz_check_evaluation() of @spec through @mapping on @bp, once for each of the
 * @n_phases phases in a bpw_fuzz_small_scenario(). */
void bpw_fuzz_check_phases (const BpwModelSpec     *spec,
                            const BpwMapping       *mapping,
                            const BpwBlueprint     *bp,
                            const BpwWorkloadPhase *phases,
                            guint                   n_phases);

/* TRUE when every field the native format stores is equal (source is not stored). */
gboolean bpw_fuzz_spec_equal (const BpwModelSpec *a,
                              const BpwModelSpec *b);

G_END_DECLS
