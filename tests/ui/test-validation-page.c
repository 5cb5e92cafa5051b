/* test-validation-page.c — the Validation page: Table 1, a study's measurement, adding a
 * profile and calibrating on it, all through the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The expected numbers are the core's, computed here: bpw_validation_megatron_predict() for
 * Table 1 (what `bpw validate` prints) and a correlation of the fixture's profile made
 * with the core's measurement run.
 */
#define G_LOG_DOMAIN "bpw-test-validation-page"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-measurement-run.h"
#include "bpw-roofline-plot.h"
#include "bpw-sheet-page.h"
#include "bpw-ui-test-util.h"
#include "bpw-validation-item.h"
#include "bpw-validation-page.h"
#include "bpw-validation.h"

static gboolean
bpw_test_validation_busy (gpointer data)
{
  return bpw_validation_page_get_busy (data) || bpw_validation_page_get_report (data) == NULL;
}

static BpwValidationPage *
validation_page (BpwWindow *window)
{
  BpwValidationPage *page = BPW_VALIDATION_PAGE (bpw_test_find_widget (
                                                   GTK_WIDGET (window),
                                                   BPW_TYPE_VALIDATION_PAGE));

  bpw_test_wait (bpw_test_validation_busy, page);
  return page;
}

static char *
fixture (const char *folder,
         const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", folder, name, NULL);
}

static BpwWindow *
open_fixture (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fixture ("studies", "gpt2-cpu.bpw-study.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  BpwWindow *window = bpw_window_new (NULL, NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_file (window, file, &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);
  return window;
}

/* Every label's text under @widget. */
static void
collect_labels (GtkWidget *widget,
                GPtrArray *texts)
{
  if (GTK_IS_LABEL (widget))
    g_ptr_array_add (texts, (gpointer) gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, texts);
}

static gboolean
shows_text (GPtrArray  *texts,
            const char *text)
{
  for (guint i = 0; i < texts->len; i++)
    if (g_strcmp0 (g_ptr_array_index (texts, i), text) == 0)
      return TRUE;
  return FALSE;
}

/* Table 1's rows with the errors bpw validate prints, in the model and on screen. */
static void
test_table1 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) a100 = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(GPtrArray) texts = g_ptr_array_new ();
  BpwWindow *window = bpw_test_open_default ();
  BpwValidationPage *page = validation_page (window);
  GListModel *rows;
  const BpwMegatronRow *table;
  guint n = 0;

  g_assert_no_error (error);
  table = bpw_validation_megatron_rows (&n);
  g_assert_cmpuint (n, ==, 10);
  /* The default study holds no measurements: Table 1 only. */
  g_assert_cmpuint (bpw_validation_page_get_n_sections (page), ==, 1);
  rows = bpw_validation_page_get_table (page, 0, BPW_VALIDATION_TABLE_MAIN);
  g_assert_nonnull (rows);
  g_assert_null (bpw_validation_page_get_table (page, 0, BPW_VALIDATION_TABLE_EXTRA));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", "validation");
  bpw_validation_page_show_section (page, 0);
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  collect_labels (GTK_WIDGET (page), texts);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(BpwValidationItem) item = g_list_model_get_item (rows, i);
      g_autofree char *shown = NULL;
      BpwValidationResult r;

      g_assert_true (bpw_validation_megatron_predict (a100, &table[i], &r, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (bpw_validation_item_get_value (item, BPW_VALIDATION_VALUE_ERROR), ==,
                         r.error);
      g_assert_cmpfloat (bpw_validation_item_get_value (item, BPW_VALIDATION_VALUE_PREDICTED),
                         ==, r.predicted_tflops);
      g_assert_cmpfloat (bpw_validation_item_get_value (item, BPW_VALIDATION_VALUE_MEASURED),
                         ==, table[i].published_tflops);
      g_assert_cmpfloat_with_epsilon (bpw_validation_item_get_value (
                                        item, BPW_VALIDATION_VALUE_STEP_PREDICTED),
                                      r.step_time_s, r.step_time_s * 1e-9);
      /* As bpw validate prints it: "+2.4%" there, "+2.4 %" here. */
      shown = g_strdup_printf ("%+.1f %%", 100.0 * r.error);
      g_assert_true (shows_text (texts, shown));
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Once the page is shown, each Table 1 row carries its leave-one-out error beside the
 * in-sample one, under headings that say which is which, as bpw validate prints them. */
static void
test_table1_left_out (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) a100 = bpw_blueprint_load ("a100-sxm-80gb", NULL, &error);
  g_autoptr(GPtrArray) texts = g_ptr_array_new ();
  g_autofree BpwValidationResult *loo = NULL;
  BpwWindow *window = bpw_test_open_default ();
  BpwValidationPage *page = validation_page (window);
  GtkColumnViewColumn *in_sample, *left_out;
  GListModel *rows;
  guint n = 0, differ = 0;

  g_assert_no_error (error);
  bpw_validation_megatron_rows (&n);
  loo = g_new0 (BpwValidationResult, n);
  g_assert_true (bpw_validation_leave_one_out (a100, loo, &error));
  g_assert_no_error (error);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", "validation");
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  /* Shown, the page computes the leave-one-out refits. */
  bpw_test_wait (bpw_test_validation_busy, page);
  bpw_validation_page_show_section (page, 0);
  bpw_test_wait_for_frame (GTK_WIDGET (page));

  in_sample = bpw_test_find_column (GTK_WIDGET (page), "In-Sample Error");
  left_out = bpw_test_find_column (GTK_WIDGET (page), "Left-Out Error");
  g_assert_nonnull (in_sample);
  g_assert_nonnull (left_out);
  g_assert_true (gtk_column_view_column_get_visible (left_out));

  rows = bpw_validation_page_get_table (page, 0, BPW_VALIDATION_TABLE_MAIN);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n);
  collect_labels (GTK_WIDGET (page), texts);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(BpwValidationItem) item = g_list_model_get_item (rows, i);
      double shown = bpw_validation_item_get_value (item, BPW_VALIDATION_VALUE_HELD_OUT_ERROR);
      g_autofree char *text = g_strdup_printf ("%+.1f %%", 100.0 * loo[i].error);

      g_assert_cmpfloat (shown, ==, loo[i].error);
      /* Out of sample differs from in sample where the refit missed the row. */
      differ += shown != bpw_validation_item_get_value (item, BPW_VALIDATION_VALUE_ERROR);
      g_assert_true (shows_text (texts, text));
    }
  g_assert_cmpuint (differ, >, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The Roofline page shows the measured candidate's operations as measured too. */
static void
check_roofline (BpwWindow *window)
{
  BpwSheetPage *sheet = BPW_SHEET_PAGE (bpw_test_find_widget (GTK_WIDGET (window),
                                                              BPW_TYPE_SHEET_PAGE));
  const BpwRooflineData *data;
  guint measured = 0, predicted = 0;

  bpw_test_wait_sheet (sheet);
  data = bpw_roofline_plot_get_data (BPW_ROOFLINE_PLOT (bpw_sheet_page_get_roofline_plot (sheet)));
  for (guint i = 0; i < data->points->len; i++)
    if (g_array_index (data->points, BpwRooflinePoint, i).measured)
      measured++;
    else
      predicted++;
  g_assert_cmpstr (data->measured_label, ==, "gpt2-block.json");
  g_assert_cmpuint (measured, >, 0);
  g_assert_cmpuint (measured, <=, predicted);
}

/* The fixture's measurement: the correlation table as the core computes it, with no
 * unexplained kernel. */
static void
test_measurement (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fixture ("studies", "gpt2-cpu.bpw-study.json");
  g_autoptr(BpwStudy) study = bpw_study_new_from_file (path, &error);
  BpwWindow *window = open_fixture ();
  BpwValidationPage *page = validation_page (window);
  const BpwValidationReport *report = bpw_validation_page_get_report (page);
  const BpwReportSection *section;
  GListModel *ops, *extra, *missing;
  BpwMeasurementRun run;
  guint n_extra = 0, n_missing = 0;
  double measured = 0;

  g_assert_no_error (error);
  g_assert_true (bpw_measurement_run_init (&run, study, 0, &error));
  g_assert_true (bpw_measurement_run_execute (&run, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (bpw_validation_page_get_n_sections (page), ==, 2);
  g_assert_null (bpw_validation_page_get_error (page, 1));
  g_assert_cmpuint (report->sections->len, ==, 2);
  section = g_ptr_array_index (report->sections, 1);
  g_assert_cmpuint (section->unexplained_items, ==, 0);
  g_assert_cmpfloat (section->step_measured_s, ==,
                     g_array_index (run.correlation->pairs, BpwCorrelationPair,
                                    0).measured_span_s);

  ops = bpw_validation_page_get_table (page, 1, BPW_VALIDATION_TABLE_MAIN);
  extra = bpw_validation_page_get_table (page, 1, BPW_VALIDATION_TABLE_EXTRA);
  missing = bpw_validation_page_get_table (page, 1, BPW_VALIDATION_TABLE_MISSING);
  for (guint i = 0; i < run.correlation->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (run.correlation, i);

      n_extra += r->status == BPW_ROW_EXTRA;
      n_missing += r->status == BPW_ROW_MISSING;
    }
  g_assert_cmpuint (g_list_model_get_n_items (extra), ==, n_extra);
  g_assert_cmpuint (g_list_model_get_n_items (missing), ==, n_missing);
  g_assert_cmpuint (n_extra, >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (extra); i++)
    {
      g_autoptr(BpwValidationItem) item = g_list_model_get_item (extra, i);

      /* Explained: a kind the patterns know, and a reason. */
      g_assert_cmpstr (bpw_validation_item_get_text (item, BPW_VALIDATION_TEXT_DETAIL), !=,
                       bpw_kernel_kind_to_string (BPW_KERNEL_UNKNOWN));
      g_assert_nonnull (bpw_validation_item_get_text (item, BPW_VALIDATION_TEXT_REASON));
    }
  /* Per operation, the matched time; achieved FLOP/s are FLOPs over the measured time. */
  for (guint i = 0; i < g_list_model_get_n_items (ops); i++)
    {
      g_autoptr(BpwValidationItem) item = g_list_model_get_item (ops, i);
      double m = bpw_validation_item_get_value (item, BPW_VALIDATION_VALUE_MEASURED);
      double p = bpw_validation_item_get_value (item, BPW_VALIDATION_VALUE_PREDICTED);
      double achieved = bpw_validation_item_get_value (item,
                                                       BPW_VALIDATION_VALUE_ACHIEVED_FLOPS);
      double predicted = bpw_validation_item_get_value (item,
                                                        BPW_VALIDATION_VALUE_PREDICTED_FLOPS);

      measured += m;
      g_assert_cmpfloat_with_epsilon (bpw_validation_item_get_value (
                                        item, BPW_VALIDATION_VALUE_ERROR), p / m - 1, 1e-12);
      if (achieved > 0)
        g_assert_cmpfloat_with_epsilon (achieved * m, predicted * p, achieved * m * 1e-12);
    }
  g_assert_cmpfloat_with_epsilon (measured, run.correlation->stats.matched_measured_s,
                                  measured * 1e-12);
  check_roofline (window);
  bpw_measurement_run_clear (&run);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A profile opened in the window becomes a measurement (undoable); calibrating on it adds
 * the calibrated blueprint (undoable), which the page then validates beside the original. */
static void
test_add_and_calibrate (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *profile = fixture ("profiles", "gpt2-block-legacy.json");
  g_autoptr(GFile) file = g_file_new_for_path (profile);
  BpwWindow *window = open_fixture ();
  BpwValidationPage *page = validation_page (window);
  BpwStudy *study = bpw_window_get_study (window);
  const BpwStudyMeasurement *m;
  const BpwReportSection *section;
  g_autofree char *calibrated = NULL;

  g_assert_true (bpw_window_open_file (window, file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_measurements (study), ==, 2);
  m = bpw_study_get_measurement (study, 1);
  g_assert_cmpstr (m->name, ==, "gpt2-block-legacy");
  g_assert_cmpstr (m->candidate, ==, bpw_study_get_candidate (study, 0)->name);
  g_assert_cmpstr (m->scenario, ==, bpw_study_get_scenario (study, 0)->name);
  g_assert_true (bpw_window_get_can_undo (window));
  bpw_test_wait (bpw_test_validation_busy, page);
  g_assert_cmpuint (bpw_validation_page_get_n_sections (page), ==, 3);
  g_assert_null (bpw_validation_page_get_error (page, 2));

  g_assert_true (bpw_validation_page_calibrate (page, 2, &error));
  g_assert_no_error (error);
  calibrated = g_strdup (bpw_study_get_measurement (study, 1)->calibrated);
  g_assert_nonnull (calibrated);
  g_assert_true (g_str_has_suffix (calibrated, "-calibrated"));
  g_assert_nonnull (bpw_study_lookup_inline_blueprint (study, calibrated));
  bpw_test_wait (bpw_test_validation_busy, page);
  section = g_ptr_array_index (bpw_validation_page_get_report (page)->sections, 2);
  g_assert_cmpstr (section->calibrated_blueprint, ==, calibrated);
  /* Fitted to this very profile: the calibrated step is nearer the measured one. */
  g_assert_cmpfloat (fabs (section->work_calibrated_s - section->work_measured_s), <,
                     fabs (section->work_predicted_s - section->work_measured_s));

  g_assert_true (bpw_window_undo (window));
  g_assert_null (bpw_study_get_measurement (study, 1)->calibrated);
  g_assert_false (g_strv_contains (bpw_study_get_blueprints (study), calibrated));
  g_assert_true (bpw_window_undo (window));
  g_assert_cmpuint (bpw_study_get_n_measurements (study), ==, 1);
  bpw_test_wait (bpw_test_validation_busy, page);
  g_assert_cmpuint (bpw_validation_page_get_n_sections (page), ==, 2);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/ValidationPage/table1", test_table1);
  g_test_add_func ("/bpw/ui/ValidationPage/table1-left-out", test_table1_left_out);
  g_test_add_func ("/bpw/ui/ValidationPage/measurement", test_measurement);
  g_test_add_func ("/bpw/ui/ValidationPage/add-and-calibrate", test_add_and_calibrate);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
