/* test-autosave.c — unsaved work is written aside, survives a crash and comes back
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-test-autosave"

#include "config.h"

#include <glib/gstdio.h>

#include "bpw-ui-test-util.h"

static char *scratch_dir;

static GFile *
hf_fixture (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "hf", name, NULL);

  return g_file_new_for_path (path);
}

static guint
count_pending (void)
{
  g_autoptr(GFile) dir = bpw_autosave_dup_default_dir ();
  g_autoptr(GPtrArray) pending = bpw_autosave_list_pending (dir);

  return pending->len;
}

/* The object alone: names, the origin note, listing, deleting. */
static void
test_autosave_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) dir = g_file_new_build_filename (scratch_dir, "unit", NULL);
  g_autoptr(GFile) first = bpw_autosave_dup_file_for_slot (dir, 1);
  g_autoptr(GFile) third = bpw_autosave_dup_file_for_slot (dir, 3);
  g_autoptr(GFile) origin = g_file_new_for_path ("/studies/gpu review.bpw-study.json");
  g_autoptr(GFile) stray = g_file_get_child (dir, "autosave-x.bpw");
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwAutosave) a = NULL;
  g_autoptr(BpwAutosave) b = NULL;
  g_autoptr(BpwStudy) back = NULL;
  g_autoptr(GFile) back_origin = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json_back = NULL;
  g_autofree char *first_name = g_file_get_basename (first);
  g_autofree char *third_name = g_file_get_basename (third);

  g_assert_no_error (error);
  g_assert_cmpstr (first_name, ==, "autosave.bpw");
  g_assert_cmpstr (third_name, ==, "autosave-3.bpw");

  a = bpw_autosave_new (first);
  b = bpw_autosave_new (third);
  /* Nothing to write yet: no error, no file. */
  g_assert_true (bpw_autosave_save_now (a, &error));
  g_assert_false (g_file_query_exists (first, NULL));

  bpw_autosave_set_study (a, study, origin);
  bpw_autosave_mark_modified (a);
  g_assert_true (bpw_autosave_is_scheduled (a));
  g_assert_true (bpw_autosave_save_now (a, &error));
  g_assert_no_error (error);
  g_assert_false (bpw_autosave_is_scheduled (a));
  bpw_autosave_set_study (b, study, NULL);
  g_assert_true (bpw_autosave_save_now (b, &error));
  g_assert_no_error (error);

  /* Only autosaves are pending, the first window's first. */
  g_assert_true (g_file_replace_contents (stray, "{}", 2, NULL, FALSE, 0, NULL, NULL, NULL));
  pending = bpw_autosave_list_pending (dir);
  g_assert_cmpuint (pending->len, ==, 2);
  g_assert_true (g_file_equal (g_ptr_array_index (pending, 0), first));
  g_assert_true (g_file_equal (g_ptr_array_index (pending, 1), third));

  /* The same study comes back, with the file it belongs to. */
  back = bpw_autosave_load (first, &back_origin, &error);
  g_assert_no_error (error);
  json = bpw_study_to_json (study);
  json_back = bpw_study_to_json (back);
  g_assert_cmpstr (json_back, ==, json);
  g_assert_nonnull (back_origin);
  g_assert_true (g_file_equal (back_origin, origin));
  g_clear_object (&back);
  g_clear_object (&back_origin);
  back = bpw_autosave_load (third, &back_origin, &error);
  g_assert_no_error (error);
  g_assert_null (back_origin);

  /* Discarding removes what the object wrote, note included. */
  bpw_autosave_discard (a);
  bpw_autosave_discard (b);
  g_assert_false (g_file_query_exists (first, NULL));
  g_assert_false (g_file_query_exists (third, NULL));
  g_clear_pointer (&pending, g_ptr_array_unref);
  pending = bpw_autosave_list_pending (dir);
  g_assert_cmpuint (pending->len, ==, 0);
  g_file_delete (stray, NULL, NULL);
}

/* A window with unsaved work crashes; the next one recovers it, saves it to where it
 * belongs, and nothing is left to recover. */
static void
test_autosave_round_trip (void)
{
  BpwWindow *window = bpw_test_open_default ();
  BpwAutosave *autosave = bpw_window_get_autosave (window);
  g_autoptr(GFile) hf = hf_fixture ("mistral-7b.json");
  g_autofree char *path = g_build_filename (scratch_dir, "review.bpw-study.json", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (path);
  g_autoptr(GFile) dir = bpw_autosave_dup_default_dir ();
  g_autoptr(GPtrArray) pending = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *recovered = NULL;
  BpwWindow *next;

  g_assert_true (bpw_window_save_to_file (window, target, &error));
  g_assert_no_error (error);
  g_assert_false (bpw_autosave_is_scheduled (autosave));

  /* An edit starts the half-minute clock; the test does not wait for it. */
  g_assert_true (bpw_window_open_file (window, hf, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_autosave_is_scheduled (autosave));
  g_assert_true (bpw_autosave_save_now (autosave, &error));
  g_assert_no_error (error);
  expected = bpw_study_to_json (bpw_window_get_study (window));
  bpw_test_wait_window (window);

  /* A crash: the window goes without being asked to close. */
  gtk_window_destroy (GTK_WINDOW (window));
  pending = bpw_autosave_list_pending (dir);
  g_assert_cmpuint (pending->len, ==, 1);

  next = bpw_test_open_default ();
  g_assert_true (bpw_window_recover (next, g_ptr_array_index (pending, 0), &error));
  g_assert_no_error (error);
  recovered = bpw_study_to_json (bpw_window_get_study (next));
  g_assert_cmpstr (recovered, ==, expected);
  g_assert_true (bpw_window_get_modified (next));
  g_assert_nonnull (bpw_window_get_file (next));
  g_assert_true (g_file_equal (bpw_window_get_file (next), target));
  /* Still protected until saved. */
  g_assert_cmpuint (count_pending (), ==, 1);

  g_assert_true (bpw_window_save_to_file (next, bpw_window_get_file (next), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_pending (), ==, 0);

  bpw_test_wait_window (next);
  gtk_window_destroy (GTK_WINDOW (next));
  g_unlink (path);
  {
    g_autofree char *backup = g_strconcat (path, "~", NULL);

    g_unlink (backup);
  }
}

/* The question at startup: Discard deletes the autosave, Recover brings it back. */
static void
test_autosave_offer (void)
{
  BpwWindow *window = bpw_test_open_default ();
  g_autoptr(GFile) hf = hf_fixture ("qwen2-7b.json");
  g_autoptr(GFile) dir = bpw_autosave_dup_default_dir ();
  g_autoptr(GPtrArray) pending = NULL;
  AdwMessageDialog *dialog;
  BpwWindow *next;
  guint n_workloads;

  g_assert_true (bpw_window_open_file (window, hf, NULL));
  n_workloads = bpw_study_get_n_workloads (bpw_window_get_study (window));
  g_assert_true (bpw_autosave_save_now (bpw_window_get_autosave (window), NULL));
  bpw_test_wait_window (window);
  gtk_window_destroy (GTK_WINDOW (window));

  pending = bpw_autosave_list_pending (dir);
  g_assert_cmpuint (pending->len, ==, 1);
  next = bpw_test_open_default ();
  bpw_window_offer_recovery (next, g_ptr_array_index (pending, 0));
  dialog = bpw_test_find_dialog (GTK_WINDOW (next));
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "recover");
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_cmpuint (bpw_study_get_n_workloads (bpw_window_get_study (next)), ==, n_workloads);
  g_assert_true (bpw_window_get_modified (next));
  bpw_test_wait_window (next);

  /* Crash again, and this time discard. */
  gtk_window_destroy (GTK_WINDOW (next));
  g_clear_pointer (&pending, g_ptr_array_unref);
  pending = bpw_autosave_list_pending (dir);
  g_assert_cmpuint (pending->len, ==, 1);
  next = bpw_test_open_default ();
  bpw_window_offer_recovery (next, g_ptr_array_index (pending, 0));
  dialog = bpw_test_find_dialog (GTK_WINDOW (next));
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "discard");
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_cmpuint (count_pending (), ==, 0);
  g_assert_false (bpw_window_get_modified (next));

  gtk_window_destroy (GTK_WINDOW (next));
}

int
main (int   argc,
      char *argv[])
{
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch_dir, &exit_code))
    return exit_code;

  g_test_add_func ("/bpw/ui/Autosave/files", test_autosave_files);
  g_test_add_func ("/bpw/ui/Autosave/round-trip", test_autosave_round_trip);
  g_test_add_func ("/bpw/ui/Autosave/offer", test_autosave_offer);

  result = g_test_run ();
  bpw_test_remove_tree (scratch_dir);
  g_free (scratch_dir);
  return result;
}
