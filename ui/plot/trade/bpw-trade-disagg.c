/* bpw-trade-disagg.c — the disaggregated series of the serving trade curves
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-trade-data"

#include "config.h"

#include "bpw-trade-disagg.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "bpw-error.h"
#include "bpw-serve-disagg.h"

/* As the colocated sweep's: dense at light load and around the knee. */
static const double rate_fractions[] = { 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0, 1.1 };

char *
_bpw_trade_describe_pools (const BpwServePools *p)
{
  g_autofree char *prefill = g_strdup_printf (ngettext ("%" PRId64 " prefill replica",
                                                        "%" PRId64 " prefill replicas",
                                                        (gulong) MIN (p->prefill_replicas, 1000)),
                                              p->prefill_replicas);
  g_autofree char *decode = g_strdup_printf (ngettext ("%" PRId64 " decode replica",
                                                       "%" PRId64 " decode replicas",
                                                       (gulong) MIN (p->decode_replicas, 1000)),
                                             p->decode_replicas);

  /* Translators: "2 prefill replicas of TP 4 × PP 1, 1 decode replica of TP 8 × PP 1,
   * KV caches over infiniband" */
  return g_strdup_printf (_("disaggregated: %s of TP %" PRId64 " × PP %" PRId64 ", %s of TP %"
                            PRId64 " × PP %" PRId64 ", KV caches over %s"),
                          prefill, p->prefill_tp, p->prefill_pp, decode, p->decode_tp,
                          p->decode_pp, p->kv_tier);
}

static BpwServeModel *
pool_model (const BpwCandidateRun *run, gint64 tp, gint64 pp, const BpwTradeOptions *o,
            gint64 longest_prompt, gint64 longest_request, const char *pool, GError **error)
{
  BpwMapping mapping;
  BpwServeModel *m;

  bpw_serve_pool_mapping (&run->mapping, tp, pp, &mapping);
  m = bpw_serve_model_new (&run->spec, &run->scenario, run->blueprint, &mapping,
                           o->max_batch, longest_prompt, longest_request, error);
  bpw_mapping_clear (&mapping);
  if (m == NULL)
    g_prefix_error (error, _("%s pool (TP %" PRId64 ", PP %" PRId64 "): "), pool, tp, pp);
  return m;
}

/* Requests per second the pools sustain, roughly: the prefill pool's prompts one at a
 * time, the decode pool's full batches; the smaller. Only scales the sweep. */
static gboolean
saturation (BpwServeModel *prefill, BpwServeModel *decode, const BpwServePools *p,
            const BpwTradeOptions *o, double *rate, GError **error)
{
  double prompt = bpw_length_dist_mean (&o->prompt) +
                  (double) bpw_serve_model_image_tokens (prefill);
  double output = bpw_length_dist_mean (&o->output);
  gint64 fit = (gint64) floor ((double) bpw_serve_model_kv_capacity (decode) / (prompt + output));
  gint64 batch = CLAMP (fit, 1, bpw_serve_model_max_batch (decode));
  double t_prefill, t_decode, t_encoder;

  if (!bpw_serve_model_prompt_time (prefill, 1, prompt * prompt, &t_prefill, &t_encoder, error)
      || !bpw_serve_model_decode_time (decode, batch, batch * (prompt + output / 2), &t_decode,
                                       error))
    return FALSE;
  *rate = MIN ((double) p->prefill_replicas / t_prefill,
               (double) p->decode_replicas * (double) batch / (output * t_decode));
  return isfinite (*rate) && *rate > 0;
}

void
_bpw_trade_sweep_disagg (BpwTradeData          *data,
                         BpwStudy              *study,
                         guint                  c,
                         guint                  s,
                         const BpwTradeOptions *options)
{
  const BpwStudyCandidate *cand = bpw_study_get_candidate (study, c);
  const BpwServePools *p = &options->serving.pools;
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwServeModel) prefill = NULL;
  g_autoptr(BpwServeModel) decode = NULL;
  BpwServeOptions so = { .requests = options->requests, .prompt = options->prompt,
                         .output = options->output, .seed = options->seed, .replicas = 1 };
  g_autofree char *base = NULL;
  g_autofree char *label = NULL;
  gint64 longest_prompt, longest_request, devices, colocated;
  double rate = NAN, power;
  BpwTradeSeries *series;
  BpwServeLink link;
  BpwCandidateRun run;

  devices = p->prefill_replicas * p->prefill_tp * p->prefill_pp +
            p->decode_replicas * p->decode_tp * p->decode_pp;
  if (!bpw_candidate_run_init (&run, study, c, s, &error))
    {
      label = g_strdup_printf (_("%s (disaggregated)"), cand->name);
      bpw_trade_data_add_series (data, label, devices, NAN, NAN);
      goto fail_run;
    }
  base = _bpw_trade_series_label (cand->name, &run);
  label = g_strdup_printf (_("%s, disaggregated %" PRId64 "P + %" PRId64 "D"), base,
                           p->prefill_replicas, p->decode_replicas);
  /* The candidate's modelled power per device, on both pools' devices. */
  colocated = MAX (run.mapping.parallel.dp, 1) * MAX (run.mapping.parallel.tp, 1) *
              MAX (run.mapping.parallel.pp, 1);
  power = _bpw_trade_modelled_power (&run) / (double) colocated * (double) devices;
  bpw_trade_data_add_series (data, label, devices, power,
                             cand->price.set ? bpw_study_price_cost (&cand->price, devices)
                             : run.blueprint->cost.set ? devices * run.blueprint->cost.value
                             : NAN);
  series = &g_array_index (data->series, BpwTradeSeries, data->series->len - 1);
  series->cost_unit = cand->price.set ? cand->price.unit : BPW_PRICE_PER_DEVICE;
  series->disaggregated = TRUE;
  bpw_serve_settings_apply (&options->serving, &so);
  /* As on the command line: a draft model beside the decode pool is not modelled. */
  if (options->serving.draft[0] != '\0' && options->serving.spec_tokens > 0)
    {
      g_set_error (&error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("a draft model with disaggregated pools is not modelled; speculate "
                   "with the MTP heads (no draft)"));
      goto fail_run;
    }
  so.arrival_rate = 1;
  bpw_serve_stream_bounds (&so, &longest_prompt, &longest_request);
  if (!bpw_serve_link_lookup (run.blueprint, p->kv_tier, &link, &error))
    goto fail_run;
  prefill = pool_model (&run, p->prefill_tp, p->prefill_pp, options, longest_prompt,
                        longest_request, _("prefill"), &error);
  if (prefill == NULL)
    goto fail_run;
  decode = pool_model (&run, p->decode_tp, p->decode_pp, options, longest_prompt,
                       longest_request, _("decode"), &error);
  if (decode == NULL || !saturation (prefill, decode, p, options, &rate, &error))
    goto fail_run;
  g_array_index (data->series, BpwTradeSeries, data->series->len - 1).saturation = rate;
  for (guint i = 0; i < MIN (options->n_rates, G_N_ELEMENTS (rate_fractions)); i++)
    {
      BpwServeDisaggResult r;
      BpwTradePoint pt;

      so.arrival_rate = rate * rate_fractions[i];
      if (!bpw_serve_disagg_run (prefill, p->prefill_replicas, decode, p->decode_replicas,
                                 &link, &so, &r, &error))
        goto fail_run;
      pt = (BpwTradePoint) {
        .arrival_rate = r.whole.arrival_rate, .throughput = r.whole.throughput_tokens_per_s,
        .latency = { r.whole.ttft_s, r.whole.tpot_s, r.whole.e2e_s },
        .requests = r.whole.requests, .rejected = r.whole.rejected,
        .prefill_utilisation = r.prefill_utilisation,
        .decode_utilisation = r.decode_utilisation,
      };
      bpw_trade_data_add_point (data, &pt);
    }
  bpw_candidate_run_clear (&run);
  return;

fail_run:
  bpw_candidate_run_clear (&run);
  series = &g_array_index (data->series, BpwTradeSeries, data->series->len - 1);
  series->disaggregated = TRUE;
  series->error = g_strdup (error != NULL ? error->message : _("it cannot serve this scenario"));
}
