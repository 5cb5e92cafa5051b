/* test-reviewer-path.c — a reviewer's path through the window, without the command line:
 * open a Hugging Face config, add scenarios and candidates for it, search, compare, state
 * the review data, export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every step goes through what the window offers a user: its actions (the menus, the
 * toast's and the sidebar's buttons), its edits (the inspectors) and its dialogs. With
 * BPW_TEST_SHOTS=DIR each step leaves DIR/N-step.png, the window as drawn (1280 × 800);
 * BPW_LOCALEDIR (with LANGUAGE) draws it translated.
 */
#define G_LOG_DOMAIN "bpw-test-reviewer-path"

#include "config.h"

#include <locale.h>
#include <string.h>

#include <glib/gi18n.h>

#include "bpw-compare-page.h"
#include "bpw-i18n.h"
#include "bpw-memo-export.h"
#include "bpw-review-dialog.h"
#include "bpw-search-test-util.h"
#include "bpw-ui-test-util.h"

static gboolean
window_pending (gpointer data)
{
  return bpw_window_get_edit_pending (data) || bpw_window_get_busy (data)
         || bpw_sheet_page_get_busy (bpw_window_get_sheet_page (data));
}

/* The window as drawn, when BPW_TEST_SHOTS names a folder. */
static void
shot (GtkWindow  *window,
      const char *name)
{
  const char *dir = g_getenv ("BPW_TEST_SHOTS");
  g_autofree char *path = NULL;
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderNode *node;
  GtkSnapshot *snapshot;
  int width, height;

  if (dir == NULL)
    return;
  for (int i = 0; i < 3; i++)
    bpw_test_wait_for_frame (GTK_WIDGET (window));
  width = gtk_widget_get_width (GTK_WIDGET (window));
  height = gtk_widget_get_height (GTK_WIDGET (window));
  paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  gsk_render_node_unref (node);
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("shot %s", path);
}

static GtkWindow *
find_toplevel (GType      type,
               GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type) && gtk_window_get_transient_for (w) == parent)
        return w;
    }
  return NULL;
}

typedef struct
{
  gboolean  done, ok;
  GError   *error;
} Outcome;

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      data)
{
  Outcome *o = data;

  o->ok = bpw_memo_export_finish (result, &o->error);
  o->done = TRUE;
}

static void
packet_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  Outcome *o = data;

  o->ok = bpw_window_export_packet_finish (result, &o->error);
  o->done = TRUE;
}

static gboolean
review_busy (gpointer dialog)
{
  return bpw_review_dialog_get_busy (dialog);
}

static gboolean
not_done (gpointer data)
{
  return !((Outcome *) data)->done;
}

/* Scenario @index of @phase gets a batch of 8, as the inspector edits it. */
static void
set_phase (BpwWindow        *window,
           guint             index,
           BpwWorkloadPhase  phase)
{
  BpwStudy *study = bpw_window_get_study (window);
  const BpwStudyScenario *s = bpw_study_get_scenario (study, index);
  g_autoptr(GError) error = NULL;
  BpwScenario scenario = s->scenario;

  scenario.phase = phase;
  scenario.global_batch = 8;
  scenario.micro_batch = phase == BPW_WORKLOAD_DECODE ? 8 : 1;
  scenario.context = phase == BPW_WORKLOAD_DECODE ? scenario.seq : 0;
  g_assert_true (bpw_window_apply_edit (window,
                                        bpw_study_edit_new_scenario (study, index, &scenario,
                                                                     &s->parallel, NULL),
                                        &error));
  g_assert_no_error (error);
}

static void
test_reviewer_path (void)
{
  BpwWindow *window = bpw_window_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *config = g_test_build_filename (G_TEST_DIST, "data", "hf",
                                                   "llama-3-8b", "config.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (config);
  g_autofree char *dir = g_dir_make_tmp ("bpw-test-reviewer-XXXXXX", &error);
  g_autofree char *pdf_path = g_build_filename (dir, "memo.pdf", NULL);
  g_autofree char *study_path = g_build_filename (dir, "review.bpw", NULL);
  g_autoptr(GFile) pdf = g_file_new_for_path (pdf_path);
  g_autoptr(GFile) study_file = g_file_new_for_path (study_path);
  g_autofree char *pdf_data = NULL;
  g_autoptr(BpwStudy) saved = NULL;
  const char *workload;
  BpwStudy *study;
  BpwSearchDialog *search;
  BpwReviewDialog *review;
  BpwComparePage *compare;
  GListModel *items;
  Outcome outcome = { 0 };
  gsize length;

  g_assert_no_error (error);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));

  /* An empty study (New from Template ▸ Empty Study). */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-from-template", "s",
                                             ""));
  bpw_test_wait_window (window);
  study = bpw_window_get_study (window);
  g_assert_nonnull (study);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 0);
  g_assert_cmpuint (bpw_study_get_n_scenarios (study), ==, 0);

  /* 1. The Hugging Face config, opened (Open…): a workload, and the toast offers a
   * scenario for it. */
  g_assert_true (bpw_window_open_file (window, file, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_window_get_study (window) == study);
  g_assert_cmpuint (bpw_study_get_n_workloads (study), ==, 1);
  workload = bpw_study_get_workload (study, 0)->name;
  shot (GTK_WINDOW (window), "1-hf-config.png");

  /* 2. Two scenarios for it, a prefill and a decode (the sidebar row's phase menu),
   * named after their phase; their batch set in the inspector. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.add-scenario-phase",
                                             "(ss)", workload, "prefill"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.add-scenario-phase",
                                             "(ss)", workload, "decode"));
  g_assert_cmpuint (bpw_study_get_n_scenarios (study), ==, 2);
  g_assert_cmpint (bpw_study_get_scenario (study, 0)->scenario.phase, ==, BPW_WORKLOAD_PREFILL);
  g_assert_true (g_str_has_suffix (bpw_study_get_scenario (study, 0)->name, "-prefill"));
  g_assert_cmpint (bpw_study_get_scenario (study, 1)->scenario.phase, ==, BPW_WORKLOAD_DECODE);
  g_assert_true (g_str_has_suffix (bpw_study_get_scenario (study, 1)->name, "-decode"));
  g_assert_cmpint (bpw_study_get_scenario (study, 1)->scenario.context, ==,
                   bpw_study_get_scenario (study, 1)->scenario.seq);
  set_phase (window, 0, BPW_WORKLOAD_PREFILL);
  set_phase (window, 1, BPW_WORKLOAD_DECODE);

  /* 3. Two candidates from the bundled blueprints (Add Candidate ▸), each one undoable
   * edit; the Overview evaluates all four pairs, with their energy. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.add-candidate", "s",
                                             "h100-sxm-80gb"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.add-candidate", "s",
                                             "h200-sxm-141gb"));
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 2);
  g_assert_cmpstr (bpw_study_get_candidate (study, 1)->blueprint, ==, "h200-sxm-141gb");
  g_assert_true (bpw_window_get_can_undo (window));
  bpw_test_wait (window_pending, window);
  items = bpw_window_get_overview_items (window);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(BpwOverviewItem) item = g_list_model_get_item (items, i);
      const BpwOverviewEvaluation *e = bpw_overview_item_get_evaluation (item);

      g_assert_nonnull (e);
      g_assert_false (e->failed);
      g_assert_true (e->legal);
      g_assert_cmpfloat (e->energy_j, >, 0.0);
    }
  /* Undo takes the last candidate away, redo brings it back. */
  g_assert_true (bpw_window_undo (window));
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 1);
  g_assert_true (bpw_window_redo (window));
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 2);
  bpw_test_wait (window_pending, window);
  shot (GTK_WINDOW (window), "2-overview.png");

  /* 4. Search (Search Mappings…) for the selected candidate on the decode scenario; the
   * dialog does not block the window; its best plan becomes a candidate. */
  bpw_window_select (window, 0, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL));
  search = BPW_SEARCH_DIALOG (find_toplevel (BPW_TYPE_SEARCH_DIALOG, GTK_WINDOW (window)));
  g_assert_nonnull (search);
  g_assert_false (gtk_window_get_modal (GTK_WINDOW (search)));
  g_assert_cmpuint (bpw_search_dialog_get_candidate (search), ==, 0);
  g_assert_cmpuint (bpw_search_dialog_get_scenario (search), ==, 1);
  {
    BpwSearchLimits limits;

    bpw_search_test_small_limits (&limits);
    bpw_search_dialog_set_limits (search, &limits);
    bpw_search_dialog_set_threads (search, 2);
    bpw_search_dialog_set_top_k (search, 3);
  }
  g_assert_true (bpw_search_dialog_start (search));
  bpw_test_wait (bpw_search_test_running, search);
  g_assert_cmpuint (g_list_model_get_n_items (bpw_search_dialog_get_results (search)), >, 0);
  bpw_search_dialog_select_result (search, 0);
  shot (GTK_WINDOW (search), "3-search.png");
  g_assert_true (bpw_search_dialog_promote (search, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (study), ==, 3);
  gtk_window_destroy (GTK_WINDOW (search));
  bpw_test_wait (window_pending, window);

  /* 5. Compare: every candidate on every scenario. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s",
                                             "compare"));
  compare = BPW_COMPARE_PAGE (bpw_test_find_widget (GTK_WIDGET (window),
                                                    BPW_TYPE_COMPARE_PAGE));
  bpw_test_wait_for_frame (GTK_WIDGET (compare));
  bpw_test_wait (bpw_search_test_compare_busy, compare);
  g_assert_cmpuint (bpw_compare_page_get_data (compare)->n_candidates, ==, 3);
  g_assert_cmpuint (bpw_compare_page_get_data (compare)->n_scenarios, ==, 2);
  {
    GtkWidget *table = bpw_test_find_widget (GTK_WIDGET (compare), BPW_TYPE_PINNED_TABLE);

    gtk_stack_set_visible_child_name (GTK_STACK (gtk_widget_get_ancestor (table,
                                                                         GTK_TYPE_STACK)),
                                      "table");
  }
  shot (GTK_WINDOW (window), "4-compare.png");

  /* 6. The review data (Review Data…): an owner, a threshold and evidence, each an edit
   * that undo takes back. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.review-data", NULL));
  review = BPW_REVIEW_DIALOG (find_toplevel (BPW_TYPE_REVIEW_DIALOG, GTK_WINDOW (window)));
  g_assert_nonnull (review);
  g_assert_true (bpw_review_dialog_add_owner (review, "architecture", "A. Reviewer",
                                              "reviewer@example.org", &error));
  g_assert_no_error (error);
  g_assert_true (bpw_review_dialog_add_threshold (review, "mmlu", "1", BPW_QUALITY_SCALE_RELATIVE,
                                                  BPW_QUALITY_HIGHER_IS_BETTER,
                                                  "release criteria", &error));
  g_assert_no_error (error);
  /* A value that does not read, and evidence for a metric without a threshold, are
   * refused; the study is as it was. */
  g_assert_false (bpw_review_dialog_add_evidence (review, "fp8", "mmlu", "high", "0.687", "",
                                                  "eval run", &error));
  g_clear_error (&error);
  g_assert_false (bpw_review_dialog_add_evidence (review, "fp8", "gsm8k", "0.5", "0.6", "",
                                                  "eval run", &error));
  g_clear_error (&error);
  g_assert_cmpuint (bpw_study_get_n_quality_evidence (study), ==, 0);
  g_assert_true (bpw_review_dialog_add_evidence (review, "fp8", "mmlu", "0.683", "0.687", "",
                                                 "eval run 2026-11", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_owners (study), ==, 1);
  g_assert_cmpstr (bpw_study_get_owner (study, 0)->name, ==, "A. Reviewer");
  g_assert_cmpfloat (bpw_study_get_quality_threshold (study, 0)->max_degradation, ==, 0.01);
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "fp8"), ==, BPW_QUALITY_VALIDATED);
  /* The packet of the study as it is, previewed read-only: it names the owner and gives
   * the recommendation. */
  bpw_review_dialog_preview (review);
  g_assert_true (bpw_review_dialog_get_busy (review));
  bpw_test_wait (review_busy, review);
  g_assert_nonnull (bpw_review_dialog_get_preview (review));
  g_assert_nonnull (strstr (bpw_review_dialog_get_preview (review), "A. Reviewer"));
  g_assert_nonnull (strstr (bpw_review_dialog_get_preview (review), "mmlu"));
  g_assert_nonnull (bpw_review_dialog_get_decision (review));
  shot (GTK_WINDOW (review), "5-review-data.png");
  if (g_getenv ("BPW_TEST_SHOTS") != NULL)
    {
      /* The packet's preview, at the foot of the page. */
      GtkScrolledWindow *page = GTK_SCROLLED_WINDOW (bpw_test_find_widget (GTK_WIDGET (review),
                                                                           GTK_TYPE_SCROLLED_WINDOW));
      GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (page);

      gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v));
      shot (GTK_WINDOW (review), "5b-review-packet.png");
    }
  g_assert_true (bpw_window_undo (window));
  g_assert_cmpuint (bpw_study_get_n_quality_evidence (study), ==, 0);
  g_assert_cmpint (bpw_study_judge_quality_mode (study, "fp8"), ==, BPW_QUALITY_MISSING);
  g_assert_true (bpw_window_redo (window));
  g_assert_true (bpw_review_dialog_remove (review, "owners", 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_owners (study), ==, 0);
  g_assert_true (bpw_window_undo (window));
  g_assert_cmpuint (bpw_study_get_n_owners (study), ==, 1);
  bpw_test_wait (window_pending, window);

  /* 7. Export (Export ▸ Memo…) and save: the memo is a PDF; the saved study keeps the
   * candidates and the review data. */
  bpw_memo_export_start (window, pdf, exported_cb, &outcome);
  bpw_test_wait (not_done, &outcome);
  g_assert_no_error (outcome.error);
  g_assert_true (outcome.ok);
  g_assert_true (g_file_get_contents (pdf_path, &pdf_data, &length, &error));
  g_assert_no_error (error);
  g_assert_true (length > 4 && memcmp (pdf_data, "%PDF", 4) == 0);
  /* Export ▸ Review Packet…: Markdown or JSON by the file's name, the same packet. */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = g_build_filename (dir, i == 0 ? "packet.md" : "packet.json",
                                                NULL);
      g_autoptr(GFile) packet = g_file_new_for_path (path);
      g_autofree char *text = NULL;
      Outcome done = { 0 };

      bpw_window_export_packet (window, packet, packet_cb, &done);
      bpw_test_wait (not_done, &done);
      g_assert_no_error (done.error);
      g_assert_true (done.ok);
      g_assert_true (g_file_get_contents (path, &text, NULL, &error));
      g_assert_no_error (error);
      if (i == 0)
        g_assert_cmpstr (text, ==, bpw_review_dialog_get_preview (review));
      else
        {
          g_autoptr(JsonNode) root = json_from_string (text, &error);
          JsonObject *o;

          g_assert_no_error (error);
          o = json_node_get_object (root);
          g_assert_true (json_object_has_member (o, "owners"));
          g_assert_true (json_object_has_member (o, "recommendation"));
          g_assert_true (json_object_has_member (o, "validation_matrix"));
        }
    }
  g_assert_true (bpw_window_save_to_file (window, study_file, &error));
  g_assert_no_error (error);
  saved = bpw_study_new_from_file (study_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (bpw_study_get_n_candidates (saved), ==, 3);
  g_assert_cmpuint (bpw_study_get_n_scenarios (saved), ==, 2);
  g_assert_cmpuint (bpw_study_get_n_owners (saved), ==, 1);
  g_assert_cmpuint (bpw_study_get_n_quality_evidence (saved), ==, 1);
  gtk_window_destroy (GTK_WINDOW (review));
  adw_view_stack_set_visible_child_name (bpw_window_get_view_stack (window), "overview");
  shot (GTK_WINDOW (window), "6-overview-after.png");

  gtk_window_destroy (GTK_WINDOW (window));
  bpw_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  const char *localedir = g_getenv ("BPW_LOCALEDIR");
  int exit_code;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;
  /* The program's style sheet (GtkApplication loads it; tests have none), so that the
   * window is drawn as it runs. */
  {
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, "/io/github/bpw/Workbench/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }
  if (localedir != NULL)
    {
      bindtextdomain (GETTEXT_PACKAGE, localedir);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      textdomain (GETTEXT_PACKAGE);
      bpw_core_i18n_init (localedir);
    }
  g_test_add_func ("/bpw/ui/ReviewerPath/end-to-end", test_reviewer_path);
  exit_code = g_test_run ();
  bpw_test_remove_tree (scratch);
  return exit_code;
}
