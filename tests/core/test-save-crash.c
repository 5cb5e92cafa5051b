/* test-save-crash.c — a study survives its saving process being killed at any moment
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A child process saves big studies over one path, version after version, with
 * bpw_study_save_to_file(); the parent kills it with SIGKILL a random delay (seeded by the
 * GTest seed, so a failing run can be replayed with --seed) after the child begins or ends
 * its first save, as it reports through a pipe, and then checks what a user would find:
 * the file at the path, or while the save was between its two renames its "~" backup, is
 * byte for byte one of the versions that were saved, and it loads. A torn, truncated or
 * mixed file fails the test.
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpw-error.h"
#include "bpw-study.h"

#define N_VERSIONS 6
#define N_KILLS    100
#define BASE_WORKLOADS 150
/* Under sanitizers or valgrind a save is 10-100 times slower; the study then shrinks so
 * that a save takes about this long and the 100 kills stay within the test's time. */
#define TARGET_SAVE_US 40000

/* A study of @base + @version inline workloads, each with one scenario: 180 kB for the
 * full size, so that a save takes long enough for kills to land inside it. */
static BpwStudy *
make_study (guint base,
            guint version)
{
  static const char * const models[] = { "gpt3-175b", "llama3-8b", "llama3-70b",
                                         "mixtral-8x7b" };
  g_autoptr(BpwStudy) study = bpw_study_new ();
  g_autofree char *name = g_strdup_printf ("crash test, version %u", version);

  bpw_study_set_name (study, name);
  for (guint i = 0; i < base + version; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *workload = g_strdup_printf ("w%u", i);
      g_autofree char *scenario_name = g_strdup_printf ("s%u", i);
      BpwModelSpec spec;
      BpwScenario scenario;
      BpwParallel parallel;

      bpw_model_spec_init_defaults (&spec);
      g_assert_true (bpw_model_spec_lookup_bundled (models[i % G_N_ELEMENTS (models)], &spec));
      /* Inline (no model_ref): the whole spec is written, which makes the file big. */
      g_assert_true (bpw_study_add_workload (study, workload, &spec, NULL, &error));
      g_assert_no_error (error);
      bpw_model_spec_clear (&spec);

      bpw_scenario_init_defaults (&scenario);
      bpw_parallel_init_defaults (&parallel);
      scenario.global_batch = 8 * (1 + i % 4);
      scenario.seq = 256 * (1 + i % 3);  /* within every model's position table */
      g_assert_true (bpw_study_add_scenario (study, scenario_name, workload, &scenario,
                                             &parallel, &error));
      g_assert_no_error (error);
    }
  return g_steal_pointer (&study);
}

/* Microseconds one save of @study takes. */
static gint64
time_save (BpwStudy   *study,
           const char *path)
{
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();

  g_assert_true (bpw_study_save_to_file (study, path, &error));
  g_assert_no_error (error);
  return MAX (g_get_monotonic_time () - t0, 200);
}

/* Which version @data is, or -1 when it is none of them. */
static int
match_version (GBytes * const *versions,
               const char     *data,
               gsize           length)
{
  for (int v = 0; v < N_VERSIONS; v++)
    {
      gsize size = 0;
      const char *expected = g_bytes_get_data (versions[v], &size);

      if (size == length && memcmp (expected, data, length) == 0)
        return v;
    }
  return -1;
}

/* The file at @path is byte for byte one of the saved versions; returns which. Each
 * version was shown to load once (test_kill_during_save), so equal bytes load too. */
static int
check_intact (GBytes * const *versions,
              const char     *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;
  int v;

  g_assert_true (g_file_get_contents (path, &data, &length, &error));
  g_assert_no_error (error);
  v = match_version (versions, data, length);
  if (v < 0)
    g_error ("%s (%" G_GSIZE_FORMAT " bytes) is not any saved version", path, length);
  return v;
}

static guint
count_temporaries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (name, ".goutputstream-");
  return n;
}

/* What the child writes to the parent's pipe around each save. */
#define SAVE_BEGINS 'b'
#define SAVE_ENDED  'e'

G_NORETURN static void
child_save_forever (BpwStudy * const *studies,
                    const char       *path,
                    int               progress)
{
  for (guint i = 1;; i++)
    {
      g_autoptr(GError) error = NULL;
      char mark = SAVE_BEGINS;
      gboolean saved;

      /* No assertions here: the parent judges the result; a failed save just ends. */
      if (write (progress, &mark, 1) != 1)
        _exit (4);
      saved = bpw_study_save_to_file (studies[i % N_VERSIONS], path, &error);
      mark = SAVE_ENDED;
      if (!saved || write (progress, &mark, 1) != 1)
        _exit (3);
    }
}

/* Reads the child's marks until @mark; FALSE when the child ended first. */
static gboolean
wait_for_mark (int  progress,
               char mark)
{
  char c = 0;

  for (;;)
    {
      ssize_t n = read (progress, &c, 1);

      if (n < 0 && errno == EINTR)
        continue;
      if (n != 1)
        return FALSE;
      if (c == mark)
        return TRUE;
    }
}

static void
test_kill_during_save (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bpw-save-crash-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *backup = NULL;
  BpwStudy *studies[N_VERSIONS];
  GBytes *versions[N_VERSIONS];
  gint64 save_us;
  guint seen[N_VERSIONS] = { 0 };
  guint only_backup = 0, distinct = 0, temporaries, base = BASE_WORKLOADS;

  g_assert_no_error (error);
  path = g_build_filename (dir, "big.bpw-study.json", NULL);
  backup = g_strconcat (path, "~", NULL);

  {
    /* Saved elsewhere: its backup must not stand at the path as a version never saved. */
    g_autofree char *probe_path = g_build_filename (dir, "probe.json", NULL);
    g_autofree char *probe_backup = g_strconcat (probe_path, "~", NULL);
    g_autoptr(BpwStudy) probe = make_study (base, 0);

    save_us = time_save (probe, probe_path);
    if (save_us > TARGET_SAVE_US)
      base = MAX (8, (guint) (base * TARGET_SAVE_US / save_us));
    g_assert_cmpint (g_unlink (probe_path), ==, 0);
    g_unlink (probe_backup);
  }

  /* The exact bytes of each version, as a save writes them. */
  for (guint v = 0; v < N_VERSIONS; v++)
    {
      g_autofree char *ref = g_strdup_printf ("%s/reference-%u.json", dir, v);
      g_autofree char *data = NULL;
      gsize length = 0;

      g_autoptr(BpwStudy) loaded = NULL;

      studies[v] = make_study (base, v);
      g_assert_true (bpw_study_save_to_file (studies[v], ref, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (ref, &data, &length, NULL));
      versions[v] = g_bytes_new_take (g_steal_pointer (&data), length);
      /* Each version loads as what was saved. */
      loaded = bpw_study_new_from_file (ref, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (bpw_study_get_n_workloads (loaded), ==, base + v);
      g_assert_cmpstr (bpw_study_get_name (loaded), ==, bpw_study_get_name (studies[v]));
      g_assert_cmpint (g_unlink (ref), ==, 0);
    }

  /* Version 0 is the study the user had before the crashes; time its save for the delays. */
  save_us = time_save (studies[0], path);
  g_test_message ("%u workloads: a save of %" G_GSIZE_FORMAT " bytes takes about %"
                  G_GINT64_FORMAT " us", base, g_bytes_get_size (versions[0]), save_us);

  for (guint k = 0; k < N_KILLS; k++)
    {
      /* Up to about four saves: kills land before, inside and between saves. */
      gulong delay = (gulong) g_test_rand_int_range (0, (gint32) MIN (4 * save_us, 2000000));
      int status = 0;
      int progress[2];
      pid_t pid;

      g_assert_cmpint (pipe (progress), ==, 0);
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          close (progress[0]);
          child_save_forever (studies, path, progress[1]);
        }
      close (progress[1]);
      /* The delay counts from an event of the child's, not from the fork, so that a
       * loaded machine, which may not run the child at all for a while, still has kills
       * land inside saves: half of them from the start of the first save, the other half
       * from its end, so that later versions reach the path. */
      g_assert_true (wait_for_mark (progress[0], k % 2 == 0 ? SAVE_BEGINS : SAVE_ENDED));
      g_usleep (delay);
      g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
      while (waitpid (pid, &status, 0) < 0)
        g_assert_cmpint (errno, ==, EINTR);
      close (progress[0]);
      /* Killed, not finished on its own (3 would be a failed save). */
      g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);

      if (g_file_test (path, G_FILE_TEST_EXISTS))
        {
          seen[check_intact (versions, path)]++;
        }
      else
        {
          /* Killed between "path -> path~" and "temporary -> path": the backup holds the
           * previous version. */
          only_backup++;
          g_assert_true (g_file_test (backup, G_FILE_TEST_EXISTS));
          seen[check_intact (versions, backup)]++;
        }
      if (g_file_test (backup, G_FILE_TEST_EXISTS))
        check_intact (versions, backup);
    }

  temporaries = count_temporaries (dir);
  for (guint v = 0; v < N_VERSIONS; v++)
    distinct += seen[v] > 0;
  g_test_message ("%u kills: %u versions seen, %u times only the backup was there, "
                  "%u temporaries left behind by killed saves", N_KILLS, distinct,
                  only_backup, temporaries);
  /* The kills did interrupt saving: later versions reached the path. */
  g_assert_cmpuint (distinct, >=, 2);

  for (guint v = 0; v < N_VERSIONS; v++)
    {
      g_object_unref (studies[v]);
      g_bytes_unref (versions[v]);
    }
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *file = g_build_filename (dir, name, NULL);

        g_unlink (file);
      }
  }
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  /* Plain local files: no GVfs daemon in the forked children. */
  g_setenv ("GIO_USE_VFS", "local", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/Study/kill-during-save", test_kill_during_save);
  return g_test_run ();
}
