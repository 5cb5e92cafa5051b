/* bpw-blueprint-reader.c — shared helpers of the native and Calculon blueprint readers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Quantities, array elements and unknown-member warnings, read the same way by
 * bpw-blueprint-read.c, bpw-blueprint-read-tier.c and bpw-blueprint-calculon.c. Kept out of
 * the format dispatcher (bpw-blueprint-io.c) so that the readers depend on it and not the
 * other way round.
 */
#define G_LOG_DOMAIN "bpw-blueprint-read"

#include "config.h"

#include "bpw-blueprint-reader-private.h"

#include <math.h>

#include "bpw-i18n.h"

gboolean
_bpw_blueprint_read_value (BpwBlueprintReader *r,
                           JsonObject         *object,
                           const char         *path,
                           const char         *member,
                           gboolean            required,
                           BpwUnit             unit,
                           double              min,
                           double              max,
                           gboolean            integer,
                           BpwSourced         *out,
                           GError            **error)
{
  g_autofree char *source = NULL;
  double value = NAN;  /* the parser never yields NaN, so NaN after the call means absent */
  int kind = -1;

  if (!bpw_json_doc_get_quantity (r->doc, object, path, member, required, unit, min, max,
                                  &value, &source, &kind, error))
    return FALSE;
  if (isnan (value))
    return TRUE;

  /* Every double above 2^53 is whole; the field's own range bounds it (capacities reach
   * 1024 EiB so that Calculon's "unlimited" 80e9 GiB systems load and save). */
  if (integer && value != floor (value))
    {
      g_autofree char *full = bpw_json_doc_member_path (path, member);

      return bpw_json_doc_error (r->doc, json_object_get_member (object, member), full, error,
                                 _("expected a whole number, got %.17g"), value);
    }
  bpw_blueprint_set_value (r->bp, out, value,
                           kind >= 0 && kind < BPW_N_PROVENANCES
                             ? (BpwProvenance) kind : BPW_PROVENANCE_ESTIMATE,
                           source);
  return TRUE;
}

void
_bpw_blueprint_warn_unknown (BpwBlueprintReader *r,
                             JsonObject         *object,
                             const char         *path,
                             const char * const *known)
{
  if (r->warnings != NULL)
    bpw_json_doc_check_unknown (r->doc, object, path, known, r->warnings);
}

/* A node that must be an array element of type string; located error otherwise. */
const char *
_bpw_blueprint_read_string_element (BpwBlueprintReader *r,
                                   JsonNode           *node,
                                   const char         *path,
                                   GError            **error)
{
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_autofree char *got = bpw_json_doc_describe_node (node);

      bpw_json_doc_error (r->doc, node, path, error, _("expected a string, got %s"), got);
      return NULL;
    }
  return json_node_get_string (node);
}

gboolean
_bpw_blueprint_read_number_element (BpwBlueprintReader *r,
                                   JsonNode           *node,
                                   const char         *path,
                                   const char         *what,
                                   double              min,
                                   double              max,
                                   gboolean            open_min,
                                   double             *out,
                                   GError            **error)
{
  double v;

  if (!JSON_NODE_HOLDS_VALUE (node)
      || (json_node_get_value_type (node) != G_TYPE_INT64
          && json_node_get_value_type (node) != G_TYPE_DOUBLE))
    {
      g_autofree char *got = bpw_json_doc_describe_node (node);

      return bpw_json_doc_error (r->doc, node, path, error, _("expected %s, got %s"), what, got);
    }
  v = json_node_get_double (node);
  if (v < min || v > max || (open_min && v == min))
    return bpw_json_doc_error (r->doc, node, path, error, _("expected %s, got %.17g"), what, v);
  *out = v;
  return TRUE;
}
