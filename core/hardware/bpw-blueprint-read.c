/* bpw-blueprint-read.c — the native blueprint format ("format": "bpw-blueprint", version 1)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-blueprint-read"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-blueprint-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"

static const char * const kind_choices[] = {
  "datasheet", "estimate", "calibrated", "measured", NULL
};
static const char * const interpolation_choices[] = { "step", "log-linear", NULL };
static const char * const engine_choices[] = { "matrix", "vector", "dma", "collective", NULL };
static const char * const memory_choices[] = {
  "registers", "sram", "cache", "device", "host", NULL
};
static const char * const processing_choices[] = { "overlap", "no_overlap", NULL };

#define INF G_MAXDOUBLE

/* {"interpolation": "step"|"log-linear", "points": [[size, eff], ...], "kind", "source"} */
gboolean
_bpw_blueprint_read_table (BpwBlueprintReader *r,
                           JsonObject         *obj,
                           const char         *path,
                           BpwEfficiencyTable *table,
                           GError            **error)
{
  static const char * const known[] = { "interpolation", "points", "kind", "source", NULL };
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (BpwEfficiencyPoint));
  g_autofree char *points_path = bpw_json_doc_member_path (path, "points");
  GError *local = NULL;
  JsonArray *arr;
  const char *source = NULL;
  int interp = BPW_INTERPOLATION_LOG_LINEAR;
  int kind = BPW_PROVENANCE_ESTIMATE;

  _bpw_blueprint_warn_unknown (r, obj, path, known);
  if (!bpw_json_doc_get_enum (r->doc, obj, path, "interpolation", FALSE, interpolation_choices,
                              &interp, error)
      || !bpw_json_doc_get_enum (r->doc, obj, path, "kind", FALSE, kind_choices, &kind, error)
      || !bpw_json_doc_get_string (r->doc, obj, path, "source", FALSE, &source, error))
    return FALSE;
  arr = bpw_json_doc_get_array (r->doc, obj, path, "points", TRUE, &local);
  if (arr == NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (json_array_get_length (arr) == 0)
    return bpw_json_doc_error (r->doc, bpw_json_doc_get_array_node (r->doc, arr), points_path,
                               error, _("expected at least one [size, efficiency] point"));

  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *node = json_array_get_element (arr, i);
      g_autofree char *p = g_strdup_printf ("%s[%u]", points_path, i);
      BpwEfficiencyPoint pt;
      JsonArray *pair;

      if (!JSON_NODE_HOLDS_ARRAY (node)
          || json_array_get_length (pair = json_node_get_array (node)) != 2)
        return bpw_json_doc_error (r->doc, node, p, error,
                                   _("expected a pair [size, efficiency]"));
      if (!_bpw_blueprint_read_number_element (r, json_array_get_element (pair, 0), p,
                                              interp == BPW_INTERPOLATION_LOG_LINEAR
                                                ? _("a positive size") : _("a size >= 0"),
                                              0, INF,
                                              interp == BPW_INTERPOLATION_LOG_LINEAR,
                                              &pt.size, error)
          || !_bpw_blueprint_read_number_element (r, json_array_get_element (pair, 1), p,
                                                 _("an efficiency between 0.001 and 1"),
                                                 BPW_BLUEPRINT_MIN_EFFICIENCY, 1, FALSE,
                                                 &pt.efficiency, error))
        return FALSE;
      if (i > 0 && pt.size <= g_array_index (points, BpwEfficiencyPoint, i - 1).size)
        return bpw_json_doc_error (r->doc, node, p, error,
                                   _("sizes must increase strictly from one point to the next"));
      g_array_append_val (points, pt);
    }
  bpw_efficiency_table_set (r->bp, table, (BpwEfficiencyPoint *) (void *) points->data,
                            points->len, interp, kind, source);
  return TRUE;
}

/* An object keyed by precision ("bf16": ...); "all" too when @allow_all. Calls @read_one
 * for each member with the precision index (-1 for "all"). */
typedef gboolean (*BpwPrecisionFunc) (BpwBlueprintReader *r,
                                      JsonObject         *obj,
                                      const char         *path,
                                      const char         *member,
                                      int                 precision,
                                      gpointer            data,
                                      GError            **error);

static gboolean
bpw_blueprint_read_by_precision (BpwBlueprintReader *r,
                                 JsonObject         *parent,
                                 const char         *path,
                                 const char         *member,
                                 gboolean            allow_all,
                                 BpwPrecisionFunc    read_one,
                                 gpointer            data,
                                 GError            **error)
{
  g_autofree char *obj_path = bpw_json_doc_member_path (path, member);
  g_autoptr(GList) members = NULL;
  GError *local = NULL;
  JsonObject *obj;

  obj = bpw_json_doc_get_object (r->doc, parent, path, member, FALSE, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (obj == NULL)
    return TRUE;

  /* "all" first so that explicit precisions override it. */
  if (allow_all && json_object_has_member (obj, "all")
      && !read_one (r, obj, obj_path, "all", -1, data, error))
    return FALSE;
  members = json_object_get_members (obj);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      BpwPrecision p;

      if (allow_all && strcmp (l->data, "all") == 0)
        continue;
      if (!bpw_precision_from_string (l->data, &p))
        {
          g_autofree char *full = bpw_json_doc_member_path (obj_path, l->data);

          return bpw_json_doc_error (r->doc, json_object_get_member (obj, l->data), full,
                                     error, _("unknown precision; expected one of fp32, tf32, "
                                     "bf16, fp16, fp8, int8, fp4%s"), allow_all ? ", all" : "");
        }
      if (!read_one (r, obj, obj_path, l->data, p, data, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_blueprint_read_peak_cb (BpwBlueprintReader *r,
                            JsonObject         *obj,
                            const char         *path,
                            const char         *member,
                            int                 precision,
                            gpointer            data,
                            GError            **error)
{
  BpwEngine *e = data;

  if (!_bpw_blueprint_read_value (r, obj, path, member, TRUE, BPW_UNIT_FLOPS_PER_S,
                                  BPW_BLUEPRINT_MIN_PEAK, BPW_BLUEPRINT_MAX_PEAK, FALSE,
                                  &e->peak[precision], error))
    return FALSE;
  /* Capabilities, when given, must list every precision an engine claims. */
  if (r->bp->precisions != 0 && !(r->bp->precisions & (1u << precision)))
    {
      g_autofree char *full = bpw_json_doc_member_path (path, member);

      return bpw_json_doc_error (r->doc, json_object_get_member (obj, member), full, error,
                                 _("precision %s is not in capabilities.dtypes; add it there"),
                                 member);
    }
  return TRUE;
}

static gboolean
bpw_blueprint_read_efficiency_cb (BpwBlueprintReader *r,
                                  JsonObject         *obj,
                                  const char         *path,
                                  const char         *member,
                                  int                 precision,
                                  gpointer            data,
                                  GError            **error)
{
  BpwEngine *e = data;
  g_autofree char *full = bpw_json_doc_member_path (path, member);
  JsonObject *table = bpw_json_doc_get_object (r->doc, obj, path, member, TRUE, error);

  if (table == NULL)
    return FALSE;
  if (precision >= 0)
    return _bpw_blueprint_read_table (r, table, full, &e->efficiency[precision], error);
  for (guint p = 0; p < BPW_N_PRECISIONS; p++)
    if (!_bpw_blueprint_read_table (r, table, full, &e->efficiency[p], error))
      return FALSE;
  return TRUE;
}

static gboolean
bpw_blueprint_read_energy_cb (BpwBlueprintReader *r,
                              JsonObject         *obj,
                              const char         *path,
                              const char         *member,
                              int                 precision,
                              gpointer            data,
                              GError            **error)
{
  return _bpw_blueprint_read_value (r, obj, path, member, TRUE, BPW_UNIT_JOULES_PER_FLOP, 0,
                                    BPW_BLUEPRINT_MAX_ENERGY, FALSE, &r->bp->energy_per_flop[precision], error);
}

static gboolean
bpw_blueprint_read_tile (BpwBlueprintReader *r,
                         JsonObject         *parent,
                         const char         *path,
                         BpwTile            *tile,
                         GError            **error)
{
  static const char * const known[] = { "m", "n", "k", "kind", "source", NULL };
  g_autofree char *tpath = bpw_json_doc_member_path (path, "tile");
  GError *local = NULL;
  JsonObject *obj = bpw_json_doc_get_object (r->doc, parent, path, "tile", FALSE, &local);
  const char *source = NULL;
  int kind = BPW_PROVENANCE_ESTIMATE;

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (obj == NULL)
    return TRUE;
  _bpw_blueprint_warn_unknown (r, obj, tpath, known);
  if (!bpw_json_doc_get_int (r->doc, obj, tpath, "m", TRUE, 1, 1 << 20, &tile->m, error)
      || !bpw_json_doc_get_int (r->doc, obj, tpath, "n", TRUE, 1, 1 << 20, &tile->n, error)
      || !bpw_json_doc_get_int (r->doc, obj, tpath, "k", TRUE, 1, 1 << 20, &tile->k, error)
      || !bpw_json_doc_get_enum (r->doc, obj, tpath, "kind", FALSE, kind_choices, &kind, error)
      || !bpw_json_doc_get_string (r->doc, obj, tpath, "source", FALSE, &source, error))
    return FALSE;
  tile->kind = kind;
  tile->source = bpw_blueprint_intern (r->bp, source);
  return TRUE;
}

static gboolean
bpw_blueprint_read_engine (BpwBlueprintReader *r,
                           JsonNode           *node,
                           const char         *path,
                           GError            **error)
{
  static const char * const known[] = {
    "name", "kind", "count", "clock", "peak", "bandwidth", "overhead", "tile", "efficiency",
    "notes", NULL
  };
  const char *name = NULL;
  int kind = 0;
  guint idx;
  JsonObject *obj;
  BpwEngine *e;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return bpw_json_doc_error (r->doc, node, path, error, _("expected an engine object"));
  obj = json_node_get_object (node);
  _bpw_blueprint_warn_unknown (r, obj, path, known);
  if (!bpw_json_doc_get_string (r->doc, obj, path, "name", TRUE, &name, error)
      || !bpw_json_doc_get_enum (r->doc, obj, path, "kind", TRUE, engine_choices, &kind, error))
    return FALSE;
  if (bpw_blueprint_lookup_engine (r->bp, name) >= 0)
    return bpw_json_doc_error (r->doc, json_object_get_member (obj, "name"), path, error,
                               _("engine name \"%s\" is used twice"), name);
  if (r->bp->n_engines >= BPW_BLUEPRINT_MAX_ENGINES)
    return bpw_json_doc_error (r->doc, node, path, error, _("more than %d engines"),
                               BPW_BLUEPRINT_MAX_ENGINES);

  idx = bpw_blueprint_add_engine (r->bp, name, kind);
  e = &r->bp->engines[idx];  /* index first: add may move the array */
  return _bpw_blueprint_read_value (r, obj, path, "count", FALSE, BPW_UNIT_NONE, 1,
                                    BPW_BLUEPRINT_MAX_COUNT, TRUE,
                                    &e->count, error)
         && _bpw_blueprint_read_value (r, obj, path, "clock", FALSE, BPW_UNIT_HERTZ,
                                       BPW_BLUEPRINT_MIN_CLOCK, BPW_BLUEPRINT_MAX_CLOCK, FALSE, &e->clock, error)
         && _bpw_blueprint_read_value (r, obj, path, "bandwidth", FALSE, BPW_UNIT_BYTES_PER_S,
                                       BPW_BLUEPRINT_MIN_BANDWIDTH, BPW_BLUEPRINT_MAX_BANDWIDTH,
                                       FALSE, &e->bandwidth, error)
         && _bpw_blueprint_read_value (r, obj, path, "overhead", FALSE, BPW_UNIT_SECONDS, 0,
                                       BPW_BLUEPRINT_MAX_LATENCY, FALSE, &e->overhead, error)
         && bpw_blueprint_read_by_precision (r, obj, path, "peak", FALSE,
                                             bpw_blueprint_read_peak_cb, e, error)
         && bpw_blueprint_read_by_precision (r, obj, path, "efficiency", TRUE,
                                             bpw_blueprint_read_efficiency_cb, e, error)
         && bpw_blueprint_read_tile (r, obj, path, &e->tile, error);
}

static gboolean
bpw_blueprint_read_memory (BpwBlueprintReader *r,
                           JsonNode           *node,
                           const char         *path,
                           GError            **error)
{
  static const char * const known[] = {
    "name", "kind", "instances", "capacity", "bandwidth", "latency", "energy_per_byte",
    "engines", "efficiency", "notes", NULL
  };
  g_autofree char *engines_path = bpw_json_doc_member_path (path, "engines");
  const char *name = NULL;
  GError *local = NULL;
  int kind = 0;
  JsonObject *obj, *table;
  JsonArray *engines;
  guint idx;
  BpwMemoryLevel *m;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return bpw_json_doc_error (r->doc, node, path, error, _("expected a memory level object"));
  obj = json_node_get_object (node);
  _bpw_blueprint_warn_unknown (r, obj, path, known);
  if (!bpw_json_doc_get_string (r->doc, obj, path, "name", TRUE, &name, error)
      || !bpw_json_doc_get_enum (r->doc, obj, path, "kind", TRUE, memory_choices, &kind, error))
    return FALSE;
  if (bpw_blueprint_lookup_memory (r->bp, name) >= 0)
    return bpw_json_doc_error (r->doc, json_object_get_member (obj, "name"), path, error,
                               _("memory level name \"%s\" is used twice"), name);

  idx = bpw_blueprint_add_memory (r->bp, name, kind);
  m = &r->bp->memory[idx];  /* index first: add may move the array */
  if (!_bpw_blueprint_read_value (r, obj, path, "instances", FALSE, BPW_UNIT_NONE, 1,
                                  BPW_BLUEPRINT_MAX_COUNT, TRUE,
                                  &m->instances, error)
      || !_bpw_blueprint_read_value (r, obj, path, "capacity", TRUE, BPW_UNIT_BYTES,
                                     BPW_BLUEPRINT_MIN_CAPACITY, BPW_BLUEPRINT_MAX_CAPACITY, TRUE, &m->capacity, error)
      || !_bpw_blueprint_read_value (r, obj, path, "bandwidth", kind == BPW_MEMORY_DEVICE,
                                     BPW_UNIT_BYTES_PER_S, BPW_BLUEPRINT_MIN_BANDWIDTH,
                                     BPW_BLUEPRINT_MAX_BANDWIDTH, FALSE, &m->bandwidth, error)
      || !_bpw_blueprint_read_value (r, obj, path, "latency", FALSE, BPW_UNIT_SECONDS, 0,
                                     BPW_BLUEPRINT_MAX_LATENCY, FALSE, &m->latency, error)
      || !_bpw_blueprint_read_value (r, obj, path, "energy_per_byte", FALSE,
                                     BPW_UNIT_JOULES_PER_BYTE, 0, BPW_BLUEPRINT_MAX_ENERGY, FALSE,
                                     &m->energy_per_byte, error))
    return FALSE;

  table = bpw_json_doc_get_object (r->doc, obj, path, "efficiency", FALSE, &local);
  if (local == NULL && table != NULL)
    {
      g_autofree char *tpath = bpw_json_doc_member_path (path, "efficiency");

      if (!_bpw_blueprint_read_table (r, table, tpath, &m->efficiency, error))
        return FALSE;
    }
  engines = local == NULL
            ? bpw_json_doc_get_array (r->doc, obj, path, "engines", FALSE, &local) : NULL;
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (engines == NULL)
    {
      /* Absent: every engine reaches the level. */
      m->engine_mask = r->bp->n_engines >= 64 ? G_MAXUINT64
                                              : (G_GUINT64_CONSTANT (1) << r->bp->n_engines) - 1;
      return TRUE;
    }
  for (guint i = 0; i < json_array_get_length (engines); i++)
    {
      JsonNode *en = json_array_get_element (engines, i);
      g_autofree char *p = g_strdup_printf ("%s[%u]", engines_path, i);
      const char *ename = _bpw_blueprint_read_string_element (r, en, p, error);
      int engine;

      if (ename == NULL)
        return FALSE;
      engine = bpw_blueprint_lookup_engine (r->bp, ename);
      if (engine < 0)
        return bpw_json_doc_error (r->doc, en, p, error,
                                   _("no engine named \"%s\" in engines"), ename);
      m->engine_mask |= G_GUINT64_CONSTANT (1) << engine;
    }
  return TRUE;
}

static gboolean
bpw_blueprint_read_list (BpwBlueprintReader *r,
                         JsonObject         *root,
                         const char         *member,
                         gboolean            required,
                         gboolean          (*read_one) (BpwBlueprintReader *, JsonNode *,
                                                        const char *, GError **),
                         GError            **error)
{
  GError *local = NULL;
  JsonArray *arr = bpw_json_doc_get_array (r->doc, root, "", member, required, &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (arr != NULL && required && json_array_get_length (arr) == 0)
    return bpw_json_doc_error (r->doc, bpw_json_doc_get_array_node (r->doc, arr), member, error,
                               _("expected at least one entry"));
  for (guint i = 0; arr != NULL && i < json_array_get_length (arr); i++)
    {
      g_autofree char *p = g_strdup_printf ("%s[%u]", member, i);

      if (!read_one (r, json_array_get_element (arr, i), p, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_blueprint_read_power_cost (BpwBlueprintReader *r,
                               JsonObject         *root,
                               GError            **error)
{
  static const char * const power_known[] = { "tdp", "idle", "cap", "energy_per_flop", "notes",
                                                NULL };
  static const char * const cost_known[] = { "device", "notes", NULL };
  GError *local = NULL;
  JsonObject *power = bpw_json_doc_get_object (r->doc, root, "", "power", FALSE, &local);
  JsonObject *cost = local == NULL
                     ? bpw_json_doc_get_object (r->doc, root, "", "cost", FALSE, &local) : NULL;

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (power != NULL)
    {
      _bpw_blueprint_warn_unknown (r, power, "power", power_known);
      if (!_bpw_blueprint_read_value (r, power, "power", "tdp", FALSE, BPW_UNIT_WATTS,
                                      BPW_BLUEPRINT_MIN_POWER,
                                      BPW_BLUEPRINT_MAX_POWER, FALSE, &r->bp->tdp, error)
          || !_bpw_blueprint_read_value (r, power, "power", "idle", FALSE, BPW_UNIT_WATTS, 0,
                                         BPW_BLUEPRINT_MAX_POWER, FALSE, &r->bp->idle_power, error)
          || !_bpw_blueprint_read_value (r, power, "power", "cap", FALSE, BPW_UNIT_WATTS,
                                         BPW_BLUEPRINT_MIN_POWER, BPW_BLUEPRINT_MAX_POWER, FALSE,
                                         &r->bp->power_cap, error)
          || !bpw_blueprint_read_by_precision (r, power, "power", "energy_per_flop", FALSE,
                                               bpw_blueprint_read_energy_cb, NULL, error))
        return FALSE;
      if (r->bp->tdp.set && r->bp->idle_power.set && r->bp->idle_power.value > r->bp->tdp.value)
        return bpw_json_doc_error (r->doc, json_object_get_member (power, "idle"), "power.idle",
                                   error, _("idle power exceeds the TDP"));
      /* A cap at or below idle leaves no power to run at any rate. */
      if (r->bp->power_cap.set && r->bp->idle_power.set
          && r->bp->power_cap.value <= r->bp->idle_power.value)
        return bpw_json_doc_error (r->doc, json_object_get_member (power, "cap"), "power.cap",
                                   error, _("the power cap must exceed the idle power"));
    }
  if (cost != NULL)
    {
      _bpw_blueprint_warn_unknown (r, cost, "cost", cost_known);
      if (!_bpw_blueprint_read_value (r, cost, "cost", "device", FALSE, BPW_UNIT_DOLLARS, 0,
                                      BPW_BLUEPRINT_MAX_COST, FALSE, &r->bp->cost, error))
        return FALSE;
    }
  return TRUE;
}

BpwBlueprint *
_bpw_blueprint_read_native (BpwJsonDoc  *doc,
                            JsonObject  *root,
                            GPtrArray   *warnings,
                            GError     **error)
{
  static const char * const known[] = {
    "$schema", "format", "version", "name", "device", "description", "processing", "engines",
    "memory", "tiers", "capabilities", "power", "cost", "stack", "notes", NULL
  };
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_new (NULL);
  BpwBlueprintReader r = { doc, bp, warnings };
  const char *name = NULL, *device = NULL, *description = NULL;
  gint64 version = 0;
  int processing = BPW_PROCESSING_OVERLAP;

  _bpw_blueprint_warn_unknown (&r, root, "", known);
  if (!bpw_json_doc_get_int (doc, root, "", "version", TRUE, 1, G_MAXINT32, &version, error))
    return NULL;
  if (version > BPW_BLUEPRINT_FORMAT_VERSION)
    {
      bpw_json_doc_error (doc, json_object_get_member (root, "version"), "version", error,
                          _("version %" PRId64 " is newer than this program reads (%d); "
                          "update Blueprint Workbench"), version, BPW_BLUEPRINT_FORMAT_VERSION);
      return NULL;
    }
  if (!bpw_json_doc_get_string (doc, root, "", "name", TRUE, &name, error)
      || !bpw_json_doc_get_string (doc, root, "", "device", FALSE, &device, error)
      || !bpw_json_doc_get_string (doc, root, "", "description", FALSE, &description, error)
      || !bpw_json_doc_get_enum (doc, root, "", "processing", FALSE, processing_choices,
                                 &processing, error))
    return NULL;
  g_free (bp->name);
  bp->name = g_strdup (name);
  bp->device = g_strdup (device);
  bp->description = g_strdup (description);
  bp->processing = processing;

  if (!_bpw_blueprint_read_capabilities (&r, root, error)
      || !bpw_blueprint_read_list (&r, root, "engines", TRUE, bpw_blueprint_read_engine, error)
      || !bpw_blueprint_read_list (&r, root, "memory", TRUE, bpw_blueprint_read_memory, error)
      || !bpw_blueprint_read_list (&r, root, "tiers", FALSE, _bpw_blueprint_read_tier, error)
      || !bpw_blueprint_read_power_cost (&r, root, error)
      || !_bpw_blueprint_read_stack (&r, root, error))
    return NULL;

  /* Checked here too (validate() repeats it) so that the message has a location. */
  if (bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE) < 0)
    {
      bpw_json_doc_error (doc, json_object_get_member (root, "memory"), "memory", error,
                          _("no level of kind \"device\" (HBM); add one"));
      return NULL;
    }
  if (bpw_blueprint_first_engine (bp, BPW_ENGINE_MATRIX) < 0)
    {
      bpw_json_doc_error (doc, json_object_get_member (root, "engines"), "engines", error,
                          _("no engine of kind \"matrix\"; add one with a \"peak\""));
      return NULL;
    }
  if (bp->precisions == 0)
    for (guint i = 0; i < bp->n_engines; i++)
      for (guint p = 0; p < BPW_N_PRECISIONS; p++)
        if (bp->engines[i].peak[p].set)
          bp->precisions |= 1u << p;
  return g_steal_pointer (&bp);
}
