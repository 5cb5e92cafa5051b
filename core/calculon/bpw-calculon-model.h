/* bpw-calculon-model.h — Calculon's own performance model of an LLM execution, for comparison
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The workbench prices plans with its own model (binding, estimate, simulation). To compare
 * it with the closest public peer on equal terms, and to check the search against the peer's
 * exhaustive results, this module computes what Calculon computes for one execution: its
 * formulas, in its order of floating-point operations, so that every statistic equals
 * Calculon's to the last bit, its known quirks included (shared/docs/CALCULON.md §5).
 *
 * Formulas from Calculon (calculon-ai/calculon @ caa4b11: calculon/llm/llm.py c02c5e9,
 * calculon/llm/layers.py caa4b11, system.py, network.py, processor.py, memory.py), Apache
 * License 2.0; NOTICE: "Calculon - Co-design for large scale parallel applications /
 * Copyright 2022 Michael Isaev, Nic McDonald / All rights reserved." Changes: written in C
 * from the formulas; Python's int and float arithmetic is reproduced where the two differ
 * (exact integer sums, true and floor division); the debug logging is left out; Calculon's
 * assertions on an execution are located errors (bpw_calculon_execution_check()), and an
 * execution it would refuse with Llm.Error is "bad" with Calculon's message.
 */
#pragma once

#include "bpw-blueprint.h"
#include "bpw-model-spec.h"
#include "bpw-workload-io.h"

G_BEGIN_DECLS

/* Calculon's application: a stack of identical transformer blocks. */
typedef struct
{
  gint64 hidden, feedforward, seq_size, attn_heads, attn_size, num_blocks;
} BpwCalculonApp;

#define BPW_CALCULON_MAX_ROWS     16
#define BPW_CALCULON_MAX_NETWORKS 8

/* An efficiency curve: the first row, in descending threshold order, with size >= threshold. */
typedef struct
{
  guint  n_rows;
  double threshold[BPW_CALCULON_MAX_ROWS];   /* FLOPs or bytes, descending */
  double efficiency[BPW_CALCULON_MAX_ROWS];
} BpwCalculonCurve;

typedef enum
{
  BPW_CALCULON_OP_P2P,
  BPW_CALCULON_OP_REDUCE_SCATTER,
  BPW_CALCULON_OP_ALL_GATHER,
  BPW_CALCULON_OP_ALL_REDUCE,
  BPW_CALCULON_N_OPS
} BpwCalculonOp;

typedef struct
{
  double   bandwidth;         /* B/s */
  double   efficiency;
  double   latency;           /* s */
  double   processor_usage;
  gint64   size;
  gboolean must_be_filled;
  double   scalar[BPW_CALCULON_N_OPS];
  double   offset[BPW_CALCULON_N_OPS];
} BpwCalculonNetwork;

/* Calculon's system, for one datatype. */
typedef struct
{
  double             matrix_flops, vector_flops;   /* FLOP/s */
  BpwCalculonCurve   matrix, vector;               /* by the FLOPs of one operation */
  double             mem1_capacity, mem1_bandwidth;  /* B, B/s */
  BpwCalculonCurve   mem1;                         /* by the bytes one operation touches */
  double             mem2_capacity, mem2_bandwidth;  /* 0, 0 without a second tier */
  BpwCalculonCurve   mem2;
  gboolean           roofline;                     /* processing_mode; else no_overlap */
  guint              n_networks;
  BpwCalculonNetwork networks[BPW_CALCULON_MAX_NETWORKS];
} BpwCalculonSystem;

/* Calculon's statistics (Llm.get_stats_fields()), in its order: per block and micro-batch,
 * per step, per processor. SI units (FLOPs, bytes, seconds, bytes/s). */
#define BPW_CALCULON_STATS(X) \
  X (block_fw_flops) X (block_fw_flops_time) X (block_fw_mem_accessed) X (block_fw_mem_time) \
  X (block_fw_time) X (baseblock_fw_tp_time) X (edgeblock_fw_tp_time) \
  X (baseblock_fw_tp_time_exposed) X (edgeblock_fw_tp_time_exposed) X (block_re_flops) \
  X (block_re_flops_time) X (block_re_mem_accessed) X (block_re_mem_time) X (block_re_time) \
  X (baseblock_recomm_time) X (edgeblock_recomm_time) X (baseblock_recomm_time_exposed) \
  X (edgeblock_recomm_time_exposed) X (block_agrad_flops) X (block_agrad_flops_time) \
  X (block_agrad_mem_accessed) X (block_agrad_mem_time) X (block_agrad_time) \
  X (baseblock_agrad_tp_time) X (edgeblock_agrad_tp_time) X (baseblock_agrad_tp_time_exposed) \
  X (edgeblock_agrad_tp_time_exposed) X (block_wgrad_flops) X (block_wgrad_flops_time) \
  X (block_wgrad_mem_accessed) X (block_wgrad_mem_time) X (block_wgrad_time) \
  X (block_optim_flops) X (block_optim_flops_time) X (block_optim_mem_accessed) \
  X (block_optim_mem_time) X (block_optim_time) \
  X (baseblock_fw_tp_size) X (edgeblock_fw_tp_size) X (baseblock_bw_tp_size) \
  X (edgeblock_bw_tp_size) X (baseblock_recomm_size) X (edgeblock_recomm_size) \
  X (block_fw_pp_size) X (block_bw_pp_size) X (block_dp_size) X (tp_bw_overlap_req) \
  X (dp_bw_overlap_req_chunk) X (dp_bw_overlap_req_tail) \
  X (block_weight_space) X (block_act_working_space) X (block_act_storage_space) \
  X (block_act_checkpoint_size) X (block_weight_grad_space) \
  X (block_weight_grad_space_no_sharding) X (block_act_grad_space) X (block_optimizer_space) \
  X (weight_space_with_offload) X (act_space_with_offload) \
  X (act_checkpoint_size_with_offload) X (act_grad_space_with_offload) \
  X (weight_grad_space_with_offload) X (optimizer_space_with_offload) \
  X (weight_space) X (act_space) X (act_checkpoint_size) X (act_grad_space) \
  X (weight_grad_space) X (optimizer_space) \
  X (fw_time) X (bw_time) X (optim_step_time) X (recompute_time) X (recomm_link_time) \
  X (recomm_exposed_time) X (bubble_time) X (tp_comm_link_time) X (pp_comm_link_time) \
  X (dp_comm_link_time) X (tp_comm_exposed_time) X (pp_comm_exposed_time) \
  X (dp_comm_exposed_time) X (fw_offload_exposed_time) X (bw_offload_exposed_time) \
  X (total_time) X (act_offload_bw_req) X (weight_offload_bw_req) X (optim_offload_bw_req) \
  X (offload_mem_bw_req) X (proc_mem_tier1_cap_req) X (proc_mem_tier2_cap_req) \
  X (useful_flops) X (compute_efficiency) X (system_efficiency) X (total_efficiency) \
  X (sample_rate)

typedef struct
{
#define BPW_CALCULON_FIELD(name) double name;
  BPW_CALCULON_STATS (BPW_CALCULON_FIELD)
#undef BPW_CALCULON_FIELD
} BpwCalculonStats;

/* One layer's statistics (Layer.get_stats_json(), `calculon llm -l`), name aside. */
#define BPW_CALCULON_LAYER_STATS(X) \
  X (inputs_size) X (outputs_size) X (fw_flops) X (fw_mem_accessed) \
  X (fw_arithmetic_intensity) X (fw_processing_time) X (baseblock_fw_tp_comm_tile) \
  X (edgeblock_fw_tp_comm_tile) X (baseblock_fw_tp_comm_size) X (edgeblock_fw_tp_comm_size) \
  X (baseblock_fw_tp_comm_time) X (edgeblock_fw_tp_comm_time) \
  X (baseblock_fw_tp_comm_time_exposed) X (edgeblock_fw_tp_comm_time_exposed) \
  X (agrad_flops) X (agrad_mem_accessed) X (agrad_arithmetic_intensity) \
  X (agrad_processing_time) X (baseblock_bw_tp_comm_tile) X (edgeblock_bw_tp_comm_tile) \
  X (baseblock_bw_tp_comm_size) X (edgeblock_bw_tp_comm_size) X (baseblock_bw_tp_comm_time) \
  X (edgeblock_bw_tp_comm_time) X (baseblock_bw_tp_comm_time_exposed) \
  X (edgeblock_bw_tp_comm_time_exposed) X (wgrad_flops) X (wgrad_mem_accessed) \
  X (wgrad_arithmetic_intensity) X (wgrad_processing_time) X (baseblock_recomm_tile) \
  X (edgeblock_recomm_tile) X (baseblock_recomm_size) X (edgeblock_recomm_size) \
  X (baseblock_recomm_time) X (edgeblock_recomm_time) X (baseblock_recomm_time_exposed) \
  X (edgeblock_recomm_time_exposed) X (optim_flops) X (optim_mem_accessed) \
  X (optim_arithmetic_intensity) X (optim_processing_time) X (weight) X (activation) \
  X (weight_grad) X (activation_grad) X (optimizer)

#define BPW_CALCULON_MAX_LAYERS 32

typedef struct
{
  const char *name;   /* static: Calculon's layer name */
#define BPW_CALCULON_FIELD(name) double name;
  BPW_CALCULON_LAYER_STATS (BPW_CALCULON_FIELD)
#undef BPW_CALCULON_FIELD
} BpwCalculonLayerStats;

typedef struct
{
  const char *name;
  gsize       offset;   /* of the double in BpwCalculonStats / BpwCalculonLayerStats */
} BpwCalculonField;

const BpwCalculonField *bpw_calculon_stats_fields       (guint *n_fields);
const BpwCalculonField *bpw_calculon_layer_stats_fields (guint *n_fields);

/* Calculon's application for @spec at sequence length @seq. Fails (BPW_ERROR_INVALID_INPUT)
 * for what its block cannot express: gated (SwiGLU) MLPs, mixtures of experts, and grouped
 * KV heads other than one (multi-query, an execution option). */
gboolean bpw_calculon_app_from_spec (const BpwModelSpec *spec,
                                     gint64              seq,
                                     BpwCalculonApp     *app,
                                     GError            **error);

/* Calculon's system for @datatype from @bp: the first matrix and vector engines, the device
 * and host memories (mem1, mem2) and the tiers, as bpw-blueprint-calculon.c imports a
 * Calculon system file (so that file gives back exactly its own numbers). Fails
 * (BPW_ERROR_UNSUPPORTED, naming what is missing) when @bp lacks what Calculon's model
 * reads: an engine's peak in @datatype, a step (not interpolated) efficiency table, device
 * memory, or a tier's op factors. Below a table's smallest threshold the efficiency is
 * that threshold's (Calculon's tables end at 0). */
gboolean bpw_calculon_system_from_blueprint (const BpwBlueprint *bp,
                                             BpwDType            datatype,
                                             BpwCalculonSystem  *system,
                                             GError            **error);

/* Calculon's assertions on an execution (Llm.Execution, Llm.compile(); those that a search
 * never violates), as BPW_ERROR_INVALID_INPUT naming the field: TP dividing hidden,
 * feedforward and heads, micro-batch × sequence divisible by TP with sequence parallelism,
 * network tiers that exist, a second memory tier for offloading. */
gboolean bpw_calculon_execution_check (const BpwCalculonApp       *app,
                                       const BpwCalculonSystem    *system,
                                       const BpwCalculonExecution *exe,
                                       GError                    **error);

/* Runs Calculon's model on a checked execution. TRUE fills @stats (and @layers, nullable,
 * with *n_layers entries, at most BPW_CALCULON_MAX_LAYERS). FALSE: Calculon refuses the
 * execution (Llm.Error: a tier too small or not filled, interleaving, offloading with
 * fewer than 3 blocks per processor, memory capacity); @reason (nullable) gets its message,
 * owned. */
gboolean bpw_calculon_model_run (const BpwCalculonApp       *app,
                                 const BpwCalculonSystem    *system,
                                 const BpwCalculonExecution *exe,
                                 BpwCalculonStats           *stats,
                                 BpwCalculonLayerStats      *layers,
                                 guint                      *n_layers,
                                 char                      **reason);

/* Calculon's stats as a JSON object (its key order); with @layers, a "layers" list too.
 * Non-finite values are null. */
char    *bpw_calculon_stats_to_json (const BpwCalculonStats      *stats,
                                     const BpwCalculonLayerStats *layers,
                                     guint                        n_layers);

G_END_DECLS
