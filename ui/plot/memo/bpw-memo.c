/* bpw-memo.c — the design-review memo of a study, as a multi-page PDF
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The title page, the headline numbers and the rejected alternatives; the figures and the
 * appendix are in bpw-memo-figures.c.
 */
#define G_LOG_DOMAIN "bpw-memo"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <cairo-pdf.h>

#include "bpw-blueprint-io.h"
#include "bpw-error.h"
#include "bpw-memo-private.h"
#include "bpw-plot-export.h"

#define PAGE_WIDTH 842.0   /* A4 landscape, points */
#define PAGE_HEIGHT 595.0

void
bpw_memo_options_init (BpwMemoOptions *options)
{
  *options = (BpwMemoOptions) { .trade_requests = 500 };
}

const char *
_bpw_memo_verdict (const BpwCompareFit *f,
                   char                *buf,
                   gsize                size)
{
  if (!f->ok)
    g_strlcpy (buf, _("not evaluated"), size);
  else if (!f->legal)
    g_strlcpy (buf, _("illegal"), size);
  else if (f->has_sla)
    g_snprintf (buf, size, _("%s SLA (%s%.0f%%)"), f->sla_pass ? _("meets") : _("fails"),
                f->sla_margin >= 0 ? "+" : "−", fabs (100 * f->sla_margin));
  else
    g_strlcpy (buf, _("legal, no SLA"), size);
  return buf;
}

/* The study's description: not in its API, so from its JSON form. */
static char *
study_description (BpwStudy *study)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *json = bpw_study_to_json (study);
  JsonNode *root;

  if (!json_parser_load_from_data (parser, json, -1, NULL))
    return g_strdup ("");
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return g_strdup ("");
  return g_strdup (json_object_get_string_member_with_default (json_node_get_object (root),
                                                               "description", ""));
}

static char *
sha256_of (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text != NULL ? text : "", -1);
}

/* Short hashes in the tables, the whole one in the PDF's keywords. */
static void
inputs_table (BpwMemo *m, GString *keywords)
{
  BpwStudy *study = m->study;
  const char * const *bps = bpw_study_get_blueprints (study);
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *json = bpw_study_to_json (study);
  g_autofree char *hash = sha256_of (json);

  g_ptr_array_add (cells, g_strdup (_("Input")));
  g_ptr_array_add (cells, g_strdup (_("Source")));
  g_ptr_array_add (cells, g_strdup ("SHA-256"));
  g_ptr_array_add (cells, g_strdup_printf (_("study “%s”"), bpw_study_get_name (study)));
  g_ptr_array_add (cells, g_strdup (bpw_study_get_path (study) != NULL
                                      ? bpw_study_get_path (study) : _("bundled")));
  g_ptr_array_add (cells, g_strdup (hash));
  g_string_append_printf (keywords, "study sha256 %s", hash);
  for (guint i = 0; bps != NULL && bps[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (study, bps[i], &error);
      g_autofree char *text = bp != NULL ? bpw_blueprint_to_json (bp) : NULL;
      g_autofree char *h = bp != NULL ? sha256_of (text) : NULL;

      g_ptr_array_add (cells, g_strdup_printf (_("blueprint %s"), bps[i]));
      g_ptr_array_add (cells, g_strdup (bp == NULL ? error->message
                                        : bp->origin != NULL ? bp->origin : _("study")));
      g_ptr_array_add (cells, g_strdup (h != NULL ? h : "—"));
      if (h != NULL)
        g_string_append_printf (keywords, "; %s sha256 %s", bps[i], h);
    }
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata, cells->len / 3, 3, NULL);
}

static void
scenarios_table (BpwMemo *m)
{
  BpwStudy *study = m->study;
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  const char *head[] = { _("Scenario"), _("Workload"), _("Phase"), _("Batch"), _("Sequence"), _("Parallelism"),
                         _("Weight"), _("SLA") };
  const BpwMemoAlign align[] = { BPW_MEMO_LEFT, BPW_MEMO_LEFT, BPW_MEMO_LEFT, BPW_MEMO_RIGHT,
                                 BPW_MEMO_RIGHT, BPW_MEMO_LEFT, BPW_MEMO_RIGHT, BPW_MEMO_LEFT };

  for (guint k = 0; k < G_N_ELEMENTS (head); k++)
    g_ptr_array_add (cells, g_strdup (head[k]));
  for (guint i = 0; i < bpw_study_get_n_scenarios (study); i++)
    {
      const BpwStudyScenario *s = bpw_study_get_scenario (study, i);
      const BpwScenario *sc = &s->scenario;
      const BpwParallel *p = &s->parallel;
      char sla[BPW_SI_LABEL_MAX];

      if (sc->sla_step_time > 0)
        bpw_si_format (sla, sizeof sla, sc->sla_step_time, "s", 3);
      else if (sc->sla_ttft > 0)
        bpw_si_format (sla, sizeof sla, sc->sla_ttft, "s", 3);
      else if (sc->sla_tpot > 0)
        bpw_si_format (sla, sizeof sla, sc->sla_tpot, "s", 3);
      else
        g_strlcpy (sla, _("none"), sizeof sla);
      g_ptr_array_add (cells, g_strdup (s->name));
      g_ptr_array_add (cells, g_strdup (bpw_study_get_workload (study, s->workload)->name));
      g_ptr_array_add (cells, g_strdup (bpw_workload_phase_to_string (sc->phase)));
      g_ptr_array_add (cells, g_strdup_printf (_("%" PRId64 " (micro %" PRId64
                                               ")"), sc->global_batch, sc->micro_batch));
      g_ptr_array_add (cells, sc->context > 0
                                ? g_strdup_printf (_("%" PRId64 " + context %" PRId64), sc->seq, sc->context)
                                : g_strdup_printf ("%" G_GINT64_FORMAT, sc->seq));
      g_ptr_array_add (cells, g_strdup_printf (_("TP %" PRId64 " × PP %" PRId64
                                               " × DP %" PRId64 "%s, %s; %s, "
                                               "recompute %s"), p->tp, p->pp, p->dp,
                                               p->sp ? ", SP" : "",
                                               bpw_schedule_to_string (p->schedule),
                                               bpw_dtype_to_string (sc->dtype),
                                               bpw_recompute_to_string (sc->recompute)));
      g_ptr_array_add (cells, g_strdup_printf ("%.2f", sc->weight));
      g_ptr_array_add (cells, g_strdup_printf ("%s%s", sc->sla_step_time > 0 ? _("step ≤ ")
                                               : sc->sla_ttft > 0 ? "TTFT ≤ "
                                               : sc->sla_tpot > 0 ? "TPOT ≤ " : "", sla));
    }
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata,
                       cells->len / G_N_ELEMENTS (head), G_N_ELEMENTS (head), align);
}

static void
candidates_table (BpwMemo *m)
{
  BpwStudy *study = m->study;
  const BpwCompareData *cmp = m->cmp;
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  guint n_suites = MIN (cmp->suites->len, 3u);
  guint cols = 4 + 2 * n_suites;

  g_ptr_array_add (cells, g_strdup (_("Candidate")));
  g_ptr_array_add (cells, g_strdup (_("Blueprint")));
  g_ptr_array_add (cells, g_strdup (_("Calibration")));
  g_ptr_array_add (cells, g_strdup (_("Mapping")));
  for (guint k = 0; k < n_suites; k++)
    {
      const BpwCompareDataSuite *s = &g_array_index (cmp->suites, BpwCompareDataSuite, k);

      g_ptr_array_add (cells, g_strdup_printf (_("Score: %s"), s->name));
      g_ptr_array_add (cells, g_strdup (_("Verdict")));
    }
  for (guint c = 0; c < cmp->n_candidates; c++)
    {
      const BpwStudyCandidate *cand = bpw_study_get_candidate (study, c);
      gboolean given = cand->mapping != NULL && JSON_NODE_HOLDS_OBJECT (cand->mapping) &&
                       json_object_get_size (json_node_get_object (cand->mapping)) > 0;

      g_ptr_array_add (cells, g_strdup_printf ("%s%s", cand->name, c == m->best ? " ★" : ""));
      g_ptr_array_add (cells, g_strdup (cand->blueprint));
      /* The status in full: the memo has no tooltips; the appendix lists the sources. */
      g_ptr_array_add (cells, g_strdup (cmp->calibration->statuses[c].label != NULL
                                        ? cmp->calibration->statuses[c].label : "—"));
      g_ptr_array_add (cells, g_strdup (given ? _("its own") : _("each scenario's")));
      for (guint k = 0; k < n_suites; k++)
        {
          const BpwCompareDataSuite *s = &g_array_index (cmp->suites, BpwCompareDataSuite, k);

          g_ptr_array_add (cells, g_strdup_printf ("%.3f", s->score[c]));
          g_ptr_array_add (cells, g_strdup_printf ("%s%s", s->feasible[c] ? _("feasible")
                                                                          : _("infeasible"),
                                                   s->pareto[c] ? _(", Pareto") : ""));
        }
    }
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata, cells->len / cols, cols,
                       NULL);
}

/* What the Pareto front of @s was taken over: score, and performance per watt and cost
 * only where every candidate has them (core/study/bpw-compare.h). */
static const char *
pareto_claim (const BpwCompareData *cmp, const BpwCompareDataSuite *s)
{
  gboolean ppw = TRUE;

  for (guint c = 0; c < cmp->n_candidates; c++)
    ppw &= !isnan (s->perf_per_watt[c]);
  if (ppw && cmp->cost_known)
    return _(" and it is on the Pareto front of score, performance per watt and cost");
  if (ppw)
    return _(" and it is on the Pareto front of score and performance per watt");
  if (cmp->cost_known)
    return _(" and it is on the Pareto front of score and cost");
  return _(" and no feasible candidate scores higher");
}

static char *
recommendation (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  const BpwCompareFit *best = bpw_compare_data_cell (cmp, m->best, cmp->scenario);
  const BpwCompareFit *base = bpw_compare_data_cell (cmp, cmp->baseline, cmp->scenario);
  GString *out = g_string_new (NULL);
  char a[BPW_SI_LABEL_MAX], b[BPW_SI_LABEL_MAX];

  g_string_append_printf (out, "%s.", cmp->candidates[m->best]);
  if (cmp->suites->len > 0)
    {
      const BpwCompareDataSuite *s = &g_array_index (cmp->suites, BpwCompareDataSuite, 0);

      g_string_append_printf (out, _(" Its weighted score on suite “%s” is %.3f (1 = the best "
                              "candidate on every scenario)%s%s."), s->name, s->score[m->best],
                              s->feasible[m->best] ? _(", it meets every SLA of the suite")
                                                   : _(", but it misses an SLA of the suite"),
                              s->pareto[m->best] ? pareto_claim (cmp, s) : "");
      if (!cmp->cost_known)
        g_string_append (out, _(" No price is given for every candidate, so nothing is claimed "
                                "about cost."));
    }
  if (best->ok && base->ok && m->best != cmp->baseline)
    {
      double d = 100 * (best->eval.step_time_s / base->eval.step_time_s - 1);

      bpw_si_format (a, sizeof a, best->eval.step_time_s, "s", 3);
      bpw_si_format (b, sizeof b, base->eval.step_time_s, "s", 3);
      g_string_append_printf (out, _(" On %s its step takes %s against %s on the baseline %s "
                              "(%s%.1f%%)."), cmp->scenarios[cmp->scenario], a, b,
                              cmp->candidates[cmp->baseline], d < 0 ? "−" : "+", fabs (d));
    }
  return g_string_free (out, FALSE);
}

static void
headline (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  const char *head[] = { _("Candidate"), _("Scenario"), _("Fit"), _("Step time"), _("TTFT"), _("TPOT"),
                         _("Tokens/s"), _("MFU"), _("Peak memory"), _("Power/device"), _("Tokens/J"),
                         _("Bottleneck") };
  gboolean show[G_N_ELEMENTS (head)];
  BpwMemoAlign align[G_N_ELEMENTS (head)];
  guint cols = 0;

  /* Columns nobody has a value for (power without an energy model) are left out. */
  for (guint k = 0; k < G_N_ELEMENTS (head); k++)
    show[k] = k != 9 && k != 10;
  for (guint i = 0; i < cmp->n_candidates * cmp->n_scenarios; i++)
    {
      show[9] |= cmp->cells[i].ok && isfinite (cmp->cells[i].eval.average_power_w);
      show[10] |= cmp->cells[i].ok && isfinite (cmp->cells[i].eval.tokens_per_joule);
    }
  for (guint k = 0; k < G_N_ELEMENTS (head); k++)
    if (show[k])
      {
        g_ptr_array_add (cells, g_strdup (head[k]));
        align[cols++] = k >= 3 && k <= 10 ? BPW_MEMO_RIGHT : BPW_MEMO_LEFT;
      }
  for (guint c = 0; c < cmp->n_candidates; c++)
    for (guint s = 0; s < cmp->n_scenarios; s++)
      {
        const BpwCompareFit *f = bpw_compare_data_cell (cmp, c, s);
        const BpwEvaluation *e = &f->eval;
        char *row[G_N_ELEMENTS (head)];
        char buf[BPW_SI_LABEL_MAX];

#define SI(v, unit) (f->ok && isfinite (v) ? (bpw_si_format (buf, sizeof buf, (v), unit, 3), \
                                              g_strdup (buf)) : g_strdup ("—"))
#define HUMAN(v, digits) (f->ok && isfinite (v) \
                          ? (bpw_si_format_human (buf, sizeof buf, (v), NULL, digits), \
                             g_strdup (buf)) : g_strdup ("—"))
        row[0] = g_strdup (s == 0 ? cmp->candidates[c] : "");
        row[1] = g_strdup (cmp->scenarios[s]);
        row[2] = g_strdup (_bpw_memo_verdict (f, buf, sizeof buf));
        row[3] = SI (e->step_time_s, "s");
        row[4] = SI (e->ttft_s, "s");
        row[5] = SI (e->tpot_s, "s");
        row[6] = HUMAN (e->tokens_per_s, 4);
        row[7] = f->ok ? g_strdup_printf ("%.1f%%", 100 * e->mfu) : g_strdup ("—");
        row[8] = SI (e->peak_bytes, bpw_plot_style_bytes_unit (&m->page.style));
        row[9] = SI (e->average_power_w, "W");
        row[10] = HUMAN (e->tokens_per_joule, 3);
        row[11] = g_strdup (f->ok ? bpw_bottleneck_display_name (e->bottleneck) : "—");
#undef SI
#undef HUMAN
        for (guint k = 0; k < G_N_ELEMENTS (head); k++)
          if (show[k])
            g_ptr_array_add (cells, row[k]);
          else
            g_free (row[k]);
      }
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata, cells->len / cols, cols,
                       align);
}

static void
rejected (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  const BpwCompareDataSuite *suite = cmp->suites->len > 0
                                       ? &g_array_index (cmp->suites, BpwCompareDataSuite, 0)
                                       : NULL;
  gboolean any = FALSE;

  bpw_memo_page_heading (&m->page, 2, _("Rejected alternatives"));
  for (guint c = 0; c < cmp->n_candidates; c++)
    {
      GString *why = g_string_new (NULL);

      for (guint s = 0; s < cmp->n_scenarios; s++)
        {
          const BpwCompareFit *f = bpw_compare_data_cell (cmp, c, s);
          char v[BPW_SI_LABEL_MAX], l[BPW_SI_LABEL_MAX];

          if (!f->ok || !f->legal)
            g_string_append_printf (why, _(" On %s it is %s: %s."), cmp->scenarios[s],
                                    f->ok ? _("illegal") : _("not evaluated"),
                                    f->error != NULL ? f->error : _("no reason given"));
          else if (f->has_sla && !f->sla_pass)
            {
              bpw_si_format (v, sizeof v, f->value, "s", 3);
              bpw_si_format (l, sizeof l, f->sla_limit, "s", 3);
              g_string_append_printf (why, _(" On %s its %s is %s against the SLA of %s "
                                      "(%.0f%% over)."), cmp->scenarios[s], f->metric, v, l,
                                      -100 * f->sla_margin);
            }
        }
      if (c != m->best && suite != NULL && suite->feasible[c] && why->len == 0)
        g_string_append_printf (why, _(" Feasible, but its score on “%s” is %.3f against %.3f "
                                "for %s%s."), suite->name, suite->score[c],
                                suite->score[m->best], cmp->candidates[m->best],
                                !suite->pareto[c] ? ""
                                : cmp->cost_known ? _(" (it stays on the Pareto front: a choice "
                                                      "when power or cost weigh more)")
                                                  : _(" (it stays on the Pareto front: a choice "
                                                      "when power weighs more)"));
      if (c != m->best && why->len > 0)
        {
          g_autofree char *line = g_strdup_printf ("%s —%s", cmp->candidates[c], why->str);

          bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, NULL, line);
          any = TRUE;
        }
      g_string_free (why, TRUE);
    }
  if (!any)
    bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, NULL,
                             _("None: the study has one candidate."));
}

gboolean
bpw_memo_write_pdf (BpwStudy             *study,
                    const BpwMemoOptions *options,
                    const char           *path,
                    GError              **error)
{
  g_autoptr(BpwComparison) comparison = NULL;
  g_autoptr(BpwReviewPacket) packet = NULL;
  BpwReviewOptions review;
  g_autofree char *footer = NULL;
  g_autofree char *meta = NULL;
  g_autofree char *rec = NULL;
  g_autofree char *description = NULL;
  g_autoptr(GString) keywords = g_string_new (NULL);
  g_autoptr(BpwFileWriter) writer = NULL;
  BpwMemoOptions defaults;
  BpwCompareOptions copts;
  cairo_surface_t *surface;
  gboolean ok;
  BpwMemo m = { .study = study };
  const char *epoch = g_getenv ("SOURCE_DATE_EPOCH");

  g_return_val_if_fail (BPW_IS_STUDY (study), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (options == NULL)
    {
      bpw_memo_options_init (&defaults);
      options = &defaults;
    }
  m.options = options;
  description = study_description (study);
  bpw_compare_options_init (&copts);
  comparison = bpw_compare_study (study, &copts, NULL, error);
  if (comparison == NULL)
    return FALSE;
  m.cmp = bpw_compare_data_new_from_comparison (comparison, study);
  for (guint c = 0; options->baseline != NULL && c <= m.cmp->n_candidates; c++)
    {
      if (c == m.cmp->n_candidates)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("The study has no candidate “%s”."), options->baseline);
          bpw_compare_data_free (m.cmp);
          return FALSE;
        }
      if (strcmp (m.cmp->candidates[c], options->baseline) == 0)
        {
          m.cmp->baseline = c;
          break;
        }
    }
  m.best = bpw_compare_data_best (m.cmp);

  writer = bpw_file_writer_new (path, error);
  if (writer == NULL)
    {
      bpw_compare_data_free (m.cmp);
      return FALSE;
    }
  /* After the writer is open, so that a folder that cannot take the file fails at once;
   * the writer replaces @path only when it finishes, so a failure leaves the old file. */
  bpw_review_options_init (&review);
  review.baseline = options->baseline;
  packet = bpw_review_packet_new (study, &review, NULL, error);
  if (packet == NULL)
    {
      bpw_compare_data_free (m.cmp);
      return FALSE;
    }
  surface = cairo_pdf_surface_create_for_stream (bpw_plot_export_write_cb, writer, PAGE_WIDTH,
                                                 PAGE_HEIGHT);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not write “%s”: %s."), path,
                   cairo_status_to_string (cairo_surface_status (surface)));
      cairo_surface_destroy (surface);
      bpw_compare_data_free (m.cmp);
      return FALSE;
    }
  footer = g_strdup_printf (_("Design review: %s · Blueprint Workbench %s"),
                            bpw_study_get_name (study), PACKAGE_VERSION);
  bpw_memo_page_begin (&m.page, surface, PAGE_WIDTH, PAGE_HEIGHT, footer);
  m.page.style.decimal_bytes = m.page.figure_style.decimal_bytes = options->decimal_bytes;

  bpw_memo_page_heading (&m.page, 0, bpw_study_get_name (study));
  meta = g_strdup_printf (_("Design review memo · Blueprint Workbench %s · %u candidates on %u "
                          "scenarios · analytic estimates and one simulated step, as each "
                          "caption says"), PACKAGE_VERSION, m.cmp->n_candidates,
                          m.cmp->n_scenarios);
  bpw_memo_page_paragraph (&m.page, BPW_PLOT_FONT_SMALL, &m.page.style.muted, meta);
  if (description[0] != '\0')
    bpw_memo_page_paragraph (&m.page, BPW_PLOT_FONT_BODY, NULL, description);
  bpw_memo_page_heading (&m.page, 2, _("Recommendation"));
  rec = recommendation (&m);
  bpw_memo_page_paragraph (&m.page, BPW_PLOT_FONT_BODY, NULL, rec);
  /* The ranking above rests on each candidate's calibration: say when it is uneven. */
  if (m.cmp->calibration->warning != NULL)
    bpw_memo_page_paragraph (&m.page, BPW_PLOT_FONT_BODY, &m.page.style.muted,
                             m.cmp->calibration->warning);
  bpw_memo_page_heading (&m.page, 2, _("Scenarios"));
  scenarios_table (&m);
  bpw_memo_page_heading (&m.page, 2, _("Candidates and suite scores"));
  candidates_table (&m);
  bpw_memo_page_heading (&m.page, 2, _("Inputs"));
  inputs_table (&m, keywords);

  bpw_memo_page_heading (&m.page, 1, _("Headline numbers"));
  bpw_memo_page_paragraph (&m.page, BPW_PLOT_FONT_SMALL, &m.page.style.muted,
                           _("Analytic estimates (the estimator search uses), mappings as given "
                           "in the study. Step time per training step or inference batch; TTFT "
                           "and TPOT for serving scenarios; memory per device at its peak; "
                           "power per device averaged over the step."));
  headline (&m);
  rejected (&m);
  _bpw_memo_layers (&m);

  _bpw_memo_packet (&m, packet);
  _bpw_memo_figures (&m);
  _bpw_memo_appendix (&m);
  bpw_memo_page_end (&m.page);

  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, bpw_study_get_name (study));
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT, _("Design review memo"));
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR,
                                  "Blueprint Workbench " PACKAGE_VERSION);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_KEYWORDS, keywords->str);
  if (epoch != NULL)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (g_ascii_strtoll (epoch, NULL,
                                                                               10));
      g_autofree char *iso = dt != NULL ? g_date_time_format_iso8601 (dt) : NULL;

      /* Reproducible builds: the date the environment fixes, not the clock. */
      if (iso != NULL)
        {
          cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATE_DATE, iso);
          cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_MOD_DATE, iso);
        }
    }
  cairo_surface_finish (surface);
  ok = bpw_plot_export_finish (surface, writer, error);
  cairo_surface_destroy (surface);
  bpw_compare_data_free (m.cmp);
  g_clear_pointer (&m.plan, bpw_plan_free);
  return ok;
}
