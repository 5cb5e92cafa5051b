/* bpw-profile-args.c — best-effort readers of a trace's args and metadata
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Numbers that may come as numeric strings, integers that may be missing, strings that
 * may be anything else: shared by the event reader (bpw-profile-read.c) and the metadata
 * reader (bpw-profile-meta.c), which the event reader runs, so that neither calls back
 * into the other.
 */
#define G_LOG_DOMAIN "bpw-profile-read"

#include "config.h"

#include <math.h>

#include "bpw-profile-private.h"

gboolean
_bpw_profile_parse_number (const char *str,
                           double     *out)
{
  char *end = NULL;

  while (g_ascii_isspace (*str))
    str++;
  if (*str == '\0')
    return FALSE;
  *out = g_ascii_strtod (str, &end);
  while (end != NULL && g_ascii_isspace (*end))
    end++;
  return end != NULL && *end == '\0' && isfinite (*out);
}

/* A best-effort integer from args: a JSON integer or a numeric string; -1 otherwise. Ids,
 * counts and versions are never negative, so a negative one is as unknown as a missing one
 * (and -1 stays the only "unknown" the readers of a profile need to test for). */
gint64
_bpw_profile_arg_int (JsonObject *args,
                      const char *member)
{
  JsonNode *node = args != NULL ? json_object_get_member (args, member) : NULL;
  double v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return -1;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return MAX (json_node_get_int (node), -1);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    v = json_node_get_double (node);
  else if (json_node_get_value_type (node) != G_TYPE_STRING ||
           !_bpw_profile_parse_number (json_node_get_string (node), &v))
    return -1;
  return v >= 0 && v < 9e15 && v == floor (v) ? (gint64) v : -1;
}

double
_bpw_profile_arg_double (JsonObject *args,
                         const char *member)
{
  JsonNode *node = args != NULL ? json_object_get_member (args, member) : NULL;
  double v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NAN;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return _bpw_profile_parse_number (json_node_get_string (node), &v) ? v : NAN;
  if (json_node_get_value_type (node) == G_TYPE_INT64 ||
      json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return json_node_get_double (node);
  return NAN;
}

const char *
_bpw_profile_obj_string (JsonObject *obj,
                         const char *member)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}
