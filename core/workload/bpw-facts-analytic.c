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
                        gboolean            with_outer,
                        BpwU128            *block_flops)
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
      if (op->phase != BPW_PHASE_RECOMPUTE)
        *(in_block ? block_flops : op->layer == BPW_LAYER_BEFORE_BLOCKS
          ? &facts->flops_before_blocks : &facts->flops_after_blocks)
          += (BpwU128) op->flops * op->count;
      if (op->phase == BPW_PHASE_OPTIMIZER)
        {
          guint64 parts = p->zero >= 1 ? (guint64) (p->dp * p->cp)
                          : op->split == BPW_SPLIT_EXPERT ? (guint64) p->ep : 1;
          rep_dp = (guint64) (p->dp * p->cp) / parts;
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
  /* Four kinds of block: dense or MoE, attending fully or through the window; a
   * cross-attention model's (dense, no window) are self- or cross-attention, in the
   * windowed slot's place. */
  gint64 n_kind[2][2] = { { 0, 0 }, { 0, 0 } };
  gboolean cross = bpw_model_spec_has_cross_attention (spec);
  gboolean outer_done = FALSE;
  gint mtp_moe = -1, mtp_windowed = -1;
  guint64 kv_rank;

  memset (facts, 0, sizeof *facts);
  if (!bpw_model_spec_validate (spec, error) ||
      !bpw_scenario_validate (scenario, parallel, spec, error))
    return FALSE;
  for (gint64 l = 0; l < spec->layers; l++)
    n_kind[bpw_model_spec_is_moe_layer (spec, l)][cross ? bpw_model_spec_is_cross_layer (spec, l)
                                                  : bpw_model_spec_layer_window (spec, l) > 0]++;
  /* The MTP modules' blocks are of the kind of layer spec->layers: the template of that
   * kind carries them, with the outer parts (they are outside the blocks too). A
   * cross-attention model's outer parts come from its cross template, whose MTP block is
   * of self-attention (no cross layer is past the last). */
  if (spec->mtp_modules > 0 && !cross)
    {
      mtp_moe = bpw_model_spec_is_moe_layer (spec, spec->layers);
      mtp_windowed = bpw_model_spec_layer_window (spec, spec->layers) > 0;
    }

  for (guint moe = 0; moe < 2; moe++)
    for (guint windowed = 0; windowed < 2; windowed++)
      {
        g_autoptr(BpwWorkGraph) g = NULL;
        BpwModelSpec t = *spec;
        gboolean carries_mtp = (gint) moe == mtp_moe && (gint) windowed == mtp_windowed;

        if (n_kind[moe][windowed] == 0 && !carries_mtp)
          continue;
        t.mtp_modules = (cross ? windowed != 0 : carries_mtp) ? spec->mtp_modules : 0;
        t.layers = 1;
        t.n_cross_layers = cross && windowed ? 1 : 0;
        t.cross_layers[0] = 0;
        t.window = windowed && !cross ? spec->window : 0;
        t.window_first = 0;
        if (moe)
          {
            t.moe_first = 0;
            t.moe_every = 1;
          }
        else
          {
            t.experts = t.top_k = t.shared_experts = 0;
            t.expert_groups = t.topk_groups = 0;
            t.router_bias = FALSE;
          }
        /* A self-attention template of a cross-attention model has no encoder (which
         * feeds cross-attention only); the outer parts come from the cross template. */
        if (cross && !windowed)
          memset (&t.vision, 0, sizeof t.vision);
        g = bpw_work_graph_new (&t, scenario, error);
        if (g == NULL)
          return FALSE;
        /* Embedding, head and loss come from the first template only. */
        if (cross)
          {
            bpw_facts_add_template (facts, g, parallel, n_kind[moe][windowed], windowed,
                                    &facts->flops_block[moe][windowed]);
            if (windowed)
              facts->vision_flops_per_image = bpw_facts_vision_flops_per_image (g);
          }
        else
          {
            gboolean outer = mtp_moe >= 0 ? carries_mtp : !outer_done;

            bpw_facts_add_template (facts, g, parallel, n_kind[moe][windowed], outer,
                                    &facts->flops_block[moe][windowed]);
            if (outer)
              facts->vision_flops_per_image = bpw_facts_vision_flops_per_image (g);
          }
        outer_done = TRUE;
        facts->tokens_per_step = (BpwU128) g->tokens_per_micro_batch * g->micro_batches;
      }

  for (guint ph = 0; ph < BPW_N_PHASES; ph++)
    facts->flops_hardware += facts->flops_by_phase[ph];
  facts->parameters = bpw_model_spec_parameters (spec);
  facts->active_parameters = bpw_model_spec_active_parameters (spec);
  facts->mtp_parameters = bpw_model_spec_mtp_parameters (spec);
  facts->vision_parameters = bpw_model_spec_vision_parameters (spec);
  facts->projector_parameters = bpw_model_spec_projector_parameters (spec);
  facts->micro_batches = bpw_scenario_micro_batches (scenario, parallel);
  kv_rank = bpw_facts_kv_rank_bytes (spec, parallel, scenario->kv_dtype);
  facts->kv_bytes_per_token = (guint64) bpw_model_spec_self_layers (spec) * kv_rank;
  /* A cross-attention model's images: their keys and values in every cross layer. */
  facts->image_kv_bytes_per_sequence = (guint64) MAX (bpw_scenario_images (scenario, spec), 0)
                                       * bpw_model_spec_image_kv_elements (spec)
                                       / bpw_model_spec_kv_elements (spec) * kv_rank;
  facts->kv_bytes_per_sequence = bpw_model_spec_kv_slots (spec, bpw_facts_kv_context (scenario))
                                 * kv_rank + facts->image_kv_bytes_per_sequence;
  facts->conservation.ok = TRUE;
  return TRUE;
}
