/* bpw-workload-reader.c — helpers shared by the workload readers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Used by the native reader (bpw-workload-io.c) and the Hugging Face one
 * (bpw-workload-hf.c); kept out of the loader so that the readers it dispatches to do not
 * call back into it.
 */
#define G_LOG_DOMAIN "bpw-workload-io"

#include "config.h"

#include "bpw-workload-reader-private.h"

#include "bpw-i18n.h"

gboolean
_bpw_workload_derive_head_dim (BpwJsonDoc   *doc,
                               JsonObject   *object,
                               const char   *path,
                               const char   *heads_key,
                               BpwModelSpec *spec,
                               GError      **error)
{
  g_autofree char *full = NULL;

  if (spec->heads > 0 && spec->hidden % spec->heads == 0)
    {
      spec->head_dim = spec->hidden / spec->heads;
      return TRUE;
    }
  full = *path != '\0' ? g_strdup_printf ("%s.%s", path, heads_key) : g_strdup (heads_key);
  return bpw_json_doc_error (doc, json_object_get_member (object, heads_key), full, error,
                             _("%" PRId64 " heads do not divide the hidden size %"
                               PRId64 "; give the head dimension explicitly"),
                             spec->heads, spec->hidden);
}

gboolean
_bpw_workload_read_index_list (BpwJsonDoc   *doc,
                               JsonObject   *object,
                               const char   *path,
                               const char   *member,
                               gint64        min,
                               gint64        max,
                               gint64        max_count,
                               gint32       *out,
                               gint64       *n,
                               GError      **error)
{
  JsonNode *node = json_object_get_member (object, member);
  g_autofree char *full = *path != '\0' ? g_strdup_printf ("%s.%s", path, member)
                                        : g_strdup (member);
  JsonArray *array;
  guint len;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return bpw_json_doc_error (doc, node, full, error, _("expected an array of layer indices"));
  array = json_node_get_array (node);
  len = json_array_get_length (array);
  if ((gint64) len > max_count)
    return bpw_json_doc_error (doc, node, full, error,
                               _("%u indices, more than the %" PRId64 " supported"), len,
                               max_count);
  for (guint i = 0; i < len; i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      g_autofree char *at = g_strdup_printf ("%s[%u]", full, i);
      gint64 value;

      if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_INT64)
        return bpw_json_doc_error (doc, item, at, error, _("expected an integer layer index"));
      value = json_node_get_int (item);
      if (value < min || value > max)
        return bpw_json_doc_error (doc, item, at, error,
                                   _("index %" PRId64 " is out of range (%" PRId64 " to %"
                                     PRId64 ")"), value, min, max);
      if (i > 0 && value <= out[i - 1])
        return bpw_json_doc_error (doc, item, at, error,
                                   _("index %" PRId64 " does not follow %d: give the indices "
                                     "in increasing order, each once"), value, out[i - 1]);
      out[i] = (gint32) value;
    }
  *n = len;
  return TRUE;
}
