/* bpw-sheet-item.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-sheet-item"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "bpw-sheet-item.h"

struct _BpwSheetItem
{
  GObject        parent_instance;

  /* Owned */
  char          *operation;
  char          *kind;         /* primitive, or collective kind */
  char          *engine;
  char          *fusion;       /* "" when not fused */
  char          *precision;    /* what a matmul runs in ("int4 w/ g128 (bf16 compute)");
                                * "" for transfers */
  char          *fallback;     /* why the policy's format fell back; "" when it did not */
  char          *search_text;  /* casefolded */

  gint64         stage;
  guint32        lineage;
  gboolean       transfer;
  gint32         layer;
  BpwLayerType   layer_type;
  BpwPhase       phase;
  double         flops;
  double         device_bytes;
  double         host_bytes;
  double         intensity;
  double         tile_m, tile_n;
  guint32        fusion_group;
  double         count;
  double         time_s;
  double         total_s;
  BpwBottleneck  bottleneck;
  double         dequant_s;    /* weight-only dequantisation exposed, per execution */
  double         stack_s;      /* of time_s: the software stack's implementation overhead */
  double         launch_s;     /* of stack_s: device idle waiting for launches */
  guint32        stack_kinds;  /* bpw_plan_implementation_name() bits */
};

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

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
    /* The backward pass's two halves by what they differentiate by: short enough for the
     * Sheet to show every column at once (a search for "backward" still finds them). */
    case BPW_PHASE_BACKWARD_ACTIVATION:
      /* Translators: the backward pass's gradient with respect to a layer's input (dgrad) */
      return _("Input gradient");
    case BPW_PHASE_BACKWARD_WEIGHT:
      /* Translators: the backward pass's gradient with respect to the weights (wgrad) */
      return _("Weight gradient");
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
    case BPW_LAYER_VISION:
      /* Translators: the image encoder and projector of a multimodal model */
      return _("Vision");
    case BPW_LAYER_CROSS_ATTENTION:
      /* Translators: a decoder layer's attention to the image tokens (Llama 3.2 Vision) */
      return _("Cross-attention");
    default:
      return bpw_layer_type_to_string (type);
    }
}

static const char *
bpw_sheet_item_fusion_label (const char *fusion)
{
  if (g_strcmp0 (fusion, "attention") == 0)
    return _("Attention");
  if (g_strcmp0 (fusion, "bias_activation") == 0)
    /* Translators: bias and activation fused into the matmul epilogue */
    return _("Bias + activation");
  if (g_strcmp0 (fusion, "norm_residual") == 0)
    return _("Norm + residual");
  if (g_strcmp0 (fusion, "optimizer") == 0)
    return _("Optimizer");
  return fusion;
}

static char *
bpw_sheet_item_layer_label (gint32 layer)
{
  if (layer == BPW_LAYER_BEFORE_BLOCKS)
    return g_strdup (_("before the blocks"));
  if (layer == BPW_LAYER_AFTER_BLOCKS)
    return g_strdup (_("after the blocks"));
  /* Translators: the transformer block (layer) an operation belongs to */
  return g_strdup_printf (_("block %d"), layer);
}

static void
bpw_sheet_item_finalize (GObject *object)
{
  BpwSheetItem *self = (BpwSheetItem *) object;

  g_free (self->operation);
  g_free (self->kind);
  g_free (self->engine);
  g_free (self->fusion);
  g_free (self->precision);
  g_free (self->fallback);
  g_free (self->search_text);

  G_OBJECT_CLASS (bpw_sheet_item_parent_class)->finalize (object);
}

static void
bpw_sheet_item_class_init (BpwSheetItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_sheet_item_finalize;

  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
bpw_sheet_item_init (BpwSheetItem *self)
{
}

static BpwSheetItem *
bpw_sheet_item_new (const BpwSheetRow *row)
{
  BpwSheetItem *self = g_object_new (BPW_TYPE_SHEET_ITEM, NULL);
  g_autofree char *joined = NULL;

  self->operation = g_strdup (row->name);
  /* A transfer's kind says how it runs: "all_reduce (hierarchical)". */
  self->kind = row->transfer && row->algorithm != NULL && row->algorithm[0] != '\0'
               ? g_strdup_printf ("%s (%s)", row->kind, row->algorithm)
               : g_strdup (row->kind);
  self->engine = g_strdup (row->engine);
  self->fusion = g_strdup (row->fusion != NULL ? row->fusion : "");
  self->precision = g_strdup (row->precision != NULL ? row->precision : "");
  self->fallback = g_strdup (row->fallback != NULL ? row->fallback : "");
  self->dequant_s = row->dequant_s;
  self->stack_s = row->stack_s;
  self->launch_s = row->launch_s;
  self->stack_kinds = row->stack_kinds;
  self->stage = row->stage;
  self->lineage = row->lineage;
  self->transfer = row->transfer;
  self->layer = row->layer;
  self->layer_type = row->layer_type;
  self->phase = row->phase;
  self->flops = row->flops;
  self->device_bytes = row->device_bytes;
  self->host_bytes = row->host_bytes;
  self->intensity = row->intensity;
  self->tile_m = row->tile_m;
  self->tile_n = row->tile_n;
  self->fusion_group = row->fusion_group;
  self->count = row->count;
  self->time_s = row->time_s;
  self->total_s = row->total_s;
  self->bottleneck = row->bottleneck;

  joined = g_strjoin (" ", self->operation, bpw_sheet_item_layer_type_label (self->layer_type),
                      bpw_sheet_item_phase_label (self->phase),
                      bpw_phase_to_string (self->phase), self->kind, self->engine,
                      bpw_sheet_item_fusion_label (self->fusion), self->precision,
                      bpw_bottleneck_display_name (self->bottleneck),
                      bpw_bottleneck_to_string (self->bottleneck), NULL);
  self->search_text = g_utf8_casefold (joined, -1);
  return self;
}

GPtrArray *
bpw_sheet_item_list_from_sheet (const GArray *rows)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_val_if_fail (rows != NULL, items);

  for (guint i = 0; i < rows->len; i++)
    g_ptr_array_add (items, bpw_sheet_item_new (&g_array_index (rows, BpwSheetRow, i)));
  return items;
}

gboolean
bpw_sheet_item_update (BpwSheetItem *self,
                       BpwSheetItem *other)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self) && BPW_IS_SHEET_ITEM (other), FALSE);

  /* The same row of the same plan shape: same operation of the same stage and layer. */
  if (self->stage != other->stage || self->lineage != other->lineage
      || self->transfer != other->transfer || self->layer != other->layer
      || self->phase != other->phase || g_strcmp0 (self->operation, other->operation) != 0
      || g_strcmp0 (self->kind, other->kind) != 0)
    return FALSE;

  g_free (self->engine);
  self->engine = g_strdup (other->engine);
  g_free (self->fusion);
  self->fusion = g_strdup (other->fusion);
  g_free (self->precision);
  self->precision = g_strdup (other->precision);
  g_free (self->fallback);
  self->fallback = g_strdup (other->fallback);
  self->dequant_s = other->dequant_s;
  self->stack_s = other->stack_s;
  self->launch_s = other->launch_s;
  self->stack_kinds = other->stack_kinds;
  g_free (self->search_text);
  self->search_text = g_strdup (other->search_text);
  self->layer_type = other->layer_type;
  self->flops = other->flops;
  self->device_bytes = other->device_bytes;
  self->host_bytes = other->host_bytes;
  self->intensity = other->intensity;
  self->tile_m = other->tile_m;
  self->tile_n = other->tile_n;
  self->fusion_group = other->fusion_group;
  self->count = other->count;
  self->time_s = other->time_s;
  self->total_s = other->total_s;
  self->bottleneck = other->bottleneck;
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

const char *
bpw_sheet_item_get_operation (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), NULL);
  return self->operation;
}

gint64
bpw_sheet_item_get_stage (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->stage;
}

gint32
bpw_sheet_item_get_layer (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->layer;
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

gboolean
bpw_sheet_item_is_transfer (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), FALSE);
  return self->transfer;
}

const char *
bpw_sheet_item_get_engine (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), NULL);
  return self->engine;
}

double
bpw_sheet_item_get_flops (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0.0);
  return self->flops;
}

double
bpw_sheet_item_get_bytes (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0.0);
  return self->device_bytes;
}

double
bpw_sheet_item_get_count (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0.0);
  return self->count;
}

double
bpw_sheet_item_get_time (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0.0);
  return self->time_s;
}

double
bpw_sheet_item_get_per_step (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0.0);
  return self->total_s;
}

guint32
bpw_sheet_item_get_lineage (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0);
  return self->lineage;
}

double
bpw_sheet_item_get_stack_time (BpwSheetItem *self)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), 0.0);
  return self->stack_s;
}

gboolean
bpw_sheet_item_matches (BpwSheetItem *self,
                        const char   *needle)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), FALSE);

  return needle == NULL || needle[0] == '\0' || strstr (self->search_text, needle) != NULL;
}

char *
bpw_sheet_item_format (BpwSheetItem   *self,
                       BpwSheetColumn  column,
                       BpwByteUnits    units)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), NULL);

  switch (column)
    {
    case BPW_SHEET_COLUMN_OPERATION:
      return g_strdup (self->operation);
    case BPW_SHEET_COLUMN_STAGE:
      return g_strdup_printf ("%" G_GINT64_FORMAT, self->stage);
    case BPW_SHEET_COLUMN_PHASE:
      return g_strdup (bpw_sheet_item_phase_label (self->phase));
    case BPW_SHEET_COLUMN_ENGINE:
      return g_strdup (self->engine);
    case BPW_SHEET_COLUMN_FLOPS:
      return self->flops > 0.0 ? bpw_format_si (self->flops, "FLOP") : g_strdup ("");
    case BPW_SHEET_COLUMN_BYTES:
      return bpw_format_bytes_scaled ((guint64) MAX (self->device_bytes, 0.0), units);
    case BPW_SHEET_COLUMN_INTENSITY:
      if (self->intensity <= 0.0)
        return g_strdup ("");
      /* The header says FLOP/B; the cells stay narrow enough for every column to show. */
      return g_strdup_printf (self->intensity >= 100.0 ? "%.0f" : "%.1f", self->intensity);
    case BPW_SHEET_COLUMN_TILE:
      if (self->tile_m <= 0.0)
        return g_strdup ("");
      /* Narrow no-break spaces: the tile reads as one quantity, in a narrower column. */
      return g_strdup_printf ("%.0f\u202f×\u202f%.0f", self->tile_m, self->tile_n);
    case BPW_SHEET_COLUMN_FUSION:
      return g_strdup (bpw_sheet_item_fusion_label (self->fusion));
    case BPW_SHEET_COLUMN_PRECISION:
      if (self->fallback[0] != '\0')
        /* Translators: a matmul's precision and why the policy's format fell back
         * ("engine", "quality", "shape", "group") */
        return g_strdup_printf (_("%s (fallback: %s)"), self->precision, self->fallback);
      return g_strdup (self->precision);
    case BPW_SHEET_COLUMN_TIME:
      return bpw_format_seconds (self->time_s);
    case BPW_SHEET_COLUMN_PER_STEP:
      return bpw_format_seconds (self->total_s);
    case BPW_SHEET_COLUMN_STACK:
      return self->stack_s != 0.0 ? bpw_format_seconds (self->stack_s) : g_strdup ("");
    case BPW_SHEET_COLUMN_BOTTLENECK:
      return g_strdup (bpw_bottleneck_display_name (self->bottleneck));
    case BPW_SHEET_COLUMN_LINEAGE:
      return g_strdup_printf ("%u", self->lineage);
    case BPW_N_SHEET_COLUMNS:
    default:
      g_return_val_if_reached (NULL);
    }
}

/* Names the implementation transformations that make up the row's stack time, as the
 * conservation report and `bpw evaluate` name them. */
static char *
bpw_sheet_item_stack_tooltip (BpwSheetItem *self)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *stack = NULL;

  if (self->stack_s == 0.0 && self->stack_kinds == 0)
    return self->transfer ? NULL
                          : g_strdup (_("No implementation overhead: the software stack adds "
                                        "nothing beside this operation's own work"));
  for (guint k = 0; bpw_plan_implementation_name (k) != NULL; k++)
    if (self->stack_kinds & (1u << k))
      {
        if (names->len > 0)
          g_string_append (names, ", ");
        g_string_append (names, bpw_plan_implementation_name (k));
        if (g_str_equal (bpw_plan_implementation_name (k), "launch_gaps"))
          {
            g_autofree char *launch = bpw_format_seconds (self->launch_s);

            g_string_append_printf (names, " (%s)", launch);
          }
      }
  stack = bpw_format_seconds (self->stack_s);
  /* Translators: %s: a time; %s: names of implementation transformations ("amp_cast,
   * launch_gaps (4 µs)"), as the conservation report lists them */
  return g_strdup_printf (_("%s per execution that the blueprint's software stack adds beside "
                            "this operation's own work: %s"), stack, names->str);
}

char *
bpw_sheet_item_dup_tooltip (BpwSheetItem   *self,
                            BpwSheetColumn  column)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (self), NULL);

  switch (column)
    {
    case BPW_SHEET_COLUMN_OPERATION:
      {
        /* Each stage lists its first block: the layer says which one, or where outside
         * the blocks the operation sits. */
        g_autofree char *layer = bpw_sheet_item_layer_label (self->layer);
        /* Translators: the work-graph operation a row comes from, by its id */
        g_autofree char *lineage = g_strdup_printf (_("lineage %u"), self->lineage);

        /* The name first: a narrow column ellipsizes it. The lineage too, as its column
         * starts hidden. */
        return g_strdup_printf ("%s\n%s · %s · %s · %s", self->operation,
                                bpw_sheet_item_layer_type_label (self->layer_type), self->kind,
                                layer, lineage);
      }
    case BPW_SHEET_COLUMN_FLOPS:
      if (self->flops <= 0.0)
        return NULL;
      return g_strdup_printf (_("%.0f FLOP per execution, padding included"), self->flops);
    case BPW_SHEET_COLUMN_BYTES:
      if (self->transfer)
        return g_strdup_printf (_("%.0f bytes on the wire per execution"), self->device_bytes);
      return g_strdup_printf (_("%.0f bytes of device memory per execution; %.0f of host "
                                "memory"), self->device_bytes, self->host_bytes);
    case BPW_SHEET_COLUMN_TILE:
      return self->tile_m > 0.0 ? g_strdup (_("Output tile of the matmul, rows × columns"))
                                : NULL;
    case BPW_SHEET_COLUMN_FUSION:
      return self->fusion_group > 0 ? g_strdup_printf (_("Fusion group %u"), self->fusion_group)
                                    : NULL;
    case BPW_SHEET_COLUMN_PRECISION:
      if (self->dequant_s > 0.0)
        {
          g_autofree char *dequant = bpw_format_seconds (self->dequant_s);

          return g_strdup_printf (_("Weight-only weights, dequantised in the kernel: %s per "
                                    "execution that the weight loads and matrix work do not "
                                    "hide"), dequant);
        }
      return NULL;
    case BPW_SHEET_COLUMN_TIME:
      return g_strdup_printf (_("Per execution; %.0f executions per step on one rank"),
                              self->count);
    case BPW_SHEET_COLUMN_PER_STEP:
      return g_strdup (self->transfer
                       ? _("Time the transfer is exposed per step, on one rank")
                       : _("Executions per step × time per execution, on one rank"));
    case BPW_SHEET_COLUMN_STACK:
      return bpw_sheet_item_stack_tooltip (self);
    case BPW_SHEET_COLUMN_LINEAGE:
      return g_strdup (_("The work-graph operation this row implements"));
    case BPW_SHEET_COLUMN_INTENSITY:
      return self->intensity > 0.0
             ? g_strdup (_("Arithmetic intensity: FLOPs per byte of device memory"))
             : NULL;
    case BPW_SHEET_COLUMN_STAGE:
    case BPW_SHEET_COLUMN_PHASE:
    case BPW_SHEET_COLUMN_ENGINE:
    case BPW_SHEET_COLUMN_BOTTLENECK:
    case BPW_N_SHEET_COLUMNS:
    default:
      return NULL;
    }
}

static int
bpw_sheet_item_cmp_double (double a,
                           double b)
{
  return (a > b) - (a < b);
}

int
bpw_sheet_item_compare (BpwSheetItem   *a,
                        BpwSheetItem   *b,
                        BpwSheetColumn  column)
{
  g_return_val_if_fail (BPW_IS_SHEET_ITEM (a) && BPW_IS_SHEET_ITEM (b), 0);

  switch (column)
    {
    case BPW_SHEET_COLUMN_OPERATION:
      return g_utf8_collate (a->operation, b->operation);
    case BPW_SHEET_COLUMN_STAGE:
      return (a->stage > b->stage) - (a->stage < b->stage);
    case BPW_SHEET_COLUMN_PHASE:
      return (int) a->phase - (int) b->phase;
    case BPW_SHEET_COLUMN_ENGINE:
      return g_strcmp0 (a->engine, b->engine);
    case BPW_SHEET_COLUMN_FLOPS:
      return bpw_sheet_item_cmp_double (a->flops, b->flops);
    case BPW_SHEET_COLUMN_BYTES:
      return bpw_sheet_item_cmp_double (a->device_bytes, b->device_bytes);
    case BPW_SHEET_COLUMN_INTENSITY:
      return bpw_sheet_item_cmp_double (a->intensity, b->intensity);
    case BPW_SHEET_COLUMN_TILE:
      return bpw_sheet_item_cmp_double (a->tile_m * a->tile_n, b->tile_m * b->tile_n);
    case BPW_SHEET_COLUMN_FUSION:
      return g_strcmp0 (a->fusion, b->fusion);
    case BPW_SHEET_COLUMN_PRECISION:
      return g_strcmp0 (a->precision, b->precision);
    case BPW_SHEET_COLUMN_TIME:
      return bpw_sheet_item_cmp_double (a->time_s, b->time_s);
    case BPW_SHEET_COLUMN_PER_STEP:
      return bpw_sheet_item_cmp_double (a->total_s, b->total_s);
    case BPW_SHEET_COLUMN_STACK:
      return bpw_sheet_item_cmp_double (a->stack_s, b->stack_s);
    case BPW_SHEET_COLUMN_BOTTLENECK:
      return (int) a->bottleneck - (int) b->bottleneck;
    case BPW_SHEET_COLUMN_LINEAGE:
      return (a->lineage > b->lineage) - (a->lineage < b->lineage);
    case BPW_N_SHEET_COLUMNS:
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
    case BPW_SHEET_COLUMN_STAGE:
      /* Translators: pipeline stage */
      return _("Stage");
    case BPW_SHEET_COLUMN_PHASE:
      return _("Phase");
    case BPW_SHEET_COLUMN_ENGINE:
      /* Translators: the engine (or link) that runs an operation */
      return _("Engine");
    case BPW_SHEET_COLUMN_FLOPS:
      return _("FLOPs");
    case BPW_SHEET_COLUMN_BYTES:
      return _("Bytes");
    case BPW_SHEET_COLUMN_INTENSITY:
      /* Translators: arithmetic intensity, FLOPs per byte */
      return _("FLOP/B");
    case BPW_SHEET_COLUMN_TILE:
      return _("Tile");
    case BPW_SHEET_COLUMN_FUSION:
      return _("Fusion");
    case BPW_SHEET_COLUMN_PRECISION:
      return _("Precision");
    case BPW_SHEET_COLUMN_TIME:
      /* Translators: time of one execution */
      return _("Time");
    case BPW_SHEET_COLUMN_PER_STEP:
      return _("Per Step");
    case BPW_SHEET_COLUMN_STACK:
      /* Translators: a narrow column header: of the time per execution, what the software
       * stack adds beside the operation's own work (casts, unfused element-wise kernels,
       * launch gaps); the header's tooltip says so */
      return C_("sheet column", "Stack");
    case BPW_SHEET_COLUMN_BOTTLENECK:
      return _("Bottleneck");
    case BPW_SHEET_COLUMN_LINEAGE:
      /* Translators: the id of the work-graph operation a row comes from */
      return _("Lineage");
    case BPW_N_SHEET_COLUMNS:
    default:
      g_return_val_if_reached (NULL);
    }
}

const char *
bpw_sheet_column_get_name (BpwSheetColumn column)
{
  if (column == BPW_SHEET_COLUMN_STACK)
    /* Translators: of the time per execution, what the software stack adds beside the
     * operation's own work (casts, unfused element-wise kernels, launch gaps) */
    return _("Stack Time");
  return bpw_sheet_column_get_title (column);
}

const char *
bpw_sheet_column_get_description (BpwSheetColumn column)
{
  switch (column)
    {
    case BPW_SHEET_COLUMN_OPERATION:
      return _("Operation or transfer, as the plan names it");
    case BPW_SHEET_COLUMN_STAGE:
      return _("Pipeline stage; one rank of each is listed");
    case BPW_SHEET_COLUMN_PHASE:
      return _("Phase of the step: forward, recompute, backward for the activations or the "
               "weights, or the optimizer");
    case BPW_SHEET_COLUMN_ENGINE:
      return _("Engine that runs the operation, or the link a transfer takes");
    case BPW_SHEET_COLUMN_FLOPS:
      return _("FLOPs per execution, padding included");
    case BPW_SHEET_COLUMN_BYTES:
      return _("Bytes of device memory per execution; bytes on the wire for a transfer");
    case BPW_SHEET_COLUMN_INTENSITY:
      return _("Arithmetic intensity: FLOPs per byte of device memory");
    case BPW_SHEET_COLUMN_TILE:
      return _("Output tile of the matmul, rows × columns");
    case BPW_SHEET_COLUMN_FUSION:
      return _("Fused kernel the operation runs in");
    case BPW_SHEET_COLUMN_PRECISION:
      return _("Number format the operation runs in, and why the policy’s format fell back");
    case BPW_SHEET_COLUMN_TIME:
      return _("Time of one execution");
    case BPW_SHEET_COLUMN_PER_STEP:
      return _("Executions per step × time per execution, on one rank");
    case BPW_SHEET_COLUMN_STACK:
      return _("Stack time: of the time per execution, what the blueprint’s software stack "
               "adds beside the operation’s own work (casts, unfused element-wise kernels, "
               "launch gaps)");
    case BPW_SHEET_COLUMN_BOTTLENECK:
      return _("What limits the operation: compute, memory, latency or communication");
    case BPW_SHEET_COLUMN_LINEAGE:
      return _("The work-graph operation this row implements");
    case BPW_N_SHEET_COLUMNS:
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
bpw_sheet_column_is_numeric (BpwSheetColumn column)
{
  switch (column)
    {
    case BPW_SHEET_COLUMN_STAGE:
    case BPW_SHEET_COLUMN_FLOPS:
    case BPW_SHEET_COLUMN_BYTES:
    case BPW_SHEET_COLUMN_INTENSITY:
    case BPW_SHEET_COLUMN_TILE:
    case BPW_SHEET_COLUMN_TIME:
    case BPW_SHEET_COLUMN_PER_STEP:
    case BPW_SHEET_COLUMN_STACK:
    case BPW_SHEET_COLUMN_LINEAGE:
      return TRUE;
    case BPW_SHEET_COLUMN_OPERATION:
    case BPW_SHEET_COLUMN_PHASE:
    case BPW_SHEET_COLUMN_ENGINE:
    case BPW_SHEET_COLUMN_FUSION:
    case BPW_SHEET_COLUMN_PRECISION:
    case BPW_SHEET_COLUMN_BOTTLENECK:
    case BPW_N_SHEET_COLUMNS:
    default:
      return FALSE;
    }
}
