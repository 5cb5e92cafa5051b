/* bpw-trade-data.h — serving sweeps of a study's candidates, for the trade-curve chart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The adapter between serving (bpw-serve.h) and the trade-curve plot: for each candidate
 * of a study, one seeded request stream served at a sweep of arrival rates on the
 * candidate's mapping of an inference scenario (DP replicas of TP × PP devices), each
 * point with its throughput and latency percentiles; per candidate the devices, their
 * modelled power (energy of the scenario's step ÷ its time) and their cost, for the
 * per-watt and per-dollar axes.
 */
#pragma once

#include "bpw-serve.h"
#include "bpw-study.h"
#include "bpw-study-calibration.h"

G_BEGIN_DECLS

typedef enum
{
  BPW_TRADE_LATENCY_TTFT,   /* time to first token */
  BPW_TRADE_LATENCY_TPOT,   /* time per output token */
  BPW_TRADE_LATENCY_E2E,    /* end to end */
  BPW_TRADE_N_LATENCIES
} BpwTradeLatency;

typedef struct
{
  guint            series;
  double           arrival_rate;    /* requests/s, all replicas */
  double           throughput;      /* output tokens/s, all replicas */
  BpwLatencyStats  latency[BPW_TRADE_N_LATENCIES];  /* s */
  gint64           requests, rejected;
  /* Disaggregated serving: each pool's busy fraction (NaN for a colocated point). */
  double           prefill_utilisation, decode_utilisation;
} BpwTradePoint;

typedef struct
{
  char    *name;          /* owned: the candidate */
  char    *error;         /* owned, nullable: why it has no points */
  gint64   devices;       /* replicas × devices per replica */
  double   power_w;       /* all devices, modelled: energy ÷ step time; NaN when unknown */
  double   cost;          /* devices × the candidate's price ($ or $/h); NaN when no price */
  BpwPriceUnit cost_unit;
  double   saturation;    /* requests/s the sweep was scaled to (estimate) */
  guint    first, n;      /* its points, by arrival rate */
  gboolean disaggregated; /* the scenario's prefill and decode pools, not the mapping */
} BpwTradeSeries;

typedef struct
{
  char            *title;        /* owned */
  char            *scenario;     /* owned */
  char            *stream;       /* owned: "1000 requests, prompts fixed:2048, ...", and
                                  * the serving features, for the legend */
  BpwTradeLatency  metric;       /* the scenario's SLA metric, else its phase's */
  double           sla[BPW_TRADE_N_LATENCIES];  /* s; 0 none (TTFT, TPOT, p99 end to end) */
  GArray          *series;       /* BpwTradeSeries */
  GArray          *points;       /* BpwTradePoint, series by series */
  /* owned, nullable: the candidates' calibration status and the warning when they differ */
  BpwStudyCalibration *calibration;
} BpwTradeData;

typedef struct
{
  gint64         requests;       /* per arrival rate */
  BpwLengthDist  prompt, output;
  guint64        seed;
  gint64         max_batch;
  guint          n_rates;        /* arrival rates per candidate */
  /* The serving features (bpw-serve.h): KV layout, prefix caching, chunked prefill,
   * speculative decoding with the draft model serving.draft names (loaded through the
   * study) or the candidate's MTP heads. EP and the KV dtype come from
   * each candidate's mapping and the scenario. */
  BpwServeSettings serving;
} BpwTradeOptions;

/* 1000 requests, seed 1, at most 256 sequences a step, 10 rates; prompts of the
 * scenario's length, outputs of context − prompt tokens (decode with a context) else
 * 256; a paged KV cache of 16-token blocks and no other serving feature. */
void          bpw_trade_options_init     (BpwTradeOptions       *options,
                                          const BpwScenario     *scenario);
/* The same for scenario @scenario of @study, with the scenario's serving settings. */
void          bpw_trade_options_init_from_study (BpwTradeOptions *options,
                                                 BpwStudy        *study,
                                                 guint            scenario);

BpwTradeData *bpw_trade_data_new         (const char            *title,
                                          const char            *scenario);
void          bpw_trade_data_free        (BpwTradeData          *data);
/* Appends a series (points follow with bpw_trade_data_add_point). */
guint         bpw_trade_data_add_series  (BpwTradeData          *data,
                                          const char            *name,
                                          gint64                 devices,
                                          double                 power_w,
                                          double                 cost);
void          bpw_trade_data_add_point   (BpwTradeData          *data,
                                          const BpwTradePoint   *point);

/* Sweeps every candidate of @study on inference scenario @scenario: arrival rates from
 * 5 % to 110 % of each candidate's estimated saturation (a full decode batch's tokens per
 * second and its prefills). A candidate that cannot serve (illegal mapping, model too
 * large) gets an empty series with its error. When the serving settings have pools, each
 * candidate's colocated series is followed by its disaggregated one (bpw-trade-disagg.h).
 * NULL with @error when @scenario is a training scenario. */
BpwTradeData *bpw_trade_data_new_from_study (BpwStudy              *study,
                                             guint                  scenario,
                                             const BpwTradeOptions *options,
                                             GError               **error);

const char   *bpw_trade_latency_name     (BpwTradeLatency        metric);

/* TRUE, with their unit, when every series has a price, all in one unit: only then is a
 * per-dollar chart drawn. FALSE with @error naming the first candidate without a price,
 * or the mixed units. */
gboolean      bpw_trade_data_cost_unit   (const BpwTradeData    *data,
                                          BpwPriceUnit          *unit,
                                          GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwTradeData, bpw_trade_data_free)

G_END_DECLS
