/* bpw-json-dump.c — JSON text from a JsonNode tree, with shortest round-trip doubles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-json-dump"

#include "config.h"

#include "bpw-json-dump-private.h"

#include <math.h>
#include <string.h>

static void bpw_json_dump_value (GString *out, JsonNode *node, guint depth);

static void
bpw_json_dump_indent (GString *out,
                      guint    depth)
{
  for (guint i = 0; i < depth; i++)
    g_string_append (out, "  ");
}

static void
bpw_json_dump_string (GString    *out,
                      const char *str)
{
  g_string_append_c (out, '"');
  for (const char *p = str; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (c)
        {
        case '"':  g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        default:
          if (c < 0x20)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, (char) c);
        }
    }
  g_string_append_c (out, '"');
}

static void
bpw_json_dump_double (GString *out,
                      double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char fmt[8];

  /* JSON has no NaN or infinity; the readers refuse them, so never write them. */
  if (!isfinite (value))
    {
      g_string_append (out, "null");
      return;
    }
  for (int digits = 1; digits <= 17; digits++)
    {
      g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, fmt, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  g_string_append (out, buf);
  /* Keep a double a double when read back ("weight": 1.0, not 1). */
  if (strpbrk (buf, ".eEn") == NULL)
    g_string_append (out, ".0");
}

static gboolean
bpw_json_dump_is_scalar_array (JsonArray *array)
{
  guint n = json_array_get_length (array);

  for (guint i = 0; i < n; i++)
    if (JSON_NODE_TYPE (json_array_get_element (array, i)) != JSON_NODE_VALUE
        && JSON_NODE_TYPE (json_array_get_element (array, i)) != JSON_NODE_NULL)
      return FALSE;
  return TRUE;
}

static void
bpw_json_dump_object (GString    *out,
                      JsonObject *object,
                      guint       depth)
{
  g_autoptr(GList) members = json_object_get_members (object);

  if (members == NULL)
    {
      g_string_append (out, "{}");
      return;
    }
  g_string_append (out, "{\n");
  for (GList *l = members; l != NULL; l = l->next)
    {
      bpw_json_dump_indent (out, depth + 1);
      bpw_json_dump_string (out, l->data);
      g_string_append (out, ": ");
      bpw_json_dump_value (out, json_object_get_member (object, l->data), depth + 1);
      if (l->next != NULL)
        g_string_append_c (out, ',');
      g_string_append_c (out, '\n');
    }
  bpw_json_dump_indent (out, depth);
  g_string_append_c (out, '}');
}

static void
bpw_json_dump_array (GString   *out,
                     JsonArray *array,
                     guint      depth)
{
  guint n = json_array_get_length (array);
  gboolean inline_array = bpw_json_dump_is_scalar_array (array);

  if (n == 0)
    {
      g_string_append (out, "[]");
      return;
    }
  g_string_append (out, inline_array ? "[" : "[\n");
  for (guint i = 0; i < n; i++)
    {
      if (!inline_array)
        bpw_json_dump_indent (out, depth + 1);
      bpw_json_dump_value (out, json_array_get_element (array, i), depth + 1);
      if (i + 1 < n)
        g_string_append (out, inline_array ? ", " : ",");
      if (!inline_array)
        g_string_append_c (out, '\n');
    }
  if (!inline_array)
    bpw_json_dump_indent (out, depth);
  g_string_append_c (out, ']');
}

static void
bpw_json_dump_value (GString  *out,
                     JsonNode *node,
                     guint     depth)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      bpw_json_dump_object (out, json_node_get_object (node), depth);
      break;
    case JSON_NODE_ARRAY:
      bpw_json_dump_array (out, json_node_get_array (node), depth);
      break;
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          bpw_json_dump_double (out, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          bpw_json_dump_string (out, json_node_get_string (node));
          break;
        default:
          g_string_append (out, "null");
        }
    }
}

char *
_bpw_json_dump (JsonNode *node)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (node != NULL, NULL);

  bpw_json_dump_value (out, node, 0);
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}
