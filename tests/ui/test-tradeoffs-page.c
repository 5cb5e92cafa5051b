/* test-tradeoffs-page.c — the Trade-offs page's serving sweeps on the default study, its
 * choices, and how an edit changes the curves
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-tradeoffs-page"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-tradeoffs-page.h"
#include "bpw-ui-test-util.h"

#define H100 "h100-sxm-80gb"

static gboolean
bpw_test_tradeoffs_busy (gpointer data)
{
  return bpw_tradeoffs_page_get_busy (data);
}

/* The page, shown (it sweeps soonest then), with its sweeps done. */
static BpwTradeoffsPage *
tradeoffs_page (BpwWindow *window)
{
  BpwTradeoffsPage *page = BPW_TRADEOFFS_PAGE (bpw_test_find_widget (GTK_WIDGET (window),
                                                                     BPW_TYPE_TRADEOFFS_PAGE));

  g_assert_true (bpw_tradeoffs_page_get_busy (page));
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "tradeoffs");
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  bpw_test_wait (bpw_test_tradeoffs_busy, page);
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

static const BpwTradePoint *
point (const BpwTradeData *data,
       guint               i)
{
  return &g_array_index (data->points, BpwTradePoint, i);
}

/* One series per candidate, each a sweep of rising arrival rates on DP replicas of
 * TP × PP devices of its mapping for the scenario. */
static void
check_sweep (const BpwTradeData *data,
             BpwStudy           *study,
             guint               scenario)
{
  g_assert_cmpuint (data->series->len, ==, bpw_study_get_n_candidates (study));
  g_assert_cmpstr (data->scenario, ==, bpw_study_get_scenario (study, scenario)->name);
  for (guint c = 0; c < data->series->len; c++)
    {
      const BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, c);
      g_autoptr(GError) error = NULL;
      BpwCandidateRun run;
      const BpwParallel *p;

      g_assert_true (bpw_candidate_run_init (&run, study, c, scenario, &error));
      g_assert_no_error (error);
      p = &run.mapping.parallel;
      g_assert_cmpstr (s->name, ==, bpw_study_get_candidate (study, c)->name);
      g_assert_null (s->error);
      g_assert_cmpint (s->devices, ==, MAX (p->dp, 1) * MAX (p->tp, 1) * MAX (p->pp, 1));
      g_assert_cmpuint (s->n, >=, 2);
      /* Per watt is per watt of the modelled power (the step's energy over its time),
       * below the devices' TDP, which no step draws throughout. */
      {
        g_autoptr(BpwEstimator) estimator = bpw_estimator_new (&run.spec, &run.scenario,
                                                               run.blueprint, &error);
        BpwEvaluation e;

        g_assert_no_error (error);
        g_assert_true (bpw_estimator_evaluate (estimator, &run.mapping, &e, NULL, &error));
        g_assert_no_error (error);
        g_assert_cmpfloat (e.energy_j, >, 0.0);
        g_assert_cmpfloat_with_epsilon (s->power_w, e.energy_j / e.step_time_s,
                                        1e-9 * s->power_w);
        g_assert_true (run.blueprint->tdp.set);
        g_assert_cmpfloat (s->power_w, <, (double) s->devices * run.blueprint->tdp.value);
      }
      for (guint i = s->first; i < s->first + s->n; i++)
        {
          g_assert_cmpuint (point (data, i)->series, ==, c);
          g_assert_cmpfloat (point (data, i)->throughput, >, 0.0);
          /* Percentiles of one run are ordered. */
          for (guint m = 0; m < BPW_TRADE_N_LATENCIES; m++)
            g_assert_cmpfloat (point (data, i)->latency[m].p50, <=,
                               point (data, i)->latency[m].p99);
          if (i > s->first)
            g_assert_cmpfloat (point (data, i)->arrival_rate, >,
                               point (data, i - 1)->arrival_rate);
        }
      bpw_candidate_run_clear (&run);
    }
}

static AdwStatusPage *
find_status_page (GtkWidget *widget)
{
  if (ADW_IS_STATUS_PAGE (widget))
    return ADW_STATUS_PAGE (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      AdwStatusPage *found = find_status_page (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_tradeoffs_default (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwTradeoffsPage *page = tradeoffs_page (window);
  guint n_serving = 0, decode = 0, prefill = 0;
  const BpwTradeMark *marks;
  BpwTradePlot *plot;
  guint n_marks;

  for (guint s = 0; s < bpw_study_get_n_scenarios (study); s++)
    n_serving += bpw_study_get_scenario (study, s)->scenario.phase != BPW_WORKLOAD_TRAIN;
  g_assert_cmpuint (bpw_tradeoffs_page_get_n_scenarios (page), ==, n_serving);
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &decode));
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-prefill", &prefill));

  /* Decode first, as `bpw export --view trade`; on its SLA metric, TPOT. */
  g_assert_cmpuint (bpw_tradeoffs_page_get_scenario (page), ==, decode);
  plot = bpw_tradeoffs_page_get_plot (page);
  check_sweep (bpw_trade_plot_get_data (plot), study, decode);
  g_assert_cmpint (bpw_trade_plot_get_data (plot)->metric, ==, BPW_TRADE_LATENCY_TPOT);
  bpw_test_check_calibration_bar (GTK_WIDGET (page), study);
  /* Training has no serving sweep. */
  for (guint s = 0; s < bpw_study_get_n_scenarios (study); s++)
    if (bpw_study_get_scenario (study, s)->scenario.phase == BPW_WORKLOAD_TRAIN)
      g_assert_false (bpw_tradeoffs_page_set_scenario (page, s));

  /* Laid out on screen: dots for the points, some on the Pareto front. */
  bpw_test_wait_for_frame (GTK_WIDGET (bpw_tradeoffs_page_get_view (page)));
  marks = bpw_trade_plot_get_marks (plot, &n_marks);
  g_assert_cmpuint (n_marks, >, 0);
  {
    gboolean any_front = FALSE;

    for (guint i = 0; i < n_marks; i++)
      any_front |= marks[i].pareto;
    g_assert_true (any_front);
  }

  /* The Export menu's "Trade-offs…" draws the curves shown. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp ("bpw-test-trade-XXXXXX", &error);
    g_autofree char *path = g_build_filename (dir, "trade.svg", NULL);
    g_autofree char *svg = NULL;

    g_assert_no_error (error);
    g_assert_true (bpw_window_export_chart (window, "trade", path, 1.0, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (path, &svg, NULL, &error));
    g_assert_nonnull (strstr (svg, "<svg"));
    bpw_test_remove_tree (dir);
  }

  /* The other scenario was swept after the one shown: switching is instant. */
  g_assert_true (bpw_tradeoffs_page_set_scenario (page, prefill));
  g_assert_false (bpw_tradeoffs_page_get_busy (page));
  g_assert_true (bpw_tradeoffs_page_get_plot (page) != plot);
  check_sweep (bpw_trade_plot_get_data (bpw_tradeoffs_page_get_plot (page)), study, prefill);

  /* The measure applies to every scenario's plot. */
  bpw_tradeoffs_page_set_measure (page, BPW_TRADE_Y_PER_WATT);
  g_assert_cmpint (bpw_trade_plot_get_y (bpw_tradeoffs_page_get_plot (page)), ==,
                   BPW_TRADE_Y_PER_WATT);
  g_assert_cmpint (bpw_trade_plot_get_y (plot), ==, BPW_TRADE_Y_PER_WATT);

  /* Per dollar without prices (the default study gives none): the page says so and
   * names a candidate instead of drawing an empty chart. */
  bpw_tradeoffs_page_set_measure (page, BPW_TRADE_Y_PER_DOLLAR);
  {
    AdwStatusPage *status = find_status_page (GTK_WIDGET (page));
    GtkWidget *stack;

    g_assert_nonnull (status);
    stack = gtk_widget_get_ancestor (GTK_WIDGET (status), GTK_TYPE_STACK);
    g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "error");
    status = find_status_page (gtk_stack_get_visible_child (GTK_STACK (stack)));
    g_assert_nonnull (status);
    g_assert_nonnull (strstr (adw_status_page_get_description (status), "No price given"));
  }
  bpw_tradeoffs_page_set_measure (page, BPW_TRADE_Y_PER_WATT);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The H100's HBM bandwidth, raised: its decode curve moves to shorter TPOT at the same
 * arrival rates; the other candidates' curves stay to the bit (same seed, same stream).
 * Stale curves are swept again only when the page is shown. */
static void
test_tradeoffs_edit (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwTradeoffsPage *page = tradeoffs_page (window);
  guint h100 = candidate_of (study, H100), a100 = candidate_of (study, "a100-sxm-80gb");
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (study, H100, &error);
  const BpwTradeData *data;
  const BpwTradeSeries *s;
  BpwTradePoint h100_light, a100_light;

  data = bpw_trade_plot_get_data (bpw_tradeoffs_page_get_plot (page));
  h100_light = *point (data, g_array_index (data->series, BpwTradeSeries, h100).first);
  a100_light = *point (data, g_array_index (data->series, BpwTradeSeries, a100).first);

  g_assert_no_error (error);
  bp->memory[bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE)].bandwidth.value = 4.8e12;

  /* Hidden, the page keeps its curves (stale) and sweeps nothing for the edit... */
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "overview");
  bpw_test_wait_for_frame (GTK_WIDGET (window));
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (page)));
  g_assert_true (bpw_window_apply_edit (window, bpw_study_edit_new_blueprint (study, bp, NULL),
                                        &error));
  g_assert_no_error (error);
  g_assert_false (bpw_tradeoffs_page_get_busy (page));
  g_assert_true (bpw_trade_plot_get_data (bpw_tradeoffs_page_get_plot (page)) == data);

  /* ...until it is shown again. */
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "tradeoffs");
  bpw_test_wait_for_frame (GTK_WIDGET (page));
  g_assert_true (bpw_tradeoffs_page_get_busy (page));
  bpw_test_wait (bpw_test_tradeoffs_busy, page);

  data = bpw_trade_plot_get_data (bpw_tradeoffs_page_get_plot (page));
  s = &g_array_index (data->series, BpwTradeSeries, h100);
  g_assert_cmpfloat (point (data, s->first)->latency[BPW_TRADE_LATENCY_TPOT].p50, <,
                     h100_light.latency[BPW_TRADE_LATENCY_TPOT].p50);
  s = &g_array_index (data->series, BpwTradeSeries, a100);
  g_assert_cmpfloat (point (data, s->first)->arrival_rate, ==, a100_light.arrival_rate);
  g_assert_cmpfloat (point (data, s->first)->latency[BPW_TRADE_LATENCY_TPOT].p50, ==,
                     a100_light.latency[BPW_TRADE_LATENCY_TPOT].p50);

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

  g_test_add_func ("/bpw/ui/TradeoffsPage/default-study", test_tradeoffs_default);
  g_test_add_func ("/bpw/ui/TradeoffsPage/edit", test_tradeoffs_edit);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
