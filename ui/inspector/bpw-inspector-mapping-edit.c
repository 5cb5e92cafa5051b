/* bpw-inspector-mapping-edit.c — a row's change as one member of a mapping object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An edit on the Mapping page writes exactly the member the row stands for, into the
 * candidate's mapping object or, when the page edits "for this scenario only", into the
 * candidate's mapping for the selected scenario. Everything else in that object stays as
 * written, so that a saved study says what the user chose and nothing more. Tiers, engines
 * and memory levels are written by name, which stays right when a blueprint reorders them.
 */
#define G_LOG_DOMAIN "bpw-inspector-mapping-edit"

#include "config.h"

#include <string.h>

#include "bpw-inspector-mapping-private.h"
#include "bpw-json-writer.h"

static const char * const parallel_members[] = { "tp", "pp", "dp", "ep", "cp" };
static const char * const tile_members[] = { "m", "n", "k" };

BpwMappingField
_bpw_inspector_mapping_field (GtkWidget *row)
{
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "bpw-mapping-field"));
}

guint
_bpw_inspector_mapping_index (GtkWidget *row)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "bpw-mapping-index"));
}

/* The member @row writes: @outer of the mapping object and, inside it, @inner (NULL when
 * the whole member is the value). */
static void
bpw_inspector_mapping_member (GtkWidget   *row,
                              const char **outer,
                              const char **inner)
{
  guint index = _bpw_inspector_mapping_index (row);

  *inner = NULL;
  switch (_bpw_inspector_mapping_field (row))
    {
    case BPW_MAPPING_FIELD_PARALLEL:
      *outer = "parallel";
      *inner = parallel_members[index];
      break;
    case BPW_MAPPING_FIELD_SP: *outer = "parallel"; *inner = "sp"; break;
    case BPW_MAPPING_FIELD_ZERO: *outer = "parallel"; *inner = "zero"; break;
    case BPW_MAPPING_FIELD_SCHEDULE: *outer = "parallel"; *inner = "schedule"; break;
    case BPW_MAPPING_FIELD_INTERLEAVE: *outer = "parallel"; *inner = "interleave"; break;
    case BPW_MAPPING_FIELD_CP_ALGORITHM: *outer = "parallel"; *inner = "cp_algorithm"; break;
    case BPW_MAPPING_FIELD_PP_SPLIT: *outer = "parallel"; *inner = "pp_split"; break;
    case BPW_MAPPING_FIELD_PP_LIGHTER: *outer = "parallel"; *inner = "pp_lighter"; break;
    case BPW_MAPPING_FIELD_PP_LAYERS: *outer = "parallel"; *inner = "pp_layers"; break;
    case BPW_MAPPING_FIELD_SP_GATHER: *outer = "sp_gather_again"; break;
    case BPW_MAPPING_FIELD_MICRO_BATCH: *outer = "micro_batch"; break;
    case BPW_MAPPING_FIELD_RECOMPUTE: *outer = "recompute"; break;
    case BPW_MAPPING_FIELD_FUSION: *outer = "fusion"; break;
    case BPW_MAPPING_FIELD_DP_OVERLAP: *outer = "overlap"; *inner = "dp"; break;
    case BPW_MAPPING_FIELD_TP_OVERLAP: *outer = "overlap"; *inner = "tp"; break;
    case BPW_MAPPING_FIELD_TIER:
      *outer = "tiers";
      *inner = bpw_group_to_string ((BpwGroupKind) index);
      break;
    /* Lists and the tile are replaced whole. */
    case BPW_MAPPING_FIELD_ALGORITHM: *outer = "collective_algorithms"; break;
    case BPW_MAPPING_FIELD_TILING:
    case BPW_MAPPING_FIELD_TILE:
      *outer = "tiling";
      break;
    case BPW_MAPPING_FIELD_ENGINE:
      *outer = "engines";
      *inner = bpw_primitive_to_string ((BpwPrimitive) index);
      break;
    case BPW_MAPPING_FIELD_PLACEMENT:
      *outer = "placement";
      *inner = bpw_tensor_kind_to_string ((BpwTensorKind) index);
      break;
    default:
      g_assert_not_reached ();
    }
}

gboolean
_bpw_inspector_mapping_is_set (GtkWidget  *row,
                               JsonObject *object)
{
  const char *outer, *inner;
  JsonNode *node;

  if (object == NULL)
    return FALSE;
  if (_bpw_inspector_mapping_field (row) >= BPW_MAPPING_FIELD_WEIGHTS)
    return _bpw_inspector_precision_is_set (row, object);
  bpw_inspector_mapping_member (row, &outer, &inner);
  node = json_object_get_member (object, outer);
  /* A tier's algorithm is set where its entry of the list names one. */
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node)
      && _bpw_inspector_mapping_field (row) == BPW_MAPPING_FIELD_ALGORITHM)
    {
      JsonArray *list = json_node_get_array (node);
      guint index = _bpw_inspector_mapping_index (row);

      JsonNode *entry = index < json_array_get_length (list)
                        ? json_array_get_element (list, index) : NULL;

      return entry != NULL && !(JSON_NODE_HOLDS_VALUE (entry)
                                && g_strcmp0 (json_node_get_string (entry), "auto") == 0);
    }
  if (node == NULL || inner == NULL)
    return node != NULL;
  /* The way of splitting is set by whichever of its three members is there. */
  if (_bpw_inspector_mapping_field (row) == BPW_MAPPING_FIELD_PP_SPLIT
      && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *parallel = json_node_get_object (node);

      return json_object_has_member (parallel, "pp_split")
             || json_object_has_member (parallel, "pp_lighter")
             || json_object_has_member (parallel, "pp_layers");
    }
  return JSON_NODE_HOLDS_OBJECT (node) && json_object_has_member (json_node_get_object (node),
                                                                  inner);
}

static JsonObject *
bpw_inspector_mapping_member_object (JsonObject *root,
                                     const char *member)
{
  JsonNode *node = json_object_get_member (root, member);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      json_object_set_object_member (root, member, json_object_new ());
      node = json_object_get_member (root, member);
    }
  return json_node_get_object (node);
}

/* A copy of the object the edits go to, which the edit may change freely. */
static JsonNode *
bpw_inspector_mapping_target (BpwInspector *self)
{
  const BpwStudyCandidate *c = bpw_study_get_candidate (self->study, self->candidate);
  const char *scenario = bpw_study_get_scenario (self->study, self->scenario)->name;
  JsonObject *own = bpw_study_candidate_get_scenario_mapping (c, scenario);
  g_autoptr(JsonObject) empty = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  BpwJsonWriter w;

  if (!self->scenario_only)
    node = json_node_ref (c->mapping);
  else if (own != NULL)
    node = json_node_init_object (json_node_alloc (), own);
  else
    {
      empty = json_object_new ();
      return json_node_init_object (json_node_alloc (), empty);
    }
  /* A copy of its own: json_node_copy() would share the study's object. */
  bpw_json_writer_init (&w, FALSE);
  bpw_json_writer_node (&w, NULL, node);
  text = bpw_json_writer_finish (&w);
  return json_from_string (text, NULL);
}

static void
bpw_inspector_mapping_commit (BpwInspector *self,
                              GtkWidget    *row,
                              JsonNode     *node)
{
  const char *label = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row));
  BpwStudyEdit *edit;

  if (self->scenario_only)
    edit = bpw_study_edit_new_scenario_mapping (self->study, self->candidate,
                                                bpw_study_get_scenario (self->study,
                                                                        self->scenario)->name,
                                                node, label);
  else
    edit = bpw_study_edit_new_mapping (self->study, self->candidate, node, label);
  _bpw_inspector_apply (self, row, edit);
}

static void
bpw_inspector_mapping_set_ref (JsonObject   *object,
                               const char   *member,
                               gint          value,
                               const char   *automatic,
                               const char   *(*name_of) (const BpwBlueprint *, gint),
                               const BpwBlueprint *bp)
{
  if (value == -1)
    json_object_set_string_member (object, member, automatic);
  else if (value == BPW_PLACEMENT_HOST)
    json_object_set_string_member (object, member, "host");
  else if (bp != NULL && name_of (bp, value) != NULL)
    json_object_set_string_member (object, member, name_of (bp, value));
  else
    json_object_set_int_member (object, member, value);
}

static const char *
tier_name (const BpwBlueprint *bp, gint i)
{
  return (guint) i < bp->n_tiers ? bp->tiers[i].name : NULL;
}

static const char *
engine_name (const BpwBlueprint *bp, gint i)
{
  return (guint) i < bp->n_engines ? bp->engines[i].name : NULL;
}

static const char *
memory_name (const BpwBlueprint *bp, gint i)
{
  return (guint) i < bp->n_memory ? bp->memory[i].name : NULL;
}

/* The list of algorithms per tier with tier @tier's replaced; "auto" entries past the last
 * chosen one are what the reader assumes, so they are left out. */
static JsonArray *
bpw_inspector_mapping_algorithms (const BpwMapping *m,
                                  guint             tier,
                                  BpwCollectiveAlgo algo)
{
  BpwCollectiveAlgo list[BPW_MAPPING_MAX_TIERS];
  JsonArray *array = json_array_new ();
  guint n = 0;

  memcpy (list, m->algorithm, sizeof list);
  if (tier < BPW_MAPPING_MAX_TIERS)
    list[tier] = algo;
  for (guint t = 0; t < BPW_MAPPING_MAX_TIERS; t++)
    if (list[t] != 0)
      n = t + 1;
  for (guint t = 0; t < n; t++)
    json_array_add_string_element (array, list[t] != 0 ? bpw_collective_algo_to_string (list[t])
                                                       : "auto");
  return array;
}

static void
bpw_inspector_mapping_set_tile (JsonObject       *root,
                                const BpwTiling  *tiling,
                                gint              edge,
                                gint64            value)
{
  gint64 tile[3] = { BPW_INSPECTOR_TILE_M, BPW_INSPECTOR_TILE_N, BPW_INSPECTOR_TILE_K };
  JsonObject *object = json_object_new ();

  if (!tiling->automatic)
    {
      tile[0] = tiling->m;
      tile[1] = tiling->n;
      tile[2] = tiling->k;
    }
  if (edge >= 0)
    tile[edge] = value;
  for (guint i = 0; i < G_N_ELEMENTS (tile); i++)
    json_object_set_int_member (object, tile_members[i], tile[i]);
  json_object_set_object_member (root, "tiling", object);
}

/* Writes @value as @row's member of @root; @view shows the mapping the scenario runs with
 * now. */
static void
bpw_inspector_mapping_write (GtkWidget            *row,
                             JsonObject           *root,
                             gint64                value,
                             gboolean              scenario_only,
                             const BpwMappingView *view)
{
  const BpwMapping *m = &view->run.mapping;
  const BpwBlueprint *bp = view->run.blueprint;
  guint index = _bpw_inspector_mapping_index (row);
  const char *outer, *inner;

  /* Weight-only quantisation writes two classes of the precision policy. */
  if (_bpw_inspector_mapping_field (row) >= BPW_MAPPING_FIELD_WEIGHTS)
    {
      _bpw_inspector_precision_write (row, root, value, scenario_only, m);
      return;
    }
  bpw_inspector_mapping_member (row, &outer, &inner);
  switch (_bpw_inspector_mapping_field (row))
    {
    case BPW_MAPPING_FIELD_PARALLEL:
    case BPW_MAPPING_FIELD_ZERO:
    case BPW_MAPPING_FIELD_INTERLEAVE:
      json_object_set_int_member (bpw_inspector_mapping_member_object (root, outer), inner,
                                  value);
      break;
    case BPW_MAPPING_FIELD_SP:
    case BPW_MAPPING_FIELD_DP_OVERLAP:
      json_object_set_boolean_member (bpw_inspector_mapping_member_object (root, outer), inner,
                                      value != 0);
      break;
    case BPW_MAPPING_FIELD_SCHEDULE:
      json_object_set_string_member (bpw_inspector_mapping_member_object (root, outer), inner,
                                     bpw_schedule_to_string ((BpwSchedule) value));
      break;
    case BPW_MAPPING_FIELD_TP_OVERLAP:
      json_object_set_string_member (bpw_inspector_mapping_member_object (root, outer), inner,
                                     bpw_tp_overlap_to_string ((BpwTpOverlap) value));
      break;
    case BPW_MAPPING_FIELD_CP_ALGORITHM:
      json_object_set_string_member (bpw_inspector_mapping_member_object (root, outer), inner,
                                     bpw_cp_algorithm_to_string ((BpwCpAlgorithm) value));
      break;
    case BPW_MAPPING_FIELD_PP_SPLIT:
    case BPW_MAPPING_FIELD_PP_LIGHTER:
      _bpw_inspector_pipeline_write (row, bpw_inspector_mapping_member_object (root, outer),
                                     value, view);
      break;
    case BPW_MAPPING_FIELD_SP_GATHER:
      json_object_set_boolean_member (root, outer, value != 0);
      break;
    case BPW_MAPPING_FIELD_MICRO_BATCH:
      json_object_set_int_member (root, outer, value);
      break;
    case BPW_MAPPING_FIELD_RECOMPUTE:
      /* The first choice is "as the scenario says": for the candidate, no member at all;
       * for one scenario, "auto", which also overrides what the candidate says. */
      if (value == 0 && !scenario_only)
        json_object_remove_member (root, outer);
      else
        json_object_set_string_member (root, outer, value == 0 ? "auto"
                                       : bpw_recompute_to_string ((BpwRecompute) (value - 1)));
      break;
    case BPW_MAPPING_FIELD_FUSION:
      {
        /* Editing one fusion of the automatic list states the whole list as resolved. */
        guint base = bp != NULL ? bpw_mapping_resolve_fusion (m->fusion, bp)
                     : m->fusion == BPW_FUSION_AUTOMATIC ? BPW_FUSION_BASE : m->fusion;
        guint fusion = value ? base | index : base & ~index;
        JsonArray *list = json_array_new ();

        for (guint f = 0; f < BPW_N_FUSIONS; f++)
          if (fusion & (1u << f))
            json_array_add_string_element (list, bpw_fusion_to_string (1u << f));
        json_object_set_array_member (root, outer, list);
      }
      break;
    case BPW_MAPPING_FIELD_TIER:
      bpw_inspector_mapping_set_ref (bpw_inspector_mapping_member_object (root, outer), inner,
                                     (gint) value, "auto", tier_name, bp);
      break;
    case BPW_MAPPING_FIELD_ALGORITHM:
      json_object_set_array_member (root, outer,
                                    bpw_inspector_mapping_algorithms (m, index,
                                                                      (BpwCollectiveAlgo) value));
      break;
    case BPW_MAPPING_FIELD_TILING:
      if (value)
        json_object_set_string_member (root, outer, "auto");
      else
        bpw_inspector_mapping_set_tile (root, &m->tiling, -1, 0);
      break;
    case BPW_MAPPING_FIELD_TILE:
      bpw_inspector_mapping_set_tile (root, &m->tiling, (gint) index, value);
      break;
    case BPW_MAPPING_FIELD_ENGINE:
      bpw_inspector_mapping_set_ref (bpw_inspector_mapping_member_object (root, outer), inner,
                                     (gint) value, "auto", engine_name, bp);
      break;
    case BPW_MAPPING_FIELD_PLACEMENT:
      bpw_inspector_mapping_set_ref (bpw_inspector_mapping_member_object (root, outer), inner,
                                     (gint) value, "device", memory_name, bp);
      break;
    default:
      g_assert_not_reached ();
    }
}

void
_bpw_inspector_mapping_apply (BpwInspector *self,
                              GtkWidget    *row,
                              gint64        value)
{
  g_autoptr(JsonNode) node = bpw_inspector_mapping_target (self);
  BpwMappingView view;

  _bpw_inspector_mapping_view_init (self, &view);
  bpw_inspector_mapping_write (row, json_node_get_object (node), value, self->scenario_only,
                               &view);
  _bpw_inspector_mapping_view_clear (&view);
  bpw_inspector_mapping_commit (self, row, node);
}

void
_bpw_inspector_mapping_apply_layers (BpwInspector  *self,
                                     GtkWidget     *row,
                                     const guint32 *layers,
                                     guint          n_layers)
{
  g_autoptr(JsonNode) node = bpw_inspector_mapping_target (self);
  JsonObject *parallel = bpw_inspector_mapping_member_object (json_node_get_object (node),
                                                              "parallel");
  JsonArray *list = json_array_new ();

  /* The file gives one way of splitting (bpw_parallel_read_pp_split()). */
  json_object_remove_member (parallel, "pp_split");
  json_object_remove_member (parallel, "pp_lighter");
  for (guint i = 0; i < n_layers; i++)
    json_array_add_int_element (list, layers[i]);
  json_object_set_array_member (parallel, "pp_layers", list);
  bpw_inspector_mapping_commit (self, row, node);
}

void
_bpw_inspector_mapping_unset (BpwInspector *self,
                              GtkWidget    *row)
{
  g_autoptr(JsonNode) node = bpw_inspector_mapping_target (self);
  JsonObject *root = json_node_get_object (node);
  const char *outer, *inner;
  JsonNode *member;

  if (_bpw_inspector_mapping_field (row) >= BPW_MAPPING_FIELD_WEIGHTS)
    {
      if (_bpw_inspector_precision_unset (row, root))
        bpw_inspector_mapping_commit (self, row, node);
      return;
    }
  bpw_inspector_mapping_member (row, &outer, &inner);
  member = json_object_get_member (root, outer);
  if (member == NULL)
    return;
  if (inner != NULL && JSON_NODE_HOLDS_OBJECT (member))
    {
      json_object_remove_member (json_node_get_object (member), inner);
      /* An emptied object says nothing; leave no trace of it. */
      if (json_object_get_size (json_node_get_object (member)) == 0)
        json_object_remove_member (root, outer);
    }
  else
    json_object_remove_member (root, outer);
  bpw_inspector_mapping_commit (self, row, node);
}

void
_bpw_inspector_mapping_drop_scenario (BpwInspector *self,
                                      GtkWidget    *row)
{
  const char *scenario = bpw_study_get_scenario (self->study, self->scenario)->name;

  _bpw_inspector_apply (self, row,
                        bpw_study_edit_new_scenario_mapping (self->study, self->candidate,
                                                             scenario, NULL,
                                                             adw_preferences_row_get_title (
                                                               ADW_PREFERENCES_ROW (row))));
}
