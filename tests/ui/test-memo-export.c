/* test-memo-export.c — "Export Memo": the memo from the window, written in a worker, replacing
 * the chosen file only when it is complete
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The executable is linked with -Wl,--wrap=bpw_memo_write_pdf, so the memo writer passes
 * through a hook here (as in test-responsive.c). Calls on the main thread (this test's own
 * independent memos) go straight through. A call in a worker counts, and can be held until
 * the main loop has dispatched GATE_TICKS timeouts or until the test opens the gate (which
 * proves by counting, not timing, that the main loop keeps running while the memo is
 * written); it can also fail after writing half a file, or write a stub PDF instead of the
 * real memo, so that the tests of errors, cancellation and the file chooser cost no seconds
 * of simulation.
 */
#define G_LOG_DOMAIN "bpw-test-memo-export"

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-memo-export.h"
#include "bpw-memo-validation.h"
#include "bpw-memo.h"
#include "bpw-ui-test-util.h"

#define GATE_TICKS 5
#define GATE_LIMIT_S 30
#define STUB_PDF "%PDF-1.5\n% a stub of the memo\n%%EOF\n"

typedef enum
{
  HOOK_WRITE,  /* the real memo */
  HOOK_FAIL,
  HOOK_STUB,
} HookMode;

typedef enum
{
  GATE_NONE,
  GATE_TICKS_MODE,  /* held until the main loop has ticked GATE_TICKS times */
  GATE_OPENED,      /* held until gate_open () */
} GateMode;

static GThread *main_thread;
static char *scratch_tmp;  /* TMPDIR: where the export's temporary files go */

static GMutex lock;
static GCond cond;
static HookMode hook_mode;
static GateMode gate_mode;
static gboolean gate_is_open;
static gboolean gate_reached;
static gint gate_passed = -1;  /* -1: not reached; 1: released as asked; 0: timed out */
static guint gate_ticks;
static gint worker_calls;
static gint main_calls;

gboolean __real_bpw_memo_write_pdf (BpwStudy *, const BpwMemoOptions *, const char *,
                                    GError **);
gboolean __wrap_bpw_memo_write_pdf (BpwStudy *, const BpwMemoOptions *, const char *,
                                    GError **);

gboolean
__wrap_bpw_memo_write_pdf (BpwStudy             *study,
                           const BpwMemoOptions *options,
                           const char           *path,
                           GError              **error)
{
  gint64 deadline = g_get_monotonic_time () + GATE_LIMIT_S * G_TIME_SPAN_SECOND;
  HookMode mode;
  guint start;

  if (g_thread_self () == main_thread)
    {
      g_atomic_int_inc (&main_calls);
      return __real_bpw_memo_write_pdf (study, options, path, error);
    }

  g_mutex_lock (&lock);
  worker_calls++;
  mode = hook_mode;
  hook_mode = HOOK_WRITE;
  if (gate_mode != GATE_NONE)
    {
      gate_reached = TRUE;
      start = gate_ticks;
      while (!(gate_mode == GATE_OPENED ? gate_is_open : gate_ticks >= start + GATE_TICKS))
        if (!g_cond_wait_until (&cond, &lock, deadline))
          break;
      gate_passed = gate_mode == GATE_OPENED ? gate_is_open : gate_ticks >= start + GATE_TICKS;
      gate_mode = GATE_NONE;
    }
  g_mutex_unlock (&lock);

  if (mode == HOOK_FAIL)
    {
      /* As cairo fails: the file is created and half written first. */
      g_file_set_contents (path, "%PDF-1.5\n% half a memo", -1, NULL);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the disk is full (a test)");
      return FALSE;
    }
  if (mode == HOOK_STUB)
    return g_file_set_contents (path, STUB_PDF, -1, error);
  return __real_bpw_memo_write_pdf (study, options, path, error);
}

static gboolean
tick_cb (gpointer data)
{
  g_mutex_lock (&lock);
  gate_ticks++;
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
  return G_SOURCE_CONTINUE;
}

static void
arm (HookMode mode,
     GateMode gate)
{
  g_mutex_lock (&lock);
  hook_mode = mode;
  gate_mode = gate;
  gate_is_open = FALSE;
  gate_reached = FALSE;
  gate_passed = -1;
  g_mutex_unlock (&lock);
}

static void
gate_open (void)
{
  g_mutex_lock (&lock);
  gate_is_open = TRUE;
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
}

static gboolean
gate_not_reached (gpointer data)
{
  gboolean reached;

  g_mutex_lock (&lock);
  reached = gate_reached;
  g_mutex_unlock (&lock);
  return !reached;
}

/* The result of one export, filled in by its callback. */
typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_clear_error (&o->error);
  o->done = FALSE;
}

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Outcome *o = user_data;

  g_assert_true (BPW_IS_MEMO_EXPORT (object));
  o->ok = bpw_memo_export_finish (result, &o->error);
  o->done = TRUE;
}

static gboolean
not_done (gpointer data)
{
  return !((Outcome *) data)->done;
}

static void
export_and_wait (BpwWindow  *window,
                 const char *path,
                 Outcome    *o)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  outcome_clear (o);
  bpw_memo_export_start (window, file, exported_cb, o);
  g_assert_true (bpw_memo_export_get_running (window));
  bpw_test_wait (not_done, o);
  g_assert_false (bpw_memo_export_get_running (window));
}

/* Pages as cairo writes them: "/Type /Page" not followed by "s" (the page tree). */
static guint
count_pages (const char *pdf,
             gsize       length)
{
  const char *needle = "/Type /Page";
  gsize k = strlen (needle);
  guint n = 0;

  for (gsize i = 0; i + k < length; i++)
    if (memcmp (pdf + i, needle, k) == 0 && pdf[i + k] != 's')
      n++;
  return n;
}

/* What poppler counts, when poppler-utils is installed; 0 otherwise. */
static guint
pdfinfo_pages (const char *path)
{
  g_autofree char *pdfinfo = g_find_program_in_path ("pdfinfo");
  g_autofree char *out = NULL;
  const char *argv[] = { pdfinfo, path, NULL };
  const char *line;
  int status;

  if (pdfinfo == NULL
      || !g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                        &out, NULL, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL)
      || (line = strstr (out, "\nPages:")) == NULL)
    return 0;
  return (guint) g_ascii_strtoull (line + strlen ("\nPages:"), NULL, 10);
}

static guint
check_pdf (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *pdf = NULL;
  gsize length;
  guint pages, poppler;

  g_assert_true (g_file_get_contents (path, &pdf, &length, &error));
  g_assert_no_error (error);
  g_assert_true (length > 5 && memcmp (pdf, "%PDF-", 5) == 0);
  pages = count_pages (pdf, length);
  g_assert_cmpuint (pages, >=, 3);
  poppler = pdfinfo_pages (path);
  if (poppler != 0)
    g_assert_cmpuint (poppler, ==, pages);
  return pages;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The names in @dir, sorted, joined by spaces. */
static char *
list_dir (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* The export's own temporary files are all gone (the test's scratch folders are not
 * its). */
static void
assert_no_temporary_files (void)
{
  g_autoptr(GDir) handle = g_dir_open (scratch_tmp, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (handle)) != NULL)
    g_assert_false (g_str_has_prefix (name, "bpw-memo-") && g_str_has_suffix (name, ".pdf"));
}

/* Each test: a window on the default study, a folder of its own and "memo.pdf" there. */
typedef struct
{
  BpwWindow *window;  /* NULL once the test closed it */
  char      *dir;
  char      *path;
  Outcome    o;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = bpw_test_open_default ();
  f->dir = g_dir_make_tmp ("bpw-memo-export-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->path = g_build_filename (f->dir, "memo.pdf", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  /* Whatever the test did, the export left no temporary file behind. */
  assert_no_temporary_files ();
  outcome_clear (&f->o);
  bpw_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
  if (f->window != NULL)
    gtk_window_destroy (GTK_WINDOW (f->window));
}

static void
test_writes_pdf (Fixture       *f,
                 gconstpointer  data)
{
  BpwWindow *window = f->window;
  BpwStudy *study = bpw_window_get_study (window);
  const char *dir = f->dir, *path = f->path;
  g_autofree char *direct = g_build_filename (dir, "direct.pdf", NULL);
  g_autofree char *json = NULL;
  g_autofree char *json_after = NULL;
  g_autofree char *window_pdf = NULL;
  g_autofree char *direct_pdf = NULL;
  g_autofree char *listing = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *baseline;
  BpwMemoOptions options;
  Outcome first = { 0 }, second = { 0 };
  gsize window_len, direct_len;
  gint workers = worker_calls, mains = main_calls;
  guint ticker, pages;
  GtkWidget *spinner = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (window),
                                                                  BPW_TYPE_WINDOW,
                                                                  "memo_spinner"));

  /* The second candidate is the baseline: the memo compares against the one selected. */
  g_assert_cmpuint (bpw_study_get_n_candidates (study), >=, 2);
  bpw_window_select (window, 1, G_MAXUINT);
  baseline = bpw_study_get_candidate (study, 1)->name;
  json = bpw_study_to_json (study);

  /* The export returns at once; the worker holds until the main loop has dispatched
   * GATE_TICKS timeouts, which it can only do if it is not blocked by the memo. */
  arm (HOOK_WRITE, GATE_TICKS_MODE);
  ticker = g_timeout_add (10, tick_cb, NULL);
  g_assert_false (gtk_widget_get_visible (spinner));
  bpw_memo_export_start (window, file, exported_cb, &first);
  g_assert_true (bpw_memo_export_get_running (window));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (gtk_widget_get_visible (spinner));
  /* A second request while it runs is refused, and says why. */
  bpw_memo_export_start (window, file, exported_cb, &second);
  bpw_test_wait (not_done, &second);
  g_assert_false (second.ok);
  g_assert_error (second.error, G_IO_ERROR, G_IO_ERROR_BUSY);
  bpw_test_wait (not_done, &first);
  g_source_remove (ticker);
  g_assert_no_error (first.error);
  g_assert_true (first.ok);
  g_assert_cmpint (gate_passed, ==, 1);
  g_assert_false (gtk_widget_get_visible (spinner));
  g_assert_cmpint (worker_calls, ==, workers + 1);
  g_assert_cmpint (main_calls, ==, mains);

  /* A memo of three pages or more, the same as the writer makes of the same study with the
   * same baseline here. */
  pages = check_pdf (path);
  bpw_memo_options_init (&options);
  bpw_memo_options_set_validation (&options, study);
  options.baseline = baseline;
  g_assert_true (bpw_memo_write_pdf (study, &options, direct, &error));
  g_assert_no_error (error);
  g_assert_cmpint (main_calls, ==, mains + 1);
  g_assert_cmpuint (check_pdf (direct), ==, pages);
  /* SOURCE_DATE_EPOCH (main) fixes the dates: the two are the same file. */
  g_assert_true (g_file_get_contents (path, &window_pdf, &window_len, NULL));
  g_assert_true (g_file_get_contents (direct, &direct_pdf, &direct_len, NULL));
  g_assert_cmpuint (window_len, ==, direct_len);
  g_assert_true (memcmp (window_pdf, direct_pdf, window_len) == 0);

  /* Nothing else changed, and nothing was left behind. */
  g_assert_false (bpw_window_get_modified (window));
  json_after = bpw_study_to_json (study);
  g_assert_cmpstr (json_after, ==, json);
  listing = list_dir (dir);
  g_assert_cmpstr (listing, ==, "direct.pdf memo.pdf");

  outcome_clear (&first);
  outcome_clear (&second);
}

static void
test_missing_folder (Fixture       *f,
                     gconstpointer  data)
{
  BpwWindow *window = f->window;
  BpwStudy *study = bpw_window_get_study (window);
  g_autofree char *missing = g_build_filename (f->dir, "missing", NULL);
  g_autofree char *path = g_build_filename (missing, "memo.pdf", NULL);
  g_autofree char *json = bpw_study_to_json (study);
  g_autofree char *json_after = NULL;
  g_autofree char *page = g_strdup (adw_view_stack_get_visible_child_name (
                                      bpw_window_get_view_stack (window)));
  gint calls = worker_calls;

  export_and_wait (window, path, &f->o);
  g_assert_false (f->o.ok);
  g_assert_error (f->o.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  /* The message names the file and the folder that is missing. */
  g_assert_nonnull (strstr (f->o.error->message, "memo.pdf"));
  g_assert_nonnull (strstr (f->o.error->message, missing));
  /* Refused before any memo was written; nothing was created; the window is as it was. */
  g_assert_cmpint (worker_calls, ==, calls);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_assert_false (bpw_window_get_modified (window));
  json_after = bpw_study_to_json (study);
  g_assert_cmpstr (json_after, ==, json);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (bpw_window_get_view_stack (window)),
                   ==, page);
}

static void
test_replace_on_success_only (Fixture       *f,
                              gconstpointer  data)
{
  const char *path = f->path;
  g_autofree char *contents = NULL;
  g_autofree char *listing = NULL;

  g_assert_true (g_file_set_contents (path, "the memo of last week", -1, NULL));

  /* The writer fails: the error names the file, which keeps what it had. */
  arm (HOOK_FAIL, GATE_NONE);
  export_and_wait (f->window, path, &f->o);
  g_assert_false (f->o.ok);
  g_assert_error (f->o.error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_nonnull (strstr (f->o.error->message, "memo.pdf"));
  g_assert_nonnull (strstr (f->o.error->message, "the disk is full"));
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "the memo of last week");
  listing = list_dir (f->dir);
  g_assert_cmpstr (listing, ==, "memo.pdf");
  assert_no_temporary_files ();
  g_assert_false (bpw_window_get_modified (f->window));

  /* It succeeds: the file is the new memo. */
  export_and_wait (f->window, path, &f->o);
  g_assert_no_error (f->o.error);
  g_assert_true (f->o.ok);
  check_pdf (path);
  g_clear_pointer (&listing, g_free);
  listing = list_dir (f->dir);
  g_assert_cmpstr (listing, ==, "memo.pdf");
}

static void
test_close_cancels (Fixture       *f,
                    gconstpointer  data)
{
  const char *path = f->path;
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_true (g_file_set_contents (path, "the memo of last week", -1, NULL));
  /* Held in the writer while the window closes, then a complete (stub) memo: only the
   * cancellation keeps it from replacing the file. */
  arm (HOOK_STUB, GATE_OPENED);
  bpw_memo_export_start (f->window, file, exported_cb, &f->o);
  bpw_test_wait (gate_not_reached, NULL);
  gtk_window_close (GTK_WINDOW (g_steal_pointer (&f->window)));
  gate_open ();
  bpw_test_wait (not_done, &f->o);
  g_assert_cmpint (gate_passed, ==, 1);
  g_assert_false (f->o.ok);
  g_assert_error (f->o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "the memo of last week");
}

static gboolean
memo_running (gpointer data)
{
  return bpw_memo_export_get_running (data);
}

/* The action: enabled for a study with candidates and scenarios; its dialog proposes
 * "<study>-memo.pdf" and starts the same export; a name without ".pdf" gets it. */
static void
test_action (Fixture       *f,
             gconstpointer  data)
{
  BpwWindow *window = f->window;
  BpwStudy *study = bpw_window_get_study (window);
  const char *dir = f->dir;
  g_autofree char *typed = g_build_filename (dir, "review", NULL);
  g_autofree char *path = g_build_filename (dir, "review.pdf", NULL);
  g_autofree char *want = g_strconcat (bpw_study_get_name (study), "-memo.pdf", NULL);
  g_autofree char *name = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (typed);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(BpwStudy) odd = bpw_study_new ();
  GtkNativeDialog *dialog;

  g_assert_null (strpbrk (bpw_study_get_name (study), "/\\:*?\"<>|"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export-memo", NULL));
  dialog = bpw_memo_export_get_dialog (window);
  g_assert_nonnull (dialog);
  name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (dialog));
  g_assert_cmpstr (name, ==, want);

  arm (HOOK_STUB, GATE_NONE);
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "review");
  bpw_test_wait_chooser (GTK_FILE_CHOOSER (dialog), file);
  g_signal_emit_by_name (dialog, "response", GTK_RESPONSE_ACCEPT);
  g_assert_null (bpw_memo_export_get_dialog (window));
  g_assert_true (bpw_memo_export_get_running (window));
  bpw_test_wait (memo_running, window);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, STUB_PDF);
  g_assert_false (g_file_test (typed, G_FILE_TEST_EXISTS));

  /* Characters file systems refuse do not reach the proposed name. */
  bpw_study_set_name (odd, "a/b: c?");
  g_clear_pointer (&name, g_free);
  name = bpw_memo_export_suggest_name (odd);
  g_assert_cmpstr (name, ==, "a-b- c--memo.pdf");

  /* An empty study has nothing to write about: the action is off, and a direct request
   * is refused. */
  g_assert_true (bpw_window_open_bundled (window, NULL, NULL));
  bpw_test_wait_window (window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export-memo", NULL));
  g_assert_null (bpw_memo_export_get_dialog (window));
  g_clear_object (&file);
  file = g_file_new_for_path (path);
  bpw_memo_export_start (window, file, exported_cb, &f->o);
  g_assert_false (bpw_memo_export_get_running (window));
  bpw_test_wait (not_done, &f->o);
  g_assert_false (f->o.ok);
  g_assert_error (f->o.error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_autofree char *scratch = NULL;
  int status = 0;

  /* Before GLib reads them: the memo's dates come from here, and its temporary files go to
   * a folder of this test's own. */
  g_setenv ("SOURCE_DATE_EPOCH", "1700000000", TRUE);
  scratch_tmp = g_build_filename (g_getenv ("TMPDIR") != NULL ? g_getenv ("TMPDIR") : "/tmp",
                                  "bpw-memo-export-tmp-XXXXXX", NULL);
  g_assert_nonnull (g_mkdtemp (scratch_tmp));
  g_setenv ("TMPDIR", scratch_tmp, TRUE);
  main_thread = g_thread_self ();

  if (bpw_test_init_gui (&argc, &argv, &scratch, &status))
    {
      g_test_add ("/bpw/ui/MemoExport/writes-pdf-in-worker", Fixture, NULL, fixture_setup,
                  test_writes_pdf, fixture_teardown);
      g_test_add ("/bpw/ui/MemoExport/missing-folder", Fixture, NULL, fixture_setup,
                  test_missing_folder, fixture_teardown);
      g_test_add ("/bpw/ui/MemoExport/replace-on-success-only", Fixture, NULL, fixture_setup,
                  test_replace_on_success_only, fixture_teardown);
      g_test_add ("/bpw/ui/MemoExport/close-cancels", Fixture, NULL, fixture_setup,
                  test_close_cancels, fixture_teardown);
      g_test_add ("/bpw/ui/MemoExport/action", Fixture, NULL, fixture_setup, test_action,
                  fixture_teardown);
      status = g_test_run ();
      bpw_test_remove_tree (scratch);
    }
  bpw_test_remove_tree (scratch_tmp);
  g_free (scratch_tmp);
  return status;
}
