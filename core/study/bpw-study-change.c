/* bpw-study-change.c — changing a study in place: inline blueprints, scenarios, mappings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The workbench edits a study value by value. A blueprint a study names (bundled or a file)
 * is edited as an inline copy of the same name, held in the study's "blueprints" list as
 * an object: it shadows what the name meant before, so every candidate that names it uses
 * the edited values, and removing the copy restores the original. Scenarios and candidate
 * mappings are replaced whole, after the same checks the reader makes.
 */
#define G_LOG_DOMAIN "bpw-study-change"

#include "config.h"

#include <string.h>

#include "bpw-blueprint-io.h"
#include "bpw-blueprint-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-dump-private.h"
#include "bpw-mapping.h"
#include "bpw-study-private.h"

/* "FILE:L:C: engines[0].peak: reason" → "FILE:L:C: blueprints[1].engines[0].peak: reason":
 * the blueprint reader names paths from the blueprint's own root. */
static char *
bpw_study_prefix_path (const char *message,
                       const char *filename,
                       const char *prefix)
{
  const char *rest = message;
  const char *colon;
  gboolean is_path = TRUE;

  if (g_str_has_prefix (rest, filename))
    {
      rest += strlen (filename);
      /* ":LINE:COL" */
      for (int i = 0; i < 2 && rest[0] == ':' && g_ascii_isdigit (rest[1]); i++)
        for (rest++; g_ascii_isdigit (*rest); rest++)
          ;
      if (g_str_has_prefix (rest, ": "))
        rest += 2;
    }
  else
    rest = message;

  colon = strstr (rest, ": ");
  if (colon == NULL || colon == rest)
    is_path = FALSE;
  for (const char *p = rest; is_path && p < colon; p++)
    is_path = g_ascii_isalnum (*p) || strchr ("_$[].", *p) != NULL;

  if (is_path)
    return g_strdup_printf ("%.*s%s.%s", (int) (rest - message), message, prefix, rest);
  return g_strdup_printf ("%.*s%s: %s", (int) (rest - message), message, prefix, rest);
}

JsonNode *
_bpw_study_json_copy (JsonNode *node)
{
  JsonNode *result;

  /* json_node_copy() shares objects and arrays; an edit must own what it keeps. */
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *copy = json_object_new ();
      JsonObjectIter iter;
      const char *member;
      JsonNode *value;

      /* In the order written, so that a saved study keeps its members' order. */
      json_object_iter_init_ordered (&iter, json_node_get_object (node));
      while (json_object_iter_next_ordered (&iter, &member, &value))
        json_object_set_member (copy, member, _bpw_study_json_copy (value));
      /* Taken, not referenced again: json_node_init_object() would leak @copy. */
      result = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (result, copy);
      return result;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *source = json_node_get_array (node);
      JsonArray *copy = json_array_sized_new (json_array_get_length (source));

      for (guint i = 0; i < json_array_get_length (source); i++)
        json_array_add_element (copy, _bpw_study_json_copy (json_array_get_element (source, i)));
      result = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (result, copy);
      return result;
    }
  return json_node_copy (node);
}

gboolean
_bpw_study_read_inline_blueprint (BpwStudy    *self,
                                  BpwJsonDoc  *doc,
                                  JsonNode    *node,
                                  const char  *path,
                                  GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(BpwBlueprint) bp = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  const char *filename = bpw_json_doc_get_filename (doc);
  char *name;

  if (bpw_blueprint_detect_format (node) != BPW_BLUEPRINT_FORMAT_NATIVE)
    return bpw_json_doc_error (doc, node, path, error,
                               _("expected a native blueprint object (\"format\": "
                               "\"bpw-blueprint\"), a bundled blueprint name or a file path"));

  bp = _bpw_blueprint_read_native (doc, json_node_get_object (node), warnings, &local_error);
  if (bp != NULL && !bpw_blueprint_validate (bp, &local_error))
    g_clear_pointer (&bp, bpw_blueprint_free);
  for (guint i = 0; i < warnings->len; i++)
    g_ptr_array_add (self->warnings,
                     bpw_study_prefix_path (g_ptr_array_index (warnings, i), filename, path));
  if (bp == NULL)
    {
      g_autofree char *message = bpw_study_prefix_path (local_error->message, filename, path);

      g_set_error_literal (error, local_error->domain, local_error->code, message);
      return FALSE;
    }
  if (bp->name[0] == '\0')
    return bpw_json_doc_error (doc, node, path, error, _("expected a non-empty \"name\""));
  if (g_hash_table_contains (self->inline_blueprints, bp->name))
    {
      g_autofree char *npath = g_strdup_printf ("%s.name", path);
      JsonNode *member = json_object_get_member (json_node_get_object (node), "name");

      return bpw_json_doc_error (doc, member, npath, error,
                                 _("the blueprint name \"%s\" is already used; names must be "
                                 "unique"), bp->name);
    }

  g_free (bp->origin);
  bp->origin = g_strdup (filename);
  bpw_study_add_blueprint (self, bp->name);
  name = g_strdup (bp->name);
  g_hash_table_insert (self->inline_blueprints, name, g_steal_pointer (&bp));
  return TRUE;
}

JsonNode *
_bpw_study_inline_blueprint_to_node (BpwStudy   *self,
                                     const char *name)
{
  const BpwBlueprint *bp = g_hash_table_lookup (self->inline_blueprints, name);
  g_autofree char *json = NULL;

  if (bp == NULL)
    return NULL;
  /* The blueprint writer's text is exact (shortest round-trip numbers), and so is the
   * study's dump of the parsed tree. */
  json = bpw_blueprint_to_json (bp);
  return json_from_string (json, NULL);
}

const BpwBlueprint *
bpw_study_lookup_inline_blueprint (BpwStudy   *self,
                                   const char *name)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);

  return name != NULL ? g_hash_table_lookup (self->inline_blueprints, name) : NULL;
}

gboolean
bpw_study_set_inline_blueprint (BpwStudy            *self,
                                const BpwBlueprint  *blueprint,
                                GError             **error)
{
  BpwBlueprint *copy;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (blueprint != NULL, FALSE);

  if (blueprint->name == NULL || blueprint->name[0] == '\0')
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("blueprints: a blueprint held in the study needs a name"));
      return FALSE;
    }
  if (!bpw_blueprint_validate (blueprint, error))
    return FALSE;

  copy = bpw_blueprint_copy (blueprint);
  bpw_study_add_blueprint (self, copy->name);
  g_hash_table_replace (self->inline_blueprints, g_strdup (copy->name), copy);
  return TRUE;
}

gboolean
bpw_study_remove_inline_blueprint (BpwStudy   *self,
                                   const char *name)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  /* The name stays listed: it means the bundled blueprint or the file again. */
  return g_hash_table_remove (self->inline_blueprints, name);
}

BpwBlueprint *
bpw_study_load_blueprint (BpwStudy    *self,
                          const char  *name,
                          GError     **error)
{
  const BpwBlueprint *inline_bp;

  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  inline_bp = bpw_study_lookup_inline_blueprint (self, name);
  if (inline_bp != NULL)
    return bpw_blueprint_copy (inline_bp);
  return bpw_study_load_original_blueprint (self, name, error);
}

BpwBlueprint *
bpw_study_load_original_blueprint (BpwStudy    *self,
                                   const char  *name,
                                   GError     **error)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  /* A relative file next to the study wins over a bundled name, as in
   * bpw_candidate_run_init(). */
  if (self->base_dir != NULL && !g_path_is_absolute (name))
    {
      g_autofree char *file = g_build_filename (self->base_dir, name, NULL);

      if (g_file_test (file, G_FILE_TEST_EXISTS))
        return bpw_blueprint_load (file, NULL, error);
    }
  return bpw_blueprint_load (name, NULL, error);
}

gboolean
bpw_study_set_scenario (BpwStudy           *self,
                        guint               index,
                        const BpwScenario  *scenario,
                        const BpwParallel  *parallel,
                        GError            **error)
{
  BpwStudyScenario *sc;
  BpwStudyScenario trial = { 0 };

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (scenario != NULL && parallel != NULL, FALSE);
  g_return_val_if_fail (index < self->scenarios->len, FALSE);

  sc = &g_array_index (self->scenarios, BpwStudyScenario, index);
  trial.workload = sc->workload;
  trial.parallel = *parallel;
  bpw_scenario_copy (&trial.scenario, scenario);
  g_free (trial.scenario.name);
  trial.scenario.name = g_strdup (sc->name);
  if (!_bpw_study_validate_scenario (self, &trial, error))
    {
      bpw_scenario_clear (&trial.scenario);
      return FALSE;
    }

  bpw_scenario_clear (&sc->scenario);
  sc->scenario = trial.scenario;
  sc->parallel = trial.parallel;
  return TRUE;
}

gboolean
_bpw_study_candidate_read_mapping (const BpwStudyCandidate *c,
                                   const char              *scenario,
                                   JsonObject              *object,
                                   const BpwBlueprint      *bp,
                                   BpwMapping              *mapping,
                                   GError                 **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(BpwJsonDoc) doc = NULL;
  g_autofree char *text = NULL;
  g_autofree char *label = NULL;
  g_autofree char *path = NULL;

  if (json_object_get_size (object) == 0)
    return TRUE;
  if (scenario != NULL)
    {
      label = g_strdup_printf (_("candidate “%s” mapping for “%s”"), c->name, scenario);
      path = g_strdup_printf ("mappings.%s", scenario);
    }
  else
    {
      label = g_strdup_printf ("candidate “%s” mapping", c->name);
      path = g_strdup ("mapping");
    }
  /* Read from text, so that messages can point at a line and column of it. */
  node = json_node_init_object (json_node_alloc (), object);
  text = _bpw_json_dump (node);
  doc = bpw_json_doc_new_from_data (label, text, -1, error);
  if (doc == NULL)
    return FALSE;
  return bpw_mapping_read_object (doc, json_node_get_object (bpw_json_doc_get_root (doc)),
                                  path, bp, mapping, NULL, error);
}

static gboolean
bpw_study_candidate_not_object (const BpwStudyCandidate  *c,
                                JsonNode                 *mapping,
                                GError                  **error)
{
  if (JSON_NODE_HOLDS_OBJECT (mapping))
    return FALSE;
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("candidate “%s”: the mapping must be an object"), c->name);
  return TRUE;
}

gboolean
bpw_study_set_candidate_mapping (BpwStudy    *self,
                                 guint        index,
                                 JsonNode    *mapping,
                                 GError     **error)
{
  BpwStudyCandidate *c;
  g_autoptr(BpwBlueprint) bp = NULL;
  BpwMapping check;
  gboolean ok;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (index < self->candidates->len, FALSE);
  g_return_val_if_fail (mapping != NULL, FALSE);

  c = &g_array_index (self->candidates, BpwStudyCandidate, index);
  if (bpw_study_candidate_not_object (c, mapping, error))
    return FALSE;
  bp = bpw_study_load_blueprint (self, c->blueprint, NULL);
  bpw_mapping_init_defaults (&check);
  ok = _bpw_study_candidate_read_mapping (c, NULL, json_node_get_object (mapping), bp, &check,
                                          error);
  bpw_mapping_clear (&check);
  if (!ok)
    return FALSE;

  g_clear_pointer (&c->mapping, json_node_unref);
  c->mapping = _bpw_study_json_copy (mapping);
  return TRUE;
}

JsonObject *
bpw_study_candidate_get_scenario_mapping (const BpwStudyCandidate *c,
                                          const char              *scenario)
{
  JsonNode *node;

  g_return_val_if_fail (c != NULL, NULL);

  if (scenario == NULL || c->mappings == NULL || !JSON_NODE_HOLDS_OBJECT (c->mappings))
    return NULL;
  node = json_object_get_member (json_node_get_object (c->mappings), scenario);
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

gboolean
bpw_study_set_candidate_scenario_mapping (BpwStudy    *self,
                                          guint        index,
                                          const char  *scenario,
                                          JsonNode    *mapping,
                                          GError     **error)
{
  BpwStudyCandidate *c;
  g_autoptr(BpwBlueprint) bp = NULL;
  BpwMapping check;
  gboolean ok;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (index < self->candidates->len, FALSE);
  g_return_val_if_fail (scenario != NULL, FALSE);

  c = &g_array_index (self->candidates, BpwStudyCandidate, index);
  if (!bpw_study_lookup_scenario (self, scenario, NULL))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("candidate “%s”: the study has no scenario named “%s”"), c->name,
                   scenario);
      return FALSE;
    }
  if (mapping != NULL)
    {
      if (bpw_study_candidate_not_object (c, mapping, error))
        return FALSE;
      /* Over the candidate's own mapping, as the candidate runs the scenario; a mapping
       * the candidate's own already fails on is not this edit's to refuse. */
      bp = bpw_study_load_blueprint (self, c->blueprint, NULL);
      bpw_mapping_init_defaults (&check);
      _bpw_study_candidate_read_mapping (c, NULL, json_node_get_object (c->mapping), bp,
                                         &check, NULL);
      ok = _bpw_study_candidate_read_mapping (c, scenario, json_node_get_object (mapping), bp,
                                              &check, error);
      bpw_mapping_clear (&check);
      if (!ok)
        return FALSE;
    }

  if (c->mappings == NULL || !JSON_NODE_HOLDS_OBJECT (c->mappings))
    {
      g_autoptr(JsonObject) none = json_object_new ();

      g_clear_pointer (&c->mappings, json_node_unref);
      c->mappings = json_node_init_object (json_node_alloc (), none);
    }
  if (mapping != NULL)
    json_object_set_member (json_node_get_object (c->mappings), scenario,
                            _bpw_study_json_copy (mapping));
  else
    json_object_remove_member (json_node_get_object (c->mappings), scenario);
  return TRUE;
}

void
bpw_study_remove_candidate (BpwStudy *self,
                            guint     index)
{
  g_return_if_fail (BPW_IS_STUDY (self));
  g_return_if_fail (index < self->candidates->len);

  /* The array's clear function frees the candidate. */
  g_array_remove_index (self->candidates, index);
}
