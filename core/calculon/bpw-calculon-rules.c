/* bpw-calculon-rules.c — Calculon's space as rules of the workbench's search space
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-calculon-rules"

#include "config.h"

#include "bpw-calculon-rules.h"

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-search-space.h"

static gboolean
calculon_check (const BpwScenario *scenario,
                GError           **error)
{
  if (scenario->phase == BPW_WORKLOAD_TRAIN)
    return TRUE;
  g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
               _("Calculon's search space is one of training runs; search the %s phase "
                 "in the full space"), bpw_workload_phase_to_string (scenario->phase));
  return FALSE;
}

static const BpwSearchRules calculon_rules = {
  .name = "calculon",
  /* 1, as the flag the fingerprint hashed before there were rules: shards of then merge. */
  .id = 1,
  .check = calculon_check,
  .tp_divides_hidden = TRUE,
  .pp_divides_layers = TRUE,
  /* Calculon's optimizer sharding is ZeRO 2; it has no other stage. */
  .zero_stages = (1u << 0) | (1u << 2),
  /* Calculon fuses the activation and nothing else (its -f true default). */
  .fusion_sets = 1u << BPW_SEARCH_FUSION_DEFAULT,
  .gpipe = FALSE,
  /* Calculon streams offloaded state a layer ahead and wants 3 or more layers a stage. */
  .offload_min_layers = 3,
  .activation_offload = TRUE,
  .network_tiers = TRUE,
};

const BpwSearchRules *
bpw_calculon_search_rules (void)
{
  return &calculon_rules;
}
