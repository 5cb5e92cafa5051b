/* bpw-calculon-layer.c — Calculon's layers: their FLOPs, bytes, times and communication
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Formulas from Calculon's calculon/llm/layers.py @ caa4b11 (Apache License 2.0; see
 * bpw-calculon-model.h for the NOTICE and the changes). Each function is one Layer method
 * with the overrides of its subclasses; the arithmetic keeps Python's order and number
 * types. The layer's statistics are in bpw-calculon-stats.c, the system's throughputs and
 * network times in bpw-calculon-system.c.
 */
#define G_LOG_DOMAIN "bpw-calculon-layer"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-calculon-model-private.h"

static double
bpw_calculon_vector_throughput (const BpwCalculonSystem *sys,
                                double                   flops)
{
  return sys->vector_flops * _bpw_calculon_curve_efficiency (&sys->vector, flops);
}

static double
bpw_calculon_matrix_throughput (const BpwCalculonSystem *sys,
                                double                   flops)
{
  return sys->matrix_flops * _bpw_calculon_curve_efficiency (&sys->matrix, flops);
}

/* Constructors ------------------------------------------------------------------------ */

static void
bpw_calculon_layer_init (BpwCalculonLayer        *l,
                         BpwCalculonLayerKind     kind,
                         const BpwCalculonSystem *sys,
                         const char              *name,
                         BpwPyNum                 fw_flops,
                         BpwPyNum                 agrad_flops,
                         BpwPyNum                 wgrad_flops,
                         gint64                   inputs_size,
                         gint64                   output_size,
                         gint64                   activation_space,
                         gint64                   activation_grads,
                         gint64                   weight_space,
                         gint64                   weight_grads,
                         gint64                   optim_space,
                         guint                    flags)
{
  memset (l, 0, sizeof *l);
  l->kind = kind;
  l->sys = sys;
  l->name = name;
  l->fw_flops = fw_flops;
  l->agrad_flops = agrad_flops;
  l->wgrad_flops = wgrad_flops;
  l->inputs_size = inputs_size;
  l->output_size = output_size;
  l->activation_space = activation_space;
  l->activation_grads = activation_grads;
  l->weight_space = weight_space;
  l->weight_grads = weight_grads;
  l->optim_space = optim_space;
  l->optim_sharding_num_proc = 1;
  l->bytes_per_element = 1;
  l->needs_recompute = (flags & BPW_CALCULON_RECOMPUTE) != 0;
  l->needs_recomm = (flags & BPW_CALCULON_RECOMM) != 0;
  l->activation_reused = (flags & BPW_CALCULON_REUSED) != 0;
  l->activation_stored = (flags & BPW_CALCULON_NO_ACT_STORED) == 0;
  l->output_stored = (flags & BPW_CALCULON_NO_OUTPUT_STORED) == 0;
}

void
_bpw_calculon_layer_linear (BpwCalculonLayer        *l,
                            const BpwCalculonSystem *sys,
                            const char              *name,
                            gint64                   batch_seq,
                            gint64                   c_in,
                            gint64                   c_out,
                            guint                    flags)
{
  gint64 m = batch_seq, n = c_in, k = c_out;
  BpwPyNum f = bpw_py_int (2 * m * n * k);

  bpw_calculon_layer_init (l, BPW_CALCULON_LINEAR, sys, name, f, f, f, m * n, m * k, m * n,
                           m * k, n * k, n * k, 2 * n * k, flags);
}

void
_bpw_calculon_layer_linear_overlapped (BpwCalculonLayer        *l,
                                       const BpwCalculonSystem *sys,
                                       const char              *name,
                                       gint64                   batch_seq,
                                       gint64                   c_in,
                                       gint64                   c_out,
                                       BpwCalculonTpComm        comm_type,
                                       gint64                   num_tiles,
                                       guint                    net_id,
                                       gint64                   num_peers,
                                       gboolean                 conjugate,
                                       BpwCalculonTpOverlap     tp_overlap,
                                       guint                    flags)
{
  gint64 m = batch_seq, n = c_in, k = c_out;
  gint64 act_space, act_grad_space, act_grad_net_buffer;
  BpwPyNum f;

  if (comm_type == BPW_CALCULON_TP_COMM_RS_AG)
    {
      if (!conjugate)
        {
          /* all-gather */
          k = k / num_peers;
          act_space = m * n / num_tiles;
          act_grad_space = m * k;
          act_grad_net_buffer = 0;
        }
      else
        {
          /* reduce-scatter */
          n = n / num_peers;
          act_space = m * n;
          act_grad_space = m * k / num_tiles;
          act_grad_net_buffer = m * k / num_tiles;
        }
    }
  else if (!conjugate)
    {
      /* all-reduce */
      k = k / num_peers;
      act_space = m * n;
      act_grad_space = 0;
      act_grad_net_buffer = 0;
    }
  else
    {
      /* identity */
      n = n / num_peers;
      act_space = 0;
      act_grad_space = m * k;
      act_grad_net_buffer = m * k;
    }

  f = bpw_py_int (2 * m * n * k);
  bpw_calculon_layer_init (l, BPW_CALCULON_LINEAR_OVERLAPPED, sys, name, f, f, f, m * n, m * k,
                           act_space, act_grad_space + act_grad_net_buffer, n * k, n * k,
                           2 * n * k, flags);
  l->comm_type = comm_type;
  l->num_tiles = num_tiles;
  l->net = &sys->networks[net_id];
  l->num_peers = num_peers;
  l->conjugate = conjugate;
  l->tp_overlap = tp_overlap;
}

void
_bpw_calculon_layer_batch_matmul (BpwCalculonLayer        *l,
                                  const BpwCalculonSystem *sys,
                                  const char              *name,
                                  gint64                   batch,
                                  gint64                   size_a,
                                  gint64                   contraction,
                                  gint64                   size_b,
                                  guint                    flags)
{
  gint64 m = size_a, n = contraction, k = size_b;

  bpw_calculon_layer_init (l, BPW_CALCULON_BATCH_MATMUL, sys, name,
                           bpw_py_int (batch * 2 * m * n * k),
                           bpw_py_int (batch * 2 * 2 * m * n * k), bpw_py_int (0),
                           batch * (m * n + n * k), batch * m * k, batch * (m * n + n * k),
                           batch * m * k, 0, 0, 0, flags);
}

void
_bpw_calculon_layer_layer_norm (BpwCalculonLayer        *l,
                                const BpwCalculonSystem *sys,
                                const char              *name,
                                gint64                   act_size,
                                gint64                   hidden,
                                guint                    flags)
{
  bpw_calculon_layer_init (l, BPW_CALCULON_LAYER_NORM, sys, name, bpw_py_int (9 * act_size),
                           bpw_py_int (14 * act_size), bpw_py_int (7 * act_size), act_size,
                           act_size, act_size, act_size, 2 * hidden, 2 * hidden,
                           2 * 2 * hidden, flags);
}

void
_bpw_calculon_layer_dropout (BpwCalculonLayer        *l,
                             const BpwCalculonSystem *sys,
                             const char              *name,
                             gint64                   act_size,
                             guint                    flags)
{
  bpw_calculon_layer_init (l, BPW_CALCULON_DROPOUT, sys, name, bpw_py_int (act_size),
                           bpw_py_int (act_size), bpw_py_int (0), act_size, act_size, act_size,
                           act_size, 0, 0, 0, flags);
}

void
_bpw_calculon_layer_gelu (BpwCalculonLayer        *l,
                          const BpwCalculonSystem *sys,
                          const char              *name,
                          gint64                   act_size,
                          gboolean                 fused,
                          guint                    flags)
{
  /* A fused GeLU runs inside the Linear before it and stores nothing. */
  gint64 stored = fused ? 0 : act_size;

  bpw_calculon_layer_init (l, BPW_CALCULON_GELU, sys, name, bpw_py_int (8 * act_size),
                           bpw_py_int (13 * act_size), bpw_py_int (0), act_size, act_size,
                           stored, stored, 0, 0, 0, flags);
}

void
_bpw_calculon_layer_softmax (BpwCalculonLayer        *l,
                             const BpwCalculonSystem *sys,
                             const char              *name,
                             gint64                   act_size,
                             guint                    flags)
{
  bpw_calculon_layer_init (l, BPW_CALCULON_SOFTMAX, sys, name, bpw_py_int (5 * act_size),
                           bpw_py_int (8 * act_size), bpw_py_int (0), act_size, act_size,
                           act_size, act_size, 0, 0, 0, flags);
}

void
_bpw_calculon_layer_elementwise (BpwCalculonLayer        *l,
                                 const BpwCalculonSystem *sys,
                                 const char              *name,
                                 gint64                   operand1,
                                 gint64                   operand2,
                                 guint                    flags)
{
  gint64 act_size = MAX (operand1, operand2);

  bpw_calculon_layer_init (l, BPW_CALCULON_ELEMENTWISE, sys, name, bpw_py_int (act_size),
                           bpw_py_int (operand1 + operand2), bpw_py_int (0),
                           operand1 + operand2, act_size, operand1 + operand2, act_size, 0, 0, 0,
                           flags);
}

void
_bpw_calculon_layer_fork (BpwCalculonLayer        *l,
                          const BpwCalculonSystem *sys,
                          const char              *name,
                          gint64                   act_size,
                          gint64                   num_users,
                          guint                    flags)
{
  /* The users' gradients add up in one buffer that the other layers account for. */
  bpw_calculon_layer_init (l, BPW_CALCULON_FORK, sys, name, bpw_py_int (0),
                           bpw_py_int (num_users * act_size), bpw_py_int (0), act_size, 0,
                           act_size, 0, 0, 0, 0, flags);
  l->num_users = num_users;
}

void
_bpw_calculon_layer_tp_comm (BpwCalculonLayer        *l,
                             const BpwCalculonSystem *sys,
                             const char              *name,
                             gint64                   act_size,
                             guint                    net_id,
                             gint64                   num_peers,
                             BpwCalculonTpComm        comm_type,
                             gboolean                 conjugate,
                             guint                    flags)
{
  BpwPyNum fw = bpw_py_int (0), bw = bpw_py_int (0);
  gint64 size = 0;

  if (num_peers > 1)
    {
      /* The reduction's additions run on the vector unit (no in-network reduction). */
      BpwPyNum reduce = bpw_py_float ((double) (act_size * (num_peers - 1)) / (double) num_peers);

      if (!conjugate)
        bw = reduce;
      else
        fw = reduce;
      size = act_size;
    }
  bpw_calculon_layer_init (l, BPW_CALCULON_TP_COMM, sys, name, fw, bw, bpw_py_int (0), size,
                           size, size, size, 0, 0, 0, flags);
  l->net = &sys->networks[net_id];
  l->num_peers = num_peers;
  l->comm_type = comm_type;
  l->comm_size = act_size;
  l->conjugate = conjugate;
}

/* Methods ----------------------------------------------------------------------------- */

static gboolean
bpw_calculon_layer_uses_matrix (const BpwCalculonLayer *l)
{
  return l->kind == BPW_CALCULON_LINEAR || l->kind == BPW_CALCULON_LINEAR_OVERLAPPED
         || l->kind == BPW_CALCULON_BATCH_MATMUL;
}

/* TPComm without sequence parallelism is the identity on one side of the pass. */
static gboolean
bpw_calculon_tp_comm_is_identity (const BpwCalculonLayer *l,
                                  gboolean                conjugate)
{
  return l->kind == BPW_CALCULON_TP_COMM && l->comm_type != BPW_CALCULON_TP_COMM_RS_AG
         && l->conjugate == conjugate;
}

double
_bpw_calculon_layer_optimizer (const BpwCalculonLayer *l)
{
  /* An fp32 master copy (for narrower types) and both Adam moments. */
  gint64 moments = l->optim_space * 4;
  gint64 master = l->bytes_per_element < 4 ? l->weight_space * 4 : 0;

  return (double) (master + moments) / (double) l->optim_sharding_num_proc;
}

BpwPyNum
_bpw_calculon_layer_flops (const BpwCalculonLayer *l,
                           BpwCalculonStage        stage)
{
  switch (stage)
    {
    case BPW_CALCULON_FW:
      return l->fw_flops;
    case BPW_CALCULON_AGRAD:
      return l->agrad_flops;
    case BPW_CALCULON_WGRAD:
      return l->wgrad_flops;
    case BPW_CALCULON_OPTIM:
    default:
      /* Adam: 11 FLOPs per (sharded) weight. */
      return bpw_py_float ((double) l->weight_grads / (double) l->optim_sharding_num_proc
                           * 11.0);
    }
}

static gint64
bpw_calculon_layer_fw_mem (const BpwCalculonLayer *l)
{
  switch (l->kind)
    {
    case BPW_CALCULON_DROPOUT:
      /* The mask: one byte per element. */
      return (l->inputs_size + l->output_size) * l->bytes_per_element + l->activation_space;
    case BPW_CALCULON_FORK:
      return 0;
    default:
      if (bpw_calculon_tp_comm_is_identity (l, FALSE))
        return 0;
      return (l->inputs_size + l->output_size + l->weight_space) * l->bytes_per_element;
    }
}

BpwPyNum
_bpw_calculon_layer_mem_accessed (const BpwCalculonLayer *l,
                                  BpwCalculonStage        stage)
{
  switch (stage)
    {
    case BPW_CALCULON_FW:
      return bpw_py_int (bpw_calculon_layer_fw_mem (l));
    case BPW_CALCULON_AGRAD:
      switch (l->kind)
        {
        case BPW_CALCULON_DROPOUT:
        case BPW_CALCULON_GELU:
        case BPW_CALCULON_SOFTMAX:
          return bpw_py_int (bpw_calculon_layer_fw_mem (l));
        case BPW_CALCULON_FORK:
          return bpw_py_int (l->activation_space * l->bytes_per_element * (l->num_users + 1));
        default:
          if (bpw_calculon_tp_comm_is_identity (l, TRUE))
            return bpw_py_int (0);
          return bpw_py_int ((l->weight_space + (l->activation_space + l->activation_grads))
                             * l->bytes_per_element);
        }
    case BPW_CALCULON_WGRAD:
      if (l->weight_space == 0)
        return bpw_py_int (0);
      return bpw_py_int ((l->weight_grads + (l->activation_space + l->activation_grads))
                         * l->bytes_per_element);
    case BPW_CALCULON_OPTIM:
    default:
      return bpw_py_float (_bpw_calculon_layer_optimizer (l));
    }
}

BpwPyNum
_bpw_calculon_layer_weight (const BpwCalculonLayer *l)
{
  return bpw_py_int (l->weight_space * l->bytes_per_element);
}

BpwPyNum
_bpw_calculon_layer_output (const BpwCalculonLayer *l)
{
  return bpw_py_int (l->output_size * l->bytes_per_element);
}

BpwPyNum
_bpw_calculon_layer_activation (const BpwCalculonLayer *l)
{
  if (l->kind == BPW_CALCULON_DROPOUT)
    return bpw_py_int (l->activation_space);
  if (l->kind == BPW_CALCULON_TP_COMM)
    {
      if (l->comm_type == BPW_CALCULON_TP_COMM_RS_AG)
        return bpw_py_float ((double) (l->activation_space * l->bytes_per_element)
                             / (double) l->num_peers);
      return bpw_py_int (l->conjugate ? l->activation_space * l->bytes_per_element : 0);
    }
  return bpw_py_int (l->activation_space * l->bytes_per_element);
}

BpwPyNum
_bpw_calculon_layer_activation_grad (const BpwCalculonLayer *l)
{
  if (l->kind == BPW_CALCULON_DROPOUT)
    return bpw_py_int (l->activation_grads);
  if (l->kind == BPW_CALCULON_TP_COMM)
    {
      if (l->comm_type == BPW_CALCULON_TP_COMM_RS_AG)
        return bpw_py_float ((double) (l->activation_space * l->bytes_per_element)
                             / (double) l->num_peers);
      return bpw_py_int (!l->conjugate ? l->activation_grads * l->bytes_per_element : 0);
    }
  return bpw_py_int (l->activation_grads * l->bytes_per_element);
}

BpwPyNum
_bpw_calculon_layer_weight_grad (const BpwCalculonLayer *l,
                                 gboolean                sharded)
{
  /* Sharded: the 16-bit copy kept for communication; else fp32 for accumulation. */
  if (sharded)
    return bpw_py_float ((double) (l->weight_grads * l->bytes_per_element)
                         / (double) l->optim_sharding_num_proc);
  return bpw_py_int (l->weight_grads * 4);
}

static gboolean
bpw_calculon_layer_split_comm (const BpwCalculonLayer *l,
                               gboolean                baseblock)
{
  return l->comm_type == BPW_CALCULON_TP_COMM_RS_AG
         || (l->comm_type == BPW_CALCULON_TP_COMM_P2P_RS_AG && !baseblock);
}

gint64
_bpw_calculon_layer_comm_bytes (const BpwCalculonLayer *l,
                                BpwCalculonStage        stage,
                                gboolean                baseblock)
{
  gboolean split;

  if (l->kind != BPW_CALCULON_LINEAR_OVERLAPPED && l->kind != BPW_CALCULON_TP_COMM)
    return 0;
  if (l->num_peers == 1)
    return 0;
  split = bpw_calculon_layer_split_comm (l, baseblock);

  if (l->kind == BPW_CALCULON_TP_COMM)
    {
      gint64 bytes = l->comm_size * l->bytes_per_element;

      if (!split && ((l->conjugate && stage == BPW_CALCULON_AGRAD)
                     || (!l->conjugate && stage == BPW_CALCULON_FW)))
        return 0;   /* identity forward or all-reduce backward */
      if (stage == BPW_CALCULON_FW || stage == BPW_CALCULON_AGRAD)
        return bytes;
      /* All-gather redo: again in the forward's (not conjugate) and the backward's. */
      if (stage == BPW_CALCULON_WGRAD && l->needs_recomm && (split || l->conjugate))
        return bytes;
      return 0;
    }

  switch (stage)
    {
    case BPW_CALCULON_FW:
      if (l->conjugate)
        return l->output_size * l->bytes_per_element;   /* reduce-scatter or all-reduce */
      return split ? l->inputs_size * l->bytes_per_element : 0;
    case BPW_CALCULON_AGRAD:
      if (!l->conjugate)
        return l->inputs_size * l->bytes_per_element;
      return split ? l->output_size * l->bytes_per_element : 0;
    case BPW_CALCULON_WGRAD:
      return l->needs_recomm ? _bpw_calculon_layer_comm_bytes (l, BPW_CALCULON_FW, baseblock)
                             : 0;
    case BPW_CALCULON_OPTIM:
    default:
      return 0;
    }
}

double
_bpw_calculon_layer_comm_tile (const BpwCalculonLayer *l,
                               BpwCalculonStage        stage,
                               gboolean                baseblock)
{
  gint64 bytes = _bpw_calculon_layer_comm_bytes (l, stage, baseblock);

  if (l->kind == BPW_CALCULON_LINEAR_OVERLAPPED)
    return (double) bytes / (double) l->num_tiles;
  return (double) bytes;
}

double
_bpw_calculon_layer_flops_time (const BpwCalculonLayer *l,
                                BpwCalculonStage        stage)
{
  double flops = bpw_py_value (_bpw_calculon_layer_flops (l, stage));
  double throughput;

  if (bpw_calculon_layer_uses_matrix (l) && stage != BPW_CALCULON_OPTIM)
    throughput = bpw_calculon_matrix_throughput (l->sys, flops);
  else
    throughput = bpw_calculon_vector_throughput (l->sys, flops);
  return flops / throughput;
}

double
_bpw_calculon_layer_mem_time (const BpwCalculonLayer *l,
                              BpwCalculonStage        stage)
{
  double mem = bpw_py_value (_bpw_calculon_layer_mem_accessed (l, stage));

  return mem / (l->sys->mem1_bandwidth * _bpw_calculon_curve_efficiency (&l->sys->mem1, mem));
}

static double
bpw_calculon_layer_base_processing_time (const BpwCalculonLayer *l,
                                         BpwCalculonStage        stage)
{
  return _bpw_calculon_processing_time (l->sys, _bpw_calculon_layer_flops_time (l, stage),
                                        _bpw_calculon_layer_mem_time (l, stage));
}

/* The reduction FLOPs of a collective of @stage's bytes, on the vector unit. */
static double
bpw_calculon_layer_reduce_time (const BpwCalculonLayer *l,
                                BpwCalculonStage        stage,
                                gboolean                baseblock)
{
  double flops = (double) _bpw_calculon_layer_comm_bytes (l, stage, baseblock)
                 / (double) l->bytes_per_element;

  flops = flops * (double) (l->num_peers - 1) / (double) l->num_peers;
  return flops / bpw_calculon_vector_throughput (l->sys, flops);
}

static double
bpw_calculon_linear_overlapped_net_time (const BpwCalculonLayer *l,
                                         BpwCalculonStage        stage,
                                         gboolean                baseblock)
{
  gboolean split = bpw_calculon_layer_split_comm (l, baseblock);
  int fw_op, bw_op;   /* BpwCalculonOp, or -1 for none */
  double fw_flop_time = 0, bw_flop_time = 0;

  if (l->num_peers == 1)
    return 0;
  if (l->conjugate)
    {
      fw_op = split ? BPW_CALCULON_OP_REDUCE_SCATTER : BPW_CALCULON_OP_ALL_REDUCE;
      bw_op = split ? BPW_CALCULON_OP_ALL_GATHER : -1;
      fw_flop_time = bpw_calculon_layer_reduce_time (l, stage, baseblock);
    }
  else
    {
      fw_op = split ? BPW_CALCULON_OP_ALL_GATHER : -1;
      bw_op = split ? BPW_CALCULON_OP_REDUCE_SCATTER : BPW_CALCULON_OP_ALL_REDUCE;
      bw_flop_time = bpw_calculon_layer_reduce_time (l, stage, baseblock);
    }

  switch (stage)
    {
    case BPW_CALCULON_FW:
      if (fw_op < 0)
        return 0;
      return _bpw_calculon_network_time (l->net, fw_op,
                                         (double) _bpw_calculon_layer_comm_bytes (l, stage,
                                                                                  baseblock),
                                         l->num_peers) + fw_flop_time;
    case BPW_CALCULON_AGRAD:
      if (bw_op < 0)
        return 0;
      return _bpw_calculon_network_time (l->net, bw_op,
                                         (double) _bpw_calculon_layer_comm_bytes (l, stage,
                                                                                  baseblock),
                                         l->num_peers) + bw_flop_time;
    case BPW_CALCULON_WGRAD:
      /* All-gather redo (rs_ag only) or full recompute. */
      if (l->needs_recomm && fw_op >= 0)
        return _bpw_calculon_network_time (l->net, fw_op,
                                           (double) _bpw_calculon_layer_comm_bytes (l, stage,
                                                                                    baseblock),
                                           l->num_peers);
      return 0;
    case BPW_CALCULON_OPTIM:
    default:
      return 0;
    }
}

static double
bpw_calculon_tp_comm_net_time (const BpwCalculonLayer *l,
                               BpwCalculonStage        stage,
                               gboolean                baseblock)
{
  gboolean split = bpw_calculon_layer_split_comm (l, baseblock);
  double bytes, net_compute_time, fw_net_time, bw_net_time;

  if (l->num_peers == 1)
    return 0;
  bytes = (double) _bpw_calculon_layer_comm_bytes (l, stage, baseblock);
  net_compute_time = bpw_calculon_layer_base_processing_time (l, stage);
  if (split)
    {
      fw_net_time = _bpw_calculon_network_time (l->net, l->conjugate
                                                ? BPW_CALCULON_OP_REDUCE_SCATTER
                                                : BPW_CALCULON_OP_ALL_GATHER,
                                                bytes, l->num_peers);
      bw_net_time = _bpw_calculon_network_time (l->net, l->conjugate
                                                ? BPW_CALCULON_OP_ALL_GATHER
                                                : BPW_CALCULON_OP_REDUCE_SCATTER,
                                                bytes, l->num_peers);
    }
  else if (l->conjugate)
    {
      fw_net_time = _bpw_calculon_network_time (l->net, BPW_CALCULON_OP_ALL_REDUCE, bytes,
                                                l->num_peers);
      bw_net_time = 0;
    }
  else
    {
      fw_net_time = 0;
      bw_net_time = _bpw_calculon_network_time (l->net, BPW_CALCULON_OP_ALL_REDUCE, bytes,
                                                l->num_peers);
    }

  switch (stage)
    {
    case BPW_CALCULON_FW:
      return fw_net_time + net_compute_time;
    case BPW_CALCULON_AGRAD:
      return bw_net_time + net_compute_time;
    case BPW_CALCULON_WGRAD:
      return l->needs_recomm ? fw_net_time + net_compute_time : 0;
    case BPW_CALCULON_OPTIM:
    default:
      return 0;
    }
}

double
_bpw_calculon_layer_net_time (const BpwCalculonLayer *l,
                              BpwCalculonStage        stage,
                              gboolean                baseblock)
{
  if (l->kind == BPW_CALCULON_LINEAR_OVERLAPPED)
    return bpw_calculon_linear_overlapped_net_time (l, stage, baseblock);
  if (l->kind == BPW_CALCULON_TP_COMM)
    return bpw_calculon_tp_comm_net_time (l, stage, baseblock);
  return 0;
}

/* LinearOverlapped: the GEMM in TP tiles, each tile's communication behind the next tile's
 * compute, which it slows by the tier's processor usage. */
static double
bpw_calculon_linear_overlapped_processing_time (BpwCalculonLayer *l,
                                                BpwCalculonStage  stage)
{
  double pu = l->net->processor_usage;
  double tiles = (double) l->num_tiles;
  double flop_time = _bpw_calculon_layer_flops_time (l, stage);
  double flop_time_slowed = flop_time / (1 - pu);
  double mem_time = _bpw_calculon_layer_mem_time (l, stage);
  double net_time = _bpw_calculon_layer_net_time (l, stage, TRUE);
  double compute_time = _bpw_calculon_processing_time (l->sys, flop_time, mem_time);
  double time, exposed;

  if (net_time == 0)
    {
      time = compute_time;
      exposed = 0;
    }
  else
    {
      double compute_time_slowed = _bpw_calculon_processing_time (l->sys, flop_time_slowed,
                                                                  mem_time);
      double flop_tile_slowed = flop_time_slowed / tiles;
      double net_tile = net_time / tiles;
      double compute_tile = compute_time / tiles;
      double compute_tile_slowed = compute_time_slowed / tiles;
      double overlap_inflection = net_tile - flop_tile_slowed;

      if (overlap_inflection > 0)
        {
          /* communication is longer than compute: the excess is exposed */
          time = compute_tile + (tiles - 1) * compute_tile_slowed;
          exposed = (tiles - 1) * overlap_inflection;
        }
      else
        {
          time = compute_tile + (tiles - 1) * compute_tile + (tiles - 1) * net_tile * pu;
          exposed = 0;
        }
      /* The pipe schedule sends one tile before the first compute; ring does not. */
      if (l->tp_overlap == BPW_CALCULON_TP_OVERLAP_PIPE)
        {
          exposed += net_tile;
          time += net_tile;
        }
    }
  l->net_exposed_time = exposed;
  return time;
}

double
_bpw_calculon_layer_processing_time (BpwCalculonLayer *l,
                                     BpwCalculonStage  stage)
{
  if (l->kind == BPW_CALCULON_LINEAR_OVERLAPPED)
    return bpw_calculon_linear_overlapped_processing_time (l, stage);
  if (l->kind == BPW_CALCULON_TP_COMM)
    return 0;   /* its time is communication, counted there */
  return bpw_calculon_layer_base_processing_time (l, stage);
}

double
_bpw_calculon_layer_exposed_net_time (const BpwCalculonLayer *l,
                                      BpwCalculonStage        stage,
                                      gboolean                baseblock)
{
  if (l->kind == BPW_CALCULON_LINEAR_OVERLAPPED)
    return l->net_exposed_time;
  if (l->kind == BPW_CALCULON_TP_COMM)
    return _bpw_calculon_layer_net_time (l, stage, baseblock);
  return 0;
}

double
_bpw_calculon_layer_required_bandwidth (const BpwCalculonLayer *l,
                                        BpwCalculonStage        stage,
                                        gboolean                baseblock)
{
  double flop_time_slowed;

  if (l->kind != BPW_CALCULON_LINEAR_OVERLAPPED)
    return 0;
  flop_time_slowed = _bpw_calculon_layer_flops_time (l, stage) / (1 - l->net->processor_usage);
  return _bpw_calculon_layer_comm_tile (l, stage, baseblock)
         / (flop_time_slowed / (double) l->num_tiles);
}
