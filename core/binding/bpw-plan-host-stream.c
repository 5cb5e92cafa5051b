/* bpw-plan-host-stream.c — what offloading costs: each layer streams its host-homed state
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A layer's operations work on device copies of what the mapping places on the host: the
 * double buffer that bpw-plan-memory.c keeps on device. The host link streams the layer's
 * share beside its work: offloaded weights (and gradients, optimizer offload) come in and go
 * out, and the activations the layer stores for backward, its stash, go out during its
 * forward and come back during its backward. What the layer's work does not hide, the layer
 * waits for. That is Calculon's offload overhead per block (shared/docs/CALCULON.md §5,
 * Offload): max (0, stream − the block's time beside its memory traffic), with Calculon's
 * link model: in forward, weights come in while the stash goes out, the two directions of a
 * full-duplex link, so the longer of the two counts; in backward everything shares it.
 *
 * Charging the host link per operation instead, as an operation's own traffic, would make
 * an element-wise kernel wait for a stream that the whole layer's matmuls hide; it priced
 * activation offload at ten times Calculon's step time.
 *
 * The optimizer step is not a layer's: it runs once per step after the last backward, and
 * its host traffic stays its own (bpw_plan_task_cost). The stream's own device-memory
 * traffic (the DMA reading or writing the double buffer) is not charged: one pass, against
 * the operations' many reads and writes of the same bytes.
 */
#define G_LOG_DOMAIN "bpw-plan-host-stream"

#include "config.h"

#include "bpw-plan-private.h"
#include "bpw-dist-work-private.h"

/* Per layer of a stage, indexed by layer − first. Bytes and seconds per micro-batch. */
typedef struct
{
  double stash;       /* stored activations, when activations are placed on the host */
  double fwd_host;    /* the forward's own host-homed operand bytes */
  double bwd_host;    /* recompute's and backward's */
  double fwd_window;  /* forward work beside its memory traffic (s) */
  double bwd_window;  /* recompute and backward work beside memory traffic (s) */
  gint32 last_fwd;    /* task that ends the forward, −1 none */
  gint32 first_bwd;   /* task that starts the backward proper, −1 none */
} LayerStream;

static double
host_time (const BpwMemoryRate *host, double bytes)
{
  if (bytes <= 0)
    return 0;
  return bytes / (host->bandwidth * bpw_efficiency_table_lookup (&host->level->efficiency,
                                                                 bytes));
}

static void
charge (BpwPlanTask *t, double stash, double exposed)
{
  double per = t->count > 0 ? 1.0 / t->count : 1.0;

  t->stash_bytes += stash * per;
  t->stream_s += exposed * per;
  t->cost.stall_s += exposed * per;
  t->cost.time_s += exposed * per;
  if (t->cost.stall_s > t->cost.compute_s && t->cost.bottleneck == BPW_BOTTLENECK_COMPUTE)
    t->cost.bottleneck = BPW_BOTTLENECK_MEMORY;
}

/* Stored activations of each layer of stage @s that leave the chip, per micro-batch. */
static void
add_stashes (const BpwPlan *plan, const guint32 *groups, gint64 s, gint32 first, gint32 last,
             LayerStream *layers)
{
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;

  for (guint i = 0; i < g->tensors->len; i++)
    {
      const BpwTensor *t = bpw_work_graph_tensor (g, i);

      if (t->kind == BPW_TENSOR_ACTIVATION && t->stored == BPW_STORED_CHECKPOINT &&
          t->layer >= first && t->layer <= last &&
          _bpw_dist_work_stage_of_layer (dist, t->layer) == s &&
          !_bpw_plan_tensor_on_chip (g, groups, t))
        layers[t->layer - first].stash += (double) _bpw_dist_work_tensor_rank_bytes (dist, t);
    }
}

static double
stream_stage (BpwPlan *plan, const guint32 *groups, gboolean acts_on_host, gint64 s)
{
  const BpwMemoryRate *host = &plan->rates.traffic[BPW_TRAFFIC_HOST];
  GArray *tasks = plan->stages[s].tasks;
  g_autofree LayerStream *layers = NULL;
  gint32 first = G_MAXINT32, last = G_MININT32;
  double stashed = 0;

  for (guint i = 0; i < tasks->len; i++)
    {
      gint32 l = g_array_index (tasks, BpwPlanTask, i).layer;

      first = MIN (first, l);
      last = MAX (last, l);
    }
  if (first > last)
    return 0;
  layers = g_new0 (LayerStream, (gsize) (last - first + 1));
  for (gint32 l = 0; l <= last - first; l++)
    layers[l].last_fwd = layers[l].first_bwd = -1;
  if (acts_on_host)
    add_stashes (plan, groups, s, first, last, layers);

  for (guint i = 0; i < tasks->len; i++)
    {
      const BpwPlanTask *t = &g_array_index (tasks, BpwPlanTask, i);
      LayerStream *ls = &layers[t->layer - first];
      double beside = (t->cost.compute_s + t->cost.overhead_s) * t->count;
      double bytes = t->bytes[BPW_TRAFFIC_HOST] * t->count;

      switch ((BpwPhase) t->phase)
        {
        case BPW_PHASE_FORWARD:
          ls->fwd_window += beside;
          ls->fwd_host += bytes;
          ls->last_fwd = (gint32) i;
          break;
        case BPW_PHASE_RECOMPUTE:
        case BPW_PHASE_BACKWARD_ACTIVATION:
        case BPW_PHASE_BACKWARD_WEIGHT:
          ls->bwd_window += beside;
          ls->bwd_host += bytes;
          /* The wait is charged to backward proper, so that recompute's share of the step
           * stays what recomputing costs. */
          if (ls->first_bwd < 0 && t->phase != BPW_PHASE_RECOMPUTE)
            ls->first_bwd = (gint32) i;
          break;
        case BPW_PHASE_OPTIMIZER:
        case BPW_N_PHASES:
        default:
          break;
        }
    }

  for (gint32 l = 0; l <= last - first; l++)
    {
      const LayerStream *ls = &layers[l];
      /* A stash nobody reads back is never written out (inference stores none). */
      double stash = ls->first_bwd >= 0 ? ls->stash : 0;

      if (ls->last_fwd >= 0 && (ls->fwd_host > 0 || stash > 0))
        charge (&g_array_index (tasks, BpwPlanTask, ls->last_fwd), stash,
                MAX (0.0, MAX (host_time (host, ls->fwd_host), host_time (host, stash)) -
                          ls->fwd_window));
      if (ls->first_bwd >= 0 && (ls->bwd_host > 0 || stash > 0))
        charge (&g_array_index (tasks, BpwPlanTask, ls->first_bwd), stash,
                MAX (0.0, host_time (host, ls->bwd_host + stash) - ls->bwd_window));
      stashed += 2.0 * stash;
    }
  return stashed;
}

void
_bpw_plan_bind_host_streams (BpwPlan *plan)
{
  const BpwDistWork *dist = plan->dist;
  g_autofree guint32 *groups = NULL;
  gboolean acts_on_host;
  double stashed = 0, occurrences;

  if (plan->rates.traffic[BPW_TRAFFIC_HOST].level == NULL)
    return;  /* host-placed bytes then cost device bandwidth only (bpw_cost_task) */
  acts_on_host = _bpw_plan_traffic_level (plan->blueprint, &plan->mapping,
                                          BPW_TENSOR_ACTIVATION) == BPW_TRAFFIC_HOST;
  if (acts_on_host)
    groups = _bpw_plan_fusion_groups (dist->graph, plan->mapping.fusion);
  for (gint64 s = 0; s < dist->n_stages; s++)
    stashed += stream_stage (plan, groups, acts_on_host, s);

  /* Per micro-batch and rank above; the ledger counts the step's streams on every rank. */
  occurrences = (double) plan->micro_batches * (double) (dist->parallel.tp * dist->parallel.dp);
  if (stashed > 0)
    _bpw_plan_add_transformation (plan, "activation-offload", "each layer's stored "
                                  "activations stream to host memory during its forward and "
                                  "back during its backward, over the host link", 0,
                                  stashed * occurrences, occurrences);
}
