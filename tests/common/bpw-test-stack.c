/* bpw-test-stack.c — a small Llama bound with a software stack, and its transformations:
 * what the stack tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bpw-test-stack.h"

char *
bpw_test_stack_fixture_path (void)
{
  return g_test_build_filename (G_TEST_DIST, "data", "stack", "h200-sxm-141gb-pytorch-stack.json",
                                NULL);
}

BpwBlueprint *
bpw_test_stack_fixture (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = bpw_test_stack_fixture_path ();
  BpwBlueprint *bp = bpw_blueprint_load_file (path, NULL, &error);

  g_assert_no_error (error);
  return bp;
}

/* The bundled H200 as the hardware alone: its estimated default stack removed. */
BpwBlueprint *
bpw_test_stack_h200_bare (void)
{
  BpwBlueprint *h200 = bpw_blueprint_load_bundled ("h200-sxm-141gb", NULL);

  g_assert_nonnull (h200);
  memset (&h200->stack, 0, sizeof h200->stack);
  return h200;
}

/* The bundled H200 with @stack (JSON text of the "stack" member) in place of its own. */
BpwBlueprint *
bpw_test_stack_h200_with (const char *stack, GError **error)
{
  g_autoptr(BpwBlueprint) h200 = bpw_blueprint_load_bundled ("h200-sxm-141gb", NULL);
  g_autofree char *json = NULL;
  g_autofree char *with = NULL;
  char *end;

  memset (&h200->stack, 0, sizeof h200->stack);
  json = bpw_blueprint_to_json (h200);
  end = strrchr (json, '}');
  g_assert_nonnull (end);
  *end = '\0';
  with = g_strdup_printf ("%s, \"stack\": %s}", json, stack);
  return bpw_blueprint_load_data ("stack.json", with, -1, NULL, error);
}


void
bpw_test_stack_small_llama (BpwModelSpec *s)
{
  bpw_model_spec_init_defaults (s);
  g_free (s->name);
  s->name = g_strdup ("llama-small");
  s->layers = L;
  s->hidden = H;
  s->heads = A;
  s->kv_heads = KV;
  s->head_dim = D;
  s->ffn = F;
  s->vocab = V;
  s->max_positions = 4096;
  s->ffn_kind = BPW_FFN_SWIGLU;
  s->norm = BPW_NORM_RMSNORM;
  s->positions = BPW_POSITION_ROTARY;
  s->tied_embeddings = FALSE;
  s->qkv_bias = FALSE;
  s->linear_bias = FALSE;
  s->dropout = FALSE;
}

BpwPlan *
bpw_test_stack_bind_launch (const BpwModelSpec *spec, BpwWorkloadPhase phase, const BpwBlueprint *bp,
             guint fusion, BpwLaunchMode launch)
{
  g_autoptr(GError) error = NULL;
  BpwScenario scenario;
  BpwMapping mapping;
  BpwWorkGraph *graph;
  BpwDistWork *dist;
  BpwPlan *plan;

  bpw_scenario_init_defaults (&scenario);
  scenario.phase = phase;
  scenario.global_batch = B;
  scenario.micro_batch = B;
  scenario.seq = S;
  scenario.context = S;
  scenario.recompute = BPW_RECOMPUTE_NONE;
  scenario.launch = launch;
  bpw_mapping_init_defaults (&mapping);
  mapping.fusion = fusion;
  graph = bpw_work_graph_new (spec, &scenario, &error);
  g_assert_no_error (error);
  dist = bpw_dist_work_new (graph, &mapping.parallel, &error);
  g_assert_no_error (error);
  plan = bpw_plan_new (dist, bp, &mapping, &error);
  g_assert_no_error (error);
  bpw_mapping_clear (&mapping);
  bpw_scenario_clear (&scenario);
  return plan;
}

BpwPlan *
bpw_test_stack_bind (const BpwModelSpec *spec, BpwWorkloadPhase phase, const BpwBlueprint *bp, guint fusion)
{
  return bpw_test_stack_bind_launch (spec, phase, bp, fusion, BPW_LAUNCH_STACK);
}

const BpwTransformation *
bpw_test_stack_find (const BpwPlan *plan, const char *name)
{
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);

      if (strcmp (t->name, name) == 0)
        return t;
    }
  return NULL;
}

const BpwTransformation *
bpw_test_stack_get (const BpwPlan *plan, const char *name)
{
  const BpwTransformation *t = bpw_test_stack_find (plan, name);

  if (t == NULL)
    g_error ("no transformation \"%s\"", name);
  return t;
}
