/* bpw-mapping.h — the decisions that bind distributed work to a blueprint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A mapping is a plain value: the parallel decomposition and micro-batch (which shape the
 * distributed work), and everything binding decides on top of it: which interconnect tier
 * carries each parallel group, fusion, tiling, engine assignment, buffer placement,
 * collective algorithms and overlap. "Automatic" fields (-1, 0) are resolved by binding
 * against the blueprint, and the plan records what they resolved to.
 */
#pragma once

#include "bpw-types.h"
#include "bpw-scenario.h"
#include "bpw-blueprint.h"
#include "bpw-json-doc.h"
#include "bpw-workload-io.h"
#include "bpw-precision-policy.h"

G_BEGIN_DECLS

#define BPW_MAPPING_FORMAT_VERSION 1
#define BPW_MAPPING_MAX_TIERS      8

/* Placement on the blueprint's host level (its first memory level of kind host), whatever
 * index that level has: offload stated without a blueprint, as Calculon's offload flags
 * are. Binding resolves it; a blueprint without a host level makes the plan illegal. */
#define BPW_PLACEMENT_HOST         (-2)

/* Fusion decisions (flags). Each one is a named transformation when it applies. */
typedef enum
{
  /* FlashAttention-style: scores, softmax and dropout stay on chip; the s^2 score,
   * probability and mask tensors never reach device memory and are never stored. */
  BPW_FUSION_ATTENTION       = 1 << 0,
  /* bias + activation (GeLU / SwiGLU) in the producing matmul's epilogue. */
  BPW_FUSION_BIAS_ACTIVATION = 1 << 1,
  /* norm + dropout + residual in one pass over the activations. */
  BPW_FUSION_NORM_RESIDUAL   = 1 << 2,
  /* all optimizer updates of a stage in one multi-tensor kernel (one launch). */
  BPW_FUSION_OPTIMIZER       = 1 << 3,
} BpwFusion;
#define BPW_N_FUSIONS 4
/* The fusion list left to the blueprint (the default): binding resolves it with
 * bpw_mapping_resolve_fusion(). Not a flag: a list that is set replaces it whole. */
#define BPW_FUSION_AUTOMATIC (1u << 31)
/* Bias + activation and optimizer: every production stack fuses these two. */
#define BPW_FUSION_BASE      (BPW_FUSION_BIAS_ACTIVATION | BPW_FUSION_OPTIMIZER)

/* Overlap of TP communication with the adjacent matmul (Calculon's tensor_par_overlap). */
typedef enum
{
  BPW_TP_OVERLAP_NONE,
  BPW_TP_OVERLAP_RING,  /* matmul split into TP tiles, communication hidden behind them */
  BPW_TP_OVERLAP_PIPE,  /* as ring, one communication tile stays exposed */
} BpwTpOverlap;

/* Tiling of matmuls to on-chip memory. Automatic picks, per matmul, the largest square
 * output tile whose working set (A and B panels plus the C tile) fits the innermost
 * software-managed level the matrix engine reaches; HBM traffic follows from the tile. */
typedef struct
{
  gboolean automatic;
  gint64   m, n, k;      /* explicit tile when !automatic */
} BpwTiling;

typedef struct
{
  char              *name;           /* owned, nullable */
  BpwParallel        parallel;
  gint64             micro_batch;    /* 0: the scenario's */
  gint               recompute;      /* BpwRecompute, or -1: the scenario's */

  /* Interconnect tier index per parallel group; -1: innermost tier that holds it. */
  gint               tier[BPW_N_GROUPS];
  /* Collective algorithm per tier; 0: the cheapest one the tier offers. */
  BpwCollectiveAlgo  algorithm[BPW_MAPPING_MAX_TIERS];

  guint              fusion;         /* BpwFusion flags */
  BpwTiling          tiling;
  /* Engine index per primitive; -1: matrix engine for matmuls, vector engine otherwise. */
  gint               engine[BPW_N_PRIMITIVES];
  /* Memory level index per tensor kind; -1: device memory (HBM). A host level is offload. */
  gint               placement[BPW_N_TENSOR_KINDS];

  gboolean           dp_overlap;     /* DP reduction behind the backward, ZeRO 1/2 gather
                                        * behind the next step's forward */
  BpwTpOverlap       tp_overlap;
  /* Sequence parallelism: do not keep the all-gathered input for backward, gather it
   * again there (Calculon's seq_par_ag_redo). */
  gboolean           sp_gather_again;
  /* Precision and 2:4 sparsity per matmul class (bpw-precision-policy.h); unset: every
   * matmul in the scenario's dtype. */
  BpwPrecisionPolicy precision;
} BpwMapping;

/* Defaults: the parallel defaults (everything 1, 1F1B), scenario micro-batch and
 * recompute, automatic tiers and algorithms, automatic fusion (BPW_FUSION_AUTOMATIC: see
 * bpw_mapping_resolve_fusion()), automatic tiling, default engines and placement, DP
 * overlap on. */
void         bpw_mapping_init_defaults (BpwMapping       *mapping);
void         bpw_mapping_copy          (BpwMapping       *dest,
                                        const BpwMapping *src);
void         bpw_mapping_clear         (BpwMapping       *mapping);
gboolean     bpw_mapping_equal         (const BpwMapping *a,
                                        const BpwMapping *b);

/* The scenario as this mapping runs it: micro-batch and recompute overridden. */
void         bpw_mapping_apply_to_scenario (const BpwMapping *mapping,
                                            BpwScenario      *scenario);

/* Native JSON (format "bpw-mapping", data/schemas/bpw-mapping.schema.json). Errors name
 * file, line, column and JSON path. @warnings (nullable, element-type utf8, owned strings)
 * receives unknown fields with their location. @mapping must be initialised; on success it
 * is replaced by the file's mapping (fields the file leaves out take the defaults of
 * bpw_mapping_init_defaults()), on failure it is left as it was. */
gboolean     bpw_mapping_load_data     (const char  *filename,
                                        const char  *data,
                                        gssize       length,
                                        BpwMapping  *mapping,
                                        GPtrArray   *warnings,
                                        GError     **error);
gboolean     bpw_mapping_load          (const char  *path,
                                        BpwMapping  *mapping,
                                        GPtrArray   *warnings,
                                        GError     **error);
/* As bpw_mapping_load(), but fields the file leaves out keep the values @mapping has:
 * layers a file over a base (defaults, a Calculon execution). Lists (fusion, collective
 * algorithms) replace the base's as a whole; objects (parallel, tiers, engines,
 * placement, overlap) member by member. On failure @mapping is left as it was. */
gboolean     bpw_mapping_load_over     (const char  *path,
                                        BpwMapping  *mapping,
                                        GPtrArray   *warnings,
                                        GError     **error);
/* As bpw_mapping_load_over(), for a file used with @blueprint: tiers, engines and memory
 * levels may be named, and what the file names or indexes must exist in @blueprint (the
 * message lists its names). With @blueprint NULL (not known yet) a name keeps the value
 * @mapping has; read the file again with the blueprint, or bpw_mapping_check_file_refs(). */
gboolean     bpw_mapping_load_over_for (const char         *path,
                                        const BpwBlueprint *blueprint,
                                        BpwMapping         *mapping,
                                        GPtrArray          *warnings,
                                        GError            **error);
/* Reads a mapping object at JSON path @path of @doc over @mapping (as load_over: absent
 * fields keep their values); "format" and "version" are not expected here. Used for the
 * "mapping" object of a study candidate. With @blueprint (nullable), tiers, engines and
 * memory levels may also be given by name and indices must exist in it; without one they
 * must be indices. On failure @mapping is left as it was. */
gboolean     bpw_mapping_read_object   (BpwJsonDoc         *doc,
                                        JsonObject         *object,
                                        const char         *path,
                                        const BpwBlueprint *blueprint,
                                        BpwMapping         *mapping,
                                        GPtrArray          *warnings,
                                        GError            **error);
/* Reads the mapping file @path again against @blueprint: a tier, engine or memory level
 * (a placement) it names by an index @blueprint does not have is an error located at that
 * member of the file. The file must have been read without a blueprint already. */
gboolean     bpw_mapping_check_file_refs (const char         *path,
                                          const BpwBlueprint *blueprint,
                                          GError            **error);
/* Whether the integer "micro_batch" of the mapping file @path splits @scenario's global
 * batch over @parallel's dp into whole micro-batches; if not, an error located at that
 * member of the file. A file without one, or with "auto", passes. */
gboolean     bpw_mapping_check_micro_batch_file (const char        *path,
                                                 const BpwScenario *scenario,
                                                 const BpwParallel *parallel,
                                                 GError           **error);
/* Whether the pipeline split the mapping file @path states ("parallel.pp_layers" or
 * "pp_lighter", read into @parallel already) places @spec's layers (bpw_stage_split_check());
 * if not, the rule's sentence located at that member of the file. */
gboolean     bpw_mapping_check_pp_layers_file (const char         *path,
                                               const BpwModelSpec *spec,
                                               const BpwParallel  *parallel,
                                               GError            **error);

/* A precision policy alone, as the value of a mapping's "precision" member ("scenario" or
 * an object of operation classes), read over @policy; errors located in @filename. On
 * failure @policy is left as it was. */
gboolean     bpw_mapping_read_precision_data (const char         *filename,
                                              const char         *data,
                                              gssize              length,
                                              BpwPrecisionPolicy *policy,
                                              GPtrArray          *warnings,
                                              GError            **error);
/* The whole file, every field written ("auto" for automatic ones), so that loading it
 * gives a mapping bpw_mapping_equal() to @mapping. */
char        *bpw_mapping_to_json       (const BpwMapping *mapping);

/* The mapping Calculon's execution @exec stands for: @parallel copied, micro-batch and
 * recompute from @scenario, tiers tp/pp/dp from tensor/pipeline/data_par_net (EP rides
 * on the DP tier, as Calculon has no EP), fused bias+activation iff fused_activation,
 * fused optimizer, no fused attention (Calculon materialises the score matrix),
 * automatic tiling, engines and algorithms, DP overlap from data_par_overlap, TP overlap
 * from tensor_par_overlap, sp_gather_again from seq_par_ag_redo, and the offload flags as
 * BPW_PLACEMENT_HOST for weights (weight_offload), activations (activations_offload) and
 * optimizer state, master weights and gradients (optimizer_offload: "optimizer state and
 * weight grads in tier 2"). Fails (BPW_ERROR_INVALID_INPUT) only for a network index a
 * mapping cannot hold (>= BPW_MAPPING_MAX_TIERS). @mapping must be initialised; it is
 * replaced on success, left as it was on failure. */
gboolean     bpw_mapping_from_calculon_execution (const BpwCalculonExecution *exec,
                                                  const BpwScenario          *scenario,
                                                  const BpwParallel          *parallel,
                                                  BpwMapping                 *mapping,
                                                  GError                    **error);

/* The fusion flags @fusion stands for on @blueprint: @fusion itself unless it is
 * BPW_FUSION_AUTOMATIC. The automatic list is the blueprint's stack's "fusion" list when
 * it states one; otherwise bias + activation and optimizer, plus attention (flash: the
 * score tensor stays on chip and is recomputed in backward) when the stack says "flash",
 * or, with no stack saying otherwise, when bpw_blueprint_runs_flash_attention(). */
guint        bpw_mapping_resolve_fusion (guint               fusion,
                                         const BpwBlueprint *blueprint);

const char  *bpw_fusion_to_string      (BpwFusion    fusion);   /* one flag */
gboolean     bpw_fusion_from_string    (const char  *str,
                                        BpwFusion   *out);
const char  *bpw_tp_overlap_to_string  (BpwTpOverlap overlap);
gboolean     bpw_tp_overlap_from_string (const char *str,
                                         BpwTpOverlap *out);

G_END_DECLS
