/* bpw-calculon-bridge.c — Calculon's best executions as the workbench prices them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-calculon-bridge"

#include "config.h"

#include "bpw-calculon-bridge.h"

#include <math.h>

#include "bpw-calculon-search-private.h"
#include "bpw-estimator.h"
#include "bpw-i18n.h"
#include "bpw-search-private.h"

GPtrArray *
bpw_calculon_execution_approximations (const BpwCalculonExecution *exe)
{
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (exe != NULL, notes);

  if (exe->tensor_par > 1 && exe->tensor_par_comm_type == BPW_CALCULON_TP_COMM_P2P_RS_AG)
    g_ptr_array_add (notes, g_strdup (_("p2p_rs_ag (all-reduce inside a pipeline chunk) is "
                                      "priced as sequence parallelism")));
  if (exe->seq_par_ag_redo)
    g_ptr_array_add (notes, g_strdup (_("the all-gather redo of sequence parallelism is not "
                                      "modelled: the gathered input is priced as kept")));
  return notes;
}

/* One estimator per batch: Calculon's batch is the scenario's unless DP does not divide it
 * (phase and datatype are the search's, the same for every execution; the mapping carries
 * the rest). The estimator keeps a shallow copy of its scenario, so the cache owns the
 * scenario it was made with: its strings must outlive the estimator. */
typedef struct
{
  BpwEstimator *estimator;   /* owned, nullable */
  GError       *refused;     /* owned: why the estimator is NULL */
  BpwScenario   scenario;    /* owned: the estimator's */
  gboolean      has_scenario;
} BpwCalculonEstimatorCache;

static void
bpw_calculon_estimator_cache_clear (BpwCalculonEstimatorCache *cache)
{
  g_clear_pointer (&cache->estimator, bpw_estimator_free);
  g_clear_error (&cache->refused);
  if (cache->has_scenario)
    bpw_scenario_clear (&cache->scenario);
  cache->has_scenario = FALSE;
}

static BpwEstimator *
bpw_calculon_estimator_cache_get (BpwCalculonEstimatorCache *cache,
                                  const BpwSearchSpace      *space,
                                  const BpwScenario         *scenario,
                                  GError                   **error)
{
  if (cache->has_scenario && cache->scenario.global_batch == scenario->global_batch
      && cache->scenario.phase == scenario->phase && cache->scenario.dtype == scenario->dtype)
    {
      if (cache->estimator == NULL)
        g_propagate_error (error, g_error_copy (cache->refused));
      return cache->estimator;
    }
  bpw_calculon_estimator_cache_clear (cache);
  bpw_scenario_copy (&cache->scenario, scenario);
  cache->has_scenario = TRUE;
  cache->estimator = bpw_estimator_new (&space->spec, &cache->scenario, space->blueprint,
                                        &cache->refused);
  if (cache->estimator == NULL)
    g_propagate_error (error, g_error_copy (cache->refused));
  return cache->estimator;
}

static void
bpw_calculon_bridge_one (const BpwSearchSpace          *space,
                         const BpwCalculonSearchResult *c,
                         gboolean                       reevaluate,
                         gboolean                       simulate,
                         BpwCalculonEstimatorCache     *cache,
                         BpwSearchResult               *r)
{
  g_autoptr(GError) error = NULL;
  BpwEstimator *estimator;
  BpwScenario scenario;
  BpwParallel parallel;

  *r = (BpwSearchResult) {
    .index = c->index, .algorithm_class = c->index, .equivalent_variants = 1,
  };
  r->reasons = g_ptr_array_new_with_free_func (g_free);
  bpw_mapping_init_defaults (&r->mapping);
  bpw_scenario_copy (&scenario, &space->scenario);
  parallel = space->base.parallel;
  bpw_calculon_execution_apply (&c->exe, &scenario, &parallel);
  if (!bpw_mapping_from_calculon_execution (&c->exe, &scenario, &parallel, &r->mapping,
                                            &error))
    {
      g_ptr_array_add (r->reasons, g_strdup (error->message));
      r->estimate.step_time_s = NAN;
      r->evaluation = r->estimate;
      bpw_scenario_clear (&scenario);
      return;
    }
  r->mapping.name = g_strdup_printf ("calculon-%" G_GUINT64_FORMAT, c->index);

  estimator = bpw_calculon_estimator_cache_get (cache, space, &scenario, &error);
  if (estimator == NULL
      || !bpw_estimator_evaluate (estimator, &r->mapping, &r->estimate, NULL, &error))
    {
      g_ptr_array_add (r->reasons, g_strdup (error->message));
      r->estimate.step_time_s = NAN;
    }
  r->evaluation = r->estimate;
  if (reevaluate && estimator != NULL)
    {
      _bpw_search_result_reevaluate_in (space, &scenario, r);
      if (simulate)
        bpw_search_result_simulate (space, r);
    }
  bpw_scenario_clear (&scenario);
}

BpwSearchReport *
bpw_calculon_search_report_to_workbench (const BpwCalculonSearchReport *report,
                                         const BpwSearchSpace          *space,
                                         gboolean                       reevaluate,
                                         gboolean                       simulate)
{
  BpwCalculonEstimatorCache cache = { NULL, };
  BpwSearchReport *out;

  g_return_val_if_fail (report != NULL && space != NULL, NULL);

  out = g_new0 (BpwSearchReport, 1);
  out->space = report->space;
  out->begin = report->begin;
  out->end = report->end;
  out->evaluated = report->evaluated;
  out->estimated = report->evaluated;
  out->legal = report->good;
  out->failed = report->bad;
  out->seconds = report->seconds;
  out->cancelled = report->cancelled;
  out->top_k = report->top_n;
  out->threads = report->threads;
  out->shard_index = report->shard_index;
  out->shard_count = report->shard_count;
  out->fingerprint = g_strdup (report->fingerprint);
  out->best = g_array_sized_new (FALSE, TRUE, sizeof (BpwSearchResult), report->best->len);
  g_array_set_clear_func (out->best, _bpw_search_result_clear);
  for (guint i = 0; i < report->best->len; i++)
    {
      BpwSearchResult r;

      bpw_calculon_bridge_one (space, &g_array_index (report->best, BpwCalculonSearchResult, i),
                               reevaluate, simulate, &cache, &r);
      g_array_append_val (out->best, r);
    }
  bpw_calculon_estimator_cache_clear (&cache);
  return out;
}

typedef struct
{
  const BpwCalculonSearchReport *report;
  const BpwSearchReport         *workbench;
} BpwCalculonBridgeJson;

static void
bpw_calculon_bridge_write_entry (BpwJsonWriter *w,
                                 guint          i,
                                 gconstpointer  user_data)
{
  const BpwCalculonBridgeJson *j = user_data;
  const BpwSearchResult *r;
  g_autofree char *mapping = NULL;
  g_autoptr(GPtrArray) notes = NULL;

  if (i >= j->workbench->best->len || i >= j->report->best->len)
    return;
  r = &g_array_index (j->workbench->best, BpwSearchResult, i);
  notes = bpw_calculon_execution_approximations (
    &g_array_index (j->report->best, BpwCalculonSearchResult, i).exe);
  bpw_json_writer_begin_object (w, "workbench");
  bpw_json_writer_double (w, "estimated_step_time_s", r->estimate.step_time_s);
  if (r->simulated)
    bpw_json_writer_double (w, "step_time_s", r->simulation.step_time_s);
  bpw_json_writer_bool (w, "legal", r->evaluation.legal && isfinite (r->estimate.step_time_s));
  bpw_json_writer_begin_array (w, "reasons");
  for (guint k = 0; k < r->reasons->len; k++)
    bpw_json_writer_string (w, NULL, r->reasons->pdata[k]);
  bpw_json_writer_end_array (w);
  bpw_json_writer_begin_array (w, "approximations");
  for (guint k = 0; k < notes->len; k++)
    bpw_json_writer_string (w, NULL, notes->pdata[k]);
  bpw_json_writer_end_array (w);
  mapping = bpw_mapping_to_json (&r->mapping);
  g_strchomp (mapping);
  bpw_json_writer_raw (w, "mapping", mapping);
  bpw_json_writer_end_object (w);
}

char *
bpw_calculon_search_report_to_json_with (const BpwCalculonSearchReport *report,
                                         const BpwCalculonSpace        *space,
                                         const BpwSearchReport         *workbench)
{
  BpwCalculonBridgeJson j = { report, workbench };

  g_return_val_if_fail (report != NULL && space != NULL && workbench != NULL, NULL);

  return _bpw_calculon_search_report_write (report, space, bpw_calculon_bridge_write_entry, &j);
}
