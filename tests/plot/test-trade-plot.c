/* test-trade-plot.c — trade curves: the Pareto front, the axes' mapping, SLA shading,
 * hit-testing, CSV and the serving sweeps of the default study
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-trade-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-plot-palette.h"
#include "bpw-plot-test-util.h"
#include "bpw-study.h"
#include "bpw-study-edit.h"
#include "bpw-study-pools.h"
#include "bpw-trade-plot.h"

static BpwPlotStyle style;

static void
add (BpwTradeData *data, double rate, double throughput, double p50, double p99)
{
  BpwTradePoint p = { .arrival_rate = rate, .throughput = throughput, .requests = 10 };

  for (guint m = 0; m < BPW_TRADE_N_LATENCIES; m++)
    p.latency[m] = (BpwLatencyStats) { .mean = p50, .p50 = p50, .p95 = p99, .p99 = p99 };
  bpw_trade_data_add_point (data, &p);
}

/* Two candidates; A draws twice the power of B. */
static BpwTradeData *
synthetic (void)
{
  BpwTradeData *data = bpw_trade_data_new ("Synthetic trade", "decode");

  data->metric = BPW_TRADE_LATENCY_TPOT;
  data->sla[BPW_TRADE_LATENCY_TPOT] = 0.05;
  bpw_trade_data_add_series (data, "A", 8, 2000, NAN);
  add (data, 1, 100, 0.010, 0.012);
  add (data, 2, 200, 0.020, 0.030);
  add (data, 4, 400, 0.040, 0.080);
  bpw_trade_data_add_series (data, "B", 8, 1000, NAN);
  add (data, 1, 150, 0.015, 0.020);
  add (data, 2, 190, 0.025, 0.025);
  add (data, 4, 300, 0.060, 0.090);
  return data;
}

/* Brute force against the plot: a point is on the front when no other has lower-or-equal
 * p99 latency and higher-or-equal y, one of them strictly. */
static void
check_front (BpwTradePlot *plot, BpwTradeY y)
{
  const BpwTradeData *data = bpw_trade_plot_get_data (plot);

  for (guint i = 0; i < data->points->len; i++)
    {
      const BpwTradePoint *p = &g_array_index (data->points, BpwTradePoint, i);
      gboolean dominated = FALSE;

      for (guint j = 0; j < data->points->len; j++)
        {
          const BpwTradePoint *q = &g_array_index (data->points, BpwTradePoint, j);
          double yp = bpw_trade_point_y (data, p, y), yq = bpw_trade_point_y (data, q, y);
          double lp = p->latency[BPW_TRADE_LATENCY_TPOT].p99;
          double lq = q->latency[BPW_TRADE_LATENCY_TPOT].p99;

          if (j != i && lq <= lp && yq >= yp && (lq < lp || yq > yp))
            dominated = TRUE;
        }
      g_assert_cmpint (bpw_trade_plot_is_pareto (plot, i), ==, !dominated);
    }
}

static void
test_pareto (void)
{
  g_autoptr(BpwTradePlot) plot = bpw_trade_plot_new (synthetic ());

  /* Throughput: A's first (12 ms, 100), B's first (20 ms, 150), A's second (30 ms, 200),
   * A's third (80 ms, 400) are on it; B's second (25 ms, 190) is, too (nothing faster is
   * higher); B's third (90 ms, 300) is dominated by A's third. */
  check_front (plot, BPW_TRADE_Y_THROUGHPUT);
  g_assert_true (bpw_trade_plot_is_pareto (plot, 4));
  g_assert_false (bpw_trade_plot_is_pareto (plot, 5));
  /* Per watt B (1 kW) doubles: its (90 ms, 0.3) now beats A's (80 ms, 0.2). */
  bpw_trade_plot_set_y (plot, BPW_TRADE_Y_PER_WATT);
  check_front (plot, BPW_TRADE_Y_PER_WATT);
  g_assert_true (bpw_trade_plot_is_pareto (plot, 5));
  g_assert_cmpfloat (bpw_trade_point_y (bpw_trade_plot_get_data (plot),
                                        &g_array_index (bpw_trade_plot_get_data (plot)->points,
                                                        BpwTradePoint, 5),
                                        BPW_TRADE_Y_PER_WATT), ==, 0.3);
  /* Per dollar: no costs, no points, no front. */
  bpw_trade_plot_set_y (plot, BPW_TRADE_Y_PER_DOLLAR);
  for (guint i = 0; i < 6; i++)
    g_assert_false (bpw_trade_plot_is_pareto (plot, i));
}

static void
test_layout_and_hits (void)
{
  g_autoptr(BpwTradePlot) plot = bpw_trade_plot_new (synthetic ());
  const BpwTradeMark *marks;
  guint n;
  BpwPlotHit hit;
  g_autofree char *text = NULL;
  const BpwPlotRect *area;

  bpw_plot_layout (BPW_PLOT (plot), &style, NULL, 720, 405);
  marks = bpw_trade_plot_get_marks (plot, &n);
  area = bpw_plot_get_area (BPW_PLOT (plot));
  g_assert_cmpuint (n, ==, 12);
  for (guint i = 0; i < n; i++)
    {
      const BpwTradePoint *p = &g_array_index (bpw_trade_plot_get_data (plot)->points,
                                               BpwTradePoint, marks[i].point);
      double lat = marks[i].p99 ? p->latency[BPW_TRADE_LATENCY_TPOT].p99
                                : p->latency[BPW_TRADE_LATENCY_TPOT].p50;

      g_assert_cmpfloat_with_epsilon (marks[i].x, bpw_trade_plot_map_latency (plot, lat), 1e-9);
      g_assert_cmpfloat_with_epsilon (marks[i].y, bpw_plot_map_y (BPW_PLOT (plot), p->throughput),
                                      1e-9);
      g_assert_true (marks[i].x >= area->x && marks[i].x <= area->x + area->width &&
                     marks[i].y >= area->y && marks[i].y <= area->y + area->height);
    }
  /* Log axis: a decade of latency is the same width anywhere. */
  g_assert_cmpfloat_with_epsilon (bpw_trade_plot_map_latency (plot, 0.1) -
                                    bpw_trade_plot_map_latency (plot, 0.01),
                                  bpw_trade_plot_map_latency (plot, 0.01) -
                                    bpw_trade_plot_map_latency (plot, 0.001), 1e-9);
  g_assert_true (bpw_plot_hit_test (BPW_PLOT (plot), marks[3].x + 1, marks[3].y, &hit));
  g_assert_cmpint (hit.kind, ==, BPW_PLOT_HIT_ITEM);
  g_assert_cmpint (hit.index, ==, 2 * marks[3].point + (marks[3].p99 ? 1 : 0));
  text = bpw_plot_describe (BPW_PLOT (plot), &hit);
  g_assert_nonnull (strstr (text, "Throughput"));
}

/* Hue in degrees of a saturated colour; -1 for greys. */
static double
hue_of (const BpwPlotColor *c)
{
  double max = MAX (c->r, MAX (c->g, c->b)), min = MIN (c->r, MIN (c->g, c->b));
  double d = max - min, h;

  if (max <= 0 || d / max < 0.25)
    return -1;
  if (max == c->r)
    h = fmod ((c->g - c->b) / d, 6);
  else if (max == c->g)
    h = (c->b - c->r) / d + 2;
  else
    h = (c->r - c->g) / d + 4;
  return fmod (60 * h + 360, 360);
}

static double
hue_distance (double a, double b)
{
  double d = fabs (a - b);

  return MIN (d, 360 - d);
}

/* Candidates wear categorical colours, never the red and green that say fail and pass,
 * and the first seven differ from one another. */
static void
test_series_palette (void)
{
  BpwPlotColor fail, pass, colors[7];

  g_assert_true (bpw_plot_color_parse ("#d1493f", &fail));
  g_assert_true (bpw_plot_color_parse ("#2e9e5b", &pass));
  for (guint i = 0; i < G_N_ELEMENTS (colors); i++)
    {
      double h;

      colors[i] = bpw_plot_series_color (&style, i);
      h = hue_of (&colors[i]);
      if (h >= 0)
        {
          g_assert_cmpfloat (hue_distance (h, hue_of (&fail)), >=, 20);
          g_assert_cmpfloat (hue_distance (h, hue_of (&pass)), >=, 30);
        }
      for (guint j = 0; j < i; j++)
        g_assert_cmpfloat (fabs (colors[i].r - colors[j].r) + fabs (colors[i].g - colors[j].g)
                           + fabs (colors[i].b - colors[j].b), >, 0.1);
    }
}

static void
test_csv (void)
{
  g_autoptr(BpwTradePlot) plot = bpw_trade_plot_new (synthetic ());
  g_autofree char *csv = bpw_plot_to_csv (BPW_PLOT (plot));
  g_auto(GStrv) lines = g_strsplit (csv, "\n", -1);

  g_assert_cmpuint (g_strv_length (lines), ==, 8);  /* header, 6 points, the final "" */
  for (guint i = 1; i <= 6; i++)
    {
      g_auto(GStrv) f = bpw_plot_test_csv_fields (lines[i]);

      g_assert_cmpstr (f[0], ==, i <= 3 ? "A" : "B");
      g_assert_cmpfloat (g_ascii_strtod (f[7], NULL), ==,
                         g_array_index (bpw_trade_plot_get_data (plot)->points, BpwTradePoint,
                                        i - 1).throughput);
      g_assert_cmpstr (f[15], ==, bpw_trade_plot_is_pareto (plot, i - 1) ? "true" : "false");
    }
}

/* The default study's decode scenario: every candidate swept at ascending rates, every
 * request served, the SLA read from the study. */
static void
test_from_study (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwTradeData) data = NULL;
  BpwTradeOptions options;
  guint s;

  g_assert_no_error (error);
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &s));
  bpw_trade_options_init (&options, &bpw_study_get_scenario (study, s)->scenario);
  options.requests = 60;
  data = bpw_trade_data_new_from_study (study, s, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpint (data->metric, ==, BPW_TRADE_LATENCY_TPOT);
  g_assert_cmpfloat (data->sla[BPW_TRADE_LATENCY_TPOT], ==, 0.05);
  g_assert_cmpuint (data->series->len, ==, bpw_study_get_n_candidates (study));
  for (guint i = 0; i < data->series->len; i++)
    {
      const BpwTradeSeries *ser = &g_array_index (data->series, BpwTradeSeries, i);

      g_assert_null (ser->error);
      g_assert_cmpuint (ser->n, ==, 10);
      g_assert_cmpint (ser->devices, ==, 8);
      for (guint k = ser->first; k < ser->first + ser->n; k++)
        {
          const BpwTradePoint *p = &g_array_index (data->points, BpwTradePoint, k);

          g_assert_cmpint (p->requests + p->rejected, ==, 60);
          g_assert_cmpfloat (p->latency[BPW_TRADE_LATENCY_TPOT].p50, <=,
                             p->latency[BPW_TRADE_LATENCY_TPOT].p99);
          if (k > ser->first)
            g_assert_cmpfloat (p->arrival_rate, >,
                               g_array_index (data->points, BpwTradePoint, k - 1).arrival_rate);
        }
    }
  g_assert_false (bpw_trade_data_new_from_study (study, 0, &options, &error) != NULL);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
}

/* The serving features move the curves the way their closed forms say and the legend's
 * note names them: at the same light load, half of every prompt cached cuts TTFT, and
 * speculative decoding (3 tokens of a Llama 3 8B draft accepted with 0.8: 2.95 tokens a
 * step, each draft token about a ninth of a 70B decode) cuts TPOT. */
static void
test_serving_features (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwTradeData) plain = NULL;
  g_autoptr(BpwTradeData) cached = NULL;
  g_autoptr(BpwTradeData) speculative = NULL;
  BpwTradeOptions options;
  const BpwTradePoint *a, *b, *c;
  guint s;

  g_assert_no_error (error);
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &s));
  bpw_trade_options_init (&options, &bpw_study_get_scenario (study, s)->scenario);
  options.requests = 40;
  options.n_rates = 1;
  plain = bpw_trade_data_new_from_study (study, s, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (plain->stream, "paged KV cache of 16-token blocks"));
  options.serving.prefix_hit = 0.5;
  cached = bpw_trade_data_new_from_study (study, s, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (cached->stream, "prefix cache hit rate 50 %"));
  options.serving.prefix_hit = 0;
  options.serving.spec_tokens = 3;
  options.serving.spec_accept = 0.8;
  /* Llama 3 has no MTP heads: without a draft model every curve is refused. */
  speculative = bpw_trade_data_new_from_study (study, s, &options, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < speculative->series->len; i++)
    g_assert_nonnull (strstr (g_array_index (speculative->series, BpwTradeSeries, i).error,
                              "MTP"));
  g_clear_pointer (&speculative, bpw_trade_data_free);
  g_strlcpy (options.serving.draft, "llama3-8b", sizeof options.serving.draft);
  speculative = bpw_trade_data_new_from_study (study, s, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (speculative->stream,
                            "speculative decoding of 3 tokens drafted by llama3-8b"));

  g_assert_cmpuint (plain->points->len, ==, cached->points->len);
  for (guint i = 0; i < plain->points->len; i++)
    {
      a = &g_array_index (plain->points, BpwTradePoint, i);
      b = &g_array_index (cached->points, BpwTradePoint, i);
      c = &g_array_index (speculative->points, BpwTradePoint, i);
      g_assert_cmpfloat (a->arrival_rate, ==, b->arrival_rate);
      /* Half the prompt cached halves the prefill's work but not the fixed launch cost of
       * the bundled eager stack's prefill step (replayed kernel by kernel over every layer
       * since the estimator charges the issue stream as the simulation does, and the
       * device's own gap between queued eager kernels), so TTFT falls, by less than half:
       * 4.5 % at the lowest rate, where the prompts' prefill is issue-bound. */
      g_assert_cmpfloat (b->latency[BPW_TRADE_LATENCY_TTFT].p50, <,
                         0.99 * a->latency[BPW_TRADE_LATENCY_TTFT].p50);
      g_assert_cmpfloat (b->latency[BPW_TRADE_LATENCY_TTFT].p50, >,
                         0.5 * a->latency[BPW_TRADE_LATENCY_TTFT].p50);
      g_assert_cmpfloat (c->latency[BPW_TRADE_LATENCY_TPOT].p50, <,
                         0.75 * a->latency[BPW_TRADE_LATENCY_TPOT].p50);
    }
}

/* A candidate whose decode mapping stores its weights int4: its curve's label says so,
 * and it serves. */
static void
test_weight_only_series (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwTradeData) data = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonNode) node = NULL;
  BpwTradeOptions options;
  gboolean found = FALSE;
  guint s;

  g_assert_no_error (error);
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &s));
  g_assert_true (json_parser_load_from_data (parser, "{\"precision\": {\"mlp\": {\"weights\": "
                                             "\"int4\"}}}", -1, &error));
  node = json_node_copy (json_parser_get_root (parser));
  g_assert_true (bpw_study_set_candidate_scenario_mapping (study, 2, "llama3-70b-decode", node,
                                                           &error));
  g_assert_no_error (error);
  bpw_trade_options_init (&options, &bpw_study_get_scenario (study, s)->scenario);
  options.requests = 40;
  options.n_rates = 1;
  data = bpw_trade_data_new_from_study (study, s, &options, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < data->series->len; i++)
    {
      const BpwTradeSeries *ser = &g_array_index (data->series, BpwTradeSeries, i);

      g_assert_null (ser->error);
      found |= strstr (ser->name, "int4 weights, groups of 128") != NULL;
    }
  g_assert_true (found);
}

/* The default study with @serving (a JSON object) on its decode scenario. */
static BpwStudy *
study_with_serving (const char *serving, GError **error)
{
  g_autoptr(BpwStudy) base = bpw_study_new_bundled ("default", NULL);
  g_autofree char *text = bpw_study_to_json (base);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) member = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *edited = NULL;
  JsonArray *scenarios;

  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  g_assert_true (json_parser_load_from_data (member, serving, -1, NULL));
  scenarios = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                            "scenarios");
  for (guint i = 0; i < json_array_get_length (scenarios); i++)
    {
      JsonObject *sc = json_array_get_object_element (scenarios, i);

      if (g_strcmp0 (json_object_get_string_member (sc, "name"), "llama3-70b-decode") == 0)
        json_object_set_member (sc, "serving", json_node_copy (json_parser_get_root (member)));
    }
  json_generator_set_root (gen, json_parser_get_root (parser));
  edited = json_generator_to_data (gen, NULL);
  return bpw_study_new_from_data ("serving.json", edited, -1, error);
}

/* A study scenario's "serving" object: read, written back the same, refused out of range,
 * and what the Trade-offs page's curves (no options given) are drawn with. */
static void
test_study_serving (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = study_with_serving ("{\"kv_layout\": \"paged\", \"kv_block\": 32, "
                                                 "\"prefix_hit\": 0.5, \"chunk_tokens\": 512, "
                                                 "\"spec_tokens\": 2, \"spec_accept\": 0.6, "
                                                 "\"draft\": \"llama3-8b\"}",
                                                 &error);
  g_autoptr(BpwStudy) back = NULL;
  g_autoptr(BpwStudy) bad = NULL;
  g_autoptr(BpwTradeData) data = NULL;
  g_autofree char *text = NULL;
  const BpwServeSettings *set;
  guint s;

  g_assert_no_error (error);
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &s));
  set = &bpw_study_get_scenario (study, s)->serving;
  g_assert_cmpint (set->kv_block, ==, 32);
  g_assert_cmpfloat (set->prefix_hit, ==, 0.5);
  g_assert_cmpint (set->chunk_tokens, ==, 512);
  g_assert_cmpint (set->spec_tokens, ==, 2);
  g_assert_cmpfloat (set->spec_accept, ==, 0.6);
  g_assert_cmpstr (set->draft, ==, "llama3-8b");
  g_assert_false (set->kv_contiguous);
  text = bpw_study_to_json (study);
  back = bpw_study_new_from_data ("back.json", text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (bpw_study_equal (study, back));

  bad = study_with_serving ("{\"prefix_hit\": 1}", &error);
  g_assert_null (bad);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "prefix_hit"));
  g_clear_error (&error);
  /* Llama 3 70B has no MTP heads: speculation needs a draft, refused where it is set. */
  bad = study_with_serving ("{\"spec_tokens\": 2, \"spec_accept\": 0.6}", &error);
  g_assert_null (bad);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_regex_match_simple ("^serving\\.json:[0-9]+:[0-9]+: "
                                       "scenarios\\[[0-9]+\\]\\.serving\\.spec_tokens: .*MTP",
                                       error->message, 0, 0));
  g_clear_error (&error);
  bad = study_with_serving ("{\"spec_tokens\": 2, \"draft\": \"no-such-model\"}", &error);
  g_assert_null (bad);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_regex_match_simple ("^serving\\.json:[0-9]+:[0-9]+: "
                                       "scenarios\\[[0-9]+\\]\\.serving\\.draft: .*no-such-model",
                                       error->message, 0, 0));
  g_clear_error (&error);

  data = bpw_trade_data_new_from_study (study, s, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (data->stream, "32-token blocks"));
  g_assert_nonnull (strstr (data->stream, "chunked prefill of 512 tokens"));
  g_assert_nonnull (strstr (data->stream, "drafted by llama3-8b"));
}

/* The scenario's serving settings set by an edit (what the window's rows call): a draft
 * model is kept, undone with the edit, and refused when it names no model; speculation
 * with neither a draft nor MTP heads is refused, naming the field. */
static void
test_study_serving_draft_edit (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  g_autoptr(BpwStudyEdit) edit = NULL;
  BpwServeSettings serving = { .spec_tokens = 3, .spec_accept = 0.7 };
  guint s;

  g_assert_no_error (error);
  g_assert_true (bpw_study_lookup_scenario (study, "llama3-70b-decode", &s));
  g_assert_false (bpw_study_set_scenario_serving (study, s, &serving, &error));
  g_assert_nonnull (strstr (error->message, "serving.spec_tokens"));
  g_clear_error (&error);
  g_strlcpy (serving.draft, "no-such-model", sizeof serving.draft);
  g_assert_false (bpw_study_set_scenario_serving (study, s, &serving, &error));
  g_assert_nonnull (strstr (error->message, "serving.draft"));
  g_clear_error (&error);
  g_assert_cmpint (bpw_study_get_scenario (study, s)->serving.spec_tokens, ==, 0);

  g_strlcpy (serving.draft, "llama3-8b", sizeof serving.draft);
  edit = bpw_study_edit_new_scenario_serving (study, s, &serving, "draft");
  g_assert_true (bpw_study_edit_apply (edit, study, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (bpw_study_get_scenario (study, s)->serving.draft, ==, "llama3-8b");
  g_assert_true (bpw_study_edit_revert (edit, study, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (bpw_study_get_scenario (study, s)->serving.draft, ==, "");
}

/* A multimodal study scenario: its seq counts the image tokens, the curve's prompts count
 * text (the serving model adds each request's images), so a request is the scenario's
 * sequence, not that plus its images again; and the curve runs with the images. */
static void
test_study_images (void)
{
  const char *text =
    "{\"format\": \"bpw-study\", \"version\": 1, \"name\": \"mm\",\n"
    " \"workloads\": [{\"name\": \"llava\", \"model\": \"llava-1.5-7b\"}],\n"
    " \"scenarios\": [{\"name\": \"one\", \"workload\": \"llava\", \"phase\": \"prefill\",\n"
    "   \"global_batch\": 8, \"seq\": 1600},\n"
    "  {\"name\": \"none\", \"workload\": \"llava\", \"phase\": \"prefill\",\n"
    "   \"global_batch\": 8, \"seq\": 1600, \"images\": 0}],\n"
    " \"candidates\": [{\"name\": \"H100\", \"blueprint\": \"h100-sxm-80gb\", \"mapping\": {}}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_from_data ("mm.json", text, -1, &error);
  g_autoptr(BpwTradeData) one = NULL;
  g_autoptr(BpwTradeData) none = NULL;
  BpwTradeOptions options;
  const BpwTradePoint *a, *b;

  g_assert_no_error (error);
  bpw_trade_options_init_from_study (&options, study, 0);
  g_assert_cmpfloat (options.prompt.a, ==, 1600 - 576);
  options.requests = 100;
  options.n_rates = 1;
  one = bpw_trade_data_new_from_study (study, 0, &options, &error);
  g_assert_no_error (error);
  bpw_trade_options_init_from_study (&options, study, 1);
  g_assert_cmpfloat (options.prompt.a, ==, 1600);
  options.requests = 100;
  options.n_rates = 1;
  none = bpw_trade_data_new_from_study (study, 1, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (one->points->len, ==, 1);
  g_assert_cmpuint (none->points->len, ==, 1);
  /* The note names the images the prompts' lengths leave out. */
  g_assert_nonnull (strstr (one->stream, "prompts fixed:1024 with 1 image of 576 tokens,"));
  g_assert_nonnull (strstr (none->stream, "prompts fixed:1600,"));
  a = &g_array_index (one->points, BpwTradePoint, 0);
  b = &g_array_index (none->points, BpwTradePoint, 0);
  /* The same decoder tokens, plus the encoder's work for the image: the sweep's scale
   * counts both, so the request with the image is the dearer (were its image tokens left
   * out, its shorter text would make it the cheaper). */
  g_assert_cmpfloat (a->arrival_rate, <, b->arrival_rate);
  g_assert_cmpfloat (a->latency[BPW_TRADE_LATENCY_TTFT].p50, >,
                     b->latency[BPW_TRADE_LATENCY_TTFT].p50);
  g_test_message ("TTFT p50 %.3f ms with one image, %.3f ms without (same decoder tokens), "
                  "at %.3g and %.3g requests/s", a->latency[BPW_TRADE_LATENCY_TTFT].p50 * 1e3,
                  b->latency[BPW_TRADE_LATENCY_TTFT].p50 * 1e3, a->arrival_rate,
                  b->arrival_rate);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  bpw_plot_style_init_print (&style);

  g_test_add_func ("/bpw/plot/TradePlot/pareto", test_pareto);
  g_test_add_func ("/bpw/plot/TradePlot/layout-and-hits", test_layout_and_hits);
  g_test_add_func ("/bpw/plot/TradePlot/csv", test_csv);
  g_test_add_func ("/bpw/plot/TradePlot/series-palette", test_series_palette);
  g_test_add_func ("/bpw/plot/TradePlot/from-study", test_from_study);
  g_test_add_func ("/bpw/plot/TradePlot/serving-features", test_serving_features);
  g_test_add_func ("/bpw/plot/TradePlot/weight-only-series", test_weight_only_series);
  g_test_add_func ("/bpw/plot/TradePlot/study-serving", test_study_serving);
  g_test_add_func ("/bpw/plot/TradePlot/study-serving-draft-edit",
                   test_study_serving_draft_edit);
  g_test_add_func ("/bpw/plot/TradePlot/study-images", test_study_images);
  return g_test_run ();
}
