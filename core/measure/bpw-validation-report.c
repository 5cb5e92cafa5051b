/* bpw-validation-report.c — Table 1 and profiles: predicted against measured
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-validation-report"

#include "config.h"

#include <math.h>

#include "bpw-json-writer.h"
#include "bpw-validation.h"
#include "bpw-validation-report.h"

static void
section_free (gpointer data)
{
  BpwReportSection *s = data;

  g_free (s->title);
  g_free (s->blueprint);
  g_free (s->calibrated_blueprint);
  g_free (s->unit);
  g_free (s->metadata);
  for (guint i = 0; i < s->entries->len; i++)
    g_free (g_array_index (s->entries, BpwReportEntry, i).name);
  g_array_unref (s->entries);
  g_free (s);
}

static BpwReportSection *
section_new (BpwValidationReport *report, const char *title, const char *blueprint,
             const char *unit)
{
  BpwReportSection *s = g_new0 (BpwReportSection, 1);

  s->title = g_strdup (title);
  s->blueprint = g_strdup (blueprint);
  s->unit = g_strdup (unit);
  s->entries = g_array_new (FALSE, FALSE, sizeof (BpwReportEntry));
  s->calibrated_mean_abs_error = s->calibrated_max_abs_error = NAN;
  s->calibrated_weighted_error = NAN;
  s->held_out_mean_abs_error = s->held_out_max_abs_error = NAN;
  s->step_predicted_s = s->step_measured_s = s->step_error = s->step_calibrated_s = NAN;
  s->work_predicted_s = s->work_measured_s = s->work_error = s->work_calibrated_s = NAN;
  s->modelled_match_rate = s->measured_match_rate = NAN;
  g_ptr_array_add (report->sections, s);
  return s;
}

static void
section_errors (BpwReportSection *s)
{
  double sum = 0, csum = 0, hsum = 0, hmax = 0, diff = 0, cdiff = 0, measured = 0;
  guint calibrated = 0, held_out = 0;

  s->mean_abs_error = s->max_abs_error = 0;
  for (guint i = 0; i < s->entries->len; i++)
    {
      const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, i);

      measured += e->measured;
      diff += fabs (e->predicted - e->measured);
      cdiff += isnan (e->calibrated) ? 0 : fabs (e->calibrated - e->measured);
      sum += fabs (e->error);
      s->max_abs_error = MAX (s->max_abs_error, fabs (e->error));
      if (!isnan (e->calibrated_error))
        {
          csum += fabs (e->calibrated_error);
          s->calibrated_max_abs_error = calibrated == 0
            ? fabs (e->calibrated_error) : MAX (s->calibrated_max_abs_error,
                                                fabs (e->calibrated_error));
          calibrated++;
        }
      if (!isnan (e->held_out_error))
        {
          hsum += fabs (e->held_out_error);
          hmax = MAX (hmax, fabs (e->held_out_error));
          held_out++;
        }
    }
  if (held_out > 0)
    {
      s->held_out_mean_abs_error = hsum / held_out;
      s->held_out_max_abs_error = hmax;
    }
  if (s->entries->len > 0)
    s->mean_abs_error = sum / s->entries->len;
  if (calibrated > 0)
    s->calibrated_mean_abs_error = csum / calibrated;
  s->weighted_error = measured > 0 ? diff / measured : 0;
  s->calibrated_weighted_error = calibrated > 0 && measured > 0 ? cdiff / measured : NAN;
}

BpwValidationReport *
bpw_validation_report_new (void)
{
  BpwValidationReport *r = g_new0 (BpwValidationReport, 1);

  r->sections = g_ptr_array_new_with_free_func (section_free);
  return r;
}

void
bpw_validation_report_free (BpwValidationReport *r)
{
  if (r == NULL)
    return;
  g_ptr_array_unref (r->sections);
  g_free (r);
}

#define MEGATRON_TITLE "Megatron-LM 2021 Table 1 (Narayanan et al., SC'21)"

gboolean
bpw_validation_report_add_megatron (BpwValidationReport  *report,
                                    const BpwBlueprint   *bp,
                                    GError              **error)
{
  guint n;
  const BpwMegatronRow *rows = bpw_validation_megatron_rows (&n);
  BpwReportSection *s = section_new (report, MEGATRON_TITLE, bp->name, "TFLOP/s per GPU");

  for (guint i = 0; i < n; i++)
    {
      BpwValidationResult r;
      BpwReportEntry e = { .calibrated = NAN, .calibrated_error = NAN, .occurrences = 1,
                           .held_out = NAN, .held_out_error = NAN };

      if (!bpw_validation_megatron_predict (bp, &rows[i], &r, error))
        {
          g_ptr_array_remove (report->sections, s);
          return FALSE;
        }
      e.name = g_strdup_printf ("%.1fB tp%" G_GINT64_FORMAT " pp%" G_GINT64_FORMAT " %"
                                G_GINT64_FORMAT " GPUs", rows[i].parameters_b, rows[i].tp,
                                rows[i].pp, rows[i].gpus);
      e.predicted = r.predicted_tflops;
      e.measured = rows[i].published_tflops;
      e.error = r.error;
      g_array_append_val (s->entries, e);
    }
  section_errors (s);
  return TRUE;
}

gboolean
bpw_validation_report_add_held_out (BpwValidationReport  *report,
                                    const BpwBlueprint   *bp,
                                    GError              **error)
{
  guint n;
  g_autofree BpwValidationResult *loo = NULL;
  BpwReportSection *s = NULL;

  bpw_validation_megatron_rows (&n);
  for (guint i = 0; i < report->sections->len && s == NULL; i++)
    if (g_strcmp0 (((BpwReportSection *) g_ptr_array_index (report->sections, i))->title,
                   MEGATRON_TITLE) == 0)
      s = g_ptr_array_index (report->sections, i);
  g_return_val_if_fail (s != NULL && s->entries->len == n, FALSE);

  loo = g_new0 (BpwValidationResult, n);
  if (!bpw_validation_leave_one_out (bp, loo, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, i);

      e->held_out = loo[i].predicted_tflops;
      e->held_out_error = loo[i].error;
    }
  section_errors (s);
  return TRUE;
}

static double
step_span (const BpwCorrelation *corr, gboolean measured)
{
  double span = 0;

  for (guint i = 0; i < corr->pairs->len; i++)
    {
      const BpwCorrelationPair *p = &g_array_index (corr->pairs, BpwCorrelationPair, i);

      span = MAX (span, measured ? p->measured_span_s : p->predicted_span_s);
    }
  return span;
}

void
bpw_validation_report_add_profile (BpwValidationReport  *report,
                                   const BpwCorrelation *corr,
                                   const BpwCorrelation *calibrated)
{
  g_autofree char *title = g_path_get_basename (corr->profile->filename);
  BpwReportSection *s = section_new (report, title, corr->sim->plan->blueprint->name, "s");
  g_autoptr(GArray) ops = bpw_correlation_by_operation (corr);
  g_autoptr(GArray) cops = calibrated != NULL ? bpw_correlation_by_operation (calibrated) : NULL;
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  const BpwCorrelationStats *st = &corr->stats;

  s->metadata = bpw_profile_meta_describe (&corr->profile->meta);
  for (guint i = 0; cops != NULL && i < cops->len; i++)
    {
      const BpwCorrelationOp *op = &g_array_index (cops, BpwCorrelationOp, i);

      g_hash_table_insert (index, g_memdup2 (&op->lineage, sizeof op->lineage),
                           GUINT_TO_POINTER (i + 1));
    }
  for (guint i = 0; i < ops->len; i++)
    {
      const BpwCorrelationOp *op = &g_array_index (ops, BpwCorrelationOp, i);
      gpointer c = g_hash_table_lookup (index, &op->lineage);
      BpwReportEntry e = {
        .name = bpw_correlation_row_name (corr, bpw_correlation_row (corr, op->first_row)),
        .predicted = op->predicted_s, .measured = op->measured_s,
        .error = op->measured_s > 0 ? op->predicted_s / op->measured_s - 1.0 : 0,
        .calibrated = NAN, .calibrated_error = NAN, .occurrences = op->rows,
      };

      if (c != NULL)
        {
          const BpwCorrelationOp *cop = &g_array_index (cops, BpwCorrelationOp,
                                                        GPOINTER_TO_UINT (c) - 1);

          e.calibrated = cop->predicted_s;
          e.calibrated_error = cop->measured_s > 0 ? cop->predicted_s / cop->measured_s - 1.0
                                                   : 0;
        }
      g_array_append_val (s->entries, e);
    }
  section_errors (s);
  s->step_predicted_s = step_span (corr, FALSE);
  s->step_measured_s = step_span (corr, TRUE);
  s->step_error = s->step_measured_s > 0 ? s->step_predicted_s / s->step_measured_s - 1.0 : NAN;
  s->work_predicted_s = st->matched_predicted_s;
  s->work_measured_s = st->matched_measured_s;
  s->work_error = st->matched_measured_s > 0 ? st->matched_predicted_s /
                                               st->matched_measured_s - 1.0 : NAN;
  s->modelled_match_rate = st->modelled_ops > 0
    ? (double) (st->matched_ops + st->covered_ops) / st->modelled_ops : 0;
  s->measured_match_rate = st->measured_items > 0
    ? (double) st->matched_items / st->measured_items : 0;
  s->unexplained_items = st->unexplained_items;
  if (calibrated != NULL)
    {
      s->calibrated_blueprint = g_strdup (calibrated->sim->plan->blueprint->name);
      s->step_calibrated_s = step_span (calibrated, FALSE);
      s->work_calibrated_s = calibrated->stats.matched_predicted_s;
    }
}

static void
number_or_null (BpwJsonWriter *w, const char *key, double value)
{
  if (isnan (value))
    bpw_json_writer_null (w, key);
  else
    bpw_json_writer_double (w, key, value);
}

char *
bpw_validation_report_to_json (const BpwValidationReport *report)
{
  BpwJsonWriter w;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_begin_array (&w, "sections");
  for (guint i = 0; i < report->sections->len; i++)
    {
      const BpwReportSection *s = g_ptr_array_index (report->sections, i);

      bpw_json_writer_begin_object (&w, NULL);
      bpw_json_writer_string (&w, "reference", s->title);
      bpw_json_writer_string (&w, "blueprint", s->blueprint);
      if (s->calibrated_blueprint != NULL)
        bpw_json_writer_string (&w, "calibrated_blueprint", s->calibrated_blueprint);
      bpw_json_writer_string (&w, "unit", s->unit);
      if (s->metadata != NULL)
        bpw_json_writer_string (&w, "metadata", s->metadata);
      bpw_json_writer_double (&w, "mean_abs_error", s->mean_abs_error);
      bpw_json_writer_double (&w, "max_abs_error", s->max_abs_error);
      number_or_null (&w, "calibrated_mean_abs_error", s->calibrated_mean_abs_error);
      number_or_null (&w, "calibrated_max_abs_error", s->calibrated_max_abs_error);
      number_or_null (&w, "leave_one_out_mean_abs_error", s->held_out_mean_abs_error);
      number_or_null (&w, "leave_one_out_max_abs_error", s->held_out_max_abs_error);
      bpw_json_writer_double (&w, "weighted_error", s->weighted_error);
      number_or_null (&w, "calibrated_weighted_error", s->calibrated_weighted_error);
      if (!isnan (s->step_measured_s))
        {
          bpw_json_writer_begin_object (&w, "end_to_end");
          bpw_json_writer_double (&w, "predicted_step_s", s->step_predicted_s);
          bpw_json_writer_double (&w, "measured_step_s", s->step_measured_s);
          number_or_null (&w, "step_error", s->step_error);
          number_or_null (&w, "calibrated_step_s", s->step_calibrated_s);
          bpw_json_writer_double (&w, "predicted_work_s", s->work_predicted_s);
          bpw_json_writer_double (&w, "measured_work_s", s->work_measured_s);
          number_or_null (&w, "work_error", s->work_error);
          number_or_null (&w, "calibrated_work_s", s->work_calibrated_s);
          bpw_json_writer_double (&w, "modelled_match_rate", s->modelled_match_rate);
          bpw_json_writer_double (&w, "measured_match_rate", s->measured_match_rate);
          bpw_json_writer_int (&w, "unexplained_items", s->unexplained_items);
          bpw_json_writer_end_object (&w);
        }
      bpw_json_writer_begin_array (&w, "entries");
      for (guint k = 0; k < s->entries->len; k++)
        {
          const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, k);

          bpw_json_writer_begin_object (&w, NULL);
          bpw_json_writer_string (&w, "name", e->name);
          bpw_json_writer_double (&w, "predicted", e->predicted);
          bpw_json_writer_double (&w, "measured", e->measured);
          bpw_json_writer_double (&w, "error", e->error);
          number_or_null (&w, "calibrated", e->calibrated);
          number_or_null (&w, "calibrated_error", e->calibrated_error);
          number_or_null (&w, "leave_one_out", e->held_out);
          number_or_null (&w, "leave_one_out_error", e->held_out_error);
          bpw_json_writer_int (&w, "occurrences", e->occurrences);
          bpw_json_writer_end_object (&w);
        }
      bpw_json_writer_end_array (&w);
      bpw_json_writer_end_object (&w);
    }
  bpw_json_writer_end_array (&w);
  bpw_json_writer_end_object (&w);
  return bpw_json_writer_finish (&w);
}

static void
text_section (GString *out, const BpwReportSection *s, guint max_entries)
{
  gboolean seconds = g_strcmp0 (s->unit, "s") == 0;
  gboolean cal = s->calibrated_blueprint != NULL;
  gboolean loo = !isnan (s->held_out_mean_abs_error);
  double scale = seconds ? 1e6 : 1.0;

  g_string_append_printf (out, "%s on %s%s%s\n", s->title, s->blueprint,
                          cal ? ", calibrated: " : "", cal ? s->calibrated_blueprint : "");
  if (s->metadata != NULL)
    g_string_append_printf (out, "  measured on: %s\n", s->metadata);
  g_string_append_printf (out, "  %-44s %12s %12s %8s%s\n", seconds ? "operation" : "row",
                          seconds ? "predicted µs" : "predicted", seconds ? "measured µs"
                          : "published", loo ? "in-sample" : "error",
                          cal ? "   calibrated    error" : loo ? "   left out  l-o-o err" : "");
  for (guint k = 0; k < s->entries->len && k < max_entries; k++)
    {
      const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, k);
      g_autofree char *name = g_utf8_make_valid (e->name, -1);

      if (g_utf8_strlen (name, -1) > 44)
        {
          g_autofree char *cut = g_utf8_substring (name, 0, 43);
          g_free (name);
          name = g_strconcat (cut, "…", NULL);
        }
      g_string_append_printf (out, "  %-44s %12.2f %12.2f %+7.1f%%", name, e->predicted * scale,
                              e->measured * scale, 100.0 * e->error);
      if (cal && !isnan (e->calibrated))
        g_string_append_printf (out, " %12.2f %+7.1f%%", e->calibrated * scale,
                                100.0 * e->calibrated_error);
      if (!isnan (e->held_out))
        g_string_append_printf (out, " %10.2f %+10.1f%%", e->held_out * scale,
                                100.0 * e->held_out_error);
      g_string_append_c (out, '\n');
    }
  if (s->entries->len > max_entries)
    g_string_append_printf (out, "  … %u more (--json lists all)\n", s->entries->len - max_entries);
  g_string_append_printf (out, "  %smean |error| %.1f %%, max |error| %.1f %% over %u %s",
                          loo ? "in-sample: " : "", 100.0 * s->mean_abs_error,
                          100.0 * s->max_abs_error, s->entries->len,
                          seconds ? "operations" : "rows");
  if (loo)
    g_string_append_printf (out, "; leave-one-out (each row predicted by a fit on the other "
                            "rows): mean %.1f %%, max %.1f %%", 100.0 * s->held_out_mean_abs_error,
                            100.0 * s->held_out_max_abs_error);
  if (!isnan (s->calibrated_mean_abs_error))
    g_string_append_printf (out, "; calibrated: mean %.1f %%, max %.1f %%",
                            100.0 * s->calibrated_mean_abs_error,
                            100.0 * s->calibrated_max_abs_error);
  g_string_append_printf (out, "\n  time-weighted |error| (Σ|predicted − measured| / Σ measured) "
                          "%.1f %%", 100.0 * s->weighted_error);
  if (!isnan (s->calibrated_weighted_error))
    g_string_append_printf (out, ", calibrated %.1f %%", 100.0 * s->calibrated_weighted_error);
  g_string_append_c (out, '\n');
  if (!isnan (s->step_measured_s))
    {
      g_string_append_printf (out, "  step end to end: predicted %.6f s, measured %.6f s "
                              "(%+.1f %%)", s->step_predicted_s, s->step_measured_s,
                              100.0 * s->step_error);
      if (!isnan (s->step_calibrated_s))
        g_string_append_printf (out, ", calibrated %.6f s (%+.1f %%)", s->step_calibrated_s,
                                100.0 * (s->step_calibrated_s / s->step_measured_s - 1.0));
      g_string_append_printf (out, "\n  matched work: predicted %.6f s, measured %.6f s (%+.1f %%)",
                              s->work_predicted_s, s->work_measured_s, 100.0 * s->work_error);
      if (!isnan (s->work_calibrated_s))
        g_string_append_printf (out, ", calibrated %.6f s (%+.1f %%)", s->work_calibrated_s,
                                100.0 * (s->work_calibrated_s / s->work_measured_s - 1.0));
      g_string_append_printf (out, "\n  correlated: %.1f %% of modelled operations, %.1f %% of "
                              "measured work items, %u unexplained\n",
                              100.0 * s->modelled_match_rate, 100.0 * s->measured_match_rate,
                              s->unexplained_items);
    }
}

char *
bpw_validation_report_to_text (const BpwValidationReport *report,
                               guint                      max_entries)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < report->sections->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, '\n');
      text_section (out, g_ptr_array_index (report->sections, i), max_entries);
    }
  return g_string_free (out, FALSE);
}
