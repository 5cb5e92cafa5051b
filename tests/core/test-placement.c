/* test-placement.c — a placement names a memory level the blueprint has, and fits it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A level index beyond the blueprint's is invalid input for binding and for the
 * estimator alike; bytes placed on an on-chip level beyond its capacity × instances make
 * the plan illegal, with the kind, the bytes and the level in the reason.
 */
#include "config.h"

#include "bpw-core.h"

/* One engine, 256 KiB of SRAM per core (one core unless @cores), 80 GB of HBM. */
static BpwBlueprint *
sram_blueprint (double cores)
{
  BpwBlueprint *bp = bpw_blueprint_new ("sram-test");
  guint e, m;

  e = bpw_blueprint_add_engine (bp, "matrix", BPW_ENGINE_MATRIX);
  bpw_blueprint_set_value (bp, &bp->engines[e].peak[BPW_PRECISION_BF16], 100e12,
                           BPW_PROVENANCE_ESTIMATE, NULL);
  m = bpw_blueprint_add_memory (bp, "sram", BPW_MEMORY_SRAM);
  bpw_blueprint_set_value (bp, &bp->memory[m].capacity, 256.0 * 1024, BPW_PROVENANCE_ESTIMATE,
                           NULL);
  bpw_blueprint_set_value (bp, &bp->memory[m].instances, cores, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->memory[m].bandwidth, 20e12, BPW_PROVENANCE_ESTIMATE, NULL);
  m = bpw_blueprint_add_memory (bp, "hbm", BPW_MEMORY_DEVICE);
  bpw_blueprint_set_value (bp, &bp->memory[m].capacity, 80e9, BPW_PROVENANCE_ESTIMATE, NULL);
  bpw_blueprint_set_value (bp, &bp->memory[m].bandwidth, 2e12, BPW_PROVENANCE_ESTIMATE, NULL);
  return bp;
}

typedef struct
{
  BpwModelSpec spec;
  BpwScenario  scenario;
  BpwMapping   mapping;
} Fixture;

static void
fixture_init (Fixture *f, BpwTensorKind kind, gint level)
{
  bpw_model_spec_init_defaults (&f->spec);
  bpw_scenario_init_defaults (&f->scenario);
  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", &f->spec));
  f->spec.layers = 2;
  f->scenario.phase = BPW_WORKLOAD_TRAIN;
  f->scenario.global_batch = 2;
  f->scenario.micro_batch = 1;
  f->scenario.seq = 1024;
  f->mapping.parallel.tp = 1;
  bpw_mapping_init_defaults (&f->mapping);
  f->mapping.micro_batch = 1;
  f->mapping.placement[kind] = level;
}

static void
fixture_clear (Fixture *f)
{
  bpw_mapping_clear (&f->mapping);
  bpw_scenario_clear (&f->scenario);
  bpw_model_spec_clear (&f->spec);
}

static BpwPlan *
bind (const Fixture *f, const BpwBlueprint *bp, GError **error)
{
  BpwWorkGraph *graph;
  BpwDistWork *dist;

  graph = bpw_work_graph_new (&f->spec, &f->scenario, error);
  g_assert_nonnull (graph);
  dist = bpw_dist_work_new (graph, &f->mapping.parallel, error);
  g_assert_nonnull (dist);
  return bpw_plan_new (dist, bp, &f->mapping, error);
}

static void
test_missing_level (void)
{
  g_autoptr(BpwBlueprint) bp = sram_blueprint (1);
  g_autoptr(BpwEstimator) est = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  BpwEvaluation e;
  Fixture f;

  fixture_init (&f, BPW_TENSOR_ACTIVATION, 2);
  plan = bind (&f, bp, &error);
  g_assert_null (plan);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "activation"));
  g_assert_nonnull (strstr (error->message, "level 2"));
  g_assert_nonnull (strstr (error->message, "0 “sram”, 1 “hbm”"));
  g_clear_error (&error);

  est = bpw_estimator_new (&f.spec, &f.scenario, bp, &error);
  g_assert_no_error (error);
  g_assert_false (bpw_estimator_evaluate (est, &f.mapping, &e, NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "level 2"));
  fixture_clear (&f);
}

static void
test_on_chip_capacity (void)
{
  /* llama3-8b (two layers)'s stored activations are megabytes: far beyond one 256 KiB SRAM, well
   * within a million of them. */
  const double cores[] = { 1, 1e6 };

  for (guint i = 0; i < G_N_ELEMENTS (cores); i++)
    {
      g_autoptr(BpwBlueprint) bp = sram_blueprint (cores[i]);
      g_autoptr(BpwEstimator) est = NULL;
      g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwPlan) plan = NULL;
      g_autofree char *why = NULL;
      BpwEvaluation e;
      Fixture f;
      gboolean fits = i == 1;

      fixture_init (&f, BPW_TENSOR_ACTIVATION, 0);
      plan = bind (&f, bp, &error);
      g_assert_no_error (error);
      why = bpw_plan_reasons_to_string (plan);
      g_test_message ("%g cores: %s", cores[i], why);
      g_assert_cmpint (plan->legal, ==, fits);
      if (!fits)
        {
          g_assert_nonnull (strstr (why, "activation: "));
          g_assert_nonnull (strstr (why, "“sram” of 256.0"));
        }

      est = bpw_estimator_new (&f.spec, &f.scenario, bp, &error);
      g_assert_no_error (error);
      g_assert_true (bpw_estimator_evaluate (est, &f.mapping, &e, reasons, &error));
      g_assert_no_error (error);
      g_assert_cmpint (e.legal, ==, fits);
      g_assert_cmpuint (reasons->len, ==, fits ? 0 : 1);
      if (!fits)
        g_assert_nonnull (strstr (reasons->pdata[0], "“sram” of 256.0"));
      fixture_clear (&f);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Placement/missing-level", test_missing_level);
  g_test_add_func ("/bpw/core/Placement/on-chip-capacity", test_on_chip_capacity);
  return g_test_run ();
}
