/* bpw-correlate.c — pairs of profile devices and simulated ranks, modelled operations,
 * statistics and the per-operation comparison
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-correlate"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-correlate-private.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-plan-private.h"

static const BpwKernelKind primitive_kinds[BPW_N_PRIMITIVES] = {
  [BPW_PRIM_MATMUL] = BPW_KERNEL_MATMUL,
  [BPW_PRIM_BATCHED_MATMUL] = BPW_KERNEL_BATCHED_MATMUL,
  [BPW_PRIM_SOFTMAX] = BPW_KERNEL_SOFTMAX,
  [BPW_PRIM_NORM] = BPW_KERNEL_NORM,
  [BPW_PRIM_GELU] = BPW_KERNEL_GELU,
  [BPW_PRIM_SWIGLU] = BPW_KERNEL_SWIGLU,
  [BPW_PRIM_DROPOUT] = BPW_KERNEL_DROPOUT,
  [BPW_PRIM_ADD] = BPW_KERNEL_ADD,
  [BPW_PRIM_BIAS] = BPW_KERNEL_BIAS,
  [BPW_PRIM_ROTARY] = BPW_KERNEL_ROTARY,
  [BPW_PRIM_GATHER] = BPW_KERNEL_GATHER,
  [BPW_PRIM_SCATTER_ADD] = BPW_KERNEL_SCATTER_ADD,
  [BPW_PRIM_CROSS_ENTROPY] = BPW_KERNEL_CROSS_ENTROPY,
  [BPW_PRIM_ROUTER_TOPK] = BPW_KERNEL_TOPK,
  [BPW_PRIM_PERMUTE] = BPW_KERNEL_PERMUTE,
  [BPW_PRIM_OPTIMIZER_UPDATE] = BPW_KERNEL_OPTIMIZER,
};

const char *
bpw_op_class_to_string (BpwOpClass op_class)
{
  static const char * const names[] = { "matrix", "vector", "memory", "latency",
                                        "communication" };

  g_return_val_if_fail (op_class < BPW_N_OP_CLASSES, "?");
  return names[op_class];
}

BpwOpClass
bpw_op_class_of_task (const BpwPlanTask *task)
{
  switch (task->cost.bottleneck)
    {
    case BPW_BOTTLENECK_MEMORY:
      return BPW_OP_CLASS_MEMORY;
    case BPW_BOTTLENECK_LATENCY:
      return BPW_OP_CLASS_LATENCY;
    default:
      return task->engine == BPW_ENGINE_MATRIX ? BPW_OP_CLASS_MATRIX : BPW_OP_CLASS_VECTOR;
    }
}

static int
compare_modelled (gconstpointer a, gconstpointer b, gpointer data)
{
  const BpwSimulation *sim = data;
  const BpwModelledOp *x = a, *y = b;
  double sx = bpw_simulation_event (sim, x->event)->start;
  double sy = bpw_simulation_event (sim, y->event)->start;

  if (sx != sy)
    return sx < sy ? -1 : 1;
  return x->event < y->event ? -1 : x->event > y->event;
}

/* The rank's tasks and transfers in time order. */
static void
add_modelled (BpwCorrelation *corr, guint pair, guint32 rank)
{
  const BpwSimulation *sim = corr->sim;
  guint first = corr->modelled->len;

  for (guint32 q = 0; q < sim->n_queues; q++)
    {
      guint32 n;
      const guint32 *lane = bpw_simulation_lane (sim, rank, q, &n);

      for (guint32 j = 0; j < n; j++)
        {
          const BpwSimEvent *e = bpw_simulation_event (sim, lane[j]);
          BpwModelledOp op = {
            .event = lane[j], .lineage = e->lineage, .row = -1, .pair = pair,
            .status = BPW_MODELLED_MISSING, .predicted_s = e->end - e->start,
            .kind = BPW_KERNEL_COMMUNICATION, .op_class = BPW_OP_CLASS_COMMUNICATION,
          };

          bpw_simulation_event_work (sim, e, &op.flops, &op.bytes);
          if (e->kind == BPW_SIM_EVENT_TASK)
            {
              const BpwPlanTask *t = &g_array_index (sim->plan->stages[e->stage].tasks,
                                                     BpwPlanTask, e->item);

              op.kind = t->primitive < BPW_N_PRIMITIVES ? primitive_kinds[t->primitive]
                                                       : BPW_KERNEL_UNKNOWN;
              op.op_class = bpw_op_class_of_task (t);
            }
          g_array_append_val (corr->modelled, op);
        }
    }
  /* One time order over the rank's lanes (ties: event index). */
  g_qsort_with_data (&g_array_index (corr->modelled, BpwModelledOp, first),
                     (gint) (corr->modelled->len - first), sizeof (BpwModelledOp),
                     compare_modelled, (gpointer) sim);
}

static gboolean
choose_pairs (BpwCorrelation *corr, const BpwCorrelateOptions *o, GError **error)
{
  const BpwProfile *p = corr->profile;
  const BpwSimulation *sim = corr->sim;
  gboolean bpw = p->format == BPW_PROFILE_FORMAT_BPW;

  if (o->device >= (gint) p->devices->len)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: there is no device %d: the profile has %u (0 to %u)."), p->filename,
                   o->device, p->devices->len, MAX (p->devices->len, 1) - 1);
      return FALSE;
    }
  for (guint d = 0; d < p->devices->len; d++)
    {
      gint64 id = g_array_index (p->device_ids, gint64, d);
      BpwCorrelationPair pair = { .device = d };

      if (o->device >= 0 ? (gint) d != o->device : !bpw)
        continue;
      if (o->rank >= 0)
        pair.rank = (guint32) o->rank;
      else if (bpw && id >= 0 && id < (gint64) sim->n_ranks)
        pair.rank = (guint32) id;
      else if (bpw)
        continue;
      else
        pair.rank = (guint32) MAX (sim->reference_rank, 0);
      g_array_append_val (corr->pairs, pair);
    }
  if (corr->pairs->len == 0 && !bpw && p->devices->len > 0)
    {
      BpwCorrelationPair pair = { .rank = o->rank >= 0 ? (guint32) o->rank
                                                       : (guint32) MAX (sim->reference_rank, 0) };
      double best = -1;

      for (guint d = 0; d < p->devices->len; d++)
        if (bpw_profile_device_time (p, d) > best)
          {
            best = bpw_profile_device_time (p, d);
            pair.device = d;
          }
      g_array_append_val (corr->pairs, pair);
    }
  for (guint i = 0; i < corr->pairs->len; i++)
    {
      const BpwCorrelationPair *pair = &g_array_index (corr->pairs, BpwCorrelationPair, i);
      guint first, n;

      if (pair->rank >= sim->n_ranks)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("There is no simulated rank %u: the schedule has %u (0 to %u)."),
                       pair->rank, sim->n_ranks, sim->n_ranks - 1);
          return FALSE;
        }
      bpw_profile_device_items (p, pair->device, &first, &n);
      if (n == 0)
        {
          g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                       _("%s: device “%s” has no measured work to correlate."), p->filename,
                       (const char *) g_ptr_array_index (p->devices, pair->device));
          return FALSE;
        }
    }
  if (corr->pairs->len == 0)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("%s: no device of the profile has measured work to correlate."),
                   p->filename);
      return FALSE;
    }
  return TRUE;
}

static void
compute_stats (BpwCorrelation *corr)
{
  BpwCorrelationStats *s = &corr->stats;
  const BpwProfile *p = corr->profile;
  double abs_diff = 0;
  guint matched_rows = 0;

  *s = (BpwCorrelationStats) { .modelled_ops = corr->modelled->len };
  for (guint i = 0; i < corr->modelled->len; i++)
    {
      const BpwModelledOp *op = bpw_correlation_modelled (corr, i);

      s->predicted_s += op->predicted_s;
      s->matched_ops += op->status == BPW_MODELLED_MATCHED;
      s->covered_ops += op->status == BPW_MODELLED_COVERED;
      s->missing_ops += op->status == BPW_MODELLED_MISSING;
    }
  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (corr, i);

      s->measured_s += r->measured_s;
      s->measured_items += r->n_items;
      if (r->status == BPW_ROW_MATCHED)
        {
          double err = r->measured_s > 0 ? fabs (r->predicted_s / r->measured_s - 1.0) : 0;

          s->matched_items += r->n_items;
          s->matched_predicted_s += r->predicted_s;
          s->matched_measured_s += r->measured_s;
          abs_diff += fabs (r->predicted_s - r->measured_s);
          s->mean_abs_error += err;
          s->max_abs_error = MAX (s->max_abs_error, err);
          matched_rows++;
        }
      else if (r->status == BPW_ROW_EXTRA)
        {
          s->extra_items += r->n_items;
          s->extra_measured_s += r->measured_s;
          s->unexplained_items += r->kind == BPW_KERNEL_UNKNOWN ? r->n_items : 0;
        }
      else
        s->missing_predicted_s += r->predicted_s;
    }
  if (matched_rows > 0)
    s->mean_abs_error /= matched_rows;
  s->time_weighted_error = s->matched_measured_s > 0 ? abs_diff / s->matched_measured_s : 0;
  for (guint i = 0; i < p->events->len; i++)
    s->no_work_events += bpw_profile_event (p, i)->item < 0;
}

BpwCorrelation *
bpw_correlate (const BpwSimulation       *sim,
               const BpwProfile          *profile,
               const BpwCorrelateOptions *options,
               GError                   **error)
{
  static const BpwCorrelateOptions defaults = { .device = -1, .rank = -1 };
  g_autoptr(BpwCorrelation) corr = g_new0 (BpwCorrelation, 1);
  const BpwCorrelateOptions *o = options != NULL ? options : &defaults;

  g_return_val_if_fail (sim != NULL && profile != NULL, NULL);

  corr->sim = sim;
  corr->profile = profile;
  corr->pairs = g_array_new (FALSE, FALSE, sizeof (BpwCorrelationPair));
  corr->modelled = g_array_new (FALSE, FALSE, sizeof (BpwModelledOp));
  corr->rows = g_array_new (FALSE, FALSE, sizeof (BpwCorrelationRow));
  corr->row_ops = g_array_new (FALSE, FALSE, sizeof (guint32));
  corr->row_items = g_array_new (FALSE, FALSE, sizeof (guint32));
  corr->item_row = g_new (gint32, MAX (profile->items->len, 1));
  for (guint i = 0; i < profile->items->len; i++)
    corr->item_row[i] = -1;

  if (!choose_pairs (corr, o, error))
    return NULL;
  for (guint i = 0; i < corr->pairs->len; i++)
    {
      BpwCorrelationPair *pair = &g_array_index (corr->pairs, BpwCorrelationPair, i);
      guint first_op = corr->modelled->len, first_item, n_items;
      gboolean by_lineage = profile->format == BPW_PROFILE_FORMAT_BPW && !o->ignore_lineage;
      double end = 0;

      add_modelled (corr, i, pair->rank);
      bpw_profile_device_items (profile, pair->device, &first_item, &n_items);
      for (guint j = first_item; j < first_item + n_items; j++)
        end = MAX (end, bpw_profile_item (profile, j)->start +
                        bpw_profile_item (profile, j)->duration);
      pair->measured_span_s = end - bpw_profile_item (profile, first_item)->start;
      pair->predicted_span_s = sim->step_time_s;
      _bpw_correlate_pair (corr, i, first_item, n_items, first_op,
                           corr->modelled->len - first_op, by_lineage);
    }
  compute_stats (corr);
  return g_steal_pointer (&corr);
}

void
bpw_correlation_free (BpwCorrelation *corr)
{
  if (corr == NULL)
    return;
  g_clear_pointer (&corr->pairs, g_array_unref);
  g_clear_pointer (&corr->modelled, g_array_unref);
  g_clear_pointer (&corr->rows, g_array_unref);
  g_clear_pointer (&corr->row_ops, g_array_unref);
  g_clear_pointer (&corr->row_items, g_array_unref);
  g_free (corr->item_row);
  g_free (corr);
}

const BpwModelledOp *
bpw_correlation_row_op (const BpwCorrelation    *corr,
                        const BpwCorrelationRow *row,
                        guint                    i)
{
  g_return_val_if_fail (i < row->n_ops, NULL);
  return bpw_correlation_modelled (corr, g_array_index (corr->row_ops, guint32,
                                                        row->first_op + i));
}

guint
bpw_correlation_row_item (const BpwCorrelation    *corr,
                          const BpwCorrelationRow *row,
                          guint                    i)
{
  g_return_val_if_fail (i < row->n_items, 0);
  return g_array_index (corr->row_items, guint32, row->first_item + i);
}

char *
bpw_correlation_row_name (const BpwCorrelation    *corr,
                          const BpwCorrelationRow *row)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GPtrArray) seen = g_ptr_array_new ();

  for (guint i = 0; i < row->n_ops; i++)
    {
      const char *name = _bpw_correlate_op_name (corr, bpw_correlation_row_op (corr, row, i));
      gboolean repeat = FALSE;

      /* Repeats of one name (one op over several micro-batches) are named once. */
      for (guint j = 0; j < seen->len && !repeat; j++)
        repeat = strcmp (seen->pdata[j], name) == 0;
      if (repeat)
        continue;
      g_ptr_array_add (seen, (gpointer) name);
      g_string_append_printf (out, "%s%s", out->len > 0 ? " + " : "", name);
    }
  if (row->n_ops == 0 && row->n_items > 0)
    {
      g_autofree char *name = bpw_profile_item_name (corr->profile, bpw_profile_item (
        corr->profile, bpw_correlation_row_item (corr, row, 0)));

      g_string_append (out, name);
    }
  return g_string_free (out, FALSE);
}

static int
compare_ops (gconstpointer a, gconstpointer b)
{
  const BpwCorrelationOp *x = a, *y = b;

  if (x->measured_s != y->measured_s)
    return x->measured_s > y->measured_s ? -1 : 1;
  return x->lineage < y->lineage ? -1 : x->lineage > y->lineage;
}

GArray *
bpw_correlation_by_operation (const BpwCorrelation *corr)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (BpwCorrelationOp));
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                       NULL);

  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *r = bpw_correlation_row (corr, i);
      gpointer found;
      BpwCorrelationOp *op;

      if (r->status != BPW_ROW_MATCHED)
        continue;
      found = g_hash_table_lookup (index, &r->lineage);
      if (found == NULL)
        {
          const BpwWorkGraph *g = corr->sim->plan->dist->graph;
          BpwCorrelationOp fresh = { .lineage = r->lineage, .kind = r->kind,
                                     .op_class = r->op_class, .first_row = i };

          fresh.layer = r->lineage >= 0 && (guint64) r->lineage < g->ops->len
                        ? bpw_work_graph_op (g, (guint) r->lineage)->layer : 0;

          g_array_append_val (out, fresh);
          found = GUINT_TO_POINTER (out->len);
          g_hash_table_insert (index, g_memdup2 (&r->lineage, sizeof r->lineage), found);
        }
      op = &g_array_index (out, BpwCorrelationOp, GPOINTER_TO_UINT (found) - 1);
      op->rows++;
      op->predicted_s += r->predicted_s;
      op->measured_s += r->measured_s;
      op->flops += r->flops;
      op->bytes += r->bytes;
    }
  g_array_sort (out, compare_ops);
  return out;
}
