/* test-trade-disagg.c — disaggregated serving in a study and on its trade curves
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A scenario's "serving.pools": read, written back the same, refused with the file, line,
 * column and field; the trade curves then carry a disaggregated series per candidate on
 * both pools' devices, with each pool's utilisation, and a tier the blueprint lacks is
 * that series' error naming the tier and the blueprint's tiers.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-trade-data.h"
#include "bpw-trade-plot.h"

static const char *study_head =
  "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"disagg\",\n"
  " \"workloads\": [{\"name\": \"llama\", \"model\": \"llama3-8b\"}],\n"
  " \"scenarios\": [{\"name\": \"decode\", \"workload\": \"llama\", \"phase\": \"decode\",\n"
  "   \"global_batch\": 8, \"seq\": 1024, \"context\": 1152,\n"
  "   \"serving\": {\"pools\": ";
static const char *study_tail =
  "}}],\n"
  " \"candidates\": [{\"name\": \"H100\", \"blueprint\": \"h100-sxm-80gb\", \"mapping\": {}}]}";

static BpwStudy *
study_with_pools (const char *pools, GError **error)
{
  g_autofree char *text = g_strconcat (study_head, pools, study_tail, NULL);

  return bpw_study_new_from_data ("disagg.json", text, -1, error);
}

static void
test_read_write (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with_pools ("{\"prefill_replicas\": 2, \"prefill_tp\": 2, "
                                                "\"decode_replicas\": 1, \"decode_pp\": 2, "
                                                "\"kv_tier\": \"nvlink\"}", &error);
  g_autoptr(BpwStudy) back = NULL;
  g_autofree char *text = NULL;
  const BpwServePools *p;

  g_assert_no_error (error);
  p = &bpw_study_get_scenario (study, 0)->serving.pools;
  g_assert_true (p->enabled);
  g_assert_cmpint (p->prefill_replicas, ==, 2);
  g_assert_cmpint (p->prefill_tp, ==, 2);
  g_assert_cmpint (p->prefill_pp, ==, 1);
  g_assert_cmpint (p->decode_replicas, ==, 1);
  g_assert_cmpint (p->decode_tp, ==, 1);
  g_assert_cmpint (p->decode_pp, ==, 2);
  g_assert_cmpstr (p->kv_tier, ==, "nvlink");
  text = bpw_study_to_json (study);
  g_assert_nonnull (strstr (text, "\"kv_tier\": \"nvlink\""));
  back = bpw_study_new_from_data ("back.json", text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_equal (study, back));
  /* Colocated and disaggregated settings differ. */
  {
    BpwServeSettings colocated = { 0 };

    g_assert_false (bpw_serve_settings_equal (&colocated,
                                              &bpw_study_get_scenario (study, 0)->serving));
  }
}

/* Each refusal names the file, the line and column of the value, and the field. */
static void
test_errors (void)
{
  static const struct { const char *pools, *expect; } bad[] = {
    { "{\"prefill_replicas\": 0, \"decode_replicas\": 1, \"kv_tier\": \"nvlink\"}",
      "disagg.json:5:46: scenarios[0].serving.pools.prefill_replicas" },
    { "{\"prefill_replicas\": 1, \"decode_replicas\": 1, \"decode_tp\": 5000, "
      "\"kv_tier\": \"nvlink\"}", "serving.pools.decode_tp" },
    { "{\"prefill_replicas\": 1, \"decode_replicas\": 1}",
      "serving.pools: missing required field 'kv_tier'" },
    { "{\"prefill_replicas\": 1, \"decode_replicas\": 1, \"kv_tier\": \"\"}",
      "serving.pools.kv_tier" },
    { "{\"decode_replicas\": 1, \"kv_tier\": \"nvlink\"}",
      "serving.pools: missing required field 'prefill_replicas'" },
    { "[1]", "serving.pools" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwStudy) study = study_with_pools (bad[i].pools, &error);

      g_assert_null (study);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, "disagg.json:5:"));
      g_assert_nonnull (strstr (error->message, bad[i].expect));
    }
}

/* One candidate, two series: colocated on its mapping (one device), then the pools (one
 * prefill and one decode replica: two devices), each disaggregated point with both pools'
 * utilisation in (0, 1]; the CSV carries them beside the disaggregated points only. */
static void
test_trade_series (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with_pools ("{\"prefill_replicas\": 1, \"decode_replicas\": 1, "
                                                "\"kv_tier\": \"nvlink\"}", &error);
  g_autoptr(BpwTradeData) data = NULL;
  g_autoptr(BpwTradePlot) plot = NULL;
  g_autofree char *csv = NULL;
  BpwTradeOptions options;
  const BpwTradeSeries *colo, *dis;

  g_assert_no_error (error);
  bpw_trade_options_init_from_study (&options, study, 0);
  options.requests = 200;
  options.n_rates = 3;
  data = bpw_trade_data_new_from_study (study, 0, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (data->series->len, ==, 2);
  colo = &g_array_index (data->series, BpwTradeSeries, 0);
  dis = &g_array_index (data->series, BpwTradeSeries, 1);
  g_assert_null (colo->error);
  g_assert_null (dis->error);
  g_assert_false (colo->disaggregated);
  g_assert_true (dis->disaggregated);
  g_assert_cmpint (colo->devices, ==, 1);
  g_assert_cmpint (dis->devices, ==, 2);
  g_assert_cmpuint (dis->n, ==, 3);
  g_assert_nonnull (strstr (dis->name, "disaggregated"));
  g_assert_nonnull (strstr (data->stream, "KV caches over nvlink"));
  for (guint i = 0; i < dis->n; i++)
    {
      const BpwTradePoint *p = &g_array_index (data->points, BpwTradePoint, dis->first + i);
      const BpwTradePoint *q = &g_array_index (data->points, BpwTradePoint, colo->first + i);

      g_assert_cmpint (p->requests, ==, 200);
      g_assert_cmpfloat (p->prefill_utilisation, >, 0);
      g_assert_cmpfloat (p->prefill_utilisation, <=, 1);
      g_assert_cmpfloat (p->decode_utilisation, >, 0);
      g_assert_cmpfloat (p->decode_utilisation, <=, 1);
      g_assert_true (isnan (q->prefill_utilisation));
      if (i > 0)
        g_assert_cmpfloat (p->arrival_rate, >, g_array_index (data->points, BpwTradePoint,
                                                              dis->first + i - 1).arrival_rate);
    }
  {
    guint first_colo = colo->first, first_dis = dis->first;
    BpwPlotHit hit = { .kind = BPW_PLOT_HIT_ITEM, .index = (gint) (2 * first_dis) };
    g_autofree char *tip = NULL;
    g_autofree char *colo_tip = NULL;

    plot = bpw_trade_plot_new (g_steal_pointer (&data));
    /* A disaggregated point's tooltip says how busy each pool is; a colocated one not. */
    tip = bpw_plot_describe (BPW_PLOT (plot), &hit);
    g_assert_nonnull (strstr (tip, "Pools busy: prefill"));
    hit.index = (gint) (2 * first_colo);
    colo_tip = bpw_plot_describe (BPW_PLOT (plot), &hit);
    g_assert_null (strstr (colo_tip, "Pools busy"));
  }
  csv = bpw_plot_to_csv (BPW_PLOT (plot));
  g_assert_nonnull (strstr (csv, ",pareto,prefill_utilisation,decode_utilisation\n"));
}

static void
test_unknown_tier (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with_pools ("{\"prefill_replicas\": 1, \"decode_replicas\": 1, "
                                                "\"kv_tier\": \"ethernet\"}", &error);
  g_autoptr(BpwTradeData) data = NULL;
  BpwTradeOptions options;
  const BpwTradeSeries *dis;

  g_assert_no_error (error);
  bpw_trade_options_init_from_study (&options, study, 0);
  options.requests = 50;
  options.n_rates = 1;
  data = bpw_trade_data_new_from_study (study, 0, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (data->series->len, ==, 2);
  dis = &g_array_index (data->series, BpwTradeSeries, 1);
  g_assert_cmpuint (dis->n, ==, 0);
  g_assert_nonnull (dis->error);
  g_assert_nonnull (strstr (dis->error, "ethernet"));
  g_assert_nonnull (strstr (dis->error, "nvlink, infiniband"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bpw/plot/TradeDisagg/read-write", test_read_write);
  g_test_add_func ("/bpw/plot/TradeDisagg/errors", test_errors);
  g_test_add_func ("/bpw/plot/TradeDisagg/trade-series", test_trade_series);
  g_test_add_func ("/bpw/plot/TradeDisagg/unknown-tier", test_unknown_tier);
  return g_test_run ();
}
