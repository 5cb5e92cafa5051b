/* bpw-search-rules.h — the rules by which a cost model's space differs from the full one
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search space (bpw-search-space.h) enumerates what the workbench's estimator can
 * price. Another model's space narrows and widens it in a few places; a BpwSearchRules
 * says how, and the space reads the rules rather than knowing the model. A caller that
 * wants another model's space sets limits.rules to that model's rules (Calculon's are
 * bpw_calculon_search_rules()); NULL is the full space, whose rules are the values
 * written after each field.
 */
#pragma once

#include "bpw-scenario.h"

G_BEGIN_DECLS

typedef struct _BpwSearchRules BpwSearchRules;

struct _BpwSearchRules
{
  const char  *name;                /* problem.space of the search's document ("full") */
  guint32      id;                  /* distinct per set of rules and hashed into the space's
                                     * fingerprint, so that shards of different spaces never
                                     * merge (0) */
  /* Refuses a problem outside the rules' domain, saying why (NULL: every problem). */
  gboolean   (*check)               (const BpwScenario *scenario,
                                     GError           **error);
  gboolean     tp_divides_hidden;   /* TP must also divide the hidden size (FALSE) */
  gboolean     pp_divides_layers;   /* PP must divide the layers (FALSE) */
  guint        zero_stages;         /* 1 << stage: the ZeRO stages there are (all four) */
  guint        fusion_sets;         /* 1 << BpwSearchFusionSet: those tried where the
                                     * limits leave fusion free; 0: all (0) */
  gboolean     gpipe;               /* GPipe among the free schedules (TRUE) */
  gint64       offload_min_layers;  /* layers a stage needs before anything is offloaded
                                     * (0) */
  gboolean     activation_offload;  /* stored activations on host memory are a choice of
                                     * every plan that stores them (FALSE) */
  gboolean     network_tiers;       /* the tier of each of TP, PP and DP (of degree above
                                     * 1) is a choice of every plan, instead of collective
                                     * algorithms (FALSE) */
};

G_END_DECLS
