/* bpw-cli-profile-pack.c — `bpw profile import PACK`: what a measurement pack holds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-cli-profile"

#include "config.h"

#include "bpw-cli.h"

#include <math.h>
#include <string.h>

#include "bpw-cli-profile.h"
#include "bpw-profile.h"

/* How far into a file the pack's "format" member is looked for: a pack writes it first,
 * and a trace that is not a pack is not read twice. */
#define SNIFF_BYTES 4096

gboolean
bpw_cli_profile_is_pack (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = g_file_read (file, NULL, NULL);
  char head[SNIFF_BYTES + 1];
  gsize got = 0;

  if (in == NULL ||
      !g_input_stream_read_all (G_INPUT_STREAM (in), head, SNIFF_BYTES, &got, NULL, NULL))
    return FALSE;
  head[got] = '\0';
  return strstr (head, "\"bpw-measurement-pack\"") != NULL;
}

/* The step a run took: as timed outside the profiler when the pack says, else the trace's
 * span, first kernel start to last end; NAN when the trace cannot be read. */
static double
run_step_s (const BpwPackRun *run, const char **source)
{
  g_autoptr(BpwProfile) profile = NULL;

  if (!isnan (run->measured_s))
    {
      *source = "timed";
      return run->measured_s;
    }
  *source = "trace span";
  profile = bpw_profile_load_file (run->trace_path, NULL);
  return profile != NULL ? profile->span_s : NAN;
}

static const char *
attention_kind (BpwPackAttentionKind kind)
{
  return kind == BPW_PACK_ATTENTION_PREFILL_CAUSAL ? "prefill_causal" : "decode";
}

/* The range of m and of the rate over the sweep points of @dtype; FALSE when none. */
static gboolean
sweep_range (const BpwMeasurementPack *p, BpwDType dtype, guint *n, gint64 *m_lo, gint64 *m_hi,
             double *lo, double *hi)
{
  g_autofree guint *idx = bpw_measurement_pack_matmuls_of (p, dtype, n);

  for (guint i = 0; i < *n; i++)
    {
      const BpwPackMatmul *mm = &p->matmuls[idx[i]];

      *m_lo = i == 0 ? mm->m : MIN (*m_lo, mm->m);
      *m_hi = i == 0 ? mm->m : MAX (*m_hi, mm->m);
      *lo = i == 0 ? mm->flops_per_s : MIN (*lo, mm->flops_per_s);
      *hi = i == 0 ? mm->flops_per_s : MAX (*hi, mm->flops_per_s);
    }
  return *n > 0;
}

static char *
run_scenario (const BpwScenario *s)
{
  if (s->phase == BPW_WORKLOAD_DECODE)
    return g_strdup_printf ("decode, batch %" G_GINT64_FORMAT " at context %" G_GINT64_FORMAT
                            ", %s", s->global_batch, s->context, bpw_dtype_to_string (s->dtype));
  return g_strdup_printf ("%s, batch %" G_GINT64_FORMAT " × %" G_GINT64_FORMAT " tokens, %s%s%s",
                          bpw_workload_phase_to_string (s->phase), s->global_batch, s->seq,
                          bpw_dtype_to_string (s->dtype),
                          s->phase == BPW_WORKLOAD_TRAIN ? ", recompute " : "",
                          s->phase == BPW_WORKLOAD_TRAIN ? bpw_recompute_to_string (s->recompute)
                                                         : "");
}

void
bpw_cli_profile_pack_text (GString                  *out,
                           const BpwMeasurementPack *p)
{
  const char *stack[] = { "python", p->python, "attention", p->attention_impl, "precision",
                          p->precision, "optimizer", p->optimizer, "fusion", p->fusion,
                          "launch", p->launch };

  g_string_append_printf (out, "%s: measurement pack (version %" G_GINT64_FORMAT ")\n",
                          p->filename, p->version);
  g_string_append_printf (out, "  device: %s × %" G_GINT64_FORMAT, p->device_name,
                          p->device_count);
  if (p->sms > 0)
    g_string_append_printf (out, ", %" G_GINT64_FORMAT " SMs", p->sms);
  if (p->memory_bytes > 0)
    g_string_append_printf (out, ", %.1f GiB", (double) p->memory_bytes / (1 << 30));
  if (p->compute_capability != NULL)
    g_string_append_printf (out, ", compute capability %s", p->compute_capability);
  if (p->driver != NULL)
    g_string_append_printf (out, ", driver %s", p->driver);
  if (p->cuda != NULL)
    g_string_append_printf (out, ", CUDA %s", p->cuda);
  if (!isnan (p->power_limit_w))
    g_string_append_printf (out, ", power limit %.0f W", p->power_limit_w);
  if (!isnan (p->sm_clock_max_mhz))
    g_string_append_printf (out, ", SM clock up to %.0f MHz", p->sm_clock_max_mhz);
  g_string_append_printf (out, "\n  stack: %s\n", p->framework);
  for (guint i = 0; i < G_N_ELEMENTS (stack); i += 2)
    if (stack[i + 1] != NULL)
      g_string_append_printf (out, "    %-10s %s\n", stack[i], stack[i + 1]);

  g_string_append_printf (out, "  matmul peak: %s %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT "×%"
                          G_GINT64_FORMAT ", %.1f TFLOP/s (%.3f ms)",
                          bpw_dtype_to_string (p->peak.dtype), p->peak.m, p->peak.n, p->peak.k,
                          p->peak.flops_per_s / 1e12, p->peak.time_s * 1e3);
  if (!isnan (p->peak_power_w))
    g_string_append_printf (out, ", board power %.0f W", p->peak_power_w);
  if (!isnan (p->peak_sm_clock_mhz))
    g_string_append_printf (out, ", SM clock %.0f MHz", p->peak_sm_clock_mhz);
  g_string_append_c (out, '\n');
  for (BpwDType d = 0; d < BPW_N_DTYPES; d++)
    {
      gint64 m_lo = 0, m_hi = 0;
      double lo = 0, hi = 0;
      guint n;

      if (sweep_range (p, d, &n, &m_lo, &m_hi, &lo, &hi))
        g_string_append_printf (out, "  matmul sweep %s: %u shapes, m %" G_GINT64_FORMAT " … %"
                                G_GINT64_FORMAT ", %.1f … %.1f TFLOP/s\n",
                                bpw_dtype_to_string (d), n, m_lo, m_hi, lo / 1e12, hi / 1e12);
    }
  for (guint i = 0; i < p->n_copies; i++)
    g_string_append_printf (out, "  memory copy: %.3f MiB each way, %.1f GB/s read + written "
                            "(%.3f ms)\n", (double) p->copies[i].bytes / (1 << 20),
                            p->copies[i].bytes_per_s / 1e9, p->copies[i].time_s * 1e3);
  for (guint i = 0; i < p->n_attention; i++)
    {
      const BpwPackAttention *a = &p->attention[i];

      if (a->kind == BPW_PACK_ATTENTION_PREFILL_CAUSAL)
        g_string_append_printf (out, "  attention prefill (causal), batch %" G_GINT64_FORMAT
                                " × %" G_GINT64_FORMAT " tokens: %.1f TFLOP/s (%.3f ms)\n",
                                a->batch, a->tokens, a->rate / 1e12, a->time_s * 1e3);
      else
        g_string_append_printf (out, "  attention decode, batch %" G_GINT64_FORMAT " at context %"
                                G_GINT64_FORMAT ": %.1f GB/s of KV cache (%.3f ms)\n", a->batch,
                                a->tokens, a->rate / 1e9, a->time_s * 1e3);
    }
  g_string_append_printf (out, "  runs: %u\n", p->n_runs);
  for (guint i = 0; i < p->n_runs; i++)
    {
      const BpwPackRun *r = &p->runs[i];
      g_autofree char *scenario = run_scenario (&r->scenario);
      g_autofree char *model = g_path_get_basename (r->model_path);
      g_autofree char *trace = g_path_get_basename (r->trace_path);
      const char *source = NULL;
      double step = run_step_s (r, &source);

      g_string_append_printf (out, "    %s: %s on %s; step ", r->name, scenario, model);
      if (isnan (step))
        g_string_append (out, "unknown (the trace does not load)");
      else
        g_string_append_printf (out, "%.3f ms (%s)", step * 1e3, source);
      g_string_append_printf (out, "; trace %s\n", trace);
    }
}

void
bpw_cli_profile_pack_json (BpwJsonWriter            *w,
                           const BpwMeasurementPack *p)
{
  bpw_json_writer_begin_object (w, NULL);
  bpw_json_writer_string (w, "file", p->filename);
  bpw_json_writer_string (w, "format", "bpw-measurement-pack");
  bpw_json_writer_int (w, "version", p->version);
  bpw_json_writer_begin_object (w, "device");
  bpw_json_writer_string (w, "name", p->device_name);
  bpw_json_writer_int (w, "count", p->device_count);
  bpw_json_writer_int (w, "sms", p->sms);
  bpw_json_writer_int (w, "memory_bytes", p->memory_bytes);
  bpw_json_writer_end_object (w);
  bpw_json_writer_begin_object (w, "stack");
  bpw_json_writer_string (w, "framework", p->framework);
  bpw_json_writer_end_object (w);

  bpw_json_writer_begin_object (w, "matmul_peak");
  bpw_json_writer_string (w, "dtype", bpw_dtype_to_string (p->peak.dtype));
  bpw_json_writer_int (w, "m", p->peak.m);
  bpw_json_writer_int (w, "n", p->peak.n);
  bpw_json_writer_int (w, "k", p->peak.k);
  bpw_json_writer_double (w, "time_s", p->peak.time_s);
  bpw_json_writer_double (w, "flops_per_s", p->peak.flops_per_s);
  bpw_json_writer_end_object (w);
  bpw_json_writer_begin_array (w, "matmul_sweeps");
  for (BpwDType d = 0; d < BPW_N_DTYPES; d++)
    {
      gint64 m_lo = 0, m_hi = 0;
      double lo = 0, hi = 0;
      guint n;

      if (!sweep_range (p, d, &n, &m_lo, &m_hi, &lo, &hi))
        continue;
      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "dtype", bpw_dtype_to_string (d));
      bpw_json_writer_int (w, "shapes", n);
      bpw_json_writer_int (w, "m_min", m_lo);
      bpw_json_writer_int (w, "m_max", m_hi);
      bpw_json_writer_double (w, "flops_per_s_min", lo);
      bpw_json_writer_double (w, "flops_per_s_max", hi);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "memory_copy");
  for (guint i = 0; i < p->n_copies; i++)
    {
      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_int (w, "bytes_each_way", p->copies[i].bytes);
      bpw_json_writer_double (w, "time_s", p->copies[i].time_s);
      bpw_json_writer_double (w, "bytes_per_s", p->copies[i].bytes_per_s);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "attention");
  for (guint i = 0; i < p->n_attention; i++)
    {
      const BpwPackAttention *a = &p->attention[i];
      gboolean prefill = a->kind == BPW_PACK_ATTENTION_PREFILL_CAUSAL;

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "kind", attention_kind (a->kind));
      bpw_json_writer_int (w, "batch", a->batch);
      bpw_json_writer_int (w, prefill ? "seq" : "context", a->tokens);
      bpw_json_writer_double (w, "time_s", a->time_s);
      bpw_json_writer_double (w, prefill ? "flops_per_s" : "kv_bytes_per_s", a->rate);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);

  bpw_json_writer_begin_array (w, "runs");
  for (guint i = 0; i < p->n_runs; i++)
    {
      const BpwPackRun *r = &p->runs[i];
      const BpwScenario *s = &r->scenario;
      const char *source = NULL;
      double step = run_step_s (r, &source);

      bpw_json_writer_begin_object (w, NULL);
      bpw_json_writer_string (w, "name", r->name);
      bpw_json_writer_string (w, "model", r->model_path);
      bpw_json_writer_string (w, "trace", r->trace_path);
      bpw_json_writer_begin_object (w, "scenario");
      bpw_json_writer_string (w, "phase", bpw_workload_phase_to_string (s->phase));
      bpw_json_writer_int (w, "global_batch", s->global_batch);
      bpw_json_writer_int (w, "micro_batch", s->micro_batch);
      if (s->phase == BPW_WORKLOAD_DECODE)
        bpw_json_writer_int (w, "context", s->context);
      else
        bpw_json_writer_int (w, "seq", s->seq);
      bpw_json_writer_string (w, "dtype", bpw_dtype_to_string (s->dtype));
      bpw_json_writer_end_object (w);
      if (isnan (step))
        bpw_json_writer_null (w, "step_s");
      else
        bpw_json_writer_double (w, "step_s", step);
      bpw_json_writer_string (w, "step_source", source);
      bpw_json_writer_end_object (w);
    }
  bpw_json_writer_end_array (w);
  bpw_json_writer_end_object (w);
}
