/* bpw-trade-data.c — serving sweeps of a study's candidates, for the trade-curve chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-trade-data"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "bpw-candidate.h"
#include "bpw-error.h"
#include "bpw-estimator.h"
#include "bpw-study-draft.h"
#include "bpw-trade-data.h"
#include "bpw-trade-disagg.h"

/* Fractions of the estimated saturation rate: dense at light load, where latency is
 * flat, and around the knee. */
static const double rate_fractions[] = { 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0, 1.1 };

const char *
bpw_trade_latency_name (BpwTradeLatency metric)
{
  static const char * const names[BPW_TRADE_N_LATENCIES] = {
    N_("time to first token"), N_("time per output token"), N_("end-to-end latency"),
  };

  return metric < BPW_TRADE_N_LATENCIES ? _(names[metric]) : "?";
}

void
bpw_trade_options_init (BpwTradeOptions   *options,
                        const BpwScenario *scenario)
{
  gint64 prompt = scenario != NULL ? MAX (scenario->seq, 1) : 512;
  gint64 output = 256;

  if (scenario != NULL && scenario->phase == BPW_WORKLOAD_DECODE && scenario->context > prompt)
    output = scenario->context - prompt;
  *options = (BpwTradeOptions) {
    .requests = 1000, .seed = 1, .max_batch = 256, .n_rates = G_N_ELEMENTS (rate_fractions),
    .prompt = { BPW_LENGTH_FIXED, (double) prompt, 0 },
    .output = { BPW_LENGTH_FIXED, (double) output, 0 },
  };
}

void
bpw_trade_options_init_from_study (BpwTradeOptions *options,
                                   BpwStudy        *study,
                                   guint            scenario)
{
  const BpwStudyScenario *sc = bpw_study_get_scenario (study, scenario);
  const BpwModelSpec *spec = &bpw_study_get_workload (study, sc->workload)->spec;
  gint64 images = bpw_scenario_images (&sc->scenario, spec) * bpw_model_spec_image_tokens (spec);

  bpw_trade_options_init (options, &sc->scenario);
  /* The scenario's seq counts its image tokens; serving's prompt lengths count text (each
   * request adds its images' tokens itself). */
  if (images > 0)
    options->prompt.a = (double) MAX (sc->scenario.seq - images, 1);
  options->serving = sc->serving;
}

BpwTradeData *
bpw_trade_data_new (const char *title,
                    const char *scenario)
{
  BpwTradeData *data = g_new0 (BpwTradeData, 1);

  data->title = g_strdup (title != NULL ? title : _("Trade curves"));
  data->scenario = g_strdup (scenario != NULL ? scenario : "");
  data->stream = g_strdup ("");
  data->metric = BPW_TRADE_LATENCY_TPOT;
  data->series = g_array_new (FALSE, FALSE, sizeof (BpwTradeSeries));
  data->points = g_array_new (FALSE, FALSE, sizeof (BpwTradePoint));
  return data;
}

void
bpw_trade_data_free (BpwTradeData *data)
{
  if (data == NULL)
    return;
  for (guint i = 0; i < data->series->len; i++)
    {
      BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, i);

      g_free (s->name);
      g_free (s->error);
    }
  g_array_unref (data->series);
  g_array_unref (data->points);
  g_free (data->title);
  g_free (data->scenario);
  g_free (data->stream);
  g_clear_pointer (&data->calibration, bpw_study_calibration_free);
  g_free (data);
}

guint
bpw_trade_data_add_series (BpwTradeData *data,
                           const char   *name,
                           gint64        devices,
                           double        power_w,
                           double        cost)
{
  BpwTradeSeries s = {
    .name = g_strdup (name != NULL ? name : ""), .devices = devices, .power_w = power_w,
    .cost = cost, .saturation = NAN, .first = data->points->len,
  };

  g_array_append_val (data->series, s);
  return data->series->len - 1;
}

gboolean
bpw_trade_data_cost_unit (const BpwTradeData *data,
                          BpwPriceUnit       *unit,
                          GError            **error)
{
  const BpwTradeSeries *first;

  g_return_val_if_fail (data != NULL, FALSE);

  if (data->series->len == 0)
    {
      g_set_error_literal (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                           _("no candidate to price"));
      return FALSE;
    }
  first = &g_array_index (data->series, BpwTradeSeries, 0);
  for (guint i = 0; i < data->series->len; i++)
    {
      const BpwTradeSeries *s = &g_array_index (data->series, BpwTradeSeries, i);

      if (isnan (s->cost))
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("No price given for candidate “%s”: a per-dollar chart needs a "
                         "price for every candidate (the study's “price”: value, unit and "
                         "source, set in the window under Review Data…)"), s->name);
          return FALSE;
        }
      if (s->cost_unit != first->cost_unit)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("Candidates “%s” and “%s” are priced in different units (%s, %s): "
                         "their costs do not compare"), first->name, s->name,
                       bpw_price_unit_to_string (first->cost_unit),
                       bpw_price_unit_to_string (s->cost_unit));
          return FALSE;
        }
    }
  if (unit != NULL)
    *unit = first->cost_unit;
  return TRUE;
}

void
bpw_trade_data_add_point (BpwTradeData        *data,
                          const BpwTradePoint *point)
{
  BpwTradePoint p = *point;
  BpwTradeSeries *s;

  g_return_if_fail (data->series->len > 0);

  p.series = data->series->len - 1;
  g_array_append_val (data->points, p);
  s = &g_array_index (data->series, BpwTradeSeries, data->series->len - 1);
  s->n++;
}

/* Requests per second one replica sustains, roughly: a request's prefill alone plus its
 * share of full decode batches. Only scales the sweep; the points are what serving
 * measures. */
static gboolean
saturation (BpwServeModel *model, const BpwTradeOptions *o, double *rate, GError **error)
{
  /* A request's prompt is its text and its images' tokens. */
  double prompt = bpw_length_dist_mean (&o->prompt) + (double) bpw_serve_model_image_tokens (model);
  double output = bpw_length_dist_mean (&o->output);
  gint64 fit = (gint64) floor ((double) bpw_serve_model_kv_capacity (model) / (prompt + output));
  gint64 batch = CLAMP (fit, 1, bpw_serve_model_max_batch (model));
  double t_prefill, t_decode, t_encoder;

  if (!bpw_serve_model_prompt_time (model, 1, prompt * prompt, &t_prefill, &t_encoder, error) ||
      !bpw_serve_model_decode_time (model, batch, batch * (prompt + output / 2), &t_decode,
                                    error))
    return FALSE;
  *rate = 1.0 / (t_prefill + output * t_decode / (double) batch);
  return isfinite (*rate) && *rate > 0;
}

/* The candidate's name, and the serving choices of its own that move its curve: expert
 * parallelism and a KV cache in another precision than the compute. */
char *
_bpw_trade_series_label (const char *name, const BpwCandidateRun *run)
{
  g_autoptr(GString) extra = g_string_new (NULL);

  if (run->mapping.parallel.ep > 1)
    g_string_append_printf (extra, _("EP %" PRId64), run->mapping.parallel.ep);
  if (run->scenario.kv_dtype != run->scenario.dtype)
    {
      if (extra->len > 0)
        g_string_append (extra, ", ");
      g_string_append_printf (extra, _("%s KV cache"), bpw_dtype_to_string (run->scenario.kv_dtype));
    }
  /* Weight-only quantisation, as the MLP (else the projections) stores its weights. */
  for (guint c = 0; run->mapping.precision.set && c < BPW_N_POLICY_CLASSES; c++)
    {
      const BpwClassPrecision *cp = &run->mapping.precision.classes[c];

      if (cp->weights == BPW_WEIGHT_FORMAT_NATIVE || c == BPW_MATMUL_CLASS_LM_HEAD)
        continue;
      if (extra->len > 0)
        g_string_append (extra, ", ");
      /* Translators: weight-only quantisation, e.g. "int4 weights, groups of 128" */
      g_string_append_printf (extra, _("%s weights, groups of %" PRId64),
                              bpw_weight_format_to_string (cp->weights), cp->group);
      break;
    }
  if (extra->len == 0)
    return g_strdup (name);
  return g_strdup_printf ("%s (%s)", name, extra->str);
}

/* The serving features of @o, as a clause for the legend's note. */
static char *
describe_serving (const BpwServeSettings *o)
{
  GString *out = g_string_new (NULL);

  if (o->kv_contiguous)
    g_string_append (out, _("contiguous KV cache (the longest request each)"));
  else
    g_string_append_printf (out, _("paged KV cache of %" PRId64 "-token blocks"),
                            o->kv_block > 0 ? o->kv_block : BPW_SERVE_KV_BLOCK);
  if (o->prefix_hit > 0)
    g_string_append_printf (out, _(", prefix cache hit rate %.0f %%"), o->prefix_hit * 100);
  if (o->chunk_tokens > 0)
    g_string_append_printf (out, _(", chunked prefill of %" PRId64 " tokens"), o->chunk_tokens);
  if (o->spec_tokens > 0 && o->draft[0] != '\0')
    /* Translators: speculative decoding, e.g. "…of 4 tokens drafted by llama3.2-1b" */
    g_string_append_printf (out, _(", speculative decoding of %" PRId64 " tokens drafted by "
                                   "%s (acceptance %.2f)"), o->spec_tokens, o->draft,
                            o->spec_accept);
  else if (o->spec_tokens > 0)
    g_string_append_printf (out, _(", speculative decoding of %" PRId64 " MTP tokens "
                                   "(acceptance %.2f)"), o->spec_tokens, o->spec_accept);
  if (o->pools.enabled)
    {
      g_autofree char *pools = _bpw_trade_describe_pools (&o->pools);

      g_string_append_printf (out, "; %s", pools);
    }
  return g_string_free (out, FALSE);
}

/* The prompts of the stream: their text lengths, and the images each request adds
 * ("fixed:448 with 1 image of 576 tokens"), which the lengths do not count. */
static char *
describe_prompts (const BpwLengthDist *prompt,
                  const BpwScenario   *scenario,
                  const BpwModelSpec  *spec)
{
  g_autofree char *text = bpw_length_dist_to_string (prompt);
  gint64 images = bpw_scenario_images (scenario, spec);
  gint64 tokens = bpw_model_spec_image_tokens (spec);
  gulong plural = (gulong) MIN (images, 1000000);

  if (images == 0)
    return g_steal_pointer (&text);
  /* A cross-attention model's images take no decoder tokens. */
  if (tokens == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s with %" PRId64 " image",
                                         "%s with %" PRId64 " images", plural),
                            text, images);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s with %" PRId64 " image of %"
                                       PRId64 " tokens", "%s with %" PRId64 " images of %"
                                       PRId64 " tokens each", plural),
                          text, images, tokens);
}

/* The candidate's modelled power on the scenario, all devices: the estimator's energy of a
 * step over its time (idle power plus the work at the blueprint's energy figures), not the
 * TDP, which no device draws all the time. NaN when the blueprint cannot price energy.
 * Serving at a lighter load draws less; this is the power of the scenario's full step. */
double
_bpw_trade_modelled_power (const BpwCandidateRun *run)
{
  g_autoptr(BpwEstimator) estimator = bpw_estimator_new (&run->spec, &run->scenario,
                                                         run->blueprint, NULL);
  BpwEvaluation e;

  if (estimator == NULL || !bpw_estimator_evaluate (estimator, &run->mapping, &e, NULL, NULL))
    return NAN;
  return e.energy_j > 0 && e.step_time_s > 0 ? e.energy_j / e.step_time_s : NAN;
}

static void
sweep_candidate (BpwTradeData *data, BpwStudy *study, guint c, guint s,
                 const BpwTradeOptions *options)
{
  const BpwStudyCandidate *cand = bpw_study_get_candidate (study, c);
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwServeModel) model = NULL;
  g_autoptr(BpwServeModel) draft = NULL;
  BpwServeOptions so = { .requests = options->requests, .prompt = options->prompt,
                         .output = options->output, .seed = options->seed };
  g_autofree char *label = NULL;
  gint64 longest_prompt, longest_request, devices;
  BpwTradeSeries *series;
  BpwCandidateRun run;
  double rate = NAN;

  if (!bpw_candidate_run_init (&run, study, c, s, &error))
    {
      bpw_trade_data_add_series (data, cand->name, 0, NAN, NAN);
      goto fail_run;
    }
  bpw_serve_settings_apply (&options->serving, &so);
  so.replicas = bpw_serve_replicas (&run.mapping.parallel);
  devices = MAX (run.mapping.parallel.dp, 1) * MAX (run.mapping.parallel.tp, 1) *
            MAX (run.mapping.parallel.pp, 1);
  label = _bpw_trade_series_label (cand->name, &run);
  /* The study's price first: it is the user's, with its source. */
  bpw_trade_data_add_series (data, label, devices,
                             _bpw_trade_modelled_power (&run),
                             cand->price.set ? bpw_study_price_cost (&cand->price, devices)
                             : run.blueprint->cost.set ? devices * run.blueprint->cost.value
                             : NAN);
  g_array_index (data->series, BpwTradeSeries, data->series->len - 1).cost_unit =
    cand->price.set ? cand->price.unit : BPW_PRICE_PER_DEVICE;
  so.arrival_rate = 1;
  bpw_serve_stream_bounds (&so, &longest_prompt, &longest_request);
  model = bpw_serve_model_new (&run.spec, &run.scenario, run.blueprint, &run.mapping,
                               options->max_batch, longest_prompt, longest_request, &error);
  if (model == NULL || !saturation (model, options, &rate, &error))
    goto fail_run;
  /* The draft model runs on the candidate's devices beside the target (as `bpw serve
   * --draft` does). */
  if (options->serving.spec_tokens > 0 && options->serving.draft[0] != '\0')
    {
      BpwModelSpec spec;

      if (bpw_study_load_draft (study, options->serving.draft, &spec, &error))
        draft = bpw_serve_model_new (&spec, &run.scenario, run.blueprint, &run.mapping,
                                     options->max_batch, longest_prompt, longest_request,
                                     &error);
      bpw_model_spec_clear (&spec);
      if (draft == NULL)
        {
          g_prefix_error (&error, _("draft model %s: "), options->serving.draft);
          goto fail_run;
        }
      so.draft = draft;
    }
  rate *= (double) so.replicas;
  g_array_index (data->series, BpwTradeSeries, data->series->len - 1).saturation = rate;
  for (guint i = 0; i < MIN (options->n_rates, G_N_ELEMENTS (rate_fractions)); i++)
    {
      BpwServeResult r;
      BpwTradePoint p;

      so.arrival_rate = rate * rate_fractions[i];
      if (!bpw_serve_run (model, &so, &r, &error))
        goto fail_run;
      p = (BpwTradePoint) {
        .arrival_rate = r.arrival_rate, .throughput = r.throughput_tokens_per_s,
        .latency = { r.ttft_s, r.tpot_s, r.e2e_s }, .requests = r.requests,
        .rejected = r.rejected, .prefill_utilisation = NAN, .decode_utilisation = NAN,
      };
      bpw_trade_data_add_point (data, &p);
    }
  bpw_candidate_run_clear (&run);
  return;

fail_run:
  bpw_candidate_run_clear (&run);
  series = &g_array_index (data->series, BpwTradeSeries, data->series->len - 1);
  series->error = g_strdup (error != NULL ? error->message : _("it cannot serve this scenario"));
}

BpwTradeData *
bpw_trade_data_new_from_study (BpwStudy              *study,
                               guint                  scenario,
                               const BpwTradeOptions *options,
                               GError               **error)
{
  const BpwStudyScenario *sc;
  BpwTradeOptions defaults;
  g_autofree char *title = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *output = NULL;
  g_autofree char *serving = NULL;
  BpwTradeData *data;

  g_return_val_if_fail (BPW_IS_STUDY (study), NULL);

  if (scenario >= bpw_study_get_n_scenarios (study))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("The study has no scenario %u."), scenario);
      return NULL;
    }
  sc = bpw_study_get_scenario (study, scenario);
  if (sc->scenario.phase == BPW_WORKLOAD_TRAIN)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("Scenario “%s” trains; trade curves need a prefill or decode scenario."),
                   sc->name);
      return NULL;
    }
  if (options == NULL)
    {
      bpw_trade_options_init_from_study (&defaults, study, scenario);
      options = &defaults;
    }
  title = g_strdup_printf (_("Trade curves: %s, throughput against latency"), sc->name);
  data = bpw_trade_data_new (title, sc->name);
  prompt = describe_prompts (&options->prompt, &sc->scenario,
                              &bpw_study_get_workload (study, sc->workload)->spec);
  output = bpw_length_dist_to_string (&options->output);
  serving = describe_serving (&options->serving);
  g_free (data->stream);
  data->stream = g_strdup_printf (_("%" PRId64 " requests per rate, Poisson (seed %"
                                  PRIu64 "), prompts %s, outputs %s, ≤ %"
                                  PRId64 " sequences a step; %s"),
                                  options->requests, options->seed, prompt, output,
                                  options->max_batch, serving);
  data->sla[BPW_TRADE_LATENCY_TTFT] = sc->scenario.sla_ttft;
  data->sla[BPW_TRADE_LATENCY_TPOT] = sc->scenario.sla_tpot;
  data->sla[BPW_TRADE_LATENCY_E2E] = sc->scenario.sla_p99;
  data->metric = sc->scenario.sla_tpot > 0 ? BPW_TRADE_LATENCY_TPOT
                 : sc->scenario.sla_ttft > 0 ? BPW_TRADE_LATENCY_TTFT
                 : sc->scenario.sla_p99 > 0 ? BPW_TRADE_LATENCY_E2E
                 : sc->scenario.phase == BPW_WORKLOAD_DECODE ? BPW_TRADE_LATENCY_TPOT
                 : BPW_TRADE_LATENCY_TTFT;
  for (guint c = 0; c < bpw_study_get_n_candidates (study); c++)
    {
      sweep_candidate (data, study, c, scenario, options);
      if (options->serving.pools.enabled)
        _bpw_trade_sweep_disagg (data, study, c, scenario, options);
    }
  data->calibration = bpw_study_calibration_new (study);
  return data;
}
