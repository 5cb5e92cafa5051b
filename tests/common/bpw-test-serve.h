/* bpw-test-serve.h — a model on a bundled blueprint, its serving model and a request
 * stream, as the serving and weight-only tests set them up
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-core.h"
#include "bpw-serve.h"

G_BEGIN_DECLS

typedef struct
{
  BpwModelSpec   spec;
  BpwScenario    scenario;
  BpwMapping     mapping;
  BpwBlueprint  *bp;
} BpwTestSetup;

/* @model (a bundled name or a file) with the default scenario and mapping on the bundled
 * @blueprint, whose software stack is zeroed: the closed forms the tests hold against are
 * of the device's work, and the eager stack's launch gaps and unfused kernels (tested in
 * test-stack) would blur them. Every step must succeed. */
void            bpw_test_setup_load      (BpwTestSetup          *setup,
                                          const char            *model,
                                          const char            *blueprint);
void            bpw_test_setup_clear     (BpwTestSetup          *setup);
/* The serving model of @setup under @mapping; it must build. */
BpwServeModel  *bpw_test_serve_model_new (const BpwTestSetup    *setup,
                                          const BpwMapping      *mapping,
                                          gint64                 max_batch,
                                          gint64                 longest_prompt,
                                          gint64                 longest_request);
/* A stream of @requests Poisson arrivals at @rate on one replica, lengths from the
 * --prompt-len and --output-len notations @prompt and @output. */
BpwServeOptions bpw_test_stream          (double                 rate,
                                          gint64                 requests,
                                          guint64                seed,
                                          const char            *prompt,
                                          const char            *output);
/* Serves @options on @model (colocated); the run must succeed. */
void            bpw_test_serve           (BpwServeModel         *model,
                                          const BpwServeOptions *options,
                                          BpwServeResult        *result);

G_END_DECLS
