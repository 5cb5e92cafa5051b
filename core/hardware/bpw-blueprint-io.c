/* bpw-blueprint-io.c — loading blueprints: format detection and dispatch to the readers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint-io"

#include "config.h"

#include "bpw-blueprint-io.h"

#include "bpw-blueprint-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-file.h"

BpwBlueprintFormat
bpw_blueprint_detect_format (JsonNode *root)
{
  static const char * const calculon_keys[] = { "matrix", "vector", "mem1", "networks" };
  JsonObject *obj;
  const char *format;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return BPW_BLUEPRINT_FORMAT_UNKNOWN;
  obj = json_node_get_object (root);

  if (json_object_has_member (obj, "format"))
    {
      JsonNode *node = json_object_get_member (obj, "format");

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        {
          format = json_node_get_string (node);
          if (g_strcmp0 (format, "bpw-blueprint") == 0)
            return BPW_BLUEPRINT_FORMAT_NATIVE;
        }
      return BPW_BLUEPRINT_FORMAT_UNKNOWN;
    }

  for (guint i = 0; i < G_N_ELEMENTS (calculon_keys); i++)
    if (!json_object_has_member (obj, calculon_keys[i]))
      return BPW_BLUEPRINT_FORMAT_UNKNOWN;
  return BPW_BLUEPRINT_FORMAT_CALCULON;
}

BpwBlueprint *
bpw_blueprint_load_doc (BpwJsonDoc  *doc,
                        GPtrArray   *warnings,
                        GError     **error)
{
  g_autoptr(BpwBlueprint) bp = NULL;
  JsonNode *root;

  g_return_val_if_fail (doc != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  root = bpw_json_doc_get_root (doc);
  switch (bpw_blueprint_detect_format (root))
    {
    case BPW_BLUEPRINT_FORMAT_NATIVE:
      bp = _bpw_blueprint_read_native (doc, json_node_get_object (root), warnings, error);
      break;
    case BPW_BLUEPRINT_FORMAT_CALCULON:
      bp = _bpw_blueprint_import_calculon (doc, json_node_get_object (root), warnings, error);
      break;
    case BPW_BLUEPRINT_FORMAT_UNKNOWN:
    default:
      bpw_json_doc_error (doc, root, "", error,
                          _("not a blueprint: expected \"format\": \"bpw-blueprint\" or a "
                          "Calculon system file (with matrix, vector, mem1 and networks)"));
      return NULL;
    }
  if (bp == NULL)
    return NULL;

  if (!bpw_blueprint_validate (bp, error))
    {
      g_prefix_error (error, "%s: ", bpw_json_doc_get_filename (doc));
      return NULL;
    }
  if (bp->origin == NULL)
    bp->origin = g_strdup (bpw_json_doc_get_filename (doc));
  return g_steal_pointer (&bp);
}

BpwBlueprint *
bpw_blueprint_load_data (const char  *filename,
                         const char  *data,
                         gssize       length,
                         GPtrArray   *warnings,
                         GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;

  doc = bpw_json_doc_new_from_data (filename, data, length, error);
  if (doc == NULL)
    return NULL;
  return bpw_blueprint_load_doc (doc, warnings, error);
}

BpwBlueprint *
bpw_blueprint_load_file (const char  *path,
                         GPtrArray   *warnings,
                         GError     **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;

  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return NULL;
  return bpw_blueprint_load_doc (doc, warnings, error);
}

gboolean
bpw_blueprint_save_file (const BpwBlueprint *bp,
                         const char         *path,
                         GError            **error)
{
  g_autofree char *json = bpw_blueprint_to_json (bp);

  return bpw_file_replace_contents (path, json, -1, error);
}
