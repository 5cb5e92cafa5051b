/* bpw-blueprint-calculon.c — import of Calculon system JSON files as blueprints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The file format, its units (TFLOP/s, GiB, GB/s, GFLOP and MB thresholds) and the meaning of
 * the efficiency tables and network op factors follow Calculon (calculon-ai/calculon @ caa4b11,
 * Apache License 2.0; NOTICE: "Calculon - Co-design for large scale parallel applications /
 * Copyright 2022 Michael Isaev, Nic McDonald / All rights reserved."). Changes: tables are
 * stored ascending in SI base units and looked up with BPW_INTERPOLATION_STEP, which gives the
 * same efficiency as Calculon's descending first-match scan.
 */
#define G_LOG_DOMAIN "bpw-blueprint-calculon"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-blueprint-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

typedef struct
{
  const char   *key;
  BpwPrecision  precision;
} BpwCalculonType;

static const BpwCalculonType calculon_types[] = {
  { "float8",   BPW_PRECISION_FP8 },
  { "float16",  BPW_PRECISION_FP16 },
  { "bfloat16", BPW_PRECISION_BF16 },
  { "float32",  BPW_PRECISION_FP32 },
};

/* A [[threshold, efficiency], ...] list with thresholds in units of @scale. */
static gboolean
bpw_calculon_read_table (BpwBlueprintReader *r,
                         JsonObject         *obj,
                         const char         *path,
                         const char         *member,
                         double              scale,
                         const char         *source,
                         BpwEfficiencyTable *table,
                         GError            **error)
{
  g_autofree char *tpath = bpw_json_doc_member_path (path, member);
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
  GError *local = NULL;
  JsonArray *arr = bpw_json_doc_get_array (r->doc, obj, path, member, TRUE, &local);

  if (arr == NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (json_array_get_length (arr) == 0)
    return bpw_json_doc_error (r->doc, bpw_json_doc_get_array_node (r->doc, arr), tpath, error,
                               _("expected at least one [threshold, efficiency] row"));

  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *node = json_array_get_element (arr, i);
      g_autofree char *p = g_strdup_printf ("%s[%u]", tpath, i);
      JsonArray *pair = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
      JsonNode *a, *b;
      BpwEfficiencyPoint pt;

      if (pair == NULL || json_array_get_length (pair) != 2)
        return bpw_json_doc_error (r->doc, node, p, error,
                                   _("expected a pair [threshold, efficiency]"));
      a = json_array_get_element (pair, 0);
      b = json_array_get_element (pair, 1);
      if (!JSON_NODE_HOLDS_VALUE (a) || !JSON_NODE_HOLDS_VALUE (b)
          || json_node_get_value_type (a) == G_TYPE_STRING
          || json_node_get_value_type (b) == G_TYPE_STRING
          || json_node_get_value_type (a) == G_TYPE_BOOLEAN
          || json_node_get_value_type (b) == G_TYPE_BOOLEAN)
        return bpw_json_doc_error (r->doc, node, p, error,
                                   _("expected two numbers [threshold, efficiency]"));
      pt.size = json_node_get_double (a) * scale;
      pt.efficiency = json_node_get_double (b);
      if (!(pt.size >= 0) || !isfinite (pt.size))
        return bpw_json_doc_error (r->doc, a, p, error, _("expected a threshold >= 0, got %.17g"),
                                   json_node_get_double (a));
      if (!(pt.efficiency >= BPW_BLUEPRINT_MIN_EFFICIENCY && pt.efficiency <= 1))
        return bpw_json_doc_error (r->doc, b, p, error,
                                   _("expected an efficiency between 0.001 and 1, got %.17g"),
                                   pt.efficiency);
      for (guint k = 0; k < points->len; k++)
        if (g_array_index (points, BpwEfficiencyPoint, k).size == pt.size)
          return bpw_json_doc_error (r->doc, a, p, error, _("threshold %.17g appears twice"),
                                     json_node_get_double (a));
      g_array_append_val (points, pt);
    }
  bpw_efficiency_table_set (r->bp, table, (BpwEfficiencyPoint *) (void *) points->data,
                            points->len, BPW_INTERPOLATION_STEP, BPW_PROVENANCE_ESTIMATE, source);
  return TRUE;
}

/* A number in the file's unit (@scale SI units each) whose SI value must lie in [@lo, @hi]:
 * the physical bounds of bpw-blueprint.h. The message names both, so that "GBps": 1e-300
 * reads "expected a bandwidth between 1 MB/s and 1 PB/s (0.001 to 1e+06 GBps)". */
static gboolean
bpw_calculon_read_bounded (BpwBlueprintReader *r,
                           JsonObject         *obj,
                           const char         *path,
                           const char         *member,
                           double              scale,
                           const char         *file_unit,
                           BpwUnit             unit,
                           double              lo,
                           double              hi,
                           double             *out,
                           GError            **error)
{
  double v = 0;

  if (!bpw_json_doc_get_double (r->doc, obj, path, member, TRUE, -G_MAXDOUBLE, G_MAXDOUBLE, &v,
                                error))
    return FALSE;
  if (!(v * scale >= lo && v * scale <= hi))
    {
      g_autofree char *full = bpw_json_doc_member_path (path, member);
      g_autofree char *lo_s = bpw_quantity_format (lo, unit);
      g_autofree char *hi_s = bpw_quantity_format (hi, unit);
      g_autofree char *what = g_strdup (bpw_unit_describe (unit));
      char *such = strstr (what, " such as");

      if (such != NULL)
        *such = '\0';
      return bpw_json_doc_error (r->doc, json_object_get_member (obj, member), full, error,
                                 _("expected %s between %s and %s (%.6g to %.6g %s), got %.17g"),
                                 what, lo_s, hi_s, lo / scale, hi / scale, file_unit, v);
    }
  *out = v;
  return TRUE;
}

static gboolean
bpw_calculon_read_engine (BpwBlueprintReader *r,
                          JsonObject         *root,
                          const char         *member,
                          BpwEngineKind       kind,
                          const char         *file,
                          GError            **error)
{
  static const char * const known[] = { "float8", "float16", "bfloat16", "float32", NULL };
  JsonObject *obj = bpw_json_doc_get_object (r->doc, root, "", member, TRUE, error);
  BpwEngine *e;
  guint idx;

  if (obj == NULL)
    return FALSE;
  _bpw_blueprint_warn_unknown (r, obj, member, known);
  idx = bpw_blueprint_add_engine (r->bp, member, kind);

  for (guint t = 0; t < G_N_ELEMENTS (calculon_types); t++)
    {
      static const char * const type_known[] = { "tflops", "gflops_efficiency", NULL };
      g_autofree char *path = bpw_json_doc_member_path (member, calculon_types[t].key);
      g_autofree char *src_peak = NULL, *src_eff = NULL;
      BpwPrecision p = calculon_types[t].precision;
      JsonObject *type;
      double tflops;

      if (!json_object_has_member (obj, calculon_types[t].key))
        continue;
      type = bpw_json_doc_get_object (r->doc, obj, member, calculon_types[t].key, TRUE, error);
      if (type == NULL)
        return FALSE;
      _bpw_blueprint_warn_unknown (r, type, path, type_known);
      if (!bpw_calculon_read_bounded (r, type, path, "tflops", 1e12, "TFLOP/s",
                                      BPW_UNIT_FLOPS_PER_S, BPW_BLUEPRINT_MIN_PEAK,
                                      BPW_BLUEPRINT_MAX_PEAK, &tflops, error))
        return FALSE;
      src_peak = g_strdup_printf ("Calculon system %s: %s.tflops", file, path);
      src_eff = g_strdup_printf ("Calculon system %s: %s.gflops_efficiency", file, path);
      e = &r->bp->engines[idx];
      bpw_blueprint_set_value (r->bp, &e->peak[p], tflops * 1e12, BPW_PROVENANCE_ESTIMATE,
                               src_peak);
      if (!bpw_calculon_read_table (r, type, path, "gflops_efficiency", 1e9, src_eff,
                                    &e->efficiency[p], error))
        return FALSE;
      r->bp->precisions |= 1u << p;
    }

  /* Calculon's float16 stands for 16-bit training in general; its shipped systems list no
   * bfloat16, yet bf16 is what workloads use. Alias it, and say so in the source. */
  e = &r->bp->engines[idx];
  if (e->peak[BPW_PRECISION_FP16].set && !e->peak[BPW_PRECISION_BF16].set)
    {
      g_autofree char *src = g_strdup_printf ("%s " BPW_BLUEPRINT_BF16_FROM_FP16,
                                              e->peak[BPW_PRECISION_FP16].source);
      const BpwEfficiencyTable *t16 = &e->efficiency[BPW_PRECISION_FP16];

      bpw_blueprint_set_value (r->bp, &e->peak[BPW_PRECISION_BF16],
                               e->peak[BPW_PRECISION_FP16].value, BPW_PROVENANCE_ESTIMATE, src);
      bpw_efficiency_table_set (r->bp, &e->efficiency[BPW_PRECISION_BF16], t16->points,
                                t16->n_points, t16->interpolation, t16->kind, t16->source);
      r->bp->precisions |= 1u << BPW_PRECISION_BF16;
    }
  return TRUE;
}

static gboolean
bpw_calculon_read_memory (BpwBlueprintReader *r,
                          JsonObject         *root,
                          const char         *member,
                          BpwMemoryKind       kind,
                          const char         *file,
                          GError            **error)
{
  static const char * const known[] = { "GiB", "GBps", "MB_efficiency", NULL };
  g_autofree char *src_cap = g_strdup_printf ("Calculon system %s: %s.GiB", file, member);
  g_autofree char *src_bw = g_strdup_printf ("Calculon system %s: %s.GBps", file, member);
  g_autofree char *src_eff = g_strdup_printf ("Calculon system %s: %s.MB_efficiency", file,
                                              member);
  GError *local = NULL;
  JsonObject *obj = bpw_json_doc_get_object (r->doc, root, "", member,
                                             kind == BPW_MEMORY_DEVICE, &local);
  double gib = 0, gbps = 0;
  guint idx;
  BpwMemoryLevel *m;

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (obj == NULL)
    return TRUE;
  _bpw_blueprint_warn_unknown (r, obj, member, known);
  if (!bpw_json_doc_get_double (r->doc, obj, member, "GiB", TRUE,
                                kind == BPW_MEMORY_DEVICE ? G_MINDOUBLE : 0, G_MAXDOUBLE, &gib,
                                error)
      || !bpw_json_doc_get_double (r->doc, obj, member, "GBps", TRUE, 0, G_MAXDOUBLE, &gbps,
                                   error))
    return FALSE;
  /* Calculon's "GiB": 0 on tier 2 means "never offload": no level at all. */
  if (gib == 0)
    return TRUE;
  if (gbps <= 0)
    return bpw_json_doc_error (r->doc, json_object_get_member (obj, "GBps"), member, error,
                               _("a memory with capacity needs a positive GBps"));
  if (!bpw_calculon_read_bounded (r, obj, member, "GiB", 1073741824.0, "GiB", BPW_UNIT_BYTES,
                                  BPW_BLUEPRINT_MIN_CAPACITY, BPW_BLUEPRINT_MAX_CAPACITY, &gib,
                                  error)
      || !bpw_calculon_read_bounded (r, obj, member, "GBps", 1e9, "GBps", BPW_UNIT_BYTES_PER_S,
                                     BPW_BLUEPRINT_MIN_BANDWIDTH, BPW_BLUEPRINT_MAX_BANDWIDTH,
                                     &gbps, error))
    return FALSE;

  idx = bpw_blueprint_add_memory (r->bp, member, kind);
  m = &r->bp->memory[idx];
  bpw_blueprint_set_value (r->bp, &m->capacity, gib * 1073741824.0, BPW_PROVENANCE_ESTIMATE,
                           src_cap);
  bpw_blueprint_set_value (r->bp, &m->bandwidth, gbps * 1e9, BPW_PROVENANCE_ESTIMATE, src_bw);
  m->engine_mask = (G_GUINT64_CONSTANT (1) << r->bp->n_engines) - 1;
  return bpw_calculon_read_table (r, obj, member, "MB_efficiency", 1e6, src_eff,
                                  &m->efficiency, error);
}

static gboolean
bpw_calculon_read_network (BpwBlueprintReader *r,
                           JsonNode           *node,
                           guint               index,
                           const char         *file,
                           GError            **error)
{
  static const char * const known[] = {
    "bandwidth", "efficiency", "size", "latency", "ops", "must_be_filled", "processor_usage", NULL
  };
  static const char * const op_keys[] = {
    "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "p2p", NULL
  };
  g_autofree char *path = g_strdup_printf ("networks[%u]", index);
  g_autofree char *name = g_strdup_printf ("net%u", index);
  g_autofree char *ops_path = bpw_json_doc_member_path (path, "ops");
  JsonObject *obj, *ops;
  double bw, eff, lat, usage = 0;
  gint64 size;
  gboolean filled = FALSE;
  guint idx;
  BpwTier *t;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return bpw_json_doc_error (r->doc, node, path, error, _("expected a network object"));
  obj = json_node_get_object (node);
  _bpw_blueprint_warn_unknown (r, obj, path, known);
  if (!bpw_calculon_read_bounded (r, obj, path, "bandwidth", 1e9, "GB/s", BPW_UNIT_BYTES_PER_S,
                                  BPW_BLUEPRINT_MIN_BANDWIDTH, BPW_BLUEPRINT_MAX_BANDWIDTH, &bw,
                                  error)
      || !bpw_json_doc_get_double (r->doc, obj, path, "efficiency", TRUE,
                                   BPW_BLUEPRINT_MIN_EFFICIENCY, 1, &eff, error)
      || !bpw_json_doc_get_int (r->doc, obj, path, "size", TRUE, 1,
                                   (gint64) BPW_BLUEPRINT_MAX_TIER_SIZE, &size, error)
      || !bpw_json_doc_get_double (r->doc, obj, path, "latency", TRUE, 0,
                                   BPW_BLUEPRINT_MAX_LATENCY, &lat, error)
      || !bpw_json_doc_get_bool (r->doc, obj, path, "must_be_filled", FALSE, &filled, error)
      || !bpw_json_doc_get_double (r->doc, obj, path, "processor_usage", FALSE, 0, 0.999999,
                                   &usage, error))
    return FALSE;
  ops = bpw_json_doc_get_object (r->doc, obj, path, "ops", TRUE, error);
  if (ops == NULL)
    return FALSE;
  _bpw_blueprint_warn_unknown (r, ops, ops_path, op_keys);

  idx = bpw_blueprint_add_tier (r->bp, name, BPW_TOPOLOGY_SWITCH);
  t = &r->bp->tiers[idx];
#define SRC(field) g_strdup_printf ("Calculon system %s: %s." field, file, path)
  {
    g_autofree char *s_bw = SRC ("bandwidth"), *s_eff = SRC ("efficiency");
    g_autofree char *s_size = SRC ("size"), *s_lat = SRC ("latency");
    g_autofree char *s_use = SRC ("processor_usage");

    bpw_blueprint_set_value (r->bp, &t->bandwidth, bw * 1e9, BPW_PROVENANCE_ESTIMATE, s_bw);
    bpw_blueprint_set_value (r->bp, &t->efficiency, eff, BPW_PROVENANCE_ESTIMATE, s_eff);
    bpw_blueprint_set_value (r->bp, &t->size, (double) size, BPW_PROVENANCE_ESTIMATE, s_size);
    bpw_blueprint_set_value (r->bp, &t->latency, lat, BPW_PROVENANCE_ESTIMATE, s_lat);
    bpw_blueprint_set_value (r->bp, &t->processor_usage, usage, BPW_PROVENANCE_ESTIMATE, s_use);
  }
#undef SRC
  t->must_be_filled = filled;
  t->collectives = BPW_COLLECTIVE_ALGO_RING;

  for (guint k = 0; k < BPW_N_COLLECTIVES; k++)
    {
      g_autofree char *p = bpw_json_doc_member_path (ops_path, op_keys[k]);
      JsonNode *n = json_object_has_member (ops, op_keys[k])
                    ? json_object_get_member (ops, op_keys[k]) : NULL;
      JsonArray *pair = n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
      JsonNode *a, *b;
      BpwOpFactor *f = &t->ops[k];

      if (n == NULL)
        continue;
      if (pair == NULL || json_array_get_length (pair) != 2)
        return bpw_json_doc_error (r->doc, n, p, error, _("expected [scalar, offset or null]"));
      a = json_array_get_element (pair, 0);
      b = json_array_get_element (pair, 1);
      if (!JSON_NODE_HOLDS_VALUE (a) || json_node_get_value_type (a) == G_TYPE_STRING
          || json_node_get_value_type (a) == G_TYPE_BOOLEAN || !(json_node_get_double (a) > 0)
          || json_node_get_double (a) > BPW_BLUEPRINT_MAX_OP_FACTOR)
        return bpw_json_doc_error (r->doc, a, p, error,
                                   _("expected a positive scalar of at most 1000"));
      if (!JSON_NODE_HOLDS_NULL (b)
          && (!JSON_NODE_HOLDS_VALUE (b) || json_node_get_value_type (b) == G_TYPE_STRING
              || json_node_get_value_type (b) == G_TYPE_BOOLEAN
              || !(fabs (json_node_get_double (b)) <= BPW_BLUEPRINT_MAX_OP_FACTOR)))
        return bpw_json_doc_error (r->doc, b, p, error,
                                   _("expected an offset (a number between -1000 and 1000, "
                                     "or null)"));
      f->set = TRUE;
      f->scalar = json_node_get_double (a);
      f->has_offset = !JSON_NODE_HOLDS_NULL (b);
      f->offset = f->has_offset ? json_node_get_double (b) : 0;
    }
  /* A positive all-reduce offset, S(1 + 1/N), is Calculon's way of writing an in-switch
   * reduction (its H100 NVLink tier). */
  if (t->ops[BPW_COLLECTIVE_ALL_REDUCE].set && t->ops[BPW_COLLECTIVE_ALL_REDUCE].offset > 0)
    t->collectives |= BPW_COLLECTIVE_ALGO_IN_NETWORK;

  if (r->bp->n_tiers > 1 && t->size.value < r->bp->tiers[r->bp->n_tiers - 2].size.value)
    return bpw_json_doc_error (r->doc, json_object_get_member (obj, "size"), path, error,
                               _("a network must hold at least as many processors as the one "
                               "before it"));
  return TRUE;
}

BpwBlueprint *
_bpw_blueprint_import_calculon (BpwJsonDoc  *doc,
                                JsonObject  *root,
                                GPtrArray   *warnings,
                                GError     **error)
{
  static const char * const known[] = {
    "matrix", "vector", "mem1", "mem2", "processing_mode", "networks", NULL
  };
  static const char * const modes[] = { "roofline", "no_overlap", NULL };
  g_autofree char *file = g_path_get_basename (bpw_json_doc_get_filename (doc));
  g_autofree char *name = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  BpwBlueprintReader r;
  GError *local = NULL;
  JsonArray *networks;
  int mode = 0;

  name = g_str_has_suffix (file, ".json") ? g_strndup (file, strlen (file) - 5)
                                          : g_strdup (file);
  bp = bpw_blueprint_new (name);
  bp->description = g_strdup_printf ("Imported from the Calculon system file %s "
                                     "(calculon-ai/calculon, Apache-2.0)", file);
  r = (BpwBlueprintReader) { doc, bp, warnings };
  _bpw_blueprint_warn_unknown (&r, root, "", known);

  if (!bpw_json_doc_get_enum (doc, root, "", "processing_mode", TRUE, modes, &mode, error))
    return NULL;
  bp->processing = mode == 0 ? BPW_PROCESSING_OVERLAP : BPW_PROCESSING_NO_OVERLAP;

  if (!bpw_calculon_read_engine (&r, root, "matrix", BPW_ENGINE_MATRIX, file, error)
      || !bpw_calculon_read_engine (&r, root, "vector", BPW_ENGINE_VECTOR, file, error)
      || !bpw_calculon_read_memory (&r, root, "mem1", BPW_MEMORY_DEVICE, file, error)
      || !bpw_calculon_read_memory (&r, root, "mem2", BPW_MEMORY_HOST, file, error))
    return NULL;

  networks = bpw_json_doc_get_array (doc, root, "", "networks", TRUE, &local);
  if (networks == NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  /* Every parallel group but a single device talks over a network; without one the
   * simulated pipeline has no link to send on. */
  if (json_array_get_length (networks) == 0)
    {
      bpw_json_doc_error (doc, bpw_json_doc_get_array_node (doc, networks), "networks", error,
                          _("expected at least one network"));
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (networks); i++)
    if (!bpw_calculon_read_network (&r, json_array_get_element (networks, i), i, file, error))
      return NULL;
  return g_steal_pointer (&bp);
}
