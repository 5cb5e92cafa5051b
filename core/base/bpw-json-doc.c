/* bpw-json-doc.c — a strict JSON parser that remembers where every value came from
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-json-doc"

#include "config.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-file.h"
#include "bpw-json-doc-private.h"

static gboolean parse_value (BpwJsonParser *self, JsonNode **out);

static void
doc_record (BpwJsonDoc *doc,
            JsonNode   *node,
            guint       line,
            guint       column)
{
  BpwJsonPosition pos = { line, column };

  g_array_append_val (doc->positions, pos);
  g_hash_table_insert (doc->nodes, node, GUINT_TO_POINTER (doc->positions->len));
}

static gboolean
parser_enter (BpwJsonParser *self,
              guint          line,
              guint          column)
{
  if (self->depth >= BPW_JSON_MAX_DEPTH)
    return bpw_json_parser_fail_at (self, line, column, _("nesting deeper than %d levels"),
                                    BPW_JSON_MAX_DEPTH);
  self->depth++;
  bpw_json_parser_advance (self);
  return TRUE;
}

static gboolean
parse_object (BpwJsonParser *self,
              JsonNode      *node)
{
  JsonObject *object = json_object_new ();

  /* The node owns the object from here on, so every error path frees it with the node. */
  json_node_take_object (node, object);
  g_hash_table_insert (self->doc->containers, object, node);

  bpw_json_parser_skip_ws (self);
  if (self->p < self->end && *self->p == '}')
    {
      bpw_json_parser_advance (self);
      return TRUE;
    }

  for (gboolean first = TRUE;; first = FALSE)
    {
      g_autofree char *key = NULL;
      guint key_line, key_column;
      JsonNode *child = NULL;

      bpw_json_parser_skip_ws (self);
      if (self->p >= self->end || *self->p != '"')
        return bpw_json_parser_expected (self, first ? _("a string key or '}'")
                                                     : _("a string key after ','"));

      key_line = self->line;
      key_column = self->column;
      if (!bpw_json_parse_string (self, &key))
        return FALSE;
      if (json_object_has_member (object, key))
        return bpw_json_parser_fail_at (self, key_line, key_column, _("duplicate key '%s'"), key);

      bpw_json_parser_skip_ws (self);
      if (self->p >= self->end || *self->p != ':')
        return bpw_json_parser_expected (self, _("':' after key"));
      bpw_json_parser_advance (self);

      if (!parse_value (self, &child))
        return FALSE;
      json_object_set_member (object, key, child);

      bpw_json_parser_skip_ws (self);
      if (self->p < self->end && *self->p == ',')
        {
          bpw_json_parser_advance (self);
          continue;
        }
      if (self->p < self->end && *self->p == '}')
        {
          bpw_json_parser_advance (self);
          return TRUE;
        }
      return bpw_json_parser_expected (self, _("',' or '}' after member"));
    }
}

static gboolean
parse_array (BpwJsonParser *self,
             JsonNode      *node)
{
  JsonArray *array = json_array_new ();

  json_node_take_array (node, array);
  g_hash_table_insert (self->doc->containers, array, node);

  bpw_json_parser_skip_ws (self);
  if (self->p < self->end && *self->p == ']')
    {
      bpw_json_parser_advance (self);
      return TRUE;
    }

  for (;;)
    {
      JsonNode *child = NULL;

      if (!parse_value (self, &child))
        return FALSE;
      json_array_add_element (array, child);

      bpw_json_parser_skip_ws (self);
      if (self->p < self->end && *self->p == ',')
        {
          bpw_json_parser_advance (self);
          bpw_json_parser_skip_ws (self);
          if (self->p < self->end && *self->p == ']')
            return bpw_json_parser_expected (self, _("a value after ','"));
          continue;
        }
      if (self->p < self->end && *self->p == ']')
        {
          bpw_json_parser_advance (self);
          return TRUE;
        }
      return bpw_json_parser_expected (self, _("',' or ']' after element"));
    }
}

static gboolean
parse_value (BpwJsonParser  *self,
             JsonNode      **out)
{
  guint line, column;
  JsonNode *node = NULL;
  gboolean ok;

  bpw_json_parser_skip_ws (self);
  line = self->line;
  column = self->column;

  if (self->p >= self->end)
    return bpw_json_parser_expected (self, _("a value"));
  if (++self->values > BPW_JSON_MAX_VALUES)
    return bpw_json_parser_fail_at (self, line, column, _("more than %u values in one document; "
                                    "this is not a file the workbench reads"),
                                    BPW_JSON_MAX_VALUES);

  switch (*self->p)
    {
    case '{':
    case '[':
      {
        gboolean is_object = *self->p == '{';

        if (!parser_enter (self, line, column))
          return FALSE;
        node = json_node_new (is_object ? JSON_NODE_OBJECT : JSON_NODE_ARRAY);
        ok = is_object ? parse_object (self, node) : parse_array (self, node);
        self->depth--;
      }
      break;

    case '"':
      {
        g_autofree char *str = NULL;

        ok = bpw_json_parse_string (self, &str);
        if (ok)
          node = json_node_init_string (json_node_alloc (), str);
      }
      break;

    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      ok = bpw_json_parse_number (self, &node);
      break;

    default:
      if (g_ascii_isalpha (*self->p))
        ok = bpw_json_parse_word (self, &node);
      else
        return bpw_json_parser_expected (self, _("a value"));
      break;
    }

  if (!ok)
    {
      g_clear_pointer (&node, json_node_unref);
      return FALSE;
    }

  doc_record (self->doc, node, line, column);
  *out = node;
  return TRUE;
}

/* Line and column of @bad in @data, counted as the parser counts them. */
static void
locate_offset (const char *data,
               const char *bad,
               guint      *line,
               guint      *column)
{
  *line = 1;
  *column = 1;
  for (const char *q = data; q < bad; q++)
    {
      if (*q == '\n')
        {
          (*line)++;
          *column = 1;
        }
      else if (((guchar) *q & 0xC0) != 0x80)
        {
          (*column)++;
        }
    }
}

BpwJsonDoc *
bpw_json_doc_new_from_data (const char  *filename,
                            const char  *data,
                            gssize       length,
                            GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  const char *bad = NULL;
  BpwJsonParser parser = { 0 };

  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (filename == NULL)
    filename = "<data>";
  if (length < 0)
    length = strlen (data);

  if ((gsize) length > BPW_JSON_MAX_SIZE)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: the document is larger than the %d MiB limit"), filename,
                   BPW_JSON_MAX_SIZE >> 20);
      return NULL;
    }

  doc = g_new0 (BpwJsonDoc, 1);
  doc->filename = g_strdup (filename);
  doc->positions = g_array_new (FALSE, FALSE, sizeof (BpwJsonPosition));
  doc->nodes = g_hash_table_new (NULL, NULL);
  doc->containers = g_hash_table_new (NULL, NULL);

  parser.doc = doc;
  parser.p = data;
  parser.end = data + length;
  parser.line = 1;
  parser.column = 1;
  parser.error = error;

  if (!g_utf8_validate_len (data, length, &bad))
    {
      guint line, column;

      locate_offset (data, bad, &line, &column);
      bpw_json_parser_fail_at (&parser, line, column, *bad == '\0' ? _("NUL byte in document")
                               : _("invalid UTF-8"));
      return NULL;
    }

  /* A byte order mark is not part of the text a user sees, so it takes no column. */
  if (length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    parser.p += 3;

  if (!parse_value (&parser, &doc->root))
    return NULL;

  bpw_json_parser_skip_ws (&parser);
  if (parser.p < parser.end)
    {
      bpw_json_parser_expected (&parser, _("end of input after the document"));
      return NULL;
    }

  return g_steal_pointer (&doc);
}

BpwJsonDoc *
bpw_json_doc_new_from_file (const char  *path,
                            GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length;

  g_return_val_if_fail (path != NULL, NULL);

  if (!bpw_file_read (path, BPW_JSON_MAX_SIZE, &contents, &length, error))
    return NULL;
  return bpw_json_doc_new_from_data (path, contents, length, error);
}

void
bpw_json_doc_free (BpwJsonDoc *doc)
{
  if (doc == NULL)
    return;

  g_clear_pointer (&doc->root, json_node_unref);
  g_clear_pointer (&doc->nodes, g_hash_table_unref);
  g_clear_pointer (&doc->containers, g_hash_table_unref);
  g_clear_pointer (&doc->positions, g_array_unref);
  g_free (doc->filename);
  g_free (doc);
}

JsonNode *
bpw_json_doc_get_root (BpwJsonDoc *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);

  return doc->root;
}

const char *
bpw_json_doc_get_filename (BpwJsonDoc *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);

  return doc->filename;
}

gboolean
bpw_json_doc_locate (BpwJsonDoc *doc,
                     JsonNode   *node,
                     guint      *line,
                     guint      *column)
{
  guint index;
  const BpwJsonPosition *pos;

  g_return_val_if_fail (doc != NULL, FALSE);

  if (node == NULL)
    return FALSE;
  index = GPOINTER_TO_UINT (g_hash_table_lookup (doc->nodes, node));
  if (index == 0)
    return FALSE;

  pos = &g_array_index (doc->positions, BpwJsonPosition, index - 1);
  if (line != NULL)
    *line = pos->line;
  if (column != NULL)
    *column = pos->column;
  return TRUE;
}

JsonNode *
bpw_json_doc_get_object_node (BpwJsonDoc *doc,
                              JsonObject *object)
{
  g_return_val_if_fail (doc != NULL, NULL);

  return object != NULL ? g_hash_table_lookup (doc->containers, object) : NULL;
}

JsonNode *
bpw_json_doc_get_array_node (BpwJsonDoc *doc,
                             JsonArray  *array)
{
  g_return_val_if_fail (doc != NULL, NULL);

  return array != NULL ? g_hash_table_lookup (doc->containers, array) : NULL;
}

gboolean
bpw_json_doc_error_valist (BpwJsonDoc  *doc,
                           JsonNode    *node,
                           const char  *path,
                           GError     **error,
                           const char  *format,
                           va_list      args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);
  g_autofree char *where = NULL;
  guint line, column;

  if (node == NULL)
    node = doc->root;

  if (bpw_json_doc_locate (doc, node, &line, &column))
    where = g_strdup_printf ("%s:%u:%u", doc->filename, line, column);
  else
    where = g_strdup (doc->filename);

  if (path != NULL && path[0] != '\0')
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s: %s: %s", where, path, message);
  else
    g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, "%s: %s", where, message);
  return FALSE;
}

gboolean
bpw_json_doc_error (BpwJsonDoc  *doc,
                    JsonNode    *node,
                    const char  *path,
                    GError     **error,
                    const char  *format,
                    ...)
{
  va_list args;

  g_return_val_if_fail (doc != NULL, FALSE);

  va_start (args, format);
  bpw_json_doc_error_valist (doc, node, path, error, format, args);
  va_end (args);
  return FALSE;
}
