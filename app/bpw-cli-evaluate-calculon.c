/* bpw-cli-evaluate-calculon.c — `bpw evaluate --cost-model calculon`: `calculon llm`, in C
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Calculon's three inputs (model, execution, system) priced by the port of its model:
 * the figures of its printed report, or with --json its 96 statistics and its 24 layers
 * (what `calculon llm MODEL EXECUTION SYSTEM stats.json -l` writes), equal to Calculon's
 * to the last bit.
 */
#define G_LOG_DOMAIN "bpw-cli-evaluate-calculon"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <stdio.h>

#include "bpw-calculon-model.h"
#include "bpw-cli-setup.h"
#include "bpw-workload-io.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static char *
bpw_cli_calculon_stats_to_text (const BpwCalculonStats     *s,
                                const BpwCalculonExecution *e,
                                const BpwCliSetup          *setup)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "Calculon's model (calculon-ai/calculon caa4b11): %s on %"
                          G_GINT64_FORMAT " x %s, TP %" G_GINT64_FORMAT " PP %"
                          G_GINT64_FORMAT " DP %" G_GINT64_FORMAT ", batch %" G_GINT64_FORMAT
                          ", micro-batch %" G_GINT64_FORMAT "\n", setup->spec.name,
                          e->num_procs, setup->blueprint->name, e->tensor_par, e->pipeline_par,
                          e->data_par, e->batch_size, e->microbatch_size);
  g_string_append (out, "Memory per processor (GiB)\n");
  g_string_append_printf (out, "  weights %.2f, activations %.2f, checkpoints %.2f, "
                          "activation grads %.2f, weight grads %.2f, optimizer %.2f\n",
                          s->weight_space / GIB, s->act_space / GIB,
                          s->act_checkpoint_size / GIB, s->act_grad_space / GIB,
                          s->weight_grad_space / GIB, s->optimizer_space / GIB);
  g_string_append_printf (out, "  tier 1 needs %.2f, tier 2 needs %.2f\n",
                          s->proc_mem_tier1_cap_req / GIB, s->proc_mem_tier2_cap_req / GIB);
  g_string_append (out, "Time per step (s)\n");
  g_string_append_printf (out, "  forward %.4f, backward %.4f, optimizer %.4f\n", s->fw_time,
                          s->bw_time, s->optim_step_time);
  g_string_append_printf (out, "  offload exposed %.4f (forward) + %.4f (backward), "
                          "recompute %.4f, recommunication %.4f, bubble %.4f\n",
                          s->fw_offload_exposed_time, s->bw_offload_exposed_time,
                          s->recompute_time, s->recomm_exposed_time, s->bubble_time);
  g_string_append_printf (out, "  TP exposed %.4f (%.4f on the link), PP %.4f, DP %.4f "
                          "(%.4f on the link)\n", s->tp_comm_exposed_time, s->tp_comm_link_time,
                          s->pp_comm_exposed_time, s->dp_comm_exposed_time,
                          s->dp_comm_link_time);
  g_string_append_printf (out, "  total %.4f\n", s->total_time);
  g_string_append_printf (out, "Efficiency: compute %.2f %%, system %.2f %%, total %.2f %%; "
                          "sample rate %.2f samples/s\n", 100 * s->compute_efficiency,
                          100 * s->system_efficiency, 100 * s->total_efficiency,
                          s->sample_rate);
  return g_string_free (out, FALSE);
}

int
bpw_cli_evaluate_calculon (const char          *model,
                           const char          *blueprint,
                           const BpwCliOptions *options,
                           gboolean             json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *reason = NULL;
  BpwCalculonLayerStats layers[BPW_CALCULON_MAX_LAYERS];
  BpwCalculonExecution exe;
  BpwCalculonSystem system;
  BpwCalculonStats stats;
  BpwCalculonApp app;
  BpwCliSetup setup;
  BpwScenario scenario;
  BpwParallel parallel = { 0 };
  guint n_layers = 0;
  int status = BPW_CLI_EXIT_OK;
  const char *unused;

  if (options->execution == NULL)
    return bpw_cli_usage ("evaluate", "evaluate --cost-model calculon: give Calculon's "
                          "execution with --execution FILE");
  /* Calculon's model reads the execution as it is; a changed copy says what it prices. */
  if (options->tp != BPW_CLI_UNSET || options->pp != BPW_CLI_UNSET
      || options->dp != BPW_CLI_UNSET || options->ep != BPW_CLI_UNSET || options->sp
      || options->cp != BPW_CLI_UNSET || options->cp_algorithm != NULL
      || options->zero != BPW_CLI_UNSET || options->interleave != BPW_CLI_UNSET
      || options->schedule != NULL || options->global_batch != BPW_CLI_UNSET
      || options->micro_batch != BPW_CLI_UNSET || options->recompute != NULL
      || options->dtype != NULL || options->phase != NULL || options->mapping != NULL)
    return bpw_cli_usage ("evaluate", "evaluate --cost-model calculon: the execution file "
                          "decides the parallelism, batch, recompute and datatype; change "
                          "them there");
  /* Its overlaps are the execution's tensor_par_overlap and data_par_overlap. */
  unused = options->tp_overlap != NULL ? "--tp-overlap"
           : options->dp_overlap ? "--dp-overlap"
           : options->no_dp_overlap ? "--no-dp-overlap"
           : bpw_cli_options_unused_by_calculon (options);
  if (unused != NULL)
    return bpw_cli_usage ("evaluate", "evaluate --cost-model calculon: %s has no place in "
                          "Calculon's model; the execution file decides what it prices "
                          "(overlaps: tensor_par_overlap, data_par_overlap)", unused);
  bpw_scenario_init_defaults (&scenario);
  if (!bpw_cli_setup_load_calculon (&setup, model, blueprint, options, &error)
      || !bpw_calculon_execution_load_full (options->execution, &scenario, &parallel, &exe,
                                            NULL, &error)
      || !bpw_calculon_app_from_spec (&setup.spec, setup.scenario.seq, &app, &error)
      || !bpw_calculon_system_from_blueprint (setup.blueprint, exe.datatype, &system, &error)
      || !bpw_calculon_execution_check (&app, &system, &exe, &error))
    {
      g_prefix_error (&error, "%s: ", options->execution);
      status = bpw_cli_report_error ("evaluate", error);
    }
  else if (!bpw_calculon_model_run (&app, &system, &exe, &stats, layers, &n_layers, &reason))
    {
      bpw_cli_print (stderr, "bpw: Calculon refuses the execution: %s\n", reason);
      status = BPW_CLI_EXIT_ILLEGAL_PLAN;
    }
  else
    {
      text = json ? bpw_calculon_stats_to_json (&stats, layers, n_layers)
                  : bpw_cli_calculon_stats_to_text (&stats, &exe, &setup);
      bpw_cli_print (stdout, "%s", text);
      if (json)
        fputc ('\n', stdout);
    }
  bpw_scenario_clear (&scenario);
  bpw_cli_setup_clear (&setup);
  return status;
}
