/* bpw-facts-analytic.c — whole-model totals from one template layer of each kind
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every dense block of a model decomposes into the same operations, and so does every MoE
 * block. The fast path therefore decomposes a one-layer template of each kind and scales
 * its per-layer sums by the number of such layers; embedding, head, loss and their
 * optimizer updates come from the template once. Executed FLOPs apply the same split rules
 * as the distribution (replication over TP, optimizer replication over DP without ZeRO).
 * Per-device memory needs the pipeline stages and is left to bpw_facts_compute().
 */
#define G_LOG_DOMAIN "bpw-facts-analytic"

#include "config.h"

#include <string.h>

#include "bpw-facts.h"
#include "bpw-dist-work-private.h"

static void
bpw_facts_add_template (BpwFacts           *facts,
                        const BpwWorkGraph *g,
                        const BpwParallel  *p,
                        guint64             layer_copies,
                        gboolean            with_outer)
{
  for (guint i = 0; i < g->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, i);
      gboolean in_block = op->layer >= 0;
      guint64 copies = in_block ? layer_copies : (with_outer ? 1 : 0);
      guint64 rep_tp = p->tp / _bpw_dist_work_tp_parts (p, &g->spec, op->split);
      guint64 rep_dp = 1;
      BpwU128 graph_f = (BpwU128) op->flops * op->count * copies;
      gboolean matmul = op->primitive == BPW_PRIM_MATMUL ||
                        op->primitive == BPW_PRIM_BATCHED_MATMUL;

      if (copies == 0)
        continue;
      if (op->phase == BPW_PHASE_OPTIMIZER)
        {
          guint64 parts = p->zero >= 1 ? (guint64) p->dp
                          : op->split == BPW_SPLIT_EXPERT ? (guint64) p->ep : 1;
          rep_dp = p->dp / parts;
        }
      facts->flops_by_phase[op->phase] += graph_f * rep_tp * rep_dp;
      if (op->addition == BPW_ADDITION_NONE)
        facts->flops_semantic += (BpwU128) op->semantic_flops * op->count * copies;
      if (matmul && op->phase != BPW_PHASE_RECOMPUTE && op->phase != BPW_PHASE_OPTIMIZER)
        {
          BpwU128 f = (BpwU128) (op->layer_type == BPW_LAYER_MOE ? op->semantic_flops
                                 : op->flops) * op->count * copies;

          facts->flops_model += f;
          facts->flops_model_by_layer_type[op->layer_type] += f;
        }
    }
}

gboolean
bpw_facts_compute_analytic (const BpwModelSpec *spec,
                            const BpwScenario  *scenario,
                            const BpwParallel  *parallel,
                            BpwFacts           *facts,
                            GError            **error)
{
  BpwModelSpec dense, moe;
  gint64 n_moe = 0;
  gboolean ok = TRUE;

  memset (facts, 0, sizeof *facts);
  if (!bpw_model_spec_validate (spec, error) ||
      !bpw_scenario_validate (scenario, parallel, spec, error))
    return FALSE;
  for (gint64 l = 0; l < spec->layers; l++)
    n_moe += bpw_model_spec_is_moe_layer (spec, l);

  dense = *spec;
  dense.layers = 1;
  dense.experts = dense.top_k = dense.shared_experts = 0;
  moe = *spec;
  moe.layers = 1;
  moe.moe_first = 0;
  moe.moe_every = 1;

  if (spec->layers - n_moe > 0 || n_moe == 0)
    {
      g_autoptr(BpwWorkGraph) g = bpw_work_graph_new (&dense, scenario, error);

      ok = g != NULL;
      if (ok)
        {
          bpw_facts_add_template (facts, g, parallel, spec->layers - n_moe, TRUE);
          facts->tokens_per_step = (BpwU128) g->tokens_per_micro_batch * g->micro_batches;
        }
    }
  if (ok && n_moe > 0)
    {
      g_autoptr(BpwWorkGraph) g = bpw_work_graph_new (&moe, scenario, error);

      ok = g != NULL;
      if (ok)
        {
          bpw_facts_add_template (facts, g, parallel, n_moe, spec->layers == n_moe);
          facts->tokens_per_step = (BpwU128) g->tokens_per_micro_batch * g->micro_batches;
        }
    }
  if (!ok)
    return FALSE;

  for (guint ph = 0; ph < BPW_N_PHASES; ph++)
    facts->flops_hardware += facts->flops_by_phase[ph];
  facts->parameters = bpw_model_spec_parameters (spec);
  facts->active_parameters = bpw_model_spec_active_parameters (spec);
  facts->micro_batches = bpw_scenario_micro_batches (scenario, parallel);
  facts->kv_bytes_per_token = 2 * (guint64) spec->layers *
                              (spec->kv_heads / MIN (parallel->tp, spec->kv_heads)) *
                              spec->head_dim * bpw_dtype_bytes (scenario->kv_dtype);
  facts->conservation.ok = TRUE;
  return TRUE;
}
