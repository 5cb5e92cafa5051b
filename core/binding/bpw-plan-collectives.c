/* bpw-plan-collectives.c — the collective algorithm a plan chose, per group, kind and tier
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plan"

#include "config.h"

#include "bpw-plan-collectives.h"

static gboolean
same_choice (const BpwPlanTransfer *a, const BpwPlanTransfer *b)
{
  return a->group == b->group && a->kind == b->kind && a->tier == b->tier &&
         a->ranks == b->ranks && a->algorithm == b->algorithm;
}

void
bpw_plan_write_collectives (BpwJsonWriter *w,
                            const BpwPlan *plan)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new ();
  const BpwBlueprint *bp = plan->blueprint;

  bpw_json_writer_begin_array (w, "collectives");
  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      const GArray *transfers = plan->stages[s].transfers;

      for (guint i = 0; i < transfers->len; i++)
        {
          const BpwPlanTransfer *tr = &g_array_index (transfers, BpwPlanTransfer, i);
          gboolean known = FALSE;

          if (tr->tier < 0 || (guint) tr->tier >= bp->n_tiers || tr->algorithm == 0)
            continue;
          for (guint k = 0; k < seen->len && !known; k++)
            known = same_choice (g_ptr_array_index (seen, k), tr);
          if (known)
            continue;
          g_ptr_array_add (seen, (gpointer) tr);
          bpw_json_writer_begin_object (w, NULL);
          bpw_json_writer_string (w, "group", bpw_group_to_string (tr->group));
          bpw_json_writer_string (w, "kind", bpw_collective_to_string (tr->kind));
          bpw_json_writer_string (w, "tier", bp->tiers[tr->tier].name);
          bpw_json_writer_string (w, "topology",
                                  bpw_topology_to_string (bp->tiers[tr->tier].topology));
          bpw_json_writer_int (w, "ranks", tr->ranks);
          bpw_json_writer_string (w, "algorithm", bpw_collective_algo_to_string (tr->algorithm));
          bpw_json_writer_end_object (w);
        }
    }
  bpw_json_writer_end_array (w);
}
