/* fuzz-measurement-pack.c — libFuzzer target: measurement packs and what a fit reads of
 * them without traces
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pack reader takes a path, since a pack names its runs' traces and models relative
 * to its folder: each input is written to pack.json in a folder made once per process
 * (bpw-fuzz-pack-PID in the temporary folder), which holds the models of the shared H200
 * pack (two- and four-block Hugging Face configs, a one-layer Mixtral) and empty files in
 * place of its traces (the reader only checks that they exist). An accepted pack must
 * give, for every precision, sweep indices in range and of that precision; a launch mode
 * for every run; and for every run (at most 8, the cap of this target) a prediction on
 * the bundled H200 through the estimator that is finite and positive, or refused with a
 * BPW_ERROR naming the run.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bpw-blueprint-io.h"
#include "bpw-fuzz.h"
#include "bpw-pack-fit.h"

#define MAX_RUNS 8

static BpwBlueprint *blueprint;
static char         *folder;
static char         *pack_path;

int LLVMFuzzerInitialize (int    *argc,
                          char ***argv);

static void
remove_folder_at (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (path, name, NULL);

      g_unlink (file);
    }
  g_rmdir (path);
}

static void
remove_folder (void)
{
  remove_folder_at (folder);
}

/* libFuzzer ends a run by time with _Exit(), which skips atexit(): the folders of
 * processes that have ended are removed when the next one starts. */
static void
remove_stale_folders (void)
{
  g_autoptr(GDir) dir = g_dir_open (g_get_tmp_dir (), 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      char *end = NULL;
      gint64 pid;

      if (!g_str_has_prefix (name, "bpw-fuzz-pack-"))
        continue;
      pid = g_ascii_strtoll (name + strlen ("bpw-fuzz-pack-"), &end, 10);
      if (end != NULL && *end == '\0' && pid > 0 && pid != getpid () &&
          kill ((pid_t) pid, 0) != 0 && errno == ESRCH)
        {
          g_autofree char *path = g_build_filename (g_get_tmp_dir (), name, NULL);

          remove_folder_at (path);
        }
    }
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  static const char * const models[] = {
    "gpt-2.7b-2-layers.config.json", "llama3-8b-4-layers.config.json",
    "mixtral-1-layer.config.json",
  };
  static const char * const traces[] = {
    "train.trace.json.gz", "train-gpt.trace.json.gz", "train-moe.trace.json.gz",
    "prefill.trace.json.gz", "decode.trace.json.gz", "decode-graph.trace.json.gz",
  };
  g_autoptr(GError) error = NULL;

  bpw_fuzz_init ();
  blueprint = bpw_blueprint_load ("h200-sxm-141gb", NULL, &error);
  if (blueprint == NULL)
    bpw_fuzz_fail (G_STRLOC, "bundled blueprint", error->message);
  remove_stale_folders ();
  folder = g_strdup_printf ("%s/bpw-fuzz-pack-%ld", g_get_tmp_dir (), (long) getpid ());
  if (g_mkdir_with_parents (folder, 0700) != 0)
    bpw_fuzz_fail (G_STRLOC, "temporary folder", folder);
  atexit (remove_folder);
  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    {
      g_autofree char *from = g_build_filename (BPW_FUZZ_PACK_DIR, models[i], NULL);
      g_autofree char *to = g_build_filename (folder, models[i], NULL);
      g_autofree char *text = NULL;
      gsize length;

      if (!g_file_get_contents (from, &text, &length, &error) ||
          !g_file_set_contents (to, text, (gssize) length, &error))
        bpw_fuzz_fail (G_STRLOC, models[i], error->message);
    }
  for (guint i = 0; i < G_N_ELEMENTS (traces); i++)
    {
      g_autofree char *to = g_build_filename (folder, traces[i], NULL);

      if (!g_file_set_contents (to, "", 0, &error))
        bpw_fuzz_fail (G_STRLOC, traces[i], error->message);
    }
  pack_path = g_build_filename (folder, "pack.json", NULL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(BpwMeasurementPack) pack = NULL;

  if (blueprint == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  if (!g_file_set_contents (pack_path, (const char *) data, (gssize) size, &error))
    bpw_fuzz_fail (G_STRLOC, pack_path, error->message);
  pack = bpw_measurement_pack_load_file (pack_path, warnings, &error);
  for (guint i = 0; i < warnings->len; i++)
    bpw_fuzz_assert (g_utf8_validate (g_ptr_array_index (warnings, i), -1, NULL),
                     "warnings are UTF-8");
  if (pack == NULL)
    {
      bpw_fuzz_check_error (error);
      return 0;
    }

  for (guint d = 0; d < BPW_N_DTYPES; d++)
    {
      guint n = 0;
      g_autofree guint *index = bpw_measurement_pack_matmuls_of (pack, d, &n);

      bpw_fuzz_assert (n <= pack->n_matmuls, "no more sweep points than products");
      for (guint i = 0; i < n; i++)
        bpw_fuzz_assert (index[i] < pack->n_matmuls && pack->matmuls[index[i]].dtype == d,
                         "sweep indices in range and of the precision asked");
    }
  if (pack->n_runs > MAX_RUNS)
    return 0;
  for (guint r = 0; r < pack->n_runs; r++)
    {
      g_autoptr(GError) run_error = NULL;
      double step = NAN;

      (void) bpw_pack_run_is_graph (pack, r);
      if (bpw_pack_predict_run (pack, r, blueprint, &step, NULL, &run_error))
        {
          if (g_getenv ("BPW_FUZZ_DEBUG") != NULL)
            fprintf (stderr, "run %s: %g s predicted\n", pack->runs[r].name, step);
          bpw_fuzz_assert (isfinite (step) && step > 0,
                           "a predicted step is finite and positive");
        }
      else
        bpw_fuzz_check_error (run_error);
    }
  return 0;
}
