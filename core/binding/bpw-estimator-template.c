/* bpw-estimator-template.c — binding a two-block model once per mapping shape
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The template model keeps every dimension of the real one but has two blocks and two
 * micro-batches per pipeline. A model with dense and MoE blocks (or full and windowed
 * attention) gets one of each kind, and a stage is costed by how many blocks of each kind
 * it holds. With a pipeline it is split over two stages, so that the
 * template has the first stage's embedding, the last stage's head and tied-embedding copy,
 * and the point-to-point sends between stages; without one it is a single stage.
 */
#define G_LOG_DOMAIN "bpw-estimator-template"

#include "config.h"

#include <string.h>

#include "bpw-estimator-private.h"
#include "bpw-dist-work-private.h"
#include "bpw-plan-private.h"
#include "bpw-model-spec.h"


void
bpw_template_key_init (BpwTemplateKey    *key,
                       const BpwMapping  *mapping,
                       const BpwScenario *scenario)
{
  const BpwParallel *p = &mapping->parallel;

  memset (key, 0, sizeof *key);
  key->tp = p->tp;
  key->dp = p->dp;
  key->ep = p->ep;
  key->cp = p->cp;
  key->cp_algorithm = p->cp_algorithm;
  key->sp = p->sp;
  key->zero = p->zero;
  key->pipelined = p->pp > 1;
  key->micro_batch = mapping->micro_batch > 0 ? mapping->micro_batch : scenario->micro_batch;
  key->recompute = mapping->recompute >= 0 ? mapping->recompute : (gint32) scenario->recompute;
  key->fusion = mapping->fusion;
  key->tiling_automatic = mapping->tiling.automatic;
  if (!mapping->tiling.automatic)
    {
      key->tile_m = mapping->tiling.m;
      key->tile_n = mapping->tiling.n;
      key->tile_k = mapping->tiling.k;
    }
  for (guint i = 0; i < BPW_N_PRIMITIVES; i++)
    key->engine[i] = mapping->engine[i];
  for (guint i = 0; i < BPW_N_TENSOR_KINDS; i++)
    key->placement[i] = mapping->placement[i];
  key->policy_set = mapping->precision.set;
  for (guint i = 0; mapping->precision.set && i < BPW_N_POLICY_CLASSES; i++)
    {
      const BpwClassPrecision *cp = &mapping->precision.classes[i];

      key->policy_format[i] = cp->format;
      key->policy_scaling[i] = cp->scaling;
      key->policy_keep[i] = cp->keep_bf16;
      key->policy_sparse[i] = cp->sparse_2_4;
      key->policy_block[i] = cp->block;
      key->policy_weights[i] = cp->weights;
      key->policy_group[i] = cp->weights != BPW_WEIGHT_FORMAT_NATIVE ? cp->group : 0;
    }
}

guint
bpw_template_key_hash (gconstpointer key)
{
  const guchar *bytes = key;
  guint32 h = 2166136261u;  /* FNV-1a */

  for (gsize i = 0; i < sizeof (BpwTemplateKey); i++)
    h = (h ^ bytes[i]) * 16777619u;
  return h;
}

gboolean
bpw_template_key_equal (gconstpointer a,
                        gconstpointer b)
{
  return memcmp (a, b, sizeof (BpwTemplateKey)) == 0;
}

/* With kinds, the template's block 0 is of kind A (dense, or full attention) and block 1
 * of kind B (MoE, or windowed). */
static BpwPart
part_of_layer (const BpwTemplate *t, gint32 layer)
{
  if (layer == BPW_LAYER_BEFORE_BLOCKS)
    return BPW_PART_BEFORE;
  if (layer == BPW_LAYER_AFTER_BLOCKS)
    return BPW_PART_AFTER;
  if (t->by_kind)
    return layer == 0 ? BPW_PART_BLOCK_A : BPW_PART_BLOCK_B;
  return BPW_PART_BLOCK;
}

/* What one template block stands for: the mean block is half of two, a kind's block one. */
static double
part_scale (BpwPart part)
{
  return part == BPW_PART_BLOCK ? 1.0 / BPW_TEMPLATE_BLOCKS : 1.0;
}

/* Layers of kind B in [first, first + n): MoE, windowed, or cross-attention. */
static gint64
kind_b_layers_in (const BpwModelSpec *spec, gboolean window, gboolean cross, gint64 first,
                  gint64 n)
{
  gint64 b = 0;

  for (gint64 l = first; l < first + n; l++)
    b += cross ? bpw_model_spec_is_cross_layer (spec, l)
         : window ? bpw_model_spec_layer_window (spec, l) > 0
         : bpw_model_spec_is_moe_layer (spec, l);
  return b;
}

void
bpw_template_count_kinds (const BpwTemplate  *t,
                          const BpwModelSpec *spec,
                          gint64              first,
                          gint64              n,
                          gint64             *n_a,
                          gint64             *n_b)
{
  *n_b = t->by_kind ? kind_b_layers_in (spec, t->kind_is_window, t->kind_is_cross, first, n)
                    : 0;
  *n_a = n - *n_b;
}

/* The doubles of BpwStageTotals that add linearly, up to n_layers. */
#define N_LINEAR (G_STRUCT_OFFSET (BpwStageTotals, n_layers) / sizeof (double))

/* BLOCK as the lesser of the two kinds, field by field: a per-layer lower bound. */
static void
lesser_block (BpwTemplate *t)
{
  double *b = (double *) &t->tasks[BPW_PART_BLOCK];
  const double *d = (const double *) &t->tasks[BPW_PART_BLOCK_A];
  const double *m = (const double *) &t->tasks[BPW_PART_BLOCK_B];

  for (gsize i = 0; i < N_LINEAR; i++)
    b[i] = MIN (d[i], m[i]);
#define LESSER(field) field[BPW_PART_BLOCK] = MIN (field[BPW_PART_BLOCK_A], field[BPW_PART_BLOCK_B])
  LESSER (t->weights);
  LESSER (t->gradients);
  LESSER (t->optimizer);
  LESSER (t->stored);
  LESSER (t->temporaries);
  LESSER (t->communication);
  LESSER (t->live);
  LESSER (t->kv);
  for (guint w = 0; w < 2; w++)
    for (guint e = 0; e < 2; e++)
      LESSER (t->dp_bytes[w][e]);
#undef LESSER
}

static gboolean
has_dp_shape (const BpwTemplate *t, const BpwPlanTransfer *tr, gboolean expert)
{
  for (guint i = 0; i < t->dp_shapes->len; i++)
    {
      const BpwPlanTransfer *shape = &g_array_index (t->dp_shapes, BpwPlanTransfer, i);

      if (shape->kind == tr->kind && shape->phase == tr->phase
          && g_array_index (t->dp_expert, gboolean, i) == expert)
        return TRUE;
    }
  return FALSE;
}

static void
collect_tasks_and_transfers (BpwTemplate *t, const BpwPlan *plan)
{

  for (gint64 s = 0; s < plan->dist->n_stages; s++)
    {
      const BpwPlanStage *ps = &plan->stages[s];

      for (guint i = 0; i < ps->tasks->len; i++)
        {
          BpwPlanTask task = g_array_index (ps->tasks, BpwPlanTask, i);
          BpwPart part = part_of_layer (t, task.layer);

          /* Launch gaps are replayed per evaluation (bpw-estimator-launch.c). */
          if (t->launch_gap > 0 || t->device_gap > 0)
            {
              task.cost.time_s -= task.launch_s;
              task.cost.overhead_s -= task.launch_s;
            }
          bpw_stage_totals_add_task (plan, &task, part_scale (part), &t->tasks[part]);
          /* The optimizer updates state in place: no working set (bpw-plan-memory.c). */
          if (task.phase != BPW_PHASE_OPTIMIZER)
            t->temporaries[part] = MAX (t->temporaries[part],
                                      task.bytes[BPW_TRAFFIC_DEVICE] - task.tiling_bytes);
        }
      for (guint i = 0; i < ps->transfers->len; i++)
        {
          BpwPlanTransfer tr = g_array_index (ps->transfers, BpwPlanTransfer, i);
          BpwPart part = part_of_layer (t, tr.layer);

          /* The last stage's half of the tied-embedding reduction serves the embedding op
           * but belongs to the head's stage. */
          if (part == BPW_PART_BEFORE && s > 0)
            part = BPW_PART_AFTER;

          if (tr.group == BPW_GROUP_PP && tr.kind == BPW_COLLECTIVE_SEND_RECV)
            {
              guint dir = tr.phase == BPW_PHASE_FORWARD ? 0 : 1;

              t->pp_send[dir] = tr;
              t->has_pp_send[dir] = TRUE;
              continue;
            }
          if (tr.group == BPW_GROUP_DP)
            {
              gboolean expert = g_str_has_suffix (bpw_work_graph_name (plan->dist->graph,
                                                                       tr.name), "expert");

              /* One shape of each kind for dense and for expert parameters: the first
               * stage's, or the last's where only it has them (a template whose first
               * block is dense and second MoE). */
              if (!has_dp_shape (t, &tr, expert))
                {
                  g_array_append_val (t->dp_shapes, tr);
                  g_array_append_val (t->dp_expert, expert);
                }
              continue;
            }
          tr.count *= part_scale (part);
          g_array_append_val (t->transfers[part], tr);
          if (tr.group != BPW_GROUP_DP)
            t->communication[part] = MAX (t->communication[part], tr.bytes);
        }
    }
}

static void
collect_memory (BpwTemplate *t, const BpwPlan *plan)
{
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;
  g_autofree guint32 *groups = _bpw_plan_fusion_groups (g, plan->mapping.fusion);
  BpwRankMemory mem[BPW_N_PARTS] = { { 0 } }, last = { 0 };
  guint64 stored[BPW_N_PARTS] = { 0 }, kv[BPW_N_PARTS] = { 0 }, live[BPW_N_PARTS] = { 0 };
  guint64 on_chip[BPW_N_PARTS] = { 0 };
  gint64 last_stage = dist->n_stages - 1;
  const BpwRankMemory *dist_last = &dist->stages[last_stage].memory;
  BpwStackMemory sm;

  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *tensor = bpw_work_graph_tensor (g, i);
      BpwPart part = part_of_layer (t, tensor->layer);
      guint64 dummy_s = 0, dummy_k = 0, dummy_l = 0;

      _bpw_dist_work_account_tensor (dist, tensor, &mem[part], &stored[part], &kv[part],
                                     &live[part]);
      /* Weights stored weight-only hold less (bpw-plan-weight-only.c). */
      mem[part].weights -= (guint64) _bpw_plan_weight_only_saving (plan, i);
      if (tensor->stored == BPW_STORED_CHECKPOINT && tensor->kind == BPW_TENSOR_ACTIVATION &&
          _bpw_plan_tensor_on_chip (g, groups, tensor))
        on_chip[part] += _bpw_dist_work_tensor_rank_bytes (dist, tensor);
      /* The DP gathers move weight-only weights as they are stored. */
      if (tensor->kind == BPW_TENSOR_GRADIENT || tensor->kind == BPW_TENSOR_WEIGHT)
        t->dp_bytes[tensor->kind == BPW_TENSOR_WEIGHT][tensor->split == BPW_SPLIT_EXPERT][part] +=
          ((double) _bpw_dist_work_tensor_rank_bytes (dist, tensor) -
           _bpw_plan_weight_only_gather_saving (plan, i)) * part_scale (part);
      if (_bpw_dist_work_stage_of_layer (dist, tensor->layer) == last_stage)
        _bpw_dist_work_account_tensor (dist, tensor, &last, &dummy_s, &dummy_k, &dummy_l);
    }

  for (guint p = 0; p < BPW_N_PARTS; p++)
    {
      double scale = part_scale (p);
      double fused = plan->mapping.fusion != 0 && t->train ? (double) on_chip[p] : 0.0;

      t->weights[p] = (double) mem[p].weights * scale;
      t->gradients[p] = (double) mem[p].gradients * scale;
      t->optimizer[p] = (double) mem[p].optimizer_state * scale;
      t->stored[p] = ((double) stored[p] - fused) * scale;
      t->live[p] = 0;
      t->kv[p] = (double) kv[p] * scale;
    }
  /* One layer's live activations by the plan's rule (bpw-plan-memory.c: on-chip tensors
   * left out, inference's forward swept in op order): a part holds its largest block's. */
  for (gint32 layer = 0; layer < BPW_TEMPLATE_BLOCKS; layer++)
    {
      BpwPart part = part_of_layer (t, layer);

      t->live[part] = MAX (t->live[part], _bpw_plan_layer_live_bytes (dist, groups, layer));
    }
  t->cp_kv_buffer = (double) _bpw_dist_work_cp_kv_buffer_bytes (dist);

  /* What the last stage holds beyond its tensors: the tied embedding copy. */
  t->weights[BPW_PART_AFTER] += (double) (dist_last->weights - last.weights);
  t->gradients[BPW_PART_AFTER] += (double) (dist_last->gradients - last.gradients);
  t->optimizer[BPW_PART_AFTER] += (double) (dist_last->optimizer_state - last.optimizer_state);

  /* The stack's training state, as the plan places it: an fp32 master copy (tallied with
   * the optimizer state) and fp32 gradients per part, fp32 logits on the last stage. */
  _bpw_plan_stack_memory (plan->blueprint, g, &dist->parallel, &sm);
  for (guint p = 0; p < BPW_N_PARTS; p++)
    {
      t->optimizer[p] += t->weights[p] * sm.master_per_weight_byte;
      t->gradients[p] *= sm.gradient_scale;
    }
  t->logits = sm.logits_bytes;
  t->stack_memory = sm;

  if (t->by_kind)
    lesser_block (t);
  t->live_block = t->live[BPW_PART_BLOCK];
  t->kv_block = t->kv[BPW_PART_BLOCK];
}

BpwTemplate *
bpw_template_new (const BpwTemplateKey *key,
                  const BpwModelSpec   *spec,
                  const BpwScenario    *scenario,
                  const BpwBlueprint   *blueprint,
                  const BpwMapping     *mapping,
                  GError              **error)
{
  g_autoptr(BpwWorkGraph) graph = NULL;
  g_autoptr(BpwPlan) plan = NULL;
  BpwTemplate *t;
  BpwModelSpec small = *spec;
  BpwScenario s = *scenario;
  BpwMapping m;
  BpwDistWork *dist;
  gboolean on_chip = FALSE;

  gint64 moe_layers = kind_b_layers_in (spec, FALSE, FALSE, 0, spec->layers);
  gint64 window_layers = bpw_model_spec_window_layers (spec);
  gboolean moe_kinds = moe_layers > 0 && moe_layers < spec->layers;
  gboolean window_kinds = !moe_kinds && window_layers > 0 && window_layers < spec->layers;
  /* A cross-attention model is dense without a window (bpw_model_spec_validate). */
  gboolean cross_kinds = spec->n_cross_layers > 0 && spec->n_cross_layers < spec->layers;
  gboolean by_kind = moe_kinds || window_kinds || cross_kinds;

  small.layers = BPW_TEMPLATE_BLOCKS;
  /* Self-attention block 0 and cross-attention block 1, or two cross-attention blocks. */
  if (spec->n_cross_layers > 0)
    {
      small.n_cross_layers = cross_kinds ? 1 : 2;
      small.cross_layers[0] = cross_kinds ? 1 : 0;
      small.cross_layers[1] = 1;
    }
  /* Dense and MoE blocks in one model (any moe.first and moe.every): block 0 dense, block 1
   * MoE, each costed by kind per stage. All MoE: two alike. */
  if (spec->experts > 0)
    {
      small.moe_first = moe_kinds ? 1 : 0;
      small.moe_every = 1;
    }
  /* A window on every layer (Mistral) or none keeps both blocks alike. A window on only
   * the upper layers (Qwen2's max_window_layers) gets one full and one windowed block,
   * costed by kind per stage; with MoE kinds as well, the MoE block is the windowed one
   * (an estimate; the bound plan of the whole model is exact, and model FLOPs come from
   * the analytic facts). */
  if (bpw_model_spec_window_layers (spec) == 0)
    small.window = small.window_first = 0;
  else if (small.window_first > 0)
    small.window_first = 1;
  s.micro_batch = key->micro_batch;
  s.recompute = key->recompute;
  s.global_batch = key->micro_batch * key->dp * BPW_TEMPLATE_MICRO_BATCHES;
  bpw_mapping_copy (&m, mapping);
  bpw_parallel_init_defaults (&m.parallel);
  m.parallel.tp = key->tp;
  m.parallel.dp = key->dp;
  m.parallel.ep = key->ep;
  m.parallel.cp = key->cp;
  m.parallel.cp_algorithm = (BpwCpAlgorithm) key->cp_algorithm;
  m.parallel.sp = key->sp;
  m.parallel.zero = key->zero;
  m.parallel.pp = key->pipelined ? 2 : 1;
  for (guint g = 0; g < BPW_N_GROUPS; g++)
    m.tier[g] = -1;
  /* A level that does not exist is the mapping's error; an on-chip one binds as device
   * memory does, and whether the full model's bytes fit it is checked per evaluation
   * (the template's two blocks say nothing about that). */
  if (!bpw_plan_check_placement (blueprint, mapping, error))
    {
      bpw_mapping_clear (&m);
      return NULL;
    }
  for (guint k = 0; k < BPW_N_TENSOR_KINDS; k++)
    if (m.placement[k] >= 0 && blueprint->memory[m.placement[k]].kind < BPW_MEMORY_DEVICE)
      {
        m.placement[k] = -1;
        on_chip = TRUE;
      }

  graph = bpw_work_graph_new (&small, &s, error);
  if (graph != NULL)
    {
      dist = bpw_dist_work_new (g_steal_pointer (&graph), &m.parallel, error);
      if (dist != NULL)
        plan = bpw_plan_new (dist, blueprint, &m, error);
    }
  bpw_mapping_clear (&m);
  if (plan == NULL)
    return NULL;

  t = g_new0 (BpwTemplate, 1);
  t->key = *key;
  t->by_kind = by_kind;
  t->kind_is_window = window_kinds;
  t->kind_is_cross = cross_kinds;
  t->train = scenario->phase == BPW_WORKLOAD_TRAIN;
  t->on_chip = on_chip;
  t->reasons = g_ptr_array_new_with_free_func (g_free);
  for (guint p = 0; p < BPW_N_PARTS; p++)
    t->transfers[p] = g_array_new (FALSE, FALSE, sizeof (BpwPlanTransfer));
  t->dp_shapes = g_array_new (FALSE, FALSE, sizeof (BpwPlanTransfer));
  t->dp_expert = g_array_new (FALSE, FALSE, sizeof (gboolean));

  /* Reasons that hold whatever the tiers and the pipeline: capabilities and tiles.
   * Capacity and tier rules are re-checked per mapping. */
  for (guint i = 0; i < plan->reasons->len; i++)
    {
      const char *r = plan->reasons->pdata[i];

      if (!g_str_has_prefix (r, "Pipeline stage") && !g_str_has_prefix (r, "Tier ") &&
          !g_str_has_prefix (r, "The mapping puts"))
        g_ptr_array_add (t->reasons, g_strdup (r));
    }
  _bpw_template_collect_issue (t, plan);
  collect_tasks_and_transfers (t, plan);
  collect_memory (t, plan);
  return t;
}

void
bpw_template_free (BpwTemplate *t)
{
  if (t == NULL)
    return;
  for (guint p = 0; p < BPW_N_PARTS; p++)
    g_clear_pointer (&t->transfers[p], g_array_unref);
  g_clear_pointer (&t->dp_shapes, g_array_unref);
  g_clear_pointer (&t->dp_expert, g_array_unref);
  for (guint s = 0; s < G_N_ELEMENTS (t->issue); s++)
    g_clear_pointer (&t->issue[s], g_array_unref);
  g_clear_pointer (&t->reasons, g_ptr_array_unref);
  g_free (t);
}
