/* bpw-json-doc-get.c — typed, located readers of BpwJsonDoc members
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-json-doc"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-doc-private.h"

/* Doubles whose magnitude stays below 2^53 hold every integer exactly. */
#define EXACT_INT_LIMIT 9007199254740992.0

char *
bpw_json_doc_member_path (const char *path,
                          const char *member)
{
  if (path == NULL || path[0] == '\0')
    return g_strdup (member);
  return g_strconcat (path, ".", member, NULL);
}

/* Shortest of %.15g / %.17g that reads back as @value, so 0.1 prints as "0.1". */
static char *
format_double (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.15g", value);
  if (g_ascii_strtod (buf, NULL) != value)
    g_ascii_formatd (buf, sizeof buf, "%.17g", value);
  return g_strdup (buf);
}

char *
bpw_json_doc_describe_node (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("null");
  if (JSON_NODE_HOLDS_OBJECT (node))
    return g_strdup (_("an object"));
  if (JSON_NODE_HOLDS_ARRAY (node))
    return g_strdup (_("an array"));

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    case G_TYPE_DOUBLE:
      return format_double (json_node_get_double (node));
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (node) ? "true" : "false");
    case G_TYPE_STRING:
      {
        const char *str = json_node_get_string (node);

        /* Long strings are cut so that a message stays one readable line. */
        if (g_utf8_strlen (str, -1) > 40)
          {
            g_autofree char *head = g_utf8_substring (str, 0, 40);

            return g_strdup_printf ("\"%s…\"", head);
          }
        return g_strdup_printf ("\"%s\"", str);
      }
    default:
      return g_strdup (_("a value"));
    }
}

gboolean
bpw_json_doc_get_member (BpwJsonDoc  *doc,
                         JsonObject  *object,
                         const char  *path,
                         const char  *member,
                         gboolean     required,
                         JsonNode   **out,
                         GError     **error)
{
  JsonNode *node;

  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (object != NULL, FALSE);
  g_return_val_if_fail (member != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  node = json_object_get_member (object, member);
  if (node != NULL && JSON_NODE_HOLDS_NULL (node) && !required)
    node = NULL;

  if (node == NULL && required)
    {
      *out = NULL;
      return bpw_json_doc_error (doc, bpw_json_doc_get_object_node (doc, object), path, error,
                                 _("missing required field '%s'"), member);
    }

  *out = node;
  return TRUE;
}

static gboolean member_error (BpwJsonDoc  *doc,
                              JsonNode    *node,
                              const char  *path,
                              const char  *member,
                              GError     **error,
                              const char  *format,
                              ...) G_GNUC_PRINTF (6, 7);

/* A located error about @member's value @node: "FILE:L:C: PATH.MEMBER: MESSAGE". */
static gboolean
member_error (BpwJsonDoc  *doc,
              JsonNode    *node,
              const char  *path,
              const char  *member,
              GError     **error,
              const char  *format,
              ...)
{
  g_autofree char *full = bpw_json_doc_member_path (path, member);
  va_list args;

  va_start (args, format);
  bpw_json_doc_error_valist (doc, node, full, error, format, args);
  va_end (args);
  return FALSE;
}

static gboolean
type_error (BpwJsonDoc  *doc,
            JsonNode    *node,
            const char  *path,
            const char  *member,
            const char  *expected,
            GError     **error)
{
  g_autofree char *got = bpw_json_doc_describe_node (node);

  return member_error (doc, node, path, member, error, _("expected %s, got %s"), expected, got);
}

static gboolean
is_number (JsonNode *node)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

/* _("a positive integer"), "an integer between 1 and 8", ... */
static char *
describe_int_range (gint64 min,
                    gint64 max)
{
  if (max == G_MAXINT64)
    {
      if (min == 1)
        return g_strdup (_("a positive integer"));
      if (min == 0)
        return g_strdup (_("a non-negative integer"));
      if (min == G_MININT64)
        return g_strdup (_("an integer"));
      return g_strdup_printf (_("an integer of at least %" PRId64), min);
    }
  if (min == G_MININT64)
    return g_strdup_printf (_("an integer of at most %" PRId64), max);
  return g_strdup_printf (_("an integer between %" PRId64 " and %" PRId64),
                          min, max);
}

gboolean
bpw_json_doc_get_int (BpwJsonDoc  *doc,
                      JsonObject  *object,
                      const char  *path,
                      const char  *member,
                      gboolean     required,
                      gint64       min,
                      gint64       max,
                      gint64      *out,
                      GError     **error)
{
  g_autofree char *expected = describe_int_range (min, max);
  JsonNode *node;
  gint64 value;

  g_return_val_if_fail (out != NULL, FALSE);

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  if (!is_number (node))
    return type_error (doc, node, path, member, expected, error);

  if (json_node_get_value_type (node) == G_TYPE_INT64)
    {
      value = json_node_get_int (node);
    }
  else
    {
      double d = json_node_get_double (node);

      if (d != floor (d) || fabs (d) >= EXACT_INT_LIMIT)
        return type_error (doc, node, path, member,
                           d != floor (d) ? _("an integer") : expected, error);
      value = (gint64) d;
    }

  if (value < min || value > max)
    return type_error (doc, node, path, member, expected, error);

  *out = value;
  return TRUE;
}

static char *
describe_double_range (double min,
                       double max)
{
  g_autofree char *lo = format_double (min);
  g_autofree char *hi = format_double (max);
  gboolean open_max = max >= G_MAXDOUBLE;
  gboolean open_min = min <= -G_MAXDOUBLE;

  if (open_max && open_min)
    return g_strdup (_("a number"));
  if (open_max && min == G_MINDOUBLE)
    return g_strdup (_("a positive number"));
  if (open_max && min == 0)
    return g_strdup (_("a non-negative number"));
  if (open_max)
    return g_strdup_printf (_("a number of at least %s"), lo);
  if (open_min)
    return g_strdup_printf (_("a number of at most %s"), hi);
  return g_strdup_printf (_("a number between %s and %s"), lo, hi);
}

gboolean
bpw_json_doc_get_double (BpwJsonDoc  *doc,
                         JsonObject  *object,
                         const char  *path,
                         const char  *member,
                         gboolean     required,
                         double       min,
                         double       max,
                         double      *out,
                         GError     **error)
{
  g_autofree char *expected = describe_double_range (min, max);
  JsonNode *node;
  double value;

  g_return_val_if_fail (out != NULL, FALSE);

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  if (!is_number (node))
    return type_error (doc, node, path, member, expected, error);

  value = json_node_get_double (node);  /* converts int64 nodes too */
  if (!isfinite (value) || value < min || value > max)
    return type_error (doc, node, path, member, expected, error);

  *out = value;
  return TRUE;
}

gboolean
bpw_json_doc_get_bool (BpwJsonDoc  *doc,
                       JsonObject  *object,
                       const char  *path,
                       const char  *member,
                       gboolean     required,
                       gboolean    *out,
                       GError     **error)
{
  JsonNode *node;

  g_return_val_if_fail (out != NULL, FALSE);

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return type_error (doc, node, path, member, _("true or false"), error);

  *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
bpw_json_doc_get_string (BpwJsonDoc   *doc,
                         JsonObject   *object,
                         const char   *path,
                         const char   *member,
                         gboolean      required,
                         const char  **out,
                         GError      **error)
{
  JsonNode *node;

  g_return_val_if_fail (out != NULL, FALSE);

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return type_error (doc, node, path, member, _("a string"), error);

  *out = json_node_get_string (node);
  return TRUE;
}

gboolean
bpw_json_doc_get_enum (BpwJsonDoc          *doc,
                       JsonObject          *object,
                       const char          *path,
                       const char          *member,
                       gboolean             required,
                       const char * const  *choices,
                       int                 *out,
                       GError             **error)
{
  g_autoptr(GString) expected = NULL;
  JsonNode *node;

  g_return_val_if_fail (choices != NULL && choices[0] != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *str = json_node_get_string (node);

      for (int i = 0; choices[i] != NULL; i++)
        if (strcmp (str, choices[i]) == 0)
          {
            *out = i;
            return TRUE;
          }
    }

  expected = g_string_new (choices[1] != NULL ? _("one of ") : "");
  for (int i = 0; choices[i] != NULL; i++)
    g_string_append_printf (expected, "%s\"%s\"", i > 0 ? ", " : "", choices[i]);
  return type_error (doc, node, path, member, expected->str, error);
}

JsonObject *
bpw_json_doc_get_object (BpwJsonDoc  *doc,
                         JsonObject  *object,
                         const char  *path,
                         const char  *member,
                         gboolean     required,
                         GError     **error)
{
  JsonNode *node;

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return NULL;
  if (node == NULL)
    return NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      type_error (doc, node, path, member, _(_("an object")), error);
      return NULL;
    }
  return json_node_get_object (node);
}

gboolean
bpw_json_doc_get_section (BpwJsonDoc          *doc,
                          JsonObject          *object,
                          const char          *path,
                          const char          *member,
                          const char * const  *known,
                          GPtrArray           *warnings,
                          JsonObject         **out,
                          char               **out_path,
                          GError             **error)
{
  g_autoptr(GError) local_error = NULL;

  *out = bpw_json_doc_get_object (doc, object, path, member, FALSE, &local_error);
  if (*out == NULL)
    {
      if (local_error == NULL)
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  *out_path = bpw_json_doc_member_path (path, member);
  if (warnings != NULL)
    bpw_json_doc_check_unknown (doc, *out, *out_path, known, warnings);
  return TRUE;
}

JsonArray *
bpw_json_doc_get_array (BpwJsonDoc  *doc,
                        JsonObject  *object,
                        const char  *path,
                        const char  *member,
                        gboolean     required,
                        GError     **error)
{
  JsonNode *node;

  if (!bpw_json_doc_get_member (doc, object, path, member, required, &node, error))
    return NULL;
  if (node == NULL)
    return NULL;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      type_error (doc, node, path, member, _(_("an array")), error);
      return NULL;
    }
  return json_node_get_array (node);
}

void
bpw_json_doc_check_unknown (BpwJsonDoc         *doc,
                            JsonObject         *object,
                            const char         *path,
                            const char * const *known,
                            GPtrArray          *warnings)
{
  g_autoptr(GList) members = NULL;

  g_return_if_fail (doc != NULL);
  g_return_if_fail (object != NULL);
  g_return_if_fail (warnings != NULL);

  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      g_autofree char *full = NULL;
      guint line, column;

      if (known != NULL && g_strv_contains (known, name))
        continue;

      full = bpw_json_doc_member_path (path, name);
      if (bpw_json_doc_locate (doc, json_object_get_member (object, name), &line, &column))
        g_ptr_array_add (warnings, g_strdup_printf (_("%s:%u:%u: %s: unknown field"),
                                                    doc->filename, line, column, full));
      else
        g_ptr_array_add (warnings, g_strdup_printf (_("%s: %s: unknown field"),
                                                    doc->filename, full));
    }
}
