/* bpw-layer-matrix.c — candidates × layer types: MFU and memory stall on one scenario
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-layer-matrix"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-layer-matrix.h"
#include "bpw-layer-summary.h"

struct _BpwLayerMatrix
{
  GtkWidget  parent_instance;

  GtkWidget *box;
  GtkLabel  *caption;
  GtkGrid   *grid;
  GPtrArray *cells;                        /* GtkLabel, candidate by candidate */
  guint      buckets[BPW_N_LAYER_BUCKETS]; /* of the columns shown */
  guint      n_columns;
};

G_DEFINE_FINAL_TYPE (BpwLayerMatrix, bpw_layer_matrix, GTK_TYPE_WIDGET)

static GtkWidget *
header (const char *text, float xalign)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_widget_add_css_class (label, "heading");
  return label;
}

/* The layer type's share of the step, MFU and memory stall, one a line; "Other" has its
 * share only (no model FLOPs, no tasks); a dash where the candidate has no number. */
static char *
cell_text (const BpwCompareFit *f, guint bucket)
{
  g_autofree char *share = NULL, *mfu = NULL, *stall = NULL;

  if (!f->ok || bpw_evaluation_layer_time (&f->eval, bucket) <= 0)
    return g_strdup ("—");
  share = bpw_layer_summary_format (&f->eval, bucket, BPW_LAYER_SUMMARY_SHARE);
  if (bucket == BPW_LAYER_OTHER)
    /* Translators: the share of the step no layer takes, with its percent sign */
    return g_strdup_printf (_("share %s"), share);
  mfu = bpw_layer_summary_format (&f->eval, bucket, BPW_LAYER_SUMMARY_MFU);
  stall = bpw_layer_summary_format (&f->eval, bucket, BPW_LAYER_SUMMARY_STALL);
  /* Translators: a cell of the matrix by layer type: the layer type's share of the step,
   * its MFU and its memory-stall fraction, one a line, each with its percent sign */
  return g_strdup_printf (_("share %s\nMFU %s\nstall %s"), share, mfu, stall);
}

void
bpw_layer_matrix_set_data (BpwLayerMatrix       *self,
                           const BpwCompareData *data)
{
  GtkWidget *child;
  g_autofree char *caption = NULL;

  g_return_if_fail (BPW_IS_LAYER_MATRIX (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))) != NULL)
    gtk_grid_remove (self->grid, child);
  g_ptr_array_set_size (self->cells, 0);
  self->n_columns = 0;
  gtk_label_set_text (self->caption, "");
  if (data == NULL || data->scenario >= data->n_scenarios)
    return;

  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    for (guint c = 0; c < data->n_candidates; c++)
      {
        const BpwCompareFit *f = bpw_compare_data_cell (data, c, data->scenario);

        if (f->ok && bpw_evaluation_layer_time (&f->eval, b) > 0)
          {
            self->buckets[self->n_columns++] = b;
            break;
          }
      }
  caption = g_strdup_printf (_("Share of the step, MFU and memory-stall fraction of each "
                               "layer type on “%s”. A layer type’s MFU is its model FLOPs "
                               "over its time on every device at the dense matrix peak; "
                               "weighted by time they average to the step’s MFU. Other is "
                               "the time no layer takes: pipeline bubble, pipeline sends and "
                               "data-parallel traffic."),
                             data->scenarios[data->scenario]);
  gtk_label_set_text (self->caption, caption);

  gtk_grid_attach (self->grid, header (_("Candidate"), 0.0), 0, 0, 1, 1);
  for (guint k = 0; k < self->n_columns; k++)
    gtk_grid_attach (self->grid, header (bpw_layer_bucket_display_name (self->buckets[k]), 1.0),
                     k + 1, 0, 1, 1);
  for (guint c = 0; c < data->n_candidates; c++)
    {
      GtkWidget *name = gtk_label_new (data->candidates[c]);

      gtk_label_set_xalign (GTK_LABEL (name), 0.0);
      gtk_grid_attach (self->grid, name, 0, c + 1, 1, 1);
      for (guint k = 0; k < self->n_columns; k++)
        {
          g_autofree char *text = cell_text (bpw_compare_data_cell (data, c, data->scenario),
                                             self->buckets[k]);
          GtkWidget *label = gtk_label_new (text);

          gtk_label_set_xalign (GTK_LABEL (label), 1.0);
          gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_RIGHT);
          gtk_label_set_selectable (GTK_LABEL (label), TRUE);
          gtk_widget_add_css_class (label, "numeric");
          gtk_grid_attach (self->grid, label, k + 1, c + 1, 1, 1);
          g_ptr_array_add (self->cells, label);
        }
    }
}

guint
bpw_layer_matrix_get_n_columns (BpwLayerMatrix *self)
{
  g_return_val_if_fail (BPW_IS_LAYER_MATRIX (self), 0);
  return self->n_columns;
}

guint
bpw_layer_matrix_get_bucket (BpwLayerMatrix *self,
                             guint           column)
{
  g_return_val_if_fail (BPW_IS_LAYER_MATRIX (self), BPW_LAYER_OTHER);
  g_return_val_if_fail (column < self->n_columns, BPW_LAYER_OTHER);
  return self->buckets[column];
}

const char *
bpw_layer_matrix_get_cell (BpwLayerMatrix *self,
                           guint           candidate,
                           guint           column)
{
  g_return_val_if_fail (BPW_IS_LAYER_MATRIX (self), NULL);
  g_return_val_if_fail (column < self->n_columns, NULL);
  g_return_val_if_fail ((candidate + 1) * self->n_columns <= self->cells->len, NULL);
  return gtk_label_get_text (self->cells->pdata[candidate * self->n_columns + column]);
}

static void
bpw_layer_matrix_dispose (GObject *object)
{
  BpwLayerMatrix *self = BPW_LAYER_MATRIX (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (bpw_layer_matrix_parent_class)->dispose (object);
}

static void
bpw_layer_matrix_finalize (GObject *object)
{
  BpwLayerMatrix *self = BPW_LAYER_MATRIX (object);

  g_ptr_array_unref (self->cells);
  G_OBJECT_CLASS (bpw_layer_matrix_parent_class)->finalize (object);
}

static void
bpw_layer_matrix_class_init (BpwLayerMatrixClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_layer_matrix_dispose;
  object_class->finalize = bpw_layer_matrix_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
bpw_layer_matrix_init (BpwLayerMatrix *self)
{
  self->cells = g_ptr_array_new ();
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_margin_start (self->box, 18);
  gtk_widget_set_margin_end (self->box, 18);
  gtk_widget_set_margin_top (self->box, 12);
  gtk_widget_set_margin_bottom (self->box, 12);
  self->caption = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->caption, TRUE);
  gtk_label_set_max_width_chars (self->caption, 110);
  gtk_label_set_xalign (self->caption, 0.0);
  gtk_widget_add_css_class (GTK_WIDGET (self->caption), "dim-label");
  self->grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->grid, 18);
  gtk_grid_set_row_spacing (self->grid, 10);
  gtk_widget_set_halign (GTK_WIDGET (self->grid), GTK_ALIGN_START);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->grid), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("MFU and memory stall by layer type, per candidate"), -1);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->caption));
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->grid));
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
}

GtkWidget *
bpw_layer_matrix_new (void)
{
  return g_object_new (BPW_TYPE_LAYER_MATRIX, NULL);
}
