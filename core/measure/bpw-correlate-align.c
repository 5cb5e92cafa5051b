/* bpw-correlate-align.c — matching one device's items with one rank's modelled operations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The alignment is a weighted longest common subsequence (Needleman–Wunsch without gap
 * penalties): both sides are in time order, a pair scores by how well kind and shape
 * agree, skipping costs nothing, and the path of highest total score is kept. Ties prefer
 * a match, then skipping a measured item, so the result does not depend on the order the
 * cells are visited in. Long sequences use a band around the diagonal (BPW_CORRELATE_MAX_CELLS)
 * whose rows overlap, so a path from the first to the last cell always exists.
 *
 * Frameworks order a layer's backward a little differently from the model (PyTorch takes a
 * linear layer's bias gradient after both matmuls, the model before), which an order-keeping
 * alignment cannot follow, so a repair pass then matches each modelled op left over with
 * the best unmatched item near where its neighbours matched.
 */
#define G_LOG_DOMAIN "bpw-correlate-align"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-correlate-private.h"

#define local_item _bpw_correlate_local_item
#define local_op   _bpw_correlate_local_op

enum { STEP_NONE, STEP_MATCH, STEP_SKIP_OP, STEP_SKIP_ITEM };

/* How a measured kind can stand for a modelled one in @phase: 2 the same, 1 compatible,
 * 0 not. A bias is added inside the matmul (addmm) or by an add kernel, and its gradient
 * is a sum over tokens, as are the position table's and a norm's weight gradients. */
static int
compat (BpwKernelKind u, BpwKernelKind o, BpwPhase phase)
{
  if (u == o)
    return 2;
  switch (u)
    {
    case BPW_KERNEL_MATMUL:
      return o == BPW_KERNEL_BATCHED_MATMUL;
    case BPW_KERNEL_BATCHED_MATMUL:
      return o == BPW_KERNEL_MATMUL;
    case BPW_KERNEL_ELEMENTWISE:
      return o == BPW_KERNEL_ADD || o == BPW_KERNEL_DROPOUT || o == BPW_KERNEL_GELU ||
             o == BPW_KERNEL_SWIGLU || o == BPW_KERNEL_ROTARY || o == BPW_KERNEL_OPTIMIZER;
    case BPW_KERNEL_ADD:
      return (o == BPW_KERNEL_BIAS && phase == BPW_PHASE_FORWARD) || o == BPW_KERNEL_OPTIMIZER;
    case BPW_KERNEL_REDUCE:
      return phase == BPW_PHASE_BACKWARD_WEIGHT &&
             (o == BPW_KERNEL_BIAS || o == BPW_KERNEL_ADD || o == BPW_KERNEL_NORM);
    case BPW_KERNEL_COPY:         /* head split and merge */
      return o == BPW_KERNEL_PERMUTE || o == BPW_KERNEL_ROTARY;
    case BPW_KERNEL_ATTENTION:
      return o == BPW_KERNEL_BATCHED_MATMUL || o == BPW_KERNEL_SOFTMAX;
    default:
      return 0;
    }
}

static gboolean
is_matmul (BpwKernelKind kind)
{
  return kind == BPW_KERNEL_MATMUL || kind == BPW_KERNEL_BATCHED_MATMUL;
}

static gboolean
same (double a, double b)
{
  return fabs (a - b) <= 0.5;
}

/* The orientations a phase's matmul runs in (m × k · k × n forward): dX = dY·W is m × n ·
 * n × k; dW = dYᵀ·X is n × m · m × k, or Xᵀ·dY k × m · m × n; a batched backward computes
 * both operands' gradients, one in each. */
static BpwShapeCheck
check_shape (const BpwCorrelateOpInfo *o, const BpwProfileItem *it, int *bonus)
{
  double t[3][3];
  guint n_t = 0;
  double a[3] = { it->m, it->k, it->n }, b[3] = { o->m, o->n, o->k };

  *bonus = 0;
  if (!it->has_shape || !o->has_shape)
    return BPW_SHAPE_UNKNOWN;
  if (o->phase == BPW_PHASE_BACKWARD_ACTIVATION || o->phase == BPW_PHASE_BACKWARD_WEIGHT)
    {
      if (o->phase == BPW_PHASE_BACKWARD_ACTIVATION)
        t[n_t][0] = o->m, t[n_t][1] = o->n, t[n_t][2] = o->k, n_t++;
      else
        t[n_t][0] = o->n, t[n_t][1] = o->m, t[n_t][2] = o->k, n_t++;
      t[n_t][0] = o->k, t[n_t][1] = o->m, t[n_t][2] = o->n, n_t++;
    }
  else
    t[n_t][0] = o->m, t[n_t][1] = o->k, t[n_t][2] = o->n, n_t++;
  if (!same (it->batch, o->batch))
    return BPW_SHAPE_DIFFERS;
  for (guint i = 0; i < n_t; i++)
    if (same (t[i][0], it->m) && same (t[i][1], it->k) && same (t[i][2], it->n))
      {
        *bonus = 2;
        return BPW_SHAPE_AGREES;
      }
  /* The same three sizes in another orientation: a layout the phase does not imply. */
  for (guint i = 0; i < 3; i++)
    for (guint j = i + 1; j < 3; j++)
      {
        if (a[j] < a[i])
          {
            double x = a[i];
            a[i] = a[j], a[j] = x;
          }
        if (b[j] < b[i])
          {
            double x = b[i];
            b[i] = b[j], b[j] = x;
          }
      }
  if (same (a[0], b[0]) && same (a[1], b[1]) && same (a[2], b[2]))
    {
      *bonus = 1;
      return BPW_SHAPE_AGREES;
    }
  return BPW_SHAPE_DIFFERS;
}

/* Elements of an item's largest recorded input, 0 when none was recorded. */
static double
item_numel (const BpwProfile *p, const BpwProfileItem *it)
{
  const BpwProfileEvent *e = bpw_profile_event (p, it->event);
  double best = 0;

  for (guint k = 0; k < e->n_inputs; k++)
    {
      guint rank;
      const gint64 *dims = bpw_profile_event_input (p, e, k, &rank);
      double numel = 1;

      for (guint d = 0; d < rank; d++)
        numel *= (double) dims[d];
      if (rank > 0)
        best = MAX (best, numel);
    }
  return best;
}

/* 0: no match; 1–2 the kinds; + 2 when the recorded shapes agree in the orientation the
 * phase implies (+ 1 in another), or for other ops when the largest input has the size of
 * the op's largest input (an optimizer step's tensors, a dropout's activation). */
static int
score (const BpwCorrelateAlign *a, guint i, guint j, BpwShapeCheck *shape)
{
  const BpwProfileItem *it = local_item (a, i);
  const BpwModelledOp *op = local_op (a, j);
  int base, bonus;

  *shape = BPW_SHAPE_UNKNOWN;
  if (a->p->format == BPW_PROFILE_FORMAT_BPW)
    return a->info[j].name >= 0 &&
           (guint32) a->info[j].name == bpw_profile_event (a->p, it->event)->name ? 4 : 0;
  if (a->info[j].run || a->item_run[i])
    return 0;
  base = compat (it->kind, op->kind, a->info[j].phase);
  if (base == 0)
    return 0;
  if (!is_matmul (it->kind) || !is_matmul (op->kind))
    return base + (a->info[j].numel > 0 && a->item_numel[i] == a->info[j].numel ? 2 : 0);
  *shape = check_shape (&a->info[j], it, &bonus);
  return *shape == BPW_SHAPE_DIFFERS ? 1 : base + bonus;
}

/* Banded DP; fills item_match. Row i covers ops [lo(i), hi(i)], lo(i) ≤ hi(i − 1). */
static void
align_dp (BpwCorrelateAlign *a)
{
  guint n = a->n, m = a->m;
  gboolean full = (guint64) (n + 1) * (m + 1) <= BPW_CORRELATE_MAX_CELLS;
  guint64 w = full ? m : MAX (1, (BPW_CORRELATE_MAX_CELLS - (guint64) m - n) / (2 * (n + 1)));
  g_autofree guint *lo = g_new (guint, n + 1);
  g_autofree guint *hi = g_new (guint, n + 1);
  g_autofree guint64 *off = g_new (guint64, n + 2);
  g_autofree guint8 *dir = NULL;
  g_autofree gint32 *prev = NULL, *cur = NULL;
  guint i, j;

  for (i = 0; i <= n; i++)
    {
      guint64 c = n > 0 ? (guint64) i * m / n : 0, c1 = n > 0 ? ((guint64) (i + 1) * m + n - 1) / n
                                                              : m;

      lo[i] = full ? 0 : (guint) (c > w ? c - w : 0);
      hi[i] = full ? m : (guint) MIN ((guint64) m, c1 + w);
      if (i == n)
        hi[i] = m;
      off[i] = i == 0 ? 0 : off[i - 1] + (hi[i - 1] - lo[i - 1] + 1);
    }
  off[n + 1] = off[n] + (hi[n] - lo[n] + 1);
  dir = g_new0 (guint8, off[n + 1]);
  prev = g_new (gint32, m + 1);
  cur = g_new (gint32, m + 1);

  for (j = lo[0]; j <= hi[0]; j++)
    {
      prev[j] = 0;
      dir[off[0] + j - lo[0]] = j > 0 ? STEP_SKIP_OP : STEP_NONE;
    }
  for (i = 1; i <= n; i++)
    {
      for (j = lo[i]; j <= hi[i]; j++)
        {
          gint32 best = G_MININT32;
          guint8 step = STEP_NONE;
          BpwShapeCheck shape;
          int s;

          /* Ties: skip the item, so that a run of equally good items matches its first. */
          if (j >= lo[i - 1] && j <= hi[i - 1] && prev[j] != G_MININT32)
            {
              best = prev[j];
              step = STEP_SKIP_ITEM;
            }
          if (j > 0 && j - 1 >= lo[i - 1] && j - 1 <= hi[i - 1] &&
              (s = score (a, i - 1, j - 1, &shape)) > 0 && prev[j - 1] != G_MININT32 &&
              prev[j - 1] + s > best)
            {
              best = prev[j - 1] + s;
              step = STEP_MATCH;
            }
          if (j > lo[i] && cur[j - 1] != G_MININT32 && cur[j - 1] > best)
            {
              best = cur[j - 1];
              step = STEP_SKIP_OP;
            }
          cur[j] = best;
          dir[off[i] + j - lo[i]] = step;
        }
      /* The next row reads prev only inside this row's band. */
      for (j = lo[i - 1]; j <= hi[i - 1]; j++)
        prev[j] = G_MININT32;
      for (j = lo[i]; j <= hi[i]; j++)
        prev[j] = cur[j];
    }

  i = n;
  j = m;
  while (i > 0 || j > 0)
    {
      guint8 step = j >= lo[i] && j <= hi[i] ? dir[off[i] + j - lo[i]] : STEP_NONE;

      if (step == STEP_MATCH)
        {
          BpwShapeCheck shape;

          score (a, i - 1, j - 1, &shape);
          a->item_match[i - 1] = (gint32) (j - 1);
          a->item_shape[i - 1] = shape;
          i--, j--;
        }
      else if (step == STEP_SKIP_ITEM)
        i--;
      else if (step == STEP_SKIP_OP)
        j--;
      else
        break;  /* unreachable: the band is connected */
    }
}

/* The workbench's own traces: lineage, micro-batch and name identify the event. */
static void
align_lineage (BpwCorrelateAlign *a)
{
  g_autoptr(GHashTable) queues = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) g_queue_free);

  for (guint j = 0; j < a->m; j++)
    {
      const BpwModelledOp *op = local_op (a, j);
      const BpwSimEvent *e = bpw_simulation_event (a->corr->sim, op->event);
      char *key = g_strdup_printf ("%u/%d/%s", op->lineage, e->micro_batch,
                                   _bpw_correlate_op_name (a->corr, op));
      GQueue *q = g_hash_table_lookup (queues, key);

      if (q == NULL)
        g_hash_table_insert (queues, key, q = g_queue_new ());
      else
        g_free (key);
      g_queue_push_tail (q, GUINT_TO_POINTER (j + 1));
    }
  for (guint i = 0; i < a->n; i++)
    {
      const BpwProfileItem *it = local_item (a, i);
      g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/%d/%s", it->lineage,
                                              it->micro_batch,
                                              bpw_profile_event_name (a->p, bpw_profile_event (
                                                a->p, it->event)));
      GQueue *q = it->lineage >= 0 ? g_hash_table_lookup (queues, key) : NULL;

      if (q != NULL && !g_queue_is_empty (q))
        a->item_match[i] = GPOINTER_TO_INT (g_queue_pop_head (q)) - 1;
    }
}

static void
prepare (BpwCorrelateAlign *a)
{
  for (guint j = 0; j < a->m; j++)
    {
      const BpwModelledOp *op = local_op (a, j);
      const BpwOp *gop = _bpw_correlate_graph_op (a->corr, op);
      gpointer name = g_hash_table_lookup (a->p->string_index, _bpw_correlate_op_name (a->corr,
                                                                                      op));
      BpwCorrelateOpInfo *o = &a->info[j];

      o->name = name != NULL ? (gint32) GPOINTER_TO_UINT (name) - 1 : -1;
      o->phase = gop != NULL ? gop->phase : BPW_PHASE_FORWARD;
      o->has_shape = _bpw_correlate_op_shape (a->corr, op, &o->batch, &o->m, &o->n, &o->k);
      o->numel = _bpw_correlate_op_numel (a->corr, op);
    }
  for (guint i = 0; i < a->n; i++)
    a->item_numel[i] = item_numel (a->p, local_item (a, i));
  /* An optimizer step is compared as a whole: frameworks split and merge its per-tensor
   * updates their own way (PyTorch updates a norm's weight and bias apart, a fused Adam
   * updates every tensor in one kernel), so only the first of a run of updates on either
   * side is aligned and the rest join its row. */
  for (guint j = 1; j < a->m; j++)
    a->info[j].run = local_op (a, j)->kind == BPW_KERNEL_OPTIMIZER &&
                     local_op (a, j - 1)->kind == BPW_KERNEL_OPTIMIZER;
  for (guint i = 1; i < a->n; i++)
    a->item_run[i] = local_item (a, i)->kind == BPW_KERNEL_OPTIMIZER &&
                     local_item (a, i - 1)->kind == BPW_KERNEL_OPTIMIZER;
}

/* Modelled ops the alignment left over, matched with the best unmatched item among those
 * between the items of their matched neighbours REPAIR_REACH anchors away. */
#define REPAIR_REACH 3

static void
repair (BpwCorrelateAlign *a)
{
  g_autofree gint32 *op_item = g_new (gint32, MAX (a->m, 1));
  g_autofree guint *anchor_op = g_new (guint, MAX (a->m, 1));
  g_autofree guint *anchor_item = g_new (guint, MAX (a->m, 1));
  guint n_anchors = 0, at = 0;

  for (guint j = 0; j < a->m; j++)
    op_item[j] = -1;
  for (guint i = 0; i < a->n; i++)
    if (a->item_match[i] >= 0)
      {
        op_item[a->item_match[i]] = (gint32) i;
        anchor_op[n_anchors] = (guint) a->item_match[i];
        anchor_item[n_anchors++] = i;
      }
  if (n_anchors == 0)
    return;
  for (guint j = 0; j < a->m; j++)
    {
      guint from, to, before;
      gint32 best = -1;
      int best_score = 0;

      if (op_item[j] >= 0)
        continue;
      while (at < n_anchors && anchor_op[at] < j)
        at++;
      before = at > 0 ? at - 1 : 0;
      from = before >= REPAIR_REACH ? anchor_item[before - REPAIR_REACH] : 0;
      to = at + REPAIR_REACH < n_anchors ? anchor_item[at + REPAIR_REACH] : a->n - 1;
      for (guint i = from; i <= to && i < a->n; i++)
        {
          BpwShapeCheck shape;
          int s;

          if (a->item_match[i] >= 0 || (s = score (a, i, j, &shape)) <= best_score)
            continue;
          best_score = s;
          best = (gint32) i;
        }
      if (best >= 0)
        {
          BpwShapeCheck shape;

          score (a, (guint) best, j, &shape);
          a->item_match[best] = (gint32) j;
          a->item_shape[best] = shape;
          op_item[j] = best;
        }
    }
}

void
_bpw_correlate_pair (BpwCorrelation *corr,
                     guint           pair,
                     guint           first_item,
                     guint           n_items,
                     guint           first_op,
                     guint           n_ops,
                     gboolean        by_lineage)
{
  BpwCorrelateAlign a = {
    .corr = corr, .p = corr->profile, .pair = pair, .first_item = first_item, .n = n_items,
    .first_op = first_op, .m = n_ops,
  };

  a.info = g_new0 (BpwCorrelateOpInfo, MAX (n_ops, 1));
  a.item_numel = g_new0 (double, MAX (n_items, 1));
  a.item_run = g_new0 (guint8, MAX (n_items, 1));
  a.item_match = g_new (gint32, MAX (n_items, 1));
  a.item_shape = g_new0 (guint8, MAX (n_items, 1));
  a.item_row = g_new (gint32, MAX (n_items, 1));
  a.op_row = g_new (gint32, MAX (n_ops, 1));
  a.rows = g_ptr_array_new_with_free_func (_bpw_correlate_pending_free);
  for (guint i = 0; i < n_items; i++)
    a.item_match[i] = a.item_row[i] = -1;
  for (guint j = 0; j < n_ops; j++)
    a.op_row[j] = -1;

  prepare (&a);
  if (by_lineage)
    align_lineage (&a);
  else if (n_items > 0 && n_ops > 0)
    {
      align_dp (&a);
      repair (&a);
    }
  for (guint i = 0; i < n_items; i++)
    if (a.item_match[i] >= 0)
      {
        BpwCorrelatePending *r = _bpw_correlate_pending_new (&a, BPW_ROW_MATCHED, i);
        guint32 item = first_item + i;

        r->shape = a.item_shape[i];
        g_array_append_val (r->items, item);
        a.item_row[i] = (gint32) a.rows->len - 1;
        _bpw_correlate_add_op (&a, r, (guint) a.item_match[i], BPW_MODELLED_MATCHED);
      }
  _bpw_correlate_explain (&a);
  g_free (a.info);
  g_free (a.item_numel);
  g_free (a.item_run);
  g_free (a.item_match);
  g_free (a.item_shape);
  g_free (a.item_row);
  g_free (a.op_row);
  g_ptr_array_unref (a.rows);
}

