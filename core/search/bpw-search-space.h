/* bpw-search-space.h — the legal mapping space of a scenario on N devices, indexed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The space is enumerated in one fixed order, outermost first, and every plan in it has a
 * global index, so that shards and ranks can split it exactly:
 *
 *   group  TP   divisors of N (the scenario's rules: heads, KV heads, MLP and expert
 *               widths, vocabulary, sequence for SP)
 *          PP   divisors of N/TP, at most the layers; DP = N/(TP·PP), dividing the batch
 *          EP   divisors of DP that divide the experts (mixture-of-experts models only)
 *          ZeRO 0–3 for training with DP > 1 (inference: 0, and 3 which shards weights)
 *          offload  none, weights, optimizer (state, master weights, gradients), both —
 *               when the blueprint has host memory
 *   node   SP (TP > 1, not decode), fusion set, recompute (training), micro-batch
 *               (divisors of the local batch). One node is one shape of the estimator's
 *               templates.
 *   leaf   schedule (1F1B, GPipe for training, interleaved by ascending v where v divides
 *               layers/PP and the micro-batches are a multiple of PP), TP overlap (ring,
 *               pipe, none), DP overlap (on, off; training with DP > 1), and the collective
 *               algorithm of each tier that carries a parallel group (auto, then each one
 *               the tier offers, in flag order).
 *
 * Another cost model's space narrows and widens this by its rules (limits.rules,
 * bpw-search-rules.h): TP may have to divide the hidden size and PP the layers, ZeRO may
 * have fewer stages, the fusion sets tried and GPipe may be fewer, offload may need a
 * number of layers per stage; stored activations may be offloaded independently of the
 * rest (not under full recompute); and instead of collective algorithms the tier of each
 * of TP, PP and DP (those of degree above 1) may be enumerated per plan, TP outermost, in
 * the innermost leaf position. Calculon's rules (core/calculon) are the example.
 *
 * Within a leaf the values that can only do better come first (1F1B before GPipe, ring
 * overlap, DP overlap on, automatic algorithms), so that search meets the plan that
 * bounds a leaf before the leaf, and ties in step time go to the simpler plan. Every node
 * passes bpw_scenario_validate(); what binding may still refuse (capacity, tiers) makes a
 * plan illegal, not absent. Shard i of n is [⌊i·S/n⌋, ⌊(i+1)·S/n⌋).
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-mapping.h"
#include "bpw-model-spec.h"
#include "bpw-scenario.h"
#include "bpw-search-rules.h"

G_BEGIN_DECLS

/* The fixed list of fusion decisions search tries. */
typedef enum
{
  BPW_SEARCH_FUSION_NONE,       /* nothing fused */
  BPW_SEARCH_FUSION_DEFAULT,    /* bias + activation, optimizer (the mapping default) */
  BPW_SEARCH_FUSION_ATTENTION,  /* default + FlashAttention-style attention */
  BPW_SEARCH_FUSION_ALL,        /* attention + norm/dropout/residual too */
  BPW_SEARCH_N_FUSION_SETS
} BpwSearchFusionSet;

typedef enum
{
  BPW_SEARCH_OFFLOAD_NONE,
  BPW_SEARCH_OFFLOAD_WEIGHTS,    /* weights on host memory, streamed per layer */
  BPW_SEARCH_OFFLOAD_OPTIMIZER,  /* optimizer state, master weights and gradients */
  BPW_SEARCH_OFFLOAD_BOTH,
  BPW_SEARCH_N_OFFLOADS
} BpwSearchOffload;

/* Restrictions of the space: a fixed value, or free (enumerated). */
typedef struct
{
  gint64    tp, pp, dp, ep;   /* 0: free */
  gint64    cp;               /* 0: free (every cp with seq a multiple of 2 cp, both
                               * algorithms); bpw_search_limits_init() fixes it to 1 */
  gint64    max_cp;           /* with cp free: none above this; 0: no cap */
  gint64    micro_batch;      /* 0: free */
  gint64    max_micro_batch;  /* with micro_batch free: none above this many sequences
                               * but the whole local batch (one micro-batch a step);
                               * 0: no cap */
  gint64    interleave;       /* 0: free (interleaved schedule only) */
  gint      zero;             /* -1: free */
  gint      sp;               /* -1: free; 0 off, 1 on */
  gint      recompute;        /* -1: free; else BpwRecompute */
  gint      schedule;         /* -1: free; else BpwSchedule */
  gint      tp_overlap;       /* -1: free; else BpwTpOverlap */
  gint      dp_overlap;       /* -1: free; else 0 or 1 */
  guint     fusion_sets;      /* 1 << BpwSearchFusionSet; 0: all */
  guint     offloads;         /* 1 << BpwSearchOffload; 0: all that host memory allows */
  gint      act_offload;      /* -1: free (tried both ways where the rules offload
                               * activations); 0: stored activations on the device; 1: on
                               * host memory (only where the rules offload them) */
  gboolean  algorithms;       /* collective algorithm per tier; FALSE: the base mapping's */
  const BpwSearchRules *rules; /* another model's space (see above; NULL: the full one);
                                * network tiers imply no algorithms */
} BpwSearchLimits;

typedef struct
{
  gint64            tp, pp, dp, ep;
  gint64            cp;
  BpwCpAlgorithm    cp_algorithm;
  gint              zero;
  BpwSearchOffload  offload;
  gboolean          act_offload;       /* stored activations on host (rules.activation_offload) */
  /* Groups (BpwGroupKind) whose tier is enumerated, outermost first, over n_tiers tiers
   * each: n_networks = n_tiers ^ n_net_groups choices (rules.network_tiers; else 1). */
  guint             n_net_groups, n_tiers, n_networks;
  guint8            net_group[BPW_N_GROUPS];
  /* Tiers whose collective algorithm is enumerated, with their choices (0 = auto). */
  guint             n_alg_tiers;
  guint8            alg_tier[BPW_MAPPING_MAX_TIERS];
  guint8            alg_choices[BPW_MAPPING_MAX_TIERS];
  guint8            alg_flag[BPW_MAPPING_MAX_TIERS][BPW_N_COLLECTIVE_ALGOS + 1];
  guint             first_node, n_nodes;
  guint64           first, count;      /* global indices of its plans */
} BpwSearchGroup;

typedef struct
{
  guint               group;
  guint               run;             /* first node of its run: same group, SP, fusion,
                                        * recompute; micro-batches ascending */
  gboolean            sp;
  BpwSearchFusionSet  fusion;
  BpwRecompute        recompute;
  gint64              micro_batch;
  gint64              micro_batches;   /* per pipeline per step */
  guint8              n_plain;         /* schedules before the interleaved ones */
  guint8              plain[2];        /* BpwSchedule */
  guint8              n_tp_overlaps, n_dp_overlaps;
  guint8              tp_overlap[3];   /* BpwTpOverlap, best first */
  guint8              dp_overlap[2];
  guint               n_schedules;
  guint               n_algorithms;
  guint               n_networks;      /* the group's */
  guint64             first, count;
} BpwSearchNode;

/* Read-only once built. */
typedef struct
{
  BpwModelSpec     spec;
  BpwScenario      scenario;
  BpwBlueprint    *blueprint;    /* owned copy */
  BpwMapping       base;         /* what the space does not enumerate (tiling, engines, tiers) */
  gint64           devices;
  BpwSearchLimits  limits;
  const BpwSearchRules *rules;   /* limits.rules, or the full space's: never NULL */
  GArray          *groups;       /* BpwSearchGroup */
  GArray          *nodes;        /* BpwSearchNode */
  guint64          size;
  char            *fingerprint;  /* hex: same problem, limits and enumeration */
} BpwSearchSpace;

/* The choices of one plan inside its node. */
typedef struct
{
  guint  schedule;      /* index into the node's schedules */
  guint  tp_overlap, dp_overlap, algorithm;
  guint  network;       /* tier choice (rules.network_tiers); 0 otherwise */
} BpwSearchLeaf;

void            bpw_search_limits_init     (BpwSearchLimits       *limits);

/* @base (nullable: bpw_mapping_init_defaults()) supplies every mapping field the space
 * does not enumerate; its parallel, micro-batch and recompute are ignored (see @limits).
 * Fails (BPW_ERROR_INVALID_INPUT) for a device count below 1, (BPW_ERROR_OVERFLOW) for a
 * space beyond 2^62 plans, and (BPW_ERROR_ILLEGAL_PLAN) when no configuration of the
 * scenario runs on @devices devices, with the reason. */
BpwSearchSpace *bpw_search_space_new       (const BpwModelSpec    *spec,
                                            const BpwScenario     *scenario,
                                            const BpwBlueprint    *blueprint,
                                            const BpwMapping      *base,
                                            gint64                 devices,
                                            const BpwSearchLimits *limits,
                                            GError               **error);
void            bpw_search_space_free      (BpwSearchSpace        *space);

guint64         bpw_search_space_size      (const BpwSearchSpace  *space);
/* Index of the node holding plan @index (< size). */
guint           bpw_search_space_node_of   (const BpwSearchSpace  *space,
                                            guint64                index);
void            bpw_search_space_leaf      (const BpwSearchSpace  *space,
                                            guint                  node,
                                            guint64                offset,
                                            BpwSearchLeaf         *leaf);
guint64         bpw_search_space_leaf_offset (const BpwSearchSpace *space,
                                              guint                node,
                                              const BpwSearchLeaf *leaf);
/* Schedule @i of @node and its interleave (1 unless interleaved). */
BpwSchedule     bpw_search_space_schedule  (const BpwSearchSpace  *space,
                                            guint                  node,
                                            guint                  i,
                                            gint64                *interleave);
/* Fills @mapping (a shallow copy of the base: its name is not owned; do not clear it) with
 * the choices of @leaf in @node. The hot path. */
void            bpw_search_space_fill      (const BpwSearchSpace  *space,
                                            guint                  node,
                                            const BpwSearchLeaf   *leaf,
                                            BpwMapping            *mapping);
/* The plan at @index as an owned mapping named "search-INDEX" (@mapping is replaced). */
void            bpw_search_space_mapping   (const BpwSearchSpace  *space,
                                            guint64                index,
                                            BpwMapping            *mapping);

/* Shard @i of @n of a space of @size plans: [*begin, *end). */
void            bpw_search_shard_range     (guint64                size,
                                            guint64                i,
                                            guint64                n,
                                            guint64               *begin,
                                            guint64               *end);

const char     *bpw_search_fusion_set_to_string   (BpwSearchFusionSet set);
gboolean        bpw_search_fusion_set_from_string (const char         *str,
                                                   BpwSearchFusionSet *out);
guint           bpw_search_fusion_set_flags       (BpwSearchFusionSet set);
const char     *bpw_search_offload_to_string      (BpwSearchOffload   offload);
gboolean        bpw_search_offload_from_string    (const char         *str,
                                                   BpwSearchOffload   *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BpwSearchSpace, bpw_search_space_free)

/* Whether @v interleaved chunks per rank of @pp stages suit @layers in a search: they
 * divide them, or fall at most two short (the automatic split balances those). */
gboolean bpw_search_space_chunks_fit (gint64 layers,
                                      gint64 pp,
                                      gint64 v);

G_END_DECLS
