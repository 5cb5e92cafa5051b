/* test-json-writer.c — BpwJsonWriter: exact integers, escaping, doubles, layout, nodes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-json-writer"

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "bpw-json-writer.h"

/* Parses @text with json-glib; the writer's output must always be valid JSON. */
static JsonNode *
parse (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static void
test_compact_layout (void)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;

  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_int (&w, "a", -3);
  bpw_json_writer_begin_array (&w, "b");
  bpw_json_writer_bool (&w, NULL, TRUE);
  bpw_json_writer_null (&w, NULL);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_begin_array (&w, NULL);
  bpw_json_writer_end_array (&w);
  bpw_json_writer_end_array (&w);
  bpw_json_writer_string (&w, "c", "x");
  bpw_json_writer_end_object (&w);
  text = bpw_json_writer_finish (&w);

  g_assert_cmpstr (text, ==, "{\"a\":-3,\"b\":[true,null,{},[]],\"c\":\"x\"}");
}

static void
test_pretty_layout (void)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_begin_object (&w, "o");
  bpw_json_writer_int (&w, "k", 1);
  bpw_json_writer_end_object (&w);
  bpw_json_writer_begin_array (&w, "e");
  bpw_json_writer_end_array (&w);
  bpw_json_writer_end_object (&w);
  text = bpw_json_writer_finish (&w);

  g_assert_cmpstr (text, ==, "{\n  \"o\": {\n    \"k\": 1\n  },\n  \"e\": []\n}\n");
}

/* 2^127 + 1 and 2^128 - 1, written out by hand: json-glib cannot hold them, so compare text. */
static void
test_u128_exact (void)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;
  BpwU128 max = ~(BpwU128) 0;
  BpwU128 half = ((BpwU128) 1 << 127) + 1;

  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_begin_array (&w, NULL);
  bpw_json_writer_u128 (&w, NULL, 0);
  bpw_json_writer_u128 (&w, NULL, 10);
  bpw_json_writer_u128 (&w, NULL, half);
  bpw_json_writer_u128 (&w, NULL, max);
  bpw_json_writer_int (&w, NULL, G_MININT64);
  bpw_json_writer_end_array (&w);
  text = bpw_json_writer_finish (&w);

  g_assert_cmpstr (text, ==,
                   "[0,10,170141183460469231731687303715884105729,"
                   "340282366920938463463374607431768211455,-9223372036854775808]");
}

static void
test_string_escaping (void)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *array;

  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_begin_array (&w, NULL);
  bpw_json_writer_string (&w, NULL, "q\"b\\s/\n\t\r\b\f\x01\x1f\x7f");
  bpw_json_writer_string (&w, NULL, "\xc3\x97 \xe2\x89\xa5");  /* × ≥ stay as UTF-8 */
  bpw_json_writer_string (&w, NULL, "bad \xff utf8");
  bpw_json_writer_string (&w, NULL, NULL);
  bpw_json_writer_end_array (&w);
  text = bpw_json_writer_finish (&w);

  g_assert_cmpstr (text, ==,
                   "[\"q\\\"b\\\\s/\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\","
                   "\"\xc3\x97 \xe2\x89\xa5\",\"bad \xef\xbf\xbd utf8\",null]");

  root = parse (text);
  array = json_node_get_array (root);
  g_assert_cmpstr (json_array_get_string_element (array, 0), ==,
                   "q\"b\\s/\n\t\r\b\f\x01\x1f\x7f");
}

static void
test_key_escaping (void)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;

  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_int (&w, "a\"b", 1);
  bpw_json_writer_end_object (&w);
  text = bpw_json_writer_finish (&w);
  g_assert_cmpstr (text, ==, "{\"a\\\"b\":1}");
}

/* Each double must read back bit-for-bit, in the shortest of 15, 16 or 17 digits. */
static void
test_double_roundtrip (void)
{
  const double values[] = {
    0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, 2.0 / 3.0, 1e300, 5e-324, 2.2250738585072014e-308,
    123456789.125, -7.5e-7, 0.30000000000000004, 9007199254740993.0, G_MAXDOUBLE,
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      BpwJsonWriter w;
      g_autofree char *text = NULL;
      double back;

      bpw_json_writer_init (&w, FALSE);
      bpw_json_writer_double (&w, NULL, values[i]);
      text = bpw_json_writer_finish (&w);
      back = g_ascii_strtod (text, NULL);
      g_assert_true (memcmp (&back, &values[i], sizeof back) == 0 ||
                     (back == 0.0 && values[i] == 0.0 && signbit (back) == signbit (values[i])));
      g_assert_null (strchr (text, ','));
    }
}

static void
test_double_shortest (void)
{
  struct { double value; const char *text; } cases[] = {
    { 0.1, "0.1" },                                   /* 15 digits suffice */
    { 1.5, "1.5" },
    { 1e21, "1e+21" },
    { 0.30000000000000004, "0.30000000000000004" },   /* needs 17 */
    { 1.0 / 3.0, "0.3333333333333333" },              /* needs 16 */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      BpwJsonWriter w;
      g_autofree char *text = NULL;

      bpw_json_writer_init (&w, FALSE);
      bpw_json_writer_double (&w, NULL, cases[i].value);
      text = bpw_json_writer_finish (&w);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

/* The saved documents' doubles: the fewest digits that read back, kept a double. */
static void
test_double_fewest_digits (void)
{
  struct { double value; const char *text; } cases[] = {
    { 0.05, "0.05" },                                 /* json-glib: 0.050000000000000003 */
    { 1.0, "1.0" },                                   /* reads back a double, not 1 */
    { -2.0, "-2.0" },
    { 100000.0, "1e+05" },                            /* one digit suffices */
    { 123456.0, "123456.0" },
    { 0.30000000000000004, "0.30000000000000004" },
    { 1.0 / 3.0, "0.3333333333333333" },
    { -0.0, "-0.0" },
    { 5e-324, "5e-324" },
    { NAN, "null" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      BpwJsonWriter w;
      g_autofree char *text = NULL;

      bpw_json_writer_init (&w, FALSE);
      bpw_json_writer_double_shortest (&w, NULL, cases[i].value);
      text = bpw_json_writer_finish (&w);
      g_assert_cmpstr (text, ==, cases[i].text);
      if (isfinite (cases[i].value))
        g_assert_true (g_ascii_strtod (text, NULL) == cases[i].value);
    }
}

/* A JsonNode tree: member order kept, scalar arrays on one line, the rest one value a
 * line, between values of the writer's own. */
static void
test_node_pretty (void)
{
  const char *src = "{\"b\": 1, \"a\": [1, 2.5, \"x\", null, true], \"o\": {},"
                    " \"e\": [], \"l\": [{\"k\": 0.1}, [3]], \"d\": 2.0}";
  const char *want =
    "{\n"
    "  \"before\": 1,\n"
    "  \"tree\": {\n"
    "    \"b\": 1,\n"
    "    \"a\": [1, 2.5, \"x\", null, true],\n"
    "    \"o\": {},\n"
    "    \"e\": [],\n"
    "    \"l\": [\n"
    "      {\n"
    "        \"k\": 0.1\n"
    "      },\n"
    "      [3]\n"
    "    ],\n"
    "    \"d\": 2.0\n"
    "  },\n"
    "  \"after\": [7, 8]\n"
    "}\n";
  g_autoptr(JsonNode) tree = json_from_string (src, NULL);
  g_autoptr(JsonNode) after = json_from_string ("[7, 8]", NULL);
  g_autoptr(JsonNode) back = NULL;
  g_autofree char *text = NULL;
  BpwJsonWriter w;

  g_assert_nonnull (tree);
  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_int (&w, "before", 1);
  bpw_json_writer_node (&w, "tree", tree);
  bpw_json_writer_node (&w, "after", after);
  bpw_json_writer_end_object (&w);
  text = bpw_json_writer_finish (&w);
  g_assert_cmpstr (text, ==, want);
  back = parse (text);
  g_assert_true (json_node_equal (json_object_get_member (json_node_get_object (back), "tree"),
                                  tree));
}

/* Compact, a tree is the writer's compact text; 64-bit integers stay exact. */
static void
test_node_compact (void)
{
  g_autoptr(JsonNode) tree = json_from_string ("{\"n\": 9223372036854775807, "
                                               "\"a\": [1, [2, {\"s\": \"q\\\"\"}]]}",
                                               NULL);
  g_autofree char *text = NULL;
  BpwJsonWriter w;

  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_begin_array (&w, NULL);
  bpw_json_writer_node (&w, NULL, tree);
  bpw_json_writer_u128 (&w, NULL, (BpwU128) G_MAXUINT64 * 4);
  bpw_json_writer_end_array (&w);
  text = bpw_json_writer_finish (&w);
  g_assert_cmpstr (text, ==, "[{\"n\":9223372036854775807,\"a\":[1,[2,{\"s\":\"q\\\"\"}]]},"
                             "73786976294838206460]");
}

static void
test_double_non_finite (void)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;

  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_begin_object (&w, NULL);
  bpw_json_writer_double (&w, "nan", NAN);
  bpw_json_writer_double (&w, "inf", INFINITY);
  bpw_json_writer_double (&w, "ninf", -INFINITY);
  bpw_json_writer_end_object (&w);
  text = bpw_json_writer_finish (&w);

  g_assert_cmpstr (text, ==, "{\"nan\":null,\"inf\":null,\"ninf\":null}");
  root = parse (text);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
}

/* Deep but legal nesting: commas are tracked per level. */
static void
test_nesting (void)
{
  BpwJsonWriter w;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonNode *node;
  guint levels = 40;

  bpw_json_writer_init (&w, TRUE);
  for (guint i = 0; i < levels; i++)
    {
      bpw_json_writer_begin_array (&w, NULL);
      bpw_json_writer_int (&w, NULL, i);
    }
  for (guint i = 0; i < levels; i++)
    {
      bpw_json_writer_int (&w, NULL, 1000 + i);
      bpw_json_writer_end_array (&w);
    }
  text = bpw_json_writer_finish (&w);

  root = parse (text);
  node = root;
  for (guint i = 0; i < levels; i++)
    {
      JsonArray *array = json_node_get_array (node);

      g_assert_cmpuint (json_array_get_length (array), ==, i + 1 < levels ? 3 : 2);
      g_assert_cmpint (json_array_get_int_element (array, 0), ==, i);
      g_assert_cmpint (json_array_get_int_element (array, json_array_get_length (array) - 1),
                       ==, 1000 + levels - 1 - i);
      if (i + 1 < levels)
        node = json_array_get_element (array, 1);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bpw/core/BpwJsonWriter/compact-layout", test_compact_layout);
  g_test_add_func ("/bpw/core/BpwJsonWriter/pretty-layout", test_pretty_layout);
  g_test_add_func ("/bpw/core/BpwJsonWriter/u128-exact", test_u128_exact);
  g_test_add_func ("/bpw/core/BpwJsonWriter/string-escaping", test_string_escaping);
  g_test_add_func ("/bpw/core/BpwJsonWriter/key-escaping", test_key_escaping);
  g_test_add_func ("/bpw/core/BpwJsonWriter/double-roundtrip", test_double_roundtrip);
  g_test_add_func ("/bpw/core/BpwJsonWriter/double-shortest", test_double_shortest);
  g_test_add_func ("/bpw/core/BpwJsonWriter/double-non-finite", test_double_non_finite);
  g_test_add_func ("/bpw/core/BpwJsonWriter/double-fewest-digits", test_double_fewest_digits);
  g_test_add_func ("/bpw/core/BpwJsonWriter/node-pretty", test_node_pretty);
  g_test_add_func ("/bpw/core/BpwJsonWriter/node-compact", test_node_compact);
  g_test_add_func ("/bpw/core/BpwJsonWriter/nesting", test_nesting);

  return g_test_run ();
}
