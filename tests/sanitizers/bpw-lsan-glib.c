/* bpw-lsan-glib.c — marks for LeakSanitizer the blocks GLib 2.74 leaks on purpose.
 *
 * Preloaded (LD_PRELOAD) into the test programs of the sanitize stage (.ci/run sanitize;
 * TESTING.md §4). The suite runs with ASan's fast, frame-pointer stacks, which stop inside
 * GLib (built without frame pointers), so the name suppressions of lsan.supp cannot match
 * two leaks that GLib makes by design:
 *
 *  - g_set_user_dirs() drops the old user and system folders when it sets new ones ("we
 *    have to leak the old value, as user code could be retaining pointers to it", gutils.c);
 *    G_TEST_OPTION_ISOLATE_DIRS calls it before every test case;
 *  - the first block of the quark table, allocated by GLib's constructor, is dropped when
 *    the table grows past 2048 quarks ("this leaks the old quarks array", gquark.c).
 *
 * A GLib built with AddressSanitizer hands both to __lsan_ignore_object() (g_ignore_leak());
 * Debian's is not, so this does the same from outside, for exactly those objects:
 *
 *  - the folders of each test case, read back with GLib's getters at the start of the case
 *    (in a set-up function wrapped around the test's own; g_test_add_*() are wrapped for
 *    that), and those in use when g_test_run() starts, when g_test_init() was given
 *    G_TEST_OPTION_ISOLATE_DIRS;
 *  - the quark table's first block, found in g_test_init() as the only heap block of the
 *    table's size that a pointer in GLib's data points to and that holds quark 1's string
 *    at index 1.
 *
 * Anything else still reports, and when neither object can be found (another GLib) the
 * leaks report as before and the stage reruns the test with exact stacks.
 *
 * It uses no GLib symbol at link time (it is also preloaded into Xvfb, the shell and the
 * other programs the tests start) and does nothing to the leak checker in a program
 * without ASan.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

/* From <sanitizer/lsan_interface.h> and <sanitizer/allocator_interface.h>; weak, so that a
 * program without ASan loads this too. */
extern void   __lsan_ignore_object            (const void          *p) __attribute__ ((weak));
extern int    __sanitizer_get_ownership       (const volatile void *p) __attribute__ ((weak));
extern size_t __sanitizer_get_allocated_size  (const volatile void *p) __attribute__ ((weak));

/* gquark.c: QUARK_BLOCK_SIZE. */
#define QUARK_BLOCK_BYTES (2048 * sizeof (gchar *))

/* g_test_init() takes a NULL-terminated list of options; GLib 2.74 knows one. */
#define MAX_TEST_OPTIONS 8

typedef void (*TestInitFunc)      (int *argc, char ***argv, ...);
typedef int  (*TestRunFunc)       (void);
typedef void (*TestAddVtableFunc) (const char *testpath, gsize fixture_size,
                                   gconstpointer test_data, GTestFixtureFunc setup,
                                   GTestFixtureFunc test, GTestFixtureFunc teardown);

/* One registered test case: GLib gets the wrappers below and this as its data. Kept
 * reachable from `cases` for the whole run, as GLib keeps the case itself. */
typedef struct TestCase TestCase;
struct TestCase
{
  TestCase        *next;
  gsize            fixture_size;
  gconstpointer    data;
  GTestFixtureFunc setup;
  GTestFixtureFunc test;
  GTestFixtureFunc teardown;
};

static TestCase *cases;
static gboolean  isolate_dirs;

static void *
glib_symbol (const char *name)
{
  void *symbol = dlsym (RTLD_NEXT, name);

  if (symbol == NULL)
    {
      fprintf (stderr, "bpw-lsan-glib: no %s in the program\n", name);
      abort ();
    }
  return symbol;
}

static gboolean
leak_checker_present (void)
{
  return __lsan_ignore_object != NULL && __sanitizer_get_ownership != NULL
         && __sanitizer_get_allocated_size != NULL;
}

static void
ignore_heap_object (const void *p)
{
  if (p != NULL && __sanitizer_get_ownership (p))
    __lsan_ignore_object (p);
}

/* The folders g_set_user_dirs() set for the current test case: the next case drops them. */
static void
ignore_user_dirs (void)
{
  static const char *const dir_getters[] = {
    "g_get_home_dir", "g_get_user_cache_dir", "g_get_user_config_dir",
    "g_get_user_data_dir", "g_get_user_state_dir", "g_get_user_runtime_dir",
  };
  static const char *const dirs_getters[] = {
    "g_get_system_config_dirs", "g_get_system_data_dirs",
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (dir_getters); i++)
    {
      const gchar *(*get) (void) = glib_symbol (dir_getters[i]);

      ignore_heap_object (get ());
    }
  for (i = 0; i < G_N_ELEMENTS (dirs_getters); i++)
    {
      const gchar *const *(*get) (void) = glib_symbol (dirs_getters[i]);
      const gchar *const *dirs = get ();
      gsize j;

      ignore_heap_object (dirs);
      for (j = 0; dirs != NULL && dirs[j] != NULL; j++)
        ignore_heap_object (dirs[j]);
    }
}

typedef struct
{
  const gchar *quark_1;
  gsize        found;
  const void  *block;
} QuarkSearch;

static int
find_quark_block (struct dl_phdr_info *info, size_t size, void *user_data)
{
  QuarkSearch *search = user_data;
  int i;

  (void) size;
  if (info->dlpi_name == NULL || strstr (info->dlpi_name, "/libglib-2.0.so") == NULL)
    return 0;
  for (i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *segment = &info->dlpi_phdr[i];
      uintptr_t start, end, at;

      if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_W))
        continue;
      start = info->dlpi_addr + segment->p_vaddr;
      end = start + segment->p_memsz;
      start = (start + sizeof (void *) - 1) & ~(uintptr_t) (sizeof (void *) - 1);
      for (at = start; at + sizeof (void *) <= end; at += sizeof (void *))
        {
          const gchar *const *block = *(const gchar *const *const *) at;

          if (block == NULL || !__sanitizer_get_ownership (block)
              || __sanitizer_get_allocated_size (block) != QUARK_BLOCK_BYTES
              || block[0] != NULL || block[1] != search->quark_1)
            continue;
          if (block != search->block)
            search->found++;
          search->block = block;
        }
    }
  return 1;
}

static void
ignore_quark_block (void)
{
  const gchar *(*quark_to_string) (GQuark quark) = glib_symbol ("g_quark_to_string");
  QuarkSearch search = { quark_to_string (1), 0, NULL };

  if (search.quark_1 == NULL)
    return;
  dl_iterate_phdr (find_quark_block, &search);
  if (search.found == 1)
    __lsan_ignore_object (search.block);
}

void
g_test_init (int    *argc,
             char ***argv,
             ...)
{
  TestInitFunc real_init = (TestInitFunc) glib_symbol ("g_test_init");
  const char *options[MAX_TEST_OPTIONS] = { NULL };
  const char *option;
  va_list args;
  int n = 0;

  va_start (args, argv);
  while ((option = va_arg (args, const char *)) != NULL)
    {
      if (n == MAX_TEST_OPTIONS)
        {
          fprintf (stderr, "bpw-lsan-glib: more than %d options to g_test_init()\n",
                   MAX_TEST_OPTIONS);
          abort ();
        }
      options[n++] = option;
      if (strcmp (option, G_TEST_OPTION_ISOLATE_DIRS) == 0)
        isolate_dirs = TRUE;
    }
  va_end (args);

  real_init (argc, argv, options[0], options[1], options[2], options[3], options[4],
             options[5], options[6], options[7], NULL);
  if (leak_checker_present ())
    ignore_quark_block ();
}

/* The folders in use before the first case (read by main(), or GLib's defaults): the
 * first case drops them. */
int
g_test_run (void)
{
  TestRunFunc real_run = (TestRunFunc) glib_symbol ("g_test_run");

  if (isolate_dirs && leak_checker_present ())
    ignore_user_dirs ();
  return real_run ();
}

/* GLib passes the case's data as the fixture when there is no fixture to allocate. */
static gpointer
case_fixture (const TestCase *test_case,
              gpointer        fixture)
{
  return test_case->fixture_size ? fixture : (gpointer) test_case->data;
}

/* Runs after GLib has set the case's folders (G_TEST_OPTION_ISOLATE_DIRS). */
static void
case_setup (gpointer      fixture,
            gconstpointer data)
{
  const TestCase *test_case = data;

  if (isolate_dirs && leak_checker_present ())
    ignore_user_dirs ();
  if (test_case->setup != NULL)
    test_case->setup (case_fixture (test_case, fixture), test_case->data);
}

static void
case_test (gpointer      fixture,
           gconstpointer data)
{
  const TestCase *test_case = data;

  test_case->test (case_fixture (test_case, fixture), test_case->data);
}

static void
case_teardown (gpointer      fixture,
               gconstpointer data)
{
  const TestCase *test_case = data;

  if (test_case->teardown != NULL)
    test_case->teardown (case_fixture (test_case, fixture), test_case->data);
}

void
g_test_add_vtable (const char      *testpath,
                   gsize            fixture_size,
                   gconstpointer    test_data,
                   GTestFixtureFunc setup,
                   GTestFixtureFunc test,
                   GTestFixtureFunc teardown)
{
  TestAddVtableFunc real_add = (TestAddVtableFunc) glib_symbol ("g_test_add_vtable");
  TestCase *test_case;

  /* GLib's checks and messages for a case without a test function. */
  if (test == NULL)
    {
      real_add (testpath, fixture_size, test_data, setup, test, teardown);
      return;
    }
  test_case = calloc (1, sizeof *test_case);
  if (test_case == NULL)
    abort ();
  test_case->fixture_size = fixture_size;
  test_case->data = test_data;
  test_case->setup = setup;
  test_case->test = test;
  test_case->teardown = teardown;
  test_case->next = cases;
  cases = test_case;
  real_add (testpath, fixture_size, test_case, case_setup, case_test, case_teardown);
}

/* GLib's own g_test_add_func() and g_test_add_data_func*() call g_test_add_vtable() inside
 * GLib, past this file: these are theirs (gtestutils.c), through the wrapper above. */
void
g_test_add_func (const char *testpath,
                 GTestFunc   test_func)
{
  g_test_add_vtable (testpath, 0, NULL, NULL, (GTestFixtureFunc) (void (*) (void)) test_func,
                     NULL);
}

void
g_test_add_data_func (const char   *testpath,
                      gconstpointer test_data,
                      GTestDataFunc test_func)
{
  g_test_add_vtable (testpath, 0, test_data, NULL,
                     (GTestFixtureFunc) (void (*) (void)) test_func, NULL);
}

void
g_test_add_data_func_full (const char    *testpath,
                           gpointer       test_data,
                           GTestDataFunc  test_func,
                           GDestroyNotify data_free_func)
{
  g_test_add_vtable (testpath, 0, test_data, NULL,
                     (GTestFixtureFunc) (void (*) (void)) test_func,
                     (GTestFixtureFunc) (void (*) (void)) data_free_func);
}
