/* fuzz-json-doc.c — libFuzzer target: the strict JSON parser every loader starts with
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A parsed document must locate every node it holds inside the input (lines and columns
 * within the text), and the typed readers must answer each member with a value or a
 * located error.
 */
#define G_LOG_DOMAIN "bpw-fuzz"

#include "config.h"

#include "bpw-fuzz.h"
#include "bpw-json-doc.h"

#include <math.h>

typedef struct
{
  BpwJsonDoc *doc;
  guint       lines;
} Walk;

static void walk_node (Walk *w, JsonNode *node);

static void
walk_member (JsonObject  *object,
             const char  *member,
             JsonNode    *node,
             gpointer     user_data)
{
  Walk *w = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *described = bpw_json_doc_describe_node (node);
  g_autofree char *path = bpw_json_doc_member_path ("root", member);
  gint64 i = 0;
  double d = 0;
  const char *s = NULL;

  bpw_fuzz_assert (g_utf8_validate (member, -1, NULL), "keys are UTF-8");
  bpw_fuzz_assert (g_utf8_validate (described, -1, NULL), "descriptions are UTF-8");
  bpw_fuzz_assert (g_str_has_suffix (path, member), "member paths end with the member");
  /* Each reader either accepts the member or says where and why it does not. */
  if (!bpw_json_doc_get_int (w->doc, object, "root", member, TRUE, G_MININT64, G_MAXINT64, &i,
                             &error))
    bpw_fuzz_check_error (error);
  g_clear_error (&error);
  if (!bpw_json_doc_get_double (w->doc, object, "root", member, TRUE, -G_MAXDOUBLE,
                                G_MAXDOUBLE, &d, &error))
    bpw_fuzz_check_error (error);
  else
    bpw_fuzz_assert (isfinite (d), "doubles read from a document are finite");
  g_clear_error (&error);
  if (!bpw_json_doc_get_string (w->doc, object, "root", member, TRUE, &s, &error))
    bpw_fuzz_check_error (error);
  g_clear_error (&error);
  walk_node (w, node);
}

static void
walk_node (Walk     *w,
           JsonNode *node)
{
  guint line = 0, column = 0;

  bpw_fuzz_assert (bpw_json_doc_locate (w->doc, node, &line, &column),
                   "every node of the document is located");
  bpw_fuzz_assert (line >= 1 && line <= w->lines && column >= 1, "locations are in the text");
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      json_object_foreach_member (json_node_get_object (node), walk_member, w);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        walk_node (w, json_array_get_element (array, i));
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwJsonDoc) doc = NULL;
  Walk w = { NULL, 1 };

  bpw_fuzz_init ();
  doc = bpw_json_doc_new_from_data ("fuzz.json", (const char *) data, (gssize) size, &error);
  if (doc == NULL)
    {
      bpw_fuzz_check_error (error);
      bpw_fuzz_assert (g_str_has_prefix (error->message, "fuzz.json:"),
                       "parse errors name the file");
      return 0;
    }
  for (size_t i = 0; i < size; i++)
    w.lines += data[i] == '\n';
  w.doc = doc;
  bpw_fuzz_assert (bpw_json_doc_get_root (doc) != NULL, "a parsed document has a root");
  walk_node (&w, bpw_json_doc_get_root (doc));
  return 0;
}
