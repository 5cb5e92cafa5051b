/* bpw-review-mitigations.c — changes that would gain: mappings found by search, blueprint
 * changes found by a sweep
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Mapping changes: every candidate's mappings on every scenario are searched, bounded so
 * that a packet stays quick — no offload, the default collective algorithms, and the
 * choices that can only do better fixed (ring TP overlap, DP overlap on, FlashAttention-
 * style fusion); TP, PP, DP, EP, ZeRO, SP, recompute, micro-batch and schedule free. The
 * best plan is proposed where it is at least MIN_GAIN faster than the study's mapping, or
 * legal where that one is not.
 *
 * The micro-batch is capped (options->max_micro_batch, BPW_REVIEW_MAX_MICRO_BATCH = 8
 * sequences by default, never below the scenario's own), the whole local batch (one
 * micro-batch a step, no accumulation) always kept. Each micro-batch is an estimator
 * template of its own for every TP, PP, DP, EP and ZeRO, and binding templates is most of
 * a search's work: a local batch of 15 360 / 128 = 120 sequences has 16 divisors, of which
 * 8 stay (1 to 8 and 120). Between a few sequences and the whole local batch, larger
 * micro-batches rarely pay (the stored activations grow with them while the matmuls are
 * already large), and an inference scenario's own micro-batch (a decode batch of 64,
 * say) stays in the space. The bundled default study's recommendation and mitigations
 * are the same with and without the cap (test-review-packet).
 *
 * Blueprint changes: for the recommended candidate, the resource its step is bound by
 * (device-memory bandwidth, link bandwidth or matrix peak) is swept one step of
 * SWEEP_STEP up, with the mapping searched again on the changed part (bpw-sweep.h). The
 * sweep's baseline is that candidate's mapping search of the same scenario, already run:
 * it is handed over, not searched twice.
 *
 * Each proposal states what it costs: the change in peak memory per device and in
 * average power per device, as the estimator computes them for the new plan. Proposals
 * that do not gain enough are listed among the rejected alternatives with their gain.
 */
#define G_LOG_DOMAIN "bpw-review"

#include "config.h"

#include <inttypes.h>

#include <math.h>

#include "bpw-candidate.h"
#include "bpw-i18n.h"
#include "bpw-review-private.h"
#include "bpw-search.h"
#include "bpw-sweep.h"

#define MIN_GAIN    0.01   /* a proposal gains at least 1 % throughput */
#define SWEEP_STEP  1.25   /* the blueprint change: +25 % of the binding resource */

static void
bpw_review_bounded_limits (BpwReviewBuild    *b,
                           const BpwScenario *scenario,
                           BpwSearchLimits   *limits)
{
  bpw_search_limits_init (limits);
  if (b->options->max_micro_batch > 0)
    limits->max_micro_batch = MAX (b->options->max_micro_batch, scenario->micro_batch);
  limits->algorithms = FALSE;
  limits->offloads = 1u << BPW_SEARCH_OFFLOAD_NONE;
  limits->act_offload = 0;
  /* The choices search orders first because they can only do better (bpw-search-space.h):
   * ring TP overlap, DP overlap on, FlashAttention-style fusion. */
  limits->tp_overlap = BPW_TP_OVERLAP_RING;
  limits->dp_overlap = 1;
  limits->fusion_sets = 1u << BPW_SEARCH_FUSION_ATTENTION;
}

static void
bpw_review_search_options (BpwReviewBuild   *b,
                           BpwSearchOptions *options)
{
  bpw_search_options_init (options);
  options->top_k = 1;
  options->threads = b->options->threads;
  options->reevaluate = FALSE;
  options->simulate = FALSE;
}

static void
bpw_review_count_search (BpwReviewBuild        *b,
                         const BpwSearchReport *report)
{
  b->work.searches++;
  b->work.plans += report->space;
  b->work.templates += report->templates;
  b->work.estimated += report->estimated;
}

/* "TP 8 → 4, micro-batch 1 → 2": what differs between @from and @to, where a micro-batch
 * or recompute left to the scenario is @scenario's. */
static char *
bpw_review_mapping_change (const BpwMapping  *from,
                           const BpwMapping  *to,
                           const BpwScenario *scenario)
{
  GString *out = g_string_new (NULL);
  gint64 mb_from = from->micro_batch > 0 ? from->micro_batch : scenario->micro_batch;
  gint64 mb_to = to->micro_batch > 0 ? to->micro_batch : scenario->micro_batch;
  gint rc_from = from->recompute >= 0 ? from->recompute : (gint) scenario->recompute;
  gint rc_to = to->recompute >= 0 ? to->recompute : (gint) scenario->recompute;

#define DIFF_INT(label, a, b) \
  if ((a) != (b)) \
    g_string_append_printf (out, "%s%s %" G_GINT64_FORMAT " → %" G_GINT64_FORMAT, \
                            out->len > 0 ? ", " : "", label, (gint64) (a), (gint64) (b))
#define DIFF_STR(label, a, b) \
  if (g_strcmp0 ((a), (b)) != 0) \
    g_string_append_printf (out, "%s%s %s → %s", out->len > 0 ? ", " : "", label, (a), (b))
  DIFF_INT ("TP", from->parallel.tp, to->parallel.tp);
  DIFF_INT ("PP", from->parallel.pp, to->parallel.pp);
  DIFF_INT ("DP", from->parallel.dp, to->parallel.dp);
  DIFF_INT ("EP", from->parallel.ep, to->parallel.ep);
  DIFF_INT ("ZeRO", from->parallel.zero, to->parallel.zero);
  DIFF_STR ("SP", from->parallel.sp ? "on" : "off", to->parallel.sp ? "on" : "off");
  DIFF_STR ("schedule", bpw_schedule_to_string (from->parallel.schedule),
            bpw_schedule_to_string (to->parallel.schedule));
  DIFF_INT ("micro-batch", mb_from, mb_to);
  DIFF_STR ("recompute", bpw_recompute_to_string (rc_from), bpw_recompute_to_string (rc_to));
  for (guint f = 0; f < BPW_N_FUSIONS; f++)
    if ((from->fusion & (1u << f)) != (to->fusion & (1u << f))
        && from->fusion != BPW_FUSION_AUTOMATIC)
      g_string_append_printf (out, "%s%s fusion %s", out->len > 0 ? ", " : "",
                              bpw_fusion_to_string (1u << f),
                              (to->fusion & (1u << f)) ? "on" : "off");
  DIFF_STR ("DP overlap", from->dp_overlap ? "on" : "off", to->dp_overlap ? "on" : "off");
  DIFF_STR ("TP overlap", bpw_tp_overlap_to_string (from->tp_overlap),
            bpw_tp_overlap_to_string (to->tp_overlap));
#undef DIFF_INT
#undef DIFF_STR
  if (out->len == 0)
    g_string_append (out, _("collective algorithms or tiers only"));
  return g_string_free (out, FALSE);
}

static JsonObject *
bpw_review_proposal (const char          *kind,
                     const char          *candidate,
                     const char          *scenario,
                     const char          *change,
                     const BpwEvaluation *from,
                     const BpwEvaluation *to,
                     const char          *source)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "kind", kind);
  json_object_set_string_member (o, "candidate", candidate);
  json_object_set_string_member (o, "scenario", scenario);
  json_object_set_string_member (o, "change", change);
  if (from->legal)
    _bpw_review_set_double (o, "step_time_s_before", from->step_time_s);
  else
    json_object_set_null_member (o, "step_time_s_before");
  _bpw_review_set_double (o, "step_time_s_after", to->step_time_s);
  /* Throughput gain: a change that makes an illegal plan legal has no finite one. */
  _bpw_review_set_double (o, "predicted_gain",
                          from->legal ? from->step_time_s / to->step_time_s - 1 : NAN);
  _bpw_review_set_double (o, "memory_cost_bytes",
                          from->legal ? to->peak_bytes - from->peak_bytes : to->peak_bytes);
  _bpw_review_set_double (o, "power_cost_w", to->average_power_w - from->average_power_w);
  _bpw_review_set_double (o, "energy_cost_j", to->energy_j - from->energy_j);
  json_object_set_string_member (o, "source", source);
  return o;
}

static gboolean bpw_review_propose_search (BpwReviewBuild        *b,
                                           const BpwCompareCell  *cell,
                                           const char            *candidate,
                                           const char            *scenario,
                                           const char            *alternative,
                                           const BpwSearchReport *report,
                                           const BpwScenario     *run_scenario);

/* The mapping search of candidate @c on scenario @s; its report is left in @keep. */
static gboolean
bpw_review_search_cell (BpwReviewBuild   *b,
                        guint             c,
                        guint             s,
                        BpwSearchReport **keep,
                        GError          **error)
{
  const BpwCompareCell *cell = bpw_comparison_get_cell (b->cmp, c, s);
  const char *candidate = bpw_study_get_candidate (b->study, c)->name;
  const char *scenario = bpw_study_get_scenario (b->study, s)->name;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(BpwSearchReport) report = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *alternative = NULL;
  BpwSearchLimits limits;
  BpwSearchOptions options;
  BpwCandidateRun run;
  gboolean ok;

  if (!cell->ok)
    return TRUE;
  alternative = g_strdup_printf (_("another mapping of %s on %s"), candidate, scenario);
  if (!bpw_candidate_run_init (&run, b->counted, c, s, &local_error))
    {
      bpw_candidate_run_clear (&run);
      _bpw_review_reject (b, "mapping", alternative, local_error->message);
      return TRUE;
    }
  bpw_review_bounded_limits (b, &run.scenario, &limits);
  bpw_review_search_options (b, &options);
  space = bpw_search_space_new (&run.spec, &run.scenario, run.blueprint, &run.mapping,
                                cell->devices, &limits, &local_error);
  if (space != NULL)
    report = bpw_search_run (space, &options, NULL, NULL, b->cancellable, error);
  if (space == NULL)
    {
      bpw_candidate_run_clear (&run);
      _bpw_review_reject (b, "mapping", alternative, local_error->message);
      return TRUE;
    }
  if (report == NULL || g_cancellable_set_error_if_cancelled (b->cancellable, error))
    {
      bpw_candidate_run_clear (&run);
      return FALSE;
    }
  bpw_review_count_search (b, report);
  ok = bpw_review_propose_search (b, cell, candidate, scenario, alternative, report,
                                  &run.scenario);
  bpw_candidate_run_clear (&run);
  *keep = g_steal_pointer (&report);
  return ok;
}

static gboolean
bpw_review_propose_search (BpwReviewBuild        *b,
                           const BpwCompareCell  *cell,
                           const char            *candidate,
                           const char            *scenario,
                           const char            *alternative,
                           const BpwSearchReport *report,
                           const BpwScenario     *run_scenario)
{
  const BpwSearchResult *best;
  double gain;

  if (report->best->len == 0)
    {
      g_autofree char *why = g_strdup_printf (_("No legal plan among the %" PRIu64
                                              " mappings searched."), report->space);

      _bpw_review_reject (b, "mapping", alternative, why);
      return TRUE;
    }
  best = &g_array_index (report->best, BpwSearchResult, 0);
  gain = cell->eval.legal ? cell->eval.step_time_s / best->estimate.step_time_s - 1 : INFINITY;
  if (gain >= MIN_GAIN)
    {
      g_autofree char *change = bpw_review_mapping_change (&cell->mapping, &best->mapping,
                                                           run_scenario);
      g_autofree char *source = g_strdup_printf (_("bounded search: %" PRIu64
                                                 " plans, %" PRIu64 " legal"),
                                                 report->space, report->legal);

      json_array_add_object_element (b->mitigations,
                                     bpw_review_proposal ("mapping", candidate, scenario,
                                                          change, &cell->eval,
                                                          &best->estimate, source));
    }
  else
    {
      g_autofree char *why = g_strdup_printf (_("The best of %" PRIu64 " mappings "
                                              "searched gains %.2f%%, below the %.0f%% a "
                                              "proposal needs."), report->space, 100 * gain,
                                              100 * MIN_GAIN);

      _bpw_review_reject (b, "mapping", alternative, why);
    }
  return TRUE;
}

static const char *
bpw_review_sweep_param (BpwBottleneck bottleneck,
                        BpwSweepParam *param)
{
  switch (bottleneck)
    {
    case BPW_BOTTLENECK_MEMORY:
      *param = BPW_SWEEP_HBM_BANDWIDTH;
      return "hbm_bandwidth";
    case BPW_BOTTLENECK_COMMUNICATION:
      *param = BPW_SWEEP_LINK_BANDWIDTH;
      return "link_bandwidth";
    case BPW_BOTTLENECK_COMPUTE:
      *param = BPW_SWEEP_MATRIX_PEAK;
      return "matrix_peak";
    default:
      return NULL;  /* latency, bubbles: a mapping matter, not a part's */
    }
}

/* The sweep of candidate @c on scenario @s, from @baseline (nullable, taken): the mapping
 * search of that cell. */
static gboolean
bpw_review_sweep_cell (BpwReviewBuild   *b,
                       guint             c,
                       guint             s,
                       BpwSearchReport **baseline,
                       GError          **error)
{
  const BpwCompareCell *cell = bpw_comparison_get_cell (b->cmp, c, s);
  const char *candidate = bpw_study_get_candidate (b->study, c)->name;
  const char *scenario = bpw_study_get_scenario (b->study, s)->name;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(BpwSweep) sweep = NULL;
  g_autofree char *param_text = NULL;
  g_autofree char *alternative = NULL;
  const BpwSearchReport *base;
  const BpwSweepPoint *point;
  BpwSearchLimits limits;
  BpwSearchOptions options;
  BpwCandidateRun run;
  BpwSweepParam param;
  const char *name;
  double value, total, arch, map;
  const char *params[2] = { NULL, NULL };

  if (!cell->ok || !cell->eval.legal
      || (name = bpw_review_sweep_param (cell->eval.bottleneck, &param)) == NULL)
    return TRUE;
  if (!bpw_candidate_run_init (&run, b->counted, c, s, NULL)
      || !bpw_sweep_param_get_value (param, 0, run.blueprint, run.scenario.dtype,
                                     cell->devices, &value))
    {
      bpw_candidate_run_clear (&run);
      return TRUE;
    }
  param_text = g_strdup_printf ("%s=%.17g", name, value * SWEEP_STEP);
  params[0] = param_text;
  bpw_review_bounded_limits (b, &run.scenario, &limits);
  bpw_review_search_options (b, &options);
  sweep = bpw_sweep_new (&run.spec, &run.scenario, run.blueprint, &run.mapping, cell->devices,
                         &limits, params, &local_error);
  bpw_candidate_run_clear (&run);
  alternative = g_strdup_printf (_("%s of %s ×%.2f for %s"), name, candidate, SWEEP_STEP,
                                 scenario);
  if (sweep == NULL)
    {
      _bpw_review_reject (b, "blueprint", alternative, local_error->message);
      return TRUE;
    }
  if (*baseline != NULL)
    bpw_sweep_take_baseline (sweep, g_steal_pointer (baseline));
  if (!bpw_sweep_run (sweep, &options, b->cancellable, error))
    return FALSE;
  base = bpw_sweep_get_baseline (sweep);
  point = bpw_sweep_get_point (sweep, 0);
  if (base != NULL && !bpw_sweep_get_baseline_reused (sweep))
    bpw_review_count_search (b, base);
  if (point->report != NULL)
    bpw_review_count_search (b, point->report);
  bpw_sweep_get_gains (sweep, 0, &total, &arch, &map);
  if (base == NULL || base->best->len == 0 || point->report == NULL
      || point->report->best->len == 0 || !isfinite (total))
    {
      _bpw_review_reject (b, "blueprint", alternative, _("No legal plan on one side."));
      return TRUE;
    }
  if (total - 1 >= MIN_GAIN)
    {
      const BpwEvaluation *from = &g_array_index (base->best, BpwSearchResult, 0).estimate;
      const BpwEvaluation *to = &g_array_index (point->report->best, BpwSearchResult, 0).estimate;
      g_autofree char *from_text = bpw_quantity_format (value, bpw_sweep_param_get_unit (param));
      g_autofree char *to_text = bpw_quantity_format (value * SWEEP_STEP,
                                                      bpw_sweep_param_get_unit (param));
      g_autofree char *change = g_strdup_printf (_("%s %s → %s (×%.2f), mapping searched "
                                                 "again"), name, from_text, to_text,
                                                 SWEEP_STEP);
      g_autofree char *source = g_strdup_printf (_("one-point sweep, bound by %s: gain from "
                                                 "the part ×%.4f, from the mapping ×%.4f"),
                                                 bpw_bottleneck_to_string (cell->eval.bottleneck),
                                                 arch, map);

      json_array_add_object_element (b->mitigations,
                                     bpw_review_proposal ("blueprint", candidate, scenario,
                                                          change, from, to, source));
    }
  else
    {
      g_autofree char *why = g_strdup_printf (_("Gains %.2f%%, below the %.0f%% a proposal "
                                              "needs."), 100 * (total - 1), 100 * MIN_GAIN);

      _bpw_review_reject (b, "blueprint", alternative, why);
    }
  return TRUE;
}

gboolean
_bpw_review_mitigations (BpwReviewBuild  *b,
                         GError         **error)
{
  guint n_c = bpw_comparison_get_n_candidates (b->cmp);
  guint n_s = bpw_comparison_get_n_scenarios (b->cmp);
  g_autoptr(GPtrArray) reports = NULL;  /* BpwSearchReport, nullable: c · n_s + s */

  if (!b->options->mitigations)
    return TRUE;
  reports = g_ptr_array_new_full (n_c * n_s, (GDestroyNotify) bpw_search_report_free);
  g_ptr_array_set_size (reports, n_c * n_s);
  for (guint c = 0; c < n_c; c++)
    for (guint s = 0; s < n_s; s++)
      if (!bpw_review_search_cell (b, c, s, (BpwSearchReport **) &reports->pdata[c * n_s + s],
                                   error))
        return FALSE;
  for (guint s = 0; b->best >= 0 && s < n_s; s++)
    if (!bpw_review_sweep_cell (b, (guint) b->best, s,
                                (BpwSearchReport **) &reports->pdata[(guint) b->best * n_s + s],
                                error))
      return FALSE;
  return TRUE;
}
