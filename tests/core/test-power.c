/* test-power.c — energy and power for every bundled blueprint, and the power cap's throttle
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-power"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-test-study.h"

static void
assert_close (double a, double b, double rel)
{
  if (!(fabs (a - b) <= rel * MAX (fabs (a), fabs (b))))
    g_error ("%.12g and %.12g differ by more than %g relative", a, b, rel);
}

/* llama3-8b prefill on one device, the scenario's own defaults. */
static gboolean
evaluate (const BpwBlueprint *bp, BpwEvaluation *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwEstimator) est = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  gboolean ok;

  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", &spec));
  bpw_scenario_init_defaults (&scenario);
  scenario.phase = BPW_WORKLOAD_PREFILL;
  bpw_mapping_init_defaults (&mapping);
  scenario.micro_batch = bpw_scenario_default_micro_batch (scenario.phase, scenario.global_batch,
                                                           &mapping.parallel);
  est = bpw_estimator_new (&spec, &scenario, bp, &error);
  g_assert_no_error (error);
  ok = bpw_estimator_evaluate (est, &mapping, out, NULL, &error);
  g_assert_no_error (error);
  bpw_mapping_clear (&mapping);
  bpw_model_spec_clear (&spec);
  return ok;
}

static void
assert_sourced (const char *bp, const char *what, const BpwSourced *v)
{
  if (!v->set || v->source == NULL || v->source[0] == '\0')
    g_error ("%s: %s has no value with a source", bp, what);
}

/* Every bundled blueprint carries idle and busy power, energy per FLOP in its matrix
 * precisions and energy per byte on every memory level and tier, each with its source; and
 * a default scenario gets a finite energy, average power and tokens per joule from it. */
static void
test_bundled_energy (void)
{
  const char * const *names = bpw_blueprint_bundled_names ();

  g_assert_nonnull (names[0]);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled (names[i], &error);
      int matrix;
      BpwEvaluation e;

      g_assert_no_error (error);
      assert_sourced (names[i], "power.tdp", &bp->tdp);
      assert_sourced (names[i], "power.idle", &bp->idle_power);
      g_assert_cmpfloat (bp->idle_power.value, <, bp->tdp.value);
      matrix = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
      g_assert_cmpint (matrix, >=, 0);
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        if (bp->engines[matrix].peak[p].set)
          assert_sourced (names[i], bpw_precision_to_string (p), &bp->energy_per_flop[p]);
      for (guint m = 0; m < bp->n_memory; m++)
        assert_sourced (names[i], bp->memory[m].name, &bp->memory[m].energy_per_byte);
      for (guint t = 0; t < bp->n_tiers; t++)
        assert_sourced (names[i], bp->tiers[t].name, &bp->tiers[t].energy_per_byte);

      g_assert_true (evaluate (bp, &e));
      g_assert_true (isfinite (e.energy_j) && e.energy_j > 0);
      g_assert_true (isfinite (e.average_power_w));
      g_assert_cmpfloat (e.average_power_w, >, bp->idle_power.value);
      g_assert_cmpfloat (e.average_power_w, <=, bp->tdp.value);
      g_assert_true (isfinite (e.tokens_per_joule) && e.tokens_per_joule > 0);
    }
}

/* The closed form: dynamic power ∝ rate, so a step over the cap lasts
 * E_dynamic / (N (C − I)) and draws exactly C. */
static void
test_cap_closed_form (void)
{
  BpwPowerStep p;

  /* 2 devices idle at 100 W for 1 s, 1000 J of work: 600 W each. */
  g_assert_true (bpw_power_step (100, 700, 350, 2, 1.0, 1000, 0, &p));
  g_assert_cmpfloat (p.step_s, ==, 2.0);        /* 1000 / (2 × 250) */
  g_assert_cmpfloat (p.throttle_s, ==, 1.0);
  g_assert_cmpfloat (p.energy_j, ==, 1400.0);   /* 100 × 2 × 2 + 1000 */
  g_assert_cmpfloat (p.average_power_w, ==, 350.0);

  /* Under the cap: nothing changes. */
  g_assert_true (bpw_power_step (100, 700, 650, 2, 1.0, 1000, 0, &p));
  g_assert_cmpfloat (p.step_s, ==, 1.0);
  g_assert_cmpfloat (p.throttle_s, ==, 0.0);
  g_assert_cmpfloat (p.energy_j, ==, 1200.0);
  g_assert_cmpfloat (p.average_power_w, ==, 600.0);

  /* No cap: the TDP bounds the estimate, the step keeps its length. */
  g_assert_true (bpw_power_step (100, 500, NAN, 2, 1.0, 1000, 0, &p));
  g_assert_cmpfloat (p.step_s, ==, 1.0);
  g_assert_cmpfloat (p.average_power_w, ==, 500.0);
  g_assert_cmpfloat (p.energy_j, ==, 1000.0);

  /* Without energy per FLOP, (TDP − idle) over the busy device-seconds. */
  g_assert_true (bpw_power_step (100, 500, 300, 2, 1.0, NAN, 1.5, &p));
  g_assert_cmpfloat (p.step_s, ==, 1.5);        /* 400 × 1.5 / (2 × 200) */
  g_assert_cmpfloat (p.average_power_w, ==, 300.0);

  /* Unknown without idle power, or without both energy per FLOP and TDP. */
  g_assert_false (bpw_power_step (NAN, 700, 350, 2, 1.0, 1000, 0, &p));
  g_assert_true (isnan (p.energy_j));
  g_assert_false (bpw_power_step (100, NAN, NAN, 2, 1.0, NAN, 1.0, &p));
}

/* A cap below the modelled power stretches the step by the closed form: the dynamic energy
 * is what it was, the extra time is compute-bound, and the rates fall with the step. */
static void
test_cap_throttles_evaluation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h200-sxm-141gb", &error);
  double idle = bp->idle_power.value, cap, dynamic;
  BpwEvaluation free_run, capped;

  g_assert_no_error (error);
  g_assert_false (bp->power_cap.set);
  g_assert_true (evaluate (bp, &free_run));
  g_assert_cmpfloat (free_run.average_power_w, <, bp->tdp.value);
  dynamic = free_run.energy_j - idle * free_run.step_time_s;

  cap = idle + (free_run.average_power_w - idle) / 2;
  bpw_blueprint_set_value (bp, &bp->power_cap, cap, BPW_PROVENANCE_ESTIMATE, "test");
  g_assert_true (evaluate (bp, &capped));
  assert_close (capped.step_time_s, 2 * free_run.step_time_s, 1e-12);
  assert_close (capped.average_power_w, cap, 1e-12);
  assert_close (capped.energy_j - idle * capped.step_time_s, dynamic, 1e-9);
  assert_close (capped.breakdown_s[BPW_BREAKDOWN_COMPUTE],
                free_run.breakdown_s[BPW_BREAKDOWN_COMPUTE] + free_run.step_time_s, 1e-12);
  assert_close (capped.tokens_per_s, free_run.tokens_per_s / 2, 1e-12);
  assert_close (capped.mfu, free_run.mfu / 2, 1e-12);

  /* A cap above the modelled power changes nothing. */
  bpw_blueprint_set_value (bp, &bp->power_cap, free_run.average_power_w * 1.01,
                           BPW_PROVENANCE_ESTIMATE, "test");
  g_assert_true (evaluate (bp, &capped));
  g_assert_cmpfloat (capped.step_time_s, ==, free_run.step_time_s);
  g_assert_cmpfloat (capped.energy_j, ==, free_run.energy_j);
}

/* The simulated step throttles by the same closed form, from its own step time. */
static BpwEvaluation
simulate_once (const BpwBlueprint *bp)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwSimOptions options = { 0 };
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwEvaluation analytic, e;

  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", &spec));
  bpw_scenario_init_defaults (&scenario);
  scenario.phase = BPW_WORKLOAD_PREFILL;
  bpw_mapping_init_defaults (&mapping);
  scenario.micro_batch = bpw_scenario_default_micro_batch (scenario.phase, scenario.global_batch,
                                                           &mapping.parallel);
  bpw_mapping_apply_to_scenario (&mapping, &scenario);
  graph = bpw_work_graph_new (&spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);
  bpw_evaluation_from_plan (plan, &analytic);
  sim = bpw_simulation_new (plan, &options, &error);
  g_assert_no_error (error);
  bpw_simulation_evaluation (sim, &analytic, &e);
  bpw_mapping_clear (&mapping);
  bpw_model_spec_clear (&spec);
  return e;
}

static void
test_cap_throttles_simulation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h200-sxm-141gb", &error);
  double idle = bp->idle_power.value, cap, dynamic;
  BpwEvaluation free_run, capped;

  g_assert_no_error (error);
  free_run = simulate_once (bp);
  g_assert_true (isfinite (free_run.energy_j));
  dynamic = free_run.energy_j - idle * free_run.step_time_s;
  cap = idle + (free_run.average_power_w - idle) / 4;
  bpw_blueprint_set_value (bp, &bp->power_cap, cap, BPW_PROVENANCE_ESTIMATE, "test");
  capped = simulate_once (bp);
  assert_close (capped.step_time_s, dynamic / (cap - idle), 1e-9);
  assert_close (capped.step_time_s, 4 * free_run.step_time_s, 1e-9);
  assert_close (capped.average_power_w, cap, 1e-12);
  assert_close (capped.breakdown_s[BPW_BREAKDOWN_COMPUTE],
                free_run.breakdown_s[BPW_BREAKDOWN_COMPUTE] + 3 * free_run.step_time_s, 1e-9);
  assert_close (capped.tokens_per_s, free_run.tokens_per_s / 4, 1e-9);
  assert_close (capped.ttft_s, capped.step_time_s, 1e-12);
}

/* power.cap reads, writes and copies with its provenance; at or below idle it is refused. */
static void
test_cap_round_trip (void)
{
  static const char *file =
    "{\"format\": \"bpw-blueprint\", \"version\": 1, \"name\": \"capped\","
    " \"engines\": [{\"name\": \"mx\", \"kind\": \"matrix\", \"peak\": {\"bf16\": \"100 TFLOP/s\"}}],"
    " \"memory\": [{\"name\": \"hbm\", \"kind\": \"device\", \"capacity\": \"16 GiB\","
    " \"bandwidth\": \"1 TB/s\", \"engines\": [\"mx\"]}],"
    " \"tiers\": [],"
    " \"power\": {\"tdp\": \"400 W\", \"idle\": \"50 W\","
    " \"cap\": {\"value\": \"300 W\", \"kind\": \"measured\", \"source\": \"nvidia-smi -pl\"}}}";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_data ("capped.json", file, -1, NULL, &error);
  g_autoptr(BpwBlueprint) copy = NULL;
  g_autoptr(BpwBlueprint) back = NULL;
  g_autoptr(BpwBlueprint) low = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *refused = NULL;

  g_assert_no_error (error);
  g_assert_true (bp->power_cap.set);
  g_assert_cmpfloat (bp->power_cap.value, ==, 300);
  g_assert_cmpint (bp->power_cap.kind, ==, BPW_PROVENANCE_MEASURED);
  g_assert_cmpstr (bp->power_cap.source, ==, "nvidia-smi -pl");
  copy = bpw_blueprint_copy (bp);
  g_assert_true (bpw_blueprint_equal (bp, copy));
  saved = bpw_blueprint_to_json (bp);
  back = bpw_blueprint_load_data ("back.json", saved, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_blueprint_equal (bp, back));
  bpw_blueprint_set_value (copy, &copy->power_cap, 250, BPW_PROVENANCE_MEASURED, "nvidia-smi -pl");
  g_assert_false (bpw_blueprint_equal (bp, copy));

  {
    g_auto(GStrv) parts = g_strsplit (file, "\"cap\": {\"value\": \"300 W\"", -1);

    refused = g_strjoinv ("\"cap\": {\"value\": \"40 W\"", parts);
  }
  low = bpw_blueprint_load_data ("low.json", refused, -1, NULL, &error);
  g_assert_null (low);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "power.cap"));
}

/* A sweep moves the cap: each point's blueprint carries it, and a cap at or below the
 * idle power is refused before anything runs. */
static void
test_cap_sweep (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("h200-sxm-141gb", &error);
  g_autoptr(BpwSweep) sweep = NULL;
  const char *params[] = { "power_cap=300W,700W", NULL };
  const char *low[] = { "power_cap=50W", NULL };
  BpwSearchLimits limits;
  BpwModelSpec spec;
  BpwScenario scenario;
  BpwMapping base;
  double v;

  g_assert_no_error (error);
  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", &spec));
  bpw_scenario_init_defaults (&scenario);
  scenario.phase = BPW_WORKLOAD_PREFILL;
  bpw_mapping_init_defaults (&base);
  scenario.micro_batch = bpw_scenario_default_micro_batch (scenario.phase, scenario.global_batch,
                                                           &base.parallel);
  bpw_search_limits_init (&limits);

  /* Without a cap of its own a board is limited at its TDP. */
  g_assert_true (bpw_sweep_param_get_value (BPW_SWEEP_POWER_CAP, 0, bp, scenario.dtype, 1, &v));
  g_assert_cmpfloat (v, ==, bp->tdp.value);

  sweep = bpw_sweep_new (&spec, &scenario, bp, &base, 1, &limits, params, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_sweep_get_n_points (sweep), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const BpwBlueprint *pb = bpw_sweep_get_point (sweep, i)->blueprint;

      g_assert_true (pb->power_cap.set);
      g_assert_cmpfloat (pb->tdp.value, ==, bp->tdp.value);
    }
  g_assert_cmpfloat (bpw_sweep_get_point (sweep, 0)->blueprint->power_cap.value, ==, 300);
  g_assert_cmpfloat (bpw_sweep_get_point (sweep, 1)->blueprint->power_cap.value, ==, 700);
  g_clear_pointer (&sweep, bpw_sweep_free);

  sweep = bpw_sweep_new (&spec, &scenario, bp, &base, 1, &limits, low, &error);
  g_assert_null (sweep);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "idle power"));
  bpw_mapping_clear (&base);
  bpw_model_spec_clear (&spec);
}

/* The default study with a price on each candidate: @usd[i] per @units[i] (NULL: none). */
static BpwStudy *
priced_study (const double *usd, const char * const *units, guint n)
{
  g_autoptr(BpwStudy) base = bpw_test_default_study ();
  g_autofree char *text = bpw_study_to_json (base);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *priced = NULL;
  JsonArray *cands;
  BpwStudy *study;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  cands = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                        "candidates");
  g_assert_cmpuint (json_array_get_length (cands), ==, n);
  for (guint i = 0; i < n; i++)
    if (units[i] != NULL)
      {
        JsonObject *price = json_object_new ();

        json_object_set_double_member (price, "value", usd[i]);
        json_object_set_string_member (price, "unit", units[i]);
        json_object_set_string_member (price, "source", "test quote");
        json_object_set_object_member (json_array_get_object_element (cands, i), "price", price);
      }
  json_generator_set_root (gen, json_parser_get_root (parser));
  priced = json_generator_to_data (gen, NULL);
  study = bpw_study_new_from_data ("priced.bpw-study.json", priced, -1, &error);
  g_assert_no_error (error);
  return study;
}

/* A price is read, written, copied and compared with its unit and source; one without a
 * source is refused at its place. */
static void
test_price_round_trip (void)
{
  const double usd[] = { 10000, 25000, 30000, 15000 };
  const char * const units[] = { "USD/device", "USD/device", "USD/device", NULL };
  g_autoptr(BpwStudy) study = priced_study (usd, units, G_N_ELEMENTS (usd));
  g_autoptr(BpwStudy) copy = bpw_study_copy (study);
  g_autoptr(BpwStudy) back = NULL;
  g_autoptr(BpwStudy) plain = bpw_test_default_study ();
  g_autofree char *text = bpw_study_to_json (study);
  g_autoptr(GError) error = NULL;
  g_autofree char *unsourced = NULL;
  const BpwStudyCandidate *c = bpw_study_get_candidate (study, 1);

  g_assert_true (c->price.set);
  g_assert_cmpfloat (c->price.usd, ==, 25000);
  g_assert_cmpint (c->price.unit, ==, BPW_PRICE_PER_DEVICE);
  g_assert_cmpstr (c->price.source, ==, "test quote");
  g_assert_false (bpw_study_get_candidate (study, 3)->price.set);
  g_assert_cmpfloat (bpw_study_price_cost (&c->price, 8), ==, 200000);
  g_assert_true (isnan (bpw_study_price_cost (&bpw_study_get_candidate (study, 3)->price, 8)));
  g_assert_true (bpw_study_equal (study, copy));
  g_assert_false (bpw_study_equal (study, plain));
  back = bpw_study_new_from_data ("back.bpw-study.json", text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_equal (study, back));

  {
    g_auto(GStrv) parts = g_strsplit (text, "\"source\": \"test quote\"", 2);

    unsourced = g_strjoinv ("\"source\": \"\"", parts);
  }
  g_clear_object (&back);
  back = bpw_study_new_from_data ("unsourced.bpw-study.json", unsourced, -1, &error);
  g_assert_null (back);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "candidates[0].price"));
}

/* Without prices nothing about cost is compared: no cost, no unit, the front over score
 * and performance per watt only. With a price for every candidate cost ranks: it is
 * devices × price, and a candidate dominated in score and performance per watt joins the
 * front by being the cheapest. Mixed units do not compare. */
static void
test_price_compare (void)
{
  const double usd[] = { 20000, 8000, 40000, 30000 };
  const char * const units[] = { "USD/device", "USD/device", "USD/device", "USD/device" };
  const char * const mixed[] = { "USD/device", "USD/device-hour", "USD/device", "USD/device" };
  g_autoptr(BpwStudy) plain = bpw_test_default_study ();
  g_autoptr(BpwStudy) study = priced_study (usd, units, G_N_ELEMENTS (usd));
  g_autoptr(BpwStudy) mixed_study = priced_study (usd, mixed, G_N_ELEMENTS (usd));
  g_autoptr(BpwComparison) none = NULL;
  g_autoptr(BpwComparison) priced = NULL;
  g_autoptr(BpwComparison) unmatched = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const BpwCompareSuite *before, *after;
  BpwCompareOptions options;
  BpwPriceUnit unit;
  guint h100 = bpw_test_candidate_index (plain, "h100-sxm-80gb");

  bpw_compare_options_init (&options);
  none = bpw_compare_study (plain, &options, NULL, &error);
  g_assert_no_error (error);
  priced = bpw_compare_study (study, &options, NULL, &error);
  g_assert_no_error (error);
  unmatched = bpw_compare_study (mixed_study, &options, NULL, &error);
  g_assert_no_error (error);

  g_assert_false (bpw_comparison_get_cost_unit (none, NULL));
  g_assert_false (bpw_comparison_get_cost_unit (unmatched, NULL));
  g_assert_true (bpw_comparison_get_cost_unit (priced, &unit));
  g_assert_cmpint (unit, ==, BPW_PRICE_PER_DEVICE);
  text = bpw_comparison_to_text (none);
  g_assert_null (strstr (text, "cost $"));
  g_assert_nonnull (strstr (text, "no price given"));

  before = bpw_comparison_get_suite (none, 0);
  after = bpw_comparison_get_suite (priced, 0);
  g_assert_true (before->feasible[h100]);
  g_assert_false (before->pareto[h100]);
  g_assert_true (after->pareto[h100]);
  for (guint c = 0; c < bpw_comparison_get_n_candidates (priced); c++)
    {
      double cost = 0;

      g_assert_true (isnan (before->cost[c]));
      for (guint s = 0; s < bpw_comparison_get_n_scenarios (priced); s++)
        {
          const BpwCompareCell *cell = bpw_comparison_get_cell (priced, c, s);

          if (cell->ok)
            {
              g_assert_cmpfloat (cell->cost, ==, usd[c] * (double) cell->devices);
              cost = MAX (cost, cell->cost);
            }
        }
      g_assert_cmpfloat (after->cost[c], ==, cost);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Power/bundled-energy", test_bundled_energy);
  g_test_add_func ("/bpw/core/Power/cap-closed-form", test_cap_closed_form);
  g_test_add_func ("/bpw/core/Power/cap-throttles-evaluation", test_cap_throttles_evaluation);
  g_test_add_func ("/bpw/core/Power/cap-throttles-simulation", test_cap_throttles_simulation);
  g_test_add_func ("/bpw/core/Power/cap-round-trip", test_cap_round_trip);
  g_test_add_func ("/bpw/core/Power/cap-sweep", test_cap_sweep);
  g_test_add_func ("/bpw/core/Power/price-round-trip", test_price_round_trip);
  g_test_add_func ("/bpw/core/Power/price-compare", test_price_compare);
  return g_test_run ();
}
