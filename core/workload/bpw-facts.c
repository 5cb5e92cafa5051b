/* bpw-facts.c — the hardware-free facts of a scenario: FLOPs, parameters, memory
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-facts"

#include "config.h"

#include <string.h>

#include "bpw-facts.h"
#include "bpw-error.h"

void
bpw_facts_clear (BpwFacts *facts)
{
  bpw_conservation_clear (&facts->conservation);
}

/* Executed FLOPs are what every rank runs: the distributed sums, by phase. */
static void
bpw_facts_sum_phases (const BpwDistWork *dist,
                      BpwFacts          *facts)
{
  const BpwWorkGraph *g = dist->graph;
  const BpwParallel *p = &dist->parallel;

  for (gint64 s = 0; s < dist->n_stages; s++)
    {
      GArray *tasks = dist->stages[s].tasks;

      for (guint i = 0; i < tasks->len; i++)
        {
          const BpwTask *t = &g_array_index (tasks, BpwTask, i);
          const BpwOp *op = bpw_work_graph_op (g, t->op);
          /* tp x dp ranks of the stage each run their share; the shares of one op over
           * its parts add up to the op, and the groups of parts repeat. */
          BpwU128 ranks = (BpwU128) p->tp * p->dp;
          BpwU128 per_group = (BpwU128) op->flops * t->count;
          BpwU128 groups = ranks / ((BpwU128) t->tp_parts * t->dp_parts);

          facts->flops_by_phase[op->phase] += per_group * groups;
        }
    }
  facts->flops_hardware = 0;
  for (guint ph = 0; ph < BPW_N_PHASES; ph++)
    facts->flops_hardware += facts->flops_by_phase[ph];
}

guint64
bpw_facts_vision_flops_per_image (const BpwWorkGraph *graph)
{
  const BpwScenario *s = &graph->scenario;
  gint64 images = bpw_scenario_images (s, &graph->spec);
  BpwU128 flops = 0;

  if (images <= 0 || s->phase == BPW_WORKLOAD_DECODE)
    return 0;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (graph, i);

      if (op->layer_type == BPW_LAYER_VISION && op->phase == BPW_PHASE_FORWARD
          && (op->primitive == BPW_PRIM_MATMUL || op->primitive == BPW_PRIM_BATCHED_MATMUL))
        flops += (BpwU128) op->flops * op->count;
    }
  /* Every op runs once per micro-batch: global_batch sequences of @images images a step. */
  return (guint64) (flops / ((BpwU128) s->global_batch * (guint64) images));
}

guint64
bpw_facts_kv_rank_bytes (const BpwModelSpec *spec,
                         const BpwParallel  *parallel,
                         BpwDType            kv_dtype)
{
  guint64 per_token = bpw_model_spec_kv_elements (spec) * bpw_dtype_bytes (kv_dtype);

  /* Every head reads the whole latent, so MLA's cache is replicated over TP. */
  if (bpw_model_spec_is_mla (spec))
    return per_token;
  return per_token / (guint64) MIN (parallel->tp, spec->kv_heads);
}

guint64
bpw_facts_kv_context (const BpwScenario *scenario)
{
  return scenario->phase == BPW_WORKLOAD_DECODE ? (guint64) scenario->context + 1
                                                : (guint64) scenario->seq;
}

static void
bpw_facts_fill (BpwFacts          *facts,
                const BpwDistWork *dist)
{
  const BpwWorkGraph *g = dist->graph;
  const BpwModelSpec *m = &g->spec;
  const BpwParallel *p = &dist->parallel;
  const BpwStage *heavy = &dist->stages[dist->heaviest_stage];
  guint64 kv_rank = bpw_facts_kv_rank_bytes (m, p, g->scenario.kv_dtype);

  facts->parameters = bpw_model_spec_parameters (m);
  facts->active_parameters = bpw_model_spec_active_parameters (m);
  facts->mtp_parameters = bpw_model_spec_mtp_parameters (m);
  facts->vision_parameters = bpw_model_spec_vision_parameters (m);
  facts->projector_parameters = bpw_model_spec_projector_parameters (m);
  facts->vision_flops_per_image = bpw_facts_vision_flops_per_image (g);
  facts->tokens_per_step = (BpwU128) g->tokens_per_micro_batch * g->micro_batches;
  facts->micro_batches = dist->micro_batches_per_pipeline;
  bpw_work_graph_model_flops_by_layer_type (g, facts->flops_model_by_layer_type);
  facts->flops_model = 0;
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    facts->flops_model += facts->flops_model_by_layer_type[l];
  facts->flops_semantic = bpw_work_graph_semantic_flops (g);
  bpw_facts_sum_phases (dist, facts);
  facts->memory = heavy->memory;
  facts->memory_stage = dist->heaviest_stage;
  facts->activation_per_layer = bpw_dist_work_layer_stored_bytes (dist, 0);
  facts->kv_bytes_per_token = (guint64) bpw_model_spec_self_layers (m) * kv_rank;
  /* A cross-attention model's images: their keys and values in every cross layer. */
  facts->image_kv_bytes_per_sequence = (guint64) MAX (bpw_scenario_images (&g->scenario, m), 0)
                                       * bpw_model_spec_image_kv_elements (m)
                                       / bpw_model_spec_kv_elements (m) * kv_rank;
  facts->kv_bytes_per_sequence = bpw_model_spec_kv_slots (m, bpw_facts_kv_context (&g->scenario))
                                 * kv_rank + facts->image_kv_bytes_per_sequence;
  bpw_dist_work_check_conservation (dist, &facts->conservation);
}

gboolean
bpw_facts_compute (const BpwModelSpec *spec,
                   const BpwScenario  *scenario,
                   const BpwParallel  *parallel,
                   BpwFacts           *facts,
                   GError            **error)
{
  g_autoptr(BpwWorkGraph) graph = NULL;
  g_autoptr(BpwDistWork) dist = NULL;

  memset (facts, 0, sizeof *facts);
  if (!bpw_model_spec_validate (spec, error) ||
      !bpw_scenario_validate (scenario, parallel, spec, error))
    return FALSE;
  graph = bpw_work_graph_new (spec, scenario, error);
  if (graph == NULL)
    return FALSE;
  dist = bpw_dist_work_new (g_steal_pointer (&graph), parallel, error);
  if (dist == NULL)
    return FALSE;
  bpw_facts_fill (facts, dist);
  return TRUE;
}
