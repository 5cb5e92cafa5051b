/* bpw-cli-setup.c — what the binding subcommands load
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-setup"

#include "config.h"

#include "bpw-cli-setup.h"
#include "bpw-cli-print.h"

#include "bpw-blueprint-io.h"
#include "bpw-dist-work.h"
#include "bpw-work-graph.h"
#include "bpw-workload-io.h"

static void
print_warnings (GPtrArray *warnings)
{
  /* Unknown fields do not stop the run, but they are usually typos. */
  for (guint i = 0; i < warnings->len; i++)
    bpw_cli_print (stderr, "bpw: warning: %s\n",
                   (const char *) g_ptr_array_index (warnings, i));
  g_ptr_array_set_size (warnings, 0);
}

/* With @workbench FALSE it stops once the blueprint is read: Calculon's model prices the
 * execution by its own rules, which the workbench's mapping and validation need not share. */
static gboolean
bpw_cli_setup_load_for (BpwCliSetup         *setup,
                        const char          *model,
                        const char          *blueprint,
                        const BpwCliOptions *options,
                        gboolean             workbench,
                        GError             **error)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  BpwCalculonExecution exec;
  BpwScenario hint;
  gboolean ok;

  bpw_model_spec_init_defaults (&setup->spec);
  bpw_scenario_init_defaults (&setup->scenario);
  bpw_parallel_init_defaults (&setup->parallel);
  bpw_mapping_init_defaults (&setup->mapping);
  setup->blueprint = NULL;
  bpw_scenario_init_defaults (&hint);
  /* Fields the model file does not set stay 0 and are not hints. */
  hint.seq = 0;
  hint.global_batch = 0;
  hint.micro_batch = 0;

  ok = bpw_workload_load_with_warnings (model, bpw_cli_options_vocab (options), &setup->spec,
                                        &hint, warnings, error) &&
       bpw_cli_options_resolve (options, &setup->spec, &hint, &setup->scenario,
                                &setup->parallel, warnings, error);
  bpw_scenario_clear (&hint);
  print_warnings (warnings);
  if (!ok)
    return FALSE;

  /* A Calculon execution also says what the model computes in (datatype, multi-query). */
  if (options->execution != NULL)
    {
      BpwScenario s;
      BpwParallel p;

      bpw_scenario_init_defaults (&s);
      bpw_parallel_init_defaults (&p);
      ok = bpw_calculon_execution_load_full (options->execution, &s, &p, &exec, NULL, error);
      if (ok)
        bpw_calculon_execution_apply_to_model (&exec, setup->scenario.dtype, &setup->spec);
      bpw_scenario_clear (&s);
      if (!ok)
        return FALSE;
    }

  setup->blueprint = bpw_blueprint_load (blueprint, warnings, error);
  if (setup->blueprint == NULL)
    return FALSE;
  /* Read before the blueprint was known: what the mapping names must exist in it. */
  if (options->mapping != NULL
      && !bpw_mapping_check_file_refs (options->mapping, setup->blueprint, error))
    return FALSE;
  if (!workbench)
    {
      print_warnings (warnings);
      return TRUE;
    }
  ok = bpw_cli_options_resolve_mapping (options, &setup->scenario, &setup->parallel,
                                        options->execution != NULL ? &exec : NULL,
                                        setup->blueprint, &setup->mapping, warnings, error);
  print_warnings (warnings);
  return ok && bpw_scenario_validate (&setup->scenario, &setup->parallel, &setup->spec, error);
}

gboolean
bpw_cli_setup_load (BpwCliSetup         *setup,
                    const char          *model,
                    const char          *blueprint,
                    const BpwCliOptions *options,
                    GError             **error)
{
  return bpw_cli_setup_load_for (setup, model, blueprint, options, TRUE, error);
}

gboolean
bpw_cli_setup_load_calculon (BpwCliSetup         *setup,
                             const char          *model,
                             const char          *blueprint,
                             const BpwCliOptions *options,
                             GError             **error)
{
  return bpw_cli_setup_load_for (setup, model, blueprint, options, FALSE, error);
}

BpwPlan *
bpw_cli_setup_bind (BpwCliSetup *setup,
                    GError     **error)
{
  g_autoptr(BpwWorkGraph) graph = bpw_work_graph_new (&setup->spec, &setup->scenario, error);
  BpwDistWork *dist;

  if (graph == NULL)
    return NULL;
  dist = bpw_dist_work_new (g_steal_pointer (&graph), &setup->parallel, error);
  if (dist == NULL)
    return NULL;
  return bpw_plan_new (dist, setup->blueprint, &setup->mapping, error);
}

void
bpw_cli_setup_clear (BpwCliSetup *setup)
{
  bpw_model_spec_clear (&setup->spec);
  bpw_scenario_clear (&setup->scenario);
  bpw_mapping_clear (&setup->mapping);
  g_clear_pointer (&setup->blueprint, bpw_blueprint_free);
}
