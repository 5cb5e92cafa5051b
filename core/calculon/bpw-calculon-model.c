/* bpw-calculon-model.c — Calculon's per-step figures: pipeline, data parallelism, memory
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Llm._compute_batch_stats(), _check_mem_caps(), the get_*() figures and
 * get_stats_values() of Calculon's calculon/llm/llm.py @ c02c5e9 (Apache License 2.0; see
 * bpw-calculon-model.h for the NOTICE and the changes).
 */
#define G_LOG_DOMAIN "bpw-calculon-model"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-calculon-model-private.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Python's float floor division (CPython's float_floor_div), for Calculon's
 * `chunk_dp_time // chunk_bw_time`. */
static double
bpw_calculon_floor_div (double vx,
                        double wx)
{
  double mod = fmod (vx, wx);
  double div = (vx - mod) / wx;
  double floordiv;

  if (mod != 0)
    {
      if ((wx < 0) != (mod < 0))
        div -= 1.0;
    }
  if (div != 0)
    {
      floordiv = floor (div);
      if (div - floordiv > 0.5)
        floordiv += 1.0;
    }
  else
    floordiv = copysign (0.0, vx / wx);
  return floordiv;
}

static double
bpw_calculon_offload_time (const BpwCalculonSystem *sys,
                           double                   size)
{
  /* Nothing to move costs nothing, also where there is no second tier to divide by. */
  if (size == 0)
    return 0;
  return size / (sys->mem2_bandwidth * _bpw_calculon_curve_efficiency (&sys->mem2, size));
}

static double
bpw_calculon_llm_fw_offload_size (const BpwCalculonLlm *llm)
{
  const BpwCalculonBlock *b = llm->block;
  const BpwCalculonExecution *exe = llm->exe;
  double weight = exe->weight_offload ? bpw_py_value (b->block_weight_space) : 0;
  double act = 0;

  if (exe->activations_offload)
    act = exe->activation_recompute != BPW_RECOMPUTE_FULL
          ? bpw_py_value (b->block_act_storage_space)
          : bpw_py_value (b->block_act_checkpoint_size);
  return act > weight ? act : weight;
}

static double
bpw_calculon_llm_bw_offload_size (const BpwCalculonLlm *llm)
{
  const BpwCalculonBlock *b = llm->block;
  const BpwCalculonExecution *exe = llm->exe;
  double size = 0;

  if (!exe->training)
    return 0;
  if (exe->weight_offload)
    size += bpw_py_value (b->block_weight_space);
  if (exe->activations_offload)
    size += exe->activation_recompute != BPW_RECOMPUTE_FULL
            ? bpw_py_value (b->block_act_storage_space)
            : bpw_py_value (b->block_act_checkpoint_size);
  if (exe->optimizer_offload)
    size += bpw_py_value (b->block_optimizer_space);
  return size;
}

static double
bpw_calculon_positive (double x)
{
  return x > 0 ? x : 0;
}

/* The data-parallel traffic of a step, overlapped with the backward where asked. */
static void
bpw_calculon_llm_dp_stats (BpwCalculonLlm *llm,
                           double          chunk_bw_time,
                           double          chunk_bw_pp_time,
                           double          chunk_dp_overlap_time,
                           double          chunk_dp_compute_time,
                           double          block_dp_compute_time)
{
  const BpwCalculonBlock *b = llm->block;
  const BpwCalculonExecution *exe = llm->exe;
  const BpwCalculonNetwork *dp_net = &llm->sys->networks[llm->dp_net];
  gint64 pp = exe->pipeline_par, nmb = llm->num_microbatches;
  double pu = dp_net->processor_usage;
  double scalar;
  gint64 num_overlappable_chunks, last_chunk_overlap_size;
  double overlap_window, overlap_compute, chunk_dp_time, num_overlapped_pp;
  double overlap_inflection, overlappable_chunks_exposed_time, chunk_overlap_time;
  double last_chunk_window, last_chunk_inflection, last_chunk_exposed_time, tail_overlap_time;

  if (exe->data_par > 1 && exe->training)
    {
      llm->block_dp_size = b->block_weight_space.i;
      if (exe->optimizer_sharding)
        llm->block_dp_time =
          _bpw_calculon_network_time (dp_net, BPW_CALCULON_OP_REDUCE_SCATTER,
                                      (double) llm->block_dp_size, exe->data_par)
          + _bpw_calculon_network_time (dp_net, BPW_CALCULON_OP_ALL_GATHER,
                                        (double) llm->block_dp_size, exe->data_par);
      else
        llm->block_dp_time = _bpw_calculon_network_time (dp_net, BPW_CALCULON_OP_ALL_REDUCE,
                                                         (double) llm->block_dp_size,
                                                         exe->data_par);
    }
  if (!(exe->data_par > 1 && exe->training))
    return;
  if (!exe->data_par_overlap)
    {
      llm->dp_comm_time_exposed = (double) llm->blocks_per_proc * llm->block_dp_time;
      llm->dp_comm_time_link = llm->dp_comm_time_exposed;
      return;
    }

  scalar = exe->optimizer_sharding
           ? dp_net->scalar[BPW_CALCULON_OP_REDUCE_SCATTER]
             + dp_net->scalar[BPW_CALCULON_OP_ALL_GATHER]
           : dp_net->scalar[BPW_CALCULON_OP_ALL_REDUCE];
  /* Every chunk but the last overlaps evenly; in the last, every block but the last. In
   * 1F1B the micro-batches in flight per chunk are PP. */
  num_overlappable_chunks = exe->pipeline_interleaving - 1;
  last_chunk_overlap_size = llm->blocks_per_chunk - 1;
  overlap_window = (double) pp * chunk_dp_overlap_time;
  overlap_compute = (double) pp * chunk_dp_compute_time;
  chunk_dp_time = (double) llm->blocks_per_chunk * llm->block_dp_time;
  /* DP collides with PP's hand-offs when they share a tier (Calculon compares the tier
   * objects, so an unused PP group "shares" tier 0 too). */
  num_overlapped_pp = 0;
  if (llm->dp_net == llm->pp_net)
    {
      double n = bpw_calculon_floor_div (chunk_dp_time, chunk_bw_time);
      gint64 cap = nmb % pp != 0 ? nmb % pp : pp;

      num_overlapped_pp = (double) cap < n ? (double) cap : n;
    }
  overlap_inflection = chunk_dp_time - (overlap_window - num_overlapped_pp * chunk_bw_pp_time)
                       + overlap_compute * pu;
  if (overlap_inflection > 0)
    overlappable_chunks_exposed_time = (double) num_overlappable_chunks * overlap_inflection;
  else
    overlappable_chunks_exposed_time = (double) num_overlappable_chunks * chunk_dp_time * pu;
  chunk_overlap_time = overlap_window + overlap_compute * pu;
  if (llm->dp_net == llm->pp_net)
    chunk_overlap_time -= chunk_bw_pp_time;
  chunk_overlap_time *= (double) num_overlappable_chunks;
  if (chunk_overlap_time > 0)
    llm->dp_bw_overlap_req_chunk = (double) (llm->blocks_per_chunk * llm->block_dp_size)
                                   / chunk_overlap_time * scalar;
  if (llm->baseblocks_per_chunk > 0)
    {
      last_chunk_window = chunk_dp_overlap_time - chunk_bw_pp_time
                          - (llm->baseblock_bw_time + llm->edgeblock_bw_time) / 2;
      if (!exe->optimizer_sharding)
        last_chunk_window += b->block_optim_time - b->block_optim_mem_time;
    }
  else
    last_chunk_window = 0;   /* one edge block: the last chunk cannot overlap */
  last_chunk_inflection = ((double) last_chunk_overlap_size * llm->block_dp_time)
                          + (block_dp_compute_time * pu - last_chunk_window);
  if (last_chunk_inflection > 0)
    last_chunk_exposed_time = last_chunk_inflection;
  else
    last_chunk_exposed_time = (double) last_chunk_overlap_size * llm->block_dp_time * pu;
  tail_overlap_time = last_chunk_window
                      + (double) last_chunk_overlap_size * llm->block_dp_time * pu;
  if (tail_overlap_time > 0)
    llm->dp_bw_overlap_req_tail = (double) (llm->blocks_per_chunk * llm->block_dp_size)
                                  / tail_overlap_time * scalar;
  llm->dp_comm_time_exposed = llm->block_dp_time
                              + (overlappable_chunks_exposed_time + last_chunk_exposed_time);
  llm->dp_comm_time_link = (double) llm->blocks_per_proc * llm->block_dp_time;
}

static void
bpw_calculon_llm_memory_stats (BpwCalculonLlm *llm)
{
  const BpwCalculonBlock *b = llm->block;
  const BpwCalculonExecution *exe = llm->exe;
  gint64 pp = exe->pipeline_par, v = exe->pipeline_interleaving, bpp = llm->blocks_per_proc;

  llm->weight_space = bpw_py_value (b->block_weight_space) * (double) bpp;
  if (exe->training)
    {
      /* 1F1B keeps PP micro-batches (or all, when fewer) in flight. */
      gint64 mem_microbatches = llm->num_microbatches < pp ? llm->num_microbatches : pp;

      if (exe->activation_recompute == BPW_RECOMPUTE_FULL)
        {
          llm->act_space = bpw_py_value (b->block_act_working_space);
          llm->act_checkpoint_size = (double) bpp
                                     * bpw_py_value (b->block_act_checkpoint_size);
          if (v > 1)
            llm->act_checkpoint_size *= (double) mem_microbatches
                                        * (1 + (double) (pp - 1) / (double) (v * pp));
          else
            llm->act_checkpoint_size *= (double) mem_microbatches;
        }
      else
        {
          double factor = (double) mem_microbatches;

          if (v > 1)
            factor = (double) mem_microbatches * (1 + (double) (pp - 1) / (double) (v * pp));
          llm->act_checkpoint_size = 0;
          llm->act_space = bpw_py_value (b->block_act_working_space)
                           + bpw_py_value (b->block_act_storage_space)
                             * ((double) bpp * factor - 1);
        }
      llm->act_grad_space = bpw_py_value (b->block_act_grad_space);
      /* One unsharded fp32 block of gradients for the reduction, the rest sharded. */
      if (bpp == 1)
        llm->weight_grad_space = bpw_py_value (b->block_weight_grad_space_no_sharding);
      else
        llm->weight_grad_space = bpw_py_value (b->block_weight_grad_space_no_sharding)
                                 + bpw_py_value (b->block_weight_grad_space)
                                   * (double) (bpp - 1);
      llm->optimizer_space = bpw_py_value (b->block_optimizer_space) * (double) bpp;
    }
  else
    llm->act_space = bpw_py_value (b->block_act_working_space);
}

static void
bpw_calculon_llm_batch_stats (BpwCalculonLlm *llm)
{
  const BpwCalculonBlock *b = llm->block;
  const BpwCalculonExecution *exe = llm->exe;
  const BpwCalculonSystem *sys = llm->sys;
  const BpwCalculonNetwork *pp_net = &sys->networks[llm->pp_net];
  gint64 nmb = llm->num_microbatches, pp = exe->pipeline_par;
  double mult = (double) (llm->blocks_per_proc * nmb);
  double per_chunk = (double) (nmb * llm->chunks_per_proc);
  double base = (double) llm->baseblocks_per_chunk, edge = (double) llm->edgeblocks_per_chunk;
  double chunk_fw_pp_time, chunk_bw_pp_time, pp_fw_comm_time, pp_bw_comm_time;
  double fw_offload_time, bw_offload_time;
  double chunk_fw_time, chunk_bw_time, baseblock_dp_overlap_time, edgeblock_dp_overlap_time;
  double block_dp_compute_time, chunk_dp_overlap_time, chunk_dp_compute_time, chunk_time;
  double bubble_reduction_time;
  gint64 num_fw_pp_p2ps = 0, num_bw_pp_p2ps = 0, extra_interleaving_bubbles = 0;

  /* Pipeline hand-offs: one activation, split by TP where TP's collectives split it. */
  if (pp > 1)
    llm->block_fw_pp_size = (b->pipeline_par_rs_ag ? b->seq_par_activation_size
                                                   : b->activation_size)
                            * b->bytes_per_element;
  llm->block_bw_pp_size = exe->training ? llm->block_fw_pp_size : 0;

  llm->fw_time = mult * b->block_fw_time;
  llm->re_time = mult * b->block_re_time;
  llm->agrad_time = mult * b->block_agrad_time;
  llm->wgrad_time = mult * b->block_wgrad_time;
  llm->optim_time = (double) llm->blocks_per_proc * b->block_optim_time;

  llm->tp_comm_time_link = per_chunk * ((base * b->baseblock_fw_tp_time)
                                        + (edge * b->edgeblock_fw_tp_time))
                           + per_chunk * (base * b->baseblock_agrad_tp_time
                                          + edge * b->edgeblock_agrad_tp_time);
  llm->tp_comm_time_exposed = per_chunk * ((base * b->baseblock_fw_tp_time_exposed)
                                           + (edge * b->edgeblock_fw_tp_time_exposed))
                              + per_chunk * (base * b->baseblock_agrad_tp_time_exposed
                                             + edge * b->edgeblock_agrad_tp_time_exposed);
  llm->recomm_time_link = per_chunk * ((base * b->baseblock_recomm_time)
                                       + (edge * b->edgeblock_recomm_time));
  llm->recomm_time_exposed = per_chunk * ((base * b->baseblock_recomm_time_exposed)
                                          + (edge * b->edgeblock_recomm_time_exposed));

  /* Calculon prices the hand-off even without PP (size 0: the tier's latency), and the
   * edge block carries it. */
  chunk_fw_pp_time = _bpw_calculon_network_time (pp_net, BPW_CALCULON_OP_P2P,
                                                 (double) llm->block_fw_pp_size, 2);
  chunk_bw_pp_time = _bpw_calculon_network_time (pp_net, BPW_CALCULON_OP_P2P,
                                                 (double) llm->block_bw_pp_size, 2);
  if (pp > 1)
    {
      num_fw_pp_p2ps = llm->chunks_per_proc;
      num_bw_pp_p2ps = exe->training ? llm->chunks_per_proc : 0;
    }
  pp_fw_comm_time = (double) (nmb * num_fw_pp_p2ps) * chunk_fw_pp_time;
  pp_bw_comm_time = (double) (nmb * num_bw_pp_p2ps) * chunk_bw_pp_time;
  llm->pp_comm_time_link = pp_fw_comm_time + pp_bw_comm_time;
  llm->pp_comm_time_exposed = llm->pp_comm_time_link;

  fw_offload_time = bpw_calculon_offload_time (sys, bpw_calculon_llm_fw_offload_size (llm));
  bw_offload_time = exe->training
                    ? bpw_calculon_offload_time (sys, bpw_calculon_llm_bw_offload_size (llm))
                    : 0;
  llm->baseblock_fw_time_no_offload = b->block_fw_time + b->baseblock_fw_tp_time_exposed;
  llm->edgeblock_fw_time_no_offload = b->block_fw_time + b->edgeblock_fw_tp_time_exposed
                                      + chunk_fw_pp_time;
  llm->baseblock_fw_offload_overhead =
    bpw_calculon_positive (fw_offload_time + b->block_fw_mem_time
                           - llm->baseblock_fw_time_no_offload);
  llm->edgeblock_fw_offload_overhead =
    bpw_calculon_positive (fw_offload_time + b->block_fw_mem_time
                           - llm->edgeblock_fw_time_no_offload);
  llm->baseblock_fw_time = llm->baseblock_fw_time_no_offload + llm->baseblock_fw_offload_overhead;
  llm->edgeblock_fw_time = llm->edgeblock_fw_time_no_offload + llm->edgeblock_fw_offload_overhead;
  /* The optimizer step is not in the block's backward: it runs once per step, memory
   * bound, without offload beside it. */
  llm->baseblock_bw_time_no_offload = b->block_re_time + b->baseblock_recomm_time_exposed
                                      + b->block_agrad_time + b->block_wgrad_time
                                      + b->baseblock_agrad_tp_time_exposed;
  llm->edgeblock_bw_time_no_offload = b->block_re_time + b->edgeblock_recomm_time_exposed
                                      + b->block_agrad_time + b->block_wgrad_time
                                      + b->edgeblock_agrad_tp_time_exposed + chunk_bw_pp_time;
  llm->baseblock_bw_offload_overhead =
    bpw_calculon_positive (bw_offload_time + b->block_agrad_mem_time + b->block_wgrad_mem_time
                           - llm->baseblock_bw_time_no_offload);
  llm->edgeblock_bw_offload_overhead =
    bpw_calculon_positive (bw_offload_time + b->block_agrad_mem_time + b->block_wgrad_mem_time
                           - llm->edgeblock_bw_time_no_offload);
  llm->baseblock_bw_time = llm->baseblock_bw_time_no_offload + llm->baseblock_bw_offload_overhead;
  llm->edgeblock_bw_time = llm->edgeblock_bw_time_no_offload + llm->edgeblock_bw_offload_overhead;
  chunk_fw_time = (base * llm->baseblock_fw_time) + (edge * llm->edgeblock_fw_time);
  chunk_bw_time = (base * llm->baseblock_bw_time) + (edge * llm->edgeblock_bw_time);

  /* DP traffic cannot hide behind memory access, but it can behind offload. */
  baseblock_dp_overlap_time = llm->baseblock_bw_time
                              - (b->block_agrad_mem_time + b->block_wgrad_mem_time
                                 + b->block_re_mem_time);
  edgeblock_dp_overlap_time = llm->edgeblock_bw_time
                              - (b->block_agrad_mem_time + b->block_wgrad_mem_time
                                 + b->block_re_mem_time);
  block_dp_compute_time = b->block_agrad_flops_time + b->block_wgrad_flops_time
                          + b->block_re_flops_time;
  if (!exe->optimizer_sharding)
    {
      /* An unsharded optimizer step overlaps too, but for its memory access. */
      baseblock_dp_overlap_time += b->block_optim_time - b->block_optim_mem_time;
      edgeblock_dp_overlap_time += b->block_optim_time - b->block_optim_mem_time;
      block_dp_compute_time += b->block_optim_flops_time;
    }
  if (llm->dp_net == llm->tp_net)
    {
      baseblock_dp_overlap_time -= b->baseblock_recomm_time + b->baseblock_agrad_tp_time;
      edgeblock_dp_overlap_time -= b->edgeblock_recomm_time + b->edgeblock_agrad_tp_time;
    }
  chunk_dp_overlap_time = base * baseblock_dp_overlap_time + edge * edgeblock_dp_overlap_time;
  chunk_dp_compute_time = (double) llm->blocks_per_chunk * block_dp_compute_time;
  chunk_time = chunk_fw_time + chunk_bw_time;

  /* The bubble: PP − 1 chunks, more when the micro-batches are not a multiple of PP under
   * interleaving, less by the blocks the last stages lack. */
  if (llm->baseblocks_per_chunk > 0)
    bubble_reduction_time = (double) llm->bubble_reduction_blocks
                            * (llm->baseblock_fw_time + llm->edgeblock_fw_time
                               + llm->baseblock_bw_time + llm->edgeblock_bw_time) / 2;
  else
    bubble_reduction_time = (double) llm->bubble_reduction_blocks
                            * (llm->edgeblock_fw_time + llm->edgeblock_bw_time);
  if (nmb % pp != 0)
    extra_interleaving_bubbles = (exe->pipeline_interleaving - 1) * (pp - nmb % pp);
  llm->bubble_time = (double) (pp - 1) * chunk_time
                     + ((double) extra_interleaving_bubbles * chunk_time - bubble_reduction_time);

  bpw_calculon_llm_dp_stats (llm, chunk_bw_time, chunk_bw_pp_time, chunk_dp_overlap_time,
                             chunk_dp_compute_time, block_dp_compute_time);
  bpw_calculon_llm_memory_stats (llm);
}

/* The getters --------------------------------------------------------------------------- */

typedef struct
{
  double fw_offload_overhead, bw_offload_overhead, total_time;
  double weight_space_min, act_space_min, act_checkpoint_size_min, act_grad_space_min;
  double weight_grad_space_min, optimizer_space_min;
  double act_checkpoint_size, weight_grad_space, act_grad_space, optimizer_space;
  double tier1, tier2;
} BpwCalculonTotals;

static void
bpw_calculon_llm_totals (const BpwCalculonLlm *llm,
                         BpwCalculonTotals    *t)
{
  const BpwCalculonBlock *b = llm->block;
  const BpwCalculonExecution *exe = llm->exe;
  gboolean training = exe->training, full = exe->activation_recompute == BPW_RECOMPUTE_FULL;
  double per_chunk = (double) (llm->num_microbatches * llm->chunks_per_proc);
  double base = (double) llm->baseblocks_per_chunk, edge = (double) llm->edgeblocks_per_chunk;

  t->fw_offload_overhead = per_chunk * ((base * llm->baseblock_fw_offload_overhead)
                                        + (edge * llm->edgeblock_fw_offload_overhead));
  t->bw_offload_overhead = training
                           ? per_chunk * ((base * llm->baseblock_bw_offload_overhead)
                                          + (edge * llm->edgeblock_bw_offload_overhead))
                           : 0;
  t->total_time = llm->fw_time + (llm->agrad_time + llm->wgrad_time) + llm->optim_time
                  + t->fw_offload_overhead + t->bw_offload_overhead + llm->re_time
                  + (training ? llm->recomm_time_exposed : 0) + llm->bubble_time
                  + llm->tp_comm_time_exposed + llm->pp_comm_time_exposed
                  + (training ? llm->dp_comm_time_exposed : 0);

  t->weight_space_min = bpw_py_value (b->block_weight_space) * 2;
  t->act_space_min = !full ? bpw_py_value (b->block_act_working_space)
                             + bpw_py_value (b->block_act_storage_space)
                           : bpw_py_value (b->block_act_working_space);
  /* Calculon returns None here for inference. */
  t->act_checkpoint_size_min = !training ? NAN
                               : !full ? 0 : bpw_py_value (b->block_act_checkpoint_size) * 2;
  t->act_checkpoint_size = training && full ? llm->act_checkpoint_size : 0;
  t->weight_grad_space_min = training
                             ? bpw_py_value (b->block_weight_grad_space_no_sharding)
                               + bpw_py_value (b->block_weight_grad_space)
                             : 0;
  t->weight_grad_space = training ? llm->weight_grad_space : 0;
  t->act_grad_space = training ? llm->act_grad_space : 0;
  t->act_grad_space_min = t->act_grad_space;
  t->optimizer_space_min = training ? bpw_py_value (b->block_optimizer_space) * 2 : 0;
  t->optimizer_space = training ? llm->optimizer_space : 0;

  /* _get_mem_cap_reqs(): offloaded state keeps two blocks' worth on the device. */
  t->tier1 = 0;
  t->tier2 = 0;
  if (exe->weight_offload)
    {
      t->tier1 += t->weight_space_min;
      t->tier2 += llm->weight_space;
    }
  else
    t->tier1 += llm->weight_space;
  if (exe->activations_offload)
    {
      t->tier1 += t->act_space_min;
      if (!full)
        t->tier2 += llm->act_space;
      else
        {
          t->tier1 += t->act_checkpoint_size_min;
          t->tier2 += t->act_checkpoint_size;
        }
    }
  else
    {
      t->tier1 += llm->act_space;
      t->tier1 += t->act_checkpoint_size;
    }
  if (exe->optimizer_offload)
    {
      t->tier1 += t->weight_grad_space_min;
      t->tier1 += t->optimizer_space_min;
      t->tier2 += bpw_py_value (b->block_weight_grad_space) * (double) llm->blocks_per_proc;
      t->tier2 += t->optimizer_space;
    }
  else
    t->tier1 += t->weight_grad_space + t->optimizer_space;
  t->tier1 += t->act_grad_space;
}

static double
bpw_calculon_min (double a,
                  double b)
{
  return b < a ? b : a;
}

static void
bpw_calculon_llm_stats (BpwCalculonLlm          *llm,
                        const BpwCalculonTotals *t,
                        BpwCalculonStats        *s)
{
  const BpwCalculonBlock *b = llm->block;
  const BpwCalculonExecution *exe = llm->exe;
  gboolean training = exe->training, full = exe->activation_recompute == BPW_RECOMPUTE_FULL;
  double fw_offload_time = bpw_calculon_min (llm->baseblock_fw_time_no_offload
                                             - b->block_fw_mem_time,
                                             llm->edgeblock_fw_time_no_offload
                                             - b->block_fw_mem_time);
  double bw_offload_time = bpw_calculon_min (llm->baseblock_bw_time_no_offload
                                             - (b->block_agrad_mem_time
                                                + b->block_wgrad_mem_time),
                                             llm->edgeblock_bw_time_no_offload
                                             - (b->block_agrad_mem_time
                                                + b->block_wgrad_mem_time));
  double act_offload_size = !full ? bpw_py_value (b->block_act_storage_space)
                                  : bpw_py_value (b->block_act_checkpoint_size);
  double compute_time = llm->fw_time + (llm->agrad_time + llm->wgrad_time) + llm->optim_time;
  BpwPyNum useful = b->useful_flops;
  double perfect_time;

  if (useful.is_float)
    perfect_time = (double) (llm->blocks_per_proc * llm->num_microbatches) * useful.f;
  else
    perfect_time = (double) ((__int128) (llm->blocks_per_proc * llm->num_microbatches)
                             * useful.i);
  perfect_time /= llm->sys->matrix_flops;

  s->block_fw_flops = bpw_py_value (b->block_fw_flops);
  s->block_fw_flops_time = b->block_fw_flops_time;
  s->block_fw_mem_accessed = bpw_py_value (b->block_fw_mem_accessed);
  s->block_fw_mem_time = b->block_fw_mem_time;
  s->block_fw_time = b->block_fw_time;
  s->baseblock_fw_tp_time = b->baseblock_fw_tp_time;
  s->edgeblock_fw_tp_time = b->edgeblock_fw_tp_time;
  s->baseblock_fw_tp_time_exposed = b->baseblock_fw_tp_time_exposed;
  s->edgeblock_fw_tp_time_exposed = b->edgeblock_fw_tp_time_exposed;
  s->block_re_flops = bpw_py_value (b->block_re_flops);
  s->block_re_flops_time = b->block_re_flops_time;
  s->block_re_mem_accessed = bpw_py_value (b->block_re_mem_accessed);
  s->block_re_mem_time = b->block_re_mem_time;
  s->block_re_time = b->block_re_time;
  s->baseblock_recomm_time = b->baseblock_recomm_time;
  s->edgeblock_recomm_time = b->edgeblock_recomm_time;
  s->baseblock_recomm_time_exposed = b->baseblock_recomm_time_exposed;
  s->edgeblock_recomm_time_exposed = b->edgeblock_recomm_time_exposed;
  s->block_agrad_flops = bpw_py_value (b->block_agrad_flops);
  s->block_agrad_flops_time = b->block_agrad_flops_time;
  s->block_agrad_mem_accessed = bpw_py_value (b->block_agrad_mem_accessed);
  s->block_agrad_mem_time = b->block_agrad_mem_time;
  s->block_agrad_time = b->block_agrad_time;
  s->baseblock_agrad_tp_time = b->baseblock_agrad_tp_time;
  s->edgeblock_agrad_tp_time = b->edgeblock_agrad_tp_time;
  s->baseblock_agrad_tp_time_exposed = b->baseblock_agrad_tp_time_exposed;
  s->edgeblock_agrad_tp_time_exposed = b->edgeblock_agrad_tp_time_exposed;
  s->block_wgrad_flops = bpw_py_value (b->block_wgrad_flops);
  s->block_wgrad_flops_time = b->block_wgrad_flops_time;
  s->block_wgrad_mem_accessed = bpw_py_value (b->block_wgrad_mem_accessed);
  s->block_wgrad_mem_time = b->block_wgrad_mem_time;
  s->block_wgrad_time = b->block_wgrad_time;
  s->block_optim_flops = bpw_py_value (b->block_optim_flops);
  s->block_optim_flops_time = b->block_optim_flops_time;
  s->block_optim_mem_accessed = bpw_py_value (b->block_optim_mem_accessed);
  s->block_optim_mem_time = b->block_optim_mem_time;
  s->block_optim_time = b->block_optim_time;

  s->baseblock_fw_tp_size = (double) b->baseblock_fw_tp_size;
  s->edgeblock_fw_tp_size = (double) b->edgeblock_fw_tp_size;
  s->baseblock_bw_tp_size = (double) b->baseblock_agrad_tp_size;
  s->edgeblock_bw_tp_size = (double) b->edgeblock_agrad_tp_size;
  s->baseblock_recomm_size = (double) b->baseblock_recomm_size;
  s->edgeblock_recomm_size = (double) b->edgeblock_recomm_size;
  s->block_fw_pp_size = (double) llm->block_fw_pp_size;
  s->block_bw_pp_size = (double) llm->block_bw_pp_size;
  s->block_dp_size = (double) llm->block_dp_size;
  s->tp_bw_overlap_req = b->tp_bw_overlap_req;
  s->dp_bw_overlap_req_chunk = llm->dp_bw_overlap_req_chunk;
  s->dp_bw_overlap_req_tail = llm->dp_bw_overlap_req_tail;

  s->block_weight_space = bpw_py_value (b->block_weight_space);
  s->block_act_working_space = bpw_py_value (b->block_act_working_space);
  s->block_act_storage_space = bpw_py_value (b->block_act_storage_space);
  s->block_act_checkpoint_size = bpw_py_value (b->block_act_checkpoint_size);
  s->block_weight_grad_space = bpw_py_value (b->block_weight_grad_space);
  s->block_weight_grad_space_no_sharding =
    bpw_py_value (b->block_weight_grad_space_no_sharding);
  s->block_act_grad_space = bpw_py_value (b->block_act_grad_space);
  s->block_optimizer_space = bpw_py_value (b->block_optimizer_space);

  s->weight_space_with_offload = t->weight_space_min;
  s->act_space_with_offload = t->act_space_min;
  s->act_checkpoint_size_with_offload = t->act_checkpoint_size_min;
  s->act_grad_space_with_offload = t->act_grad_space_min;
  s->weight_grad_space_with_offload = t->weight_grad_space_min;
  s->optimizer_space_with_offload = t->optimizer_space_min;

  s->weight_space = llm->weight_space;
  s->act_space = llm->act_space;
  s->act_checkpoint_size = t->act_checkpoint_size;
  s->act_grad_space = t->act_grad_space;
  s->weight_grad_space = t->weight_grad_space;
  s->optimizer_space = t->optimizer_space;

  s->fw_time = llm->fw_time;
  s->bw_time = llm->agrad_time + llm->wgrad_time;
  s->optim_step_time = llm->optim_time;
  s->recompute_time = llm->re_time;
  s->recomm_link_time = training ? llm->recomm_time_link : 0;
  s->recomm_exposed_time = training ? llm->recomm_time_exposed : 0;
  s->bubble_time = llm->bubble_time;
  s->tp_comm_link_time = llm->tp_comm_time_link;
  s->pp_comm_link_time = llm->pp_comm_time_link;
  s->dp_comm_link_time = training ? llm->dp_comm_time_link : 0;
  s->tp_comm_exposed_time = llm->tp_comm_time_exposed;
  s->pp_comm_exposed_time = llm->pp_comm_time_exposed;
  s->dp_comm_exposed_time = training ? llm->dp_comm_time_exposed : 0;
  s->fw_offload_exposed_time = t->fw_offload_overhead;
  s->bw_offload_exposed_time = t->bw_offload_overhead;
  s->total_time = t->total_time;
  s->act_offload_bw_req = act_offload_size / fw_offload_time;
  s->weight_offload_bw_req = bpw_py_value (b->block_weight_space) / fw_offload_time;
  s->optim_offload_bw_req = training
                            ? (bpw_py_value (b->block_weight_grad_space)
                               + bpw_py_value (b->block_optimizer_space)) / bw_offload_time
                            : 0;
  if (training)
    {
      double fw_req = bpw_calculon_llm_fw_offload_size (llm) / fw_offload_time;
      double bw_req = bpw_calculon_llm_bw_offload_size (llm) / bw_offload_time;

      s->offload_mem_bw_req = bw_req > fw_req ? bw_req : fw_req;
    }
  else
    s->offload_mem_bw_req = bpw_calculon_llm_fw_offload_size (llm) / fw_offload_time;
  s->proc_mem_tier1_cap_req = t->tier1;
  s->proc_mem_tier2_cap_req = t->tier2;
  s->useful_flops = bpw_py_value (useful);
  s->compute_efficiency = perfect_time / compute_time;
  s->system_efficiency = compute_time / t->total_time;
  s->total_efficiency = perfect_time / t->total_time;
  s->sample_rate = (double) exe->batch_size / t->total_time;
}

/* Public API ---------------------------------------------------------------------------- */

gboolean
_bpw_calculon_llm_run (BpwCalculonLlm         *llm,
                       const BpwCalculonBlock *block,
                       BpwCalculonStats       *stats,
                       char                  **reason)
{
  const BpwCalculonSystem *sys = llm->sys;
  BpwCalculonTotals totals;

  llm->block = block;
  bpw_calculon_llm_batch_stats (llm);
  bpw_calculon_llm_totals (llm, &totals);

  /* _check_mem_caps() */
  if (totals.tier1 > sys->mem1_capacity || totals.tier2 > sys->mem2_capacity)
    {
      gboolean first = totals.tier1 > sys->mem1_capacity;

      if (reason != NULL)
        *reason = g_strdup_printf ("Mem tier%d needs %.2f GiB but only has %.2f GiB",
                                   first ? 1 : 2, (first ? totals.tier1 : totals.tier2) / GIB,
                                   (first ? sys->mem1_capacity : sys->mem2_capacity) / GIB);
      return FALSE;
    }
  bpw_calculon_llm_stats (llm, &totals, stats);
  return TRUE;
}

gboolean
bpw_calculon_model_run (const BpwCalculonApp       *app,
                        const BpwCalculonSystem    *system,
                        const BpwCalculonExecution *exe,
                        BpwCalculonStats           *stats,
                        BpwCalculonLayerStats      *layers,
                        guint                      *n_layers,
                        char                      **reason)
{
  BpwCalculonLlm llm;
  g_autofree BpwCalculonBlock *block = NULL;

  g_return_val_if_fail (app != NULL && system != NULL && exe != NULL, FALSE);
  g_return_val_if_fail (stats != NULL, FALSE);

  if (!_bpw_calculon_llm_compile (&llm, app, system, exe, reason))
    return FALSE;
  block = g_new (BpwCalculonBlock, 1);
  _bpw_calculon_block_build (block, app, system, exe);
  if (!_bpw_calculon_llm_run (&llm, block, stats, reason))
    return FALSE;
  if (layers != NULL)
    {
      for (guint i = 0; i < block->n_layers; i++)
        _bpw_calculon_layer_stats (&block->layers[i], &layers[i]);
      if (n_layers != NULL)
        *n_layers = block->n_layers;
    }
  return TRUE;
}
