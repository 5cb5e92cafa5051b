/* test-json-doc.c — the strict, located JSON parser and its typed readers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-json-doc"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "bpw-error.h"
#include "bpw-json-doc.h"

/* Positions below are counted by hand from the text, in characters. */
static void
assert_at (BpwJsonDoc *doc,
           JsonNode   *node,
           guint       line,
           guint       column)
{
  guint l = 0, c = 0;

  g_assert_nonnull (node);
  g_assert_true (bpw_json_doc_locate (doc, node, &l, &c));
  g_assert_cmpuint (l, ==, line);
  g_assert_cmpuint (c, ==, column);
}

static void
test_positions (void)
{
  const char *text =
    "{\n"
    "  \"a\": 1,\n"
    "  \"b\": [true, {\"c\": \"x\"}],\n"
    "  \"\xC3\xA9\": \"\xC3\xBC\", \"d\": null\n"
    "}\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data ("t.json", text, -1, &error);
  JsonObject *root;
  JsonArray *b;
  JsonObject *inner;
  g_autoptr(JsonNode) foreign = json_node_new (JSON_NODE_NULL);
  g_autoptr(JsonObject) foreign_object = json_object_new ();

  g_assert_no_error (error);
  g_assert_cmpstr (bpw_json_doc_get_filename (doc), ==, "t.json");
  assert_at (doc, bpw_json_doc_get_root (doc), 1, 1);

  root = json_node_get_object (bpw_json_doc_get_root (doc));
  assert_at (doc, json_object_get_member (root, "a"), 2, 8);
  assert_at (doc, json_object_get_member (root, "b"), 3, 8);
  b = json_object_get_array_member (root, "b");
  assert_at (doc, json_array_get_element (b, 0), 3, 9);
  assert_at (doc, json_array_get_element (b, 1), 3, 15);
  inner = json_array_get_object_element (b, 1);
  assert_at (doc, json_object_get_member (inner, "c"), 3, 21);
  /* After two-byte characters the column still counts characters. */
  assert_at (doc, json_object_get_member (root, "\xC3\xA9"), 4, 8);
  assert_at (doc, json_object_get_member (root, "d"), 4, 18);
  g_assert_cmpstr (json_object_get_string_member (root, "\xC3\xA9"), ==, "\xC3\xBC");

  g_assert_true (bpw_json_doc_get_object_node (doc, inner) == json_array_get_element (b, 1));
  g_assert_true (bpw_json_doc_get_array_node (doc, b) == json_object_get_member (root, "b"));
  g_assert_false (bpw_json_doc_locate (doc, foreign, NULL, NULL));
  g_assert_null (bpw_json_doc_get_object_node (doc, foreign_object));
}

static void
test_positions_crlf_tab_bom (void)
{
  /* BOM (no column), CRLF line ends, a tab counts as one character. */
  const char *text = "\xEF\xBB\xBF{\"a\": 1,\r\n\t\"b\": \"\xE2\x82\xAC\xE2\x82\xAC\", \"c\": 2}";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data ("t.json", text, -1, &error);
  JsonObject *root;

  g_assert_no_error (error);
  root = json_node_get_object (bpw_json_doc_get_root (doc));
  assert_at (doc, bpw_json_doc_get_root (doc), 1, 1);
  assert_at (doc, json_object_get_member (root, "a"), 1, 7);
  assert_at (doc, json_object_get_member (root, "b"), 2, 7);
  assert_at (doc, json_object_get_member (root, "c"), 2, 18);
}

typedef struct
{
  const char *text;
  gssize      length;
  const char *message;
} SyntaxCase;

static const SyntaxCase syntax_cases[] = {
  { "", -1, "t.json:1:1: expected a value, got end of input" },
  { "   \n  ", -1, "t.json:2:3: expected a value, got end of input" },
  { "{\"a\": 1 \"b\": 2}", -1, "t.json:1:9: expected ',' or '}' after member, got '\"'" },
  { "{\"a\": 1\n  x", -1, "t.json:2:3: expected ',' or '}' after member, got 'x'" },
  { "{\"a\" 1}", -1, "t.json:1:6: expected ':' after key, got '1'" },
  { "{1: 2}", -1, "t.json:1:2: expected a string key or '}', got '1'" },
  { "{\"a\": 1,}", -1, "t.json:1:9: expected a string key after ',', got '}'" },
  { "{\"a\": 1", -1, "t.json:1:8: expected ',' or '}' after member, got end of input" },
  { "[1, 2,]", -1, "t.json:1:7: expected a value after ',', got ']'" },
  { "[1 2]", -1, "t.json:1:4: expected ',' or ']' after element, got '2'" },
  { "[1,\n  x]", -1, "t.json:2:3: expected a value, got 'x'" },
  { "[1,\n", -1, "t.json:2:1: expected a value, got end of input" },
  { "{\"a\": tru}", -1, "t.json:1:7: expected a value, got 'tru'" },
  { "[NaN]", -1, "t.json:1:2: NaN and Infinity are not valid JSON numbers" },
  { "[Infinity]", -1, "t.json:1:2: NaN and Infinity are not valid JSON numbers" },
  { "[-Infinity]", -1, "t.json:1:2: NaN and Infinity are not valid JSON numbers" },
  { "[01]", -1, "t.json:1:2: leading zeros are not allowed in numbers" },
  { "[-01]", -1, "t.json:1:2: leading zeros are not allowed in numbers" },
  { "[1.]", -1, "t.json:1:4: expected a digit after '.', got ']'" },
  { "[1e]", -1, "t.json:1:4: expected a digit in the exponent, got ']'" },
  { "[1e+]", -1, "t.json:1:5: expected a digit in the exponent, got ']'" },
  { "[-]", -1, "t.json:1:3: expected a digit after '-', got ']'" },
  { "[.5]", -1, "t.json:1:2: expected a value, got '.'" },
  { "[+1]", -1, "t.json:1:2: expected a value, got '+'" },
  { "[1e400]", -1, "t.json:1:2: number 1e400 is out of range" },
  { "{} x", -1, "t.json:1:4: expected end of input after the document, got 'x'" },
  { "{}{}", -1, "t.json:1:3: expected end of input after the document, got '{'" },
  { "{\"a\":1}\r\n  ]", -1, "t.json:2:3: expected end of input after the document, got ']'" },
  { "  \"abc", -1, "t.json:1:3: unterminated string" },
  { "[\"a\nb\"]", -1, "t.json:1:4: control character U+000A in string must be escaped" },
  { "[\"\\x\"]", -1, "t.json:1:3: invalid escape '\\x' in string" },
  { "[\"\\u12G4\"]", -1, "t.json:1:3: expected four hex digits after '\\u' in string" },
  { "[\"\\u12\"]", -1, "t.json:1:3: expected four hex digits after '\\u' in string" },
  { "[\"\\uD800\"]", -1, "t.json:1:3: unpaired surrogate '\\uD800' in string" },
  { "[\"\\uD800\\u0041\"]", -1, "t.json:1:3: unpaired surrogate '\\uD800' in string" },
  { "[\"ab\\uDC00\"]", -1, "t.json:1:5: unpaired surrogate '\\uDC00' in string" },
  { "[\"\\u0000\"]", -1, "t.json:1:3: '\\u0000' is not allowed in strings" },
  { "[\"a\xFF\"]", -1, "t.json:1:4: invalid UTF-8" },
  { "[\"\xC3\xA9\xC3\"]", -1, "t.json:1:4: invalid UTF-8" },
  { "[1]\0", 4, "t.json:1:4: NUL byte in document" },
  { "{\"a\": 1, \"a\": 2}", -1, "t.json:1:10: duplicate key 'a'" },
  { "{\"x\": {\"k\": 1,\n \"k\": 2}}", -1, "t.json:2:2: duplicate key 'k'" },
  { "[1,\n\t\"\xC3\xA9\", \xE2\x82\xAC]", -1, "t.json:2:7: expected a value, got '\xE2\x82\xAC'" },
  { "//c\n{}", -1, "t.json:1:1: expected a value, got '/'" },
  { "\x01", -1, "t.json:1:1: expected a value, got U+0001" },
  { "[true false]", -1, "t.json:1:7: expected ',' or ']' after element, got 'f'" },
};

static void
test_syntax_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (syntax_cases); i++)
    {
      const SyntaxCase *c = &syntax_cases[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwJsonDoc) doc = NULL;

      doc = bpw_json_doc_new_from_data ("t.json", c->text, c->length, &error);
      g_test_message ("case %u: %s", i, c->message);
      g_assert_null (doc);
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_assert_cmpstr (error->message, ==, c->message);
    }
}

static char *
nested (guint depth)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (s, i % 2 == 0 ? "[" : "{\"k\":");
  g_string_append (s, "0");
  for (guint i = depth; i > 0; i--)
    g_string_append (s, (i - 1) % 2 == 0 ? "]" : "}");
  return g_string_free (s, FALSE);
}

static void
test_depth_limit (void)
{
  g_autofree char *ok_text = nested (64);
  g_autofree char *bad_text = nested (65);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) ok = bpw_json_doc_new_from_data ("t.json", ok_text, -1, &error);
  g_autoptr(BpwJsonDoc) bad = NULL;
  guint column;

  g_assert_no_error (error);
  g_assert_nonnull (ok);

  /* The 65th opener: 32 "[" and 32 "{\"k\":" before it, so it starts at 32 + 32 * 5 + 1. */
  column = 32 + 32 * 5 + 1;
  bad = bpw_json_doc_new_from_data ("t.json", bad_text, -1, &error);
  g_assert_null (bad);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  {
    g_autofree char *expected = g_strdup_printf ("t.json:1:%u: nesting deeper than 64 levels",
                                                 column);

    g_assert_cmpstr (error->message, ==, expected);
  }
}

static void
test_size_limit (void)
{
  gsize limit = 64 * 1024 * 1024;
  g_autofree char *text = g_malloc (limit + 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = NULL;

  memset (text, ' ', limit + 1);
  text[0] = '1';
  doc = bpw_json_doc_new_from_data ("t.json", text, limit + 1, &error);
  g_assert_null (doc);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpstr (error->message, ==, "t.json: the document is larger than the 64 MiB limit");
  g_clear_error (&error);

  doc = bpw_json_doc_new_from_data ("t.json", text, limit, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_int (bpw_json_doc_get_root (doc)), ==, 1);
}

/* A file under the size limit made of one-character values: refused once it passes the
 * value bound, at the value that passes it, instead of parsed into gigabytes. */
static void
test_value_limit (void)
{
  const guint max = 4u * 1024 * 1024;  /* BPW_JSON_MAX_VALUES */
  GString *text = g_string_sized_new (2 * (gsize) max + 2);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = NULL;
  g_autofree char *expected = NULL;

  /* The array is value 1, its k-th zero value k + 1 at column 2k: zero number max is the
   * value past the bound. */
  g_string_append_c (text, '[');
  for (guint k = 0; k < max; k++)
    g_string_append (text, "0,");
  g_string_append (text, "0]");
  doc = bpw_json_doc_new_from_data ("t.json", text->str, text->len, &error);
  g_assert_null (doc);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  expected = g_strdup_printf ("t.json:1:%u: more than %u values in one document; this is "
                              "not a file the workbench reads", 2 * max, max);
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);

  /* The array and max - 1 zeros, exactly the bound, are read. */
  g_string_truncate (text, 1 + 2 * (gsize) (max - 2) + 1);
  g_string_append_c (text, ']');
  doc = bpw_json_doc_new_from_data ("t.json", text->str, text->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (bpw_json_doc_get_root (doc))),
                    ==, max - 1);
  g_string_free (text, TRUE);
}

static void
test_numbers (void)
{
  const char *text = "[9223372036854775807, -9223372036854775808, 9223372036854775808,"
                     " -9223372036854775809, 1.0, 1e2, -0, 0, 2.5E-3, 123456789012]";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data ("t.json", text, -1, &error);
  JsonArray *a;

  g_assert_no_error (error);
  a = json_node_get_array (bpw_json_doc_get_root (doc));
  g_assert_cmpuint (json_array_get_length (a), ==, 10);

  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 0)), ==, G_TYPE_INT64);
  g_assert_cmpint (json_array_get_int_element (a, 0), ==, G_MAXINT64);
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 1)), ==, G_TYPE_INT64);
  g_assert_cmpint (json_array_get_int_element (a, 1), ==, G_MININT64);
  /* One past either end no longer fits and becomes the nearest double, 2^63. */
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 2)), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_array_get_double_element (a, 2), ==, 9223372036854775808.0);
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 3)), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_array_get_double_element (a, 3), ==, -9223372036854775808.0);
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 4)), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_array_get_double_element (a, 4), ==, 1.0);
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 5)), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_array_get_double_element (a, 5), ==, 100.0);
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 6)), ==, G_TYPE_INT64);
  g_assert_cmpint (json_array_get_int_element (a, 6), ==, 0);
  g_assert_cmpint (json_array_get_int_element (a, 7), ==, 0);
  g_assert_cmpfloat (json_array_get_double_element (a, 8), ==, 0.0025);
  g_assert_cmpint (json_array_get_int_element (a, 9), ==, G_GINT64_CONSTANT (123456789012));
}

static void
test_strings (void)
{
  const char *text = "[\"\\u00e9\", \"\\ud83d\\ude00\", \"\\\"\\\\\\/\\b\\f\\n\\r\\t\","
                     " \"\xE6\x97\xA5\xE6\x9C\xAC\", \"\", \"\\u20AC\"]";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data ("t.json", text, -1, &error);
  JsonArray *a;

  g_assert_no_error (error);
  a = json_node_get_array (bpw_json_doc_get_root (doc));
  g_assert_cmpstr (json_array_get_string_element (a, 0), ==, "\xC3\xA9");
  /* U+1F600 encodes as F0 9F 98 80. */
  g_assert_cmpstr (json_array_get_string_element (a, 1), ==, "\xF0\x9F\x98\x80");
  g_assert_cmpstr (json_array_get_string_element (a, 2), ==, "\"\\/\b\f\n\r\t");
  g_assert_cmpstr (json_array_get_string_element (a, 3), ==, "\xE6\x97\xA5\xE6\x9C\xAC");
  g_assert_cmpstr (json_array_get_string_element (a, 4), ==, "");
  g_assert_cmpstr (json_array_get_string_element (a, 5), ==, "\xE2\x82\xAC");
  /* Columns after a surrogate pair escape: 12 characters of escape, 1 quote each side. */
  {
    g_autoptr(BpwJsonDoc) d2 = bpw_json_doc_new_from_data ("t.json", "[\"\\ud83d\\ude00\", 7]",
                                                           -1, &error);

    g_assert_no_error (error);
    assert_at (d2, json_array_get_element (json_node_get_array (bpw_json_doc_get_root (d2)), 1),
               1, 18);
  }
}

static void
test_scalars_and_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) d1 = bpw_json_doc_new_from_data (NULL, " 42 ", -1, &error);
  g_autoptr(BpwJsonDoc) d2 = NULL;
  g_autoptr(BpwJsonDoc) d3 = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_int (bpw_json_doc_get_root (d1)), ==, 42);
  assert_at (d1, bpw_json_doc_get_root (d1), 1, 2);

  d2 = bpw_json_doc_new_from_data ("t.json", "{ }", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_object_get_size (json_node_get_object (bpw_json_doc_get_root (d2))), ==,
                    0);
  d3 = bpw_json_doc_new_from_data ("t.json", "[[], {}, null, false]", -1, &error);
  g_assert_no_error (error);
}

static void
test_from_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "bpw-test-doc.json", NULL);
  g_autoptr(BpwJsonDoc) doc = NULL;
  g_autofree char *expected = NULL;

  g_assert_true (g_file_set_contents (path, "{\n  \"a\": [1,]\n}", -1, &error));
  doc = bpw_json_doc_new_from_file (path, &error);
  g_assert_null (doc);
  expected = g_strdup_printf ("%s:2:11: expected a value after ',', got ']'", path);
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (path, "", 0, &error));
  doc = bpw_json_doc_new_from_file (path, &error);
  g_assert_null (doc);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (path, "{\"a\": 3}", -1, &error));
  doc = bpw_json_doc_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (doc);
  g_remove (path);

  g_clear_pointer (&doc, bpw_json_doc_free);
  doc = bpw_json_doc_new_from_file (path, &error);
  g_assert_null (doc);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

/* Hand-placed values; see the comment on each member for its column. */
static const char getters_text[] =
  "{\n"
  "  \"model\": {\n"            /* model object at 2:12 */
  "    \"layers\": -4,\n"       /* 3:15 */
  "    \"ratio\": 2.5,\n"       /* 4:14 */
  "    \"big\": 1e6,\n"         /* 5:12 */
  "    \"huge\": 1e20,\n"       /* 6:13 */
  "    \"name\": \"gpt\",\n"    /* 7:13 */
  "    \"flag\": true,\n"       /* 8:13 */
  "    \"n\": null,\n"          /* 9:10 */
  "    \"s\": \"12\",\n"        /* 10:10 */
  "    \"obj\": {},\n"          /* 11:12 */
  "    \"arr\": [1],\n"         /* 12:12 */
  "    \"count\": 12\n"         /* 13:14 */
  "  }\n"
  "}\n";

static void
assert_message (GError     **error,
                const char  *expected)
{
  g_assert_error (*error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_cmpstr ((*error)->message, ==, expected);
  g_clear_error (error);
}

static void
test_getters (void)
{
  static const char * const choices[] = { "gpt", "llama", NULL };
  static const char * const bad_choices[] = { "a", "b", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data ("gpt.json", getters_text, -1, &error);
  JsonObject *root;
  JsonObject *model;
  gint64 i = 77;
  double d = 77;
  gboolean b = FALSE;
  const char *s = NULL;
  int e = -1;

  g_assert_no_error (error);
  root = json_node_get_object (bpw_json_doc_get_root (doc));
  model = bpw_json_doc_get_object (doc, root, "", "model", TRUE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);

  /* Integers. */
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "layers", TRUE, 1, G_MAXINT64, &i,
                                        &error));
  assert_message (&error, "gpt.json:3:15: model.layers: expected a positive integer, got -4");
  g_assert_cmpint (i, ==, 77);
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "ratio", TRUE, 1, G_MAXINT64, &i,
                                        &error));
  assert_message (&error, "gpt.json:4:14: model.ratio: expected an integer, got 2.5");
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "huge", TRUE, 1, G_MAXINT64, &i,
                                        &error));
  assert_message (&error, "gpt.json:6:13: model.huge: expected a positive integer, got 1e+20");
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "s", TRUE, 0, G_MAXINT64, &i,
                                        &error));
  assert_message (&error,
                  "gpt.json:10:10: model.s: expected a non-negative integer, got \"12\"");
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "count", TRUE, 0, 8, &i, &error));
  assert_message (&error, "gpt.json:13:14: model.count: expected an integer between 0 and 8, "
                          "got 12");
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "count", TRUE, 16, G_MAXINT64, &i,
                                        &error));
  assert_message (&error, "gpt.json:13:14: model.count: expected an integer of at least 16, "
                          "got 12");
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "heads", TRUE, 1, G_MAXINT64, &i,
                                        &error));
  assert_message (&error, "gpt.json:2:12: model: missing required field 'heads'");
  g_assert_false (bpw_json_doc_get_int (doc, model, "model", "n", TRUE, 1, G_MAXINT64, &i,
                                        &error));
  assert_message (&error, "gpt.json:9:10: model.n: expected a positive integer, got null");
  g_assert_cmpint (i, ==, 77);

  g_assert_true (bpw_json_doc_get_int (doc, model, "model", "heads", FALSE, 1, 9, &i, &error));
  g_assert_true (bpw_json_doc_get_int (doc, model, "model", "n", FALSE, 1, 9, &i, &error));
  g_assert_no_error (error);
  g_assert_cmpint (i, ==, 77);
  g_assert_true (bpw_json_doc_get_int (doc, model, "model", "big", TRUE, 1, G_MAXINT64, &i,
                                       &error));
  g_assert_cmpint (i, ==, 1000000);
  g_assert_true (bpw_json_doc_get_int (doc, model, "model", "layers", TRUE, G_MININT64,
                                       G_MAXINT64, &i, &error));
  g_assert_cmpint (i, ==, -4);

  /* Doubles. */
  g_assert_true (bpw_json_doc_get_double (doc, model, "model", "ratio", TRUE, 0, 3, &d, &error));
  g_assert_cmpfloat (d, ==, 2.5);
  g_assert_true (bpw_json_doc_get_double (doc, model, "model", "count", TRUE, 0, G_MAXDOUBLE,
                                          &d, &error));
  g_assert_cmpfloat (d, ==, 12.0);
  g_assert_false (bpw_json_doc_get_double (doc, model, "model", "name", TRUE, -G_MAXDOUBLE,
                                           G_MAXDOUBLE, &d, &error));
  assert_message (&error, "gpt.json:7:13: model.name: expected a number, got \"gpt\"");
  g_assert_false (bpw_json_doc_get_double (doc, model, "model", "layers", TRUE, G_MINDOUBLE,
                                           G_MAXDOUBLE, &d, &error));
  assert_message (&error, "gpt.json:3:15: model.layers: expected a positive number, got -4");
  g_assert_false (bpw_json_doc_get_double (doc, model, "model", "ratio", TRUE, 0, 1, &d,
                                           &error));
  assert_message (&error, "gpt.json:4:14: model.ratio: expected a number between 0 and 1, "
                          "got 2.5");
  g_assert_cmpfloat (d, ==, 12.0);

  /* Booleans, strings, enums, containers. */
  g_assert_true (bpw_json_doc_get_bool (doc, model, "model", "flag", TRUE, &b, &error));
  g_assert_true (b);
  g_assert_false (bpw_json_doc_get_bool (doc, model, "model", "count", TRUE, &b, &error));
  assert_message (&error, "gpt.json:13:14: model.count: expected true or false, got 12");
  g_assert_true (bpw_json_doc_get_string (doc, model, "model", "name", TRUE, &s, &error));
  g_assert_cmpstr (s, ==, "gpt");
  g_assert_false (bpw_json_doc_get_string (doc, model, "model", "obj", TRUE, &s, &error));
  assert_message (&error, "gpt.json:11:12: model.obj: expected a string, got an object");
  g_assert_true (bpw_json_doc_get_enum (doc, model, "model", "name", TRUE, choices, &e, &error));
  g_assert_cmpint (e, ==, 0);
  g_assert_false (bpw_json_doc_get_enum (doc, model, "model", "name", TRUE, bad_choices, &e,
                                         &error));
  assert_message (&error, "gpt.json:7:13: model.name: expected one of \"a\", \"b\", got \"gpt\"");
  g_assert_null (bpw_json_doc_get_object (doc, model, "model", "arr", TRUE, &error));
  assert_message (&error, "gpt.json:12:12: model.arr: expected an object, got an array");
  g_assert_null (bpw_json_doc_get_object (doc, model, "model", "absent", FALSE, &error));
  g_assert_no_error (error);
  g_assert_nonnull (bpw_json_doc_get_array (doc, model, "model", "arr", TRUE, &error));
  g_assert_null (bpw_json_doc_get_array (doc, model, "model", "flag", TRUE, &error));
  assert_message (&error, "gpt.json:8:13: model.flag: expected an array, got true");

  /* Errors reported by callers, with and without a node. */
  g_assert_false (bpw_json_doc_error (doc, json_object_get_member (model, "count"), "model.count",
                                      &error, "must divide %d", 7));
  assert_message (&error, "gpt.json:13:14: model.count: must divide 7");
  g_assert_false (bpw_json_doc_error (doc, NULL, NULL, &error, "no model"));
  assert_message (&error, "gpt.json:1:1: no model");
}

static void
test_check_unknown (void)
{
  static const char * const known[] = { "layers", "ratio", "big", "huge", "name", "flag", "n",
                                        "s", "obj", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data ("gpt.json", getters_text, -1, &error);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  JsonObject *model;

  g_assert_no_error (error);
  model = json_object_get_object_member (json_node_get_object (bpw_json_doc_get_root (doc)),
                                         "model");
  bpw_json_doc_check_unknown (doc, model, "model", known, warnings);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==, "gpt.json:12:12: model.arr: unknown field");
  g_assert_cmpstr (g_ptr_array_index (warnings, 1), ==,
                   "gpt.json:13:14: model.count: unknown field");
}

static void
test_describe (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data (
    "t.json", "[0.1, \"0123456789012345678901234567890123456789xyz\"]", -1, &error);
  JsonArray *a = json_node_get_array (bpw_json_doc_get_root (doc));
  g_autofree char *d0 = bpw_json_doc_describe_node (json_array_get_element (a, 0));
  g_autofree char *d1 = bpw_json_doc_describe_node (json_array_get_element (a, 1));
  g_autofree char *p1 = bpw_json_doc_member_path ("a.b", "c");
  g_autofree char *p2 = bpw_json_doc_member_path ("", "c");

  g_assert_cmpstr (d0, ==, "0.1");
  g_assert_cmpstr (d1, ==, "\"0123456789012345678901234567890123456789\xE2\x80\xA6\"");
  g_assert_cmpstr (p1, ==, "a.b.c");
  g_assert_cmpstr (p2, ==, "c");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/JsonDoc/positions", test_positions);
  g_test_add_func ("/bpw/core/JsonDoc/positions-crlf-tab-bom", test_positions_crlf_tab_bom);
  g_test_add_func ("/bpw/core/JsonDoc/syntax-errors", test_syntax_errors);
  g_test_add_func ("/bpw/core/JsonDoc/depth-limit", test_depth_limit);
  g_test_add_func ("/bpw/core/JsonDoc/size-limit", test_size_limit);
  g_test_add_func ("/bpw/core/JsonDoc/value-limit", test_value_limit);
  g_test_add_func ("/bpw/core/JsonDoc/numbers", test_numbers);
  g_test_add_func ("/bpw/core/JsonDoc/strings", test_strings);
  g_test_add_func ("/bpw/core/JsonDoc/scalars-and-empty", test_scalars_and_empty);
  g_test_add_func ("/bpw/core/JsonDoc/from-file", test_from_file);
  g_test_add_func ("/bpw/core/JsonDoc/getters", test_getters);
  g_test_add_func ("/bpw/core/JsonDoc/check-unknown", test_check_unknown);
  g_test_add_func ("/bpw/core/JsonDoc/describe", test_describe);

  return g_test_run ();
}
