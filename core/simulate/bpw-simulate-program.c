/* bpw-simulate-program.c — what each pipeline stage runs: segments, dependencies, buffers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Plan tasks are stored in op order, which is topological (an op's dependencies are
 * earlier ops). A stage's tasks split into segments: forward and backward (recompute
 * included) per micro-batch and model chunk, and the optimizer per step. Dependencies
 * are kept inside a segment; those that cross segments are carried by the pipeline
 * (sends between stages) or by the segment order itself (a backward segment waits for
 * its forward). Buffers are allocated at their first local writer (or first local reader
 * when another stage produced them) and freed at their last local reader; a buffer whose
 * last reader is on another stage is a send buffer, freed when the pipeline send ends.
 */
#define G_LOG_DOMAIN "bpw-simulate-program"

#include "config.h"

#include <string.h>

#include "bpw-simulation-private.h"
#include "bpw-dist-work-private.h"
#include "bpw-plan-private.h"

const BpwPlanTransfer *
_bpw_sim_transfer (const BpwPlan *plan,
                   guint          stage,
                   guint32        item)
{
  return &g_array_index (plan->stages[stage].transfers, BpwPlanTransfer, item);
}

static guint8
seg_of_phase (const SimProgram *p, guint phase)
{
  switch ((BpwPhase) phase)
    {
    case BPW_PHASE_FORWARD:
      return SIM_SEG_FORWARD;
    case BPW_PHASE_OPTIMIZER:
      return SIM_SEG_OPTIMIZER;
    case BPW_PHASE_BACKWARD_WEIGHT:
      return p->split_weight ? SIM_SEG_WEIGHT : SIM_SEG_BACKWARD;
    case BPW_PHASE_RECOMPUTE:
    case BPW_PHASE_BACKWARD_ACTIVATION:
    case BPW_N_PHASES:
    default:
      return SIM_SEG_BACKWARD;
    }
}

/* Model chunk of a layer on its stage: virtual stage c·pp + s is chunk c of stage s
 * (bpw_dist_work_place_layer()); embedding in the first chunk, head and loss in the last. */
static guint8
chunk_of_layer (const SimProgram *p, const BpwDistWork *dist, gint32 layer)
{
  gint64 chunk;

  if (p->chunks <= 1)
    return 0;
  bpw_dist_work_place_layer (dist, layer, NULL, &chunk, NULL);
  return (guint8) CLAMP (chunk, 0, p->chunks - 1);
}

/* Position of a block among its stage's blocks; -1 for the embedding and head sides. */
static gint64
slot_of_layer (const BpwDistWork *dist, gint32 layer)
{
  gint64 slot;

  bpw_dist_work_place_layer (dist, layer, NULL, NULL, &slot);
  return slot;
}

/* Virtual stage k = c·p + s sends forward when it is not the last, backward when it is
 * not the first. */
static gboolean
list_sends (const SimProgram *p, gint64 stage, guint seg, guint chunk)
{
  gint64 k = (gint64) chunk * p->n_stages + stage, last = p->chunks * p->n_stages - 1;

  if (seg == SIM_SEG_FORWARD)
    return k < last;
  return seg == SIM_SEG_BACKWARD && p->train && k > 0;
}

static gboolean
is_gather_name (const char *name)
{
  return strcmp (name, "tp.all_gather") == 0 || strcmp (name, "tp.regather") == 0 ||
         strcmp (name, "tp.grad_gather") == 0 || strcmp (name, "ep.combine") == 0 ||
         strcmp (name, "cp.kv_gather") == 0 || strcmp (name, "cp.kv_regather") == 0;
}

/* Context parallelism's ring: cp − 1 steps, each overlapped with one block of the
 * attention core. The program runs the attention core as whole tasks, not per block, so
 * the ring is issued as the part of it that no block hides (bpw_plan_transfer_exposed()),
 * before the attention it feeds. */
static gboolean
is_cp_ring (const BpwPlanTransfer *tr)
{
  return tr->group == BPW_GROUP_CP && tr->kind == BPW_COLLECTIVE_SEND_RECV;
}

static SimXferClass
classify (const BpwPlan *plan, const BpwPlanTransfer *tr)
{
  const char *name = bpw_work_graph_name (plan->dist->graph, tr->name);

  if (tr->group == BPW_GROUP_PP && tr->kind == BPW_COLLECTIVE_SEND_RECV)
    return tr->phase == BPW_PHASE_FORWARD ? SIM_XFER_PP_FORWARD : SIM_XFER_PP_BACKWARD;
  if (bpw_plan_transfer_per_step (tr->group, tr->kind, tr->phase))
    {
      if (tr->group == BPW_GROUP_PP)
        return SIM_XFER_TIED;
      if (tr->phase == BPW_PHASE_OPTIMIZER)
        return SIM_XFER_DP_GATHER_STEP;
      if (tr->phase == BPW_PHASE_FORWARD)
        return SIM_XFER_DP_GATHER_MB;
      return SIM_XFER_DP_REDUCE;
    }
  if (tr->group == BPW_GROUP_TP && plan->mapping.tp_overlap != BPW_TP_OVERLAP_NONE)
    return SIM_XFER_OVERLAP;
  if (is_cp_ring (tr))
    return SIM_XFER_BLOCKING_PRE;
  return is_gather_name (name) ? SIM_XFER_BLOCKING_PRE : SIM_XFER_BLOCKING_POST;
}

static void
build_tasks (SimProgram *p, SimStage *st, const BpwPlan *plan, gint32 *local_of_op)
{
  GArray *tasks = plan->stages[st->index].tasks;

  for (guint i = 0; i < tasks->len; i++)
    {
      const BpwPlanTask *pt = &g_array_index (tasks, BpwPlanTask, i);
      SimTask t = {
        .duration = pt->cost.time_s * pt->count,
        .item = i,
        .queue = pt->engine == BPW_ENGINE_MATRIX ? BPW_SIM_QUEUE_MATRIX
                                                 : BPW_SIM_QUEUE_VECTOR,
        .phase = pt->phase,
        .seg = seg_of_phase (p, pt->phase),
      };
      SimList *list;

      t.chunk = t.seg == SIM_SEG_OPTIMIZER ? 0 : chunk_of_layer (p, plan->dist, pt->layer);
      list = &st->lists[t.seg * p->chunks + t.chunk];
      t.pos = list->tasks->len;
      g_array_append_val (list->tasks, i);
      g_array_append_val (st->tasks, t);
      local_of_op[pt->op] = (gint32) i;
    }
}

static void
build_deps (SimStage *st, const BpwPlan *plan, const gint32 *local_of_op)
{
  const BpwWorkGraph *g = plan->dist->graph;

  for (guint i = 0; i < st->tasks->len; i++)
    {
      SimTask *t = &g_array_index (st->tasks, SimTask, i);
      const BpwOp *op = bpw_work_graph_op (g, g_array_index (plan->stages[st->index].tasks,
                                                             BpwPlanTask, i).op);

      t->dep_first = st->deps->len;
      for (guint d = op->dep_first; d < op->dep_first + op->dep_count; d++)
        {
          gint32 j = local_of_op[g_array_index (g->deps, guint32, d)];
          const SimTask *u;

          if (j < 0 || (guint) j >= i)
            continue;
          u = &g_array_index (st->tasks, SimTask, j);
          if (u->seg == t->seg && u->chunk == t->chunk)
            {
              guint32 dj = (guint32) j;

              g_array_append_val (st->deps, dj);
              t->dep_count++;
            }
        }
    }
}

/* The first task of a segment list, for a transfer whose op is not on this stage. */
static gint32
first_task_of (const SimProgram *p, const SimStage *st, guint seg)
{
  const SimList *l = &st->lists[seg * p->chunks];

  return l->tasks->len > 0 ? (gint32) g_array_index (l->tasks, guint32, 0) : -1;
}

/* A hierarchical collective (not one overlapped with its task, which keeps its window as a
 * whole) runs as its parts, each on its own tier's link: priced as the plan priced the
 * whole, their shares of the transfer's duration in the same ratios. */
static void
split_parts (SimXfer *x, const BpwPlan *plan, const BpwPlanTransfer *tr)
{
  BpwCollectivePart parts[BPW_COLLECTIVE_MAX_PARTS];
  BpwCollectiveSpan span;
  double total = 0;
  guint n;

  if (tr->algorithm != BPW_COLLECTIVE_ALGO_HIERARCHICAL || x->klass == SIM_XFER_OVERLAP ||
      x->klass == SIM_N_XFER_CLASSES || x->duration <= 0 || tr->tier <= 0)
    return;
  bpw_cost_span_init (&span, plan->blueprint, (guint) tr->tier, tr->ranks,
                      bpw_cost_group_stride (&plan->mapping.parallel, tr->group));
  n = bpw_cost_span_parts (&span, BPW_COLLECTIVE_ALGO_HIERARCHICAL, tr->kind, tr->bytes, parts);
  for (guint i = 0; i < n; i++)
    total += parts[i].time_s;
  if (n < 2 || !(total > 0))
    return;
  x->n_parts = (guint8) n;
  for (guint i = 0; i < n; i++)
    {
      x->part_tier[i] = (guint8) (parts[i].inner ? tr->tier - 1 : tr->tier);
      x->part_s[i] = parts[i].time_s * (x->duration / total);
      x->part_wire[i] = parts[i].wire_bytes;
      x->part_kind[i] = (guint8) parts[i].kind;
    }
}

static void
build_transfers (SimProgram *p, SimStage *st, const BpwPlan *plan, const gint32 *local_of_op)
{
  GArray *trs = plan->stages[st->index].transfers;
  g_autofree guint32 *counts = g_new0 (guint32, st->tasks->len * 3 + 1);
  const guint8 slot[SIM_N_XFER_CLASSES] = { [SIM_XFER_BLOCKING_PRE] = 0,
                                            [SIM_XFER_OVERLAP] = 1,
                                            [SIM_XFER_BLOCKING_POST] = 2 };

  for (guint k = 0; k < trs->len; k++)
    {
      const BpwPlanTransfer *tr = &g_array_index (trs, BpwPlanTransfer, k);
      const BpwTier *tier = &plan->blueprint->tiers[tr->tier];
      SimXfer x = {
        .duration = tr->time_s,
        .usage = tier->processor_usage.set ? tier->processor_usage.value : 0.0,
        .item = k,
        .task = -1,
        .ranks = MAX (tr->ranks, 1),
        .klass = classify (plan, tr),
        .tier = (guint8) tr->tier,
        .group = tr->group,
        .occurrences = 1,
      };

      switch ((SimXferClass) x.klass)
        {
        case SIM_XFER_PP_FORWARD:
        case SIM_XFER_PP_BACKWARD:
          st->pp_send[x.klass == SIM_XFER_PP_BACKWARD] = (gint32) (st->index << 16 | k);
          break;
        case SIM_XFER_DP_GATHER_MB:
          x.occurrences = (guint32) MAX (tr->count, 0.0);
          G_GNUC_FALLTHROUGH;
        case SIM_XFER_DP_REDUCE:
        case SIM_XFER_DP_GATHER_STEP:
        case SIM_XFER_TIED:
          g_array_append_val (st->step_xfers, k);
          break;
        case SIM_XFER_BLOCKING_PRE:
        case SIM_XFER_BLOCKING_POST:
        case SIM_XFER_OVERLAP:
        case SIM_N_XFER_CLASSES:
        default:
          {
            SimTask *t;
            SimList *list;

            x.duration = (is_cp_ring (tr) ? tr->exposed_s : tr->time_s) * tr->count;
            x.task = local_of_op[tr->op];
            if (x.task < 0)
              {
                /* Not expected: anchor it before the first task of its phase. */
                x.task = first_task_of (p, st, seg_of_phase (p, tr->phase));
                x.klass = x.klass == SIM_XFER_OVERLAP ? SIM_XFER_OVERLAP : SIM_XFER_BLOCKING_PRE;
              }
            if (x.task < 0)
              {
                x.klass = SIM_N_XFER_CLASSES;
                break;
              }
            if (tr->group == BPW_GROUP_TP || tr->group == BPW_GROUP_EP)
              x.bytes = tr->bytes;
            t = &g_array_index (st->tasks, SimTask, x.task);
            x.seg = t->seg;
            x.chunk = t->chunk;
            list = &st->lists[x.seg * p->chunks + x.chunk];
            x.pos = list->n_xfers++;
            counts[x.task * 3 + slot[x.klass]]++;
          }
          break;
        }
      split_parts (&x, plan, tr);
      g_array_append_val (st->xfers, x);
    }

  /* Attached transfers per task: pre, overlapped, post, each in plan order. */
  {
    guint32 total = 0;
    g_autofree guint32 *fill = g_new0 (guint32, st->tasks->len * 3 + 1);

    for (guint i = 0; i < st->tasks->len; i++)
      {
        SimTask *t = &g_array_index (st->tasks, SimTask, i);

        t->xfer_first = total;
        t->n_pre = (guint8) counts[i * 3];
        t->n_overlap = (guint8) counts[i * 3 + 1];
        t->n_post = (guint8) counts[i * 3 + 2];
        fill[i * 3] = total;
        fill[i * 3 + 1] = total + t->n_pre;
        fill[i * 3 + 2] = total + t->n_pre + t->n_overlap;
        total += t->n_pre + t->n_overlap + t->n_post;
      }
    g_array_set_size (st->attached, total);
    for (guint k = 0; k < st->xfers->len; k++)
      {
        const SimXfer *x = &g_array_index (st->xfers, SimXfer, k);

        if (x->klass <= SIM_XFER_OVERLAP && x->task >= 0)
          g_array_index (st->attached, guint32, fill[x->task * 3 + slot[x->klass]]++) = k;
      }
  }

  /* A task waits for the overlapped transfers of the tasks it depends on. */
  for (guint i = 0; i < st->tasks->len; i++)
    {
      SimTask *t = &g_array_index (st->tasks, SimTask, i);

      t->gate_first = st->gates->len;
      for (guint d = t->dep_first; d < t->dep_first + t->dep_count; d++)
        {
          const SimTask *u = &g_array_index (st->tasks, SimTask,
                                             g_array_index (st->deps, guint32, d));

          for (guint a = u->xfer_first + u->n_pre; a < u->xfer_first + u->n_pre + u->n_overlap;
               a++)
            {
              g_array_append_val (st->gates, g_array_index (st->attached, guint32, a));
              t->gate_count++;
            }
        }
    }
}

/* DP buckets: the end of the last backward task of each layer releases its gradients;
 * the stage's first layer (last in backward order) is released by the last task of its
 * segment, which also covers the embedding's gradients. */
static void
build_buckets (const SimProgram *p, SimStage *st, const BpwPlan *plan)
{
  GArray *ptasks = plan->stages[st->index].tasks;

  for (guint c = 0; c < p->chunks; c++)
    {
      /* The weight gradients' pass produces the gradients: ZB-H1's W, else backward. */
      const SimList *l = &st->lists[(p->split_weight ? SIM_SEG_WEIGHT : SIM_SEG_BACKWARD) *
                                    p->chunks + c];
      gint32 previous = G_MININT32;

      /* Backward visits layers in decreasing order: a task whose successor in the list
       * belongs to another layer is its layer's last. */
      for (guint n = l->tasks->len; n-- > 0;)
        {
          guint32 i = g_array_index (l->tasks, guint32, n);
          gint32 layer = g_array_index (ptasks, BpwPlanTask, i).layer;
          SimTask *t = &g_array_index (st->tasks, SimTask, i);

          gint64 slot = slot_of_layer (plan->dist, layer);

          if (n + 1 == l->tasks->len && c == 0)
            t->bucket = 1;  /* the stage's first layer */
          else if (layer >= 0 && layer != previous && slot > 0)
            t->bucket = (guint8) MIN (255, 1 + slot);
          if (layer >= 0)
            previous = layer;
        }
    }
}

/* With DP overlap, the previous step's ZeRO 1/2 weight gather runs in per-layer buckets
 * while this step's first forward runs (Megatron's overlapped parameter gather, in the
 * steady state): the first task of each layer in that forward waits for its bucket. The
 * embedding goes with the stage's first layer, the head with its last. */
static void
build_gather_gates (const SimProgram *p, SimStage *st, const BpwPlan *plan)
{
  GArray *ptasks = plan->stages[st->index].tasks;
  guint32 n = (guint32) MAX (st->n_layers, 1);
  gboolean gathers = FALSE;

  for (guint k = 0; k < st->step_xfers->len; k++)
    if (g_array_index (st->xfers, SimXfer,
                       g_array_index (st->step_xfers, guint32, k)).klass ==
        SIM_XFER_DP_GATHER_STEP)
      gathers = TRUE;
  if (!gathers || !plan->mapping.dp_overlap || !st->train)
    return;

  st->n_gather_buckets = n;
  for (guint c = 0; c < p->chunks; c++)
    {
      const SimList *l = &st->lists[SIM_SEG_FORWARD * p->chunks + c];
      guint32 previous = 0;

      for (guint k = 0; k < l->tasks->len; k++)
        {
          guint32 i = g_array_index (l->tasks, guint32, k);
          gint32 layer = g_array_index (ptasks, BpwPlanTask, i).layer;
          guint32 b;

          if (layer == BPW_LAYER_BEFORE_BLOCKS)
            b = 0;
          else if (layer == BPW_LAYER_AFTER_BLOCKS || slot_of_layer (plan->dist, layer) < 0)
            b = n - 1;
          else
            b = (guint32) CLAMP (slot_of_layer (plan->dist, layer), 0, (gint64) n - 1);
          if (b + 1 != previous)
            g_array_index (st->tasks, SimTask, i).gather_gate = previous = b + 1;
        }
    }
}

typedef struct
{
  guint32 task;
  SimMem  mem;
} PendingMem;

static gboolean
persistent_kind (guint kind)
{
  return kind == BPW_TENSOR_WEIGHT || kind == BPW_TENSOR_MASTER_WEIGHT ||
         kind == BPW_TENSOR_OPTIMIZER_STATE || kind == BPW_TENSOR_GRADIENT ||
         kind == BPW_TENSOR_KV_CACHE || kind == BPW_TENSOR_COMMUNICATION;
}

/* Lifetimes of the activations, activation gradients and recomputed copies a stage
 * touches: allocation and release as SimMem entries on tasks (or on a segment's send). */
static void
build_memory (const SimProgram *p, SimStage *st, const BpwPlan *plan, const gint32 *local_of_op,
              const guint32 *groups)
{
  const BpwDistWork *dist = plan->dist;
  const BpwWorkGraph *g = dist->graph;
  GArray *ptasks = plan->stages[st->index].tasks;
  guint n_tensors = g->tensors->len;
  g_autofree gint32 *writer = g_new (gint32, n_tensors);
  g_autofree gint32 *first_reader = g_new (gint32, n_tensors);
  g_autofree gint32 *last_reader = g_new (gint32, n_tensors);
  g_autoptr(GArray) touched = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) pending = g_array_new (FALSE, FALSE, sizeof (PendingMem));
  g_autofree guint32 *counts = g_new0 (guint32, st->tasks->len + 1);
  gboolean acts_offloaded = _bpw_plan_traffic_level (plan->blueprint, &plan->mapping,
                                                     BPW_TENSOR_ACTIVATION) == BPW_TRAFFIC_HOST;

  memset (writer, 0xff, n_tensors * sizeof (gint32));
  memset (first_reader, 0xff, n_tensors * sizeof (gint32));
  memset (last_reader, 0xff, n_tensors * sizeof (gint32));
  for (guint i = 0; i < ptasks->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (g, g_array_index (ptasks, BpwPlanTask, i).op);

      for (guint u = op->use_first; u < op->use_first + op->use_count; u++)
        {
          const BpwTensorUse *use = &g_array_index (g->uses, BpwTensorUse, u);
          guint32 t = use->tensor;

          if (writer[t] < 0 && first_reader[t] < 0)
            g_array_append_val (touched, t);
          if (use->access == BPW_ACCESS_READ)
            {
              if (first_reader[t] < 0)
                first_reader[t] = (gint32) i;
              last_reader[t] = (gint32) i;
            }
          else if (writer[t] < 0)
            writer[t] = (gint32) i;
        }
    }

  for (guint n = 0; n < touched->len; n++)
    {
      guint32 ti = g_array_index (touched, guint32, n);
      const BpwTensor *t = bpw_work_graph_tensor (g, ti);
      gint32 alloc, release;
      gboolean remote;
      const SimTask *at;
      PendingMem a, f;

      if (persistent_kind (t->kind) || _bpw_plan_tensor_on_chip (g, groups, t) ||
          (acts_offloaded && t->kind == BPW_TENSOR_ACTIVATION))
        continue;
      /* Produced here (first local writer before any local read), or received. */
      alloc = writer[ti] >= 0 && (first_reader[ti] < 0 || writer[ti] <= first_reader[ti])
              ? writer[ti] : first_reader[ti];
      release = MAX (last_reader[ti], alloc);
      remote = t->last_consumer >= 0 && local_of_op[t->last_consumer] < 0 && writer[ti] >= 0;
      at = &g_array_index (st->tasks, SimTask, alloc);
      a = (PendingMem) {
        .task = (guint32) alloc,
        .mem = {
          .bytes = (double) _bpw_dist_work_tensor_rank_bytes (dist, t),
          .tensor = (gint32) ti,
          /* A checkpoint here is kept from a forward segment to a backward one. */
          .category = remote ? BPW_MEM_COMMUNICATION
                      : t->kind == BPW_TENSOR_ACTIVATION && t->stored == BPW_STORED_CHECKPOINT &&
                        at->seg == SIM_SEG_FORWARD &&
                        g_array_index (st->tasks, SimTask, release).seg == SIM_SEG_BACKWARD
                      ? BPW_MEM_CHECKPOINTS : BPW_MEM_TEMPORARIES,
        },
      };
      a.mem.partner = remote && at->seg != SIM_SEG_OPTIMIZER &&
                      list_sends (p, st->index, at->seg, at->chunk) ? -1 : release;
      f = a;
      f.task = (guint32) release;
      f.mem.at_end = 1;
      g_array_append_val (pending, a);
      counts[alloc]++;
      if (a.mem.partner < 0)
        g_array_append_val (st->lists[at->seg * p->chunks + at->chunk].send_frees, f.mem);
      else
        {
          g_array_append_val (pending, f);
          counts[release]++;
        }
    }

  /* Group by task (counting sort keeps each task's entries in order). */
  {
    g_autofree guint32 *fill = g_new0 (guint32, st->tasks->len + 1);
    guint32 total = 0;

    for (guint i = 0; i < st->tasks->len; i++)
      {
        SimTask *t = &g_array_index (st->tasks, SimTask, i);

        t->mem_first = fill[i] = total;
        t->mem_count = (guint16) MIN (counts[i], G_MAXUINT16);
        total += counts[i];
      }
    g_array_set_size (st->mem, total);
    for (guint n = 0; n < pending->len; n++)
      {
        const PendingMem *pm = &g_array_index (pending, PendingMem, n);

        g_array_index (st->mem, SimMem, fill[pm->task]++) = pm->mem;
      }
  }
}

static void
build_stage (SimProgram *p, SimStage *st, const BpwPlan *plan, gint32 *local_of_op,
             const guint32 *groups)
{
  const BpwStage *ds = &plan->dist->stages[st->index];
  const BpwPlanMemory *pm = &plan->stages[st->index].memory;
  guint n_lists = SIM_N_SEGS * (guint) p->chunks;

  st->first_layer = ds->first_layer;
  st->n_layers = ds->n_layers;
  st->train = p->train;
  st->tasks = g_array_new (FALSE, FALSE, sizeof (SimTask));
  st->xfers = g_array_new (FALSE, FALSE, sizeof (SimXfer));
  st->deps = g_array_new (FALSE, FALSE, sizeof (guint32));
  st->gates = g_array_new (FALSE, FALSE, sizeof (guint32));
  st->attached = g_array_new (FALSE, FALSE, sizeof (guint32));
  st->mem = g_array_new (FALSE, FALSE, sizeof (SimMem));
  st->step_xfers = g_array_new (FALSE, FALSE, sizeof (guint32));
  st->lists = g_new0 (SimList, n_lists);
  st->pp_send[0] = st->pp_send[1] = -1;
  for (guint l = 0; l < n_lists; l++)
    {
      st->lists[l].tasks = g_array_new (FALSE, FALSE, sizeof (guint32));
      st->lists[l].send_frees = g_array_new (FALSE, FALSE, sizeof (SimMem));
    }

  build_tasks (p, st, plan, local_of_op);
  build_deps (st, plan, local_of_op);
  build_transfers (p, st, plan, local_of_op);
  build_buckets (p, st, plan);
  build_gather_gates (p, st, plan);
  build_memory (p, st, plan, local_of_op, groups);

  /* Persistent state is constant over the step: the plan's placement of it. */
  st->constant[BPW_MEM_WEIGHTS] = pm->weights;
  st->constant[BPW_MEM_GRADIENTS] = pm->gradients;
  st->constant[BPW_MEM_OPTIMIZER] = pm->optimizer_state;
  st->constant[BPW_MEM_KV_CACHE] = pm->kv_cache;
  if (_bpw_plan_traffic_level (plan->blueprint, &plan->mapping, BPW_TENSOR_ACTIVATION) ==
      BPW_TRAFFIC_HOST)
    st->constant[BPW_MEM_CHECKPOINTS] = pm->activations;  /* the on-device double buffer */

  for (guint i = 0; i < st->tasks->len; i++)
    local_of_op[g_array_index (plan->stages[st->index].tasks, BpwPlanTask, i).op] = -1;
}

SimProgram *
_bpw_sim_program_new (const BpwPlan *plan)
{
  const BpwDistWork *dist = plan->dist;
  const BpwParallel *par = &dist->parallel;
  SimProgram *p = g_new0 (SimProgram, 1);
  g_autofree gint32 *local_of_op = g_new (gint32, dist->graph->ops->len);
  g_autofree guint32 *groups = _bpw_plan_fusion_groups (dist->graph, plan->mapping.fusion);

  memset (local_of_op, 0xff, dist->graph->ops->len * sizeof (gint32));
  p->n_stages = dist->n_stages;
  p->chunks = par->schedule == BPW_SCHEDULE_INTERLEAVED ? MAX (par->interleave, 1) : 1;
  p->micro_batches = plan->micro_batches;
  p->n_tiers = plan->blueprint->n_tiers;
  p->train = dist->graph->scenario.phase == BPW_WORKLOAD_TRAIN;
  p->split_weight = p->train && par->schedule == BPW_SCHEDULE_ZB_H1;
  p->stages = g_new0 (SimStage, p->n_stages);
  p->runs = g_new0 (SimRun, p->n_stages);
  for (gint64 s = 0; s < p->n_stages; s++)
    {
      p->stages[s].index = s;
      build_stage (p, &p->stages[s], plan, local_of_op, groups);
    }
  return p;
}

void
_bpw_sim_program_free (SimProgram *p)
{
  if (p == NULL)
    return;
  for (gint64 s = 0; s < p->n_stages; s++)
    {
      SimStage *st = &p->stages[s];

      for (guint l = 0; st->lists != NULL && l < SIM_N_SEGS * (guint) p->chunks; l++)
        {
          g_array_unref (st->lists[l].tasks);
          g_array_unref (st->lists[l].send_frees);
        }
      g_free (st->lists);
      g_clear_pointer (&st->tasks, g_array_unref);
      g_clear_pointer (&st->xfers, g_array_unref);
      g_clear_pointer (&st->deps, g_array_unref);
      g_clear_pointer (&st->gates, g_array_unref);
      g_clear_pointer (&st->attached, g_array_unref);
      g_clear_pointer (&st->mem, g_array_unref);
      g_clear_pointer (&st->step_xfers, g_array_unref);
      g_free (p->runs[s].segments);
      g_free (p->runs[s].task_events);
      g_free (p->runs[s].xfer_events);
    }
  g_free (p->stages);
  g_free (p->runs);
  g_free (p);
}
