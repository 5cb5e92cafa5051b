/* bpw-cli-validate.c — `bpw validate [--blueprint BP] [--fit [--output FILE]] [--in-sample-only]
 *                      [--json]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-validate"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <math.h>
#include <stdio.h>

#include "bpw-blueprint-io.h"
#include "bpw-json-writer.h"
#include "bpw-validation.h"

/* A row more than this far from the published figure fails the validation. */
#define TOLERANCE 0.10

static void
print_efficiency (const BpwBlueprint *bp)
{
  int mi = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
  int vi = bpw_blueprint_first_engine (bp, BPW_ENGINE_VECTOR);
  int hi = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  const BpwEfficiencyTable *t = &bp->engines[mi].efficiency[BPW_PRECISION_FP16];

  g_print ("\nFitted values:\n  %s efficiency (fp16, bf16), log-linear:", bp->engines[mi].name);
  for (guint i = 0; i < t->n_points; i++)
    g_print (" [%.4g FLOP, %.4f]", t->points[i].size, t->points[i].efficiency);
  /* The small products' points are the rule's (bpw_validation_fit). */
  g_print ("\n    fitted from %.4g FLOP up; below, the shape of %s's measured curve (kind "
           "\"estimate\")", BPW_VALIDATION_FITTED_FROM, BPW_VALIDATION_SHAPE_PART);
  if (vi >= 0)
    g_print ("\n  %s efficiency: %.4f (kind \"calibrated\")", bp->engines[vi].name,
             bp->engines[vi].efficiency[BPW_PRECISION_FP16].points[0].efficiency);
  /* Not fitted: the blueprint's own (bpw_validation_fit). */
  g_print ("\nKept as the blueprint states them (not fitted):\n  %s efficiency: %.4f\n"
           "  fixed cost per operation: %.3f us\n",
           bp->memory[hi].name, bp->memory[hi].efficiency.points[0].efficiency,
           bp->engines[mi].overhead.value * 1e6);
}

static int
validate_run (const char *blueprint, gboolean fit, const char *output, gboolean json,
              gboolean held_out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load (blueprint, NULL, &error);
  g_autofree BpwValidationResult *loo = NULL;
  const BpwMegatronRow *rows;
  BpwJsonWriter w;
  double worst = 0, sum = 0, loo_worst = 0, loo_sum = 0;
  guint n, failed = 0;

  if (bp == NULL)
    return bpw_cli_report_error ("validate", error);
  if (fit && !bpw_validation_fit (bp, &worst, &error))
    return bpw_cli_report_error ("validate", error);
  if (output != NULL && !bpw_blueprint_save_file (bp, output, &error))
    return bpw_cli_report_error ("validate", error);

  rows = bpw_validation_megatron_rows (&n);
  if (held_out)
    {
      loo = g_new0 (BpwValidationResult, n);
      if (!bpw_validation_leave_one_out (bp, loo, &error))
        return bpw_cli_report_error ("validate", error);
    }
  if (json)
    {
      bpw_json_writer_init (&w, TRUE);
      bpw_json_writer_begin_object (&w, NULL);
      bpw_json_writer_string (&w, "reference",
                              "Megatron-LM 2021 Table 1 (Narayanan et al., SC'21)");
      bpw_json_writer_string (&w, "blueprint", bp->name);
      bpw_json_writer_string (&w, "error_in_sample",
                              "each row predicted on the blueprint as it is (for the bundled "
                              "A100: efficiencies fitted to all ten rows, this one included)");
      if (held_out)
        bpw_json_writer_string (&w, "error_leave_one_out",
                                "each row predicted on the blueprint refitted on the other nine "
                                "rows by least squares of the log error, so that every row "
                                "moves the fit");
      bpw_json_writer_begin_array (&w, "rows");
    }
  else
    g_print ("Megatron-LM 2021 Table 1 (Narayanan et al., SC'21), %s: TF/s per GPU\n"
             "Assumed where the table is silent: fp16, Adam, micro-batch 1, fused bias+GeLU and\n"
             "Adam, scores materialised, no DP overlap; Eq. (3) FLOPs over the predicted time.\n\n"
             "In-sample: each row predicted on %s as it is (the A100's efficiencies were\n"
             "fitted to all ten rows, this one included).%s\n\n"
             "%9s %3s %3s %5s %5s %3s %10s %10s %9s %9s %9s%s\n", bp->name, bp->name,
             held_out ? "\nLeave-one-out: each row predicted after refitting the efficiencies "
                        "on the other nine rows\nby least squares of the log error (every row "
                        "moves that fit); out of sample." : "",
             "params", "tp", "pp", "gpus", "batch", "v", "predicted", "published", "in-sample",
             "step [s]", "pub. [s]", held_out ? "  left out  l-o-o err" : "");

  worst = 0;
  for (guint i = 0; i < n; i++)
    {
      BpwValidationResult r;

      if (!bpw_validation_megatron_predict (bp, &rows[i], &r, &error))
        return bpw_cli_report_error ("validate", error);
      worst = MAX (worst, fabs (r.error));
      sum += fabs (r.error);
      if (held_out)
        {
          loo_worst = MAX (loo_worst, fabs (loo[i].error));
          loo_sum += fabs (loo[i].error);
        }
      failed += fabs (r.error) > TOLERANCE || !r.legal;
      if (json)
        {
          bpw_json_writer_begin_object (&w, NULL);
          bpw_json_writer_double (&w, "parameters_b", rows[i].parameters_b);
          bpw_json_writer_int (&w, "tp", rows[i].tp);
          bpw_json_writer_int (&w, "pp", rows[i].pp);
          bpw_json_writer_int (&w, "gpus", rows[i].gpus);
          bpw_json_writer_int (&w, "batch", rows[i].batch);
          bpw_json_writer_int (&w, "interleave", r.interleave);
          bpw_json_writer_double (&w, "predicted_tflops", r.predicted_tflops);
          bpw_json_writer_double (&w, "published_tflops", rows[i].published_tflops);
          bpw_json_writer_double (&w, "error", r.error);
          bpw_json_writer_double (&w, "error_in_sample", r.error);
          if (held_out)
            {
              bpw_json_writer_double (&w, "predicted_tflops_leave_one_out",
                                      loo[i].predicted_tflops);
              bpw_json_writer_double (&w, "error_leave_one_out", loo[i].error);
            }
          bpw_json_writer_double (&w, "step_time_s", r.step_time_s);
          bpw_json_writer_bool (&w, "legal", r.legal);
          bpw_json_writer_end_object (&w);
        }
      else
        {
          g_print ("%8.1fB %3" G_GINT64_FORMAT " %3" G_GINT64_FORMAT " %5" G_GINT64_FORMAT " %5"
                   G_GINT64_FORMAT " %3" G_GINT64_FORMAT " %10.1f %10.0f %+8.1f%% %9.2f %9.2f",
                   rows[i].parameters_b, rows[i].tp, rows[i].pp, rows[i].gpus, rows[i].batch,
                   r.interleave, r.predicted_tflops, rows[i].published_tflops, 100.0 * r.error,
                   r.step_time_s, r.published_step_s);
          if (held_out)
            g_print (" %10.1f %+9.1f%%", loo[i].predicted_tflops, 100.0 * loo[i].error);
          g_print ("%s\n", r.legal ? "" : "  (illegal plan)");
        }
    }
  if (json)
    {
      g_autofree char *text = NULL;

      bpw_json_writer_end_array (&w);
      bpw_json_writer_double (&w, "mean_abs_error", sum / n);
      bpw_json_writer_double (&w, "max_abs_error", worst);
      bpw_json_writer_begin_object (&w, "in_sample");
      bpw_json_writer_double (&w, "mean_abs_error", sum / n);
      bpw_json_writer_double (&w, "max_abs_error", worst);
      bpw_json_writer_end_object (&w);
      if (held_out)
        {
          bpw_json_writer_begin_object (&w, "leave_one_out");
          bpw_json_writer_double (&w, "mean_abs_error", loo_sum / n);
          bpw_json_writer_double (&w, "max_abs_error", loo_worst);
          bpw_json_writer_end_object (&w);
        }
      bpw_json_writer_bool (&w, "ok", failed == 0);
      bpw_json_writer_end_object (&w);
      text = bpw_json_writer_finish (&w);
      bpw_cli_print (stdout, "%s", text);
    }
  else
    {
      g_print ("\nin-sample: mean |error| %.1f %%, max |error| %.1f %%: %u of %u rows within "
               "%.0f %%\n", 100.0 * sum / n, 100.0 * worst, n - failed, n, 100.0 * TOLERANCE);
      if (held_out)
        g_print ("leave-one-out: mean |error| %.1f %%, max |error| %.1f %% (out of sample; "
                 "not part of the verdict)\n", 100.0 * loo_sum / n, 100.0 * loo_worst);
      if (fit)
        print_efficiency (bp);
    }
  return failed == 0 ? BPW_CLI_EXIT_OK : BPW_CLI_EXIT_INVALID_INPUT;
}

int
bpw_cli_validate (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *blueprint = NULL;
  g_autofree char *output = NULL;
  gboolean json = FALSE, fit = FALSE, in_sample_only = FALSE;
  const GOptionEntry entries[] = {
    { "blueprint", 0, 0, G_OPTION_ARG_STRING, &blueprint,
      "The blueprint to validate (default a100-sxm-80gb)", "BP" },
    { "fit", 0, 0, G_OPTION_ARG_NONE, &fit,
      "Calibrate the blueprint's efficiencies on the table first, from fixed starting values",
      NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the (calibrated) blueprint to FILE", "FILE" },
    { "in-sample-only", 0, 0, G_OPTION_ARG_NONE, &in_sample_only,
      "Skip the leave-one-out refits (ten fits of the efficiencies, one per row)", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the comparison as JSON", NULL },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("bpw validate");
  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
                                "Predicts every row of Megatron-LM 2021 Table 1 (GPT, 1.7 B to 1 T "
                                "parameters on A100s)\nand compares with the published TF/s per "
                                "GPU, in sample (on the blueprint as it is) and leave-one-out\n"
                                "(each row predicted by the efficiencies refitted on the other "
                                "rows). Exit status 1\nwhen a row is more than 10 % off in "
                                "sample.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!bpw_cli_parse (context, &argc, &argv, &error))
    return bpw_cli_report_error ("validate", error);
  if (argc > 1)
    return bpw_cli_usage ("validate", "validate: unexpected argument '%s'", argv[1]);
  return validate_run (blueprint != NULL ? blueprint : "a100-sxm-80gb", fit, output, json,
                       !in_sample_only);
}
