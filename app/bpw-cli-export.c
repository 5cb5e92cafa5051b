/* bpw-cli-export.c — `bpw export STUDY --view VIEW [--format FORMAT] --output FILE`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The mapping sheet as CSV or Markdown; the charts (roofline, assignment, timeline,
 * lifetimes, trade, compare) as PNG, SVG, PDF or the CSV behind them, drawn by
 * libbpw-plot with its print style, the same code the workbench's views draw with
 * (bpw-cli-export-views.c builds them); the design-review memo as a PDF; and the review
 * packet as JSON or Markdown (core/review).
 */
#define G_LOG_DOMAIN "bpw-cli-export"

#include "config.h"

#include "bpw-cli.h"
#include "bpw-cli-export.h"

#include <math.h>
#include <string.h>

#include "bpw-file.h"
#include "bpw-mapping-sheet.h"
#include "bpw-review-packet.h"

#ifdef BPW_HAVE_PLOT
#include "bpw-plot-export.h"
#endif

static const char * const chart_views[] = {
  "roofline", "assignment", "timeline", "lifetimes", "trade", "compare", NULL,
};

static gboolean
export_sheet (BpwStudy *study, const BpwExportOptions *o, GError **error)
{
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autofree char *text = NULL;
  g_autofree char *title = NULL;
  guint s;

  plan = bpw_cli_export_bind_plan (study, o->candidate, o->scenario, &s, error);
  if (plan == NULL)
    return FALSE;

  rows = bpw_mapping_sheet_new (plan, !o->all_blocks && strcmp (o->format, "md") == 0);
  title = g_strdup_printf ("Mapping sheet: %s on %s (%s)",
                           bpw_study_get_scenario (study, s)->name,
                           bpw_cli_export_candidate_name (study, o->candidate),
                           plan->blueprint->name);
  text = strcmp (o->format, "csv") == 0 ? bpw_mapping_sheet_to_csv (rows)
                                        : bpw_mapping_sheet_to_markdown (rows, title);
  return bpw_file_replace_contents (o->output, text, -1, error);
}

/* The review packet as JSON or Markdown: the same content (bpw-review-document.h). */
static gboolean
export_packet (BpwStudy *study, const BpwExportOptions *o, GError **error)
{
  g_autoptr(BpwReviewPacket) packet = NULL;
  g_autofree char *text = NULL;
  BpwReviewOptions options;

  bpw_review_options_init (&options);
  options.baseline = o->baseline;
  packet = bpw_review_packet_new (study, &options, NULL, error);
  if (packet == NULL)
    return FALSE;
  text = strcmp (o->format, "json") == 0 ? bpw_review_packet_to_json (packet)
                                         : bpw_review_packet_to_markdown (packet);
  return bpw_file_replace_contents (o->output, text, -1, error);
}

/* "T0:T1" in seconds, T0 < T1. */
static gboolean
parse_time (BpwExportOptions *o)
{
  g_auto(GStrv) parts = NULL;
  char *end = NULL;

  o->t0 = o->t1 = NAN;
  if (o->time == NULL)
    return TRUE;
  parts = g_strsplit (o->time, ":", -1);
  if (g_strv_length (parts) != 2)
    return FALSE;
  o->t0 = g_ascii_strtod (parts[0], &end);
  if (end == parts[0] || *end != '\0')
    return FALSE;
  o->t1 = g_ascii_strtod (parts[1], &end);
  if (end == parts[1] || *end != '\0')
    return FALSE;
  return isfinite (o->t0) && isfinite (o->t1) && o->t0 >= 0 && o->t1 > o->t0;
}

/* "FIRST-LAST", stage numbers from 0, FIRST <= LAST. */
static gboolean
parse_stages (BpwExportOptions *o)
{
  char *end = NULL;

  o->first_stage = o->last_stage = -1;
  if (o->stages == NULL)
    return TRUE;
  o->first_stage = g_ascii_strtoll (o->stages, &end, 10);
  if (end == o->stages || *end != '-' || o->first_stage < 0)
    return FALSE;
  o->last_stage = g_ascii_strtoll (end + 1, &end, 10);
  return *end == '\0' && o->last_stage >= o->first_stage && o->last_stage < 1000000;
}

static gboolean
one_of (const char *value, const char * const *allowed)
{
  return value == NULL || g_strv_contains (allowed, value);
}

#ifdef BPW_HAVE_PLOT
static int
check_chart_options (BpwExportOptions *o, gboolean memo, BpwPlotFormat *format)
{
  static const char * const colorings[] = { "phase", "bottleneck", "layer-type", NULL };
  static const char * const metrics[] = { "ttft", "tpot", "e2e", NULL };
  static const char * const ys[] = { "throughput", "per-watt", "per-dollar", NULL };
  static const char * const units[] = { "gib", "gb", NULL };

  if (memo && strcmp (o->format, "pdf") != 0)
    return bpw_cli_usage ("export", "export: the memo is written as pdf only, not '%s'",
                          o->format);
  if (!bpw_plot_format_from_string (o->format, format))
    return bpw_cli_usage ("export", "export: charts are written as png, svg, pdf or csv, "
                          "not '%s'", o->format);
  if (!(o->width >= 1 && o->height >= 1 && o->width <= 14400 && o->height <= 14400))
    return bpw_cli_usage ("export", "export: --width and --height must be between 1 and "
                          "14400 points");
  if (!(o->dpi >= 18 && o->dpi <= 1200) ||
      ceil (o->width * o->dpi / 72) > BPW_PLOT_EXPORT_MAX_PIXELS ||
      ceil (o->height * o->dpi / 72) > BPW_PLOT_EXPORT_MAX_PIXELS)
    return bpw_cli_usage ("export", "export: --dpi must be between 18 and 1200 and give "
                          "at most %d pixels a side", BPW_PLOT_EXPORT_MAX_PIXELS);
  if (o->stage < -1)
    return bpw_cli_usage ("export", "export: --stage must be a stage number from 0");
  if (o->baseline != NULL && strcmp (o->view, "roofline") != 0 &&
      strcmp (o->view, "compare") != 0 && !memo)
    return bpw_cli_usage ("export", "export: --baseline applies to the roofline, the "
                          "comparison and the memo");
  if (!parse_time (o))
    return bpw_cli_usage ("export", "export: --time expects T0:T1 in seconds with "
                          "0 <= T0 < T1, got '%s'", o->time);
  if (!parse_stages (o) || (o->stages != NULL && o->stage >= 0))
    return bpw_cli_usage ("export", "export: --stages expects FIRST-LAST stage numbers, and "
                          "not with --stage; got '%s'", o->stages);
  if (!one_of (o->color_by, colorings))
    return bpw_cli_usage ("export", "export: --color-by is phase, bottleneck or layer-type, "
                          "not '%s'", o->color_by);
  if (!one_of (o->metric, metrics))
    return bpw_cli_usage ("export", "export: --metric is ttft, tpot or e2e, not '%s'",
                          o->metric);
  if (!one_of (o->y, ys))
    return bpw_cli_usage ("export", "export: --y is throughput, per-watt or per-dollar, "
                          "not '%s'", o->y);
  if (o->requests < 0 || o->requests > 1000000)
    return bpw_cli_usage ("export", "export: --requests must be from 1 to 1000000");
  if (!one_of (o->units, units))
    return bpw_cli_usage ("export", "export: --units is gib or gb, not '%s'", o->units);
  return BPW_CLI_EXIT_OK;
}
#endif

static int
run_export (BpwExportOptions *o, const char *study_name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = NULL;
  gboolean memo = strcmp (o->view, "memo") == 0;
  gboolean chart = g_strv_contains (chart_views, o->view);

  if (strcmp (o->view, "sheet") == 0)
    {
      if (strcmp (o->format, "csv") != 0 && strcmp (o->format, "md") != 0)
        return bpw_cli_usage ("export", "export: the sheet is written as csv or md, not '%s'",
                              o->format);
      if ((study = bpw_study_load (study_name, &error)) == NULL ||
          !bpw_study_check_references (study, NULL, &error) ||
          !export_sheet (study, o, &error))
        return bpw_cli_report_error ("export", error);
      return BPW_CLI_EXIT_OK;
    }
  if (strcmp (o->view, "packet") == 0)
    {
      if (strcmp (o->format, "json") != 0 && strcmp (o->format, "md") != 0)
        return bpw_cli_usage ("export", "export: the packet is written as json or md, not '%s'",
                              o->format);
      if ((study = bpw_study_load (study_name, &error)) == NULL ||
          !bpw_study_check_references (study, NULL, &error) ||
          !export_packet (study, o, &error))
        return bpw_cli_report_error ("export", error);
      return BPW_CLI_EXIT_OK;
    }
  if (!chart && !memo)
    return bpw_cli_usage ("export", "export: unknown view '%s'; available: sheet, roofline, "
                          "assignment, timeline, lifetimes, trade, compare, memo, packet",
                          o->view);
#ifdef BPW_HAVE_PLOT
  {
    g_autoptr(BpwPlot) plot = NULL;
    BpwPlotStyle print;
    BpwPlotFormat format;
    int status = check_chart_options (o, memo, &format);

    if (status != BPW_CLI_EXIT_OK)
      return status;
    /* A candidate whose blueprint is missing or wrong is a broken study, as for compare. */
    if ((study = bpw_study_load (study_name, &error)) == NULL ||
        !bpw_study_check_references (study, NULL, &error))
      return bpw_cli_report_error ("export", error);
    if (memo)
      return bpw_cli_export_memo (study, o, &error) ? BPW_CLI_EXIT_OK
                                                    : bpw_cli_report_error ("export", error);
    plot = bpw_cli_export_chart (study, o, &error);
    bpw_plot_style_init_print (&print);
    print.decimal_bytes = bpw_cli_export_decimal_bytes (o);
    if (plot == NULL ||
        !bpw_plot_export (plot, &print, format, o->width, o->height, o->dpi / 72.0, o->output,
                          &error))
      return bpw_cli_report_error ("export", error);
    return BPW_CLI_EXIT_OK;
  }
#else
  return bpw_cli_usage ("export", "export: this bpw was built without cairo and pango, so it "
                        "cannot draw the %s", o->view);
#endif
}

/* Without --format, the output file's extension names the format ("sheet.md", "roof.svg");
 * the memo has one format, so it needs neither. NULL when neither tells. */
static char *
infer_format (const char *view,
              const char *output)
{
  static const char * const known[] = { "csv", "md", "json", "png", "svg", "pdf", NULL };
  const char *base = strrchr (output, '/');
  const char *dot = strrchr (base != NULL ? base : output, '.');
  g_autofree char *extension = dot != NULL ? g_ascii_strdown (dot + 1, -1) : NULL;

  if (extension != NULL && g_strv_contains (known, extension))
    return g_steal_pointer (&extension);
  if (strcmp (view, "memo") == 0)
    return g_strdup ("pdf");
  return NULL;
}

gboolean
bpw_cli_export_decimal_bytes (const BpwExportOptions *o)
{
  return g_strcmp0 (o->units, "gb") == 0;
}

int
bpw_cli_export (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  BpwExportOptions o = { .stage = -1, .select = -1, .width = 720, .height = 405, .dpi = 144,
                         .first_stage = -1, .last_stage = -1 };
  int status = BPW_CLI_EXIT_OK;
  const GOptionEntry entries[] = {
    { "view", 0, 0, G_OPTION_ARG_STRING, &o.view,
      "What to export: sheet, roofline, assignment, timeline, lifetimes, trade, compare, memo "
      "or packet", "VIEW" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format,
      "csv or md (the sheet); png, svg, pdf or csv (charts: the data behind them); pdf (memo); "
      "json or md (packet); default: the --output file's extension (the memo: pdf)",
      "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "The file to write", "FILE" },
    { "candidate", 0, 0, G_OPTION_ARG_STRING, &o.candidate,
      "The study candidate (default: the first)", "NAME" },
    { "scenario", 0, 0, G_OPTION_ARG_STRING, &o.scenario,
      "The study scenario (default: the first; trade: the first serving one; compare: the "
      "first for the breakdown bars)", "NAME" },
    { "all-blocks", 0, 0, G_OPTION_ARG_NONE, &o.all_blocks,
      "Markdown: every transformer block, not only each stage's first", NULL },
    { "stage", 0, 0, G_OPTION_ARG_INT64, &o.stage,
      "Charts: the pipeline stage (roofline: all; assignment: the slowest; timeline: all; "
      "lifetimes: the one with the highest peak)", "N" },
    { "baseline", 0, 0, G_OPTION_ARG_STRING, &o.baseline,
      "Roofline: overlay this candidate; compare, memo and packet: the candidate deltas are "
      "against (default: the first)", "NAME" },
    { "all-precisions", 0, 0, G_OPTION_ARG_NONE, &o.all_precisions,
      "Roofline: matrix peaks in every precision the blueprint runs", NULL },
    { "time", 0, 0, G_OPTION_ARG_STRING, &o.time,
      "Timeline, lifetimes: the time range in seconds (default: the whole step)", "T0:T1" },
    { "stages", 0, 0, G_OPTION_ARG_STRING, &o.stages,
      "Timeline: only these pipeline stages", "FIRST-LAST" },
    { "color-by", 0, 0, G_OPTION_ARG_STRING, &o.color_by,
      "Timeline: phase (default), bottleneck or layer-type", "KEY" },
    { "select", 0, 0, G_OPTION_ARG_INT64, &o.select,
      "Timeline: select an event of this op lineage id (the first in the time range) and "
      "draw its dependencies",
      "ID" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &o.metric,
      "Trade: the latency on x: ttft, tpot or e2e (default: the scenario's SLA)", "M" },
    { "y", 0, 0, G_OPTION_ARG_STRING, &o.y,
      "Trade: throughput (default), per-watt or per-dollar", "Y" },
    { "requests", 0, 0, G_OPTION_ARG_INT64, &o.requests,
      "Trade: requests served per arrival rate (default 1000)", "N" },
    { "width", 0, 0, G_OPTION_ARG_DOUBLE, &o.width, "Charts: width in points (720)", "PT" },
    { "height", 0, 0, G_OPTION_ARG_DOUBLE, &o.height, "Charts: height in points (405)", "PT" },
    { "dpi", 0, 0, G_OPTION_ARG_DOUBLE, &o.dpi,
      "Charts: PNG resolution, pixels per inch (144: twice 72)", "DPI" },
    { "units", 0, 0, G_OPTION_ARG_STRING, &o.units,
      "Charts and memo: memory sizes in gib (2^30 bytes, default) or gb (10^9 bytes)",
      "gib|gb" },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("bpw export");
  context = g_option_context_new ("STUDY");
  g_option_context_set_summary (context,
                                "Exports a view of a study. STUDY is a study file or a bundled "
                                "name (default).\nThe mapping sheet (--view sheet) is written as "
                                "CSV (every operation of every stage) or\nMarkdown (each stage's "
                                "first block, embedding and head). Charts (roofline, assignment,\n"
                                "timeline, lifetimes, trade, compare) are written as PNG, SVG or "
                                "PDF with the print\nstyle, or as the CSV of the data they plot. "
                                "The memo (--view memo) is a PDF for design\nreviews: the study, "
                                "its candidates, the comparison and the key charts of the best,\n"
                                "and the review packet's sections. The review packet (--view "
                                "packet) is JSON or\nMarkdown with the same content: metadata "
                                "(input hashes, versions of measured runs),\nquality thresholds "
                                "and evidence per precision mode, baseline and candidates with\n"
                                "calibration, bottleneck evidence, mitigations, rejected "
                                "alternatives, the validation\nmatrix, owners and the "
                                "recommendation (go, conditional or no-go). A precision mode\n"
                                "without validated quality evidence is never counted.");
  g_option_context_add_main_entries (context, entries, NULL);

  if (!bpw_cli_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("export", error);
  else if (argc != 2)
    status = bpw_cli_usage ("export", "export: expected one STUDY");
  else if (o.view == NULL || o.output == NULL)
    status = bpw_cli_usage ("export", "export: --view and --output are required");
  else if (o.format == NULL && (o.format = infer_format (o.view, o.output)) == NULL)
    status = bpw_cli_usage ("export", "export: --format is required when the --output file's "
                            "extension is not csv, md, json, png, svg or pdf");
  else
    status = run_export (&o, argv[1]);

  g_free (o.view);
  g_free (o.format);
  g_free (o.output);
  g_free (o.candidate);
  g_free (o.scenario);
  g_free (o.baseline);
  g_free (o.color_by);
  g_free (o.time);
  g_free (o.metric);
  g_free (o.units);
  g_free (o.y);
  g_free (o.stages);
  return status;
}
