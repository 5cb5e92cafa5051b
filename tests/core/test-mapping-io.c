/* test-mapping-io.c — the native mapping format: sample, errors, warnings, layering
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-error.h"
#include "bpw-mapping.h"
#include "bpw-test-mapping.h"

static void
test_sample_file (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "mappings",
                                                 "gpt3-175b-1024-a100.json", NULL);
  g_autofree char *minimal = g_test_build_filename (G_TEST_DIST, "data", "mappings",
                                                    "minimal.json", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  BpwMapping m, d;

  bpw_mapping_init_defaults (&m);
  g_assert_true (bpw_mapping_load (path, &m, warnings, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);

  /* As written in the file. */
  g_assert_cmpstr (m.name, ==, "gpt3-175b on 1024 A100: TP8 PP8 DP16, SP, ZeRO-1");
  g_assert_cmpint (m.parallel.tp, ==, 8);
  g_assert_cmpint (m.parallel.pp, ==, 8);
  g_assert_cmpint (m.parallel.dp, ==, 16);
  g_assert_true (m.parallel.sp);
  g_assert_cmpint (m.parallel.zero, ==, 1);
  g_assert_cmpint (m.parallel.schedule, ==, BPW_SCHEDULE_INTERLEAVED);
  g_assert_cmpint (m.parallel.interleave, ==, 2);
  g_assert_cmpint (m.micro_batch, ==, 1);
  g_assert_cmpint (m.recompute, ==, BPW_RECOMPUTE_SELECTIVE);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 0);
  g_assert_cmpint (m.tier[BPW_GROUP_PP], ==, 1);
  g_assert_cmpint (m.tier[BPW_GROUP_DP], ==, 1);
  g_assert_cmpint (m.tier[BPW_GROUP_EP], ==, -1);
  g_assert_cmpint (m.algorithm[0], ==, BPW_COLLECTIVE_ALGO_IN_NETWORK);
  g_assert_cmpint (m.algorithm[1], ==, BPW_COLLECTIVE_ALGO_RING);
  g_assert_cmpint (m.algorithm[2], ==, 0);
  g_assert_cmpuint (m.fusion, ==, BPW_FUSION_ATTENTION | BPW_FUSION_BIAS_ACTIVATION
                                  | BPW_FUSION_OPTIMIZER);
  g_assert_false (m.tiling.automatic);
  g_assert_cmpint (m.tiling.m, ==, 128);
  g_assert_cmpint (m.tiling.n, ==, 256);
  g_assert_cmpint (m.tiling.k, ==, 64);
  g_assert_cmpint (m.engine[BPW_PRIM_MATMUL], ==, 0);
  g_assert_cmpint (m.engine[BPW_PRIM_SOFTMAX], ==, 1);
  g_assert_cmpint (m.engine[BPW_PRIM_OPTIMIZER_UPDATE], ==, -1);
  g_assert_cmpint (m.engine[BPW_PRIM_GELU], ==, -1);
  g_assert_cmpint (m.placement[BPW_TENSOR_OPTIMIZER_STATE], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_MASTER_WEIGHT], ==, BPW_PLACEMENT_HOST);
  g_assert_cmpint (m.placement[BPW_TENSOR_ACTIVATION], ==, 2);
  g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, -1);
  g_assert_true (m.dp_overlap);
  g_assert_cmpint (m.tp_overlap, ==, BPW_TP_OVERLAP_RING);
  g_assert_true (m.sp_gather_again);
  bpw_test_mapping_assert_round_trip (&m);

  /* A file with nothing but format and version is the defaults. */
  bpw_mapping_init_defaults (&d);
  g_assert_true (bpw_mapping_load (minimal, &m, warnings, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_mapping_equal (&m, &d));
  bpw_mapping_clear (&m);
  bpw_mapping_clear (&d);
}

typedef struct
{
  const char *file;    /* under tests/data/broken */
  const char *needle;  /* where the error must point */
  const char *path;    /* JSON path in the message */
  const char *detail;  /* a substring of the reason */
} BrokenFile;

static const BrokenFile broken_files[] = {
  { "mapping-bad-tp.json", "-4", "parallel.tp", "expected a positive integer, got -4" },
  { "mapping-newer-version.json", "2,", "version", "newer than this program reads (1)" },
  { "mapping-bad-fusion.json", "\"flash\"", "fusion[1]", "got \"flash\"" },
  { "mapping-bad-tier.json", "9 }", "tiers.dp", "from 0 to 7" },
  { "mapping-unknown-primitive.json", "1\n", "engines.matmull", "unknown primitive 'matmull'" },
  { "mapping-bad-tiling.json", "0,", "tiling.n", "expected an integer between 1 and" },
};

static void
test_broken_files (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (broken_files); i++)
    {
      const BrokenFile *c = &broken_files[i];
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "broken", c->file,
                                                     NULL);
      g_autofree char *text = NULL;
      g_autofree char *prefix = NULL;
      g_autofree char *at = NULL;
      g_autoptr(GError) error = NULL;
      BpwMapping m, before;

      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      at = bpw_test_mapping_location (path, text, c->needle);
      prefix = g_strdup_printf ("%s%s: ", at, c->path);
      bpw_test_mapping_fill_non_default (&m);
      bpw_mapping_copy (&before, &m);
      g_assert_false (bpw_mapping_load (path, &m, NULL, &error));
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_test_message ("%s", error->message);
      if (!g_str_has_prefix (error->message, prefix) || !strstr (error->message, c->detail))
        g_error ("%s: expected \"%s…%s…\", got \"%s\"", c->file, prefix, c->detail,
                 error->message);
      g_assert_null (strchr (error->message, '\n'));
      /* A failed load leaves the mapping as it was. */
      g_assert_true (bpw_mapping_equal (&m, &before));
      bpw_mapping_clear (&m);
      bpw_mapping_clear (&before);
    }
}

typedef struct
{
  const char *json;
  const char *needle;
  const char *path;   /* "" for the document */
  const char *detail;
} BrokenText;

#define HEAD "{\"format\": \"bpw-mapping\", \"version\": 1, "

static const BrokenText broken_texts[] = {
  { HEAD "\"micro_batch\": 0}", "0}", "micro_batch", "positive integer" },
  { HEAD "\"micro_batch\": \"some\"}", "\"some\"", "micro_batch", "or \"auto\"" },
  { HEAD "\"recompute\": \"half\"}", "\"half\"", "recompute", "\"auto\"" },
  { HEAD "\"parallel\": {\"zero\": 4}}", "4}", "parallel.zero", "between 0 and 3" },
  { HEAD "\"parallel\": {\"schedule\": \"zb\"}}", "\"zb\"", "parallel.schedule", "1f1b" },
  { HEAD "\"parallel\": [1]}", "[1]", "parallel", "expected an object" },
  { HEAD "\"tiers\": {\"tp\": \"nvlink\"}}", "\"nvlink\"", "tiers.tp", "need a blueprint" },
  { HEAD "\"tiers\": {\"pp\": 1.5}}", "1.5", "tiers.pp", "an integer" },
  { HEAD "\"tiers\": {\"ep\": -1}}", "-1", "tiers.ep", "or \"auto\"" },
  { HEAD "\"collective_algorithms\": [\"auto\", \"nccl\"]}", "\"nccl\"",
    "collective_algorithms[1]", "\"in-network\"" },
  { HEAD "\"collective_algorithms\": [0,0,0,0,0,0,0,0,0]}", "[0", "collective_algorithms",
    "at most 8 entries" },
  { HEAD "\"fusion\": [\"optimizer\", \"optimizer\"]}", "\"optimizer\"]",
    "fusion[1]", "listed twice" },
  { HEAD "\"fusion\": \"attention\"}", "\"attention\"", "fusion", "an array" },
  { HEAD "\"tiling\": \"big\"}", "\"big\"", "tiling", "\"auto\" or a tile" },
  { HEAD "\"tiling\": {\"m\": 64, \"n\": 64}}", "{\"m\"", "tiling", "missing required field 'k'" },
  { HEAD "\"engines\": {\"matmul\": 64}}", "64}", "engines.matmul", "from 0 to 63" },
  { HEAD "\"placement\": {\"weights\": \"host\"}}", "\"host\"", "placement.weights",
    "unknown tensor kind 'weights'" },
  { HEAD "\"placement\": {\"weight\": \"cxl\"}}", "\"cxl\"", "placement.weight",
    "\"device\" or \"host\"" },
  { HEAD "\"overlap\": {\"tp\": \"full\"}}", "\"full\"", "overlap.tp", "\"pipe\"" },
  { HEAD "\"overlap\": {\"dp\": 1}}", "1}", "overlap.dp", "true or false" },
  { HEAD "\"sp_gather_again\": \"yes\"}", "\"yes\"", "sp_gather_again", "true or false" },
  { HEAD "\"name\": 3}", "3}", "name", "a string" },
  { "{\"format\": \"bpw-workload\", \"version\": 1}", "\"bpw-workload\"", "format",
    "not a mapping file" },
  { "{\"version\": 1}", "{", "", "\"format\": \"bpw-mapping\"" },
  { "{\"format\": \"bpw-mapping\"}", "{", "", "missing required field 'version'" },
  { "[1]", "[", "", "a bpw-mapping object" },
  { "{\"format\": \"bpw-mapping\", \"version\": 99}", "99", "version", "update" },
};

static void
test_broken_texts (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (broken_texts); i++)
    {
      const BrokenText *c = &broken_texts[i];
      g_autofree char *at = bpw_test_mapping_location ("bad.json", c->json, c->needle);
      g_autofree char *prefix = g_strdup_printf ("%s%s%s", at, c->path,
                                                 c->path[0] != '\0' ? ": " : "");
      g_autoptr(GError) error = NULL;
      BpwMapping m;

      bpw_mapping_init_defaults (&m);
      g_assert_false (bpw_mapping_load_data ("bad.json", c->json, -1, &m, NULL, &error));
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_test_message ("%s", error->message);
      if (!g_str_has_prefix (error->message, prefix) || !strstr (error->message, c->detail))
        g_error ("case %u: expected \"%s…%s…\", got \"%s\"", i, prefix, c->detail,
                 error->message);
      bpw_mapping_clear (&m);
    }
}

static void
test_warnings (void)
{
  static const char json[] =
    "{\n"
    "  \"format\": \"bpw-mapping\", \"version\": 1,\n"
    "  \"fusoin\": [],\n"
    "  \"parallel\": { \"tp\": 2, \"cpp\": 2 },\n"
    "  \"tiers\": { \"sp\": 0 },\n"
    "  \"overlap\": { \"pp\": true },\n"
    "  \"tiling\": { \"m\": 8, \"n\": 8, \"k\": 8, \"l\": 8 }\n"
    "}\n";
  static const struct { const char *needle; const char *path; } expected[] = {
    /* In reading order: root, parallel, tiers, tiling, overlap. */
    { "[]", "fusoin" }, { "2 }", "parallel.cpp" }, { "0 }", "tiers.sp" },
    { "8 }", "tiling.l" }, { "true }", "overlap.pp" },
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  BpwMapping m;

  bpw_mapping_init_defaults (&m);
  g_assert_true (bpw_mapping_load_data ("w.json", json, -1, &m, warnings, &error));
  g_assert_no_error (error);
  g_assert_cmpint (m.parallel.tp, ==, 2);
  g_assert_cmpint (m.tiling.m, ==, 8);
  g_assert_cmpuint (warnings->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *at = bpw_test_mapping_location ("w.json", json, expected[i].needle);
      g_autofree char *want = g_strdup_printf ("%s%s: unknown field", at, expected[i].path);

      g_assert_cmpstr (g_ptr_array_index (warnings, i), ==, want);
    }
  /* NULL warnings: the same file loads, nothing is reported anywhere. */
  g_assert_true (bpw_mapping_load_data ("w.json", json, -1, &m, NULL, &error));
  bpw_mapping_clear (&m);
}

/* load_over keeps what the file leaves out; lists replace as a whole. */
static void
test_load_over (void)
{
  static const char json[] =
    "{\"format\": \"bpw-mapping\", \"version\": 1, \"parallel\": {\"dp\": 4},\n"
    " \"tiers\": {\"dp\": 2}, \"collective_algorithms\": [\"tree\"],\n"
    " \"placement\": {\"weight\": 1}, \"overlap\": {\"tp\": \"ring\"}}\n";
  g_autofree char *dir = g_dir_make_tmp ("bpw-mapping-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "over.json", NULL);
  g_autoptr(GError) error = NULL;
  BpwMapping m, want;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  bpw_test_mapping_fill_non_default (&m);
  bpw_mapping_copy (&want, &m);
  want.parallel.dp = 4;
  want.tier[BPW_GROUP_DP] = 2;
  memset (want.algorithm, 0, sizeof want.algorithm);
  want.algorithm[0] = BPW_COLLECTIVE_ALGO_TREE;
  want.placement[BPW_TENSOR_WEIGHT] = 1;
  want.tp_overlap = BPW_TP_OVERLAP_RING;

  g_assert_true (bpw_mapping_load_over (path, &m, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (bpw_mapping_equal (&m, &want));

  /* A plain load of the same file starts from the defaults instead. */
  g_assert_true (bpw_mapping_load (path, &m, NULL, &error));
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, -1);
  g_assert_cmpint (m.parallel.tp, ==, 1);
  g_assert_cmpint (m.parallel.dp, ==, 4);

  g_assert_false (bpw_mapping_load_over ("/nonexistent/m.json", &m, NULL, &error));
  g_assert_nonnull (error);
  g_unlink (path);
  g_rmdir (dir);
  bpw_mapping_clear (&m);
  bpw_mapping_clear (&want);
}

/* With a blueprint, a study candidate's mapping may name tiers, engines and levels. */
static void
test_read_object_blueprint (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_load_bundled ("a100-sxm-80gb", &error);
  g_autoptr(BpwJsonDoc) doc = NULL;
  g_autofree char *json = NULL;
  g_autofree char *bad = NULL;
  BpwMapping m;
  int mx, hbm;

  g_assert_no_error (error);
  g_assert_cmpuint (bp->n_tiers, >=, 2);
  mx = bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX);
  hbm = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  json = g_strdup_printf ("{\"mapping\": {\"tiers\": {\"tp\": \"%s\", \"dp\": \"%s\"},"
                          " \"engines\": {\"matmul\": \"%s\"},"
                          " \"placement\": {\"weight\": \"%s\"}}}",
                          bp->tiers[0].name, bp->tiers[1].name, bp->engines[mx].name,
                          bp->memory[hbm].name);
  doc = bpw_json_doc_new_from_data ("study.json", json, -1, &error);
  g_assert_no_error (error);

  bpw_mapping_init_defaults (&m);
  g_assert_true (bpw_mapping_read_object (doc, json_object_get_object_member (
                                            json_node_get_object (bpw_json_doc_get_root (doc)),
                                            "mapping"),
                                          "candidates[0].mapping", bp, &m, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (m.tier[BPW_GROUP_TP], ==, 0);
  g_assert_cmpint (m.tier[BPW_GROUP_DP], ==, 1);
  g_assert_cmpint (m.tier[BPW_GROUP_PP], ==, -1);
  g_assert_cmpint (m.engine[BPW_PRIM_MATMUL], ==, mx);
  g_assert_cmpint (m.placement[BPW_TENSOR_WEIGHT], ==, hbm);

  /* Without the blueprint the names are refused, at the name, with the full path. */
  g_assert_false (bpw_mapping_read_object (doc, json_object_get_object_member (
                                             json_node_get_object (bpw_json_doc_get_root (doc)),
                                             "mapping"),
                                           "candidates[0].mapping", NULL, &m, NULL, &error));
  bad = g_strdup_printf ("\"%s\"", bp->tiers[0].name);
  {
    g_autofree char *at = bpw_test_mapping_location ("study.json", json, bad);
    g_autofree char *want = g_strdup_printf ("%scandidates[0].mapping.tiers.tp: ", at);

    g_assert_nonnull (error);
    g_assert_true (g_str_has_prefix (error->message, want));
  }
  /* ...and the failed read left the mapping as it was. */
  g_assert_cmpint (m.engine[BPW_PRIM_MATMUL], ==, mx);
  bpw_mapping_clear (&m);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bpw/core/Mapping/sample-file", test_sample_file);
  g_test_add_func ("/bpw/core/Mapping/broken-files", test_broken_files);
  g_test_add_func ("/bpw/core/Mapping/broken-texts", test_broken_texts);
  g_test_add_func ("/bpw/core/Mapping/warnings", test_warnings);
  g_test_add_func ("/bpw/core/Mapping/load-over", test_load_over);
  g_test_add_func ("/bpw/core/Mapping/read-object-blueprint", test_read_object_blueprint);

  return g_test_run ();
}
