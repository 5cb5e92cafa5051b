/* bpw-lineage-index.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-lineage-index"

#include "config.h"

#include "bpw-lineage-index.h"

#include <string.h>

struct _BpwLineageIndex
{
  guint32  n;
  guint32 *klass;   /* per lineage */
  gint32  *layer;
};

BpwLineageIndex *
bpw_lineage_index_new (const BpwWorkGraph *graph)
{
  const GArray *ops = graph->ops;
  g_autoptr(GHashTable) first = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                       NULL);
  BpwLineageIndex *index = g_new0 (BpwLineageIndex, 1);

  index->n = ops->len;
  index->klass = g_new (guint32, MAX (ops->len, 1));
  index->layer = g_new (gint32, MAX (ops->len, 1));
  for (guint32 i = 0; i < ops->len; i++)
    {
      const BpwOp *op = &g_array_index (ops, BpwOp, i);
      gint64 key = ((gint64) op->name << 32) | ((gint64) op->phase << 24)
                   | ((gint64) op->primitive << 16) | ((gint64) op->layer_type << 8)
                   | op->addition;
      gpointer found;

      /* Lineage is the op's index; ops are visited in that order, so the first of a key
       * is its lowest lineage. */
      if (g_hash_table_lookup_extended (first, &key, NULL, &found))
        index->klass[i] = GPOINTER_TO_UINT (found);
      else
        {
          index->klass[i] = op->lineage;
          g_hash_table_insert (first, g_memdup2 (&key, sizeof key),
                               GUINT_TO_POINTER (op->lineage));
        }
      index->layer[i] = op->layer;
    }
  return index;
}

void
bpw_lineage_index_free (BpwLineageIndex *index)
{
  if (index == NULL)
    return;
  g_free (index->klass);
  g_free (index->layer);
  g_free (index);
}

guint32
bpw_lineage_index_get_class (const BpwLineageIndex *index,
                             guint32                lineage)
{
  g_return_val_if_fail (index != NULL, G_MAXUINT32);
  return lineage < index->n ? index->klass[lineage] : G_MAXUINT32;
}

gint32
bpw_lineage_index_get_layer (const BpwLineageIndex *index,
                             guint32                lineage)
{
  g_return_val_if_fail (index != NULL, G_MININT32);
  return lineage < index->n ? index->layer[lineage] : G_MININT32;
}

static inline guint32
bpw_lineage_at (gconstpointer items,
                guint         i,
                gsize         stride,
                gsize         offset)
{
  guint32 lineage;

  memcpy (&lineage, (const guint8 *) items + (gsize) i * stride + offset, sizeof lineage);
  return lineage;
}

gint
bpw_lineage_index_pick (const BpwLineageIndex *index,
                        guint32                lineage,
                        gconstpointer          items,
                        guint                  n,
                        gsize                  stride,
                        gsize                  offset)
{
  guint32 klass;
  gint32 layer, below = G_MININT32, lowest = G_MAXINT32;
  gint best_below = -1, best_lowest = -1;

  for (guint i = 0; i < n; i++)
    if (bpw_lineage_at (items, i, stride, offset) == lineage)
      return (gint) i;
  if (index == NULL || (klass = bpw_lineage_index_get_class (index, lineage)) == G_MAXUINT32)
    return -1;
  layer = bpw_lineage_index_get_layer (index, lineage);
  for (guint i = 0; i < n; i++)
    {
      guint32 candidate = bpw_lineage_at (items, i, stride, offset);
      gint32 l;

      if (bpw_lineage_index_get_class (index, candidate) != klass)
        continue;
      l = bpw_lineage_index_get_layer (index, candidate);
      if (l <= layer && l > below)
        below = l, best_below = (gint) i;
      if (l < lowest)
        lowest = l, best_lowest = (gint) i;
    }
  return best_below >= 0 ? best_below : best_lowest;
}
