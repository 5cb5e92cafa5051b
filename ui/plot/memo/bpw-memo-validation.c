/* bpw-memo-validation.c — the memo's validation section from the study's measurements
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-memo-validation"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-blueprint-io.h"
#include "bpw-measurement-run.h"
#include "bpw-memo-validation.h"

/* Extra and missing work listed per measurement. */
#define UNMATCHED_ROWS 12
/* Characters of an operation's name in a table cell. */
#define NAME_CHARS 52

/* A row that joins many operations (an optimizer step updates every tensor) would fill a
 * table's width: its first operation and how many more. */
static char *
bpw_memo_validation_name (const char *name)
{
  g_auto(GStrv) parts = NULL;
  g_autofree char *cut = NULL;

  if (g_utf8_strlen (name, -1) <= NAME_CHARS)
    return g_strdup (name);
  parts = g_strsplit (name, " + ", -1);
  if (g_strv_length (parts) > 1 && g_utf8_strlen (parts[0], -1) < NAME_CHARS - 12)
    return g_strdup_printf (_("%s + %u more"), parts[0], g_strv_length (parts) - 1);
  cut = g_utf8_substring (name, 0, NAME_CHARS - 1);
  return g_strconcat (cut, "…", NULL);
}

static char *
bpw_memo_validation_percent (double error)
{
  return isnan (error) ? g_strdup ("—") : g_strdup_printf ("%+.1f %%", 100.0 * error);
}

static char *
bpw_memo_validation_seconds (double seconds)
{
  char buf[BPW_SI_LABEL_MAX];

  bpw_si_format (buf, sizeof buf, seconds, "s", 3);
  return g_strdup (buf);
}

static void
bpw_memo_validation_table1 (BpwMemoPage            *page,
                            const BpwReportSection *s)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *heading = g_strdup_printf (_("%s on %s"), s->title, s->blueprint);
  g_autofree char *summary = NULL;
  gboolean loo = !isnan (s->held_out_mean_abs_error);
  const char *head[] = { _("Model and decomposition"), _("Predicted TFLOP/s per GPU"),
                         _("Published"), _("Error in sample"), _("Left out: predicted"),
                         _("Error left out") };
  const BpwMemoAlign align[] = { BPW_MEMO_LEFT, BPW_MEMO_RIGHT, BPW_MEMO_RIGHT, BPW_MEMO_RIGHT,
                                 BPW_MEMO_RIGHT, BPW_MEMO_RIGHT };
  guint columns = loo ? G_N_ELEMENTS (head) : G_N_ELEMENTS (head) - 2;

  bpw_memo_page_heading (page, 2, heading);
  summary = g_strdup_printf (_("The ten GPT models of the table (1.7 B to 1 T parameters on A100s), "
                             "predicted with the paper's Eq. (3) FLOPs over the simulated step "
                             "time, as `bpw validate` prints them: mean |error| %.1f %%, max "
                             "%.1f %%."), 100.0 * s->mean_abs_error, 100.0 * s->max_abs_error);
  bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, NULL, summary);
  if (loo)
    {
      g_autofree char *which = g_strdup_printf (
        _("In sample: the A100 blueprint's efficiencies were fitted to these ten rows by "
          "`bpw validate --fit`'s rule, the smallest worst |error|, so its errors show how "
          "well the fit reproduces what it saw. Left out: each row predicted after "
          "refitting the efficiencies on the other nine rows by least squares of the log "
          "error, where every row weighs (under the worst-error rule a row that does not "
          "bind it would predict its in-sample value), out of sample: mean |error| %.1f %%, "
          "max %.1f %%."),
        100.0 * s->held_out_mean_abs_error, 100.0 * s->held_out_max_abs_error);

      bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, NULL, which);
    }
  for (guint k = 0; k < columns; k++)
    g_ptr_array_add (cells, g_strdup (head[k]));
  for (guint i = 0; i < s->entries->len; i++)
    {
      const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, i);

      g_ptr_array_add (cells, g_strdup (e->name));
      g_ptr_array_add (cells, g_strdup_printf ("%.1f", e->predicted));
      g_ptr_array_add (cells, g_strdup_printf ("%.0f", e->measured));
      g_ptr_array_add (cells, bpw_memo_validation_percent (e->error));
      if (loo)
        {
          g_ptr_array_add (cells, g_strdup_printf ("%.1f", e->held_out));
          g_ptr_array_add (cells, bpw_memo_validation_percent (e->held_out_error));
        }
    }
  bpw_memo_page_table (page, (const char * const *) cells->pdata, cells->len / columns,
                       columns, align);
}

static void
bpw_memo_validation_unmatched (BpwMemoPage          *page,
                               const BpwCorrelation *corr)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  const char *head[] = { _("Unmatched"), _("Operation or kernel"), _("Time"), _("Why") };
  const BpwMemoAlign align[] = { BPW_MEMO_LEFT, BPW_MEMO_LEFT, BPW_MEMO_RIGHT, BPW_MEMO_LEFT };
  guint shown = 0, total = 0;

  for (guint k = 0; k < G_N_ELEMENTS (head); k++)
    g_ptr_array_add (cells, g_strdup (head[k]));
  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (corr, i);
      gboolean extra = r->status == BPW_ROW_EXTRA;
      g_autofree char *name = NULL;

      if (r->status == BPW_ROW_MATCHED)
        continue;
      total++;
      if (shown++ >= UNMATCHED_ROWS)
        continue;
      g_ptr_array_add (cells, g_strdup (extra ? _("extra (measured only)")
                                              : _("missing (modelled only)")));
      name = bpw_correlation_row_name (corr, r);
      g_ptr_array_add (cells, bpw_memo_validation_name (name));
      g_ptr_array_add (cells, bpw_memo_validation_seconds (extra ? r->measured_s
                                                                 : r->predicted_s));
      g_ptr_array_add (cells, g_strdup (r->reason != NULL ? r->reason : ""));
    }
  if (total == 0)
    return;
  bpw_memo_page_table (page, (const char * const *) cells->pdata,
                       cells->len / G_N_ELEMENTS (head), G_N_ELEMENTS (head), align);
  if (total > UNMATCHED_ROWS)
    {
      g_autofree char *more = g_strdup_printf (_("… and %u more unmatched rows."),
                                               total - UNMATCHED_ROWS);

      bpw_memo_page_paragraph (page, BPW_PLOT_FONT_SMALL, &page->style.muted, more);
    }
}

static void
bpw_memo_validation_profile (BpwMemoPage             *page,
                             const BpwMeasurementRun *run,
                             const BpwReportSection  *s)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *heading = g_strdup_printf (_("Measurement “%s”: %s on %s"), run->name,
                                              run->candidate, run->scenario);
  g_autofree char *step_p = bpw_memo_validation_seconds (s->step_predicted_s);
  g_autofree char *step_m = bpw_memo_validation_seconds (s->step_measured_s);
  g_autofree char *step_e = bpw_memo_validation_percent (s->step_error);
  g_autofree char *summary = NULL;
  gboolean cal = s->calibrated_blueprint != NULL;
  const char *head[] = { _("Operation"), _("n"), _("Predicted"), _("Measured"), _("Error"), _("Calibrated"),
                         _("Error") };
  const BpwMemoAlign align[] = { BPW_MEMO_LEFT, BPW_MEMO_RIGHT, BPW_MEMO_RIGHT, BPW_MEMO_RIGHT,
                                 BPW_MEMO_RIGHT, BPW_MEMO_RIGHT, BPW_MEMO_RIGHT };
  guint columns = cal ? G_N_ELEMENTS (head) : G_N_ELEMENTS (head) - 2;
  double rest_p = 0, rest_m = 0;

  bpw_memo_page_heading (page, 2, heading);
  summary = g_strdup_printf (_("%s (%s) against the step simulated on %s%s%s. Step end to end: "
                             "predicted %s, measured %s (%s). Per operation: mean |error| "
                             "%.1f %%, max %.1f %%, time-weighted %.1f %%%s. Correlated "
                             "%.1f %% of the modelled operations and %.1f %% of the measured "
                             "work items; %u measured items unexplained.%s"),
                             s->title, s->metadata != NULL ? s->metadata : _("no metadata"),
                             s->blueprint, cal ? _(" and on its calibration ") : "",
                             cal ? s->calibrated_blueprint : "", step_p, step_m, step_e,
                             100.0 * s->mean_abs_error, 100.0 * s->max_abs_error,
                             100.0 * s->weighted_error, cal ? _(" before calibration") : "",
                             100.0 * s->modelled_match_rate, 100.0 * s->measured_match_rate,
                             s->unexplained_items,
                             run->changed ? _(" The profile changed since it was added to the "
                                            "study: these are the numbers of the file as it is "
                                            "now.") : "");
  bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, NULL, summary);
  for (guint k = 0; k < columns; k++)
    g_ptr_array_add (cells, g_strdup (head[k]));
  for (guint i = 0; i < s->entries->len; i++)
    {
      const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, i);

      if (i >= BPW_MEMO_VALIDATION_TOP)
        {
          rest_p += e->predicted;
          rest_m += e->measured;
          continue;
        }
      g_ptr_array_add (cells, bpw_memo_validation_name (e->name));
      g_ptr_array_add (cells, g_strdup_printf ("%u", e->occurrences));
      g_ptr_array_add (cells, bpw_memo_validation_seconds (e->predicted));
      g_ptr_array_add (cells, bpw_memo_validation_seconds (e->measured));
      g_ptr_array_add (cells, bpw_memo_validation_percent (e->error));
      if (cal)
        {
          g_ptr_array_add (cells, isnan (e->calibrated) ? g_strdup ("—")
                                                        : bpw_memo_validation_seconds (
                                                            e->calibrated));
          g_ptr_array_add (cells, bpw_memo_validation_percent (e->calibrated_error));
        }
    }
  if (s->entries->len > BPW_MEMO_VALIDATION_TOP)
    {
      g_ptr_array_add (cells, g_strdup_printf (_("%u more operations"),
                                               s->entries->len - BPW_MEMO_VALIDATION_TOP));
      g_ptr_array_add (cells, g_strdup (""));
      g_ptr_array_add (cells, bpw_memo_validation_seconds (rest_p));
      g_ptr_array_add (cells, bpw_memo_validation_seconds (rest_m));
      g_ptr_array_add (cells, bpw_memo_validation_percent (rest_m > 0 ? rest_p / rest_m - 1
                                                                       : NAN));
      for (guint k = 5; k < columns; k++)
        g_ptr_array_add (cells, g_strdup (""));
    }
  bpw_memo_page_table (page, (const char * const *) cells->pdata, cells->len / columns,
                       columns, align);
  bpw_memo_validation_unmatched (page, run->correlation);
}

gboolean
bpw_memo_validation_write (BpwMemoPage *page,
                           BpwStudy    *study,
                           gpointer     user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) a100 = NULL;
  g_autoptr(BpwValidationReport) report = NULL;
  g_autofree BpwMeasurementRun *runs = NULL;
  guint n = bpw_study_get_n_measurements (study), section = 0;

  /* The published reference stands with or without measurements of the study's own, as
   * on the Validation page: the memo says what the window shows. */
  if (n > 0)
    bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, NULL,
                             _("Predicted against measured; error is predicted / measured − 1. "
                             "First the published reference, then every measurement the study "
                             "holds: a profile of a candidate running a scenario, its kernels "
                             "matched with the simulated step's operations by lineage, kind, "
                             "shape and order."));
  else
    bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, NULL,
                             _("Predicted against published; error is predicted / published − 1. "
                             "The study holds no measurements of its own (a profile of a "
                             "candidate running a scenario, once imported, is compared here "
                             "too), so the reference below is the validation there is."));
  runs = g_new0 (BpwMeasurementRun, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    if (!bpw_measurement_run_init (&runs[i], study, i, &error)
        || !bpw_measurement_run_execute (&runs[i], &error))
      {
        /* Said in place: one broken measurement does not hide the others. */
        bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, &page->style.muted, error->message);
        g_clear_error (&error);
      }
  a100 = bpw_blueprint_load (BPW_MEASUREMENT_TABLE1_BLUEPRINT, NULL, &error);
  if (a100 == NULL)
    {
      bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, &page->style.muted, error->message);
      g_clear_error (&error);
    }
  report = bpw_measurement_run_report (runs, n, a100, &error);
  /* Out of sample beside in sample; where the refits fail, in sample stands alone. */
  if (report != NULL && a100 != NULL && !bpw_validation_report_add_held_out (report, a100, &error))
    g_clear_error (&error);
  if (report == NULL)
    bpw_memo_page_paragraph (page, BPW_PLOT_FONT_BODY, &page->style.muted, error->message);
  else if (a100 != NULL)
    bpw_memo_validation_table1 (page, g_ptr_array_index (report->sections, section++));
  for (guint i = 0; i < n; i++)
    {
      if (report != NULL && runs[i].correlation != NULL)
        bpw_memo_validation_profile (page, &runs[i],
                                     g_ptr_array_index (report->sections, section++));
      bpw_measurement_run_clear (&runs[i]);
    }
  return TRUE;
}

void
bpw_memo_options_set_validation (BpwMemoOptions *options,
                                 BpwStudy       *study)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (BPW_IS_STUDY (study));

  options->validation = bpw_memo_validation_write;
  options->validation_data = NULL;
}
