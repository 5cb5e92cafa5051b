/* test-measurement-pack.c — the shared H200 pack read whole; hostile variants refused at
 * the value that is wrong, with file:line:col and the JSON path, every problem at once
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-core.h"

static char *
pack_dir (void)
{
  return g_test_build_filename (G_TEST_DIST, "data", "measurements", "h200-pytorch", NULL);
}

static void
test_shared_pack (void)
{
  g_autofree char *dir = pack_dir ();
  g_autofree char *path = g_build_filename (dir, "pack.json", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwMeasurementPack) p = bpw_measurement_pack_load_file (path, warnings, &error);
  g_autofree guint *bf16 = NULL, *fp8 = NULL;
  guint n_bf16, n_fp8;

  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_cmpstr (p->device_name, ==, "NVIDIA H200");
  g_assert_cmpint (p->sms, ==, 132);
  g_assert_cmpint (p->memory_bytes, ==, G_GINT64_CONSTANT (150109880320));
  g_assert_cmpfloat (p->power_limit_w, ==, 700);
  g_assert_cmpstr (p->framework, ==, "PyTorch 2.11.0+cu130");
  g_assert_nonnull (p->other_models);

  /* Units: ms and TFLOP/s in the file, s and FLOP/s here. */
  g_assert_cmpint (p->peak.dtype, ==, BPW_DTYPE_BF16);
  g_assert_cmpint (p->peak.m, ==, 8192);
  g_assert_cmpfloat_with_epsilon (p->peak.time_s, 1.4503040313720703e-3, 1e-15);
  g_assert_cmpfloat_with_epsilon (p->peak.flops_per_s, 758.1249200112884e12, 1e3);
  /* The file's rate is its own 2·m·n·k / time. */
  g_assert_cmpfloat (fabs (2.0 * 8192 * 8192 * 8192 / p->peak.time_s / p->peak.flops_per_s - 1),
                     <, 1e-9);
  g_assert_cmpfloat_with_epsilon (p->peak_power_w, 674.139825, 1e-9);

  bf16 = bpw_measurement_pack_matmuls_of (p, BPW_DTYPE_BF16, &n_bf16);
  fp8 = bpw_measurement_pack_matmuls_of (p, BPW_DTYPE_FP8, &n_fp8);
  g_assert_cmpuint (p->n_matmuls, ==, 61);
  g_assert_cmpuint (n_bf16, ==, 56);
  g_assert_cmpuint (n_fp8, ==, 5);
  g_assert_cmpstr (p->matmuls[bf16[0]].name, ==, "8b.qkv");
  g_assert_cmpint (p->matmuls[bf16[0]].n, ==, 6144);
  g_assert_null (p->matmuls[fp8[0]].name);

  g_assert_cmpuint (p->n_copies, ==, 1);
  g_assert_cmpint (p->copies[0].bytes, ==, G_GINT64_CONSTANT (4294967296));
  g_assert_cmpfloat_with_epsilon (p->copies[0].bytes_per_s, 4.235066749956034e12, 1e3);

  g_assert_cmpuint (p->n_attention, ==, 6);
  g_assert_cmpint (p->attention[0].kind, ==, BPW_PACK_ATTENTION_PREFILL_CAUSAL);
  g_assert_cmpint (p->attention[0].tokens, ==, 4096);
  g_assert_cmpint (p->attention[4].kind, ==, BPW_PACK_ATTENTION_DECODE);
  g_assert_cmpint (p->attention[4].batch, ==, 16);
  g_assert_cmpint (p->attention[4].kv_bytes, ==, 268435456);

  g_assert_cmpuint (p->n_runs, ==, 6);
  g_assert_cmpstr (p->runs[0].name, ==, "train-4l");
  g_assert_true (isnan (p->runs[0].measured_s));
  g_assert_cmpint (p->runs[0].scenario.phase, ==, BPW_WORKLOAD_TRAIN);
  g_assert_cmpint (p->runs[0].scenario.seq, ==, 2048);
  g_assert_cmpint (p->runs[0].scenario.recompute, ==, BPW_RECOMPUTE_NONE);
  g_assert_true (p->runs[0].scenario.optimizer_set);
  g_assert_true (g_file_test (p->runs[0].trace_path, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_str_has_suffix (p->runs[0].model_path, "llama3-8b-4-layers.config.json"));
  g_assert_cmpint (p->runs[2].scenario.phase, ==, BPW_WORKLOAD_DECODE);
  g_assert_cmpint (p->runs[2].scenario.context, ==, 4096);
  g_assert_cmpint (p->runs[2].scenario.global_batch, ==, 16);
  g_assert_cmpfloat_with_epsilon (p->runs[2].measured_s, 1.4796160459518433e-3, 1e-15);
  g_assert_cmpstr (p->runs[5].name, ==, "train-moe-1l");
}

/* A scratch folder holding the shared pack's files, so that a spoiled pack written there
 * resolves its runs as the original does. */
static char *
scratch_copy (void)
{
  g_autofree char *dir = pack_dir ();
  char *scratch = g_dir_make_tmp ("bpw-pack-XXXXXX", NULL);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (scratch);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *from = g_build_filename (dir, name, NULL);
      g_autofree char *to = g_build_filename (scratch, name, NULL);
      g_autofree char *data = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (from, &data, &length, NULL));
      g_assert_true (g_file_set_contents (to, data, (gssize) length, NULL));
    }
  return scratch;
}

static void
scratch_remove (const char *scratch)
{
  g_autoptr(GDir) d = g_dir_open (scratch, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (scratch, name, NULL);

      g_unlink (path);
    }
  g_rmdir (scratch);
}

/* The shared pack with @from replaced by @to (once), written in @dir beside the runs'
 * files; the error must name @where after "FILE:LINE:COL: ". */
static void
expect_refusal (const char *dir, const char *from, const char *to, const char *where)
{
  g_autofree char *path = g_build_filename (dir, "pack.json", NULL);
  g_autofree char *spoiled = g_build_filename (dir, "hostile-pack.tmp.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *pattern = NULL;
  g_autoptr(GString) s = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwMeasurementPack) p = NULL;
  char *at;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  s = g_string_new (text);
  at = strstr (s->str, from);
  g_assert_nonnull (at);
  g_string_erase (s, at - s->str, strlen (from));
  g_string_insert (s, at - s->str, to);
  g_assert_true (g_file_set_contents (spoiled, s->str, -1, NULL));
  p = bpw_measurement_pack_load_file (spoiled, NULL, &error);
  g_unlink (spoiled);
  g_assert_null (p);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  pattern = g_strdup_printf ("*hostile-pack.tmp.json:*:*: %s*", where);
  g_assert_true (g_pattern_match_simple (pattern, error->message));
}

static void
test_hostile (void)
{
  g_autofree char *dir = scratch_copy ();

  expect_refusal (dir, "\"name\": \"NVIDIA H200\",", "", "device: missing required field 'name'");
  expect_refusal (dir, "\"sms\": 132", "\"sms\": \"132\"", "device.sms");
  expect_refusal (dir, "\"ms\": 1.4503040313720703", "\"ms\": -1.45",
                  "microbenchmarks.matmul_peak.ms");
  expect_refusal (dir, "\"dtype\": \"bf16\",\n   \"ms\"", "\"dtype\": \"bf15\",\n   \"ms\"",
                  "microbenchmarks.matmul_peak.dtype: unknown precision 'bf15'");
  expect_refusal (dir, "\"matmul_fp8\"", "\"matmul_fp7\"",
                  "microbenchmarks.matmul_fp7: unknown precision 'fp7'");
  expect_refusal (dir, "\"trace\": \"prefill.trace.json.gz\"", "\"trace\": \"gone.trace.json.gz\"",
                  "runs[1].trace: 'gone.trace.json.gz' does not exist");
  expect_refusal (dir, "\"model\": \"gpt-2.7b-2-layers.config.json\"", "\"model\": \"nope.json\"",
                  "runs[4].model: 'nope.json' does not exist");
  expect_refusal (dir, "\"measured_ms\": 15.388959884643555", "\"measured_ms\": 1e999",
                  "number 1e999 is out of range");
  expect_refusal (dir, "\"micro_batch\": 16,\n    \"context\": 4096",
                  "\"micro_batch\": 16,\n    \"seq\": 4096", "runs[2].scenario: missing required "
                  "field 'context'");
  expect_refusal (dir, "\"phase\": \"prefill\"", "\"phase\": \"serve\"", "runs[1].scenario.phase");
  expect_refusal (dir, "\"name\": \"decode-eager-4l\"", "\"name\": \"decode-graph-4l\"",
                  "runs[3]: a second run named 'decode-graph-4l'");
  expect_refusal (dir, "\"kind\": \"decode\"", "\"kind\": \"append\"",
                  "microbenchmarks.attention[3].kind");
  expect_refusal (dir, "\"runs\": [", "\"runs\": 3, \"x\": [", "runs");
  scratch_remove (dir);
}

/* The shared pack in @dir with each of @n_spoils (from, to) pairs replaced (@all: every
 * occurrence, else the first), loaded; the error it gives. */
static GError *
load_spoiled (const char *dir, const char * const (*spoils)[2], guint n_spoils, gboolean all)
{
  g_autofree char *path = g_build_filename (dir, "pack.json", NULL);
  g_autofree char *spoiled = g_build_filename (dir, "hostile-pack.tmp.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GString) s = NULL;
  g_autoptr(BpwMeasurementPack) p = NULL;
  GError *error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  s = g_string_new (text);
  for (guint i = 0; i < n_spoils; i++)
    {
      gsize from = 0;
      char *at;

      g_assert_nonnull (strstr (s->str, spoils[i][0]));
      while ((at = strstr (s->str + from, spoils[i][0])) != NULL)
        {
          gsize pos = (gsize) (at - s->str);

          g_string_erase (s, (gssize) pos, (gssize) strlen (spoils[i][0]));
          g_string_insert (s, (gssize) pos, spoils[i][1]);
          from = pos + strlen (spoils[i][1]);
          if (!all)
            break;
        }
    }
  g_assert_true (g_file_set_contents (spoiled, s->str, -1, NULL));
  p = bpw_measurement_pack_load_file (spoiled, NULL, &error);
  g_unlink (spoiled);
  g_assert_null (p);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  return error;
}

/* Three independent problems in three parts of the pack: three located lines, in file
 * order, each with its field's path. */
static void
test_every_problem (void)
{
  static const char * const spoils[][2] = {
    { "\"sms\": 132", "\"sms\": \"132\"" },
    { "\"phase\": \"train\"", "\"phase\": \"tune\"" },
    { "\"seq\": 4096", "\"seq\": -5" },
  };
  g_autofree char *dir = scratch_copy ();
  g_autoptr(GError) error = load_spoiled (dir, spoils, G_N_ELEMENTS (spoils), FALSE);
  g_auto(GStrv) lines = g_strsplit (error->message, "\n", -1);
  static const char * const where[] = { "device.sms", "runs[0].scenario.phase",
                                        "runs[1].scenario.seq" };

  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpuint (g_strv_length (lines), ==, G_N_ELEMENTS (where));
  for (guint i = 0; i < G_N_ELEMENTS (where); i++)
    {
      g_autofree char *pattern = g_strdup_printf ("*hostile-pack.tmp.json:*:*: %s: *", where[i]);

      g_assert_true (g_pattern_match_simple (pattern, lines[i]));
    }
  scratch_remove (dir);
}

/* A problem in every timing: the first 50 are named, then how many more there are. */
static void
test_problems_bounded (void)
{
  static const char * const spoils[][2] = { { "\"ms\": ", "\"ms\": -" } };
  g_autofree char *dir = scratch_copy ();
  g_autofree char *pack = g_build_filename (dir, "pack.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *last = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_times = 0;

  g_assert_true (g_file_get_contents (pack, &text, NULL, NULL));
  for (const char *at = text; (at = strstr (at, "\"ms\": ")) != NULL; at++)
    n_times++;
  g_assert_cmpuint (n_times, >, 50);
  error = load_spoiled (dir, spoils, G_N_ELEMENTS (spoils), TRUE);
  lines = g_strsplit (error->message, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 51);
  for (guint i = 0; i < 50; i++)
    g_assert_true (g_pattern_match_simple ("*hostile-pack.tmp.json:*:*: *.ms: *", lines[i]));
  last = g_strdup_printf ("*hostile-pack.tmp.json: problems not listed: %u more", n_times - 50);
  g_assert_true (g_pattern_match_simple (last, lines[50]));
  scratch_remove (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/core/MeasurementPack/shared", test_shared_pack);
  g_test_add_func ("/bpw/core/MeasurementPack/hostile", test_hostile);
  g_test_add_func ("/bpw/core/MeasurementPack/every-problem", test_every_problem);
  g_test_add_func ("/bpw/core/MeasurementPack/problems-bounded", test_problems_bounded);
  return g_test_run ();
}
