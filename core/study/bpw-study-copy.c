/* bpw-study-copy.c — a study copied whole, and two studies compared by value
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study"

#include "config.h"

#include "bpw-study.h"

#include "bpw-study-private.h"

static void
bpw_study_copy_workloads (BpwStudy *dest,
                          BpwStudy *src)
{
  g_array_set_size (dest->workloads, src->workloads->len);
  for (guint i = 0; i < src->workloads->len; i++)
    {
      const BpwStudyWorkload *w = &g_array_index (src->workloads, BpwStudyWorkload, i);
      BpwStudyWorkload *copy = &g_array_index (dest->workloads, BpwStudyWorkload, i);

      copy->name = g_strdup (w->name);
      copy->model_ref = g_strdup (w->model_ref);
      bpw_model_spec_copy (&copy->spec, &w->spec);
    }
}

static void
bpw_study_copy_scenarios (BpwStudy *dest,
                          BpwStudy *src)
{
  g_array_set_size (dest->scenarios, src->scenarios->len);
  for (guint i = 0; i < src->scenarios->len; i++)
    {
      const BpwStudyScenario *sc = &g_array_index (src->scenarios, BpwStudyScenario, i);
      BpwStudyScenario *copy = &g_array_index (dest->scenarios, BpwStudyScenario, i);

      copy->name = g_strdup (sc->name);
      copy->suite = g_strdup (sc->suite);
      copy->workload = sc->workload;
      bpw_scenario_copy (&copy->scenario, &sc->scenario);
      copy->parallel = sc->parallel;
      copy->serving = sc->serving;
    }
}

static void
bpw_study_copy_suites (BpwStudy *dest,
                       BpwStudy *src)
{
  g_array_set_size (dest->suites, src->suites->len);
  for (guint i = 0; i < src->suites->len; i++)
    {
      const BpwStudySuite *suite = &g_array_index (src->suites, BpwStudySuite, i);
      BpwStudySuite *copy = &g_array_index (dest->suites, BpwStudySuite, i);

      copy->name = g_strdup (suite->name);
      copy->kind = suite->kind;
      copy->scenarios = g_memdup2 (suite->scenarios, suite->n_scenarios * sizeof (guint));
      copy->n_scenarios = suite->n_scenarios;
    }
}

static void
bpw_study_copy_candidates (BpwStudy *dest,
                           BpwStudy *src)
{
  g_array_set_size (dest->candidates, src->candidates->len);
  for (guint i = 0; i < src->candidates->len; i++)
    {
      const BpwStudyCandidate *c = &g_array_index (src->candidates, BpwStudyCandidate, i);
      BpwStudyCandidate *copy = &g_array_index (dest->candidates, BpwStudyCandidate, i);

      copy->name = g_strdup (c->name);
      copy->blueprint = g_strdup (c->blueprint);
      copy->mapping = c->mapping != NULL ? _bpw_study_json_copy (c->mapping) : NULL;
      copy->mappings = c->mappings != NULL ? _bpw_study_json_copy (c->mappings) : NULL;
      copy->price = c->price;
      copy->price.source = g_strdup (c->price.source);
    }
}

BpwStudy *
bpw_study_copy (BpwStudy *self)
{
  BpwStudy *copy;
  GHashTableIter iter;
  gpointer name, bp;

  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);

  copy = bpw_study_new ();
  g_free (copy->name);
  copy->name = g_strdup (self->name);
  copy->description = g_strdup (self->description);
  copy->path = g_strdup (self->path);
  copy->base_dir = g_strdup (self->base_dir);
  bpw_study_copy_workloads (copy, self);
  bpw_study_copy_scenarios (copy, self);
  bpw_study_copy_suites (copy, self);
  /* The list ends in NULL, which the new study's holds already. */
  for (guint i = 0; i + 1 < self->blueprints->len; i++)
    g_ptr_array_insert (copy->blueprints, i, g_strdup (g_ptr_array_index (self->blueprints, i)));
  g_hash_table_iter_init (&iter, self->inline_blueprints);
  while (g_hash_table_iter_next (&iter, &name, &bp))
    g_hash_table_insert (copy->inline_blueprints, g_strdup (name), bpw_blueprint_copy (bp));
  bpw_study_copy_candidates (copy, self);
  copy->views = self->views != NULL ? _bpw_study_json_copy (self->views) : NULL;
  copy->measurements = _bpw_study_measurement_list_copy (self->measurements);
  _bpw_study_copy_quality (copy, self);
  for (guint i = 0; i < self->warnings->len; i++)
    g_ptr_array_add (copy->warnings, g_strdup (g_ptr_array_index (self->warnings, i)));
  return copy;
}

static gboolean
bpw_study_workloads_equal (BpwStudy *a,
                           BpwStudy *b)
{
  if (a->workloads->len != b->workloads->len)
    return FALSE;
  for (guint i = 0; i < a->workloads->len; i++)
    {
      const BpwStudyWorkload *x = &g_array_index (a->workloads, BpwStudyWorkload, i);
      const BpwStudyWorkload *y = &g_array_index (b->workloads, BpwStudyWorkload, i);

      if (g_strcmp0 (x->name, y->name) != 0 || g_strcmp0 (x->model_ref, y->model_ref) != 0
          || !bpw_model_spec_equal (&x->spec, &y->spec))
        return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_study_scenarios_equal (BpwStudy *a,
                           BpwStudy *b)
{
  if (a->scenarios->len != b->scenarios->len)
    return FALSE;
  for (guint i = 0; i < a->scenarios->len; i++)
    {
      const BpwStudyScenario *x = &g_array_index (a->scenarios, BpwStudyScenario, i);
      const BpwStudyScenario *y = &g_array_index (b->scenarios, BpwStudyScenario, i);

      if (g_strcmp0 (x->name, y->name) != 0 || g_strcmp0 (x->suite, y->suite) != 0
          || x->workload != y->workload
          || g_strcmp0 (x->scenario.name, y->scenario.name) != 0
          || !bpw_scenario_values_equal (&x->scenario, &y->scenario)
          || !bpw_parallel_equal (&x->parallel, &y->parallel)
          || !bpw_serve_settings_equal (&x->serving, &y->serving))
        return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_study_suites_equal (BpwStudy *a,
                        BpwStudy *b)
{
  if (a->suites->len != b->suites->len)
    return FALSE;
  for (guint i = 0; i < a->suites->len; i++)
    {
      const BpwStudySuite *x = &g_array_index (a->suites, BpwStudySuite, i);
      const BpwStudySuite *y = &g_array_index (b->suites, BpwStudySuite, i);

      if (g_strcmp0 (x->name, y->name) != 0 || x->kind != y->kind
          || x->n_scenarios != y->n_scenarios)
        return FALSE;
      for (guint j = 0; j < x->n_scenarios; j++)
        if (x->scenarios[j] != y->scenarios[j])
          return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_study_blueprints_equal (BpwStudy *a,
                            BpwStudy *b)
{
  GHashTableIter iter;
  gpointer name, bp;

  if (a->blueprints->len != b->blueprints->len
      || g_hash_table_size (a->inline_blueprints) != g_hash_table_size (b->inline_blueprints))
    return FALSE;
  for (guint i = 0; i + 1 < a->blueprints->len; i++)
    if (g_strcmp0 (g_ptr_array_index (a->blueprints, i), g_ptr_array_index (b->blueprints, i)) != 0)
      return FALSE;
  g_hash_table_iter_init (&iter, a->inline_blueprints);
  while (g_hash_table_iter_next (&iter, &name, &bp))
    {
      const BpwBlueprint *other = g_hash_table_lookup (b->inline_blueprints, name);

      if (other == NULL || !bpw_blueprint_equal (bp, other))
        return FALSE;
    }
  return TRUE;
}

static gboolean
bpw_study_json_equal (JsonNode *a,
                      JsonNode *b)
{
  return a == b || (a != NULL && b != NULL && json_node_equal (a, b));
}

static gboolean
bpw_study_candidates_equal (BpwStudy *a,
                            BpwStudy *b)
{
  if (a->candidates->len != b->candidates->len)
    return FALSE;
  for (guint i = 0; i < a->candidates->len; i++)
    {
      const BpwStudyCandidate *x = &g_array_index (a->candidates, BpwStudyCandidate, i);
      const BpwStudyCandidate *y = &g_array_index (b->candidates, BpwStudyCandidate, i);

      if (g_strcmp0 (x->name, y->name) != 0 || g_strcmp0 (x->blueprint, y->blueprint) != 0
          || !bpw_study_json_equal (x->mapping, y->mapping)
          || !bpw_study_json_equal (x->mappings, y->mappings)
          || x->price.set != y->price.set
          || (x->price.set && (x->price.usd != y->price.usd || x->price.unit != y->price.unit
                               || g_strcmp0 (x->price.source, y->price.source) != 0)))
        return FALSE;
    }
  return TRUE;
}

gboolean
bpw_study_equal (BpwStudy *a,
                 BpwStudy *b)
{
  g_return_val_if_fail (a == NULL || BPW_IS_STUDY (a), FALSE);
  g_return_val_if_fail (b == NULL || BPW_IS_STUDY (b), FALSE);

  if (a == b)
    return TRUE;
  /* The cheap parts first: an edit of the window changes one value, and most often a
   * blueprint's or a scenario's, found before the mappings are walked. */
  return a != NULL && b != NULL && g_strcmp0 (a->name, b->name) == 0
         && g_strcmp0 (a->description, b->description) == 0
         && g_strcmp0 (a->path, b->path) == 0 && g_strcmp0 (a->base_dir, b->base_dir) == 0
         && bpw_study_scenarios_equal (a, b) && bpw_study_workloads_equal (a, b)
         && bpw_study_suites_equal (a, b) && bpw_study_blueprints_equal (a, b)
         && bpw_study_candidates_equal (a, b)
         && _bpw_study_measurement_list_equal (a->measurements, b->measurements)
         && _bpw_study_quality_equal (a, b)
         && bpw_study_json_equal (a->views, b->views);
}
