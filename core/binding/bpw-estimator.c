/* bpw-estimator.c — evaluating a mapping from the cached templates, allocation-free
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-estimator"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-estimator-private.h"
#include "bpw-dist-work-private.h"
#include "bpw-facts.h"
#include "bpw-i18n.h"
#include "bpw-plan-private.h"
#include "bpw-stage-split.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
/* Stage groups: first, last, and the middle stages alike in their layers and in how many
 * of them are of the second kind (MoE, or windowed). Each group has a stage, so there are
 * at most pp; contiguous automatic splits give a handful (middle stages of two or three
 * sizes, each at most 4 kinds), interleaved chunks a few more, an explicit split at most
 * BPW_PARALLEL_MAX_STAGE_LAYERS. Pipelines deeper than this many stages whose groups do
 * not fit take them from the heap. */
#define MAX_GROUPS (BPW_PARALLEL_MAX_STAGE_LAYERS + 2)

struct _BpwEstimator
{
  BpwModelSpec   spec;       /* shallow copy: strings borrowed from the caller's spec */
  BpwScenario    scenario;   /* shallow copy */
  BpwBlueprint  *blueprint;  /* owned copy */
  GHashTable    *templates;  /* BpwTemplateKey -> BpwTemplate */
  BpwPrecision   precision;
  double         model_flops;
  double         layer_model_flops[BPW_N_LAYER_TYPES];
  BpwStageWeights split_weights;  /* what the balanced pipeline split weighs */
  double         capacity;
  double         host_capacity;
  gboolean       has_host;
};

BpwEstimator *
bpw_estimator_new (const BpwModelSpec *spec,
                   const BpwScenario  *scenario,
                   const BpwBlueprint *blueprint,
                   GError            **error)
{
  g_autoptr(BpwEstimator) est = g_new0 (BpwEstimator, 1);
  BpwParallel single;
  BpwFacts facts;
  BpwCostRates rates;
  int hbm, host;

  est->spec = *spec;
  est->scenario = *scenario;
  est->blueprint = bpw_blueprint_copy (blueprint);
  est->templates = g_hash_table_new_full (bpw_template_key_hash, bpw_template_key_equal,
                                          NULL, (GDestroyNotify) bpw_template_free);
  est->precision = bpw_precision_from_dtype (scenario->dtype);
  if (!bpw_cost_rates_init (&rates, est->blueprint, est->precision, error))
    return NULL;

  /* Model FLOPs per step do not depend on the mapping: micro-batches × FLOPs per
   * micro-batch is the global batch's work. */
  bpw_parallel_init_defaults (&single);
  if (!bpw_facts_compute_analytic (spec, scenario, &single, &facts, error))
    return NULL;
  est->model_flops = bpw_u128_to_double (facts.flops_model);
  for (guint l = 0; l < BPW_N_LAYER_TYPES; l++)
    est->layer_model_flops[l] = bpw_u128_to_double (facts.flops_model_by_layer_type[l]);
  bpw_stage_weights_from_facts (&est->split_weights, &facts);
  bpw_facts_clear (&facts);

  hbm = bpw_blueprint_first_memory (est->blueprint, BPW_MEMORY_DEVICE);
  est->capacity = est->blueprint->memory[hbm].capacity.value *
                  (est->blueprint->memory[hbm].instances.set
                   ? est->blueprint->memory[hbm].instances.value : 1.0);
  host = bpw_blueprint_first_memory (est->blueprint, BPW_MEMORY_HOST);
  est->has_host = host >= 0;
  est->host_capacity = host >= 0 && est->blueprint->memory[host].capacity.set
                       ? est->blueprint->memory[host].capacity.value : 0;
  return g_steal_pointer (&est);
}

void
bpw_estimator_free (BpwEstimator *est)
{
  if (est == NULL)
    return;
  g_clear_pointer (&est->templates, g_hash_table_unref);
  g_clear_pointer (&est->blueprint, bpw_blueprint_free);
  g_free (est);
}

guint
bpw_estimator_n_templates (const BpwEstimator *est)
{
  return g_hash_table_size (est->templates);
}

void
bpw_estimator_drop_templates (BpwEstimator *est)
{
  g_hash_table_remove_all (est->templates);
}

/* The doubles of BpwStageTotals, in order, up to n_layers: combined linearly. */
#define N_LINEAR (G_STRUCT_OFFSET (BpwStageTotals, n_layers) / sizeof (double))

/* A stage's blocks: n_a of BLOCK_A and n_b of BLOCK_B when the template binds kinds, else
 * n_a of the mean BLOCK (n_b is then 0). */
typedef struct
{
  double n_a, n_b;
  guint  a_part;
} StageBlocks;

/* Rank @stage's blocks are its chunks' runs (virtual stages c·pp + stage), as the
 * distribution places them. */
static StageBlocks
stage_blocks (const BpwTemplate *t, const BpwModelSpec *spec, const BpwStageSplit *split,
              gint64 stage)
{
  gint64 a = 0, b = 0;

  for (gint64 c = 0; c < split->chunks; c++)
    {
      gint64 k = c * split->pp + stage, n_a, n_b;

      bpw_template_count_kinds (t, spec, bpw_stage_split_virtual_first (split, k),
                                bpw_stage_split_virtual (split, k), &n_a, &n_b);
      a += n_a, b += n_b;
    }
  return (StageBlocks) { (double) a, (double) b,
                         t->by_kind ? BPW_PART_BLOCK_A : BPW_PART_BLOCK };
}

/* n_a x the kind-A part of @per_part plus n_b x its kind-B part. */
static double
blocks_sum (const StageBlocks *sb, const double *per_part)
{
  return sb->n_a * per_part[sb->a_part]
         + (sb->n_b > 0 ? sb->n_b * per_part[BPW_PART_BLOCK_B] : 0.0);
}

/* The larger of the parts the stage holds (one block's temporaries or live tensors). */
static double
blocks_max (const StageBlocks *sb, const double *per_part)
{
  double v = sb->n_a > 0 || sb->n_b == 0 ? per_part[sb->a_part] : 0.0;

  return sb->n_b > 0 ? MAX (v, per_part[BPW_PART_BLOCK_B]) : v;
}

static void
totals_add (BpwStageTotals *dst, double a, const BpwStageTotals *src)
{
  double *d = (double *) dst;
  const double *s = (const double *) src;

  for (gsize i = 0; i < N_LINEAR; i++)
    d[i] += a * s[i];
}

static void
cost_transfer (const BpwBlueprint *bp, const BpwMapping *m, const BpwPlanTransfer *src,
               double scale, BpwStageTotals *out)
{
  BpwPlanTransfer tr = *src;
  const BpwTier *tier;

  tr.tier = m->tier[tr.group];
  if (tr.tier < 0 || (guint) tr.tier >= bp->n_tiers)
    return;
  tier = &bp->tiers[tr.tier];
  _bpw_plan_price_transfer (bp, m, tr.tier, &tr);
  tr.exposed_s = bpw_plan_transfer_exposed (&tr, tier, m->tp_overlap);
  bpw_stage_totals_add_transfer (tier, &tr, scale, out);
}

/* The stage's DP buckets: gradients reduced (or reduce-scattered), weights gathered. */
static void
cost_dp (const BpwBlueprint *bp, const BpwMapping *m, const BpwTemplate *t,
         const StageBlocks *sb, gboolean first, gboolean last, gint64 micro_batches,
         BpwStageTotals *out)
{
  for (guint i = 0; i < t->dp_shapes->len; i++)
    {
      BpwPlanTransfer tr = g_array_index (t->dp_shapes, BpwPlanTransfer, i);
      gboolean expert = g_array_index (t->dp_expert, gboolean, i);
      const double *b = t->dp_bytes[tr.kind == BPW_COLLECTIVE_ALL_GATHER][expert];

      /* ZeRO-3 gathers the weights for every micro-batch's forward and backward. */
      if (tr.phase == BPW_PHASE_FORWARD)
        tr.count = tr.count / BPW_TEMPLATE_MICRO_BATCHES * (double) micro_batches;
      tr.bytes = blocks_sum (sb, b) + (first ? b[BPW_PART_BEFORE] : 0) +
                 (last ? b[BPW_PART_AFTER] : 0);
      cost_transfer (bp, m, &tr, 1.0, out);
    }
}

typedef struct
{
  double weights, gradients, optimizer, stored, kv, temporaries, communication;
} StageState;

/* Device bytes of stage @s (and host bytes into @host). */
static double
stage_memory (const BpwEstimator *est, const BpwTemplate *t, const BpwMapping *m,
              gint64 s, gint64 pp, gint64 n_layers, const StageBlocks *sb,
              gint64 micro_batches, double *host, double largest[BPW_N_TENSOR_KINDS])
{
  const BpwBlueprint *bp = est->blueprint;
  gboolean first = s == 0, last = s == pp - 1;
  double live = blocks_max (sb, t->live);
  StageState st = {
    .weights = blocks_sum (sb, t->weights),
    .gradients = blocks_sum (sb, t->gradients),
    .optimizer = blocks_sum (sb, t->optimizer),
    .stored = blocks_sum (sb, t->stored),
    .kv = blocks_sum (sb, t->kv) * (double) micro_batches,
    .temporaries = t->train ? blocks_max (sb, t->temporaries) : 0,  /* bpw-plan-memory.c */
    .communication = blocks_max (sb, t->communication),
  };
  gint64 flight = _bpw_dist_work_in_flight (est->scenario.phase, m->parallel.schedule,
                                            micro_batches, pp, s);
  double acts;

  for (guint p = BPW_PART_BEFORE; p <= BPW_PART_AFTER; p += 2)
    if ((p == BPW_PART_BEFORE && first) || (p == BPW_PART_AFTER && last))
      {
        st.weights += t->weights[p];
        st.gradients += t->gradients[p];
        st.optimizer += t->optimizer[p];
        st.stored += t->stored[p];
        st.temporaries = MAX (st.temporaries, t->temporaries[p]);
        st.communication = MAX (st.communication, t->communication[p]);
      }
  /* A stage's own sends: activations forward unless it is the last, gradients back (in
   * training) unless it is the first. The last stage of a serving pipeline sends none. */
  if (pp > 1 && !last && t->has_pp_send[0])
    st.communication = MAX (st.communication, t->pp_send[0].bytes);
  if (pp > 1 && !first && t->train && t->has_pp_send[1])
    st.communication = MAX (st.communication, t->pp_send[1].bytes);

  if (t->train)
    {
      acts = st.stored * _bpw_plan_stored_factor (&m->parallel, micro_batches, s, flight);
      if (t->key.recompute != BPW_RECOMPUTE_NONE)
        acts += live;
    }
  else
    acts = live;  /* one micro-batch at a time (bpw-plan-memory.c) */
  acts += t->cp_kv_buffer;
  if (last)
    acts += t->logits;

  n_layers = MAX (n_layers, 1);
  if (t->on_chip)
    _bpw_plan_largest_kinds (largest, st.weights, st.gradients, st.optimizer, acts, st.kv,
                             st.temporaries, st.communication);
  {
    double w = _bpw_plan_offload (bp, m, BPW_TENSOR_WEIGHT, st.weights, n_layers, host);
    double g = _bpw_plan_offload (bp, m, BPW_TENSOR_GRADIENT, st.gradients, n_layers, host);
    double o = _bpw_plan_offload (bp, m, BPW_TENSOR_OPTIMIZER_STATE, st.optimizer, n_layers,
                                  host);
    double a = _bpw_plan_offload (bp, m, BPW_TENSOR_ACTIVATION, acts, n_layers, host);
    double kv = _bpw_plan_offload (bp, m, BPW_TENSOR_KV_CACHE, st.kv, n_layers, host);
    double forward_backward = w + g + o + a + kv + st.temporaries + st.communication;
    double scratch = 0;

    /* The optimizer step, as the plan bounds it (bpw-plan-memory.c). */
    if (!t->train)
      return forward_backward;
    if (_bpw_plan_traffic_level (bp, m, BPW_TENSOR_OPTIMIZER_STATE) != BPW_TRAFFIC_HOST)
      scratch = st.weights * t->stack_memory.scratch_per_weight_byte;
    return MAX (forward_backward,
                _bpw_plan_optimizer_step_bytes (&t->stack_memory, w, g, o, kv, scratch,
                                                st.communication));
  }
}

BpwTemplate *
_bpw_estimator_lookup_template (BpwEstimator     *est,
                                const BpwMapping *m,
                                GError          **error)
{
  BpwTemplateKey key;
  BpwTemplate *t;

  bpw_template_key_init (&key, m, &est->scenario);
  t = g_hash_table_lookup (est->templates, &key);
  if (t != NULL)
    return t;
  t = bpw_template_new (&key, &est->spec, &est->scenario, est->blueprint, m, error);
  if (t != NULL)
    g_hash_table_insert (est->templates, &t->key, t);
  return t;
}

gboolean
bpw_estimator_evaluate (BpwEstimator     *est,
                        const BpwMapping *mapping,
                        BpwEvaluation    *out,
                        GPtrArray        *reasons,
                        GError          **error)
{
  const BpwBlueprint *bp = est->blueprint;
  BpwStageTotals stack_groups[MAX_GROUPS], xfer[BPW_N_PARTS], pp_fwd, pp_bwd;
  double stack_b[MAX_GROUPS];
  g_autofree BpwStageTotals *heap_groups = NULL;
  g_autofree double *heap_b = NULL;
  BpwStageTotals *groups = stack_groups;
  double *group_b = stack_b;
  BpwScenario s = est->scenario;
  BpwMapping m = *mapping;  /* shallow: only tiers change, the name is never freed */
  const BpwParallel *p = &m.parallel;
  BpwStepContext ctx;
  BpwTemplate *t;
  BpwStageSplit split;
  gint64 micro_batches, n_groups = 0, pp = p->pp;
  gboolean tiers_ok;
  double tokens, largest[BPW_N_TENSOR_KINDS] = { 0 };

  if (mapping->micro_batch > 0)
    s.micro_batch = mapping->micro_batch;
  if (mapping->recompute >= 0)
    s.recompute = mapping->recompute;
  if (!bpw_scenario_validate (&s, p, &est->spec, error) ||
      !bpw_stage_split_resolve_weighed (&split, p, &est->spec, &est->split_weights, error))
    return FALSE;
  t = _bpw_estimator_lookup_template (est, &m, error);
  if (t == NULL)
    return FALSE;

  bpw_plan_resolve_tiers (bp, p, mapping->tier, m.tier);
  tiers_ok = bpw_plan_check_tiers (bp, p, m.tier, reasons);
  tiers_ok = bpw_plan_check_algorithms (bp, mapping, reasons) && tiers_ok;
  micro_batches = bpw_scenario_micro_batches (&s, p);
  tokens = s.phase == BPW_WORKLOAD_DECODE ? (double) s.global_batch
                                          : (double) s.global_batch * (double) s.seq;
  bpw_step_context_init (&ctx, bp, &s, p, m.dp_overlap, est->precision, micro_batches,
                         est->model_flops, tokens);
  memcpy (ctx.layer_model_flops, est->layer_model_flops, sizeof ctx.layer_model_flops);
  ctx.capacity = est->capacity;
  ctx.legal = tiers_ok && t->reasons->len == 0;
  if (reasons != NULL)
    for (guint i = 0; i < t->reasons->len; i++)
      g_ptr_array_add (reasons, g_strdup (t->reasons->pdata[i]));

  /* Transfers re-costed on this mapping's tiers and algorithms. */
  memset (xfer, 0, sizeof xfer);
  memset (&pp_fwd, 0, sizeof pp_fwd);
  memset (&pp_bwd, 0, sizeof pp_bwd);
  if (bpw_parallel_devices (p) > 1 && bp->n_tiers > 0)
    {
      double crossings = p->schedule == BPW_SCHEDULE_INTERLEAVED ? (double) p->interleave : 1.0;

      for (guint part = 0; part < BPW_N_PARTS; part++)
        for (guint i = 0; i < t->transfers[part]->len; i++)
          cost_transfer (bp, &m, &g_array_index (t->transfers[part], BpwPlanTransfer, i), 1.0,
                         &xfer[part]);
      /* Interleaving sends each micro-batch across a stage boundary once per chunk. */
      if (pp > 1 && t->has_pp_send[0])
        cost_transfer (bp, &m, &t->pp_send[0], crossings, &pp_fwd);
      if (pp > 1 && t->has_pp_send[1])
        cost_transfer (bp, &m, &t->pp_send[1], crossings, &pp_bwd);
    }

  if (pp > MAX_GROUPS)
    {
      groups = heap_groups = g_new (BpwStageTotals, pp);
      group_b = heap_b = g_new (double, pp);
    }
  /* Stage groups: identical stages are assembled once, their layers split as in the
   * distribution. */
  for (gint64 st = 0; st < pp; st++)
    {
      gint64 n_layers = bpw_stage_split_rank (&split, st);
      gboolean first = st == 0, last = st == pp - 1;
      double host = 0, memory;
      BpwStageTotals *g = NULL;
      StageBlocks sb = stage_blocks (t, &est->spec, &split, st);

      memory = stage_memory (est, t, &m, st, pp, n_layers, &sb, micro_batches, &host,
                             largest);
      if (memory > est->capacity || (host > 0 && !est->has_host) ||
          (host > 0 && est->host_capacity > 0 && host > est->host_capacity))
        {
          ctx.legal = FALSE;
          ctx.fits = ctx.fits && memory <= est->capacity;
          if (reasons != NULL && memory > est->capacity)
            g_ptr_array_add (reasons, g_strdup_printf (
              _("Pipeline stage %" PRId64 " needs %.2f GiB of device memory per device, "
              "but “%s” has %.2f GiB: %.2f GiB short. Shard with ZeRO, recompute "
              "activations, offload, or use more devices."), st, memory / GIB, bp->name,
              est->capacity / GIB, (memory - est->capacity) / GIB));
          else if (reasons != NULL)
            g_ptr_array_add (reasons, g_strdup_printf (
              _("Pipeline stage %" PRId64 " offloads %.2f GiB per device to host "
              "memory, which “%s” cannot hold."), st, host / GIB, bp->name));
        }

      for (gint64 i = 0; !first && !last && g == NULL && i < n_groups; i++)
        if (groups[i].n_layers == n_layers && groups[i].first_stage != 0 &&
            groups[i].first_stage != pp - 1 && group_b[i] == sb.n_b)
          g = &groups[i];
      if (g != NULL)
        {
          g->copies++;
          if (memory > g->memory)
            g->memory = memory, g->memory_stage = st;
          continue;
        }

      g_assert (n_groups < MAX (pp, MAX_GROUPS));
      group_b[n_groups] = sb.n_b;
      g = &groups[n_groups++];
      memset (g, 0, sizeof *g);
      g->n_layers = n_layers;
      g->ranks = p->tp * p->cp * p->dp;
      g->copies = 1;
      g->first_stage = st;
      g->memory_stage = st;
      totals_add (g, sb.n_a, &t->tasks[sb.a_part]);
      totals_add (g, sb.n_a, &xfer[sb.a_part]);
      if (sb.n_b > 0)
        {
          totals_add (g, sb.n_b, &t->tasks[BPW_PART_BLOCK_B]);
          totals_add (g, sb.n_b, &xfer[BPW_PART_BLOCK_B]);
        }
      if (first)
        {
          totals_add (g, 1.0, &t->tasks[BPW_PART_BEFORE]);
          totals_add (g, 1.0, &xfer[BPW_PART_BEFORE]);
        }
      if (last)
        {
          totals_add (g, 1.0, &t->tasks[BPW_PART_AFTER]);
          totals_add (g, 1.0, &xfer[BPW_PART_AFTER]);
        }
      _bpw_template_replay_issue (t, &est->spec, &split, st, first, last, g);
      cost_dp (bp, &m, t, &sb, first, last, micro_batches, g);
      if (!last)
        totals_add (g, 1.0, &pp_fwd);
      if (!first && t->train)
        totals_add (g, 1.0, &pp_bwd);
      g->memory = memory;
    }

  if (t->on_chip && !bpw_plan_check_on_chip (bp, &m, largest, reasons))
    ctx.legal = FALSE;
  bpw_evaluation_combine (&ctx, groups, n_groups, out);
  return bpw_evaluation_check_finite (out, bp->name, error);
}
