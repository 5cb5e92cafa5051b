/* bpw-compare.c — evaluating a study's candidates on its scenarios and suites
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-compare"

#include "config.h"

#include "bpw-compare-private.h"

#include <math.h>

#include "bpw-candidate.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-i18n.h"

void
bpw_compare_options_init (BpwCompareOptions *options)
{
  options->search_empty = FALSE;
  bpw_search_options_init (&options->search);
  options->search.reevaluate = FALSE;
}

/* Neither the candidate nor its mapping for @scenario chooses anything: search may. */
static gboolean
mapping_is_empty (const BpwStudyCandidate *c, const char *scenario)
{
  JsonObject *own = bpw_study_candidate_get_scenario_mapping (c, scenario);

  return (c->mapping == NULL || !JSON_NODE_HOLDS_OBJECT (c->mapping) ||
          json_object_get_size (json_node_get_object (c->mapping)) == 0) &&
         (own == NULL || json_object_get_size (own) == 0);
}

/* The tightest of the SLAs that apply to the scenario's phase. */
static void
judge_sla (const BpwScenario *s, BpwCompareCell *cell)
{
  struct { const char *metric; double limit, value; } slas[] = {
    { "step_time_s", s->sla_step_time, cell->eval.step_time_s },
    { "ttft_s", s->sla_ttft, cell->eval.ttft_s },
    { "tpot_s", s->sla_tpot, cell->eval.tpot_s },
  };

  cell->has_sla = FALSE;
  cell->sla_pass = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (slas); i++)
    {
      double margin;

      if (!(slas[i].limit > 0) || isnan (slas[i].value))
        continue;
      margin = (slas[i].limit - slas[i].value) / slas[i].limit;
      if (!cell->has_sla || margin < cell->sla_margin)
        {
          cell->has_sla = TRUE;
          cell->sla_metric = slas[i].metric;
          cell->sla_limit = slas[i].limit;
          cell->sla_value = slas[i].value;
          cell->sla_margin = margin;
          cell->sla_pass = slas[i].value <= slas[i].limit;
        }
    }
}

static gboolean
search_cell (const BpwCandidateRun *run, const BpwCompareOptions *options,
             GCancellable *cancellable, BpwCompareCell *cell, GError **error)
{
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) report = NULL;
  BpwSearchLimits limits;

  bpw_search_limits_init (&limits);
  space = bpw_search_space_new (&run->spec, &run->scenario, run->blueprint, &run->mapping,
                                cell->devices, &limits, error);
  if (space == NULL)
    return FALSE;
  report = bpw_search_run (space, &options->search, NULL, NULL, cancellable, error);
  if (report == NULL)
    return FALSE;
  cell->searched = TRUE;
  cell->space = report->space;
  if (report->best->len == 0)
    {
      cell->eval.legal = FALSE;
      g_ptr_array_add (cell->reasons, g_strdup_printf (
        _("No legal plan among the %" PRIu64 " mappings of %" PRId64
        " devices."), report->space, cell->devices));
      return TRUE;
    }
  bpw_mapping_clear (&cell->mapping);
  bpw_mapping_copy (&cell->mapping, &g_array_index (report->best, BpwSearchResult, 0).mapping);
  cell->eval = g_array_index (report->best, BpwSearchResult, 0).estimate;
  return TRUE;
}

static void
evaluate_cell (BpwComparison *cmp, guint c, guint s, const BpwCompareOptions *options,
               GCancellable *cancellable)
{
  BpwCompareCell *cell = &cmp->cells[c * cmp->n_scenarios + s];
  g_autoptr(GError) error = NULL;
  BpwCandidateRun run;
  gboolean ok;

  bpw_mapping_init_defaults (&cell->mapping);
  cell->reasons = g_ptr_array_new_with_free_func (g_free);
  cell->cost = NAN;
  ok = bpw_candidate_run_init (&run, cmp->study, c, s, &error);
  if (ok)
    {
      cell->devices = bpw_parallel_devices (&run.mapping.parallel);
      bpw_mapping_clear (&cell->mapping);
      bpw_mapping_copy (&cell->mapping, &run.mapping);
      if (options->search_empty && mapping_is_empty (bpw_study_get_candidate (cmp->study, c),
                                                   bpw_study_get_scenario (cmp->study, s)->name))
        ok = search_cell (&run, options, cancellable, cell, &error);
      else
        {
          g_autoptr(BpwEstimator) est = bpw_estimator_new (&run.spec, &run.scenario,
                                                           run.blueprint, &error);

          ok = est != NULL && bpw_estimator_evaluate (est, &run.mapping, &cell->eval,
                                                      cell->reasons, &error);
        }
      /* The study's price first: it is the user's, with its source. */
      if (bpw_study_get_candidate (cmp->study, c)->price.set)
        {
          const BpwStudyPrice *price = &bpw_study_get_candidate (cmp->study, c)->price;

          cell->cost = bpw_study_price_cost (price, cell->devices);
          cell->cost_unit = price->unit;
        }
      else if (run.blueprint->cost.set)
        {
          cell->cost = run.blueprint->cost.value * (double) cell->devices;
          cell->cost_unit = BPW_PRICE_PER_DEVICE;
        }
    }
  if (!ok)
    {
      cell->error = g_strdup (error->message);
      bpw_candidate_run_clear (&run);
      return;
    }
  cell->ok = TRUE;
  judge_sla (&run.scenario, cell);
  cell->feasible = cell->eval.legal && cell->sla_pass;
  bpw_candidate_run_clear (&run);
}

static double
cell_tps (const BpwCompareCell *cell)
{
  return cell->ok && cell->feasible && cell->eval.tokens_per_s > 0 ? cell->eval.tokens_per_s : 0;
}

static double
cell_tpj (const BpwCompareCell *cell)
{
  return cell->ok && cell->feasible && cell->eval.tokens_per_joule > 0
         ? cell->eval.tokens_per_joule : (cell->ok && isnan (cell->eval.tokens_per_joule) &&
                                          cell->feasible ? NAN : 0);
}

/* Pareto front of the feasible candidates: score and performance per watt up, cost
 * down; a dimension unknown for some candidate is left out. */
static void
suite_pareto (BpwComparison *cmp, BpwCompareSuite *suite)
{
  guint n = cmp->n_candidates;
  gboolean use_ppw = TRUE, use_cost = TRUE;

  for (guint c = 0; c < n; c++)
    {
      use_ppw &= !isnan (suite->perf_per_watt[c]);
      use_cost &= !isnan (suite->cost[c]);
    }
  use_cost &= cmp->cost_known;
  for (guint c = 0; c < n; c++)
    {
      suite->pareto[c] = suite->feasible[c];
      for (guint d = 0; d < n && suite->pareto[c]; d++)
        {
          gboolean ge, gt;

          if (d == c || !suite->feasible[d])
            continue;
          ge = suite->score[d] >= suite->score[c] &&
               (!use_ppw || suite->perf_per_watt[d] >= suite->perf_per_watt[c]) &&
               (!use_cost || suite->cost[d] <= suite->cost[c]);
          gt = suite->score[d] > suite->score[c] ||
               (use_ppw && suite->perf_per_watt[d] > suite->perf_per_watt[c]) ||
               (use_cost && suite->cost[d] < suite->cost[c]);
          if (ge && (gt || d < c))
            suite->pareto[c] = FALSE;
        }
    }
}

static void
score_suite (BpwComparison *cmp, BpwCompareSuite *suite)
{
  guint n = cmp->n_candidates;
  double total_weight = 0;

  suite->score = g_new0 (double, n);
  suite->perf_per_watt = g_new0 (double, n);
  suite->tokens_per_s = g_new0 (double, n);
  suite->cost = g_new0 (double, n);
  suite->feasible = g_new0 (gboolean, n);
  suite->pareto = g_new0 (gboolean, n);
  for (guint c = 0; c < n; c++)
    suite->feasible[c] = TRUE;

  for (guint i = 0; i < suite->n_scenarios; i++)
    {
      guint s = suite->scenarios[i];
      double w = bpw_study_get_scenario (cmp->study, s)->scenario.weight;
      double best_tps = 0, best_tpj = 0;

      total_weight += w;
      for (guint c = 0; c < n; c++)
        {
          best_tps = MAX (best_tps, cell_tps (&cmp->cells[c * cmp->n_scenarios + s]));
          if (!isnan (cell_tpj (&cmp->cells[c * cmp->n_scenarios + s])))
            best_tpj = MAX (best_tpj, cell_tpj (&cmp->cells[c * cmp->n_scenarios + s]));
        }
      for (guint c = 0; c < n; c++)
        {
          const BpwCompareCell *cell = &cmp->cells[c * cmp->n_scenarios + s];
          double tpj = cell_tpj (cell);

          suite->feasible[c] &= cell->ok && cell->feasible;
          suite->tokens_per_s[c] += w * cell_tps (cell);
          if (best_tps > 0)
            suite->score[c] += w * cell_tps (cell) / best_tps;
          if (isnan (tpj))
            suite->perf_per_watt[c] = NAN;
          else if (best_tpj > 0)
            suite->perf_per_watt[c] += w * tpj / best_tpj;
          suite->cost[c] = i == 0 ? cell->cost : MAX (suite->cost[c], cell->cost);
          if (isnan (cell->cost))
            suite->cost[c] = NAN;
        }
    }
  for (guint c = 0; c < n && total_weight > 0; c++)
    {
      suite->score[c] /= total_weight;
      suite->perf_per_watt[c] /= total_weight;
      suite->tokens_per_s[c] /= total_weight;
    }
  suite_pareto (cmp, suite);
}

static void
suite_clear (gpointer data)
{
  BpwCompareSuite *s = data;

  g_free (s->name);
  g_free (s->scenarios);
  g_free (s->score);
  g_free (s->perf_per_watt);
  g_free (s->tokens_per_s);
  g_free (s->cost);
  g_free (s->feasible);
  g_free (s->pareto);
}

BpwComparison *
bpw_compare_study (BpwStudy                *study,
                   const BpwCompareOptions *options,
                   GCancellable            *cancellable,
                   GError                 **error)
{
  g_autoptr(BpwComparison) cmp = NULL;
  guint n_suites = bpw_study_get_n_suites (study);

  if (bpw_study_get_n_candidates (study) == 0 || bpw_study_get_n_scenarios (study) == 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: a comparison needs at least one candidate and one scenario"),
                   bpw_study_get_name (study));
      return NULL;
    }
  cmp = g_new0 (BpwComparison, 1);
  cmp->study = g_object_ref (study);
  cmp->n_candidates = bpw_study_get_n_candidates (study);
  cmp->n_scenarios = bpw_study_get_n_scenarios (study);
  cmp->search_empty = options->search_empty;
  cmp->cells = g_new0 (BpwCompareCell, cmp->n_candidates * cmp->n_scenarios);
  cmp->suites = g_array_new (FALSE, TRUE, sizeof (BpwCompareSuite));
  g_array_set_clear_func (cmp->suites, suite_clear);

  for (guint c = 0; c < cmp->n_candidates; c++)
    for (guint s = 0; s < cmp->n_scenarios; s++)
      evaluate_cell (cmp, c, s, options, cancellable);

  /* Costs compare only when every candidate has a price, all in one unit. */
  cmp->cost_known = TRUE;
  cmp->cost_unit = bpw_study_get_candidate (study, 0)->price.set
                   ? bpw_study_get_candidate (study, 0)->price.unit : BPW_PRICE_PER_DEVICE;
  for (guint i = 0; i < cmp->n_candidates * cmp->n_scenarios; i++)
    if (cmp->cells[i].ok
        && (isnan (cmp->cells[i].cost) || cmp->cells[i].cost_unit != cmp->cost_unit))
      cmp->cost_known = FALSE;

  for (guint i = 0; i < MAX (n_suites, 1); i++)
    {
      BpwCompareSuite suite = { 0 };

      if (n_suites == 0)
        {
          suite.name = g_strdup ("all");
          suite.kind = BPW_SUITE_REPRESENTATIVE;
          suite.n_scenarios = cmp->n_scenarios;
          suite.scenarios = g_new (guint, cmp->n_scenarios);
          for (guint s = 0; s < cmp->n_scenarios; s++)
            suite.scenarios[s] = s;
        }
      else
        {
          const BpwStudySuite *ss = bpw_study_get_suite (study, i);

          suite.name = g_strdup (ss->name);
          suite.kind = ss->kind;
          suite.n_scenarios = ss->n_scenarios;
          suite.scenarios = g_memdup2 (ss->scenarios, sizeof (guint) * MAX (ss->n_scenarios, 1));
        }
      score_suite (cmp, &suite);
      g_array_append_val (cmp->suites, suite);
    }
  return g_steal_pointer (&cmp);
}

void
bpw_comparison_free (BpwComparison *cmp)
{
  if (cmp == NULL)
    return;
  for (guint i = 0; cmp->cells != NULL && i < cmp->n_candidates * cmp->n_scenarios; i++)
    {
      bpw_mapping_clear (&cmp->cells[i].mapping);
      g_clear_pointer (&cmp->cells[i].reasons, g_ptr_array_unref);
      g_free (cmp->cells[i].error);
    }
  g_free (cmp->cells);
  g_clear_pointer (&cmp->suites, g_array_unref);
  g_clear_object (&cmp->study);
  g_free (cmp);
}

guint
bpw_comparison_get_n_candidates (BpwComparison *cmp)
{
  return cmp->n_candidates;
}

guint
bpw_comparison_get_n_scenarios (BpwComparison *cmp)
{
  return cmp->n_scenarios;
}

guint
bpw_comparison_get_n_suites (BpwComparison *cmp)
{
  return cmp->suites->len;
}

const BpwCompareCell *
bpw_comparison_get_cell (BpwComparison *cmp,
                         guint          candidate,
                         guint          scenario)
{
  g_return_val_if_fail (candidate < cmp->n_candidates && scenario < cmp->n_scenarios, NULL);
  return &cmp->cells[candidate * cmp->n_scenarios + scenario];
}

const BpwCompareSuite *
bpw_comparison_get_suite (BpwComparison *cmp,
                          guint          suite)
{
  g_return_val_if_fail (suite < cmp->suites->len, NULL);
  return &g_array_index (cmp->suites, BpwCompareSuite, suite);
}

gboolean
bpw_comparison_get_cost_unit (BpwComparison *cmp,
                              BpwPriceUnit  *unit)
{
  g_return_val_if_fail (cmp != NULL, FALSE);

  if (unit != NULL)
    *unit = cmp->cost_unit;
  return cmp->cost_known;
}
