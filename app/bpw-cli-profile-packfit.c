/* bpw-cli-profile-packfit.c — `bpw profile calibrate --pack` and `bpw profile report --pack`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-profile"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-print.h"

#include <math.h>
#include <stdio.h>

#include "bpw-blueprint-io.h"
#include "bpw-cli-profile.h"
#include "bpw-pack-fit.h"

static BpwPackData *
load_pack (const char *path, GError **error)
{
  BpwPackData *data = bpw_pack_data_load (path, error);

  for (guint i = 0; data != NULL && i < data->warnings->len; i++)
    bpw_cli_print (stderr, "bpw: warning: %s\n",
                   (const char *) g_ptr_array_index (data->warnings, i));
  return data;
}

static void
value_text (GString *out, const char *label, const BpwPackFitValue *v, double scale,
            const char *unit)
{
  if (isnan (v->value))
    g_string_append_printf (out, "  %-28s not measured (no run shows it)\n", label);
  else
    g_string_append_printf (out, "  %-28s %.4g %s\n", label, v->value * scale, unit);
}

static void
fit_text (GString *out, const BpwPackFit *fit, const char *output)
{
  g_string_append_printf (out, "Calibrated blueprint “%s” written to %s\n  provenance: %s\n",
                          fit->blueprint->name, output, fit->source);
  g_string_append_printf (out, "  %-28s %.4f\n", "device-memory efficiency",
                          fit->memory_efficiency);
  g_string_append_printf (out, "  %-28s %u bf16, %u fp8\n", "matmul products fitted",
                          fit->matmul_points[BPW_PRECISION_BF16],
                          fit->matmul_points[BPW_PRECISION_FP8]);
  g_string_append_printf (out, "  %-28s %.3g µs\n", "fixed cost per kernel",
                          fit->kernel_overhead_s * 1e6);
  g_string_append_printf (out, "  %-28s %.3g µs (of its fastest call, %.3g µs)\n",
                          "kit's per-call latency", fit->call_latency_s * 1e6,
                          fit->call_floor_s * 1e6);
  value_text (out, "matrix engine clock in runs", &fit->engine_clock, 1, "× microbenchmarks'");
  g_string_append_printf (out, "  stack: attention %s, master weights %s, logits %s, optimizer "
                          "%s, element-wise %s,\n         launch train %s, prefill %s, decode "
                          "%s%s%s\n", fit->attention, fit->master_weights, fit->logits,
                          fit->optimizer, fit->elementwise, fit->launch[BPW_WORKLOAD_TRAIN],
                          fit->launch[BPW_WORKLOAD_PREFILL], fit->launch[BPW_WORKLOAD_DECODE],
                          fit->moe_implementation != NULL ? ", MoE dispatch " : "",
                          fit->moe_implementation != NULL ? fit->moe_implementation : "");
  value_text (out, "eager launch gap (inference)", &fit->eager_gap, 1e6, "µs");
  value_text (out, "eager launch gap (training)", &fit->train_eager_gap, 1e6, "µs");
  value_text (out, "graph replay gap", &fit->graph_gap, 1e6, "µs");
  value_text (out, "eager device gap", &fit->eager_device_gap, 1e6, "µs");
  value_text (out, "off-path element-wise rate", &fit->elementwise_rate, 1e-9,
              "G elements/s");
  value_text (out, "optimizer bytes / parameter", &fit->optimizer_bytes, 1, "B");
  /* A foreach optimizer's launches follow its parameters, a loop's its tensors. */
  if (isnan (fit->optimizer_launches.value))
    value_text (out, "optimizer kernels / tensor", &fit->optimizer_kernels, 1, "");
  else
    value_text (out, "optimizer kernels / Gparam", &fit->optimizer_launches, 1e9, "");
  if (fit->moe_implementation != NULL)
    value_text (out, "MoE time per expert", &fit->moe_per_expert, 1e3, "ms");
  for (guint i = 0; i < fit->warnings->len; i++)
    g_string_append_printf (out, "  warning: %s\n",
                            (const char *) g_ptr_array_index (fit->warnings, i));
}

int
bpw_cli_profile_calibrate_pack (const char *pack,
                                const char *blueprint,
                                const char *output,
                                const char *name,
                                gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPackData) data = load_pack (pack, &error);
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(BpwPackFit) fit = NULL;
  g_autoptr(BpwBlueprint) cal = NULL;
  g_autoptr(BpwPackReport) report = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *table = NULL;

  if (data != NULL)
    bp = bpw_blueprint_load (blueprint, NULL, &error);
  if (bp != NULL)
    fit = bpw_pack_fit (bp, data, -1, name, &error);
  if (fit != NULL)
    cal = bpw_pack_fit_blueprint (fit);
  if (cal != NULL)
    report = bpw_pack_report_new (data, bp, cal, &error);
  if (report == NULL)
    return bpw_cli_report_error ("profile calibrate", error);
  /* Judged out of sample: a calibration that predicts the runs it did not see worse than
   * the blueprint did is not written. */
  if (!bpw_pack_report_accepts (report, &error))
    return bpw_cli_report_error ("profile calibrate", error);
  if (!bpw_pack_fit_save (fit, output, &error))
    return bpw_cli_report_error ("profile calibrate", error);
  if (json)
    table = bpw_pack_report_to_json (report);
  else
    {
      fit_text (out, fit, output);
      table = bpw_pack_report_to_text (report);
    }
  g_string_append (out, table);
  bpw_cli_print (stdout, "%s", out->str);
  return BPW_CLI_EXIT_OK;
}

int
bpw_cli_profile_report_pack (const char *pack,
                             const char *blueprint,
                             const char *calibrated,
                             gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPackData) data = load_pack (pack, &error);
  g_autoptr(BpwBlueprint) bp = NULL, cal = NULL;
  g_autoptr(BpwPackReport) report = NULL;
  g_autofree char *text = NULL;
  gboolean ok = data != NULL;

  if (ok)
    ok = (bp = bpw_blueprint_load (blueprint, NULL, &error)) != NULL;
  if (ok && calibrated != NULL)
    ok = (cal = bpw_blueprint_load (calibrated, NULL, &error)) != NULL;
  if (ok)
    ok = (report = bpw_pack_report_new (data, bp, cal, &error)) != NULL;
  if (!ok)
    return bpw_cli_report_error ("profile report", error);
  text = json ? bpw_pack_report_to_json (report) : bpw_pack_report_to_text (report);
  bpw_cli_print (stdout, "%s", text);
  return BPW_CLI_EXIT_OK;
}
