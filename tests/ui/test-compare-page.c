/* test-compare-page.c — the Compare page and the Overview's fit matrix on the default study,
 * and how an edit changes them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-compare-page"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-compare-page.h"
#include "bpw-fit-matrix.h"
#include "bpw-ui-test-util.h"

#define H100 "h100-sxm-80gb"

static gboolean
bpw_test_compare_busy (gpointer data)
{
  return bpw_compare_page_get_busy (data) || bpw_compare_page_get_data (data) == NULL;
}

static BpwComparePage *
compare_page (BpwWindow *window)
{
  BpwComparePage *page = BPW_COMPARE_PAGE (bpw_test_find_widget (GTK_WIDGET (window),
                                                                 BPW_TYPE_COMPARE_PAGE));

  bpw_test_wait (bpw_test_compare_busy, page);
  return page;
}

static guint
candidate_of (BpwStudy   *study,
              const char *blueprint)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->blueprint, blueprint) == 0)
      return i;
  g_assert_not_reached ();
}

/* The SLA's value from the evaluation, by the metric's name: what the cell judged. */
static double
sla_value (const BpwCompareCell *cell)
{
  if (strcmp (cell->sla_metric, "ttft_s") == 0)
    return cell->eval.ttft_s;
  if (strcmp (cell->sla_metric, "tpot_s") == 0)
    return cell->eval.tpot_s;
  g_assert_cmpstr (cell->sla_metric, ==, "step_time_s");
  return cell->eval.step_time_s;
}

/* Every tile of the fit matrix against a comparison of the same study computed here: one
 * tile per candidate × scenario, its verdict, its margin and its bottleneck. Returns how
 * many tiles pass and fail. */
/* The view by layer type: every candidate's MFU and stall per layer type on the shown
 * scenario, from the comparison's own numbers. */
static void
check_layer_matrix (BpwComparePage *page)
{
  const BpwCompareData *data = bpw_compare_page_get_data (page);
  BpwLayerMatrix *matrix = bpw_compare_page_get_layer_matrix (page);
  guint n = bpw_layer_matrix_get_n_columns (matrix), shown = 0;

  /* Embedding, attention, MLP, norms and head at least; in layer-type order. */
  g_assert_cmpuint (n, >=, 5);
  for (guint k = 1; k < n; k++)
    g_assert_cmpuint (bpw_layer_matrix_get_bucket (matrix, k - 1), <,
                      bpw_layer_matrix_get_bucket (matrix, k));
  for (guint c = 0; c < data->n_candidates; c++)
    for (guint k = 0; k < n; k++)
      {
        const BpwCompareFit *f = bpw_compare_data_cell (data, c, data->scenario);
        guint b = bpw_layer_matrix_get_bucket (matrix, k);
        g_autofree char *mfu = NULL, *share = NULL;

        if (!f->ok || bpw_evaluation_layer_time (&f->eval, b) <= 0)
          {
            g_assert_cmpstr (bpw_layer_matrix_get_cell (matrix, c, k), ==, "—");
            continue;
          }
        share = g_strdup_printf ("share %.1f %%", 100.0 * bpw_evaluation_layer_time (&f->eval, b)
                                 / f->eval.step_time_s);
        g_assert_nonnull (strstr (bpw_layer_matrix_get_cell (matrix, c, k), share));
        if (b == BPW_LAYER_OTHER)
          continue;
        mfu = g_strdup_printf ("MFU %.1f %%", 100.0 * f->eval.layer_mfu[b]);
        g_assert_nonnull (strstr (bpw_layer_matrix_get_cell (matrix, c, k), mfu));
        if (b == BPW_LAYER_ATTENTION)
          {
            g_autofree char *stall = g_strdup_printf ("stall %.1f %%",
                                                      100.0 * f->eval.stall_fraction[b]);

            g_assert_nonnull (strstr (bpw_layer_matrix_get_cell (matrix, c, k), stall));
            shown++;
          }
      }
  g_assert_cmpuint (shown, ==, data->n_candidates);
}

static void
check_fit_matrix (BpwFitMatrix *matrix,
                  BpwStudy     *study,
                  guint        *n_pass,
                  guint        *n_fail)
{
  g_autoptr(BpwComparison) reference = NULL;
  g_autoptr(GError) error = NULL;
  BpwCompareOptions options;

  bpw_compare_options_init (&options);
  reference = bpw_compare_study (study, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_fit_matrix_get_n_candidates (matrix), ==,
                    bpw_study_get_n_candidates (study));
  g_assert_cmpuint (bpw_fit_matrix_get_n_scenarios (matrix), ==,
                    bpw_study_get_n_scenarios (study));
  *n_pass = *n_fail = 0;
  for (guint c = 0; c < bpw_study_get_n_candidates (study); c++)
    for (guint s = 0; s < bpw_study_get_n_scenarios (study); s++)
      {
        const BpwCompareCell *cell = bpw_comparison_get_cell (reference, c, s);
        BpwFitVerdict verdict = bpw_fit_matrix_get_verdict (matrix, c, s);
        g_autofree char *text = bpw_fit_matrix_dup_cell_text (matrix, c, s);

        g_assert_cmpstr (bpw_fit_matrix_get_candidate (matrix, c), ==,
                         bpw_study_get_candidate (study, c)->name);
        g_assert_cmpstr (bpw_fit_matrix_get_scenario (matrix, s), ==,
                         bpw_study_get_scenario (study, s)->name);
        g_assert_nonnull (bpw_fit_matrix_get_cell (matrix, c, s));
        if (!cell->ok || !cell->eval.legal)
          {
            g_assert_cmpint (verdict, ==, BPW_FIT_ILLEGAL);
            continue;
          }
        /* Every legal tile names its bottleneck class. */
        g_assert_nonnull (strstr (text, bpw_bottleneck_display_name (cell->eval.bottleneck)));
        if (!cell->has_sla)
          {
            g_assert_cmpint (verdict, ==, BPW_FIT_NO_SLA);
            continue;
          }
        {
          const BpwScenario *sc = &bpw_study_get_scenario (study, s)->scenario;
          double value = sla_value (cell);
          double limit = strcmp (cell->sla_metric, "ttft_s") == 0 ? sc->sla_ttft
                         : strcmp (cell->sla_metric, "tpot_s") == 0 ? sc->sla_tpot
                         : sc->sla_step_time;
          g_autofree char *margin = NULL;

          /* Met exactly when the value is within the scenario's limit; the tile shows the
           * margin (limit − value) / limit in whole percent. */
          g_assert_cmpint (verdict, ==, value <= limit ? BPW_FIT_PASS : BPW_FIT_FAIL);
          margin = g_strdup_printf ("%s%.0f %%", value <= limit ? "+" : "−",
                                    fabs (100.0 * (limit - value) / limit));
          g_assert_nonnull (strstr (text, margin));
          *n_pass += verdict == BPW_FIT_PASS;
          *n_fail += verdict == BPW_FIT_FAIL;
        }
      }
}

static gboolean
bpw_test_window_busy (gpointer data)
{
  return bpw_window_get_busy (data);
}

static void
test_compare_default (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwComparePage *page = compare_page (window);
  BpwFitMatrix *matrix = bpw_overview_page_get_fit_matrix (bpw_window_get_overview_page (window));
  guint nc = bpw_study_get_n_candidates (study), ns = bpw_study_get_n_scenarios (study);
  const BpwCompareData *data = bpw_compare_page_get_data (page);
  const BpwCompareSegment *segments;
  guint n_segments, n_pass, n_fail;
  gboolean *has_bar;

  g_assert_nonnull (data);
  g_assert_null (bpw_compare_page_get_error (page));
  g_assert_cmpuint (data->n_candidates, ==, nc);
  g_assert_cmpuint (data->n_scenarios, ==, ns);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_compare_page_get_rows (page)), ==, nc * ns);

  /* The Overview's matrix comes from the same comparison, computed off the main thread,
   * and agrees with one computed here. The default study's SLAs tell the candidates
   * apart: some tiles pass and some fail. */
  bpw_test_wait (bpw_test_window_busy, window);
  check_fit_matrix (matrix, study, &n_pass, &n_fail);
  g_assert_cmpuint (n_pass, >, 0);
  g_assert_cmpuint (n_fail, >, 0);
  /* Both pages say how each candidate is calibrated, and warn that they differ. */
  bpw_test_check_calibration_bar (GTK_WIDGET (bpw_window_get_overview_page (window)), study);
  bpw_test_check_calibration_bar (GTK_WIDGET (page), study);

  /* The chart, laid out on screen: a bar for every candidate and a heat-map cell for
   * every candidate × scenario. */
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "compare");
  bpw_test_wait_for_frame (GTK_WIDGET (bpw_compare_page_get_view (page)));
  segments = bpw_compare_plot_get_segments (bpw_compare_page_get_plot (page), &n_segments);
  has_bar = g_new0 (gboolean, nc);
  for (guint i = 0; i < n_segments; i++)
    {
      g_assert_cmpfloat (segments[i].rect.width, >=, 0.0);
      has_bar[segments[i].candidate] |= segments[i].rect.width > 0.0;
    }
  for (guint c = 0; c < nc; c++)
    {
      g_assert_true (has_bar[c]);
      for (guint s = 0; s < ns; s++)
        {
          BpwPlotRect rect;

          g_assert_true (bpw_compare_plot_get_cell_rect (bpw_compare_page_get_plot (page), c, s,
                                                         &rect));
          g_assert_cmpfloat (rect.width, >, 0.0);
          g_assert_cmpfloat (rect.height, >, 0.0);
        }
    }
  g_free (has_bar);

  /* The view by layer type, on every scenario the dropdown picks. */
  for (guint s = 0; s < ns; s++)
    {
      bpw_compare_page_set_scenario (page, s);
      check_layer_matrix (page);
    }
  bpw_compare_page_set_scenario (page, 0);

  /* The Export menu's "Compare…" writes the data behind the chart: a fit row per
   * candidate × scenario. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp ("bpw-test-compare-XXXXXX", &error);
    g_autofree char *path = g_build_filename (dir, "compare.csv", NULL);
    g_autofree char *csv = NULL;
    g_auto(GStrv) lines = NULL;
    guint n_fit = 0;

    g_assert_no_error (error);
    g_assert_true (bpw_window_export_chart (window, "compare", path, 1.0, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (path, &csv, NULL, &error));
    lines = g_strsplit (csv, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++)
      n_fit += g_str_has_prefix (lines[i], "fit,");
    g_assert_cmpuint (n_fit, ==, nc * ns);
    bpw_test_remove_tree (dir);
  }

  /* Another scenario and baseline change what the chart shows, not what was computed. */
  bpw_compare_page_set_scenario (page, ns - 1);
  bpw_compare_page_set_baseline (page, nc - 1);
  g_assert_cmpuint (bpw_compare_page_get_data (page)->scenario, ==, ns - 1);
  g_assert_cmpuint (bpw_compare_page_get_data (page)->baseline, ==, nc - 1);
  g_assert_true (bpw_compare_page_get_data (page) == data);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A copy of the H100 blueprint with its device memory bandwidth at @bandwidth, as an edit. */
static BpwStudyEdit *
hbm_edit (BpwStudy *study,
          double    bandwidth)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (study, H100, &error);

  g_assert_no_error (error);
  bp->memory[bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE)].bandwidth.value = bandwidth;
  return bpw_study_edit_new_blueprint (study, bp, "HBM bandwidth");
}

/* The promise for the Compare page: the H100's HBM bandwidth changes its numbers,
 * and only its numbers; undo brings them back exactly. */
static void
test_compare_edit (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwComparePage *page = compare_page (window);
  BpwFitMatrix *matrix = bpw_overview_page_get_fit_matrix (bpw_window_get_overview_page (window));
  guint h100 = candidate_of (study, H100), a100 = candidate_of (study, "a100-sxm-80gb");
  guint decode = 0, n_pass, n_fail;
  g_autofree char *tile_before = NULL;
  g_autofree char *tile_after = NULL;
  g_autoptr(GError) error = NULL;
  BpwCompareFit h100_before, a100_before;
  const BpwCompareData *data;

  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &decode));
  data = bpw_compare_page_get_data (page);
  h100_before = *bpw_compare_data_cell (data, h100, decode);
  a100_before = *bpw_compare_data_cell (data, a100, decode);
  g_assert_true (h100_before.legal);
  tile_before = bpw_fit_matrix_dup_cell_text (matrix, h100, decode);

  g_assert_true (bpw_window_apply_edit (window, hbm_edit (study, 4.8e12), &error));
  g_assert_no_error (error);
  g_assert_true (bpw_compare_page_get_busy (page));
  bpw_test_wait (bpw_test_compare_busy, page);

  /* Decode streams the weights every token: more bandwidth, a shorter TPOT; the other
   * candidates are untouched, to the bit. */
  data = bpw_compare_page_get_data (page);
  g_assert_cmpfloat (bpw_compare_data_cell (data, h100, decode)->eval.tpot_s, <,
                     h100_before.eval.tpot_s);
  g_assert_cmpfloat (bpw_compare_data_cell (data, h100, decode)->eval.tokens_per_s, >,
                     h100_before.eval.tokens_per_s);
  g_assert_cmpfloat (bpw_compare_data_cell (data, a100, decode)->eval.tpot_s, ==,
                     a100_before.eval.tpot_s);
  tile_after = bpw_fit_matrix_dup_cell_text (matrix, h100, decode);
  g_assert_cmpstr (tile_after, !=, tile_before);
  check_fit_matrix (matrix, study, &n_pass, &n_fail);

  g_assert_true (bpw_window_undo (window));
  bpw_test_wait (bpw_test_compare_busy, page);
  data = bpw_compare_page_get_data (page);
  g_assert_cmpfloat (bpw_compare_data_cell (data, h100, decode)->eval.tpot_s, ==,
                     h100_before.eval.tpot_s);
  g_clear_pointer (&tile_after, g_free);
  tile_after = bpw_fit_matrix_dup_cell_text (matrix, h100, decode);
  g_assert_cmpstr (tile_after, ==, tile_before);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A candidate from outside the study (as a search would add one) joins the comparison
 * after the study's own, with its own mapping; clearing it restores the study's. */
static void
test_compare_added_candidate (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwComparePage *page = compare_page (window);
  BpwStudyWorker *worker = bpw_compare_page_get_worker (page);
  guint nc = bpw_study_get_n_candidates (study), h100 = candidate_of (study, H100);
  g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (study, H100, NULL);
  const BpwCompareData *data;

  bpw_study_worker_add_candidate (worker, "H100 (searched)", bp, NULL);
  g_assert_true (bpw_compare_page_get_busy (page));
  bpw_test_wait (bpw_test_compare_busy, page);
  data = bpw_compare_page_get_data (page);
  g_assert_cmpuint (data->n_candidates, ==, nc + 1);
  g_assert_cmpstr (data->candidates[nc], ==, "H100 (searched)");
  /* The same blueprint with each scenario's own decomposition: the H100's numbers. */
  for (guint s = 0; s < data->n_scenarios; s++)
    g_assert_cmpfloat (bpw_compare_data_cell (data, nc, s)->eval.step_time_s, ==,
                       bpw_compare_data_cell (data, h100, s)->eval.step_time_s);
  /* The study itself is not changed. */
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, nc);
  g_assert_false (bpw_window_get_modified (window));

  bpw_study_worker_clear_added (worker);
  bpw_test_wait (bpw_test_compare_busy, page);
  g_assert_cmpuint (bpw_compare_page_get_data (page)->n_candidates, ==, nc);

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

  g_test_add_func ("/bpw/ui/ComparePage/default-study", test_compare_default);
  g_test_add_func ("/bpw/ui/ComparePage/edit", test_compare_edit);
  g_test_add_func ("/bpw/ui/ComparePage/added-candidate", test_compare_added_candidate);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
