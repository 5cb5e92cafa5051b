/* bpw-search-bound.c — what a template proves about every plan of a search node
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The estimator assembles a stage from a template: n blocks plus the embedding on the
 * first stage and the head on the last, then adds exposed communication (never negative:
 * TP overlap and DP overlap hide at most all of it) and the pipeline bubble. So, for any
 * schedule, overlap and algorithm of a node:
 *   step ≥ m · max_stage + (p − 1)/v · min_stage (task time per micro-batch)
 *          + max_stage optimizer,
 * and a stage's device memory is at least its weights, gradients, optimizer state, KV
 * cache, largest temporary and communication buffer after offload — only the stored
 * activations, which depend on the schedule, are left out. Both follow the estimator's
 * assembly term by term (bpw-estimator.c, stage_memory and the stage loop); the search
 * test checks them against it on every plan of small spaces.
 */
#define G_LOG_DOMAIN "bpw-search-bound"

#include "config.h"

#include "bpw-search-private.h"

#include <string.h>

#include "bpw-dist-work-private.h"
#include "bpw-plan-private.h"
#include "bpw-stage-split.h"

void
_bpw_search_capacities (const BpwBlueprint *bp,
                        double             *device,
                        double             *host,
                        gboolean           *has_host)
{
  int hbm = bpw_blueprint_first_memory (bp, BPW_MEMORY_DEVICE);
  int h = bpw_blueprint_first_memory (bp, BPW_MEMORY_HOST);

  *device = hbm >= 0 ? bp->memory[hbm].capacity.value *
                       (bp->memory[hbm].instances.set ? bp->memory[hbm].instances.value : 1.0)
                     : 0.0;
  *has_host = h >= 0;
  *host = h >= 0 && bp->memory[h].capacity.set ? bp->memory[h].capacity.value : 0.0;
}

/* @m's split, as in the distribution; the even split when it cannot be resolved (the
 * evaluation then reports why). Resolved once per node: the balanced split weighs the
 * model's layers. */
static void
resolve_split (const BpwSearchSpace *space, const BpwMapping *m, BpwStageSplit *split)
{
  BpwParallel even = m->parallel;

  if (bpw_stage_split_resolve (split, &m->parallel, &space->spec, &space->scenario, NULL))
    return;
  even.pp_split = BPW_PP_SPLIT_EVEN;
  even.schedule = BPW_SCHEDULE_1F1B;
  if (!bpw_stage_split_resolve (split, &even, &space->spec, &space->scenario, NULL))
    *split = (BpwStageSplit) { .pp = 1, .chunks = 1, .n_virtual = 1,
                               .layers = space->spec.layers };
}

/* Blocks of stage @s under @split. */
static gint64
stage_layers (const BpwStageSplit *split, gint64 s)
{
  return split->n_virtual == 1 && s > 0 ? 0 : bpw_stage_split_rank (split, s);
}

static double
task_time (const BpwStageTotals *t)
{
  return t->compute + t->stall + t->overhead + t->recompute;
}

typedef struct
{
  double device, host;
} StageBytes;

/* Device and host bytes of stage @s without its stored activations; @state_only leaves
 * out everything but weights, gradients and optimizer state. */
static StageBytes
stage_bytes (const BpwBlueprint *bp, const BpwMapping *m, const BpwTemplate *t, gint64 s,
             gint64 pp, gint64 n_layers, gint64 micro_batches, gboolean state_only)
{
  gboolean first = s == 0, last = s == pp - 1;
  double nl = (double) n_layers;
  double w = nl * t->weights[BPW_PART_BLOCK], g = nl * t->gradients[BPW_PART_BLOCK];
  double o = nl * t->optimizer[BPW_PART_BLOCK];
  double kv = nl * t->kv_block * (double) micro_batches;
  /* In inference a block's tasks work inside its live set (bpw-plan-memory.c). */
  double temporaries = t->train ? t->temporaries[BPW_PART_BLOCK] : 0;
  double communication = t->communication[BPW_PART_BLOCK];
  double acts = 0;
  StageBytes b = { 0, 0 };

  for (guint p = BPW_PART_BEFORE; p <= BPW_PART_AFTER; p += 2)
    if ((p == BPW_PART_BEFORE && first) || (p == BPW_PART_AFTER && last))
      {
        w += t->weights[p];
        g += t->gradients[p];
        o += t->optimizer[p];
        temporaries = MAX (temporaries, t->temporaries[p]);
        communication = MAX (communication, t->communication[p]);
      }
  /* The stage's own sends, as the estimator counts them: activations forward unless it is
   * the last, gradients back in training unless it is the first (the last stage of a
   * serving pipeline sends none). */
  if (pp > 1 && !last && t->has_pp_send[0])
    communication = MAX (communication, t->pp_send[0].bytes);
  if (pp > 1 && !first && t->train && t->has_pp_send[1])
    communication = MAX (communication, t->pp_send[1].bytes);
  if (t->train)
    {
      /* Stored activations times the micro-batches in flight are left out (≥ 0); what
       * recompute keeps live is not. */
      if (t->key.recompute != BPW_RECOMPUTE_NONE)
        acts = t->live_block;
    }
  else
    {
      /* Inference runs one micro-batch at a time on a stage: exact. */
      acts = t->live_block;
    }

  n_layers = MAX (n_layers, 1);
  b.device = _bpw_plan_offload (bp, m, BPW_TENSOR_WEIGHT, w, n_layers, &b.host) +
             _bpw_plan_offload (bp, m, BPW_TENSOR_GRADIENT, g, n_layers, &b.host) +
             _bpw_plan_offload (bp, m, BPW_TENSOR_OPTIMIZER_STATE, o, n_layers, &b.host);
  if (!state_only)
    b.device += _bpw_plan_offload (bp, m, BPW_TENSOR_ACTIVATION, acts, n_layers, &b.host) +
                _bpw_plan_offload (bp, m, BPW_TENSOR_KV_CACHE, kv, n_layers, &b.host) +
                temporaries + communication;
  return b;
}

double
_bpw_search_matrix_rate (const BpwBlueprint *bp,
                         BpwPrecision        precision)
{
  double rate = 0;

  /* Binding costs a matmul on a matrix engine at peak × efficiency(F) of that engine's
   * table for the precision (bpw_cost_task); whichever matrix engine it is, this is at
   * least as fast. */
  for (guint i = 0; i < bp->n_engines; i++)
    {
      const BpwEngine *e = &bp->engines[i];
      const BpwEfficiencyTable *table = &e->efficiency[precision];
      double best = table->n_points == 0 ? 1.0 : 0.0;

      if (e->kind != BPW_ENGINE_MATRIX || !e->peak[precision].set)
        continue;
      for (guint p = 0; p < table->n_points; p++)
        best = MAX (best, table->points[p].efficiency);
      rate = MAX (rate, e->peak[precision].value * best);
    }
  return rate;
}

static gboolean
lookup (BpwEstimator *est, const BpwSearchSpace *space, const BpwMapping *m, BpwTemplate **t,
        GError **error)
{
  BpwScenario s = space->scenario;
  BpwMapping local = *m;

  /* The estimator validates before binding; the space's nodes are valid already, but a
   * mapping from elsewhere may not be. */
  s.micro_batch = m->micro_batch > 0 ? m->micro_batch : s.micro_batch;
  s.recompute = m->recompute >= 0 ? (BpwRecompute) m->recompute : s.recompute;
  if (!bpw_scenario_validate (&s, &local.parallel, &space->spec, error))
    return FALSE;
  *t = _bpw_estimator_lookup_template (est, &local, error);
  return *t != NULL;
}

gboolean
_bpw_search_bound_state (BpwEstimator         *est,
                         const BpwSearchSpace *space,
                         const BpwMapping     *m,
                         double               *device,
                         double               *host,
                         GError              **error)
{
  const BpwBlueprint *bp = space->blueprint;
  BpwTemplate *t;
  BpwStageSplit split;
  gint64 pp = m->parallel.pp;

  *device = *host = 0;
  if (!lookup (est, space, m, &t, error))
    return FALSE;
  resolve_split (space, m, &split);
  for (gint64 s = 0; s < pp; s++)
    {
      StageBytes b = stage_bytes (bp, m, t, s, pp, stage_layers (&split, s), 1, TRUE);

      *device = MAX (*device, b.device);
      *host = MAX (*host, b.host);
    }
  return TRUE;
}

gboolean
_bpw_search_bound_node (BpwEstimator         *est,
                        const BpwSearchSpace *space,
                        const BpwMapping     *m,
                        gint64                micro_batches,
                        BpwSearchBound       *out,
                        GError              **error)
{
  const BpwBlueprint *bp = space->blueprint;
  gint64 pp = m->parallel.pp;
  double capacity, host_capacity;
  gboolean has_host;
  BpwTemplate *t;
  BpwStageSplit split;

  memset (out, 0, sizeof *out);
  if (!lookup (est, space, m, &t, error))
    return FALSE;
  _bpw_search_capacities (bp, &capacity, &host_capacity, &has_host);
  resolve_split (space, m, &split);

  out->illegal = t->reasons->len > 0;
  for (guint p = 0; p < BPW_N_PARTS; p++)
    for (guint i = 0; i < t->transfers[p]->len; i++)
      if (g_array_index (t->transfers[p], BpwPlanTransfer, i).kind == BPW_COLLECTIVE_ALL_TO_ALL)
        out->all_to_all = TRUE;

  for (gint64 s = 0; s < pp; s++)
    {
      gint64 n = stage_layers (&split, s);
      double nl = (double) n, compute, optimizer;
      StageBytes b = stage_bytes (bp, m, t, s, pp, n, micro_batches, FALSE);

      double flops;

      compute = nl * task_time (&t->tasks[BPW_PART_BLOCK]);
      optimizer = nl * t->tasks[BPW_PART_BLOCK].optimizer;
      flops = nl * t->tasks[BPW_PART_BLOCK].matmul_flops;
      if (s == 0)
        {
          compute += task_time (&t->tasks[BPW_PART_BEFORE]);
          optimizer += t->tasks[BPW_PART_BEFORE].optimizer;
          flops += t->tasks[BPW_PART_BEFORE].matmul_flops;
        }
      if (s == pp - 1)
        {
          compute += task_time (&t->tasks[BPW_PART_AFTER]);
          optimizer += t->tasks[BPW_PART_AFTER].optimizer;
          flops += t->tasks[BPW_PART_AFTER].matmul_flops;
        }
      out->compute = MAX (out->compute, compute);
      out->compute_min = s == 0 ? compute : MIN (out->compute_min, compute);
      out->matmul_flops_min = s == 0 ? flops : MIN (out->matmul_flops_min, flops);
      out->optimizer = MAX (out->optimizer, optimizer);
      out->matmul_flops = MAX (out->matmul_flops, flops);
      out->memory = MAX (out->memory, b.device);
      out->host = MAX (out->host, b.host);
    }

  /* The estimator's capacity rules, on bytes that can only grow. */
  if (out->memory > capacity * (1.0 + BPW_SEARCH_BOUND_SLACK) ||
      (out->host > 0 && !has_host) ||
      (out->host > 0 && host_capacity > 0 &&
       out->host > host_capacity * (1.0 + BPW_SEARCH_BOUND_SLACK)))
    out->illegal = TRUE;
  return TRUE;
}
