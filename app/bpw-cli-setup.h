/* bpw-cli-setup.h — what the binding subcommands load: model, scenario, blueprint, mapping
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-cli-options.h"
#include "bpw-mapping.h"
#include "bpw-model-spec.h"
#include "bpw-plan.h"
#include "bpw-scenario.h"

G_BEGIN_DECLS

typedef struct
{
  BpwModelSpec  spec;
  BpwScenario   scenario;
  BpwParallel   parallel;
  BpwMapping    mapping;
  BpwBlueprint *blueprint;  /* owned */
} BpwCliSetup;

/* Loads MODEL (with --vocab), resolves scenario and parallel options (applying what a
 * Calculon execution changes in the model), loads BP and builds the mapping; validates the
 * scenario against the model. Warnings (unknown fields) are printed on stderr. @setup is
 * always initialised and must be cleared. */
gboolean  bpw_cli_setup_load  (BpwCliSetup         *setup,
                               const char          *model,
                               const char          *blueprint,
                               const BpwCliOptions *options,
                               GError             **error);
/* The same up to the blueprint, for Calculon's model: no mapping is built and the
 * scenario is not validated against the workbench's rules (Calculon's own check and
 * compile decide what it runs: blocks that PP × interleave does not divide, say). */
gboolean  bpw_cli_setup_load_calculon (BpwCliSetup         *setup,
                                       const char          *model,
                                       const char          *blueprint,
                                       const BpwCliOptions *options,
                                       GError             **error);
/* Decomposes, distributes and binds: the plan (possibly illegal), or NULL with @error. */
BpwPlan  *bpw_cli_setup_bind  (BpwCliSetup         *setup,
                               GError             **error);
void      bpw_cli_setup_clear (BpwCliSetup         *setup);

G_END_DECLS
