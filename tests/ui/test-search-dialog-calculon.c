/* test-search-dialog-calculon.c — the search dialog searches Calculon's space when asked, and
 * prices plans with Calculon's own model on a study of Calculon's inputs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-search-dialog-calculon"

#include "config.h"

#include "bpw-calculon-rules.h"
#include "bpw-search-test-util.h"
#include "bpw-ui-test-util.h"

/* The default study's H100 candidate on Llama 3 70B prefill (8 devices). */
#define CANDIDATE 1
#define SCENARIO  1

static guint64
core_space_size_of (BpwStudy *study,
                    guint     candidate,
                    guint     scenario,
                    gboolean  calculon,
                    gint      act_offload)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  BpwSearchLimits limits;
  BpwCandidateRun run;
  guint64 size;

  g_assert_true (bpw_candidate_run_init (&run, study, candidate, scenario, &error));
  g_assert_no_error (error);
  bpw_search_limits_init (&limits);
  limits.rules = calculon ? bpw_calculon_search_rules () : NULL;
  limits.act_offload = act_offload;
  space = bpw_search_space_new (&run.spec, &run.scenario, run.blueprint, &run.mapping,
                                bpw_parallel_devices (&bpw_study_get_scenario (study,
                                                                               scenario)->parallel),
                                &limits, &error);
  g_assert_no_error (error);
  size = bpw_search_space_size (space);
  bpw_candidate_run_clear (&run);
  return size;
}

static guint64
core_space_size (BpwStudy *study,
                 guint     scenario,
                 gboolean  calculon)
{
  return core_space_size_of (study, CANDIDATE, scenario, calculon, -1);
}

/* The switch row titled @title in @root, or NULL. */
static GtkWidget *
switch_row (GtkWidget *root, const char *title)
{
  if (ADW_IS_ACTION_ROW (root) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = switch_row (c, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The labels of the combo row titled @title in @dialog, "Any" first. */
static GPtrArray *
row_labels (GtkWidget *root, const char *title)
{
  if (ADW_IS_COMBO_ROW (root) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    {
      GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (root));
      GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < g_list_model_get_n_items (model); i++)
        g_ptr_array_add (labels, g_strdup (gtk_string_list_get_string (GTK_STRING_LIST (model),
                                                                       i)));
      return labels;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GPtrArray *found = row_labels (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* "Any" and the ZeRO stages the core's space of @calculon holds, ascending. */
static char *
core_zero_labels (BpwStudy *study, gboolean calculon)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(GString) out = g_string_new ("Any");
  BpwSearchLimits limits;
  BpwCandidateRun run;
  gboolean seen[4] = { FALSE };

  g_assert_true (bpw_candidate_run_init (&run, study, CANDIDATE, 0, &error));
  bpw_search_limits_init (&limits);
  limits.rules = calculon ? bpw_calculon_search_rules () : NULL;
  space = bpw_search_space_new (&run.spec, &run.scenario, run.blueprint, &run.mapping,
                                bpw_parallel_devices (&bpw_study_get_scenario (study, 0)->parallel),
                                &limits, &error);
  g_assert_no_error (error);
  for (guint g = 0; g < space->groups->len; g++)
    seen[g_array_index (space->groups, BpwSearchGroup, g).zero] = TRUE;
  for (guint z = 0; z < G_N_ELEMENTS (seen); z++)
    if (seen[z])
      g_string_append_printf (out, ",%u", z);
  bpw_candidate_run_clear (&run);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
joined (GPtrArray *labels)
{
  g_ptr_array_add (labels, NULL);
  return g_strjoinv (",", (char **) labels->pdata);
}

/* "Calculon's options" searches the space `bpw search --space calculon` does: the plan
 * count follows; a serving scenario has no such space and keeps the full one. */
static void
test_calculon_space (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwSearchDialog *dialog = bpw_search_test_open (window, CANDIDATE, 0);
  guint64 full = core_space_size (study, 0, FALSE);
  guint64 calculon = core_space_size (study, 0, TRUE);
  BpwSearchLimits limits;

  g_assert_cmpuint (full, !=, calculon);
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, full);
  bpw_search_dialog_get_limits (dialog, &limits);
  g_assert_false (limits.rules == bpw_calculon_search_rules ());
  limits.rules = bpw_calculon_search_rules ();
  bpw_search_dialog_set_limits (dialog, &limits);
  bpw_search_dialog_get_limits (dialog, &limits);
  g_assert_true (limits.rules == bpw_calculon_search_rules ());
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, calculon);
  limits.rules = NULL;
  bpw_search_dialog_set_limits (dialog, &limits);
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, full);

  /* The rows offer the values of the space chosen: Calculon's ZeRO is 0 or 2. A choice
   * that space lacks goes back to Any; one it holds stays. */
  {
    g_autoptr(GPtrArray) rows_full = row_labels (GTK_WIDGET (dialog), "_ZeRO Stage");
    g_autoptr(GPtrArray) rows_calculon = NULL;
    g_autofree char *want_full = core_zero_labels (study, FALSE);
    g_autofree char *want_calculon = core_zero_labels (study, TRUE);
    g_autofree char *got_full = NULL, *got_calculon = NULL;

    g_assert_nonnull (rows_full);
    got_full = joined (rows_full);
    g_assert_cmpstr (got_full, ==, want_full);
    g_assert_cmpstr (want_calculon, ==, "Any,0,2");
    limits.zero = 1;
    bpw_search_dialog_set_limits (dialog, &limits);
    bpw_search_dialog_get_limits (dialog, &limits);
    g_assert_cmpint (limits.zero, ==, 1);
    limits.rules = bpw_calculon_search_rules ();
    bpw_search_dialog_set_limits (dialog, &limits);
    rows_calculon = row_labels (GTK_WIDGET (dialog), "_ZeRO Stage");
    got_calculon = joined (rows_calculon);
    g_assert_cmpstr (got_calculon, ==, want_calculon);
    bpw_search_dialog_get_limits (dialog, &limits);
    g_assert_cmpint (limits.zero, ==, -1);
    g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, calculon);
    limits.zero = 2;
    bpw_search_dialog_set_limits (dialog, &limits);
    limits.rules = NULL;
    bpw_search_dialog_set_limits (dialog, &limits);
    bpw_search_dialog_get_limits (dialog, &limits);
    g_assert_cmpint (limits.zero, ==, 2);
    g_assert_false (limits.rules == bpw_calculon_search_rules ());
  }
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* Where stored activations may live, in Calculon's space on a blueprint with host
   * memory (the A100): the two rows show there only, and their sides partition it. */
  dialog = bpw_search_test_open (window, 0, 0);
  {
    guint64 both = core_space_size_of (study, 0, 0, TRUE, -1);
    guint64 device = core_space_size_of (study, 0, 0, TRUE, 0);
    guint64 host = core_space_size_of (study, 0, 0, TRUE, 1);
    GtkWidget *on_host = switch_row (GTK_WIDGET (dialog), "Activations on _Host");

    g_assert_nonnull (on_host);
    g_assert_cmpuint (device, >, 0);
    g_assert_cmpuint (host, >, 0);
    g_assert_cmpuint (device + host, ==, both);
    g_assert_false (gtk_widget_get_visible (on_host));
    bpw_search_dialog_get_limits (dialog, &limits);
    limits.rules = bpw_calculon_search_rules ();
    bpw_search_dialog_set_limits (dialog, &limits);
    g_assert_true (gtk_widget_get_visible (on_host));
    g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, both);
    for (gint a = 0; a <= 1; a++)
      {
        limits.act_offload = a;
        bpw_search_dialog_set_limits (dialog, &limits);
        bpw_search_dialog_get_limits (dialog, &limits);
        g_assert_cmpint (limits.act_offload, ==, a);
        g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, a ? host : device);
      }
    /* Back in the full space the rows hide and the choice does not apply. */
    limits.rules = NULL;
    bpw_search_dialog_set_limits (dialog, &limits);
    bpw_search_dialog_get_limits (dialog, &limits);
    g_assert_false (gtk_widget_get_visible (on_host));
    g_assert_cmpint (limits.act_offload, ==, -1);
    g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==,
                      core_space_size_of (study, 0, 0, FALSE, -1));
  }
  gtk_window_destroy (GTK_WINDOW (dialog));

  dialog = bpw_search_test_open (window, CANDIDATE, SCENARIO);
  full = core_space_size (study, SCENARIO, FALSE);
  bpw_search_dialog_get_limits (dialog, &limits);
  limits.rules = bpw_calculon_search_rules ();
  bpw_search_dialog_set_limits (dialog, &limits);
  bpw_search_dialog_get_limits (dialog, &limits);
  g_assert_false (limits.rules == bpw_calculon_search_rules ());
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, full);

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* "Priced By: Calculon’s model" runs Calculon's own search (bpw search --cost-model
 * calculon) on a study of Calculon's inputs: the core's counts and best list, in its order,
 * beside the workbench's price of each plan; and a blueprint without Calculon's tables
 * cannot choose it. */
static void
test_calculon_model (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "studies",
                                                 "calculon-gpt3.bpw-study.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwCalculonSpace) space = NULL;
  g_autoptr(BpwCalculonSearchReport) core = NULL;
  BpwWindow *window = bpw_window_new (NULL, NULL);
  BpwSearchDialog *dialog;
  const BpwCalculonSearchReport *shown;
  BpwCalculonSearchOptions options;
  BpwCandidateRun run;
  BpwCalculonApp app;
  BpwCalculonSystem system;
  BpwSearchLimits limits;
  GListModel *results;

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (bpw_window_open_file (window, file, &error));
  g_assert_no_error (error);
  bpw_test_wait_window (window);

  /* The core's own run of the same problem: gpt3-13B on 4 GPUs, batch 8. */
  g_assert_true (bpw_candidate_run_init (&run, bpw_window_get_study (window), 0, 0, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_calculon_app_from_spec (&run.spec, run.scenario.seq, &app, &error));
  g_assert_true (bpw_calculon_system_from_blueprint (run.blueprint, run.scenario.dtype, &system,
                                                     &error));
  g_assert_no_error (error);
  bpw_calculon_search_options_init (&options);
  options.top_n = 5;
  space = bpw_calculon_space_new (&app, &system, 4, 8, run.scenario.dtype, &options, &error);
  g_assert_no_error (error);
  core = bpw_calculon_search_run (space, NULL, NULL, NULL);
  bpw_candidate_run_clear (&run);

  dialog = bpw_search_test_open (window, 0, 0);
  g_assert_null (bpw_search_dialog_get_calculon_error (dialog));
  g_assert_cmpint (bpw_search_dialog_get_cost_model (dialog), ==, BPW_SEARCH_COST_WORKBENCH);
  g_assert_true (bpw_search_dialog_set_cost_model (dialog, BPW_SEARCH_COST_CALCULON));
  g_assert_cmpint (bpw_search_dialog_get_cost_model (dialog), ==, BPW_SEARCH_COST_CALCULON);
  bpw_search_dialog_get_limits (dialog, &limits);
  g_assert_true (limits.rules == bpw_calculon_search_rules ());
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==, 60192);
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), ==,
                    bpw_calculon_space_size (space));

  /* Calculon's search fixes only TP and PP: a fixed TP is its slice. */
  limits.tp = 2;
  bpw_search_dialog_set_limits (dialog, &limits);
  g_assert_cmpuint (bpw_search_dialog_get_space_size (dialog), <, 60192);
  limits.tp = 0;
  bpw_search_dialog_set_limits (dialog, &limits);

  /* A sweep re-searches with the workbench's model: not with Calculon's chosen. */
  g_assert_true (bpw_search_dialog_add_sweep_param (dialog, "hbm_bandwidth", "2 TB/s, 3 TB/s"));
  g_assert_false (bpw_search_dialog_start (dialog));
  g_assert_false (bpw_search_dialog_get_running (dialog));
  bpw_search_dialog_remove_sweep_params (dialog);

  bpw_search_dialog_set_top_k (dialog, 5);
  bpw_search_dialog_set_threads (dialog, 2);
  bpw_search_dialog_set_simulate (dialog, FALSE);
  g_assert_true (bpw_search_dialog_start (dialog));
  bpw_test_wait (bpw_search_test_running, dialog);

  shown = bpw_search_dialog_get_calculon_report (dialog);
  g_assert_nonnull (shown);
  g_assert_cmpuint (shown->evaluated, ==, core->evaluated);
  g_assert_cmpuint (shown->good, ==, 44194);
  g_assert_cmpuint (shown->good, ==, core->good);
  results = bpw_search_dialog_get_results (dialog);
  g_assert_cmpuint (g_list_model_get_n_items (results), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      g_autoptr(BpwSearchItem) item = g_list_model_get_item (results, i);
      const BpwCalculonSearchResult *c = &g_array_index (core->best, BpwCalculonSearchResult, i);
      const BpwMapping *m = bpw_search_item_get_mapping (item);
      g_autofree char *cell = bpw_search_item_format (item, BPW_SEARCH_COLUMN_CALCULON,
                                                      BPW_BYTE_UNITS_BINARY);

      g_assert_cmpfloat (bpw_search_item_get_calculon_step_time (item), ==,
                         c->stats.total_time);
      g_assert_cmpint (m->parallel.tp, ==, c->exe.tensor_par);
      g_assert_cmpint (m->parallel.pp, ==, c->exe.pipeline_par);
      g_assert_cmpint (m->micro_batch, ==, c->exe.microbatch_size);
      /* The workbench's own price of the same plan. */
      g_assert_cmpfloat (bpw_search_item_get_estimate (item)->step_time_s, >, 0);
      g_assert_cmpstr (cell, !=, "—");
    }
  /* Calculon's best is what its loe run printed: TP 4, micro-batch 2, 1.6022 s. */
  {
    g_autoptr(BpwSearchItem) best = g_list_model_get_item (results, 0);

    g_assert_cmpint (bpw_search_item_get_mapping (best)->parallel.tp, ==, 4);
    g_assert_cmpfloat_with_epsilon (bpw_search_item_get_calculon_step_time (best), 1.6022,
                                    5e-5);
  }
  /* Promotion adds Calculon's choice to the study. */
  bpw_search_dialog_select_result (dialog, 0);
  g_assert_true (bpw_search_dialog_promote (dialog, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (bpw_window_get_study (window)), ==, 2);
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));

  /* The default study's blueprints interpolate their tables: Calculon's model is out. */
  window = bpw_test_open_default ();
  dialog = bpw_search_test_open (window, 0, 0);
  g_assert_nonnull (bpw_search_dialog_get_calculon_error (dialog));
  g_assert_false (bpw_search_dialog_set_cost_model (dialog, BPW_SEARCH_COST_CALCULON));
  g_assert_cmpint (bpw_search_dialog_get_cost_model (dialog), ==, BPW_SEARCH_COST_WORKBENCH);
  gtk_window_destroy (GTK_WINDOW (dialog));
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

  g_test_add_func ("/bpw/ui/SearchDialog/calculon-space", test_calculon_space);
  g_test_add_func ("/bpw/ui/SearchDialog/calculon-model", test_calculon_model);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
