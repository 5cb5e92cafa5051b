/* bpw-validation-page-tables.c — the Validation page's tables: columns and rows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every column is described once (title, what it shows, the item field it reads, its
 * format), so that the four kinds of table share their factories and sorters; the rows
 * come from the report (Table 1) and from a measurement's correlation.
 */
#define G_LOG_DOMAIN "bpw-validation-page"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-format.h"
#include "bpw-tooltip.h"
#include "bpw-validation-page-private.h"
#include "bpw-validation.h"
#include "bpw-work-graph.h"

typedef enum
{
  FORMAT_TEXT,
  FORMAT_COUNT,
  FORMAT_SECONDS,
  FORMAT_PERCENT,
  FORMAT_FLOPS,
  FORMAT_FLOP_RATE,
  FORMAT_BYTE_RATE,
  FORMAT_TFLOPS,
} BpwValidationFormat;

typedef struct
{
  const char          *title;
  const char          *tooltip;   /* nullable */
  gboolean             text;      /* field is a BpwValidationText, else a value */
  guint                field;
  BpwValidationFormat  format;
  gboolean             expand;
  gboolean             calibrated;  /* only with a calibrated blueprint */
  gboolean             verdict;     /* coloured by Table 1's tolerance */
} BpwValidationColumn;

/* Column titles are short words other pages use too: a context keeps their translations
 * apart. */
#define COLUMN_CONTEXT "validation column"
#define TEXT(title, tip, field, expand) \
  { title, tip, TRUE, BPW_VALIDATION_TEXT_##field, FORMAT_TEXT, expand, FALSE, FALSE }
#define VALUE(title, tip, field, format) \
  { title, tip, FALSE, BPW_VALIDATION_VALUE_##field, FORMAT_##format, FALSE, FALSE, FALSE }

static const BpwValidationColumn table1_columns[] = {
  TEXT (NC_("validation column", "Parameters"),
        N_("The GPT model of the row, as published"), NAME, FALSE),
  TEXT (NC_("validation column", "Decomposition"),
        N_("Tensor and pipeline parallel degrees and the global batch"), DETAIL, TRUE),
  VALUE (NC_("validation column", "GPUs"), NULL, COUNT, COUNT),
  VALUE (NC_("validation column", "Predicted TFLOP/s"),
         N_("Per GPU: the paper’s Eq. (3) FLOPs over the simulated iteration time"),
         PREDICTED, TFLOPS),
  VALUE (NC_("validation column", "Published TFLOP/s"),
         N_("Per GPU, as Table 1 reports it"), MEASURED, TFLOPS),
  /* The blueprint's efficiencies were fitted to these very rows: its error on them is
   * in-sample, and the left-out error beside it says how the fit holds on a row it did
   * not see. */
  { NC_("validation column", "In-Sample Error"),
    /* xgettext:no-c-format */
    N_("Predicted / published − 1 on the blueprint as it is, whose efficiencies were fitted "
       "to these rows; within ±10 % passes bpw validate"), FALSE,
    BPW_VALIDATION_VALUE_ERROR, FORMAT_PERCENT, FALSE, FALSE, TRUE },
  VALUE (NC_("validation column", "Left-Out Error"),
         N_("Out of sample: the row predicted by efficiencies refitted on the other rows, "
            "/ published − 1"), HELD_OUT_ERROR, PERCENT),
  VALUE (NC_("validation column", "Predicted Iteration"),
         N_("Simulated time of one training iteration"), STEP_PREDICTED, SECONDS),
  VALUE (NC_("validation column", "Published Iteration"),
         N_("The iteration time the published TFLOP/s imply"), STEP_PUBLISHED, SECONDS),
};

static const BpwValidationColumn operation_columns[] = {
  TEXT (NC_("validation column", "Operation"),
        N_("The modelled operation, with those its kernels also compute"), NAME, TRUE),
  TEXT (NC_("validation column", "Block"),
        N_("Transformer block, or the embedding before and the head after them"), DETAIL,
        FALSE),
  VALUE (NC_("validation column", "Runs"),
         N_("Occurrences summed: micro-batches and repeats"), COUNT, COUNT),
  VALUE (NC_("validation column", "Predicted"), N_("Simulated time, all runs"), PREDICTED,
         SECONDS),
  VALUE (NC_("validation column", "Measured"),
         N_("Time of the matched kernels or framework ops, all runs"), MEASURED, SECONDS),
  VALUE (NC_("validation column", "Error"), N_("Predicted / measured − 1"), ERROR, PERCENT),
  /* Translators: narrow columns: FLOP/s and B/s as predicted ("Pred.") and as achieved
   * ("Ach.") */
  VALUE (NC_("validation column", "Pred. FLOP/s"),
         N_("Predicted FLOP/s: modelled FLOPs over the predicted time"), PREDICTED_FLOPS,
         FLOP_RATE),
  VALUE (NC_("validation column", "Ach. FLOP/s"),
         N_("Achieved FLOP/s: modelled FLOPs over the measured time"), ACHIEVED_FLOPS,
         FLOP_RATE),
  VALUE (NC_("validation column", "Pred. B/s"),
         N_("Predicted bandwidth: modelled device-memory bytes over the predicted time"),
         PREDICTED_BW, BYTE_RATE),
  VALUE (NC_("validation column", "Ach. B/s"),
         N_("Achieved bandwidth: modelled device-memory bytes over the measured time"),
         ACHIEVED_BW, BYTE_RATE),
  { NC_("validation column", "Calibrated"), N_("Predicted on the calibrated blueprint"), FALSE,
    BPW_VALIDATION_VALUE_CALIBRATED, FORMAT_SECONDS, FALSE, TRUE, FALSE },
  { NC_("validation column", "Cal. Error"), N_("Calibrated prediction / measured − 1"), FALSE,
    BPW_VALIDATION_VALUE_CALIBRATED_ERROR, FORMAT_PERCENT, FALSE, TRUE, FALSE },
};

static const BpwValidationColumn extra_columns[] = {
  TEXT (NC_("validation column", "Measured Kernel or Op"), NULL, NAME, TRUE),
  TEXT (NC_("validation column", "Kind"), N_("What it does, judged by its name"), DETAIL,
        FALSE),
  VALUE (NC_("validation column", "Start"), N_("Into the measured step"), START, SECONDS),
  VALUE (NC_("validation column", "Time"), NULL, MEASURED, SECONDS),
  TEXT (NC_("validation column", "Why Nothing Models It"), NULL, REASON, TRUE),
};

static const BpwValidationColumn missing_columns[] = {
  TEXT (NC_("validation column", "Modelled Operation"), NULL, NAME, TRUE),
  TEXT (NC_("validation column", "Block"), NULL, DETAIL, FALSE),
  TEXT (NC_("validation column", "Class"),
        N_("How the model costs it: matrix or vector engine, memory, fixed latency, or "
           "communication"), CLASS, FALSE),
  VALUE (NC_("validation column", "Start"), N_("Into the simulated step"), START, SECONDS),
  VALUE (NC_("validation column", "Predicted"), NULL, PREDICTED, SECONDS),
  VALUE (NC_("validation column", "FLOPs"), NULL, FLOPS, FLOPS),
  TEXT (NC_("validation column", "Why Nothing Measured Does It"), NULL, REASON, TRUE),
};

#undef TEXT
#undef VALUE

static char *
bpw_validation_format (double              value,
                       BpwValidationFormat format)
{
  if (isnan (value))
    return g_strdup ("—");
  switch (format)
    {
    case FORMAT_COUNT:
      return g_strdup_printf ("%.0f", value);
    case FORMAT_SECONDS:
      return bpw_format_seconds (value);
    case FORMAT_PERCENT:
      return g_strdup_printf ("%+.1f %%", 100.0 * value);
    case FORMAT_FLOPS:
      return bpw_format_si (value, "FLOP");
    case FORMAT_FLOP_RATE:
      return bpw_format_si (value, "FLOP/s");
    case FORMAT_BYTE_RATE:
      return bpw_format_si (value, "B/s");
    case FORMAT_TFLOPS:
      return g_strdup_printf ("%.1f", value);
    case FORMAT_TEXT:
    default:
      g_return_val_if_reached (NULL);
    }
}

static gboolean
bpw_validation_column_ellipsizes (const BpwValidationColumn *column)
{
  return column->expand && column->text && column->field != BPW_VALIDATION_TEXT_DETAIL;
}

static void
bpw_validation_cell_setup_cb (GtkSignalListItemFactory *factory,
                              GtkListItem              *item,
                              const BpwValidationColumn *column)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), column->text ? 0.0 : 1.0);
  /* Names and reasons take the room that is left, ellipsized below a readable width;
   * numbers and short texts (a decomposition, a block) are never cut. */
  if (bpw_validation_column_ellipsizes (column))
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_width_chars (GTK_LABEL (label), 16);
    }
  if (!column->text)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bpw_validation_cell_bind_cb (GtkSignalListItemFactory  *factory,
                             GtkListItem               *item,
                             const BpwValidationColumn *column)
{
  BpwValidationItem *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = NULL;
  double value = NAN;

  if (column->text)
    text = g_strdup (bpw_validation_item_get_text (row, column->field));
  else
    {
      value = bpw_validation_item_get_value (row, column->field);
      text = bpw_validation_format (value, column->format);
    }
  gtk_label_set_text (GTK_LABEL (label), text != NULL ? text : "");
  /* Long names and reasons are ellipsized: the whole text on hover; a number says what
   * it is (column headers have no tooltips in GTK 4.8). */
  if (bpw_validation_column_ellipsizes (column))
    bpw_tooltip_set (label, text);
  else
    bpw_tooltip_set (label, column->tooltip != NULL ? _(column->tooltip) : NULL);
  gtk_widget_remove_css_class (label, "success");
  gtk_widget_remove_css_class (label, "error");
  if (column->verdict && !isnan (value))
    gtk_widget_add_css_class (label, fabs (value) <= BPW_VALIDATION_TABLE1_TOLERANCE
                                     ? "success" : "error");
}

static int
bpw_validation_compare_cb (gconstpointer a,
                           gconstpointer b,
                           gpointer      user_data)
{
  const BpwValidationColumn *column = user_data;
  BpwValidationItem *x = (BpwValidationItem *) a, *y = (BpwValidationItem *) b;
  double u, v;

  if (column->text)
    {
      int order = g_strcmp0 (bpw_validation_item_get_text (x, column->field),
                             bpw_validation_item_get_text (y, column->field));

      return gtk_ordering_from_cmpfunc (order);
    }
  u = bpw_validation_item_get_value (x, column->field);
  v = bpw_validation_item_get_value (y, column->field);
  /* Errors compare by size; a missing value after every number. */
  if (column->format == FORMAT_PERCENT)
    u = fabs (u), v = fabs (v);
  if (isnan (u) || isnan (v))
    return isnan (u) == isnan (v) ? GTK_ORDERING_EQUAL
                                  : isnan (u) ? GTK_ORDERING_LARGER : GTK_ORDERING_SMALLER;
  return u < v ? GTK_ORDERING_SMALLER : u > v ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

GtkWidget *
_bpw_validation_table_new (GListStore           *store,
                           BpwValidationColumns  set,
                           gboolean              calibrated,
                           const char           *label)
{
  static const struct { const BpwValidationColumn *columns; guint n; } sets[] = {
    [BPW_VALIDATION_COLUMNS_TABLE1] = { table1_columns, G_N_ELEMENTS (table1_columns) },
    [BPW_VALIDATION_COLUMNS_OPERATIONS] = { operation_columns,
                                            G_N_ELEMENTS (operation_columns) },
    [BPW_VALIDATION_COLUMNS_EXTRA] = { extra_columns, G_N_ELEMENTS (extra_columns) },
    [BPW_VALIDATION_COLUMNS_MISSING] = { missing_columns, G_N_ELEMENTS (missing_columns) },
  };
  const BpwValidationColumn *columns = sets[set].columns;
  guint n_columns = sets[set].n;
  GtkWidget *view = gtk_column_view_new (NULL);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkSortListModel *sorted;

  for (guint c = 0; c < n_columns; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      g_autoptr(GtkCustomSorter) sorter = NULL;

      if (columns[c].calibrated && !calibrated)
        continue;
      g_signal_connect (factory, "setup", G_CALLBACK (bpw_validation_cell_setup_cb),
                        (gpointer) &columns[c]);
      g_signal_connect (factory, "bind", G_CALLBACK (bpw_validation_cell_bind_cb),
                        (gpointer) &columns[c]);
      column = gtk_column_view_column_new (g_dpgettext2 (NULL, COLUMN_CONTEXT, columns[c].title),
                                           factory);
      sorter = gtk_custom_sorter_new (bpw_validation_compare_cb, (gpointer) &columns[c], NULL);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, columns[c].expand);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
    }
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (store)),
                                    g_object_ref (gtk_column_view_get_sorter (
                                      GTK_COLUMN_VIEW (view))));
  gtk_column_view_set_model (GTK_COLUMN_VIEW (view),
                             GTK_SELECTION_MODEL (gtk_no_selection_new (G_LIST_MODEL (sorted))));
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_column_view_set_show_row_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_widget_add_css_class (view, "data-table");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  return scrolled;
}

/* ---- rows ---- */

guint
_bpw_validation_fill_table1 (GListStore             *store,
                             const BpwReportSection *s)
{
  const BpwMegatronRow *rows;
  guint n = 0, passed = 0;

  rows = bpw_validation_megatron_rows (&n);
  for (guint i = 0; i < s->entries->len && i < n; i++)
    {
      const BpwReportEntry *e = &g_array_index (s->entries, BpwReportEntry, i);
      const BpwMegatronRow *r = &rows[i];
      double flops = bpw_validation_megatron_flops (r);
      g_autofree char *model = g_strdup_printf (_("%.1f B"), r->parameters_b);
      /* Translators: tensor parallel, pipeline parallel and global batch of a Table 1 row */
      g_autofree char *detail = g_strdup_printf (_("TP %d · PP %d · batch %d"), (int) r->tp,
                                                 (int) r->pp, (int) r->batch);
      g_autoptr(BpwValidationItem) item = bpw_validation_item_new (model);

      bpw_validation_item_set_text (item, BPW_VALIDATION_TEXT_DETAIL, detail);
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_COUNT, (double) r->gpus);
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_PREDICTED, e->predicted);
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_MEASURED, e->measured);
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_ERROR, e->error);
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_HELD_OUT_ERROR,
                                     e->held_out_error);
      /* TF/s per GPU = Eq. (3) FLOPs / (GPUs × iteration time), the paper's convention. */
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_STEP_PREDICTED,
                                     flops / (r->gpus * e->predicted * 1e12));
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_STEP_PUBLISHED,
                                     flops / (r->gpus * e->measured * 1e12));
      g_list_store_append (store, item);
      passed += fabs (e->error) <= BPW_VALIDATION_TABLE1_TOLERANCE;
    }
  return passed;
}

static char *
bpw_validation_block (gint32 layer)
{
  if (layer == BPW_LAYER_BEFORE_BLOCKS)
    /* Translators: where an operation sits: before the transformer blocks */
    return g_strdup (C_("validation block", "embedding"));
  if (layer == BPW_LAYER_AFTER_BLOCKS)
    /* Translators: where an operation sits: after the transformer blocks */
    return g_strdup (C_("validation block", "head"));
  return g_strdup_printf ("%d", layer);
}

static gint32
bpw_validation_row_layer (const BpwCorrelation    *corr,
                          const BpwCorrelationRow *row)
{
  const BpwSimEvent *e = bpw_simulation_event (corr->sim,
                                               bpw_correlation_row_op (corr, row, 0)->event);

  if (e->kind == BPW_SIM_EVENT_TASK)
    return g_array_index (corr->sim->plan->stages[e->stage].tasks, BpwPlanTask, e->item).layer;
  return g_array_index (corr->sim->plan->stages[e->stage].transfers, BpwPlanTransfer,
                        e->item).layer;
}

void
_bpw_validation_fill_operations (GListStore              *store,
                                 const BpwMeasurementRun *run)
{
  g_autoptr(GArray) ops = bpw_correlation_by_operation (run->correlation);
  g_autoptr(GArray) cops = NULL;
  g_autoptr(GHashTable) calibrated = g_hash_table_new (g_int64_hash, g_int64_equal);

  if (run->calibrated_correlation != NULL)
    {
      cops = bpw_correlation_by_operation (run->calibrated_correlation);
      for (guint i = 0; i < cops->len; i++)
        g_hash_table_insert (calibrated, &g_array_index (cops, BpwCorrelationOp, i).lineage,
                             &g_array_index (cops, BpwCorrelationOp, i));
    }
  for (guint i = 0; i < ops->len; i++)
    {
      const BpwCorrelationOp *op = &g_array_index (ops, BpwCorrelationOp, i);
      const BpwCorrelationOp *cop = g_hash_table_lookup (calibrated, &op->lineage);
      g_autofree char *name = bpw_correlation_row_name (run->correlation,
                                                        bpw_correlation_row (run->correlation,
                                                                             op->first_row));
      g_autoptr(BpwValidationItem) item = bpw_validation_item_new (name);
      g_autofree char *block = bpw_validation_block (op->layer);

      bpw_validation_item_set_text (item, BPW_VALIDATION_TEXT_DETAIL, block);
      bpw_validation_item_set_text (item, BPW_VALIDATION_TEXT_CLASS,
                                    bpw_op_class_to_string (op->op_class));
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_COUNT, op->rows);
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_PREDICTED, op->predicted_s);
      bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_MEASURED, op->measured_s);
      if (op->measured_s > 0)
        {
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_ERROR,
                                         op->predicted_s / op->measured_s - 1.0);
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_ACHIEVED_FLOPS,
                                         op->flops / op->measured_s);
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_ACHIEVED_BW,
                                         op->bytes / op->measured_s);
        }
      if (op->predicted_s > 0)
        {
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_PREDICTED_FLOPS,
                                         op->flops / op->predicted_s);
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_PREDICTED_BW,
                                         op->bytes / op->predicted_s);
        }
      if (cop != NULL && cop->measured_s > 0)
        {
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_CALIBRATED,
                                         cop->predicted_s);
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_CALIBRATED_ERROR,
                                         cop->predicted_s / cop->measured_s - 1.0);
        }
      g_list_store_append (store, item);
    }
}

/* Extra work (measured, nothing modelled) or missing work (modelled, nothing measured). */
void
_bpw_validation_fill_unmatched (GListStore              *store,
                                const BpwMeasurementRun *run,
                                BpwRowStatus             status)
{
  const BpwCorrelation *corr = run->correlation;

  for (guint i = 0; i < corr->rows->len; i++)
    {
      const BpwCorrelationRow *row = bpw_correlation_row (corr, i);
      g_autofree char *name = NULL;
      g_autofree char *block = NULL;
      g_autoptr(BpwValidationItem) item = NULL;

      if (row->status != status)
        continue;
      name = bpw_correlation_row_name (corr, row);
      item = bpw_validation_item_new (name);
      bpw_validation_item_set_text (item, BPW_VALIDATION_TEXT_REASON, row->reason);
      if (status == BPW_ROW_EXTRA)
        {
          const BpwCorrelationPair *pair = &g_array_index (corr->pairs, BpwCorrelationPair,
                                                           row->pair);
          guint first = 0, n = 0;

          bpw_profile_device_items (corr->profile, pair->device, &first, &n);
          bpw_validation_item_set_text (item, BPW_VALIDATION_TEXT_DETAIL,
                                        bpw_kernel_kind_to_string (row->kind));
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_MEASURED, row->measured_s);
          if (n > 0)
            bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_START, row->start_s -
                                           bpw_profile_item (corr->profile, first)->start);
        }
      else
        {
          block = bpw_validation_block (bpw_validation_row_layer (corr, row));
          bpw_validation_item_set_text (item, BPW_VALIDATION_TEXT_DETAIL, block);
          bpw_validation_item_set_text (item, BPW_VALIDATION_TEXT_CLASS,
                                        bpw_op_class_to_string (row->op_class));
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_START, row->start_s);
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_PREDICTED,
                                         row->predicted_s);
          bpw_validation_item_set_value (item, BPW_VALIDATION_VALUE_FLOPS, row->flops);
        }
      g_list_store_append (store, item);
    }
}
