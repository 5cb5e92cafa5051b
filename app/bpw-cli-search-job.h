/* bpw-cli-search-job.h — the options of `bpw search`, shared with bpw-mpi-search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-cli-options.h"
#include "bpw-cli-setup.h"
#include "bpw-calculon-search.h"
#include "bpw-search.h"

G_BEGIN_DECLS

typedef struct
{
  BpwCliOptions  options;       /* scenario, parallel (fixed choices) and mapping options */
  char          *blueprint;
  gint64         devices;
  gint64         top;
  gint64         threads;
  gint64         max_cp;        /* search CP from 1 to this; unset: --cp or 1 */
  char          *shard;         /* "I/N" */
  char          *fusion_sets;   /* "none,default,attention,all" */
  char          *offloads;      /* "none,weights,optimizer,both" */
  char          *activations;   /* "device", "host" or "both" (Calculon's space) */
  char          *space;         /* "full" or "calculon" */
  char          *cost_model;    /* "workbench" (default) or "calculon" */
  char          *fused_activation;  /* "on", "off" or "both" (Calculon's -f) */
  char         **sweep;         /* NAME=V1,V2,... */
  gboolean       json;
  gboolean       exhaustive;
  gboolean       pareto;
  gboolean       no_algorithms;
  gboolean       no_reevaluate;
  gboolean       no_simulate;
  gboolean       progress;
} BpwCliSearchJob;

void      bpw_cli_search_job_init    (BpwCliSearchJob *job);
void      bpw_cli_search_job_clear   (BpwCliSearchJob *job);
/* Adds the options above (and the scenario, parallel and mapping options) to @context. */
void      bpw_cli_search_job_add     (BpwCliSearchJob *job,
                                      GOptionContext  *context);
/* What --help says about the space and the output. */
const char *bpw_cli_search_job_help  (void);

/* Loads MODEL and BP into @setup, and builds the search options and the space: explicit
 * --tp, --pp, --dp, --ep, --zero, --sp, --schedule, --interleave, --micro-batch,
 * --recompute, --tp-overlap and --dp-overlap/--no-dp-overlap fix those choices; the rest
 * of the mapping options shape the base mapping. @setup is always initialised and must be
 * cleared. Usage errors are BPW_CLI_USAGE_ERROR. */
gboolean  bpw_cli_search_job_prepare (BpwCliSearchJob   *job,
                                      const char        *model,
                                      BpwCliSetup       *setup,
                                      BpwSearchOptions  *options,
                                      BpwSearchLimits   *limits,
                                      GError           **error);

/* The checks every search makes of its options: --cost-model, --devices, --top, --threads. */
gboolean  bpw_cli_search_job_check   (const BpwCliSearchJob *job,
                                      GError               **error);

/* --activations: -1 (both, or not given), 0 (device) or 1 (host); usage error otherwise. */
gboolean  bpw_cli_search_job_activations (const BpwCliSearchJob *job,
                                          gint                  *act_offload,
                                          GError               **error);

/* --cost-model calculon (bpw-cli-search-calculon.c). */
gboolean  bpw_cli_search_job_is_calculon (const BpwCliSearchJob *job);
/* Loads MODEL and BP into @setup (always initialised; clear it) and builds Calculon's
 * space with the job's options, refusing those Calculon's search lacks (usage errors). */
BpwCalculonSpace *bpw_cli_calculon_search_prepare (BpwCliSearchJob *job,
                                                   const char      *model,
                                                   BpwCliSetup     *setup,
                                                   GError         **error);
/* Merges the --json documents of shards: Calculon's (format "bpw-calculon-search", from
 * --cost-model calculon) by bpw_calculon_search_merge_json(), the rest by
 * bpw_search_merge_json(); @names for messages. */
char     *bpw_cli_search_merge_texts (const char * const *texts,
                                      const char * const *names,
                                      guint               n,
                                      GError            **error);
/* What the workbench's model makes of @report's best (bpw-calculon-bridge.h: mappings and
 * analytic estimates, in their order); NULL where the workbench has no space for the
 * problem. */
BpwSearchReport *bpw_cli_calculon_workbench (const BpwCalculonSearchReport *report,
                                             const BpwCliSetup             *setup,
                                             gint64                         devices);
/* @workbench (nullable): the workbench's estimates of the best, in their order. */
char     *bpw_cli_calculon_search_report_to_text (const BpwCalculonSearchReport *report,
                                                  const BpwSearchReport         *workbench,
                                                  const BpwCliSetup             *setup,
                                                  gint64                         devices);

/* Parses "I/N" (0 <= I < N). */
gboolean  bpw_cli_search_parse_shard (const char        *text,
                                      guint64           *index,
                                      guint64           *count,
                                      GError           **error);

/* The human-readable report: counts, rate, and the best plans as a table. */
char     *bpw_cli_search_report_to_text (const BpwSearchReport *report,
                                         const BpwSearchSpace  *space);

G_END_DECLS
