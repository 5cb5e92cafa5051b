/* test-calculon-search.c — Calculon's search in C gives Calculon's counts and best lists
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/data/calculon-search/ holds what Calculon's own `llm-optimal-execution` printed and
 * wrote (its 20 best, with all statistics) for gpt3-13B on 4 A100s of its a100_80g system,
 * batch 8 (the whole space), and for gpt3-175B on 1,024, batch 1536, slice by slice (every
 * (TP, PP) pair; README.md there has the exact runs). The port must count the same
 * executions, good and bad, and list the same best executions in the same order, each
 * statistic equal as a double; a slice's list must not depend on threads or shards.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "bpw-calculon-search.h"
#include "bpw-core.h"

typedef struct
{
  BpwCalculonApp    app;
  BpwCalculonSystem system;
} Problem;

static void
problem_load (Problem    *p,
              const char *model)
{
  g_autofree char *model_path = g_test_build_filename (G_TEST_DIST, "data", "calculon-search",
                                                       model, NULL);
  g_autofree char *system_path = g_test_build_filename (G_TEST_DIST, "data", "calculon-search",
                                                        "a100_80g.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  BpwModelSpec spec;
  BpwScenario scenario;

  bpw_model_spec_init_defaults (&spec);
  bpw_scenario_init_defaults (&scenario);
  g_assert_true (bpw_workload_load_full (model_path, 0, &spec, &scenario, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_calculon_app_from_spec (&spec, scenario.seq, &p->app, &error));
  g_assert_no_error (error);
  bp = bpw_blueprint_load (system_path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_calculon_system_from_blueprint (bp, BPW_DTYPE_FP16, &p->system, &error));
  g_assert_no_error (error);
  bpw_model_spec_clear (&spec);
  bpw_scenario_clear (&scenario);
}

static JsonNode *
load_fixture (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "calculon-search", name,
                                                 NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_no_error (error);
  if (g_str_has_suffix (name, ".gz"))
    {
      g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);

      in = g_converter_input_stream_new (raw, G_CONVERTER (gunzip));
    }
  else
    in = g_object_ref (raw);
  g_assert_true (json_parser_load_from_stream (parser, in, NULL, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

/* "Total executions: N" and the like, from what Calculon printed. */
static guint64
printed_count (const char *out_name,
               const char *label)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "calculon-search",
                                                 out_name, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  const char *at;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  at = strstr (text, label);
  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen (label), NULL, 10);
}

/* Our execution's JSON equals Calculon's, key by key. */
static void
assert_execution (const BpwCalculonExecution *exe,
                  JsonObject                 *expected)
{
  g_autofree char *text = bpw_calculon_execution_to_json (exe);
  g_autoptr(JsonNode) ours = json_from_string (text, NULL);
  g_autoptr(GList) members = json_object_get_members (expected);

  g_assert_cmpuint (json_object_get_size (json_node_get_object (ours)), ==,
                    json_object_get_size (expected));
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *a = json_object_get_member (json_node_get_object (ours), l->data);

      g_assert_nonnull (a);
      if (!json_node_equal (a, json_object_get_member (expected, l->data)))
        g_error ("execution %s differs", (const char *) l->data);
    }
}

static void
assert_stats (const BpwCalculonStats *stats,
              JsonObject             *expected)
{
  guint n;
  const BpwCalculonField *fields = bpw_calculon_stats_fields (&n);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_object_get_member (expected, fields[i].name);
      double ours = *(const double *) ((const char *) stats + fields[i].offset);
      double theirs;

      g_assert_nonnull (node);
      theirs = json_node_get_value_type (node) == G_TYPE_INT64 ? (double) json_node_get_int (node)
                                                                : json_node_get_double (node);
      if (ours != theirs)
        g_error ("stat %s: ours %.17g, Calculon's %.17g", fields[i].name, ours, theirs);
    }
}

/* The report's counts and best list are Calculon's printed counts and written list. */
static void
assert_report (const BpwCalculonSearchReport *report,
               const char                    *stem)
{
  g_autofree char *out = g_strdup_printf ("%s.out.txt", stem);
  g_autofree char *json = g_strdup_printf ("%s.json%s", stem,
                                           g_str_has_prefix (stem, "loe-gpt3-175B") ? ".gz" : "");
  g_autoptr(JsonNode) root = load_fixture (json);
  JsonObject *list = json_node_get_object (root);

  g_assert_cmpuint (report->evaluated, ==, printed_count (out, "Total executions: "));
  g_assert_cmpuint (report->good, ==, printed_count (out, "Good executions: "));
  g_assert_cmpuint (report->bad, ==, printed_count (out, "Bad executions: "));
  g_assert_cmpuint (report->best->len, ==, json_object_get_size (list));
  for (guint i = 0; i < report->best->len; i++)
    {
      g_autofree char *key = g_strdup_printf ("%u", i);
      JsonObject *entry = json_object_get_object_member (list, key);
      const BpwCalculonSearchResult *r = &g_array_index (report->best,
                                                         BpwCalculonSearchResult, i);

      assert_execution (&r->exe, json_object_get_object_member (entry, "execution"));
      assert_stats (&r->stats, json_object_get_object_member (entry, "stats"));
    }
}

static BpwCalculonSearchReport *
run_search (const Problem *p,
            gint64         procs,
            gint64         batch,
            gint64         tp,
            gint64         pp,
            guint          threads,
            guint64        shard,
            guint64        shards,
            guint64       *space_size)
{
  g_autoptr(BpwCalculonSpace) space = NULL;
  g_autoptr(GError) error = NULL;
  BpwCalculonSearchOptions options;

  bpw_calculon_search_options_init (&options);
  options.top_n = 20;
  options.tp = tp;
  options.pp = pp;
  options.threads = threads;
  options.shard_index = shard;
  options.shard_count = shards;
  space = bpw_calculon_space_new (&p->app, &p->system, procs, batch, BPW_DTYPE_FP16, &options,
                                  &error);
  g_assert_no_error (error);
  if (space_size != NULL)
    *space_size = bpw_calculon_space_size (space);
  return bpw_calculon_search_run (space, NULL, NULL, NULL);
}

/* gpt3-13B, 4 processors, batch 8: the whole space, as Calculon ran it. */
static void
test_13b_whole (void)
{
  g_autoptr(BpwCalculonSearchReport) report = NULL;
  guint64 size;
  Problem p;

  problem_load (&p, "gpt3-13B.json");
  report = run_search (&p, 4, 8, 0, 0, 0, 0, 1, &size);
  g_assert_cmpuint (size, ==, 60192);
  assert_report (report, "loe-gpt3-13B-4-8");
}

/* 1 and 2 threads, and two shards merged, give the same list; the shards' counts add up. */
static void
test_13b_deterministic (void)
{
  g_autoptr(BpwCalculonSearchReport) one = NULL, two = NULL, a = NULL, b = NULL;
  Problem p;

  problem_load (&p, "gpt3-13B.json");
  one = run_search (&p, 4, 8, 0, 0, 1, 0, 1, NULL);
  two = run_search (&p, 4, 8, 0, 0, 2, 0, 1, NULL);
  a = run_search (&p, 4, 8, 0, 0, 2, 0, 2, NULL);
  b = run_search (&p, 4, 8, 0, 0, 2, 1, 2, NULL);
  g_assert_cmpuint (one->best->len, ==, two->best->len);
  for (guint i = 0; i < one->best->len; i++)
    g_assert_cmpuint (g_array_index (one->best, BpwCalculonSearchResult, i).index, ==,
                      g_array_index (two->best, BpwCalculonSearchResult, i).index);
  g_assert_cmpuint (a->evaluated + b->evaluated, ==, one->evaluated);
  g_assert_cmpuint (a->good + b->good, ==, one->good);
  g_assert_cmpuint (a->end, ==, b->begin);
}

static void
test_175b_slice (gconstpointer data)
{
  const gint64 *slice = data;
  g_autoptr(BpwCalculonSearchReport) report = NULL;
  g_autofree char *stem = g_strdup_printf ("loe-gpt3-175B-1024-1536-tp%" G_GINT64_FORMAT
                                           "-pp%" G_GINT64_FORMAT, slice[0], slice[1]);
  Problem p;

  problem_load (&p, "gpt3-175B.json");
  report = run_search (&p, 1024, 1536, slice[0], slice[1], 0, 0, 1, NULL);
  assert_report (report, stem);
}

int
main (int    argc,
      char **argv)
{
  static const gint64 tps[] = { 1, 2, 4, 8, 16, 32 };
  static const gint64 pps[] = { 1, 2, 4, 8, 16, 32 };
  static gint64 slices[36][2];

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bpw/core/CalculonSearch/gpt3-13B-whole-space", test_13b_whole);
  g_test_add_func ("/bpw/core/CalculonSearch/threads-and-shards", test_13b_deterministic);
  for (guint t = 0; t < G_N_ELEMENTS (tps); t++)
    for (guint q = 0; q < G_N_ELEMENTS (pps); q++)
      {
        gint64 *slice = slices[t * G_N_ELEMENTS (pps) + q];
        g_autofree char *path = NULL;

        slice[0] = tps[t];
        slice[1] = pps[q];
        path = g_strdup_printf ("/bpw/core/CalculonSearch/gpt3-175B-1024/tp%" G_GINT64_FORMAT
                                "-pp%" G_GINT64_FORMAT, slice[0], slice[1]);
        g_test_add_data_func (path, slice, test_175b_slice);
      }
  return g_test_run ();
}
