/* bpw-mapping-read-precision.c — a mapping's precision policy, read with locations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The "precision" member: "scenario", or per matmul class a format, scaling, block,
 * keep_bf16 and 2:4 sparsity (bpw-precision-policy.h).
 */
#define G_LOG_DOMAIN "bpw-mapping-read"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-mapping-private.h"
#include "bpw-mapping-reader-private.h"
#include "bpw-error.h"

static const char * const class_precision_keys[] = {
  "format", "scaling", "block", "keep_bf16", "sparsity", "weights", "group", NULL
};
static const char * const weights_choices[] = { "native", "int8", "int4", NULL };
static const char * const sparsity_choices[] = { "dense", "2:4", NULL };
static const char * const scaling_choices[] = {
  "none", "per-tensor", "per-channel", "per-block", NULL
};
static const char * const format_choices[] = {
  "scenario", "bf16", "fp8-e4m3", "fp8-e5m2", "fp4", "int8", NULL
};
/* Weight-only quantisation's rules: a class with weights (not the attention core), at
 * the activation precision, not also 2:4 sparse; a group only with it. */
static gboolean
read_weight_only (BpwMappingReader        *r,
                  JsonObject              *o,
                  const char              *cpath,
                  BpwMatmulClass           cls,
                  const BpwClassPrecision *c,
                  gboolean                 group_given,
                  GError                 **error)
{
  const char *member = NULL, *message = NULL;
  g_autofree char *mpath = NULL;
  JsonNode *at;

  if (c->weights == BPW_WEIGHT_FORMAT_NATIVE)
    {
      if (group_given)
        member = "group", message = _("a group size applies to weight-only quantisation: "
                                      "set \"weights\" to \"int8\" or \"int4\"");
    }
  else if (cls == BPW_MATMUL_CLASS_ATTENTION_CORE)
    member = "weights", message = _("weight-only quantisation stores weights, and the "
                                    "attention score and context matmuls have none");
  else if (bpw_number_format_is_reduced (c->format))
    member = "weights", message = _("weight-only quantisation computes at the activation "
                                    "precision: the class's \"format\" must be \"scenario\" "
                                    "or \"bf16\"");
  else if (c->sparse_2_4)
    member = "weights", message = _("weight-only quantisation of 2:4 sparse weights is not "
                                    "modelled: use one or the other");
  if (member == NULL)
    return TRUE;
  mpath = bpw_json_doc_member_path (cpath, member);
  at = json_object_get_member (o, member);
  return bpw_json_doc_error (r->doc, at != NULL ? at : json_object_get_member (o, "format"),
                             mpath, error, "%s", message);
}

static gboolean
read_class_precision (BpwMappingReader  *r,
                      JsonObject        *o,
                      const char        *cpath,
                      BpwMatmulClass         cls,
                      BpwClassPrecision *c,
                      GError           **error)
{
  int format = c->format, scaling = c->scaling, sparsity = c->sparse_2_4 ? 1 : 0;
  int weights = c->weights;
  gint64 group = 0;

  _bpw_mapping_warn_unknown (r, o, cpath, class_precision_keys);
  if (!bpw_json_doc_get_enum (r->doc, o, cpath, "format", FALSE, format_choices, &format, error)
      || !bpw_json_doc_get_enum (r->doc, o, cpath, "scaling", FALSE, scaling_choices, &scaling,
                                 error)
      || !bpw_json_doc_get_int (r->doc, o, cpath, "block", FALSE, 1, BPW_MAPPING_MAX_TILE,
                                &c->block, error)
      || !bpw_json_doc_get_bool (r->doc, o, cpath, "keep_bf16", FALSE, &c->keep_bf16, error)
      || !bpw_json_doc_get_enum (r->doc, o, cpath, "sparsity", FALSE, sparsity_choices,
                                 &sparsity, error)
      || !bpw_json_doc_get_enum (r->doc, o, cpath, "weights", FALSE, weights_choices,
                                 &weights, error)
      || !bpw_json_doc_get_int (r->doc, o, cpath, "group", FALSE, 1, BPW_WEIGHT_GROUP_MAX,
                                &group, error))
    return FALSE;
  c->format = (BpwNumberFormat) format;
  c->scaling = (BpwScaling) scaling;
  c->sparse_2_4 = sparsity == 1;
  c->weights = (BpwWeightFormat) weights;
  if (group > 0)
    c->group = group;
  else if (c->weights != BPW_WEIGHT_FORMAT_NATIVE && c->group <= 0)
    c->group = BPW_WEIGHT_GROUP_DEFAULT;
  if (!read_weight_only (r, o, cpath, cls, c, group > 0, error))
    return FALSE;
  if (c->scaling == BPW_SCALING_PER_BLOCK && c->block <= 0)
    {
      g_autofree char *spath = bpw_json_doc_member_path (cpath, "scaling");
      JsonNode *at = json_object_get_member (o, "scaling");

      return bpw_json_doc_error (r->doc, at != NULL ? at : json_object_get_member (o, "format"),
                                 spath, error,
                                 _("per-block scaling needs a \"block\" size in elements"));
    }
  if (c->sparse_2_4 && cls == BPW_MATMUL_CLASS_ATTENTION_CORE)
    {
      g_autofree char *spath = bpw_json_doc_member_path (cpath, "sparsity");

      return bpw_json_doc_error (r->doc, json_object_get_member (o, "sparsity"), spath, error,
                                 _("2:4 sparsity prunes weights, and the attention score and "
                                 "context matmuls have none"));
    }
  return TRUE;
}

/* A precision policy's value at @ppath: "scenario" (no policy) or
 * { "<class>": { ... }, ... }, read over @policy. */
static gboolean
read_precision_node (BpwMappingReader   *r,
                     JsonNode           *node,
                     const char         *ppath,
                     BpwPrecisionPolicy *policy,
                     GError            **error)
{
  g_autoptr(GList) members = NULL;
  BpwPrecisionPolicy p = *policy;
  JsonObject *o;

  if (_bpw_mapping_node_is_string (node) && strcmp (json_node_get_string (node), "scenario") == 0)
    {
      bpw_precision_policy_init (policy);
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return _bpw_mapping_fail_got (r, node, ppath, _("\"scenario\" or an object of operation classes"),
                     error);
  o = json_node_get_object (node);
  p.set = TRUE;
  members = json_object_get_members (o);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      g_autofree char *cpath = bpw_json_doc_member_path (ppath, l->data);
      JsonNode *member = json_object_get_member (o, l->data);
      BpwMatmulClass cls;

      if (!bpw_matmul_class_from_string (l->data, &cls))
        return bpw_json_doc_error (r->doc, member, cpath, error,
                                   _("unknown operation class '%s'; expected one of "
                                   "attention_projection, mlp, attention_core, lm_head"),
                                   (const char *) l->data);
      if (!JSON_NODE_HOLDS_OBJECT (member))
        return _bpw_mapping_fail_got (r, member, cpath, _("an object"), error);
      if (!read_class_precision (r, json_node_get_object (member), cpath, cls,
                                 &p.classes[cls], error))
        return FALSE;
    }
  *policy = p;
  return TRUE;
}

gboolean
_bpw_mapping_read_precision (BpwMappingReader   *r,
                             JsonObject         *root,
                             const char         *path,
                             BpwPrecisionPolicy *policy,
                             GError            **error)
{
  g_autofree char *ppath = bpw_json_doc_member_path (path, "precision");
  JsonNode *node;

  if (!bpw_json_doc_get_member (r->doc, root, path, "precision", FALSE, &node, error))
    return FALSE;
  return node == NULL || read_precision_node (r, node, ppath, policy, error);
}

gboolean
bpw_mapping_read_precision_data (const char         *filename,
                                 const char         *data,
                                 gssize              length,
                                 BpwPrecisionPolicy *policy,
                                 GPtrArray          *warnings,
                                 GError            **error)
{
  g_autoptr(BpwJsonDoc) doc = bpw_json_doc_new_from_data (filename, data, length, error);
  BpwMappingReader r = { .doc = doc, .warnings = warnings };

  g_return_val_if_fail (policy != NULL, FALSE);

  return doc != NULL &&
         read_precision_node (&r, bpw_json_doc_get_root (doc), "precision", policy, error);
}
