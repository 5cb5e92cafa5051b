/* bpw-sheet-item.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-sheet-item"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "bpw-sheet-item.h"

struct _BpwSheetItem
{
  GObject       parent_instance;

  /* Owned */
  char         *operation;
  char         *search_text;  /* casefolded: operation, labels, primitive */

  BpwPhase      phase;
  BpwLayerType  layer_type;
  BpwPrimitive  primitive;
  guint64       batch, m, n, k;
  guint64       flops_per_run;
  guint         instances;    /* graph operations merged into this row */
  guint64       runs;         /* executions per step, whole job */
  BpwU128       flops;
  BpwU128       bytes_read;
  BpwU128       bytes_written;
};

G_DEFINE_FINAL_TYPE (BpwSheetItem, bpw_sheet_item, G_TYPE_OBJECT)

static const char *
bpw_sheet_item_phase_label (BpwPhase phase)
{
  switch (phase)
    {
    case BPW_PHASE_FORWARD:
      return _("Forward");
    case BPW_PHASE_RECOMPUTE:
      return _("Recompute");
    case BPW_PHASE_BACKWARD_ACTIVATION:
      return _("Backward, activations");
    case BPW_PHASE_BACKWARD_WEIGHT:
      return _("Backward, weights");
    case BPW_PHASE_OPTIMIZER:
      return _("Optimizer");
    default:
      return bpw_phase_to_string (phase);
    }
}

static const char *
bpw_sheet_item_layer_type_label (BpwLayerType type)
{
  switch (type)
    {
    case BPW_LAYER_EMBEDDING:
      return _("Embedding");
    case BPW_LAYER_ATTENTION:
      return _("Attention");
    case BPW_LAYER_MLP:
      /* Translators: the feed-forward block of a transformer layer */
      return _("MLP");
    case BPW_LAYER_MOE:
      /* Translators: mixture of experts */
      return _("MoE");
    case BPW_LAYER_NORM:
      return _("Norm");
    case BPW_LAYER_HEAD:
      /* Translators: the output projection onto the vocabulary */
      return _("Head");
    case BPW_LAYER_LOSS:
      return _("Loss");
    case BPW_LAYER_OPTIMIZER:
      return _("Optimizer");
    default:
      return bpw_layer_type_to_string (type);
    }
}

static gboolean
bpw_sheet_item_is_matmul (BpwSheetItem *self)
{
  return self->primitive == BPW_PRIM_MATMUL || self->primitive == BPW_PRIM_BATCHED_MATMUL;
}

static double
bpw_sheet_item_intensity (BpwSheetItem *self)
{
  BpwU128 bytes = self->bytes_read + self->bytes_written;

  return bytes > 0 ? bpw_u128_to_double (self->flops) / bpw_u128_to_double (bytes) : 0.0;
}

static void
bpw_sheet_item_finalize (GObject *object)
{
  BpwSheetItem *self = (BpwSheetItem *) object;

  g_clear_pointer (&self->operation, g_free);
  g_clear_pointer (&self->search_text, g_free);

  G_OBJECT_CLASS (bpw_sheet_item_parent_class)->finalize (object);
}

static void
bpw_sheet_item_class_init (BpwSheetItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_sheet_item_finalize;
}

static void
bpw_sheet_item_init (BpwSheetItem *self)
{
}

static BpwSheetItem *
bpw_sheet_item_new_for_op (const BpwWorkGraph *graph,
                          const BpwOp        *op)
{
  BpwSheetItem *self = g_object_new (BPW_TYPE_SHEET_ITEM, NULL);
  g_autofree char *joined = NULL;

  self->operation = g_strdup (bpw_work_graph_name (graph, op->name));
  self->phase = op->phase;
  self->layer_type = op->layer_type;
  self->primitive = op->primitive;
  self->batch = op->batch;
  self->m = op->m;
  self->n = op->n;
  self->k = op->k;
  self->flops_per_run = op->flops;
  joined = g_strjoin (" ", self->operation, bpw_sheet_item_layer_type_label (op->layer_type),
                      bpw_sheet_item_phase_label (op->phase),
                      bpw_primitive_to_string (op->primitive), NULL);
  self->search_text = g_utf8_casefold (joined, -1);
  return self;
}

GPtrArray *
bpw_sheet_item_list_from_graph (const BpwWorkGraph *graph)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_val_if_fail (graph != NULL, rows);

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const BpwOp *op = bpw_work_graph_op (graph, i);
      BpwSheetItem *row;
      char *key;

      /* Everything that makes two operations the same line of the sheet: layers that
       * repeat an operation unchanged merge, anything that differs splits. */
      key = g_strdup_printf ("%u/%u/%u/%u/%u/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                             "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                             "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                             op->name, op->phase, op->primitive, op->layer_type, op->dtype,
                             op->batch, op->m, op->n, op->k, op->flops, op->bytes_read,
                             op->bytes_written, op->count);
      row = g_hash_table_lookup (index, key);
      if (row == NULL)
        {
          row = bpw_sheet_item_new_for_op (graph, op);
          g_ptr_array_add (rows, row);
          g_hash_table_insert (index, key, row);
        }
      else
        g_free (key);

      row->instances++;
      row->runs += op->count;
      row->flops += (BpwU128) op->flops * op->count;
      row->bytes_read += (BpwU128) op->bytes_read * op->count;
      row->bytes_written += (BpwU128) op->bytes_written * op->count;
    }

  return rows;
}

const char *
bpw_sheet_item_get_operation (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), NULL);
  return self->operation;
}

BpwPhase
bpw_sheet_item_get_phase (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->phase;
}

BpwLayerType
bpw_sheet_item_get_layer_type (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->layer_type;
}

BpwPrimitive
bpw_sheet_item_get_primitive (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->primitive;
}

guint64
bpw_sheet_item_get_runs (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->runs;
}

BpwU128
bpw_sheet_item_get_flops (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->flops;
}

BpwU128
bpw_sheet_item_get_bytes_read (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->bytes_read;
}

BpwU128
bpw_sheet_item_get_bytes_written (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->bytes_written;
}

gboolean
bpw_sheet_item_matches (BpwSheetItem *self,
                       const char  *needle)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), FALSE);

  return needle == NULL || needle[0] == '\0' || strstr (self->search_text, needle) != NULL;
}

/* Per-step totals that exceed 2^64 are rare (whole-job FLOPs of the largest runs) but
 * exact counts would be wrong there; the display only needs three digits. */
static char *
bpw_sheet_item_format_bytes (BpwU128      bytes,
                            BpwByteUnits units)
{
  if (bytes > G_MAXUINT64)
    return bpw_format_si (bpw_u128_to_double (bytes), "B");
  return bpw_format_bytes_scaled ((guint64) bytes, units);
}

char *
bpw_sheet_item_format (BpwSheetItem    *self,
                      BpwSheetColumn  column,
                      BpwByteUnits    units)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), NULL);

  switch (column)
    {
    case BPW_SHEET_COLUMN_OPERATION:
      return g_strdup (self->operation);
    case BPW_SHEET_COLUMN_LAYER_TYPE:
      return g_strdup (bpw_sheet_item_layer_type_label (self->layer_type));
    case BPW_SHEET_COLUMN_PHASE:
      return g_strdup (bpw_sheet_item_phase_label (self->phase));
    case BPW_SHEET_COLUMN_PRIMITIVE:
      return g_strdup (bpw_primitive_to_string (self->primitive));
    case BPW_SHEET_COLUMN_SHAPE:
      if (!bpw_sheet_item_is_matmul (self))
        return g_strdup ("");
      if (self->batch > 1)
        return g_strdup_printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT " × %"
                                G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT,
                                self->batch, self->m, self->n, self->k);
      return g_strdup_printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT " × %"
                              G_GUINT64_FORMAT, self->m, self->n, self->k);
    case BPW_SHEET_COLUMN_RUNS:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, self->runs);
    case BPW_SHEET_COLUMN_FLOPS:
      return bpw_format_si (bpw_u128_to_double (self->flops), "FLOP");
    case BPW_SHEET_COLUMN_BYTES_READ:
      return bpw_sheet_item_format_bytes (self->bytes_read, units);
    case BPW_SHEET_COLUMN_BYTES_WRITTEN:
      return bpw_sheet_item_format_bytes (self->bytes_written, units);
    case BPW_SHEET_COLUMN_INTENSITY:
      {
        double intensity = bpw_sheet_item_intensity (self);

        /* Translators: arithmetic intensity, floating-point operations per byte moved */
        return g_strdup_printf (intensity >= 100.0 ? _("%.0f FLOP/B") : _("%.1f FLOP/B"),
                                intensity);
      }
    default:
      g_return_val_if_reached (NULL);
    }
}

char *
bpw_sheet_item_dup_tooltip (BpwSheetItem    *self,
                           BpwSheetColumn  column)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), NULL);

  switch (column)
    {
    case BPW_SHEET_COLUMN_SHAPE:
      if (!bpw_sheet_item_is_matmul (self))
        return NULL;
      return g_strdup_printf (_("Batch %llu of (%llu × %llu) · (%llu × %llu)"),
                              (unsigned long long) MAX (self->batch, 1),
                              (unsigned long long) self->m, (unsigned long long) self->k,
                              (unsigned long long) self->k, (unsigned long long) self->n);
    case BPW_SHEET_COLUMN_RUNS:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "Runs %llu times per step in %u layer",
                                           "Runs %llu times per step in %u layers",
                                           self->instances),
                              (unsigned long long) self->runs, self->instances);
    case BPW_SHEET_COLUMN_FLOPS:
      {
        g_autofree char *exact = bpw_format_count (self->flops);
        g_autofree char *per_run = bpw_format_count (self->flops_per_run);

        return g_strdup_printf (_("%s FLOP per step, whole job; %s FLOP per run"),
                                exact, per_run);
      }
    case BPW_SHEET_COLUMN_BYTES_READ:
    case BPW_SHEET_COLUMN_BYTES_WRITTEN:
      {
        g_autofree char *exact = bpw_format_count (column == BPW_SHEET_COLUMN_BYTES_READ
                                                   ? self->bytes_read : self->bytes_written);

        return g_strdup_printf (_("%s bytes per step, whole job, before fusion"), exact);
      }
    case BPW_SHEET_COLUMN_INTENSITY:
      return g_strdup (_("FLOPs per byte read or written, before fusion and tiling"));
    default:
      return NULL;
    }
}

static int
bpw_sheet_item_cmp_u128 (BpwU128 a,
                        BpwU128 b)
{
  return (a > b) - (a < b);
}

int
bpw_sheet_item_compare (BpwSheetItem    *a,
                       BpwSheetItem    *b,
                       BpwSheetColumn  column)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (a) && BPW_IS_SHEET_ITEM (b), 0);

  switch (column)
    {
    case BPW_SHEET_COLUMN_OPERATION:
      return g_utf8_collate (a->operation, b->operation);
    case BPW_SHEET_COLUMN_LAYER_TYPE:
      return (int) a->layer_type - (int) b->layer_type;
    case BPW_SHEET_COLUMN_PHASE:
      return (int) a->phase - (int) b->phase;
    case BPW_SHEET_COLUMN_PRIMITIVE:
      return strcmp (bpw_primitive_to_string (a->primitive),
                     bpw_primitive_to_string (b->primitive));
    case BPW_SHEET_COLUMN_SHAPE:
      return bpw_sheet_item_cmp_u128 ((BpwU128) MAX (a->batch, 1) * a->m * a->n * a->k,
                                     (BpwU128) MAX (b->batch, 1) * b->m * b->n * b->k);
    case BPW_SHEET_COLUMN_RUNS:
      return bpw_sheet_item_cmp_u128 (a->runs, b->runs);
    case BPW_SHEET_COLUMN_FLOPS:
      return bpw_sheet_item_cmp_u128 (a->flops, b->flops);
    case BPW_SHEET_COLUMN_BYTES_READ:
      return bpw_sheet_item_cmp_u128 (a->bytes_read, b->bytes_read);
    case BPW_SHEET_COLUMN_BYTES_WRITTEN:
      return bpw_sheet_item_cmp_u128 (a->bytes_written, b->bytes_written);
    case BPW_SHEET_COLUMN_INTENSITY:
      {
        double x = bpw_sheet_item_intensity (a);
        double y = bpw_sheet_item_intensity (b);

        return (x > y) - (x < y);
      }
    default:
      g_return_val_if_reached (0);
    }
}

const char *
bpw_sheet_column_get_title (BpwSheetColumn column)
{
  switch (column)
    {
    case BPW_SHEET_COLUMN_OPERATION:
      return _("Operation");
    case BPW_SHEET_COLUMN_LAYER_TYPE:
      return _("Layer Type");
    case BPW_SHEET_COLUMN_PHASE:
      return _("Phase");
    case BPW_SHEET_COLUMN_PRIMITIVE:
      return _("Primitive");
    case BPW_SHEET_COLUMN_SHAPE:
      /* Translators: matrix multiplication dimensions, batch × M × N × K */
      return _("Shape (M × N × K)");
    case BPW_SHEET_COLUMN_RUNS:
      /* Translators: how many times an operation runs in one step */
      return _("Runs");
    /* Per step: the count above the table says so, and the headers stay narrow. */
    case BPW_SHEET_COLUMN_FLOPS:
      return _("FLOPs");
    case BPW_SHEET_COLUMN_BYTES_READ:
      /* Translators: bytes read */
      return _("Read");
    case BPW_SHEET_COLUMN_BYTES_WRITTEN:
      /* Translators: bytes written */
      return _("Written");
    case BPW_SHEET_COLUMN_INTENSITY:
      return _("Intensity");
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
bpw_sheet_column_is_numeric (BpwSheetColumn column)
{
  return column >= BPW_SHEET_COLUMN_RUNS;
}
