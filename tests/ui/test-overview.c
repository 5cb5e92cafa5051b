/* test-overview.c — the Overview's items and columns, with and without an evaluation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-overview"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-ui-test-util.h"

/* Llama 3 8B prefill of 4 × 2048 tokens on one device: its facts, as the window has them. */
static BpwFactsRow *
llama_prefill_row (void)
{
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec = { 0 };
  BpwScenario scenario;
  BpwParallel parallel;
  BpwFacts facts = { 0 };
  BpwFactsRow *row;

  g_assert_true (bpw_model_spec_lookup_bundled ("llama3-8b", &spec));
  bpw_scenario_init_defaults (&scenario);
  bpw_parallel_init_defaults (&parallel);
  scenario.phase = BPW_WORKLOAD_PREFILL;
  scenario.global_batch = 4;
  scenario.micro_batch = 4;
  scenario.seq = 2048;
  scenario.sla_ttft = 0.5;
  g_assert_true (bpw_facts_compute (&spec, &scenario, &parallel, &facts, &error));
  g_assert_no_error (error);
  row = bpw_facts_row_new ("prefill", NULL, "llama3-8b", &scenario, &parallel, &facts, NULL);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&scenario);
  return row;
}

static void
test_overview_without_evaluation (void)
{
  g_autoptr(BpwFactsRow) row = llama_prefill_row ();
  BpwOverviewInputs inputs = {
    .candidate = "Nowhere",
    .blueprint_ref = "no-such-blueprint",
    .run = NULL,
    .run_error = NULL,
    .scenario = row,
  };
  g_autoptr(BpwOverviewItem) item = bpw_overview_item_new (&inputs);
  const BpwFacts *facts = bpw_facts_row_get_facts (row);
  const BpwRankMemory *m = &facts->memory;
  g_autofree char *share = NULL;
  g_autofree char *latency = NULL;

  g_assert_null (bpw_overview_item_get_evaluation (item));
  g_assert_cmpint (bpw_overview_item_get_devices (item), ==, 1);
  g_assert_cmpuint (bpw_overview_item_get_memory (item), ==,
                    m->weights + m->gradients + m->optimizer_state + m->activations
                    + m->kv_cache);
  /* No blueprint: no capacity, no share, and nothing in the evaluation's columns. */
  g_assert_cmpuint (bpw_overview_item_get_capacity (item), ==, 0);
  share = bpw_overview_item_format (item, BPW_OVERVIEW_COLUMN_MEMORY_SHARE,
                                    BPW_BYTE_UNITS_BINARY);
  g_assert_cmpstr (share, ==, "—");
  latency = bpw_overview_item_format (item, BPW_OVERVIEW_COLUMN_LATENCY,
                                      BPW_BYTE_UNITS_BINARY);
  g_assert_cmpstr (latency, ==, "");
}

static void
check_format (BpwOverviewItem   *item,
              BpwOverviewColumn  column,
              const char        *expected)
{
  g_autofree char *text = bpw_overview_item_format (item, column, BPW_BYTE_UNITS_DECIMAL);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_overview_evaluation_columns (void)
{
  g_autoptr(BpwFactsRow) row = llama_prefill_row ();
  BpwOverviewInputs inputs = { .candidate = "Test", .blueprint_ref = "x", .scenario = row };
  g_autoptr(BpwOverviewItem) item = bpw_overview_item_new (&inputs);
  g_autoptr(GListStore) store = g_list_store_new (BPW_TYPE_OVERVIEW_ITEM);
  BpwOverviewPage *page = g_object_ref_sink (g_object_new (BPW_TYPE_OVERVIEW_PAGE, NULL));
  BpwOverviewEvaluation e = {
    .legal = TRUE,
    .step_time_s = 0.25,
    .ttft_s = 0.25,
    .mfu = 0.4567,
    .peak_bytes = 30000000000ull,
    .bottleneck = "memory",
    .sla = BPW_SLA_MET,
    .energy_j = 30.04,
    .tokens_per_joule = 136.4,
    .power_w = 120.16,
    .energy_source = "Idle power 70 W (measured: a pack)",
  };

  g_list_store_append (store, item);
  bpw_overview_page_set_model (page, G_LIST_MODEL (store));
  g_assert_false (bpw_overview_page_get_shows_evaluation (page));

  /* Prefill answers with its TTFT; the peak replaces the facts' memory. */
  bpw_overview_item_set_evaluation (item, &e);
  g_list_store_remove (store, 0);
  g_list_store_append (store, item);
  g_assert_true (bpw_overview_page_get_shows_evaluation (page));
  check_format (item, BPW_OVERVIEW_COLUMN_LATENCY, "250 ms");
  check_format (item, BPW_OVERVIEW_COLUMN_TPOT, "");
  check_format (item, BPW_OVERVIEW_COLUMN_MFU, "45.7 %");
  check_format (item, BPW_OVERVIEW_COLUMN_MEMORY, "30.0 GB");
  check_format (item, BPW_OVERVIEW_COLUMN_BOTTLENECK, "memory");
  check_format (item, BPW_OVERVIEW_COLUMN_SLA, "Met");
  g_assert_cmpstr (bpw_overview_item_get_style (item, BPW_OVERVIEW_COLUMN_SLA), ==, "success");
  /* Energy with its unit; the tooltip says it is modelled, at which power, from what. */
  check_format (item, BPW_OVERVIEW_COLUMN_ENERGY, "30.0 J");
  check_format (item, BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE, "136");
  {
    g_autofree char *tooltip = bpw_overview_item_dup_tooltip (item,
                                                              BPW_OVERVIEW_COLUMN_ENERGY);

    g_assert_nonnull (strstr (tooltip, "modelled"));
    g_assert_nonnull (strstr (tooltip, "120 W"));
    g_assert_nonnull (strstr (tooltip, "measured: a pack"));
  }
  /* A blueprint that cannot price energy shows a dash, never a zero, and says why. */
  e.energy_j = NAN;
  e.tokens_per_joule = NAN;
  bpw_overview_item_set_evaluation (item, &e);
  check_format (item, BPW_OVERVIEW_COLUMN_ENERGY, "—");
  check_format (item, BPW_OVERVIEW_COLUMN_TOKENS_PER_JOULE, "—");
  {
    g_autofree char *tooltip = bpw_overview_item_dup_tooltip (item,
                                                              BPW_OVERVIEW_COLUMN_ENERGY);

    g_assert_nonnull (strstr (tooltip, "no idle power"));
  }

  /* An illegal plan says so, in red, with its reason; no number is shown for it. */
  e.legal = FALSE;
  e.reason = "the weights do not fit in 80 GB of device memory";
  bpw_overview_item_set_evaluation (item, &e);
  check_format (item, BPW_OVERVIEW_COLUMN_LATENCY, "Illegal");
  check_format (item, BPW_OVERVIEW_COLUMN_MFU, "");
  check_format (item, BPW_OVERVIEW_COLUMN_SLA, "");
  g_assert_cmpstr (bpw_overview_item_get_style (item, BPW_OVERVIEW_COLUMN_LATENCY), ==,
                   "error");
  {
    g_autofree char *tooltip = bpw_overview_item_dup_tooltip (item,
                                                              BPW_OVERVIEW_COLUMN_LATENCY);

    g_assert_cmpstr (tooltip, ==, e.reason);
  }

  /* Removing the evaluation hides its columns again. */
  bpw_overview_item_set_evaluation (item, NULL);
  g_list_store_remove (store, 0);
  g_list_store_append (store, item);
  g_assert_false (bpw_overview_page_get_shows_evaluation (page));

  g_object_unref (page);
}

/* The Conservation card lists, apart from the semantic work, every implementation
 * transformation the core's plan has for the selected candidate on the scenario, with the
 * core's time: what `bpw evaluate` prints under "Transformations". */
static void
test_overview_stack_transformations (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study = bpw_window_get_study (window);
  BpwOverviewPage *page = bpw_window_get_overview_page (window);
  BpwFactsDetails *details = BPW_FACTS_DETAILS (bpw_test_find_widget (GTK_WIDGET (page),
                                                                      BPW_TYPE_FACTS_DETAILS));
  BpwOverviewItem *item = bpw_overview_page_get_selected_item (page);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  BpwCandidateRun run;
  GArray *shown;
  guint candidate = G_MAXUINT, scenario = G_MAXUINT, listed = 0;

  g_assert_nonnull (details);
  g_assert_nonnull (item);
  for (guint c = 0; c < bpw_study_get_n_candidates (study); c++)
    if (g_strcmp0 (bpw_study_get_candidate (study, c)->name,
                   bpw_overview_item_get_candidate (item)) == 0)
      candidate = c;
  for (guint i = 0; i < bpw_study_get_n_scenarios (study); i++)
    if (g_strcmp0 (bpw_study_get_scenario (study, i)->name,
                   bpw_overview_item_get_scenario_name (item)) == 0)
      scenario = i;
  g_assert_cmpuint (candidate, !=, G_MAXUINT);
  g_assert_cmpuint (scenario, !=, G_MAXUINT);
  g_assert_true (bpw_candidate_run_init (&run, study, candidate, scenario, &error));
  g_assert_no_error (error);
  plan = bpw_candidate_run_bind (&run, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (bpw_overview_item_get_stack_name (item), ==, run.blueprint->stack.name);
  bpw_candidate_run_clear (&run);

  shown = bpw_overview_item_get_transformations (item);
  g_assert_nonnull (shown);
  for (guint i = 0; i < plan->transformations->len; i++)
    {
      const BpwTransformation *t = &g_array_index (plan->transformations, BpwTransformation, i);
      const BpwOverviewTransformation *s;
      g_autofree char *time = NULL;
      const char *text;

      if (!t->implementation)
        {
          /* Semantic additions (padding, fusion ...) stay out of the list. */
          g_assert_null (bpw_facts_details_get_transformation_text (details, t->name));
          continue;
        }
      g_assert_cmpuint (listed, <, shown->len);
      s = &g_array_index (shown, BpwOverviewTransformation, listed++);
      g_assert_cmpstr (s->name, ==, t->name);
      g_assert_cmpfloat (s->time_s, ==, t->time_s);
      g_assert_cmpfloat (s->bytes, ==, t->bytes);
      text = bpw_facts_details_get_transformation_text (details, t->name);
      g_assert_nonnull (text);
      /* As bpw evaluate prints it: "+1801 device-s". */
      time = g_strdup_printf ("+%.4g device-s", t->time_s);
      g_assert_true (g_str_has_prefix (text, time));
    }
  g_assert_cmpuint (listed, ==, shown->len);
  /* The default study's blueprints state a software stack: there is something to list. */
  g_assert_cmpuint (listed, >, 0);
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

  g_test_add_func ("/bpw/ui/Overview/without-evaluation", test_overview_without_evaluation);
  g_test_add_func ("/bpw/ui/Overview/evaluation-columns", test_overview_evaluation_columns);
  g_test_add_func ("/bpw/ui/Overview/stack-transformations",
                   test_overview_stack_transformations);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
