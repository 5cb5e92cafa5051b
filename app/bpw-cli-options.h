/* bpw-cli-options.h — scenario and parallel options shared by the `bpw` subcommands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-mapping.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"
#include "bpw-workload-io.h"

G_BEGIN_DECLS

/* What the user typed. Integers hold BPW_CLI_UNSET until given, so that an explicit 0 is
 * refused instead of being mistaken for "use the default". */
#define BPW_CLI_UNSET G_MININT64

typedef struct
{
  /* owned strings, NULL when not given */
  char     *phase;
  char     *recompute;
  char     *launch;
  char     *dtype;
  char     *optimizer;
  char     *schedule;
  char     *pp_layers;  /* comma list, auto, even, balanced or lighter:K */
  char     *execution;

  gint64    global_batch;
  gint64    micro_batch;
  gint64    seq;
  gint64    context;
  gint64    vocab;
  gint64    images;        /* per sequence of a multimodal model */
  gboolean  train_vision;  /* train the vision encoder too (frozen by default) */

  gint64    tp, pp, dp, ep, cp;
  char     *cp_algorithm;
  gint64    zero;
  gint64    interleave;
  gboolean  sp;

  /* Mapping options (bpw_cli_options_add_mapping); owned strings, NULL when not given. */
  char     *mapping;
  char     *fusion;
  char     *tp_overlap;
  char     *tiling;
  char     *precision_policy;     /* --precision-policy: inline JSON, "scenario" or a file */
  char     *weights;              /* --weights: native, int8 or int4 (over the policy) */
  gint64    group_size;           /* --group-size, BPW_CLI_UNSET until given */
  gboolean  dp_overlap;
  gboolean  no_dp_overlap;
  gint64    tier[BPW_N_GROUPS];   /* --tp-tier ... --cp-tier, BPW_CLI_UNSET until given */
} BpwCliOptions;

void      bpw_cli_options_init      (BpwCliOptions *options);
void      bpw_cli_options_clear     (BpwCliOptions *options);

/* Adds --phase ... --vocab, --execution, and --tp ... --interleave to the main group of
 * @context; the values land in @options, which must outlive the parse. */
void      bpw_cli_options_add       (BpwCliOptions  *options,
                                     GOptionContext *context);

/* Adds the mapping options of the subcommands that bind work to a blueprint: --mapping,
 * --fusion, --tp-overlap, --dp-overlap / --no-dp-overlap, --tp-tier ... --ep-tier,
 * --tiling, --precision-policy and --weights / --group-size. */
void      bpw_cli_options_add_mapping (BpwCliOptions  *options,
                                       GOptionContext *context);

/* Help text that documents the defaults (for g_option_context_set_description). */
const char *bpw_cli_options_defaults_help (void);
/* The same for the mapping options. */
const char *bpw_cli_options_mapping_help (void);

/* The vocabulary override for the workload loader: 0 when --vocab was not given. */
gint64    bpw_cli_options_vocab     (const BpwCliOptions *options);

/* Builds the scenario and the decomposition. Precedence, highest first: options, the
 * mapping file of --mapping (its parallel, micro_batch and recompute), the Calculon
 * execution file of --execution, @hint (what the model file knows: fields > 0), the
 * defaults of bpw_cli_options_defaults_help(). Bad option values are usage errors
 * (BPW_CLI_USAGE_ERROR); a bad execution or mapping file is a located
 * BPW_ERROR_INVALID_INPUT. The execution file's unknown fields go to @warnings (owned
 * strings); the mapping file's are reported by bpw_cli_options_resolve_mapping(). The
 * result is not validated against @spec: bpw_scenario_validate() does that. */
gboolean  bpw_cli_options_resolve   (const BpwCliOptions *options,
                                     const BpwModelSpec  *spec,
                                     const BpwScenario   *hint,
                                     BpwScenario         *scenario,
                                     BpwParallel         *parallel,
                                     GPtrArray           *warnings,
                                     GError             **error);

/* Builds the mapping, after bpw_cli_options_resolve() gave @scenario and @parallel.
 * Precedence, lowest first: bpw_mapping_init_defaults(), the Calculon execution (@exec, or
 * when NULL the file of --execution) through bpw_mapping_from_calculon_execution(), the
 * file of --mapping, the explicit mapping options. The result's parallel, micro_batch and
 * recompute are those of @parallel and @scenario (which already honour all of these), so
 * applying it to @scenario changes nothing. The mapping file's unknown fields go to
 * @warnings (nullable, owned strings); the execution file's were reported by
 * bpw_cli_options_resolve(). With @blueprint (nullable) the file may name memory levels,
 * engines and tiers, which must exist in it. @mapping must be initialised; it is replaced
 * on success. */
gboolean  bpw_cli_options_resolve_mapping (const BpwCliOptions        *options,
                                           const BpwScenario          *scenario,
                                           const BpwParallel          *parallel,
                                           const BpwCalculonExecution *exec,
                                           const BpwBlueprint         *blueprint,
                                           BpwMapping                 *mapping,
                                           GPtrArray                  *warnings,
                                           GError                    **error);

/* The first option of @options, among those Calculon's model has no use for (--fusion,
 * --tiling, the tier options, --optimizer, --context and --vocab), that was given: its
 * name with the dashes, or NULL. --cost-model calculon refuses it rather than ignore it. */
const char *bpw_cli_options_unused_by_calculon (const BpwCliOptions *options);

G_END_DECLS
