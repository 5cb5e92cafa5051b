/* bpw-cli-profile-calibrate.c — `bpw profile calibrate` and `bpw profile report`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-profile-calibrate"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <stdio.h>

#include "bpw-blueprint-io.h"
#include "bpw-cli-profile.h"
#include "bpw-validation-report.h"

static void
points_text (GString *out, const GArray *points)
{
  for (guint i = 0; i < points->len; i++)
    {
      const BpwEfficiencyPoint *p = &g_array_index (points, BpwEfficiencyPoint, i);

      g_string_append_printf (out, " [%.3g, %.4f]", p->size, p->efficiency);
    }
  if (points->len == 0)
    g_string_append (out, " (none: efficiency 1)");
}

static void
calibration_text (GString *out, const BpwCalibration *cal, const char *output)
{
  g_string_append_printf (out, "Calibrated blueprint “%s” written to %s after %u fit rounds\n"
                          "  provenance: %s\n", cal->blueprint->name, output, cal->iterations,
                          cal->source);
  g_string_append_printf (out, "  %-14s %6s %8s %14s %14s %14s %9s\n", "class", "rows", "skipped",
                          "measured µs", "before µs", "after µs", "factor");
  for (guint c = 0; c < BPW_N_OP_CLASSES; c++)
    {
      const BpwCalibrationClass *k = &cal->classes[c];

      if (k->rows + k->skipped == 0)
        continue;
      g_string_append_printf (out, "  %-14s %6u %8u %14.2f %14.2f %14.2f %9.4f\n",
                              bpw_op_class_to_string (c), k->rows, k->skipped,
                              k->measured_s * 1e6, k->predicted_before_s * 1e6,
                              k->predicted_after_s * 1e6, k->predicted_before_s > 0
                              ? k->predicted_after_s / k->predicted_before_s : 0);
    }
  g_string_append (out, "  (rows: matched operations, each with its share of its row's "
                        "measured time; a class's factor\n   is its predicted time after over "
                        "before; latency-bound operations and operations measured\n   faster "
                        "than their fixed cost calibrate no table)\n");
  for (guint i = 0; i < cal->tables->len; i++)
    {
      const BpwCalibrationTable *t = g_ptr_array_index (cal->tables, i);

      g_string_append_printf (out, "  %s (%s, %u rows, %.3g to %.3g %s)\n    before:", t->name,
                              bpw_op_class_to_string (t->op_class), t->rows, t->min_size,
                              t->max_size, t->op_class == BPW_OP_CLASS_MEMORY ? "B" : "FLOP");
      points_text (out, t->before);
      g_string_append (out, "\n    after: ");
      points_text (out, t->after);
      g_string_append_c (out, '\n');
    }
  for (guint i = 0; i < cal->warnings->len; i++)
    g_string_append_printf (out, "  warning: %s\n",
                            (const char *) g_ptr_array_index (cal->warnings, i));
}

int
bpw_cli_profile_calibrate (int    argc,
                           char **argv)
{
  g_autoptr(GOptionContext) context =
    g_option_context_new ("MODEL --blueprint BP --profile TRACE... --output FILE | --pack PACK "
                         "--blueprint BP --output FILE");
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL, *name = NULL, *pack = NULL;
  gint bins = 0;
  gboolean fit_overhead = FALSE;
  BpwCliProfileArgs args;
  BpwCliProfileRun run = { 0 };
  int status = BPW_CLI_EXIT_OK;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the calibrated blueprint to FILE (required)", "FILE" },
    { "pack", 0, 0, G_OPTION_ARG_FILENAME, &pack,
      "Calibrate for the device and software stack of this measurement pack (no MODEL, no "
      "--profile)", "PACK" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name,
      "Name of the calibrated blueprint (default: BP's name + \"-calibrated\")", "NAME" },
    { "bins-per-decade", 0, 0, G_OPTION_ARG_INT, &bins,
      "Size bins of the fit per factor of ten of FLOPs or bytes (default 2)", "N" },
    { "fit-overhead", 0, 0, G_OPTION_ARG_NONE, &fit_overhead,
      "Also fit each engine's fixed cost per operation (the median over its latency-bound "
      "operations)", NULL },
    G_OPTION_ENTRY_NULL
  };

  bpw_cli_profile_args_init (&args);
  g_set_prgname ("bpw profile calibrate");
  g_option_context_set_summary (context,
    "Fits BP's size-dependent efficiency tables to the measured operations of the profiles:\n"
    "the matrix and the vector engine's by FLOPs per operation for the run's precision, and\n"
    "device memory's by bytes, each from the operations it bounds. Fixed costs per operation\n"
    "are BP's unless --fit-overhead. The result is a new blueprint whose changed tables\n"
    "carry kind \"calibrated\" and a source naming the profiles, their hardware, versions\n"
    "and date; the same inputs give the same file.\n"
    "With --pack: hardware rates from the pack's microbenchmarks and the software stack's\n"
    "fixed costs from its traces (the blueprint's \"stack\" member); refused, with nothing\n"
    "written, when it predicts the pack's runs worse out of sample than BP does.");
  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_profile_args_add (&args, context);
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("profile calibrate", error);
  else if (pack != NULL && (argc != 1 || args.profiles != NULL))
    status = bpw_cli_usage ("profile calibrate", "profile calibrate: --pack takes no MODEL "
                            "and no --profile");
  else if (pack != NULL && (args.blueprint == NULL || output == NULL))
    status = bpw_cli_usage ("profile calibrate", "profile calibrate: --pack needs --blueprint "
                            "BP and --output FILE");
  else if (pack != NULL)
    status = bpw_cli_profile_calibrate_pack (pack, args.blueprint, output, name, args.json);
  else if (argc != 2)
    status = bpw_cli_usage ("profile calibrate", "profile calibrate: expected one MODEL");
  else if (args.blueprint == NULL || args.profiles == NULL || output == NULL)
    status = bpw_cli_usage ("profile calibrate", "profile calibrate: missing --blueprint BP, "
                            "--profile TRACE or --output FILE");
  else if (bins < 0 || bins > 16)
    status = bpw_cli_usage ("profile calibrate",
                            "profile calibrate: --bins-per-decade must be 1 to 16");
  else if (!bpw_cli_profile_run (&run, argv[1], NULL, &args, &error))
    status = bpw_cli_report_error ("profile calibrate", error);
  else
    {
      BpwCalibrateOptions options = { .bins_per_decade = (guint) bins, .name = name,
                                      .fit_overhead = fit_overhead };
      g_autoptr(BpwCalibration) cal =
        bpw_calibrate (run.setup.blueprint, (BpwCorrelation * const *) run.correlations->pdata,
                       run.correlations->len, &options, &error);

      if (cal == NULL || !bpw_blueprint_save_file (cal->blueprint, output, &error))
        status = bpw_cli_report_error ("profile calibrate", error);
      else
        {
          g_autoptr(GString) out = g_string_new (NULL);

          if (args.json)
            {
              g_autofree char *text = bpw_calibration_to_json (cal);

              g_string_append (out, text);
            }
          else
            calibration_text (out, cal, output);
          bpw_cli_print (stdout, "%s", out->str);
        }
    }
  bpw_cli_profile_run_clear (&run);
  bpw_cli_profile_args_clear (&args);
  return status;
}

int
bpw_cli_profile_report (int    argc,
                        char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("[MODEL --blueprint BP --profile "
                                                            "TRACE...]");
  g_autoptr(GError) error = NULL;
  g_autofree char *calibrated = NULL, *megatron_bp = NULL, *pack = NULL;
  g_autoptr(BpwValidationReport) report = bpw_validation_report_new ();
  gboolean megatron = FALSE;
  gint top = 20;
  BpwCliProfileArgs args;
  BpwCliProfileRun run = { 0 }, recal = { 0 };
  int status = BPW_CLI_EXIT_OK;
  const GOptionEntry entries[] = {
    { "calibrated", 0, 0, G_OPTION_ARG_FILENAME, &calibrated,
      "Also predict on this (calibrated) blueprint, side by side", "FILE" },
    { "pack", 0, 0, G_OPTION_ARG_FILENAME, &pack,
      "The runs of this measurement pack: measured, predicted on BP (before) and on the "
      "calibrated blueprint (after; calibrated here without --calibrated), and each on the "
      "calibration that leaves its own trace out", "PACK" },
    { "megatron", 0, 0, G_OPTION_ARG_NONE, &megatron,
      "Include Megatron-LM 2021 Table 1 (always, without MODEL)", NULL },
    { "megatron-blueprint", 0, 0, G_OPTION_ARG_STRING, &megatron_bp,
      "The blueprint for Table 1 (default a100-sxm-80gb, as bpw validate)", "BP" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top,
      "Operations listed per profile in the text report (default 20)", "N" },
    G_OPTION_ENTRY_NULL
  };

  bpw_cli_profile_args_init (&args);
  g_set_prgname ("bpw profile report");
  g_option_context_set_summary (context,
    "Predicted against measured for every reference given: each profile per operation and\n"
    "end to end (with --calibrated, also on the calibrated blueprint), and Megatron-LM 2021\n"
    "Table 1 (the numbers of bpw validate), each with its mean and largest |error|, error\n"
    "being predicted / measured − 1.");
  g_option_context_add_main_entries (context, entries, NULL);
  bpw_cli_profile_args_add (&args, context);
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("profile report", error);
  else if (pack != NULL && (argc != 1 || args.profiles != NULL || args.blueprint == NULL))
    status = bpw_cli_usage ("profile report", "profile report: --pack needs --blueprint BP "
                            "and takes no MODEL and no --profile");
  else if (pack != NULL)
    {
      status = bpw_cli_profile_report_pack (pack, args.blueprint, calibrated, args.json);
      bpw_cli_profile_args_clear (&args);
      return status;
    }
  else if (argc > 2)
    status = bpw_cli_usage ("profile report", "profile report: expected at most one MODEL");
  else if (argc == 2 && (args.blueprint == NULL || args.profiles == NULL))
    status = bpw_cli_usage ("profile report",
                            "profile report: MODEL needs --blueprint BP and --profile TRACE");
  else if (argc < 2 && (args.profiles != NULL || calibrated != NULL))
    status = bpw_cli_usage ("profile report",
                            "profile report: --profile and --calibrated need a MODEL");
  else if (argc == 2 && !bpw_cli_profile_run (&run, argv[1], NULL, &args, &error))
    status = bpw_cli_report_error ("profile report", error);
  else if (argc == 2 && calibrated != NULL &&
           !bpw_cli_profile_run (&recal, argv[1], calibrated, &args, &error))
    status = bpw_cli_report_error ("profile report", error);
  if (status == BPW_CLI_EXIT_OK)
    {
      for (guint i = 0; run.correlations != NULL && i < run.correlations->len; i++)
        bpw_validation_report_add_profile (report, g_ptr_array_index (run.correlations, i),
                                           recal.correlations != NULL
                                           ? g_ptr_array_index (recal.correlations, i) : NULL);
      if (megatron || argc < 2)
        {
          g_autoptr(BpwBlueprint) bp = bpw_blueprint_load (megatron_bp != NULL ? megatron_bp
                                                           : "a100-sxm-80gb", NULL, &error);

          if (bp == NULL || !bpw_validation_report_add_megatron (report, bp, &error))
            status = bpw_cli_report_error ("profile report", error);
        }
    }
  if (status == BPW_CLI_EXIT_OK)
    {
      g_autofree char *text = args.json ? bpw_validation_report_to_json (report)
                                        : bpw_validation_report_to_text (report, (guint) MAX (top,
                                                                                             0));

      bpw_cli_print (stdout, "%s", text);
    }
  bpw_cli_profile_run_clear (&recal);
  bpw_cli_profile_run_clear (&run);
  bpw_cli_profile_args_clear (&args);
  return status;
}
