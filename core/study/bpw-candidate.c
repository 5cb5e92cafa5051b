/* bpw-candidate.c — one candidate of a study on one of its scenarios
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-candidate"

#include "config.h"

#include "bpw-candidate.h"
#include "bpw-blueprint-io.h"
#include "bpw-dist-work.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-json-doc.h"
#include "bpw-study-private.h"
#include "bpw-work-graph.h"

static BpwBlueprint *
load_blueprint (BpwStudy *study, const char *name, GError **error)
{
  /* The folder relative paths resolve from: the study file's, also for a study read back
   * from a snapshot's text, which has no path of its own. */
  const char *dir = study->base_dir;
  const BpwBlueprint *held = bpw_study_lookup_inline_blueprint (study, name);

  /* A blueprint the study holds (an edited copy) shadows a file or bundled one. */
  if (held != NULL)
    return bpw_blueprint_copy (held);
  /* A relative file next to the study wins over a bundled name, as on the command line. */
  if (dir != NULL && !g_path_is_absolute (name))
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);

      if (g_file_test (file, G_FILE_TEST_EXISTS))
        return bpw_blueprint_load (file, NULL, error);
    }
  return bpw_blueprint_load (name, NULL, error);
}

/* The candidate's mapping, then its mapping for the scenario over it. */
static gboolean
read_mapping (const BpwStudyCandidate *c, const char *scenario, const BpwBlueprint *bp,
              BpwMapping *mapping, GError **error)
{
  JsonObject *own = bpw_study_candidate_get_scenario_mapping (c, scenario);

  if (c->mapping != NULL && JSON_NODE_HOLDS_OBJECT (c->mapping)
      && !_bpw_study_candidate_read_mapping (c, NULL, json_node_get_object (c->mapping), bp,
                                             mapping, error))
    return FALSE;
  return own == NULL || _bpw_study_candidate_read_mapping (c, scenario, own, bp, mapping, error);
}

gboolean
bpw_candidate_run_init (BpwCandidateRun *run,
                        BpwStudy        *study,
                        guint            candidate,
                        guint            scenario,
                        GError         **error)
{
  const BpwStudyCandidate *c;
  const BpwStudyScenario *s;

  bpw_model_spec_init_defaults (&run->spec);
  bpw_scenario_init_defaults (&run->scenario);
  bpw_mapping_init_defaults (&run->mapping);
  run->blueprint = NULL;
  if (candidate >= bpw_study_get_n_candidates (study) ||
      scenario >= bpw_study_get_n_scenarios (study))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("The study has no candidate %u or no scenario %u."), candidate, scenario);
      return FALSE;
    }
  c = bpw_study_get_candidate (study, candidate);
  s = bpw_study_get_scenario (study, scenario);
  bpw_model_spec_clear (&run->spec);
  bpw_model_spec_copy (&run->spec, &bpw_study_get_workload (study, s->workload)->spec);
  bpw_scenario_clear (&run->scenario);
  bpw_scenario_copy (&run->scenario, &s->scenario);
  run->mapping.parallel = s->parallel;

  run->blueprint = load_blueprint (study, c->blueprint, error);
  if (run->blueprint == NULL
      || !read_mapping (c, s->name, run->blueprint, &run->mapping, error))
    return FALSE;
  bpw_mapping_apply_to_scenario (&run->mapping, &run->scenario);
  return bpw_scenario_validate (&run->scenario, &run->mapping.parallel, &run->spec, error);
}

void
bpw_candidate_run_clear (BpwCandidateRun *run)
{
  bpw_model_spec_clear (&run->spec);
  bpw_scenario_clear (&run->scenario);
  bpw_mapping_clear (&run->mapping);
  g_clear_pointer (&run->blueprint, bpw_blueprint_free);
}

BpwPlan *
bpw_candidate_run_bind (const BpwCandidateRun *run,
                        GError               **error)
{
  BpwWorkGraph *graph = bpw_work_graph_new (&run->spec, &run->scenario, error);
  BpwDistWork *dist;

  if (graph == NULL)
    return NULL;
  dist = bpw_dist_work_new (graph, &run->mapping.parallel, error);
  if (dist == NULL)
    return NULL;
  return bpw_plan_new (dist, run->blueprint, &run->mapping, error);
}

gboolean
bpw_candidate_run_same (const BpwCandidateRun *a,
                        const char            *a_error,
                        const BpwCandidateRun *b,
                        const char            *b_error)
{
  if (a_error != NULL || b_error != NULL)
    return g_strcmp0 (a_error, b_error) == 0;
  return a->blueprint != NULL && b->blueprint != NULL
         && bpw_scenario_values_equal (&a->scenario, &b->scenario)
         && bpw_mapping_equal (&a->mapping, &b->mapping)
         && bpw_blueprint_equal (a->blueprint, b->blueprint);
}

void
bpw_candidate_run_copy (BpwCandidateRun       *dest,
                        const BpwCandidateRun *src)
{
  /* The copy functions fill their destination whole. */
  bpw_model_spec_copy (&dest->spec, &src->spec);
  bpw_scenario_copy (&dest->scenario, &src->scenario);
  bpw_mapping_copy (&dest->mapping, &src->mapping);
  dest->blueprint = src->blueprint != NULL ? bpw_blueprint_copy (src->blueprint) : NULL;
}
