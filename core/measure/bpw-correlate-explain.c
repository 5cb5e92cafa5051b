/* bpw-correlate-explain.c — what the alignment left over: covered, claimed, missing, extra
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A modelled op nothing matched may be computed by a matched neighbour's kernel: one of
 * its fusion group, the other gradient of the same forward op (layer norm's backward
 * computes dX, dγ and dβ in one kernel), a bias inside the addmm before it, the rest of
 * an optimizer step. A measured item nothing matched may be part of a matched neighbour's
 * implementation (absorbs()). What remains is missing or extra work, with the reason.
 */
#define G_LOG_DOMAIN "bpw-correlate-explain"

#include "config.h"

#include <string.h>

#include "bpw-correlate-private.h"

#define local_item _bpw_correlate_local_item
#define local_op   _bpw_correlate_local_op

static BpwCorrelatePending *
pending_row (const BpwCorrelateAlign *a, gint32 row)
{
  return g_ptr_array_index (a->rows, row);
}

void
_bpw_correlate_pending_free (gpointer data)
{
  BpwCorrelatePending *r = data;

  g_array_unref (r->ops);
  g_array_unref (r->items);
  g_free (r);
}

BpwCorrelatePending *
_bpw_correlate_pending_new (BpwCorrelateAlign        *a,
                            BpwRowStatus  status,
                            double        order)
{
  BpwCorrelatePending *r = g_new0 (BpwCorrelatePending, 1);

  r->ops = g_array_new (FALSE, FALSE, sizeof (guint32));
  r->items = g_array_new (FALSE, FALSE, sizeof (guint32));
  r->status = status;
  r->order = order;
  g_ptr_array_add (a->rows, r);
  return r;
}

/* How strongly a row of modelled kind @o claims an unmatched neighbour of kind @u as part
 * of its implementation: 2 it is part of it, 0 it is not. */
static int
absorbs (BpwKernelKind o, BpwKernelKind u)
{
  if (u == o)
    return 2;   /* the second kernel of one op: both bmms of a batched matmul's backward */
  switch (o)
    {
    case BPW_KERNEL_CROSS_ENTROPY:   /* log-softmax, NLL, the mean */
      return u == BPW_KERNEL_SOFTMAX || u == BPW_KERNEL_REDUCE || u == BPW_KERNEL_ELEMENTWISE ||
             u == BPW_KERNEL_FILL || u == BPW_KERNEL_COPY ? 2 : 0;
    case BPW_KERNEL_SOFTMAX:         /* scale and causal mask */
    case BPW_KERNEL_DROPOUT:         /* mask draw and scale */
      return u == BPW_KERNEL_ELEMENTWISE || u == BPW_KERNEL_FILL ? 2 : 0;
    case BPW_KERNEL_OPTIMIZER:       /* an unfused update is a few element-wise ops per tensor */
      return u == BPW_KERNEL_ELEMENTWISE || u == BPW_KERNEL_ADD || u == BPW_KERNEL_REDUCE ||
             u == BPW_KERNEL_FILL || u == BPW_KERNEL_COPY ? 2 : 0;
    case BPW_KERNEL_SCATTER_ADD:     /* zeroed table, accumulation of a tied embedding */
      return u == BPW_KERNEL_FILL || u == BPW_KERNEL_ADD || u == BPW_KERNEL_ELEMENTWISE ||
             u == BPW_KERNEL_COPY || u == BPW_KERNEL_REDUCE ? 2 : 0;
    case BPW_KERNEL_ADD:             /* a learned position table is looked up, then added */
      return u == BPW_KERNEL_GATHER ? 2 : 0;
    case BPW_KERNEL_NORM:
    case BPW_KERNEL_GELU:
    case BPW_KERNEL_SWIGLU:
      return u == BPW_KERNEL_ELEMENTWISE || u == BPW_KERNEL_REDUCE ? 2 : 0;
    case BPW_KERNEL_PERMUTE:
    case BPW_KERNEL_ROTARY:
      return u == BPW_KERNEL_COPY ? 2 : 0;
    case BPW_KERNEL_ATTENTION:
      return u == BPW_KERNEL_ELEMENTWISE || u == BPW_KERNEL_FILL || u == BPW_KERNEL_SOFTMAX ||
             u == BPW_KERNEL_DROPOUT || u == BPW_KERNEL_BATCHED_MATMUL ? 2 : 0;
    default:
      return 0;
    }
}

void
_bpw_correlate_add_op (BpwCorrelateAlign             *a,
                       BpwCorrelatePending           *r,
                       guint              j,
                       BpwModelledStatus  status)
{
  guint32 index = a->first_op + j;

  g_array_append_val (r->ops, index);
  a->op_row[j] = (gint32) (a->rows->len - 1);
  local_op (a, j)->status = status;
}

/* A modelled op nothing matched that a matched neighbour's kernel computes: same fusion
 * group, the other gradient of the same forward op, a bias inside the addmm before it. */
static gint32
cover_target (BpwCorrelateAlign *a, guint j)
{
  const BpwModelledOp *op = local_op (a, j);
  const BpwSimEvent *e = bpw_simulation_event (a->corr->sim, op->event);
  const BpwOp *gop = _bpw_correlate_graph_op (a->corr, op);
  const BpwPlanTask *t;

  if (gop == NULL)
    return -1;
  if (a->info[j].run && a->op_row[j - 1] >= 0 &&
      pending_row (a, a->op_row[j - 1])->status == BPW_ROW_MATCHED)
    return a->op_row[j - 1];
  t = &g_array_index (a->corr->sim->plan->stages[e->stage].tasks, BpwPlanTask, e->item);
  for (guint d = 1; d <= 8; d++)
    for (int side = -1; side <= 1; side += 2)
      {
        gint64 k = (gint64) j + side * (gint64) d;
        const BpwModelledOp *other;
        const BpwSimEvent *oe;
        const BpwOp *ogop;

        if (k < 0 || k >= a->m || a->op_row[k] < 0 ||
            pending_row (a, a->op_row[k])->status != BPW_ROW_MATCHED)
          continue;
        other = local_op (a, (guint) k);
        oe = bpw_simulation_event (a->corr->sim, other->event);
        ogop = _bpw_correlate_graph_op (a->corr, other);
        if (ogop == NULL || oe->micro_batch != e->micro_batch)
          continue;
        if (t->fusion_group != 0 && t->fusion_group ==
            g_array_index (a->corr->sim->plan->stages[oe->stage].tasks, BpwPlanTask,
                           oe->item).fusion_group)
          return a->op_row[k];
        if (d <= 3 && gop->forward_of >= 0 && gop->forward_of == ogop->forward_of &&
            op->kind == other->kind)
          return a->op_row[k];
        if (side < 0 && d <= 2 && op->kind == BPW_KERNEL_BIAS &&
            gop->phase == BPW_PHASE_FORWARD && other->kind == BPW_KERNEL_MATMUL)
          {
            BpwCorrelatePending *r = g_ptr_array_index (a->rows, a->op_row[k]);
            const BpwProfileEvent *pe = r->items->len > 0
              ? bpw_profile_event (a->p, bpw_profile_item (a->p, g_array_index (r->items,
                                   guint32, 0))->event) : NULL;
            const char *name = pe != NULL ? bpw_profile_event_name (a->p, pe) : "";

            if (strstr (name, "addmm") != NULL || strstr (name, "linear") != NULL)
              return a->op_row[k];
          }
      }
  return -1;
}

static const char *
extra_reason (BpwKernelKind kind)
{
  switch (kind)
    {
    case BPW_KERNEL_UNKNOWN:
      return "unexplained: no pattern recognises it";
    case BPW_KERNEL_COPY:
      return "layout copy: the model keeps operands in the layout each operation needs";
    case BPW_KERNEL_FILL:
      return "initialisation (zeros, ones, arange, memset): not part of the model's work";
    case BPW_KERNEL_COMMUNICATION:
      return "a collective the plan does not have";
    default:
      return "no modelled operation of this kind at this point of the step";
    }
}

static int
compare_pending (gconstpointer x, gconstpointer y)
{
  const BpwCorrelatePending *a = *(BpwCorrelatePending * const *) x;
  const BpwCorrelatePending *b = *(BpwCorrelatePending * const *) y;

  return a->order < b->order ? -1 : a->order > b->order;
}

void
_bpw_correlate_explain (BpwCorrelateAlign *a)
{
  BpwCorrelation *corr = a->corr;
  g_autofree gint32 *prev = g_new (gint32, MAX (a->n, 1));
  g_autofree gint32 *next = g_new (gint32, MAX (a->n, 1));
  gint32 last = -1;

  /* Modelled ops left over: covered by a neighbour's kernel, or missing. */
  for (guint j = 0; j < a->m; j++)
    {
      gint32 target;
      BpwCorrelatePending *r;

      if (a->op_row[j] >= 0)
        continue;
      target = cover_target (a, j);
      if (target >= 0)
        {
          guint32 index = a->first_op + j;

          r = g_ptr_array_index (a->rows, target);
          g_array_append_val (r->ops, index);
          a->op_row[j] = target;
          local_op (a, j)->status = BPW_MODELLED_COVERED;
          continue;
        }
      /* Sorted just before the measured item of the next matched op. */
      r = _bpw_correlate_pending_new (a, BPW_ROW_MISSING, a->n);
      for (guint k = j + 1; k < a->m; k++)
        if (a->op_row[k] >= 0)
          {
            BpwCorrelatePending *after = g_ptr_array_index (a->rows, a->op_row[k]);

            if (after->status == BPW_ROW_MATCHED)
              {
                r->order = after->order - 0.5;
                break;
              }
          }
      r->reason = local_op (a, j)->flops > 0 ? "no measured item matches it"
                  : "no arithmetic: a copy or pass-through the framework may skip";
      _bpw_correlate_add_op (a, r, j, BPW_MODELLED_MISSING);
    }

  /* Measured items left over: part of a matched neighbour's op, or extra work. */
  for (guint i = 0; i < a->n; i++)
    {
      prev[i] = last;
      if (a->item_match[i] >= 0)
        last = (gint32) i;
    }
  last = -1;
  for (guint i = a->n; i-- > 0;)
    {
      next[i] = last;
      if (a->item_match[i] >= 0)
        last = (gint32) i;
    }
  for (guint i = 0; i < a->n; i++)
    {
      const BpwProfileItem *it = local_item (a, i);
      guint32 item = a->first_item + i;
      int sp = 0, sn = 0;
      BpwCorrelatePending *r;

      if (a->item_row[i] >= 0)
        continue;
      if (prev[i] >= 0)
        sp = absorbs (local_op (a, (guint) a->item_match[prev[i]])->kind, it->kind);
      if (next[i] >= 0)
        sn = absorbs (local_op (a, (guint) a->item_match[next[i]])->kind, it->kind);
      if (sp > 0 || sn > 0)
        {
          r = g_ptr_array_index (a->rows, a->item_row[sp >= sn ? prev[i] : next[i]]);
          g_array_append_val (r->items, item);
          a->item_row[i] = a->item_row[sp >= sn ? prev[i] : next[i]];
          continue;
        }
      r = _bpw_correlate_pending_new (a, BPW_ROW_EXTRA, i);
      r->reason = extra_reason (it->kind);
      g_array_append_val (r->items, item);
      a->item_row[i] = (gint32) a->rows->len - 1;
    }

  /* Rows in alignment order into the correlation. */
  g_ptr_array_sort (a->rows, compare_pending);
  for (guint k = 0; k < a->rows->len; k++)
    {
      const BpwCorrelatePending *p = g_ptr_array_index (a->rows, k);
      BpwCorrelationRow row = {
        .first_op = corr->row_ops->len, .n_ops = p->ops->len,
        .first_item = corr->row_items->len, .n_items = p->items->len,
        .status = p->status, .shape = p->shape, .reason = p->reason, .lineage = -1,
        .pair = a->pair,
      };
      guint32 index = corr->rows->len;

      for (guint j = 0; j < p->ops->len; j++)
        {
          BpwModelledOp *op = &g_array_index (corr->modelled, BpwModelledOp,
                                              g_array_index (p->ops, guint32, j));

          op->row = (gint32) index;
          row.predicted_s += op->predicted_s;
          row.flops += op->flops;
          row.bytes += op->bytes;
          if (j == 0)
            {
              row.lineage = op->lineage;
              row.kind = op->kind;
              row.op_class = op->op_class;
              row.start_s = bpw_simulation_event (corr->sim, op->event)->start;
            }
        }
      for (guint i = 0; i < p->items->len; i++)
        {
          const BpwProfileItem *it = bpw_profile_item (a->p, g_array_index (p->items, guint32,
                                                                              i));

          corr->item_row[g_array_index (p->items, guint32, i)] = (gint32) index;
          row.measured_s += it->duration;
          if (i == 0)
            {
              row.start_s = it->start;
              if (p->ops->len == 0)
                row.kind = it->kind;
            }
        }
      g_array_append_vals (corr->row_ops, p->ops->data, p->ops->len);
      g_array_append_vals (corr->row_items, p->items->data, p->items->len);
      g_array_append_val (corr->rows, row);
    }
}
