/* bpw-cli-export.c — `bpw export STUDY --view VIEW --format FORMAT --output FILE`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The mapping sheet as CSV or Markdown, and the charts (roofline, assignment) as PNG,
 * SVG, PDF or the CSV behind them, drawn by libbpw-plot with its print style: the same
 * code the workbench's views draw with.
 */
#define G_LOG_DOMAIN "bpw-cli-export"

#include "config.h"

#include "bpw-cli.h"

#include <math.h>
#include <string.h>

#include "bpw-candidate.h"
#include "bpw-mapping-sheet.h"
#include "bpw-study.h"

#ifdef BPW_HAVE_PLOT
#include "bpw-assignment-plot.h"
#include "bpw-plot-export.h"
#include "bpw-roofline-plot.h"
#endif

typedef struct
{
  char     *view;
  char     *format;
  char     *output;
  char     *candidate;
  char     *scenario;
  char     *baseline;
  gboolean  all_blocks;
  gboolean  all_precisions;
  gint64    stage;
  double    width, height, dpi;
} ExportOptions;

static gboolean
lookup_candidate (BpwStudy *study, const char *name, guint *index, GError **error)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (name == NULL || strcmp (bpw_study_get_candidate (study, i)->name, name) == 0)
      {
        *index = i;
        return TRUE;
      }
  g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "export: the study has no candidate “%s”",
               name != NULL ? name : "");
  return FALSE;
}

/* Binds study candidate @candidate (NULL: the first) on scenario @scenario (NULL: the
 * first); @s receives the scenario's index. */
static BpwPlan *
bind_plan (BpwStudy *study, const char *candidate, const char *scenario, guint *s,
           GError **error)
{
  BpwPlan *plan = NULL;
  BpwCandidateRun run;
  guint c = 0;
  gboolean ok;

  *s = 0;
  if (!lookup_candidate (study, candidate, &c, error))
    return NULL;
  if (scenario != NULL && !bpw_study_lookup_scenario (study, scenario, s))
    {
      g_set_error (error, BPW_CLI_USAGE_ERROR, 0, "export: the study has no scenario “%s”",
                   scenario);
      return NULL;
    }
  ok = bpw_candidate_run_init (&run, study, c, *s, error);
  if (ok)
    plan = bpw_candidate_run_bind (&run, error);
  bpw_candidate_run_clear (&run);
  return plan;
}

static const char *
candidate_name (BpwStudy *study, const char *name)
{
  return name != NULL ? name : bpw_study_get_candidate (study, 0)->name;
}

static gboolean
export_sheet (BpwStudy *study, const ExportOptions *o, GError **error)
{
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autofree char *text = NULL;
  g_autofree char *title = NULL;
  guint s;

  plan = bind_plan (study, o->candidate, o->scenario, &s, error);
  if (plan == NULL)
    return FALSE;

  rows = bpw_mapping_sheet_new (plan, !o->all_blocks && strcmp (o->format, "md") == 0);
  title = g_strdup_printf ("Mapping sheet: %s on %s (%s)",
                           bpw_study_get_scenario (study, s)->name,
                           candidate_name (study, o->candidate), plan->blueprint->name);
  text = strcmp (o->format, "csv") == 0 ? bpw_mapping_sheet_to_csv (rows)
                                        : bpw_mapping_sheet_to_markdown (rows, title);
  return g_file_set_contents (o->output, text, -1, error);
}

#ifdef BPW_HAVE_PLOT
static BpwPlot *
roofline_plot (BpwStudy *study, const ExportOptions *o, BpwPlan *plan, GError **error)
{
  g_autoptr(BpwRooflineData) data = NULL;
  g_autoptr(BpwPlan) baseline = NULL;
  guint s;

  data = bpw_roofline_data_new_from_plan (plan, o->stage,
                                          candidate_name (study, o->candidate), error);
  if (data == NULL)
    return NULL;
  if (o->all_precisions)
    bpw_roofline_data_add_precisions (data, plan);
  if (o->baseline != NULL)
    {
      baseline = bind_plan (study, o->baseline, o->scenario, &s, error);
      if (baseline == NULL ||
          !bpw_roofline_data_add_baseline (data, baseline, o->stage, o->baseline, error))
        return NULL;
    }
  return BPW_PLOT (bpw_roofline_plot_new (g_steal_pointer (&data)));
}

static BpwPlot *
assignment_plot (BpwStudy *study, const ExportOptions *o, BpwPlan *plan, GError **error)
{
  const char *label = candidate_name (study, o->candidate);
  BpwAssignmentData *data = bpw_assignment_data_new_from_plan (plan, o->stage, label, error);

  return data != NULL ? BPW_PLOT (bpw_assignment_plot_new (data)) : NULL;
}

static gboolean
export_chart (BpwStudy *study, const ExportOptions *o, BpwPlotFormat format, GError **error)
{
  g_autoptr(BpwPlan) plan = NULL;
  g_autoptr(BpwPlot) plot = NULL;
  guint s;

  plan = bind_plan (study, o->candidate, o->scenario, &s, error);
  if (plan == NULL)
    return FALSE;
  plot = strcmp (o->view, "roofline") == 0 ? roofline_plot (study, o, plan, error)
                                           : assignment_plot (study, o, plan, error);
  if (plot == NULL)
    return FALSE;
  return bpw_plot_export (plot, NULL, format, o->width, o->height, o->dpi / 72.0, o->output,
                          error);
}
#endif

static int
run_export (const ExportOptions *o, const char *study_name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = NULL;
  gboolean chart = strcmp (o->view, "roofline") == 0 || strcmp (o->view, "assignment") == 0;

  if (strcmp (o->view, "sheet") == 0)
    {
      if (strcmp (o->format, "csv") != 0 && strcmp (o->format, "md") != 0)
        return bpw_cli_usage ("export", "export: the sheet is written as csv or md, not '%s'",
                              o->format);
    }
  else if (!chart)
    return bpw_cli_usage ("export", "export: view '%s' cannot be exported from the command "
                          "line yet; available: sheet, roofline, assignment", o->view);
#ifdef BPW_HAVE_PLOT
  else
    {
      BpwPlotFormat format;

      if (!bpw_plot_format_from_string (o->format, &format))
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
      if (o->baseline != NULL && strcmp (o->view, "roofline") != 0)
        return bpw_cli_usage ("export", "export: --baseline applies to the roofline only");
      if ((study = bpw_study_load (study_name, &error)) == NULL ||
          !export_chart (study, o, format, &error))
        return bpw_cli_report_error ("export", error);
      return BPW_CLI_EXIT_OK;
    }
#else
  else
    return bpw_cli_usage ("export", "export: this bpw was built without cairo and pango, so "
                          "it cannot draw the %s chart", o->view);
#endif

  if ((study = bpw_study_load (study_name, &error)) == NULL || !export_sheet (study, o, &error))
    return bpw_cli_report_error ("export", error);
  return BPW_CLI_EXIT_OK;
}

int
bpw_cli_export (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  ExportOptions o = { .stage = -1, .width = 720, .height = 405, .dpi = 144 };
  int status = BPW_CLI_EXIT_OK;
  const GOptionEntry entries[] = {
    { "view", 0, 0, G_OPTION_ARG_STRING, &o.view,
      "What to export: sheet, roofline or assignment", "VIEW" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format,
      "csv or md (the sheet); png, svg, pdf or csv (charts: the data behind them)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "The file to write", "FILE" },
    { "candidate", 0, 0, G_OPTION_ARG_STRING, &o.candidate,
      "The study candidate (default: the first)", "NAME" },
    { "scenario", 0, 0, G_OPTION_ARG_STRING, &o.scenario,
      "The study scenario (default: the first)", "NAME" },
    { "all-blocks", 0, 0, G_OPTION_ARG_NONE, &o.all_blocks,
      "Markdown: every transformer block, not only each stage's first", NULL },
    { "stage", 0, 0, G_OPTION_ARG_INT64, &o.stage,
      "Charts: the pipeline stage (roofline default: all; assignment: the slowest)", "N" },
    { "baseline", 0, 0, G_OPTION_ARG_STRING, &o.baseline,
      "Roofline: overlay this study candidate as a baseline", "NAME" },
    { "all-precisions", 0, 0, G_OPTION_ARG_NONE, &o.all_precisions,
      "Roofline: matrix peaks in every precision the blueprint runs", NULL },
    { "width", 0, 0, G_OPTION_ARG_DOUBLE, &o.width, "Charts: width in points (720)", "PT" },
    { "height", 0, 0, G_OPTION_ARG_DOUBLE, &o.height, "Charts: height in points (405)", "PT" },
    { "dpi", 0, 0, G_OPTION_ARG_DOUBLE, &o.dpi,
      "Charts: PNG resolution, pixels per inch (144: twice 72)", "DPI" },
    G_OPTION_ENTRY_NULL
  };

  g_set_prgname ("bpw export");
  context = g_option_context_new ("STUDY");
  g_option_context_set_summary (context,
                                "Exports a view of a study candidate on a scenario. STUDY is a "
                                "study file or a bundled\nname (default). The mapping sheet "
                                "(--view sheet) is written as CSV (every operation of\nevery "
                                "stage) or Markdown (each stage's first block, embedding and "
                                "head). Charts\n(--view roofline, --view assignment) are written "
                                "as PNG, SVG or PDF with the print\nstyle, or as the CSV of the "
                                "data they plot.");
  g_option_context_add_main_entries (context, entries, NULL);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    status = bpw_cli_report_error ("export", error);
  else if (argc != 2)
    status = bpw_cli_usage ("export", "export: expected one STUDY");
  else if (o.view == NULL || o.format == NULL || o.output == NULL)
    status = bpw_cli_usage ("export", "export: --view, --format and --output are required");
  else
    status = run_export (&o, argv[1]);

  g_free (o.view);
  g_free (o.format);
  g_free (o.output);
  g_free (o.candidate);
  g_free (o.scenario);
  g_free (o.baseline);
  return status;
}
