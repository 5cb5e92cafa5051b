/* bpw-cli-evaluate.c — `bpw evaluate MODEL --blueprint BP [options] [--analytic] [--json]
 *                      [--trace FILE]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-evaluate"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <math.h>
#include <stdio.h>

#include "bpw-cli-options.h"
#include "bpw-cli-setup.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-evaluation.h"
#include "bpw-simulation.h"
#include "bpw-trace.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static const char * const breakdown_labels[BPW_N_BREAKDOWNS] = {
  "compute", "memory stall", "fixed latencies", "exposed communication", "pipeline bubble",
  "recompute", "optimizer",
};

static void
describe_time (GString *out, const char *label, double seconds, double total)
{
  g_string_append_printf (out, "  %-28s %12.4f s  %5.1f %%\n", label, seconds,
                          total > 0 ? 100.0 * seconds / total : 0.0);
}

/* What only the simulation knows: the analytic step it is compared with, the effects
 * that make up the difference, the bubble, the critical path and memory over time. */
static void
describe_simulation (GString *out, const BpwSimulation *sim, const BpwEvaluation *analytic)
{
  const BpwSimMemory *peak = &sim->memory[0];
  BpwSimDifference d;
  guint tasks = 0;

  bpw_simulation_difference (sim, analytic, &d);
  for (gint64 s = 1; s < sim->plan->dist->n_stages; s++)
    if (sim->memory[s].peak > peak->peak)
      peak = &sim->memory[s];
  for (guint i = 0; i < sim->critical_path->len; i++)
    tasks += bpw_simulation_event (sim, g_array_index (sim->critical_path, guint32, i))->kind ==
             BPW_SIM_EVENT_TASK;
  g_string_append (out, "Simulated schedule\n");
  g_string_append_printf (out, "  %-28s %12.4f s  (simulated %+.2f %%)\n", "analytic step time",
                          analytic->step_time_s, analytic->step_time_s > 0
                          ? 100.0 * d.difference_s / analytic->step_time_s : 0.0);
  g_string_append_printf (out, "  %-28s %+12.4f s  (pipeline fill, drain, unequal stages)\n",
                          "difference from bubble", d.bubble_s);
  g_string_append_printf (out, "  %-28s %+12.4f s  (DP, TP and pipeline overlap)\n",
                          "difference from overlap", d.overlap_s);
  g_string_append_printf (out, "  %-28s %+12.4f s  (shared links, processor usage)\n",
                          "difference from contention", d.contention_s);
  g_string_append_printf (out, "  %-28s %+12.4f s  (optimizer and DP tail of another stage)\n",
                          "difference from work", d.work_s);
  g_string_append_printf (out, "  %-28s %12.2f %%  (stage %" G_GINT64_FORMAT ")\n",
                          "bubble fraction", 100.0 * bpw_simulation_bubble_fraction (sim),
                          sim->reference_rank);
  g_string_append_printf (out, "  %-28s %12u events (%u tasks) of %u in the pipeline column\n",
                          "critical path", sim->critical_path->len, tasks,
                          (guint) sim->column_events);
  g_string_append_printf (out, "  %-28s %12.2f GiB (the plan's bound %.2f GiB, %+.2f GiB)\n",
                          "simulated peak memory", peak->peak / GIB, peak->analytic / GIB,
                          (peak->peak - peak->analytic) / GIB);
}

static char *
evaluation_to_text (const BpwEvaluation *e, const BpwPlan *plan, const BpwCliSetup *setup,
                    const BpwSimulation *sim, const BpwEvaluation *analytic)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%-30s %s on %s, %" G_GINT64_FORMAT " devices (%s)\n",
                          "Evaluation", setup->spec.name, setup->blueprint->name,
                          bpw_parallel_devices (&setup->parallel),
                          sim != NULL ? "simulated schedule"
                          : plan != NULL ? "bound plan" : "analytic estimate");
  g_string_append_printf (out, "%-30s %.4f s\n", "Step time", e->step_time_s);
  for (guint b = 0; b < BPW_N_BREAKDOWNS; b++)
    describe_time (out, breakdown_labels[b], e->breakdown_s[b], e->step_time_s);
  g_string_append_printf (out, "%-30s %.2f %%   (HFU %.2f %%)\n", "MFU", 100.0 * e->mfu,
                          100.0 * e->hfu);
  g_string_append (out, "  (model FLOPs: matmuls of forward and backward, full attention "
                        "matrix, logits, no recompute;\n   over step time × devices × dense "
                        "matrix peak)\n");
  g_string_append_printf (out, "%-30s %.2f GiB of %.2f GiB per device (stage %" G_GINT64_FORMAT
                          ", %s)\n", "Peak memory", e->peak_bytes / GIB,
                          e->capacity_bytes / GIB, e->peak_stage,
                          sim != NULL ? "simulated" : "a safe bound");
  g_string_append_printf (out, "%-30s %s\n", "Bottleneck", bpw_bottleneck_to_string (e->bottleneck));
  g_string_append (out, "By layer type                    share     MFU   stall  bottleneck\n");
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    {
      double time = bpw_evaluation_layer_time (e, b);
      g_autofree char *stall = NULL;

      if (time <= 0)
        continue;
      stall = b < BPW_N_LAYER_TYPES && !isnan (e->stall_fraction[b])
              ? g_strdup_printf ("%5.1f %%", 100.0 * e->stall_fraction[b]) : g_strdup ("      -");
      g_string_append_printf (out, "  %-28s %5.1f %% %5.1f %% %s  %s\n",
                              bpw_layer_bucket_to_string (b), 100.0 * time / e->step_time_s,
                              100.0 * e->layer_mfu[b], stall,
                              bpw_bottleneck_to_string (bpw_evaluation_layer_bottleneck (e, b)));
    }
  g_string_append (out, "  (time of each layer type's operations on every device; other: "
                        "bubble, pipeline\n   sends, DP traffic; MFU of a layer type: its "
                        "model FLOPs over its time)\n");
  if (!isnan (e->ttft_s))
    g_string_append_printf (out, "%-30s %.4f s\n", "Time to first token", e->ttft_s);
  if (!isnan (e->tpot_s))
    g_string_append_printf (out, "%-30s %.6f s\n", "Time per output token", e->tpot_s);
  g_string_append_printf (out, "%-30s %.4g tokens/s\n", "Throughput", e->tokens_per_s);
  if (!isnan (e->energy_j))
    g_string_append_printf (out, "%-30s %.4g J per step, %.0f W per device, %.4g tokens/J\n",
                            "Energy", e->energy_j, e->average_power_w, e->tokens_per_joule);
  if (plan != NULL && plan->transformations->len > 0)
    {
      g_string_append (out, "Transformations (whole job, per step)\n");
      for (guint i = 0; i < plan->transformations->len; i++)
        {
          const BpwTransformation *t = &g_array_index (plan->transformations,
                                                       BpwTransformation, i);

          g_string_append_printf (out, "  %-28s %+.4g FLOP  %+.4g B  ×%.4g", t->name,
                                  t->flops, t->bytes, t->count);
          if (t->implementation)
            g_string_append_printf (out, "  %+.4g device-s (software stack)", t->time_s);
          g_string_append_c (out, '\n');
        }
    }
  if (sim != NULL)
    describe_simulation (out, sim, analytic);
  if (!e->legal)
    g_string_append (out, "ILLEGAL PLAN (see the reasons on stderr)\n");
  return g_string_free (out, FALSE);
}

typedef struct
{
  gboolean    analytic;
  gboolean    json;
  gboolean    all_ranks;
  gboolean    concurrent_engines;
  const char *trace;
} EvaluateFlags;

static int
evaluate_run (const char *model, const char *blueprint, const BpwCliOptions *options,
              const EvaluateFlags *flags)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwSimulation) sim = NULL;
  BpwEvaluation bound;
  g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;
  BpwCliSetup setup;
  BpwEvaluation eval;
  int status = BPW_CLI_EXIT_OK;

  if (!bpw_cli_setup_load (&setup, model, blueprint, options, &error))
    {
      status = bpw_cli_report_error ("evaluate", error);
      bpw_cli_setup_clear (&setup);
      return status;
    }

  if (flags->analytic)
    {
      g_autoptr(BpwEstimator) est = bpw_estimator_new (&setup.spec, &setup.scenario,
                                                       setup.blueprint, &error);

      if (est == NULL || !bpw_estimator_evaluate (est, &setup.mapping, &eval, reasons, &error))
        status = bpw_cli_report_error ("evaluate", error);
    }
  else
    {
      /* Bind, estimate the step in closed form on the plan, then simulate it. */
      BpwSimOptions sim_options = { .all_ranks = flags->all_ranks,
                                    .concurrent_engines = flags->concurrent_engines };

      plan = bpw_cli_setup_bind (&setup, &error);
      if (plan != NULL)
        {
          bpw_evaluation_from_plan (plan, &bound);
          sim = bpw_simulation_new (plan, &sim_options, &error);
        }
      if (sim == NULL)
        status = bpw_cli_report_error ("evaluate", error);
      else
        {
          bpw_simulation_evaluation (sim, &bound, &eval);
          for (guint i = 0; i < plan->reasons->len; i++)
            g_ptr_array_add (reasons, g_strdup (plan->reasons->pdata[i]));
          if (flags->trace != NULL && !bpw_trace_write (sim, NULL, flags->trace, &error))
            status = bpw_cli_report_error ("evaluate", error);
        }
    }

  if (status == BPW_CLI_EXIT_OK)
    {
      if (sim != NULL)
        text = flags->json ? bpw_simulation_evaluation_to_json (sim, &eval, &bound, reasons)
                           : evaluation_to_text (&eval, plan, &setup, sim, &bound);
      else
        text = flags->json ? bpw_evaluation_to_json (&eval, plan, reasons)
                           : evaluation_to_text (&eval, plan, &setup, NULL, NULL);
      bpw_cli_print (stdout, "%s", text);
      if (!eval.legal)
        {
          for (guint i = 0; i < reasons->len; i++)
            bpw_cli_print (stderr, "bpw: illegal plan: %s\n",
                           (const char *) reasons->pdata[i]);
          status = BPW_CLI_EXIT_ILLEGAL_PLAN;
        }
    }
  bpw_cli_setup_clear (&setup);
  return status;
}

int
bpw_cli_evaluate (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  BpwCliOptions options;
  g_autofree char *blueprint = NULL;
  g_autofree char *trace = NULL;
  g_autofree char *cost_model = NULL;
  EvaluateFlags flags = { 0 };
  int status;
  const GOptionEntry entries[] = {
    { "blueprint", 0, 0, G_OPTION_ARG_STRING, &blueprint,
      "The candidate accelerator (required)", "BP" },
    { "analytic", 0, 0, G_OPTION_ARG_NONE, &flags.analytic,
      "The closed-form estimate that search uses (no plan is built, nothing simulated)", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &flags.json,
      "Print the evaluation as JSON (keys of the bpw evaluate contract)", NULL },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &trace,
      "Write the simulated step as a Chrome trace (Perfetto, chrome://tracing)", "FILE" },
    { "all-ranks", 0, 0, G_OPTION_ARG_NONE, &flags.all_ranks,
      "Expand the simulated pipeline column to every rank (the trace shows them all)", NULL },
    { "concurrent-engines", 0, 0, G_OPTION_ARG_NONE, &flags.concurrent_engines,
      "Let matrix and vector tasks overlap where dependencies allow (default: one stream)",
      NULL },
    { "cost-model", 0, 0, G_OPTION_ARG_STRING, &cost_model,
      "workbench (default) or calculon: Calculon's own model on --execution FILE (its "
      "statistics, its layers with --json)", "MODEL" },
    G_OPTION_ENTRY_NULL
  };

  bpw_cli_options_init (&options);
  g_set_prgname ("bpw evaluate");
  context = g_option_context_new ("MODEL --blueprint BP");
  g_option_context_set_summary (context,
                                "Binds one scenario to a blueprint through a mapping, checks "
                                "legality and simulates\nthe step: time and its breakdown, MFU, "
                                "peak memory over time, stalls, bottleneck,\nenergy, and how "
                                "it differs from the closed-form estimate (--analytic).\nBP is "
                                "a bundled name, a blueprint file or a Calculon system file.");
  description = g_strconcat (bpw_cli_options_defaults_help (), "\n",
                             bpw_cli_options_mapping_help (), NULL);
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_options_add (&options, context);
  bpw_cli_options_add_mapping (&options, context);

  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("evaluate", error);
  else if (argc < 2)
    status = bpw_cli_usage ("evaluate", "evaluate: missing MODEL");
  else if (argc > 2)
    status = bpw_cli_usage ("evaluate", "evaluate: expected one MODEL, got also '%s'", argv[2]);
  else if (blueprint == NULL)
    status = bpw_cli_usage ("evaluate", "evaluate: missing --blueprint BP");
  else if (cost_model != NULL && g_strcmp0 (cost_model, "calculon") != 0
           && g_strcmp0 (cost_model, "workbench") != 0)
    status = bpw_cli_usage ("evaluate", "--cost-model: expected workbench or calculon, got "
                            "'%s'", cost_model);
  else if (g_strcmp0 (cost_model, "calculon") == 0)
    status = flags.analytic || trace != NULL || flags.all_ranks || flags.concurrent_engines
             ? bpw_cli_usage ("evaluate", "evaluate --cost-model calculon: Calculon's model "
                              "is analytic; --analytic, --trace, --all-ranks and "
                              "--concurrent-engines do not apply")
             : bpw_cli_evaluate_calculon (argv[1], blueprint, &options, flags.json);
  else if (flags.analytic && (trace != NULL || flags.all_ranks || flags.concurrent_engines))
    status = bpw_cli_usage ("evaluate", "evaluate: --trace, --all-ranks and --concurrent-engines "
                            "need the simulation; leave out --analytic");
  else
    {
      flags.trace = trace;
      status = evaluate_run (argv[1], blueprint, &options, &flags);
    }

  bpw_cli_options_clear (&options);
  return status;
}
