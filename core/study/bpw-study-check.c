/* bpw-study-check.c — a study's references: every candidate's blueprint and mapping load
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading a study checks its own text; the files it names are opened only when a candidate
 * runs, so a missing or wrong blueprint used to pass `bpw check` and turn into a cell error
 * that `bpw compare` printed with exit 0. This loads them all once, up front.
 */
#define G_LOG_DOMAIN "bpw-study-check"

#include "config.h"

#include "bpw-study.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-study-private.h"

/* The member @member of the @index-th element of the root's @list, or the root. */
static JsonNode *
bpw_study_check_locate (BpwJsonDoc *doc,
                        const char *list,
                        guint       index,
                        const char *member)
{
  JsonNode *root = doc != NULL ? bpw_json_doc_get_root (doc) : NULL;
  JsonNode *node;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return root;
  node = json_object_get_member (json_node_get_object (root), list);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node)
      || index >= json_array_get_length (json_node_get_array (node)))
    return root;
  node = json_array_get_element (json_node_get_array (node), index);
  if (member != NULL && JSON_NODE_HOLDS_OBJECT (node)
      && json_object_has_member (json_node_get_object (node), member))
    return json_object_get_member (json_node_get_object (node), member);
  return node;
}

static gboolean
bpw_study_check_fail (BpwStudy   *self,
                      BpwJsonDoc *doc,
                      guint       index,
                      const char *member,
                      GError     *local,
                      GError    **error)
{
  const BpwStudyCandidate *c = bpw_study_get_candidate (self, index);
  g_autofree char *path = g_strdup_printf ("candidates[%u].%s", index, member);
  g_autoptr(BpwJsonDoc) own = NULL;

  /* A caller without the study's text (compare, export): the file is read again for the
   * line and column of the field, as `bpw check` gives them. */
  if (doc == NULL && bpw_study_get_path (self) != NULL)
    doc = own = bpw_json_doc_new_from_file (bpw_study_get_path (self), NULL);
  if (doc != NULL)
    return bpw_json_doc_error (doc, bpw_study_check_locate (doc, "candidates", index, member),
                               path, error, _("candidate \"%s\": %s"), c->name, local->message);
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT, _("%s: %s: candidate \"%s\": %s"),
               bpw_study_get_path (self) != NULL ? bpw_study_get_path (self)
                                                 : bpw_study_get_name (self),
               path, c->name, local->message);
  return FALSE;
}

gboolean
bpw_study_check_references (BpwStudy    *self,
                            BpwJsonDoc  *doc,
                            GError     **error)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);

  for (guint i = 0; i < bpw_study_get_n_candidates (self); i++)
    {
      const BpwStudyCandidate *c = bpw_study_get_candidate (self, i);
      g_autoptr(BpwBlueprint) bp = NULL;
      g_autoptr(GError) local = NULL;
      BpwMapping mapping;
      gboolean ok;

      bp = bpw_study_load_blueprint (self, c->blueprint, &local);
      if (bp == NULL)
        return bpw_study_check_fail (self, doc, i, "blueprint", local, error);
      bpw_mapping_init_defaults (&mapping);
      ok = c->mapping == NULL || !JSON_NODE_HOLDS_OBJECT (c->mapping)
           || _bpw_study_candidate_read_mapping (c, NULL, json_node_get_object (c->mapping), bp,
                                                 &mapping, &local);
      bpw_mapping_clear (&mapping);
      if (!ok)
        return bpw_study_check_fail (self, doc, i, "mapping", local, error);
    }
  return TRUE;
}
