/* bpw-cli-export.h — what `bpw export` shares between its option parsing and its views
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-plan.h"
#include "bpw-study.h"

G_BEGIN_DECLS

typedef struct
{
  char     *view;
  char     *format;
  char     *output;
  char     *candidate;
  char     *scenario;
  char     *baseline;
  char     *color_by;   /* timeline: phase, bottleneck or layer-type */
  char     *time;       /* timeline, lifetimes: "T0:T1" in seconds */
  char     *metric;     /* trade: ttft, tpot or e2e */
  char     *y;          /* trade: throughput, per-watt or per-dollar */
  char     *stages;     /* timeline: "FIRST-LAST" */
  char     *units;      /* charts, memo: "gib" (default) or "gb" */
  gboolean  all_blocks;
  gboolean  all_precisions;
  gint64    stage;
  gint64    select;     /* timeline: an op lineage id to select; -1 none */
  gint64    requests;   /* trade: requests per arrival rate */
  double    width, height, dpi;
  double    t0, t1;     /* parsed --time; NaN when not given */
  gint64    first_stage, last_stage;  /* parsed --stages; -1 when not given */
} BpwExportOptions;

/* Study candidate @candidate (NULL: the first) bound on scenario @scenario (NULL: the
 * first); @s receives the scenario's index. */
BpwPlan  *bpw_cli_export_bind_plan (BpwStudy               *study,
                                    const char             *candidate,
                                    const char             *scenario,
                                    guint                  *s,
                                    GError                **error);
/* Memory sizes in GB (--units gb) rather than GiB. */
gboolean  bpw_cli_export_decimal_bytes (const BpwExportOptions *o);
const char *bpw_cli_export_candidate_name (BpwStudy        *study,
                                           const char      *name);

#ifdef BPW_HAVE_PLOT
#include "bpw-plot.h"

/* (transfer full): the chart of @o->view (roofline, assignment, timeline, lifetimes,
 * trade, compare) with its options applied. */
BpwPlot  *bpw_cli_export_chart     (BpwStudy               *study,
                                    const BpwExportOptions *o,
                                    GError                **error);
/* The memo PDF of the study at @o->output. */
gboolean  bpw_cli_export_memo      (BpwStudy               *study,
                                    const BpwExportOptions *o,
                                    GError                **error);
#endif

G_END_DECLS
