/* bench-edit.c — how long an edit takes to show on the Overview and the Sheet
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opens the bundled default study in a 1600×1000 window, selects the H100 candidate and a
 * scenario, and edits the H100's HBM bandwidth back and forth, as typing into the
 * inspector does (bpw_window_apply_edit()). For each edit it reports
 *   updated  wall time from the edit until the Overview's and the Sheet's models hold the
 *            result (bpw_window_get_edit_latency());
 *   painted  wall time until the next frame of the window has been drawn;
 *   cpu      CPU time of the whole process (every thread) from the edit to "updated":
 *            the work itself, which on a busy machine is less than the wall time;
 * and the work the window did (facts computed, pairs evaluated, plans bound).
 *
 * Needs a display: xvfb-run -a BUILDDIR/bench/bench-edit [EDITS]. Issue 5's target is
 * 50 ms from an edit to updated pages.
 */
#define G_LOG_DOMAIN "bench-edit"

#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "bpw-ui.h"

typedef struct
{
  double updated, painted, cpu;
} Sample;

static double
cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static gboolean
busy (BpwWindow *window)
{
  return bpw_window_get_busy (window) || bpw_window_get_edit_pending (window)
         || bpw_sheet_page_get_busy (bpw_window_get_sheet_page (window));
}

static void
wait_idle (BpwWindow *window)
{
  while (busy (window))
    g_main_context_iteration (NULL, TRUE);
}

static void
painted_cb (GdkFrameClock *clock,
            gboolean      *painted)
{
  *painted = TRUE;
}

static void
wait_frame (GtkWidget *widget)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);
  gboolean painted = FALSE;
  gulong id = g_signal_connect (clock, "after-paint", G_CALLBACK (painted_cb), &painted);

  gtk_widget_queue_draw (widget);
  while (!painted)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (clock, id);
}

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
report (const char *what,
        double     *values,
        guint       n)
{
  qsort (values, n, sizeof *values, compare_double);
  g_print ("    %-8s median %6.1f ms   p90 %6.1f ms   max %6.1f ms\n", what, values[n / 2],
           values[MIN (n - 1, n * 9 / 10)], values[n - 1]);
}

static void
run_case (BpwWindow  *window,
          const char *title,
          const char *page,
          guint       sheet_candidate,
          guint       scenario,
          guint       edits)
{
  BpwStudy *study = bpw_window_get_study (window);
  BpwSheetPage *sheet = bpw_window_get_sheet_page (window);
  g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (study, "h100-sxm-80gb", NULL);
  BpwBlueprintField field = { BPW_BLUEPRINT_FIELD_MEMORY_BANDWIDTH, 0, 0 };
  g_autofree Sample *samples = g_new0 (Sample, edits);
  g_autofree double *column = g_new0 (double, edits);
  guint binds = bpw_sheet_page_get_n_binds (sheet);
  BpwComputeStats stats = { 0 };

  field.index = (guint) bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), page);
  bpw_window_select (window, sheet_candidate, scenario);
  wait_idle (window);
  wait_frame (GTK_WIDGET (window));
  binds = bpw_sheet_page_get_n_binds (sheet);

  for (guint i = 0; i < edits; i++)
    {
      g_autoptr(GError) error = NULL;
      double value = i % 2 == 0 ? 4.8e12 : 3.35e12;
      gint64 start = g_get_monotonic_time ();
      double cpu = cpu_ms ();
      BpwStudyEdit *edit;

      edit = bpw_study_edit_new_blueprint_value (study, "h100-sxm-80gb", &field, value,
                                                 BPW_PROVENANCE_ESTIMATE, "bench", NULL,
                                                 &error);
      if (edit == NULL || !bpw_window_apply_edit (window, edit, &error))
        g_error ("edit refused: %s", error->message);
      wait_idle (window);
      samples[i].cpu = cpu_ms () - cpu;
      samples[i].updated = bpw_window_get_edit_latency (window);
      wait_frame (GTK_WIDGET (window));
      samples[i].painted = (g_get_monotonic_time () - start) / 1000.0;
    }
  bpw_window_get_compute_stats (window, &stats);

  g_print ("%s\n", title);
  g_print ("    page %s, Sheet: %s on %s; per edit: %u facts, %u evaluations, %u items "
           "kept, %.1f plans bound\n", page,
           bpw_study_get_candidate (study, sheet_candidate)->name,
           bpw_study_get_scenario (study, scenario)->name, stats.facts, stats.evaluations,
           stats.reused, (double) (bpw_sheet_page_get_n_binds (sheet) - binds) / edits);
  for (guint i = 0; i < edits; i++)
    column[i] = samples[i].updated;
  report ("updated", column, edits);
  for (guint i = 0; i < edits; i++)
    column[i] = samples[i].painted;
  report ("painted", column, edits);
  for (guint i = 0; i < edits; i++)
    column[i] = samples[i].cpu;
  report ("cpu", column, edits);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  guint edits = argc > 1 ? (guint) MAX (atoi (argv[1]), 1) : 20;
  BpwWindow *window;
  BpwStudy *study;
  guint h100 = 1, a100 = 0, train = 0, decode = 2;
  double load[3] = { 0 };

  if (!gtk_init_check ())
    {
      g_printerr ("bench-edit needs a display: xvfb-run -a %s\n", argv[0]);
      return 1;
    }
  bpw_ui_init ();
  adw_init ();

  window = bpw_window_new (NULL, NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  if (!bpw_window_open_bundled (window, "default", &error))
    g_error ("%s", error->message);
  wait_idle (window);
  study = bpw_window_get_study (window);
  bpw_study_lookup_scenario (study, "gpt3-175b-train", &train);
  bpw_study_lookup_scenario (study, "llama3-70b-decode", &decode);
  for (guint c = 0; c < bpw_study_get_n_candidates (study); c++)
    {
      const char *bp = bpw_study_get_candidate (study, c)->blueprint;

      if (g_strcmp0 (bp, "h100-sxm-80gb") == 0)
        h100 = c;
      else if (g_strcmp0 (bp, "a100-sxm-80gb") == 0)
        a100 = c;
    }
  if (getloadavg (load, 3) > 0)
    g_print ("load average %.2f on %u CPUs; %u edits per case\n\n", load[0],
             g_get_num_processors (), edits);

  run_case (window, "H100 HBM bandwidth, Overview shown, Sheet on the H100's GPT-3 training "
            "plan (a full bind of 175 B)", "overview", h100, train, edits);
  run_case (window, "The same with the Sheet shown", "sheet", h100, train, edits);
  run_case (window, "Sheet shown on the H100's Llama 3 decode plan", "sheet", h100, decode,
            edits);
  run_case (window, "Sheet shown on the A100 (the edit leaves its plan alone)", "sheet", a100,
            train, edits);

  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
