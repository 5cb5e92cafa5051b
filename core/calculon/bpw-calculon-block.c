/* bpw-calculon-block.c — Calculon's transformer block: its layers and per-block statistics
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Llm.compile(), _build_attn_block(), _build_mlp_block() and _compute_block_stats() of
 * Calculon's calculon/llm/llm.py @ c02c5e9 (Apache License 2.0; see bpw-calculon-model.h for
 * the NOTICE and the changes).
 */
#define G_LOG_DOMAIN "bpw-calculon-block"

#include "config.h"

#include <string.h>

#include "bpw-calculon-model-private.h"

#define RECOMPUTE(flag) ((flag) ? BPW_CALCULON_RECOMPUTE : 0u)
#define RECOMM(flag)    ((flag) ? BPW_CALCULON_RECOMM : 0u)
#define NOT_STORED(flag) ((flag) ? 0u : BPW_CALCULON_NO_ACT_STORED)

static BpwCalculonLayer *
bpw_calculon_block_add (BpwCalculonBlock *b)
{
  g_assert (b->n_layers < BPW_CALCULON_MAX_LAYERS);
  return &b->layers[b->n_layers++];
}

/* pick(exe._sequence_par, seq_par_activation_size, activation_size) */
static gint64
bpw_calculon_block_residual_size (const BpwCalculonBlock *b)
{
  return b->sequence_par ? b->seq_par_activation_size : b->activation_size;
}

static void
bpw_calculon_block_build_attn (BpwCalculonBlock           *b,
                                 const BpwCalculonApp       *app,
                                 const BpwCalculonSystem    *sys,
                                 const BpwCalculonExecution *exe)
{
  gboolean recompute = exe->activation_recompute == BPW_RECOMPUTE_FULL;
  gboolean recompute_attn = exe->activation_recompute != BPW_RECOMPUTE_NONE;
  gboolean recompute_ag = recompute_attn || exe->seq_par_ag_redo;
  gboolean multiquery = exe->attention_type == BPW_CALCULON_ATTENTION_MULTIQUERY;
  gint64 tp = exe->tensor_par, mbs = exe->microbatch_size, seq = app->seq_size;
  gint64 residual = bpw_calculon_block_residual_size (b);
  gint64 kv_width = multiquery ? app->attn_size : app->attn_heads * app->attn_size / tp;
  guint net = (guint) exe->tensor_par_net;

  _bpw_calculon_layer_fork (bpw_calculon_block_add (b), sys, "AttnBlock_Fork", residual, 2,
                            RECOMPUTE (recompute));
  _bpw_calculon_layer_layer_norm (bpw_calculon_block_add (b), sys, "AttnBlock_LayerNorm",
                                  residual, app->hidden,
                                  RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                  | BPW_CALCULON_REUSED);
  if (exe->tensor_par_overlap == BPW_CALCULON_TP_OVERLAP_NONE)
    {
      _bpw_calculon_layer_tp_comm (bpw_calculon_block_add (b), sys, "AttnBlock_F",
                                   b->activation_size, net, tp, exe->tensor_par_comm_type,
                                   FALSE, RECOMM (recompute_ag));
      /* With sequence parallelism the communication layers hold the (split) activations. */
      _bpw_calculon_layer_fork (bpw_calculon_block_add (b), sys, "AttnBlock_Multihead_Fork",
                                b->activation_size, 3,
                                RECOMPUTE (recompute_ag) | NOT_STORED (!recompute_ag));
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "AttnBlock_Query",
                                  b->batch_seq, app->hidden,
                                  app->attn_heads * app->attn_size / tp,
                                  RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                  | BPW_CALCULON_REUSED);
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "AttnBlock_Key",
                                  b->batch_seq, app->hidden, kv_width,
                                  RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                  | BPW_CALCULON_REUSED);
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "AttnBlock_Value",
                                  b->batch_seq, app->hidden, kv_width,
                                  RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                  | BPW_CALCULON_REUSED);
    }
  else if (!multiquery)
    {
      _bpw_calculon_layer_linear_overlapped (bpw_calculon_block_add (b), sys,
                                             "AttnBlock_QKV_AG", b->batch_seq, app->hidden,
                                             app->attn_heads * app->attn_size * 3,
                                             exe->tensor_par_comm_type, tp, net, tp, FALSE,
                                             exe->tensor_par_overlap,
                                             RECOMPUTE (recompute) | RECOMM (recompute_ag));
    }
  else
    {
      _bpw_calculon_layer_linear_overlapped (bpw_calculon_block_add (b), sys,
                                             "AttnBlock_Query_AG", b->batch_seq, app->hidden,
                                             app->attn_heads * app->attn_size,
                                             exe->tensor_par_comm_type, tp, net, tp, FALSE,
                                             exe->tensor_par_overlap,
                                             RECOMPUTE (recompute) | RECOMM (recompute_ag));
      _bpw_calculon_layer_fork (bpw_calculon_block_add (b), sys, "AttnBlock_KV_Fork",
                                b->activation_size, 2,
                                RECOMPUTE (recompute_ag) | NOT_STORED (!recompute_ag));
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "AttnBlock_Key",
                                  b->batch_seq, app->hidden, app->attn_size,
                                  RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                  | BPW_CALCULON_REUSED);
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "AttnBlock_Value",
                                  b->batch_seq, app->hidden, app->attn_size,
                                  RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                  | BPW_CALCULON_REUSED);
    }
  _bpw_calculon_layer_batch_matmul (bpw_calculon_block_add (b), sys,
                                    "AttnBlock_Multihead_Key_Query",
                                    mbs * app->attn_heads / tp, seq, app->attn_size, seq,
                                    RECOMPUTE (recompute_attn)
                                    | (recompute_attn ? BPW_CALCULON_NO_OUTPUT_STORED : 0u));
  _bpw_calculon_layer_softmax (bpw_calculon_block_add (b), sys, "AttnBlock_Multihead_SoftMax",
                               app->attn_heads / tp * (seq * seq) * mbs,
                               RECOMPUTE (recompute_attn)
                               | (recompute_attn ? BPW_CALCULON_NO_OUTPUT_STORED : 0u));
  _bpw_calculon_layer_dropout (bpw_calculon_block_add (b), sys, "AttnBlock_Multihead_DropOut",
                               app->attn_heads / tp * (seq * seq) * mbs,
                               RECOMPUTE (recompute_attn) | NOT_STORED (!recompute_attn));
  _bpw_calculon_layer_batch_matmul (bpw_calculon_block_add (b), sys, "AttnBlock_Multihead_Attn",
                                    mbs * app->attn_heads / tp, seq, seq,
                                    app->attn_heads * app->attn_size / app->attn_heads,
                                    RECOMPUTE (recompute));
  if (exe->tensor_par_overlap == BPW_CALCULON_TP_OVERLAP_NONE)
    {
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "AttnBlock_MLP",
                                  b->batch_seq, app->attn_heads * app->attn_size / tp,
                                  app->hidden, RECOMPUTE (recompute));
      /* The input of a reduce-scatter or all-reduce is not stored. */
      _bpw_calculon_layer_tp_comm (bpw_calculon_block_add (b), sys, "AttnBlock_G",
                                   b->activation_size, net, tp, exe->tensor_par_comm_type,
                                   TRUE, RECOMM (recompute) | BPW_CALCULON_NO_ACT_STORED);
    }
  else
    {
      _bpw_calculon_layer_linear_overlapped (bpw_calculon_block_add (b), sys,
                                             "AttnBlock_MLP_RS", b->batch_seq,
                                             app->attn_heads * app->attn_size, app->hidden,
                                             exe->tensor_par_comm_type, tp, net, tp, TRUE,
                                             exe->tensor_par_overlap,
                                             RECOMPUTE (recompute) | RECOMM (recompute));
    }
  _bpw_calculon_layer_dropout (bpw_calculon_block_add (b), sys, "AttnBlock_DropOut", residual,
                               RECOMPUTE (recompute));
  _bpw_calculon_layer_elementwise (bpw_calculon_block_add (b), sys, "AttnBlock_Residual",
                                   residual, residual,
                                   RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                   | BPW_CALCULON_REUSED);
}

static void
bpw_calculon_block_build_mlp (BpwCalculonBlock           *b,
                                 const BpwCalculonApp       *app,
                                 const BpwCalculonSystem    *sys,
                                 const BpwCalculonExecution *exe)
{
  gboolean recompute = exe->activation_recompute == BPW_RECOMPUTE_FULL;
  /* Unlike the attention half, attention-only recompute leaves the MLP's gather alone. */
  gboolean recompute_ag = recompute || exe->seq_par_ag_redo;
  gint64 tp = exe->tensor_par;
  gint64 residual = bpw_calculon_block_residual_size (b);
  guint net = (guint) exe->tensor_par_net;

  _bpw_calculon_layer_fork (bpw_calculon_block_add (b), sys, "MlpBlock_Fork", residual, 2,
                            RECOMPUTE (recompute));
  _bpw_calculon_layer_layer_norm (bpw_calculon_block_add (b), sys, "MlpBlock_LayerNorm",
                                  residual, app->hidden,
                                  RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                  | BPW_CALCULON_REUSED);
  if (exe->tensor_par_overlap == BPW_CALCULON_TP_OVERLAP_NONE)
    {
      _bpw_calculon_layer_tp_comm (bpw_calculon_block_add (b), sys, "MlpBlock_F",
                                   b->activation_size, net, tp, exe->tensor_par_comm_type,
                                   FALSE, RECOMM (recompute_ag));
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "MlpBlock_Mlp1",
                                  b->batch_seq, app->hidden, app->feedforward / tp,
                                  RECOMPUTE (recompute) | NOT_STORED (!recompute_ag));
    }
  else
    {
      _bpw_calculon_layer_linear_overlapped (bpw_calculon_block_add (b), sys,
                                             "MlpBlock_Mlp1_AG", b->batch_seq, app->hidden,
                                             app->feedforward, exe->tensor_par_comm_type, tp,
                                             net, tp, FALSE, exe->tensor_par_overlap,
                                             RECOMPUTE (recompute) | RECOMM (recompute_ag));
    }
  _bpw_calculon_layer_gelu (bpw_calculon_block_add (b), sys, "MlpBlock_GeLU",
                            app->feedforward * b->batch_seq / tp, exe->fused_activation,
                            RECOMPUTE (recompute));
  if (exe->tensor_par_overlap == BPW_CALCULON_TP_OVERLAP_NONE)
    {
      _bpw_calculon_layer_linear (bpw_calculon_block_add (b), sys, "MlpBlock_Mlp2",
                                  b->batch_seq, app->feedforward / tp, app->hidden,
                                  RECOMPUTE (recompute));
      _bpw_calculon_layer_tp_comm (bpw_calculon_block_add (b), sys, "MlpBlock_G",
                                   b->activation_size, net, tp, exe->tensor_par_comm_type,
                                   TRUE, RECOMM (recompute) | BPW_CALCULON_NO_ACT_STORED);
    }
  else
    {
      _bpw_calculon_layer_linear_overlapped (bpw_calculon_block_add (b), sys,
                                             "MlpBlock_Mlp2_RS", b->batch_seq,
                                             app->feedforward, app->hidden,
                                             exe->tensor_par_comm_type, tp, net, tp, TRUE,
                                             exe->tensor_par_overlap,
                                             RECOMPUTE (recompute) | RECOMM (recompute));
    }
  _bpw_calculon_layer_dropout (bpw_calculon_block_add (b), sys, "MlpBlock_DropOut", residual,
                               RECOMPUTE (recompute));
  _bpw_calculon_layer_elementwise (bpw_calculon_block_add (b), sys, "MlpBlock_Residual",
                                   residual, residual,
                                   RECOMPUTE (recompute) | BPW_CALCULON_NO_ACT_STORED
                                   | BPW_CALCULON_REUSED);
}

/* _check_network_assignments() */
static gboolean
bpw_calculon_llm_check_networks (BpwCalculonLlm *llm,
                                 char          **reason)
{
  const BpwCalculonExecution *exe = llm->exe;
  gint64 degree[3] = { exe->tensor_par, exe->pipeline_par, exe->data_par };
  gint64 tier[3] = { exe->tensor_par_net, exe->pipeline_par_net, exe->data_par_net };
  gboolean used[BPW_CALCULON_MAX_NETWORKS] = { FALSE };
  gint64 size[BPW_CALCULON_MAX_NETWORKS];

  for (guint t = 0; t < BPW_CALCULON_MAX_NETWORKS; t++)
    size[t] = 1;
  for (guint g = 0; g < 3; g++)
    if (degree[g] > 1)
      {
        used[tier[g]] = TRUE;
        size[tier[g]] *= degree[g];
      }
  llm->tp_net = (guint) exe->tensor_par_net;
  llm->pp_net = (guint) exe->pipeline_par_net;
  llm->dp_net = (guint) exe->data_par_net;

  for (guint t = 0; t < llm->sys->n_networks; t++)
    {
      const BpwCalculonNetwork *net = &llm->sys->networks[t];

      if (!used[t])
        continue;
      if (size[t] > net->size)
        {
          if (reason != NULL)
            *reason = g_strdup_printf ("Network tier%u isn't big enough", t);
          return FALSE;
        }
      if (net->must_be_filled && net->size % size[t] != 0)
        {
          if (reason != NULL)
            *reason = g_strdup_printf ("Network tier%u isn't fully used", t);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
bpw_calculon_llm_fail (char      **reason,
                       const char *message)
{
  if (reason != NULL)
    *reason = g_strdup (message);
  return FALSE;
}

gboolean
_bpw_calculon_llm_compile (BpwCalculonLlm             *llm,
                           const BpwCalculonApp       *app,
                           const BpwCalculonSystem    *sys,
                           const BpwCalculonExecution *exe,
                           char                      **reason)
{
  gint64 blocks = app->num_blocks, pp = exe->pipeline_par, v = exe->pipeline_interleaving;

  memset (llm, 0, sizeof *llm);
  llm->app = app;
  llm->sys = sys;
  llm->exe = exe;
  llm->num_microbatches = exe->batch_size / exe->data_par / exe->microbatch_size;

  if (!bpw_calculon_llm_check_networks (llm, reason))
    return FALSE;

  /* Blocks that PP does not divide go to the first stages; the time reported is stage 0's,
   * whose bubble is shorter by the blocks the last stages lack. */
  llm->blocks_per_proc = blocks / pp;
  if (blocks % pp != 0)
    {
      llm->blocks_per_proc += 1;
      llm->bubble_reduction_blocks = pp - blocks % pp;
    }
  if (v > llm->blocks_per_proc)
    return bpw_calculon_llm_fail (reason, "Pipeline interleaving must be less than or equal "
                                  "to the number of blocks per processor");
  if (llm->blocks_per_proc % v != 0)
    return bpw_calculon_llm_fail (reason, "Pipeline interleaving must be a factor value of "
                                  "the number of blocks per processor");
  if ((exe->weight_offload || exe->activations_offload || exe->optimizer_offload)
      && llm->blocks_per_proc <= 2)
    return bpw_calculon_llm_fail (reason, "Offloading requires each processor to handle at "
                                  "least 3 blocks");

  /* A chunk is what a micro-batch runs before it passes to the next stage: base blocks
   * and one edge block, which sends. */
  llm->blocks_per_chunk = llm->blocks_per_proc / v;
  llm->chunks_per_proc = llm->blocks_per_proc / llm->blocks_per_chunk;
  llm->baseblocks_per_chunk = llm->blocks_per_chunk - 1;
  llm->edgeblocks_per_chunk = 1;

  return TRUE;
}

static void
bpw_calculon_max (double *acc,
                  double  x)
{
  if (x > *acc)
    *acc = x;
}

void
_bpw_calculon_block_build (BpwCalculonBlock           *b,
                           const BpwCalculonApp       *app,
                           const BpwCalculonSystem    *sys,
                           const BpwCalculonExecution *exe)
{
  gboolean training = exe->training;
  BpwPyNum backward = bpw_py_int (0);

  memset (b, 0, sizeof *b);
  b->bytes_per_element = bpw_dtype_bytes (exe->datatype);
  b->sequence_par = exe->tensor_par_comm_type == BPW_CALCULON_TP_COMM_RS_AG;
  b->pipeline_par_rs_ag = exe->tensor_par_comm_type != BPW_CALCULON_TP_COMM_AR;
  b->batch_seq = exe->microbatch_size * app->seq_size;
  b->activation_size = b->batch_seq * app->hidden;
  b->batch_seq_par = b->batch_seq / exe->tensor_par;
  b->seq_par_activation_size = b->batch_seq_par * app->hidden;
  bpw_calculon_block_build_attn (b, app, sys, exe);
  bpw_calculon_block_build_mlp (b, app, sys, exe);
  for (guint i = 0; i < b->n_layers; i++)
    {
      b->layers[i].bytes_per_element = b->bytes_per_element;
      if (exe->optimizer_sharding)
        b->layers[i].optim_sharding_num_proc = exe->data_par;
    }

  /* Zero and int 0, as llm.py initialises its accumulators. */
  b->block_act_checkpoint_size =
    bpw_py_int (training && exe->activation_recompute == BPW_RECOMPUTE_FULL
                ? b->activation_size * b->bytes_per_element : 0);

  for (guint i = 0; i < b->n_layers; i++)
    {
      BpwCalculonLayer *l = &b->layers[i];

      bpw_py_add (&b->block_fw_flops, _bpw_calculon_layer_flops (l, BPW_CALCULON_FW));
      b->block_fw_flops_time += _bpw_calculon_layer_flops_time (l, BPW_CALCULON_FW);
      bpw_py_add (&b->block_fw_mem_accessed,
                  _bpw_calculon_layer_mem_accessed (l, BPW_CALCULON_FW));
      b->block_fw_mem_time += _bpw_calculon_layer_mem_time (l, BPW_CALCULON_FW);
      b->block_fw_time += _bpw_calculon_layer_processing_time (l, BPW_CALCULON_FW);
      b->baseblock_fw_tp_size += _bpw_calculon_layer_comm_bytes (l, BPW_CALCULON_FW, TRUE);
      b->edgeblock_fw_tp_size += _bpw_calculon_layer_comm_bytes (l, BPW_CALCULON_FW, FALSE);
      b->baseblock_fw_tp_time += _bpw_calculon_layer_net_time (l, BPW_CALCULON_FW, TRUE);
      b->edgeblock_fw_tp_time += _bpw_calculon_layer_net_time (l, BPW_CALCULON_FW, FALSE);
      b->baseblock_fw_tp_time_exposed +=
        _bpw_calculon_layer_exposed_net_time (l, BPW_CALCULON_FW, TRUE);
      b->edgeblock_fw_tp_time_exposed +=
        _bpw_calculon_layer_exposed_net_time (l, BPW_CALCULON_FW, FALSE);
      bpw_calculon_max (&b->tp_bw_overlap_req,
                        _bpw_calculon_layer_required_bandwidth (l, BPW_CALCULON_FW, TRUE));
      bpw_calculon_max (&b->tp_bw_overlap_req,
                        _bpw_calculon_layer_required_bandwidth (l, BPW_CALCULON_FW, FALSE));
      if (training)
        {
          if (l->needs_recompute)
            {
              /* Calculon adds the running forward totals here (its known FLOP-count bug,
               * CALCULON.md §5 quirk 1); the time is the layer's own. */
              bpw_py_add (&b->block_re_flops, b->block_fw_flops);
              b->block_re_flops_time += b->block_fw_flops_time;
              bpw_py_add (&b->block_re_mem_accessed, b->block_fw_mem_accessed);
              b->block_re_mem_time += b->block_fw_mem_time;
              b->block_re_time += _bpw_calculon_layer_processing_time (l, BPW_CALCULON_FW);
            }
          if (l->needs_recomm)
            {
              /* The exposed time is what the last processing (the forward's) left. */
              b->baseblock_recomm_size +=
                _bpw_calculon_layer_comm_bytes (l, BPW_CALCULON_WGRAD, TRUE);
              b->edgeblock_recomm_size +=
                _bpw_calculon_layer_comm_bytes (l, BPW_CALCULON_WGRAD, FALSE);
              b->baseblock_recomm_time +=
                _bpw_calculon_layer_net_time (l, BPW_CALCULON_WGRAD, TRUE);
              b->edgeblock_recomm_time +=
                _bpw_calculon_layer_net_time (l, BPW_CALCULON_WGRAD, FALSE);
              b->baseblock_recomm_time_exposed +=
                _bpw_calculon_layer_exposed_net_time (l, BPW_CALCULON_WGRAD, TRUE);
              b->edgeblock_recomm_time_exposed +=
                _bpw_calculon_layer_exposed_net_time (l, BPW_CALCULON_WGRAD, FALSE);
            }
          bpw_py_add (&b->block_agrad_flops, _bpw_calculon_layer_flops (l, BPW_CALCULON_AGRAD));
          b->block_agrad_flops_time += _bpw_calculon_layer_flops_time (l, BPW_CALCULON_AGRAD);
          bpw_py_add (&b->block_agrad_mem_accessed,
                      _bpw_calculon_layer_mem_accessed (l, BPW_CALCULON_AGRAD));
          b->block_agrad_mem_time += _bpw_calculon_layer_mem_time (l, BPW_CALCULON_AGRAD);
          b->block_agrad_time += _bpw_calculon_layer_processing_time (l, BPW_CALCULON_AGRAD);
          b->baseblock_agrad_tp_size +=
            _bpw_calculon_layer_comm_bytes (l, BPW_CALCULON_AGRAD, TRUE);
          b->edgeblock_agrad_tp_size +=
            _bpw_calculon_layer_comm_bytes (l, BPW_CALCULON_AGRAD, FALSE);
          b->baseblock_agrad_tp_time +=
            _bpw_calculon_layer_net_time (l, BPW_CALCULON_AGRAD, TRUE);
          b->edgeblock_agrad_tp_time +=
            _bpw_calculon_layer_net_time (l, BPW_CALCULON_AGRAD, FALSE);
          b->baseblock_agrad_tp_time_exposed +=
            _bpw_calculon_layer_exposed_net_time (l, BPW_CALCULON_AGRAD, TRUE);
          b->edgeblock_agrad_tp_time_exposed +=
            _bpw_calculon_layer_exposed_net_time (l, BPW_CALCULON_AGRAD, FALSE);
          bpw_calculon_max (&b->tp_bw_overlap_req,
                            _bpw_calculon_layer_required_bandwidth (l, BPW_CALCULON_AGRAD, TRUE));
          bpw_calculon_max (&b->tp_bw_overlap_req,
                            _bpw_calculon_layer_required_bandwidth (l, BPW_CALCULON_AGRAD,
                                                                    FALSE));
          bpw_py_add (&b->block_wgrad_flops, _bpw_calculon_layer_flops (l, BPW_CALCULON_WGRAD));
          b->block_wgrad_flops_time += _bpw_calculon_layer_flops_time (l, BPW_CALCULON_WGRAD);
          bpw_py_add (&b->block_wgrad_mem_accessed,
                      _bpw_calculon_layer_mem_accessed (l, BPW_CALCULON_WGRAD));
          b->block_wgrad_mem_time += _bpw_calculon_layer_mem_time (l, BPW_CALCULON_WGRAD);
          b->block_wgrad_time += _bpw_calculon_layer_processing_time (l, BPW_CALCULON_WGRAD);
          bpw_py_add (&b->block_optim_flops, _bpw_calculon_layer_flops (l, BPW_CALCULON_OPTIM));
          b->block_optim_flops_time += _bpw_calculon_layer_flops_time (l, BPW_CALCULON_OPTIM);
          bpw_py_add (&b->block_optim_mem_accessed,
                      _bpw_calculon_layer_mem_accessed (l, BPW_CALCULON_OPTIM));
          b->block_optim_mem_time += _bpw_calculon_layer_mem_time (l, BPW_CALCULON_OPTIM);
          b->block_optim_time += _bpw_calculon_layer_processing_time (l, BPW_CALCULON_OPTIM);
        }

      bpw_py_add (&b->block_weight_space, _bpw_calculon_layer_weight (l));
      if (!l->activation_reused)
        bpw_py_add (&b->block_act_working_space, _bpw_calculon_layer_activation (l));
      bpw_py_add (&b->block_act_storage_space, _bpw_calculon_layer_activation (l));
      if (training)
        {
          if (!l->output_stored)
            {
              BpwPyNum out = _bpw_calculon_layer_output (l);

              bpw_py_add (&b->block_act_storage_space,
                          out.is_float ? bpw_py_float (-out.f) : bpw_py_int (-out.i));
            }
          if (!l->activation_stored)
            {
              BpwPyNum act = _bpw_calculon_layer_activation (l);

              bpw_py_add (&b->block_act_storage_space,
                          act.is_float ? bpw_py_float (-act.f) : bpw_py_int (-act.i));
            }
          bpw_py_add (&b->block_weight_grad_space, _bpw_calculon_layer_weight_grad (l, TRUE));
          bpw_py_add (&b->block_weight_grad_space_no_sharding,
                      _bpw_calculon_layer_weight_grad (l, FALSE));
          bpw_py_add (&b->block_act_grad_space, _bpw_calculon_layer_activation_grad (l));
          bpw_py_add (&b->block_optimizer_space,
                      bpw_py_float (_bpw_calculon_layer_optimizer (l)));
        }
    }
  if (exe->activation_recompute == BPW_RECOMPUTE_FULL)
    b->block_act_storage_space = bpw_py_int (0);

  /* get_useful_flops(): per block and micro-batch. */
  for (guint i = 0; i < b->n_layers; i++)
    bpw_py_add (&b->useful_flops, _bpw_calculon_layer_flops (&b->layers[i], BPW_CALCULON_FW));
  if (training)
    {
      for (guint i = 0; i < b->n_layers; i++)
        {
          BpwPyNum one = _bpw_calculon_layer_flops (&b->layers[i], BPW_CALCULON_AGRAD);

          bpw_py_add (&one, _bpw_calculon_layer_flops (&b->layers[i], BPW_CALCULON_WGRAD));
          bpw_py_add (&one, _bpw_calculon_layer_flops (&b->layers[i], BPW_CALCULON_OPTIM));
          bpw_py_add (&backward, one);
        }
      bpw_py_add (&b->useful_flops, backward);
    }
}
