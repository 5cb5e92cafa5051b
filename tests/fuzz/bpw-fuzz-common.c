/* bpw-fuzz-common.c — setup and invariant checks shared by the fuzz targets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-fuzz.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-facts.h"
#include "bpw-simulation.h"
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
  if (g_getenv ("BPW_FUZZ_DEBUG") != NULL && error != NULL)
    fprintf (stderr, "refused: %s\n", error->message);
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

void
bpw_fuzz_small_scenario (BpwScenario        *scenario,
                         const BpwModelSpec *spec,
                         BpwWorkloadPhase    phase)
{
  gint64 tokens = 64;

  if (spec->positions == BPW_POSITION_LEARNED && spec->max_positions > 0)
    tokens = MIN (tokens, spec->max_positions / 2 > 0 ? spec->max_positions / 2 : 1);
  bpw_scenario_init_defaults (scenario);
  scenario->phase = phase;
  scenario->global_batch = 2;
  scenario->micro_batch = phase == BPW_WORKLOAD_TRAIN ? 1 : 2;
  scenario->seq = phase == BPW_WORKLOAD_DECODE ? 1 : tokens;
  scenario->context = phase == BPW_WORKLOAD_DECODE ? tokens : 0;
}

/* Relative agreement for sums of doubles that are equal by construction. */
static gboolean
adds_up (double sum,
         double total)
{
  return fabs (sum - total) <= 1e-9 * MAX (fabs (sum), fabs (total)) + 1e-18;
}

/* The figures of an evaluation that reach a user or a ranking (bpw-evaluation.h). */
static void
check_figures (const BpwEvaluation *e,
               const char          *path)
{
  double sum = 0;

  if (!(isfinite (e->step_time_s) && e->step_time_s > 0))
    fprintf (stderr, "%s: step time %g\n", path, e->step_time_s);
  bpw_fuzz_assert (isfinite (e->step_time_s) && e->step_time_s > 0,
                   "a step takes a finite, positive time");
  if (!(e->mfu >= 0 && e->mfu <= 1 && e->hfu >= 0 && e->hfu <= 1))
    fprintf (stderr, "%s: MFU %g, HFU %g\n", path, e->mfu, e->hfu);
  bpw_fuzz_assert (e->mfu >= 0 && e->mfu <= 1, "MFU lies in [0, 1]");
  bpw_fuzz_assert (e->hfu >= 0 && e->hfu <= 1, "HFU lies in [0, 1]");
  bpw_fuzz_assert (isfinite (e->model_flops) && e->model_flops >= 0, "model FLOPs finite");
  bpw_fuzz_assert (isfinite (e->hardware_flops) && e->hardware_flops >= 0,
                   "hardware FLOPs finite");
  bpw_fuzz_assert (isfinite (e->peak_bytes) && e->peak_bytes >= 0, "peak memory finite");
  bpw_fuzz_assert (isfinite (e->comm_link_s) && e->comm_link_s >= 0,
                   "communication time finite");
  bpw_fuzz_assert (isfinite (e->tokens_per_s) && e->tokens_per_s >= 0, "throughput finite");
  /* NaN means "none" for these; never infinite or negative. */
  bpw_fuzz_assert (isnan (e->energy_j) || (isfinite (e->energy_j) && e->energy_j >= 0),
                   "energy finite or none");
  bpw_fuzz_assert (isnan (e->average_power_w) ||
                   (isfinite (e->average_power_w) && e->average_power_w >= 0),
                   "average power finite or none");
  bpw_fuzz_assert (isnan (e->tokens_per_joule) ||
                   (isfinite (e->tokens_per_joule) && e->tokens_per_joule >= 0),
                   "tokens per joule finite or none");
  bpw_fuzz_assert (isnan (e->ttft_s) || (isfinite (e->ttft_s) && e->ttft_s >= 0),
                   "time to first token finite or none");
  bpw_fuzz_assert (isnan (e->tpot_s) || (isfinite (e->tpot_s) && e->tpot_s >= 0),
                   "time per output token finite or none");
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    {
      bpw_fuzz_assert (isfinite (e->breakdown_s[b]) && e->breakdown_s[b] >= -1e-12 * e->step_time_s,
                       "every part of the breakdown is finite and not negative");
      sum += e->breakdown_s[b];
    }
  if (!adds_up (sum, e->step_time_s))
    fprintf (stderr, "%s: breakdown %.17g, step %.17g\n", path, sum, e->step_time_s);
  bpw_fuzz_assert (adds_up (sum, e->step_time_s), "the breakdown adds up to the step time");
}

/* Facts by the work graph and by the analytic templates: the distribution conserves the
 * graph, and both count the same parameters and FLOPs. */
static void
check_exact_facts (const BpwModelSpec *spec,
                   const BpwScenario  *scenario,
                   const BpwParallel  *parallel)
{
  g_autoptr(GError) error = NULL;
  BpwFacts exact, analytic;

  if (!bpw_facts_compute (spec, scenario, parallel, &exact, &error))
    {
      bpw_fuzz_check_error (error);
      bpw_facts_clear (&exact);
      return;
    }
  if (!exact.conservation.ok)
    fprintf (stderr, "conservation: %s\n", exact.conservation.message);
  bpw_fuzz_assert (exact.conservation.ok,
                   "the distribution conserves the work graph's FLOPs and bytes");
  bpw_fuzz_assert (exact.conservation.distributed_flops >= exact.conservation.semantic_flops,
                   "the ranks together execute at least the model's mathematics");
  if (bpw_facts_compute_analytic (spec, scenario, parallel, &analytic, &error))
    {
      bpw_fuzz_assert (exact.parameters == analytic.parameters,
                       "graph and templates count the same parameters");
      bpw_fuzz_assert (exact.flops_model == analytic.flops_model &&
                       exact.flops_hardware == analytic.flops_hardware &&
                       exact.flops_semantic == analytic.flops_semantic,
                       "graph and templates count the same FLOPs");
      bpw_facts_clear (&analytic);
    }
  else
    bpw_fuzz_fail (G_STRLOC, "analytic facts", error->message);
  bpw_facts_clear (&exact);
}

void
bpw_fuzz_check_evaluation (const BpwModelSpec *spec,
                           const BpwScenario  *scenario,
                           const BpwMapping   *mapping,
                           const BpwBlueprint *bp)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(BpwEstimator) estimator = NULL;
  g_autoptr(BpwWorkGraph) graph = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwSimOptions sim_options = { 0 };
  BpwEvaluation estimate, bound, simulated;
  BpwConservation report = { 0 };
  BpwScenario run;
  BpwDistWork *dist;
  gboolean estimated = FALSE;

  bpw_scenario_copy (&run, scenario);
  bpw_mapping_apply_to_scenario (mapping, &run);
  if (!bpw_scenario_validate (&run, &mapping->parallel, spec, &error))
    {
      bpw_fuzz_check_error (error);
      bpw_scenario_clear (&run);
      return;
    }

  check_exact_facts (spec, &run, &mapping->parallel);

  /* The closed form search ranks by. */
  estimator = bpw_estimator_new (spec, scenario, bp, &error);
  if (estimator == NULL)
    bpw_fuzz_check_error (error);
  else if (!bpw_estimator_evaluate (estimator, mapping, &estimate, reasons, &error))
    bpw_fuzz_check_error (error);
  else
    {
      check_figures (&estimate, "estimator");
      estimated = TRUE;
    }
  g_clear_error (&error);

  /* The plan: decomposed, distributed, bound; its closed-form step and its simulation. */
  graph = bpw_work_graph_new (spec, &run, &error);
  bpw_scenario_clear (&run);
  if (graph == NULL)
    {
      bpw_fuzz_check_error (error);
      return;
    }
  dist = bpw_dist_work_new (g_steal_pointer (&graph), &mapping->parallel, &error);
  if (dist == NULL)
    {
      bpw_fuzz_check_error (error);
      return;
    }
  bpw_dist_work_check_conservation (dist, &report);
  if (!report.ok)
    fprintf (stderr, "conservation: %s\n", report.message);
  bpw_fuzz_assert (report.ok, "the bound distribution conserves the graph");
  bpw_conservation_clear (&report);
  plan = bpw_plan_new (dist, bp, mapping, &error);
  if (plan == NULL)
    {
      bpw_fuzz_check_error (error);
      return;
    }
  bpw_fuzz_assert (plan->legal == (plan->reasons->len == 0),
                   "an illegal plan says why, a legal one has no reasons");
  bpw_evaluation_from_plan (plan, &bound);
  if (!bpw_evaluation_check_finite (&bound, bp->name, &error))
    {
      /* The estimator prices the same step from the same rates: it must have refused
       * it too, else a number search ranks by is finite while the plan's is not. */
      if (estimated)
        fprintf (stderr, "plan: %s\n", error->message);
      bpw_fuzz_assert (!estimated, "the plan's step is finite when the estimator's is");
      return;
    }
  check_figures (&bound, "plan");

  sim = bpw_simulation_new (plan, &sim_options, &error);
  if (sim == NULL)
    {
      /* The simulator refuses a plan whose communication could not be priced; a deadlock
       * is a bug, and the targets' caps keep every step far below the event limit. */
      bpw_fuzz_check_error (error);
      if (error->code != BPW_ERROR_INVALID_INPUT || plan->legal)
        fprintf (stderr, "simulation: %s\n", error->message);
      bpw_fuzz_assert (error->code == BPW_ERROR_INVALID_INPUT && !plan->legal,
                       "a plan the simulator refuses is illegal and says why");
      return;
    }
  bpw_simulation_evaluation (sim, &bound, &simulated);
  check_figures (&simulated, "simulation");
  if (g_getenv ("BPW_FUZZ_DEBUG") != NULL)
    fprintf (stderr, "%s %s on %s: estimate %g s, plan %g s, simulated %g s, %u events%s\n",
             spec->name, bpw_workload_phase_to_string (scenario->phase), bp->name,
             estimated ? estimate.step_time_s : NAN, bound.step_time_s, simulated.step_time_s,
             sim->events->len, plan->legal ? "" : " (illegal)");
  for (guint32 r = 0; r < sim->n_ranks; r++)
    {
      double sum = 0;

      for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
        sum += sim->ranks[r].breakdown_s[b];
      bpw_fuzz_assert (adds_up (sum, sim->step_time_s),
                       "every rank's simulated breakdown adds up to the step");
      bpw_fuzz_assert (isfinite (sim->memory[r].peak) && sim->memory[r].peak >= 0,
                       "the simulated memory peak is finite");
    }
}

void
bpw_fuzz_check_phases (const BpwModelSpec     *spec,
                       const BpwMapping       *mapping,
                       const BpwBlueprint     *bp,
                       const BpwWorkloadPhase *phases,
                       guint                   n_phases)
{
  for (guint i = 0; i < n_phases; i++)
    {
      BpwScenario scenario;

      bpw_fuzz_small_scenario (&scenario, spec, phases[i]);
      bpw_fuzz_check_evaluation (spec, &scenario, mapping, bp);
      bpw_scenario_clear (&scenario);
    }
}
