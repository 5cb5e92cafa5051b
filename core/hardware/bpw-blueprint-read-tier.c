/* bpw-blueprint-read-tier.c — interconnect tiers and capabilities in the native blueprint format
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint-read"

#include "config.h"

#include <inttypes.h>

#include <string.h>

#include "bpw-blueprint-private.h"
#include "bpw-i18n.h"

static const char * const topology_choices[] = {
  "switch", "full-mesh", "ring", "torus", "fat-tree", "rail-optimized", NULL
};

#define INF G_MAXDOUBLE

static gboolean
bpw_blueprint_read_op_factors (BpwBlueprintReader *r,
                               JsonObject         *parent,
                               const char         *path,
                               BpwTier            *t,
                               GError            **error)
{
  g_autofree char *opath = bpw_json_doc_member_path (path, "op_factors");
  g_autoptr(GList) members = NULL;
  GError *local = NULL;
  JsonObject *obj = bpw_json_doc_get_object (r->doc, parent, path, "op_factors", FALSE, &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (obj == NULL)
    return TRUE;
  members = json_object_get_members (obj);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (obj, l->data);
      g_autofree char *p = bpw_json_doc_member_path (opath, l->data);
      BpwOpFactor *f = NULL;
      JsonArray *pair;
      JsonNode *off;

      for (guint k = 0; k < BPW_N_COLLECTIVES; k++)
        if (strcmp (bpw_op_factor_key (k), l->data) == 0)
          f = &t->ops[k];
      if (f == NULL)
        return bpw_json_doc_error (r->doc, node, p, error, _("unknown collective; expected "
                                   "all_reduce, reduce_scatter, all_gather, all_to_all or p2p"));
      if (!JSON_NODE_HOLDS_ARRAY (node)
          || json_array_get_length (pair = json_node_get_array (node)) != 2)
        return bpw_json_doc_error (r->doc, node, p, error,
                                   _("expected a pair [scalar, offset or null]"));
      if (!_bpw_blueprint_read_number_element (r, json_array_get_element (pair, 0), p,
                                              _("a positive scalar of at most 1000"), 0,
                                              BPW_BLUEPRINT_MAX_OP_FACTOR, TRUE, &f->scalar,
                                              error))
        return FALSE;
      off = json_array_get_element (pair, 1);
      f->has_offset = !JSON_NODE_HOLDS_NULL (off);
      if (f->has_offset
          && !_bpw_blueprint_read_number_element (r, off, p,
                                                 _("an offset (a number between -1000 and 1000, "
                                                   "or null)"),
                                                 -BPW_BLUEPRINT_MAX_OP_FACTOR,
                                                 BPW_BLUEPRINT_MAX_OP_FACTOR, FALSE, &f->offset, error))
        return FALSE;
      f->set = TRUE;
    }
  return TRUE;
}

/* "dimensions": a count (3), or a torus's size along each dimension ([4, 4, 4]), whose
 * product must be the tier's size (read before it). */
static gboolean
bpw_blueprint_read_dimensions (BpwBlueprintReader *r,
                               JsonObject         *obj,
                               const char         *path,
                               BpwTier            *t,
                               GError            **error)
{
  g_autofree char *dpath = bpw_json_doc_member_path (path, "dimensions");
  JsonNode *node = json_object_get_member (obj, "dimensions");
  JsonArray *sizes;
  guint n;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return bpw_json_doc_get_int (r->doc, obj, path, "dimensions", FALSE, 1,
                                 BPW_TIER_MAX_DIMENSIONS, &t->dimensions, error);
  if (t->topology != BPW_TOPOLOGY_TORUS)
    return bpw_json_doc_error (r->doc, node, dpath, error, _("sizes per dimension describe a "
                               "torus; give this %s tier a count of dimensions, or none"),
                               bpw_topology_to_string (t->topology));
  sizes = json_node_get_array (node);
  n = json_array_get_length (sizes);
  if (n < 1 || n > BPW_TIER_MAX_DIMENSIONS)
    return bpw_json_doc_error (r->doc, node, dpath, error, _("expected 1 to %d sizes, one per "
                               "dimension, got %u"), BPW_TIER_MAX_DIMENSIONS, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s[%u]", dpath, i);
      double v;

      if (!_bpw_blueprint_read_number_element (r, json_array_get_element (sizes, i), p,
                                              _("a whole number of devices from 1 to 16777216"),
                                              1, BPW_BLUEPRINT_MAX_TIER_SIZE, FALSE, &v, error))
        return FALSE;
      if (v != (double) (gint64) v)
        return bpw_json_doc_error (r->doc, json_array_get_element (sizes, i), p, error,
                                   _("expected a whole number of devices, got %.17g"), v);
      t->shape[i] = (gint64) v;
    }
  t->dimensions = n;
  if (!bpw_tier_shape_valid (t))
    {
      gint64 product = bpw_tier_shape_devices (t);

      if (product == 0)
        return bpw_json_doc_error (r->doc, node, dpath, error, _("the sizes multiply to more "
                                   "than 16777216 devices"));
      return bpw_json_doc_error (r->doc, node, dpath, error, _("the sizes multiply to %"
                                 PRId64 " devices, but the tier's size is %.0f"),
                                 product, t->size.value);
    }
  return TRUE;
}

gboolean
_bpw_blueprint_read_tier (BpwBlueprintReader *r,
                         JsonNode           *node,
                         const char         *path,
                         GError            **error)
{
  static const char * const known[] = {
    "name", "topology", "dimensions", "size", "bandwidth", "links", "latency", "efficiency",
    "energy_per_byte", "processor_usage", "collectives", "op_factors", "must_be_filled",
    "oversubscription", "rail_size", "notes", NULL
  };
  g_autofree char *cpath = bpw_json_doc_member_path (path, "collectives");
  const char *name = NULL;
  GError *local = NULL;
  int topology = 0;
  JsonObject *obj;
  JsonArray *algos;
  guint idx;
  BpwTier *t;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return bpw_json_doc_error (r->doc, node, path, error, _("expected a tier object"));
  obj = json_node_get_object (node);
  _bpw_blueprint_warn_unknown (r, obj, path, known);
  if (!bpw_json_doc_get_string (r->doc, obj, path, "name", TRUE, &name, error)
      || !bpw_json_doc_get_enum (r->doc, obj, path, "topology", TRUE, topology_choices,
                                 &topology, error))
    return FALSE;
  if (bpw_blueprint_lookup_tier (r->bp, name) >= 0)
    return bpw_json_doc_error (r->doc, json_object_get_member (obj, "name"), path, error,
                               _("tier name \"%s\" is used twice"), name);

  idx = bpw_blueprint_add_tier (r->bp, name, topology);
  t = &r->bp->tiers[idx];  /* index first: add may move the array */
  if (!_bpw_blueprint_read_value (r, obj, path, "size", TRUE, BPW_UNIT_NONE, 1,
                                     BPW_BLUEPRINT_MAX_TIER_SIZE, TRUE,
                                     &t->size, error)
      || !_bpw_blueprint_read_value (r, obj, path, "bandwidth", TRUE, BPW_UNIT_BYTES_PER_S,
                                     BPW_BLUEPRINT_MIN_BANDWIDTH, BPW_BLUEPRINT_MAX_BANDWIDTH, FALSE, &t->bandwidth, error)
      || !_bpw_blueprint_read_value (r, obj, path, "links", FALSE, BPW_UNIT_NONE, 1,
                                     BPW_BLUEPRINT_MAX_COUNT, TRUE,
                                     &t->links, error)
      || !_bpw_blueprint_read_value (r, obj, path, "latency", FALSE, BPW_UNIT_SECONDS, 0,
                                     BPW_BLUEPRINT_MAX_LATENCY, FALSE, &t->latency, error)
      || !_bpw_blueprint_read_value (r, obj, path, "efficiency", FALSE, BPW_UNIT_NONE,
                                     BPW_BLUEPRINT_MIN_EFFICIENCY, 1,
                                     FALSE, &t->efficiency, error)
      || !_bpw_blueprint_read_value (r, obj, path, "energy_per_byte", FALSE,
                                     BPW_UNIT_JOULES_PER_BYTE, 0, BPW_BLUEPRINT_MAX_ENERGY, FALSE,
                                     &t->energy_per_byte, error)
      || !_bpw_blueprint_read_value (r, obj, path, "processor_usage", FALSE, BPW_UNIT_NONE, 0,
                                     0.999999, FALSE, &t->processor_usage, error)
      || !_bpw_blueprint_read_value (r, obj, path, "oversubscription", FALSE, BPW_UNIT_NONE, 1,
                                     BPW_TIER_MAX_OVERSUBSCRIPTION, FALSE, &t->oversubscription,
                                     error)
      || !_bpw_blueprint_read_value (r, obj, path, "rail_size", FALSE, BPW_UNIT_NONE, 1,
                                     BPW_BLUEPRINT_MAX_TIER_SIZE, TRUE, &t->rail_size, error)
      || !bpw_blueprint_read_dimensions (r, obj, path, t, error)
      || !bpw_json_doc_get_bool (r->doc, obj, path, "must_be_filled", FALSE, &t->must_be_filled,
                                 error)
      || !bpw_blueprint_read_op_factors (r, obj, path, t, error))
    return FALSE;

  if (r->bp->n_tiers > 1 && t->size.value < r->bp->tiers[r->bp->n_tiers - 2].size.value)
    {
      g_autofree char *spath = bpw_json_doc_member_path (path, "size");

      return bpw_json_doc_error (r->doc, json_object_get_member (obj, "size"), spath, error,
                                 _("a tier must hold at least as many devices as the tier "
                                 "before it (%.0f); list tiers innermost first"),
                                 r->bp->tiers[r->bp->n_tiers - 2].size.value);
    }
  if (t->rail_size.set
      && (t->topology != BPW_TOPOLOGY_RAIL_OPTIMIZED || t->rail_size.value > t->size.value))
    {
      g_autofree char *rpath = bpw_json_doc_member_path (path, "rail_size");

      return bpw_json_doc_error (r->doc, json_object_get_member (obj, "rail_size"), rpath, error,
                                 t->topology != BPW_TOPOLOGY_RAIL_OPTIMIZED
                                 ? _("a rail size belongs to a rail-optimized tier")
                                 : _("a rail switch cannot join more nodes than the tier has "
                                     "devices"));
    }

  algos = bpw_json_doc_get_array (r->doc, obj, path, "collectives", FALSE, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  for (guint i = 0; algos != NULL && i < json_array_get_length (algos); i++)
    {
      JsonNode *an = json_array_get_element (algos, i);
      g_autofree char *p = g_strdup_printf ("%s[%u]", cpath, i);
      const char *aname = _bpw_blueprint_read_string_element (r, an, p, error);
      BpwCollectiveAlgo algo;

      if (aname == NULL)
        return FALSE;
      if (!bpw_collective_algo_from_string (aname, &algo))
        return bpw_json_doc_error (r->doc, an, p, error, _("unknown collective implementation "
                                   "\"%s\"; expected ring, tree, in-network or direct"), aname);
      t->collectives |= algo;
    }
  return TRUE;
}

gboolean
_bpw_blueprint_read_capabilities (BpwBlueprintReader *r,
                                 JsonObject         *root,
                                 GError            **error)
{
  static const char * const known[] = { "dtypes", "sparsity", "notes", NULL };
  GError *local = NULL;
  JsonObject *obj = bpw_json_doc_get_object (r->doc, root, "", "capabilities", FALSE, &local);
  JsonArray *arr;

  if (local == NULL && obj != NULL)
    {
      _bpw_blueprint_warn_unknown (r, obj, "capabilities", known);
      arr = bpw_json_doc_get_array (r->doc, obj, "capabilities", "dtypes", FALSE, &local);
      for (guint i = 0; local == NULL && arr != NULL && i < json_array_get_length (arr); i++)
        {
          JsonNode *n = json_array_get_element (arr, i);
          g_autofree char *p = g_strdup_printf ("capabilities.dtypes[%u]", i);
          const char *s = _bpw_blueprint_read_string_element (r, n, p, error);
          BpwPrecision prec;

          if (s == NULL)
            return FALSE;
          if (!bpw_precision_from_string (s, &prec))
            return bpw_json_doc_error (r->doc, n, p, error, _("unknown precision \"%s\"; expected "
                                       "fp32, tf32, bf16, fp16, fp8, int8 or fp4"), s);
          r->bp->precisions |= 1u << prec;
        }
      arr = local == NULL
            ? bpw_json_doc_get_array (r->doc, obj, "capabilities", "sparsity", FALSE, &local)
            : NULL;
      for (guint i = 0; local == NULL && arr != NULL && i < json_array_get_length (arr); i++)
        {
          JsonNode *n = json_array_get_element (arr, i);
          g_autofree char *p = g_strdup_printf ("capabilities.sparsity[%u]", i);
          const char *s = _bpw_blueprint_read_string_element (r, n, p, error);

          if (s == NULL)
            return FALSE;
          if (strcmp (s, "2:4") != 0)
            return bpw_json_doc_error (r->doc, n, p, error, _("unknown sparsity pattern \"%s\"; "
                                       "only \"2:4\" is modelled"), s);
          r->bp->sparsity_2_4 = TRUE;
        }
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}
