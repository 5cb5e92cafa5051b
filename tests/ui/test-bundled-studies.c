/* test-bundled-studies.c — the window opens each bundled study from its templates menu
 * and the Overview evaluates every candidate on every scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-bundled-studies"

#include "config.h"

#include <string.h>

#include "bpw-ui-test-util.h"

typedef struct
{
  const char *name;          /* bundled study */
  const char *title;         /* its "name" */
  guint       n_scenarios;
  guint       n_candidates;
  gint64      devices[4];    /* per scenario */
  /* Candidate × scenario (candidate-major) that does not fit: the eager stack's memory. */
  gint        illegal;       /* -1: none */
} BundledCase;

static const BundledCase cases[] = {
  /* Llama 3 405B: TP 8 × PP 16 × DP 128 at 8 K, TP 8 × CP 16 × PP 16 × DP 8 at 128 K, full
   * recompute: every candidate fits (flash attention keeps no scores, so H100's 80 GB holds
   * the 128 K run at about 35 GB). */
  { "long-context", "Llama 3 405B long-context training", 2, 4, { 16384, 16384 }, -1 },
  /* DeepSeek-V3: PP 16 × DP 128 with EP 64. */
  { "moe-training", "DeepSeek-V3 MoE training", 1, 4, { 2048, 0 }, -1 },
  /* LLaVA-1.5 7B and Llama 3.2 11B Vision, prefill and decode on one device. */
  { "multimodal-serving", "Multimodal serving: LLaVA-1.5 7B and Llama 3.2 11B Vision", 4, 4,
    { 1, 1, 1, 1 }, -1 },
  /* Llama 3 70B colocated on TP 8 × DP 2 (the pools are serving's, for the trade curves). */
  { "disaggregated-serving", "Llama 3 70B disaggregated serving", 2, 3, { 16, 16 }, -1 },
};

static gboolean
names_bundled (const char *name)
{
  return g_strv_contains (bpw_study_bundled_names (), name);
}

static void
test_bundled_study (gconstpointer data)
{
  const BundledCase *bc = data;
  BpwWindow *window = bpw_test_open_default ();
  BpwStudy *study;
  GListModel *items;
  guint n_candidates;

  g_assert_true (names_bundled (bc->name));
  /* As the templates menu does (win.new-from-template with the bundled name). */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-from-template", "s",
                                             bc->name));
  bpw_test_wait_window (window);
  study = bpw_window_get_study (window);
  g_assert_cmpstr (bpw_study_get_name (study), ==, bc->title);
  g_assert_cmpuint (bpw_study_get_n_scenarios (study), ==, bc->n_scenarios);
  n_candidates = bpw_study_get_n_candidates (study);
  g_assert_cmpuint (n_candidates, ==, bc->n_candidates);

  items = bpw_window_get_overview_items (window);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, n_candidates * bc->n_scenarios);
  for (guint c = 0; c < n_candidates; c++)
    for (guint s = 0; s < bc->n_scenarios; s++)
      {
        guint index = c * bc->n_scenarios + s;
        g_autoptr(BpwOverviewItem) item = g_list_model_get_item (items, index);
        const BpwOverviewEvaluation *e = bpw_overview_item_get_evaluation (item);

        g_assert_cmpstr (bpw_overview_item_get_candidate (item), ==,
                         bpw_study_get_candidate (study, c)->name);
        g_assert_cmpstr (bpw_overview_item_get_scenario_name (item), ==,
                         bpw_study_get_scenario (study, s)->name);
        g_assert_cmpint (bpw_overview_item_get_devices (item), ==, bc->devices[s]);
        g_assert_nonnull (e);
        g_test_message ("%s on %s: legal %d, step %g s%s%s", bpw_overview_item_get_candidate (item),
                        bpw_study_get_scenario (study, s)->name, e->legal, e->step_time_s,
                        e->reason != NULL ? ": " : "", e->reason != NULL ? e->reason : "");
        g_assert_false (e->failed);
        if ((gint) index == bc->illegal)
          {
            g_assert_false (e->legal);
            g_assert_nonnull (e->reason);
            g_assert_nonnull (strstr (e->reason, "device memory"));
          }
        else
          {
            g_assert_true (e->legal);
            g_assert_cmpfloat (e->step_time_s, >, 0.0);
            g_assert_cmpuint (e->peak_bytes, <=, bpw_overview_item_get_capacity (item));
            g_assert_cmpint (e->sla, ==, BPW_SLA_MET);
          }
      }
  g_assert_true (bpw_overview_page_get_shows_evaluation (bpw_window_get_overview_page (window)));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int status;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/bpw/ui/BundledStudies/%s", cases[i].name);

      g_test_add_data_func (path, &cases[i], test_bundled_study);
    }
  status = g_test_run ();
  bpw_test_remove_tree (scratch);
  return status;
}
