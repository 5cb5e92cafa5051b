/* bpw-cli-profile.c — `bpw profile import|correlate|calibrate|report`: measured profiles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-profile"

#include "config.h"

#include "bpw-cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bpw-cli-print.h"
#include "bpw-cli-profile.h"
#include "bpw-json-writer.h"
#include "bpw-work-graph.h"

#define TOP_OPERATIONS 25

static const char *profile_help =
  "Subcommands:\n"
  "  import TRACE|PACK...     what a trace holds: format, metadata, devices, work items;\n"
  "                           what a measurement pack holds: device, stack, microbenchmarks,\n"
  "                           runs\n"
  "  correlate MODEL --blueprint BP --profile TRACE [options]\n"
  "                           measured work matched with the simulated step, by lineage\n"
  "  calibrate MODEL --blueprint BP --profile TRACE [--profile TRACE...] --output FILE\n"
  "                           the blueprint's efficiency tables fitted to the profiles\n"
  "  calibrate --pack PACK --blueprint BP --output FILE [--name NAME]\n"
  "                           BP calibrated for the pack's device and software stack\n"
  "  report [MODEL --blueprint BP --profile TRACE... [--calibrated FILE]] [--megatron]\n"
  "                           predicted against measured, per operation and end to end\n"
  "  report --pack PACK --blueprint BP [--calibrated FILE]\n"
  "                           the pack's runs before and after calibration, leave-one-out\n"
  "\n"
  "TRACE is a Chrome/Perfetto trace JSON (\"traceEvents\" or a bare array of events), a\n"
  "PyTorch profiler trace (kineto, or the autograd profiler's export) or a trace written by\n"
  "`bpw evaluate --trace`; the format is recognised by content. MODEL, BP and the scenario,\n"
  "parallel and mapping options are those of `bpw evaluate` and must describe the run the\n"
  "trace measured. 'bpw profile SUBCOMMAND --help' lists the options.\n";

void
bpw_cli_profile_args_init (BpwCliProfileArgs *args)
{
  *args = (BpwCliProfileArgs) { .device = -1, .rank = -1 };
  bpw_cli_options_init (&args->options);
}

void
bpw_cli_profile_args_clear (BpwCliProfileArgs *args)
{
  bpw_cli_options_clear (&args->options);
  g_clear_pointer (&args->blueprint, g_free);
  g_clear_pointer (&args->profiles, g_strfreev);
}

void
bpw_cli_profile_args_add (BpwCliProfileArgs *args,
                          GOptionContext    *context)
{
  const GOptionEntry entries[] = {
    { "blueprint", 0, 0, G_OPTION_ARG_STRING, &args->blueprint,
      "The blueprint of the modelled step (required)", "BP" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME_ARRAY, &args->profiles,
      "A measured trace (repeatable)", "TRACE" },
    { "device", 0, 0, G_OPTION_ARG_INT, &args->device,
      "The profile's device to correlate (default: every rank of a bpw trace, else the device "
      "with the most measured time)", "N" },
    { "rank", 0, 0, G_OPTION_ARG_INT, &args->rank,
      "The simulated rank to correlate it with (default: the trace's own for bpw traces, else "
      "the reference rank)", "R" },
    { "ignore-lineage", 0, 0, G_OPTION_ARG_NONE, &args->ignore_lineage,
      "Align bpw traces by name and order, ignoring their lineage ids", NULL },
    { "concurrent-engines", 0, 0, G_OPTION_ARG_NONE, &args->concurrent_engines,
      "Simulate with matrix and vector tasks overlapping (as bpw evaluate)", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &args->json, "Print JSON", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *description = g_strconcat (bpw_cli_options_defaults_help (), "\n",
                                              bpw_cli_options_mapping_help (), NULL);

  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_options_add (&args->options, context);
  bpw_cli_options_add_mapping (&args->options, context);
  g_option_context_set_description (context, description);
}

gboolean
bpw_cli_profile_run (BpwCliProfileRun        *run,
                     const char              *model,
                     const char              *blueprint,
                     const BpwCliProfileArgs *args,
                     GError                 **error)
{
  BpwSimOptions sim_options = { .concurrent_engines = args->concurrent_engines };
  BpwCorrelateOptions corr_options = { .device = args->device, .rank = args->rank,
                                       .ignore_lineage = args->ignore_lineage };

  *run = (BpwCliProfileRun) { 0 };
  run->profiles = g_ptr_array_new_with_free_func ((GDestroyNotify) bpw_profile_free);
  run->correlations = g_ptr_array_new_with_free_func ((GDestroyNotify) bpw_correlation_free);
  run->loaded = TRUE;
  if (!bpw_cli_setup_load (&run->setup, model, blueprint != NULL ? blueprint : args->blueprint,
                           &args->options, error))
    return FALSE;
  run->plan = bpw_cli_setup_bind (&run->setup, error);
  if (run->plan == NULL)
    return FALSE;
  run->sim = bpw_simulation_new (run->plan, &sim_options, error);
  if (run->sim == NULL)
    return FALSE;
  for (guint i = 0; args->profiles != NULL && args->profiles[i] != NULL; i++)
    {
      BpwProfile *p = bpw_profile_load_file (args->profiles[i], error);
      BpwCorrelation *c;

      if (p == NULL)
        return FALSE;
      g_ptr_array_add (run->profiles, p);
      for (guint w = 0; w < p->warnings->len; w++)
        bpw_cli_print (stderr, "bpw: warning: %s: %s\n", p->filename,
                       (const char *) g_ptr_array_index (p->warnings, w));
      c = bpw_correlate (run->sim, p, &corr_options, error);
      if (c == NULL)
        return FALSE;
      g_ptr_array_add (run->correlations, c);
    }
  return TRUE;
}

void
bpw_cli_profile_run_clear (BpwCliProfileRun *run)
{
  /* Correlations borrow the simulation, which borrows the plan. */
  g_clear_pointer (&run->correlations, g_ptr_array_unref);
  g_clear_pointer (&run->profiles, g_ptr_array_unref);
  g_clear_pointer (&run->sim, bpw_simulation_free);
  g_clear_pointer (&run->plan, bpw_plan_free);
  if (run->loaded)
    bpw_cli_setup_clear (&run->setup);
  run->loaded = FALSE;
}

/* ---- import ---- */

static void
import_text (GString *out, const BpwProfile *p)
{
  g_autofree char *meta = bpw_profile_meta_describe (&p->meta);
  guint counts[BPW_N_KERNEL_KINDS] = { 0 };
  double times[BPW_N_KERNEL_KINDS] = { 0 };

  for (guint i = 0; i < p->items->len; i++)
    {
      counts[bpw_profile_item (p, i)->kind]++;
      times[bpw_profile_item (p, i)->kind] += bpw_profile_item (p, i)->duration;
    }
  g_string_append_printf (out, "%s: %s trace, %u slices on %u lanes (%u other events skipped), "
                          "%.6f s\n  measured on: %s\n", p->filename,
                          bpw_profile_format_to_string (p->format), p->events->len,
                          p->lanes->len, p->ignored, p->span_s, meta);
  for (guint d = 0; d < p->devices->len; d++)
    {
      guint first, n;

      bpw_profile_device_items (p, d, &first, &n);
      g_string_append_printf (out, "  device %u, %s: %u work items, %.6f s of work\n", d,
                              (const char *) g_ptr_array_index (p->devices, d), n,
                              bpw_profile_device_time (p, d));
    }
  for (guint k = 0; k < BPW_N_KERNEL_KINDS; k++)
    if (counts[k] > 0)
      g_string_append_printf (out, "    %-16s %6u items %14.2f µs\n",
                              bpw_kernel_kind_to_string (k), counts[k], times[k] * 1e6);
  for (guint w = 0; w < p->warnings->len; w++)
    g_string_append_printf (out, "  warning: %s\n", (const char *) g_ptr_array_index (p->warnings,
                                                                                   w));
}

static void
import_json (BpwJsonWriter *w, const BpwProfile *p)
{
  const BpwProfileMeta *m = &p->meta;
  const char *fields[] = { "hardware", m->hardware, "driver", m->driver, "runtime", m->runtime,
                           "framework", m->framework, "date", m->date };

  bpw_json_writer_begin_object (w, NULL);
  bpw_json_writer_string (w, "file", p->filename);
  bpw_json_writer_string (w, "format", bpw_profile_format_to_string (p->format));
  bpw_json_writer_begin_object (w, "metadata");
  for (guint i = 0; i < G_N_ELEMENTS (fields); i += 2)
    if (fields[i + 1] != NULL)
      bpw_json_writer_string (w, fields[i], fields[i + 1]);
    else
      bpw_json_writer_null (w, fields[i]);
  bpw_json_writer_end_object (w);
  bpw_json_writer_int (w, "events", p->events->len);
  bpw_json_writer_int (w, "lanes", p->lanes->len);
  bpw_json_writer_int (w, "ignored_events", p->ignored);
  bpw_json_writer_double (w, "span_s", p->span_s);
  bpw_json_writer_begin_array (w, "devices");
  for (guint d = 0; d < p->devices->len; d++)
    {
      guint first, n;

      bpw_profile_device_items (p, d, &first, &n);
      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "name", g_ptr_array_index (p->devices, d));
      bpw_json_writer_int (w, "items", n);
      bpw_json_writer_double (w, "work_s", bpw_profile_device_time (p, d));
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "items");
  for (guint i = 0; i < p->items->len; i++)
    {
      const BpwProfileItem *it = bpw_profile_item (p, i);
      g_autofree char *name = bpw_profile_item_name (p, it);

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "name", name);
      bpw_json_writer_string (w, "kind", bpw_kernel_kind_to_string (it->kind));
      bpw_json_writer_int (w, "device", it->device);
      bpw_json_writer_double (w, "start_s", it->start);
      bpw_json_writer_double (w, "duration_s", it->duration);
      bpw_json_writer_int (w, "kernels", it->n_kernels);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "warnings");
  for (guint i = 0; i < p->warnings->len; i++)
    bpw_json_writer_string (w, NULL, g_ptr_array_index (p->warnings, i));
  bpw_json_writer_end_array (w);
  bpw_json_writer_end_object (w);
}

static int
profile_import (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE|PACK...");
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean json = FALSE;
  BpwJsonWriter w;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON, with every work item", NULL },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("bpw profile import");
  g_option_context_set_summary (context, "Loads traces and says what they hold: the format, "
                                "where they were taken, the devices,\nand the work items "
                                "correlation will match, by kind.\nA measurement pack (format "
                                "bpw-measurement-pack): its device, software stack,\n"
                                "microbenchmarks and traced runs with their step times.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    return bpw_cli_report_error ("profile import", error);
  if (argc < 2)
    return bpw_cli_usage ("profile import", "profile import: missing TRACE");
  if (json)
    {
      bpw_json_writer_init (&w, TRUE);
      bpw_json_writer_begin_object (&w, NULL);
      bpw_json_writer_begin_array (&w, "profiles");
    }
  for (int i = 1; i < argc; i++)
    {
      g_autoptr(BpwProfile) p = NULL;

      if (bpw_cli_profile_is_pack (argv[i]))
        {
          g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
          g_autoptr(BpwMeasurementPack) pack = bpw_measurement_pack_load_file (argv[i], warnings,
                                                                               &error);

          if (pack == NULL)
            {
              if (json)
                g_free (bpw_json_writer_finish (&w));
              return bpw_cli_report_error ("profile import", error);
            }
          for (guint k = 0; k < warnings->len; k++)
            g_printerr ("bpw: warning: %s\n", (const char *) g_ptr_array_index (warnings, k));
          if (json)
            bpw_cli_profile_pack_json (&w, pack);
          else
            bpw_cli_profile_pack_text (out, pack);
          continue;
        }
      p = bpw_profile_load_file (argv[i], &error);
      if (p == NULL)
        {
          if (json)
            g_free (bpw_json_writer_finish (&w));
          return bpw_cli_report_error ("profile import", error);
        }
      if (json)
        import_json (&w, p);
      else
        import_text (out, p);
    }
  if (json)
    {
      g_autofree char *text = NULL;

      bpw_json_writer_end_array (&w);
      bpw_json_writer_end_object (&w);
      text = bpw_json_writer_finish (&w);
      bpw_cli_print (stdout, "%s", text);
    }
  else
    bpw_cli_print (stdout, "%s", out->str);
  return BPW_CLI_EXIT_OK;
}

/* ---- correlate ---- */

static void
correlate_text (GString *out, const BpwCorrelation *corr)
{
  const BpwCorrelationStats *s = &corr->stats;
  g_autoptr(GArray) ops = bpw_correlation_by_operation (corr);
  g_autoptr(GHashTable) extra = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *meta = bpw_profile_meta_describe (&corr->profile->meta);

  g_string_append_printf (out, "%s (%s) against %s on %s\n  measured on: %s\n",
                          corr->profile->filename, bpw_profile_format_to_string (
                            corr->profile->format), corr->sim->plan->dist->graph->spec.name,
                          corr->sim->plan->blueprint->name, meta);
  for (guint i = 0; i < corr->pairs->len; i++)
    {
      const BpwCorrelationPair *p = &g_array_index (corr->pairs, BpwCorrelationPair, i);

      g_string_append_printf (out, "  %s ↔ simulated rank %u: step %.6f s measured, %.6f s "
                              "predicted\n", (const char *) g_ptr_array_index (
                                corr->profile->devices, p->device), p->rank, p->measured_span_s,
                              p->predicted_span_s);
    }
  g_string_append_printf (out, "  modelled operations: %u, matched %u, covered by a matched "
                          "kernel %u, missing %u (%.1f %% correlated)\n", s->modelled_ops,
                          s->matched_ops, s->covered_ops, s->missing_ops, s->modelled_ops > 0
                          ? 100.0 * (s->matched_ops + s->covered_ops) / s->modelled_ops : 0);
  g_string_append_printf (out, "  measured work items: %u, matched %u, extra %u of which "
                          "unexplained %u (%.1f %% correlated); %u events do no work\n",
                          s->measured_items, s->matched_items, s->extra_items,
                          s->unexplained_items, s->measured_items > 0
                          ? 100.0 * s->matched_items / s->measured_items : 0, s->no_work_events);
  g_string_append_printf (out, "  matched time: predicted %.6f s, measured %.6f s; per operation "
                          "mean |error| %.1f %%, max %.1f %%\n\n", s->matched_predicted_s,
                          s->matched_measured_s, 100.0 * s->mean_abs_error,
                          100.0 * s->max_abs_error);
  g_string_append_printf (out, "  %-40s %5s %-8s %3s %11s %11s %8s %11s %11s\n", "operation",
                          "layer", "class", "n", "pred. µs", "meas. µs", "error", "pred. GF/s",
                          "ach. GF/s");
  for (guint i = 0; i < ops->len && i < TOP_OPERATIONS; i++)
    {
      const BpwCorrelationOp *op = &g_array_index (ops, BpwCorrelationOp, i);
      g_autofree char *name = bpw_correlation_row_name (corr, bpw_correlation_row (corr,
                                                                                  op->first_row));
      g_autofree char *layer = op->layer >= 0 ? g_strdup_printf ("%d", op->layer)
                               : g_strdup (op->layer == BPW_LAYER_BEFORE_BLOCKS ? "in" : "out");

      if (strlen (name) > 40)
        strcpy (name + 37, "...");

      g_string_append_printf (out, "  %-40s %5s %-8s %3u %11.2f %11.2f %+7.1f%% %11.3f %11.3f\n",
                              name, layer, bpw_op_class_to_string (op->op_class), op->rows,
                              op->predicted_s * 1e6, op->measured_s * 1e6, op->measured_s > 0
                              ? 100.0 * (op->predicted_s / op->measured_s - 1.0) : 0,
                              op->predicted_s > 0 ? op->flops / op->predicted_s / 1e9 : 0,
                              op->measured_s > 0 ? op->flops / op->measured_s / 1e9 : 0);
    }
  if (ops->len > TOP_OPERATIONS)
    g_string_append_printf (out, "  … %u more operations (--json lists all)\n",
                            ops->len - TOP_OPERATIONS);
  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (corr, i);
      g_autofree char *name = NULL;

      if (r->status == BPW_ROW_MISSING)
        {
          name = bpw_correlation_row_name (corr, r);
          g_string_append_printf (out, "  missing: %s (%.2f µs predicted): %s\n", name,
                                  r->predicted_s * 1e6, r->reason);
        }
      else if (r->status == BPW_ROW_EXTRA)
        {
          name = bpw_correlation_row_name (corr, r);
          g_string_append_printf (out, "  extra: %s (%.2f µs): %s\n", name, r->measured_s * 1e6,
                                  r->reason);
        }
    }
}

static int
profile_correlate (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("MODEL --blueprint BP --profile TRACE");
  g_autoptr(GError) error = NULL;
  BpwCliProfileArgs args;
  BpwCliProfileRun run = { 0 };
  int status = BPW_CLI_EXIT_OK;

  bpw_cli_profile_args_init (&args);
  g_set_prgname ("bpw profile correlate");
  g_option_context_set_summary (context,
    "Simulates MODEL on BP and matches the measured work of each TRACE with the modelled\n"
    "operations, by lineage id (bpw traces) or by kind, shape and order (any other):\n"
    "matched, covered (computed by a matched kernel), missing and extra work, and per\n"
    "operation the predicted and measured time and FLOP/s.");
  bpw_cli_profile_args_add (&args, context);
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("profile correlate", error);
  else if (argc != 2)
    status = bpw_cli_usage ("profile correlate", "profile correlate: expected one MODEL");
  else if (args.blueprint == NULL || args.profiles == NULL)
    status = bpw_cli_usage ("profile correlate",
                            "profile correlate: missing --blueprint BP or --profile TRACE");
  else if (!bpw_cli_profile_run (&run, argv[1], NULL, &args, &error))
    status = bpw_cli_report_error ("profile correlate", error);
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      for (guint i = 0; i < run.correlations->len; i++)
        {
          const BpwCorrelation *corr = g_ptr_array_index (run.correlations, i);

          if (args.json)
            {
              g_autofree char *text = bpw_correlation_to_json (corr);

              g_string_append (out, text);
            }
          else
            correlate_text (out, corr);
          if (i + 1 < run.correlations->len)
            g_string_append_c (out, '\n');
        }
      bpw_cli_print (stdout, "%s", out->str);
    }
  bpw_cli_profile_run_clear (&run);
  bpw_cli_profile_args_clear (&args);
  return status;
}

int
bpw_cli_profile (int    argc,
                 char **argv)
{
  static const struct { const char *name; int (*run) (int, char **); } subcommands[] = {
    { "import", profile_import }, { "correlate", profile_correlate },
    { "calibrate", bpw_cli_profile_calibrate }, { "report", bpw_cli_profile_report },
  };

  if (argc < 2)
    return bpw_cli_usage ("profile", "profile: missing subcommand (import, correlate, "
                          "calibrate or report)");
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
      strcmp (argv[1], "help") == 0)
    {
      g_print ("Usage:\n  bpw profile SUBCOMMAND [OPTION…]\n\n%s", profile_help);
      return BPW_CLI_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (subcommands); i++)
    if (strcmp (argv[1], subcommands[i].name) == 0)
      return subcommands[i].run (argc - 1, argv + 1);
  return bpw_cli_usage ("profile", "profile: unknown subcommand '%s'", argv[1]);
}
