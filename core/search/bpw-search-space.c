/* bpw-search-space.c — enumerating and indexing the legal mapping space
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-search-space"

#include "config.h"

#include "bpw-i18n.h"
#include "bpw-search-space.h"

#include <string.h>

#include "bpw-error.h"
#include "bpw-plan.h"

#define MAX_SPACE (G_GUINT64_CONSTANT (1) << 62)

/* The rules of the full space: what limits.rules NULL stands for. */
static const BpwSearchRules full_space_rules = {
  .name = "full",
  .id = 0,
  .zero_stages = 0xf,
  .gpipe = TRUE,
};

static const char * const fusion_set_names[BPW_SEARCH_N_FUSION_SETS] = {
  "none", "default", "attention", "all",
};

static const char * const offload_names[BPW_SEARCH_N_OFFLOADS] = {
  "none", "weights", "optimizer", "both",
};

const char *
bpw_search_fusion_set_to_string (BpwSearchFusionSet set)
{
  g_return_val_if_fail (set < BPW_SEARCH_N_FUSION_SETS, "?");
  return fusion_set_names[set];
}

gboolean
bpw_search_fusion_set_from_string (const char         *str,
                                   BpwSearchFusionSet *out)
{
  for (guint i = 0; i < BPW_SEARCH_N_FUSION_SETS; i++)
    if (g_strcmp0 (str, fusion_set_names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

guint
bpw_search_fusion_set_flags (BpwSearchFusionSet set)
{
  switch (set)
    {
    case BPW_SEARCH_FUSION_NONE:
      return 0;
    case BPW_SEARCH_FUSION_DEFAULT:
      return BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER;
    case BPW_SEARCH_FUSION_ATTENTION:
      return BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER | BPW_FUSION_ATTENTION;
    case BPW_SEARCH_FUSION_ALL:
    case BPW_SEARCH_N_FUSION_SETS:
    default:
      return BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER | BPW_FUSION_ATTENTION |
             BPW_FUSION_NORM_RESIDUAL;
    }
}

const char *
bpw_search_offload_to_string (BpwSearchOffload offload)
{
  g_return_val_if_fail (offload < BPW_SEARCH_N_OFFLOADS, "?");
  return offload_names[offload];
}

gboolean
bpw_search_offload_from_string (const char       *str,
                                BpwSearchOffload *out)
{
  for (guint i = 0; i < BPW_SEARCH_N_OFFLOADS; i++)
    if (g_strcmp0 (str, offload_names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

void
bpw_search_limits_init (BpwSearchLimits *limits)
{
  *limits = (BpwSearchLimits) {
    .zero = -1, .sp = -1, .recompute = -1, .schedule = -1, .tp_overlap = -1,
    .dp_overlap = -1, .act_offload = -1, .algorithms = TRUE, .cp = 1,
  };
}

/* Divisors of @n in ascending order. */
static GArray *
divisors (gint64 n)
{
  GArray *low = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *high = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (gint64 d = 1; d <= n / d; d++)
    if (n % d == 0)
      {
        gint64 q = n / d;

        g_array_append_val (low, d);
        if (q != d)
          g_array_prepend_val (high, q);
      }
  g_array_append_vals (low, high->data, high->len);
  g_array_unref (high);
  return low;
}

static gboolean
host_memory_usable (const BpwBlueprint *bp)
{
  int host = bpw_blueprint_first_memory (bp, BPW_MEMORY_HOST);

  /* A host level of capacity 0 says "never offload". */
  return host >= 0 && (!bp->memory[host].capacity.set || bp->memory[host].capacity.value > 0);
}

static void
group_algorithms (const BpwSearchSpace *space, BpwSearchGroup *g)
{
  const BpwBlueprint *bp = space->blueprint;
  BpwParallel p;
  gint resolved[BPW_N_GROUPS];
  gint64 degree[BPW_N_GROUPS] = { g->tp, g->pp, g->dp, g->ep, g->cp };
  gboolean carries[BPW_MAPPING_MAX_TIERS] = { FALSE };

  g->n_alg_tiers = 0;
  if (!space->limits.algorithms)
    return;
  bpw_parallel_init_defaults (&p);
  p.tp = g->tp, p.pp = g->pp, p.dp = g->dp, p.ep = g->ep;
  p.cp = g->cp, p.cp_algorithm = g->cp_algorithm;
  bpw_plan_resolve_tiers (bp, &p, space->base.tier, resolved);
  for (guint k = 0; k < BPW_N_GROUPS; k++)
    if (degree[k] > 1 && resolved[k] >= 0 && (guint) resolved[k] < bp->n_tiers &&
        resolved[k] < BPW_MAPPING_MAX_TIERS)
      carries[resolved[k]] = TRUE;

  for (guint t = 0; t < MIN (bp->n_tiers, BPW_MAPPING_MAX_TIERS); t++)
    {
      guint i = g->n_alg_tiers, c = 1;

      if (!carries[t])
        continue;
      g->alg_tier[i] = t;
      g->alg_flag[i][0] = 0;
      for (guint a = 0; a < BPW_N_COLLECTIVE_ALGOS; a++)
        if (bp->tiers[t].collectives & (1u << a))
          g->alg_flag[i][c++] = 1u << a;
      g->alg_choices[i] = c;
      g->n_alg_tiers++;
    }
}

/* Network tiers: the tier of each group of degree above 1 is a choice of every plan. */
static void
group_networks (const BpwSearchSpace *space, BpwSearchGroup *g)
{
  gint64 degree[BPW_N_GROUPS] = { g->tp, g->pp, g->dp, g->ep, g->cp };
  static const guint8 enumerated[] = { BPW_GROUP_TP, BPW_GROUP_PP, BPW_GROUP_DP };

  g->n_net_groups = 0;
  g->n_tiers = MIN (space->blueprint->n_tiers, BPW_MAPPING_MAX_TIERS);
  g->n_networks = 1;
  if (!space->rules->network_tiers || g->n_tiers == 0)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (enumerated); i++)
    if (degree[enumerated[i]] > 1)
      {
        g->net_group[g->n_net_groups++] = enumerated[i];
        g->n_networks *= g->n_tiers;
      }
}

static void
node_schedules (const BpwSearchSpace *space, const BpwSearchGroup *g, BpwSearchNode *n)
{
  const BpwSearchLimits *l = &space->limits;
  gboolean train = space->scenario.phase == BPW_WORKLOAD_TRAIN;
  gint64 per_stage = space->spec.layers / g->pp;

  n->n_plain = 0;
  if (l->schedule < 0 || l->schedule == BPW_SCHEDULE_1F1B)
    n->plain[n->n_plain++] = BPW_SCHEDULE_1F1B;
  /* GPipe differs from 1F1B only in what it holds, and only where there is a pipeline
   * and a backward pass to wait for. */
  if ((l->schedule < 0 && train && g->pp > 1 && space->rules->gpipe) ||
      l->schedule == BPW_SCHEDULE_GPIPE)
    n->plain[n->n_plain++] = BPW_SCHEDULE_GPIPE;
  n->n_schedules = n->n_plain;
  if ((l->schedule < 0 || l->schedule == BPW_SCHEDULE_INTERLEAVED) && g->pp >= 2 &&
      n->micro_batches % g->pp == 0)
    for (gint64 v = 2; v <= per_stage; v++)
      if (bpw_search_space_chunks_fit (space->spec.layers, g->pp, v) &&
          (l->interleave == 0 || l->interleave == v))
        n->n_schedules++;
}

gboolean
bpw_search_space_chunks_fit (gint64 layers,
                              gint64 pp,
                              gint64 v)
{
  gint64 short_of = (pp * v - layers % (pp * v)) % (pp * v);

  /* Chunks that divide the layers, or fall one or two layers short of it, as Llama 3
   * 405B's 126 over 16 × 2: the automatic split balances those (bpw-stage-split.h). */
  return pp * v <= layers && short_of <= 2;
}

static gboolean
checked_mul (guint64 a, guint64 b, guint64 *out)
{
  return !__builtin_mul_overflow (a, b, out) && *out <= MAX_SPACE;
}

/* Appends the node if the scenario accepts it; FALSE only on overflow. */
static gboolean
add_node (BpwSearchSpace *space, BpwSearchGroup *g, BpwSearchNode *n)
{
  const BpwSearchLimits *l = &space->limits;
  gboolean train = space->scenario.phase == BPW_WORKLOAD_TRAIN;
  BpwScenario s = space->scenario;
  BpwParallel p;
  guint64 count;

  s.micro_batch = n->micro_batch;
  s.recompute = n->recompute;
  bpw_parallel_init_defaults (&p);
  p.tp = g->tp, p.pp = g->pp, p.dp = g->dp, p.ep = g->ep;
  p.cp = g->cp, p.cp_algorithm = g->cp_algorithm;
  p.sp = n->sp;
  p.zero = g->zero;
  if (!bpw_scenario_validate (&s, &p, &space->spec, NULL))
    return TRUE;
  n->micro_batches = bpw_scenario_micro_batches (&s, &p);
  node_schedules (space, g, n);
  if (n->n_schedules == 0)
    return TRUE;

  n->n_tp_overlaps = 0;
  if (l->tp_overlap >= 0)
    n->tp_overlap[n->n_tp_overlaps++] = l->tp_overlap;
  else if (g->tp > 1)
    {
      n->tp_overlap[n->n_tp_overlaps++] = BPW_TP_OVERLAP_RING;
      n->tp_overlap[n->n_tp_overlaps++] = BPW_TP_OVERLAP_PIPE;
      n->tp_overlap[n->n_tp_overlaps++] = BPW_TP_OVERLAP_NONE;
    }
  else
    n->tp_overlap[n->n_tp_overlaps++] = BPW_TP_OVERLAP_NONE;
  n->n_dp_overlaps = 0;
  if (l->dp_overlap >= 0)
    n->dp_overlap[n->n_dp_overlaps++] = l->dp_overlap != 0;
  else if (train && g->dp > 1)
    {
      n->dp_overlap[n->n_dp_overlaps++] = TRUE;
      n->dp_overlap[n->n_dp_overlaps++] = FALSE;
    }
  else
    n->dp_overlap[n->n_dp_overlaps++] = space->base.dp_overlap != 0;

  n->n_algorithms = 1;
  for (guint i = 0; i < g->n_alg_tiers; i++)
    n->n_algorithms *= g->alg_choices[i];
  n->n_networks = g->n_networks;

  if (!checked_mul (n->n_schedules, n->n_tp_overlaps, &count) ||
      !checked_mul (count, n->n_dp_overlaps, &count) ||
      !checked_mul (count, n->n_algorithms, &count) ||
      !checked_mul (count, n->n_networks, &count) ||
      space->size > MAX_SPACE - count)
    return FALSE;
  n->first = space->size;
  n->count = count;
  space->size += count;
  g->count += count;
  g_array_append_val (space->nodes, *n);
  return TRUE;
}

/* The node loops of one group: SP, fusion set, recompute, micro-batch. */
static gboolean
add_group_nodes (BpwSearchSpace *space, BpwSearchGroup *g)
{
  const BpwSearchLimits *l = &space->limits;
  const BpwSearchRules *rules = space->rules;
  const BpwScenario *sc = &space->scenario;
  gboolean train = sc->phase == BPW_WORKLOAD_TRAIN;
  g_autoptr(GArray) mbs = divisors (sc->global_batch / g->dp);

  for (gint sp = 0; sp <= 1; sp++)
    {
      if (l->sp >= 0 ? sp != l->sp : (sp && (g->tp == 1 || sc->phase == BPW_WORKLOAD_DECODE)))
        continue;
      for (guint f = 0; f < BPW_SEARCH_N_FUSION_SETS; f++)
        {
          if (l->fusion_sets != 0 ? !(l->fusion_sets & (1u << f))
                                  : (rules->fusion_sets != 0 && !(rules->fusion_sets & (1u << f))))
            continue;
          for (gint r = BPW_RECOMPUTE_NONE; r <= BPW_RECOMPUTE_FULL; r++)
            {
              guint run = space->nodes->len;

              if (l->recompute >= 0 ? r != l->recompute : (!train && r != BPW_RECOMPUTE_NONE))
                continue;
              /* Activations are offloaded only where they are stored. */
              if (g->act_offload && r == BPW_RECOMPUTE_FULL)
                continue;

              for (guint i = 0; i < mbs->len; i++)
                {
                  BpwSearchNode n = {
                    .group = space->groups->len, .run = run, .sp = sp, .fusion = f,
                    .recompute = r,
                    .micro_batch = g_array_index (mbs, gint64, i),
                  };

                  if (l->micro_batch > 0 ? n.micro_batch != l->micro_batch
                                         : l->max_micro_batch > 0
                                           && n.micro_batch > l->max_micro_batch
                                           && n.micro_batch != sc->global_batch / g->dp)
                    continue;
                  if (!add_node (space, g, &n))
                    return FALSE;
                }
            }
        }
    }
  return TRUE;
}

static gboolean
add_groups (BpwSearchSpace *space, gint64 tp, gint64 cp, gint64 pp, gboolean host)
{
  const BpwSearchLimits *l = &space->limits;
  const BpwSearchRules *rules = space->rules;
  const BpwModelSpec *spec = &space->spec;
  gboolean train = space->scenario.phase == BPW_WORKLOAD_TRAIN;
  gint64 dp = space->devices / (tp * cp * pp);
  gboolean may_offload = spec->layers / pp >= rules->offload_min_layers;
  gboolean acts = rules->activation_offload && host && train && may_offload &&
                  l->act_offload != 0;
  g_autoptr(GArray) eps = NULL;

  if ((l->dp > 0 && dp != l->dp) || space->scenario.global_batch % dp != 0)
    return TRUE;
  if (spec->experts > 0)
    eps = divisors (dp);
  else
    {
      gint64 one = 1;

      eps = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_array_append_val (eps, one);
    }

  for (guint e = 0; e < eps->len; e++)
    {
      gint64 ep = g_array_index (eps, gint64, e);

      if ((l->ep > 0 && ep != l->ep) || (spec->experts > 0 && spec->experts % ep != 0))
        continue;
      for (gint z = 0; z <= 3; z++)
        for (int algo = 0; algo < (cp > 1 ? BPW_N_CP_ALGORITHMS : 1); algo++)
        {
          /* ZeRO 1 and 2 shard what only training has; without DP every stage is 0. */
          if (l->zero >= 0 ? z != l->zero
                           : (z > 0 && (dp == 1 || (!train && z != 3))))
            continue;
          if (!(rules->zero_stages & (1u << z)))
            continue;
          for (guint o = 0; o < BPW_SEARCH_N_OFFLOADS * 2; o++)
            {
              BpwSearchGroup g = {
                .tp = tp, .pp = pp, .dp = dp, .ep = ep, .zero = z,
                .cp = cp, .cp_algorithm = (BpwCpAlgorithm) algo,
                .offload = o % BPW_SEARCH_N_OFFLOADS, .act_offload = o >= BPW_SEARCH_N_OFFLOADS,
                .first_node = space->nodes->len, .first = space->size,
              };

              if ((g.act_offload && !acts) || (l->act_offload == 1 && !g.act_offload))
                continue;
              if (l->offloads != 0
                  ? !(l->offloads & (1u << g.offload))
                  : (g.offload != BPW_SEARCH_OFFLOAD_NONE &&
                     (!host || (!train && g.offload != BPW_SEARCH_OFFLOAD_WEIGHTS))))
                continue;
              if (g.offload != BPW_SEARCH_OFFLOAD_NONE && !may_offload)
                continue;
              group_algorithms (space, &g);
              group_networks (space, &g);
              if (!add_group_nodes (space, &g))
                return FALSE;
              g.n_nodes = space->nodes->len - g.first_node;
              if (g.n_nodes > 0)
                g_array_append_val (space->groups, g);
            }
        }
    }
  return TRUE;
}

static guint64
fnv (guint64 h, const void *data, gsize n)
{
  const guchar *p = data;

  for (gsize i = 0; i < n; i++)
    h = (h ^ p[i]) * G_GUINT64_CONSTANT (1099511628211);
  return h;
}

#define HASH(h, v) G_STMT_START { __typeof__ (v) _v = (v); h = fnv (h, &_v, sizeof _v); } G_STMT_END

static char *
space_fingerprint (const BpwSearchSpace *space)
{
  const BpwModelSpec *m = &space->spec;
  const BpwScenario *s = &space->scenario;
  const BpwBlueprint *bp = space->blueprint;
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);

  h = fnv (h, "bpw-search-space/1", 18);
  h = fnv (h, m->name != NULL ? m->name : "", m->name != NULL ? strlen (m->name) : 0);
  HASH (h, m->vocab); HASH (h, m->hidden); HASH (h, m->layers); HASH (h, m->heads);
  HASH (h, m->kv_heads); HASH (h, m->head_dim); HASH (h, m->ffn); HASH (h, m->experts);
  HASH (h, m->top_k); HASH (h, (gint) m->ffn_kind); HASH (h, (gint) m->param_dtype);
  /* Only a windowed model hashes its window, so the keys of every other model stay. */
  if (m->window > 0)
    {
      HASH (h, m->window); HASH (h, m->window_first);
    }
  /* Likewise latent attention, the MoE layout beyond experts and top_k, and MTP. */
  if (m->kv_lora_rank > 0)
    {
      HASH (h, m->q_lora_rank); HASH (h, m->kv_lora_rank); HASH (h, m->qk_nope_head_dim);
      HASH (h, m->qk_rope_head_dim); HASH (h, m->v_head_dim);
    }
  if (m->experts > 0 && (m->shared_experts > 0 || m->moe_ffn > 0 || m->moe_first > 0 ||
                         m->moe_every > 1 || m->expert_groups > 0 || m->router_bias))
    {
      HASH (h, m->shared_experts); HASH (h, m->moe_ffn); HASH (h, m->moe_first);
      HASH (h, m->moe_every); HASH (h, m->expert_groups); HASH (h, m->topk_groups);
      HASH (h, (gint) m->router_bias);
    }
  if (m->mtp_modules > 0)
    HASH (h, m->mtp_modules);
  /* A vision encoder and the images a sequence carries: a Llava model and its text-only
   * decoder must not share cached results. Hashed field by field (the struct has padding). */
  if (m->vision.layers > 0)
    {
      const BpwVisionSpec *v = &m->vision;

      HASH (h, v->image_size); HASH (h, v->patch_size); HASH (h, v->channels);
      HASH (h, v->hidden); HASH (h, v->layers); HASH (h, v->heads); HASH (h, v->ffn);
      HASH (h, (gint) v->norm); HASH (h, (gint) v->quick_gelu); HASH (h, (gint) v->class_token);
      HASH (h, (gint) v->patch_bias); HASH (h, (gint) v->pre_norm); HASH (h, (gint) v->post_norm);
      HASH (h, v->feature_layer); HASH (h, (gint) v->keep_class); HASH (h, (gint) v->projector);
      HASH (h, bpw_scenario_images (s, m)); HASH (h, (gint) s->train_vision);
    }
  /* Llama 3.2 Vision: the tiled encoder and which layers attend the images. */
  if (m->n_cross_layers > 0)
    {
      const BpwVisionSpec *v = &m->vision;

      HASH (h, v->tiles); HASH (h, v->aspect_ratios); HASH (h, v->global_layers);
      HASH (h, v->n_intermediate);
      for (gint64 i = 0; i < v->n_intermediate && i < BPW_VISION_MAX_INTERMEDIATE; i++)
        HASH (h, v->intermediate[i]);
      HASH (h, m->n_cross_layers); HASH (h, m->embedding_extra);
      for (gint64 i = 0; i < m->n_cross_layers && i < BPW_MODEL_MAX_CROSS_LAYERS; i++)
        HASH (h, m->cross_layers[i]);
    }
  HASH (h, (gint) s->phase); HASH (h, s->global_batch); HASH (h, s->seq);
  HASH (h, s->context); HASH (h, (gint) s->dtype); HASH (h, (gint) s->optimizer);
  h = fnv (h, bp->name, strlen (bp->name));
  HASH (h, bp->n_engines); HASH (h, bp->n_memory); HASH (h, bp->n_tiers);
  for (guint i = 0; i < bp->n_memory; i++)
    HASH (h, bp->memory[i].capacity.value);
  for (guint i = 0; i < bp->n_tiers; i++)
    {
      HASH (h, bp->tiers[i].size.value);
      HASH (h, bp->tiers[i].bandwidth.value);
      HASH (h, bp->tiers[i].collectives);
    }
  for (guint i = 0; i < bp->n_engines; i++)
    HASH (h, bp->engines[i].peak[BPW_PRECISION_BF16].value);
  HASH (h, space->devices); HASH (h, (gint) space->rules->id);
  h = fnv (h, space->base.tier, sizeof space->base.tier);
  h = fnv (h, space->base.engine, sizeof space->base.engine);
  h = fnv (h, space->base.placement, sizeof space->base.placement);
  for (guint i = 0; i < space->groups->len; i++)
    {
      const BpwSearchGroup *g = &g_array_index (space->groups, BpwSearchGroup, i);

      HASH (h, g->tp); HASH (h, g->pp); HASH (h, g->dp); HASH (h, g->ep);
      HASH (h, g->zero); HASH (h, (gint) g->offload); HASH (h, g->count);
      HASH (h, g->act_offload); HASH (h, g->n_networks);
      /* Only where used, so that spaces without context parallelism keep their print. */
      if (g->cp != 1)
        {
          HASH (h, g->cp); HASH (h, (gint) g->cp_algorithm);
        }
    }
  for (guint i = 0; i < space->nodes->len; i++)
    {
      const BpwSearchNode *n = &g_array_index (space->nodes, BpwSearchNode, i);

      HASH (h, n->sp); HASH (h, (gint) n->fusion); HASH (h, (gint) n->recompute);
      HASH (h, n->micro_batch); HASH (h, n->count);
    }
  HASH (h, space->size);
  return g_strdup_printf ("%016" G_GINT64_MODIFIER "x", h);
}

static gboolean
tp_divides (const BpwModelSpec *m, gint64 tp)
{
  return m->heads % tp == 0 && (m->kv_heads % tp == 0 || tp % m->kv_heads == 0) &&
         m->ffn % tp == 0 && bpw_model_spec_expert_ffn (m) % tp == 0 && m->vocab % tp == 0;
}

BpwSearchSpace *
bpw_search_space_new (const BpwModelSpec    *spec,
                      const BpwScenario     *scenario,
                      const BpwBlueprint    *blueprint,
                      const BpwMapping      *base,
                      gint64                 devices,
                      const BpwSearchLimits *limits,
                      GError               **error)
{
  const BpwSearchRules *rules = limits->rules != NULL ? limits->rules : &full_space_rules;
  g_autoptr(BpwSearchSpace) space = NULL;
  g_autoptr(GArray) tps = NULL;
  gboolean host;

  if (devices < 1 || devices > (G_GINT64_CONSTANT (1) << 24))
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("devices: expected an integer from 1 to 16777216, got %" PRId64),
                   devices);
      return NULL;
    }

  if (limits->act_offload == 1 && !rules->activation_offload)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("the %s search space does not offload stored activations"), rules->name);
      return NULL;
    }
  if (rules->check != NULL && !rules->check (scenario, error))
    return NULL;

  space = g_new0 (BpwSearchSpace, 1);
  bpw_model_spec_copy (&space->spec, spec);
  bpw_scenario_copy (&space->scenario, scenario);
  space->blueprint = bpw_blueprint_copy (blueprint);
  bpw_mapping_init_defaults (&space->base);
  if (base != NULL)
    bpw_mapping_copy (&space->base, base);
  space->devices = devices;
  space->limits = *limits;
  space->rules = rules;
  if (rules->network_tiers)
    space->limits.algorithms = FALSE;
  space->groups = g_array_new (FALSE, FALSE, sizeof (BpwSearchGroup));
  space->nodes = g_array_new (FALSE, FALSE, sizeof (BpwSearchNode));
  host = host_memory_usable (blueprint);
  if (limits->act_offload == 1 && !host)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("“%s” has no host memory to offload activations to"), blueprint->name);
      return NULL;
    }

  tps = divisors (devices);
  for (guint i = 0; i < tps->len; i++)
    {
      gint64 tp = g_array_index (tps, gint64, i);
      g_autoptr(GArray) cps = NULL;

      if ((limits->tp > 0 && tp != limits->tp) || !tp_divides (spec, tp) ||
          (rules->tp_divides_hidden && spec->hidden % tp != 0))
        continue;
      cps = divisors (devices / tp);
      for (guint c = 0; c < cps->len; c++)
        {
          gint64 cp = g_array_index (cps, gint64, c);
          g_autoptr(GArray) pps = NULL;

          /* Context parallelism splits each sequence into 2 cp balanced chunks; decode
           * has no sequence to split. */
          if ((limits->cp > 0 && cp != limits->cp) ||
              (limits->cp == 0 && limits->max_cp > 0 && cp > limits->max_cp) ||
              (cp > 1 && (scenario->phase == BPW_WORKLOAD_DECODE || scenario->seq % (2 * cp) != 0)))
            continue;
          pps = divisors (devices / (tp * cp));
          for (guint j = 0; j < pps->len && g_array_index (pps, gint64, j) <= spec->layers; j++)
            {
              gint64 pp = g_array_index (pps, gint64, j);

              if ((limits->pp > 0 && pp != limits->pp) ||
                  (rules->pp_divides_layers && spec->layers % pp != 0))
                continue;
              if (!add_groups (space, tp, cp, pp, host))
                {
                  g_set_error (error, BPW_ERROR, BPW_ERROR_OVERFLOW,
                               _("the mapping space of %" PRId64 " devices exceeds 2^62 "
                               "plans; fix some choices (--tp, --pp, --micro-batch ...)"),
                               devices);
                  return NULL;
                }
            }
        }
    }

  if (space->size == 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_ILLEGAL_PLAN,
                   _("no decomposition of %s runs on %" PRId64 " devices: the global "
                   "batch (%" PRId64 ") must split over data parallelism and the "
                   "model's heads, MLP width and vocabulary over tensor parallelism (and the "
                   "fixed choices must be among them)"), spec->name, devices,
                   scenario->global_batch);
      return NULL;
    }
  space->fingerprint = space_fingerprint (space);
  return g_steal_pointer (&space);
}

void
bpw_search_space_free (BpwSearchSpace *space)
{
  if (space == NULL)
    return;
  bpw_model_spec_clear (&space->spec);
  bpw_scenario_clear (&space->scenario);
  g_clear_pointer (&space->blueprint, bpw_blueprint_free);
  bpw_mapping_clear (&space->base);
  g_clear_pointer (&space->groups, g_array_unref);
  g_clear_pointer (&space->nodes, g_array_unref);
  g_free (space->fingerprint);
  g_free (space);
}

guint64
bpw_search_space_size (const BpwSearchSpace *space)
{
  return space->size;
}

