/* fuzz-replay.c — runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: fuzz-replay-TARGET FILE|DIR...
 * Every regular file (directories one level deep, sorted) is one input. Prints TAP, one
 * test per input; a crash or broken invariant aborts, which meson reports as a failure.
 * This is how the seed corpora and the regression inputs run in every build, gcc included.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bpw-fuzz.h"

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
collect (const char *path,
         GPtrArray  *files)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  const char *name;

  /* A target without regressions has no regressions/TARGET folder. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return;
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_ptr_array_add (files, g_strdup (path));
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  if (dir == NULL)
    return;
  entries = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *full = g_build_filename (path, name, NULL);

      /* README files describe a corpus; they are not inputs. */
      if (name[0] != '.' && g_strcmp0 (name, "README.md") != 0 &&
          g_file_test (full, G_FILE_TEST_IS_REGULAR))
        g_ptr_array_add (entries, g_steal_pointer (&full));
    }
  g_ptr_array_sort (entries, compare_strings);
  for (guint i = 0; i < entries->len; i++)
    g_ptr_array_add (files, g_strdup (g_ptr_array_index (entries, i)));
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  int failed = 0;

  bpw_fuzz_init ();
  for (int i = 1; i < argc; i++)
    collect (argv[i], files);
  if (files->len == 0)
    {
      printf ("1..0 # SKIP no inputs\n");
      return 0;
    }

  printf ("1..%u\n", files->len);
  fflush (stdout);
  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;
      gsize length = 0;

      if (!g_file_get_contents (path, &data, &length, &error))
        {
          printf ("not ok %u - %s # %s\n", i + 1, path, error->message);
          failed++;
          continue;
        }
      /* libFuzzer passes a buffer of exactly @length bytes; give ASan the same: a copy
       * without the terminating NUL that g_file_get_contents adds. */
      {
        g_autofree guint8 *exact = g_memdup2 (data, MAX (length, 1));

        LLVMFuzzerTestOneInput (exact, length);
      }
      printf ("ok %u - %s\n", i + 1, path);
      fflush (stdout);
    }
  return failed > 0 ? 1 : 0;
}
