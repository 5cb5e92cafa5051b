/* bpw-test-stack.h — a small Llama bound with a software stack, and its transformations:
 * what the stack tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-core.h"

G_BEGIN_DECLS

/* The small Llama's sizes: layers, hidden, heads, KV heads, head dimension, FFN, vocab,
 * sequence, batch. */
#define L   2
#define H   256
#define A   8
#define KV  2
#define D   32
#define F   512
#define V   1000
#define S   128
#define B   2

char                    *bpw_test_stack_fixture_path (void);
/* The H200 with the PyTorch stack of the test data's fixture. */
BpwBlueprint            *bpw_test_stack_fixture      (void);
/* The bundled H200 as the hardware alone: its estimated default stack removed. */
BpwBlueprint            *bpw_test_stack_h200_bare    (void);
/* The bundled H200 with @stack (JSON text of the "stack" member) in place of its own. */
BpwBlueprint            *bpw_test_stack_h200_with    (const char         *stack,
                                                      GError            **error);
void                     bpw_test_stack_small_llama  (BpwModelSpec       *s);
BpwPlan                 *bpw_test_stack_bind_launch  (const BpwModelSpec *spec,
                                                      BpwWorkloadPhase    phase,
                                                      const BpwBlueprint *bp,
                                                      guint               fusion,
                                                      BpwLaunchMode       launch);
/* As bpw_test_stack_bind_launch, launched as the stack says. */
BpwPlan                 *bpw_test_stack_bind         (const BpwModelSpec *spec,
                                                      BpwWorkloadPhase    phase,
                                                      const BpwBlueprint *bp,
                                                      guint               fusion);
/* The plan's transformation @name, or NULL; _get fails the test without it. */
const BpwTransformation *bpw_test_stack_find         (const BpwPlan      *plan,
                                                      const char         *name);
const BpwTransformation *bpw_test_stack_get          (const BpwPlan      *plan,
                                                      const char         *name);

G_END_DECLS
