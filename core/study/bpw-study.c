/* bpw-study.c — the study object: its parts, accessors and additions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study"

#include "config.h"

#include <math.h>

#include "bpw-i18n.h"
#include "bpw-study.h"

#include "bpw-blueprint.h"
#include "bpw-error.h"
#include "bpw-file.h"
#include "bpw-json-dump-private.h"
#include "bpw-study-private.h"

G_DEFINE_FINAL_TYPE (BpwStudy, bpw_study, G_TYPE_OBJECT)

static const char * const suite_kind_names[] = { "representative", "stress", "projected" };

static void
bpw_study_workload_clear (gpointer data)
{
  BpwStudyWorkload *w = data;

  g_clear_pointer (&w->name, g_free);
  g_clear_pointer (&w->model_ref, g_free);
  bpw_model_spec_clear (&w->spec);
}

static void
bpw_study_scenario_clear (gpointer data)
{
  BpwStudyScenario *sc = data;

  g_clear_pointer (&sc->name, g_free);
  g_clear_pointer (&sc->suite, g_free);
  bpw_scenario_clear (&sc->scenario);
}

static void
bpw_study_suite_clear (gpointer data)
{
  BpwStudySuite *suite = data;

  g_clear_pointer (&suite->name, g_free);
  g_clear_pointer (&suite->scenarios, g_free);
  suite->n_scenarios = 0;
}

static void
bpw_study_candidate_clear (gpointer data)
{
  BpwStudyCandidate *c = data;

  g_clear_pointer (&c->name, g_free);
  g_clear_pointer (&c->blueprint, g_free);
  g_clear_pointer (&c->mapping, json_node_unref);
  g_clear_pointer (&c->mappings, json_node_unref);
  g_clear_pointer (&c->price.source, g_free);
}

const char *
bpw_price_unit_to_string (BpwPriceUnit unit)
{
  return unit == BPW_PRICE_PER_DEVICE_HOUR ? "USD/device-hour" : "USD/device";
}

double
bpw_study_price_cost (const BpwStudyPrice *price,
                      gint64               devices)
{
  g_return_val_if_fail (price != NULL, NAN);

  return price->set && devices > 0 ? price->usd * (double) devices : NAN;
}

static void
bpw_study_finalize (GObject *object)
{
  BpwStudy *self = BPW_STUDY (object);

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->description, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->base_dir, g_free);
  g_clear_pointer (&self->workloads, g_array_unref);
  g_clear_pointer (&self->scenarios, g_array_unref);
  g_clear_pointer (&self->suites, g_array_unref);
  g_clear_pointer (&self->blueprints, g_ptr_array_unref);
  g_clear_pointer (&self->inline_blueprints, g_hash_table_unref);
  g_clear_pointer (&self->candidates, g_array_unref);
  g_clear_pointer (&self->views, json_node_unref);
  g_clear_pointer (&self->measurements, g_array_unref);
  g_clear_pointer (&self->owners, g_array_unref);
  g_clear_pointer (&self->quality_thresholds, g_array_unref);
  g_clear_pointer (&self->quality_evidence, g_array_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);

  G_OBJECT_CLASS (bpw_study_parent_class)->finalize (object);
}

static void
bpw_study_class_init (BpwStudyClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_study_finalize;
}

static void
bpw_study_init (BpwStudy *self)
{
  self->name = g_strdup (_("Untitled study"));
  self->workloads = g_array_new (FALSE, TRUE, sizeof (BpwStudyWorkload));
  g_array_set_clear_func (self->workloads, bpw_study_workload_clear);
  self->scenarios = g_array_new (FALSE, TRUE, sizeof (BpwStudyScenario));
  g_array_set_clear_func (self->scenarios, bpw_study_scenario_clear);
  self->suites = g_array_new (FALSE, TRUE, sizeof (BpwStudySuite));
  g_array_set_clear_func (self->suites, bpw_study_suite_clear);
  self->candidates = g_array_new (FALSE, TRUE, sizeof (BpwStudyCandidate));
  g_array_set_clear_func (self->candidates, bpw_study_candidate_clear);
  self->blueprints = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->blueprints, NULL);
  self->inline_blueprints = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                   (GDestroyNotify) bpw_blueprint_free);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
}

const char *
bpw_suite_kind_to_string (BpwSuiteKind kind)
{
  return (guint) kind < G_N_ELEMENTS (suite_kind_names) ? suite_kind_names[kind] : "invalid";
}

BpwStudy *
bpw_study_new (void)
{
  return g_object_new (BPW_TYPE_STUDY, NULL);
}

const char *
bpw_study_get_name (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  return self->name;
}

void
bpw_study_set_name (BpwStudy   *self,
                    const char *name)
{
  g_return_if_fail (BPW_IS_STUDY (self));
  g_return_if_fail (name != NULL);

  if (g_strcmp0 (self->name, name) == 0)
    return;
  g_free (self->name);
  self->name = g_strdup (name);
}

const char *
bpw_study_get_path (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  return self->path;
}

GPtrArray *
bpw_study_get_warnings (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  return self->warnings;
}

guint
bpw_study_get_n_workloads (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return self->workloads->len;
}

const BpwStudyWorkload *
bpw_study_get_workload (BpwStudy *self,
                        guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < self->workloads->len, NULL);
  return &g_array_index (self->workloads, BpwStudyWorkload, i);
}

gboolean
bpw_study_lookup_workload (BpwStudy   *self,
                           const char *name,
                           guint      *index)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);

  for (guint i = 0; i < self->workloads->len; i++)
    if (g_strcmp0 (g_array_index (self->workloads, BpwStudyWorkload, i).name, name) == 0)
      {
        if (index != NULL)
          *index = i;
        return TRUE;
      }
  return FALSE;
}

guint
bpw_study_get_n_scenarios (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return self->scenarios->len;
}

const BpwStudyScenario *
bpw_study_get_scenario (BpwStudy *self,
                        guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < self->scenarios->len, NULL);
  return &g_array_index (self->scenarios, BpwStudyScenario, i);
}

gboolean
bpw_study_lookup_scenario (BpwStudy   *self,
                           const char *name,
                           guint      *index)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);

  for (guint i = 0; i < self->scenarios->len; i++)
    if (g_strcmp0 (g_array_index (self->scenarios, BpwStudyScenario, i).name, name) == 0)
      {
        if (index != NULL)
          *index = i;
        return TRUE;
      }
  return FALSE;
}

guint
bpw_study_get_n_suites (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return self->suites->len;
}

const BpwStudySuite *
bpw_study_get_suite (BpwStudy *self,
                     guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < self->suites->len, NULL);
  return &g_array_index (self->suites, BpwStudySuite, i);
}

const char * const *
bpw_study_get_blueprints (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  return (const char * const *) self->blueprints->pdata;
}

guint
bpw_study_get_n_candidates (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), 0);
  return self->candidates->len;
}

const BpwStudyCandidate *
bpw_study_get_candidate (BpwStudy *self,
                         guint     i)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  g_return_val_if_fail (i < self->candidates->len, NULL);
  return &g_array_index (self->candidates, BpwStudyCandidate, i);
}

JsonNode *
bpw_study_get_views (BpwStudy *self)
{
  g_return_val_if_fail (BPW_IS_STUDY (self), NULL);
  return self->views;
}

gboolean
bpw_study_add_workload (BpwStudy            *self,
                        const char          *name,
                        const BpwModelSpec  *spec,
                        const char          *model_ref,
                        GError             **error)
{
  BpwStudyWorkload w = { 0 };

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (name != NULL && spec != NULL, FALSE);

  if (bpw_study_lookup_workload (self, name, NULL))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("workloads: the study already has a workload named \"%s\""), name);
      return FALSE;
    }
  if (!bpw_model_spec_validate (spec, error))
    return FALSE;
  w.name = g_strdup (name);
  w.model_ref = g_strdup (model_ref);
  bpw_model_spec_copy (&w.spec, spec);
  g_array_append_val (self->workloads, w);
  return TRUE;
}

gboolean
bpw_study_add_scenario (BpwStudy           *self,
                        const char         *name,
                        const char         *workload,
                        const BpwScenario  *scenario,
                        const BpwParallel  *parallel,
                        GError            **error)
{
  BpwStudyScenario sc = { 0 };
  guint index = 0;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (name != NULL && workload != NULL, FALSE);
  g_return_val_if_fail (scenario != NULL && parallel != NULL, FALSE);

  if (bpw_study_lookup_scenario (self, name, NULL))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("scenarios: the study already has a scenario named \"%s\""), name);
      return FALSE;
    }
  if (!bpw_study_lookup_workload (self, workload, &index))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("scenarios: the study has no workload named \"%s\""), workload);
      return FALSE;
    }
  sc.workload = index;
  sc.parallel = *parallel;
  bpw_scenario_copy (&sc.scenario, scenario);
  g_free (sc.scenario.name);
  sc.scenario.name = g_strdup (name);
  sc.name = g_strdup (name);
  if (!_bpw_study_validate_scenario (self, &sc, error))
    {
      bpw_study_scenario_clear (&sc);
      return FALSE;
    }
  g_array_append_val (self->scenarios, sc);
  return TRUE;
}

gboolean
bpw_study_add_candidate (BpwStudy    *self,
                         const char  *name,
                         const char  *blueprint,
                         JsonNode    *mapping,
                         GError     **error)
{
  BpwStudyCandidate c = { 0 };

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (name != NULL && blueprint != NULL, FALSE);
  g_return_val_if_fail (mapping == NULL || JSON_NODE_HOLDS_OBJECT (mapping), FALSE);

  if (*name == '\0' || *blueprint == '\0')
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("candidates: a candidate needs a name and a blueprint"));
      return FALSE;
    }
  for (guint i = 0; i < self->candidates->len; i++)
    if (g_strcmp0 (g_array_index (self->candidates, BpwStudyCandidate, i).name, name) == 0)
      {
        g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                     _("candidates: the study already has a candidate named \"%s\""), name);
        return FALSE;
      }
  c.name = g_strdup (name);
  c.blueprint = g_strdup (blueprint);
  if (mapping != NULL)
    c.mapping = json_node_copy (mapping);
  else
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      c.mapping = json_node_init_object (json_node_alloc (), empty);
    }
  {
    g_autoptr(JsonObject) none = json_object_new ();

    c.mappings = json_node_init_object (json_node_alloc (), none);
  }
  g_array_append_val (self->candidates, c);
  return TRUE;
}

void
bpw_study_add_blueprint (BpwStudy   *self,
                         const char *blueprint)
{
  g_return_if_fail (BPW_IS_STUDY (self));
  g_return_if_fail (blueprint != NULL);

  if (g_strv_contains ((const char * const *) self->blueprints->pdata, blueprint))
    return;
  /* Keep the NULL terminator last. */
  g_ptr_array_insert (self->blueprints, self->blueprints->len - 1, g_strdup (blueprint));
}

gboolean
_bpw_study_validate_scenario (BpwStudy         *self,
                              BpwStudyScenario *sc,
                              GError          **error)
{
  const BpwStudyWorkload *w = bpw_study_get_workload (self, sc->workload);

  return bpw_scenario_validate (&sc->scenario, &sc->parallel, &w->spec, error);
}
