/* bpw-json-writer.c — a small streaming JSON writer that keeps 128-bit integers exact
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-json-writer"

#include "config.h"

#include "bpw-json-writer.h"

#include <math.h>
#include <string.h>

/* need_comma[depth] exists for every depth up to and including the maximum. */
#define BPW_JSON_WRITER_MAX_DEPTH \
  ((guint) (G_SIZEOF_MEMBER (BpwJsonWriter, need_comma) / sizeof (gboolean)) - 1)

static void
bpw_json_writer_indent (BpwJsonWriter *w)
{
  g_string_append_c (w->out, '\n');
  for (guint i = 0; i < w->depth; i++)
    g_string_append (w->out, "  ");
}

/* Escapes per RFC 8259: quote, backslash and every control character. Invalid UTF-8 is
 * repaired (U+FFFD) first, so the output is always a valid JSON text. */
static void
bpw_json_writer_append_escaped (GString    *out,
                                const char *str)
{
  g_autofree char *repaired = NULL;
  const unsigned char *p;

  if (str == NULL)
    str = "";
  if (!g_utf8_validate (str, -1, NULL))
    {
      repaired = g_utf8_make_valid (str, -1);
      str = repaired;
    }

  g_string_append_c (out, '"');
  for (p = (const unsigned char *) str; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\b':
          g_string_append (out, "\\b");
          break;
        case '\f':
          g_string_append (out, "\\f");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          if (*p < 0x20 || *p == 0x7f)
            g_string_append_printf (out, "\\u%04x", (guint) *p);
          else
            g_string_append_c (out, (char) *p);
          break;
        }
    }
  g_string_append_c (out, '"');
}

/* Places the separator, the indentation and the key (inside objects) before a value. */
static void
bpw_json_writer_prefix (BpwJsonWriter *w,
                        const char    *key)
{
  if (w->need_comma[w->depth])
    g_string_append_c (w->out, ',');
  w->need_comma[w->depth] = TRUE;

  if (w->pretty && w->depth > 0)
    bpw_json_writer_indent (w);

  if (key != NULL)
    {
      bpw_json_writer_append_escaped (w->out, key);
      g_string_append (w->out, w->pretty ? ": " : ":");
    }
}

static void
bpw_json_writer_open (BpwJsonWriter *w,
                      const char    *key,
                      char           bracket)
{
  g_return_if_fail (w->depth < BPW_JSON_WRITER_MAX_DEPTH);

  bpw_json_writer_prefix (w, key);
  g_string_append_c (w->out, bracket);
  w->depth++;
  w->need_comma[w->depth] = FALSE;
}

static void
bpw_json_writer_close (BpwJsonWriter *w,
                       char           bracket)
{
  gboolean had_members;

  g_return_if_fail (w->depth > 0);

  had_members = w->need_comma[w->depth];
  w->depth--;
  if (w->pretty && had_members)
    bpw_json_writer_indent (w);
  g_string_append_c (w->out, bracket);
}

void
bpw_json_writer_init (BpwJsonWriter *w,
                      gboolean       pretty)
{
  g_return_if_fail (w != NULL);

  w->out = g_string_new (NULL);
  w->depth = 0;
  memset (w->need_comma, 0, sizeof w->need_comma);
  w->pretty = pretty;
}

/* Returns the text and leaves @w empty; unbalanced containers are a programming error. */
char *
bpw_json_writer_finish (BpwJsonWriter *w)
{
  GString *out;

  g_return_val_if_fail (w != NULL && w->out != NULL, NULL);
  g_warn_if_fail (w->depth == 0);

  out = g_steal_pointer (&w->out);
  if (w->pretty)
    g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

void
bpw_json_writer_begin_object (BpwJsonWriter *w,
                              const char    *key)
{
  bpw_json_writer_open (w, key, '{');
}

void
bpw_json_writer_end_object (BpwJsonWriter *w)
{
  bpw_json_writer_close (w, '}');
}

void
bpw_json_writer_begin_array (BpwJsonWriter *w,
                             const char    *key)
{
  bpw_json_writer_open (w, key, '[');
}

void
bpw_json_writer_end_array (BpwJsonWriter *w)
{
  bpw_json_writer_close (w, ']');
}

void
bpw_json_writer_string (BpwJsonWriter *w,
                        const char    *key,
                        const char    *value)
{
  if (value == NULL)
    {
      bpw_json_writer_null (w, key);
      return;
    }
  bpw_json_writer_prefix (w, key);
  bpw_json_writer_append_escaped (w->out, value);
}

void
bpw_json_writer_int (BpwJsonWriter *w,
                     const char    *key,
                     gint64         value)
{
  bpw_json_writer_prefix (w, key);
  g_string_append_printf (w->out, "%" G_GINT64_FORMAT, value);
}

void
bpw_json_writer_u128 (BpwJsonWriter *w,
                      const char    *key,
                      BpwU128        value)
{
  char digits[40];
  char *p = digits + sizeof digits - 1;

  /* Rendered here rather than through bpw_u128_to_string so that the writer has no
   * dependency beyond GLib. */
  *p = '\0';
  do
    {
      *--p = (char) ('0' + (int) (value % 10));
      value /= 10;
    }
  while (value != 0);

  bpw_json_writer_prefix (w, key);
  g_string_append (w->out, p);
}

/* The shortest %.Ng, N from @min_digits to 17, that reads back to @value, in the C locale
 * (@value finite). */
static void
format_round_trip (char   *buf,
                   gsize   size,
                   double  value,
                   int     min_digits)
{
  for (int digits = min_digits; digits <= 17; digits++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, size, format, value);
      if (g_ascii_strtod (buf, NULL) == value)
        return;
    }
}

/* Shortest of %.15g, %.16g, %.17g that reads back to the same double, formatted in the C
 * locale. JSON has no NaN or Infinity: those are written as null. */
void
bpw_json_writer_double (BpwJsonWriter *w,
                        const char    *key,
                        double         value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    {
      bpw_json_writer_null (w, key);
      return;
    }
  format_round_trip (buf, sizeof buf, value, 15);
  bpw_json_writer_prefix (w, key);
  g_string_append (w->out, buf);
}

void
bpw_json_writer_double_shortest (BpwJsonWriter *w,
                                 const char    *key,
                                 double         value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    {
      bpw_json_writer_null (w, key);
      return;
    }
  format_round_trip (buf, sizeof buf, value, 1);
  bpw_json_writer_prefix (w, key);
  g_string_append (w->out, buf);
  if (strpbrk (buf, ".eEn") == NULL)
    g_string_append (w->out, ".0");
}

void
bpw_json_writer_bool (BpwJsonWriter *w,
                      const char    *key,
                      gboolean       value)
{
  bpw_json_writer_prefix (w, key);
  g_string_append (w->out, value ? "true" : "false");
}

void
bpw_json_writer_null (BpwJsonWriter *w,
                      const char    *key)
{
  bpw_json_writer_prefix (w, key);
  g_string_append (w->out, "null");
}

void
bpw_json_writer_raw (BpwJsonWriter *w,
                     const char    *key,
                     const char    *json)
{
  bpw_json_writer_prefix (w, key);
  g_string_append (w->out, json);
}

static gboolean
bpw_json_writer_is_scalar_array (JsonArray *array)
{
  guint n = json_array_get_length (array);

  for (guint i = 0; i < n; i++)
    {
      JsonNodeType type = JSON_NODE_TYPE (json_array_get_element (array, i));

      if (type != JSON_NODE_VALUE && type != JSON_NODE_NULL)
        return FALSE;
    }
  return TRUE;
}

/* An array of scalars on one line: "[1, 2, 3]". */
static void
bpw_json_writer_scalar_array (BpwJsonWriter *w,
                              const char    *key,
                              JsonArray     *array)
{
  guint n = json_array_get_length (array);
  gboolean pretty = w->pretty;

  bpw_json_writer_open (w, key, '[');
  w->pretty = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (i > 0 && pretty)
        {
          /* The separator ", ": the comma comes from the prefix, the space here. */
          g_string_append (w->out, ", ");
          w->need_comma[w->depth] = FALSE;
        }
      bpw_json_writer_node (w, NULL, json_array_get_element (array, i));
    }
  bpw_json_writer_close (w, ']');
  w->pretty = pretty;
}

void
bpw_json_writer_node (BpwJsonWriter *w,
                      const char    *key,
                      JsonNode      *node)
{
  g_return_if_fail (node != NULL);

  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        bpw_json_writer_begin_object (w, key);
        for (GList *l = members; l != NULL; l = l->next)
          bpw_json_writer_node (w, l->data, json_object_get_member (object, l->data));
        bpw_json_writer_end_object (w);
      }
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        if (bpw_json_writer_is_scalar_array (array))
          {
            bpw_json_writer_scalar_array (w, key, array);
            break;
          }
        bpw_json_writer_begin_array (w, key);
        for (guint i = 0; i < json_array_get_length (array); i++)
          bpw_json_writer_node (w, NULL, json_array_get_element (array, i));
        bpw_json_writer_end_array (w);
      }
      break;
    case JSON_NODE_NULL:
      bpw_json_writer_null (w, key);
      break;
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          bpw_json_writer_int (w, key, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          bpw_json_writer_double_shortest (w, key, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          bpw_json_writer_bool (w, key, json_node_get_boolean (node));
          break;
        case G_TYPE_STRING:
          bpw_json_writer_string (w, key, json_node_get_string (node));
          break;
        default:
          bpw_json_writer_null (w, key);
          break;
        }
      break;
    }
}
