/* bpw-mapping-read.c — reading mapping objects (files, study candidates) with locations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The format is described in bpw-mapping-io.c and data/schemas/bpw-mapping.schema.json.
 */
#define G_LOG_DOMAIN "bpw-mapping-read"

#include "config.h"

#include <string.h>

#include "bpw-i18n.h"
#include "bpw-stage-split.h"
#include "bpw-mapping-private.h"
#include "bpw-mapping-reader-private.h"
#include "bpw-parallel-read.h"
#include "bpw-error.h"

static const char * const file_keys[] = {
  "$schema", "format", "version", "name", "description", "parallel", "micro_batch",
  "recompute", "tiers", "collective_algorithms", "fusion", "tiling", "engines", "placement",
  "overlap", "sp_gather_again", "precision", NULL
};
static const char * const parallel_keys[] = {
  "tp", "pp", "dp", "ep", "sp", "zero", "schedule", "interleave", "cp", "cp_algorithm",
  "pp_split", "pp_lighter", "pp_layers", NULL
};
static const char * const cp_algorithm_names[] = { "ring", "allgather", NULL };
static const char * const overlap_keys[] = { "dp", "tp", NULL };
static const char * const tiling_keys[] = { "m", "n", "k", NULL };
static const char * const schedule_names[] = { "gpipe", "1f1b", "interleaved", "zb-h1", NULL };
/* "pp_split" as written; "lighter" and "explicit" come from "pp_lighter" and "pp_layers". */
static const char * const pp_split_names[] = { "auto", "even", "balanced", NULL };
/* Index order = BpwRecompute; the last is -1. */
static const char * const recompute_names[] = { "none", "selective", "full", "auto", NULL };
static const char * const tp_overlap_names[] = { "none", "ring", "pipe", NULL };

typedef enum
{
  BPW_REF_TIER,
  BPW_REF_ENGINE,
  BPW_REF_MEMORY,
} BpwRefKind;

void
_bpw_mapping_warn_unknown (BpwMappingReader   *r,
                           JsonObject         *object,
                           const char         *path,
                           const char * const *known)
{
  if (r->warnings != NULL)
    bpw_json_doc_check_unknown (r->doc, object, path, known, r->warnings);
}

gboolean
_bpw_mapping_node_is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
node_is_number (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node)
         && (json_node_get_value_type (node) == G_TYPE_INT64
             || json_node_get_value_type (node) == G_TYPE_DOUBLE);
}

gboolean
_bpw_mapping_fail_got (BpwMappingReader *r,
                       JsonNode         *node,
                       const char       *path,
                       const char       *expected,
                       GError          **error)
{
  g_autofree char *got = bpw_json_doc_describe_node (node);

  return bpw_json_doc_error (r->doc, node, path, error, _("expected %s, got %s"), expected, got);
}

/* Highest index a reference of @kind may take (with the blueprint: what exists in it). */
static gint64
ref_max (BpwMappingReader *r,
         BpwRefKind        kind)
{
  switch (kind)
    {
    case BPW_REF_TIER:
      return r->bp != NULL ? MIN ((gint64) r->bp->n_tiers, BPW_MAPPING_MAX_TIERS) - 1
                           : BPW_MAPPING_MAX_TIERS - 1;
    case BPW_REF_ENGINE:
      return r->bp != NULL ? (gint64) r->bp->n_engines - 1 : BPW_BLUEPRINT_MAX_ENGINES - 1;
    case BPW_REF_MEMORY:
    default:
      return r->bp != NULL ? (gint64) r->bp->n_memory - 1 : G_MAXINT;
    }
}

/* The names the blueprint gives its tiers, engines or memory levels, in index order: what
 * a reader who wrote an unknown one can choose from. */
static char *
ref_names (BpwMappingReader *r,
           BpwRefKind        kind)
{
  GString *names = g_string_new (NULL);
  gint64 max = ref_max (r, kind);

  for (gint64 i = 0; i <= max; i++)
    {
      const char *name = kind == BPW_REF_TIER ? r->bp->tiers[i].name
                         : kind == BPW_REF_ENGINE ? r->bp->engines[i].name
                         : r->bp->memory[i].name;

      g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", name);
    }
  return g_string_free (names, FALSE);
}

static char *
ref_expected (BpwMappingReader *r,
              BpwRefKind        kind)
{
  static const char * const what[] = { N_("a tier"), N_("an engine"), N_("a memory level") };
  static const char * const name[] = { N_("tier"), N_("engine"), N_("memory level") };
  static const char * const plural[] = { N_("tiers"), N_("engines"), N_("memory levels") };
  const char *symbols = kind == BPW_REF_MEMORY ? "\"device\" or \"host\"" : "\"auto\"";
  gint64 max = ref_max (r, kind);
  g_autofree char *names = NULL;

  if (r->bp == NULL)
    return g_strdup_printf (_("%s index from 0 to %" PRId64 " or %s (%s names need a "
                            "blueprint)"), _(what[kind]), max, symbols, _(name[kind]));
  if (max < 0)
    return g_strdup_printf (_("%s (the blueprint has no %s)"), symbols, _(plural[kind]));
  return g_strdup_printf (_("%s index from 0 to %" PRId64 ", the name of one of the "
                          "blueprint's %s (%s), or %s"), _(what[kind]), max, _(plural[kind]),
                          names = ref_names (r, kind), symbols);
}

static int
ref_lookup (BpwMappingReader *r,
            BpwRefKind        kind,
            const char       *name)
{
  if (r->bp == NULL)
    return -1;
  switch (kind)
    {
    case BPW_REF_TIER:
      return bpw_blueprint_lookup_tier (r->bp, name);
    case BPW_REF_ENGINE:
      return bpw_blueprint_lookup_engine (r->bp, name);
    case BPW_REF_MEMORY:
    default:
      return bpw_blueprint_lookup_memory (r->bp, name);
    }
}

/* A tier, engine or memory level: index, symbol, or (with a blueprint) name. */
static gboolean
read_ref (BpwMappingReader *r,
          JsonObject       *object,
          const char       *path,
          const char       *member,
          BpwRefKind        kind,
          gint             *out,
          GError          **error)
{
  g_autofree char *full = bpw_json_doc_member_path (path, member);
  g_autofree char *expected = NULL;
  JsonNode *node;
  gint64 value = -1;

  if (!bpw_json_doc_get_member (r->doc, object, path, member, FALSE, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  if (_bpw_mapping_node_is_string (node))
    {
      const char *str = json_node_get_string (node);
      int idx;

      if (kind != BPW_REF_MEMORY && strcmp (str, "auto") == 0)
        {
          *out = -1;
          return TRUE;
        }
      if (kind == BPW_REF_MEMORY && (strcmp (str, "device") == 0 || strcmp (str, "host") == 0))
        {
          *out = str[0] == 'd' ? -1 : BPW_PLACEMENT_HOST;
          return TRUE;
        }
      if (r->bp == NULL && r->names_later)
        return TRUE;
      idx = ref_lookup (r, kind, str);
      if (idx >= 0 && idx <= ref_max (r, kind))
        {
          *out = idx;
          return TRUE;
        }
    }
  else if (node_is_number (node))
    {
      /* Integral check (and its message) as everywhere else; the range is ours. */
      if (!bpw_json_doc_get_int (r->doc, object, path, member, FALSE, G_MININT64, G_MAXINT64,
                                 &value, error))
        return FALSE;
      if (value >= 0 && value <= ref_max (r, kind))
        {
          *out = (gint) value;
          return TRUE;
        }
    }
  expected = ref_expected (r, kind);
  return _bpw_mapping_fail_got (r, node, full, expected, error);
}

/* "pp_split", "pp_lighter" and "pp_layers": at most one of them says how the layers are
 * split; the list's entries are checked here, its sum against the model where the model is
 * known (bpw_mapping_check_pp_layers_file(), bpw_scenario_validate()). */
gboolean
bpw_parallel_read_pp_split (BpwJsonDoc   *doc,
                            JsonObject   *o,
                            const char   *ppath,
                            BpwParallel  *p,
                            GError      **error)
{
  g_autofree char *lpath = bpw_json_doc_member_path (ppath, "pp_layers");
  const char *given[] = { "pp_split", "pp_lighter", "pp_layers" };
  JsonNode *second = NULL;
  GError *local = NULL;
  JsonArray *arr;
  int split = BPW_PP_SPLIT_AUTO;
  gint64 lighter = 0;
  guint n_given = 0;

  for (guint i = 0; i < G_N_ELEMENTS (given); i++)
    if (json_object_has_member (o, given[i]) && n_given++ == 1)
      second = json_object_get_member (o, given[i]);
  if (second != NULL)
    return bpw_json_doc_error (doc, second, ppath, error,
                               _("give one of pp_split, pp_lighter and pp_layers"));
  if (json_object_has_member (o, "pp_split"))
    {
      if (!bpw_json_doc_get_enum (doc, o, ppath, "pp_split", FALSE, pp_split_names, &split,
                                  error))
        return FALSE;
      p->pp_split = (BpwPpSplit) split;
      p->n_stage_layers = 0;
      return TRUE;
    }
  if (json_object_has_member (o, "pp_lighter"))
    {
      if (!bpw_json_doc_get_int (doc, o, ppath, "pp_lighter", FALSE, 1, 1 << 20, &lighter,
                                 error))
        return FALSE;
      p->pp_split = BPW_PP_SPLIT_LIGHTER;
      p->pp_lighter = (gint32) lighter;
      p->n_stage_layers = 0;
      return TRUE;
    }
  arr = bpw_json_doc_get_array (doc, o, ppath, "pp_layers", FALSE, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (arr == NULL)
    return TRUE;
  if (json_array_get_length (arr) < 1 || json_array_get_length (arr) > BPW_PARALLEL_MAX_STAGE_LAYERS)
    return bpw_json_doc_error (doc, bpw_json_doc_get_array_node (doc, arr), lpath, error,
                               _("expected 1 to %d stages, got %u"),
                               BPW_PARALLEL_MAX_STAGE_LAYERS, json_array_get_length (arr));
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *node = json_array_get_element (arr, i);
      g_autofree char *epath = g_strdup_printf ("%s[%u]", lpath, i);

      if (JSON_NODE_TYPE (node) != JSON_NODE_VALUE || json_node_get_value_type (node) != G_TYPE_INT64
          || json_node_get_int (node) < 1 || json_node_get_int (node) > G_MAXINT32)
        return bpw_json_doc_error (doc, node, epath, error,
                                   _("expected a positive whole number of layers: every stage "
                                     "needs at least one"));
      p->stage_layers[i] = (guint32) json_node_get_int (node);
    }
  p->n_stage_layers = (gint32) json_array_get_length (arr);
  p->pp_split = BPW_PP_SPLIT_EXPLICIT;
  return TRUE;
}

static gboolean
read_parallel (BpwMappingReader *r,
               JsonObject       *root,
               const char       *path,
               BpwParallel      *p,
               GError          **error)
{
  g_autofree char *ppath = bpw_json_doc_member_path (path, "parallel");
  GError *local = NULL;
  JsonObject *o = bpw_json_doc_get_object (r->doc, root, path, "parallel", FALSE, &local);
  gint64 zero = p->zero;
  int schedule = p->schedule;
  int cp_algorithm = p->cp_algorithm;

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (o == NULL)
    return TRUE;
  _bpw_mapping_warn_unknown (r, o, ppath, parallel_keys);
  if (!bpw_json_doc_get_int (r->doc, o, ppath, "tp", FALSE, 1, G_MAXINT64, &p->tp, error)
      || !bpw_json_doc_get_int (r->doc, o, ppath, "pp", FALSE, 1, G_MAXINT64, &p->pp, error)
      || !bpw_json_doc_get_int (r->doc, o, ppath, "dp", FALSE, 1, G_MAXINT64, &p->dp, error)
      || !bpw_json_doc_get_int (r->doc, o, ppath, "ep", FALSE, 1, G_MAXINT64, &p->ep, error)
      || !bpw_json_doc_get_bool (r->doc, o, ppath, "sp", FALSE, &p->sp, error)
      || !bpw_json_doc_get_int (r->doc, o, ppath, "zero", FALSE, 0, 3, &zero, error)
      || !bpw_json_doc_get_enum (r->doc, o, ppath, "schedule", FALSE, schedule_names,
                                 &schedule, error)
      || !bpw_json_doc_get_int (r->doc, o, ppath, "interleave", FALSE, 1, G_MAXINT64,
                                &p->interleave, error)
      || !bpw_json_doc_get_int (r->doc, o, ppath, "cp", FALSE, 1, G_MAXINT64, &p->cp, error)
      || !bpw_json_doc_get_enum (r->doc, o, ppath, "cp_algorithm", FALSE, cp_algorithm_names,
                                 &cp_algorithm, error)
      || !bpw_parallel_read_pp_split (r->doc, o, ppath, p, error))
    return FALSE;
  p->cp_algorithm = (BpwCpAlgorithm) cp_algorithm;
  /* Stated together in the file, they contradict each other (as in a study's scenario);
   * "sp" alone may still meet a tensor-parallel group given elsewhere. */
  if (p->sp && p->tp == 1 && json_object_has_member (o, "tp"))
    return bpw_json_doc_error (r->doc, json_object_get_member (o, "sp"), NULL, error,
                               _("parallel.sp: sequence parallelism needs tensor parallelism "
                                 "(tp \xe2\x89\xa5 2), got tp 1"));
  p->zero = (gint) zero;
  p->schedule = (BpwSchedule) schedule;
  return TRUE;
}

static gboolean
read_micro_batch (BpwMappingReader *r,
                  JsonObject       *root,
                  const char       *path,
                  gint64           *out,
                  GError          **error)
{
  g_autofree char *full = bpw_json_doc_member_path (path, "micro_batch");
  JsonNode *node;

  if (!bpw_json_doc_get_member (r->doc, root, path, "micro_batch", FALSE, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (_bpw_mapping_node_is_string (node) && strcmp (json_node_get_string (node), "auto") == 0)
    {
      *out = 0;
      return TRUE;
    }
  if (!node_is_number (node))
    return _bpw_mapping_fail_got (r, node, full, _("a positive integer or \"auto\""), error);
  return bpw_json_doc_get_int (r->doc, root, path, "micro_batch", FALSE, 1, G_MAXINT64, out,
                               error);
}

static gboolean
read_tiers (BpwMappingReader *r,
            JsonObject       *root,
            const char       *path,
            gint             *tier,
            GError          **error)
{
  g_autofree char *tpath = bpw_json_doc_member_path (path, "tiers");
  const char *known[BPW_N_GROUPS + 1];
  GError *local = NULL;
  JsonObject *o = bpw_json_doc_get_object (r->doc, root, path, "tiers", FALSE, &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (o == NULL)
    return TRUE;
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    known[g] = bpw_group_to_string ((BpwGroupKind) g);
  known[BPW_N_GROUPS] = NULL;
  _bpw_mapping_warn_unknown (r, o, tpath, known);
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    if (!read_ref (r, o, tpath, known[g], BPW_REF_TIER, &tier[g], error))
      return FALSE;
  return TRUE;
}

static gboolean
read_algorithms (BpwMappingReader  *r,
                 JsonObject        *root,
                 const char        *path,
                 BpwCollectiveAlgo *algorithm,
                 GError           **error)
{
  g_autofree char *apath = bpw_json_doc_member_path (path, "collective_algorithms");
  GError *local = NULL;
  JsonArray *arr = bpw_json_doc_get_array (r->doc, root, path, "collective_algorithms", FALSE,
                                           &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (arr == NULL)
    return TRUE;
  if (json_array_get_length (arr) > BPW_MAPPING_MAX_TIERS)
    return bpw_json_doc_error (r->doc, bpw_json_doc_get_array_node (r->doc, arr), apath, error,
                               _("expected at most %d entries, one per interconnect tier, got %u"),
                               BPW_MAPPING_MAX_TIERS, json_array_get_length (arr));
  memset (algorithm, 0, BPW_MAPPING_MAX_TIERS * sizeof *algorithm);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *node = json_array_get_element (arr, i);
      g_autofree char *p = g_strdup_printf ("%s[%u]", apath, i);

      if (_bpw_mapping_node_is_string (node) && strcmp (json_node_get_string (node), "auto") == 0)
        continue;
      if (!_bpw_mapping_node_is_string (node)
          || !bpw_collective_algo_from_string (json_node_get_string (node), &algorithm[i]))
        return _bpw_mapping_fail_got (r, node, p, _("one of \"auto\", \"ring\", \"tree\", \"in-network\", "
                         "\"direct\", \"hierarchical\", \"dimension-ordered\""), error);
    }
  return TRUE;
}

static gboolean
read_fusion (BpwMappingReader *r,
             JsonObject       *root,
             const char       *path,
             guint            *fusion,
             GError          **error)
{
  g_autofree char *fpath = bpw_json_doc_member_path (path, "fusion");
  JsonNode *member = json_object_get_member (root, "fusion");
  GError *local = NULL;
  JsonArray *arr;
  guint flags = 0;

  /* "auto": left to the blueprint (its stack's list, or flash attention where it runs). */
  if (member != NULL && _bpw_mapping_node_is_string (member)
      && g_strcmp0 (json_node_get_string (member), "auto") == 0)
    {
      *fusion = BPW_FUSION_AUTOMATIC;
      return TRUE;
    }
  arr = bpw_json_doc_get_array (r->doc, root, path, "fusion", FALSE, &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (arr == NULL)
    return TRUE;
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *node = json_array_get_element (arr, i);
      g_autofree char *p = g_strdup_printf ("%s[%u]", fpath, i);
      BpwFusion f;

      if (!_bpw_mapping_node_is_string (node) || !bpw_fusion_from_string (json_node_get_string (node), &f))
        return _bpw_mapping_fail_got (r, node, p, _("one of \"attention\", \"bias_activation\", "
                         "\"norm_residual\", \"optimizer\""), error);
      if (flags & f)
        return bpw_json_doc_error (r->doc, node, p, error, _("\"%s\" is listed twice"),
                                   json_node_get_string (node));
      flags |= f;
    }
  *fusion = flags;
  return TRUE;
}

static gboolean
read_tiling (BpwMappingReader *r,
             JsonObject       *root,
             const char       *path,
             BpwTiling        *tiling,
             GError          **error)
{
  g_autofree char *tpath = bpw_json_doc_member_path (path, "tiling");
  JsonNode *node;
  JsonObject *o;
  BpwTiling t = { FALSE, 0, 0, 0 };

  if (!bpw_json_doc_get_member (r->doc, root, path, "tiling", FALSE, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (_bpw_mapping_node_is_string (node) && strcmp (json_node_get_string (node), "auto") == 0)
    {
      *tiling = (BpwTiling) { TRUE, 0, 0, 0 };
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return _bpw_mapping_fail_got (r, node, tpath, _("\"auto\" or a tile {\"m\": M, \"n\": N, \"k\": K}"), error);
  o = json_node_get_object (node);
  _bpw_mapping_warn_unknown (r, o, tpath, tiling_keys);
  if (!bpw_json_doc_get_int (r->doc, o, tpath, "m", TRUE, 1, BPW_MAPPING_MAX_TILE, &t.m, error)
      || !bpw_json_doc_get_int (r->doc, o, tpath, "n", TRUE, 1, BPW_MAPPING_MAX_TILE, &t.n, error)
      || !bpw_json_doc_get_int (r->doc, o, tpath, "k", TRUE, 1, BPW_MAPPING_MAX_TILE, &t.k, error))
    return FALSE;
  *tiling = t;
  return TRUE;
}

/* One class of "precision": members absent keep their values. */
typedef const char *(*BpwNameFunc) (guint value);

static const char *
primitive_name (guint value)
{
  return bpw_primitive_to_string ((BpwPrimitive) value);
}

static const char *
tensor_kind_name (guint value)
{
  return bpw_tensor_kind_to_string ((BpwTensorKind) value);
}

/* "engines" / "placement": an object keyed by an enum of the core's vocabulary. */
static gboolean
read_keyed (BpwMappingReader *r,
            JsonObject       *root,
            const char       *path,
            const char       *member,
            BpwNameFunc       name_of,
            guint             n,
            BpwRefKind        kind,
            gint             *values,
            GError          **error)
{
  g_autofree char *kpath = bpw_json_doc_member_path (path, member);
  g_autoptr(GList) members = NULL;
  GError *local = NULL;
  JsonObject *o = bpw_json_doc_get_object (r->doc, root, path, member, FALSE, &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (o == NULL)
    return TRUE;
  members = json_object_get_members (o);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      guint v = 0;

      while (v < n && strcmp (name_of (v), l->data) != 0)
        v++;
      if (v == n)
        {
          g_autofree char *full = bpw_json_doc_member_path (kpath, l->data);
          g_autoptr(GString) names = g_string_new (NULL);

          for (guint i = 0; i < n; i++)
            g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", name_of (i));
          return bpw_json_doc_error (r->doc, json_object_get_member (o, l->data), full, error,
                                     _("unknown %s '%s'; expected one of %s"),
                                     kind == BPW_REF_ENGINE ? _("primitive") : _("tensor kind"),
                                     (const char *) l->data, names->str);
        }
      if (!read_ref (r, o, kpath, l->data, kind, &values[v], error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_overlap (BpwMappingReader *r,
              JsonObject       *root,
              const char       *path,
              BpwMapping       *m,
              GError          **error)
{
  g_autofree char *opath = bpw_json_doc_member_path (path, "overlap");
  GError *local = NULL;
  JsonObject *o = bpw_json_doc_get_object (r->doc, root, path, "overlap", FALSE, &local);
  int tp = m->tp_overlap;

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (o == NULL)
    return TRUE;
  _bpw_mapping_warn_unknown (r, o, opath, overlap_keys);
  if (!bpw_json_doc_get_bool (r->doc, o, opath, "dp", FALSE, &m->dp_overlap, error)
      || !bpw_json_doc_get_enum (r->doc, o, opath, "tp", FALSE, tp_overlap_names, &tp, error))
    return FALSE;
  m->tp_overlap = (BpwTpOverlap) tp;
  return TRUE;
}

/* Reads every mapping member of @object into @m (which the caller discards on failure). */
static gboolean
read_body (BpwMappingReader   *r,
           JsonObject         *object,
           const char         *path,
           const char * const *known,
           BpwMapping         *m,
           GError            **error)
{
  const char *name = NULL, *description = NULL;
  int recompute = m->recompute < 0 ? 3 : m->recompute;

  _bpw_mapping_warn_unknown (r, object, path, known);
  if (!bpw_json_doc_get_string (r->doc, object, path, "name", FALSE, &name, error)
      || !bpw_json_doc_get_string (r->doc, object, path, "description", FALSE, &description,
                                   error)
      || !read_parallel (r, object, path, &m->parallel, error)
      || !read_micro_batch (r, object, path, &m->micro_batch, error)
      || !bpw_json_doc_get_enum (r->doc, object, path, "recompute", FALSE, recompute_names,
                                 &recompute, error)
      || !read_tiers (r, object, path, m->tier, error)
      || !read_algorithms (r, object, path, m->algorithm, error)
      || !read_fusion (r, object, path, &m->fusion, error)
      || !read_tiling (r, object, path, &m->tiling, error)
      || !read_keyed (r, object, path, "engines", primitive_name, BPW_N_PRIMITIVES,
                      BPW_REF_ENGINE, m->engine, error)
      || !read_keyed (r, object, path, "placement", tensor_kind_name, BPW_N_TENSOR_KINDS,
                      BPW_REF_MEMORY, m->placement, error)
      || !read_overlap (r, object, path, m, error)
      || !_bpw_mapping_read_precision (r, object, path, &m->precision, error)
      || !bpw_json_doc_get_bool (r->doc, object, path, "sp_gather_again", FALSE,
                                 &m->sp_gather_again, error))
    return FALSE;
  m->recompute = recompute == 3 ? -1 : recompute;
  if (name != NULL)
    {
      g_free (m->name);
      m->name = g_strdup (name);
    }
  return TRUE;
}

/* Reads over a copy of @mapping and replaces it only on success. */
static gboolean
read_over (BpwMappingReader   *r,
           JsonObject         *object,
           const char         *path,
           const char * const *known,
           BpwMapping         *mapping,
           GError            **error)
{
  BpwMapping tmp;

  bpw_mapping_copy (&tmp, mapping);
  if (!read_body (r, object, path, known, &tmp, error))
    {
      bpw_mapping_clear (&tmp);
      return FALSE;
    }
  bpw_mapping_clear (mapping);
  *mapping = tmp;
  return TRUE;
}

gboolean
bpw_mapping_read_object (BpwJsonDoc         *doc,
                         JsonObject         *object,
                         const char         *path,
                         const BpwBlueprint *blueprint,
                         BpwMapping         *mapping,
                         GPtrArray          *warnings,
                         GError            **error)
{
  /* The file's members less "$schema", "format" and "version". */
  BpwMappingReader r = { doc, blueprint, warnings };

  g_return_val_if_fail (doc != NULL && object != NULL && mapping != NULL, FALSE);
  return read_over (&r, object, path, file_keys + 3, mapping, error);
}

gboolean
_bpw_mapping_read_file_object (BpwJsonDoc         *doc,
                               JsonObject         *object,
                               const BpwBlueprint *blueprint,
                               gboolean            names_later,
                               BpwMapping         *mapping,
                               GPtrArray          *warnings,
                               GError            **error)
{
  BpwMappingReader r = { doc, blueprint, warnings, names_later };

  return read_over (&r, object, "", file_keys, mapping, error);
}

gboolean
bpw_mapping_check_micro_batch_file (const char        *path,
                                    const BpwScenario *scenario,
                                    const BpwParallel *parallel,
                                    GError           **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  JsonNode *root, *node;
  gint64 micro_batch, per_replica;

  g_return_val_if_fail (path != NULL && scenario != NULL && parallel != NULL, FALSE);

  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return FALSE;
  root = bpw_json_doc_get_root (doc);
  /* The file was read already; only a whole micro-batch it states is checked here. */
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return TRUE;
  node = json_object_get_member (json_node_get_object (root), "micro_batch");
  if (node == NULL || !node_is_number (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return TRUE;
  micro_batch = json_node_get_int (node);
  if (micro_batch < 1 || parallel->dp < 1 || scenario->global_batch < 1)
    return TRUE;
  per_replica = scenario->global_batch / parallel->dp;
  if (micro_batch > per_replica || scenario->global_batch % parallel->dp != 0
      || per_replica % micro_batch != 0)
    return bpw_json_doc_error (doc, node, "micro_batch", error,
                               _("%" PRId64 " sequences do not split the global batch "
                                 "of %" PRId64 " over dp %" PRId64 " into whole "
                                 "micro-batches"), micro_batch, scenario->global_batch,
                               parallel->dp);
  return TRUE;
}

gboolean
bpw_mapping_check_pp_layers_file (const char         *path,
                                  const BpwModelSpec *spec,
                                  const BpwParallel  *parallel,
                                  GError            **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  g_autoptr(GError) rule = NULL;
  JsonNode *root, *node = NULL, *member;

  g_return_val_if_fail (path != NULL && spec != NULL && parallel != NULL, FALSE);

  if (bpw_stage_split_check (parallel, spec, &rule))
    return TRUE;
  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return FALSE;
  root = bpw_json_doc_get_root (doc);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    {
      member = json_object_get_member (json_node_get_object (root), "parallel");
      if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
        {
          JsonObject *o = json_node_get_object (member);

          node = json_object_get_member (o, "pp_layers");
          if (node == NULL)
            node = json_object_get_member (o, "pp_lighter");
        }
    }
  /* A split the file does not state is the scenario's business, not the file's. */
  if (node == NULL)
    return TRUE;
  return bpw_json_doc_error (doc, node, NULL, error, "%s", rule->message);
}

gboolean
bpw_mapping_check_file_refs (const char         *path,
                             const BpwBlueprint *blueprint,
                             GError            **error)
{
  g_autoptr(BpwJsonDoc) doc = NULL;
  BpwMappingReader r = { NULL, blueprint, NULL };
  JsonNode *root;
  BpwMapping m;
  gboolean ok;

  g_return_val_if_fail (path != NULL && blueprint != NULL, FALSE);

  doc = bpw_json_doc_new_from_file (path, error);
  if (doc == NULL)
    return FALSE;
  root = bpw_json_doc_get_root (doc);
  /* The file was read already without the blueprint; only its references are new here. */
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return TRUE;
  r.doc = doc;
  bpw_mapping_init_defaults (&m);
  ok = read_over (&r, json_node_get_object (root), "", file_keys, &m, error);
  bpw_mapping_clear (&m);
  return ok;
}
