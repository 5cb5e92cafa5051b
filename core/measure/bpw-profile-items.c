/* bpw-profile-items.c — the work items of a profile: what correlation compares
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A framework op is one item however many ops and kernels it runs inside (aten::linear
 * is one matmul, its aten::t and aten::copy_ are part of it), because that is the grain of
 * the modelled operations; the op that owns a slice is its outermost ancestor that does
 * work. Slices that do no work (views, allocations, autograd nodes, annotations) pass
 * ownership through to their children. A slice no pattern recognises owns what it
 * contains only when nothing inside it is recognised, so an unnamed wrapper does not
 * swallow the ops it calls. Arithmetic inside torch.optim's "Optimizer.step" scope is the
 * optimizer's.
 */
#define G_LOG_DOMAIN "bpw-profile-items"

#include "config.h"

#include <string.h>

#include "bpw-profile-private.h"

static gboolean
is_work (BpwKernelKind kind)
{
  return kind != BPW_KERNEL_NONE && kind != BPW_KERNEL_UNKNOWN;
}

/* Kinds that say how, not what for: a more specific one wins over them. */
static gboolean
is_generic (BpwKernelKind kind)
{
  return kind == BPW_KERNEL_NONE || kind == BPW_KERNEL_UNKNOWN ||
         kind == BPW_KERNEL_ELEMENTWISE || kind == BPW_KERNEL_REDUCE ||
         kind == BPW_KERNEL_COPY || kind == BPW_KERNEL_FILL || kind == BPW_KERNEL_ADD;
}

static gboolean
is_device_event (const BpwProfileEvent *e)
{
  return e->type == BPW_PROFILE_EVENT_KERNEL || e->type == BPW_PROFILE_EVENT_MEMCPY ||
         e->type == BPW_PROFILE_EVENT_MEMSET;
}

static double
product (const gint64 *dims, guint from, guint to)
{
  double v = 1;

  for (guint i = from; i < to; i++)
    v *= (double) dims[i];
  return v;
}

gboolean
_bpw_profile_op_shape (const BpwProfile      *p,
                       const BpwProfileEvent *e,
                       double                *batch,
                       double                *m,
                       double                *k,
                       double                *n)
{
  const char *name = bpw_profile_event_name (p, e);
  guint ra, rb, a_in = 0, b_in = 1;
  const gint64 *a, *b;
  double kb;

  if (!g_str_has_prefix (name, "aten::") || e->n_inputs < 2)
    return FALSE;
  name += strlen ("aten::");
  if (strcmp (name, "addmm") == 0 || strcmp (name, "_addmm_activation") == 0 ||
      strcmp (name, "baddbmm") == 0)
    a_in = 1, b_in = 2;
  else if (strcmp (name, "mm") != 0 && strcmp (name, "bmm") != 0 &&
           strcmp (name, "matmul") != 0 && strcmp (name, "linear") != 0)
    return FALSE;
  a = bpw_profile_event_input (p, e, a_in, &ra);
  b = bpw_profile_event_input (p, e, b_in, &rb);
  if (a == NULL || b == NULL || ra < 1 || rb < 2)
    return FALSE;
  *batch = 1;
  if (strcmp (name, "linear") == 0)
    {
      /* weight is (out, in) */
      *m = product (a, 0, ra - 1);
      *k = (double) a[ra - 1];
      *n = (double) b[0];
      kb = (double) b[1];
    }
  else if (rb == 2 && ra >= 1)
    {
      *m = ra >= 2 ? product (a, 0, ra - 1) : 1;
      *k = (double) a[ra - 1];
      *n = (double) b[1];
      kb = (double) b[0];
    }
  else if (ra >= 3 && rb >= 3)
    {
      *batch = product (a, 0, ra - 2);
      *m = (double) a[ra - 2];
      *k = (double) a[ra - 1];
      *n = (double) b[rb - 1];
      kb = (double) b[rb - 2];
    }
  else
    return FALSE;
  /* A zero dimension anywhere is an empty product: no shape to compare. */
  return *k == kb && *batch > 0 && *m > 0 && *n > 0 && *k > 0;
}

static guint
device_index (BpwProfile *p, GHashTable *map, gint64 id, const char *name)
{
  gpointer found = g_hash_table_lookup (map, &id);

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  g_ptr_array_add (p->devices, g_strdup (name));
  g_array_append_val (p->device_ids, id);
  g_hash_table_insert (map, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (p->devices->len));
  return p->devices->len - 1;
}

static char *
host_device_name (const BpwProfile *p, const BpwProfileLane *lane)
{
  const char *name = bpw_profile_string (p, lane->process_name);
  g_autofree char *number = g_strdup_printf ("%" G_GINT64_FORMAT, lane->pid);

  if (lane->pid < 0)
    return g_strdup (name);
  if (strcmp (name, number) == 0)
    return g_strdup_printf ("pid %s", number);
  if (g_str_has_prefix (name, "stage ") || g_str_has_prefix (name, "rank "))
    return g_strdup (name);
  return g_strdup_printf ("%s (pid %s)", name, number);
}

static BpwKernelKind
item_kind (BpwKernelKind op, BpwKernelKind kernel, gboolean optimizer)
{
  BpwKernelKind kind = !is_generic (op) ? op : !is_generic (kernel) ? kernel
                       : op != BPW_KERNEL_NONE ? op : kernel;

  return optimizer && is_generic (kind) ? BPW_KERNEL_OPTIMIZER : kind;
}

static int
compare_items (gconstpointer a, gconstpointer b)
{
  const BpwProfileItem *x = a, *y = b;

  if (x->device != y->device)
    return x->device < y->device ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->event < y->event ? -1 : x->event > y->event;
}

static void
set_shape (BpwProfile *p, BpwProfileItem *it)
{
  const BpwProfileEvent *e = bpw_profile_event (p, it->event);

  if (e->type != BPW_PROFILE_EVENT_HOST ||
      !_bpw_profile_op_shape (p, e, &it->batch, &it->m, &it->k, &it->n))
    return;
  it->has_shape = TRUE;
  /* aten::matmul is a batched matmul when both operands carry batch dimensions. */
  if (it->kind == BPW_KERNEL_MATMUL && it->batch > 1)
    it->kind = BPW_KERNEL_BATCHED_MATMUL;
}

/* Kernels grouped by the op that launched them ("External id"), device time summed. */
static void
device_items (BpwProfile *p, const gint32 *owner, const guint8 *optimizer, GHashTable *devices)
{
  g_autoptr(GHashTable) ops = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        NULL);
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GPtrArray) members = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  for (guint i = 0; i < p->events->len; i++)
    {
      const BpwProfileEvent *e = bpw_profile_event (p, i);

      if (e->type == BPW_PROFILE_EVENT_HOST && e->external_id >= 0)
        g_hash_table_insert (ops, g_memdup2 (&e->external_id, sizeof (gint64)),
                             GUINT_TO_POINTER (i + 1));
      if (is_device_event (e))
        {
          gint64 d = e->device;

          g_array_append_val (order, i);
          if (!g_hash_table_contains (devices, &d))
            {
              g_autofree char *name = g_strdup_printf ("GPU %" G_GINT64_FORMAT, d);
              device_index (p, devices, d, name);
            }
        }
    }
  for (guint j = 0; j < order->len; j++)
    {
      guint32 k = g_array_index (order, guint32, j);
      BpwProfileEvent *ke = &g_array_index (p->events, BpwProfileEvent, k);
      gint64 d = ke->device;
      gpointer op_found = ke->external_id >= 0 ? g_hash_table_lookup (ops, &ke->external_id)
                                               : NULL;
      gint64 op = op_found != NULL ? (gint64) GPOINTER_TO_UINT (op_found) - 1 : -1;
      gint64 key, group;
      gpointer found;

      if (op >= 0 && owner[op] >= 0)
        op = owner[op];
      /* One item per (op, device); kernels without an op are items of their own. */
      key = op >= 0 ? op * 1024 + MIN (d, 1023) : -(gint64) k - 1;
      found = g_hash_table_lookup (groups, &key);
      if (found == NULL)
        {
          BpwProfileItem it = {
            .start = ke->start, .event = op >= 0 ? (guint32) op : k, .device =
            GPOINTER_TO_UINT (g_hash_table_lookup (devices, &d)) - 1, .lineage = -1,
            .micro_batch = -1,
          };
          BpwKernelKind op_kind = op >= 0 ? bpw_profile_event (p, op)->kind : BPW_KERNEL_NONE;

          it.kind = item_kind (op_kind, ke->kind, op >= 0 && optimizer[op]);
          group = p->items->len;
          g_array_append_val (p->items, it);
          g_ptr_array_add (members, g_array_new (FALSE, FALSE, sizeof (guint32)));
          g_hash_table_insert (groups, g_memdup2 (&key, sizeof key),
                               GUINT_TO_POINTER ((guint) group + 1));
        }
      else
        group = GPOINTER_TO_UINT (found) - 1;
      g_array_append_val (g_ptr_array_index (members, group), k);
      g_array_index (p->items, BpwProfileItem, group).duration += ke->duration;
    }
  for (guint i = 0; i < p->items->len; i++)
    {
      BpwProfileItem *it = &g_array_index (p->items, BpwProfileItem, i);
      GArray *ks = g_ptr_array_index (members, i);

      it->first_kernel = p->item_kernels->len;
      it->n_kernels = ks->len;
      g_array_append_vals (p->item_kernels, ks->data, ks->len);
    }
}

void
_bpw_profile_build_items (BpwProfile *p)
{
  guint n = p->events->len;
  g_autofree gint32 *owner = g_new (gint32, MAX (n, 1));
  g_autofree guint8 *inner_work = g_new0 (guint8, MAX (n, 1));
  g_autofree guint8 *optimizer = g_new0 (guint8, MAX (n, 1));
  g_autoptr(GHashTable) devices = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         NULL);
  gboolean kernels = FALSE;

  /* Children follow their parents in lane order: backwards marks every slice that has
   * work inside, forwards hands ownership down. */
  for (guint l = 0; l < p->lanes->len; l++)
    {
      guint count;
      const guint32 *lane = bpw_profile_lane (p, l, &count);

      for (guint j = count; j-- > 0;)
        {
          const BpwProfileEvent *e = bpw_profile_event (p, lane[j]);

          if (e->parent >= 0 && (is_work (e->kind) || inner_work[lane[j]]))
            inner_work[e->parent] = TRUE;
        }
      for (guint j = 0; j < count; j++)
        {
          guint32 i = lane[j];
          const BpwProfileEvent *e = bpw_profile_event (p, i);

          optimizer[i] = (e->parent >= 0 && optimizer[e->parent]) ||
                         _bpw_profile_is_optimizer_scope (bpw_profile_event_name (p, e));
          owner[i] = -1;
          kernels |= is_device_event (e);
          if (e->type != BPW_PROFILE_EVENT_HOST)
            continue;
          if (e->parent >= 0 && owner[e->parent] >= 0)
            owner[i] = owner[e->parent];
          else if (is_work (e->kind) || (e->kind == BPW_KERNEL_UNKNOWN && !inner_work[i]))
            owner[i] = (gint32) i;
        }
    }

  if (kernels)
    device_items (p, owner, optimizer, devices);
  else
    for (guint l = 0; l < p->lanes->len; l++)
      {
        const BpwProfileLane *lane = &g_array_index (p->lanes, BpwProfileLane, l);
        guint count;
        const guint32 *ev = bpw_profile_lane (p, l, &count);
        g_autofree char *name = NULL;
        guint device = 0;
        gboolean have_device = FALSE;

        for (guint j = 0; j < count; j++)
          {
            const BpwProfileEvent *e = bpw_profile_event (p, ev[j]);
            BpwProfileItem it = {
              .start = e->start, .duration = e->duration, .event = ev[j],
              .lineage = e->lineage, .micro_batch = e->micro_batch,
              .kind = item_kind (e->kind, BPW_KERNEL_NONE, optimizer[ev[j]]),
            };

            if (owner[ev[j]] != (gint32) ev[j])
              continue;
            if (!have_device)
              {
                name = host_device_name (p, lane);
                device = device_index (p, devices, lane->pid, name);
                have_device = TRUE;
              }
            it.device = device;
            g_array_append_val (p->items, it);
          }
      }

  for (guint i = 0; i < p->items->len; i++)
    set_shape (p, &g_array_index (p->items, BpwProfileItem, i));
  if (!kernels)
    g_array_sort (p->items, compare_items);
  else
    {
      /* Sorting would separate items from their kernel lists' order: sort a copy of the
       * index and rebuild the kernel lists in the new order. */
      g_autoptr(GArray) sorted = g_array_copy (p->items);
      g_autoptr(GArray) kernel_lists = g_array_copy (p->item_kernels);

      g_array_sort (sorted, compare_items);
      g_array_set_size (p->item_kernels, 0);
      for (guint i = 0; i < sorted->len; i++)
        {
          BpwProfileItem *it = &g_array_index (sorted, BpwProfileItem, i);
          guint first = p->item_kernels->len;

          g_array_append_vals (p->item_kernels,
                               &g_array_index (kernel_lists, guint32, it->first_kernel),
                               it->n_kernels);
          it->first_kernel = first;
        }
      g_array_set_size (p->items, 0);
      g_array_append_vals (p->items, sorted->data, sorted->len);
    }
  for (guint i = 0; i < p->items->len; i++)
    {
      const BpwProfileItem *it = bpw_profile_item (p, i);

      g_array_index (p->events, BpwProfileEvent, it->event).item = (gint32) i;
      for (guint k = 0; k < it->n_kernels; k++)
        g_array_index (p->events, BpwProfileEvent,
                       g_array_index (p->item_kernels, guint32, it->first_kernel + k)).item =
          (gint32) i;
    }
  for (guint i = 0; i < n; i++)
    {
      BpwProfileEvent *e = &g_array_index (p->events, BpwProfileEvent, i);

      if (e->item < 0 && e->type == BPW_PROFILE_EVENT_HOST && owner[i] >= 0)
        e->item = bpw_profile_event (p, owner[i])->item;
    }
}
