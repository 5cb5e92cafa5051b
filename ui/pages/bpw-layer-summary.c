/* bpw-layer-summary.c — where one evaluated step goes, layer type by layer type
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GtkGrid of labels rather than a column view: at most nine rows, all visible at once,
 * read across like a small table in a report.
 */
#define G_LOG_DOMAIN "bpw-layer-summary"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-format.h"
#include "bpw-layer-summary.h"

struct _BpwLayerSummary
{
  GtkWidget  parent_instance;

  GtkWidget *grid;    /* GtkGrid */
  GPtrArray *cells;   /* GtkLabel of the rows below the header, row by row */
  guint      n_rows;
};

G_DEFINE_FINAL_TYPE (BpwLayerSummary, bpw_layer_summary, GTK_TYPE_WIDGET)

static const char *
bpw_layer_summary_title (BpwLayerSummaryColumn column)
{
  switch (column)
    {
    case BPW_LAYER_SUMMARY_TYPE:
      return _("Layer Type");
    case BPW_LAYER_SUMMARY_TIME:
      /* Translators: the mean time per device the layer type takes in one step */
      return _("Time");
    case BPW_LAYER_SUMMARY_SHARE:
      /* Translators: the layer type's share of the step time */
      return _("Share");
    case BPW_LAYER_SUMMARY_MFU:
      return _("MFU");
    case BPW_LAYER_SUMMARY_STALL:
      return _("Memory Stall");
    case BPW_LAYER_SUMMARY_BOTTLENECK:
      return _("Bottleneck");
    case BPW_LAYER_SUMMARY_CLASSES:
      /* Translators: the layer type's time split by bottleneck class */
      return _("Time by Class");
    case BPW_N_LAYER_SUMMARY_COLUMNS:
    default:
      g_return_val_if_reached ("");
    }
}

static char *
percent (double fraction)
{
  return isfinite (fraction) ? g_strdup_printf ("%.1f %%", 100.0 * fraction) : g_strdup ("—");
}

char *
bpw_layer_summary_format (const BpwEvaluation   *eval,
                          guint                  bucket,
                          BpwLayerSummaryColumn  column)
{
  double time;

  g_return_val_if_fail (eval != NULL && bucket < BPW_N_LAYER_BUCKETS, NULL);

  time = bpw_evaluation_layer_time (eval, bucket);
  switch (column)
    {
    case BPW_LAYER_SUMMARY_TYPE:
      return g_strdup (bpw_layer_bucket_display_name (bucket));
    case BPW_LAYER_SUMMARY_TIME:
      return bpw_format_seconds (time);
    case BPW_LAYER_SUMMARY_SHARE:
      return percent (eval->step_time_s > 0 ? time / eval->step_time_s : NAN);
    case BPW_LAYER_SUMMARY_MFU:
      return percent (time > 0 ? eval->layer_mfu[bucket] : NAN);
    case BPW_LAYER_SUMMARY_STALL:
      return percent (bucket < BPW_N_LAYER_TYPES ? eval->stall_fraction[bucket] : NAN);
    case BPW_LAYER_SUMMARY_BOTTLENECK:
      return time > 0 ? g_strdup (bpw_bottleneck_display_name (
                                    bpw_evaluation_layer_bottleneck (eval, bucket)))
                      : g_strdup ("—");
    case BPW_LAYER_SUMMARY_CLASSES:
      {
        GString *out = g_string_new (NULL);

        /* The classes that take at least 0.5 % of it (less rounds to "0 %"), in the enum's
         * order, which keeps each in the same place on every row. */
        for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
          if (time > 0 && eval->layer_class_s[bucket][c] >= 0.005 * time)
            /* Translators: one class's share of a layer type's time, "Memory 31 %" */
            g_string_append_printf (out, out->len > 0 ? _(" · %s %.0f %%") : _("%s %.0f %%"),
                                    bpw_bottleneck_display_name (c),
                                    100.0 * eval->layer_class_s[bucket][c] / time);
        return g_string_free (out, FALSE);
      }
    case BPW_N_LAYER_SUMMARY_COLUMNS:
    default:
      g_return_val_if_reached (NULL);
    }
}

static GtkWidget *
cell_label (const char *text, BpwLayerSummaryColumn column, gboolean header)
{
  GtkWidget *label = gtk_label_new (text);
  gboolean numeric = column >= BPW_LAYER_SUMMARY_TIME && column <= BPW_LAYER_SUMMARY_STALL;

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), !header);
  if (header)
    gtk_widget_add_css_class (label, "heading");
  else if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  if (column == BPW_LAYER_SUMMARY_CLASSES)
    {
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_set_hexpand (label, TRUE);
      if (!header)
        gtk_widget_add_css_class (label, "dim-label");
    }
  return label;
}

void
bpw_layer_summary_set_evaluation (BpwLayerSummary     *self,
                                  const BpwEvaluation *eval)
{
  GtkWidget *child;

  g_return_if_fail (BPW_IS_LAYER_SUMMARY (self));

  while ((child = gtk_widget_get_first_child (self->grid)) != NULL)
    gtk_grid_remove (GTK_GRID (self->grid), child);
  g_ptr_array_set_size (self->cells, 0);
  self->n_rows = 0;
  if (eval == NULL)
    return;

  for (guint k = 0; k < BPW_N_LAYER_SUMMARY_COLUMNS; k++)
    gtk_grid_attach (GTK_GRID (self->grid), cell_label (bpw_layer_summary_title (k), k, TRUE),
                     k, 0, 1, 1);
  for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
    {
      if (bpw_evaluation_layer_time (eval, b) <= 0)
        continue;
      self->n_rows++;
      for (guint k = 0; k < BPW_N_LAYER_SUMMARY_COLUMNS; k++)
        {
          g_autofree char *text = bpw_layer_summary_format (eval, b, k);
          GtkWidget *label = cell_label (text, k, FALSE);

          gtk_grid_attach (GTK_GRID (self->grid), label, k, self->n_rows, 1, 1);
          g_ptr_array_add (self->cells, label);
        }
    }
}

guint
bpw_layer_summary_get_n_rows (BpwLayerSummary *self)
{
  g_return_val_if_fail (BPW_IS_LAYER_SUMMARY (self), 0);
  return self->n_rows;
}

const char *
bpw_layer_summary_get_cell (BpwLayerSummary       *self,
                            guint                  row,
                            BpwLayerSummaryColumn  column)
{
  g_return_val_if_fail (BPW_IS_LAYER_SUMMARY (self), NULL);
  g_return_val_if_fail (row < self->n_rows && column < BPW_N_LAYER_SUMMARY_COLUMNS, NULL);
  return gtk_label_get_text (self->cells->pdata[row * BPW_N_LAYER_SUMMARY_COLUMNS + column]);
}

static void
bpw_layer_summary_dispose (GObject *object)
{
  BpwLayerSummary *self = BPW_LAYER_SUMMARY (object);

  g_clear_pointer (&self->grid, gtk_widget_unparent);
  G_OBJECT_CLASS (bpw_layer_summary_parent_class)->dispose (object);
}

static void
bpw_layer_summary_finalize (GObject *object)
{
  BpwLayerSummary *self = BPW_LAYER_SUMMARY (object);

  g_ptr_array_unref (self->cells);
  G_OBJECT_CLASS (bpw_layer_summary_parent_class)->finalize (object);
}

static void
bpw_layer_summary_class_init (BpwLayerSummaryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = bpw_layer_summary_dispose;
  object_class->finalize = bpw_layer_summary_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_TABLE);
}

static void
bpw_layer_summary_init (BpwLayerSummary *self)
{
  self->cells = g_ptr_array_new ();
  self->grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 18);
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 4);
  gtk_widget_set_parent (self->grid, GTK_WIDGET (self));
}

GtkWidget *
bpw_layer_summary_new (void)
{
  return g_object_new (BPW_TYPE_LAYER_SUMMARY, NULL);
}
