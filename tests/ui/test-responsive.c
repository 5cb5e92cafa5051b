/* test-responsive.c — long work never blocks the main loop; a failed export changes nothing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The executable is linked with -Wl,--wrap for the core's expensive entry points (facts,
 * the estimator, binding a plan), so every call the workbench makes to them passes
 * through a hook here. The hook counts calls by thread: a call on the main thread is a
 * callback that does a whole computation while the window cannot repaint. In a worker,
 * the first call of each entry point holds the computation until a 10 ms timeout on the
 * main loop has fired GATE_TICKS times, which proves by counting, not by timing, that the
 * main loop keeps dispatching while that computation is in flight: a main thread that
 * waits for the worker (a synchronous task) leaves the gate to time out, and the test
 * fails.
 */
#define G_LOG_DOMAIN "bpw-test-responsive"

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-ui-test-util.h"

/* Timeout dispatches the main loop must make while a worker is held. */
#define GATE_TICKS 5
/* How long a held worker waits for them: far more than 5 × 10 ms, so that only a main loop
 * that does not dispatch at all can run out of it, on any machine. */
#define GATE_LIMIT_S 30
/* Copies of the default study's scenarios in the big study: 11 × 3 scenarios, 132
 * evaluations, enough work for several batches of worker calls and still well inside
 * bpw_test_wait()'s minute under ASan on a loaded 2-core machine. */
#define BIG_COPIES 10

typedef enum
{
  HOOK_FACTS,
  HOOK_ESTIMATOR_NEW,
  HOOK_EVALUATE,
  HOOK_BIND,
  N_HOOKS
} Hook;

static GThread *main_thread;
static gint main_calls[N_HOOKS];
static gint worker_calls[N_HOOKS];

/* One gate per entry point, under gate_lock. */
static GMutex gate_lock;
static GCond gate_cond;
static gboolean gate_armed[N_HOOKS];
static gint gate_passed[N_HOOKS];  /* -1: not reached; 1: ticks arrived; 0: timed out */
static guint gate_ticks;           /* timeout dispatches so far */
static guint gate_holding;         /* workers held now */
static guint gate_iterations;      /* main loop iterations while a worker was held */

/* The real functions, and the hooks the linker puts in their place. */
gboolean      __real_bpw_facts_compute      (const BpwModelSpec *, const BpwScenario *,
                                             const BpwParallel *, BpwFacts *, GError **);
BpwEstimator *__real_bpw_estimator_new      (const BpwModelSpec *, const BpwScenario *,
                                             const BpwBlueprint *, GError **);
gboolean      __real_bpw_estimator_evaluate (BpwEstimator *, const BpwMapping *,
                                             BpwEvaluation *, GPtrArray *, GError **);
BpwPlan      *__real_bpw_candidate_run_bind (const BpwCandidateRun *, GError **);

gboolean      __wrap_bpw_facts_compute      (const BpwModelSpec *, const BpwScenario *,
                                             const BpwParallel *, BpwFacts *, GError **);
BpwEstimator *__wrap_bpw_estimator_new      (const BpwModelSpec *, const BpwScenario *,
                                             const BpwBlueprint *, GError **);
gboolean      __wrap_bpw_estimator_evaluate (BpwEstimator *, const BpwMapping *,
                                             BpwEvaluation *, GPtrArray *, GError **);
BpwPlan      *__wrap_bpw_candidate_run_bind (const BpwCandidateRun *, GError **);

static void
hook (Hook which)
{
  gint64 deadline;
  guint start;

  if (g_thread_self () == main_thread)
    {
      g_atomic_int_inc (&main_calls[which]);
      return;
    }
  g_atomic_int_inc (&worker_calls[which]);

  g_mutex_lock (&gate_lock);
  if (gate_armed[which])
    {
      gate_armed[which] = FALSE;
      gate_holding++;
      start = gate_ticks;
      deadline = g_get_monotonic_time () + GATE_LIMIT_S * G_TIME_SPAN_SECOND;
      while (gate_ticks < start + GATE_TICKS)
        if (!g_cond_wait_until (&gate_cond, &gate_lock, deadline))
          break;
      gate_passed[which] = gate_ticks >= start + GATE_TICKS;
      gate_holding--;
    }
  g_mutex_unlock (&gate_lock);
}

gboolean
__wrap_bpw_facts_compute (const BpwModelSpec *spec,
                          const BpwScenario  *scenario,
                          const BpwParallel  *parallel,
                          BpwFacts           *facts,
                          GError            **error)
{
  hook (HOOK_FACTS);
  return __real_bpw_facts_compute (spec, scenario, parallel, facts, error);
}

BpwEstimator *
__wrap_bpw_estimator_new (const BpwModelSpec *spec,
                          const BpwScenario  *scenario,
                          const BpwBlueprint *blueprint,
                          GError            **error)
{
  hook (HOOK_ESTIMATOR_NEW);
  return __real_bpw_estimator_new (spec, scenario, blueprint, error);
}

gboolean
__wrap_bpw_estimator_evaluate (BpwEstimator     *estimator,
                               const BpwMapping *mapping,
                               BpwEvaluation    *out,
                               GPtrArray        *reasons,
                               GError          **error)
{
  hook (HOOK_EVALUATE);
  return __real_bpw_estimator_evaluate (estimator, mapping, out, reasons, error);
}

BpwPlan *
__wrap_bpw_candidate_run_bind (const BpwCandidateRun *run,
                               GError               **error)
{
  hook (HOOK_BIND);
  return __real_bpw_candidate_run_bind (run, error);
}

static gboolean
tick_cb (gpointer data)
{
  g_mutex_lock (&gate_lock);
  gate_ticks++;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
  return G_SOURCE_CONTINUE;
}

static void
reset_hooks (void)
{
  g_mutex_lock (&gate_lock);
  for (guint i = 0; i < N_HOOKS; i++)
    {
      g_atomic_int_set (&main_calls[i], 0);
      g_atomic_int_set (&worker_calls[i], 0);
      gate_armed[i] = TRUE;
      gate_passed[i] = -1;
    }
  gate_iterations = 0;
  g_mutex_unlock (&gate_lock);
}

static gboolean
window_or_sheet_busy (gpointer data)
{
  BpwWindow *window = data;

  /* bpw_test_wait() calls this once per g_main_context_iteration(): count those that
   * return while a worker is held, to show they keep returning while the work goes on. */
  gboolean holding;

  g_mutex_lock (&gate_lock);
  holding = gate_holding > 0;
  if (holding)
    gate_iterations++;
  g_mutex_unlock (&gate_lock);
  /* The Overview's fit matrix and the Compare page's workers also call the hooked
   * functions, and one of them may be the first to reach a gate: wait for it too, or a
   * fast machine finds the window idle while that gate is still held and not yet passed. */
  return holding || bpw_window_get_busy (window) ||
         bpw_sheet_page_get_busy (bpw_window_get_sheet_page (window));
}

/* Waits for the window's computation and the Sheet's binding, then checks that no
 * expensive call ran on the main thread, that every entry point's gate was passed, and
 * that the facts and evaluations the window reports all ran in workers. */
static void
assert_worked_off_main (BpwWindow *window)
{
  BpwComputeStats stats;

  bpw_test_wait (window_or_sheet_busy, window);
  bpw_window_get_compute_stats (window, &stats);

  for (guint i = 0; i < N_HOOKS; i++)
    {
      g_test_message ("hook %u: %d main calls, %d worker calls, gate %d", i,
                      g_atomic_int_get (&main_calls[i]), g_atomic_int_get (&worker_calls[i]),
                      gate_passed[i]);
      g_assert_cmpint (g_atomic_int_get (&main_calls[i]), ==, 0);
      g_assert_cmpint (gate_passed[i], ==, 1);
    }
  g_assert_cmpuint (gate_iterations, >=, GATE_TICKS);
  /* Binding a plan may compute facts itself: at least, not exactly. */
  g_assert_cmpuint (stats.facts, >, 0);
  g_assert_cmpint (g_atomic_int_get (&worker_calls[HOOK_FACTS]), >=, (gint) stats.facts);
  g_assert_cmpint (g_atomic_int_get (&worker_calls[HOOK_EVALUATE]), >=,
                   (gint) stats.evaluations);
  g_assert_cmpint (g_atomic_int_get (&worker_calls[HOOK_BIND]), >=, 1);
}

static BpwWindow *
new_window (void)
{
  BpwWindow *window = bpw_window_new (NULL, NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

/* The default study: its facts, its Overview and the Sheet's plan are computed while the
 * main loop goes on dispatching. */
static void
test_responsive_default (void)
{
  g_autoptr(GError) error = NULL;
  BpwWindow *window = new_window ();
  guint tick = g_timeout_add (10, tick_cb, NULL);
  BpwComputeStats stats;

  reset_hooks ();
  g_assert_true (bpw_window_open_bundled (window, "default", &error));
  g_assert_no_error (error);
  assert_worked_off_main (window);

  /* A first computation: every scenario's facts (3), every candidate on every scenario
   * (4 × 3), nothing to reuse. */
  bpw_window_get_compute_stats (window, &stats);
  g_assert_cmpuint (stats.facts, ==, 3);
  g_assert_cmpuint (stats.reused, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_rows (window)), ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_overview_items (window)), ==, 12);

  g_source_remove (tick);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A study with BIG_COPIES times the default study's scenarios, written to a file and
 * opened as a user would: loading it, its facts and its evaluations. */
static void
test_responsive_big_study (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autofree char *dir = g_dir_make_tmp ("bpw-responsive-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "big.bpw-study.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  BpwWindow *window;
  BpwComputeStats stats;
  guint n, tick;

  g_assert_no_error (error);
  n = bpw_study_get_n_scenarios (study);
  for (guint k = 1; k <= BIG_COPIES; k++)
    for (guint i = 0; i < n; i++)
      {
        const BpwStudyScenario *s = bpw_study_get_scenario (study, i);
        const BpwStudyWorkload *w = bpw_study_get_workload (study, s->workload);
        g_autofree char *name = g_strdup_printf ("%s-%u", s->name, k);

        g_assert_true (bpw_study_add_scenario (study, name, w->name, &s->scenario,
                                               &s->parallel, &error));
        g_assert_no_error (error);
      }
  g_assert_true (bpw_study_save_copy (study, path, &error));
  g_assert_no_error (error);

  window = new_window ();
  tick = g_timeout_add (10, tick_cb, NULL);
  reset_hooks ();
  g_assert_true (bpw_window_open_file (window, file, &error));
  g_assert_no_error (error);
  assert_worked_off_main (window);

  bpw_window_get_compute_stats (window, &stats);
  g_assert_cmpuint (stats.facts, ==, n * (BIG_COPIES + 1));
  g_assert_cmpuint (stats.reused, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_window_get_overview_items (window)), ==,
                    bpw_study_get_n_candidates (study) * n * (BIG_COPIES + 1));

  g_source_remove (tick);
  gtk_window_destroy (GTK_WINDOW (window));
  bpw_test_remove_tree (dir);
}

/* What a failed export may not touch: the study's content, where it is saved, whether it
 * is modified, what the window shows. */
typedef struct
{
  char     *json;
  GFile    *file;
  gboolean  modified;
  char     *title;
  char     *page;
  guint     candidate, scenario, rows, items;
  BpwPlot  *plot;
} Snapshot;

static void
snapshot_clear (Snapshot *s)
{
  g_free (s->json);
  g_free (s->title);
  g_free (s->page);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Snapshot, snapshot_clear)

static void
snapshot_take (Snapshot    *s,
               BpwWindow   *window,
               BpwPlotView *view)
{
  s->json = bpw_study_to_json (bpw_window_get_study (window));
  s->file = bpw_window_get_file (window);
  s->modified = bpw_window_get_modified (window);
  s->title = g_strdup (gtk_window_get_title (GTK_WINDOW (window)));
  s->page = g_strdup (adw_view_stack_get_visible_child_name (
                        bpw_window_get_view_stack (window)));
  s->candidate = bpw_window_get_selected_candidate (window);
  s->scenario = bpw_window_get_selected_scenario (window);
  s->rows = g_list_model_get_n_items (bpw_window_get_rows (window));
  s->items = g_list_model_get_n_items (bpw_window_get_overview_items (window));
  s->plot = bpw_plot_view_get_plot (view);
}

static void
snapshot_assert_same (const Snapshot *s,
                      BpwWindow      *window,
                      BpwPlotView    *view)
{
  g_auto(Snapshot) now = { 0 };

  snapshot_take (&now, window, view);
  g_assert_cmpstr (now.json, ==, s->json);
  g_assert_true (now.file == s->file);
  g_assert_cmpint (now.modified, ==, s->modified);
  g_assert_cmpstr (now.title, ==, s->title);
  g_assert_cmpstr (now.page, ==, s->page);
  g_assert_cmpuint (now.candidate, ==, s->candidate);
  g_assert_cmpuint (now.scenario, ==, s->scenario);
  g_assert_cmpuint (now.rows, ==, s->rows);
  g_assert_cmpuint (now.items, ==, s->items);
  g_assert_true (now.plot == s->plot);
  g_assert_false (bpw_window_get_busy (window));
  g_assert_null (bpw_test_find_dialog (GTK_WINDOW (window)));
}

static void
test_failed_export (void)
{
  BpwWindow *window = bpw_test_open_default ();
  AdwViewStack *stack = bpw_window_get_view_stack (window);
  g_autofree char *dir = g_dir_make_tmp ("bpw-export-fail-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "chart.png", NULL);
  g_autofree char *folder = g_build_filename (dir, "a-folder.svg", NULL);
  g_autofree char *no_plot = g_build_filename (dir, "chart.pdf", NULL);
  const char *targets[] = { missing, folder };
  g_auto(Snapshot) before = { 0 };
  BpwPlotView *view;

  bpw_test_wait_sheet (bpw_window_get_sheet_page (window));
  adw_view_stack_set_visible_child_name (stack, "roofline");
  view = BPW_PLOT_VIEW (bpw_test_find_widget (adw_view_stack_get_visible_child (stack),
                                              BPW_TYPE_PLOT_VIEW));
  bpw_test_wait_for_frame (GTK_WIDGET (view));
  g_assert_nonnull (bpw_plot_view_get_plot (view));
  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  snapshot_take (&before, window, view);

  /* A folder that does not exist, and a path that is a folder: the writers fail. */
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (bpw_plot_view_export_to_file (view, targets[i], &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, targets[i]));
      bpw_test_wait_for_frame (GTK_WIDGET (view));
      snapshot_assert_same (&before, window, view);
    }
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (folder, G_FILE_TEST_IS_DIR));

  /* The export draws at its own size and then lays the view out again: the view still
   * shows its plot at the widget's size, and a later export works. */
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (bpw_plot_view_export_to_file (view, no_plot, &error));
    g_assert_no_error (error);
    snapshot_assert_same (&before, window, view);
  }

  bpw_test_remove_tree (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int result;

  main_thread = g_thread_self ();
  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/Responsive/default-study", test_responsive_default);
  g_test_add_func ("/bpw/ui/Responsive/big-study", test_responsive_big_study);
  g_test_add_func ("/bpw/ui/Responsive/failed-export", test_failed_export);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
