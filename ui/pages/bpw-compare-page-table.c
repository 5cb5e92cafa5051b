/* bpw-compare-page-table.c — the Compare page's delta table: candidates × scenarios
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chart draws the deltas of one scenario for export; the table has every scenario,
 * scenario by scenario, each row against the baseline candidate on the same scenario —
 * a real table, to sort, select, read with a screen reader and copy from. Each row is a
 * GtkStringObject (the candidate's name) that carries its cell's index; its cells are
 * formatted from the page's data when they are bound.
 */
#define G_LOG_DOMAIN "bpw-compare-page-table"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "bpw-compare-page-private.h"
#include "bpw-tooltip.h"

typedef enum
{
  COLUMN_SCENARIO,
  COLUMN_CANDIDATE,
  COLUMN_DEVICES,
  COLUMN_METRIC,
  COLUMN_TIME,
  COLUMN_TIME_DELTA,
  COLUMN_TOKENS,
  COLUMN_TOKENS_DELTA,
  COLUMN_MFU,
  COLUMN_ENERGY,
  COLUMN_TOKENS_PER_JOULE,
  COLUMN_PEAK,
  COLUMN_BOTTLENECK,
  COLUMN_SLA,
  COLUMN_SCORE,
  COLUMN_PERF_PER_WATT,
  COLUMN_SUITE,
  N_COLUMNS
} BpwCompareColumn;

/* What a column's sorter needs: the page (which owns the sorter) and the column. */
typedef struct
{
  BpwComparePage   *self;
  BpwCompareColumn  column;
} BpwCompareSortKey;

static const char *
bpw_compare_column_title (BpwCompareColumn column)
{
  switch (column)
    {
    case COLUMN_SCENARIO:
      return _("Scenario");
    case COLUMN_CANDIDATE:
      return _("Candidate");
    case COLUMN_DEVICES:
      return _("Devices");
    case COLUMN_METRIC:
      /* Translators: which time the next column shows: step time, TTFT or TPOT */
      return _("Metric");
    case COLUMN_TIME:
      return _("Time");
    case COLUMN_TIME_DELTA:
    case COLUMN_TOKENS_DELTA:
      /* Translators: the change against the baseline candidate */
      return _("Δ");
    case COLUMN_TOKENS:
      return _("Tokens/s");
    case COLUMN_MFU:
      return _("MFU");
    case COLUMN_ENERGY:
      /* Translators: energy of one step, all devices */
      return _("Energy/Step");
    case COLUMN_TOKENS_PER_JOULE:
      return _("Tokens/J");
    case COLUMN_PERF_PER_WATT:
      /* Translators: the suite's weighted tokens per joule relative to the best */
      return _("Perf/W");
    case COLUMN_PEAK:
      return _("Peak Memory");
    case COLUMN_BOTTLENECK:
      return _("Bottleneck");
    case COLUMN_SLA:
      return _("SLA");
    case COLUMN_SCORE:
      return _("Score");
    case COLUMN_SUITE:
      return _("Suite");
    case N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

static gboolean
bpw_compare_column_is_numeric (BpwCompareColumn column)
{
  return column == COLUMN_DEVICES || column == COLUMN_TIME || column == COLUMN_TIME_DELTA
         || column == COLUMN_TOKENS || column == COLUMN_TOKENS_DELTA || column == COLUMN_MFU
         || column == COLUMN_PEAK || column == COLUMN_SCORE || column == COLUMN_ENERGY
         || column == COLUMN_TOKENS_PER_JOULE || column == COLUMN_PERF_PER_WATT;
}

/* The row's cell index (candidate × n_scenarios + scenario); G_MAXUINT for none. */
static guint
bpw_compare_page_row_cell (const BpwCompareData *data,
                           gpointer              row)
{
  guint cell = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "bpw-cell"));

  return data != NULL && cell > 0 && cell <= data->n_candidates * data->n_scenarios
         ? cell - 1 : G_MAXUINT;
}

/* The column's number for sorting and deltas; NaN where there is none. */
static double
bpw_compare_page_value (const BpwCompareData *data,
                        guint                 c,
                        guint                 s,
                        BpwCompareColumn      column)
{
  const BpwCompareFit *f = bpw_compare_data_cell (data, c, s);
  const BpwCompareDataSuite *suite = data->suites->len > 0
                                     ? &g_array_index (data->suites, BpwCompareDataSuite, 0)
                                     : NULL;

  if (column == COLUMN_SCORE || column == COLUMN_SUITE)
    return suite != NULL ? suite->score[c] : NAN;
  if (column == COLUMN_PERF_PER_WATT)
    return suite != NULL ? suite->perf_per_watt[c] : NAN;
  if (!f->ok)
    return NAN;
  switch (column)
    {
    case COLUMN_DEVICES:
      return (double) f->devices;
    case COLUMN_PEAK:
      return f->eval.peak_bytes;
    case COLUMN_TIME:
    case COLUMN_TIME_DELTA:
      return f->legal ? f->value : NAN;
    case COLUMN_TOKENS:
    case COLUMN_TOKENS_DELTA:
      return f->legal ? f->eval.tokens_per_s : NAN;
    case COLUMN_MFU:
      return f->legal ? f->eval.mfu : NAN;
    case COLUMN_ENERGY:
      return f->legal ? f->eval.energy_j : NAN;
    case COLUMN_TOKENS_PER_JOULE:
      return f->legal ? f->eval.tokens_per_joule : NAN;
    case COLUMN_SLA:
      return f->legal && f->has_sla ? f->sla_margin : NAN;
    case COLUMN_SCENARIO:
    case COLUMN_CANDIDATE:
    case COLUMN_METRIC:
    case COLUMN_BOTTLENECK:
    case COLUMN_SCORE:
    case COLUMN_PERF_PER_WATT:
    case COLUMN_SUITE:
    case N_COLUMNS:
    default:
      return NAN;
    }
}

/* The column's text where it is not a number, for sorting and showing. */
static const char *
bpw_compare_page_word (const BpwCompareData *data,
                       guint                 c,
                       guint                 s,
                       BpwCompareColumn      column)
{
  const BpwCompareFit *f = bpw_compare_data_cell (data, c, s);

  switch (column)
    {
    case COLUMN_SCENARIO:
      return data->scenarios[s];
    case COLUMN_CANDIDATE:
      return data->candidates[c];
    case COLUMN_METRIC:
      return g_strcmp0 (f->metric, "TTFT") == 0 ? _("TTFT")
             : g_strcmp0 (f->metric, "TPOT") == 0 ? _("TPOT") : _("Step time");
    case COLUMN_BOTTLENECK:
      return f->ok && f->legal ? bpw_bottleneck_display_name (f->eval.bottleneck) : "";
    case COLUMN_DEVICES:
    case COLUMN_TIME:
    case COLUMN_TIME_DELTA:
    case COLUMN_TOKENS:
    case COLUMN_TOKENS_DELTA:
    case COLUMN_MFU:
    case COLUMN_ENERGY:
    case COLUMN_TOKENS_PER_JOULE:
    case COLUMN_PEAK:
    case COLUMN_SLA:
    case COLUMN_SCORE:
    case COLUMN_PERF_PER_WATT:
    case COLUMN_SUITE:
    case N_COLUMNS:
    default:
      return NULL;
    }
}

/* "−63.8 %" against the baseline on the same scenario; @tone +1 better, −1 worse. */
static char *
bpw_compare_page_delta (const BpwCompareData *data,
                        guint                 c,
                        guint                 s,
                        BpwCompareColumn      column,
                        int                  *tone)
{
  double value = bpw_compare_page_value (data, c, s, column);
  double base = bpw_compare_page_value (data, data->baseline, s, column);
  double delta;

  if (c == data->baseline)
    return g_strdup (_("baseline"));
  if (!isfinite (value) || !isfinite (base) || base == 0)
    return g_strdup ("—");
  delta = (value - base) / base;
  /* Time is better lower, throughput higher. */
  *tone = delta == 0 ? 0 : ((delta < 0) == (column == COLUMN_TIME_DELTA) ? 1 : -1);
  return g_strdup_printf ("%s%.1f %%", delta < 0 ? "−" : "+", fabs (100 * delta));
}

static char *
bpw_compare_page_format (BpwComparePage   *self,
                         guint             c,
                         guint             s,
                         BpwCompareColumn  column,
                         int              *tone)
{
  const BpwCompareData *data = bpw_compare_page_get_data (self);
  const BpwCompareFit *f = bpw_compare_data_cell (data, c, s);
  const BpwCompareDataSuite *suite = data->suites->len > 0
                                     ? &g_array_index (data->suites, BpwCompareDataSuite, 0)
                                     : NULL;
  double value = bpw_compare_page_value (data, c, s, column);
  const char *word = bpw_compare_page_word (data, c, s, column);

  *tone = 0;
  if (word != NULL)
    return g_strdup (word);
  if (column == COLUMN_SCORE || column == COLUMN_PERF_PER_WATT)
    return isfinite (value) ? g_strdup_printf ("%.3f", value) : g_strdup ("—");
  if (column == COLUMN_SUITE)
    {
      *tone = suite != NULL && !suite->feasible[c] ? -1 : 0;
      return g_strdup (suite == NULL ? "—" : !suite->feasible[c] ? _("Infeasible")
                       : suite->pareto[c] ? _("Pareto front") : _("Feasible"));
    }
  if (!f->ok || (!f->legal && column != COLUMN_DEVICES && column != COLUMN_PEAK))
    {
      *tone = column == COLUMN_TIME ? -1 : 0;
      return g_strdup (column != COLUMN_TIME ? "" : f->ok ? _("Illegal") : _("Not evaluated"));
    }
  switch (column)
    {
    case COLUMN_DEVICES:
      return g_strdup_printf ("%" G_GINT64_FORMAT, f->devices);
    case COLUMN_TIME:
      return bpw_format_seconds (value);
    case COLUMN_TIME_DELTA:
    case COLUMN_TOKENS_DELTA:
      return bpw_compare_page_delta (data, c, s, column, tone);
    case COLUMN_TOKENS:
      return bpw_format_si (value, "");
    case COLUMN_MFU:
      return g_strdup_printf ("%.1f %%", 100 * value);
    case COLUMN_ENERGY:
      return isfinite (value) ? bpw_format_si (value, "J") : g_strdup ("—");
    case COLUMN_TOKENS_PER_JOULE:
      return isfinite (value) ? g_strdup_printf ("%.3g", value) : g_strdup ("—");
    case COLUMN_PEAK:
      return bpw_format_bytes ((guint64) value, self->units);
    case COLUMN_SLA:
      if (!f->has_sla)
        return g_strdup (_("No SLA"));
      *tone = f->sla_pass ? 1 : -1;
      return f->sla_pass ? g_strdup_printf (_("Met · +%.0f %%"), fabs (100 * value))
                         : g_strdup_printf (_("Missed · −%.0f %%"), fabs (100 * value));
    case COLUMN_SCENARIO:
    case COLUMN_CANDIDATE:
    case COLUMN_METRIC:
    case COLUMN_BOTTLENECK:
    case COLUMN_SCORE:
    case COLUMN_PERF_PER_WATT:
    case COLUMN_SUITE:
    case N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

static void
bpw_compare_page_cell_setup_cb (GtkSignalListItemFactory *factory,
                                GtkListItem              *item,
                                gpointer                  user_data)
{
  BpwCompareColumn column = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), bpw_compare_column_is_numeric (column) ? 1.0 : 0.0);
  if (bpw_compare_column_is_numeric (column))
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

guint
_bpw_compare_page_n_added (BpwComparePage *self)
{
  const BpwCompareData *data = bpw_compare_page_get_data (self);
  BpwStudy *study = bpw_study_worker_get_study (self->worker);
  guint own = study != NULL ? bpw_study_get_n_candidates (study) : 0;

  return data != NULL && data->n_candidates > own ? data->n_candidates - own : 0;
}

/* The added candidates come after the study's own. */
static gboolean
bpw_compare_page_is_added (BpwComparePage *self,
                           guint           c)
{
  const BpwCompareData *data = bpw_compare_page_get_data (self);

  return c + _bpw_compare_page_n_added (self) >= data->n_candidates;
}

/* "H100 · HBM 4.8 TB/s  added": a candidate from outside the study says so. */
static void
bpw_compare_page_mark_added (GtkWidget  *label,
                             const char *name,
                             const char *blueprint)
{
  g_autofree char *markup = NULL;
  g_autofree char *tooltip = NULL;

  /* Translators: marks a Compare row whose candidate a search added, not the study */
  markup = g_markup_printf_escaped ("%s  <span alpha=\"60%%\" size=\"small\">%s</span>", name,
                                    C_("candidate", "added"));
  gtk_label_set_markup (GTK_LABEL (label), markup);
  /* Translators: the tooltip of an added candidate; %s is its blueprint */
  tooltip = g_strdup_printf (_("Added from a search, not part of the study. Blueprint: %s"),
                             blueprint);
  bpw_tooltip_set (label, tooltip);
}

static void
bpw_compare_page_cell_bind_cb (GtkSignalListItemFactory *factory,
                               GtkListItem              *item,
                               BpwComparePage           *self)
{
  BpwCompareColumn column = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory),
                                                                "bpw-column"));
  GtkWidget *label = gtk_list_item_get_child (item);
  const BpwCompareData *data = bpw_compare_page_get_data (self);
  guint cell = bpw_compare_page_row_cell (data, gtk_list_item_get_item (item));
  g_autofree char *text = NULL;
  int tone = 0;

  gtk_widget_remove_css_class (label, "success");
  gtk_widget_remove_css_class (label, "error");
  bpw_tooltip_set (label, NULL);
  if (cell == G_MAXUINT)
    {
      gtk_label_set_text (GTK_LABEL (label), "");
      return;
    }
  text = bpw_compare_page_format (self, cell / data->n_scenarios, cell % data->n_scenarios,
                                  column, &tone);
  gtk_label_set_text (GTK_LABEL (label), text);
  if (tone != 0)
    gtk_widget_add_css_class (label, tone > 0 ? "success" : "error");
  if (column == COLUMN_CANDIDATE && bpw_compare_page_is_added (self, cell / data->n_scenarios))
    bpw_compare_page_mark_added (label, text, data->blueprints[cell / data->n_scenarios]);
  else if (column == COLUMN_CANDIDATE)
    bpw_tooltip_set (label, data->blueprints[cell / data->n_scenarios]);
  else if (column == COLUMN_TIME)
    bpw_tooltip_set (label, data->cells[cell].error);
}

static int
bpw_compare_page_compare_cb (gconstpointer a,
                             gconstpointer b,
                             gpointer      user_data)
{
  const BpwCompareSortKey *key = user_data;
  const BpwCompareData *data = bpw_compare_page_get_data (key->self);
  guint x = bpw_compare_page_row_cell (data, (gpointer) a);
  guint y = bpw_compare_page_row_cell (data, (gpointer) b);
  guint ns = data != NULL ? data->n_scenarios : 1;
  const char *u_word, *v_word;
  double u, v;
  int order;

  if (x == G_MAXUINT || y == G_MAXUINT)
    return (x != G_MAXUINT) - (y != G_MAXUINT);
  u_word = bpw_compare_page_word (data, x / ns, x % ns, key->column);
  v_word = bpw_compare_page_word (data, y / ns, y % ns, key->column);
  if (u_word != NULL && v_word != NULL)
    {
      order = g_utf8_collate (u_word, v_word);
      return gtk_ordering_from_cmpfunc (order);
    }
  u = bpw_compare_page_value (data, x / ns, x % ns, key->column);
  v = bpw_compare_page_value (data, y / ns, y % ns, key->column);
  /* Rows without a number sort after the others. */
  if (isnan (u) || isnan (v))
    return isnan (u) - isnan (v);
  return u < v ? GTK_ORDERING_SMALLER : u > v ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

void
_bpw_compare_page_init_table (BpwComparePage *self)
{
  g_autoptr(GtkSingleSelection) selection = NULL;
  GtkSorter *sorter;

  for (int c = 0; c < N_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      BpwCompareSortKey *key = g_new0 (BpwCompareSortKey, 1);
      g_autoptr(GtkCustomSorter) column_sorter = NULL;
      g_autoptr(GtkColumnViewColumn) column = NULL;

      *key = (BpwCompareSortKey) { self, c };
      g_object_set_data (G_OBJECT (factory), "bpw-column", GINT_TO_POINTER (c));
      g_signal_connect (factory, "setup", G_CALLBACK (bpw_compare_page_cell_setup_cb),
                        GINT_TO_POINTER (c));
      g_signal_connect_object (factory, "bind", G_CALLBACK (bpw_compare_page_cell_bind_cb),
                               self, 0);
      column = gtk_column_view_column_new (bpw_compare_column_title (c), factory);
      column_sorter = gtk_custom_sorter_new (bpw_compare_page_compare_cb, key, g_free);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (column_sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, c == COLUMN_SUITE);
      /* Which scenario and candidate a row is about stays in view as the numbers scroll. */
      gtk_column_view_append_column (c == COLUMN_SCENARIO || c == COLUMN_CANDIDATE
                                     ? bpw_pinned_table_get_pinned (self->table)
                                     : bpw_pinned_table_get_view (self->table), column);
    }

  self->rows = g_list_store_new (GTK_TYPE_STRING_OBJECT);
  sorter = bpw_pinned_table_get_sorter (self->table);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->rows)),
                                          g_object_ref (sorter));
  selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  bpw_pinned_table_set_model (self->table, GTK_SELECTION_MODEL (selection));
}

void
_bpw_compare_page_update_table (BpwComparePage *self)
{
  const BpwCompareData *data = bpw_compare_page_get_data (self);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

  /* Scenario by scenario, candidates in study order: the deltas of a scenario together. */
  for (guint s = 0; data != NULL && s < data->n_scenarios; s++)
    for (guint c = 0; c < data->n_candidates; c++)
      {
        GtkStringObject *row = gtk_string_object_new (data->candidates[c]);

        g_object_set_data (G_OBJECT (row), "bpw-cell",
                           GUINT_TO_POINTER (c * data->n_scenarios + s + 1));
        g_ptr_array_add (rows, row);
      }
  /* New objects: every visible cell is bound, and so formatted, again. */
  g_list_store_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                       rows->pdata, rows->len);
  /* The view by layer type follows the same data and the chosen scenario. */
  bpw_layer_matrix_set_data (self->layer_matrix, data);
}
