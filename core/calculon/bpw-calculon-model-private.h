/* bpw-calculon-model-private.h — the layers and block state of Calculon's model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One BpwCalculonLayer is one of Calculon's Layer objects (calculon/llm/layers.py), one
 * BpwCalculonLlm one Llm after compile(): the block's layers and every per-block and
 * per-step figure that llm.py keeps. The code follows Calculon's order of operations, so
 * that the doubles come out bit for bit; where Python keeps an exact integer, so does
 * BpwPyNum.
 */
#pragma once

#include "bpw-calculon-model.h"
#include "bpw-json-writer.h"

G_BEGIN_DECLS

/* A Python number: an exact integer until a float joins it (int + float is a float, the
 * integer correctly rounded first). Calculon's FLOP sums mix the two. */
typedef struct
{
  gboolean is_float;
  gint64   i;
  double   f;
} BpwPyNum;

static inline BpwPyNum
bpw_py_int (gint64 i)
{
  return (BpwPyNum) { FALSE, i, 0 };
}

static inline BpwPyNum
bpw_py_float (double f)
{
  return (BpwPyNum) { TRUE, 0, f };
}

static inline double
bpw_py_value (BpwPyNum n)
{
  return n.is_float ? n.f : (double) n.i;
}

/* *acc += x, as Python adds. */
static inline void
bpw_py_add (BpwPyNum *acc,
            BpwPyNum  x)
{
  if (!acc->is_float && !x.is_float)
    acc->i += x.i;
  else
    {
      acc->f = bpw_py_value (*acc) + bpw_py_value (x);
      acc->is_float = TRUE;
    }
}

typedef enum
{
  BPW_CALCULON_LINEAR,
  BPW_CALCULON_LINEAR_OVERLAPPED,
  BPW_CALCULON_BATCH_MATMUL,
  BPW_CALCULON_LAYER_NORM,
  BPW_CALCULON_DROPOUT,
  BPW_CALCULON_GELU,
  BPW_CALCULON_SOFTMAX,
  BPW_CALCULON_ELEMENTWISE,
  BPW_CALCULON_FORK,
  BPW_CALCULON_TP_COMM,
} BpwCalculonLayerKind;

typedef enum
{
  BPW_CALCULON_FW,
  BPW_CALCULON_AGRAD,
  BPW_CALCULON_WGRAD,
  BPW_CALCULON_OPTIM,
} BpwCalculonStage;

/* The keyword flags of Layer.__init__ that differ from their defaults. */
typedef enum
{
  BPW_CALCULON_RECOMPUTE         = 1 << 0,  /* needs_recompute=True */
  BPW_CALCULON_RECOMM            = 1 << 1,  /* needs_recomm=True */
  BPW_CALCULON_REUSED            = 1 << 2,  /* activation_reused=True */
  BPW_CALCULON_NO_ACT_STORED     = 1 << 3,  /* activation_stored=False */
  BPW_CALCULON_NO_OUTPUT_STORED  = 1 << 4,  /* output_stored=False */
} BpwCalculonLayerFlags;

typedef struct
{
  BpwCalculonLayerKind       kind;
  const char                *name;
  const BpwCalculonSystem   *sys;
  BpwPyNum                   fw_flops, agrad_flops, wgrad_flops;
  gint64                     inputs_size, output_size;
  gint64                     activation_space, activation_grads;
  gint64                     weight_space, weight_grads, optim_space;
  gint64                     optim_sharding_num_proc;
  gint64                     bytes_per_element;
  gboolean                   needs_recompute, needs_recomm;
  gboolean                   activation_reused, activation_stored, output_stored;
  /* LinearOverlapped and TPComm */
  BpwCalculonTpComm          comm_type;
  BpwCalculonTpOverlap       tp_overlap;
  const BpwCalculonNetwork  *net;
  gint64                     num_tiles, num_peers;
  gboolean                   conjugate;
  gint64                     comm_size;   /* TPComm */
  gint64                     num_users;   /* Fork */
  /* What LinearOverlapped.compute_processing_time() left behind: its
   * get_exposed_net_time() answers with it, whatever stage it is asked about. */
  double                     net_exposed_time;
} BpwCalculonLayer;

/* One block of Llm after compile() and _compute_block_stats(): what depends on TP, the
 * micro-batch, recompute, the TP comm type, overlap and tier, all-gather redo, fused
 * activation and sharding, and on nothing else of the execution, so that a search prices
 * it once for the many executions that share it. Names are llm.py's, without the
 * underscore. */
typedef struct
{
  gint64   bytes_per_element;
  gboolean sequence_par, pipeline_par_rs_ag;
  gint64   batch_seq, activation_size, batch_seq_par, seq_par_activation_size;

  BpwCalculonLayer layers[BPW_CALCULON_MAX_LAYERS];
  guint            n_layers;

  BpwPyNum block_fw_flops, block_re_flops, block_agrad_flops, block_wgrad_flops;
  BpwPyNum block_optim_flops;
  BpwPyNum block_fw_mem_accessed, block_re_mem_accessed, block_agrad_mem_accessed;
  BpwPyNum block_wgrad_mem_accessed, block_optim_mem_accessed;
  double   block_fw_flops_time, block_fw_mem_time, block_fw_time;
  double   block_re_flops_time, block_re_mem_time, block_re_time;
  double   block_agrad_flops_time, block_agrad_mem_time, block_agrad_time;
  double   block_wgrad_flops_time, block_wgrad_mem_time, block_wgrad_time;
  double   block_optim_flops_time, block_optim_mem_time, block_optim_time;
  gint64   baseblock_fw_tp_size, edgeblock_fw_tp_size;
  gint64   baseblock_agrad_tp_size, edgeblock_agrad_tp_size;
  gint64   baseblock_recomm_size, edgeblock_recomm_size;
  double   baseblock_fw_tp_time, edgeblock_fw_tp_time;
  double   baseblock_fw_tp_time_exposed, edgeblock_fw_tp_time_exposed;
  double   baseblock_recomm_time, edgeblock_recomm_time;
  double   baseblock_recomm_time_exposed, edgeblock_recomm_time_exposed;
  double   baseblock_agrad_tp_time, edgeblock_agrad_tp_time;
  double   baseblock_agrad_tp_time_exposed, edgeblock_agrad_tp_time_exposed;
  double   tp_bw_overlap_req;
  BpwPyNum block_weight_space, block_act_working_space, block_act_storage_space;
  BpwPyNum block_act_checkpoint_size, block_weight_grad_space;
  BpwPyNum block_weight_grad_space_no_sharding, block_act_grad_space, block_optimizer_space;
  BpwPyNum useful_flops;   /* get_useful_flops() */
} BpwCalculonBlock;

/* The rest of Llm: the execution's counts and its per-step figures. */
typedef struct
{
  const BpwCalculonApp       *app;
  const BpwCalculonSystem    *sys;
  const BpwCalculonExecution *exe;
  const BpwCalculonBlock     *block;

  gint64   num_microbatches;
  guint    tp_net, pp_net, dp_net;    /* indices: Calculon compares the objects */
  gint64   blocks_per_proc, bubble_reduction_blocks, blocks_per_chunk, chunks_per_proc;
  gint64   baseblocks_per_chunk, edgeblocks_per_chunk;
  gint64   block_fw_pp_size, block_bw_pp_size;

  /* _compute_batch_stats() */
  double   fw_time, re_time, agrad_time, wgrad_time, optim_time;
  double   tp_comm_time_link, tp_comm_time_exposed, recomm_time_link, recomm_time_exposed;
  double   pp_comm_time_link, pp_comm_time_exposed;
  double   baseblock_fw_time_no_offload, edgeblock_fw_time_no_offload;
  double   baseblock_fw_offload_overhead, edgeblock_fw_offload_overhead;
  double   baseblock_fw_time, edgeblock_fw_time;
  double   baseblock_bw_time_no_offload, edgeblock_bw_time_no_offload;
  double   baseblock_bw_offload_overhead, edgeblock_bw_offload_overhead;
  double   baseblock_bw_time, edgeblock_bw_time;
  double   bubble_time;
  gint64   block_dp_size;
  double   block_dp_time;
  double   dp_comm_time_exposed, dp_comm_time_link;
  double   dp_bw_overlap_req_chunk, dp_bw_overlap_req_tail;
  double   weight_space, act_space, act_checkpoint_size, act_grad_space;
  double   weight_grad_space, optimizer_space;
} BpwCalculonLlm;

/* Layer.__init__ of each class; @flags: BpwCalculonLayerFlags. */
void     _bpw_calculon_layer_linear       (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 batch_seq, gint64 c_in,
                                           gint64 c_out, guint flags);
void     _bpw_calculon_layer_linear_overlapped (BpwCalculonLayer *l,
                                           const BpwCalculonSystem *sys, const char *name,
                                           gint64 batch_seq, gint64 c_in, gint64 c_out,
                                           BpwCalculonTpComm comm_type, gint64 num_tiles,
                                           guint net_id, gint64 num_peers, gboolean conjugate,
                                           BpwCalculonTpOverlap tp_overlap, guint flags);
void     _bpw_calculon_layer_batch_matmul (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 batch, gint64 size_a,
                                           gint64 contraction, gint64 size_b, guint flags);
void     _bpw_calculon_layer_layer_norm   (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 act_size, gint64 hidden,
                                           guint flags);
void     _bpw_calculon_layer_dropout      (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 act_size, guint flags);
void     _bpw_calculon_layer_gelu         (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 act_size, gboolean fused,
                                           guint flags);
void     _bpw_calculon_layer_softmax      (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 act_size, guint flags);
void     _bpw_calculon_layer_elementwise  (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 operand1, gint64 operand2,
                                           guint flags);
void     _bpw_calculon_layer_fork         (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 act_size, gint64 num_users,
                                           guint flags);
void     _bpw_calculon_layer_tp_comm      (BpwCalculonLayer *l, const BpwCalculonSystem *sys,
                                           const char *name, gint64 act_size, guint net_id,
                                           gint64 num_peers, BpwCalculonTpComm comm_type,
                                           gboolean conjugate, guint flags);

/* The Layer methods llm.py calls, with their overrides. */
BpwPyNum _bpw_calculon_layer_flops           (const BpwCalculonLayer *l, BpwCalculonStage stage);
BpwPyNum _bpw_calculon_layer_mem_accessed    (const BpwCalculonLayer *l, BpwCalculonStage stage);
BpwPyNum _bpw_calculon_layer_weight          (const BpwCalculonLayer *l);
BpwPyNum _bpw_calculon_layer_activation      (const BpwCalculonLayer *l);
BpwPyNum _bpw_calculon_layer_output          (const BpwCalculonLayer *l);
BpwPyNum _bpw_calculon_layer_weight_grad     (const BpwCalculonLayer *l, gboolean sharded);
BpwPyNum _bpw_calculon_layer_activation_grad (const BpwCalculonLayer *l);
double   _bpw_calculon_layer_optimizer       (const BpwCalculonLayer *l);
gint64   _bpw_calculon_layer_comm_bytes      (const BpwCalculonLayer *l, BpwCalculonStage stage,
                                              gboolean baseblock);
double   _bpw_calculon_layer_comm_tile       (const BpwCalculonLayer *l, BpwCalculonStage stage,
                                              gboolean baseblock);
double   _bpw_calculon_layer_flops_time      (const BpwCalculonLayer *l, BpwCalculonStage stage);
double   _bpw_calculon_layer_mem_time        (const BpwCalculonLayer *l, BpwCalculonStage stage);
double   _bpw_calculon_layer_net_time        (const BpwCalculonLayer *l, BpwCalculonStage stage,
                                              gboolean baseblock);
/* Not const: LinearOverlapped keeps the exposed time of the stage last processed. */
double   _bpw_calculon_layer_processing_time (BpwCalculonLayer *l, BpwCalculonStage stage);
double   _bpw_calculon_layer_exposed_net_time (const BpwCalculonLayer *l,
                                               BpwCalculonStage stage, gboolean baseblock);
double   _bpw_calculon_layer_required_bandwidth (const BpwCalculonLayer *l,
                                                 BpwCalculonStage stage, gboolean baseblock);
/* Layer.get_stats_json(), name and numbers. */
void     _bpw_calculon_layer_stats           (BpwCalculonLayer *l, BpwCalculonLayerStats *out);

/* System helpers (system.py, network.py, processor.py, memory.py). */
double   _bpw_calculon_curve_efficiency      (const BpwCalculonCurve *curve, double size);
double   _bpw_calculon_network_time          (const BpwCalculonNetwork *net, BpwCalculonOp op,
                                              double size, gint64 comm_size);
double   _bpw_calculon_processing_time       (const BpwCalculonSystem *sys, double flops_time,
                                              double mem_time);

/* llm.py: compile() without the block (FALSE with Calculon's Llm.Error message). */
gboolean _bpw_calculon_llm_compile           (BpwCalculonLlm *llm, const BpwCalculonApp *app,
                                              const BpwCalculonSystem *sys,
                                              const BpwCalculonExecution *exe, char **reason);
/* The block's layers and _compute_block_stats() for @exe (see BpwCalculonBlock). */
void     _bpw_calculon_block_build           (BpwCalculonBlock *block, const BpwCalculonApp *app,
                                              const BpwCalculonSystem *sys,
                                              const BpwCalculonExecution *exe);
/* run() on a compiled @llm and its block: FALSE with Calculon's message (nullable) when
 * the memory tiers do not hold the execution. */
gboolean _bpw_calculon_llm_run               (BpwCalculonLlm *llm, const BpwCalculonBlock *block,
                                              BpwCalculonStats *stats, char **reason);

/* Whether Calculon's sizes for @app at this micro-batch and TP fit 64-bit integers. */
gboolean _bpw_calculon_sizes_fit             (const BpwCalculonApp *app, gint64 microbatch_size,
                                              gint64 tensor_par);

/* Calculon's stats as the member @key (NULL in arrays) of @w's current container. */
void     _bpw_calculon_stats_write           (BpwJsonWriter *w, const char *key,
                                              const BpwCalculonStats *stats);

G_END_DECLS
