/* bpw-study-snapshot.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-snapshot"

#include "config.h"

#include <string.h>

#include "bpw-study-snapshot.h"

struct _BpwStudySnapshot
{
  BpwStudy *study;          /* a copy of its own, never changed */
  GArray   *added;          /* BpwAddedCandidate */
};

static void
bpw_added_candidate_clear (gpointer data)
{
  BpwAddedCandidate *c = data;

  g_free (c->name);
  g_clear_pointer (&c->blueprint, bpw_blueprint_free);
  g_free (c->mapping);
  g_free (c->scenario);
  g_free (c->source);
}

GArray *
bpw_added_candidates_new (void)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (BpwAddedCandidate));

  g_array_set_clear_func (list, bpw_added_candidate_clear);
  return list;
}

static void
bpw_added_candidates_append (GArray                  *list,
                             const BpwAddedCandidate *c)
{
  BpwAddedCandidate copy = {
    .name = g_strdup (c->name),
    .blueprint = bpw_blueprint_copy (c->blueprint),
    .mapping = g_strdup (c->mapping),
    .scenario = g_strdup (c->scenario),
    .source = g_strdup (c->source),
  };

  g_array_append_val (list, copy);
}

void
bpw_added_candidates_add (GArray             *list,
                          const char         *name,
                          const BpwBlueprint *blueprint,
                          const BpwMapping   *mapping)
{
  bpw_added_candidates_add_for_scenario (list, name, blueprint, mapping, NULL, NULL);
}

void
bpw_added_candidates_add_for_scenario (GArray             *list,
                                       const char         *name,
                                       const BpwBlueprint *blueprint,
                                       const BpwMapping   *mapping,
                                       const char         *source,
                                       const char         *scenario)
{
  g_autofree char *json = NULL;
  BpwAddedCandidate c;

  g_return_if_fail (list != NULL && name != NULL && blueprint != NULL);

  json = mapping != NULL ? bpw_mapping_to_json (mapping) : NULL;
  c = (BpwAddedCandidate) { (char *) name, (BpwBlueprint *) blueprint, json,
                            (char *) scenario, (char *) source };
  bpw_added_candidates_append (list, &c);
}

guint
bpw_added_candidates_add_sweep (GArray     *list,
                                const char *label,
                                BpwSweep   *sweep)
{
  guint added = 0;

  g_return_val_if_fail (list != NULL && label != NULL && sweep != NULL, 0);

  for (guint i = 0; i < bpw_sweep_get_n_points (sweep); i++)
    {
      const BpwSweepPoint *p = bpw_sweep_get_point (sweep, i);
      g_autofree char *name = NULL;

      if (!p->pareto || p->report == NULL || p->report->best->len == 0)
        continue;
      name = g_strdup_printf ("%s %u", label, i + 1);
      bpw_added_candidates_add (list, name, p->blueprint,
                                &g_array_index (p->report->best, BpwSearchResult, 0).mapping);
      added++;
    }
  return added;
}

static void
bpw_study_snapshot_clear (BpwStudySnapshot *self)
{
  g_object_unref (self->study);
  g_array_unref (self->added);
}

BpwStudySnapshot *
bpw_study_snapshot_new (BpwStudy *study,
                        GArray   *added)
{
  BpwStudySnapshot *self;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);

  self = g_atomic_rc_box_new0 (BpwStudySnapshot);
  self->study = bpw_study_copy (study);
  self->added = bpw_added_candidates_new ();
  for (guint i = 0; added != NULL && i < added->len; i++)
    bpw_added_candidates_append (self->added, &g_array_index (added, BpwAddedCandidate, i));
  return self;
}

BpwStudySnapshot *
bpw_study_snapshot_ref (BpwStudySnapshot *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_atomic_rc_box_acquire (self);
}

void
bpw_study_snapshot_unref (BpwStudySnapshot *self)
{
  g_atomic_rc_box_release_full (self, (GDestroyNotify) bpw_study_snapshot_clear);
}

static gboolean
bpw_added_candidates_equal (GArray *a,
                            GArray *b)
{
  guint n = a != NULL ? a->len : 0;

  if (n != (b != NULL ? b->len : 0))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const BpwAddedCandidate *x = &g_array_index (a, BpwAddedCandidate, i);
      const BpwAddedCandidate *y = &g_array_index (b, BpwAddedCandidate, i);

      if (g_strcmp0 (x->name, y->name) != 0 || g_strcmp0 (x->mapping, y->mapping) != 0
          || g_strcmp0 (x->scenario, y->scenario) != 0
          || g_strcmp0 (x->source, y->source) != 0
          || !bpw_blueprint_equal (x->blueprint, y->blueprint))
        return FALSE;
    }
  return TRUE;
}

gboolean
bpw_study_snapshot_matches (BpwStudySnapshot *self,
                            BpwStudy         *study,
                            GArray           *added)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (BPW_IS_STUDY (study), FALSE);

  return bpw_study_equal (self->study, study) && bpw_added_candidates_equal (self->added, added);
}

gboolean
bpw_study_snapshot_equal (BpwStudySnapshot *a,
                          BpwStudySnapshot *b)
{
  if (a == b)
    return TRUE;
  return a != NULL && b != NULL && bpw_study_snapshot_matches (a, b->study, b->added);
}

static gboolean
bpw_study_has_candidate (BpwStudy   *study,
                         const char *name)
{
  for (guint i = 0; i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->name, name) == 0)
      return TRUE;
  return FALSE;
}

/* @base, else "@base 2", "@base 3"…: the first that @taken does not know. */
static char *
bpw_study_snapshot_unique (const char  *base,
                           BpwStudy    *study,
                           gboolean   (*taken) (BpwStudy *study, const char *name))
{
  char *name = g_strdup (base);

  for (guint n = 2; taken (study, name); n++)
    {
      g_free (name);
      name = g_strdup_printf ("%s %u", base, n);
    }
  return name;
}

static gboolean
bpw_study_has_blueprint (BpwStudy   *study,
                         const char *name)
{
  return g_strv_contains (bpw_study_get_blueprints (study), name);
}

/* The study's own candidate @name (nullable: none, or not in the study now). */
static const BpwStudyCandidate *
bpw_study_snapshot_source (BpwStudy   *study,
                           const char *name)
{
  for (guint i = 0; name != NULL && i < bpw_study_get_n_candidates (study); i++)
    if (strcmp (bpw_study_get_candidate (study, i)->name, name) == 0)
      return bpw_study_get_candidate (study, i);
  return NULL;
}

/* Candidate @index runs every scenario but @scenario with @mappings (nullable: the
 * source's per-scenario mappings; its own mapping is the candidate's already), and
 * @scenario with @mapping. A scenario the study no longer has is left out. */
static gboolean
bpw_study_snapshot_scope (BpwStudy    *study,
                          guint        index,
                          JsonNode    *mappings,
                          const char  *scenario,
                          JsonNode    *mapping,
                          GError     **error)
{
  if (mappings != NULL && JSON_NODE_HOLDS_OBJECT (mappings))
    {
      JsonObject *object = json_node_get_object (mappings);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        if (strcmp (l->data, scenario) != 0
            && bpw_study_lookup_scenario (study, l->data, NULL)
            && !bpw_study_set_candidate_scenario_mapping (study, index, l->data,
                                                          json_object_get_member (object,
                                                                                  l->data),
                                                          error))
          return FALSE;
    }
  return !bpw_study_lookup_scenario (study, scenario, NULL)
         || bpw_study_set_candidate_scenario_mapping (study, index, scenario, mapping, error);
}

/* The added candidate's blueprint goes into the copy under a name no other blueprint has,
 * so that it never shadows the one the study's own candidates run. */
static gboolean
bpw_study_snapshot_add_to (BpwStudy                *study,
                           const BpwAddedCandidate *c,
                           GError                 **error)
{
  g_autoptr(BpwBlueprint) bp = bpw_blueprint_copy (c->blueprint);
  g_autoptr(JsonNode) mapping = NULL;
  g_autofree char *base = g_strdup_printf ("%s (added)", c->name);
  g_autofree char *name = bpw_study_snapshot_unique (c->name, study, bpw_study_has_candidate);
  g_autofree char *bp_name = bpw_study_snapshot_unique (base, study, bpw_study_has_blueprint);
  const BpwStudyCandidate *source = bpw_study_snapshot_source (study, c->source);
  /* The source's nodes outlive the candidate added next (it moves the candidates). */
  g_autoptr(JsonNode) base_mapping = source != NULL && source->mapping != NULL
                                     ? json_node_ref (source->mapping) : NULL;
  g_autoptr(JsonNode) mappings = source != NULL && source->mappings != NULL
                                 ? json_node_ref (source->mappings) : NULL;

  g_free (bp->name);
  bp->name = g_strdup (bp_name);
  if (!bpw_study_set_inline_blueprint (study, bp, error))
    return FALSE;
  if (c->mapping != NULL && (mapping = json_from_string (c->mapping, error)) == NULL)
    return FALSE;
  if (c->scenario == NULL || mapping == NULL)
    return bpw_study_add_candidate (study, name, bp_name, mapping, error);
  return bpw_study_add_candidate (study, name, bp_name, base_mapping, error)
         && bpw_study_snapshot_scope (study, bpw_study_get_n_candidates (study) - 1, mappings,
                                      c->scenario, mapping, error);
}

BpwStudy *
bpw_study_snapshot_load (BpwStudySnapshot  *self,
                         GError           **error)
{
  g_autoptr(BpwStudy) study = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  /* The snapshot's own study is shared by every job of its generation: each gets a copy
   * that it may change, as the added candidates do. */
  study = bpw_study_copy (self->study);
  for (guint i = 0; i < self->added->len; i++)
    if (!bpw_study_snapshot_add_to (study, &g_array_index (self->added, BpwAddedCandidate, i),
                                    error))
      return NULL;
  return g_steal_pointer (&study);
}
