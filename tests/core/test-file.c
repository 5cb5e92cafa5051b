/* test-file.c — only regular files are read; every write replaces its target atomically
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A FIFO, a device, a directory and a link to a directory are refused at open, naming the
 * file and what it is (a FIFO that were opened blocking would hang this test). Writes go over
 * a symbolic link into the file it names, refuse device nodes, FIFOs and directories without
 * touching them, and on a failure (a read-only folder; a full disk, simulated with
 * RLIMIT_FSIZE in a child, where write() fails with EFBIG) leave the old file byte for byte.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bpw-error.h"
#include "bpw-file.h"
#include "bpw-json-doc.h"
#include "bpw-workload-io.h"

/* The unprivileged user the read-only folder test runs as when the tests run as root. */
#define NOBODY 65534

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("bpw-file-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);

      g_chmod (file, 0755);
      if (g_rmdir (file) != 0)
        g_unlink (file);
    }
  g_rmdir (dir);
}

/* The names in @dir: a failed write must leave no temporary file. */
static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static void
write_file (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static void
assert_file_is (const char *path,
                const char *text)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, text);
}

static void
assert_read_refused (const char *path,
                     int         code,
                     const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *expected = g_strdup_printf ("%s: is %s, not a regular file", path, what);

  g_assert_false (bpw_file_read (path, 1024, &contents, NULL, &error));
  g_assert_error (error, G_FILE_ERROR, code);
  g_assert_cmpstr (error->message, ==, expected);
  g_assert_null (contents);
}

static void
test_read_regular (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.txt", NULL);
  g_autofree char *link = g_build_filename (dir, "link", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;

  write_file (path, "0123456789abcdef");
  g_assert_true (bpw_file_read (path, 16, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, ==, 16);
  g_assert_cmpstr (contents, ==, "0123456789abcdef");
  g_clear_pointer (&contents, g_free);

  /* A link to a regular file is read as that file. */
  g_assert_cmpint (symlink ("a.txt", link), ==, 0);
  g_assert_true (bpw_file_read (link, 16, &contents, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, "0123456789abcdef");
  g_clear_pointer (&contents, g_free);

  /* One byte over the limit is refused, with the limit's message. */
  g_assert_false (bpw_file_read (path, 15, &contents, NULL, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  g_assert_false (bpw_file_read ("/nonexistent/file", 16, &contents, NULL, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, "/nonexistent/file"));
  remove_dir (dir);
}

/* A file whose size fstat() reports as 0 but which has content (as those of /proc): read to
 * its end, and still not past the limit. */
static void
test_read_lying_size (void)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;
  struct stat st;

  if (g_stat ("/proc/self/status", &st) != 0 || st.st_size != 0)
    {
      g_test_skip ("no /proc/self/status of size 0");
      return;
    }
  g_assert_true (bpw_file_read ("/proc/self/status", 1 << 20, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, >, 0);
  g_assert_cmpuint (strlen (contents), ==, length);
  g_assert_false (bpw_file_read ("/proc/self/status", 8, &contents, &length, &error));
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

static void
test_read_refuses_special (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *fifo = g_build_filename (dir, "fifo.json", NULL);
  g_autofree char *link = g_build_filename (dir, "folder-link", NULL);
  g_autoptr(GError) error = NULL;
  BpwModelSpec spec;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink (dir, link), ==, 0);

  /* Each returns at once: no writer is waited for, no byte of a device is read. */
  assert_read_refused (fifo, G_FILE_ERROR_INVAL, "a FIFO (named pipe)");
  assert_read_refused ("/dev/zero", G_FILE_ERROR_INVAL, "a device");
  assert_read_refused ("/dev/urandom", G_FILE_ERROR_INVAL, "a device");
  assert_read_refused (dir, G_FILE_ERROR_ISDIR, "a directory");
  assert_read_refused (link, G_FILE_ERROR_ISDIR, "a directory");

  /* Through the loaders, which every input goes through. */
  g_assert_null (bpw_json_doc_new_from_file (fifo, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_clear_error (&error);
  bpw_model_spec_init_defaults (&spec);
  g_assert_false (bpw_workload_load (dir, &spec, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR);
  bpw_model_spec_clear (&spec);
  remove_dir (dir);
}

static void
test_write_new_and_replace (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "out.csv", NULL);
  g_autoptr(GError) error = NULL;
  mode_t mask = umask (022);
  struct stat st;

  umask (mask);
  g_assert_true (bpw_file_replace_contents (path, "new\n", -1, &error));
  g_assert_no_error (error);
  assert_file_is (path, "new\n");
  /* A new file gets 0666 under the umask, as any program's would. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0666 & ~mask);

  /* Replacing keeps the old file's permissions. */
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  g_assert_true (bpw_file_replace_contents (path, "second\n", -1, &error));
  g_assert_no_error (error);
  assert_file_is (path, "second\n");
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);
  g_assert_cmpuint (count_entries (dir), ==, 1);
  remove_dir (dir);
}

static void
test_write_backup (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autofree char *backup = g_strconcat (path, "~", NULL);
  g_autoptr(BpwFileWriter) writer = NULL;
  g_autoptr(GError) error = NULL;

  write_file (path, "old");
  writer = bpw_file_writer_new (path, &error);
  g_assert_no_error (error);
  bpw_file_writer_keep_backup (writer);
  g_assert_true (bpw_file_writer_write (writer, "new", 3, &error));
  g_assert_true (bpw_file_writer_commit (writer, &error));
  g_assert_no_error (error);
  assert_file_is (path, "new");
  assert_file_is (backup, "old");
  g_assert_cmpuint (count_entries (dir), ==, 2);
  remove_dir (dir);
}

/* The link stays a link; the file it names gets the content. */
static void
test_write_through_symlink (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *target = g_build_filename (dir, "real.svg", NULL);
  g_autofree char *link = g_build_filename (dir, "link.svg", NULL);
  g_autofree char *dangling = g_build_filename (dir, "dangling.svg", NULL);
  g_autofree char *named = g_build_filename (dir, "named.svg", NULL);
  g_autoptr(GError) error = NULL;
  struct stat st;

  write_file (target, "old");
  g_assert_cmpint (symlink ("real.svg", link), ==, 0);
  g_assert_true (bpw_file_replace_contents (link, "new", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  assert_file_is (target, "new");

  /* A link to a file not there yet creates that file. */
  g_assert_cmpint (symlink ("named.svg", dangling), ==, 0);
  g_assert_true (bpw_file_replace_contents (dangling, "made", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lstat (dangling, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  assert_file_is (named, "made");
  remove_dir (dir);
}

static void
assert_write_refused (const char *path,
                      int         code,
                      mode_t      kind)
{
  g_autoptr(GError) error = NULL;
  struct stat before, after;

  g_assert_cmpint (g_stat (path, &before), ==, 0);
  g_assert_false (bpw_file_replace_contents (path, "x", -1, &error));
  g_assert_error (error, G_FILE_ERROR, code);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpuint (after.st_mode & S_IFMT, ==, kind);
  g_assert_cmpuint (after.st_ino, ==, before.st_ino);
  g_assert_cmpuint (after.st_rdev, ==, before.st_rdev);
}

static void
test_write_refuses_special (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *fifo = g_build_filename (dir, "out.csv", NULL);
  g_autofree char *folder = g_build_filename (dir, "folder", NULL);
  g_autofree char *link = g_build_filename (dir, "null-link", NULL);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  g_assert_cmpint (symlink ("/dev/null", link), ==, 0);
  assert_write_refused ("/dev/null", G_FILE_ERROR_INVAL, S_IFCHR);
  assert_write_refused (link, G_FILE_ERROR_INVAL, S_IFCHR);
  assert_write_refused (fifo, G_FILE_ERROR_INVAL, S_IFIFO);
  assert_write_refused (folder, G_FILE_ERROR_ISDIR, S_IFDIR);
  /* Nothing was left beside them. */
  g_assert_cmpuint (count_entries (dir), ==, 3);
  remove_dir (dir);
}

/* Runs @child in a forked process and returns its exit status (or 128 + its signal). */
static int
run_child (void (*child) (const char *dir), const char *dir)
{
  int status = 0;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      child (dir);
      _exit (0);
    }
  while (waitpid (pid, &status, 0) < 0)
    g_assert_cmpint (errno, ==, EINTR);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* Exits with 1 + the line of the first check that fails (g_assert in a child would abort). */
#define CHILD_CHECK(cond) G_STMT_START { if (!(cond)) _exit (1 + (__LINE__ % 100)); } G_STMT_END

static void
read_only_child (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "ro", "out.pdf", NULL);
  g_autofree char *contents = NULL;
  GError *error = NULL;

  if (geteuid () == 0)
    CHILD_CHECK (setgid (NOBODY) == 0 && setuid (NOBODY) == 0);
  CHILD_CHECK (!bpw_file_replace_contents (path, "new", -1, &error));
  CHILD_CHECK (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_ACCES));
  CHILD_CHECK (strstr (error->message, path) != NULL);
  CHILD_CHECK (g_file_get_contents (path, &contents, NULL, NULL));
  CHILD_CHECK (strcmp (contents, "old") == 0);
  g_error_free (error);
}

static void
test_write_read_only_folder (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *ro = g_build_filename (dir, "ro", NULL);
  g_autofree char *path = g_build_filename (ro, "out.pdf", NULL);

  /* Root ignores permissions: the child then writes as an unprivileged user, which must be
   * able to reach the folder. */
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (ro, 0755), ==, 0);
  write_file (path, "old");
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  g_assert_cmpint (g_chmod (ro, 0555), ==, 0);
  g_assert_cmpint (run_child (read_only_child, dir), ==, 0);
  assert_file_is (path, "old");
  g_assert_cmpuint (count_entries (ro), ==, 1);
  g_assert_cmpint (g_chmod (ro, 0755), ==, 0);
  remove_dir (ro);
  remove_dir (dir);
}

/* A full disk: files may not grow past 4 KiB, and SIGXFSZ is ignored, so write() fails with
 * EFBIG as it fails with ENOSPC on a full file system. */
static void
full_disk_child (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "out.csv", NULL);
  g_autofree char *big = g_malloc0 (64 * 1024);
  g_autoptr(BpwFileWriter) writer = NULL;
  struct rlimit limit = { 4096, 4096 };
  GError *error = NULL;

  signal (SIGXFSZ, SIG_IGN);
  CHILD_CHECK (setrlimit (RLIMIT_FSIZE, &limit) == 0);
  CHILD_CHECK (!bpw_file_replace_contents (path, big, 64 * 1024, &error));
  CHILD_CHECK (error != NULL && strstr (error->message, g_strerror (EFBIG)) != NULL);
  CHILD_CHECK (strstr (error->message, path) != NULL);
  g_clear_error (&error);

  /* Through the writer: the failure stays, and the commit reports it. */
  writer = bpw_file_writer_new (path, &error);
  CHILD_CHECK (writer != NULL);
  CHILD_CHECK (!bpw_file_writer_write (writer, big, 64 * 1024, NULL));
  CHILD_CHECK (bpw_file_writer_has_failed (writer));
  CHILD_CHECK (!bpw_file_writer_write (writer, "x", 1, NULL));
  CHILD_CHECK (!bpw_file_writer_commit (writer, &error));
  CHILD_CHECK (error != NULL && strstr (error->message, g_strerror (EFBIG)) != NULL);
  g_error_free (error);
}

static void
test_write_full_disk (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "out.csv", NULL);

  write_file (path, "the old file\n");
  g_assert_cmpint (run_child (full_disk_child, dir), ==, 0);
  assert_file_is (path, "the old file\n");
  g_assert_cmpuint (count_entries (dir), ==, 1);
  remove_dir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/File/read-regular", test_read_regular);
  g_test_add_func ("/bpw/core/File/read-lying-size", test_read_lying_size);
  g_test_add_func ("/bpw/core/File/read-refuses-special", test_read_refuses_special);
  g_test_add_func ("/bpw/core/File/write-new-and-replace", test_write_new_and_replace);
  g_test_add_func ("/bpw/core/File/write-backup", test_write_backup);
  g_test_add_func ("/bpw/core/File/write-through-symlink", test_write_through_symlink);
  g_test_add_func ("/bpw/core/File/write-refuses-special", test_write_refuses_special);
  g_test_add_func ("/bpw/core/File/write-read-only-folder", test_write_read_only_folder);
  g_test_add_func ("/bpw/core/File/write-full-disk", test_write_full_disk);
  return g_test_run ();
}
