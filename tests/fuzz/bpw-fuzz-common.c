/* bpw-fuzz-common.c — setup and invariant checks shared by the fuzz targets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-fuzz.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-facts.h"
#include "bpw-workload-io.h"

void
bpw_fuzz_init (void)
{
  static gboolean done = FALSE;

  if (done)
    return;
  done = TRUE;
  /* Number parsing and printing must not depend on the caller's locale. */
  setlocale (LC_ALL, "C.UTF-8");
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL);
}

void
bpw_fuzz_fail (const char *location,
               const char *condition,
               const char *what)
{
  fprintf (stderr, "%s: invariant broken: %s (%s)\n", location, what, condition);
  fflush (stderr);
  abort ();
}

void
bpw_fuzz_check_error (const GError *error)
{
  bpw_fuzz_assert (error != NULL, "a failed load sets an error");
  bpw_fuzz_assert (error->domain == BPW_ERROR, "errors are in the BPW_ERROR domain");
  bpw_fuzz_assert (error->message != NULL && error->message[0] != '\0',
                   "errors have a message");
  bpw_fuzz_assert (g_utf8_validate (error->message, -1, NULL), "messages are UTF-8");
}

gboolean
bpw_fuzz_spec_equal (const BpwModelSpec *a,
                     const BpwModelSpec *b)
{
  return g_strcmp0 (a->name, b->name) == 0 &&
         a->vocab == b->vocab && a->hidden == b->hidden && a->layers == b->layers &&
         a->heads == b->heads && a->kv_heads == b->kv_heads && a->head_dim == b->head_dim &&
         a->ffn == b->ffn &&
         (a->positions != BPW_POSITION_LEARNED || a->max_positions == b->max_positions) &&
         a->ffn_kind == b->ffn_kind && a->norm == b->norm && a->positions == b->positions &&
         !a->tied_embeddings == !b->tied_embeddings && !a->qkv_bias == !b->qkv_bias &&
         !a->linear_bias == !b->linear_bias && !a->dropout == !b->dropout &&
         a->experts == b->experts &&
         (a->experts == 0 ||
          (a->top_k == b->top_k && a->shared_experts == b->shared_experts &&
           a->moe_ffn == b->moe_ffn && a->moe_every == b->moe_every &&
           a->moe_first == b->moe_first && a->capacity_factor == b->capacity_factor)) &&
         a->param_dtype == b->param_dtype && a->activation_dtype == b->activation_dtype &&
         a->gradient_dtype == b->gradient_dtype && a->optimizer_dtype == b->optimizer_dtype &&
         a->master_dtype == b->master_dtype && a->optimizer == b->optimizer;
}

void
bpw_fuzz_check_workload (const BpwModelSpec *spec,
                         const BpwScenario  *scenario)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  BpwModelSpec again;
  BpwParallel parallel;
  gboolean ok;

  ok = bpw_model_spec_validate (spec, &error);
  bpw_fuzz_assert (ok, "a loaded workload validates");

  /* The native writer and reader are inverse: what was accepted is written and read back
   * with every field intact. */
  json = bpw_workload_to_json (spec);
  bpw_model_spec_init_defaults (&again);
  ok = bpw_workload_load_data ("roundtrip.json", json, -1, 0, &again, NULL, NULL, &error);
  if (!ok)
    fprintf (stderr, "round trip refused: %s\n%s\n", error->message, json);
  bpw_fuzz_assert (ok, "the native form of a loaded workload loads");
  bpw_fuzz_assert (bpw_fuzz_spec_equal (spec, &again), "the native round trip keeps every field");
  bpw_model_spec_clear (&again);

  bpw_parallel_init_defaults (&parallel);
  bpw_fuzz_check_facts (spec, scenario, &parallel);
}

void
bpw_fuzz_check_facts (const BpwModelSpec *spec,
                      const BpwScenario  *scenario,
                      const BpwParallel  *parallel)
{
  g_autoptr(GError) error = NULL;
  BpwFacts facts;

  /* Derived counts: computed exactly or refused with a reason, never wrapped or crashed. */
  if (bpw_facts_compute_analytic (spec, scenario, parallel, &facts, &error))
    {
      bpw_fuzz_assert (facts.parameters == bpw_model_spec_parameters (spec),
                       "facts count the spec's parameters");
      bpw_fuzz_assert (facts.active_parameters <= facts.parameters,
                       "active parameters never exceed the total");
      bpw_fuzz_assert (facts.flops_hardware >= facts.flops_by_phase[BPW_PHASE_FORWARD],
                       "hardware FLOPs include the forward pass");
      bpw_facts_clear (&facts);
    }
  else
    {
      bpw_fuzz_check_error (error);
    }
}
